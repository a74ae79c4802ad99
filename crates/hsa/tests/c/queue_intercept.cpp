/* HSA_TOOLS_LIB tool: makes every queue HIP creates an intercepted queue
 * (hsa_amd_queue_intercept_create + hsa_amd_queue_intercept_register,
 * reached through the API table's AMD extension entries, as profilers do).
 * The interceptor counts the kernel dispatch packets it sees, checks that
 * packets arrive in order (user_pkt_index), and forwards each through the
 * runtime's packet writer. Prints its counts at OnUnload. */
#define AMD_INTERNAL_BUILD
#include <hsa_api_trace.h>

#include <pthread.h>
#include <stdio.h>

static decltype(hsa_amd_queue_intercept_create)* intercept_create;
static decltype(hsa_amd_queue_intercept_register)* intercept_register;
static unsigned long dispatches, packets, out_of_order, queues, register_errors;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

struct QueueState { uint64_t next; };

static void on_packets(const void* pkts, uint64_t count, uint64_t index, void* data,
                       hsa_amd_queue_intercept_packet_writer writer) {
  QueueState* st = static_cast<QueueState*>(data);
  pthread_mutex_lock(&mu);
  if (index != st->next) out_of_order++;
  st->next = index + count;
  for (uint64_t i = 0; i < count; i++) {
    uint16_t h = *reinterpret_cast<const uint16_t*>(static_cast<const char*>(pkts) + 64 * i);
    packets++;
    if ((h & 0xff) == HSA_PACKET_TYPE_KERNEL_DISPATCH) dispatches++;
  }
  pthread_mutex_unlock(&mu);
  writer(pkts, count);
}

static hsa_status_t my_queue_create(hsa_agent_t a, uint32_t size, hsa_queue_type32_t t,
    void (*cb)(hsa_status_t, hsa_queue_t*, void*), void* d, uint32_t p, uint32_t g, hsa_queue_t** q) {
  hsa_status_t s = intercept_create(a, size, t, cb, d, p, g, q);
  if (s != HSA_STATUS_SUCCESS) return s;
  // Bad arguments first: the status the runtime names, nothing registered.
  if (intercept_register(*q, nullptr, nullptr) != HSA_STATUS_ERROR_INVALID_ARGUMENT) register_errors++;
  hsa_queue_t bogus = **q;
  if (intercept_register(&bogus, on_packets, nullptr) != HSA_STATUS_ERROR_INVALID_QUEUE) register_errors++;
  s = intercept_register(*q, on_packets, new QueueState{0});
  pthread_mutex_lock(&mu);
  queues++;
  pthread_mutex_unlock(&mu);
  return s;
}

extern "C" bool OnLoad(HsaApiTable* table, uint64_t runtime_version, uint64_t failed_tool_count,
            const char* const* failed_tool_names) {
  (void)runtime_version; (void)failed_tool_count; (void)failed_tool_names;
  intercept_create = table->amd_ext_->hsa_amd_queue_intercept_create_fn;
  intercept_register = table->amd_ext_->hsa_amd_queue_intercept_register_fn;
  if (!intercept_create || !intercept_register) return false;
  table->core_->hsa_queue_create_fn = my_queue_create;
  return true;
}

extern "C" void OnUnload(void) {
  fprintf(stderr, "queue-intercept: %lu queues, %lu packets, %lu kernel dispatches, %lu out of order, %lu register errors\n",
          queues, packets, dispatches, out_of_order, register_errors);
}

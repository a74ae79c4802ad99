/* HSA_TOOLS_LIB tool (C++: ROCm 5.2 hsa_api_trace.h uses decltype): wraps hsa_queue_create and the doorbell stores in
 * the API table (ROCm 5.2 hsa_api_trace.h) to count kernel dispatch
 * packets; prints the count at OnUnload. */
#define AMD_INTERNAL_BUILD
#include <hsa_api_trace.h>

#include <stdio.h>
#include <pthread.h>

#define MAXQ 64
static hsa_queue_t* queues[MAXQ];
static uint64_t next_id[MAXQ];
static int nq;
static unsigned long dispatches;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static hsa_status_t (*real_queue_create)(hsa_agent_t, uint32_t, hsa_queue_type32_t,
    void (*)(hsa_status_t, hsa_queue_t*, void*), void*, uint32_t, uint32_t, hsa_queue_t**);
static void (*real_store_screlease)(hsa_signal_t, hsa_signal_value_t);
static void (*real_store_relaxed)(hsa_signal_t, hsa_signal_value_t);

static hsa_status_t my_queue_create(hsa_agent_t a, uint32_t size, hsa_queue_type32_t t,
    void (*cb)(hsa_status_t, hsa_queue_t*, void*), void* d, uint32_t p, uint32_t g, hsa_queue_t** q) {
  hsa_status_t s = real_queue_create(a, size, t, cb, d, p, g, q);
  if (s == HSA_STATUS_SUCCESS) {
    pthread_mutex_lock(&mu);
    if (nq < MAXQ) { queues[nq] = *q; next_id[nq] = 0; nq++; }
    pthread_mutex_unlock(&mu);
  }
  return s;
}

static void count(hsa_signal_t sig, hsa_signal_value_t v) {
  pthread_mutex_lock(&mu);
  for (int i = 0; i < nq; i++) {
    hsa_queue_t* q = queues[i];
    if (q->doorbell_signal.handle != sig.handle) continue;
    for (uint64_t id = next_id[i]; v >= 0 && id <= (uint64_t)v; id++) {
      uint16_t h = __atomic_load_n((uint16_t*)((char*)q->base_address + (id % q->size) * 64), __ATOMIC_ACQUIRE);
      if ((h & 0xff) == HSA_PACKET_TYPE_KERNEL_DISPATCH) dispatches++;
    }
    if (v >= 0 && (uint64_t)v + 1 > next_id[i]) next_id[i] = (uint64_t)v + 1;
  }
  pthread_mutex_unlock(&mu);
}

static void my_store_screlease(hsa_signal_t s, hsa_signal_value_t v) { count(s, v); real_store_screlease(s, v); }
static void my_store_relaxed(hsa_signal_t s, hsa_signal_value_t v) { count(s, v); real_store_relaxed(s, v); }

extern "C" bool OnLoad(HsaApiTable* table, uint64_t runtime_version, uint64_t failed_tool_count,
            const char* const* failed_tool_names) {
  (void)runtime_version; (void)failed_tool_count; (void)failed_tool_names;
  real_queue_create = table->core_->hsa_queue_create_fn;
  real_store_screlease = table->core_->hsa_signal_store_screlease_fn;
  real_store_relaxed = table->core_->hsa_signal_store_relaxed_fn;
  table->core_->hsa_queue_create_fn = my_queue_create;
  table->core_->hsa_signal_store_screlease_fn = my_store_screlease;
  table->core_->hsa_signal_store_relaxed_fn = my_store_relaxed;
  return true;
}

extern "C" void OnUnload(void) { fprintf(stderr, "dispatch-counter: %lu kernel dispatches\n", dispatches); }

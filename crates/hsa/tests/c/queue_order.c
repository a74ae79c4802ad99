/* Packets of one queue run one at a time and in order, whoever runs them
 * (D44): the queue's processor thread, or threads waiting for a packet's
 * completion signal, which run the queue's packets up to it themselves.
 *
 * A 64-slot queue gets N dispatches of `append` (argv[1]: its code
 * object), each logging its tag, with a barrier-AND packet every 7th slot
 * (its dependency already 0) and one that must wait for a signal a host
 * thread sets late. Each packet has its own completion signal. While the
 * main thread submits, W waiter threads wait for packets in different
 * orders (newest first, oldest first, a stride), so waiters and the
 * processor race to run the same queue. Afterwards the log must read
 * 0, 1, ..., N-1, every signal must be 0, and the barrier that waited must
 * not have completed before its dependency was set. Run with
 * --wrap-only to check the ring wrap without waiters. */
#include <hsa.h>
#include <hsa_ext_amd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "hsa_test.h"

enum { N = 600, W = 3, LATE = 301 };

static hsa_amd_memory_pool_t kernarg_pool;
static hsa_queue_t* q;
static hsa_signal_t done[2 * N];
static int kind[2 * N]; /* 0 dispatch, 1 barrier, 2 late barrier */
static _Atomic int submitted = 0;
static hsa_signal_t gate;
static _Atomic int gate_open = 0;

static hsa_status_t find_pools(hsa_amd_memory_pool_t p, void* d) {
  (void)d;
  uint32_t flags = 0; hsa_amd_segment_t seg;
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  if (seg != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
  if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) kernarg_pool = p;
  return HSA_STATUS_SUCCESS;
}

static void submit(const void* pkt64) {
  uint64_t idx = hsa_queue_add_write_index_screlease(q, 1);
  while (idx - hsa_queue_load_read_index_scacquire(q) >= q->size) {}
  uint8_t* slot = (uint8_t*)q->base_address + (idx % q->size) * 64;
  memcpy(slot + 2, (const uint8_t*)pkt64 + 2, 62);
  __atomic_store_n((uint16_t*)slot, *(const uint16_t*)pkt64, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q->doorbell_signal, idx);
}

static int total;

/* Waits for packets in an order of its own once they are submitted. */
static void* waiter(void* arg) {
  int w = (int)(intptr_t)arg;
  for (int k = 0; k < total; k++) {
    int i = w == 0 ? total - 1 - k : w == 1 ? k : (k * 37) % total;
    while (atomic_load(&submitted) <= i) sched_yield();
    hsa_signal_wait_scacquire(done[i], HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
  }
  return NULL;
}

/* Opens the late barrier's gate once the packets before it have run. */
static void* opener(void* arg) {
  (void)arg;
  while (atomic_load(&submitted) <= LATE) sched_yield();
  hsa_signal_wait_scacquire(done[LATE - 1], HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
  usleep(20000);
  if (hsa_signal_load_scacquire(done[LATE]) != 1) {
    fprintf(stderr, "queue_order: the late barrier completed before its dependency was set\n");
    exit(1);
  }
  atomic_store(&gate_open, 1);
  hsa_signal_store_screlease(gate, 0);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: queue_order CODE_OBJECT [--wrap-only]\n"); return 2; }
  int waiters = argc > 2 && strcmp(argv[2], "--wrap-only") == 0 ? 0 : W;
  OK(hsa_init());
  OK(hsa_iterate_agents(find_agents, NULL));
  OK(hsa_amd_agent_iterate_memory_pools(cpu, find_pools, NULL));
  if (!kernarg_pool.handle) { fprintf(stderr, "queue_order: no kernarg pool\n"); return 2; }

  int fd = open(argv[1], O_RDONLY);
  if (fd < 0) { perror(argv[1]); return 2; }
  hsa_code_object_reader_t reader; hsa_executable_t exe;
  OK(hsa_code_object_reader_create_from_file(fd, &reader));
  OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
  OK(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL));
  OK(hsa_executable_freeze(exe, NULL));
  hsa_executable_symbol_t sym; uint64_t kobj; uint32_t kasz;
  OK(hsa_executable_get_symbol_by_name(exe, "append.kd", &gpu, &sym));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kobj));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &kasz));

  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
  unsigned* log; unsigned* next;
  OK(hsa_amd_memory_pool_allocate(kernarg_pool, N * sizeof(unsigned), 0, (void**)&log));
  OK(hsa_amd_memory_pool_allocate(kernarg_pool, sizeof(unsigned), 0, (void**)&next));
  memset(log, 0xff, N * sizeof(unsigned)); *next = 0;
  char* ka;
  OK(hsa_amd_memory_pool_allocate(kernarg_pool, (size_t)N * kasz, 0, (void**)&ka));
  memset(ka, 0, (size_t)N * kasz);
  OK(hsa_signal_create(1, 0, NULL, &gate));
  hsa_signal_t zero; OK(hsa_signal_create(0, 0, NULL, &zero));

  /* The packet list: dispatches with a barrier every 7th slot. */
  total = 0;
  for (int tag = 0; tag < N; tag++) {
    if (total % 7 == 6) kind[total++] = 1;
    if (total == LATE) kind[total++] = 2;
    kind[total++] = 0;
  }
  for (int i = 0; i < total; i++) OK(hsa_signal_create(1, 0, NULL, &done[i]));

  pthread_t th[W + 1];
  for (int w = 0; w < waiters; w++) pthread_create(&th[w], NULL, waiter, (void*)(intptr_t)w);
  pthread_create(&th[W], NULL, opener, NULL);
  int tag = 0;
  for (int i = 0; i < total; i++) {
    if (kind[i] == 0) {
      char* a = ka + (size_t)tag * kasz;
      unsigned t = (unsigned)tag++;
      memcpy(a, &log, 8); memcpy(a + 8, &next, 8); memcpy(a + 16, &t, 4);
      hsa_kernel_dispatch_packet_t p = {0};
      p.header = HSA_PACKET_TYPE_KERNEL_DISPATCH |
                 (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                 (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE);
      p.setup = 1; p.workgroup_size_x = 64; p.workgroup_size_y = 1; p.workgroup_size_z = 1;
      p.grid_size_x = 64; p.grid_size_y = 1; p.grid_size_z = 1;
      p.kernel_object = kobj; p.kernarg_address = a; p.completion_signal = done[i];
      submit(&p);
    } else {
      hsa_barrier_and_packet_t b = {0};
      b.header = HSA_PACKET_TYPE_BARRIER_AND;
      b.dep_signal[0] = kind[i] == 2 ? gate : zero;
      b.completion_signal = done[i];
      submit(&b);
    }
    atomic_store(&submitted, i + 1);
  }
  for (int w = 0; w < waiters; w++) pthread_join(th[w], NULL);
  pthread_join(th[W], NULL);
  for (int i = 0; i < total; i++)
    hsa_signal_wait_scacquire(done[i], HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);

  int bad = 0;
  for (int i = 0; i < total && bad < 5; i++)
    if (hsa_signal_load_scacquire(done[i]) != 0) { fprintf(stderr, "queue_order: packet %d's signal is %ld, want 0 (run twice?)\n", i, (long)hsa_signal_load_scacquire(done[i])); bad++; }
  if (*next != N) { fprintf(stderr, "queue_order: %u dispatches ran, want %d\n", *next, N); bad++; }
  for (int i = 0; i < N && bad < 5; i++)
    if (log[i] != (unsigned)i) { fprintf(stderr, "queue_order: log[%d] = %d (packets ran out of order)\n", i, (int)log[i]); bad++; }
  if (!atomic_load(&gate_open)) { fprintf(stderr, "queue_order: the gate never opened\n"); bad++; }
  uint64_t rd = hsa_queue_load_read_index_scacquire(q);
  if (rd != (uint64_t)total) { fprintf(stderr, "queue_order: read index %lu, want %d\n", (unsigned long)rd, total); bad++; }
  OK(hsa_queue_destroy(q));
  OK(hsa_executable_destroy(exe));
  OK(hsa_code_object_reader_destroy(reader));
  OK(hsa_shut_down());
  if (bad) return 1;
  printf("queue_order: ok (%d packets, %d waiters)\n", total, waiters);
  return 0;
}

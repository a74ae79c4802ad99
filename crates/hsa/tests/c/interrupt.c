/* A device interrupt wakes a host waiter (argv[1]: a code object with
 * signal_after_go). Run with LATHE_POLL_US set very long, so a waiter is
 * woken promptly only by the s_sendmsg(MSG_INTERRUPT) that device code
 * sends after updating an interrupt signal; a GPU-only signal (no event
 * mailbox, no interrupt) shows the waiter is not woken otherwise. */
#include <hsa.h>
#include <hsa_ext_amd.h>
#include <amd_hsa_signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>

#include "hsa_test.h"

static int bad = 0;
#define EXPECT(c, ...) do { if (!(c)) { bad++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static hsa_amd_memory_pool_t kernarg_pool;

static hsa_status_t find_pools(hsa_amd_memory_pool_t p, void* d) {
  (void)d;
  uint32_t flags = 0; hsa_amd_segment_t seg;
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  if (seg != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
  if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) kernarg_pool = p;
  return HSA_STATUS_SUCCESS;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static hsa_queue_t* q;
static uint64_t kobj;
static uint32_t kasz;
static int* go;

/* Dispatches signal_after_go(sig, go, 7) with completion signal `done`. */
static void launch(hsa_signal_t sig, hsa_signal_t done) {
  char* ka;
  OK(hsa_amd_memory_pool_allocate(kernarg_pool, kasz, 0, (void**)&ka));
  memset(ka, 0, kasz);
  long value = 7;
  memcpy(ka, &sig.handle, 8); memcpy(ka + 8, &go, 8); memcpy(ka + 16, &value, 8);
  uint64_t idx = hsa_queue_add_write_index_screlease(q, 1);
  hsa_kernel_dispatch_packet_t* p = (hsa_kernel_dispatch_packet_t*)q->base_address + (idx % q->size);
  memset((char*)p + 2, 0, 62);
  p->setup = 1; p->workgroup_size_x = 64; p->workgroup_size_y = 1; p->workgroup_size_z = 1;
  p->grid_size_x = 64; p->grid_size_y = 1; p->grid_size_z = 1;
  p->kernel_object = kobj; p->kernarg_address = ka; p->completion_signal = done;
  uint16_t header = HSA_PACKET_TYPE_KERNEL_DISPATCH | (1 << HSA_PACKET_HEADER_BARRIER) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE);
  __atomic_store_n(&p->header, header, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q->doorbell_signal, idx);
}

int main(int argc, char** argv) {
  if (argc != 2) { fprintf(stderr, "usage: interrupt CODE_OBJECT\n"); return 2; }
  OK(hsa_init());
  OK(hsa_iterate_agents(find_agents, NULL));
  OK(hsa_amd_agent_iterate_memory_pools(cpu, find_pools, NULL));

  int fd = open(argv[1], O_RDONLY);
  hsa_code_object_reader_t reader; hsa_executable_t exe;
  OK(hsa_code_object_reader_create_from_file(fd, &reader));
  OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
  OK(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL));
  OK(hsa_executable_freeze(exe, NULL));
  hsa_executable_symbol_t sym;
  OK(hsa_executable_get_symbol_by_name(exe, "signal_after_go.kd", &gpu, &sym));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kobj));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &kasz));
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
  OK(hsa_amd_memory_pool_allocate(kernarg_pool, 128, 0, (void**)&go)); /* go[0]; go[16]: the pause's stores */

  /* An interrupt signal (host consumers): it has an event mailbox. */
  hsa_signal_t irq, done;
  OK(hsa_signal_create(0, 0, NULL, &irq));
  OK(hsa_signal_create(1, 0, NULL, &done));
  const amd_signal_t* rec = (const amd_signal_t*)irq.handle;
  EXPECT(rec->event_mailbox_ptr != 0 && rec->event_id != 0, "interrupt signal: mailbox %p id %u", (void*)(uintptr_t)rec->event_mailbox_ptr, rec->event_id);
  __atomic_store_n(go, 0, __ATOMIC_RELEASE);
  launch(irq, done);
  __atomic_store_n(go, 1, __ATOMIC_RELEASE);
  double t0 = now();
  hsa_signal_value_t v = hsa_signal_wait_scacquire(irq, HSA_SIGNAL_CONDITION_NE, 0, 10000000000ull, HSA_WAIT_STATE_BLOCKED);
  double woke = now() - t0;
  EXPECT(hsa_signal_load_scacquire(done) == 1, "the kernel is still running (its completion did not wake the waiter)");
  __atomic_store_n(go, 2, __ATOMIC_RELEASE);
  EXPECT(v == 7, "interrupt signal: waiter saw %ld", (long)v);
  EXPECT(woke < 3.0, "interrupt signal: waiter woke after %.3f s (not by the interrupt)", woke);
  EXPECT(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, 20000000000ull, HSA_WAIT_STATE_BLOCKED) == 0, "first dispatch completes");
  EXPECT(*(volatile uint64_t*)(uintptr_t)rec->event_mailbox_ptr == 0, "mailbox cleared by the interrupt");

  /* A GPU-only signal: no mailbox, no interrupt; the device's store is
   * not seen until the (long) poll or the wait's timeout. */
  hsa_signal_t quiet;
  OK(hsa_amd_signal_create(0, 0, NULL, HSA_AMD_SIGNAL_AMD_GPU_ONLY, &quiet));
  EXPECT(((const amd_signal_t*)quiet.handle)->event_mailbox_ptr == 0, "GPU-only signal has no mailbox");
  hsa_signal_store_screlease(done, 1);
  __atomic_store_n(go, 0, __ATOMIC_RELEASE);
  launch(quiet, done);
  __atomic_store_n(go, 1, __ATOMIC_RELEASE);
  t0 = now();
  v = hsa_signal_wait_scacquire(quiet, HSA_SIGNAL_CONDITION_NE, 0, 2000000000ull, HSA_WAIT_STATE_BLOCKED);
  double slept = now() - t0;
  /* The kernel stored long before the timeout (a pause of milliseconds)
   * and is still running, yet the waiter slept until the timeout. */
  EXPECT(hsa_signal_load_scacquire(done) == 1, "second dispatch still running");
  __atomic_store_n(go, 2, __ATOMIC_RELEASE);
  EXPECT(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, 20000000000ull, HSA_WAIT_STATE_BLOCKED) == 0, "second dispatch completes");
  EXPECT(slept >= 1.9, "GPU-only signal: waiter returned after %.3f s", slept);
  EXPECT(v == 7, "GPU-only signal: value after the wait %ld", (long)v);
  printf("interrupt: woken after %.6f s; without interrupt slept %.3f s\n", woke, slept);

  OK(hsa_queue_destroy(q));
  OK(hsa_executable_destroy(exe));
  OK(hsa_code_object_reader_destroy(reader));
  OK(hsa_shut_down());
  if (bad) { fprintf(stderr, "interrupt: %d failures\n", bad); return 1; }
  printf("interrupt: ok\n");
  return 0;
}

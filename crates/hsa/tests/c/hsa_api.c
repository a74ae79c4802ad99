/* HSA-level test against Debian's ROCm 5.2 headers: agents, pools,
 * signals (waits, timeouts, async handlers), queues (ring wrap-around,
 * barrier packets), executables (argv[1]: a code object with
 * scale_kernel), and bad arguments returning the specified status. */
#include <hsa.h>
#include <hsa_ext_amd.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "hsa_test.h"

static int bad = 0;
#define EXPECT(c, ...) do { if (!(c)) { bad++; fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static hsa_amd_memory_pool_t kernarg_pool, gpu_pool;

static hsa_status_t find_pools(hsa_amd_memory_pool_t p, void* d) {
  (void)d;
  uint32_t flags = 0; hsa_amd_segment_t seg;
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  if (seg != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
  if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) kernarg_pool = p;
  if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) gpu_pool = p;
  return HSA_STATUS_SUCCESS;
}

static int handler_calls = 0;
static bool on_signal(hsa_signal_value_t v, void* arg) {
  handler_calls++;
  *(hsa_signal_value_t*)arg = v;
  return false;
}

static void* store_later(void* p) {
  usleep(20000);
  hsa_signal_store_screlease(*(hsa_signal_t*)p, 5);
  return NULL;
}

static uint64_t submit(hsa_queue_t* q, const void* pkt64) {
  uint64_t idx = hsa_queue_add_write_index_screlease(q, 1);
  while (idx - hsa_queue_load_read_index_scacquire(q) >= q->size) {}
  uint8_t* slot = (uint8_t*)q->base_address + (idx % q->size) * 64;
  memcpy(slot + 2, (const uint8_t*)pkt64 + 2, 62);
  __atomic_store_n((uint16_t*)slot, *(const uint16_t*)pkt64, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q->doorbell_signal, idx);
  return idx;
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: hsa_api CODE_OBJECT\n"); return 2; }
  /* Before hsa_init every call reports NOT_INITIALIZED. */
  EXPECT(hsa_iterate_agents(find_agents, NULL) == HSA_STATUS_ERROR_NOT_INITIALIZED, "iterate before init");
  OK(hsa_init());
  OK(hsa_iterate_agents(find_agents, NULL));
  EXPECT(gpu.handle && cpu.handle, "agents: gpu %lx cpu %lx", gpu.handle, cpu.handle);

  char name[64]; uint32_t wave, cus; uint16_t wg_dim[3];
  OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, name));
  OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_WAVEFRONT_SIZE, &wave));
  OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &cus));
  OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_WORKGROUP_MAX_DIM, wg_dim));
  EXPECT(strcmp(name, "gfx90a") == 0, "name %s", name);
  EXPECT(wave == 64 && cus == 104 && wg_dim[0] == 1024, "wave %u cus %u dim %u", wave, cus, wg_dim[0]);
  hsa_isa_t isa; char isa_name[128] = {0};
  OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_ISA, &isa));
  OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, isa_name));
  EXPECT(strcmp(isa_name, "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-") == 0, "isa %s", isa_name);

  /* Bad arguments. */
  hsa_agent_t stale = {0x1234};
  EXPECT(hsa_agent_get_info(stale, HSA_AGENT_INFO_NAME, name) == HSA_STATUS_ERROR_INVALID_AGENT, "stale agent");
  EXPECT(hsa_iterate_agents(NULL, NULL) == HSA_STATUS_ERROR_INVALID_ARGUMENT, "null callback");
  hsa_signal_t dead = {0};
  EXPECT(hsa_signal_destroy(dead) == HSA_STATUS_ERROR_INVALID_SIGNAL, "destroy null signal");
  hsa_queue_t* q0;
  EXPECT(hsa_queue_create(gpu, 100, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &q0) == HSA_STATUS_ERROR_INVALID_ARGUMENT, "queue size 100");
  EXPECT(hsa_queue_create(cpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &q0) == HSA_STATUS_ERROR_INVALID_QUEUE_CREATION, "cpu queue");
  hsa_code_object_reader_t r0;
  static const char junk[64] = "\177ELF this is not a code object";
  EXPECT(hsa_code_object_reader_create_from_memory(junk, sizeof junk, &r0) == HSA_STATUS_SUCCESS, "reader accepts bytes");

  /* Pools. */
  OK(hsa_amd_agent_iterate_memory_pools(cpu, find_pools, NULL));
  OK(hsa_amd_agent_iterate_memory_pools(gpu, find_pools, NULL));
  EXPECT(kernarg_pool.handle && gpu_pool.handle, "pools");
  void* buf;
  OK(hsa_amd_memory_pool_allocate(gpu_pool, 1 << 20, 0, &buf));
  hsa_amd_pointer_info_t pi = {.size = sizeof pi};
  OK(hsa_amd_pointer_info((char*)buf + 100, &pi, NULL, NULL, NULL));
  EXPECT(pi.type == HSA_EXT_POINTER_TYPE_HSA && pi.agentBaseAddress == buf && pi.sizeInBytes == (1 << 20), "pointer info");
  EXPECT(hsa_amd_memory_pool_free((char*)buf + 8) != HSA_STATUS_SUCCESS, "free of an interior pointer");

  /* Signals: waits, timeouts, async handler. */
  hsa_signal_t s;
  OK(hsa_signal_create(3, 0, NULL, &s));
  hsa_signal_subtract_screlease(s, 1);
  EXPECT(hsa_signal_load_scacquire(s) == 2, "subtract");
  EXPECT(hsa_signal_cas_scacq_screl(s, 2, 9) == 2 && hsa_signal_load_relaxed(s) == 9, "cas");
  EXPECT(hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, 2000000, HSA_WAIT_STATE_BLOCKED) == 9, "timeout returns current value");
  pthread_t th; pthread_create(&th, NULL, store_later, &s);
  EXPECT(hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 5, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 5, "wait for another thread");
  pthread_join(th, NULL);
  hsa_signal_value_t seen = -1;
  OK(hsa_amd_signal_async_handler(s, HSA_SIGNAL_CONDITION_LT, 1, on_signal, &seen));
  hsa_signal_store_screlease(s, 0);
  for (int i = 0; i < 2000 && handler_calls == 0; i++) usleep(1000);
  EXPECT(handler_calls == 1 && seen == 0, "async handler calls %d value %ld", handler_calls, (long)seen);

  /* Executable from a file. */
  int fd = open(argv[1], O_RDONLY);
  hsa_code_object_reader_t reader; hsa_executable_t exe;
  OK(hsa_code_object_reader_create_from_file(fd, &reader));
  OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
  EXPECT(hsa_executable_load_agent_code_object(exe, gpu, r0, NULL, NULL) == HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "corrupt code object");
  OK(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL));
  OK(hsa_executable_freeze(exe, NULL));
  EXPECT(hsa_executable_freeze(exe, NULL) == HSA_STATUS_ERROR_FROZEN_EXECUTABLE, "freeze twice");
  hsa_executable_symbol_t sym; uint64_t kobj; uint32_t kasz, ktype;
  EXPECT(hsa_executable_get_symbol_by_name(exe, "nope.kd", &gpu, &sym) == HSA_STATUS_ERROR_INVALID_SYMBOL_NAME, "missing symbol");
  OK(hsa_executable_get_symbol_by_name(exe, "scale_kernel.kd", &gpu, &sym));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &ktype));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kobj));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &kasz));
  EXPECT(ktype == HSA_SYMBOL_KIND_KERNEL && kobj && kasz >= 16, "kernel symbol type %u size %u", ktype, kasz);
  /* The device function mix() is an indirect-function symbol. */
  hsa_executable_symbol_t fsym; uint32_t ftype = 99; uint64_t faddr = 0;
  if (hsa_executable_get_symbol_by_name(exe, "_Z3mixii", &gpu, &fsym) == HSA_STATUS_SUCCESS) {
    OK(hsa_executable_symbol_get_info(fsym, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &ftype));
    OK(hsa_executable_symbol_get_info(fsym, HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_OBJECT, &faddr));
    EXPECT(ftype == HSA_SYMBOL_KIND_INDIRECT_FUNCTION && faddr, "device function kind %u addr %lx", ftype, faddr);
  } else {
    EXPECT(0, "device function _Z3mixii not found");
  }

  /* Queue of 64 packets; 200 dispatches wrap the ring three times. */
  hsa_queue_t* q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
  const int n = 256;
  float* y;
  OK(hsa_amd_memory_pool_allocate(kernarg_pool, n * sizeof(float), 0, (void**)&y));
  for (int i = 0; i < n; i++) y[i] = 1.0f;
  hsa_signal_t done;
  const int launches = 200;
  OK(hsa_signal_create(launches, 0, NULL, &done));
  for (int k = 0; k < launches; k++) {
    char* ka;
    OK(hsa_amd_memory_pool_allocate(kernarg_pool, kasz, 0, (void**)&ka));
    memset(ka, 0, kasz);
    float a = (k % 2) ? 2.0f : 0.5f; int nn = n;
    memcpy(ka, &y, 8); memcpy(ka + 8, &a, 4); memcpy(ka + 12, &nn, 4);
    hsa_kernel_dispatch_packet_t p = {0};
    p.header = HSA_PACKET_TYPE_KERNEL_DISPATCH | (1 << HSA_PACKET_HEADER_BARRIER) |
               (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
               (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE);
    p.setup = 1; p.workgroup_size_x = 64; p.workgroup_size_y = 1; p.workgroup_size_z = 1;
    p.grid_size_x = n; p.grid_size_y = 1; p.grid_size_z = 1;
    p.kernel_object = kobj; p.kernarg_address = ka; p.completion_signal = done;
    submit(q, &p);
  }
  /* A barrier-AND packet waiting on the dispatches' signal reaching 0. */
  hsa_signal_t bdone; OK(hsa_signal_create(1, 0, NULL, &bdone));
  hsa_barrier_and_packet_t b = {0};
  b.header = HSA_PACKET_TYPE_BARRIER_AND; b.dep_signal[0] = done; b.completion_signal = bdone;
  submit(q, &b);
  EXPECT(hsa_signal_wait_scacquire(bdone, HSA_SIGNAL_CONDITION_EQ, 0, 20000000000ull, HSA_WAIT_STATE_BLOCKED) == 0, "barrier completion");
  EXPECT(hsa_signal_load_relaxed(done) == 0, "all dispatches completed");
  for (int i = 0; i < n; i++) EXPECT(y[i] == 1.0f, "y[%d] = %f after 100 x (0.5 * 2)", i, y[i]);
  EXPECT(hsa_queue_load_read_index_relaxed(q) == (uint64_t)launches + 1, "read index %lu", hsa_queue_load_read_index_relaxed(q));

  /* Barrier-OR: completes when any dependency reaches 0. */
  hsa_signal_t never, now_zero, ordone;
  OK(hsa_signal_create(1, 0, NULL, &never)); OK(hsa_signal_create(0, 0, NULL, &now_zero)); OK(hsa_signal_create(1, 0, NULL, &ordone));
  hsa_barrier_or_packet_t o = {0};
  o.header = HSA_PACKET_TYPE_BARRIER_OR; o.dep_signal[0] = never; o.dep_signal[1] = now_zero; o.completion_signal = ordone;
  submit(q, &o);
  EXPECT(hsa_signal_wait_scacquire(ordone, HSA_SIGNAL_CONDITION_EQ, 0, 5000000000ull, HSA_WAIT_STATE_BLOCKED) == 0, "barrier-or");

  OK(hsa_queue_destroy(q));
  EXPECT(hsa_queue_destroy(q) == HSA_STATUS_ERROR_INVALID_QUEUE, "destroy twice");
  OK(hsa_executable_destroy(exe));
  OK(hsa_code_object_reader_destroy(reader));
  OK(hsa_signal_destroy(s));
  OK(hsa_shut_down());
  if (bad) { fprintf(stderr, "hsa_api: %d failures\n", bad); return 1; }
  printf("hsa_api: ok\n");
  return 0;
}

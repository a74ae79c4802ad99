/* Two code objects in one executable and locked host memory, through the
 * HSA API only (for tests/tool_capture.rs): argv[1] and argv[2] are code
 * objects loaded in that order into one executable; argv[2] defines
 * `scale_locked(const int* in, int* out, int k)`, which runs on 4096 ints
 * of malloc'ed host memory locked with hsa_amd_memory_lock (input) and
 * hsa_amd_memory_lock_to_pool (output), used through their device
 * aliases. Prints "two_objects: ok" when out[i] == in[i] * 3 + 7. */
#include <hsa.h>
#include <hsa_ext_amd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OK(x) do { hsa_status_t s_ = (x); if (s_ != HSA_STATUS_SUCCESS) { fprintf(stderr, "%s:%d: %s = %#x\n", __FILE__, __LINE__, #x, s_); exit(2); } } while (0)

static hsa_agent_t gpu;
static int have_gpu = 0;
static hsa_amd_memory_pool_t kernarg_pool, host_pool;

static hsa_status_t find_gpu(hsa_agent_t a, void* d) {
  (void)d;
  hsa_device_type_t t;
  OK(hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t));
  if (t == HSA_DEVICE_TYPE_GPU && !have_gpu) { gpu = a; have_gpu = 1; }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_pools(hsa_amd_memory_pool_t p, void* d) {
  (void)d;
  uint32_t flags = 0; hsa_amd_segment_t seg;
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  if (seg != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
  if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) kernarg_pool = p;
  if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && !host_pool.handle) host_pool = p;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t cpu_pools(hsa_agent_t a, void* d) {
  hsa_device_type_t t;
  OK(hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t));
  if (t == HSA_DEVICE_TYPE_CPU) OK(hsa_amd_agent_iterate_memory_pools(a, find_pools, d));
  return HSA_STATUS_SUCCESS;
}

static void* read_file(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) { perror(path); exit(2); }
  fseek(f, 0, SEEK_END); *len = (size_t)ftell(f); fseek(f, 0, SEEK_SET);
  void* b = malloc(*len);
  if (fread(b, 1, *len, f) != *len) { perror(path); exit(2); }
  fclose(f);
  return b;
}

int main(int argc, char** argv) {
  if (argc != 3) { fprintf(stderr, "usage: two_objects A.co B.co\n"); return 2; }
  OK(hsa_init());
  OK(hsa_iterate_agents(find_gpu, NULL));
  if (!have_gpu) { fprintf(stderr, "no GPU agent\n"); return 2; }
  OK(hsa_iterate_agents(cpu_pools, NULL));
  hsa_executable_t exe;
  OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
  for (int i = 1; i <= 2; i++) {
    size_t len; void* bytes = read_file(argv[i], &len);
    hsa_code_object_reader_t r;
    OK(hsa_code_object_reader_create_from_memory(bytes, len, &r));
    OK(hsa_executable_load_agent_code_object(exe, gpu, r, NULL, NULL));
  }
  OK(hsa_executable_freeze(exe, NULL));
  hsa_executable_symbol_t sym;
  OK(hsa_executable_get_symbol_by_name(exe, "scale_locked.kd", &gpu, &sym));
  uint64_t kobj; uint32_t kasz;
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kobj));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &kasz));

  const int n = 4096;
  int* in = malloc(n * sizeof(int));
  int* out = malloc(n * sizeof(int));
  for (int i = 0; i < n; i++) { in[i] = i * 5 - 1000; out[i] = -1; }
  int *din, *dout;
  OK(hsa_amd_memory_lock(in, n * sizeof(int), &gpu, 1, (void**)&din));
  OK(hsa_amd_memory_lock_to_pool(out, n * sizeof(int), &gpu, 1, host_pool, 0, (void**)&dout));

  char* ka;
  OK(hsa_amd_memory_pool_allocate(kernarg_pool, kasz < 24 ? 24 : kasz, 0, (void**)&ka));
  memset(ka, 0, kasz < 24 ? 24 : kasz);
  int k = 3;
  memcpy(ka, &din, 8); memcpy(ka + 8, &dout, 8); memcpy(ka + 16, &k, 4);

  hsa_queue_t* q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
  hsa_signal_t done;
  OK(hsa_signal_create(1, 0, NULL, &done));
  hsa_kernel_dispatch_packet_t p;
  memset(&p, 0, sizeof p);
  p.setup = 1; p.workgroup_size_x = 256; p.workgroup_size_y = 1; p.workgroup_size_z = 1;
  p.grid_size_x = n; p.grid_size_y = 1; p.grid_size_z = 1;
  p.kernel_object = kobj; p.kernarg_address = ka; p.completion_signal = done;
  uint64_t idx = hsa_queue_add_write_index_screlease(q, 1);
  uint8_t* slot = (uint8_t*)q->base_address + (idx % q->size) * 64;
  memcpy(slot + 2, (const uint8_t*)&p + 2, 62);
  uint16_t hdr = HSA_PACKET_TYPE_KERNEL_DISPATCH | (1 << HSA_PACKET_HEADER_BARRIER) |
                 (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                 (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE);
  __atomic_store_n((uint16_t*)slot, hdr, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q->doorbell_signal, idx);
  while (hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) >= 1) {}

  int bad = 0;
  for (int i = 0; i < n; i++)
    if (out[i] != in[i] * 3 + 7) { if (bad++ < 5) fprintf(stderr, "out[%d] = %d, want %d\n", i, out[i], in[i] * 3 + 7); }
  OK(hsa_amd_memory_unlock(in));
  OK(hsa_amd_memory_unlock(out));
  OK(hsa_queue_destroy(q));
  OK(hsa_executable_destroy(exe));
  OK(hsa_shut_down());
  if (bad) { printf("two_objects: %d wrong\n", bad); return 1; }
  printf("two_objects: ok\n");
  return 0;
}

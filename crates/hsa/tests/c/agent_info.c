/* The modelled GPU agent as an HSA program sees it (LATHE_TARGET picks
 * it): one "key: value" line per property. With argv[1] a code object
 * holding `iota3` (tests/hip/iota3.hip, built by clang-22 for the agent),
 * also dispatches it over 1000 work-items and checks out[i] = 3i + 1 on
 * the host ("dispatch: ok"). */
#include <hsa.h>
#include <hsa_ext_amd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "hsa_test.h"

static hsa_amd_memory_pool_t kernarg_pool, group_pool;

static hsa_status_t find_pools(hsa_amd_memory_pool_t p, void* d) {
  (void)d;
  uint32_t flags = 0; hsa_amd_segment_t seg;
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  if (seg == HSA_AMD_SEGMENT_GROUP) { group_pool = p; return HSA_STATUS_SUCCESS; }
  if (seg != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
  if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) kernarg_pool = p;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t first_isa(hsa_isa_t isa, void* d) {
  *(hsa_isa_t*)d = isa;
  return HSA_STATUS_INFO_BREAK;
}

static void dispatch(const char* path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) { perror(path); exit(2); }
  hsa_code_object_reader_t rd;
  OK(hsa_code_object_reader_create_from_file(fd, &rd));
  hsa_executable_t exe;
  OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
  OK(hsa_executable_load_agent_code_object(exe, gpu, rd, NULL, NULL));
  OK(hsa_executable_freeze(exe, NULL));
  hsa_executable_symbol_t sym;
  OK(hsa_executable_get_symbol_by_name(exe, "iota3.kd", &gpu, &sym));
  uint64_t kobj; uint32_t kasz, lds, priv;
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kobj));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &kasz));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &lds));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &priv));
  const uint32_t n = 1000;
  uint32_t* out; uint8_t* ka;
  OK(hsa_amd_memory_pool_allocate(kernarg_pool, n * 4, 0, (void**)&out));
  OK(hsa_amd_memory_pool_allocate(kernarg_pool, kasz < 16 ? 16 : kasz, 0, (void**)&ka));
  memset(out, 0, n * 4);
  memset(ka, 0, kasz < 16 ? 16 : kasz);
  memcpy(ka, &out, 8);
  memcpy(ka + 8, &n, 4);
  hsa_queue_t* q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
  hsa_signal_t done;
  OK(hsa_signal_create(1, 0, NULL, &done));
  hsa_kernel_dispatch_packet_t p = {0};
  p.setup = 1;
  p.workgroup_size_x = 64; p.workgroup_size_y = 1; p.workgroup_size_z = 1;
  p.grid_size_x = 1024; p.grid_size_y = 1; p.grid_size_z = 1;
  p.group_segment_size = lds; p.private_segment_size = priv;
  p.kernel_object = kobj; p.kernarg_address = ka; p.completion_signal = done;
  uint64_t idx = hsa_queue_add_write_index_screlease(q, 1);
  uint8_t* slot = (uint8_t*)q->base_address + (idx % q->size) * 64;
  memcpy(slot + 2, (const uint8_t*)&p + 2, 62);
  uint16_t hdr = HSA_PACKET_TYPE_KERNEL_DISPATCH | (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                 (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE);
  __atomic_store_n((uint16_t*)slot, hdr, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q->doorbell_signal, idx);
  if (hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) != 0) {
    fprintf(stderr, "dispatch did not complete\n");
    exit(1);
  }
  int bad = 0;
  for (uint32_t i = 0; i < n; i++)
    if (out[i] != 3 * i + 1 && bad++ < 5) fprintf(stderr, "out[%u] = %u, want %u\n", i, out[i], 3 * i + 1);
  if (bad) { fprintf(stderr, "dispatch: %d wrong\n", bad); exit(1); }
  printf("dispatch: ok\n");
}

int main(int argc, char** argv) {
  OK(hsa_init());
  OK(hsa_iterate_agents(find_agents, NULL));
  OK(hsa_amd_agent_iterate_memory_pools(gpu, find_pools, NULL));
  OK(hsa_amd_agent_iterate_memory_pools(cpu, find_pools, NULL));
  char name[64] = {0}, product[64] = {0};
  uint32_t wave, cus, simds, waves, engines, arrays, line, chip, cache[4];
  OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, name));
  OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_PRODUCT_NAME, product));
  OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_WAVEFRONT_SIZE, &wave));
  OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &cus));
  OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU, &simds));
  OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU, &waves));
  OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES, &engines));
  OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE, &arrays));
  OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_CACHELINE_SIZE, &line));
  OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_CHIP_ID, &chip));
  OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_CACHE_SIZE, cache));
  size_t lds = 0;
  OK(hsa_amd_memory_pool_get_info(group_pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &lds));
  hsa_isa_t isa = {0};
  OK(hsa_agent_iterate_isas(gpu, first_isa, &isa));
  uint32_t len = 0, isa_wave = 0;
  OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &len));
  char* isa_name = calloc(len + 1, 1);
  OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, isa_name));
  OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE, &isa_wave));
  hsa_isa_t again;
  OK(hsa_isa_from_name(isa_name, &again));
  printf("name: %s\nproduct: %s\nisa: %s\nwave: %u\nisa wave: %u\ncus: %u\nsimds: %u\nwaves per cu: %u\n"
         "engines: %u\narrays: %u\nlds: %zu\nl1: %u\nl2: %u\nl3: %u\ncacheline: %u\nchip: %#x\n",
         name, product, isa_name, wave, isa_wave, cus, simds, waves, engines, arrays, lds, cache[0], cache[1],
         cache[2], line, chip);
  fflush(stdout);
  if (argc > 1) dispatch(argv[1]);
  OK(hsa_shut_down());
  return 0;
}

/* A kernel's code rewritten between dispatches runs as rewritten: the
 * emulator keeps each kernel's decoded instructions from one dispatch to
 * the next (D49), so a kept decode of code that has changed would run
 * the old instructions, silently.
 *
 * argv[1] is a code object with put_a and put_b (same code apart from the
 * value stored: 0x1234567 and 0x7654321 into o[blockIdx.x]). Dispatches of
 * the kernel whose code comes first, over G work-groups: as loaded, then
 * with the other kernel's code copied over it (hsa_memory_copy), then with
 * its own code copied back; each round several times, and every element
 * of the output is checked after each dispatch. */
#include <hsa.h>
#include <hsa_ext_amd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "hsa_test.h"

enum { G = 8, ROUNDS = 3 };

static hsa_amd_memory_pool_t kernarg_pool;
static hsa_queue_t* q;

static hsa_status_t find_pools(hsa_amd_memory_pool_t p, void* d) {
  (void)d;
  uint32_t flags = 0; hsa_amd_segment_t seg;
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  if (seg != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
  if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) kernarg_pool = p;
  return HSA_STATUS_SUCCESS;
}

static uint64_t kernel(hsa_executable_t exe, const char* name) {
  hsa_executable_symbol_t sym; uint64_t kobj;
  OK(hsa_executable_get_symbol_by_name(exe, name, &gpu, &sym));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kobj));
  return kobj;
}

/* The kernel's code address: the descriptor's address plus its
 * kernel_code_entry_byte_offset (bytes 16..24). */
static uint64_t entry(uint64_t kobj) {
  int64_t off;
  OK(hsa_memory_copy(&off, (const char*)(uintptr_t)kobj + 16, 8));
  return kobj + (uint64_t)off;
}

/* Dispatches `kobj` over G work-groups of 64 and checks o[0..G) == want. */
static int run(uint64_t kobj, unsigned* o, void* ka, unsigned want, const char* what) {
  for (int i = 0; i < G; i++) o[i] = 0;
  memcpy(ka, &o, 8);
  hsa_signal_t done; OK(hsa_signal_create(1, 0, NULL, &done));
  uint64_t idx = hsa_queue_add_write_index_screlease(q, 1);
  hsa_kernel_dispatch_packet_t* p = (hsa_kernel_dispatch_packet_t*)q->base_address + idx % q->size;
  memset((char*)p + 2, 0, 62);
  p->setup = 1; p->workgroup_size_x = 64; p->workgroup_size_y = 1; p->workgroup_size_z = 1;
  p->grid_size_x = 64 * G; p->grid_size_y = 1; p->grid_size_z = 1;
  p->kernel_object = kobj; p->kernarg_address = ka; p->completion_signal = done;
  __atomic_store_n(&p->header,
                   (uint16_t)(HSA_PACKET_TYPE_KERNEL_DISPATCH |
                              (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                              (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE)),
                   __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q->doorbell_signal, idx);
  hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_ACTIVE);
  OK(hsa_signal_destroy(done));
  int bad = 0;
  for (int i = 0; i < G; i++)
    if (o[i] != want) {
      if (bad++ < 3) fprintf(stderr, "code_rewrite: %s: o[%d] = %#x, want %#x\n", what, i, o[i], want);
    }
  return bad;
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: code_rewrite CODE_OBJECT\n"); return 2; }
  OK(hsa_init());
  OK(hsa_iterate_agents(find_agents, NULL));
  OK(hsa_amd_agent_iterate_memory_pools(cpu, find_pools, NULL));
  if (!kernarg_pool.handle) { fprintf(stderr, "code_rewrite: no kernarg pool\n"); return 2; }
  int fd = open(argv[1], O_RDONLY);
  if (fd < 0) { perror(argv[1]); return 2; }
  hsa_code_object_reader_t reader; hsa_executable_t exe;
  OK(hsa_code_object_reader_create_from_file(fd, &reader));
  OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
  OK(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL));
  OK(hsa_executable_freeze(exe, NULL));
  uint64_t ka_ = kernel(exe, "put_a.kd"), kb_ = kernel(exe, "put_b.kd");
  uint64_t ea = entry(ka_), eb = entry(kb_);
  /* The kernel whose code comes first is run; the other's code, which
   * starts where the first one's padding ends, is copied over it. */
  int a_first = ea < eb;
  uint64_t k1 = a_first ? ka_ : kb_;
  uint64_t e1 = a_first ? ea : eb, e2 = a_first ? eb : ea;
  unsigned v1 = a_first ? 0x1234567u : 0x7654321u, v2 = a_first ? 0x7654321u : 0x1234567u;
  size_t len = (size_t)(e2 - e1);
  if (len == 0 || len > 65536) { fprintf(stderr, "code_rewrite: entries %#lx and %#lx\n", (unsigned long)e1, (unsigned long)e2); return 2; }
  unsigned char* own = malloc(len);
  unsigned char* other = malloc(len);
  OK(hsa_memory_copy(own, (void*)(uintptr_t)e1, len));
  OK(hsa_memory_copy(other, (void*)(uintptr_t)e2, len));
  if (memcmp(own, other, len) == 0) { fprintf(stderr, "code_rewrite: the two kernels' code is identical\n"); return 2; }

  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
  unsigned* o; void* ka;
  OK(hsa_amd_memory_pool_allocate(kernarg_pool, G * sizeof(unsigned), 0, (void**)&o));
  OK(hsa_amd_memory_pool_allocate(kernarg_pool, 64, 0, &ka));
  memset(ka, 0, 64);
  int bad = 0;
  for (int round = 0; round < ROUNDS; round++) {
    for (int k = 0; k < 3; k++) bad += run(k1, o, ka, v1, "as loaded");
    OK(hsa_memory_copy((void*)(uintptr_t)e1, other, len));
    for (int k = 0; k < 3; k++) bad += run(k1, o, ka, v2, "after the other kernel's code was copied over it");
    OK(hsa_memory_copy((void*)(uintptr_t)e1, own, len));
  }
  OK(hsa_queue_destroy(q));
  OK(hsa_executable_destroy(exe));
  OK(hsa_code_object_reader_destroy(reader));
  OK(hsa_shut_down());
  free(own); free(other);
  if (bad) return 1;
  printf("code_rewrite: ok (%d rounds, %zu code bytes swapped)\n", ROUNDS, len);
  return 0;
}

/* Under memcheck (LATHE_CHECK=memcheck: freed regions are kept in the
 * allocation table, marked, so later accesses are reported) locking and
 * unlocking host memory must not leave the alias's address range free for
 * the next mapping while its freed region still sits in the table: the
 * next allocation placed there would collide with it, and HIP reports
 * such a failed queue or pool allocation as hipErrorOutOfMemory (the
 * threads.hip flake of issue 20: hipStreamCreate under `lathe exec
 * --check`).
 *
 * One pool allocation turns the quarantine on. Then, many times: lock a
 * host buffer, unlock it, and check that the kernel does not hand the
 * alias's pages out again (an mmap hint at the old alias must not land
 * there), that locking a buffer of the same size works (a fresh mapping
 * of that size goes where the last one was freed), that a queue can be
 * created (its ring is a fresh allocation; a second one after the first
 * was used, and both queues' write indices must read back what was added: the
 * per-thread view of the queue table, D56) and that the locked alias
 * reaches the host bytes. Prints "lock_reuse: ok". */
#include <hsa.h>
#include <hsa_ext_amd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hsa_test.h"

enum { ROUNDS = 200, PAGES = 16 };

static hsa_amd_memory_pool_t pool;

static hsa_status_t find_pool(hsa_amd_memory_pool_t p, void* d) {
  (void)d;
  hsa_amd_segment_t seg;
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  if (seg == HSA_AMD_SEGMENT_GLOBAL) pool = p;
  return HSA_STATUS_SUCCESS;
}

int main(void) {
  OK(hsa_init());
  OK(hsa_iterate_agents(find_agents, NULL));
  OK(hsa_amd_agent_iterate_memory_pools(gpu, find_pool, NULL));
  void* dev = NULL;
  OK(hsa_amd_memory_pool_allocate(pool, 4096, 0, &dev));
  size_t len = PAGES * 4096;
  int reused = 0;
  for (int i = 0; i < ROUNDS; i++) {
    /* Page-aligned host buffers of their own, so the alias span is
     * exactly PAGES pages. */
    uint8_t* host = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (host == MAP_FAILED) { perror("mmap"); return 2; }
    memset(host, i & 0xff, len);
    void* alias = NULL;
    OK(hsa_amd_memory_lock(host, len, &gpu, 1, &alias));
    if (alias == (void*)host) { fprintf(stderr, "no alias\n"); return 1; }
    OK(hsa_amd_memory_unlock(host));
    /* The old alias's pages: a hinted mapping there must not get them
     * while the freed region still claims them. */
    void* probe = mmap(alias, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (probe == MAP_FAILED) { perror("mmap probe"); return 2; }
    if (probe == alias) reused++;
    munmap(probe, len);
    void* again = NULL;
    hsa_status_t s = hsa_amd_memory_lock(host, len, &gpu, 1, &again);
    if (s != HSA_STATUS_SUCCESS) {
      fprintf(stderr, "round %d: locking again after an unlock failed: %#x\n", i, s);
      return 1;
    }
    uint8_t b = 0;
    OK(hsa_memory_copy(&b, (uint8_t*)again + len - 1, 1));
    if (b != (i & 0xff)) { fprintf(stderr, "round %d: alias reads %d\n", i, b); return 1; }
    hsa_queue_t* q = NULL;
    s = hsa_queue_create(gpu, 1024, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q);
    if (s != HSA_STATUS_SUCCESS) {
      fprintf(stderr, "round %d: hsa_queue_create after an unlock failed: %#x\n", i, s);
      return 1;
    }
    /* A second queue made after the first was used: this thread's cached
     * view of the queue table must see it (D56). */
    hsa_queue_add_write_index_relaxed(q, 3);
    hsa_queue_t* q2 = NULL;
    OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q2));
    hsa_queue_add_write_index_relaxed(q2, 5);
    if (hsa_queue_load_write_index_relaxed(q) != 3 || hsa_queue_load_write_index_relaxed(q2) != 5) {
      fprintf(stderr, "round %d: write indices %lu and %lu, want 3 and 5\n", i,
              (unsigned long)hsa_queue_load_write_index_relaxed(q), (unsigned long)hsa_queue_load_write_index_relaxed(q2));
      return 1;
    }
    OK(hsa_queue_destroy(q2));
    OK(hsa_queue_destroy(q));
    OK(hsa_amd_memory_unlock(host));
    munmap(host, len);
  }
  if (reused) {
    fprintf(stderr, "%d of %d freed aliases were handed out again while still in the table\n", reused, ROUNDS);
    return 1;
  }
  OK(hsa_amd_memory_pool_free(dev));
  OK(hsa_shut_down());
  printf("lock_reuse: ok\n");
  return 0;
}

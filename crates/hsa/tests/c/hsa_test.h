/* Shared by the HSA-level test programs (the .c files beside it): the status check
 * that ends a program on the first failing call, and the agents it runs
 * on. Include after <hsa.h> and <stdio.h>/<stdlib.h>. */
#ifndef LATHE_HSA_TEST_H
#define LATHE_HSA_TEST_H

#define OK(x) do { hsa_status_t s_ = (x); if (s_ != HSA_STATUS_SUCCESS) { fprintf(stderr, "%s:%d: %s = %#x\n", __FILE__, __LINE__, #x, s_); exit(2); } } while (0)

static hsa_agent_t gpu, cpu;

/* For hsa_iterate_agents: the GPU agent into `gpu`, any other into `cpu`. */
static inline hsa_status_t find_agents(hsa_agent_t a, void* d) {
  (void)d;
  hsa_device_type_t t;
  OK(hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t));
  if (t == HSA_DEVICE_TYPE_GPU) gpu = a; else cpu = a;
  return HSA_STATUS_SUCCESS;
}

#endif

// Device side of tests/c/interrupt.c (built with --cuda-device-only): a
// kernel that waits for the host's go flag (1), pauses, stores to an HSA
// signal through the ROCm device library (which writes the signal's event
// mailbox and sends s_sendmsg(MSG_INTERRUPT) when the signal has one), and
// keeps running until the host answers (go = 2), so that the dispatch's
// completion cannot be what wakes the host.
#include <hip/hip_runtime.h>

struct hsa_signal_s { unsigned long handle; };
extern "C" __device__ void __ockl_hsa_signal_store(hsa_signal_s sig, long value, int order);

extern "C" __global__ void signal_after_go(hsa_signal_s sig, int* go, long value) {
  if (threadIdx.x != 0) return;
  while (__hip_atomic_load(go, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM) == 0) {}
  // A pause (tens of milliseconds emulated), so the host's waiter is past
  // its short spin and asleep before the store.
  volatile int* sink = go + 16;
  for (int i = 0; i < 1000000; i++) *sink = i;
  __ockl_hsa_signal_store(sig, value, __ATOMIC_RELEASE);
  while (__hip_atomic_load(go, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM) != 2) {}
}

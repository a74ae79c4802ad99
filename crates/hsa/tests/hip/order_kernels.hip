// Code object for the queue-order test (built with --cuda-device-only):
// each dispatch appends its tag to a log, so the log is the order in
// which a queue's packets ran.
#include <hip/hip_runtime.h>

extern "C" __global__ void append(unsigned* log, unsigned* next, unsigned tag) {
  if (threadIdx.x == 0 && blockIdx.x == 0) log[atomicAdd(next, 1u)] = tag;
}

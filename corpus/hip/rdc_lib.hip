// A device-function library: built with -fgpu-rdc, its functions are
// external and resolved by another code object.
#include "lathe_hip.h"

__device__ int lib_scale = 3;

__device__ __noinline__ int lib_mix(int a, int b) { return a * lib_scale + (b ^ 0x55); }

__device__ __noinline__ float lib_lerp(float a, float b, float t) { return a + (b - a) * t; }

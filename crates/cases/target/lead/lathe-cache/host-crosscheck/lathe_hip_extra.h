// Host shim for corpus kernels (tests/host_crosscheck.rs).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#define __global__
#define __device__
#define __host__
#define __shared__
#define __constant__
#define __managed__
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline
struct LatheDim { unsigned x, y, z; };
static LatheDim threadIdx, blockIdx, blockDim;
static inline void __syncthreads() {}
unsigned char lathe_dyn[1 << 16];
typedef unsigned long long lathe_u64;
typedef long long lathe_i64;
typedef _Float16 half2_t __attribute__((ext_vector_type(2)));
template <class T> static T atomicAdd(T *p, T v) { T o = *p; *p = o + v; return o; }
template <class T> static T atomicMin(T *p, T v) { T o = *p; if (v < o) *p = v; return o; }
template <class T> static T atomicMax(T *p, T v) { T o = *p; if (v > o) *p = v; return o; }
template <class T> static T atomicAnd(T *p, T v) { T o = *p; *p = o & v; return o; }
template <class T> static T atomicOr(T *p, T v) { T o = *p; *p = o | v; return o; }
template <class T> static T atomicXor(T *p, T v) { T o = *p; *p = o ^ v; return o; }
template <class T> static T atomicCAS(T *p, T e, T d) { T o = *p; if (o == e) *p = d; return o; }
static unsigned atomicInc(unsigned *p, unsigned lim) { unsigned o = *p; *p = o >= lim ? 0 : o + 1; return o; }
struct LatheArg {
  void *p; long long i; double d;
  template <class T> operator T *() const { return (T *)p; }
  operator int() const { return (int)i; }
  operator unsigned() const { return (unsigned)i; }
  operator float() const { return (float)d; }
  operator double() const { return d; }
};
static std::vector<std::vector<unsigned char>> lathe_read(const char *path) {
  std::vector<std::vector<unsigned char>> v;
  FILE *f = fopen(path, "rb");
  if (!f) exit(2);
  unsigned long long len;
  while (fread(&len, 8, 1, f) == 1) {
    std::vector<unsigned char> b(len + 1);
    if (len && fread(b.data(), 1, len, f) != len) exit(3);
    b.resize(len);
    v.push_back(b);
  }
  fclose(f);
  return v;
}
static void lathe_write(FILE *f, const void *p, unsigned long long len) {
  fwrite(&len, 8, 1, f);
  fwrite(p, 1, len, f);
}

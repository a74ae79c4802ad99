// Shared by the HIP test programs: error checks and a result line.
#pragma once
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(x) do { hipError_t e_ = (x); if (e_ != hipSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, hipGetErrorString(e_)); exit(2); } } while (0)

static int g_bad = 0;
#define EXPECT(cond, ...) do { if (!(cond)) { if (g_bad++ < 20) { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } } while (0)

static int finish(const char* name) {
  if (g_bad) { fprintf(stderr, "%s: %d mismatches\n", name, g_bad); return 1; }
  printf("%s: ok\n", name);
  return 0;
}

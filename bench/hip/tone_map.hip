// Written as an image library's tone-mapping pass, not from the emulator's
// µop list: unpack RGBA8 pixels (shifts, masks, u32 -> f32), a cheap gamma
// curve and an exposure that varies per pass, Reinhard's x / (1 + x) (an
// f32 division), a luminance with a shadow/highlight select, fminf/fmaxf
// clamps, round-and-clamp quantisation back to 8 bits, an f16 luminance
// result and an f64 running sum. bench/emu.py runs it (with a Python
// reference) next to user_noise.hip; built with -nogpuinc like the others.
#include "lathe_hip.h"

__device__ inline float fminf(float a, float b) { return __builtin_fminf(a, b); }
__device__ inline float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }

__device__ __forceinline__ int min(int a, int b) { return a < b ? a : b; }
__device__ __forceinline__ int max(int a, int b) { return a > b ? a : b; }

__device__ __forceinline__ float tone(float c, float e) {
  float v = c * c * (0.5f + 0.5f * c) * e;
  return v / (1.0f + v);
}

__device__ __forceinline__ unsigned quantise(float v) {
  int k = (int)(v * 255.0f + 0.5f);
  return (unsigned)min(max(k, 0), 255);
}

// `img` holds `npix` pixels (a power of two); thread `i` visits pixel
// (7 i + 61 p) mod npix in pass `p`.
__global__ void tone_map(unsigned *qsum, _Float16 *lum, double *ysum, const unsigned *img,
                         int npix, float exposure, int passes) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double total = 0.0;
  unsigned q = 0;
  float y = 0.0f;
  for (int p = 0; p < passes; ++p) {
    unsigned px = img[(i * 7 + p * 61) & (npix - 1)];
    float e = exposure * (1.0f + 0.0625f * (float)(p & 7));
    float r = tone((float)(px & 255u) * (1.0f / 255.0f), e);
    float g = tone((float)((px >> 8) & 255u) * (1.0f / 255.0f), e);
    float b = tone((float)((px >> 16) & 255u) * (1.0f / 255.0f), e);
    y = 0.2126f * r + 0.7152f * g + 0.0722f * b;
    if (y < 0.05f) {
      r = y;
      g = y;
      b = y;
    } else if (y > 0.6f) {
      float lift = 0.25f * (y - 0.6f);
      r = fminf(r + lift, 1.0f);
      g = fminf(g + lift, 1.0f);
      b = fminf(b + lift, 1.0f);
    }
    r = fmaxf(r, 0.0f);
    q += quantise(r) + quantise(g) + quantise(b) + (px >> 24);
    total += (double)y;
  }
  qsum[i] = q;
  lum[i] = (_Float16)y;
  ysum[i] = total;
}

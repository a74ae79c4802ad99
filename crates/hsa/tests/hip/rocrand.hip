// Debian's rocRAND (AMD's kernels, AMD's compiler) generating on the
// device: uniform floats must look uniform (mean, variance, 16-bin
// chi-square), normals must have mean 0 / variance 1, and the same seed
// must give the same numbers.
#include "common.h"
#include <rocrand/rocrand.h>
#include <cmath>
#include <vector>

#define RCHECK(x) do { rocrand_status s_ = (x); if (s_ != ROCRAND_STATUS_SUCCESS) { \
  fprintf(stderr, "%s:%d: %s: status %d\n", __FILE__, __LINE__, #x, (int)s_); exit(2); } } while (0)

static std::vector<float> uniform(rocrand_rng_type type, unsigned long long seed, size_t n) {
  rocrand_generator g;
  RCHECK(rocrand_create_generator(&g, type));
  RCHECK(rocrand_set_seed(g, seed));
  float* d;
  CHECK(hipMalloc(&d, n * sizeof(float)));
  RCHECK(rocrand_generate_uniform(g, d, n));
  std::vector<float> h(n);
  CHECK(hipMemcpy(h.data(), d, n * sizeof(float), hipMemcpyDeviceToHost));
  CHECK(hipFree(d));
  RCHECK(rocrand_destroy_generator(g));
  return h;
}

int main() {
  const size_t n = 1 << 18;
  rocrand_rng_type types[] = {ROCRAND_RNG_PSEUDO_PHILOX4_32_10, ROCRAND_RNG_PSEUDO_XORWOW};
  for (auto t : types) {
    std::vector<float> u = uniform(t, 1234, n);
    double sum = 0, sq = 0;
    int bins[16] = {0};
    for (float x : u) {
      EXPECT(x > 0.0f && x <= 1.0f, "type %d: %f outside (0, 1]", (int)t, x);
      sum += x; sq += x * x;
      int b = (int)(x * 16); if (b > 15) b = 15; bins[b]++;
    }
    double mean = sum / n, var = sq / n - mean * mean;
    double chi = 0, e = n / 16.0;
    for (int b = 0; b < 16; b++) chi += (bins[b] - e) * (bins[b] - e) / e;
    printf("type %d: mean %.5f var %.5f chi2 %.2f\n", (int)t, mean, var, chi);
    EXPECT(fabs(mean - 0.5) < 0.005, "type %d: mean %f", (int)t, mean);
    EXPECT(fabs(var - 1.0 / 12) < 0.002, "type %d: variance %f", (int)t, var);
    EXPECT(chi < 40, "type %d: chi-square %f over 15 degrees of freedom", (int)t, chi);
    std::vector<float> again = uniform(t, 1234, n);
    EXPECT(again == u, "type %d: same seed, different numbers", (int)t);
    std::vector<float> other = uniform(t, 99, n);
    EXPECT(other != u, "type %d: different seeds, same numbers", (int)t);
  }
  // Normal distribution (Box-Muller on the device).
  rocrand_generator g;
  RCHECK(rocrand_create_generator(&g, ROCRAND_RNG_PSEUDO_PHILOX4_32_10));
  float* d;
  CHECK(hipMalloc(&d, n * sizeof(float)));
  RCHECK(rocrand_generate_normal(g, d, n, 0.0f, 1.0f));
  std::vector<float> h(n);
  CHECK(hipMemcpy(h.data(), d, n * sizeof(float), hipMemcpyDeviceToHost));
  double s = 0, q = 0;
  for (float x : h) { s += x; q += (double)x * x; }
  double m = s / n, v = q / n - m * m;
  printf("normal: mean %.5f var %.5f\n", m, v);
  EXPECT(fabs(m) < 0.01 && fabs(v - 1.0) < 0.02, "normal mean %f variance %f", m, v);
  CHECK(hipFree(d));
  RCHECK(rocrand_destroy_generator(g));
  return finish("rocrand");
}

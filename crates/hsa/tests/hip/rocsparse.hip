// Debian's rocSPARSE: CSR sparse matrix-vector products (y = alpha*A*x +
// beta*y, f32 and f64) on a random matrix, checked against a CPU SpMV.
#include "common.h"
#include <rocsparse/rocsparse.h>
#include <cmath>
#include <vector>

#define SCHECK(x) do { rocsparse_status s_ = (x); if (s_ != rocsparse_status_success) { \
  fprintf(stderr, "%s:%d: %s: status %d\n", __FILE__, __LINE__, #x, (int)s_); exit(2); } } while (0)

template <typename T>
static void run(rocsparse_handle h, int m, int n) {
  std::vector<int> ptr(m + 1, 0), col;
  std::vector<T> val;
  unsigned s = 12345;
  auto rnd = [&] { s = s * 1103515245u + 12345u; return (s >> 8) & 0xffff; };
  for (int i = 0; i < m; i++) {
    int nnz_row = 1 + rnd() % 24;
    int c = rnd() % 8;
    for (int k = 0; k < nnz_row && c < n; k++) {
      col.push_back(c);
      val.push_back((T)((int)(rnd() % 2001) - 1000) / (T)256);
      c += 1 + rnd() % 40;
    }
    ptr[i + 1] = (int)col.size();
  }
  int nnz = (int)col.size();
  std::vector<T> x(n), y(m), ref(m);
  for (int j = 0; j < n; j++) x[j] = (T)((int)(rnd() % 101) - 50) / (T)8;
  for (int i = 0; i < m; i++) y[i] = (T)(i % 7);
  T alpha = (T)1.5, beta = (T)-0.5;
  for (int i = 0; i < m; i++) {
    T acc = 0;
    for (int k = ptr[i]; k < ptr[i + 1]; k++) acc += val[k] * x[col[k]];
    ref[i] = alpha * acc + beta * y[i];
  }
  int *dptr, *dcol; T *dval, *dx, *dy;
  CHECK(hipMalloc(&dptr, (m + 1) * sizeof(int)));
  CHECK(hipMalloc(&dcol, nnz * sizeof(int)));
  CHECK(hipMalloc(&dval, nnz * sizeof(T)));
  CHECK(hipMalloc(&dx, n * sizeof(T)));
  CHECK(hipMalloc(&dy, m * sizeof(T)));
  CHECK(hipMemcpy(dptr, ptr.data(), (m + 1) * sizeof(int), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dcol, col.data(), nnz * sizeof(int), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dval, val.data(), nnz * sizeof(T), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dx, x.data(), n * sizeof(T), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dy, y.data(), m * sizeof(T), hipMemcpyHostToDevice));
  rocsparse_mat_descr descr;
  SCHECK(rocsparse_create_mat_descr(&descr));
  if constexpr (sizeof(T) == 4)
    SCHECK(rocsparse_scsrmv(h, rocsparse_operation_none, m, n, nnz, &alpha, descr, dval, dptr, dcol, nullptr, dx, &beta, dy));
  else
    SCHECK(rocsparse_dcsrmv(h, rocsparse_operation_none, m, n, nnz, &alpha, descr, dval, dptr, dcol, nullptr, dx, &beta, dy));
  std::vector<T> out(m);
  CHECK(hipMemcpy(out.data(), dy, m * sizeof(T), hipMemcpyDeviceToHost));
  for (int i = 0; i < m; i++) {
    T tol = (T)1e-3 * (1 + std::fabs(ref[i]));
    EXPECT(std::fabs(out[i] - ref[i]) <= tol, "%s y[%d] = %g, want %g", sizeof(T) == 4 ? "f32" : "f64", i, (double)out[i], (double)ref[i]);
  }
  SCHECK(rocsparse_destroy_mat_descr(descr));
  CHECK(hipFree(dptr)); CHECK(hipFree(dcol)); CHECK(hipFree(dval)); CHECK(hipFree(dx)); CHECK(hipFree(dy));
  printf("csrmv %s: %d x %d, %d nonzeros\n", sizeof(T) == 4 ? "f32" : "f64", m, n, nnz);
}

int main() {
  rocsparse_handle h;
  SCHECK(rocsparse_create_handle(&h));
  run<float>(h, 2000, 1500);
  run<double>(h, 1000, 3000);
  SCHECK(rocsparse_destroy_handle(h));
  return finish("rocsparse");
}

// GFX12 (gfx1200/gfx1201) additions for lathe-isa's listing test
// (tests/corpus.rs): WMMA and SWMMAC (index_key), fp8/bf8 conversions
// (byte_sel), buffer loads and stores with th/scope cache policy,
// non-temporal and scoped atomics. Built by clang-22 -O0/-O3, wave32 and
// wave64; the corpus's kernels do not reach these.
#define __global__ __attribute__((global))

typedef _Float16 v8h __attribute__((ext_vector_type(8)));
typedef _Float16 v16h __attribute__((ext_vector_type(16)));
typedef _Float16 v4h __attribute__((ext_vector_type(4)));
typedef _Float16 v8hb __attribute__((ext_vector_type(8)));
typedef float v8f __attribute__((ext_vector_type(8)));
typedef float v4f __attribute__((ext_vector_type(4)));
typedef float v2f __attribute__((ext_vector_type(2)));
typedef int v2i __attribute__((ext_vector_type(2)));
typedef int v4i __attribute__((ext_vector_type(4)));

#ifndef LATHE_WAVE64
__global__ void wmma(v8f *out, const v8h *a, const v8h *b, const v16h *b2, int idx) {
  unsigned i = __builtin_amdgcn_workitem_id_x();
  v8f c = out[i];
  c = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a[i], b[i], c);
  c = __builtin_amdgcn_swmmac_f32_16x16x32_f16_w32(a[i], b2[i], c, idx);
  c = __builtin_amdgcn_swmmac_f32_16x16x32_f16_w32(a[i], b2[i + 1], c, 1);
  out[i] = c;
}
#else
__global__ void wmma(v4f *out, const v4h *a, const v4h *b, const v8h *b2, int idx) {
  unsigned i = __builtin_amdgcn_workitem_id_x();
  v4f c = out[i];
  c = __builtin_amdgcn_wmma_f32_16x16x16_f16_w64_gfx12(a[i], b[i], c);
  c = __builtin_amdgcn_swmmac_f32_16x16x32_f16_w64(a[i], b2[i], c, idx);
  c = __builtin_amdgcn_swmmac_f32_16x16x32_f16_w64(a[i], b2[i + 1], c, 1);
  out[i] = c;
}
#endif

__global__ void fp8(float *out, const int *in) {
  unsigned i = __builtin_amdgcn_workitem_id_x();
  int v = in[i];
  float s = __builtin_amdgcn_cvt_f32_fp8(v, 0) + __builtin_amdgcn_cvt_f32_fp8(v, 1) +
            __builtin_amdgcn_cvt_f32_bf8(v, 2) + __builtin_amdgcn_cvt_f32_bf8(v, 3);
  v2f p = __builtin_amdgcn_cvt_pk_f32_fp8(v, true) + __builtin_amdgcn_cvt_pk_f32_bf8(v, false);
  int w = __builtin_amdgcn_cvt_pk_fp8_f32(s, p.x, v, true);
  w = __builtin_amdgcn_cvt_sr_bf8_f32(p.y, v, w, 2);
  out[i] = s + (float)w;
}

__global__ void buffers(__amdgpu_buffer_rsrc_t r, int *out, int n) {
  unsigned i = __builtin_amdgcn_workitem_id_x();
  int a = __builtin_amdgcn_raw_buffer_load_b32(r, i * 4, 0, 0);
  int b = __builtin_amdgcn_raw_buffer_load_b32(r, i * 4, 16, 1);
  v2i c = __builtin_amdgcn_raw_buffer_load_b64(r, i * 8, n, 0);
  v4i d = __builtin_amdgcn_raw_buffer_load_b128(r, i * 16, 0, 0);
  __builtin_amdgcn_raw_buffer_store_b32(a + b, r, i * 4 + 64, 0, 0);
  __builtin_amdgcn_raw_buffer_store_b64(c, r, i * 8 + 4096, 0, 0);
  out[i] = d.x + d.w + __builtin_nontemporal_load(&out[i + n]);
  __builtin_nontemporal_store(a, &out[i + 2 * n]);
}

__global__ void scoped_atomics(int *out, float *f) {
  unsigned i = __builtin_amdgcn_workitem_id_x();
  __hip_atomic_fetch_add(&out[0], 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_add(&out[1], 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
  int o = __hip_atomic_fetch_max(&out[2], (int)i, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_add(&f[0], 1.0f, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_store(&out[3 + i], o, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}

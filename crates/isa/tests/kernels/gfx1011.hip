// GFX10.1 dot-product instructions for lathe-isa's listing test
// (tests/corpus.rs): gfx1011 and gfx1012 have them (VOP2 v_dot2c/v_dot4c,
// VOP3P v_dot2/v_dot4/v_dot8), gfx1010 and gfx1013 do not, and the same
// words listed for gfx1010 must be invalid there as they are for LLVM.
// The corpus's kernels do not reach them. Built by clang-22 -O0/-O3,
// wave32 and wave64.
#define K extern "C" __attribute__((global))
typedef short short2v __attribute__((ext_vector_type(2)));
typedef unsigned short ushort2v __attribute__((ext_vector_type(2)));
typedef _Float16 half2v __attribute__((ext_vector_type(2)));
K void fdot2(float *o, const half2v *a, const half2v *b) {
  int i = __builtin_amdgcn_workitem_id_x();
  o[i] = __builtin_amdgcn_fdot2(a[i], b[i], o[i], false);
  o[i + 64] = __builtin_amdgcn_fdot2(a[i], b[i], o[i + 64], true);
}
K void sdot2(int *o, const short2v *a, const short2v *b) {
  int i = __builtin_amdgcn_workitem_id_x();
  o[i] = __builtin_amdgcn_sdot2(a[i], b[i], o[i], false);
}
K void udot2(unsigned *o, const ushort2v *a, const ushort2v *b) {
  int i = __builtin_amdgcn_workitem_id_x();
  o[i] = __builtin_amdgcn_udot2(a[i], b[i], o[i], true);
}
K void sdot4(int *o, const int *a, const int *b) {
  int i = __builtin_amdgcn_workitem_id_x();
  o[i] = __builtin_amdgcn_sdot4(a[i], b[i], o[i], false);
}
K void udot4(unsigned *o, const unsigned *a, const unsigned *b) {
  int i = __builtin_amdgcn_workitem_id_x();
  o[i] = __builtin_amdgcn_udot4(a[i], b[i], o[i], false);
}
K void sdot8(int *o, const int *a, const int *b) {
  int i = __builtin_amdgcn_workitem_id_x();
  o[i] = __builtin_amdgcn_sdot8(a[i], b[i], o[i], false);
}
K void udot8(unsigned *o, const unsigned *a, const unsigned *b) {
  int i = __builtin_amdgcn_workitem_id_x();
  o[i] = __builtin_amdgcn_udot8(a[i], b[i], o[i], true);
}

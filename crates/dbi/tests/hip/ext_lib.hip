// A device function in its own code object that clobbers caller-saved
// registers, as the AMDGPU calling convention allows (VGPRs v8..v39 and
// v48..v55, SGPRs s4..s29): crates/dbi/tests/cross_object.rs.
#include "lathe_hip.h"

__device__ __attribute__((noinline)) int ext_clobber(int x) {
  asm volatile(
      "v_mov_b32 v8, 64\n v_mov_b32 v9, 64\n v_mov_b32 v10, 64\n v_mov_b32 v11, 64\n"
      "v_mov_b32 v12, 64\n v_mov_b32 v13, 64\n v_mov_b32 v14, 64\n v_mov_b32 v15, 64\n"
      "v_mov_b32 v16, 64\n v_mov_b32 v17, 64\n v_mov_b32 v18, 64\n v_mov_b32 v19, 64\n"
      "v_mov_b32 v20, 64\n v_mov_b32 v21, 64\n v_mov_b32 v22, 64\n v_mov_b32 v23, 64\n"
      "v_mov_b32 v48, 64\n v_mov_b32 v49, 64\n v_mov_b32 v50, 64\n v_mov_b32 v51, 64\n"
      "v_mov_b32 v52, 64\n v_mov_b32 v53, 64\n v_mov_b32 v54, 64\n v_mov_b32 v55, 64\n"
      "s_mov_b32 s10, 64\n s_mov_b32 s11, 64\n s_mov_b32 s12, 64\n s_mov_b32 s13, 64\n"
      "s_mov_b32 s14, 64\n s_mov_b32 s15, 64\n s_mov_b32 s16, 64\n s_mov_b32 s17, 64\n"
      "s_mov_b32 s18, 64\n s_mov_b32 s19, 64\n s_mov_b32 s20, 64\n s_mov_b32 s21, 64\n"
      "s_mov_b32 s22, 64\n s_mov_b32 s23, 64\n s_mov_b32 s24, 64\n s_mov_b32 s25, 64" ::
          : "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19",
            "v20", "v21", "v22", "v23", "v48", "v49", "v50", "v51", "v52", "v53", "v54", "v55", "s10", "s11", "s12", "s13",
            "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25");
  return x * 3 + 1;
}

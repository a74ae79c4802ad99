//! The fast tier (common VALU, SALU and branch instructions run as µops
//! straight into their destination) against the general handlers: a
//! kernel written in assembly runs every µop form — VGPR, SGPR, inline and
//! literal operands, `abs`/`neg`, a destination that is also a source,
//! packed f32 with `op_sel`/`neg_lo`/`neg_hi`, SCC-setting scalar ops,
//! compares and taken/not-taken branches — over random per-lane inputs
//! (NaNs, infinities, denormals and signed zeros among them; some waves
//! all finite, so the packed ops take the fast path too). Built by clang-22
//! and `ld.lld -shared` for gfx90a and gfx942, with the default MODE and
//! with f32 denormals flushed, and with part of EXEC off (every µop still runs as one: whole-wave ones
//! compute every lane and put the inactive ones back). Outputs with the fast tier on must equal,
//! bit for bit, those with it off; a CPU reference checks a sample so the
//! comparison is not between two equal mistakes; and every µop form must
//! really be one (`has_fast_uop`), so the test cannot pass by falling back.

use std::collections::BTreeSet;
use std::path::PathBuf;

use lathe_emu::run::{Options, Report};

mod alu_common;
mod common;
use alu_common::Rng;

use common::WAVES;
/// Input dwords per lane (v10..v17).
const IN: u32 = 8;

/// The operations, one result register each from v40 on (`R` is replaced
/// by the result register, `Q` by the next one).
const OPS: &[&str] = &[
    // u32, every operand kind
    "v_mov_b32_e32 vR, v10",
    "v_mov_b32_e32 vR, s20",
    "v_mov_b32_e32 vR, 0x12345678",
    "v_not_b32_e32 vR, v11",
    "v_add_u32_e32 vR, v10, v11",
    "v_add_u32_e32 vR, s21, v11",
    "v_add_u32_e64 vR, v10, s22",
    "v_add_u32_e32 vR, 64, v12",
    "v_sub_u32_e32 vR, v10, v11",
    "v_subrev_u32_e32 vR, s23, v11",
    "v_and_b32_e32 vR, v10, v11",
    "v_or_b32_e32 vR, 0xff00ff, v11",
    "v_xor_b32_e32 vR, v12, v13",
    "v_lshlrev_b32_e32 vR, v10, v11",
    "v_lshlrev_b32_e32 vR, 5, v11",
    "v_lshrrev_b32_e32 vR, v12, v13",
    "v_ashrrev_i32_e32 vR, v14, v15",
    "v_ashrrev_i32_e64 vR, s24, v15",
    "v_mul_lo_u32 vR, v10, v11",
    "v_mul_hi_u32 vR, v12, s25",
    "v_mul_u32_u24_e32 vR, v10, v11",
    "v_min_u32_e32 vR, v10, v11",
    "v_max_u32_e32 vR, s26, v11",
    "v_min_i32_e32 vR, v12, v13",
    "v_max_i32_e32 vR, v14, v15",
    "v_add3_u32 vR, v10, s20, v12",
    "v_lshl_add_u32 vR, v10, 3, v11",
    "v_add_lshl_u32 vR, v10, v11, v12",
    "v_lshl_or_b32 vR, v13, v14, v15",
    "v_and_or_b32 vR, v10, v11, 63",
    "v_or3_b32 vR, v10, v11, s27",
    "v_xad_u32 vR, v12, v13, v14",
    "v_bfi_b32 vR, v15, v16, v17",
    "v_mad_u32_u24 vR, v10, v11, v12",
    // carries: VCC or an SGPR pair out, VCC or an SGPR pair in
    "v_add_co_u32_e32 vR, vcc, v10, v11\n  VCC3",
    "v_add_co_u32_e32 vR, vcc, s20, v11\n  VCC3",
    "v_add_co_u32_e64 vR, s[30:31], v12, s21\n  v_mov_b32_e32 vQ, s30\n  v_mov_b32_e32 vP, s31",
    "s_and_b32 vcc_lo, s20, s21\n  s_mov_b32 vcc_hi, s22\n  v_addc_co_u32_e32 vR, vcc, v10, v11, vcc\n  VCC3",
    "s_mov_b32 vcc_lo, -1\n  s_mov_b32 vcc_hi, s23\n  v_addc_co_u32_e32 vR, vcc, -1, v12, vcc\n  VCC3",
    "s_mov_b32 s30, s23\n  s_mov_b32 s31, s24\n  v_addc_co_u32_e64 vR, s[32:33], v12, v13, s[30:31]\n  v_mov_b32_e32 vQ, s32\n  v_mov_b32_e32 vP, s33",
    "v_mov_b32_e32 vR, v14\n  v_add_co_u32_e32 vR, vcc, vR, vR\n  VCC3",
    // destination is a source
    "v_mov_b32_e32 vR, v13\n  v_add_u32_e32 vR, vR, vR",
    "v_mov_b32_e32 vR, v14\n  v_xor_b32_e32 vR, v15, vR",
    // f32
    "v_add_f32_e32 vR, v10, v11",
    "v_add_f32_e64 vR, -v10, |v11|",
    "v_sub_f32_e32 vR, v12, v13",
    "v_subrev_f32_e32 vR, s20, v13",
    "v_sub_f32_e64 vR, |v14|, -s21",
    "v_mul_f32_e32 vR, s23, v12",
    "v_mul_f32_e32 vR, 0x3e800000, v13",
    "v_mul_f32_e64 vR, -|v14|, v15",
    "v_fma_f32 vR, v10, v11, v12",
    "v_fma_f32 vR, -v10, s24, |v12|",
    "v_fma_f32 vR, v13, 0.5, 1.0",
    "v_mov_b32_e32 vR, v14\n  v_fmac_f32_e32 vR, v10, v11",
    "v_mov_b32_e32 vR, v15\n  v_fmac_f32_e64 vR, -v12, |v13|",
    "v_mov_b32_e32 vR, v16\n  v_fma_f32 vR, vR, vR, v17",
    // packed f32 (two result registers)
    "v_pk_fma_f32 v[R:Q], v[10:11], v[12:13], v[14:15]",
    "v_pk_fma_f32 v[R:Q], v[10:11], v[12:13], v[14:15] op_sel:[1,0,1] op_sel_hi:[0,1,1]",
    "v_pk_fma_f32 v[R:Q], v[10:11], v[12:13], v[14:15] neg_lo:[1,0,0] neg_hi:[0,1,1]",
    "v_pk_fma_f32 v[R:Q], v[10:11], 0.5, v[14:15] op_sel_hi:[1,0,1]",
    "v_pk_fma_f32 v[R:Q], v[16:17], s[20:21], v[12:13] op_sel:[0,1,0]",
    "v_pk_mov_b32 v[R:Q], v[16:17], v[16:17] op_sel:[0,1]\n  v_pk_fma_f32 v[R:Q], v[R:Q], 0.5, v[12:13] op_sel_hi:[1,0,1]",
    "v_pk_mul_f32 v[R:Q], v[10:11], s[22:23] op_sel_hi:[1,0]",
    // The high result reads the low destination (clang's `x * r, r * r`
    // with `r` in the destination pair): the high half is written first.
    "v_pk_mov_b32 v[R:Q], v[12:13], v[16:17] op_sel:[0,1]\n  v_pk_mul_f32 v[R:Q], v[10:11], v[R:Q] op_sel_hi:[1,0]",
    "v_pk_mov_b32 v[R:Q], v[14:15], v[12:13] op_sel:[1,0]\n  v_pk_fma_f32 v[R:Q], v[R:Q], v[16:17], v[R:Q] op_sel_hi:[0,1,0]",
    "v_pk_mul_f32 v[R:Q], v[14:15], v[16:17] neg_lo:[0,1]",
    "v_pk_add_f32 v[R:Q], v[12:13], v[14:15]",
    "v_pk_add_f32 v[R:Q], v[12:13], 1.0 op_sel_hi:[1,0] neg_hi:[1,0]",
    // packed f16: random halves (NaNs, infinities, denormals, zeros),
    // op_sel/op_sel_hi/neg_lo/neg_hi, an f16 inline constant, an SGPR
    "v_pk_fma_f16 vR, v10, v11, v12",
    "v_pk_fma_f16 vR, v13, v14, v15 op_sel:[1,0,1] op_sel_hi:[0,1,1] neg_lo:[1,0,0] neg_hi:[0,1,1]",
    "v_pk_fma_f16 vR, v16, 0.5, s20 op_sel_hi:[1,0,1]",
    "v_pk_add_f16 vR, v10, v11",
    "v_pk_add_f16 vR, v12, 2.0 neg_hi:[1,0]",
    "v_pk_mul_f16 vR, v13, v14 op_sel:[0,1]",
    "v_pk_max_f16 vR, v15, v16",
    "v_pk_max_f16 vR, v10, 2.0",
    "v_pk_min_f16 vR, v11, -2.0 op_sel:[1,0] op_sel_hi:[0,1]",
    "v_pk_min_f16 vR, v12, v12",
    "v_pack_b32_f16 vR, v13, v14",
    "v_pack_b32_f16 vR, -v15, |v16| op_sel:[1,0]",
    "v_pack_b32_f16 vR, v10, -|v10| op_sel:[0,1]",
    // scalar ALU: result and SCC
    "s_mov_b32 s30, s20\n  s_cmp_eq_u32 s30, s20\n  s_cselect_b32 s31, 1, 0\n  v_mov_b32_e32 vR, s31",
    "s_add_u32 s30, s20, s21\n  SCC",
    "s_mul_hi_u32 s30, s20, s21\n  v_mov_b32_e32 vR, s30",
    "s_mul_hi_i32 s30, s22, -7\n  v_mov_b32_e32 vR, s30",
    "s_ashr_i32 s30, s23, s24\n  SCC",
    "s_andn2_b32 s30, s20, s21\n  SCC",
    "s_not_b32 s30, s22\n  SCC",
    "s_min_i32 s30, s20, s21\n  SCC",
    "s_min_u32 s30, s22, s23\n  SCC",
    "s_max_i32 s30, s24, -3\n  SCC",
    "s_max_u32 s30, s25, s25\n  SCC",
    "s_lshl2_add_u32 s30, s20, s21\n  SCC",
    "s_lshl4_add_u32 s30, s26, 0x7fffffff\n  SCC",
    "s_lshl_b64 s[30:31], s[20:21], s22\n  W64S",
    "s_lshr_b64 s[30:31], s[22:23], 33\n  W64S",
    "s_ashr_i64 s[30:31], s[24:25], s26\n  W64S",
    "s_sub_u32 s30, s20, s21\n  SCC",
    "s_add_i32 s30, s22, s23\n  SCC",
    "s_sub_i32 s30, s22, s23\n  SCC",
    "s_add_i32 s30, s24, -1\n  SCC",
    "s_and_b32 s30, s20, 0xff\n  SCC",
    "s_or_b32 s30, s21, s22\n  SCC",
    "s_xor_b32 s30, s23, s23\n  SCC",
    "s_lshl_b32 s30, s24, 7\n  SCC",
    "s_lshr_b32 s30, s25, s26\n  SCC",
    "s_mul_i32 s30, s25, s26\n  v_mov_b32_e32 vR, s30",
    "s_and_b32 vcc_lo, s20, 0xffff\n  s_mov_b32 vcc_hi, s21\n  v_mov_b32_e32 vR, vcc_lo",
    "s_add_u32 s30, s20, s21\n  s_addc_u32 s30, s22, s23\n  SCC",
    "s_sub_u32 s30, s21, s20\n  s_addc_u32 s30, s24, 7\n  SCC",
    "s_cmp_gt_u32 s20, s21\n  s_cselect_b32 s30, s22, s23\n  v_mov_b32_e32 vR, s30",
    // 64-bit scalar logic: pairs, EXEC and constants as sources
    "s_mov_b64 s[30:31], s[20:21]\n  W64",
    "s_mov_b64 s[30:31], exec\n  W64",
    "s_mov_b64 s[30:31], -5\n  W64",
    "s_and_b64 s[30:31], exec, s[20:21]\n  W64S",
    "s_or_b64 s[30:31], s[20:21], 0x1234\n  W64S",
    "s_xor_b64 s[30:31], s[22:23], -1\n  W64S",
    "s_andn2_b64 s[30:31], s[24:25], s[26:27]\n  W64S",
    "s_and_b64 s[30:31], s[24:25], 0\n  W64S",
    // lane access
    "v_readlane_b32 s30, v10, 5\n  v_mov_b32_e32 vR, s30",
    "v_readlane_b32 s30, v11, s20\n  v_mov_b32_e32 vR, s30",
    "v_mov_b32_e32 vR, v12\n  v_writelane_b32 vR, s21, 7",
    "v_mov_b32_e32 vR, v13\n  v_writelane_b32 vR, 63, s22",
    // compares and branches
    "s_cmp_eq_u32 s20, s21\n  CMP",
    "s_cmp_lg_u32 s20, s20\n  CMP",
    "s_cmp_lt_u32 s20, s21\n  CMP",
    "s_cmp_le_u32 s22, s23\n  CMP",
    "s_cmp_gt_u32 s24, s25\n  CMP",
    "s_cmp_ge_u32 s26, s27\n  CMP",
    "s_cmp_lt_i32 s20, s21\n  CMP",
    "s_cmp_le_i32 s22, s23\n  CMP",
    "s_cmp_gt_i32 s24, s25\n  CMP",
    "s_cmp_ge_i32 s26, 0\n  CMP",
    "s_cmp_eq_i32 s27, s27\n  CMP",
    "s_cmp_lg_i32 s26, s27\n  CMP",
    "s_nop 0\n  s_cmp_gt_u32 s20, s21\n  s_cbranch_scc1 .LtR\n  v_mov_b32_e32 vR, 1\n  s_branch .LeR\n.LtR:\n  v_mov_b32_e32 vR, 2\n.LeR:",
    "s_cmp_gt_u32 s20, s21\n  s_cbranch_scc0 .LtR\n  v_mov_b32_e32 vR, 3\n  s_branch .LeR\n.LtR:\n  v_mov_b32_e32 vR, 4\n.LeR:",
    "s_and_b32 vcc_lo, s22, 1\n  s_mov_b32 vcc_hi, 0\n  s_cbranch_vccz .LtR\n  v_mov_b32_e32 vR, 5\n  s_branch .LeR\n.LtR:\n  v_mov_b32_e32 vR, 6\n.LeR:",
    "s_and_b32 vcc_lo, s23, 1\n  s_mov_b32 vcc_hi, 0\n  s_cbranch_vccnz .LtR\n  v_mov_b32_e32 vR, 7\n  s_branch .LeR\n.LtR:\n  v_mov_b32_e32 vR, 8\n.LeR:",
    "s_cbranch_execz .LtR\n  v_mov_b32_e32 vR, 9\n  s_branch .LeR\n.LtR:\n  v_mov_b32_e32 vR, 10\n.LeR:",
    "s_cbranch_execnz .LtR\n  v_mov_b32_e32 vR, 11\n  s_branch .LeR\n.LtR:\n  v_mov_b32_e32 vR, 12\n.LeR:",
    // VCC's high half alone decides vccz/vccnz (issue 20, mutation (c)).
    "s_mov_b32 vcc_lo, 0\n  s_or_b32 vcc_hi, s22, 1\n  s_cbranch_vccz .LtR\n  v_mov_b32_e32 vR, 13\n  s_branch .LeR\n.LtR:\n  v_mov_b32_e32 vR, 14\n.LeR:",
    "s_mov_b32 vcc_lo, 0\n  s_or_b32 vcc_hi, s23, 2\n  s_cbranch_vccnz .LtR\n  v_mov_b32_e32 vR, 15\n  s_branch .LeR\n.LtR:\n  v_mov_b32_e32 vR, 16\n.LeR:",
    "s_mov_b32 vcc_lo, 0\n  s_mov_b32 vcc_hi, 0\n  s_cbranch_vccz .LtR\n  v_mov_b32_e32 vR, 17\n  s_branch .LeR\n.LtR:\n  v_mov_b32_e32 vR, 18\n.LeR:",
    // vector compares: VCC (e32) or an SGPR pair (e64), both halves kept
    "v_cmp_lt_f32_e32 vcc, v10, v11\n  VCC3",
    "v_cmp_nlt_f32_e32 vcc, 1.0, v12\n  VCC3",
    "v_cmp_ngt_f32_e64 s[30:31], -v13, |v14|\n  W64",
    "v_cmp_u_f32_e32 vcc, v10, v15\n  VCC3",
    "v_cmp_lg_f32_e32 vcc, s20, v11\n  VCC3",
    "v_cmp_eq_f32_e64 s[30:31], v12, v12\n  W64",
    "v_cmp_lt_u32_e32 vcc, v10, v11\n  VCC3",
    "v_cmp_gt_i32_e64 s[30:31], v12, s21\n  W64",
    "v_cmp_le_i32_e32 vcc, -5, v14\n  VCC3",
    "v_cmp_ne_u32_e64 s[30:31], 0, v13\n  W64",
    "v_cmp_eq_u32_e32 vcc, v16, v16\n  VCC3",
    "v_cmp_lt_u64_e32 vcc, v[10:11], v[12:13]\n  VCC3",
    "v_cmp_ge_i64_e64 s[30:31], v[14:15], s[20:21]\n  W64",
    "v_cmp_lt_f64_e32 vcc, v[10:11], v[16:17]\n  VCC3",
    "v_cmp_neq_f64_e64 s[30:31], -v[12:13], 1.0\n  W64",
    "v_cmp_class_f32_e32 vcc, v10, v11\n  VCC3",
    "v_cmp_class_f32_e64 s[30:31], -|v12|, s20\n  W64",
    "v_mov_b32_e32 vR, 0x3fc\n  v_cmp_class_f32_e32 vcc, v13, vR\n  VCC3",
    "v_cmp_class_f32_e32 vcc, 1.0, v11\n  VCC3",
    "s_mov_b64 s[34:35], exec\n  v_cmpx_gt_u32_e32 vcc, v10, v11\n  s_mov_b64 s[30:31], exec\n  s_mov_b64 exec, s[34:35]\n  W64",
    "s_mov_b64 s[34:35], exec\n  v_cmpx_lt_f32_e64 s[32:33], v12, v13\n  s_mov_b64 s[30:31], exec\n  s_mov_b64 exec, s[34:35]\n  W64",
    // selects
    "v_cmp_lt_f32_e32 vcc, v10, v11\n  v_cndmask_b32_e32 vR, v12, v13, vcc",
    "v_cmp_gt_u32_e64 s[30:31], v14, v15\n  v_cndmask_b32_e64 vR, -v12, |v13|, s[30:31]",
    "v_cmp_lt_i32_e32 vcc, v16, v17\n  v_cndmask_b32_e32 vR, 1.0, v14, vcc",
    "s_mov_b32 vcc_lo, 0\n  s_mov_b32 vcc_hi, -1\n  v_cndmask_b32_e32 vR, -1, v15, vcc",
    // three-source integer, bitfields
    "v_med3_i32 vR, v10, v11, v12",
    "v_med3_u32 vR, v10, s20, 17",
    "v_min3_i32 vR, v13, v14, v15",
    "v_min3_u32 vR, v13, v14, v15",
    "v_max3_i32 vR, v10, v16, v17",
    "v_max3_u32 vR, v10, v16, v17",
    "v_bfe_u32 vR, v10, v11, v12",
    "v_bfe_u32 vR, v13, 8, 5",
    "v_alignbit_b32 vR, v10, v11, v12",
    "v_mul_hi_i32 vR, v13, v14",
    // f32 min/max/med3 (NaNs, signed zeros)
    "v_max_f32_e32 vR, v10, v11",
    "v_min_f32_e32 vR, v12, v13",
    "v_max_f32_e64 vR, s20, v14",
    "v_min_f32_e32 vR, 0, v15",
    "v_max_f32_e32 vR, v16, v16",
    "v_med3_f32 vR, v10, v11, v12",
    "v_med3_f32 vR, v13, -1.0, 1.0",
    // conversions
    "v_cvt_f32_u32_e32 vR, v10",
    "v_cvt_f32_i32_e32 vR, v11",
    "v_cvt_i32_f32_e32 vR, v12",
    "v_cvt_u32_f32_e32 vR, v13",
    "v_cvt_f16_f32_e32 vR, v14",
    "v_cvt_f32_f16_e32 vR, v15",
    "v_cvt_f32_ubyte0_e32 vR, v10",
    "v_cvt_f32_ubyte1_e32 vR, s21",
    "v_cvt_f32_ubyte2_e64 vR, v11",
    "v_cvt_f32_ubyte3_e32 vR, v12",
    "v_cvt_f32_ubyte1_e32 vR, vR",
    "v_cvt_f64_u32_e32 v[R:Q], v10",
    "v_cvt_f64_i32_e32 v[R:Q], v11",
    "v_cvt_f64_f32_e32 v[R:Q], v12",
    "v_cvt_f32_f64_e32 vR, v[12:13]",
    // f64 division steps (NaNs, infinities, denormals among the inputs);
    // VCC's high half set for v_div_fmas_f64.
    "v_rcp_f64_e32 v[R:Q], v[10:11]",
    "v_rcp_f64_e64 v[R:Q], -|v[12:13]|",
    "v_div_scale_f64 v[R:Q], s[30:31], v[10:11], v[12:13], v[10:11]\n  s_xor_b32 s30, s30, s31\n  v_mov_b32_e32 vP, s30",
    "v_div_scale_f64 v[R:Q], vcc, v[14:15], v[16:17], v[16:17]\n  s_xor_b32 s30, vcc_lo, vcc_hi\n  v_mov_b32_e32 vP, s30",
    "s_and_b32 vcc_lo, s20, s21\n  s_mov_b32 vcc_hi, s22\n  v_div_fmas_f64 v[R:Q], v[10:11], v[12:13], v[14:15]",
    "s_mov_b32 vcc_lo, 0\n  s_mov_b32 vcc_hi, -1\n  v_div_fmas_f64 v[R:Q], -v[16:17], v[12:13], |v[10:11]|",
    "v_div_fixup_f64 v[R:Q], v[10:11], v[12:13], v[16:17]",
    "v_div_fixup_f64 v[R:Q], -v[14:15], |v[10:11]|, 1.0",
    // f32 division steps: random operands (specials among them), VCC in
    // both halves, and clang's whole division sequence.
    "v_div_scale_f32 vR, s[30:31], v10, v11, v10\n  s_xor_b32 s30, s30, s31\n  v_mov_b32_e32 vQ, s30",
    "v_div_scale_f32 vR, vcc, v12, v13, v13\n  s_xor_b32 s30, vcc_lo, vcc_hi\n  v_mov_b32_e32 vQ, s30",
    "s_and_b32 vcc_lo, s20, s21\n  s_mov_b32 vcc_hi, s22\n  v_div_fmas_f32 vR, v10, v11, v12",
    "s_mov_b32 vcc_lo, 0\n  s_mov_b32 vcc_hi, -1\n  v_div_fmas_f32 vR, -v13, v11, |v10|",
    "v_div_fixup_f32 vR, v10, v11, v12",
    "v_div_fixup_f32 vR, -v13, |v14|, 1.0",
    "v_div_scale_f32 v20, s[30:31], v11, v11, v10\n  v_div_scale_f32 v21, vcc, v10, v11, v10\n  v_rcp_f32_e32 v22, v20\n  v_fma_f32 v23, -v20, v22, 1.0\n  v_fmac_f32_e32 v22, v23, v22\n  v_mul_f32_e32 v23, v21, v22\n  v_fma_f32 v24, -v20, v23, v21\n  v_fmac_f32_e32 v23, v24, v22\n  v_fma_f32 v20, -v20, v23, v21\n  v_div_fmas_f32 v20, v20, v22, v23\n  v_div_fixup_f32 vR, v20, v11, v10",
    // SDWA integer forms with source selects (sign-extended too), a
    // destination read by both sources, an SGPR source.
    "v_xor_b32_sdwa vR, v10, v10 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD",
    "v_and_b32_sdwa vR, v11, v12 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_2 src1_sel:WORD_0",
    "v_add_u32_sdwa vR, sext(v13), v14 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_1 src1_sel:BYTE_3",
    "v_max_i32_sdwa vR, sext(v15), sext(v16) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:BYTE_0",
    "v_lshrrev_b32_sdwa vR, v10, v11 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:WORD_1",
    "v_mov_b32_sdwa vR, sext(v12) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_3",
    "v_or_b32_sdwa vR, s20, v13 dst_sel:DWORD dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:BYTE_1",
    "v_sub_u32_sdwa vR, sext(v10), sext(v11) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:BYTE_2",
    "v_min_i32_sdwa vR, v12, sext(v13) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_1 src1_sel:DWORD",
    "v_mov_b32_e32 vR, v14\n  v_mul_u32_u24_sdwa vR, vR, vR dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:BYTE_2",
    // 64-bit integer
    "v_lshlrev_b64 v[R:Q], v10, v[12:13]",
    "v_lshrrev_b64 v[R:Q], 3, v[14:15]",
    "v_ashrrev_i64 v[R:Q], v11, v[16:17]",
    "v_mad_u64_u32 v[R:Q], s[30:31], v10, v11, v[12:13]\n  s_xor_b32 s30, s30, s31\n  v_mov_b32_e32 vP, s30",
    "v_mad_u64_u32 v[R:Q], vcc, v14, s20, v[16:17]\n  s_xor_b32 s30, vcc_lo, vcc_hi\n  v_mov_b32_e32 vP, s30",
    "v_pk_mov_b32 v[R:Q], v[10:11], v[12:13] op_sel:[1,0]",
    "v_pk_mov_b32 v[R:Q], v[14:15], s[20:21] op_sel:[0,1]",
    // f64
    "v_add_f64 v[R:Q], v[10:11], v[12:13]",
    "v_add_f64 v[R:Q], -v[14:15], |v[16:17]|",
    "v_mul_f64 v[R:Q], v[10:11], s[20:21]",
    "v_mul_f64 v[R:Q], v[12:13], 0.5",
    "v_fma_f64 v[R:Q], v[10:11], v[12:13], v[14:15]",
    "v_fma_f64 v[R:Q], -v[16:17], 2.0, v[10:11]",
    "v_pk_mov_b32 v[R:Q], v[14:15], v[14:15] op_sel:[0,1]\n  v_fmac_f64_e32 v[R:Q], v[10:11], v[12:13]",
    // ldexp: random doubles (normal, denormal, NaN, inf) and exponents
    // (small ones keep results normal; large ones over- and underflow)
    "v_ldexp_f64 v[R:Q], v[10:11], v12",
    "v_bfe_i32 vP, v13, 0, 7\n  v_ldexp_f64 v[R:Q], v[14:15], vP",
    "v_ldexp_f64 v[R:Q], -|v[16:17]|, -3",
    // zeros of both signs keep their value (and sign) whatever the exponent
    "v_ldexp_f64 v[R:Q], 0, v12",
    "v_mov_b32_e32 vR, 0\n  v_mov_b32_e32 vQ, 0x80000000\n  v_ldexp_f64 v[R:Q], v[R:Q], v12",
    // borrows: VCC or an SGPR pair out and in; equal operands
    "v_sub_co_u32_e32 vR, vcc, v10, v11\n  VCC3",
    "v_subrev_co_u32_e32 vR, vcc, s20, v11\n  VCC3",
    "v_sub_co_u32_e64 vR, s[30:31], v12, v12\n  v_mov_b32_e32 vQ, s30\n  v_mov_b32_e32 vP, s31",
    "s_and_b32 vcc_lo, s20, s21\n  s_mov_b32 vcc_hi, s22\n  v_subb_co_u32_e32 vR, vcc, v10, v11, vcc\n  VCC3",
    "s_mov_b32 vcc_lo, -1\n  s_mov_b32 vcc_hi, s23\n  v_subbrev_co_u32_e32 vR, vcc, v12, v12, vcc\n  VCC3",
    "s_mov_b32 s30, s23\n  s_mov_b32 s31, s24\n  v_subb_co_u32_e64 vR, s[32:33], v13, 0, s[30:31]\n  v_mov_b32_e32 vQ, s32\n  v_mov_b32_e32 vP, s33",
    // f32 reciprocal, reciprocal square root, square root
    "v_rcp_f32_e32 vR, v10",
    "v_rsq_f32_e32 vR, v11",
    "v_sqrt_f32_e32 vR, v12",
    "v_rsq_f32_e64 vR, |v13|",
    "v_sqrt_f32_e64 vR, -v14",
    // scalar
    "s_bitcmp0_b32 s20, 3\n  CMP",
    "s_bitcmp1_b32 s21, s22\n  CMP",
    "s_cmp_lt_u32 s20, s21\n  s_cselect_b64 s[30:31], s[22:23], -1\n  W64",
    // EXEC as a destination: saveexec and 64-bit logic (restored before
    // the results are moved to VGPRs)
    "s_mov_b64 s[34:35], exec\n  s_and_saveexec_b64 s[30:31], s[20:21]\n  s_cselect_b32 s32, 1, 0\n  s_mov_b64 s[38:39], exec\n  s_mov_b64 exec, s[34:35]\n  s_xor_b32 s38, s38, s30\n  s_xor_b32 s39, s39, s31\n  v_mov_b32_e32 vR, s38\n  v_mov_b32_e32 vQ, s39\n  v_mov_b32_e32 vP, s32",
    "s_mov_b64 s[34:35], exec\n  s_andn2_saveexec_b64 s[30:31], s[22:23]\n  s_or_saveexec_b64 s[38:39], s[24:25]\n  s_cselect_b32 s32, 1, 0\n  s_xor_b64 s[38:39], s[38:39], exec\n  s_mov_b64 exec, s[34:35]\n  v_mov_b32_e32 vR, s38\n  v_mov_b32_e32 vQ, s39\n  v_mov_b32_e32 vP, s32",
    "s_mov_b64 s[34:35], exec\n  s_and_b64 exec, exec, s[20:21]\n  s_or_b64 exec, exec, s[22:23]\n  s_cselect_b32 s32, 1, 0\n  s_mov_b64 s[38:39], exec\n  s_mov_b64 exec, s[34:35]\n  v_mov_b32_e32 vR, s38\n  v_mov_b32_e32 vQ, s39\n  v_mov_b32_e32 vP, s32",
];

/// The mnemonics that must run as µops in the kernel.
const FAST: &[&str] = &[
    "v_mov_b32",
    "v_not_b32",
    "v_add_u32",
    "v_sub_u32",
    "v_subrev_u32",
    "v_and_b32",
    "v_or_b32",
    "v_xor_b32",
    "v_lshlrev_b32",
    "v_lshrrev_b32",
    "v_ashrrev_i32",
    "v_mul_lo_u32",
    "v_mul_hi_u32",
    "v_mul_u32_u24",
    "v_min_u32",
    "v_max_u32",
    "v_min_i32",
    "v_max_i32",
    "v_add3_u32",
    "v_lshl_add_u32",
    "v_add_lshl_u32",
    "v_lshl_or_b32",
    "v_and_or_b32",
    "v_or3_b32",
    "v_xad_u32",
    "v_bfi_b32",
    "v_mad_u32_u24",
    "v_add_co_u32",
    "v_addc_co_u32",
    "v_add_f32",
    "v_sub_f32",
    "v_subrev_f32",
    "v_mul_f32",
    "v_fma_f32",
    "v_fmac_f32",
    "v_pk_fma_f32",
    "v_pk_mul_f32",
    "v_pk_add_f32",
    "s_mov_b32",
    "s_add_u32",
    "s_sub_u32",
    "s_add_i32",
    "s_sub_i32",
    "s_and_b32",
    "s_or_b32",
    "s_xor_b32",
    "s_lshl_b32",
    "s_lshr_b32",
    "s_mul_i32",
    "s_cmp_eq_u32",
    "s_cmp_lg_u32",
    "s_cmp_lt_u32",
    "s_cmp_le_u32",
    "s_cmp_gt_u32",
    "s_cmp_ge_u32",
    "s_cmp_lt_i32",
    "s_cmp_le_i32",
    "s_cmp_gt_i32",
    "s_cmp_ge_i32",
    "s_cmp_eq_i32",
    "s_cmp_lg_i32",
    "s_nop",
    "s_branch",
    "s_cbranch_scc0",
    "s_cbranch_scc1",
    "s_cbranch_vccz",
    "s_cbranch_vccnz",
    "s_addc_u32",
    "s_cselect_b32",
    "s_mov_b64",
    "s_and_b64",
    "s_or_b64",
    "s_xor_b64",
    "s_andn2_b64",
    "v_readlane_b32",
    "v_writelane_b32",
    "s_cbranch_execz",
    "s_cbranch_execnz",
    "v_cmp_lt_f32",
    "v_cmp_nlt_f32",
    "v_cmp_ngt_f32",
    "v_cmp_u_f32",
    "v_cmp_lg_f32",
    "v_cmp_eq_f32",
    "v_cmp_lt_u32",
    "v_cmp_gt_i32",
    "v_cmp_le_i32",
    "v_cmp_ne_u32",
    "v_cmp_eq_u32",
    "v_cmp_lt_u64",
    "v_cmp_ge_i64",
    "v_cmp_lt_f64",
    "v_cmp_neq_f64",
    "v_cmp_class_f32",
    "v_pk_fma_f16",
    "v_pk_add_f16",
    "v_pk_mul_f16",
    "v_pk_max_f16",
    "v_pk_min_f16",
    "v_pack_b32_f16",
    "s_mul_hi_u32",
    "s_mul_hi_i32",
    "s_ashr_i32",
    "s_andn2_b32",
    "s_not_b32",
    "s_min_i32",
    "s_min_u32",
    "s_max_i32",
    "s_max_u32",
    "s_lshl2_add_u32",
    "s_lshl4_add_u32",
    "s_lshl_b64",
    "s_lshr_b64",
    "s_ashr_i64",
    "v_div_scale_f32",
    "v_div_fmas_f32",
    "v_div_fixup_f32",
    "v_cmpx_gt_u32",
    "v_cmpx_lt_f32",
    "v_cmp_gt_u32",
    "v_cmp_lt_i32",
    "v_cndmask_b32",
    "v_ldexp_f64",
    "v_sub_co_u32",
    "v_subrev_co_u32",
    "v_subb_co_u32",
    "v_subbrev_co_u32",
    "v_rcp_f32",
    "v_rsq_f32",
    "v_sqrt_f32",
    "v_med3_i32",
    "v_med3_u32",
    "v_min3_i32",
    "v_min3_u32",
    "v_max3_i32",
    "v_max3_u32",
    "v_bfe_u32",
    "v_alignbit_b32",
    "v_mul_hi_i32",
    "v_max_f32",
    "v_min_f32",
    "v_med3_f32",
    "v_cvt_f32_u32",
    "v_cvt_f32_i32",
    "v_cvt_i32_f32",
    "v_cvt_u32_f32",
    "v_cvt_f16_f32",
    "v_cvt_f32_f16",
    "v_cvt_f32_ubyte0",
    "v_cvt_f32_ubyte1",
    "v_cvt_f32_ubyte2",
    "v_cvt_f32_ubyte3",
    "v_cvt_f64_u32",
    "v_cvt_f64_i32",
    "v_cvt_f64_f32",
    "v_cvt_f32_f64",
    "v_lshlrev_b64",
    "v_lshrrev_b64",
    "v_ashrrev_i64",
    "v_mad_u64_u32",
    "v_pk_mov_b32",
    "v_add_f64",
    "v_mul_f64",
    "v_fma_f64",
    "v_fmac_f64",
    "v_rcp_f64",
    "v_div_scale_f64",
    "v_div_fmas_f64",
    "v_div_fixup_f64",
    "v_xor_b32_sdwa",
    "v_and_b32_sdwa",
    "v_add_u32_sdwa",
    "v_max_i32_sdwa",
    "v_lshrrev_b32_sdwa",
    "v_mov_b32_sdwa",
    "v_or_b32_sdwa",
    "v_mul_u32_u24_sdwa",
    "v_sub_u32_sdwa",
    "v_min_i32_sdwa",
    "s_bitcmp0_b32",
    "s_bitcmp1_b32",
    "s_cselect_b64",
    "s_and_saveexec_b64",
    "s_or_saveexec_b64",
    "s_andn2_saveexec_b64",
];

/// The kernel is split in parts of this many [`OPS`] lines, so each part's
/// results fit the 256 VGPRs.
const PART: usize = 100;

/// The parts of [`OPS`], one kernel each.
fn parts() -> impl Iterator<Item = &'static [&'static str]> {
    OPS.chunks(PART)
}

/// The operation lines of `ops` with their result registers, how many
/// results, and each line's first result (its index among them).
fn body(ops: &[&str]) -> (String, u32, Vec<u32>) {
    let mut text = String::new();
    let mut r = 40u32;
    let mut first = Vec::new();
    for (k, op) in ops.iter().enumerate() {
        if op.contains("v[R:Q]") && r % 2 == 1 {
            // Packed operands are aligned register pairs.
            r += 1;
        }
        first.push(r - 40);
        let line = op
            .replace("VCC3", "v_mov_b32_e32 vQ, vcc_lo\n  v_mov_b32_e32 vP, vcc_hi")
            .replace(
                "W64S",
                "s_cselect_b32 s32, 1, 0\n  v_mov_b32_e32 vR, s30\n  v_mov_b32_e32 vQ, s31\n  v_mov_b32_e32 vP, s32",
            )
            .replace("W64", "v_mov_b32_e32 vR, s30\n  v_mov_b32_e32 vQ, s31")
            .replace(
                "SCC",
                "s_cselect_b32 s31, 1, 0\n  v_mov_b32_e32 vR, s30\n  v_mov_b32_e32 vQ, s31",
            )
            .replace("CMP", "s_cselect_b32 s31, 1, 0\n  v_mov_b32_e32 vR, s31");
        let results = if line.contains("vP") {
            3
        } else if line.contains("vQ") || line.contains("v[R:Q]") {
            2
        } else {
            1
        };
        // SDWA selector names hold the placeholder letters: kept apart.
        let line = line
            .replace("WORD", "\u{1}")
            .replace("UNUSED_PRESERVE", "\u{3}")
            .replace("UNUSED_PAD", "\u{2}")
            .replace(".LtR", &format!(".Lt{k}"))
            .replace(".LeR", &format!(".Le{k}"))
            .replace('R', &r.to_string())
            .replace('Q', &(r + 1).to_string())
            .replace('P', &(r + 2).to_string())
            .replace('\u{1}', "WORD")
            .replace('\u{2}', "UNUSED_PAD")
            .replace('\u{3}', "UNUSED_PRESERVE");
        text += &format!("  {line}\n");
        r += results;
    }
    (text, r - 40, first)
}

/// The first result of the operation line `line` of the first part of
/// [`OPS`].
fn result_of(line: &str) -> u32 {
    let ops = &OPS[..PART.min(OPS.len())];
    let k = ops
        .iter()
        .position(|o| *o == line)
        .expect("a first-part line");
    body(ops).2[k]
}

/// Which lanes the operations run under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lanes {
    /// All 64.
    Full,
    /// Lanes 37..63 off.
    Partial,
    /// Lanes 0..31 off: `exec_lo == 0` with `exec_hi != 0`.
    HiOnly,
    /// Only the lanes of the mask (1 to 4 of them: the µops' sparse
    /// form, which computes and writes only those).
    Sparse(u64),
}

impl Lanes {
    fn active(self, lane: u32) -> bool {
        match self {
            Lanes::Full => true,
            Lanes::Partial => lane < 37,
            Lanes::HiOnly => lane >= 32,
            Lanes::Sparse(m) => m >> lane & 1 == 1,
        }
    }
}

fn asm(target: &str, flush: bool, lanes: Lanes, part: &[&str]) -> (String, u32) {
    let (ops, results, _) = body(part);
    let stores = common::stores(results);
    let mode = if flush {
        // f32 denormals flushed (MODE bits 4-5), f64/f16 kept.
        "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0"
    } else {
        ""
    };
    // Lanes 37..63 off, restored for the stores.
    let part = match lanes {
        Lanes::Full => String::new(),
        Lanes::Partial => "  v_cmp_gt_u32_e32 vcc, 37, v0\n  s_and_saveexec_b64 s[36:37], vcc".to_string(),
        // (A 64-bit µop: `s_mov_b32 exec_lo` is no µop, and every
        // instruction of the FAST forms must run as one.)
        Lanes::HiOnly => {
            "  s_mov_b64 s[36:37], exec\n  s_mov_b32 s38, 0\n  s_mov_b32 s39, -1\n  s_and_b64 exec, exec, s[38:39]"
                .to_string()
        }
        Lanes::Sparse(m) => format!(
            "  s_mov_b64 s[36:37], exec\n  s_mov_b32 s38, {:#x}\n  s_mov_b32 s39, {:#x}\n  s_and_b64 exec, exec, s[38:39]",
            m as u32,
            (m >> 32) as u32
        ),
    };
    let restore = if lanes == Lanes::Full {
        ""
    } else {
        "  s_mov_b64 exec, s[36:37]"
    };
    // Every result register starts with a different value per lane, so
    // a µop that clobbers (or zeroes) an inactive lane differs from the
    // general handler, which leaves it alone.
    let seed: String = (40..40 + results)
        .map(|r| format!("  v_xor_b32_e32 v{r}, 0x5a5a{r:04x}, v0\n"))
        .collect();
    let body = format!("{mode}\n{seed}{part}\n{ops}\n{restore}");
    let text = common::kernel(target, "fastops", &body, &stores, results, "");
    (text, results)
}

fn build(target: &str, flush: bool, lanes: Lanes, part: usize) -> (PathBuf, u32) {
    let ops = parts().nth(part).expect("a part");
    let (text, results) = asm(target, flush, lanes, ops);
    let name = match (flush, lanes) {
        (_, Lanes::Sparse(m)) => &format!("fastops-sparse{m:x}-{flush}"),
        (false, Lanes::Full) => "fastops",
        (true, _) => "fastops-ftz",
        (_, Lanes::Partial) => "fastops-partial",
        (_, Lanes::HiOnly) => "fastops-hi",
    };
    let name = format!("{name}-{part}");
    (
        lathe_testkit::assemble_shared(target, &name, &text),
        results,
    )
}

/// Per lane 8 input dwords; waves from `WAVES / 2` on are all finite.
fn inputs() -> Vec<u32> {
    let mut rng = Rng::new(0x1a7e);
    (0..WAVES * 64 * IN)
        .map(|k| {
            let finite = k / (64 * IN) >= WAVES / 2;
            if rng.u32() % 3 == 0 {
                rng.u32()
            } else if finite {
                rng.f32_finite()
            } else {
                rng.f32()
            }
        })
        .collect()
}

fn run(co: &[u8], target: &str, results: u32, fast: bool) -> (Vec<u32>, Report) {
    let opts = Options {
        threads: 1,
        fast_tier: fast,
        count_uops: true,
        ..Options::default()
    };
    common::launch(co, target, "fastops", results, &inputs(), &opts)
}

/// A mnemonic without its `_e32`/`_e64` suffix.
fn base(name: &str) -> &str {
    name.strip_suffix("_e32")
        .or_else(|| name.strip_suffix("_e64"))
        .unwrap_or(name)
}

/// The opcodes of [`FAST`] that took the general path at run time, with
/// how often (packed f32 ops excepted: waves with non-finite inputs send
/// them to the general handler's NaN path by design).
fn fallbacks(report: &Report) -> Vec<(String, u64)> {
    report
        .per_opcode
        .iter()
        .filter(|(o, _)| FAST.contains(&base(o.name())) && !o.name().starts_with("v_pk_"))
        .filter_map(|(o, n)| {
            let u = report
                .per_opcode_uops
                .iter()
                .find(|(p, _)| p == o)
                .map_or(0, |(_, u)| *u);
            (u != *n).then(|| (o.name().to_string(), n - u))
        })
        .collect()
}

/// The mnemonics (without `_e32`/`_e64`) of the kernel's instructions that
/// decode to a µop.
fn fast_mnemonics(co: &[u8], target: &str) -> BTreeSet<String> {
    let obj = lathe_codeobj::CodeObject::parse(co).expect("parse");
    let text = obj.section_by_name(".text").expect(".text");
    let bytes = obj.section_data(text).expect("text bytes");
    let t: lathe_isa::Target = target.parse().expect("isa target");
    let mut out = BTreeSet::new();
    let mut off = 0;
    while off < bytes.len() {
        let inst = lathe_isa::decode(t, &bytes[off..]);
        let pc = text.address + off as u64;
        if lathe_emu::interp::has_fast_uop(t, &bytes[off..], pc) {
            out.insert(base(inst.opcode().info().name()).to_string());
        }
        off += inst.len().max(4);
    }
    out
}

/// A random EXEC of `bits` lanes (seeded by the target), lane 63 among
/// them when `bits` is 4 so the top lane is always covered.
fn sparse_exec(target: &str, bits: u32) -> u64 {
    let seed: u64 = target.bytes().map(u64::from).sum();
    let mut rng = Rng::new(0x5ba7 ^ seed << 8 ^ u64::from(bits));
    let mut m = if bits == 4 { 1u64 << 63 } else { 0 };
    while m.count_ones() < bits {
        m |= 1 << (rng.u32() % 64);
    }
    m
}

#[test]
fn fast_tier_matches_the_general_handlers() {
    let input = inputs();
    for target in ["gfx90a", "gfx942"] {
        for (flush, lanes) in [
            (false, Lanes::Full),
            (true, Lanes::Full),
            (false, Lanes::Partial),
            (false, Lanes::HiOnly),
            (false, Lanes::Sparse(sparse_exec(target, 1))),
            (false, Lanes::Sparse(sparse_exec(target, 4))),
            (true, Lanes::Sparse(sparse_exec(target, 3))),
        ] {
            let mut covered = BTreeSet::new();
            let mut first = None;
            for part in 0..parts().count() {
                let (path, results) = build(target, flush, lanes, part);
                let co = std::fs::read(&path).expect("code object");
                covered.extend(fast_mnemonics(&co, target));
                let (slow, off) = run(&co, target, results, false);
                let (fast, on) = run(&co, target, results, true);
                assert_eq!(
                    off.uop_instructions,
                    Some(0),
                    "{target}: µops with the tier off"
                );
                // The per-opcode counts (the ground truth the
                // instrumentation tools are checked against) do not
                // depend on the tier: the µop loop's per-record counters
                // are folded into them exactly.
                assert_eq!(
                    off.per_opcode, on.per_opcode,
                    "{target} flush={flush} {lanes:?} part {part}: per-opcode counts differ with the tier on"
                );
                assert!(
                    on.uop_instructions.unwrap_or(0) > 0,
                    "{target} flush={flush} {lanes:?} part {part}: no µop ran"
                );
                // Under every EXEC (full, lanes 37..63 off, `exec_lo == 0`)
                // every instruction of FAST ran as a µop: a µop that
                // declines or is skipped at run time fails here.
                let fell = fallbacks(&on);
                assert!(
                    fell.is_empty(),
                    "{target} flush={flush} {lanes:?} part {part}: fell back at run time: {fell:?}"
                );
                for (k, (a, b)) in slow.iter().zip(&fast).enumerate() {
                    let (lane, res) = (k as u32 / results, k as u32 % results);
                    assert_eq!(
                        a, b,
                        "{target} flush={flush} {lanes:?} part {part}: work-item {lane} result {res} (v{}): general {a:#010x}, fast {b:#010x}",
                        40 + res
                    );
                }
                if part == 0 {
                    first = Some((fast, results));
                }
            }
            let missing: Vec<_> = FAST.iter().filter(|m| !covered.contains(**m)).collect();
            assert!(missing.is_empty(), "{target}: not µops: {missing:?}");
            let (fast, results) = first.expect("a first part");
            // A CPU sample: v_add_u32 v10+v11 and v_fma_f32 v10*v11+v12
            // (finite waves, no flushing).
            let (add, fma) = (
                result_of("v_add_u32_e32 vR, v10, v11"),
                result_of("v_fma_f32 vR, v10, v11, v12"),
            );
            // Inactive lanes of the partial-EXEC variant compute nothing.
            for g in (0..WAVES * 64).filter(|g| lanes.active(g % 64)) {
                let x = |k: u32| input[(g * IN + k) as usize];
                let got = |r: u32| fast[(g * results + r) as usize];
                assert_eq!(
                    got(add),
                    x(0).wrapping_add(x(1)),
                    "{target}: v_add_u32 at {g}"
                );
                let f = |k: u32| f32::from_bits(x(k));
                let want = f(0).mul_add(f(1), f(2));
                let denormal = |v: f32| v != 0.0 && !v.is_normal() && v.is_finite();
                if !flush
                    && want.is_finite()
                    && ![f(0), f(1), f(2), want].iter().any(|v| denormal(*v))
                {
                    assert_eq!(got(fma), want.to_bits(), "{target}: v_fma_f32 at {g}");
                }
            }
        }
    }
}

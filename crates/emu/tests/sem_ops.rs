//! Instructions whose semantics come from the description
//! (`lathe_isa::sem`): compares of every width and form (VOPC, VOP3, SDWA
//! with byte/word selects and sign extension, `v_cmpx`), integer clamps,
//! `v_pack_b32_f16`, the scalar operations added with it, `s_cmpk` with
//! a 16-bit immediate above 0x7fff, `s_getreg` of `SH_MEM_BASES`, and
//! every scalar ALU operation with its SCC.
//!
//! A kernel written in assembly (clang-22, `ld.lld -shared`, gfx90a and
//! gfx942) runs each operation over random per-lane inputs (16-bit halves
//! and bytes that often collide, NaNs, infinities, denormals, signed
//! zeros) under a per-wave EXEC pattern: full, `exec_lo == 0` with
//! `exec_hi != 0`, `exec_hi == 0`, random. Each result is checked against a
//! reference written here, independently of the emulator: lane masks bit
//! for bit in both halves of VCC or the SGPR pair, inactive lanes left
//! untouched.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use lathe_emu::run::Options;

mod alu_common;
mod common;
use alu_common::Rng;

use common::{IN, SENTINEL, WAVES};

/// What an operation line leaves in its result registers.
#[derive(Clone, Copy)]
enum Check {
    /// vR per lane: f(lane inputs v10..v17, uniform inputs s20..s27).
    Lane(fn(&[u32], &[u32]) -> u32),
    /// A lane mask copied to vR (low half) and vQ (high half): the bit of
    /// each active lane is f(lane, uniform); inactive lanes' bits are 0.
    Mask(fn(&[u32], &[u32]) -> bool),
    /// vR: f(uniform), the same in every active lane.
    Uniform(fn(&[u32]) -> u32),
    /// As `Lane` for an f32 result, where any NaN matches any NaN (the
    /// host computing the reference keeps no NaN payload or sign rule).
    Float(fn(&[u32], &[u32]) -> u32),
}

/// `MASK` copies VCC, `SMASK` s[30:31], into vR/vQ.
const CASES: &[(&str, Check)] = &[
    ("v_cmp_eq_u16_e32 vcc, v10, v11\n MASK", Check::Mask(|x, _| x[0] as u16 == x[1] as u16)),
    ("v_cmp_ne_u16_e32 vcc, s20, v11\n MASK", Check::Mask(|x, u| u[0] as u16 != x[1] as u16)),
    ("v_cmp_gt_i16_e64 s[30:31], v10, v11\n SMASK", Check::Mask(|x, _| x[0] as i16 > x[1] as i16)),
    ("v_cmp_le_u16_e64 s[30:31], v11, 7\n SMASK", Check::Mask(|x, _| x[1] as u16 <= 7)),
    (
        // Equal halves are frequent: a predicate off by equality shows.
        "v_cmp_le_u16_e64 s[30:31], v10, v11\n SMASK",
        Check::Mask(|x, _| x[0] as u16 <= x[1] as u16),
    ),
    (
        "v_cmp_ne_u16_sdwa vcc, v10, v11 src0_sel:WORD_1 src1_sel:WORD_0\n MASK",
        Check::Mask(|x, _| (x[0] >> 16) as u16 != x[1] as u16),
    ),
    (
        "v_cmp_eq_u32_sdwa s[30:31], v10, v11 src0_sel:BYTE_0 src1_sel:BYTE_0\n SMASK",
        Check::Mask(|x, _| x[0] & 0xff == x[1] & 0xff),
    ),
    (
        "v_cmp_eq_u32_sdwa vcc, v10, v11 src0_sel:WORD_1 src1_sel:WORD_1\n MASK",
        Check::Mask(|x, _| x[0] >> 16 == x[1] >> 16),
    ),
    (
        "v_cmp_lt_i32_sdwa vcc, sext(v10), v11 src0_sel:BYTE_1 src1_sel:DWORD\n MASK",
        Check::Mask(|x, _| i32::from((x[0] >> 8) as u8 as i8) < x[1] as i32),
    ),
    (
        "v_cmp_gt_u32_sdwa vcc, v10, v11 src0_sel:BYTE_3 src1_sel:BYTE_2\n MASK",
        Check::Mask(|x, _| x[0] >> 24 > (x[1] >> 16) & 0xff),
    ),
    (
        "v_cmp_lt_f32_sdwa vcc, -v12, |v13| src0_sel:DWORD src1_sel:DWORD\n MASK",
        Check::Mask(|x, _| -f32v(x[2]) < f32v(x[3]).abs()),
    ),
    (
        "v_cmp_lt_f16_e64 s[30:31], -v12, |v13|\n SMASK",
        Check::Mask(|x, _| -f16(x[2]) < f16(x[3]).abs()),
    ),
    ("v_cmp_neq_f16_e32 vcc, v12, v13\n MASK", Check::Mask(|x, _| f16(x[2]) != f16(x[3]))),
    ("v_cmp_o_f16_e32 vcc, v12, v13\n MASK", Check::Mask(|x, _| !f16(x[2]).is_nan() && !f16(x[3]).is_nan())),
    ("v_cmp_neq_f32_e32 vcc, v12, v13\n MASK", Check::Mask(|x, _| f32v(x[2]) != f32v(x[3]))),
    (
        "v_cmp_nge_f64_e64 s[30:31], v[12:13], v[14:15]\n SMASK",
        Check::Mask(|x, _| {
            // Not greater-or-equal: less, or unordered (a NaN).
            !matches!(
                f64v(x[2], x[3]).partial_cmp(&f64v(x[4], x[5])),
                Some(std::cmp::Ordering::Greater | std::cmp::Ordering::Equal)
            )
        }),
    ),
    (
        "v_cmp_lt_u64_e64 s[30:31], v[10:11], v[12:13]\n SMASK",
        Check::Mask(|x, _| u64v(x[0], x[1]) < u64v(x[2], x[3])),
    ),
    ("v_cmp_t_u32_e64 s[30:31], v10, v11\n SMASK", Check::Mask(|_, _| true)),
    ("v_cmp_f_i32_e32 vcc, v10, v11\n MASK", Check::Mask(|_, _| false)),
    (
        "v_cmp_class_f16_e32 vcc, v12, v13\n MASK",
        Check::Mask(|x, _| class_f16(x[2] as u16) & x[3] & 0x3ff != 0),
    ),
    (
        // v_cmpx: the mask goes to EXEC too (read back, then the pattern restored).
        "v_cmpx_gt_u32_e32 vcc, v10, v11\n s_mov_b64 s[30:31], exec\n RESTORE\n SMASK",
        Check::Mask(|x, _| x[0] > x[1]),
    ),
    ("v_sub_u32_e64 vR, v10, v11 clamp", Check::Lane(|x, _| x[0].saturating_sub(x[1]))),
    ("v_add_u32_e64 vR, v10, v11 clamp", Check::Lane(|x, _| x[0].saturating_add(x[1]))),
    ("v_subrev_u32_e64 vR, v10, v11 clamp", Check::Lane(|x, _| x[1].saturating_sub(x[0]))),
    ("v_pack_b32_f16 vR, v10, v11", Check::Lane(|x, _| x[0] & 0xffff | x[1] << 16)),
    (
        "v_pack_b32_f16 vR, v10, v11 op_sel:[1,0]",
        Check::Lane(|x, _| x[0] >> 16 | x[1] << 16),
    ),
    (
        "v_pack_b32_f16 vR, -v10, |v11| op_sel:[0,1]",
        Check::Lane(|x, _| (x[0] ^ 0x8000) & 0xffff | (x[1] & 0x7fff_0000)),
    ),
    // ---- VALU rows through the generic handlers (valu::handler → vop):
    // operand order, 16-bit halves, carries with equal operands, VCC in
    // and out in both halves, NaN/±0/denormal f32 and f64.
    ("v_and_b32_e32 vR, v10, v11", Check::Lane(|x, _| x[0] & x[1])),
    ("v_or3_b32 vR, v10, v11, s20", Check::Lane(|x, u| x[0] | x[1] | u[0])),
    ("v_xad_u32 vR, v10, v11, v12", Check::Lane(|x, _| (x[0] ^ x[1]).wrapping_add(x[2]))),
    ("v_not_b32_e32 vR, v10", Check::Lane(|x, _| !x[0])),
    ("v_min_i32_e32 vR, v10, v11", Check::Lane(|x, _| (x[0] as i32).min(x[1] as i32) as u32)),
    ("v_max_u32_e32 vR, s20, v11", Check::Lane(|x, u| u[0].max(x[1]))),
    ("v_lshlrev_b32_e32 vR, v10, v11", Check::Lane(|x, _| x[1] << (x[0] & 31))),
    ("v_ashrrev_i32_e64 vR, v11, v10", Check::Lane(|x, _| ((x[0] as i32) >> (x[1] & 31)) as u32)),
    ("v_bfe_u32 vR, v10, v11, v12", Check::Lane(|x, _| bfe64(u64::from(x[0]), x[1] & 31, x[2] & 31, 32, false) as u32)),
    ("v_bfe_i32 vR, v10, v11, v12", Check::Lane(|x, _| bfe64(u64::from(x[0]), x[1] & 31, x[2] & 31, 32, true) as u32)),
    ("v_mul_hi_i32 vR, v10, v11", Check::Lane(|x, _| ((i64::from(x[0] as i32) * i64::from(x[1] as i32)) >> 32) as u32)),
    ("v_mad_u32_u24 vR, v10, v11, v12", Check::Lane(|x, _| (x[0] & 0xff_ffff).wrapping_mul(x[1] & 0xff_ffff).wrapping_add(x[2]))),
    ("v_alignbit_b32 vR, v10, v11, v12", Check::Lane(|x, _| (u64v(x[1], x[0]) >> (x[2] & 31)) as u32)),
    ("v_med3_i32 vR, v10, v11, v12", Check::Lane(|x, _| { let mut v = [x[0] as i32, x[1] as i32, x[2] as i32]; v.sort(); v[1] as u32 })),
    ("v_sub_u16_e32 vR, v10, v11", Check::Lane(|x, _| u32::from((x[0] as u16).wrapping_sub(x[1] as u16)))),
    ("v_subrev_u16_e32 vR, v10, v11", Check::Lane(|x, _| u32::from((x[1] as u16).wrapping_sub(x[0] as u16)))),
    ("v_ashrrev_i16_e32 vR, v10, v11", Check::Lane(|x, _| u32::from(((x[1] as i16) >> (x[0] & 15)) as u16))),
    ("v_max_u16_e32 vR, v10, v11", Check::Lane(|x, _| u32::from((x[0] as u16).max(x[1] as u16)))),
    ("v_min_i16_e32 vR, v10, v11", Check::Lane(|x, _| u32::from((x[0] as i16).min(x[1] as i16) as u16))),
    ("v_bcnt_u32_b32 vR, v10, v11", Check::Lane(|x, _| x[0].count_ones().wrapping_add(x[1]))),
    ("s_mov_b32 s28, 0x0c010704\n v_perm_b32 vR, v10, v11, s28", Check::Lane(|x, _| { let b = |k: u32| (u64v(x[1], x[0]) >> (8 * k)) as u8 as u32; b(4) | b(7) << 8 | b(1) << 16 })),
    ("v_cmp_lt_u32_e32 vcc, v10, v11\n v_cndmask_b32_e32 vR, v12, v13, vcc", Check::Lane(|x, _| if x[0] < x[1] { x[3] } else { x[2] })),
    ("v_cmp_lt_u32_e32 vcc, v10, v11\n v_addc_co_u32_e32 vR, vcc, v10, v11, vcc", Check::Lane(|x, _| x[0].wrapping_add(x[1]).wrapping_add(u32::from(x[0] < x[1])))),
    ("v_cmp_lt_u32_e32 vcc, v10, v11\n v_addc_co_u32_e32 vR, vcc, v10, v11, vcc\n MASK", Check::Mask(|x, _| (u64::from(x[0]) + u64::from(x[1]) + u64::from(x[0] < x[1])) >> 32 != 0)),
    ("v_add_co_u32_e64 vR, s[30:31], v10, v10\n SMASK", Check::Mask(|x, _| x[0] >> 31 == 1)),
    ("v_sub_co_u32_e64 vR, s[30:31], v10, v10\n SMASK", Check::Mask(|_, _| false)),
    ("v_subrev_co_u32_e32 vR, vcc, v10, v11\n MASK", Check::Mask(|x, _| x[0] > x[1])),
    ("v_mad_u64_u32 v[6:7], s[30:31], v10, v11, v[12:13]\n v_xor_b32_e32 vR, v6, v7", Check::Lane(|x, _| { let r = (u64::from(x[0]) * u64::from(x[1])).wrapping_add(u64v(x[2], x[3])); r as u32 ^ (r >> 32) as u32 })),
    ("v_mad_u64_u32 v[6:7], s[30:31], v10, v11, v[12:13]\n SMASK", Check::Mask(|x, _| (u128::from(x[0]) * u128::from(x[1]) + u128::from(u64v(x[2], x[3]))) >> 64 != 0)),
    ("v_lshrrev_b64 v[6:7], v10, v[12:13]\n v_xor_b32_e32 vR, v6, v7", Check::Lane(|x, _| { let r = u64v(x[2], x[3]) >> (x[0] & 63); r as u32 ^ (r >> 32) as u32 })),
    ("v_add_f32_e32 vR, v12, v13", Check::Float(|x, _| fo(f32v(x[2]) + f32v(x[3])))),
    ("v_sub_f32_e32 vR, v12, v13", Check::Float(|x, _| fo(f32v(x[2]) - f32v(x[3])))),
    ("v_subrev_f32_e32 vR, v12, v13", Check::Float(|x, _| fo(f32v(x[3]) - f32v(x[2])))),
    ("v_mul_f32_e64 vR, -v12, |v13|", Check::Float(|x, _| fo(-f32v(x[2]) * f32v(x[3]).abs()))),
    ("v_fma_f32 vR, v12, v13, v14", Check::Float(|x, _| fo(f32v(x[2]).mul_add(f32v(x[3]), f32v(x[4]))))),
    ("v_mov_b32_e32 vR, v14\n v_fmac_f32_e32 vR, v12, v13", Check::Float(|x, _| fo(f32v(x[2]).mul_add(f32v(x[3]), f32v(x[4]))))),
    ("v_add_f32_e64 vR, v12, v13 clamp", Check::Lane(|x, _| { let r = f32::from_bits(fo(f32v(x[2]) + f32v(x[3]))); if r.is_nan() { 0 } else { r.clamp(0.0, 1.0).to_bits() } })),
    ("v_mul_f32_e64 vR, v12, v13 mul:2", Check::Lane(|x, _| fo(f32v(x[2]) * f32v(x[3]) * 2.0))),
    ("v_rcp_f32_e32 vR, v12", Check::Float(|x, _| fo(1.0 / f32v(x[2])))),
    ("v_sqrt_f32_e32 vR, v12", Check::Float(|x, _| fo(f32v(x[2]).sqrt()))),
    ("v_floor_f32_e32 vR, v12", Check::Float(|x, _| fo(f32v(x[2]).floor()))),
    ("v_rndne_f32_e32 vR, v12", Check::Float(|x, _| fo(f32v(x[2]).round_ties_even()))),
    ("v_cvt_f32_i32_e32 vR, v10", Check::Lane(|x, _| (x[0] as i32 as f32).to_bits())),
    ("v_cvt_u32_f32_e32 vR, v12", Check::Lane(|x, _| { let f = f32::from_bits(x[2]); if f.is_nan() { 0 } else { f as u32 } })),
    ("v_cvt_f32_ubyte2_e32 vR, v10", Check::Lane(|x, _| ((x[0] >> 16 & 0xff) as f32).to_bits())),
    ("v_add_f64 v[6:7], v[12:13], v[14:15]\n v_xor_b32_e32 vR, v6, v7", Check::Lane(|x, _| fold64(f64v(x[2], x[3]) + f64v(x[4], x[5])))),
    ("v_fma_f64 v[6:7], -v[12:13], v[14:15], v[12:13]\n v_xor_b32_e32 vR, v6, v7", Check::Lane(|x, _| fold64((-f64v(x[2], x[3])).mul_add(f64v(x[4], x[5]), f64v(x[2], x[3]))))),
    ("v_cvt_f64_i32_e32 v[6:7], v10\n v_xor_b32_e32 vR, v6, v7", Check::Lane(|x, _| fold64(f64::from(x[0] as i32)))),
    ("v_cvt_i32_f64_e32 vR, v[12:13]", Check::Lane(|x, _| { let f = f64v(x[2], x[3]); if f.is_nan() { 0 } else { f as i32 as u32 } })),
    ("s_mov_b32 s30, s21\n s_bitset0_b32 s30, s20\n SCALAR", Check::Uniform(|u| u[1] & !(1 << (u[0] & 31)))),
    ("s_mov_b32 s30, s21\n s_bitset1_b32 s30, s22\n SCALAR", Check::Uniform(|u| u[1] | 1 << (u[2] & 31))),
    (
        "s_mov_b64 s[30:31], s[20:21]\n s_bitset0_b64 s[30:31], s22\n s_mov_b32 s30, s31\n SCALAR",
        Check::Uniform(|u| ((u64v(u[0], u[1]) & !(1u64 << (u[2] & 63))) >> 32) as u32),
    ),
    ("s_getreg_b32 s30, hwreg(HW_REG_SH_MEM_BASES, 16, 16)\n SCALAR", Check::Uniform(|_| 0x1000)),
    ("s_getreg_b32 s30, hwreg(HW_REG_SH_MEM_BASES, 0, 16)\n SCALAR", Check::Uniform(|_| 0x2000)),
    (
        "s_movk_i32 s30, 0x8000\n s_cmpk_eq_u32 s30, 0x8000\n s_cselect_b32 s30, 1, 0\n SCALAR",
        Check::Uniform(|_| 0),
    ),
    (
        "s_mov_b32 s30, 0x8000\n s_cmpk_eq_u32 s30, 0x8000\n s_cselect_b32 s30, 1, 0\n SCALAR",
        Check::Uniform(|_| 1),
    ),
    (
        "s_cmpk_lt_i32 s20, 0x8000\n s_cselect_b32 s30, 1, 0\n SCALAR",
        Check::Uniform(|u| u32::from((u[0] as i32) < -0x8000)),
    ),
    (
        "s_cmpk_gt_u32 s20, 0xfff0\n s_cselect_b32 s30, 1, 0\n SCALAR",
        Check::Uniform(|u| u32::from(u[0] > 0xfff0)),
    ),
    ("s_bcnt0_i32_b32 s30, s20\n SCALAR", Check::Uniform(|u| u[0].count_zeros())),
    ("s_ff0_i32_b32 s30, s20\n SCALAR", Check::Uniform(|u| if u[0] == u32::MAX { u32::MAX } else { (!u[0]).trailing_zeros() })),
    ("s_absdiff_i32 s30, s20, s21\n SCALAR", Check::Uniform(|u| (u[0] as i32).wrapping_sub(u[1] as i32).wrapping_abs() as u32)),
    (
        "s_quadmask_b32 s30, s20\n SCALAR",
        Check::Uniform(|u| (0..8).filter(|q| u[0] >> (4 * q) & 0xf != 0).map(|q| 1 << q).sum()),
    ),
    (
        "s_bfe_u64 s[30:31], s[20:21], s22\n SCALAR",
        Check::Uniform(|u| {
            let (off, wid) = (u[2] & 63, (u[2] >> 16) & 127);
            let v = u64v(u[0], u[1]) >> off;
            (if wid >= 64 { v } else { v & ((1u64 << wid) - 1) }) as u32
        }),
    ),
    (
        // The low half is an active lane count once EXEC is the pattern.
        "s_nand_saveexec_b64 s[30:31], s[20:21]\n s_mov_b64 s[32:33], exec\n RESTORE\n s_xor_b32 s30, s30, s32\n SCALAR",
        Check::Uniform(|u| u[6] ^ !(u[0] & u[6])),
    ),
    // ---- Every scalar operation (SOP1/SOP2/SOPC/SOPK): the result, and
    // with "SCC" SCC folded into bit 31 (s29 = SCC ? 1 << 31 : 0). 64-bit
    // results are folded to 32 bits with "HI" (s30 ^= s31 before SCC).
    ("s_not_b32 s30, s20\n SCC\n SCALAR", Check::Uniform(|u| sc(!u[0], !u[0] != 0))),
    ("s_not_b64 s[30:31], s[20:21]\n HI\n SCALAR", Check::Uniform(|u| !u[0] ^ !u[1])),
    ("s_brev_b32 s30, s20\n SCALAR", Check::Uniform(|u| u[0].reverse_bits())),
    ("s_brev_b64 s[30:31], s[20:21]\n SCALAR", Check::Uniform(|u| u[1].reverse_bits())),
    ("s_sext_i32_i8 s30, s20\n SCALAR", Check::Uniform(|u| u[0] as u8 as i8 as i32 as u32)),
    ("s_sext_i32_i16 s30, s20\n SCALAR", Check::Uniform(|u| u[0] as u16 as i16 as i32 as u32)),
    ("s_abs_i32 s30, s20\n SCC\n SCALAR", Check::Uniform(|u| { let r = (u[0] as i32).unsigned_abs(); sc(r, r != 0) })),
    ("s_abs_i32 s30, 0x80000000\n SCC\n SCALAR", Check::Uniform(|_| sc(0x8000_0000, true))),
    ("s_bcnt1_i32_b32 s30, s20\n SCC\n SCALAR", Check::Uniform(|u| sc(u[0].count_ones(), u[0] != 0))),
    ("s_bcnt1_i32_b64 s30, s[20:21]\n SCC\n SCALAR", Check::Uniform(|u| { let r = u64v(u[0], u[1]).count_ones(); sc(r, r != 0) })),
    ("s_bcnt0_i32_b64 s30, s[20:21]\n SCC\n SCALAR", Check::Uniform(|u| { let r = u64v(u[0], u[1]).count_zeros(); sc(r, r != 0) })),
    ("s_and_b32 s28, s20, 0xff\n s_bcnt0_i32_b32 s30, s28\n SCALAR", Check::Uniform(|u| (u[0] & 0xff).count_zeros())),
    ("s_and_b32 s28, s20, 0xfff00\n s_ff1_i32_b32 s30, s28\n SCALAR", Check::Uniform(|u| ffs(u[0] & 0xfff00))),
    ("s_mov_b32 s28, 0\n s_mov_b32 s29, s21\n s_ff1_i32_b64 s30, s[28:29]\n SCALAR", Check::Uniform(|u| if u[1] == 0 { u32::MAX } else { 32 + u[1].trailing_zeros() })),
    ("s_ff0_i32_b64 s30, s[20:21]\n SCALAR", Check::Uniform(|u| { let v = !u64v(u[0], u[1]); if v == 0 { u32::MAX } else { v.trailing_zeros() } })),
    ("s_flbit_i32_b32 s30, s20\n SCALAR", Check::Uniform(|u| if u[0] == 0 { u32::MAX } else { u[0].leading_zeros() })),
    ("s_lshr_b32 s28, s20, s21\n s_flbit_i32_b32 s30, s28\n SCALAR", Check::Uniform(|u| { let v = u[0] >> (u[1] & 31); if v == 0 { u32::MAX } else { v.leading_zeros() } })),
    ("s_flbit_i32_b64 s30, s[20:21]\n SCALAR", Check::Uniform(|u| { let v = u64v(u[0], u[1]); if v == 0 { u32::MAX } else { v.leading_zeros() } })),
    ("s_flbit_i32 s30, s20\n SCALAR", Check::Uniform(|u| { let v = if (u[0] as i32) < 0 { !u[0] } else { u[0] }; if v == 0 { u32::MAX } else { v.leading_zeros() } })),
    ("s_flbit_i32_i64 s30, s[20:21]\n SCALAR", Check::Uniform(|u| { let v = u64v(u[0], u[1]); let v = if (v as i64) < 0 { !v } else { v }; if v == 0 { u32::MAX } else { v.leading_zeros() } })),
    ("s_bitreplicate_b64_b32 s[30:31], s20\n HI\n SCALAR", Check::Uniform(|u| { let r: u64 = (0..32).filter(|b| u[0] >> b & 1 != 0).map(|b| 3u64 << (2 * b)).sum(); (r as u32) ^ (r >> 32) as u32 })),
    ("s_quadmask_b64 s[30:31], s[20:21]\n SCC\n SCALAR", Check::Uniform(|u| { let v = u64v(u[0], u[1]); let r: u32 = (0..16).filter(|q| v >> (4 * q) & 0xf != 0).map(|q| 1 << q).sum(); sc(r, r != 0) })),
    ("s_and_b32 s28, s20, 0x10204080\n s_wqm_b32 s30, s28\n SCC\n SCALAR", Check::Uniform(|u| { let v = u[0] & 0x1020_4080; let r: u32 = (0..8).filter(|q| v >> (4 * q) & 0xf != 0).map(|q| 0xf << (4 * q)).sum(); sc(r, r != 0) })),
    ("s_wqm_b64 s[30:31], s[20:21]\n HI\n SCALAR", Check::Uniform(|u| { let v = u64v(u[0], u[1]); let r: u64 = (0..16).filter(|q| v >> (4 * q) & 0xf != 0).map(|q| 0xfu64 << (4 * q)).sum(); (r as u32) ^ (r >> 32) as u32 })),
    ("s_mov_b32 s30, s22\n s_cmp_lt_u32 s20, s21\n s_cmov_b32 s30, s23\n SCALAR", Check::Uniform(|u| if u[0] < u[1] { u[3] } else { u[2] })),
    ("s_mov_b64 s[30:31], s[22:23]\n s_cmp_lt_u32 s20, s21\n s_cmov_b64 s[30:31], s[24:25]\n HI\n SCALAR", Check::Uniform(|u| if u[0] < u[1] { u[4] ^ u[5] } else { u[2] ^ u[3] })),
    ("s_mov_b32 s30, s22\n s_cmp_lt_u32 s20, s21\n s_cmovk_i32 s30, 0x8765\n SCALAR", Check::Uniform(|u| if u[0] < u[1] { 0xffff_8765 } else { u[2] })),
    // saveexec: s30 = the old EXEC's low half ^ the new one's; SCC = new EXEC != 0.
    ("s_and_saveexec_b64 s[30:31], s[20:21]\n SAVEEXEC", Check::Uniform(|u| sx(u, |s, e| s & e))),
    ("s_or_saveexec_b64 s[30:31], s[20:21]\n SAVEEXEC", Check::Uniform(|u| sx(u, |s, e| s | e))),
    ("s_xor_saveexec_b64 s[30:31], s[20:21]\n SAVEEXEC", Check::Uniform(|u| sx(u, |s, e| s ^ e))),
    ("s_andn2_saveexec_b64 s[30:31], s[20:21]\n SAVEEXEC", Check::Uniform(|u| sx(u, |s, e| s & !e))),
    ("s_orn2_saveexec_b64 s[30:31], s[20:21]\n SAVEEXEC", Check::Uniform(|u| sx(u, |s, e| s | !e))),
    ("s_nor_saveexec_b64 s[30:31], s[20:21]\n SAVEEXEC", Check::Uniform(|u| sx(u, |s, e| !(s | e)))),
    ("s_xnor_saveexec_b64 s[30:31], s[20:21]\n SAVEEXEC", Check::Uniform(|u| sx(u, |s, e| !(s ^ e)))),
    ("s_andn1_saveexec_b64 s[30:31], s[20:21]\n SAVEEXEC", Check::Uniform(|u| sx(u, |s, e| !s & e))),
    ("s_orn1_saveexec_b64 s[30:31], s[20:21]\n SAVEEXEC", Check::Uniform(|u| sx(u, |s, e| !s | e))),
    // wrexec: SDST = the new EXEC.
    ("s_andn1_wrexec_b64 s[30:31], s[20:21]\n s_cselect_b32 s29, 0x80000000, 0\n RESTORE\n s_xor_b32 s30, s30, s29\n SCALAR", Check::Uniform(|u| { let n = !u64v(u[0], u[1]) & u64v(u[6], u[7]); sc(n as u32, n != 0) })),
    ("s_andn2_wrexec_b64 s[30:31], s[20:21]\n s_cselect_b32 s29, 0x80000000, 0\n RESTORE\n s_xor_b32 s30, s30, s29\n SCALAR", Check::Uniform(|u| { let n = u64v(u[0], u[1]) & !u64v(u[6], u[7]); sc(n as u32, n != 0) })),
    ("s_add_u32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| { let (r, c) = u[0].overflowing_add(u[1]); sc(r, c) })),
    ("s_sub_u32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| sc(u[0].wrapping_sub(u[1]), u[1] > u[0]))),
    ("s_add_i32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| { let (r, o) = (u[0] as i32).overflowing_add(u[1] as i32); sc(r as u32, o) })),
    ("s_sub_i32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| { let (r, o) = (u[0] as i32).overflowing_sub(u[1] as i32); sc(r as u32, o) })),
    ("s_cmp_lt_u32 s22, s23\n s_addc_u32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| { let t = u64::from(u[0]) + u64::from(u[1]) + u64::from(u[2] < u[3]); sc(t as u32, t >> 32 != 0) })),
    ("s_cmp_lt_u32 s22, s23\n s_subb_u32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| { let ci = u32::from(u[2] < u[3]); sc(u[0].wrapping_sub(u[1]).wrapping_sub(ci), u64::from(u[1]) + u64::from(ci) > u64::from(u[0])) })),
    ("s_mul_i32 s30, s20, s21\n SCALAR", Check::Uniform(|u| u[0].wrapping_mul(u[1]))),
    ("s_mul_hi_u32 s30, s20, s21\n SCALAR", Check::Uniform(|u| ((u64::from(u[0]) * u64::from(u[1])) >> 32) as u32)),
    ("s_mul_hi_i32 s30, s20, s21\n SCALAR", Check::Uniform(|u| ((i64::from(u[0] as i32) * i64::from(u[1] as i32)) >> 32) as u32)),
    ("s_and_b32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| nz(u[0] & u[1]))),
    ("s_or_b32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| nz(u[0] | u[1]))),
    ("s_xor_b32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| nz(u[0] ^ u[1]))),
    ("s_andn2_b32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| nz(u[0] & !u[1]))),
    ("s_orn2_b32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| nz(u[0] | !u[1]))),
    ("s_nand_b32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| nz(!(u[0] & u[1])))),
    ("s_nor_b32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| nz(!(u[0] | u[1])))),
    ("s_xnor_b32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| nz(!(u[0] ^ u[1])))),
    ("s_and_b64 s[30:31], s[20:21], s[22:23]\n SCC64\n SCALAR", Check::Uniform(|u| nz64(u64v(u[0], u[1]) & u64v(u[2], u[3])))),
    ("s_or_b64 s[30:31], s[20:21], s[22:23]\n SCC64\n SCALAR", Check::Uniform(|u| nz64(u64v(u[0], u[1]) | u64v(u[2], u[3])))),
    ("s_xor_b64 s[30:31], s[20:21], s[20:21]\n SCC64\n SCALAR", Check::Uniform(|_| nz64(0))),
    ("s_andn2_b64 s[30:31], s[20:21], s[22:23]\n SCC64\n SCALAR", Check::Uniform(|u| nz64(u64v(u[0], u[1]) & !u64v(u[2], u[3])))),
    ("s_orn2_b64 s[30:31], s[20:21], s[22:23]\n SCC64\n SCALAR", Check::Uniform(|u| nz64(u64v(u[0], u[1]) | !u64v(u[2], u[3])))),
    ("s_nand_b64 s[30:31], s[20:21], s[22:23]\n SCC64\n SCALAR", Check::Uniform(|u| nz64(!(u64v(u[0], u[1]) & u64v(u[2], u[3]))))),
    ("s_nor_b64 s[30:31], s[20:21], s[22:23]\n SCC64\n SCALAR", Check::Uniform(|u| nz64(!(u64v(u[0], u[1]) | u64v(u[2], u[3]))))),
    ("s_xnor_b64 s[30:31], s[20:21], s[22:23]\n SCC64\n SCALAR", Check::Uniform(|u| nz64(!(u64v(u[0], u[1]) ^ u64v(u[2], u[3]))))),
    ("s_lshl_b32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| nz(u[0] << (u[1] & 31)))),
    ("s_lshr_b32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| nz(u[0] >> (u[1] & 31)))),
    ("s_ashr_i32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| nz(((u[0] as i32) >> (u[1] & 31)) as u32))),
    ("s_lshl_b64 s[30:31], s[20:21], s22\n SCC64\n SCALAR", Check::Uniform(|u| nz64(u64v(u[0], u[1]) << (u[2] & 63)))),
    ("s_lshr_b64 s[30:31], s[20:21], s22\n SCC64\n SCALAR", Check::Uniform(|u| nz64(u64v(u[0], u[1]) >> (u[2] & 63)))),
    ("s_ashr_i64 s[30:31], s[20:21], s22\n SCC64\n SCALAR", Check::Uniform(|u| nz64(((u64v(u[0], u[1]) as i64) >> (u[2] & 63)) as u64))),
    ("s_lshl1_add_u32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| lsha(1, u[0], u[1]))),
    ("s_lshl2_add_u32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| lsha(2, u[0], u[1]))),
    ("s_lshl3_add_u32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| lsha(3, u[0], u[1]))),
    ("s_lshl4_add_u32 s30, s20, s21\n SCC\n SCALAR", Check::Uniform(|u| lsha(4, u[0], u[1]))),
    ("s_min_i32 s30, s20, s22\n SCC\n SCALAR", Check::Uniform(|u| sc((u[0] as i32).min(u[2] as i32) as u32, (u[0] as i32) < (u[2] as i32)))),
    ("s_min_u32 s30, s20, s22\n SCC\n SCALAR", Check::Uniform(|u| sc(u[0].min(u[2]), u[0] < u[2]))),
    ("s_max_i32 s30, s20, s22\n SCC\n SCALAR", Check::Uniform(|u| sc((u[0] as i32).max(u[2] as i32) as u32, (u[0] as i32) > (u[2] as i32)))),
    ("s_max_u32 s30, s20, s22\n SCC\n SCALAR", Check::Uniform(|u| sc(u[0].max(u[2]), u[0] > u[2]))),
    // Equal operands: SCC is clear for min and max alike (strict compares).
    ("s_max_u32 s30, s20, s20\n SCC\n SCALAR", Check::Uniform(|u| sc(u[0], false))),
    ("s_max_i32 s30, s21, s21\n SCC\n SCALAR", Check::Uniform(|u| sc(u[1], false))),
    ("s_min_u32 s30, s20, s20\n SCC\n SCALAR", Check::Uniform(|u| sc(u[0], false))),
    ("s_cmp_lt_u32 s22, s23\n s_cselect_b32 s30, s20, s21\n SCALAR", Check::Uniform(|u| if u[2] < u[3] { u[0] } else { u[1] })),
    ("s_cmp_lt_u32 s22, s23\n s_cselect_b64 s[30:31], s[20:21], s[24:25]\n HI\n SCALAR", Check::Uniform(|u| if u[2] < u[3] { u[0] ^ u[1] } else { u[4] ^ u[5] })),
    ("s_and_b32 s28, s21, 0x3f001f\n s_bfe_u32 s30, s20, s28\n SCC\n SCALAR", Check::Uniform(|u| { let c = u[1] & 0x3f_001f; nz(bfe64(u64::from(u[0]), c & 31, c >> 16, 32, false) as u32) })),
    ("s_and_b32 s28, s21, 0x3f001f\n s_bfe_i32 s30, s20, s28\n SCC\n SCALAR", Check::Uniform(|u| { let c = u[1] & 0x3f_001f; nz(bfe64(u64::from(u[0]), c & 31, c >> 16, 32, true) as u32) })),
    ("s_and_b32 s28, s22, 0x7f003f\n s_bfe_i64 s[30:31], s[20:21], s28\n SCC64\n SCALAR", Check::Uniform(|u| { let c = u[2] & 0x7f_003f; nz64(bfe64(u64v(u[0], u[1]), c & 63, c >> 16, 64, true)) })),
    ("s_bfm_b32 s30, s20, s21\n SCALAR", Check::Uniform(|u| ((1u64 << (u[0] & 31)) as u32).wrapping_sub(1) << (u[1] & 31))),
    ("s_bfm_b64 s[30:31], s20, s21\n HI\n SCALAR", Check::Uniform(|u| { let r = ((1u128 << (u[0] & 63)) as u64).wrapping_sub(1) << (u[1] & 63); (r as u32) ^ (r >> 32) as u32 })),
    ("s_pack_ll_b32_b16 s30, s20, s21\n SCALAR", Check::Uniform(|u| u[0] & 0xffff | u[1] << 16)),
    ("s_pack_lh_b32_b16 s30, s20, s21\n SCALAR", Check::Uniform(|u| u[0] & 0xffff | u[1] & 0xffff_0000)),
    ("s_pack_hh_b32_b16 s30, s20, s21\n SCALAR", Check::Uniform(|u| u[0] >> 16 | u[1] & 0xffff_0000)),
    ("s_bitcmp0_b32 s20, s21\n s_cselect_b32 s30, 1, 0\n SCALAR", Check::Uniform(|u| u32::from(u[0] >> (u[1] & 31) & 1 == 0))),
    ("s_bitcmp1_b32 s20, s21\n s_cselect_b32 s30, 1, 0\n SCALAR", Check::Uniform(|u| u32::from(u[0] >> (u[1] & 31) & 1 == 1))),
    ("s_bitcmp0_b64 s[20:21], s22\n s_cselect_b32 s30, 1, 0\n SCALAR", Check::Uniform(|u| u32::from(u64v(u[0], u[1]) >> (u[2] & 63) & 1 == 0))),
    ("s_bitcmp1_b64 s[20:21], s22\n s_cselect_b32 s30, 1, 0\n SCALAR", Check::Uniform(|u| u32::from(u64v(u[0], u[1]) >> (u[2] & 63) & 1 == 1))),
    ("s_mov_b32 s30, s20\n s_addk_i32 s30, 0x9abc\n SCC\n SCALAR", Check::Uniform(|u| { let (r, o) = (u[0] as i32).overflowing_add(0x9abc_u16 as i16 as i32); sc(r as u32, o) })),
    ("s_mov_b32 s30, s20\n s_mulk_i32 s30, 0x9abc\n SCALAR", Check::Uniform(|u| u[0].wrapping_mul(0x9abc_u16 as i16 as i32 as u32))),
];

/// A scalar result with SCC in bit 31 (the "SCC" fold).
fn sc(r: u32, scc: bool) -> u32 {
    r ^ u32::from(scc) << 31
}
/// A result whose SCC is "result != 0".
fn nz(r: u32) -> u32 {
    sc(r, r != 0)
}
/// A 64-bit result folded to 32 bits, with SCC = "result != 0".
fn nz64(r: u64) -> u32 {
    sc(r as u32 ^ (r >> 32) as u32, r != 0)
}
/// `s_lshlN_add_u32`: SCC is the carry out of the 64-bit `(a << n) + b`.
fn lsha(n: u32, a: u32, b: u32) -> u32 {
    let v = (u64::from(a) << n) + u64::from(b);
    sc(v as u32, v >> 32 != 0)
}
/// Index of the lowest set bit, or -1.
fn ffs(x: u32) -> u32 {
    if x == 0 {
        u32::MAX
    } else {
        x.trailing_zeros()
    }
}
/// A bit-field extract of `bits`-bit `v`: `width` bits from `off`, sign-
/// extended when `signed`; a width of 0 gives 0, a width of `bits` or
/// more the whole shifted value.
fn bfe64(v: u64, off: u32, width: u32, bits: u32, signed: bool) -> u64 {
    let v = v >> off;
    if width == 0 {
        return 0;
    }
    if width >= bits {
        return v;
    }
    let m = (1u64 << width) - 1;
    let f = v & m;
    if signed && (f >> (width - 1)) & 1 == 1 {
        f | !m
    } else {
        f
    }
}
/// `s_<op>_saveexec_b64 s[30:31], s[20:21]` under the wave's EXEC
/// pattern: the old EXEC's low half ^ the new one's, SCC = new EXEC != 0.
fn sx(u: &[u32], f: fn(u64, u64) -> u64) -> u32 {
    let e = u64v(u[6], u[7]);
    let n = f(u64v(u[0], u[1]), e);
    sc(e as u32 ^ n as u32, n != 0)
}

/// Whether the kernel runs with f32 denormals flushed (MODE), for the
/// references.
static FLUSH: AtomicBool = AtomicBool::new(false);

/// An f32 operand as a compare sees it: denormals read as signed zeros
/// when MODE flushes them.
fn f32v(x: u32) -> f32 {
    let v = f32::from_bits(x);
    if FLUSH.load(Relaxed) && v.is_subnormal() {
        f32::from_bits(x & 0x8000_0000)
    } else {
        v
    }
}

/// An f32 result as the hardware writes it: denormals flushed to signed
/// zeros when MODE flushes them.
fn fo(r: f32) -> u32 {
    f32v(r.to_bits()).to_bits()
}

/// An f64 result's bits folded to 32 (low ^ high).
fn fold64(r: f64) -> u32 {
    let b = r.to_bits();
    b as u32 ^ (b >> 32) as u32
}

fn f16(x: u32) -> f32 {
    // IEEE half from its bits, exactly (independent of the emulator).
    let h = x as u16;
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let e = i32::from(h >> 10 & 0x1f);
    let m = f32::from(h & 0x3ff);
    sign * match e {
        0 => m * 2f32.powi(-24),
        31 if m == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        _ => (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    }
}

fn class_f16(h: u16) -> u32 {
    let (neg, e, m) = (h >> 15 == 1, h >> 10 & 0x1f, h & 0x3ff);
    let bit = match (e, m) {
        (31, 0) => {
            if neg {
                2
            } else {
                9
            }
        }
        (31, m) if m & 0x200 != 0 => 1,
        (31, _) => 0,
        (0, 0) => {
            if neg {
                5
            } else {
                6
            }
        }
        (0, _) => {
            if neg {
                4
            } else {
                7
            }
        }
        _ => {
            if neg {
                3
            } else {
                8
            }
        }
    };
    1 << bit
}

fn u64v(lo: u32, hi: u32) -> u64 {
    u64::from(lo) | u64::from(hi) << 32
}

fn f64v(lo: u32, hi: u32) -> f64 {
    f64::from_bits(u64v(lo, hi))
}

/// Result registers of each case: 2 for masks, 1 otherwise.
fn width(c: &Check) -> u32 {
    match c {
        Check::Mask(_) => 2,
        _ => 1,
    }
}

fn asm(target: &str, flush: bool) -> (String, u32) {
    let mut ops = String::new();
    let mut r = 40u32;
    for (line, check) in CASES {
        let l = line
            .replace("SMASK", "v_mov_b32_e32 vR, s30\n v_mov_b32_e32 vQ, s31")
            .replace(
                "MASK",
                "v_mov_b32_e32 vR, vcc_lo\n v_mov_b32_e32 vQ, vcc_hi",
            )
            .replace(
                "SAVEEXEC",
                "s_cselect_b32 s29, 0x80000000, 0\n s_mov_b64 s[32:33], exec\n RESTORE\n \
                 s_xor_b32 s30, s30, s32\n s_xor_b32 s30, s30, s29\n SCALAR",
            )
            .replace(
                "SCC64",
                "s_cselect_b32 s29, 0x80000000, 0\n s_xor_b32 s30, s30, s31\n s_xor_b32 s30, s30, s29",
            )
            .replace("SCC", "s_cselect_b32 s29, 0x80000000, 0\n s_xor_b32 s30, s30, s29")
            .replace("HI", "s_xor_b32 s30, s30, s31")
            .replace("SCALAR", "v_mov_b32_e32 vR, s30")
            .replace("RESTORE", "s_mov_b32 exec_lo, s26\n s_mov_b32 exec_hi, s27")
            .replace("vR", &format!("v{r}"))
            .replace("vQ", &format!("v{}", r + 1));
        ops += &format!("  {l}\n");
        r += width(check);
    }
    let results = r - 40;
    let stores = common::stores(results);
    let body = common::under_wave_exec(&ops, results);
    let text = common::kernel(
        target,
        "semops",
        &body,
        &stores,
        results,
        &format!(
            "  .amdhsa_float_denorm_mode_32 {}\n  .amdhsa_float_denorm_mode_16_64 3",
            if flush { 0 } else { 3 }
        ),
    );
    (text, results)
}

/// Per lane 8 dwords. Dword 1 is dword 0 with some bytes or halves
/// changed (so 16-bit and byte compares often see equal operands), dwords
/// 2-5 floats (f32 and f16 halves with specials). The uniform inputs of
/// wave `g` are lane `g`'s dwords; its dwords 6-7 are wave `g`'s EXEC
/// pattern.
fn inputs() -> Vec<u32> {
    let mut rng = Rng::new(0x5e70);
    let lanes = (WAVES * 64) as usize;
    let mut v = vec![0u32; lanes * IN];
    for l in 0..lanes {
        let x = &mut v[l * IN..(l + 1) * IN];
        x[0] = rng.u32();
        let flip = rng.pick(&[0, 0xffff_0000, 0xff00_ff00, 0x0000_ffff, u32::MAX, 0xff]);
        x[1] = x[0] ^ (rng.u32() & flip);
        for v in x.iter_mut().take(6).skip(2) {
            *v = if rng.below(4) == 0 {
                // f16 halves: specials, denormals, equal values.
                let h = rng.pick(&[
                    0u32, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7d00, 0x0001, 0x83ff, 0x3c00,
                ]);
                h | rng.pick(&[0u32, 0x3c00, 0x8000]) << 16
            } else {
                rng.f32()
            };
        }
        if rng.below(5) == 0 {
            x[3] = x[2];
        }
        x[6] = rng.u32();
        x[7] = rng.u32();
    }
    common::exec_patterns(&mut v, || rng.u32());
    v
}

/// Runs the kernel; `fast` picks the fast tier's µops where they exist,
/// otherwise every instruction runs through the general handlers (both
/// tiers are checked against the references).
fn run(co: &[u8], target: &str, results: u32, input: &[u32], fast: bool) -> Vec<u32> {
    let opts = Options {
        threads: 1,
        fast_tier: fast,
        ..Options::default()
    };
    common::launch(co, target, "semops", results, input, &opts).0
}

#[test]
fn described_operations_match_the_reference() {
    let input = inputs();
    for (target, flush, fast) in [
        ("gfx90a", false, true),
        ("gfx942", false, true),
        ("gfx90a", true, true),
        ("gfx90a", false, false),
    ] {
        FLUSH.store(flush, Relaxed);
        let (text, results) = asm(target, flush);
        let path = lathe_testkit::assemble_shared(target, "semops", &text);
        let co = std::fs::read(&path).expect("code object");
        let out = run(&co, target, results, &input, fast);
        let mut failures = Vec::new();
        for g in 0..WAVES as usize {
            let uni = &input[g * IN..(g + 1) * IN];
            let exec = u64v(uni[6], uni[7]);
            let mut r = 0usize;
            for (line, check) in CASES {
                // The wave's mask under its EXEC pattern.
                let mask: u64 = (0..64)
                    .filter(|l| exec >> l & 1 == 1)
                    .filter(|l| match check {
                        Check::Mask(f) => {
                            let x = &input[(g * 64 + l) * IN..(g * 64 + l + 1) * IN];
                            f(x, uni)
                        }
                        _ => false,
                    })
                    .fold(0, |m, l| m | 1 << l);
                for l in 0..64 {
                    let lane = g * 64 + l;
                    let x = &input[lane * IN..(lane + 1) * IN];
                    let got = |k: usize| out[lane * results as usize + r + k];
                    let active = exec >> l & 1 == 1;
                    let want: Vec<u32> = match (active, check) {
                        (false, c) => vec![SENTINEL; width(c) as usize],
                        (true, Check::Lane(f) | Check::Float(f)) => vec![f(x, uni)],
                        (true, Check::Uniform(f)) => vec![f(uni)],
                        (true, Check::Mask(_)) => vec![mask as u32, (mask >> 32) as u32],
                    };
                    for (k, want) in want.iter().enumerate() {
                        let both_nan = matches!(check, Check::Float(_))
                            && f32::from_bits(got(k)).is_nan()
                            && f32::from_bits(*want).is_nan();
                        if got(k) != *want && !both_nan {
                            failures.push(format!(
                                "{target} flush={flush} fast={fast} wave {g} lane {l} `{}` result {k}: got {:#010x}, want {want:#010x} (inputs {:08x?})",
                                line.lines().next().unwrap_or(""),
                                got(k),
                                x
                            ));
                        }
                    }
                }
                r += width(check) as usize;
            }
        }
        let ops: std::collections::BTreeSet<&str> = failures
            .iter()
            .filter_map(|f| f.split('`').nth(1))
            .collect();
        assert!(
            failures.is_empty(),
            "{} mismatches in {ops:#?}, first:\n{}",
            failures.len(),
            failures[..failures.len().min(12)].join("\n")
        );
    }
}

//! Packed (VOP3P) operations: two 16-bit lanes in a 32-bit register, and the
//! gfx90a+ packed f32 operations on 64-bit register pairs.
//!
//! Operand selection: for each source, `op_sel[i]` picks which half feeds
//! the low lane and `op_sel_hi[i]` which half feeds the high lane
//! ([`pk_operand`]); float sources then take `neg_lo[i]`/`neg_hi[i]`
//! ([`pk_neg_f16`], [`pk_neg_f32`]). The interpreter applies these before
//! calling the lane-wise functions below, which work on already selected
//! `(lo, hi)` pairs packed as `lo | hi << 16` (or `lo | hi << 32`).

use super::cvt::pack_b32_b16;
use super::float;
use super::int;
use super::mode::Mode;
use super::soft::{self, F16, F32};

/// Builds the `(lo, hi)` operand from a register: `op_sel` picks the half
/// used for the low lane, `op_sel_hi` the half used for the high lane.
#[inline]
pub fn pk_operand(x: u32, op_sel: bool, op_sel_hi: bool) -> u32 {
    let lo = if op_sel { x >> 16 } else { x & 0xffff };
    let hi = if op_sel_hi { x >> 16 } else { x & 0xffff };
    lo | hi << 16
}

/// Applies `neg_lo`/`neg_hi` to a packed f16 operand (sign flips).
#[inline]
pub fn pk_neg_f16(x: u32, neg_lo: bool, neg_hi: bool) -> u32 {
    x ^ (neg_lo as u32) << 15 ^ (neg_hi as u32) << 31
}

/// Applies `neg_lo`/`neg_hi` to a packed f32 operand.
#[inline]
pub fn pk_neg_f32(x: u64, neg_lo: bool, neg_hi: bool) -> u64 {
    x ^ (neg_lo as u64) << 31 ^ (neg_hi as u64) << 63
}

#[inline]
fn lanes2(a: u32, b: u32, f: impl Fn(u16, u16) -> u16) -> u32 {
    pack_b32_b16(f(a as u16, b as u16), f((a >> 16) as u16, (b >> 16) as u16))
}

#[inline]
fn lanes3(a: u32, b: u32, c: u32, f: impl Fn(u16, u16, u16) -> u16) -> u32 {
    pack_b32_b16(
        f(a as u16, b as u16, c as u16),
        f((a >> 16) as u16, (b >> 16) as u16, (c >> 16) as u16),
    )
}

/// `v_pk_add_u16` (clamp saturates).
#[inline]
pub fn pk_add_u16(a: u32, b: u32, clamp: bool) -> u32 {
    lanes2(a, b, |x, y| int::add_u16(x, y, clamp))
}
/// `v_pk_sub_u16`.
#[inline]
pub fn pk_sub_u16(a: u32, b: u32, clamp: bool) -> u32 {
    lanes2(a, b, |x, y| int::sub_u16(x, y, clamp))
}
/// `v_pk_add_i16` (clamp saturates to i16).
#[inline]
pub fn pk_add_i16(a: u32, b: u32, clamp: bool) -> u32 {
    lanes2(a, b, |x, y| int::add_i16(x, y, clamp))
}
/// `v_pk_sub_i16`.
#[inline]
pub fn pk_sub_i16(a: u32, b: u32, clamp: bool) -> u32 {
    lanes2(a, b, |x, y| int::sub_i16(x, y, clamp))
}
/// `v_pk_mul_lo_u16`.
#[inline]
pub fn pk_mul_lo_u16(a: u32, b: u32) -> u32 {
    lanes2(a, b, |x, y| x.wrapping_mul(y))
}
/// `v_pk_mad_u16`.
#[inline]
pub fn pk_mad_u16(a: u32, b: u32, c: u32, clamp: bool) -> u32 {
    lanes3(a, b, c, |x, y, z| int::mad_u16(x, y, z, clamp))
}
/// `v_pk_mad_i16`.
#[inline]
pub fn pk_mad_i16(a: u32, b: u32, c: u32, clamp: bool) -> u32 {
    lanes3(a, b, c, |x, y, z| int::mad_i16(x, y, z, clamp))
}
/// `v_pk_lshlrev_b16`: each lane of `b` shifted by the same lane of
/// `shift` (4 bits).
#[inline]
pub fn pk_lshlrev_b16(shift: u32, b: u32) -> u32 {
    lanes2(shift, b, int::lshlrev_b16)
}
/// `v_pk_lshrrev_b16`.
#[inline]
pub fn pk_lshrrev_b16(shift: u32, b: u32) -> u32 {
    lanes2(shift, b, int::lshrrev_b16)
}
/// `v_pk_ashrrev_i16`.
#[inline]
pub fn pk_ashrrev_i16(shift: u32, b: u32) -> u32 {
    lanes2(shift, b, int::ashrrev_i16)
}
/// `v_pk_max_i16`.
#[inline]
pub fn pk_max_i16(a: u32, b: u32) -> u32 {
    lanes2(a, b, int::max_i16)
}
/// `v_pk_min_i16`.
#[inline]
pub fn pk_min_i16(a: u32, b: u32) -> u32 {
    lanes2(a, b, int::min_i16)
}
/// `v_pk_max_u16`.
#[inline]
pub fn pk_max_u16(a: u32, b: u32) -> u32 {
    lanes2(a, b, |x, y| x.max(y))
}
/// `v_pk_min_u16`.
#[inline]
pub fn pk_min_u16(a: u32, b: u32) -> u32 {
    lanes2(a, b, |x, y| x.min(y))
}

/// `v_pk_add_f16`.
#[inline]
pub fn pk_add_f16(a: u32, b: u32, m: Mode) -> u32 {
    lanes2(a, b, |x, y| float::add_f16(x, y, m))
}
/// `v_pk_mul_f16`.
#[inline]
pub fn pk_mul_f16(a: u32, b: u32, m: Mode) -> u32 {
    lanes2(a, b, |x, y| float::mul_f16(x, y, m))
}
/// `v_pk_fma_f16` / `v_pk_fmac_f16`.
#[inline]
pub fn pk_fma_f16(a: u32, b: u32, c: u32, m: Mode) -> u32 {
    lanes3(a, b, c, |x, y, z| float::fma_f16(x, y, z, m))
}
/// `v_pk_max_f16` (IEEE-mode rules of `v_max_f16`).
#[inline]
pub fn pk_max_f16(a: u32, b: u32, m: Mode) -> u32 {
    lanes2(a, b, |x, y| float::max_f16(x, y, m))
}
/// `v_pk_min_f16`.
#[inline]
pub fn pk_min_f16(a: u32, b: u32, m: Mode) -> u32 {
    lanes2(a, b, |x, y| float::min_f16(x, y, m))
}

/// `v_pk_mov_b32`: low result = the 32-bit half of `a` chosen by
/// `op_sel[0]`, high result = the half of `b` chosen by `op_sel[1]`.
#[inline]
pub fn pk_mov_b32(a: u64, b: u64, op_sel0: bool, op_sel1: bool) -> u64 {
    let lo = if op_sel0 { a >> 32 } else { a & 0xffff_ffff };
    let hi = if op_sel1 { b >> 32 } else { b & 0xffff_ffff };
    lo | hi << 32
}

/// `v_dot2_f32_f16` / `v_dot2c_f32_f16`: `c + a.lo*b.lo + a.hi*b.hi`, each
/// step an f32 operation rounded per the f32 mode, in the manual's order
/// (the products of f16 values are exact in f32).
#[inline]
pub fn dot2_f32_f16(a: u32, b: u32, c: u32, m: Mode) -> u32 {
    let p = |x: u32, y: u32| {
        let fx = super::cvt::cvt_f32_f16(x as u16, m);
        let fy = super::cvt::cvt_f32_f16(y as u16, m);
        float::mul_f32(fx, fy, m)
    };
    let t = float::add_f32(c, p(a, b), m);
    float::add_f32(t, p(a >> 16, b >> 16), m)
}
/// `v_dot2_f32_bf16`: `(a.lo*b.lo + a.hi*b.hi) + c` in f32 steps (the
/// manual's order; bf16 products are exact in f32).
#[inline]
pub fn dot2_f32_bf16(a: u32, b: u32, c: u32, m: Mode) -> u32 {
    let bf = |x: u32| super::cvt::bf16_to_f32(x as u16);
    let t = float::mul_f32(bf(a), bf(b), m);
    let t = float::add_f32(t, float::mul_f32(bf(a >> 16), bf(b >> 16), m), m);
    float::add_f32(t, c, m)
}
/// `v_mad_mix_f32` family input: `{op_sel_hi, op_sel}` = 0/1 the f32 in
/// `x`, 2 the f16 in `x[15:0]`, 3 the f16 in `x[31:16]`, converted exactly
/// to f32 bits.
#[inline]
pub fn mix_operand(x: u32, op_sel: bool, op_sel_hi: bool, m: Mode) -> u32 {
    if !op_sel_hi {
        x
    } else {
        super::cvt::cvt_f32_f16(super::cvt::half(x, op_sel), m)
    }
}
/// `v_mad_mix_f32`: fused f32 multiply-add of mixed operands (the
/// interpreter converts them with [`mix_operand`]). gfx90a's mad_mix is
/// fused (it is selected for `fma` of mixed precision).
#[inline]
pub fn mad_mix_f32(a: u32, b: u32, c: u32, m: Mode) -> u32 {
    float::fma_f32(a, b, c, m)
}
/// `v_mad_mixlo_f16`/`v_mad_mixhi_f16`: the fused multiply-add of the f32
/// operands rounded once, directly to f16 (rounding and output flushing per
/// the f16 mode; f32 denormal inputs flushed per the f32 mode). Whether the
/// hardware rounds to f32 first is not documented; this model rounds once
/// (the two agree except when the f32 rounding lands on an f16 tie).
#[inline]
pub fn mad_mix_f16(a: u32, b: u32, c: u32, m: Mode) -> u16 {
    let c32 = m.f32();
    let (a, b, c) = (
        float::flush_in::<F32>(a as u64, c32),
        float::flush_in::<F32>(b as u64, c32),
        float::flush_in::<F32>(c as u64, c32),
    );
    let r = soft::fma_convert::<F32, F16>(a, b, c, m.round_f64_f16);
    float::flush_out::<F16>(r, m.f16()) as u16
}

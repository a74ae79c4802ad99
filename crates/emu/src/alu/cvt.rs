//! Conversions between float formats and integers, normalised-integer
//! packing, bf16 helpers and 16-bit packing helpers.
//!
//! Float-to-integer conversions (`v_cvt_i32_f32` and friends) truncate
//! toward zero, saturate out-of-range values (infinities included) and turn
//! NaN into 0, as the manual states. Float-to-float conversions round once
//! in the destination precision's rounding mode and keep NaN payloads
//! (quieted, top fraction bits).

use super::float::{flush_in, flush_out};
use super::mode::{Mode, Round};
use super::soft::{self, Format, IntRound, BF16, F16, F32, F64};

/// Truncates (or otherwise rounds to an integral value) a float and
/// saturates it into `[lo, hi]`; NaN gives 0.
#[inline]
fn to_int<F: Format>(a: u64, how: IntRound, lo: i128, hi: i128) -> i128 {
    if soft::is_nan::<F>(a) {
        return 0;
    }
    if soft::is_inf::<F>(a) {
        return if soft::sign::<F>(a) { lo } else { hi };
    }
    let r = soft::round_int::<F>(a, how);
    if soft::is_zero::<F>(r) {
        return 0;
    }
    let x = soft::unpack::<F>(r);
    // r is integral: mant * 2^exp with exp possibly negative (then the
    // dropped bits are zero).
    let mag: i128 = if x.exp >= 0 {
        if x.exp > 80 {
            i128::MAX
        } else {
            (x.mant as i128).saturating_mul(1i128 << x.exp)
        }
    } else {
        (x.mant >> (-x.exp) as u32) as i128
    };
    let v = if x.neg { -mag } else { mag };
    v.clamp(lo, hi)
}

// ---- float -> int ---------------------------------------------------------

/// `v_cvt_i32_f32`: truncate, saturate, NaN -> 0.
#[inline]
pub fn cvt_i32_f32(a: u32) -> i32 {
    to_int::<F32>(
        a as u64,
        IntRound::Trunc,
        i32::MIN as i128,
        i32::MAX as i128,
    ) as i32
}
/// `v_cvt_u32_f32`: truncate, saturate (negative -> 0), NaN -> 0.
#[inline]
pub fn cvt_u32_f32(a: u32) -> u32 {
    to_int::<F32>(a as u64, IntRound::Trunc, 0, u32::MAX as i128) as u32
}
/// `v_cvt_i32_f64`.
#[inline]
pub fn cvt_i32_f64(a: u64) -> i32 {
    to_int::<F64>(a, IntRound::Trunc, i32::MIN as i128, i32::MAX as i128) as i32
}
/// `v_cvt_u32_f64`.
#[inline]
pub fn cvt_u32_f64(a: u64) -> u32 {
    to_int::<F64>(a, IntRound::Trunc, 0, u32::MAX as i128) as u32
}
/// `v_cvt_i16_f16` (truncate, saturate to i16, NaN -> 0).
#[inline]
pub fn cvt_i16_f16(a: u16) -> i16 {
    to_int::<F16>(
        a as u64,
        IntRound::Trunc,
        i16::MIN as i128,
        i16::MAX as i128,
    ) as i16
}
/// `v_cvt_u16_f16` (truncate, saturate to u16, NaN -> 0).
#[inline]
pub fn cvt_u16_f16(a: u16) -> u16 {
    to_int::<F16>(a as u64, IntRound::Trunc, 0, u16::MAX as i128) as u16
}
/// `v_cvt_rpi_i32_f32`: floor(x + 0.5) with the addition exact (so
/// 0.49999997 gives 0), saturate, NaN -> 0.
#[inline]
pub fn cvt_rpi_i32_f32(a: u32) -> i32 {
    if soft::is_nan::<F32>(a as u64) {
        return 0;
    }
    // x + 0.5 is exact in f64 for every f32 x.
    let x = f32::from_bits(a) as f64 + 0.5;
    to_int::<F64>(
        x.to_bits(),
        IntRound::Floor,
        i32::MIN as i128,
        i32::MAX as i128,
    ) as i32
}
/// `v_cvt_flr_i32_f32`: floor, saturate, NaN -> 0.
#[inline]
pub fn cvt_flr_i32_f32(a: u32) -> i32 {
    to_int::<F32>(
        a as u64,
        IntRound::Floor,
        i32::MIN as i128,
        i32::MAX as i128,
    ) as i32
}

// ---- int -> float ---------------------------------------------------------

/// `v_cvt_f32_i32`: rounded per the f32 mode.
#[inline]
pub fn cvt_f32_i32(a: i32, m: Mode) -> u32 {
    soft::from_int::<F32>(a < 0, a.unsigned_abs() as u128, m.round_f32) as u32
}
/// `v_cvt_f32_u32`: rounded per the f32 mode.
#[inline]
pub fn cvt_f32_u32(a: u32, m: Mode) -> u32 {
    soft::from_int::<F32>(false, a as u128, m.round_f32) as u32
}
/// `v_cvt_f64_i32` (exact).
#[inline]
pub fn cvt_f64_i32(a: i32) -> u64 {
    (a as f64).to_bits()
}
/// `v_cvt_f64_u32` (exact).
#[inline]
pub fn cvt_f64_u32(a: u32) -> u64 {
    (a as f64).to_bits()
}
/// `v_cvt_f16_i16`: rounded per the f16 mode.
#[inline]
pub fn cvt_f16_i16(a: i16, m: Mode) -> u16 {
    soft::from_int::<F16>(a < 0, a.unsigned_abs() as u128, m.round_f64_f16) as u16
}
/// `v_cvt_f16_u16`: rounded per the f16 mode (values above 65519 round to
/// +inf in nearest-even).
#[inline]
pub fn cvt_f16_u16(a: u16, m: Mode) -> u16 {
    soft::from_int::<F16>(false, a as u128, m.round_f64_f16) as u16
}
/// `v_cvt_f32_ubyte{n}`: byte `n` (0..=3) of `a` as f32 (exact).
#[inline]
pub fn cvt_f32_ubyte(a: u32, n: u32) -> u32 {
    (((a >> (8 * (n & 3))) & 0xff) as f32).to_bits()
}
/// `v_cvt_off_f32_i4`: the signed 4-bit value in `a[3:0]` divided by 16.
#[inline]
pub fn cvt_off_f32_i4(a: u32) -> u32 {
    let v = ((a << 28) as i32) >> 28;
    (v as f32 / 16.0).to_bits()
}

// ---- float <-> float ------------------------------------------------------

/// `v_cvt_f32_f16`: exact; f16 denormal inputs flushed per the f16 mode.
#[inline]
pub fn cvt_f32_f16(a: u16, m: Mode) -> u32 {
    let a = flush_in::<F16>(a as u64, m.f16());
    if soft::is_nan::<F16>(a) {
        return soft::convert::<F16, F32>(a, Round::NearestEven) as u32;
    }
    // Every other f16 value is exact in f32.
    (super::float::f16_to_f64(a) as f32).to_bits()
}
/// `v_cvt_f16_f32`: rounded per the f64/f16 rounding mode; f32 denormal
/// inputs flushed per the f32 mode; f16 denormal results flushed per the
/// f16 output mode.
#[inline]
pub fn cvt_f16_f32(a: u32, m: Mode) -> u16 {
    let a = flush_in::<F32>(a as u64, m.f32());
    let r = if m.round_f64_f16 == Round::NearestEven && !soft::is_nan::<F32>(a) {
        // One rounding of the exact value (an f32 is exact in f64).
        super::float::f64_to_f16(f64::from(f32::from_bits(a as u32)))
    } else {
        soft::convert::<F32, F16>(a, m.round_f64_f16)
    };
    flush_out::<F16>(r, m.f16()) as u16
}
/// `v_cvt_pkrtz_f16_f32`: two f32 to f16 with round-toward-zero, packed
/// (`a` in bits 15:0, `b` in 31:16); denormals as [`cvt_f16_f32`].
#[inline]
pub fn cvt_pkrtz_f16_f32(a: u32, b: u32, m: Mode) -> u32 {
    let rtz = Mode {
        round_f64_f16: Round::Zero,
        ..m
    };
    pack_b32_b16(cvt_f16_f32(a, rtz), cvt_f16_f32(b, rtz))
}
/// `v_cvt_f32_f64`: rounded per the f32 mode; f64 denormal inputs flushed
/// per the f64 mode, f32 denormal results per the f32 mode.
#[inline]
pub fn cvt_f32_f64(a: u64, m: Mode) -> u32 {
    let a = flush_in::<F64>(a, m.f64());
    let r = soft::convert::<F64, F32>(a, m.round_f32);
    flush_out::<F32>(r, m.f32()) as u32
}
/// `v_cvt_f64_f32`: exact; f32 denormal inputs flushed per the f32 mode.
#[inline]
pub fn cvt_f64_f32(a: u32, m: Mode) -> u64 {
    // A normal input or a zero widens exactly on the host (nothing to
    // flush or quiet); denormals, infinities and NaNs go the soft way.
    let e = a >> 23 & 0xff;
    if (e != 0 && e != 0xff) || a << 1 == 0 {
        return f64::from(f32::from_bits(a)).to_bits();
    }
    let a = flush_in::<F32>(a as u64, m.f32());
    soft::convert::<F32, F64>(a, Round::NearestEven)
}

// ---- bf16 -----------------------------------------------------------------

/// bf16 to f32: exact (the bf16 bits become the f32's top half;
/// `v_cvt_f32_bf16` on CDNA4, and what MFMA inputs mean).
#[inline]
pub fn bf16_to_f32(a: u16) -> u32 {
    (a as u32) << 16
}
/// f32 to bf16, correctly rounded in direction `rm` with gradual underflow;
/// NaN stays NaN (quieted, payload's top bits kept).
#[inline]
pub fn f32_to_bf16(a: u32, rm: Round) -> u16 {
    soft::convert::<F32, BF16>(a as u64, rm) as u16
}
/// Two f32 to a packed bf16 pair (`a` low), nearest-even.
#[inline]
pub fn cvt_pk_bf16_f32(a: u32, b: u32) -> u32 {
    pack_b32_b16(
        f32_to_bf16(a, Round::NearestEven),
        f32_to_bf16(b, Round::NearestEven),
    )
}

// ---- normalised integers ---------------------------------------------------

/// Rounds `x * scale` (x clamped to [lo, 1]) to the nearest integer, ties to
/// even; NaN gives 0. Computed exactly in f64 (x is f32 or f16).
#[inline]
fn norm(x: f64, lo: f64, scale: f64) -> i32 {
    if x.is_nan() {
        return 0;
    }
    let v = x.clamp(lo, 1.0) * scale; // exact: 24-bit x times a 16-bit scale
    v.round_ties_even() as i32
}

/// f16 to signed normalised 16-bit (`v_cvt_norm_i16_f16`):
/// round(clamp(x, -1, 1) * 32767).
#[inline]
pub fn cvt_norm_i16_f16(a: u16, m: Mode) -> i16 {
    let a = flush_in::<F16>(a as u64, m.f16());
    norm(f16_to_f64(a as u16), -1.0, 32767.0) as i16
}
/// f16 to unsigned normalised 16-bit (`v_cvt_norm_u16_f16`):
/// round(clamp(x, 0, 1) * 65535).
#[inline]
pub fn cvt_norm_u16_f16(a: u16, m: Mode) -> u16 {
    let a = flush_in::<F16>(a as u64, m.f16());
    norm(f16_to_f64(a as u16), 0.0, 65535.0) as u16
}
/// `v_cvt_pknorm_i16_f32`: two snorm16 values packed (`a` low).
#[inline]
pub fn cvt_pknorm_i16_f32(a: u32, b: u32, m: Mode) -> u32 {
    let c = m.f32();
    let f = |x: u32| {
        let x = flush_in::<F32>(x as u64, c) as u32;
        norm(f32::from_bits(x) as f64, -1.0, 32767.0) as u16
    };
    pack_b32_b16(f(a), f(b))
}
/// `v_cvt_pknorm_u16_f32`: two unorm16 values packed (`a` low).
#[inline]
pub fn cvt_pknorm_u16_f32(a: u32, b: u32, m: Mode) -> u32 {
    let c = m.f32();
    let f = |x: u32| {
        let x = flush_in::<F32>(x as u64, c) as u32;
        norm(f32::from_bits(x) as f64, 0.0, 65535.0) as u16
    };
    pack_b32_b16(f(a), f(b))
}
/// `v_cvt_pknorm_i16_f16`: two f16 (low halves of `a` and `b`) to snorm16.
#[inline]
pub fn cvt_pknorm_i16_f16(a: u16, b: u16, m: Mode) -> u32 {
    pack_b32_b16(cvt_norm_i16_f16(a, m) as u16, cvt_norm_i16_f16(b, m) as u16)
}
/// `v_cvt_pknorm_u16_f16`: two f16 to unorm16.
#[inline]
pub fn cvt_pknorm_u16_f16(a: u16, b: u16, m: Mode) -> u32 {
    pack_b32_b16(cvt_norm_u16_f16(a, m), cvt_norm_u16_f16(b, m))
}
/// `v_cvt_pk_u16_u32`: two u32 saturated to u16, packed.
#[inline]
pub fn cvt_pk_u16_u32(a: u32, b: u32) -> u32 {
    pack_b32_b16(a.min(0xffff) as u16, b.min(0xffff) as u16)
}
/// `v_cvt_pk_i16_i32`: two i32 saturated to i16, packed.
#[inline]
pub fn cvt_pk_i16_i32(a: i32, b: i32) -> u32 {
    let s = |x: i32| x.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16;
    pack_b32_b16(s(a), s(b))
}
/// `v_cvt_pk_u8_f32`: `f32_to_u8(s0)` (nearest-even, saturated to
/// [0, 255], NaN -> 0) inserted into byte `s1[1:0]` of `s2`.
#[inline]
pub fn cvt_pk_u8_f32(s0: u32, s1: u32, s2: u32) -> u32 {
    let x = f32::from_bits(s0);
    let v = if x.is_nan() {
        0
    } else {
        x.clamp(0.0, 255.0).round_ties_even() as u32
    };
    let sh = 8 * (s1 & 3);
    (s2 & !(0xff << sh)) | (v << sh)
}
/// `v_sat_pk_u8_i16`: two i16 (halves of `a`) saturated to u8, packed into
/// the low 16 bits.
#[inline]
pub fn sat_pk_u8_i16(a: u32) -> u16 {
    let s = |x: u16| (x as i16).clamp(0, 255) as u16;
    s(a as u16) | s((a >> 16) as u16) << 8
}

// ---- packing helpers -------------------------------------------------------

/// `{hi, lo}` as one 32-bit value (`v_pack_b32_f16`, `s_pack_ll_b32_b16`).
#[inline]
pub fn pack_b32_b16(lo: u16, hi: u16) -> u32 {
    lo as u32 | (hi as u32) << 16
}
/// The 16-bit half of `x` chosen by an op_sel bit (false: bits 15:0).
#[inline]
pub fn half(x: u32, hi: bool) -> u16 {
    if hi {
        (x >> 16) as u16
    } else {
        x as u16
    }
}

/// An f16 value as f64 (exact).
#[inline]
pub fn f16_to_f64(a: u16) -> f64 {
    f64::from_bits(soft::convert::<F16, F64>(a as u64, Round::NearestEven))
}
/// An f64 to f16, correctly rounded in direction `rm` (no flushing).
#[inline]
pub fn f64_to_f16(a: f64, rm: Round) -> u16 {
    soft::convert::<F64, F16>(a.to_bits(), rm) as u16
}

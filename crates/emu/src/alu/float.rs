//! VALU floating-point arithmetic: add/mul/fma/mad, min/max/med3, rounding
//! to integral values, frexp/ldexp/fract, and the input and output
//! modifiers.
//!
//! Every function takes and returns raw register bits and the wave's
//! [`Mode`]. Generic forms take the format as a type parameter
//! ([`F16`](super::soft::F16), [`F32`](super::soft::F32),
//! [`F64`](super::soft::F64)) and bits in a `u64`; the `_f16`/`_f32`/`_f64`
//! wrappers take the natural integer width.
//!
//! Denormals: unless noted, an operation flushes denormal inputs to a signed
//! zero when the precision's FP_DENORM input bit is clear, and flushes a
//! result that is denormal *after rounding* to a signed zero when the output
//! bit is clear. f16 and f64 follow the f64/f16 fields, f32 the f32 fields.
//! Exceptions to this rule are listed on each function (`v_mad_f32`,
//! `v_mac_f32`, `v_mad_legacy_f32` and `v_mad_f16` always flush, as LLVM
//! and the ISA manual describe them as not supporting denormals).
//!
//! Rounding follows the precision's FP_ROUND field. In the common
//! nearest-even case f32/f64 add, mul, fma, div and sqrt use the host's IEEE
//! arithmetic; other directions, and all f16 arithmetic, go through the
//! exact core in [`super::soft`]. Both give the correctly rounded result.
//!
//! NaNs: see [`super::soft`]; the first NaN operand is returned quieted,
//! invalid operations return the negative default NaN.

use super::mode::{FpCtl, Mode, Round};
use super::soft::{self, Format, IntRound, F16, F32, F64};

/// Per-format glue: which MODE fields apply, and host fast paths.
pub trait Arith: Format {
    /// The rounding/denormal controls for this precision.
    fn ctl(m: Mode) -> FpCtl;
    /// Host IEEE a + b (nearest-even), if the host has this format.
    #[inline]
    fn host_add(_a: u64, _b: u64) -> Option<u64> {
        None
    }
    /// Host IEEE a * b.
    #[inline]
    fn host_mul(_a: u64, _b: u64) -> Option<u64> {
        None
    }
    /// Host IEEE fused a * b + c.
    #[inline]
    fn host_fma(_a: u64, _b: u64, _c: u64) -> Option<u64> {
        None
    }
}

/// A host result that is NaN came from an invalid operation (NaN inputs are
/// handled before the host is asked): use the AMD default NaN.
#[inline]
fn host_fix<F: Format>(r: u64) -> u64 {
    if soft::is_nan::<F>(r) {
        F::DEFAULT_NAN
    } else {
        r
    }
}

/// An f16 value (bits) as an f64: exact.
#[inline]
pub fn f16_to_f64(h: u64) -> f64 {
    let mag = h & 0x7fff;
    let e = mag >> 10;
    let v = if e == 0 {
        // Zero or denormal: mantissa * 2^-24.
        (mag as f64) * f64::from_bits(((1023 - 24) as u64) << 52)
    } else if e == 31 {
        if mag & 0x3ff == 0 {
            f64::INFINITY
        } else {
            f64::NAN
        }
    } else {
        f64::from_bits(((e + 1008) << 52) | (mag & 0x3ff) << 42)
    };
    if h & 0x8000 != 0 {
        -v
    } else {
        v
    }
}

/// An f64 rounded to f16 (nearest-even, denormals kept, overflow to
/// infinity; a NaN gives a quiet NaN).
#[inline]
pub fn f64_to_f16(x: f64) -> u64 {
    let bits = x.to_bits();
    let sign = (bits >> 48) & 0x8000;
    let a = x.abs();
    if a.is_nan() {
        return sign | 0x7e00;
    }
    // 65520 is the midpoint between the largest f16 and 2^16.
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < f64::from_bits(((1023 - 14) as u64) << 52) {
        // Below the smallest normal: a multiple of 2^-24, scaled exactly.
        let q = (a * f64::from_bits(((1023 + 24) as u64) << 52)).round_ties_even();
        return sign | q as u64;
    }
    // Normal: 53-bit significand to 11 bits, ties to even.
    let e = ((a.to_bits() >> 52) as i64) - 1023;
    let m = (a.to_bits() & ((1 << 52) - 1)) | 1 << 52;
    let (mut r, rem) = (m >> 42, m & ((1 << 42) - 1));
    if rem > 1 << 41 || (rem == 1 << 41 && r & 1 == 1) {
        r += 1;
    }
    // A carry to 2^11 moves to the next binade (the encoding's exponent
    // field absorbs it).
    sign | ((((e + 15) as u64) << 10) + (r - 1024))
}

impl Arith for F16 {
    #[inline]
    fn ctl(m: Mode) -> FpCtl {
        m.f16()
    }
    // f16 in f64: sums and products of f16 values are exact in f64, so one
    // rounding to f16 is the correctly rounded result. A fused a * b + c is
    // rounded once to f64 and then to f16; that second rounding cannot
    // differ from rounding the exact value: the exact value is a multiple
    // of 2^-48, and a finite f16 result is below 2^16, so when it is not
    // exact in f64 its low bits come from a product below 2^-15 added to
    // an addend of at least 32, whose nearest f16 rounding boundary is at
    // least 2^-7 away (far beyond the f64 rounding error of 2^-38).
    #[inline]
    fn host_add(a: u64, b: u64) -> Option<u64> {
        Some(host_fix::<F16>(f64_to_f16(f16_to_f64(a) + f16_to_f64(b))))
    }
    #[inline]
    fn host_mul(a: u64, b: u64) -> Option<u64> {
        Some(host_fix::<F16>(f64_to_f16(f16_to_f64(a) * f16_to_f64(b))))
    }
    #[inline]
    fn host_fma(a: u64, b: u64, c: u64) -> Option<u64> {
        let r = f16_to_f64(a).mul_add(f16_to_f64(b), f16_to_f64(c));
        Some(host_fix::<F16>(f64_to_f16(r)))
    }
}

impl Arith for F32 {
    #[inline]
    fn ctl(m: Mode) -> FpCtl {
        m.f32()
    }
    #[inline]
    fn host_add(a: u64, b: u64) -> Option<u64> {
        let r = f32::from_bits(a as u32) + f32::from_bits(b as u32);
        Some(host_fix::<F32>(r.to_bits() as u64))
    }
    #[inline]
    fn host_mul(a: u64, b: u64) -> Option<u64> {
        let r = f32::from_bits(a as u32) * f32::from_bits(b as u32);
        Some(host_fix::<F32>(r.to_bits() as u64))
    }
    #[inline]
    fn host_fma(a: u64, b: u64, c: u64) -> Option<u64> {
        let r =
            f32::from_bits(a as u32).mul_add(f32::from_bits(b as u32), f32::from_bits(c as u32));
        Some(host_fix::<F32>(r.to_bits() as u64))
    }
}

impl Arith for F64 {
    #[inline]
    fn ctl(m: Mode) -> FpCtl {
        m.f64()
    }
    #[inline]
    fn host_add(a: u64, b: u64) -> Option<u64> {
        Some(host_fix::<F64>(
            (f64::from_bits(a) + f64::from_bits(b)).to_bits(),
        ))
    }
    #[inline]
    fn host_mul(a: u64, b: u64) -> Option<u64> {
        Some(host_fix::<F64>(
            (f64::from_bits(a) * f64::from_bits(b)).to_bits(),
        ))
    }
    #[inline]
    fn host_fma(a: u64, b: u64, c: u64) -> Option<u64> {
        let r = f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c));
        Some(host_fix::<F64>(r.to_bits()))
    }
}

/// Flushes a denormal input to a signed zero if `ctl` says so.
#[inline]
pub fn flush_in<F: Format>(a: u64, ctl: FpCtl) -> u64 {
    if !ctl.denorm.allow_in && soft::is_denorm::<F>(a) {
        a & F::SIGN
    } else {
        a
    }
}

/// Flushes a denormal result to a signed zero if `ctl` says so.
#[inline]
pub fn flush_out<F: Format>(a: u64, ctl: FpCtl) -> u64 {
    if !ctl.denorm.allow_out && soft::is_denorm::<F>(a) {
        a & F::SIGN
    } else {
        a
    }
}

/// Input modifiers: `abs` clears the sign, then `neg` flips it (so both
/// give `-|x|`). Pure bit operations, NaNs included.
#[inline]
pub fn input_mods<F: Format>(a: u64, abs: bool, neg: bool) -> u64 {
    let a = if abs { a & !F::SIGN } else { a };
    if neg {
        a ^ F::SIGN
    } else {
        a
    }
}

// ---------------------------------------------------------------------------
// Core arithmetic with a given FpCtl.

#[inline]
fn add_ctl<F: Arith>(a: u64, b: u64, ctl: FpCtl) -> u64 {
    let a = flush_in::<F>(a, ctl);
    let b = flush_in::<F>(b, ctl);
    let r = if soft::is_nan::<F>(a) || soft::is_nan::<F>(b) {
        soft::propagate2::<F>(a, b)
    } else if ctl.round == Round::NearestEven {
        match F::host_add(a, b) {
            Some(r) => r,
            None => soft::add::<F>(a, b, ctl.round),
        }
    } else {
        soft::add::<F>(a, b, ctl.round)
    };
    flush_out::<F>(r, ctl)
}

#[inline]
fn mul_ctl<F: Arith>(a: u64, b: u64, ctl: FpCtl) -> u64 {
    let a = flush_in::<F>(a, ctl);
    let b = flush_in::<F>(b, ctl);
    let r = if soft::is_nan::<F>(a) || soft::is_nan::<F>(b) {
        soft::propagate2::<F>(a, b)
    } else if ctl.round == Round::NearestEven {
        match F::host_mul(a, b) {
            Some(r) => r,
            None => soft::mul::<F>(a, b, ctl.round),
        }
    } else {
        soft::mul::<F>(a, b, ctl.round)
    };
    flush_out::<F>(r, ctl)
}

#[inline]
fn fma_ctl<F: Arith>(a: u64, b: u64, c: u64, ctl: FpCtl) -> u64 {
    let a = flush_in::<F>(a, ctl);
    let b = flush_in::<F>(b, ctl);
    let c = flush_in::<F>(c, ctl);
    let r = if soft::is_nan::<F>(a) || soft::is_nan::<F>(b) || soft::is_nan::<F>(c) {
        soft::propagate3::<F>(a, b, c)
    } else if ctl.round == Round::NearestEven {
        match F::host_fma(a, b, c) {
            Some(r) => r,
            None => soft::fma::<F>(a, b, c, ctl.round),
        }
    } else {
        soft::fma::<F>(a, b, c, ctl.round)
    };
    flush_out::<F>(r, ctl)
}

/// `v_add_*`: a + b.
#[inline]
pub fn add<F: Arith>(a: u64, b: u64, m: Mode) -> u64 {
    add_ctl::<F>(a, b, F::ctl(m))
}

/// `v_sub_*`: a - b (`v_subrev_*` is `sub(b, a)`). A NaN `b` keeps its sign.
#[inline]
pub fn sub<F: Arith>(a: u64, b: u64, m: Mode) -> u64 {
    let nb = if soft::is_nan::<F>(b) { b } else { b ^ F::SIGN };
    add_ctl::<F>(a, nb, F::ctl(m))
}

/// `v_mul_*`: a * b.
#[inline]
pub fn mul<F: Arith>(a: u64, b: u64, m: Mode) -> u64 {
    mul_ctl::<F>(a, b, F::ctl(m))
}

/// `v_fma_*`, `v_fmac_*`, `v_pk_fma_*`: a * b + c with one rounding.
#[inline]
pub fn fma<F: Arith>(a: u64, b: u64, c: u64, m: Mode) -> u64 {
    fma_ctl::<F>(a, b, c, F::ctl(m))
}

/// `v_mad_f32`/`v_mac_f32`/`v_mad_f16`/`v_mac_f16`: round(round(a * b) + c),
/// not fused, and denormals are flushed (inputs, the intermediate product
/// and the result) whatever the mode says; rounding follows the mode.
#[inline]
pub fn mad<F: Arith>(a: u64, b: u64, c: u64, m: Mode) -> u64 {
    let ctl = F::ctl(m).flushing();
    let p = mul_ctl::<F>(a, b, ctl);
    add_ctl::<F>(p, c, ctl)
}

/// Legacy (DX9) multiply: if either operand is zero (after the input flush)
/// the result is +0, even for inf or NaN in the other operand.
#[inline]
fn mul_legacy_ctl<F: Arith>(a: u64, b: u64, ctl: FpCtl) -> u64 {
    let a = flush_in::<F>(a, ctl);
    let b = flush_in::<F>(b, ctl);
    if soft::is_zero::<F>(a) || soft::is_zero::<F>(b) {
        return 0;
    }
    mul_ctl::<F>(a, b, ctl)
}

/// `v_mul_legacy_f32`: a * b with 0 * anything = +0 (DX9 rules); denormal
/// and rounding modes as `v_mul_f32`.
#[inline]
pub fn mul_legacy_f32(a: u32, b: u32, m: Mode) -> u32 {
    mul_legacy_ctl::<F32>(a as u64, b as u64, m.f32()) as u32
}

/// `v_mad_legacy_f32`/`v_mac_legacy_f32`: round(mul_legacy(a, b)) + c,
/// flushing denormals like `v_mad_f32`.
#[inline]
pub fn mad_legacy_f32(a: u32, b: u32, c: u32, m: Mode) -> u32 {
    let ctl = m.f32().flushing();
    let p = mul_legacy_ctl::<F32>(a as u64, b as u64, ctl);
    add_ctl::<F32>(p, c as u64, ctl) as u32
}

/// `v_fma_legacy_f32`-style fused multiply-add with the DX9 zero rule (the
/// product is +0 when either factor is zero), single rounding.
#[inline]
pub fn fma_legacy_f32(a: u32, b: u32, c: u32, m: Mode) -> u32 {
    let ctl = m.f32();
    let (a, b) = (
        flush_in::<F32>(a as u64, ctl),
        flush_in::<F32>(b as u64, ctl),
    );
    if soft::is_zero::<F32>(a) || soft::is_zero::<F32>(b) {
        return add_ctl::<F32>(0, c as u64, ctl) as u32;
    }
    fma_ctl::<F32>(a, b, c as u64, ctl) as u32
}

// ---------------------------------------------------------------------------
// min/max family (ISA pseudocode, CDNA3/CDNA4 manuals).

/// `v_min_*`. IEEE=1: a signaling NaN operand (S0 first) is returned
/// quieted. Otherwise a NaN operand yields the other operand (two quiet
/// NaNs give S1). -0 < +0. Denormal inputs are flushed per mode (so
/// `v_min_f32 x, x` canonicalises like the hardware's).
#[inline]
pub fn min<F: Arith>(a: u64, b: u64, m: Mode) -> u64 {
    let ctl = F::ctl(m);
    let a = flush_in::<F>(a, ctl);
    let b = flush_in::<F>(b, ctl);
    if m.ieee && soft::is_snan::<F>(a) {
        return soft::quiet::<F>(a);
    }
    if m.ieee && soft::is_snan::<F>(b) {
        return soft::quiet::<F>(b);
    }
    if soft::is_nan::<F>(a) {
        return b;
    }
    if soft::is_nan::<F>(b) {
        return a;
    }
    if soft::is_zero::<F>(a) && soft::is_zero::<F>(b) {
        // -0 is the smaller zero.
        return if soft::sign::<F>(a) { a } else { b };
    }
    if soft::compare::<F>(a, b) == Some(std::cmp::Ordering::Less) {
        a
    } else {
        b
    }
}

/// `v_max_*`; the mirror of [`min`] (+0 > -0).
#[inline]
pub fn max<F: Arith>(a: u64, b: u64, m: Mode) -> u64 {
    let ctl = F::ctl(m);
    let a = flush_in::<F>(a, ctl);
    let b = flush_in::<F>(b, ctl);
    if m.ieee && soft::is_snan::<F>(a) {
        return soft::quiet::<F>(a);
    }
    if m.ieee && soft::is_snan::<F>(b) {
        return soft::quiet::<F>(b);
    }
    if soft::is_nan::<F>(a) {
        return b;
    }
    if soft::is_nan::<F>(b) {
        return a;
    }
    if soft::is_zero::<F>(a) && soft::is_zero::<F>(b) {
        return if soft::sign::<F>(a) { b } else { a };
    }
    if soft::compare::<F>(a, b) == Some(std::cmp::Ordering::Less) {
        b
    } else {
        a
    }
}

/// `v_min3_*`: min(min(a, b), c).
#[inline]
pub fn min3<F: Arith>(a: u64, b: u64, c: u64, m: Mode) -> u64 {
    min::<F>(min::<F>(a, b, m), c, m)
}

/// `v_max3_*`: max(max(a, b), c).
#[inline]
pub fn max3<F: Arith>(a: u64, b: u64, c: u64, m: Mode) -> u64 {
    max::<F>(max::<F>(a, b, m), c, m)
}

/// `v_med3_*` per the manual: with any NaN input, `min3(a, b, c)`;
/// otherwise the maximum of the two operands other than the one equal
/// (as a float) to `max3(a, b, c)`, S0 tested first.
#[inline]
pub fn med3<F: Arith>(a: u64, b: u64, c: u64, m: Mode) -> u64 {
    let ctl = F::ctl(m);
    let a = flush_in::<F>(a, ctl);
    let b = flush_in::<F>(b, ctl);
    let c = flush_in::<F>(c, ctl);
    if soft::is_nan::<F>(a) || soft::is_nan::<F>(b) || soft::is_nan::<F>(c) {
        return min3::<F>(a, b, c, m);
    }
    let mx = max3::<F>(a, b, c, m);
    let eq = |x: u64| soft::compare::<F>(mx, x) == Some(std::cmp::Ordering::Equal);
    if eq(a) {
        max::<F>(b, c, m)
    } else if eq(b) {
        max::<F>(a, c, m)
    } else {
        max::<F>(a, b, m)
    }
}

// ---------------------------------------------------------------------------
// Output modifiers.

/// OMOD: 0 none, 1 multiply by 2, 2 by 4, 3 divide by 2. Applied to the
/// already rounded result as an exact power-of-two scaling (rounded again
/// only if it becomes denormal), output flush per mode. NaNs pass
/// unchanged. Hardware may fold the scaling into the operation's rounding;
/// the two differ only when the scaled result is denormal.
#[inline]
pub fn omod<F: Arith>(r: u64, omod: u32, m: Mode) -> u64 {
    let n = match omod & 3 {
        0 => return r,
        1 => 1,
        2 => 2,
        _ => -1,
    };
    if soft::is_nan::<F>(r) {
        return r;
    }
    let ctl = F::ctl(m);
    flush_out::<F>(soft::ldexp::<F>(r, n, ctl.round), ctl)
}

/// The clamp output modifier for float results: into [+0.0, 1.0]. -0 and
/// negative values give +0; NaN gives +0 when DX10_CLAMP is set, else the
/// NaN passes.
#[inline]
pub fn clamp<F: Arith>(r: u64, m: Mode) -> u64 {
    if soft::is_nan::<F>(r) {
        return if m.dx10_clamp { 0 } else { r };
    }
    if soft::sign::<F>(r) {
        return 0;
    }
    if soft::compare::<F>(r, F::ONE) == Some(std::cmp::Ordering::Greater) {
        return F::ONE;
    }
    r
}

/// OMOD then clamp, as the VOP3 encoding applies them.
#[inline]
pub fn output_mods<F: Arith>(r: u64, omod_field: u32, clamp_bit: bool, m: Mode) -> u64 {
    let r = omod::<F>(r, omod_field, m);
    if clamp_bit {
        clamp::<F>(r, m)
    } else {
        r
    }
}

// ---------------------------------------------------------------------------
// Integral rounding, fract, frexp, ldexp.

#[inline]
fn round_int_mode<F: Arith>(a: u64, how: IntRound, m: Mode) -> u64 {
    let ctl = F::ctl(m);
    flush_out::<F>(soft::round_int::<F>(flush_in::<F>(a, ctl), how), ctl)
}

/// `v_trunc_*`: round toward zero; keeps the sign of zero.
#[inline]
pub fn trunc<F: Arith>(a: u64, m: Mode) -> u64 {
    round_int_mode::<F>(a, IntRound::Trunc, m)
}

/// `v_floor_*`: round toward -inf.
#[inline]
pub fn floor<F: Arith>(a: u64, m: Mode) -> u64 {
    round_int_mode::<F>(a, IntRound::Floor, m)
}

/// `v_ceil_*`: round toward +inf (`ceil(-0.5) = -0`).
#[inline]
pub fn ceil<F: Arith>(a: u64, m: Mode) -> u64 {
    round_int_mode::<F>(a, IntRound::Ceil, m)
}

/// `v_rndne_*`: round to nearest integral value, ties to even, sign kept
/// (`rndne(-0.3) = -0`). The manual's `floor(x + 0.5)` pseudocode is read
/// with exact arithmetic.
#[inline]
pub fn rndne<F: Arith>(a: u64, m: Mode) -> u64 {
    round_int_mode::<F>(a, IntRound::NearestEven, m)
}

/// `v_fract_*`: `x + -floor(x)` rounded per mode, then clamped below 1.0
/// (to 0x3f7fffff for f32, 0x3fefffffffffffff for f64, 0x3bff for f16).
/// NaN gives the quieted NaN, ±inf the default NaN (inf - inf).
#[inline]
pub fn fract<F: Arith>(a: u64, m: Mode) -> u64 {
    let ctl = F::ctl(m);
    let a = flush_in::<F>(a, ctl);
    if soft::is_nan::<F>(a) {
        return soft::quiet::<F>(a);
    }
    if soft::is_inf::<F>(a) {
        return F::DEFAULT_NAN;
    }
    let fl = soft::round_int::<F>(a, IntRound::Floor);
    let r = soft::sub::<F>(a, fl, ctl.round);
    let below_one = F::ONE - 1;
    let r = if soft::compare::<F>(r, below_one) == Some(std::cmp::Ordering::Greater) {
        below_one
    } else {
        r
    };
    flush_out::<F>(r, ctl)
}

/// `v_frexp_mant_*`: the significand in [0.5, 1) with the input's sign;
/// ±inf and NaN return the input unchanged, ±0 returns itself. Denormal
/// inputs are normalised (or flushed to zero per mode first).
#[inline]
pub fn frexp_mant<F: Arith>(a: u64, m: Mode) -> u64 {
    let a = flush_in::<F>(a, F::ctl(m));
    if !soft::is_finite::<F>(a) || soft::is_zero::<F>(a) {
        return a;
    }
    let x = soft::unpack::<F>(a);
    // mant * 2^exp with mant normalised to FRAC+1 bits, result exponent -1.
    let msb = 127 - x.mant.leading_zeros();
    let frac = ((x.mant << (F::FRAC - msb)) as u64) & F::FRAC_MASK;
    (a & F::SIGN) | ((F::BIAS - 1) as u64) << F::FRAC | frac
}

/// `v_frexp_exp_i32_f32/f64`, `v_frexp_exp_i16_f16` (sign-extended):
/// the exponent e with x = mant * 2^e, mant in [0.5, 1); 0 for ±0, ±inf
/// and NaN. Denormals give their true exponent (or 0 if flushed).
#[inline]
pub fn frexp_exp<F: Arith>(a: u64, m: Mode) -> i32 {
    let a = flush_in::<F>(a, F::ctl(m));
    if !soft::is_finite::<F>(a) || soft::is_zero::<F>(a) {
        return 0;
    }
    let x = soft::unpack::<F>(a);
    let msb = 127 - x.mant.leading_zeros() as i32;
    x.exp + msb + 1
}

/// `v_ldexp_*`: a * 2^n with one rounding per mode (the f16 form's S1 is
/// an i16 the caller sign-extends). Exact ldexp semantics: the manual's
/// `S0 * 2.0 ** S1` does not overflow the power of two separately.
#[inline]
pub fn ldexp<F: Arith>(a: u64, n: i32, m: Mode) -> u64 {
    let ctl = F::ctl(m);
    let a = flush_in::<F>(a, ctl);
    flush_out::<F>(soft::ldexp::<F>(a, n, ctl.round), ctl)
}

// ---------------------------------------------------------------------------
// Division helpers (clang's IEEE division expansion).

/// [`div_scale`]'s usual case, decided by the exponents of `s1` (the
/// denominator) and `s2` (the numerator) alone: both normal, so neither
/// is zero nor S1 denormal; e2 - e1 below the threshold; 1/S1 and S2/S1
/// at least the smallest normal (their quotient's lower bound,
/// 2^(en - ed - 1), is, as in `quotient_below_normal_by_exponents`); S2
/// not tiny. Every branch of the pseudocode is then not taken and the
/// result is `(s0, false)`, without the two divisions. Branch-free, so a
/// loop over lanes of it vectorises (the fast tier runs it over a whole
/// row and sends only the other lanes to [`div_scale`]).
#[inline(always)]
pub fn div_scale_usual<F: Arith>(s1: u64, s2: u64) -> bool {
    let diff_thresh = if F::BITS == 64 { 768 } else { 96 };
    let tiny_exp = if F::BITS == 64 { 53 } else { 23 };
    let e1 = soft::biased_exp::<F>(s1);
    let e2 = soft::biased_exp::<F>(s2);
    let normal = |e: i32| (e > 0) & (e < F::EMAX_BIASED);
    normal(e1)
        & normal(e2)
        & (e2 - e1 < diff_thresh)
        & (e1 <= 2 * F::BIAS - 2)
        & (e2 - e1 >= 2 - F::BIAS)
        & (e2 > tiny_exp)
}

/// `v_div_scale_f32/f64` per the ISA pseudocode: returns `(D, VCC bit)`.
///
/// `s0` is the value to scale (the numerator or the denominator), `s1` the
/// denominator, `s2` the numerator. D defaults to `s0`. Interpretation
/// choices where the pseudocode is unclear:
/// * "1/S1 is denormal" is evaluated in S1's own format (the manual's f32
///   text casts to f64, which would make those branches unreachable).
/// * In the branch where both 1/S1 and S2/S1 are denormal the manual says
///   `ldexp(S0, 64)` for the denominator, which overflows (S1 > 2^126);
///   the denominator is scaled by 2^-64 instead, which the VCC post-scale
///   of `v_div_fmas` (2^-64 when the quotient's exponent is small) then
///   undoes. Without this the clang sequence fails for e.g. 1/2^127.
/// * "S2/S1 is denormal" is tested on the exact quotient.
/// * Inputs are not flushed (the instruction exists to see denormals); the
///   result is flushed per the output mode.
/// * A zero numerator or denominator gives the default NaN, VCC clear.
#[inline]
pub fn div_scale<F: Arith>(s0: u64, s1: u64, s2: u64, m: Mode) -> (u64, bool) {
    let ctl = F::ctl(m);
    let big = if F::BITS == 64 { 128 } else { 64 };
    let diff_thresh = if F::BITS == 64 { 768 } else { 96 };
    let tiny_exp = if F::BITS == 64 { 53 } else { 23 };
    let rz = Round::Zero;
    let exact_div_denorm = |n: u64, d: u64| {
        if F::BITS == 32 {
            return quotient_below_normal_f32(n as u32, d as u32);
        }
        if let Some(below) = quotient_below_normal_by_exponents::<F>(n, d) {
            return below;
        }
        let q = soft::div::<F>(n, d, rz);
        soft::is_denorm::<F>(q) || (soft::is_zero::<F>(q) && !soft::is_zero::<F>(n))
    };
    let scale = |x: u64, n: i32| flush_out::<F>(soft::ldexp::<F>(x, n, ctl.round), ctl);
    let feq = |x: u64, y: u64| soft::compare::<F>(x, y) == Some(std::cmp::Ordering::Equal);
    let e1 = soft::biased_exp::<F>(s1);
    let e2 = soft::biased_exp::<F>(s2);
    if div_scale_usual::<F>(s1, s2) {
        return (s0, false);
    }
    if soft::is_zero::<F>(s2) || soft::is_zero::<F>(s1) {
        return (F::DEFAULT_NAN, false);
    }
    if e2 - e1 >= diff_thresh {
        // N/D near the overflow threshold: only the denominator is scaled.
        let d = if feq(s0, s1) { scale(s0, big) } else { s0 };
        return (d, true);
    }
    if soft::is_denorm::<F>(s1) {
        return (scale(s0, big), false);
    }
    let rcp_denorm = exact_div_denorm(F::ONE, s1);
    let q_denorm = exact_div_denorm(s2, s1);
    if rcp_denorm && q_denorm {
        let d = if feq(s0, s1) { scale(s0, -big) } else { s0 };
        return (d, true);
    }
    if rcp_denorm {
        return (scale(s0, -big), false);
    }
    if q_denorm {
        // Only the numerator is scaled.
        let d = if feq(s0, s2) { scale(s0, big) } else { s0 };
        return (d, true);
    }
    if e2 <= tiny_exp {
        // Numerator is tiny: scale both.
        return (scale(s0, big), false);
    }
    (s0, false)
}

/// Whether the exact quotient `n / d` of nonzero f32 values is below the
/// smallest normal (so its truncation is denormal or zero), through the
/// host's f64 division: two 24-bit significands give a quotient that is
/// either exactly 2^-126 or at least 2^-25 relatively away from it, far
/// beyond f64's rounding error, so the f64 quotient is on the same side.
/// A NaN operand or quotient (inf / inf) is not below.
#[inline]
pub fn quotient_below_normal_f32(n: u32, d: u32) -> bool {
    let q = f64::from(f32::from_bits(n)) / f64::from(f32::from_bits(d));
    q.abs() < f64::from(f32::MIN_POSITIVE)
}

/// Whether the exact quotient `n / d` of two normal values is below the
/// smallest normal, when their exponents alone decide it: with both
/// significands in [1, 2), the quotient lies in
/// (2^(en - ed - 1), 2^(en - ed + 1)). `None` near the boundary, or for
/// an operand that is not normal.
#[inline]
pub fn quotient_below_normal_by_exponents<F: Format>(n: u64, d: u64) -> Option<bool> {
    let (en, ed) = (soft::biased_exp::<F>(n), soft::biased_exp::<F>(d));
    let normal = |e: i32| e > 0 && e < F::EMAX_BIASED;
    if !normal(en) || !normal(ed) {
        return None;
    }
    // Unbiased exponent of the quotient's lower bound; the smallest
    // normal is 2^(1 - BIAS).
    let e = en - ed - 1;
    if e >= 1 - F::BIAS {
        Some(false)
    } else if e + 2 <= 1 - F::BIAS {
        Some(true)
    } else {
        None
    }
}

/// [`div_fmas`]'s usual case: no VCC scaling, round to nearest even,
/// and a host FMA result that is neither a NaN (so no input was one)
/// nor denormal (nothing to flush); then that result is
/// [`div_fmas`]'s. Returns it and whether the case holds (when it does
/// not, the value means nothing). Branch-free, so a loop over lanes of
/// it vectorises.
#[inline(always)]
pub fn div_fmas_usual<F: Arith>(a: u64, b: u64, c: u64, vcc: bool, m: Mode) -> (u64, bool) {
    let rne = F::ctl(m).round == Round::NearestEven;
    match F::host_fma(a, b, c) {
        Some(r) => (
            r,
            !vcc & rne & !soft::is_nan::<F>(r) & !soft::is_denorm::<F>(r),
        ),
        None => (0, false),
    }
}

/// `v_div_fmas_f32/f64`: fma(a, b, c) with one rounding; if `vcc`, the
/// exact result is scaled before rounding by 2^64 (f64: 2^128) when c's
/// biased exponent exceeds the bias, else by 2^-64 (f64: 2^-128). The
/// manual prints a fixed 2^32 (f64: 2^64), which cannot undo
/// `v_div_scale`'s ±64 scaling; the direction-dependent form is what
/// makes the division sequence correct. Inputs are not flushed; the
/// result is flushed per mode.
#[inline]
pub fn div_fmas<F: Arith>(a: u64, b: u64, c: u64, vcc: bool, m: Mode) -> u64 {
    let (r, usual) = div_fmas_usual::<F>(a, b, c, vcc, m);
    if usual {
        return r;
    }
    let ctl = F::ctl(m);
    let scale = if !vcc {
        0
    } else {
        let big = if F::BITS == 64 { 128 } else { 64 };
        if soft::biased_exp::<F>(c) > F::BIAS {
            big
        } else {
            -big
        }
    };
    let r = if scale == 0 && ctl.round == Round::NearestEven {
        if soft::is_nan::<F>(a) || soft::is_nan::<F>(b) || soft::is_nan::<F>(c) {
            soft::propagate3::<F>(a, b, c)
        } else {
            match F::host_fma(a, b, c) {
                Some(r) => r,
                None => soft::fma::<F>(a, b, c, ctl.round),
            }
        }
    } else {
        soft::fma_scaled::<F>(a, b, c, scale, ctl.round)
    };
    flush_out::<F>(r, ctl)
}

/// [`div_fixup`]'s usual case: numerator and denominator normal (no
/// NaN, zero or infinity among them), their exponents less than the
/// underflow limit apart (f32/f64), and a quotient `s0` that is not a
/// NaN; then none of the special cases applies and the result is `s0`'s
/// magnitude with the sign sign(s1) ^ sign(s2). Returns it and whether
/// the case holds. Branch-free, so a loop over lanes of it vectorises.
#[inline(always)]
pub fn div_fixup_usual<F: Arith>(s0: u64, s1: u64, s2: u64) -> (u64, bool) {
    let (e1, e2) = (soft::biased_exp::<F>(s1), soft::biased_exp::<F>(s2));
    let normal = |e: i32| (e > 0) & (e < F::EMAX_BIASED);
    let limit = if F::BITS == 64 { -1075 } else { -150 };
    let above = F::BITS == 16 || e2 - e1 >= limit;
    let neg = soft::sign::<F>(s1) != soft::sign::<F>(s2);
    (
        soft::signed_zero::<F>(neg) | soft::abs::<F>(s0),
        normal(e1) & normal(e2) & above & !soft::is_nan::<F>(s0),
    )
}

/// `v_div_fixup_f16/f32/f64` per the ISA pseudocode: `s0` the quotient, `s1`
/// the denominator, `s2` the numerator. Special cases in order: NaN
/// numerator, NaN denominator (quieted), 0/0 and inf/inf (the negative
/// default NaN), x/0 and inf/y (signed inf), x/inf and 0/y (signed zero),
/// exponent difference below -150 (f64: -1075) for f32/f64 (signed zero:
/// such a quotient rounds to zero), otherwise `s0` with sign
/// sign(s1) ^ sign(s2), except that a NaN `s0` at that point (the Newton
/// chain overflowed) gives the signed infinity. No flushing. The f16 form
/// has no underflow case.
#[inline]
pub fn div_fixup<F: Arith>(s0: u64, s1: u64, s2: u64) -> u64 {
    let (r, usual) = div_fixup_usual::<F>(s0, s1, s2);
    if usual {
        return r;
    }
    let neg = soft::sign::<F>(s1) != soft::sign::<F>(s2);
    let sz = soft::signed_zero::<F>(neg);
    if soft::is_nan::<F>(s2) {
        return soft::quiet::<F>(s2);
    }
    if soft::is_nan::<F>(s1) {
        return soft::quiet::<F>(s1);
    }
    let (z1, z2) = (soft::is_zero::<F>(s1), soft::is_zero::<F>(s2));
    let (i1, i2) = (soft::is_inf::<F>(s1), soft::is_inf::<F>(s2));
    if (z1 && z2) || (i1 && i2) {
        return F::DEFAULT_NAN;
    }
    if z1 || i2 {
        return sz | F::INF;
    }
    if i1 || z2 {
        return sz;
    }
    if F::BITS > 16 {
        let limit = if F::BITS == 64 { -1075 } else { -150 };
        if soft::biased_exp::<F>(s2) - soft::biased_exp::<F>(s1) < limit {
            return sz;
        }
    }
    if soft::is_nan::<F>(s0) {
        // Finite nonzero operands but a NaN quotient: the Newton chain
        // overflowed (e.g. max / min-denormal computes inf - inf). The
        // pseudocode's unreachable "exponent(S1) == 255 -> OVERFLOW" clause
        // stands for this; hardware returns the signed infinity here, and
        // the division sequence is only correct if it does.
        return sz | F::INF;
    }
    sz | soft::abs::<F>(s0)
}

/// `v_div_fixup_legacy_f16` has the same special cases as the f16 form.
#[inline]
pub fn div_fixup_legacy_f16(s0: u16, s1: u16, s2: u16) -> u16 {
    div_fixup::<F16>(s0 as u64, s1 as u64, s2 as u64) as u16
}

// ---------------------------------------------------------------------------
// Monomorphic wrappers.

macro_rules! wrap2 {
    ($($name:ident = $gen:ident<$fmt:ty>($t:ty);)*) => {$(
        #[doc = concat!("[`", stringify!($gen), "`] on ", stringify!($fmt), " bits.")]
        #[inline]
        pub fn $name(a: $t, b: $t, m: Mode) -> $t {
            $gen::<$fmt>(a as u64, b as u64, m) as $t
        }
    )*};
}
macro_rules! wrap3 {
    ($($name:ident = $gen:ident<$fmt:ty>($t:ty);)*) => {$(
        #[doc = concat!("[`", stringify!($gen), "`] on ", stringify!($fmt), " bits.")]
        #[inline]
        pub fn $name(a: $t, b: $t, c: $t, m: Mode) -> $t {
            $gen::<$fmt>(a as u64, b as u64, c as u64, m) as $t
        }
    )*};
}
macro_rules! wrap1 {
    ($($name:ident = $gen:ident<$fmt:ty>($t:ty);)*) => {$(
        #[doc = concat!("[`", stringify!($gen), "`] on ", stringify!($fmt), " bits.")]
        #[inline]
        pub fn $name(a: $t, m: Mode) -> $t {
            $gen::<$fmt>(a as u64, m) as $t
        }
    )*};
}

wrap2! {
    add_f16 = add<F16>(u16); add_f32 = add<F32>(u32); add_f64 = add<F64>(u64);
    sub_f32 = sub<F32>(u32);
    mul_f16 = mul<F16>(u16); mul_f32 = mul<F32>(u32); mul_f64 = mul<F64>(u64);
    min_f16 = min<F16>(u16); min_f32 = min<F32>(u32); min_f64 = min<F64>(u64);
    max_f16 = max<F16>(u16); max_f32 = max<F32>(u32); max_f64 = max<F64>(u64);
}
wrap3! {
    fma_f16 = fma<F16>(u16); fma_f32 = fma<F32>(u32); fma_f64 = fma<F64>(u64);
    mad_f16 = mad<F16>(u16); mad_f32 = mad<F32>(u32);
    min3_f16 = min3<F16>(u16); min3_f32 = min3<F32>(u32);
    max3_f16 = max3<F16>(u16); max3_f32 = max3<F32>(u32);
    med3_f16 = med3<F16>(u16); med3_f32 = med3<F32>(u32);
}
wrap1! {
    trunc_f16 = trunc<F16>(u16); trunc_f32 = trunc<F32>(u32); trunc_f64 = trunc<F64>(u64);
    floor_f16 = floor<F16>(u16); floor_f32 = floor<F32>(u32); floor_f64 = floor<F64>(u64);
    ceil_f16 = ceil<F16>(u16); ceil_f32 = ceil<F32>(u32); ceil_f64 = ceil<F64>(u64);
    rndne_f16 = rndne<F16>(u16); rndne_f32 = rndne<F32>(u32); rndne_f64 = rndne<F64>(u64);
    fract_f16 = fract<F16>(u16); fract_f32 = fract<F32>(u32); fract_f64 = fract<F64>(u64);
    frexp_mant_f16 = frexp_mant<F16>(u16); frexp_mant_f32 = frexp_mant<F32>(u32);
    frexp_mant_f64 = frexp_mant<F64>(u64);
}

/// [`frexp_exp`] for f16 (`v_frexp_exp_i16_f16`; the i16 result).
#[inline]
pub fn frexp_exp_f16(a: u16, m: Mode) -> i16 {
    frexp_exp::<F16>(a as u64, m) as i16
}
/// [`frexp_exp`] for f32.
#[inline]
pub fn frexp_exp_f32(a: u32, m: Mode) -> i32 {
    frexp_exp::<F32>(a as u64, m)
}
/// [`frexp_exp`] for f64.
#[inline]
pub fn frexp_exp_f64(a: u64, m: Mode) -> i32 {
    frexp_exp::<F64>(a, m)
}
/// [`ldexp`] for f16 (`n` is S1.i16 sign-extended).
#[inline]
pub fn ldexp_f16(a: u16, n: i32, m: Mode) -> u16 {
    ldexp::<F16>(a as u64, n, m) as u16
}
/// [`ldexp`] for f32.
#[inline]
pub fn ldexp_f32(a: u32, n: i32, m: Mode) -> u32 {
    ldexp::<F32>(a as u64, n, m) as u32
}
/// [`ldexp`] for f64.
#[inline]
pub fn ldexp_f64(a: u64, n: i32, m: Mode) -> u64 {
    ldexp::<F64>(a, n, m)
}
/// [`div_scale`] for f32.
#[inline]
pub fn div_scale_f32(s0: u32, s1: u32, s2: u32, m: Mode) -> (u32, bool) {
    let (d, vcc) = div_scale::<F32>(s0 as u64, s1 as u64, s2 as u64, m);
    (d as u32, vcc)
}
/// [`div_scale_usual`] for f32.
#[inline(always)]
pub fn div_scale_usual_f32(s1: u32, s2: u32) -> bool {
    div_scale_usual::<F32>(s1 as u64, s2 as u64)
}
/// [`div_scale_usual`] for f64.
#[inline(always)]
pub fn div_scale_usual_f64(s1: u64, s2: u64) -> bool {
    div_scale_usual::<F64>(s1, s2)
}
/// [`div_fmas_usual`] for f32.
#[inline(always)]
pub fn div_fmas_usual_f32(a: u32, b: u32, c: u32, vcc: bool, m: Mode) -> (u32, bool) {
    let (r, ok) = div_fmas_usual::<F32>(a as u64, b as u64, c as u64, vcc, m);
    (r as u32, ok)
}
/// [`div_fmas_usual`] for f64.
#[inline(always)]
pub fn div_fmas_usual_f64(a: u64, b: u64, c: u64, vcc: bool, m: Mode) -> (u64, bool) {
    div_fmas_usual::<F64>(a, b, c, vcc, m)
}
/// [`div_fixup_usual`] for f32.
#[inline(always)]
pub fn div_fixup_usual_f32(s0: u32, s1: u32, s2: u32) -> (u32, bool) {
    let (r, ok) = div_fixup_usual::<F32>(s0 as u64, s1 as u64, s2 as u64);
    (r as u32, ok)
}
/// [`div_fixup_usual`] for f64.
#[inline(always)]
pub fn div_fixup_usual_f64(s0: u64, s1: u64, s2: u64) -> (u64, bool) {
    div_fixup_usual::<F64>(s0, s1, s2)
}
/// [`div_scale`] for f64.
#[inline]
pub fn div_scale_f64(s0: u64, s1: u64, s2: u64, m: Mode) -> (u64, bool) {
    div_scale::<F64>(s0, s1, s2, m)
}
/// [`div_fmas`] for f32.
#[inline]
pub fn div_fmas_f32(a: u32, b: u32, c: u32, vcc: bool, m: Mode) -> u32 {
    div_fmas::<F32>(a as u64, b as u64, c as u64, vcc, m) as u32
}
/// [`div_fmas`] for f64.
#[inline]
pub fn div_fmas_f64(a: u64, b: u64, c: u64, vcc: bool, m: Mode) -> u64 {
    div_fmas::<F64>(a, b, c, vcc, m)
}
/// [`div_fixup`] for f16.
#[inline]
pub fn div_fixup_f16(s0: u16, s1: u16, s2: u16) -> u16 {
    div_fixup::<F16>(s0 as u64, s1 as u64, s2 as u64) as u16
}
/// [`div_fixup`] for f32.
#[inline]
pub fn div_fixup_f32(s0: u32, s1: u32, s2: u32) -> u32 {
    div_fixup::<F32>(s0 as u64, s1 as u64, s2 as u64) as u32
}
/// [`div_fixup`] for f64.
#[inline]
pub fn div_fixup_f64(s0: u64, s1: u64, s2: u64) -> u64 {
    div_fixup::<F64>(s0, s1, s2)
}

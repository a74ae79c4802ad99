//! A small exact software floating-point core.
//!
//! Every operation here computes the exact result (or the exact result's
//! leading bits plus a sticky bit) in integer arithmetic and rounds it once,
//! in any of the four IEEE directions, to the destination format, with
//! gradual underflow. It knows nothing about the MODE register's denormal
//! flushing; [`crate::alu::float`] wraps it with that.
//!
//! Values are passed as raw bits in the low bits of a `u64`, the format
//! being a type parameter ([`F16`], [`BF16`], [`F32`], [`F64`]).
//!
//! NaN rules (the AMD convention this crate assumes everywhere): a NaN
//! operand is returned quieted (payload and sign kept), the first NaN in
//! operand order winning; an invalid operation (inf - inf, 0 * inf,
//! sqrt(-x), 0/0, inf/inf) returns the default NaN, which on AMD GPUs is
//! the *negative* quiet NaN (0xffc00000 for f32, 0xfe00 for f16, as the ISA
//! manual's examples such as `v_log_f32(-1.0) = 0xffc00000` show).

use super::mode::Round;

/// A binary interchange format.
pub trait Format: Copy + 'static {
    /// Storage width in bits.
    const BITS: u32;
    /// Explicit fraction bits.
    const FRAC: u32;
    /// Exponent bits.
    const EXP: u32;

    /// Sign bit.
    const SIGN: u64 = 1 << (Self::BITS - 1);
    /// Exponent field mask (in place).
    const EXP_MASK: u64 = ((1 << Self::EXP) - 1) << Self::FRAC;
    /// Fraction field mask.
    const FRAC_MASK: u64 = (1 << Self::FRAC) - 1;
    /// All bits of the format.
    const MASK: u64 = if Self::BITS == 64 {
        u64::MAX
    } else {
        (1 << Self::BITS) - 1
    };
    /// Exponent bias.
    const BIAS: i32 = (1 << (Self::EXP - 1)) - 1;
    /// Largest biased exponent (inf/NaN).
    const EMAX_BIASED: i32 = (1 << Self::EXP) - 1;
    /// The quiet bit (fraction MSB).
    const QUIET: u64 = 1 << (Self::FRAC - 1);
    /// Positive infinity.
    const INF: u64 = Self::EXP_MASK;
    /// The default NaN AMD hardware produces for invalid operations.
    const DEFAULT_NAN: u64 = Self::SIGN | Self::EXP_MASK | Self::QUIET;
    /// Largest finite magnitude.
    const MAX: u64 = Self::EXP_MASK - 1;
    /// One.
    const ONE: u64 = (Self::BIAS as u64) << Self::FRAC;
}

/// IEEE binary16.
#[derive(Debug, Clone, Copy)]
pub struct F16;
/// bfloat16 (8-bit exponent, 7-bit fraction).
#[derive(Debug, Clone, Copy)]
pub struct BF16;
/// IEEE binary32.
#[derive(Debug, Clone, Copy)]
pub struct F32;
/// IEEE binary64.
#[derive(Debug, Clone, Copy)]
pub struct F64;

impl Format for F16 {
    const BITS: u32 = 16;
    const FRAC: u32 = 10;
    const EXP: u32 = 5;
}
impl Format for BF16 {
    const BITS: u32 = 16;
    const FRAC: u32 = 7;
    const EXP: u32 = 8;
}
impl Format for F32 {
    const BITS: u32 = 32;
    const FRAC: u32 = 23;
    const EXP: u32 = 8;
}
impl Format for F64 {
    const BITS: u32 = 64;
    const FRAC: u32 = 52;
    const EXP: u32 = 11;
}

/// Sign bit set.
#[inline]
pub fn sign<F: Format>(a: u64) -> bool {
    a & F::SIGN != 0
}
/// Magnitude bits.
#[inline]
pub fn abs<F: Format>(a: u64) -> u64 {
    a & !F::SIGN & F::MASK
}
/// Biased exponent field.
#[inline]
pub fn biased_exp<F: Format>(a: u64) -> i32 {
    ((a & F::EXP_MASK) >> F::FRAC) as i32
}
/// NaN (quiet or signaling).
#[inline]
pub fn is_nan<F: Format>(a: u64) -> bool {
    abs::<F>(a) > F::INF
}
/// Signaling NaN.
#[inline]
pub fn is_snan<F: Format>(a: u64) -> bool {
    is_nan::<F>(a) && a & F::QUIET == 0
}
/// Infinity of either sign.
#[inline]
pub fn is_inf<F: Format>(a: u64) -> bool {
    abs::<F>(a) == F::INF
}
/// Zero of either sign.
#[inline]
pub fn is_zero<F: Format>(a: u64) -> bool {
    abs::<F>(a) == 0
}
/// Nonzero denormal.
#[inline]
pub fn is_denorm<F: Format>(a: u64) -> bool {
    a & F::EXP_MASK == 0 && a & F::FRAC_MASK != 0
}
/// Finite (zero, denormal or normal).
#[inline]
pub fn is_finite<F: Format>(a: u64) -> bool {
    a & F::EXP_MASK != F::EXP_MASK
}
/// The NaN with its quiet bit set.
#[inline]
pub fn quiet<F: Format>(a: u64) -> u64 {
    a | F::QUIET
}
/// Signed zero with `a`'s sign.
#[inline]
pub fn signed_zero<F: Format>(neg: bool) -> u64 {
    if neg {
        F::SIGN
    } else {
        0
    }
}

/// A finite value `(-1)^neg * mant * 2^exp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unpacked {
    /// Sign.
    pub neg: bool,
    /// Scale of `mant`'s least significant bit.
    pub exp: i32,
    /// Integer significand (0 for zero).
    pub mant: u128,
}

/// Splits a finite value (zero and denormals included).
#[inline]
pub fn unpack<F: Format>(a: u64) -> Unpacked {
    let e = biased_exp::<F>(a);
    let f = a & F::FRAC_MASK;
    let (exp, mant) = if e == 0 {
        (1 - F::BIAS - F::FRAC as i32, f as u128)
    } else {
        (e - F::BIAS - F::FRAC as i32, (f | 1 << F::FRAC) as u128)
    };
    Unpacked {
        neg: sign::<F>(a),
        exp,
        mant,
    }
}

/// Does rounding in direction `rm` away from the truncated value happen,
/// given the truncated value's parity, the first dropped bit and whether
/// any later dropped bit is set.
#[inline]
fn round_up(rm: Round, neg: bool, odd: bool, half: bool, sticky: bool) -> bool {
    match rm {
        Round::NearestEven => half && (sticky || odd),
        Round::Up => !neg && (half || sticky),
        Round::Down => neg && (half || sticky),
        Round::Zero => false,
    }
}

/// The result of overflow in direction `rm`.
#[inline]
fn overflow<F: Format>(neg: bool, rm: Round) -> u64 {
    let to_inf = match rm {
        Round::NearestEven => true,
        Round::Up => !neg,
        Round::Down => neg,
        Round::Zero => false,
    };
    signed_zero::<F>(neg) | if to_inf { F::INF } else { F::MAX }
}

/// Rounds `(-1)^neg * (mant + s) * 2^exp` to the format, where `s` is some
/// value in (0, 1) if `sticky` and 0 otherwise. An exact zero (`mant == 0`,
/// no sticky) gives a zero of sign `neg`.
#[inline]
pub fn round_pack<F: Format>(neg: bool, exp: i32, mant: u128, sticky: bool, rm: Round) -> u64 {
    let sz = signed_zero::<F>(neg);
    if mant == 0 {
        if !sticky {
            return sz;
        }
        // A value strictly between 0 and 2^exp: only matters for directed
        // rounding when 2^exp is below the smallest denormal.
        let min_exp = 1 - F::BIAS - F::FRAC as i32;
        if exp <= min_exp {
            return if round_up(rm, neg, false, false, true) {
                sz | 1
            } else {
                sz
            };
        }
        // Larger scales cannot be produced by the callers.
        return round_pack::<F>(neg, exp - 2, 1, true, rm);
    }
    let msb = 127 - mant.leading_zeros() as i32;
    let top = exp.saturating_add(msb);
    let emin = 1 - F::BIAS;
    let lsb = top.max(emin) - F::FRAC as i32;
    let shift = lsb.saturating_sub(exp);
    let (mut q, half, rest) = if shift <= 0 {
        (mant << (-shift) as u32, false, sticky)
    } else if shift > 128 {
        (0, false, true)
    } else if shift == 128 {
        (0, mant >> 127 != 0, sticky || mant & (u128::MAX >> 1) != 0)
    } else {
        let s = shift as u32;
        let q = mant >> s;
        let half = (mant >> (s - 1)) & 1 != 0;
        let rest_mask = if s >= 2 { (1u128 << (s - 1)) - 1 } else { 0 };
        (q, half, sticky || mant & rest_mask != 0)
    };
    let mut lsb = lsb;
    if round_up(rm, neg, q & 1 != 0, half, rest) {
        q += 1;
        if q >> (F::FRAC + 1) != 0 {
            q >>= 1;
            lsb += 1;
        }
    }
    if q >> F::FRAC != 0 {
        let biased = lsb + F::FRAC as i32 + F::BIAS;
        if biased >= F::EMAX_BIASED {
            return overflow::<F>(neg, rm);
        }
        sz | (biased as u64) << F::FRAC | (q as u64 & F::FRAC_MASK)
    } else {
        sz | q as u64
    }
}

/// Quiets and propagates the first NaN of two operands (call only when one
/// of them is a NaN).
#[inline]
pub fn propagate2<F: Format>(a: u64, b: u64) -> u64 {
    if is_nan::<F>(a) {
        quiet::<F>(a)
    } else {
        quiet::<F>(b)
    }
}

/// Quiets and propagates the first NaN of three operands.
#[inline]
pub fn propagate3<F: Format>(a: u64, b: u64, c: u64) -> u64 {
    if is_nan::<F>(a) {
        quiet::<F>(a)
    } else if is_nan::<F>(b) {
        quiet::<F>(b)
    } else {
        quiet::<F>(c)
    }
}

/// Exact signed sum of two unpacked values (mantissas of at most 107 bits),
/// returned as `(neg, exp, mant)` where the mantissa's least significant
/// bit may be a jammed sticky bit well below the rounding position. Exact
/// zero sums come back with `mant == 0` and the sign undecided (false).
#[inline]
fn add_unpacked(x: Unpacked, y: Unpacked) -> (bool, i32, u128) {
    if x.mant == 0 {
        return (y.neg, y.exp, y.mant);
    }
    if y.mant == 0 {
        return (x.neg, x.exp, x.mant);
    }
    // Place both MSBs at bit 125.
    let nx = x.mant.leading_zeros() as i32 - 2;
    let ny = y.mant.leading_zeros() as i32 - 2;
    let (mut xm, mut xe) = (x.mant << nx, x.exp - nx);
    let (mut ym, mut ye) = (y.mant << ny, y.exp - ny);
    let (mut xn, mut yn) = (x.neg, y.neg);
    if ye > xe {
        std::mem::swap(&mut xm, &mut ym);
        std::mem::swap(&mut xe, &mut ye);
        std::mem::swap(&mut xn, &mut yn);
    }
    let d = (xe - ye) as u32;
    let ym = if d == 0 {
        ym
    } else if d >= 127 {
        1 // only sticky survives
    } else {
        (ym >> d) | ((ym & ((1u128 << d) - 1) != 0) as u128)
    };
    if xn == yn {
        (xn, xe, xm + ym)
    } else if xm >= ym {
        (xn, xe, xm - ym)
    } else {
        (yn, xe, ym - xm)
    }
}

/// Sign of an exact zero sum of two nonzero-or-zero terms with signs
/// `an`, `bn`: IEEE 754 §6.3.
#[inline]
fn zero_sum_sign(an: bool, bn: bool, rm: Round) -> bool {
    if an == bn {
        an
    } else {
        rm == Round::Down
    }
}

/// a + b.
#[inline]
pub fn add<F: Format>(a: u64, b: u64, rm: Round) -> u64 {
    if is_nan::<F>(a) || is_nan::<F>(b) {
        return propagate2::<F>(a, b);
    }
    let (ai, bi) = (is_inf::<F>(a), is_inf::<F>(b));
    if ai || bi {
        if ai && bi && sign::<F>(a) != sign::<F>(b) {
            return F::DEFAULT_NAN;
        }
        return if ai { a } else { b };
    }
    let (x, y) = (unpack::<F>(a), unpack::<F>(b));
    let (neg, exp, mant) = add_unpacked(x, y);
    if mant == 0 {
        return signed_zero::<F>(zero_sum_sign(x.neg, y.neg, rm));
    }
    round_pack::<F>(neg, exp, mant, false, rm)
}

/// a - b.
#[inline]
pub fn sub<F: Format>(a: u64, b: u64, rm: Round) -> u64 {
    if is_nan::<F>(b) {
        return propagate2::<F>(a, b);
    }
    add::<F>(a, b ^ F::SIGN, rm)
}

/// a * b.
#[inline]
pub fn mul<F: Format>(a: u64, b: u64, rm: Round) -> u64 {
    if is_nan::<F>(a) || is_nan::<F>(b) {
        return propagate2::<F>(a, b);
    }
    let neg = sign::<F>(a) != sign::<F>(b);
    if is_inf::<F>(a) || is_inf::<F>(b) {
        if is_zero::<F>(a) || is_zero::<F>(b) {
            return F::DEFAULT_NAN;
        }
        return signed_zero::<F>(neg) | F::INF;
    }
    let (x, y) = (unpack::<F>(a), unpack::<F>(b));
    round_pack::<F>(neg, x.exp + y.exp, x.mant * y.mant, false, rm)
}

/// a * b + c with one rounding, `scale` added to the exact result's
/// exponent before rounding (0 for a plain fused multiply-add;
/// `v_div_fmas` uses ±64/±128).
#[inline]
pub fn fma_scaled<F: Format>(a: u64, b: u64, c: u64, scale: i32, rm: Round) -> u64 {
    if is_nan::<F>(a) || is_nan::<F>(b) || is_nan::<F>(c) {
        return propagate3::<F>(a, b, c);
    }
    let pneg = sign::<F>(a) != sign::<F>(b);
    let (ai, bi, ci) = (is_inf::<F>(a), is_inf::<F>(b), is_inf::<F>(c));
    if ai || bi {
        if is_zero::<F>(a) || is_zero::<F>(b) {
            return F::DEFAULT_NAN;
        }
        if ci && sign::<F>(c) != pneg {
            return F::DEFAULT_NAN;
        }
        return signed_zero::<F>(pneg) | F::INF;
    }
    if ci {
        return c;
    }
    let (x, y) = (unpack::<F>(a), unpack::<F>(b));
    let p = Unpacked {
        neg: pneg,
        exp: x.exp + y.exp,
        mant: x.mant * y.mant,
    };
    let z = unpack::<F>(c);
    let (neg, exp, mant) = add_unpacked(p, z);
    if mant == 0 {
        return signed_zero::<F>(zero_sum_sign(p.neg, z.neg, rm));
    }
    round_pack::<F>(neg, exp + scale, mant, false, rm)
}

/// a * b + c on format-S operands, rounded once into format D (what the
/// mixed-precision `v_mad_mixlo/hi_f16` compute). NaN operands propagate
/// (quieted, converted); invalid operations give D's default NaN.
#[inline]
pub fn fma_convert<S: Format, D: Format>(a: u64, b: u64, c: u64, rm: Round) -> u64 {
    if is_nan::<S>(a) || is_nan::<S>(b) || is_nan::<S>(c) {
        return convert::<S, D>(propagate3::<S>(a, b, c), rm);
    }
    let pneg = sign::<S>(a) != sign::<S>(b);
    let (ai, bi, ci) = (is_inf::<S>(a), is_inf::<S>(b), is_inf::<S>(c));
    if ai || bi {
        if is_zero::<S>(a) || is_zero::<S>(b) || (ci && sign::<S>(c) != pneg) {
            return D::DEFAULT_NAN;
        }
        return signed_zero::<D>(pneg) | D::INF;
    }
    if ci {
        return signed_zero::<D>(sign::<S>(c)) | D::INF;
    }
    let (x, y) = (unpack::<S>(a), unpack::<S>(b));
    let p = Unpacked {
        neg: pneg,
        exp: x.exp + y.exp,
        mant: x.mant * y.mant,
    };
    let z = unpack::<S>(c);
    let (neg, exp, mant) = add_unpacked(p, z);
    if mant == 0 {
        return signed_zero::<D>(zero_sum_sign(p.neg, z.neg, rm));
    }
    round_pack::<D>(neg, exp, mant, false, rm)
}

/// a * b + c with one rounding.
#[inline]
pub fn fma<F: Format>(a: u64, b: u64, c: u64, rm: Round) -> u64 {
    fma_scaled::<F>(a, b, c, 0, rm)
}

/// a / b.
#[inline]
pub fn div<F: Format>(a: u64, b: u64, rm: Round) -> u64 {
    if is_nan::<F>(a) || is_nan::<F>(b) {
        return propagate2::<F>(a, b);
    }
    let neg = sign::<F>(a) != sign::<F>(b);
    let sz = signed_zero::<F>(neg);
    let (ai, bi) = (is_inf::<F>(a), is_inf::<F>(b));
    let (az, bz) = (is_zero::<F>(a), is_zero::<F>(b));
    if (ai && bi) || (az && bz) {
        return F::DEFAULT_NAN;
    }
    if ai || bz {
        return sz | F::INF;
    }
    if bi || az {
        return sz;
    }
    let (x, y) = (unpack::<F>(a), unpack::<F>(b));
    // Normalise both to 64-bit significands with the MSB at bit 63.
    let nx = x.mant.leading_zeros() as i32 - 64;
    let ny = y.mant.leading_zeros() as i32 - 64;
    let xm = x.mant << nx;
    let ym = y.mant << ny;
    let num = xm << 64;
    let q = num / ym;
    let r = num % ym;
    let exp = (x.exp - nx) - (y.exp - ny) - 64;
    round_pack::<F>(neg, exp, q, r != 0, rm)
}

/// Square root.
#[inline]
pub fn sqrt<F: Format>(a: u64, rm: Round) -> u64 {
    if is_nan::<F>(a) {
        return quiet::<F>(a);
    }
    if is_zero::<F>(a) {
        return a;
    }
    if sign::<F>(a) {
        return F::DEFAULT_NAN;
    }
    if is_inf::<F>(a) {
        return a;
    }
    let x = unpack::<F>(a);
    // Shift the significand up (by an even amount when the exponent is
    // even) so the root has about 63 bits.
    let lz = x.mant.leading_zeros() as i32;
    let mut s = lz - 1; // MSB at 126
    if (x.exp - s) & 1 != 0 {
        s += 1; // MSB at 125..127, exponent even
    }
    let m = x.mant << s;
    let e = x.exp - s;
    let r = m.isqrt();
    round_pack::<F>(false, e / 2, r, r * r != m, rm)
}

/// Converts between formats with one rounding (NaN payloads keep their top
/// fraction bits and become quiet).
#[inline]
pub fn convert<S: Format, D: Format>(a: u64, rm: Round) -> u64 {
    let neg = sign::<S>(a);
    let sz = signed_zero::<D>(neg);
    if is_nan::<S>(a) {
        let frac = a & S::FRAC_MASK;
        let payload = if D::FRAC >= S::FRAC {
            frac << (D::FRAC - S::FRAC)
        } else {
            frac >> (S::FRAC - D::FRAC)
        };
        return sz | D::EXP_MASK | D::QUIET | payload;
    }
    if is_inf::<S>(a) {
        return sz | D::INF;
    }
    let x = unpack::<S>(a);
    round_pack::<D>(neg, x.exp, x.mant, false, rm)
}

/// `x * 2^n` with one rounding.
#[inline]
pub fn ldexp<F: Format>(a: u64, n: i32, rm: Round) -> u64 {
    if is_nan::<F>(a) {
        return quiet::<F>(a);
    }
    if is_inf::<F>(a) || is_zero::<F>(a) {
        return a;
    }
    let x = unpack::<F>(a);
    let n = n.clamp(-4096, 4096);
    round_pack::<F>(x.neg, x.exp + n, x.mant, false, rm)
}

/// An integer `(-1)^neg * mag` rounded to the format.
#[inline]
pub fn from_int<F: Format>(neg: bool, mag: u128, rm: Round) -> u64 {
    if mag == 0 {
        return 0;
    }
    round_pack::<F>(neg, 0, mag, false, rm)
}

/// How [`round_int`] rounds to an integral value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntRound {
    /// Toward zero.
    Trunc,
    /// Toward -inf.
    Floor,
    /// Toward +inf.
    Ceil,
    /// To nearest, ties to even.
    NearestEven,
}

/// Rounds a finite value to an integral value of the same format. The
/// result keeps the input's sign (so `trunc(-0.5) = -0`,
/// `ceil(-0.5) = -0`); NaNs are quieted, infinities pass.
#[inline]
pub fn round_int<F: Format>(a: u64, how: IntRound) -> u64 {
    if is_nan::<F>(a) {
        return quiet::<F>(a);
    }
    if !is_finite::<F>(a) || is_zero::<F>(a) {
        return a;
    }
    let neg = sign::<F>(a);
    let e = biased_exp::<F>(a) - F::BIAS; // value in [2^e, 2^(e+1))
    if e >= F::FRAC as i32 {
        return a; // already integral
    }
    let one = F::ONE | signed_zero::<F>(neg);
    let zero = signed_zero::<F>(neg);
    if e < 0 {
        // 0 < |a| < 1
        let up = match how {
            IntRound::Trunc => false,
            IntRound::Floor => neg,
            IntRound::Ceil => !neg,
            // |a| > 0.5 rounds to 1; exactly 0.5 ties to 0.
            IntRound::NearestEven => e == -1 && a & F::FRAC_MASK != 0,
        };
        return if up { one } else { zero };
    }
    let frac_bits = F::FRAC - e as u32; // fraction bits below the binary point
    let mask = (1u64 << frac_bits) - 1;
    if a & mask == 0 {
        return a;
    }
    let trunc = a & !mask;
    let half = 1u64 << (frac_bits - 1);
    let rest = a & mask;
    let up = match how {
        IntRound::Trunc => false,
        IntRound::Floor => neg,
        IntRound::Ceil => !neg,
        IntRound::NearestEven => rest > half || (rest == half && (a >> frac_bits) & 1 != 0),
    };
    if up {
        // Adding one unit at bit frac_bits carries into the exponent when
        // needed, which is the right encoding.
        trunc + (1u64 << frac_bits)
    } else {
        trunc
    }
}

/// Total-order-free IEEE comparison: `None` if unordered, else the ordering
/// of the values (`-0 == +0`).
#[inline]
pub fn compare<F: Format>(a: u64, b: u64) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    if is_nan::<F>(a) || is_nan::<F>(b) {
        return None;
    }
    if is_zero::<F>(a) && is_zero::<F>(b) {
        return Some(Ordering::Equal);
    }
    let key = |x: u64| -> i128 {
        let m = abs::<F>(x) as i128;
        if sign::<F>(x) {
            -m
        } else {
            m
        }
    };
    Some(key(a).cmp(&key(b)))
}

//! Transcendental and reciprocal units: `v_rcp`, `v_rsq`, `v_sqrt`,
//! `v_exp` (2^x), `v_log` (log2), `v_sin`/`v_cos` (argument in revolutions).
//!
//! The hardware results are approximations (1 ULP for the f32/f16 forms,
//! about 2^29 ULP for f64 rcp/rsq/sqrt, which only seed Newton iterations).
//! Bit-exact hardware tables are not public, so this model returns the
//! correctly rounded (nearest-even) value where that is cheap (rcp, sqrt
//! of every precision; every f16 function, computed in f64 and rounded
//! once) and otherwise the f64 result rounded once (rsq, exp, log, sin, cos
//! in f32; rsq f64 is 1/sqrt with two f64 roundings), which is within one
//! ULP and almost always the correctly rounded value. The rounding mode is
//! ignored, as for an approximate unit.
//!
//! Special values follow the manual's tables exactly: rcp(±0) = ±inf,
//! rcp(±inf) = ±0, rsq(-0) = -inf, rsq(x<0) = NaN, sqrt(-0) = -0,
//! exp(-inf) = +0, log(±0) = -inf, log(x<0) = NaN, sin/cos(±inf) = NaN;
//! a NaN input is returned quieted; invalid cases give the negative
//! default NaN (0xffc00000 / 0xfe00 / 0xfff8000000000000).
//!
//! Denormals: the f32 exp, log, rcp, rsq and sqrt units flush denormal
//! inputs and results whatever the mode says (the manual: "denormals are
//! flushed"); f32 sin/cos, every f16 function and the f64 functions honour
//! the mode's denormal fields.

use super::float::{flush_in, flush_out, Arith};
use super::mode::{FpCtl, Mode, Round};
use super::soft::{self, Format, F16, F32, F64};

/// Rounds an f64 approximation into format F (nearest-even), mapping a NaN
/// produced from a non-NaN input to the default NaN.
#[inline]
fn from_f64<F: Format>(x: f64) -> u64 {
    if x.is_nan() {
        return F::DEFAULT_NAN;
    }
    soft::convert::<F64, F>(x.to_bits(), Round::NearestEven)
}

/// The exact value of a (non-NaN) F as f64 (every f16/f32 value fits).
#[inline]
fn to_f64<F: Format>(a: u64) -> f64 {
    f64::from_bits(soft::convert::<F, F64>(a, Round::NearestEven))
}

/// Applies a unary f64 function to a value of format F with the given
/// denormal controls.
#[inline]
fn unary<F: Format>(a: u64, ctl: FpCtl, f: impl Fn(f64) -> f64) -> u64 {
    let a = flush_in::<F>(a, ctl);
    if soft::is_nan::<F>(a) {
        return soft::quiet::<F>(a);
    }
    flush_out::<F>(from_f64::<F>(f(to_f64::<F>(a))), ctl)
}

#[inline]
fn rsq64(x: f64) -> f64 {
    if x < 0.0 {
        f64::NAN
    } else {
        1.0 / x.sqrt()
    }
}

#[inline]
fn log2_64(x: f64) -> f64 {
    if x < 0.0 {
        f64::NAN
    } else {
        x.log2()
    }
}

/// sin(2πx) for x in revolutions, with exact argument reduction: the
/// integer part of x is dropped exactly and the remainder is folded into
/// [-1/8, 1/8] so quarter and half revolutions give exact 0 and ±1.
#[inline]
pub fn sin_rev(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    if x == 0.0 {
        return x;
    }
    let r = x - x.round(); // exact, in [-0.5, 0.5]
    let (s, a) = if r < 0.0 { (-1.0, -r) } else { (1.0, r) };
    let tau = std::f64::consts::TAU;
    let v = if a <= 0.125 {
        (tau * a).sin()
    } else if a <= 0.375 {
        (tau * (0.25 - a)).cos()
    } else {
        (tau * (0.5 - a)).sin()
    };
    if v == 0.0 {
        return 0.0; // whole and half turns of a nonzero input: +0
    }
    s * v
}

/// cos(2πx) for x in revolutions (see [`sin_rev`]).
#[inline]
pub fn cos_rev(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let r = x - x.round();
    let a = r.abs();
    let tau = std::f64::consts::TAU;
    if a <= 0.125 {
        (tau * a).cos()
    } else if a <= 0.375 {
        (tau * (0.25 - a)).sin()
    } else {
        -(tau * (0.5 - a)).cos()
    }
}

// ---- f32 -----------------------------------------------------------------

/// `v_rcp_f32` (and `v_rcp_iflag_f32`): 1/x, denormals flushed both ways.
#[inline]
pub fn rcp_f32(a: u32, _m: Mode) -> u32 {
    let ctl = FpCtl::FTZ;
    let a = flush_in::<F32>(a as u64, ctl) as u32;
    if soft::is_nan::<F32>(a as u64) {
        return a | F32::QUIET as u32;
    }
    flush_out::<F32>((1.0f32 / f32::from_bits(a)).to_bits() as u64, ctl) as u32
}

/// `v_rcp_iflag_f32`: as [`rcp_f32`] (differs only in exception reporting).
#[inline]
pub fn rcp_iflag_f32(a: u32, m: Mode) -> u32 {
    rcp_f32(a, m)
}

/// `v_sqrt_f32`: correctly rounded square root, denormals flushed.
#[inline]
pub fn sqrt_f32(a: u32, _m: Mode) -> u32 {
    let ctl = FpCtl::FTZ;
    let a = flush_in::<F32>(a as u64, ctl) as u32;
    if soft::is_nan::<F32>(a as u64) {
        return a | F32::QUIET as u32;
    }
    let r = f32::from_bits(a).sqrt();
    if r.is_nan() {
        return F32::DEFAULT_NAN as u32;
    }
    flush_out::<F32>(r.to_bits() as u64, ctl) as u32
}

/// `v_rsq_f32`: 1/sqrt(x), denormals flushed.
#[inline]
pub fn rsq_f32(a: u32, _m: Mode) -> u32 {
    unary::<F32>(a as u64, FpCtl::FTZ, rsq64) as u32
}

/// `v_exp_f32`: 2^x, denormals flushed.
#[inline]
pub fn exp_f32(a: u32, _m: Mode) -> u32 {
    unary::<F32>(a as u64, FpCtl::FTZ, f64::exp2) as u32
}

/// `v_log_f32`: log2(x), denormals flushed (so a denormal input gives -inf).
#[inline]
pub fn log_f32(a: u32, _m: Mode) -> u32 {
    unary::<F32>(a as u64, FpCtl::FTZ, log2_64) as u32
}

/// `v_sin_f32`: sin(x * 2π); denormals per mode.
#[inline]
pub fn sin_f32(a: u32, m: Mode) -> u32 {
    unary::<F32>(a as u64, m.f32(), sin_rev) as u32
}

/// `v_cos_f32`: cos(x * 2π); denormals per mode.
#[inline]
pub fn cos_f32(a: u32, m: Mode) -> u32 {
    unary::<F32>(a as u64, m.f32(), cos_rev) as u32
}

// ---- f64 -----------------------------------------------------------------

/// `v_rcp_f64`: correctly rounded 1/x (the hardware is far less accurate);
/// denormals per mode.
#[inline]
pub fn rcp_f64(a: u64, m: Mode) -> u64 {
    let ctl = m.f64();
    let a = flush_in::<F64>(a, ctl);
    if soft::is_nan::<F64>(a) {
        return soft::quiet::<F64>(a);
    }
    flush_out::<F64>((1.0f64 / f64::from_bits(a)).to_bits(), ctl)
}

/// `v_sqrt_f64`: correctly rounded square root; denormals per mode.
#[inline]
pub fn sqrt_f64(a: u64, m: Mode) -> u64 {
    unary::<F64>(a, m.f64(), f64::sqrt)
}

/// `v_rsq_f64`: 1/sqrt(x) (two f64 roundings); denormals per mode.
#[inline]
pub fn rsq_f64(a: u64, m: Mode) -> u64 {
    unary::<F64>(a, m.f64(), rsq64)
}

// ---- f16 -----------------------------------------------------------------

macro_rules! f16_unary {
    ($($(#[$doc:meta])* $name:ident = $f:expr;)*) => {$(
        $(#[$doc])*
        #[inline]
        pub fn $name(a: u16, m: Mode) -> u16 {
            unary::<F16>(a as u64, <F16 as Arith>::ctl(m), $f) as u16
        }
    )*};
}

f16_unary! {
    /// `v_rcp_f16`: correctly rounded 1/x; denormals per mode.
    rcp_f16 = |x: f64| 1.0 / x;
    /// `v_sqrt_f16`: correctly rounded; denormals per mode.
    sqrt_f16 = f64::sqrt;
    /// `v_rsq_f16`; denormals per mode.
    rsq_f16 = rsq64;
    /// `v_exp_f16` (2^x); denormals per mode.
    exp_f16 = f64::exp2;
    /// `v_log_f16` (log2); denormals per mode.
    log_f16 = log2_64;
    /// `v_sin_f16` (argument in revolutions); denormals per mode.
    sin_f16 = sin_rev;
    /// `v_cos_f16` (argument in revolutions); denormals per mode.
    cos_f16 = cos_rev;
}

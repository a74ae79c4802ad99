//! f32/f64 lane operations on host floats, for the interpreter's
//! vectorised lane loops (`lanes::map*_f32` and the f64 loop).
//!
//! Each is exact under round-to-nearest-even, the only rounding the
//! interpreter runs float code under (other roundings stop before the
//! instruction runs). The caller applies input modifiers, MODE's denormal
//! flushing (before and after) and omod/clamp; a NaN result is the host's
//! quiet NaN. [`float`](super::float) holds the bit-exact versions for
//! any rounding (`add_f32`, `fma_f64`, …), which the lane loops fall back
//! to where the host's answer is not the hardware's.

/// `v_add_f32`.
#[inline]
pub fn add_f32(a: f32, b: f32) -> f32 {
    a + b
}
/// `v_sub_f32` (`v_subrev_f32` is `sub_f32(b, a)`).
#[inline]
pub fn sub_f32(a: f32, b: f32) -> f32 {
    a - b
}
/// `v_mul_f32`.
#[inline]
pub fn mul_f32(a: f32, b: f32) -> f32 {
    a * b
}
/// `v_fma_f32`, `v_fmac_f32`, `v_fmaak_f32`, `v_fmamk_f32`: one rounding.
#[inline]
pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// A denormal f32 as a zero of its sign.
#[inline]
fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// `v_mad_f32`/`v_mac_f32`/`v_madak_f32`/`v_madmk_f32`: the product is
/// rounded before the add (not fused), and denormals are flushed whatever
/// MODE says (inputs, the product and the result), as
/// [`float::mad`](super::float::mad) defines it.
#[inline]
pub fn mad_f32(a: f32, b: f32, c: f32) -> f32 {
    ftz(ftz(ftz(a) * ftz(b)) + ftz(c))
}
/// `v_rcp_f32`: 1/x.
#[inline]
pub fn rcp_f32(a: f32) -> f32 {
    1.0 / a
}
/// `v_rsq_f32`: 1/sqrt(x), the root taken in f64.
#[inline]
pub fn rsq_f32(a: f32) -> f32 {
    (1.0 / f64::from(a).sqrt()) as f32
}
/// `v_sqrt_f32`: correctly rounded.
#[inline]
pub fn sqrt_f32(a: f32) -> f32 {
    a.sqrt()
}
/// `v_exp_f32` and `v_exp_legacy_f32`: 2^x.
///
/// The legacy forms (GFX9 VOP1 75/76) have the same definition in AMD's
/// Vega, MI100, MI200 and MI300 manuals (`D.f = pow(2.0, S0.f)`, "with
/// legacy semantics" that no manual spells out); they run the IEEE special
/// values of `v_exp_f32` and `v_log_f32` (exp2(-inf) = +0, log2(+-0) =
/// -inf, log2(x < 0) = NaN).
#[inline]
pub fn exp_f32(a: f32) -> f32 {
    f64::from(a).exp2() as f32
}
/// `v_log_f32` and `v_log_legacy_f32`: log2(x) (see [`exp_f32`]).
#[inline]
pub fn log_f32(a: f32) -> f32 {
    f64::from(a).log2() as f32
}
/// `v_sin_f32`: the input is in revolutions (sin(2*pi*a)); x - round(x) is
/// exact for every f32, so the reduction to [-0.5, 0.5] keeps the sign and
/// relative precision of small inputs (sin(+-0) = +-0).
#[inline]
pub fn sin_f32(a: f32) -> f32 {
    if a == 0.0 {
        a
    } else {
        let r = f64::from(a) - f64::from(a).round();
        (r * std::f64::consts::TAU).sin() as f32
    }
}
/// `v_cos_f32`: the input in revolutions, reduced as [`sin_f32`] does.
#[inline]
pub fn cos_f32(a: f32) -> f32 {
    let r = f64::from(a) - f64::from(a).round();
    (r * std::f64::consts::TAU).cos() as f32
}
/// `v_trunc_f32`.
#[inline]
pub fn trunc_f32(a: f32) -> f32 {
    a.trunc()
}
/// `v_ceil_f32`.
#[inline]
pub fn ceil_f32(a: f32) -> f32 {
    a.ceil()
}
/// `v_floor_f32`.
#[inline]
pub fn floor_f32(a: f32) -> f32 {
    a.floor()
}
/// `v_rndne_f32`: round half to even.
#[inline]
pub fn rndne_f32(a: f32) -> f32 {
    a.round_ties_even()
}
/// `v_fract_f32`: `x - floor(x)`, below 1.0; NaN for an infinity.
#[inline]
pub fn fract_f32(a: f32) -> f32 {
    if a.is_infinite() {
        f32::NAN
    } else {
        (a - a.floor()).min(f32::from_bits(0x3f7f_ffff))
    }
}
/// `v_ldexp_f32`: `a * 2^e`, exact in f64 (the exponent clamped to
/// +-400, beyond which every f32 result is already 0 or infinity) and
/// rounded once to f32.
#[inline]
pub fn ldexp_f32(a: f32, e: i32) -> f32 {
    (f64::from(a) * 2f64.powi(e.clamp(-400, 400))) as f32
}
/// `v_add_f64`.
#[inline]
pub fn add_f64(a: f64, b: f64) -> f64 {
    a + b
}
/// `v_mul_f64`.
#[inline]
pub fn mul_f64(a: f64, b: f64) -> f64 {
    a * b
}
/// `v_fma_f64`, `v_fmac_f64`: one rounding.
#[inline]
pub fn fma_f64(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

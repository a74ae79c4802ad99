//! gfx950 (CDNA4) vector ALU additions, one lane at a time: IEEE 754-2019
//! `minimum`/`maximum` of three operands (f32 and packed f16), the
//! three-input truth table `v_bitop3_*`, the saturating byte packs
//! `v_ashr_pk_{i8,u8}_i32`, and the two-f32 packs `v_cvt_pk_{f16,bf16}_f32`.
//!
//! Rules (decision D51):
//!
//! * `minimum`/`maximum` (`v_minimum3_f32`, `v_maximum3_f32`,
//!   `v_pk_minimum3_f16`, `v_pk_maximum3_f16`) are IEEE 754-2019's: a NaN
//!   operand gives a NaN (the first NaN in operand order, quieted), and
//!   -0 orders below +0. Denormal inputs are flushed to a signed zero when
//!   MODE asks for it (f32: `denorm_f32`; f16: `denorm_f64_f16`), as the
//!   other min/max operations do; the result is one of the (flushed)
//!   inputs, so output flushing changes nothing.
//! * `v_bitop3_b32 D, S0, S1, S2 bitop3:T`: bit `i` of D is bit
//!   `S0[i]·4 + S1[i]·2 + S2[i]` of the 8-bit table T (so T = 0xf0 is S0,
//!   0xcc is S1, 0xaa is S2). `_b16` does the same on the low 16 bits.
//! * `v_ashr_pk_i8_i32 D, S0, S1, S2`: `S0 >> S2[4:0]` and `S1 >> S2[4:0]`
//!   (arithmetic), each saturated to i8 (`_u8_i32`: to 0..255), packed into
//!   D[7:0] and D[15:8]; a 16-bit result.
//! * `v_cvt_pk_f16_f32 D, S0, S1`: two f32 rounded to f16 under MODE's
//!   rounding and f16 denormal controls (as `v_cvt_f16_f32`), S0 in the low
//!   half; `v_cvt_pk_bf16_f32` rounds to bf16, nearest even.

use super::soft::{self, Format, F16, F32};
use super::Mode;

/// Flushes a denormal input of `F` to a signed zero when `flush` is set.
fn flush<F: Format>(x: u64, flush: bool) -> u64 {
    if flush && x & F::EXP_MASK == 0 {
        x & F::SIGN
    } else {
        x
    }
}

/// IEEE 754-2019 `minimum` (`max == false`) or `maximum` of `F` values
/// (bits), NaN-propagating, -0 < +0.
fn minmax<F: Format>(a: u64, b: u64, max: bool) -> u64 {
    if soft::is_nan::<F>(a) {
        return soft::quiet::<F>(a);
    }
    if soft::is_nan::<F>(b) {
        return soft::quiet::<F>(b);
    }
    // Order as sign-magnitude integers: negative values reversed.
    let key = |x: u64| -> i64 {
        let mag = (x & !F::SIGN) as i64;
        if x & F::SIGN != 0 {
            -mag - 1
        } else {
            mag
        }
    };
    let a_first = if max {
        key(a) >= key(b)
    } else {
        key(a) <= key(b)
    };
    if a_first {
        a
    } else {
        b
    }
}

fn three<F: Format>(a: u64, b: u64, c: u64, max: bool, fl: bool) -> u64 {
    let (a, b, c) = (flush::<F>(a, fl), flush::<F>(b, fl), flush::<F>(c, fl));
    minmax::<F>(minmax::<F>(a, b, max), c, max)
}

/// `v_minimum3_f32`.
pub fn minimum3_f32(a: u32, b: u32, c: u32, m: Mode) -> u32 {
    let fl = !m.denorm_f32.allow_in;
    three::<F32>(a.into(), b.into(), c.into(), false, fl) as u32
}

/// `v_maximum3_f32`.
pub fn maximum3_f32(a: u32, b: u32, c: u32, m: Mode) -> u32 {
    let fl = !m.denorm_f32.allow_in;
    three::<F32>(a.into(), b.into(), c.into(), true, fl) as u32
}

/// One f16 `minimum3`/`maximum3` (bits in the low half).
pub fn minmax3_f16(a: u16, b: u16, c: u16, max: bool, m: Mode) -> u16 {
    let fl = !m.denorm_f64_f16.allow_in;
    three::<F16>(a.into(), b.into(), c.into(), max, fl) as u16
}

/// `v_pk_minimum3_f16` (`max == false`) / `v_pk_maximum3_f16` on both
/// halves.
pub fn pk_minmax3_f16(a: u32, b: u32, c: u32, max: bool, m: Mode) -> u32 {
    let lo = minmax3_f16(a as u16, b as u16, c as u16, max, m);
    let hi = minmax3_f16((a >> 16) as u16, (b >> 16) as u16, (c >> 16) as u16, max, m);
    u32::from(lo) | u32::from(hi) << 16
}

/// `v_bitop3_b32` with truth table `tt`.
pub fn bitop3(a: u32, b: u32, c: u32, tt: u8) -> u32 {
    let mut r = 0;
    for k in 0..8u32 {
        if tt >> k & 1 == 0 {
            continue;
        }
        let pa = if k & 4 != 0 { a } else { !a };
        let pb = if k & 2 != 0 { b } else { !b };
        let pc = if k & 1 != 0 { c } else { !c };
        r |= pa & pb & pc;
    }
    r
}

/// `v_ashr_pk_i8_i32` (`unsigned == false`) / `v_ashr_pk_u8_i32`: the
/// 16-bit result.
pub fn ashr_pk(a: u32, b: u32, shift: u32, unsigned: bool) -> u16 {
    let (lo, hi) = if unsigned { (0, 255) } else { (-128, 127) };
    let one = |x: u32| ((x as i32) >> (shift & 31)).clamp(lo, hi) as u8;
    u16::from(one(a)) | u16::from(one(b)) << 8
}

/// `v_cvt_pk_f16_f32`.
pub fn cvt_pk_f16_f32(a: u32, b: u32, m: Mode) -> u32 {
    let h = |x: u32| u32::from(super::cvt::cvt_f16_f32(x, m));
    h(a) | h(b) << 16
}

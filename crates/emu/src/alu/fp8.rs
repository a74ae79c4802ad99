//! gfx942 (CDNA3) 8-bit floats: FP8 (E4M3) and BF8 (E5M2) in the FNUZ
//! encodings MI300 uses, and the conversions `v_cvt_f32_{fp8,bf8}`,
//! `v_cvt_pk_f32_{fp8,bf8}`, `v_cvt_pk_{fp8,bf8}_f32` and
//! `v_cvt_sr_{fp8,bf8}_f32` lane by lane.
//!
//! The formats (MI300 ISA, section 7.2, table 30): FP8 has exponent bias 8,
//! BF8 bias 16; there is no infinity and no negative zero: `0x80` is the
//! only NaN, every other code is a number (exponent field 0: subnormal).
//! Largest magnitudes 240 (`0x7f`) and 57344.
//!
//! f32 to 8 bits (section 7.2 and the instruction pseudocode):
//!
//! * NaN gives `0x80`.
//! * The packed conversions round to nearest, ties to even, whatever
//!   MODE's rounding says. MODE's denormal controls do not apply (section
//!   7.3: types narrower than 32 bits never flush).
//! * A result that rounds to 0 is `0x00` whatever the sign (no -0).
//! * Infinity and a magnitude that rounds above the largest number follow
//!   MODE.FP16_OVFL (bit 23; the table "FP16_OVFL rule"): set, they
//!   saturate to ±largest; clear (the HIP default), they give `0x80` (the
//!   manual's "±Inf" for BF8 is that same code in the FNUZ encoding).
//! * Stochastic rounding (`v_cvt_sr_*`): the manual adds the top bits of
//!   the seed, `S1[31:12]` for FP8 and `S1[31:11]` for BF8 (as many bits as
//!   the conversion drops below a normal result's last place), to the
//!   f32's mantissa and "then truncates to the smaller result data type"
//!   (section 7.2). The sum is taken on the magnitude's bits, so a carry
//!   out of the mantissa moves to the next binade (the instruction's
//!   pseudocode says the mantissa "wraps around"; that would send 1.99 to
//!   1.0 and make the rounding biased, which section 7.2 rules out). The
//!   truncation keeps the overflow rule above.

/// The two 8-bit formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum F8 {
    /// E4M3, bias 8.
    Fp8,
    /// E5M2, bias 16.
    Bf8,
}

impl F8 {
    /// Mantissa bits.
    const fn man(self) -> u32 {
        match self {
            F8::Fp8 => 3,
            F8::Bf8 => 2,
        }
    }
    /// Exponent bias.
    const fn bias(self) -> i32 {
        match self {
            F8::Fp8 => 8,
            F8::Bf8 => 16,
        }
    }
}

/// The single NaN code.
pub const NAN8: u8 = 0x80;

/// 8-bit code `b` as f32 bits (exact; `0x80` gives the default NaN).
pub fn to_f32(b: u8, f: F8) -> u32 {
    if b == NAN8 {
        return 0x7fc0_0000;
    }
    let sign = u32::from(b >> 7) << 31;
    let mag = u32::from(b & 0x7f);
    let (e, m) = (mag >> f.man(), mag & ((1 << f.man()) - 1));
    if e == 0 {
        if m == 0 {
            return 0;
        }
        // Subnormal m * 2^(1 - bias - man), normalised: its top bit p
        // becomes the hidden bit.
        let p = 31 - m.leading_zeros();
        let e32 = p as i32 + 1 - f.bias() - f.man() as i32 + 127;
        return sign | (e32 as u32) << 23 | (m & ((1 << p) - 1)) << (23 - p);
    }
    let e32 = e as i32 - f.bias() + 127;
    sign | (e32 as u32) << 23 | m << (23 - f.man())
}

/// How the dropped bits are rounded.
#[derive(Clone, Copy)]
enum Rnd {
    NearestEven,
    /// Add the seed bits (already aligned to the f32 mantissa), then
    /// truncate.
    Stochastic(u32),
}

/// MODE.FP16_OVFL (bit 23 of the raw MODE register): overflow saturates
/// instead of giving NaN.
pub fn saturates(mode: u32) -> bool {
    mode >> 23 & 1 == 1
}

/// `sat`: [`saturates`] of the wave's MODE.
fn convert(x: u32, f: F8, rnd: Rnd, sat: bool) -> u8 {
    let sign = (x >> 31) as u8;
    let mut a = x & 0x7fff_ffff;
    if a > 0x7f80_0000 {
        return NAN8;
    }
    let overflow = || {
        if sat {
            sign << 7 | 0x7f
        } else {
            NAN8
        }
    };
    if a == 0x7f80_0000 {
        return overflow();
    }
    let truncate = match rnd {
        Rnd::NearestEven => false,
        Rnd::Stochastic(r) => {
            a = a.saturating_add(r);
            if a >= 0x7f80_0000 {
                return overflow();
            }
            true
        }
    };
    // a = sig * 2^(exp - 23) with the hidden bit in sig for normal f32s.
    let e = (a >> 23) as i32;
    let (sig, exp) = if e == 0 {
        (u64::from(a & 0x7f_ffff), -126)
    } else {
        (u64::from(a & 0x7f_ffff | 0x80_0000), e - 127)
    };
    // The 8-bit exponent field the value lands in (at least 1: subnormals
    // share the quantum of the smallest binade).
    let field = (exp + f.bias()).max(1);
    // Last place of the result: 2^(field - bias - man).
    let shift = (field - f.bias() - f.man() as i32) - (exp - 23);
    let q = if shift >= 40 {
        0
    } else {
        let s = shift as u32;
        let kept = sig >> s;
        let rest = sig & ((1u64 << s) - 1);
        let half = 1u64 << s >> 1;
        if truncate || rest < half || (rest == half && kept & 1 == 0) {
            kept
        } else {
            kept + 1
        }
    };
    // Codes are monotonic: (field - 1) binades below, plus the quantum count
    // (a carry into the next binade lands on its first code).
    let code = (((field - 1) as u64) << f.man()) + q;
    if code > 0x7f {
        return overflow();
    }
    if code == 0 {
        return 0;
    }
    sign << 7 | code as u8
}

/// f32 bits to 8 bits, round to nearest even (`v_cvt_pk_*_f32`).
pub fn from_f32(x: u32, f: F8, sat: bool) -> u8 {
    convert(x, f, Rnd::NearestEven, sat)
}

/// f32 bits to 8 bits with stochastic rounding by `seed`
/// (`v_cvt_sr_*_f32`).
pub fn from_f32_sr(x: u32, seed: u32, f: F8, sat: bool) -> u8 {
    let drop = 23 - f.man();
    convert(x, f, Rnd::Stochastic(seed >> (32 - drop)), sat)
}

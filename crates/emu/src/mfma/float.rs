//! Small-format conversions the matrix core needs (private helpers; the ALU
//! module has its own).
//!
//! * f16 (IEEE binary16) and bf16 (the top half of an f32) widen exactly.
//! * fp8 and bf8 on gfx942 are AMD's "FNUZ" formats (LLVM/MLIR
//!   `f8E4M3FNUZ`, `f8E5M2FNUZ`; gfx950 moved to the OCP formats):
//!   E4M3 with exponent bias 8 and E5M2 with bias 16, no infinities, no
//!   negative zero, and the single NaN encoding 0x80. Both widen exactly.
//! * xf32 inputs are rounded to 10 explicit mantissa bits (the TF32 layout),
//!   round-to-nearest-even, before the multiply (see the module docs of
//!   [`super`] for why this rounding is an assumption).

/// binary16 to f32 (exact).
pub(crate) fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1F);
    let man = u32::from(h & 0x3FF);
    match exp {
        0 => {
            // ±0 or a subnormal: man * 2^-24, exact in f32.
            let mag = man as f32 * f32::from_bits(0x3380_0000);
            f32::from_bits(mag.to_bits() | sign)
        }
        31 => f32::from_bits(sign | 0x7F80_0000 | (man << 13)),
        _ => f32::from_bits(sign | ((exp + 112) << 23) | (man << 13)),
    }
}

/// bf16 to f32 (exact).
pub(crate) fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits(u32::from(h) << 16)
}

/// Decodes a sign/exponent/mantissa byte with `mbits` mantissa bits and
/// exponent `bias`, FNUZ style (0x80 is NaN, no infinities).
fn fnuz_to_f32(b: u8, mbits: u32, bias: i32) -> f32 {
    if b == 0x80 {
        return f32::NAN;
    }
    let ebits = 7 - mbits;
    let exp = i32::from((b >> mbits) & ((1 << ebits) - 1));
    let man = f32::from(b & ((1 << mbits) - 1));
    let scale = (1u32 << mbits) as f32;
    let mag = if exp == 0 {
        man / scale * 2f32.powi(1 - bias)
    } else {
        (1.0 + man / scale) * 2f32.powi(exp - bias)
    };
    if b & 0x80 != 0 {
        -mag
    } else {
        mag
    }
}

/// gfx942 fp8 (E4M3 FNUZ, bias 8) to f32 (exact).
pub(crate) fn fp8_to_f32(b: u8) -> f32 {
    fnuz_to_f32(b, 3, 8)
}

/// gfx942 bf8 (E5M2 FNUZ, bias 16) to f32 (exact).
pub(crate) fn bf8_to_f32(b: u8) -> f32 {
    fnuz_to_f32(b, 2, 16)
}

/// Rounds an f32 to 10 explicit mantissa bits, nearest-even (xf32 input).
pub(crate) fn round_to_xf32(x: f32) -> f32 {
    let b = x.to_bits();
    if b & 0x7F80_0000 == 0x7F80_0000 {
        return x; // Inf or NaN.
    }
    let rounded = b.wrapping_add(0xFFF + ((b >> 13) & 1)) & !0x1FFF;
    f32::from_bits(rounded)
}

/// ±0 for an f32 subnormal, else `x` (input denormal flush).
pub(crate) fn flush_f32(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// An OCP microscaling element format (OCP MX v1.0, section 5.3):
/// exponent and mantissa widths, bias, and how the top exponent is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ocp {
    ebits: u32,
    mbits: u32,
    bias: i32,
    top: Top,
}

/// What the all-ones exponent field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Top {
    /// Numbers, except S.1111.111 which is NaN (E4M3).
    NanAllOnes,
    /// Infinity (mantissa 0) and NaN (E5M2, as IEEE).
    Ieee,
    /// Numbers only (FP6, FP4).
    Finite,
}

/// OCP FP8 E4M3 (bias 7, largest 448).
pub(crate) const E4M3: Ocp = Ocp {
    ebits: 4,
    mbits: 3,
    bias: 7,
    top: Top::NanAllOnes,
};
/// OCP FP8 E5M2 (bias 15, largest 57344, infinities).
pub(crate) const E5M2: Ocp = Ocp {
    ebits: 5,
    mbits: 2,
    bias: 15,
    top: Top::Ieee,
};
/// OCP FP4 E2M1 (bias 1, largest 6).
pub(crate) const E2M1: Ocp = Ocp {
    ebits: 2,
    mbits: 1,
    bias: 1,
    top: Top::Finite,
};

/// The low `1 + ebits + mbits` bits of `b` in OCP format `f` as f32
/// (exact: every value of these formats is an f32).
pub(crate) fn ocp_to_f32(b: u32, f: Ocp) -> f32 {
    let w = 1 + f.ebits + f.mbits;
    let b = b & ((1 << w) - 1);
    let neg = b >> (w - 1) & 1 == 1;
    let e = (b >> f.mbits) & ((1 << f.ebits) - 1);
    let m = b & ((1 << f.mbits) - 1);
    let top = e == (1 << f.ebits) - 1;
    let mag = match f.top {
        Top::NanAllOnes if top && m == (1 << f.mbits) - 1 => return f32::NAN,
        Top::Ieee if top && m == 0 => f32::INFINITY,
        Top::Ieee if top => return f32::NAN,
        _ => {
            let scale = (1u32 << f.mbits) as f32;
            if e == 0 {
                m as f32 / scale * 2f32.powi(1 - f.bias)
            } else {
                (1.0 + m as f32 / scale) * 2f32.powi(e as i32 - f.bias)
            }
        }
    };
    if neg {
        -mag
    } else {
        mag
    }
}

//! Shared helpers for the `alu_*` tests: a deterministic PRNG, value
//! generators, and reference implementations written independently of the
//! code under test (loop-based rounding of exact values, bit-level f16
//! decoding, host IEEE arithmetic).
#![allow(dead_code)]

use lathe_emu::alu::Round;

/// splitmix64.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn u32(&mut self) -> u32 {
        (self.u64() >> 32) as u32
    }
    pub fn u16(&mut self) -> u16 {
        (self.u64() >> 48) as u16
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.u64() % n
    }
    pub fn bool(&mut self) -> bool {
        self.u64() & 1 != 0
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }

    /// f32 bits: mostly random, often special, denormal, near 1.0 or with a
    /// short significand (so that exact and tie cases occur).
    pub fn f32(&mut self) -> u32 {
        match self.below(8) {
            0 => self.pick(F32_SPECIALS),
            1 => {
                let e = 120 + self.below(16) as u32;
                (self.u32() & 0x807f_ffff) | e << 23
            }
            2 => self.u32() & 0x807f_ffff,
            3 => {
                let e = self.below(256) as u32;
                (self.u32() & 0x8000_0000) | e << 23 | (self.u32() & 0x3)
            }
            _ => self.u32(),
        }
    }
    /// Finite f32 bits.
    pub fn f32_finite(&mut self) -> u32 {
        loop {
            let x = self.f32();
            if x & 0x7f80_0000 != 0x7f80_0000 {
                return x;
            }
        }
    }
    /// f64 bits, same idea.
    pub fn f64(&mut self) -> u64 {
        match self.below(8) {
            0 => self.pick(F64_SPECIALS),
            1 => {
                let e = 1015 + self.below(16);
                (self.u64() & 0x800f_ffff_ffff_ffff) | e << 52
            }
            2 => self.u64() & 0x800f_ffff_ffff_ffff,
            3 => {
                let e = self.below(2048);
                (self.u64() & (1 << 63)) | e << 52 | (self.u64() & 0x7)
            }
            _ => self.u64(),
        }
    }
    /// f16 bits.
    pub fn f16(&mut self) -> u16 {
        match self.below(6) {
            0 => self.pick(F16_SPECIALS),
            1 => self.u16() & 0x83ff,
            _ => self.u16(),
        }
    }
}

pub const F32_SPECIALS: &[u32] = &[
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x7fc0_0000, // qNaN
    0xffc0_1234, // -qNaN with payload
    0x7f80_0001, // sNaN
    0xffa0_0000, // -sNaN
    0x0000_0001, // min denormal
    0x8000_0001,
    0x007f_ffff, // max denormal
    0x807f_ffff,
    0x0080_0000, // min normal
    0x8080_0000,
    0x7f7f_ffff, // max normal
    0xff7f_ffff,
    0x3f80_0000, // 1
    0xbf80_0000, // -1
    0x3f00_0000, // 0.5
    0x4040_0000, // 3
];

pub const F64_SPECIALS: &[u64] = &[
    0,
    1 << 63,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0xfff8_0000_0000_1234,
    0x7ff0_0000_0000_0001,
    0xfff4_0000_0000_0000,
    1,
    (1 << 63) | 1,
    0x000f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0xffef_ffff_ffff_ffff,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x3fe0_0000_0000_0000,
];

pub const F16_SPECIALS: &[u16] = &[
    0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe12, 0x7c01, 0xfd00, 0x0001, 0x8001, 0x03ff, 0x0400,
    0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x3800,
];

pub const ROUNDS: [Round; 4] = [Round::NearestEven, Round::Up, Round::Down, Round::Zero];

/// Parameters of a binary format for the reference rounding.
#[derive(Debug, Clone, Copy)]
pub struct Fmt {
    pub ebits: u32,
    pub fbits: u32,
}
pub const H: Fmt = Fmt {
    ebits: 5,
    fbits: 10,
};
pub const BF: Fmt = Fmt { ebits: 8, fbits: 7 };
pub const S: Fmt = Fmt {
    ebits: 8,
    fbits: 23,
};
pub const D: Fmt = Fmt {
    ebits: 11,
    fbits: 52,
};

/// Reference rounding, written as a plain bit-by-bit loop: rounds
/// `(-1)^neg * n * 2^e` (exact) to `fmt` in direction `rm`, with gradual
/// underflow and IEEE overflow rules.
pub fn ref_round(fmt: Fmt, neg: bool, n: u128, e: i32, rm: Round) -> u64 {
    let Fmt { ebits, fbits } = fmt;
    let sign = (neg as u64) << (ebits + fbits);
    if n == 0 {
        return sign;
    }
    let bias = (1i32 << (ebits - 1)) - 1;
    let emin = 1 - bias;
    let (mut n, mut e) = (n, e);
    let (mut round, mut sticky) = (false, false);
    let top = 1u128 << (fbits + 1);
    while n >= top {
        sticky |= round;
        round = n & 1 == 1;
        n >>= 1;
        e += 1;
    }
    while n < top / 2 && e + fbits as i32 > emin {
        // only reached when nothing was shifted out
        n <<= 1;
        e -= 1;
    }
    while e < emin - fbits as i32 {
        sticky |= round;
        round = n & 1 == 1;
        n >>= 1;
        e += 1;
    }
    let inexact = round || sticky;
    let up = match rm {
        Round::NearestEven => round && (sticky || n & 1 == 1),
        Round::Up => !neg && inexact,
        Round::Down => neg && inexact,
        Round::Zero => false,
    };
    if up {
        n += 1;
        if n == top {
            n >>= 1;
            e += 1;
        }
    }
    let emax_biased = (1i64 << ebits) - 1;
    if n >= top / 2 {
        let biased = e as i64 + fbits as i64 + bias as i64;
        if biased >= emax_biased {
            let inf = match rm {
                Round::NearestEven => true,
                Round::Up => !neg,
                Round::Down => neg,
                Round::Zero => false,
            };
            let mag = if inf {
                (emax_biased as u64) << fbits
            } else {
                ((emax_biased as u64) << fbits) - 1
            };
            return sign | mag;
        }
        sign | (biased as u64) << fbits | (n as u64 & ((1u64 << fbits) - 1))
    } else {
        sign | n as u64
    }
}

/// A finite value of `fmt` as (neg, integer significand, exponent), by
/// plain field extraction.
pub fn split(fmt: Fmt, x: u64) -> (bool, u128, i32) {
    let Fmt { ebits, fbits } = fmt;
    let neg = (x >> (ebits + fbits)) & 1 != 0;
    let be = ((x >> fbits) & ((1 << ebits) - 1)) as i32;
    let f = (x & ((1u64 << fbits) - 1)) as u128;
    let bias = (1i32 << (ebits - 1)) - 1;
    if be == 0 {
        (neg, f, 1 - bias - fbits as i32)
    } else {
        (neg, f | 1 << fbits, be - bias - fbits as i32)
    }
}

/// Is `x` a NaN in `fmt`.
pub fn is_nan(fmt: Fmt, x: u64) -> bool {
    let Fmt { ebits, fbits } = fmt;
    let be = (x >> fbits) & ((1 << ebits) - 1);
    be == (1 << ebits) - 1 && x & ((1u64 << fbits) - 1) != 0
}

/// Is `x` finite in `fmt`.
pub fn is_finite(fmt: Fmt, x: u64) -> bool {
    let Fmt { ebits, fbits } = fmt;
    (x >> fbits) & ((1 << ebits) - 1) != (1 << ebits) - 1
}

/// An f16 as f64 by the textbook formula.
pub fn f16_value(h: u16) -> f64 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let f = (h & 0x3ff) as f64;
    match e {
        0 => s * f * 2f64.powi(-24),
        31 => {
            if f == 0.0 {
                s * f64::INFINITY
            } else {
                f64::NAN
            }
        }
        _ => s * (1.0 + f / 1024.0) * 2f64.powi(e - 15),
    }
}

/// Exact sum of two finite values given as (neg, n, e), as (neg, n, e)
/// with a common exponent, provided the exponent gap fits in 120 bits.
pub fn exact_add(a: (bool, u128, i32), b: (bool, u128, i32)) -> Option<(bool, u128, i32)> {
    let e = a.2.min(b.2);
    let sa = (a.2 - e) as u32;
    let sb = (b.2 - e) as u32;
    if sa > 100 || sb > 100 {
        return None;
    }
    let va = (a.1 << sa) as i128 * if a.0 { -1 } else { 1 };
    let vb = (b.1 << sb) as i128 * if b.0 { -1 } else { 1 };
    let v = va + vb;
    Some((v < 0, v.unsigned_abs(), e))
}

/// f32 -> f64 exact.
pub fn f32v(x: u32) -> f64 {
    f32::from_bits(x) as f64
}

/// Rounds an f64 that represents an exact value (or a round-to-odd
/// approximation with at least 2 extra bits) to f32 in `rm`.
pub fn f64_to_f32_ref(x: f64, rm: Round) -> u32 {
    let b = x.to_bits();
    let (neg, n, e) = split(D, b);
    ref_round(S, neg, n, e, rm) as u32
}

/// Round-to-odd of the exact sum p + c of two f64 values, as f64 (exact
/// result when it fits). Assumes no f64 overflow.
pub fn sum_round_odd(p: f64, c: f64) -> f64 {
    let t = p + c;
    // TwoSum error term (exact).
    let bp = t - c;
    let bc = t - bp;
    let err = (p - bp) + (c - bc);
    if err == 0.0 {
        return t;
    }
    // Truncate toward zero, then force the last bit odd.
    let mut tt = t;
    if (err < 0.0) != (t < 0.0) {
        // exact value is closer to zero than t: step one ulp toward zero
        tt = f64::from_bits(t.to_bits() - 1);
    }
    f64::from_bits(tt.to_bits() | 1)
}

/// Compares result bits: identical, or both NaN when `nan_any` is set.
pub fn same32(a: u32, b: u32) -> bool {
    a == b
}

/// Next representable f32 toward +inf / -inf (finite inputs).
pub fn next_up32(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f32::from_bits(1);
    }
    let b = x.to_bits();
    f32::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}
pub fn next_down32(x: f32) -> f32 {
    -next_up32(-x)
}
pub fn next_up64(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let b = x.to_bits();
    f64::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}
pub fn next_down64(x: f64) -> f64 {
    -next_up64(-x)
}

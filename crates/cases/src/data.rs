//! Data helpers: a deterministic PRNG, little-endian element encoding, ULP
//! distances and software f16 / bf16 rounding for the references.

/// SplitMix64: a small deterministic generator (no external dependency).
#[derive(Debug, Clone)]
pub struct Prng(u64);

impl Prng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Prng(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// Uniform integer in `lo..=hi`.
    pub fn range_i64(&mut self, lo: i64, hi: i64) -> i64 {
        assert!(lo <= hi);
        let span = (hi as i128 - lo as i128 + 1) as u128;
        (lo as i128 + (self.next_u64() as u128 % span) as i128) as i64
    }

    /// Uniform integer in `lo..=hi`.
    pub fn range_i32(&mut self, lo: i32, hi: i32) -> i32 {
        self.range_i64(lo.into(), hi.into()) as i32
    }

    /// Uniform f64 in `[lo, hi)` (53 random bits).
    pub fn f64_in(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * u
    }

    /// Uniform f32 in `[lo, hi)`, rounded from f64.
    pub fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        self.f64_in(lo.into(), hi.into()) as f32
    }

    /// `n` values from `f`.
    pub fn vec<T>(&mut self, n: usize, mut f: impl FnMut(&mut Self) -> T) -> Vec<T> {
        (0..n).map(|_| f(self)).collect()
    }
}

/// A plain element type stored little-endian in buffers.
pub trait Elem: Copy {
    /// Size in bytes.
    const SIZE: usize;
    /// Appends the little-endian bytes.
    fn put(self, out: &mut Vec<u8>);
    /// Reads from exactly `SIZE` bytes.
    fn get(b: &[u8]) -> Self;
}

macro_rules! elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().expect("element size"))
            }
        }
    )*};
}
elem!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

/// Little-endian bytes of a slice.
pub fn to_bytes<T: Elem>(v: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * T::SIZE);
    for &x in v {
        x.put(&mut out);
    }
    out
}

/// Elements of a little-endian byte buffer (length must be a multiple).
pub fn from_bytes<T: Elem>(b: &[u8]) -> Vec<T> {
    assert_eq!(
        b.len() % T::SIZE,
        0,
        "buffer is not a whole number of elements"
    );
    b.chunks_exact(T::SIZE).map(T::get).collect()
}

/// The byte pattern output buffers start with (0xCD repeated), so elements a
/// kernel must not write are checked too.
pub const SENTINEL: u8 = 0xCD;

/// `len` sentinel bytes.
pub fn sentinel(len: usize) -> Vec<u8> {
    vec![SENTINEL; len]
}

/// The 32-bit sentinel word (0xCDCDCDCD).
pub const SENTINEL_U32: u32 = 0xCDCD_CDCD;

fn ord_f32(x: f32) -> i64 {
    let b = x.to_bits();
    if b >> 31 == 1 {
        -i64::from(b & 0x7FFF_FFFF)
    } else {
        i64::from(b)
    }
}

/// Distance in units in the last place between two f32 (0 for +0 vs -0;
/// `u32::MAX` if exactly one is NaN, 0 if both are).
pub fn ulp_diff_f32(a: f32, b: f32) -> u32 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => 0,
        (false, false) => (ord_f32(a) - ord_f32(b))
            .unsigned_abs()
            .min(u32::MAX.into()) as u32,
        _ => u32::MAX,
    }
}

fn ord_f64(x: f64) -> i128 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        -i128::from(b & 0x7FFF_FFFF_FFFF_FFFF)
    } else {
        i128::from(b)
    }
}

/// Distance in units in the last place between two f64 (see [`ulp_diff_f32`]).
pub fn ulp_diff_f64(a: f64, b: f64) -> u64 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => 0,
        (false, false) => (ord_f64(a) - ord_f64(b))
            .unsigned_abs()
            .min(u64::MAX.into()) as u64,
        _ => u64::MAX,
    }
}

/// Value of IEEE binary16 bits (exact).
pub fn f16_to_f64(h: u16) -> f64 {
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1F);
    let m = f64::from(h & 0x3FF);
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1024.0 + m) * 2f64.powi(e - 25),
    }
}

/// Rounds an f64 to binary16 bits, to nearest even, with subnormals and
/// overflow to infinity (what v_cvt_f16_f32 and f16 arithmetic do).
pub fn f64_to_f16(x: f64) -> u16 {
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a.is_nan() {
        return 0x7E00;
    }
    if a.is_infinite() {
        return sign | 0x7C00;
    }
    if a == 0.0 {
        return sign;
    }
    // Exponent of a (a is finite and non-zero; f64 subnormals round to 0).
    let e = ((a.to_bits() >> 52) as i32) - 1023;
    if e < -30 {
        return sign; // far below half the smallest subnormal
    }
    let q_exp = if e < -14 { -24 } else { e - 10 };
    let r = (a * 2f64.powi(-q_exp)).round_ties_even();
    if q_exp == -24 {
        // Subnormal (r = 1024 is the smallest normal, which encodes the same).
        return sign | r as u16;
    }
    let (mut r, mut e) = (r as u32, e);
    if r == 2048 {
        r = 1024;
        e += 1;
    }
    if e + 15 >= 31 {
        return sign | 0x7C00;
    }
    sign | (((e + 15) as u16) << 10) | (r - 1024) as u16
}

/// Rounds an f32 to binary16 bits (via the exact f64 value: one rounding).
pub fn f32_to_f16(x: f32) -> u16 {
    f64_to_f16(f64::from(x))
}

/// f16 `a * b`, rounded once (the f64 product of two f16 is exact).
pub fn f16_mul(a: u16, b: u16) -> u16 {
    f64_to_f16(f16_to_f64(a) * f16_to_f64(b))
}

/// f16 `a + b`, rounded once (the f64 sum of two f16 is exact).
pub fn f16_add(a: u16, b: u16) -> u16 {
    f64_to_f16(f16_to_f64(a) + f16_to_f64(b))
}

/// f16 `a - b`, rounded once.
pub fn f16_sub(a: u16, b: u16) -> u16 {
    f64_to_f16(f16_to_f64(a) - f16_to_f64(b))
}

/// f16 fused `a * b + c`, rounded once. Panics unless `a * b + c` is exact in
/// f64 (true for the ranges the corpus uses), so the result is never double
/// rounded.
pub fn f16_fma(a: u16, b: u16, c: u16) -> u16 {
    let p = f16_to_f64(a) * f16_to_f64(b);
    let z = f16_to_f64(c);
    let s = p + z;
    // TwoSum: the rounding error of p + z.
    let bb = s - p;
    let err = (p - (s - bb)) + (z - bb);
    assert!(err == 0.0, "f16_fma reference would double-round");
    f64_to_f16(s)
}

/// f16 maxNum (inputs are never NaN in the corpus).
pub fn f16_max(a: u16, b: u16) -> u16 {
    let (x, y) = (f16_to_f64(a), f16_to_f64(b));
    if x > y || (x == y && b >> 15 == 1) {
        a
    } else {
        b
    }
}

/// bf16 bits of an f32 that is exactly representable in bf16.
pub fn f32_to_bf16_exact(x: f32) -> u16 {
    let b = x.to_bits();
    assert_eq!(b & 0xFFFF, 0, "{x} is not exact in bf16");
    (b >> 16) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_round_trip_and_rounding() {
        for h in 0..=u16::MAX {
            let v = f16_to_f64(h);
            if !v.is_nan() {
                assert_eq!(f64_to_f16(v), h, "{h:#06x}");
            }
        }
        assert_eq!(f64_to_f16(65504.0), 0x7BFF);
        assert_eq!(f64_to_f16(65519.99), 0x7BFF);
        assert_eq!(f64_to_f16(65520.0), 0x7C00);
        assert_eq!(f64_to_f16(2f64.powi(-25)), 0); // tie to even (0)
        assert_eq!(f64_to_f16(1.5 * 2f64.powi(-24)), 2); // tie to even (2)
        assert_eq!(f64_to_f16(1.0 + 2f64.powi(-11)), 0x3C00); // tie to even
        assert_eq!(f64_to_f16(1.0 + 3.0 * 2f64.powi(-11)), 0x3C02);
        assert_eq!(f64_to_f16(-0.0), 0x8000);
    }

    #[test]
    fn ulps() {
        assert_eq!(ulp_diff_f32(1.0, f32::from_bits(1.0f32.to_bits() + 3)), 3);
        assert_eq!(ulp_diff_f32(0.0, -0.0), 0);
        assert_eq!(ulp_diff_f32(f32::from_bits(1), -f32::from_bits(1)), 2);
        assert_eq!(ulp_diff_f64(-2.0, -2.0), 0);
        assert_eq!(ulp_diff_f64(1.0, f64::NAN), u64::MAX);
    }
}

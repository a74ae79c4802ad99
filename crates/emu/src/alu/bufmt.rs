//! Typed buffer formats (GFX9 MTBUF `format:` = DFMT/NFMT): how one
//! memory element of a data format splits into components, and how a
//! component converts to and from the 32-bit (or d16 16-bit) VGPR value
//! under a number format.
//!
//! Data formats (DFMT, the MI200 ISA's buffer data-format table, named
//! most-significant component first, so x is in the low bits): 1 `8`,
//! 2 `16`, 3 `8_8`, 4 `32`, 5 `16_16`, 6 `10_11_11` (x 11, y 11, z 10
//! bits), 7 `11_11_10` (x 10, y 11, z 11), 8 `10_10_10_2` (x 2, y, z, w
//! 10), 9 `2_10_10_10` (x, y, z 10, w 2), 10 `8_8_8_8`, 11 `32_32`,
//! 12 `16_16_16_16`, 13 `32_32_32`, 14 `32_32_32_32`; 0 and 15 are
//! invalid. Number formats (NFMT): 0 unorm, 1 snorm, 2 uscaled,
//! 3 sscaled, 4 uint, 5 sint, 7 float; 6 is reserved.
//!
//! Loads: unorm is v / (2^b - 1), snorm max(v / (2^(b-1) - 1), -1),
//! scaled the integer as a float, uint/sint the integer zero-/sign-
//! extended, float the IEEE value (16 and 32 bits; the 10- and 11-bit
//! components are the unsigned 5-bit-exponent floats of the packed
//! formats). Components the format lacks read 0, except w, which reads 1
//! (1.0 for the float-valued number formats). d16 loads convert the
//! float-valued results to f16 (nearest even) and keep the low 16 bits of
//! the integers.
//!
//! Stores: unorm and snorm clamp to [0, 1] / [-1, 1] (NaN as 0), scale and
//! round to nearest even; scaled formats truncate toward zero and saturate
//! to the component's range (NaN as 0); uint and sint keep the low bits;
//! float rounds to nearest even (10/11-bit: negative values and -0 store
//! 0, overflow stores infinity). d16 stores take the f16 (float-valued
//! formats) or the 16-bit integer (zero- or sign-extended) from each half.
//! Combinations without a meaning (float with 8- or 2-bit components,
//! reserved codes) are `None`: the interpreter stops as unsupported.

use super::cvt::{cvt_f16_f32, cvt_f32_f16};
use super::Mode;

/// A number format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nfmt {
    /// Unsigned, normalised to [0, 1].
    Unorm,
    /// Signed, normalised to [-1, 1].
    Snorm,
    /// Unsigned integer converted to float.
    Uscaled,
    /// Signed integer converted to float.
    Sscaled,
    /// Unsigned integer.
    Uint,
    /// Signed integer.
    Sint,
    /// IEEE float.
    Float,
}

impl Nfmt {
    /// NFMT field value.
    pub fn decode(n: u32) -> Option<Nfmt> {
        Some(match n {
            0 => Nfmt::Unorm,
            1 => Nfmt::Snorm,
            2 => Nfmt::Uscaled,
            3 => Nfmt::Sscaled,
            4 => Nfmt::Uint,
            5 => Nfmt::Sint,
            7 => Nfmt::Float,
            _ => return None,
        })
    }
    fn integer(self) -> bool {
        matches!(self, Nfmt::Uint | Nfmt::Sint)
    }
}

/// A data format: its components' (bit offset, width) in the element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dfmt {
    comps: [(u8, u8); 4],
    n: usize,
    /// Element size in bytes.
    pub bytes: u32,
}

impl Dfmt {
    /// DFMT field value.
    pub fn decode(d: u32) -> Option<Dfmt> {
        let f = |c: &[(u8, u8)], bytes: u32| {
            let mut comps = [(0, 0); 4];
            comps[..c.len()].copy_from_slice(c);
            Dfmt {
                comps,
                n: c.len(),
                bytes,
            }
        };
        Some(match d {
            1 => f(&[(0, 8)], 1),
            2 => f(&[(0, 16)], 2),
            3 => f(&[(0, 8), (8, 8)], 2),
            4 => f(&[(0, 32)], 4),
            5 => f(&[(0, 16), (16, 16)], 4),
            6 => f(&[(0, 11), (11, 11), (22, 10)], 4),
            7 => f(&[(0, 10), (10, 11), (21, 11)], 4),
            8 => f(&[(0, 2), (2, 10), (12, 10), (22, 10)], 4),
            9 => f(&[(0, 10), (10, 10), (20, 10), (30, 2)], 4),
            10 => f(&[(0, 8), (8, 8), (16, 8), (24, 8)], 4),
            11 => f(&[(0, 32), (32, 32)], 8),
            12 => f(&[(0, 16), (16, 16), (32, 16), (48, 16)], 8),
            13 => f(&[(0, 32), (32, 32), (64, 32)], 12),
            14 => f(&[(0, 32), (32, 32), (64, 32), (96, 32)], 16),
            _ => return None,
        })
    }

    /// Components in the format.
    pub fn components(self) -> usize {
        self.n
    }

    /// The bits of the element up to the end of its first `k` components.
    pub fn bits_through(self, k: usize) -> u32 {
        match k.min(self.n) {
            0 => 0,
            k => {
                let (off, b) = self.comps[k - 1];
                u32::from(off) + u32::from(b)
            }
        }
    }
}

fn mask(b: u8) -> u64 {
    (1u64 << b) - 1
}

fn sext(v: u64, b: u8) -> i64 {
    ((v << (64 - b)) as i64) >> (64 - b)
}

/// An unsigned float with a 5-bit exponent (bias 15) and `mb` mantissa
/// bits, as f32 bits.
fn small_to_f32(v: u32, mb: u32) -> u32 {
    let (e, m) = (v >> mb, v & ((1 << mb) - 1));
    if e == 31 {
        return if m == 0 { 0x7f80_0000 } else { 0x7fc0_0000 };
    }
    let x = if e == 0 {
        f64::from(m) * 2f64.powi(-14 - mb as i32)
    } else {
        (1.0 + f64::from(m) / f64::from(1u32 << mb)) * 2f64.powi(e as i32 - 15)
    };
    (x as f32).to_bits()
}

/// f32 bits to the unsigned small float (nearest even).
fn f32_to_small(x: u32, mb: u32) -> u32 {
    let f = f32::from_bits(x);
    if f.is_nan() {
        return 31 << mb | 1 << (mb - 1);
    }
    if f <= 0.0 {
        return 0;
    }
    // Through f16 (same exponent range and bias), then drop 10 - mb bits
    // with nearest even; a carry moves into the exponent (to infinity at
    // the top).
    let h = u32::from(cvt_f16_f32(x, Mode::default()));
    if h >= 0x7c00 {
        return 31 << mb;
    }
    let drop = 10 - mb;
    let (kept, rest, half) = (h >> drop, h & ((1 << drop) - 1), 1 << (drop - 1));
    let r = if rest > half || (rest == half && kept & 1 == 1) {
        kept + 1
    } else {
        kept
    };
    r.min(31 << mb)
}

/// Component `k` of a loaded element (little-endian bytes, `bytes` of the
/// format) as the 32-bit VGPR value; `None` for a meaningless combination.
pub fn load(el: u128, d: Dfmt, n: Nfmt, k: usize) -> Option<u32> {
    if k >= d.n {
        let one = if n.integer() { 1 } else { 0x3f80_0000 };
        return Some(if k == 3 { one } else { 0 });
    }
    let (off, b) = d.comps[k];
    let v = (el >> off) as u64 & mask(b);
    let f = |x: f64| (x as f32).to_bits();
    Some(match n {
        Nfmt::Unorm => f(v as f64 / mask(b) as f64),
        Nfmt::Snorm => f((sext(v, b) as f64 / (mask(b - 1)) as f64).max(-1.0)),
        Nfmt::Uscaled => (v as f32).to_bits(),
        Nfmt::Sscaled => (sext(v, b) as f32).to_bits(),
        Nfmt::Uint => v as u32,
        Nfmt::Sint => sext(v, b) as u32,
        Nfmt::Float => match b {
            32 => v as u32,
            16 => cvt_f32_f16(v as u16, Mode::default()),
            11 => small_to_f32(v as u32, 6),
            10 => small_to_f32(v as u32, 5),
            _ => return None,
        },
    })
}

/// A d16 load's 16-bit component: f16 for the float-valued number
/// formats, the low 16 bits of the integers.
pub fn load_d16(el: u128, d: Dfmt, n: Nfmt, k: usize) -> Option<u16> {
    let v = load(el, d, n, k)?;
    Some(if n.integer() {
        v as u16
    } else {
        cvt_f16_f32(v, Mode::default())
    })
}

/// A loaded element's value through a destination select (a buffer
/// resource's DST_SEL field): 0 is 0, 1 is one (1.0 for the float-valued
/// number formats), 4 to 7 are components x to w as [`load`] gives them;
/// the reserved codes 2 and 3, and a format without a meaning under `n`
/// (whatever the select), are `None`.
pub fn load_sel(el: u128, d: Dfmt, n: Nfmt, sel: u32) -> Option<u32> {
    load(el, d, n, 0)?;
    match sel {
        0 => Some(0),
        1 => Some(if n.integer() { 1 } else { 0x3f80_0000 }),
        4..=7 => load(el, d, n, sel as usize - 4),
        _ => None,
    }
}

/// [`load_sel`] for d16 loads (converted as [`load_d16`] converts).
pub fn load_sel_d16(el: u128, d: Dfmt, n: Nfmt, sel: u32) -> Option<u16> {
    let v = load_sel(el, d, n, sel)?;
    Some(if n.integer() {
        v as u16
    } else {
        cvt_f16_f32(v, Mode::default())
    })
}

/// Component `k` of a store, from the 32-bit VGPR value `v`, merged into
/// the element `el`.
pub fn store(el: u128, d: Dfmt, n: Nfmt, k: usize, v: u32) -> Option<u128> {
    if k >= d.n {
        return Some(el);
    }
    let (off, b) = d.comps[k];
    let x = f32::from_bits(v);
    let clamp = |lo: f64, hi: f64| {
        if x.is_nan() {
            0.0
        } else {
            f64::from(x).clamp(lo, hi)
        }
    };
    let sat = |lo: i64, hi: i64| {
        if x.is_nan() {
            0
        } else {
            (f64::from(x).trunc().clamp(lo as f64, hi as f64)) as i64
        }
    };
    let bits: u64 = match n {
        Nfmt::Unorm => (clamp(0.0, 1.0) * mask(b) as f64).round_ties_even() as u64,
        Nfmt::Snorm => {
            (clamp(-1.0, 1.0) * mask(b - 1) as f64).round_ties_even() as i64 as u64 & mask(b)
        }
        Nfmt::Uscaled => sat(0, mask(b) as i64) as u64,
        Nfmt::Sscaled => sat(-(1i64 << (b - 1)), (1i64 << (b - 1)) - 1) as u64 & mask(b),
        Nfmt::Uint | Nfmt::Sint => u64::from(v) & mask(b),
        Nfmt::Float => match b {
            32 => u64::from(v),
            16 => u64::from(cvt_f16_f32(v, Mode::default())),
            11 => u64::from(f32_to_small(v, 6)),
            10 => u64::from(f32_to_small(v, 5)),
            _ => return None,
        },
    };
    let m = u128::from(mask(b)) << off;
    Some(el & !m | u128::from(bits) << off)
}

/// A d16 store's component from its 16-bit half.
pub fn store_d16(el: u128, d: Dfmt, n: Nfmt, k: usize, h: u16) -> Option<u128> {
    let v = match n {
        Nfmt::Uint => u32::from(h),
        Nfmt::Sint => h as i16 as u32,
        _ => cvt_f32_f16(h, Mode::default()),
    };
    store(el, d, n, k, v)
}

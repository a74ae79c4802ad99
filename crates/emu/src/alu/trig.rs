//! `v_trig_preop_f64`: 53-bit segments of 2/π for the large-argument
//! reduction of f64 sin/cos (Payne–Hanek).
//!
//! The ISA manuals (GCN3 to CDNA3) define the instruction over a table of
//! the first 1201 bits of 2/π, `0.b1200 b1199 ... b0` (b1200 weighs 2^-1):
//!
//! * `shift = S1[4:0] * 53`, plus `exp(S0) - 1077` when the biased exponent
//!   of S0 exceeds 1077 (so large arguments skip the bits whose product with
//!   S0 is a multiple of 4);
//! * the result is the 53 bits `b[1200 - shift] .. b[1148 - shift]` as an
//!   integer (bits past b0 read as zero), scaled by `2^(-53 - shift)`, with
//!   128 added to the scale when `exp(S0) >= 1968` (the caller multiplies by
//!   S0 pre-scaled by 2^-128 there, which keeps the product normal).
//!
//! The scaling rounds to nearest even, so a segment beyond the f64 range
//! becomes a denormal or zero. A NaN S0 returns it quieted (LLVM's constant
//! folding of `llvm.amdgcn.trig.preop` does the same; an infinite S0 is
//! treated like any other exponent-2047 value).
//!
//! The table below is 2/π computed with integer arithmetic (Machin's
//! formula for π to 1500 bits, then 2^1217 / π), 38 big-endian words, the
//! last one cut to the 17 bits that complete 1201.

use super::mode::Round;
use super::soft::{self, F64};

/// Bits 2^-1 .. 2^-1201 of 2/π, most significant first (1201 = 37 * 32 + 17).
const TWO_OVER_PI: [u32; 38] = [
    0xa2f9_836e,
    0x4e44_1529,
    0xfc27_57d1,
    0xf534_ddc0,
    0xdb62_9599,
    0x3c43_9041,
    0xfe51_63ab,
    0xdebb_c561,
    0xb724_6e3a,
    0x424d_d2e0,
    0x0649_2eea,
    0x09d1_921c,
    0xfe1d_eb1c,
    0xb129_a73e,
    0xe882_35f5,
    0x2ebb_4484,
    0xe99c_7026,
    0xb45f_7e41,
    0x3991_d639,
    0x8353_39f4,
    0x9c84_5f8b,
    0xbdf9_283b,
    0x1ff8_97ff,
    0xde05_980f,
    0xef2f_118b,
    0x5a0a_6d1f,
    0x6d36_7ecf,
    0x27cb_09b7,
    0x4f46_3f66,
    0x9e5f_ea2d,
    0x7527_bac7,
    0xebe5_f17b,
    0x3d07_39f7,
    0x8a52_92ea,
    0x6bfb_5fb1,
    0x1f8d_5d08,
    0x5603_3046,
    0xfc7b_0000,
];

/// The 53 bits of 2/π starting `shift` bits below 2^-1, as an integer.
fn window(shift: u32) -> u64 {
    let word = |k: usize| u128::from(TWO_OVER_PI.get(k).copied().unwrap_or(0));
    let k = (shift / 32) as usize;
    let v = word(k) << 64 | word(k + 1) << 32 | word(k + 2);
    // 96 bits; drop the `shift % 32` leading ones, keep the next 53.
    ((v << (shift % 32)) >> 43) as u64 & ((1 << 53) - 1)
}

/// `v_trig_preop_f64`: segment `seg & 31` of 2/π for the argument `a`
/// (raw f64 bits, source modifiers already applied).
pub fn trig_preop_f64(a: u64, seg: u32) -> u64 {
    if soft::is_nan::<F64>(a) {
        return soft::quiet::<F64>(a);
    }
    let e = (a >> 52 & 0x7ff) as u32;
    let shift = (seg & 31) * 53 + e.saturating_sub(1077);
    let mut scale = -53 - shift as i32;
    if e >= 1968 {
        scale += 128;
    }
    // The integer is below 2^53, so the conversion is exact; the scaling
    // rounds only when the result leaves the normal range.
    soft::ldexp::<F64>((window(shift) as f64).to_bits(), scale, Round::NearestEven)
}

//! Integer VALU, packed, SALU and compare semantics against i128/u128
//! arithmetic and bit-by-bit loops written from the manual's pseudocode.

// The float predicate references spell out IEEE unordered semantics on
// purpose (`a < b || a > b` is not `a != b` when a NaN is involved).
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::double_comparisons)]

mod alu_common;
use alu_common::*;
use lathe_emu::alu::cmp::{self, FCmp};
use lathe_emu::alu::{int, packed, salu, Mode};

const N: usize = 200_000;

/// Random u32 biased toward edge values.
fn val(r: &mut Rng) -> u32 {
    match r.below(6) {
        0 => r.pick(&[
            0,
            1,
            2,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
            0xffff,
            0x0080_0000,
            0xff_ffff,
        ]),
        1 => r.u32() >> r.below(32),
        _ => r.u32(),
    }
}

#[test]
fn multiplies_and_mads() {
    let mut r = Rng::new(51);
    for _ in 0..N {
        let (a, b, c) = (val(&mut r), val(&mut r), val(&mut r));
        let c64 = (val(&mut r) as u64) << 32 | val(&mut r) as u64;
        let (ua, ub) = (a as u128, b as u128);
        let (sa, sb) = (a as i32 as i128, b as i32 as i128);
        assert_eq!(int::mul_lo_u32(a, b) as u128, (ua * ub) % (1 << 32));
        assert_eq!(int::mul_hi_u32(a, b) as u128, (ua * ub) >> 32);
        assert_eq!(int::mul_hi_i32(a, b) as i32 as i128, (sa * sb) >> 32);
        let (a24, b24) = ((a & 0xff_ffff) as u128, (b & 0xff_ffff) as u128);
        assert_eq!(int::mul_u32_u24(a, b) as u128, (a24 * b24) & 0xffff_ffff);
        assert_eq!(int::mul_hi_u32_u24(a, b) as u128, (a24 * b24) >> 32);
        let s24 = |x: u32| -> i128 {
            let v = (x & 0xff_ffff) as i128;
            if v >= 1 << 23 {
                v - (1 << 24)
            } else {
                v
            }
        };
        let p = s24(a) * s24(b);
        assert_eq!(int::mul_i32_i24(a, b), p as u32);
        assert_eq!(int::mul_hi_i32_i24(a, b), (p >> 32) as u32);
        assert_eq!(
            int::mad_u32_u24(a, b, c, false),
            (a24 * b24 + c as u128) as u32
        );
        assert_eq!(
            int::mad_u32_u24(a, b, c, true) as u128,
            (a24 * b24 + c as u128).min(0xffff_ffff)
        );
        assert_eq!(
            int::mad_i32_i24(a, b, c, false),
            (p + c as i32 as i128) as u32
        );
        assert_eq!(
            int::mad_i32_i24(a, b, c, true) as i32 as i128,
            (p + c as i32 as i128).clamp(i32::MIN as i128, i32::MAX as i128)
        );
        // 64-bit mads with carry-out = bit 64 of the 65-bit result
        let full = ua * ub + c64 as u128;
        assert_eq!(int::mad_u64_u32(a, b, c64), (full as u64, full >> 64 != 0));
        let sfull = sa * sb + c64 as i64 as i128;
        let (d, carry) = int::mad_i64_i32(a, b, c64);
        assert_eq!(d, sfull as u64);
        assert_eq!(carry, (sfull >> 64) & 1 != 0);
        let (h0, h1) = (a as u16, b as u16);
        assert_eq!(
            int::mad_u32_u16(h0, h1, c, false),
            (h0 as u32 * h1 as u32).wrapping_add(c)
        );
        assert_eq!(
            int::mad_i32_i16(h0, h1, c, false),
            (h0 as i16 as i32 * h1 as i16 as i32).wrapping_add(c as i32) as u32
        );
    }
    // documented carry example: -1 * 1 + 0 has bit 64 set
    assert_eq!(int::mad_i64_i32(u32::MAX, 1, 0), (u64::MAX, true));
    assert_eq!(
        int::mad_u64_u32(u32::MAX, u32::MAX, u64::MAX),
        (0xffff_fffe_0000_0000, true)
    );
}

#[test]
fn carries_and_saturation() {
    let mut r = Rng::new(52);
    for _ in 0..N {
        let (a, b) = (val(&mut r), val(&mut r));
        let cin = r.bool();
        let s = a as u64 + b as u64 + cin as u64;
        assert_eq!(
            int::addc_co_u32(a, b, cin, false),
            (s as u32, s > 0xffff_ffff)
        );
        assert_eq!(
            int::addc_co_u32(a, b, cin, true),
            (s.min(0xffff_ffff) as u32, s > 0xffff_ffff)
        );
        let d = a as i64 - b as i64 - cin as i64;
        assert_eq!(int::subb_co_u32(a, b, cin, false), (d as u32, d < 0));
        assert_eq!(int::subb_co_u32(a, b, cin, true), (d.max(0) as u32, d < 0));
        let d2 = b as i64 - a as i64 - cin as i64;
        assert_eq!(int::subbrev_co_u32(a, b, cin, false), (d2 as u32, d2 < 0));
        assert_eq!(
            int::add_u32(a, b, true) as u64,
            (a as u64 + b as u64).min(0xffff_ffff)
        );
        assert_eq!(
            int::sub_u32(a, b, true) as i64,
            (a as i64 - b as i64).max(0)
        );
        let si = a as i32 as i64 + b as i32 as i64;
        assert_eq!(
            int::add_i32(a, b, true) as i32 as i64,
            si.clamp(i32::MIN as i64, i32::MAX as i64)
        );
        let (x, y) = (a as u16, b as u16);
        assert_eq!(
            int::add_u16(x, y, true) as u32,
            (x as u32 + y as u32).min(0xffff)
        );
        assert_eq!(int::sub_u16(x, y, false), x.wrapping_sub(y));
        assert_eq!(
            int::add_i16(x, y, true) as i16 as i32,
            (x as i16 as i32 + y as i16 as i32).clamp(-32768, 32767)
        );
        assert_eq!(
            int::mad_i16(x, y, a as u16, true) as i16 as i64,
            (x as i16 as i64 * y as i16 as i64 + a as u16 as i16 as i64).clamp(-32768, 32767)
        );
        assert_eq!(
            int::mad_u16(x, y, 7, false),
            x.wrapping_mul(y).wrapping_add(7)
        );
        assert_eq!(int::add3_u32(a, b, 3), a.wrapping_add(b).wrapping_add(3));
    }
}

/// Bit-loop reference for bfe as the manual writes it.
fn bfe_ref(a: u32, off: u32, w: u32, signed: bool) -> u32 {
    let (off, w) = (off & 31, w & 31);
    let mut r = 0u32;
    for i in 0..w {
        let src = off + i;
        if src < 32 && (a >> src) & 1 == 1 {
            r |= 1 << i;
        }
    }
    if signed && w > 0 && (r >> (w - 1)) & 1 == 1 {
        for i in w..32 {
            r |= 1 << i;
        }
    }
    r
}

#[test]
fn shifts_and_bitfields() {
    let mut r = Rng::new(53);
    for _ in 0..N {
        let (a, b, c) = (val(&mut r), val(&mut r), val(&mut r));
        let s = r.u32();
        assert_eq!(int::lshlrev_b32(s, a), ((a as u64) << (s % 32)) as u32);
        assert_eq!(int::lshrrev_b32(s, a), a >> (s % 32));
        assert_eq!(
            int::ashrrev_i32(s, a),
            ((a as i32 as i64) >> (s % 32)) as u32
        );
        let w = (a as u64) << 32 | b as u64;
        assert_eq!(int::lshlrev_b64(s, w), ((w as u128) << (s % 64)) as u64);
        assert_eq!(int::lshrrev_b64(s, w), w >> (s % 64));
        assert_eq!(
            int::ashrrev_i64(s, w),
            ((w as i64 as i128) >> (s % 64)) as u64
        );
        assert_eq!(
            int::bfe_u32(a, b, c),
            bfe_ref(a, b, c, false),
            "{a:x} {b} {c}"
        );
        assert_eq!(
            int::bfe_i32(a, b, c),
            bfe_ref(a, b, c, true),
            "{a:x} {b} {c}"
        );
        assert_eq!(int::bfi_b32(a, b, c), (a & b) | (!a & c));
        let mut bfm = 0u32;
        for i in 0..(a & 31) {
            let p = i + (b & 31);
            if p < 32 {
                bfm |= 1 << p;
            }
        }
        assert_eq!(int::bfm_b32(a, b), bfm);
        assert_eq!(
            int::alignbit_b32(a, b, c),
            ((((a as u128) << 32) | b as u128) >> (c & 31)) as u32
        );
        assert_eq!(
            int::alignbyte_b32(a, b, c),
            ((((a as u128) << 32) | b as u128) >> (8 * (c & 3))) as u32
        );
        assert_eq!(
            int::lshl_add_u32(a, b, c),
            (((a as u64) << (b & 31)) as u32).wrapping_add(c)
        );
        assert_eq!(int::add_lshl_u32(a, b, c), a.wrapping_add(b) << (c & 31));
        assert_eq!(int::lshl_or_b32(a, b, c), (a << (b & 31)) | c);
        assert_eq!(int::xad_u32(a, b, c), (a ^ b).wrapping_add(c));
        // bit counts, by loops
        let ones = (0..32).filter(|i| (a >> i) & 1 == 1).count() as u32;
        assert_eq!(int::bcnt_u32_b32(a, b), ones.wrapping_add(b));
        let ffbh = (0..32)
            .find(|i| (a >> (31 - i)) & 1 == 1)
            .map_or(u32::MAX, |i| i);
        assert_eq!(int::ffbh_u32(a), ffbh);
        let ffbl = (0..32).find(|i| (a >> i) & 1 == 1).map_or(u32::MAX, |i| i);
        assert_eq!(int::ffbl_b32(a), ffbl);
        let sign = a >> 31;
        let ffbhi = (1..32)
            .find(|i| (a >> (31 - i)) & 1 != sign)
            .map_or(u32::MAX, |i| i);
        assert_eq!(int::ffbh_i32(a), ffbhi, "{a:08x}");
        let mut rev = 0u32;
        for i in 0..32 {
            rev |= ((a >> i) & 1) << (31 - i);
        }
        assert_eq!(int::bfrev_b32(a), rev);
        // mbcnt: lanes below `lane`
        let lane = r.below(64) as u32;
        let lo = (0..32.min(lane)).filter(|i| (a >> i) & 1 == 1).count() as u32;
        assert_eq!(int::mbcnt_lo_u32_b32(a, c, lane), lo.wrapping_add(c));
        let hi = (32..lane.max(32))
            .filter(|i| (b >> (i - 32)) & 1 == 1)
            .count() as u32;
        assert_eq!(int::mbcnt_hi_u32_b32(b, c, lane), hi.wrapping_add(c));
    }
    // manual examples
    assert_eq!(int::ffbh_u32(0x800000ff), 0);
    assert_eq!(int::ffbh_u32(0x100000ff), 3);
    assert_eq!(int::ffbl_b32(0xff000008), 3);
    assert_eq!(int::ffbh_i32(0x40000000), 1);
    assert_eq!(int::ffbh_i32(0x80000000), 1);
    assert_eq!(int::ffbh_i32(0x0fffffff), 4);
    assert_eq!(int::ffbh_i32(0xffffffff), u32::MAX);
    assert_eq!(int::lshl_add_u64(1, 4, 1), 17);
    assert_eq!(int::lshl_add_u64(1, 5, 1), 2, "counts above 4 act as 0");
    assert_eq!(
        lathe_emu::alu::gfx950::bitop3(0xf0, 0xcc, 0xaa, 0x96),
        0xf0 ^ 0xcc ^ 0xaa
    );
    assert_eq!(
        lathe_emu::alu::gfx950::bitop3(0xf0, 0xcc, 0xaa, 0xea),
        (0xf0 & 0xcc) | 0xaa
    );
}

#[test]
fn perm_b32_table() {
    let (a, b) = (0x8c7b_6a59u32, 0x4837_2615u32); // bytes 7..0: 8c 7b 6a 59 48 37 26 15
    let bytes = [0x15u8, 0x26, 0x37, 0x48, 0x59, 0x6a, 0x7b, 0x8c];
    for sel in 0..=255u32 {
        let want: u8 = match sel {
            0..=7 => bytes[sel as usize],
            8 => 0x00,  // byte 1 (0x26) sign 0
            9 => 0x00,  // byte 3 (0x48)
            10 => 0x00, // byte 5 (0x6a)
            11 => 0xff, // byte 7 (0x8c) sign 1
            12 => 0x00,
            _ => 0xff,
        };
        let s = sel * 0x0101_0101;
        assert_eq!(
            int::perm_b32(a, b, s),
            want as u32 * 0x0101_0101,
            "sel {sel:#x}"
        );
    }
    // byte-wise independent selection: swap endianness
    assert_eq!(int::perm_b32(0, 0x1122_3344, 0x0001_0203), 0x4433_2211);
    assert_eq!(
        int::perm_b32(0x8000_0000, 0x0000_8000, 0x0b0a_0908),
        0xff00_00ff
    );
}

#[test]
fn sad_lerp_minmax() {
    let mut r = Rng::new(54);
    for _ in 0..N {
        let (a, b, c) = (val(&mut r), val(&mut r), val(&mut r));
        let by = |x: u32, i: u32| (x >> (8 * i)) & 0xff;
        let sad: u32 = (0..4).map(|i| by(a, i).abs_diff(by(b, i))).sum();
        assert_eq!(int::sad_u8(a, b, c), sad.wrapping_add(c));
        assert_eq!(int::sad_hi_u8(a, b, c), (sad << 16).wrapping_add(c));
        let msad: u32 = (0..4)
            .filter(|&i| by(b, i) != 0)
            .map(|i| by(a, i).abs_diff(by(b, i)))
            .sum();
        assert_eq!(int::msad_u8(a, b, c), msad.wrapping_add(c));
        assert_eq!(int::sad_u32(a, b, c), a.abs_diff(b).wrapping_add(c));
        assert_eq!(
            int::sad_u16(a, b, c),
            c.wrapping_add((a & 0xffff).abs_diff(b & 0xffff))
                .wrapping_add((a >> 16).abs_diff(b >> 16))
        );
        let lerp: u32 = (0..4)
            .map(|i| ((by(a, i) + by(b, i) + ((c >> (8 * i)) & 1)) >> 1) << (8 * i))
            .sum();
        assert_eq!(int::lerp_u8(a, b, c), lerp);
        let mut v = [a as i32, b as i32, c as i32];
        v.sort();
        assert_eq!(int::med3_i32(a, b, c), v[1] as u32);
        assert_eq!(int::min3_i32(a, b, c), v[0] as u32);
        assert_eq!(int::max3_i32(a, b, c), v[2] as u32);
        let mut u = [a, b, c];
        u.sort();
        assert_eq!(int::med3_u32(a, b, c), u[1]);
        let mut h = [a as u16 as i16, b as u16 as i16, c as u16 as i16];
        h.sort();
        assert_eq!(int::med3_i16(a as u16, b as u16, c as u16), h[1] as u16);
        let mut hu = [a as u16, b as u16, c as u16];
        hu.sort();
        assert_eq!(int::med3_u16(a as u16, b as u16, c as u16), hu[1]);
        // qsad windows
        let a64 = (a as u64) << 32 | b as u64;
        let c64 = (c as u64) << 32 | a as u64;
        let q = int::qsad_pk_u16_u8(a64, b, c64);
        for i in 0..4 {
            let w = (a64 >> (8 * i)) as u32;
            let acc = ((c64 >> (16 * i)) & 0xffff) as u32;
            assert_eq!(
                (q >> (16 * i)) & 0xffff,
                (int::sad_u8(w, b, acc) & 0xffff) as u64
            );
        }
        // dot products
        let d2: i64 = (0..2)
            .map(|i| {
                ((a >> (16 * i)) as u16 as i16 as i64) * ((b >> (16 * i)) as u16 as i16 as i64)
            })
            .sum();
        assert_eq!(
            int::dot2_i32_i16(a, b, c, false),
            (d2 + c as i32 as i64) as u32
        );
        let d4: i64 = (0..4)
            .map(|i| (by(a, i) as u8 as i8 as i64) * (by(b, i) as u8 as i8 as i64))
            .sum();
        assert_eq!(
            int::dot4_i32_i8(a, b, c, false),
            (d4 + c as i32 as i64) as u32
        );
        let d4u: u64 = (0..4).map(|i| by(a, i) as u64 * by(b, i) as u64).sum();
        assert_eq!(
            int::dot4_u32_u8(a, b, c, true) as u64,
            (d4u + c as u64).min(0xffff_ffff)
        );
        let nib = |x: u32, i: u32| -> i64 {
            let v = ((x >> (4 * i)) & 15) as i64;
            if v >= 8 {
                v - 16
            } else {
                v
            }
        };
        let d8: i64 = (0..8).map(|i| nib(a, i) * nib(b, i)).sum();
        assert_eq!(
            int::dot8_i32_i4(a, b, c, false),
            (d8 + c as i32 as i64) as u32
        );
        let d8u: u64 = (0..8)
            .map(|i| ((a >> (4 * i)) & 15) as u64 * ((b >> (4 * i)) & 15) as u64)
            .sum();
        assert_eq!(int::dot8_u32_u4(a, b, c, false), (d8u + c as u64) as u32);
        let d2u: u64 = (0..2)
            .map(|i| ((a >> (16 * i)) & 0xffff) as u64 * ((b >> (16 * i)) & 0xffff) as u64)
            .sum();
        assert_eq!(int::dot2_u32_u16(a, b, c, false), (d2u + c as u64) as u32);
    }
}

#[test]
fn packed_ops() {
    let mut r = Rng::new(55);
    let m = Mode::default();
    for _ in 0..N {
        let (a, b, c) = (val(&mut r), val(&mut r), val(&mut r));
        let lo = |x: u32| x as u16;
        let hi = |x: u32| (x >> 16) as u16;
        let join = |l: u16, h: u16| l as u32 | (h as u32) << 16;
        assert_eq!(
            packed::pk_add_u16(a, b, false),
            join(lo(a).wrapping_add(lo(b)), hi(a).wrapping_add(hi(b)))
        );
        assert_eq!(
            packed::pk_add_u16(a, b, true),
            join(lo(a).saturating_add(lo(b)), hi(a).saturating_add(hi(b)))
        );
        assert_eq!(
            packed::pk_sub_i16(a, b, true),
            join(
                (lo(a) as i16).saturating_sub(lo(b) as i16) as u16,
                (hi(a) as i16).saturating_sub(hi(b) as i16) as u16
            )
        );
        assert_eq!(
            packed::pk_mul_lo_u16(a, b),
            join(lo(a).wrapping_mul(lo(b)), hi(a).wrapping_mul(hi(b)))
        );
        assert_eq!(
            packed::pk_mad_u16(a, b, c, false),
            join(
                lo(a).wrapping_mul(lo(b)).wrapping_add(lo(c)),
                hi(a).wrapping_mul(hi(b)).wrapping_add(hi(c))
            )
        );
        assert_eq!(
            packed::pk_lshlrev_b16(a, b),
            join(lo(b) << (lo(a) & 15), hi(b) << (hi(a) & 15))
        );
        assert_eq!(
            packed::pk_ashrrev_i16(a, b),
            join(
                ((lo(b) as i16) >> (lo(a) & 15)) as u16,
                ((hi(b) as i16) >> (hi(a) & 15)) as u16
            )
        );
        assert_eq!(
            packed::pk_max_i16(a, b),
            join(
                (lo(a) as i16).max(lo(b) as i16) as u16,
                (hi(a) as i16).max(hi(b) as i16) as u16
            )
        );
        assert_eq!(
            packed::pk_min_u16(a, b),
            join(lo(a).min(lo(b)), hi(a).min(hi(b)))
        );
        // f16 lanes are the scalar f16 ops
        let fa = lathe_emu::alu::float::add_f16(lo(a), lo(b), m);
        let fh = lathe_emu::alu::float::add_f16(hi(a), hi(b), m);
        assert_eq!(packed::pk_add_f16(a, b, m), join(fa, fh));
        let fl = lathe_emu::alu::float::fma_f16(lo(a), lo(b), lo(c), m);
        let fhh = lathe_emu::alu::float::fma_f16(hi(a), hi(b), hi(c), m);
        assert_eq!(packed::pk_fma_f16(a, b, c, m), join(fl, fhh));
    }
    // operand selection
    assert_eq!(packed::pk_operand(0xaaaa_bbbb, false, true), 0xaaaa_bbbb);
    assert_eq!(packed::pk_operand(0xaaaa_bbbb, true, false), 0xbbbb_aaaa);
    assert_eq!(packed::pk_operand(0xaaaa_bbbb, true, true), 0xaaaa_aaaa);
    assert_eq!(packed::pk_operand(0xaaaa_bbbb, false, false), 0xbbbb_bbbb);
    assert_eq!(packed::pk_neg_f16(0x3c00_3c00, true, false), 0x3c00_bc00);
    assert_eq!(packed::pk_neg_f32(0, false, true), 1 << 63);
    assert_eq!(
        packed::pk_mov_b32(0x1_0000_0002, 0x3_0000_0004, false, true),
        0x3_0000_0002
    );
    assert_eq!(
        packed::pk_mov_b32(0x1_0000_0002, 0x3_0000_0004, true, false),
        0x4_0000_0001
    );
    // dot2 f32_f16: 1*2 + 3*4 + 0.5
    assert_eq!(
        packed::dot2_f32_f16(0x4200_3c00, 0x4400_4000, 0x3f00_0000, m),
        14.5f32.to_bits()
    );
    assert_eq!(
        packed::dot2_f32_bf16(0x4040_3f80, 0x4080_4000, 0x3f00_0000, m),
        14.5f32.to_bits()
    );
    assert_eq!(
        packed::mix_operand(0x3c00_4000, true, true, m),
        1.0f32.to_bits()
    );
    assert_eq!(
        packed::mix_operand(0x3c00_4000, false, true, m),
        2.0f32.to_bits()
    );
    assert_eq!(
        packed::mix_operand(0x3c00_4000, true, false, m),
        0x3c00_4000
    );
    assert_eq!(
        packed::mad_mix_f16(0x4000_0000, 0x4040_0000, 0x3f80_0000, m),
        0x4700
    );
}

#[test]
fn salu_results_and_scc() {
    let mut r = Rng::new(56);
    for _ in 0..N {
        let (a, b) = (val(&mut r), val(&mut r));
        let scc = r.bool();
        let s = a as u64 + b as u64;
        assert_eq!(salu::add_u32(a, b), (s as u32, s >> 32 != 0));
        let s = a as u64 + b as u64 + scc as u64;
        assert_eq!(salu::addc_u32(a, b, scc), (s as u32, s >> 32 != 0));
        assert_eq!(salu::sub_u32(a, b), (a.wrapping_sub(b), b > a));
        let d = a as i64 - b as i64 - scc as i64;
        assert_eq!(salu::subb_u32(a, b, scc), (d as u32, d < 0));
        let si = a as i32 as i64 + b as i32 as i64;
        assert_eq!(salu::add_i32(a, b), (si as u32, si != si as i32 as i64));
        let sd = a as i32 as i64 - b as i32 as i64;
        assert_eq!(salu::sub_i32(a, b), (sd as u32, sd != sd as i32 as i64));
        assert_eq!(
            salu::min_i32(a, b),
            if (a as i32) < (b as i32) {
                (a, true)
            } else {
                (b, false)
            }
        );
        assert_eq!(
            salu::max_u32(a, b),
            if a > b { (a, true) } else { (b, false) }
        );
        let (rr, sc) = salu::bitop_b32(salu::BitOp::Andn2, a, b);
        assert_eq!((rr, sc), (a & !b, a & !b != 0));
        let w = (a as u64) << 32 | b as u64;
        assert_eq!(salu::bitop_b64(salu::BitOp::Xnor, w, !w), (0, false));
        assert_eq!(salu::lshl_b64(w, a), (w << (a & 63), w << (a & 63) != 0));
        assert_eq!(
            salu::ashr_i32(a, b),
            (
                ((a as i32) >> (b & 31)) as u32,
                ((a as i32) >> (b & 31)) != 0
            )
        );
        // bfe with the packed operand: offset b[4:0], width b[22:16]
        let width = (b >> 16) & 0x7f;
        let want = if width == 0 {
            0
        } else if width >= 32 {
            a >> (b & 31)
        } else {
            bfe_ref(a, b & 31, width, false)
        };
        assert_eq!(salu::bfe_u32(a, b), (want, want != 0), "{a:08x} {b:08x}");
        if width > 0 && width < 32 {
            let want = bfe_ref(a, b & 31, width, true);
            assert_eq!(salu::bfe_i32(a, b), (want, want != 0));
        }
        for n in 1..=4 {
            let v = ((a as u64) << n) + b as u64;
            assert_eq!(salu::lshl_add_u32(n, a, b), (v as u32, v >> 32 != 0));
        }
        let (d, sc) = salu::absdiff_i32(a, b);
        assert_eq!(d, (a as i32).wrapping_sub(b as i32).wrapping_abs() as u32);
        assert_eq!(sc, d != 0);
        let ones = (0..64).filter(|i| (w >> i) & 1 == 1).count() as u32;
        assert_eq!(salu::bcnt1_i32_b64(w), (ones, ones != 0));
        assert_eq!(salu::bcnt0_i32_b64(w), (64 - ones, ones != 64));
        let ff1 = (0..64).find(|i| (w >> i) & 1 == 1).map_or(u32::MAX, |i| i);
        assert_eq!(salu::ff1_i32_b64(w), ff1);
        let ff0 = (0..64).find(|i| (w >> i) & 1 == 0).map_or(u32::MAX, |i| i);
        assert_eq!(salu::ff0_i32_b64(w), ff0);
        let fl = (0..64)
            .find(|i| (w >> (63 - i)) & 1 == 1)
            .map_or(u32::MAX, |i| i);
        assert_eq!(salu::flbit_i32_b64(w), fl);
        let sign = w >> 63;
        let fls = (1..64)
            .find(|i| (w >> (63 - i)) & 1 != sign)
            .map_or(u32::MAX, |i| i);
        assert_eq!(salu::flbit_i32_i64(w), fls);
        let mut wq = 0u64;
        let mut qm = 0u64;
        for q in 0..16 {
            if (w >> (4 * q)) & 15 != 0 {
                wq |= 15 << (4 * q);
                qm |= 1 << q;
            }
        }
        assert_eq!(salu::wqm_b64(w), (wq, wq != 0));
        assert_eq!(salu::quadmask_b64(w), (qm, qm != 0));
        let mut rep = 0u64;
        for i in 0..32 {
            if (a >> i) & 1 == 1 {
                rep |= 3 << (2 * i);
            }
        }
        assert_eq!(salu::bitreplicate_b64_b32(a), rep);
        assert_eq!(salu::bitcmp_b64(w, a, true), (w >> (a & 63)) & 1 == 1);
        assert_eq!(salu::bitset1_b64(0, a), 1 << (a & 63));
        assert_eq!(salu::bitset0_b32(u32::MAX, a), !(1 << (a & 31)));
        assert_eq!(salu::cmp_i32(salu::ICmp::Lt, a, b), (a as i32) < (b as i32));
        let k = b as u16;
        let sk = a as i32 as i64 + k as i16 as i64;
        assert_eq!(salu::addk_i32(a, k), (sk as u32, sk != sk as i32 as i64));
        assert_eq!(
            salu::mul_hi_i32(a, b),
            ((a as i32 as i64 * b as i32 as i64) >> 32) as u32
        );
        assert_eq!(salu::cselect(a, b, scc), if scc { a } else { b });
    }
    // manual examples
    assert_eq!(salu::absdiff_i32(0x8000_0000, 0), (0x8000_0000, true));
    assert_eq!(salu::absdiff_i32(0x8000_0000, 1), (0x7fff_ffff, true));
    assert_eq!(salu::abs_i32(0x8000_0000), (0x8000_0000, true));
    assert_eq!(salu::abs_i32(0), (0, false));
    assert_eq!(salu::bcnt0_i32_b32(0xcccc_cccc), (16, true));
    assert_eq!(salu::bcnt0_i32_b32(0xffff_ffff), (0, false));
    assert_eq!(salu::ff0_i32_b32(0xfffe_ffff), 16);
    assert_eq!(salu::ff1_i32_b32(0), u32::MAX);
    assert_eq!(salu::flbit_i32(0xffff_3333), 16);
    assert_eq!(salu::flbit_i32(0xffff_ffff), u32::MAX);
    assert_eq!(salu::flbit_i32_b32(0x0000_cccc), 16);
    assert_eq!(salu::pack_ll_b32_b16(0x1111_2222, 0x3333_4444), 0x4444_2222);
    assert_eq!(salu::pack_lh_b32_b16(0x1111_2222, 0x3333_4444), 0x3333_2222);
    assert_eq!(salu::pack_hh_b32_b16(0x1111_2222, 0x3333_4444), 0x3333_1111);
    assert_eq!(salu::sext_i32_i8(0x80), 0xffff_ff80);
    assert_eq!(salu::sext_i32_i16(0x7fff), 0x7fff);
    assert_eq!(salu::brev_b32(1), 0x8000_0000);
    assert_eq!(salu::bfm_b64(64 + 3, 2), 0b11100);
    assert_eq!(salu::movk_i32(0xffff), u32::MAX);
    assert_eq!(salu::mulk_i32(3, 0xfffe), (-6i32) as u32);
    assert_eq!(
        salu::bfe_i64(0x8000_0000_0000_0000, 63 | 1 << 16),
        (u64::MAX, true)
    );
    assert_eq!(salu::bfe_u64(u64::MAX, 4 | 8 << 16), (0xff, true));
    assert_eq!(salu::not_b32(u32::MAX), (0, false));
}

#[test]
fn float_compares_match_host_predicates() {
    let mut r = Rng::new(57);
    let m = Mode::default();
    for _ in 0..N {
        let (a, b) = (r.f32(), r.f32());
        let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
        let un = fa.is_nan() || fb.is_nan();
        let want = [
            false,
            fa < fb,
            fa == fb,
            fa <= fb,
            fa > fb,
            fa < fb || fa > fb,
            fa >= fb,
            !un,
            un,
            !(fa >= fb),
            !(fa < fb || fa > fb),
            !(fa > fb),
            !(fa <= fb),
            fa != fb,
            !(fa < fb),
            true,
        ];
        for (i, w) in want.iter().enumerate() {
            let op = FCmp::from_index(i as u32);
            assert_eq!(cmp::cmp_f32(op, a, b, m), *w, "{op:?} {a:08x} {b:08x}");
        }
        let (x, y) = (r.f64(), r.f64());
        let (gx, gy) = (f64::from_bits(x), f64::from_bits(y));
        assert_eq!(cmp::cmp_f64(FCmp::Nge, x, y, m), !(gx >= gy));
        assert_eq!(cmp::cmp_f64(FCmp::Lg, x, y, m), gx < gy || gx > gy);
        let (h, k) = (r.f16(), r.f16());
        let (vh, vk) = (f16_value(h), f16_value(k));
        assert_eq!(cmp::cmp_f16(FCmp::Le, h, k, m), vh <= vk, "{h:04x} {k:04x}");
        assert_eq!(cmp::cmp_f16(FCmp::Neq, h, k, m), vh != vk);
        let (u, v) = (val(&mut r), val(&mut r));
        let ops = [
            cmp::ICmp::F,
            cmp::ICmp::Lt,
            cmp::ICmp::Eq,
            cmp::ICmp::Le,
            cmp::ICmp::Gt,
            cmp::ICmp::Ne,
            cmp::ICmp::Ge,
            cmp::ICmp::T,
        ];
        for (i, op) in ops.iter().enumerate() {
            assert_eq!(cmp::ICmp::from_index(i as u32), *op);
        }
        assert_eq!(cmp::cmp_i32(cmp::ICmp::Lt, u, v), (u as i32) < (v as i32));
        assert_eq!(cmp::cmp_u32(cmp::ICmp::Ge, u, v), u >= v);
        assert_eq!(
            cmp::cmp_i16(cmp::ICmp::Gt, u as u16, v as u16),
            (u as u16 as i16) > (v as u16 as i16)
        );
        assert_eq!(
            cmp::cmp_u16(cmp::ICmp::Le, u as u16, v as u16),
            (u as u16) <= (v as u16)
        );
        let (p, q) = ((u as u64) << 32 | v as u64, (v as u64) << 32 | u as u64);
        assert_eq!(cmp::cmp_i64(cmp::ICmp::Lt, p, q), (p as i64) < (q as i64));
        assert_eq!(cmp::cmp_u64(cmp::ICmp::Ne, p, q), p != q);
    }
    // denormals compare as zero when flushed
    let ftz = Mode {
        denorm_f32: lathe_emu::alu::Denorm::FLUSH,
        ..m
    };
    assert!(cmp::cmp_f32(FCmp::Eq, 1, 0x8000_0000, ftz));
    assert!(!cmp::cmp_f32(FCmp::Eq, 1, 0x8000_0000, m));
}

#[test]
fn class_masks() {
    use cmp::class::*;
    let table: [(u32, u32); 12] = [
        (0x7f80_0001, SNAN),
        (0x7fc0_0000, QNAN),
        (0xff80_0000, NEG_INF),
        (0xbf80_0000, NEG_NORMAL),
        (0x8000_0001, NEG_DENORM),
        (0x8000_0000, NEG_ZERO),
        (0x0000_0000, POS_ZERO),
        (0x007f_ffff, POS_DENORM),
        (0x0080_0000, POS_NORMAL),
        (0x7f80_0000, POS_INF),
        (0xffbf_ffff, SNAN),
        (0x7f7f_ffff, POS_NORMAL),
    ];
    for (x, bit) in table {
        assert_eq!(
            cmp::classify::<lathe_emu::alu::soft::F32>(x as u64),
            bit,
            "{x:08x}"
        );
        for k in 0..10 {
            assert_eq!(cmp::cmp_class_f32(x, 1 << k), bit == 1 << k);
        }
        assert!(cmp::cmp_class_f32(x, 0x3ff));
        assert!(!cmp::cmp_class_f32(x, 0x3ff & !bit));
        assert!(!cmp::cmp_class_f32(x, 0xfc00), "bits above 9 are ignored");
    }
    assert!(cmp::cmp_class_f16(0x7d00, SNAN));
    assert!(cmp::cmp_class_f16(0x0001, POS_DENORM));
    assert!(cmp::cmp_class_f64(0x8000_0000_0000_0001, NEG_DENORM));
    assert!(cmp::cmp_class_f64(0x7ff8_0000_0000_0000, QNAN));
    // every f16 falls in exactly one class
    for h in 0..=u16::MAX {
        assert_eq!(
            cmp::classify::<lathe_emu::alu::soft::F16>(h as u64).count_ones(),
            1
        );
    }
}

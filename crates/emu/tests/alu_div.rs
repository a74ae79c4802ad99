//! `v_div_scale`/`v_div_fmas`/`v_div_fixup` and the IEEE division
//! sequences clang emits for f32 and f64 `fdiv`: the emulated sequence must
//! produce the correctly rounded quotient (the host's `a / b`) bit for bit.

mod alu_common;
use alu_common::*;
use lathe_emu::alu::float::*;
use lathe_emu::alu::trans::{rcp_f32, rcp_f64};
use lathe_emu::alu::{Denorm, Mode};

const NEG32: u32 = 0x8000_0000;
const ONE32: u32 = 0x3f80_0000;
const NEG64: u64 = 1 << 63;
const ONE64: u64 = 0x3ff0_0000_0000_0000;

/// clang/LLVM's f32 fdiv expansion (AMDGPUISelLowering LowerFDIV32 shape):
/// scale, rcp, two Newton steps with fma, div_fmas, div_fixup. When f32
/// denormals are flushed, the fma chain runs with denormals enabled (the
/// compiler brackets it with s_denorm_mode / s_setreg).
fn fdiv32(num: u32, den: u32, m: Mode) -> u32 {
    let chain = Mode {
        denorm_f32: Denorm::IEEE,
        ..m
    };
    let (den_s, _) = div_scale_f32(den, den, num, m);
    let (num_s, vcc) = div_scale_f32(num, den, num, m);
    let rcp = rcp_f32(den_s, m);
    let nd = den_s ^ NEG32;
    let fma0 = fma_f32(nd, rcp, ONE32, chain);
    let fma1 = fma_f32(fma0, rcp, rcp, chain);
    let mul = mul_f32(num_s, fma1, chain);
    let fma2 = fma_f32(nd, mul, num_s, chain);
    let fma3 = fma_f32(fma2, fma1, mul, chain);
    let fma4 = fma_f32(nd, fma3, num_s, chain);
    let fmas = div_fmas_f32(fma4, fma1, fma3, vcc, m);
    div_fixup_f32(fmas, den, num)
}

/// LLVM's f64 fdiv expansion (LowerFDIV64 shape).
fn fdiv64(x: u64, y: u64, m: Mode) -> u64 {
    let (ds0, _) = div_scale_f64(y, y, x, m);
    let nds0 = ds0 ^ NEG64;
    let rcp = rcp_f64(ds0, m);
    let fma0 = fma_f64(nds0, rcp, ONE64, m);
    let fma1 = fma_f64(rcp, fma0, rcp, m);
    let fma2 = fma_f64(nds0, fma1, ONE64, m);
    let (ds1, vcc) = div_scale_f64(x, y, x, m);
    let fma3 = fma_f64(fma1, fma2, fma1, m);
    let mul = mul_f64(ds1, fma3, m);
    let fma4 = fma_f64(nds0, mul, ds1, m);
    let fmas = div_fmas_f64(fma4, fma3, mul, vcc, m);
    div_fixup_f64(fmas, y, x)
}

fn check32(num: u32, den: u32, m: Mode, flush: bool) {
    let got = fdiv32(num, den, m);
    let q = f32::from_bits(num) / f32::from_bits(den);
    if q.is_nan() {
        assert!(
            f32::from_bits(got).is_nan(),
            "{num:08x}/{den:08x} = {got:08x}, want NaN"
        );
        return;
    }
    let mut want = q.to_bits();
    if flush && q.is_subnormal() {
        want &= NEG32;
    }
    assert_eq!(
        got, want,
        "{num:08x}/{den:08x} = {got:08x}, want {want:08x}"
    );
}

fn check64(num: u64, den: u64, m: Mode) {
    let got = fdiv64(num, den, m);
    let q = f64::from_bits(num) / f64::from_bits(den);
    if q.is_nan() {
        assert!(f64::from_bits(got).is_nan(), "{num:016x}/{den:016x}");
        return;
    }
    assert_eq!(got, q.to_bits(), "{num:016x}/{den:016x}");
}

/// Edge operands: specials, denormals, powers of two near the exponent
/// limits, values whose quotient over/underflows.
fn edges32() -> Vec<u32> {
    let mut v: Vec<u32> = F32_SPECIALS.to_vec();
    for e in [
        0u32, 1, 2, 3, 23, 24, 25, 62, 63, 64, 65, 100, 126, 127, 128, 129, 150, 190, 191, 192,
        200, 220, 230, 240, 250, 252, 253, 254,
    ] {
        for f in [0u32, 1, 0x2a_aaab, 0x40_0000, 0x7f_ffff] {
            v.push(e << 23 | f);
            v.push(NEG32 | e << 23 | f);
        }
    }
    v
}

#[test]
fn fdiv32_sequence_is_correctly_rounded_edges() {
    let m = Mode::default();
    let e = edges32();
    for &a in &e {
        for &b in &e {
            check32(a, b, m, false);
        }
    }
}

#[test]
fn fdiv32_sequence_is_correctly_rounded_random() {
    let m = Mode::default();
    let mut r = Rng::new(21);
    for _ in 0..300_000 {
        check32(r.f32(), r.f32(), m, false);
    }
    // quotients near 1 and exact quotients
    for _ in 0..100_000 {
        let b = r.f32_finite();
        let q = (r.u32() & 0x00ff_ffff) | 0x3f80_0000;
        let a = (f32::from_bits(q) * f32::from_bits(b)).to_bits();
        check32(a, b, m, false);
        check32(r.u32(), r.u32(), m, false);
    }
}

/// With f32 denormals flushed (-fgpu-flush-denormals-to-zero), the
/// expansion still divides denormal operands correctly (v_div_scale sees
/// them), and a denormal quotient is flushed by v_div_fmas.
#[test]
fn fdiv32_sequence_flush_mode() {
    let m = Mode {
        denorm_f32: Denorm::FLUSH,
        ..Mode::default()
    };
    let e = edges32();
    for &a in &e {
        for &b in &e {
            check32(a, b, m, true);
        }
    }
    let mut r = Rng::new(22);
    for _ in 0..100_000 {
        check32(r.f32(), r.f32(), m, true);
    }
}

fn edges64() -> Vec<u64> {
    let mut v: Vec<u64> = F64_SPECIALS.to_vec();
    for e in [
        0u64, 1, 2, 52, 53, 54, 127, 128, 129, 500, 767, 768, 769, 1000, 1022, 1023, 1024, 1100,
        1279, 1280, 1300, 1800, 1900, 2000, 2044, 2045, 2046,
    ] {
        for f in [
            0u64,
            1,
            0x5_5555_5555_5555,
            0x8_0000_0000_0000,
            0xf_ffff_ffff_ffff,
        ] {
            v.push(e << 52 | f);
            v.push(NEG64 | e << 52 | f);
        }
    }
    v
}

#[test]
fn fdiv64_sequence_is_correctly_rounded() {
    let m = Mode::default();
    let e = edges64();
    for &a in &e {
        for &b in &e {
            check64(a, b, m);
        }
    }
    let mut r = Rng::new(23);
    for _ in 0..300_000 {
        check64(r.f64(), r.f64(), m);
    }
}

#[test]
fn div_scale_branches() {
    let m = Mode::default();
    let f = |x: f32| x.to_bits();
    // zero operands: NaN, no VCC
    let (d, vcc) = div_scale_f32(0, 0, f(1.0), m);
    assert!(f32::from_bits(d).is_nan() && !vcc);
    // ordinary operands: unchanged
    assert_eq!(div_scale_f32(f(3.0), f(3.0), f(7.0), m), (f(3.0), false));
    assert_eq!(div_scale_f32(f(7.0), f(3.0), f(7.0), m), (f(7.0), false));
    // numerator huge relative to the denominator: VCC, denominator * 2^64
    let (num, den) = (f(1e30), f(1e-10));
    assert_eq!(
        div_scale_f32(den, den, num, m),
        (f(1e-10 * 2f32.powi(64)), true)
    );
    assert_eq!(div_scale_f32(num, den, num, m), (num, true));
    // denormal denominator: both scaled up, no VCC
    let dd = 0x0000_1000;
    let (d, vcc) = div_scale_f32(dd, dd, f(1e-30), m);
    assert_eq!(
        (f32::from_bits(d) as f64, vcc),
        (f32::from_bits(dd) as f64 * 2f64.powi(64), false)
    );
    // 1/den denormal only: both scaled down
    let big = f(2f32.powi(127));
    assert_eq!(
        div_scale_f32(big, big, f(4.0), m),
        (f(2f32.powi(63)), false)
    );
    assert_eq!(
        div_scale_f32(f(4.0), big, f(4.0), m),
        (f(2f32.powi(-62)), false)
    );
    // quotient denormal: VCC, numerator scaled up
    let (num, den) = (f(1e-30), f(1e10));
    assert_eq!(
        div_scale_f32(num, den, num, m),
        (f(1e-30 * 2f32.powi(64)), true)
    );
    assert_eq!(div_scale_f32(den, den, num, m), (den, true));
    // tiny numerator (exponent field <= 23): both scaled up
    let tiny = f(2f32.powi(-110));
    assert_eq!(
        div_scale_f32(tiny, f(0.5), tiny, m),
        (f(2f32.powi(-46)), false)
    );
    assert_eq!(
        div_scale_f32(f(0.5), f(0.5), tiny, m),
        (f(2f32.powi(63)), false)
    );
}

#[test]
fn div_fmas_scaling() {
    let m = Mode::default();
    let f = |x: f32| x.to_bits();
    // no VCC: plain fma
    assert_eq!(div_fmas_f32(f(2.0), f(3.0), f(1.0), false, m), f(7.0));
    // VCC with a large S2: * 2^64
    assert_eq!(
        div_fmas_f32(f(0.0), f(3.0), f(4.0), true, m),
        f(4.0 * 2f32.powi(64))
    );
    // VCC with a small S2: * 2^-64, rounded once into the denormal range
    let c = f(2f32.powi(-70) * 1.5);
    assert_eq!(div_fmas_f32(0, 0, c, true, m), 0xc000); // 1.5 * 2^-134
                                                        // single rounding: 1.5*2^-149 is a tie between 1 and 2 denormal ulps,
                                                        // the fma's low part decides
    let c = f(1.5 * 2f32.powi(-85));
    let tiny = f(2f32.powi(-100));
    assert_eq!(div_fmas_f32(tiny, tiny, c, true, m), 2);
    assert_eq!(div_fmas_f32(tiny | NEG32, tiny, c, true, m), 1);
    // f64: 2^±128
    let g = |x: f64| x.to_bits();
    assert_eq!(div_fmas_f64(0, 0, g(2.0), true, m), g(2.0 * 2f64.powi(128)));
    assert_eq!(
        div_fmas_f64(0, 0, g(0.5), true, m),
        g(0.5 * 2f64.powi(-128))
    );
}

#[test]
fn div_fixup_special_cases() {
    let f = |x: f32| x.to_bits();
    let (inf, nan) = (0x7f80_0000u32, 0x7fc0_0000u32);
    // NaN numerator first, then NaN denominator, quieted
    assert_eq!(div_fixup_f32(f(1.0), 0x7f80_0001, 0x7f80_0002), 0x7fc0_0002);
    assert_eq!(div_fixup_f32(f(1.0), 0xff80_0001, f(2.0)), 0xffc0_0001);
    // 0/0 and inf/inf: 0xffc00000
    assert_eq!(div_fixup_f32(f(1.0), 0, NEG32), 0xffc0_0000);
    assert_eq!(div_fixup_f32(f(1.0), inf, inf | NEG32), 0xffc0_0000);
    // x/0 and inf/y: signed inf
    assert_eq!(div_fixup_f32(f(1.0), NEG32, f(2.0)), inf | NEG32);
    assert_eq!(div_fixup_f32(f(1.0), f(2.0), inf), inf);
    // x/inf and 0/y: signed zero
    assert_eq!(div_fixup_f32(f(1.0), inf | NEG32, f(2.0)), NEG32);
    assert_eq!(div_fixup_f32(f(1.0), f(-2.0), 0), NEG32);
    // underflow: exponent difference below -150
    assert_eq!(
        div_fixup_f32(f(5.0), f(2f32.powi(100)), f(2f32.powi(-60))),
        0
    );
    // otherwise the quotient's magnitude with the computed sign
    assert_eq!(div_fixup_f32(f(-3.0), f(2.0), f(6.0)), f(3.0));
    assert_eq!(div_fixup_f32(f(3.0), f(-2.0), f(6.0)), f(-3.0));
    // a NaN quotient from an overflowing chain becomes the signed infinity
    assert_eq!(div_fixup_f32(nan, f(-2.0), f(6.0)), inf | NEG32);
    // f16 and f64 forms
    assert_eq!(div_fixup_f16(0x3c00, 0x0000, 0x0000), 0xfe00);
    assert_eq!(div_fixup_f16(0x3c00, 0x8000, 0x3c00), 0xfc00);
    assert_eq!(div_fixup_f64(0, 0, 0), 0xfff8_0000_0000_0000);
    assert_eq!(div_fixup_legacy_f16(0x4000, 0xbc00, 0x4000), 0xc000);
}

/// `v_div_scale_f32` decides "the quotient is denormal" with the host's
/// f64 division; the exact core (`soft::div` truncating, as the f64 form
/// still does) must agree: random operands, quotients placed next to
/// 2^-126 on both sides, and the special values.
#[test]
fn f32_tiny_quotient_test_matches_the_exact_core() {
    use lathe_emu::alu::soft::{self, F32};
    use lathe_emu::alu::Round;
    let exact = |n: u32, d: u32| {
        let q = soft::div::<F32>(u64::from(n), u64::from(d), Round::Zero);
        soft::is_denorm::<F32>(q) || (soft::is_zero::<F32>(q) && n & 0x7fff_ffff != 0)
    };
    let mut r = alu_common::Rng::new(7);
    let specials = [
        1u32,
        0x007f_ffff,
        0x0080_0000,
        0x3f80_0000,
        0x7f7f_ffff,
        0x7f80_0000,
        0x7fc0_0000,
    ];
    let mut pairs = Vec::new();
    for &a in &specials {
        for &b in &specials {
            pairs.push((a, b));
            pairs.push((a | 0x8000_0000, b));
        }
    }
    for _ in 0..400_000 {
        pairs.push((r.u32(), r.u32()));
        // d random; n = d * 2^-126 nudged by a few ulps either way.
        let d = r.u32() & 0x3fff_ffff | 0x0080_0000;
        let q = f32::from_bits(d) as f64 * f32::MIN_POSITIVE as f64;
        let n = (q as f32).to_bits() as i64 + r.below(7) as i64 - 3;
        pairs.push((n.clamp(1, 0x7f7f_ffff) as u32, d));
    }
    for (n, d) in pairs {
        if n & 0x7fff_ffff == 0 || d & 0x7fff_ffff == 0 {
            continue;
        }
        assert_eq!(
            quotient_below_normal_f32(n, d),
            exact(n, d),
            "{n:08x} / {d:08x}"
        );
    }
}

/// `v_div_scale_f64` decides most "the quotient is denormal" questions by
/// the exponents alone; where it answers, the exact core must agree:
/// random normal pairs whose quotients straddle 2^-1022.
#[test]
fn f64_tiny_quotient_by_exponents_matches_the_exact_core() {
    use lathe_emu::alu::soft::{self, F64};
    use lathe_emu::alu::Round;
    let mut r = alu_common::Rng::new(9);
    let mut answered = 0;
    for _ in 0..300_000 {
        let d = r.u64() & 0x800f_ffff_ffff_ffff | (1 + r.below(2045)) << 52;
        // n's exponent within a few of the boundary (d's exponent - 1022).
        let ed = (d >> 52 & 0x7ff) as i64;
        let en = (ed - 1022 + r.below(7) as i64 - 3).clamp(1, 2046) as u64;
        let n = r.u64() & 0x800f_ffff_ffff_ffff | en << 52;
        let Some(got) = quotient_below_normal_by_exponents::<F64>(n, d) else {
            continue;
        };
        answered += 1;
        let q = soft::div::<F64>(n, d, Round::Zero);
        let exact = soft::is_denorm::<F64>(q) || soft::is_zero::<F64>(q);
        assert_eq!(got, exact, "{n:016x} / {d:016x}");
    }
    assert!(answered > 100_000, "{answered}");
}

//! VALU float operations with MODE handling, and the transcendental units.

mod alu_common;
use alu_common::*;
use lathe_emu::alu::float::*;
use lathe_emu::alu::soft::{F16, F32, F64};
use lathe_emu::alu::trans::*;
use lathe_emu::alu::{Denorm, Mode, Round};

const N: usize = 200_000;
const DEF_NAN: u32 = 0xffc0_0000;

fn m() -> Mode {
    Mode::default()
}
fn ftz() -> Mode {
    Mode {
        denorm_f32: Denorm::FLUSH,
        denorm_f64_f16: Denorm::FLUSH,
        ..Mode::default()
    }
}
fn nan32(x: u32) -> bool {
    f32::from_bits(x).is_nan()
}
fn quiet32(x: u32) -> u32 {
    x | 0x0040_0000
}
fn first_nan32(xs: &[u32]) -> Option<u32> {
    xs.iter().copied().find(|&x| nan32(x)).map(quiet32)
}
/// Host result with the AMD NaN rules applied.
fn expect32(xs: &[u32], host: f32) -> u32 {
    if let Some(n) = first_nan32(xs) {
        n
    } else if host.is_nan() {
        DEF_NAN
    } else {
        host.to_bits()
    }
}
fn ftz32(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

#[test]
fn f32_arith_default_mode_matches_host_with_amd_nan_rules() {
    let mut r = Rng::new(31);
    for _ in 0..N {
        let (a, b, c) = (r.f32(), r.f32(), r.f32());
        let (fa, fb, fc) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
        assert_eq!(
            add_f32(a, b, m()),
            expect32(&[a, b], fa + fb),
            "add {a:08x} {b:08x}"
        );
        assert_eq!(
            mul_f32(a, b, m()),
            expect32(&[a, b], fa * fb),
            "mul {a:08x} {b:08x}"
        );
        assert_eq!(
            fma_f32(a, b, c, m()),
            expect32(&[a, b, c], fa.mul_add(fb, fc)),
            "fma {a:08x} {b:08x} {c:08x}"
        );
        if !nan32(b) {
            assert_eq!(sub_f32(a, b, m()), expect32(&[a, b], fa - fb), "sub");
        }
    }
}

#[test]
fn f64_arith_default_mode_matches_host() {
    let mut r = Rng::new(32);
    for _ in 0..N {
        let (a, b, c) = (r.f64(), r.f64(), r.f64());
        let (fa, fb, fc) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
        for (got, want) in [
            (add_f64(a, b, m()), fa + fb),
            (mul_f64(a, b, m()), fa * fb),
            (fma_f64(a, b, c, m()), fa.mul_add(fb, fc)),
        ] {
            if want.is_nan() {
                assert!(f64::from_bits(got).is_nan());
            } else {
                assert_eq!(got, want.to_bits(), "{a:x} {b:x} {c:x}");
            }
        }
    }
}

#[test]
fn flush_modes_are_applied_per_precision_and_direction() {
    let den = 0x0000_0010u32; // f32 denormal
    let min_norm = 0x0080_0000u32;
    let half = 0x3f00_0000u32;
    // inputs flushed: denorm + 0 = +0 (sign kept for negative)
    assert_eq!(add_f32(den, 0, ftz()), 0);
    assert_eq!(add_f32(den | 0x8000_0000, 0x8000_0000, ftz()), 0x8000_0000);
    assert_eq!(add_f32(den, 0, m()), den);
    // output flushing only: min_normal * 0.5 is denormal
    let out_only = Mode {
        denorm_f32: Denorm {
            allow_in: true,
            allow_out: false,
        },
        ..m()
    };
    assert_eq!(mul_f32(min_norm, half, out_only), 0);
    assert_eq!(mul_f32(min_norm | 0x8000_0000, half, out_only), 0x8000_0000);
    assert_eq!(
        add_f32(den, 0, out_only),
        0,
        "denormal result of an exact add"
    );
    let in_only = Mode {
        denorm_f32: Denorm {
            allow_in: false,
            allow_out: true,
        },
        ..m()
    };
    assert_eq!(mul_f32(min_norm, half, in_only), 0x0040_0000);
    assert_eq!(
        mul_f32(den, 0x4b00_0000, in_only),
        0,
        "flushed input * 2^23"
    );
    // f32 flushing does not affect f64/f16 and vice versa
    let f32_ftz = Mode {
        denorm_f32: Denorm::FLUSH,
        ..m()
    };
    assert_eq!(add_f64(1, 0, f32_ftz), 1);
    assert_eq!(add_f16(1, 0, f32_ftz), 1);
    let f64_ftz = Mode {
        denorm_f64_f16: Denorm::FLUSH,
        ..m()
    };
    assert_eq!(add_f64(1, 0, f64_ftz), 0);
    assert_eq!(add_f16(0x8001, 0x8000, f64_ftz), 0x8000);
    assert_eq!(add_f32(den, 0, f64_ftz), den);
    // random: flushed result equals host on flushed inputs, flushed
    let mut r = Rng::new(33);
    for _ in 0..N {
        let (a, b) = (r.f32(), r.f32());
        if nan32(a) || nan32(b) {
            continue;
        }
        let (fa, fb) = (f32::from_bits(ftz32(a)), f32::from_bits(ftz32(b)));
        let want = expect32(&[a, b], fa * fb);
        assert_eq!(mul_f32(a, b, ftz()), ftz32(want), "{a:08x} {b:08x}");
    }
}

#[test]
fn rounding_mode_fields_select_the_precision() {
    let one = 0x3f80_0000u32;
    let tiny = 0x3000_0000u32; // 2^-31
    let up32 = Mode {
        round_f32: Round::Up,
        ..m()
    };
    let up64 = Mode {
        round_f64_f16: Round::Up,
        ..m()
    };
    assert_eq!(add_f32(one, tiny, up32), one + 1);
    assert_eq!(add_f32(one, tiny, up64), one);
    assert_eq!(
        sub_f32(
            one,
            tiny,
            Mode {
                round_f32: Round::Zero,
                ..m()
            }
        ),
        0x3f7f_ffff
    );
    assert_eq!(
        sub_f32(
            one,
            tiny,
            Mode {
                round_f32: Round::Down,
                ..m()
            }
        ),
        0x3f7f_ffff
    );
    let one64 = 0x3ff0_0000_0000_0000u64;
    let tiny64 = 0x3000_0000_0000_0000u64;
    assert_eq!(add_f64(one64, tiny64, up64), one64 + 1);
    assert_eq!(add_f64(one64, tiny64, up32), one64);
    assert_eq!(add_f16(0x3c00, 0x0001, up64), 0x3c01);
    assert_eq!(add_f16(0x3c00, 0x0001, up32), 0x3c00);
    assert_eq!(fma_f32(one, one, tiny, up32), one + 1);
    assert_eq!(
        mul_f32(
            0x3f80_0001,
            0x3f80_0001,
            Mode {
                round_f32: Round::Down,
                ..m()
            }
        ),
        0x3f80_0002
    );
    assert_eq!(mul_f32(0x3f80_0001, 0x3f80_0001, up32), 0x3f80_0003);
}

#[test]
fn mad_is_unfused_and_always_flushes() {
    let mut r = Rng::new(34);
    for _ in 0..N {
        let (a, b, c) = (r.f32(), r.f32(), r.f32());
        let (fa, fb, fc) = (
            f32::from_bits(ftz32(a)),
            f32::from_bits(ftz32(b)),
            f32::from_bits(ftz32(c)),
        );
        let p = expect32(&[a, b], fa * fb);
        let p = ftz32(p);
        let want = ftz32(expect32(&[p, c], f32::from_bits(p) + fc));
        // default mode keeps denormals, mad flushes anyway
        assert_eq!(mad_f32(a, b, c, m()), want, "{a:08x} {b:08x} {c:08x}");
    }
    // unfused: (1+2^-12)^2 - (1+2^-11) loses the 2^-24 term
    let x = 0x3f80_0800u32;
    let c = 0xbf80_1000u32;
    assert_eq!(mad_f32(x, x, c, m()), 0);
    assert_eq!(fma_f32(x, x, c, m()), 0x3380_0000);
    assert_eq!(mad_f16(0x3c00, 0x0001, 0, m()), 0, "f16 mad flushes too");
}

#[test]
fn legacy_multiplies() {
    let inf = 0x7f80_0000u32;
    let nan = 0x7fc0_0000u32;
    assert_eq!(mul_legacy_f32(0, inf, m()), 0);
    assert_eq!(mul_legacy_f32(nan, 0x8000_0000, m()), 0);
    assert_eq!(
        mul_legacy_f32(0x8000_0000, 0x40a0_0000, m()),
        0,
        "+0, not -0"
    );
    assert_eq!(mul_legacy_f32(0x4000_0000, 0x4040_0000, m()), 0x40c0_0000);
    assert_eq!(mul_legacy_f32(inf, 0x4000_0000, m()), inf);
    assert_eq!(mad_legacy_f32(0, inf, 0x3f80_0000, m()), 0x3f80_0000);
    assert_eq!(
        mad_legacy_f32(0x4000_0000, 0x4000_0000, 0x3f80_0000, m()),
        0x40a0_0000
    );
    assert_eq!(fma_legacy_f32(inf, 0, 0x8000_0000, m()), 0);
}

#[test]
fn min_max_nan_and_zero_rules() {
    let ieee = m();
    let legacy = Mode { ieee: false, ..m() };
    let (q, s, one, two) = (
        0x7fc0_0001u32,
        0x7f80_0002u32,
        0x3f80_0000u32,
        0x4000_0000u32,
    );
    // IEEE mode: signaling NaN is quieted and returned, S0 first
    assert_eq!(min_f32(s, one, ieee), quiet32(s));
    assert_eq!(max_f32(one, s, ieee), quiet32(s));
    assert_eq!(min_f32(s, s | 0x8000_0000, ieee), quiet32(s));
    // quiet NaN: the other operand
    assert_eq!(min_f32(q, one, ieee), one);
    assert_eq!(max_f32(one, q, ieee), one);
    // legacy mode: any NaN yields the other operand
    assert_eq!(min_f32(s, one, legacy), one);
    assert_eq!(max_f32(two, s, legacy), two);
    // both NaN: S1
    assert_eq!(min_f32(q, q | 0x8000_0000, legacy), q | 0x8000_0000);
    // zeros
    assert_eq!(min_f32(0, 0x8000_0000, ieee), 0x8000_0000);
    assert_eq!(min_f32(0x8000_0000, 0, ieee), 0x8000_0000);
    assert_eq!(max_f32(0, 0x8000_0000, ieee), 0);
    assert_eq!(max_f32(0x8000_0000, 0, ieee), 0);
    // random non-NaN against host comparisons
    let mut r = Rng::new(35);
    for _ in 0..N {
        let (a, b) = (r.f32(), r.f32());
        if nan32(a) || nan32(b) {
            continue;
        }
        let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
        let (mn, mx) = (min_f32(a, b, ieee), max_f32(a, b, ieee));
        assert_eq!(f32::from_bits(mn), fa.min(fb));
        assert_eq!(f32::from_bits(mx), fa.max(fb));
        if fa == 0.0 && fb == 0.0 {
            assert_eq!(mn, (a | b) & 0x8000_0000);
            assert_eq!(mx, (a & b) & 0x8000_0000);
        }
        // med3 is the median value
        let c = r.f32_finite();
        let mut v = [fa, fb, f32::from_bits(c)];
        v.sort_by(|x, y| x.partial_cmp(y).expect("ordered"));
        assert_eq!(
            f32::from_bits(med3_f32(a, b, c, ieee)),
            v[1],
            "{a:08x} {b:08x} {c:08x}"
        );
        assert_eq!(f32::from_bits(min3_f32(a, b, c, ieee)), v[0]);
        assert_eq!(f32::from_bits(max3_f32(a, b, c, ieee)), v[2]);
    }
    // med3 with a NaN is min3
    assert_eq!(med3_f32(q, two, one, ieee), one);
    assert_eq!(med3_f32(two, one, q, ieee), one);
    // denormals are flushed per mode (canonicalisation)
    assert_eq!(max_f32(1, 1, ftz()), 0);
    assert_eq!(max_f32(1, 1, m()), 1);
    // f16 and f64 forms
    assert_eq!(min_f16(0x7c01, 0x3c00, ieee), 0x7e01);
    assert_eq!(
        max_f64(0x7ff8_0000_0000_0000, 0x4000_0000_0000_0000, ieee),
        0x4000_0000_0000_0000
    );
}

#[test]
fn clamp_and_omod() {
    let nan = 0x7fc0_0000u32;
    let c = |x: u32, mode: Mode| output_mods::<F32>(x as u64, 0, true, mode) as u32;
    assert_eq!(c(nan, m()), 0, "DX10_CLAMP: NaN -> 0");
    assert_eq!(
        c(
            nan,
            Mode {
                dx10_clamp: false,
                ..m()
            }
        ),
        nan
    );
    assert_eq!(c(0x8000_0000, m()), 0);
    assert_eq!(c(0xbf80_0000, m()), 0);
    assert_eq!(c(0x4000_0000, m()), 0x3f80_0000);
    assert_eq!(c(0x7f80_0000, m()), 0x3f80_0000);
    assert_eq!(c(0x3f00_0000, m()), 0x3f00_0000);
    let o = |x: u32, k: u32| output_mods::<F32>(x as u64, k, false, m()) as u32;
    assert_eq!(o(0x3fc0_0000, 0), 0x3fc0_0000);
    assert_eq!(o(0x3fc0_0000, 1), 0x4040_0000);
    assert_eq!(o(0x3fc0_0000, 2), 0x40c0_0000);
    assert_eq!(o(0x3fc0_0000, 3), 0x3f40_0000);
    assert_eq!(o(3, 3), 2, "1.5 ulp denormal rounds to even");
    assert_eq!(o(0x7f7f_ffff, 1), 0x7f80_0000);
    // omod then clamp
    assert_eq!(output_mods::<F32>(0x3f40_0000, 1, true, m()), 0x3f80_0000);
    assert_eq!(output_mods::<F16>(0x3800, 1, false, m()), 0x3c00);
    // input modifiers
    assert_eq!(input_mods::<F32>(0x3f80_0000, true, true), 0xbf80_0000);
    assert_eq!(input_mods::<F32>(0xbf80_0000, true, false), 0x3f80_0000);
    assert_eq!(input_mods::<F32>(0x7fc0_0000, false, true), 0xffc0_0000);
    assert_eq!(input_mods::<F64>(1 << 63, true, false), 0);
}

#[test]
fn integral_rounding_fract_frexp_ldexp() {
    let mut r = Rng::new(36);
    for _ in 0..N {
        let x = r.f32();
        let f = f32::from_bits(x);
        for (got, want) in [
            (trunc_f32(x, m()), f.trunc()),
            (floor_f32(x, m()), f.floor()),
            (ceil_f32(x, m()), f.ceil()),
            (rndne_f32(x, m()), f.round_ties_even()),
        ] {
            if want.is_nan() {
                assert!(nan32(got));
            } else {
                assert_eq!(got, want.to_bits(), "{x:08x}");
            }
        }
        // fract = x - floor(x), clamped below 1
        if f.is_finite() {
            let fr = (f - f.floor()).min(f32::from_bits(0x3f7f_ffff));
            assert_eq!(f32::from_bits(fract_f32(x, m())), fr, "fract {x:08x}");
        }
        // frexp: reference by repeated halving/doubling in f64
        if f.is_finite() && f != 0.0 {
            let mut v = (f as f64).abs();
            let mut e = 0i32;
            while v >= 1.0 {
                v /= 2.0;
                e += 1;
            }
            while v < 0.5 {
                v *= 2.0;
                e -= 1;
            }
            assert_eq!(frexp_exp_f32(x, m()), e, "frexp_exp {x:08x}");
            assert_eq!(
                f32::from_bits(frexp_mant_f32(x, m())) as f64,
                v.copysign(f as f64)
            );
        }
        // ldexp vs exact f64 scaling rounded once
        let n = r.below(601) as i32 - 300;
        if f.is_finite() {
            let want = (f as f64 * 2f64.powi(n)) as f32;
            assert_eq!(ldexp_f32(x, n, m()), want.to_bits(), "ldexp {x:08x} {n}");
        }
    }
    // fract special cases
    assert_eq!(
        fract_f32(0xb089_705f, m()),
        0x3f7f_ffff,
        "fract(-1e-9) clamps below 1"
    );
    assert_eq!(fract_f32(0x7f80_0000, m()), DEF_NAN);
    assert_eq!(fract_f32(0x8000_0000, m()), 0);
    assert_eq!(
        fract_f32(0xbfc0_0000, m()),
        0x3f00_0000,
        "fract(-1.5) = 0.5"
    );
    assert_eq!(fract_f64((-1e-30f64).to_bits(), m()), 0x3fef_ffff_ffff_ffff);
    assert_eq!(fract_f16(0xbc01, m()), 0x3bfe);
    // signs of zero in integral rounding
    assert_eq!(ceil_f32(0xbf00_0000, m()), 0x8000_0000);
    assert_eq!(rndne_f32(0xbe99_999a, m()), 0x8000_0000);
    assert_eq!(floor_f32(0x3f00_0000, m()), 0);
    // denormal input flushed before ceil
    assert_eq!(ceil_f32(1, m()), 0x3f80_0000);
    assert_eq!(ceil_f32(1, ftz()), 0);
    // frexp specials
    assert_eq!(frexp_mant_f32(0x7f80_0000, m()), 0x7f80_0000);
    assert_eq!(frexp_exp_f32(0x7fc0_0000, m()), 0);
    assert_eq!(frexp_mant_f32(0x8000_0000, m()), 0x8000_0000);
    assert_eq!(frexp_exp_f32(1, m()), -148);
    assert_eq!(frexp_mant_f32(1, m()), 0x3f00_0000);
    assert_eq!(frexp_exp_f16(0x0001, m()), -23);
    assert_eq!(frexp_exp_f64(0x3ff0_0000_0000_0000, m()), 1);
    // f16 every value: integral rounding vs host on the exact value
    for h in 0..=u16::MAX {
        if is_nan(H, h as u64) {
            continue;
        }
        let v = f16_value(h);
        assert_eq!(f16_value(floor_f16(h, m())), v.floor(), "{h:04x}");
        assert_eq!(f16_value(rndne_f16(h, m())), v.round_ties_even(), "{h:04x}");
        let fl = v.floor();
        if v.is_finite() {
            let want = ref_round(
                H,
                (v - fl) < 0.0,
                split(D, (v - fl).to_bits()).1,
                split(D, (v - fl).to_bits()).2,
                Round::NearestEven,
            );
            let want = if want == 0x3c00 { 0x3bff } else { want };
            assert_eq!(fract_f16(h, m()) as u64, want, "fract {h:04x}");
        }
    }
    assert_eq!(
        ldexp_f16(0x0001, 24, m()),
        0x3c00,
        "exact ldexp, not 2^24 as f16"
    );
    assert_eq!(ldexp_f64(1, 1074, m()), 0x3ff0_0000_0000_0000);
}

#[test]
fn transcendental_special_values_from_the_manual() {
    let t = |f: fn(u32, Mode) -> u32, x: u32| f(x, m());
    // V_EXP_F32
    assert_eq!(t(exp_f32, 0xff80_0000), 0);
    assert_eq!(t(exp_f32, 0x8000_0000), 0x3f80_0000);
    assert_eq!(t(exp_f32, 0x7f80_0000), 0x7f80_0000);
    // V_LOG_F32
    assert_eq!(t(log_f32, 0xff80_0000), 0xffc0_0000);
    assert_eq!(t(log_f32, 0xbf80_0000), 0xffc0_0000);
    assert_eq!(t(log_f32, 0x8000_0000), 0xff80_0000);
    assert_eq!(t(log_f32, 0x0000_0000), 0xff80_0000);
    assert_eq!(t(log_f32, 0x3f80_0000), 0);
    assert_eq!(t(log_f32, 0x7f80_0000), 0x7f80_0000);
    // V_RCP_F32
    assert_eq!(t(rcp_f32, 0xff80_0000), 0x8000_0000);
    assert_eq!(t(rcp_f32, 0xc000_0000), 0xbf00_0000);
    assert_eq!(t(rcp_f32, 0x8000_0000), 0xff80_0000);
    assert_eq!(t(rcp_f32, 0x0000_0000), 0x7f80_0000);
    assert_eq!(t(rcp_f32, 0x7f80_0000), 0);
    // V_RSQ_F32
    assert_eq!(t(rsq_f32, 0xff80_0000), 0xffc0_0000);
    assert_eq!(t(rsq_f32, 0x8000_0000), 0xff80_0000);
    assert_eq!(t(rsq_f32, 0x0000_0000), 0x7f80_0000);
    assert_eq!(t(rsq_f32, 0x4080_0000), 0x3f00_0000);
    assert_eq!(t(rsq_f32, 0x7f80_0000), 0);
    // V_SQRT_F32
    assert_eq!(t(sqrt_f32, 0xff80_0000), 0xffc0_0000);
    assert_eq!(t(sqrt_f32, 0x8000_0000), 0x8000_0000);
    assert_eq!(t(sqrt_f32, 0x0000_0000), 0);
    assert_eq!(t(sqrt_f32, 0x4080_0000), 0x4000_0000);
    assert_eq!(t(sqrt_f32, 0x7f80_0000), 0x7f80_0000);
    // V_SIN_F32 / V_COS_F32
    assert_eq!(t(sin_f32, 0xff80_0000), 0xffc0_0000);
    assert_eq!(t(sin_f32, 0xff7f_ffff), 0);
    assert_eq!(t(sin_f32, 0x8000_0000), 0x8000_0000);
    assert_eq!(t(sin_f32, 0x3e80_0000), 0x3f80_0000);
    assert_eq!(t(sin_f32, 0x7f80_0000), 0xffc0_0000);
    assert_eq!(t(cos_f32, 0xff80_0000), 0xffc0_0000);
    assert_eq!(t(cos_f32, 0xff7f_ffff), 0x3f80_0000);
    assert_eq!(t(cos_f32, 0x8000_0000), 0x3f80_0000);
    assert_eq!(t(cos_f32, 0x3e80_0000), 0);
    assert_eq!(t(cos_f32, 0x7f80_0000), 0xffc0_0000);
    // f16 tables
    let h = |f: fn(u16, Mode) -> u16, x: u16| f(x, m());
    assert_eq!(h(rcp_f16, 0xfc00), 0x8000);
    assert_eq!(h(rcp_f16, 0xc000), 0xb800);
    assert_eq!(h(rcp_f16, 0x8000), 0xfc00);
    assert_eq!(h(rcp_f16, 0x7c00), 0);
    assert_eq!(h(sqrt_f16, 0xfc00), 0xfe00);
    assert_eq!(h(sqrt_f16, 0x8000), 0x8000);
    assert_eq!(h(sqrt_f16, 0x4400), 0x4000);
    assert_eq!(h(rsq_f16, 0x8000), 0xfc00);
    assert_eq!(h(rsq_f16, 0x4400), 0x3800);
    assert_eq!(h(log_f16, 0xbc00), 0xfe00);
    assert_eq!(h(log_f16, 0x0000), 0xfc00);
    assert_eq!(h(log_f16, 0x3c00), 0);
    assert_eq!(h(exp_f16, 0xfc00), 0);
    assert_eq!(h(exp_f16, 0x8000), 0x3c00);
    assert_eq!(h(sin_f16, 0xfbff), 0);
    assert_eq!(h(sin_f16, 0x3400), 0x3c00);
    assert_eq!(h(sin_f16, 0x7bff), 0);
    assert_eq!(h(cos_f16, 0xfbff), 0x3c00);
    assert_eq!(h(cos_f16, 0x3400), 0);
    assert_eq!(h(cos_f16, 0x7c00), 0xfe00);
    // NaN inputs are quieted
    assert_eq!(t(exp_f32, 0x7f80_0001), 0x7fc0_0001);
    assert_eq!(rcp_f64(0x7ff0_0000_0000_0001, m()), 0x7ff8_0000_0000_0001);
}

fn ulps32(a: u32, b: u32) -> u32 {
    let k = |x: u32| -> i64 {
        if x & 0x8000_0000 != 0 {
            -((x & 0x7fff_ffff) as i64)
        } else {
            x as i64
        }
    };
    (k(a) - k(b)).unsigned_abs() as u32
}

#[test]
fn transcendental_accuracy_and_flushing() {
    let mut r = Rng::new(37);
    for _ in 0..N {
        let x = r.f32_finite();
        let f = f32::from_bits(x);
        // rcp and sqrt are correctly rounded (denormals flushed)
        let fx = f32::from_bits(ftz32(x));
        let want = ftz32((1.0 / fx).to_bits());
        assert_eq!(rcp_f32(x, m()), want, "rcp {x:08x}");
        let s = fx.sqrt();
        let want = if s.is_nan() { DEF_NAN } else { s.to_bits() };
        assert_eq!(sqrt_f32(x, m()), want, "sqrt {x:08x}");
        // the others within one ulp of the f64 function
        let d = fx as f64;
        let close = |got: u32, want: f64, what: &str| {
            if want.is_nan() {
                assert_eq!(got, DEF_NAN, "{what} {x:08x}");
            } else {
                let w = ftz32((want as f32).to_bits());
                assert!(ulps32(got, w) <= 1, "{what} {x:08x}: {got:08x} vs {w:08x}");
            }
        };
        close(rsq_f32(x, m()), 1.0 / d.sqrt(), "rsq");
        close(log_f32(x, m()), d.log2(), "log");
        if f.abs() < 200.0 {
            close(exp_f32(x, m()), d.exp2(), "exp");
        }
        if f.abs() < 1e4 {
            // sin/cos keep denormals in the default mode
            let fd = f as f64;
            let rev = (fd - fd.round()) * std::f64::consts::TAU;
            let near = |got: u32, want: f64, what: &str| {
                let w = (want as f32).to_bits();
                // the f64 reference is not exact at multiples of a half turn
                let exact_zero = got == 0 && want.abs() < 1e-12;
                assert!(
                    exact_zero || ulps32(got, w) <= 1,
                    "{what} {x:08x}: {got:08x} vs {w:08x}"
                );
            };
            near(sin_f32(x, m()), rev.sin(), "sin");
            near(cos_f32(x, m()), rev.cos(), "cos");
        }
    }
    // f32 units flush whatever the mode says
    assert_eq!(rcp_f32(0x7f00_0000, m()), 0, "rcp(2^127) is denormal -> 0");
    assert_eq!(rcp_f32(1, m()), 0x7f80_0000, "rcp(denormal) = rcp(0)");
    assert_eq!(log_f32(1, m()), 0xff80_0000);
    assert_eq!(exp_f32(0xc300_0000, m()), 0, "2^-128 flushed");
    assert_eq!(sqrt_f32(0x8000_0001, m()), 0x8000_0000);
    // sin/cos honour the mode
    assert!(sin_f32(1, m()) & 0x7fff_ffff != 0);
    assert_eq!(sin_f32(1, ftz()), 0);
    // exact quarter turns
    for k in -20i32..20 {
        let q = (k as f32 * 0.25).to_bits();
        let s = [0, 0x3f80_0000, 0, 0xbf80_0000][k.rem_euclid(4) as usize];
        let c = [0x3f80_0000, 0, 0xbf80_0000, 0][k.rem_euclid(4) as usize];
        assert_eq!(sin_f32(q, m()), s, "sin {k}/4");
        assert_eq!(cos_f32(q, m()), c, "cos {k}/4");
    }
    // f16: rcp and sqrt correctly rounded for every input (double rounding
    // through f64 is innocuous for division and square root)
    for h in 0..=u16::MAX {
        if is_nan(H, h as u64) {
            continue;
        }
        let v = f16_value(h);
        let rv = 1.0 / v;
        let (neg, n, e) = split(D, rv.to_bits());
        let want = if rv.is_infinite() {
            if neg {
                0xfc00
            } else {
                0x7c00
            }
        } else {
            ref_round(H, neg, n, e, Round::NearestEven) as u16
        };
        assert_eq!(rcp_f16(h, m()), want, "rcp_f16 {h:04x}");
        if v >= 0.0 {
            let sv = v.sqrt();
            let (neg, n, e) = split(D, sv.to_bits());
            let want = if sv.is_infinite() {
                0x7c00
            } else {
                ref_round(H, neg, n, e, Round::NearestEven) as u16
            };
            assert_eq!(sqrt_f16(h, m()), want, "sqrt_f16 {h:04x}");
        }
    }
    // f64 rcp/sqrt correctly rounded
    for _ in 0..N {
        let x = r.f64();
        let f = f64::from_bits(x);
        if f.is_nan() {
            continue;
        }
        assert_eq!(rcp_f64(x, m()), (1.0 / f).to_bits());
        let s = f.sqrt();
        let want = if s.is_nan() {
            0xfff8_0000_0000_0000
        } else {
            s.to_bits()
        };
        assert_eq!(sqrt_f64(x, m()), want);
        let q = rsq_f64(x, m());
        if f > 0.0 {
            let w = 1.0 / f.sqrt();
            assert!(
                (f64::from_bits(q) - w).abs() <= w * 2.3e-16,
                "rsq_f64 {x:x}"
            );
        }
    }
    assert_eq!(
        rcp_f64(1, ftz()),
        0x7ff0_0000_0000_0000,
        "f64 denormal flushed per mode"
    );
    assert_eq!(
        rcp_f64(1, m()),
        0x7ff0_0000_0000_0000,
        "1/2^-1074 overflows anyway"
    );
    assert_eq!(rcp_f64(0x0008_0000_0000_0000, m()), 0x7fe0_0000_0000_0000);
}

#[test]
fn generic_and_typed_entry_points_agree() {
    let mut r = Rng::new(38);
    for _ in 0..10_000 {
        let (a, b) = (r.f16(), r.f16());
        assert_eq!(
            add::<F16>(a as u64, b as u64, m()) as u16,
            add_f16(a, b, m())
        );
        let (x, y) = (r.f32(), r.f32());
        assert_eq!(
            min::<F32>(x as u64, y as u64, m()) as u32,
            min_f32(x, y, m())
        );
    }
}

/// Every pair (and triple for fma) of special values through the
/// mode-aware entry points, against the host with the AMD NaN rules.
#[test]
fn special_value_tables() {
    let sp = F32_SPECIALS;
    for &a in sp {
        for &b in sp {
            let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
            assert_eq!(
                add_f32(a, b, m()),
                expect32(&[a, b], fa + fb),
                "add {a:08x} {b:08x}"
            );
            assert_eq!(
                mul_f32(a, b, m()),
                expect32(&[a, b], fa * fb),
                "mul {a:08x} {b:08x}"
            );
            if !nan32(b) {
                assert_eq!(sub_f32(a, b, m()), expect32(&[a, b], fa - fb), "sub");
            }
            // min/max: value semantics for non-NaN, NaN rules otherwise
            let (mn, mx) = (min_f32(a, b, m()), max_f32(a, b, m()));
            if !nan32(a) && !nan32(b) {
                assert_eq!(f32::from_bits(mn), fa.min(fb));
                assert_eq!(f32::from_bits(mx), fa.max(fb));
            } else {
                let snan = |x: u32| nan32(x) && x & 0x0040_0000 == 0;
                let want = if snan(a) {
                    quiet32(a)
                } else if snan(b) {
                    quiet32(b)
                } else if nan32(a) {
                    b
                } else {
                    a
                };
                assert_eq!(mn, want, "min {a:08x} {b:08x}");
                assert_eq!(mx, want, "max {a:08x} {b:08x}");
            }
            for &c in sp {
                let fc = f32::from_bits(c);
                assert_eq!(
                    fma_f32(a, b, c, m()),
                    expect32(&[a, b, c], fa.mul_add(fb, fc)),
                    "fma {a:08x} {b:08x} {c:08x}"
                );
                for rm in ROUNDS {
                    let mode = Mode {
                        round_f32: rm,
                        ..m()
                    };
                    let got = fma_f32(a, b, c, mode);
                    if rm == Round::NearestEven || nan32(got) {
                        assert_eq!(got, fma_f32(a, b, c, m()));
                    }
                }
            }
        }
    }
    for &a in F64_SPECIALS {
        for &b in F64_SPECIALS {
            let (fa, fb) = (f64::from_bits(a), f64::from_bits(b));
            for (got, want) in [(add_f64(a, b, m()), fa + fb), (mul_f64(a, b, m()), fa * fb)] {
                if want.is_nan() {
                    assert!(f64::from_bits(got).is_nan());
                    assert_eq!(got & 0x0008_0000_0000_0000, 0x0008_0000_0000_0000, "quiet");
                } else {
                    assert_eq!(got, want.to_bits(), "{a:x} {b:x}");
                }
            }
        }
    }
    for &a in F16_SPECIALS {
        for &b in F16_SPECIALS {
            let (va, vb) = (f16_value(a), f16_value(b));
            let s = add_f16(a, b, m());
            let want = va + vb; // exact in f64
            if want.is_nan() {
                assert!(is_nan(H, s as u64));
            } else if want.is_infinite() {
                assert_eq!(f16_value(s), want, "{a:04x} {b:04x}");
            } else if want != 0.0 {
                let (neg, n, e) = split(D, want.to_bits());
                let w = ref_round(H, neg, n, e, Round::NearestEven) as u16;
                assert_eq!(s, w, "{a:04x} {b:04x}");
            }
            let p = mul_f16(a, b, m());
            if (va * vb).is_nan() {
                assert!(is_nan(H, p as u64));
            } else if (va * vb).abs() >= 2f64.powi(-25) || va * vb == 0.0 {
                let (neg, n, e) = split(D, (va * vb).to_bits());
                let w = if (va * vb).is_infinite() {
                    if neg {
                        0xfc00
                    } else {
                        0x7c00
                    }
                } else {
                    ref_round(H, neg, n, e, Round::NearestEven) as u16
                };
                assert_eq!(p, w, "{a:04x} {b:04x}");
            }
        }
    }
}

/// f16 add, mul and fma go through host f64 arithmetic (one rounding to
/// f16); the exact core in `alu::soft` (integer significands, one
/// rounding) must agree bit for bit: random operands, every f16 addend
/// against random products (tiny products next to large addends are
/// where a double rounding would show), and the edge values.
#[test]
fn f16_arith_matches_the_exact_core() {
    use lathe_emu::alu::soft;
    let rne = Round::NearestEven;
    let want2 = |a: u16, b: u16, op: fn(u64, u64, Round) -> u64| {
        let (a, b) = (u64::from(a), u64::from(b));
        if soft::is_nan::<F16>(a) || soft::is_nan::<F16>(b) {
            soft::propagate2::<F16>(a, b) as u16
        } else {
            op(a, b, rne) as u16
        }
    };
    let want_fma = |a: u16, b: u16, c: u16| {
        let (a, b, c) = (u64::from(a), u64::from(b), u64::from(c));
        if [a, b, c].iter().any(|&x| soft::is_nan::<F16>(x)) {
            soft::propagate3::<F16>(a, b, c) as u16
        } else {
            soft::fma::<F16>(a, b, c, rne) as u16
        }
    };
    let edges = [
        0u16, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00,
        0xfc00, 0x7e00, 0x7c01, 0x5000, 0x5001, 0x0200, 0x3555,
    ];
    let mut r = Rng::new(16);
    let check = |a: u16, b: u16, c: u16| {
        assert_eq!(
            add_f16(a, b, m()),
            want2(a, b, soft::add::<F16>),
            "add {a:04x} {b:04x}"
        );
        assert_eq!(
            mul_f16(a, b, m()),
            want2(a, b, soft::mul::<F16>),
            "mul {a:04x} {b:04x}"
        );
        assert_eq!(
            fma_f16(a, b, c, m()),
            want_fma(a, b, c),
            "fma {a:04x} {b:04x} {c:04x}"
        );
    };
    for &a in &edges {
        for &b in &edges {
            for &c in &edges {
                check(a, b, c);
            }
        }
    }
    for c in 0..=u16::MAX {
        for _ in 0..8 {
            // Small products (exponent fields 0..8) next to every addend.
            let tiny = |r: &mut Rng| (r.u16() & 0x83ff) | ((r.below(9) as u16) << 10);
            let (a, b) = (tiny(&mut r), r.u16());
            check(a, b, c);
            check(r.u16(), r.u16(), c);
        }
    }
}

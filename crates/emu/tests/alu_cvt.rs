//! Conversions: exhaustive over f16, random f32/f64 against host casts and
//! the loop-based reference rounding.

mod alu_common;
use alu_common::*;
use lathe_emu::alu::cvt::*;
use lathe_emu::alu::{Denorm, Mode, Round};

fn m() -> Mode {
    Mode::default()
}

#[test]
fn f16_to_f32_exhaustive() {
    let ftz = Mode {
        denorm_f64_f16: Denorm::FLUSH,
        ..m()
    };
    for h in 0..=u16::MAX {
        let f = cvt_f32_f16(h, m());
        if is_nan(H, h as u64) {
            assert!(f32::from_bits(f).is_nan());
            assert_eq!(f & 0x0040_0000, 0x0040_0000);
        } else {
            assert_eq!(f32::from_bits(f) as f64, f16_value(h), "{h:04x}");
            assert_eq!(f >> 31, (h >> 15) as u32, "sign of {h:04x}");
        }
        let g = cvt_f32_f16(h, ftz);
        if h & 0x7c00 == 0 {
            assert_eq!(g, ((h as u32) >> 15) << 31, "flushed {h:04x}");
        } else {
            assert_eq!(g, f);
        }
    }
}

#[test]
fn f32_to_f16_all_modes() {
    let mut r = Rng::new(41);
    let check = |x: u32, mode: Mode| {
        let got = cvt_f16_f32(x, mode);
        if f32::from_bits(x).is_nan() {
            assert!(is_nan(H, got as u64));
            return;
        }
        if !is_finite(S, x as u64) {
            assert_eq!(got, ((x >> 16) & 0x8000) as u16 | 0x7c00, "inf");
            return;
        }
        let (neg, n, e) = split(S, x as u64);
        let mut want = ref_round(H, neg, n, e, mode.round_f64_f16) as u16;
        if !mode.denorm_f64_f16.allow_out && want & 0x7c00 == 0 {
            want &= 0x8000;
        }
        assert_eq!(got, want, "{x:08x} {mode:?}");
    };
    for hi in 0..=0xffffu32 {
        let x = hi << 16 | r.u32() >> 16;
        for rm in ROUNDS {
            let mode = Mode {
                round_f64_f16: rm,
                ..m()
            };
            check(x, mode);
            check(hi << 16, mode);
            // the f32 rounding field must not matter
            check(
                x,
                Mode {
                    round_f32: Round::Up,
                    ..mode
                },
            );
        }
        check(
            x,
            Mode {
                denorm_f64_f16: Denorm::FLUSH,
                ..m()
            },
        );
    }
    // pkrtz: round toward zero, packed
    assert_eq!(
        cvt_pkrtz_f16_f32(0x3f80_0000, 0x477f_ff00, m()),
        0x7bff_3c00
    );
    assert_eq!(
        cvt_pkrtz_f16_f32(0x7f80_0000, 0xbf80_0001, m()),
        0xbc00_7c00
    );
    // a value rounding up in RNE stays down in RTZ
    let x = 0x3f80_1fff; // 1 + 0x1fff ulp(f32): between f16 1.0 and next
    assert_eq!(cvt_pkrtz_f16_f32(x, x, m()), 0x3c00_3c00);
    assert_eq!(cvt_f16_f32(x, m()), 0x3c01);
}

#[test]
fn float_to_int_saturates_and_truncates() {
    let mut r = Rng::new(42);
    for _ in 0..200_000 {
        let x = r.f32();
        let f = f32::from_bits(x);
        // Rust's `as` casts saturate and map NaN to 0: the same contract
        assert_eq!(cvt_i32_f32(x), f as i32, "{x:08x}");
        assert_eq!(cvt_u32_f32(x), f as u32, "{x:08x}");
        assert_eq!(cvt_flr_i32_f32(x), f.floor() as i32, "{x:08x}");
        assert_eq!(
            cvt_rpi_i32_f32(x),
            (f as f64 + 0.5).floor() as i32,
            "{x:08x}"
        );
        let y = r.f64();
        let g = f64::from_bits(y);
        assert_eq!(cvt_i32_f64(y), g as i32);
        assert_eq!(cvt_u32_f64(y), g as u32);
        let h = r.f16();
        let v = f16_value(h);
        assert_eq!(cvt_i16_f16(h), v as i16, "{h:04x}");
        assert_eq!(cvt_u16_f16(h), v as u16, "{h:04x}");
    }
    assert_eq!(
        cvt_rpi_i32_f32(0x3eff_ffff),
        0,
        "0.49999997 + 0.5 exactly < 1"
    );
    assert_eq!(cvt_rpi_i32_f32(0xbf00_0000), 0, "floor(-0.5 + 0.5)");
    assert_eq!(cvt_rpi_i32_f32(0xbfc0_0000), -1, "floor(-1.5 + 0.5)");
    assert_eq!(cvt_i32_f32(0xcf00_0000), i32::MIN);
    assert_eq!(cvt_i32_f32(0x4f00_0000), i32::MAX);
    assert_eq!(cvt_u32_f32(0xff80_0000), 0);
    assert_eq!(cvt_u32_f32(0x7fc0_0000), 0);
}

#[test]
fn int_to_float() {
    let mut r = Rng::new(43);
    for _ in 0..200_000 {
        let v = r.u32() >> r.below(32);
        let i = v as i32;
        assert_eq!(cvt_f32_u32(v, m()), (v as f32).to_bits());
        assert_eq!(cvt_f32_i32(i, m()), (i as f32).to_bits());
        assert_eq!(cvt_f64_i32(i), (i as f64).to_bits());
        assert_eq!(cvt_f64_u32(v), (v as f64).to_bits());
        for rm in ROUNDS {
            let mode = Mode {
                round_f32: rm,
                ..m()
            };
            let want = if v == 0 {
                0
            } else {
                ref_round(S, false, v as u128, 0, rm)
            };
            assert_eq!(cvt_f32_u32(v, mode) as u64, want);
        }
        let s = v as u16;
        assert_eq!(
            cvt_f16_u16(s, m()) as u64,
            if s == 0 {
                0
            } else {
                ref_round(H, false, s as u128, 0, Round::NearestEven)
            }
        );
        let si = s as i16;
        let want = if si == 0 {
            0
        } else {
            ref_round(H, si < 0, si.unsigned_abs() as u128, 0, Round::NearestEven)
        };
        assert_eq!(cvt_f16_i16(si, m()) as u64, want);
    }
    assert_eq!(cvt_f16_u16(65535, m()), 0x7c00, "rounds to inf");
    assert_eq!(
        cvt_f16_u16(
            65535,
            Mode {
                round_f64_f16: Round::Zero,
                ..m()
            }
        ),
        0x7bff
    );
    for b in 0..4 {
        assert_eq!(
            cvt_f32_ubyte(0x8040_20ff, b),
            (([0xff, 0x20, 0x40, 0x80][b as usize]) as f32).to_bits()
        );
    }
    assert_eq!(cvt_off_f32_i4(0x8), (-0.5f32).to_bits());
    assert_eq!(cvt_off_f32_i4(0x7), 0.4375f32.to_bits());
    assert_eq!(cvt_off_f32_i4(0xf), (-0.0625f32).to_bits());
}

#[test]
fn f32_f64_conversions() {
    let mut r = Rng::new(44);
    for _ in 0..200_000 {
        let x = r.f64();
        let f = f64::from_bits(x);
        let got = cvt_f32_f64(x, m());
        if f.is_nan() {
            assert!(f32::from_bits(got).is_nan());
        } else {
            assert_eq!(got, (f as f32).to_bits(), "{x:016x}");
        }
        let y = r.f32();
        let g = f32::from_bits(y);
        let got = cvt_f64_f32(y, m());
        if g.is_nan() {
            assert!(f64::from_bits(got).is_nan());
            // payload kept
            assert_eq!((got >> 29) & 0x3f_ffff, (y & 0x3f_ffff) as u64);
        } else {
            assert_eq!(got, (g as f64).to_bits());
        }
    }
    // rounding follows the f32 field; flushing the f32 output field
    let x = 0x3ff0_0000_0000_0001u64;
    assert_eq!(
        cvt_f32_f64(
            x,
            Mode {
                round_f32: Round::Up,
                ..m()
            }
        ),
        0x3f80_0001
    );
    assert_eq!(
        cvt_f32_f64(
            x,
            Mode {
                round_f64_f16: Round::Up,
                ..m()
            }
        ),
        0x3f80_0000
    );
    let tiny = 0x3800_0000_0000_0000u64; // 2^-127: f32 denormal
    assert_eq!(cvt_f32_f64(tiny, m()), 0x0040_0000);
    assert_eq!(
        cvt_f32_f64(
            tiny,
            Mode {
                denorm_f32: Denorm::FLUSH,
                ..m()
            }
        ),
        0
    );
    assert_eq!(
        cvt_f64_f32(
            1,
            Mode {
                denorm_f32: Denorm::FLUSH,
                ..m()
            }
        ),
        0
    );
}

#[test]
fn bf16_helpers() {
    let mut r = Rng::new(45);
    for _ in 0..200_000 {
        let x = r.f32();
        if f32::from_bits(x).is_infinite() {
            assert_eq!(f32_to_bf16(x, Round::Down), (x >> 16) as u16);
            continue;
        }
        if f32::from_bits(x).is_nan() {
            let b = f32_to_bf16(x, Round::NearestEven);
            assert!(is_nan(BF, b as u64));
            continue;
        }
        let (neg, n, e) = split(S, x as u64);
        for rm in ROUNDS {
            assert_eq!(
                f32_to_bf16(x, rm) as u64,
                ref_round(BF, neg, n, e, rm),
                "{x:08x} {rm:?}"
            );
        }
    }
    for b in 0..=u16::MAX {
        let f = bf16_to_f32(b);
        assert_eq!(f >> 16, b as u32);
        if !is_nan(BF, b as u64) {
            assert_eq!(f32_to_bf16(f, Round::NearestEven), b);
        }
    }
    assert_eq!(
        cvt_pk_bf16_f32(0x3f80_8000, 0x3f81_8000),
        0x3f82_3f80,
        "ties to even"
    );
}

#[test]
fn normalised_and_packing_helpers() {
    // snorm/unorm: exhaustive over f16, reference round(clamp(x) * scale)
    for h in 0..=u16::MAX {
        let v = f16_value(h);
        let sn = if v.is_nan() {
            0
        } else {
            (v.clamp(-1.0, 1.0) * 32767.0).round_ties_even() as i16
        };
        let un = if v.is_nan() {
            0
        } else {
            (v.clamp(0.0, 1.0) * 65535.0).round_ties_even() as u16
        };
        assert_eq!(cvt_norm_i16_f16(h, m()), sn, "{h:04x}");
        assert_eq!(cvt_norm_u16_f16(h, m()), un, "{h:04x}");
    }
    assert_eq!(
        cvt_pknorm_i16_f32(0x3f80_0000, 0xbf80_0000, m()),
        0x8001_7fff
    );
    assert_eq!(
        cvt_pknorm_u16_f32(0x3f00_0000, 0x4000_0000, m()),
        0xffff_8000
    );
    assert_eq!(cvt_pknorm_u16_f32(0x7fc0_0000, 0xbf80_0000, m()), 0);
    assert_eq!(cvt_pknorm_i16_f16(0x3800, 0xb800, m()), 0xc000_4000);
    assert_eq!(cvt_pknorm_u16_f16(0x3c00, 0x0000, m()), 0x0000_ffff);
    assert_eq!(cvt_pk_u16_u32(0x1_0000, 5), 0x0005_ffff);
    assert_eq!(cvt_pk_i16_i32(-40000, 40000), 0x7fff_8000);
    assert_eq!(cvt_pk_u8_f32(0x4040_0000, 2, 0x1122_3344), 0x1103_3344);
    assert_eq!(cvt_pk_u8_f32(0x4400_0000, 0, 0), 0xff, "saturates");
    assert_eq!(cvt_pk_u8_f32(0x4020_0000, 0, 0), 2, "2.5 ties to even");
    assert_eq!(sat_pk_u8_i16(0xff80_0123), 0x00ff);
    assert_eq!(sat_pk_u8_i16(0x0042_fffe), 0x4200);
    assert_eq!(pack_b32_b16(0x1234, 0xabcd), 0xabcd_1234);
    assert_eq!(half(0xabcd_1234, true), 0xabcd);
    assert_eq!(half(0xabcd_1234, false), 0x1234);
    assert_eq!(f64_to_f16(65520.0, Round::NearestEven), 0x7c00);
    assert_eq!(f64_to_f16(65519.99, Round::NearestEven), 0x7bff);
    assert_eq!(f16_to_f64(0x0001), 2f64.powi(-24));
}

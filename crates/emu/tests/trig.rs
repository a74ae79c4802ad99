//! `v_sin_f32` / `v_cos_f32` (added for rocRAND's Box-Muller transform),
//! run from a real clang-22 kernel (`corpus/hip/trig.hip`, which uses
//! `__builtin_amdgcn_sinf/cosf`, the instructions themselves) and checked
//! against an f64 CPU reference of sin/cos(2*pi*x): the input is in
//! revolutions, so range reduction, negative inputs, the ends of the valid
//! domain [-256, 256], NaN and infinities, and denormals under both f32
//! denormal modes of the kernel descriptor are covered.

use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::Options;
use lathe_emu::session::{Session, Shape};
use lathe_testkit::{Build, Output};

fn buf(name: &str, bytes: Vec<u8>) -> Arg {
    Arg::Buffer {
        name: name.into(),
        size: bytes.len() as u64,
        fill: Fill::Bytes(bytes),
        output: None,
    }
}

/// The mathematical value of sin or cos(2*pi*x) for an f32 `x`, reduced
/// exactly in f64 (x - round(x) is exact for every f32) to r in
/// [-0.5, 0.5]; zeros of the function are returned as exact zeros.
fn reference(x: f32, cos: bool) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let r = f64::from(x) - f64::from(x).round();
    let zero = if cos {
        r.abs() == 0.25
    } else {
        r == 0.0 || r.abs() == 0.5
    };
    if zero {
        return 0.0;
    }
    let t = r * std::f64::consts::TAU;
    if cos {
        t.cos()
    } else {
        t.sin()
    }
}

fn check(x: f32, got: f32, cos: bool, flush: bool) {
    let what = if cos { "cos" } else { "sin" };
    let x_in = if flush && x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    };
    let want = reference(x_in, cos);
    let ctx = format!(
        "{what}({x:e} = {:#010x}) flush={flush}: got {got:e} ({:#010x}), want {want:e}",
        x.to_bits(),
        got.to_bits()
    );
    if want.is_nan() {
        assert!(got.is_nan(), "{ctx}");
        return;
    }
    if flush {
        assert!(!got.is_subnormal(), "denormal output not flushed: {ctx}");
    }
    if want == 0.0 {
        assert!(got.abs() <= 2f32.powi(-20), "{ctx}");
        if x_in == 0.0 && !cos {
            // sin(+-0) = +-0.
            assert_eq!(got.to_bits(), x_in.to_bits(), "{ctx}");
        }
        return;
    }
    let err = (f64::from(got) - want).abs();
    if want.abs() < 2f64.powi(-8) {
        // Near zero sin(2*pi*x) ~ 2*pi*x: relative accuracy and the sign
        // matter (one denormal ulp allowed for denormal results).
        assert_eq!(got.is_sign_negative(), want < 0.0, "{ctx}");
        assert!(
            err <= want.abs() * 2f64.powi(-18) + f64::from(f32::from_bits(1)),
            "{ctx}"
        );
    } else {
        assert!(err <= 2f64.powi(-20), "{ctx}");
    }
}

#[test]
fn sin_cos_take_revolutions_and_match_an_f64_reference() {
    let d = f32::from_bits(0x0000_1234);
    let mut xs: Vec<f32> = vec![
        0.0,
        -0.0,
        0.25,
        -0.25,
        0.125,
        -0.125,
        0.5,
        -0.5,
        0.75,
        1.0,
        1.25,
        -0.75,
        -1.25,
        3.1,
        -3.1,
        100.375,
        -100.375,
        255.75,
        -255.9,
        256.0,
        -256.0,
        255.999_98,
        1e-5,
        -1e-5,
        1e-38,
        -1e-38,
        f32::MIN_POSITIVE,
        d,
        -d,
        f32::from_bits(1),
        f32::from_bits(0x8000_0001),
        f32::from_bits(0x007f_ffff),
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    // Random inputs over the valid domain and near zero (splitmix64).
    let mut s = 0x5eed_u64;
    let mut next = || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for _ in 0..300 {
        let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
        xs.push(((u * 2.0 - 1.0) * 256.0) as f32);
    }
    for _ in 0..60 {
        let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
        xs.push(((u * 2.0 - 1.0) * 1e-3) as f32);
    }
    let n = xs.len();
    for arch in ["gfx90a", "gfx942"] {
        for flush in [false, true] {
            let mut b = Build::new("trig.hip", &[arch], Output::CodeObject);
            if flush {
                b.extra.push("-fgpu-flush-denormals-to-zero");
            }
            let co = std::fs::read(b.build()).expect("code object");
            let s = Session::load(arch.parse().expect("target"), &[&co]).expect("load");
            let args = [
                buf("out", vec![0; 8 * n]),
                buf("a", xs.iter().flat_map(|x| x.to_le_bytes()).collect()),
                Arg::Scalar {
                    ty: "i32".into(),
                    bytes: (n as i32).to_le_bytes().to_vec(),
                },
            ];
            let grid = n.div_ceil(64) as u32 * 64;
            let (_r, bufs) = s
                .launch(
                    "_Z11sin_cos_revPfPKfi",
                    Shape::linear(grid, 64),
                    &args,
                    &Options::default(),
                )
                .expect("runs");
            let out = s.download(bufs[0].addr, bufs[0].size).expect("read");
            let got: Vec<f32> = out
                .chunks(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4")))
                .collect();
            for (i, &x) in xs.iter().enumerate() {
                check(x, got[2 * i], false, flush);
                check(x, got[2 * i + 1], true, flush);
            }
        }
    }
}

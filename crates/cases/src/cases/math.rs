//! k_math_hipcc.hip: the device math library (ocml) through real HIP
//! headers, built with Debian's hipcc for gfx90a.
//!
//! References are the host's libm (glibc) in f64; for f32 functions the f64
//! result is rounded to f32. Bounds are HIP's documented maximum ULP errors
//! plus 1 for the reference itself.

use super::{case, outs, sz};
use crate::data::{from_bytes, to_bytes, ulp_diff_f32, ulp_diff_f64, Prng};
use crate::{Arg, Case, Cmp, HIPCC_TARGETS};

const SRC: &[&str] = &["k_math_hipcc.hip"];
const N: usize = 500;
/// These kernels are built against ROCm 5.2's HIP headers, where `blockDim`
/// is the *local* size of the work-group (`__ockl_get_local_size`: smaller in
/// a trailing partial group). HIP launches are in whole blocks
/// (`hipLaunchKernel` grid = blocks × block size), so the grid is rounded up
/// to a multiple of the block as HIP would; the `i < n` guard does the rest.
const HIP_GRID: u32 = (N as u32).div_ceil(128) * 128;

/// Per-column ULP bounds of math_f32: sin, cos, exp, log, pow, tanh, erf,
/// atan2, sqrt.
const F32_ULP: [u32; 9] = [3, 3, 2, 2, 2, 3, 3, 4, 1];
/// Per-column ULP bounds of math_f64: sin, exp, log, pow, cbrt.
const F64_ULP: [u64; 5] = [3, 2, 2, 2, 2];

fn cols_f32(_c: &Case, got: &[u8], want: &[u8]) -> Result<(), String> {
    let (g, w) = (from_bytes::<f32>(got), from_bytes::<f32>(want));
    let bad: Vec<String> = g
        .iter()
        .zip(&w)
        .enumerate()
        .filter(|(i, (a, b))| ulp_diff_f32(**a, **b) > F32_ULP[i % 9])
        .map(|(i, (a, b))| format!("[{i}] column {} got {a:e}, expected {b:e}", i % 9))
        .collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} beyond bounds: {}",
            bad.len(),
            bad[..bad.len().min(5)].join(", ")
        ))
    }
}

fn cols_f64(_c: &Case, got: &[u8], want: &[u8]) -> Result<(), String> {
    let (g, w) = (from_bytes::<f64>(got), from_bytes::<f64>(want));
    let bad: Vec<String> = g
        .iter()
        .zip(&w)
        .enumerate()
        .filter(|(i, (a, b))| ulp_diff_f64(**a, **b) > F64_ULP[i % 5])
        .map(|(i, (a, b))| format!("[{i}] column {} got {a:e}, expected {b:e}", i % 5))
        .collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} beyond bounds: {}",
            bad.len(),
            bad[..bad.len().min(5)].join(", ")
        ))
    }
}

fn hipcc(c: Case) -> Case {
    Case {
        hipcc: true,
        targets: HIPCC_TARGETS,
        ..c
    }
}

pub(super) fn cases() -> Vec<Case> {
    let mut r = Prng::new(0x3A7);
    let n = N as i32;
    let mut xf = r.vec(N, |r| r.f32_in(-20.0, 20.0));
    xf[..4].copy_from_slice(&[0.0, -0.0, 1.0, -20.0]);
    let mut xd = r.vec(N, |r| r.f64_in(-20.0, 20.0));
    xd[..4].copy_from_slice(&[0.0, -8.0, 1.0, 27.0 / 8.0]);
    vec![
        hipcc(case(
            "math_f32",
            "hipcc/ocml sinf cosf expf logf powf tanhf erff atan2f sqrtf; per-function ULP \
             bounds 3,3,2,2,2,3,3,4,1",
            SRC,
            "_Z8math_f32PfPKfi",
            HIP_GRID,
            128,
            vec![
                Arg::output("out", sz::<f32>(9 * N), Cmp::Custom(cols_f32)),
                Arg::input("in", &xf),
                Arg::i32("n", n),
            ],
            |c| {
                let mut out = Vec::new();
                for x in c.input::<f32>("in") {
                    let d = |v: f32| f64::from(v);
                    let ax = d(x.abs() + 0.5);
                    out.extend(
                        [
                            d(x).sin(),
                            d(x).cos(),
                            d(x * 0.25).exp(),
                            ax.ln(),
                            ax.powf(d(1.7f32)),
                            d(x * 0.2).tanh(),
                            erf(d(x * 0.1)),
                            d(x).atan2(d(1.3f32)),
                            d(x.abs()).sqrt(),
                        ]
                        .map(|v| v as f32),
                    );
                }
                outs([("out", to_bytes(&out))])
            },
        )),
        hipcc(case(
            "math_f64",
            "hipcc/ocml sin exp log pow cbrt in f64; per-function ULP bounds 3,2,2,2,2",
            SRC,
            "_Z8math_f64PdPKdi",
            HIP_GRID,
            128,
            vec![
                Arg::output("out", sz::<f64>(5 * N), Cmp::Custom(cols_f64)),
                Arg::input("in", &xd),
                Arg::i32("n", n),
            ],
            |c| {
                let mut out = Vec::new();
                for x in c.input::<f64>("in") {
                    let ax = x.abs() + 0.5;
                    out.extend([x.sin(), (x * 0.25).exp(), ax.ln(), ax.powf(1.7), x.cbrt()]);
                }
                outs([("out", to_bytes(&out))])
            },
        )),
    ]
}

/// erf(x) in f64 (Rust's std has no erf): the Maclaurin series for |x| < 2.5
/// (inputs here are |x| <= 2), accurate to about 1e-16 relative.
fn erf(x: f64) -> f64 {
    assert!(x.abs() <= 2.5, "erf reference only covers |x| <= 2.5");
    // erf(x) = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1))
    let mut term = x; // (-1)^n x^(2n+1) / n!
    let mut sum = x;
    let x2 = x * x;
    for n in 1..200 {
        term *= -x2 / f64::from(n);
        let t = term / f64::from(2 * n + 1);
        sum += t;
        if t.abs() < 1e-18 * sum.abs() {
            break;
        }
    }
    sum * std::f64::consts::FRAC_2_SQRT_PI
}

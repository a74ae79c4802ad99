//! k_mfma.hip: MFMA tiles (one wave64 per workgroup). The exact cases use
//! small integer values, so every product and partial sum is exact and the
//! result does not depend on the order the matrix core sums in; the random
//! f32 case is compared against an error bound.

use super::{case, outs, sz};
use crate::data::{f16_to_f64, f32_to_bf16_exact, f64_to_f16, from_bytes, to_bytes, Prng};
use crate::{Arg, Case, Cmp};

const SRC: &[&str] = &["k_mfma.hip"];

/// row-major (m x k) * (k x n) + c in f64 (exact for the integer cases).
fn gemm(a: &[f64], b: &[f64], c: Option<&[f64]>, m: usize, n: usize, k: usize) -> Vec<f64> {
    let mut d = vec![0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            let s: f64 = (0..k).map(|x| a[i * k + x] * b[x * n + j]).sum();
            d[i * n + j] = s + c.map_or(0.0, |c| c[i * n + j]);
        }
    }
    d
}

fn small_ints(r: &mut Prng, n: usize, lim: i32) -> Vec<f32> {
    r.vec(n, |r| r.range_i32(-lim, lim) as f32)
}

fn batched_f32(c: &Case) -> Vec<f32> {
    let (a, b, cc) = (
        c.input::<f32>("A"),
        c.input::<f32>("B"),
        c.input::<f32>("C"),
    );
    let w = |v: &[f32]| v.iter().map(|x| f64::from(*x)).collect::<Vec<_>>();
    let mut d = Vec::new();
    for bt in 0..a.len() / 256 {
        let s = bt * 256..(bt + 1) * 256;
        let cb = w(&cc[s.clone()]);
        d.extend(
            gemm(&w(&a[s.clone()]), &w(&b[s]), Some(&cb), 16, 16, 16)
                .iter()
                .map(|x| *x as f32),
        );
    }
    d
}

/// Random f32 16x16x16 (+C): |got - exact| <= 2^-19 * (sum |a*b| + |c|),
/// i.e. 32 roundings' worth of relative error on the absolute sum (the
/// matrix core's internal summation order and precision are not specified).
fn mfma_f32_bound(c: &Case, got: &[u8], _want: &[u8]) -> Result<(), String> {
    let (a, b, cc) = (
        c.input::<f32>("A"),
        c.input::<f32>("B"),
        c.input::<f32>("C"),
    );
    let g = from_bytes::<f32>(got);
    let mut bad = Vec::new();
    for bt in 0..a.len() / 256 {
        for i in 0..16 {
            for j in 0..16 {
                let (mut exact, mut mag) = (f64::from(cc[bt * 256 + i * 16 + j]), 0f64);
                mag += exact.abs();
                for k in 0..16 {
                    let p =
                        f64::from(a[bt * 256 + i * 16 + k]) * f64::from(b[bt * 256 + k * 16 + j]);
                    exact += p;
                    mag += p.abs();
                }
                let idx = bt * 256 + i * 16 + j;
                let got = f64::from(g[idx]);
                if (got - exact).abs() > mag * 2f64.powi(-19) || got.is_nan() {
                    bad.push(format!("[{idx}] got {got}, exact {exact}"));
                }
            }
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} beyond the bound: {}",
            bad.len(),
            bad[..bad.len().min(5)].join(", ")
        ))
    }
}

pub(super) fn cases() -> Vec<Case> {
    let mut r = Prng::new(0x3F3A);
    let f16s = |r: &mut Prng, n: usize| -> Vec<u16> {
        r.vec(n, |r| f64_to_f16(f64::from(r.range_i32(-4, 4))))
    };
    let bf16s = |r: &mut Prng, n: usize| -> Vec<u16> {
        r.vec(n, |r| f32_to_bf16_exact(r.range_i32(-8, 8) as f32))
    };
    vec![
        case(
            "mfma_f32_16x16x4f32",
            "v_mfma_f32_16x16x4f32 x4 (K = 16) with C input, 3 batches (one wave each), \
             small-integer data; exact",
            SRC,
            "_Z24mfma_f32_16x16x4f32_gemmPfPKfS1_S1_",
            3 * 64,
            64,
            vec![
                Arg::output("D", sz::<f32>(3 * 256), Cmp::Exact),
                Arg::input("A", &small_ints(&mut r, 3 * 256, 8)),
                Arg::input("B", &small_ints(&mut r, 3 * 256, 8)),
                Arg::input("C", &small_ints(&mut r, 3 * 256, 100)),
            ],
            |c| outs([("D", to_bytes(&batched_f32(c)))]),
        ),
        case(
            "mfma_f32_16x16x4f32_random",
            "v_mfma_f32_16x16x4f32 on random f32 in [-1, 1), 2 batches; |error| <= \
             2^-19 * (sum |a*b| + |c|)",
            SRC,
            "_Z24mfma_f32_16x16x4f32_gemmPfPKfS1_S1_",
            2 * 64,
            64,
            vec![
                Arg::output("D", sz::<f32>(2 * 256), Cmp::Custom(mfma_f32_bound)),
                Arg::input("A", &r.vec(2 * 256, |r| r.f32_in(-1.0, 1.0))),
                Arg::input("B", &r.vec(2 * 256, |r| r.f32_in(-1.0, 1.0))),
                Arg::input("C", &r.vec(2 * 256, |r| r.f32_in(-1.0, 1.0))),
            ],
            |c| outs([("D", to_bytes(&batched_f32(c)))]),
        ),
        case(
            "mfma_f32_32x32x8f16",
            "v_mfma_f32_32x32x8f16 x4: 32x32 f32 = 32x32 f16 * 32x32 f16, integer values \
             in [-4, 4]; exact",
            SRC,
            "_Z24mfma_f32_32x32x8f16_gemmPfPKDF16_S1_",
            64,
            64,
            vec![
                Arg::output("D", sz::<f32>(1024), Cmp::Exact),
                Arg::input("A", &f16s(&mut r, 1024)),
                Arg::input("B", &f16s(&mut r, 1024)),
            ],
            |c| {
                let w = |v: Vec<u16>| v.into_iter().map(f16_to_f64).collect::<Vec<_>>();
                let d = gemm(&w(c.input("A")), &w(c.input("B")), None, 32, 32, 32);
                outs([(
                    "D",
                    to_bytes(&d.iter().map(|x| *x as f32).collect::<Vec<_>>()),
                )])
            },
        ),
        case(
            "mfma_f64_16x16x4f64",
            "v_mfma_f64_16x16x4f64 x4 (K = 16) with C input, integer values; exact",
            SRC,
            "_Z24mfma_f64_16x16x4f64_gemmPdPKdS1_S1_",
            64,
            64,
            vec![
                Arg::output("D", sz::<f64>(256), Cmp::Exact),
                Arg::input("A", &r.vec(256, |r| f64::from(r.range_i32(-100, 100)))),
                Arg::input("B", &r.vec(256, |r| f64::from(r.range_i32(-100, 100)))),
                Arg::input("C", &r.vec(256, |r| f64::from(r.range_i32(-10000, 10000)))),
            ],
            |c| {
                let cc = c.input::<f64>("C");
                let d = gemm(
                    &c.input::<f64>("A"),
                    &c.input::<f64>("B"),
                    Some(&cc),
                    16,
                    16,
                    16,
                );
                outs([("D", to_bytes(&d))])
            },
        ),
        case(
            "mfma_i8",
            "16x16 i32 = 16x32 i8 * 32x16 i8 + C: gfx90a two v_mfma_i32_16x16x16i8, gfx942 \
             one v_mfma_i32_16x16x32_i8 (same math, per-target code); exact",
            SRC,
            "_Z12mfma_i8_gemmPiPKaS1_PKi",
            64,
            64,
            vec![
                Arg::output("D", sz::<i32>(256), Cmp::Exact),
                Arg::input("A", &r.vec(512, |r| r.next_u32() as i8)),
                Arg::input("B", &r.vec(512, |r| r.next_u32() as i8)),
                Arg::input("C", &r.vec(256, |r| r.next_u32() as i32 >> 4)),
            ],
            |c| {
                let (a, b, cc) = (c.input::<i8>("A"), c.input::<i8>("B"), c.input::<i32>("C"));
                let mut d = vec![0i32; 256];
                for i in 0..16 {
                    for j in 0..16 {
                        d[i * 16 + j] = (0..32).fold(cc[i * 16 + j], |s, k| {
                            s.wrapping_add(i32::from(a[i * 32 + k]) * i32::from(b[k * 16 + j]))
                        });
                    }
                }
                outs([("D", to_bytes(&d))])
            },
        ),
        case(
            "mfma_bf16",
            "v_mfma_f32_16x16x16bf16_1k x2: 16x16 f32 = 16x32 bf16 * 32x16 bf16, integer \
             values in [-8, 8]; exact",
            SRC,
            "_Z14mfma_bf16_gemmPfPKtS1_",
            64,
            64,
            vec![
                Arg::output("D", sz::<f32>(256), Cmp::Exact),
                Arg::input("A", &bf16s(&mut r, 512)),
                Arg::input("B", &bf16s(&mut r, 512)),
            ],
            |c| {
                let w = |v: Vec<u16>| {
                    v.into_iter()
                        .map(|h| f64::from(f32::from_bits(u32::from(h) << 16)))
                        .collect::<Vec<_>>()
                };
                let d = gemm(&w(c.input("A")), &w(c.input("B")), None, 16, 16, 32);
                outs([(
                    "D",
                    to_bytes(&d.iter().map(|x| *x as f32).collect::<Vec<_>>()),
                )])
            },
        ),
    ]
}

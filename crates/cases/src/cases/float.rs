//! k_f64_f16.hip: f64 arithmetic and packed / scalar f16.

use super::{case, outs, sz};
use crate::data::{
    self, f16_add, f16_fma, f16_max, f16_mul, f16_sub, f16_to_f64, f32_to_f16, from_bytes,
    to_bytes, Prng,
};
use crate::{Arg, Case, Cmp};

const SRC: &[&str] = &["k_f64_f16.hip"];
const N: usize = 500;

/// f64_ops columns: sqrt (column 2) within 1 ULP, everything else exact.
fn f64_cols(_c: &Case, got: &[u8], want: &[u8]) -> Result<(), String> {
    let (g, w) = (from_bytes::<f64>(got), from_bytes::<f64>(want));
    let mut bad = Vec::new();
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = if i % 8 == 2 {
            data::ulp_diff_f64(*a, *b) <= 1
        } else {
            a.to_bits() == b.to_bits()
        };
        if !ok {
            bad.push(format!(
                "[{i}] (element {}, column {}) got {a:e}, expected {b:e}",
                i / 8,
                i % 8
            ));
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} mismatches: {}",
            bad.len(),
            bad[..bad.len().min(5)].join(", ")
        ))
    }
}

/// A random f16 with magnitude in [2^-8, 16) and random sign.
fn f16_mid(r: &mut Prng) -> u16 {
    let e = r.range_i32(-8, 3);
    let m = (r.next_u32() & 0x3FF) as u16;
    let s = ((r.next_u32() & 1) as u16) << 15;
    s | (((e + 15) as u16) << 10) | m
}

pub(super) fn cases() -> Vec<Case> {
    let mut r = Prng::new(0xF64);
    let n = N as i32;
    let mut a = r.vec(N, |r| r.f64_in(-100.0, 100.0));
    a[..5].copy_from_slice(&[0.0, -0.0, 2.0, 1e-310, -7.5]);
    let b = r.vec(N, |r| {
        let x = r.f64_in(0.01, 10.0);
        if r.next_u32() & 1 == 1 {
            -x
        } else {
            x
        }
    });
    let mut fin = r.vec(N, |r| r.f32_in(-100.0, 100.0));
    fin[..18].copy_from_slice(&[
        65504.0,
        65519.0,
        65520.0,
        70000.0,
        -70000.0,
        1e-5,
        6e-8,
        3e-8,
        2.98e-8,
        -0.0,
        0.0,
        f32::INFINITY,
        1e-7,
        0.000_061_035_156,
        300.0,
        0.001,
        -2.5,
        0.1,
    ]);
    vec![
        case(
            "f64_ops",
            "f64 fma, division (correctly rounded), sqrt (__builtin_sqrt, <= 1 ulp), fma \
             Horner, a*b+c (two roundings), floor, f64->i64->f64, f64->f32; exact except sqrt",
            SRC,
            "_Z7f64_opsPdPKdS1_S1_i",
            N as u32,
            128,
            vec![
                Arg::output("out", sz::<f64>(8 * N), Cmp::Custom(f64_cols)),
                Arg::input("a", &a),
                Arg::input("b", &b),
                Arg::input("c", &r.vec(N, |r| r.f64_in(-1000.0, 1000.0))),
                Arg::i32("n", n),
            ],
            |c| {
                let (a, b, cc) = (
                    c.input::<f64>("a"),
                    c.input::<f64>("b"),
                    c.input::<f64>("c"),
                );
                let mut out = Vec::new();
                for i in 0..a.len() {
                    let (x, y, z) = (a[i], b[i], cc[i]);
                    let mut h = 1.0 / 720.0;
                    for k in [-1.0 / 120.0, 1.0 / 24.0, -1.0 / 6.0, 0.5, -1.0] {
                        h = f64::mul_add(h, x, k);
                    }
                    out.extend([
                        x.mul_add(y, z),
                        x / y,
                        x.abs().sqrt(),
                        h,
                        x * y + z,
                        x.floor(),
                        ((x * 1e6) as i64) as f64,
                        f64::from(x as f32),
                    ]);
                }
                outs([("out", to_bytes(&out))])
            },
        ),
        case(
            "f16x2_ops",
            "packed f16 (half2): fma (v_pk_fma_f16), a*b+c (v_pk_mul + v_pk_add, two \
             roundings), max(a,b)-c; f16 subnormal results; exact",
            SRC,
            "_Z9f16x2_opsPDv2_DF16_PKS_S2_S2_i",
            N as u32,
            128,
            vec![
                Arg::output("out", sz::<u16>(6 * N), Cmp::Exact),
                Arg::input("a", &r.vec(2 * N, f16_mid)),
                Arg::input("b", &r.vec(2 * N, f16_mid)),
                Arg::input("c", &r.vec(2 * N, f16_mid)),
                Arg::i32("n", n),
            ],
            |c| {
                let (a, b, cc) = (
                    c.input::<u16>("a"),
                    c.input::<u16>("b"),
                    c.input::<u16>("c"),
                );
                let mut out = vec![0u16; 3 * a.len()];
                for i in 0..a.len() / 2 {
                    for l in 0..2 {
                        let (x, y, z) = (a[2 * i + l], b[2 * i + l], cc[2 * i + l]);
                        out[6 * i + l] = f16_fma(x, y, z);
                        out[6 * i + 2 + l] = f16_add(f16_mul(x, y), z);
                        out[6 * i + 4 + l] = f16_sub(f16_max(x, y), z);
                    }
                }
                outs([("out", to_bytes(&out))])
            },
        ),
        case(
            "f16_convert",
            "f32->f16 round to nearest even (subnormals, overflow to inf), f16 multiply, \
             f16->f32; exact",
            SRC,
            "_Z11f16_convertPfPtPKfi",
            N as u32,
            128,
            vec![
                Arg::output("outf", sz::<f32>(N), Cmp::Exact),
                Arg::output("outh", sz::<u16>(N), Cmp::Exact),
                Arg::input("in", &fin),
                Arg::i32("n", n),
            ],
            |c| {
                let h: Vec<u16> = c
                    .input::<f32>("in")
                    .iter()
                    .map(|x| f32_to_f16(*x))
                    .collect();
                let f: Vec<f32> = h
                    .iter()
                    .map(|&x| f16_to_f64(f16_mul(x, x)) as f32)
                    .collect();
                outs([("outf", to_bytes(&f)), ("outh", to_bytes(&h))])
            },
        ),
    ]
}

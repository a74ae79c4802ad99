//! k_devlib_lib.hip + k_devlib_main.hip: kernels in one -fgpu-rdc object
//! calling noinline (one recursive) functions and using variables of another.

use super::{case, outs, sz};
use crate::data::{to_bytes, Prng};
use crate::{Arg, Case, Cmp, Global};

const SRC: &[&str] = &["k_devlib_lib.hip", "k_devlib_main.hip"];
const N: usize = 500;

const TABLE: [u32; 16] = [
    0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344, 0xA4093822, 0x299F31D0, 0x082EFA98, 0xEC4E6C89,
    0x452821E6, 0x38D01377, 0xBE5466CF, 0x34E90C6C, 0xC0AC29B7, 0xC97C50DD, 0x3F84D5B5, 0xB5470917,
];
const COEFFS: [f32; 6] = [0.5, -1.25, 0.75, 2.0, -0.125, 0.0625];

fn hash(x: u32) -> u32 {
    let mut h = x ^ TABLE[(x & 15) as usize];
    h ^= h >> 16;
    h = h.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 13;
    h = h.wrapping_mul(0xC2B2_AE35);
    h ^ (h >> 16)
}

fn gcd(a: i32, b: i32) -> i32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn rdc(c: Case) -> Case {
    Case { rdc: true, ..c }
}

pub(super) fn cases() -> Vec<Case> {
    let mut r = Prng::new(0xDE71);
    let n = N as i32;
    vec![
        rdc(Case {
            globals: vec![Global {
                symbol: "devlib_calls",
                managed: false,
                size: 4,
                cmp: Cmp::Exact,
            }],
            ..case(
                "devlib_hash",
                "rdc: library function with a library table and an atomic counter variable \
                 (devlib_calls = n afterwards); exact",
                SRC,
                "_Z18devlib_hash_kernelPjPKji",
                N as u32,
                128,
                vec![
                    Arg::output("out", sz::<u32>(N), Cmp::Exact),
                    Arg::input("in", &r.vec(N, |r| r.next_u32())),
                    Arg::i32("n", n),
                ],
                |c| {
                    let out: Vec<u32> = c
                        .input::<u32>("in")
                        .iter()
                        .enumerate()
                        .map(|(i, &x)| hash(x).wrapping_add(TABLE[i & 15]))
                        .collect();
                    outs([
                        ("out", to_bytes(&out)),
                        ("devlib_calls", to_bytes(&[c.int("n") as u32])),
                    ])
                },
            )
        }),
        rdc(case(
            "devlib_poly",
            "rdc: library Horner loop with fma over the caller's __constant__ coefficients \
             (r = c5; r = fma(r, x, c_k) for k = 4..0); exact",
            SRC,
            "_Z18devlib_poly_kernelPfPKfi",
            N as u32,
            128,
            vec![
                Arg::output("out", sz::<f32>(N), Cmp::Exact),
                Arg::input("x", &r.vec(N, |r| r.f32_in(-2.0, 2.0))),
                Arg::i32("n", n),
            ],
            |c| {
                let out: Vec<f32> = c
                    .input::<f32>("x")
                    .iter()
                    .map(|&x| {
                        COEFFS[..5]
                            .iter()
                            .rev()
                            .fold(COEFFS[5], |acc, &ck| acc.mul_add(x, ck))
                    })
                    .collect();
                outs([("out", to_bytes(&out))])
            },
        )),
        rdc(case(
            "devlib_gcd",
            "rdc: recursive library function (Euclid) with per-lane depth; exact",
            SRC,
            "_Z17devlib_gcd_kernelPiPKiS1_i",
            N as u32,
            128,
            vec![
                Arg::output("out", sz::<i32>(N), Cmp::Exact),
                Arg::input("a", &r.vec(N, |r| r.range_i32(0, 1_000_000))),
                Arg::input("b", &{
                    let mut v = r.vec(N, |r| r.range_i32(0, 1_000_000) / r.range_i32(1, 1000));
                    v[0] = 0;
                    v
                }),
                Arg::i32("n", n),
            ],
            |c| {
                let (a, b) = (c.input::<i32>("a"), c.input::<i32>("b"));
                let out: Vec<i32> = a.iter().zip(&b).map(|(a, b)| gcd(*a, *b)).collect();
                outs([("out", to_bytes(&out))])
            },
        )),
    ]
}

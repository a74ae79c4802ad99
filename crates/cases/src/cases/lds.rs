//! k_lds.hip: LDS tiling with barriers.

use super::{case, outs, sz};
use crate::data::{to_bytes, Prng};
use crate::{Arg, Case, Cmp};

const SRC: &[&str] = &["k_lds.hip"];
const W: usize = 50;
const H: usize = 37;
const M: usize = 37;
const NN: usize = 29;
const K: usize = 45;
const N: usize = 1000;

fn round16(x: usize) -> u32 {
    (x.div_ceil(16) * 16) as u32
}

pub(super) fn cases() -> Vec<Case> {
    let mut r = Prng::new(0x1D5);
    let mm_grid = [round16(NN), round16(M), 1];
    vec![
        Case {
            grid: [round16(W), round16(H), 1],
            block: [16, 16, 1],
            ..case(
                "transpose_tiled",
                "50x37 f32 transpose through a padded 16x17 LDS tile, 2D grid rounded up to \
                 whole tiles; exact",
                SRC,
                "_Z15transpose_tiledPfPKfii",
                0,
                0,
                vec![
                    Arg::output("out", sz::<f32>(W * H), Cmp::Exact),
                    Arg::input("in", &r.vec(W * H, |r| r.f32_in(-1e3, 1e3))),
                    Arg::i32("w", W as i32),
                    Arg::i32("h", H as i32),
                ],
                |c| {
                    let v = c.input::<f32>("in");
                    let mut out = vec![0f32; W * H];
                    for y in 0..H {
                        for x in 0..W {
                            out[x * H + y] = v[y * W + x];
                        }
                    }
                    outs([("out", to_bytes(&out))])
                },
            )
        },
        Case {
            grid: mm_grid,
            block: [16, 16, 1],
            ..case(
                "matmul_tiled_i32",
                "37x45 * 45x29 i32 matmul with 16x16 LDS tiles (wrapping); exact",
                SRC,
                "_Z16matmul_tiled_i32PiPKiS1_iii",
                0,
                0,
                vec![
                    Arg::output("C", sz::<i32>(M * NN), Cmp::Exact),
                    Arg::input("A", &r.vec(M * K, |r| r.range_i32(-1000, 1000))),
                    Arg::input("B", &r.vec(K * NN, |r| r.range_i32(-1000, 1000))),
                    Arg::i32("M", M as i32),
                    Arg::i32("N", NN as i32),
                    Arg::i32("K", K as i32),
                ],
                |c| {
                    let (a, b) = (c.input::<i32>("A"), c.input::<i32>("B"));
                    let mut out = vec![0i32; M * NN];
                    for i in 0..M {
                        for j in 0..NN {
                            out[i * NN + j] = (0..K).fold(0i32, |s, k| {
                                s.wrapping_add(a[i * K + k].wrapping_mul(b[k * NN + j]))
                            });
                        }
                    }
                    outs([("C", to_bytes(&out))])
                },
            )
        },
        Case {
            grid: mm_grid,
            block: [16, 16, 1],
            ..case(
                "matmul_tiled_f32",
                "37x45 * 45x29 f32 matmul with 16x16 LDS tiles: acc = fma(a, b, acc) for k in \
                 order 0..48 (zero padding past K included); exact",
                SRC,
                "_Z16matmul_tiled_f32PfPKfS1_iii",
                0,
                0,
                vec![
                    Arg::output("C", sz::<f32>(M * NN), Cmp::Exact),
                    Arg::input("A", &r.vec(M * K, |r| r.f32_in(-1.0, 1.0))),
                    Arg::input("B", &r.vec(K * NN, |r| r.f32_in(-1.0, 1.0))),
                    Arg::i32("M", M as i32),
                    Arg::i32("N", NN as i32),
                    Arg::i32("K", K as i32),
                ],
                |c| {
                    let (a, b) = (c.input::<f32>("A"), c.input::<f32>("B"));
                    let mut out = vec![0f32; M * NN];
                    let kpad = K.div_ceil(16) * 16;
                    for i in 0..M {
                        for j in 0..NN {
                            let mut acc = 0f32;
                            for k in 0..kpad {
                                let (x, y) = if k < K {
                                    (a[i * K + k], b[k * NN + j])
                                } else {
                                    (0.0, 0.0)
                                };
                                acc = x.mul_add(y, acc);
                            }
                            out[i * NN + j] = acc;
                        }
                    }
                    outs([("C", to_bytes(&out))])
                },
            )
        },
        case(
            "stencil_lds",
            "1D 3-point stencil (l + 2c) + r through LDS with halos; grid = n = 1000 so the \
             last workgroup is partial (barrier with missing waves); exact",
            SRC,
            "_Z11stencil_ldsPfPKfi",
            N as u32,
            256,
            vec![
                Arg::output("out", sz::<f32>(N), Cmp::Exact),
                Arg::input("in", &r.vec(N, |r| r.f32_in(-10.0, 10.0))),
                Arg::i32("n", N as i32),
            ],
            |c| {
                let v = c.input::<f32>("in");
                let at = |i: isize| {
                    if i >= 0 && (i as usize) < N {
                        v[i as usize]
                    } else {
                        0.0
                    }
                };
                let out: Vec<f32> = (0..N as isize)
                    .map(|i| (at(i - 1) + 2.0 * at(i)) + at(i + 1))
                    .collect();
                outs([("out", to_bytes(&out))])
            },
        ),
        case(
            "block_reduce_i32",
            "LDS tree reduction per 256-wide workgroup (wrapping); exact",
            SRC,
            "_Z16block_reduce_i32PiPKii",
            1024,
            256,
            vec![
                Arg::output("out", sz::<i32>(4), Cmp::Exact),
                Arg::input("in", &r.vec(N, |r| r.next_u32() as i32)),
                Arg::i32("n", N as i32),
            ],
            |c| {
                let v = c.input::<i32>("in");
                let out: Vec<i32> = v
                    .chunks(256)
                    .map(|ch| ch.iter().fold(0i32, |s, x| s.wrapping_add(*x)))
                    .collect();
                outs([("out", to_bytes(&out))])
            },
        ),
        case(
            "lds_reverse",
            "each 64-thread work-group reverses its slice through LDS; tile[63 - t] is a \
             negative base plus offset:252, added in 32 bits; exact",
            SRC,
            "_Z11lds_reversePfPKf",
            256,
            64,
            vec![
                Arg::output("out", sz::<f32>(256), Cmp::Exact),
                Arg::input("in", &r.vec(256, |r| r.f32_in(-1e3, 1e3))),
            ],
            |c| {
                let v = c.input::<f32>("in");
                let out: Vec<f32> = v
                    .chunks(64)
                    .flat_map(|ch| ch.iter().rev().copied())
                    .collect();
                outs([("out", to_bytes(&out))])
            },
        ),
    ]
}

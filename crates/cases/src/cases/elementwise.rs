//! k_elementwise.hip: element-wise int and float kernels. n = 1000 with
//! 256-wide workgroups, so the last workgroup is partial. All exact.

use super::{case, outs, sz};
use crate::data::{to_bytes, Prng};
use crate::{Arg, Case, Cmp};

const SRC: &[&str] = &["k_elementwise.hip"];
const N: usize = 1000;

pub(super) fn cases() -> Vec<Case> {
    let mut r = Prng::new(0xE1E1);
    let ri = |r: &mut Prng| r.next_u32() as i32;
    let n = N as i32;
    let grid = N as u32;
    vec![
        case(
            "vadd_i32",
            "wrapping i32 add; exact",
            SRC,
            "_Z8vadd_i32PiPKiS1_i",
            grid,
            256,
            vec![
                Arg::output("c", sz::<i32>(N), Cmp::Exact),
                Arg::input("a", &r.vec(N, ri)),
                Arg::input("b", &r.vec(N, ri)),
                Arg::i32("n", n),
            ],
            |c| {
                let (a, b) = (c.input::<i32>("a"), c.input::<i32>("b"));
                let v: Vec<i32> = a.iter().zip(&b).map(|(x, y)| x.wrapping_add(*y)).collect();
                outs([("c", to_bytes(&v))])
            },
        ),
        case(
            "saxpy",
            "y = fma(a, x, y) in f32 (one rounding); exact",
            SRC,
            "_Z5saxpyPffPKfi",
            grid,
            256,
            vec![
                Arg::inout("y", &r.vec(N, |r| r.f32_in(-10.0, 10.0)), Cmp::Exact),
                Arg::f32("a", 1.75),
                Arg::input("x", &r.vec(N, |r| r.f32_in(-10.0, 10.0))),
                Arg::i32("n", n),
            ],
            |c| {
                let a = c.float("a");
                let (x, y) = (c.input::<f32>("x"), c.input::<f32>("y"));
                let v: Vec<f32> = x.iter().zip(&y).map(|(x, y)| a.mul_add(*x, *y)).collect();
                outs([("y", to_bytes(&v))])
            },
        ),
        case(
            "clamp_f32",
            "fminf(fmaxf(x, lo), hi) with scalar f32 arguments; exact",
            SRC,
            "_Z9clamp_f32PfPKfffi",
            grid,
            256,
            vec![
                Arg::output("out", sz::<f32>(N), Cmp::Exact),
                Arg::input("in", &r.vec(N, |r| r.f32_in(-5.0, 5.0))),
                Arg::f32("lo", -1.5),
                Arg::f32("hi", 2.25),
                Arg::i32("n", n),
            ],
            |c| {
                let (lo, hi) = (c.float("lo"), c.float("hi"));
                let v: Vec<f32> = c
                    .input::<f32>("in")
                    .iter()
                    .map(|x| x.max(lo).min(hi))
                    .collect();
                outs([("out", to_bytes(&v))])
            },
        ),
        case(
            "select_i32",
            "per-lane select: mask odd ? a - b : max(a, b); exact",
            SRC,
            "_Z10select_i32PiPKiS1_S1_i",
            grid,
            256,
            vec![
                Arg::output("out", sz::<i32>(N), Cmp::Exact),
                Arg::input("a", &r.vec(N, ri)),
                Arg::input("b", &r.vec(N, ri)),
                Arg::input("mask", &r.vec(N, ri)),
                Arg::i32("n", n),
            ],
            |c| {
                let (a, b, m) = (
                    c.input::<i32>("a"),
                    c.input::<i32>("b"),
                    c.input::<i32>("mask"),
                );
                let v: Vec<i32> = (0..a.len())
                    .map(|i| {
                        if m[i] & 1 != 0 {
                            a[i].wrapping_sub(b[i])
                        } else {
                            a[i].max(b[i])
                        }
                    })
                    .collect();
                outs([("out", to_bytes(&v))])
            },
        ),
        case(
            "bitops_u32",
            "popcount, clz, bit reverse, 32x32 mulhi, rotate; exact",
            SRC,
            "_Z10bitops_u32PjPKji",
            grid,
            256,
            vec![
                Arg::output("out", sz::<u32>(4 * N), Cmp::Exact),
                Arg::input("in", &{
                    let mut v = r.vec(N, |r| r.next_u32());
                    v[..5].copy_from_slice(&[0, 1, u32::MAX, 0x8000_0000, 0x0001_0000]);
                    v
                }),
                Arg::i32("n", n),
            ],
            |c| {
                let mut v = Vec::new();
                for x in c.input::<u32>("in") {
                    let hi = ((u64::from(x) * 0x9E37_79B9) >> 32) as u32;
                    v.extend([
                        x.count_ones(),
                        (x | 1).leading_zeros(),
                        x.reverse_bits(),
                        hi ^ x.rotate_left(7),
                    ]);
                }
                outs([("out", to_bytes(&v))])
            },
        ),
        case(
            "mad_mix_f32",
            "((a*b) + (c*c)) - a, four separately rounded f32 ops (no contraction); exact",
            SRC,
            "_Z11mad_mix_f32PfPKfS1_S1_i",
            grid,
            256,
            vec![
                Arg::output("out", sz::<f32>(N), Cmp::Exact),
                Arg::input("a", &r.vec(N, |r| r.f32_in(-100.0, 100.0))),
                Arg::input("b", &r.vec(N, |r| r.f32_in(-100.0, 100.0))),
                Arg::input("c", &r.vec(N, |r| r.f32_in(-100.0, 100.0))),
                Arg::i32("n", n),
            ],
            |c| {
                let (a, b, cc) = (
                    c.input::<f32>("a"),
                    c.input::<f32>("b"),
                    c.input::<f32>("c"),
                );
                let v: Vec<f32> = (0..a.len())
                    .map(|i| ((a[i] * b[i]) + (cc[i] * cc[i])) - a[i])
                    .collect();
                outs([("out", to_bytes(&v))])
            },
        ),
        case(
            "convert_mix",
            "f32->i32 truncation, rint (ties to even), i32/u32->f32 rounding; exact",
            SRC,
            "_Z11convert_mixPiPfPKfPKii",
            grid,
            256,
            vec![
                Arg::output("oi", sz::<i32>(2 * N), Cmp::Exact),
                Arg::output("of", sz::<f32>(2 * N), Cmp::Exact),
                Arg::input("fin", &{
                    let mut v = r.vec(N, |r| r.f32_in(-1.0e6, 1.0e6));
                    v[..8].copy_from_slice(&[0.5, 1.5, 2.5, -2.5, -0.5, -3.5, 1e9, -0.0]);
                    v
                }),
                Arg::input("iin", &{
                    let mut v = r.vec(N, ri);
                    v[..4].copy_from_slice(&[i32::MIN, i32::MAX, 16_777_217, -1]);
                    v
                }),
                Arg::i32("n", n),
            ],
            |c| {
                let (f, k) = (c.input::<f32>("fin"), c.input::<i32>("iin"));
                let mut oi = Vec::new();
                let mut of = Vec::new();
                for i in 0..f.len() {
                    oi.extend([f[i] as i32, f[i].round_ties_even() as i32]);
                    of.extend([k[i] as f32, (k[i] as u32) as f32]);
                }
                outs([("oi", to_bytes(&oi)), ("of", to_bytes(&of))])
            },
        ),
    ]
}

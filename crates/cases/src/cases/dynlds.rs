//! k_dynlds.hip: dynamic LDS (extern __shared__), alone and placed after
//! static LDS. The grid is exactly n = 1000 work-items (last workgroup has
//! 232 of 256).

use super::{case, outs, sz};
use crate::data::{to_bytes, Prng};
use crate::{Arg, Case, Cmp};

const SRC: &[&str] = &["k_dynlds.hip"];
const N: usize = 1000;
const B: usize = 256;

pub(super) fn cases() -> Vec<Case> {
    let mut r = Prng::new(0xD1D);
    vec![
        Case {
            dyn_lds: (B * 4) as u32,
            ..case(
                "dyn_reverse_f32",
                "in-place reverse of each workgroup's chunk through dynamic LDS (1 KiB), \
                 partial last workgroup; exact",
                SRC,
                "_Z15dyn_reverse_f32Pfi",
                N as u32,
                B as u32,
                vec![
                    Arg::inout("data", &r.vec(N, |r| r.f32_in(-1.0, 1.0)), Cmp::Exact),
                    Arg::i32("n", N as i32),
                ],
                |c| {
                    let mut v = c.input::<f32>("data");
                    for ch in v.chunks_mut(B) {
                        ch.reverse();
                    }
                    outs([("data", to_bytes(&v))])
                },
            )
        },
        Case {
            dyn_lds: ((B + 64) * 4) as u32,
            ..case(
                "dyn_static_mix",
                "static __shared__ int[8] plus 1280 bytes of dynamic LDS (dynamic LDS starts \
                 after the static segment), partial last workgroup; exact",
                SRC,
                "_Z14dyn_static_mixPiPKii",
                N as u32,
                B as u32,
                vec![
                    Arg::output("out", sz::<i32>(N), Cmp::Exact),
                    Arg::input("in", &r.vec(N, |r| r.range_i32(-100_000, 100_000))),
                    Arg::i32("n", N as i32),
                ],
                |c| {
                    let v = c.input::<i32>("in");
                    let mut out = Vec::new();
                    for (blk, ch) in v.chunks(B).enumerate() {
                        let cnt = ch.len();
                        let hdr = |k: usize| (k * k + blk) as i32;
                        for t in 0..cnt {
                            out.push(
                                ch[(t + 5) % cnt] + 3 * hdr(t % 8) + (ch[(7 * t) % 64] ^ 0x5555),
                            );
                        }
                    }
                    outs([("out", to_bytes(&out))])
                },
            )
        },
    ]
}

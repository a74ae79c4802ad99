//! k_divergent.hip: per-lane trip counts, break / continue, early return,
//! switch and nested ifs. All exact.

use super::{case, outs, sz};
use crate::data::{to_bytes, Prng};
use crate::{Arg, Case, Cmp};

const SRC: &[&str] = &["k_divergent.hip"];
const N: usize = 1000;

fn collatz(x0: u32) -> u32 {
    let mut x = u64::from(x0);
    let mut steps = 0u32;
    while x != 1 {
        if steps >= 500 {
            break;
        }
        x = if x & 1 == 1 { 3 * x + 1 } else { x / 2 };
        steps += 1;
    }
    steps | if x == 1 { 0 } else { 0x8000_0000 }
}

fn divergent_mix(x: i32) -> u32 {
    if x < 0 {
        return (x as u32).wrapping_mul(0xFFFF_FFFD);
    }
    let mut acc: u32 = 0;
    match x % 5 {
        0 => acc = (x as u32).wrapping_mul(2),
        1 => acc = (x as u32).wrapping_add(100),
        2 => acc = (x as u32 ^ 0xff).wrapping_add(7),
        3 => acc = acc.wrapping_add(7),
        _ => acc = 0xFFFF_FFFF,
    }
    for j in 0..(x & 31) {
        if j % 3 == 0 {
            continue;
        }
        if acc > 100_000 {
            break;
        }
        if j & 1 == 1 {
            if acc & 2 != 0 {
                acc = acc.wrapping_add(j as u32);
            } else {
                acc = acc.wrapping_sub(j as u32);
            }
        } else {
            acc = acc.wrapping_mul(3).wrapping_add(1);
        }
    }
    acc
}

fn nested_loops(u: u32) -> u32 {
    let (a, b) = (u & 15, (u >> 4) & 15);
    let mut s = 0u32;
    let mut done = false;
    let mut p = 0;
    while p < a && !done {
        for q in 0..b {
            if ((p * 7 + q * 3) ^ u) % 11 == 0 {
                done = true;
                break;
            }
            if (p + q) % 4 == 1 {
                continue;
            }
            s = s.wrapping_mul(5).wrapping_add(p * q + 1);
        }
        if s % 7 == 3 {
            s = s.wrapping_add(1000);
        }
        p += 1;
    }
    s
}

pub(super) fn cases() -> Vec<Case> {
    let mut r = Prng::new(0xD17);
    let n = N as i32;
    let mut cz = r.vec(N, |r| r.next_u32() % 100_000);
    cz[..4].copy_from_slice(&[0, 1, 27, 77_031]);
    vec![
        case(
            "collatz_steps",
            "data-dependent while loop with a capped break (u64 arithmetic); exact",
            SRC,
            "_Z13collatz_stepsPjPKji",
            N as u32,
            256,
            vec![
                Arg::output("out", sz::<u32>(N), Cmp::Exact),
                Arg::input("in", &cz),
                Arg::i32("n", n),
            ],
            |c| {
                outs([(
                    "out",
                    to_bytes(
                        &c.input::<u32>("in")
                            .into_iter()
                            .map(collatz)
                            .collect::<Vec<_>>(),
                    ),
                )])
            },
        ),
        case(
            "divergent_mix",
            "early return, switch with fallthrough, loop with continue/break and nested ifs; exact",
            SRC,
            "_Z13divergent_mixPjPKii",
            N as u32,
            256,
            vec![
                Arg::output("out", sz::<u32>(N), Cmp::Exact),
                Arg::input("in", &r.vec(N, |r| r.range_i32(-100_000, 1_000_000))),
                Arg::i32("n", n),
            ],
            |c| {
                outs([(
                    "out",
                    to_bytes(
                        &c.input::<i32>("in")
                            .into_iter()
                            .map(divergent_mix)
                            .collect::<Vec<_>>(),
                    ),
                )])
            },
        ),
        case(
            "nested_loops",
            "nested loops with per-lane bounds, a flagged break out of both and continue; exact",
            SRC,
            "_Z12nested_loopsPjPKji",
            N as u32,
            256,
            vec![
                Arg::output("out", sz::<u32>(N), Cmp::Exact),
                Arg::input("in", &r.vec(N, |r| r.next_u32())),
                Arg::i32("n", n),
            ],
            |c| {
                outs([(
                    "out",
                    to_bytes(
                        &c.input::<u32>("in")
                            .into_iter()
                            .map(nested_loops)
                            .collect::<Vec<_>>(),
                    ),
                )])
            },
        ),
    ]
}

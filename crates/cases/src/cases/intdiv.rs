//! k_intdiv.hip: 32/64-bit signed (truncating) and unsigned division and
//! remainder; all exact.

use super::{case, outs, sz};
use crate::data::{to_bytes, Prng};
use crate::{Arg, Case, Cmp};

const SRC: &[&str] = &["k_intdiv.hip"];
const N: usize = 1000;

/// Random divisor: small, power of two, +-1 or large; never 0.
fn divisor(r: &mut Prng, bits: u32) -> i64 {
    let v: i64 = match r.next_u32() % 5 {
        0 => r.range_i64(-20, 20),
        1 => 1i64 << r.range_i64(0, i64::from(bits) - 2),
        2 => {
            if r.next_u32() & 1 == 0 {
                1
            } else {
                -1
            }
        }
        3 if bits == 64 => r.next_u64() as i64,
        3 => i64::from(r.next_u32() as i32),
        _ => r.range_i64(-1000, 1000),
    };
    if v == 0 {
        7
    } else {
        v
    }
}

pub(super) fn cases() -> Vec<Case> {
    let mut r = Prng::new(0x1D1);
    let n = N as i32;
    let mut a32 = r.vec(N, |r| r.next_u32() as i32);
    a32[..4].copy_from_slice(&[i32::MIN, i32::MAX, 0, -1]);
    let b32: Vec<i32> = a32
        .iter()
        .map(|&a| {
            let d = divisor(&mut r, 32) as i32;
            if a == i32::MIN && d == -1 {
                3
            } else {
                d
            }
        })
        .collect();
    let mut a64 = r.vec(N, |r| r.next_u64() as i64);
    a64[..4].copy_from_slice(&[i64::MIN, i64::MAX, 0, -1]);
    for (i, x) in a64.iter_mut().enumerate().skip(4) {
        if i % 3 == 0 {
            *x >>= 33; // some dividends that fit 32 bits
        }
    }
    let b64: Vec<i64> = a64
        .iter()
        .map(|&a| {
            let d = divisor(&mut r, 64);
            if a == i64::MIN && d == -1 {
                3
            } else {
                d
            }
        })
        .collect();
    vec![
        case(
            "intdiv32",
            "i32 / and %, u32 / and % by varying divisors; exact",
            SRC,
            "_Z8intdiv32PiS_PjS0_PKiS2_i",
            N as u32,
            256,
            vec![
                Arg::output("q", sz::<i32>(N), Cmp::Exact),
                Arg::output("r", sz::<i32>(N), Cmp::Exact),
                Arg::output("uq", sz::<u32>(N), Cmp::Exact),
                Arg::output("ur", sz::<u32>(N), Cmp::Exact),
                Arg::input("a", &a32),
                Arg::input("b", &b32),
                Arg::i32("n", n),
            ],
            |c| {
                let (a, b) = (c.input::<i32>("a"), c.input::<i32>("b"));
                let q: Vec<i32> = a.iter().zip(&b).map(|(x, y)| x / y).collect();
                let rr: Vec<i32> = a.iter().zip(&b).map(|(x, y)| x % y).collect();
                let uq: Vec<u32> = a
                    .iter()
                    .zip(&b)
                    .map(|(x, y)| *x as u32 / *y as u32)
                    .collect();
                let ur: Vec<u32> = a
                    .iter()
                    .zip(&b)
                    .map(|(x, y)| *x as u32 % *y as u32)
                    .collect();
                outs([
                    ("q", to_bytes(&q)),
                    ("r", to_bytes(&rr)),
                    ("uq", to_bytes(&uq)),
                    ("ur", to_bytes(&ur)),
                ])
            },
        ),
        case(
            "intdiv64",
            "i64 / and %, u64 / and % (the software 64-bit division paths); exact",
            SRC,
            "_Z8intdiv64PxS_PyS0_PKxS2_i",
            N as u32,
            256,
            vec![
                Arg::output("q", sz::<i64>(N), Cmp::Exact),
                Arg::output("r", sz::<i64>(N), Cmp::Exact),
                Arg::output("uq", sz::<u64>(N), Cmp::Exact),
                Arg::output("ur", sz::<u64>(N), Cmp::Exact),
                Arg::input("a", &a64),
                Arg::input("b", &b64),
                Arg::i32("n", n),
            ],
            |c| {
                let (a, b) = (c.input::<i64>("a"), c.input::<i64>("b"));
                let q: Vec<i64> = a.iter().zip(&b).map(|(x, y)| x / y).collect();
                let rr: Vec<i64> = a.iter().zip(&b).map(|(x, y)| x % y).collect();
                let uq: Vec<u64> = a
                    .iter()
                    .zip(&b)
                    .map(|(x, y)| *x as u64 / *y as u64)
                    .collect();
                let ur: Vec<u64> = a
                    .iter()
                    .zip(&b)
                    .map(|(x, y)| *x as u64 % *y as u64)
                    .collect();
                outs([
                    ("q", to_bytes(&q)),
                    ("r", to_bytes(&rr)),
                    ("uq", to_bytes(&uq)),
                    ("ur", to_bytes(&ur)),
                ])
            },
        ),
        case(
            "intdiv_const",
            "division by constants (magic-number sequences) and by a uniform kernel \
             argument (d = -13); exact",
            SRC,
            "_Z12intdiv_constPiPKiii",
            N as u32,
            256,
            vec![
                Arg::output("out", sz::<i32>(6 * N), Cmp::Exact),
                Arg::input("a", &a32),
                Arg::i32("d", -13),
                Arg::i32("n", n),
            ],
            |c| {
                let d = c.int("d") as i32;
                let mut out = Vec::new();
                for x in c.input::<i32>("a") {
                    out.extend([x / 7, x % 7, x / d, x % d, (x as u32 / 10) as i32, x / -3]);
                }
                outs([("out", to_bytes(&out))])
            },
        ),
    ]
}

//! k_atomics.hip: global and LDS atomics; every checked value is independent
//! of the order the atomics happen in.

use super::{case, outs, sz};
use crate::data::{from_bytes, to_bytes, Prng};
use crate::{Arg, Case, Cmp};

const SRC: &[&str] = &["k_atomics.hip"];
const N: usize = 1000;
/// Threads taking a ticket in `atomic_ticket`: `TICKETS % 10` (the wrapping
/// counter's final value) must differ from its initial 0, or the wrap check
/// would prove nothing.
const TICKETS: usize = 1003;
const _: () = assert!(TICKETS % 10 != 0);

/// tickets: any permutation of 0..n is right.
fn permutation(c: &Case, got: &[u8], _want: &[u8]) -> Result<(), String> {
    let n = c.int("n") as usize;
    let mut seen = vec![false; n];
    for (i, t) in from_bytes::<u32>(got).into_iter().enumerate() {
        let t = t as usize;
        if t >= n || seen[t] {
            return Err(format!("tickets[{i}] = {t}: not a permutation of 0..{n}"));
        }
        seen[t] = true;
    }
    Ok(())
}

pub(super) fn cases() -> Vec<Case> {
    let mut r = Prng::new(0xA70);
    let n = N as i32;
    vec![
        case(
            "atomic_int_ops",
            "global atomic add, signed/unsigned min/max, and/or/xor on one 8-word array; exact",
            SRC,
            "_Z14atomic_int_opsPiPKii",
            N as u32,
            256,
            vec![
                Arg::inout("res", &[0, i32::MAX, i32::MIN, -1, 0, -1, 0, 0], Cmp::Exact),
                Arg::input("in", &r.vec(N, |r| r.next_u32() as i32)),
                Arg::i32("n", n),
            ],
            |c| {
                let v = c.input::<i32>("in");
                let u: Vec<u32> = v.iter().map(|x| *x as u32).collect();
                let res = [
                    v.iter().fold(0i32, |s, x| s.wrapping_add(*x)),
                    *v.iter().min().expect("n > 0"),
                    *v.iter().max().expect("n > 0"),
                    *u.iter().min().expect("n > 0") as i32,
                    *u.iter().max().expect("n > 0") as i32,
                    u.iter().fold(u32::MAX, |s, x| s & x) as i32,
                    u.iter().fold(0, |s, x| s | x) as i32,
                    u.iter().fold(0, |s, x| s ^ x) as i32,
                ];
                outs([("res", to_bytes(&res))])
            },
        ),
        case(
            "atomic_ticket",
            "atomicAdd return values (tickets form a permutation of 0..n) and wrapping \
             atomic inc (limit 9 -> n % 10 = 3, not the initial 0); grid rounded up past n; \
             exact / permutation",
            SRC,
            "_Z13atomic_ticketPjS_i",
            1024,
            256,
            vec![
                Arg::inout("counter", &[0u32, 0], Cmp::Exact),
                Arg::output("tickets", sz::<u32>(TICKETS), Cmp::Custom(permutation)),
                Arg::i32("n", TICKETS as i32),
            ],
            |c| {
                let n = c.int("n") as u32;
                let t: Vec<u32> = (0..n).collect();
                outs([
                    ("counter", to_bytes(&[n, n % 10])),
                    ("tickets", to_bytes(&t)),
                ])
            },
        ),
        case(
            "atomic_cas_loops",
            "32-bit CAS loop for f32 max, 64-bit CAS loop for a u64 sum, 64-bit atomic add; exact",
            SRC,
            "_Z16atomic_cas_loopsPfPyPKfi",
            N as u32,
            256,
            vec![
                Arg::inout("res_f", &[f32::NEG_INFINITY], Cmp::Exact),
                Arg::inout("sum64", &[0u64, 0], Cmp::Exact),
                Arg::input("in", &r.vec(N, |r| r.f32_in(-100.0, 100.0))),
                Arg::i32("n", n),
            ],
            |c| {
                let v = c.input::<f32>("in");
                let max = v.iter().fold(f32::NEG_INFINITY, |m, x| m.max(*x));
                let s0 = v
                    .iter()
                    .fold(0u64, |s, x| s.wrapping_add(u64::from(x.to_bits())));
                let s1 = (0..v.len() as u64).fold(0u64, |s, i| s + i * i);
                outs([("res_f", to_bytes(&[max])), ("sum64", to_bytes(&[s0, s1]))])
            },
        ),
        case(
            "atomic_fadd",
            "f32 and f64 atomic add of integer-valued inputs (sums exact in any order); exact",
            SRC,
            "_Z11atomic_faddPfPdPKfi",
            N as u32,
            256,
            vec![
                Arg::inout("accf", &[0f32; 4], Cmp::Exact),
                Arg::inout("accd", &[0f64; 2], Cmp::Exact),
                Arg::input("in", &r.vec(N, |r| r.range_i32(-50, 50) as f32)),
                Arg::i32("n", n),
            ],
            |c| {
                let v = c.input::<f32>("in");
                let mut f = [0f32; 4];
                let mut d = [0f64; 2];
                for (i, x) in v.iter().enumerate() {
                    f[i & 3] += x;
                    d[i & 1] += f64::from(*x) * 1024.0;
                }
                outs([("accf", to_bytes(&f)), ("accd", to_bytes(&d))])
            },
        ),
        case(
            "histogram_lds",
            "LDS atomic histogram (37 bins) + LDS min/max, merged with global atomics; grid \
             rounded up to whole workgroups; exact",
            SRC,
            "_Z13histogram_ldsPjS_PKjii",
            1024,
            256,
            vec![
                Arg::inout("hist", &[0u32; 64], Cmp::Exact),
                Arg::inout("gminmax", &[u32::MAX, 0], Cmp::Exact),
                Arg::input("in", &r.vec(N, |r| r.next_u32())),
                Arg::i32("n", n),
                Arg::i32("nbins", 37),
            ],
            |c| {
                let v = c.input::<u32>("in");
                let nb = c.int("nbins") as u32;
                let mut h = [0u32; 64];
                for x in &v {
                    h[(x % nb) as usize] += 1;
                }
                let mm = [
                    *v.iter().min().expect("n > 0"),
                    *v.iter().max().expect("n > 0"),
                ];
                outs([("hist", to_bytes(&h)), ("gminmax", to_bytes(&mm))])
            },
        ),
    ]
}

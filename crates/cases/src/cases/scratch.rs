//! k_scratch.hip: recursion, stack arrays and dynamically indexed private
//! arrays (scratch). Recursion depth varies per lane; the deepest call chains
//! are about 16 frames (ackermann(3, 1), ackermann(2, 5), fib(15)), kept
//! small so real GPUs' default per-lane stack suffices.

use super::{case, outs, sz};
use crate::data::{to_bytes, Prng};
use crate::{Arg, Case, Cmp};

const SRC: &[&str] = &["k_scratch.hip"];

fn rec_mix(depth: i32, seed: u32) -> u32 {
    let mut arr = [0u32; 8];
    for (j, a) in arr.iter_mut().enumerate() {
        *a = seed.wrapping_mul(2 * j as u32 + 1).wrapping_add(seed >> j);
    }
    if depth == 0 {
        return arr[(seed & 7) as usize];
    }
    let r = rec_mix(depth - 1, arr[((seed >> 3) & 7) as usize] ^ depth as u32);
    arr[(r & 7) as usize] = arr[(r & 7) as usize].wrapping_add(r);
    arr[((r >> 3) & 7) as usize] ^ arr[(r & 7) as usize]
}

fn fib(k: u32) -> u32 {
    if k < 2 {
        k
    } else {
        fib(k - 1) + fib(k - 2)
    }
}

fn ackermann(m: i32, n: i32) -> i32 {
    if m == 0 {
        n + 1
    } else if n == 0 {
        ackermann(m - 1, 1)
    } else {
        ackermann(m - 1, ackermann(m, n - 1))
    }
}

pub(super) fn cases() -> Vec<Case> {
    let mut r = Prng::new(0x5C7);
    let (n_rec, n_ack, n_arr, n_sort) = (300usize, 200usize, 200usize, 100usize);
    let ms = r.vec(n_ack, |r| r.range_i32(0, 3));
    let ns: Vec<i32> = ms
        .iter()
        .map(|&m| match m {
            0 => r.range_i32(0, 100),
            1 => r.range_i32(0, 12),
            2 => r.range_i32(0, 5),
            _ => r.range_i32(0, 1),
        })
        .collect();
    vec![
        case(
            "recursion_mix",
            "noinline recursion with an 8-word array per frame (depth in % 10) and naive \
             recursive fib (in % 16); divergent depths; exact",
            SRC,
            "_Z13recursion_mixPjPKji",
            n_rec as u32,
            64,
            vec![
                Arg::output("out", sz::<u32>(2 * n_rec), Cmp::Exact),
                Arg::input("in", &r.vec(n_rec, |r| r.next_u32())),
                Arg::i32("n", n_rec as i32),
            ],
            |c| {
                let mut out = Vec::new();
                for x in c.input::<u32>("in") {
                    out.extend([rec_mix((x % 10) as i32, x), fib(x % 16)]);
                }
                outs([("out", to_bytes(&out))])
            },
        ),
        case(
            "ackermann",
            "Ackermann function A(m, n), m <= 3, by noinline recursion with per-lane depth; exact",
            SRC,
            "_Z16ackermann_kernelPiPKiS1_i",
            n_ack as u32,
            64,
            vec![
                Arg::output("out", sz::<i32>(n_ack), Cmp::Exact),
                Arg::input("m", &ms),
                Arg::input("nv", &ns),
                Arg::i32("n", n_ack as i32),
            ],
            |c| {
                let (m, n) = (c.input::<i32>("m"), c.input::<i32>("nv"));
                let out: Vec<i32> = m.iter().zip(&n).map(|(m, n)| ackermann(*m, *n)).collect();
                outs([("out", to_bytes(&out))])
            },
        ),
        case(
            "local_array_dyn",
            "200-word private array with data-dependent read-modify-write indices (scratch); exact",
            SRC,
            "_Z15local_array_dynPjPKjS1_ii",
            n_arr as u32,
            64,
            vec![
                Arg::output("out", sz::<u32>(n_arr), Cmp::Exact),
                Arg::input("in", &r.vec(n_arr, |r| r.next_u32())),
                Arg::input("idx", &r.vec(64, |r| r.next_u32() % 1000)),
                Arg::i32("n", n_arr as i32),
                Arg::i32("nidx", 64),
            ],
            |c| {
                let idx = c.input::<u32>("idx");
                let out: Vec<u32> = c
                    .input::<u32>("in")
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| {
                        let i = i as u32;
                        let mut arr: Vec<u32> = (0..200u32)
                            .map(|j| s.wrapping_mul(j).wrapping_add(j ^ i))
                            .collect();
                        for (k, &d) in idx.iter().enumerate() {
                            let a = (d.wrapping_add(i) % 200) as usize;
                            let b = ((k as u32 * 7 + i) % 200) as usize;
                            arr[a] = arr[a].wrapping_add(arr[b] ^ k as u32);
                        }
                        arr.iter()
                            .fold(0u32, |h, x| h.wrapping_mul(31).wrapping_add(*x))
                    })
                    .collect();
                outs([("out", to_bytes(&out))])
            },
        ),
        case(
            "sort_local",
            "recursive quicksort of a 24-int private array passed by pointer (flat access \
             to scratch); exact",
            SRC,
            "_Z10sort_localPiPKii",
            n_sort as u32,
            64,
            vec![
                Arg::output("out", sz::<i32>(24 * n_sort), Cmp::Exact),
                Arg::input("in", &r.vec(24 * n_sort, |r| r.range_i32(-1000, 1000))),
                Arg::i32("n", n_sort as i32),
            ],
            |c| {
                let mut v = c.input::<i32>("in");
                for ch in v.chunks_mut(24) {
                    ch.sort_unstable();
                }
                outs([("out", to_bytes(&v))])
            },
        ),
    ]
}

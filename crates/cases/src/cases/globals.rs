//! k_globals.hip: __device__, __constant__ and __managed__ variables, read
//! back after the run (each run starts from a freshly loaded code object).

use super::{case, outs, sz};
use crate::data::to_bytes;
use crate::{Arg, Case, Cmp, Global};

const SRC: &[&str] = &["k_globals.hip"];
const TABLE: [i32; 32] = [
    3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5,
];
const N: usize = 300;

pub(super) fn cases() -> Vec<Case> {
    let n = N as i32;
    vec![
        Case {
            globals: vec![
                Global {
                    symbol: "kg_results",
                    managed: false,
                    size: 256,
                    cmp: Cmp::Exact,
                },
                Global {
                    symbol: "kg_counter",
                    managed: false,
                    size: 4,
                    cmp: Cmp::Exact,
                },
                Global {
                    symbol: "kg_managed",
                    managed: true,
                    size: 4,
                    cmp: Cmp::Exact,
                },
            ],
            ..case(
                "globals_kernel",
                "reads an initialised __constant__ table and __device__ scalar, writes a \
                 __device__ array, atomically updates a __device__ counter and a __managed__ \
                 int (initially 100); exact",
                SRC,
                "_Z14globals_kernelPii",
                N as u32,
                128,
                vec![
                    Arg::output("out", sz::<i32>(N), Cmp::Exact),
                    Arg::i32("n", n),
                ],
                |c| {
                    let n = c.int("n") as usize;
                    let out: Vec<i32> = (0..n).map(|i| TABLE[i % 32] * 7 + i as i32).collect();
                    let mut res = [0i32; 64];
                    for (i, r) in res.iter_mut().enumerate().take(n) {
                        *r = out[i] * 2;
                    }
                    let managed = 100 + (0..n as i32).map(|i| i % 3).sum::<i32>();
                    outs([
                        ("out", to_bytes(&out)),
                        ("kg_results", to_bytes(&res)),
                        ("kg_counter", to_bytes(&[n as u32])),
                        ("kg_managed", to_bytes(&[managed])),
                    ])
                },
            )
        },
        Case {
            globals: vec![Global {
                symbol: "kg_last",
                managed: false,
                size: 16,
                cmp: Cmp::Exact,
            }],
            ..case(
                "globals_struct",
                "reads a __constant__ struct {float, int, double}: f = a*i + b (f32, two \
                 roundings), out = (double)f * c; writes an initialised __device__ float[4]; exact",
                SRC,
                "_Z14globals_structPdi",
                N as u32,
                128,
                vec![
                    Arg::output("out", sz::<f64>(N), Cmp::Exact),
                    Arg::i32("n", n),
                ],
                |c| {
                    let n = c.int("n") as usize;
                    let f = |i: usize| 1.5f32 * i as f32 + -3.0f32;
                    let out: Vec<f64> = (0..n).map(|i| f64::from(f(i)) * 0.25).collect();
                    let last: Vec<f32> = (0..4).map(|k| f(n - 1) + k as f32).collect();
                    outs([("out", to_bytes(&out)), ("kg_last", to_bytes(&last))])
                },
            )
        },
    ]
}

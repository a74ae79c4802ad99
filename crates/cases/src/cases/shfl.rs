//! k_shfl.hip: wave64 cross-lane operations (ds_bpermute shuffles, readlane,
//! ballot). The grid is whole waves (1024 work-items, 256 per workgroup);
//! inputs past n = 1000 read as 0 (or -1 for wave_rotate).

use super::{case, outs, sz};
use crate::data::{to_bytes, Prng};
use crate::{Arg, Case, Cmp};

const SRC: &[&str] = &["k_shfl.hip"];
const N: usize = 1000;
const GRID: usize = 1024;

/// Inputs padded to the whole grid with `pad`.
fn padded<T: Copy>(v: &[T], pad: T) -> Vec<T> {
    let mut p = v.to_vec();
    p.resize(GRID, pad);
    p
}

pub(super) fn cases() -> Vec<Case> {
    let mut r = Prng::new(0x5F1);
    let n = N as i32;
    let g = GRID as u32;
    vec![
        case(
            "wave_sum_xor_f32",
            "butterfly f32 sum via shfl_xor (ds_bpermute), offsets 32,16,8,4,2,1, \
             v = v + v[lane ^ off]; every lane's own rounding reproduced; exact",
            SRC,
            "_Z16wave_sum_xor_f32PfPKfi",
            g,
            256,
            vec![
                Arg::output("out", sz::<f32>(GRID), Cmp::Exact),
                Arg::input("in", &r.vec(N, |r| r.f32_in(-1.0, 1.0))),
                Arg::i32("n", n),
            ],
            |c| {
                let v = padded(&c.input::<f32>("in"), 0.0);
                let mut out = Vec::new();
                for w in v.chunks(64) {
                    let mut x = w.to_vec();
                    for off in [32, 16, 8, 4, 2, 1] {
                        x = (0..64).map(|l| x[l] + x[l ^ off]).collect();
                    }
                    out.extend(x);
                }
                outs([("out", to_bytes(&out))])
            },
        ),
        case(
            "wave_scan_i32",
            "inclusive wave prefix sum with shfl_up (Hillis-Steele); exact",
            SRC,
            "_Z13wave_scan_i32PiPKii",
            g,
            256,
            vec![
                Arg::output("out", sz::<i32>(GRID), Cmp::Exact),
                Arg::input("in", &r.vec(N, |r| r.next_u32() as i32)),
                Arg::i32("n", n),
            ],
            |c| {
                outs([(
                    "out",
                    to_bytes(&wave_scan(&padded(&c.input::<i32>("in"), 0))),
                )])
            },
        ),
        case(
            "wave_max_readlane",
            "wave max through 64 v_readlane_b32, plus lane 17 broadcast; exact",
            SRC,
            "_Z17wave_max_readlanePiPKii",
            g,
            256,
            vec![
                Arg::output("out", sz::<i32>(GRID), Cmp::Exact),
                Arg::input("in", &r.vec(N, |r| r.range_i32(-1_000_000, 1_000_000))),
                Arg::i32("n", n),
            ],
            |c| {
                let v = padded(&c.input::<i32>("in"), 0);
                let mut out = Vec::new();
                for w in v.chunks(64) {
                    let m = *w.iter().max().expect("64 lanes");
                    out.extend(w.iter().map(|x| m.wrapping_sub(*x).wrapping_add(w[17])));
                }
                outs([("out", to_bytes(&out))])
            },
        ),
        case(
            "wave_ballot",
            "64-bit ballot of (in & 1) and each lane's rank among set lanes below it; exact",
            SRC,
            "_Z11wave_ballotPyPiPKii",
            g,
            256,
            vec![
                Arg::output("masks", sz::<u64>(GRID / 64), Cmp::Exact),
                Arg::output("rank", sz::<i32>(GRID), Cmp::Exact),
                Arg::input("in", &r.vec(N, |r| r.next_u32() as i32)),
                Arg::i32("n", n),
            ],
            |c| {
                let v = padded(&c.input::<i32>("in"), 0);
                let mut masks = Vec::new();
                let mut rank = Vec::new();
                for w in v.chunks(64) {
                    let m = (0..64).fold(0u64, |m, l| m | (u64::from(w[l] as u32 & 1) << l));
                    masks.push(m);
                    rank.extend((0..64).map(|l| (m & ((1u64 << l) - 1)).count_ones() as i32));
                }
                outs([("masks", to_bytes(&masks)), ("rank", to_bytes(&rank))])
            },
        ),
        case(
            "wave_rotate",
            "ds_bpermute gather: lane l reads lane (l + 5*block + 1) % 64; exact",
            SRC,
            "_Z11wave_rotatePiPKii",
            g,
            256,
            vec![
                Arg::output("out", sz::<i32>(GRID), Cmp::Exact),
                Arg::input("in", &r.vec(N, |r| r.next_u32() as i32)),
                Arg::i32("n", n),
            ],
            |c| {
                let v = padded(&c.input::<i32>("in"), -1);
                let out: Vec<i32> = (0..GRID)
                    .map(|i| {
                        let rot = (i / 256) * 5 + 1;
                        let base = i & !63;
                        v[base + ((i % 64) + rot) % 64]
                    })
                    .collect();
                outs([("out", to_bytes(&out))])
            },
        ),
        case(
            "wave_swizzle",
            "ds_swizzle_b32 patterns QUAD_PERM(3,2,1,0), BITMASK_PERM lane^5, \
             BROADCAST(8,3), SWAP(16), REVERSE(32), all lanes active; exact",
            SRC,
            "_Z12wave_swizzlePiPKi",
            g,
            256,
            vec![
                Arg::output("out", sz::<i32>(5 * GRID), Cmp::Exact),
                Arg::input("in", &r.vec(GRID, |r| r.next_u32() as i32)),
            ],
            |c| {
                let v = c.input::<i32>("in");
                let mut out = Vec::with_capacity(5 * GRID);
                for i in 0..GRID {
                    let (base, lane) = (i & !63, i % 64);
                    let src = [
                        (lane & !3) | (3 - (lane & 3)),
                        lane ^ 5,
                        (lane & !7) | 3,
                        lane ^ 16,
                        (lane & 32) | (31 - (lane & 31)),
                    ];
                    out.extend(src.iter().map(|s| v[base + s]));
                }
                outs([("out", to_bytes(&out))])
            },
        ),
    ]
}

/// Inclusive prefix sums (wrapping) within each wave of 64.
pub(super) fn wave_scan(v: &[i32]) -> Vec<i32> {
    let mut out = Vec::new();
    for w in v.chunks(64) {
        let mut s = 0i32;
        out.extend(w.iter().map(|x| {
            s = s.wrapping_add(*x);
            s
        }));
    }
    out
}

//! k_dpp.hip: DPP on wave64 (GFX9 encodings). All lanes active.
//!
//! DPP semantics assumed (GFX9 ISA): lane l reads lane src(l); if src(l) is
//! out of the row / wave, the lane gets 0 with bound_ctrl and keeps `old`
//! without it; lanes in a row disabled by row_mask or a bank ((l % 16) / 4)
//! disabled by bank_mask keep `old`.

use super::{case, outs, sz};
use crate::data::{to_bytes, Prng};
use crate::{Arg, Case, Cmp};

const SRC: &[&str] = &["k_dpp.hip"];
const N: usize = 1000;
const GRID: usize = 1024;
/// dpp_patterns: work-items (= stride between patterns in `out`).
const PGRID: usize = 256;

/// A DPP source selector: `Some(src lane)` or `None` (out of range).
#[derive(Clone, Copy)]
enum Ctrl {
    QuadPerm([usize; 4]),
    RowShl(usize),
    RowShr(usize),
    RowRor(usize),
    WaveShl1,
    WaveRol1,
    WaveShr1,
    WaveRor1,
    RowMirror,
    RowHalfMirror,
    RowBcast15,
    RowBcast31,
}

fn src_lane(c: Ctrl, l: usize) -> Option<usize> {
    let row = l & !15;
    let p = l % 16;
    match c {
        Ctrl::QuadPerm(s) => Some((l & !3) + s[l % 4]),
        Ctrl::RowShl(n) => (p + n < 16).then_some(l + n),
        Ctrl::RowShr(n) => (p >= n).then(|| l - n),
        Ctrl::RowRor(n) => Some(row + (p + 16 - n) % 16),
        Ctrl::WaveShl1 => (l < 63).then_some(l + 1),
        Ctrl::WaveRol1 => Some((l + 1) % 64),
        Ctrl::WaveShr1 => (l > 0).then(|| l - 1),
        Ctrl::WaveRor1 => Some((l + 63) % 64),
        Ctrl::RowMirror => Some(row + 15 - p),
        Ctrl::RowHalfMirror => Some((l & !7) + 7 - l % 8),
        Ctrl::RowBcast15 => (l >= 16).then(|| row - 1),
        Ctrl::RowBcast31 => (l >= 32).then_some(31),
    }
}

/// update_dpp(old, src, ctrl, row_mask, bank_mask, bound_ctrl) on one wave.
fn dpp(old: &[u32], src: &[u32], c: Ctrl, row_mask: u32, bank_mask: u32, bc: bool) -> Vec<u32> {
    (0..64)
        .map(|l| {
            let enabled = row_mask >> (l / 16) & 1 == 1 && bank_mask >> ((l % 16) / 4) & 1 == 1;
            if !enabled {
                return old[l];
            }
            match src_lane(c, l) {
                Some(s) => src[s],
                None if bc => 0,
                None => old[l],
            }
        })
        .collect()
}

/// The 15 patterns of dpp_patterns, in kernel order.
const PATTERNS: [(Ctrl, u32, u32, bool); 15] = [
    (Ctrl::QuadPerm([1, 0, 3, 2]), 0xf, 0xf, false),
    (Ctrl::QuadPerm([3, 3, 0, 1]), 0xf, 0xf, false),
    (Ctrl::RowShl(3), 0xf, 0xf, true),
    (Ctrl::RowShr(5), 0xf, 0xf, false),
    (Ctrl::RowRor(5), 0xf, 0xf, false),
    (Ctrl::RowMirror, 0xf, 0xf, false),
    (Ctrl::RowHalfMirror, 0xf, 0xf, false),
    (Ctrl::WaveShl1, 0xf, 0xf, false),
    (Ctrl::WaveRol1, 0xf, 0xf, false),
    (Ctrl::WaveShr1, 0xf, 0xf, true),
    (Ctrl::WaveRor1, 0xf, 0xf, false),
    (Ctrl::RowBcast15, 0xa, 0xf, false),
    (Ctrl::RowBcast31, 0xc, 0xf, false),
    (Ctrl::RowShr(1), 0x5, 0x3, true),
    (Ctrl::RowRor(1), 0xf, 0xf, true), // mov_dpp
];

pub(super) fn cases() -> Vec<Case> {
    let mut r = Prng::new(0xD99);
    let n = N as i32;
    vec![
        case(
            "dpp_scan_i32",
            "wave inclusive scan: row_shr 1/2/4/8, row_bcast:15 (rows 1,3), row_bcast:31 \
             (rows 2,3); exact",
            SRC,
            "_Z12dpp_scan_i32PiPKii",
            GRID as u32,
            256,
            vec![
                Arg::output("out", sz::<i32>(GRID), Cmp::Exact),
                Arg::input("in", &r.vec(N, |r| r.next_u32() as i32)),
                Arg::i32("n", n),
            ],
            |c| {
                let mut v = c.input::<i32>("in");
                v.resize(GRID, 0);
                outs([("out", to_bytes(&super::shfl::wave_scan(&v)))])
            },
        ),
        case(
            "dpp_patterns",
            "every GFX9 DPP control (quad_perm, row_shl/shr/ror, wave_shl/rol/shr/ror, \
             row_mirror, row_half_mirror, row_bcast15/31) with bound_ctrl and row/bank \
             masks, old = 0xDEAD0000|lane; exact",
            SRC,
            "_Z12dpp_patternsPjPKji",
            PGRID as u32,
            128,
            vec![
                Arg::output("out", sz::<u32>(15 * PGRID), Cmp::Exact),
                Arg::input("in", &r.vec(PGRID, |r| r.next_u32())),
                Arg::i32("stride", PGRID as i32),
            ],
            |c| {
                let v = c.input::<u32>("in");
                let mut out = vec![0u32; 15 * PGRID];
                let old: Vec<u32> = (0..64).map(|l| 0xDEAD_0000 | l).collect();
                for (p, &(ctrl, rm, bm, bc)) in PATTERNS.iter().enumerate() {
                    for (w, src) in v.chunks(64).enumerate() {
                        let res = dpp(&old, src, ctrl, rm, bm, bc);
                        out[p * PGRID + w * 64..][..64].copy_from_slice(&res);
                    }
                }
                outs([("out", to_bytes(&out))])
            },
        ),
        case(
            "dpp_row_scan_f32",
            "per-row f32 inclusive scan, v = v + dpp(v, row_shr k) for k = 1,2,4,8 with \
             bound_ctrl (invalid lanes read +0.0); every lane's rounding reproduced; exact",
            SRC,
            "_Z16dpp_row_scan_f32PfPKfi",
            GRID as u32,
            256,
            vec![
                Arg::output("out", sz::<f32>(GRID), Cmp::Exact),
                Arg::input("in", &r.vec(N, |r| r.f32_in(-1.0, 1.0))),
                Arg::i32("n", n),
            ],
            |c| {
                let mut v = c.input::<f32>("in");
                v.resize(GRID, 0.0);
                let mut out = Vec::new();
                for w in v.chunks(64) {
                    let mut x = w.to_vec();
                    for k in [1, 2, 4, 8] {
                        x = (0..64)
                            .map(|l| x[l] + if l % 16 >= k { x[l - k] } else { 0.0 })
                            .collect();
                    }
                    out.extend(x);
                }
                outs([("out", to_bytes(&out))])
            },
        ),
    ]
}

//! k_grid.hip: 2D and 3D grids with partial workgroups in every dimension.

use super::{case, outs, sz};
use crate::data::{to_bytes, Prng};
use crate::{Arg, Case, Cmp};

const SRC: &[&str] = &["k_grid.hip"];
const W2: usize = 70;
const H2: usize = 45;
const W3: usize = 13;
const H3: usize = 7;
const D3: usize = 5;

pub(super) fn cases() -> Vec<Case> {
    let mut r = Prng::new(0x6D);
    vec![
        Case {
            grid: [W2 as u32, H2 as u32, 1],
            block: [16, 8, 1],
            ..case(
                "grid2d_stencil",
                "70x45 grid of 16x8 workgroups (partial in x and y), 5-point f32 stencil \
                 ((((4c - l) - r) - u) - d) with clamped edges; exact",
                SRC,
                "_Z14grid2d_stencilPfPKfii",
                0,
                0,
                vec![
                    Arg::output("out", sz::<f32>(W2 * H2), Cmp::Exact),
                    Arg::input("in", &r.vec(W2 * H2, |r| r.f32_in(-10.0, 10.0))),
                    Arg::i32("w", W2 as i32),
                    Arg::i32("h", H2 as i32),
                ],
                |c| {
                    let v = c.input::<f32>("in");
                    let mut out = vec![0f32; W2 * H2];
                    for y in 0..H2 {
                        for x in 0..W2 {
                            let at = |x: usize, y: usize| v[y * W2 + x];
                            let (xl, xr) = (x.saturating_sub(1), (x + 1).min(W2 - 1));
                            let (yu, yd) = (y.saturating_sub(1), (y + 1).min(H2 - 1));
                            out[y * W2 + x] = ((((4.0 * at(x, y)) - at(xl, y)) - at(xr, y))
                                - at(x, yu))
                                - at(x, yd);
                        }
                    }
                    outs([("out", to_bytes(&out))])
                },
            )
        },
        Case {
            grid: [W3 as u32, H3 as u32, D3 as u32],
            block: [4, 4, 2],
            ..case(
                "grid3d_ids",
                "13x7x5 grid of 4x4x2 workgroups (partial in x, y and z): packed workitem and \
                 workgroup ids per point, plus neighbour reads and blockDim; exact",
                SRC,
                "_Z10grid3d_idsPjPiPKiiii",
                0,
                0,
                vec![
                    Arg::output("ids", sz::<u32>(W3 * H3 * D3), Cmp::Exact),
                    Arg::output("vals", sz::<i32>(W3 * H3 * D3), Cmp::Exact),
                    Arg::input("in", &r.vec(W3 * H3 * D3, |r| r.range_i32(-1000, 1000))),
                    Arg::i32("w", W3 as i32),
                    Arg::i32("h", H3 as i32),
                    Arg::i32("d", D3 as i32),
                ],
                |c| {
                    let v = c.input::<i32>("in");
                    let mut ids = vec![0u32; W3 * H3 * D3];
                    let mut vals = vec![0i32; W3 * H3 * D3];
                    for z in 0..D3 {
                        for y in 0..H3 {
                            for x in 0..W3 {
                                let p = (z * H3 + y) * W3 + x;
                                let (tx, ty, tz) = (x % 4, y % 4, z % 2);
                                let (bx, by, bz) = (x / 4, y / 4, z / 2);
                                ids[p] = (tx | ty << 4 | tz << 8 | bx << 12 | by << 18 | bz << 24)
                                    as u32;
                                let zn = (z + 1) % D3;
                                vals[p] = v[p]
                                    .wrapping_mul(x as i32 + 1)
                                    .wrapping_add(v[(zn * H3 + y) * W3 + x])
                                    .wrapping_add(100 * 4 + 10 * 4 + 2);
                            }
                        }
                    }
                    outs([("ids", to_bytes(&ids)), ("vals", to_bytes(&vals))])
                },
            )
        },
    ]
}

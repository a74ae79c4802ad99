//! Register lanes as cells, and the lane loops every vector µop runs
//! through ([`apply`]: eight lanes at a time, sources read before results
//! are written).

use std::cell::Cell;

use super::Src;
use crate::wave::{LANES, SGPRS};

/// Lanes of a source.
pub(super) trait Lanes: Copy {
    fn at(self, l: usize) -> u32;
}

impl Lanes for &[Cell<u32>; LANES] {
    #[inline(always)]
    fn at(self, l: usize) -> u32 {
        self[l].get()
    }
}

impl Lanes for u32 {
    #[inline(always)]
    fn at(self, _l: usize) -> u32 {
        self
    }
}

/// The lanes of VGPR `r` in the register file viewed as cells (`r` was
/// checked against the file: a miss is a bug, and panics).
#[inline(always)]
pub(super) fn reg(cells: &[Cell<u32>], r: usize) -> &[Cell<u32>; LANES] {
    cells[r * LANES..(r + 1) * LANES]
        .try_into()
        .expect("a whole register")
}

/// The value of a scalar or constant source (`S` numbers below
/// [`SGPRS`], checked at decode).
#[inline(always)]
pub(super) fn splat(sg: &[u32; SGPRS], s: Src) -> u32 {
    match s {
        Src::S(r) => sg[usize::from(r)],
        Src::K(k) => k,
        Src::V(_) => 0,
    }
}

/// `d[l] = f(l)` for every lane, eight lanes at a time: each group's
/// sources are read before its results are written, so `d` may be a
/// source.
#[inline(always)]
pub(super) fn apply(d: &[Cell<u32>; LANES], f: impl Fn(usize) -> u32) {
    let mut c = 0;
    while c < LANES {
        let mut r = [0u32; 8];
        for (i, x) in r.iter_mut().enumerate() {
            *x = f(c + i);
        }
        for (i, x) in r.into_iter().enumerate() {
            d[c + i].set(x);
        }
        c += 8;
    }
}

/// [`apply`], with the lanes whose result is a NaN recomputed by `fix`
/// (from the same, not yet overwritten, sources).
#[inline(always)]
pub(super) fn apply_nan(
    d: &[Cell<u32>; LANES],
    f: impl Fn(usize) -> u32,
    fix: impl Fn(usize) -> u32,
) {
    let mut c = 0;
    while c < LANES {
        let mut r = [0u32; 8];
        for (i, x) in r.iter_mut().enumerate() {
            *x = f(c + i);
        }
        // Branch-free, so the check stays a vector compare.
        let mut nan = 0u32;
        for x in r {
            nan |= u32::from(x & 0x7fff_ffff > 0x7f80_0000);
        }
        if nan != 0 {
            for (i, x) in r.iter_mut().enumerate() {
                if *x & 0x7fff_ffff > 0x7f80_0000 {
                    *x = fix(c + i);
                }
            }
        }
        for (i, x) in r.into_iter().enumerate() {
            d[c + i].set(x);
        }
        c += 8;
    }
}

/// Expands `$body` once per combination of resolved source kinds, with
/// each `$x` bound to the lanes of its source.
macro_rules! kinds {
    ($cells:expr, $sg:expr, [$($s:expr => $x:ident),*], $body:expr) => {
        kinds!(@ $cells, $sg, [$($s => $x),*], [], $body)
    };
    (@ $cells:expr, $sg:expr, [], [$($done:tt)*], $body:expr) => {{
        $($done)*
        $body
    }};
    (@ $cells:expr, $sg:expr, [$s:expr => $x:ident $(, $rs:expr => $rx:ident)*], [$($done:tt)*], $body:expr) => {
        match $s {
            Src::V(r) => kinds!(@ $cells, $sg, [$($rs => $rx),*],
                [$($done)* let $x = reg($cells, usize::from(r));], $body),
            s => kinds!(@ $cells, $sg, [$($rs => $rx),*],
                [$($done)* let $x = splat($sg, s);], $body),
        }
    };
}

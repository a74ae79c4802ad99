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

/// The lanes of a sparse EXEC in turn (lowest first): `on` is EXEC when
/// [`super::exec`] chose the sparse form of a µop, `u64::MAX` otherwise.
#[inline(always)]
pub(super) fn each_on(on: u64, mut g: impl FnMut(usize)) {
    let mut m = on;
    while m != 0 {
        g(m.trailing_zeros() as usize);
        m &= m - 1;
    }
}

/// `d[l] = f(l)` for every lane, eight lanes at a time: each group's
/// sources are read before its results are written, so `d` may be a
/// source. Under a sparse EXEC (`on` not `u64::MAX`) only the lanes of
/// `on`, one at a time (each lane's sources are its own, read before its
/// result is written), and the others are left as they were.
#[inline(always)]
pub(super) fn apply(d: &[Cell<u32>; LANES], on: u64, f: impl Fn(usize) -> u32) {
    if on != u64::MAX {
        each_on(on, |l| d[l].set(f(l)));
        return;
    }
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

/// Whether `x` is an f32 NaN.
#[inline(always)]
fn nan32(x: u32) -> bool {
    x & 0x7fff_ffff > 0x7f80_0000
}

/// [`apply`], with the lanes whose result is a NaN recomputed by `fix`
/// (from the same, not yet overwritten, sources).
#[inline(always)]
pub(super) fn apply_nan(
    d: &[Cell<u32>; LANES],
    on: u64,
    f: impl Fn(usize) -> u32,
    fix: impl Fn(usize) -> u32,
) {
    if on != u64::MAX {
        each_on(on, |l| {
            let x = f(l);
            d[l].set(if nan32(x) { fix(l) } else { x });
        });
        return;
    }
    let mut c = 0;
    while c < LANES {
        let mut r = [0u32; 8];
        for (i, x) in r.iter_mut().enumerate() {
            *x = f(c + i);
        }
        // Branch-free, so the check stays a vector compare.
        let mut nan = 0u32;
        for x in r {
            nan |= u32::from(nan32(x));
        }
        if nan != 0 {
            for (i, x) in r.iter_mut().enumerate() {
                if nan32(*x) {
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

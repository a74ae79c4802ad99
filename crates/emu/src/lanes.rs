//! Whole-wave lane loops, written so they vectorise, and compiled twice:
//! for baseline x86-64 and for CPUs with AVX2, FMA and F16C, chosen at run
//! time (the shipped binary still runs on any x86-64). On baseline
//! x86-64 `f32::mul_add` is a library call; in the AVX2+FMA clone it is one
//! `vfmadd` per eight lanes.
//!
//! Each loop computes every lane (the operations are pure, so inactive
//! lanes only cost time) and the caller writes the active ones back
//! ([`blend`]), which applies EXEC as a mask instead of a branch per lane.

use multiversion::multiversion;

use crate::wave::{VReg, LANES};

/// A 32-bit source read in place: a register of the wave (or a splatted
/// constant), with sign modifiers as bit masks: element `l` is
/// `(v[l] & and) ^ xor`.
#[derive(Clone, Copy, Debug)]
pub struct Src<'a> {
    /// The lanes.
    pub v: &'a VReg,
    /// `0x7fff_ffff` for `abs`, else all ones.
    pub and: u32,
    /// `0x8000_0000` for `neg`, else 0.
    pub xor: u32,
}

impl<'a> Src<'a> {
    /// `v` with f32 `abs`/`neg` modifiers.
    pub fn f32(v: &'a VReg, abs: bool, neg: bool) -> Src<'a> {
        Src {
            v,
            and: if abs { 0x7fff_ffff } else { u32::MAX },
            xor: if neg { 0x8000_0000 } else { 0 },
        }
    }

    /// Element `l` after the modifiers.
    #[inline(always)]
    pub fn at(&self, l: usize) -> u32 {
        (self.v[l] & self.and) ^ self.xor
    }

    /// Element `l` as an f32, flushed per `fin`.
    #[inline(always)]
    fn f(&self, l: usize, fin: bool) -> f32 {
        f32::from_bits(flush32(fin, self.at(l)))
    }
}

/// Flushes a denormal `f32` (by bits) to a signed zero when `on`.
#[inline(always)]
pub fn flush32(on: bool, b: u32) -> u32 {
    if on && b & 0x7f80_0000 == 0 {
        b & 0x8000_0000
    } else {
        b
    }
}

/// `out[l] = flush(f(a[l]))` for every lane; inputs flushed per `fin`.
#[multiversion(targets("x86_64+avx2+fma+f16c"))]
pub fn map1_f32<'s>(out: &mut VReg, a: Src<'s>, fin: bool, fout: bool, f: impl Fn(f32) -> f32) {
    for (l, o) in out.iter_mut().enumerate() {
        *o = flush32(fout, f(a.f(l, fin)).to_bits());
    }
}

/// `out[l] = flush(f(a[l], b[l]))` for every lane.
#[multiversion(targets("x86_64+avx2+fma+f16c"))]
pub fn map2_f32<'s>(
    out: &mut VReg,
    a: Src<'s>,
    b: Src<'s>,
    fin: bool,
    fout: bool,
    f: impl Fn(f32, f32) -> f32,
) {
    for (l, o) in out.iter_mut().enumerate() {
        *o = flush32(fout, f(a.f(l, fin), b.f(l, fin)).to_bits());
    }
}

/// `out[l] = flush(f(a[l], b[l], c[l]))` for every lane.
#[allow(clippy::too_many_arguments)]
#[multiversion(targets("x86_64+avx2+fma+f16c"))]
pub fn map3_f32<'s>(
    out: &mut VReg,
    a: Src<'s>,
    b: Src<'s>,
    c: Src<'s>,
    fin: bool,
    fout: bool,
    f: impl Fn(f32, f32, f32) -> f32,
) {
    for (l, o) in out.iter_mut().enumerate() {
        *o = flush32(fout, f(a.f(l, fin), b.f(l, fin), c.f(l, fin)).to_bits());
    }
}

/// `out[l] = f(a[l])` for every lane.
#[multiversion(targets("x86_64+avx2"))]
pub fn map1_u32(out: &mut VReg, a: &VReg, f: impl Fn(u32) -> u32) {
    for l in 0..LANES {
        out[l] = f(a[l]);
    }
}

/// `out[l] = f(a[l], b[l])` for every lane.
#[multiversion(targets("x86_64+avx2"))]
pub fn map2_u32(out: &mut VReg, a: &VReg, b: &VReg, f: impl Fn(u32, u32) -> u32) {
    for l in 0..LANES {
        out[l] = f(a[l], b[l]);
    }
}

/// `out[l] = f(a[l], b[l], c[l])` for every lane.
#[multiversion(targets("x86_64+avx2"))]
pub fn map3_u32(out: &mut VReg, a: &VReg, b: &VReg, c: &VReg, f: impl Fn(u32, u32, u32) -> u32) {
    for l in 0..LANES {
        out[l] = f(a[l], b[l], c[l]);
    }
}

macro_rules! host_f32 {
    ($(#[$doc:meta])* $name:ident, |$a:ident, $b:ident, $c:ident| $e:expr) => {
        $(#[$doc])*
        ///
        /// Inputs are flushed per `fin`, results per `fout`. Returns
        /// whether any result is a NaN: the caller recomputes those
        /// elements with the reference implementation, which picks the NaN
        /// the hardware returns. Under nearest-even rounding every other
        /// element is bit-identical to the reference.
        #[multiversion(targets("x86_64+avx2+fma+f16c"))]
        pub fn $name<'s>(out: &mut VReg, a: Src<'s>, b: Src<'s>, c: Src<'s>, fin: bool, fout: bool) -> bool {
            let mut nan = false;
            for (l, o) in out.iter_mut().enumerate() {
                let ($a, $b, $c) = (a.f(l, fin), b.f(l, fin), c.f(l, fin));
                let r: f32 = $e;
                nan |= r.is_nan();
                *o = flush32(fout, r.to_bits());
            }
            nan
        }
    };
}

host_f32!(
    /// Element-wise f32 `a * b + c`, one rounding (hardware FMA when the CPU has it).
    fma_f32, |a, b, c| a.mul_add(b, c)
);
host_f32!(
    /// Element-wise f32 `a * b` (`c` unused).
    mul_f32, |a, b, _c| a * b
);
host_f32!(
    /// Element-wise f32 `a + b` (`c` unused).
    add_f32, |a, b, _c| a + b
);

/// Writes `vals` into `dst` in the lanes set in `exec`.
#[inline]
pub fn blend(dst: &mut VReg, vals: &VReg, exec: u64) {
    if exec == u64::MAX {
        *dst = *vals;
    } else {
        blend_partial(dst, vals, exec);
    }
}

/// [`blend`] under a partial EXEC: a per-lane select, vectorised (the
/// per-lane shifts of the mask need AVX2 to run as vector instructions).
#[multiversion(targets("x86_64+avx2"))]
fn blend_partial(dst: &mut VReg, vals: &VReg, exec: u64) {
    for (l, (d, v)) in dst.iter_mut().zip(vals).enumerate() {
        let m = 0u32.wrapping_sub((exec >> l) as u32 & 1);
        *d = (*v & m) | (*d & !m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fma_is_fused_in_every_clone() {
        // 1 + 2^-23 squared minus (1 + 2^-22): fused keeps 2^-46, unfused
        // rounds the product and gives 0.
        let x = f32::from_bits(0x3f80_0001);
        let a = [x.to_bits(); LANES];
        // -(1 + 2^-22) as +(1 + 2^-22) with the neg modifier.
        let c = [0x3f80_0002; LANES];
        let (sa, sc) = (Src::f32(&a, false, false), Src::f32(&c, false, true));
        let mut out = [0u32; LANES];
        map3_f32(&mut out, sa, sa, sc, false, false, |a, b, c| {
            a.mul_add(b, c)
        });
        assert!(out.iter().all(|&r| f32::from_bits(r) == 2f32.powi(-46)));
        let mut out = [0u32; LANES];
        assert!(!fma_f32(&mut out, sa, sa, sc, false, false));
        assert!(out.iter().all(|&r| f32::from_bits(r) == 2f32.powi(-46)));
        // inf * 0 is a NaN: reported for the caller's reference path.
        let (inf, zero) = ([0x7f80_0000; LANES], [0; LANES]);
        let (si, sz) = (Src::f32(&inf, false, false), Src::f32(&zero, false, false));
        assert!(fma_f32(&mut out, si, sz, sz, false, false));
    }

    #[test]
    fn flush_and_blend() {
        let raw = [0x0000_0001u32; LANES];
        let neg = Src::f32(&raw, false, true);
        assert!((0..LANES).all(|l| neg.f(l, true).to_bits() == 0x8000_0000));
        let plain = Src::f32(&raw, true, false);
        assert!((0..LANES).all(|l| plain.f(l, false).to_bits() == 1));
        let mut d = [7u32; LANES];
        blend(&mut d, &[9; LANES], 0b101);
        assert_eq!(&d[..4], &[9, 7, 9, 7]);
        assert!(d[4..].iter().all(|&x| x == 7));
    }
}

//! The µops of ordinary code beyond fma/shift/add chains: vector
//! compares into a lane mask, `v_cndmask_b32`, integer and f32
//! min/max/med3, conversions, 64-bit integer ops and f64 arithmetic.
//!
//! Each lane's operation is the one in [`crate::alu`] (the predicate
//! tables of `alu::cmp`, the integer ops of `alu::int`, the conversions
//! of `alu::cvt`, `alu::float` for f32 min/max where a NaN or a pair of
//! zeros is involved), or the host operation the general handler uses
//! under the same denormal flushing; nothing here is a second copy of a
//! lane semantic.

use std::cell::Cell;

use multiversion::multiversion;

use super::lanes::{apply, reg, splat, Lanes};
use super::{FOp, Fast, Out, Src};
use crate::alu;
use crate::alu::soft::F32;
use crate::interp::valu::Flush;
use crate::lanes::flush32;
use crate::wave::{Wave, LANES, SGPRS};

/// An SGPR pair's value.
#[inline(always)]
fn pair(sg: &[u32; SGPRS], r: u16) -> u64 {
    let r = usize::from(r);
    u64::from(sg[r]) | u64::from(sg[r + 1]) << 32
}

#[inline(always)]
fn set_pair(sg: &mut [u32; SGPRS], r: u16, v: u64) {
    let r = usize::from(r);
    sg[r] = v as u32;
    sg[r + 1] = (v >> 32) as u32;
}

/// The lanes of a 64-bit source: a VGPR pair, or one value (an SGPR pair
/// or a constant).
#[derive(Clone, Copy)]
enum L64<'a> {
    V(&'a [Cell<u32>; LANES], &'a [Cell<u32>; LANES]),
    K(u64),
}

impl L64<'_> {
    #[inline(always)]
    fn at(self, l: usize) -> u64 {
        match self {
            L64::V(lo, hi) => u64::from(lo[l].get()) | u64::from(hi[l].get()) << 32,
            L64::K(k) => k,
        }
    }
}

/// Source `k` of `f` as 64-bit lanes.
#[inline(always)]
fn src64<'a>(f: &Fast, k: usize, cells: &'a [Cell<u32>], sg: &[u32; SGPRS]) -> L64<'a> {
    match f.src[k] {
        Src::V(r) => {
            let r = usize::from(r);
            L64::V(reg(cells, r), reg(cells, r + 1))
        }
        Src::S(r) => L64::K(pair(sg, r)),
        Src::K(_) => L64::K(f.k64[k]),
    }
}

/// The 32-bit lanes of source `k` as values (one branch per lane; for the
/// µops whose lane work dwarfs it).
#[derive(Clone, Copy)]
enum L32<'a> {
    V(&'a [Cell<u32>; LANES]),
    K(u32),
}

impl Lanes for L32<'_> {
    #[inline(always)]
    fn at(self, l: usize) -> u32 {
        match self {
            L32::V(r) => r[l].get(),
            L32::K(k) => k,
        }
    }
}

#[inline(always)]
fn src32<'a>(f: &Fast, k: usize, cells: &'a [Cell<u32>], sg: &[u32; SGPRS]) -> L32<'a> {
    match f.src[k] {
        Src::V(r) => L32::V(reg(cells, usize::from(r))),
        s => L32::K(splat(sg, s)),
    }
}

/// `d:d+1 = f(l)` for every lane, eight lanes at a time, each group's
/// sources read before its results are written.
#[inline(always)]
fn apply64(d: &[Cell<u32>; LANES], dh: &[Cell<u32>; LANES], f: impl Fn(usize) -> u64) {
    let mut c = 0;
    while c < LANES {
        let mut r = [0u64; 8];
        for (i, x) in r.iter_mut().enumerate() {
            *x = f(c + i);
        }
        for (i, x) in r.into_iter().enumerate() {
            d[c + i].set(x as u32);
            dh[c + i].set((x >> 32) as u32);
        }
        c += 8;
    }
}

/// Which of the orderings less, equal, greater and unordered the
/// compare's predicate accepts (decoded from [`alu::cmp`]'s tables).
#[inline(always)]
fn accepts(f: &Fast) -> [bool; 4] {
    [0, 1, 2, 3].map(|k| f.pred >> k & 1 == 1)
}

/// A lane mask of `c(l)` over the 64 lanes.
#[inline(always)]
fn mask(c: impl Fn(usize) -> bool) -> u64 {
    let mut m = 0u64;
    for l in 0..LANES {
        m |= u64::from(c(l)) << l;
    }
    m
}

/// Vector compares: the orderings of every lane as masks, combined by
/// what the predicate accepts; inactive lanes 0 (as the general handler);
/// the mask to the destination pair, and to EXEC for `v_cmpx`.
fn compare<const FI: bool>(f: &Fast, w: &mut Wave) -> Out {
    let acc = accepts(f);
    let [lt, eq, gt, un] = {
        let sg = &w.sgpr;
        let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
        match f.op {
            FOp::CmpI32 | FOp::CmpU32 => {
                let signed = f.op == FOp::CmpI32;
                // Signed order as unsigned order with the sign bit flipped.
                let bias = if signed { 0x8000_0000 } else { 0 };
                kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], {
                    let x = |l: usize| a.at(l) ^ bias;
                    let y = |l: usize| b.at(l) ^ bias;
                    [
                        mask(|l| x(l) < y(l)),
                        mask(|l| x(l) == y(l)),
                        mask(|l| x(l) > y(l)),
                        0,
                    ]
                })
            }
            FOp::CmpF32 => {
                let [and0, and1, _] = f.and;
                let [xor0, xor1, _] = f.xor;
                let fl = |x: u32, and: u32, xor: u32| f32::from_bits(flush32(FI, (x & and) ^ xor));
                kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], {
                    let x = |l: usize| fl(a.at(l), and0, xor0);
                    let y = |l: usize| fl(b.at(l), and1, xor1);
                    [
                        mask(|l| x(l) < y(l)),
                        mask(|l| x(l) == y(l)),
                        mask(|l| x(l) > y(l)),
                        mask(|l| x(l).is_nan() || y(l).is_nan()),
                    ]
                })
            }
            FOp::CmpI64 | FOp::CmpU64 => {
                let bias = if f.op == FOp::CmpI64 { 1u64 << 63 } else { 0 };
                let (a, b) = (src64(f, 0, cells, sg), src64(f, 1, cells, sg));
                let x = |l: usize| a.at(l) ^ bias;
                let y = |l: usize| b.at(l) ^ bias;
                [
                    mask(|l| x(l) < y(l)),
                    mask(|l| x(l) == y(l)),
                    mask(|l| x(l) > y(l)),
                    0,
                ]
            }
            _ => {
                let fz = Flush::f64(w.mode);
                let (a, b) = (src64(f, 0, cells, sg), src64(f, 1, cells, sg));
                let m = |k: usize, v: u64| {
                    let hi = ((v >> 32) as u32 & f.and[k]) ^ f.xor[k];
                    fz.in64(f64::from_bits(u64::from(hi) << 32 | (v & 0xffff_ffff)))
                };
                let x = |l: usize| m(0, a.at(l));
                let y = |l: usize| m(1, b.at(l));
                [
                    mask(|l| x(l) < y(l)),
                    mask(|l| x(l) == y(l)),
                    mask(|l| x(l) > y(l)),
                    mask(|l| x(l).is_nan() || y(l).is_nan()),
                ]
            }
        }
    };
    let pick = |on: bool, m: u64| if on { m } else { 0 };
    let m = (pick(acc[0], lt) | pick(acc[1], eq) | pick(acc[2], gt) | pick(acc[3], un)) & w.exec;
    set_pair(&mut w.sgpr, f.dst, m);
    if f.x {
        w.exec = m;
    }
    Out::Next
}

/// f32 `max` (`MAX`) or `min` of flushed inputs: the host compare, and
/// [`alu::float`] for NaNs (signalling ones are quieted under IEEE) and
/// equal values (the sign of zeros).
#[inline(always)]
fn minmax<const MAX: bool>(a: u32, b: u32, m: alu::Mode) -> u32 {
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    if x < y {
        if MAX {
            b
        } else {
            a
        }
    } else if y < x {
        if MAX {
            a
        } else {
            b
        }
    } else if MAX {
        alu::float::max::<F32>(u64::from(a), u64::from(b), m) as u32
    } else {
        alu::float::min::<F32>(u64::from(a), u64::from(b), m) as u32
    }
}

/// The µops of this module (full EXEC, registers checked by the caller).
/// Compiled apart from the first set's loop (the AVX2/FMA clone chosen at
/// run time as there), so the lane loops are not copied into every
/// version of [`super::exec::lane`].
#[multiversion(targets("x86_64+avx2+fma+f16c"))]
pub(super) fn exec(f: &Fast, w: &mut Wave) -> Out {
    let fz = Flush::f32(w.mode);
    use FOp::*;
    if f.op.compare() {
        return if fz.input {
            compare::<true>(f, w)
        } else {
            compare::<false>(f, w)
        };
    }
    let m = alu::Mode::from_bits(w.mode);
    if f.op == MadU64U32 {
        return mad64(f, w);
    }
    let cmask = if f.op == Cndmask {
        pair(&w.sgpr, f.carry[1])
    } else {
        0
    };
    let sg = &w.sgpr;
    let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
    let dst = usize::from(f.dst);
    let d = reg(cells, dst);
    if f.op.pair_dst() {
        return wide(f, cells, sg, d, reg(cells, dst + 1), m);
    }
    let fi = |x: u32| flush32(fz.input, x);
    let [and0, and1, _] = f.and;
    let [xor0, xor1, _] = f.xor;
    match f.op {
        Cndmask => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            if cmask >> l & 1 == 1 {
                (b.at(l) & and1) ^ xor1
            } else {
                (a.at(l) & and0) ^ xor0
            }
        })),
        Med3I => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            alu::int::med3_i32(a.at(l), b.at(l), c.at(l))
        })),
        Med3U => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            alu::int::med3_u32(a.at(l), b.at(l), c.at(l))
        })),
        Min3I => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            alu::int::min3_i32(a.at(l), b.at(l), c.at(l))
        })),
        Min3U => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            alu::int::min3_u32(a.at(l), b.at(l), c.at(l))
        })),
        Max3I => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            alu::int::max3_i32(a.at(l), b.at(l), c.at(l))
        })),
        Max3U => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            alu::int::max3_u32(a.at(l), b.at(l), c.at(l))
        })),
        BfeU => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            alu::int::bfe_u32(a.at(l), b.at(l) & 31, c.at(l) & 31)
        })),
        Alignbit => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            alu::int::alignbit_b32(a.at(l), b.at(l), c.at(l))
        })),
        MulHiI => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            alu::int::mul_hi_i32(a.at(l), b.at(l))
        })),
        MaxF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            minmax::<true>(fi(a.at(l)), fi(b.at(l)), m)
        })),
        MinF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            minmax::<false>(fi(a.at(l)), fi(b.at(l)), m)
        })),
        Med3F => {
            let (a, b, c) = (
                src32(f, 0, cells, sg),
                src32(f, 1, cells, sg),
                src32(f, 2, cells, sg),
            );
            apply(d, |l| {
                alu::float::med3::<F32>(
                    u64::from(a.at(l)),
                    u64::from(b.at(l)),
                    u64::from(c.at(l)),
                    m,
                ) as u32
            })
        }
        CvtF32U32 => kinds!(cells, sg, [f.src[0] => a], apply(d, |l| (a.at(l) as f32).to_bits())),
        CvtF32I32 => {
            kinds!(cells, sg, [f.src[0] => a], apply(d, |l| (a.at(l) as i32 as f32).to_bits()))
        }
        CvtI32F32 => {
            kinds!(cells, sg, [f.src[0] => a], apply(d, |l| alu::cvt::cvt_i32_f32(a.at(l)) as u32))
        }
        CvtU32F32 => {
            kinds!(cells, sg, [f.src[0] => a], apply(d, |l| alu::cvt::cvt_u32_f32(a.at(l))))
        }
        CvtF16F32 => {
            let a = src32(f, 0, cells, sg);
            apply(d, |l| u32::from(alu::cvt::cvt_f16_f32(a.at(l), m)))
        }
        CvtF32F16 => {
            let a = src32(f, 0, cells, sg);
            apply(d, |l| alu::cvt::cvt_f32_f16(a.at(l) as u16, m))
        }
        CvtF32F64 => {
            let a = src64(f, 0, cells, sg);
            apply(d, |l| alu::cvt::cvt_f32_f64(a.at(l), m))
        }
        _ => return Out::Declined,
    }
    Out::Next
}

/// The µops writing a VGPR pair.
#[inline(always)]
fn wide(
    f: &Fast,
    cells: &[Cell<u32>],
    sg: &[u32; SGPRS],
    d: &[Cell<u32>; LANES],
    dh: &[Cell<u32>; LANES],
    m: alu::Mode,
) -> Out {
    use FOp::*;
    let fz = Flush::f64(m.bits());
    // `abs`/`neg` of source k on its high dword, and flushing per MODE.
    let arg = |k: usize, v: u64| {
        let hi = ((v >> 32) as u32 & f.and[k]) ^ f.xor[k];
        fz.in64(f64::from_bits(u64::from(hi) << 32 | (v & 0xffff_ffff)))
    };
    let out = |x: f64| fz.out64(x).to_bits();
    match f.op {
        CvtF64U32 => {
            let a = src32(f, 0, cells, sg);
            apply64(d, dh, |l| alu::cvt::cvt_f64_u32(a.at(l)));
        }
        CvtF64I32 => {
            let a = src32(f, 0, cells, sg);
            apply64(d, dh, |l| alu::cvt::cvt_f64_i32(a.at(l) as i32));
        }
        CvtF64F32 => {
            let a = src32(f, 0, cells, sg);
            apply64(d, dh, |l| alu::cvt::cvt_f64_f32(a.at(l), m));
        }
        Lshl64 | Lshr64 | Ashr64 => {
            let (s, v) = (src32(f, 0, cells, sg), src64(f, 1, cells, sg));
            match f.op {
                Lshl64 => apply64(d, dh, |l| alu::int::lshlrev_b64(s.at(l), v.at(l))),
                Lshr64 => apply64(d, dh, |l| alu::int::lshrrev_b64(s.at(l), v.at(l))),
                _ => apply64(d, dh, |l| alu::int::ashrrev_i64(s.at(l), v.at(l))),
            }
        }
        PkMov => {
            let (a, b) = (src64(f, 0, cells, sg), src64(f, 1, cells, sg));
            let (s0, s1) = (32 * u32::from(f.pred & 1), 32 * u32::from(f.pred >> 1 & 1));
            apply64(d, dh, |l| {
                u64::from((a.at(l) >> s0) as u32) | u64::from((b.at(l) >> s1) as u32) << 32
            });
        }
        AddF64 | MulF64 | FmacF64 => {
            let (a, b) = (src64(f, 0, cells, sg), src64(f, 1, cells, sg));
            match f.op {
                AddF64 => apply64(d, dh, |l| out(arg(0, a.at(l)) + arg(1, b.at(l)))),
                MulF64 => apply64(d, dh, |l| out(arg(0, a.at(l)) * arg(1, b.at(l)))),
                _ => apply64(d, dh, |l| {
                    // As the general handler: nothing flushed.
                    let raw = |k: usize, v: u64| {
                        let hi = ((v >> 32) as u32 & f.and[k]) ^ f.xor[k];
                        f64::from_bits(u64::from(hi) << 32 | (v & 0xffff_ffff))
                    };
                    let c = u64::from(d[l].get()) | u64::from(dh[l].get()) << 32;
                    (raw(0, a.at(l)).mul_add(raw(1, b.at(l)), f64::from_bits(c))).to_bits()
                }),
            }
        }
        FmaF64 => {
            let (a, b, c) = (
                src64(f, 0, cells, sg),
                src64(f, 1, cells, sg),
                src64(f, 2, cells, sg),
            );
            apply64(d, dh, |l| {
                out(arg(0, a.at(l)).mul_add(arg(1, b.at(l)), arg(2, c.at(l))))
            });
        }
        _ => return Out::Declined,
    }
    Out::Next
}

/// `v_mad_u64_u32`: the 64-bit sums into the VGPR pair, the carries as a
/// lane mask into the SGPR pair `carry[0]` (inactive lanes 0).
fn mad64(f: &Fast, w: &mut Wave) -> Out {
    let carries = Cell::new(0u64);
    {
        let sg = &w.sgpr;
        let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
        let dst = usize::from(f.dst);
        let (d, dh) = (reg(cells, dst), reg(cells, dst + 1));
        let (a, b, c) = (
            src32(f, 0, cells, sg),
            src32(f, 1, cells, sg),
            src64(f, 2, cells, sg),
        );
        apply64(d, dh, |l| {
            let (r, k) = alu::int::mad_u64_u32(a.at(l), b.at(l), c.at(l));
            carries.set(carries.get() | u64::from(k) << l);
            r
        });
    }
    let m = carries.get() & w.exec;
    set_pair(&mut w.sgpr, f.carry[0], m);
    Out::Next
}

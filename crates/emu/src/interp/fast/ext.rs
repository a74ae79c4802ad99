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
//!
//! Every µop here runs on groups of [`G`] lanes: a group's sources are
//! read into small arrays (registers, not a stack frame of whole rows),
//! the lane operation runs on them, and the group's results are written
//! before the next group is read. A lane only reads its own lane of each
//! source, so a destination that is also a source needs no copy.

use std::cell::Cell;

use multiversion::multiversion;

use super::lanes::{apply, reg, splat, Lanes};
use super::{FOp, Fast, Out, Src};
use crate::alu;
use crate::alu::soft::F32;
use crate::interp::valu::Flush;
use crate::lanes::flush32;
use crate::wave::{Wave, LANES, SGPRS};

/// Lanes per group.
const G: usize = 8;
/// Groups per wave.
const GROUPS: usize = LANES / G;

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

/// Group `g` of source `k` of `f` as 32-bit lanes: a VGPR's lanes, or
/// one value splatted (an SGPR or a constant).
#[inline(always)]
fn row32(f: &Fast, k: usize, cells: &[Cell<u32>], sg: &[u32; SGPRS], g: usize) -> [u32; G] {
    match f.src[k] {
        Src::V(r) => {
            let c = reg(cells, usize::from(r));
            std::array::from_fn(|i| c[g * G + i].get())
        }
        s => [splat(sg, s); G],
    }
}

/// Group `g` of source `k` of `f` as 64-bit lanes: a VGPR pair, or one
/// value (an SGPR pair or a constant).
#[inline(always)]
fn row64(f: &Fast, k: usize, cells: &[Cell<u32>], sg: &[u32; SGPRS], g: usize) -> [u64; G] {
    match f.src[k] {
        Src::V(r) => {
            let r = usize::from(r);
            let (lo, hi) = (reg(cells, r), reg(cells, r + 1));
            std::array::from_fn(|i| {
                u64::from(lo[g * G + i].get()) | u64::from(hi[g * G + i].get()) << 32
            })
        }
        Src::S(r) => [pair(sg, r); G],
        Src::K(_) => [f.k64[k]; G],
    }
}

#[inline(always)]
fn store32(d: &[Cell<u32>; LANES], g: usize, r: [u32; G]) {
    for (d, x) in d[g * G..(g + 1) * G].iter().zip(r) {
        d.set(x);
    }
}

#[inline(always)]
fn store64(d: &[Cell<u32>; LANES], dh: &[Cell<u32>; LANES], g: usize, r: [u64; G]) {
    for (i, x) in r.into_iter().enumerate() {
        d[g * G + i].set(x as u32);
        dh[g * G + i].set((x >> 32) as u32);
    }
}

/// `abs`/`neg` of an f64 source (its masks apply to the high dword) and
/// the input flushing of MODE, over a group.
#[inline(always)]
fn mods64<const FI: bool>(f: &Fast, k: usize, a: &mut [u64; G]) {
    let and = u64::from(f.and[k]) << 32 | 0xffff_ffff;
    let xor = u64::from(f.xor[k]) << 32;
    for x in a.iter_mut() {
        let v = (*x & and) ^ xor;
        *x = if FI && v & 0x7ff0_0000_0000_0000 == 0 {
            v & 1 << 63
        } else {
            v
        };
    }
}

/// `abs`/`neg` and input flushing of an f32 source over a group.
#[inline(always)]
fn mods32<const FI: bool>(f: &Fast, k: usize, a: &mut [u32; G]) {
    let (and, xor) = (f.and[k], f.xor[k]);
    for x in a.iter_mut() {
        *x = flush32(FI, (*x & and) ^ xor);
    }
}

/// `one(g)` (a lane operation on group `g`'s sources) into the
/// destination, group by group.
#[inline(always)]
fn each32(d: &[Cell<u32>; LANES], one: impl Fn(usize) -> [u32; G]) {
    for g in 0..GROUPS {
        store32(d, g, one(g));
    }
}

/// [`each32`] for a destination pair.
#[inline(always)]
fn each64(d: &[Cell<u32>; LANES], dh: &[Cell<u32>; LANES], one: impl Fn(usize) -> [u64; G]) {
    for g in 0..GROUPS {
        store64(d, dh, g, one(g));
    }
}

/// Eight 0/1 bytes packed into the low 8 bits (byte `i` to bit `i`): one
/// multiply, no carries between the partial products.
#[inline(always)]
fn pack8(x: u64) -> u64 {
    x.wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// A compare's result for one group as 8 mask bits: for each lane,
/// whether the ordering of `a` and `b` (less, equal, greater, or
/// unordered when none holds) is one the predicate accepts. Branch-free.
#[inline(always)]
fn order_bits<T: Copy + PartialOrd>(a: [T; G], b: [T; G], acc: [bool; 4]) -> u64 {
    let mut bits = [0u8; G];
    for l in 0..G {
        let (x, y) = (a[l], b[l]);
        let (lt, eq, gt) = (x < y, x == y, x > y);
        let un = !(lt | eq | gt);
        bits[l] = u8::from((lt & acc[0]) | (eq & acc[1]) | (gt & acc[2]) | (un & acc[3]));
    }
    pack8(u64::from_le_bytes(bits))
}

/// The mask of all groups, `one(g)` giving group `g`'s 8 bits.
#[inline(always)]
fn groups(mut one: impl FnMut(usize) -> u64) -> u64 {
    let mut m = 0;
    for g in 0..GROUPS {
        m |= one(g) << (G * g);
    }
    m
}

/// Group `g` of a lane mask spread over its lanes: all ones where the
/// lane's bit is set.
#[inline(always)]
fn lane_bits(m: u64, g: usize) -> [u32; G] {
    let byte = (m >> (G * g)) as u32 & 0xff;
    std::array::from_fn(|i| (byte >> i & 1).wrapping_neg())
}

/// Which of the orderings less, equal, greater and unordered the
/// compare's predicate accepts (decoded from [`alu::cmp`]'s tables).
#[inline(always)]
fn accepts(f: &Fast) -> [bool; 4] {
    [0, 1, 2, 3].map(|k| f.pred >> k & 1 == 1)
}

/// Vector compares: each lane's ordering checked against what the
/// predicate accepts; inactive lanes 0 (as the general handler); the mask
/// to the destination pair, and to EXEC for `v_cmpx`.
#[inline(always)]
fn compare<const FI: bool>(f: &Fast, w: &mut Wave) -> Out {
    let acc = accepts(f);
    let m = {
        let sg = &w.sgpr;
        let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
        let r32 = |k: usize, g: usize| row32(f, k, cells, sg, g);
        let r64 = |k: usize, g: usize| row64(f, k, cells, sg, g);
        match f.op {
            FOp::CmpU32 => groups(|g| order_bits(r32(0, g), r32(1, g), acc)),
            FOp::CmpI32 => groups(|g| {
                order_bits(
                    r32(0, g).map(|x| x as i32),
                    r32(1, g).map(|x| x as i32),
                    acc,
                )
            }),
            FOp::CmpF32 => groups(|g| {
                let (mut a, mut b) = (r32(0, g), r32(1, g));
                mods32::<FI>(f, 0, &mut a);
                mods32::<FI>(f, 1, &mut b);
                order_bits(a.map(f32::from_bits), b.map(f32::from_bits), acc)
            }),
            FOp::CmpU64 => groups(|g| order_bits(r64(0, g), r64(1, g), acc)),
            FOp::CmpI64 => groups(|g| {
                order_bits(
                    r64(0, g).map(|x| x as i64),
                    r64(1, g).map(|x| x as i64),
                    acc,
                )
            }),
            _ => {
                let fi64 = Flush::f64(w.mode).input;
                groups(|g| {
                    let (mut a, mut b) = (r64(0, g), r64(1, g));
                    if fi64 {
                        mods64::<true>(f, 0, &mut a);
                        mods64::<true>(f, 1, &mut b);
                    } else {
                        mods64::<false>(f, 0, &mut a);
                        mods64::<false>(f, 1, &mut b);
                    }
                    order_bits(a.map(f64::from_bits), b.map(f64::from_bits), acc)
                })
            }
        }
    } & w.exec;
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

/// A lane operation on f64 values, monomorphic per µop (inlined into the
/// lane loop, so the loop vectorises and FMA is the host instruction in
/// the AVX2/FMA clone).
trait F64Op {
    fn op(a: f64, b: f64, c: f64) -> f64;
}

struct AddF64;
impl F64Op for AddF64 {
    #[inline(always)]
    fn op(a: f64, b: f64, _c: f64) -> f64 {
        a + b
    }
}

struct MulF64;
impl F64Op for MulF64 {
    #[inline(always)]
    fn op(a: f64, b: f64, _c: f64) -> f64 {
        a * b
    }
}

struct FmaF64;
impl F64Op for FmaF64 {
    #[inline(always)]
    fn op(a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
}

/// `d = O(a, b, c)` over the lanes of f64 sources, group by group, with
/// MODE's input (`FI`) and output (`FO`) flushing as constants. `nsrc`
/// sources get their modifiers; with `fmac` the addend is the
/// destination pair, unmodified.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn f64op<O: F64Op, const FI: bool, const FO: bool>(
    f: &Fast,
    cells: &[Cell<u32>],
    sg: &[u32; SGPRS],
    d: &[Cell<u32>; LANES],
    dh: &[Cell<u32>; LANES],
    nsrc: usize,
    fmac: bool,
) {
    for g in 0..GROUPS {
        let mut a = row64(f, 0, cells, sg, g);
        let mut b = row64(f, 1, cells, sg, g);
        let mut c = if nsrc == 3 {
            row64(f, 2, cells, sg, g)
        } else if fmac {
            std::array::from_fn(|i| {
                u64::from(d[g * G + i].get()) | u64::from(dh[g * G + i].get()) << 32
            })
        } else {
            [0; G]
        };
        mods64::<FI>(f, 0, &mut a);
        mods64::<FI>(f, 1, &mut b);
        if nsrc == 3 {
            mods64::<FI>(f, 2, &mut c);
        }
        let r = std::array::from_fn(|l| {
            let x = O::op(
                f64::from_bits(a[l]),
                f64::from_bits(b[l]),
                f64::from_bits(c[l]),
            )
            .to_bits();
            if FO && x & 0x7ff0_0000_0000_0000 == 0 {
                x & 1 << 63
            } else {
                x
            }
        });
        store64(d, dh, g, r);
    }
}

/// [`f64op`] with MODE's flushing chosen once.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn f64op_mode<O: F64Op>(
    f: &Fast,
    cells: &[Cell<u32>],
    sg: &[u32; SGPRS],
    d: &[Cell<u32>; LANES],
    dh: &[Cell<u32>; LANES],
    nsrc: usize,
    fz: Flush,
) {
    match (fz.input, fz.output) {
        (false, false) => f64op::<O, false, false>(f, cells, sg, d, dh, nsrc, false),
        (true, true) => f64op::<O, true, true>(f, cells, sg, d, dh, nsrc, false),
        (true, false) => f64op::<O, true, false>(f, cells, sg, d, dh, nsrc, false),
        (false, true) => f64op::<O, false, true>(f, cells, sg, d, dh, nsrc, false),
    }
}

/// `v_ldexp_f64` of one lane: a normal input whose result stays normal
/// only has its exponent field changed (exact, no rounding, nothing to
/// flush); anything else is [`alu::float::ldexp_f64`].
#[inline(always)]
fn ldexp64(a: u64, n: u32, m: alu::Mode) -> u64 {
    let e = (a >> 52 & 0x7ff) as i64;
    let t = e + i64::from(n as i32);
    if (1..0x7ff).contains(&e) && (1..0x7ff).contains(&t) {
        (a & !(0x7ff << 52)) | (t as u64) << 52
    } else {
        alu::float::ldexp_f64(a, n as i32, m)
    }
}

/// The µops of this module (full EXEC, registers checked by the caller).
/// Compiled apart from the first set's loop (the AVX2/FMA clone chosen at
/// run time as there), so the lane loops are not copied into every
/// version of [`super::exec::lane`]; every helper is inlined into it.
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
    if f.op == DivScaleF64 {
        return div_scale64(f, w, m);
    }
    let cmask = if matches!(f.op, Cndmask | DivFmasF64) {
        pair(&w.sgpr, f.carry[1])
    } else {
        0
    };
    let sg = &w.sgpr;
    let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
    let dst = usize::from(f.dst);
    let d = reg(cells, dst);
    if f.op.pair_dst() {
        return wide(f, cells, sg, d, reg(cells, dst + 1), m, cmask);
    }
    let fi = |x: u32| flush32(fz.input, x);
    let r32 = |k: usize, g: usize| row32(f, k, cells, sg, g);
    match f.op {
        Cndmask => {
            for g in 0..GROUPS {
                let (mut a, mut b) = (r32(0, g), r32(1, g));
                mods32::<false>(f, 0, &mut a);
                mods32::<false>(f, 1, &mut b);
                let sel = lane_bits(cmask, g);
                store32(
                    d,
                    g,
                    std::array::from_fn(|l| (a[l] & !sel[l]) | (b[l] & sel[l])),
                );
            }
        }
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
        Med3F => each32(d, |g| {
            let (a, b, c) = (r32(0, g), r32(1, g), r32(2, g));
            std::array::from_fn(|l| {
                alu::float::med3::<F32>(u64::from(a[l]), u64::from(b[l]), u64::from(c[l]), m) as u32
            })
        }),
        CvtF32U32 => kinds!(cells, sg, [f.src[0] => a], apply(d, |l| (a.at(l) as f32).to_bits())),
        CvtF32I32 => {
            kinds!(cells, sg, [f.src[0] => a], apply(d, |l| (a.at(l) as i32 as f32).to_bits()))
        }
        // The host's saturating conversion is `alu::cvt`'s (truncate,
        // saturate, NaN to 0; a denormal truncates to 0 flushed or not).
        CvtI32F32 => {
            kinds!(cells, sg, [f.src[0] => a], apply(d, |l| f32::from_bits(a.at(l)) as i32 as u32))
        }
        CvtU32F32 => {
            kinds!(cells, sg, [f.src[0] => a], apply(d, |l| f32::from_bits(a.at(l)) as u32))
        }
        CvtF16F32 => each32(d, |g| {
            r32(0, g).map(|x| u32::from(alu::cvt::cvt_f16_f32(x, m)))
        }),
        CvtF32F16 => each32(d, |g| r32(0, g).map(|x| alu::cvt::cvt_f32_f16(x as u16, m))),
        CvtF32F64 => each32(d, |g| {
            row64(f, 0, cells, sg, g).map(|x| alu::cvt::cvt_f32_f64(x, m))
        }),
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
    vcc: u64,
) -> Out {
    use FOp::*;
    let fz = Flush::f64(m.bits());
    let r32 = |k: usize, g: usize| row32(f, k, cells, sg, g);
    let r64 = |k: usize, g: usize| row64(f, k, cells, sg, g);
    match f.op {
        AddF64 => f64op_mode::<self::AddF64>(f, cells, sg, d, dh, 2, fz),
        MulF64 => f64op_mode::<self::MulF64>(f, cells, sg, d, dh, 2, fz),
        FmaF64 => f64op_mode::<self::FmaF64>(f, cells, sg, d, dh, 3, fz),
        // As the general handler: nothing flushed; the addend is the
        // destination.
        FmacF64 => f64op::<self::FmaF64, false, false>(f, cells, sg, d, dh, 2, true),
        CvtF64U32 => each64(d, dh, |g| r32(0, g).map(alu::cvt::cvt_f64_u32)),
        CvtF64I32 => each64(d, dh, |g| {
            r32(0, g).map(|x| alu::cvt::cvt_f64_i32(x as i32))
        }),
        CvtF64F32 => each64(d, dh, |g| r32(0, g).map(|x| alu::cvt::cvt_f64_f32(x, m))),
        Lshl64 => each64(d, dh, |g| {
            let (s, v) = (r32(0, g), r64(1, g));
            std::array::from_fn(|l| alu::int::lshlrev_b64(s[l], v[l]))
        }),
        Lshr64 => each64(d, dh, |g| {
            let (s, v) = (r32(0, g), r64(1, g));
            std::array::from_fn(|l| alu::int::lshrrev_b64(s[l], v[l]))
        }),
        Ashr64 => each64(d, dh, |g| {
            let (s, v) = (r32(0, g), r64(1, g));
            std::array::from_fn(|l| alu::int::ashrrev_i64(s[l], v[l]))
        }),
        PkMov => {
            let (s0, s1) = (32 * u32::from(f.pred & 1), 32 * u32::from(f.pred >> 1 & 1));
            each64(d, dh, |g| {
                let (a, b) = (r64(0, g), r64(1, g));
                std::array::from_fn(|l| {
                    u64::from((a[l] >> s0) as u32) | u64::from((b[l] >> s1) as u32) << 32
                })
            })
        }
        LdexpF64 => each64(d, dh, |g| {
            let (mut a, n) = (r64(0, g), r32(1, g));
            // `abs`/`neg` only; `alu::float::ldexp` flushes per MODE.
            mods64::<false>(f, 0, &mut a);
            std::array::from_fn(|l| ldexp64(a[l], n[l], m))
        }),
        // As the general handlers: `abs`/`neg` on the sign, MODE's
        // flushing inside `alu`.
        RcpF64 => each64(d, dh, |g| {
            let mut a = r64(0, g);
            mods64::<false>(f, 0, &mut a);
            a.map(|x| alu::trans::rcp_f64(x, m))
        }),
        DivFmasF64 | DivFixupF64 => each64(d, dh, |g| {
            let (a, b, c) = rows3(f, cells, sg, g);
            let bits = lane_bits(vcc, g);
            std::array::from_fn(|l| {
                if f.op == DivFmasF64 {
                    alu::float::div_fmas_f64(a[l], b[l], c[l], bits[l] != 0, m)
                } else {
                    alu::float::div_fixup_f64(a[l], b[l], c[l])
                }
            })
        }),
        _ => return Out::Declined,
    }
    Out::Next
}

/// Group `g` of the three f64 sources of `f`, `abs`/`neg` applied.
#[inline(always)]
fn rows3(
    f: &Fast,
    cells: &[Cell<u32>],
    sg: &[u32; SGPRS],
    g: usize,
) -> ([u64; G], [u64; G], [u64; G]) {
    let mut r = [0, 1, 2].map(|k| row64(f, k, cells, sg, g));
    for (k, x) in r.iter_mut().enumerate() {
        mods64::<false>(f, k, x);
    }
    let [a, b, c] = r;
    (a, b, c)
}

/// `v_div_scale_f64`: the scaled values into the VGPR pair, the flags as
/// a lane mask into the SGPR pair `carry[0]`.
#[inline(always)]
fn div_scale64(f: &Fast, w: &mut Wave, m: alu::Mode) -> Out {
    let flags = {
        let sg = &w.sgpr;
        let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
        let dst = usize::from(f.dst);
        let (d, dh) = (reg(cells, dst), reg(cells, dst + 1));
        groups(|g| {
            let (a, b, c) = rows3(f, cells, sg, g);
            let mut r = [0u64; G];
            let mut k = [0u8; G];
            for l in 0..G {
                let (x, fl) = alu::float::div_scale_f64(a[l], b[l], c[l], m);
                r[l] = x;
                k[l] = u8::from(fl);
            }
            store64(d, dh, g, r);
            pack8(u64::from_le_bytes(k))
        })
    };
    set_pair(&mut w.sgpr, f.carry[0], flags & w.exec);
    Out::Next
}

/// `v_mad_u64_u32`: the 64-bit sums into the VGPR pair, the carries as a
/// lane mask into the SGPR pair `carry[0]` (inactive lanes 0).
#[inline(always)]
fn mad64(f: &Fast, w: &mut Wave) -> Out {
    let carries = {
        let sg = &w.sgpr;
        let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
        let dst = usize::from(f.dst);
        let (d, dh) = (reg(cells, dst), reg(cells, dst + 1));
        groups(|g| {
            let (a, b, c) = (
                row32(f, 0, cells, sg, g),
                row32(f, 1, cells, sg, g),
                row64(f, 2, cells, sg, g),
            );
            let mut r = [0u64; G];
            let mut k = [0u8; G];
            for l in 0..G {
                let (x, cy) = alu::int::mad_u64_u32(a[l], b[l], c[l]);
                r[l] = x;
                k[l] = u8::from(cy);
            }
            store64(d, dh, g, r);
            pack8(u64::from_le_bytes(k))
        })
    };
    let m = carries & w.exec;
    set_pair(&mut w.sgpr, f.carry[0], m);
    Out::Next
}

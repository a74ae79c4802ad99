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

use super::lanes::{apply, each_on, reg, splat, Lanes};
use super::{FOp, Fast, Out, Src};
use crate::alu;
use crate::alu::soft::{F16, F32};
use crate::interp::valu::Flush;
use crate::lanes::flush32;
use crate::wave::{Wave, LANES, SGPRS};

/// An SGPR pair's value.
#[inline(always)]
pub(super) fn pair(sg: &[u32; SGPRS], r: u16) -> u64 {
    let r = usize::from(r);
    u64::from(sg[r]) | u64::from(sg[r + 1]) << 32
}

#[inline(always)]
pub(super) fn set_pair(sg: &mut [u32; SGPRS], r: u16, v: u64) {
    let r = usize::from(r);
    sg[r] = v as u32;
    sg[r + 1] = (v >> 32) as u32;
}

/// Source `k` of `f` as 32-bit lanes in an array: a VGPR's lanes, or one
/// value splatted (an SGPR or a constant). Decided per µop, not per lane,
/// so the lane loops that follow see plain arrays and vectorise.
#[inline(always)]
pub(super) fn row32(f: &Fast, k: usize, cells: &[Cell<u32>], sg: &[u32; SGPRS]) -> [u32; LANES] {
    match f.src[k] {
        Src::V(r) => {
            let c = reg(cells, usize::from(r));
            let mut a = [0u32; LANES];
            for (x, c) in a.iter_mut().zip(c) {
                *x = c.get();
            }
            a
        }
        s => [splat(sg, s); LANES],
    }
}

/// Source `k` of `f` as 64-bit lanes in an array: a VGPR pair, or one
/// value (an SGPR pair or a constant).
#[inline(always)]
fn row64(f: &Fast, k: usize, cells: &[Cell<u32>], sg: &[u32; SGPRS]) -> [u64; LANES] {
    match f.src[k] {
        Src::V(r) => {
            let r = usize::from(r);
            let (lo, hi) = (reg(cells, r), reg(cells, r + 1));
            let mut a = [0u64; LANES];
            for l in 0..LANES {
                a[l] = u64::from(lo[l].get()) | u64::from(hi[l].get()) << 32;
            }
            a
        }
        Src::S(r) => [pair(sg, r); LANES],
        Src::K(_) => [f.k64[k]; LANES],
    }
}

/// `r[l] = g(l)` for every lane, as a plain loop inlined into the caller
/// (`std::array::from_fn` and `<[T; N]>::map` over 64 lanes were left as
/// calls, a fifth of `act_approx`'s time).
#[inline(always)]
fn each<U: Copy + Default>(g: impl Fn(usize) -> U) -> [U; LANES] {
    let mut r = [U::default(); LANES];
    for (l, x) in r.iter_mut().enumerate() {
        *x = g(l);
    }
    r
}

/// `r[l]` = the value of `fast(l)` when its flag says the lane's usual
/// case holds, else `slow(l)`: one branch-free pass over the lanes (it
/// vectorises), then only the other lanes through `slow`, the whole
/// `alu` function whose usual case `fast` is.
#[inline(always)]
fn usual<U: Copy + Default>(
    fast: impl Fn(usize) -> (U, bool),
    slow: impl Fn(usize) -> U,
) -> [U; LANES] {
    let mut r = [U::default(); LANES];
    let mut odd = [0u8; LANES];
    for l in 0..LANES {
        let (x, ok) = fast(l);
        r[l] = x;
        odd[l] = u8::from(!ok);
    }
    if odd.iter().fold(0, |s, &o| s | o) != 0 {
        for l in 0..LANES {
            if odd[l] != 0 {
                r[l] = slow(l);
            }
        }
    }
    r
}

/// `r[l] = g(a[l])` for every lane ([`each`]).
#[inline(always)]
fn map64<T: Copy, U: Copy + Default>(a: &[T; LANES], g: impl Fn(T) -> U) -> [U; LANES] {
    each(|l| g(a[l]))
}

/// Source `k` of `f` in lane `l`: the lane of a VGPR, or the one value
/// of an SGPR or constant (a sparse µop's operand read).
#[inline(always)]
pub(super) fn lane32(f: &Fast, k: usize, cells: &[Cell<u32>], sg: &[u32; SGPRS], l: usize) -> u32 {
    match f.src[k] {
        Src::V(r) => cells[usize::from(r) * LANES + l].get(),
        s => splat(sg, s),
    }
}

/// Source `k` of `f` in lane `l` as 64 bits ([`row64`]'s lane).
#[inline(always)]
fn lane64(f: &Fast, k: usize, cells: &[Cell<u32>], sg: &[u32; SGPRS], l: usize) -> u64 {
    match f.src[k] {
        Src::V(r) => {
            let r = usize::from(r) * LANES + l;
            u64::from(cells[r].get()) | u64::from(cells[r + LANES].get()) << 32
        }
        Src::S(r) => pair(sg, r),
        Src::K(_) => f.k64[k],
    }
}

/// `d = r` on every lane, or only on the lanes of a sparse EXEC `on`
/// ([`super::lanes::apply`]).
#[inline(always)]
pub(super) fn store32(d: &[Cell<u32>; LANES], r: &[u32; LANES], on: u64) {
    if on != u64::MAX {
        each_on(on, |l| d[l].set(r[l]));
        return;
    }
    for (d, x) in d.iter().zip(r) {
        d.set(*x);
    }
}

/// [`store32`] of 64-bit lanes into a VGPR pair.
#[inline(always)]
fn store64(d: &[Cell<u32>; LANES], dh: &[Cell<u32>; LANES], r: &[u64; LANES], on: u64) {
    if on != u64::MAX {
        each_on(on, |l| {
            d[l].set(r[l] as u32);
            dh[l].set((r[l] >> 32) as u32);
        });
        return;
    }
    for l in 0..LANES {
        d[l].set(r[l] as u32);
        dh[l].set((r[l] >> 32) as u32);
    }
}

/// `abs`/`neg` of an f64 source (its masks apply to the high dword) and
/// the input flushing of MODE, over the whole row.
#[inline(always)]
fn mods64<const FI: bool>(f: &Fast, k: usize, a: &mut [u64; LANES]) {
    for x in a.iter_mut() {
        *x = mod64::<FI>(f, k, *x);
    }
}

/// [`mods64`] of one value.
#[inline(always)]
fn mod64<const FI: bool>(f: &Fast, k: usize, x: u64) -> u64 {
    let and = u64::from(f.and[k]) << 32 | 0xffff_ffff;
    let xor = u64::from(f.xor[k]) << 32;
    let v = (x & and) ^ xor;
    if FI && v & 0x7ff0_0000_0000_0000 == 0 {
        v & 1 << 63
    } else {
        v
    }
}

/// `abs`/`neg` and input flushing of an f32 source over the whole row.
#[inline(always)]
fn mods32<const FI: bool>(f: &Fast, k: usize, a: &mut [u32; LANES]) {
    for x in a.iter_mut() {
        *x = mod32::<FI>(f, k, *x);
    }
}

/// [`mods32`] of one value.
#[inline(always)]
fn mod32<const FI: bool>(f: &Fast, k: usize, x: u32) -> u32 {
    flush32(FI, (x & f.and[k]) ^ f.xor[k])
}

/// Eight 0/1 bytes packed into the low 8 bits (byte `i` to bit `i`): one
/// multiply, no carries between the partial products.
#[inline(always)]
fn pack8(x: u64) -> u64 {
    x.wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// A lane mask from one 0/1 byte per lane.
#[inline(always)]
pub(super) fn pack(bits: &[u8; LANES]) -> u64 {
    let mut m = 0u64;
    for (g, c) in bits.chunks_exact(8).enumerate() {
        let x = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        m |= pack8(x) << (8 * g);
    }
    m
}

/// The compare's result per lane as a mask: for each lane, whether the
/// ordering of `a` and `b` (less, equal, greater, or unordered when none
/// holds) is one the predicate accepts. One branch-free pass.
#[inline(always)]
fn order_mask<T: Copy + PartialOrd>(a: &[T; LANES], b: &[T; LANES], acc: [bool; 4]) -> u64 {
    let mut bits = [0u8; LANES];
    for l in 0..LANES {
        bits[l] = u8::from(order(a[l], b[l], acc));
    }
    pack(&bits)
}

/// Whether the ordering of `x` and `y` is one the predicate accepts
/// (one lane of [`order_mask`]).
#[inline(always)]
fn order<T: Copy + PartialOrd>(x: T, y: T, acc: [bool; 4]) -> bool {
    let (lt, eq, gt) = (x < y, x == y, x > y);
    let un = !(lt | eq | gt);
    (lt & acc[0]) | (eq & acc[1]) | (gt & acc[2]) | (un & acc[3])
}

/// A lane mask spread over the lanes: all ones where bit `l` is set
/// (eight lanes from each byte, with constant shifts, so it vectorises).
#[inline(always)]
pub(super) fn lane_bits(m: u64) -> [u32; LANES] {
    let mut r = [0u32; LANES];
    for (g, c) in r.chunks_exact_mut(8).enumerate() {
        let byte = (m >> (8 * g)) as u32 & 0xff;
        for (i, x) in c.iter_mut().enumerate() {
            *x = (byte >> i & 1).wrapping_neg();
        }
    }
    r
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
fn compare<const FI: bool>(f: &Fast, w: &mut Wave, on: u64) -> Out {
    let acc = accepts(f);
    let m = if on != u64::MAX {
        compare_sparse::<FI>(f, w, on, acc)
    } else {
        let sg = &w.sgpr;
        let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
        match f.op {
            FOp::CmpU32 => order_mask(&row32(f, 0, cells, sg), &row32(f, 1, cells, sg), acc),
            FOp::CmpI32 => order_mask(
                &map64(&row32(f, 0, cells, sg), |x| x as i32),
                &map64(&row32(f, 1, cells, sg), |x| x as i32),
                acc,
            ),
            FOp::CmpF32 => {
                let (mut a, mut b) = (row32(f, 0, cells, sg), row32(f, 1, cells, sg));
                mods32::<FI>(f, 0, &mut a);
                mods32::<FI>(f, 1, &mut b);
                order_mask(&map64(&a, f32::from_bits), &map64(&b, f32::from_bits), acc)
            }
            FOp::ClassF32 => {
                // The raw bits, `abs`/`neg` applied, never flushed.
                let (mut a, mut b) = (row32(f, 0, cells, sg), row32(f, 1, cells, sg));
                mods32::<false>(f, 0, &mut a);
                mods32::<false>(f, 1, &mut b);
                let mut bits = [0u8; LANES];
                for l in 0..LANES {
                    bits[l] = u8::from(alu::cmp::cmp_class_f32(a[l], b[l]));
                }
                pack(&bits)
            }
            FOp::CmpU64 => order_mask(&row64(f, 0, cells, sg), &row64(f, 1, cells, sg), acc),
            FOp::CmpI64 => order_mask(
                &map64(&row64(f, 0, cells, sg), |x| x as i64),
                &map64(&row64(f, 1, cells, sg), |x| x as i64),
                acc,
            ),
            _ => {
                let (mut a, mut b) = (row64(f, 0, cells, sg), row64(f, 1, cells, sg));
                if Flush::f64(w.mode).input {
                    mods64::<true>(f, 0, &mut a);
                    mods64::<true>(f, 1, &mut b);
                } else {
                    mods64::<false>(f, 0, &mut a);
                    mods64::<false>(f, 1, &mut b);
                }
                order_mask(&map64(&a, f64::from_bits), &map64(&b, f64::from_bits), acc)
            }
        }
    } & w.exec;
    set_pair(&mut w.sgpr, f.dst, m);
    if f.x {
        w.exec = m;
    }
    Out::Next
}

/// [`compare`] under a sparse EXEC: each active lane's bit, its
/// operands read as [`row32`]/[`row64`] and modified as [`mods32`] and
/// [`mods64`] would, compared by [`order`] (the other lanes' bits 0).
#[inline(always)]
fn compare_sparse<const FI: bool>(f: &Fast, w: &mut Wave, on: u64, acc: [bool; 4]) -> u64 {
    let fi64 = Flush::f64(w.mode).input;
    let sg = &w.sgpr;
    let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
    let mut m = 0u64;
    each_on(on, |l| {
        let (a, b) = (
            |k| lane32(f, k, cells, sg, l),
            |k| lane64(f, k, cells, sg, l),
        );
        let hit = match f.op {
            FOp::CmpU32 => order(a(0), a(1), acc),
            FOp::CmpI32 => order(a(0) as i32, a(1) as i32, acc),
            FOp::CmpF32 => order(
                f32::from_bits(mod32::<FI>(f, 0, a(0))),
                f32::from_bits(mod32::<FI>(f, 1, a(1))),
                acc,
            ),
            FOp::ClassF32 => {
                alu::cmp::cmp_class_f32(mod32::<false>(f, 0, a(0)), mod32::<false>(f, 1, a(1)))
            }
            FOp::CmpU64 => order(b(0), b(1), acc),
            FOp::CmpI64 => order(b(0) as i64, b(1) as i64, acc),
            _ => {
                let (x, y) = if fi64 {
                    (mod64::<true>(f, 0, b(0)), mod64::<true>(f, 1, b(1)))
                } else {
                    (mod64::<false>(f, 0, b(0)), mod64::<false>(f, 1, b(1)))
                };
                order(f64::from_bits(x), f64::from_bits(y), acc)
            }
        };
        m |= u64::from(hit) << l;
    });
    m
}

/// f32 `max` (`MAX`) or `min` over the lanes, inputs flushed per `FI`.
/// A lane whose inputs are strictly ordered, or are the same non-NaN
/// bits, takes the host compare's pick in one branch-free pass (so the
/// loop vectorises); any other lane (a NaN, or zeros of different
/// signs) is [`alu::float`]'s, which quiets signalling NaNs under IEEE
/// and orders -0 below +0.
#[inline(always)]
fn minmax<const MAX: bool, const FI: bool>(
    a: &[u32; LANES],
    b: &[u32; LANES],
    m: alu::Mode,
) -> [u32; LANES] {
    let mut r = [0u32; LANES];
    let mut odd = [0u32; LANES];
    for l in 0..LANES {
        let (x, y) = (flush32(FI, a[l]), flush32(FI, b[l]));
        let (fx, fy) = (f32::from_bits(x), f32::from_bits(y));
        let (lt, gt) = (fx < fy, fy < fx);
        let take_b = if MAX { lt } else { gt };
        r[l] = if take_b { y } else { x };
        odd[l] = u32::from(!(lt | gt | (fx == fy && x == y)));
    }
    if odd.iter().fold(0, |s, &o| s | o) != 0 {
        for l in 0..LANES {
            if odd[l] != 0 {
                let (x, y) = (u64::from(flush32(FI, a[l])), u64::from(flush32(FI, b[l])));
                r[l] = if MAX {
                    alu::float::max::<F32>(x, y, m)
                } else {
                    alu::float::min::<F32>(x, y, m)
                } as u32;
            }
        }
    }
    r
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

/// `d = O(a, b, c)` over the lanes of f64 rows, with MODE's input (`FI`)
/// and output (`FO`) flushing as constants.
#[inline(always)]
fn f64op<O: F64Op, const FI: bool, const FO: bool>(
    f: &Fast,
    mut rows: [[u64; LANES]; 3],
    nsrc: usize,
) -> [u64; LANES] {
    for (k, a) in rows.iter_mut().enumerate().take(nsrc) {
        mods64::<FI>(f, k, a);
    }
    let [a, b, c] = &rows;
    let mut r = [0u64; LANES];
    for l in 0..LANES {
        let x = O::op(
            f64::from_bits(a[l]),
            f64::from_bits(b[l]),
            f64::from_bits(c[l]),
        )
        .to_bits();
        r[l] = if FO && x & 0x7ff0_0000_0000_0000 == 0 {
            x & 1 << 63
        } else {
            x
        };
    }
    r
}

/// [`f64op`] with MODE's flushing chosen once.
#[inline(always)]
fn f64op_mode<O: F64Op>(f: &Fast, rows: [[u64; LANES]; 3], nsrc: usize, fz: Flush) -> [u64; LANES] {
    match (fz.input, fz.output) {
        (false, false) => f64op::<O, false, false>(f, rows, nsrc),
        (true, true) => f64op::<O, true, true>(f, rows, nsrc),
        (true, false) => f64op::<O, true, false>(f, rows, nsrc),
        (false, true) => f64op::<O, false, true>(f, rows, nsrc),
    }
}

/// `v_ldexp_f64` of one lane, branch-free: a zero is returned as it is
/// and a normal input whose result stays normal only has its exponent
/// field changed (exact, no rounding, nothing to flush); the flag is
/// false for anything else, which [`alu::float::ldexp_f64`] computes.
#[inline(always)]
fn ldexp64(a: u64, n: u32) -> (u64, bool) {
    let e = (a >> 52 & 0x7ff) as i64;
    let t = e + i64::from(n as i32);
    let normal = ((e - 1) as u64) < 0x7fe && ((t - 1) as u64) < 0x7fe;
    let zero = a << 1 == 0;
    let scaled = (a & !(0x7ff << 52)) | (t as u64 & 0x7ff) << 52;
    (if zero { a } else { scaled }, normal | zero)
}

/// The µops of this module (registers checked by the caller), inlined
/// into the arm of [`super::exec`]'s match that covers them, so into the
/// AVX2/FMA version of the µop loop with no call or second dispatcher.
#[inline(always)]
pub(super) fn exec(f: &Fast, w: &mut Wave, on: u64) -> Out {
    let fz = Flush::f32(w.mode);
    let m = alu::Mode::from_bits(w.mode);
    use FOp::*;
    match f.op {
        CmpI32 | CmpU32 | CmpF32 | CmpI64 | CmpU64 | CmpF64 | ClassF32 => {
            return if fz.input {
                compare::<true>(f, w, on)
            } else {
                compare::<false>(f, w, on)
            };
        }
        MadU64U32 => return mad64(f, w, on),
        DivScaleF64 => return div_scale64(f, w, m, on),
        DivScaleF32 => return div_scale32(f, w, m, on),
        _ => {}
    }
    let cmask = if matches!(f.op, Cndmask | DivFmasF64 | DivFmasF32) {
        pair(&w.sgpr, f.carry[1])
    } else {
        0
    };
    let sg = &w.sgpr;
    let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
    let dst = usize::from(f.dst);
    let d = reg(cells, dst);
    if f.op.pair_dst() {
        return wide(f, cells, sg, d, reg(cells, dst + 1), m, [cmask, on]);
    }
    match f.op {
        Cndmask if on != u64::MAX => each_on(on, |l| {
            let (a, b) = (lane32(f, 0, cells, sg, l), lane32(f, 1, cells, sg, l));
            let (a, b) = (mod32::<false>(f, 0, a), mod32::<false>(f, 1, b));
            d[l].set(if cmask >> l & 1 == 1 { b } else { a });
        }),
        Cndmask => {
            let (mut a, mut b) = (row32(f, 0, cells, sg), row32(f, 1, cells, sg));
            mods32::<false>(f, 0, &mut a);
            mods32::<false>(f, 1, &mut b);
            let sel = lane_bits(cmask);
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = (a[l] & !sel[l]) | (b[l] & sel[l]);
            }
            store32(d, &r, on);
        }
        Med3I => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, on, |l| {
                alu::int::med3_i32(a.at(l), b.at(l), c.at(l))
            }))
        }
        Med3U => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, on, |l| {
                alu::int::med3_u32(a.at(l), b.at(l), c.at(l))
            }))
        }
        Min3I => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, on, |l| {
                alu::int::min3_i32(a.at(l), b.at(l), c.at(l))
            }))
        }
        Min3U => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, on, |l| {
                alu::int::min3_u32(a.at(l), b.at(l), c.at(l))
            }))
        }
        Max3I => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, on, |l| {
                alu::int::max3_i32(a.at(l), b.at(l), c.at(l))
            }))
        }
        Max3U => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, on, |l| {
                alu::int::max3_u32(a.at(l), b.at(l), c.at(l))
            }))
        }
        BfeU => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, on, |l| {
            alu::int::bfe_u32(a.at(l), b.at(l) & 31, c.at(l) & 31)
        })),
        Alignbit => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, on, |l| {
                alu::int::alignbit_b32(a.at(l), b.at(l), c.at(l))
            }))
        }
        MulHiI => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, on, |l| {
            alu::int::mul_hi_i32(a.at(l), b.at(l))
        })),
        MaxF | MinF => {
            let (a, b) = (row32(f, 0, cells, sg), row32(f, 1, cells, sg));
            let r = match (f.op == MaxF, fz.input) {
                (true, false) => minmax::<true, false>(&a, &b, m),
                (true, true) => minmax::<true, true>(&a, &b, m),
                (false, false) => minmax::<false, false>(&a, &b, m),
                (false, true) => minmax::<false, true>(&a, &b, m),
            };
            store32(d, &r, on);
        }
        Med3F => {
            let (a, b, c) = (
                row32(f, 0, cells, sg),
                row32(f, 1, cells, sg),
                row32(f, 2, cells, sg),
            );
            let mut r = [0u32; LANES];
            for l in 0..LANES {
                r[l] = alu::float::med3::<F32>(u64::from(a[l]), u64::from(b[l]), u64::from(c[l]), m)
                    as u32;
            }
            store32(d, &r, on);
        }
        CvtF32U32 => {
            kinds!(cells, sg, [f.src[0] => a], apply(d, on, |l| (a.at(l) as f32).to_bits()))
        }
        CvtF32I32 => {
            kinds!(cells, sg, [f.src[0] => a], apply(d, on, |l| (a.at(l) as i32 as f32).to_bits()))
        }
        CvtF32Ubyte => {
            let n = u32::from(f.pred);
            kinds!(cells, sg, [f.src[0] => a], apply(d, on, |l| alu::cvt::cvt_f32_ubyte(a.at(l), n)))
        }
        // The host's saturating conversion is `alu::cvt`'s (truncate,
        // saturate, NaN to 0; a denormal truncates to 0 flushed or not).
        CvtI32F32 => {
            let a = row32(f, 0, cells, sg);
            store32(d, &map64(&a, |x| f32::from_bits(x) as i32 as u32), on);
        }
        CvtU32F32 => {
            let a = row32(f, 0, cells, sg);
            store32(d, &map64(&a, |x| f32::from_bits(x) as u32), on);
        }
        CvtF16F32 => {
            let a = row32(f, 0, cells, sg);
            store32(
                d,
                &map64(&a, |x| u32::from(alu::cvt::cvt_f16_f32(x, m))),
                on,
            );
        }
        CvtF32F16 => {
            let a = row32(f, 0, cells, sg);
            store32(d, &map64(&a, |x| alu::cvt::cvt_f32_f16(x as u16, m)), on);
        }
        CvtF32F64 => {
            let a = row64(f, 0, cells, sg);
            store32(d, &map64(&a, |x| alu::cvt::cvt_f32_f64(x, m)), on);
        }
        PkFmaF16 | PkAddF16 | PkMulF16 | PkMaxF16 | PkMinF16 => pk16(f, cells, sg, d, m, on),
        PackB32F16 => {
            let (a, b) = (row32(f, 0, cells, sg), row32(f, 1, cells, sg));
            let half = |k: usize, x: u32| {
                let h = f.half[k];
                let v = if h & 1 == 1 { x >> 16 } else { x & 0xffff };
                alu::float::input_mods::<F16>(u64::from(v), h >> 4 & 1 == 1, h >> 2 & 1 == 1) as u32
            };
            store32(d, &each(|l| half(0, a[l]) | half(1, b[l]) << 16), on);
        }
        // As the general handlers: `abs`/`neg` applied, MODE inside `alu`.
        // Each lane's usual case in one branch-free pass (it vectorises),
        // the other lanes through the whole `alu` function.
        DivFmasF32 => {
            let [a, b, c] = rows3_32(f, cells, sg);
            let sel = lane_bits(cmask);
            let r = usual(
                |l| alu::float::div_fmas_usual_f32(a[l], b[l], c[l], sel[l] != 0, m),
                |l| alu::float::div_fmas_f32(a[l], b[l], c[l], sel[l] != 0, m),
            );
            store32(d, &r, on);
        }
        DivFixupF32 => {
            let [a, b, c] = rows3_32(f, cells, sg);
            let r = usual(
                |l| alu::float::div_fixup_usual_f32(a[l], b[l], c[l]),
                |l| alu::float::div_fixup_f32(a[l], b[l], c[l]),
            );
            store32(d, &r, on);
        }
        _ => return Out::Declined,
    }
    Out::Next
}

/// Source `k` of a packed f16 µop with its halves selected and negated
/// as the general handler does ([`alu::packed::pk_operand`],
/// [`alu::packed::pk_neg_f16`]).
#[inline(always)]
fn half_row(f: &Fast, k: usize, cells: &[Cell<u32>], sg: &[u32; SGPRS]) -> [u32; LANES] {
    let h = f.half[k];
    let bit = |i: u8| h >> i & 1 == 1;
    map64(&row32(f, k, cells, sg), |x| {
        let y = alu::packed::pk_operand(x, bit(0), bit(1));
        alu::packed::pk_neg_f16(y, bit(2), bit(3))
    })
}

/// The packed f16 µops: each lane [`alu::packed`]'s operation.
#[inline(always)]
fn pk16(
    f: &Fast,
    cells: &[Cell<u32>],
    sg: &[u32; SGPRS],
    d: &[Cell<u32>; LANES],
    m: alu::Mode,
    on: u64,
) {
    use alu::packed as pk;
    let (a, b) = (half_row(f, 0, cells, sg), half_row(f, 1, cells, sg));
    let r: [u32; LANES] = match f.op {
        FOp::PkFmaF16 => {
            let c = half_row(f, 2, cells, sg);
            each(|l| pk::pk_fma_f16(a[l], b[l], c[l], m))
        }
        FOp::PkAddF16 => each(|l| pk::pk_add_f16(a[l], b[l], m)),
        FOp::PkMulF16 => each(|l| pk::pk_mul_f16(a[l], b[l], m)),
        FOp::PkMaxF16 => each(|l| pk::pk_max_f16(a[l], b[l], m)),
        _ => each(|l| pk::pk_min_f16(a[l], b[l], m)),
    };
    store32(d, &r, on);
}

/// The µops writing a VGPR pair (`vcc`: `v_div_fmas_f64`'s lane mask;
/// `on`: a sparse EXEC, or `u64::MAX`).
#[inline(always)]
fn wide(
    f: &Fast,
    cells: &[Cell<u32>],
    sg: &[u32; SGPRS],
    d: &[Cell<u32>; LANES],
    dh: &[Cell<u32>; LANES],
    m: alu::Mode,
    [vcc, on]: [u64; 2],
) -> Out {
    use FOp::*;
    let fz = Flush::f64(m.bits());
    let r = match f.op {
        CvtF64U32 => map64(&row32(f, 0, cells, sg), alu::cvt::cvt_f64_u32),
        CvtF64I32 => map64(&row32(f, 0, cells, sg), |x| alu::cvt::cvt_f64_i32(x as i32)),
        CvtF64F32 => map64(&row32(f, 0, cells, sg), |x| alu::cvt::cvt_f64_f32(x, m)),
        Lshl64 | Lshr64 | Ashr64 => {
            let (s, v) = (row32(f, 0, cells, sg), row64(f, 1, cells, sg));
            let mut r = [0u64; LANES];
            for l in 0..LANES {
                r[l] = match f.op {
                    Lshl64 => alu::int::lshlrev_b64(s[l], v[l]),
                    Lshr64 => alu::int::lshrrev_b64(s[l], v[l]),
                    _ => alu::int::ashrrev_i64(s[l], v[l]),
                };
            }
            r
        }
        PkMov if on != u64::MAX => {
            let (s0, s1) = (32 * u32::from(f.pred & 1), 32 * u32::from(f.pred >> 1 & 1));
            each_on(on, |l| {
                let (a, b) = (lane64(f, 0, cells, sg, l), lane64(f, 1, cells, sg, l));
                d[l].set((a >> s0) as u32);
                dh[l].set((b >> s1) as u32);
            });
            return Out::Next;
        }
        PkMov => {
            let (a, b) = (row64(f, 0, cells, sg), row64(f, 1, cells, sg));
            let (s0, s1) = (32 * u32::from(f.pred & 1), 32 * u32::from(f.pred >> 1 & 1));
            let mut r = [0u64; LANES];
            for l in 0..LANES {
                r[l] = u64::from((a[l] >> s0) as u32) | u64::from((b[l] >> s1) as u32) << 32;
            }
            r
        }
        LdexpF64 => {
            let (mut a, n) = (row64(f, 0, cells, sg), row32(f, 1, cells, sg));
            // `abs`/`neg` only; `alu::float::ldexp` flushes per MODE.
            mods64::<false>(f, 0, &mut a);
            let mut r = [0u64; LANES];
            let mut ok = [0u8; LANES];
            for l in 0..LANES {
                let (x, k) = ldexp64(a[l], n[l]);
                r[l] = x;
                ok[l] = u8::from(k);
            }
            // The other lanes (denormals, infinities, NaNs, results
            // leaving the normal range) as the general handler.
            if pack(&ok) != u64::MAX {
                for l in 0..LANES {
                    if ok[l] == 0 {
                        r[l] = alu::float::ldexp_f64(a[l], n[l] as i32, m);
                    }
                }
            }
            r
        }
        // As the general handlers: `abs`/`neg` on the sign, MODE's
        // flushing inside `alu`.
        RcpF64 => {
            let mut a = row64(f, 0, cells, sg);
            mods64::<false>(f, 0, &mut a);
            map64(&a, |x| alu::trans::rcp_f64(x, m))
        }
        DivFmasF64 => {
            let [a, b, c] = rows3(f, cells, sg);
            let sel = lane_bits(vcc);
            usual(
                |l| alu::float::div_fmas_usual_f64(a[l], b[l], c[l], sel[l] != 0, m),
                |l| alu::float::div_fmas_f64(a[l], b[l], c[l], sel[l] != 0, m),
            )
        }
        DivFixupF64 => {
            let [a, b, c] = rows3(f, cells, sg);
            usual(
                |l| alu::float::div_fixup_usual_f64(a[l], b[l], c[l]),
                |l| alu::float::div_fixup_f64(a[l], b[l], c[l]),
            )
        }
        AddF64 | MulF64 | FmaF64 | FmacF64 => {
            let z = [0u64; LANES];
            let (a, b) = (row64(f, 0, cells, sg), row64(f, 1, cells, sg));
            match f.op {
                AddF64 => f64op_mode::<self::AddF64>(f, [a, b, z], 2, fz),
                MulF64 => f64op_mode::<self::MulF64>(f, [a, b, z], 2, fz),
                FmaF64 => f64op_mode::<self::FmaF64>(f, [a, b, row64(f, 2, cells, sg)], 3, fz),
                _ => {
                    // As the general handler: nothing flushed; the addend
                    // is the destination.
                    let mut c = [0u64; LANES];
                    for l in 0..LANES {
                        c[l] = u64::from(d[l].get()) | u64::from(dh[l].get()) << 32;
                    }
                    f64op::<self::FmaF64, false, false>(f, [a, b, c], 2)
                }
            }
        }
        _ => return Out::Declined,
    };
    store64(d, dh, &r, on);
    Out::Next
}

/// The three f64 sources of `f`, `abs`/`neg` applied.
#[inline(always)]
fn rows3(f: &Fast, cells: &[Cell<u32>], sg: &[u32; SGPRS]) -> [[u64; LANES]; 3] {
    // Built in place: `[0, 1, 2].map(..)` went through `try_map` with a
    // copy of each row (a tenth of tone_map's time, D68).
    let mut r = [
        row64(f, 0, cells, sg),
        row64(f, 1, cells, sg),
        row64(f, 2, cells, sg),
    ];
    for (k, x) in r.iter_mut().enumerate() {
        mods64::<false>(f, k, x);
    }
    r
}

/// The three f32 sources of `f`, `abs`/`neg` applied.
#[inline(always)]
fn rows3_32(f: &Fast, cells: &[Cell<u32>], sg: &[u32; SGPRS]) -> [[u32; LANES]; 3] {
    // Built in place, as [`rows3`].
    let mut r = [
        row32(f, 0, cells, sg),
        row32(f, 1, cells, sg),
        row32(f, 2, cells, sg),
    ];
    for (k, x) in r.iter_mut().enumerate() {
        mods32::<false>(f, k, x);
    }
    r
}

/// `v_div_scale_f32`: the scaled values into the VGPR, the flags as a
/// lane mask into the SGPR pair `carry[0]`.
#[inline(always)]
fn div_scale32(f: &Fast, w: &mut Wave, m: alu::Mode, on: u64) -> Out {
    let flags = {
        let sg = &w.sgpr;
        let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
        let d = reg(cells, usize::from(f.dst));
        let [a, b, c] = rows3_32(f, cells, sg);
        // The usual lanes' result is `(s0, false)`, decided by the
        // exponents in one branch-free pass; only the others run
        // the whole `alu` function.
        let mut r = a;
        let mut k = [0u8; LANES];
        let mut odd = [0u8; LANES];
        for l in 0..LANES {
            odd[l] = u8::from(!alu::float::div_scale_usual_f32(b[l], c[l]));
        }
        if odd.iter().fold(0, |s, &o| s | o) != 0 {
            for l in 0..LANES {
                if odd[l] != 0 {
                    let (x, fl) = alu::float::div_scale_f32(a[l], b[l], c[l], m);
                    r[l] = x;
                    k[l] = u8::from(fl);
                }
            }
        }
        store32(d, &r, on);
        pack(&k)
    };
    set_pair(&mut w.sgpr, f.carry[0], flags & w.exec);
    Out::Next
}

/// `v_div_scale_f64`: the scaled values into the VGPR pair, the flags as
/// a lane mask into the SGPR pair `carry[0]`.
#[inline(always)]
fn div_scale64(f: &Fast, w: &mut Wave, m: alu::Mode, on: u64) -> Out {
    let flags = {
        let sg = &w.sgpr;
        let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
        let dst = usize::from(f.dst);
        let (d, dh) = (reg(cells, dst), reg(cells, dst + 1));
        let [a, b, c] = rows3(f, cells, sg);
        // As [`div_scale32`].
        let mut r = a;
        let mut k = [0u8; LANES];
        let mut odd = [0u8; LANES];
        for l in 0..LANES {
            odd[l] = u8::from(!alu::float::div_scale_usual_f64(b[l], c[l]));
        }
        if odd.iter().fold(0, |s, &o| s | o) != 0 {
            for l in 0..LANES {
                if odd[l] != 0 {
                    let (x, fl) = alu::float::div_scale_f64(a[l], b[l], c[l], m);
                    r[l] = x;
                    k[l] = u8::from(fl);
                }
            }
        }
        store64(d, dh, &r, on);
        pack(&k)
    };
    set_pair(&mut w.sgpr, f.carry[0], flags & w.exec);
    Out::Next
}

/// `v_mad_u64_u32`: the 64-bit sums into the VGPR pair, the carries as a
/// lane mask into the SGPR pair `carry[0]` (inactive lanes 0).
#[inline(always)]
fn mad64(f: &Fast, w: &mut Wave, on: u64) -> Out {
    let carries = {
        let sg = &w.sgpr;
        let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
        let dst = usize::from(f.dst);
        let (d, dh) = (reg(cells, dst), reg(cells, dst + 1));
        let (a, b, c) = (
            row32(f, 0, cells, sg),
            row32(f, 1, cells, sg),
            row64(f, 2, cells, sg),
        );
        let mut r = [0u64; LANES];
        let mut k = [0u8; LANES];
        for l in 0..LANES {
            let (x, cy) = alu::int::mad_u64_u32(a[l], b[l], c[l]);
            r[l] = x;
            k[l] = u8::from(cy);
        }
        store64(d, dh, &r, on);
        pack(&k)
    };
    let m = carries & w.exec;
    set_pair(&mut w.sgpr, f.carry[0], m);
    Out::Next
}

//! The fast path of the dense MFMAs other than f64: f32 accumulator with
//! f32, xf32, f16, bf16, fp8 or bf8 inputs, and i32 accumulator with i8
//! inputs. A [`DenseKernel`] is worked out once per shape; each execution
//!
//! 1. widens A and B from the register layout (lane-major per register,
//!    several items per lane) to f32 *fragments* in matrix layout ([`Frags`]),
//!    k-major: `A[b][i][k]` at `fa[(k·blocks + b)·M + i]` and `B[b][k][j]` at
//!    `fb[(k·blocks + b)·N + j]`. By the input layout (module docs of
//!    [`super`]), item `t` of lane `l = x + dim·(b + blocks·q)` is k value
//!    `t + KL·q`, so each run of `blocks·dim` consecutive lanes of one item
//!    is one contiguous run of the fragment: a pass per (item, run) with one
//!    shift, which vectorises. f16, bf16, fp8 and bf8 widen with branch-free
//!    bit arithmetic, exactly as [`super::float`] does (checked for every
//!    encoding); BLGP permutes the B lanes first;
//! 2. accumulates in place on the D registers (the caller has put C there):
//!    with 32-bit outputs each row `D[b][i][·]` is N consecutive lanes of one
//!    register, so a row is loaded as N f32 (kept in vector registers), gets
//!    one fused multiply-add per k in k order, `acc = fma(A[i][k], B[k][·],
//!    acc)` (the order and rounding [`super::mfma`] defines), and is stored
//!    back with NaN made canonical (and, with the clamp bit, an infinite
//!    result from finite C, A and B made ±MAX: a row with an infinite
//!    result is looked at again).
//!
//!    i8 inputs are widened to f32 too: a product of two is at most 2^14
//!    in magnitude and a sum of at most 32 of them stays below 2^24, so the
//!    same loop, started from 0 instead of C, computes the sum of products
//!    exactly (in any order); it is then added to C as i32, wrapping, or
//!    saturating with the clamp bit, which is what the exact sum of C and
//!    every product gives.
//!
//! Nothing is allocated per execution; both steps are cloned for AVX2+FMA
//! with runtime dispatch (as in [`crate::lanes`]); baseline x86-64 gets the
//! same results through the software `fma`. [`DenseKernel::new`] checks the
//! layout it assumes element by element against [`Shape::a_slot`],
//! [`Shape::b_slot`] and [`Shape::cd_slot`], and the tests check every shape
//! and modifier against the general evaluation bit for bit.

use super::float::{ocp_to_f32, E2M1, E4M3, E5M2};
use super::{blgp_lane, broadcast_block, plan, AccType, InType, MfmaError, Mods, Shape, Target};
use crate::wave::{VReg, LANES};
use multiversion::multiversion;

/// The most f32 values an A or B fragment holds (`K·M·blocks` of the dense
/// shapes: at most 32 items × 64 lanes, gfx950's f8f6f4 at K = 128).
pub const MAX_FRAG: usize = 2048;
/// The most output rows (`M·blocks`).
const MAX_ROWS: usize = 64;
/// The most A or B registers (gfx950's f8f6f4 with fp8: 8).
const MAX_IN_REGS: usize = 8;

const F32_QNAN: u32 = super::F32_QNAN;

/// A and B of one execution as f32 in matrix layout (module docs), plus the
/// CBSZ/ABID block selection and the clamp bit. Meant to be reused across
/// executions.
#[derive(Debug, Clone)]
pub struct Frags {
    a: [f32; MAX_FRAG],
    b: [f32; MAX_FRAG],
    cbsz: u8,
    abid: u8,
    clamp: bool,
}

impl Frags {
    /// All zero.
    pub const ZERO: Frags = Frags {
        a: [0.0; MAX_FRAG],
        b: [0.0; MAX_FRAG],
        cbsz: 0,
        abid: 0,
        clamp: false,
    };
}

impl Default for Frags {
    fn default() -> Self {
        Frags::ZERO
    }
}

/// A dense MFMA shape other than f64, prepared for [`DenseKernel::load`] and
/// [`DenseKernel::accumulate`].
#[derive(Debug, Clone)]
pub struct DenseKernel {
    shape: Shape,
    m: usize,
    n: usize,
    k: usize,
    blocks: usize,
    /// i8 inputs, i32 accumulator.
    int: bool,
    a_items: usize,
    b_items: usize,
    a_regs: usize,
    b_regs: usize,
    cd_regs: usize,
    /// Per output row `M·block + i`: its D register and first lane.
    rows: [(u8, u8); MAX_ROWS],
}

impl DenseKernel {
    /// The kernel of `shape`, if it is a dense shape with f32 accumulator
    /// and floating-point inputs or i32 accumulator and i8 inputs, whose
    /// layout is the one this kernel assumes (checked here element by
    /// element).
    pub fn new(shape: &Shape) -> Option<DenseKernel> {
        let float_in = |t: InType| !matches!(t, InType::I8 | InType::F64);
        let int = match (shape.acc, shape.a, shape.b) {
            (AccType::F32, a, b) if float_in(a) && float_in(b) => false,
            (AccType::I32, InType::I8, InType::I8) => true,
            _ => return None,
        };
        if shape.sparse {
            return None;
        }
        let (m, n, k, nb) = (shape.m, shape.n, shape.k, shape.blocks);
        let (a_items, b_items) = (shape.a_k_per_lane(), shape.b_k_per_lane());
        if m * nb > MAX_ROWS
            || k * m * nb > MAX_FRAG
            || k * n * nb > MAX_FRAG
            || shape.a_regs() > MAX_IN_REGS
            || shape.b_regs() > MAX_IN_REGS
            || !matches!(n, 4 | 16 | 32)
            || m != n
            || a_items == 0
            || b_items == 0
            || LANES % (m * nb) != 0
            || LANES % (n * nb) != 0
        {
            return None;
        }
        let mut kern = DenseKernel {
            shape: *shape,
            m,
            n,
            k,
            blocks: nb,
            int,
            a_items,
            b_items,
            a_regs: shape.a_regs(),
            b_regs: shape.b_regs(),
            cd_regs: shape.cd_regs(),
            rows: [(0, 0); MAX_ROWS],
        };
        // Where widen() puts an input slot (item t, lane l = x + G·q with
        // G = blocks·dim): (t + KL·q)·G + x.
        let frag_at = |s: super::Slot, bits: u32, items: usize, dim: usize| {
            let t = (s.reg * 32 + s.shift as usize) / bits as usize;
            let g = dim * nb;
            (t + items * (s.lane / g)) * g + s.lane % g
        };
        for blk in 0..nb {
            for i in 0..m {
                let first = shape.cd_slot(blk, i, 0);
                kern.rows[blk * m + i] = (first.reg as u8, first.lane as u8);
                for j in 0..n {
                    let s = shape.cd_slot(blk, i, j);
                    if s.reg != first.reg || s.lane != first.lane + j || first.lane + n > LANES {
                        return None;
                    }
                }
                for kk in 0..k {
                    let at = frag_at(shape.a_slot(blk, i, kk), shape.a.bits(), a_items, m);
                    if at != (kk * nb + blk) * m + i {
                        return None;
                    }
                }
            }
            for kk in 0..k {
                for j in 0..n {
                    let at = frag_at(shape.b_slot(blk, kk, j), shape.b.bits(), b_items, n);
                    if at != (kk * nb + blk) * n + j {
                        return None;
                    }
                }
            }
        }
        Some(kern)
    }

    /// The shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Registers of A.
    pub fn a_regs(&self) -> usize {
        self.a_regs
    }

    /// Registers of B.
    pub fn b_regs(&self) -> usize {
        self.b_regs
    }

    /// Registers of C and D.
    pub fn cd_regs(&self) -> usize {
        self.cd_regs
    }

    /// Checks the modifiers for `target` and widens A (`a`, the src0
    /// registers) and B (`b`, src1) into `f`.
    pub fn load(
        &self,
        target: Target,
        a: &[VReg],
        b: &[VReg],
        mods: &Mods,
        f: &mut Frags,
    ) -> Result<(), MfmaError> {
        let name = self.shape.name();
        let p = plan(&self.shape, target, mods)?;
        super::check_regs(name, "A", self.a_regs, a.len())?;
        super::check_regs(name, "B", self.b_regs, b.len())?;
        f.cbsz = p.cbsz;
        f.abid = p.abid;
        f.clamp = mods.clamp;
        let flush = mods.flush_f32_input_denorms;
        let (k, nb) = (self.k, self.blocks);
        let a_in = In {
            ty: self.shape.a,
            items: self.a_items,
            group: self.m * nb,
            flush,
        };
        widen(a_in, a, &mut f.a[..k * self.m * nb]);
        let b_in = In {
            ty: self.shape.b,
            items: self.b_items,
            group: self.n * nb,
            flush,
        };
        let fb = &mut f.b[..k * self.n * nb];
        if p.blgp_lanes == 0 {
            widen(b_in, b, fb);
        } else {
            let mut perm = [[0u32; LANES]; MAX_IN_REGS];
            for (dst, src) in perm.iter_mut().zip(b) {
                for (l, x) in dst.iter_mut().enumerate() {
                    *x = src[blgp_lane(p.blgp_lanes, l)];
                }
            }
            widen(b_in, &perm[..b.len()], fb);
        }
        Ok(())
    }

    /// `D += A·B` in place on `d` (the D registers, already holding C), for
    /// the A and B that [`DenseKernel::load`] put in `f`. Panics if `d` is not
    /// [`DenseKernel::cd_regs`] registers.
    pub fn accumulate(&self, f: &Frags, d: &mut [VReg]) {
        assert_eq!(d.len(), self.cd_regs, "D registers");
        accumulate(self, f, d);
    }
}

/// [`DenseKernel::accumulate`], cloned per target.
#[multiversion(targets("x86_64+avx2+fma+f16c"))]
fn accumulate(kern: &DenseKernel, f: &Frags, d: &mut [VReg]) {
    if kern.int {
        by_shape::<true>(kern, f, d);
    } else {
        by_shape::<false>(kern, f, d);
    }
}

/// The single-block shapes with the dimensions fixed at compile time (the
/// k loop unrolled, several rows at once), the rest by N only.
#[inline(always)]
fn by_shape<const INT: bool>(kern: &DenseKernel, f: &Frags, d: &mut [VReg]) {
    match (kern.n, kern.k, kern.blocks) {
        (32, 2, 1) => single::<32, 2, 2, INT>(kern, f, d),
        (32, 4, 1) => single::<32, 4, 2, INT>(kern, f, d),
        (32, 8, 1) => single::<32, 8, 2, INT>(kern, f, d),
        (32, 16, 1) => single::<32, 16, 2, INT>(kern, f, d),
        (16, 4, 1) => single::<16, 4, 4, INT>(kern, f, d),
        (16, 8, 1) => single::<16, 8, 4, INT>(kern, f, d),
        (16, 16, 1) => single::<16, 16, 4, INT>(kern, f, d),
        (16, 32, 1) => single::<16, 32, 4, INT>(kern, f, d),
        (32, _, _) => rows::<32, INT>(kern, f, d),
        (16, _, _) => rows::<16, INT>(kern, f, d),
        _ => rows::<4, INT>(kern, f, d),
    }
}

/// A row's accumulators: C (f32), or 0 for the integer shapes (whose C is
/// added in [`store_row`]).
#[inline(always)]
fn load_row<const N: usize, const INT: bool>(src: &[u32], acc: &mut [f32; N]) {
    for (x, &v) in acc.iter_mut().zip(src) {
        *x = if INT { 0.0 } else { f32::from_bits(v) };
    }
}

/// Stores a finished row over its C in `dst`: f32 with NaN canonical (and
/// the clamp bit applied), or for the integer shapes C plus the exact sum
/// of products (which `acc` holds exactly: at most 32 products of 8-bit
/// integers), wrapping to i32 or, with the clamp bit, saturating.
#[inline(always)]
fn store_row<const INT: bool>(
    kern: &DenseKernel,
    f: &Frags,
    acc: &mut [f32],
    dst: &mut [u32],
    (blk, ablk, i): (usize, usize, usize),
) {
    if INT {
        for (v, &x) in dst.iter_mut().zip(acc.iter()) {
            let (c, s) = (*v as i32, x as i32);
            *v = if f.clamp {
                c.saturating_add(s)
            } else {
                c.wrapping_add(s)
            } as u32;
        }
        return;
    }
    if f.clamp {
        clamp_row(kern, f, acc, dst, blk, ablk, i);
    }
    for (v, &x) in dst.iter_mut().zip(acc.iter()) {
        *v = if x.is_nan() { F32_QNAN } else { x.to_bits() };
    }
}

/// [`rows`] for a single-block shape with M = N, K and N known: `R` rows
/// at a time (independent accumulators, each B row loaded once for all).
#[inline(always)]
fn single<const N: usize, const K: usize, const R: usize, const INT: bool>(
    kern: &DenseKernel,
    f: &Frags,
    d: &mut [VReg],
) {
    let (Some(fa), Some(fb)) = (f.a.get(..K * N), f.b.get(..K * N)) else {
        return;
    };
    for (g, rows) in kern.rows[..N].chunks_exact(R).enumerate() {
        let mut acc = [[0f32; N]; R];
        for (a, &(r, o)) in acc.iter_mut().zip(rows) {
            let o = usize::from(o);
            if let Some(src) = d[usize::from(r)].get(o..o + N) {
                load_row::<N, INT>(src, a);
            }
        }
        for k in 0..K {
            let brow = &fb[k * N..k * N + N];
            for (q, a) in acc.iter_mut().enumerate() {
                let x = fa[k * N + g * R + q];
                for (y, &bv) in a.iter_mut().zip(brow) {
                    *y = x.mul_add(bv, *y);
                }
            }
        }
        for (q, (a, &(r, o))) in acc.iter_mut().zip(rows).enumerate() {
            let o = usize::from(o);
            if let Some(dst) = d[usize::from(r)].get_mut(o..o + N) {
                store_row::<INT>(kern, f, a, dst, (0, 0, g * R + q));
            }
        }
    }
}

/// The rows of D, `N` (= the shape's N) lanes each: one fused multiply-add
/// per k, in k order, per element; NaN results canonical.
#[inline(always)]
fn rows<const N: usize, const INT: bool>(kern: &DenseKernel, f: &Frags, d: &mut [VReg]) {
    let (m, k, nb) = (kern.m, kern.k, kern.blocks);
    // Per k, the A column and the B row of every block.
    let (fa, fb) = (&f.a[..k * m * nb], &f.b[..k * N * nb]);
    for blk in 0..nb {
        let ablk = broadcast_block(blk, f.cbsz, f.abid);
        for (i, &(r, o)) in kern.rows[blk * m..(blk + 1) * m].iter().enumerate() {
            let o = usize::from(o);
            let Some(dst) = d[usize::from(r)].get_mut(o..o + N) else {
                continue;
            };
            let mut acc = [0f32; N];
            load_row::<N, INT>(dst, &mut acc);
            let a_col = fa.iter().skip(ablk * m + i).step_by(m * nb);
            for (&x, bk) in a_col.zip(fb.chunks_exact(N * nb)) {
                let Some(brow) = bk.get(blk * N..).and_then(|r| r.first_chunk::<N>()) else {
                    continue;
                };
                for (y, &bv) in acc.iter_mut().zip(brow) {
                    *y = x.mul_add(bv, *y);
                }
            }
            store_row::<INT>(kern, f, &mut acc, dst, (blk, ablk, i));
        }
    }
}

/// The clamp bit on a finished row `acc` of block `blk` (A from block
/// `ablk`), row `i`, whose C is still in `c`: an infinite result becomes
/// ±MAX unless C or one of the A or B values it was computed from is
/// infinite (rare: only rows with an infinite result are looked at).
#[inline(never)]
#[cold]
fn clamp_row_slow(
    kern: &DenseKernel,
    f: &Frags,
    acc: &mut [f32],
    c: &[u32],
    (blk, ablk, i): (usize, usize, usize),
) {
    let (m, n, nb) = (kern.m, kern.n, kern.blocks);
    let a_inf = (0..kern.k).any(|k| f.a[(k * nb + ablk) * m + i].is_infinite());
    for (j, (x, &cv)) in acc.iter_mut().zip(c).enumerate() {
        if !x.is_infinite() || a_inf || f32::from_bits(cv).is_infinite() {
            continue;
        }
        if !(0..kern.k).any(|k| f.b[(k * nb + blk) * n + j].is_infinite()) {
            *x = f32::MAX.copysign(*x);
        }
    }
}

/// [`clamp_row_slow`] if the row has an infinite result.
#[inline(always)]
fn clamp_row(
    kern: &DenseKernel,
    f: &Frags,
    acc: &mut [f32],
    c: &[u32],
    blk: usize,
    ablk: usize,
    i: usize,
) {
    if acc.iter().any(|x| x.is_infinite()) {
        clamp_row_slow(kern, f, acc, c, (blk, ablk, i));
    }
}

/// How one input operand is widened.
#[derive(Debug, Clone, Copy)]
struct In {
    ty: InType,
    /// Items per lane (KL).
    items: usize,
    /// `blocks·dim`: lanes per run of consecutive rows/columns.
    group: usize,
    /// Flush f32 input denormals.
    flush: bool,
}

/// Widens the operand `regs` to f32 in matrix layout: item `t` of lane
/// `x + group·q` to `out[(t + items·q)·group + x]`.
#[multiversion(targets("x86_64+avx2+fma+f16c"))]
fn widen(p: In, regs: &[VReg], out: &mut [f32]) {
    match (p.ty, p.flush) {
        (InType::F16, _) => items::<2>(p, regs, out, |w| f16_bits_to_f32(w & 0xFFFF)),
        (InType::Bf16, _) => items::<2>(p, regs, out, |w| f32::from_bits(w << 16)),
        (InType::Fp8, _) => items::<4>(p, regs, out, |w| fnuz_bits_to_f32::<3, 8>(w & 0xFF)),
        (InType::Bf8, _) => items::<4>(p, regs, out, |w| fnuz_bits_to_f32::<2, 16>(w & 0xFF)),
        (InType::Fp8Ocp, _) => items::<4>(p, regs, out, |w| ocp_to_f32(w, E4M3)),
        (InType::Bf8Ocp, _) => items::<4>(p, regs, out, |w| ocp_to_f32(w, E5M2)),
        (InType::Fp4, _) => items::<8>(p, regs, out, |w| ocp_to_f32(w, E2M1)),
        (InType::F32, false) => items::<1>(p, regs, out, f32::from_bits),
        (InType::F32, true) => items::<1>(p, regs, out, |w| f32::from_bits(flush_bits(w))),
        (InType::Xf32, false) => items::<1>(p, regs, out, |w| f32::from_bits(xf32_bits(w))),
        (InType::Xf32, true) => {
            items::<1>(p, regs, out, |w| f32::from_bits(xf32_bits(flush_bits(w))))
        }
        (InType::I8, _) => items::<4>(p, regs, out, |w| f32::from(w as u8 as i8)),
        // Not an input of these shapes (DenseKernel::new refuses f64).
        (InType::F64, _) => {}
    }
}

/// [`widen`] for `PER` items per register: `conv` gets a word shifted so
/// the item is in its low bits (the bits above it are the next items').
#[inline(always)]
fn items<const PER: usize>(p: In, regs: &[VReg], out: &mut [f32], conv: impl Fn(u32) -> f32) {
    let bits = 32 / PER;
    for (r, reg) in regs.iter().enumerate() {
        for (q, src) in reg.chunks_exact(p.group).enumerate() {
            for part in 0..PER {
                let t = r * PER + part;
                if t >= p.items {
                    break;
                }
                let at = (t + p.items * q) * p.group;
                let Some(dst) = out.get_mut(at..at + p.group) else {
                    return;
                };
                let sh = (part * bits) as u32;
                for (x, &w) in dst.iter_mut().zip(src) {
                    *x = conv(w >> sh);
                }
            }
        }
    }
}

/// binary16 bits (low 16 of `h`) to f32, exactly as
/// [`super::float::f16_to_f32`], without branches. Subnormals go through
/// an integer conversion and an exact scaling whose operands and result
/// are normal f32, so the host's denormals-are-zero mode cannot touch
/// them.
#[inline(always)]
pub(crate) fn f16_bits_to_f32(h: u32) -> f32 {
    let sign = (h & 0x8000) << 16;
    let em = h & 0x7FFF;
    let normal = (em << 13) + (112 << 23);
    let special = (em << 13) | 0x7F80_0000;
    // ±0 or subnormal: man · 2^-24, exact.
    let sub = (em as f32 * f32::from_bits(0x3380_0000)).to_bits();
    let mag = if em >= 0x7C00 {
        special
    } else if em < 0x400 {
        sub
    } else {
        normal
    };
    f32::from_bits(mag | sign)
}

/// FNUZ fp8/bf8 bits (low 8 of `b`, `M` mantissa bits, exponent bias
/// `BIAS`) to f32, exactly as [`super::float::fp8_to_f32`] and
/// [`super::float::bf8_to_f32`], without branches (subnormals as in
/// [`f16_bits_to_f32`]; 0x80 is NaN).
#[inline(always)]
pub(crate) fn fnuz_bits_to_f32<const M: u32, const BIAS: u32>(b: u32) -> f32 {
    let em = b & 0x7F;
    let normal = (em << (23 - M)) + ((127 - BIAS) << 23);
    // Exponent field 0: man · 2^(1 - BIAS - M), exact.
    let scale = f32::from_bits((127 + 1 - BIAS - M) << 23);
    let sub = (em as f32 * scale).to_bits();
    let mag = if em >> M == 0 { sub } else { normal };
    let v = mag | ((b & 0x80) << 24);
    f32::from_bits(if b == 0x80 { f32::NAN.to_bits() } else { v })
}

/// [`super::float::flush_f32`] on bits.
#[inline(always)]
fn flush_bits(w: u32) -> u32 {
    if w & 0x7F80_0000 == 0 {
        w & 0x8000_0000
    } else {
        w
    }
}

/// [`super::float::round_to_xf32`] on bits.
#[inline(always)]
fn xf32_bits(b: u32) -> u32 {
    if b & 0x7F80_0000 == 0x7F80_0000 {
        b
    } else {
        b.wrapping_add(0xFFF + ((b >> 13) & 1)) & !0x1FFF
    }
}

#[cfg(test)]
mod tests {
    use super::super::float;
    use super::*;

    #[test]
    fn f16_widening_matches_the_reference_for_every_encoding() {
        for h in 0..=u16::MAX {
            let want = float::f16_to_f32(h).to_bits();
            assert_eq!(f16_bits_to_f32(u32::from(h)).to_bits(), want, "{h:#06x}");
        }
    }

    #[test]
    fn fnuz_widening_matches_the_reference_for_every_encoding() {
        for b in 0..=u8::MAX {
            let fp8 = float::fp8_to_f32(b).to_bits();
            let bf8 = float::bf8_to_f32(b).to_bits();
            assert_eq!(
                fnuz_bits_to_f32::<3, 8>(u32::from(b)).to_bits(),
                fp8,
                "fp8 {b:#04x}"
            );
            assert_eq!(
                fnuz_bits_to_f32::<2, 16>(u32::from(b)).to_bits(),
                bf8,
                "bf8 {b:#04x}"
            );
        }
    }

    #[test]
    fn f32_flush_and_xf32_rounding_match_the_reference() {
        let mut x = 0x1234_5678u32;
        let specials = [
            0,
            0x8000_0000,
            1,
            0x8000_0001,
            0x007F_FFFF,
            0x0080_0000,
            0x7F80_0000,
            0xFF80_0000,
            0x7FC0_0000,
            0x7F80_0001,
            0x3F80_1000,
            0x3F80_3000,
            0x7F7F_FFFF,
        ];
        let mut check = |w: u32| {
            let f = f32::from_bits(w);
            assert_eq!(flush_bits(w), float::flush_f32(f).to_bits(), "{w:#x}");
            assert_eq!(xf32_bits(w), float::round_to_xf32(f).to_bits(), "{w:#x}");
        };
        specials.into_iter().for_each(&mut check);
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            check(x);
        }
    }

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 16) as u32
        }
    }

    /// A random register word of `ty` elements; `tame` keeps exponents
    /// near 1 (so sums are neither all overflow nor all one term).
    fn word(r: &mut Rng, ty: InType, tame: bool) -> u32 {
        let w = r.next();
        let e = r.next();
        if e % 16 == 0 {
            // Specials: ±∞, NaN, ±MAX, subnormals, zeros.
            let pick = (e >> 4) as usize;
            return match ty {
                InType::F32 | InType::Xf32 => [
                    0x7F80_0000,
                    0xFF80_0000,
                    0x7FC0_0001,
                    0x7F7F_FFFF,
                    0xFF7F_FFFF,
                    1,
                    0x8000_0000,
                ][pick % 7],
                InType::F16 => [0x7C00_3C00, 0xFC00_7BFF, 0x7E01_0001, 0x8000_FBFF][pick % 4],
                InType::Bf16 => [0x7F80_3F80, 0xFF80_7F7F, 0x7FC1_0001, 0x8000_FF7F][pick % 4],
                _ => [0x807F_0180, 0x7F7F_FFFF, 0x0180_8001][pick % 3],
            };
        }
        if !tame {
            return w;
        }
        match ty {
            InType::F32 | InType::Xf32 => (w & 0x807F_FFFF) | ((124 + e % 8) << 23),
            InType::Bf16 => (w & 0x807F_807F) | ((124 + e % 8) << 23) | ((124 + (e >> 3) % 8) << 7),
            InType::F16 => (w & 0x83FF_83FF) | ((12 + e % 8) << 26) | ((12 + (e >> 3) % 8) << 10),
            _ => w,
        }
    }

    /// The kernel against [`super::super::general`] (the element-by-element
    /// definition) on random bits, with every valid BLGP, CBSZ/ABID and
    /// input-denormal flush setting: bit-identical D.
    #[test]
    fn kernel_matches_the_general_evaluation_bit_for_bit() {
        let mut r = Rng(0x9E37_79B9_7F4A_7C15);
        let mut cases = 0;
        for s in super::super::SHAPES {
            let Some(kern) = DenseKernel::new(s) else {
                continue;
            };
            for t in [Target::Gfx90a, Target::Gfx942, Target::Gfx950] {
                let Some(v) = s.variant(t) else {
                    continue;
                };
                let blgps: &[u8] = if v.blgp == super::super::BlgpUse::LaneGroups {
                    &[0, 1, 2, 3, 4, 5, 6, 7]
                } else {
                    &[0]
                };
                let mut bcast = vec![(0u8, 0u8)];
                if s.broadcast {
                    for cbsz in 1..=s.blocks.trailing_zeros() as u8 {
                        bcast.push((cbsz, r.next() as u8 % (1 << cbsz)));
                    }
                }
                for &blgp in blgps {
                    for &(cbsz, abid) in &bcast {
                        for round in 0..8 {
                            let tame = round % 3 == 1;
                            let regs = |r: &mut Rng, n: usize, ty: InType| -> Vec<VReg> {
                                (0..n)
                                    .map(|_| std::array::from_fn(|_| word(r, ty, tame)))
                                    .collect()
                            };
                            let a = regs(&mut r, s.a_regs(), s.a);
                            let b = regs(&mut r, s.b_regs(), s.b);
                            let mut c = regs(&mut r, s.cd_regs(), InType::F32);
                            if kern.int {
                                // Sums near the ends of i32: wrap or saturate.
                                for x in c.iter_mut().flatten() {
                                    let e = r.next();
                                    let near = (e >> 2) % 40_000;
                                    *x = match e % 4 {
                                        0 => i32::MAX.unsigned_abs() - near,
                                        1 => i32::MIN.unsigned_abs() + near,
                                        _ => *x,
                                    };
                                }
                            }
                            let mods = Mods {
                                cbsz,
                                abid,
                                blgp,
                                clamp: round % 4 >= 2,
                                flush_f32_input_denorms: round % 2 == 1,
                            };
                            let p = plan(s, t, &mods).expect("valid modifiers");
                            let want = super::super::general(s, &p, &a, &b, &c, &mods);
                            let mut f = Box::<Frags>::default();
                            kern.load(t, &a, &b, &mods, &mut f).expect("load");
                            let mut d = c.clone();
                            kern.accumulate(&f, &mut d);
                            for (k, (x, y)) in d.iter().zip(&want).enumerate() {
                                for l in 0..LANES {
                                    assert_eq!(
                                        x[l],
                                        y[l],
                                        "{} on {t}: reg {k} lane {l}, {mods:?}",
                                        s.name()
                                    );
                                }
                            }
                            cases += 1;
                        }
                    }
                }
            }
        }
        assert!(cases > 200, "{cases} cases");
    }

    #[test]
    fn every_f32_accumulator_shape_has_a_kernel() {
        for s in super::super::SHAPES {
            let want = !s.sparse && s.acc != AccType::F64;
            assert_eq!(DenseKernel::new(s).is_some(), want, "{}", s.name());
        }
    }
}

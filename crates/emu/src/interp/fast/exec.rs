//! Executing µops: [`run`] one, [`lane`] straight-line runs of them.

use std::cell::Cell;

use multiversion::multiversion;

use super::lanes::{apply, apply_nan, reg, splat, Lanes};
use super::{ext, FOp, Fast, Out, Part, Src};
use crate::interp::regs::sreg_read;
use crate::interp::valu::{mode_modelled, Flush, M};
use crate::interp::DecodeCache;
use crate::lanes::flush32;
use crate::wave::{Wave, LANES, SGPRS};
use crate::xlane::{sdwa_src, SdwaSel};
use lathe_isa::reg::sreg::EXEC_LO;

/// Executes `f` on `w` under any EXEC. Returns [`Out::Declined`], having
/// changed nothing, when the general handler must run instead: a register
/// outside the wave's file or a MODE the fast tier does not model.
///
/// Under a partial EXEC a whole-wave vector µop computes every lane and
/// [`masked`] then puts back the inactive lanes of what it wrote.
pub(in crate::interp) fn run(f: &Fast, w: &mut Wave) -> Out {
    if f.route.full && w.exec != u64::MAX {
        masked(f, w)
    } else {
        run_full(f, w)
    }
}

/// [`exec`] compiled apart (the AVX2/FMA clone chosen at run time).
#[multiversion(targets("x86_64+avx2+fma+f16c"))]
fn run_full(f: &Fast, w: &mut Wave) -> Out {
    exec(f, w)
}

/// A whole-wave vector µop under a partial EXEC: every lane computed
/// ([`run_full`]: lane operations have no side effects), then the
/// inactive lanes of its destination VGPRs restored and a carry-out mask
/// cleared there, as the general handlers leave them (they compute only
/// active lanes and write `carry & EXEC`). The save and the blend are
/// compiled in the AVX2 clone too (divergent loops run every vector µop
/// through here).
#[multiversion(targets("x86_64+avx2+fma+f16c"))]
fn masked(f: &Fast, w: &mut Wave) -> Out {
    let dst = usize::from(f.dst);
    let n = 1 + usize::from(f.op.pair_dst() || f.op.packed());
    if dst + n > w.vgpr.len() {
        return Out::Declined;
    }
    let mut old = [[0u32; LANES]; 2];
    old[..n].copy_from_slice(&w.vgpr[dst..dst + n]);
    let out = exec(f, w);
    if out == Out::Declined {
        return out;
    }
    let on = ext::lane_bits(w.exec);
    for (r, o) in w.vgpr[dst..dst + n].iter_mut().zip(&old) {
        for l in 0..LANES {
            r[l] = (r[l] & on[l]) | (o[l] & !on[l]);
        }
    }
    if f.op.carry() {
        let c = ext::pair(&w.sgpr, f.carry[0]) & w.exec;
        ext::set_pair(&mut w.sgpr, f.carry[0], c);
    }
    out
}

/// Runs the µops of straight-line code from the decode-cache entry `k`
/// (the instruction at `w.pc`) on, at most `budget` of them, counting
/// each in `counts` and `w.instructions` and advancing `w.pc`; stops at
/// the first entry without a µop or whose µop declines. The caller has checked what µops
/// cannot change (no GPR indexing, nothing owed to `s_waitcnt`); EXEC,
/// which `v_cmpx` µops write, is checked before each whole-wave µop.
/// Returns how many ran and the cache entry of the
/// instruction now at `w.pc`, when it is decoded.
#[multiversion(targets("x86_64+avx2+fma+f16c"))]
pub(in crate::interp) fn lane(
    cache: &mut DecodeCache,
    counts: &mut [u64],
    uops: Option<&mut [u64]>,
    w: &mut Wave,
    k: usize,
    budget: u64,
) -> (u64, Option<usize>) {
    let (mut uops, mut k) = (uops, k);
    let mut n = 0;
    while n < budget {
        let d = &cache.arena[k];
        let Some(f) = &d.fast else { break };
        let out = if f.route.full && w.exec != u64::MAX {
            masked(f, w)
        } else {
            exec(f, w)
        };
        let taken = match out {
            Out::Declined => break,
            Out::Next => {
                w.pc += u64::from(d.len);
                false
            }
            Out::Taken => {
                // Only branches with a decoded target get a µop.
                w.pc = d.target.unwrap_or(w.pc + u64::from(d.len));
                true
            }
        };
        n += 1;
        w.instructions += 1;
        if let Some(c) = counts.get_mut(d.slot as usize) {
            *c += 1;
        }
        // Counting µops per opcode (off by default): one predictable
        // branch per µop, not a second copy of the loop.
        if let Some(c) = uops.as_deref_mut().and_then(|u| u.get_mut(d.slot as usize)) {
            *c += 1;
        }
        let link = if taken { d.taken.get() } else { d.next.get() };
        k = match link {
            0 => match cache.find(w.pc) {
                Some(j) => {
                    let d = &cache.arena[k];
                    (if taken { &d.taken } else { &d.next }).set(j as u32 + 1);
                    j
                }
                None => return (n, None),
            },
            j => j as usize - 1,
        };
    }
    (n, Some(k))
}

/// [`run`]'s body, inlined into each compiled version.
#[inline(always)]
fn exec(f: &Fast, w: &mut Wave) -> Out {
    let n = w.vgpr.len();
    if f.route.moded && w.mode != M.bits() && !mode_modelled(w.mode, false) {
        return Out::Declined;
    }
    let dst = f.dst as usize;
    if usize::from(f.top) > n {
        return Out::Declined;
    }
    let staged;
    let f = if f.route.sdwa {
        staged = stage(f, w);
        &staged
    } else {
        f
    };
    match f.route.part {
        Part::Wide => return wide(f, w),
        Part::Carry => return carry(f, w),
        Part::Ext => return ext::exec(f, w),
        Part::Salu | Part::Lanes => {}
    }
    if f.route.part == Part::Salu {
        // Scalar sources of scalar µops: any scalar register.
        let res = |s: Src| match s {
            Src::S(r) => sreg_read(w, r),
            Src::K(c) => c,
            Src::V(_) => 0,
        };
        let (a, b) = (res(f.src[0]), res(f.src[1]));
        if f.op == FOp::WriteLane {
            w.vgpr[dst][b as usize & (LANES - 1)] = a;
            return Out::Next;
        }
        return scalar(f, w, [a, b]);
    }
    // VGPR numbers were checked against the file above; scalar sources
    // are plain SGPRs (the register file and the SGPRs are disjoint
    // fields, borrowed apart).
    let mode = w.mode;
    let sg = &w.sgpr;
    let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
    let d = reg(cells, dst);
    use FOp::*;
    match f.op {
        Mov => kinds!(cells, sg, [f.src[0] => a], apply(d, |l| a.at(l))),
        Not => kinds!(cells, sg, [f.src[0] => a], apply(d, |l| !a.at(l))),
        Add => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| a.at(l).wrapping_add(b.at(l))))
        }
        Sub => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| a.at(l).wrapping_sub(b.at(l))))
        }
        Subrev => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| b.at(l).wrapping_sub(a.at(l))))
        }
        And => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| a.at(l) & b.at(l))),
        Or => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| a.at(l) | b.at(l))),
        Xor => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| a.at(l) ^ b.at(l))),
        Lshl => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| b.at(l) << (a.at(l) & 31)))
        }
        Lshr => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| b.at(l) >> (a.at(l) & 31)))
        }
        Ashr => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            ((b.at(l) as i32) >> (a.at(l) & 31)) as u32
        })),
        MulLo => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| a.at(l).wrapping_mul(b.at(l))))
        }
        MulHi => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            ((u64::from(a.at(l)) * u64::from(b.at(l))) >> 32) as u32
        })),
        MulU24 => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            (a.at(l) & 0xff_ffff).wrapping_mul(b.at(l) & 0xff_ffff)
        })),
        MinU => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| a.at(l).min(b.at(l))))
        }
        MaxU => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| a.at(l).max(b.at(l))))
        }
        MinI => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            (a.at(l) as i32).min(b.at(l) as i32) as u32
        })),
        MaxI => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            (a.at(l) as i32).max(b.at(l) as i32) as u32
        })),
        Add3 => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            a.at(l).wrapping_add(b.at(l)).wrapping_add(c.at(l))
        })),
        LshlAdd => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            (a.at(l) << (b.at(l) & 31)).wrapping_add(c.at(l))
        })),
        AddLshl => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            a.at(l).wrapping_add(b.at(l)) << (c.at(l) & 31)
        })),
        LshlOr => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            (a.at(l) << (b.at(l) & 31)) | c.at(l)
        })),
        AndOr => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            (a.at(l) & b.at(l)) | c.at(l)
        })),
        Or3 => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            a.at(l) | b.at(l) | c.at(l)
        })),
        Xad => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            (a.at(l) ^ b.at(l)).wrapping_add(c.at(l))
        })),
        Bfi => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            let m = a.at(l);
            (m & b.at(l)) | (!m & c.at(l))
        })),
        MadU24 => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            (a.at(l) & 0xff_ffff)
                .wrapping_mul(b.at(l) & 0xff_ffff)
                .wrapping_add(c.at(l))
        })),
        AddF | SubF | SubrevF | MulF | FmaF | FmacF | RcpF | RsqF | SqrtF | PkFma | PkMul
        | PkAdd => {
            let fz = Flush::f32(mode);
            return match (fz.input, fz.output) {
                (false, false) => float::<false, false>(f, cells, sg, d, mode),
                (true, true) => float::<true, true>(f, cells, sg, d, mode),
                (true, false) => float::<true, false>(f, cells, sg, d, mode),
                (false, true) => float::<false, true>(f, cells, sg, d, mode),
            };
        }
        // Scalar µops returned above.
        _ => return Out::Declined,
    }
    Out::Next
}

/// An SDWA µop's selected source fields ([`Fast::sel`]) written into
/// the wave's temporary VGPRs (as the general SDWA wrapper stages them,
/// with [`sdwa_src`]), and the µop reading them there.
#[inline(never)]
fn stage(f: &Fast, w: &mut Wave) -> Fast {
    let mut g = *f;
    for k in 0..2 {
        let code = f.sel[k];
        let Some(sel) = SdwaSel::decode(code & 7).filter(|_| code != super::NO_SEL) else {
            continue;
        };
        let sext = code >> 3 & 1 == 1;
        let t = w.temp_base() + k;
        for l in 0..LANES {
            let v = match f.src[k] {
                Src::V(r) => w.vgpr[usize::from(r)][l],
                s => splat(&w.sgpr, s),
            };
            w.vgpr[t][l] = sdwa_src(v, sel, sext);
        }
        g.src[k] = Src::V(t as u16);
    }
    g
}

/// The float µops of [`run`], with the denormal flushing of MODE as
/// constants (`FI`: inputs, `FO`: results), so the usual MODE (no
/// flushing) costs nothing per lane.
#[inline(always)]
fn float<const FI: bool, const FO: bool>(
    f: &Fast,
    cells: &[Cell<u32>],
    sg: &[u32; SGPRS],
    d: &[Cell<u32>; LANES],
    mode: u32,
) -> Out {
    let [and0, and1, and2] = f.and;
    let [xor0, xor1, xor2] = f.xor;
    let fl = |x: u32, and: u32, xor: u32| f32::from_bits(flush32(FI, (x & and) ^ xor));
    let out = |x: f32| flush32(FO, x.to_bits());
    let dst = f.dst as usize;
    use FOp::*;
    match f.op {
        AddF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            out(fl(a.at(l), and0, xor0) + fl(b.at(l), and1, xor1))
        })),
        SubF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            out(fl(a.at(l), and0, xor0) - fl(b.at(l), and1, xor1))
        })),
        SubrevF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            out(fl(b.at(l), and1, xor1) - fl(a.at(l), and0, xor0))
        })),
        MulF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            out(fl(a.at(l), and0, xor0) * fl(b.at(l), and1, xor1))
        })),
        FmaF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            out(fl(a.at(l), and0, xor0).mul_add(fl(b.at(l), and1, xor1), fl(c.at(l), and2, xor2)))
        })),
        RcpF => kinds!(cells, sg, [f.src[0] => a], apply(d, |l| {
            out(1.0 / fl(a.at(l), and0, xor0))
        })),
        RsqF => kinds!(cells, sg, [f.src[0] => a], apply(d, |l| {
            out((1.0 / f64::from(fl(a.at(l), and0, xor0)).sqrt()) as f32)
        })),
        SqrtF => kinds!(cells, sg, [f.src[0] => a], apply(d, |l| {
            out(fl(a.at(l), and0, xor0).sqrt())
        })),
        FmacF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            out(fl(a.at(l), and0, xor0).mul_add(fl(b.at(l), and1, xor1), fl(d[l].get(), u32::MAX, 0)))
        })),
        PkFma | PkMul | PkAdd => {
            // NaN results take the general handler's reference path, lane
            // by lane, as there.
            let m = crate::alu::Mode::from_bits(mode);
            let dh = reg(cells, dst + 1);
            for (half, dd, srcs) in [(0, d, f.src), (1, dh, f.hi)] {
                let x = |k: usize| {
                    if half == 0 {
                        f.xor[k]
                    } else if f.neg_hi >> k & 1 == 1 {
                        0x8000_0000
                    } else {
                        0
                    }
                };
                let (x0, x1, x2) = (x(0), x(1), x(2));
                let mx = u32::MAX;
                match f.op {
                    PkFma => {
                        kinds!(cells, sg, [srcs[0] => a, srcs[1] => b, srcs[2] => c], apply_nan(dd, |l| {
                        out(fl(a.at(l), mx, x0).mul_add(fl(b.at(l), mx, x1), fl(c.at(l), mx, x2)))
                    }, |l| crate::alu::float::fma_f32(a.at(l) ^ x0, b.at(l) ^ x1, c.at(l) ^ x2, m)))
                    }
                    PkMul => kinds!(cells, sg, [srcs[0] => a, srcs[1] => b], apply_nan(dd, |l| {
                        out(fl(a.at(l), mx, x0) * fl(b.at(l), mx, x1))
                    }, |l| crate::alu::float::mul_f32(a.at(l) ^ x0, b.at(l) ^ x1, m))),
                    _ => kinds!(cells, sg, [srcs[0] => a, srcs[1] => b], apply_nan(dd, |l| {
                        out(fl(a.at(l), mx, x0) + fl(b.at(l), mx, x1))
                    }, |l| crate::alu::float::add_f32(a.at(l) ^ x0, b.at(l) ^ x1, m))),
                }
            }
        }
        _ => return Out::Declined,
    }
    Out::Next
}

/// The scalar µops of [`run`]: SALU results and SCC exactly as the SALU
/// handlers compute them; a branch reports whether it is taken.
#[inline(always)]
fn scalar(f: &Fast, w: &mut Wave, [a, b]: [u32; 2]) -> Out {
    use FOp::*;
    let (res, scc) = match f.op {
        SMov => (a, None),
        SAddU32 => (
            a.wrapping_add(b),
            Some(u64::from(a) + u64::from(b) > 0xffff_ffff),
        ),
        SSubU32 => (a.wrapping_sub(b), Some(b > a)),
        SAddI32 => (
            a.wrapping_add(b),
            Some((a as i32).checked_add(b as i32).is_none()),
        ),
        SSubI32 => (
            a.wrapping_sub(b),
            Some((a as i32).checked_sub(b as i32).is_none()),
        ),
        SAnd => nz(a & b),
        SOr => nz(a | b),
        SXor => nz(a ^ b),
        SLshl => nz(a << (b & 31)),
        SLshr => nz(a >> (b & 31)),
        SMulI32 => (a.wrapping_mul(b), None),
        SMulHiU32 => (((u64::from(a) * u64::from(b)) >> 32) as u32, None),
        SMulHiI32 => (
            ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32,
            None,
        ),
        SAshr => nz(((a as i32) >> (b & 31)) as u32),
        SAndn2 => nz(a & !b),
        SNot => nz(!a),
        SMinI => (
            (a as i32).min(b as i32) as u32,
            Some((a as i32) < (b as i32)),
        ),
        SMinU => (a.min(b), Some(a < b)),
        SMaxI => (
            (a as i32).max(b as i32) as u32,
            Some((a as i32) > (b as i32)),
        ),
        SMaxU => (a.max(b), Some(a > b)),
        SLshlAdd => {
            let t = (u64::from(a) << f.pred) + u64::from(b);
            (t as u32, Some(t > 0xffff_ffff))
        }
        SAddcU32 => {
            let t = u64::from(a) + u64::from(b) + u64::from(w.scc);
            (t as u32, Some(t > 0xffff_ffff))
        }
        SCselect => (if w.scc { a } else { b }, None),
        ReadLane => {
            // `top` covers the source VGPR.
            let Src::V(v) = f.src[0] else {
                return Out::Declined;
            };
            (w.vgpr[usize::from(v)][b as usize & (LANES - 1)], None)
        }
        SCmpU => return cmp(w, f.pred >> (a.cmp(&b) as i8 + 1) & 1 == 1),
        SCmpI => {
            return cmp(
                w,
                f.pred >> ((a as i32).cmp(&(b as i32)) as i8 + 1) & 1 == 1,
            )
        }
        SBitcmp0 => return cmp(w, a >> (b & 31) & 1 == 0),
        SBitcmp1 => return cmp(w, a >> (b & 31) & 1 == 1),
        SNop => return Out::Next,
        Branch => return Out::Taken,
        BranchScc0 => return taken(!w.scc),
        BranchScc1 => return taken(w.scc),
        BranchVccz => return taken(w.vcc() == 0),
        BranchVccnz => return taken(w.vcc() != 0),
        BranchExecz => return taken(w.exec == 0),
        BranchExecnz => return taken(w.exec != 0),
        _ => return Out::Declined,
    };
    if let Some(s) = scc {
        w.scc = s;
    }
    w.sgpr[usize::from(f.dst)] = res;
    Out::Next
}

#[inline(always)]
fn nz(x: u32) -> (u32, Option<bool>) {
    (x, Some(x != 0))
}

#[inline(always)]
fn cmp(w: &mut Wave, c: bool) -> Out {
    w.scc = c;
    Out::Next
}

#[inline(always)]
fn taken(c: bool) -> Out {
    if c {
        Out::Taken
    } else {
        Out::Next
    }
}

/// The 64-bit scalar µops (SCC as the SALU handlers set it; EXEC may be
/// the destination).
#[inline(always)]
fn wide(f: &Fast, w: &mut Wave) -> Out {
    let val = |k: usize| match f.src[k] {
        Src::S(EXEC_LO) => w.exec,
        Src::S(r) => {
            let r = usize::from(r);
            u64::from(w.sgpr[r]) | u64::from(w.sgpr[r + 1]) << 32
        }
        _ => f.k64[k],
    };
    use FOp::*;
    let (res, scc) = match f.op {
        SAndSaveexec | SOrSaveexec | SAndn2Saveexec => {
            // As the general handler: the old EXEC to the destination,
            // then EXEC from the source read before it.
            let (s, e) = (val(0), w.exec);
            set64(w, f.dst, e);
            w.exec = match f.op {
                SAndSaveexec => s & e,
                SOrSaveexec => s | e,
                _ => s & !e,
            };
            w.scc = w.exec != 0;
            return Out::Next;
        }
        SMov64 => (val(0), None),
        SAnd64 => (val(0) & val(1), Some(())),
        SOr64 => (val(0) | val(1), Some(())),
        SXor64 => (val(0) ^ val(1), Some(())),
        SAndn2_64 => (val(0) & !val(1), Some(())),
        SLshl64 => (val(0) << (val(1) & 63), Some(())),
        SLshr64 => (val(0) >> (val(1) & 63), Some(())),
        SAshr64 => (((val(0) as i64) >> (val(1) & 63)) as u64, Some(())),
        SCselect64 => (if w.scc { val(0) } else { val(1) }, None),
        _ => return Out::Declined,
    };
    if scc.is_some() {
        w.scc = res != 0;
    }
    set64(w, f.dst, res);
    Out::Next
}

/// Writes an SGPR pair, or EXEC.
#[inline(always)]
fn set64(w: &mut Wave, d: u16, v: u64) {
    if d == EXEC_LO {
        w.exec = v;
    } else {
        let d = usize::from(d);
        w.sgpr[d] = v as u32;
        w.sgpr[d + 1] = (v >> 32) as u32;
    }
}

/// `v_add_co_u32` and `v_addc_co_u32` (and the borrows) under a full
/// EXEC: the sums into the destination VGPR, the carries as a lane mask
/// into the carry-out pair (as the general handler: carry-in bit `l` of
/// the carry-in pair). Each lane is [`crate::alu::int`]'s; the carries are
/// gathered as bytes and packed, so the loop vectorises.
#[inline(always)]
fn carry(f: &Fast, w: &mut Wave) -> Out {
    use crate::alu::int::{addc_co_u32, subb_co_u32, subbrev_co_u32};
    let cin = if f.op.carry_in() {
        ext::pair(&w.sgpr, f.carry[1])
    } else {
        0
    };
    let cout = {
        let sg = &w.sgpr;
        let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
        let (a, b) = (ext::row32(f, 0, cells, sg), ext::row32(f, 1, cells, sg));
        let d = reg(cells, usize::from(f.dst));
        match f.op {
            FOp::AddCo | FOp::AddcCo => carry_lanes(d, &a, &b, cin, addc_co_u32),
            FOp::SubCo | FOp::SubbCo => carry_lanes(d, &a, &b, cin, subb_co_u32),
            _ => carry_lanes(d, &a, &b, cin, subbrev_co_u32),
        }
    };
    ext::set_pair(&mut w.sgpr, f.carry[0], cout);
    Out::Next
}

/// `d = op(a, b, carry-in)` per lane (no clamp: the µop declines it),
/// returning the carry-out lane mask.
#[inline(always)]
fn carry_lanes(
    d: &[Cell<u32>; LANES],
    a: &[u32; LANES],
    b: &[u32; LANES],
    cin: u64,
    op: impl Fn(u32, u32, bool, bool) -> (u32, bool),
) -> u64 {
    let sel = ext::lane_bits(cin);
    let mut r = [0u32; LANES];
    let mut c = [0u8; LANES];
    for l in 0..LANES {
        let (x, k) = op(a[l], b[l], sel[l] != 0, false);
        r[l] = x;
        c[l] = u8::from(k);
    }
    ext::store32(d, &r);
    ext::pack(&c)
}

//! Executing µops: [`run`] one, [`lane`] straight-line runs of them.

use std::cell::Cell;

use multiversion::multiversion;

use super::lanes::{apply, apply_nan, each_on, reg, splat, Lanes};
use super::{ext, FOp, Fast, Out, Src};
use crate::interp::regs::sreg_read;
use crate::interp::valu::{mode_modelled, Flush, M};
use crate::interp::DecodeCache;
use crate::lanes::flush32;
use crate::wave::{Wave, LANES, SGPRS};
use crate::xlane::{sdwa_src, SdwaSel};
use lathe_isa::reg::sreg::EXEC_LO;

/// Executes `f` on `w` under any EXEC (`save`: scratch for [`step`]).
/// Returns [`Out::Declined`], having changed nothing, when the general
/// handler must run instead: a register outside the wave's file or a
/// MODE the fast tier does not model. Compiled apart (the AVX2/FMA
/// version chosen at run time).
#[multiversion(targets("x86_64+avx2+fma+f16c+popcnt+bmi1+bmi2+lzcnt"))]
pub(in crate::interp) fn run(f: &Fast, w: &mut Wave, save: &mut Save) -> Out {
    step(f, w, save)
}

/// The destination rows of a whole-wave µop under a partial EXEC, kept
/// while it runs (one buffer per decode cache, so nothing is zeroed per
/// µop).
pub(in crate::interp) type Save = [[u32; LANES]; 2];

/// At most this many active lanes make a µop with a sparse form
/// ([`super::Route::sparse`]) compute only them: below it a lane at a
/// time costs less than the 64-lane loop plus the save and restore of
/// the inactive lanes.
pub(in crate::interp) const SPARSE_LANES: u32 = 8;

/// One µop under any EXEC, [`exec`] inlined once. Under a partial EXEC a
/// whole-wave vector µop computes every lane (lane operations have no
/// side effects), then the inactive lanes of its destination VGPRs are
/// restored from `save` and a carry-out mask cleared there, as the
/// general handlers leave them (they compute only active lanes and write
/// `carry & EXEC`). Under a sparse EXEC (at most [`SPARSE_LANES`] lanes)
/// a µop with a sparse form computes and writes only the active lanes
/// (its carry or compare mask has no other bit), so its cost follows
/// EXEC and nothing is saved or restored.
#[inline(always)]
fn step(f: &Fast, w: &mut Wave, save: &mut Save) -> Out {
    // A full EXEC (the usual case) decides both without a count.
    let full = w.exec == u64::MAX;
    let sparse = !full && f.route.sparse && w.exec.count_ones() <= SPARSE_LANES;
    let on = if sparse { w.exec } else { u64::MAX };
    let partial = !full && f.route.full && !sparse;
    let dst = usize::from(f.dst);
    // Only a partial EXEC needs the destination's width.
    let n = if partial {
        1 + usize::from(f.op.pair_dst() || f.op.packed())
    } else {
        1
    };
    if partial {
        if dst + n > w.vgpr.len() {
            return Out::Declined;
        }
        save[..n].copy_from_slice(&w.vgpr[dst..dst + n]);
    }
    let out = exec(f, w, on);
    if !partial || out == Out::Declined {
        return out;
    }
    let on = ext::lane_bits(w.exec);
    for (r, o) in w.vgpr[dst..dst + n].iter_mut().zip(save.iter()) {
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
/// each in its record ([`super::Rec::runs`], folded into the per-opcode
/// counts by `Exec::fold_counts`) and in `w.instructions`, and advancing
/// `w.pc`; stops at the first entry without a µop, whose µop declines or
/// (`check_waitcnt`) that reads or writes a register a memory access
/// still owes. The caller has checked what µops cannot change (no GPR
/// indexing); EXEC, which `v_cmpx` µops write, is checked before each
/// whole-wave µop. Returns how many ran and the cache
/// entry of the instruction now at `w.pc`, when it is decoded.
#[multiversion(targets("x86_64+avx2+fma+f16c+popcnt+bmi1+bmi2+lzcnt"))]
pub(in crate::interp) fn lane(
    cache: &mut DecodeCache,
    w: &mut Wave,
    k: usize,
    budget: u64,
    check_waitcnt: bool,
) -> (u64, Option<usize>) {
    let mut k = k;
    let mut n = 0;
    let at = loop {
        if n >= budget {
            break Some(k);
        }
        // A µop touching a register a memory access still owes is left
        // to the general path, which reports the missing `s_waitcnt`.
        if check_waitcnt && w.waitcnt.owes() && w.waitcnt.check(&cache.arena[k].regs).is_some() {
            break Some(k);
        }
        let r = &mut cache.recs[k];
        let Some(f) = &r.f else { break Some(k) };
        let out = step(f, w, &mut cache.save);
        let taken = match out {
            Out::Declined => break Some(k),
            Out::Next => {
                w.pc += u64::from(r.len);
                false
            }
            Out::Taken => {
                // Only branches with a decoded target get a µop.
                w.pc = r.target.unwrap_or(w.pc + u64::from(r.len));
                true
            }
        };
        n += 1;
        r.runs += 1;
        let link = if taken { r.taken } else { r.next };
        k = match link {
            0 => match cache.find(w.pc) {
                Some(j) => {
                    let r = &mut cache.recs[k];
                    *(if taken { &mut r.taken } else { &mut r.next }) = j as u32 + 1;
                    j
                }
                None => break None,
            },
            j => j as usize - 1,
        };
    };
    w.instructions += n;
    (n, at)
}

/// [`run`]'s body, inlined into each compiled version: `on` is EXEC
/// when [`step`] chose the µop's sparse form, `u64::MAX` otherwise.
#[inline(always)]
fn exec(f: &Fast, w: &mut Wave, on: u64) -> Out {
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
    // One match over the µop, its arms the µops' bodies (each helper is
    // inlined here, and this function into each compiled version of
    // [`lane`] and [`run`]): one jump per µop.
    use FOp::*;
    match f.op {
        Mov => lanes1(f, w, on, |a| a),
        Not => lanes1(f, w, on, |a| !a),
        Add => lanes2(f, w, on, |a, b| a.wrapping_add(b)),
        Sub => lanes2(f, w, on, |a, b| a.wrapping_sub(b)),
        Subrev => lanes2(f, w, on, |a, b| b.wrapping_sub(a)),
        And => lanes2(f, w, on, |a, b| a & b),
        Or => lanes2(f, w, on, |a, b| a | b),
        Xor => lanes2(f, w, on, |a, b| a ^ b),
        Lshl => lanes2(f, w, on, |a, b| b << (a & 31)),
        Lshr => lanes2(f, w, on, |a, b| b >> (a & 31)),
        Ashr => lanes2(f, w, on, |a, b| ((b as i32) >> (a & 31)) as u32),
        MulLo => lanes2(f, w, on, |a, b| a.wrapping_mul(b)),
        MulHi => lanes2(f, w, on, |a, b| {
            ((u64::from(a) * u64::from(b)) >> 32) as u32
        }),
        MulU24 => lanes2(f, w, on, |a, b| (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff)),
        MinU => lanes2(f, w, on, |a, b| a.min(b)),
        MaxU => lanes2(f, w, on, |a, b| a.max(b)),
        MinI => lanes2(f, w, on, |a, b| (a as i32).min(b as i32) as u32),
        MaxI => lanes2(f, w, on, |a, b| (a as i32).max(b as i32) as u32),
        Add3 => lanes3(f, w, on, |a, b, c| a.wrapping_add(b).wrapping_add(c)),
        LshlAdd => lanes3(f, w, on, |a, b, c| (a << (b & 31)).wrapping_add(c)),
        AddLshl => lanes3(f, w, on, |a, b, c| a.wrapping_add(b) << (c & 31)),
        LshlOr => lanes3(f, w, on, |a, b, c| (a << (b & 31)) | c),
        AndOr => lanes3(f, w, on, |a, b, c| (a & b) | c),
        Or3 => lanes3(f, w, on, |a, b, c| a | b | c),
        Xad => lanes3(f, w, on, |a, b, c| (a ^ b).wrapping_add(c)),
        Bfi => lanes3(f, w, on, |m, b, c| (m & b) | (!m & c)),
        MadU24 => lanes3(f, w, on, |a, b, c| {
            (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff).wrapping_add(c)
        }),
        AddF | SubF | SubrevF | MulF | FmaF | FmacF | RcpF | RsqF | SqrtF | PkFma | PkMul
        | PkAdd => {
            let mode = w.mode;
            let fz = Flush::f32(mode);
            let sg = &w.sgpr;
            let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
            let d = reg(cells, dst);
            match (fz.input, fz.output) {
                (false, false) => float::<false, false>(f, cells, sg, d, mode, on),
                (true, true) => float::<true, true>(f, cells, sg, d, mode, on),
                (true, false) => float::<true, false>(f, cells, sg, d, mode, on),
                (false, true) => float::<false, true>(f, cells, sg, d, mode, on),
            }
        }
        AddCo | AddcCo | SubCo | SubrevCo | SubbCo | SubbrevCo => carry(f, w, on),
        SMov64 | SAnd64 | SOr64 | SXor64 | SAndn2_64 | SLshl64 | SLshr64 | SAshr64 | SCselect64
        | SAndSaveexec | SOrSaveexec | SAndn2Saveexec => wide(f, w),
        WriteLane => {
            let (a, b) = (sres(w, f.src[0]), sres(w, f.src[1]));
            w.vgpr[dst][b as usize & (LANES - 1)] = a;
            Out::Next
        }
        SMov | SAddU32 | SSubU32 | SAddI32 | SSubI32 | SAnd | SOr | SXor | SLshl | SLshr
        | SMulI32 | SMulHiU32 | SMulHiI32 | SAshr | SAndn2 | SNot | SMinI | SMinU | SMaxI
        | SMaxU | SLshlAdd | SCmpU | SCmpI | SAddcU32 | SCselect | ReadLane | SNop | SBitcmp0
        | SBitcmp1 | Branch | BranchScc0 | BranchScc1 | BranchVccz | BranchVccnz | BranchExecz
        | BranchExecnz => {
            // Scalar sources of scalar µops: any scalar register.
            let (a, b) = (sres(w, f.src[0]), sres(w, f.src[1]));
            scalar(f, w, [a, b])
        }
        CmpI32 | CmpU32 | CmpF32 | CmpI64 | CmpU64 | CmpF64 | ClassF32 | Cndmask | Med3I
        | Med3U | Min3I | Min3U | Max3I | Max3U | BfeU | Alignbit | MulHiI | MaxF | MinF
        | Med3F | CvtF32U32 | CvtF32I32 | CvtI32F32 | CvtU32F32 | CvtF16F32 | CvtF32F16
        | CvtF32Ubyte | CvtF64U32 | CvtF64I32 | CvtF64F32 | CvtF32F64 | Lshl64 | Lshr64
        | Ashr64 | MadU64U32 | PkMov | AddF64 | MulF64 | FmaF64 | FmacF64 | LdexpF64 | RcpF64
        | DivScaleF64 | DivFmasF64 | DivFixupF64 | DivScaleF32 | DivFmasF32 | DivFixupF32
        | PkFmaF16 | PkAddF16 | PkMulF16 | PkMaxF16 | PkMinF16 | PackB32F16 => ext::exec(f, w, on),
    }
}

/// A scalar µop's source: any scalar register, or a constant.
#[inline(always)]
fn sres(w: &Wave, s: Src) -> u32 {
    match s {
        Src::S(r) => sreg_read(w, r),
        Src::K(c) => c,
        Src::V(_) => 0,
    }
}

/// `d = op(a)` over the lanes of a one-source integer µop (VGPR numbers
/// were checked against the file; scalar sources are plain SGPRs, and the
/// register file and the SGPRs are disjoint fields, borrowed apart).
#[inline(always)]
fn lanes1(f: &Fast, w: &mut Wave, on: u64, op: impl Fn(u32) -> u32) -> Out {
    let sg = &w.sgpr;
    let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
    let d = reg(cells, usize::from(f.dst));
    kinds!(cells, sg, [f.src[0] => a], apply(d, on, |l| op(a.at(l))));
    Out::Next
}

/// [`lanes1`] for two sources.
#[inline(always)]
fn lanes2(f: &Fast, w: &mut Wave, on: u64, op: impl Fn(u32, u32) -> u32) -> Out {
    let sg = &w.sgpr;
    let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
    let d = reg(cells, usize::from(f.dst));
    kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, on, |l| op(a.at(l), b.at(l))));
    Out::Next
}

/// [`lanes1`] for three sources.
#[inline(always)]
fn lanes3(f: &Fast, w: &mut Wave, on: u64, op: impl Fn(u32, u32, u32) -> u32) -> Out {
    let sg = &w.sgpr;
    let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
    let d = reg(cells, usize::from(f.dst));
    kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, on, |l| {
        op(a.at(l), b.at(l), c.at(l))
    }));
    Out::Next
}

/// An SDWA µop's selected source fields ([`Fast::sel`]) written into
/// the wave's temporary VGPRs (as the general SDWA wrapper stages them,
/// with [`sdwa_src`]), and the µop reading them there. The select is
/// decided once per µop and the lanes run as a plain loop (inlined into
/// the AVX2 version of the µop loop: it vectorises).
#[inline(always)]
fn stage(f: &Fast, w: &mut Wave) -> Fast {
    let mut g = *f;
    let base = w.temp_base();
    for k in 0..2 {
        let code = f.sel[k];
        let Some(sel) = SdwaSel::decode(code & 7).filter(|_| code != super::NO_SEL) else {
            continue;
        };
        let sext = code >> 3 & 1 == 1;
        let src = match f.src[k] {
            Src::V(r) => w.vgpr[usize::from(r)],
            s => [splat(&w.sgpr, s); LANES],
        };
        let t = &mut w.vgpr[base + k];
        // The select and `sext` matched once here, so each loop below
        // sees them as constants ([`sdwa_src`] folds to a shift and a
        // mask, or a shift pair) and vectorises; passing the select as a
        // value left a jump table per lane (a third of user_noise's µop
        // loop, D68).
        use SdwaSel::*;
        match (sel, sext) {
            (Byte0, false) => select(t, &src, Byte0, false),
            (Byte1, false) => select(t, &src, Byte1, false),
            (Byte2, false) => select(t, &src, Byte2, false),
            (Byte3, false) => select(t, &src, Byte3, false),
            (Word0, false) => select(t, &src, Word0, false),
            (Word1, false) => select(t, &src, Word1, false),
            (Byte0, true) => select(t, &src, Byte0, true),
            (Byte1, true) => select(t, &src, Byte1, true),
            (Byte2, true) => select(t, &src, Byte2, true),
            (Byte3, true) => select(t, &src, Byte3, true),
            (Word0, true) => select(t, &src, Word0, true),
            (Word1, true) => select(t, &src, Word1, true),
            (Dword, _) => *t = src,
        }
        g.src[k] = Src::V((base + k) as u16);
    }
    g
}

/// `t[l] = sdwa_src(src[l], sel, sext)` for every lane; inlined where
/// `sel` and `sext` are constants.
#[inline(always)]
fn select(t: &mut [u32; LANES], src: &[u32; LANES], sel: SdwaSel, sext: bool) {
    for l in 0..LANES {
        t[l] = sdwa_src(src[l], sel, sext);
    }
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
    on: u64,
) -> Out {
    let [and0, and1, and2] = f.and;
    let [xor0, xor1, xor2] = f.xor;
    let fl = |x: u32, and: u32, xor: u32| f32::from_bits(flush32(FI, (x & and) ^ xor));
    let out = |x: f32| flush32(FO, x.to_bits());
    let dst = f.dst as usize;
    use FOp::*;
    match f.op {
        AddF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, on, |l| {
            out(fl(a.at(l), and0, xor0) + fl(b.at(l), and1, xor1))
        })),
        SubF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, on, |l| {
            out(fl(a.at(l), and0, xor0) - fl(b.at(l), and1, xor1))
        })),
        SubrevF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, on, |l| {
            out(fl(b.at(l), and1, xor1) - fl(a.at(l), and0, xor0))
        })),
        MulF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, on, |l| {
            out(fl(a.at(l), and0, xor0) * fl(b.at(l), and1, xor1))
        })),
        FmaF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, on, |l| {
            out(fl(a.at(l), and0, xor0).mul_add(fl(b.at(l), and1, xor1), fl(c.at(l), and2, xor2)))
        })),
        RcpF => kinds!(cells, sg, [f.src[0] => a], apply(d, on, |l| {
            out(1.0 / fl(a.at(l), and0, xor0))
        })),
        RsqF => kinds!(cells, sg, [f.src[0] => a], apply(d, on, |l| {
            out((1.0 / f64::from(fl(a.at(l), and0, xor0)).sqrt()) as f32)
        })),
        SqrtF => kinds!(cells, sg, [f.src[0] => a], apply(d, on, |l| {
            out(fl(a.at(l), and0, xor0).sqrt())
        })),
        FmacF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, on, |l| {
            out(fl(a.at(l), and0, xor0).mul_add(fl(b.at(l), and1, xor1), fl(d[l].get(), u32::MAX, 0)))
        })),
        PkFma | PkMul | PkAdd => {
            // NaN results take the general handler's reference path, lane
            // by lane, as there.
            let m = crate::alu::Mode::from_bits(mode);
            let dh = reg(cells, dst + 1);
            let halves = if f.pred & 1 == 1 {
                [(1, dh, f.hi), (0, d, f.src)]
            } else {
                [(0, d, f.src), (1, dh, f.hi)]
            };
            for (half, dd, srcs) in halves {
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
                        kinds!(cells, sg, [srcs[0] => a, srcs[1] => b, srcs[2] => c], apply_nan(dd, on, |l| {
                        out(fl(a.at(l), mx, x0).mul_add(fl(b.at(l), mx, x1), fl(c.at(l), mx, x2)))
                    }, |l| crate::alu::float::fma_f32(a.at(l) ^ x0, b.at(l) ^ x1, c.at(l) ^ x2, m)))
                    }
                    PkMul => {
                        kinds!(cells, sg, [srcs[0] => a, srcs[1] => b], apply_nan(dd, on, |l| {
                        out(fl(a.at(l), mx, x0) * fl(b.at(l), mx, x1))
                    }, |l| crate::alu::float::mul_f32(a.at(l) ^ x0, b.at(l) ^ x1, m)))
                    }
                    _ => kinds!(cells, sg, [srcs[0] => a, srcs[1] => b], apply_nan(dd, on, |l| {
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
fn carry(f: &Fast, w: &mut Wave, on: u64) -> Out {
    use crate::alu::int::{addc_co_u32, subb_co_u32, subbrev_co_u32};
    let cin = if f.op.carry_in() {
        ext::pair(&w.sgpr, f.carry[1])
    } else {
        0
    };
    let cout = {
        let sg = &w.sgpr;
        let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
        let d = reg(cells, usize::from(f.dst));
        match f.op {
            FOp::AddCo | FOp::AddcCo => carry_any(f, cells, sg, d, cin, on, addc_co_u32),
            FOp::SubCo | FOp::SubbCo => carry_any(f, cells, sg, d, cin, on, subb_co_u32),
            _ => carry_any(f, cells, sg, d, cin, on, subbrev_co_u32),
        }
    };
    ext::set_pair(&mut w.sgpr, f.carry[0], cout);
    Out::Next
}

/// [`carry_lanes`], or [`carry_sparse`] under a sparse EXEC `on`.
#[inline(always)]
fn carry_any(
    f: &Fast,
    cells: &[Cell<u32>],
    sg: &[u32; SGPRS],
    d: &[Cell<u32>; LANES],
    cin: u64,
    on: u64,
    op: impl Fn(u32, u32, bool, bool) -> (u32, bool),
) -> u64 {
    if on == u64::MAX {
        let (a, b) = (ext::row32(f, 0, cells, sg), ext::row32(f, 1, cells, sg));
        carry_lanes(d, &a, &b, cin, op)
    } else {
        carry_sparse(d, |k, l| ext::lane32(f, k, cells, sg, l), cin, on, op)
    }
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
    ext::store32(d, &r, u64::MAX);
    ext::pack(&c)
}

/// [`carry_lanes`] on the lanes of a sparse EXEC `on` only (`src(k, l)`:
/// source `k` in lane `l`); the carry-out mask has no other bit.
#[inline(always)]
fn carry_sparse(
    d: &[Cell<u32>; LANES],
    src: impl Fn(usize, usize) -> u32,
    cin: u64,
    on: u64,
    op: impl Fn(u32, u32, bool, bool) -> (u32, bool),
) -> u64 {
    let mut c = 0u64;
    each_on(on, |l| {
        let (x, k) = op(src(0, l), src(1, l), cin >> l & 1 == 1, false);
        d[l].set(x);
        c |= u64::from(k) << l;
    });
    c
}

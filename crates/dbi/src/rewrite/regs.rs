//! Registers for probes: per call-graph component, reserved registers no
//! instruction touches ([`reserve`]); else, per site, dead SGPRs borrowed
//! (lane mode) and VGPRs picked dead-first, live ones spilled.

use lathe_isa::{Instruction, Opcode, RegRange};

use crate::asm::*;
use crate::lift::{FunctionKind, Program};
use crate::live::RegSet;

/// Component index of every function: functions linked by calls share
/// one; an unresolved call puts everything in one component.
pub(crate) fn components(p: &Program) -> Vec<usize> {
    let n = p.functions.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let unresolved = p
        .functions
        .iter()
        .any(|f| f.calls.iter().any(|c| c.callee.is_none()));
    for (fi, f) in p.functions.iter().enumerate() {
        for c in &f.calls {
            let t = match c.callee {
                Some(t) => t,
                None => continue,
            };
            let (a, b) = (find(&mut parent, fi), find(&mut parent, t));
            parent[a] = b;
        }
        if unresolved && fi > 0 {
            let (a, b) = (find(&mut parent, fi), find(&mut parent, 0));
            parent[a] = b;
        }
    }
    let mut ids = std::collections::HashMap::new();
    (0..n)
        .map(|i| {
            let r = find(&mut parent, i);
            let k = ids.len();
            *ids.entry(r).or_insert(k)
        })
        .collect()
}

/// Registers of one call-graph component.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CompRegs {
    /// Reserved registers (SGPR fields meaningless in lane mode, VGPR
    /// fields meaningless with `vspill`).
    pub(crate) regs: Reserved,
    /// SGPRs are borrowed per site (lane mode, or full mode without a
    /// state VGPR).
    pub(crate) lanes: bool,
    /// Probe VGPRs are chosen per site: dead ones, else spilled to scratch.
    pub(crate) vspill: bool,
    /// The component's kernels get probe scratch.
    pub(crate) scratch: bool,
    /// SGPR mode: quad holding the scratch buffer descriptor (gfx90a).
    pub(crate) rsrc: Option<u16>,
    /// SGPR mode with spilling: pair saving EXEC around spills.
    pub(crate) spill_exec: u16,
    /// SGPR mode with spilling: SGPR holding the area's offset.
    pub(crate) spill_base: u16,
    /// One past the last reserved SGPR (0 in lane mode).
    pub(crate) sgpr_end: u16,
    /// Highest VGPR a site may pick (`vspill`).
    pub(crate) vmax: u16,
}

impl CompRegs {
    /// The lane-mode state VGPR (`None` in SGPR mode and in full mode,
    /// where each site loads it from scratch).
    pub(crate) fn vstate(&self) -> Option<u16> {
        self.regs.vstate
    }
}

/// Reserves registers for a component using `used`. `probe_scratch`: a
/// request covering it asks for scratch.
///
/// With `external` (the component calls functions that are not in the
/// code object, so they may clobber whatever the AMDGPU calling
/// convention lets a callee clobber), the registers that hold state across
/// calls are callee-saved ones: SGPRs from s34 (s30..s105 are
/// callee-saved; s30/s31 hold return addresses, s32/s33 the stack and
/// frame pointers) and VGPRs from the callee-saved groups v40..v47,
/// v56..v63, ... (8 of every 16).
pub(crate) fn reserve(
    used: &RegSet,
    probe_scratch: bool,
    architected: bool,
    external: bool,
) -> CompRegs {
    let mut s0 = used.max_sgpr().map_or(0, |m| m + 1).next_multiple_of(2);
    let mut v0 = used.max_vgpr().map_or(0, |m| m + 1).next_multiple_of(2);
    if external {
        s0 = s0.max(34);
        // First callee-saved group start (40 + 16k) at or after v0.
        v0 = v0.max(40);
        v0 += (16 - (v0 - 40) % 16) % 16;
    }
    // (vdata, vcnt, voff, vtmp, vaux, vstate) and one past the last.
    let vlayout = |lanes: bool| -> ([u16; 6], u16) {
        if external {
            let r = [v0, v0 + 2, v0 + 16, v0 + 17, v0 + 4, v0 + 18];
            (r, if lanes { v0 + 19 } else { v0 + 18 })
        } else {
            let r = [v0, v0 + 2, v0 + 4, v0 + 5, v0 + 6, v0 + 10];
            (r, if lanes { v0 + 11 } else { v0 + 10 })
        }
    };
    // SGPR-mode layout: ptr, save, tmp, t2, scc, then the scratch
    // descriptor quad and the spill pair + base.
    let layout = |scratch: bool, vspill: bool| -> (u16, Option<u16>, u16, u16) {
        let mut next = s0 + 9;
        let mut rsrc = None;
        if scratch && !architected {
            let r = next.next_multiple_of(4);
            rsrc = Some(r);
            next = r + 4;
        }
        let (mut e, mut b) = (0, 0);
        if vspill {
            e = next.next_multiple_of(2);
            b = e + 2;
            next = b + 1;
        }
        (next, rsrc, e, b)
    };
    let lanes0 = layout(probe_scratch, false).0 > 102;
    let mut vspill = vlayout(lanes0).1 > 256;
    let (mut end, mut rsrc, mut e, mut b) = layout(probe_scratch || vspill, vspill);
    let lanes = end > 102;
    if lanes && !vspill && vlayout(true).1 > 256 {
        vspill = true;
        (end, rsrc, e, b) = layout(true, true);
    }
    let scratch = probe_scratch || vspill;
    // Per-site VGPRs come from those the component already allocates.
    let vmax = used.max_vgpr().unwrap_or(0);
    let ([vdata, vcnt, voff, vtmp, vaux, vst], _) = if vspill {
        ([0, 2, 4, 5, 6, 10], 0)
    } else {
        vlayout(lanes)
    };
    let vstate = (lanes && !vspill).then_some(vst);
    CompRegs {
        regs: Reserved {
            ptr: s0,
            save: s0 + 2,
            tmp: s0 + 4,
            t2: s0 + 6,
            scc: s0 + 8,
            vdata,
            vcnt,
            voff,
            vtmp,
            vaux,
            vstate,
        },
        lanes,
        vspill,
        scratch,
        rsrc: if lanes { None } else { rsrc },
        spill_exec: e,
        spill_base: b,
        sgpr_end: if lanes { 0 } else { end },
        vmax,
    }
}

/// First SGPR (`count` 1 or 2, pairs even-aligned) in s0..s101 that is
/// neither in `live` nor in `taken`; marks it taken.
pub(crate) fn pick_dead(live: &RegSet, taken: &mut RegSet, count: u16) -> Option<u16> {
    let step = count.max(1);
    let mut k = 0;
    while k + count <= 102 {
        if (k..k + count).all(|r| !live.has_sreg(r) && !taken.has_sreg(r)) {
            taken.add(RegRange::sgpr(k, count as u8));
            return Some(k);
        }
        k += step;
    }
    None
}

/// Lane mode: SGPRs for one site, dead ones first (those no scalar load
/// in `pending` may still write, then those — the caller waits for the
/// loads, returned flag), else live ones that are saved in the state
/// VGPR's lanes [`FIRST_SAVE_LANE`].. (returned as (sgpr, lane)), avoiding
/// `avoid`; with `rsrc` also a quad for the scratch buffer descriptor.
pub(crate) fn site_regs(
    base: &Reserved,
    live: &RegSet,
    pending: &RegSet,
    avoid: &RegSet,
    rsrc: bool,
) -> (Reserved, Option<u16>, Vec<(u16, u16)>, bool) {
    let mut taken = *avoid;
    let mut saved = Vec::new();
    let mut lane = crate::scratch::FIRST_SAVE_LANE;
    let mut wait = false;
    let busy = live.union(pending);
    let mut get = |count: u16, taken: &mut RegSet, saved: &mut Vec<(u16, u16)>| -> u16 {
        if let Some(k) = pick_dead(&busy, taken, count) {
            return k;
        }
        if let Some(k) = pick_dead(live, taken, count) {
            wait = true;
            return k;
        }
        // Borrow live registers: any aligned ones not taken yet.
        let k = pick_dead(&RegSet::default(), taken, count).unwrap_or(0);
        for r in k..k + count {
            if pending.has_sreg(r) {
                wait = true;
            }
            saved.push((r, lane));
            lane += 1;
        }
        k
    };
    let mut r = *base;
    let q = rsrc.then(|| get(4, &mut taken, &mut saved));
    r.ptr = get(2, &mut taken, &mut saved);
    r.save = get(2, &mut taken, &mut saved);
    r.tmp = get(2, &mut taken, &mut saved);
    r.t2 = get(2, &mut taken, &mut saved);
    r.scc = get(1, &mut taken, &mut saved);
    (r, q, saved, wait)
}

/// First VGPR run of `count` (even-aligned when `count` > 1) in
/// v0..=`vmax` outside `avoid` and `taken`, dead ones (not in `live`)
/// first; marks it taken. Returns the first VGPR and whether it is live.
pub(crate) fn pick_vgprs(
    live: &RegSet,
    avoid: &RegSet,
    taken: &mut RegSet,
    vmax: u16,
    count: u16,
) -> Option<(u16, bool)> {
    let step = if count > 1 { 2 } else { 1 };
    for want_dead in [true, false] {
        let mut k = 0;
        while k + count <= vmax + 1 {
            let ok = (k..k + count).all(|v| {
                !avoid.has_vgpr(v) && !taken.has_vgpr(v) && (!want_dead || !live.has_vgpr(v))
            });
            if ok {
                taken.add(RegRange::vgpr(k, count as u8));
                let is_live = (k..k + count).any(|v| live.has_vgpr(v));
                return Some((k, is_live));
            }
            k += step;
        }
    }
    None
}

/// SGPRs a scalar load may still be writing before each instruction of
/// `f`: loaded on some path with no `s_waitcnt lgkmcnt(0)` since. Lane mode
/// borrows dead SGPRs; one of these would be overwritten mid-probe when
/// its load lands (the unused half of a wide `s_load`, say).
pub(crate) fn pending_scalar_loads(
    f: &crate::Function,
    effs: &[crate::live::Effects],
) -> Vec<RegSet> {
    let n = f.insts.len();
    let mut before = vec![RegSet::default(); n];
    let xfer = |i: usize, st: RegSet| -> RegSet {
        let inst = &f.insts[i].inst;
        if crate::asm::canon(inst) == Opcode::S_WAITCNT {
            let (_, _, lgkm) = lathe_isa::imm::waitcnt_fields(inst.words()[0] & 0xffff);
            if lgkm == 0 {
                return RegSet::default();
            }
        } else if crate::asm::memory_class(inst) == lathe_isa::MemoryClass::Scalar {
            return RegSet {
                s: st.s | effs[i].defs.s,
                ..st
            };
        }
        st
    };
    let nb = f.blocks.len();
    let mut out = vec![RegSet::default(); nb];
    for _round in 0..64 {
        let mut changed = false;
        for b in 0..nb {
            // A device function may be entered with its caller's loads
            // in flight.
            let mut st = if b == 0 && f.kind == FunctionKind::DeviceFunction {
                RegSet {
                    s: u128::MAX,
                    ..RegSet::default()
                }
            } else {
                RegSet::default()
            };
            for &pb in &f.blocks[b].preds {
                st = st.union(&out[pb]);
            }
            for i in f.block_insts(b) {
                before[i] = st;
                st = xfer(i, st);
            }
            if st != out[b] {
                out[b] = st;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    before
}

/// Whether `s32` has been written on every path to each instruction of
/// `f` (a kernel sets its stack pointer early; before that, s32 is not a
/// stack pointer).
pub(crate) fn s32_set_before(f: &crate::Function, effs: &[crate::live::Effects]) -> Vec<bool> {
    let n = f.insts.len();
    let nb = f.blocks.len();
    let mut before = vec![false; n];
    let mut out = vec![true; nb];
    for _round in 0..64 {
        let mut changed = false;
        for b in 0..nb {
            let mut st = if b == 0 {
                false
            } else {
                f.blocks[b].preds.iter().all(|&pb| out[pb]) && !f.blocks[b].preds.is_empty()
            };
            for i in f.block_insts(b) {
                before[i] = st;
                if effs[i].defs.has_sreg(32) {
                    st = true;
                }
            }
            if st != out[b] {
                out[b] = st;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    before
}

/// Scalar registers an instruction's scalar load leaves in flight (all of
/// its SGPR writes for SMEM loads, none otherwise).
pub(crate) fn pending_after_mask(inst: &Instruction) -> u128 {
    if crate::asm::memory_class(inst) == lathe_isa::MemoryClass::Scalar {
        u128::MAX
    } else {
        0
    }
}

/// `v_writelane_b32 v, s, lane`.
/// The `s_set_gpr_idx_on` mode (operand mask) in force before and after
/// each instruction of `f`: set by `s_set_gpr_idx_on`, cleared by
/// `s_set_gpr_idx_off` and at block boundaries (regions are local to a
/// block).
pub(crate) fn gpr_idx_modes(f: &crate::Function) -> (Vec<Option<i64>>, Vec<Option<i64>>) {
    let n = f.insts.len();
    let (mut before, mut after) = (vec![None; n], vec![None; n]);
    for blk in &f.blocks {
        let mut m = None;
        for i in blk.start..blk.end {
            before[i] = m;
            let inst = &f.insts[i].inst;
            if crate::asm::canon(inst) == Opcode::S_SET_GPR_IDX_ON {
                m = Some(i64::from(inst.words()[0] >> 8 & 0xf));
            } else if crate::asm::canon(inst) == Opcode::S_SET_GPR_IDX_OFF {
                m = None;
            }
            after[i] = m;
        }
    }
    (before, after)
}

//! The per-function phase: the sites each request selects in one
//! function, their probe code (with the per-site register work: SGPRs
//! borrowed in lane mode, VGPRs spilled around the probe, indexing turned
//! off inside `s_set_gpr_idx_on` regions), the kernel-entry preamble, and
//! the function's items (original instructions, probes, re-targeted
//! branches and calls, `s_getpc_b64` fixes) for layout.

use std::cell::Cell;
use std::collections::HashMap;

use lathe_isa::{Opcode, Operand, RegRange};

use super::layout::{encode_err, AddrRef, FnCode, Item, ProbeCode};
use super::plan::RewritePlan;
use super::probe::{ProbeCx, SymRef};
use super::regs::{
    gpr_idx_modes, pending_after_mask, pending_scalar_loads, pick_dead, pick_vgprs, s32_set_before,
    site_regs,
};
use super::site::{Request, Site, Where};
use crate::asm::*;
use crate::lift::{Exit, FunctionKind, Program};
use crate::live::{Liveness, RegSet};
use crate::scratch::{ScratchCx, RSRC_LANE};
use crate::Error;

/// Builds function `fi`'s items: its sites are appended to `sites_out`,
/// their slots allocated from `slot_out`; sites whose probe registers
/// were spilled are counted in `spilled`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn function_code(
    plan: &RewritePlan<'_>,
    p: &Program,
    live: &Liveness,
    requests: &[Request],
    shared_off: &[u32],
    fi: usize,
    sites_out: &mut Vec<Site>,
    slot_out: &mut u32,
    spilled: &Cell<usize>,
) -> Result<FnCode, Error> {
    let f = &p.functions[fi];
    let (t, architected, no_regs) = (plan.t, plan.architected, plan.no_regs);
    let (comp, comp_regs, comp_area, comp_sp) =
        (&plan.comp, &plan.comp_regs, &plan.comp_area, &plan.comp_sp);
    let prep = plan.prep;
    let (effs, kd_of) = (&prep.effs, &prep.kd_of);
    let (covered, req_area) = (&plan.covered, &plan.req_area);
    let (needs_preamble, plans) = (&plan.needs_preamble, &plan.plans);
    let (kernarg_sgpr, kernarg_size) = (&prep.kernarg_sgpr, &prep.kernarg_size);
    let eff_of = |fi: usize, i: usize| -> &crate::live::Effects { &effs[fi][i] };
    let any_sites = !requests.is_empty();
    let mut sites = std::mem::take(sites_out);
    let mut slot = *slot_out;
    let (cr, comp_ok) = match &comp_regs[comp[fi]] {
        Ok(r) => (*r, true),
        Err(_) => (no_regs, false),
    };
    let regs = cr.regs;
    let area = comp_area[comp[fi]];
    // Stack-pointer mode: where a kernel has set s32.
    let sp_mode = comp_sp[comp[fi]];
    let sp_set: Vec<bool> = if sp_mode && f.kind == FunctionKind::Kernel {
        s32_set_before(f, &effs[fi])
    } else {
        vec![true; f.insts.len()]
    };
    let fl = &live.functions[fi];
    let n = f.insts.len();
    let exec_writes = |i: usize| crate::live::writes_exec(eff_of(fi, i));
    let (idx_before, idx_after) = gpr_idx_modes(f);
    // Lane mode: SGPRs with a scalar load in flight are not borrowed
    // as dead ones.
    let pending = if cr.lanes && !cr.vspill && comp_ok {
        pending_scalar_loads(f, &effs[fi])
    } else {
        Vec::new()
    };
    let mut pre: Vec<ProbeCode> = vec![ProbeCode::default(); n];
    let mut post: Vec<ProbeCode> = vec![ProbeCode::default(); n];
    let mut prologue = ProbeCode::default();
    if f.kind == FunctionKind::Kernel && any_sites {
        // Load the probe-data pointer: s_getpc + add (fixed below as a
        // PcAdd against the data variable) + s_load + wait.
    }
    let add_site = |sites: &mut Vec<Site>,
                    slot: &mut u32,
                    ri: usize,
                    i: usize,
                    at: Where,
                    out: &mut ProbeCode,
                    live_at: RegSet|
     -> Result<(), Error> {
        let r = &requests[ri];
        let s = *slot;
        *slot += r.probe.slot_bytes().next_multiple_of(8);
        let addr = f.insts[i].addr;
        // Inside an `s_set_gpr_idx_on` region the probe's VALU
        // operands would be re-indexed: indexing is off around it and
        // back on after (index still in M0[7:0], which stays live).
        let post = at == Where::After || at == Where::BlockExit && !f.insts[i].inst.is_terminator();
        let idx_mode = if post { idx_after[i] } else { idx_before[i] };
        let mut live_at = live_at;
        if idx_mode.is_some() {
            live_at.add(RegRange::M0);
            out.push(build(t, Opcode::S_SET_GPR_IDX_OFF, &[]).map_err(encode_err(
                &f.name,
                addr,
                "gpr index off",
            ))?);
        }
        let avoid = eff_of(fi, i).uses;
        // Stack-pointer mode before the kernel has set s32: nothing is
        // on its stack beyond its own frame yet, so the area goes right
        // after the frame (absolute).
        let site_sp = sp_mode && sp_set.get(i).copied().unwrap_or(false);
        let site_area = if sp_mode && !site_sp {
            kd_of
                .iter()
                .find(|(k, _)| *k == fi)
                .map_or(0, |(_, d)| crate::scratch::fixed_frame_end(d))
        } else {
            area
        };
        let enc = |e| encode_err(&f.name, addr, "probe registers")(e);
        let no_regs_err = |what: &str| Error::NoRegisters {
            function: f.name.clone(),
            why: format!("no dead {what} at the site at {addr:#x} to spill around"),
        };
        let mut scx = req_area[ri].map(|o| ScratchCx {
            area: site_area + o,
            bytes: r.probe.scratch_bytes(),
            rsrc: cr.rsrc,
            architected,
            lanes: t.wave_size(),
        });
        let want_rsrc = scx.is_some() && !architected;
        let mut sregs = regs;
        let mut state_v = cr.vstate();
        // VGPRs stored to scratch around the probe: (vgpr, offset from
        // the area).
        let mut spills: Vec<(u16, u32)> = Vec::new();
        let (mut e, mut a) = (cr.spill_exec, cr.spill_base);
        let mut staken = avoid;
        if cr.vspill {
            if cr.lanes {
                e = pick_dead(&live_at, &mut staken, 2).ok_or_else(|| no_regs_err("SGPR pair"))?;
                a = pick_dead(&live_at, &mut staken, 1).ok_or_else(|| no_regs_err("SGPR"))?;
            }
            let mut vt = RegSet::default();
            let mut pick = |count: u16, spills: &mut Vec<(u16, u32)>| -> Result<u16, Error> {
                let (v, _) = pick_vgprs(&live_at, &avoid, &mut vt, cr.vmax, count)
                    .ok_or_else(|| no_regs_err("VGPRs"))?;
                for k in v..v + count {
                    if live_at.has_vgpr(k) {
                        let off = crate::scratch::AREA_STATE + 4 * spills.len() as u32;
                        spills.push((k, off));
                    }
                }
                Ok(v)
            };
            sregs.vdata = pick(2, &mut spills)?;
            sregs.vcnt = pick(2, &mut spills)?;
            sregs.vaux = pick(4, &mut spills)?;
            sregs.voff = pick(1, &mut spills)?;
            sregs.vtmp = pick(1, &mut spills)?;
            if cr.lanes {
                state_v = Some(pick(1, &mut spills)?);
            }
            if !spills.is_empty() {
                spilled.set(spilled.get() + 1);
            }
            // Outstanding loads into the borrowed VGPRs land first.
            out.push(waitcnt(t, 0, 0).map_err(enc)?);
            out.push(mask_mov(t, mask_reg(t, e), exec_mask(t)).map_err(enc)?);
            out.push(mask_mov(t, exec_mask(t), Operand::Int(-1)).map_err(enc)?);
            if cr.lanes {
                out.push(build(t, Opcode::S_MOV_B32, &[sreg(a, 1), konst(area)]).map_err(enc)?);
            }
            for (v, off) in &spills {
                out.push(crate::scratch::store_dword(t, *v, a, *off).map_err(enc)?);
            }
            if let (true, Some(vs)) = (cr.lanes, state_v) {
                out.push(crate::scratch::load_dword(t, vs, a, 0).map_err(enc)?);
                out.push(waitcnt(t, 0, 15).map_err(enc)?);
            }
            staken.add(RegRange::sgpr(e, 2));
            staken.add(RegRange::sgpr(a, 1));
        }
        let mut saved = Vec::new();
        if let (true, Some(vs)) = (cr.lanes, state_v) {
            // SGPRs a scalar load may still write are borrowed last,
            // after waiting for the load.
            let mut in_flight = pending.get(i).copied().unwrap_or_default();
            if at == Where::After {
                in_flight.s |= eff_of(fi, i).defs.s & pending_after_mask(&f.insts[i].inst);
            }
            let (sr, q, sv, in_flight) = site_regs(&regs, &live_at, &in_flight, &staken, want_rsrc);
            if in_flight {
                out.push(waitcnt(t, 63, 0).map_err(enc)?);
            }
            (sregs.ptr, sregs.save, sregs.tmp, sregs.t2, sregs.scc) =
                (sr.ptr, sr.save, sr.tmp, sr.t2, sr.scc);
            saved = sv;
            for (sg, lane) in &saved {
                out.push(writelane(t, vs, *sg, *lane).map_err(enc)?);
            }
            out.push(readlane(t, sregs.ptr, vs, 0).map_err(enc)?);
            out.push(readlane(t, sregs.ptr + 1, vs, 1).map_err(enc)?);
            if let (Some(q), Some(x)) = (q, scx.as_mut()) {
                for k in 0..4 {
                    out.push(readlane(t, q + k, vs, RSRC_LANE + k).map_err(enc)?);
                }
                x.rsrc = Some(q);
            }
            // VALU-written SGPR read by VMEM: 5 wait states on GFX9.
            out.push(nop(t, 4).map_err(enc)?);
        }
        if cr.vspill {
            // The constants kernel entry sets in the reserved VGPRs.
            for (v, k) in [
                (sregs.vdata, 1),
                (sregs.vdata + 1, 0),
                (sregs.vcnt + 1, 0),
                (sregs.voff, 0),
            ] {
                out.push(
                    build(t, Opcode::V_MOV_B32_E32, &[vreg(v, 1), Operand::Int(k)]).map_err(enc)?,
                );
            }
            out.push(mask_mov(t, exec_mask(t), mask_reg(t, e)).map_err(enc)?);
        }
        let cx = ProbeCx {
            target: t,
            regs: &sregs,
            slot: s,
            live: live_at,
            kernarg_sgpr: kernarg_sgpr.get(f.name.as_str()).copied(),
            kernarg_size: kernarg_size.get(f.name.as_str()).copied().unwrap_or(0),
            kind: f.kind,
            shared: shared_off[ri],
            site: sites.len() as u32,
            inst: f.insts[i].inst,
            scratch: scx,
            pc: addr,
            function_index: fi,
            inst_index: i,
            scratch_sp: site_sp,
        };
        let mut code = Vec::new();
        let mut syms = Vec::new();
        r.probe
            .emit_linked(&cx, &mut code, &mut syms)
            .map_err(encode_err(&f.name, addr, "probe"))?;
        let base = out.insts.len();
        out.syms.extend(syms.into_iter().map(|x| SymRef {
            getpc: x.getpc + base,
            add: x.add + base,
            symbol: x.symbol,
        }));
        out.insts.extend(code);
        if cr.vspill {
            out.push(mask_mov(t, exec_mask(t), Operand::Int(-1)).map_err(enc)?);
        }
        if let (true, Some(vs)) = (cr.lanes, state_v) {
            for (sg, lane) in &saved {
                out.push(readlane(t, *sg, vs, *lane).map_err(enc)?);
            }
            if !saved.is_empty() {
                out.push(nop(t, 4).map_err(enc)?);
            }
        }
        if cr.vspill {
            for (v, off) in &spills {
                out.push(crate::scratch::load_dword(t, *v, a, *off).map_err(enc)?);
            }
            out.push(waitcnt(t, 0, 15).map_err(enc)?);
            out.push(mask_mov(t, exec_mask(t), mask_reg(t, e)).map_err(enc)?);
        }
        if let Some(m) = idx_mode {
            out.push(
                build(
                    t,
                    Opcode::S_SET_GPR_IDX_ON,
                    &[Operand::Reg(RegRange::M0), Operand::Imm(m)],
                )
                .map_err(enc)?,
            );
        }
        sites.push(Site {
            id: sites.len(),
            request: ri,
            function: f.name.clone(),
            function_index: fi,
            inst_index: i,
            pc: f.insts[i].addr,
            inst: prep.inst_text(p, fi, i),
            at,
            slot: s,
            scc_live: live_at.scc,
            vcc_live: live_at.contains(RegRange::VCC),
        });
        Ok(())
    };
    for (ri, r) in requests.iter().enumerate() {
        if !covered[ri][fi] || !comp_ok {
            continue;
        }
        let sel = &r.select;
        match r.at {
            Where::KernelEntry if f.kind == FunctionKind::Kernel && n > 0 => add_site(
                &mut sites,
                &mut slot,
                ri,
                0,
                r.at,
                &mut prologue,
                fl.before[0],
            )?,
            Where::FunctionEntry if f.kind == FunctionKind::DeviceFunction && n > 0 => add_site(
                &mut sites,
                &mut slot,
                ri,
                0,
                r.at,
                &mut prologue,
                fl.before[0],
            )?,
            Where::Before | Where::After | Where::BeforeEndpgm | Where::FunctionReturn => {
                for i in 0..n {
                    let x = &f.insts[i];
                    if !sel.inst_matches(x.addr, &x.inst, exec_writes(i)) {
                        continue;
                    }
                    let b = f.block_of[i];
                    let last = f.blocks[b].end - 1 == i;
                    match r.at {
                        Where::Before => add_site(
                            &mut sites,
                            &mut slot,
                            ri,
                            i,
                            r.at,
                            &mut pre[i],
                            fl.before[i],
                        )?,
                        Where::After => {
                            // Only where control falls through.
                            let falls = !x.inst.is_terminator()
                                || x.inst.is_cond_branch()
                                || crate::asm::canon(&x.inst) == Opcode::S_SWAPPC_B64;
                            if falls {
                                add_site(
                                    &mut sites,
                                    &mut slot,
                                    ri,
                                    i,
                                    r.at,
                                    &mut post[i],
                                    fl.after[i],
                                )?
                            }
                        }
                        Where::BeforeEndpgm
                            if x.inst.flags() & lathe_isa::opcode::flags::ENDPGM != 0 =>
                        {
                            add_site(
                                &mut sites,
                                &mut slot,
                                ri,
                                i,
                                r.at,
                                &mut pre[i],
                                fl.before[i],
                            )?
                        }
                        Where::FunctionReturn if last && f.exits[b] == Exit::Return => add_site(
                            &mut sites,
                            &mut slot,
                            ri,
                            i,
                            r.at,
                            &mut pre[i],
                            fl.before[i],
                        )?,
                        _ => {}
                    }
                }
            }
            Where::BlockEntry | Where::BlockExit => {
                for (b, blk) in f.blocks.iter().enumerate() {
                    let i0 = blk.start;
                    if !sel.inst_matches(f.insts[i0].addr, &f.insts[i0].inst, exec_writes(i0))
                        && sel.class.is_none()
                        && sel.opcode.is_none()
                    {
                        continue;
                    }
                    if sel
                        .range
                        .is_some_and(|(lo, hi)| !(lo <= f.insts[i0].addr && f.insts[i0].addr < hi))
                        || sel
                            .skip
                            .as_ref()
                            .is_some_and(|s| s.contains(&f.insts[i0].addr))
                    {
                        continue;
                    }
                    if r.at == Where::BlockEntry {
                        add_site(
                            &mut sites,
                            &mut slot,
                            ri,
                            i0,
                            r.at,
                            &mut pre[i0],
                            fl.before[i0],
                        )?;
                    } else {
                        let last = blk.end - 1;
                        let li = &f.insts[last].inst;
                        if li.is_terminator() {
                            add_site(
                                &mut sites,
                                &mut slot,
                                ri,
                                last,
                                r.at,
                                &mut pre[last],
                                fl.before[last],
                            )?;
                        } else {
                            add_site(
                                &mut sites,
                                &mut slot,
                                ri,
                                last,
                                r.at,
                                &mut post[last],
                                fl.after[last],
                            )?;
                        }
                        let _ = b;
                    }
                }
            }
            _ => {}
        }
    }
    // Items.
    let mut items: Vec<Item> = Vec::new();
    if f.kind == FunctionKind::Kernel && any_sites && comp_ok && needs_preamble[fi] {
        let pe = |e| encode_err(&f.name, f.addr, "preamble")(e);
        let entry_live = fl.before.first().copied().unwrap_or(RegSet::ALL);
        if cr.lanes && entry_live.scc {
            return Err(Error::Unsupported {
                function: f.name.clone(),
                addr: f.addr,
                why: "SCC is live at kernel entry".into(),
            });
        }
        let no_entry = |what: &str| Error::NoRegisters {
            function: f.name.clone(),
            why: format!("no dead {what} at kernel entry"),
        };
        let plan = plans.get(&fi);
        // Scratch first: FLAT_SCRATCH, the descriptor, and the initial
        // SGPRs moved back to the original layout.
        let mut taken = RegSet::default();
        let mut rsrc_tmp = None;
        if let Some(pl) = plan {
            let mut clear = entry_live;
            for r in pl.entry_sgprs() {
                clear.add(r);
            }
            let dst = if architected {
                None
            } else if cr.lanes {
                let q = pick_dead(&clear, &mut taken, 4).ok_or_else(|| no_entry("SGPR quad"))?;
                rsrc_tmp = Some(q);
                Some(q)
            } else {
                cr.rsrc
            };
            let mut v = Vec::new();
            pl.emit_entry(t, dst, &mut v).map_err(pe)?;
            items.extend(v.into_iter().map(Item::Fixed));
        }
        if !cr.lanes && cr.vspill {
            items.push(Item::Fixed(
                build(t, Opcode::S_MOV_B32, &[sreg(cr.spill_base, 1), konst(area)]).map_err(pe)?,
            ));
        }
        let pp = if cr.lanes {
            pick_dead(&entry_live, &mut taken, 2).ok_or_else(|| no_entry("SGPR pair"))?
        } else {
            regs.ptr
        };
        let g = items.len();
        items.push(Item::Fixed(
            build(t, Opcode::S_GETPC_B64, &[sreg(pp, 2)]).map_err(pe)?,
        ));
        let add = build(
            t,
            Opcode::S_ADD_U32,
            &[sreg(pp, 1), sreg(pp, 1), Operand::Literal(0)],
        )
        .map_err(pe)?;
        let addc = build(
            t,
            Opcode::S_ADDC_U32,
            &[sreg(pp + 1, 1), sreg(pp + 1, 1), Operand::Literal(0)],
        )
        .map_err(pe)?;
        // Target: the data variable (resolved once the layout is known).
        items.push(Item::PcAdd {
            inst: add,
            getpc: g,
            target: AddrRef::Old(u64::MAX),
            hi: false,
        });
        items.push(Item::PcAdd {
            inst: addc,
            getpc: g,
            target: AddrRef::Old(u64::MAX),
            hi: true,
        });
        items.push(Item::Fixed(
            smem_load(t, Opcode::S_LOAD_DWORDX2, pp, pp, 0).map_err(pe)?,
        ));
        items.push(Item::Fixed(waitcnt(t, 63, 0).map_err(pe)?));
        // Lane mode: the state VGPR (kept, or in full mode stored in
        // the area's state word) gets the address in lanes 0-1 and the
        // scratch descriptor in lanes 2-5.
        let state = match cr.vstate() {
            Some(vs) => Some(vs),
            None if cr.lanes && cr.vspill => {
                let mut vt = RegSet::default();
                match pick_vgprs(&entry_live, &RegSet::default(), &mut vt, cr.vmax, 1) {
                    Some((v, false)) => Some(v),
                    _ => return Err(no_entry("VGPR")),
                }
            }
            None => None,
        };
        if let Some(vs) = state {
            for k in 0..2 {
                items.push(Item::Fixed(writelane(t, vs, pp + k, k).map_err(pe)?));
            }
            if let Some(q) = rsrc_tmp {
                for k in 0..4 {
                    items.push(Item::Fixed(
                        writelane(t, vs, q + k, RSRC_LANE + k).map_err(pe)?,
                    ));
                }
            }
        }
        if let (None, Some(vs)) = (cr.vstate(), state) {
            let e = pick_dead(&entry_live, &mut taken, 2).ok_or_else(|| no_entry("SGPR pair"))?;
            let a = pick_dead(&entry_live, &mut taken, 1).ok_or_else(|| no_entry("SGPR"))?;
            for i in [
                mask_mov(t, mask_reg(t, e), exec_mask(t)),
                mask_mov(t, exec_mask(t), Operand::Int(-1)),
                build(t, Opcode::S_MOV_B32, &[sreg(a, 1), konst(area)]),
                crate::scratch::store_dword(t, vs, a, 0),
                mask_mov(t, exec_mask(t), mask_reg(t, e)),
            ] {
                items.push(Item::Fixed(i.map_err(pe)?));
            }
        }
        if !cr.vspill {
            // pp is free again once its value is in the lanes.
            let save = if cr.lanes { pp } else { regs.save };
            let mut pre_v = Vec::new();
            preset_vgprs(t, &regs, save, &mut pre_v).map_err(pe)?;
            items.extend(pre_v.into_iter().map(Item::Fixed));
        }
    }
    prologue.drain_into(&mut items);
    let mut label = vec![0usize; n];
    let mut inst_item = vec![0usize; n];
    let pcrel_at: HashMap<usize, &crate::lift::PcRel> =
        f.pcrel.iter().map(|pr| (pr.getpc, pr)).collect();
    let mut add_of: HashMap<usize, (usize, bool, u64)> = HashMap::new(); // inst -> (getpc inst, hi, target)
    for pr in &f.pcrel {
        if let (Some(a), Some(c), Some(tg)) = (pr.add, pr.addc, pr.target) {
            add_of.insert(a, (pr.getpc, false, tg));
            add_of.insert(c, (pr.getpc, true, tg));
        }
    }
    let mut getpc_item: HashMap<usize, usize> = HashMap::new();
    let mut pending_branches: Vec<(usize, u64)> = Vec::new();
    for i in 0..n {
        label[i] = items.len();
        pre[i].drain_into(&mut items);
        let x = &f.insts[i];
        let inst = x.inst;
        inst_item[i] = items.len();
        if let Some(pr) = pcrel_at.get(&i) {
            getpc_item.insert(i, items.len());
            items.push(Item::Fixed(inst));
            if pr.target.is_none() {
                let scratch = if !cr.lanes {
                    Some(regs.scc)
                } else {
                    let mut live = fl.after[i];
                    live.add(RegRange::sgpr(pr.sreg, 2));
                    pick_dead(&live, &mut RegSet::default(), 1)
                };
                items.push(Item::PcFix {
                    reg: pr.sreg,
                    getpc: items.len() - 1,
                    old: x.addr,
                    scratch,
                });
            }
        } else if let Some(&(g, hi, tg)) = add_of.get(&i) {
            let gi = getpc_item
                .get(&g)
                .copied()
                .ok_or_else(|| Error::Unsupported {
                    function: f.name.clone(),
                    addr: x.addr,
                    why: "address computation before its s_getpc_b64".into(),
                })?;
            items.push(Item::PcAdd {
                inst,
                getpc: gi,
                target: AddrRef::Old(tg),
                hi,
            });
        } else if let Some(tg) = (inst.is_branch() || inst.is_call())
            .then(|| inst.branch_target(x.addr))
            .flatten()
        {
            if crate::asm::canon(&inst) == Opcode::S_CALL_B64 {
                // A direct call: re-targeted to the callee's new copy
                // (relaxed to s_getpc + add + s_swappc when out of
                // range; SCC is saved in a dead or reserved SGPR).
                let callee = p.function_at(tg).ok_or_else(|| Error::Unsupported {
                    function: f.name.clone(),
                    addr: x.addr,
                    why: format!("s_call_b64 to {tg:#x}, which is no function's entry"),
                })?;
                let scratch = if !cr.lanes {
                    Some(regs.scc)
                } else {
                    let mut live = fl.before[i];
                    if let Some(Operand::Reg(r)) = inst.operands().first().map(|o| o.value) {
                        live.add(r);
                    }
                    pick_dead(&live, &mut RegSet::default(), 1)
                };
                items.push(Item::Call {
                    inst,
                    callee,
                    long: false,
                    orig: tg,
                    scratch,
                });
                post[i].drain_into(&mut items);
                continue;
            }
            pending_branches.push((items.len(), tg));
            let scratch = if !cr.lanes {
                Some((regs.tmp, regs.scc))
            } else {
                let mut taken = RegSet::default();
                pick_dead(&fl.before[i], &mut taken, 2).zip(pick_dead(&fl.before[i], &mut taken, 1))
            };
            items.push(Item::Branch {
                inst,
                target: 0,
                long: false,
                orig: tg,
                scratch,
            });
        } else {
            items.push(Item::Fixed(inst));
        }
        post[i].drain_into(&mut items);
    }
    for (it, tg) in pending_branches {
        let ti = f.index_of(tg).ok_or_else(|| Error::Unsupported {
            function: f.name.clone(),
            addr: tg,
            why: "branch target outside the function".into(),
        })?;
        if let Item::Branch { target, .. } = &mut items[it] {
            *target = label[ti];
        }
    }
    let mut fc = FnCode {
        items,
        inst_item,
        label,
        offs: Vec::new(),
        size: 0,
    };
    fc.relayout();
    *sites_out = sites;
    *slot_out = slot;
    Ok(fc)
}

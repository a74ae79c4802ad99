//! The plan of a rewrite, decided before any code is laid out: which
//! functions each request covers, registers per call-graph component
//! (reserved, lane mode or spilled), probe scratch per kernel, and what
//! the kernels' descriptors say.

use std::collections::HashMap;

use lathe_isa::{RegRange, Target};

use super::prepare::Prepared;
use super::regs::{reserve, CompRegs};
use super::site::Request;
use crate::asm::Reserved;
use crate::lift::{FunctionKind, Program};
use crate::live::RegSet;
use crate::scratch::Plan;
use crate::Error;

/// Rewriter options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Use lane mode (probe state in VGPR lanes, SGPRs borrowed per site)
    /// even when free SGPRs exist (for testing it).
    pub force_lane_mode: bool,
}

impl Options {
    /// Options with lane mode forced or not.
    pub fn lane_mode(force: bool) -> Options {
        Options {
            force_lane_mode: force,
        }
    }
}

/// Everything the phases after planning need.
pub(crate) struct RewritePlan<'a> {
    /// What does not depend on the requests.
    pub(crate) prep: &'a Prepared<'a>,
    /// ISA target.
    pub(crate) t: Target,
    /// Call-graph component of each function.
    pub(crate) comp: &'a [usize],
    /// Registers each component reads or writes (and initial SGPRs, and
    /// the SGPRs the kernels' new scratch set-up takes).
    pub(crate) comp_used: Vec<RegSet>,
    /// Per request, the functions it covers.
    pub(crate) covered: Vec<Vec<bool>>,
    /// Architected flat scratch (gfx94x).
    pub(crate) architected: bool,
    /// Per request, its region of the probe scratch area.
    pub(crate) req_area: Vec<Option<u32>>,
    /// Kernels that get the entry preamble.
    pub(crate) needs_preamble: Vec<bool>,
    /// Probe scratch area offset per component.
    pub(crate) comp_area: Vec<u32>,
    /// Scratch plans of the kernels that need probe scratch.
    pub(crate) plans: HashMap<usize, Plan>,
    /// Components whose areas are relative to the stack pointer.
    pub(crate) comp_sp: Vec<bool>,
    /// Reserved registers per component, or why there are none.
    pub(crate) comp_regs: Vec<Result<CompRegs, String>>,
    /// Stand-in for code without probes.
    pub(crate) no_regs: CompRegs,
    /// The first component's reservation (reported).
    pub(crate) first_regs: Reserved,
    /// Kernels left without probes, and why.
    pub(crate) skipped: Vec<(String, String)>,
}

impl<'a> RewritePlan<'a> {
    /// Plans the rewrite of `p` (prepared as `prep`) for `requests`.
    pub(crate) fn new(
        prep: &'a Prepared<'a>,
        p: &Program,
        requests: &[Request],
        opts: &Options,
    ) -> Result<RewritePlan<'a>, Error> {
        let arch = prep.arch;
        let t = prep.t;
        let comp = &prep.comp[..];
        let ncomp = prep.ncomp;
        let kd_of = &prep.kd_of;
        let mut comp_used = prep.comp_used.clone();
        if opts.force_lane_mode {
            for &c in comp {
                comp_used[c].add(RegRange::sgpr(0, 102));
            }
        }
        // Which functions each request covers: selected kernels and what they
        // call.
        let mut covered: Vec<Vec<bool>> = Vec::new();
        for r in requests {
            let mut cov = vec![false; p.functions.len()];
            for (fi, f) in p.functions.iter().enumerate() {
                if f.kind == FunctionKind::Kernel
                    && r.select
                        .kernel
                        .as_ref()
                        .is_none_or(|re| re.is_match(&f.name))
                {
                    for &g in &prep.reach[fi] {
                        cov[g] = true;
                    }
                }
            }
            covered.push(cov);
        }
        // Scratch asked for by probes: each such request gets its region of
        // the probe area, after the rewriter's own words.
        let architected = arch.architected_flat_scratch;
        let mut req_area: Vec<Option<u32>> = vec![None; requests.len()];
        let mut probe_bytes = 0u32;
        for (ri, r) in requests.iter().enumerate() {
            let b = r.probe.scratch_bytes();
            if b > 0 {
                req_area[ri] = Some(crate::scratch::AREA_RESERVED + probe_bytes);
                probe_bytes += b.next_multiple_of(16);
            }
        }
        // Components calling functions outside the code object.
        let mut comp_external = prep.comp_external.clone();
        // Probes calling other code objects (hooks): the same.
        for (ri, cov) in covered.iter().enumerate() {
            if requests[ri].probe.calls_external() {
                for (fi, c) in cov.iter().enumerate() {
                    if *c {
                        comp_external[comp[fi]] = true;
                    }
                }
            }
        }
        let mut comp_probe_scratch = vec![false; ncomp];
        for (ri, cov) in covered.iter().enumerate() {
            if req_area[ri].is_some() {
                for (fi, c) in cov.iter().enumerate() {
                    if *c {
                        comp_probe_scratch[comp[fi]] = true;
                    }
                }
            }
        }
        // Components that need scratch (asked for, or spilling) get a plan for
        // each of their kernels, with one area offset for the component (its
        // device functions serve every kernel); the new initial SGPRs are
        // kept clear of.
        let first: Vec<bool> = comp_used
            .iter()
            .enumerate()
            .map(|(c, u)| reserve(u, comp_probe_scratch[c], architected, comp_external[c]).scratch)
            .collect();
        // Kernels whose code (or whose callees' code) gets probes: only they
        // get the entry preamble and probe scratch (the others are copied
        // unchanged, with register counts covering the component's).
        let covered_any: Vec<bool> = (0..p.functions.len())
            .map(|g| covered.iter().any(|c| c[g]))
            .collect();
        let needs_preamble: Vec<bool> = (0..p.functions.len())
            .map(|fi| {
                p.functions[fi].kind == FunctionKind::Kernel
                    && prep.reach[fi].iter().any(|&g| covered_any[g])
            })
            .collect();
        let mut comp_area = vec![0u32; ncomp];
        for (fi, d) in kd_of {
            let c = comp[*fi];
            if first[c] && needs_preamble[*fi] {
                comp_area[c] = comp_area[c].max(crate::scratch::frame_end(d));
            }
        }
        let mut plans: HashMap<usize, Plan> = HashMap::new();
        let mut comp_err: Vec<Option<String>> = vec![None; ncomp];
        // Components whose scratch users can all work above s32 (architected
        // flat scratch only; the rewriter's own spill area cannot).
        let mut sp_capable = vec![architected; ncomp];
        for (ri, cov) in covered.iter().enumerate() {
            if req_area[ri].is_some() && !requests[ri].probe.scratch_at_stack_pointer() {
                for (fi, c) in cov.iter().enumerate() {
                    if *c {
                        sp_capable[comp[fi]] = false;
                    }
                }
            }
        }
        for (c, u) in comp_used.iter().enumerate() {
            if reserve(u, comp_probe_scratch[c], architected, comp_external[c]).vspill {
                sp_capable[c] = false;
            }
        }
        let mut comp_sp = vec![false; ncomp];
        for (fi, d) in kd_of {
            let c = comp[*fi];
            if !first[c] || !needs_preamble[*fi] {
                continue;
            }
            // A dynamic stack where every scratch user can work above s32
            // (gfx942): frames above the kernel's own stack pointer, as a
            // callee's, whatever the stack's depth; elsewhere the area past
            // the stack's reserve (D12).
            if d.properties().uses_dynamic_stack && sp_capable[c] {
                comp_sp[c] = true;
                continue;
            }
            match Plan::new(d, arch, comp_area[c], probe_bytes) {
                Ok(pl) => {
                    for r in pl.entry_sgprs() {
                        comp_used[c].add(r);
                    }
                    plans.insert(*fi, pl);
                }
                Err(e) => comp_err[c] = Some(format!("no scratch for probes: {e}")),
            }
        }
        // Components using the stack pointer: no plans (their kernels keep
        // their own scratch set-up), areas relative to s32.
        for (fi, _) in kd_of {
            if comp_sp[comp[*fi]] {
                plans.remove(fi);
            }
        }
        for c in 0..ncomp {
            if comp_sp[c] {
                comp_area[c] = 0;
            }
        }
        let comp_regs: Vec<Result<CompRegs, String>> = comp_used
            .iter()
            .enumerate()
            .map(|(c, u)| match &comp_err[c] {
                Some(e) => Err(e.clone()),
                None => {
                    let r = reserve(u, comp_probe_scratch[c], architected, comp_external[c]);
                    if r.scratch && !first[c] {
                        return Err("registers ran out once scratch was enabled".into());
                    }
                    Ok(r)
                }
            })
            .collect();
        if !comp_regs.is_empty() && comp_regs.iter().all(|r| r.is_err()) {
            return Err(Error::NoRegisters {
                function: p
                    .functions
                    .first()
                    .map_or_else(String::new, |f| f.name.clone()),
                why: comp_regs
                    .iter()
                    .find_map(|r| r.clone().err())
                    .unwrap_or_default(),
            });
        }
        // Stand-in for code without probes: lane mode, so that long jumps and
        // getpc fixes look for dead SGPRs.
        let no_regs = CompRegs {
            regs: Reserved {
                ptr: 0,
                save: 0,
                tmp: 0,
                t2: 0,
                scc: 0,
                vdata: 0,
                vcnt: 0,
                voff: 0,
                vtmp: 0,
                vaux: 0,
                vstate: Some(0),
            },
            lanes: true,
            vspill: false,
            scratch: false,
            rsrc: None,
            spill_exec: 0,
            spill_base: 0,
            sgpr_end: 0,
            vmax: 0,
        };
        let first_regs = comp_regs
            .iter()
            .find_map(|r| r.as_ref().ok().map(|c| c.regs))
            .unwrap_or(no_regs.regs);
        let mut skipped: Vec<(String, String)> = Vec::new();
        for (fi, f) in p.functions.iter().enumerate() {
            if let Err(why) = &comp_regs[comp[fi]] {
                if f.kind == FunctionKind::Kernel {
                    skipped.push((f.name.clone(), why.clone()));
                }
            }
        }
        Ok(RewritePlan {
            prep,
            t,
            comp,
            comp_used,
            covered,
            architected,
            req_area,
            needs_preamble,
            comp_area,
            plans,
            comp_sp,
            comp_regs,
            no_regs,
            first_regs,
            skipped,
        })
    }
}

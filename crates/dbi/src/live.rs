//! Register liveness per instruction: SGPRs (with VCC, EXEC, M0,
//! FLAT_SCRATCH, XNACK_MASK, TTMPs in the scalar space), SCC, VGPRs and
//! AGPRs, across calls.
//!
//! **Divergence.** A vector register holds one value per lane, and a VALU
//! write only replaces the lanes active in EXEC. A write under a partial
//! EXEC therefore does not end the liveness of the values in the other
//! lanes. A vector write kills liveness only where EXEC is known to hold
//! every lane the wave started with (a forward analysis: kernel entry, no
//! EXEC write on any path since, or `s_mov_b64 exec, -1`), and only for
//! instructions that replace whole registers (not `v_writelane`, SDWA,
//! DPP or `d16` partial writes). Everywhere else vector writes are treated
//! as partial and liveness flows through them.
//!
//! **Calls.** A call site uses what the callee reads before writing
//! (its live-in) and kills nothing; a device function's return is live
//! with the union of what is live after all its call sites, or with every
//! register when it has unknown callers.

use std::fmt;

use lathe_isa::sem::{self, Partial};
use lathe_isa::{Instruction, Opcode, Operand, RegFile, RegRange};

use crate::lift::{Exit, FunctionKind, Program};

/// A set of registers.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct RegSet {
    /// Scalar space by encoding 0..127 (s0..s101, flat_scratch, xnack_mask,
    /// vcc, ttmp0..15, m0, exec).
    pub s: u128,
    /// SCC.
    pub scc: bool,
    /// v0..v255.
    pub v: [u64; 4],
    /// a0..a255.
    pub a: [u64; 4],
}

impl RegSet {
    /// Every register.
    pub const ALL: RegSet = RegSet {
        s: u128::MAX,
        scc: true,
        v: [u64::MAX; 4],
        a: [u64::MAX; 4],
    };

    /// Adds a register range (inline-constant encodings are ignored).
    pub fn add(&mut self, r: RegRange) {
        match r.file {
            RegFile::Scalar => {
                if r.first == lathe_isa::info::SCC.first {
                    self.scc = true;
                } else {
                    for k in r.first..r.first + r.count as u16 {
                        if k < 128 {
                            self.s |= 1 << k;
                        }
                    }
                }
            }
            RegFile::Vgpr => set_bits(&mut self.v, r.first, r.count),
            RegFile::Agpr => set_bits(&mut self.a, r.first, r.count),
        }
    }

    /// Removes a register range.
    pub fn remove(&mut self, r: RegRange) {
        match r.file {
            RegFile::Scalar => {
                if r.first == lathe_isa::info::SCC.first {
                    self.scc = false;
                } else {
                    for k in r.first..r.first + r.count as u16 {
                        if k < 128 {
                            self.s &= !(1 << k);
                        }
                    }
                }
            }
            RegFile::Vgpr => clear_bits(&mut self.v, r.first, r.count),
            RegFile::Agpr => clear_bits(&mut self.a, r.first, r.count),
        }
    }

    /// True if any register of `r` is in the set.
    pub fn contains(&self, r: RegRange) -> bool {
        let mut t = RegSet::default();
        t.add(r);
        !self.intersect(&t).is_empty()
    }

    /// Union.
    pub fn union(&self, o: &RegSet) -> RegSet {
        RegSet {
            s: self.s | o.s,
            scc: self.scc | o.scc,
            v: std::array::from_fn(|i| self.v[i] | o.v[i]),
            a: std::array::from_fn(|i| self.a[i] | o.a[i]),
        }
    }

    /// Intersection.
    pub fn intersect(&self, o: &RegSet) -> RegSet {
        RegSet {
            s: self.s & o.s,
            scc: self.scc & o.scc,
            v: std::array::from_fn(|i| self.v[i] & o.v[i]),
            a: std::array::from_fn(|i| self.a[i] & o.a[i]),
        }
    }

    /// True if empty.
    pub fn is_empty(&self) -> bool {
        self.s == 0 && !self.scc && self.v == [0; 4] && self.a == [0; 4]
    }

    /// True if VGPR `v{n}` is in the set.
    pub fn has_vgpr(&self, n: u16) -> bool {
        n < 256 && self.v[n as usize / 64] >> (n % 64) & 1 != 0
    }

    /// True if AGPR `a{n}` is in the set.
    pub fn has_agpr(&self, n: u16) -> bool {
        n < 256 && self.a[n as usize / 64] >> (n % 64) & 1 != 0
    }

    /// True if scalar-space encoding `n` is in the set.
    pub fn has_sreg(&self, n: u16) -> bool {
        n < 128 && self.s >> n & 1 != 0
    }

    /// Highest VGPR in the set.
    pub fn max_vgpr(&self) -> Option<u16> {
        (0..256u16).rev().find(|&n| self.has_vgpr(n))
    }

    /// Highest AGPR in the set.
    pub fn max_agpr(&self) -> Option<u16> {
        (0..256u16).rev().find(|&n| self.has_agpr(n))
    }

    /// Highest SGPR (s0..s101) in the set.
    pub fn max_sgpr(&self) -> Option<u16> {
        (0..102u16).rev().find(|&n| self.has_sreg(n))
    }
}

fn set_bits(b: &mut [u64; 4], first: u16, count: u8) {
    for k in first..first + count as u16 {
        if k < 256 {
            b[k as usize / 64] |= 1 << (k % 64);
        }
    }
}

fn clear_bits(b: &mut [u64; 4], first: u16, count: u8) {
    for k in first..first + count as u16 {
        if k < 256 {
            b[k as usize / 64] &= !(1 << (k % 64));
        }
    }
}

fn runs(
    f: &mut fmt::Formatter<'_>,
    sep: &mut bool,
    prefix: &str,
    has: impl Fn(u16) -> bool,
    n: u16,
) -> fmt::Result {
    let mut k = 0;
    while k < n {
        if !has(k) {
            k += 1;
            continue;
        }
        let s = k;
        while k < n && has(k) {
            k += 1;
        }
        if *sep {
            f.write_str(" ")?;
        }
        *sep = true;
        if k - s == 1 {
            write!(f, "{prefix}{s}")?;
        } else {
            write!(f, "{prefix}[{s}:{}]", k - 1)?;
        }
    }
    Ok(())
}

impl fmt::Display for RegSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = false;
        runs(f, &mut sep, "s", |k| self.has_sreg(k), 102)?;
        let named: [(u16, u8, &str); 5] = [
            (102, 2, "flat_scratch"),
            (104, 2, "xnack_mask"),
            (106, 2, "vcc"),
            (124, 1, "m0"),
            (126, 2, "exec"),
        ];
        for (first, count, name) in named {
            let parts: Vec<bool> = (first..first + u16::from(count))
                .map(|k| self.has_sreg(k))
                .collect();
            if parts.iter().any(|&p| p) {
                if sep {
                    f.write_str(" ")?;
                }
                sep = true;
                if parts.iter().all(|&p| p) || count == 1 {
                    f.write_str(name)?;
                } else if parts[0] {
                    write!(f, "{name}_lo")?;
                } else {
                    write!(f, "{name}_hi")?;
                }
            }
        }
        runs(f, &mut sep, "ttmp", |k| self.has_sreg(108 + k), 16)?;
        if self.scc {
            if sep {
                f.write_str(" ")?;
            }
            sep = true;
            f.write_str("scc")?;
        }
        runs(f, &mut sep, "v", |k| self.has_vgpr(k), 256)?;
        runs(f, &mut sep, "a", |k| self.has_agpr(k), 256)?;
        Ok(())
    }
}

impl fmt::Debug for RegSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{self}}}")
    }
}

/// Registers an instruction reads and writes, and which of the writes end
/// liveness.
#[derive(Debug, Clone, Copy, Default)]
pub struct Effects {
    /// Read.
    pub uses: RegSet,
    /// Written (any lane).
    pub defs: RegSet,
    /// Written completely (scalar writes; vector writes that replace
    /// every lane when EXEC is full).
    pub kills_scalar: RegSet,
    /// Vector registers fully replaced when EXEC holds every lane.
    pub kills_vector_full_exec: RegSet,
}

/// True if a vector write of `inst` replaces whole 32-bit registers in the
/// active lanes: its semantic description says it writes all of the
/// destination (not a 16-bit half, one lane, or what SDWA or a 16-bit
/// VOP3's `op_sel` selects), it is not DPP16 (lanes a row or bank mask
/// disables keep their value), and it is not a non-returning atomic.
fn whole_vector_write(inst: &Instruction) -> bool {
    !(inst.encoding().has_dpp_masks()
        || sem::of(inst.opcode()).partial != Partial::Full
        || inst.is_atomic() && !inst.is_load()
        || crate::asm::canon(inst) == Opcode::V_ACCVGPR_MOV_B32)
}

/// The effects of one instruction.
pub fn effects(inst: &Instruction) -> Effects {
    let mut e = Effects::default();
    let whole = whole_vector_write(inst);
    // In wave32 the implicit EXEC and VCC are `exec_lo` and `vcc_lo`: the
    // high halves are neither read nor written.
    let mask = crate::asm::mask_sgprs(inst.target());
    inst.for_each_reg(|mut a| {
        if a.implicit
            && a.reg.file == RegFile::Scalar
            && (a.reg == RegRange::EXEC || a.reg == RegRange::VCC)
        {
            a.reg = RegRange::sgpr(a.reg.first, mask);
        }
        if a.read {
            e.uses.add(a.reg);
        }
        if a.write {
            e.defs.add(a.reg);
            match a.reg.file {
                RegFile::Scalar => {
                    // A read-modify-write of a scalar register (s_addc's
                    // carry, s_cmov) still replaces it; reads are added
                    // after kills.
                    e.kills_scalar.add(a.reg)
                }
                _ if whole => e.kills_vector_full_exec.add(a.reg),
                _ => {}
            }
        }
    });
    // A printed implicit `vcc` (VOP2 carry-out, VOPC e32) is listed as
    // read by the instruction info; it is read only when the opcode reads
    // VCC (carry-in, v_cndmask) or an explicit source names it.
    // A dual-issue word reads VCC when either half does (a VOPD Y-half
    // `v_dual_cndmask_b32` reads `vcc_lo` whatever the X half is).
    let reads_vcc = |flags: u64| flags & lathe_isa::opcode::flags::READS_VCC != 0;
    // VCC is `vcc_lo` alone in wave32.
    let vcc = RegRange::sgpr(
        lathe_isa::reg::sreg::VCC_LO,
        crate::asm::mask_sgprs(inst.target()),
    );
    if e.uses.contains(vcc)
        && !reads_vcc(inst.flags())
        && !inst
            .vopd_y()
            .is_some_and(|y| reads_vcc(y.info().flags(inst.target())))
        && !inst.operands().iter().any(|o| {
            o.spec.field != lathe_isa::Field::Implicit
                && o.spec.is_read()
                && matches!(o.value, Operand::Reg(r) if r.file == RegFile::Scalar && r.overlaps(&RegRange::VCC))
        })
    {
        e.uses.remove(vcc);
    }
    // Conditional moves keep the old value when the condition is false.
    if inst.flags() & lathe_isa::opcode::flags::CBRANCH != 0
        || matches!(
            crate::asm::canon(inst),
            Opcode::S_CMOV_B32
                | Opcode::S_CMOV_B64
                | Opcode::S_CMOVK_I32
                | Opcode::S_CBRANCH_G_FORK
                | Opcode::S_CBRANCH_JOIN
        )
    {
        e.kills_scalar = RegSet::default();
    }
    e
}

/// Liveness of one function: registers live before each instruction.
#[derive(Debug, Clone)]
pub struct FunctionLiveness {
    /// Live before instruction `i`.
    pub before: Vec<RegSet>,
    /// Live after instruction `i`.
    pub after: Vec<RegSet>,
    /// Whether EXEC holds every lane the wave started with before `i`.
    pub exec_full: Vec<bool>,
    /// Every register the function (and what it calls) may write.
    pub clobbers: RegSet,
    /// What each instruction reads and writes.
    pub effects: Vec<Effects>,
}

impl FunctionLiveness {
    /// Live at entry.
    pub fn live_in(&self) -> RegSet {
        self.before.first().copied().unwrap_or_default()
    }
}

/// Liveness of every function of a program.
#[derive(Debug, Clone)]
pub struct Liveness {
    /// Per function (same order as [`Program::functions`]).
    pub functions: Vec<FunctionLiveness>,
}

/// Whether the effects write EXEC (either half).
pub fn writes_exec(e: &Effects) -> bool {
    e.defs.has_sreg(EXEC_LO) || e.defs.has_sreg(EXEC_LO + 1)
}

/// Scalar-space encoding of `exec_lo`.
const EXEC_LO: u16 = 126;

fn is_exec_all_ones(inst: &Instruction) -> bool {
    // `s_mov_b64 exec, -1`; `s_mov_b32 exec_lo, -1` in wave32.
    let mov = if crate::asm::mask_sgprs(inst.target()) == 1 {
        Opcode::S_MOV_B32
    } else {
        Opcode::S_MOV_B64
    };
    if crate::asm::canon(inst) != mov {
        return false;
    }
    let ops = inst.operands();
    let dst_exec = ops.first().is_some_and(
        |o| matches!(o.value, Operand::Reg(r) if r.file == RegFile::Scalar && r.first == EXEC_LO),
    );
    dst_exec
        && ops.get(1).is_some_and(|o| {
            matches!(o.value, Operand::Int(-1)) || o.value == Operand::Literal(u32::MAX)
        })
}

impl Liveness {
    /// Computes liveness for every function of `p`.
    pub fn compute(p: &Program) -> Liveness {
        Liveness::compute_with(p, false)
    }

    /// With `naive`, every vector write ends liveness whatever EXEC holds
    /// (what per-register liveness without divergence does; wrong, kept
    /// to show the difference in tests).
    pub fn compute_with(p: &Program, naive: bool) -> Liveness {
        let nf = p.functions.len();
        let effects: Vec<Vec<Effects>> = p
            .functions
            .iter()
            .map(|f| f.insts.iter().map(|x| effects(&x.inst)).collect())
            .collect();
        // EXEC-full forward analysis.
        let exec_full: Vec<Vec<bool>> = p
            .functions
            .iter()
            .enumerate()
            .map(|(fi, f)| {
                // Transfer per instruction: Some(v) sets the state, None
                // keeps it. Optimistic start (true), iterated down.
                let xfer: Vec<Option<bool>> = f
                    .insts
                    .iter()
                    .zip(&effects[fi])
                    .map(|(x, e)| {
                        if !writes_exec(e) {
                            None
                        } else {
                            Some(is_exec_all_ones(&x.inst))
                        }
                    })
                    .collect();
                let nb = f.blocks.len();
                let entry = f.kind == FunctionKind::Kernel;
                let mut out = vec![true; f.insts.len()];
                let mut block_out = vec![true; nb];
                let mut changed = true;
                let mut rounds = 0;
                while changed && rounds < 64 {
                    changed = false;
                    rounds += 1;
                    for b in 0..nb {
                        let mut st = if b == 0 { entry } else { true };
                        if b != 0 && f.blocks[b].preds.is_empty() {
                            st = false;
                        }
                        for &pb in &f.blocks[b].preds {
                            st &= block_out[pb];
                        }
                        let mut cur = st;
                        for i in f.block_insts(b) {
                            out[i] = cur;
                            if let Some(v) = xfer[i] {
                                cur = v;
                            }
                        }
                        if cur != block_out[b] {
                            block_out[b] = cur;
                            changed = true;
                        }
                    }
                }
                out
            })
            .collect();
        // Clobbers: transitive over the call graph.
        let mut clobbers: Vec<RegSet> = effects
            .iter()
            .map(|es| {
                es.iter()
                    .fold(RegSet::default(), |acc, e| acc.union(&e.defs))
            })
            .collect();
        for _ in 0..nf.min(32) {
            let mut changed = false;
            for (fi, f) in p.functions.iter().enumerate() {
                let mut c = clobbers[fi];
                for call in &f.calls {
                    c = c.union(&call.callee.map_or(RegSet::ALL, |t| clobbers[t]));
                }
                if c != clobbers[fi] {
                    clobbers[fi] = c;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut live_in = vec![RegSet::default(); nf];
        let mut ret_live: Vec<RegSet> = (0..nf)
            .map(|fi| {
                if p.callers[fi].is_empty() {
                    RegSet::ALL
                } else {
                    RegSet::default()
                }
            })
            .collect();
        // Worklist over functions: a function is recomputed when a
        // callee's live-in or its own return liveness changed.
        let mut dirty = vec![true; nf];
        let mut slots: Vec<Option<FunctionLiveness>> = vec![None; nf];
        for _round in 0..16 {
            let mut recomputed = Vec::new();
            for fi in 0..nf {
                if !dirty[fi] {
                    continue;
                }
                dirty[fi] = false;
                slots[fi] = Some(function_liveness(
                    p,
                    fi,
                    &effects[fi],
                    &exec_full[fi],
                    &live_in,
                    ret_live[fi],
                    clobbers[fi],
                    naive,
                ));
                recomputed.push(fi);
            }
            if recomputed.is_empty() {
                break;
            }
            let mut callees_to_update = Vec::new();
            for &fi in &recomputed {
                let li = slots[fi].as_ref().map(|r| r.live_in()).unwrap_or_default();
                if li != live_in[fi] {
                    live_in[fi] = li;
                    for &(cf, _) in &p.callers[fi] {
                        dirty[cf] = true;
                    }
                }
                for c in &p.functions[fi].calls {
                    if let Some(t) = c.callee {
                        callees_to_update.push(t);
                    }
                }
            }
            callees_to_update.sort_unstable();
            callees_to_update.dedup();
            for fi in callees_to_update {
                let mut r = RegSet::default();
                for &(cf, ci) in &p.callers[fi] {
                    let site = p.functions[cf].calls[ci].site;
                    if let Some(res) = &slots[cf] {
                        r = r.union(&res.after[site]);
                    }
                }
                if r != ret_live[fi] {
                    ret_live[fi] = r;
                    dirty[fi] = true;
                }
            }
        }
        let result: Vec<FunctionLiveness> = slots
            .into_iter()
            .zip(effects)
            .map(|(s, e)| {
                let mut s = s.unwrap_or(FunctionLiveness {
                    before: Vec::new(),
                    after: Vec::new(),
                    exec_full: Vec::new(),
                    clobbers: RegSet::ALL,
                    effects: Vec::new(),
                });
                s.effects = e;
                s
            })
            .collect();
        Liveness { functions: result }
    }
}

#[allow(clippy::too_many_arguments)]
fn function_liveness(
    p: &Program,
    fi: usize,
    effects: &[Effects],
    exec_full: &[bool],
    live_in: &[RegSet],
    ret_live: RegSet,
    clobbers: RegSet,
    naive: bool,
) -> FunctionLiveness {
    let f = &p.functions[fi];
    let n = f.insts.len();
    let nb = f.blocks.len();
    let mut before = vec![RegSet::default(); n];
    let mut after = vec![RegSet::default(); n];
    let mut block_in = vec![RegSet::default(); nb];
    let call_at: std::collections::HashMap<usize, Option<usize>> =
        f.calls.iter().map(|c| (c.site, c.callee)).collect();
    // Worklist, blocks in reverse order first; a block whose live-in
    // changes queues its predecessors.
    let mut work: Vec<usize> = (0..nb).collect();
    let mut queued = vec![true; nb];
    let mut steps = 0usize;
    while let Some(b) = work.pop() {
        queued[b] = false;
        steps += 1;
        if steps > 64 * nb + 1024 {
            break;
        }
        {
            let blk = &f.blocks[b];
            let mut live = match f.exits[b] {
                Exit::EndProgram | Exit::Trap => RegSet::default(),
                Exit::Return => ret_live,
                Exit::Unresolved => RegSet::ALL,
                Exit::TailCall => {
                    let last = blk.end - 1;
                    match call_at.get(&last) {
                        Some(Some(t)) => live_in[*t].union(&ret_live),
                        _ => RegSet::ALL,
                    }
                }
                Exit::Local => RegSet::default(),
            };
            for &s in &blk.succs {
                live = live.union(&block_in[s]);
            }
            // Vector liveness is split in two: `same` comes only from reads
            // later in the same EXEC region (no EXEC write in between), so
            // a write there runs under the same EXEC and covers it;
            // `other` comes from elsewhere and only a full-EXEC write ends
            // it.
            let mut same = RegSet::default();
            let mut other = live;
            for i in (blk.start..blk.end).rev() {
                after[i] = live;
                let e = &effects[i];
                let inst = &f.insts[i].inst;
                let mut sc = live;
                let is_call =
                    crate::asm::canon(inst) != Opcode::S_SETPC_B64 && call_at.contains_key(&i);
                if is_call {
                    // The callee reads its live-in; nothing is killed
                    // except the return address the call writes.
                    let callee_in = match call_at.get(&i) {
                        Some(Some(t)) => live_in[*t],
                        _ => RegSet::ALL,
                    };
                    other = other.union(&same).union(&callee_in);
                    same = RegSet::default();
                    sc = sc.union(&callee_in);
                    sc.s &= !e.defs.s;
                } else {
                    sc.s &= !e.kills_scalar.s;
                    if e.kills_scalar.scc {
                        sc.scc = false;
                    }
                    let k = &e.kills_vector_full_exec;
                    for w in 0..4 {
                        if exec_full[i] || naive {
                            other.v[w] &= !k.v[w];
                            other.a[w] &= !k.a[w];
                        }
                        same.v[w] &= !k.v[w];
                        same.a[w] &= !k.a[w];
                    }
                    if writes_exec(e) {
                        // EXEC changes here: earlier code runs under
                        // another EXEC.
                        other = other.union(&same);
                        same = RegSet::default();
                    }
                }
                same.v = std::array::from_fn(|w| same.v[w] | e.uses.v[w]);
                same.a = std::array::from_fn(|w| same.a[w] | e.uses.a[w]);
                let mut l = sc.union(&e.uses);
                l.v = std::array::from_fn(|w| other.v[w] | same.v[w]);
                l.a = std::array::from_fn(|w| other.a[w] | same.a[w]);
                before[i] = l;
                live = l;
            }
            if live != block_in[b] {
                block_in[b] = live;
                for &pb in &blk.preds {
                    if !queued[pb] {
                        queued[pb] = true;
                        work.push(pb);
                    }
                }
            }
        }
    }
    FunctionLiveness {
        before,
        after,
        exec_full: exec_full.to_vec(),
        clobbers,
        effects: Vec::new(),
    }
}

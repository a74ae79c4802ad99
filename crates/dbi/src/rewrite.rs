//! The rewriter: sites, probes, registers for probes, layout and the new
//! code object.
//!
//! **Sites** ([`Where`]) are chosen by a [`Selector`] (kernel-name regex,
//! instruction class, opcode-name regex, address range). Functions reached
//! by calls from a selected kernel are instrumented too.
//!
//! **Probes** ([`Probe`]) are machine code built with `lathe-isa`'s encoder
//! from a [`ProbeCx`]: the registers reserved for probes and the byte
//! offset of the site's slot in the probe-data buffer. A probe must leave
//! every register other than the reserved ones as it found it (EXEC
//! included); the built-in probes never touch SCC, VCC or M0, so sites
//! where those are live need no saving.
//!
//! **Registers.** Per call-graph component, probes get registers no
//! instruction of the component reads or writes (and no initial SGPR):
//! dead everywhere, so nothing has to be saved. The kernel descriptors'
//! VGPR/SGPR counts (and `ACCUM_OFFSET`, which moves the AGPRs without
//! changing their names) grow to cover them. Without free SGPRs the
//! component uses lane mode ([`Reserved::vstate`]: SGPRs borrowed per site,
//! dead ones first, live ones saved in VGPR lanes). Without free VGPRs,
//! probe VGPRs are chosen per site (dead ones first, live ones spilled to
//! the probe scratch area around the probe, [`crate::scratch`]); with
//! neither, the lane-mode state VGPR is loaded from scratch at each site.
//! Probes can ask for scratch ([`Probe::scratch_bytes`]).
//!
//! **Layout.** Every function is re-emitted into a new code section (the
//! original code stays where it was, unused): branches are re-targeted to
//! the new positions (to the start of the probes of their target, so block
//! entry probes run on every entry); `s_getpc_b64`-relative computations
//! are re-based (the literal of the recognised `s_add_u32`/`s_addc_u32`
//! pair is recomputed; a bare `s_getpc_b64` gets a correcting add with SCC
//! saved); call targets are mapped to the new copies of their callees; a
//! branch whose distance no longer fits ±2^15 dwords becomes a long jump
//! (`s_getpc_b64`/add/`s_setpc_b64`, SCC saved). Probes add memory
//! operations only after the program's own, and vector-memory counters
//! drain in order, so the program's `s_waitcnt`s stay sufficient.

use std::collections::HashMap;
use std::sync::Arc;

use lathe_codeobj::kd::{KdArch, KernelDescriptor, Rsrc3, SgprRole};
use lathe_codeobj::CodeObject;
use lathe_isa::{BuildError, Instruction, Modifiers, Opcode, Operand, RegFile, RegRange, Target};
use regex::Regex;

use crate::elfout::{self, NewLayout, Patch};
use crate::lift::{Exit, FunctionKind, Program};
use crate::live::{Liveness, RegSet};
use crate::scratch::{Plan, ScratchCx, RSRC_LANE};
use crate::Error;

/// Where a probe goes relative to the selected code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Where {
    /// Before each selected instruction.
    Before,
    /// After each selected instruction (on the fall-through path).
    After,
    /// At the entry of each basic block (runs on every entry).
    BlockEntry,
    /// At the exit of each basic block (before its terminator).
    BlockExit,
    /// Once, at kernel entry.
    KernelEntry,
    /// Before each `s_endpgm`.
    BeforeEndpgm,
    /// At device-function entry.
    FunctionEntry,
    /// Before each device-function return.
    FunctionReturn,
}

/// Instruction classes for selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InstClass {
    /// Scalar ALU.
    Salu,
    /// Vector ALU.
    Valu,
    /// Scalar memory.
    Smem,
    /// Vector memory (global, flat, scratch, buffer).
    Vmem,
    /// LDS.
    Lds,
    /// Any memory access.
    Memory,
    /// Branches, calls, returns.
    Branch,
    /// Instructions that write EXEC.
    ExecWrite,
}

impl InstClass {
    /// Parses `salu`, `valu`, `smem`, `vmem`, `lds`, `memory`, `branch`,
    /// `exec-write`.
    pub fn parse(s: &str) -> Option<InstClass> {
        Some(match s {
            "salu" => InstClass::Salu,
            "valu" => InstClass::Valu,
            "smem" => InstClass::Smem,
            "vmem" => InstClass::Vmem,
            "lds" => InstClass::Lds,
            "memory" => InstClass::Memory,
            "branch" => InstClass::Branch,
            "exec-write" => InstClass::ExecWrite,
            _ => return None,
        })
    }

    /// True if `inst` is in the class.
    pub fn matches(self, inst: &Instruction) -> bool {
        use lathe_isa::{Encoding as E, MemoryClass as M};
        match self {
            InstClass::Salu => matches!(
                inst.encoding(),
                E::Sop1 | E::Sop2 | E::Sopc | E::Sopk | E::Sopp
            ),
            InstClass::Valu => inst.info().name.starts_with("v_"),
            InstClass::Smem => inst.memory_class() == M::Scalar,
            InstClass::Vmem => matches!(
                inst.memory_class(),
                M::Global | M::Flat | M::Scratch | M::Buffer | M::Image
            ),
            InstClass::Lds => matches!(inst.memory_class(), M::Lds | M::Gds),
            InstClass::Memory => inst.memory_class() != M::None,
            InstClass::Branch => inst.is_branch() || inst.is_call() || inst.is_indirect_branch(),
            InstClass::ExecWrite => writes_exec(inst),
        }
    }
}

/// True if `inst` writes EXEC.
pub fn writes_exec(inst: &Instruction) -> bool {
    let mut w = false;
    inst.for_each_reg(|a| {
        if a.write && a.reg.file == RegFile::Scalar && a.reg.overlaps(&RegRange::EXEC) {
            w = true;
        }
    });
    w
}

/// Which instructions a request applies to.
#[derive(Debug, Clone, Default)]
pub struct Selector {
    /// Kernels whose name matches (all when `None`).
    pub kernel: Option<Regex>,
    /// Instruction class.
    pub class: Option<InstClass>,
    /// Opcode name regex (e.g. `^global_load`).
    pub opcode: Option<Regex>,
    /// Original address range `[lo, hi)`.
    pub range: Option<(u64, u64)>,
    /// Original addresses of instructions never selected (block-entry
    /// requests: of blocks' first instructions).
    pub skip: Option<Arc<std::collections::BTreeSet<u64>>>,
}

impl Selector {
    /// `exec_write`: whether `inst` writes EXEC (known from liveness).
    fn inst_matches(&self, addr: u64, inst: &Instruction, exec_write: bool) -> bool {
        self.class.is_none_or(|c| match c {
            InstClass::ExecWrite => exec_write,
            c => c.matches(inst),
        }) && self
            .opcode
            .as_ref()
            .is_none_or(|r| r.is_match(inst.info().name))
            && self.range.is_none_or(|(lo, hi)| lo <= addr && addr < hi)
            && self.skip.as_ref().is_none_or(|s| !s.contains(&addr))
    }
}

/// Registers reserved for probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Reserved {
    /// SGPR pair holding the probe-data buffer address.
    pub ptr: u16,
    /// SGPR pair for saving EXEC.
    pub save: u16,
    /// SGPR pair for temporaries (and long jumps).
    pub tmp: u16,
    /// A second SGPR pair for temporaries.
    pub t2: u16,
    /// SGPR holding a saved SCC.
    pub scc: u16,
    /// VGPR pair holding 1 and 0 in lane 0 (set at kernel entry).
    pub vdata: u16,
    /// VGPR pair for counts (lane 0: high half 0, set at kernel entry).
    pub vcnt: u16,
    /// VGPR holding 0 in lane 0 (set at kernel entry): the address offset.
    pub voff: u16,
    /// VGPR for temporaries.
    pub vtmp: u16,
    /// Four VGPRs (even-aligned) for temporaries.
    pub vaux: u16,
    /// Lane mode (no SGPRs free in the code object): a VGPR whose lanes 0
    /// and 1 hold the probe-data address and whose other lanes hold the
    /// SGPRs a site borrows; the SGPR fields are then chosen per site.
    pub vstate: Option<u16>,
}

impl Reserved {
    /// One past the last reserved SGPR (0 in lane mode).
    pub fn sgpr_end(&self) -> u16 {
        if self.vstate.is_some() {
            0
        } else {
            self.scc + 1
        }
    }
    /// One past the last reserved VGPR.
    pub fn vgpr_end(&self) -> u16 {
        [
            self.vdata + 2,
            self.vcnt + 2,
            self.voff + 1,
            self.vtmp + 1,
            self.vaux + 4,
            self.vstate.map_or(0, |v| v + 1),
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
    }
}

/// What a probe knows about its site.
#[derive(Debug, Clone, Copy)]
pub struct ProbeCx<'a> {
    /// ISA target.
    pub target: Target,
    /// Registers reserved for probes.
    pub regs: &'a Reserved,
    /// Byte offset of this site's slot in the probe-data buffer.
    pub slot: u32,
    /// Registers live at the site (before the probe).
    pub live: RegSet,
    /// The kernel's kernarg-pointer SGPR pair, at kernel entry.
    pub kernarg_sgpr: Option<u16>,
    /// The kernel's kernarg segment size (descriptor).
    pub kernarg_size: u32,
    /// Function kind.
    pub kind: FunctionKind,
    /// Byte offset of the request's shared region ([`Probe::shared_bytes`]).
    pub shared: u32,
    /// Site number (index in [`Instrumented::sites`]).
    pub site: u32,
    /// The instruction the site is attached to.
    pub inst: Instruction,
    /// Scratch for the probe, when its request asked for some
    /// ([`Probe::scratch_bytes`]).
    pub scratch: Option<ScratchCx>,
    /// Original address of [`ProbeCx::inst`].
    pub pc: u64,
    /// Index of the site's function in the lifted program.
    pub function_index: usize,
    /// Index of [`ProbeCx::inst`] in its function.
    pub inst_index: usize,
    /// [`ProbeCx::scratch`]'s area is relative to the stack pointer `s32`
    /// (per lane, architected flat scratch) rather than to the wave's
    /// scratch base: the kernel's stack is dynamic and the probe said it
    /// can work that way ([`Probe::scratch_at_stack_pointer`]).
    pub scratch_sp: bool,
}

/// A reference from probe code to a symbol of another code object: the
/// `s_add_u32`/`s_addc_u32` pair at `add`/`add + 1` (indices into the
/// probe's instructions, both with a literal) adds `symbol - (pc after the
/// s_getpc_b64 at getpc)` to the `s_getpc_b64` result. The rewriter writes
/// `R_AMDGPU_REL32_LO`/`_HI` relocations against `symbol` (an undefined
/// symbol the loader resolves across code objects, [`crate::elfout`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymRef {
    /// Index of the `s_getpc_b64`.
    pub getpc: usize,
    /// Index of the `s_add_u32` (the `s_addc_u32` follows it).
    pub add: usize,
    /// Symbol name.
    pub symbol: String,
}

/// A probe: machine code for one site.
pub trait Probe: std::fmt::Debug + Send + Sync {
    /// Bytes of probe data each site needs.
    fn slot_bytes(&self) -> u32;
    /// Bytes of probe data shared by all sites of the request (a ring
    /// buffer, say), allocated once.
    fn shared_bytes(&self) -> u32 {
        0
    }
    /// Bytes of scratch (per lane) the probe needs at its sites; the
    /// rewriter enables and grows the private segment of every kernel the
    /// request covers ([`crate::scratch`]) and passes the area in
    /// [`ProbeCx::scratch`].
    fn scratch_bytes(&self) -> u32 {
        0
    }
    /// Appends the probe's instructions.
    fn emit(&self, cx: &ProbeCx<'_>, out: &mut Vec<Instruction>) -> Result<(), BuildError>;
    /// Appends the probe's instructions and the symbol references among
    /// them ([`SymRef`], indices relative to `out`'s length on entry).
    /// The rewriter calls this one; by default it is [`Probe::emit`].
    fn emit_linked(
        &self,
        cx: &ProbeCx<'_>,
        out: &mut Vec<Instruction>,
        syms: &mut Vec<SymRef>,
    ) -> Result<(), BuildError> {
        let _ = syms;
        self.emit(cx, out)
    }
    /// The probe can take its scratch above the stack pointer `s32`
    /// (relative to it, [`ProbeCx::scratch_sp`]), as a callee would: kernels
    /// whose stack is dynamic then get probes too, on processors with
    /// architected flat scratch, where `s32` is set.
    fn scratch_at_stack_pointer(&self) -> bool {
        false
    }
    /// The probe calls code outside the code object (a hook): its
    /// component's reserved registers are then taken from the registers
    /// the AMDGPU calling convention makes callee-saved.
    fn calls_external(&self) -> bool {
        false
    }
}

/// Probe code at one place: instructions and their symbol references.
#[derive(Debug, Clone, Default)]
struct ProbeCode {
    insts: Vec<Instruction>,
    syms: Vec<SymRef>,
}

impl ProbeCode {
    fn push(&mut self, i: Instruction) {
        self.insts.push(i);
    }
    /// Moves the code into `items` (symbol references become
    /// [`Item::PcAdd`]s against [`AddrRef::Sym`]).
    fn drain_into(&mut self, items: &mut Vec<Item>) {
        let base = items.len();
        let mut refs: HashMap<usize, (usize, bool, Arc<str>)> = HashMap::new();
        for r in self.syms.drain(..) {
            let name: Arc<str> = r.symbol.into();
            refs.insert(r.add, (r.getpc, false, name.clone()));
            refs.insert(r.add + 1, (r.getpc, true, name));
        }
        for (k, inst) in self.insts.drain(..).enumerate() {
            match refs.remove(&k) {
                Some((g, hi, name)) => items.push(Item::PcAdd {
                    inst,
                    getpc: base + g,
                    target: AddrRef::Sym(name),
                    hi,
                }),
                None => items.push(Item::Fixed(inst)),
            }
        }
    }
}

/// One instrumentation request.
#[derive(Debug, Clone)]
pub struct Request {
    /// What to instrument.
    pub select: Selector,
    /// Where.
    pub at: Where,
    /// The probe.
    pub probe: Arc<dyn Probe>,
}

/// An instrumented site.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Site {
    /// Index.
    pub id: usize,
    /// Request index.
    pub request: usize,
    /// Function name.
    pub function: String,
    /// Function index in the lifted program.
    pub function_index: usize,
    /// Instruction index in the function.
    pub inst_index: usize,
    /// Original address of the instruction the site is attached to.
    pub pc: u64,
    /// That instruction as printed.
    pub inst: String,
    /// Where.
    pub at: Where,
    /// Byte offset of the site's slot in the probe-data buffer.
    pub slot: u32,
    /// Whether SCC was live at the site.
    pub scc_live: bool,
    /// Whether VCC was live at the site.
    pub vcc_live: bool,
}

/// The result of instrumenting.
#[derive(Debug, Clone)]
pub struct Instrumented {
    /// The new code object.
    pub code_object: Vec<u8>,
    /// Sites, in order.
    pub sites: Vec<Site>,
    /// Bytes of probe data a dispatch needs.
    pub data_size: u64,
    /// Reserved registers.
    pub regs: Reserved,
    /// New address of each function.
    pub function_addrs: Vec<u64>,
    /// Long jumps created by relaxation.
    pub relaxed_branches: usize,
    /// (new address, original address) of every original instruction.
    pub addr_map: Vec<(u64, u64)>,
    /// Kernels left without probes, and why (no registers to spare in
    /// their call-graph component, or no scratch for them).
    pub skipped: Vec<(String, String)>,
    /// Kernels given probe scratch.
    pub scratch: Vec<KernelScratch>,
    /// Sites whose probe registers were spilled to scratch (VGPRs stored
    /// and reloaded around the probe).
    pub spilled_sites: usize,
    /// Relocations against symbols of other code objects (hooks), as
    /// written to [`elfout::RELA_SECTION`].
    pub relocs: Vec<elfout::Reloc>,
}

/// Probe scratch given to one kernel ([`crate::scratch`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KernelScratch {
    /// Kernel.
    pub kernel: String,
    /// The kernel's own `private_segment_fixed_size`.
    pub old_size: u32,
    /// Per-lane byte offset of the probe area.
    pub area: u32,
    /// New `private_segment_fixed_size`.
    pub new_size: u32,
    /// Scratch was off in the original kernel.
    pub enabled: bool,
    /// Initial SGPRs moved back by the entry preamble.
    pub moved_sgprs: usize,
}

/// Component index of every function: functions linked by calls share
/// one; an unresolved call puts everything in one component.
fn components(p: &Program) -> Vec<usize> {
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

// ---------------------------------------------------------------- helpers

pub(crate) fn sreg(n: u16, c: u8) -> Operand {
    Operand::Reg(RegRange::sgpr(n, c))
}
pub(crate) fn vreg(n: u16, c: u8) -> Operand {
    Operand::Reg(RegRange::vgpr(n, c))
}
pub(crate) fn konst(v: u32) -> Operand {
    if v <= 64 {
        Operand::Int(v as i8)
    } else {
        Operand::Literal(v)
    }
}

/// `op` with printed operands `ops` and default modifiers.
pub fn build(t: Target, op: Opcode, ops: &[Operand]) -> Result<Instruction, BuildError> {
    build_m(t, op, &Modifiers::default(), ops)
}

/// `op` with printed operands `ops` and modifiers `m`.
pub fn build_m(
    t: Target,
    op: Opcode,
    m: &Modifiers,
    ops: &[Operand],
) -> Result<Instruction, BuildError> {
    Instruction::build(t, op)
        .modifiers(m)
        .operands(ops)?
        .finish()
}

/// An SMEM load `op sdata, s[sbase:sbase+1], off` with an immediate
/// offset (GFX9 encoding: the builder's operand list has no immediate
/// form for the offset, so the words are assembled here and checked by
/// decoding).
pub fn smem_load(
    t: Target,
    op: Opcode,
    sdata: u16,
    sbase: u16,
    off: u32,
) -> Result<Instruction, BuildError> {
    let code = u32::from(op.info().code);
    let w0 =
        0xc000_0000 | (code << 18) | (1 << 17) | (u32::from(sdata) << 6) | (u32::from(sbase) >> 1);
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&w0.to_le_bytes());
    b[4..].copy_from_slice(&(off & 0xf_ffff).to_le_bytes());
    let i = lathe_isa::decode(t, &b);
    if i.opcode() != op || i.len() != 8 {
        return Err(BuildError::Invalid {
            opcode: op,
            words: vec![w0, off],
        });
    }
    Ok(i)
}

/// `s_waitcnt` with the given counts (max = no wait on that counter).
pub fn waitcnt(t: Target, vm: u32, lgkm: u32) -> Result<Instruction, BuildError> {
    let imm = lathe_isa::imm::waitcnt_encode(vm, 7, lgkm);
    build(t, Opcode::S_WAITCNT, &[Operand::Imm(i64::from(imm))])
}

/// `s_mov_b64 s[save], exec; s_mov_b64 exec, 1`.
pub fn exec_one(t: Target, r: &Reserved, out: &mut Vec<Instruction>) -> Result<(), BuildError> {
    out.push(build(
        t,
        Opcode::S_MOV_B64,
        &[sreg(r.save, 2), Operand::Reg(RegRange::EXEC)],
    )?);
    out.push(build(
        t,
        Opcode::S_MOV_B64,
        &[Operand::Reg(RegRange::EXEC), Operand::Int(1)],
    )?);
    Ok(())
}

/// `s_mov_b64 exec, s[save]`.
pub fn exec_restore(t: Target, r: &Reserved, out: &mut Vec<Instruction>) -> Result<(), BuildError> {
    out.push(build(
        t,
        Opcode::S_MOV_B64,
        &[Operand::Reg(RegRange::EXEC), sreg(r.save, 2)],
    )?);
    Ok(())
}

/// `global_atomic_add_x2 v[addr], v[data:data+1], s[ptr:ptr+1] offset:off`.
pub fn atomic_add_x2(
    t: Target,
    r: &Reserved,
    addr: u16,
    data: u16,
    off: i32,
) -> Result<Instruction, BuildError> {
    let mut m = Modifiers::default();
    m.offset = off;
    build_m(
        t,
        Opcode::GLOBAL_ATOMIC_ADD_X2,
        &m,
        &[vreg(addr, 1), vreg(data, 2), sreg(r.ptr, 2)],
    )
}

/// The VGPR holding a slot's offset and the immediate: the zero VGPR and
/// the slot as immediate while it fits GFX9's 13-bit signed offset,
/// else `v_mov_b32 vtmp, slot` and 0.
fn slot_address(
    t: Target,
    r: &Reserved,
    slot: u32,
    span: u32,
    out: &mut Vec<Instruction>,
) -> Result<(u16, i32), BuildError> {
    if slot + span <= 4095 {
        Ok((r.voff, slot as i32))
    } else {
        out.push(build(
            t,
            Opcode::V_MOV_B32_E32,
            &[vreg(r.vtmp, 1), konst(slot)],
        )?);
        Ok((r.vtmp, 0))
    }
}

/// Sets the reserved VGPRs' lane-0 constants (kernel entry): `vdata` =
/// {1, 0}, `vcnt` high = 0, `voff` = 0. Every lane active at kernel entry
/// gets them (lane 0 always is: a wave starts with its first lanes), so
/// EXEC is left alone; `save` is not needed (kept for callers).
pub fn preset_vgprs(
    t: Target,
    r: &Reserved,
    save: u16,
    out: &mut Vec<Instruction>,
) -> Result<(), BuildError> {
    let _ = save;
    for (v, k) in [(r.vdata, 1), (r.vdata + 1, 0), (r.vcnt + 1, 0), (r.voff, 0)] {
        out.push(build(
            t,
            Opcode::V_MOV_B32_E32,
            &[vreg(v, 1), Operand::Int(k)],
        )?);
    }
    Ok(())
}

// ------------------------------------------------------------ built-in probes

/// Adds 1 to a 64-bit wave counter at the slot and, with `lanes`, the
/// number of active lanes to a second counter 8 bytes later. One lane does
/// it (EXEC saved, set to lane 0, restored), so inactive waves (EXEC = 0)
/// count too. Touches no SCC/VCC/M0.
#[derive(Debug, Clone, Copy)]
pub struct CounterProbe {
    /// Also count active lanes.
    pub lanes: bool,
}

impl Probe for CounterProbe {
    fn slot_bytes(&self) -> u32 {
        if self.lanes {
            16
        } else {
            8
        }
    }
    fn emit(&self, cx: &ProbeCx<'_>, out: &mut Vec<Instruction>) -> Result<(), BuildError> {
        let (t, r) = (cx.target, cx.regs);
        exec_one(t, r, out)?;
        let (va, off) = slot_address(t, r, cx.slot, 8, out)?;
        out.push(atomic_add_x2(t, r, va, r.vdata, off)?);
        if self.lanes {
            out.push(build(
                t,
                Opcode::V_BCNT_U32_B32,
                &[vreg(r.vcnt, 1), sreg(r.save, 1), Operand::Int(0)],
            )?);
            out.push(build(
                t,
                Opcode::V_BCNT_U32_B32,
                &[vreg(r.vcnt, 1), sreg(r.save + 1, 1), vreg(r.vcnt, 1)],
            )?);
            out.push(atomic_add_x2(t, r, va, r.vcnt, off + 8)?);
        }
        exec_restore(t, r, out)
    }
}

/// Copies the kernel's kernarg segment (`bytes` bytes) into the slot at
/// kernel entry, as the kernel sees it (hidden arguments included).
#[derive(Debug, Clone, Copy)]
pub struct KernargProbe {
    /// Bytes to copy (a multiple of 4).
    pub bytes: u32,
}

impl Probe for KernargProbe {
    fn slot_bytes(&self) -> u32 {
        self.bytes.next_multiple_of(4)
    }
    fn emit(&self, cx: &ProbeCx<'_>, out: &mut Vec<Instruction>) -> Result<(), BuildError> {
        let Some(ka) = cx.kernarg_sgpr else {
            return Ok(());
        };
        let (t, r) = (cx.target, cx.regs);
        exec_one(t, r, out)?;
        for k in 0..self.bytes.min(cx.kernarg_size).div_ceil(4) {
            out.push(smem_load(t, Opcode::S_LOAD_DWORD, r.tmp, ka, 4 * k)?);
            out.push(waitcnt(t, 63, 0)?);
            out.push(build(
                t,
                Opcode::V_MOV_B32_E32,
                &[vreg(r.vtmp, 1), sreg(r.tmp, 1)],
            )?);
            out.push(build(
                t,
                Opcode::V_MOV_B32_E32,
                &[vreg(r.vcnt, 1), konst(cx.slot + 4 * k)],
            )?);
            out.push(build(
                t,
                Opcode::GLOBAL_STORE_DWORD,
                &[vreg(r.vcnt, 1), vreg(r.vtmp, 1), sreg(r.ptr, 2)],
            )?);
        }
        exec_restore(t, r, out)
    }
}

// ------------------------------------------------------------------ layout

#[derive(Debug, Clone)]
enum AddrRef {
    /// An original address (mapped to its new copy if it is code);
    /// `u64::MAX` names the probe-data variable.
    Old(u64),
    /// A symbol of another code object (relocated by the loader).
    Sym(Arc<str>),
}

#[derive(Debug, Clone)]
enum Item {
    Fixed(Instruction),
    /// A PC-relative branch to an item; `long` once relaxed.
    Branch {
        inst: Instruction,
        target: usize,
        long: bool,
        orig: u64,
        /// SGPR pair and single for a long jump, if any are free.
        scratch: Option<(u16, u16)>,
    },
    /// The literal of a recognised `s_add_u32`/`s_addc_u32` after the
    /// `s_getpc_b64` at item `getpc`: `target - (getpc + 4)`.
    PcAdd {
        inst: Instruction,
        getpc: usize,
        target: AddrRef,
        hi: bool,
    },
    /// `s_call_b64` to function `callee`; `long` once relaxed to
    /// `s_getpc_b64`/add/`s_swappc_b64` (SCC saved in `scratch`).
    Call {
        inst: Instruction,
        callee: usize,
        long: bool,
        orig: u64,
        scratch: Option<u16>,
    },
    /// Correction after a bare `s_getpc_b64` at item `getpc` that was at
    /// `old` in the original code.
    PcFix {
        reg: u16,
        getpc: usize,
        old: u64,
        /// SGPR saving SCC, if one is free.
        scratch: Option<u16>,
    },
}

/// Bytes of a long jump or call: `s_waitcnt lgkmcnt(0)` (its SGPRs may be
/// dead ones a scalar load is still due to write), `s_getpc_b64`, SCC save,
/// add, add with carry, SCC restore, `s_setpc_b64`/`s_swappc_b64`.
const LONG_JUMP: u64 = 36;

impl Item {
    fn size(&self) -> u64 {
        match self {
            Item::Fixed(i) => i.len() as u64,
            Item::Branch { long: false, .. } => 4,
            Item::Branch {
                inst, long: true, ..
            } => {
                if inst.is_cond_branch() {
                    8 + LONG_JUMP
                } else {
                    LONG_JUMP
                }
            }
            Item::PcAdd { .. } => 8,
            Item::PcFix { .. } => 4 + 4 + 8 + 8 + 4,
            Item::Call { long: false, .. } => 4,
            Item::Call { long: true, .. } => LONG_JUMP,
        }
    }
}

struct FnCode {
    items: Vec<Item>,
    /// Item of each original instruction.
    inst_item: Vec<usize>,
    /// Item index where the group of original instruction `i` starts.
    label: Vec<usize>,
    /// Item address (relative to the function's new start), recomputed.
    offs: Vec<u64>,
    size: u64,
}

impl FnCode {
    fn relayout(&mut self) {
        self.offs.clear();
        let mut o = 0;
        for it in &self.items {
            self.offs.push(o);
            o += it.size();
        }
        self.offs.push(o);
        self.size = o;
    }
}

fn encode_err<'a>(
    function: &'a str,
    addr: u64,
    what: &str,
) -> impl FnOnce(BuildError) -> Error + 'a {
    let what = what.to_string();
    move |source| Error::Encode {
        function: function.to_string(),
        addr,
        what,
        source,
    }
}

/// Registers of one call-graph component.
#[derive(Debug, Clone, Copy)]
struct CompRegs {
    /// Reserved registers (SGPR fields meaningless in lane mode, VGPR
    /// fields meaningless with `vspill`).
    regs: Reserved,
    /// SGPRs are borrowed per site (lane mode, or full mode without a
    /// state VGPR).
    lanes: bool,
    /// Probe VGPRs are chosen per site: dead ones, else spilled to scratch.
    vspill: bool,
    /// The component's kernels get probe scratch.
    scratch: bool,
    /// SGPR mode: quad holding the scratch buffer descriptor (gfx90a).
    rsrc: Option<u16>,
    /// SGPR mode with spilling: pair saving EXEC around spills.
    spill_exec: u16,
    /// SGPR mode with spilling: SGPR holding the area's offset.
    spill_base: u16,
    /// One past the last reserved SGPR (0 in lane mode).
    sgpr_end: u16,
    /// Highest VGPR a site may pick (`vspill`).
    vmax: u16,
}

impl CompRegs {
    /// The lane-mode state VGPR (`None` in SGPR mode and in full mode,
    /// where each site loads it from scratch).
    fn vstate(&self) -> Option<u16> {
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
fn reserve(used: &RegSet, probe_scratch: bool, architected: bool, external: bool) -> CompRegs {
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
fn pick_dead(live: &RegSet, taken: &mut RegSet, count: u16) -> Option<u16> {
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
fn site_regs(
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
fn pick_vgprs(
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
fn pending_scalar_loads(f: &crate::Function, effs: &[crate::live::Effects]) -> Vec<RegSet> {
    let n = f.insts.len();
    let mut before = vec![RegSet::default(); n];
    let xfer = |i: usize, st: RegSet| -> RegSet {
        let inst = &f.insts[i].inst;
        if inst.opcode() == Opcode::S_WAITCNT {
            let (_, _, lgkm) = lathe_isa::imm::waitcnt_fields(inst.words()[0] & 0xffff);
            if lgkm == 0 {
                return RegSet::default();
            }
        } else if inst.memory_class() == lathe_isa::MemoryClass::Scalar {
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
fn s32_set_before(f: &crate::Function, effs: &[crate::live::Effects]) -> Vec<bool> {
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
fn pending_after_mask(inst: &Instruction) -> u128 {
    if inst.memory_class() == lathe_isa::MemoryClass::Scalar {
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
fn gpr_idx_modes(f: &crate::Function) -> (Vec<Option<i64>>, Vec<Option<i64>>) {
    let n = f.insts.len();
    let (mut before, mut after) = (vec![None; n], vec![None; n]);
    for blk in &f.blocks {
        let mut m = None;
        for i in blk.start..blk.end {
            before[i] = m;
            let inst = &f.insts[i].inst;
            if inst.opcode() == Opcode::S_SET_GPR_IDX_ON {
                m = Some(i64::from(inst.words()[0] >> 8 & 0xf));
            } else if inst.opcode() == Opcode::S_SET_GPR_IDX_OFF {
                m = None;
            }
            after[i] = m;
        }
    }
    (before, after)
}

fn writelane(t: Target, v: u16, s: u16, lane: u16) -> Result<Instruction, BuildError> {
    build(
        t,
        Opcode::V_WRITELANE_B32,
        &[vreg(v, 1), sreg(s, 1), konst(u32::from(lane))],
    )
}

/// `v_readlane_b32 s, v, lane`.
fn readlane(t: Target, s: u16, v: u16, lane: u16) -> Result<Instruction, BuildError> {
    build(
        t,
        Opcode::V_READLANE_B32,
        &[sreg(s, 1), vreg(v, 1), konst(u32::from(lane))],
    )
}

/// `s_nop n`.
fn nop(t: Target, n: u16) -> Result<Instruction, BuildError> {
    build(t, Opcode::S_NOP, &[Operand::Imm(i64::from(n))])
}

/// New descriptor bytes with register counts covering `regs`, and the
/// kernel's new metadata `.vgpr_count` (on GFX90A-class processors the
/// unified count: `ACCUM_OFFSET` + AGPRs when AGPRs are used).
/// `md_vgpr` is the kernel's old metadata `.vgpr_count`.
fn patch_descriptor(
    kd: &[u8; 64],
    d: &KernelDescriptor,
    arch: KdArch,
    regs: &Reserved,
    sgpr_end: u16,
    md_vgpr: Option<u32>,
) -> ([u8; 64], u32) {
    let mut out = *kd;
    let mut rsrc1 = d.compute_pgm_rsrc1;
    let mut rsrc3 = d.compute_pgm_rsrc3;
    let granule = d.vgpr_encoding_granule(arch);
    let old_total = md_vgpr.unwrap_or_else(|| d.allocated_vgprs(arch));
    let need_arch = u32::from(regs.vgpr_end());
    let new_total = match d.rsrc3(arch) {
        Rsrc3::Gfx90a { accum_offset, .. } => {
            let old_accum = (accum_offset + 1) * 4;
            let agprs = old_total.saturating_sub(old_accum);
            let old_arch = if agprs > 0 { old_accum } else { old_total };
            let arch_vgprs = old_arch.max(need_arch);
            let new_accum = arch_vgprs.next_multiple_of(4).max(4);
            rsrc3 = (rsrc3 & !0x3f) | ((new_accum / 4 - 1) & 0x3f);
            if agprs > 0 {
                new_accum + agprs
            } else {
                arch_vgprs
            }
        }
        _ => old_total.max(need_arch),
    };
    let vg = new_total.div_ceil(granule).max(1) - 1;
    rsrc1 = (rsrc1 & !0x3f) | (vg & 0x3f);
    if let Some(old_s) = d.allocated_sgprs(arch) {
        let need = u32::from(sgpr_end) + 6;
        let s = old_s.max(need);
        let sg = s.div_ceil(8).max(1) - 1;
        rsrc1 = (rsrc1 & !(0xf << 6)) | ((sg & 0xf) << 6);
    }
    out[44..48].copy_from_slice(&rsrc3.to_le_bytes());
    out[48..52].copy_from_slice(&rsrc1.to_le_bytes());
    (out, new_total)
}

/// Instruments `bytes` (an AMDGPU code object) with `requests`.
pub fn instrument(bytes: &[u8], requests: &[Request]) -> Result<Instrumented, Error> {
    let co = CodeObject::parse(bytes)?;
    let p = Program::lift(&co)?;
    let live = Liveness::compute(&p);
    instrument_lifted(&co, &p, &live, requests)
}

/// [`instrument`] on an already lifted program.
pub fn instrument_lifted(
    co: &CodeObject<'_>,
    p: &Program,
    live: &Liveness,
    requests: &[Request],
) -> Result<Instrumented, Error> {
    instrument_lifted_with(co, p, live, requests, &Options::default())
}

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

/// [`instrument_lifted`] with options.
pub fn instrument_lifted_with(
    co: &CodeObject<'_>,
    p: &Program,
    live: &Liveness,
    requests: &[Request],
    opts: &Options,
) -> Result<Instrumented, Error> {
    let tid = co.target().ok_or(Error::NoTarget)?;
    let arch = KdArch::for_processor(tid.processor);
    let t = p.target;
    // Registers are reserved per component of the call graph (functions
    // that call each other share their reservation); a component with no
    // registers to spare is copied without probes and reported.
    let comp = components(p);
    let ncomp = comp.iter().copied().max().map_or(0, |m| m + 1);
    // What each instruction reads and writes (from the liveness, else
    // computed).
    let effs: Vec<std::borrow::Cow<'_, [crate::live::Effects]>> = p
        .functions
        .iter()
        .enumerate()
        .map(|(fi, f)| match live.functions.get(fi) {
            Some(l) if l.effects.len() == f.insts.len() => {
                std::borrow::Cow::Borrowed(&l.effects[..])
            }
            _ => f
                .insts
                .iter()
                .map(|x| crate::live::effects(&x.inst))
                .collect(),
        })
        .collect();
    let eff_of = |fi: usize, i: usize| -> &crate::live::Effects { &effs[fi][i] };
    let mut comp_used = vec![RegSet::default(); ncomp];
    for (fi, f) in p.functions.iter().enumerate() {
        let u = &mut comp_used[comp[fi]];
        for i in 0..f.insts.len() {
            let e = eff_of(fi, i);
            *u = u.union(&e.uses).union(&e.defs);
        }
        u.add(RegRange::vgpr(0, 3));
        if opts.force_lane_mode {
            u.add(RegRange::sgpr(0, 102));
        }
    }
    let syms = co.symbols()?;
    let mut kd_of: Vec<(usize, KernelDescriptor)> = Vec::new();
    for k in syms.kernels() {
        if let (Ok(d), Some(fi)) = (&k.descriptor, p.function(k.name)) {
            for s in d.initial_sgprs(arch) {
                comp_used[comp[fi]].add(RegRange::sgpr(s.first as u16, s.count as u8));
            }
            kd_of.push((fi, *d));
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
                for g in crate::cfg::reachable(p, fi) {
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
    let mut comp_external = vec![false; ncomp];
    for (fi, f) in p.functions.iter().enumerate() {
        if f.calls.iter().any(|c| c.callee.is_none()) {
            comp_external[comp[fi]] = true;
        }
    }
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
                && crate::cfg::reachable(p, fi).iter().any(|&g| covered_any[g])
        })
        .collect();
    let mut comp_area = vec![0u32; ncomp];
    for (fi, d) in &kd_of {
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
    for (fi, d) in &kd_of {
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
    for (fi, _) in &kd_of {
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
    // Kernarg pointer SGPR per kernel.
    let mut kernarg_sgpr: HashMap<&str, u16> = HashMap::new();
    let mut kernarg_size: HashMap<&str, u32> = HashMap::new();
    let mut descriptors = Vec::new();
    for k in syms.kernels() {
        let (Ok(d), Some(ds)) = (&k.descriptor, &k.descriptor_symbol) else {
            continue;
        };
        if let Some(s) = d
            .initial_sgprs(arch)
            .iter()
            .find(|s| s.role == SgprRole::KernargSegmentPtr)
        {
            kernarg_sgpr.insert(k.name, s.first as u16);
        }
        kernarg_size.insert(k.name, d.kernarg_size);
        descriptors.push((k.name, ds.value, *d));
    }
    let any_sites = !requests.is_empty();
    // Build items.
    let mut sites: Vec<Site> = Vec::new();
    let mut slot: u32 = 0;
    let mut shared_off = vec![0u32; requests.len()];
    for (ri, r) in requests.iter().enumerate() {
        shared_off[ri] = slot;
        slot += r.probe.shared_bytes().next_multiple_of(8);
    }
    let mut code: Vec<FnCode> = Vec::with_capacity(p.functions.len());
    let spilled = std::cell::Cell::new(0usize);
    for (fi, f) in p.functions.iter().enumerate() {
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
            let post =
                at == Where::After || at == Where::BlockExit && !f.insts[i].inst.is_terminator();
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
                    e = pick_dead(&live_at, &mut staken, 2)
                        .ok_or_else(|| no_regs_err("SGPR pair"))?;
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
                out.push(
                    build(
                        t,
                        Opcode::S_MOV_B64,
                        &[sreg(e, 2), Operand::Reg(RegRange::EXEC)],
                    )
                    .map_err(enc)?,
                );
                out.push(
                    build(
                        t,
                        Opcode::S_MOV_B64,
                        &[Operand::Reg(RegRange::EXEC), Operand::Int(-1)],
                    )
                    .map_err(enc)?,
                );
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
                let (sr, q, sv, in_flight) =
                    site_regs(&regs, &live_at, &in_flight, &staken, want_rsrc);
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
                        build(t, Opcode::V_MOV_B32_E32, &[vreg(v, 1), Operand::Int(k)])
                            .map_err(enc)?,
                    );
                }
                out.push(
                    build(
                        t,
                        Opcode::S_MOV_B64,
                        &[Operand::Reg(RegRange::EXEC), sreg(e, 2)],
                    )
                    .map_err(enc)?,
                );
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
                out.push(
                    build(
                        t,
                        Opcode::S_MOV_B64,
                        &[Operand::Reg(RegRange::EXEC), Operand::Int(-1)],
                    )
                    .map_err(enc)?,
                );
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
                out.push(
                    build(
                        t,
                        Opcode::S_MOV_B64,
                        &[Operand::Reg(RegRange::EXEC), sreg(e, 2)],
                    )
                    .map_err(enc)?,
                );
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
                inst: f.insts[i].inst.to_string(),
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
                Where::FunctionEntry if f.kind == FunctionKind::DeviceFunction && n > 0 => {
                    add_site(
                        &mut sites,
                        &mut slot,
                        ri,
                        0,
                        r.at,
                        &mut prologue,
                        fl.before[0],
                    )?
                }
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
                                    || x.inst.opcode() == Opcode::S_SWAPPC_B64;
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
                            Where::BeforeEndpgm if x.inst.info().name.starts_with("s_endpgm") => {
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
                            Where::FunctionReturn if last && f.exits[b] == Exit::Return => {
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
                        if sel.range.is_some_and(|(lo, hi)| {
                            !(lo <= f.insts[i0].addr && f.insts[i0].addr < hi)
                        }) || sel
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
                    let q =
                        pick_dead(&clear, &mut taken, 4).ok_or_else(|| no_entry("SGPR quad"))?;
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
                    build(t, Opcode::S_MOV_B32, &[sreg(cr.spill_base, 1), konst(area)])
                        .map_err(pe)?,
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
                let e =
                    pick_dead(&entry_live, &mut taken, 2).ok_or_else(|| no_entry("SGPR pair"))?;
                let a = pick_dead(&entry_live, &mut taken, 1).ok_or_else(|| no_entry("SGPR"))?;
                for i in [
                    build(
                        t,
                        Opcode::S_MOV_B64,
                        &[sreg(e, 2), Operand::Reg(RegRange::EXEC)],
                    ),
                    build(
                        t,
                        Opcode::S_MOV_B64,
                        &[Operand::Reg(RegRange::EXEC), Operand::Int(-1)],
                    ),
                    build(t, Opcode::S_MOV_B32, &[sreg(a, 1), konst(area)]),
                    crate::scratch::store_dword(t, vs, a, 0),
                    build(
                        t,
                        Opcode::S_MOV_B64,
                        &[Operand::Reg(RegRange::EXEC), sreg(e, 2)],
                    ),
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
                if inst.opcode() == Opcode::S_CALL_B64 {
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
                    pick_dead(&fl.before[i], &mut taken, 2).zip(pick_dead(
                        &fl.before[i],
                        &mut taken,
                        1,
                    ))
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
        code.push(fc);
    }
    let regs = first_regs;
    // Global layout with relaxation.
    let mut starts = vec![0u64; code.len()];
    let mut relaxed = 0;
    let lay = loop {
        let mut o = 0u64;
        for (k, fc) in code.iter().enumerate() {
            o = o.next_multiple_of(256);
            starts[k] = o;
            o += fc.size;
        }
        let lay = elfout::layout(co, o);
        let mut changed = false;
        for (fi, fc) in code.iter_mut().enumerate() {
            let mut any = false;
            for k in 0..fc.items.len() {
                if let Item::Call {
                    callee,
                    long: false,
                    ..
                } = fc.items[k]
                {
                    let from = (starts[fi] + fc.offs[k]) as i64 + 4;
                    let d = (starts[callee] as i64 - from) / 4;
                    if !(i64::from(i16::MIN)..=i64::from(i16::MAX)).contains(&d) {
                        if let Item::Call { long, .. } = &mut fc.items[k] {
                            *long = true;
                        }
                        any = true;
                        relaxed += 1;
                    }
                    continue;
                }
                if let Item::Branch { target, long, .. } = fc.items[k] {
                    if long {
                        continue;
                    }
                    let from = fc.offs[k] as i64 + 4;
                    let to = fc.offs[target] as i64;
                    let d = (to - from) / 4;
                    if !(i64::from(i16::MIN)..=i64::from(i16::MAX)).contains(&d) {
                        if let Item::Branch { long, .. } = &mut fc.items[k] {
                            *long = true;
                        }
                        any = true;
                        relaxed += 1;
                    }
                }
            }
            if any {
                fc.relayout();
                changed = true;
            }
        }
        if !changed {
            break lay;
        }
    };
    let NewLayout {
        code_addr,
        data_addr,
    } = lay;
    let fn_new: Vec<u64> = starts.iter().map(|s| code_addr + s).collect();
    // Maps an original address to its new location.
    let map_old = |a: u64| -> u64 {
        if a == u64::MAX {
            return data_addr;
        }
        if let Some(fi) = p.function_at(a) {
            return fn_new[fi];
        }
        if let Some(fi) = p.function_containing(a) {
            if let Some(ii) = p.functions[fi].index_of(a) {
                let fc = &code[fi];
                return fn_new[fi] + fc.offs[fc.label[ii]];
            }
        }
        a
    };
    // Emit.
    let mut out: Vec<u8> = Vec::new();
    let mut relocs: Vec<elfout::Reloc> = Vec::new();
    for (fi, fc) in code.iter().enumerate() {
        let f = &p.functions[fi];
        let base = fn_new[fi];
        while (out.len() as u64) < starts[fi] {
            // s_nop 0 padding between functions, as LLVM pads.
            out.extend_from_slice(&0xbf80_0000u32.to_le_bytes());
        }
        for (k, it) in fc.items.iter().enumerate() {
            let at = base + fc.offs[k];
            let enc = |e| encode_err(&f.name, at, e);
            match it {
                Item::Fixed(i) => i.encode_into(&mut out),
                Item::Branch {
                    inst,
                    target,
                    long,
                    orig,
                    scratch,
                } => {
                    let to = base + fc.offs[*target];
                    if !long {
                        let b =
                            inst.with_branch_target(at, to)
                                .ok_or_else(|| Error::Unsupported {
                                    function: f.name.clone(),
                                    addr: *orig,
                                    why: "branch re-targeting failed".into(),
                                })?;
                        b.encode_into(&mut out);
                    } else {
                        let mut at2 = at;
                        if inst.is_cond_branch() {
                            // s_cbranch_X +1 (to the long jump); s_branch over it.
                            let c = inst.with_simm16(1).ok_or_else(|| Error::Unsupported {
                                function: f.name.clone(),
                                addr: at,
                                why: "cannot relax conditional branch".into(),
                            })?;
                            c.encode_into(&mut out);
                            build(
                                t,
                                Opcode::S_BRANCH,
                                &[Operand::Branch((LONG_JUMP / 4) as i16)],
                            )
                            .map_err(enc("long jump"))?
                            .encode_into(&mut out);
                            at2 += 8;
                        }
                        let (tmp, scc) = scratch.ok_or_else(|| Error::NoRegisters {
                            function: f.name.clone(),
                            why: format!("no dead SGPRs for a long jump at {orig:#x}"),
                        })?;
                        let mut r = regs;
                        r.tmp = tmp;
                        r.scc = scc;
                        long_jump(t, &r, at2, to, &mut out).map_err(enc("long jump"))?;
                    }
                }
                Item::PcAdd {
                    inst,
                    getpc,
                    target,
                    hi,
                } => {
                    let pc = base + fc.offs[*getpc] + 4;
                    let v = match target {
                        AddrRef::Old(a) => {
                            let kk = map_old(*a).wrapping_sub(pc);
                            if *hi {
                                (kk >> 32) as u32
                            } else {
                                kk as u32
                            }
                        }
                        AddrRef::Sym(name) => {
                            // The literal follows the 4-byte opcode word;
                            // S + A - P with A = P - pc is S - pc.
                            let p_lit = at + 4;
                            relocs.push(elfout::Reloc {
                                offset: p_lit,
                                kind: if *hi {
                                    elfout::R_AMDGPU_REL32_HI
                                } else {
                                    elfout::R_AMDGPU_REL32_LO
                                },
                                symbol: name.to_string(),
                                addend: p_lit.wrapping_sub(pc) as i64,
                            });
                            0
                        }
                    };
                    replace_literal(t, inst, v)
                        .map_err(enc("address computation"))?
                        .encode_into(&mut out);
                }
                Item::Call {
                    inst,
                    callee,
                    long,
                    orig,
                    scratch,
                } => {
                    let to = fn_new[*callee];
                    if !long {
                        inst.with_branch_target(at, to)
                            .ok_or_else(|| Error::Unsupported {
                                function: f.name.clone(),
                                addr: *orig,
                                why: "call re-targeting failed".into(),
                            })?
                            .encode_into(&mut out);
                    } else {
                        let scc = scratch.ok_or_else(|| Error::NoRegisters {
                            function: f.name.clone(),
                            why: format!("no dead SGPR to save SCC at the s_call_b64 to {orig:#x}"),
                        })?;
                        let Some(Operand::Reg(d)) = inst.operands().first().map(|o| o.value) else {
                            return Err(Error::Unsupported {
                                function: f.name.clone(),
                                addr: *orig,
                                why: "s_call_b64 without a register destination".into(),
                            });
                        };
                        long_call(t, d.first, scc, at, to, &mut out).map_err(enc("long call"))?;
                    }
                }
                Item::PcFix {
                    reg,
                    getpc,
                    old,
                    scratch,
                } => {
                    let pc = base + fc.offs[*getpc] + 4;
                    let delta = (old + 4).wrapping_sub(pc);
                    let mut r = regs;
                    r.scc = scratch.ok_or_else(|| Error::NoRegisters {
                        function: f.name.clone(),
                        why: format!("no dead SGPR to save SCC at the s_getpc_b64 at {old:#x}"),
                    })?;
                    let r = &r;
                    let mut v = Vec::new();
                    // The SCC copy may go to a dead SGPR a scalar load is
                    // still due to write.
                    v.push(waitcnt(t, 63, 0).map_err(enc("getpc fix"))?);
                    v.push(
                        build(
                            t,
                            Opcode::S_CSELECT_B32,
                            &[sreg(r.scc, 1), Operand::Int(1), Operand::Int(0)],
                        )
                        .map_err(enc("getpc fix"))?,
                    );
                    v.push(
                        build(
                            t,
                            Opcode::S_ADD_U32,
                            &[sreg(*reg, 1), sreg(*reg, 1), Operand::Literal(delta as u32)],
                        )
                        .map_err(enc("getpc fix"))?,
                    );
                    v.push(
                        build(
                            t,
                            Opcode::S_ADDC_U32,
                            &[
                                sreg(*reg + 1, 1),
                                sreg(*reg + 1, 1),
                                Operand::Literal((delta >> 32) as u32),
                            ],
                        )
                        .map_err(enc("getpc fix"))?,
                    );
                    v.push(
                        build(t, Opcode::S_CMP_LG_U32, &[sreg(r.scc, 1), Operand::Int(0)])
                            .map_err(enc("getpc fix"))?,
                    );
                    for i in v {
                        i.encode_into(&mut out);
                    }
                }
            }
        }
        debug_assert_eq!(out.len() as u64, starts[fi] + fc.size);
    }
    // Descriptors.
    let mut new_counts: HashMap<String, NewCounts> = HashMap::new();
    let mut scratch: Vec<KernelScratch> = Vec::new();
    let mut patch = Patch {
        code: out,
        relocs,
        ..Default::default()
    };
    for (name, kd_addr, d) in &descriptors {
        let Some(fi) = p.function(name) else { continue };
        let raw = co
            .find_elf_symbol(&format!("{name}.kd"))
            .and_then(|s| co.descriptor_bytes(s).ok())
            .and_then(|b| <[u8; 64]>::try_from(b).ok());
        let Some(raw) = raw else { continue };
        let md_vgpr = syms
            .kernel(name)
            .and_then(|k| k.metadata.as_ref())
            .map(|m| m.vgpr_count.min(512) as u32);
        let mut nb = raw;
        if let Ok(cr) = &comp_regs[comp[fi]] {
            // Writing FLAT_SCRATCH (gfx90a, D12): on GFX9 it lives in the
            // wave's last SGPRs, so the allocation must cover every SGPR
            // in use plus the VCC/FLAT_SCRATCH/XNACK_MASK extras (the +6).
            let mut sgpr_end = cr.sgpr_end;
            if plans.contains_key(&fi) && !architected {
                let used = comp_used[comp[fi]].max_sgpr().map_or(0, |m| m + 1);
                sgpr_end = sgpr_end.max(used.min(102));
            }
            let (b, vgprs) = patch_descriptor(&raw, d, arch, &cr.regs, sgpr_end, md_vgpr);
            nb = b;
            let mut private = None;
            if let Some(pl) = plans.get(&fi) {
                pl.patch(&mut nb);
                private = Some(u64::from(pl.new_size()));
                scratch.push(KernelScratch {
                    kernel: name.to_string(),
                    old_size: pl.old_size,
                    area: pl.area,
                    new_size: pl.new_size(),
                    enabled: d.compute_pgm_rsrc2 & 1 == 0,
                    moved_sgprs: pl.moves().len(),
                });
            }
            new_counts.insert(
                format!("{name}.kd"),
                NewCounts {
                    sgprs: u64::from(sgpr_end) + 6,
                    vgprs: u64::from(vgprs),
                    private,
                },
            );
        }
        let entry = fn_new[fi] as i64 - *kd_addr as i64;
        nb[16..24].copy_from_slice(&entry.to_le_bytes());
        patch.descriptors.push((*kd_addr, nb));
    }
    let mut addr_map = Vec::new();
    for (fi, f) in p.functions.iter().enumerate() {
        patch.moves.push((f.addr, fn_new[fi], code[fi].size));
        let fc = &code[fi];
        for (i, x) in f.insts.iter().enumerate() {
            addr_map.push((fn_new[fi] + fc.offs[fc.inst_item[i]], x.addr));
        }
    }
    patch.metadata = metadata_notes(co, &new_counts)?;
    let relocs = patch.relocs.clone();
    let code_object = elfout::write(co.data(), lay, &patch)?;
    Ok(Instrumented {
        code_object,
        sites,
        data_size: u64::from(slot).max(8),
        regs,
        function_addrs: fn_new,
        relaxed_branches: relaxed,
        addr_map,
        skipped,
        scratch,
        spilled_sites: spilled.get(),
        relocs,
    })
}

/// A kernel's new metadata values.
#[derive(Debug, Clone, Copy)]
struct NewCounts {
    sgprs: u64,
    vgprs: u64,
    /// New `.private_segment_fixed_size`.
    private: Option<u64>,
}

fn long_jump(
    t: Target,
    r: &Reserved,
    at: u64,
    to: u64,
    out: &mut Vec<u8>,
) -> Result<(), BuildError> {
    // The s_getpc_b64 follows the wait.
    let k = to.wrapping_sub(at + 8);
    let seq = [
        waitcnt(t, 63, 0)?,
        build(t, Opcode::S_GETPC_B64, &[sreg(r.tmp, 2)])?,
        build(
            t,
            Opcode::S_CSELECT_B32,
            &[sreg(r.scc, 1), Operand::Int(1), Operand::Int(0)],
        )?,
        build(
            t,
            Opcode::S_ADD_U32,
            &[sreg(r.tmp, 1), sreg(r.tmp, 1), Operand::Literal(k as u32)],
        )?,
        build(
            t,
            Opcode::S_ADDC_U32,
            &[
                sreg(r.tmp + 1, 1),
                sreg(r.tmp + 1, 1),
                Operand::Literal((k >> 32) as u32),
            ],
        )?,
        build(t, Opcode::S_CMP_LG_U32, &[sreg(r.scc, 1), Operand::Int(0)])?,
        build(t, Opcode::S_SETPC_B64, &[sreg(r.tmp, 2)])?,
    ];
    let mut n = 0;
    for i in seq {
        n += i.len();
        i.encode_into(out);
    }
    debug_assert_eq!(n as u64, LONG_JUMP);
    Ok(())
}

/// `s_call_b64 s[d:d+1], to` out of range: `s_getpc_b64 s[d:d+1]`, add
/// the distance (SCC saved in `scc`), `s_swappc_b64 s[d:d+1], s[d:d+1]`
/// (the return address is the instruction after it, as after the call).
fn long_call(
    t: Target,
    d: u16,
    scc: u16,
    at: u64,
    to: u64,
    out: &mut Vec<u8>,
) -> Result<(), BuildError> {
    // The s_getpc_b64 follows the wait.
    let k = to.wrapping_sub(at + 8);
    let seq = [
        waitcnt(t, 63, 0)?,
        build(t, Opcode::S_GETPC_B64, &[sreg(d, 2)])?,
        build(
            t,
            Opcode::S_CSELECT_B32,
            &[sreg(scc, 1), Operand::Int(1), Operand::Int(0)],
        )?,
        build(
            t,
            Opcode::S_ADD_U32,
            &[sreg(d, 1), sreg(d, 1), Operand::Literal(k as u32)],
        )?,
        build(
            t,
            Opcode::S_ADDC_U32,
            &[
                sreg(d + 1, 1),
                sreg(d + 1, 1),
                Operand::Literal((k >> 32) as u32),
            ],
        )?,
        build(t, Opcode::S_CMP_LG_U32, &[sreg(scc, 1), Operand::Int(0)])?,
        build(t, Opcode::S_SWAPPC_B64, &[sreg(d, 2), sreg(d, 2)])?,
    ];
    let mut n = 0;
    for i in seq {
        n += i.len();
        i.encode_into(out);
    }
    debug_assert_eq!(n as u64, LONG_JUMP);
    Ok(())
}

/// `inst` (`s_add_u32`/`s_addc_u32` with a constant) with the constant
/// replaced by the literal `v`.
fn replace_literal(t: Target, inst: &Instruction, v: u32) -> Result<Instruction, BuildError> {
    let ops: Vec<Operand> = inst
        .operands()
        .iter()
        .enumerate()
        .map(|(k, o)| match o.value {
            Operand::Literal(_) | Operand::Int(_) if k > 0 => Operand::Literal(v),
            x => x,
        })
        .collect();
    build(t, inst.opcode(), &ops)
}

/// Metadata notes with each kernel's `.sgpr_count`/`.vgpr_count` raised to
/// cover the reserved registers, one per `NT_AMDGPU_METADATA` note.
fn metadata_notes(
    co: &CodeObject<'_>,
    new_counts: &HashMap<String, NewCounts>,
) -> Result<Vec<Vec<u8>>, Error> {
    let mut out = Vec::new();
    for desc in co.metadata_notes()? {
        let Ok(mut v) = lathe_codeobj::msgpack::parse(desc) else {
            out.push(desc.to_vec());
            continue;
        };
        if let lathe_codeobj::Value::Map(root) = &mut v {
            for (k, val) in root.iter_mut() {
                if k.as_str() != Some("amdhsa.kernels") {
                    continue;
                }
                if let lathe_codeobj::Value::Array(ks) = val {
                    for kv in ks.iter_mut() {
                        if let lathe_codeobj::Value::Map(m) = kv {
                            let sym = m
                                .iter()
                                .find(|(k, _)| k.as_str() == Some(".symbol"))
                                .and_then(|(_, v)| v.as_str())
                                .unwrap_or("")
                                .to_string();
                            let Some(nc) = new_counts.get(&sym) else {
                                continue;
                            };
                            for (mk, mv) in m.iter_mut() {
                                let need = match mk.as_str() {
                                    Some(".sgpr_count") => nc.sgprs,
                                    Some(".vgpr_count") => nc.vgprs,
                                    Some(".private_segment_fixed_size") => {
                                        if let Some(p) = nc.private {
                                            *mv = lathe_codeobj::Value::UInt(p);
                                        }
                                        continue;
                                    }
                                    _ => continue,
                                };
                                if let Some(old) = mv.as_u64() {
                                    *mv = lathe_codeobj::Value::UInt(old.max(need));
                                }
                            }
                        }
                    }
                }
            }
        }
        let mut b = Vec::new();
        elfout::encode_msgpack(&v, &mut b);
        out.push(b);
    }
    Ok(out)
}

/// Size of one `mem-trace` record: site (u32), pad, EXEC (u64), then one
/// address (u64) per lane.
pub const TRACE_RECORD: u32 = 16 + 64 * 8;

/// Appends one record per wave-execution of a memory instruction to a ring
/// buffer in the request's shared region: `[next u64][dropped u64]`
/// followed by `capacity` records ([`TRACE_RECORD`] bytes: site, EXEC,
/// then the address register part per active lane — the host adds the
/// instruction's immediate offset). A record is reserved with an atomic
/// add on `next`; when the ring is full the probe adds 1 to `dropped` and
/// writes nothing, so a full buffer never corrupts the kernel. GLOBAL and
/// FLAT (vaddr pair, or saddr + 32-bit vaddr), DS (address VGPR) and
/// SCRATCH (the lane's private offset: saddr + vaddr, 32 bits) are traced;
/// other instructions (MUBUF among them) get no code. Touches no SCC, VCC
/// or M0.
#[derive(Debug, Clone, Copy)]
pub struct MemTraceProbe {
    /// Records the ring holds.
    pub capacity: u32,
}

/// The operands of a MUBUF access: (resource descriptor SGPR quad,
/// soffset, vaddr, offen, idxen, 12-bit offset).
fn mubuf_parts(inst: &Instruction) -> Option<(u16, Operand, Option<RegRange>, bool, bool, u32)> {
    use lathe_isa::Field;
    let ops = inst.operands();
    let by = |f: Field| ops.iter().find(|o| o.spec.field == f).map(|o| o.value);
    let rsrc = match by(Field::Srsrc)? {
        Operand::Reg(r) if r.file == RegFile::Scalar => r.first,
        _ => return None,
    };
    let soff = match by(Field::Soffset) {
        Some(o @ (Operand::Reg(_) | Operand::Int(_))) => o,
        _ => Operand::Int(0),
    };
    let vaddr = match by(Field::Vaddr) {
        Some(Operand::Reg(a)) if a.file == RegFile::Vgpr => Some(a),
        _ => None,
    };
    let w0 = inst.words()[0];
    Some((
        rsrc,
        soff,
        vaddr,
        w0 >> 12 & 1 == 1,
        w0 >> 13 & 1 == 1,
        w0 & 0xfff,
    ))
}

/// Computes the device address of each active lane's first byte of a
/// MUBUF access into `vaux+2 : vaux+3`, the address the emulator records:
/// `base + index × stride + offset + soffset` for a raw buffer, and for a
/// descriptor with ADD_TID_ENABLE (the swizzled private segment) `base +
/// soffset + (p / 4) × 256 + lane × 4 + p % 4` with `p = offset`. Which
/// one is chosen per wave from the descriptor's bit, so one probe serves
/// both. Uses `vaux..vaux+3`, `tmp` and `t2`; VALU only (no SCC).
fn mubuf_address(
    t: Target,
    r: &Reserved,
    inst: &Instruction,
    out: &mut Vec<Instruction>,
) -> Result<(), BuildError> {
    let Some((rsrc, soff, vaddr, offen, idxen, imm)) = mubuf_parts(inst) else {
        return Ok(());
    };
    let (p, swz, lo, hi) = (r.vaux, r.vaux + 1, r.vaux + 2, r.vaux + 3);
    let first = vaddr.map_or(0, |a| a.first);
    // tmp = lanes of the wave when the descriptor swizzles (ADD_TID_ENABLE,
    // bit 23 of its fourth dword).
    out.push(build(
        t,
        Opcode::V_BFE_U32,
        &[
            vreg(p, 1),
            sreg(rsrc + 3, 1),
            Operand::Int(23),
            Operand::Int(1),
        ],
    )?);
    out.push(build(
        t,
        Opcode::V_CMP_NE_U32_E64,
        &[sreg(r.tmp, 2), Operand::Int(0), vreg(p, 1)],
    )?);
    // p = the lane's offset register (second of the pair with idxen) +
    // the instruction's offset.
    let vo = match (offen, idxen, vaddr) {
        (true, true, Some(_)) => vreg(first + 1, 1),
        (true, false, Some(_)) => vreg(first, 1),
        _ => Operand::Int(0),
    };
    out.push(build(t, Opcode::V_MOV_B32_E32, &[vreg(p, 1), vo])?);
    out.push(build(
        t,
        Opcode::V_ADD_U32_E32,
        &[vreg(p, 1), konst(imm), vreg(p, 1)],
    )?);
    // Swizzled: swz = (p / 4) × 256 + lane × 4 + p % 4 (lo as temporary).
    out.push(build(
        t,
        Opcode::V_MBCNT_LO_U32_B32,
        &[vreg(swz, 1), Operand::Int(-1), Operand::Int(0)],
    )?);
    out.push(build(
        t,
        Opcode::V_MBCNT_HI_U32_B32,
        &[vreg(swz, 1), Operand::Int(-1), vreg(swz, 1)],
    )?);
    out.push(build(
        t,
        Opcode::V_LSHLREV_B32_E32,
        &[vreg(swz, 1), Operand::Int(2), vreg(swz, 1)],
    )?);
    out.push(build(
        t,
        Opcode::V_BFE_U32,
        &[vreg(lo, 1), vreg(p, 1), Operand::Int(0), Operand::Int(2)],
    )?);
    out.push(build(
        t,
        Opcode::V_OR_B32_E32,
        &[vreg(swz, 1), vreg(lo, 1), vreg(swz, 1)],
    )?);
    out.push(build(
        t,
        Opcode::V_LSHRREV_B32_E32,
        &[vreg(lo, 1), Operand::Int(2), vreg(p, 1)],
    )?);
    out.push(build(
        t,
        Opcode::V_LSHLREV_B32_E32,
        &[vreg(lo, 1), Operand::Int(8), vreg(lo, 1)],
    )?);
    out.push(build(
        t,
        Opcode::V_OR_B32_E32,
        &[vreg(swz, 1), vreg(lo, 1), vreg(swz, 1)],
    )?);
    // Raw: lo:hi = index × stride + p (64 bits; p is free afterwards).
    out.push(build(t, Opcode::V_MOV_B32_E32, &[vreg(lo, 1), vreg(p, 1)])?);
    out.push(build(
        t,
        Opcode::V_MOV_B32_E32,
        &[vreg(hi, 1), Operand::Int(0)],
    )?);
    if idxen && vaddr.is_some() {
        out.push(build(
            t,
            Opcode::V_BFE_U32,
            &[
                vreg(p, 1),
                sreg(rsrc + 1, 1),
                Operand::Int(16),
                Operand::Int(14),
            ],
        )?);
        out.push(build(
            t,
            Opcode::V_MAD_U64_U32,
            &[
                vreg(lo, 2),
                sreg(r.t2, 2),
                vreg(first, 1),
                vreg(p, 1),
                vreg(lo, 2),
            ],
        )?);
    }
    // Choose per the descriptor, then add the base (48 bits) and soffset.
    out.push(build(
        t,
        Opcode::V_CNDMASK_B32_E64,
        &[vreg(lo, 1), vreg(lo, 1), vreg(swz, 1), sreg(r.tmp, 2)],
    )?);
    out.push(build(
        t,
        Opcode::V_CNDMASK_B32_E64,
        &[vreg(hi, 1), vreg(hi, 1), Operand::Int(0), sreg(r.tmp, 2)],
    )?);
    out.push(build(
        t,
        Opcode::V_MOV_B32_E32,
        &[vreg(p, 1), sreg(rsrc + 1, 1)],
    )?);
    out.push(build(
        t,
        Opcode::V_AND_B32_E32,
        &[vreg(p, 1), Operand::Literal(0xffff), vreg(p, 1)],
    )?);
    out.push(build(
        t,
        Opcode::V_ADD_CO_U32_E64,
        &[vreg(lo, 1), sreg(r.t2, 2), sreg(rsrc, 1), vreg(lo, 1)],
    )?);
    out.push(build(
        t,
        Opcode::V_ADDC_CO_U32_E64,
        &[
            vreg(hi, 1),
            sreg(r.t2, 2),
            vreg(p, 1),
            vreg(hi, 1),
            sreg(r.t2, 2),
        ],
    )?);
    out.push(build(
        t,
        Opcode::V_ADD_CO_U32_E64,
        &[vreg(lo, 1), sreg(r.t2, 2), soff, vreg(lo, 1)],
    )?);
    out.push(build(
        t,
        Opcode::V_ADDC_CO_U32_E64,
        &[
            vreg(hi, 1),
            sreg(r.t2, 2),
            Operand::Int(0),
            vreg(hi, 1),
            sreg(r.t2, 2),
        ],
    )?);
    Ok(())
}

/// `global_atomic_add_x2` returning the old value in `vdst`.
fn atomic_add_x2_rtn(
    t: Target,
    r: &Reserved,
    vdst: u16,
    addr: u16,
    data: u16,
    off: i32,
) -> Result<Instruction, BuildError> {
    let mut m = Modifiers::default();
    m.offset = off;
    m.glc = true;
    Instruction::build(t, Opcode::GLOBAL_ATOMIC_ADD_X2)
        .modifiers(&m)
        .operands(&[vreg(addr, 1), vreg(data, 2), sreg(r.ptr, 2)])?
        .field(lathe_isa::Field::Vdst, u32::from(vdst))
        .finish()
}

impl Probe for MemTraceProbe {
    fn slot_bytes(&self) -> u32 {
        0
    }
    fn shared_bytes(&self) -> u32 {
        16 + self.capacity * TRACE_RECORD
    }
    fn emit(&self, cx: &ProbeCx<'_>, out: &mut Vec<Instruction>) -> Result<(), BuildError> {
        use lathe_isa::{Encoding, Field};
        let (t, r) = (cx.target, cx.regs);
        let enc = cx.inst.encoding();
        let ops = cx.inst.operands();
        let by = |f: Field| ops.iter().find(|o| o.spec.field == f).map(|o| o.value);
        let scratch = enc == Encoding::Scratch;
        let vaddr = match by(Field::Addr) {
            Some(Operand::Reg(a)) if a.file == RegFile::Vgpr => Some(a),
            _ => None,
        };
        let saddr = match by(Field::Saddr) {
            Some(Operand::Reg(s)) if s.file == RegFile::Scalar => Some(s),
            _ => None,
        };
        let buffer = enc == Encoding::Mubuf;
        if buffer && (cx.inst.words()[0] >> 16 & 1 == 1 || mubuf_parts(&cx.inst).is_none()) {
            // Buffer-to-LDS loads (and malformed operands): no address.
            return Ok(());
        }
        if !matches!(
            enc,
            Encoding::Global | Encoding::Flat | Encoding::Ds | Encoding::Scratch | Encoding::Mubuf
        ) || vaddr.is_none() && !scratch && !buffer
        {
            return Ok(());
        }
        let (pa, ret) = (r.vaux + 2, r.vaux);
        let ring = cx.shared;
        exec_one(t, r, out)?;
        // Reserve a record: ret = next++.
        out.push(build(
            t,
            Opcode::V_MOV_B32_E32,
            &[vreg(r.vtmp, 1), konst(ring)],
        )?);
        out.push(atomic_add_x2_rtn(t, r, ret, r.vtmp, r.vdata, 0)?);
        out.push(waitcnt(t, 0, 15)?);
        // VOP3 takes no literal on GFX9: the capacity goes through a VGPR.
        out.push(build(
            t,
            Opcode::V_MOV_B32_E32,
            &[vreg(pa, 1), konst(self.capacity)],
        )?);
        out.push(build(
            t,
            Opcode::V_CMP_LE_U32_E64,
            &[sreg(r.t2, 2), vreg(pa, 1), vreg(ret, 1)],
        )?);
        out.push(build(
            t,
            Opcode::V_CMP_GT_U32_E64,
            &[sreg(r.tmp, 2), vreg(pa, 1), vreg(ret, 1)],
        )?);
        // Full: count the drop.
        out.push(build(
            t,
            Opcode::S_MOV_B64,
            &[Operand::Reg(RegRange::EXEC), sreg(r.t2, 2)],
        )?);
        let mut m8 = Modifiers::default();
        m8.offset = 8;
        out.push(build_m(
            t,
            Opcode::GLOBAL_ATOMIC_ADD_X2,
            &m8,
            &[vreg(r.vtmp, 1), vreg(r.vdata, 2), sreg(r.ptr, 2)],
        )?);
        out.push(build(
            t,
            Opcode::S_MOV_B64,
            &[Operand::Reg(RegRange::EXEC), sreg(r.tmp, 2)],
        )?);
        // The record body, skipped when full.
        let mut body = Vec::with_capacity(24);
        // ret = ring + 16 + ret * TRACE_RECORD (lane 0).
        body.push(build(
            t,
            Opcode::V_MUL_U32_U24_E32,
            &[vreg(ret, 1), Operand::Literal(TRACE_RECORD), vreg(ret, 1)],
        )?);
        body.push(build(
            t,
            Opcode::V_ADD_U32_E32,
            &[vreg(ret, 1), Operand::Literal(ring + 16), vreg(ret, 1)],
        )?);
        body.push(build(
            t,
            Opcode::V_MOV_B32_E32,
            &[vreg(pa, 1), konst(cx.site)],
        )?);
        body.push(build(
            t,
            Opcode::GLOBAL_STORE_DWORD,
            &[vreg(ret, 1), vreg(pa, 1), sreg(r.ptr, 2)],
        )?);
        body.push(build(
            t,
            Opcode::V_MOV_B32_E32,
            &[vreg(pa, 1), sreg(r.save, 1)],
        )?);
        body.push(build(
            t,
            Opcode::V_MOV_B32_E32,
            &[vreg(pa + 1, 1), sreg(r.save + 1, 1)],
        )?);
        body.push(build_m(
            t,
            Opcode::GLOBAL_STORE_DWORDX2,
            &m8,
            &[vreg(ret, 1), vreg(pa, 2), sreg(r.ptr, 2)],
        )?);
        body.push(build(
            t,
            Opcode::V_READFIRSTLANE_B32,
            &[sreg(r.scc, 1), vreg(ret, 1)],
        )?);
        // Every active lane: its address at record + 16 + 8 * lane.
        body.push(build(
            t,
            Opcode::S_MOV_B64,
            &[Operand::Reg(RegRange::EXEC), sreg(r.save, 2)],
        )?);
        body.push(build(
            t,
            Opcode::V_MBCNT_LO_U32_B32,
            &[vreg(r.vtmp, 1), Operand::Int(-1), Operand::Int(0)],
        )?);
        body.push(build(
            t,
            Opcode::V_MBCNT_HI_U32_B32,
            &[vreg(r.vtmp, 1), Operand::Int(-1), vreg(r.vtmp, 1)],
        )?);
        body.push(build(
            t,
            Opcode::V_LSHLREV_B32_E32,
            &[vreg(r.vtmp, 1), Operand::Int(3), vreg(r.vtmp, 1)],
        )?);
        body.push(build(
            t,
            Opcode::V_ADD_U32_E32,
            &[vreg(r.vtmp, 1), sreg(r.scc, 1), vreg(r.vtmp, 1)],
        )?);
        if scratch {
            // The lane's private offset (32 bits): saddr + vaddr.
            let lo = match (saddr, vaddr) {
                (Some(sa), Some(va)) => build(
                    t,
                    Opcode::V_ADD_U32_E32,
                    &[vreg(pa, 1), sreg(sa.first, 1), vreg(va.first, 1)],
                )?,
                (Some(sa), None) => {
                    build(t, Opcode::V_MOV_B32_E32, &[vreg(pa, 1), sreg(sa.first, 1)])?
                }
                (None, Some(va)) => {
                    build(t, Opcode::V_MOV_B32_E32, &[vreg(pa, 1), vreg(va.first, 1)])?
                }
                (None, None) => build(t, Opcode::V_MOV_B32_E32, &[vreg(pa, 1), Operand::Int(0)])?,
            };
            body.push(lo);
            body.push(build(
                t,
                Opcode::V_MOV_B32_E32,
                &[vreg(pa + 1, 1), Operand::Int(0)],
            )?);
        }
        if buffer {
            mubuf_address(t, r, &cx.inst, &mut body)?;
        }
        let addr = vaddr.unwrap_or(RegRange::vgpr(0, 1));
        match (enc, saddr) {
            (Encoding::Scratch | Encoding::Mubuf, _) => {}
            (Encoding::Ds, _) => {
                body.push(build(
                    t,
                    Opcode::V_MOV_B32_E32,
                    &[vreg(pa, 1), vreg(addr.first, 1)],
                )?);
                body.push(build(
                    t,
                    Opcode::V_MOV_B32_E32,
                    &[vreg(pa + 1, 1), Operand::Int(0)],
                )?);
            }
            (_, Some(s)) => {
                body.push(build(
                    t,
                    Opcode::V_ADD_CO_U32_E64,
                    &[
                        vreg(pa, 1),
                        sreg(r.t2, 2),
                        sreg(s.first, 1),
                        vreg(addr.first, 1),
                    ],
                )?);
                body.push(build(
                    t,
                    Opcode::V_MOV_B32_E32,
                    &[vreg(pa + 1, 1), sreg(s.first + 1, 1)],
                )?);
                body.push(build(
                    t,
                    Opcode::V_ADDC_CO_U32_E64,
                    &[
                        vreg(pa + 1, 1),
                        sreg(r.t2, 2),
                        vreg(pa + 1, 1),
                        Operand::Int(0),
                        sreg(r.t2, 2),
                    ],
                )?);
            }
            (_, None) => {
                body.push(build(
                    t,
                    Opcode::V_MOV_B32_E32,
                    &[vreg(pa, 1), vreg(addr.first, 1)],
                )?);
                body.push(build(
                    t,
                    Opcode::V_MOV_B32_E32,
                    &[vreg(pa + 1, 1), vreg(addr.first + 1, 1)],
                )?);
            }
        }
        let mut m16 = Modifiers::default();
        m16.offset = 16;
        body.push(build_m(
            t,
            Opcode::GLOBAL_STORE_DWORDX2,
            &m16,
            &[vreg(r.vtmp, 1), vreg(pa, 2), sreg(r.ptr, 2)],
        )?);
        let skip: usize = body.iter().map(|i| i.len()).sum::<usize>() / 4;
        out.push(build(
            t,
            Opcode::S_CBRANCH_EXECZ,
            &[Operand::Branch(skip as i16)],
        )?);
        out.extend(body);
        exec_restore(t, r, out)
    }
}

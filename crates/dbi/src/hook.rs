//! Hooks: probes that call an `extern "C" __device__` function of a
//! separate *tool code object* (written in HIP, [`crate::manifest`]).
//!
//! **At a site** the probe, in the lanes active there (a site whose EXEC
//! is 0 is skipped with `s_cbranch_execz`):
//!
//! 1. waits for the kernel's outstanding memory operations, then saves,
//!    with EXEC set to every lane, each register that is both live at the
//!    site (the kernel's liveness) and clobbered by the call: the hook's
//!    transitive write set from lifting the tool object ([`HookInfo`]),
//!    minus what the AMDGPU calling convention makes callee-saved (SGPRs
//!    from s33, VGPR groups v40–47, v56–63, ...; EXEC), plus what the probe
//!    itself sets up (argument VGPRs, `s[30:31]`, `s32`, gfx90a `s[0:3]`).
//!    VGPRs go to the probe's scratch area, SGPRs (with SCC, VCC, M0) into
//!    the lanes of one VGPR stored there too;
//! 2. sets up the arguments in v0.. (32-bit values in one VGPR, 64-bit
//!    ones in two, at most 32 VGPRs), `s32` (the hook's stack, after the
//!    save area: [`crate::scratch::ScratchCx::stack_pointer`]) and on
//!    gfx90a `s[0:3]` (the scratch buffer descriptor);
//! 3. calls the hook: `s_getpc_b64`, `s_add_u32`/`s_addc_u32` with
//!    `R_AMDGPU_REL32_LO/HI` relocations against the hook's symbol (an
//!    undefined symbol of the instrumented object, resolved by Lathe's
//!    loader against the tool object loaded into the same executable),
//!    `s_swappc_b64 s[30:31]`;
//! 4. restores what it saved.
//!
//! In a kernel whose stack is dynamic (it calls other code objects, or
//! recurses) on gfx942, the save area and the hook's frame go above the
//! kernel's stack pointer `s32`, like any callee's frame
//! ([`Probe::scratch_at_stack_pointer`], [`ProbeCx::scratch_sp`]); on
//! gfx90a they go past the stack's reserve (D12, [`crate::scratch`]).
//!
//! The probe's registers are callee-saved ones ([`Probe::calls_external`]).
//! Arguments come from a fixed vocabulary ([`Arg`]). Kernel arguments
//! (`grid_dim_*`, `block_dim_*`, `kernarg:...`) are read through the
//! kernarg pointer, which a kernel-entry probe ([`KernargSaver`]) stores
//! in the probe area (the kernel's kernarg SGPRs are usually dead by the
//! time a site runs); they are available at sites in kernels, not in
//! device functions.
//!
//! The tool object's hooks must not use the implicit inputs a kernel
//! passes a callee (`threadIdx`, `blockIdx`, `blockDim`, `gridDim`, the
//! dispatch pointer): pass them as arguments. A hook reading those
//! registers, or more argument VGPRs than the manifest declares, is
//! refused ([`HookError::Signature`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use lathe_isa::{BuildError, Instruction, Modifiers, Opcode, Operand, RegFile, RegRange, Target};

use crate::asm::{
    add_co_u32, addc_u32, build, build_m, exec_mask, konst, mask_mov, mask_reg, mask_sgprs,
    smem_load, sreg, vreg, waitcnt,
};
use crate::lift::Program;
use crate::live::{Liveness, RegSet};
use crate::rewrite::{Probe, ProbeCx, SymRef};
use crate::scratch::{load_dword, store_dword, ScratchCx};

/// Errors of HIP tools: manifests, compiling, hook signatures.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HookError {
    /// Reading a file failed.
    #[error("{path}: {source}")]
    Io {
        /// Path.
        path: String,
        /// Error.
        source: std::io::Error,
    },
    /// The manifest is malformed.
    #[error("manifest {path}: {why}")]
    Manifest {
        /// Path.
        path: String,
        /// Why.
        why: String,
    },
    /// clang or ld.lld failed.
    #[error("compiling {path} for {target} failed:\n{stderr}")]
    Compile {
        /// Source.
        path: String,
        /// Target.
        target: String,
        /// The compiler's standard error.
        stderr: String,
    },
    /// The tool code object does not define a hook the manifest names.
    #[error("the tool code object defines no function {hook}{hint}")]
    MissingHook {
        /// Hook name.
        hook: String,
        /// A hint (a mangled name found instead, say).
        hint: String,
    },
    /// A hook's signature does not fit.
    #[error("hook {hook}: {why}")]
    Signature {
        /// Hook name.
        hook: String,
        /// Why.
        why: String,
    },
    /// The tool code object is for another processor.
    #[error("the tool code object is for {found}, the kernel's code object for {want}")]
    Target {
        /// The tool's processor.
        found: String,
        /// The kernel's processor.
        want: String,
    },
    /// The tool was built for another wave size than the kernel's.
    #[error(
        "the tool code object is built for wave{tool}, the kernel's code object is wave{kernel} \
         (load the tool for the kernel's wave size: HipTool::load_for)"
    )]
    WaveSize {
        /// The tool's lanes per wave.
        tool: u32,
        /// The kernel's.
        kernel: u32,
    },
    /// The tool code object cannot be analysed.
    #[error("tool code object: {0}")]
    Tool(String),
    /// A site cannot be given an argument.
    #[error("{0}")]
    Site(String),
}

/// Argument types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ArgType {
    /// 32 bits (`unsigned`, `int`, `float`): one VGPR.
    U32,
    /// 64 bits (`unsigned long long`, a pointer): two VGPRs.
    U64,
}

impl ArgType {
    /// VGPRs the argument takes.
    pub fn vgprs(self) -> u16 {
        match self {
            ArgType::U32 => 1,
            ArgType::U64 => 2,
        }
    }
}

/// One argument of a hook call (the manifest's vocabulary).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Arg {
    /// `site`: the site number (u32).
    Site,
    /// `opcode`: Lathe's opcode number of the site's instruction (u32).
    Opcode,
    /// `pc`: the instruction's address in the original code object (u64).
    Pc,
    /// `block_insts`: instructions in the site's basic block (u32).
    BlockInsts,
    /// `segment_insts`: instructions that run with the EXEC the hook sees
    /// (u32): from the site (the instruction itself for `before` and
    /// block-entry sites, the next one for `after`) through the next
    /// instruction that writes EXEC, or to the end of the block. Hooks at
    /// block entry and after every EXEC write (`class: exec-write`) see
    /// each instruction in exactly one segment, with the lanes it runs
    /// with: exact thread-level counts.
    SegmentInsts,
    /// `lane`: the lane's id in the wave (u32).
    Lane,
    /// `exec`: the EXEC mask at the site (u64).
    Exec,
    /// `vaddr`: the lane's address operand of a memory instruction: a VGPR
    /// pair, or an SGPR pair plus a VGPR offset (u64; 32-bit LDS and
    /// scratch offsets zero-extended).
    Vaddr,
    /// `v<N>`: VGPR N of the lane (u32).
    Vgpr(u16),
    /// `s<N>`: SGPR N (u32).
    Sgpr(u16),
    /// `const:<N>`: a constant (u32).
    Const(u32),
    /// `grid_dim_x|y|z`: work-groups in the grid (u32), a partial one
    /// included: `hidden_block_count_*` plus one where `hidden_remainder_*`
    /// is not 0 (code object v5, computed at kernel entry), else computed at
    /// kernel entry from the dispatch packet as HIP does under v4 (grid
    /// size over work-group size, rounded up; [`crate::dims`]).
    GridDim(u8),
    /// `block_dim_x|y|z`: work-items per work-group (u32): the
    /// `hidden_group_size_*` argument (v5), else the dispatch packet's
    /// work-group size.
    BlockDim(u8),
    /// `kernarg:<offset>` (u32) / `kernarg64:<offset>` (u64): kernel
    /// argument bytes at `offset`.
    Kernarg {
        /// Byte offset in the kernarg segment.
        offset: u32,
        /// 64 bits.
        wide: bool,
    },
}

impl Arg {
    /// Parses a vocabulary name.
    pub fn parse(s: &str) -> Option<Arg> {
        let axis = |c: &str| match c {
            "x" => Some(0u8),
            "y" => Some(1),
            "z" => Some(2),
            _ => None,
        };
        Some(match s {
            "site" => Arg::Site,
            "opcode" => Arg::Opcode,
            "pc" => Arg::Pc,
            "block_insts" => Arg::BlockInsts,
            "segment_insts" => Arg::SegmentInsts,
            "lane" => Arg::Lane,
            "exec" => Arg::Exec,
            "vaddr" => Arg::Vaddr,
            _ => {
                if let Some(a) = s.strip_prefix("grid_dim_") {
                    Arg::GridDim(axis(a)?)
                } else if let Some(a) = s.strip_prefix("block_dim_") {
                    Arg::BlockDim(axis(a)?)
                } else if let Some(n) = s.strip_prefix("const:") {
                    Arg::Const(parse_u32(n)?)
                } else if let Some(n) = s.strip_prefix("kernarg64:") {
                    Arg::Kernarg {
                        offset: parse_u32(n)?,
                        wide: true,
                    }
                } else if let Some(n) = s.strip_prefix("kernarg:") {
                    Arg::Kernarg {
                        offset: parse_u32(n)?,
                        wide: false,
                    }
                } else if let Some(n) = s.strip_prefix('v') {
                    Arg::Vgpr(n.parse().ok().filter(|&v: &u16| v < 256)?)
                } else if let Some(n) = s.strip_prefix('s') {
                    Arg::Sgpr(n.parse().ok().filter(|&v: &u16| v < 102)?)
                } else {
                    return None;
                }
            }
        })
    }

    /// The argument's type.
    pub fn ty(self) -> ArgType {
        match self {
            Arg::Pc | Arg::Exec | Arg::Vaddr => ArgType::U64,
            Arg::Kernarg { wide: true, .. } => ArgType::U64,
            _ => ArgType::U32,
        }
    }

    /// Read through the kernarg pointer (kernel arguments).
    pub fn kernarg_arg(self) -> bool {
        matches!(
            self,
            Arg::GridDim(_) | Arg::BlockDim(_) | Arg::Kernarg { .. }
        )
    }
}

fn parse_u32(s: &str) -> Option<u32> {
    match s.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// The SGPR pair holding the hook's address for `s_swappc_b64`.
const CALL: u16 = 4;

/// Maximum argument VGPRs (v0..v31).
pub const MAX_ARG_VGPRS: u16 = 32;

/// What lifting the tool object tells about one hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookInfo {
    /// Symbol name.
    pub name: String,
    /// Registers the hook (and what it calls) may leave changed under the
    /// calling convention: its transitive writes minus the callee-saved
    /// registers.
    pub clobbers: RegSet,
    /// Bytes per lane of stack the hook and its callees need.
    pub frame: u32,
    /// Argument VGPRs the hook reads at entry (one past the highest).
    pub arg_vgprs_read: u16,
}

/// Callee-saved registers of the AMDGPU calling convention: SGPRs s33..
/// s105 (s30/s31 and s32 are set by the probe), VGPRs v40-47, v56-63, ...
/// (8 of every 16 from v40), EXEC.
pub fn callee_saved() -> RegSet {
    let mut r = RegSet::default();
    r.add(RegRange::sgpr(33, 73));
    r.add(RegRange::EXEC);
    let mut v = 40;
    while v < 256 {
        r.add(RegRange::vgpr(v, 8));
        v += 16;
    }
    r
}

/// Analyses the hooks `names` of a tool object (target-checked by the
/// caller), in the target's default wave size.
pub fn analyse(tool: &[u8], names: &[&str]) -> Result<Vec<HookInfo>, HookError> {
    analyse_wave(tool, names, None)
}

/// [`analyse`] with the tool's code read in `wave` lanes per wave (a
/// wave64 GFX10 tool's VOP3 compares write SGPR pairs).
pub fn analyse_wave(
    tool: &[u8],
    names: &[&str],
    wave: Option<u32>,
) -> Result<Vec<HookInfo>, HookError> {
    let co = lathe_codeobj::CodeObject::parse(tool).map_err(|e| HookError::Tool(e.to_string()))?;
    let p = Program::lift_wave(&co, wave).map_err(|e| HookError::Tool(e.to_string()))?;
    let live = Liveness::compute(&p);
    let syms = co.symbols().map_err(|e| HookError::Tool(e.to_string()))?;
    let arch_scaled = !co
        .target()
        .map(|t| lathe_codeobj::kd::KdArch::for_processor(t.processor).architected_flat_scratch)
        .unwrap_or(false);
    let csr = callee_saved();
    let callees = callee_table(&p, &co);
    let mut out = Vec::new();
    for name in names {
        let sym = syms.get(name).filter(|s| {
            s.kind == lathe_codeobj::SymbolKind::DeviceFunction
                && s.section != lathe_codeobj::SymbolSection::Undefined
        });
        let Some(_) = sym else {
            let mangled = syms
                .all()
                .iter()
                .find(|s| s.name.starts_with("_Z") && s.name.contains(name) && s.name != *name)
                .map(|s| {
                    format!(
                        " (found the C++ symbol {}: declare the hook extern \"C\")",
                        s.name
                    )
                });
            let other = syms
                .get(name)
                .map(|s| format!(" ({name} is a {:?})", s.kind));
            return Err(HookError::MissingHook {
                hook: name.to_string(),
                hint: mangled.or(other).unwrap_or_default(),
            });
        };
        let fi = p.function(name).ok_or_else(|| HookError::MissingHook {
            hook: name.to_string(),
            hint: " (not found when lifting the tool object)".into(),
        })?;
        let reach = reach_via_got(&p, &co, fi).map_err(|f| HookError::Signature {
            hook: name.to_string(),
            why: format!(
                "{f} makes a call that cannot be resolved (indirect or external calls are not supported in hooks)"
            ),
        })?;
        let mut clob = RegSet::default();
        for &g in &reach {
            for e in &live.functions[g].effects {
                clob = clob.union(&e.defs);
            }
        }
        // What the convention preserves.
        clob.s &= !csr.s;
        for k in 0..4 {
            clob.v[k] &= !csr.v[k];
        }
        let frame = frame_need(&p, &callees, fi, arch_scaled, &mut BTreeSet::new()).ok_or_else(|| {
            HookError::Signature {
                hook: name.to_string(),
                why: "its stack size is not static (recursion, or a stack pointer change Lathe cannot read)".into(),
            }
        })?;
        let live_in = entry_reads(&p, &live, fi, &reach);
        let mut implicit = Vec::new();
        for s in 4..16u16 {
            if live_in.has_sreg(s) {
                implicit.push(format!("s{s}"));
            }
        }
        if live_in.has_vgpr(31) {
            implicit.push("v31".into());
        }
        if !implicit.is_empty() {
            return Err(HookError::Signature {
                hook: name.to_string(),
                why: format!(
                    "it reads the implicit inputs a kernel passes a callee ({}): threadIdx, blockIdx, blockDim, gridDim and the dispatch pointer are not available in hooks; pass them as arguments (lane, grid_dim_x, ...)",
                    implicit.join(", ")
                ),
            });
        }
        let arg_vgprs_read = (0..31u16)
            .rev()
            .find(|&v| live_in.has_vgpr(v))
            .map_or(0, |v| v + 1);
        out.push(HookInfo {
            name: name.to_string(),
            clobbers: clob,
            frame,
            arg_vgprs_read,
        });
    }
    Ok(out)
}

/// The callees of every function: direct ones, and for calls through the
/// GOT (default-visibility functions in a shared object) every function a
/// GOT slot the function computes the address of is relocated against.
/// `None`: a call that cannot be resolved.
fn callee_table(p: &Program, co: &lathe_codeobj::CodeObject<'_>) -> Vec<Option<Vec<usize>>> {
    let relocs = co.relocations().unwrap_or_default();
    let got_fn = |addr: u64| -> Option<usize> {
        relocs
            .iter()
            .find(|r| r.offset == addr)
            .and_then(|r| r.symbol_name)
            .and_then(|n| p.function(n))
    };
    p.functions
        .iter()
        .map(|f| {
            let mut out: Vec<usize> = f.calls.iter().filter_map(|c| c.callee).collect();
            if f.calls.iter().any(|c| c.callee.is_none()) {
                let got: Vec<usize> = f
                    .pcrel
                    .iter()
                    .filter_map(|pr| pr.target)
                    .filter_map(got_fn)
                    .collect();
                if got.is_empty() {
                    return None;
                }
                out.extend(got);
            }
            out.sort_unstable();
            out.dedup();
            Some(out)
        })
        .collect()
}

/// Functions reachable from `fi` ([`callee_table`]), or the name of one
/// with a call that cannot be resolved.
fn reach_via_got(
    p: &Program,
    co: &lathe_codeobj::CodeObject<'_>,
    fi: usize,
) -> Result<Vec<usize>, String> {
    let t = callee_table(p, co);
    let mut seen = vec![fi];
    let mut k = 0;
    while k < seen.len() {
        let f = seen[k];
        k += 1;
        let Some(cs) = &t[f] else {
            return Err(p.functions[f].name.clone());
        };
        for &g in cs {
            if !seen.contains(&g) {
                seen.push(g);
            }
        }
    }
    Ok(seen)
}

/// Registers `fi` certainly reads before writing: the upward-exposed
/// reads of its entry block, and registers read somewhere in `reach` (its
/// call tree) and written nowhere there. (The liveness of a device
/// function's entry is conservative at returns, so it is not used.)
fn entry_reads(p: &Program, live: &Liveness, fi: usize, reach: &[usize]) -> RegSet {
    let f = &p.functions[fi];
    let eff = &live.functions[fi].effects;
    let is_ret = |i: &Instruction| {
        matches!(
            crate::asm::canon(i),
            Opcode::S_SETPC_B64 | Opcode::S_SWAPPC_B64
        )
    };
    // Prologue saves of registers to the stack (whole-wave saves of the
    // VGPRs the function uses for SGPR spills) read them without using
    // their values.
    let is_stack = |i: &Instruction| {
        matches!(
            crate::asm::memory_class(i),
            lathe_isa::MemoryClass::Scratch | lathe_isa::MemoryClass::Buffer
        )
    };
    let mut written = RegSet::default();
    let mut out = RegSet::default();
    if let Some(b0) = f.blocks.first() {
        for (x, e) in f.insts[b0.start..b0.end].iter().zip(&eff[b0.start..b0.end]) {
            if is_ret(&x.inst) {
                break;
            }
            if is_stack(&x.inst) {
                written = written.union(&e.defs);
                continue;
            }
            let mut u = e.uses;
            if crate::asm::canon(&x.inst) == Opcode::V_WRITELANE_B32 {
                // One lane written (SGPR spills): the other lanes' values
                // are not used.
                for k in 0..4 {
                    u.v[k] &= !e.defs.v[k];
                }
            }
            u.s &= !written.s;
            for k in 0..4 {
                u.v[k] &= !written.v[k];
            }
            out = out.union(&u);
            written = written.union(&e.defs);
        }
    }
    let (mut r, mut w) = (RegSet::default(), RegSet::default());
    for &g in reach {
        let fg = &p.functions[g];
        for (i, x) in fg.insts.iter().enumerate() {
            let e = &live.functions[g].effects[i];
            if !is_ret(&x.inst) && !is_stack(&x.inst) {
                r = r.union(&e.uses);
            }
            w = w.union(&e.defs);
        }
    }
    r.s &= !w.s;
    for k in 0..4 {
        r.v[k] &= !w.v[k];
    }
    out.union(&r)
}

/// Per-lane stack bytes of `fi` and its callees: the largest constant
/// added to s32 in each function, summed along the deepest call chain.
fn frame_need(
    p: &Program,
    callees: &[Option<Vec<usize>>],
    fi: usize,
    scaled: bool,
    path: &mut BTreeSet<usize>,
) -> Option<u32> {
    if !path.insert(fi) {
        return None;
    }
    let f = &p.functions[fi];
    let mut own = 0u32;
    for x in &f.insts {
        let i = &x.inst;
        let ops = i.operands();
        let dst = ops.iter().next().and_then(|o| o.value.reg());
        if dst != Some(RegRange::sgpr(32, 1)) || !i.writes_reg_any() {
            continue;
        }
        let k = match crate::asm::canon(i) {
            Opcode::S_ADD_U32 | Opcode::S_ADD_I32 | Opcode::S_ADDK_I32 => {
                ops.iter().skip(1).find_map(|o| match o.value {
                    Operand::Literal(v) if crate::asm::canon(i) == Opcode::S_ADDK_I32 => {
                        Some(v as u16 as i16 as i32 as u32)
                    }
                    Operand::Literal(v) => Some(v),
                    Operand::Int(v) => Some(v as i32 as u32),
                    Operand::Imm(v) => Some(v as u16 as i16 as i32 as u32),
                    _ => None,
                })
            }
            Opcode::S_MOV_B32 | Opcode::S_SUB_U32 | Opcode::S_SUB_I32 => Some(0),
            _ => None,
        };
        match k {
            Some(v) if (v as i32) >= 0 => own = own.max(if scaled { v / 64 } else { v }),
            Some(_) => {}
            None => return None,
        }
    }
    let mut deepest = 0;
    for &g in callees.get(fi)?.as_ref()? {
        deepest = deepest.max(frame_need(p, callees, g, scaled, path)?);
    }
    path.remove(&fi);
    Some(own + deepest)
}

trait WritesAny {
    fn writes_reg_any(&self) -> bool;
}

impl WritesAny for Instruction {
    fn writes_reg_any(&self) -> bool {
        let mut w = false;
        self.for_each_reg(|a| w |= a.write);
        w
    }
}

/// Stores the kernel's kernarg pointer in its scratch area at kernel
/// entry (8 bytes per lane, every lane), for hooks' kernel arguments, and
/// for kernels without the v5 hidden arguments hooks ask for, `gridDim`
/// and `blockDim` computed from the dispatch packet ([`crate::dims`]; 12
/// bytes each, after the pointer); for v5 kernels, `gridDim` from the
/// hidden block count and remainder. Its request must come right before the
/// hook requests ([`HookProbe::kernarg_back`]).
#[derive(Debug, Clone, Default)]
pub struct KernargSaver {
    /// Hidden-argument offsets and dispatch pointers, by function index.
    pub kernels: Arc<BTreeMap<usize, KernelArgs>>,
    /// Some hook reads `grid_dim_*` or `block_dim_*`.
    pub dims: bool,
}

/// Bytes per lane the [`KernargSaver`] asks for.
pub const KERNARG_SAVER_BYTES: u32 = 32;
/// Offset of `gridDim.x..z` in the [`KernargSaver`]'s area.
const SAVED_GRID_DIM: u32 = 8;
/// Offset of `blockDim.x..z` in the [`KernargSaver`]'s area.
const SAVED_BLOCK_DIM: u32 = 20;

impl Probe for KernargSaver {
    fn slot_bytes(&self) -> u32 {
        0
    }
    fn scratch_bytes(&self) -> u32 {
        KERNARG_SAVER_BYTES
    }
    fn emit(&self, cx: &ProbeCx<'_>, out: &mut Vec<Instruction>) -> Result<(), BuildError> {
        let (Some(ka), Some(sc)) = (cx.kernarg_sgpr, cx.scratch) else {
            return Ok(());
        };
        let (t, r) = (cx.target, cx.regs);
        // Every lane's copy (a hook may run in lanes inactive at entry,
        // after the kernel sets EXEC itself). SCC is dead at entry.
        out.push(mask_mov(t, mask_reg(t, r.save), exec_mask(t))?);
        out.push(mask_mov(t, exec_mask(t), Operand::Int(-1))?);
        out.push(build(
            t,
            Opcode::S_MOV_B32,
            &[sreg(r.tmp, 1), konst(sc.area)],
        )?);
        for k in 0..2 {
            out.push(build(
                t,
                Opcode::V_MOV_B32_E32,
                &[vreg(r.vtmp, 1), sreg(ka + k, 1)],
            )?);
            out.push(store_dword(t, r.vtmp, r.tmp, 4 * u32::from(k))?);
        }
        let packet = self
            .kernels
            .get(&cx.function_index)
            .filter(|k| k.block_count.contains(&None) || k.group_size.contains(&None))
            .and_then(|k| k.dispatch_sgpr);
        // Code object v5: the runtime writes whole work-groups in
        // `hidden_block_count` (grid / size, rounded down) and the partial
        // group's size in `hidden_remainder`; HIP's `gridDim` counts the
        // partial group too (`__ockl_get_num_groups`), so it is
        // count + (remainder != 0), computed here once.
        let v5 = self
            .kernels
            .get(&cx.function_index)
            .and_then(v5_grid_dim)
            .filter(|_| self.dims && packet.is_none());
        if let Some(offs) = v5 {
            for (ax, (count, rem)) in offs.into_iter().enumerate() {
                out.push(smem_load(t, Opcode::S_LOAD_DWORD, r.t2, ka, count)?);
                out.push(smem_load(t, Opcode::S_LOAD_DWORD, r.t2 + 1, ka, rem & !3)?);
                out.push(waitcnt(t, 63, 0)?);
                // The 16-bit remainder (S_BFE_U32: width << 16 | offset).
                out.push(build(
                    t,
                    Opcode::S_BFE_U32,
                    &[
                        sreg(r.t2 + 1, 1),
                        sreg(r.t2 + 1, 1),
                        Operand::Literal((16 << 16) | (8 * (rem & 3))),
                    ],
                )?);
                out.push(build(
                    t,
                    Opcode::S_CMP_LG_U32,
                    &[sreg(r.t2 + 1, 1), Operand::Int(0)],
                )?);
                out.push(build(
                    t,
                    Opcode::S_ADDC_U32,
                    &[sreg(r.t2, 1), sreg(r.t2, 1), Operand::Int(0)],
                )?);
                out.push(build(
                    t,
                    Opcode::V_MOV_B32_E32,
                    &[vreg(r.vtmp, 1), sreg(r.t2, 1)],
                )?);
                out.push(store_dword(
                    t,
                    r.vtmp,
                    r.tmp,
                    SAVED_GRID_DIM + 4 * ax as u32,
                )?);
            }
        }
        if let (true, Some(dp)) = (self.dims, packet) {
            for ax in 0..3u8 {
                crate::dims::emit_dim(t, dp, ax, r.t2, r.t2 + 1, r.tmp, r.vaux, out)?;
                out.push(build(
                    t,
                    Opcode::S_MOV_B32,
                    &[sreg(r.tmp, 1), konst(sc.area)],
                )?);
                for (k, base) in [SAVED_GRID_DIM, SAVED_BLOCK_DIM].into_iter().enumerate() {
                    out.push(build(
                        t,
                        Opcode::V_MOV_B32_E32,
                        &[vreg(r.vtmp, 1), sreg(r.t2 + k as u16, 1)],
                    )?);
                    out.push(store_dword(t, r.vtmp, r.tmp, base + 4 * u32::from(ax))?);
                }
            }
        }
        out.push(mask_mov(t, exec_mask(t), mask_reg(t, r.save))?);
        Ok(())
    }
}

/// (`hidden_block_count`, `hidden_remainder`) offsets per axis when the
/// kernel has all six and the SMEM loads reach them: its `gridDim` is
/// computed at entry from them by the [`KernargSaver`].
fn v5_grid_dim(k: &KernelArgs) -> Option<[(u32, u32); 3]> {
    let mut out = [(0, 0); 3];
    for (ax, o) in out.iter_mut().enumerate() {
        *o = (k.block_count[ax]?, k.remainder[ax]?);
        if o.0 % 4 != 0 || o.1 % 2 != 0 || o.0.max(o.1) >= 0x1_0000 {
            return None;
        }
    }
    Some(out)
}

/// Offsets of a kernel's hidden arguments (from its metadata).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KernelArgs {
    /// `hidden_block_count_x..z`.
    pub block_count: [Option<u32>; 3],
    /// `hidden_group_size_x..z` (16-bit).
    pub group_size: [Option<u32>; 3],
    /// `hidden_remainder_x..z` (16-bit).
    pub remainder: [Option<u32>; 3],
    /// Kernarg segment size.
    pub size: u32,
    /// The dispatch-pointer SGPR pair at entry, if the kernel has one.
    pub dispatch_sgpr: Option<u16>,
}

/// A probe calling a hook.
#[derive(Debug)]
pub struct HookProbe {
    /// The hook's symbol.
    pub symbol: String,
    /// Arguments, in order.
    pub args: Vec<Arg>,
    /// Clobbers, frame.
    pub info: HookInfo,
    /// Distance (bytes per lane) from this request's scratch area back to
    /// the [`KernargSaver`]'s (0: none).
    pub kernarg_back: u32,
    /// Instructions per basic block, by (function index, instruction
    /// index of each instruction) → its block's length.
    pub block_len: Arc<Vec<Vec<u32>>>,
    /// Hidden-argument offsets by function index (kernels).
    pub kernels: Arc<BTreeMap<usize, KernelArgs>>,
    /// [`Arg::SegmentInsts`] of each instruction's site, by (function
    /// index, instruction index): for `before`/block-entry sites from the
    /// instruction, for `after` sites from the next one.
    pub segment_len: Arc<Vec<Vec<u32>>>,
    /// The first site-level error (a typed error for the caller).
    pub error: Arc<Mutex<Option<HookError>>>,
    /// Call the hook in waves with no active lane too (in lane 0, with
    /// the `exec` argument 0), instead of skipping the site.
    pub inactive_waves: bool,
}

impl HookProbe {
    /// Sets the hook's argument VGPRs (v0 on) from the site's registers
    /// (their save slots where the set-up overwrote them), the kernel's
    /// arguments and constants. `regs` is (area, saved-EXEC pair, save-area
    /// pair, temporary SGPR, temporary VGPR pair, argument VGPRs);
    /// `reserved` the probe's own SGPRs.
    #[allow(clippy::type_complexity)]
    fn emit_args(
        &self,
        cx: &ProbeCx<'_>,
        regs: (u32, u16, u16, u16, u16, u16),
        reserved: &RegSet,
        slot_of: &dyn Fn(u16) -> Option<u32>,
        b: &mut Vec<Instruction>,
    ) -> Result<(), BuildError> {
        let t = cx.target;
        let (area, e, tp, t2, tpair, nargv) = regs;
        let pending_kernarg = self.args.iter().any(|a| a.kernarg_arg());
        let kargs = self.kernels.get(&cx.function_index).copied();
        if pending_kernarg {
            if self.kernarg_back == 0 || cx.kernarg_sgpr.is_none() {
                return Err(self.fail(format!(
                    "kernel arguments are only available at sites in kernels with a kernarg segment (site at {:#x})",
                    cx.pc
                )));
            }
            let Some(_) = kargs else {
                return Err(self.fail(format!(
                    "kernel arguments are only available at sites in kernels, not in device functions (site at {:#x})",
                    cx.pc
                )));
            };
            b.push(build(
                t,
                Opcode::S_MOV_B32,
                &[sreg(t2, 1), konst(area.wrapping_sub(self.kernarg_back))],
            )?);
            b.push(load_dword(t, tpair, t2, 0)?);
            b.push(load_dword(t, tpair + 1, t2, 4)?);
            b.push(waitcnt(t, 0, 15)?);
        }
        let mut v = 0u16;
        for a in &self.args {
            let k = v;
            v += a.ty().vgprs();
            // A VGPR's value at the site (from its save slot when the
            // set-up may have overwritten it).
            let copy = |dst: u16, src: u16, b: &mut Vec<Instruction>| -> Result<(), BuildError> {
                if src < tpair + 2 {
                    let off = slot_of(src).unwrap_or(0);
                    b.push(load_dword(t, dst, tp, off)?);
                    b.push(waitcnt(t, 0, 15)?);
                    Ok(())
                } else {
                    b.push(build(
                        t,
                        Opcode::V_MOV_B32_E32,
                        &[vreg(dst, 1), vreg(src, 1)],
                    )?);
                    Ok(())
                }
            };
            let mov =
                |dst: u16, src: Operand| build(t, Opcode::V_MOV_B32_E32, &[vreg(dst, 1), src]);
            match *a {
                Arg::Site => b.push(mov(k, konst(cx.site))?),
                Arg::Opcode => b.push(mov(k, konst(u32::from(cx.inst.opcode().index())))?),
                Arg::Pc => {
                    b.push(mov(k, konst(cx.pc as u32))?);
                    b.push(mov(k + 1, konst((cx.pc >> 32) as u32))?);
                }
                Arg::BlockInsts => {
                    let n = self
                        .block_len
                        .get(cx.function_index)
                        .and_then(|f| f.get(cx.inst_index))
                        .copied()
                        .unwrap_or(0);
                    b.push(mov(k, konst(n))?);
                }
                Arg::SegmentInsts => {
                    let n = self
                        .segment_len
                        .get(cx.function_index)
                        .and_then(|f| f.get(cx.inst_index))
                        .copied()
                        .unwrap_or(0);
                    b.push(mov(k, konst(n))?);
                }
                Arg::Const(c) => b.push(mov(k, konst(c))?),
                Arg::Lane => {
                    b.push(build(
                        t,
                        Opcode::V_MBCNT_LO_U32_B32,
                        &[vreg(k, 1), Operand::Int(-1), Operand::Int(0)],
                    )?);
                    b.push(build(
                        t,
                        Opcode::V_MBCNT_HI_U32_B32,
                        &[vreg(k, 1), Operand::Int(-1), vreg(k, 1)],
                    )?);
                }
                Arg::Exec => {
                    // Wave32: the saved EXEC is one SGPR, the high half 0.
                    b.push(mov(k, sreg(e, 1))?);
                    b.push(mov(
                        k + 1,
                        if mask_sgprs(t) == 1 {
                            Operand::Int(0)
                        } else {
                            sreg(e + 1, 1)
                        },
                    )?);
                }
                Arg::Vgpr(s) => copy(k, s, b)?,
                Arg::Sgpr(s) => {
                    if reserved.has_sreg(s) {
                        return Err(self.fail(format!(
                            "s{s} is one of the probe's own registers at the site at {:#x}",
                            cx.pc
                        )));
                    }
                    b.push(mov(k, sreg(s, 1))?);
                }
                Arg::Vaddr => {
                    let Some((va, sa)) = addr_operand(&cx.inst) else {
                        return Err(self.fail(format!(
                            "vaddr: {} at {:#x} has no VGPR address",
                            cx.inst, cx.pc
                        )));
                    };
                    copy(k, va.first, b)?;
                    if va.count >= 2 {
                        copy(k + 1, va.first + 1, b)?;
                    } else if let Some(s) = sa {
                        b.push(mov(k + 1, sreg(s + 1, 1))?);
                        b.push(build(
                            t,
                            add_co_u32(t),
                            &[vreg(k, 1), mask_reg(t, t2), sreg(s, 1), vreg(k, 1)],
                        )?);
                        b.push(build(
                            t,
                            addc_u32(t),
                            &[
                                vreg(k + 1, 1),
                                mask_reg(t, t2),
                                vreg(k + 1, 1),
                                Operand::Int(0),
                                mask_reg(t, t2),
                            ],
                        )?);
                    } else {
                        b.push(mov(k + 1, Operand::Int(0))?);
                    }
                }
                Arg::GridDim(ax) | Arg::BlockDim(ax) => {
                    let ka = kargs.unwrap_or_default();
                    let (off, op) = match *a {
                        // v5: count + (remainder != 0), saved at entry.
                        Arg::GridDim(_) if v5_grid_dim(&ka).is_some() => {
                            (None, Opcode::GLOBAL_LOAD_DWORD)
                        }
                        Arg::GridDim(_) => (ka.block_count[ax as usize], Opcode::GLOBAL_LOAD_DWORD),
                        _ => (ka.group_size[ax as usize], Opcode::GLOBAL_LOAD_USHORT),
                    };
                    match off.filter(|&o| o <= crate::asm::max_global_offset(t)) {
                        Some(off) => b.push(kernarg_load(t, op, k, tpair, off)?),
                        None if ka.dispatch_sgpr.is_some() || v5_grid_dim(&ka).is_some() => {
                            // Computed at entry from the dispatch packet
                            // or the v5 count and remainder (t2 holds the
                            // saver's area).
                            let base = match *a {
                                Arg::GridDim(_) => SAVED_GRID_DIM,
                                _ => SAVED_BLOCK_DIM,
                            };
                            b.push(build(
                                t,
                                Opcode::S_MOV_B32,
                                &[sreg(t2, 1), konst(area.wrapping_sub(self.kernarg_back))],
                            )?);
                            b.push(load_dword(t, k, t2, base + 4 * u32::from(ax))?);
                        }
                        None => {
                            return Err(self.fail(format!(
                                "the kernel has neither the {} hidden argument (code object v5) nor a dispatch pointer",
                                if matches!(a, Arg::GridDim(_)) { "hidden_block_count" } else { "hidden_group_size" }
                            )))
                        }
                    }
                }
                Arg::Kernarg { offset, wide } => {
                    let size = kargs.map_or(0, |k| k.size);
                    let need = offset + if wide { 8 } else { 4 };
                    if need > size || offset >= 4096 {
                        return Err(self.fail(format!(
                            "kernarg offset {offset} is outside the kernel's {size}-byte kernarg segment"
                        )));
                    }
                    let op = if wide {
                        Opcode::GLOBAL_LOAD_DWORDX2
                    } else {
                        Opcode::GLOBAL_LOAD_DWORD
                    };
                    b.push(kernarg_load(t, op, k, tpair, offset)?);
                }
            }
        }
        if pending_kernarg {
            b.push(waitcnt(t, 0, 15)?);
        }
        debug_assert_eq!(v, nargv);
        Ok(())
    }

    /// VGPRs the arguments take.
    pub fn arg_vgprs(&self) -> u16 {
        self.args.iter().map(|a| a.ty().vgprs()).sum()
    }
    /// The kernarg-pointer pair's first VGPR (after the arguments).
    fn tmp_pair(&self) -> u16 {
        self.arg_vgprs().next_multiple_of(2)
    }
    /// VGPRs the probe may save at a site: clobbers, argument and
    /// temporary VGPRs, the lane-mode state VGPR.
    fn save_vgpr_slots(&self) -> u32 {
        let mut v = self.info.clobbers;
        v.add(RegRange::vgpr(0, (self.tmp_pair() + 2) as u8));
        let n: u32 = v.v.iter().map(|w| w.count_ones()).sum();
        n + 1
    }
    /// Byte offset (in the area) of the VGPR holding saved SGPRs.
    fn sgpr_slot(&self) -> u32 {
        4 * self.save_vgpr_slots()
    }
    /// Byte offset (in the area) of the hook's stack.
    fn stack_offset(&self) -> u32 {
        (self.sgpr_slot() + 4).next_multiple_of(16)
    }
    fn fail(&self, why: String) -> BuildError {
        if let Ok(mut e) = self.error.lock() {
            if e.is_none() {
                *e = Some(HookError::Site(why));
            }
        }
        BuildError::Invalid {
            opcode: Opcode::S_SWAPPC_B64,
            words: vec![],
        }
    }
}

impl Probe for HookProbe {
    fn slot_bytes(&self) -> u32 {
        0
    }
    fn scratch_bytes(&self) -> u32 {
        self.stack_offset() + self.info.frame.next_multiple_of(16) + 16
    }
    fn calls_external(&self) -> bool {
        true
    }
    fn scratch_at_stack_pointer(&self) -> bool {
        !self.args.iter().any(|a| a.kernarg_arg())
    }
    fn emit(&self, cx: &ProbeCx<'_>, out: &mut Vec<Instruction>) -> Result<(), BuildError> {
        let mut syms = Vec::new();
        self.emit_linked(cx, out, &mut syms)
    }
    fn emit_linked(
        &self,
        cx: &ProbeCx<'_>,
        out: &mut Vec<Instruction>,
        syms: &mut Vec<SymRef>,
    ) -> Result<(), BuildError> {
        let t = cx.target;
        let r = cx.regs;
        let Some(sc) = cx.scratch else {
            return Err(self.fail("no scratch for the hook's frame".into()));
        };
        let (e, tp, t2, scc) = (r.save, r.tmp, r.t2, r.scc);
        let w = r.vtmp;
        let area = sc.area;
        let live = cx.live;
        // The area is above the kernel's stack pointer (dynamic stack).
        let sp = cx.scratch_sp;
        if sp && !sc.architected {
            return Err(
                self.fail("stack-pointer-relative scratch needs architected flat scratch".into())
            );
        }
        let nargv = self.arg_vgprs();
        let tpair = self.tmp_pair();
        // Registers the probe writes before the call (besides reserved ones).
        let mut setup = RegSet::default();
        setup.add(RegRange::vgpr(0, (tpair + 2) as u8));
        setup.add(RegRange::sgpr(30, 3));
        setup.add(RegRange::sgpr(CALL, 2));
        if !sc.architected {
            setup.add(RegRange::sgpr(0, 4));
        }
        let clob = self.info.clobbers.union(&setup);
        if (0..4).any(|k| clob.a[k] & live.a[k] != 0) {
            return Err(self.fail(format!(
                "the hook clobbers AGPRs live at the site at {:#x}",
                cx.pc
            )));
        }
        let mut reserved = RegSet::default();
        for s in [e, tp, t2] {
            reserved.add(RegRange::sgpr(s, 2));
        }
        reserved.add(RegRange::sgpr(scc, 1));
        reserved.add(RegRange::sgpr(r.ptr, 2));
        reserved.add(RegRange::EXEC);
        // VGPRs to save: live and clobbered, sources the set-up would
        // overwrite first, the lane-mode state VGPR.
        let mut save_v: Vec<u16> = (0..256u16)
            .filter(|&v| v != w && live.has_vgpr(v) && clob.has_vgpr(v))
            .collect();
        for a in &self.args {
            let src = match a {
                Arg::Vgpr(v) => vec![*v],
                Arg::Vaddr => addr_operand(&cx.inst)
                    .map(|(v, _)| (v.first..v.first + u16::from(v.count)).collect())
                    .unwrap_or_default(),
                _ => vec![],
            };
            for v in src {
                if v < tpair + 2 && !save_v.contains(&v) {
                    save_v.push(v);
                }
            }
        }
        if let Some(vs) = r.vstate {
            if !save_v.contains(&vs) && vs != w {
                save_v.push(vs);
            }
        }
        if save_v.len() as u32 > self.save_vgpr_slots() {
            return Err(self.fail("too many VGPRs to save".into()));
        }
        let slot_of =
            |v: u16| -> Option<u32> { save_v.iter().position(|&x| x == v).map(|k| 4 * k as u32) };
        // SGPRs to save (SCC separately).
        let save_s: Vec<u16> = (0..128u16)
            .filter(|&s| {
                live.has_sreg(s)
                    && clob.has_sreg(s)
                    && !reserved.has_sreg(s)
                    && !(102..104).contains(&s)
            })
            .collect();
        // The lanes of `w` past the saved SGPRs: the site's EXEC (two) and
        // SCC, in the wave's last three lanes.
        let lanes = t.wave_size();
        let (exec_lane, scc_lane) = (lanes - 3, lanes - 1);
        if save_s.len() as u32 > exec_lane {
            return Err(self.fail(format!(
                "too many SGPRs to save ({}; a wave{lanes} VGPR holds {exec_lane})",
                save_s.len()
            )));
        }
        let sgpr_slot = self.sgpr_slot();
        let enc = |i: Result<Instruction, BuildError>| i;
        let mut body: Vec<Instruction> = Vec::new();
        let b = &mut body;
        b.push(enc(waitcnt(t, 0, 0))?);
        if live.scc {
            b.push(build(
                t,
                Opcode::S_CSELECT_B32,
                &[sreg(scc, 1), Operand::Int(1), Operand::Int(0)],
            )?);
        }
        b.push(mask_mov(t, mask_reg(t, e), exec_mask(t))?);
        b.push(mask_mov(t, exec_mask(t), Operand::Int(-1))?);
        b.push(area_base(t, tp, area, sp)?);
        for &v in &save_v {
            let off = slot_of(v).unwrap_or(0);
            b.push(store_dword(t, v, tp, off)?);
        }
        for (k, &s) in save_s.iter().enumerate() {
            b.push(build(
                t,
                Opcode::V_WRITELANE_B32,
                &[vreg(w, 1), sreg(s, 1), konst(k as u32)],
            )?);
        }
        if live.scc {
            b.push(build(
                t,
                Opcode::V_WRITELANE_B32,
                &[vreg(w, 1), sreg(scc, 1), konst(scc_lane)],
            )?);
        }
        // The site's EXEC, for after the call.
        for k in 0..2 {
            b.push(build(
                t,
                Opcode::V_WRITELANE_B32,
                &[vreg(w, 1), sreg(e + k, 1), konst(exec_lane + u32::from(k))],
            )?);
        }
        b.push(store_dword(t, w, tp, sgpr_slot)?);
        b.push(mask_mov(t, exec_mask(t), mask_reg(t, e))?);
        if self.inactive_waves {
            // No active lane: call in lane 0.
            let (cmp, sel) = if mask_sgprs(t) == 1 {
                (Opcode::S_CMP_EQ_U32, Opcode::S_CSELECT_B32)
            } else {
                (Opcode::S_CMP_EQ_U64, Opcode::S_CSELECT_B64)
            };
            b.push(build(t, cmp, &[mask_reg(t, e), Operand::Int(0)])?);
            b.push(build(
                t,
                sel,
                &[exec_mask(t), Operand::Int(1), mask_reg(t, e)],
            )?);
        }
        // Arguments.
        self.emit_args(cx, (area, e, tp, t2, tpair, nargv), &reserved, &slot_of, b)?;
        // Scratch descriptor (first: in lane mode its quad is borrowed per
        // site and may be s[32:35]), stack pointer, call.
        if let (false, Some(q)) = (sc.architected, sc.rsrc) {
            if q != 0 {
                b.push(build(t, Opcode::S_MOV_B64, &[sreg(0, 2), sreg(q, 2)])?);
                b.push(build(t, Opcode::S_MOV_B64, &[sreg(2, 2), sreg(q + 2, 2)])?);
            }
        } else if !sc.architected {
            return Err(self.fail("no scratch buffer descriptor at the site".into()));
        }
        let stack = ScratchCx {
            area: area + self.stack_offset(),
            ..sc
        };
        if sp {
            // Per lane (architected): the hook's frame above the kernel's.
            b.push(build(
                t,
                Opcode::S_ADD_U32,
                &[sreg(32, 1), sreg(32, 1), Operand::Literal(stack.area)],
            )?);
        } else {
            b.push(build(
                t,
                Opcode::S_MOV_B32,
                &[sreg(32, 1), Operand::Literal(stack.stack_pointer())],
            )?);
        }
        let g = b.len();
        // The target in s[4:5] (saved when live; a probe register there
        // is no longer needed once the arguments are set).
        b.push(build(t, Opcode::S_GETPC_B64, &[sreg(CALL, 2)])?);
        b.push(build(
            t,
            Opcode::S_ADD_U32,
            &[sreg(CALL, 1), sreg(CALL, 1), Operand::Literal(0)],
        )?);
        b.push(build(
            t,
            Opcode::S_ADDC_U32,
            &[sreg(CALL + 1, 1), sreg(CALL + 1, 1), Operand::Literal(0)],
        )?);
        let add = g + 1;
        b.push(build(
            t,
            Opcode::S_SWAPPC_B64,
            &[sreg(30, 2), sreg(CALL, 2)],
        )?);
        if sp {
            // The callee preserved s32: back to the kernel's.
            b.push(build(
                t,
                Opcode::S_SUB_U32,
                &[sreg(32, 1), sreg(32, 1), Operand::Literal(stack.area)],
            )?);
        }
        // Restore (the site's EXEC comes back from the saved lanes).
        b.push(mask_mov(t, exec_mask(t), Operand::Int(-1))?);
        b.push(area_base(t, tp, area, sp)?);
        b.push(load_dword(t, w, tp, sgpr_slot)?);
        for &v in &save_v {
            b.push(load_dword(t, v, tp, slot_of(v).unwrap_or(0))?);
        }
        b.push(waitcnt(t, 0, 15)?);
        for k in 0..2 {
            b.push(build(
                t,
                Opcode::V_READLANE_B32,
                &[sreg(e + k, 1), vreg(w, 1), konst(exec_lane + u32::from(k))],
            )?);
        }
        for (k, &s) in save_s.iter().enumerate() {
            b.push(build(
                t,
                Opcode::V_READLANE_B32,
                &[sreg(s, 1), vreg(w, 1), konst(k as u32)],
            )?);
        }
        if live.scc {
            b.push(build(
                t,
                Opcode::V_READLANE_B32,
                &[sreg(scc, 1), vreg(w, 1), konst(scc_lane)],
            )?);
        }
        b.push(mask_mov(t, exec_mask(t), mask_reg(t, e))?);
        if live.scc {
            b.push(build(
                t,
                Opcode::S_CMP_LG_U32,
                &[sreg(scc, 1), Operand::Int(0)],
            )?);
        }
        // VALU-written SGPRs read by VMEM: 5 wait states on GFX9.
        b.push(build(t, Opcode::S_NOP, &[Operand::Imm(4)])?);
        // Skip everything when no lane is active.
        let words: usize = body.iter().map(|i| i.len() / 4).sum();
        let skip =
            i16::try_from(words).map_err(|_| self.fail("hook call sequence too long".into()))?;
        let mut base = out.len();
        if !self.inactive_waves {
            out.push(build(t, Opcode::S_CBRANCH_EXECZ, &[Operand::Branch(skip)])?);
            base += 1;
        }
        out.extend(body);
        syms.push(SymRef {
            getpc: base + g,
            add: base + add,
            symbol: self.symbol.clone(),
        });
        Ok(())
    }
}

/// `s[base]` = the area's per-lane offset: `area`, or `s32 + area` when
/// the area is relative to the stack pointer (clobbers SCC, saved first).
fn area_base(t: Target, base: u16, area: u32, sp: bool) -> Result<Instruction, BuildError> {
    if sp {
        build(
            t,
            Opcode::S_ADD_U32,
            &[sreg(base, 1), sreg(32, 1), konst(area)],
        )
    } else {
        build(t, Opcode::S_MOV_B32, &[sreg(base, 1), konst(area)])
    }
}

/// `global_load_* v[dst], v[ptr:ptr+1], off offset:off`.
fn kernarg_load(
    t: Target,
    op: Opcode,
    dst: u16,
    ptr: u16,
    off: u32,
) -> Result<Instruction, BuildError> {
    let mut m = Modifiers::default();
    m.offset = off as i32;
    let n = if op == Opcode::GLOBAL_LOAD_DWORDX2 {
        2
    } else {
        1
    };
    build_m(t, op, &m, &[vreg(dst, n), vreg(ptr, 2), Operand::Off])
}

/// The VGPR address operand of a memory instruction and its SGPR base
/// (`saddr`), if any.
fn addr_operand(i: &Instruction) -> Option<(RegRange, Option<u16>)> {
    use lathe_isa::Field;
    let ops = i.operands();
    let by = |f: Field| ops.iter().find(|o| o.spec.field == f).map(|o| o.value);
    let va = match by(Field::Addr) {
        Some(Operand::Reg(a)) if a.file == RegFile::Vgpr => a,
        _ => return None,
    };
    let sa = match by(Field::Saddr) {
        Some(Operand::Reg(s)) if s.file == RegFile::Scalar && s.count == 2 => Some(s.first),
        _ => None,
    };
    Some((va, sa))
}

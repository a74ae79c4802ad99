//! Sites: where probes go ([`Where`]) and which instructions a request
//! selects ([`Selector`], [`InstClass`]); the sites a rewrite made
//! ([`Site`]).

use std::sync::Arc;

use lathe_isa::{Instruction, RegFile, RegRange};
use regex::Regex;

use super::probe::Probe;

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
                inst.encoding().family(),
                E::Sop1 | E::Sop2 | E::Sopc | E::Sopk | E::Sopp
            ),
            InstClass::Valu => inst.encoding().is_valu(),
            InstClass::Smem => crate::asm::memory_class(inst) == M::Scalar,
            InstClass::Vmem => matches!(
                crate::asm::memory_class(inst),
                M::Global | M::Flat | M::Scratch | M::Buffer | M::Image
            ),
            InstClass::Lds => matches!(crate::asm::memory_class(inst), M::Lds | M::Gds),
            InstClass::Memory => crate::asm::memory_class(inst) != M::None,
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
    pub(crate) fn inst_matches(&self, addr: u64, inst: &Instruction, exec_write: bool) -> bool {
        self.class.is_none_or(|c| match c {
            InstClass::ExecWrite => exec_write,
            c => c.matches(inst),
        }) && self
            .opcode
            .as_ref()
            .is_none_or(|r| r.is_match(inst.info().name()))
            && self.range.is_none_or(|(lo, hi)| lo <= addr && addr < hi)
            && self.skip.as_ref().is_none_or(|s| !s.contains(&addr))
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

//! The wave64 interpreter: executes decoded GFX9 instructions
//! ([`lathe_isa`]) on a [`Wave`], with memory through [`MemView`].
//!
//! Semantics are chosen once per opcode from its typed description
//! ([`lathe_isa::sem`], generated with the decoder's tables) by an
//! exhaustive `match` (`handler_for`), so the same `v_add_f32` handler
//! serves the VOP2 and VOP3 forms, reading operands and source modifiers
//! from the decoded instruction, and generic handlers read their operation
//! from the description (`Ctx::sem`). An opcode without a handler stops
//! the dispatch with [`Stop::Unsupported`]; nothing is ever silently
//! skipped.
//!
//! Speed: each address is decoded once (`DecodeCache`: a table per code
//! page, so a lookup in a loop is a compare and two loads) into a
//! `Decoded` entry whose hot part is resolved then: the handler (by opcode
//! number), the count slot, the length (fall-through address), the branch
//! target, flags saying which per-instruction checks apply (float MODE,
//! `s_waitcnt`, SDWA/DPP, GPR indexing), the explicit operand positions and
//! every constant source splatted to 64 lanes. `Step::run` executes a
//! wave's instructions back to back over these entries. Lane handlers work
//! on whole waves: VGPR sources read in place (constants from the decoded
//! entry, scalars splatted into per-thread buffers), every lane computed by
//! a loop in [`crate::lanes`] (compiled for AVX2/FMA too, chosen at run
//! time), a full-EXEC VGPR result written as one copy, otherwise EXEC
//! applied as a blend. Whole-dword memory accesses go straight between the
//! register file and memory when one bounds check covers the wave, and
//! take the lane-by-lane path (which reports faults) otherwise.
//!
//! The commonest VALU, SALU and branch instructions also have a fast-tier
//! µop ([`fast`], D16): `Step::run` follows those back to back (the
//! whole-wave ones while EXEC is full), each computing straight into its
//! destination, and hands anything else to the general handlers described
//! above.
//!
//! Where semantics live, by family: `control` (SOPP: branches, barrier,
//! `s_endpgm`, messages), `salu` (SOP1/SOP2/SOPC/SOPK), `smem` (scalar
//! loads), `valu` (VOP1/VOP2/VOP3/VOP3P and the float MODE: an
//! exhaustive `match` on the `Sem::Valu` row naming each row's operand
//! shape and its one `alu` lane function), `vop` (the generic handlers of
//! those shapes: operand fetch, the lane loop, the EXEC-masked write),
//! `cmp` (`v_cmp*` in every form), `mfma`, `vmem` (FLAT/GLOBAL/SCRATCH and
//! MUBUF), `ds` (LDS), `sdwa` (SDWA and DPP wrappers); operand reads
//! and writes are in `regs`. This module holds the dispatch: the decode
//! cache, the handler table and the interpreter loop ([`Step::run`]).
//!
//! Address spaces follow the GFX9 flat model: flat addresses inside the
//! shared aperture go to LDS, inside the private aperture to the lane's
//! scratch, anything else to device memory (bounds-checked). Scratch is a
//! real allocation, swizzled per dword across the 64 lanes as hardware does
//! for the private segment buffer, so stack pointers (`s32`, wave-scaled)
//! and private-to-generic casts behave as on hardware.

use crate::hash::AddrMap;
use std::collections::HashMap;
use std::sync::OnceLock;

use lathe_isa::sem::{self, Clock, Cond, Control, MemOp, Packed, Salu, Sem, Space, Valu};
use lathe_isa::{
    decode, Encoding, Field, Instruction, Op, Opcode, Operand, RegFile, RegRange, Target, Ty,
};

use crate::alu;
use crate::check::{Access, Kind};
use crate::lanes;
use crate::mem::{rmw, AccessKind, AtomicOp, Fault, MemView};
use crate::wave::{Flow, Step, VReg, Wave, WaveSize, LANES};

mod buffer_atomic;
mod cmp;
mod control;
mod ds;
mod fast;
mod gfx950;
pub use gfx950::has_semantics_on;
mod gpr_idx;
mod mfma;
mod regs;
mod salu;
mod sdwa;
mod smem;
mod smem_rw;
mod t16;
mod valu;
mod valu_ext;
mod vmem;
mod vmem_race;
mod vmem_typed;
mod vop;
mod vopd;

use ds::*;
use mfma::*;
use regs::*;
use salu::*;
use sdwa::*;
use valu::*;
use vmem::*;

/// Base of the shared (LDS) aperture in flat address space.
pub const SHARED_APERTURE: u64 = 0x1000_0000_0000_0000;
/// Base of the private (scratch) aperture in flat address space.
pub const PRIVATE_APERTURE: u64 = 0x2000_0000_0000_0000;
const APERTURE_SIZE: u64 = 1 << 32;

/// Which wave stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaveId {
    /// Work-group ID.
    pub workgroup: [u32; 3],
    /// Wave index within the work-group.
    pub wave: u32,
}

/// Why a dispatch stopped early.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Stop {
    /// A memory access outside every allocation (or LDS/scratch bounds).
    #[error("{fault} (wave {wave:?}, pc {pc:#x}: {inst})")]
    Fault {
        /// The fault.
        fault: Fault,
        /// Address of the faulting instruction.
        pc: u64,
        /// The wave.
        wave: WaveId,
        /// The instruction text.
        inst: String,
        /// The first faulting lane, when the access is per lane (global
        /// gathers and scatters); `None` for scalar and fetch faults.
        lane: Option<u32>,
    },
    /// An access to LDS outside the work-group's allocation.
    #[error("LDS fault: {kind} of {size} bytes at LDS offset {offset:#x} outside the {lds_size}-byte allocation (wave {wave:?}, pc {pc:#x}: {inst})")]
    LdsFault {
        /// LDS byte offset.
        offset: u64,
        /// Access size.
        size: u32,
        /// Access kind.
        kind: AccessKind,
        /// LDS bytes allocated.
        lds_size: usize,
        /// Instruction address.
        pc: u64,
        /// The wave.
        wave: WaveId,
        /// The instruction text.
        inst: String,
    },
    /// The emulator has no semantics for this instruction.
    #[error("unsupported instruction {inst} at pc {pc:#x} (wave {wave:?})")]
    Unsupported {
        /// Instruction text.
        inst: String,
        /// Address.
        pc: u64,
        /// The wave.
        wave: WaveId,
    },
    /// Words that do not decode.
    #[error("invalid instruction {inst} at pc {pc:#x} (wave {wave:?})")]
    Invalid {
        /// As printed (`.long 0x...`).
        inst: String,
        /// Address.
        pc: u64,
        /// The wave.
        wave: WaveId,
    },
    /// A register used before the memory access producing it is known
    /// to have completed: on hardware the kernel would read stale data or
    /// lose the write.
    #[error("missing s_waitcnt: `{inst}` at pc {pc:#x} {hazard} (wave {wave:?})")]
    MissingWait {
        /// What was used and what it waits for.
        hazard: Box<crate::waitcnt::Hazard>,
        /// Address of the using instruction.
        pc: u64,
        /// The wave.
        wave: WaveId,
        /// The using instruction.
        inst: String,
    },
    /// `s_trap`.
    #[error("s_trap {code} at pc {pc:#x} (wave {wave:?})")]
    Trap {
        /// Trap ID.
        code: u32,
        /// Address.
        pc: u64,
        /// The wave.
        wave: WaveId,
    },
    /// The watchdog fired: the dispatch ran longer than its time limit
    /// (an endless loop?). Names where every unfinished wave was.
    #[error("watchdog: kernel still running after {limit:?}; {} unfinished wave(s){}{}",
        waves.len(),
        if *not_started > 0 { format!(" and {not_started} work-group(s) not started") } else { String::new() },
        waves.iter().map(|w| format!("\n  {w}")).collect::<String>())]
    Timeout {
        /// The time limit.
        limit: std::time::Duration,
        /// The waves that had not ended, in work-group order.
        waves: Vec<WaveAt>,
        /// Work-groups that had not started.
        not_started: u64,
    },
    /// The process was interrupted ([`crate::interrupt::interrupt`], from a
    /// SIGINT or SIGTERM handler): names where every unfinished wave was.
    #[error("interrupted by signal {signal}; {} unfinished wave(s){}{}",
        waves.len(),
        if *not_started > 0 { format!(" and {not_started} work-group(s) not started") } else { String::new() },
        waves.iter().map(|w| format!("\n  {w}")).collect::<String>())]
    Interrupted {
        /// The signal number.
        signal: i32,
        /// The waves that had not ended, in work-group order.
        waves: Vec<WaveAt>,
        /// Work-groups that had not started.
        not_started: u64,
    },
    /// The instruction budget ran out (an endless loop?).
    #[error("instruction budget exhausted at pc {pc:#x} (wave {wave:?})")]
    Budget {
        /// Address of the next instruction.
        pc: u64,
        /// The wave.
        wave: WaveId,
    },
}

/// Where an unfinished wave was when the watchdog fired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaveAt {
    /// The wave.
    pub wave: WaveId,
    /// Address of its next instruction.
    pub pc: u64,
    /// That instruction, as printed.
    pub inst: String,
    /// Wave-instructions it had executed.
    pub instructions: u64,
    /// Whether it was waiting at `s_barrier`.
    pub at_barrier: bool,
}

impl std::fmt::Display for WaveAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "work-group {:?} wave {}: pc {:#x} `{}` after {} wave-instructions{}",
            self.wave.workgroup,
            self.wave.wave,
            self.pc,
            self.inst,
            self.instructions,
            if self.at_barrier {
                " (waiting at s_barrier)"
            } else {
                ""
            }
        )
    }
}

/// Per-thread execution context shared by the waves it runs.
pub struct Exec<'m> {
    /// What instruction handlers see.
    core: Core<'m>,
    /// ISA target.
    pub target: Target,
    /// Wave-instructions executed, per opcode index (last slot: invalid).
    pub counts: Vec<u64>,
    /// Report a use of a memory result before the `s_waitcnt` that
    /// guarantees it ([`crate::waitcnt`]) as [`Stop::MissingWait`].
    pub check_waitcnt: bool,
    /// The watchdog: stop every work-group still running at this instant
    /// with [`Stop::Timeout`].
    pub deadline: Option<(std::time::Instant, std::time::Duration)>,
    ticks: u32,
    /// `LATHE_TRACE` is set.
    trace: bool,
    cache: DecodeCache,
    /// Ground-truth recording ([`crate::record`]); `None` costs one branch
    /// per instruction.
    pub recorder: Option<Box<crate::record::Recorder>>,
    /// Run the instructions that have one as fast-tier µops ([`fast`]);
    /// off, every instruction goes through its general handler (the
    /// results are the same: the differential tests compare both).
    pub fast: bool,
    /// Wave-instructions that ran as fast-tier µops, per opcode index as
    /// [`Exec::counts`] (`None`, the default: not counted, at no cost).
    pub uop_counts: Option<Vec<u64>>,
}

/// The part of [`Exec`] instruction handlers use (kept apart from the
/// decode cache so a handler runs on a cached entry without copying it).
struct Core<'m> {
    view: MemView<'m>,
    /// Ground-truth access log ([`crate::record`]), when recording.
    mem_log: Option<Vec<crate::record::MemAccess>>,
    /// Receives `s_sendmsg sendmsg(MSG_INTERRUPT)` with M0.
    interrupt: Option<fn(u32)>,
    /// Lane buffers the handlers compute in ([`Bufs`]).
    bufs: Box<Bufs>,
    /// initcheck's LDS shadow for the work-group running: a byte per LDS
    /// byte, non-zero once written (empty when initcheck is off).
    lds_shadow: Vec<u8>,
    /// racecheck's LDS shadow ([`crate::check::race`]), when racecheck
    /// runs.
    race: Option<Box<crate::check::race::Race>>,
    /// racecheck on global memory ([`crate::check::global`]), when it
    /// runs: this thread's side of the dispatch's shadow.
    global: Option<Box<crate::check::global::Local>>,
}

/// What `step` needs of the instruction at one address, worked out the
/// first time the address executes: the decoded instruction, its operand
/// list, its handler, whether it is a float op or bumps a counter, and the
/// registers it touches (for the `s_waitcnt` check).
///
/// The fields `step` reads for every instruction come first and are
/// resolved at decode: the handler (chosen by opcode number), the slot in
/// the per-opcode counts, the length (the fall-through address) and the
/// [`flags`] that decide which per-instruction checks apply.
struct Decoded {
    handler: Option<Handler>,
    /// What the instruction does ([`lathe_isa::sem`]).
    sem: Sem,
    /// Index into `Exec::counts`.
    slot: u32,
    /// Length in bytes.
    len: u32,
    /// [`flags`].
    flags: u8,
    /// Direct branch target.
    target: Option<u64>,
    inst: Instruction,
    ops: OpList,
    /// Constant sources, splatted.
    consts: Option<Box<Consts>>,
    regs: crate::waitcnt::Regs,
}

/// What a [`Decoded`] instruction needs of `step`, as bits.
mod flags {
    /// Words that do not decode.
    pub const INVALID: u8 = 1;
    /// Float semantics (checked against MODE).
    pub const FLOAT: u8 = 2;
    /// MFMA/SMFMAC (modelled under the default MODE only).
    pub const MFMA: u8 = 4;
    /// Charged to a wait counter (`s_waitcnt` tracking).
    pub const COUNTERS: u8 = 8;
    /// `s_waitcnt`.
    pub const WAITCNT: u8 = 16;
    /// VALU encoding (re-indexed by `s_set_gpr_idx_on`).
    pub const VALU: u8 = 32;
    /// SDWA form.
    pub const SDWA: u8 = 64;
    /// DPP form.
    pub const DPP: u8 = 128;
}

/// Decoded instructions by address: each instruction is decoded the first
/// time it executes, into an arena; a table per 4 KiB code page maps
/// dword offsets to arena slots, and the page last used is remembered, so
/// a lookup in a loop is a compare and two loads.
struct DecodeCache {
    arena: Vec<Decoded>,
    /// The µop record ([`fast::Rec`]) of each arena entry, same index:
    /// what the µop loop reads, apart from the large decoded form.
    recs: Vec<fast::Rec>,
    /// Scratch for µops under a partial EXEC ([`fast::Save`]).
    save: Box<fast::Save>,
    /// Per code page: arena index + 1 per dword (0: not decoded yet).
    tables: Vec<Box<[u32; 1024]>>,
    /// Page number (address >> 12) to its table.
    pages: AddrMap<u64, usize>,
    /// Misaligned addresses (only a computed jump gets there).
    odd: AddrMap<u64, usize>,
    /// The page last looked up and its table.
    last: (u64, usize),
}

impl Default for DecodeCache {
    fn default() -> Self {
        DecodeCache {
            arena: Vec::new(),
            recs: Vec::new(),
            save: Box::new([[0; crate::wave::LANES]; 2]),
            tables: Vec::new(),
            pages: HashMap::default(),
            odd: HashMap::default(),
            last: (u64::MAX, 0),
        }
    }
}

impl DecodeCache {
    /// The arena slot of the instruction decoded at `pc`.
    #[inline]
    fn find(&mut self, pc: u64) -> Option<usize> {
        if pc & 3 != 0 {
            return self.odd.get(&pc).copied();
        }
        let page = pc >> 12;
        let t = if page == self.last.0 {
            self.last.1
        } else {
            let t = *self.pages.get(&page)?;
            self.last = (page, t);
            t
        };
        let k = self.tables.get(t)?[((pc & 0xfff) >> 2) as usize];
        k.checked_sub(1).map(|k| k as usize)
    }

    #[inline]
    fn get(&self, k: usize) -> &Decoded {
        &self.arena[k]
    }

    /// Records `d`, with its µop record `r`, as the instruction at `pc`
    /// (not yet recorded); returns its arena slot.
    fn insert(&mut self, pc: u64, d: Decoded, r: fast::Rec) -> usize {
        let k = self.arena.len();
        self.arena.push(d);
        self.recs.push(r);
        if pc & 3 != 0 {
            self.odd.insert(pc, k);
        } else {
            let n = self.tables.len();
            let t = *self.pages.entry(pc >> 12).or_insert(n);
            if t == n {
                self.tables.push(Box::new([0; 1024]));
            }
            self.tables[t][((pc & 0xfff) >> 2) as usize] = k as u32 + 1;
        }
        k
    }
}

impl std::fmt::Debug for Exec<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exec")
            .field("target", &self.target)
            .finish()
    }
}

type Handler = fn(&mut Core<'_>, &mut Wave, &mut [u8], &Instruction, &Ctx) -> Result<Flow, Stop>;

/// Decoded operands (copied so wrappers can substitute staged ones) and
/// where the instruction is.
struct Ctx<'a> {
    pc: u64,
    /// What the instruction does: generic handlers read their operation
    /// from it.
    sem: Sem,
    ops: &'a OpList,
    /// The branch target of a direct branch (worked out at decode).
    target: Option<u64>,
    /// Constant sources splatted at decode (`None` when the operands were
    /// substituted, as the SDWA/DPP wrappers do).
    consts: Option<&'a Consts>,
}

/// The constant (inline or literal) sources among the first three of a
/// decoded instruction, splatted to every lane once, at decode, as
/// [`src_ref`] would splat them per execution.
struct Consts {
    rows: [VReg; 3],
    /// Bit `k`: source `k` is one of them.
    mask: u8,
}

impl Consts {
    /// The splatted constant sources of `ops`, if it has any.
    fn of(ops: &OpList) -> Option<Box<Consts>> {
        let mut c = Box::new(Consts {
            rows: [[0; LANES]; 3],
            mask: 0,
        });
        for k in 0..3 {
            if let Some(op) = ops.src(k) {
                if !matches!(op.value, Operand::Reg(_)) {
                    c.rows[k] = [const32(op).unwrap_or(0); LANES];
                    c.mask |= 1 << k;
                }
            }
        }
        (c.mask != 0).then_some(c)
    }
}

/// A fixed-capacity operand list, with the positions of its explicit
/// destinations and sources worked out once (implicit `vcc`/`exec`
/// operands excluded: handlers deal with those themselves).
#[derive(Clone, Copy)]
struct OpList {
    ops: [Option<Op>; lathe_isa::operand::MAX_OPERANDS],
    len: usize,
    dst: [u8; lathe_isa::operand::MAX_OPERANDS],
    src: [u8; lathe_isa::operand::MAX_OPERANDS],
    ndst: u8,
    nsrc: u8,
}

impl OpList {
    fn of(ops: &lathe_isa::Operands) -> OpList {
        let mut out = OpList {
            ops: [None; lathe_isa::operand::MAX_OPERANDS],
            len: 0,
            dst: [0; lathe_isa::operand::MAX_OPERANDS],
            src: [0; lathe_isa::operand::MAX_OPERANDS],
            ndst: 0,
            nsrc: 0,
        };
        for (k, o) in ops.as_slice().iter().enumerate().take(out.ops.len()) {
            out.ops[k] = Some(*o);
            out.len = k + 1;
        }
        out.index();
        out
    }
    /// Recomputes the destination and source positions.
    fn index(&mut self) {
        let (mut nd, mut ns) = (0, 0);
        for (k, o) in self.ops[..self.len].iter().enumerate() {
            let Some(o) = o else { continue };
            if o.field() == Field::Implicit {
                continue;
            }
            if o.access() == lathe_isa::opcode::Access::R {
                self.src[ns] = k as u8;
                ns += 1;
            } else {
                self.dst[nd] = k as u8;
                nd += 1;
            }
        }
        self.ndst = nd as u8;
        self.nsrc = ns as u8;
    }
    fn as_slice(&self) -> OpIter<'_> {
        OpIter(&self.ops[..self.len])
    }
    fn set(&mut self, k: usize, op: Op) {
        if let Some(x) = self.ops.get_mut(k) {
            *x = Some(op);
        }
        self.index();
    }
    #[inline]
    fn dst(&self, i: usize) -> Option<&Op> {
        if i < self.ndst as usize {
            self.ops[self.dst[i] as usize].as_ref()
        } else {
            None
        }
    }
    #[inline]
    fn src(&self, i: usize) -> Option<&Op> {
        if i < self.nsrc as usize {
            self.ops[self.src[i] as usize].as_ref()
        } else {
            None
        }
    }
}

/// Slice-like view of an [`OpList`].
struct OpIter<'a>(&'a [Option<Op>]);

impl<'a> OpIter<'a> {
    fn iter(&self) -> impl Iterator<Item = &'a Op> + 'a {
        self.0.iter().flatten()
    }
    fn len(&self) -> usize {
        self.0.len()
    }
    fn first(&self) -> Option<&'a Op> {
        self.0.first().and_then(|o| o.as_ref())
    }
    fn get(&self, k: usize) -> Option<&'a Op> {
        self.0.get(k).and_then(|o| o.as_ref())
    }
}

impl Ctx<'_> {
    /// Source `k`'s lanes when it is a constant splatted at decode.
    #[inline(always)]
    fn konst(&self, k: usize) -> Option<&VReg> {
        match self.consts {
            Some(c) if c.mask >> k & 1 == 1 => c.rows.get(k),
            _ => None,
        }
    }
    /// Explicit sources.
    fn srcs(&self) -> impl Iterator<Item = &Op> {
        (0..self.ops.nsrc as usize).filter_map(|i| self.ops.src(i))
    }
    #[inline]
    fn dst(&self, i: usize) -> Option<&Op> {
        self.ops.dst(i)
    }
    #[inline]
    fn src(&self, i: usize) -> Option<&Op> {
        self.ops.src(i)
    }
    fn by_field(&self, f: Field) -> Option<&Op> {
        self.ops.as_slice().iter().find(|o| o.field() == f)
    }
}

impl<'m> Exec<'m> {
    /// A context for `target`.
    pub fn new(view: MemView<'m>, target: Target) -> Self {
        Exec {
            core: Core {
                view,
                mem_log: None,
                interrupt: None,
                bufs: Box::new(Bufs::default()),
                lds_shadow: Vec::new(),
                race: None,
                global: None,
            },
            target,
            counts: vec![0; Opcode::all().count() + 1],
            check_waitcnt: true,
            deadline: None,
            ticks: 0,
            trace: trace_enabled(),
            cache: DecodeCache::default(),
            recorder: None,
            fast: true,
            uop_counts: None,
        }
    }

    /// Turns ground-truth recording on: per-PC counts and the access log.
    pub fn enable_recording(&mut self) {
        self.recorder = Some(Box::default());
        self.core.mem_log = Some(Vec::new());
    }

    /// The recording so far (counts and access log), if recording.
    pub fn take_recording(&mut self) -> Option<crate::record::Recorder> {
        let mut r = *self.recorder.take()?;
        if let Some(log) = self.core.mem_log.take() {
            r.accesses = log;
        }
        Some(r)
    }

    /// Turns the sanitizer on ([`crate::check`]): findings go to
    /// `checker`; `private_size` is a lane's private segment in bytes.
    pub fn set_check(
        &mut self,
        checker: Option<&'static crate::check::Checker>,
        private_size: u64,
    ) {
        self.core.race = checker
            .filter(|c| c.checks.racecheck)
            .map(|_| Box::default());
        self.core.view.set_check(checker.map(|c| {
            let mut v = crate::check::ViewCheck::new(c);
            v.private_size = private_size;
            Box::new(v)
        }));
    }

    /// racecheck on global memory for this dispatch (`shared`, one per
    /// dispatch), when the checker runs racecheck.
    pub fn set_global_race(
        &mut self,
        shared: Option<std::sync::Arc<crate::check::global::GlobalRace>>,
    ) {
        let checker = self.core.view.check_mut().map(|c| c.checker);
        self.core.global = match (shared, checker) {
            (Some(s), Some(c)) if c.checks.racecheck => {
                Some(Box::new(crate::check::global::Local::new(s, c)))
            }
            _ => None,
        };
    }

    /// A new work-group of `lds` LDS bytes starts: initcheck's LDS shadow
    /// is cleared and racecheck starts a new interval (nothing without
    /// them).
    pub fn start_workgroup(&mut self, lds: usize) {
        if let Some(r) = self.core.race.as_mut() {
            r.start_workgroup(lds);
        }
        if self
            .core
            .view
            .check_mut()
            .is_some_and(|c| c.checks.initcheck)
        {
            self.core.lds_shadow.clear();
            self.core.lds_shadow.resize(lds, 0);
        }
    }

    /// Sets the receiver of `s_sendmsg sendmsg(MSG_INTERRUPT)` (called with
    /// the wave's M0; `None`: the message is dropped).
    pub fn set_interrupt(&mut self, f: Option<fn(u32)>) {
        self.core.interrupt = f;
    }

    /// Decodes the instruction at `pc` (the decode cache holds the result,
    /// so this runs once per address).
    fn decode_at(
        view: &mut MemView<'_>,
        target: Target,
        pc: u64,
        w: &Wave,
    ) -> Result<(Decoded, fast::Rec), Stop> {
        let mut bytes = [0u8; 12];
        let mut n = 12;
        loop {
            let r = match n {
                12 => view.load::<12>(pc).map(|b| bytes = b),
                8 => view.load::<8>(pc).map(|b| bytes[..8].copy_from_slice(&b)),
                _ => view.load::<4>(pc).map(|b| bytes[..4].copy_from_slice(&b)),
            };
            match r {
                Ok(()) => break,
                Err(f) if n == 4 => {
                    return Err(Stop::Fault {
                        fault: f,
                        pc,
                        wave: id(w),
                        inst: "<instruction fetch>".into(),
                        lane: None,
                    })
                }
                Err(_) => n -= 4,
            }
        }
        let inst = decode(target, &bytes[..n]);
        let op = inst.opcode();
        let index = op.index() as usize;
        let wc = inst.waitcnt();
        let table = handlers();
        let invalid = op.is_invalid();
        let desc = sem::of(op);
        let float = !invalid && desc.float;
        let mfma = desc.sem == Sem::Mfma;
        let enc = inst.encoding();
        let flag = |on: bool, f: u8| if on { f } else { 0 };
        let ops = OpList::of(&inst.operands());
        let consts = Consts::of(&ops);
        let rec = fast::Rec::new(
            fast::Fast::of(&inst, pc, &ops),
            inst.len() as u32,
            inst.branch_target(pc),
        );
        let d = Decoded {
            sem: desc.sem,
            handler: if invalid {
                None
            } else {
                table.get(index).copied().flatten()
            },
            slot: if invalid {
                Opcode::all().count() as u32
            } else {
                index as u32
            },
            len: inst.len() as u32,
            flags: flag(invalid, flags::INVALID)
                | flag(float, flags::FLOAT)
                | flag(mfma, flags::MFMA)
                | flag(wc.vm || wc.lgkm || wc.exp, flags::COUNTERS)
                | flag(desc.sem == Sem::Control(Control::Waitcnt), flags::WAITCNT)
                | flag(is_valu(enc.family()), flags::VALU)
                | flag(
                    matches!(enc, Encoding::Vop1Sdwa | Encoding::Vop2Sdwa),
                    flags::SDWA,
                )
                | flag(
                    matches!(enc, Encoding::Vop1Dpp | Encoding::Vop2Dpp),
                    flags::DPP,
                ),
            target: inst.branch_target(pc),
            ops,
            consts,
            regs: crate::waitcnt::Regs::of(&inst),
            inst,
        };
        Ok((d, rec))
    }
}

/// Whether the instruction encoded at the start of `bytes` (decoded as at
/// address `pc`) runs as a fast-tier µop when the wave's EXEC is full
/// ([`Exec::fast`]); for tests and tools that check coverage.
pub fn has_fast_uop(target: Target, bytes: &[u8], pc: u64) -> bool {
    let inst = decode(target, bytes);
    fast::Fast::of(&inst, pc, &OpList::of(&inst.operands())).is_some()
}

/// Whether the emulator has semantics for `op` (an opcode without them
/// stops a dispatch with [`Stop::Unsupported`]; some forms of an opcode
/// with semantics may still stop, such as a modifier that is not modelled).
pub fn has_semantics(op: Opcode) -> bool {
    !op.is_invalid()
        && handlers()
            .get(usize::from(op.index()))
            .is_some_and(|h| h.is_some())
        && vmem::runs(op)
}

/// `LATHE_TRACE=1` prints every executed instruction with its wave, PC
/// and EXEC on stderr (for debugging kernels and the emulator).
fn trace_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("LATHE_TRACE").is_some_and(|v| v != "0"))
}

fn id(w: &Wave) -> WaveId {
    WaveId {
        workgroup: w.workgroup,
        wave: w.index,
    }
}

fn unsupported(w: &Wave, inst: &Instruction, pc: u64) -> Stop {
    Stop::Unsupported {
        inst: inst.to_string(),
        pc,
        wave: id(w),
    }
}

fn fault(w: &Wave, inst: &Instruction, pc: u64, f: Fault) -> Stop {
    Stop::Fault {
        fault: f,
        pc,
        wave: id(w),
        inst: inst.to_string(),
        lane: None,
    }
}

/// [`fault`] of one lane of a wave-wide access.
fn lane_fault(w: &Wave, inst: &Instruction, pc: u64, (lane, f): (usize, Fault)) -> Stop {
    Stop::Fault {
        fault: f,
        pc,
        wave: id(w),
        inst: inst.to_string(),
        lane: Some(lane as u32),
    }
}

// ---------------------------------------------------------------- handler table

/// The handler of every opcode, chosen by its description
/// ([`lathe_isa::sem`]), built once.
fn handlers() -> &'static [Option<Handler>] {
    static T: OnceLock<Vec<Option<Handler>>> = OnceLock::new();
    T.get_or_init(|| {
        Opcode::all()
            .map(|o| {
                let h = handler_for(o.info().enc, sem::of(o).sem);
                // GFX11's true16 rows: the row's handler on the halves
                // the operands name (`t16`).
                if h.is_some()
                    && matches!(sem::of(o).sem, Sem::Valu(_) | Sem::Cmp(_))
                    && o.info().enc != Encoding::VopdX
                    && t16::has_t16(o)
                {
                    Some(t16::t16 as Handler)
                } else {
                    h
                }
            })
            .collect()
    })
}

fn is_valu(e: Encoding) -> bool {
    matches!(
        e,
        Encoding::Vop1
            | Encoding::Vop2
            | Encoding::Vopc
            | Encoding::Vop3
            | Encoding::Vop3p
            | Encoding::Vop1Sdwa
            | Encoding::Vop2Sdwa
            | Encoding::Vop1Dpp
            | Encoding::Vop2Dpp
    )
}

/// Applies `s_set_gpr_idx_on` relative addressing to VGPR operands.
fn index_operands(ops: &mut OpList, mask: u8, idx: u32) {
    for k in 0..ops.len {
        let Some(mut op) = ops.ops[k] else { continue };
        let bit = match op.field() {
            Field::Src0 => 0,
            Field::Src1 | Field::Vsrc1 => 1,
            Field::Src2 => 2,
            Field::Vdst => 3,
            _ => continue,
        };
        if mask >> bit & 1 == 0 {
            continue;
        }
        if let Operand::Reg(mut r) = op.value {
            if r.file == RegFile::Vgpr {
                r.first = r.first.wrapping_add(idx as u16);
                op.value = Operand::Reg(r);
                ops.ops[k] = Some(op);
            }
        }
    }
}
/// The handler of an instruction that `sem` describes (`None`: no
/// semantics; the description's `Unsupported` reasons and the operations
/// not modelled yet).
fn handler_for(enc: Encoding, sem: Sem) -> Option<Handler> {
    match sem {
        // VOPD: the X row's handler runs both halves (`vopd`).
        Sem::Valu(_) if enc == Encoding::VopdX => Some(vopd::vopd),
        Sem::Valu(op) => valu::handler(op),
        // VOPC SDWA writes a lane mask with its own sdst rules.
        Sem::Cmp(_) if enc == Encoding::VopcSdwa => Some(cmp::vcmp_sdwa),
        Sem::Cmp(c) => cmp::handler(c),
        Sem::Packed(Packed::FmaF32) => Some(vop3p_f32::<0>),
        Sem::Packed(Packed::MulF32) => Some(vop3p_f32::<1>),
        Sem::Packed(Packed::AddF32) => Some(vop3p_f32::<2>),
        Sem::Packed(Packed::MovB32) => Some(pk_mov_b32),
        Sem::Packed(_) => Some(vop3p),
        Sem::Mfma => Some(mfma_op),
        Sem::Salu(op) => salu::handler(op),
        Sem::SCmp(_) => Some(salu::scmp),
        Sem::Mem(m) => match (m.space, m.op) {
            (Space::Flat | Space::Global | Space::Scratch, _) => Some(vmem),
            (Space::Buffer | Space::TypedBuffer, MemOp::Load | MemOp::Store) => Some(mubuf),
            (Space::Buffer, MemOp::Atomic(_)) => Some(buffer_atomic::mubuf_atomic),
            (Space::Lds, _) => Some(ds),
            (Space::Scalar, MemOp::Load) => Some(smem::smem_load),
            (Space::Scalar | Space::ScalarBuffer | Space::ScalarScratch, _) => {
                Some(smem_rw::smem_rw)
            }
            // No semantics yet.
            (Space::Buffer | Space::TypedBuffer, _) => None,
        },
        // gfx950's transposing reads: no semantics yet (D51).
        Sem::Ds(sem::DsOp::ReadTr { .. }) => None,
        Sem::Ds(_) => Some(ds),
        Sem::Branch(_) => Some(control::branch),
        Sem::Control(Control::GprIdxIdx) => Some(gpr_idx::set_idx),
        Sem::Control(Control::GprIdxMode) => Some(gpr_idx::set_mode),
        Sem::Control(op) => control::handler(op),
        Sem::Time(_) => Some(control::time),
        Sem::Unsupported(_) => None,
    }
}

impl Exec<'_> {
    /// Executes the instruction at `w.pc`: the decode cache entry (decoded
    /// the first time), the per-instruction checks its flags call for, the
    /// handler.
    #[inline(always)]
    fn exec_one(
        &mut self,
        w: &mut Wave,
        lds: &mut [u8],
        hint: Option<usize>,
    ) -> Result<Flow, Stop> {
        let pc = w.pc;
        let Exec {
            core,
            counts,
            check_waitcnt,
            cache,
            target,
            deadline: _,
            ticks: _,
            trace,
            recorder,
            fast: fast_on,
            uop_counts,
        } = self;
        // `hint`: the cache entry at `pc`, when the fast lane looked it up.
        let k = match hint.or_else(|| cache.find(pc)) {
            Some(k) => k,
            None => {
                let (d, r) = Exec::decode_at(&mut core.view, *target, pc, w)?;
                cache.insert(pc, d, r)
            }
        };
        let d: &Decoded = &cache.arena[k];
        let inst = &d.inst;
        let f = d.flags;
        if let Some(c) = counts.get_mut(d.slot as usize) {
            *c += 1;
        }
        if let Some(r) = recorder {
            r.step(pc, w.exec);
        }
        let Some(h) = d.handler else {
            return Err(if f & flags::INVALID != 0 {
                Stop::Invalid {
                    inst: inst.to_string(),
                    pc,
                    wave: id(w),
                }
            } else {
                unsupported(w, inst, pc)
            });
        };
        if f & flags::FLOAT != 0 {
            let mfma = f & flags::MFMA != 0;
            if w.mode != M.bits() && !mode_modelled(w.mode, mfma) {
                // Float semantics follow MODE's denormal controls under
                // round-to-nearest-even with IEEE and DX10_CLAMP set (what
                // HIP code runs with, `-fgpu-flush-denormals-to-zero`
                // included); other rounding modes, and MFMA under any
                // non-default MODE, stop rather than compute wrongly.
                return Err(Stop::Unsupported {
                    inst: format!(
                        "{inst} (MODE {:#x}: rounding other than nearest-even, IEEE or \
                         DX10_CLAMP off{} not modelled)",
                        w.mode,
                        if mfma {
                            ", or MFMA under a non-default MODE,"
                        } else {
                            ""
                        }
                    ),
                    pc,
                    wave: id(w),
                });
            }
            WAVE_MODE.with(|m| m.set(w.mode));
        }
        if *trace {
            eprintln!(
                "trace wg{:?} w{} pc={pc:#x} exec={:016x} {inst}",
                w.workgroup, w.index, w.exec
            );
        }
        w.pc = pc + u64::from(d.len);
        // Operands are used in place unless s_set_gpr_idx_on re-indexes them.
        let mut indexed = None;
        if f & flags::VALU != 0 {
            if let Some((mask, idx)) = w.gpr_idx {
                let mut ops = d.ops;
                index_operands(&mut ops, mask, idx);
                indexed = Some(ops);
            }
        }
        if *check_waitcnt {
            if f & flags::WAITCNT != 0 {
                let word = inst.words().first().copied().unwrap_or(0);
                w.waitcnt.wait(&crate::waitcnt::decode_word(*target, word));
            } else if w.waitcnt.owes() {
                if let Some(hazard) = w.waitcnt.check(&d.regs) {
                    return Err(Stop::MissingWait {
                        hazard: Box::new(hazard),
                        pc,
                        wave: id(w),
                        inst: inst.to_string(),
                    });
                }
            }
        }
        if let Some(fu) = &cache.recs[k].f {
            if indexed.is_none() && *fast_on {
                let out = fast::run(fu, w, &mut cache.save);
                if out != fast::Out::Declined {
                    if let Some(u) = uop_counts.as_mut().and_then(|u| u.get_mut(d.slot as usize)) {
                        *u += 1;
                    }
                }
                match out {
                    fast::Out::Declined => {}
                    fast::Out::Next => return Ok(Flow::Continue),
                    fast::Out::Taken => {
                        w.pc = d.target.unwrap_or(w.pc);
                        return Ok(Flow::Continue);
                    }
                }
            }
        }
        let ctx = Ctx {
            pc,
            sem: d.sem,
            ops: indexed.as_ref().unwrap_or(&d.ops),
            target: d.target,
            consts: d.consts.as_deref(),
        };
        // racecheck on global memory: before and after a memory access.
        let sync = if core.global.is_some() && f & flags::COUNTERS != 0 {
            vmem_race::before(core, w, inst, &ctx)
        } else {
            None
        };
        let flow = if f & (flags::SDWA | flags::DPP) == 0 {
            h(core, w, lds, inst, &ctx)
        } else if f & flags::SDWA != 0 {
            sdwa(core, w, lds, inst, ctx, h)
        } else {
            dpp(core, w, lds, inst, ctx, h)
        };
        if let Some(width) = sync {
            vmem_race::after(core, w, width);
        }
        if f & flags::COUNTERS != 0 {
            if let Some(c) = core.view.check_mut() {
                c.flush(pc, w.workgroup, w.index, inst);
            }
        }
        let flow = flow?;
        if *check_waitcnt && f & flags::COUNTERS != 0 {
            w.waitcnt.issue(inst, &d.regs, pc);
        }
        Ok(flow)
    }
}

impl Exec<'_> {
    /// Runs the fast-tier µops ([`fast`]) from `w.pc` on, at most
    /// `budget` of them, while the wave has no GPR indexing (µops do not
    /// change it, so it is checked once; under a partial EXEC whole-wave
    /// vector µops put inactive lanes back, and with memory results owed
    /// each µop's registers go through the `s_waitcnt` check first). Counts each as
    /// [`Exec::exec_one`] would and returns how many ran and the cache
    /// entry at `w.pc` when known; the first instruction without a µop (or
    /// whose µop declines) is left at `w.pc` for `exec_one`, which then
    /// need not look it up again.
    #[inline]
    fn fast_lane(&mut self, w: &mut Wave, budget: u64) -> (u64, Option<usize>) {
        let Some(k) = self.cache.find(w.pc) else {
            return (0, None);
        };
        if w.gpr_idx.is_some() {
            return (0, Some(k));
        }
        fast::lane(&mut self.cache, w, k, budget, self.check_waitcnt)
    }

    /// Adds what the µop loop counted per decoded instruction
    /// ([`fast::Rec`]) into [`Exec::counts`] (and [`Exec::uop_counts`]
    /// when on), and zeroes those counters. The µop loop counts per
    /// record, not per opcode, so `counts` is exact only after this: the
    /// dispatch calls it after its work loop ([`Exec::keep`] too).
    pub fn fold_counts(&mut self) {
        for (r, d) in self.cache.recs.iter_mut().zip(&self.cache.arena) {
            if r.runs == 0 {
                continue;
            }
            let slot = d.slot as usize;
            if let Some(c) = self.counts.get_mut(slot) {
                *c += r.runs;
            }
            if let Some(u) = self.uop_counts.as_mut().and_then(|u| u.get_mut(slot)) {
                *u += r.runs;
            }
            r.runs = 0;
        }
    }
}

impl Step for Exec<'_> {
    type Stop = Stop;

    fn step(&mut self, w: &mut Wave, lds: &mut [u8]) -> Result<Flow, Stop> {
        self.exec_one(w, lds, None)
    }

    /// The interpreter loop: decoded instructions back to back, each
    /// dispatched through its handler ([`Exec::exec_one`] inlined here).
    fn run(&mut self, w: &mut Wave, lds: &mut [u8], max: u64) -> (u64, Result<Flow, Stop>) {
        let mut k = 0;
        let lane = self.fast && self.recorder.is_none() && !self.trace;
        let mut hint = None;
        loop {
            if lane {
                let (n, at) = self.fast_lane(w, max - k);
                k += n;
                if k >= max {
                    return (k, Ok(Flow::Continue));
                }
                hint = at;
            }
            k += 1;
            w.instructions += 1;
            match self.exec_one(w, lds, hint.take()) {
                Ok(Flow::Continue) if k < max => {}
                r => return (k, r),
            }
        }
    }

    /// racecheck: a new barrier interval. synccheck: a wave that ended
    /// while others wait at a barrier never
    /// reached it; waves waiting at different `s_barrier`s reached
    /// barriers in different program order.
    fn barrier_release(&mut self, waves: &[Wave]) {
        if let Some(r) = self.core.race.as_mut() {
            r.barrier();
        }
        let Some(c) = self.core.view.check_mut() else {
            return;
        };
        if !c.checks.synccheck {
            return;
        }
        let mut waiting = waves
            .iter()
            .filter(|w| w.status == crate::wave::WaveStatus::Barrier);
        let Some(first) = waiting.next() else {
            return;
        };
        // `s_barrier` (4 bytes) is the instruction before the wave's PC.
        let at = first.pc.wrapping_sub(4);
        if let Some(gone) = waves
            .iter()
            .find(|w| w.status == crate::wave::WaveStatus::Ended)
        {
            c.note(
                Kind::BarrierNotReached,
                Access::Barrier,
                0,
                u64::from(gone.index),
                None,
            );
        }
        if let Some(other) = waiting.find(|w| w.pc != first.pc) {
            c.note(
                Kind::BarrierMismatch,
                Access::Barrier,
                0,
                other.pc.wrapping_sub(4),
                None,
            );
        }
        c.flush(at, first.workgroup, first.index, &"s_barrier");
    }

    fn out_of_steps(&mut self, w: &Wave) -> Stop {
        Stop::Budget {
            pc: w.pc,
            wave: id(w),
        }
    }

    fn expired(&mut self) -> bool {
        // Reading the clock (and the interrupt flag) every 16th slice
        // keeps the check off the profile.
        self.ticks = self.ticks.wrapping_add(1);
        if self.ticks % 16 != 0 {
            return false;
        }
        if crate::interrupt::interrupted().is_some() {
            return true;
        }
        let Some((at, _)) = self.deadline else {
            return false;
        };
        std::time::Instant::now() >= at
    }

    fn timed_out(&mut self, waves: &[Wave]) -> Stop {
        let waves = waves
            .iter()
            .filter(|w| w.status != crate::wave::WaveStatus::Ended)
            .map(|w| WaveAt {
                wave: id(w),
                pc: w.pc,
                inst: match self.cache.find(w.pc) {
                    Some(k) => self.cache.get(k).inst.to_string(),
                    None => match Exec::decode_at(&mut self.core.view, self.target, w.pc, w) {
                        Ok((d, _)) => d.inst.to_string(),
                        Err(_) => "<instruction fetch fault>".into(),
                    },
                },
                instructions: w.instructions,
                at_barrier: w.status == crate::wave::WaveStatus::Barrier,
            })
            .collect();
        match crate::interrupt::interrupted() {
            Some(signal) => Stop::Interrupted {
                signal,
                waves,
                not_started: 0,
            },
            None => Stop::Timeout {
                limit: self.deadline.map_or(std::time::Duration::ZERO, |(_, l)| l),
                waves,
                not_started: 0,
            },
        }
    }
}

// ------------------------------------------------- state kept across dispatches

/// One kernel's decoded instructions, kept from one dispatch to the next
/// by [`crate::run`] (issue 20): a launch then decodes nothing again. It
/// is only valid while the code bytes it was decoded from are unchanged;
/// the keeper checks them ([`Decodes::each`] gives every instruction's
/// words) before each dispatch and starts empty when they differ.
#[derive(Default)]
pub struct Decodes {
    cache: DecodeCache,
    /// The target the instructions were decoded for.
    target: Option<Target>,
}

impl std::fmt::Debug for Decodes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decodes").field("len", &self.len()).finish()
    }
}

impl std::fmt::Debug for Buffers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffers").finish_non_exhaustive()
    }
}

impl Decodes {
    /// Instructions held.
    pub fn len(&self) -> usize {
        self.cache.arena.len()
    }

    /// True when nothing is decoded.
    pub fn is_empty(&self) -> bool {
        self.cache.arena.is_empty()
    }

    /// Calls `f(pc, words, count slot)` for every decoded instruction.
    pub fn each(&self, mut f: impl FnMut(u64, &[u32], u32)) {
        for (&page, &t) in &self.cache.pages {
            for (i, &k) in self.cache.tables[t].iter().enumerate() {
                if let Some(d) = k.checked_sub(1).map(|k| &self.cache.arena[k as usize]) {
                    f(page << 12 | (i as u64) << 2, d.inst.words(), d.slot);
                }
            }
        }
        for (&pc, &k) in &self.cache.odd {
            let d = &self.cache.arena[k];
            f(pc, d.inst.words(), d.slot);
        }
    }
}

/// The kernel-independent buffers of an [`Exec`], kept between dispatches
/// so a launch allocates and zeroes nothing: the lane buffers and the
/// per-opcode counts (all zero when handed back in).
pub struct Buffers {
    bufs: Box<Bufs>,
    /// Per opcode slot; the keeper zeroes the slots it reads.
    pub counts: Vec<u64>,
}

impl Default for Buffers {
    fn default() -> Self {
        Buffers {
            bufs: Box::default(),
            counts: vec![0; Opcode::all().count() + 1],
        }
    }
}

impl<'m> Exec<'m> {
    /// [`Exec::new`] from kept parts: `decodes` must hold what the code
    /// at its addresses decodes to now (the caller checked), and
    /// `buffers.counts` must be all zero. Decodes for another target are
    /// dropped.
    pub fn resume(view: MemView<'m>, target: Target, buffers: Buffers, decodes: Decodes) -> Self {
        let cache = if decodes.target == Some(target) {
            decodes.cache
        } else {
            DecodeCache::default()
        };
        Exec {
            core: Core {
                view,
                mem_log: None,
                interrupt: None,
                bufs: buffers.bufs,
                lds_shadow: Vec::new(),
                race: None,
                global: None,
            },
            target,
            counts: buffers.counts,
            check_waitcnt: true,
            deadline: None,
            ticks: 0,
            trace: trace_enabled(),
            cache,
            recorder: None,
            fast: true,
            uop_counts: None,
        }
    }

    /// The parts [`Exec::resume`] takes, for the next dispatch.
    pub fn keep(mut self) -> (Buffers, Decodes) {
        self.fold_counts();
        (
            Buffers {
                bufs: self.core.bufs,
                counts: self.counts,
            },
            Decodes {
                cache: self.cache,
                target: Some(self.target),
            },
        )
    }
}

//! The wave64 interpreter: executes decoded GFX9 instructions
//! ([`lathe_isa`]) on a [`Wave`], with memory through [`MemView`].
//!
//! Semantics are looked up once per opcode by its mnemonic (without the
//! `_e32`/`_e64` encoding suffix) into a table of handlers, so the decoder's
//! tables stay the one description of the instruction set: the same
//! `v_add_f32` handler serves the VOP2 and VOP3 forms, reading operands and
//! source modifiers from the decoded instruction. An opcode without a
//! handler stops the dispatch with [`Stop::Unsupported`]; nothing is ever
//! silently skipped.
//!
//! Speed: each address is decoded once (`DecodeCache`: a table per code
//! page, so a lookup in a loop is a compare and two loads), with its
//! operand positions and branch target worked out then. Lane handlers work
//! on whole waves: sources read in place or splatted, every lane computed
//! by a loop in [`crate::lanes`] (compiled for AVX2/FMA too, chosen at run
//! time), EXEC applied as a blend when writing. `Step::step` is the one
//! place every executed instruction passes through.
//!
//! Address spaces follow the GFX9 flat model: flat addresses inside the
//! shared aperture go to LDS, inside the private aperture to the lane's
//! scratch, anything else to device memory (bounds-checked). Scratch is a
//! real allocation, swizzled per dword across the 64 lanes as hardware does
//! for the private segment buffer, so stack pointers (`s32`, wave-scaled)
//! and private-to-generic casts behave as on hardware.

use std::cmp::Ordering::{Equal, Greater, Less};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::OnceLock;

use lathe_isa::{
    decode, Encoding, Field, Instruction, Op, Opcode, Operand, RegFile, RegRange, Target, Ty,
};

use crate::alu;
use crate::lanes;
use crate::mem::{rmw, AccessKind, AtomicOp, Fault, MemView};
use crate::wave::{Flow, Step, VReg, Wave, LANES};

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
}

/// The part of [`Exec`] instruction handlers use (kept apart from the
/// decode cache so a handler runs on a cached entry without copying it).
struct Core<'m> {
    view: MemView<'m>,
    /// Ground-truth access log ([`crate::record`]), when recording.
    mem_log: Option<Vec<crate::record::MemAccess>>,
    /// Receives `s_sendmsg sendmsg(MSG_INTERRUPT)` with M0.
    interrupt: Option<fn(u32)>,
}

/// What `step` needs of the instruction at one address, worked out the
/// first time the address executes: the decoded instruction, its operand
/// list, its handler, whether it is a float op or bumps a counter, and the
/// registers it touches (for the `s_waitcnt` check).
struct Decoded {
    inst: Instruction,
    ops: OpList,
    handler: Option<Handler>,
    float: bool,
    /// MFMA/SMFMAC (modelled under the default MODE only).
    mfma: bool,
    counters: bool,
    regs: crate::waitcnt::Regs,
    /// Direct branch target.
    target: Option<u64>,
}

/// Decoded instructions by address: each instruction is decoded the first
/// time it executes, into an arena; a table per 4 KiB code page maps
/// dword offsets to arena slots, and the page last used is remembered, so
/// a lookup in a loop is a compare and two loads.
struct DecodeCache {
    arena: Vec<Decoded>,
    /// Per code page: arena index + 1 per dword (0: not decoded yet).
    tables: Vec<Box<[u32; 1024]>>,
    /// Page number (address >> 12) to its table.
    pages: HashMap<u64, usize, BuildHasherDefault<PcHasher>>,
    /// Misaligned addresses (only a computed jump gets there).
    odd: HashMap<u64, usize, BuildHasherDefault<PcHasher>>,
    /// The page last looked up and its table.
    last: (u64, usize),
}

impl Default for DecodeCache {
    fn default() -> Self {
        DecodeCache {
            arena: Vec::new(),
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

    /// Records `d` as the instruction at `pc` (not yet recorded).
    fn insert(&mut self, pc: u64, d: Decoded) -> &Decoded {
        let k = self.arena.len();
        self.arena.push(d);
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
        &self.arena[k]
    }
}

/// Hashes instruction addresses for the decode cache (a multiplicative
/// hash; SipHash's DoS resistance buys nothing here).
#[derive(Default)]
struct PcHasher(u64);

impl std::hash::Hasher for PcHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, x: u64) {
        let h = x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 29);
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
    ops: &'a OpList,
    /// The branch target of a direct branch (worked out at decode).
    target: Option<u64>,
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
            },
            target,
            counts: vec![0; Opcode::all().count() + 1],
            check_waitcnt: true,
            deadline: None,
            ticks: 0,
            trace: trace_enabled(),
            cache: DecodeCache::default(),
            recorder: None,
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
    ) -> Result<Decoded, Stop> {
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
        // Builds FLOAT_OPS too.
        let table = handlers();
        Ok(Decoded {
            inst,
            ops: OpList::of(&inst.operands()),
            handler: if op.is_invalid() {
                None
            } else {
                table.get(index).copied().flatten()
            },
            float: !op.is_invalid()
                && FLOAT_OPS
                    .get()
                    .is_some_and(|f| f.get(index).copied().unwrap_or(false)),
            mfma: {
                let n = op.info().name;
                n.starts_with("v_mfma") || n.starts_with("v_smfmac")
            },
            counters: wc.vm || wc.lgkm || wc.exp,
            regs: crate::waitcnt::Regs::of(&inst),
            target: inst.branch_target(pc),
        })
    }
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

// ---------------------------------------------------------------- registers

#[inline]
fn sreg_read(w: &Wave, n: u16) -> u32 {
    use lathe_isa::reg::sreg::*;
    if let Some(v) = w.sgpr.get(n as usize) {
        return *v;
    }
    match n {
        0..=107 => w.sgpr[n as usize],
        108..=123 => w.ttmp[(n - 108) as usize],
        M0 => w.m0,
        NULL => 0,
        EXEC_LO => w.exec as u32,
        EXEC_HI => (w.exec >> 32) as u32,
        SRC_SHARED_BASE => (SHARED_APERTURE >> 32) as u32,
        SRC_SHARED_LIMIT => ((SHARED_APERTURE + APERTURE_SIZE - 1) >> 32) as u32,
        SRC_PRIVATE_BASE => (PRIVATE_APERTURE >> 32) as u32,
        SRC_PRIVATE_LIMIT => ((PRIVATE_APERTURE + APERTURE_SIZE - 1) >> 32) as u32,
        SRC_VCCZ => u32::from(w.vcc() == 0),
        SRC_EXECZ => u32::from(w.exec == 0),
        SRC_SCC => u32::from(w.scc),
        _ => 0,
    }
}

fn sreg_write(w: &mut Wave, n: u16, v: u32) {
    use lathe_isa::reg::sreg::*;
    match n {
        0..=107 => w.sgpr[n as usize] = v,
        108..=123 => w.ttmp[(n - 108) as usize] = v,
        M0 => w.m0 = v,
        EXEC_LO => w.exec = (w.exec & !0xffff_ffff) | u64::from(v),
        EXEC_HI => w.exec = (w.exec & 0xffff_ffff) | (u64::from(v) << 32),
        _ => {}
    }
}

/// Value of a 64-bit operand from a 32-bit literal or inline constant.
fn const64(op: &Op) -> Option<u64> {
    Some(match op.value {
        Operand::Int(i) => i as i64 as u64,
        // A 64-bit operand's inline float constant is the double encoding,
        // whatever the operation's type.
        Operand::Float(f) => f.f64_bits(),
        Operand::Literal(l) => match op.ty() {
            Ty::F64 => u64::from(l) << 32,
            _ => u64::from(l),
        },
        _ => return None,
    })
}

#[inline]
fn const32(op: &Op) -> Option<u32> {
    Some(match op.value {
        Operand::Int(i) => i as i32 as u32,
        Operand::Float(f) => match op.ty() {
            Ty::F16 | Ty::V2F16 => u32::from(f.f16_bits()),
            _ => f.f32_bits(),
        },
        Operand::Literal(l) => l,
        Operand::Imm(v) => v as u32,
        _ => return None,
    })
}

/// Scalar (lane-independent) 32-bit read.
#[inline]
fn s32(w: &Wave, op: &Op) -> u32 {
    match op.value {
        Operand::Reg(r) => match r.file {
            RegFile::Scalar => sreg_read(w, r.first),
            _ => 0,
        },
        _ => const32(op).unwrap_or(0),
    }
}

/// Scalar 64-bit read.
fn s64(w: &Wave, op: &Op) -> u64 {
    match op.value {
        Operand::Reg(r) if r.file == RegFile::Scalar => {
            use lathe_isa::reg::sreg::*;
            match r.first {
                SRC_SHARED_BASE => SHARED_APERTURE,
                SRC_PRIVATE_BASE => PRIVATE_APERTURE,
                EXEC_LO => w.exec,
                n => u64::from(sreg_read(w, n)) | (u64::from(sreg_read(w, n + 1)) << 32),
            }
        }
        _ => const64(op).unwrap_or(0),
    }
}

fn s_write32(w: &mut Wave, op: &Op, v: u32) {
    if let Operand::Reg(r) = op.value {
        if r.file == RegFile::Scalar {
            sreg_write(w, r.first, v);
        }
    }
}

fn s_write64(w: &mut Wave, op: &Op, v: u64) {
    if let Operand::Reg(r) = op.value {
        if r.file == RegFile::Scalar {
            sreg_write(w, r.first, v as u32);
            sreg_write(w, r.first + 1, (v >> 32) as u32);
        }
    }
}

/// Lane `l`'s 32-bit read of a vector source (a VGPR, AGPR or any scalar source).
#[inline]
fn v32(w: &Wave, op: &Op, l: usize) -> u32 {
    match op.value {
        Operand::Reg(RegRange {
            file: RegFile::Vgpr,
            first,
            ..
        }) => w.vgpr.get(first as usize).map_or(0, |r| r[l]),
        Operand::Reg(RegRange {
            file: RegFile::Agpr,
            first,
            ..
        }) => w.agpr.get(first as usize).map_or(0, |r| r[l]),
        // The common scalar sources, without leaving the lane loop.
        Operand::Reg(RegRange {
            file: RegFile::Scalar,
            first,
            ..
        }) if (first as usize) < w.sgpr.len() => w.sgpr[first as usize],
        Operand::Literal(v) => v,
        Operand::Int(i) => i as i32 as u32,
        _ => s32(w, op),
    }
}

/// Lane `l`'s 64-bit read.
#[inline]
fn v64(w: &Wave, op: &Op, l: usize) -> u64 {
    match op.value {
        Operand::Reg(RegRange {
            file: RegFile::Vgpr,
            first,
            ..
        }) => {
            let f = first as usize;
            let g = |i: usize| w.vgpr.get(i).map_or(0, |r| u64::from(r[l]));
            g(f) | (g(f + 1) << 32)
        }
        Operand::Reg(RegRange {
            file: RegFile::Agpr,
            first,
            ..
        }) => {
            let f = first as usize;
            let g = |i: usize| w.agpr.get(i).map_or(0, |r| u64::from(r[l]));
            g(f) | (g(f + 1) << 32)
        }
        _ => s64(w, op),
    }
}

#[inline]
fn vwrite(w: &mut Wave, op: &Op, l: usize, k: usize, v: u32) {
    if let Operand::Reg(r) = op.value {
        let i = r.first as usize + k;
        match r.file {
            RegFile::Vgpr => {
                if let Some(x) = w.vgpr.get_mut(i) {
                    x[l] = v;
                }
            }
            RegFile::Agpr => {
                if let Some(x) = w.agpr.get_mut(i) {
                    x[l] = v;
                }
            }
            RegFile::Scalar => sreg_write(w, r.first + k as u16, v),
        }
    }
}

/// Every lane of a 32-bit vector source (a VGPR or AGPR copied whole, a
/// scalar source splatted), source modifiers not applied. Lane handlers
/// read these instead of resolving the operand once per lane.
#[inline]
fn lanes32(w: &Wave, op: &Op) -> VReg {
    match op.value {
        Operand::Reg(RegRange {
            file: RegFile::Vgpr,
            first,
            ..
        }) => w.vgpr.get(first as usize).copied().unwrap_or([0; LANES]),
        Operand::Reg(RegRange {
            file: RegFile::Agpr,
            first,
            ..
        }) => w.agpr.get(first as usize).copied().unwrap_or([0; LANES]),
        _ => [s32(w, op); LANES],
    }
}

/// Every lane of a 64-bit source (a VGPR/AGPR pair, or a scalar source
/// splatted), as [`v64`] reads it.
#[inline]
fn lanes64(w: &Wave, op: &Op) -> [u64; LANES] {
    let file = match op.value {
        Operand::Reg(RegRange {
            file: RegFile::Vgpr,
            first,
            ..
        }) => Some((&w.vgpr, first as usize)),
        Operand::Reg(RegRange {
            file: RegFile::Agpr,
            first,
            ..
        }) => Some((&w.agpr, first as usize)),
        _ => None,
    };
    let Some((regs, f)) = file else {
        return [s64(w, op); LANES];
    };
    let lo = regs.get(f).copied().unwrap_or([0; LANES]);
    let hi = regs.get(f + 1).copied().unwrap_or([0; LANES]);
    let mut out = [0u64; LANES];
    for (o, (l, h)) in out.iter_mut().zip(lo.iter().zip(&hi)) {
        *o = u64::from(*l) | u64::from(*h) << 32;
    }
    out
}

/// Writes `vals` to a 32-bit destination in the active lanes.
#[inline]
fn write_lanes32(w: &mut Wave, op: &Op, vals: &VReg) {
    write_lanes32_masked(w, op, vals, w.exec)
}

/// Writes `vals` to a 32-bit destination in the lanes of `exec`.
#[inline]
fn write_lanes32_masked(w: &mut Wave, op: &Op, vals: &VReg, exec: u64) {
    let reg = match op.value {
        Operand::Reg(RegRange {
            file: RegFile::Vgpr,
            first,
            ..
        }) => w.vgpr.get_mut(first as usize),
        Operand::Reg(RegRange {
            file: RegFile::Agpr,
            first,
            ..
        }) => w.agpr.get_mut(first as usize),
        _ => {
            for (l, v) in vals.iter().enumerate() {
                if exec >> l & 1 == 1 {
                    vwrite(w, op, l, 0, *v);
                }
            }
            return;
        }
    };
    if let Some(r) = reg {
        lanes::blend(r, vals, exec);
    }
}

/// Writes `vals` to a 64-bit destination (a register pair) in the active
/// lanes.
#[inline]
fn write_lanes64(w: &mut Wave, op: &Op, vals: &[u64; LANES]) {
    let (mut lo, mut hi) = ([0u32; LANES], [0u32; LANES]);
    for (l, v) in vals.iter().enumerate() {
        lo[l] = *v as u32;
        hi[l] = (*v >> 32) as u32;
    }
    let mut op1 = *op;
    if let Operand::Reg(mut r) = op1.value {
        r.first = r.first.wrapping_add(1);
        op1.value = Operand::Reg(r);
    }
    write_lanes32(w, op, &lo);
    write_lanes32(w, &op1, &hi);
}

fn f32_mods(op: &Op, v: u32) -> u32 {
    let v = if op.abs { v & 0x7fff_ffff } else { v };
    if op.neg {
        v ^ 0x8000_0000
    } else {
        v
    }
}

/// Applies a 32-bit source's neg/abs modifiers by its type: on bit 15 for
/// f16 operands, bit 31 otherwise (the flags are only ever set on float
/// operands).
fn src_mods(op: &Op, v: u32) -> u32 {
    if !op.neg && !op.abs {
        return v;
    }
    match op.ty() {
        Ty::F16 => {
            let v = if op.abs { v & !0x8000 } else { v };
            if op.neg {
                v ^ 0x8000
            } else {
                v
            }
        }
        _ => f32_mods(op, v),
    }
}

fn f64_mods(op: &Op, v: u64) -> u64 {
    let v = if op.abs { v & !(1 << 63) } else { v };
    if op.neg {
        v ^ (1 << 63)
    } else {
        v
    }
}

/// VOP3 output modifiers (clamp, omod) from the instruction words.
fn vop3_clamp_omod(inst: &Instruction) -> (bool, u32) {
    if inst.encoding() != Encoding::Vop3 {
        return (false, 0);
    }
    let w = inst.words();
    (w[0] >> 15 & 1 == 1, w.get(1).map_or(0, |x| x >> 27 & 3))
}

fn apply_omod_clamp_f32(x: f32, clamp: bool, omod: u32) -> f32 {
    let x = match omod {
        1 => x * 2.0,
        2 => x * 4.0,
        3 => x * 0.5,
        _ => x,
    };
    if clamp {
        if x.is_nan() {
            0.0
        } else {
            x.clamp(0.0, 1.0)
        }
    } else {
        x
    }
}

fn apply_omod_clamp_f64(x: f64, clamp: bool, omod: u32) -> f64 {
    let x = match omod {
        1 => x * 2.0,
        2 => x * 4.0,
        3 => x * 0.5,
        _ => x,
    };
    if clamp {
        if x.is_nan() {
            0.0
        } else {
            x.clamp(0.0, 1.0)
        }
    } else {
        x
    }
}

// ---------------------------------------------------------------- handler table

fn base_name(name: &str) -> &str {
    for suf in ["_e32", "_e64", "_sdwa", "_dpp"] {
        if let Some(b) = name.strip_suffix(suf) {
            return b;
        }
    }
    name
}

/// Opcodes with floating-point semantics (by mnemonic), filled with the
/// handler table.
static FLOAT_OPS: OnceLock<Vec<bool>> = OnceLock::new();

fn handlers() -> &'static [Option<Handler>] {
    FLOAT_OPS.get_or_init(|| {
        Opcode::all()
            .map(|o| {
                let n = o.info().name;
                n.starts_with("v_")
                    && ["_f16", "_f32", "_f64", "bf16", "mfma", "_pk_"]
                        .iter()
                        .any(|t| n.contains(t))
            })
            .collect()
    });
    static T: OnceLock<Vec<Option<Handler>>> = OnceLock::new();
    T.get_or_init(|| {
        Opcode::all()
            .map(|o| {
                let info = o.info();
                match info.enc {
                    // VOPC SDWA writes a lane mask with its own sdst rules.
                    Encoding::VopcSdwa => None,
                    _ => handler_for(base_name(info.name)),
                }
            })
            .collect()
    })
}

/// Every lane of a 32-bit source with its neg/abs modifiers applied
/// ([`src_mods`]).
#[inline]
fn lanes32_mods(w: &Wave, op: &Op) -> VReg {
    let mut v = lanes32(w, op);
    if op.neg || op.abs {
        for x in &mut v {
            *x = src_mods(op, *x);
        }
    }
    v
}

/// An f32 source in place, with its `abs`/`neg` modifiers.
#[inline]
fn src_f32<'a>(w: &'a Wave, op: &Op, splat: &'a mut VReg) -> lanes::Src<'a> {
    lanes::Src::f32(src_ref(w, op, splat), op.abs, op.neg)
}

/// Every lane of a 32-bit source in place: the wave's VGPR or AGPR, or
/// `splat` filled with a scalar source (no copy of a vector register).
#[inline]
fn src_ref<'a>(w: &'a Wave, op: &Op, splat: &'a mut VReg) -> &'a VReg {
    match op.value {
        Operand::Reg(RegRange {
            file: RegFile::Vgpr,
            first,
            ..
        }) => {
            if let Some(r) = w.vgpr.get(first as usize) {
                return r;
            }
            *splat = [0; LANES];
        }
        Operand::Reg(RegRange {
            file: RegFile::Agpr,
            first,
            ..
        }) => {
            if let Some(r) = w.agpr.get(first as usize) {
                return r;
            }
            *splat = [0; LANES];
        }
        _ => *splat = [s32(w, op); LANES],
    }
    splat
}

/// u32 lane ops (no output modifiers): every lane computed by a
/// vectorised loop, the active ones written.
macro_rules! valu_u32 {
    (|$a:ident, $b:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            if vop3_clamp_omod(_i) != (false, 0) {
                return Err(unsupported(w, _i, c.pc));
            }
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            let (va, vb) = (lanes32_mods(w, &s0), lanes32_mods(w, &s1));
            let mut out = [0u32; LANES];
            lanes::map2_u32(&mut out, &va, &vb, |$a, $b| $e);
            write_lanes32(w, &d, &out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
    (|$a:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            if vop3_clamp_omod(_i) != (false, 0) {
                return Err(unsupported(w, _i, c.pc));
            }
            let (Some(d), Some(s0)) = (c.dst(0).copied(), c.src(0).copied()) else {
                return Ok(Flow::Continue);
            };
            let va = lanes32_mods(w, &s0);
            let mut out = [0u32; LANES];
            lanes::map1_u32(&mut out, &va, |$a| $e);
            write_lanes32(w, &d, &out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
    (|$a:ident, $b:ident, $c2:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            if vop3_clamp_omod(_i) != (false, 0) {
                return Err(unsupported(w, _i, c.pc));
            }
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            let (va, vb, vc) = (
                lanes32_mods(w, &s0),
                lanes32_mods(w, &s1),
                lanes32_mods(w, &s2),
            );
            let mut out = [0u32; LANES];
            lanes::map3_u32(&mut out, &va, &vb, &vc, |$a, $b, $c2| $e);
            write_lanes32(w, &d, &out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

/// f32 lane ops with source modifiers and clamp/omod. Without output
/// modifiers (the common case) the lanes run in a vectorised loop with
/// hardware FMA when the CPU has it ([`lanes`]).
macro_rules! valu_f32 {
    (|$a:ident, $b:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            let (clamp, omod) = vop3_clamp_omod(i);
            let fz = Flush::f32(w.mode);
            let (mut p0, mut p1) = ([0u32; LANES], [0u32; LANES]);
            let (va, vb) = (src_f32(w, &s0, &mut p0), src_f32(w, &s1, &mut p1));
            let (fi, fo) = (fz.input, fz.output);
            let mut out = [0u32; LANES];
            if clamp || omod != 0 {
                lanes::map2_f32(&mut out, va, vb, fi, fo, |$a, $b| {
                    apply_omod_clamp_f32($e, clamp, omod)
                });
            } else {
                lanes::map2_f32(&mut out, va, vb, fi, fo, |$a, $b| $e);
            }
            write_lanes32(w, &d, &out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
    (|$a:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0)) = (c.dst(0).copied(), c.src(0).copied()) else {
                return Ok(Flow::Continue);
            };
            let (clamp, omod) = vop3_clamp_omod(i);
            let fz = Flush::f32(w.mode);
            let mut p0 = [0u32; LANES];
            let va = src_f32(w, &s0, &mut p0);
            let (fi, fo) = (fz.input, fz.output);
            let mut out = [0u32; LANES];
            if clamp || omod != 0 {
                lanes::map1_f32(&mut out, va, fi, fo, |$a| {
                    apply_omod_clamp_f32($e, clamp, omod)
                });
            } else {
                lanes::map1_f32(&mut out, va, fi, fo, |$a| $e);
            }
            write_lanes32(w, &d, &out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
    (|$a:ident, $b:ident, $c2:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            let (clamp, omod) = vop3_clamp_omod(i);
            let fz = Flush::f32(w.mode);
            let (mut p0, mut p1, mut p2) = ([0u32; LANES], [0u32; LANES], [0u32; LANES]);
            let (va, vb, vc) = (
                src_f32(w, &s0, &mut p0),
                src_f32(w, &s1, &mut p1),
                src_f32(w, &s2, &mut p2),
            );
            let (fi, fo) = (fz.input, fz.output);
            let mut out = [0u32; LANES];
            if clamp || omod != 0 {
                lanes::map3_f32(&mut out, va, vb, vc, fi, fo, |$a, $b, $c2| {
                    apply_omod_clamp_f32($e, clamp, omod)
                });
            } else {
                lanes::map3_f32(&mut out, va, vb, vc, fi, fo, |$a, $b, $c2| $e);
            }
            write_lanes32(w, &d, &out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

macro_rules! valu_f64 {
    (|$a:ident, $b:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            let (clamp, omod) = vop3_clamp_omod(i);
            let fz = Flush::f64(w.mode);
            let (va, vb) = (lanes64(w, &s0), lanes64(w, &s1));
            let mut out = [0u64; LANES];
            for l in 0..LANES {
                let $a = fz.in64(f64::from_bits(f64_mods(&s0, va[l])));
                let $b = fz.in64(f64::from_bits(f64_mods(&s1, vb[l])));
                let r: f64 = $e;
                out[l] = fz.out64(apply_omod_clamp_f64(r, clamp, omod)).to_bits();
            }
            write_lanes64(w, &d, &out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
    (|$a:ident, $b:ident, $c2:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            let (clamp, omod) = vop3_clamp_omod(i);
            let fz = Flush::f64(w.mode);
            let (va, vb, vc) = (lanes64(w, &s0), lanes64(w, &s1), lanes64(w, &s2));
            let mut out = [0u64; LANES];
            for l in 0..LANES {
                let $a = fz.in64(f64::from_bits(f64_mods(&s0, va[l])));
                let $b = fz.in64(f64::from_bits(f64_mods(&s1, vb[l])));
                let $c2 = fz.in64(f64::from_bits(f64_mods(&s2, vc[l])));
                let r: f64 = $e;
                out[l] = fz.out64(apply_omod_clamp_f64(r, clamp, omod)).to_bits();
            }
            write_lanes64(w, &d, &out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

macro_rules! salu32 {
    (|$a:ident, $b:ident| $e:expr, scc = |$r:ident| $s:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            let $a = s32(w, &s0);
            let $b = s32(w, &s1);
            let $r: u32 = $e;
            let scc: Option<bool> = $s;
            if let Some(s) = scc {
                w.scc = s;
            }
            s_write32(w, &d, $r);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

macro_rules! salu64 {
    (|$a:ident, $b:ident| $e:expr, scc = |$r:ident| $s:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            let $a = s64(w, &s0);
            let $b = s64(w, &s1);
            let $r: u64 = $e;
            let scc: Option<bool> = $s;
            if let Some(s) = scc {
                w.scc = s;
            }
            s_write64(w, &d, $r);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

/// `s_<op>_saveexec_b64`: dst = exec; exec = op(src, exec); SCC = exec != 0.
macro_rules! saveexec {
    (|$s:ident, $e:ident| $x:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0)) = (c.dst(0).copied(), c.src(0).copied()) else {
                return Ok(Flow::Continue);
            };
            let $s = s64(w, &s0);
            let $e = w.exec;
            s_write64(w, &d, $e);
            w.exec = $x;
            w.scc = w.exec != 0;
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

/// VOPC: compare per lane into VCC (e32) or SDST (e64); `cmpx` also into EXEC.
macro_rules! vcmp {
    ($ty:ident, $x:literal, |$a:ident, $b:ident| $e:expr) => {{
        fn h(_x: &mut Core<'_>, w: &mut Wave, _lds: &mut [u8], _i: &Instruction, c: &Ctx) -> Result<Flow, Stop> {
            let (Some(s0), Some(s1)) = (c.src(0).copied(), c.src(1).copied()) else {
                return Ok(Flow::Continue);
            };
            let mut mask = 0u64;
            for l in 0..LANES {
                if w.active(l) {
                    let hit = vcmp!(@read $ty, w, s0, s1, l, |$a, $b| $e);
                    mask |= u64::from(hit) << l;
                }
            }
            match c.dst(0).copied() {
                Some(d) => s_write64(w, &d, mask),
                None => w.set_vcc(mask),
            }
            if $x {
                w.exec = mask;
            }
            Ok(Flow::Continue)
        }
        h as Handler
    }};
    (@read u32, $w:ident, $s0:ident, $s1:ident, $l:ident, |$a:ident, $b:ident| $e:expr) => {{
        let $a = v32($w, &$s0, $l);
        let $b = v32($w, &$s1, $l);
        $e
    }};
    (@read i32, $w:ident, $s0:ident, $s1:ident, $l:ident, |$a:ident, $b:ident| $e:expr) => {{
        let $a = v32($w, &$s0, $l) as i32;
        let $b = v32($w, &$s1, $l) as i32;
        $e
    }};
    (@read u64, $w:ident, $s0:ident, $s1:ident, $l:ident, |$a:ident, $b:ident| $e:expr) => {{
        let $a = v64($w, &$s0, $l);
        let $b = v64($w, &$s1, $l);
        $e
    }};
    (@read i64, $w:ident, $s0:ident, $s1:ident, $l:ident, |$a:ident, $b:ident| $e:expr) => {{
        let $a = v64($w, &$s0, $l) as i64;
        let $b = v64($w, &$s1, $l) as i64;
        $e
    }};
    (@read f32, $w:ident, $s0:ident, $s1:ident, $l:ident, |$a:ident, $b:ident| $e:expr) => {{
        let fz = Flush::f32($w.mode);
        let $a = fz.in32(f32::from_bits(f32_mods(&$s0, v32($w, &$s0, $l))));
        let $b = fz.in32(f32::from_bits(f32_mods(&$s1, v32($w, &$s1, $l))));
        $e
    }};
    (@read f64, $w:ident, $s0:ident, $s1:ident, $l:ident, |$a:ident, $b:ident| $e:expr) => {{
        let fz = Flush::f64($w.mode);
        let $a = fz.in64(f64::from_bits(f64_mods(&$s0, v64($w, &$s0, $l))));
        let $b = fz.in64(f64::from_bits(f64_mods(&$s1, v64($w, &$s1, $l))));
        $e
    }};
}

/// The compare predicates, by suffix.
macro_rules! cmp_family {
    ($name:ident, $ty:ident, $x:literal) => {
        match $name {
            "lt" => Some(vcmp!($ty, $x, |a, b| a < b)),
            "eq" => Some(vcmp!($ty, $x, |a, b| a == b)),
            "le" => Some(vcmp!($ty, $x, |a, b| a <= b)),
            "gt" => Some(vcmp!($ty, $x, |a, b| a > b)),
            "ne" | "lg" => Some(vcmp!($ty, $x, |a, b| a != b)),
            "ge" => Some(vcmp!($ty, $x, |a, b| a >= b)),
            _ => None,
        }
    };
}

macro_rules! fcmp_family {
    ($name:ident, $ty:ident, $x:literal) => {
        match $name {
            "lt" => Some(vcmp!($ty, $x, |a, b| a < b)),
            "eq" => Some(vcmp!($ty, $x, |a, b| a == b)),
            "le" => Some(vcmp!($ty, $x, |a, b| a <= b)),
            "gt" => Some(vcmp!($ty, $x, |a, b| a > b)),
            "lg" => Some(vcmp!($ty, $x, |a, b| matches!(
                a.partial_cmp(&b),
                Some(Less | Greater)
            ))),
            "ge" => Some(vcmp!($ty, $x, |a, b| a >= b)),
            "o" => Some(vcmp!($ty, $x, |a, b| !a.is_nan() && !b.is_nan())),
            "u" => Some(vcmp!($ty, $x, |a, b| a.is_nan() || b.is_nan())),
            "nge" => Some(vcmp!($ty, $x, |a, b| !matches!(
                a.partial_cmp(&b),
                Some(Greater | Equal)
            ))),
            "nlg" => Some(vcmp!($ty, $x, |a, b| !matches!(
                a.partial_cmp(&b),
                Some(Less | Greater)
            ))),
            "ngt" => Some(vcmp!($ty, $x, |a, b| !matches!(
                a.partial_cmp(&b),
                Some(Greater)
            ))),
            "nle" => Some(vcmp!($ty, $x, |a, b| !matches!(
                a.partial_cmp(&b),
                Some(Less | Equal)
            ))),
            "neq" => Some(vcmp!($ty, $x, |a, b| a != b)),
            "nlt" => Some(vcmp!($ty, $x, |a, b| !matches!(
                a.partial_cmp(&b),
                Some(Less)
            ))),
            "f" => Some(vcmp!($ty, $x, |_a, _b| false)),
            "tru" => Some(vcmp!($ty, $x, |_a, _b| true)),
            _ => None,
        }
    };
}

macro_rules! cbr {
    (|$w:ident| $cond:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            $w: &mut Wave,
            _l: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            if $cond {
                $w.pc = c.target.unwrap_or($w.pc);
            }
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

macro_rules! sop1_32 {
    (|$w:ident, $a:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            $w: &mut Wave,
            _l: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                let $a = s32($w, &s);
                let r: u32 = $e;
                s_write32($w, &d, r);
            }
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

macro_rules! sop1_64 {
    (|$w:ident, $a:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            $w: &mut Wave,
            _l: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                let $a = s64($w, &s);
                let r: u64 = $e;
                s_write64($w, &d, r);
            }
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

macro_rules! sopc {
    (|$a:ident, $b:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _l: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            if let (Some(s0), Some(s1)) = (c.src(0).copied(), c.src(1).copied()) {
                let $a = s32(w, &s0);
                let $b = s32(w, &s1);
                w.scc = $e;
            }
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

macro_rules! sopk_cmp {
    (|$a:ident, $k:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _l: &mut [u8],
            i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            if let Some(s0) = c.ops.as_slice().first().copied() {
                let $a = s32(w, &s0);
                let $k = i.field(Field::Simm16).unwrap_or(0) as u16 as i16 as i32 as u32;
                w.scc = $e;
            }
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

/// VOP2/VOP3b add/sub with carry: dst, carry-out (vcc or sdst), src0, src1
/// [, carry-in (vcc or src2)].
macro_rules! carry_op {
    (|$a:ident, $b:ident, $ci:ident| $e:expr, $has_cin:literal) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _l: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            let cin_mask = if $has_cin {
                c.src(2).map_or(w.vcc(), |m| s64(w, m))
            } else {
                0
            };
            let (va, vb) = (lanes32(w, &s0), lanes32(w, &s1));
            let mut out = [0u32; LANES];
            let mut cout = 0u64;
            for l in 0..LANES {
                let $a = va[l];
                let $b = vb[l];
                let $ci = (cin_mask >> l & 1) as u32;
                let r: u64 = $e;
                out[l] = r as u32;
                cout |= u64::from(r >> 32 != 0) << l;
            }
            cout &= w.exec;
            write_lanes32(w, &d, &out);
            match c.dst(1).copied() {
                Some(cd) => s_write64(w, &cd, cout),
                None => w.set_vcc(cout),
            }
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

macro_rules! mad64 {
    ($signed:literal) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _l: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            let mut cout = 0u64;
            for l in 0..LANES {
                if w.active(l) {
                    let (a, b, acc) = (v32(w, &s0, l), v32(w, &s1, l), v64(w, &s2, l));
                    let (r, carry) = if $signed {
                        let p =
                            i128::from(a as i32) * i128::from(b as i32) + i128::from(acc as i64);
                        (
                            p as u64,
                            p > i128::from(i64::MAX) || p < i128::from(i64::MIN),
                        )
                    } else {
                        let p = u128::from(a) * u128::from(b) + u128::from(acc);
                        (p as u64, p >> 64 != 0)
                    };
                    vwrite(w, &d, l, 0, r as u32);
                    vwrite(w, &d, l, 1, (r >> 32) as u32);
                    cout |= u64::from(carry) << l;
                }
            }
            if let Some(cd) = c.dst(1).copied() {
                s_write64(w, &cd, cout);
            }
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

macro_rules! mbcnt {
    ($hi:literal) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _l: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            for l in 0..LANES {
                if w.active(l) {
                    let mask = v32(w, &s0, l);
                    let below = if $hi {
                        if l >= 32 {
                            mask & ((1u64 << (l - 32)) - 1) as u32
                        } else {
                            0
                        }
                    } else if l >= 32 {
                        mask
                    } else {
                        mask & ((1u64 << l) - 1) as u32
                    };
                    let v = below.count_ones().wrapping_add(v32(w, &s1, l));
                    vwrite(w, &d, l, 0, v);
                }
            }
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

/// `v_mac`/`v_fmac`: the destination is also the addend.
macro_rules! mac_f32 {
    (|$a:ident, $b:ident, $c2:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            let (clamp, omod) = vop3_clamp_omod(i);
            let fz = Flush::f32(w.mode);
            let (mut p0, mut p1, mut p2) = ([0u32; LANES], [0u32; LANES], [0u32; LANES]);
            let (va, vb) = (src_f32(w, &s0, &mut p0), src_f32(w, &s1, &mut p1));
            let vc = lanes::Src::f32(src_ref(w, &d, &mut p2), false, false);
            let (fi, fo) = (fz.input, fz.output);
            let mut out = [0u32; LANES];
            if clamp || omod != 0 {
                lanes::map3_f32(&mut out, va, vb, vc, fi, fo, |$a, $b, $c2| {
                    apply_omod_clamp_f32($e, clamp, omod)
                });
            } else {
                lanes::map3_f32(&mut out, va, vb, vc, fi, fo, |$a, $b, $c2| $e);
            }
            write_lanes32(w, &d, &out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

/// The MODE the float semantics implement (the HIP defaults: round to
/// nearest even, denormals kept, IEEE and DX10 clamp on). A wave whose MODE
/// differs stops at its first float instruction (see `Step::step`).
const M: alu::Mode = alu::Mode::from_bits(0x3f0);

thread_local! {
    /// The MODE of the wave whose float instruction is executing (set by
    /// `Step::step`), for the `alu` calls in handler expressions.
    static WAVE_MODE: std::cell::Cell<u32> = const { std::cell::Cell::new(0x3f0) };
}

/// The executing wave's MODE.
#[inline]
fn md() -> alu::Mode {
    alu::Mode::from_bits(WAVE_MODE.with(|m| m.get()))
}

/// Denormal flushing of one precision class under a wave's MODE, for the
/// handlers that compute with host floats (round to nearest even, the
/// only rounding they are used under): flushed inputs become a signed
/// zero before the operation, flushed outputs after rounding.
#[derive(Clone, Copy)]
struct Flush {
    input: bool,
    output: bool,
}

impl Flush {
    #[inline]
    fn of(d: alu::Denorm) -> Flush {
        Flush {
            input: !d.allow_in,
            output: !d.allow_out,
        }
    }
    #[inline]
    fn f32(mode: u32) -> Flush {
        Flush::of(alu::Mode::from_bits(mode).denorm_f32)
    }
    #[inline]
    fn f64(mode: u32) -> Flush {
        Flush::of(alu::Mode::from_bits(mode).denorm_f64_f16)
    }
    #[inline]
    fn in32(self, x: f32) -> f32 {
        if self.input && x.is_subnormal() {
            f32::from_bits(x.to_bits() & 0x8000_0000)
        } else {
            x
        }
    }
    #[inline]
    fn out32(self, x: f32) -> f32 {
        Flush {
            input: self.output,
            output: false,
        }
        .in32(x)
    }
    #[inline]
    fn in64(self, x: f64) -> f64 {
        if self.input && x.is_subnormal() {
            f64::from_bits(x.to_bits() & (1 << 63))
        } else {
            x
        }
    }
    #[inline]
    fn out64(self, x: f64) -> f64 {
        Flush {
            input: self.output,
            output: false,
        }
        .in64(x)
    }
}

/// Whether float instructions run correctly under `mode`: any denormal
/// controls, with nearest-even rounding, IEEE and DX10_CLAMP; MFMA only
/// under the default MODE.
fn mode_modelled(mode: u32, mfma: bool) -> bool {
    let m = alu::Mode::from_bits(mode);
    if mfma {
        return m == M;
    }
    m.round_f32 == alu::Round::NearestEven
        && m.round_f64_f16 == alu::Round::NearestEven
        && m.ieee
        && m.dx10_clamp
}

/// `v_mad_f32`/`v_mac_f32`/`v_madak_f32`/`v_madmk_f32`: the product is
/// rounded before the add (not fused), and denormals are flushed whatever
/// MODE says (inputs, the product and the result), as `alu::float::mad`
/// defines it.
fn mad_legacy_f32(a: f32, b: f32, c: f32) -> f32 {
    let f = Flush {
        input: true,
        output: true,
    };
    f.out32(f.out32(f.in32(a) * f.in32(b)) + f.in32(c))
}

macro_rules! unary64 {
    (|$a:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0)) = (c.dst(0).copied(), c.src(0).copied()) else {
                return Ok(Flow::Continue);
            };
            for l in 0..LANES {
                if w.active(l) {
                    let $a = f64_mods(&s0, v64(w, &s0, l));
                    let r: u64 = $e;
                    vwrite(w, &d, l, 0, r as u32);
                    vwrite(w, &d, l, 1, (r >> 32) as u32);
                }
            }
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

macro_rules! unary64_from32 {
    (|$a:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0)) = (c.dst(0).copied(), c.src(0).copied()) else {
                return Ok(Flow::Continue);
            };
            for l in 0..LANES {
                if w.active(l) {
                    let $a = f32_mods(&s0, v32(w, &s0, l));
                    let r: u64 = $e;
                    vwrite(w, &d, l, 0, r as u32);
                    vwrite(w, &d, l, 1, (r >> 32) as u32);
                }
            }
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

macro_rules! unary32_from64 {
    (|$a:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0)) = (c.dst(0).copied(), c.src(0).copied()) else {
                return Ok(Flow::Continue);
            };
            for l in 0..LANES {
                if w.active(l) {
                    let $a = f64_mods(&s0, v64(w, &s0, l));
                    let r: u32 = $e;
                    vwrite(w, &d, l, 0, r);
                }
            }
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

/// MFMA: gathers the A, B and C registers, evaluates with [`crate::mfma`],
/// and writes D.
fn mfma_op(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use crate::mfma::{mfma, Mods, Shape, Target as MT};
    let target = match i.target() {
        Target::Gfx90a => MT::Gfx90a,
        _ => MT::Gfx942,
    };
    let Some(shape) = Shape::find(target, i.opcode().name()) else {
        return Err(unsupported(w, i, c.pc));
    };
    let (Some(d), Some(a), Some(b), Some(cc)) = (
        c.dst(0).copied(),
        c.src(0).copied(),
        c.src(1).copied(),
        c.src(2).copied(),
    ) else {
        return Err(unsupported(w, i, c.pc));
    };
    let gather = |op: &Op, n: usize| -> Vec<crate::wave::VReg> {
        (0..n)
            .map(|k| {
                let mut r = [0u32; LANES];
                for (l, x) in r.iter_mut().enumerate() {
                    *x = match op.value {
                        Operand::Reg(RegRange {
                            file: RegFile::Vgpr,
                            first,
                            ..
                        }) => w.vgpr.get(first as usize + k).map_or(0, |v| v[l]),
                        Operand::Reg(RegRange {
                            file: RegFile::Agpr,
                            first,
                            ..
                        }) => w.agpr.get(first as usize + k).map_or(0, |v| v[l]),
                        _ => {
                            // An inline constant C: every register holds it
                            // (64-bit element types hold it per register pair).
                            let v = const64(op).unwrap_or(0);
                            if op.ty() == Ty::F64 {
                                (v >> (32 * (k % 2))) as u32
                            } else {
                                v as u32
                            }
                        }
                    };
                }
                r
            })
            .collect()
    };
    let av = gather(&a, shape.a_regs());
    let bv = gather(&b, shape.b_regs());
    let cv = gather(&cc, shape.cd_regs());
    let words = i.words();
    let mods = Mods::from_words(words[0], words.get(1).copied().unwrap_or(0));
    let out = mfma(shape, target, &av, &bv, &cv, &mods).map_err(|_| unsupported(w, i, c.pc))?;
    for (k, r) in out.iter().enumerate() {
        for (l, v) in r.iter().enumerate() {
            vwrite(w, &d, l, k, *v);
        }
    }
    Ok(Flow::Continue)
}

/// VOP3P packed 16-bit and gfx90a packed-f32 operations: sources are
/// selected per half by op_sel/op_sel_hi and negated by neg_lo/neg_hi, then
/// the operation runs on both halves (via [`alu::packed`]).
fn vop3p(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use alu::packed as pk;
    let name = base_name(i.opcode().name());
    let words = i.words();
    let (w0, w1) = (words[0], words.get(1).copied().unwrap_or(0));
    let sel = |k: usize| w0 >> (11 + k) & 1 == 1;
    let sel_hi = |k: usize| {
        if k < 2 {
            w1 >> (27 + k) & 1 == 1
        } else {
            w0 >> 14 & 1 == 1
        }
    };
    let neg_lo = |k: usize| w1 >> (29 + k) & 1 == 1;
    let neg_hi = |k: usize| w0 >> (8 + k) & 1 == 1;
    let clamp = w0 >> 15 & 1 == 1;
    let Some(d) = c.dst(0).copied() else {
        return Err(unsupported(w, i, c.pc));
    };
    let nsrc = (c.ops.nsrc as usize).min(3);
    let wide = name.ends_with("_f32");
    let is_float = name.ends_with("_f16") || wide;
    if clamp
        && !matches!(
            name,
            "v_pk_add_u16" | "v_pk_sub_u16" | "v_pk_add_i16" | "v_pk_sub_i16"
        )
    {
        return Err(unsupported(w, i, c.pc));
    }
    let m = md();
    if wide {
        // The operation is chosen once; the lanes run in a vectorised loop
        // (hardware FMA when the CPU has it).
        if !matches!(
            (name, nsrc),
            ("v_pk_fma_f32", 3) | ("v_pk_mul_f32", 2) | ("v_pk_add_f32", 2)
        ) {
            return Err(unsupported(w, i, c.pc));
        }
        // The low and the high halves are two independent 64-lane f32
        // operations, each reading its operand halves in place.
        let mut bufs = [[0u32; LANES]; 6];
        let [b0, b1, b2, b3, b4, b5] = &mut bufs;
        let mut lo_src = [None; 3];
        let mut hi_src = [None; 3];
        for (k, (bl, bh)) in [(b0, b1), (b2, b3), (b4, b5)]
            .into_iter()
            .enumerate()
            .take(nsrc)
        {
            let Some(op) = c.src(k) else { continue };
            lo_src[k] = Some(pk_half(w, op, sel(k), neg_lo(k), bl));
            hi_src[k] = Some(pk_half(w, op, sel_hi(k), neg_hi(k), bh));
        }
        let ctl = m.f32();
        let (fi, fo) = (!ctl.denorm.allow_in, !ctl.denorm.allow_out);
        let zero = [0u32; LANES];
        let z = lanes::Src::f32(&zero, false, false);
        let mut halves = [[0u32; LANES]; 2];
        for (out, src) in halves.iter_mut().zip([lo_src, hi_src]) {
            let [a, b, cc] = src.map(|x| x.unwrap_or(z));
            let host = match name {
                "v_pk_fma_f32" => lanes::fma_f32(out, a, b, cc, fi, fo),
                "v_pk_mul_f32" => lanes::mul_f32(out, a, b, cc, fi, fo),
                _ => lanes::add_f32(out, a, b, cc, fi, fo),
            };
            // NaN results, and rounding other than nearest-even, take the
            // reference path.
            let rne = ctl.round == alu::Round::NearestEven;
            if host || !rne {
                for (l, o) in out.iter_mut().enumerate() {
                    if rne && !f32::from_bits(*o).is_nan() {
                        continue;
                    }
                    let (x, y, zz) = (a.at(l), b.at(l), cc.at(l));
                    *o = match name {
                        "v_pk_fma_f32" => alu::float::fma_f32(x, y, zz, m),
                        "v_pk_mul_f32" => alu::float::mul_f32(x, y, m),
                        _ => alu::float::add_f32(x, y, m),
                    };
                }
            }
        }
        let [lo, hi] = halves;
        let mut d1 = d;
        if let Operand::Reg(mut rr) = d1.value {
            rr.first = rr.first.wrapping_add(1);
            d1.value = Operand::Reg(rr);
        }
        write_lanes32(w, &d, &lo);
        write_lanes32(w, &d1, &hi);
        return Ok(Flow::Continue);
    }
    let f: fn(u32, u32, u32, alu::Mode, bool) -> u32 = match (name, nsrc) {
        ("v_pk_add_f16", 2) => |a, b, _, m, _| pk::pk_add_f16(a, b, m),
        ("v_pk_mul_f16", 2) => |a, b, _, m, _| pk::pk_mul_f16(a, b, m),
        ("v_pk_fma_f16", 3) => |a, b, c, m, _| pk::pk_fma_f16(a, b, c, m),
        ("v_pk_max_f16", 2) => |a, b, _, m, _| pk::pk_max_f16(a, b, m),
        ("v_pk_min_f16", 2) => |a, b, _, m, _| pk::pk_min_f16(a, b, m),
        ("v_pk_add_u16", 2) => |a, b, _, _, cl| pk::pk_add_u16(a, b, cl),
        ("v_pk_sub_u16", 2) => |a, b, _, _, cl| pk::pk_sub_u16(a, b, cl),
        ("v_pk_add_i16", 2) => |a, b, _, _, cl| pk::pk_add_i16(a, b, cl),
        ("v_pk_sub_i16", 2) => |a, b, _, _, cl| pk::pk_sub_i16(a, b, cl),
        ("v_pk_mul_lo_u16", 2) => |a, b, _, _, _| pk::pk_mul_lo_u16(a, b),
        ("v_pk_mad_u16", 3) => |a, b, c, _, _| pk::pk_mad_u16(a, b, c, false),
        ("v_pk_mad_i16", 3) => |a, b, c, _, _| pk::pk_mad_i16(a, b, c, false),
        ("v_pk_lshlrev_b16", 2) => |a, b, _, _, _| pk::pk_lshlrev_b16(a, b),
        ("v_pk_lshrrev_b16", 2) => |a, b, _, _, _| pk::pk_lshrrev_b16(a, b),
        ("v_pk_ashrrev_i16", 2) => |a, b, _, _, _| pk::pk_ashrrev_i16(a, b),
        ("v_pk_max_i16", 2) => |a, b, _, _, _| pk::pk_max_i16(a, b),
        ("v_pk_min_i16", 2) => |a, b, _, _, _| pk::pk_min_i16(a, b),
        ("v_pk_max_u16", 2) => |a, b, _, _, _| pk::pk_max_u16(a, b),
        ("v_pk_min_u16", 2) => |a, b, _, _, _| pk::pk_min_u16(a, b),
        _ => return Err(unsupported(w, i, c.pc)),
    };
    let mut v = [[0u32; LANES]; 3];
    for (k, vk) in v.iter_mut().enumerate().take(nsrc) {
        let Some(op) = c.src(k) else { continue };
        let (s, sh, nl, nh) = (sel(k), sel_hi(k), neg_lo(k), neg_hi(k));
        let raw = match op.value {
            Operand::Reg(_) => lanes32(w, op),
            // An inline constant or literal feeds both halves.
            _ => {
                let x = const32(op).unwrap_or(0) & 0xffff;
                [x | (x << 16); LANES]
            }
        };
        for (x, r) in vk.iter_mut().zip(&raw) {
            let y = pk::pk_operand(*r, s, sh);
            *x = if is_float {
                pk::pk_neg_f16(y, nl, nh)
            } else {
                y
            };
        }
    }
    let mut r = [0u32; LANES];
    lanes::map3_u32(&mut r, &v[0], &v[1], &v[2], |a, b, c| f(a, b, c, m, clamp));
    write_lanes32(w, &d, &r);
    Ok(Flow::Continue)
}

/// One 32-bit half of a packed-f32 source, in place: register `first +
/// half` of a VGPR/AGPR pair, or the half of a scalar pair or constant
/// (a constant feeds both halves), with `neg` as a sign flip.
fn pk_half<'a>(w: &'a Wave, op: &Op, half: bool, neg: bool, buf: &'a mut VReg) -> lanes::Src<'a> {
    let v: &'a VReg = match op.value {
        Operand::Reg(RegRange {
            file: f @ (RegFile::Vgpr | RegFile::Agpr),
            first,
            ..
        }) => {
            let regs = if f == RegFile::Vgpr { &w.vgpr } else { &w.agpr };
            match regs.get(first as usize + usize::from(half)) {
                Some(r) => r,
                None => {
                    *buf = [0; LANES];
                    buf
                }
            }
        }
        Operand::Reg(_) => {
            let x = s64(w, op);
            *buf = [if half { (x >> 32) as u32 } else { x as u32 }; LANES];
            buf
        }
        _ => {
            *buf = [const32(op).unwrap_or(0); LANES];
            buf
        }
    };
    lanes::Src::f32(v, false, neg)
}

/// 16-bit float VALU ops on the low halves (the result's high half is
/// zeroed); VOP3 op_sel forms are not modelled and stop as unsupported.
fn valu_f16(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use alu::soft::F16;
    let name = base_name(i.opcode().name());
    if i.encoding() == Encoding::Vop3
        && (i.words()[0] >> 11 & 0xf != 0 || vop3_clamp_omod(i) != (false, 0))
    {
        return Err(unsupported(w, i, c.pc));
    }
    let Some(d) = c.dst(0).copied() else {
        return Err(unsupported(w, i, c.pc));
    };
    let srcs: Vec<Op> = c.srcs().copied().collect();
    let acc = if name.starts_with("v_fmac_") || name.starts_with("v_mac_") {
        Some(d)
    } else {
        None
    };
    for l in 0..LANES {
        if !w.active(l) {
            continue;
        }
        let mut v: Vec<u64> = srcs
            .iter()
            .map(|op| {
                let x = u64::from(v32(w, op, l) & 0xffff);
                alu::float::input_mods::<F16>(x, op.abs, op.neg)
            })
            .collect();
        if let Some(a) = acc {
            v.push(u64::from(v32(w, &a, l) & 0xffff));
        }
        let r = match (name, v.as_slice()) {
            ("v_add_f16", [a, b]) => alu::float::add::<F16>(*a, *b, md()),
            ("v_sub_f16", [a, b]) => alu::float::sub::<F16>(*a, *b, md()),
            ("v_subrev_f16", [a, b]) => alu::float::sub::<F16>(*b, *a, md()),
            ("v_mul_f16", [a, b]) => alu::float::mul::<F16>(*a, *b, md()),
            ("v_max_f16", [a, b]) => alu::float::max::<F16>(*a, *b, md()),
            ("v_min_f16", [a, b]) => alu::float::min::<F16>(*a, *b, md()),
            ("v_fma_f16" | "v_fmac_f16", [a, b, cc]) => alu::float::fma::<F16>(*a, *b, *cc, md()),
            _ => return Err(unsupported(w, i, c.pc)),
        };
        vwrite(w, &d, l, 0, r as u32 & 0xffff);
    }
    Ok(Flow::Continue)
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
fn handler_for(name: &str) -> Option<Handler> {
    if let Some(rest) = name.strip_prefix("v_cmp") {
        let (x, rest) = match rest.strip_prefix("x_") {
            Some(r) => (true, r),
            None => (false, rest.strip_prefix('_')?),
        };
        let (pred, ty) = rest.rsplit_once('_')?;
        if pred == "class" {
            return match (ty, x) {
                ("f32", false) => Some(vcmp!(u32, false, |a, b| alu::cmp::cmp_class_f32(a, b))),
                ("f32", true) => Some(vcmp!(u32, true, |a, b| alu::cmp::cmp_class_f32(a, b))),
                ("f64", false) => Some(vcmp!(u64, false, |a, b| alu::cmp::cmp_class_f64(
                    a, b as u32
                ))),
                ("f64", true) => Some(vcmp!(u64, true, |a, b| alu::cmp::cmp_class_f64(
                    a, b as u32
                ))),
                _ => None,
            };
        }
        return match (ty, x) {
            ("u32", false) => cmp_family!(pred, u32, false),
            ("u32", true) => cmp_family!(pred, u32, true),
            ("i32", false) => cmp_family!(pred, i32, false),
            ("i32", true) => cmp_family!(pred, i32, true),
            ("u64", false) => cmp_family!(pred, u64, false),
            ("u64", true) => cmp_family!(pred, u64, true),
            ("i64", false) => cmp_family!(pred, i64, false),
            ("i64", true) => cmp_family!(pred, i64, true),
            ("f32", false) => fcmp_family!(pred, f32, false),
            ("f32", true) => fcmp_family!(pred, f32, true),
            ("f64", false) => fcmp_family!(pred, f64, false),
            ("f64", true) => fcmp_family!(pred, f64, true),
            _ => None,
        };
    }
    if name.starts_with("global_") || name.starts_with("flat_") || name.starts_with("scratch_") {
        return Some(vmem);
    }
    if name.starts_with("buffer_load_") || name.starts_with("buffer_store_") {
        return Some(mubuf);
    }
    if name.starts_with("ds_") {
        return Some(ds);
    }
    if name.starts_with("v_mfma_") {
        return Some(mfma_op);
    }
    if name.starts_with("v_pk_") && name != "v_pk_mov_b32" {
        return Some(vop3p);
    }
    if matches!(
        name,
        "v_add_f16"
            | "v_sub_f16"
            | "v_subrev_f16"
            | "v_mul_f16"
            | "v_max_f16"
            | "v_min_f16"
            | "v_fma_f16"
            | "v_fmac_f16"
    ) {
        return Some(valu_f16);
    }
    Some(match name {
        // ---- SOPP
        "s_nop" | "s_waitcnt" | "s_setprio" | "s_sleep" | "s_dcache_wb" | "s_dcache_inv"
        | "s_icache_inv" | "s_buffer_wbinvl1" | "buffer_wbinvl1_vol" | "buffer_inv"
        | "buffer_wbl2" | "buffer_invl2" | "buffer_wbinvl1" | "s_ttracedata" => nop,
        "s_endpgm" => |_x, _w, _l, _i, _c| Ok(Flow::End),
        "s_set_gpr_idx_on" => |_x, w, _l, i, c| {
            // The index comes from the SGPR source; the mode from simm (SOPC ssrc1).
            let idx = c.src(0).map_or(0, |s| s32(w, s)) & 0xff;
            let mode = (i.words()[0] >> 8 & 0xf) as u8;
            w.m0 = (w.m0 & !0xff) | idx;
            w.gpr_idx = Some((mode, idx));
            Ok(Flow::Continue)
        },
        "s_getreg_b32" => |_x, w, _l, i, c| {
            let (id, off, size) = hwreg(i);
            if id != HW_REG_MODE {
                return Err(unsupported(w, i, c.pc));
            }
            if let Some(d) = c.dst(0).copied() {
                let v = (w.mode >> off) & mask_bits(size);
                s_write32(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        "s_setreg_b32" | "s_setreg_imm32_b32" => |_x, w, _l, i, c| {
            let (id, off, size) = hwreg(i);
            if id != HW_REG_MODE {
                return Err(unsupported(w, i, c.pc));
            }
            let v = match i.literal() {
                Some(l) if i.opcode().name() == "s_setreg_imm32_b32" => l,
                _ => c
                    .ops
                    .as_slice()
                    .iter()
                    .find(|o| o.field() == Field::Sdst)
                    .map_or(0, |o| s32(w, o)),
            };
            let m = mask_bits(size) << off;
            w.mode = (w.mode & !m) | ((v << off) & m);
            Ok(Flow::Continue)
        },
        "s_set_gpr_idx_off" => |_x, w, _l, _i, _c| {
            w.gpr_idx = None;
            Ok(Flow::Continue)
        },
        "s_barrier" => |_x, _w, _l, _i, _c| Ok(Flow::Barrier),
        // Only MSG_INTERRUPT (message ID 1 in SIMM16[3:0]) is modelled: it
        // raises a host interrupt carrying M0, which the runtime's hook
        // receives. Other messages (GS, save-wave, ...) stop as unsupported.
        "s_sendmsg" => |x, w, _l, i, c| {
            if i.field(Field::Simm16).unwrap_or(0) & 0xf != 1 {
                return Err(unsupported(w, i, c.pc));
            }
            if let Some(f) = x.interrupt {
                f(w.m0);
            }
            Ok(Flow::Continue)
        },
        "s_branch" => |_x, w, _l, _i, c| {
            w.pc = c.target.unwrap_or(w.pc);
            Ok(Flow::Continue)
        },
        "s_cbranch_scc0" => cbr!(|w| !w.scc),
        "s_cbranch_scc1" => cbr!(|w| w.scc),
        "s_cbranch_vccz" => cbr!(|w| w.vcc() == 0),
        "s_cbranch_vccnz" => cbr!(|w| w.vcc() != 0),
        "s_cbranch_execz" => cbr!(|w| w.exec == 0),
        "s_cbranch_execnz" => cbr!(|w| w.exec != 0),
        "s_trap" => |_x, w, _l, i, c| {
            Err(Stop::Trap {
                code: i.field(Field::Simm16).unwrap_or(0) & 0xff,
                pc: c.pc,
                wave: id(w),
            })
        },
        "s_getpc_b64" => |_x, w, _l, i, c| {
            if let Some(d) = c.dst(0) {
                s_write64(w, &d.clone(), c.pc + i.len() as u64);
            }
            Ok(Flow::Continue)
        },
        "s_setpc_b64" => |_x, w, _l, _i, c| {
            if let Some(s) = c.src(0) {
                w.pc = s64(w, s);
            }
            Ok(Flow::Continue)
        },
        "s_swappc_b64" => |_x, w, _l, i, c| {
            let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) else {
                return Ok(Flow::Continue);
            };
            let target = s64(w, &s);
            s_write64(w, &d, c.pc + i.len() as u64);
            w.pc = target;
            Ok(Flow::Continue)
        },
        // SOPK: the return address (the next instruction) into SDST, then a
        // PC-relative jump (SIMM16 dwords from the next instruction).
        "s_call_b64" => |_x, w, _l, i, c| {
            let (Some(d), Some(t)) = (c.dst(0).copied(), c.target) else {
                return Err(unsupported(w, i, c.pc));
            };
            s_write64(w, &d, c.pc + i.len() as u64);
            w.pc = t;
            Ok(Flow::Continue)
        },
        // ---- SOP1
        "s_mov_b32" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                let v = s32(w, &s);
                s_write32(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        "s_mov_b64" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                let v = s64(w, &s);
                s_write64(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        "s_cmov_b32" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                if w.scc {
                    let v = s32(w, &s);
                    s_write32(w, &d, v);
                }
            }
            Ok(Flow::Continue)
        },
        "s_not_b32" => sop1_32!(|w, a| {
            let r = !a;
            w.scc = r != 0;
            r
        }),
        "s_not_b64" => sop1_64!(|w, a| {
            let r = !a;
            w.scc = r != 0;
            r
        }),
        "s_brev_b32" => sop1_32!(|_w, a| a.reverse_bits()),
        "s_sext_i32_i8" => sop1_32!(|_w, a| a as i8 as i32 as u32),
        "s_sext_i32_i16" => sop1_32!(|_w, a| a as i16 as i32 as u32),
        "s_abs_i32" => sop1_32!(|w, a| {
            let r = (a as i32).wrapping_abs() as u32;
            w.scc = r != 0;
            r
        }),
        "s_bcnt1_i32_b32" => sop1_32!(|w, a| {
            let r = a.count_ones();
            w.scc = r != 0;
            r
        }),
        "s_bcnt1_i32_b64" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                let r = s64(w, &s).count_ones();
                w.scc = r != 0;
                s_write32(w, &d, r);
            }
            Ok(Flow::Continue)
        },
        "s_ff1_i32_b32" => sop1_32!(|_w, a| if a == 0 { u32::MAX } else { a.trailing_zeros() }),
        "s_ff1_i32_b64" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                let a = s64(w, &s);
                s_write32(w, &d, if a == 0 { u32::MAX } else { a.trailing_zeros() });
            }
            Ok(Flow::Continue)
        },
        "s_flbit_i32_b32" => sop1_32!(|_w, a| if a == 0 { u32::MAX } else { a.leading_zeros() }),
        "s_and_saveexec_b64" => saveexec!(|s, e| s & e),
        "s_or_saveexec_b64" => saveexec!(|s, e| s | e),
        "s_xor_saveexec_b64" => saveexec!(|s, e| s ^ e),
        "s_andn2_saveexec_b64" => saveexec!(|s, e| s & !e),
        "s_orn2_saveexec_b64" => saveexec!(|s, e| s | !e),
        // ---- SOP2
        "s_add_u32" => salu32!(
            |a, b| a.wrapping_add(b),
            scc = |r| Some(u64::from(a) + u64::from(b) > 0xffff_ffff)
        ),
        "s_sub_u32" => salu32!(|a, b| a.wrapping_sub(b), scc = |r| Some(b > a)),
        "s_add_i32" => salu32!(
            |a, b| a.wrapping_add(b),
            scc = |r| Some((a as i32).checked_add(b as i32).is_none())
        ),
        "s_sub_i32" => salu32!(
            |a, b| a.wrapping_sub(b),
            scc = |r| Some((a as i32).checked_sub(b as i32).is_none())
        ),
        "s_addc_u32" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            let t = u64::from(s32(w, &s0)) + u64::from(s32(w, &s1)) + u64::from(w.scc);
            w.scc = t > 0xffff_ffff;
            s_write32(w, &d, t as u32);
            Ok(Flow::Continue)
        },
        "s_subb_u32" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            let (a, b, ci) = (
                u64::from(s32(w, &s0)),
                u64::from(s32(w, &s1)),
                u64::from(w.scc),
            );
            w.scc = b + ci > a;
            s_write32(w, &d, a.wrapping_sub(b).wrapping_sub(ci) as u32);
            Ok(Flow::Continue)
        },
        "s_mul_i32" => salu32!(|a, b| a.wrapping_mul(b), scc = |r| None),
        "s_mul_hi_u32" => salu32!(
            |a, b| ((u64::from(a) * u64::from(b)) >> 32) as u32,
            scc = |r| None
        ),
        "s_mul_hi_i32" => salu32!(
            |a, b| ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32,
            scc = |r| None
        ),
        "s_and_b32" => salu32!(|a, b| a & b, scc = |r| Some(r != 0)),
        "s_or_b32" => salu32!(|a, b| a | b, scc = |r| Some(r != 0)),
        "s_xor_b32" => salu32!(|a, b| a ^ b, scc = |r| Some(r != 0)),
        "s_andn2_b32" => salu32!(|a, b| a & !b, scc = |r| Some(r != 0)),
        "s_orn2_b32" => salu32!(|a, b| a | !b, scc = |r| Some(r != 0)),
        "s_nand_b32" => salu32!(|a, b| !(a & b), scc = |r| Some(r != 0)),
        "s_nor_b32" => salu32!(|a, b| !(a | b), scc = |r| Some(r != 0)),
        "s_xnor_b32" => salu32!(|a, b| !(a ^ b), scc = |r| Some(r != 0)),
        "s_and_b64" => salu64!(|a, b| a & b, scc = |r| Some(r != 0)),
        "s_or_b64" => salu64!(|a, b| a | b, scc = |r| Some(r != 0)),
        "s_xor_b64" => salu64!(|a, b| a ^ b, scc = |r| Some(r != 0)),
        "s_andn2_b64" => salu64!(|a, b| a & !b, scc = |r| Some(r != 0)),
        "s_orn2_b64" => salu64!(|a, b| a | !b, scc = |r| Some(r != 0)),
        "s_nand_b64" => salu64!(|a, b| !(a & b), scc = |r| Some(r != 0)),
        "s_nor_b64" => salu64!(|a, b| !(a | b), scc = |r| Some(r != 0)),
        "s_xnor_b64" => salu64!(|a, b| !(a ^ b), scc = |r| Some(r != 0)),
        "s_lshl_b32" => salu32!(|a, b| a << (b & 31), scc = |r| Some(r != 0)),
        "s_lshr_b32" => salu32!(|a, b| a >> (b & 31), scc = |r| Some(r != 0)),
        "s_ashr_i32" => salu32!(
            |a, b| ((a as i32) >> (b & 31)) as u32,
            scc = |r| Some(r != 0)
        ),
        "s_lshl_b64" => salu64!(|a, b| a << (b & 63), scc = |r| Some(r != 0)),
        "s_lshr_b64" => salu64!(|a, b| a >> (b & 63), scc = |r| Some(r != 0)),
        "s_ashr_i64" => salu64!(
            |a, b| ((a as i64) >> (b & 63)) as u64,
            scc = |r| Some(r != 0)
        ),
        "s_lshl1_add_u32" => salu32!(
            |a, b| (a << 1).wrapping_add(b),
            scc = |r| Some((u64::from(a) << 1) + u64::from(b) > 0xffff_ffff)
        ),
        "s_lshl2_add_u32" => salu32!(
            |a, b| (a << 2).wrapping_add(b),
            scc = |r| Some((u64::from(a) << 2) + u64::from(b) > 0xffff_ffff)
        ),
        "s_lshl3_add_u32" => salu32!(
            |a, b| (a << 3).wrapping_add(b),
            scc = |r| Some((u64::from(a) << 3) + u64::from(b) > 0xffff_ffff)
        ),
        "s_lshl4_add_u32" => salu32!(
            |a, b| (a << 4).wrapping_add(b),
            scc = |r| Some((u64::from(a) << 4) + u64::from(b) > 0xffff_ffff)
        ),
        "s_min_i32" => salu32!(
            |a, b| (a as i32).min(b as i32) as u32,
            scc = |r| Some((a as i32) < (b as i32))
        ),
        "s_min_u32" => salu32!(|a, b| a.min(b), scc = |r| Some(a < b)),
        "s_max_i32" => salu32!(
            |a, b| (a as i32).max(b as i32) as u32,
            scc = |r| Some((a as i32) > (b as i32))
        ),
        "s_max_u32" => salu32!(|a, b| a.max(b), scc = |r| Some(a > b)),
        "s_cselect_b32" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            {
                let v = if w.scc { s32(w, &s0) } else { s32(w, &s1) };
                s_write32(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        "s_cselect_b64" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            {
                let v = if w.scc { s64(w, &s0) } else { s64(w, &s1) };
                s_write64(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        "s_bfe_u32" => salu32!(
            |a, b| bfe_u32(a, b & 31, (b >> 16) & 0x7f),
            scc = |r| Some(r != 0)
        ),
        "s_bfe_i32" => salu32!(
            |a, b| bfe_i32(a, b & 31, (b >> 16) & 0x7f),
            scc = |r| Some(r != 0)
        ),
        "s_bfm_b32" => salu32!(
            |a, b| (((1u64 << (a & 31)) - 1) as u32) << (b & 31),
            scc = |r| None
        ),
        "s_pack_ll_b32_b16" => salu32!(|a, b| (a & 0xffff) | (b << 16), scc = |r| None),
        "s_pack_lh_b32_b16" => salu32!(|a, b| (a & 0xffff) | (b & 0xffff_0000), scc = |r| None),
        "s_pack_hh_b32_b16" => salu32!(|a, b| (a >> 16) | (b & 0xffff_0000), scc = |r| None),
        // ---- SOPC
        "s_cmp_eq_u32" | "s_cmp_eq_i32" => sopc!(|a, b| a == b),
        "s_cmp_lg_u32" | "s_cmp_lg_i32" => sopc!(|a, b| a != b),
        "s_cmp_lt_u32" => sopc!(|a, b| a < b),
        "s_cmp_le_u32" => sopc!(|a, b| a <= b),
        "s_cmp_gt_u32" => sopc!(|a, b| a > b),
        "s_cmp_ge_u32" => sopc!(|a, b| a >= b),
        "s_cmp_lt_i32" => sopc!(|a, b| (a as i32) < (b as i32)),
        "s_cmp_le_i32" => sopc!(|a, b| (a as i32) <= (b as i32)),
        "s_cmp_gt_i32" => sopc!(|a, b| (a as i32) > (b as i32)),
        "s_cmp_ge_i32" => sopc!(|a, b| (a as i32) >= (b as i32)),
        "s_cmp_eq_u64" => |_x, w, _l, _i, c| {
            if let (Some(a), Some(b)) = (c.src(0), c.src(1)) {
                w.scc = s64(w, a) == s64(w, b);
            }
            Ok(Flow::Continue)
        },
        "s_cmp_lg_u64" => |_x, w, _l, _i, c| {
            if let (Some(a), Some(b)) = (c.src(0), c.src(1)) {
                w.scc = s64(w, a) != s64(w, b);
            }
            Ok(Flow::Continue)
        },
        "s_bitcmp1_b32" => sopc!(|a, b| a >> (b & 31) & 1 == 1),
        "s_bitcmp0_b32" => sopc!(|a, b| a >> (b & 31) & 1 == 0),
        // ---- SOPK
        "s_movk_i32" => |_x, w, _l, i, c| {
            if let Some(d) = c.dst(0).copied() {
                let k = i.field(Field::Simm16).unwrap_or(0) as u16 as i16 as i32 as u32;
                s_write32(w, &d, k);
            }
            Ok(Flow::Continue)
        },
        "s_addk_i32" => |_x, w, _l, i, c| {
            if let Some(d) = c.dst(0).copied() {
                let k = i.field(Field::Simm16).unwrap_or(0) as u16 as i16 as i32;
                let a = s32(w, &d) as i32;
                w.scc = a.checked_add(k).is_none();
                s_write32(w, &d, a.wrapping_add(k) as u32);
            }
            Ok(Flow::Continue)
        },
        "s_mulk_i32" => |_x, w, _l, i, c| {
            if let Some(d) = c.dst(0).copied() {
                let k = i.field(Field::Simm16).unwrap_or(0) as u16 as i16 as i32;
                let a = s32(w, &d) as i32;
                s_write32(w, &d, a.wrapping_mul(k) as u32);
            }
            Ok(Flow::Continue)
        },
        "s_cmpk_eq_u32" | "s_cmpk_eq_i32" => sopk_cmp!(|a, k| a == k),
        "s_cmpk_lg_u32" | "s_cmpk_lg_i32" => sopk_cmp!(|a, k| a != k),
        "s_cmpk_lt_u32" => sopk_cmp!(|a, k| a < (k & 0xffff)),
        "s_cmpk_gt_u32" => sopk_cmp!(|a, k| a > (k & 0xffff)),
        "s_cmpk_le_u32" => sopk_cmp!(|a, k| a <= (k & 0xffff)),
        "s_cmpk_ge_u32" => sopk_cmp!(|a, k| a >= (k & 0xffff)),
        "s_cmpk_lt_i32" => sopk_cmp!(|a, k| (a as i32) < (k as i32)),
        "s_cmpk_gt_i32" => sopk_cmp!(|a, k| (a as i32) > (k as i32)),
        "s_cmpk_le_i32" => sopk_cmp!(|a, k| (a as i32) <= (k as i32)),
        "s_cmpk_ge_i32" => sopk_cmp!(|a, k| (a as i32) >= (k as i32)),
        // ---- SMEM
        "s_load_dword" | "s_load_dwordx2" | "s_load_dwordx4" | "s_load_dwordx8"
        | "s_load_dwordx16" => smem_load,
        // ---- VOP1 / VOP2 / VOP3, integer
        "v_mov_b32" => valu_u32!(|a| a),
        "v_not_b32" => valu_u32!(|a| !a),
        "v_bfrev_b32" => valu_u32!(|a| a.reverse_bits()),
        "v_ffbh_u32" => valu_u32!(|a| if a == 0 { u32::MAX } else { a.leading_zeros() }),
        "v_ffbl_b32" => valu_u32!(|a| if a == 0 { u32::MAX } else { a.trailing_zeros() }),
        "v_add_u32" => valu_u32!(|a, b| a.wrapping_add(b)),
        "v_sub_u32" => valu_u32!(|a, b| a.wrapping_sub(b)),
        "v_subrev_u32" => valu_u32!(|a, b| b.wrapping_sub(a)),
        "v_and_b32" => valu_u32!(|a, b| a & b),
        "v_or_b32" => valu_u32!(|a, b| a | b),
        "v_xor_b32" => valu_u32!(|a, b| a ^ b),
        "v_lshlrev_b32" => valu_u32!(|a, b| b << (a & 31)),
        "v_lshrrev_b32" => valu_u32!(|a, b| b >> (a & 31)),
        "v_ashrrev_i32" => valu_u32!(|a, b| ((b as i32) >> (a & 31)) as u32),
        "v_min_u32" => valu_u32!(|a, b| a.min(b)),
        "v_max_u32" => valu_u32!(|a, b| a.max(b)),
        "v_min_i32" => valu_u32!(|a, b| (a as i32).min(b as i32) as u32),
        "v_max_i32" => valu_u32!(|a, b| (a as i32).max(b as i32) as u32),
        "v_mul_lo_u32" => valu_u32!(|a, b| a.wrapping_mul(b)),
        "v_mul_hi_u32" => valu_u32!(|a, b| ((u64::from(a) * u64::from(b)) >> 32) as u32),
        "v_mul_hi_i32" => {
            valu_u32!(|a, b| ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32)
        }
        "v_mul_u32_u24" => valu_u32!(|a, b| (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff)),
        "v_mul_i32_i24" => {
            valu_u32!(|a, b| (((a << 8) as i32 >> 8).wrapping_mul((b << 8) as i32 >> 8)) as u32)
        }
        "v_mul_hi_i32_i24" => valu_u32!(|a, b| crate::alu::int::mul_hi_i32_i24(a, b)),
        "v_mul_hi_u32_u24" => {
            valu_u32!(|a, b| ((u64::from(a & 0xff_ffff) * u64::from(b & 0xff_ffff)) >> 32) as u32)
        }
        "v_add_lshl_u32" => valu_u32!(|a, b, s| a.wrapping_add(b) << (s & 31)),
        "v_lshl_add_u32" => valu_u32!(|a, b, s| (a << (b & 31)).wrapping_add(s)),
        "v_lshl_or_b32" => valu_u32!(|a, b, s| (a << (b & 31)) | s),
        "v_and_or_b32" => valu_u32!(|a, b, s| (a & b) | s),
        "v_or3_b32" => valu_u32!(|a, b, s| a | b | s),
        "v_xad_u32" => valu_u32!(|a, b, s| (a ^ b).wrapping_add(s)),
        "v_add3_u32" => valu_u32!(|a, b, s| a.wrapping_add(b).wrapping_add(s)),
        "v_mad_u32_u24" => {
            valu_u32!(|a, b, s| (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff).wrapping_add(s))
        }
        "v_mad_i32_i24" => valu_u32!(|a, b, s| (((a << 8) as i32 >> 8)
            .wrapping_mul((b << 8) as i32 >> 8))
        .wrapping_add(s as i32) as u32),
        "v_bfe_u32" => valu_u32!(|a, b, s| bfe_u32(a, b & 31, s & 31)),
        "v_bfe_i32" => valu_u32!(|a, b, s| bfe_i32(a, b & 31, s & 31)),
        "v_bfi_b32" => valu_u32!(|a, b, s| (a & b) | (!a & s)),
        "v_alignbit_b32" => {
            valu_u32!(|a, b, s| (((u64::from(a) << 32) | u64::from(b)) >> (s & 31)) as u32)
        }
        "v_alignbyte_b32" => {
            valu_u32!(|a, b, s| (((u64::from(a) << 32) | u64::from(b)) >> (8 * (s & 3))) as u32)
        }
        "v_min3_u32" => valu_u32!(|a, b, s| a.min(b).min(s)),
        "v_max3_u32" => valu_u32!(|a, b, s| a.max(b).max(s)),
        "v_min3_i32" => valu_u32!(|a, b, s| (a as i32).min(b as i32).min(s as i32) as u32),
        "v_max3_i32" => valu_u32!(|a, b, s| (a as i32).max(b as i32).max(s as i32) as u32),
        "v_med3_i32" => valu_u32!(|a, b, s| med3(a as i32, b as i32, s as i32) as u32),
        "v_med3_u32" => valu_u32!(|a, b, s| med3(a, b, s)),
        "v_bcnt_u32_b32" => valu_u32!(|a, b| a.count_ones().wrapping_add(b)),
        "v_mbcnt_lo_u32_b32" => mbcnt!(false),
        "v_mbcnt_hi_u32_b32" => mbcnt!(true),
        "v_cndmask_b32" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            let mask = c.src(2).map_or(w.vcc(), |m| s64(w, m));
            let (va, vb) = (lanes32(w, &s0), lanes32(w, &s1));
            let mut out = [0u32; LANES];
            for l in 0..LANES {
                out[l] = if mask >> l & 1 == 1 {
                    f32_mods(&s1, vb[l])
                } else {
                    f32_mods(&s0, va[l])
                };
            }
            write_lanes32(w, &d, &out);
            Ok(Flow::Continue)
        },
        "v_add_co_u32" => carry_op!(|a, b, _c| u64::from(a) + u64::from(b), false),
        "v_sub_co_u32" => carry_op!(|a, b, _c| u64::from(a).wrapping_sub(u64::from(b)), false),
        "v_subrev_co_u32" => carry_op!(|a, b, _c| u64::from(b).wrapping_sub(u64::from(a)), false),
        "v_addc_co_u32" => carry_op!(|a, b, c| u64::from(a) + u64::from(b) + u64::from(c), true),
        "v_subb_co_u32" => carry_op!(
            |a, b, c| u64::from(a)
                .wrapping_sub(u64::from(b))
                .wrapping_sub(u64::from(c)),
            true
        ),
        "v_subbrev_co_u32" => carry_op!(
            |a, b, c| u64::from(b)
                .wrapping_sub(u64::from(a))
                .wrapping_sub(u64::from(c)),
            true
        ),
        "v_mad_u64_u32" => mad64!(false),
        "v_mad_i64_i32" => mad64!(true),
        "v_lshlrev_b64" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            let (sh, v) = (lanes32(w, &s0), lanes64(w, &s1));
            let mut out = [0u64; LANES];
            for l in 0..LANES {
                out[l] = v[l] << (sh[l] & 63);
            }
            write_lanes64(w, &d, &out);
            Ok(Flow::Continue)
        },
        "v_lshrrev_b64" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            let (sh, v) = (lanes32(w, &s0), lanes64(w, &s1));
            let mut out = [0u64; LANES];
            for l in 0..LANES {
                out[l] = v[l] >> (sh[l] & 63);
            }
            write_lanes64(w, &d, &out);
            Ok(Flow::Continue)
        },
        "v_ashrrev_i64" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            for l in 0..LANES {
                if w.active(l) {
                    let r = ((v64(w, &s1, l) as i64) >> (v32(w, &s0, l) & 63)) as u64;
                    vwrite(w, &d, l, 0, r as u32);
                    vwrite(w, &d, l, 1, (r >> 32) as u32);
                }
            }
            Ok(Flow::Continue)
        },
        "v_readfirstlane_b32" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                let lane = if w.exec == 0 {
                    0
                } else {
                    w.exec.trailing_zeros() as usize
                };
                let v = v32(w, &s, lane);
                s_write32(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        "v_readlane_b32" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s), Some(sel)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            {
                let lane = (s32(w, &sel) & 63) as usize;
                let v = v32(w, &s, lane);
                s_write32(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        "v_writelane_b32" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s), Some(sel)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            {
                let lane = (s32(w, &sel) & 63) as usize;
                let v = s32(w, &s);
                vwrite(w, &d, lane, 0, v);
            }
            Ok(Flow::Continue)
        },
        "v_accvgpr_write_b32" | "v_accvgpr_read_b32" | "v_accvgpr_mov_b32" => valu_u32!(|a| a),
        // ---- VALU float
        "v_add_f32" => valu_f32!(|a, b| a + b),
        "v_sub_f32" => valu_f32!(|a, b| a - b),
        "v_subrev_f32" => valu_f32!(|a, b| b - a),
        "v_mul_f32" => valu_f32!(|a, b| a * b),
        "v_min_f32" => {
            valu_u32!(
                |a, b| alu::float::min::<alu::soft::F32>(u64::from(a), u64::from(b), md()) as u32
            )
        }
        "v_max_f32" => {
            valu_u32!(
                |a, b| alu::float::max::<alu::soft::F32>(u64::from(a), u64::from(b), md()) as u32
            )
        }
        "v_fma_f32" => valu_f32!(|a, b, c| a.mul_add(b, c)),
        "v_fmac_f32" => mac_f32!(|a, b, c| a.mul_add(b, c)),
        "v_mac_f32" => mac_f32!(|a, b, c| mad_legacy_f32(a, b, c)),
        "v_fmac_f64" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            for l in 0..LANES {
                if w.active(l) {
                    let a = f64::from_bits(f64_mods(&s0, v64(w, &s0, l)));
                    let b = f64::from_bits(f64_mods(&s1, v64(w, &s1, l)));
                    let r = a.mul_add(b, f64::from_bits(v64(w, &d, l))).to_bits();
                    vwrite(w, &d, l, 0, r as u32);
                    vwrite(w, &d, l, 1, (r >> 32) as u32);
                }
            }
            Ok(Flow::Continue)
        },
        "v_rcp_iflag_f32" => valu_u32!(|a| alu::trans::rcp_iflag_f32(a, md())),
        "v_cvt_f64_f32" => unary64_from32!(|a| alu::cvt::cvt_f64_f32(a, md())),
        "v_cvt_f32_f64" => unary32_from64!(|a| alu::cvt::cvt_f32_f64(a, md())),
        "v_cvt_i32_f64" => unary32_from64!(|a| alu::cvt::cvt_i32_f64(a) as u32),
        "v_cvt_u32_f64" => unary32_from64!(|a| alu::cvt::cvt_u32_f64(a)),
        "v_cvt_f64_i32" => unary64_from32!(|a| alu::cvt::cvt_f64_i32(a as i32)),
        "v_cvt_f64_u32" => unary64_from32!(|a| alu::cvt::cvt_f64_u32(a)),
        "v_cvt_f16_f32" => valu_u32!(|a| u32::from(alu::cvt::cvt_f16_f32(a, md()))),
        "v_cvt_f32_f16" => valu_u32!(|a| alu::cvt::cvt_f32_f16(a as u16, md())),
        "v_cvt_pkrtz_f16_f32" => valu_u32!(|a, b| alu::cvt::cvt_pkrtz_f16_f32(a, b, md())),
        "v_perm_b32" => valu_u32!(|a, b, c| alu::int::perm_b32(a, b, c)),
        "v_rcp_f64" => unary64!(|a| alu::trans::rcp_f64(a, md())),
        "v_sqrt_f64" => unary64!(|a| alu::trans::sqrt_f64(a, md())),
        "v_rsq_f64" => unary64!(|a| alu::trans::rsq_f64(a, md())),
        "v_rndne_f64" => unary64!(|a| alu::float::rndne::<alu::soft::F64>(a, md())),
        "v_floor_f64" => unary64!(|a| alu::float::floor::<alu::soft::F64>(a, md())),
        "v_trunc_f64" => unary64!(|a| alu::float::trunc::<alu::soft::F64>(a, md())),
        "v_ceil_f64" => unary64!(|a| alu::float::ceil::<alu::soft::F64>(a, md())),
        "v_fract_f64" => unary64!(|a| alu::float::fract::<alu::soft::F64>(a, md())),
        "v_frexp_mant_f32" => {
            valu_u32!(|a| alu::float::frexp_mant::<alu::soft::F32>(u64::from(a), md()) as u32)
        }
        "v_frexp_exp_i32_f32" => valu_u32!(|a| alu::float::frexp_exp_f32(a, md()) as u32),
        "v_frexp_mant_f64" => unary64!(|a| alu::float::frexp_mant::<alu::soft::F64>(a, md())),
        "v_frexp_exp_i32_f64" => unary32_from64!(|a| alu::float::frexp_exp_f64(a, md()) as u32),
        "v_ldexp_f64" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            for l in 0..LANES {
                if w.active(l) {
                    let r = alu::float::ldexp_f64(
                        f64_mods(&s0, v64(w, &s0, l)),
                        v32(w, &s1, l) as i32,
                        md(),
                    );
                    vwrite(w, &d, l, 0, r as u32);
                    vwrite(w, &d, l, 1, (r >> 32) as u32);
                }
            }
            Ok(Flow::Continue)
        },
        "v_div_scale_f32" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            let mut vcc = 0u64;
            for l in 0..LANES {
                if w.active(l) {
                    let (r, f) = alu::float::div_scale_f32(
                        f32_mods(&s0, v32(w, &s0, l)),
                        f32_mods(&s1, v32(w, &s1, l)),
                        f32_mods(&s2, v32(w, &s2, l)),
                        md(),
                    );
                    vwrite(w, &d, l, 0, r);
                    vcc |= u64::from(f) << l;
                }
            }
            match c.dst(1).copied() {
                Some(sd) => s_write64(w, &sd, vcc),
                None => w.set_vcc(vcc),
            }
            Ok(Flow::Continue)
        },
        "v_div_scale_f64" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            let mut vcc = 0u64;
            for l in 0..LANES {
                if w.active(l) {
                    let (r, f) = alu::float::div_scale_f64(
                        f64_mods(&s0, v64(w, &s0, l)),
                        f64_mods(&s1, v64(w, &s1, l)),
                        f64_mods(&s2, v64(w, &s2, l)),
                        md(),
                    );
                    vwrite(w, &d, l, 0, r as u32);
                    vwrite(w, &d, l, 1, (r >> 32) as u32);
                    vcc |= u64::from(f) << l;
                }
            }
            match c.dst(1).copied() {
                Some(sd) => s_write64(w, &sd, vcc),
                None => w.set_vcc(vcc),
            }
            Ok(Flow::Continue)
        },
        "v_div_fmas_f32" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            let vcc = w.vcc();
            for l in 0..LANES {
                if w.active(l) {
                    let r = alu::float::div_fmas_f32(
                        f32_mods(&s0, v32(w, &s0, l)),
                        f32_mods(&s1, v32(w, &s1, l)),
                        f32_mods(&s2, v32(w, &s2, l)),
                        vcc >> l & 1 == 1,
                        md(),
                    );
                    vwrite(w, &d, l, 0, r);
                }
            }
            Ok(Flow::Continue)
        },
        "v_div_fmas_f64" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            let vcc = w.vcc();
            for l in 0..LANES {
                if w.active(l) {
                    let r = alu::float::div_fmas_f64(
                        f64_mods(&s0, v64(w, &s0, l)),
                        f64_mods(&s1, v64(w, &s1, l)),
                        f64_mods(&s2, v64(w, &s2, l)),
                        vcc >> l & 1 == 1,
                        md(),
                    );
                    vwrite(w, &d, l, 0, r as u32);
                    vwrite(w, &d, l, 1, (r >> 32) as u32);
                }
            }
            Ok(Flow::Continue)
        },
        "v_div_fixup_f32" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            for l in 0..LANES {
                if w.active(l) {
                    let r = alu::float::div_fixup_f32(
                        f32_mods(&s0, v32(w, &s0, l)),
                        f32_mods(&s1, v32(w, &s1, l)),
                        f32_mods(&s2, v32(w, &s2, l)),
                    );
                    vwrite(w, &d, l, 0, r);
                }
            }
            Ok(Flow::Continue)
        },
        "v_div_fixup_f64" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            for l in 0..LANES {
                if w.active(l) {
                    let r = alu::float::div_fixup_f64(
                        f64_mods(&s0, v64(w, &s0, l)),
                        f64_mods(&s1, v64(w, &s1, l)),
                        f64_mods(&s2, v64(w, &s2, l)),
                    );
                    vwrite(w, &d, l, 0, r as u32);
                    vwrite(w, &d, l, 1, (r >> 32) as u32);
                }
            }
            Ok(Flow::Continue)
        },
        "v_mov_b64" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s0)) = (c.dst(0).copied(), c.src(0).copied()) {
                for l in 0..LANES {
                    if w.active(l) {
                        let v = v64(w, &s0, l);
                        vwrite(w, &d, l, 0, v as u32);
                        vwrite(w, &d, l, 1, (v >> 32) as u32);
                    }
                }
            }
            Ok(Flow::Continue)
        },
        "v_lshl_add_u64" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            for l in 0..LANES {
                if w.active(l) {
                    let v = (v64(w, &s0, l) << (v32(w, &s1, l) & 63)).wrapping_add(v64(w, &s2, l));
                    vwrite(w, &d, l, 0, v as u32);
                    vwrite(w, &d, l, 1, (v >> 32) as u32);
                }
            }
            Ok(Flow::Continue)
        },
        "v_add_u16" => valu_u32!(|a, b| (a as u16).wrapping_add(b as u16) as u32),
        "v_sub_u16" => valu_u32!(|a, b| (a as u16).wrapping_sub(b as u16) as u32),
        "v_subrev_u16" => valu_u32!(|a, b| (b as u16).wrapping_sub(a as u16) as u32),
        "v_mul_lo_u16" => valu_u32!(|a, b| (a as u16).wrapping_mul(b as u16) as u32),
        "v_lshlrev_b16" => valu_u32!(|a, b| ((b as u16) << (a & 15)) as u32),
        "v_lshrrev_b16" => valu_u32!(|a, b| ((b as u16) >> (a & 15)) as u32),
        "v_ashrrev_i16" => valu_u32!(|a, b| ((b as i16) >> (a & 15)) as u16 as u32),
        "v_max_u16" => valu_u32!(|a, b| (a as u16).max(b as u16) as u32),
        "v_min_u16" => valu_u32!(|a, b| (a as u16).min(b as u16) as u32),
        "v_max_i16" => valu_u32!(|a, b| (a as i16).max(b as i16) as u16 as u32),
        "v_min_i16" => valu_u32!(|a, b| (a as i16).min(b as i16) as u16 as u32),
        "v_pk_mov_b32" => |_x, w, _l, i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            // op_sel[0] picks the half of src0 for the low result, op_sel[1]
            // the half of src1 for the high result (VOP3P word 0, bits 11-12).
            let w0 = i.words()[0];
            let (sel0, sel1) = (w0 >> 11 & 1 == 1, w0 >> 12 & 1 == 1);
            for l in 0..LANES {
                if w.active(l) {
                    let a = v64(w, &s0, l);
                    let b = v64(w, &s1, l);
                    let lo = if sel0 { (a >> 32) as u32 } else { a as u32 };
                    let hi = if sel1 { (b >> 32) as u32 } else { b as u32 };
                    vwrite(w, &d, l, 0, lo);
                    vwrite(w, &d, l, 1, hi);
                }
            }
            Ok(Flow::Continue)
        },
        "v_mad_f32" => valu_f32!(|a, b, c| mad_legacy_f32(a, b, c)),
        "v_fmaak_f32" | "v_fmamk_f32" => valu_f32!(|a, b, c| a.mul_add(b, c)),
        "v_madak_f32" | "v_madmk_f32" => valu_f32!(|a, b, c| mad_legacy_f32(a, b, c)),
        "v_max3_f32" => valu_u32!(|a, b, c| alu::float::max3::<alu::soft::F32>(
            u64::from(a),
            u64::from(b),
            u64::from(c),
            md()
        ) as u32),
        "v_min3_f32" => valu_u32!(|a, b, c| alu::float::min3::<alu::soft::F32>(
            u64::from(a),
            u64::from(b),
            u64::from(c),
            md()
        ) as u32),
        "v_med3_f32" => valu_u32!(|a, b, c| alu::float::med3::<alu::soft::F32>(
            u64::from(a),
            u64::from(b),
            u64::from(c),
            md()
        ) as u32),
        "v_ldexp_f32" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            for l in 0..LANES {
                if w.active(l) {
                    let a = f32::from_bits(f32_mods(&s0, v32(w, &s0, l)));
                    let e = v32(w, &s1, l) as i32;
                    vwrite(w, &d, l, 0, ldexp_f32(a, e).to_bits());
                }
            }
            Ok(Flow::Continue)
        },
        "v_rcp_f32" => valu_f32!(|a| 1.0 / a),
        "v_rsq_f32" => valu_f32!(|a| (1.0 / f64::from(a).sqrt()) as f32),
        "v_sqrt_f32" => valu_f32!(|a| a.sqrt()),
        "v_exp_f32" => valu_f32!(|a| f64::from(a).exp2() as f32),
        "v_log_f32" => valu_f32!(|a| f64::from(a).log2() as f32),
        // The input is in revolutions (sin(2*pi*a)); x - round(x) is exact for every
        // f32, so the reduction to [-0.5, 0.5] keeps the sign and relative
        // precision of small inputs (sin(+-0) = +-0).
        "v_sin_f32" => valu_f32!(|a| if a == 0.0 {
            a
        } else {
            let r = f64::from(a) - f64::from(a).round();
            (r * std::f64::consts::TAU).sin() as f32
        }),
        "v_cos_f32" => valu_f32!(|a| {
            let r = f64::from(a) - f64::from(a).round();
            (r * std::f64::consts::TAU).cos() as f32
        }),
        "v_trunc_f32" => valu_f32!(|a| a.trunc()),
        "v_ceil_f32" => valu_f32!(|a| a.ceil()),
        "v_floor_f32" => valu_f32!(|a| a.floor()),
        "v_rndne_f32" => valu_f32!(|a| a.round_ties_even()),
        "v_fract_f32" => valu_f32!(|a| if a.is_infinite() {
            f32::NAN
        } else {
            (a - a.floor()).min(f32::from_bits(0x3f7f_ffff))
        }),
        "v_cvt_f32_i32" => valu_u32!(|a| (a as i32 as f32).to_bits()),
        "v_cvt_f32_u32" => valu_u32!(|a| (a as f32).to_bits()),
        "v_cvt_i32_f32" => valu_u32!(|a| f32_to_i32(f32::from_bits(a)) as u32),
        "v_cvt_u32_f32" => valu_u32!(|a| f32_to_u32(f32::from_bits(a))),
        "v_cvt_f32_ubyte0" => valu_u32!(|a| ((a & 0xff) as f32).to_bits()),
        "v_cvt_f32_ubyte1" => valu_u32!(|a| ((a >> 8 & 0xff) as f32).to_bits()),
        "v_cvt_f32_ubyte2" => valu_u32!(|a| ((a >> 16 & 0xff) as f32).to_bits()),
        "v_cvt_f32_ubyte3" => valu_u32!(|a| ((a >> 24) as f32).to_bits()),
        "v_add_f64" => valu_f64!(|a, b| a + b),
        "v_mul_f64" => valu_f64!(|a, b| a * b),
        "v_min_f64" => valu_f64!(|a, b| f64::from_bits(alu::float::min::<alu::soft::F64>(
            a.to_bits(),
            b.to_bits(),
            md()
        ))),
        "v_max_f64" => valu_f64!(|a, b| f64::from_bits(alu::float::max::<alu::soft::F64>(
            a.to_bits(),
            b.to_bits(),
            md()
        ))),
        "v_fma_f64" => valu_f64!(|a, b, c| a.mul_add(b, c)),
        _ => return None,
    })
}

/// `hwreg(id, offset, size)` from a SOPK simm16.
fn hwreg(i: &Instruction) -> (u32, u32, u32) {
    let k = i.field(Field::Simm16).unwrap_or(0);
    (k & 0x3f, (k >> 6) & 0x1f, ((k >> 11) & 0x1f) + 1)
}

const HW_REG_MODE: u32 = 1;

fn mask_bits(n: u32) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

fn nop(
    _x: &mut Core<'_>,
    _w: &mut Wave,
    _l: &mut [u8],
    _i: &Instruction,
    _c: &Ctx,
) -> Result<Flow, Stop> {
    Ok(Flow::Continue)
}

fn bfe_u32(a: u32, off: u32, width: u32) -> u32 {
    if width == 0 {
        return 0;
    }
    let v = u64::from(a) >> off;
    (v & ((1u64 << width.min(32)) - 1)) as u32
}

fn bfe_i32(a: u32, off: u32, width: u32) -> u32 {
    if width == 0 {
        return 0;
    }
    let width = width.min(32);
    let v = bfe_u32(a, off, width);
    let shift = 32 - width;
    (((v << shift) as i32) >> shift) as u32
}

fn med3<T: Ord + Copy>(a: T, b: T, c: T) -> T {
    a.max(b).min(a.min(b).max(c))
}

fn ldexp_f32(a: f32, e: i32) -> f32 {
    (f64::from(a) * 2f64.powi(e.clamp(-400, 400))) as f32
}

fn f32_to_i32(x: f32) -> i32 {
    if x.is_nan() {
        0
    } else {
        x as i32
    }
}

fn f32_to_u32(x: f32) -> u32 {
    if x.is_nan() {
        0
    } else {
        x as u32
    }
}

// ---------------------------------------------------------------- memory

/// Size in bytes, sign extension and dword count of a load/store mnemonic.
fn mem_width(name: &str) -> (u32, bool) {
    let tail = name.rsplit('_').next().unwrap_or("");
    match tail {
        "ubyte" | "byte" => (1, false),
        "sbyte" => (1, true),
        "ushort" | "short" => (2, false),
        "sshort" => (2, true),
        "dword" | "b32" | "u32" | "i32" | "f32" => (4, false),
        "dwordx2" | "b64" | "u64" | "i64" | "f64" | "x2" => (8, false),
        "dwordx3" | "b96" => (12, false),
        "dwordx4" | "b128" => (16, false),
        _ => (4, false),
    }
}

/// What a FLAT/GLOBAL/SCRATCH or MUBUF mnemonic means, worked out once per
/// opcode (the handlers would otherwise parse the mnemonic every time).
#[derive(Clone, Copy)]
struct MemOp {
    /// Bytes per lane and sign extension (loads/stores).
    width: u32,
    signed: bool,
    store: bool,
    atomic: bool,
    /// `cmpswap` (data is {src, cmp}).
    cmpswap: bool,
    /// 64-bit atomic.
    wide: bool,
    /// The read-modify-write of a non-cmpswap atomic (`None`: no semantics).
    rmw: Option<AtomicOp>,
    /// LDS-direct or d16 forms, and MUBUF format forms (not modelled).
    unmodelled: bool,
}

fn mem_op(op: Opcode) -> MemOp {
    static T: OnceLock<Vec<MemOp>> = OnceLock::new();
    let t = T.get_or_init(|| {
        Opcode::all()
            .map(|o| {
                let name = o.info().name;
                let (width, signed) = mem_width(name);
                MemOp {
                    width,
                    signed,
                    store: name.contains("_store_") || name.starts_with("buffer_store"),
                    atomic: name.contains("_atomic_"),
                    cmpswap: name.contains("cmpswap"),
                    wide: name.ends_with("_x2") || name.ends_with("_f64"),
                    rmw: atomic_op(name),
                    unmodelled: name.contains("_lds_")
                        || name.contains("d16")
                        || name.contains("format"),
                }
            })
            .collect()
    });
    t.get(op.index() as usize).copied().unwrap_or(MemOp {
        width: 4,
        signed: false,
        store: false,
        atomic: false,
        cmpswap: false,
        wide: false,
        rmw: None,
        unmodelled: true,
    })
}

/// Where one lane's access goes after flat/private/LDS resolution.
enum Place {
    Global(u64),
    Lds(u64),
}

/// Device address of private (scratch) byte `p` of lane `l`: dwords are
/// interleaved across the 64 lanes, as for the swizzled private segment.
fn private_phys(w: &Wave, p: u64, l: usize) -> u64 {
    w.flat_scratch
        .wrapping_add((p / 4) * 256 + l as u64 * 4 + p % 4)
}

fn flat_place(w: &Wave, addr: u64, l: usize) -> Place {
    if (SHARED_APERTURE..SHARED_APERTURE + APERTURE_SIZE).contains(&addr) {
        Place::Lds(addr - SHARED_APERTURE)
    } else if (PRIVATE_APERTURE..PRIVATE_APERTURE + APERTURE_SIZE).contains(&addr) {
        Place::Global(private_phys(w, addr - PRIVATE_APERTURE, l))
    } else {
        Place::Global(addr)
    }
}

fn lds_slice<'a>(
    lds: &'a mut [u8],
    off: u64,
    n: u32,
    kind: AccessKind,
    w: &Wave,
    i: &Instruction,
    pc: u64,
) -> Result<&'a mut [u8], Stop> {
    let len = lds.len();
    usize::try_from(off)
        .ok()
        .and_then(|o| lds.get_mut(o..o.checked_add(n as usize)?))
        .ok_or_else(|| Stop::LdsFault {
            offset: off,
            size: n,
            kind,
            lds_size: len,
            pc,
            wave: id(w),
            inst: i.to_string(),
        })
}

/// Reads `n` bytes for lane `l` at a resolved place, dword by dword for
/// private memory (whose dwords are not contiguous).
#[allow(clippy::too_many_arguments)]
fn read_place(
    x: &mut Core<'_>,
    w: &Wave,
    lds: &mut [u8],
    i: &Instruction,
    pc: u64,
    place: &Place,
    private: Option<u64>,
    l: usize,
    n: u32,
) -> Result<[u8; 16], Stop> {
    let mut out = [0u8; 16];
    if let Some(p) = private {
        let mut k = 0;
        while k < n {
            let chunk = (n - k).min(4 - ((p + k as u64) % 4) as u32);
            let a = private_phys(w, p + k as u64, l);
            x.view
                .read_bytes(a, &mut out[k as usize..(k + chunk) as usize])
                .map_err(|f| fault(w, i, pc, f))?;
            k += chunk;
        }
        return Ok(out);
    }
    match place {
        Place::Global(a) => x
            .view
            .read_bytes(*a, &mut out[..n as usize])
            .map_err(|f| fault(w, i, pc, f))?,
        Place::Lds(o) => {
            out[..n as usize].copy_from_slice(lds_slice(lds, *o, n, AccessKind::Read, w, i, pc)?)
        }
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn write_place(
    x: &mut Core<'_>,
    w: &Wave,
    lds: &mut [u8],
    i: &Instruction,
    pc: u64,
    place: &Place,
    private: Option<u64>,
    l: usize,
    bytes: &[u8],
) -> Result<(), Stop> {
    let n = bytes.len() as u32;
    if let Some(p) = private {
        let mut k = 0;
        while k < n {
            let chunk = (n - k).min(4 - ((p + k as u64) % 4) as u32);
            let a = private_phys(w, p + k as u64, l);
            x.view
                .write_bytes(a, &bytes[k as usize..(k + chunk) as usize])
                .map_err(|f| fault(w, i, pc, f))?;
            k += chunk;
        }
        return Ok(());
    }
    match place {
        Place::Global(a) => x
            .view
            .write_bytes(*a, bytes)
            .map_err(|f| fault(w, i, pc, f)),
        Place::Lds(o) => {
            lds_slice(lds, *o, n, AccessKind::Write, w, i, pc)?.copy_from_slice(bytes);
            Ok(())
        }
    }
}

fn load_result(bytes: &[u8; 16], n: u32, signed: bool) -> [u32; 4] {
    let mut r = [0u32; 4];
    match (n, signed) {
        (1, false) => r[0] = u32::from(bytes[0]),
        (1, true) => r[0] = bytes[0] as i8 as i32 as u32,
        (2, false) => r[0] = u32::from(u16::from_le_bytes([bytes[0], bytes[1]])),
        (2, true) => r[0] = i16::from_le_bytes([bytes[0], bytes[1]]) as i32 as u32,
        _ => {
            for (k, c) in bytes.chunks(4).take((n / 4) as usize).enumerate() {
                r[k] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
    }
    r
}

/// Lane `l`'s FLAT/GLOBAL address: `saddr + vaddr` (32-bit offset) or the
/// 64-bit `vaddr`, plus the instruction's offset.
fn flat_addr(w: &Wave, addr: Option<&Op>, saddr: Option<&Op>, offset: i64, l: usize) -> u64 {
    let base = match (addr, saddr) {
        (Some(a), Some(s)) => s64(w, s).wrapping_add(u64::from(v32(w, a, l))),
        (Some(a), None) => v64(w, a, l),
        _ => 0,
    };
    (base as i64).wrapping_add(offset) as u64
}

/// A `scratch_*` instruction's private-segment offset for lane `l`: the
/// 32-bit VGPR and/or SGPR offsets plus the immediate, modulo 2^32.
fn scratch_offset(w: &Wave, addr: Option<&Op>, saddr: Option<&Op>, offset: i64, l: usize) -> u64 {
    let base = match (addr, saddr) {
        (Some(a), Some(s)) if !matches!(a.value, Operand::Off) => {
            u64::from(v32(w, a, l)).wrapping_add(u64::from(s32(w, s)))
        }
        (Some(a), None) if !matches!(a.value, Operand::Off) => u64::from(v32(w, a, l)),
        (_, Some(s)) => u64::from(s32(w, s)),
        _ => 0,
    };
    (base as i64).wrapping_add(offset) as u64 & 0xffff_ffff
}

/// Every lane's store data: `dwords` consecutive VGPRs or AGPRs from
/// `r`, little-endian (registers outside the wave's file read as 0).
fn store_data(w: &Wave, r: RegRange, dwords: usize) -> [[u8; 16]; LANES] {
    let file = if r.file == RegFile::Agpr {
        &w.agpr
    } else {
        &w.vgpr
    };
    let mut out = [[0u8; 16]; LANES];
    for k in 0..dwords.min(4) {
        if let Some(reg) = file.get(r.first as usize + k) {
            for (b, v) in out.iter_mut().zip(reg.iter()) {
                b[k * 4..k * 4 + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
    }
    out
}

/// Writes loaded bytes (`n` per lane, sign- or zero-extended below a
/// dword) to the destination `vd` in the lanes of `mask`.
fn write_loaded(w: &mut Wave, vd: &Op, bytes: &[[u8; 16]; LANES], mask: u64, n: u32, signed: bool) {
    let dwords = n.div_ceil(4) as usize;
    let mut vals = [[0u32; LANES]; 4];
    for (l, b) in bytes.iter().enumerate() {
        let r = load_result(b, n, signed);
        for (k, v) in vals.iter_mut().enumerate().take(dwords) {
            v[l] = r[k];
        }
    }
    for (k, v) in vals.iter().enumerate().take(dwords) {
        let mut op = *vd;
        if let Operand::Reg(mut r) = op.value {
            r.first = r.first.wrapping_add(k as u16);
            op.value = Operand::Reg(r);
        }
        write_lanes32_masked(w, &op, v, mask);
    }
}

/// Every lane's FLAT/GLOBAL address ([`flat_addr`]); inactive lanes too.
fn flat_addrs(w: &Wave, addr: Option<&Op>, saddr: Option<&Op>, offset: i64) -> [u64; LANES] {
    let mut out = [0u64; LANES];
    match (addr, saddr) {
        (Some(a), Some(s)) => {
            let (base, v) = (s64(w, s), lanes32(w, a));
            for (o, v) in out.iter_mut().zip(&v) {
                *o = (base.wrapping_add(u64::from(*v)) as i64).wrapping_add(offset) as u64;
            }
        }
        (Some(a), None) => {
            for (o, v) in out.iter_mut().zip(&lanes64(w, a)) {
                *o = (*v as i64).wrapping_add(offset) as u64;
            }
        }
        _ => out = [offset as u64; LANES],
    }
    out
}

fn atomic_op(name: &str) -> Option<AtomicOp> {
    let body = name
        .split("atomic_")
        .nth(1)
        .or_else(|| name.strip_prefix("ds_"))?;
    let op = body.split('_').next()?;
    if body.ends_with("_f32") || body.ends_with("_f64") {
        return match op {
            "add" => Some(AtomicOp::FAdd),
            "min" => Some(AtomicOp::FMin),
            "max" => Some(AtomicOp::FMax),
            _ => None,
        };
    }
    if body.contains("pk_") || body.ends_with("_f16") || body.ends_with("bf16") {
        return None;
    }
    Some(match op {
        "swap" | "wrxchg" | "wrxchg2" => AtomicOp::Swap,
        "add" => AtomicOp::Add,
        "sub" => AtomicOp::Sub,
        "smin" | "min" if body.contains("i32") || body.contains("i64") || op == "smin" => {
            AtomicOp::SMin
        }
        "umin" | "min" => AtomicOp::UMin,
        "smax" | "max" if body.contains("i32") || body.contains("i64") || op == "smax" => {
            AtomicOp::SMax
        }
        "umax" | "max" => AtomicOp::UMax,
        "and" => AtomicOp::And,
        "or" => AtomicOp::Or,
        "xor" => AtomicOp::Xor,
        "inc" => AtomicOp::Inc,
        "dec" => AtomicOp::Dec,
        _ => return None,
    })
}

/// FLAT, GLOBAL and SCRATCH loads, stores and atomics.
fn vmem(
    x: &mut Core<'_>,
    w: &mut Wave,
    lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let enc = i.encoding();
    let w0 = i.words()[0];
    let raw_off = w0 & 0x1fff;
    let offset: i64 = match enc {
        Encoding::Flat => i64::from(raw_off & 0xfff),
        _ => i64::from(((raw_off << 19) as i32) >> 19),
    };
    let glc = w0 >> 16 & 1 == 1;
    let m = mem_op(i.opcode());
    let (n, signed, is_atomic, is_store) = (m.width, m.signed, m.atomic, m.store);
    if m.unmodelled {
        return Err(unsupported(w, i, c.pc));
    }
    let addr_op = c.by_field(Field::Addr).copied();
    let saddr = c
        .by_field(Field::Saddr)
        .copied()
        .filter(|o| !matches!(o.value, Operand::Off));
    let data = c.by_field(Field::Data).copied();
    let vdst = c.by_field(Field::Vdst).copied();
    if let Some(log) = x.mem_log.as_mut() {
        for l in (0..LANES).filter(|&l| w.active(l)) {
            log.push(crate::record::MemAccess {
                pc: c.pc,
                lane: l as u8,
                addr: if enc == Encoding::Scratch {
                    scratch_offset(w, addr_op.as_ref(), saddr.as_ref(), offset, l)
                } else {
                    flat_addr(w, addr_op.as_ref(), saddr.as_ref(), offset, l)
                },
            });
        }
    }
    if enc == Encoding::Global && !is_atomic {
        // Global addresses need no aperture or private-segment resolution:
        // the whole wave goes through one gather or scatter.
        let addrs = flat_addrs(w, addr_op.as_ref(), saddr.as_ref(), offset);
        if is_store {
            let Some(Operand::Reg(r)) = data.map(|d| d.value) else {
                return Err(unsupported(w, i, c.pc));
            };
            let bytes = store_data(w, r, n.div_ceil(4) as usize);
            x.view
                .scatter(&addrs, w.exec, n, &bytes)
                .map_err(|e| lane_fault(w, i, c.pc, e))?;
        } else {
            let mut bytes = [[0u8; 16]; LANES];
            x.view
                .gather(&addrs, w.exec, n, &mut bytes)
                .map_err(|e| lane_fault(w, i, c.pc, e))?;
            if let Some(vd) = vdst {
                write_loaded(w, &vd, &bytes, w.exec, n, signed);
            }
        }
        return Ok(Flow::Continue);
    }
    let stored = match (is_store && !is_atomic, data.map(|d| d.value)) {
        (true, Some(Operand::Reg(r))) => store_data(w, r, n.div_ceil(4) as usize),
        _ => [[0u8; 16]; LANES],
    };
    for (l, lane_data) in stored.iter().enumerate() {
        if !w.active(l) {
            continue;
        }
        let (place, private) = match enc {
            Encoding::Scratch => (
                Place::Global(0),
                Some(scratch_offset(
                    w,
                    addr_op.as_ref(),
                    saddr.as_ref(),
                    offset,
                    l,
                )),
            ),
            _ => {
                let a = flat_addr(w, addr_op.as_ref(), saddr.as_ref(), offset, l);
                if enc == Encoding::Flat {
                    match flat_place(w, a, l) {
                        Place::Global(g)
                            if (PRIVATE_APERTURE..PRIVATE_APERTURE + APERTURE_SIZE)
                                .contains(&a) =>
                        {
                            let _ = g;
                            (Place::Global(0), Some(a - PRIVATE_APERTURE))
                        }
                        p => (p, None),
                    }
                } else {
                    (Place::Global(a), None)
                }
            }
        };
        if is_atomic {
            let op = match (m.cmpswap, m.rmw) {
                (true, _) => None,
                (false, Some(o)) => Some(o),
                (false, None) => return Err(unsupported(w, i, c.pc)),
            };
            let Some(d) = data else {
                return Err(unsupported(w, i, c.pc));
            };
            let wide = m.wide;
            let size = if wide { 8 } else { 4 };
            let (operand, op) = match op {
                Some(o) => (
                    if wide {
                        v64(w, &d, l)
                    } else {
                        u64::from(v32(w, &d, l))
                    },
                    o,
                ),
                None => {
                    // cmpswap data is {src, cmp}.
                    let (src, cmp) = if wide {
                        let Operand::Reg(r) = d.value else {
                            return Err(unsupported(w, i, c.pc));
                        };
                        let lo = |k: u16| u64::from(w.vgpr[((r.first + k) & 255) as usize][l]);
                        (lo(0) | lo(1) << 32, lo(2) | lo(3) << 32)
                    } else {
                        let v = v64(w, &d, l);
                        (v & 0xffff_ffff, v >> 32)
                    };
                    (src, AtomicOp::CmpSwap(cmp))
                }
            };
            let a = match place {
                Place::Global(a) => a,
                Place::Lds(o) => {
                    // A flat atomic that resolves to LDS.
                    let slot = lds_slice(lds, o, size, AccessKind::Atomic, w, i, c.pc)?;
                    let mut old_b = [0u8; 8];
                    old_b[..size as usize].copy_from_slice(slot);
                    let old = u64::from_le_bytes(old_b);
                    let new = rmw(op, old, operand, size).unwrap_or(old);
                    slot.copy_from_slice(&new.to_le_bytes()[..size as usize]);
                    if glc {
                        if let Some(vd) = vdst {
                            vwrite(w, &vd, l, 0, old as u32);
                            if wide {
                                vwrite(w, &vd, l, 1, (old >> 32) as u32);
                            }
                        }
                    }
                    continue;
                }
            };
            let a = match private {
                Some(p) => private_phys(w, p, l),
                None => a,
            };
            let old = x
                .view
                .atomic(a, size, op, operand)
                .map_err(|f| fault(w, i, c.pc, f))?;
            if glc {
                if let Some(vd) = vdst {
                    vwrite(w, &vd, l, 0, old as u32);
                    if wide {
                        vwrite(w, &vd, l, 1, (old >> 32) as u32);
                    }
                }
            }
        } else if is_store {
            if data.is_none() {
                return Err(unsupported(w, i, c.pc));
            }
            write_place(
                x,
                w,
                lds,
                i,
                c.pc,
                &place,
                private,
                l,
                &lane_data[..n as usize],
            )?;
        } else {
            let bytes = read_place(x, w, lds, i, c.pc, &place, private, l, n)?;
            let r = load_result(&bytes, n, signed);
            if let Some(vd) = vdst {
                for (k, v) in r.iter().enumerate().take(n.div_ceil(4) as usize) {
                    vwrite(w, &vd, l, k, *v);
                }
            }
        }
    }
    Ok(Flow::Continue)
}

/// MUBUF loads and stores. A descriptor with ADD_TID_ENABLE (the private
/// segment buffer) addresses lane-swizzled scratch; any other is a linear
/// raw buffer bounded by NUM_RECORDS.
fn mubuf(
    x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let w0 = i.words()[0];
    let inst_off = u64::from(w0 & 0xfff);
    let offen = w0 >> 12 & 1 == 1;
    let idxen = w0 >> 13 & 1 == 1;
    let m = mem_op(i.opcode());
    if w0 >> 16 & 1 == 1 || m.unmodelled {
        return Err(unsupported(w, i, c.pc));
    }
    let (n, signed, is_store) = (m.width, m.signed, m.store);
    let (Some(rsrc), Some(vdata)) = (
        c.by_field(Field::Srsrc).copied(),
        c.by_field(Field::Vdata).copied(),
    ) else {
        return Err(unsupported(w, i, c.pc));
    };
    let vaddr = c
        .by_field(Field::Vaddr)
        .copied()
        .filter(|o| !matches!(o.value, Operand::Off));
    let soff = c
        .by_field(Field::Soffset)
        .map_or(0, |o| u64::from(s32(w, o)));
    let Operand::Reg(r) = rsrc.value else {
        return Err(unsupported(w, i, c.pc));
    };
    let d: [u32; 4] = std::array::from_fn(|k| sreg_read(w, r.first + k as u16));
    let base = u64::from(d[0]) | (u64::from(d[1] & 0xffff) << 32);
    let stride = u64::from(d[1] >> 16 & 0x3fff);
    let num_records = u64::from(d[2]);
    let add_tid = d[3] >> 23 & 1 == 1;
    // Addresses of the lanes that access memory; lanes out of the buffer's
    // range read zero and drop their writes. For the private segment
    // (ADD_TID_ENABLE), `addrs` holds the lane's byte offset in it.
    let mut addrs = [0u64; LANES];
    let mut live = 0u64;
    for (l, addr) in addrs.iter_mut().enumerate() {
        if !w.active(l) {
            continue;
        }
        let (vi, vo) = match (idxen, offen, &vaddr) {
            (true, true, Some(v)) => (u64::from(v32(w, v, l)), {
                let Operand::Reg(rr) = v.value else {
                    return Err(unsupported(w, i, c.pc));
                };
                u64::from(w.vgpr.get(rr.first as usize + 1).map_or(0, |r| r[l]))
            }),
            (true, false, Some(v)) => (u64::from(v32(w, v, l)), 0),
            (false, true, Some(v)) => (0, u64::from(v32(w, v, l))),
            _ => (0, 0),
        };
        if add_tid {
            *addr = vo + inst_off;
            if let Some(log) = x.mem_log.as_mut() {
                // The device address of the lane's first byte in the
                // swizzled private segment.
                let p = vo + inst_off;
                log.push(crate::record::MemAccess {
                    pc: c.pc,
                    lane: l as u8,
                    addr: (base + soff).wrapping_add((p / 4) * 256 + l as u64 * 4 + p % 4),
                });
            }
        } else {
            let off = vo + inst_off;
            let bound = if stride == 0 {
                num_records
            } else {
                num_records * stride
            };
            let a_off = vi * stride + off + soff;
            if let Some(log) = x.mem_log.as_mut() {
                // Every active lane, in range or not (an out-of-range lane
                // reads zero but still issued the access).
                log.push(crate::record::MemAccess {
                    pc: c.pc,
                    lane: l as u8,
                    addr: base.wrapping_add(a_off),
                });
            }
            if a_off + u64::from(n) > bound {
                continue;
            }
            *addr = base + a_off;
        }
        live |= 1 << l;
    }
    if add_tid {
        // Private segment: soffset is the wave's (wave-scaled) base, and
        // each lane's dwords are interleaved with the other lanes' (64
        // lanes x 4 bytes per row), so an access is split at dword edges.
        let seg = base + soff;
        let phys = |p: u64, l: usize| seg.wrapping_add((p / 4) * 256 + l as u64 * 4 + p % 4);
        // Fast path: every lane at the same dword-aligned offset (spills,
        // stack slots), so dword k of the wave is one 256-byte row. If a
        // row access faults, the lane-by-lane path below reports it.
        let p0 = addrs[live.trailing_zeros().min(63) as usize];
        let uniform = live != 0
            && n % 4 == 0
            && p0 % 4 == 0
            && addrs
                .iter()
                .enumerate()
                .fold(true, |u, (l, &p)| u & (live >> l & 1 == 0 || p == p0));
        if let (true, Operand::Reg(vr)) = (uniform, vdata.value) {
            let data = store_data(w, vr, (n / 4) as usize);
            let mut done = true;
            for k in 0..(n / 4) as usize {
                let row = phys(p0 + 4 * k as u64, 0);
                if is_store && live == u64::MAX {
                    // The whole row at once.
                    let mut b = [0u8; 4 * LANES];
                    for (o, d) in b.chunks_exact_mut(4).zip(&data) {
                        o.copy_from_slice(&d[k * 4..k * 4 + 4]);
                    }
                    if x.view.write_bytes(row, &b).is_err() {
                        done = false;
                        break;
                    }
                } else if is_store {
                    let mut lanes = [[0u8; 16]; LANES];
                    let mut rows = [0u64; LANES];
                    for (l, (b, a)) in lanes.iter_mut().zip(rows.iter_mut()).enumerate() {
                        b[..4].copy_from_slice(&data[l][k * 4..k * 4 + 4]);
                        *a = row + 4 * l as u64;
                    }
                    if x.view.scatter(&rows, live, 4, &lanes).is_err() {
                        done = false;
                        break;
                    }
                } else {
                    let mut b = [0u8; 4 * LANES];
                    if x.view.read_bytes(row, &mut b).is_err() {
                        done = false;
                        break;
                    }
                    let mut vals = [0u32; LANES];
                    for (o, v) in vals.iter_mut().zip(b.chunks_exact(4)) {
                        *o = u32::from_le_bytes([v[0], v[1], v[2], v[3]]);
                    }
                    let mut vk = vdata;
                    if let Operand::Reg(mut rr) = vk.value {
                        rr.first = rr.first.wrapping_add(k as u16);
                        vk.value = Operand::Reg(rr);
                    }
                    write_lanes32_masked(w, &vk, &vals, live);
                }
            }
            if done {
                return Ok(Flow::Continue);
            }
        }
        let data = match (is_store, vdata.value) {
            (false, _) => [[0u8; 16]; LANES],
            (true, Operand::Reg(vr)) => store_data(w, vr, n.div_ceil(4) as usize),
            (true, _) => return Err(unsupported(w, i, c.pc)),
        };
        for (l, &p) in addrs.iter().enumerate() {
            if live >> l & 1 == 0 {
                continue;
            }
            let mut b = data[l];
            let mut k = 0;
            while k < n {
                let chunk = (n - k).min(4 - ((p + u64::from(k)) % 4) as u32);
                let a = phys(p + u64::from(k), l);
                let part = &mut b[k as usize..(k + chunk) as usize];
                let r = if is_store {
                    x.view.write_bytes(a, part)
                } else {
                    x.view.read_bytes(a, part)
                };
                r.map_err(|f| fault(w, i, c.pc, f))?;
                k += chunk;
            }
            if !is_store {
                let r = load_result(&b, n, signed);
                for (k, v) in r.iter().enumerate().take(n.div_ceil(4) as usize) {
                    vwrite(w, &vdata, l, k, *v);
                }
            }
        }
        return Ok(Flow::Continue);
    }
    if is_store {
        let Operand::Reg(vr) = vdata.value else {
            return Err(unsupported(w, i, c.pc));
        };
        let bytes = store_data(w, vr, n.div_ceil(4) as usize);
        x.view
            .scatter(&addrs, live, n, &bytes)
            .map_err(|e| lane_fault(w, i, c.pc, e))?;
    } else {
        let mut bytes = [[0u8; 16]; LANES];
        x.view
            .gather(&addrs, live, n, &mut bytes)
            .map_err(|e| lane_fault(w, i, c.pc, e))?;
        // Out-of-range lanes gathered nothing: they load 0.
        write_loaded(w, &vdata, &bytes, w.exec, n, signed);
    }
    Ok(Flow::Continue)
}

/// LDS operations: reads, writes (incl. read2/write2), atomics and bpermute.
fn ds(
    x: &mut Core<'_>,
    w: &mut Wave,
    lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let op = DsOp::of(i.opcode());
    let name = i.opcode().name();
    let w0 = i.words()[0];
    if w0 >> 16 & 1 == 1 {
        return Err(unsupported(w, i, c.pc));
    }
    let off0 = u64::from(w0 & 0xff);
    let off1 = u64::from(w0 >> 8 & 0xff);
    let off16 = u64::from(w0 & 0xffff);
    let addr = c.by_field(Field::Addr).copied();
    let d0 = c.by_field(Field::Data0).copied();
    let d1 = c.by_field(Field::Data1).copied();
    let vdst = c.by_field(Field::Vdst).copied();
    // ds_permute/ds_bpermute/ds_swizzle move data between lanes through
    // the LDS crossbar without touching LDS memory: not accesses.
    let crossbar = op.permute || name == "ds_swizzle_b32";
    if let (Some(log), Some(a), false) = (x.mem_log.as_mut(), addr.as_ref(), crossbar) {
        for l in (0..LANES).filter(|&l| w.active(l)) {
            log.push(crate::record::MemAccess {
                pc: c.pc,
                lane: l as u8,
                addr: u64::from(v32(w, a, l)) + off16,
            });
        }
    }
    if op.permute {
        let (Some(a), Some(d), Some(v)) = (addr, d0, vdst) else {
            return Err(unsupported(w, i, c.pc));
        };
        let (src, sels) = (lanes32(w, &d), lanes32(w, &a));
        let backward = name == "ds_bpermute_b32";
        let mut out = [0u32; LANES];
        let mut written = [false; LANES];
        for l in 0..LANES {
            if !w.active(l) {
                continue;
            }
            let sel = ((sels[l] as u64 + off16) >> 2 & 63) as usize;
            if backward {
                out[l] = if w.active(sel) { src[sel] } else { 0 };
                written[l] = true;
            } else {
                out[sel] = src[l];
                written[sel] = true;
            }
        }
        for l in 0..LANES {
            if w.active(l) {
                vwrite(w, &v, l, 0, if written[l] { out[l] } else { 0 });
            }
        }
        return Ok(Flow::Continue);
    }
    if op.swizzle {
        // Lanes exchange through the swizzle pattern in the offset; LDS is
        // not touched.
        let (Some(a), Some(v)) = (addr, vdst) else {
            return Err(unsupported(w, i, c.pc));
        };
        let out = crate::xlane::ds_swizzle(&lanes32(w, &a), w.exec, off16 as u16);
        write_lanes32(w, &v, &out);
        return Ok(Flow::Continue);
    }
    if op.unmodelled {
        return Err(unsupported(w, i, c.pc));
    }
    let DsOp {
        two,
        st64,
        elem,
        signed,
        read: is_read,
        write: is_write,
        ..
    } = op;
    let atomic = (!is_read && !is_write).then_some(name);
    // A plain read whose every active lane is inside LDS: one bounds check
    // for the wave, results written whole.
    if is_read && !two && w.exec != 0 {
        let base = addr.map_or([0; LANES], |a| lanes32(w, &a));
        let exec = w.exec;
        let hi = (0..LANES)
            .filter(|l| exec >> l & 1 == 1)
            .map(|l| u64::from(base[l]) + off16 + u64::from(elem))
            .max()
            .unwrap_or(0);
        if hi <= lds.len() as u64 {
            let mut vals = [[0u32; LANES]; 4];
            for l in (0..LANES).filter(|l| exec >> l & 1 == 1) {
                let a = (u64::from(base[l]) + off16) as usize;
                let mut buf = [0u8; 16];
                buf[..elem as usize].copy_from_slice(&lds[a..a + elem as usize]);
                let r = load_result(&buf, elem, signed);
                for (k, v) in vals.iter_mut().enumerate() {
                    v[l] = r[k];
                }
            }
            if let Some(v) = vdst {
                for (k, vals) in vals.iter().enumerate().take(elem.div_ceil(4) as usize) {
                    let mut vk = v;
                    if let Operand::Reg(mut r) = vk.value {
                        r.first = r.first.wrapping_add(k as u16);
                        vk.value = Operand::Reg(r);
                    }
                    write_lanes32_masked(w, &vk, vals, exec);
                }
            }
            return Ok(Flow::Continue);
        }
    }
    for l in 0..LANES {
        if !w.active(l) {
            continue;
        }
        let base = addr.map_or(0, |a| u64::from(v32(w, &a, l)));
        if two {
            let scale = elem as u64 * if st64 { 64 } else { 1 };
            let addrs = [base + off0 * scale, base + off1 * scale];
            for (k, a) in addrs.iter().enumerate() {
                if is_read {
                    let b = lds_slice(lds, *a, elem, AccessKind::Read, w, i, c.pc)?;
                    let mut buf = [0u8; 16];
                    buf[..elem as usize].copy_from_slice(b);
                    let r = load_result(&buf, elem, false);
                    if let Some(v) = vdst {
                        for (j, x) in r.iter().enumerate().take((elem / 4) as usize) {
                            vwrite(w, &v, l, k * (elem / 4) as usize + j, *x);
                        }
                    }
                } else {
                    let src = if k == 0 { d0 } else { d1 };
                    let Some(sop) = src else {
                        return Err(unsupported(w, i, c.pc));
                    };
                    let v = if elem == 8 {
                        v64(w, &sop, l)
                    } else {
                        u64::from(v32(w, &sop, l))
                    };
                    lds_slice(lds, *a, elem, AccessKind::Write, w, i, c.pc)?
                        .copy_from_slice(&v.to_le_bytes()[..elem as usize]);
                }
            }
            continue;
        }
        let a = base + off16;
        if is_read {
            let b = lds_slice(lds, a, elem, AccessKind::Read, w, i, c.pc)?;
            let mut buf = [0u8; 16];
            buf[..elem as usize].copy_from_slice(b);
            let r = load_result(&buf, elem, signed);
            if let Some(v) = vdst {
                for (k, x) in r.iter().enumerate().take(elem.div_ceil(4) as usize) {
                    vwrite(w, &v, l, k, *x);
                }
            }
        } else if is_write {
            let Some(sop) = d0 else {
                return Err(unsupported(w, i, c.pc));
            };
            let mut b = [0u8; 16];
            let Operand::Reg(r) = sop.value else {
                return Err(unsupported(w, i, c.pc));
            };
            for k in 0..elem.div_ceil(4) as usize {
                let v = w.vgpr.get(r.first as usize + k).map_or(0, |x| x[l]);
                b[k * 4..k * 4 + 4].copy_from_slice(&v.to_le_bytes());
            }
            lds_slice(lds, a, elem, AccessKind::Write, w, i, c.pc)?
                .copy_from_slice(&b[..elem as usize]);
        } else if let Some(n) = atomic {
            let wide = n.ends_with("64");
            let size = if wide { 8u32 } else { 4 };
            let slot = lds_slice(lds, a, size, AccessKind::Atomic, w, i, c.pc)?;
            let old = if wide {
                u64::from_le_bytes(slot[..8].try_into().unwrap_or([0; 8]))
            } else {
                u64::from(u32::from_le_bytes(slot[..4].try_into().unwrap_or([0; 4])))
            };
            let Some(sop) = d0 else {
                return Err(unsupported(w, i, c.pc));
            };
            let v = if wide {
                v64(w, &sop, l)
            } else {
                u64::from(v32(w, &sop, l))
            };
            let new = if n.contains("cmpst") {
                let Some(s1) = d1 else {
                    return Err(unsupported(w, i, c.pc));
                };
                let src = if wide {
                    v64(w, &s1, l)
                } else {
                    u64::from(v32(w, &s1, l))
                };
                if old == v {
                    src
                } else {
                    old
                }
            } else {
                let op = if n.contains("add_f32") {
                    Some(AtomicOp::FAdd)
                } else {
                    atomic_op(n)
                };
                let Some(op) = op else {
                    return Err(unsupported(w, i, c.pc));
                };
                rmw(op, old, v, size).unwrap_or(old)
            };
            slot.copy_from_slice(&new.to_le_bytes()[..size as usize]);
            if n.contains("_rtn_") || n.starts_with("ds_wrxchg") {
                if let Some(vd) = vdst {
                    vwrite(w, &vd, l, 0, old as u32);
                    if wide {
                        vwrite(w, &vd, l, 1, (old >> 32) as u32);
                    }
                }
            }
        }
    }
    Ok(Flow::Continue)
}

/// What a DS opcode does, worked out from its mnemonic once per opcode
/// (not per executed instruction).
#[derive(Clone, Copy, Default)]
struct DsOp {
    /// `ds_bpermute_b32` / `ds_permute_b32`.
    permute: bool,
    /// `ds_swizzle_b32`.
    swizzle: bool,
    /// GWS, append and consume: not modelled.
    unmodelled: bool,
    /// `read2`/`write2` forms.
    two: bool,
    /// `st64` forms.
    st64: bool,
    /// Element bytes.
    elem: u32,
    /// Sign-extending read.
    signed: bool,
    read: bool,
    write: bool,
}

impl DsOp {
    fn of(op: Opcode) -> DsOp {
        static T: OnceLock<Vec<DsOp>> = OnceLock::new();
        let t = T.get_or_init(|| {
            Opcode::all()
                .map(|o| DsOp::from_name(o.info().name))
                .collect()
        });
        if op.is_invalid() {
            return DsOp::default();
        }
        t.get(op.index() as usize).copied().unwrap_or_default()
    }

    fn from_name(name: &str) -> DsOp {
        let two = name.contains("read2") || name.contains("write2");
        let (elem, signed) = if two {
            if name.ends_with("b64") {
                (8, false)
            } else {
                (4, false)
            }
        } else {
            match name {
                n if n.contains("u8") || n.ends_with("_b8") => (1, false),
                n if n.contains("i8") => (1, true),
                n if n.contains("u16") && !n.starts_with("ds_add") || n.ends_with("_b16") => {
                    (2, false)
                }
                n if n.contains("i16") => (2, true),
                n => mem_width(n),
            }
        };
        DsOp {
            permute: name == "ds_bpermute_b32" || name == "ds_permute_b32",
            swizzle: name == "ds_swizzle_b32",
            unmodelled: name.contains("gws") || name.contains("append") || name.contains("consume"),
            two,
            st64: name.contains("st64"),
            elem,
            signed,
            read: name.starts_with("ds_read"),
            write: name.starts_with("ds_write"),
        }
    }
}

/// Scalar loads.
fn smem_load(
    x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let (Some(d), Some(base)) = (
        c.by_field(Field::Sdata).copied(),
        c.by_field(Field::Sbase).copied(),
    ) else {
        return Err(unsupported(w, i, c.pc));
    };
    let off = match c.by_field(Field::Offset).map(|o| o.value) {
        Some(Operand::Imm(v)) => v as u64,
        Some(Operand::Literal(v)) => u64::from(v),
        Some(_) => c
            .by_field(Field::Offset)
            .map_or(0, |o| u64::from(s32(w, o))),
        None => 0,
    };
    let addr = s64(w, &base).wrapping_add(off);
    let Operand::Reg(r) = d.value else {
        return Err(unsupported(w, i, c.pc));
    };
    for k in 0..r.count as u64 {
        let v = x
            .view
            .load_u32(addr + 4 * k)
            .map_err(|f| fault(w, i, c.pc, f))?;
        sreg_write(w, r.first + k as u16, v);
    }
    Ok(Flow::Continue)
}

impl Step for Exec<'_> {
    type Stop = Stop;

    fn step(&mut self, w: &mut Wave, lds: &mut [u8]) -> Result<Flow, Stop> {
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
        } = self;
        let d: &Decoded = match cache.find(pc) {
            Some(k) => cache.get(k),
            None => {
                let d = Exec::decode_at(&mut core.view, *target, pc, w)?;
                cache.insert(pc, d)
            }
        };
        let inst = &d.inst;
        let op = inst.opcode();
        let slot = if op.is_invalid() {
            counts.len() - 1
        } else {
            op.index() as usize
        };
        if let Some(c) = counts.get_mut(slot) {
            *c += 1;
        }
        if let Some(r) = recorder {
            r.step(pc, w.exec);
        }
        if op.is_invalid() {
            return Err(Stop::Invalid {
                inst: inst.to_string(),
                pc,
                wave: id(w),
            });
        }
        let Some(h) = d.handler else {
            return Err(unsupported(w, inst, pc));
        };
        if d.float {
            if w.mode != M.bits() && !mode_modelled(w.mode, d.mfma) {
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
                        if d.mfma {
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
        w.pc = pc + inst.len() as u64;
        // Operands are used in place unless s_set_gpr_idx_on re-indexes them.
        let mut indexed = None;
        if let Some((mask, idx)) = w.gpr_idx {
            if is_valu(inst.encoding()) {
                let mut ops = d.ops;
                index_operands(&mut ops, mask, idx);
                indexed = Some(ops);
            }
        }
        if *check_waitcnt {
            if op == Opcode::S_WAITCNT {
                let imm = inst.words().first().map_or(0, |w| *w as u16);
                w.waitcnt.wait(&crate::waitcnt::decode_gfx9(imm));
            } else if let Some(hazard) = w.waitcnt.check(&d.regs) {
                return Err(Stop::MissingWait {
                    hazard: Box::new(hazard),
                    pc,
                    wave: id(w),
                    inst: inst.to_string(),
                });
            }
        }
        let ctx = Ctx {
            pc,
            ops: indexed.as_ref().unwrap_or(&d.ops),
            target: d.target,
        };
        let flow = match inst.encoding() {
            Encoding::Vop1Sdwa | Encoding::Vop2Sdwa => sdwa(core, w, lds, inst, ctx, h),
            Encoding::Vop1Dpp | Encoding::Vop2Dpp => dpp(core, w, lds, inst, ctx, h),
            _ => h(core, w, lds, inst, &ctx),
        }?;
        if *check_waitcnt && d.counters {
            w.waitcnt.issue(inst, &d.regs, pc);
        }
        Ok(flow)
    }

    fn out_of_steps(&mut self, w: &Wave) -> Stop {
        Stop::Budget {
            pc: w.pc,
            wave: id(w),
        }
    }

    fn expired(&mut self) -> bool {
        let Some((at, _)) = self.deadline else {
            return false;
        };
        // Reading the clock every 16th slice keeps the check off the profile.
        self.ticks = self.ticks.wrapping_add(1);
        self.ticks % 16 == 0 && std::time::Instant::now() >= at
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
                        Ok(d) => d.inst.to_string(),
                        Err(_) => "<instruction fetch fault>".into(),
                    },
                },
                instructions: w.instructions,
                at_barrier: w.status == crate::wave::WaveStatus::Barrier,
            })
            .collect();
        Stop::Timeout {
            limit: self.deadline.map_or(std::time::Duration::ZERO, |(_, l)| l),
            waves,
            not_started: 0,
        }
    }
}

// ---------------------------------------------------------------- SDWA / DPP

/// Temporary VGPRs after the wave's real ones, where the SDWA/DPP wrappers stage operands.
fn tmp_reg(w: &Wave, k: u16, width: u8) -> Operand {
    Operand::Reg(RegRange::vgpr(w.temp_base() as u16 + k, width))
}

/// Runs a VOP1/VOP2 handler in SDWA form: sources are selected (and sign-
/// or zero-extended) into temporaries, the operation runs, and the result is
/// merged into the destination per `dst_sel`/`dst_unused`.
fn sdwa(
    x: &mut Core<'_>,
    w: &mut Wave,
    lds: &mut [u8],
    i: &Instruction,
    c: Ctx<'_>,
    h: Handler,
) -> Result<Flow, Stop> {
    use crate::xlane::{sdwa_dst, sdwa_src, DstUnused, SdwaSel};
    let d1 = i.words().get(1).copied().unwrap_or(0);
    let dst_sel = SdwaSel::decode((d1 >> 8 & 7) as u8);
    let unused = DstUnused::decode((d1 >> 11 & 3) as u8);
    let sel = [
        SdwaSel::decode((d1 >> 16 & 7) as u8),
        SdwaSel::decode((d1 >> 24 & 7) as u8),
    ];
    let (Some(dst_sel), Some(unused), Some(s0sel), Some(s1sel)) = (dst_sel, unused, sel[0], sel[1])
    else {
        return Err(unsupported(w, i, c.pc));
    };
    if d1 >> 13 & 1 == 1 || d1 >> 14 & 3 != 0 {
        // clamp/omod in SDWA form: not modelled yet.
        return Err(unsupported(w, i, c.pc));
    }
    let exec = w.exec;
    let mut src_idx = 0u16;
    let mut ops = *c.ops;
    let n = ops.as_slice().len();
    for k in 0..n {
        let Some(op) = ops.as_slice().get(k).copied() else {
            continue;
        };
        if op.field() == Field::Implicit || op.access() == lathe_isa::opcode::Access::W {
            continue;
        }
        let sel = if src_idx == 0 { s0sel } else { s1sel };
        let reg = w.temp_base() + src_idx as usize;
        for l in 0..LANES {
            if exec >> l & 1 == 1 {
                let v = sdwa_src(v32(w, &op, l), sel, op.sext);
                w.vgpr[reg][l] = v;
            }
        }
        let mut nop = op;
        nop.value = tmp_reg(w, src_idx, 1);
        nop.sext = false;
        ops.set(k, nop);
        src_idx += 1;
    }
    // Destination: run into a temporary, then merge.
    let dk = ops
        .as_slice()
        .iter()
        .position(|o| o.field() != Field::Implicit && o.access() != lathe_isa::opcode::Access::R);
    let real_dst = dk.and_then(|k| ops.as_slice().get(k).copied());
    if let (Some(k), Some(d)) = (dk, real_dst) {
        if matches!(d.value, Operand::Reg(r) if r.file == RegFile::Vgpr) {
            let mut nd = d;
            nd.value = tmp_reg(w, 3, 1);
            ops.set(k, nd);
        }
    }
    let flow = h(
        x,
        w,
        lds,
        i,
        &Ctx {
            pc: c.pc,
            ops: &ops,
            target: c.target,
        },
    )?;
    if let Some(d) =
        real_dst.filter(|d| matches!(d.value, Operand::Reg(r) if r.file == RegFile::Vgpr))
    {
        for l in 0..LANES {
            if exec >> l & 1 == 1 {
                let old = v32(w, &d, l);
                let r = w.vgpr[w.temp_base() + 3][l];
                vwrite(w, &d, l, 0, sdwa_dst(r, old, dst_sel, unused));
            }
        }
    }
    Ok(flow)
}

/// Runs a VOP1/VOP2 handler in DPP form: src0 is fetched through the lane
/// permutation, and only the lanes DPP writes (row/bank masks, bound_ctrl)
/// are updated.
fn dpp(
    x: &mut Core<'_>,
    w: &mut Wave,
    lds: &mut [u8],
    i: &Instruction,
    c: Ctx<'_>,
    h: Handler,
) -> Result<Flow, Stop> {
    let d1 = i.words().get(1).copied().unwrap_or(0);
    let Some((_src0, d)) = crate::xlane::Dpp::from_dword(d1) else {
        return Err(unsupported(w, i, c.pc));
    };
    let exec = w.exec;
    let k = c
        .ops
        .as_slice()
        .iter()
        .position(|o| o.field() == Field::Src0);
    let Some(k) = k else {
        return Err(unsupported(w, i, c.pc));
    };
    let Some(op) = c.ops.as_slice().get(k).copied() else {
        return Err(unsupported(w, i, c.pc));
    };
    let Operand::Reg(r) = op.value else {
        return Err(unsupported(w, i, c.pc));
    };
    let src = *w
        .vgpr
        .get(r.first as usize)
        .ok_or_else(|| unsupported(w, i, c.pc))?;
    let (vals, written) = d.fetch(&src, exec);
    let t = w.temp_base();
    w.vgpr[t] = vals;
    let mut nop = op;
    nop.value = tmp_reg(w, 0, 1);
    let mut ops = *c.ops;
    ops.set(k, nop);
    w.exec = exec & written;
    let r = h(
        x,
        w,
        lds,
        i,
        &Ctx {
            pc: c.pc,
            ops: &ops,
            target: c.target,
        },
    );
    // The handler may not change EXEC for VOP1/VOP2; restore it.
    w.exec = exec;
    r
}

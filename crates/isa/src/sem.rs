//! What each instruction does, as data: one typed [`Desc`] per [`Opcode`],
//! generated with the tables (`gen/sem.py` classifies every mnemonic once;
//! `src/generated/sem_gfx9.rs` is the result, checked by `tests/sem.rs`).
//!
//! The emulator chooses behaviour by matching on [`Sem`] and its per-family
//! enums ([`Valu`], [`Salu`], [`Packed`]) exhaustively, and the
//! instrumenter reads defs, uses, partial writes and memory access kinds
//! from the same rows, so no consumer needs to read a mnemonic. A new
//! generation (GFX10–GFX12, gfx950) adds rows and, for a new operation, a
//! variant: every exhaustive `match` on it then fails to compile until the
//! operation has semantics or is listed as unsupported.
//!
//! ```
//! use lathe_isa::sem::{self, Cmp, NumTy, Pred, Sem, Valu};
//! use lathe_isa::Opcode;
//!
//! assert_eq!(sem::of(Opcode::V_MUL_HI_U32).sem, Sem::Valu(Valu::MulHiU32));
//! assert_eq!(
//!     sem::of(Opcode::V_CMP_EQ_U16_E32).sem,
//!     Sem::Cmp(Cmp { pred: Pred::Eq, ty: NumTy::U16, exec: false })
//! );
//! ```
//!
//! Implicit registers (EXEC, VCC, SCC, M0) are already per-target flags of
//! the opcode table ([`crate::opcode::flags`]); [`implicit`] reads them, so
//! that fact has one home.

use crate::opcode::flags;
use crate::{Opcode, Target};

#[rustfmt::skip]
#[path = "generated/sem_gfx9.rs"]
mod table;

pub use table::{Packed, Salu, Valu, SEM};

/// The description of one opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Desc {
    /// What it computes.
    pub sem: Sem,
    /// Which part of its destination it writes.
    pub partial: Partial,
    /// Vector ALU work whose result depends on the float MODE (rounding
    /// and denormal controls).
    pub float: bool,
}

/// The description of `op` (the invalid opcode: `Unsupported(Invalid)`).
pub fn of(op: Opcode) -> &'static Desc {
    static INVALID: Desc = Desc {
        sem: Sem::Unsupported(Why::Invalid),
        partial: Partial::Full,
        float: false,
    };
    SEM.get(usize::from(op.index())).unwrap_or(&INVALID)
}

/// What an instruction computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sem {
    /// Per-lane vector ALU operation (VOP1/VOP2/VOP3 and their SDWA/DPP
    /// forms), not a compare.
    Valu(Valu),
    /// `v_cmp*`/`v_cmpx*`: a per-lane predicate into a lane mask (VCC, an
    /// SGPR pair, and EXEC for `v_cmpx`).
    Cmp(Cmp),
    /// VOP3P packed operation (`v_pk_*`).
    Packed(Packed),
    /// Matrix multiply (MFMA/SMFMAC); the shape comes from the emulator's
    /// MFMA table.
    Mfma,
    /// Scalar ALU operation, not a compare.
    Salu(Salu),
    /// `s_cmp*`/`s_cmpk*`: a predicate into SCC.
    SCmp(SCmp),
    /// A memory access (vector, LDS or scalar).
    Mem(Mem),
    /// An LDS-unit operation that is not a plain access.
    Ds(DsOp),
    /// A PC-relative branch and its condition.
    Branch(Cond),
    /// Program control and state (SOPP and friends).
    Control(Control),
    /// Reads a clock (`s_memtime`, `s_memrealtime`).
    Time(Clock),
    /// No semantics in a compute emulator, for the given reason.
    Unsupported(Why),
}

/// Which part of the destination an instruction writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partial {
    /// All of it (per active lane).
    Full,
    /// The low 16 bits of each dword; the high half is kept (D16 loads,
    /// `v_fma_mixlo_f16`).
    Lo16,
    /// The high 16 bits; the low half is kept (`_d16_hi` loads,
    /// `v_fma_mixhi_f16`).
    Hi16,
    /// One lane, whatever EXEC (`v_writelane_b32`).
    Lane,
    /// Decided by the SDWA `dst_sel`/`dst_unused` fields.
    BySdwa,
    /// A 16-bit VOP3 result: `op_sel`'s destination bit picks the half
    /// written (GFX9 keeps the other half then).
    ByOpSel,
}

/// A vector compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cmp {
    /// The predicate.
    pub pred: Pred,
    /// The operand type.
    pub ty: NumTy,
    /// `v_cmpx`: the result is written to EXEC too.
    pub exec: bool,
}

/// A scalar compare into SCC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SCmp {
    /// The predicate (integer ones only).
    pub pred: Pred,
    /// The operand type (`I32`, `U32` or `U64`).
    pub ty: NumTy,
    /// `s_cmpk_*`: the second operand is the 16-bit immediate
    /// (sign-extended for `I32`, zero-extended for `U32`).
    pub imm: bool,
}

/// Compare predicates. Integers use `F, Lt, Eq, Le, Gt, Ne, Ge, T`; floats
/// the ordered/unordered set (an `N` predicate is true on NaN).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pred {
    /// Always false.
    F,
    /// Less than (ordered for floats).
    Lt,
    /// Equal (ordered).
    Eq,
    /// Less or equal (ordered).
    Le,
    /// Greater than (ordered).
    Gt,
    /// Integer not-equal.
    Ne,
    /// Float ordered not-equal (false on NaN).
    Lg,
    /// Greater or equal (ordered).
    Ge,
    /// Neither is NaN.
    O,
    /// Either is NaN.
    U,
    /// Not greater or equal (true on NaN).
    Nge,
    /// Not less-or-greater: equal or unordered.
    Nlg,
    /// Not greater than.
    Ngt,
    /// Not less or equal.
    Nle,
    /// Not equal or unordered.
    Neq,
    /// Not less than.
    Nlt,
    /// Always true.
    T,
    /// `v_cmp_class`: the float class of source 0 is in the mask of source 1.
    Class,
}

/// Operand types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NumTy {
    /// Signed 16-bit.
    I16,
    /// Unsigned 16-bit.
    U16,
    /// IEEE half.
    F16,
    /// Signed 32-bit.
    I32,
    /// Unsigned 32-bit.
    U32,
    /// IEEE single.
    F32,
    /// Signed 64-bit.
    I64,
    /// Unsigned 64-bit.
    U64,
    /// IEEE double.
    F64,
    /// 32 untyped bits.
    B32,
    /// 64 untyped bits.
    B64,
}

impl NumTy {
    /// Width in bits.
    pub const fn bits(self) -> u32 {
        match self {
            NumTy::I16 | NumTy::U16 | NumTy::F16 => 16,
            NumTy::I32 | NumTy::U32 | NumTy::F32 | NumTy::B32 => 32,
            NumTy::I64 | NumTy::U64 | NumTy::F64 | NumTy::B64 => 64,
        }
    }
}

/// A memory access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mem {
    /// Address space and addressing.
    pub space: Space,
    /// Load, store, atomic, ...
    pub op: MemOp,
    /// Bytes per element (1, 2, 4, 8).
    pub size: u8,
    /// Elements per lane (`dwordx4`: 4 of 4 bytes; `format_xyz`: 3).
    pub elems: u8,
    /// Sub-dword loads sign-extend.
    pub signed: bool,
    /// Which 16-bit half of the data register a D16 access uses.
    pub d16: D16,
    /// Converted through a buffer data format (`*_format_*`).
    pub format: bool,
}

impl Mem {
    /// Bytes accessed per lane (both halves of a `read2`/`write2`).
    pub const fn bytes(&self) -> u32 {
        let n = self.size as u32 * self.elems as u32;
        match self.op {
            MemOp::Load2 { .. } | MemOp::Store2 { .. } | MemOp::Xchg2 { .. } => 2 * n,
            _ => n,
        }
    }
}

/// Address spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// `flat_*`: the aperture of each lane's address picks global, LDS or
    /// scratch.
    Flat,
    /// `global_*`.
    Global,
    /// `scratch_*`: the wave's private segment.
    Scratch,
    /// `buffer_*` (MUBUF): through a buffer resource descriptor.
    Buffer,
    /// `tbuffer_*` (MTBUF): a buffer with the format in the instruction.
    TypedBuffer,
    /// `ds_*`: the work-group's LDS.
    Lds,
    /// `s_load`/`s_store`/`s_atomic`: a scalar 64-bit address.
    Scalar,
    /// `s_buffer_*`: a scalar access through a buffer descriptor.
    ScalarBuffer,
    /// `s_scratch_*`: a scalar access to the private segment.
    ScalarScratch,
}

/// The kind of a memory access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemOp {
    /// Read into registers.
    Load,
    /// Write from registers.
    Store,
    /// Read-modify-write.
    Atomic(Atomic),
    /// Read from memory straight into LDS at M0 (`*_load_lds_*`, or
    /// MUBUF's `lds` bit).
    LoadToLds,
    /// `ds_read2*`: two elements at two offsets (`st64`: in units of 64
    /// elements).
    Load2 {
        /// Offsets count 64 elements.
        st64: bool,
    },
    /// `ds_write2*`.
    Store2 {
        /// Offsets count 64 elements.
        st64: bool,
    },
    /// `ds_wrxchg2*_rtn`: two exchanges, both old values returned.
    Xchg2 {
        /// Offsets count 64 elements.
        st64: bool,
    },
}

/// An atomic read-modify-write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Atomic {
    /// The operation.
    pub op: AtomicOp,
    /// Whether the old value is returned.
    pub ret: Ret,
}

/// Whether an atomic returns the old value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ret {
    /// When the GLC (`sc0`) bit is set (vector and scalar memory).
    Glc,
    /// Always (`ds_*_rtn_*`).
    Yes,
    /// Never.
    No,
}

/// Atomic operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// Exchange.
    Swap,
    /// Compare and swap (data: new value, then comparand).
    CmpSwap,
    /// DS compare-store (data: comparand, then new value).
    CmpSt,
    /// DS compare-store comparing as floats.
    CmpStF,
    /// Wrapping add.
    Add,
    /// Wrapping subtract.
    Sub,
    /// Reverse subtract (data - old).
    Rsub,
    /// Signed minimum.
    SMin,
    /// Unsigned minimum.
    UMin,
    /// Signed maximum.
    SMax,
    /// Unsigned maximum.
    UMax,
    /// And.
    And,
    /// Or.
    Or,
    /// Xor.
    Xor,
    /// Increment, wrapping to 0 past the operand.
    Inc,
    /// Decrement, wrapping to the operand at 0 or above it.
    Dec,
    /// Float add (size 4: f32, 8: f64).
    FAdd,
    /// Float minimum.
    FMin,
    /// Float maximum.
    FMax,
    /// Packed f16 add.
    PkAddF16,
    /// Packed bf16 add.
    PkAddBf16,
    /// `ds_mskor`: (old & ~mask) | data.
    Mskor,
    /// `ds_condxchg32`: conditional exchange of two 32-bit halves.
    CondXchg32,
    /// `ds_wrap`: old >= data ? old - data : old + data2.
    Wrap,
}

/// Which 16-bit half of the data register a D16 access uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum D16 {
    /// Not a D16 access: whole dwords, sub-dword loads extended to 32 bits.
    No,
    /// The low half (high half kept on loads).
    Lo,
    /// The high half (low half kept on loads).
    Hi,
}

/// LDS-unit operations that are not plain accesses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DsOp {
    /// `ds_nop`.
    Nop,
    /// `ds_permute_b32`: lanes push data to the lane their address names.
    Permute,
    /// `ds_bpermute_b32`: lanes pull data from the lane their address names.
    Bpermute,
    /// `ds_swizzle_b32`: a lane pattern from the offset.
    Swizzle,
    /// `ds_append`: LDS counter += active lanes, old value returned.
    Append,
    /// `ds_consume`: LDS counter -= active lanes.
    Consume,
    /// `ds_read_addtid_b32`: address from the lane ID.
    ReadAddTid,
    /// `ds_write_addtid_b32`.
    WriteAddTid,
    /// gfx950 `ds_read_b64_tr_b{4,8,16}` / `ds_read_b96_tr_b6`: a
    /// transposing read of `bits`-wide elements — a lane's result gathers
    /// elements from the addresses of the other lanes of its group.
    ReadTr {
        /// Element width in bits.
        bits: u8,
    },
}

/// Branch conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cond {
    /// `s_branch`.
    Always,
    /// SCC is 0.
    Scc0,
    /// SCC is 1.
    Scc1,
    /// All 64 bits of VCC are 0.
    Vccz,
    /// Some bit of VCC is 1.
    Vccnz,
    /// EXEC is 0.
    Execz,
    /// EXEC is not 0.
    Execnz,
    /// A debugger's system flag is set (never, without a debugger).
    CdbgSys,
    /// A debugger's user flag is set.
    CdbgUser,
    /// Either debugger flag.
    CdbgSysOrUser,
    /// Both debugger flags.
    CdbgSysAndUser,
}

/// Program control and wave state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Control {
    /// No effect on state (`s_nop`, `v_nop`, `v_clrexcp`).
    Nop,
    /// Ends the wave.
    Endpgm,
    /// Work-group barrier.
    Barrier,
    /// Waits on memory counters.
    Waitcnt,
    /// Sleeps (a hint).
    Sleep,
    /// Sets the wave priority (a hint).
    SetPrio,
    /// Trap.
    Trap,
    /// Sends a message (`s_sendmsg`).
    SendMsg,
    /// Sends a message and halts.
    SendMsgHalt,
    /// Reads the PC of the next instruction.
    GetPc,
    /// Jumps to a register.
    SetPc,
    /// Jumps to a register, saving the return address.
    SwapPc,
    /// PC-relative call, saving the return address.
    Call,
    /// Reads a hardware register field.
    GetReg,
    /// Writes a hardware register field from an SGPR.
    SetReg,
    /// Writes a hardware register field from a literal.
    SetRegImm,
    /// `s_set_gpr_idx_on`.
    GprIdxOn,
    /// `s_set_gpr_idx_off`.
    GprIdxOff,
    /// `s_set_gpr_idx_mode`.
    GprIdxMode,
    /// `s_set_gpr_idx_idx`.
    GprIdxIdx,
    /// Cache maintenance and probes (no effect in a coherent model).
    Cache,
    /// Trace data (no effect without a tracer).
    TraceData,
    /// Performance level hints.
    PerfLevel,
    /// Wakes waves sleeping in the work-group.
    Wakeup,
}

/// Clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Clock {
    /// The shader clock (`s_memtime`, `clock64()`).
    Shader,
    /// The constant-rate real-time clock (`s_memrealtime`,
    /// `wall_clock64()`).
    Real,
}

/// Why an instruction has no semantics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Why {
    /// Graphics-only: images and samplers, pixel-shader kill and ordering,
    /// cube-map helpers, screen partitions.
    Graphics,
    /// Global data share (`ds_gws_*`): GDS is not part of the compute
    /// model.
    Gds,
    /// Trap-handler and context-save state (`s_rfe*`, `s_sethalt`,
    /// `s_endpgm_saved`), and `s_sendmsghalt`, whose halted wave waits for
    /// a debugger or trap handler to resume it.
    TrapHandler,
    /// Forks and joins LLVM still decodes but GFX9 hardware removed.
    Removed,
    /// Words that do not decode.
    Invalid,
    /// Exists only on processors the emulator does not run yet (gfx900 to
    /// gfx908, gfx950): the row is kept so that running them adds
    /// semantics, not table rows.
    NotEmulated,
}

impl Why {
    /// The reason, for messages.
    pub const fn reason(self) -> &'static str {
        match self {
            Why::Graphics => "graphics-only",
            Why::Gds => "GDS is not modelled",
            Why::TrapHandler => "trap-handler state is not modelled",
            Why::Removed => "removed from GFX9 hardware",
            Why::Invalid => "invalid instruction",
            Why::NotEmulated => "only on processors the emulator does not run yet",
        }
    }
}

/// The encoding of the 8-bit floats (`fp8`, `bf8`) a processor's
/// conversions and matrix instructions use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fp8Format {
    /// AMD's FNUZ formats of gfx942 (E4M3 bias 8, E5M2 bias 16, `0x80` the
    /// only NaN, no infinities, no negative zero).
    Fnuz,
    /// The OCP formats of gfx950 and GFX12 (E4M3FN bias 7, E5M2 bias 15
    /// with infinities, IEEE-style NaNs and -0).
    Ocp,
    /// No 8-bit float instructions.
    None,
}

/// The 8-bit float encoding of `target` (LLVM: gfx950 uses the OCP
/// formats, gfx940-942 the FNUZ ones; other processors of the emulator
/// have none, and GFX12's are not described here yet).
pub fn fp8_format(target: Target) -> Fp8Format {
    match target {
        Target::Gfx942 => Fp8Format::Fnuz,
        Target::Gfx950 => Fp8Format::Ocp,
        _ => Fp8Format::None,
    }
}

/// The LDS a work-group of `target` can address, in bytes: 160 KiB on
/// gfx950 (CDNA4 ISA guide; LLVM's `getAddressableLocalMemorySize`),
/// 64 KiB on the other processors described here. DS addresses past it
/// are out of range, and a dispatch asking for more cannot run.
pub fn lds_bytes(target: Target) -> u32 {
    match target {
        Target::Gfx950 => 160 * 1024,
        _ => 64 * 1024,
    }
}

/// Registers an instruction reads or writes without naming them as
/// operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Implicit {
    /// Reads EXEC.
    pub reads_exec: bool,
    /// Writes EXEC.
    pub writes_exec: bool,
    /// Reads VCC.
    pub reads_vcc: bool,
    /// Writes VCC.
    pub writes_vcc: bool,
    /// Reads SCC.
    pub reads_scc: bool,
    /// Writes SCC.
    pub writes_scc: bool,
    /// Reads M0.
    pub reads_m0: bool,
    /// Writes M0.
    pub writes_m0: bool,
}

/// The implicit registers of `op` on `target` (from the opcode table's
/// flags).
pub fn implicit(op: Opcode, target: Target) -> Implicit {
    let f = op.info().flags(target);
    let on = |b: u64| f & b != 0;
    Implicit {
        reads_exec: on(flags::READS_EXEC),
        writes_exec: on(flags::WRITES_EXEC),
        reads_vcc: on(flags::READS_VCC),
        writes_vcc: on(flags::WRITES_VCC),
        reads_scc: on(flags::READS_SCC),
        writes_scc: on(flags::WRITES_SCC),
        reads_m0: on(flags::READS_M0),
        writes_m0: on(flags::WRITES_M0),
    }
}

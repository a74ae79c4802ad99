//! The fast tier: common VALU instructions as compact µops that compute
//! straight into the destination VGPR.
//!
//! At decode ([`Fast::of`]) an instruction whose semantics are a pure
//! per-lane function of 32-bit sources — integer ALU, f32 add/mul/FMA with
//! `abs`/`neg`, packed f32 — and that has none of what the general
//! handlers deal with (clamp, output modifiers, SDWA, DPP, AGPRs, 64-bit
//! or special scalar operands) becomes a [`Fast`]: the operation and its
//! operands as VGPR indices, SGPR numbers or constants. When the wave
//! runs it with a full EXEC, no `s_set_gpr_idx_on` indexing and nothing
//! for the `s_waitcnt` check to look at, [`run`] executes it:
//!
//! - the register file is viewed as cells (`Cell<u32>` per lane), so a
//!   destination may be one of the sources without a copy and without
//!   `unsafe`;
//! - lanes are computed eight at a time, every source lane of a group read
//!   before any is written, so the loop compiles to vector loads, one
//!   vector operation and vector stores (AVX2/FMA clone chosen at run
//!   time, as in [`crate::lanes`]);
//! - a scalar or constant source is one value, splatted by the compiler.
//!
//! Results are bit-identical to the general handlers: the same host
//! operations under the same denormal flushing. What the general handler
//! would send to its reference path (packed-f32 NaN results) is left to
//! it: [`run`] returns `false` before writing anything when any packed
//! input is not finite, and the caller takes the general path.

use lathe_isa::{Encoding, Instruction, Opcode, Operand, RegFile, RegRange};

use super::regs::{const32, const64, vop3_clamp_omod};
use super::OpList;
use crate::wave::SGPRS;
use lathe_isa::reg::sreg::EXEC_LO;

/// What a [`Fast`] µop computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FOp {
    Mov,
    Not,
    Add,
    Sub,
    Subrev,
    And,
    Or,
    Xor,
    Lshl,
    Lshr,
    Ashr,
    MulLo,
    MulHi,
    MulU24,
    MinU,
    MaxU,
    MinI,
    MaxI,
    Add3,
    LshlAdd,
    AddLshl,
    LshlOr,
    AndOr,
    Or3,
    Xad,
    Bfi,
    MadU24,
    /// `v_add_co_u32`: carry-out lane mask to an SGPR pair or VCC.
    AddCo,
    /// `v_addc_co_u32`: carry-in from an SGPR pair or VCC too.
    AddcCo,
    AddF,
    SubF,
    SubrevF,
    MulF,
    FmaF,
    /// `d = a * b + d`.
    FmacF,
    PkFma,
    PkMul,
    PkAdd,
    // Scalar ALU: `dst` is an SGPR (s0..s101 or VCC), SCC as the ISA says.
    SMov,
    SAddU32,
    SSubU32,
    SAddI32,
    SSubI32,
    SAnd,
    SOr,
    SXor,
    SLshl,
    SLshr,
    SMulI32,
    // Scalar compares: SCC only.
    SCmpEq,
    SCmpLg,
    SCmpLtU,
    SCmpLeU,
    SCmpGtU,
    SCmpGeU,
    SCmpLtI,
    SCmpLeI,
    SCmpGtI,
    SCmpGeI,
    // Control: no-op and direct branches (taken: the decoded target).
    SAddcU32,
    SCselect,
    // 64-bit scalar logic (a pair of SGPRs or EXEC as a source, never EXEC
    // as the destination).
    SMov64,
    SAnd64,
    SOr64,
    SXor64,
    SAndn2_64,
    // Lane access, whatever EXEC is.
    ReadLane,
    WriteLane,
    SNop,
    // ---- Compares into a lane mask (VCC or an SGPR pair; `v_cmpx` also
    // EXEC), any EXEC: `Fast::pred` is the predicate index within the
    // opcode group (`alu::cmp::{FCmp, ICmp}::from_index`).
    CmpI32,
    CmpU32,
    CmpF32,
    CmpI64,
    CmpU64,
    CmpF64,
    /// `v_cndmask_b32`: the lane mask in VCC or an SGPR pair (`carry[1]`).
    Cndmask,
    Med3I,
    Med3U,
    Min3I,
    Min3U,
    Max3I,
    Max3U,
    BfeU,
    Alignbit,
    MulHiI,
    /// f32 min/max/med3 (IEEE NaN rules, `alu::float`).
    MaxF,
    MinF,
    Med3F,
    CvtF32U32,
    CvtF32I32,
    CvtI32F32,
    CvtU32F32,
    CvtF16F32,
    CvtF32F16,
    // 64-bit results (a VGPR pair) or 64-bit sources.
    CvtF64U32,
    CvtF64I32,
    CvtF64F32,
    CvtF32F64,
    Lshl64,
    Lshr64,
    Ashr64,
    /// `v_mad_u64_u32`: carry-out lane mask to the SGPR pair `carry[0]`.
    MadU64U32,
    /// `v_pk_mov_b32`: `pred` bit 0/1 = op_sel of source 0/1.
    PkMov,
    AddF64,
    MulF64,
    FmaF64,
    FmacF64,
    // Scalar.
    SBitcmp0,
    SBitcmp1,
    SCselect64,
    Branch,
    BranchScc0,
    BranchScc1,
    BranchVccz,
    BranchVccnz,
    BranchExecz,
    BranchExecnz,
}

impl FOp {
    /// The µop of an opcode (its compare predicate and whether it is a
    /// `v_cmpx`, for compares), chosen by opcode: the generated table's
    /// constants, and for compares the opcode group of the encoding.
    fn of(op: Opcode) -> Option<(FOp, u8, bool)> {
        use FOp::*;
        let info = op.info();
        if matches!(info.enc, Encoding::Vopc | Encoding::Vop3) && info.code < 0x100 {
            // VOPC opcodes (also as VOP3): groups of 16 (float: f32 at
            // 0x40, f64 at 0x60) or 8 (integer: i32 at 0xc0, u32 0xc8,
            // i64 0xe0, u64 0xe8), each followed by its `v_cmpx` group.
            let c = info.code;
            let (ty, x) = match c {
                0x40..=0x5f => (CmpF32, c >= 0x50),
                0x60..=0x7f => (CmpF64, c >= 0x70),
                0xc0..=0xdf => (if c & 8 == 0 { CmpI32 } else { CmpU32 }, c >= 0xd0),
                0xe0..=0xff => (if c & 8 == 0 { CmpI64 } else { CmpU64 }, c >= 0xf0),
                _ => return None,
            };
            let pred = if matches!(ty, CmpF32 | CmpF64) {
                c & 15
            } else {
                c & 7
            };
            return Some((ty, pred as u8, x));
        }
        Some((
            match op {
                Opcode::V_MOV_B32_E32 | Opcode::V_MOV_B32_E64 => Mov,
                Opcode::V_NOT_B32_E32 | Opcode::V_NOT_B32_E64 => Not,
                Opcode::V_ADD_U32_E32 | Opcode::V_ADD_U32_E64 => Add,
                Opcode::V_SUB_U32_E32 | Opcode::V_SUB_U32_E64 => Sub,
                Opcode::V_SUBREV_U32_E32 | Opcode::V_SUBREV_U32_E64 => Subrev,
                Opcode::V_AND_B32_E32 | Opcode::V_AND_B32_E64 => And,
                Opcode::V_OR_B32_E32 | Opcode::V_OR_B32_E64 => Or,
                Opcode::V_XOR_B32_E32 | Opcode::V_XOR_B32_E64 => Xor,
                Opcode::V_LSHLREV_B32_E32 | Opcode::V_LSHLREV_B32_E64 => Lshl,
                Opcode::V_LSHRREV_B32_E32 | Opcode::V_LSHRREV_B32_E64 => Lshr,
                Opcode::V_ASHRREV_I32_E32 | Opcode::V_ASHRREV_I32_E64 => Ashr,
                Opcode::V_MUL_LO_U32 => MulLo,
                Opcode::V_MUL_HI_U32 => MulHi,
                Opcode::V_MUL_U32_U24_E32 | Opcode::V_MUL_U32_U24_E64 => MulU24,
                Opcode::V_MIN_U32_E32 | Opcode::V_MIN_U32_E64 => MinU,
                Opcode::V_MAX_U32_E32 | Opcode::V_MAX_U32_E64 => MaxU,
                Opcode::V_MIN_I32_E32 | Opcode::V_MIN_I32_E64 => MinI,
                Opcode::V_MAX_I32_E32 | Opcode::V_MAX_I32_E64 => MaxI,
                Opcode::V_ADD3_U32 => Add3,
                Opcode::V_LSHL_ADD_U32 => LshlAdd,
                Opcode::V_ADD_LSHL_U32 => AddLshl,
                Opcode::V_LSHL_OR_B32 => LshlOr,
                Opcode::V_AND_OR_B32 => AndOr,
                Opcode::V_OR3_B32 => Or3,
                Opcode::V_XAD_U32 => Xad,
                Opcode::V_BFI_B32 => Bfi,
                Opcode::V_MAD_U32_U24 => MadU24,
                Opcode::V_ADD_CO_U32_E32 | Opcode::V_ADD_CO_U32_E64 => AddCo,
                Opcode::V_ADDC_CO_U32_E32 | Opcode::V_ADDC_CO_U32_E64 => AddcCo,
                Opcode::V_ADD_F32_E32 | Opcode::V_ADD_F32_E64 => AddF,
                Opcode::V_SUB_F32_E32 | Opcode::V_SUB_F32_E64 => SubF,
                Opcode::V_SUBREV_F32_E32 | Opcode::V_SUBREV_F32_E64 => SubrevF,
                Opcode::V_MUL_F32_E32 | Opcode::V_MUL_F32_E64 => MulF,
                Opcode::V_FMA_F32 => FmaF,
                Opcode::V_FMAC_F32_E32 | Opcode::V_FMAC_F32_E64 => FmacF,
                Opcode::V_PK_FMA_F32 => PkFma,
                Opcode::V_PK_MUL_F32 => PkMul,
                Opcode::V_PK_ADD_F32 => PkAdd,
                Opcode::S_MOV_B32 => SMov,
                Opcode::S_ADD_U32 => SAddU32,
                Opcode::S_SUB_U32 => SSubU32,
                Opcode::S_ADD_I32 => SAddI32,
                Opcode::S_SUB_I32 => SSubI32,
                Opcode::S_AND_B32 => SAnd,
                Opcode::S_OR_B32 => SOr,
                Opcode::S_XOR_B32 => SXor,
                Opcode::S_LSHL_B32 => SLshl,
                Opcode::S_LSHR_B32 => SLshr,
                Opcode::S_MUL_I32 => SMulI32,
                Opcode::S_CMP_EQ_U32 | Opcode::S_CMP_EQ_I32 => SCmpEq,
                Opcode::S_CMP_LG_U32 | Opcode::S_CMP_LG_I32 => SCmpLg,
                Opcode::S_CMP_LT_U32 => SCmpLtU,
                Opcode::S_CMP_LE_U32 => SCmpLeU,
                Opcode::S_CMP_GT_U32 => SCmpGtU,
                Opcode::S_CMP_GE_U32 => SCmpGeU,
                Opcode::S_CMP_LT_I32 => SCmpLtI,
                Opcode::S_CMP_LE_I32 => SCmpLeI,
                Opcode::S_CMP_GT_I32 => SCmpGtI,
                Opcode::S_CMP_GE_I32 => SCmpGeI,
                Opcode::S_ADDC_U32 => SAddcU32,
                Opcode::S_CSELECT_B32 => SCselect,
                Opcode::S_MOV_B64 => SMov64,
                Opcode::S_AND_B64 => SAnd64,
                Opcode::S_OR_B64 => SOr64,
                Opcode::S_XOR_B64 => SXor64,
                Opcode::S_ANDN2_B64 => SAndn2_64,
                Opcode::V_READLANE_B32 => ReadLane,
                Opcode::V_WRITELANE_B32 => WriteLane,
                Opcode::S_CBRANCH_EXECZ => BranchExecz,
                Opcode::S_CBRANCH_EXECNZ => BranchExecnz,
                Opcode::S_NOP => SNop,
                Opcode::S_BRANCH => Branch,
                Opcode::S_CBRANCH_SCC0 => BranchScc0,
                Opcode::S_CBRANCH_SCC1 => BranchScc1,
                Opcode::S_CBRANCH_VCCZ => BranchVccz,
                Opcode::S_CBRANCH_VCCNZ => BranchVccnz,
                Opcode::V_CNDMASK_B32_E32 | Opcode::V_CNDMASK_B32_E64 => Cndmask,
                Opcode::V_MED3_I32 => Med3I,
                Opcode::V_MED3_U32 => Med3U,
                Opcode::V_MIN3_I32 => Min3I,
                Opcode::V_MIN3_U32 => Min3U,
                Opcode::V_MAX3_I32 => Max3I,
                Opcode::V_MAX3_U32 => Max3U,
                Opcode::V_MAX_F32_E32 | Opcode::V_MAX_F32_E64 => MaxF,
                Opcode::V_MIN_F32_E32 | Opcode::V_MIN_F32_E64 => MinF,
                Opcode::V_MED3_F32 => Med3F,
                Opcode::V_CVT_F32_U32_E32 | Opcode::V_CVT_F32_U32_E64 => CvtF32U32,
                Opcode::V_CVT_F32_I32_E32 | Opcode::V_CVT_F32_I32_E64 => CvtF32I32,
                Opcode::V_CVT_I32_F32_E32 | Opcode::V_CVT_I32_F32_E64 => CvtI32F32,
                Opcode::V_CVT_U32_F32_E32 | Opcode::V_CVT_U32_F32_E64 => CvtU32F32,
                Opcode::V_CVT_F16_F32_E32 | Opcode::V_CVT_F16_F32_E64 => CvtF16F32,
                Opcode::V_CVT_F32_F16_E32 | Opcode::V_CVT_F32_F16_E64 => CvtF32F16,
                Opcode::V_CVT_F64_U32_E32 | Opcode::V_CVT_F64_U32_E64 => CvtF64U32,
                Opcode::V_CVT_F64_I32_E32 | Opcode::V_CVT_F64_I32_E64 => CvtF64I32,
                Opcode::V_CVT_F32_F64_E32 | Opcode::V_CVT_F32_F64_E64 => CvtF32F64,
                Opcode::V_CVT_F64_F32_E32 | Opcode::V_CVT_F64_F32_E64 => CvtF64F32,
                Opcode::V_LSHLREV_B64 => Lshl64,
                Opcode::V_LSHRREV_B64 => Lshr64,
                Opcode::V_ASHRREV_I64 => Ashr64,
                Opcode::V_MAD_U64_U32 => MadU64U32,
                Opcode::V_PK_MOV_B32 => PkMov,
                Opcode::V_ADD_F64 => AddF64,
                Opcode::V_MUL_F64 => MulF64,
                Opcode::V_FMA_F64 => FmaF64,
                Opcode::V_FMAC_F64_E32 | Opcode::V_FMAC_F64_E64 => FmacF64,
                Opcode::V_BFE_U32 => BfeU,
                Opcode::V_MUL_HI_I32 => MulHiI,
                Opcode::V_ALIGNBIT_B32 => Alignbit,
                Opcode::S_BITCMP0_B32 => SBitcmp0,
                Opcode::S_BITCMP1_B32 => SBitcmp1,
                Opcode::S_CSELECT_B64 => SCselect64,
                _ => return None,
            },
            0,
            false,
        ))
    }

    fn sources(self) -> usize {
        use FOp::*;
        match self {
            SNop | Branch | BranchScc0 | BranchScc1 | BranchVccz | BranchVccnz | BranchExecz
            | BranchExecnz => 0,
            Mov | Not | SMov | SMov64 | CvtF32U32 | CvtF32I32 | CvtI32F32 | CvtU32F32
            | CvtF16F32 | CvtF32F16 | CvtF64U32 | CvtF64I32 | CvtF64F32 | CvtF32F64 => 1,
            Add3 | LshlAdd | AddLshl | LshlOr | AndOr | Or3 | Xad | Bfi | MadU24 | FmaF | PkFma
            | Med3I | Med3U | Min3I | Min3U | Max3I | Max3U | BfeU | Alignbit | Med3F
            | MadU64U32 | FmaF64 => 3,
            _ => 2,
        }
    }

    fn float(self) -> bool {
        use FOp::*;
        matches!(
            self,
            AddF | SubF | SubrevF | MulF | FmaF | FmacF | PkFma | PkMul | PkAdd
        )
    }

    /// Follows MODE (checked against what is modelled, denormals flushed
    /// as it says).
    fn moded(self) -> bool {
        use FOp::*;
        self.float()
            || self.double()
            || matches!(
                self,
                CmpF32
                    | MaxF
                    | MinF
                    | Med3F
                    | CvtF32U32
                    | CvtF32I32
                    | CvtF16F32
                    | CvtF32F16
                    | CvtF64F32
                    | CvtF32F64
            )
    }

    /// f64 arithmetic with `abs`/`neg` (on the high dword's sign).
    fn double(self) -> bool {
        use FOp::*;
        matches!(self, AddF64 | MulF64 | FmaF64 | FmacF64)
    }

    /// Which sources are 64-bit (bit `k`).
    fn wide_srcs(self) -> u8 {
        use FOp::*;
        match self {
            CmpI64 | CmpU64 | CmpF64 | AddF64 | MulF64 | FmacF64 | PkMov => 0b11,
            FmaF64 => 0b111,
            CvtF32F64 => 0b1,
            Lshl64 | Lshr64 | Ashr64 => 0b10,
            MadU64U32 => 0b100,
            _ => 0,
        }
    }

    /// Writes a VGPR pair.
    fn pair_dst(self) -> bool {
        use FOp::*;
        matches!(
            self,
            CvtF64U32
                | CvtF64I32
                | CvtF64F32
                | Lshl64
                | Lshr64
                | Ashr64
                | MadU64U32
                | PkMov
                | AddF64
                | MulF64
                | FmaF64
                | FmacF64
        )
    }

    /// A vector compare: the result is a lane mask in SGPRs.
    fn compare(self) -> bool {
        use FOp::*;
        matches!(self, CmpI32 | CmpU32 | CmpF32 | CmpI64 | CmpU64 | CmpF64)
    }

    /// Run by [`ext`].
    fn ext(self) -> bool {
        use FOp::*;
        self.compare()
            || self.pair_dst()
            || matches!(
                self,
                Cndmask
                    | Med3I
                    | Med3U
                    | Min3I
                    | Min3U
                    | Max3I
                    | Max3U
                    | BfeU
                    | Alignbit
                    | MulHiI
                    | MaxF
                    | MinF
                    | Med3F
                    | CvtF32U32
                    | CvtF32I32
                    | CvtI32F32
                    | CvtU32F32
                    | CvtF16F32
                    | CvtF32F16
                    | CvtF32F64
            )
    }

    fn branch(self) -> bool {
        use FOp::*;
        matches!(
            self,
            Branch
                | BranchScc0
                | BranchScc1
                | BranchVccz
                | BranchVccnz
                | BranchExecz
                | BranchExecnz
        )
    }

    /// Writes one SGPR.
    fn scalar(self) -> bool {
        use FOp::*;
        matches!(
            self,
            SMov | SAddU32
                | SSubU32
                | SAddI32
                | SSubI32
                | SAnd
                | SOr
                | SXor
                | SLshl
                | SLshr
                | SMulI32
                | SAddcU32
                | SCselect
                | ReadLane
        )
    }

    /// Writes a pair of SGPRs.
    fn wide(self) -> bool {
        use FOp::*;
        matches!(
            self,
            SMov64 | SAnd64 | SOr64 | SXor64 | SAndn2_64 | SCselect64
        )
    }

    /// Writes nothing but SCC or the PC.
    fn no_dst(self) -> bool {
        use FOp::*;
        self.branch()
            || matches!(
                self,
                SCmpEq
                    | SCmpLg
                    | SCmpLtU
                    | SCmpLeU
                    | SCmpGtU
                    | SCmpGeU
                    | SCmpLtI
                    | SCmpLeI
                    | SCmpGtI
                    | SCmpGeI
                    | SBitcmp0
                    | SBitcmp1
                    | SNop
            )
    }

    /// Reads or writes one lane of a VGPR.
    fn lanewise(self) -> bool {
        matches!(self, FOp::ReadLane | FOp::WriteLane)
    }

    /// Runs in the scalar part of [`exec`] (no lane loop).
    fn salu(self) -> bool {
        self.scalar() || self.wide() || self.no_dst() || self == FOp::WriteLane
    }

    /// A whole-wave vector operation: needs a full EXEC (compares mask
    /// their result with EXEC, whatever it is).
    fn full_exec(self) -> bool {
        !self.salu() && !self.compare()
    }

    fn packed(self) -> bool {
        matches!(self, FOp::PkFma | FOp::PkMul | FOp::PkAdd)
    }
}

/// A source as decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Src {
    /// VGPR number.
    V(u16),
    /// Scalar register number (read with the general scalar read).
    S(u16),
    /// Constant.
    K(u32),
}

/// One fast µop: the operation, the destination VGPR, up to three sources
/// with their f32 sign modifiers as masks (element = `(x & and) ^ xor`),
/// and for packed ops which half of each source feeds each result half.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fast {
    op: FOp,
    dst: u16,
    /// The sources (for packed ops: of the low result).
    src: [Src; 3],
    /// Packed ops: the sources of the high result.
    hi: [Src; 3],
    /// One past the highest VGPR the µop touches (checked against the
    /// wave's file once per execution).
    top: u16,
    and: [u32; 3],
    xor: [u32; 3],
    /// Packed ops: the `neg` of the high result's sources (bit `k`).
    neg_hi: u8,
    /// 64-bit sources: the constants.
    k64: [u64; 3],
    /// Carry ops: the SGPR pairs (VCC is 106) receiving the carry-out and
    /// giving the carry-in.
    carry: [u16; 2],
    /// Compares: the predicate index; `v_pk_mov_b32`: its op_sel bits.
    pred: u8,
    /// `v_cmpx`: the mask goes to EXEC too.
    x: bool,
}

impl Fast {
    /// Whether the µop needs a full EXEC (whole-wave vector operations;
    /// scalar and lane-access µops run under any EXEC).
    pub(super) fn full_exec(&self) -> bool {
        self.op.full_exec()
    }

    /// The µop of the instruction decoded at `pc`, if it has one (a branch
    /// only when its target is known at decode).
    pub(super) fn of(inst: &Instruction, pc: u64, ops: &OpList) -> Option<Fast> {
        let opcode = inst.opcode();
        if opcode.is_invalid() {
            return None;
        }
        let (op, pred, cmpx) = FOp::of(opcode)?;
        if op.branch() && inst.branch_target(pc).is_none() {
            return None;
        }
        let enc = inst.encoding();
        let salu = op.salu();
        let encodings: &[Encoding] = if salu && !op.lanewise() {
            &[
                Encoding::Sop1,
                Encoding::Sop2,
                Encoding::Sopc,
                Encoding::Sopp,
            ]
        } else {
            &[
                Encoding::Vop1,
                Encoding::Vop2,
                Encoding::Vopc,
                Encoding::Vop3,
                Encoding::Vop3p,
            ]
        };
        if !encodings.contains(&enc) {
            return None;
        }
        if op.no_dst() && op.sources() == 0 {
            // s_nop and direct branches: nothing to resolve.
            return Some(Fast {
                op,
                dst: 0,
                src: [Src::K(0); 3],
                hi: [Src::K(0); 3],
                top: 0,
                and: [u32::MAX; 3],
                xor: [0; 3],
                neg_hi: 0,
                k64: [0; 3],
                carry: [0; 2],
                pred: 0,
                x: false,
            });
        }
        if vop3_clamp_omod(inst) != (false, 0) {
            return None;
        }
        let words = inst.words();
        let (w0, w1) = (words[0], words.get(1).copied().unwrap_or(0));
        // VOP3b forms have their SGPR destination where VOP3a has op_sel.
        let vop3b = matches!(op, FOp::AddCo | FOp::AddcCo | FOp::MadU64U32);
        if enc == Encoding::Vop3 && !vop3b && w0 >> 11 & 15 != 0 {
            // op_sel (f16 forms only; never on these ops, but be exact).
            return None;
        }
        if (op.packed() || op == FOp::PkMov) != (enc == Encoding::Vop3p) {
            return None;
        }
        if op == FOp::PkMov && (w1 >> 29 & 3 != 0 || w0 >> 8 & 3 != 0) {
            return None; // neg_lo/neg_hi
        }
        let carry = matches!(op, FOp::AddCo | FOp::AddcCo);
        // A carry op's second destination and the carry-in source of
        // `v_addc_co_u32_e64`: plain SGPR pairs.
        let pair = |k: Option<&lathe_isa::Op>| match k.map(|o| o.value) {
            Some(Operand::Reg(RegRange {
                file: RegFile::Scalar,
                first,
                ..
            })) if usize::from(first) + 1 < SGPRS => Some(first),
            _ => None,
        };
        // A compare's mask destination: VCC (e32) or an SGPR pair (e64).
        let (extra_dst, extra_src) = match op {
            _ if carry => (
                usize::from(ops.ndst == 2),
                usize::from(op == FOp::AddcCo && ops.nsrc == 3),
            ),
            FOp::Cndmask => (0, usize::from(ops.nsrc == 3)),
            FOp::MadU64U32 => (1, 0),
            _ if op.compare() => (usize::from(ops.ndst == 1), 0),
            _ => (0, 0),
        };
        let ndst = if op.compare() {
            0
        } else {
            usize::from(!op.no_dst())
        };
        if usize::from(ops.ndst) != ndst + extra_dst
            || ops.nsrc as usize != op.sources() + extra_src
        {
            return None;
        }
        let mask_dst = match op {
            _ if !op.compare() => 0,
            _ if extra_dst == 1 => pair(ops.dst(0))?,
            _ => VCC_PAIR,
        };
        let carry_pairs = [
            if extra_dst == 1 && !op.compare() {
                pair(ops.dst(1))?
            } else {
                VCC_PAIR
            },
            if extra_src == 1 {
                pair(ops.src(2))?
            } else {
                VCC_PAIR
            },
        ];
        let dst = match ops.dst(0).map(|d| d.value) {
            _ if op.compare() => mask_dst,
            None => 0,
            Some(Operand::Reg(RegRange {
                file: RegFile::Vgpr,
                first,
                ..
            })) if !salu || op == FOp::WriteLane => first,
            // s0..s101 and VCC: plain writes.
            Some(Operand::Reg(RegRange {
                file: RegFile::Scalar,
                first,
                ..
            })) if op.scalar() && usize::from(first) < SGPRS => first,
            Some(Operand::Reg(RegRange {
                file: RegFile::Scalar,
                first,
                ..
            })) if op.wide() && usize::from(first) + 1 < SGPRS => first,
            _ => return None,
        };
        let mut f = Fast {
            op,
            dst,
            src: [Src::K(0); 3],
            hi: [Src::K(0); 3],
            top: if (salu && op != FOp::WriteLane) || op.compare() {
                0
            } else {
                dst + 1 + u16::from(op.pair_dst())
            },
            and: [u32::MAX; 3],
            xor: [0; 3],
            neg_hi: 0,
            k64: [0; 3],
            carry: carry_pairs,
            pred,
            x: cmpx,
        };
        if op == FOp::PkMov {
            f.pred = (w0 >> 11 & 3) as u8;
        }
        for k in 0..op.sources() {
            let s = ops.src(k)?;
            let wide_src = op.wide() || op.wide_srcs() >> k & 1 == 1;
            f.src[k] = match s.value {
                Operand::Reg(RegRange {
                    file: RegFile::Vgpr,
                    first,
                    ..
                }) => Src::V(first),
                // Vector µops read plain SGPRs (a packed one a pair of
                // them); scalar µops any scalar register.
                Operand::Reg(RegRange {
                    file: RegFile::Scalar,
                    first,
                    ..
                }) if (salu && !op.wide())
                    || usize::from(first) + usize::from(op.packed() || wide_src) < SGPRS
                    || (op.wide() && first == EXEC_LO) =>
                {
                    Src::S(first)
                }
                Operand::Reg(_) => return None,
                _ if wide_src => {
                    f.k64[k] = const64(s)?;
                    Src::K(0)
                }
                _ => Src::K(const32(s)?),
            };
            if s.sext {
                return None;
            }
            if op.float() || op.double() || matches!(op, FOp::CmpF32 | FOp::CmpF64 | FOp::Cndmask) {
                // For 64-bit sources, masks of the high dword.
                if s.abs {
                    f.and[k] = 0x7fff_ffff;
                }
                if s.neg {
                    f.xor[k] = 0x8000_0000;
                }
            } else if s.abs || s.neg {
                return None;
            }
        }
        if op.packed() {
            if w0 >> 15 & 1 == 1 {
                return None; // clamp
            }
            // A pair's half: the register `first + half`, or the scalar
            // pair's half; a constant feeds both.
            let half = |s: Src, h: u32| match s {
                Src::V(r) => Src::V(r + h as u16),
                Src::S(r) => Src::S(r + h as u16),
                k => k,
            };
            for k in 0..op.sources() {
                let lo = w0 >> (11 + k) & 1;
                let hi = if k < 2 {
                    w1 >> (27 + k) & 1
                } else {
                    w0 >> 14 & 1
                };
                let s = f.src[k];
                (f.src[k], f.hi[k]) = (half(s, lo), half(s, hi));
                // Packed modifiers come from the instruction words, not the
                // operand list.
                f.xor[k] = if w1 >> (29 + k) & 1 == 1 {
                    0x8000_0000
                } else {
                    0
                };
                f.and[k] = u32::MAX;
                f.neg_hi |= ((w0 >> (8 + k) & 1) as u8) << k;
                // The low result is written first: no source of the high
                // result may read it.
                if f.hi[k] == Src::V(dst) {
                    return None;
                }
            }
            f.top = dst + 2;
        }
        for (k, s) in f.src.iter().chain(&f.hi).enumerate() {
            if let Src::V(r) = *s {
                let wide = k < 3 && op.wide_srcs() >> k & 1 == 1;
                f.top = f.top.max(r + 1 + u16::from(wide));
            }
        }
        Some(f)
    }
}

/// VCC's index in [`crate::wave::Wave::sgpr`].
const VCC_PAIR: u16 = 106;

/// What executing a µop did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Out {
    /// Nothing: the general handler must run instead.
    Declined,
    /// Done; the next instruction follows.
    Next,
    /// A branch taken to the decoded target.
    Taken,
}

#[macro_use]
mod lanes;
mod exec;
mod ext;

pub(super) use exec::{lane, run};

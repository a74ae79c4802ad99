//! The fast tier: common VALU instructions as compact µops that compute
//! straight into the destination VGPR.
//!
//! At decode ([`Fast::of`]) an instruction whose semantics are a pure
//! per-lane function of 32-bit sources — integer ALU, f32 add/mul/FMA with
//! `abs`/`neg`, packed f32 — and that has none of what the general
//! handlers deal with (clamp, output modifiers, SDWA, DPP, AGPRs, 64-bit
//! or special scalar operands) becomes a [`Fast`]: the operation and its
//! operands as VGPR indices, SGPR numbers or constants. When the wave
//! runs it with no `s_set_gpr_idx_on` indexing and nothing for the
//! `s_waitcnt` check to look at, [`run`] executes it (under a partial
//! EXEC every lane is computed and the inactive lanes of the destination
//! put back):
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

use lathe_isa::sem::{self, Cond, Control, NumTy, Packed, Pred, Salu, Sem, Valu};
use lathe_isa::{Encoding, Instruction, Opcode, Operand, RegFile, RegRange};

use super::cmp::{fcmp, icmp};
use super::regs::{const32, const64, vop3_clamp_omod};
use super::valu::packed_const;
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
    /// `v_sub_co_u32`, `v_subrev_co_u32`: borrow-out as `AddCo`'s carry.
    SubCo,
    SubrevCo,
    /// `v_subb_co_u32`, `v_subbrev_co_u32`: borrow-in as `AddcCo`'s.
    SubbCo,
    SubbrevCo,
    AddF,
    SubF,
    SubrevF,
    MulF,
    FmaF,
    /// `d = a * b + d`.
    FmacF,
    /// `v_rcp_f32`, `v_rsq_f32`, `v_sqrt_f32`: the general handler's host
    /// operations.
    RcpF,
    RsqF,
    SqrtF,
    PkFma,
    PkMul,
    PkAdd,
    /// Packed f16 (`v_pk_{fma,add,mul,max,min}_f16`): each source's
    /// `op_sel`/`op_sel_hi`/`neg_lo`/`neg_hi` in [`Fast::half`], the lanes
    /// [`crate::alu::packed`]'s.
    PkFmaF16,
    PkAddF16,
    PkMulF16,
    PkMaxF16,
    PkMinF16,
    /// `v_pack_b32_f16`: each source's half (`op_sel`), `abs`/`neg` on
    /// its f16 sign, in [`Fast::half`] (bits 0, 4 and 2).
    PackB32F16,
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
    SMulHiU32,
    SMulHiI32,
    SAshr,
    SAndn2,
    SNot,
    /// `s_min/max_{i,u}32`: SCC is whether source 0 was chosen (strictly).
    SMinI,
    SMinU,
    SMaxI,
    SMaxU,
    /// `s_lshl{1,2,3,4}_add_u32`: the shift in `pred`, SCC the carry.
    SLshlAdd,
    // Scalar compares into SCC, unsigned and signed: `Fast::pred` is what
    // the predicate accepts, as for vector compares.
    SCmpU,
    SCmpI,
    // Control: no-op and direct branches (taken: the decoded target).
    SAddcU32,
    SCselect,
    // 64-bit scalar logic (a pair of SGPRs or EXEC as a source and as the
    // destination: whole-wave µops check EXEC before each run).
    SMov64,
    SAnd64,
    SOr64,
    SXor64,
    SAndn2_64,
    /// 64-bit shifts (source 1 the amount), SCC = result != 0.
    SLshl64,
    SLshr64,
    SAshr64,
    /// `s_{and,or,andn2}_saveexec_b64`: EXEC to the destination, EXEC
    /// combined with the source, SCC = EXEC != 0.
    SAndSaveexec,
    SOrSaveexec,
    SAndn2Saveexec,
    // Lane access, whatever EXEC is.
    ReadLane,
    WriteLane,
    SNop,
    // ---- Compares into a lane mask (VCC or an SGPR pair; `v_cmpx` also
    // EXEC), any EXEC: `Fast::pred` is what the predicate accepts
    // ([`accepts`]).
    CmpI32,
    CmpU32,
    CmpF32,
    CmpI64,
    CmpU64,
    CmpF64,
    /// `v_cmp_class_f32` (and `v_cmpx_class_f32`): source 1 is the class
    /// mask.
    ClassF32,
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
    /// `v_cvt_f32_ubyte{n}`: the byte in `pred` ([`crate::alu::cvt`]).
    CvtF32Ubyte,
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
    /// `v_ldexp_f64` (a VGPR pair or constant, and an i32 exponent).
    LdexpF64,
    /// f64 division steps (`alu::trans::rcp_f64`, `alu::float::div_*`):
    /// `v_div_scale_f64` writes its flags to the SGPR pair `carry[0]`,
    /// `v_div_fmas_f64` reads VCC.
    RcpF64,
    DivScaleF64,
    DivFmasF64,
    DivFixupF64,
    /// The f32 division steps, as the f64 ones (`v_div_scale_f32` flags
    /// to `carry[0]`, `v_div_fmas_f32` reads VCC).
    DivScaleF32,
    DivFmasF32,
    DivFixupF32,
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
    /// The µop of an opcode, with its predicate (compares: which of the
    /// orderings less, equal, greater and unordered it accepts, bits 0..3)
    /// and whether it is a `v_cmpx`, read from the generated description
    /// ([`lathe_isa::sem`]): no mnemonic is consulted, and each predicate's
    /// truth table is [`crate::alu::cmp`]'s.
    fn of(op: Opcode) -> Option<(FOp, u8, bool)> {
        use FOp::*;
        let f = match sem::of(op).sem {
            Sem::Cmp(c) if c.pred == Pred::Class => {
                return (c.ty == NumTy::F32).then_some((ClassF32, 0, c.exec));
            }
            Sem::Cmp(c) => {
                let f = match c.ty {
                    NumTy::I32 => CmpI32,
                    NumTy::U32 => CmpU32,
                    NumTy::F32 => CmpF32,
                    NumTy::I64 => CmpI64,
                    NumTy::U64 => CmpU64,
                    NumTy::F64 => CmpF64,
                    _ => return None,
                };
                return Some((f, accepts(c.pred, matches!(f, CmpF32 | CmpF64))?, c.exec));
            }
            Sem::SCmp(c) if !c.imm => {
                let f = match c.ty {
                    NumTy::I32 => SCmpI,
                    NumTy::U32 => SCmpU,
                    _ => return None,
                };
                return Some((f, accepts(c.pred, false)?, false));
            }
            Sem::Valu(v) => match v {
                Valu::MovB32 => Mov,
                Valu::NotB32 => Not,
                Valu::AddU32 => Add,
                Valu::SubU32 => Sub,
                Valu::SubrevU32 => Subrev,
                Valu::AndB32 => And,
                Valu::OrB32 => Or,
                Valu::XorB32 => Xor,
                Valu::LshlrevB32 => Lshl,
                Valu::LshrrevB32 => Lshr,
                Valu::AshrrevI32 => Ashr,
                Valu::MulLoU32 => MulLo,
                Valu::MulHiU32 => MulHi,
                Valu::MulU32U24 => MulU24,
                Valu::MinU32 => MinU,
                Valu::MaxU32 => MaxU,
                Valu::MinI32 => MinI,
                Valu::MaxI32 => MaxI,
                Valu::Add3U32 => Add3,
                Valu::LshlAddU32 => LshlAdd,
                Valu::AddLshlU32 => AddLshl,
                Valu::LshlOrB32 => LshlOr,
                Valu::AndOrB32 => AndOr,
                Valu::Or3B32 => Or3,
                Valu::XadU32 => Xad,
                Valu::BfiB32 => Bfi,
                Valu::MadU32U24 => MadU24,
                Valu::AddCoU32 => AddCo,
                Valu::AddcCoU32 => AddcCo,
                Valu::SubCoU32 => SubCo,
                Valu::SubrevCoU32 => SubrevCo,
                Valu::SubbCoU32 => SubbCo,
                Valu::SubbrevCoU32 => SubbrevCo,
                Valu::RcpF32 => RcpF,
                Valu::RsqF32 => RsqF,
                Valu::SqrtF32 => SqrtF,
                Valu::AddF32 => AddF,
                Valu::SubF32 => SubF,
                Valu::SubrevF32 => SubrevF,
                Valu::MulF32 => MulF,
                Valu::FmaF32 => FmaF,
                Valu::FmacF32 => FmacF,
                Valu::ReadlaneB32 => ReadLane,
                Valu::WritelaneB32 => WriteLane,
                Valu::CndmaskB32 => Cndmask,
                Valu::Med3I32 => Med3I,
                Valu::Med3U32 => Med3U,
                Valu::Min3I32 => Min3I,
                Valu::Min3U32 => Min3U,
                Valu::Max3I32 => Max3I,
                Valu::Max3U32 => Max3U,
                Valu::MaxF32 => MaxF,
                Valu::MinF32 => MinF,
                Valu::Med3F32 => Med3F,
                Valu::CvtF32U32 => CvtF32U32,
                Valu::CvtF32I32 => CvtF32I32,
                Valu::CvtI32F32 => CvtI32F32,
                Valu::CvtU32F32 => CvtU32F32,
                Valu::CvtF16F32 => CvtF16F32,
                Valu::CvtF32F16 => CvtF32F16,
                Valu::CvtF32Ubyte0 => return Some((CvtF32Ubyte, 0, false)),
                Valu::CvtF32Ubyte1 => return Some((CvtF32Ubyte, 1, false)),
                Valu::CvtF32Ubyte2 => return Some((CvtF32Ubyte, 2, false)),
                Valu::CvtF32Ubyte3 => return Some((CvtF32Ubyte, 3, false)),
                Valu::CvtF64U32 => CvtF64U32,
                Valu::CvtF64I32 => CvtF64I32,
                Valu::CvtF32F64 => CvtF32F64,
                Valu::CvtF64F32 => CvtF64F32,
                Valu::LshlrevB64 => Lshl64,
                Valu::LshrrevB64 => Lshr64,
                Valu::AshrrevI64 => Ashr64,
                Valu::MadU64U32 => MadU64U32,
                Valu::AddF64 => AddF64,
                Valu::MulF64 => MulF64,
                Valu::FmaF64 => FmaF64,
                Valu::FmacF64 => FmacF64,
                Valu::LdexpF64 => LdexpF64,
                Valu::RcpF64 => RcpF64,
                Valu::DivScaleF64 => DivScaleF64,
                Valu::DivFmasF64 => DivFmasF64,
                Valu::DivFixupF64 => DivFixupF64,
                Valu::DivScaleF32 => DivScaleF32,
                Valu::DivFmasF32 => DivFmasF32,
                Valu::DivFixupF32 => DivFixupF32,
                Valu::BfeU32 => BfeU,
                Valu::MulHiI32 => MulHiI,
                Valu::AlignbitB32 => Alignbit,
                Valu::PackB32F16 => PackB32F16,
                _ => return None,
            },
            Sem::Packed(p) => match p {
                Packed::FmaF32 => PkFma,
                Packed::MulF32 => PkMul,
                Packed::AddF32 => PkAdd,
                Packed::MovB32 => PkMov,
                Packed::FmaF16 => PkFmaF16,
                Packed::AddF16 => PkAddF16,
                Packed::MulF16 => PkMulF16,
                Packed::MaxF16 => PkMaxF16,
                Packed::MinF16 => PkMinF16,
                _ => return None,
            },
            Sem::Salu(s) => match s {
                Salu::MovB32 => SMov,
                Salu::AddU32 => SAddU32,
                Salu::SubU32 => SSubU32,
                Salu::AddI32 => SAddI32,
                Salu::SubI32 => SSubI32,
                Salu::AndB32 => SAnd,
                Salu::OrB32 => SOr,
                Salu::XorB32 => SXor,
                Salu::LshlB32 => SLshl,
                Salu::LshrB32 => SLshr,
                Salu::MulI32 => SMulI32,
                Salu::MulHiU32 => SMulHiU32,
                Salu::MulHiI32 => SMulHiI32,
                Salu::AshrI32 => SAshr,
                Salu::Andn2B32 => SAndn2,
                Salu::NotB32 => SNot,
                Salu::MinI32 => SMinI,
                Salu::MinU32 => SMinU,
                Salu::MaxI32 => SMaxI,
                Salu::MaxU32 => SMaxU,
                Salu::Lshl1AddU32 => return Some((SLshlAdd, 1, false)),
                Salu::Lshl2AddU32 => return Some((SLshlAdd, 2, false)),
                Salu::Lshl3AddU32 => return Some((SLshlAdd, 3, false)),
                Salu::Lshl4AddU32 => return Some((SLshlAdd, 4, false)),
                Salu::LshlB64 => SLshl64,
                Salu::LshrB64 => SLshr64,
                Salu::AshrI64 => SAshr64,
                Salu::AddcU32 => SAddcU32,
                Salu::CselectB32 => SCselect,
                Salu::MovB64 => SMov64,
                Salu::AndB64 => SAnd64,
                Salu::OrB64 => SOr64,
                Salu::XorB64 => SXor64,
                Salu::Andn2B64 => SAndn2_64,
                Salu::AndSaveexecB64 => SAndSaveexec,
                Salu::OrSaveexecB64 => SOrSaveexec,
                Salu::Andn2SaveexecB64 => SAndn2Saveexec,
                Salu::Bitcmp0B32 => SBitcmp0,
                Salu::Bitcmp1B32 => SBitcmp1,
                Salu::CselectB64 => SCselect64,
                _ => return None,
            },
            Sem::Branch(c) => match c {
                Cond::Always => Branch,
                Cond::Scc0 => BranchScc0,
                Cond::Scc1 => BranchScc1,
                Cond::Vccz => BranchVccz,
                Cond::Vccnz => BranchVccnz,
                Cond::Execz => BranchExecz,
                Cond::Execnz => BranchExecnz,
                Cond::CdbgSys | Cond::CdbgUser | Cond::CdbgSysOrUser | Cond::CdbgSysAndUser => {
                    return None
                }
            },
            Sem::Control(Control::Nop) => SNop,
            _ => return None,
        };
        Some((f, 0, false))
    }

    fn sources(self) -> usize {
        use FOp::*;
        match self {
            SNop | Branch | BranchScc0 | BranchScc1 | BranchVccz | BranchVccnz | BranchExecz
            | BranchExecnz => 0,
            Mov | Not | SMov | SNot | SMov64 | SAndSaveexec | SOrSaveexec | SAndn2Saveexec
            | CvtF32U32 | CvtF32I32 | CvtI32F32 | CvtU32F32 | CvtF16F32 | CvtF32F16 | CvtF64U32
            | CvtF32Ubyte | CvtF64I32 | CvtF64F32 | CvtF32F64 | RcpF | RsqF | SqrtF | RcpF64 => 1,
            Add3 | LshlAdd | AddLshl | LshlOr | AndOr | Or3 | Xad | Bfi | MadU24 | FmaF | PkFma
            | PkFmaF16 | Med3I | Med3U | Min3I | Min3U | Max3I | Max3U | BfeU | Alignbit
            | Med3F | MadU64U32 | FmaF64 | DivScaleF64 | DivFmasF64 | DivFixupF64 | DivScaleF32
            | DivFmasF32 | DivFixupF32 => 3,
            _ => 2,
        }
    }

    fn float(self) -> bool {
        use FOp::*;
        matches!(
            self,
            AddF | SubF
                | SubrevF
                | MulF
                | FmaF
                | FmacF
                | RcpF
                | RsqF
                | SqrtF
                | PkFma
                | PkMul
                | PkAdd
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
                    | DivScaleF32
                    | DivFmasF32
                    | DivFixupF32
                    | PkFmaF16
                    | PkAddF16
                    | PkMulF16
                    | PkMaxF16
                    | PkMinF16
                    | PackB32F16
            )
    }

    /// f64 arithmetic with `abs`/`neg` (on the high dword's sign).
    fn double(self) -> bool {
        use FOp::*;
        matches!(
            self,
            AddF64
                | MulF64
                | FmaF64
                | FmacF64
                | LdexpF64
                | RcpF64
                | DivScaleF64
                | DivFmasF64
                | DivFixupF64
        )
    }

    /// Which sources are 64-bit (bit `k`).
    fn wide_srcs(self) -> u8 {
        use FOp::*;
        match self {
            CmpI64 | CmpU64 | CmpF64 | AddF64 | MulF64 | FmacF64 | PkMov => 0b11,
            FmaF64 | DivScaleF64 | DivFmasF64 | DivFixupF64 => 0b111,
            CvtF32F64 | LdexpF64 | RcpF64 => 0b1,
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
                | LdexpF64
                | RcpF64
                | DivScaleF64
                | DivFmasF64
                | DivFixupF64
        )
    }

    /// A vector compare: the result is a lane mask in SGPRs.
    fn compare(self) -> bool {
        use FOp::*;
        matches!(
            self,
            CmpI32 | CmpU32 | CmpF32 | CmpI64 | CmpU64 | CmpF64 | ClassF32
        )
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
                    | CvtF32Ubyte
                    | CvtF32F64
                    | DivScaleF32
                    | DivFmasF32
                    | DivFixupF32
                    | PkFmaF16
                    | PkAddF16
                    | PkMulF16
                    | PkMaxF16
                    | PkMinF16
                    | PackB32F16
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
                | SMulHiU32
                | SMulHiI32
                | SAshr
                | SAndn2
                | SNot
                | SMinI
                | SMinU
                | SMaxI
                | SMaxU
                | SLshlAdd
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
            SMov64
                | SAnd64
                | SOr64
                | SXor64
                | SAndn2_64
                | SLshl64
                | SLshr64
                | SAshr64
                | SCselect64
                | SAndSaveexec
                | SOrSaveexec
                | SAndn2Saveexec
        )
    }

    /// Writes nothing but SCC or the PC.
    fn no_dst(self) -> bool {
        use FOp::*;
        self.branch() || matches!(self, SCmpU | SCmpI | SBitcmp0 | SBitcmp1 | SNop)
    }

    /// Reads or writes one lane of a VGPR.
    fn lanewise(self) -> bool {
        matches!(self, FOp::ReadLane | FOp::WriteLane)
    }

    /// Runs in the scalar part of [`exec`] (no lane loop).
    fn salu(self) -> bool {
        self.scalar() || self.wide() || self.no_dst() || self == FOp::WriteLane
    }

    /// A whole-wave vector operation: under a partial EXEC its inactive
    /// lanes are put back after it ran ([`exec::run`]; compares mask their
    /// result with EXEC themselves).
    fn full_exec(self) -> bool {
        !self.salu() && !self.compare()
    }

    /// Writes a carry or borrow mask (`v_add_co`/`v_sub_co` and kin).
    fn carry(self) -> bool {
        use FOp::*;
        matches!(self, AddCo | AddcCo | SubCo | SubrevCo | SubbCo | SubbrevCo)
    }

    /// Reads a carry or borrow mask.
    fn carry_in(self) -> bool {
        matches!(self, FOp::AddcCo | FOp::SubbCo | FOp::SubbrevCo)
    }

    fn packed(self) -> bool {
        matches!(self, FOp::PkFma | FOp::PkMul | FOp::PkAdd)
    }

    /// Packed f16 ([`Fast::half`]).
    fn pk16(self) -> bool {
        use FOp::*;
        matches!(self, PkFmaF16 | PkAddF16 | PkMulF16 | PkMaxF16 | PkMinF16)
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
    /// Compares: the orderings the predicate accepts ([`accepts`]);
    /// `v_pk_mov_b32`: its op_sel bits; packed f32: 1 when the high
    /// result is written first.
    pred: u8,
    /// `v_cmpx`: the mask goes to EXEC too.
    x: bool,
    /// SDWA form: per source (0, 1) its `src_sel` code (bits 0..2) and
    /// `sext` (bit 3), [`NO_SEL`] for the whole dword. The selected
    /// fields are staged into the wave's temporary VGPRs and the µop
    /// reads them there ([`exec`]).
    sel: [u8; 2],
    /// Packed f16: per source, `op_sel` (bit 0), `op_sel_hi` (1),
    /// `neg_lo` (2) and `neg_hi` (3).
    half: [u8; 3],
    /// What [`exec`] checks and where it sends the µop, decided at decode
    /// (not matched on the operation again for each execution).
    route: Route,
}

/// How a decoded µop runs: its properties that would otherwise be
/// re-derived from [`FOp`] for every execution.
#[derive(Clone, Copy, Debug)]
pub(super) struct Route {
    /// A whole-wave vector operation ([`FOp::full_exec`]).
    full: bool,
    /// Follows MODE ([`FOp::moded`]).
    moded: bool,
    /// Has a sparse form (every vector µop): under an EXEC of at most
    /// [`exec::SPARSE_LANES`] lanes it reads and writes only the active
    /// lanes ([`exec`]'s `on`).
    sparse: bool,
    /// Which part of [`exec`] runs it.
    part: Part,
    /// SDWA form with a source select ([`Fast::sel`]).
    sdwa: bool,
}

/// The part of [`exec`] that runs a µop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Part {
    /// 64-bit scalar ops (SGPR pairs, EXEC).
    Wide,
    /// Other scalar ops, branches and lane accesses.
    Salu,
    /// `v_add_co_u32`/`v_addc_co_u32`.
    Carry,
    /// [`ext`]: compares, selects, conversions, 64-bit results.
    Ext,
    /// The integer and f32 lane loops of [`exec`].
    Lanes,
}

impl Route {
    fn of(op: FOp) -> Route {
        Route {
            full: op.full_exec(),
            sparse: op.full_exec() || op.compare(),
            moded: op.moded(),
            part: if op.wide() {
                Part::Wide
            } else if op.salu() {
                Part::Salu
            } else if op.carry() {
                Part::Carry
            } else if op.ext() {
                Part::Ext
            } else {
                Part::Lanes
            },
            sdwa: false,
        }
    }
}

impl Fast {
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
        // SDWA: integer lane µops whose result is the whole dword (no
        // clamp, no output modifier); the source selects are staged.
        let sdwa = matches!(enc, Encoding::Vop1Sdwa | Encoding::Vop2Sdwa);
        if sdwa {
            let d1 = inst.words().get(1).copied().unwrap_or(0);
            let int_lanes = Route::of(op).part == Part::Lanes && !op.float() && !op.packed();
            if !int_lanes || d1 >> 8 & 7 != 6 || d1 >> 13 & 7 != 0 || d1 >> 11 & 3 > 2 {
                return None;
            }
        } else if !encodings.contains(&enc) {
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
                sel: [NO_SEL; 2],
                half: [0; 3],
                route: Route::of(op),
            });
        }
        if vop3_clamp_omod(inst) != (false, 0) {
            return None;
        }
        let words = inst.words();
        let (w0, w1) = (words[0], words.get(1).copied().unwrap_or(0));
        // VOP3b forms have their SGPR destination where VOP3a has op_sel.
        let vop3b =
            op.carry() || matches!(op, FOp::MadU64U32 | FOp::DivScaleF64 | FOp::DivScaleF32);
        // `v_pack_b32_f16`'s source halves are µop fields; its
        // destination half (op_sel bit 3) is not modelled.
        let sel_ok = if op == FOp::PackB32F16 { 3 } else { 0 };
        if enc == Encoding::Vop3 && !vop3b && w0 >> 11 & 15 & !sel_ok != 0 {
            // op_sel (f16 forms only; never on these ops, but be exact).
            return None;
        }
        if (op.packed() || op == FOp::PkMov || op.pk16()) != (enc == Encoding::Vop3p) {
            return None;
        }
        if op.pk16() && w0 >> 15 & 1 == 1 {
            return None; // clamp
        }
        if op == FOp::PkMov && (w1 >> 29 & 3 != 0 || w0 >> 8 & 3 != 0) {
            return None; // neg_lo/neg_hi
        }
        let carry = op.carry();
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
                usize::from(op.carry_in() && ops.nsrc == 3),
            ),
            FOp::Cndmask => (0, usize::from(ops.nsrc == 3)),
            FOp::MadU64U32 | FOp::DivScaleF64 | FOp::DivScaleF32 => (1, 0),
            // VCC, implicit (listed or not).
            FOp::DivFmasF64 | FOp::DivFmasF32 => (0, usize::from(ops.nsrc == 4)),
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
            if extra_src == 1 && !matches!(op, FOp::DivFmasF64 | FOp::DivFmasF32) {
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
            })) if op.wide() && (usize::from(first) + 1 < SGPRS || first == EXEC_LO) => first,
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
            sel: [NO_SEL; 2],
            half: [0; 3],
            route: Route::of(op),
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
                // The 16-bit constant in both halves, floats as f16.
                _ if op.pk16() => Src::K(packed_const(s, true)),
                _ => Src::K(const32(s)?),
            };
            if s.sext && !sdwa {
                return None;
            }
            if op.float()
                || op.double()
                || matches!(
                    op,
                    FOp::CmpF32
                        | FOp::CmpF64
                        | FOp::ClassF32
                        | FOp::Cndmask
                        | FOp::PkFmaF16
                        | FOp::PkAddF16
                        | FOp::PkMulF16
                        | FOp::PkMaxF16
                        | FOp::PkMinF16
                        | FOp::PackB32F16
                        | FOp::DivScaleF32
                        | FOp::DivFmasF32
                        | FOp::DivFixupF32
                )
            {
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
            if op == FOp::LdexpF64 && k == 1 && (s.abs || s.neg) {
                return None; // the exponent is an integer
            }
        }
        if sdwa {
            let d1 = w1;
            for k in 0..op.sources().min(2) {
                let code = (d1 >> (16 + 8 * k) & 7) as u8;
                let sext = ops.src(k)?.sext;
                if code > 6 {
                    return None;
                }
                if code != 6 || sext {
                    f.sel[k] = code | u8::from(sext) << 3;
                    f.route.sdwa = true;
                }
            }
        }
        if op.pk16() {
            // Modifiers from the instruction words, as the general handler.
            for k in 0..op.sources() {
                let sel_hi = if k < 2 { w1 >> (27 + k) } else { w0 >> 14 };
                f.half[k] = (w0 >> (11 + k) & 1) as u8
                    | ((sel_hi & 1) as u8) << 1
                    | ((w1 >> (29 + k) & 1) as u8) << 2
                    | ((w0 >> (8 + k) & 1) as u8) << 3;
                f.and[k] = u32::MAX;
                f.xor[k] = 0;
            }
        }
        if op == FOp::PackB32F16 {
            for k in 0..2 {
                f.half[k] = (w0 >> (11 + k) & 1) as u8
                    | u8::from(f.xor[k] != 0) << 2
                    | u8::from(f.and[k] != u32::MAX) << 4;
                f.and[k] = u32::MAX;
                f.xor[k] = 0;
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
            }
            // The low result is written first unless a source of the high
            // result reads it: then the high one first (`pred` bit 0), if
            // no source of the low result reads that.
            let n = op.sources();
            if f.hi[..n].contains(&Src::V(dst)) {
                if f.src[..n].contains(&Src::V(dst + 1)) {
                    return None;
                }
                f.pred = 1;
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

/// Which of the orderings less, equal, greater and unordered (bits 0..3)
/// the predicate `p` accepts, from [`crate::alu::cmp`]'s predicate tables
/// (`None`: `v_cmp_class`, not an ordering).
fn accepts(p: Pred, float: bool) -> Option<u8> {
    use std::cmp::Ordering::*;
    let hits = if float {
        let p = fcmp(p)?;
        [
            p.eval(Some(Less)),
            p.eval(Some(Equal)),
            p.eval(Some(Greater)),
            p.eval(None),
        ]
    } else {
        let p = icmp(p)?;
        [p.eval(0, 1), p.eval(0, 0), p.eval(1, 0), false]
    };
    Some(hits.iter().rev().fold(0, |m, &h| m << 1 | u8::from(h)))
}

/// [`Fast::sel`] of a source read whole.
const NO_SEL: u8 = 0xff;

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

/// What the µop loop ([`lane`]) reads of one decoded instruction, kept
/// apart from the large decoded form (`interp::Decoded`) in an array of
/// its own: the µop, the links to the next records and a counter.
#[derive(Debug)]
pub(super) struct Rec {
    /// The µop, when the instruction has one.
    pub(super) f: Option<Fast>,
    /// Wave-instructions this record ran in the µop loop since the last
    /// `Exec::fold_counts` (folded into the per-opcode counts there).
    pub(super) runs: u64,
    /// Direct branch target.
    target: Option<u64>,
    /// Length in bytes.
    len: u32,
    /// Record index + 1 of the instruction at `pc + len` once looked up
    /// (0: not yet), so straight-line code is followed without a cache
    /// lookup.
    next: u32,
    /// The same for the branch target, once taken.
    taken: u32,
}

impl Rec {
    pub(super) fn new(f: Option<Fast>, len: u32, target: Option<u64>) -> Rec {
        Rec {
            f,
            runs: 0,
            target,
            len,
            next: 0,
            taken: 0,
        }
    }
}

#[macro_use]
mod lanes;
mod exec;
mod ext;

pub(super) use exec::{lane, run, Save};

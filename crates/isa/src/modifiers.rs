//! [`Modifiers`]: every encoded field of an instruction that is not its
//! opcode or an operand register/constant (clamp, omod, op_sel, SDWA/DPP
//! controls, offsets, cache policy, image bits, ...), as one typed value.
//!
//! Together with the operand values, the modifiers determine the words
//! exactly: [`InstBuilder::modifiers`](crate::InstBuilder::modifiers) writes
//! them back. Which fields mean anything depends on the encoding; the
//! others stay zero.

use crate::enc::{bits, set_bits};
use crate::inst::Instruction;
use crate::opcode::{Encoding, Field};

/// Non-operand fields of an instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Modifiers {
    /// Clamp (VOP3, VOP3P, SDWA).
    pub clamp: bool,
    /// Output modifier (VOP3, SDWA): 1 `mul:2`, 2 `mul:4`, 3 `div:2`.
    pub omod: u8,
    /// Negate, per source (bit i = source i): VOP3 `neg`, VOP3P `neg_lo`,
    /// SDWA/DPP source negation.
    pub neg: u8,
    /// Absolute value, per source: VOP3 `abs`, VOP3P `neg_hi`, SDWA/DPP
    /// source abs.
    pub abs: u8,
    /// SDWA integer sign extension, per source.
    pub sext: u8,
    /// `op_sel`: VOP3 sources in bits 0-2 and the destination in bit 3;
    /// VOP3P sources in bits 0-2.
    pub op_sel: u8,
    /// VOP3P `op_sel_hi`, per source.
    pub op_sel_hi: u8,
    /// MAI `cbsz`.
    pub cbsz: u8,
    /// MAI `abid`.
    pub abid: u8,
    /// MAI `blgp` (printed `neg:[..]` for gfx940 f64 MFMA).
    pub blgp: u8,
    /// SDWA destination select (6 = DWORD).
    pub dst_sel: u8,
    /// SDWA destination unused-bits policy.
    pub dst_unused: u8,
    /// SDWA source 0 select.
    pub src0_sel: u8,
    /// SDWA source 1 select.
    pub src1_sel: u8,
    /// DPP control (quad_perm, row_shl, ...).
    pub dpp_ctrl: u16,
    /// DPP row mask.
    pub row_mask: u8,
    /// DPP bank mask.
    pub bank_mask: u8,
    /// DPP `bound_ctrl`.
    pub bound_ctrl: bool,
    /// GFX10 DPP `fi:1` (fetch inactive lanes; VOP3 DPP8: word 1's src0
    /// value `0xEA` instead of `0xE9`).
    pub fi: bool,
    /// DPP8 lane selects (VOP3 DPP8, D61): lane i of each group of eight
    /// reads lane `dpp8 >> 3i & 7`.
    pub dpp8: u32,
    /// GFX10 MUBUF `tfe` (the load also writes a fault status register).
    pub tfe: bool,
    /// Immediate offset: DS `offset`/`offset0` (16 or 8 bits), FLAT
    /// (13-bit, signed for global/scratch), MUBUF/MTBUF (12 bits), SMEM
    /// (21-bit signed, when the `imm` bit is set).
    pub offset: i32,
    /// DS `offset1`.
    pub offset1: u8,
    /// DS `gds`.
    pub gds: bool,
    /// Cache policy GLC (`glc`, gfx940 `sc0`; SMEM `glc`).
    pub glc: bool,
    /// Cache policy SLC (`slc`, gfx940 `nt`).
    pub slc: bool,
    /// Cache policy SCC (`scc`, gfx940 `sc1`).
    pub scc: bool,
    /// `lds` (LDS-DMA loads); gfx940 scratch: the SVE bit (vaddr in use).
    pub lds: bool,
    /// Buffer `offen`.
    pub offen: bool,
    /// Buffer `idxen`.
    pub idxen: bool,
    /// MTBUF data format (bits 0-3) and number format (bits 4-6).
    pub format: u8,
    /// MIMG `dmask`.
    pub dmask: u8,
    /// MIMG `unorm`.
    pub unorm: bool,
    /// MIMG `da`.
    pub da: bool,
    /// MIMG `a16` (`r128` on older targets).
    pub a16: bool,
    /// MIMG `lwe`.
    pub lwe: bool,
    /// MIMG `d16`.
    pub d16: bool,
    /// SMEM: the 21-bit offset field is an immediate.
    pub smem_imm: bool,
    /// SMEM: the `soffset` register field is used.
    pub smem_soe: bool,
    /// VOPD: the Y operation's opcode value (its operands follow the X
    /// operation's).
    pub vopd_y: u8,
    /// GFX12 temporal hint (`th:`; bit 0 of an atomic's is
    /// `TH_ATOMIC_RETURN`).
    pub th: u8,
    /// GFX12 `scope:` (0 CU, 1 SE, 2 DEV, 3 SYS).
    pub scope: u8,
    /// GFX12 `nv`.
    pub nv: bool,
    /// GFX12 `scale_offset`.
    pub scale_offset: bool,
    /// VOPD3 (GFX12.5): the X half's `bitop3:` byte when it is
    /// `v_dual_bitop2_b32` (its src2 field).
    pub bitop3: u8,
    /// VOPD3: the Y half's `bitop3:` byte (`v_dual_bitop2_b32`).
    pub bitop3_y: u8,
    /// VOPD3: the bits no field uses (bits 2:0 are word 0's bits 11:9, bit
    /// 3 word 1's bit 15). LLVM 22 ignores them, except inside the 64-bit
    /// literal it reads from words 1-2 (D57).
    pub vopd3_free: u8,
    /// VIMAGE/VSAMPLE `dim:` (GFX12, D72: 0 `SQ_RSRC_IMG_1D` ...
    /// 7 `SQ_RSRC_IMG_2D_MSAA_ARRAY`).
    pub dim: u8,
    /// VIMAGE/VSAMPLE `r128`.
    pub r128: bool,
    /// GFX10/11 MIMG NSA dwords (D81): extra dwords of address registers
    /// (GFX10's field holds 0-3, GFX11's 0-1).
    pub nsa: u8,
}

/// One modifier bit-field: (word, low bit, width).
type P = (usize, u8, u8);

#[derive(Clone, Copy)]
enum M {
    Clamp,
    Omod,
    Neg,
    Abs,
    Sext0,
    Sext1,
    Neg0,
    Neg1,
    Abs0,
    Abs1,
    OpSel,
    OpSelHi01,
    OpSelHi2,
    Cbsz,
    Abid,
    Blgp,
    DstSel,
    DstUnused,
    Src0Sel,
    Src1Sel,
    DppCtrl,
    RowMask,
    BankMask,
    BoundCtrl,
    Fi,
    Tfe,
    Offset,
    Offset1,
    Gds,
    Glc,
    Slc,
    Scc,
    Lds,
    Offen,
    Idxen,
    Format,
    Dmask,
    Unorm,
    Da,
    A16,
    Lwe,
    D16,
    SmemImm,
    SmemSoe,
    VopdY,
    Th,
    Scope,
    Nv,
    ScaleOffset,
    Free0,
    Free1,
    Dpp8,
    Dpp8Fi,
    Dim,
    R128,
    Nsa,
}

/// VOP3 DPP16's modifier fields (D61): VOP3's, then the third dword's
/// lane controls.
const VOP3_DPP: &[(M, P)] = &[
    (M::Abs, (0, 8, 3)),
    (M::OpSel, (0, 11, 4)),
    (M::Clamp, (0, 15, 1)),
    (M::Omod, (1, 27, 2)),
    (M::Neg, (1, 29, 3)),
    (M::DppCtrl, (2, 8, 9)),
    (M::Fi, (2, 18, 1)),
    (M::BoundCtrl, (2, 19, 1)),
    (M::BankMask, (2, 24, 4)),
    (M::RowMask, (2, 28, 4)),
];

/// VOP3 DPP8's (D61): `fi` is word 1's src0 value, 0xE9 or 0xEA.
const VOP3_DPP8: &[(M, P)] = &[
    (M::Abs, (0, 8, 3)),
    (M::OpSel, (0, 11, 4)),
    (M::Clamp, (0, 15, 1)),
    (M::Omod, (1, 27, 2)),
    (M::Neg, (1, 29, 3)),
    (M::Dpp8Fi, (1, 0, 9)),
    (M::Dpp8, (2, 8, 24)),
];

/// The modifier fields of `enc` (for VOP3, `vop3b` when bits 14:8 hold a
/// scalar destination).
fn layout(enc: Encoding, vop3b: bool) -> &'static [(M, P)] {
    use Encoding as E;
    use M::*;
    // GFX10: `dlc` is kept in the `scc` field (the bit GFX10 has instead).
    match enc {
        // VOP3 DPP (D61): VOP3's fields, then the third dword's controls
        // (DPP8: `fi` is word 1's src0 value, 0xE9 or 0xEA).
        // VOP3b keeps its scalar destination where `abs` and `op_sel`
        // are: the same fields without the first two.
        E::Vop3Dpp | E::Vop3DppF16 => return if vop3b { &VOP3_DPP[2..] } else { VOP3_DPP },
        E::Vop3Dpp8 | E::Vop3Dpp8F16 => return if vop3b { &VOP3_DPP8[2..] } else { VOP3_DPP8 },
        // 32-bit DPP8 (D66): `fi` is word 0's src0 value, the selects word 1.
        E::Vop2Dpp8 | E::Vop1Dpp8 | E::VopcDpp8 => {
            return &[(Dpp8Fi, (0, 0, 9)), (Dpp8, (1, 8, 24))]
        }
        E::DsGfx10 => return &[(Offset, (0, 0, 8)), (Offset1, (0, 8, 8)), (Gds, (0, 17, 1))],
        E::FlatGfx10 | E::GlobalGfx10 | E::ScratchGfx10 => {
            return &[
                (Offset, (0, 0, 12)),
                (Scc, (0, 12, 1)),
                (Lds, (0, 13, 1)),
                (Glc, (0, 16, 1)),
                (Slc, (0, 17, 1)),
            ]
        }
        E::MubufGfx10 => {
            return &[
                (Offset, (0, 0, 12)),
                (Offen, (0, 12, 1)),
                (Idxen, (0, 13, 1)),
                (Glc, (0, 14, 1)),
                (Scc, (0, 15, 1)),
                (Lds, (0, 16, 1)),
                (Slc, (1, 22, 1)),
                (Tfe, (1, 23, 1)),
            ]
        }
        E::SmemGfx10 => return &[(Scc, (0, 14, 1)), (Glc, (0, 16, 1))],
        E::SmemGfx11 => return &[(Scc, (0, 13, 1)), (Glc, (0, 14, 1))],
        E::VopdX => return &[(VopdY, (0, 17, 5))],
        // VOPD3: neg bits 2:0 are X's sources, 5:3 Y's (D57).
        E::Vopd3X => {
            return &[
                (VopdY, (0, 12, 6)),
                (Neg, (1, 9, 6)),
                (Free0, (0, 9, 3)),
                (Free1, (1, 15, 1)),
            ]
        }
        E::FlatGfx11 | E::GlobalGfx11 | E::ScratchGfx11 => {
            return &[
                (Offset, (0, 0, 13)),
                (Scc, (0, 13, 1)),
                (Glc, (0, 14, 1)),
                (Slc, (0, 15, 1)),
            ]
        }
        E::SmemGfx12 => {
            return &[
                (Nv, (0, 20, 1)),
                (Scope, (0, 21, 2)),
                (Th, (0, 23, 3)),
                (ScaleOffset, (1, 24, 1)),
            ]
        }
        E::FlatGfx12 | E::GlobalGfx12 | E::ScratchGfx12 => {
            return &[
                (Nv, (0, 7, 1)),
                (ScaleOffset, (1, 16, 1)),
                (Scope, (1, 18, 2)),
                (Th, (1, 20, 3)),
                (Offset, (2, 8, 24)),
            ]
        }
        E::VimageGfx12 => {
            return &[
                (Dim, (0, 0, 3)),
                (R128, (0, 4, 1)),
                (D16, (0, 5, 1)),
                (A16, (0, 6, 1)),
                (Nv, (0, 7, 1)),
                (Dmask, (0, 22, 4)),
                (Scope, (1, 18, 2)),
                (Th, (1, 20, 3)),
                (Tfe, (1, 23, 1)),
            ]
        }
        // GFX10/11 MIMG (D81; `dlc` in the `scc` field, as for GFX10's
        // other encodings).
        E::MimgGfx10 | E::MimgHiGfx10 => {
            return &[
                (Nsa, (0, 1, 2)),
                (Dim, (0, 3, 3)),
                (Scc, (0, 7, 1)),
                (Dmask, (0, 8, 4)),
                (Unorm, (0, 12, 1)),
                (Glc, (0, 13, 1)),
                (R128, (0, 15, 1)),
                (Tfe, (0, 16, 1)),
                (Lwe, (0, 17, 1)),
                (Slc, (0, 25, 1)),
                (A16, (1, 30, 1)),
                (D16, (1, 31, 1)),
            ]
        }
        E::MimgGfx11 => {
            return &[
                (Nsa, (0, 0, 1)),
                (Dim, (0, 2, 3)),
                (Unorm, (0, 7, 1)),
                (Dmask, (0, 8, 4)),
                (Slc, (0, 12, 1)),
                (Scc, (0, 13, 1)),
                (Glc, (0, 14, 1)),
                (R128, (0, 15, 1)),
                (A16, (0, 16, 1)),
                (D16, (0, 17, 1)),
                (Tfe, (1, 21, 1)),
                (Lwe, (1, 22, 1)),
            ]
        }
        E::VsampleGfx12 => {
            return &[
                (Dim, (0, 0, 3)),
                (Tfe, (0, 3, 1)),
                (R128, (0, 4, 1)),
                (D16, (0, 5, 1)),
                (A16, (0, 6, 1)),
                (Nv, (0, 7, 1)),
                (Unorm, (0, 13, 1)),
                (Dmask, (0, 22, 4)),
                (Lwe, (1, 8, 1)),
                (Scope, (1, 18, 2)),
                (Th, (1, 20, 3)),
            ]
        }
        E::MubufGfx12 => {
            return &[
                (Nv, (0, 7, 1)),
                (Tfe, (0, 22, 1)),
                (Scope, (1, 18, 2)),
                (Th, (1, 20, 3)),
                (Format, (1, 23, 7)),
                (Offen, (1, 30, 1)),
                (Idxen, (1, 31, 1)),
                (Offset, (2, 8, 24)),
            ]
        }
        E::MubufGfx11 => {
            return &[
                (Offset, (0, 0, 12)),
                (Slc, (0, 12, 1)),
                (Scc, (0, 13, 1)),
                (Glc, (0, 14, 1)),
                (Lds, (0, 16, 1)),
                (Tfe, (1, 21, 1)),
                (Offen, (1, 22, 1)),
                (Idxen, (1, 23, 1)),
            ]
        }
        _ => {}
    }
    match enc.family() {
        E::Vop3 if vop3b => &[(Clamp, (0, 15, 1)), (Omod, (1, 27, 2)), (Neg, (1, 29, 3))],
        E::Vop3 => &[
            (Abs, (0, 8, 3)),
            (OpSel, (0, 11, 4)),
            (Clamp, (0, 15, 1)),
            (Omod, (1, 27, 2)),
            (Neg, (1, 29, 3)),
        ],
        E::Vop3p => &[
            (Abs, (0, 8, 3)),
            (OpSel, (0, 11, 3)),
            (OpSelHi2, (0, 14, 1)),
            (Clamp, (0, 15, 1)),
            (OpSelHi01, (1, 27, 2)),
            (Neg, (1, 29, 3)),
        ],
        E::Mai => &[(Cbsz, (0, 8, 3)), (Abid, (0, 11, 4)), (Blgp, (1, 29, 3))],
        E::Vop2Sdwa | E::Vop1Sdwa => &[
            (DstSel, (1, 8, 3)),
            (DstUnused, (1, 11, 2)),
            (Clamp, (1, 13, 1)),
            (Omod, (1, 14, 2)),
            (Src0Sel, (1, 16, 3)),
            (Sext0, (1, 19, 1)),
            (Neg0, (1, 20, 1)),
            (Abs0, (1, 21, 1)),
            (Src1Sel, (1, 24, 3)),
            (Sext1, (1, 27, 1)),
            (Neg1, (1, 28, 1)),
            (Abs1, (1, 29, 1)),
        ],
        E::VopcSdwa => &[
            (Src0Sel, (1, 16, 3)),
            (Sext0, (1, 19, 1)),
            (Neg0, (1, 20, 1)),
            (Abs0, (1, 21, 1)),
            (Src1Sel, (1, 24, 3)),
            (Sext1, (1, 27, 1)),
            (Neg1, (1, 28, 1)),
            (Abs1, (1, 29, 1)),
        ],
        E::Vop2Dpp | E::Vop1Dpp | E::VopcDpp => &[
            (DppCtrl, (1, 8, 9)),
            (BoundCtrl, (1, 19, 1)),
            (Fi, (1, 18, 1)),
            (Neg0, (1, 20, 1)),
            (Abs0, (1, 21, 1)),
            (Neg1, (1, 22, 1)),
            (Abs1, (1, 23, 1)),
            (BankMask, (1, 24, 4)),
            (RowMask, (1, 28, 4)),
        ],
        E::Ds => &[(Offset, (0, 0, 8)), (Offset1, (0, 8, 8)), (Gds, (0, 16, 1))],
        E::Flat | E::Global | E::Scratch => &[
            (Offset, (0, 0, 13)),
            (Lds, (0, 13, 1)),
            (Glc, (0, 16, 1)),
            (Slc, (0, 17, 1)),
            (Scc, (0, 25, 1)),
        ],
        E::Mubuf => &[
            (Offset, (0, 0, 12)),
            (Offen, (0, 12, 1)),
            (Idxen, (0, 13, 1)),
            (Glc, (0, 14, 1)),
            (Scc, (0, 15, 1)),
            (Lds, (0, 16, 1)),
            (Slc, (0, 17, 1)),
        ],
        E::Mtbuf => &[
            (Offset, (0, 0, 12)),
            (Offen, (0, 12, 1)),
            (Idxen, (0, 13, 1)),
            (Glc, (0, 14, 1)),
            (Format, (0, 19, 7)),
            (Scc, (1, 21, 1)),
            (Slc, (1, 22, 1)),
        ],
        E::Mimg => &[
            (Scc, (0, 7, 1)),
            (Dmask, (0, 8, 4)),
            (Unorm, (0, 12, 1)),
            (Glc, (0, 13, 1)),
            (Da, (0, 14, 1)),
            (A16, (0, 15, 1)),
            (Lwe, (0, 17, 1)),
            (Slc, (0, 25, 1)),
            (D16, (1, 31, 1)),
        ],
        E::Smem => &[
            (SmemSoe, (0, 14, 1)),
            (Glc, (0, 16, 1)),
            (SmemImm, (0, 17, 1)),
        ],
        _ => &[],
    }
}

fn vop3b(enc: Encoding, inst_ops: &[crate::opcode::OperandSpec]) -> bool {
    enc.family() == Encoding::Vop3 && inst_ops.iter().any(|o| o.field == Field::Sdst)
}

impl Modifiers {
    fn get(&self, m: M) -> u32 {
        use M::*;
        match m {
            Clamp => self.clamp as u32,
            Omod => self.omod as u32,
            Neg => self.neg as u32,
            Abs => self.abs as u32,
            Sext0 => (self.sext & 1) as u32,
            Sext1 => (self.sext >> 1 & 1) as u32,
            Neg0 => (self.neg & 1) as u32,
            Neg1 => (self.neg >> 1 & 1) as u32,
            Abs0 => (self.abs & 1) as u32,
            Abs1 => (self.abs >> 1 & 1) as u32,
            OpSel => self.op_sel as u32,
            OpSelHi01 => (self.op_sel_hi & 3) as u32,
            OpSelHi2 => (self.op_sel_hi >> 2 & 1) as u32,
            Cbsz => self.cbsz as u32,
            Abid => self.abid as u32,
            Blgp => self.blgp as u32,
            DstSel => self.dst_sel as u32,
            DstUnused => self.dst_unused as u32,
            Src0Sel => self.src0_sel as u32,
            Src1Sel => self.src1_sel as u32,
            DppCtrl => self.dpp_ctrl as u32,
            RowMask => self.row_mask as u32,
            BankMask => self.bank_mask as u32,
            BoundCtrl => self.bound_ctrl as u32,
            Fi => self.fi as u32,
            Tfe => self.tfe as u32,
            Offset => self.offset as u32,
            Offset1 => self.offset1 as u32,
            Gds => self.gds as u32,
            Glc => self.glc as u32,
            Slc => self.slc as u32,
            Scc => self.scc as u32,
            Lds => self.lds as u32,
            Offen => self.offen as u32,
            Idxen => self.idxen as u32,
            Format => self.format as u32,
            Dmask => self.dmask as u32,
            Unorm => self.unorm as u32,
            Da => self.da as u32,
            A16 => self.a16 as u32,
            Lwe => self.lwe as u32,
            D16 => self.d16 as u32,
            SmemImm => self.smem_imm as u32,
            SmemSoe => self.smem_soe as u32,
            VopdY => self.vopd_y as u32,
            Th => self.th as u32,
            Scope => self.scope as u32,
            Nv => self.nv as u32,
            ScaleOffset => self.scale_offset as u32,
            Free0 => (self.vopd3_free & 7) as u32,
            Free1 => (self.vopd3_free >> 3 & 1) as u32,
            Dpp8 => self.dpp8,
            Dpp8Fi => crate::enc::SRC0_DPP8 + self.fi as u32,
            Dim => self.dim as u32,
            R128 => self.r128 as u32,
            Nsa => self.nsa as u32,
        }
    }

    fn set(&mut self, m: M, v: u32) {
        use M::*;
        match m {
            Clamp => self.clamp = v != 0,
            Omod => self.omod = v as u8,
            Neg => self.neg = v as u8,
            Abs => self.abs = v as u8,
            Sext0 => self.sext |= v as u8,
            Sext1 => self.sext |= (v as u8) << 1,
            Neg0 => self.neg |= v as u8,
            Neg1 => self.neg |= (v as u8) << 1,
            Abs0 => self.abs |= v as u8,
            Abs1 => self.abs |= (v as u8) << 1,
            OpSel => self.op_sel = v as u8,
            OpSelHi01 => self.op_sel_hi |= v as u8,
            OpSelHi2 => self.op_sel_hi |= (v as u8) << 2,
            Cbsz => self.cbsz = v as u8,
            Abid => self.abid = v as u8,
            Blgp => self.blgp = v as u8,
            DstSel => self.dst_sel = v as u8,
            DstUnused => self.dst_unused = v as u8,
            Src0Sel => self.src0_sel = v as u8,
            Src1Sel => self.src1_sel = v as u8,
            DppCtrl => self.dpp_ctrl = v as u16,
            RowMask => self.row_mask = v as u8,
            BankMask => self.bank_mask = v as u8,
            BoundCtrl => self.bound_ctrl = v != 0,
            Fi => self.fi = v != 0,
            Tfe => self.tfe = v != 0,
            Offset => self.offset = v as i32,
            Offset1 => self.offset1 = v as u8,
            Gds => self.gds = v != 0,
            Glc => self.glc = v != 0,
            Slc => self.slc = v != 0,
            Scc => self.scc = v != 0,
            Lds => self.lds = v != 0,
            Offen => self.offen = v != 0,
            Idxen => self.idxen = v != 0,
            Format => self.format = v as u8,
            Dmask => self.dmask = v as u8,
            Unorm => self.unorm = v != 0,
            Da => self.da = v != 0,
            A16 => self.a16 = v != 0,
            Lwe => self.lwe = v != 0,
            D16 => self.d16 = v != 0,
            SmemImm => self.smem_imm = v != 0,
            SmemSoe => self.smem_soe = v != 0,
            VopdY => self.vopd_y = v as u8,
            Th => self.th = v as u8,
            Scope => self.scope = v as u8,
            Nv => self.nv = v != 0,
            ScaleOffset => self.scale_offset = v != 0,
            Free0 => self.vopd3_free |= v as u8,
            Free1 => self.vopd3_free |= (v as u8) << 3,
            Dpp8 => self.dpp8 = v,
            Dpp8Fi => self.fi = v == crate::enc::SRC0_DPP8_FI,
            Dim => self.dim = v as u8,
            R128 => self.r128 = v != 0,
            Nsa => self.nsa = v as u8,
        }
    }
}

impl Instruction {
    /// The instruction's modifiers (all zero for invalid instructions).
    pub fn modifiers(&self) -> Modifiers {
        let mut m = Modifiers::default();
        let info = self.info();
        for &(k, (w, lo, width)) in layout(info.enc, vop3b(info.enc, info.operands())) {
            m.set(k, bits(self.w(w), lo, width));
        }
        match info.enc {
            // Signed offsets.
            Encoding::Global | Encoding::Scratch => {
                m.offset = crate::enc::flat::offset(self) as i32;
            }
            Encoding::Smem if m.smem_imm => {
                m.offset = crate::enc::smem::imm_offset(self) as i32;
            }
            Encoding::GlobalGfx10 | Encoding::ScratchGfx10 => {
                m.offset = ((self.bits(0, 0, 12) << 20) as i32) >> 20;
            }
            Encoding::GlobalGfx11 | Encoding::ScratchGfx11 => {
                m.offset = ((self.bits(0, 0, 13) << 19) as i32) >> 19;
            }
            Encoding::SmemGfx10 | Encoding::SmemGfx11 => {
                m.offset = ((self.bits(1, 0, 21) << 11) as i32) >> 11;
            }
            Encoding::SmemGfx12 => {
                m.offset = ((self.bits(1, 0, 24) << 8) as i32) >> 8;
            }
            Encoding::FlatGfx12 | Encoding::GlobalGfx12 | Encoding::ScratchGfx12 => {
                m.offset = ((self.bits(2, 8, 24) << 8) as i32) >> 8;
            }
            Encoding::Vopd3X => {
                m.bitop3 = crate::enc::vopd3::bitop3(self, false).unwrap_or(0);
                m.bitop3_y = crate::enc::vopd3::bitop3(self, true).unwrap_or(0);
            }
            _ => {}
        }
        m
    }
}

/// Writes `m` into `words` for an instruction of `enc` whose operand specs
/// are `ops`.
pub(crate) fn apply(
    words: &mut [u32; 3],
    enc: Encoding,
    ops: &[crate::opcode::OperandSpec],
    m: &Modifiers,
) {
    for &(k, (w, lo, width)) in layout(enc, vop3b(enc, ops)) {
        if let Some(word) = words.get_mut(w) {
            set_bits(word, lo, width, m.get(k));
        }
    }
    if (enc == Encoding::Smem && m.smem_imm)
        || matches!(enc, Encoding::SmemGfx10 | Encoding::SmemGfx11)
    {
        set_bits(&mut words[1], 0, 21, m.offset as u32);
    }
    if enc == Encoding::SmemGfx12 {
        set_bits(&mut words[1], 0, 24, m.offset as u32);
    }
}

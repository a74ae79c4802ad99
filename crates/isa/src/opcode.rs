//! The opcode table model: [`Opcode`], its static description [`OpInfo`],
//! and the operand descriptions [`OperandSpec`] the generated tables are made
//! of. The tables themselves live in `generated/` (see the crate README for
//! how they are produced from LLVM).

use crate::generated::gfx9 as gen;
use crate::target::Target;
use std::fmt;

/// An instruction opcode: an index into the static opcode table.
///
/// One opcode is one LLVM-level instruction form: a mnemonic in one
/// encoding. `v_add_f32` exists as [`Opcode::V_ADD_F32_E32`] (VOP2),
/// [`Opcode::V_ADD_F32_E64`] (VOP3), [`Opcode::V_ADD_F32_SDWA`] and
/// [`Opcode::V_ADD_F32_DPP`]. The associated constants are generated.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Opcode(pub(crate) u16);

impl Opcode {
    /// The pseudo-opcode of words that do not decode ([`OpInfo::name`] is
    /// `".long"`).
    pub const INVALID: Opcode = Opcode(u16::MAX);

    /// Static description of this opcode.
    #[inline]
    pub fn info(self) -> &'static OpInfo {
        gen::OPS.get(self.0 as usize).unwrap_or(&INVALID_INFO)
    }

    /// The mnemonic as LLVM prints it (`v_add_f32_e32`).
    #[inline]
    pub fn name(self) -> &'static str {
        self.info().name()
    }

    /// True for [`Opcode::INVALID`].
    #[inline]
    pub fn is_invalid(self) -> bool {
        self.0 == u16::MAX
    }

    /// The raw table index.
    #[inline]
    pub fn index(self) -> u16 {
        self.0
    }

    /// Every opcode in the table (all targets).
    pub fn all() -> impl Iterator<Item = Opcode> {
        (0..gen::OPS.len() as u16).map(Opcode)
    }

    /// Opcodes available on `target`.
    pub fn all_for(target: Target) -> impl Iterator<Item = Opcode> {
        Opcode::all().filter(move |o| o.info().supports(target))
    }

    /// Looks an opcode up by mnemonic (as printed, e.g. `"s_add_u32"`,
    /// `"v_add_f32_e64"`, `"v_mov_b32_dpp"`) for `target`.
    pub fn from_name(target: Target, name: &str) -> Option<Opcode> {
        Opcode::all_for(target).find(|o| o.name() == name)
    }

    /// This opcode's entry for `target`: itself when `target` has it, else
    /// `target`'s entry with the same encoding, opcode value and mnemonic
    /// (the tables split an instruction whose operands differ between
    /// processors, e.g. aligned VGPR tuples from gfx90a on), else itself.
    pub fn for_target(self, target: Target) -> Opcode {
        let info = self.info();
        if info.supports(target) {
            return self;
        }
        match Opcode::lookup(target, info.enc, info.code) {
            Some(o) if o.name() == info.name() => o,
            // Another generation: the same mnemonic in the same encoding
            // family (`s_mov_b32` is SOP1 0 on GFX9, 3 on GFX10).
            _ => Opcode::all_for(target)
                .find(|o| o.name() == info.name() && o.info().enc.family() == info.enc.family())
                .unwrap_or(self),
        }
    }

    /// The opcode for (`target`, `enc`, opcode field value), if any.
    #[inline]
    pub fn lookup(target: Target, enc: Encoding, code: u16) -> Option<Opcode> {
        let (base, len) = *gen::ENC_RANGE.get(enc as usize)?;
        if code >= len {
            return None;
        }
        let table = gen::DECODE.get(target.index())?;
        let v = *table.get(base as usize + code as usize)?;
        (v != u16::MAX).then_some(Opcode(v))
    }
}

impl fmt::Debug for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Opcode({})", self.name())
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

pub(crate) static INVALID_INFO: OpInfo = OpInfo {
    // ".long", the first text of the blob.
    name: 5,
    enc: Encoding::Invalid,
    code: 0,
    index: u16::MAX,
    targets: 0,
    operands: 0,
};

/// Instruction encodings (microcode formats).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[repr(u8)]
pub enum Encoding {
    /// Scalar ALU, two sources.
    Sop2 = 0,
    /// Scalar ALU with a 16-bit inline immediate.
    Sopk,
    /// Scalar ALU, one source.
    Sop1,
    /// Scalar compare.
    Sopc,
    /// Scalar program control (branches, waits, messages).
    Sopp,
    /// Scalar memory.
    Smem,
    /// Vector ALU, two sources (32-bit form, `_e32`).
    Vop2,
    /// Vector ALU, one source (`_e32`).
    Vop1,
    /// Vector compare (`_e32`, writes `vcc`).
    Vopc,
    /// Vector ALU, 64-bit form (`_e64` and VOP3-only ops; VOP3a and VOP3b).
    Vop3,
    /// Packed vector ALU (VOP3P).
    Vop3p,
    /// Matrix ops in the VOP3P space (`v_mfma_*`, `v_smfmac_*`).
    Mai,
    /// VOP2 with an SDWA second dword.
    Vop2Sdwa,
    /// VOP1 with an SDWA second dword.
    Vop1Sdwa,
    /// VOPC with an SDWA second dword.
    VopcSdwa,
    /// VOP2 with a DPP second dword.
    Vop2Dpp,
    /// VOP1 with a DPP second dword.
    Vop1Dpp,
    /// VOPC with a DPP second dword (GFX11+).
    VopcDpp,
    /// LDS/GDS.
    Ds,
    /// Flat (segment 0).
    Flat,
    /// Global (flat segment 2).
    Global,
    /// Scratch (flat segment 1).
    Scratch,
    /// Untyped buffer.
    Mubuf,
    /// Typed buffer.
    Mtbuf,
    /// Image.
    Mimg,
    /// Scalar memory, GFX10 layout (`dlc`, 21-bit offset, `soffset` or `null`).
    SmemGfx10,
    /// VOP3 (VOP3a/VOP3b), GFX10 layout (prefix 0x35, literal allowed).
    Vop3Gfx10,
    /// VOP3P, GFX10 layout (prefix 0x198).
    Vop3pGfx10,
    /// LDS/GDS, GFX10 layout (8-bit opcode at bit 18, `gds` at 17).
    DsGfx10,
    /// Flat, GFX10 layout (12-bit offset, `dlc`).
    FlatGfx10,
    /// Global, GFX10 layout.
    GlobalGfx10,
    /// Scratch, GFX10 layout.
    ScratchGfx10,
    /// Untyped buffer, GFX10 layout (`dlc`; `slc` and `tfe` in word 1).
    MubufGfx10,
    /// Scalar memory, GFX11 layout (`glc` 14, `dlc` 13; `null` is s124).
    SmemGfx11,
    /// Untyped buffer, GFX11 layout (8-bit opcode; `offen`/`idxen`/`tfe` in
    /// word 1).
    MubufGfx11,
    /// Flat, GFX11 layout (segment in bits 17:16, 13-bit offset).
    FlatGfx11,
    /// Global, GFX11 layout.
    GlobalGfx11,
    /// Scratch, GFX11 layout (`sve` in bit 55).
    ScratchGfx11,
    /// VOPD dual issue (GFX11+): the X operation's opcode; the Y
    /// operation ([`Instruction::vopd_y`](crate::Instruction::vopd_y)) is a
    /// `VopdY` table entry whose opcode value is a modifier of this one.
    VopdX,
    /// The Y half of a VOPD word (table entries only).
    VopdY,
    /// Scalar memory, GFX12 layout (6-bit opcode at bit 13, `th`/`scope`,
    /// 24-bit signed offset).
    SmemGfx12,
    /// VBUFFER (GFX12 untyped buffer): 96 bits, `soffset` in word 0,
    /// `vaddr` and a 24-bit offset in word 2.
    MubufGfx12,
    /// VFLAT (GFX12): 96 bits, `saddr` in word 0, `vaddr` and a 24-bit
    /// signed offset in word 2, segment in bits 25:24.
    FlatGfx12,
    /// VGLOBAL (GFX12).
    GlobalGfx12,
    /// VSCRATCH (GFX12; `sve` in bit 49).
    ScratchGfx12,
    /// VOPD3 dual issue (GFX12.5, D57): 96 bits, word 0 bits 31:24 =
    /// `0xCF`; the X operation's opcode (bits 23:18). The Y operation
    /// ([`Instruction::vopd_y`](crate::Instruction::vopd_y)) is a `Vopd3Y`
    /// entry whose opcode value (bits 17:12) is a modifier of this one.
    Vopd3X,
    /// The Y half of a VOPD3 word (table entries only).
    Vopd3Y,
    /// VOP3 with a DPP16 third dword (GFX11+, D61): word 1's src0 field is
    /// `0xFA`; src0 (a VGPR) and the lane controls are in word 2.
    Vop3Dpp,
    /// VOP3 with a DPP8 third dword (GFX11+, D61): word 1's src0 field is
    /// `0xE9` (`0xEA`: `fi:1`); word 2 holds src0 and eight lane selects.
    Vop3Dpp8,
    /// VOP2 with a DPP8 second dword (GFX10+, D66): word 0's src0 field is
    /// `0xE9` (`0xEA`: `fi:1`); word 1 holds src0 and eight lane selects.
    Vop2Dpp8,
    /// VOP1 with a DPP8 second dword (GFX10+, D66).
    Vop1Dpp8,
    /// VOPC with a DPP8 second dword (GFX11+, D66).
    VopcDpp8,
    /// GFX11's fake16 reading of a [`Vop3Dpp`](Encoding::Vop3Dpp) word
    /// (D71): LLVM reads a 16-bit opcode's word with the true16 table
    /// first and falls back to this one when the true16 decoder rejects
    /// it (an `op_sel` bit of an operand the opcode lacks, ...). Same layout.
    Vop3DppF16,
    /// GFX11's fake16 reading of a [`Vop3Dpp8`](Encoding::Vop3Dpp8) word
    /// (D71).
    Vop3Dpp8F16,
    /// VIMAGE (GFX12 image load/store/atomic/BVH, D72): 96 bits, word 0
    /// bits 31:26 = `0x34`; `vdata`, the resource and a fifth address in
    /// word 1, four address registers in word 2 (`enc::vimage`).
    VimageGfx12,
    /// VSAMPLE (GFX12 sample/gather, D72): 96 bits, word 0 bits 31:26 =
    /// `0x39`; the sampler in word 1 bits 31:23.
    VsampleGfx12,
    /// GFX11's fake16 reading of a plain [`Vop3Gfx10`](Encoding::Vop3Gfx10)
    /// word (D79): LLVM reads a 16-bit opcode's word with the true16 table
    /// first and falls back to this one when the true16 decoder rejects it
    /// (an `op_sel` bit of an operand the opcode lacks, a source that is
    /// not a VGPR where the true16 operand must be one). Same layout.
    Vop3F16,

    /// MIMG, GFX10 layout (D81): 64 bits, NSA count in bits 2:1 (one extra
    /// dword of address registers per four more addresses), `dim` 5:3,
    /// opcode bits 6:0 in 24:18 and bit 7 in bit 0 (clear here).
    MimgGfx10,
    /// GFX10 MIMG opcodes 0x80-0xFF (word 0 bit 0 set: `image_msaa_load`,
    /// the `_g16` samples, the BVH opcodes; D81).
    MimgHiGfx10,
    /// MIMG, GFX11 layout (D81): NSA bit 0 (one extra dword), `dim` 4:2,
    /// 8-bit opcode, `tfe`/`lwe` in word 1.
    MimgGfx11,
    /// Not an instruction ([`Opcode::INVALID`]).
    Invalid,
}

/// [`Encoding::kind`]'s classes.
#[derive(Clone, Copy)]
enum EncodingKind {
    /// Vector ALU without lane masks.
    Valu,
    /// Vector ALU with DPP16's row and bank masks.
    ValuDppMasks,
    /// Scalar, memory, image or invalid.
    Other,
}

impl Encoding {
    /// The GFX9 encoding whose operand fields this one shares (the GFX10
    /// layouts moved the opcode, prefix and some modifier bits, not the
    /// operands): `Vop3Gfx10` -> `Vop3`; itself for GFX9 encodings.
    #[inline]
    pub const fn family(self) -> Encoding {
        match self {
            Encoding::SmemGfx10 => Encoding::Smem,
            Encoding::Vop3Gfx10
            | Encoding::Vop3F16
            | Encoding::Vop3Dpp
            | Encoding::Vop3Dpp8
            | Encoding::Vop3DppF16
            | Encoding::Vop3Dpp8F16 => Encoding::Vop3,
            Encoding::Vop3pGfx10 => Encoding::Vop3p,
            Encoding::DsGfx10 => Encoding::Ds,
            Encoding::FlatGfx10 => Encoding::Flat,
            Encoding::GlobalGfx10 => Encoding::Global,
            Encoding::ScratchGfx10 => Encoding::Scratch,
            Encoding::MubufGfx10 | Encoding::MubufGfx11 => Encoding::Mubuf,
            Encoding::SmemGfx11 => Encoding::Smem,
            Encoding::FlatGfx11 => Encoding::Flat,
            Encoding::GlobalGfx11 => Encoding::Global,
            Encoding::ScratchGfx11 => Encoding::Scratch,
            Encoding::SmemGfx12 => Encoding::Smem,
            Encoding::MubufGfx12 => Encoding::Mubuf,
            Encoding::FlatGfx12 => Encoding::Flat,
            Encoding::GlobalGfx12 => Encoding::Global,
            Encoding::ScratchGfx12 => Encoding::Scratch,
            e => e,
        }
    }

    /// True for the GFX12 layouts and GFX10/11 MIMG, whose address lists
    /// are VIMAGE's (D81): `enc::gfx12` validates, adjusts and prints them.
    #[inline]
    pub const fn is_gfx12(self) -> bool {
        matches!(
            self,
            Encoding::SmemGfx12
                | Encoding::MubufGfx12
                | Encoding::FlatGfx12
                | Encoding::GlobalGfx12
                | Encoding::ScratchGfx12
                | Encoding::VimageGfx12
                | Encoding::VsampleGfx12
                | Encoding::MimgGfx10
                | Encoding::MimgHiGfx10
                | Encoding::MimgGfx11
        )
    }

    /// True for the GFX10, GFX11 and GFX12 layouts (`enc::gfx10` prints and
    /// adjusts both, from per-encoding bit positions).
    #[inline]
    pub const fn is_gfx10(self) -> bool {
        self.family() as u8 != self as u8
    }

    /// What kind of instruction the encoding holds. The match names every
    /// encoding, so a new one does not compile until it is classified here
    /// (lathe-dbi's site classes and liveness read [`is_valu`](Self::is_valu)
    /// and [`has_dpp_masks`](Self::has_dpp_masks)).
    #[inline]
    const fn kind(self) -> EncodingKind {
        use Encoding as E;
        use EncodingKind as K;
        match self {
            E::Vop1Dpp | E::Vop2Dpp | E::VopcDpp | E::Vop3Dpp | E::Vop3DppF16 => K::ValuDppMasks,
            E::Vop1
            | E::Vop2
            | E::Vopc
            | E::Vop3
            | E::Vop3p
            | E::Mai
            | E::Vop1Sdwa
            | E::Vop2Sdwa
            | E::VopcSdwa
            | E::Vop1Dpp8
            | E::Vop2Dpp8
            | E::VopcDpp8
            | E::Vop3Gfx10
            | E::Vop3F16
            | E::Vop3pGfx10
            | E::Vop3Dpp8
            | E::Vop3Dpp8F16
            | E::VopdX
            | E::VopdY
            | E::Vopd3X
            | E::Vopd3Y => K::Valu,
            E::Sop2
            | E::Sopk
            | E::Sop1
            | E::Sopc
            | E::Sopp
            | E::Smem
            | E::SmemGfx10
            | E::SmemGfx11
            | E::SmemGfx12
            | E::Ds
            | E::DsGfx10
            | E::Flat
            | E::Global
            | E::Scratch
            | E::FlatGfx10
            | E::GlobalGfx10
            | E::ScratchGfx10
            | E::FlatGfx11
            | E::GlobalGfx11
            | E::ScratchGfx11
            | E::FlatGfx12
            | E::GlobalGfx12
            | E::ScratchGfx12
            | E::Mubuf
            | E::Mtbuf
            | E::MubufGfx10
            | E::MubufGfx11
            | E::MubufGfx12
            | E::Mimg
            | E::VimageGfx12
            | E::VsampleGfx12
            | E::MimgGfx10
            | E::MimgHiGfx10
            | E::MimgGfx11
            | E::Invalid => K::Other,
        }
    }

    /// True for the vector ALU encodings of every generation (VOP1/2/3/C/3P,
    /// MAI, SDWA, DPP16, DPP8, VOP3 DPP, both VOPD halves).
    #[inline]
    pub const fn is_valu(self) -> bool {
        !matches!(self.kind(), EncodingKind::Other)
    }

    /// True for the DPP16 forms, whose `row_mask`/`bank_mask` can leave
    /// active lanes unwritten (a lane they disable keeps its destination
    /// value), so a write is never known to replace a whole register.
    /// DPP8 has no masks.
    #[inline]
    pub const fn has_dpp_masks(self) -> bool {
        matches!(self.kind(), EncodingKind::ValuDppMasks)
    }

    /// The GFX10-style layout (`Vop3Gfx10`, `FlatGfx10`, ...) with the same
    /// operand handling as this GFX11 one; itself otherwise.
    #[inline]
    pub const fn gfx10_like(self) -> Encoding {
        match self {
            Encoding::SmemGfx11 => Encoding::SmemGfx10,
            Encoding::MubufGfx11 => Encoding::MubufGfx10,
            Encoding::FlatGfx11 => Encoding::FlatGfx10,
            Encoding::GlobalGfx11 => Encoding::GlobalGfx10,
            Encoding::ScratchGfx11 => Encoding::ScratchGfx10,
            e => e,
        }
    }
}

/// The encoding field an operand is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[repr(u8)]
pub enum Field {
    /// Scalar destination (SOP2/SOPK/SOP1 `sdst`, VOP3b `sdst`).
    Sdst,
    /// First scalar source.
    Ssrc0,
    /// Second scalar source.
    Ssrc1,
    /// SOPK/SOPP 16-bit immediate.
    Simm16,
    /// SMEM base register pair/quad.
    Sbase,
    /// SMEM data register(s).
    Sdata,
    /// SMEM offset (immediate or register, decided by the encoding bits).
    Offset,
    /// Scalar offset register (SMEM `soffset`, MUBUF/MTBUF `soffset`).
    Soffset,
    /// Vector (or, for some opcodes, scalar) destination.
    Vdst,
    /// First VOP source (9-bit).
    Src0,
    /// Second VOP source (9-bit in VOP3).
    Src1,
    /// Third VOP source.
    Src2,
    /// Second VOP source of the 32-bit forms (a VGPR).
    Vsrc1,
    /// The trailing 32-bit literal dword (madmk/madak K, s_setreg_imm32).
    Lit,
    /// DS / FLAT address.
    Addr,
    /// DS first data operand.
    Data0,
    /// DS second data operand.
    Data1,
    /// FLAT data operand.
    Data,
    /// FLAT scalar address.
    Saddr,
    /// MUBUF/MTBUF/MIMG vector address.
    Vaddr,
    /// MUBUF/MTBUF/MIMG data.
    Vdata,
    /// Buffer/image resource descriptor (SGPR quad index).
    Srsrc,
    /// Image sampler descriptor (SGPR quad index).
    Ssamp,
    /// VOPD Y destination: bits 7:1 of the VGPR; bit 0 is the opposite of
    /// the X destination's.
    VdstY,
    /// Not encoded (printed implicit operand such as `vcc` or `off`).
    Implicit,
    /// VIMAGE/VSAMPLE second to fifth address registers (D72; the first is
    /// `Vaddr`).
    Vaddr1,
    /// Third address register.
    Vaddr2,
    /// Fourth address register.
    Vaddr3,
    /// Fifth address register (VIMAGE only).
    Vaddr4,
}

/// How an operand's field value is interpreted and printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[repr(u8)]
pub enum Kind {
    /// Scalar register from a 7/8-bit field: SGPRs, `vcc`, `exec`, `m0`,
    /// `ttmp`, `flat_scratch`, `xnack_mask`, `null`.
    SReg,
    /// Scalar source: scalar register, inline constant, or (255) the literal.
    SSrc,
    /// Vector source (9-bit): [`Kind::SSrc`] values or VGPRs (256..511).
    VSrc,
    /// Vector source whose VGPR range names AGPRs (`v_accvgpr_read/mov`).
    ASrc,
    /// Vector source whose VGPR range is VGPRs or AGPRs per an acc bit (MAI).
    AvSrc,
    /// VGPR from an 8-bit field.
    VReg,
    /// AGPR from an 8-bit field.
    AReg,
    /// VGPR or AGPR (8-bit field) per the encoding's acc bit.
    AvReg,
    /// SGPR pair from a field counting pairs (SMEM `sbase`).
    SRegX2,
    /// SGPR quad from a field counting quads (`srsrc`, `ssamp`).
    SRegX4,
    /// SDWA source: 8-bit field plus an "is scalar" bit.
    SdwaSrc,
    /// The literal dword, printed in hex.
    Lit32,
    /// The literal dword, printed like a 32-bit immediate (`-1.0`, `0x1234`).
    LitImm32,
    /// GFX12.5 `v_fmamk_f64`/`v_fmaak_f64` K: a 64-bit literal (two
    /// trailing dwords, D54).
    Lit64,
    /// Fixed `vcc` (not encoded).
    Vcc,
    /// Fixed `off` (not encoded).
    Off,
    /// SMEM offset (immediate or register).
    SmemOffset,
    /// 16-bit immediate printed in hex.
    Hex16,
    /// 16-bit immediate printed like a 32-bit immediate (small values decimal).
    Imm16,
    /// 16-bit immediate printed in decimal.
    Dec16,
    /// `s_endpgm` immediate: omitted when zero.
    Endpgm,
    /// PC-relative branch offset in dwords (printed as unsigned 16-bit).
    Branch,
    /// `hwreg(...)`.
    Hwreg,
    /// `sendmsg(...)`.
    SendMsg,
    /// `vmcnt(..) expcnt(..) lgkmcnt(..)`.
    Waitcnt,
    /// `s_delay_alu`'s `instid0(..) | instskip(..) | instid1(..)` (GFX11+).
    DelayAlu,
    /// `s_waitcnt_depctr`'s named counters (`depctr_va_vdst(0)` ...).
    Depctr,
    /// `gpr_idx(...)` (16-bit field).
    GprIdx,
    /// `gpr_idx(...)` from an 8-bit source field (`s_set_gpr_idx_on`).
    GprIdx8,
    /// An operand the generator could not classify (printed raw).
    Unknown,
}

/// How a source operand's inline constants and literals are printed (LLVM's
/// operand type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[repr(u8)]
pub enum Ty {
    /// Not a constant-capable operand.
    None,
    /// 32-bit (integer or float).
    B32,
    /// 64-bit integer (32-bit literal zero-extended).
    I64,
    /// 64-bit float (32-bit literal is the high half).
    F64,
    /// 16-bit float.
    F16,
    /// 16-bit integer.
    I16,
    /// Packed 2 x f16.
    V2F16,
    /// Packed 2 x i16.
    V2I16,
    /// bf16 (gfx950): the whole 32-bit literal prints, `lit()` when its low
    /// half is an inline value.
    BF16,
    /// Packed 2 x bf16 (gfx950).
    V2BF16,
    /// Register-only operand: constants print with `/*Invalid immediate*/`.
    Reg,
}

/// Whether an operand is read, written or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Access {
    /// Read.
    R,
    /// Written.
    W,
    /// Read and written.
    RW,
}

/// Operand-level flags ([`OperandSpec::mods`]).
pub mod mods {
    /// Prints `-x` / `neg(x)` when its neg bit is set.
    pub const NEG: u16 = 1;
    /// Prints `|x|` when its abs bit is set.
    pub const ABS: u16 = 2;
    /// Prints `sext(x)` when its sext bit is set.
    pub const SEXT: u16 = 4;
    /// Scalar registers are invalid here (LLVM appends an
    /// `/*Invalid register, ...*/` comment).
    pub const BAD_SGPR: u16 = 8;
    /// VGPRs are invalid here.
    pub const BAD_VGPR: u16 = 16;
    /// `src_lds_direct` is invalid here.
    pub const BAD_LDS: u16 = 32;
    /// Register tuples must start at an even register (LLVM comments on
    /// misaligned ones).
    pub const ALIGN: u16 = 64;
    /// `m0` is invalid here.
    pub const BAD_M0: u16 = 128;
    /// Like [`ALIGN`], when the acc bit selects AGPRs.
    pub const ALIGN_ACC: u16 = 256;
    /// `exec` is invalid here.
    pub const BAD_EXEC: u16 = 512;
    /// A true16 operand (GFX11+): a 16-bit half of a VGPR, printed `v0.l`
    /// or `v0.h` ([`Op::hi`](crate::operand::Op::hi) says which).
    pub const T16: u16 = 1024;
    /// Only v0-v127 are valid here (GFX12's 16-bit VALU forms, LLVM's
    /// `VGPR_32_Lo128`): a higher VGPR draws the comment (D66).
    pub const LO128: u16 = 2048;
}

/// One printed operand of an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OperandSpec {
    /// Encoding field holding the operand.
    pub field: Field,
    /// Interpretation of the field value.
    pub kind: Kind,
    /// Width in dwords for register operands (1, 2, 3, 4, 8, 16, 32), 0 for
    /// non-register operands.
    pub width: u8,
    /// Constant/literal printing type for source operands.
    pub ty: Ty,
    /// Read/write.
    pub access: Access,
    /// [`mods`] flags.
    pub mods: u16,
    /// Index of the LLVM register-class name used in `/*Invalid register*/`
    /// comments (see [`OperandSpec::reg_class`]), or `u8::MAX`.
    pub rc: u8,
    /// Field position (word, low bit, width; width 0 when not encoded).
    pub(crate) pos: [u8; 3],
}

/// Index of an LLVM register-class name in the generated table (`u8::MAX`
/// if absent).
pub(crate) fn rc_index(name: &str) -> u8 {
    gen::RC_NAMES
        .iter()
        .position(|n| *n == name)
        .map(|i| i as u8)
        .unwrap_or(u8::MAX)
}

impl OperandSpec {
    /// Builds a spec, resolving the field's position in `enc` at compile
    /// time.
    #[allow(clippy::too_many_arguments)]
    pub(crate) const fn new(
        enc: Encoding,
        field: Field,
        kind: Kind,
        width: u8,
        ty: Ty,
        access: Access,
        mods: u16,
        rc: u8,
    ) -> OperandSpec {
        let pos = match crate::enc::field_pos(enc, field) {
            Some((w, l, n)) => [w, l, n],
            None => [0, 0, 0],
        };
        OperandSpec {
            field,
            kind,
            width,
            ty,
            access,
            mods,
            rc,
            pos,
        }
    }

    /// The LLVM register-class name LLVM prints in its
    /// `/*Invalid register, operand has '...' register class*/` comments for
    /// this operand, when the generator saw one.
    pub fn reg_class(&self) -> Option<&'static str> {
        gen::RC_NAMES.get(self.rc as usize).copied()
    }

    /// True for register operands written by the instruction.
    pub fn is_write(&self) -> bool {
        matches!(self.access, Access::W | Access::RW)
    }

    /// True for operands read by the instruction.
    pub fn is_read(&self) -> bool {
        matches!(self.access, Access::R | Access::RW)
    }
}

/// Static description of an opcode.
#[derive(Debug)]
pub struct OpInfo {
    /// Mnemonic as a packed text (see `generated::text`); [`OpInfo::name`].
    pub(crate) name: u32,
    /// Encoding.
    pub enc: Encoding,
    /// Value of the encoding's opcode field.
    pub code: u16,
    /// Index in the table (`u16::MAX` for [`Opcode::INVALID`]): the row of
    /// the per-column tables (`gen::FLAGS`, `gen::ZERO`, `gen::ONE`).
    pub(crate) index: u16,
    /// Bit mask of table columns (see [`Target`]'s `index`) supporting it.
    pub(crate) targets: u32,
    /// Printed operands as `start << 8 | length` in `gen::OPERANDS`;
    /// [`OpInfo::operands`].
    pub(crate) operands: u32,
}

impl OpInfo {
    /// Mnemonic as LLVM prints it.
    #[inline]
    pub fn name(&self) -> &'static str {
        crate::generated::text(self.name)
    }

    /// Printed operands, in order.
    #[inline]
    pub fn operands(&self) -> &'static [OperandSpec] {
        let (start, len) = (
            (self.operands >> 8) as usize,
            (self.operands & 0xFF) as usize,
        );
        gen::OPERANDS.get(start..start + len).unwrap_or(&[])
    }

    /// True if `target` has this opcode.
    #[inline]
    pub fn supports(&self, target: Target) -> bool {
        self.targets & target.bit() != 0
    }

    /// [`flags`] bits of this opcode on `target`.
    #[inline]
    pub fn flags(&self, target: Target) -> u64 {
        gen::FLAGS
            .get(target.index())
            .and_then(|c| c.get(self.index as usize))
            .copied()
            .unwrap_or(0)
    }

    /// True if any of `f` ([`flags`]) is set on `target`.
    #[inline]
    pub fn has(&self, target: Target, f: u64) -> bool {
        self.flags(target) & f != 0
    }

    /// Bits of each word that must be zero on `target`.
    #[inline]
    pub fn zero_bits(&self, target: Target) -> [u32; 2] {
        gen::ZERO
            .get(target.index())
            .and_then(|c| c.get(self.index as usize))
            .copied()
            .unwrap_or([0, 0])
    }

    /// Bits of each word that must be one on `target`.
    #[inline]
    pub fn one_bits(&self, target: Target) -> [u32; 2] {
        gen::ONE
            .get(target.index())
            .and_then(|c| c.get(self.index as usize))
            .copied()
            .unwrap_or([0, 0])
    }
}

/// Opcode flags ([`OpInfo::flags`]). The low bits record which modifiers
/// LLVM prints for the opcode (derived from LLVM by the generator); the high
/// bits are semantic facts (from the generator's rules).
pub mod flags {
    /// Prints `clamp`.
    pub const CLAMP: u64 = 1 << 0;
    /// Prints `mul:2`/`mul:4`/`div:2`.
    pub const OMOD: u64 = 1 << 1;
    /// Prints `op_sel:[...]`.
    pub const OP_SEL: u64 = 1 << 2;
    /// Prints `op_sel_hi:[...]`.
    pub const OP_SEL_HI: u64 = 1 << 3;
    /// Prints `neg_lo:[...]`.
    pub const NEG_LO: u64 = 1 << 4;
    /// Prints `neg_hi:[...]`.
    pub const NEG_HI: u64 = 1 << 5;
    /// Prints `cbsz:`.
    pub const CBSZ: u64 = 1 << 6;
    /// Prints `abid:`.
    pub const ABID: u64 = 1 << 7;
    /// Prints `blgp:`.
    pub const BLGP: u64 = 1 << 8;
    /// Prints the blgp field as `neg:[a,b,c]` (gfx940 f64 MFMA).
    pub const BLGP_NEG: u64 = 1 << 9;
    /// Prints `dst_sel:` and `dst_unused:` (SDWA).
    pub const DST_SEL: u64 = 1 << 10;
    /// VOP3 (gfx950 `v_bitop3_*`): prints `bitop3:`, whose 8 bits are in the
    /// abs (bits 5:3 of the value), omod (7:6) and neg (2:0) fields. Shares
    /// [`DST_SEL`]'s bit, which only SDWA encodings use.
    pub const BITOP3: u64 = DST_SEL;
    /// Prints `src0_sel:` (SDWA).
    pub const SRC0_SEL: u64 = 1 << 11;
    /// Prints `src1_sel:` (SDWA).
    pub const SRC1_SEL: u64 = 1 << 12;
    /// VOP3 DPP (D71, an SDWA-only bit reused): the `op_sel` list names
    /// sources only, no destination entry (GFX11's VOPC DPP forms print
    /// `op_sel:[src0,src1]`; their VOP3 form adds the destination).
    pub const OPSEL_NO_DST: u64 = SRC1_SEL;
    /// VOP3 DPP (D71, an SDWA-only bit reused): LLVM does not print
    /// `op_sel` bits 0 and 1 (`v_dot2_f16_f16`/`v_dot2_bf16_bf16`'s DPP
    /// forms; the VOP3 form prints them).
    pub const OPSEL_SKIP01: u64 = SRC0_SEL;
    /// Prints `offset:` (16-bit DS offset, MUBUF/FLAT offset, SMEM offset).
    pub const OFFSET: u64 = 1 << 13;
    /// Prints `offset0:` / `offset1:` (DS two-address forms).
    pub const OFFSET01: u64 = 1 << 14;
    /// Prints the DS offset as `offset:swizzle(...)`.
    pub const SWIZZLE: u64 = 1 << 15;
    /// Prints `gds`.
    pub const GDS: u64 = 1 << 16;
    /// Prints the GLC bit (`glc` / `sc0`).
    pub const GLC: u64 = 1 << 17;
    /// Prints the SLC bit (`slc` / `nt`).
    pub const SLC: u64 = 1 << 18;
    /// Prints the SCC bit (`scc` / `sc1`).
    pub const SCC: u64 = 1 << 19;
    /// `dlc` prints (GFX10 encodings, which have no `scc` bit).
    pub const DLC: u64 = SCC;
    /// Prints `lds`.
    pub const LDS: u64 = 1 << 20;
    /// Atomic whose GLC bit selects the returning form (adds `vdst`).
    pub const RTN_GLC: u64 = 1 << 21;
    /// The `lds` bit selects the LDS-DMA form (no data register).
    pub const LDS_DMA: u64 = 1 << 22;
    /// Prints `offen` / `idxen` (buffer).
    pub const OFFEN: u64 = 1 << 23;
    /// Prints `format:` (MTBUF).
    pub const FORMAT: u64 = 1 << 24;
    /// Prints `tfe`.
    pub const TFE: u64 = 1 << 25;
    /// Prints `lwe`.
    pub const LWE: u64 = 1 << 26;
    /// Prints `unorm`.
    pub const UNORM: u64 = 1 << 27;
    /// Prints `da`.
    pub const DA: u64 = 1 << 28;
    /// Prints `a16` (gfx90a) / `r128`.
    pub const A16: u64 = 1 << 29;
    /// Prints `d16`.
    pub const D16: u64 = 1 << 30;
    /// Prints `dmask:`.
    pub const DMASK: u64 = 1 << 31;

    // --- GFX12 cache policy (D39): the SMEM/VMEM encodings of GFX12 have
    // no glc/slc/dlc/scc bits and no MIMG modifiers, so their flags reuse
    // those bits.
    /// Prints `th:` (GFX12).
    pub const TH: u64 = GLC;
    /// Prints `scope:` (GFX12).
    pub const SCOPE: u64 = SCC;
    /// Prints `nv` (GFX12).
    pub const NV: u64 = SLC;
    /// Prints `scale_offset` (GFX12).
    pub const SCALE_OFFSET: u64 = LWE;
    /// `th:` prints LLVM's store names (`TH_STORE_*`).
    pub const TH_STORE: u64 = UNORM;
    /// `th:` prints LLVM's atomic names (`TH_ATOMIC_*`).
    pub const TH_ATOMIC: u64 = DA;
    /// VOP3 (GFX12 fp8/bf8 conversions): prints `byte_sel:`, whose low bit
    /// is `op_sel` bit 1 and high bit `op_sel` bit 0. Shares [`CBSZ`]'s bit,
    /// which only MAI uses.
    pub const BYTE_SEL_LO: u64 = CBSZ;
    /// VOP3: prints `byte_sel:` from `op_sel` bits 2 (low) and 3 (high).
    /// Shares [`ABID`]'s bit, which only MAI uses.
    pub const BYTE_SEL_HI: u64 = ABID;
    // --- GFX12 VIMAGE/VSAMPLE (D72): image words have no VALU modifiers,
    // so their own flags reuse those bits (`dmask`, `tfe`, `a16`, `d16`
    // keep MIMG's).
    /// Prints `dim:` (VIMAGE/VSAMPLE).
    pub const IMG_DIM: u64 = CLAMP;
    /// Prints `r128` (VIMAGE/VSAMPLE).
    pub const IMG_R128: u64 = OMOD;
    /// Prints `unorm` (VSAMPLE).
    pub const IMG_UNORM: u64 = OP_SEL;
    /// Prints `lwe` (VSAMPLE).
    pub const IMG_LWE: u64 = OP_SEL_HI;

    // --- semantics -------------------------------------------------------
    /// Unconditional PC-relative branch (`s_branch`).
    pub const BRANCH: u64 = 1 << 32;
    /// Conditional PC-relative branch (`s_cbranch_*`).
    pub const CBRANCH: u64 = 1 << 33;
    /// Call (`s_call_b64`, `s_swappc_b64`).
    pub const CALL: u64 = 1 << 34;
    /// Indirect jump / return (`s_setpc_b64`, `s_swappc_b64`, `s_rfe_b64`).
    pub const INDIRECT: u64 = 1 << 35;
    /// Ends the wave (`s_endpgm*`).
    pub const ENDPGM: u64 = 1 << 36;
    /// Trap (`s_trap`).
    pub const TRAP: u64 = 1 << 37;
    /// Reads EXEC implicitly.
    pub const READS_EXEC: u64 = 1 << 38;
    /// Writes EXEC implicitly.
    pub const WRITES_EXEC: u64 = 1 << 39;
    /// Reads VCC implicitly.
    pub const READS_VCC: u64 = 1 << 40;
    /// Writes VCC implicitly.
    pub const WRITES_VCC: u64 = 1 << 41;
    /// Reads SCC.
    pub const READS_SCC: u64 = 1 << 42;
    /// Writes SCC.
    pub const WRITES_SCC: u64 = 1 << 43;
    /// Reads M0 implicitly.
    pub const READS_M0: u64 = 1 << 44;
    /// Writes M0 implicitly.
    pub const WRITES_M0: u64 = 1 << 45;
    /// Loads from memory.
    pub const LOAD: u64 = 1 << 46;
    /// Stores to memory.
    pub const STORE: u64 = 1 << 47;
    /// Atomic read-modify-write.
    pub const ATOMIC: u64 = 1 << 48;
    /// Increments VM_CNT (waited on by `s_waitcnt vmcnt`).
    pub const VM_CNT: u64 = 1 << 49;
    /// Increments LGKM_CNT.
    pub const LGKM_CNT: u64 = 1 << 50;
    /// Increments EXP_CNT.
    pub const EXP_CNT: u64 = 1 << 51;
    /// Vector ALU instruction (runs per lane under EXEC).
    pub const VALU: u64 = 1 << 52;
    /// Scalar ALU instruction.
    pub const SALU: u64 = 1 << 53;
    /// Barrier (`s_barrier`).
    pub const BARRIER: u64 = 1 << 54;
    /// Waits on counters (`s_waitcnt`).
    pub const WAITCNT: u64 = 1 << 55;
    /// Matrix instruction (MFMA/SMFMAC).
    pub const MATRIX: u64 = 1 << 56;
    /// Atomic: AGPR data with the SCC (`scc`/`sc1`) bit and no GLC is not
    /// decodable.
    pub const ACC_SCC_BAD: u64 = 1 << 57;
    /// VOP3P packed op: `op_sel_hi` defaults to all ones.
    pub const PACKED: u64 = 1 << 58;
    /// Double-precision ALU DPP: only `row_newbcast` controls are legal.
    pub const DPP_DP: u64 = 1 << 59;
    /// VOP3 `op_sel:[...]` has 2 entries (field [`OPSEL_N_MASK`]).
    pub const OPSEL_N2: u64 = 1 << 60;
    /// VOP3 `op_sel:[...]` has 3 entries.
    pub const OPSEL_N3: u64 = 2 << 60;
    /// VOP3 `op_sel:[...]` has 4 entries.
    pub const OPSEL_N4: u64 = 3 << 60;
    /// Mask of the `op_sel` entry-count field (0: as many as sources + 1).
    pub const OPSEL_N_MASK: u64 = 3 << 60;
    /// Atomic: AGPR data with both GLC and SCC is not decodable.
    pub const RTN_ACC_SCC_BAD: u64 = 1 << 62;
    /// The returning (GLC) form of this atomic cannot use AGPRs.
    pub const RTN_NO_ACC: u64 = 1 << 63;
}

// The per-column tables have one row per table column.
const _: () = assert!(
    gen::FLAGS.len() == gen::COLUMNS
        && gen::ZERO.len() == gen::COLUMNS
        && gen::ONE.len() == gen::COLUMNS
);

//! Per-encoding knowledge that is not in the generated tables: where each
//! field sits in the instruction words, extra validity rules, and how each
//! encoding prints its modifiers and address operands.
//!
//! One submodule per encoding family, so they can be worked on separately.

pub(crate) mod ds;
pub(crate) mod flat;
pub(crate) mod gfx10;
pub(crate) mod gfx12;
pub(crate) mod mimg;
pub(crate) mod mimg10;
pub(crate) mod mubuf;
pub(crate) mod sdwa_dpp;
pub(crate) mod smem;
pub(crate) mod sop;
pub(crate) mod vimage;
pub(crate) mod vop;
pub(crate) mod vop3p;
pub(crate) mod vopd3;

use crate::opcode::{Encoding, Field};

/// Position of a field: (word, low bit, width).
pub(crate) type Pos = (u8, u8, u8);

/// Where `field` lives in `enc`, or `None` if the encoding has no such field.
pub(crate) const fn field_pos(enc: Encoding, field: Field) -> Option<Pos> {
    use Encoding as E;
    use Field as F;
    let enc = match enc {
        // SMEM moved its soffset; DS and the VMEM encodings keep their
        // operand fields in word 1.
        E::SmemGfx10 | E::SmemGfx11 => {
            return match field {
                F::Sbase => Some((0, 0, 6)),
                F::Sdata => Some((0, 6, 7)),
                F::Offset => Some((1, 0, 21)),
                F::Soffset => Some((1, 25, 7)),
                _ => None,
            }
        }
        E::SmemGfx12 => {
            return match field {
                F::Sbase => Some((0, 0, 6)),
                F::Sdata => Some((0, 6, 7)),
                F::Offset => Some((1, 0, 24)),
                F::Soffset => Some((1, 25, 7)),
                _ => None,
            }
        }
        E::FlatGfx12 | E::GlobalGfx12 | E::ScratchGfx12 => {
            return match field {
                F::Saddr => Some((0, 0, 7)),
                F::Vdst => Some((1, 0, 8)),
                F::Data => Some((1, 23, 8)),
                F::Addr => Some((2, 0, 8)),
                _ => None,
            }
        }
        // VOP3 DPP (D61): src0 is an 8-bit VGPR in word 2; the rest is VOP3's.
        E::Vop3Dpp | E::Vop3Dpp8 | E::Vop3DppF16 | E::Vop3Dpp8F16 if matches!(field, F::Src0) => {
            return Some((2, 0, 8))
        }
        E::MimgGfx10 | E::MimgHiGfx10 | E::MimgGfx11 => {
            return match field {
                F::Vaddr => Some((1, 0, 8)),
                F::Vdata => Some((1, 8, 8)),
                F::Srsrc => Some((1, 16, 5)),
                F::Ssamp if matches!(enc, E::MimgGfx11) => Some((1, 26, 5)),
                F::Ssamp => Some((1, 21, 5)),
                // The NSA dword (D81).
                F::Vaddr1 => Some((2, 0, 8)),
                F::Vaddr2 => Some((2, 8, 8)),
                F::Vaddr3 => Some((2, 16, 8)),
                F::Vaddr4 => Some((2, 24, 8)),
                _ => None,
            };
        }
        E::VimageGfx12 | E::VsampleGfx12 => {
            return match field {
                F::Vdata => Some((1, 0, 8)),
                F::Srsrc => Some((1, 9, 9)),
                F::Ssamp if matches!(enc, E::VsampleGfx12) => Some((1, 23, 9)),
                F::Vaddr => Some((2, 0, 8)),
                F::Vaddr1 => Some((2, 8, 8)),
                F::Vaddr2 => Some((2, 16, 8)),
                F::Vaddr3 => Some((2, 24, 8)),
                F::Vaddr4 if matches!(enc, E::VimageGfx12) => Some((1, 24, 8)),
                _ => None,
            }
        }
        E::MubufGfx12 => {
            return match field {
                F::Soffset => Some((0, 0, 7)),
                F::Vdata => Some((1, 0, 8)),
                F::Srsrc => Some((1, 9, 7)),
                F::Vaddr => Some((2, 0, 8)),
                _ => None,
            }
        }
        e => e.family(),
    };
    Some(match (enc, field) {
        (E::VopdX, F::Src0) => (0, 0, 9),
        (E::VopdX, F::Vsrc1) => (0, 9, 8),
        (E::VopdX, F::Vdst) => (1, 24, 8),
        (E::VopdY, F::Src0) => (1, 0, 9),
        (E::VopdY, F::Vsrc1) => (1, 9, 8),
        (E::VopdY, F::VdstY) => (1, 17, 7),
        // VOPD3 (D57): whole 8-bit registers in vsrc1, src2 and vdst.
        (E::Vopd3X, F::Src0) => (0, 0, 9),
        (E::Vopd3X, F::Vsrc1) => (1, 16, 8),
        (E::Vopd3X, F::Src2) => (1, 24, 8),
        (E::Vopd3X, F::Vdst) => (2, 0, 8),
        (E::Vopd3Y, F::Src0) => (1, 0, 9),
        (E::Vopd3Y, F::Vsrc1) => (2, 8, 8),
        (E::Vopd3Y, F::Src2) => (2, 16, 8),
        (E::Vopd3Y, F::Vdst) => (2, 24, 8),
        (E::Sop2, F::Sdst) | (E::Sopk, F::Sdst) | (E::Sop1, F::Sdst) => (0, 16, 7),
        (E::Sop2 | E::Sop1 | E::Sopc, F::Ssrc0) => (0, 0, 8),
        (E::Sop2 | E::Sopc, F::Ssrc1) => (0, 8, 8),
        (E::Sopk | E::Sopp, F::Simm16) => (0, 0, 16),
        (E::Smem, F::Sbase) => (0, 0, 6),
        (E::Smem, F::Sdata) => (0, 6, 7),
        (E::Smem, F::Offset) => (1, 0, 21),
        (E::Smem, F::Soffset) => (1, 25, 7),
        (E::Vop2 | E::Vopc, F::Src0) | (E::Vop1, F::Src0) => (0, 0, 9),
        (
            E::Vop2
            | E::Vopc
            | E::Vop2Sdwa
            | E::VopcSdwa
            | E::Vop2Dpp
            | E::VopcDpp
            | E::Vop2Dpp8
            | E::VopcDpp8,
            F::Vsrc1,
        ) => (0, 9, 8),
        (
            E::Vop2
            | E::Vop1
            | E::Vop2Sdwa
            | E::Vop1Sdwa
            | E::Vop2Dpp
            | E::Vop1Dpp
            | E::Vop2Dpp8
            | E::Vop1Dpp8,
            F::Vdst,
        ) => (0, 17, 8),
        (E::Vop3 | E::Vop3p | E::Mai, F::Vdst) => (0, 0, 8),
        (E::Vop3, F::Sdst) => (0, 8, 7),
        (E::Vop3 | E::Vop3p | E::Mai, F::Src0) => (1, 0, 9),
        (E::Vop3 | E::Vop3p | E::Mai, F::Src1) => (1, 9, 9),
        (E::Vop3 | E::Vop3p | E::Mai, F::Src2) => (1, 18, 9),
        (
            E::Vop2Sdwa
            | E::Vop1Sdwa
            | E::VopcSdwa
            | E::Vop2Dpp
            | E::Vop1Dpp
            | E::VopcDpp
            | E::Vop2Dpp8
            | E::Vop1Dpp8
            | E::VopcDpp8,
            F::Src0,
        ) => (1, 0, 8),
        (E::VopcSdwa, F::Sdst) => (1, 8, 7),
        (E::Ds, F::Addr) => (1, 0, 8),
        (E::Ds, F::Data0) => (1, 8, 8),
        (E::Ds, F::Data1) => (1, 16, 8),
        (E::Ds, F::Vdst) => (1, 24, 8),
        (E::Flat | E::Global | E::Scratch, F::Addr) => (1, 0, 8),
        (E::Flat | E::Global | E::Scratch, F::Data) => (1, 8, 8),
        (E::Flat | E::Global | E::Scratch, F::Saddr) => (1, 16, 7),
        (E::Flat | E::Global | E::Scratch, F::Vdst) => (1, 24, 8),
        (E::Mubuf | E::Mtbuf | E::Mimg, F::Vaddr) => (1, 0, 8),
        (E::Mubuf | E::Mtbuf | E::Mimg, F::Vdata) => (1, 8, 8),
        (E::Mubuf | E::Mtbuf | E::Mimg, F::Srsrc) => (1, 16, 5),
        (E::Mubuf | E::Mtbuf, F::Soffset) => (1, 24, 8),
        (E::Mimg, F::Ssamp) => (1, 21, 5),
        _ => return None,
    })
}

/// Extracts `width` bits at `lo` of `w`.
#[inline]
pub(crate) fn bits(w: u32, lo: u8, width: u8) -> u32 {
    (w >> lo) & (((1u64 << width) - 1) as u32)
}

/// Replaces `width` bits at `lo` of `w` with `v` (truncated).
#[inline]
pub(crate) fn set_bits(w: &mut u32, lo: u8, width: u8, v: u32) {
    let mask = (((1u64 << width) - 1) as u32) << lo;
    *w = (*w & !mask) | ((v << lo) & mask);
}

/// Number of base words (without literal) of an encoding (3 for the
/// 96-bit GFX12 VMEM encodings).
pub(crate) fn base_words(enc: Encoding) -> usize {
    use Encoding as E;
    match enc {
        E::Sop2 | E::Sopk | E::Sop1 | E::Sopc | E::Sopp | E::Vop2 | E::Vop1 | E::Vopc => 1,
        E::Invalid => 1,
        E::MubufGfx12 | E::FlatGfx12 | E::GlobalGfx12 | E::ScratchGfx12 => 3,
        E::VimageGfx12 | E::VsampleGfx12 => 3,
        E::Vopd3X | E::Vopd3Y | E::Vop3Dpp | E::Vop3Dpp8 | E::Vop3DppF16 | E::Vop3Dpp8F16 => 3,
        _ => 2,
    }
}

/// Number of words of an instruction of `enc` whose word 0 is `w0`, without
/// literal: the base words and a GFX10/11 MIMG word's NSA dwords (D81).
#[inline]
pub(crate) fn words_of(enc: Encoding, w0: u32) -> usize {
    base_words(enc) + mimg10::nsa_dwords(enc, w0)
}

/// Position of the opcode field and the fixed prefix bits of an encoding:
/// (word-0 prefix mask, prefix value, opcode lo, opcode width).
pub(crate) fn opcode_pos(enc: Encoding) -> (u32, u32, u8, u8) {
    use Encoding as E;
    match enc {
        E::Sop2 => (0xC000_0000, 0x8000_0000, 23, 7),
        E::Sopk => (0xF000_0000, 0xB000_0000, 23, 5),
        E::Sop1 => (0xFF80_0000, 0xBE80_0000, 8, 8),
        E::Sopc => (0xFF80_0000, 0xBF00_0000, 16, 7),
        E::Sopp => (0xFF80_0000, 0xBF80_0000, 16, 7),
        E::Smem => (0xFC00_0000, 0xC000_0000, 18, 8),
        E::Vop2 | E::Vop2Sdwa | E::Vop2Dpp | E::Vop2Dpp8 => (0x8000_0000, 0, 25, 6),
        E::Vop1 | E::Vop1Sdwa | E::Vop1Dpp | E::Vop1Dpp8 => (0xFE00_0000, 0x7E00_0000, 9, 8),
        E::Vopc | E::VopcSdwa | E::VopcDpp | E::VopcDpp8 => (0xFE00_0000, 0x7C00_0000, 17, 8),
        E::Vop3 => (0xFC00_0000, 0xD000_0000, 16, 10),
        E::Vop3p | E::Mai => (0xFF80_0000, 0xD380_0000, 16, 7),
        E::Ds => (0xFC00_0000, 0xD800_0000, 17, 8),
        E::Flat => (0xFC00_C000, 0xDC00_0000, 18, 7),
        E::Global => (0xFC00_C000, 0xDC00_8000, 18, 7),
        E::Scratch => (0xFC00_C000, 0xDC00_4000, 18, 7),
        E::Mubuf => (0xFC00_0000, 0xE000_0000, 18, 7),
        E::Mtbuf => (0xFC00_0000, 0xE800_0000, 15, 4),
        E::Mimg => (0xFC00_0000, 0xF000_0000, 18, 7),
        E::SmemGfx10 => (0xFC00_0000, 0xF400_0000, 18, 8),
        E::Vop3Gfx10 | E::Vop3F16 | E::Vop3Dpp | E::Vop3Dpp8 | E::Vop3DppF16 | E::Vop3Dpp8F16 => {
            (0xFC00_0000, 0xD400_0000, 16, 10)
        }
        E::Vop3pGfx10 => (0xFF80_0000, 0xCC00_0000, 16, 7),
        E::DsGfx10 => (0xFC00_0000, 0xD800_0000, 18, 8),
        E::FlatGfx10 => (0xFC00_C000, 0xDC00_0000, 18, 7),
        E::GlobalGfx10 => (0xFC00_C000, 0xDC00_8000, 18, 7),
        E::ScratchGfx10 => (0xFC00_C000, 0xDC00_4000, 18, 7),
        E::MubufGfx10 => (0xFC00_0000, 0xE000_0000, 18, 7),
        E::SmemGfx11 => (0xFC00_0000, 0xF400_0000, 18, 8),
        E::MubufGfx11 => (0xFC00_0000, 0xE000_0000, 18, 8),
        E::FlatGfx11 => (0xFC03_0000, 0xDC00_0000, 18, 7),
        E::GlobalGfx11 => (0xFC03_0000, 0xDC02_0000, 18, 7),
        E::ScratchGfx11 => (0xFC03_0000, 0xDC01_0000, 18, 7),
        E::VopdX => (0xFC00_0000, 0xC800_0000, 22, 4),
        E::VopdY => (0xFC00_0000, 0xC800_0000, 17, 5),
        E::SmemGfx12 => (0xFC00_0000, 0xF400_0000, 13, 6),
        E::MubufGfx12 => (0xFC00_0000, 0xC400_0000, 14, 8),
        E::FlatGfx12 => (0xFF00_0000, 0xEC00_0000, 14, 8),
        E::GlobalGfx12 => (0xFF00_0000, 0xEE00_0000, 14, 8),
        E::ScratchGfx12 => (0xFF00_0000, 0xED00_0000, 14, 8),
        E::VimageGfx12 => (0xFC00_0000, 0xD000_0000, 14, 8),
        E::VsampleGfx12 => (0xFC00_0000, 0xE400_0000, 14, 8),
        E::MimgGfx10 => (0xFC00_0001, 0xF000_0000, 18, 7),
        E::MimgHiGfx10 => (0xFC00_0001, 0xF000_0001, 18, 7),
        E::MimgGfx11 => (0xFC00_0000, 0xF000_0000, 18, 8),
        E::Vopd3X => (0xFF00_0000, 0xCF00_0000, 18, 6),
        E::Vopd3Y => (0xFF00_0000, 0xCF00_0000, 12, 6),
        E::Invalid => (0, 0, 0, 0),
    }
}

/// The encoding of the Y half of a dual-issue X encoding (VOPD, VOPD3).
#[inline]
pub(crate) fn vopd_y_enc(enc: Encoding) -> Option<Encoding> {
    match enc {
        Encoding::VopdX => Some(Encoding::VopdY),
        Encoding::Vopd3X => Some(Encoding::Vopd3Y),
        _ => None,
    }
}

/// Word-0 bits 8..0 value selecting the SDWA / DPP forms.
pub(crate) const SRC0_SDWA: u32 = 0xF9;
pub(crate) const SRC0_DPP: u32 = 0xFA;
/// Source-0 values selecting DPP8 (GFX10+), and DPP8 with `fi:1`: word 1's
/// src0 field in VOP3, word 0's in VOP1/VOP2/VOPC.
pub(crate) const SRC0_DPP8: u32 = 0xE9;
pub(crate) const SRC0_DPP8_FI: u32 = 0xEA;

//! VOPD3 (GFX12.5 dual issue, 96 bits, D57): what the tables do not say.
//!
//! Word 0: `0xCF` in bits 31:24, the X opcode in 23:18, the Y opcode in
//! 17:12, X's src0 in 8:0. Word 1: Y's src0 in 8:0, the `neg` bits of X's
//! three sources in 11:9 and of Y's in 14:12, X's vsrc1 in 23:16 and src2
//! in 31:24. Word 2: X's vdst in 7:0, Y's vsrc1 in 15:8, src2 in 23:16 and
//! vdst in 31:24. Bits 11:9 of word 0 and bit 15 of word 1 are ignored by
//! LLVM 22. `v_dual_bitop2_b32` holds its `bitop3:` byte in its src2 field.

use crate::inst::Instruction;
use crate::opcode::{flags, OperandSpec};
use std::fmt::{self, Write};

/// The `neg` bit (0..96) of a VOPD3 source operand, from its field position
/// (the X and Y halves share field names, not positions).
pub(crate) fn neg_bit(spec: &OperandSpec) -> Option<u32> {
    Some(match spec.pos {
        [0, 0, 9] => 32 + 9,
        [1, 16, 8] => 32 + 10,
        [1, 24, 8] => 32 + 11,
        [1, 0, 9] => 32 + 12,
        [2, 8, 8] => 32 + 13,
        [2, 16, 8] => 32 + 14,
        _ => return None,
    })
}

/// Position (word, low bit) of the `bitop3:` byte of the X (`y` false) or
/// Y half: its src2 field.
pub(crate) fn bitop3_pos(y: bool) -> (usize, u8) {
    if y {
        (2, 16)
    } else {
        (1, 24)
    }
}

/// The `bitop3:` byte of a half, if that half prints one.
pub(crate) fn bitop3(inst: &Instruction, y: bool) -> Option<u8> {
    let op = if y { inst.vopd_y()? } else { inst.opcode() };
    if !op.info().has(inst.target(), flags::BITOP3) {
        return None;
    }
    let (w, lo) = bitop3_pos(y);
    Some(inst.bits(w, lo, 8) as u8)
}

/// Writes ` bitop3:..` after a half's operands (nothing for 0), as LLVM
/// does: decimal up to 10, hex above.
pub(crate) fn write_bitop3(inst: &Instruction, y: bool, out: &mut impl Write) -> fmt::Result {
    match bitop3(inst, y) {
        Some(0) | None => Ok(()),
        Some(v) => {
            out.write_str(" bitop3:")?;
            if v <= 10 {
                crate::print::write_u64(out, v as u64)
            } else {
                crate::print::write_hex(out, v as u64)
            }
        }
    }
}

/// The two src0 fields (X's, Y's).
fn src0s(inst: &Instruction) -> [u32; 2] {
    [inst.bits(0, 0, 9), inst.bits(1, 0, 9)]
}

/// True if a src0 is 254, GFX12.5's 64-bit literal, which LLVM 22 reads
/// from words 1 and 2 of the VOPD3 word itself.
pub(crate) fn has_lit64(inst: &Instruction) -> bool {
    inst.target().is_gfx1250() && src0s(inst).contains(&254)
}

/// Whether a VOPD3 word whose operands ask for a literal decodes in three
/// words: with a 64-bit literal (254), whose words 1-2 a 32-bit literal
/// source (255) then also reads (its low half); with only 32-bit literals
/// it is four words.
pub(crate) fn lit64_in_place(inst: &Instruction) -> bool {
    has_lit64(inst)
}

//! GFX10 and GFX11 MIMG (D81): 64-bit image words, and their NSA forms
//! with one extra dword of address registers (`[v4, v6, v9]`; GFX11's last
//! field may hold a tuple). The data width and the address list come from
//! the generated `MIMG_FORMS` (probed per opcode, `gen/mimg10.py`): LLVM
//! picks a variant of the opcode by data width and address count, or keeps
//! its decoder's default form, and the tables hold what it printed for
//! every `dmask`/`d16`/`tfe`/`lwe` key at every `dim`/`a16` entry.
//!
//! A GFX10 NSA word with two or three extra dwords (six to thirteen
//! addresses) does not fit an [`Instruction`]'s three words: it decodes as
//! invalid (`.long`).

use crate::generated::gfx9 as gen;
use crate::inst::Instruction;
use crate::opcode::{flags, Encoding};
use crate::operand::Operands;
use std::fmt::{self, Write};

/// An unused address field that must be zero.
const MUST_ZERO: u8 = 0x40;
/// A class-table byte: LLVM rejects the word.
const INVALID: u8 = 0xFF;

/// Bit numbers (0-63) of the image bits of one layout.
struct Bits {
    nsa: u8,
    nsa_width: u8,
    dim: u8,
    a16: u8,
    d16: u8,
    tfe: u8,
    lwe: u8,
    unorm: u8,
    glc: u8,
    slc: u8,
    dlc: u8,
    r128: u8,
}

const GFX10: Bits = Bits {
    nsa: 1,
    nsa_width: 2,
    dim: 3,
    a16: 62,
    d16: 63,
    tfe: 16,
    lwe: 17,
    unorm: 12,
    glc: 13,
    slc: 25,
    dlc: 7,
    r128: 15,
};

const GFX11: Bits = Bits {
    nsa: 0,
    nsa_width: 1,
    dim: 2,
    a16: 16,
    d16: 17,
    tfe: 53,
    lwe: 54,
    unorm: 7,
    glc: 14,
    slc: 12,
    dlc: 13,
    r128: 15,
};

fn bits_of(enc: Encoding) -> &'static Bits {
    if enc == Encoding::MimgGfx11 {
        &GFX11
    } else {
        &GFX10
    }
}

/// The NSA dwords a word 0 of `enc` announces (0 for other encodings).
#[inline]
pub(crate) fn nsa_dwords(enc: Encoding, w0: u32) -> usize {
    match enc {
        Encoding::MimgGfx10 | Encoding::MimgHiGfx10 => ((w0 >> 1) & 3) as usize,
        Encoding::MimgGfx11 => (w0 & 1) as usize,
        _ => 0,
    }
}

fn row(inst: &Instruction) -> Option<&'static (u16, u16, u16, u8)> {
    let i = inst.opcode().index();
    gen::MIMG10
        .binary_search_by_key(&i, |r| r.0)
        .ok()
        .map(|k| &gen::MIMG10[k])
}

fn nsa(inst: &Instruction) -> bool {
    let b = bits_of(inst.encoding());
    inst.bits(0, b.nsa, b.nsa_width) != 0
}

/// The raw value of address field `i` (field 0 in word 1, the others in
/// the NSA dword).
fn addr_field(inst: &Instruction, i: usize) -> u32 {
    match i {
        0 => inst.bits(1, 0, 8),
        _ if nsa(inst) => inst.bits(2, 8 * (i as u8 - 1), 8),
        _ => 0,
    }
}

/// The decoded form: each address field's width (0: unused) and the data
/// width; `None` if LLVM rejects the word (or it is a GFX10 NSA word longer
/// than 96 bits).
pub(crate) fn form(inst: &Instruction) -> Option<([u8; 5], u8)> {
    let &(_, plain, nsa_form, _) = row(inst)?;
    let enc = inst.encoding();
    let n = nsa_dwords(enc, inst.words[0]);
    if n > 1 {
        return None;
    }
    let (keys, classes, layouts) = &gen::MIMG_FORMS[if n == 1 { nsa_form } else { plain } as usize];
    let b = bits_of(enc);
    let key = inst.bits(0, 8, 4)
        | (inst.bit(b.d16 as u32) as u32) << 4
        | (inst.bit(b.tfe as u32) as u32) << 5
        | (inst.bit(b.lwe as u32) as u32) << 6;
    let class = keys[key as usize];
    if class == 0 {
        return None;
    }
    let ent = inst.bits(0, b.dim, 3) | (inst.bit(b.a16 as u32) as u32) << 3;
    let out = classes[class as usize - 1][ent as usize];
    if out == INVALID {
        return None;
    }
    let lay = layouts[(out & 15) as usize];
    for (i, &f) in lay.iter().enumerate() {
        if f & MUST_ZERO != 0 && addr_field(inst, i) != 0 {
            return None;
        }
    }
    Some((lay.map(|f| f & 0x3F), out >> 4))
}

pub(crate) fn adjust_operands(inst: &Instruction, ops: &mut Operands) {
    if let Some((lay, data)) = form(inst) {
        super::vimage::set_operands(ops, lay, data, |i| addr_field(inst, i));
    }
}

/// Whether LLVM prints this NSA form with two spaces after the mnemonic.
fn two_spaces(inst: &Instruction) -> bool {
    nsa(inst) && row(inst).is_some_and(|r| r.3 != 0)
}

/// The text after the mnemonic: VIMAGE's operand list, then the GFX10/11
/// image modifiers in LLVM's order.
pub(crate) fn print(inst: &Instruction, ops: &Operands, out: &mut impl Write) -> fmt::Result {
    if two_spaces(inst) {
        out.write_char(' ')?;
    }
    super::vimage::write_operands(inst, ops, out)?;
    let b = bits_of(inst.encoding());
    let dmask = inst.bits(0, 8, 4);
    if inst.has(flags::DMASK) && dmask != 0 {
        out.write_str(" dmask:")?;
        crate::print::write_hex(out, dmask as u64)?;
    }
    if inst.has(flags::IMG_DIM) {
        out.write_str(" dim:SQ_RSRC_IMG_")?;
        out.write_str(super::vimage::DIM[inst.bits(0, b.dim, 3) as usize])?;
    }
    let on = |flag: u64, bit: u8| inst.has(flag) && inst.bit(bit as u32);
    for (flag, bit, text) in [
        (flags::IMG_UNORM, b.unorm, " unorm"),
        (flags::GLC, b.glc, " glc"),
        (flags::SLC, b.slc, " slc"),
        (flags::DLC, b.dlc, " dlc"),
        (flags::IMG_R128, b.r128, " r128"),
        (flags::A16, b.a16, " a16"),
        (flags::TFE, b.tfe, " tfe"),
        (flags::IMG_LWE, b.lwe, " lwe"),
        (flags::D16, b.d16, " d16"),
    ] {
        if on(flag, bit) {
            out.write_str(text)?;
        }
    }
    Ok(())
}

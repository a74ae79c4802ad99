//! The GFX10 and GFX11 layouts of SMEM, FLAT/GLOBAL/SCRATCH, MUBUF and DS:
//! where their address operands and cache bits moved (`dlc`; `null` as the
//! "no register" value of `soffset` and `saddr`; 12/13-bit FLAT offsets).
//! The two generations differ only in bit positions, which [`Bits`] lists
//! per encoding. VOP3 and VOP3P keep GFX9's fields and print through
//! `vop`/`vop3p`.

use crate::inst::Instruction;
use crate::opcode::{flags, Encoding, Field, Kind};
use crate::operand::{Operand, Operands};
use crate::print::{write_dec, write_hex_signed, write_i64, write_operand, write_operand_list};
use crate::reg::RegRange;
use std::fmt::{self, Write};

/// `null`: SMEM `soffset` and FLAT `saddr` "no register" (GFX10).
pub(crate) const NULL: u32 = 0x7D;
/// `null` on GFX11 (where `m0` is 0x7D).
pub(crate) const NULL11: u32 = 0x7C;

/// Bit numbers (from bit 0 of word 0; 64 for "none") of an encoding's cache
/// and addressing bits.
#[derive(Clone, Copy)]
pub(crate) struct Bits {
    pub null: u32,
    pub glc: u32,
    pub slc: u32,
    pub dlc: u32,
    /// FLAT: the LDS-DMA bit; MUBUF: `lds`.
    pub lds: u32,
    /// FLAT immediate offset width.
    pub offset: u8,
    pub offen: u32,
    pub idxen: u32,
    pub tfe: u32,
    /// SCRATCH: the bit that says `vaddr` is used (GFX11 `sve`); 64 when
    /// `saddr == null` says it (GFX10).
    pub sve: u32,
}

const NONE: u32 = 64;
const B10: Bits = Bits {
    null: NULL,
    glc: 16,
    slc: 17,
    dlc: 12,
    lds: 13,
    offset: 12,
    offen: NONE,
    idxen: NONE,
    tfe: NONE,
    sve: NONE,
};

/// The bit positions of a GFX10/GFX11 memory encoding.
pub(crate) const fn bits_of(enc: Encoding) -> Bits {
    match enc {
        Encoding::SmemGfx10 => Bits {
            slc: NONE,
            dlc: 14,
            ..B10
        },
        Encoding::SmemGfx11 => Bits {
            null: NULL11,
            glc: 14,
            slc: NONE,
            dlc: 13,
            ..B10
        },
        Encoding::MubufGfx10 => Bits {
            glc: 14,
            slc: 32 + 22,
            dlc: 15,
            lds: 16,
            offen: 12,
            idxen: 13,
            tfe: 32 + 23,
            ..B10
        },
        Encoding::MubufGfx11 => Bits {
            null: NULL11,
            glc: 14,
            slc: 12,
            dlc: 13,
            lds: 16,
            offen: 32 + 22,
            idxen: 32 + 23,
            tfe: 32 + 21,
            ..B10
        },
        Encoding::FlatGfx11 | Encoding::GlobalGfx11 | Encoding::ScratchGfx11 => Bits {
            null: NULL11,
            glc: 14,
            slc: 15,
            dlc: 13,
            lds: NONE,
            offset: 13,
            sve: 32 + 23,
            ..B10
        },
        _ => B10,
    }
}

/// `null` of the encoding's generation.
pub(crate) const fn null_of(enc: Encoding) -> u32 {
    if enc.is_gfx12() {
        return super::gfx12::NULL;
    }
    bits_of(enc).null
}

/// The signed 21-bit SMEM immediate offset.
fn smem_offset(inst: &Instruction) -> i64 {
    let v = inst.bits(1, 0, 21);
    ((v << 11) as i32 >> 11) as i64
}

/// The FLAT immediate offset: unsigned 12 bits for FLAT, signed for
/// GLOBAL and SCRATCH.
fn flat_offset(inst: &Instruction) -> i64 {
    let n = bits_of(inst.encoding()).offset;
    let raw = inst.bits(0, 0, n);
    match inst.encoding() {
        Encoding::FlatGfx10 | Encoding::FlatGfx11 => raw as i64,
        _ => ((raw << (32 - n)) as i32 >> (32 - n)) as i64,
    }
}

/// Field values LLVM rejects that the generated bit masks cannot express:
/// GLOBAL `saddr` of `vcc_hi`, `m0` or `exec_hi` (the other registers and
/// `null` are valid).
pub(crate) fn valid(inst: &Instruction) -> bool {
    match inst.encoding() {
        Encoding::GlobalGfx10 => !matches!(inst.bits(1, 16, 7), 0x6B | 0x7C | 0x7F),
        Encoding::GlobalGfx11 => !matches!(inst.bits(1, 16, 7), 0x6B | 0x7D | 0x7F),
        _ => true,
    }
}

pub(crate) fn adjust_operands(inst: &Instruction, ops: &mut Operands) {
    let b = bits_of(inst.encoding());
    match inst.encoding().gfx10_like() {
        Encoding::SmemGfx10 => {
            let soff = inst.bits(1, 25, 7);
            let off = smem_offset(inst);
            for op in ops.as_mut_slice() {
                if op.spec.field != Field::Offset {
                    continue;
                }
                if soff == b.null && off != 0 {
                    op.value = Operand::Imm(off);
                    op.spec.kind = Kind::SmemOffset;
                    op.spec.width = 0;
                } else {
                    op.value = Operand::Reg(RegRange::sgpr(soff as u16, 1));
                    op.spec.kind = Kind::SReg;
                    op.spec.width = 1;
                }
            }
        }
        Encoding::FlatGfx10 | Encoding::GlobalGfx10 | Encoding::ScratchGfx10 => {
            adjust_flat(inst, ops)
        }
        Encoding::MubufGfx10 => {
            super::mubuf::adjust_operands(inst, ops);
            // `tfe` loads write one more register (the fault status).
            if inst.has(flags::TFE) && inst.bit(b.tfe) {
                for op in ops.as_mut_slice() {
                    if op.spec.field == Field::Vdata && op.spec.access != crate::opcode::Access::R {
                        if let Operand::Reg(r) = op.value {
                            op.spec.width += 1;
                            op.value = Operand::Reg(RegRange::vgpr(r.first, r.count + 1));
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

fn adjust_flat(inst: &Instruction, ops: &mut Operands) {
    let b = bits_of(inst.encoding());
    let enc = inst.encoding().gfx10_like();
    let saddr = inst.bits(1, 16, 7);
    let null = b.null;
    // Loads with the `lds` bit write LDS, not a register.
    if inst.has(flags::LDS_DMA) && b.lds < NONE && inst.bit(b.lds) {
        if let Some(i) = ops.iter().position(|o| o.spec.field == Field::Vdst) {
            ops.remove(i);
        }
    }
    // Returning atomics: the table lists the return register last.
    if inst.has(flags::RTN_GLC) {
        if let Some(i) = ops.iter().position(|o| o.spec.field == Field::Vdst) {
            let op = ops[i];
            ops.remove(i);
            if inst.bit(b.glc) {
                ops.insert(0, op);
            }
        }
    }
    for op in ops.as_mut_slice() {
        match (enc, op.spec.field) {
            (Encoding::GlobalGfx10 | Encoding::ScratchGfx10, Field::Saddr) => {
                // Scratch prints `exec_hi` (0x7F) as `off` too.
                if saddr == null || (saddr == 0x7F && enc == Encoding::ScratchGfx10) {
                    op.value = Operand::Off;
                    op.spec.kind = Kind::Off;
                } else {
                    let w = if enc == Encoding::GlobalGfx10 { 2 } else { 1 };
                    op.value = Operand::Reg(RegRange::sgpr(saddr as u16, w));
                    op.spec.kind = Kind::SReg;
                    op.spec.width = w;
                }
            }
            (Encoding::GlobalGfx10, Field::Addr) => {
                let w = if saddr == null { 2 } else { 1 };
                op.spec.width = w;
                op.value = Operand::Reg(RegRange::vgpr(inst.bits(1, 0, 8) as u16, w));
            }
            (Encoding::ScratchGfx10, Field::Addr) => {
                let vaddr = if b.sve < NONE {
                    inst.bit(b.sve)
                } else {
                    saddr == null
                };
                if vaddr {
                    op.value = Operand::Reg(RegRange::vgpr(inst.bits(1, 0, 8) as u16, 1));
                    op.spec.kind = Kind::VReg;
                    op.spec.width = 1;
                } else {
                    op.value = Operand::Off;
                    op.spec.kind = Kind::Off;
                }
            }
            _ => {}
        }
    }
}

/// The text after the mnemonic, for the encodings whose printing differs
/// from their GFX9 family; `None` for the others.
pub(crate) fn print(
    inst: &Instruction,
    ops: &Operands,
    out: &mut impl Write,
) -> Option<fmt::Result> {
    Some(match inst.encoding().gfx10_like() {
        Encoding::SmemGfx10 => print_smem(inst, ops, out),
        Encoding::FlatGfx10 | Encoding::GlobalGfx10 | Encoding::ScratchGfx10 => {
            print_flat(inst, ops, out)
        }
        Encoding::MubufGfx10 => print_mubuf(inst, ops, out),
        _ => return None,
    })
}

fn print_smem(inst: &Instruction, ops: &Operands, out: &mut impl Write) -> fmt::Result {
    let mut first = true;
    let mut reg_offset = false;
    for op in ops.iter() {
        out.write_str(if first { " " } else { ", " })?;
        first = false;
        match (op.spec.field, op.spec.kind, op.value) {
            (_, Kind::SmemOffset, Operand::Imm(v)) => write_hex_signed(out, v)?,
            (Field::Offset, _, _) => {
                reg_offset = true;
                write_operand(inst, op, out)?
            }
            _ => write_operand(inst, op, out)?,
        }
    }
    let off = smem_offset(inst);
    if reg_offset && off != 0 {
        out.write_str(" offset:")?;
        write_hex_signed(out, off)?;
    }
    let b = bits_of(inst.encoding());
    write_cpol(inst, b.glc, b.slc, b.dlc, out)
}

fn print_flat(inst: &Instruction, ops: &Operands, out: &mut impl Write) -> fmt::Result {
    write_operand_list(inst, ops, out)?;
    if inst.has(flags::OFFSET) {
        let off = flat_offset(inst);
        if off != 0 {
            out.write_str(" offset:")?;
            write_i64(out, off)?;
        }
    }
    let b = bits_of(inst.encoding());
    write_cpol(inst, b.glc, b.slc, b.dlc, out)?;
    if inst.has(flags::LDS) && b.lds < NONE && inst.bit(b.lds) {
        out.write_str(" lds")?;
    }
    Ok(())
}

fn print_mubuf(inst: &Instruction, ops: &Operands, out: &mut impl Write) -> fmt::Result {
    let b = bits_of(inst.encoding());
    write_operand_list(inst, ops, out)?;
    if inst.has(flags::OFFEN) && inst.bit(b.idxen) {
        out.write_str(" idxen")?;
    }
    if inst.has(flags::OFFEN) && inst.bit(b.offen) {
        out.write_str(" offen")?;
    }
    let off = inst.bits(0, 0, 12);
    if inst.has(flags::OFFSET) && off != 0 {
        out.write_str(" offset:")?;
        write_dec(out, off)?;
    }
    write_cpol(inst, b.glc, b.slc, b.dlc, out)?;
    if inst.has(flags::LDS) && inst.bit(b.lds) {
        out.write_str(" lds")?;
    }
    if inst.has(flags::TFE) && inst.bit(b.tfe) {
        out.write_str(" tfe")?;
    }
    Ok(())
}

/// `glc slc dlc`, each when the entry has it and its bit (number from bit 0
/// of word 0; 64 for "none") is set.
fn write_cpol(
    inst: &Instruction,
    glc: u32,
    slc: u32,
    dlc: u32,
    out: &mut impl Write,
) -> fmt::Result {
    if inst.has(flags::GLC) && inst.bit(glc) {
        out.write_str(" glc")?;
    }
    if slc < 64 && inst.has(flags::SLC) && inst.bit(slc) {
        out.write_str(" slc")?;
    }
    if inst.has(flags::DLC) && inst.bit(dlc) {
        out.write_str(" dlc")?;
    }
    Ok(())
}

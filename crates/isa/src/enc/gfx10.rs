//! The GFX10 layouts of SMEM, FLAT/GLOBAL/SCRATCH, MUBUF and DS: where
//! their address operands and cache bits moved (`dlc`; `null` as the "no
//! register" value of `soffset` and `saddr`; 12-bit FLAT offsets). VOP3 and
//! VOP3P keep GFX9's fields and print through `vop`/`vop3p`.

use crate::inst::Instruction;
use crate::opcode::{flags, Encoding, Field, Kind};
use crate::operand::{Operand, Operands};
use crate::print::{write_dec, write_hex_signed, write_i64, write_operand, write_operand_list};
use crate::reg::RegRange;
use std::fmt::{self, Write};

/// `null`: SMEM `soffset` and FLAT `saddr` "no register".
pub(crate) const NULL: u32 = 0x7D;

/// The signed 21-bit SMEM immediate offset.
fn smem_offset(inst: &Instruction) -> i64 {
    let v = inst.bits(1, 0, 21);
    ((v << 11) as i32 >> 11) as i64
}

/// The FLAT immediate offset: unsigned 12 bits for FLAT, signed for
/// GLOBAL and SCRATCH.
fn flat_offset(inst: &Instruction) -> i64 {
    let raw = inst.bits(0, 0, 12);
    match inst.encoding() {
        Encoding::FlatGfx10 => raw as i64,
        _ => ((raw << 20) as i32 >> 20) as i64,
    }
}

/// Field values LLVM rejects that the generated bit masks cannot express:
/// GLOBAL `saddr` of `vcc_hi`, `m0` or `exec_hi` (the other registers and
/// `null` are valid).
pub(crate) fn valid(inst: &Instruction) -> bool {
    match inst.encoding() {
        Encoding::GlobalGfx10 => !matches!(inst.bits(1, 16, 7), 0x6B | 0x7C | 0x7F),
        _ => true,
    }
}

pub(crate) fn adjust_operands(inst: &Instruction, ops: &mut Operands) {
    match inst.encoding() {
        Encoding::SmemGfx10 => {
            let soff = inst.bits(1, 25, 7);
            let off = smem_offset(inst);
            for op in ops.as_mut_slice() {
                if op.spec.field != Field::Offset {
                    continue;
                }
                if soff == NULL && off != 0 {
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
            if inst.has(flags::TFE) && inst.bit(32 + 23) {
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
    let enc = inst.encoding();
    let saddr = inst.bits(1, 16, 7);
    // Loads with the `lds` bit write LDS, not a register.
    if inst.has(flags::LDS_DMA) && inst.bit(13) {
        if let Some(i) = ops.iter().position(|o| o.spec.field == Field::Vdst) {
            ops.remove(i);
        }
    }
    // Returning atomics: the table lists the return register last.
    if inst.has(flags::RTN_GLC) {
        if let Some(i) = ops.iter().position(|o| o.spec.field == Field::Vdst) {
            let op = ops[i];
            ops.remove(i);
            if inst.bit(16) {
                ops.insert(0, op);
            }
        }
    }
    for op in ops.as_mut_slice() {
        match (enc, op.spec.field) {
            (Encoding::GlobalGfx10 | Encoding::ScratchGfx10, Field::Saddr) => {
                // Scratch prints `exec_hi` (0x7F) as `off` too.
                if saddr == NULL || (saddr == 0x7F && enc == Encoding::ScratchGfx10) {
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
                let w = if saddr == NULL { 2 } else { 1 };
                op.spec.width = w;
                op.value = Operand::Reg(RegRange::vgpr(inst.bits(1, 0, 8) as u16, w));
            }
            (Encoding::ScratchGfx10, Field::Addr) => {
                if saddr == NULL {
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
    Some(match inst.encoding() {
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
    write_cpol(inst, 16, 64, 14, out)
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
    write_cpol(inst, 16, 17, 12, out)?;
    if inst.has(flags::LDS) && inst.bit(13) {
        out.write_str(" lds")?;
    }
    Ok(())
}

fn print_mubuf(inst: &Instruction, ops: &Operands, out: &mut impl Write) -> fmt::Result {
    write_operand_list(inst, ops, out)?;
    if inst.has(flags::OFFEN) && inst.bit(13) {
        out.write_str(" idxen")?;
    }
    if inst.has(flags::OFFEN) && inst.bit(12) {
        out.write_str(" offen")?;
    }
    let off = inst.bits(0, 0, 12);
    if inst.has(flags::OFFSET) && off != 0 {
        out.write_str(" offset:")?;
        write_dec(out, off)?;
    }
    write_cpol(inst, 14, 32 + 22, 15, out)?;
    if inst.has(flags::LDS) && inst.bit(16) {
        out.write_str(" lds")?;
    }
    if inst.has(flags::TFE) && inst.bit(32 + 23) {
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

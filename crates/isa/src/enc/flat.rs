//! FLAT / GLOBAL / SCRATCH: address operands depend on `saddr` (and, on
//! gfx940, the scratch SVE bit); atomics return data only with GLC (`sc0`);
//! gfx90a loads with the `lds` bit are LDS-DMA and have no destination.

use crate::inst::Instruction;
use crate::opcode::{flags, Encoding, Field, Kind};
use crate::operand::{Operand, Operands};
use crate::print::write_operand_list;
use crate::reg::RegRange;
use std::fmt::{self, Write};

/// `saddr` field value meaning "off".
pub(crate) const SADDR_OFF: u32 = 0x7F;

pub(crate) fn adjust_operands(inst: &Instruction, ops: &mut Operands) {
    let enc = inst.encoding();
    let saddr = inst.bits(1, 16, 7);
    let target = inst.target();
    // Returning atomics: the table lists the return register last.
    if inst.has(flags::RTN_GLC) {
        let rtn = ops.iter().position(|o| o.spec.field == Field::Vdst);
        if let Some(i) = rtn {
            let op = ops[i];
            ops.remove(i);
            if inst.bit(16) {
                ops.insert(0, op);
            }
        }
    }
    if inst.has(flags::LDS_DMA) && inst.bit(13) {
        if let Some(i) = ops.iter().position(|o| o.spec.field == Field::Vdst) {
            ops.remove(i);
        }
    }
    let rtn = inst.has(flags::RTN_GLC) && inst.bit(16);
    for op in ops.as_mut_slice() {
        if rtn && op.spec.field == Field::Data {
            // Returning atomics use VGPR-only (or AGPR-only) data classes.
            op.spec.mods =
                (op.spec.mods & !crate::opcode::mods::ALIGN_ACC) | crate::opcode::mods::ALIGN;
            op.spec.rc = match op.spec.width {
                2 => crate::opcode::rc_index("VReg_64_Align2"),
                3 => crate::opcode::rc_index("VReg_96_Align2"),
                4 => crate::opcode::rc_index("VReg_128_Align2"),
                _ => op.spec.rc,
            };
        }
        match (enc, op.spec.field) {
            (Encoding::Global, Field::Saddr) | (Encoding::Scratch, Field::Saddr) => {
                if saddr == SADDR_OFF {
                    op.value = Operand::Off;
                    op.spec.kind = Kind::Off;
                } else {
                    let w = if enc == Encoding::Global { 2 } else { 1 };
                    op.value = Operand::Reg(RegRange::sgpr(saddr as u16, w));
                    op.spec.kind = Kind::SReg;
                    op.spec.width = w;
                }
            }
            (Encoding::Global, Field::Addr) => {
                let w = if saddr == SADDR_OFF { 2 } else { 1 };
                op.spec.width = w;
                op.value = Operand::Reg(RegRange::vgpr(inst.bits(1, 0, 8) as u16, w));
            }
            (Encoding::Scratch, Field::Addr) => {
                let used = if target.is_gfx940() {
                    inst.bit(13)
                } else {
                    saddr == SADDR_OFF
                };
                if used {
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

/// The immediate offset (signed 13-bit for global/scratch).
pub(crate) fn offset(inst: &Instruction) -> i64 {
    let raw = inst.bits(0, 0, 13);
    match inst.encoding() {
        Encoding::Flat => raw as i64,
        _ => ((raw << 19) as i32 >> 19) as i64,
    }
}

pub(crate) fn print(inst: &Instruction, ops: &Operands, out: &mut impl Write) -> fmt::Result {
    write_operand_list(inst, ops, out)?;
    if inst.has(flags::OFFSET) {
        let off = offset(inst);
        if off != 0 {
            out.write_str(" offset:")?;
            crate::print::write_i64(out, off)?;
        }
    }
    write_cpol(inst, 16, 17, 25, out)?;
    if inst.has(flags::LDS) && inst.bit(13) {
        out.write_str(" lds")?;
    }
    Ok(())
}

/// Cache-policy bits: GLC/SLC/SCC on gfx90a, SC0/NT/SC1 on gfx940.
pub(crate) fn write_cpol(
    inst: &Instruction,
    glc: u32,
    slc: u32,
    scc: u32,
    out: &mut impl Write,
) -> fmt::Result {
    let g940 = inst.target().is_gfx940();
    if inst.has(flags::GLC) && inst.bit(glc) {
        out.write_str(if g940 { " sc0" } else { " glc" })?;
    }
    if inst.has(flags::SLC) && inst.bit(slc) {
        out.write_str(if g940 { " nt" } else { " slc" })?;
    }
    if inst.has(flags::SCC) && inst.bit(scc) {
        out.write_str(if g940 { " sc1" } else { " scc" })?;
    }
    Ok(())
}

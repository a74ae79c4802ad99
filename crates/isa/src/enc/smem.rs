//! SMEM (scalar memory): the offset operand is an immediate, a register, or
//! both, depending on the `imm` (bit 17) and `soe` (bit 14) bits.

use crate::inst::Instruction;
use crate::opcode::{flags, Field, Kind};
use crate::operand::{Operand, Operands};
use crate::print::write_hex_signed;
use crate::reg::RegRange;
use std::fmt::{self, Write};

/// `imm` bit: the 21-bit offset field is an immediate.
pub(crate) fn imm(inst: &Instruction) -> bool {
    inst.bit(17)
}

/// `soe` bit: the `soffset` register field is used.
pub(crate) fn soe(inst: &Instruction) -> bool {
    inst.bit(14)
}

/// The signed 21-bit immediate offset.
pub(crate) fn imm_offset(inst: &Instruction) -> i64 {
    let v = inst.bits(1, 0, 21);
    ((v << 11) as i32 >> 11) as i64
}

pub(crate) fn adjust_operands(inst: &Instruction, ops: &mut Operands) {
    let (imm, soe) = (imm(inst), soe(inst));
    for op in ops.as_mut_slice() {
        if op.spec.field != Field::Offset {
            continue;
        }
        op.value = match (imm, soe) {
            (true, false) => Operand::Imm(imm_offset(inst)),
            (false, false) => Operand::Reg(RegRange::sgpr(inst.bits(1, 0, 7) as u16, 1)),
            (_, true) => Operand::Reg(RegRange::sgpr(inst.bits(1, 25, 7) as u16, 1)),
        };
        op.spec.kind = if matches!(op.value, Operand::Imm(_)) {
            Kind::SmemOffset
        } else {
            Kind::SReg
        };
        op.spec.width = if op.spec.kind == Kind::SReg { 1 } else { 0 };
    }
}

pub(crate) fn print(inst: &Instruction, ops: &Operands, out: &mut impl Write) -> fmt::Result {
    // The immediate offset prints in signed hex; registers as usual.
    let mut first = true;
    for op in ops.iter() {
        out.write_str(if first { " " } else { ", " })?;
        first = false;
        if let (Kind::SmemOffset, Operand::Imm(v)) = (op.spec.kind, op.value) {
            write_hex_signed(out, v)?;
        } else {
            crate::print::write_operand(inst, op, out)?;
        }
    }
    if imm(inst) && soe(inst) {
        out.write_str(" offset:")?;
        write_hex_signed(out, imm_offset(inst))?;
    }
    if inst.has(flags::GLC) && inst.bit(16) {
        out.write_str(" glc")?;
    }
    Ok(())
}

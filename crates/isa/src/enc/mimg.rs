//! MIMG (gfx90a only): data width from `dmask`/`d16`/`tfe`, and the long
//! list of image modifiers.

use crate::inst::Instruction;
use crate::opcode::{flags, Field};
use crate::operand::{Operand, Operands};
use crate::reg::RegRange;
use std::fmt::{self, Write};

pub(crate) fn dmask(inst: &Instruction) -> u32 {
    inst.bits(0, 8, 4)
}

pub(crate) fn adjust_operands(inst: &Instruction, ops: &mut Operands) {
    if !inst.has(flags::DMASK) || inst.has(flags::ATOMIC) {
        return;
    }
    let mut n = (dmask(inst).count_ones() as u8).max(1);
    if inst.has(flags::D16) && inst.bit(63) {
        n = n.div_ceil(2);
    }
    if inst.bit(16) && inst.has(flags::TFE) {
        n += 1;
    }
    for op in ops.as_mut_slice() {
        if op.spec.field == Field::Vdata {
            op.spec.width = n;
            if let Operand::Reg(r) = op.value {
                op.value = Operand::Reg(RegRange { count: n, ..r });
            }
        }
    }
}

pub(crate) fn print(inst: &Instruction, out: &mut impl Write) -> fmt::Result {
    let ops = inst.operands();
    crate::print::write_operand_list(inst, &ops, out)?;
    let dm = dmask(inst);
    if inst.has(flags::DMASK) && dm != 0 {
        out.write_str(" dmask:")?;
        crate::print::write_hex(out, dm as u64)?;
    }
    if inst.has(flags::UNORM) && inst.bit(12) {
        out.write_str(" unorm")?;
    }
    super::flat::write_cpol(inst, 13, 25, 0, out)?;
    if inst.has(flags::A16) && inst.bit(15) {
        out.write_str(" a16")?;
    }
    if inst.has(flags::TFE) && inst.bit(16) {
        out.write_str(" tfe")?;
    }
    if inst.has(flags::LWE) && inst.bit(17) {
        out.write_str(" lwe")?;
    }
    if inst.has(flags::DA) && inst.bit(14) {
        out.write_str(" da")?;
    }
    if inst.has(flags::D16) && inst.bit(63) {
        out.write_str(" d16")?;
    }
    Ok(())
}

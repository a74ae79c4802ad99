//! MIMG (not on the GFX940 family): data width from `dmask`/`d16`/`tfe`, and the long
//! list of image modifiers.

use crate::generated::gfx9 as gen;
use crate::inst::Instruction;
use crate::opcode::{flags, Field};
use crate::operand::{Operand, Operands};
use crate::reg::RegRange;
use std::fmt::{self, Write};

pub(crate) fn dmask(inst: &Instruction) -> u32 {
    inst.bits(0, 8, 4)
}

/// vdata width LLVM decodes for this dmask/d16 (from the generated table),
/// or `None` if that combination is not decodable.
pub(crate) fn vdata_width(inst: &Instruction) -> Option<u8> {
    let key = dmask(inst) as usize | (inst.bit(63) as usize) << 4;
    let table = widths(inst)?;
    let w = *table.get(key)?;
    if w == 0 {
        return None;
    }
    // Before gfx90a bit 16 is `tfe`: one more dword (the fail status).
    if !inst.bit(16) || inst.target().needs_aligned_vgprs() {
        return Some(w);
    }
    if !inst.info().name().contains("atomic") {
        return Some(w + 1);
    }
    // Atomics have variants only for the widths the table lists; LLVM
    // keeps the opcode's own form (and so does a dmask whose width the
    // table already shows as that form) when there is none.
    let own = table[1].max(1);
    if w as u32 != dmask(inst).count_ones().max(1) {
        return Some(w);
    }
    Some(if table.contains(&(w + 1)) { w + 1 } else { own })
}

fn widths(inst: &Instruction) -> Option<&'static [u8; 32]> {
    gen::MIMG_WIDTHS
        .iter()
        .find(|(i, _)| *i == inst.opcode().index())
        .map(|(_, w)| w)
}

pub(crate) fn adjust_operands(inst: &Instruction, ops: &mut Operands) {
    let Some(mut n) = vdata_width(inst) else {
        return;
    };
    for op in ops.as_mut_slice() {
        if op.spec.field == Field::Vdata {
            if let Operand::Reg(r) = op.value {
                // LLVM keeps the opcode's own form (its single-channel
                // width) when the wider tuple would be misaligned or run past
                // the register file.
                let odd = r.first % 2 != 0 && inst.target().needs_aligned_vgprs();
                if n >= 2 && (odd || r.first as u32 + n as u32 > 256) {
                    n = widths(inst).map(|w| w[1]).unwrap_or(1).max(1);
                    if n >= 2 {
                        op.spec.mods |= crate::opcode::mods::ALIGN | crate::opcode::mods::ALIGN_ACC;
                        op.spec.rc = match n {
                            2 => crate::opcode::rc_index("AV_64_Align2"),
                            _ => crate::opcode::rc_index("AV_128_Align2"),
                        };
                    }
                }
                op.spec.width = n;
                op.value = Operand::Reg(RegRange { count: n, ..r });
            }
        }
    }
}

pub(crate) fn print(inst: &Instruction, ops: &Operands, out: &mut impl Write) -> fmt::Result {
    crate::print::write_operand_list(inst, ops, out)?;
    let dm = dmask(inst);
    if inst.has(flags::DMASK) && dm != 0 {
        out.write_str(" dmask:")?;
        crate::print::write_hex(out, dm as u64)?;
    }
    if inst.has(flags::UNORM) && inst.bit(12) {
        out.write_str(" unorm")?;
    }
    super::flat::write_cpol(inst, 13, 25, 7, out)?;
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

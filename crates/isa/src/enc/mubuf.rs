//! MUBUF / MTBUF: the `vaddr` operand depends on `offen`/`idxen`, MTBUF
//! prints its data/number format after `soffset`, gfx90a loads with `lds`
//! are LDS-DMA (no data register).

use crate::generated::gfx9 as gen;
use crate::inst::Instruction;
use crate::opcode::{flags, Encoding, Field, Kind};
use crate::operand::{Operand, Operands};
use crate::print::write_dec;
use crate::reg::RegRange;
use std::fmt::{self, Write};

/// `offen` bit (word 1 on GFX11).
pub(crate) fn offen(inst: &Instruction) -> bool {
    match inst.encoding() {
        Encoding::MubufGfx11 => inst.bit(32 + 22),
        _ => inst.bit(12),
    }
}
/// `idxen` bit.
pub(crate) fn idxen(inst: &Instruction) -> bool {
    match inst.encoding() {
        Encoding::MubufGfx11 => inst.bit(32 + 23),
        _ => inst.bit(13),
    }
}

pub(crate) fn adjust_operands(inst: &Instruction, ops: &mut Operands) {
    let n = offen(inst) as u8 + idxen(inst) as u8;
    for op in ops.as_mut_slice() {
        if op.spec.kind == Kind::Off || op.spec.field == Field::Vaddr {
            op.spec.field = Field::Vaddr;
            if n == 0 {
                op.spec.kind = Kind::Off;
                op.value = Operand::Off;
            } else {
                op.spec.kind = Kind::VReg;
                op.spec.width = n;
                if n == 2 && inst.encoding() == Encoding::Mubuf {
                    // idxen+offen: an aligned VGPR pair.
                    op.spec.mods |= crate::opcode::mods::ALIGN;
                    op.spec.rc = crate::opcode::rc_index("VReg_64_Align2");
                }
                op.value = Operand::Reg(RegRange::vgpr(inst.bits(1, 0, 8) as u16, n));
            }
        }
    }
    if matches!(
        inst.encoding(),
        Encoding::Mubuf | Encoding::MubufGfx10 | Encoding::MubufGfx11
    ) && inst.has(flags::LDS_DMA)
        && inst.bit(16)
    {
        if let Some(i) = ops.iter().position(|o| o.spec.field == Field::Vdata) {
            ops.remove(i);
        }
    }
}

pub(crate) fn print(inst: &Instruction, ops: &Operands, out: &mut impl Write) -> fmt::Result {
    crate::print::write_operand_list(inst, ops, out)?;
    let mtbuf = inst.encoding() == Encoding::Mtbuf;
    if mtbuf {
        let fmt = inst.bits(0, 19, 7);
        let text = gen::MTBUF_FORMAT
            .get(inst.target().index())
            .and_then(|t| t.get(fmt as usize))
            .map(|&p| crate::generated::text(p))
            .unwrap_or("");
        if !text.is_empty() {
            out.write_char(' ')?;
            out.write_str(text)?;
        }
    }
    if inst.has(flags::OFFEN) && idxen(inst) {
        out.write_str(" idxen")?;
    }
    if inst.has(flags::OFFEN) && offen(inst) {
        out.write_str(" offen")?;
    }
    let off = inst.bits(0, 0, 12);
    if inst.has(flags::OFFSET) && off != 0 {
        out.write_str(" offset:")?;
        write_dec(out, off)?;
    }
    if mtbuf {
        super::flat::write_cpol(inst, 14, 32 + 22, 32 + 21, out)?;
    } else {
        super::flat::write_cpol(inst, 14, 17, 15, out)?;
        if inst.has(flags::LDS) && inst.bit(16) {
            out.write_str(" lds")?;
        }
    }
    Ok(())
}

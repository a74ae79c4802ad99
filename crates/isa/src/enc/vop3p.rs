//! VOP3P (packed math, `v_fma_mix*`, `v_dot*`, `v_accvgpr_read/write`) and
//! the MAI matrix ops sharing its opcode space (`v_mfma_*`, `v_smfmac_*`).

use crate::inst::Instruction;
use crate::opcode::flags;
use std::fmt::{self, Write};

fn list(out: &mut impl Write, name: &str, bits: [u32; 3], n: usize) -> fmt::Result {
    out.write_str(name)?;
    for (i, b) in bits.iter().take(n).enumerate() {
        if i > 0 {
            out.write_char(',')?;
        }
        out.write_char(if *b != 0 { '1' } else { '0' })?;
    }
    out.write_char(']')
}

/// VOP3P `op_sel` bits per source.
pub(crate) fn op_sel(inst: &Instruction) -> [u32; 3] {
    let s = inst.bits(0, 11, 3);
    [s & 1, s >> 1 & 1, s >> 2 & 1]
}

/// VOP3P `op_sel_hi` bits per source.
pub(crate) fn op_sel_hi(inst: &Instruction) -> [u32; 3] {
    [
        inst.bit(59) as u32,
        inst.bit(60) as u32,
        inst.bit(14) as u32,
    ]
}

/// VOP3P `neg_lo` bits per source.
pub(crate) fn neg_lo(inst: &Instruction) -> [u32; 3] {
    [
        inst.bit(61) as u32,
        inst.bit(62) as u32,
        inst.bit(63) as u32,
    ]
}

/// VOP3P `neg_hi` bits per source.
pub(crate) fn neg_hi(inst: &Instruction) -> [u32; 3] {
    [inst.bit(8) as u32, inst.bit(9) as u32, inst.bit(10) as u32]
}

pub(crate) fn print_mods(inst: &Instruction, out: &mut impl Write) -> fmt::Result {
    let n = super::vop::num_srcs(inst);
    let packed = inst.has(flags::PACKED);
    if inst.has(flags::OP_SEL) {
        let b = op_sel(inst);
        if b.iter().take(n).any(|&x| x != 0) {
            list(out, " op_sel:[", b, n)?;
        }
    }
    if inst.has(flags::OP_SEL_HI) {
        let b = op_sel_hi(inst);
        let default = packed as u32;
        if b.iter().take(n).any(|&x| x != default) {
            list(out, " op_sel_hi:[", b, n)?;
        }
    }
    if inst.has(flags::NEG_LO) {
        let b = neg_lo(inst);
        if b.iter().take(n).any(|&x| x != 0) {
            list(out, " neg_lo:[", b, n)?;
        }
    }
    if inst.has(flags::NEG_HI) {
        let b = neg_hi(inst);
        if b.iter().take(n).any(|&x| x != 0) {
            list(out, " neg_hi:[", b, n)?;
        }
    }
    if inst.has(flags::CLAMP) && inst.bit(15) {
        out.write_str(" clamp")?;
    }
    Ok(())
}

/// gfx950 `v_mfma_*_f8f6f4`: the A and B tuples are as wide as their
/// formats need (`cbsz` for A, `blgp` for B: fp8/bf8 8 VGPRs, fp6/bf6 6,
/// fp4 4; the reserved values 5-7 keep 8).
pub(crate) fn adjust_mai_operands(inst: &Instruction, ops: &mut crate::operand::Operands) {
    if !inst.info().name().ends_with("_f8f6f4") {
        return;
    }
    let width = |fmt: u32| match fmt {
        2 | 3 => 6,
        4 => 4,
        _ => 8,
    };
    for op in ops.as_mut_slice() {
        let n = match op.spec.field {
            crate::opcode::Field::Src0 => width(inst.bits(0, 8, 3)),
            crate::opcode::Field::Src1 => width(inst.bits(1, 29, 3)),
            _ => continue,
        };
        if let crate::operand::Operand::Reg(r) = op.value {
            op.spec.width = n;
            op.value = crate::operand::Operand::Reg(crate::reg::RegRange { count: n, ..r });
        }
    }
}

pub(crate) fn print_mai_mods(inst: &Instruction, out: &mut impl Write) -> fmt::Result {
    let cbsz = inst.bits(0, 8, 3);
    let abid = inst.bits(0, 11, 4);
    let blgp = inst.bits(1, 29, 3);
    if inst.has(flags::CBSZ) && cbsz != 0 {
        out.write_str(" cbsz:")?;
        crate::reg::write_u32(out, cbsz)?;
    }
    if inst.has(flags::ABID) && abid != 0 {
        out.write_str(" abid:")?;
        crate::reg::write_u32(out, abid)?;
    }
    if blgp != 0 {
        if inst.has(flags::BLGP_NEG) {
            list(out, " neg:[", [blgp & 1, blgp >> 1 & 1, blgp >> 2 & 1], 3)?;
        } else if inst.has(flags::BLGP) {
            out.write_str(" blgp:")?;
            crate::reg::write_u32(out, blgp)?;
        }
    }
    Ok(())
}

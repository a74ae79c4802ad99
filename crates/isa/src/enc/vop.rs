//! VOP1/VOP2/VOPC (32-bit forms) and VOP3 (64-bit forms, VOP3a/VOP3b):
//! operands come from the generated tables; this prints the VOP3 trailing
//! modifiers (`op_sel`, `clamp`, `omod`).

use crate::inst::Instruction;
use crate::opcode::{flags, Field};
use std::fmt::{self, Write};

/// Number of source operands (src0..src2) the opcode prints.
pub(crate) fn num_srcs(inst: &Instruction) -> usize {
    inst.info()
        .operands()
        .iter()
        .filter(|o| {
            matches!(
                o.field,
                Field::Src0 | Field::Src1 | Field::Src2 | Field::Vsrc1
            )
        })
        .count()
}

/// VOP3 output modifier (`omod`, bits 60:59).
pub(crate) fn omod(inst: &Instruction) -> u32 {
    inst.bits(1, 27, 2)
}

pub(crate) fn write_omod(v: u32, out: &mut impl Write) -> fmt::Result {
    match v {
        1 => out.write_str(" mul:2"),
        2 => out.write_str(" mul:4"),
        3 => out.write_str(" div:2"),
        _ => Ok(()),
    }
}

pub(crate) fn print_vop3_mods(inst: &Instruction, out: &mut impl Write) -> fmt::Result {
    // The fp8/bf8 conversions' `byte_sel` takes two op_sel bits; VOP3 DPP
    // prints it before `clamp` (D61).
    let (byte_sel, byte_bits) = if inst.has(flags::BYTE_SEL_LO) {
        (inst.bits(0, 12, 1) | inst.bits(0, 11, 1) << 1, 0b0011)
    } else if inst.has(flags::BYTE_SEL_HI) {
        (inst.bits(0, 13, 2), 0b1100)
    } else {
        (0, 0)
    };
    let dpp = matches!(
        inst.encoding(),
        crate::opcode::Encoding::Vop3Dpp
            | crate::opcode::Encoding::Vop3Dpp8
            | crate::opcode::Encoding::Vop3DppF16
            | crate::opcode::Encoding::Vop3Dpp8F16
    );
    if dpp {
        // VOP3 DPP prints `bitop3:` before `op_sel` (D61).
        write_bitop3(inst, out)?;
    }
    if inst.has(flags::OP_SEL) {
        // Sources, then the destination bit (bit 3 of the field).
        let n = match inst.flags() & flags::OPSEL_N_MASK {
            flags::OPSEL_N4 => 3,
            flags::OPSEL_N3 => 2,
            flags::OPSEL_N2 => 1,
            _ => num_srcs(inst),
        };
        let mut sel = inst.bits(0, 11, 4) & if dpp { !byte_bits } else { 0xF };
        // VOP3 DPP (D71) and GFX11's VOP3 (D79): bits 0-1 some opcodes do
        // not print; a list of sources only (GFX11's VOPC, `v_cmpx`,
        // `v_permlane*`), its last entry src1's bit. (The flags reuse
        // SDWA-only bits, which no VOP3 row has.)
        if inst.has(flags::OPSEL_SKIP01) {
            sel &= !3;
        }
        let last = if inst.has(flags::OPSEL_NO_DST) { n } else { 3 };
        if sel & (((1 << n) - 1) | 1 << last) != 0 {
            out.write_str(" op_sel:[")?;
            for i in 0..n {
                out.write_char(if sel >> i & 1 != 0 { '1' } else { '0' })?;
                out.write_char(',')?;
            }
            out.write_char(if sel >> last & 1 != 0 { '1' } else { '0' })?;
            out.write_char(']')?;
        }
    }
    if !dpp {
        write_bitop3(inst, out)?;
    }
    if dpp {
        write_byte_sel(byte_sel, out)?;
    }
    if inst.has(flags::CLAMP) && inst.bit(15) {
        out.write_str(" clamp")?;
    }
    if inst.has(flags::OMOD) {
        write_omod(omod(inst), out)?;
    }
    if !dpp {
        write_byte_sel(byte_sel, out)?;
    }
    Ok(())
}

fn write_bitop3(inst: &Instruction, out: &mut impl Write) -> fmt::Result {
    if inst.has(flags::BITOP3) {
        let v = inst.bits(1, 29, 3) | inst.bits(0, 8, 3) << 3 | inst.bits(1, 27, 2) << 6;
        if v != 0 {
            // LLVM prints up to 10 in decimal, larger values in hex.
            out.write_str(" bitop3:")?;
            if v <= 10 {
                crate::print::write_u64(out, v as u64)?;
            } else {
                crate::print::write_hex(out, v as u64)?;
            }
        }
    }
    Ok(())
}

fn write_byte_sel(v: u32, out: &mut impl Write) -> fmt::Result {
    if v != 0 {
        out.write_str(" byte_sel:")?;
        out.write_char(char::from(b'0' + v as u8))?;
    }
    Ok(())
}

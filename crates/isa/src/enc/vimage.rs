//! GFX12 VIMAGE and VSAMPLE (D72): 96-bit image words. The address
//! operands are a list of up to five VGPR fields (`[v4, v5, v[6:8]]`; one
//! field prints without brackets) whose widths depend on the opcode, `dim`
//! and `a16`; the data width on `dmask`, `d16`, `tfe` and `lwe`. Both come
//! from the generated `VIMAGE` table (probed per opcode, `gen/vimage.py`),
//! including LLVM's "raw" form: a width or address count no variant of the
//! opcode has leaves the word in the decoder's default layout.

use crate::generated::gfx9 as gen;
use crate::inst::Instruction;
use crate::opcode::{flags, Encoding, Field, Kind};
use crate::operand::{Op, Operand, Operands};
use crate::print::{write_hex, write_operand};
use crate::reg::RegRange;
use std::fmt::{self, Write};

/// An unused address field that must be zero.
const MUST_ZERO: u8 = 0x40;
/// LLVM keeps the raw form (on a data width, or on field 0 of a layout).
const RAW: u8 = 0x80;

/// The address fields in list order.
const ADDR: [Field; 5] = [
    Field::Vaddr,
    Field::Vaddr1,
    Field::Vaddr2,
    Field::Vaddr3,
    Field::Vaddr4,
];

/// `dim:` names (LLVM's `SQ_RSRC_IMG_*`).
pub(crate) const DIM: [&str; 8] = [
    "1D",
    "2D",
    "3D",
    "CUBE",
    "1D_ARRAY",
    "2D_ARRAY",
    "2D_MSAA",
    "2D_MSAA_ARRAY",
];

fn row(inst: &Instruction) -> Option<&'static gen::VimageRow> {
    let i = inst.opcode().index();
    gen::VIMAGE
        .binary_search_by_key(&i, |r| r.0)
        .ok()
        .map(|k| &gen::VIMAGE[k])
}

fn vsample(inst: &Instruction) -> bool {
    inst.encoding() == Encoding::VsampleGfx12
}

/// `tfe` (VIMAGE word 1 bit 23, VSAMPLE word 0 bit 3).
fn tfe(inst: &Instruction) -> bool {
    if vsample(inst) {
        inst.bit(3)
    } else {
        inst.bit(32 + 23)
    }
}

/// VSAMPLE `lwe` (word 1 bit 8).
fn lwe(inst: &Instruction) -> bool {
    vsample(inst) && inst.bit(32 + 8)
}

/// The raw value of address field `i`.
fn addr_field(inst: &Instruction, i: usize) -> u32 {
    match i {
        0..=3 => inst.bits(2, 8 * i as u8, 8),
        _ if vsample(inst) => 0,
        _ => inst.bits(1, 24, 8),
    }
}

/// The decoded form: each address field's width (0: unused) and the data
/// width; `None` if LLVM rejects the word.
pub(crate) fn form(inst: &Instruction) -> Option<([u8; 5], u8)> {
    let (_, addr, widths, raw_width) = row(inst)?;
    let key = inst.bits(0, 22, 4)
        | (inst.bit(5) as u32) << 4
        | (tfe(inst) as u32) << 5
        | (lwe(inst) as u32) << 6;
    let w = widths[key as usize];
    let ent = addr[(inst.bits(0, 0, 3) | (inst.bit(6) as u32) << 3) as usize];
    if w == 0 || ent[0] & 0x3F == 0 {
        return None;
    }
    for (i, &f) in ent.iter().enumerate() {
        if f & MUST_ZERO != 0 && addr_field(inst, i) != 0 {
            return None;
        }
    }
    let raw = w & RAW != 0 || ent[0] & RAW != 0;
    let (lay, data) = if raw {
        (addr[16], *raw_width)
    } else {
        (ent, w & 0x3F)
    };
    Some((lay.map(|f| f & 0x3F), data))
}

pub(crate) fn adjust_operands(inst: &Instruction, ops: &mut Operands) {
    if let Some((lay, data)) = form(inst) {
        set_operands(ops, lay, data, |i| addr_field(inst, i));
    }
}

/// Sets vdata's width to `data` and inserts one VGPR operand per used
/// address field of `lay` after `Vaddr` (whose raw value `addr(i)` gives);
/// GFX10/11 MIMG too (D81).
pub(crate) fn set_operands(
    ops: &mut Operands,
    lay: [u8; 5],
    data: u8,
    addr: impl Fn(usize) -> u32,
) {
    let mut at = None;
    for (i, op) in ops.as_mut_slice().iter_mut().enumerate() {
        match op.spec.field {
            Field::Vdata => {
                if let Operand::Reg(r) = op.value {
                    op.spec.width = data;
                    op.value = Operand::Reg(RegRange { count: data, ..r });
                }
            }
            Field::Vaddr => {
                op.spec.width = lay[0];
                op.spec.kind = Kind::VReg;
                op.value = Operand::Reg(RegRange::vgpr(addr(0) as u16, lay[0]));
                at = Some(i);
            }
            _ => {}
        }
    }
    let Some(at) = at else {
        return;
    };
    let base = ops.as_slice()[at];
    for i in (1..5).rev() {
        if lay[i] == 0 {
            continue;
        }
        let mut spec = base.spec;
        spec.field = ADDR[i];
        spec.width = lay[i];
        spec.pos = [0, 0, 0];
        let value = Operand::Reg(RegRange::vgpr(addr(i) as u16, lay[i]));
        ops.insert(at + 1, Op::new(value, spec));
    }
}

fn is_addr(f: Field) -> bool {
    ADDR.contains(&f)
}

/// The text after the mnemonic.
pub(crate) fn print(inst: &Instruction, ops: &Operands, out: &mut impl Write) -> fmt::Result {
    write_operands(inst, ops, out)?;
    write_mods(inst, out)
}

/// The operands, consecutive address fields as one list (`[v4, v[5:6]]`);
/// GFX10/11 MIMG too (D81).
pub(crate) fn write_operands(
    inst: &Instruction,
    ops: &Operands,
    out: &mut impl Write,
) -> fmt::Result {
    let ops = ops.as_slice();
    let mut i = 0;
    while i < ops.len() {
        out.write_str(if i == 0 { " " } else { ", " })?;
        if is_addr(ops[i].spec.field) {
            let n = ops[i..]
                .iter()
                .take_while(|o| is_addr(o.spec.field))
                .count();
            if n > 1 {
                out.write_char('[')?;
            }
            for (k, op) in ops[i..i + n].iter().enumerate() {
                if k > 0 {
                    out.write_str(", ")?;
                }
                write_operand(inst, op, out)?;
            }
            if n > 1 {
                out.write_char(']')?;
            }
            i += n;
            continue;
        }
        write_operand(inst, &ops[i], out)?;
        i += 1;
    }
    Ok(())
}

fn write_mods(inst: &Instruction, out: &mut impl Write) -> fmt::Result {
    let dmask = inst.bits(0, 22, 4);
    if inst.has(flags::DMASK) && dmask != 0 {
        out.write_str(" dmask:")?;
        write_hex(out, dmask as u64)?;
    }
    if inst.has(flags::IMG_DIM) {
        out.write_str(" dim:SQ_RSRC_IMG_")?;
        out.write_str(DIM[inst.bits(0, 0, 3) as usize])?;
    }
    if inst.has(flags::IMG_UNORM) && inst.bit(13) {
        out.write_str(" unorm")?;
    }
    super::gfx12::write_policy(inst, out)?;
    if inst.has(flags::IMG_R128) && inst.bit(4) {
        out.write_str(" r128")?;
    }
    if inst.has(flags::A16) && inst.bit(6) {
        out.write_str(" a16")?;
    }
    if inst.has(flags::TFE) && tfe(inst) {
        out.write_str(" tfe")?;
    }
    if inst.has(flags::IMG_LWE) && lwe(inst) {
        out.write_str(" lwe")?;
    }
    if inst.has(flags::D16) && inst.bit(5) {
        out.write_str(" d16")?;
    }
    Ok(())
}

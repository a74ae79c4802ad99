//! The GFX12 (RDNA4) memory encodings: SMEM, VFLAT/VGLOBAL/VSCRATCH and
//! VBUFFER (D39). The VMEM ones are 96 bits, with the address register and
//! a 24-bit offset in word 2. Their cache policy is `th` (temporal hint,
//! 3 bits) and `scope` (2 bits) instead of glc/slc/dlc; the texts LLVM
//! prints for each value are probed per column (`gen::CPOL`), for loads,
//! stores and atomics (the opcode's `TH_STORE`/`TH_ATOMIC` flag says which).

use crate::generated::gfx9 as gen;
use crate::inst::Instruction;
use crate::opcode::{flags, Access, Encoding, Field, Kind};
use crate::operand::{Operand, Operands};
use crate::print::{write_dec, write_hex_signed, write_i64, write_operand, write_operand_list};
use crate::reg::RegRange;
use std::fmt::{self, Write};

/// `null` in `saddr`/`soffset` (as on GFX11).
pub(crate) const NULL: u32 = 0x7C;

/// Bit positions (from bit 0 of word 0) of an encoding's policy bits.
struct Bits {
    /// Low bit of `th`, and its width.
    th: u32,
    th_width: u8,
    scope: u32,
    nv: u32,
    scale_offset: u32,
}

const fn bits_of(enc: Encoding) -> Bits {
    match enc {
        Encoding::SmemGfx12 => Bits {
            th: 23,
            th_width: 2,
            scope: 21,
            nv: 20,
            scale_offset: 32 + 24,
        },
        // VBUFFER has no scale_offset bit (64: none).
        Encoding::MubufGfx12 => Bits {
            th: 32 + 20,
            th_width: 3,
            scope: 32 + 18,
            nv: 7,
            scale_offset: 96,
        },
        _ => Bits {
            th: 32 + 20,
            th_width: 3,
            scope: 32 + 18,
            nv: 7,
            scale_offset: 32 + 16,
        },
    }
}

fn field(inst: &Instruction, lo: u32, width: u8) -> u32 {
    inst.bits((lo / 32) as usize, (lo % 32) as u8, width)
}

/// The `th` value.
pub(crate) fn th(inst: &Instruction) -> u32 {
    let b = bits_of(inst.encoding());
    field(inst, b.th, b.th_width)
}

/// The `scope` value (0: CU, 1: SE, 2: DEV, 3: SYS).
pub(crate) fn scope(inst: &Instruction) -> u32 {
    field(inst, bits_of(inst.encoding()).scope, 2)
}

/// The signed 24-bit offset of word 2 (VMEM) or word 1 (SMEM).
fn offset(inst: &Instruction) -> i64 {
    let v = match inst.encoding() {
        Encoding::SmemGfx12 => inst.bits(1, 0, 24),
        _ => inst.bits(2, 8, 24),
    };
    ((v << 8) as i32 >> 8) as i64
}

/// Field values LLVM rejects that the generated bit masks cannot express:
/// VGLOBAL `saddr` of `vcc_hi`, `m0` or `exec_hi`, and a VBUFFER offset
/// with its sign bit set (the probes find bit 95 invalid for every
/// VBUFFER opcode; the tables hold masks of words 0 and 1 only).
pub(crate) fn valid(inst: &Instruction) -> bool {
    match inst.encoding() {
        Encoding::GlobalGfx12 => !matches!(inst.bits(0, 0, 7), 0x6B | 0x7D | 0x7F),
        // GFX12.5's VFLAT `saddr` (D54); elsewhere the masks keep it `null`.
        Encoding::FlatGfx12 => !matches!(inst.bits(0, 0, 7), 0x6B | 0x7D | 0x7F),
        Encoding::MubufGfx12 => !inst.bit(95),
        Encoding::VimageGfx12 | Encoding::VsampleGfx12 => super::vimage::form(inst).is_some(),
        Encoding::MimgGfx10 | Encoding::MimgHiGfx10 | Encoding::MimgGfx11 => {
            super::mimg10::form(inst).is_some()
        }
        _ => true,
    }
}

pub(crate) fn adjust_operands(inst: &Instruction, ops: &mut Operands) {
    match inst.encoding() {
        Encoding::SmemGfx12 => {
            let soff = inst.bits(1, 25, 7);
            for op in ops.as_mut_slice() {
                if op.spec.field != Field::Offset {
                    continue;
                }
                if soff == NULL {
                    op.value = Operand::Imm(offset(inst));
                    op.spec.kind = Kind::SmemOffset;
                    op.spec.width = 0;
                } else {
                    op.value = Operand::Reg(RegRange::sgpr(soff as u16, 1));
                    op.spec.kind = Kind::SReg;
                    op.spec.width = 1;
                }
            }
        }
        Encoding::MubufGfx12 => adjust_buffer(inst, ops),
        Encoding::VimageGfx12 | Encoding::VsampleGfx12 => super::vimage::adjust_operands(inst, ops),
        Encoding::MimgGfx10 | Encoding::MimgHiGfx10 | Encoding::MimgGfx11 => {
            super::mimg10::adjust_operands(inst, ops)
        }
        Encoding::FlatGfx12 | Encoding::GlobalGfx12 | Encoding::ScratchGfx12 => {
            adjust_flat(inst, ops)
        }
        _ => {}
    }
}

/// Returning atomics: bit 0 of `th` (`TH_ATOMIC_RETURN`) adds the
/// destination, which the table lists last; it prints first.
fn adjust_return(inst: &Instruction, ops: &mut Operands, dst: Field) {
    if !inst.has(flags::RTN_GLC) {
        return;
    }
    if let Some(i) = ops
        .iter()
        .position(|o| o.spec.field == dst && o.spec.access != Access::R)
    {
        let op = ops[i];
        ops.remove(i);
        if th(inst) & 1 != 0 {
            ops.insert(0, op);
        }
    }
}

fn adjust_flat(inst: &Instruction, ops: &mut Operands) {
    adjust_return(inst, ops, Field::Vdst);
    let enc = inst.encoding();
    let saddr = inst.bits(0, 0, 7);
    // GFX12.5 VFLAT rows list `saddr` (D54); `null` is not printed.
    let flat_saddr = enc == Encoding::FlatGfx12 && inst.target().is_gfx1250();
    for op in ops.as_mut_slice() {
        match (enc, op.spec.field) {
            (Encoding::FlatGfx12, Field::Saddr) => {
                if saddr == NULL {
                    op.value = Operand::Off;
                    op.spec.kind = Kind::Off;
                } else {
                    op.value = Operand::Reg(RegRange::sgpr(saddr as u16, 2));
                    op.spec.kind = Kind::SReg;
                    op.spec.width = 2;
                }
            }
            (Encoding::FlatGfx12, Field::Addr) if flat_saddr && saddr != NULL => {
                op.spec.width = 1;
                op.value = Operand::Reg(RegRange::vgpr(inst.bits(2, 0, 8) as u16, 1));
            }
            (Encoding::GlobalGfx12 | Encoding::ScratchGfx12, Field::Saddr) => {
                if saddr == NULL {
                    op.value = Operand::Off;
                    op.spec.kind = Kind::Off;
                } else {
                    let w = if enc == Encoding::GlobalGfx12 { 2 } else { 1 };
                    op.value = Operand::Reg(RegRange::sgpr(saddr as u16, w));
                    op.spec.kind = Kind::SReg;
                    op.spec.width = w;
                }
            }
            (Encoding::GlobalGfx12, Field::Addr) => {
                let w = if saddr == NULL { 2 } else { 1 };
                op.spec.width = w;
                op.value = Operand::Reg(RegRange::vgpr(inst.bits(2, 0, 8) as u16, w));
            }
            (Encoding::ScratchGfx12, Field::Addr) => {
                if inst.bit(32 + 17) {
                    op.value = Operand::Reg(RegRange::vgpr(inst.bits(2, 0, 8) as u16, 1));
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

fn adjust_buffer(inst: &Instruction, ops: &mut Operands) {
    let (offen, idxen) = (inst.bit(32 + 30), inst.bit(32 + 31));
    let n = offen as u8 + idxen as u8;
    adjust_return(inst, ops, Field::Vdata);
    for op in ops.as_mut_slice() {
        if op.spec.kind == Kind::Off || op.spec.field == Field::Vaddr {
            op.spec.field = Field::Vaddr;
            if n == 0 {
                op.spec.kind = Kind::Off;
                op.value = Operand::Off;
            } else {
                op.spec.kind = Kind::VReg;
                op.spec.width = n;
                op.value = Operand::Reg(RegRange::vgpr(inst.bits(2, 0, 8) as u16, n));
            }
        }
    }
    // `tfe` loads write one more register (the fault status).
    if inst.has(flags::TFE) && inst.bit(22) {
        for op in ops.as_mut_slice() {
            if op.spec.field == Field::Vdata && op.spec.access != Access::R {
                if let Operand::Reg(r) = op.value {
                    op.spec.width += 1;
                    op.value = Operand::Reg(RegRange::vgpr(r.first, r.count + 1));
                }
            }
        }
    }
}

/// The text after the mnemonic.
pub(crate) fn print(inst: &Instruction, ops: &Operands, out: &mut impl Write) -> fmt::Result {
    match inst.encoding() {
        Encoding::VimageGfx12 | Encoding::VsampleGfx12 => {
            return super::vimage::print(inst, ops, out)
        }
        Encoding::MimgGfx10 | Encoding::MimgHiGfx10 | Encoding::MimgGfx11 => {
            return super::mimg10::print(inst, ops, out)
        }
        Encoding::SmemGfx12 => {
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
            if reg_offset {
                out.write_str(" offset:")?;
                write_hex_signed(out, offset(inst))?;
            }
        }
        Encoding::MubufGfx12 => {
            write_operand_list(inst, ops, out)?;
            if inst.has(flags::OFFEN) {
                if inst.bit(32 + 31) {
                    out.write_str(" idxen")?;
                }
                if inst.bit(32 + 30) {
                    out.write_str(" offen")?;
                }
            }
            let off = inst.bits(2, 8, 24);
            if inst.has(flags::OFFSET) && off != 0 {
                out.write_str(" offset:")?;
                write_dec(out, off)?;
            }
        }
        _ => {
            // A GFX12.5 VFLAT `saddr` of `null` prints nothing.
            let skip = inst.encoding() == Encoding::FlatGfx12
                && matches!(ops.last(), Some(o) if o.spec.field == Field::Saddr && o.spec.kind == Kind::Off);
            write_operand_list(inst, &ops[..ops.len() - skip as usize], out)?;
            let off = offset(inst);
            if inst.has(flags::OFFSET) && off != 0 {
                out.write_str(" offset:")?;
                write_i64(out, off)?;
            }
        }
    }
    write_policy(inst, out)?;
    if inst.encoding() == Encoding::MubufGfx12 && inst.has(flags::TFE) && inst.bit(22) {
        out.write_str(" tfe")?;
    }
    Ok(())
}

/// `scale_offset`, `th:`, `scope:` and `nv`, each where the opcode prints
/// it and its bits are set.
pub(crate) fn write_policy(inst: &Instruction, out: &mut impl Write) -> fmt::Result {
    let b = bits_of(inst.encoding());
    if b.scale_offset < 96 && inst.has(flags::SCALE_OFFSET) && inst.bit(b.scale_offset) {
        out.write_str(" scale_offset")?;
    }
    if inst.has(flags::TH | flags::SCOPE) {
        let class = if inst.has(flags::TH_STORE) {
            1
        } else if inst.has(flags::TH_ATOMIC) {
            2
        } else {
            0
        };
        let th = if inst.has(flags::TH) { th(inst) } else { 0 };
        let scope = if inst.has(flags::SCOPE) {
            scope(inst)
        } else {
            0
        };
        let i = (th << 2 | scope) as usize;
        let text = gen::CPOL
            .get(inst.target().index())
            .and_then(|c| c.get(class))
            .and_then(|c| c.get(i))
            .map(|&p| crate::generated::text(p))
            .unwrap_or("");
        if !text.is_empty() {
            out.write_char(' ')?;
            out.write_str(text)?;
        }
    }
    if inst.has(flags::NV) && inst.bit(b.nv) {
        out.write_str(" nv")?;
    }
    Ok(())
}

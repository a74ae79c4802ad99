//! SDWA and DPP second dwords of VOP1/VOP2/VOPC: operand selects, source
//! modifiers and the DPP lane controls.

use crate::inst::Instruction;
use crate::opcode::{flags, Access, Field, Kind, Ty};
use crate::operand::{Op, Operand, Operands};
use crate::print::write_dec;
use crate::reg::RegRange;
use std::fmt::{self, Write};

/// True when an SDWA source is a scalar (its `s0`/`s1` bit is set).
pub(crate) fn src_is_scalar(inst: &Instruction, field: Field) -> bool {
    match field {
        Field::Src0 => inst.bit(32 + 23),
        Field::Vsrc1 => inst.bit(32 + 31),
        _ => false,
    }
}

/// VOPC SDWA with `sd` set writes an explicit SGPR pair instead of `vcc`.
pub(crate) fn adjust_vopc_operands(inst: &Instruction, ops: &mut Operands) {
    if !inst.bit(32 + 15) {
        return;
    }
    if let Some(op) = ops.as_mut_slice().first_mut() {
        if op.spec.kind == Kind::Vcc {
            op.spec.kind = Kind::SReg;
            op.spec.field = Field::Sdst;
            op.spec.access = Access::W;
            // A lane mask: one SGPR in wave32 code.
            let w = if inst.target().wave_size() == 32 {
                1
            } else {
                2
            };
            op.spec.width = w;
            op.value = Operand::Reg(RegRange::sgpr(inst.bits(1, 8, 7) as u16, w));
        }
    }
    let _ = Op::new;
    let _ = Ty::None;
}

/// SDWA select names.
pub(crate) const SEL: [&str; 7] = [
    "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD",
];
// LLVM 22 prints the reserved value 3 as UNUSED_PAD.
const UNUSED: [&str; 4] = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE", "UNUSED_PAD"];

fn sel(out: &mut impl Write, name: &str, v: u32) -> fmt::Result {
    out.write_char(' ')?;
    out.write_str(name)?;
    out.write_str(SEL.get(v as usize).copied().unwrap_or("?"))
}

pub(crate) fn print_sdwa_mods(inst: &Instruction, out: &mut impl Write) -> fmt::Result {
    if inst.has(flags::CLAMP) && inst.bit(32 + 13) {
        out.write_str(" clamp")?;
    }
    if inst.has(flags::OMOD) {
        super::vop::write_omod(inst.bits(1, 14, 2), out)?;
    }
    if inst.has(flags::DST_SEL) {
        sel(out, "dst_sel:", inst.bits(1, 8, 3))?;
        out.write_str(" dst_unused:")?;
        out.write_str(
            UNUSED
                .get(inst.bits(1, 11, 2) as usize)
                .copied()
                .unwrap_or("?"),
        )?;
    }
    if inst.has(flags::SRC0_SEL) {
        sel(out, "src0_sel:", inst.bits(1, 16, 3))?;
    }
    if inst.has(flags::SRC1_SEL) {
        sel(out, "src1_sel:", inst.bits(1, 24, 3))?;
    }
    Ok(())
}

/// DPP8 lane selects that leave every lane in place (`dpp8:[0,1,...,7]`).
pub(crate) const DPP8_IDENTITY: u32 = 0o76543210;

pub(crate) fn print_dpp_mods(inst: &Instruction, out: &mut impl Write) -> fmt::Result {
    print_dpp_mods_in(inst, 1, out)
}

/// DPP8: `dpp8:[..]` from word `w` (2: VOP3 DPP8, D61; 1: VOP1/VOP2/VOPC,
/// D66), `fi:1` when the src0 field of the word before it is `0xEA`.
pub(crate) fn print_dpp8_mods(inst: &Instruction, w: usize, out: &mut impl Write) -> fmt::Result {
    out.write_str(" dpp8:[")?;
    let sel = inst.bits(w, 8, 24);
    for i in 0..8 {
        if i > 0 {
            out.write_char(',')?;
        }
        write_dec(out, (sel >> (3 * i)) & 7)?;
    }
    out.write_char(']')?;
    if inst.bits(w - 1, 0, 9) == super::SRC0_DPP8_FI {
        out.write_str(" fi:1")?;
    }
    Ok(())
}

/// The DPP16 controls of the dword `w` (1: VOP1/VOP2/VOPC DPP, 2: VOP3
/// DPP).
pub(crate) fn print_dpp_mods_in(inst: &Instruction, w: usize, out: &mut impl Write) -> fmt::Result {
    let c = inst.bits(w, 8, 9);
    let base = 32 * w as u32;
    out.write_char(' ')?;
    let gfx10 = inst.target().generation() >= 10;
    if gfx10 && inst.has(flags::DPP_DP) && !(0x150..=0x15F).contains(&c) {
        // GFX12.5's f64 DPP (gfx1251) takes row_share only.
        out.write_str(" /* DP ALU dpp only supports row_share */")?;
    } else if gfx10 {
        write_dpp_ctrl_gfx10(c, out)?;
    } else if inst.has(flags::DPP_DP) && !(0x150..=0x15F).contains(&c) {
        out.write_str(" /* DP ALU dpp only supports row_newbcast */")?;
    } else if (0x150..=0x15F).contains(&c) && !inst.target().needs_aligned_vgprs() {
        // row_newbcast is gfx90a's (the GFX940 family's too).
        out.write_str(
            " /* row_newbcast/row_share is not supported on ASICs earlier than GFX90A/GFX10 */",
        )?;
    } else {
        write_dpp_ctrl(c, out)?;
    }
    out.write_str(" row_mask:")?;
    crate::print::write_hex(out, inst.bits(w, 28, 4) as u64)?;
    out.write_str(" bank_mask:")?;
    crate::print::write_hex(out, inst.bits(w, 24, 4) as u64)?;
    if inst.bit(base + 19) {
        out.write_str(" bound_ctrl:1")?;
    }
    if gfx10 && inst.bit(base + 18) {
        out.write_str(" fi:1")?;
    }
    Ok(())
}

/// GFX10 DPP16 controls: no wave shifts or row broadcasts; `row_share` and
/// `row_xmask` in their place.
fn write_dpp_ctrl_gfx10(c: u32, out: &mut impl Write) -> fmt::Result {
    match c {
        0x130 | 0x134 | 0x138 | 0x13C => {
            out.write_str("/* ")?;
            out.write_str(match c {
                0x130 => "wave_shl",
                0x134 => "wave_rol",
                0x138 => "wave_shr",
                _ => "wave_ror",
            })?;
            out.write_str(" is not supported starting from GFX10 */")
        }
        0x142 | 0x143 => out.write_str("/* row_bcast is not supported starting from GFX10 */"),
        0x150..=0x15F => {
            out.write_str("row_share:")?;
            write_dec(out, c & 0xF)
        }
        0x160..=0x16F => {
            out.write_str("row_xmask:")?;
            write_dec(out, c & 0xF)
        }
        _ => write_dpp_ctrl(c, out),
    }
}

pub(crate) fn write_dpp_ctrl(c: u32, out: &mut impl Write) -> fmt::Result {
    match c {
        0x000..=0x0FF => {
            out.write_str("quad_perm:[")?;
            for i in 0..4 {
                if i > 0 {
                    out.write_char(',')?;
                }
                write_dec(out, (c >> (2 * i)) & 3)?;
            }
            out.write_char(']')
        }
        0x101..=0x10F => {
            out.write_str("row_shl:")?;
            write_dec(out, c & 0xF)
        }
        0x111..=0x11F => {
            out.write_str("row_shr:")?;
            write_dec(out, c & 0xF)
        }
        0x121..=0x12F => {
            out.write_str("row_ror:")?;
            write_dec(out, c & 0xF)
        }
        0x130 => out.write_str("wave_shl:1"),
        0x134 => out.write_str("wave_rol:1"),
        0x138 => out.write_str("wave_shr:1"),
        0x13C => out.write_str("wave_ror:1"),
        0x140 => out.write_str("row_mirror"),
        0x141 => out.write_str("row_half_mirror"),
        0x142 => out.write_str("row_bcast:15"),
        0x143 => out.write_str("row_bcast:31"),
        0x150..=0x15F => {
            out.write_str("row_newbcast:")?;
            write_dec(out, c & 0xF)
        }
        0x160..=0x16F => {
            out.write_str("/* row_xmask is not supported on ASICs earlier than GFX10 */")
        }
        _ => out.write_str("/* Invalid dpp_ctrl value */"),
    }
}

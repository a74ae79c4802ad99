//! The cold printer (D80): a line no cache holds, printed straight from the
//! opcode's operand specs and the raw fields, without building the
//! [`Operands`](crate::operand::Operands) array.
//!
//! It covers the encodings whose operands need no per-encoding adjustment
//! (SOP1/SOP2/SOPK/SOPC/SOPP, VOP1/VOP2/VOPC, VOP3, VOP3P, DS; GFX9's
//! FLAT and GLOBAL, whose address operands it sets as
//! `enc::flat::adjust_operands` does) and, within
//! them, the common operand values: VGPRs without register-class flags,
//! aligned SGPR tuples and the named scalar registers `vcc`/`exec`/`m0`/
//! `null`, inline integers and floats, the literal. Any other operand is
//! built on its own ([`Instruction::operand_op`]) and printed by the
//! general code ([`write_operand`]); any other encoding, a misaligned scalar
//! tuple (which carries a warning) or a full sink makes [`write`] return
//! `false` with nothing written, and the caller prints the line the general
//! way. The general printer stays the reference: `tests/print_paths.rs`
//! prints every opcode both ways.

use super::{
    fast_paths, reg_name1, scalar_misalignment, write_dec, write_i64, write_literal, write_operand,
    VREG_FLAGS,
};
use crate::enc;
use crate::inst::Instruction;
use crate::opcode::{flags, mods, Encoding, Field, Kind, OperandSpec, Ty};
use crate::operand::{InlineFloat, Operand, MAX_OPERANDS};
use crate::reg::{sgpr_code, RegFile};
use crate::target::Target;
use std::fmt::{self, Write};

/// A text sink the cold printer can roll back to a mark.
pub(crate) trait Sink: Write {
    /// The current length.
    fn mark(&self) -> usize;
    /// Drops everything written after `at` (a [`Sink::mark`]).
    fn reset(&mut self, at: usize);
}

impl Sink for String {
    #[inline]
    fn mark(&self) -> usize {
        self.len()
    }
    #[inline]
    fn reset(&mut self, at: usize) {
        self.truncate(at);
    }
}

/// What follows the operand list.
#[derive(Clone, Copy)]
enum Tail {
    None,
    Vop3,
    Vop3p,
    Ds,
    /// GFX9 FLAT and GLOBAL without a returning or LDS-DMA form.
    Flat,
}

/// The encodings this printer covers: those whose operands
/// [`Instruction::operands`] takes from the specs unchanged.
#[inline]
fn tail(enc: Encoding) -> Option<Tail> {
    Some(match enc {
        Encoding::Sop1
        | Encoding::Sop2
        | Encoding::Sopk
        | Encoding::Sopc
        | Encoding::Sopp
        | Encoding::Vop1
        | Encoding::Vop2
        | Encoding::Vopc => Tail::None,
        Encoding::Vop3 | Encoding::Vop3Gfx10 => Tail::Vop3,
        Encoding::Vop3p | Encoding::Vop3pGfx10 => Tail::Vop3p,
        Encoding::Ds | Encoding::DsGfx10 => Tail::Ds,
        Encoding::Flat | Encoding::Global => Tail::Flat,
        _ => return None,
    })
}

/// Writes the text of `inst` (valid, no leading tab) if this printer
/// covers it; otherwise writes nothing and returns `false`.
pub(crate) fn write<W: Sink>(inst: &Instruction, out: &mut W) -> bool {
    if inst.is_invalid() || !fast_paths() {
        return false;
    }
    let info = inst.info();
    let Some(tail) = tail(info.enc) else {
        return false;
    };
    // GFX12.5's 64-bit literals (source encoding 254) take the general path.
    if inst.target().is_gfx1250() || info.operands().len() > MAX_OPERANDS {
        return false;
    }
    // The operand lists `enc::flat::adjust_operands` reorders or shortens.
    if matches!(tail, Tail::Flat)
        && (inst.has(flags::RTN_GLC) || (inst.has(flags::LDS_DMA) && inst.bit(13)))
    {
        return false;
    }
    let start = out.mark();
    if write_text(inst, tail, out).is_err() {
        out.reset(start);
        return false;
    }
    true
}

/// One operand the cold printer writes itself.
enum Tok {
    Vgpr(u32, u32),
    Sgpr(u32, u32),
    Int(i32),
    Name(&'static str),
    Literal(u32, Ty),
    /// Built and printed by the general code.
    General,
}

fn write_text<W: Sink>(inst: &Instruction, tail: Tail, out: &mut W) -> fmt::Result {
    let info = inst.info();
    out.write_str(info.name())?;
    let target = inst.target();
    let vop3 = matches!(tail, Tail::Vop3 | Tail::Vop3p);
    let mut first = true;
    for spec in info.operands() {
        let tok = if spec.mods & mods::T16 != 0 || (vop3 && has_src_mods(inst, spec)) {
            Tok::General
        } else if matches!(tail, Tail::Flat) && matches!(spec.field, Field::Saddr | Field::Addr) {
            flat_address(inst, spec)?
        } else {
            classify(inst, target, spec)
        };
        let sep = if first { " " } else { ", " };
        match tok {
            Tok::Vgpr(n, count) => {
                out.write_str(sep)?;
                write_range(out, 'v', n, count)?;
            }
            Tok::Sgpr(n, count) => {
                out.write_str(sep)?;
                write_range(out, 's', n, count)?;
            }
            Tok::Int(v) => {
                out.write_str(sep)?;
                if v < 0 {
                    out.write_char('-')?;
                }
                write_dec(out, v.unsigned_abs())?;
            }
            Tok::Name(s) => {
                out.write_str(sep)?;
                out.write_str(s)?;
            }
            Tok::Literal(v, ty) => {
                out.write_str(sep)?;
                write_literal(out, v, ty)?;
            }
            Tok::General => {
                let mut op = inst.operand_op(spec);
                if let Operand::Reg(mut r) = op.value {
                    if r.file == RegFile::Scalar {
                        // GFX11 swapped `m0` and `null`.
                        r.first = sgpr_code(target, r.first) as u16;
                        op.value = Operand::Reg(r);
                        if scalar_misalignment(&op, r).is_some() {
                            // A warning: the general path prints those.
                            return Err(fmt::Error);
                        }
                    }
                }
                if spec.kind == Kind::Endpgm && op.value == Operand::Imm(0) {
                    continue;
                }
                out.write_str(sep)?;
                write_operand(inst, &op, out)?;
            }
        }
        first = false;
    }
    match tail {
        Tail::None => Ok(()),
        Tail::Vop3 => enc::vop::print_vop3_mods(inst, out),
        Tail::Vop3p => enc::vop3p::print_mods(inst, out),
        Tail::Ds => enc::ds::print_mods(inst, out),
        Tail::Flat => {
            // As `enc::flat::print`.
            if inst.has(flags::OFFSET) {
                let off = enc::flat::offset(inst);
                if off != 0 {
                    out.write_str(" offset:")?;
                    write_i64(out, off)?;
                }
            }
            enc::flat::write_cpol(inst, 16, 17, 25, out)?;
            if inst.has(flags::LDS) && inst.bit(13) {
                out.write_str(" lds")?;
            }
            Ok(())
        }
    }
}

/// GLOBAL's `saddr` (`off` or an SGPR pair) and `vaddr` (a VGPR pair
/// without `saddr`), as `enc::flat::adjust_operands` sets them; FLAT's
/// from the spec. Err for a misaligned pair (a warning).
#[inline]
fn flat_address(inst: &Instruction, spec: &OperandSpec) -> Result<Tok, fmt::Error> {
    if inst.encoding() != Encoding::Global {
        return Ok(classify(inst, inst.target(), spec));
    }
    let saddr = inst.bits(1, 16, 7);
    let off = saddr == enc::flat::SADDR_OFF;
    Ok(match spec.field {
        Field::Saddr if off => Tok::Name("off"),
        Field::Saddr => match sgpr(inst.target(), spec, saddr, 2) {
            Tok::General => return Err(fmt::Error),
            t => t,
        },
        _ => vgpr(spec, inst.bits(1, 0, 8), if off { 2 } else { 1 }),
    })
}

/// Whether a VOP3/VOP3P source has its `neg` or `abs` bit set (as
/// `Instruction::apply_src_mods` reads them).
#[inline]
fn has_src_mods(inst: &Instruction, spec: &OperandSpec) -> bool {
    let m = spec.mods;
    if m & (mods::NEG | mods::ABS) == 0 {
        return false;
    }
    let si = match spec.field {
        Field::Src0 => 0,
        Field::Src1 | Field::Vsrc1 => 1,
        Field::Src2 => 2,
        _ => return false,
    };
    (m & mods::NEG != 0 && inst.bit(61 + si)) || (m & mods::ABS != 0 && inst.bit(8 + si))
}

/// The operand of `spec` if it is one of the common values, else
/// [`Tok::General`].
#[inline]
fn classify(inst: &Instruction, target: Target, spec: &OperandSpec) -> Tok {
    let width = spec.width.max(1) as u32;
    match spec.kind {
        Kind::VReg => match inst.spec_raw(spec) {
            Some(raw) => vgpr(spec, raw, width),
            None => Tok::General,
        },
        Kind::AvReg if !inst.acc_bit(spec.field) => match inst.spec_raw(spec) {
            Some(raw) => vgpr(spec, raw, width),
            None => Tok::General,
        },
        Kind::SReg => match inst.spec_raw(spec) {
            Some(raw) if raw < 128 => sgpr(target, spec, raw, width),
            _ => Tok::General,
        },
        Kind::Vcc => sgpr(target, spec, 106, width),
        Kind::SSrc | Kind::VSrc => {
            let Some(raw) = inst.spec_raw(spec) else {
                return Tok::General;
            };
            match raw {
                0..=127 => sgpr(target, spec, raw, width),
                128..=208 if spec.ty != Ty::Reg => Tok::Int(if raw <= 192 {
                    raw as i32 - 128
                } else {
                    192 - raw as i32
                }),
                240..=248 => match (InlineFloat::from_encoding(raw as u16), spec.ty) {
                    (_, Ty::Reg | Ty::I16) | (None, _) => Tok::General,
                    (Some(f), Ty::F64 | Ty::I64) => Tok::Name(f.name(true)),
                    (Some(f), _) => Tok::Name(f.name(false)),
                },
                255 => Tok::Literal(inst.literal().unwrap_or(0), spec.ty),
                256..=511 => vgpr(spec, raw - 256, width),
                _ => Tok::General,
            }
        }
        _ => Tok::General,
    }
}

/// A VGPR operand `v{n}` (`count` registers) if it prints as its bare
/// name: no true16 half and no register-class comment (an alignment
/// rule only matters for an odd tuple).
#[inline]
fn vgpr(spec: &OperandSpec, n: u32, count: u32) -> Tok {
    let m = spec.mods;
    if m & (VREG_FLAGS & !(mods::ALIGN | mods::ALIGN_ACC)) != 0 {
        return Tok::General;
    }
    if m & (mods::ALIGN | mods::ALIGN_ACC) != 0 && count >= 2 && n % 2 != 0 {
        return Tok::General;
    }
    Tok::Vgpr(n, count)
}

/// A scalar register operand (field value `raw`, below 128): aligned SGPR
/// tuples within s0..s101 and the named registers without a
/// register-class comment.
#[inline]
fn sgpr(target: Target, spec: &OperandSpec, raw: u32, count: u32) -> Tok {
    if spec.mods & (mods::BAD_SGPR | mods::BAD_M0 | mods::BAD_EXEC) != 0 || count > 16 {
        return Tok::General;
    }
    let code = sgpr_code(target, raw as u16);
    if code + count - 1 <= 101 {
        let align = match count {
            1 => 1,
            2 => 2,
            _ => 4,
        };
        return if code % align == 0 {
            Tok::Sgpr(code, count)
        } else {
            Tok::General
        };
    }
    Tok::Name(match (code, count) {
        (106, 1) => "vcc_lo",
        (107, 1) => "vcc_hi",
        (106, 2) => "vcc",
        (124, 1) => "m0",
        (125, 1) => "null",
        (126, 1) => "exec_lo",
        (127, 1) => "exec_hi",
        (126, 2) => "exec",
        _ => return Tok::General,
    })
}

/// `v7`, `s[4:7]`: one register's name from the name table, a range's
/// from the digit table.
#[inline]
fn write_range(out: &mut impl Write, prefix: char, n: u32, count: u32) -> fmt::Result {
    if count <= 1 && n <= 255 {
        return out.write_str(reg_name1(prefix as u8, n as u16));
    }
    out.write_char(prefix)?;
    if count <= 1 {
        return write_dec(out, n);
    }
    out.write_char('[')?;
    write_dec(out, n)?;
    out.write_char(':')?;
    write_dec(out, n + count - 1)?;
    out.write_char(']')
}

/// A fixed buffer sink for [`Instruction::write_to`]'s callers (a line
/// that does not fit falls back to the general printer).
pub(crate) struct LineBuf {
    buf: [u8; 256],
    len: usize,
}

impl LineBuf {
    #[inline]
    pub(crate) fn new() -> LineBuf {
        LineBuf {
            buf: [0; 256],
            len: 0,
        }
    }

    /// The text written (ASCII: only `str`s go in).
    #[inline]
    pub(crate) fn as_str(&self) -> &str {
        std::str::from_utf8(self.buf.get(..self.len).unwrap_or_default()).unwrap_or_default()
    }
}

impl Write for LineBuf {
    #[inline]
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        let dst = self.buf.get_mut(self.len..end).ok_or(fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

impl Sink for LineBuf {
    #[inline]
    fn mark(&self) -> usize {
        self.len
    }
    #[inline]
    fn reset(&mut self, at: usize) {
        self.len = at.min(self.len);
    }
}

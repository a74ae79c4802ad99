//! Printing instructions exactly as LLVM 22's AMDGPU instruction printer
//! does (the text llvm-objdump shows), into any `fmt::Write` without
//! allocating.

use crate::enc;
use crate::inst::Instruction;
use crate::opcode::{mods, Encoding, Kind, Ty};
use crate::operand::{Op, Operand, Operands};
use crate::reg::{self, RegFile, RegRange};
use std::fmt::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) mod cold;

/// When set, the printer skips its fast paths (single registers by table,
/// operands without modifiers) and takes the general code only: the
/// reference the fast paths are tested against (D73). Both print the same
/// text, so the switch changes no output, only the path.
static REFERENCE_ONLY: AtomicBool = AtomicBool::new(false);

#[inline]
fn fast_paths() -> bool {
    !REFERENCE_ONLY.load(Ordering::Relaxed)
}

impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl Instruction {
    /// Test hook: `true` makes every later print (any thread) take the
    /// printer's general (reference) paths only, `false` (the default) its
    /// fast ones. The text is the same either way; `tests/print_paths.rs`
    /// checks that it is.
    #[doc(hidden)]
    pub fn set_reference_printer(on: bool) {
        REFERENCE_ONLY.store(on, Ordering::Relaxed);
    }

    /// Test hook: whether the cold printer (D80) prints this instruction
    /// itself (rather than handing it to the general printer).
    #[doc(hidden)]
    pub fn prints_cold(&self) -> bool {
        cold::write(self, &mut cold::LineBuf::new())
    }

    /// Writes the instruction text (no leading tab, no comment).
    pub fn write_to(&self, out: &mut impl Write) -> fmt::Result {
        if self.is_invalid() {
            return self.write_invalid(out);
        }
        let mut line = cold::LineBuf::new();
        if cold::write(self, &mut line) {
            return out.write_str(line.as_str());
        }
        self.write_with(&self.operands(), out)
    }

    fn write_invalid(&self, out: &mut impl Write) -> fmt::Result {
        if self.len < 4 {
            // Fewer than 4 bytes left: llvm-objdump prints them as bytes.
            out.write_str(".byte ")?;
            for (i, b) in self.words[0]
                .to_le_bytes()
                .iter()
                .take(self.len as usize)
                .enumerate()
            {
                if i > 0 {
                    out.write_str(", ")?;
                }
                write!(out, "0x{b:02x}")?;
            }
            return Ok(());
        }
        // LLVM prints the word with all 8 digits (`.long 0x04040903`).
        out.write_str(".long 0x")?;
        let w = self.words[0];
        for i in (0..8).rev() {
            out.write_char(HEX[(w >> (4 * i) & 0xF) as usize] as char)?;
        }
        Ok(())
    }

    /// Writes the text and then, into `warn`, the warnings (see
    /// [`Instruction::write_warnings`]), decoding the operands once.
    pub(crate) fn write_text_and_warnings(
        &self,
        out: &mut impl Write,
        warn: &mut impl Write,
    ) -> fmt::Result {
        if self.is_invalid() {
            return self.write_invalid(out);
        }
        let ops = self.operands();
        self.write_with(&ops, out)?;
        self.write_warnings_with(&ops, warn)
    }

    /// The text of a valid instruction from its operands.
    fn write_with(&self, ops: &Operands, out: &mut impl Write) -> fmt::Result {
        let info = self.info();
        out.write_str(info.name())?;
        if let Some(y) = self.vopd_y() {
            // VOPD: `X operands :: Y operands`.
            let n = info.operands().len().min(ops.len());
            let mut x = Operands::default();
            let mut yo = Operands::default();
            for (i, op) in ops.iter().enumerate() {
                if i < n {
                    x.push(*op);
                } else {
                    yo.push(*op);
                }
            }
            write_operand_list(self, &x, out)?;
            let vopd3 = info.enc == Encoding::Vopd3X;
            if vopd3 {
                enc::vopd3::write_bitop3(self, false, out)?;
            }
            out.write_str(" :: ")?;
            out.write_str(y.info().name())?;
            write_operand_list(self, &yo, out)?;
            if vopd3 {
                enc::vopd3::write_bitop3(self, true, out)?;
            }
            return Ok(());
        }
        if info.enc.is_gfx12() {
            return enc::gfx12::print(self, ops, out);
        }
        if info.enc.is_gfx10() {
            if let Some(r) = enc::gfx10::print(self, ops, out) {
                return r;
            }
        }
        match info.enc.family() {
            Encoding::Flat | Encoding::Global | Encoding::Scratch => {
                enc::flat::print(self, ops, out)
            }
            Encoding::Mubuf | Encoding::Mtbuf => enc::mubuf::print(self, ops, out),
            Encoding::Mimg => enc::mimg::print(self, ops, out),
            Encoding::Smem => enc::smem::print(self, ops, out),
            _ => {
                write_operand_list(self, ops, out)?;
                match info.enc.family() {
                    Encoding::Vop3 => {
                        enc::vop::print_vop3_mods(self, out)?;
                        match info.enc {
                            Encoding::Vop3Dpp | Encoding::Vop3DppF16 => {
                                enc::sdwa_dpp::print_dpp_mods_in(self, 2, out)
                            }
                            Encoding::Vop3Dpp8 | Encoding::Vop3Dpp8F16 => {
                                enc::sdwa_dpp::print_dpp8_mods(self, 2, out)
                            }
                            _ => Ok(()),
                        }
                    }
                    Encoding::Vop3p => enc::vop3p::print_mods(self, out),
                    Encoding::Mai => enc::vop3p::print_mai_mods(self, out),
                    Encoding::Vop2Sdwa | Encoding::Vop1Sdwa | Encoding::VopcSdwa => {
                        enc::sdwa_dpp::print_sdwa_mods(self, out)
                    }
                    Encoding::Vop2Dpp | Encoding::Vop1Dpp | Encoding::VopcDpp => {
                        enc::sdwa_dpp::print_dpp_mods(self, out)
                    }
                    Encoding::Vop2Dpp8 | Encoding::Vop1Dpp8 | Encoding::VopcDpp8 => {
                        enc::sdwa_dpp::print_dpp8_mods(self, 1, out)
                    }
                    Encoding::Ds => enc::ds::print_mods(self, out),
                    _ => Ok(()),
                }
            }
        }
    }

    /// The instruction text as a `String` (convenience; allocates).
    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = self.write_to(&mut s);
        s
    }

    /// Writes the disassembler warnings LLVM attaches to this instruction
    /// (misaligned scalar register tuples), each as ` ; Warning: ...`, as
    /// llvm-objdump appends them after its hex-words comment.
    pub fn write_warnings(&self, out: &mut impl Write) -> fmt::Result {
        if self.is_invalid() {
            return Ok(());
        }
        self.write_warnings_with(&self.operands(), out)
    }

    fn write_warnings_with(&self, ops: &Operands, out: &mut impl Write) -> fmt::Result {
        let mut first = true;
        // Returning SMEM atomics carry sdata twice (destination and source),
        // and LLVM warns for each (GFX9, and GFX10.1's `SmemGfx10`: glc is
        // bit 16 in both).
        let twice = matches!(self.encoding(), Encoding::Smem | Encoding::SmemGfx10)
            && self.has(crate::opcode::flags::ATOMIC)
            && self.bit(16);
        for op in ops.iter() {
            let reps = if twice && op.spec.field == crate::opcode::Field::Sdata {
                2
            } else {
                1
            };
            for _ in 0..reps {
                if let Operand::Reg(r) = op.value {
                    if let Some((class, n)) = scalar_misalignment(op, r) {
                        // llvm-objdump separates the first warning with " ; "
                        // and runs the following ones together.
                        out.write_str(if first { " ; Warning: " } else { "Warning: " })?;
                        first = false;
                        out.write_str(class)?;
                        out.write_str(": scalar reg isn't aligned ")?;
                        write_dec(out, n)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// `operands` joined LLVM-style: a space before the first, `, ` between.
pub(crate) fn write_operand_list(
    inst: &Instruction,
    ops: &[Op],
    out: &mut impl Write,
) -> fmt::Result {
    let mut first = true;
    for op in ops {
        if op.spec.kind == Kind::Endpgm && op.value == Operand::Imm(0) {
            continue;
        }
        out.write_str(if first { " " } else { ", " })?;
        first = false;
        write_operand(inst, op, out)?;
    }
    Ok(())
}

/// Scalar tuples must be aligned (pairs to 2, larger to 4); LLVM prints the
/// aligned-down tuple and warns.
fn scalar_misalignment(op: &Op, r: RegRange) -> Option<(&'static str, u32)> {
    if r.file != RegFile::Scalar || r.count < 2 {
        return None;
    }
    let r = RegRange {
        count: r.count.min(16),
        ..r
    };
    let raw = op_raw_scalar(op, r);
    let align = if r.count == 2 { 2 } else { 4 };
    let (ttmp, idx) = match raw {
        // (Odd 103 and 105 start a pair only on GFX12, `validate`.)
        0..=105 => (false, raw),
        108..=123 => (true, raw - 108),
        _ => return None,
    };
    if idx % align == 0 {
        return None;
    }
    let class = match (ttmp, r.count) {
        (false, 2) => "SGPR_64",
        (false, 3) => "SGPR_96",
        (false, 4) => "SGPR_128",
        (false, 8) => "SGPR_256",
        (false, 16) => "SGPR_512",
        (true, 2) => "TTMP_64",
        (true, 4) => "TTMP_128",
        (true, 8) => "TTMP_256",
        (true, 16) => "TTMP_512",
        _ => return None,
    };
    Some((class, idx))
}

fn op_raw_scalar(_op: &Op, r: RegRange) -> u32 {
    r.first as u32
}

/// Whether `op` (a literal) prints as `lit(..)`/`lit64(..)`. Cold and out
/// of line: only negated literals ask.
#[cold]
#[inline(never)]
fn prints_as_lit(inst: &Instruction, op: &Op) -> bool {
    let mut s = String::new();
    write_value(inst, op, &mut s).is_ok() && s.starts_with("lit")
}

/// Writes one operand with its source modifiers.
pub(crate) fn write_operand(inst: &Instruction, op: &Op, out: &mut impl Write) -> fmt::Result {
    if !(op.sext | op.neg | op.abs) && fast_paths() {
        // Most operands carry no source modifier.
        return write_value(inst, op, out);
    }
    let is_imm = matches!(
        op.value,
        Operand::Int(_) | Operand::Float(_) | Operand::Literal(_) | Operand::Literal64(_)
    );
    // LLVM 22 holds a literal it prints as `lit(..)`/`lit64(..)` as an
    // expression, and negates an expression with `-` (D79).
    let neg_fn = op.neg
        && !op.abs
        && is_imm
        && !(matches!(op.value, Operand::Literal(_) | Operand::Literal64(_))
            && prints_as_lit(inst, op));
    if op.sext {
        out.write_str("sext(")?;
    }
    if op.neg {
        out.write_str(if neg_fn { "neg(" } else { "-" })?;
    }
    if op.abs {
        out.write_char('|')?;
    }
    write_value(inst, op, out)?;
    if op.abs {
        out.write_char('|')?;
    }
    if neg_fn || op.sext {
        out.write_char(')')?;
    }
    Ok(())
}

/// Writes an operand's value (no modifiers).
pub(crate) fn write_value(inst: &Instruction, op: &Op, out: &mut impl Write) -> fmt::Result {
    let spec = &op.spec;
    match op.value {
        Operand::Reg(r) => write_reg(inst, op, r, out),
        Operand::Int(v) => {
            write_i64(out, v as i64)?;
            if spec.ty == Ty::Reg {
                out.write_str("/*Invalid immediate*/")?;
            }
            Ok(())
        }
        Operand::Float(f) => {
            match spec.ty {
                Ty::I16 => write_hex(out, f.f16_bits() as u64)?,
                Ty::F64 | Ty::I64 => out.write_str(f.name(true))?,
                _ => out.write_str(f.name(false))?,
            }
            if spec.ty == Ty::Reg {
                out.write_str("/*Invalid immediate*/")?;
            }
            Ok(())
        }
        Operand::Literal(v) => {
            if spec.kind == Kind::Lit32 {
                return write_hex(out, v as u64);
            }
            if spec.kind == Kind::LitImm32 {
                return write_imm32(out, v);
            }
            write_literal(out, v, spec.ty)
        }
        Operand::Literal64(v) => write_literal64(out, v, spec),
        Operand::Imm(v) => write_imm(inst, spec.kind, v, out),
        Operand::Branch(b) => write_u64(out, b as u16 as u64),
        Operand::Off => out.write_str("off"),
        Operand::Raw(v) => write_u64(out, v as u64),
    }
}

fn write_imm(inst: &Instruction, kind: Kind, v: i64, out: &mut impl Write) -> fmt::Result {
    let v16 = (v as u64 & 0xFFFF) as u32;
    match kind {
        Kind::Hex16 => write_hex(out, v16 as u64),
        Kind::Imm16 => write_imm32(out, v16),
        Kind::Dec16 | Kind::Endpgm => write_u64(out, v16 as u64),
        Kind::Hwreg => enc::sop::write_hwreg(inst.target(), v16, out),
        Kind::SendMsg => enc::sop::write_sendmsg(inst.target(), v16, out),
        Kind::Waitcnt => enc::sop::write_waitcnt(inst.target(), v16, out),
        Kind::DelayAlu => enc::sop::write_delay_alu(inst.target(), v16, out),
        Kind::Depctr => enc::sop::write_depctr(inst.target(), v16, out),
        Kind::GprIdx | Kind::GprIdx8 => enc::sop::write_gpr_idx(v as u32, out),
        _ => write_i64(out, v),
    }
}

/// LLVM's literal printing per operand type (`lit(...)` marks a literal
/// whose value an inline constant could also encode).
pub(crate) fn write_literal(out: &mut impl Write, v: u32, ty: Ty) -> fmt::Result {
    let lit = |out: &mut dyn Write, v: u32| -> fmt::Result {
        out.write_str("lit(")?;
        write_hex(out, v as u64)?;
        out.write_char(')')
    };
    match ty {
        Ty::B32 | Ty::None => {
            if is_inline32(v) {
                lit(out, v)
            } else {
                write_hex(out, v as u64)
            }
        }
        Ty::I64 => {
            if v <= 64 {
                lit(out, v)
            } else {
                write_hex(out, v as u64)
            }
        }
        Ty::F64 => match f64_hi_name(v) {
            Some(n) => out.write_str(n),
            None if v == 0 => out.write_char('0'),
            None => write_hex(out, v as u64),
        },
        Ty::F16 => {
            if is_inline16(v as u16) {
                lit(out, v)
            } else {
                write_hex(out, (v & 0xFFFF) as u64)
            }
        }
        Ty::I16 => {
            if is_inline32(v) {
                lit(out, v)
            } else {
                write_hex(out, (v & 0xFFFF) as u64)
            }
        }
        Ty::V2F16 | Ty::V2I16 => {
            let s = v as i32;
            if (-16..=64).contains(&s) || (v <= 0xFFFF && is_f16_inline_pattern(v as u16)) {
                lit(out, v)
            } else {
                write_hex(out, v as u64)
            }
        }
        Ty::BF16 => {
            if is_inline_bf16(v as u16) {
                lit(out, v)
            } else {
                write_hex(out, v as u64)
            }
        }
        Ty::V2BF16 => {
            let s = v as i32;
            if (-16..=64).contains(&s) || (v <= 0xFFFF && BF16_INLINE.contains(&(v as u16))) {
                lit(out, v)
            } else {
                write_hex(out, v as u64)
            }
        }
        Ty::Reg => {
            write_imm32(out, v)?;
            out.write_str("/*Invalid immediate*/")
        }
    }
}

/// GFX12.5's 64-bit literal as LLVM 22 prints it (D54): `lit64(...)` when
/// it fits in 32 bits; a 32-bit operand uses the low half (an inline
/// constant by name, else hex); a 64-bit one an inline constant by name,
/// an f64's high half when the low half is zero, else all 64 bits in hex.
/// `v_fmamk_f64`'s K has no inline forms.
fn write_literal64(out: &mut impl Write, v: u64, spec: &crate::opcode::OperandSpec) -> fmt::Result {
    let (lo, hi) = (v as u32, (v >> 32) as u32);
    if hi == 0 {
        out.write_str("lit64(")?;
        write_hex(out, v)?;
        return out.write_char(')');
    }
    if spec.kind == Kind::Lit64 {
        return write_hex(out, if lo == 0 { hi as u64 } else { v });
    }
    match spec.ty {
        // An operand that takes no immediate: the low half, flagged.
        Ty::Reg => {
            write_imm32(out, lo)?;
            return out.write_str("/*Invalid immediate*/");
        }
        // 16-bit operands: as a 32-bit literal of the low half would
        // print, an inline value bare instead of `lit(...)`.
        Ty::F16 | Ty::BF16 => {
            let h = lo as u16;
            let table = if spec.ty == Ty::BF16 {
                &BF16_INLINE
            } else {
                &F16_INLINE
            };
            if (-16..=64).contains(&(h as i16)) {
                return write_i64(out, h as i16 as i64);
            }
            if let Some(i) = table.iter().position(|&b| b == h) {
                return out.write_str(F32_INLINE[i].1);
            }
            let shown = if spec.ty == Ty::BF16 { lo } else { h as u32 };
            return write_hex(out, shown as u64);
        }
        Ty::I16 if !is_inline32(lo) => return write_hex(out, (lo & 0xFFFF) as u64),
        Ty::V2F16 | Ty::V2I16 | Ty::V2BF16 => {
            let table = if spec.ty == Ty::V2BF16 {
                &BF16_INLINE
            } else {
                &F16_INLINE
            };
            if (-16..=64).contains(&(lo as i32)) {
                return write_i64(out, lo as i32 as i64);
            }
            if let Some(i) = table.iter().position(|&b| b as u32 == lo) {
                return out.write_str(F32_INLINE[i].1);
            }
            return write_hex(out, lo as u64);
        }
        _ => {}
    }
    if spec.width < 2 {
        return write_imm32(out, lo);
    }
    if (-16..0).contains(&(v as i64)) {
        return write_i64(out, v as i64);
    }
    if v == 0x3FC4_5F30_6DC9_C882 {
        return out.write_str("0.15915494309189532");
    }
    if lo == 0 {
        if let Some(n) = f64_hi_name(hi) {
            return out.write_str(n);
        }
        if spec.ty == Ty::F64 {
            return write_hex(out, hi as u64);
        }
    }
    write_hex(out, v)
}

/// bf16 bit patterns of the inline constants 0.5, -0.5, ..., -4.0, 1/(2*pi).
const BF16_INLINE: [u16; 9] = [
    0x3F00, 0xBF00, 0x3F80, 0xBF80, 0x4000, 0xC000, 0x4080, 0xC080, 0x3E22,
];

fn is_inline_bf16(v: u16) -> bool {
    (-16..=64).contains(&(v as i16)) || BF16_INLINE.contains(&v)
}

const F32_INLINE: [(u32, &str); 9] = [
    (0x3F00_0000, "0.5"),
    (0xBF00_0000, "-0.5"),
    (0x3F80_0000, "1.0"),
    (0xBF80_0000, "-1.0"),
    (0x4000_0000, "2.0"),
    (0xC000_0000, "-2.0"),
    (0x4080_0000, "4.0"),
    (0xC080_0000, "-4.0"),
    (0x3E22_F983, "0.15915494"),
];
const F16_INLINE: [u16; 9] = [
    0x3800, 0xB800, 0x3C00, 0xBC00, 0x4000, 0xC000, 0x4400, 0xC400, 0x3118,
];
const F64_HI: [(u32, &str); 8] = [
    (0x3FE0_0000, "0.5"),
    (0xBFE0_0000, "-0.5"),
    (0x3FF0_0000, "1.0"),
    (0xBFF0_0000, "-1.0"),
    (0x4000_0000, "2.0"),
    (0xC000_0000, "-2.0"),
    (0x4010_0000, "4.0"),
    (0xC010_0000, "-4.0"),
];

fn is_inline32(v: u32) -> bool {
    (-16..=64).contains(&(v as i32)) || F32_INLINE.iter().any(|&(b, _)| b == v)
}
fn is_f16_inline_pattern(v: u16) -> bool {
    F16_INLINE.contains(&v)
}
fn is_inline16(v: u16) -> bool {
    (-16..=64).contains(&(v as i16)) || is_f16_inline_pattern(v)
}
fn f64_hi_name(v: u32) -> Option<&'static str> {
    F64_HI.iter().find(|&&(b, _)| b == v).map(|&(_, n)| n)
}

/// LLVM `printImmediate32`: small integers in decimal, inline floats by
/// name, anything else in hex.
pub(crate) fn write_imm32(out: &mut impl Write, v: u32) -> fmt::Result {
    let s = v as i32;
    if (-16..=64).contains(&s) {
        return write_i64(out, s as i64);
    }
    if let Some(&(_, n)) = F32_INLINE.iter().find(|&&(b, _)| b == v) {
        return out.write_str(n);
    }
    write_hex(out, v as u64)
}

/// Flags under which a VGPR or AGPR operand prints more than its name
/// (true16 halves, register-class comments).
const VREG_FLAGS: u16 = mods::T16 | mods::BAD_VGPR | mods::LO128 | mods::ALIGN | mods::ALIGN_ACC;

fn write_reg(inst: &Instruction, op: &Op, r: RegRange, out: &mut impl Write) -> fmt::Result {
    let spec = &op.spec;
    // The common cases first, from the range's fields as plain values (the
    // general path below rebuilds the range, D73): a vector register
    // without flags, one SGPR s0..s101 without a class comment.
    let (file, first, count) = (r.file, r.first, r.count);
    if fast_paths() {
        match file {
            RegFile::Vgpr | RegFile::Agpr if spec.mods & VREG_FLAGS == 0 => {
                return write_reg_name(out, r);
            }
            RegFile::Scalar if count <= 1 && first <= 101 && spec.mods & mods::BAD_SGPR == 0 => {
                return out.write_str(reg_name1(b's', first));
            }
            _ => {}
        }
    }
    // Scalar tuples are at most 16 registers (SGPR_512) in LLVM.
    let count = if file == RegFile::Scalar {
        count.min(16)
    } else {
        count
    };
    let mut first = first;
    // Misaligned scalar tuples print aligned down (with a warning).
    if file == RegFile::Scalar && count >= 2 {
        let gfx10 = inst.target().generation() >= 10;
        let (base, idx) = match first {
            0..=101 => (0, first),
            102..=105 if gfx10 => (0, first),
            108..=123 => (108, first - 108),
            _ => (first, 0),
        };
        let align = if count == 2 { 2 } else { 4 };
        if idx % align != 0 {
            first = base + idx - idx % align;
        }
    }
    let r = RegRange { file, first, count };
    if r.file == RegFile::Scalar
        && (102..=105).contains(&r.first)
        && inst.target().generation() >= 10
    {
        // GFX10 has no flat_scratch/xnack_mask aliases: s102..s105.
        crate::reg::write_range(out, "s", r.first, r.count.max(1))?;
    } else if spec.mods & mods::T16 != 0 && r.file == RegFile::Vgpr {
        write!(out, "v{}.{}", r.first, if op.hi { 'h' } else { 'l' })?;
    } else {
        write_reg_name(out, r)?;
    }
    // Register-class violations LLVM flags with a comment.
    let inline_value =
        r.file == RegFile::Scalar && matches!(r.first, 125 | 230 | 231 | 235..=239 | 251..=253);
    let align_flag = if matches!(spec.kind, Kind::AvReg | Kind::AvSrc) && inst.acc_bit(spec.field) {
        mods::ALIGN_ACC
    } else {
        mods::ALIGN
    };
    let misaligned = r.count >= 2
        && r.first % 2 != 0
        && (inst.target().needs_aligned_vgprs() || inst.target().is_gfx1250())
        && spec.mods & align_flag != 0;
    let bad = match r.file {
        RegFile::Scalar if inline_value => false,
        RegFile::Scalar if r.first == 254 => spec.mods & mods::BAD_LDS != 0,
        RegFile::Scalar if r.first == 124 => spec.mods & (mods::BAD_M0 | mods::BAD_SGPR) != 0,
        RegFile::Scalar if r.first == 126 || r.first == 127 => {
            spec.mods & (mods::BAD_EXEC | mods::BAD_SGPR) != 0
        }
        RegFile::Scalar => spec.mods & mods::BAD_SGPR != 0,
        RegFile::Vgpr => {
            (spec.mods & mods::BAD_VGPR != 0 && is_src_kind(spec.kind))
                || misaligned
                || (spec.mods & mods::LO128 != 0 && r.first >= 128)
        }
        RegFile::Agpr => misaligned,
    };
    if bad {
        out.write_str("/*Invalid register, operand has '")?;
        match spec.reg_class() {
            // Classes probed with VGPRs read as AGPR classes when the acc
            // bit selects AGPRs.
            Some(rc)
                if rc.starts_with("VReg_")
                    && (r.file == RegFile::Agpr
                        || (matches!(spec.kind, Kind::AvSrc | Kind::AvReg)
                            && inst.acc_bit(spec.field))) =>
            {
                out.write_str("AReg_")?;
                out.write_str(&rc[5..])?;
            }
            Some(rc) => out.write_str(rc)?,
            None => write_default_class(out, spec.kind, r)?,
        }
        out.write_str("' register class*/")?;
    }
    Ok(())
}

fn is_src_kind(k: Kind) -> bool {
    matches!(
        k,
        Kind::SSrc | Kind::VSrc | Kind::ASrc | Kind::AvSrc | Kind::SdwaSrc
    )
}

fn write_default_class(out: &mut impl Write, kind: Kind, r: RegRange) -> fmt::Result {
    let prefix = match (kind, r.file) {
        (Kind::AvReg | Kind::AvSrc, _) => "AV",
        (Kind::VSrc, _) => "VS",
        (_, RegFile::Agpr) => "AReg",
        _ => "VReg",
    };
    out.write_str(prefix)?;
    out.write_char('_')?;
    write_dec(out, r.count as u32 * 32)?;
    out.write_str("_Align2")
}

/// A register name as [`RegRange::write`] spells it, with fast paths for
/// VGPRs, AGPRs and SGPRs.
#[inline]
fn write_reg_name(out: &mut impl Write, r: RegRange) -> fmt::Result {
    let (prefix, p) = match r.file {
        RegFile::Vgpr => ("v", b'v'),
        RegFile::Agpr => ("a", b'a'),
        RegFile::Scalar if r.first <= 101 => ("s", b's'),
        RegFile::Scalar => return r.write(out),
    };
    if r.count <= 1 && r.first <= 255 && fast_paths() {
        return out.write_str(reg_name1(p, r.first));
    }
    out.write_str(prefix)?;
    if r.count <= 1 {
        return write_dec(out, r.first as u32);
    }
    out.write_char('[')?;
    write_dec(out, r.first as u32)?;
    out.write_char(':')?;
    write_dec(out, r.first as u32 + r.count as u32 - 1)?;
    out.write_char(']')
}

// --- register names -------------------------------------------------------

/// `v0`..`v255`, then `a0`..`a255`, then `s0`..`s255`, 4 bytes each
/// (padded with spaces past the name): a single register's name is one
/// slice of this table (D73).
const REG_NAME_BYTES: [u8; 3 * 256 * 4] = {
    let mut t = [b' '; 3 * 256 * 4];
    let prefixes = [b'v', b'a', b's'];
    let mut f = 0;
    while f < 3 {
        let mut i = 0;
        while i < 256 {
            let at = (f * 256 + i) * 4;
            t[at] = prefixes[f];
            if i < 10 {
                t[at + 1] = b'0' + i as u8;
            } else if i < 100 {
                t[at + 1] = b'0' + (i / 10) as u8;
                t[at + 2] = b'0' + (i % 10) as u8;
            } else {
                t[at + 1] = b'0' + (i / 100) as u8;
                t[at + 2] = b'0' + (i / 10 % 10) as u8;
                t[at + 3] = b'0' + (i % 10) as u8;
            }
            i += 1;
        }
        f += 1;
    }
    t
};
const REG_NAMES: &str = match std::str::from_utf8(&REG_NAME_BYTES) {
    Ok(s) => s,
    Err(_) => panic!("register names are ASCII"),
};

/// The name of one register `{prefix}{n}` (`prefix` `v`, `a` or `s`,
/// `n` below 256) from [`REG_NAMES`].
#[inline]
fn reg_name1(prefix: u8, n: u16) -> &'static str {
    let f = match prefix {
        b'v' => 0,
        b'a' => 1,
        _ => 2,
    };
    let n = n as usize & 0xFF;
    let len = 2 + (n >= 10) as usize + (n >= 100) as usize;
    let at = (f * 256 + n) * 4;
    REG_NAMES.get(at..at + len).unwrap_or("?")
}

// --- number formatting ----------------------------------------------------

/// "000" to "999", three digits each.
const DEC3_BYTES: [u8; 3000] = {
    let mut t = [0u8; 3000];
    let mut i = 0;
    while i < 1000 {
        t[3 * i] = b'0' + (i / 100) as u8;
        t[3 * i + 1] = b'0' + (i / 10 % 10) as u8;
        t[3 * i + 2] = b'0' + (i % 10) as u8;
        i += 1;
    }
    t
};
const DEC3: &str = match std::str::from_utf8(&DEC3_BYTES) {
    Ok(s) => s,
    Err(_) => panic!("digits are ASCII"),
};

/// Decimal, from a table for values below 1000 (register numbers,
/// offsets).
#[inline]
pub(crate) fn write_dec(out: &mut impl Write, v: u32) -> fmt::Result {
    let i = v as usize * 3;
    let digits = match v {
        0..=9 => DEC3.get(i + 2..i + 3),
        10..=99 => DEC3.get(i + 1..i + 3),
        100..=999 => DEC3.get(i..i + 3),
        _ => None,
    };
    match digits {
        Some(d) => out.write_str(d),
        None => reg::write_u32(out, v),
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// `0x` + lowercase hex (LLVM `formatHex`).
pub(crate) fn write_hex(out: &mut (impl Write + ?Sized), v: u64) -> fmt::Result {
    let mut buf = [0u8; 18];
    let mut i = buf.len();
    let mut x = v;
    loop {
        i -= 1;
        buf[i] = HEX[(x & 0xF) as usize];
        x >>= 4;
        if x == 0 {
            break;
        }
    }
    i -= 1;
    buf[i] = b'x';
    i -= 1;
    buf[i] = b'0';
    out.write_str(std::str::from_utf8(&buf[i..]).unwrap_or("0x?"))
}

/// Signed hex as LLVM's `formatHex(int64)` prints it (`-0x10`).
pub(crate) fn write_hex_signed(out: &mut impl Write, v: i64) -> fmt::Result {
    if v < 0 {
        out.write_char('-')?;
        write_hex(out, v.unsigned_abs())
    } else {
        write_hex(out, v as u64)
    }
}

pub(crate) fn write_u64(out: &mut impl Write, v: u64) -> fmt::Result {
    if v <= u32::MAX as u64 {
        return write_dec(out, v as u32);
    }
    write!(out, "{v}")
}

pub(crate) fn write_i64(out: &mut impl Write, v: i64) -> fmt::Result {
    if v < 0 {
        out.write_char('-')?;
        write_u64(out, v.unsigned_abs())
    } else {
        write_u64(out, v as u64)
    }
}

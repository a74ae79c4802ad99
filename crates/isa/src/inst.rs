//! [`Instruction`]: one decoded (or built) instruction, stored as its raw
//! words plus its opcode, and the typed views over it (fields, operands).

use crate::enc::{self, bits};
use crate::opcode::{Encoding, Field, Kind, OpInfo, Opcode, OperandSpec};
use crate::operand::{InlineFloat, Op, Operand, Operands};
use crate::reg::RegRange;
use crate::target::Target;

/// One instruction.
///
/// Small and `Copy`: the raw words (the single source of truth, so encoding
/// a decoded instruction is exact), the opcode, the length and the target.
/// Typed views ([`Instruction::operands`], [`Instruction::field`], the
/// modifier accessors) are computed from the words on demand without
/// allocating. Invalid words decode to an instruction with
/// [`Opcode::INVALID`] that keeps the raw word (printed `.long 0x...`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C, align(8))]
pub struct Instruction {
    pub(crate) words: [u32; 3],
    pub(crate) opcode: Opcode,
    pub(crate) len: u8,
    pub(crate) target: Target,
}

// Decoded instructions are passed by value everywhere: keep them small.
const _: () = assert!(std::mem::size_of::<Instruction>() == 16);

impl std::fmt::Debug for Instruction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Instruction({:?} \"{}\" [", self.target, self)?;
        for (i, w) in self.words().iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{w:08X}")?;
        }
        f.write_str("])")
    }
}

impl Instruction {
    /// An invalid instruction holding the raw word `w` (4 bytes).
    pub fn invalid(target: Target, w: u32) -> Instruction {
        Instruction {
            words: [w, 0, 0],
            opcode: Opcode::INVALID,
            len: 4,
            target,
        }
    }

    /// The opcode ([`Opcode::INVALID`] for undecodable words).
    #[inline]
    pub fn opcode(&self) -> Opcode {
        self.opcode
    }

    /// The target it was decoded or built for.
    #[inline]
    pub fn target(&self) -> Target {
        self.target
    }

    /// Size in bytes (4, 8 or 12).
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Always false (an instruction has at least one word); present for
    /// API symmetry with [`Instruction::len`].
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The instruction words (1 to 3).
    #[inline]
    pub fn words(&self) -> &[u32] {
        let n = (self.len as usize / 4).clamp(1, 3);
        &self.words[..n]
    }

    /// True for undecodable words.
    #[inline]
    pub fn is_invalid(&self) -> bool {
        self.opcode.is_invalid()
    }

    /// Static description of the opcode.
    #[inline]
    pub fn info(&self) -> &'static OpInfo {
        self.opcode.info()
    }

    /// Encoding.
    #[inline]
    pub fn encoding(&self) -> Encoding {
        self.info().enc
    }

    /// Opcode flags ([`crate::opcode::flags`]) on this instruction's target.
    #[inline]
    pub fn flags(&self) -> u64 {
        self.info().flags(self.target)
    }

    #[inline]
    pub(crate) fn has(&self, f: u64) -> bool {
        self.flags() & f != 0
    }

    #[inline]
    pub(crate) fn w(&self, i: usize) -> u32 {
        self.words.get(i).copied().unwrap_or(0)
    }

    /// Bit `b` (0..96) of the instruction as a bool.
    #[inline]
    pub(crate) fn bit(&self, b: u32) -> bool {
        self.w((b / 32) as usize) >> (b % 32) & 1 != 0
    }

    /// `width` bits at bit `lo` of word `word`.
    #[inline]
    pub(crate) fn bits(&self, word: usize, lo: u8, width: u8) -> u32 {
        bits(self.w(word), lo, width)
    }

    /// Raw value of an encoding field, or `None` if the encoding has no
    /// such field. [`Field::Lit`] is the literal dword.
    pub fn field(&self, f: Field) -> Option<u32> {
        if f == Field::Lit {
            return self.literal();
        }
        let (w, lo, width) = enc::field_pos(self.encoding(), f)?;
        Some(self.bits(w as usize, lo, width))
    }

    /// Raw value of the field an operand spec reads (via its precomputed
    /// position).
    #[inline]
    pub(crate) fn spec_raw(&self, spec: &OperandSpec) -> Option<u32> {
        let [w, lo, n] = spec.pos;
        if n == 0 {
            return if spec.field == Field::Lit {
                self.literal()
            } else {
                None
            };
        }
        Some(bits(self.w(w as usize), lo, n))
    }

    /// The trailing literal dword, if the instruction has one.
    pub fn literal(&self) -> Option<u32> {
        if self.encoding() == Encoding::Vopd3X {
            // Only with a 64-bit literal, in words 1-2 (D57).
            return enc::vopd3::has_lit64(self).then(|| self.w(1));
        }
        let base = enc::base_words(self.encoding());
        (self.len as usize / 4 > base).then(|| self.w(base))
    }

    /// GFX12.5's 64-bit literal (two trailing dwords), if the instruction
    /// has one.
    pub fn literal64(&self) -> Option<u64> {
        if self.encoding() == Encoding::Vopd3X {
            return enc::vopd3::has_lit64(self)
                .then(|| self.w(1) as u64 | (self.w(2) as u64) << 32);
        }
        let base = enc::base_words(self.encoding());
        (self.len as usize / 4 == base + 2)
            .then(|| self.w(base) as u64 | (self.w(base + 1) as u64) << 32)
    }

    /// The Y operation of a VOPD or VOPD3 (dual-issue) instruction, whose
    /// [`opcode`](Instruction::opcode) is the X one; `None` otherwise.
    pub fn vopd_y(&self) -> Option<Opcode> {
        let yenc = enc::vopd_y_enc(self.encoding())?;
        let (_, _, lo, width) = enc::opcode_pos(yenc);
        Opcode::lookup(self.target, yenc, self.bits(0, lo, width) as u16)
    }

    /// The decoded operands, in printed order (for VOPD, the X operation's
    /// then the Y operation's).
    pub fn operands(&self) -> Operands {
        let mut ops = Operands::default();
        if self.is_invalid() {
            return ops;
        }
        let info = self.info();
        let y = self.vopd_y().map_or(&[][..], |y| y.info().operands());
        for spec in info.operands().iter().chain(y) {
            ops.push(self.operand_op(spec));
        }
        if info.enc.is_gfx12() {
            enc::gfx12::adjust_operands(self, &mut ops);
        } else if info.enc.is_gfx10() {
            enc::gfx10::adjust_operands(self, &mut ops);
        } else {
            self.adjust_operands(&mut ops);
        }
        if self.target.generation() >= 11 {
            // GFX11 swapped the encodings of `m0` and `null`.
            for op in ops.as_mut_slice() {
                if let Operand::Reg(r) = &mut op.value {
                    if r.file == crate::reg::RegFile::Scalar {
                        r.first = crate::reg::sgpr_code(self.target, r.first) as u16;
                    }
                }
            }
        }
        ops
    }

    /// One operand as [`Instruction::operands`] builds it before the
    /// per-encoding adjustments (value, source modifiers, true16 half); the
    /// cold printer (`print::cold`) builds the operands it does not print
    /// itself one at a time with this.
    #[inline]
    pub(crate) fn operand_op(&self, spec: &OperandSpec) -> Op {
        let value = self.operand_value(spec);
        let mut op = Op::new(value, *spec);
        if spec.kind == Kind::SReg && !matches!(value, Operand::Reg(_)) {
            // An 8-bit scalar destination field holding a constant:
            // LLVM prints it as an invalid immediate.
            op.spec.ty = crate::opcode::Ty::Reg;
        }
        self.apply_src_mods(&mut op);
        if spec.mods & crate::opcode::mods::T16 != 0 {
            self.apply_t16(&mut op);
        }
        op
    }

    fn adjust_operands(&self, ops: &mut Operands) {
        match self.info().enc {
            Encoding::Flat | Encoding::Global | Encoding::Scratch => {
                enc::flat::adjust_operands(self, ops)
            }
            Encoding::Mubuf | Encoding::Mtbuf => enc::mubuf::adjust_operands(self, ops),
            Encoding::Mimg => enc::mimg::adjust_operands(self, ops),
            Encoding::Smem => enc::smem::adjust_operands(self, ops),
            Encoding::VopcSdwa => enc::sdwa_dpp::adjust_vopc_operands(self, ops),
            Encoding::Mai => enc::vop3p::adjust_mai_operands(self, ops),
            _ => {}
        }
    }

    /// Value of the field `spec` reads, interpreted per its kind.
    pub(crate) fn operand_value(&self, spec: &OperandSpec) -> Operand {
        let raw = self.spec_raw(spec).unwrap_or(0);
        let width = spec.width.max(1);
        if raw == 254
            && self.target.is_gfx1250()
            && matches!(
                spec.kind,
                Kind::SSrc | Kind::VSrc | Kind::ASrc | Kind::AvSrc
            )
        {
            return Operand::Literal64(self.literal64().unwrap_or(0));
        }
        match spec.kind {
            Kind::SReg if raw >= 128 => src_operand(raw, width, self.literal()),
            Kind::SReg => Operand::Reg(RegRange::sgpr(raw as u16, width)),
            Kind::SSrc | Kind::VSrc => src_operand(raw, width, self.literal()),
            Kind::ASrc => match raw {
                256..=511 => Operand::Reg(RegRange::agpr((raw - 256) as u16, width)),
                _ => src_operand(raw, width, self.literal()),
            },
            Kind::AvSrc => match raw {
                256..=511 if self.acc_bit(spec.field) => {
                    Operand::Reg(RegRange::agpr((raw - 256) as u16, width))
                }
                _ => src_operand(raw, width, self.literal()),
            },
            Kind::VReg if spec.field == Field::VdstY && self.encoding() == Encoding::VopdX => {
                let x = self.bits(1, 24, 1);
                Operand::Reg(RegRange::vgpr((raw << 1 | (x ^ 1)) as u16, width))
            }
            Kind::VReg => Operand::Reg(RegRange::vgpr(raw as u16, width)),
            Kind::AReg => Operand::Reg(RegRange::agpr(raw as u16, width)),
            Kind::AvReg => {
                if self.acc_bit(spec.field) {
                    Operand::Reg(RegRange::agpr(raw as u16, width))
                } else {
                    Operand::Reg(RegRange::vgpr(raw as u16, width))
                }
            }
            Kind::SRegX2 => Operand::Reg(RegRange::sgpr((raw * 2) as u16, width)),
            Kind::SRegX4 => Operand::Reg(RegRange::sgpr((raw * 4) as u16, width)),
            Kind::SdwaSrc => {
                if enc::sdwa_dpp::src_is_scalar(self, spec.field) {
                    src_operand(raw, width, None)
                } else {
                    Operand::Reg(RegRange::vgpr(raw as u16, width))
                }
            }
            Kind::Lit32 | Kind::LitImm32 => Operand::Literal(self.literal().unwrap_or(0)),
            Kind::Lit64 => Operand::Literal64(self.literal64().unwrap_or(0)),
            // `vcc_lo` in wave32 code (width 1).
            Kind::Vcc => Operand::Reg(RegRange::sgpr(106, width)),
            Kind::Off => Operand::Off,
            Kind::SmemOffset => Operand::Imm(raw as i64),
            Kind::Branch => Operand::Branch(raw as u16 as i16),
            Kind::Hex16
            | Kind::Imm16
            | Kind::Dec16
            | Kind::Endpgm
            | Kind::Hwreg
            | Kind::SendMsg
            | Kind::Waitcnt
            | Kind::DelayAlu
            | Kind::Depctr
            | Kind::GprIdx
            | Kind::GprIdx8 => Operand::Imm(raw as i64),
            Kind::Unknown => Operand::Raw(raw as u16),
        }
    }

    /// The acc (AGPR) bit governing `field`, per encoding.
    pub(crate) fn acc_bit(&self, field: Field) -> bool {
        match self.encoding() {
            Encoding::Ds => self.bit(25),
            Encoding::Flat | Encoding::Global | Encoding::Scratch => self.bit(55),
            Encoding::Mubuf | Encoding::Mtbuf => self.bit(55),
            // Bit 16 is `tfe` before gfx90a.
            Encoding::Mimg => self.bit(16) && self.target().needs_aligned_vgprs(),
            Encoding::Mai => match field {
                Field::Vdst | Field::Src2 => self.bit(15),
                Field::Src0 => self.bit(59),
                Field::Src1 => self.bit(60),
                _ => false,
            },
            _ => false,
        }
    }

    /// A true16 VGPR operand's half: in VOP3/VOP3P it is the operand's
    /// `op_sel` bit (sources 11-13, destination 14), elsewhere bit 7 of
    /// the register number (so only v0-v127 have halves there).
    fn apply_t16(&self, op: &mut Op) {
        let Operand::Reg(r) = &mut op.value else {
            return;
        };
        if r.file != crate::reg::RegFile::Vgpr {
            return;
        }
        if matches!(self.encoding().family(), Encoding::Vop3 | Encoding::Vop3p) {
            let b = match op.spec.field {
                Field::Src0 => 11,
                Field::Src1 => 12,
                Field::Src2 => 13,
                _ => 14,
            };
            op.hi = self.bit(b);
        } else {
            op.hi = r.first & 0x80 != 0;
            r.first &= 0x7F;
        }
    }

    /// Index (0, 1, 2) of a source field.
    fn src_index(field: Field) -> Option<u32> {
        match field {
            Field::Src0 => Some(0),
            Field::Src1 | Field::Vsrc1 => Some(1),
            Field::Src2 => Some(2),
            _ => None,
        }
    }

    fn apply_src_mods(&self, op: &mut Op) {
        use crate::opcode::mods;
        let m = op.spec.mods;
        if m & (mods::NEG | mods::ABS | mods::SEXT) == 0 {
            return;
        }
        let Some(si) = Self::src_index(op.spec.field) else {
            return;
        };
        let (neg, abs, sext) = match self.encoding().family() {
            Encoding::Vopd3X => {
                let neg = enc::vopd3::neg_bit(&op.spec).is_some_and(|b| self.bit(b));
                (neg, false, false)
            }
            Encoding::Vop3 => (self.bit(61 + si), self.bit(8 + si), false),
            Encoding::Vop3p => (self.bit(61 + si), self.bit(8 + si), false),
            Encoding::Vop2Sdwa | Encoding::Vop1Sdwa | Encoding::VopcSdwa => {
                let b = if si == 0 { 32 + 19 } else { 32 + 27 };
                (self.bit(b + 1), self.bit(b + 2), self.bit(b))
            }
            Encoding::Vop2Dpp | Encoding::Vop1Dpp | Encoding::VopcDpp => {
                let b = if si == 0 { 32 + 20 } else { 32 + 22 };
                (self.bit(b), self.bit(b + 1), false)
            }
            _ => (false, false, false),
        };
        op.neg = neg && m & mods::NEG != 0;
        op.abs = abs && m & mods::ABS != 0;
        op.sext = sext && m & mods::SEXT != 0;
    }
}

/// Interprets a scalar/vector source encoding.
pub(crate) fn src_operand(raw: u32, width: u8, literal: Option<u32>) -> Operand {
    match raw {
        0..=127 => Operand::Reg(RegRange::sgpr(raw as u16, width)),
        128..=192 => Operand::Int((raw - 128) as i8),
        193..=208 => Operand::Int(-((raw - 192) as i8)),
        230 | 231 | 235..=239 | 251..=254 => Operand::Reg(RegRange::sgpr(raw as u16, 1)),
        240..=248 => match InlineFloat::from_encoding(raw as u16) {
            Some(f) => Operand::Float(f),
            None => Operand::Raw(raw as u16),
        },
        255 => Operand::Literal(literal.unwrap_or(0)),
        256..=511 => Operand::Reg(RegRange::vgpr((raw - 256) as u16, width)),
        _ => Operand::Raw(raw as u16),
    }
}

//! Encoding: [`Instruction::encode`] (exact for decoded instructions: the
//! words are the source of truth) and [`InstBuilder`], which creates
//! instructions from an opcode and typed operands and checks the result by
//! decoding it again.

use crate::decode::decode_words;
use crate::enc::{self, set_bits};
use crate::inst::Instruction;
use crate::opcode::{Encoding, Field, Kind, Opcode};
use crate::operand::Operand;
use crate::reg::{RegFile, RegRange};
use crate::target::Target;

/// Why an instruction could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The opcode does not exist on the target.
    #[error("opcode {opcode} is not available on {target}")]
    Unsupported {
        /// Opcode.
        opcode: Opcode,
        /// Target.
        target: Target,
    },
    /// Wrong number of operands.
    #[error("{opcode} takes {expected} operands, got {got}")]
    OperandCount {
        /// Opcode.
        opcode: Opcode,
        /// Operands the opcode prints.
        expected: usize,
        /// Operands given.
        got: usize,
    },
    /// An operand value does not fit the operand's kind or width.
    #[error("{opcode} operand {index} ({kind:?}): cannot encode {value:?}")]
    Operand {
        /// Opcode.
        opcode: Opcode,
        /// Operand index.
        index: usize,
        /// Operand kind.
        kind: Kind,
        /// The value given.
        value: Operand,
    },
    /// The assembled words do not decode back to the same opcode (for
    /// example a must-be-zero bit was set through [`InstBuilder::bits`]).
    #[error("assembled words {words:08x?} do not decode as {opcode}")]
    Invalid {
        /// Opcode.
        opcode: Opcode,
        /// The words.
        words: Vec<u32>,
    },
}

impl Instruction {
    /// The instruction bytes (little-endian words) in a fixed buffer, and
    /// how many of them are used. No allocation.
    pub fn to_bytes(&self) -> ([u8; 12], usize) {
        let mut b = [0u8; 12];
        for (i, w) in self.words.iter().enumerate() {
            b[i * 4..i * 4 + 4].copy_from_slice(&w.to_le_bytes());
        }
        (b, self.len().min(12))
    }

    /// The instruction bytes.
    pub fn encode(&self) -> Vec<u8> {
        let (b, n) = self.to_bytes();
        b[..n].to_vec()
    }

    /// Appends the instruction bytes to `out`.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        let (b, n) = self.to_bytes();
        out.extend_from_slice(&b[..n]);
    }

    /// Starts building an instruction of `opcode` for `target`.
    ///
    /// ```
    /// use lathe_isa::{Instruction, Opcode, Operand, RegRange, Target};
    /// let i = Instruction::build(Target::Gfx90a, Opcode::S_ADD_U32)
    ///     .operands(&[
    ///         RegRange::sgpr(0, 1).into(),
    ///         RegRange::sgpr(1, 1).into(),
    ///         Operand::Int(4),
    ///     ])
    ///     .unwrap()
    ///     .finish()
    ///     .unwrap();
    /// assert_eq!(i.to_string(), "s_add_u32 s0, s1, 4");
    /// ```
    ///
    /// An opcode constant names one table entry; where another processor
    /// has the same instruction (encoding, opcode value and mnemonic) with
    /// a different operand shape, that processor's entry is used.
    pub fn build(target: Target, opcode: Opcode) -> InstBuilder {
        let opcode = opcode.for_target(target);
        let info = opcode.info();
        let mut words = [0u32; 3];
        let (_, prefix, lo, width) = enc::opcode_pos(info.enc);
        words[0] = prefix;
        set_bits(&mut words[0], lo, width, info.code as u32);
        match info.enc {
            Encoding::Vop2Sdwa | Encoding::Vop1Sdwa | Encoding::VopcSdwa => {
                words[0] |= enc::SRC0_SDWA;
                // dst_sel/src sels DWORD by default.
                words[1] = 6 << 16;
                if info.enc != Encoding::VopcSdwa {
                    words[1] |= 6 << 8;
                }
                if info.enc == Encoding::Vop2Sdwa || info.enc == Encoding::VopcSdwa {
                    words[1] |= 6 << 24;
                }
            }
            Encoding::Vop2Dpp | Encoding::Vop1Dpp | Encoding::VopcDpp => {
                words[0] |= enc::SRC0_DPP;
                // quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf
                words[1] = 0xE4 << 8 | 0xF << 24 | 0xF << 28;
            }
            // VOP3 DPP (D61): the same defaults in word 2; DPP8 the
            // identity lane selects.
            Encoding::Vop3Dpp | Encoding::Vop3DppF16 => {
                words[1] |= enc::SRC0_DPP;
                words[2] = 0xE4 << 8 | 0xF << 24 | 0xF << 28;
            }
            Encoding::Vop3Dpp8 | Encoding::Vop3Dpp8F16 => {
                words[1] |= enc::SRC0_DPP8;
                words[2] = enc::sdwa_dpp::DPP8_IDENTITY << 8;
            }
            // 32-bit DPP8 (D66): the same, one word earlier.
            Encoding::Vop2Dpp8 | Encoding::Vop1Dpp8 | Encoding::VopcDpp8 => {
                words[0] |= enc::SRC0_DPP8;
                words[1] = enc::sdwa_dpp::DPP8_IDENTITY << 8;
            }
            // LLVM's assembler sets every `op_sel_hi` bit the opcode leaves
            // free (also where it is not printed, e.g. v_accvgpr_read),
            // except for the mixed-precision ops where 0 is the default.
            Encoding::Vop3p if !info.name().contains("_mix_") => {
                let zero = info.zero_bits(target);
                words[0] |= (1 << 14) & !zero[0];
                words[1] |= (3 << 27) & !zero[1];
            }
            Encoding::Global | Encoding::Scratch => {
                // saddr = off
                words[1] |= 0x7F << 16;
            }
            Encoding::GlobalGfx10
            | Encoding::ScratchGfx10
            | Encoding::FlatGfx10
            | Encoding::GlobalGfx11
            | Encoding::ScratchGfx11
            | Encoding::FlatGfx11 => {
                words[1] |= enc::gfx10::null_of(info.enc) << 16;
            }
            // soffset = null
            Encoding::SmemGfx10 | Encoding::SmemGfx11 | Encoding::SmemGfx12 => {
                words[1] |= enc::gfx10::null_of(info.enc) << 25
            }
            // saddr = null
            Encoding::FlatGfx12 | Encoding::GlobalGfx12 | Encoding::ScratchGfx12 => {
                words[0] |= enc::gfx12::NULL;
            }
            // GFX10 v_cmpx_*_e64 write EXEC only; the assembler puts
            // exec_lo in the (unprinted) destination field.
            Encoding::Vop3Gfx10 | Encoding::Vop3F16
                if info.name().starts_with("v_cmpx_")
                    && !info
                        .operands()
                        .iter()
                        .any(|o| matches!(o.field, Field::Vdst | Field::Sdst)) =>
            {
                words[0] |= 0x7E;
            }
            Encoding::Vop3pGfx10 if !info.name().contains("_mix_") => {
                let zero = info.zero_bits(target);
                words[0] |= (1 << 14) & !zero[0];
                words[1] |= (3 << 27) & !zero[1];
            }
            _ => {}
        }
        InstBuilder {
            target,
            opcode,
            words,
            literal: None,
            literal_hi: None,
            error: if info.supports(target) {
                None
            } else {
                Some(BuildError::Unsupported { opcode, target })
            },
        }
    }

    /// A copy with a new 16-bit immediate (SOPP/SOPK `simm16`), e.g. to
    /// relocate a branch. Returns `None` for other encodings.
    pub fn with_simm16(&self, v: u16) -> Option<Instruction> {
        match self.encoding() {
            Encoding::Sopp | Encoding::Sopk => {
                let mut i = *self;
                set_bits(&mut i.words[0], 0, 16, v as u32);
                Some(i)
            }
            _ => None,
        }
    }

    /// For a PC-relative branch at `addr`, a copy that branches to `target`
    /// instead; `None` if not a branch or the distance does not fit.
    pub fn with_branch_target(&self, addr: u64, target: u64) -> Option<Instruction> {
        self.branch_target(addr)?;
        let delta = (target as i64).checked_sub(addr as i64 + 4)?;
        if delta % 4 != 0 {
            return None;
        }
        let d = delta / 4;
        if !(i16::MIN as i64..=i16::MAX as i64).contains(&d) {
            return None;
        }
        self.with_simm16(d as i16 as u16)
    }
}

/// Builds an [`Instruction`] from an opcode and typed operands.
#[derive(Debug, Clone)]
pub struct InstBuilder {
    target: Target,
    opcode: Opcode,
    words: [u32; 3],
    literal: Option<u32>,
    /// The high dword of GFX12.5's 64-bit literal (D54).
    literal_hi: Option<u32>,
    error: Option<BuildError>,
}

impl InstBuilder {
    /// Sets all printed operands, in printed order (as
    /// [`Instruction::operands`] lists them for this opcode's base form).
    pub fn operands(mut self, ops: &[Operand]) -> Result<InstBuilder, BuildError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let info = self.opcode.info();
        // VOPD: the Y operation (its opcode set by the modifiers) follows.
        let y = match enc::vopd_y_enc(info.enc) {
            Some(yenc) => {
                let (_, _, lo, width) = enc::opcode_pos(yenc);
                let code = crate::enc::bits(self.words[0], lo, width) as u16;
                Opcode::lookup(self.target, yenc, code).map_or(&[][..], |o| o.info().operands())
            }
            None => &[],
        };
        let specs: Vec<_> = info
            .operands()
            .iter()
            .chain(y)
            .filter(|s| {
                !(s.field == Field::Vdst && info.has(self.target, crate::opcode::flags::RTN_GLC))
            })
            .collect();
        if specs.len() != ops.len() {
            return Err(BuildError::OperandCount {
                opcode: self.opcode,
                expected: specs.len(),
                got: ops.len(),
            });
        }
        for (i, (spec, op)) in specs.iter().zip(ops).enumerate() {
            self = self.operand_at(i, spec, *op)?;
        }
        Ok(self)
    }

    /// Sets the modifier fields (clamp, omod, offsets, cache policy, SDWA/DPP
    /// controls, ...). Operand-dependent bits (acc, SDWA scalar selects,
    /// `saddr` off) are set by the operands.
    pub fn modifiers(mut self, m: &crate::modifiers::Modifiers) -> InstBuilder {
        let info = self.opcode.info();
        crate::modifiers::apply(&mut self.words, info.enc, info.operands(), m);
        if info.enc == Encoding::Vopd3X {
            // `v_dual_bitop2_b32`'s `bitop3:` byte is its src2 field.
            let probe = Instruction {
                words: self.words,
                opcode: self.opcode,
                len: 12,
                target: self.target,
            };
            for (y, v) in [(false, m.bitop3), (true, m.bitop3_y)] {
                if enc::vopd3::bitop3(&probe, y).is_some() {
                    let (w, lo) = enc::vopd3::bitop3_pos(y);
                    set_bits(&mut self.words[w], lo, 8, v as u32);
                }
            }
        }
        self
    }

    /// Sets operands from decoded [`Op`](crate::Op)s (value, field and
    /// kind, and the neg/abs/sext source modifiers), as
    /// [`Instruction::operands`] returns them; call after
    /// [`InstBuilder::modifiers`] so that address forms (SMEM offset
    /// register, FLAT `saddr`) see the mode bits.
    pub fn ops(mut self, ops: &[crate::operand::Op]) -> Result<InstBuilder, BuildError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let enc = self.opcode.info().enc;
        for (i, op) in ops.iter().enumerate() {
            let spec = op.spec;
            let mut op = *op;
            // A true16 high half outside VOP3 is bit 7 of the register
            // number (in VOP3 it is an `op_sel` bit, set by the modifiers).
            if let (true, Operand::Reg(r)) = (op.hi, &mut op.value) {
                if !matches!(enc.family(), Encoding::Vop3 | Encoding::Vop3p) {
                    r.first |= 0x80;
                }
            }
            match (enc, spec.field, op.value) {
                // SMEM offset operand: immediate (in the modifiers), the
                // soffset register, or a register in the offset field.
                (
                    Encoding::Smem
                    | Encoding::SmemGfx10
                    | Encoding::SmemGfx11
                    | Encoding::SmemGfx12,
                    Field::Offset,
                    Operand::Imm(_),
                ) => {}
                (
                    Encoding::SmemGfx10 | Encoding::SmemGfx11 | Encoding::SmemGfx12,
                    Field::Offset,
                    Operand::Reg(r),
                ) => {
                    let code = crate::reg::sgpr_code(self.target, r.first);
                    set_bits(&mut self.words[1], 25, 7, code);
                }
                (Encoding::Smem, Field::Offset, Operand::Reg(r)) => {
                    if self.words[0] >> 14 & 1 != 0 {
                        set_bits(&mut self.words[1], 25, 7, r.first as u32);
                    } else {
                        set_bits(&mut self.words[1], 0, 7, r.first as u32);
                    }
                }
                // VOPC SDWA explicit scalar destination.
                (Encoding::VopcSdwa, Field::Sdst, Operand::Reg(r)) => {
                    set_bits(&mut self.words[1], 8, 7, r.first as u32);
                    set_bits(&mut self.words[1], 15, 1, 1);
                }
                // GFX11 scratch: `sve` says vaddr is used.
                (Encoding::ScratchGfx11, Field::Addr, Operand::Reg(_)) => {
                    set_bits(&mut self.words[1], 23, 1, 1);
                    self = self.operand_at(i, &spec, op.value)?;
                }
                // GFX12 scratch: `sve` (bit 49) says vaddr is used.
                (Encoding::ScratchGfx12, Field::Addr, Operand::Reg(_)) => {
                    set_bits(&mut self.words[1], 17, 1, 1);
                    self = self.operand_at(i, &spec, op.value)?;
                }
                (_, Field::Saddr, Operand::Off) if enc.is_gfx12() => {
                    set_bits(&mut self.words[0], 0, 7, crate::enc::gfx12::NULL);
                }
                (_, Field::Saddr, Operand::Off) => {
                    let off = if enc.is_gfx10() {
                        crate::enc::gfx10::null_of(enc)
                    } else {
                        crate::enc::flat::SADDR_OFF
                    };
                    set_bits(&mut self.words[1], 16, 7, off);
                }
                (_, _, Operand::Off) => {}
                _ => {
                    self = self.operand_at(i, &spec, op.value)?;
                }
            }
            // Source modifiers.
            let si = match spec.field {
                Field::Src0 => Some(0u8),
                Field::Src1 | Field::Vsrc1 => Some(1),
                Field::Src2 => Some(2),
                _ => None,
            };
            if let Some(si) = si {
                let (neg, abs, sext): (Option<u32>, Option<u32>, Option<u32>) = match enc.family() {
                    Encoding::Vop3 | Encoding::Vop3p => {
                        (Some(61 + si as u32), Some(8 + si as u32), None)
                    }
                    Encoding::Vop2Sdwa | Encoding::Vop1Sdwa | Encoding::VopcSdwa => {
                        let b = if si == 0 { 32 + 19 } else { 32 + 27 };
                        (Some(b + 1), Some(b + 2), Some(b))
                    }
                    Encoding::Vop2Dpp | Encoding::Vop1Dpp | Encoding::VopcDpp => {
                        let b = if si == 0 { 32 + 20 } else { 32 + 22 };
                        (Some(b), Some(b + 1), None)
                    }
                    Encoding::Vopd3X => (enc::vopd3::neg_bit(&spec), None, None),
                    _ => (None, None, None),
                };
                for (flag, bit) in [(op.neg, neg), (op.abs, abs), (op.sext, sext)] {
                    if let (true, Some(b)) = (flag, bit) {
                        let w = (b / 32) as usize;
                        set_bits(&mut self.words[w], (b % 32) as u8, 1, 1);
                    }
                }
            }
        }
        Ok(self)
    }

    /// Sets one operand by its index in the opcode's operand list.
    pub fn operand(self, index: usize, value: Operand) -> Result<InstBuilder, BuildError> {
        let info = self.opcode.info();
        let Some(spec) = info.operands().get(index) else {
            return Err(BuildError::OperandCount {
                opcode: self.opcode,
                expected: info.operands().len(),
                got: index + 1,
            });
        };
        self.operand_at(index, spec, value)
    }

    fn operand_at(
        mut self,
        index: usize,
        spec: &crate::opcode::OperandSpec,
        value: Operand,
    ) -> Result<InstBuilder, BuildError> {
        let (field, kind, width) = (spec.field, spec.kind, spec.width);
        let opcode = self.opcode;
        let err = || BuildError::Operand {
            opcode,
            index,
            kind,
            value,
        };
        let enc = self.opcode.info().enc;
        let raw: u32 = match (kind, value) {
            (Kind::Vcc | Kind::Off, _) => return Ok(self),
            (Kind::Lit64, Operand::Literal64(v)) => {
                self.literal = Some(v as u32);
                self.literal_hi = Some((v >> 32) as u32);
                return Ok(self);
            }
            (Kind::Lit32 | Kind::LitImm32, Operand::Literal(v)) => {
                self.literal = Some(v);
                return Ok(self);
            }
            (Kind::SReg, Operand::Reg(r)) if r.file == RegFile::Scalar => {
                crate::reg::sgpr_code(self.target, r.first)
            }
            // 8-bit scalar destination fields decode constants too.
            (Kind::SReg, Operand::Int(i)) if (0..=64).contains(&i) => 128 + i as u32,
            (Kind::SReg, Operand::Int(i)) if (-16..0).contains(&i) => (192 - i as i32) as u32,
            (Kind::SReg, Operand::Float(f)) => f as u32,
            (Kind::SReg, Operand::Literal(l)) => {
                self.literal = Some(l);
                255
            }
            (Kind::SReg, Operand::Off) if field == Field::Saddr => {
                if self.opcode.info().enc.is_gfx12() {
                    crate::enc::gfx12::NULL
                } else if self.opcode.info().enc.is_gfx10() {
                    crate::enc::gfx10::null_of(self.opcode.info().enc)
                } else {
                    crate::enc::flat::SADDR_OFF
                }
            }
            (Kind::SRegX2, Operand::Reg(r)) if r.file == RegFile::Scalar && r.first % 2 == 0 => {
                r.first as u32 / 2
            }
            // A GFX11 MIMG resource or sampler of `null` (D81: s124, the
            // field's 31).
            (Kind::SRegX4, Operand::Reg(r))
                if r.file == RegFile::Scalar
                    && r.first == 125
                    && self.opcode.info().enc == Encoding::MimgGfx11 =>
            {
                31
            }
            (Kind::SRegX4, Operand::Reg(r)) if r.file == RegFile::Scalar && r.first % 4 == 0 => {
                r.first as u32 / 4
            }
            (Kind::SSrc | Kind::VSrc | Kind::ASrc | Kind::AvSrc | Kind::SdwaSrc, v) => {
                let r = match v {
                    Operand::Reg(RegRange {
                        file: RegFile::Vgpr,
                        first,
                        ..
                    }) if kind == Kind::SdwaSrc => first as u32,
                    Operand::Reg(RegRange {
                        file: RegFile::Vgpr,
                        first,
                        ..
                    }) if kind != Kind::SSrc && kind != Kind::ASrc => 256 + first as u32,
                    Operand::Reg(RegRange {
                        file: RegFile::Agpr,
                        first,
                        ..
                    }) if kind == Kind::ASrc || kind == Kind::AvSrc => {
                        if kind == Kind::AvSrc {
                            self.set_acc(field, true);
                        }
                        256 + first as u32
                    }
                    Operand::Reg(RegRange {
                        file: RegFile::Scalar,
                        first,
                        ..
                    }) => crate::reg::sgpr_code(self.target, first),
                    Operand::Int(i) if (0..=64).contains(&i) => 128 + i as u32,
                    Operand::Int(i) if (-16..0).contains(&i) => (192 - i as i32) as u32,
                    Operand::Float(f) => f as u32,
                    Operand::Literal(l) => {
                        self.literal = Some(l);
                        255
                    }
                    Operand::Literal64(l) if self.target.is_gfx1250() => {
                        self.literal = Some(l as u32);
                        self.literal_hi = Some((l >> 32) as u32);
                        254
                    }
                    _ => return Err(err()),
                };
                if kind == Kind::SdwaSrc {
                    let scalar = !matches!(
                        v,
                        Operand::Reg(RegRange {
                            file: RegFile::Vgpr,
                            ..
                        })
                    );
                    let bit = if field == Field::Src0 { 23 } else { 31 };
                    set_bits(&mut self.words[1], bit, 1, scalar as u32);
                }
                r
            }
            (Kind::VReg, Operand::Reg(r)) if r.file == RegFile::Vgpr => r.first as u32,
            (Kind::AReg, Operand::Reg(r)) if r.file == RegFile::Agpr => r.first as u32,
            (Kind::AvReg, Operand::Reg(r)) if r.file != RegFile::Scalar => {
                self.set_acc(field, r.file == RegFile::Agpr);
                r.first as u32
            }
            (Kind::Branch, Operand::Branch(b)) => b as u16 as u32,
            (_, Operand::Imm(v)) => v as u32,
            _ => return Err(err()),
        };
        let _ = width;
        // The spec's own position (a VOPD Y operand's is in `VopdY`).
        let Some((w, lo, bits)) = (match spec.pos {
            [_, _, 0] => enc::field_pos(enc, field),
            [w, lo, n] => Some((w, lo, n)),
        }) else {
            return Err(err());
        };
        let raw = if field == Field::VdstY { raw >> 1 } else { raw };
        if raw >> bits != 0 {
            return Err(err());
        }
        set_bits(&mut self.words[w as usize], lo, bits, raw);
        Ok(self)
    }

    fn set_acc(&mut self, field: Field, on: bool) {
        let bit = match (self.opcode.info().enc, field) {
            (Encoding::Ds, _) => 25,
            (Encoding::Flat | Encoding::Global | Encoding::Scratch, _) => 55,
            (Encoding::Mubuf | Encoding::Mtbuf, _) => 55,
            (Encoding::Mimg, _) => 16,
            (Encoding::Mai, Field::Vdst | Field::Src2) => 15,
            (Encoding::Mai, Field::Src0) => 59,
            (Encoding::Mai, Field::Src1) => 60,
            _ => return,
        };
        set_bits(
            &mut self.words[(bit / 32) as usize],
            (bit % 32) as u8,
            1,
            on as u32,
        );
    }

    /// Sets `width` raw bits at bit `lo` of word `word` (modifiers, offsets,
    /// cache-policy bits). Checked when [`InstBuilder::finish`] re-decodes.
    pub fn bits(mut self, word: usize, lo: u8, width: u8, v: u32) -> InstBuilder {
        if let Some(w) = self.words.get_mut(word) {
            set_bits(w, lo, width, v);
        }
        self
    }

    /// Sets a raw field value.
    pub fn field(self, f: Field, v: u32) -> InstBuilder {
        match enc::field_pos(self.opcode.info().enc, f) {
            Some((w, lo, width)) => self.bits(w as usize, lo, width, v),
            None => self,
        }
    }

    /// The words assembled so far (without the literal).
    pub fn raw_words(&self) -> [u32; 3] {
        self.words
    }

    /// Assembles the words and checks them by decoding.
    pub fn finish(self) -> Result<Instruction, BuildError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let mut words = self.words.to_vec();
        let nbase = enc::words_of(self.opcode.info().enc, words[0]);
        words.truncate(nbase);
        let in_place = self.opcode.info().enc == Encoding::Vopd3X
            && self.literal_hi.is_some()
            && self.literal == words.get(1).copied()
            && self.literal_hi == words.get(2).copied();
        if !in_place {
            // (A VOPD3 64-bit literal is its own words 1-2, D57; any other
            // value makes the check below fail.)
            if let Some(l) = self.literal {
                words.push(l);
            }
            words.extend(self.literal_hi);
        }
        let got = decode_words(self.target, words[0], |i| words.get(i).copied());
        match got {
            i if i.opcode == self.opcode && i.words() == words.as_slice() => Ok(i),
            _ => Err(BuildError::Invalid {
                opcode: self.opcode,
                words,
            }),
        }
    }
}

impl From<RegRange> for Operand {
    fn from(r: RegRange) -> Operand {
        Operand::Reg(r)
    }
}

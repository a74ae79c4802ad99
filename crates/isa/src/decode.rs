//! Decoding: bytes to [`Instruction`]s, one at a time ([`decode`]) or as an
//! iterator over a code buffer ([`Decoder`]). No allocation.
//!
//! Decoding accepts exactly what LLVM 22's disassembler accepts; anything
//! else becomes an [`Instruction::invalid`] of one word, printed as
//! `.long 0x...` like llvm-objdump does. Where LLVM 22 crashes (VOP3/VOP3P
//! and buffer `soffset` literals, SDWA selects of 7) the word is invalid.

use crate::enc::{self, bits};
use crate::inst::Instruction;
use crate::opcode::{Encoding, Opcode};
use crate::target::Target;

#[inline]
fn word(bytes: &[u8], i: usize) -> Option<u32> {
    let b = bytes.get(i * 4..i * 4 + 4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The encoding word 0 belongs to on `target` (before opcode lookup).
#[inline]
pub(crate) fn classify(target: Target, w0: u32) -> Option<Encoding> {
    if target.generation() >= 12 && w0 >> 30 != 0b10 && w0 >> 31 != 0 {
        use Encoding as E;
        return Some(match w0 >> 26 {
            0x32 => E::VopdX,
            // VOPD3 (GFX12.5; 0xCF: VOP3P's major opcode with bits 25:24 set).
            0x33 if (w0 >> 24) & 3 == 3 && target.is_gfx1250() => E::Vopd3X,
            0x3D => E::SmemGfx12,
            0x35 => E::Vop3Gfx10,
            0x33 if (w0 >> 23) & 7 == 0 => E::Vop3pGfx10,
            0x36 => E::DsGfx10,
            0x3B => match (w0 >> 24) & 3 {
                0 => E::FlatGfx12,
                1 => E::ScratchGfx12,
                2 => E::GlobalGfx12,
                _ => return None,
            },
            0x31 => E::MubufGfx12,
            // VIMAGE/VSAMPLE (D72; not on GFX12.5, whose tables have none).
            0x34 => E::VimageGfx12,
            0x39 => E::VsampleGfx12,
            _ => return None,
        });
    }
    if target.generation() >= 11 && w0 >> 30 != 0b10 && w0 >> 31 != 0 {
        use Encoding as E;
        return Some(match w0 >> 26 {
            0x32 => E::VopdX,
            0x3D => E::SmemGfx11,
            0x35 => E::Vop3Gfx10,
            0x33 if (w0 >> 23) & 7 == 0 => E::Vop3pGfx10,
            0x36 => E::DsGfx10,
            0x37 => match (w0 >> 16) & 3 {
                0 => E::FlatGfx11,
                1 => E::ScratchGfx11,
                2 => E::GlobalGfx11,
                _ => return None,
            },
            0x38 => E::MubufGfx11,
            0x3C => E::MimgGfx11,
            _ => return None,
        });
    }
    if target.generation() >= 10 && w0 >> 30 != 0b10 && w0 >> 31 != 0 {
        use Encoding as E;
        return Some(match w0 >> 26 {
            0x3D => E::SmemGfx10,
            0x35 => E::Vop3Gfx10,
            0x33 if (w0 >> 23) & 7 == 0 => E::Vop3pGfx10,
            0x36 => E::DsGfx10,
            0x37 => match (w0 >> 14) & 3 {
                0 => E::FlatGfx10,
                1 => E::ScratchGfx10,
                2 => E::GlobalGfx10,
                _ => return None,
            },
            0x38 => E::MubufGfx10,
            // MIMG (D81): word 0 bit 0 is opcode bit 7.
            0x3C if w0 & 1 != 0 => E::MimgHiGfx10,
            0x3C => E::MimgGfx10,
            _ => return None,
        });
    }
    classify_gfx9(w0, target.generation() >= 10)
}

/// The GFX9 encodings (the 32-bit ones are shared with GFX10+, which adds
/// their DPP8 forms: `gfx10`).
#[inline]
fn classify_gfx9(w0: u32, gfx10: bool) -> Option<Encoding> {
    use Encoding as E;
    if w0 >> 31 == 0 {
        let op = (w0 >> 25) & 0x3F;
        let src0 = w0 & 0x1FF;
        return Some(match (op, src0) {
            // DPP8 (GFX10+, D66); on GFX9 these src0 values are reserved.
            (0x3E, enc::SRC0_DPP8 | enc::SRC0_DPP8_FI) if gfx10 => E::VopcDpp8,
            (0x3F, enc::SRC0_DPP8 | enc::SRC0_DPP8_FI) if gfx10 => E::Vop1Dpp8,
            (0..=0x3D, enc::SRC0_DPP8 | enc::SRC0_DPP8_FI) if gfx10 => E::Vop2Dpp8,
            (0x3E, enc::SRC0_SDWA) => E::VopcSdwa,
            (0x3E, enc::SRC0_DPP) => E::VopcDpp,
            (0x3E, _) => E::Vopc,
            (0x3F, enc::SRC0_SDWA) => E::Vop1Sdwa,
            (0x3F, enc::SRC0_DPP) => E::Vop1Dpp,
            (0x3F, _) => E::Vop1,
            (_, enc::SRC0_SDWA) => E::Vop2Sdwa,
            (_, enc::SRC0_DPP) => E::Vop2Dpp,
            _ => E::Vop2,
        });
    }
    if w0 >> 30 == 0b10 {
        if w0 >> 28 != 0xB {
            return Some(E::Sop2);
        }
        return Some(match w0 >> 23 {
            0x17D => E::Sop1,
            0x17E => E::Sopc,
            0x17F => E::Sopp,
            _ => E::Sopk,
        });
    }
    Some(match w0 >> 26 {
        0x30 => E::Smem,
        0x34 if (w0 >> 23) & 7 == 7 => E::Vop3p,
        0x34 => E::Vop3,
        0x36 => E::Ds,
        0x37 => match (w0 >> 14) & 3 {
            0 => E::Flat,
            1 => E::Scratch,
            2 => E::Global,
            _ => return None,
        },
        0x38 => E::Mubuf,
        0x3A => E::Mtbuf,
        0x3C => E::Mimg,
        _ => return None,
    })
}

/// Decodes one instruction from the start of `bytes`.
///
/// Never panics. Returns an invalid instruction (one word, or the remaining
/// 1-3 bytes zero-padded) when the bytes do not form a valid instruction.
#[inline]
pub fn decode(target: Target, bytes: &[u8]) -> Instruction {
    let Some(w0) = word(bytes, 0) else {
        let mut b = [0u8; 4];
        let n = bytes.len().min(4);
        b[..n].copy_from_slice(&bytes[..n]);
        let mut i = Instruction::invalid(target, u32::from_le_bytes(b));
        i.len = n as u8;
        return i;
    };
    decode_words(target, w0, |i| word(bytes, i))
}

/// Decodes from words supplied by `get(i)`; an invalid instruction (one
/// word) if LLVM would not decode them.
#[inline]
pub(crate) fn decode_words(
    target: Target,
    w0: u32,
    get: impl Fn(usize) -> Option<u32>,
) -> Instruction {
    let Some(enc) = classify(target, w0) else {
        return Instruction::invalid(target, w0);
    };
    if enc == Encoding::Vop3Gfx10 && target.generation() >= 11 {
        // VOP3 DPP16/DPP8 (D61): word 1's src0 field selects the form; an
        // opcode without one decodes as plain VOP3 (as LLVM does).
        let dpp = match get(1).map(|w1| w1 & 0x1FF) {
            Some(enc::SRC0_DPP) => Some(Encoding::Vop3Dpp),
            Some(enc::SRC0_DPP8 | enc::SRC0_DPP8_FI) => Some(Encoding::Vop3Dpp8),
            _ => None,
        };
        if let Some(d) = dpp {
            let r = decode_as(target, d, w0, &get);
            if !r.is_invalid() {
                return r;
            }
            // GFX11 (D71): a word the true16 reading rejects is read with
            // the fake16 table, as LLVM's decoder falls back.
            if target.generation() == 11 {
                let f = match d {
                    Encoding::Vop3Dpp => Encoding::Vop3DppF16,
                    _ => Encoding::Vop3Dpp8F16,
                };
                let r = decode_as(target, f, w0, &get);
                if !r.is_invalid() {
                    return r;
                }
            }
        }
    }
    let r = decode_as(target, enc, w0, &get);
    if !r.is_invalid() {
        return r;
    }
    // GFX11 (D79): a plain VOP3 word the true16 reading rejects is read
    // with the fake16 table, as LLVM's decoder falls back.
    if enc == Encoding::Vop3Gfx10 && target.generation() == 11 {
        return decode_as(target, Encoding::Vop3F16, w0, &get);
    }
    // An SDWA/DPP word LLVM cannot decode as such is retried as the plain
    // 32-bit encoding (valid for opcodes that ignore src0, e.g. v_nop).
    match enc {
        Encoding::Vop1Sdwa | Encoding::Vop1Dpp | Encoding::Vop1Dpp8 => {
            decode_as(target, Encoding::Vop1, w0, &get)
        }
        Encoding::Vop2Sdwa | Encoding::Vop2Dpp | Encoding::Vop2Dpp8 => {
            decode_as(target, Encoding::Vop2, w0, &get)
        }
        Encoding::VopcSdwa | Encoding::VopcDpp | Encoding::VopcDpp8 => {
            decode_as(target, Encoding::Vopc, w0, &get)
        }
        _ => r,
    }
}

#[inline(always)]
fn decode_as(
    target: Target,
    mut enc: Encoding,
    w0: u32,
    get: &impl Fn(usize) -> Option<u32>,
) -> Instruction {
    let invalid = Instruction::invalid(target, w0);
    let nbase = enc::words_of(enc, w0);
    if nbase > 3 {
        // A GFX10 MIMG word with more than one NSA dword (D81).
        return invalid;
    }
    let w1 = if nbase > 1 {
        match get(1) {
            Some(w) => w,
            None => return invalid,
        }
    } else {
        0
    };
    let (_, _, lo, width) = enc::opcode_pos(enc);
    let code = bits(w0, lo, width) as u16;
    let opcode = match Opcode::lookup(target, enc, code) {
        Some(o) => o,
        None if enc == Encoding::Vop3p => {
            enc = Encoding::Mai;
            match Opcode::lookup(target, enc, code) {
                Some(o) => o,
                None => return invalid,
            }
        }
        None => return invalid,
    };
    let info = opcode.info();
    let zero = info.zero_bits(target);
    let one = info.one_bits(target);
    if (w0 & zero[0]) | (w1 & zero[1]) | ((w0 & one[0]) ^ one[0]) | ((w1 & one[1]) ^ one[1]) != 0 {
        return invalid;
    }
    let w2 = if nbase > 2 {
        match get(2) {
            Some(w) => w,
            None => return invalid,
        }
    } else {
        0
    };
    let mut inst = Instruction {
        words: [w0, w1, w2],
        opcode,
        len: (nbase * 4) as u8,
        target,
    };
    if enc.is_gfx12() && !enc::gfx12::valid(&inst) {
        return invalid;
    }
    if enc.is_gfx10() && !enc::gfx10::valid(&inst) {
        return invalid;
    }
    let Some(mut needs_lit) = crate::validate::scan_operands(&inst, enc, info) else {
        return invalid;
    };
    if let Some(yenc) = enc::vopd_y_enc(enc) {
        // The Y half: its opcode, must-be-zero bits and operands.
        let Some(y) = inst.vopd_y() else {
            return invalid;
        };
        let yi = y.info();
        let z = yi.zero_bits(target);
        if yenc == Encoding::Vopd3Y {
            // VOPD3's Y masks hold word 2 in word 0's place (D57).
            let o = yi.one_bits(target);
            if (w2 & z[0]) | (w1 & z[1]) | ((w2 & o[0]) ^ o[0]) | ((w1 & o[1]) ^ o[1]) != 0 {
                return invalid;
            }
        } else if (w0 & z[0]) | (w1 & z[1]) != 0 {
            return invalid;
        }
        match crate::validate::scan_operands(&inst, yenc, yi) {
            Some(l) => needs_lit = needs_lit.max(l),
            None => return invalid,
        }
    }
    if enc == Encoding::Vopd3X && needs_lit != 0 {
        // VOPD3 with a 32-bit literal is four words, more than an
        // `Instruction` holds. A 64-bit one (source 254) LLVM 22 reads
        // from the instruction's own words 1 and 2 (as if it followed a
        // one-word instruction) and consumes three words; only 32-bit
        // operands take it here (D57).
        if !enc::vopd3::lit64_in_place(&inst) {
            return invalid;
        }
    } else if needs_lit == 2 {
        // GFX12.5's 64-bit literal: two dwords, after a one-word
        // instruction only (a VOP3 one would need four words).
        let (Some(lo), Some(hi)) = (get(nbase), get(nbase + 1)) else {
            return invalid;
        };
        if nbase != 1 {
            return invalid;
        }
        inst.words[1] = lo;
        inst.words[2] = hi;
        inst.len += 8;
    } else if needs_lit == 1 {
        match enc {
            // LLVM 22 crashes on these; there is no output to match.
            Encoding::Vop3
            | Encoding::Vop3p
            | Encoding::Mai
            | Encoding::Mubuf
            | Encoding::MubufGfx10
            | Encoding::MubufGfx11
            | Encoding::Mtbuf => return invalid,
            // No room for one in an instruction of three words.
            _ if nbase > 2 => return invalid,
            _ => {}
        }
        let Some(lit) = get(nbase) else {
            return invalid;
        };
        if let Some(slot) = inst.words.get_mut(nbase) {
            *slot = lit;
        }
        inst.len += 4;
    }
    if crate::validate::has_tail_rules(enc) && !crate::validate::valid_tail(&inst, enc, info) {
        return invalid;
    }
    inst
}

/// An iterator over the instructions of a code buffer, yielding each
/// instruction with its byte offset.
///
/// ```
/// use lathe_isa::{Decoder, Target};
/// let code = [0x01, 0x02, 0x00, 0x80, 0x00, 0x00, 0x81, 0xbf]; // s_add_u32 s0, s1, s2; s_endpgm
/// let texts: Vec<String> = Decoder::new(Target::Gfx90a, &code)
///     .map(|(_, i)| i.to_string())
///     .collect();
/// assert_eq!(texts, ["s_add_u32 s0, s1, s2", "s_endpgm"]);
/// ```
#[derive(Debug, Clone)]
pub struct Decoder<'a> {
    target: Target,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    /// A decoder over `bytes` for `target`.
    pub fn new(target: Target, bytes: &'a [u8]) -> Decoder<'a> {
        Decoder {
            target,
            bytes,
            pos: 0,
        }
    }

    /// Byte offset of the next instruction.
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl Iterator for Decoder<'_> {
    type Item = (usize, Instruction);

    #[inline]
    fn next(&mut self) -> Option<(usize, Instruction)> {
        let rest = self.bytes.get(self.pos..)?;
        if rest.is_empty() {
            return None;
        }
        let inst = decode(self.target, rest);
        let at = self.pos;
        self.pos += inst.len().max(1);
        Some((at, inst))
    }
}

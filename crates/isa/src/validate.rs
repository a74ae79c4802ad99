//! Validity rules beyond the generated must-be-zero bits: which operand
//! values LLVM 22's disassembler rejects.

use crate::enc::bits;
use crate::inst::Instruction;
use crate::opcode::{flags, Encoding, Field, Kind, OpInfo};

/// Source encodings no operand accepts (reserved constants).
fn src_reserved(v: u32) -> bool {
    matches!(v, 209..=229 | 232..=234 | 249 | 250)
}

/// Special (non-SGPR, non-TTMP) scalar registers that cannot start a
/// 96-bit or wider tuple (`null` can).
fn is_special(v: u32) -> bool {
    matches!(v, 102..=107 | 124 | 126 | 127 | 230 | 231 | 235..=239 | 251..=254)
}

/// A scalar tuple must fit in s0..s101 or ttmp0..15 once LLVM has clamped
/// it to 16 registers and aligned it down.
fn scalar_tuple_fits(first: u32, count: u8) -> bool {
    if count < 2 {
        return true;
    }
    let n = count.min(16) as u32;
    let align = if n == 2 { 2 } else { 4 };
    match first {
        // LLVM's SGPR file has 106 registers; tuples may reach into 102-105.
        0..=101 => first - first % align + n <= 106,
        108..=123 => (first - 108) - (first - 108) % align + n <= 16,
        _ => true,
    }
}

/// Scalar encodings that do not start a 64-bit (or wider) register.
fn bad_wide_scalar(v: u32) -> bool {
    matches!(v, 103 | 105 | 107 | 124 | 127 | 231 | 254)
}

/// Checks every operand field of a freshly assembled instruction (before its
/// literal is read). Returns `None` when LLVM would reject the words,
/// otherwise how many literal dwords follow: 0, 1, or 2 (GFX12.5's 64-bit
/// literal, D54).
#[inline(always)]
pub(crate) fn scan_operands(inst: &Instruction, enc: Encoding, info: &OpInfo) -> Option<u8> {
    let mut needs_lit = 0u8;
    // A K literal (`v_fmamk_*`, `s_fmaak_*`) and a source literal share
    // their dwords: on GFX12.5 both must then be 32-bit or both 64-bit
    // (D54).
    let (mut k_lit, mut src_lit) = (0u8, 0u8);
    let rtn_off = enc_is_flat(enc) && info.has(inst.target(), flags::RTN_GLC) && !inst.bit(16);
    for spec in info.operands() {
        if spec.pos[2] == 0 {
            match spec.kind {
                Kind::Lit32 | Kind::LitImm32 => {
                    needs_lit = needs_lit.max(1);
                    k_lit = 1;
                }
                Kind::Lit64 => {
                    needs_lit = 2;
                    k_lit = 2;
                }
                _ => {}
            }
            continue;
        }
        // Word 2 too (VOPD3's Y operands, D57).
        let raw = bits(inst.w(spec.pos[0] as usize), spec.pos[1], spec.pos[2]);
        // The rules below use GFX9/10's numbering (`m0` 124, `null` 125).
        let raw = match spec.kind {
            Kind::SSrc | Kind::VSrc | Kind::ASrc | Kind::AvSrc | Kind::SReg if raw < 128 => {
                crate::reg::sgpr_code(inst.target(), raw as u16)
            }
            _ => raw,
        };
        match spec.kind {
            Kind::SSrc | Kind::VSrc | Kind::ASrc | Kind::AvSrc => {
                if raw == 255 {
                    needs_lit = needs_lit.max(1);
                    src_lit = src_lit.max(1);
                    continue;
                }
                if raw == 254 && inst.target().is_gfx1250() {
                    needs_lit = 2;
                    src_lit = 2;
                    continue;
                }
                if src_reserved(raw) {
                    return None;
                }
                if raw >= 256 {
                    // AGPR tuples must fit in a0..a255 (VGPR ones may not).
                    let agpr = spec.kind == Kind::ASrc
                        || (spec.kind == Kind::AvSrc && acc_bit(inst, enc, spec.field));
                    if agpr && raw - 256 + spec.width as u32 > 256 {
                        return None;
                    }
                    continue;
                }
                // Special registers do not form 96-bit or wider tuples.
                if spec.width >= 3 && is_special(raw) {
                    return None;
                }
                if raw < 128 && !scalar_tuple_fits(raw, spec.width) {
                    return None;
                }
                // GFX12 sources take s[102:103] and s[104:105] from an odd
                // register too (aligned down, with a warning), VOPD3 as VOP3.
                let odd_ok = inst.target().generation() >= 12 && matches!(raw, 103 | 105);
                if spec.width >= 2 && bad_wide_scalar(raw) && !odd_ok {
                    return None;
                }
            }
            Kind::AReg | Kind::AvReg => {
                let agpr = spec.kind == Kind::AReg || acc_bit(inst, enc, spec.field);
                let skip = enc == Encoding::Mimg || (rtn_off && spec.field == Field::Vdst);
                if agpr && !skip && raw + spec.width as u32 > 256 {
                    return None;
                }
            }
            Kind::SRegX2 | Kind::SRegX4 => {
                let r = raw * if spec.kind == Kind::SRegX2 { 2 } else { 4 };
                // A GFX11 MIMG resource or sampler of s124 is `null` (D81).
                if r == 124 && enc == Encoding::MimgGfx11 {
                    continue;
                }
                if bad_wide_scalar(r) || (spec.width >= 3 && is_special(r)) {
                    return None;
                }
                if !scalar_tuple_fits(r, spec.width) {
                    return None;
                }
            }
            Kind::SReg => {
                if raw == 255 && spec.field == Field::Vdst {
                    // v_readlane's vdst of 255 makes LLVM read a literal.
                    needs_lit = needs_lit.max(1);
                    continue;
                }
                if raw == 254 && spec.field == Field::Vdst && inst.target().is_gfx1250() {
                    // ... and of 254 a 64-bit one on GFX12.5.
                    needs_lit = 2;
                    continue;
                }
                if raw >= 128 && (src_reserved(raw) || raw == 255) {
                    return None;
                }
                // A VIMAGE/VSAMPLE sampler of s102-s105 that LLVM aligns
                // down into s[100:103] (D72).
                let image = matches!(enc, Encoding::VimageGfx12 | Encoding::VsampleGfx12)
                    && (102..=105).contains(&raw)
                    && (raw & !3) + spec.width as u32 <= 106;
                if spec.width >= 3 && is_special(raw) && !image {
                    return None;
                }
                if raw < 128 && !scalar_tuple_fits(raw, spec.width) {
                    return None;
                }
                if spec.width >= 2 && bad_wide_scalar(raw) && !image {
                    return None;
                }
            }
            Kind::SdwaSrc if crate::enc::sdwa_dpp::src_is_scalar(inst, spec.field) => {
                if src_reserved(raw) || raw == 255 {
                    return None;
                }
                if spec.width >= 2 && bad_wide_scalar(raw) {
                    return None;
                }
            }
            _ => {}
        }
    }
    if k_lit != 0 && src_lit != 0 && k_lit != src_lit {
        return None;
    }
    Some(needs_lit)
}

#[inline]
fn enc_is_flat(enc: Encoding) -> bool {
    matches!(enc, Encoding::Flat | Encoding::Global | Encoding::Scratch)
}

#[inline]
fn acc_bit(inst: &Instruction, enc: Encoding, field: Field) -> bool {
    match enc {
        Encoding::Ds => inst.bit(25),
        Encoding::Flat
        | Encoding::Global
        | Encoding::Scratch
        | Encoding::Mubuf
        | Encoding::Mtbuf => inst.bit(55),
        Encoding::Mimg | Encoding::Mai => inst.acc_bit(field),
        _ => false,
    }
}

/// True for the encodings [`valid_tail`] has rules for.
#[inline(always)]
pub(crate) fn has_tail_rules(enc: Encoding) -> bool {
    matches!(
        enc,
        Encoding::Flat
            | Encoding::Global
            | Encoding::Scratch
            | Encoding::Mubuf
            | Encoding::Mtbuf
            | Encoding::Mimg
            | Encoding::Vop2Sdwa
            | Encoding::Vop1Sdwa
            | Encoding::VopcSdwa
    )
}

/// Encoding-specific rules, checked once the instruction is complete.
pub(crate) fn valid_tail(inst: &Instruction, enc: Encoding, info: &OpInfo) -> bool {
    match enc {
        Encoding::Flat
        | Encoding::Global
        | Encoding::Scratch
        | Encoding::Mubuf
        | Encoding::Mtbuf => {
            // LDS-DMA forms have no data register: the acc bit must be clear.
            if info.has(inst.target(), flags::LDS_DMA) {
                let lds = match enc {
                    Encoding::Mubuf => inst.bit(16),
                    _ => inst.bit(13),
                };
                if lds && inst.bit(55) {
                    return false;
                }
            }
            // Atomics whose AGPR forms exclude some cache-policy bits.
            let fl = info.flags(inst.target());
            let (glc, scc, acc) = (inst.bit(16), inst.bit(25), inst.bit(55));
            if acc
                && ((fl & flags::RTN_NO_ACC != 0 && glc)
                    || (fl & flags::RTN_ACC_SCC_BAD != 0 && glc && scc)
                    || (fl & flags::ACC_SCC_BAD != 0 && !glc && scc))
            {
                return false;
            }
            // Global saddr: an SGPR/TTMP pair, exec or null, or off.
            if enc == Encoding::Global {
                let s = inst.bits(1, 16, 7);
                if s != crate::enc::flat::SADDR_OFF && bad_wide_scalar(s) {
                    return false;
                }
            }
            true
        }
        Encoding::Mimg => {
            if crate::enc::mimg::vdata_width(inst).is_none() {
                return false;
            }
            for op in inst.operands().iter() {
                if let crate::operand::Operand::Reg(r) = op.value {
                    if r.file == crate::reg::RegFile::Agpr && r.first as u32 + r.count as u32 > 256
                    {
                        return false;
                    }
                }
            }
            true
        }
        Encoding::Vop2Sdwa | Encoding::Vop1Sdwa | Encoding::VopcSdwa => {
            let w1 = inst.w(1);
            if enc == Encoding::VopcSdwa && inst.bit(32 + 15) && bad_wide_scalar(inst.bits(1, 8, 7))
            {
                return false;
            }
            // LLVM 22 hits llvm_unreachable (crashes) on select value 7.
            let dst_sel = enc != Encoding::VopcSdwa && (w1 >> 8) & 7 == 7;
            !(dst_sel || (w1 >> 16) & 7 == 7 || (w1 >> 24) & 7 == 7)
        }
        _ => true,
    }
}

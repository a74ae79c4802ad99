//! Validity rules beyond the generated must-be-zero bits: which operand
//! values LLVM 22's disassembler rejects.

use crate::inst::Instruction;
use crate::opcode::{Encoding, Kind};

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

/// True if LLVM decodes this instruction.
pub(crate) fn valid(inst: &Instruction) -> bool {
    let info = inst.info();
    for spec in info.operands {
        let Some(raw) = inst.field(spec.field) else {
            continue;
        };
        match spec.kind {
            Kind::SSrc | Kind::VSrc | Kind::ASrc | Kind::AvSrc => {
                if src_reserved(raw) {
                    return false;
                }
                // Special registers do not form 96-bit or wider tuples.
                if spec.width >= 3 && is_special(raw) {
                    return false;
                }
                if raw < 128 && !scalar_tuple_fits(raw, spec.width) {
                    return false;
                }
                if spec.width >= 2 && bad_wide_scalar(raw) {
                    return false;
                }
            }
            Kind::SRegX2 | Kind::SRegX4 => {
                let r = raw * if spec.kind == Kind::SRegX2 { 2 } else { 4 };
                if bad_wide_scalar(r) || (spec.width >= 3 && is_special(r)) {
                    return false;
                }
                if !scalar_tuple_fits(r, spec.width) {
                    return false;
                }
            }
            Kind::SReg => {
                if raw >= 128
                    && (src_reserved(raw)
                        || (raw == 255 && spec.field != crate::opcode::Field::Vdst))
                {
                    return false;
                }
                if spec.width >= 3 && is_special(raw) {
                    return false;
                }
                if raw < 128 && !scalar_tuple_fits(raw, spec.width) {
                    return false;
                }
                if spec.width >= 2 && bad_wide_scalar(raw) {
                    return false;
                }
            }
            Kind::SdwaSrc if crate::enc::sdwa_dpp::src_is_scalar(inst, spec.field) => {
                if src_reserved(raw) || raw == 255 {
                    return false;
                }
                if spec.width >= 2 && bad_wide_scalar(raw) {
                    return false;
                }
            }
            _ => {}
        }
    }
    // AGPR tuples must fit in a0..a255 (VGPR tuples may run past v255).
    for op in inst.operands().iter() {
        if let crate::operand::Operand::Reg(r) = op.value {
            if r.file == crate::reg::RegFile::Agpr && r.first as u32 + r.count as u32 > 256 {
                return false;
            }
        }
    }
    // LDS-DMA forms have no data register: the acc bit must be clear.
    if info.has(inst.target(), crate::opcode::flags::LDS_DMA) {
        let lds = match info.enc {
            Encoding::Mubuf => inst.bit(16),
            _ => inst.bit(13),
        };
        if lds && inst.bit(55) {
            return false;
        }
    }
    // Global saddr: an SGPR/TTMP pair, exec or null; not vcc, m0, ...
    {
        use crate::opcode::flags as f;
        let fl = info.flags(inst.target());
        let (glc, scc, acc) = (inst.bit(16), inst.bit(25), inst.bit(55));
        if acc
            && ((fl & f::RTN_NO_ACC != 0 && glc)
                || (fl & f::RTN_ACC_SCC_BAD != 0 && glc && scc)
                || (fl & f::ACC_SCC_BAD != 0 && !glc && scc))
        {
            return false;
        }
    }
    if info.enc == Encoding::Global {
        let s = inst.bits(1, 16, 7);
        if s != crate::enc::flat::SADDR_OFF && bad_wide_scalar(s) {
            return false;
        }
    }
    if info.enc == Encoding::Mimg && crate::enc::mimg::vdata_width(inst).is_none() {
        return false;
    }
    match info.enc {
        Encoding::VopcSdwa if inst.bit(32 + 15) && bad_wide_scalar(inst.bits(1, 8, 7)) => {
            return false;
        }
        _ => {}
    }
    match info.enc {
        Encoding::Vop2Sdwa | Encoding::Vop1Sdwa | Encoding::VopcSdwa => {
            // LLVM 22 hits llvm_unreachable (crashes) on select value 7.
            let w1 = inst.w(1);
            let dst_sel = info.enc != Encoding::VopcSdwa && (w1 >> 8) & 7 == 7;
            if dst_sel || (w1 >> 16) & 7 == 7 || (w1 >> 24) & 7 == 7 {
                return false;
            }
        }
        _ => {}
    }
    true
}

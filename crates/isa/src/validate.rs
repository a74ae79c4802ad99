//! Validity rules beyond the generated must-be-zero bits: which operand
//! values LLVM 22's disassembler rejects.

use crate::inst::Instruction;
use crate::opcode::{Encoding, Kind};

/// Source encodings no operand accepts (reserved constants).
fn src_reserved(v: u32) -> bool {
    matches!(v, 209..=234 | 249 | 250)
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
                if spec.width >= 2 && matches!(raw, 103 | 105 | 107 | 124 | 127) {
                    return false;
                }
            }
            Kind::SdwaSrc => {
                if crate::enc::sdwa_dpp::src_is_scalar(inst, spec.field) {
                    if src_reserved(raw) {
                        return false;
                    }
                    if spec.width >= 2 && matches!(raw, 103 | 105 | 107 | 124 | 127) {
                        return false;
                    }
                }
            }
            _ => {}
        }
    }
    match info.enc {
        Encoding::Vop2Sdwa | Encoding::Vop1Sdwa | Encoding::VopcSdwa => {
            // LLVM 22 hits llvm_unreachable (crashes) on select value 7.
            let w1 = inst.w(1);
            let dst_sel = info.enc != Encoding::VopcSdwa && (w1 >> 8) & 7 == 7;
            if dst_sel || (w1 >> 16) & 7 == 7 || (w1 >> 24) & 7 == 7 {
                return false;
            }
            if info.enc != Encoding::VopcSdwa && (w1 >> 11) & 3 == 3 {
                return false;
            }
        }
        _ => {}
    }
    true
}

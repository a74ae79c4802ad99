//! Scalar ALU: SOP1, SOP2, SOPC and SOPK.
//!
//! One handler, [`run`], executes every [`Salu`] operation: it reads the
//! sources, calls the operation's function in [`alu::salu`] (each scalar
//! operation is defined there once, with its SCC rule), and writes the
//! result. The `match` names every operation, so a new `Salu` row fails
//! to compile until it has semantics.

use super::*;

/// The SOP1/SOP2/SOPC/SOPK handler of `op`: [`run`] for every operation.
pub(super) fn handler(_op: Salu) -> Option<Handler> {
    Some(run)
}

/// `hwreg(id, offset, size)` from a SOPK simm16.
pub(super) fn hwreg(i: &Instruction) -> (u32, u32, u32) {
    let k = i.field(Field::Simm16).unwrap_or(0);
    (k & 0x3f, (k >> 6) & 0x1f, ((k >> 11) & 0x1f) + 1)
}

pub(super) const HW_REG_MODE: u32 = 1;
pub(super) const HW_REG_SH_MEM_BASES: u32 = 15;
pub(super) const HW_REG_FLAT_SCR_LO: u32 = 20;
pub(super) const HW_REG_FLAT_SCR_HI: u32 = 21;

/// `s_cmp*` and `s_cmpk*`: the predicate of the description on two
/// scalars (`s_cmpk`: the SIMM16, sign-extended for `i32`, zero-extended
/// for `u32`), into SCC.
pub(super) fn scmp(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _l: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use alu::cmp::{cmp_i32, cmp_u32, cmp_u64, ICmp};
    use lathe_isa::sem::{NumTy, Pred};
    let Sem::SCmp(k) = c.sem else {
        return Err(unsupported(w, i, c.pc));
    };
    let p = match k.pred {
        Pred::F => ICmp::F,
        Pred::Lt => ICmp::Lt,
        Pred::Eq => ICmp::Eq,
        Pred::Le => ICmp::Le,
        Pred::Gt => ICmp::Gt,
        Pred::Ne => ICmp::Ne,
        Pred::Ge => ICmp::Ge,
        Pred::T => ICmp::T,
        _ => return Err(unsupported(w, i, c.pc)),
    };
    let Some(s0) = c.ops.as_slice().first().copied() else {
        return Err(unsupported(w, i, c.pc));
    };
    let b = if k.imm {
        let simm = i.field(Field::Simm16).unwrap_or(0) as u16;
        match k.ty {
            NumTy::I32 => simm as i16 as i32 as u32,
            _ => u32::from(simm),
        }
    } else {
        match c.src(1) {
            Some(s1) if k.ty == NumTy::U64 => {
                w.scc = cmp_u64(p, s64(w, &s0), s64(w, s1));
                return Ok(Flow::Continue);
            }
            Some(s1) => s32(w, s1),
            None => return Err(unsupported(w, i, c.pc)),
        }
    };
    let a = s32(w, &s0);
    w.scc = match k.ty {
        NumTy::I32 => cmp_i32(p, a, b),
        _ => cmp_u32(p, a, b),
    };
    Ok(Flow::Continue)
}

pub(super) fn mask_bits(n: u32) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

/// Executes one scalar operation of the description. The operation is a
/// cheap match next to reading and writing the SGPRs; a missing operand
/// stops as unsupported (never skipped).
pub(super) fn run(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _l: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use alu::salu::{self as a, BitOp};
    let Sem::Salu(op) = c.sem else {
        return Err(unsupported(w, i, c.pc));
    };
    let bad = |w: &Wave| unsupported(w, i, c.pc);
    let dst = c.dst(0).copied();
    let (s0, s1) = (c.src(0).copied(), c.src(1).copied());
    let r32 = |w: &Wave, o: Option<Op>| o.map(|o| s32(w, &o)).ok_or_else(|| bad(w));
    let r64 = |w: &Wave, o: Option<Op>| o.map(|o| s64(w, &o)).ok_or_else(|| bad(w));
    // The SOPK constant: SIMM16 as the instruction holds it.
    let simm = || i.field(Field::Simm16).unwrap_or(0) as u16;
    enum Out {
        /// A 32-bit result, and SCC when the operation writes it.
        W32(u32, Option<bool>),
        W64(u64, Option<bool>),
        /// Only SCC (compares).
        Scc(bool),
        /// A new EXEC (SCC = EXEC != 0), and into SDST the old EXEC
        /// (`saveexec`) or the new one (`wrexec`).
        Exec {
            save: bool,
            exec: u64,
        },
        /// Nothing written (a conditional move whose SCC is clear).
        None,
    }
    let w32 = |(r, scc): (u32, bool)| Out::W32(r, Some(scc));
    let w64 = |(r, scc): (u64, bool)| Out::W64(r, Some(scc));
    let b32 = |o: BitOp, w: &Wave| Ok::<_, Stop>(w32(a::bitop_b32(o, r32(w, s0)?, r32(w, s1)?)));
    let b64 = |o: BitOp, w: &Wave| Ok::<_, Stop>(w64(a::bitop_b64(o, r64(w, s0)?, r64(w, s1)?)));
    let exec = |save: bool, exec: u64| Out::Exec { save, exec };
    let e = w.exec;
    let out = match op {
        // ---- SOP1
        Salu::MovB32 => Out::W32(r32(w, s0)?, None),
        Salu::MovB64 => Out::W64(r64(w, s0)?, None),
        Salu::CmovB32 if w.scc => Out::W32(r32(w, s0)?, None),
        Salu::CmovB64 if w.scc => Out::W64(r64(w, s0)?, None),
        Salu::CmovkI32 if w.scc => Out::W32(a::movk_i32(simm()), None),
        Salu::CmovB32 | Salu::CmovB64 | Salu::CmovkI32 => Out::None,
        Salu::NotB32 => w32(a::not_b32(r32(w, s0)?)),
        Salu::NotB64 => w64(a::not_b64(r64(w, s0)?)),
        Salu::BrevB32 => Out::W32(a::brev_b32(r32(w, s0)?), None),
        Salu::BrevB64 => Out::W64(a::brev_b64(r64(w, s0)?), None),
        Salu::SextI32I8 => Out::W32(a::sext_i32_i8(r32(w, s0)?), None),
        Salu::SextI32I16 => Out::W32(a::sext_i32_i16(r32(w, s0)?), None),
        Salu::AbsI32 => w32(a::abs_i32(r32(w, s0)?)),
        Salu::Bcnt0I32B32 => w32(a::bcnt0_i32_b32(r32(w, s0)?)),
        Salu::Bcnt0I32B64 => w32(a::bcnt0_i32_b64(r64(w, s0)?)),
        Salu::Bcnt1I32B32 => w32(a::bcnt1_i32_b32(r32(w, s0)?)),
        Salu::Bcnt1I32B64 => w32(a::bcnt1_i32_b64(r64(w, s0)?)),
        Salu::Ff0I32B32 => Out::W32(a::ff0_i32_b32(r32(w, s0)?), None),
        Salu::Ff0I32B64 => Out::W32(a::ff0_i32_b64(r64(w, s0)?), None),
        Salu::Ff1I32B32 => Out::W32(a::ff1_i32_b32(r32(w, s0)?), None),
        Salu::Ff1I32B64 => Out::W32(a::ff1_i32_b64(r64(w, s0)?), None),
        Salu::FlbitI32B32 => Out::W32(a::flbit_i32_b32(r32(w, s0)?), None),
        Salu::FlbitI32B64 => Out::W32(a::flbit_i32_b64(r64(w, s0)?), None),
        Salu::FlbitI32 => Out::W32(a::flbit_i32(r32(w, s0)?), None),
        Salu::FlbitI32I64 => Out::W32(a::flbit_i32_i64(r64(w, s0)?), None),
        Salu::BitreplicateB64B32 => Out::W64(a::bitreplicate_b64_b32(r32(w, s0)?), None),
        Salu::QuadmaskB32 => w32(a::quadmask_b32(r32(w, s0)?)),
        Salu::QuadmaskB64 => w64(a::quadmask_b64(r64(w, s0)?)),
        Salu::WqmB32 => w32(a::wqm_b32(r32(w, s0)?)),
        Salu::WqmB64 => w64(a::wqm_b64(r64(w, s0)?)),
        // SDST is read too: one bit of it changes.
        Salu::Bitset0B32 => Out::W32(a::bitset0_b32(r32(w, dst)?, r32(w, s0)?), None),
        Salu::Bitset1B32 => Out::W32(a::bitset1_b32(r32(w, dst)?, r32(w, s0)?), None),
        Salu::Bitset0B64 => Out::W64(a::bitset0_b64(r64(w, dst)?, r32(w, s0)?), None),
        Salu::Bitset1B64 => Out::W64(a::bitset1_b64(r64(w, dst)?, r32(w, s0)?), None),
        // saveexec: the old EXEC into SDST; wrexec: the new one.
        Salu::AndSaveexecB64 => exec(true, r64(w, s0)? & e),
        Salu::OrSaveexecB64 => exec(true, r64(w, s0)? | e),
        Salu::XorSaveexecB64 => exec(true, r64(w, s0)? ^ e),
        Salu::Andn2SaveexecB64 => exec(true, r64(w, s0)? & !e),
        Salu::Orn2SaveexecB64 => exec(true, r64(w, s0)? | !e),
        Salu::NandSaveexecB64 => exec(true, !(r64(w, s0)? & e)),
        Salu::NorSaveexecB64 => exec(true, !(r64(w, s0)? | e)),
        Salu::XnorSaveexecB64 => exec(true, !(r64(w, s0)? ^ e)),
        Salu::Andn1SaveexecB64 => exec(true, !r64(w, s0)? & e),
        Salu::Orn1SaveexecB64 => exec(true, !r64(w, s0)? | e),
        Salu::Andn1WrexecB64 => exec(false, !r64(w, s0)? & e),
        Salu::Andn2WrexecB64 => exec(false, r64(w, s0)? & !e),
        // The wave32 forms (GFX10+): the same operations on EXEC_LO; SDST is
        // one SGPR (the operand's width) and EXEC keeps only the wave's
        // lanes (below).
        Salu::AndSaveexecB32 => exec(true, r64(w, s0)? & e),
        Salu::OrSaveexecB32 => exec(true, r64(w, s0)? | e),
        Salu::XorSaveexecB32 => exec(true, r64(w, s0)? ^ e),
        Salu::Andn2SaveexecB32 => exec(true, r64(w, s0)? & !e),
        Salu::Orn2SaveexecB32 => exec(true, r64(w, s0)? | !e),
        Salu::NandSaveexecB32 => exec(true, !(r64(w, s0)? & e)),
        Salu::NorSaveexecB32 => exec(true, !(r64(w, s0)? | e)),
        Salu::XnorSaveexecB32 => exec(true, !(r64(w, s0)? ^ e)),
        Salu::Andn1SaveexecB32 => exec(true, !r64(w, s0)? & e),
        Salu::Orn1SaveexecB32 => exec(true, !r64(w, s0)? | e),
        Salu::Andn1WrexecB32 => exec(false, !r64(w, s0)? & e),
        Salu::Andn2WrexecB32 => exec(false, r64(w, s0)? & !e),
        // GFX10 MODE shortcuts: SIMM16[3:0] into MODE's rounding (3:0) or
        // denormal (7:4) bits.
        Salu::RoundMode | Salu::DenormMode => {
            let at = if op == Salu::RoundMode { 0 } else { 4 };
            w.mode = (w.mode & !(0xf << at)) | (u32::from(simm()) & 0xf) << at;
            Out::None
        }
        // Not modelled yet: stop (D65).
        Salu::Movrelsd2B32
        | Salu::SubvectorLoopBegin
        | Salu::SubvectorLoopEnd
        | Salu::WaitIdle
        | Salu::WaitcntExpcnt
        | Salu::WaitcntLgkmcnt
        | Salu::WaitcntVmcnt => return Err(bad(w)),
        // M0-relative: SGPR[source + M0] into SDST, or S0 into SGPR[SDST + M0].
        Salu::MovrelsB32 | Salu::MovrelsB64 | Salu::MovreldB32 | Salu::MovreldB64 => {
            return movrel(w, i, c, op);
        }
        // ---- GFX12 (D85): 64-bit adds and multiply without carry (SCC
        // kept), and the f32 operations and conversions of GFX11.5/GFX12's
        // scalar float unit, as their VALU rows compute them under the
        // wave's MODE (the interpreter's float checks apply: these rows are
        // float rows).
        Salu::AddNcU64 => Out::W64(r64(w, s0)?.wrapping_add(r64(w, s1)?), None),
        Salu::SubNcU64 => Out::W64(r64(w, s0)?.wrapping_sub(r64(w, s1)?), None),
        Salu::MulU64 => Out::W64(r64(w, s0)?.wrapping_mul(r64(w, s1)?), None),
        Salu::AddF32 | Salu::SubF32 | Salu::MulF32 => {
            // MODE's f32 denormal controls: a flushed denormal is a signed
            // zero, before (input) or after (output) the operation.
            let fl = super::valu::Flush::f32(w.mode);
            let flush = |v: f32, on: bool| {
                if on && v.is_subnormal() {
                    f32::from_bits(v.to_bits() & 0x8000_0000)
                } else {
                    v
                }
            };
            let (p, q) = (
                flush(f32::from_bits(r32(w, s0)?), fl.input),
                flush(f32::from_bits(r32(w, s1)?), fl.input),
            );
            let r = match op {
                Salu::AddF32 => alu::host::add_f32(p, q),
                Salu::SubF32 => alu::host::sub_f32(p, q),
                _ => alu::host::mul_f32(p, q),
            };
            Out::W32(flush(r, fl.output).to_bits(), None)
        }
        Salu::CvtF32I32 => Out::W32(
            alu::cvt::cvt_f32_i32(r32(w, s0)? as i32, alu::Mode::from_bits(w.mode)),
            None,
        ),
        Salu::CvtF32U32 => Out::W32(
            alu::cvt::cvt_f32_u32(r32(w, s0)?, alu::Mode::from_bits(w.mode)),
            None,
        ),
        Salu::CvtI32F32 => Out::W32(alu::cvt::cvt_i32_f32(r32(w, s0)?) as u32, None),
        Salu::CvtU32F32 => Out::W32(alu::cvt::cvt_u32_f32(r32(w, s0)?), None),
        // ---- SOP2
        Salu::AddU32 => w32(a::add_u32(r32(w, s0)?, r32(w, s1)?)),
        Salu::SubU32 => w32(a::sub_u32(r32(w, s0)?, r32(w, s1)?)),
        Salu::AddI32 => w32(a::add_i32(r32(w, s0)?, r32(w, s1)?)),
        Salu::SubI32 => w32(a::sub_i32(r32(w, s0)?, r32(w, s1)?)),
        Salu::AddcU32 => w32(a::addc_u32(r32(w, s0)?, r32(w, s1)?, w.scc)),
        Salu::SubbU32 => w32(a::subb_u32(r32(w, s0)?, r32(w, s1)?, w.scc)),
        Salu::MulI32 => Out::W32(a::mul_i32(r32(w, s0)?, r32(w, s1)?), None),
        Salu::MulHiU32 => Out::W32(a::mul_hi_u32(r32(w, s0)?, r32(w, s1)?), None),
        Salu::MulHiI32 => Out::W32(a::mul_hi_i32(r32(w, s0)?, r32(w, s1)?), None),
        Salu::AbsdiffI32 => w32(a::absdiff_i32(r32(w, s0)?, r32(w, s1)?)),
        Salu::AndB32 => b32(BitOp::And, w)?,
        Salu::OrB32 => b32(BitOp::Or, w)?,
        Salu::XorB32 => b32(BitOp::Xor, w)?,
        Salu::Andn2B32 => b32(BitOp::Andn2, w)?,
        Salu::Orn2B32 => b32(BitOp::Orn2, w)?,
        Salu::NandB32 => b32(BitOp::Nand, w)?,
        Salu::NorB32 => b32(BitOp::Nor, w)?,
        Salu::XnorB32 => b32(BitOp::Xnor, w)?,
        Salu::AndB64 => b64(BitOp::And, w)?,
        Salu::OrB64 => b64(BitOp::Or, w)?,
        Salu::XorB64 => b64(BitOp::Xor, w)?,
        Salu::Andn2B64 => b64(BitOp::Andn2, w)?,
        Salu::Orn2B64 => b64(BitOp::Orn2, w)?,
        Salu::NandB64 => b64(BitOp::Nand, w)?,
        Salu::NorB64 => b64(BitOp::Nor, w)?,
        Salu::XnorB64 => b64(BitOp::Xnor, w)?,
        Salu::LshlB32 => w32(a::lshl_b32(r32(w, s0)?, r32(w, s1)?)),
        Salu::LshrB32 => w32(a::lshr_b32(r32(w, s0)?, r32(w, s1)?)),
        Salu::AshrI32 => w32(a::ashr_i32(r32(w, s0)?, r32(w, s1)?)),
        Salu::LshlB64 => w64(a::lshl_b64(r64(w, s0)?, r32(w, s1)?)),
        Salu::LshrB64 => w64(a::lshr_b64(r64(w, s0)?, r32(w, s1)?)),
        Salu::AshrI64 => w64(a::ashr_i64(r64(w, s0)?, r32(w, s1)?)),
        Salu::Lshl1AddU32 => w32(a::lshl_add_u32(1, r32(w, s0)?, r32(w, s1)?)),
        Salu::Lshl2AddU32 => w32(a::lshl_add_u32(2, r32(w, s0)?, r32(w, s1)?)),
        Salu::Lshl3AddU32 => w32(a::lshl_add_u32(3, r32(w, s0)?, r32(w, s1)?)),
        Salu::Lshl4AddU32 => w32(a::lshl_add_u32(4, r32(w, s0)?, r32(w, s1)?)),
        Salu::MinI32 => w32(a::min_i32(r32(w, s0)?, r32(w, s1)?)),
        Salu::MinU32 => w32(a::min_u32(r32(w, s0)?, r32(w, s1)?)),
        Salu::MaxI32 => w32(a::max_i32(r32(w, s0)?, r32(w, s1)?)),
        Salu::MaxU32 => w32(a::max_u32(r32(w, s0)?, r32(w, s1)?)),
        Salu::CselectB32 => Out::W32(a::cselect(r32(w, s0)?, r32(w, s1)?, w.scc), None),
        Salu::CselectB64 => Out::W64(a::cselect(r64(w, s0)?, r64(w, s1)?, w.scc), None),
        Salu::BfeU32 => w32(a::bfe_u32(r32(w, s0)?, r32(w, s1)?)),
        Salu::BfeI32 => w32(a::bfe_i32(r32(w, s0)?, r32(w, s1)?)),
        Salu::BfeU64 => w64(a::bfe_u64(r64(w, s0)?, r32(w, s1)?)),
        Salu::BfeI64 => w64(a::bfe_i64(r64(w, s0)?, r32(w, s1)?)),
        Salu::BfmB32 => Out::W32(a::bfm_b32(r32(w, s0)?, r32(w, s1)?), None),
        Salu::BfmB64 => Out::W64(a::bfm_b64(r32(w, s0)?, r32(w, s1)?), None),
        Salu::PackLlB32B16 => Out::W32(a::pack_ll_b32_b16(r32(w, s0)?, r32(w, s1)?), None),
        Salu::PackLhB32B16 => Out::W32(a::pack_lh_b32_b16(r32(w, s0)?, r32(w, s1)?), None),
        Salu::PackHhB32B16 => Out::W32(a::pack_hh_b32_b16(r32(w, s0)?, r32(w, s1)?), None),
        // ---- SOPC
        Salu::Bitcmp0B32 => Out::Scc(a::bitcmp_b32(r32(w, s0)?, r32(w, s1)?, false)),
        Salu::Bitcmp1B32 => Out::Scc(a::bitcmp_b32(r32(w, s0)?, r32(w, s1)?, true)),
        Salu::Bitcmp0B64 => Out::Scc(a::bitcmp_b64(r64(w, s0)?, r32(w, s1)?, false)),
        Salu::Bitcmp1B64 => Out::Scc(a::bitcmp_b64(r64(w, s0)?, r32(w, s1)?, true)),
        // ---- SOPK: SDST is also the first source of addk/mulk.
        Salu::MovkI32 => Out::W32(a::movk_i32(simm()), None),
        Salu::AddkI32 => w32(a::addk_i32(r32(w, dst)?, simm())),
        Salu::MulkI32 => Out::W32(a::mulk_i32(r32(w, dst)?, simm()), None),
    };
    match (out, dst) {
        (Out::W32(r, scc), Some(d)) => {
            s_write32(w, &d, r);
            if let Some(b) = scc {
                w.scc = b;
            }
        }
        (Out::W64(r, scc), Some(d)) => {
            s_write64(w, &d, r);
            if let Some(b) = scc {
                w.scc = b;
            }
        }
        (Out::Scc(b), _) => w.scc = b,
        (Out::Exec { save, exec }, Some(d)) => {
            // In the manual's order: SDST first, then EXEC (an SDST of
            // EXEC itself ends with the new EXEC).
            let old = w.exec;
            let exec = exec & w.size.full_mask();
            s_write64(w, &d, if save { old } else { exec });
            w.exec = exec;
            w.scc = exec != 0;
        }
        (Out::None, _) => {}
        (Out::W32(..) | Out::W64(..) | Out::Exec { .. }, None) => return Err(bad(w)),
    }
    Ok(Flow::Continue)
}

/// `s_movrels_b32/b64` (read SGPR `src + M0`) and `s_movreld_b32/b64`
/// (write SGPR `dst + M0`).
fn movrel(w: &mut Wave, i: &Instruction, c: &Ctx, op: Salu) -> Result<Flow, Stop> {
    let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) else {
        return Err(unsupported(w, i, c.pc));
    };
    let n = if matches!(op, Salu::MovrelsB64 | Salu::MovreldB64) {
        2
    } else {
        1
    };
    let m0 = w.m0 as u16;
    let reg = |o: &Op| match o.value {
        Operand::Reg(r) if r.file == RegFile::Scalar => Some(r.first),
        _ => None,
    };
    let reads = matches!(op, Salu::MovrelsB32 | Salu::MovrelsB64);
    for k in 0..n {
        if reads {
            let (Some(sb), Some(db)) = (reg(&s), reg(&d)) else {
                return Err(unsupported(w, i, c.pc));
            };
            let v = sreg_read(w, sb.wrapping_add(m0).wrapping_add(k));
            sreg_write(w, db + k, v);
        } else {
            let Some(db) = reg(&d) else {
                return Err(unsupported(w, i, c.pc));
            };
            let v = if n == 2 {
                (s64(w, &s) >> (32 * k)) as u32
            } else {
                s32(w, &s)
            };
            sreg_write(w, db.wrapping_add(m0).wrapping_add(k), v);
        }
    }
    Ok(Flow::Continue)
}

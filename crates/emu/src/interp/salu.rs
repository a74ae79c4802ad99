//! Scalar ALU: SOP1, SOP2, SOPC and SOPK.

use super::*;

/// The SOP1/SOP2/SOPC/SOPK handler of `name`.
pub(super) fn handler(op: Salu) -> Option<Handler> {
    Some(match op {
        // ---- SOP1
        Salu::MovB32 => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                let v = s32(w, &s);
                s_write32(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        Salu::MovB64 => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                let v = s64(w, &s);
                s_write64(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        Salu::CmovB32 => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                if w.scc {
                    let v = s32(w, &s);
                    s_write32(w, &d, v);
                }
            }
            Ok(Flow::Continue)
        },
        Salu::NotB32 => sop1_32!(|w, a| {
            let r = !a;
            w.scc = r != 0;
            r
        }),
        Salu::NotB64 => sop1_64!(|w, a| {
            let r = !a;
            w.scc = r != 0;
            r
        }),
        Salu::BrevB32 => sop1_32!(|_w, a| a.reverse_bits()),
        Salu::SextI32I8 => sop1_32!(|_w, a| a as i8 as i32 as u32),
        Salu::SextI32I16 => sop1_32!(|_w, a| a as i16 as i32 as u32),
        Salu::AbsI32 => sop1_32!(|w, a| {
            let r = (a as i32).wrapping_abs() as u32;
            w.scc = r != 0;
            r
        }),
        Salu::Bcnt1I32B32 => sop1_32!(|w, a| {
            let r = a.count_ones();
            w.scc = r != 0;
            r
        }),
        Salu::Bcnt1I32B64 => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                let r = s64(w, &s).count_ones();
                w.scc = r != 0;
                s_write32(w, &d, r);
            }
            Ok(Flow::Continue)
        },
        Salu::Ff1I32B32 => sop1_32!(|_w, a| if a == 0 { u32::MAX } else { a.trailing_zeros() }),
        Salu::Ff1I32B64 => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                let a = s64(w, &s);
                s_write32(w, &d, if a == 0 { u32::MAX } else { a.trailing_zeros() });
            }
            Ok(Flow::Continue)
        },
        Salu::FlbitI32B32 => sop1_32!(|_w, a| if a == 0 { u32::MAX } else { a.leading_zeros() }),
        Salu::AndSaveexecB64 => saveexec!(|s, e| s & e),
        Salu::OrSaveexecB64 => saveexec!(|s, e| s | e),
        Salu::XorSaveexecB64 => saveexec!(|s, e| s ^ e),
        Salu::Andn2SaveexecB64 => saveexec!(|s, e| s & !e),
        Salu::Orn2SaveexecB64 => saveexec!(|s, e| s | !e),
        // ---- SOP2
        Salu::AddU32 => salu32!(
            |a, b| a.wrapping_add(b),
            scc = |r| Some(u64::from(a) + u64::from(b) > 0xffff_ffff)
        ),
        Salu::SubU32 => salu32!(|a, b| a.wrapping_sub(b), scc = |r| Some(b > a)),
        Salu::AddI32 => salu32!(
            |a, b| a.wrapping_add(b),
            scc = |r| Some((a as i32).checked_add(b as i32).is_none())
        ),
        Salu::SubI32 => salu32!(
            |a, b| a.wrapping_sub(b),
            scc = |r| Some((a as i32).checked_sub(b as i32).is_none())
        ),
        Salu::AddcU32 => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Err(unsupported(w, _i, c.pc));
            };
            let t = u64::from(s32(w, &s0)) + u64::from(s32(w, &s1)) + u64::from(w.scc);
            w.scc = t > 0xffff_ffff;
            s_write32(w, &d, t as u32);
            Ok(Flow::Continue)
        },
        Salu::SubbU32 => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Err(unsupported(w, _i, c.pc));
            };
            let (a, b, ci) = (
                u64::from(s32(w, &s0)),
                u64::from(s32(w, &s1)),
                u64::from(w.scc),
            );
            w.scc = b + ci > a;
            s_write32(w, &d, a.wrapping_sub(b).wrapping_sub(ci) as u32);
            Ok(Flow::Continue)
        },
        Salu::MulI32 => salu32!(|a, b| a.wrapping_mul(b), scc = |r| None),
        Salu::MulHiU32 => salu32!(
            |a, b| ((u64::from(a) * u64::from(b)) >> 32) as u32,
            scc = |r| None
        ),
        Salu::MulHiI32 => salu32!(
            |a, b| ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32,
            scc = |r| None
        ),
        Salu::AndB32 => salu32!(|a, b| a & b, scc = |r| Some(r != 0)),
        Salu::OrB32 => salu32!(|a, b| a | b, scc = |r| Some(r != 0)),
        Salu::XorB32 => salu32!(|a, b| a ^ b, scc = |r| Some(r != 0)),
        Salu::Andn2B32 => salu32!(|a, b| a & !b, scc = |r| Some(r != 0)),
        Salu::Orn2B32 => salu32!(|a, b| a | !b, scc = |r| Some(r != 0)),
        Salu::NandB32 => salu32!(|a, b| !(a & b), scc = |r| Some(r != 0)),
        Salu::NorB32 => salu32!(|a, b| !(a | b), scc = |r| Some(r != 0)),
        Salu::XnorB32 => salu32!(|a, b| !(a ^ b), scc = |r| Some(r != 0)),
        Salu::AndB64 => salu64!(|a, b| a & b, scc = |r| Some(r != 0)),
        Salu::OrB64 => salu64!(|a, b| a | b, scc = |r| Some(r != 0)),
        Salu::XorB64 => salu64!(|a, b| a ^ b, scc = |r| Some(r != 0)),
        Salu::Andn2B64 => salu64!(|a, b| a & !b, scc = |r| Some(r != 0)),
        Salu::Orn2B64 => salu64!(|a, b| a | !b, scc = |r| Some(r != 0)),
        Salu::NandB64 => salu64!(|a, b| !(a & b), scc = |r| Some(r != 0)),
        Salu::NorB64 => salu64!(|a, b| !(a | b), scc = |r| Some(r != 0)),
        Salu::XnorB64 => salu64!(|a, b| !(a ^ b), scc = |r| Some(r != 0)),
        Salu::LshlB32 => salu32!(|a, b| a << (b & 31), scc = |r| Some(r != 0)),
        Salu::LshrB32 => salu32!(|a, b| a >> (b & 31), scc = |r| Some(r != 0)),
        Salu::AshrI32 => salu32!(
            |a, b| ((a as i32) >> (b & 31)) as u32,
            scc = |r| Some(r != 0)
        ),
        Salu::LshlB64 => salu64!(|a, b| a << (b & 63), scc = |r| Some(r != 0)),
        Salu::LshrB64 => salu64!(|a, b| a >> (b & 63), scc = |r| Some(r != 0)),
        Salu::AshrI64 => salu64!(
            |a, b| ((a as i64) >> (b & 63)) as u64,
            scc = |r| Some(r != 0)
        ),
        Salu::Lshl1AddU32 => salu32!(
            |a, b| (a << 1).wrapping_add(b),
            scc = |r| Some((u64::from(a) << 1) + u64::from(b) > 0xffff_ffff)
        ),
        Salu::Lshl2AddU32 => salu32!(
            |a, b| (a << 2).wrapping_add(b),
            scc = |r| Some((u64::from(a) << 2) + u64::from(b) > 0xffff_ffff)
        ),
        Salu::Lshl3AddU32 => salu32!(
            |a, b| (a << 3).wrapping_add(b),
            scc = |r| Some((u64::from(a) << 3) + u64::from(b) > 0xffff_ffff)
        ),
        Salu::Lshl4AddU32 => salu32!(
            |a, b| (a << 4).wrapping_add(b),
            scc = |r| Some((u64::from(a) << 4) + u64::from(b) > 0xffff_ffff)
        ),
        Salu::MinI32 => salu32!(
            |a, b| (a as i32).min(b as i32) as u32,
            scc = |r| Some((a as i32) < (b as i32))
        ),
        Salu::MinU32 => salu32!(|a, b| a.min(b), scc = |r| Some(a < b)),
        Salu::MaxI32 => salu32!(
            |a, b| (a as i32).max(b as i32) as u32,
            scc = |r| Some((a as i32) > (b as i32))
        ),
        Salu::MaxU32 => salu32!(|a, b| a.max(b), scc = |r| Some(a > b)),
        Salu::CselectB32 => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            {
                let v = if w.scc { s32(w, &s0) } else { s32(w, &s1) };
                s_write32(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        Salu::CselectB64 => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            {
                let v = if w.scc { s64(w, &s0) } else { s64(w, &s1) };
                s_write64(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        Salu::BfeU32 => salu32!(
            |a, b| bfe_u32(a, b & 31, (b >> 16) & 0x7f),
            scc = |r| Some(r != 0)
        ),
        Salu::BfeI32 => salu32!(
            |a, b| bfe_i32(a, b & 31, (b >> 16) & 0x7f),
            scc = |r| Some(r != 0)
        ),
        Salu::BfmB32 => salu32!(
            |a, b| (((1u64 << (a & 31)) - 1) as u32) << (b & 31),
            scc = |r| None
        ),
        Salu::PackLlB32B16 => salu32!(|a, b| (a & 0xffff) | (b << 16), scc = |r| None),
        Salu::PackLhB32B16 => salu32!(|a, b| (a & 0xffff) | (b & 0xffff_0000), scc = |r| None),
        Salu::PackHhB32B16 => salu32!(|a, b| (a >> 16) | (b & 0xffff_0000), scc = |r| None),
        // ---- SOPC
        Salu::Bitcmp1B32 => sopc!(|a, b| a >> (b & 31) & 1 == 1),
        Salu::Bitcmp0B32 => sopc!(|a, b| a >> (b & 31) & 1 == 0),
        // ---- SOPK
        Salu::MovkI32 => |_x, w, _l, i, c| {
            if let Some(d) = c.dst(0).copied() {
                let k = i.field(Field::Simm16).unwrap_or(0) as u16 as i16 as i32 as u32;
                s_write32(w, &d, k);
            }
            Ok(Flow::Continue)
        },
        Salu::AddkI32 => |_x, w, _l, i, c| {
            if let Some(d) = c.dst(0).copied() {
                let k = i.field(Field::Simm16).unwrap_or(0) as u16 as i16 as i32;
                let a = s32(w, &d) as i32;
                w.scc = a.checked_add(k).is_none();
                s_write32(w, &d, a.wrapping_add(k) as u32);
            }
            Ok(Flow::Continue)
        },
        Salu::MulkI32 => |_x, w, _l, i, c| {
            if let Some(d) = c.dst(0).copied() {
                let k = i.field(Field::Simm16).unwrap_or(0) as u16 as i16 as i32;
                let a = s32(w, &d) as i32;
                s_write32(w, &d, a.wrapping_mul(k) as u32);
            }
            Ok(Flow::Continue)
        },
        // Computed per execution from the description ([`more`]).
        Salu::AbsdiffI32
        | Salu::Andn1SaveexecB64
        | Salu::Andn1WrexecB64
        | Salu::Andn2WrexecB64
        | Salu::Bcnt0I32B32
        | Salu::Bcnt0I32B64
        | Salu::BfeI64
        | Salu::BfeU64
        | Salu::BfmB64
        | Salu::Bitcmp0B64
        | Salu::Bitcmp1B64
        | Salu::BitreplicateB64B32
        | Salu::Bitset0B32
        | Salu::Bitset0B64
        | Salu::Bitset1B32
        | Salu::Bitset1B64
        | Salu::BrevB64
        | Salu::CmovB64
        | Salu::CmovkI32
        | Salu::Ff0I32B32
        | Salu::Ff0I32B64
        | Salu::FlbitI32
        | Salu::FlbitI32B64
        | Salu::FlbitI32I64
        | Salu::MovreldB32
        | Salu::MovreldB64
        | Salu::MovrelsB32
        | Salu::MovrelsB64
        | Salu::NandSaveexecB64
        | Salu::NorSaveexecB64
        | Salu::Orn1SaveexecB64
        | Salu::QuadmaskB32
        | Salu::QuadmaskB64
        | Salu::WqmB32
        | Salu::WqmB64
        | Salu::XnorSaveexecB64 => more,
    })
}

/// `hwreg(id, offset, size)` from a SOPK simm16.
pub(super) fn hwreg(i: &Instruction) -> (u32, u32, u32) {
    let k = i.field(Field::Simm16).unwrap_or(0);
    (k & 0x3f, (k >> 6) & 0x1f, ((k >> 11) & 0x1f) + 1)
}

pub(super) const HW_REG_MODE: u32 = 1;
pub(super) const HW_REG_SH_MEM_BASES: u32 = 15;

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

/// Scalar operations chosen at run time from the description: the
/// operation is a cheap match next to reading and writing the SGPRs.
pub(super) fn more(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _l: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use alu::salu as a;
    let Sem::Salu(op) = c.sem else {
        return Err(unsupported(w, i, c.pc));
    };
    let bad = |w: &Wave| unsupported(w, i, c.pc);
    let dst = c.dst(0).copied();
    let src = |k: usize| c.src(k).copied();
    // (result, SCC) of a 32/64-bit operation on the sources.
    let (s0, s1) = (src(0), src(1));
    let r32 = |w: &Wave, o: Option<Op>| o.map(|o| s32(w, &o)).ok_or_else(|| bad(w));
    let r64 = |w: &Wave, o: Option<Op>| o.map(|o| s64(w, &o)).ok_or_else(|| bad(w));
    enum Out {
        W32(u32, Option<bool>),
        W64(u64, Option<bool>),
        Scc(bool),
        Exec { save: bool, exec: u64 },
        None,
    }
    let w32 = |(r, scc): (u32, bool)| Out::W32(r, Some(scc));
    let w64 = |(r, scc): (u64, bool)| Out::W64(r, Some(scc));
    let out = match op {
        Salu::AbsdiffI32 => w32(a::absdiff_i32(r32(w, s0)?, r32(w, s1)?)),
        Salu::Bcnt0I32B32 => w32(a::bcnt0_i32_b32(r32(w, s0)?)),
        Salu::Bcnt0I32B64 => w32(a::bcnt0_i32_b64(r64(w, s0)?)),
        Salu::BfeI64 => w64(a::bfe_i64(r64(w, s0)?, r32(w, s1)?)),
        Salu::BfeU64 => w64(a::bfe_u64(r64(w, s0)?, r32(w, s1)?)),
        Salu::BfmB64 => Out::W64(a::bfm_b64(r32(w, s0)?, r32(w, s1)?), None),
        Salu::Bitcmp0B64 => Out::Scc(a::bitcmp_b64(r64(w, s0)?, r32(w, s1)?, false)),
        Salu::Bitcmp1B64 => Out::Scc(a::bitcmp_b64(r64(w, s0)?, r32(w, s1)?, true)),
        Salu::BitreplicateB64B32 => Out::W64(a::bitreplicate_b64_b32(r32(w, s0)?), None),
        // SDST is read too: one bit of it changes.
        Salu::Bitset0B32 => Out::W32(a::bitset0_b32(r32(w, dst)?, r32(w, s0)?), None),
        Salu::Bitset1B32 => Out::W32(a::bitset1_b32(r32(w, dst)?, r32(w, s0)?), None),
        Salu::Bitset0B64 => Out::W64(a::bitset0_b64(r64(w, dst)?, r32(w, s0)?), None),
        Salu::Bitset1B64 => Out::W64(a::bitset1_b64(r64(w, dst)?, r32(w, s0)?), None),
        Salu::BrevB64 => Out::W64(a::brev_b64(r64(w, s0)?), None),
        Salu::CmovB64 if w.scc => Out::W64(r64(w, s0)?, None),
        Salu::CmovkI32 if w.scc => Out::W32(
            a::movk_i32(i.field(Field::Simm16).unwrap_or(0) as u16),
            None,
        ),
        Salu::CmovB64 | Salu::CmovkI32 => Out::None,
        Salu::Ff0I32B32 => Out::W32(a::ff0_i32_b32(r32(w, s0)?), None),
        Salu::Ff0I32B64 => Out::W32(a::ff0_i32_b64(r64(w, s0)?), None),
        Salu::FlbitI32B64 => Out::W32(a::flbit_i32_b64(r64(w, s0)?), None),
        Salu::FlbitI32 => Out::W32(a::flbit_i32(r32(w, s0)?), None),
        Salu::FlbitI32I64 => Out::W32(a::flbit_i32_i64(r64(w, s0)?), None),
        Salu::QuadmaskB32 => w32(a::quadmask_b32(r32(w, s0)?)),
        Salu::QuadmaskB64 => w64(a::quadmask_b64(r64(w, s0)?)),
        Salu::WqmB32 => w32(a::wqm_b32(r32(w, s0)?)),
        Salu::WqmB64 => w64(a::wqm_b64(r64(w, s0)?)),
        // saveexec: the old EXEC into SDST; wrexec: the new one.
        Salu::NandSaveexecB64 => Out::Exec {
            save: true,
            exec: !(r64(w, s0)? & w.exec),
        },
        Salu::NorSaveexecB64 => Out::Exec {
            save: true,
            exec: !(r64(w, s0)? | w.exec),
        },
        Salu::XnorSaveexecB64 => Out::Exec {
            save: true,
            exec: !(r64(w, s0)? ^ w.exec),
        },
        Salu::Andn1SaveexecB64 => Out::Exec {
            save: true,
            exec: !r64(w, s0)? & w.exec,
        },
        Salu::Orn1SaveexecB64 => Out::Exec {
            save: true,
            exec: !r64(w, s0)? | w.exec,
        },
        Salu::Andn1WrexecB64 => Out::Exec {
            save: false,
            exec: !r64(w, s0)? & w.exec,
        },
        Salu::Andn2WrexecB64 => Out::Exec {
            save: false,
            exec: r64(w, s0)? & !w.exec,
        },
        // M0-relative: SGPR[source + M0] into SDST, or S0 into SGPR[SDST + M0].
        Salu::MovrelsB32 | Salu::MovrelsB64 | Salu::MovreldB32 | Salu::MovreldB64 => {
            return movrel(w, i, c, op);
        }
        _ => return Err(bad(w)),
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
            let old = w.exec;
            w.exec = exec;
            w.scc = exec != 0;
            s_write64(w, &d, if save { old } else { exec });
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

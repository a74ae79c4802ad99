//! Vector compares (`v_cmp*`, `v_cmpx*`, `v_cmp_class*`), every type and
//! predicate and the VOPC, VOP3 and SDWA forms, chosen by the description
//! ([`lathe_isa::sem::Cmp`]). The per-lane predicate is
//! [`alu::cmp`]'s, the one reference implementation.

use super::*;
use alu::cmp::{FCmp, ICmp};
use lathe_isa::sem::{NumTy, Pred};

/// The handler of a compare (every predicate and type has one).
pub(super) fn handler(_c: sem::Cmp) -> Option<Handler> {
    Some(vcmp)
}

/// An integer predicate (`None`: a float-only one).
pub(super) fn icmp(p: Pred) -> Option<ICmp> {
    Some(match p {
        Pred::F => ICmp::F,
        Pred::Lt => ICmp::Lt,
        Pred::Eq => ICmp::Eq,
        Pred::Le => ICmp::Le,
        Pred::Gt => ICmp::Gt,
        Pred::Ne | Pred::Lg => ICmp::Ne,
        Pred::Ge => ICmp::Ge,
        Pred::T => ICmp::T,
        Pred::O
        | Pred::U
        | Pred::Nge
        | Pred::Nlg
        | Pred::Ngt
        | Pred::Nle
        | Pred::Neq
        | Pred::Nlt
        | Pred::Class => return None,
    })
}

/// A float predicate (`None`: `Class`, which is not an ordering).
pub(super) fn fcmp(p: Pred) -> Option<FCmp> {
    Some(match p {
        Pred::F => FCmp::F,
        Pred::Lt => FCmp::Lt,
        Pred::Eq => FCmp::Eq,
        Pred::Le => FCmp::Le,
        Pred::Gt => FCmp::Gt,
        Pred::Lg | Pred::Ne => FCmp::Lg,
        Pred::Ge => FCmp::Ge,
        Pred::O => FCmp::O,
        Pred::U => FCmp::U,
        Pred::Nge => FCmp::Nge,
        Pred::Nlg => FCmp::Nlg,
        Pred::Ngt => FCmp::Ngt,
        Pred::Nle => FCmp::Nle,
        Pred::Neq => FCmp::Neq,
        Pred::Nlt => FCmp::Nlt,
        Pred::T => FCmp::Tru,
        Pred::Class => return None,
    })
}

/// One lane's compare of `a` and `b` (already read at the type's width,
/// source modifiers applied), as `k` describes it.
#[inline]
fn eval(k: sem::Cmp, a: u64, b: u64, m: alu::Mode) -> Option<bool> {
    use alu::cmp as c;
    if k.pred == Pred::Class {
        return match k.ty {
            NumTy::F16 => Some(c::cmp_class_f16(a as u16, b as u32)),
            NumTy::F32 => Some(c::cmp_class_f32(a as u32, b as u32)),
            NumTy::F64 => Some(c::cmp_class_f64(a, b as u32)),
            _ => None,
        };
    }
    Some(match k.ty {
        NumTy::F16 => c::cmp_f16(fcmp(k.pred)?, a as u16, b as u16, m),
        NumTy::F32 => c::cmp_f32(fcmp(k.pred)?, a as u32, b as u32, m),
        NumTy::F64 => c::cmp_f64(fcmp(k.pred)?, a, b, m),
        NumTy::I16 => c::cmp_i16(icmp(k.pred)?, a as u16, b as u16),
        NumTy::U16 => c::cmp_u16(icmp(k.pred)?, a as u16, b as u16),
        NumTy::I32 => c::cmp_i32(icmp(k.pred)?, a as u32, b as u32),
        NumTy::U32 | NumTy::B32 => c::cmp_u32(icmp(k.pred)?, a as u32, b as u32),
        NumTy::I64 => c::cmp_i64(icmp(k.pred)?, a, b),
        NumTy::U64 | NumTy::B64 => c::cmp_u64(icmp(k.pred)?, a, b),
    })
}

/// Source `op` of lane `l` read as `ty` (16-bit types from the low half),
/// with float neg/abs modifiers applied.
#[inline]
fn read(w: &Wave, op: &Op, l: usize, ty: NumTy) -> u64 {
    match ty.bits() {
        16 => {
            let x = u64::from(v32(w, op, l) & 0xffff);
            if ty == NumTy::F16 {
                alu::float::input_mods::<alu::soft::F16>(x, op.abs, op.neg)
            } else {
                x
            }
        }
        32 if ty == NumTy::F32 => u64::from(f32_mods(op, v32(w, op, l))),
        32 => u64::from(v32(w, op, l)),
        _ if ty == NumTy::F64 => f64_mods(op, v64(w, op, l)),
        _ => v64(w, op, l),
    }
}

/// Writes a compare's lane mask: to its SGPR-pair destination (VOP3,
/// SDWA with `sdst`) or VCC, and to EXEC for `v_cmpx`.
/// A `v_cmpx` that names no destination (GFX10+'s VOPC encoding) writes
/// EXEC alone, as the decoded operands say; GFX9's names VCC.
fn write_mask(w: &mut Wave, c: &Ctx, k: sem::Cmp, mask: u64) {
    match c.dst(0).copied() {
        Some(d) => s_write64(w, &d, mask),
        None if k.exec => {}
        None => w.set_vcc(mask),
    }
    if k.exec {
        w.exec = mask;
    }
}

/// VOPC and VOP3 compares.
pub(super) fn vcmp(
    x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let (Sem::Cmp(k), Some(s0), Some(s1)) = (c.sem, c.src(0).copied(), c.src(1).copied()) else {
        return Err(unsupported(w, i, c.pc));
    };
    let m = md();
    let mask = match (k.ty, icmp(k.pred)) {
        // 32-bit integer compares (the common case): sources read in
        // place, every lane compared (compares are pure), inactive lanes
        // masked off.
        (NumTy::U32 | NumTy::I32, Some(p)) => {
            let Bufs {
                src: [p0, p1, ..], ..
            } = &mut *x.bufs;
            let va = c.konst(0).unwrap_or_else(|| src_ref(w, &s0, p0));
            let vb = c.konst(1).unwrap_or_else(|| src_ref(w, &s1, p1));
            let signed = k.ty == NumTy::I32;
            int_mask(va, vb, p, signed) & w.exec
        }
        _ => {
            let mut mask = 0u64;
            // Class masks are plain bits, never float-modified.
            let bty = if k.pred == Pred::Class {
                NumTy::U32
            } else {
                k.ty
            };
            for l in 0..LANES {
                if w.active(l) {
                    let hit = eval(k, read(w, &s0, l, k.ty), read(w, &s1, l, bty), m)
                        .ok_or_else(|| unsupported(w, i, c.pc))?;
                    mask |= u64::from(hit) << l;
                }
            }
            mask
        }
    };
    write_mask(w, c, k, mask);
    Ok(Flow::Continue)
}

/// `p` on every lane of two 32-bit rows.
#[inline]
fn int_mask(a: &VReg, b: &VReg, p: ICmp, signed: bool) -> u64 {
    let mut m = 0u64;
    for l in 0..LANES {
        let hit = if signed {
            alu::cmp::cmp_i32(p, a[l], b[l])
        } else {
            alu::cmp::cmp_u32(p, a[l], b[l])
        };
        m |= u64::from(hit) << l;
    }
    m
}

/// VOPC in SDWA form: each source is selected (byte, word or dword, sign-
/// or zero-extended as its `sext` says), float modifiers applied, then
/// compared as the description says; the mask goes to VCC or `sdst`.
pub(super) fn vcmp_sdwa(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use crate::xlane::{sdwa_src, SdwaSel};
    let (Sem::Cmp(k), Some(s0), Some(s1)) = (c.sem, c.src(0).copied(), c.src(1).copied()) else {
        return Err(unsupported(w, i, c.pc));
    };
    let d1 = i.words().get(1).copied().unwrap_or(0);
    let (Some(sel0), Some(sel1)) = (
        SdwaSel::decode((d1 >> 16 & 7) as u8),
        SdwaSel::decode((d1 >> 24 & 7) as u8),
    ) else {
        return Err(unsupported(w, i, c.pc));
    };
    if k.ty.bits() == 64 {
        return Err(unsupported(w, i, c.pc));
    }
    let m = md();
    let pick = |w: &Wave, op: &Op, sel, l, ty: NumTy| -> u64 {
        let v = sdwa_src(v32(w, op, l), sel, op.sext);
        let v = if ty.bits() == 16 { v & 0xffff } else { v };
        match ty {
            NumTy::F16 => alu::float::input_mods::<alu::soft::F16>(u64::from(v), op.abs, op.neg),
            NumTy::F32 => u64::from(f32_mods(op, v)),
            _ => u64::from(v),
        }
    };
    let bty = if k.pred == Pred::Class {
        NumTy::U32
    } else {
        k.ty
    };
    let mut mask = 0u64;
    for l in 0..LANES {
        if w.active(l) {
            let (a, b) = (pick(w, &s0, sel0, l, k.ty), pick(w, &s1, sel1, l, bty));
            let hit = eval(k, a, b, m).ok_or_else(|| unsupported(w, i, c.pc))?;
            mask |= u64::from(hit) << l;
        }
    }
    write_mask(w, c, k, mask);
    Ok(Flow::Continue)
}

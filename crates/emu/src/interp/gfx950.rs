//! gfx950 (CDNA4) vector ALU additions, wired to [`alu::gfx950`] and the
//! existing conversions one lane at a time (rules in decision D51):
//!
//! * `v_cvt_f32_bf16` (VOP1/VOP3/SDWA/DPP): the bf16 in the low half (VOP3
//!   `op_sel[0]`: the high half) widened exactly; `abs`/`neg` act on the
//!   result's sign.
//! * `v_minimum3_f32`, `v_maximum3_f32`: VOP3 with `abs`/`neg`.
//! * `v_bitop3_b32`/`_b16`: the truth table from the instruction's
//!   `bitop3` bits; `_b16` reads the halves `op_sel` picks and writes the
//!   high half with `op_sel[3]` (keeping the low), else the low half
//!   zero-extended.
//! * `v_ashr_pk_{i8,u8}_i32`: a 16-bit result written zero-extended
//!   (`op_sel[3]` stops as unsupported).
//! * `v_cvt_pk_f16_f32`, `v_cvt_pk_bf16_f32`: VOP3 with `abs`/`neg`.
//! * `v_dot2_f32_bf16` (VOP3P) and `v_dot2c_f32_bf16` (VOP2/VOP3/DPP):
//!   [`alu::packed::dot2_f32_bf16`] with the accumulator in source 2 /
//!   the destination; only the default `op_sel`/`op_sel_hi`, no `neg`
//!   and register sources for the packed operands (anything else stops
//!   as unsupported).
//! * `v_permlane16_swap_b32`: odd 16-lane rows of the destination swap
//!   with the even rows of source 0 (row 1 with row 0, row 3 with row 2);
//!   `v_permlane32_swap_b32`: lanes 32–63 of the destination with lanes
//!   0–31 of source 0 (LLVM's `llvm.amdgcn.permlane{16,32}.swap`). Both
//!   run under a full EXEC only: what a partial EXEC does to a pair is not
//!   public, so it stops as unsupported.
//!
//! `clamp` and `omod` stop as unsupported on all of these rather than
//! compute wrongly.

use super::*;
use alu::gfx950 as g;

/// The handler of `op`, for the gfx950 operations this module implements.
pub(super) fn handler(op: Valu) -> Option<Handler> {
    Some(match op {
        Valu::Permlane16SwapB32 | Valu::Permlane32SwapB32 => permlane_swap,
        Valu::Dot2F32Bf16 => dot2_bf16_vop3p,
        Valu::CvtF32Bf16
        | Valu::Minimum3F32
        | Valu::Maximum3F32
        | Valu::Bitop3B32
        | Valu::Bitop3B16
        | Valu::AshrPkI8I32
        | Valu::AshrPkU8I32
        | Valu::CvtPkF16F32
        | Valu::CvtPkBf16F32
        | Valu::Dot2cF32Bf16 => lane_op,
        _ => return None,
    })
}

/// The 8-bit truth table of a `v_bitop3_*` (its bits are spread over
/// both dwords of the VOP3 encoding, as LLVM 22 encodes them).
fn bitop3_table(i: &Instruction) -> u8 {
    let w = i.words();
    let (w0, w1) = (w[0], w.get(1).copied().unwrap_or(0));
    (w1 >> 29 & 7 | (w0 >> 8 & 7) << 3 | (w1 >> 27 & 3) << 6) as u8
}

fn lane_op(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let Sem::Valu(op) = c.sem else {
        return Err(unsupported(w, i, c.pc));
    };
    let Some(d) = c.dst(0).copied() else {
        return Err(unsupported(w, i, c.pc));
    };
    let (clamp, omod) = vop3_clamp_omod(i);
    let vop3 = i.encoding().family() == Encoding::Vop3;
    // op_sel[3] (the destination half) is not part of bitop3's table.
    let opsel = if vop3 { i.words()[0] >> 11 & 0xf } else { 0 };
    // bitop3's table sits where other VOP3 instructions keep `abs` and
    // `omod`; it has neither (nor `clamp`).
    let bitop3 = matches!(op, Valu::Bitop3B32 | Valu::Bitop3B16);
    if !bitop3 && (clamp || omod != 0) {
        return Err(unsupported(w, i, c.pc));
    }
    let mut srcs = [None; 3];
    for (k, s) in c.srcs().take(3).enumerate() {
        srcs[k] = Some(*s);
    }
    let high_dst = opsel >> 3 & 1 == 1;
    match op {
        Valu::AshrPkI8I32 | Valu::AshrPkU8I32 if high_dst => {
            return Err(unsupported(w, i, c.pc));
        }
        Valu::Dot2cF32Bf16 if srcs.iter().flatten().any(|s| s.abs || s.neg) => {
            return Err(unsupported(w, i, c.pc));
        }
        _ => {}
    }
    let table = if bitop3 { bitop3_table(i) } else { 0 };
    let m = md();
    for l in 0..LANES {
        if !w.active(l) {
            continue;
        }
        let raw = |k: usize| srcs[k].as_ref().map_or(0, |s| v32(w, s, l));
        let f = |k: usize| srcs[k].as_ref().map_or(0, |s| f32_mods(s, raw(k)));
        let half = |k: usize| {
            let v = raw(k);
            (if opsel >> k & 1 == 1 { v >> 16 } else { v }) & 0xffff
        };
        let old = v32(w, &d, l);
        let r = match op {
            Valu::CvtF32Bf16 => {
                let v = alu::cvt::bf16_to_f32(half(0) as u16);
                srcs[0].as_ref().map_or(v, |s| f32_mods(s, v))
            }
            Valu::Minimum3F32 => g::minimum3_f32(f(0), f(1), f(2), m),
            Valu::Maximum3F32 => g::maximum3_f32(f(0), f(1), f(2), m),
            Valu::Bitop3B32 => g::bitop3(raw(0), raw(1), raw(2), table),
            Valu::Bitop3B16 => {
                let r = g::bitop3(half(0), half(1), half(2), table) & 0xffff;
                if high_dst {
                    old & 0xffff | r << 16
                } else {
                    r
                }
            }
            Valu::AshrPkI8I32 => g::ashr_pk(raw(0), raw(1), raw(2), false).into(),
            Valu::AshrPkU8I32 => g::ashr_pk(raw(0), raw(1), raw(2), true).into(),
            Valu::CvtPkF16F32 => g::cvt_pk_f16_f32(f(0), f(1), m),
            Valu::CvtPkBf16F32 => alu::cvt::cvt_pk_bf16_f32(f(0), f(1)),
            Valu::Dot2cF32Bf16 => alu::packed::dot2_f32_bf16(raw(0), raw(1), old, m),
            _ => return Err(unsupported(w, i, c.pc)),
        };
        vwrite(w, &d, l, 0, r);
    }
    Ok(Flow::Continue)
}

/// `v_dot2_f32_bf16` (VOP3P): `D = S0.lo·S1.lo + S0.hi·S1.hi + S2`.
fn dot2_bf16_vop3p(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let words = i.words();
    let (w0, w1) = (words[0], words.get(1).copied().unwrap_or(0));
    let sel = w0 >> 11 & 7;
    let sel_hi = (w1 >> 27 & 3) | (w0 >> 14 & 1) << 2;
    let neg = (w1 >> 29 & 7) | (w0 >> 8 & 7);
    let clamp = w0 >> 15 & 1 == 1;
    let mut s = c.srcs().copied();
    let (Some(d), Some(a), Some(b), Some(acc)) = (c.dst(0).copied(), s.next(), s.next(), s.next())
    else {
        return Err(unsupported(w, i, c.pc));
    };
    let regs = matches!(a.value, Operand::Reg(_)) && matches!(b.value, Operand::Reg(_));
    if sel != 0 || sel_hi != 7 || neg != 0 || clamp || !regs {
        return Err(unsupported(w, i, c.pc));
    }
    let m = md();
    for l in 0..LANES {
        if w.active(l) {
            let r = alu::packed::dot2_f32_bf16(v32(w, &a, l), v32(w, &b, l), v32(w, &acc, l), m);
            vwrite(w, &d, l, 0, r);
        }
    }
    Ok(Flow::Continue)
}

/// `v_permlane16_swap_b32` / `v_permlane32_swap_b32`.
fn permlane_swap(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let (Some(a), Some(b)) = (
        c.by_field(Field::Vdst).copied(),
        c.by_field(Field::Src0).copied(),
    ) else {
        return Err(unsupported(w, i, c.pc));
    };
    if w.exec != u64::MAX
        || !matches!(
            b.value,
            Operand::Reg(RegRange {
                file: RegFile::Vgpr,
                ..
            })
        )
    {
        return Err(unsupported(w, i, c.pc));
    }
    let wide = c.sem == Sem::Valu(Valu::Permlane32SwapB32);
    let (mut x, mut y) = (lanes32(w, &a), lanes32(w, &b));
    for l in 0..LANES {
        // Lane l of the destination pairs with lane l - 16 (or l - 32) of
        // source 0.
        let (on, dist) = if wide {
            (l >= 32, 32)
        } else {
            (l / 16 % 2 == 1, 16)
        };
        if on {
            std::mem::swap(&mut x[l], &mut y[l - dist]);
        }
    }
    write_lanes32(w, &a, &x);
    write_lanes32(w, &b, &y);
    Ok(Flow::Continue)
}

/// The scaled conversions (`v_cvt_scalef32_*`): none has semantics yet
/// (D51: the OCP MX element formats and the scale's rounding are still to
/// be modelled), so they stop as unsupported.
pub(super) fn scaled(_op: Valu) -> Option<Handler> {
    None
}

/// gfx942's fp8/bf8 conversions ([`alu::fp8`], FNUZ), on a processor
/// whose 8-bit floats are FNUZ; elsewhere (gfx950's OCP formats) they stop
/// as unsupported instead of computing in the wrong format.
pub(super) fn fnuz_only(
    x: &mut Core<'_>,
    w: &mut Wave,
    lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let inner = match c.sem {
        Sem::Valu(op) if sem::fp8_format(i.target()) == sem::Fp8Format::Fnuz => {
            super::valu_ext::handler(op)
        }
        _ => None,
    };
    match inner {
        Some(h) => h(x, w, lds, i, c),
        None => Err(unsupported(w, i, c.pc)),
    }
}

/// Whether `op` runs on `target`: [`has_semantics`], and for the
/// operations whose meaning depends on the processor, that it has one
/// there (an MFMA needs a row of the MFMA table for the target, and the
/// fp8/bf8 ones and the 8-bit float conversions the FNUZ formats).
pub fn has_semantics_on(op: Opcode, target: Target) -> bool {
    use crate::mfma::Shape;
    if !has_semantics(op) {
        return false;
    }
    let fnuz = sem::fp8_format(target) == sem::Fp8Format::Fnuz;
    match sem::of(op).sem {
        Sem::Mfma => Shape::of_opcode(super::mfma::mfma_target(target), op).is_some(),
        Sem::Valu(
            Valu::CvtF32Bf8
            | Valu::CvtF32Fp8
            | Valu::CvtPkBf8F32
            | Valu::CvtPkF32Bf8
            | Valu::CvtPkF32Fp8
            | Valu::CvtPkFp8F32
            | Valu::CvtSrBf8F32
            | Valu::CvtSrFp8F32,
        ) => fnuz,
        _ => true,
    }
}

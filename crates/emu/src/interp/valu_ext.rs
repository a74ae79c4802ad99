//! VALU operations wired to [`alu`] one lane at a time: 16-bit float
//! functions and conversions, legacy f32 multiplies, normalised and byte
//! packing, dot products (VOP3P and the accumulating VOP2 `*c` forms),
//! `v_fma_mix*`, `v_pk_fmac_f16`, the quad SADs and `v_swap_b32`.
//!
//! Operand rules (GFX9/CDNA):
//!
//! * VOP3 `abs`/`neg` apply to float sources of the operation's own type
//!   (f16: bit 15, f32: bit 31); integer sources take none.
//! * VOP3 `op_sel[k]` (k < 3) picks the high half of a 16-bit source k;
//!   `op_sel[3]` writes a 16-bit result into the high half of the
//!   destination, keeping the low half. Without it a 16-bit result is
//!   written zero-extended (as `valu_f16` does).
//! * `clamp` clamps float results to [0, 1] (NaN to 0) and saturates the
//!   integer dot products; other integer results with `clamp`, and `omod`
//!   anywhere, stop as unsupported rather than compute wrongly.
//! * VOP3P (`v_dot*`, `v_fma_mix*`): `op_sel`/`op_sel_hi` choose the
//!   halves of packed sources, `neg_lo`/`neg_hi` negate them; for the
//!   mixed-precision sources `op_sel_hi` says "f16" and `neg_hi` is `abs`.

use super::*;
use alu::soft::{F16, F32};

/// The handler of `op`, for the operations this module implements.
pub(super) fn handler(op: Valu) -> Option<Handler> {
    Some(match op {
        Valu::SwapB32 => swap_b32,
        Valu::QsadPkU16U8 | Valu::MqsadPkU16U8 | Valu::MqsadU32U8 => qsad,
        Valu::FmaMixF32 | Valu::FmaMixloF16 | Valu::FmaMixhiF16 => fma_mix,
        Valu::Dot2F32F16
        | Valu::Dot2I32I16
        | Valu::Dot2U32U16
        | Valu::Dot4I32I8
        | Valu::Dot4U32U8
        | Valu::Dot8I32I4
        | Valu::Dot8U32U4 => dot_vop3p,
        Valu::CeilF16
        | Valu::FloorF16
        | Valu::TruncF16
        | Valu::RndneF16
        | Valu::FractF16
        | Valu::FrexpMantF16
        | Valu::SqrtF16
        | Valu::RcpF16
        | Valu::RsqF16
        | Valu::LogF16
        | Valu::ExpF16
        | Valu::SinF16
        | Valu::CosF16
        | Valu::FrexpExpI16F16
        | Valu::CvtI16F16
        | Valu::CvtU16F16
        | Valu::CvtNormI16F16
        | Valu::CvtNormU16F16
        | Valu::CvtF16I16
        | Valu::CvtF16U16
        | Valu::LdexpF16
        | Valu::MadF16
        | Valu::MadLegacyF16
        | Valu::FmaLegacyF16
        | Valu::MadakF16
        | Valu::MadmkF16
        | Valu::Max3F16
        | Valu::Min3F16
        | Valu::Med3F16
        | Valu::DivFixupF16
        | Valu::DivFixupLegacyF16
        | Valu::MacF16
        | Valu::MulLegacyF32
        | Valu::MadLegacyF32
        | Valu::CvtFlrI32F32
        | Valu::CvtRpiI32F32
        | Valu::CvtOffF32I4
        | Valu::CvtPkU8F32
        | Valu::CvtPkaccumU8F32
        | Valu::CvtPknormI16F32
        | Valu::CvtPknormU16F32
        | Valu::CvtPknormI16F16
        | Valu::CvtPknormU16F16
        | Valu::SatPkU8I16
        | Valu::Dot2cF32F16
        | Valu::Dot2cI32I16
        | Valu::Dot4cI32I8
        | Valu::Dot8cI32I4
        | Valu::PkFmacF16 => lane_op,
        Valu::CvtF32Fp8
        | Valu::CvtF32Bf8
        | Valu::CvtPkF32Fp8
        | Valu::CvtPkF32Bf8
        | Valu::CvtPkFp8F32
        | Valu::CvtPkBf8F32
        | Valu::CvtSrFp8F32
        | Valu::CvtSrBf8F32 => fp8_cvt,
        _ => return None,
    })
}

/// What a result is, for clamping and where it lands.
#[derive(Clone, Copy, PartialEq)]
enum Out {
    /// An f16 in the low (or, by op_sel[3], high) half.
    F16,
    /// A 16-bit integer, placed like `F16`.
    B16,
    /// An f32.
    F32,
    /// A 32-bit integer, or packed bits.
    B32,
    /// A 32-bit integer dot product (clamp saturates, inside the operation).
    Sat32,
}

/// Dword `k` of a register operand (the operand itself for k = 0).
fn nth(op: &Op, k: u16) -> Op {
    let mut o = *op;
    if let Operand::Reg(r) = o.value {
        o.value = Operand::Reg(RegRange {
            file: r.file,
            first: r.first.wrapping_add(k),
            count: 1,
        });
    }
    o
}

/// The 1-3 source lane operations.
fn lane_op(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use alu::{cvt, float, int, trans};
    let Sem::Valu(op) = c.sem else {
        return Err(unsupported(w, i, c.pc));
    };
    let Some(d) = c.dst(0).copied() else {
        return Err(unsupported(w, i, c.pc));
    };
    let (clamp, omod) = vop3_clamp_omod(i);
    let opsel = if i.encoding().family() == Encoding::Vop3 {
        i.words()[0] >> 11 & 0xf
    } else {
        0
    };
    if omod != 0 {
        return Err(unsupported(w, i, c.pc));
    }
    let srcs: Vec<Op> = c.srcs().copied().collect();
    let m = md();
    let out = match op {
        Valu::FrexpExpI16F16
        | Valu::CvtI16F16
        | Valu::CvtU16F16
        | Valu::CvtNormI16F16
        | Valu::CvtNormU16F16
        | Valu::SatPkU8I16 => Out::B16,
        Valu::MulLegacyF32 | Valu::MadLegacyF32 | Valu::Dot2cF32F16 => Out::F32,
        Valu::Dot2cI32I16 | Valu::Dot4cI32I8 | Valu::Dot8cI32I4 => Out::Sat32,
        Valu::CvtFlrI32F32
        | Valu::CvtRpiI32F32
        | Valu::CvtOffF32I4
        | Valu::CvtPkU8F32
        | Valu::CvtPkaccumU8F32
        | Valu::CvtPknormI16F32
        | Valu::CvtPknormU16F32
        | Valu::CvtPknormI16F16
        | Valu::CvtPknormU16F16
        | Valu::PkFmacF16 => Out::B32,
        _ => Out::F16,
    };
    if clamp && matches!(out, Out::B16 | Out::B32) {
        return Err(unsupported(w, i, c.pc));
    }
    for l in 0..LANES {
        if !w.active(l) {
            continue;
        }
        let raw = |k: usize| srcs.get(k).map_or(0, |s| v32(w, s, l));
        // A 16-bit source (op_sel picks the half), with or without float
        // modifiers.
        let b16 = |k: usize| {
            let v = raw(k);
            (if opsel >> k & 1 == 1 { v >> 16 } else { v }) as u16
        };
        let h = |k: usize| {
            let s = srcs.get(k);
            float::input_mods::<F16>(
                u64::from(b16(k)),
                s.is_some_and(|s| s.abs),
                s.is_some_and(|s| s.neg),
            ) as u16
        };
        let f = |k: usize| srcs.get(k).map_or(0, |s| f32_mods(s, raw(k)));
        let old = v32(w, &d, l);
        let r: u32 = match op {
            Valu::CeilF16 => float::ceil_f16(h(0), m).into(),
            Valu::FloorF16 => float::floor_f16(h(0), m).into(),
            Valu::TruncF16 => float::trunc_f16(h(0), m).into(),
            Valu::RndneF16 => float::rndne_f16(h(0), m).into(),
            Valu::FractF16 => float::fract_f16(h(0), m).into(),
            Valu::FrexpMantF16 => float::frexp_mant_f16(h(0), m).into(),
            Valu::SqrtF16 => trans::sqrt_f16(h(0), m).into(),
            Valu::RcpF16 => trans::rcp_f16(h(0), m).into(),
            Valu::RsqF16 => trans::rsq_f16(h(0), m).into(),
            Valu::LogF16 => trans::log_f16(h(0), m).into(),
            Valu::ExpF16 => trans::exp_f16(h(0), m).into(),
            Valu::SinF16 => trans::sin_f16(h(0), m).into(),
            Valu::CosF16 => trans::cos_f16(h(0), m).into(),
            Valu::FrexpExpI16F16 => (float::frexp_exp_f16(h(0), m) as u16).into(),
            Valu::CvtI16F16 => (cvt::cvt_i16_f16(h(0)) as u16).into(),
            Valu::CvtU16F16 => cvt::cvt_u16_f16(h(0)).into(),
            Valu::CvtNormI16F16 => (cvt::cvt_norm_i16_f16(h(0), m) as u16).into(),
            Valu::CvtNormU16F16 => cvt::cvt_norm_u16_f16(h(0), m).into(),
            Valu::CvtF16I16 => cvt::cvt_f16_i16(b16(0) as i16, m).into(),
            Valu::CvtF16U16 => cvt::cvt_f16_u16(b16(0), m).into(),
            Valu::LdexpF16 => float::ldexp_f16(h(0), i32::from(b16(1) as i16), m).into(),
            Valu::MadF16 | Valu::MadLegacyF16 | Valu::MadakF16 | Valu::MadmkF16 => {
                float::mad_f16(h(0), h(1), h(2), m).into()
            }
            Valu::MacF16 => float::mad_f16(h(0), h(1), old as u16, m).into(),
            Valu::FmaLegacyF16 => float::fma_f16(h(0), h(1), h(2), m).into(),
            Valu::Max3F16 => float::max3_f16(h(0), h(1), h(2), m).into(),
            Valu::Min3F16 => float::min3_f16(h(0), h(1), h(2), m).into(),
            Valu::Med3F16 => float::med3_f16(h(0), h(1), h(2), m).into(),
            Valu::DivFixupF16 => float::div_fixup_f16(h(0), h(1), h(2)).into(),
            Valu::DivFixupLegacyF16 => float::div_fixup_legacy_f16(h(0), h(1), h(2)).into(),
            Valu::MulLegacyF32 => float::mul_legacy_f32(f(0), f(1), m),
            Valu::MadLegacyF32 => float::mad_legacy_f32(f(0), f(1), f(2), m),
            Valu::CvtFlrI32F32 => cvt::cvt_flr_i32_f32(f(0)) as u32,
            Valu::CvtRpiI32F32 => cvt::cvt_rpi_i32_f32(f(0)) as u32,
            Valu::CvtOffF32I4 => cvt::cvt_off_f32_i4(raw(0)),
            Valu::CvtPkU8F32 => cvt::cvt_pk_u8_f32(f(0), raw(1), raw(2)),
            Valu::CvtPkaccumU8F32 => cvt::cvt_pk_u8_f32(f(0), raw(1), old),
            Valu::CvtPknormI16F32 => cvt::cvt_pknorm_i16_f32(f(0), f(1), m),
            Valu::CvtPknormU16F32 => cvt::cvt_pknorm_u16_f32(f(0), f(1), m),
            Valu::CvtPknormI16F16 => cvt::cvt_pknorm_i16_f16(h(0), h(1), m),
            Valu::CvtPknormU16F16 => cvt::cvt_pknorm_u16_f16(h(0), h(1), m),
            Valu::SatPkU8I16 => cvt::sat_pk_u8_i16(raw(0)).into(),
            Valu::Dot2cF32F16 => alu::packed::dot2_f32_f16(raw(0), raw(1), old, m),
            Valu::Dot2cI32I16 => int::dot2_i32_i16(raw(0), raw(1), old, clamp),
            Valu::Dot4cI32I8 => int::dot4_i32_i8(raw(0), raw(1), old, clamp),
            Valu::Dot8cI32I4 => int::dot8_i32_i4(raw(0), raw(1), old, clamp),
            Valu::PkFmacF16 => alu::packed::pk_fma_f16(raw(0), raw(1), old, m),
            _ => return Err(unsupported(w, i, c.pc)),
        };
        let v = match out {
            Out::F16 | Out::B16 => {
                let r = if clamp && out == Out::F16 {
                    float::clamp::<F16>(u64::from(r & 0xffff), m) as u32
                } else {
                    r & 0xffff
                };
                if opsel >> 3 & 1 == 1 {
                    old & 0xffff | r << 16
                } else {
                    r
                }
            }
            Out::F32 if clamp => float::clamp::<F32>(u64::from(r), m) as u32,
            _ => r,
        };
        vwrite(w, &d, l, 0, v);
    }
    Ok(Flow::Continue)
}

/// VOP3P modifier bits: (op_sel, op_sel_hi, neg_lo, neg_hi, clamp).
fn vop3p_mods(i: &Instruction) -> ([bool; 3], [bool; 3], [bool; 3], [bool; 3], bool) {
    let words = i.words();
    let (w0, w1) = (words[0], words.get(1).copied().unwrap_or(0));
    let sel = std::array::from_fn(|k| w0 >> (11 + k) & 1 == 1);
    let sel_hi = std::array::from_fn(|k| {
        if k < 2 {
            w1 >> (27 + k) & 1 == 1
        } else {
            w0 >> 14 & 1 == 1
        }
    });
    let neg_lo = std::array::from_fn(|k| w1 >> (29 + k) & 1 == 1);
    let neg_hi = std::array::from_fn(|k| w0 >> (8 + k) & 1 == 1);
    (sel, sel_hi, neg_lo, neg_hi, w0 >> 15 & 1 == 1)
}

/// `v_dot2/4/8_*` (VOP3P): the packed sources 0 and 1 take op_sel /
/// op_sel_hi per 16-bit half (the f16 form also neg_lo / neg_hi); the 32-bit
/// accumulator takes neg_lo as negation and neg_hi as abs in the f32 form.
/// The byte and nibble forms take no modifiers.
fn dot_vop3p(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use alu::{int, packed as pk};
    let (Sem::Valu(op), Some(d)) = (c.sem, c.dst(0).copied()) else {
        return Err(unsupported(w, i, c.pc));
    };
    let Some(srcs) = three_srcs(c) else {
        return Err(unsupported(w, i, c.pc));
    };
    let (sel, sel_hi, neg_lo, neg_hi, clamp) = vop3p_mods(i);
    let float = op == Valu::Dot2F32F16;
    let halves = matches!(op, Valu::Dot2F32F16 | Valu::Dot2I32I16 | Valu::Dot2U32U16);
    let default_sel = !sel[0] && !sel[1] && sel_hi[0] && sel_hi[1];
    let any_neg = neg_lo.iter().chain(&neg_hi).any(|&b| b);
    if (!halves && !default_sel) || (!float && any_neg) {
        return Err(unsupported(w, i, c.pc));
    }
    let m = md();
    for l in 0..LANES {
        if !w.active(l) {
            continue;
        }
        let src = |k: usize| {
            let raw = match srcs[k].value {
                Operand::Reg(_) => v32(w, &srcs[k], l),
                _ => super::valu::packed_const(&srcs[k], float),
            };
            let v = pk::pk_operand(raw, sel[k], sel_hi[k]);
            if float {
                pk::pk_neg_f16(v, neg_lo[k], neg_hi[k])
            } else {
                v
            }
        };
        let (a, b) = (src(0), src(1));
        let acc = v32(w, &srcs[2], l);
        let r = match op {
            Valu::Dot2F32F16 => {
                let acc = if neg_hi[2] { acc & 0x7fff_ffff } else { acc };
                let acc = if neg_lo[2] { acc ^ 0x8000_0000 } else { acc };
                let r = pk::dot2_f32_f16(a, b, acc, m);
                if clamp {
                    alu::float::clamp::<F32>(u64::from(r), m) as u32
                } else {
                    r
                }
            }
            Valu::Dot2I32I16 => int::dot2_i32_i16(a, b, acc, clamp),
            Valu::Dot2U32U16 => int::dot2_u32_u16(a, b, acc, clamp),
            Valu::Dot4I32I8 => int::dot4_i32_i8(a, b, acc, clamp),
            Valu::Dot4U32U8 => int::dot4_u32_u8(a, b, acc, clamp),
            Valu::Dot8I32I4 => int::dot8_i32_i4(a, b, acc, clamp),
            Valu::Dot8U32U4 => int::dot8_u32_u4(a, b, acc, clamp),
            _ => return Err(unsupported(w, i, c.pc)),
        };
        vwrite(w, &d, l, 0, r);
    }
    Ok(Flow::Continue)
}

/// `v_fma_mix_f32` / `v_fma_mixlo_f16` / `v_fma_mixhi_f16`: each source is
/// the f32 in the register (op_sel_hi clear) or the f16 half op_sel picks,
/// converted exactly; neg_hi is abs and neg_lo negation; one fused
/// multiply-add rounded to the result type. The f16 forms write one half
/// of the destination and keep the other.
fn fma_mix(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use alu::packed as pk;
    let (Sem::Valu(op), Some(d)) = (c.sem, c.dst(0).copied()) else {
        return Err(unsupported(w, i, c.pc));
    };
    let Some(srcs) = three_srcs(c) else {
        return Err(unsupported(w, i, c.pc));
    };
    let (sel, sel_hi, neg_lo, neg_hi, clamp) = vop3p_mods(i);
    let m = md();
    for l in 0..LANES {
        if !w.active(l) {
            continue;
        }
        let src = |k: usize| {
            let v = pk::mix_operand(v32(w, &srcs[k], l), sel[k], sel_hi[k], m);
            let v = if neg_hi[k] { v & 0x7fff_ffff } else { v };
            if neg_lo[k] {
                v ^ 0x8000_0000
            } else {
                v
            }
        };
        let (a, b, cc) = (src(0), src(1), src(2));
        let old = v32(w, &d, l);
        let v = if op == Valu::FmaMixF32 {
            let r = pk::mad_mix_f32(a, b, cc, m);
            if clamp {
                alu::float::clamp::<F32>(u64::from(r), m) as u32
            } else {
                r
            }
        } else {
            let r = u32::from(pk::mad_mix_f16(a, b, cc, m));
            let r = if clamp {
                alu::float::clamp::<F16>(u64::from(r), m) as u32
            } else {
                r
            };
            if op == Valu::FmaMixhiF16 {
                old & 0xffff | r << 16
            } else {
                old & 0xffff_0000 | r
            }
        };
        vwrite(w, &d, l, 0, v);
    }
    Ok(Flow::Continue)
}

/// `v_qsad_pk_u16_u8`, `v_mqsad_pk_u16_u8` (64-bit sources 0 and 2 and
/// result) and `v_mqsad_u32_u8` (128-bit source 2 and result).
fn qsad(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use alu::int;
    let (Sem::Valu(op), Some(d)) = (c.sem, c.dst(0).copied()) else {
        return Err(unsupported(w, i, c.pc));
    };
    let (Some(srcs), (false, 0)) = (three_srcs(c), vop3_clamp_omod(i)) else {
        return Err(unsupported(w, i, c.pc));
    };
    for l in 0..LANES {
        if !w.active(l) {
            continue;
        }
        let a = v64(w, &srcs[0], l);
        let b = v32(w, &srcs[1], l);
        let out: Vec<u32> = match op {
            Valu::MqsadU32U8 => {
                let acc = std::array::from_fn(|k| v32(w, &nth(&srcs[2], k as u16), l));
                int::mqsad_u32_u8(a, b, acc).to_vec()
            }
            _ => {
                let acc = v64(w, &srcs[2], l);
                let r = if op == Valu::QsadPkU16U8 {
                    int::qsad_pk_u16_u8(a, b, acc)
                } else {
                    int::mqsad_pk_u16_u8(a, b, acc)
                };
                vec![r as u32, (r >> 32) as u32]
            }
        };
        for (k, v) in out.into_iter().enumerate() {
            vwrite(w, &d, l, k, v);
        }
    }
    Ok(Flow::Continue)
}

/// `v_swap_b32 vdst, vsrc`: both registers exchanged in the active lanes.
fn swap_b32(
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
    for l in 0..LANES {
        if w.active(l) {
            let (x, y) = (v32(w, &a, l), v32(w, &b, l));
            vwrite(w, &a, l, 0, y);
            vwrite(w, &b, l, 0, x);
        }
    }
    Ok(Flow::Continue)
}

/// The three sources of a three-source VALU instruction (dot products,
/// `v_fma_mix*`, the SADs), without collecting them on the heap each time
/// the instruction runs; `None` if the operands have fewer.
fn three_srcs(c: &Ctx) -> Option<[Op; 3]> {
    let mut s = c.srcs().copied();
    Some([s.next()?, s.next()?, s.next()?])
}

/// The gfx942 FP8/BF8 conversions (rules in [`alu::fp8`]), per the MI300
/// ISA's pseudocode and table 31:
///
/// * `v_cvt_f32_{fp8,bf8}` convert byte 0 of the source (SDWA `src0_sel`
///   picks another, through the SDWA path; in VOP3, op_sel[1:0] does);
///   `v_cvt_pk_f32_{fp8,bf8}` convert the two bytes of word 0 (SDWA
///   `WORD_1` or VOP3 op_sel[0]: word 1) into a register pair. Source
///   modifiers are ignored; `clamp` clamps the f32 result.
/// * `v_cvt_pk_{fp8,bf8}_f32` (VOP3) convert S0 into the low and S1 into
///   the high byte of the destination's low half (op_sel[3]: high half),
///   keeping the other half; `v_cvt_sr_{fp8,bf8}_f32` convert S0 with the
///   seed S1 into the byte op_sel[3:2] names, keeping the other three. S0
///   and S1 of the packed form take `neg`/`abs`; `clamp` is ignored.
fn fp8_cvt(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use alu::fp8::{self, F8};
    let (Sem::Valu(op), Some(d), Some(s0)) = (c.sem, c.dst(0).copied(), c.src(0).copied()) else {
        return Err(unsupported(w, i, c.pc));
    };
    let (clamp, omod) = vop3_clamp_omod(i);
    if omod != 0 {
        return Err(unsupported(w, i, c.pc));
    }
    let opsel = if i.encoding().family() == Encoding::Vop3 {
        i.words()[0] >> 11 & 0xf
    } else {
        0
    };
    let f = match op {
        Valu::CvtF32Bf8 | Valu::CvtPkF32Bf8 | Valu::CvtPkBf8F32 | Valu::CvtSrBf8F32 => F8::Bf8,
        _ => F8::Fp8,
    };
    let sat = fp8::saturates(WAVE_MODE.with(|m| m.get()));
    let m = md();
    let s1 = c.src(1).copied();
    let out = |r: u32| {
        if clamp {
            alu::float::clamp::<F32>(u64::from(r), m) as u32
        } else {
            r
        }
    };
    for l in 0..LANES {
        if !w.active(l) {
            continue;
        }
        let a = v32(w, &s0, l);
        match op {
            Valu::CvtF32Fp8 | Valu::CvtF32Bf8 => {
                let b = (a >> (8 * (opsel & 3))) as u8;
                vwrite(w, &d, l, 0, out(fp8::to_f32(b, f)));
            }
            Valu::CvtPkF32Fp8 | Valu::CvtPkF32Bf8 => {
                let h = a >> (16 * (opsel & 1));
                vwrite(w, &d, l, 0, out(fp8::to_f32(h as u8, f)));
                vwrite(w, &d, l, 1, out(fp8::to_f32((h >> 8) as u8, f)));
            }
            _ => {
                let Some(s1) = s1 else {
                    return Err(unsupported(w, i, c.pc));
                };
                let x = f32_mods(&s0, a);
                let old = v32(w, &d, l);
                let (v, shift, width) = if matches!(op, Valu::CvtPkFp8F32 | Valu::CvtPkBf8F32) {
                    let y = f32_mods(&s1, v32(w, &s1, l));
                    let lo = u32::from(fp8::from_f32(x, f, sat));
                    let hi = u32::from(fp8::from_f32(y, f, sat));
                    (lo | hi << 8, 16 * (opsel >> 3 & 1), 0xffff)
                } else {
                    let seed = v32(w, &s1, l);
                    let r = fp8::from_f32_sr(x, seed, f, sat);
                    (u32::from(r), 8 * (opsel >> 2 & 3), 0xff)
                };
                vwrite(w, &d, l, 0, old & !(width << shift) | v << shift);
            }
        }
    }
    Ok(Flow::Continue)
}

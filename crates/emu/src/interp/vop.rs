//! The generic VALU handlers: one per operand shape, each running the one
//! [`alu`] lane function it is given by `valu::handler`'s exhaustive
//! `match` on the `Sem::Valu` row (`|x, w, _, i, c| u2(x, w, i, c,
//! alu::int::and_b32)`). A handler is generic over its lane function, so
//! each row gets its own instance with the lane inlined into the loop.
//!
//! Every handler reads its operands through [`operands`] (destination 0
//! and sources `0..N`; a missing one stops as unsupported) and writes the
//! active lanes only. Three families of lane loops:
//!
//! * [`u1`]–[`u3`]: 32-bit integer (and bit-exact float) lanes over every
//!   lane in a vectorised loop; VOP3 clamp/omod stop (the `alu` functions
//!   that define clamp take it from `valu::ints`).
//! * [`f1`]–[`f3`], [`mac`], [`d2`], [`d3`]: host-float lanes
//!   ([`alu::host`]) with `abs`/`neg`, MODE's denormal flushing and VOP3
//!   omod/clamp applied around them.
//! * [`each`]: one active lane at a time, for sources of mixed widths
//!   (`v_ldexp_f64`, `v_div_scale_*`, 64-bit conversions, `v_mad_u64_u32`
//!   …), with a lane flag out (VCC or an SGPR pair) or VCC in.

use super::*;

type R = Result<Flow, Stop>;

/// Destination 0 and sources `0..N`, or the unsupported stop when any is
/// missing.
#[inline(always)]
fn operands<const N: usize>(w: &Wave, i: &Instruction, c: &Ctx) -> Result<(Op, [Op; N]), Stop> {
    let s: [Option<Op>; N] = std::array::from_fn(|k| c.src(k).copied());
    match (c.dst(0).copied(), s.iter().all(Option::is_some)) {
        (Some(d), true) => Ok((d, s.map(|o| o.unwrap_or(d)))),
        _ => Err(unsupported(w, i, c.pc)),
    }
}

/// The unsupported stop for VOP3 clamp/omod on an operation without them.
#[inline(always)]
fn no_out_mods(w: &Wave, i: &Instruction, c: &Ctx) -> Result<(), Stop> {
    if vop3_clamp_omod(i) != (false, 0) {
        return Err(unsupported(w, i, c.pc));
    }
    Ok(())
}

/// One 32-bit source lane op (`v_not_b32`, `v_bfrev_b32`, bit-exact
/// conversions …).
#[inline(always)]
pub(super) fn u1(
    x: &mut Core<'_>,
    w: &mut Wave,
    i: &Instruction,
    c: &Ctx,
    f: impl Fn(u32) -> u32,
) -> R {
    no_out_mods(w, i, c)?;
    let (d, [s0]) = operands(w, i, c)?;
    let Bufs {
        src: [p0, ..],
        out: [out, ..],
    } = &mut *x.bufs;
    let va = src_u32(w, &s0, c.konst(0), p0);
    lanes::map1_u32(out, va, f);
    write_lanes32(w, &d, out);
    Ok(Flow::Continue)
}

/// Two 32-bit sources.
#[inline(always)]
pub(super) fn u2(
    x: &mut Core<'_>,
    w: &mut Wave,
    i: &Instruction,
    c: &Ctx,
    f: impl Fn(u32, u32) -> u32,
) -> R {
    no_out_mods(w, i, c)?;
    let (d, [s0, s1]) = operands(w, i, c)?;
    let Bufs {
        src: [p0, p1, ..],
        out: [out, ..],
    } = &mut *x.bufs;
    let (va, vb) = (
        src_u32(w, &s0, c.konst(0), p0),
        src_u32(w, &s1, c.konst(1), p1),
    );
    lanes::map2_u32(out, va, vb, f);
    write_lanes32(w, &d, out);
    Ok(Flow::Continue)
}

/// Three 32-bit sources.
#[inline(always)]
pub(super) fn u3(
    x: &mut Core<'_>,
    w: &mut Wave,
    i: &Instruction,
    c: &Ctx,
    f: impl Fn(u32, u32, u32) -> u32,
) -> R {
    no_out_mods(w, i, c)?;
    let (d, [s0, s1, s2]) = operands(w, i, c)?;
    let Bufs {
        src: [p0, p1, p2, ..],
        out: [out, ..],
    } = &mut *x.bufs;
    let (va, vb, vc) = (
        src_u32(w, &s0, c.konst(0), p0),
        src_u32(w, &s1, c.konst(1), p1),
        src_u32(w, &s2, c.konst(2), p2),
    );
    lanes::map3_u32(out, va, vb, vc, f);
    write_lanes32(w, &d, out);
    Ok(Flow::Continue)
}

/// One f32 source on host floats: `abs`/`neg`, MODE's f32 denormal
/// flushing before and after, VOP3 omod/clamp on the result.
#[inline(always)]
pub(super) fn f1(
    x: &mut Core<'_>,
    w: &mut Wave,
    i: &Instruction,
    c: &Ctx,
    f: impl Fn(f32) -> f32,
) -> R {
    let (d, [s0]) = operands(w, i, c)?;
    let (clamp, omod) = vop3_clamp_omod(i);
    let fz = Flush::f32(w.mode);
    let Bufs {
        src: [p0, ..],
        out: [out, ..],
    } = &mut *x.bufs;
    let va = src_f32(w, &s0, c.konst(0), p0);
    let (fi, fo) = (fz.input, fz.output);
    if clamp || omod != 0 {
        lanes::map1_f32(out, va, fi, fo, |a| apply_omod_clamp_f32(f(a), clamp, omod));
    } else {
        lanes::map1_f32(out, va, fi, fo, f);
    }
    write_lanes32(w, &d, out);
    Ok(Flow::Continue)
}

/// Two f32 sources, as [`f1`].
#[inline(always)]
pub(super) fn f2(
    x: &mut Core<'_>,
    w: &mut Wave,
    i: &Instruction,
    c: &Ctx,
    f: impl Fn(f32, f32) -> f32,
) -> R {
    let (d, [s0, s1]) = operands(w, i, c)?;
    let (clamp, omod) = vop3_clamp_omod(i);
    let fz = Flush::f32(w.mode);
    let Bufs {
        src: [p0, p1, ..],
        out: [out, ..],
    } = &mut *x.bufs;
    let (va, vb) = (
        src_f32(w, &s0, c.konst(0), p0),
        src_f32(w, &s1, c.konst(1), p1),
    );
    let (fi, fo) = (fz.input, fz.output);
    if clamp || omod != 0 {
        lanes::map2_f32(out, va, vb, fi, fo, |a, b| {
            apply_omod_clamp_f32(f(a, b), clamp, omod)
        });
    } else {
        lanes::map2_f32(out, va, vb, fi, fo, f);
    }
    write_lanes32(w, &d, out);
    Ok(Flow::Continue)
}

/// Three f32 sources, as [`f1`]; with `MAC` the third is the destination
/// (`v_mac_f32`, `v_fmac_f32`), read without modifiers.
#[inline(always)]
fn f3_or_mac<const MAC: bool>(
    x: &mut Core<'_>,
    w: &mut Wave,
    i: &Instruction,
    c: &Ctx,
    f: impl Fn(f32, f32, f32) -> f32,
) -> R {
    let (d, [s0, s1]) = operands(w, i, c)?;
    let s2 = if MAC {
        d
    } else {
        let Some(s2) = c.src(2).copied() else {
            return Err(unsupported(w, i, c.pc));
        };
        s2
    };
    let (clamp, omod) = vop3_clamp_omod(i);
    let fz = Flush::f32(w.mode);
    let Bufs {
        src: [p0, p1, p2, ..],
        out: [out, ..],
    } = &mut *x.bufs;
    let (va, vb) = (
        src_f32(w, &s0, c.konst(0), p0),
        src_f32(w, &s1, c.konst(1), p1),
    );
    let vc = if MAC {
        lanes::Src::f32(src_ref(w, &d, p2), false, false)
    } else {
        src_f32(w, &s2, c.konst(2), p2)
    };
    let (fi, fo) = (fz.input, fz.output);
    if clamp || omod != 0 {
        lanes::map3_f32(out, va, vb, vc, fi, fo, |a, b, cc| {
            apply_omod_clamp_f32(f(a, b, cc), clamp, omod)
        });
    } else {
        lanes::map3_f32(out, va, vb, vc, fi, fo, f);
    }
    write_lanes32(w, &d, out);
    Ok(Flow::Continue)
}

/// Three f32 sources, as [`f1`].
#[inline(always)]
pub(super) fn f3(
    x: &mut Core<'_>,
    w: &mut Wave,
    i: &Instruction,
    c: &Ctx,
    f: impl Fn(f32, f32, f32) -> f32,
) -> R {
    f3_or_mac::<false>(x, w, i, c, f)
}

/// `v_mac`/`v_fmac` f32: two sources, the destination the addend.
#[inline(always)]
pub(super) fn mac(
    x: &mut Core<'_>,
    w: &mut Wave,
    i: &Instruction,
    c: &Ctx,
    f: impl Fn(f32, f32, f32) -> f32,
) -> R {
    f3_or_mac::<true>(x, w, i, c, f)
}

/// `N` f64 sources on host floats: `abs`/`neg`, MODE's f64 denormal
/// flushing, omod/clamp; every lane computed, the active ones written.
#[inline(always)]
fn dn<const N: usize>(
    x: &mut Core<'_>,
    w: &mut Wave,
    i: &Instruction,
    c: &Ctx,
    f: impl Fn([f64; N]) -> f64,
) -> R {
    let _ = x;
    let (d, s) = operands::<N>(w, i, c)?;
    let (clamp, omod) = vop3_clamp_omod(i);
    let fz = Flush::f64(w.mode);
    let v: [[u64; LANES]; N] = std::array::from_fn(|k| lanes64(w, &s[k]));
    let mut out = [0u64; LANES];
    for (l, o) in out.iter_mut().enumerate() {
        let a = std::array::from_fn(|k| fz.in64(f64::from_bits(f64_mods(&s[k], v[k][l]))));
        *o = fz.out64(apply_omod_clamp_f64(f(a), clamp, omod)).to_bits();
    }
    write_lanes64(w, &d, &out);
    Ok(Flow::Continue)
}

/// Two f64 sources (`v_add_f64` …).
#[inline(always)]
pub(super) fn d2(
    x: &mut Core<'_>,
    w: &mut Wave,
    i: &Instruction,
    c: &Ctx,
    f: impl Fn(f64, f64) -> f64,
) -> R {
    dn::<2>(x, w, i, c, |[a, b]| f(a, b))
}

/// Three f64 sources (`v_fma_f64`).
#[inline(always)]
pub(super) fn d3(
    x: &mut Core<'_>,
    w: &mut Wave,
    i: &Instruction,
    c: &Ctx,
    f: impl Fn(f64, f64, f64) -> f64,
) -> R {
    dn::<3>(x, w, i, c, |[a, b, cc]| f(a, b, cc))
}

/// How [`each`] reads a source lane (as u64 bits).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum In {
    /// 32 bits, no modifiers.
    B32,
    /// 32 bits with f32 `abs`/`neg`.
    F32,
    /// A register pair, no modifiers.
    B64,
    /// A register pair with f64 `abs`/`neg`.
    F64,
}

/// What [`each`] does with a lane's flag beside its result.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Flag {
    /// None.
    No,
    /// The lane's VCC bit is the lane function's flag input.
    VccIn,
    /// The flags of the active lanes go to the SGPR pair of destination 1,
    /// or to VCC without one (`v_div_scale_*`).
    SdstOrVcc,
    /// The flags of the active lanes go to destination 1's SGPR pair, if
    /// any (`v_mad_u64_u32`).
    Sdst,
}

/// One active lane at a time: sources `0..N` read as `ins` says, `f` given
/// them and the lane's flag input (VCC with [`Flag::VccIn`], else false)
/// returns the result (the low 32 bits written, or all 64 with `WIDE`) and
/// the lane's flag out.
#[inline(always)]
pub(super) fn each<const N: usize, const WIDE: bool>(
    w: &mut Wave,
    i: &Instruction,
    c: &Ctx,
    ins: [In; N],
    flag: Flag,
    f: impl Fn([u64; N], bool) -> (u64, bool),
) -> R {
    let (d, s) = operands::<N>(w, i, c)?;
    let vcc = if flag == Flag::VccIn { w.vcc() } else { 0 };
    let mut flags = 0u64;
    for l in 0..LANES {
        if !w.active(l) {
            continue;
        }
        let a = std::array::from_fn(|k| match ins[k] {
            In::B32 => u64::from(v32(w, &s[k], l)),
            In::F32 => u64::from(f32_mods(&s[k], v32(w, &s[k], l))),
            In::B64 => v64(w, &s[k], l),
            In::F64 => f64_mods(&s[k], v64(w, &s[k], l)),
        });
        let (r, fl) = f(a, vcc >> l & 1 == 1);
        vwrite(w, &d, l, 0, r as u32);
        if WIDE {
            vwrite(w, &d, l, 1, (r >> 32) as u32);
        }
        flags |= u64::from(fl) << l;
    }
    match (flag, c.dst(1).copied()) {
        (Flag::SdstOrVcc | Flag::Sdst, Some(sd)) => s_write64(w, &sd, flags),
        (Flag::SdstOrVcc, None) => w.set_vcc(flags),
        _ => {}
    }
    Ok(Flow::Continue)
}

/// `v_mbcnt_{lo,hi}_u32_b32`: `f(mask, acc, lane)` in the active lanes.
pub(super) fn mbcnt(w: &mut Wave, i: &Instruction, c: &Ctx, f: fn(u32, u32, u32) -> u32) -> R {
    let (d, [s0, s1]) = operands(w, i, c)?;
    for l in 0..LANES {
        if w.active(l) {
            let v = f(v32(w, &s0, l), v32(w, &s1, l), l as u32);
            vwrite(w, &d, l, 0, v);
        }
    }
    Ok(Flow::Continue)
}

/// 64-bit shifts (`v_lshlrev_b64` and kin): `dst = f(src0, src1)` per
/// lane (the shift count first, as `alu::int` takes it), the 64-bit
/// source read in place as two rows, the result written as two rows in
/// the active lanes.
#[inline(always)]
pub(super) fn shift64(
    x: &mut Core<'_>,
    w: &mut Wave,
    i: &Instruction,
    c: &Ctx,
    f: impl Fn(u32, u64) -> u64,
) -> R {
    let (d, [s0, s1]) = operands(w, i, c)?;
    let Bufs {
        src: [p0, p1, p2, ..],
        out: [lo, hi],
    } = &mut *x.bufs;
    let sh = c.konst(0).unwrap_or_else(|| src_ref(w, &s0, p0));
    let (vlo, vhi) = src64(w, &s1, p1, p2);
    for l in 0..LANES {
        let r = f(sh[l], u64::from(vlo[l]) | u64::from(vhi[l]) << 32);
        lo[l] = r as u32;
        hi[l] = (r >> 32) as u32;
    }
    write_lanes32(w, &d, lo);
    write_lanes32(w, &next_reg(&d), hi);
    Ok(Flow::Continue)
}

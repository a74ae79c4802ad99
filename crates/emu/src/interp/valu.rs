//! Vector ALU: VOP1, VOP2, VOP3 (integer and float), VOP3P packed
//! operations and 16-bit float ops; the float MODE the handlers implement.

use super::*;

/// The MODE the float semantics implement (the HIP defaults: round to
/// nearest even, denormals kept, IEEE and DX10 clamp on). A wave whose MODE
/// differs stops at its first float instruction (see `Step::step`).
pub(super) const M: alu::Mode = alu::Mode::from_bits(0x3f0);

thread_local! {
    /// The MODE of the wave whose float instruction is executing (set by
    /// `Step::step`), for the `alu` calls in handler expressions.
    pub(super) static WAVE_MODE: std::cell::Cell<u32> = const { std::cell::Cell::new(0x3f0) };
}

/// The executing wave's MODE.
#[inline]
pub(super) fn md() -> alu::Mode {
    alu::Mode::from_bits(WAVE_MODE.with(|m| m.get()))
}

/// Denormal flushing of one precision class under a wave's MODE, for the
/// handlers that compute with host floats (round to nearest even, the
/// only rounding they are used under): flushed inputs become a signed
/// zero before the operation, flushed outputs after rounding.
#[derive(Clone, Copy)]
pub(super) struct Flush {
    pub(super) input: bool,
    pub(super) output: bool,
}

impl Flush {
    #[inline]
    pub(super) fn of(d: alu::Denorm) -> Flush {
        Flush {
            input: !d.allow_in,
            output: !d.allow_out,
        }
    }
    #[inline]
    pub(super) fn f32(mode: u32) -> Flush {
        Flush::of(alu::Mode::from_bits(mode).denorm_f32)
    }
    #[inline]
    pub(super) fn f64(mode: u32) -> Flush {
        Flush::of(alu::Mode::from_bits(mode).denorm_f64_f16)
    }
    #[inline]
    pub(super) fn in32(self, x: f32) -> f32 {
        if self.input && x.is_subnormal() {
            f32::from_bits(x.to_bits() & 0x8000_0000)
        } else {
            x
        }
    }
    #[inline]
    pub(super) fn out32(self, x: f32) -> f32 {
        Flush {
            input: self.output,
            output: false,
        }
        .in32(x)
    }
    #[inline]
    pub(super) fn in64(self, x: f64) -> f64 {
        if self.input && x.is_subnormal() {
            f64::from_bits(x.to_bits() & (1 << 63))
        } else {
            x
        }
    }
    #[inline]
    pub(super) fn out64(self, x: f64) -> f64 {
        Flush {
            input: self.output,
            output: false,
        }
        .in64(x)
    }
}

/// Whether float instructions run correctly under `mode`: any denormal
/// controls, with nearest-even rounding, IEEE and DX10_CLAMP; MFMA only
/// under the default MODE.
pub(super) fn mode_modelled(mode: u32, mfma: bool) -> bool {
    let m = alu::Mode::from_bits(mode);
    if mfma {
        return m == M;
    }
    m.round_f32 == alu::Round::NearestEven
        && m.round_f64_f16 == alu::Round::NearestEven
        && m.ieee
        && m.dx10_clamp
}

/// `v_mad_f32`/`v_mac_f32`/`v_madak_f32`/`v_madmk_f32`: the product is
/// rounded before the add (not fused), and denormals are flushed whatever
/// MODE says (inputs, the product and the result), as `alu::float::mad`
/// defines it.
pub(super) fn mad_legacy_f32(a: f32, b: f32, c: f32) -> f32 {
    let f = Flush {
        input: true,
        output: true,
    };
    f.out32(f.out32(f.in32(a) * f.in32(b)) + f.in32(c))
}

/// The VOP1/VOP2/VOP3 handler of `name`.
pub(super) fn handler(name: &str) -> Option<Handler> {
    Some(match name {
        // ---- VOP1 / VOP2 / VOP3, integer
        "v_mov_b32" => valu_u32!(|a| a),
        "v_not_b32" => valu_u32!(|a| !a),
        "v_bfrev_b32" => valu_u32!(|a| a.reverse_bits()),
        "v_ffbh_u32" => valu_u32!(|a| if a == 0 { u32::MAX } else { a.leading_zeros() }),
        "v_ffbl_b32" => valu_u32!(|a| if a == 0 { u32::MAX } else { a.trailing_zeros() }),
        "v_add_u32" => valu_u32!(|a, b| a.wrapping_add(b)),
        "v_sub_u32" => valu_u32!(|a, b| a.wrapping_sub(b)),
        "v_subrev_u32" => valu_u32!(|a, b| b.wrapping_sub(a)),
        "v_and_b32" => valu_u32!(|a, b| a & b),
        "v_or_b32" => valu_u32!(|a, b| a | b),
        "v_xor_b32" => valu_u32!(|a, b| a ^ b),
        "v_lshlrev_b32" => valu_u32!(|a, b| b << (a & 31)),
        "v_lshrrev_b32" => valu_u32!(|a, b| b >> (a & 31)),
        "v_ashrrev_i32" => valu_u32!(|a, b| ((b as i32) >> (a & 31)) as u32),
        "v_min_u32" => valu_u32!(|a, b| a.min(b)),
        "v_max_u32" => valu_u32!(|a, b| a.max(b)),
        "v_min_i32" => valu_u32!(|a, b| (a as i32).min(b as i32) as u32),
        "v_max_i32" => valu_u32!(|a, b| (a as i32).max(b as i32) as u32),
        "v_mul_lo_u32" => valu_u32!(|a, b| a.wrapping_mul(b)),
        "v_mul_hi_u32" => valu_u32!(|a, b| ((u64::from(a) * u64::from(b)) >> 32) as u32),
        "v_mul_hi_i32" => {
            valu_u32!(|a, b| ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32)
        }
        "v_mul_u32_u24" => valu_u32!(|a, b| (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff)),
        "v_mul_i32_i24" => {
            valu_u32!(|a, b| (((a << 8) as i32 >> 8).wrapping_mul((b << 8) as i32 >> 8)) as u32)
        }
        "v_mul_hi_i32_i24" => valu_u32!(|a, b| crate::alu::int::mul_hi_i32_i24(a, b)),
        "v_mul_hi_u32_u24" => {
            valu_u32!(|a, b| ((u64::from(a & 0xff_ffff) * u64::from(b & 0xff_ffff)) >> 32) as u32)
        }
        "v_add_lshl_u32" => valu_u32!(|a, b, s| a.wrapping_add(b) << (s & 31)),
        "v_lshl_add_u32" => valu_u32!(|a, b, s| (a << (b & 31)).wrapping_add(s)),
        "v_lshl_or_b32" => valu_u32!(|a, b, s| (a << (b & 31)) | s),
        "v_and_or_b32" => valu_u32!(|a, b, s| (a & b) | s),
        "v_or3_b32" => valu_u32!(|a, b, s| a | b | s),
        "v_xad_u32" => valu_u32!(|a, b, s| (a ^ b).wrapping_add(s)),
        "v_add3_u32" => valu_u32!(|a, b, s| a.wrapping_add(b).wrapping_add(s)),
        "v_mad_u32_u24" => {
            valu_u32!(|a, b, s| (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff).wrapping_add(s))
        }
        "v_mad_i32_i24" => valu_u32!(|a, b, s| (((a << 8) as i32 >> 8)
            .wrapping_mul((b << 8) as i32 >> 8))
        .wrapping_add(s as i32) as u32),
        "v_bfe_u32" => valu_u32!(|a, b, s| bfe_u32(a, b & 31, s & 31)),
        "v_bfe_i32" => valu_u32!(|a, b, s| bfe_i32(a, b & 31, s & 31)),
        "v_bfi_b32" => valu_u32!(|a, b, s| (a & b) | (!a & s)),
        "v_alignbit_b32" => {
            valu_u32!(|a, b, s| (((u64::from(a) << 32) | u64::from(b)) >> (s & 31)) as u32)
        }
        "v_alignbyte_b32" => {
            valu_u32!(|a, b, s| (((u64::from(a) << 32) | u64::from(b)) >> (8 * (s & 3))) as u32)
        }
        "v_min3_u32" => valu_u32!(|a, b, s| a.min(b).min(s)),
        "v_max3_u32" => valu_u32!(|a, b, s| a.max(b).max(s)),
        "v_min3_i32" => valu_u32!(|a, b, s| (a as i32).min(b as i32).min(s as i32) as u32),
        "v_max3_i32" => valu_u32!(|a, b, s| (a as i32).max(b as i32).max(s as i32) as u32),
        "v_med3_i32" => valu_u32!(|a, b, s| med3(a as i32, b as i32, s as i32) as u32),
        "v_med3_u32" => valu_u32!(|a, b, s| med3(a, b, s)),
        "v_bcnt_u32_b32" => valu_u32!(|a, b| a.count_ones().wrapping_add(b)),
        "v_mbcnt_lo_u32_b32" => mbcnt!(false),
        "v_mbcnt_hi_u32_b32" => mbcnt!(true),
        "v_cndmask_b32" => |x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            let mask = c.src(2).map_or(w.vcc(), |m| s64(w, m));
            let Bufs {
                src: [p0, p1, ..],
                out: [out, ..],
            } = &mut *x.bufs;
            let (va, vb) = (
                src_f32(w, &s0, c.konst(0), p0),
                src_f32(w, &s1, c.konst(1), p1),
            );
            for (l, o) in out.iter_mut().enumerate() {
                *o = if mask >> l & 1 == 1 {
                    vb.at(l)
                } else {
                    va.at(l)
                };
            }
            write_lanes32(w, &d, out);
            Ok(Flow::Continue)
        },
        "v_add_co_u32" => carry_op!(|a, b, _c| u64::from(a) + u64::from(b), false),
        "v_sub_co_u32" => carry_op!(|a, b, _c| u64::from(a).wrapping_sub(u64::from(b)), false),
        "v_subrev_co_u32" => carry_op!(|a, b, _c| u64::from(b).wrapping_sub(u64::from(a)), false),
        "v_addc_co_u32" => carry_op!(|a, b, c| u64::from(a) + u64::from(b) + u64::from(c), true),
        "v_subb_co_u32" => carry_op!(
            |a, b, c| u64::from(a)
                .wrapping_sub(u64::from(b))
                .wrapping_sub(u64::from(c)),
            true
        ),
        "v_subbrev_co_u32" => carry_op!(
            |a, b, c| u64::from(b)
                .wrapping_sub(u64::from(a))
                .wrapping_sub(u64::from(c)),
            true
        ),
        "v_mad_u64_u32" => mad64!(false),
        "v_mad_i64_i32" => mad64!(true),
        "v_lshlrev_b64" => shift64!(|v, s| v << s),
        "v_lshrrev_b64" => shift64!(|v, s| v >> s),
        "v_ashrrev_i64" => shift64!(|v, s| ((v as i64) >> s) as u64),
        "v_readfirstlane_b32" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                let lane = if w.exec == 0 {
                    0
                } else {
                    w.exec.trailing_zeros() as usize
                };
                let v = v32(w, &s, lane);
                s_write32(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        "v_readlane_b32" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s), Some(sel)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            {
                let lane = (s32(w, &sel) & 63) as usize;
                let v = v32(w, &s, lane);
                s_write32(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        "v_writelane_b32" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s), Some(sel)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            {
                let lane = (s32(w, &sel) & 63) as usize;
                let v = s32(w, &s);
                vwrite(w, &d, lane, 0, v);
            }
            Ok(Flow::Continue)
        },
        "v_accvgpr_write_b32" | "v_accvgpr_read_b32" | "v_accvgpr_mov_b32" => valu_u32!(|a| a),
        // ---- VALU float
        "v_add_f32" => valu_f32!(|a, b| a + b),
        "v_sub_f32" => valu_f32!(|a, b| a - b),
        "v_subrev_f32" => valu_f32!(|a, b| b - a),
        "v_mul_f32" => valu_f32!(|a, b| a * b),
        "v_min_f32" => {
            valu_u32!(
                |a, b| alu::float::min::<alu::soft::F32>(u64::from(a), u64::from(b), md()) as u32
            )
        }
        "v_max_f32" => {
            valu_u32!(
                |a, b| alu::float::max::<alu::soft::F32>(u64::from(a), u64::from(b), md()) as u32
            )
        }
        "v_fma_f32" => valu_f32!(|a, b, c| a.mul_add(b, c)),
        "v_fmac_f32" => mac_f32!(|a, b, c| a.mul_add(b, c)),
        "v_mac_f32" => mac_f32!(|a, b, c| mad_legacy_f32(a, b, c)),
        "v_fmac_f64" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            for l in 0..LANES {
                if w.active(l) {
                    let a = f64::from_bits(f64_mods(&s0, v64(w, &s0, l)));
                    let b = f64::from_bits(f64_mods(&s1, v64(w, &s1, l)));
                    let r = a.mul_add(b, f64::from_bits(v64(w, &d, l))).to_bits();
                    vwrite(w, &d, l, 0, r as u32);
                    vwrite(w, &d, l, 1, (r >> 32) as u32);
                }
            }
            Ok(Flow::Continue)
        },
        "v_rcp_iflag_f32" => valu_u32!(|a| alu::trans::rcp_iflag_f32(a, md())),
        "v_cvt_f64_f32" => unary64_from32!(|a| alu::cvt::cvt_f64_f32(a, md())),
        "v_cvt_f32_f64" => unary32_from64!(|a| alu::cvt::cvt_f32_f64(a, md())),
        "v_cvt_i32_f64" => unary32_from64!(|a| alu::cvt::cvt_i32_f64(a) as u32),
        "v_cvt_u32_f64" => unary32_from64!(|a| alu::cvt::cvt_u32_f64(a)),
        "v_cvt_f64_i32" => unary64_from32!(|a| alu::cvt::cvt_f64_i32(a as i32)),
        "v_cvt_f64_u32" => unary64_from32!(|a| alu::cvt::cvt_f64_u32(a)),
        "v_cvt_f16_f32" => valu_u32!(|a| u32::from(alu::cvt::cvt_f16_f32(a, md()))),
        "v_cvt_f32_f16" => valu_u32!(|a| alu::cvt::cvt_f32_f16(a as u16, md())),
        "v_cvt_pkrtz_f16_f32" => valu_u32!(|a, b| alu::cvt::cvt_pkrtz_f16_f32(a, b, md())),
        "v_perm_b32" => valu_u32!(|a, b, c| alu::int::perm_b32(a, b, c)),
        "v_rcp_f64" => unary64!(|a| alu::trans::rcp_f64(a, md())),
        "v_sqrt_f64" => unary64!(|a| alu::trans::sqrt_f64(a, md())),
        "v_rsq_f64" => unary64!(|a| alu::trans::rsq_f64(a, md())),
        "v_rndne_f64" => unary64!(|a| alu::float::rndne::<alu::soft::F64>(a, md())),
        "v_floor_f64" => unary64!(|a| alu::float::floor::<alu::soft::F64>(a, md())),
        "v_trunc_f64" => unary64!(|a| alu::float::trunc::<alu::soft::F64>(a, md())),
        "v_ceil_f64" => unary64!(|a| alu::float::ceil::<alu::soft::F64>(a, md())),
        "v_fract_f64" => unary64!(|a| alu::float::fract::<alu::soft::F64>(a, md())),
        "v_frexp_mant_f32" => {
            valu_u32!(|a| alu::float::frexp_mant::<alu::soft::F32>(u64::from(a), md()) as u32)
        }
        "v_frexp_exp_i32_f32" => valu_u32!(|a| alu::float::frexp_exp_f32(a, md()) as u32),
        "v_frexp_mant_f64" => unary64!(|a| alu::float::frexp_mant::<alu::soft::F64>(a, md())),
        "v_frexp_exp_i32_f64" => unary32_from64!(|a| alu::float::frexp_exp_f64(a, md()) as u32),
        "v_ldexp_f64" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            for l in 0..LANES {
                if w.active(l) {
                    let r = alu::float::ldexp_f64(
                        f64_mods(&s0, v64(w, &s0, l)),
                        v32(w, &s1, l) as i32,
                        md(),
                    );
                    vwrite(w, &d, l, 0, r as u32);
                    vwrite(w, &d, l, 1, (r >> 32) as u32);
                }
            }
            Ok(Flow::Continue)
        },
        "v_div_scale_f32" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            let mut vcc = 0u64;
            for l in 0..LANES {
                if w.active(l) {
                    let (r, f) = alu::float::div_scale_f32(
                        f32_mods(&s0, v32(w, &s0, l)),
                        f32_mods(&s1, v32(w, &s1, l)),
                        f32_mods(&s2, v32(w, &s2, l)),
                        md(),
                    );
                    vwrite(w, &d, l, 0, r);
                    vcc |= u64::from(f) << l;
                }
            }
            match c.dst(1).copied() {
                Some(sd) => s_write64(w, &sd, vcc),
                None => w.set_vcc(vcc),
            }
            Ok(Flow::Continue)
        },
        "v_div_scale_f64" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            let mut vcc = 0u64;
            for l in 0..LANES {
                if w.active(l) {
                    let (r, f) = alu::float::div_scale_f64(
                        f64_mods(&s0, v64(w, &s0, l)),
                        f64_mods(&s1, v64(w, &s1, l)),
                        f64_mods(&s2, v64(w, &s2, l)),
                        md(),
                    );
                    vwrite(w, &d, l, 0, r as u32);
                    vwrite(w, &d, l, 1, (r >> 32) as u32);
                    vcc |= u64::from(f) << l;
                }
            }
            match c.dst(1).copied() {
                Some(sd) => s_write64(w, &sd, vcc),
                None => w.set_vcc(vcc),
            }
            Ok(Flow::Continue)
        },
        "v_div_fmas_f32" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            let vcc = w.vcc();
            for l in 0..LANES {
                if w.active(l) {
                    let r = alu::float::div_fmas_f32(
                        f32_mods(&s0, v32(w, &s0, l)),
                        f32_mods(&s1, v32(w, &s1, l)),
                        f32_mods(&s2, v32(w, &s2, l)),
                        vcc >> l & 1 == 1,
                        md(),
                    );
                    vwrite(w, &d, l, 0, r);
                }
            }
            Ok(Flow::Continue)
        },
        "v_div_fmas_f64" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            let vcc = w.vcc();
            for l in 0..LANES {
                if w.active(l) {
                    let r = alu::float::div_fmas_f64(
                        f64_mods(&s0, v64(w, &s0, l)),
                        f64_mods(&s1, v64(w, &s1, l)),
                        f64_mods(&s2, v64(w, &s2, l)),
                        vcc >> l & 1 == 1,
                        md(),
                    );
                    vwrite(w, &d, l, 0, r as u32);
                    vwrite(w, &d, l, 1, (r >> 32) as u32);
                }
            }
            Ok(Flow::Continue)
        },
        "v_div_fixup_f32" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            for l in 0..LANES {
                if w.active(l) {
                    let r = alu::float::div_fixup_f32(
                        f32_mods(&s0, v32(w, &s0, l)),
                        f32_mods(&s1, v32(w, &s1, l)),
                        f32_mods(&s2, v32(w, &s2, l)),
                    );
                    vwrite(w, &d, l, 0, r);
                }
            }
            Ok(Flow::Continue)
        },
        "v_div_fixup_f64" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            for l in 0..LANES {
                if w.active(l) {
                    let r = alu::float::div_fixup_f64(
                        f64_mods(&s0, v64(w, &s0, l)),
                        f64_mods(&s1, v64(w, &s1, l)),
                        f64_mods(&s2, v64(w, &s2, l)),
                    );
                    vwrite(w, &d, l, 0, r as u32);
                    vwrite(w, &d, l, 1, (r >> 32) as u32);
                }
            }
            Ok(Flow::Continue)
        },
        "v_mov_b64" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s0)) = (c.dst(0).copied(), c.src(0).copied()) {
                for l in 0..LANES {
                    if w.active(l) {
                        let v = v64(w, &s0, l);
                        vwrite(w, &d, l, 0, v as u32);
                        vwrite(w, &d, l, 1, (v >> 32) as u32);
                    }
                }
            }
            Ok(Flow::Continue)
        },
        "v_lshl_add_u64" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Ok(Flow::Continue);
            };
            for l in 0..LANES {
                if w.active(l) {
                    let v = (v64(w, &s0, l) << (v32(w, &s1, l) & 63)).wrapping_add(v64(w, &s2, l));
                    vwrite(w, &d, l, 0, v as u32);
                    vwrite(w, &d, l, 1, (v >> 32) as u32);
                }
            }
            Ok(Flow::Continue)
        },
        "v_add_u16" => valu_u32!(|a, b| (a as u16).wrapping_add(b as u16) as u32),
        "v_sub_u16" => valu_u32!(|a, b| (a as u16).wrapping_sub(b as u16) as u32),
        "v_subrev_u16" => valu_u32!(|a, b| (b as u16).wrapping_sub(a as u16) as u32),
        "v_mul_lo_u16" => valu_u32!(|a, b| (a as u16).wrapping_mul(b as u16) as u32),
        "v_lshlrev_b16" => valu_u32!(|a, b| ((b as u16) << (a & 15)) as u32),
        "v_lshrrev_b16" => valu_u32!(|a, b| ((b as u16) >> (a & 15)) as u32),
        "v_ashrrev_i16" => valu_u32!(|a, b| ((b as i16) >> (a & 15)) as u16 as u32),
        "v_max_u16" => valu_u32!(|a, b| (a as u16).max(b as u16) as u32),
        "v_min_u16" => valu_u32!(|a, b| (a as u16).min(b as u16) as u32),
        "v_max_i16" => valu_u32!(|a, b| (a as i16).max(b as i16) as u16 as u32),
        "v_min_i16" => valu_u32!(|a, b| (a as i16).min(b as i16) as u16 as u32),
        "v_pk_mov_b32" => |_x, w, _l, i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            // op_sel[0] picks the half of src0 for the low result, op_sel[1]
            // the half of src1 for the high result (VOP3P word 0, bits 11-12).
            let w0 = i.words()[0];
            let (sel0, sel1) = (w0 >> 11 & 1 == 1, w0 >> 12 & 1 == 1);
            for l in 0..LANES {
                if w.active(l) {
                    let a = v64(w, &s0, l);
                    let b = v64(w, &s1, l);
                    let lo = if sel0 { (a >> 32) as u32 } else { a as u32 };
                    let hi = if sel1 { (b >> 32) as u32 } else { b as u32 };
                    vwrite(w, &d, l, 0, lo);
                    vwrite(w, &d, l, 1, hi);
                }
            }
            Ok(Flow::Continue)
        },
        "v_mad_f32" => valu_f32!(|a, b, c| mad_legacy_f32(a, b, c)),
        "v_fmaak_f32" | "v_fmamk_f32" => valu_f32!(|a, b, c| a.mul_add(b, c)),
        "v_madak_f32" | "v_madmk_f32" => valu_f32!(|a, b, c| mad_legacy_f32(a, b, c)),
        "v_max3_f32" => valu_u32!(|a, b, c| alu::float::max3::<alu::soft::F32>(
            u64::from(a),
            u64::from(b),
            u64::from(c),
            md()
        ) as u32),
        "v_min3_f32" => valu_u32!(|a, b, c| alu::float::min3::<alu::soft::F32>(
            u64::from(a),
            u64::from(b),
            u64::from(c),
            md()
        ) as u32),
        "v_med3_f32" => valu_u32!(|a, b, c| alu::float::med3::<alu::soft::F32>(
            u64::from(a),
            u64::from(b),
            u64::from(c),
            md()
        ) as u32),
        "v_ldexp_f32" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            for l in 0..LANES {
                if w.active(l) {
                    let a = f32::from_bits(f32_mods(&s0, v32(w, &s0, l)));
                    let e = v32(w, &s1, l) as i32;
                    vwrite(w, &d, l, 0, ldexp_f32(a, e).to_bits());
                }
            }
            Ok(Flow::Continue)
        },
        "v_rcp_f32" => valu_f32!(|a| 1.0 / a),
        "v_rsq_f32" => valu_f32!(|a| (1.0 / f64::from(a).sqrt()) as f32),
        "v_sqrt_f32" => valu_f32!(|a| a.sqrt()),
        "v_exp_f32" => valu_f32!(|a| f64::from(a).exp2() as f32),
        "v_log_f32" => valu_f32!(|a| f64::from(a).log2() as f32),
        // The input is in revolutions (sin(2*pi*a)); x - round(x) is exact for every
        // f32, so the reduction to [-0.5, 0.5] keeps the sign and relative
        // precision of small inputs (sin(+-0) = +-0).
        "v_sin_f32" => valu_f32!(|a| if a == 0.0 {
            a
        } else {
            let r = f64::from(a) - f64::from(a).round();
            (r * std::f64::consts::TAU).sin() as f32
        }),
        "v_cos_f32" => valu_f32!(|a| {
            let r = f64::from(a) - f64::from(a).round();
            (r * std::f64::consts::TAU).cos() as f32
        }),
        "v_trunc_f32" => valu_f32!(|a| a.trunc()),
        "v_ceil_f32" => valu_f32!(|a| a.ceil()),
        "v_floor_f32" => valu_f32!(|a| a.floor()),
        "v_rndne_f32" => valu_f32!(|a| a.round_ties_even()),
        "v_fract_f32" => valu_f32!(|a| if a.is_infinite() {
            f32::NAN
        } else {
            (a - a.floor()).min(f32::from_bits(0x3f7f_ffff))
        }),
        "v_cvt_f32_i32" => valu_u32!(|a| (a as i32 as f32).to_bits()),
        "v_cvt_f32_u32" => valu_u32!(|a| (a as f32).to_bits()),
        "v_cvt_i32_f32" => valu_u32!(|a| f32_to_i32(f32::from_bits(a)) as u32),
        "v_cvt_u32_f32" => valu_u32!(|a| f32_to_u32(f32::from_bits(a))),
        "v_cvt_f32_ubyte0" => valu_u32!(|a| ((a & 0xff) as f32).to_bits()),
        "v_cvt_f32_ubyte1" => valu_u32!(|a| ((a >> 8 & 0xff) as f32).to_bits()),
        "v_cvt_f32_ubyte2" => valu_u32!(|a| ((a >> 16 & 0xff) as f32).to_bits()),
        "v_cvt_f32_ubyte3" => valu_u32!(|a| ((a >> 24) as f32).to_bits()),
        "v_add_f64" => valu_f64!(|a, b| a + b),
        "v_mul_f64" => valu_f64!(|a, b| a * b),
        "v_min_f64" => valu_f64!(|a, b| f64::from_bits(alu::float::min::<alu::soft::F64>(
            a.to_bits(),
            b.to_bits(),
            md()
        ))),
        "v_max_f64" => valu_f64!(|a, b| f64::from_bits(alu::float::max::<alu::soft::F64>(
            a.to_bits(),
            b.to_bits(),
            md()
        ))),
        "v_fma_f64" => valu_f64!(|a, b, c| a.mul_add(b, c)),
        _ => return None,
    })
}

/// VOP3P packed 16-bit and gfx90a packed-f32 operations: sources are
/// selected per half by op_sel/op_sel_hi and negated by neg_lo/neg_hi, then
/// the operation runs on both halves (via [`alu::packed`]).
pub(super) fn vop3p(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use alu::packed as pk;
    let name = base_name(i.opcode().name());
    let words = i.words();
    let (w0, w1) = (words[0], words.get(1).copied().unwrap_or(0));
    let sel = |k: usize| w0 >> (11 + k) & 1 == 1;
    let sel_hi = |k: usize| {
        if k < 2 {
            w1 >> (27 + k) & 1 == 1
        } else {
            w0 >> 14 & 1 == 1
        }
    };
    let neg_lo = |k: usize| w1 >> (29 + k) & 1 == 1;
    let neg_hi = |k: usize| w0 >> (8 + k) & 1 == 1;
    let clamp = w0 >> 15 & 1 == 1;
    let Some(d) = c.dst(0).copied() else {
        return Err(unsupported(w, i, c.pc));
    };
    let nsrc = (c.ops.nsrc as usize).min(3);
    let wide = name.ends_with("_f32");
    let is_float = name.ends_with("_f16") || wide;
    if clamp
        && !matches!(
            name,
            "v_pk_add_u16" | "v_pk_sub_u16" | "v_pk_add_i16" | "v_pk_sub_i16"
        )
    {
        return Err(unsupported(w, i, c.pc));
    }
    let m = md();
    if wide {
        // The packed-f32 opcodes have their own handler (`vop3p_f32`).
        return Err(unsupported(w, i, c.pc));
    }
    let f: fn(u32, u32, u32, alu::Mode, bool) -> u32 = match (name, nsrc) {
        ("v_pk_add_f16", 2) => |a, b, _, m, _| pk::pk_add_f16(a, b, m),
        ("v_pk_mul_f16", 2) => |a, b, _, m, _| pk::pk_mul_f16(a, b, m),
        ("v_pk_fma_f16", 3) => |a, b, c, m, _| pk::pk_fma_f16(a, b, c, m),
        ("v_pk_max_f16", 2) => |a, b, _, m, _| pk::pk_max_f16(a, b, m),
        ("v_pk_min_f16", 2) => |a, b, _, m, _| pk::pk_min_f16(a, b, m),
        ("v_pk_add_u16", 2) => |a, b, _, _, cl| pk::pk_add_u16(a, b, cl),
        ("v_pk_sub_u16", 2) => |a, b, _, _, cl| pk::pk_sub_u16(a, b, cl),
        ("v_pk_add_i16", 2) => |a, b, _, _, cl| pk::pk_add_i16(a, b, cl),
        ("v_pk_sub_i16", 2) => |a, b, _, _, cl| pk::pk_sub_i16(a, b, cl),
        ("v_pk_mul_lo_u16", 2) => |a, b, _, _, _| pk::pk_mul_lo_u16(a, b),
        ("v_pk_mad_u16", 3) => |a, b, c, _, _| pk::pk_mad_u16(a, b, c, false),
        ("v_pk_mad_i16", 3) => |a, b, c, _, _| pk::pk_mad_i16(a, b, c, false),
        ("v_pk_lshlrev_b16", 2) => |a, b, _, _, _| pk::pk_lshlrev_b16(a, b),
        ("v_pk_lshrrev_b16", 2) => |a, b, _, _, _| pk::pk_lshrrev_b16(a, b),
        ("v_pk_ashrrev_i16", 2) => |a, b, _, _, _| pk::pk_ashrrev_i16(a, b),
        ("v_pk_max_i16", 2) => |a, b, _, _, _| pk::pk_max_i16(a, b),
        ("v_pk_min_i16", 2) => |a, b, _, _, _| pk::pk_min_i16(a, b),
        ("v_pk_max_u16", 2) => |a, b, _, _, _| pk::pk_max_u16(a, b),
        ("v_pk_min_u16", 2) => |a, b, _, _, _| pk::pk_min_u16(a, b),
        _ => return Err(unsupported(w, i, c.pc)),
    };
    let mut v = [[0u32; LANES]; 3];
    for (k, vk) in v.iter_mut().enumerate().take(nsrc) {
        let Some(op) = c.src(k) else { continue };
        let (s, sh, nl, nh) = (sel(k), sel_hi(k), neg_lo(k), neg_hi(k));
        let raw = match op.value {
            Operand::Reg(_) => lanes32(w, op),
            // An inline constant or literal feeds both halves.
            _ => {
                let x = const32(op).unwrap_or(0) & 0xffff;
                [x | (x << 16); LANES]
            }
        };
        for (x, r) in vk.iter_mut().zip(&raw) {
            let y = pk::pk_operand(*r, s, sh);
            *x = if is_float {
                pk::pk_neg_f16(y, nl, nh)
            } else {
                y
            };
        }
    }
    let mut r = [0u32; LANES];
    lanes::map3_u32(&mut r, &v[0], &v[1], &v[2], |a, b, c| f(a, b, c, m, clamp));
    write_lanes32(w, &d, &r);
    Ok(Flow::Continue)
}

/// gfx90a packed f32: `v_pk_fma_f32` (`K` = 0), `v_pk_mul_f32` (1) and
/// `v_pk_add_f32` (2). The low and the high halves are two independent
/// 64-lane f32 operations, each reading its operand halves in place
/// (selected by op_sel/op_sel_hi, negated by neg_lo/neg_hi), computed in a
/// vectorised loop (hardware FMA when the CPU has it).
pub(super) fn vop3p_f32<const K: u8>(
    x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let words = i.words();
    let (w0, w1) = (words[0], words.get(1).copied().unwrap_or(0));
    let sel = |k: usize| w0 >> (11 + k) & 1 == 1;
    let sel_hi = |k: usize| {
        if k < 2 {
            w1 >> (27 + k) & 1 == 1
        } else {
            w0 >> 14 & 1 == 1
        }
    };
    let neg_lo = |k: usize| w1 >> (29 + k) & 1 == 1;
    let neg_hi = |k: usize| w0 >> (8 + k) & 1 == 1;
    let clamp = w0 >> 15 & 1 == 1;
    let Some(d) = c.dst(0).copied() else {
        return Err(unsupported(w, i, c.pc));
    };
    let nsrc = (c.ops.nsrc as usize).min(3);
    if clamp || nsrc != if K == 0 { 3 } else { 2 } {
        return Err(unsupported(w, i, c.pc));
    }
    let m = md();
    let Bufs { src, out } = &mut *x.bufs;
    let [b0, b1, b2, b3, b4, b5] = src;
    let [o0, o1] = out;
    let mut lo_src = [None; 3];
    let mut hi_src = [None; 3];
    for (k, (bl, bh)) in [(b0, b1), (b2, b3), (b4, b5)]
        .into_iter()
        .enumerate()
        .take(nsrc)
    {
        let Some(op) = c.src(k) else { continue };
        lo_src[k] = Some(pk_half(w, op, c.konst(k), sel(k), neg_lo(k), bl));
        hi_src[k] = Some(pk_half(w, op, c.konst(k), sel_hi(k), neg_hi(k), bh));
    }
    let ctl = m.f32();
    let (fi, fo) = (!ctl.denorm.allow_in, !ctl.denorm.allow_out);
    let rne = ctl.round == alu::Round::NearestEven;
    for (o, src) in [(&mut *o0, lo_src), (&mut *o1, hi_src)] {
        let [Some(a), Some(b), cc] = src else {
            return Err(unsupported(w, i, c.pc));
        };
        // mul and add ignore the third source.
        let cc = cc.unwrap_or(a);
        let host = match K {
            0 => lanes::fma_f32(o, a, b, cc, fi, fo),
            1 => lanes::mul_f32(o, a, b, cc, fi, fo),
            _ => lanes::add_f32(o, a, b, cc, fi, fo),
        };
        // NaN results, and rounding other than nearest-even, take the
        // reference path.
        if host || !rne {
            for (l, r) in o.iter_mut().enumerate() {
                if rne && !f32::from_bits(*r).is_nan() {
                    continue;
                }
                let (x, y, zz) = (a.at(l), b.at(l), cc.at(l));
                *r = match K {
                    0 => alu::float::fma_f32(x, y, zz, m),
                    1 => alu::float::mul_f32(x, y, m),
                    _ => alu::float::add_f32(x, y, m),
                };
            }
        }
    }
    let mut d1 = d;
    if let Operand::Reg(mut rr) = d1.value {
        rr.first = rr.first.wrapping_add(1);
        d1.value = Operand::Reg(rr);
    }
    write_lanes32(w, &d, o0);
    write_lanes32(w, &d1, o1);
    Ok(Flow::Continue)
}

/// One 32-bit half of a packed-f32 source, in place: register `first +
/// half` of a VGPR/AGPR pair, or the half of a scalar pair or constant
/// (a constant feeds both halves), with `neg` as a sign flip.
pub(super) fn pk_half<'a>(
    w: &'a Wave,
    op: &Op,
    row: Option<&'a VReg>,
    half: bool,
    neg: bool,
    buf: &'a mut VReg,
) -> lanes::Src<'a> {
    let v: &'a VReg = match op.value {
        Operand::Reg(RegRange {
            file: f @ (RegFile::Vgpr | RegFile::Agpr),
            first,
            ..
        }) => {
            let regs = if f == RegFile::Vgpr { &w.vgpr } else { &w.agpr };
            match regs.get(first as usize + usize::from(half)) {
                Some(r) => r,
                None => {
                    *buf = [0; LANES];
                    buf
                }
            }
        }
        Operand::Reg(_) => {
            let x = s64(w, op);
            *buf = [if half { (x >> 32) as u32 } else { x as u32 }; LANES];
            buf
        }
        // A constant (splatted at decode: `row`) feeds both halves.
        _ => match row {
            Some(r) => r,
            None => {
                *buf = [const32(op).unwrap_or(0); LANES];
                buf
            }
        },
    };
    lanes::Src::f32(v, false, neg)
}

/// 16-bit float VALU ops on the low halves (the result's high half is
/// zeroed); VOP3 op_sel forms are not modelled and stop as unsupported.
pub(super) fn valu_f16(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use alu::soft::F16;
    let name = base_name(i.opcode().name());
    if i.encoding() == Encoding::Vop3
        && (i.words()[0] >> 11 & 0xf != 0 || vop3_clamp_omod(i) != (false, 0))
    {
        return Err(unsupported(w, i, c.pc));
    }
    let Some(d) = c.dst(0).copied() else {
        return Err(unsupported(w, i, c.pc));
    };
    let srcs: Vec<Op> = c.srcs().copied().collect();
    let acc = if name.starts_with("v_fmac_") || name.starts_with("v_mac_") {
        Some(d)
    } else {
        None
    };
    for l in 0..LANES {
        if !w.active(l) {
            continue;
        }
        let mut v: Vec<u64> = srcs
            .iter()
            .map(|op| {
                let x = u64::from(v32(w, op, l) & 0xffff);
                alu::float::input_mods::<F16>(x, op.abs, op.neg)
            })
            .collect();
        if let Some(a) = acc {
            v.push(u64::from(v32(w, &a, l) & 0xffff));
        }
        let r = match (name, v.as_slice()) {
            ("v_add_f16", [a, b]) => alu::float::add::<F16>(*a, *b, md()),
            ("v_sub_f16", [a, b]) => alu::float::sub::<F16>(*a, *b, md()),
            ("v_subrev_f16", [a, b]) => alu::float::sub::<F16>(*b, *a, md()),
            ("v_mul_f16", [a, b]) => alu::float::mul::<F16>(*a, *b, md()),
            ("v_max_f16", [a, b]) => alu::float::max::<F16>(*a, *b, md()),
            ("v_min_f16", [a, b]) => alu::float::min::<F16>(*a, *b, md()),
            ("v_fma_f16" | "v_fmac_f16", [a, b, cc]) => alu::float::fma::<F16>(*a, *b, *cc, md()),
            _ => return Err(unsupported(w, i, c.pc)),
        };
        vwrite(w, &d, l, 0, r as u32 & 0xffff);
    }
    Ok(Flow::Continue)
}

pub(super) fn bfe_u32(a: u32, off: u32, width: u32) -> u32 {
    if width == 0 {
        return 0;
    }
    let v = u64::from(a) >> off;
    (v & ((1u64 << width.min(32)) - 1)) as u32
}

pub(super) fn bfe_i32(a: u32, off: u32, width: u32) -> u32 {
    if width == 0 {
        return 0;
    }
    let width = width.min(32);
    let v = bfe_u32(a, off, width);
    let shift = 32 - width;
    (((v << shift) as i32) >> shift) as u32
}

pub(super) fn med3<T: Ord + Copy>(a: T, b: T, c: T) -> T {
    a.max(b).min(a.min(b).max(c))
}

pub(super) fn ldexp_f32(a: f32, e: i32) -> f32 {
    (f64::from(a) * 2f64.powi(e.clamp(-400, 400))) as f32
}

pub(super) fn f32_to_i32(x: f32) -> i32 {
    if x.is_nan() {
        0
    } else {
        x as i32
    }
}

pub(super) fn f32_to_u32(x: f32) -> u32 {
    if x.is_nan() {
        0
    } else {
        x as u32
    }
}

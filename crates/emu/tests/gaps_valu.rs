//! VALU operations wired in `interp/valu_ext.rs`: f16 rounding,
//! transcendental and conversion ops, legacy f32 multiplies, normalised and
//! byte packing, dot products, `v_fma_mix*`, `v_pk_fmac_f16`, quad SADs,
//! `v_swap_b32` and `s_set_gpr_idx_idx/mode`, in their VOP1/VOP2/VOP3/VOP3P/SDWA/DPP forms.
//!
//! An assembly kernel (clang-22, gfx90a and gfx942) runs each line over
//! random per-lane inputs (16-bit halves with NaNs, infinities, denormals,
//! signed zeros; bytes and halves that often collide) under a per-wave EXEC
//! pattern, with source modifiers (`abs`, `neg`, `op_sel`, SDWA selects,
//! `clamp`, VOP3P `op_sel_hi`/`neg_lo`/`neg_hi`). Every result is checked
//! against a reference written here from the ISA manual's definitions with
//! host arithmetic and bit-level f16 code, not the emulator's `alu`;
//! inactive lanes must keep their old value.

mod alu_common;
mod common;
use alu_common::Rng;

use lathe_emu::run::Options;

use common::{IN, SENTINEL, WAVES};

// ---- f16 by bits ----------------------------------------------------------

fn hv(h: u32) -> f64 {
    let h = h as u16;
    let s = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let e = i32::from(h >> 10 & 0x1f);
    let m = f64::from(h & 0x3ff);
    s * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

/// f64 to f16 bits, nearest even (NaN: 0x7e00 with the sign).
fn to_h(x: f64) -> u32 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return sign | 0x7e00;
    }
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < 2f64.powi(-14) {
        return sign | (a * 2f64.powi(24)).round_ties_even() as u32;
    }
    let mut e = a.log2().floor() as i32;
    if 2f64.powi(e) > a {
        e -= 1;
    }
    if 2f64.powi(e + 1) <= a {
        e += 1;
    }
    let m = (a / 2f64.powi(e) * 1024.0).round_ties_even() as u32;
    let (e, m) = if m == 2048 { (e + 1, 1024) } else { (e, m) };
    if e > 15 {
        return sign | 0x7c00;
    }
    sign | ((e + 15) as u32) << 10 | (m - 1024)
}

fn h_nan(h: u32) -> bool {
    h & 0x7c00 == 0x7c00 && h & 0x3ff != 0
}

fn snan(h: u32) -> bool {
    h_nan(h) && h & 0x200 == 0
}

fn quiet_h(h: u32) -> u32 {
    (h | 0x200) & 0xffff
}

/// A unary f16 function through f64, NaN in -> quieted NaN out.
fn h1(h: u32, f: impl Fn(f64) -> f64) -> u32 {
    if h_nan(h) {
        return quiet_h(h);
    }
    to_h(f(hv(h)))
}

fn neg_h(h: u32) -> u32 {
    (h ^ 0x8000) & 0xffff
}

fn abs_h(h: u32) -> u32 {
    h & 0x7fff
}

fn lo(x: u32) -> u32 {
    x & 0xffff
}

fn hi(x: u32) -> u32 {
    x >> 16
}

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

fn sat_i32(v: i64) -> u32 {
    v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32
}

fn sat_u32(v: u64) -> u32 {
    v.min(u64::from(u32::MAX)) as u32
}

/// IEEE min/max with the quieting rule of IEEE mode: a NaN operand gives
/// the other operand (-0 < +0); min3/max3/med3 build on it.
fn fmin(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        return if a.is_sign_negative() { a } else { b };
    }
    a.min(b)
}

fn fmax(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        return if a.is_sign_negative() { b } else { a };
    }
    a.max(b)
}

/// Round f64 to f32 then to f64.
fn r32(x: f64) -> f64 {
    f64::from(x as f32)
}

fn to_i(x: f64, lo: f64, hi: f64) -> i64 {
    if x.is_nan() {
        0
    } else {
        x.clamp(lo, hi) as i64
    }
}

fn sin_rev(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let r = x - x.round();
    if r == 0.0 || r.abs() == 0.5 {
        return 0.0 * x.signum();
    }
    (r * std::f64::consts::TAU).sin()
}

fn cos_rev(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let r = x - x.round();
    if r.abs() == 0.25 {
        return 0.0;
    }
    (r * std::f64::consts::TAU).cos()
}

fn sad(a: u32, b: u32, acc: u32, masked: bool) -> u32 {
    (0..4).fold(acc, |t, k| {
        let (x, y) = (a >> (8 * k) & 0xff, b >> (8 * k) & 0xff);
        if masked && y == 0 {
            t
        } else {
            t.wrapping_add(x.abs_diff(y))
        }
    })
}

// ---- the cases --------------------------------------------------------------

/// A line's results (`width` dwords from vR on) per lane: f(lane inputs
/// v10..v17, the sentinel vR held before), and how many f16 ulps of slack
/// the low/high halves get (approximate units).
struct Case {
    /// Only on this target (`None`: both).
    only: Option<&'static str>,
    line: &'static str,
    width: u32,
    ulps: u32,
    f: fn(&[u32]) -> Vec<u32>,
}

const fn c(line: &'static str, f: fn(&[u32]) -> Vec<u32>) -> Case {
    Case {
        only: None,
        line,
        width: 1,
        ulps: 0,
        f,
    }
}

const fn approx(line: &'static str, f: fn(&[u32]) -> Vec<u32>) -> Case {
    Case {
        only: None,
        line,
        width: 1,
        ulps: 1,
        f,
    }
}

/// A case the gfx942 assembler rejects (removed opcode, or VOP3P op_sel
/// the gfx942 dot products do not take).
const fn gfx90a(line: &'static str, f: fn(&[u32]) -> Vec<u32>) -> Case {
    Case {
        only: Some("gfx90a"),
        line,
        width: 1,
        ulps: 0,
        f,
    }
}

const S: u32 = SENTINEL;

fn cases() -> Vec<Case> {
    vec![
        c("v_ceil_f16_e32 vR, v12", |x| vec![h1(lo(x[2]), f64::ceil)]),
        c("v_floor_f16_e64 vR, -|v12|", |x| vec![h1(neg_h(abs_h(lo(x[2]))), f64::floor)]),
        c(
            "v_trunc_f16_sdwa vR, v12 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1",
            |x| vec![lo(S) | h1(hi(x[2]), f64::trunc) << 16],
        ),
        c("v_rndne_f16_e64 vR, v13 clamp", |x| {
            // clamp: NaN and anything not above +0 (-0 too) give +0.
            let r = hv(h1(lo(x[3]), f64::round_ties_even));
            vec![if r.is_nan() || r <= 0.0 { 0 } else { to_h(r.min(1.0)) }]
        }),
        c("v_fract_f16_e32 vR, v12", |x| {
            let h = lo(x[2]);
            vec![if h_nan(h) {
                quiet_h(h)
            } else if hv(h).is_infinite() {
                0xfe00
            } else {
                let v = hv(h);
                to_h((v - v.floor()).min(hv(0x3bff)))
            }]
        }),
        c("v_sqrt_f16_e32 vR, v13", |x| vec![h1(lo(x[3]), |v| if v < 0.0 { f64::NAN } else { v.sqrt() })]),
        c("v_rcp_f16_e64 vR, -v12", |x| vec![h1(neg_h(lo(x[2])), |v| 1.0 / v)]),
        approx("v_rsq_f16_e32 vR, v12", |x| vec![h1(lo(x[2]), |v| if v < 0.0 { f64::NAN } else { 1.0 / v.sqrt() })]),
        approx("v_log_f16_e32 vR, v13", |x| vec![h1(lo(x[3]), |v| if v < 0.0 { f64::NAN } else { v.log2() })]),
        approx("v_exp_f16_dpp vR, v13 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", |_| vec![]),
        approx("v_exp_f16_e32 vR, v13", |x| vec![h1(lo(x[3]), f64::exp2)]),
        approx("v_sin_f16_e32 vR, v14", |x| vec![h1(lo(x[4]), sin_rev)]),
        approx("v_cos_f16_e64 vR, |v14|", |x| vec![h1(abs_h(lo(x[4])), cos_rev)]),
        c("v_frexp_mant_f16_e32 vR, v12", |x| {
            let h = lo(x[2]);
            let v = hv(h);
            vec![if h_nan(h) || v.is_infinite() || v == 0.0 {
                if h_nan(h) { quiet_h(h) } else { h }
            } else {
                let e = v.abs().log2().floor() as i32 + 1;
                let mut m = v / 2f64.powi(e);
                if m.abs() >= 1.0 {
                    m /= 2.0;
                }
                if m.abs() < 0.5 {
                    m *= 2.0;
                }
                to_h(m)
            }]
        }),
        c("v_frexp_exp_i16_f16_e32 vR, v12", |x| {
            let v = hv(lo(x[2]));
            vec![if !v.is_finite() || v == 0.0 {
                0
            } else {
                let mut e = v.abs().log2().floor() as i32 + 1;
                if v.abs() / 2f64.powi(e) >= 1.0 {
                    e += 1;
                }
                if v.abs() / 2f64.powi(e) < 0.5 {
                    e -= 1;
                }
                e as i16 as u16 as u32
            }]
        }),
        c("v_cvt_f16_i16_e32 vR, v10", |x| vec![to_h(f64::from(x[0] as i16))]),
        c(
            "v_cvt_f16_u16_sdwa vR, v10 dst_sel:WORD_0 dst_unused:UNUSED_PAD src0_sel:WORD_1",
            |x| vec![to_h(f64::from(hi(x[0])))],
        ),
        c("v_cvt_i16_f16_e32 vR, v12", |x| vec![to_i(hv(lo(x[2])).trunc(), -32768.0, 32767.0) as u16 as u32]),
        c("v_cvt_u16_f16_e64 vR, -v12", |x| vec![to_i(-hv(lo(x[2])).trunc(), 0.0, 65535.0) as u32]),
        c("v_cvt_norm_i16_f16_e32 vR, v13", |x| {
            let v = hv(lo(x[3]));
            vec![if v.is_nan() { 0 } else { (v.clamp(-1.0, 1.0) * 32767.0).round_ties_even() as i16 as u16 as u32 }]
        }),
        c("v_cvt_norm_u16_f16_e32 vR, v13", |x| {
            let v = hv(lo(x[3]));
            vec![if v.is_nan() { 0 } else { (v.clamp(0.0, 1.0) * 65535.0).round_ties_even() as u32 }]
        }),
        c("v_ldexp_f16_e32 vR, v12, v11", |x| {
            let e = i32::from((x[1] as i16).clamp(-100, 100));
            vec![h1(lo(x[2]), |v| v * 2f64.powi(e))]
        }),
        c("v_mad_f16 vR, v12, v13, v14", |x| vec![mad_h(lo(x[2]), lo(x[3]), lo(x[4]))]),
        c("v_mad_f16 vR, -v12, v13, |v14| op_sel:[1,0,1,1]", |x| {
            vec![lo(S) | mad_h(neg_h(hi(x[2])), lo(x[3]), abs_h(hi(x[4]))) << 16]
        }),
        c("v_fma_legacy_f16 vR, v12, v13, v14", |x| vec![fma_h(lo(x[2]), lo(x[3]), lo(x[4]))]),
        c("v_max3_f16 vR, v12, v13, v14", |x| {
            if [x[2], x[3], x[4]].iter().any(|&v| snan(lo(v))) {
                return vec![]; // IEEE-mode signaling NaNs: order-dependent
            }
            vec![to_h(fmax(fmax(hv(lo(x[2])), hv(lo(x[3]))), hv(lo(x[4]))))]
        }),
        c("v_min3_f16 vR, v12, -v13, v14", |x| {
            if [x[2], x[3], x[4]].iter().any(|&v| snan(lo(v))) {
                return vec![];
            }
            let (a, b, c2) = (hv(lo(x[2])), -hv(lo(x[3])), hv(lo(x[4])));
            vec![to_h(fmin(fmin(a, b), c2))]
        }),
        c("v_mac_f16_e32 vR, v12, v13", |x| vec![mad_h(lo(x[2]), lo(x[3]), lo(S))]),
        c("v_madak_f16 vR, v12, v13, 0x4200", |x| vec![mad_h(lo(x[2]), lo(x[3]), 0x4200)]),
        c("v_madmk_f16 vR, v12, 0x3c00, v13", |x| vec![mad_h(lo(x[2]), 0x3c00, lo(x[3]))]),
        c("v_mul_legacy_f32 vR, v12, v13", |x| vec![mul_legacy(x[2], x[3])]),
        gfx90a("v_mad_legacy_f32 vR, v12, -v13, v15", |x| {
            let p = f64::from(f(ftz(mul_legacy(ftz(x[2]), ftz(x[3] ^ 0x8000_0000)))));
            vec![ftz(((p + f64::from(f(ftz(x[5])))) as f32).to_bits())]
        }),
        c("v_cvt_flr_i32_f32_e32 vR, v12", |x| vec![to_i(f64::from(f(x[2])).floor(), -2147483648.0, 2147483647.0) as u32]),
        c("v_cvt_rpi_i32_f32_e64 vR, -v12", |x| {
            vec![to_i((-f64::from(f(x[2])) + 0.5).floor(), -2147483648.0, 2147483647.0) as u32]
        }),
        c("v_cvt_off_f32_i4_e32 vR, v10", |x| vec![((((x[0] << 28) as i32) >> 28) as f32 / 16.0).to_bits()]),
        c("v_cvt_pk_u8_f32 vR, v12, v10, v11", |x| {
            let v = f(x[2]);
            let b = if v.is_nan() { 0 } else { v.clamp(0.0, 255.0).round_ties_even() as u32 };
            let sh = 8 * (x[0] & 3);
            vec![x[1] & !(0xff << sh) | b << sh]
        }),
        c("v_cvt_pknorm_i16_f32 vR, v12, v13", |x| {
            let n = |v: f32| if v.is_nan() { 0 } else { (f64::from(v).clamp(-1.0, 1.0) * 32767.0).round_ties_even() as i16 as u16 as u32 };
            vec![n(f(x[2])) | n(f(x[3])) << 16]
        }),
        c("v_cvt_pknorm_u16_f32 vR, v12, v13", |x| {
            let n = |v: f32| if v.is_nan() { 0 } else { (f64::from(v).clamp(0.0, 1.0) * 65535.0).round_ties_even() as u32 };
            vec![n(f(x[2])) | n(f(x[3])) << 16]
        }),
        c("v_cvt_pknorm_i16_f16 vR, v12, -v13", |x| {
            let n = |v: f64| if v.is_nan() { 0 } else { (v.clamp(-1.0, 1.0) * 32767.0).round_ties_even() as i16 as u16 as u32 };
            vec![n(hv(lo(x[2]))) | n(-hv(lo(x[3]))) << 16]
        }),
        c("v_cvt_pknorm_u16_f16 vR, v12, v13", |x| {
            let n = |v: f64| if v.is_nan() { 0 } else { (v.clamp(0.0, 1.0) * 65535.0).round_ties_even() as u32 };
            vec![n(hv(lo(x[2]))) | n(hv(lo(x[3]))) << 16]
        }),
        c("v_sat_pk_u8_i16_e32 vR, v10", |x| {
            let s = |v: u32| (v as u16 as i16).clamp(0, 255) as u32;
            vec![s(lo(x[0])) | s(hi(x[0])) << 8]
        }),
        c(
            "v_sat_pk_u8_i16_sdwa vR, v10 dst_sel:BYTE_1 dst_unused:UNUSED_PRESERVE src0_sel:DWORD",
            |x| {
                let s = |v: u32| (v as u16 as i16).clamp(0, 255) as u32;
                vec![S & !0xff00 | (s(lo(x[0])) << 8)]
            },
        ),
        c("v_dot2_f32_f16 vR, v12, v13, v15", |x| vec![dot2_f(x[2], x[3], x[5])]),
        gfx90a("v_dot2_f32_f16 vR, v12, v13, v15 op_sel:[1,0,0] op_sel_hi:[0,1,1] neg_lo:[1,0,1] neg_hi:[0,1,0]", |x| {
            // a = {lo: v12.hi negated, hi: v12.lo}; b's high half negated.
            let a = (hi(x[2]) ^ 0x8000) | lo(x[2]) << 16;
            let b = x[3] ^ 0x8000_0000;
            vec![dot2_f(a, b, x[5] ^ 0x8000_0000)]
        }),
        c("v_dot2_i32_i16 vR, v10, v11, v16", |x| {
            let s = |v: u32| i64::from(v as u16 as i16);
            vec![(i64::from(x[6] as i32) + s(lo(x[0])) * s(lo(x[1])) + s(hi(x[0])) * s(hi(x[1]))) as u32]
        }),
        gfx90a("v_dot2_u32_u16 vR, v10, v11, v16 op_sel:[0,1,0] op_sel_hi:[1,0,1] clamp", |x| {
            // b = {lo, hi} swapped.
            let b = hi(x[1]) | lo(x[1]) << 16;
            let (b0, b1) = (u64::from(lo(b)), u64::from(hi(b)));
            vec![sat_u32(u64::from(x[6]) + u64::from(lo(x[0])) * b0 + u64::from(hi(x[0])) * b1)]
        }),
        c("v_dot4_i32_i8 vR, v10, v11, v16 clamp", |x| {
            let s = |v: u32, k: u32| i64::from((v >> (8 * k)) as u8 as i8);
            vec![sat_i32(i64::from(x[6] as i32) + (0..4).map(|k| s(x[0], k) * s(x[1], k)).sum::<i64>())]
        }),
        c("v_dot4_u32_u8 vR, v10, v11, v16", |x| {
            let s = |v: u32, k: u32| (v >> (8 * k)) & 0xff;
            vec![(0..4).fold(x[6], |t, k| t.wrapping_add(s(x[0], k) * s(x[1], k)))]
        }),
        c("v_dot8_i32_i4 vR, v10, v11, v16", |x| {
            let s = |v: u32, k: u32| i64::from(((v >> (4 * k)) << 28) as i32 >> 28);
            vec![(i64::from(x[6] as i32) + (0..8).map(|k| s(x[0], k) * s(x[1], k)).sum::<i64>()) as u32]
        }),
        c("v_dot8_u32_u4 vR, v10, v11, v16 clamp", |x| {
            let s = |v: u32, k: u32| u64::from((v >> (4 * k)) & 0xf);
            vec![sat_u32(u64::from(x[6]) + (0..8).map(|k| s(x[0], k) * s(x[1], k)).sum::<u64>())]
        }),
        c("v_dot2c_i32_i16_e32 vR, v10, v11", |x| {
            let s = |v: u32| i64::from(v as u16 as i16);
            vec![(i64::from(S as i32) + s(lo(x[0])) * s(lo(x[1])) + s(hi(x[0])) * s(hi(x[1]))) as u32]
        }),
        c("v_dot4c_i32_i8_e32 vR, v10, v11", |x| {
            let s = |v: u32, k: u32| i64::from((v >> (8 * k)) as u8 as i8);
            vec![(i64::from(S as i32) + (0..4).map(|k| s(x[0], k) * s(x[1], k)).sum::<i64>()) as u32]
        }),
        c("v_dot8c_i32_i4_e32 vR, v10, v11", |x| {
            let s = |v: u32, k: u32| i64::from(((v >> (4 * k)) << 28) as i32 >> 28);
            vec![(i64::from(S as i32) + (0..8).map(|k| s(x[0], k) * s(x[1], k)).sum::<i64>()) as u32]
        }),
        c("v_dot2c_f32_f16_e32 vR, v12, v13", |x| vec![dot2_f(x[2], x[3], S)]),
        approx("v_fma_mix_f32 vR, v12, -v13, |v15| op_sel_hi:[1,1,0]", |x| {
            let r = hv(lo(x[2])) * -hv(lo(x[3])) + f64::from(f(x[5])).abs();
            vec![canon32(r32(r), &[hv(lo(x[2])), hv(lo(x[3])), f64::from(f(x[5]))])]
        }),
        approx("v_fma_mixlo_f16 vR, v12, v13, v14 op_sel:[1,0,0] op_sel_hi:[1,1,1]", |x| {
            let r = hv(hi(x[2])) * hv(lo(x[3])) + hv(lo(x[4]));
            vec![hi(S) << 16 | canon16(r, &[hv(hi(x[2])), hv(lo(x[3])), hv(lo(x[4]))])]
        }),
        approx("v_fma_mixhi_f16 vR, v12, v13, v15 op_sel_hi:[1,1,0] clamp", |x| {
            let r = hv(lo(x[2])) * hv(lo(x[3])) + f64::from(f(x[5]));
            let h = canon16(r, &[hv(lo(x[2])), hv(lo(x[3])), f64::from(f(x[5]))]);
            let h = if h_nan(h) || hv(h) <= 0.0 { 0 } else { to_h(hv(h).min(1.0)) };
            vec![lo(S) | h << 16]
        }),
        c("v_pk_fmac_f16_e32 vR, v12, v13", |x| {
            vec![fma_h(lo(x[2]), lo(x[3]), lo(S)) | fma_h(hi(x[2]), hi(x[3]), hi(S)) << 16]
        }),
        Case {
            only: None,
            line: "v_qsad_pk_u16_u8 vR2, v[10:11], v12, v[14:15]",
            width: 2,
            ulps: 0,
            f: |x| qsad(x, false),
        },
        Case {
            only: None,
            line: "v_mqsad_pk_u16_u8 vR2, v[10:11], v12, v[14:15]",
            width: 2,
            ulps: 0,
            f: |x| qsad(x, true),
        },
        Case {
            only: None,
            line: "v_mqsad_u32_u8 vR4, v[10:11], v12, v[14:17]",
            width: 4,
            ulps: 0,
            f: |x| {
                let a = u64::from(x[0]) | u64::from(x[1]) << 32;
                (0..4).map(|k| sad((a >> (8 * k)) as u32, x[2], x[4 + k], true)).collect()
            },
        },
        c(
            "s_mov_b32 s30, 3\n s_set_gpr_idx_on s30, gpr_idx(SRC0)\n s_mov_b32 s31, 2\n s_set_gpr_idx_idx s31\n v_mov_b32_e32 vR, v10\n s_set_gpr_idx_off",
            |x| vec![x[2]],
        ),
        c(
            "s_mov_b32 s30, 0\n s_set_gpr_idx_on s30, gpr_idx(SRC0)\n s_set_gpr_idx_mode gpr_idx(DST)\n s_mov_b32 s31, 1\n s_set_gpr_idx_idx s31\n v_mov_b32_e32 vP, v11\n s_set_gpr_idx_off",
            |x| vec![x[1]],
        ),
        Case {
            only: None,
            line: "v_mov_b32_e32 vR, v10\n v_mov_b32_e32 vQ, v11\n v_swap_b32 vR, vQ",
            width: 2,
            ulps: 0,
            f: |x| vec![x[1], x[0]],
        },
    ]
}

fn qsad(x: &[u32], masked: bool) -> Vec<u32> {
    let a = u64::from(x[0]) | u64::from(x[1]) << 32;
    let acc = u64::from(x[4]) | u64::from(x[5]) << 32;
    let r = (0..4).fold(0u64, |r, k| {
        let t = sad(
            (a >> (8 * k)) as u32,
            x[2],
            (acc >> (16 * k)) as u32 & 0xffff,
            masked,
        ) & 0xffff;
        r | u64::from(t) << (16 * k)
    });
    vec![r as u32, (r >> 32) as u32]
}

/// f16 mad: not fused (the product rounded to f16, then the sum), and, as
/// for `v_mad_f32`, without denormals: inputs, product and result flush to
/// signed zero whatever MODE says (LLVM selects it only when f16 denormals
/// are off). NaN inputs give a NaN.
fn mad_h(a: u32, b: u32, c: u32) -> u32 {
    let ftz = |h: u32| if h & 0x7c00 == 0 { h & 0x8000 } else { h };
    let (a, b, c) = (ftz(a), ftz(b), ftz(c));
    if let Some(n) = [a, b, c].into_iter().find(|&h| h_nan(h)) {
        return quiet_h(n);
    }
    let p = ftz(to_h(hv(a) * hv(b)));
    if h_nan(p) {
        return 0x7e00; // 0 * inf
    }
    ftz(to_h(hv(p) + hv(c)))
}

/// f16 fma: exact product and sum (f64 holds the product of two f16 and
/// the sum within 53 bits except for far-apart exponents, rounded once).
fn fma_h(a: u32, b: u32, c: u32) -> u32 {
    if let Some(n) = [a, b, c].into_iter().find(|&h| h_nan(h)) {
        return quiet_h(n);
    }
    to_h(hv(a) * hv(b) + hv(c))
}

fn dot2_f(a: u32, b: u32, c: u32) -> u32 {
    // c + a.lo*b.lo + a.hi*b.hi in f32 steps (the products are exact).
    let t = r32(f64::from(f(c)) + hv(lo(a)) * hv(lo(b)));
    let r = r32(t + hv(hi(a)) * hv(hi(b)));
    (r as f32).to_bits()
}

fn mul_legacy(a: u32, b: u32) -> u32 {
    if f(a) == 0.0 || f(b) == 0.0 {
        return 0;
    }
    (f(a) * f(b)).to_bits()
}

/// f32 denormals flushed to signed zero.
fn ftz(x: u32) -> u32 {
    if f(x).is_subnormal() {
        x & 0x8000_0000
    } else {
        x
    }
}

fn canon32(r: f64, ins: &[f64]) -> u32 {
    if ins.iter().any(|v| v.is_nan()) || r.is_nan() {
        0x7fc0_0000
    } else {
        (r as f32).to_bits()
    }
}

fn canon16(r: f64, ins: &[f64]) -> u32 {
    if ins.iter().any(|v| v.is_nan()) || r.is_nan() {
        0x7e00
    } else {
        to_h(r)
    }
}

// ---- kernel -----------------------------------------------------------------

fn asm(target: &str, cases: &[&Case]) -> (String, u32) {
    let mut ops = String::new();
    let mut r = 40u32;
    for case in cases {
        // VGPR tuples are even-aligned on gfx90a/gfx942.
        r += r % 2 * u32::from(case.width > 1);
        let l = case
            .line
            .replace("vR4", &format!("v[{r}:{}]", r + 3))
            .replace("vR2", &format!("v[{r}:{}]", r + 1))
            .replace("vR", &format!("v{r}"))
            .replace("vQ", &format!("v{}", r + 1))
            .replace("vP", &format!("v{}", r - 1));
        ops += &format!("  {l}\n");
        r += case.width;
    }
    let results = r - 40;
    let stores = common::stores(results);
    let body = common::under_wave_exec(&ops, results);
    let text = common::kernel(
        target,
        "gaps",
        &body,
        &stores,
        results,
        "  .amdhsa_float_denorm_mode_32 3\n  .amdhsa_float_denorm_mode_16_64 3",
    );
    (text, results)
}

fn inputs() -> Vec<u32> {
    let mut rng = Rng::new(0x9a95);
    let lanes = (WAVES * 64) as usize;
    let mut v = vec![0u32; lanes * IN];
    let halves = [
        0u32, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7d00, 0xfd01, 0x0001, 0x83ff, 0x3c00, 0xbc00,
        0x3800, 0x4400, 0x3e00, 0xc100, 0x7bff, 0x0400, 0x3555,
    ];
    for l in 0..lanes {
        let x = &mut v[l * IN..(l + 1) * IN];
        x[0] = rng.u32();
        let flip = rng.pick(&[0, 0xffff_0000, 0xff00_ff00, 0x0000_ffff, u32::MAX, 0xff]);
        x[1] = x[0] ^ (rng.u32() & flip);
        for v in x.iter_mut().take(6).skip(2) {
            *v = match rng.below(4) {
                0 => rng.pick(&halves) | rng.pick(&halves) << 16,
                1 => rng.f32(),
                2 => {
                    // f16 values of moderate size.
                    let h = |r: &mut Rng| (r.u32() & 0x83ff) | (9 + r.below(14) as u32) << 10;
                    h(&mut rng) | h(&mut rng) << 16
                }
                _ => rng.u32(),
            };
        }
        x[6] = rng.u32();
        x[7] = rng.u32();
    }
    common::exec_patterns(&mut v, || rng.u32());
    v
}

fn run(co: &[u8], target: &str, results: u32, input: &[u32]) -> Vec<u32> {
    common::launch(co, target, "gaps", results, input, &Options::default()).0
}

/// Whether `got` matches `want` (a 16-bit half or a dword): equal bits, two
/// NaNs of the same width, or within `ulps` f16 ulps for approximations.
fn close(got: u32, want: u32, ulps: u32, f16: bool) -> bool {
    if got == want {
        return true;
    }
    if f16 {
        if h_nan(got) && h_nan(want) {
            return true;
        }
        let key = |h: u32| {
            if h & 0x8000 != 0 {
                -((h & 0x7fff) as i32)
            } else {
                h as i32
            }
        };
        return ulps > 0 && key(got).abs_diff(key(want)) <= ulps;
    }
    let (g, w) = (f(got), f(want));
    g.is_nan() && w.is_nan()
}

#[test]
fn wired_valu_operations_match_the_reference() {
    let input = inputs();
    let cases = cases();
    for target in ["gfx90a", "gfx942"] {
        let all: Vec<&Case> = cases
            .iter()
            .filter(|c| c.only.is_none_or(|t| t == target))
            .collect();
        let (text, results) = asm(target, &all);
        let path = lathe_testkit::assemble_shared(target, "gaps_valu", &text);
        let co = std::fs::read(&path).expect("code object");
        let out = run(&co, target, results, &input);
        let mut failures = Vec::new();
        for g in 0..WAVES as usize {
            let uni = &input[g * IN..(g + 1) * IN];
            let exec = u64::from(uni[6]) | u64::from(uni[7]) << 32;
            let mut r = 0usize;
            for case in all.iter().copied() {
                r += r % 2 * usize::from(case.width > 1);
                for l in 0..64 {
                    let lane = g * 64 + l;
                    let x = &input[lane * IN..(lane + 1) * IN];
                    let got = |k: usize| out[lane * results as usize + r + k];
                    let active = exec >> l & 1 == 1;
                    let want = if active {
                        (case.f)(x)
                    } else {
                        vec![SENTINEL; case.width as usize]
                    };
                    if active && want.is_empty() {
                        continue; // form checked for running only (DPP)
                    }
                    let is_f16 = case.line.contains("f16")
                        && !case.line.contains("pknorm")
                        && !case.line.contains("i16_f16")
                        && !case.line.contains("u16_f16")
                        && !case.line.contains("dot2")
                        && !case.line.contains("mix_f32");
                    for (k, &want) in want.iter().enumerate() {
                        let g_ = got(k);
                        let ok = if is_f16 && active {
                            close(lo(g_), lo(want), case.ulps, true)
                                && close(hi(g_), hi(want), case.ulps, true)
                        } else {
                            close(g_, want, case.ulps, false)
                                || (case.ulps > 0
                                    && f(g_).is_finite()
                                    && (f(g_) - f(want)).abs() <= f(want).abs() * 2e-7)
                        };
                        if !ok {
                            failures.push(format!(
                                "{target} wave {g} lane {l} `{}` result {k}: got {g_:#010x}, want {want:#010x} (inputs {:08x?})",
                                case.line.lines().last().unwrap_or(""),
                                x
                            ));
                        }
                    }
                }
                r += case.width as usize;
            }
        }
        let ops: std::collections::BTreeSet<&str> = failures
            .iter()
            .filter_map(|f| f.split('`').nth(1))
            .collect();
        assert!(
            failures.is_empty(),
            "{} mismatches in {ops:#?}, first:\n{}",
            failures.len(),
            failures[..failures.len().min(16)].join("\n")
        );
    }
}

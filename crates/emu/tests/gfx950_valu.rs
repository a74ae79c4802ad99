//! gfx950 (CDNA4) vector ALU additions (`interp/gfx950.rs`,
//! `alu/gfx950.rs`): `v_minimum3_f32`, `v_maximum3_f32`,
//! `v_pk_{minimum,maximum}3_f16`, `v_bitop3_b32/_b16`,
//! `v_ashr_pk_{i8,u8}_i32`, `v_cvt_pk_{f16,bf16}_f32`, `v_cvt_f32_bf16`,
//! `v_dot2_f32_bf16`, `v_dot2c_f32_bf16`, `v_permlane{16,32}_swap_b32`.
//!
//! An assembly kernel (llvm-mc, LLVM 22, gfx950) runs each line over random
//! per-lane inputs (f32 and f16 specials, denormals, signed zeros) under a
//! per-wave EXEC pattern; the permlane swaps run under a full EXEC (the
//! only EXEC they are modelled for). References are written here with host
//! arithmetic from the definitions (IEEE 754-2019 minimum/maximum, the
//! ternary-logic truth table, saturating shifts, round-to-nearest-even
//! narrowing, LLVM's description of the lane swaps), not with the
//! emulator's `alu`. A NaN result matches any NaN of its width (payloads are
//! not pinned, D51). Inactive lanes keep their old value.

mod alu_common;
mod common;
use alu_common::Rng;

use common::{IN, SENTINEL, WAVES};
use lathe_emu::run::Options;

const T: &str = "gfx950";

// ---- references ------------------------------------------------------------

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

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

/// f64 to f16 bits, nearest even (NaN: 0x7e00).
fn to_h(x: f64) -> u32 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return 0x7e00;
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

/// IEEE 754-2019 minimum (`max`: maximum) of values given as f64 with
/// their bit patterns: NaN if either is NaN, -0 below +0.
fn pick(a: (f64, u32), b: (f64, u32), max: bool, nan: u32) -> (f64, u32) {
    if a.0.is_nan() || b.0.is_nan() {
        return (f64::NAN, nan);
    }
    let a_first = if a.0 == b.0 {
        // Equal values differ only in the sign of zero.
        a.0.is_sign_negative() != max
    } else {
        (a.0 < b.0) != max
    };
    if a_first {
        a
    } else {
        b
    }
}

fn minmax3_f32(a: u32, b: u32, c: u32, max: bool) -> u32 {
    let v = |x: u32| (f64::from(f(x)), x);
    pick(pick(v(a), v(b), max, 0x7fc0_0000), v(c), max, 0x7fc0_0000).1
}

fn minmax3_f16(a: u32, b: u32, c: u32, max: bool) -> u32 {
    let v = |x: u32| (hv(x & 0xffff), x & 0xffff);
    pick(pick(v(a), v(b), max, 0x7e00), v(c), max, 0x7e00).1
}

fn lo(x: u32) -> u32 {
    x & 0xffff
}

fn hi(x: u32) -> u32 {
    x >> 16
}

fn sat_shift(x: u32, s: u32, lo: i32, hi: i32) -> u32 {
    ((x as i32) >> (s & 31)).clamp(lo, hi) as u32 & 0xff
}

/// f32 bits to bf16 bits, nearest even (NaN: a quiet NaN).
fn to_bf16(x: u32) -> u32 {
    if f(x).is_nan() {
        return 0x7fc0;
    }
    let keep = x >> 16;
    let rest = x & 0xffff;
    if rest > 0x8000 || (rest == 0x8000 && keep & 1 == 1) {
        keep + 1
    } else {
        keep
    }
}

fn bf(x: u32) -> f32 {
    f32::from_bits(x << 16)
}

/// `a.lo·b.lo + a.hi·b.hi + c`, each bf16 product exact in f32, the two
/// additions rounded to f32 in that order.
fn dot2_bf16(a: u32, b: u32, c: u32) -> u32 {
    let p0 = bf(lo(a)) * bf(lo(b));
    let p1 = bf(hi(a)) * bf(hi(b));
    ((p0 + p1) + f(c)).to_bits()
}

// ---- cases ------------------------------------------------------------------

/// A line and its result per lane from the lane's inputs v10..v17 (`x`)
/// and the result register's old value.
struct Case {
    line: &'static str,
    f: fn(&[u32], u32) -> u32,
    /// Compare as two f16 (`H`) or bf16 (`B`) halves, a NaN half matching
    /// any NaN half; `W`: a dword (a NaN matching any f32 NaN).
    halves: Halves,
}

#[derive(Clone, Copy, PartialEq)]
enum Halves {
    W,
    H,
    B,
}

const fn c(line: &'static str, f: fn(&[u32], u32) -> u32) -> Case {
    Case {
        line,
        f,
        halves: Halves::W,
    }
}

const fn h(line: &'static str, f: fn(&[u32], u32) -> u32) -> Case {
    Case {
        line,
        f,
        halves: Halves::H,
    }
}

const fn b(line: &'static str, f: fn(&[u32], u32) -> u32) -> Case {
    Case {
        line,
        f,
        halves: Halves::B,
    }
}

fn cases() -> Vec<Case> {
    vec![
        c("v_minimum3_f32 vR, v12, v13, v14", |x, _| {
            minmax3_f32(x[2], x[3], x[4], false)
        }),
        c("v_maximum3_f32 vR, v12, v13, v14", |x, _| {
            minmax3_f32(x[2], x[3], x[4], true)
        }),
        c("v_minimum3_f32 vR, -v12, |v13|, v12", |x, _| {
            minmax3_f32(x[2] ^ 0x8000_0000, x[3] & 0x7fff_ffff, x[2], false)
        }),
        c("v_maximum3_f32 vR, v14, -|v15|, v13", |x, _| {
            minmax3_f32(x[4], x[5] | 0x8000_0000, x[3], true)
        }),
        h("v_pk_minimum3_f16 vR, v12, v13, v14", |x, _| {
            minmax3_f16(x[2], x[3], x[4], false)
                | minmax3_f16(hi(x[2]), hi(x[3]), hi(x[4]), false) << 16
        }),
        h("v_pk_maximum3_f16 vR, v12, v13, v14", |x, _| {
            minmax3_f16(x[2], x[3], x[4], true)
                | minmax3_f16(hi(x[2]), hi(x[3]), hi(x[4]), true) << 16
        }),
        // op_sel picks source 0's high half for the low result,
        // op_sel_hi[0] = 0 its low half for the high result.
        h(
            "v_pk_maximum3_f16 vR, v12, v13, v14 op_sel:[1,0,0] op_sel_hi:[0,1,1]",
            |x, _| {
                minmax3_f16(hi(x[2]), x[3], x[4], true)
                    | minmax3_f16(x[2], hi(x[3]), hi(x[4]), true) << 16
            },
        ),
        c("v_bitop3_b32 vR, v10, v11, v12 bitop3:0x96", |x, _| {
            x[0] ^ x[1] ^ x[2]
        }),
        c("v_bitop3_b32 vR, v10, v11, v12 bitop3:0xe8", |x, _| {
            (x[0] & x[1]) | (x[0] & x[2]) | (x[1] & x[2])
        }),
        c("v_bitop3_b32 vR, v10, v11, v12 bitop3:0xca", |x, _| {
            (x[0] & x[1]) | (!x[0] & x[2])
        }),
        c("v_bitop3_b32 vR, v10, v11, v12 bitop3:0x1", |x, _| {
            !(x[0] | x[1] | x[2])
        }),
        c("v_bitop3_b32 vR, v10, v11, v12 bitop3:0x80", |x, _| {
            x[0] & x[1] & x[2]
        }),
        c("v_bitop3_b32 vR, v10, v11, v12 bitop3:0x3c", |x, _| {
            x[0] ^ x[1]
        }),
        c("v_bitop3_b16 vR, v10, v11, v12 bitop3:0xca", |x, _| {
            (x[0] & x[1] | !x[0] & x[2]) & 0xffff
        }),
        // op_sel: high halves of sources 0 and 2; the result into the
        // high half, the low half kept.
        c(
            "v_bitop3_b16 vR, v10, v11, v12 bitop3:0x96 op_sel:[1,0,1,1]",
            |x, old| (hi(x[0]) ^ lo(x[1]) ^ hi(x[2])) << 16 | lo(old),
        ),
        c("v_ashr_pk_i8_i32 vR, v10, v11, v12", |x, _| {
            sat_shift(x[0], x[2], -128, 127) | sat_shift(x[1], x[2], -128, 127) << 8
        }),
        c("v_ashr_pk_u8_i32 vR, v10, v11, v12", |x, _| {
            sat_shift(x[0], x[2], 0, 255) | sat_shift(x[1], x[2], 0, 255) << 8
        }),
        h("v_cvt_pk_f16_f32 vR, v12, v13", |x, _| {
            to_h(f64::from(f(x[2]))) | to_h(f64::from(f(x[3]))) << 16
        }),
        h("v_cvt_pk_f16_f32 vR, -v14, |v15|", |x, _| {
            to_h(-f64::from(f(x[4]))) | to_h(f64::from(f(x[5])).abs()) << 16
        }),
        b("v_cvt_pk_bf16_f32 vR, v12, v13", |x, _| {
            to_bf16(x[2]) | to_bf16(x[3]) << 16
        }),
        c("v_cvt_f32_bf16_e32 vR, v12", |x, _| lo(x[2]) << 16),
        c("v_cvt_f32_bf16_e64 vR, -v13", |x, _| {
            (lo(x[3]) << 16) ^ 0x8000_0000
        }),
        c(
            "v_cvt_f32_bf16_sdwa vR, v14 dst_sel:DWORD dst_unused:UNUSED_PRESERVE src0_sel:WORD_1",
            |x, _| hi(x[4]) << 16,
        ),
        c("v_dot2_f32_bf16 vR, v12, v13, v14", |x, _| {
            dot2_bf16(x[2], x[3], x[4])
        }),
        c("v_dot2c_f32_bf16_e32 vR, v13, v14", |x, old| {
            dot2_bf16(x[3], x[4], old)
        }),
    ]
}

// ---- harness ----------------------------------------------------------------

fn inputs() -> Vec<u32> {
    let mut rng = Rng::new(0x950);
    let lanes = (WAVES * 64) as usize;
    let mut v = vec![0u32; lanes * IN];
    let halves = [
        0u32, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7d00, 0xfd01, 0x0001, 0x83ff, 0x3c00, 0xbc00,
        0x3800, 0x4400, 0x3e00, 0xc100, 0x7bff, 0x0400, 0x3555,
    ];
    let words = [
        0u32,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7fa0_0001,
        0x0000_0001,
        0x807f_ffff,
        0x3f80_0000,
        0xbf80_0000,
        0x4780_0000,
        0x477f_f000,
        0x3380_0000,
        0x3f80_8000,
        0x3f81_8000,
    ];
    for l in 0..lanes {
        let x = &mut v[l * IN..(l + 1) * IN];
        x[0] = rng.u32();
        x[1] = rng.u32();
        for v in x.iter_mut().take(6).skip(2) {
            *v = match rng.below(5) {
                0 => rng.pick(&halves) | rng.pick(&halves) << 16,
                1 => rng.f32(),
                2 => rng.pick(&words),
                3 => {
                    // Equal magnitudes in different operands (zeros, ties).
                    rng.pick(&[0u32, 0x8000_0000, 0x8000_8000, 0x0000_8000])
                }
                _ => rng.u32(),
            };
        }
        // Shift counts of every size, with junk above bit 4.
        if rng.bool() {
            x[2] = rng.below(40) as u32 | rng.u32() << 6;
        }
    }
    common::exec_patterns(&mut v, || rng.u32());
    v
}

fn nan32(x: u32) -> bool {
    f(x).is_nan()
}

fn nan16(x: u32) -> bool {
    x & 0x7c00 == 0x7c00 && x & 0x3ff != 0
}

fn nan_bf16(x: u32) -> bool {
    nan32(x << 16)
}

fn same(got: u32, want: u32, halves: Halves) -> bool {
    if got == want {
        return true;
    }
    let nan: fn(u32) -> bool = match halves {
        Halves::W => return nan32(got) && nan32(want),
        Halves::H => nan16,
        Halves::B => nan_bf16,
    };
    let half = |g: u32, w: u32| g == w || (nan(g) && nan(w));
    half(lo(got), lo(want)) && half(hi(got), hi(want))
}

#[test]
fn gfx950_valu_operations_match_the_reference() {
    let input = inputs();
    let cases = cases();
    let mut ops = String::new();
    for (k, case) in cases.iter().enumerate() {
        ops += &format!("  {}\n", case.line.replace("vR", &format!("v{}", 40 + k)));
    }
    let results = cases.len() as u32;
    let body = common::under_wave_exec(&ops, results);
    let text = common::kernel(
        T,
        "gfx950_valu",
        &body,
        &common::stores(results),
        results,
        "  .amdhsa_float_denorm_mode_32 3\n  .amdhsa_float_denorm_mode_16_64 3",
    );
    let co = std::fs::read(lathe_testkit::assemble_shared(T, "gfx950_valu", &text))
        .expect("code object");
    let (out, _) = common::launch(&co, T, "gfx950_valu", results, &input, &Options::default());
    let mut failures = Vec::new();
    for g in 0..WAVES as usize {
        let uni = &input[g * IN..(g + 1) * IN];
        let exec = u64::from(uni[6]) | u64::from(uni[7]) << 32;
        for (k, case) in cases.iter().enumerate() {
            for l in 0..64 {
                let lane = g * 64 + l;
                let x = &input[lane * IN..(lane + 1) * IN];
                let got = out[lane * results as usize + k];
                let want = if exec >> l & 1 == 1 {
                    (case.f)(x, SENTINEL)
                } else {
                    SENTINEL
                };
                if !same(got, want, case.halves) {
                    failures.push(format!(
                        "wave {g} lane {l} `{}`: got {got:#010x}, want {want:#010x} (inputs {:08x?})",
                        case.line, x
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches, first:\n{}",
        failures.len(),
        failures[..failures.len().min(16)].join("\n")
    );
}

/// `v_permlane32_swap_b32 vA, vB`: lanes 32-63 of vA trade places with
/// lanes 0-31 of vB; `v_permlane16_swap_b32`: rows 1 and 3 of vA with
/// rows 0 and 2 of vB (a row is 16 lanes).
#[test]
fn gfx950_permlane_swaps_exchange_the_documented_lanes() {
    let input = inputs();
    let body = "  v_mov_b32_e32 v40, v10\n  v_mov_b32_e32 v41, v11\n  v_permlane32_swap_b32 v40, v41\n  \
                v_mov_b32_e32 v42, v10\n  v_mov_b32_e32 v43, v11\n  v_permlane16_swap_b32 v42, v43\n ";
    let text = common::kernel(T, "swaps", body, &common::stores(4), 4, "");
    let co = std::fs::read(lathe_testkit::assemble_shared(T, "gfx950_swaps", &text))
        .expect("code object");
    let (out, _) = common::launch(&co, T, "swaps", 4, &input, &Options::default());
    for g in 0..WAVES as usize {
        let x = |l: usize, k: usize| input[(g * 64 + l) * IN + k];
        for l in 0..64 {
            let got = &out[(g * 64 + l) * 4..(g * 64 + l + 1) * 4];
            let a32 = if l >= 32 { x(l - 32, 1) } else { x(l, 0) };
            let b32 = if l < 32 { x(l + 32, 0) } else { x(l, 1) };
            let odd = l / 16 % 2 == 1;
            let a16 = if odd { x(l - 16, 1) } else { x(l, 0) };
            let b16 = if odd { x(l, 1) } else { x(l + 16, 0) };
            assert_eq!(got, &[a32, b32, a16, b16][..], "wave {g} lane {l}");
        }
    }
}

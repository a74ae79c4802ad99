//! gfx942 FP8/BF8 conversions (`v_cvt_f32_{fp8,bf8}`, `v_cvt_pk_f32_*`,
//! `v_cvt_pk_{fp8,bf8}_f32`, `v_cvt_sr_{fp8,bf8}_f32`) in their VOP1,
//! VOP3, SDWA and DPP forms, run as encoded instructions in a gfx942
//! kernel, and the legacy `v_exp_legacy_f32`/`v_log_legacy_f32` on gfx90a
//! and gfx942.
//!
//! The reference is written from the MI300 ISA's format table (FNUZ: bias
//! 8 / 16, `0x80` the only NaN, no infinity, no -0) by enumeration: every
//! code's value is sign * 2^(e - bias) * (1 + m / 2^M) (or the subnormal
//! m / 2^M * 2^(1 - bias)); f32 to 8 bits picks the code at the smallest
//! distance (ties: the even code), with one virtual code above the largest
//! standing for overflow. Stochastic rounding is the largest code not
//! above the seeded magnitude. All 256 codes of both formats are decoded
//! in a full-EXEC wave (four byte selects over 64 lanes); the f32 inputs
//! mix NaN, infinities, signed zeros, the largest values, exact ties,
//! 8-bit subnormals and f32 denormals with random values. The kernel runs
//! once with MODE.FP16_OVFL clear and once set (overflow saturates).

mod alu_common;
mod common;
use alu_common::Rng;

use lathe_emu::run::Options;

use common::{IN, SENTINEL, WAVES};

#[derive(Clone, Copy, PartialEq)]
enum F {
    Fp8,
    Bf8,
}

impl F {
    fn mb(self) -> i32 {
        if self == F::Fp8 {
            3
        } else {
            2
        }
    }
    fn bias(self) -> i32 {
        if self == F::Fp8 {
            8
        } else {
            16
        }
    }
}

/// The value of code `c` (NaN for 0x80).
fn value(c: u32, f: F) -> f64 {
    let c = c & 0xff;
    if c == 0x80 {
        return f64::NAN;
    }
    let s = if c & 0x80 != 0 { -1.0 } else { 1.0 };
    let e = (c as i32 & 0x7f) >> f.mb();
    let m = f64::from(c & ((1 << f.mb()) - 1));
    let scale = f64::from(1u32 << f.mb());
    s * if e == 0 {
        m / scale * 2f64.powi(1 - f.bias())
    } else {
        (1.0 + m / scale) * 2f64.powi(e - f.bias())
    }
}

fn f32_bits(x: f64) -> u32 {
    if x.is_nan() {
        0x7fc0_0000
    } else {
        (x as f32).to_bits()
    }
}

fn fv(x: u32) -> f64 {
    f64::from(f32::from_bits(x))
}

/// Nearest code to `x` (ties to the even code); overflow and NaN by `sat`.
fn nearest(x: f64, f: F, sat: bool) -> u32 {
    if x.is_nan() {
        return 0x80;
    }
    let max = value(0x7f, f);
    // The first value past the largest: 2^(emax + 1).
    let beyond = if f == F::Fp8 { 256.0 } else { 65536.0 };
    assert!(beyond > max);
    let a = x.abs();
    // At and past the first value beyond the largest, every distance
    // compare would say "overflow" (and f64 distances to huge values tie).
    if a >= beyond {
        return if sat { sign8(x) | 0x7f } else { 0x80 };
    }
    let mut best = (f64::INFINITY, 0u32);
    for c in 0..=0x7fu32 {
        let d = (value(c, f) - a).abs();
        if d < best.0 || (d == best.0 && c % 2 == 0) {
            best = (d, c);
        }
    }
    let d = (beyond - a).abs();
    if d < best.0 || (d == best.0 && best.1 % 2 == 1) {
        return if sat { sign8(x) | 0x7f } else { 0x80 };
    }
    if best.1 == 0 {
        0
    } else {
        sign8(x) | best.1
    }
}

fn sign8(x: f64) -> u32 {
    if x.is_sign_negative() {
        0x80
    } else {
        0
    }
}

/// Stochastic rounding: the seed's top (23 - M) bits added to the f32's
/// magnitude bits, then the largest code not above the sum.
fn stochastic(x: u32, seed: u32, f: F, sat: bool) -> u32 {
    let v = fv(x);
    if v.is_nan() {
        return 0x80;
    }
    let drop = 23 - f.mb() as u32;
    let mag = u64::from(x & 0x7fff_ffff) + u64::from(seed >> (32 - drop));
    if v.is_infinite() || mag >= 0x7f80_0000 {
        return if sat { sign8(v) | 0x7f } else { 0x80 };
    }
    let a = fv(mag as u32);
    let mut best = 0u32;
    for c in 0..=0x7fu32 {
        if value(c, f) <= a {
            best = c;
        }
    }
    let max = value(0x7f, f);
    let beyond = if f == F::Fp8 { 256.0 } else { 65536.0 };
    if a >= beyond {
        return if sat { sign8(v) | 0x7f } else { 0x80 };
    }
    assert!(value(best, f) <= max);
    if best == 0 {
        0
    } else {
        sign8(v) | best
    }
}

fn byte(x: u32, k: u32) -> u32 {
    x >> (8 * k) & 0xff
}

fn clamp01(x: u32) -> u32 {
    let v = fv(x);
    if v.is_nan() || v <= 0.0 {
        0
    } else if v >= 1.0 {
        0x3f80_0000
    } else {
        x
    }
}

struct Case {
    only: Option<&'static str>,
    line: &'static str,
    width: u32,
    /// (inputs, FP16_OVFL) -> result dwords (empty: only run).
    f: fn(&[u32], bool) -> Vec<u32>,
}

const fn c(line: &'static str, f: fn(&[u32], bool) -> Vec<u32>) -> Case {
    Case {
        only: Some("gfx942"),
        line,
        width: 1,
        f,
    }
}

const fn c2(line: &'static str, f: fn(&[u32], bool) -> Vec<u32>) -> Case {
    Case {
        only: Some("gfx942"),
        line,
        width: 2,
        f,
    }
}

const fn both(line: &'static str, f: fn(&[u32], bool) -> Vec<u32>) -> Case {
    Case {
        only: None,
        line,
        width: 1,
        f,
    }
}

const S: u32 = SENTINEL;

fn dec(b: u32, f: F) -> u32 {
    f32_bits(value(b, f))
}

fn cases() -> Vec<Case> {
    use F::{Bf8, Fp8};
    vec![
        c("v_cvt_f32_fp8_e32 vR, v12", |x, _| {
            vec![dec(byte(x[2], 0), Fp8)]
        }),
        c("v_cvt_f32_fp8_sdwa vR, v12 src0_sel:BYTE_1", |x, _| {
            vec![dec(byte(x[2], 1), Fp8)]
        }),
        c("v_cvt_f32_fp8_sdwa vR, v12 src0_sel:BYTE_2", |x, _| {
            vec![dec(byte(x[2], 2), Fp8)]
        }),
        c("v_cvt_f32_fp8_sdwa vR, v12 src0_sel:BYTE_3", |x, _| {
            vec![dec(byte(x[2], 3), Fp8)]
        }),
        c("v_cvt_f32_bf8_e64 vR, v12", |x, _| {
            vec![dec(byte(x[2], 0), Bf8)]
        }),
        c("v_cvt_f32_bf8_sdwa vR, v12 src0_sel:BYTE_1", |x, _| {
            vec![dec(byte(x[2], 1), Bf8)]
        }),
        c("v_cvt_f32_bf8_sdwa vR, v12 src0_sel:BYTE_2", |x, _| {
            vec![dec(byte(x[2], 2), Bf8)]
        }),
        c("v_cvt_f32_bf8_sdwa vR, v12 src0_sel:BYTE_3", |x, _| {
            vec![dec(byte(x[2], 3), Bf8)]
        }),
        c("v_cvt_f32_fp8_e64 vR, v12 clamp", |x, _| {
            vec![clamp01(dec(byte(x[2], 0), Fp8))]
        }),
        c(
            "v_cvt_f32_fp8_dpp vR, v12 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf",
            |_, _| vec![],
        ),
        c2("v_cvt_pk_f32_fp8_e32 vR2, v12", |x, _| {
            vec![dec(byte(x[2], 0), Fp8), dec(byte(x[2], 1), Fp8)]
        }),
        c2("v_cvt_pk_f32_fp8_sdwa vR2, v12 src0_sel:WORD_1", |x, _| {
            vec![dec(byte(x[2], 2), Fp8), dec(byte(x[2], 3), Fp8)]
        }),
        c2("v_cvt_pk_f32_bf8_e64 vR2, v12", |x, _| {
            vec![dec(byte(x[2], 0), Bf8), dec(byte(x[2], 1), Bf8)]
        }),
        c2("v_cvt_pk_f32_bf8_sdwa vR2, v12 src0_sel:WORD_1", |x, _| {
            vec![dec(byte(x[2], 2), Bf8), dec(byte(x[2], 3), Bf8)]
        }),
        c("v_cvt_pk_fp8_f32 vR, v13, v14", |x, s| {
            let lo = nearest(fv(x[3]), Fp8, s) | nearest(fv(x[4]), Fp8, s) << 8;
            vec![S & 0xffff_0000 | lo]
        }),
        c("v_cvt_pk_fp8_f32 vR, -v14, |v13| op_sel:[0,0,1]", |x, s| {
            let hi = nearest(-fv(x[4]), Fp8, s) | nearest(fv(x[3]).abs(), Fp8, s) << 8;
            vec![S & 0xffff | hi << 16]
        }),
        c("v_cvt_pk_bf8_f32 vR, v13, v14", |x, s| {
            let lo = nearest(fv(x[3]), Bf8, s) | nearest(fv(x[4]), Bf8, s) << 8;
            vec![S & 0xffff_0000 | lo]
        }),
        c("v_cvt_pk_bf8_f32 vR, |v14|, -v13 op_sel:[0,0,1]", |x, s| {
            let hi = nearest(fv(x[4]).abs(), Bf8, s) | nearest(-fv(x[3]), Bf8, s) << 8;
            vec![S & 0xffff | hi << 16]
        }),
        c("v_cvt_sr_fp8_f32 vR, v13, v15", |x, s| {
            vec![S & !0xff | stochastic(x[3], x[5], Fp8, s)]
        }),
        c("v_cvt_sr_fp8_f32 vR, -v14, v15 op_sel:[0,0,1,0]", |x, s| {
            vec![S & !0xff00 | stochastic(x[4] ^ 0x8000_0000, x[5], Fp8, s) << 8]
        }),
        c("v_cvt_sr_bf8_f32 vR, v14, v15 op_sel:[0,0,0,1]", |x, s| {
            vec![S & !0xff_0000 | stochastic(x[4], x[5], Bf8, s) << 16]
        }),
        c(
            "v_cvt_sr_bf8_f32 vR, |v13|, v15 op_sel:[0,0,1,1]",
            |x, s| vec![S & 0xff_ffff | stochastic(x[3] & 0x7fff_ffff, x[5], Bf8, s) << 24],
        ),
        both("v_exp_legacy_f32_e32 vR, v16", |x, _| {
            vec![f32_bits(fv(x[6]).exp2())]
        }),
        both("v_log_legacy_f32_e64 vR, v16", |x, _| {
            vec![f32_bits(fv(x[6]).log2())]
        }),
        both("v_log_legacy_f32_sdwa vR, v17 src0_sel:DWORD", |x, _| {
            vec![f32_bits(fv(x[7]).log2())]
        }),
        both("v_exp_legacy_f32_e64 vR, -v17", |x, _| {
            vec![f32_bits((-fv(x[7])).exp2())]
        }),
    ]
}

fn asm(target: &str, cases: &[&Case], ovfl: bool) -> (String, u32) {
    let mut ops = String::new();
    let mut r = 40u32;
    for case in cases {
        r += r % 2 * u32::from(case.width > 1);
        let l = case
            .line
            .replace("vR2", &format!("v[{r}:{}]", r + 1))
            .replace("vR", &format!("v{r}"));
        ops += &format!("  {l}\n");
        r += case.width;
    }
    let results = r - 40;
    let sentinel: String = (0..results)
        .map(|k| format!("  v_mov_b32_e32 v{}, {SENTINEL:#x}\n", 40 + k))
        .collect();
    let stores: String = (0..results)
        .map(|k| {
            format!(
                "  global_store_dword v[2:3], v{}, off offset:{}\n",
                40 + k,
                4 * k
            )
        })
        .collect();
    let mode = if ovfl {
        "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 23, 1), 1\n"
    } else {
        ""
    };
    let body = format!(
        "{sentinel}{mode}\n  s_mov_b64 s[36:37], exec\n  s_mov_b32 exec_lo, s26\n  s_mov_b32 exec_hi, s27\n{ops}\n  s_mov_b64 exec, s[36:37]"
    );
    (
        common::kernel(
            target,
            "fp8",
            &body,
            &stores,
            results,
            "  .amdhsa_float_denorm_mode_32 3\n  .amdhsa_float_denorm_mode_16_64 3",
        ),
        results,
    )
}

fn f32_corner(rng: &mut Rng) -> u32 {
    let picks = [
        0u32,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffa0_0001,
        0x4370_0000, // 240: FP8's largest
        0x4377_ffff, // just below the tie with 256
        0x4378_0000, // 248: the tie, rounds to even = overflow
        0x4380_0000, // 256
        0x4760_0000, // 57344: BF8's largest
        0x4770_0000, // 61440: the tie for BF8
        0x476f_ffff,
        0x3a80_0000, // 2^-10: FP8's smallest subnormal
        0x3a40_0000, // 0.75 * 2^-10
        0x3a00_0000, // 2^-11: tie with 0
        0x3a00_0001,
        0x3740_0000, // 1.5 * 2^-17: BF8 subnormal tie
        0x3700_0000, // 2^-17: BF8's smallest
        0x3680_0000, // 2^-18: tie with 0
        0x0000_0001, // f32 denormals
        0x8040_0000,
        0x3f88_0000, // 1.0625: tie between 1 and 1.125
        0x3f98_0000, // 1.1875: tie between 1.125 and 1.25
        0x3f90_0000,
        0xbfa0_0000,
        0x3c00_0000, // 2^-7: FP8's smallest normal
        0x3bff_ffff,
        0x7f7f_ffff,
    ];
    match rng.below(4) {
        0 => rng.pick(&picks),
        1 => {
            // A value within the 8-bit range, often on a tie.
            let e = 100 + rng.below(46) as u32;
            let m = if rng.bool() {
                (rng.u32() & 0x7) << 19 | 1 << 18
            } else {
                rng.u32() & 0x7f_ffff
            };
            u32::from(rng.bool()) << 31 | e << 23 | m
        }
        2 => rng.f32(),
        _ => rng.u32(),
    }
}

fn inputs() -> Vec<u32> {
    let mut rng = Rng::new(0xf8f8);
    let lanes = (WAVES * 64) as usize;
    let mut v = vec![0u32; lanes * IN];
    for l in 0..lanes {
        let x = &mut v[l * IN..(l + 1) * IN];
        // Every code in some byte of a full-EXEC wave's 64 lanes: byte k
        // of lane i holds 64 k + i (rotated per wave).
        let i = (l % 64) as u32;
        let rot = (l / 64) as u32;
        x[2] = (0..4)
            .map(|k| ((64 * ((k + rot) % 4) + i) & 0xff) << (8 * k))
            .sum();
        x[3] = f32_corner(&mut rng);
        x[4] = f32_corner(&mut rng);
        x[5] = rng.u32();
        x[6] = f32_corner(&mut rng);
        x[7] = f32_corner(&mut rng);
    }
    common::exec_patterns(&mut v, || rng.u32());
    v
}

fn run(co: &[u8], target: &str, results: u32, input: &[u32]) -> Vec<u32> {
    common::launch(co, target, "fp8", results, input, &Options::default()).0
}

/// Equal bits, or two f32 NaNs; `ulps` f32 ulps for exp/log.
fn close(got: u32, want: u32, ulps: u32) -> bool {
    let (g, w) = (f32::from_bits(got), f32::from_bits(want));
    got == want
        || (g.is_nan() && w.is_nan())
        || (ulps > 0 && g.is_finite() && w.is_finite() && {
            let key = |x: u32| {
                if x >> 31 == 1 {
                    -i64::from(x & 0x7fff_ffff)
                } else {
                    i64::from(x)
                }
            };
            key(got).abs_diff(key(want)) <= u64::from(ulps)
        })
}

#[test]
fn fp8_conversions_and_legacy_exp_log_match_the_reference() {
    let input = inputs();
    let cases = cases();
    let mut seen = std::collections::BTreeSet::new();
    for target in ["gfx942", "gfx90a"] {
        for ovfl in [false, true] {
            let all: Vec<&Case> = cases
                .iter()
                .filter(|c| c.only.is_none_or(|t| t == target))
                .collect();
            let (text, results) = asm(target, &all, ovfl);
            let path = lathe_testkit::assemble_shared(target, "fp8", &text);
            let co = std::fs::read(&path).expect("code object");
            let out = run(&co, target, results, &input);
            let mut failures = Vec::new();
            for g in 0..WAVES as usize {
                let uni = &input[g * IN..(g + 1) * IN];
                let exec = u64::from(uni[6]) | u64::from(uni[7]) << 32;
                let mut r = 0usize;
                for case in all.iter().copied() {
                    r += r % 2 * usize::from(case.width > 1);
                    let ulps = u32::from(case.line.contains("legacy"));
                    for l in 0..64 {
                        let lane = g * 64 + l;
                        let x = &input[lane * IN..(lane + 1) * IN];
                        let active = exec >> l & 1 == 1;
                        let want = if active {
                            (case.f)(x, ovfl)
                        } else {
                            vec![SENTINEL; case.width as usize]
                        };
                        if active && want.is_empty() {
                            continue;
                        }
                        // The four byte selects of each decoder run in
                        // full-EXEC waves.
                        if active && exec == u64::MAX && case.line.starts_with("v_cvt_f32_") {
                            for k in 0..4 {
                                seen.insert((&case.line[10..13], byte(x[2], k)));
                            }
                        }
                        for (k, &want) in want.iter().enumerate() {
                            let got = out[lane * results as usize + r + k];
                            if !close(got, want, ulps) {
                                failures.push(format!(
                                    "{target} ovfl {ovfl} wave {g} lane {l} `{}` result {k}: got {got:#010x}, want {want:#010x} (inputs {:08x?})",
                                    case.line, x
                                ));
                            }
                        }
                    }
                    r += case.width as usize;
                }
            }
            assert!(
                failures.is_empty(),
                "{} mismatches, first:\n{}",
                failures.len(),
                failures[..failures.len().min(16)].join("\n")
            );
        }
    }
    // Every code of both formats went through the decoders.
    for fmt in ["fp8", "bf8"] {
        let n = seen.iter().filter(|(l, _)| *l == fmt).count();
        assert_eq!(n, 256, "{fmt}: codes seen in full-EXEC waves");
    }
}

/// The reference itself on the format table's landmarks (so that a
/// reference bug cannot hide an implementation bug in the same place).
#[test]
fn reference_landmarks() {
    assert_eq!(value(0x7f, F::Fp8), 240.0);
    assert_eq!(value(0x7f, F::Bf8), 57344.0);
    assert_eq!(value(0x01, F::Fp8), 2f64.powi(-10));
    assert_eq!(value(0x08, F::Fp8), 2f64.powi(-7));
    assert_eq!(value(0x01, F::Bf8), 2f64.powi(-17));
    assert_eq!(value(0x04, F::Bf8), 2f64.powi(-15));
    assert!(value(0x80, F::Fp8).is_nan());
    assert_eq!(nearest(248.0, F::Fp8, false), 0x80);
    assert_eq!(nearest(247.9, F::Fp8, false), 0x7f);
    assert_eq!(nearest(-1e9, F::Fp8, true), 0xff);
    assert_eq!(nearest(-0.0, F::Fp8, false), 0);
    assert_eq!(nearest(2f64.powi(-11), F::Fp8, false), 0);
    assert_eq!(nearest(1.5 * 2f64.powi(-10), F::Fp8, false), 0x02);
    assert_eq!(nearest(1.0625, F::Fp8, false), 0x40);
    assert_eq!(nearest(1.1875, F::Fp8, false), 0x42);
}

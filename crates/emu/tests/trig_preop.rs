//! `v_trig_preop_f64`, the 53-bit segments of 2/π that f64 sin/cos use to
//! reduce large arguments.
//!
//! * The instruction itself: an assembly kernel (clang-22, gfx90a and
//!   gfx942) computes it over random arguments of every exponent
//!   (denormals, ±0, the 1077/1968 thresholds, infinities, NaNs), random
//!   segment operands (bits above [4:0] set too) and source modifiers, and
//!   every result is compared bit for bit with LLVM's own constant folding
//!   of `llvm.amdgcn.trig.preop` (`opt -passes=instcombine`, written from
//!   AMD's description with its own 2/π table), an independent model.
//! * In use: a HIP kernel calling `sin`/`cos` on large doubles, built by
//!   Debian's hipcc (the device library's Payne–Hanek reduction calls the
//!   instruction), checked against the host's libm within 1 ulp.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::process::Command;

use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::Options;
use lathe_emu::session::{Session, Shape};

mod alu_common;
use alu_common::Rng;

const LANES: usize = 8 * 64;

fn buf(name: &str, bytes: Vec<u8>) -> Arg {
    Arg::Buffer {
        name: name.into(),
        size: bytes.len() as u64,
        fill: Fill::Bytes(bytes),
        output: None,
    }
}

/// Random f64 arguments: every biased exponent, the thresholds, specials.
fn arguments(r: &mut Rng) -> Vec<(u64, u32)> {
    let specials: &[u64] = &[
        0,
        1 << 63,
        1,
        0x000f_ffff_ffff_ffff,
        0x3ff0_0000_0000_0000,
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0xfff8_0000_0000_0001,
        0x7ff0_0000_0000_0001,
        0x7fef_ffff_ffff_ffff,
    ];
    (0..LANES)
        .map(|k| {
            let x = match r.below(6) {
                0 => r.pick(specials),
                1 => {
                    // Around the exponent thresholds 1077 and 1968.
                    let e = r.pick(&[1076u64, 1077, 1078, 1079, 1966, 1967, 1968, 1969, 2046]);
                    r.u64() & 0x800f_ffff_ffff_ffff | e << 52
                }
                2 => {
                    let e = r.below(2048);
                    r.u64() & 0x800f_ffff_ffff_ffff | e << 52
                }
                _ => {
                    // Where sin/cos use it: |x| from 2^20 up.
                    let e = 1043 + r.below(1004);
                    r.u64() & 0x800f_ffff_ffff_ffff | e << 52
                }
            };
            let seg = match k % 4 {
                0 => (k / 4 % 32) as u32,
                1 => r.below(4) as u32,
                2 => r.u32(),
                _ => r.below(32) as u32 | (r.u32() & 0xffff_ffe0),
            };
            (x, seg)
        })
        .collect()
}

/// LLVM's folding of `llvm.amdgcn.trig.preop(x, seg)` for each pair.
fn llvm_fold(cases: &[(u64, u32)]) -> Vec<u64> {
    let mut ir = String::from("declare double @llvm.amdgcn.trig.preop.f64(double, i32)\n");
    for (k, (x, seg)) in cases.iter().enumerate() {
        ir += &format!(
            "define double @c{k}() {{\n  %r = call double @llvm.amdgcn.trig.preop.f64(double 0x{x:016X}, i32 {})\n  ret double %r\n}}\n",
            *seg as i32
        );
    }
    let mut h = DefaultHasher::new();
    ir.hash(&mut h);
    let out = lathe_testkit::cache_dir().join(format!("trig-preop-fold-{:016x}.ll", h.finish()));
    if !out.exists() {
        let src = lathe_testkit::tmp_beside(&out.with_extension("in.ll"));
        std::fs::write(&src, &ir).expect("write IR");
        let tmp = lathe_testkit::tmp_beside(&out);
        lathe_testkit::run(
            Command::new(lathe_testkit::llvm_tool("opt"))
                .args([
                    "-mtriple=amdgcn-amd-amdhsa",
                    "-mcpu=gfx90a",
                    "-passes=instcombine",
                    "-S",
                ])
                .arg(&src)
                .arg("-o")
                .arg(&tmp),
        );
        let _ = std::fs::remove_file(&src);
        lathe_testkit::publish(&tmp, &out);
    }
    let text = std::fs::read_to_string(&out).expect("folded IR");
    let mut got = vec![None; cases.len()];
    let mut cur = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("define double @c") {
            cur = rest.split('(').next().and_then(|n| n.parse::<usize>().ok());
        } else if let Some(v) = line.trim().strip_prefix("ret double ") {
            let bits = match v.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16).expect("hex double"),
                None => v.parse::<f64>().expect("decimal double").to_bits(),
            };
            got[cur.expect("ret inside a case")] = Some(bits);
        }
    }
    got.into_iter()
        .enumerate()
        .map(|(k, v)| v.unwrap_or_else(|| panic!("LLVM did not fold case {k}")))
        .collect()
}

fn kernel(target: &str) -> String {
    format!(
        r#".amdgcn_target "amdgcn-amd-amdhsa--{target}"
.text
.globl tp
.p2align 8
.type tp,@function
tp:
  s_load_dwordx4 s[4:7], s[0:1], 0
  v_lshl_add_u32 v1, s2, 6, v0
  v_lshlrev_b32_e32 v2, 4, v1
  s_waitcnt lgkmcnt(0)
  v_mov_b32_e32 v3, s7
  v_add_co_u32_e32 v2, vcc, s6, v2
  v_addc_co_u32_e32 v3, vcc, 0, v3, vcc
  global_load_dwordx4 v[10:13], v[2:3], off
  s_waitcnt vmcnt(0)
  v_readfirstlane_b32 s10, v12
  v_trig_preop_f64 v[20:21], v[10:11], v12
  v_trig_preop_f64 v[22:23], -|v[10:11]|, v12
  v_trig_preop_f64 v[24:25], v[10:11], 7
  v_trig_preop_f64 v[26:27], -v[10:11], s10
  v_lshlrev_b32_e32 v2, 5, v1
  v_mov_b32_e32 v3, s5
  v_add_co_u32_e32 v2, vcc, s4, v2
  v_addc_co_u32_e32 v3, vcc, 0, v3, vcc
  global_store_dwordx4 v[2:3], v[20:23], off
  global_store_dwordx4 v[2:3], v[24:27], off offset:16
  s_endpgm
.Lend:
.size tp, .Lend-tp
.rodata
.p2align 6
.amdhsa_kernel tp
  .amdhsa_next_free_vgpr 32
  .amdhsa_accum_offset 32
  .amdhsa_next_free_sgpr 16
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 16
  .amdhsa_system_sgpr_workgroup_id_x 1
  {flat}
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: tp
    .symbol: tp.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 20
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - {{ .name: out, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }}
      - {{ .name: in, .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global }}
...
.end_amdgpu_metadata
"#,
        flat = if target == "gfx90a" {
            ".amdhsa_reserve_flat_scratch 0"
        } else {
            ""
        },
    )
}

fn words(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8")))
        .collect()
}

#[test]
fn trig_preop_matches_llvm_constant_folding() {
    let mut r = Rng::new(0x7219_0b0e);
    let cases = arguments(&mut r);
    // The four forms: (x, seg), (-|x|, seg), (x, 7), (-x, seg of lane 0 of the wave).
    let neg = |x: u64| x ^ 1 << 63;
    let mut all = Vec::new();
    for (k, &(x, seg)) in cases.iter().enumerate() {
        let first = cases[k / 64 * 64].1;
        all.push((x, seg));
        all.push((x | 1 << 63, seg));
        all.push((x, 7));
        all.push((neg(x), first));
    }
    let want = llvm_fold(&all);
    let input: Vec<u8> = cases
        .iter()
        .flat_map(|&(x, seg)| {
            let mut b = x.to_le_bytes().to_vec();
            b.extend(seg.to_le_bytes());
            b.extend(0u32.to_le_bytes());
            b
        })
        .collect();
    for target in ["gfx90a", "gfx942"] {
        let co = std::fs::read(lathe_testkit::assemble_shared(
            target,
            "trig_preop",
            &kernel(target),
        ))
        .expect("code object");
        let s = Session::load(target.parse().expect("target"), &[&co]).expect("load");
        let args = [buf("out", vec![0; 32 * LANES]), buf("in", input.clone())];
        let (_r, bufs) = s
            .launch(
                "tp",
                Shape::linear(LANES as u32, 64),
                &args,
                &Options::default(),
            )
            .expect("runs");
        let got = words(&s.download(bufs[0].addr, bufs[0].size).expect("read"));
        let mut bad = Vec::new();
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            let (x, seg) = all[k];
            // LLVM's folding returns 0 where the 53-bit window reaches its
            // table's last three words (shift >= 1088); the manual's
            // pseudocode reads bits past b0 as zeros instead, as the
            // emulator does. Those windows are not compared.
            let e = (x >> 52 & 0x7ff) as u32;
            let shift = (seg & 31) * 53 + e.saturating_sub(1077);
            if *w == 0 && shift >= 1088 {
                continue;
            }
            if g != w {
                bad.push(format!(
                    "{target} lane {} form {}: trig_preop({x:#018x}, {seg:#x}) = {g:#018x}, LLVM folds {w:#018x}",
                    k / 4,
                    k % 4
                ));
            }
        }
        assert!(
            bad.is_empty(),
            "{} mismatches:\n{}",
            bad.len(),
            bad[..bad.len().min(12)].join("\n")
        );
    }
}

#[test]
fn segments_of_one_add_up_to_two_over_pi() {
    let all: Vec<(u64, u32)> = (0..3).map(|k| (1f64.to_bits(), k)).collect();
    let seg = llvm_fold(&all);
    let mine: Vec<u64> = (0..3)
        .map(|k| lathe_emu::alu::trig::trig_preop_f64(1f64.to_bits(), k))
        .collect();
    assert_eq!(seg, mine);
    let sum = seg
        .iter()
        .map(|b| f64::from_bits(*b))
        .fold(0.0, |a, b| a + b);
    assert_eq!(sum, std::f64::consts::FRAC_2_PI);
    // Consecutive segments do not overlap: each is below an ulp of the last.
    for w in seg.windows(2) {
        let (a, b) = (f64::from_bits(w[0]), f64::from_bits(w[1]));
        assert!(b < a * f64::EPSILON, "{a:e} {b:e}");
    }
}

const SINCOS: &str = r#"#include <hip/hip_runtime.h>
extern "C" __global__ void sincos_f64(double *out, const double *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double x = in[i];
    out[2 * i] = sin(x);
    out[2 * i + 1] = cos(x);
  }
}
"#;

/// `SINCOS` built by Debian's hipcc for gfx90a (cached by content).
fn hipcc_sincos() -> Vec<u8> {
    let mut h = DefaultHasher::new();
    ("hipcc-v1", SINCOS).hash(&mut h);
    let out = lathe_testkit::cache_dir().join(format!("trig-preop-sincos-{:016x}.co", h.finish()));
    if !out.exists() {
        let src = lathe_testkit::tmp_beside(&out.with_extension("hip"));
        let src = src.with_extension("hip");
        std::fs::write(&src, SINCOS).expect("write source");
        let tmp = lathe_testkit::tmp_beside(&out);
        lathe_testkit::run(
            Command::new("/usr/bin/hipcc")
                .args([
                    "--offload-arch=gfx90a",
                    "--cuda-device-only",
                    "--no-gpu-bundle-output",
                    "-c",
                    "-O3",
                ])
                .arg(&src)
                .arg("-o")
                .arg(&tmp),
        );
        let _ = std::fs::remove_file(&src);
        lathe_testkit::publish(&tmp, &out);
    }
    std::fs::read(&out).expect("code object")
}

fn ulps(a: f64, b: f64) -> u64 {
    let key = |x: f64| {
        let b = x.to_bits() as i64;
        if b < 0 {
            i64::MIN - b
        } else {
            b
        }
    };
    key(a).abs_diff(key(b))
}

#[test]
fn hip_sin_cos_of_large_doubles_match_libm() {
    let co = hipcc_sincos();
    let mut r = Rng::new(0x51c0_5e55);
    let mut xs: Vec<f64> = vec![
        1e22,
        -1e22,
        1e300,
        f64::MAX,
        -f64::MAX,
        // Near multiples of π/2 (hard cases for the reduction; the very
        // hardest, within 2^-60 of one, are beyond the device library's
        // ~106-bit reduction and not included).
        f64::from_bits(0x7fe6_a09e_667f_3bcc),
        1_073_741_824.0,
        1e9 * std::f64::consts::PI,
        std::f64::consts::FRAC_PI_2 * 2f64.powi(40),
    ];
    while xs.len() < LANES {
        let e = 1043 + r.below(980);
        xs.push(f64::from_bits(r.u64() & 0x800f_ffff_ffff_ffff | e << 52));
    }
    let s = Session::load("gfx90a".parse().expect("target"), &[&co]).expect("load");
    let args = [
        buf("out", vec![0; 16 * LANES]),
        buf("in", xs.iter().flat_map(|x| x.to_le_bytes()).collect()),
        Arg::Scalar {
            ty: "i32".into(),
            bytes: (LANES as i32).to_le_bytes().to_vec(),
        },
    ];
    let (_r, bufs) = s
        .launch(
            "sincos_f64",
            Shape::linear(LANES as u32, 64),
            &args,
            &Options::default(),
        )
        .expect("runs");
    let got = words(&s.download(bufs[0].addr, bufs[0].size).expect("read"));
    let mut bad = Vec::new();
    for (k, &x) in xs.iter().enumerate() {
        for (j, want) in [x.sin(), x.cos()].into_iter().enumerate() {
            let g = f64::from_bits(got[2 * k + j]);
            if ulps(g, want) > 1 {
                bad.push(format!(
                    "{}({x:e} = {:#018x}) = {g:e}, libm {want:e} ({} ulp)",
                    ["sin", "cos"][j],
                    x.to_bits(),
                    ulps(g, want)
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} results off by more than 1 ulp:\n{}",
        bad.len(),
        bad[..bad.len().min(12)].join("\n")
    );
}

//! What the RDNA case tests (`gfx1030_cases.rs`, `gfx1100_cases.rs`,
//! `gfx1201_cases.rs`) share, each taking the target: the corpus loop
//! (every clang-22 `lathe-cases` case built in wave32 and wave64 at -O0 and
//! -O3 and checked against its CPU reference, with an exact list of the
//! runs that do not pass), the wave32 cross-lane kernel against a 32-lane
//! CPU model, the inline-assembly kernels of GFX11 and later (VOPD, true16)
//! and the rate measurement's one run.
#![allow(dead_code)] // each test binary uses part of it

use crate::case_run::{self, run_code_object, Outcome};
use lathe_cases::{build, Case};
use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::Options;
use lathe_emu::session::{Session, Shape};
use lathe_testkit::{cache_dir, llvm_tool, run, workspace_root};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A run that does not pass: (case, wave size, optimisation, why).
pub type Known = (&'static str, u32, &'static str, &'static str);

/// Corpus cases written for GFX9 waves, not RDNA code as written.
const SHFL_CASES: [&str; 5] = [
    "wave_sum_xor_f32",
    "wave_scan_i32",
    "wave_max_readlane",
    "wave_ballot",
    "wave_rotate",
];
const DPP_CASES: [&str; 3] = ["dpp_scan_i32", "dpp_patterns", "dpp_row_scan_f32"];
const MFMA_CASES: [&str; 6] = [
    "mfma_f32_16x16x4f32",
    "mfma_f32_16x16x4f32_random",
    "mfma_f32_32x32x8f16",
    "mfma_f64_16x16x4f64",
    "mfma_i8",
    "mfma_bf16",
];

/// The runs of the corpus that are not RDNA code as written, the same on
/// every GFX10+ target, with why (`dpp` and `mfma` name the target):
/// the 64-lane shuffle cases in wave32 (their CPU references assume 64
/// lanes), the GFX9-only DPP cases and the MFMA cases in both wave sizes;
/// each at -O0 and -O3.
pub fn gfx9_only_runs(dpp: &'static str, mfma: &'static str) -> Vec<Known> {
    const SHFL: &str = "the case and its CPU reference assume 64-lane waves (k_shfl.hip)";
    let mut out = Vec::new();
    let mut add = |cases: &[&'static str], waves: &[u32], why: &'static str| {
        for &c in cases {
            for &w in waves {
                for opt in ["-O0", "-O3"] {
                    out.push((c, w, opt, why));
                }
            }
        }
    };
    add(&SHFL_CASES, &[32], SHFL);
    add(&DPP_CASES, &[32, 64], dpp);
    add(&MFMA_CASES, &[32, 64], mfma);
    out
}

/// The case's code object for `target` (a GFX10+ processor) at `opt` and
/// `wave` lanes per wave.
pub fn code_object_for(case: &Case, target: &'static str, opt: &'static str, wave: u32) -> PathBuf {
    if wave == 32 {
        return build::linked_code_object(case, target, opt);
    }
    let objs: Vec<PathBuf> = case
        .sources
        .iter()
        .map(|s| {
            let mut b = build::clang_build(s, target, opt, case.rdc);
            b.extra = vec!["-mwavefrontsize64"];
            b.build()
        })
        .collect();
    if !case.rdc {
        return objs.into_iter().next().expect("one code object");
    }
    let out = cache_dir().join(format!(
        "{}-{target}-w64{opt}-{}.co",
        case.name,
        std::process::id()
    ));
    run(Command::new(llvm_tool("ld.lld"))
        .args(["-shared", "--no-undefined"])
        .args(&objs)
        .arg("-o")
        .arg(&out));
    out
}

/// Every clang-22 corpus case on `target` in wave32 and wave64 at -O0 and
/// -O3 against its CPU reference. A run that does not pass must be in
/// `known`; a listed run that passes, or a row that names no run, fails
/// too, so the list is exact.
pub fn corpus_matches_cpu_references(target: &'static str, known: &[Known]) {
    let mut passed = std::collections::BTreeMap::new();
    let mut bad = Vec::new();
    let mut known_seen = Vec::new();
    let targets: &'static [&'static str] = Box::leak(Box::new([target]));
    for case in lathe_cases::all() {
        // clang-22 cases only (Debian's hipcc cases are built for gfx90a).
        if case.hipcc || !case.targets.contains(&"gfx942") {
            continue;
        }
        let mut c = case.clone();
        c.targets = targets;
        for wave in [32, 64] {
            for &opt in c.opts() {
                // A source written for GFX9 may not compile for RDNA
                // (GFX9-only DPP controls): that is a run that does not
                // pass, with clang's reason.
                let built = std::panic::catch_unwind(|| code_object_for(&c, target, opt, wave));
                let outcome = match built {
                    Ok(co) => run_code_object(&c, target, &co, &Options::default()),
                    Err(e) => Outcome::Fail(format!(
                        "does not build for {target}: {}",
                        e.downcast_ref::<String>()
                            .and_then(|m| m.lines().find(|l| l.contains("error:")))
                            .unwrap_or("clang failed")
                    )),
                };
                let k = known
                    .iter()
                    .find(|k| k.0 == c.name && k.1 == wave && k.2 == opt);
                let got = match outcome {
                    Outcome::Pass => None,
                    Outcome::Unsupported(i) => Some(format!("unsupported {i}")),
                    Outcome::Fail(e) => Some(e),
                };
                match (got, k) {
                    (None, None) => *passed.entry(wave).or_insert(0) += 1,
                    (None, Some(k)) => bad.push(format!(
                        "{} wave{wave} {opt}: passes but is listed as not passing ({})",
                        c.name, k.3
                    )),
                    (Some(e), Some(_)) => {
                        known_seen.push(format!("{} wave{wave} {opt}: {e}", c.name))
                    }
                    (Some(e), None) => bad.push(format!("{} wave{wave} {opt}: {e}", c.name)),
                }
            }
        }
    }
    eprintln!(
        "{target} corpus: {} wave32 and {} wave64 runs passed; {} known not to:\n{}",
        passed.get(&32).unwrap_or(&0),
        passed.get(&64).unwrap_or(&0),
        known_seen.len(),
        known_seen.join("\n")
    );
    assert_eq!(known_seen.len(), known.len(), "a known row names no run");
    assert!(passed.values().all(|&n| n > 0), "{passed:?}");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// HIP source `text` built for `target` at -O3 (wave32): the code object.
pub fn build_hip(target: &str, name: &str, text: &str) -> Vec<u8> {
    let dir = cache_dir();
    let src = dir.join(format!("{name}-{target}-{}.hip", std::process::id()));
    std::fs::write(&src, text).expect("write source");
    let out = src.with_extension("co");
    run(Command::new(llvm_tool("clang++"))
        .args(["-x", "hip", "-nogpuinc", "-nogpulib", "-O3"])
        .arg("-I")
        .arg(workspace_root().join("corpus/include"))
        .arg(format!("--offload-arch={target}"))
        .args(["--cuda-device-only", "--no-gpu-bundle-output"])
        .arg(&src)
        .arg("-o")
        .arg(&out));
    std::fs::read(out).expect("code object")
}

/// `kernel(int *out, const int *in, int n)` of `co` on `target` over a
/// grid of `grid` work-items in blocks of `block`, `outs` output dwords
/// per item: the launch's wave count and the output.
fn launch_io(
    target: &str,
    co: &[u8],
    kernel: &str,
    (grid, block, n): (u32, u32, usize),
    input: &[i32],
    outs: usize,
) -> (u64, Vec<i32>) {
    let session = Session::load(target.parse().expect("target"), &[co]).expect("load");
    let args = vec![
        Arg::Buffer {
            name: "out".into(),
            size: (4 * outs * n) as u64,
            fill: Fill::Bytes(vec![0; 4 * outs * n]),
            output: None,
        },
        Arg::Buffer {
            name: "in".into(),
            size: 4 * input.len() as u64,
            fill: Fill::Bytes(input.iter().flat_map(|v| v.to_le_bytes()).collect()),
            output: None,
        },
        Arg::Scalar {
            ty: "i32".into(),
            bytes: (n as i32).to_le_bytes().to_vec(),
        },
    ];
    let shape = Shape {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        dims: 1,
        dynamic_lds: 0,
    };
    let (report, bufs) = session
        .launch(kernel, shape, &args, &Options::default())
        .expect("runs");
    let out = session
        .download(bufs[0].addr, bufs[0].size)
        .expect("read back")
        .chunks(4)
        .map(|b| i32::from_le_bytes(b.try_into().expect("4")))
        .collect();
    (report.waves, out)
}

/// Wave32 cross-lane kernels: every lane of every wave writes five results.
const WAVE32_XLANE: &str = r#"
#include "lathe_hip.h"
__device__ inline unsigned lane32() { return __builtin_amdgcn_mbcnt_lo(~0u, 0u); }
__device__ inline int shfl(int v, int src) { return __builtin_amdgcn_ds_bpermute(src << 2, v); }
__global__ void xlane32(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  unsigned lane = lane32();
  // __shfl_xor butterfly over 32 lanes.
  int s = v;
  for (int off = 16; off > 0; off >>= 1) s += shfl(s, (int)(lane ^ (unsigned)off));
  // Lane (lane + 5) % 32 through ds_bpermute: the index wraps at 32.
  int r = shfl(v, (int)lane + 5 + 32);
  // ds_swizzle bit mode: and 0x1f, or 0, xor 1 (swap neighbours).
  int z = __builtin_amdgcn_ds_swizzle(v, 0x041f);
  // DPP row_shr:1 (lanes 0 of each row of 16 keep their old value).
  int d = __builtin_amdgcn_update_dpp(v, v, 0x111, 0xf, 0xf, false);
  // Lane 37's value: readlane takes the lane modulo 32.
  int l = __builtin_amdgcn_readlane(v, 37);
  unsigned b = __builtin_amdgcn_ballot_w32((v & 1) != 0);
  out[5 * i + 0] = s;
  out[5 * i + 1] = r;
  out[5 * i + 2] = z;
  out[5 * i + 3] = d + l;
  out[5 * i + 4] = (int)b;
}
"#;

/// What a 32-lane wave computes, lane by lane (the CPU reference).
fn xlane_reference(input: &[i32]) -> Vec<i32> {
    let mut out = Vec::new();
    for wave in input.chunks(32) {
        let sum = wave.iter().fold(0i32, |a, &b| a.wrapping_add(b));
        let ballot = wave
            .iter()
            .enumerate()
            .fold(0u32, |m, (l, v)| m | ((*v as u32 & 1) << l));
        for lane in 0..32 {
            let d = if lane % 16 == 0 {
                wave[lane]
            } else {
                wave[lane - 1]
            };
            out.extend([
                sum,
                wave[(lane + 5) % 32],
                wave[lane ^ 1],
                d.wrapping_add(wave[37 % 32]),
                ballot as i32,
            ]);
        }
    }
    out
}

/// The wave32 cross-lane kernel on `target` against the 32-lane model.
pub fn wave32_cross_lane_matches_a_32_lane_model(target: &str) {
    let co = build_hip(target, "xlane32", WAVE32_XLANE);
    let n = 256usize;
    let input: Vec<i32> = (0..n as i32)
        .map(|i| i.wrapping_mul(-1_640_531_535).rotate_left(7))
        .collect();
    let (waves, out) = launch_io(target, &co, "xlane32", (n as u32, 128, n), &input, 5);
    // 256 work-items in wave32: 8 waves.
    assert_eq!(waves, 8);
    let want = xlane_reference(&input);
    assert_eq!(out.len(), want.len());
    for (k, (g, w)) in out.iter().zip(&want).enumerate() {
        assert_eq!(
            g,
            w,
            "item {} result {} ({})",
            k / 5,
            k % 5,
            [
                "shfl_xor sum",
                "bpermute +5",
                "swizzle xor 1",
                "dpp row_shr + readlane 37",
                "ballot"
            ][k % 5]
        );
    }
}

/// VOPD (dual issue) words whose halves name each other's registers.
const VOPD: &str = r#"
#include "lathe_hip.h"
__global__ void vopd(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int a = in[2 * i], b = in[2 * i + 1];
  int x, y, p, q;
  asm volatile(
      "v_mov_b32 v10, %4\n"
      "v_mov_b32 v11, %5\n"
      "v_mov_b32 v12, %4\n"
      "v_mov_b32 v13, %5\n"
      // Y reads X's destination v10: it must see v10 before X writes it.
      "v_dual_mov_b32 v10, v11 :: v_dual_add_nc_u32 v15, v10, v11\n"
      // A swap: each half reads the register the other writes.
      "v_dual_mov_b32 v12, v13 :: v_dual_mov_b32 v13, v12\n"
      "v_mov_b32 %0, v10\n"
      "v_mov_b32 %1, v15\n"
      "v_mov_b32 %2, v12\n"
      "v_mov_b32 %3, v13\n"
      : "=v"(x), "=v"(y), "=v"(p), "=v"(q)
      : "v"(a), "v"(b)
      : "v10", "v11", "v12", "v13", "v15");
  out[4 * i + 0] = x;
  out[4 * i + 1] = y;
  out[4 * i + 2] = p;
  out[4 * i + 3] = q;
}
"#;

/// Builds `text` (HIP with one kernel, `kernel`) for `target` at -O3 in
/// wave32 and runs it over `n` work-items (blocks of 64, so the last wave
/// may be partial) with `input` and an `outs`-dword-per-item output: the
/// output.
fn run_inline(
    target: &str,
    kernel: &str,
    text: &str,
    n: usize,
    input: &[i32],
    outs: usize,
) -> Vec<i32> {
    let co = build_hip(target, kernel, text);
    let blocks = n.div_ceil(64) as u32;
    let (waves, out) = launch_io(target, &co, kernel, (64 * blocks, 64, n), input, outs);
    assert_eq!(waves, 2 * u64::from(blocks), "wave32");
    out
}

/// VOPD's halves on `target` both read their sources before either writes.
pub fn vopd_halves_read_their_sources_before_either_writes(target: &str) {
    // 100 work-items: the last wave of 32 is partial.
    let n = 100usize;
    let input: Vec<i32> = (0..2 * n as i32)
        .map(|i| i.wrapping_mul(-1_640_531_535).rotate_left(9))
        .collect();
    let out = run_inline(target, "vopd", VOPD, n, &input, 4);
    for k in 0..n {
        let (a, b) = (input[2 * k], input[2 * k + 1]);
        assert_eq!(
            &out[4 * k..4 * k + 4],
            &[b, a.wrapping_add(b), b, a],
            "item {k}: [X result, Y reading X's destination, swap X, swap Y]"
        );
    }
}

/// True16 operands: e32 and VOP3 (`op_sel`) forms reading and writing
/// VGPR halves.
const T16: &str = r#"
#include "lathe_hip.h"
__global__ void t16(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int a = in[3 * i], b = in[3 * i + 1], c = in[3 * i + 2];
  int x, y, z;
  asm volatile(
      "v_mov_b32 v10, %3\n"
      "v_mov_b32 v11, %4\n"
      "v_mov_b32 v12, %5\n"
      "V_MAX_F16 v10.h, v10.l, v11.h\n"
      "V_MAX_F16_e64 v11.l, v10.h, v11.l\n"
      "V_MIN_F16_e64 v12.h, v11.h, v10.l\n"
      "v_mov_b32 %0, v10\n"
      "v_mov_b32 %1, v11\n"
      "v_mov_b32 %2, v12\n"
      : "=v"(x), "=v"(y), "=v"(z)
      : "v"(a), "v"(b), "v"(c)
      : "v10", "v11", "v12");
  out[3 * i + 0] = x;
  out[3 * i + 1] = y;
  out[3 * i + 2] = z;
}
"#;

/// True16 `.h`/`.l` operands on `target` read and write the halves they
/// name. `max` is the mnemonic of the f16 maximum (`v_max_f16` on GFX11,
/// `v_max_num_f16` on GFX12), `min` of the minimum.
pub fn true16_operands_read_and_write_the_halves_they_name(target: &str, max: &str, min: &str) {
    let n = 100usize;
    // Finite nonzero f16 halves of either sign (no NaN, no zero, so max
    // and min are an order on the bits).
    let half = |x: u32| (x & 0x3bff | 0x0400 | x >> 8 & 0x8000) & 0xffff;
    let input: Vec<i32> = (0..3 * n as u32)
        .map(|i| {
            let r = i.wrapping_mul(2_654_435_761).rotate_left(11) ^ i;
            (half(r) | half(r.rotate_left(16)) << 16) as i32
        })
        .collect();
    let key = |h: u32| {
        if h & 0x8000 != 0 {
            -((h & 0x7fff) as i32)
        } else {
            (h & 0x7fff) as i32
        }
    };
    let fmax = |p: u32, q: u32| if key(p) >= key(q) { p } else { q };
    let fmin = |p: u32, q: u32| if key(p) <= key(q) { p } else { q };
    let text = T16.replace("V_MAX_F16", max).replace("V_MIN_F16", min);
    let out = run_inline(target, "t16", &text, n, &input, 3);
    for k in 0..n {
        let (a, b, c) = (
            input[3 * k] as u32,
            input[3 * k + 1] as u32,
            input[3 * k + 2] as u32,
        );
        let x = a & 0xffff | fmax(a & 0xffff, b >> 16) << 16;
        let y = b & 0xffff_0000 | fmax(x >> 16, b & 0xffff);
        let z = c & 0xffff | fmin(y >> 16, x & 0xffff) << 16;
        assert_eq!(
            out[3 * k..3 * k + 3]
                .iter()
                .map(|&v| v as u32)
                .collect::<Vec<_>>(),
            vec![x, y, z],
            "item {k}: {max} v10.h, v10.l, v11.h; {max}_e64 v11.l, v10.h, v11.l; \
             {min}_e64 v12.h, v11.h, v10.l"
        );
    }
}

/// One timed run of `case` from `co` on `target` on one thread: (wave-
/// instructions per second, wave-instructions).
pub fn rate(case: &Case, target: &'static str, co: &Path, fast: bool) -> (f64, u64) {
    let bytes = std::fs::read(co).expect("code object");
    let s = Session::load(target.parse().expect("target"), &[&bytes]).expect("load");
    let args = case_run::args(case);
    let shape = Shape {
        grid: case.grid,
        block: case.block,
        dims: case.dims(),
        dynamic_lds: case.dyn_lds,
    };
    let o = Options {
        threads: 1,
        fast_tier: fast,
        ..Options::default()
    };
    let (r, _) = s.launch(case.kernel, shape, &args, &o).expect("runs");
    (
        r.wave_instructions as f64 / r.elapsed.as_secs_f64(),
        r.wave_instructions,
    )
}

/// Prints a five-column rate table on stderr: gfx90a's general handlers,
/// an earlier RDNA target in wave32 and wave64 (`earlier`), and the target
/// under test in wave32 and wave64, each column's median, minimum and
/// maximum over the paired `rows`, its per-round ratio to gfx90a, and the
/// last two columns' per-round ratio to the earlier target in the same wave
/// size. `n` is the wave-instructions per run.
pub fn report_rates(
    name: &str,
    labels: &[&str; 5],
    rows: &[[f64; 5]],
    n: &[u64; 5],
    earlier: &str,
) {
    // Median, min and max of column `k`, or of its per-round ratio to
    // column `base`.
    let stat = |k: usize, base: Option<usize>| {
        let mut v: Vec<f64> = rows
            .iter()
            .map(|r| base.map_or(r[k], |b| r[k] / r[b]))
            .collect();
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[0], v[v.len() - 1])
    };
    let runs = rows.len();
    eprintln!("case {name}, {runs} paired rounds, one thread; wave-instructions per run {n:?}");
    for (k, label) in labels.iter().enumerate() {
        let (m, lo, hi) = stat(k, None);
        let (r0, r0lo, r0hi) = stat(k, Some(0));
        let same = match k {
            3 | 4 => {
                let (r, rlo, rhi) = stat(k, Some(k - 2));
                format!("; vs {earlier} same size {r:.2}x ({rlo:.2}-{rhi:.2})")
            }
            _ => String::new(),
        };
        eprintln!(
            "{label:15} {:7.2} M wave-instr/s (min {:.2}, max {:.2}); vs gfx90a general {r0:.2}x ({r0lo:.2}-{r0hi:.2}){same}",
            m / 1e6,
            lo / 1e6,
            hi / 1e6
        );
    }
}

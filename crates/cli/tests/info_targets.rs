//! `lathe info` on every generation (issue 18).
//!
//! - The occupancy estimate equals clang-22's own
//!   (`-Rpass-analysis=kernel-resource-usage`, "Occupancy [waves/SIMD]")
//!   for every kernel of the corpus (corpus/hip, the lathe-cases kernels
//!   included) built for gfx90a, gfx942, gfx950, gfx1030, gfx1100 (wave32
//!   and wave64), gfx1151 and gfx1201, and of `occupancy_limits.hip` (which
//!   pushes each limit in turn) also for gfx803, gfx1010, gfx1030 in CU
//!   mode, gfx1201 in wave64 and gfx1250.
//! - Every kernel descriptor field `lathe info --json` decodes equals the
//!   `.amdhsa_*` directive `llvm-mc` was given, for an assembler source per
//!   generation in which each field takes a non-default value at least
//!   once, and equals what `llvm-objdump` prints for the same descriptor.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::lathe_json as json;
use common::occupancy_remarks;
use lathe_testkit::{corpus_src, llvm_tool, workspace_root};
use serde_json::Value;

/// One clang configuration: processor and extra flags.
#[derive(Clone, Copy)]
struct Config {
    arch: &'static str,
    flags: &'static [&'static str],
}

impl Config {
    fn label(&self) -> String {
        format!("{}{}", self.arch, self.flags.join(""))
    }
    fn gfx9(&self) -> bool {
        self.arch.starts_with("gfx9")
    }
    /// Processors with MFMA and AGPRs.
    fn agprs(&self) -> bool {
        matches!(self.arch, "gfx90a" | "gfx942" | "gfx950")
    }
}

const MAIN: &[Config] = &[
    Config {
        arch: "gfx90a",
        flags: &[],
    },
    Config {
        arch: "gfx942",
        flags: &[],
    },
    Config {
        arch: "gfx950",
        flags: &[],
    },
    Config {
        arch: "gfx1030",
        flags: &[],
    },
    Config {
        arch: "gfx1100",
        flags: &[],
    },
    Config {
        arch: "gfx1100",
        flags: &["-mwavefrontsize64"],
    },
    Config {
        arch: "gfx1151",
        flags: &[],
    },
    Config {
        arch: "gfx1201",
        flags: &[],
    },
];

const EXTRA: &[Config] = &[
    Config {
        arch: "gfx803",
        flags: &[],
    },
    Config {
        arch: "gfx1010",
        flags: &[],
    },
    Config {
        arch: "gfx1030",
        flags: &["-mcumode"],
    },
    Config {
        arch: "gfx1201",
        flags: &["-mwavefrontsize64"],
    },
    Config {
        arch: "gfx1250",
        flags: &[],
    },
];

/// Whether corpus source `name` is compiled for `c`, and why not.
fn builds_for(name: &str, c: Config) -> Result<(), &'static str> {
    match name {
        // Built with hipcc and the ROCm headers, not clang -nogpuinc.
        "k_math_hipcc.hip" => Err("needs hipcc"),
        // Call functions of another object: built with -fgpu-rdc and linked.
        "k_devlib_main.hip" | "rdc_main.hip" => Err("needs -fgpu-rdc linking"),
        // Device functions for those: no kernels.
        "k_devlib_lib.hip" | "rdc_lib.hip" => Err("no kernels"),
        // One 48 KiB unrolled loop: minutes per build.
        "dbi_big.hip" => Err("minutes per build"),
        // Its MFMA kernels `#error` outside gfx90a and gfx942.
        "k_mfma.hip" if !matches!(c.arch, "gfx90a" | "gfx942") => Err("gfx90a/gfx942 MFMA"),
        "bench_emu.hip" | "occupancy.hip" if !c.agprs() => Err("MFMA/AGPRs"),
        "k_dpp.hip" if !c.gfx9() => Err("GFX9 DPP controls"),
        // CDNA4 builtins (f8f6f4 and scaled MFMAs).
        "bench_gfx950.hip" | "mfma_gfx950.hip" if c.arch != "gfx950" => Err("gfx950 MFMAs"),
        _ => Ok(()),
    }
}

/// (code object, clang's remarks) for one source, cached by content.
fn compile(src: &str, c: Config, opt: &str) -> (PathBuf, String) {
    let dir = lathe_testkit::cache_dir().join("info-targets");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let mut h = DefaultHasher::new();
    (src, c.arch, c.flags, opt).hash(&mut h);
    std::fs::read(corpus_src(src)).expect("source").hash(&mut h);
    for hdr in ["lathe_hip.h", "lathe_hip_extra.h"] {
        std::fs::read(workspace_root().join("corpus/include").join(hdr))
            .expect("header")
            .hash(&mut h);
    }
    let key = format!("{src}-{}{opt}-{:016x}", c.label(), h.finish());
    let co = dir.join(format!("{key}.co"));
    let rem = dir.join(format!("{key}.remarks"));
    if co.exists() && rem.exists() {
        return (co, std::fs::read_to_string(&rem).expect("remarks"));
    }
    let tmp = lathe_testkit::tmp_beside(&co);
    let o = Command::new(llvm_tool("clang++"))
        .args(["-x", "hip", "-nogpuinc", "-nogpulib", opt])
        .arg("-I")
        .arg(workspace_root().join("corpus/include"))
        .arg(format!("--offload-arch={}", c.arch))
        .args(c.flags)
        .args(["--cuda-device-only", "--no-gpu-bundle-output"])
        .arg("-Rpass-analysis=kernel-resource-usage")
        .arg(corpus_src(src))
        .arg("-o")
        .arg(&tmp)
        .output()
        .expect("run clang");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{src} for {}: {err}", c.label());
    lathe_testkit::publish(&tmp, &co);
    lathe_testkit::write_cached(&rem, err.as_bytes());
    (co, err)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Compares every kernel of one build; returns (kernels, limiters seen).
fn compare(src: &str, c: Config, opt: &str, limiters: &mut BTreeSet<(String, String)>) -> usize {
    let (co, text) = compile(src, c, opt);
    let expect = occupancy_remarks(&text);
    let j = json(&["info", s(&co)]);
    let kernels = j["code_objects"][0]["kernels"]
        .as_array()
        .expect("kernels")
        .clone();
    let mut n = 0;
    for k in &kernels {
        let name = k["name"].as_str().expect("name");
        let want = *expect
            .get(name)
            .unwrap_or_else(|| panic!("{src} {}: no remark for {name}", c.label()));
        let occ = &k["occupancy"];
        assert_eq!(
            occ["waves_per_simd"].as_u64(),
            Some(want),
            "{src} {} {opt}: {name}: lathe {occ} vs clang {want}",
            c.label()
        );
        limiters.insert((
            c.label(),
            occ["limited_by"].as_str().unwrap_or("").to_string(),
        ));
        n += 1;
    }
    // Every kernel clang reports is one `info` lists (remarks also cover
    // non-inlined device functions, which have no descriptor).
    let listed: BTreeSet<&str> = kernels.iter().filter_map(|k| k["name"].as_str()).collect();
    assert!(
        n > 0 && listed.len() == n,
        "{src} {}: {n} kernels",
        c.label()
    );
    n
}

#[test]
fn occupancy_equals_clang_on_every_target() {
    let dir = workspace_root().join("corpus/hip");
    let mut sources: Vec<String> = std::fs::read_dir(&dir)
        .expect("corpus/hip")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".hip"))
        .collect();
    sources.sort();
    let mut jobs: Vec<(String, Config, &str)> = Vec::new();
    for c in MAIN {
        for src in &sources {
            if builds_for(src, *c).is_ok() {
                jobs.push((src.clone(), *c, "-O3"));
            }
        }
        jobs.push(("occupancy_limits.hip".into(), *c, "-O0"));
    }
    for c in EXTRA {
        jobs.push(("occupancy_limits.hip".into(), *c, "-O3"));
    }
    let half = jobs.len() / 2;
    let (a, b) = jobs.split_at(half);
    let run = |part: &[(String, Config, &str)]| {
        let mut lim = BTreeSet::new();
        let mut kernels = 0;
        for (src, c, opt) in part {
            kernels += compare(src, *c, opt, &mut lim);
        }
        (kernels, lim)
    };
    let ((ka, la), (kb, lb)) = std::thread::scope(|sc| {
        let ta = sc.spawn(|| run(a));
        let tb = sc.spawn(|| run(b));
        (ta.join().expect("thread"), tb.join().expect("thread"))
    });
    let kernels = ka + kb;
    let limiters: BTreeSet<(String, String)> = la.union(&lb).cloned().collect();
    eprintln!(
        "{kernels} kernels in {} builds: lathe's occupancy equals clang's",
        jobs.len()
    );
    assert!(kernels >= 1400, "only {kernels} kernels compared");
    // Each limit was reached on each main target (SGPRs only limit before
    // GFX10).
    for c in MAIN {
        for what in ["VGPRs", "LDS", "wave slots"] {
            assert!(
                limiters.contains(&(c.label(), what.to_string())),
                "{}: never limited by {what}: {limiters:?}",
                c.label()
            );
        }
    }
    for l in ["gfx90a", "gfx803"] {
        assert!(
            limiters.contains(&(l.to_string(), "SGPRs".to_string())),
            "{l}: never limited by SGPRs"
        );
    }
}

/// One assembler configuration for the descriptor test.
struct AsmTarget {
    arch: &'static str,
    wave32: bool,
}

const ASM_TARGETS: &[AsmTarget] = &[
    AsmTarget {
        arch: "gfx803",
        wave32: false,
    },
    AsmTarget {
        arch: "gfx90a",
        wave32: false,
    },
    AsmTarget {
        arch: "gfx942",
        wave32: false,
    },
    AsmTarget {
        arch: "gfx950",
        wave32: false,
    },
    AsmTarget {
        arch: "gfx1010",
        wave32: true,
    },
    AsmTarget {
        arch: "gfx1030",
        wave32: true,
    },
    AsmTarget {
        arch: "gfx1030",
        wave32: false,
    },
    AsmTarget {
        arch: "gfx1100",
        wave32: true,
    },
    AsmTarget {
        arch: "gfx1100",
        wave32: false,
    },
    AsmTarget {
        arch: "gfx1151",
        wave32: true,
    },
    AsmTarget {
        arch: "gfx1201",
        wave32: true,
    },
    AsmTarget {
        arch: "gfx1201",
        wave32: false,
    },
    AsmTarget {
        arch: "gfx1250",
        wave32: true,
    },
];

impl AsmTarget {
    fn generation(&self) -> u32 {
        let digits = &self.arch[3..];
        if digits.len() == 3 {
            digits[..1].parse().expect("generation")
        } else {
            digits[..2].parse().expect("generation")
        }
    }
    fn gfx90a(&self) -> bool {
        matches!(self.arch, "gfx90a" | "gfx942" | "gfx950")
    }
    fn gfx125(&self) -> bool {
        self.arch.starts_with("gfx125")
    }
    fn architected_flat_scratch(&self) -> bool {
        matches!(self.arch, "gfx942" | "gfx950") || self.generation() >= 11
    }
    fn xnack(&self) -> bool {
        matches!(self.arch, "gfx90a" | "gfx942" | "gfx950" | "gfx1010")
    }
    /// LLVM's VGPR encoding granule (`getVGPREncodingGranule`).
    fn vgpr_granule(&self) -> u64 {
        if self.gfx90a() {
            8
        } else if self.gfx125() && self.wave32 {
            16
        } else if self.wave32 {
            8
        } else {
            4
        }
    }

    /// The `.amdhsa_*` directives of kernel `alt` (0 or 1): every field the
    /// generation has, each boolean set in one kernel and clear in the
    /// other, multi-bit fields at two non-default values.
    fn directives(&self, alt: bool) -> Vec<(&'static str, u64)> {
        let g = self.generation();
        let afs = self.architected_flat_scratch();
        let on = u64::from(!alt);
        let off = u64::from(alt);
        let pick = |a: u64, b: u64| if alt { b } else { a };
        let mut d = vec![
            ("group_segment_fixed_size", pick(1024, 0)),
            ("private_segment_fixed_size", pick(0, 16)),
            ("kernarg_size", pick(64, 24)),
        ];
        if self.gfx90a() {
            d.push(("accum_offset", pick(4, 8)));
            d.push(("tg_split", on));
        }
        if (g == 10 || g == 11) && !self.wave32 {
            d.push(("shared_vgpr_count", pick(3, 0)));
        }
        if g >= 11 {
            d.push(("inst_pref_size", pick(if g == 11 { 40 } else { 200 }, 0)));
        }
        if self.gfx125() {
            d.push(("named_barrier_count", pick(5, 0)));
        }
        d.push(("next_free_vgpr", pick(9, 37)));
        d.push(("next_free_sgpr", pick(61, 30)));
        d.push(("reserve_vcc", 0));
        if !afs {
            d.push(("reserve_flat_scratch", 0));
        }
        if self.xnack() {
            d.push(("reserve_xnack_mask", 0));
        }
        d.extend([
            ("float_round_mode_32", pick(1, 3)),
            ("float_round_mode_16_64", pick(0, 2)),
            ("float_denorm_mode_32", pick(2, 1)),
            ("float_denorm_mode_16_64", pick(3, 0)),
        ]);
        if g < 12 {
            d.push(("dx10_clamp", on));
            d.push(("ieee_mode", off));
        }
        if g >= 9 {
            d.push(("fp16_overflow", on));
        }
        if g >= 10 {
            if !self.gfx125() {
                d.push(("workgroup_processor_mode", on));
            }
            d.push(("memory_ordered", off));
            d.push(("forward_progress", on));
        }
        if g >= 12 {
            d.push(("round_robin_scheduling", on));
        }
        d.push((
            if afs {
                "enable_private_segment"
            } else {
                "system_sgpr_private_segment_wavefront_offset"
            },
            on,
        ));
        d.extend([
            ("system_sgpr_workgroup_id_x", off),
            ("system_sgpr_workgroup_id_y", on),
            ("system_sgpr_workgroup_id_z", on),
            ("system_sgpr_workgroup_info", on),
            ("system_vgpr_workitem_id", pick(2, 1)),
        ]);
        for e in [
            "exception_fp_ieee_invalid_op",
            "exception_fp_denorm_src",
            "exception_fp_ieee_div_zero",
            "exception_fp_ieee_overflow",
            "exception_fp_ieee_underflow",
            "exception_fp_ieee_inexact",
            "exception_int_div_zero",
        ] {
            d.push((e, on));
        }
        let mut users = 0;
        if !afs {
            d.push(("user_sgpr_private_segment_buffer", on));
            users += 4 * on;
        }
        d.extend([
            ("user_sgpr_dispatch_ptr", on),
            ("user_sgpr_queue_ptr", off),
            ("user_sgpr_kernarg_segment_ptr", on),
            ("user_sgpr_dispatch_id", on),
        ]);
        users += 2 * (on + off + on + on);
        if !afs {
            d.push(("user_sgpr_flat_scratch_init", on));
            users += 2 * on;
        }
        d.push(("user_sgpr_private_segment_size", on));
        users += on;
        if self.gfx90a() || self.gfx125() {
            d.push(("user_sgpr_kernarg_preload_length", pick(2, 0)));
            d.push(("user_sgpr_kernarg_preload_offset", pick(1, 0)));
            users += pick(2, 0);
        }
        if g >= 10 {
            d.push(("wavefront_size32", u64::from(self.wave32)));
        }
        d.push(("uses_dynamic_stack", on));
        // More than the enabled ones need: the count is its own field.
        d.push(("user_sgpr_count", users + pick(2, 0)));
        d
    }

    fn source(&self) -> String {
        let mut s = format!(
            "\t.amdgcn_target \"amdgcn-amd-amdhsa--{}{}\"\n\t.text\n",
            self.arch,
            if self.xnack() { ":xnack-" } else { "" }
        );
        for k in ["k0", "k1"] {
            s += &format!("\t.globl {k}\n\t.p2align 8\n\t.type {k},@function\n{k}:\n\ts_endpgm\n");
        }
        for (k, alt) in [("k0", false), ("k1", true)] {
            s += &format!("\t.rodata\n\t.p2align 6\n\t.amdhsa_kernel {k}\n");
            for (name, v) in self.directives(alt) {
                s += &format!("\t\t.amdhsa_{name} {v}\n");
            }
            s += "\t.end_amdhsa_kernel\n";
        }
        s
    }

    /// What the descriptor holds for directive `name` given `value`.
    fn encoded(&self, name: &str, value: u64) -> u64 {
        match name {
            "next_free_vgpr" => value.max(1).next_multiple_of(self.vgpr_granule()),
            // GFX6-GFX9 in blocks of 8 (no VCC, flat scratch or XNACK
            // reserved, but architected flat scratch always takes 6: LLVM's
            // `getNumExtraSGPRs`); GFX10+ leaves the field 0, one block.
            "next_free_sgpr" if self.generation() < 10 => {
                let extra = if self.architected_flat_scratch() {
                    6
                } else {
                    0
                };
                (value + extra).max(1).next_multiple_of(8)
            }
            "next_free_sgpr" => 8,
            _ => value,
        }
    }
}

/// `.amdhsa_NAME VALUE` and `; NAME VALUE` lines of llvm-objdump's
/// descriptor listing, per kernel, the names in lower case.
fn objdump_fields(text: &str) -> BTreeMap<String, BTreeMap<String, u64>> {
    let mut out: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    let mut cur = None;
    for l in text.lines().map(str::trim) {
        if let Some(k) = l.strip_prefix(".amdhsa_kernel ") {
            cur = Some(k.to_string());
            continue;
        }
        let Some(k) = &cur else { continue };
        let body = l.strip_prefix(".amdhsa_").or_else(|| l.strip_prefix("; "));
        let Some((name, v)) = body.and_then(|b| b.split_once(' ')) else {
            continue;
        };
        if let Ok(v) = v.trim().parse::<u64>() {
            out.entry(k.clone())
                .or_default()
                .insert(name.to_lowercase(), v);
        }
    }
    out
}

#[test]
fn descriptor_fields_equal_the_assembler_directives_and_objdump() {
    let dir = common::tmpdir("info-kd-asm");
    let mut compared = 0;
    let mut values: BTreeMap<&str, BTreeSet<u64>> = BTreeMap::new();
    for t in ASM_TARGETS {
        let label = format!("{} wave{}", t.arch, if t.wave32 { 32 } else { 64 });
        let src = dir.join(format!("{}-{}.s", t.arch, t.wave32));
        let obj = src.with_extension("o");
        std::fs::write(&src, t.source()).expect("write source");
        let mattr = format!(
            "{}{}",
            if t.wave32 {
                "+wavefrontsize32"
            } else {
                "+wavefrontsize64"
            },
            if t.xnack() { ",-xnack" } else { "" }
        );
        let o = Command::new(llvm_tool("llvm-mc"))
            .args(["--triple=amdgcn-amd-amdhsa", "-filetype=obj"])
            .arg(format!("-mcpu={}", t.arch))
            .arg(format!("-mattr={mattr}"))
            .arg(&src)
            .arg("-o")
            .arg(&obj)
            .output()
            .expect("llvm-mc");
        assert!(
            o.status.success(),
            "{label}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let j = json(&["info", s(&obj)]);
        let dump = Command::new(llvm_tool("llvm-objdump"))
            .args(["-D", "--disassemble-symbols=k0.kd,k1.kd"])
            .arg(&obj)
            .output()
            .expect("objdump");
        let theirs = objdump_fields(&String::from_utf8_lossy(&dump.stdout));
        for (k, alt) in [("k0", false), ("k1", true)] {
            let kernel = j["code_objects"][0]["kernels"]
                .as_array()
                .expect("kernels")
                .iter()
                .find(|x| x["name"] == k)
                .unwrap_or_else(|| panic!("{label}: {k} listed"));
            let fields = kernel["descriptor"]["fields"]
                .as_object()
                .unwrap_or_else(|| panic!("{label}: {k}: fields"));
            let given = t.directives(alt);
            for (name, v) in &given {
                if name.starts_with("reserve_") {
                    continue; // not stored in the descriptor
                }
                let want = t.encoded(name, *v);
                assert_eq!(
                    fields.get(*name).and_then(Value::as_u64),
                    Some(want),
                    "{label} {k}: .amdhsa_{name} {v}"
                );
                values.entry(name).or_default().insert(*v);
                compared += 1;
            }
            // Every field lathe decodes is one the assembler took or
            // objdump prints, with objdump's value.
            let dumped = theirs
                .get(k)
                .unwrap_or_else(|| panic!("{label}: objdump lists no {k}"));
            for (name, v) in fields {
                let from_asm = given.iter().any(|(n, _)| n == name);
                match dumped.get(name.as_str()) {
                    Some(d) => assert_eq!(v.as_u64(), Some(*d), "{label} {k}: objdump {name}"),
                    None => assert!(
                        from_asm || (name == "enable_dynamic_vgpr" && t.generation() == 12),
                        "{label} {k}: lathe decodes {name}, which neither llvm-mc nor llvm-objdump knows"
                    ),
                }
            }
            for name in dumped.keys() {
                if !name.starts_with("reserve_") {
                    assert!(
                        fields.contains_key(name.as_str()),
                        "{label} {k}: objdump prints {name}, lathe does not decode it"
                    );
                }
            }
        }
    }
    eprintln!(
        "{compared} directive values compared over {} targets",
        ASM_TARGETS.len()
    );
    // Each field took a set and a clear (or two non-default) values.
    for must in [
        "workgroup_processor_mode",
        "memory_ordered",
        "forward_progress",
        "shared_vgpr_count",
        "wavefront_size32",
        "enable_private_segment",
        "inst_pref_size",
        "round_robin_scheduling",
        "named_barrier_count",
        "accum_offset",
        "tg_split",
        "user_sgpr_kernarg_preload_length",
    ] {
        assert!(
            values.get(must).is_some_and(|v| v.len() >= 2),
            "{must} never varied: {:?}",
            values.get(must)
        );
    }
}

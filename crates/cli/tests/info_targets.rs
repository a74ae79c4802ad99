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
use lathe_testkit::{corpus_src, llvm_tool, workspace_root};

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

/// Kernel name → clang's occupancy, from the remarks.
fn remarks(text: &str) -> BTreeMap<String, u64> {
    let mut v = BTreeMap::new();
    let mut name = None;
    for l in text.lines().filter(|l| l.contains("remark:")) {
        if let Some(n) = l.split("Function Name: ").nth(1) {
            name = n.split_whitespace().next().map(str::to_string);
        }
        if let Some(x) = l.split("Occupancy [waves/SIMD]: ").nth(1) {
            let n: u64 = x
                .split_whitespace()
                .next()
                .and_then(|x| x.parse().ok())
                .expect("occupancy number");
            v.insert(name.take().expect("name before occupancy"), n);
        }
    }
    v
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Compares every kernel of one build; returns (kernels, limiters seen).
fn compare(src: &str, c: Config, opt: &str, limiters: &mut BTreeSet<(String, String)>) -> usize {
    let (co, text) = compile(src, c, opt);
    let expect = remarks(&text);
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

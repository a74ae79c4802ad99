//! Helpers shared by the integration tests: LLVM oracles and scratch files.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use lathe_testkit::{cache_dir, llvm_tool, run, run_text};

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = cache_dir()
        .join("bundle-tests")
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create scratch dir");
    d
}

/// Writes bytes to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, data: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, data).expect("write scratch file");
    p
}

/// `clang-offload-bundler --list` of a bundle file (plain or CCOB).
pub fn oracle_list(input: &Path) -> Vec<String> {
    let out = run_text(
        Command::new(llvm_tool("clang-offload-bundler"))
            .arg("--list")
            .arg("--type=o")
            .arg(format!("--input={}", input.display())),
    );
    out.lines().map(str::to_owned).collect()
}

/// `clang-offload-bundler --unbundle` of one entry (exact ID) from a bundle
/// file (plain, CCOB, or a host object with `__CLANG_OFFLOAD_BUNDLE__`
/// sections).
pub fn oracle_unbundle(input: &Path, id: &str, scratch: &Path) -> Vec<u8> {
    let out = scratch.join(format!("unbundled-{}", sanitize(id)));
    run(Command::new(llvm_tool("clang-offload-bundler"))
        .arg("--unbundle")
        .arg("--type=o")
        .arg("--allow-missing-bundles")
        .arg(format!("--targets={id}"))
        .arg(format!("--input={}", input.display()))
        .arg(format!("--output={}", out.display())));
    std::fs::read(&out).expect("read unbundled output")
}

/// `llvm-objcopy --dump-section` of one section.
pub fn dump_section(input: &Path, section: &str, scratch: &Path) -> Vec<u8> {
    let out = scratch.join(format!("section-{}", sanitize(section)));
    let junk = scratch.join("objcopy-out");
    run(Command::new(llvm_tool("llvm-objcopy"))
        .arg(format!("--dump-section={section}={}", out.display()))
        .arg(input)
        .arg(&junk));
    std::fs::read(&out).expect("read dumped section")
}

/// Section names and file offsets/sizes from `llvm-readelf -S`.
pub fn readelf_sections(input: &Path) -> Vec<(String, u64, u64)> {
    let out = run_text(
        Command::new(llvm_tool("llvm-readelf"))
            .args(["-S", "-W"])
            .arg(input),
    );
    let mut v = Vec::new();
    for line in out.lines() {
        let Some(rest) = line.trim_start().strip_prefix('[') else {
            continue;
        };
        let Some((_, rest)) = rest.split_once(']') else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        // Name Type Address Off Size ...
        if f.len() < 5 {
            continue;
        }
        let (Ok(off), Ok(size)) = (u64::from_str_radix(f[3], 16), u64::from_str_radix(f[4], 16))
        else {
            continue;
        };
        v.push((f[0].to_owned(), off, size));
    }
    v
}

pub fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

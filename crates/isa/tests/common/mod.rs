//! Shared helpers for lathe-isa's integration tests: reading code objects
//! with the `object` crate and comparing our listings with llvm-objdump.

#![allow(clippy::unwrap_used)]
#![allow(dead_code)]

use lathe_isa::{write_listing, ListingSymbol, Style, Target};
use object::{Object, ObjectSection, ObjectSymbol};
use std::path::Path;
use std::process::Command;

/// `.text` of an AMDGPU ELF: (address, bytes, symbols in it).
pub struct Text {
    pub addr: u64,
    pub bytes: Vec<u8>,
    pub symbols: Vec<(String, u64, u64)>,
}

pub fn read_text(path: &Path) -> Text {
    let data = std::fs::read(path).expect("read code object");
    text_of(&data)
}

pub fn text_of(data: &[u8]) -> Text {
    let file = object::File::parse(data).expect("parse ELF");
    let sec = file.section_by_name(".text").expect(".text");
    let idx = sec.index();
    let mut symbols = Vec::new();
    for s in file.symbols() {
        if s.section_index() == Some(idx) {
            if let Ok(n) = s.name() {
                if !n.is_empty() {
                    symbols.push((n.to_string(), s.address(), s.size()));
                }
            }
        }
    }
    Text {
        addr: sec.address(),
        bytes: sec.data().expect("text data").to_vec(),
        symbols,
    }
}

/// Our llvm-objdump-style listing of `.text`.
pub fn our_listing(target: Target, t: &Text) -> String {
    let syms: Vec<ListingSymbol<'_>> = t
        .symbols
        .iter()
        .map(|(n, a, s)| ListingSymbol {
            name: n,
            addr: *a,
            size: *s,
        })
        .collect();
    let mut out = String::new();
    write_listing(
        &mut out,
        target,
        &t.bytes,
        t.addr,
        &syms,
        Style::LlvmObjdump,
    )
    .unwrap();
    out
}

/// llvm-objdump's listing of `.text` (headers dropped).
pub fn objdump_listing(target: Target, path: &Path) -> String {
    let out = lathe_testkit::run_text(
        Command::new(lathe_testkit::llvm_tool("llvm-objdump"))
            .args([
                "-d",
                "--no-show-raw-insn",
                "--no-leading-addr",
                "-j",
                ".text",
            ])
            .arg(format!("--mcpu={}", target.name()))
            .arg(path),
    );
    // Drop "file format" and "Disassembly of section" headers.
    out.lines()
        .filter(|l| !l.contains("file format") && !l.starts_with("Disassembly of section"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Lines with whitespace collapsed, each keyed by the address it belongs
/// to (instruction lines carry it; labels and "..." take the next one), so
/// a difference does not shift every following line.
fn norm(s: &str) -> Vec<(String, String)> {
    let lines: Vec<String> = s
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect();
    let mut out = Vec::new();
    let mut pending = Vec::new();
    for l in lines {
        let addr = l
            .split("// ")
            .nth(1)
            .and_then(|r| r.split(':').next())
            .filter(|a| a.len() == 12 && a.chars().all(|c| c.is_ascii_hexdigit()))
            .map(str::to_string);
        match addr {
            Some(a) => {
                for (i, p) in pending.drain(..).enumerate() {
                    out.push((format!("{a}#{i}"), p));
                }
                out.push((a, l));
            }
            None => pending.push(l),
        }
    }
    for (i, p) in pending.into_iter().enumerate() {
        out.push((format!("end#{i}"), p));
    }
    out
}

/// Compares two listings after collapsing whitespace; returns the
/// mismatching (ours, theirs) line pairs, aligned by address.
pub fn diff_listings(ours: &str, theirs: &str) -> Vec<(String, String)> {
    let a: std::collections::BTreeMap<String, String> = norm(ours).into_iter().collect();
    let b: std::collections::BTreeMap<String, String> = norm(theirs).into_iter().collect();
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut d = Vec::new();
    for k in keys {
        let x = a.get(k).cloned().unwrap_or_default();
        let y = b.get(k).cloned().unwrap_or_default();
        if x != y {
            d.push((x, y));
        }
    }
    d
}

/// One gfx90a or gfx942 code object of the jax-rocm7-plugin wheel.
pub struct JaxObject {
    pub target: Target,
    /// The `.so` it was found in (file name only).
    pub lib: String,
    /// Content hash, also the stem of its file under `cache/isa-jax`.
    pub key: u64,
    pub bytes: Vec<u8>,
}

/// Every distinct gfx90a/gfx942 code object of the jax wheel, extracted
/// from the `.so` files' bundles with lathe-bundle (no other test's cache).
/// Empty when the wheel is absent, which fails under
/// `LATHE_REQUIRE_EXTERNAL`. A shared library whose bundles do not parse
/// fails the test: the wheel is a known-good input.
pub fn jax_code_objects() -> Vec<JaxObject> {
    use std::hash::{Hash, Hasher};
    let libs = lathe_testkit::jax_plugin_libs();
    if libs.is_empty() {
        assert!(
            !lathe_testkit::require_external(),
            "jax wheel missing: run scripts/setup.sh"
        );
        eprintln!("jax wheel not present; skipped");
        return Vec::new();
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for lib in &libs {
        let data = std::fs::read(lib).unwrap();
        let walk = lathe_bundle::walk(&data, &lathe_bundle::Limits::default())
            .unwrap_or_else(|e| panic!("{}: {e}", lib.display()));
        for entry in walk {
            let entry = entry.unwrap_or_else(|e| panic!("{}: {e}", lib.display()));
            let target = if entry.id.contains("gfx90a") {
                Target::Gfx90a
            } else if entry.id.contains("gfx942") {
                Target::Gfx942
            } else {
                continue;
            };
            let bytes: &[u8] = &entry.data;
            let mut h = std::collections::hash_map::DefaultHasher::new();
            bytes.hash(&mut h);
            let key = h.finish();
            if seen.insert((target, key)) {
                out.push(JaxObject {
                    target,
                    lib: lib.file_name().unwrap().to_string_lossy().into_owned(),
                    key,
                    bytes: bytes.to_vec(),
                });
            }
        }
    }
    out
}

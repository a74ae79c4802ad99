//! The gfx90a and gfx942 code objects of the jax-rocm7-plugin wheel (CCOB
//! bundles in `.hip_fatbin`, extracted with lathe-bundle): our listing of
//! each `.text` must equal llvm-objdump's, and every instruction must
//! re-encode to its bytes.

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a test failure

mod common;

use lathe_isa::{Decoder, Target};
use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};

#[test]
fn jax_code_objects_match_llvm_objdump() {
    let libs = lathe_testkit::jax_plugin_libs();
    if libs.is_empty() {
        assert!(
            !lathe_testkit::require_external(),
            "jax wheel missing: run scripts/setup.sh"
        );
        eprintln!("jax wheel not present; skipped");
        return;
    }
    let dir = lathe_testkit::cache_dir().join("isa-jax");
    std::fs::create_dir_all(&dir).unwrap();
    let mut seen = BTreeSet::new();
    let (mut objects, mut total, mut mismatches) = (0usize, 0usize, Vec::new());
    for lib in &libs {
        let data = std::fs::read(lib).unwrap();
        let Ok(walk) = lathe_bundle::walk(&data, &lathe_bundle::Limits::default()) else {
            continue;
        };
        for entry in walk.flatten() {
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
            if !seen.insert((target, key)) {
                continue;
            }
            let path = dir.join(format!("{key:016x}-{}.co", target.name()));
            if !path.exists() {
                std::fs::write(&path, bytes).unwrap();
            }
            objects += 1;
            let text = common::text_of(bytes);
            for (off, inst) in Decoder::new(target, &text.bytes) {
                total += 1;
                let end = (off + inst.len()).min(text.bytes.len());
                assert_eq!(
                    inst.encode(),
                    &text.bytes[off..end],
                    "{}: {inst:?}",
                    path.display()
                );
            }
            let ours = common::our_listing(target, &text);
            let theirs = common::objdump_listing(target, &path);
            for (a, b) in common::diff_listings(&ours, &theirs) {
                mismatches.push(format!(
                    "{} ({}):\n  ours:    {a}\n  objdump: {b}",
                    path.display(),
                    lib.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    eprintln!(
        "jax: {objects} code objects, {total} instructions, {} mismatching lines",
        mismatches.len()
    );
    for m in mismatches.iter().take(40) {
        eprintln!("{m}");
    }
    assert!(objects >= 2, "expected gfx90a and gfx942 code objects");
    assert!(
        mismatches.is_empty(),
        "{} mismatching lines",
        mismatches.len()
    );
}

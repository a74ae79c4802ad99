//! The GFX9, GFX10.1, GFX10.3, GFX11 and GFX12 code objects of the jax-rocm7-plugin wheel (CCOB
//! bundles in `.hip_fatbin`, extracted with lathe-bundle): our listing of
//! each `.text` must equal llvm-objdump's, and every instruction must
//! re-encode to its bytes.

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a test failure

mod common;

use lathe_isa::{Decoder, Target};

/// Floors: the pinned wheel (jax-rocm7-plugin 0.10.2) holds at least 4
/// distinct code objects for each of these targets; a run that found
/// fewer extracted or decoded less than the whole wheel.
const WHEEL_TARGETS: [Target; 27] = [
    Target::Gfx900,
    Target::Gfx906,
    Target::Gfx908,
    Target::Gfx90a,
    Target::Gfx90c,
    Target::Gfx942,
    Target::Gfx950,
    Target::Gfx1010,
    Target::Gfx1011,
    Target::Gfx1012,
    Target::Gfx1030,
    Target::Gfx1031,
    Target::Gfx1032,
    Target::Gfx1033,
    Target::Gfx1034,
    Target::Gfx1035,
    Target::Gfx1036,
    Target::Gfx1100,
    Target::Gfx1101,
    Target::Gfx1102,
    Target::Gfx1103,
    Target::Gfx1150,
    Target::Gfx1151,
    Target::Gfx1152,
    Target::Gfx1153,
    Target::Gfx1200,
    Target::Gfx1201,
];
const MIN_PER_TARGET: usize = 4;
const MIN_INSTRUCTIONS: usize = 280_000;

#[test]
fn jax_code_objects_match_llvm_objdump() {
    let objs = common::jax_code_objects();
    if objs.is_empty() {
        return; // absent wheel: common::jax_code_objects failed if required
    }
    let dir = lathe_testkit::cache_dir().join("isa-jax");
    std::fs::create_dir_all(&dir).unwrap();
    let (mut objects, mut total, mut mismatches) = (0usize, 0usize, Vec::new());
    let mut per_target = std::collections::BTreeMap::<Target, usize>::new();
    let mut insts = std::collections::BTreeMap::<Target, usize>::new();
    let mut bad = std::collections::BTreeMap::<Target, usize>::new();
    for o in &objs {
        let bytes = o.bytes.as_slice();
        // GFX10+: the wave size the kernels were compiled for.
        let target = common::with_kd_wave(o.target, bytes);
        // llvm-objdump reads a file; named by content so reruns reuse it.
        let path = dir.join(format!("{:016x}-{}.co", o.key, target.name()));
        lathe_testkit::write_cached(&path, bytes);
        objects += 1;
        *per_target.entry(target).or_default() += 1;
        let text = common::text_of(bytes);
        for (off, inst) in Decoder::new(target, &text.bytes) {
            total += 1;
            *insts.entry(target).or_default() += 1;
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
            *bad.entry(target).or_default() += 1;
            mismatches.push(format!(
                "{} ({}):\n  ours:    {a}\n  objdump: {b}",
                path.display(),
                o.lib
            ));
        }
    }
    eprintln!(
        "jax: {objects} code objects {per_target:?}, {total} instructions, {} mismatching lines",
        mismatches.len()
    );
    eprintln!("jax instructions per target: {insts:?}; mismatching lines: {bad:?}");
    for m in mismatches.iter().take(40) {
        eprintln!("{m}");
    }
    for t in WHEEL_TARGETS {
        // Either wave size counts for a GFX10+ processor.
        let n: usize = per_target
            .iter()
            .filter(|(u, _)| u.name() == t.name())
            .map(|(_, n)| n)
            .sum();
        assert!(
            n >= MIN_PER_TARGET,
            "expected at least {MIN_PER_TARGET} {t} code objects: {per_target:?}"
        );
    }
    assert!(
        total >= MIN_INSTRUCTIONS,
        "only {total} instructions compared (floor {MIN_INSTRUCTIONS})"
    );
    assert!(
        mismatches.is_empty(),
        "{} mismatching lines",
        mismatches.len()
    );
}

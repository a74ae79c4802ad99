//! Typed round trip on real code: every instruction of the corpus and of
//! the jax wheel's gfx90a/gfx942 code objects is rebuilt from its opcode,
//! its typed operands and its typed modifiers through the builder, and the
//! result must be the same words. This exercises the encoder for every
//! field the decoder reports (operands, acc bits, SDWA/DPP, offsets,
//! cache policy, ...), not just the stored raw words.

#![allow(clippy::unwrap_used)]

mod common;

use lathe_isa::{Decoder, Instruction, Target};
use lathe_testkit::{Build, Output};
use std::collections::BTreeMap;

fn check(target: Target, bytes: &[u8], what: &str, stats: &mut BTreeMap<String, usize>) {
    for (off, inst) in Decoder::new(target, bytes) {
        if inst.is_invalid() {
            continue;
        }
        let rebuilt = Instruction::build(target, inst.opcode())
            .modifiers(&inst.modifiers())
            .ops(&inst.operands())
            .and_then(|b| b.finish());
        match rebuilt {
            Ok(r) => assert_eq!(
                r.words(),
                inst.words(),
                "{what} at {off:#x}: {inst} rebuilt as {r}"
            ),
            Err(e) => panic!("{what} at {off:#x}: {inst:?} does not rebuild: {e}"),
        }
        *stats.entry(format!("{:?}", inst.encoding())).or_default() += 1;
    }
}

#[test]
fn rebuild_corpus_and_jax_from_typed_fields() {
    let mut stats = BTreeMap::new();
    let dir = lathe_testkit::workspace_root().join("corpus/hip");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".hip") && !n.contains("hipcc"))
        .collect();
    names.sort();
    for name in names {
        let src: &'static str = Box::leak(name.clone().into_boxed_str());
        for target in Target::ALL {
            for opt in ["-O0", "-O3"] {
                let mut b = Build::new(src, &[target.name()], Output::CodeObject);
                b.opt = opt;
                b.rdc = name.starts_with("rdc_") || name.starts_with("k_devlib");
                let text = common::read_text(&b.build());
                check(
                    target,
                    &text.bytes,
                    &format!("{name} {target} {opt}"),
                    &mut stats,
                );
            }
        }
    }
    // The wheel's code objects, extracted here (not from another test's
    // cache, so this test stands alone).
    for o in common::jax_code_objects() {
        let text = common::text_of(&o.bytes);
        let what = format!("{} {:016x} {}", o.lib, o.key, o.target);
        check(o.target, &text.bytes, &what, &mut stats);
    }
    let total: usize = stats.values().sum();
    eprintln!("rebuilt {total} instructions: {stats:?}");
    assert!(total > 100_000);
}

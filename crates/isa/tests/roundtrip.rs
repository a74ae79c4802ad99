//! Typed round trip on real code: every instruction of the corpus and of
//! the jax wheel's code objects (every supported target) is rebuilt from its opcode,
//! its typed operands and its typed modifiers through the builder, and the
//! result must be the same words. This exercises the encoder for every
//! field the decoder reports (operands, acc bits, SDWA/DPP, offsets,
//! cache policy, ...), not just the stored raw words.

#![allow(clippy::unwrap_used)]

mod common;

use lathe_isa::{Decoder, Instruction, Target};
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
    for b in common::corpus_builds() {
        let text = common::read_text(&b.path);
        let what = format!("{} {} {}", b.name, b.target, b.opt);
        check(b.target, &text.bytes, &what, &mut stats);
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

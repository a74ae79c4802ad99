//! Every opcode of the gfx90a, gfx942 and gfx950 tables has emulator
//! semantics, or
//! its description says why not (`Sem::Unsupported`: graphics-only, GDS,
//! trap-handler state, removed forks), or it is on the list of opcodes
//! still to do (`coverage_gaps.txt`). The list is a ratchet: an opcode
//! that gains semantics must leave it, so the test fails both when a new
//! opcode arrives without semantics and when the list is stale.

use std::collections::BTreeSet;

use lathe_isa::sem::{self, Sem};
use lathe_isa::{Opcode, Target};

const GAPS: &str = include_str!("coverage_gaps.txt");

#[test]
fn every_opcode_has_semantics_or_a_reason() {
    let listed: BTreeSet<&str> = GAPS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let mut missing = BTreeSet::new();
    // An opcode counts once for gfx90a/gfx942 and once more for gfx950,
    // where the 8-bit floats are OCP and the MFMA table differs.
    let mut seen = BTreeSet::new();
    let mut graphics = 0;
    let mut with = 0;
    for t in [Target::Gfx90a, Target::Gfx942, Target::Gfx950] {
        for op in Opcode::all_for(t) {
            if !seen.insert((op, t == Target::Gfx950)) {
                continue;
            }
            if lathe_emu::interp::has_semantics_on(op, t) {
                with += 1;
                continue;
            }
            match sem::of(op).sem {
                Sem::Unsupported(why) => {
                    assert!(!why.reason().is_empty());
                    graphics += 1;
                }
                _ => {
                    missing.insert(op.name());
                    let _ = t;
                }
            }
        }
    }
    let new: Vec<_> = missing.iter().filter(|n| !listed.contains(*n)).collect();
    let stale: Vec<_> = listed.iter().filter(|n| !missing.contains(*n)).collect();
    eprintln!(
        "opcode rows (gfx90a + gfx942 + gfx950): {with} with semantics, {graphics} unsupported with a \
         reason, {} still to do",
        missing.len()
    );
    assert!(
        new.is_empty(),
        "opcodes without semantics or a reason: {new:?}"
    );
    assert!(
        stale.is_empty(),
        "opcodes with semantics now: remove them from tests/coverage_gaps.txt: {stale:?}"
    );
}

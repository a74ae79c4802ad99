//! `lathe_dbi::verify::check` (used by the `dbi_sites` fuzzer and
//! `bench/dbi.py`) accepts what the rewriter makes of every corpus kernel,
//! with a counter before every instruction, and rejects an instrumented
//! code object in which one original instruction was altered, or checked without its address map.

use std::sync::Arc;

use lathe_cases::build;
use lathe_codeobj::CodeObject;
use lathe_dbi::rewrite::{
    instrument_lifted_with, CounterProbe, Instrumented, Options, Request, Selector, Where,
};
use lathe_dbi::{Liveness, Program};

fn every_instruction() -> Request {
    Request {
        select: Selector::default(),
        at: Where::Before,
        probe: Arc::new(CounterProbe { lanes: false }),
    }
}

/// `co` lifted, and instrumented with a counter before every instruction.
fn instrument(co: &[u8]) -> (Program, Instrumented) {
    let obj = CodeObject::parse(co).expect("parse");
    let p = Program::lift(&obj).expect("lift");
    let live = Liveness::compute(&p);
    let out = instrument_lifted_with(
        &obj,
        &p,
        &live,
        &[every_instruction()],
        &Options::lane_mode(false),
    )
    .expect("instrument");
    (p, out)
}

#[test]
fn accepts_every_corpus_kernel_and_rejects_an_altered_instruction() {
    let mut checked = 0;
    let mut flow = 0;
    for case in lathe_cases::all() {
        for opt in ["-O0", "-O3"] {
            let co = std::fs::read(build::linked_code_object(&case, "gfx90a", opt)).expect("co");
            let (p, out) = instrument(&co);
            let c = lathe_dbi::verify::check(&p, &out.code_object, &out.addr_map)
                .unwrap_or_else(|e| panic!("{} {opt}: {e}", case.name));
            let n: usize = p.functions.iter().map(|f| f.insts.len()).sum();
            assert_eq!(c.same_words + c.same_opcode, n, "{} {opt}", case.name);
            checked += n;
            flow += c.same_opcode;
            // Without the address map, no original instruction is found.
            let e = lathe_dbi::verify::check(&p, &out.code_object, &[]).expect_err("no map");
            assert!(e.contains("not in the instrumented code"), "{e}");
        }
    }
    assert!(checked > 10_000 && flow > 100, "{checked} {flow}");

    // Alter one original, non-branch instruction in the instrumented code:
    // the last word of saxpy's first VALU instruction.
    let case = lathe_cases::by_name("saxpy").expect("saxpy");
    let co = std::fs::read(build::linked_code_object(&case, "gfx90a", "-O3")).expect("co");
    let (p, out) = instrument(&co);
    let f = &p.functions[0];
    let victim = f
        .insts
        .iter()
        .find(|i| i.inst.to_string().starts_with("v_"))
        .expect("a VALU instruction");
    let new = out
        .addr_map
        .iter()
        .find(|&&(_, old)| old == victim.addr)
        .expect("mapped")
        .0;
    let mut bad = out.code_object.clone();
    let text = {
        let o = CodeObject::parse(&bad).expect("parse");
        *o.sections()
            .iter()
            .find(|s| s.address <= new && new < s.address + s.size && !s.name.is_empty())
            .expect("the section holding the new code")
    };
    let at = (new - text.address + text.offset) as usize;
    bad[at] ^= 1;
    let e = lathe_dbi::verify::check(&p, &bad, &out.addr_map).expect_err("altered");
    assert!(e.contains("became"), "{e}");
}

//! Register reuse checked statically on every gfx90a corpus kernel (-O0
//! and -O3; hipcc cases -O3): every tool, a counter before and after
//! every instruction, and random site selections, each in both register
//! modes (reserved SGPRs, and lane mode forced: SGPRs borrowed per site),
//! must leave every register live after its probe code unwritten or saved
//! first ([`lathe_dbi::verify_regs`], against the original program's
//! liveness). Nothing runs, so this covers every kernel in seconds; the
//! run-time checks are `random_sites.rs` and `stress.rs` (which also runs
//! this check on kernels with no register free).

use std::sync::Arc;

use lathe_cases::build;
use lathe_codeobj::CodeObject;
use lathe_dbi::rewrite::{
    instrument_lifted_with, CounterProbe, Options as RwOptions, Request, Selector, Where,
};
use lathe_dbi::tools::{self, requests_from_bytes, Tool};
use lathe_dbi::{verify_regs, Liveness, Program};

/// Requests for one run: `k` picks a tool, an every-instruction counter
/// (before or after) or random sites.
fn requests(k: usize, rng: &mut lathe_cases::Prng) -> (String, Vec<Request>) {
    let every = |at: Where| Request {
        select: Selector::default(),
        at,
        probe: Arc::new(CounterProbe { lanes: true }),
    };
    match k {
        0..5 => {
            let t = Tool::ALL[k];
            (
                t.name().to_string(),
                tools::requests(t, None, 64).expect("requests"),
            )
        }
        5 => (
            "before every instruction".into(),
            vec![every(Where::Before)],
        ),
        6 => ("after every instruction".into(), vec![every(Where::After)]),
        _ => {
            let bytes: Vec<u8> = (0..16).map(|_| rng.next_u32() as u8).collect();
            (format!("sites {bytes:02x?}"), requests_from_bytes(&bytes))
        }
    }
}

#[test]
fn probes_on_corpus_kernels_keep_live_registers_statically() {
    let mut rng = lathe_cases::Prng::new(0x0e65_7a71);
    let (mut outs, mut runs, mut saved, mut inserted) = (0, 0, 0, 0);
    let mut failed = Vec::new();
    for case in lathe_cases::all() {
        if !case.targets.contains(&"gfx90a") {
            continue;
        }
        let opts = case.opts();
        for &opt in opts {
            let co = std::fs::read(build::linked_code_object(&case, "gfx90a", opt)).expect("co");
            let obj = CodeObject::parse(&co).expect("parse");
            let p = Program::lift(&obj).expect("lift");
            let live = Liveness::compute(&p);
            for k in 0..12 {
                let (what, reqs) = requests(k, &mut rng);
                for lanes in [false, true] {
                    let label = format!("{} {opt} {what} lanes {lanes}", case.name);
                    let out = match instrument_lifted_with(
                        &obj,
                        &p,
                        &live,
                        &reqs,
                        &RwOptions::lane_mode(lanes),
                    ) {
                        Ok(o) => o,
                        Err(e) => {
                            failed.push(format!("{label}: {e}"));
                            continue;
                        }
                    };
                    outs += 1;
                    match verify_regs::check(&p, &live, &out.code_object, &out.addr_map) {
                        Ok(c) => {
                            runs += c.runs;
                            saved += c.saved;
                            inserted += c.inserted;
                        }
                        Err(e) => failed.push(format!("{label}: {e}")),
                    }
                }
            }
        }
    }
    eprintln!(
        "{outs} instrumented code objects, {runs} probe runs ({inserted} instructions), \
         {saved} saving a live register, {} failed",
        failed.len()
    );
    for f in failed.iter().take(20) {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty(), "{} failed", failed.len());
    assert!(runs > 1000 && saved > 0, "{runs} runs, {saved} saving");
}

//! The emulator verification corpus (`lathe-cases`): every case, built for
//! each of its targets at -O0 and -O3, runs on the emulator and its outputs
//! are checked against the case's CPU reference.
//!
//! Every run must match: a wrong result, a fault, an unsupported
//! instruction or any other stop fails the test. The same runs with every
//! sanitizer checker on must report nothing.

use lathe_emu::check::{CheckHook, Checker, Checks};
use lathe_emu::run::Options;

mod case_run;

use case_run::{run_case, Outcome};

#[test]
fn corpus_cases_match_their_cpu_references() {
    let mut passed = Vec::new();
    let mut unsupported = Vec::new();
    let mut failed = Vec::new();
    for case in lathe_cases::all() {
        for &target in case.targets {
            if !matches!(target, "gfx90a" | "gfx942") {
                continue;
            }
            let opts = case.opts();
            for &opt in opts {
                let label = format!("{} {target} {opt}", case.name);
                match run_case(&case, target, opt, &Options::default()) {
                    Outcome::Pass => passed.push((case.name, label)),
                    Outcome::Unsupported(i) => unsupported.push(format!("{label}: {i}")),
                    Outcome::Fail(e) => failed.push(format!("{label}: {e}")),
                }
            }
        }
    }
    eprintln!(
        "emulator corpus: {} runs passed, {} stopped at an unsupported instruction, {} failed",
        passed.len(),
        unsupported.len(),
        failed.len()
    );
    let mut full: Vec<&str> = passed.iter().map(|(n, _)| *n).collect();
    full.dedup();
    let full: Vec<&str> = full
        .into_iter()
        .filter(|n| {
            !unsupported
                .iter()
                .chain(&failed)
                .any(|x| x.starts_with(&format!("{n} ")))
        })
        .collect();
    eprintln!("cases passing on every target and level: {full:?}");
    for u in &unsupported {
        eprintln!("  unsupported: {u}");
    }
    for f in &failed {
        eprintln!("  FAILED: {f}");
    }
    assert!(
        failed.is_empty(),
        "{} run(s) gave wrong results or errors:\n{}",
        failed.len(),
        failed.join("\n")
    );
    assert!(
        unsupported.is_empty(),
        "{} run(s) stopped at unsupported instructions:\n{}",
        unsupported.len(),
        unsupported.join("\n")
    );
    assert_eq!(
        full.len(),
        lathe_cases::all().len(),
        "every case passes on every target and level: {full:?}"
    );
}

/// No false reports (issue 21): every case, built for gfx90a at -O3, runs
/// with all four checkers on (memcheck, initcheck, racecheck on LDS and on
/// global memory between work-groups, synccheck), still matches its CPU
/// reference, and nothing is reported.
#[test]
fn corpus_cases_get_no_report_under_every_checker() {
    let checker: &'static Checker = Box::leak(Box::new(Checker::new(Checks {
        memcheck: true,
        initcheck: true,
        synccheck: true,
        racecheck: true,
    })));
    let opts = Options {
        check: Some(CheckHook(checker)),
        ..Options::default()
    };
    let mut ran = 0;
    let mut failed = Vec::new();
    for case in lathe_cases::all() {
        if !case.targets.contains(&"gfx90a") {
            continue;
        }
        let outcome = run_case(&case, "gfx90a", "-O3", &opts);
        ran += 1;
        let (hits, dropped) = checker.take();
        match outcome {
            Outcome::Pass => {}
            Outcome::Unsupported(i) => failed.push(format!("{}: unsupported {i}", case.name)),
            Outcome::Fail(e) => failed.push(format!("{}: {e}", case.name)),
        }
        if !hits.is_empty() || dropped > 0 {
            let kinds: std::collections::BTreeSet<String> = hits
                .iter()
                .map(|h| {
                    format!(
                        "{} {} at {:#x}: {}",
                        h.v.kind.tool(),
                        h.v.kind.name(),
                        h.pc,
                        h.inst
                    )
                })
                .collect();
            failed.push(format!(
                "{}: {} findings ({dropped} more): {kinds:#?}",
                case.name,
                hits.len()
            ));
        }
    }
    eprintln!("corpus under --check all: {ran} cases run");
    assert!(ran > 0);
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

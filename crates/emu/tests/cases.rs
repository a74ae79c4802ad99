//! The emulator verification corpus (`lathe-cases`): every case, built for
//! each of its targets at -O0 and -O3, runs on the emulator and its outputs
//! are checked against the case's CPU reference.
//!
//! Every run must match: a wrong result, a fault, an unsupported
//! instruction or any other stop fails the test. The same runs with every
//! sanitizer checker on must report nothing.

use lathe_cases::{build, Case, Run, Value};
use lathe_emu::check::{CheckHook, Checker, Checks};
use lathe_emu::interp::Stop;
use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::{DispatchError, Options};
use lathe_emu::session::{Session, SessionError, Shape};

enum Outcome {
    Pass,
    Unsupported(String),
    Fail(String),
}

fn run_case(case: &Case, target: &'static str, opt: &'static str, opts: &Options) -> Outcome {
    let co = std::fs::read(build::linked_code_object(case, target, opt)).expect("code object");
    let session = match Session::load(target.parse().expect("target"), &[&co]) {
        Ok(s) => s,
        Err(e) => return Outcome::Fail(format!("load: {e}")),
    };
    let args: Vec<Arg> = case
        .args
        .iter()
        .map(|a| match &a.value {
            Value::Buffer { bytes, .. } => Arg::Buffer {
                name: a.name.into(),
                size: bytes.len() as u64,
                fill: Fill::Bytes(bytes.clone()),
                output: None,
            },
            v => {
                let (ty, bytes) = match v {
                    Value::U32(x) => ("u32", x.to_le_bytes().to_vec()),
                    Value::I32(x) => ("i32", x.to_le_bytes().to_vec()),
                    Value::U64(x) => ("u64", x.to_le_bytes().to_vec()),
                    Value::I64(x) => ("i64", x.to_le_bytes().to_vec()),
                    Value::F32(x) => ("f32", x.to_le_bytes().to_vec()),
                    Value::F64(x) => ("f64", x.to_le_bytes().to_vec()),
                    Value::Buffer { .. } => unreachable!("handled above"),
                };
                Arg::Scalar {
                    ty: ty.into(),
                    bytes,
                }
            }
        })
        .collect();
    let dims = if case.grid[2] > 1 || case.block[2] > 1 {
        3
    } else if case.grid[1] > 1 || case.block[1] > 1 {
        2
    } else {
        1
    };
    let shape = Shape {
        grid: case.grid,
        block: case.block,
        dims,
        dynamic_lds: case.dyn_lds,
    };
    let (_report, bufs) = match session.launch(case.kernel, shape, &args, opts) {
        Ok(r) => r,
        Err(SessionError::Dispatch(DispatchError::Stopped {
            stop: Stop::Unsupported { inst, .. },
            ..
        })) => return Outcome::Unsupported(inst),
        Err(e) => return Outcome::Fail(e.to_string()),
    };
    let mut outputs = Vec::new();
    for (a, b) in case
        .args
        .iter()
        .filter(|a| matches!(a.value, Value::Buffer { .. }))
        .zip(&bufs)
    {
        outputs.push((
            a.name.to_string(),
            session.download(b.addr, b.size).expect("read back"),
        ));
    }
    for g in &case.globals {
        let Some(sym) = session.exe.symbol(g.symbol) else {
            return Outcome::Fail(format!("global {} not found", g.symbol));
        };
        let mut addr = sym.address;
        if g.managed {
            let p = session.download(addr, 8).expect("pointer");
            addr = u64::from_le_bytes(p.try_into().expect("8"));
        }
        match session.download(addr, g.size as u64) {
            Ok(v) => outputs.push((g.symbol.to_string(), v)),
            Err(e) => return Outcome::Fail(format!("global {}: {e}", g.symbol)),
        }
    }
    match case.check(&Run::new(outputs)) {
        Ok(()) => Outcome::Pass,
        Err(e) => Outcome::Fail(e),
    }
}

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
            let opts: &[&'static str] = if case.hipcc {
                &["-O3"]
            } else {
                &["-O0", "-O3"]
            };
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

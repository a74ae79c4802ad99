//! The cases as data: well-formed, and every check is non-vacuous (the
//! reference passes, a run that changed nothing fails, and flipping a bit of
//! any output element fails). Runs without compiling anything.

use lathe_cases::{all, Case, Cmp, Run, Value};
use std::collections::BTreeSet;

fn flip(run: &Run, name: &str, byte: usize, bit: u32) -> Run {
    let mut r = run.clone();
    let buf = r.outputs.get_mut(name).expect("output present");
    buf[byte] ^= 1 << bit;
    r
}

#[test]
fn cases_are_well_formed() {
    let cases = all();
    let mut names = BTreeSet::new();
    for c in &cases {
        assert!(names.insert(c.name), "duplicate case {}", c.name);
        assert!(!c.targets.is_empty() && !c.sources.is_empty(), "{}", c.name);
        assert!(
            c.grid.iter().chain(&c.block).all(|&d| d > 0),
            "{}: zero dimension",
            c.name
        );
        assert!(
            c.block.iter().product::<u32>() <= 1024,
            "{}: workgroup too large",
            c.name
        );
        assert!(
            c.kernel.starts_with("_Z"),
            "{}: kernel {} is not a mangled name",
            c.name,
            c.kernel
        );
        assert!(!c.checked().is_empty(), "{}: nothing is checked", c.name);
        let exp = c.expected();
        for a in &c.args {
            if let Value::Buffer {
                bytes,
                output: Some(_),
            } = &a.value
            {
                assert_eq!(
                    exp[a.name].len(),
                    bytes.len(),
                    "{}: reference size of {}",
                    c.name,
                    a.name
                );
            }
        }
        for g in &c.globals {
            assert_eq!(
                exp[g.symbol].len(),
                g.size,
                "{}: reference size of {}",
                c.name,
                g.symbol
            );
        }
    }
    let kernels: BTreeSet<_> = cases.iter().map(|c| c.kernel).collect();
    assert!(
        kernels.len() >= 32,
        "only {} distinct kernels",
        kernels.len()
    );
}

#[test]
fn every_corpus_source_is_used() {
    let used: BTreeSet<&str> = all()
        .iter()
        .flat_map(|c| c.sources.iter().copied())
        .collect();
    let dir = lathe_testkit::workspace_root().join("corpus/hip");
    for e in std::fs::read_dir(dir).expect("corpus/hip") {
        let name = e
            .expect("dir entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.starts_with("k_") && name.ends_with(".hip") {
            assert!(used.contains(name.as_str()), "{name} has no case");
        }
    }
}

#[test]
fn references_pass_their_own_checks() {
    for c in all() {
        c.check(&c.reference_run())
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Every checked output must fail when the kernel did nothing: an output
/// whose expected value equals its initial contents (a wrapping counter
/// that wraps back to its fill, say) would pass without the kernel running.
#[test]
fn a_run_that_did_nothing_fails_every_output() {
    for c in all() {
        let e = c
            .check(&c.untouched_run())
            .expect_err(&format!("{}: untouched outputs pass", c.name));
        for (name, _) in c.checked() {
            assert!(
                e.contains(&format!(": {name}: ")) || e.contains(&format!("; {name}: ")),
                "{}: untouched {name} passes its check (expected value = initial value): {e}",
                c.name
            );
        }
    }
}

#[test]
fn a_missing_output_fails() {
    for c in all() {
        let mut run = c.reference_run();
        let first = c.checked()[0].0;
        run.outputs.remove(first);
        assert_eq!(
            c.check(&run).err(),
            Some(format!("case {}: {first}: missing from the run", c.name)),
            "{}",
            c.name
        );
    }
}

/// Flips bits of the first, middle and last 32-bit word of every output: a
/// high bit (bit 30: exponent of f32, far mantissa bit of f64, out of range
/// for tickets) must always fail; bit 0 must fail for exact outputs.
#[test]
fn corrupted_outputs_fail() {
    for c in all() {
        let good = c.reference_run();
        for (name, cmp) in c.checked() {
            let len = good.outputs[name].len();
            let words = len / 4;
            assert!(words > 0, "{}: {name} is empty", c.name);
            for w in [0, words / 2, words - 1] {
                let bad = flip(&good, name, 4 * w + 3, 6);
                let e = c.check(&bad).expect_err(&format!(
                    "{}: {name} word {w} bit 30 flipped passes",
                    c.name
                ));
                assert!(e.starts_with(&format!("case {}: {name}: ", c.name)), "{e}");
                if matches!(cmp, Cmp::Exact) {
                    let bad = flip(&good, name, 4 * w, 0);
                    let e = c
                        .check(&bad)
                        .expect_err(&format!("{}: {name} word {w} bit 0 flipped passes", c.name));
                    assert!(e.starts_with(&format!("case {}: {name}: ", c.name)), "{e}");
                }
            }
        }
    }
}

/// Moves element `idx` (of `size` bytes) of output `name` by one ulp.
fn nudge(run: &Run, name: &str, idx: usize, size: usize) -> Run {
    let mut r = run.clone();
    let b = &mut r.outputs.get_mut(name).expect("output")[idx * size..(idx + 1) * size];
    let mut x = [0u8; 8];
    x[..size].copy_from_slice(b);
    let v = u64::from_le_bytes(x);
    let mag = if size == 4 {
        0x7FFF_FFFF
    } else {
        u64::MAX >> 1
    };
    let v = if v & mag == 0 { v + 1 } else { v - 1 };
    b.copy_from_slice(&v.to_le_bytes()[..size]);
    r
}

/// The tolerant comparisons really tolerate a 1-ulp difference where their
/// bound allows it, and the exact columns next to them do not.
#[test]
fn tolerances_are_as_stated() {
    // (case, output, element, element size, passes)
    let probes = [
        ("math_f32", "out", 0, 4, true), // sinf, 3 ulp
        ("math_f32", "out", 8, 4, true), // sqrtf, 1 ulp
        ("math_f64", "out", 0, 8, true), // sin, 3 ulp
        ("f64_ops", "out", 2, 8, true),  // sqrt, 1 ulp
        ("f64_ops", "out", 0, 8, false), // fma, exact
        ("f64_ops", "out", 1, 8, false), // division, exact
        ("mfma_f32_16x16x4f32_random", "D", 0, 4, true),
        ("saxpy", "y", 0, 4, false),
    ];
    for (case, name, idx, size, passes) in probes {
        let c = lathe_cases::by_name(case).expect("case");
        let r = nudge(&c.reference_run(), name, idx, size);
        assert_eq!(
            c.check(&r).is_ok(),
            passes,
            "{case} {name}[{idx}] one ulp off"
        );
    }
}

#[test]
fn kernarg_offsets_use_natural_alignment() {
    let c: Case = lathe_cases::by_name("clamp_f32").expect("case");
    assert_eq!(c.kernarg_offsets(), vec![0, 8, 16, 20, 24]);
}

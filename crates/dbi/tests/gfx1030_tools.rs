//! Every built-in tool on the emulator corpus built by clang-22 for
//! gfx1030 (RDNA2) in wave32 and wave64 at -O0 and -O3, as `tools.rs`
//! does for gfx90a and gfx942 (D78): the instrumented run's outputs are
//! bit-identical to the uninstrumented run's, and every tool's counts
//! equal the emulator's ground truth. The cases that do not build for
//! gfx1030 are listed in `gfx1030_build::SKIP` with why and reported.

mod common;
mod gfx1030_build;
mod tools_check;

use tools_check::{check_co, Overhead};

/// (case, wave size, optimisation, tool, why) of the runs that are not
/// exact yet: the failure must start with `<tool>: ` and a listed run
/// that passes fails the test too (the list stays exact).
const KNOWN: &[(&str, u32, &str, &str, &str)] = &[];

#[test]
fn every_tool_on_every_clang_case_is_exact_on_gfx1030_wave32_and_wave64() {
    let (cases, skipped) = gfx1030_build::cases();
    let mut failed = Vec::new();
    let mut passed = 0;
    let mut overhead = Overhead::new();
    let mut known_seen = Vec::new();
    // For looking at a failure: one case (`LATHE_DBI_CASE`), or shard
    // `k/n` of the cases (`LATHE_DBI_SHARD`).
    let only = std::env::var("LATHE_DBI_CASE").ok();
    let shard: Option<(usize, usize)> = std::env::var("LATHE_DBI_SHARD").ok().and_then(|s| {
        let (k, n) = s.split_once('/')?;
        Some((k.parse().ok()?, n.parse().ok()?))
    });
    for (ci, c) in cases.iter().enumerate() {
        if only.as_deref().is_some_and(|o| o != c.name)
            || shard.is_some_and(|(k, n)| n > 0 && ci % n != k)
        {
            continue;
        }
        for wave in [32, 64] {
            for opt in ["-O0", "-O3"] {
                let co =
                    std::fs::read(gfx1030_build::code_object(c, opt, wave)).expect("code object");
                // For looking at a failure: the instrumented objects.
                if let Ok(dir) = std::env::var("LATHE_DBI_DUMP") {
                    for t in lathe_dbi::tools::Tool::ALL {
                        if let Ok(b) = lathe_dbi::tools::instrument(&co, t, None) {
                            let _ = std::fs::write(
                                format!("{dir}/{}-w{wave}{opt}-{}.co", c.name, t.name()),
                                &b.out.code_object,
                            );
                        }
                    }
                    let _ = std::fs::write(format!("{dir}/{}-w{wave}{opt}.co", c.name), &co);
                }
                let known = KNOWN
                    .iter()
                    .find(|k| k.0 == c.name && k.1 == wave && k.2 == opt);
                match (check_co(c, "gfx1030", &co, &mut overhead), known) {
                    (Ok(()), None) => passed += 1,
                    (Err(e), Some(k)) if e.starts_with(&format!("{}: ", k.3)) => {
                        known_seen
                            .push(format!("{} wave{wave} {opt}: {e} (known: {})", c.name, k.4));
                    }
                    (Ok(()), Some(_)) => failed.push(format!(
                        "{} wave{wave} {opt}: listed as known but exact",
                        c.name
                    )),
                    (Err(e), _) => failed.push(format!("{} wave{wave} {opt}: {e}", c.name)),
                }
            }
        }
    }
    eprintln!(
        "dbi tools on gfx1030: {passed} runs exact, {} failed; skipped (do not build): {}",
        failed.len(),
        skipped.join(", ")
    );
    for (k, (with, orig)) in &overhead {
        eprintln!(
            "  {k}: {with} wave-instructions, {orig} original ({:.2}x)",
            *with as f64 / (*orig).max(1) as f64
        );
    }
    for k in &known_seen {
        eprintln!("  known: {k}");
    }
    for f in &failed {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty(), "{} runs failed", failed.len());
    if only.is_none() && shard.is_none() {
        assert_eq!(known_seen.len(), KNOWN.len(), "a known run was not seen");
    }
    assert!(passed > 0);
}

/// The benchmark (not a test; `--ignored`): dynamic wave-instructions of
/// the instrumented run over the original's, per case, for the counting
/// tools and `mem-trace`, on gfx1030 wave32 and wave64 next to gfx90a for
/// the same case at -O3, as paired per-case ratios (gfx1030 over gfx90a):
/// median and spread (min, quartiles, max). The counts are the
/// emulator's, so the figures do not depend on the machine's load.
#[test]
#[ignore]
fn overhead_on_gfx1030_next_to_gfx90a() {
    use lathe_dbi::tools::Tool;
    use lathe_emu::run::Options;
    use lathe_emu::session::Session;
    let (cases, _) = gfx1030_build::cases();
    let opts = Options {
        threads: 1,
        ..Options::default()
    };
    let ro = lathe_dbi_run::builtin::RunOptions {
        record: false,
        force_lane_mode: false,
        trace_capacity: None,
    };
    // Instrumented over original wave-instructions, or None.
    let ratio = |c: &lathe_cases::Case, co: &[u8], target: &str, tool: Tool| -> Option<f64> {
        let agent: lathe_bundle::TargetId = target.parse().ok()?;
        let args = common::args_of(c);
        let shape = common::shape_of(c);
        let base = Session::load(agent, &[co]).ok()?;
        let (rep, _) = base.launch(c.kernel, shape, &args, &opts).ok()?;
        let (run, _) =
            lathe_dbi_run::builtin::run(agent, &[co], c.kernel, tool, shape, &args, &opts, &ro)
                .ok()?;
        Some(run.report.wave_instructions as f64 / rep.wave_instructions.max(1) as f64)
    };
    let stats = |mut v: Vec<f64>| -> String {
        if v.is_empty() {
            return "no cases".into();
        }
        v.sort_by(|a, b| a.total_cmp(b));
        let q = |f: f64| v[((v.len() - 1) as f64 * f).round() as usize];
        format!(
            "median {:.3} (min {:.3}, q1 {:.3}, q3 {:.3}, max {:.3}; {} cases)",
            q(0.5),
            q(0.0),
            q(0.25),
            q(0.75),
            q(1.0),
            v.len()
        )
    };
    for tool in [Tool::InstrCount, Tool::BlockCount, Tool::MemTrace] {
        let (mut r32, mut r64, mut r90, mut p32, mut p64) =
            (vec![], vec![], vec![], vec![], vec![]);
        for c in &cases {
            let mut g = c.clone();
            g.targets = &["gfx90a"];
            let co90 = std::fs::read(lathe_cases::build::linked_code_object(&g, "gfx90a", "-O3"))
                .expect("gfx90a code object");
            let co32 = std::fs::read(gfx1030_build::code_object(c, "-O3", 32)).expect("w32");
            let co64 = std::fs::read(gfx1030_build::code_object(c, "-O3", 64)).expect("w64");
            let (a, b, d) = (
                ratio(&g, &co90, "gfx90a", tool),
                ratio(c, &co32, "gfx1030", tool),
                ratio(c, &co64, "gfx1030", tool),
            );
            if let (Some(a), Some(b), Some(d)) = (a, b, d) {
                r90.push(a);
                r32.push(b);
                r64.push(d);
                p32.push(b / a);
                p64.push(d / a);
            }
        }
        eprintln!("{}: instrumented / original wave-instructions", tool.name());
        eprintln!("  gfx90a         {}", stats(r90));
        eprintln!("  gfx1030 wave32 {}", stats(r32));
        eprintln!("  gfx1030 wave64 {}", stats(r64));
        eprintln!("  paired wave32 / gfx90a {}", stats(p32));
        eprintln!("  paired wave64 / gfx90a {}", stats(p64));
    }
}

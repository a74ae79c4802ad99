//! Every built-in tool on the emulator corpus (`lathe-cases`), gfx90a and
//! gfx942 at -O0 and -O3: the instrumented run's outputs are bit-identical
//! to the uninstrumented run's (compared byte for byte, not through each
//! case's tolerance), the waitcnt check stays on (and clean), and
//! the tool's counts equal the emulator's ground truth (per-PC recording
//! of the uninstrumented run).

mod common;
mod tools_check;

use common::{args_of, outputs, shape_of};
use lathe_cases::build;
use lathe_dbi::tools::Tool;
use lathe_emu::run::Options;
use lathe_emu::session::Session;
use tools_check::{check, Overhead, BUFFER_CHECKED, SCRATCH_CHECKED, WAVES_CHECKED};

#[test]
fn every_tool_on_every_case_is_exact() {
    let filter = std::env::var("LATHE_DBI_CASE").ok();
    let mut failed = Vec::new();
    let mut passed = 0;
    let mut overhead = Overhead::new();
    for case in lathe_cases::all() {
        if filter.as_deref().is_some_and(|f| !case.name.contains(f)) {
            continue;
        }
        for &target in case.targets {
            if !matches!(target, "gfx90a" | "gfx942") {
                continue;
            }
            let opts = case.opts();
            for &opt in opts {
                match check(&case, target, opt, &mut overhead) {
                    Ok(()) => passed += 1,
                    Err(e) => failed.push(format!("{} {target} {opt}: {e}", case.name)),
                }
            }
        }
    }
    eprintln!(
        "dbi tools: {passed} runs exact with bit-identical outputs, {} failed",
        failed.len()
    );
    for (tool, (with, orig)) in &overhead {
        eprintln!(
            "  overhead {tool}: {with} / {orig} wave-instructions = {:.3}x",
            *with as f64 / (*orig).max(1) as f64
        );
    }
    let scratch = SCRATCH_CHECKED.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!(
        "  mem-trace: {scratch} SCRATCH lane accesses traced, each in the ground truth \
         (all of it where the ring did not fill)"
    );
    let buffer = BUFFER_CHECKED.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!("  mem-trace: {buffer} MUBUF lane accesses traced (the gfx90a stack)");
    let waves = WAVES_CHECKED.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!("  mem-trace: {waves} lane accesses with the emulator's work-group and wave");
    for f in &failed {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty(), "{} runs failed", failed.len());
    assert!(passed > 0);
    if filter.is_none() {
        assert!(scratch > 0, "no SCRATCH access was traced");
        assert!(buffer > 0, "no MUBUF access was traced");
        assert!(waves > 0, "no wave was checked");
    }
}

/// A ring too small for the run: it fills, every further record is
/// counted as dropped (reserved = written + dropped = the wave-executions
/// of traced instructions), what was written is in the ground truth, and
/// the kernel's outputs do not change.
#[test]
fn mem_trace_counts_drops_when_the_ring_is_full() {
    let case = lathe_cases::by_name("saxpy").expect("case");
    let co = std::fs::read(build::linked_code_object(&case, "gfx90a", "-O3")).expect("co");
    let agent: lathe_bundle::TargetId = "gfx90a".parse().expect("target");
    let opts = Options {
        threads: 1,
        ..Options::default()
    };
    let (args, shape) = (args_of(&case), shape_of(&case));
    let base = Session::load(agent, &[&co]).expect("load");
    let (_r, bufs) = base.launch(case.kernel, shape, &args, &opts).expect("run");
    let want = outputs(&base, &case, &bufs);
    let ro = lathe_dbi_run::builtin::RunOptions {
        record: true,
        force_lane_mode: false,
        trace_capacity: Some(3),
    };
    let (run, b) = lathe_dbi_run::builtin::run(
        agent,
        &[&co],
        case.kernel,
        Tool::MemTrace,
        shape,
        &args,
        &opts,
        &ro,
    )
    .expect("mem-trace run");
    assert_eq!(outputs(&run.session, &case, &run.buffers), want);
    let t = run.trace.as_ref().expect("trace");
    let gt = run.ground_truth.as_ref().expect("ground truth");
    let executions: u64 = b
        .sites
        .iter()
        .filter(|s| s.request == 1)
        .map(|s| gt.get(&s.pc).map_or(0, |c| c.waves))
        .sum();
    assert!(executions > 3);
    assert_eq!(t.records, 3);
    assert_eq!(t.reserved, executions);
    assert_eq!(t.dropped, executions - 3);
    let all: std::collections::BTreeSet<_> = run
        .ground_truth_accesses
        .clone()
        .expect("accesses")
        .into_iter()
        .collect();
    assert!(!t.events.is_empty());
    for e in &t.events {
        assert!(all.contains(&(e.pc, e.lane, e.addr)), "{e:?}");
    }
    let waves: std::collections::BTreeSet<_> = run
        .ground_truth_waves
        .clone()
        .expect("waves")
        .into_iter()
        .collect();
    for e in &t.events {
        assert!(
            waves.contains(&(e.pc, e.lane, e.addr, e.workgroup, e.wave)),
            "{e:?}"
        );
    }
    assert_eq!(run.result["dropped"], executions - 3);
}

/// A partial 2-D work-group of more than 64 items on GFX9 (D86):
/// `grid2d_stencil` in 16×16 groups, whose last column is 6×16 = 96
/// items, two wave64 waves packed by the group's real extents. Every tool
/// is exact, `mem-trace`'s wave index included, in code object v4 and v5
/// at -O0 (both read the extents from the dispatch packet) and v5 at -O3
/// (from the hidden block count and remainder arguments, filled as HIP's
/// runtime fills them: whole groups, and the partial group's size).
#[test]
fn mem_trace_waves_of_a_partial_2d_group_over_64_items_on_gfx90a() {
    let mut case = lathe_cases::by_name("grid2d_stencil").expect("case");
    case.block = [16, 16, 1];
    assert!(
        case.grid[0] % 16 * 16 > 64,
        "the partial group spans two waves"
    );
    let mut overhead = Overhead::new();
    let mut failed = Vec::new();
    for cov in ["-mcode-object-version=4", "-mcode-object-version=5"] {
        for opt in ["-O0", "-O3"] {
            let mut b = build::clang_build(case.sources[0], "gfx90a", opt, false);
            b.extra = vec![cov];
            let co = std::fs::read(b.build()).expect("code object");
            if let Err(e) = tools_check::check_co(&case, "gfx90a", &co, &mut overhead) {
                failed.push(format!("{cov} {opt}: {e}"));
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
    assert!(WAVES_CHECKED.load(std::sync::atomic::Ordering::Relaxed) > 0);
}

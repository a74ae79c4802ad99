//! GFX12 (gfx1201, RDNA4) on the emulator's real inputs (D85), through the
//! RDNA tests' shared module (`tests/rdna`):
//!
//! * the `lathe-cases` corpus's clang-22 cases built by clang-22 for
//!   gfx1201 in wave32 (the default) and wave64 (`-mwavefrontsize64`), at
//!   -O0 and -O3, each checked against its CPU reference. A run that does
//!   not pass must be listed (`rdna::gfx9_only_runs`) with why; a listed run that
//!   passes fails the test too, so the list is exact (nothing is skipped in
//!   silence);
//! * the wave32 cross-lane kernel (`ds_bpermute`, `ds_swizzle`, DPP row
//!   shifts, `v_readlane`, a ballot) against a CPU model of a 32-lane wave;
//! * VOPD words whose halves name each other's registers. (No true16
//!   test: clang-22 accepts no `.h`/`.l` operands for gfx1201 and emits
//!   its fake16 rows.)

use lathe_cases::{build, Case};
use std::path::PathBuf;

mod case_run;
mod rdna;

use rdna::{code_object_for, rate};

const DPP: &str = "does not build for GFX12: GFX9-only DPP controls (row_bcast, wave shifts)";
const MFMA: &str = "does not build: gfx1201 has no MFMA";

#[test]
fn corpus_cases_match_their_cpu_references_on_gfx1201_wave32_and_wave64() {
    rdna::corpus_matches_cpu_references("gfx1201", &rdna::gfx9_only_runs(DPP, MFMA));
}

#[test]
fn wave32_cross_lane_operations_match_a_32_lane_model() {
    rdna::wave32_cross_lane_matches_a_32_lane_model("gfx1201");
}

#[test]
fn vopd_halves_read_their_sources_before_either_writes() {
    rdna::vopd_halves_read_their_sources_before_either_writes("gfx1201");
}

/// Not a test: the emulator's rate on one case (`LATHE_RATE_CASE`, default
/// `collatz_steps`) in gfx1201 wave32 and wave64 next to gfx1100 (both
/// sizes) and gfx90a's general handlers (the tier RDNA waves run), paired
/// runs, one thread (`cargo test --profile ci -p lathe-emu --test
/// gfx1201_cases -- --ignored --nocapture rate`; `LATHE_RATE_RUNS`).
#[test]
#[ignore]
fn rate_gfx1201_next_to_gfx1100_and_gfx90a() {
    let name = std::env::var("LATHE_RATE_CASE").unwrap_or_else(|_| "collatz_steps".into());
    let runs: usize = std::env::var("LATHE_RATE_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let mut case = lathe_cases::all()
        .into_iter()
        .find(|c| c.name == name)
        .expect("case");
    case.targets = &["gfx90a"];
    let co90 = build::linked_code_object(&case, "gfx90a", "-O3");
    let c90 = case.clone();
    case.targets = &["gfx1100"];
    let c11 = case.clone();
    let co11: [PathBuf; 2] = [32, 64].map(|w| code_object_for(&c11, "gfx1100", "-O3", w));
    case.targets = &["gfx1201"];
    let c12: Case = case.clone();
    let co12: [PathBuf; 2] = [32, 64].map(|w| code_object_for(&c12, "gfx1201", "-O3", w));
    // Columns: gfx90a general handlers, gfx1100 wave32/wave64, gfx1201
    // wave32/wave64; one run of each per round, in that order.
    let labels = [
        "gfx90a general",
        "gfx1100 wave32",
        "gfx1100 wave64",
        "gfx1201 wave32",
        "gfx1201 wave64",
    ];
    let mut rows: Vec<[f64; 5]> = Vec::new();
    let mut n = [0u64; 5];
    for _ in 0..runs {
        let r = [
            rate(&c90, "gfx90a", &co90, false),
            rate(&c11, "gfx1100", &co11[0], true),
            rate(&c11, "gfx1100", &co11[1], true),
            rate(&c12, "gfx1201", &co12[0], true),
            rate(&c12, "gfx1201", &co12[1], true),
        ];
        n = r.map(|x| x.1);
        rows.push(r.map(|x| x.0));
    }
    rdna::report_rates(&name, &labels, &rows, &n, "gfx1100");
}

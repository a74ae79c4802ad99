//! GFX11 (gfx1100, RDNA3) on the emulator's real inputs (D77):
//!
//! * the `lathe-cases` corpus's clang-22 cases built by clang-22 for
//!   gfx1100 in wave32 (the default) and wave64 (`-mwavefrontsize64`), at
//!   -O0 and -O3, each checked against its CPU reference. A run that does
//!   not pass must be listed (`rdna::gfx9_only_runs`) with why; a listed run that
//!   passes fails the test too, so the list is exact (nothing is skipped in
//!   silence);
//! * cross-lane code written for wave32 (`rdna::WAVE32_XLANE`): a `__shfl_xor`
//!   butterfly through `ds_bpermute`, `ds_swizzle`, DPP row shifts,
//!   `v_readlane` and a ballot into one SGPR, against a CPU model of a
//!   32-lane wave.

use lathe_cases::{build, Case};
use std::path::PathBuf;

mod case_run;
mod rdna;

use rdna::{code_object_for, rate};

const DPP: &str = "does not build for GFX11: GFX9-only DPP controls (row_bcast, wave shifts)";
const MFMA: &str = "does not build: gfx1100 has no MFMA";

/// The case's code object for gfx1100 at `opt` and `wave` lanes per wave.
fn code_object(case: &Case, opt: &'static str, wave: u32) -> PathBuf {
    code_object_for(case, "gfx1100", opt, wave)
}

#[test]
fn corpus_cases_match_their_cpu_references_on_gfx1100_wave32_and_wave64() {
    rdna::corpus_matches_cpu_references("gfx1100", &rdna::gfx9_only_runs(DPP, MFMA));
}

#[test]
fn wave32_cross_lane_operations_match_a_32_lane_model() {
    rdna::wave32_cross_lane_matches_a_32_lane_model("gfx1100");
}

#[test]
fn vopd_halves_read_their_sources_before_either_writes() {
    rdna::vopd_halves_read_their_sources_before_either_writes("gfx1100");
}

#[test]
fn true16_operands_read_and_write_the_halves_they_name() {
    rdna::true16_operands_read_and_write_the_halves_they_name("gfx1100", "v_max_f16", "v_min_f16");
}

/// Not a test: the emulator's rate on one case in gfx1100 wave32 and
/// wave64 next to gfx1030 (both sizes) and gfx90a's general handlers (the
/// tier GFX10 and GFX11 waves run), paired runs (`cargo test --profile ci
/// -p lathe-emu --test gfx1100_cases -- --ignored --nocapture rate`;
/// `LATHE_RATE_CASE`, `LATHE_RATE_RUNS`).
#[test]
#[ignore]
fn rate_gfx1100_next_to_gfx1030_and_gfx90a() {
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
    case.targets = &["gfx1030"];
    let c10 = case.clone();
    let (co10_32, co10_64) = (
        code_object_for(&c10, "gfx1030", "-O3", 32),
        code_object_for(&c10, "gfx1030", "-O3", 64),
    );
    case.targets = &["gfx1100"];
    let (co11_32, co11_64) = (code_object(&case, "-O3", 32), code_object(&case, "-O3", 64));
    // Columns: gfx90a general handlers, gfx1030 wave32/wave64, gfx1100
    // wave32/wave64; one run of each per round, in that order.
    let labels = [
        "gfx90a general",
        "gfx1030 wave32",
        "gfx1030 wave64",
        "gfx1100 wave32",
        "gfx1100 wave64",
    ];
    let mut rows: Vec<[f64; 5]> = Vec::new();
    let mut n = [0u64; 5];
    for _ in 0..runs {
        let r = [
            rate(&c90, "gfx90a", &co90, false),
            rate(&c10, "gfx1030", &co10_32, true),
            rate(&c10, "gfx1030", &co10_64, true),
            rate(&case, "gfx1100", &co11_32, true),
            rate(&case, "gfx1100", &co11_64, true),
        ];
        n = r.map(|x| x.1);
        rows.push(r.map(|x| x.0));
    }
    rdna::report_rates(&name, &labels, &rows, &n, "gfx1030");
}

//! GFX10.3 (gfx1030, RDNA2) on the emulator's real inputs (D65):
//!
//! * the `lathe-cases` corpus's clang-22 cases built by clang-22 for
//!   gfx1030 in wave32 (the default) and wave64 (`-mwavefrontsize64`), at
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

const DPP: &str = "does not build for GFX10: GFX9-only DPP controls (row_bcast, wave shifts)";
const MFMA: &str = "does not build: gfx1030 has no MFMA";

/// The case's code object for gfx1030 at `opt` and `wave` lanes per wave.
fn code_object(case: &Case, opt: &'static str, wave: u32) -> PathBuf {
    code_object_for(case, "gfx1030", opt, wave)
}

#[test]
fn corpus_cases_match_their_cpu_references_on_gfx1030_wave32_and_wave64() {
    rdna::corpus_matches_cpu_references("gfx1030", &rdna::gfx9_only_runs(DPP, MFMA));
}

#[test]
fn wave32_cross_lane_operations_match_a_32_lane_model() {
    rdna::wave32_cross_lane_matches_a_32_lane_model("gfx1030");
}

/// Not a test: the emulator's rate on one case in gfx1030 wave32 and
/// wave64 next to gfx90a, paired runs (`cargo test --profile ci -p
/// lathe-emu --test gfx1030_cases -- --ignored --nocapture rate`).
#[test]
#[ignore]
fn rate_gfx1030_next_to_gfx90a() {
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
    let (co32, co64) = (code_object(&case, "-O3", 32), code_object(&case, "-O3", 64));
    // Columns: gfx90a with µops, gfx90a general handlers only (the tier
    // GFX10 waves run, D65), gfx1030 wave32, gfx1030 wave64.
    let mut rows: Vec<[f64; 4]> = Vec::new();
    let mut n = [0u64; 4];
    for _ in 0..runs {
        let (a, na) = rate(&c90, "gfx90a", &co90, true);
        let (g, ng) = rate(&c90, "gfx90a", &co90, false);
        let (b, nb) = rate(&case, "gfx1030", &co32, true);
        let (c, nc) = rate(&case, "gfx1030", &co64, true);
        n = [na, ng, nb, nc];
        rows.push([a, g, b, c]);
    }
    let stat = |k: usize, ratio: bool| {
        let mut v: Vec<f64> = rows
            .iter()
            .map(|r| if ratio { r[k] / r[1] } else { r[k] })
            .collect();
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[0], v[v.len() - 1])
    };
    eprintln!(
        "case {name}, {runs} paired runs, one thread; wave-instructions per run gfx90a {} / {} / wave32 {} / wave64 {}",
        n[0], n[1], n[2], n[3]
    );
    for (k, label) in [
        (0, "gfx90a µops"),
        (1, "gfx90a general"),
        (2, "gfx1030 wave32"),
        (3, "gfx1030 wave64"),
    ] {
        let (m, lo, hi) = stat(k, false);
        let (rm, rlo, rhi) = stat(k, true);
        eprintln!(
            "{label:16} {:8.1} M wave-instr/s (min {:.1}, max {:.1}); per run vs gfx90a general {rm:.2}x ({rlo:.2}-{rhi:.2})",
            m / 1e6,
            lo / 1e6,
            hi / 1e6
        );
    }
}

//! The `lathe-cases` clang-22 corpus built for gfx1030 (RDNA2) in wave32
//! (clang's default) and wave64 (`-mwavefrontsize64`), shared by the
//! gfx1030 dbi tests, and the cases that do not build for it.
#![allow(dead_code)]

use lathe_cases::{build, Case};
use std::path::PathBuf;

const MFMA: &str = "does not build: gfx1030 has no MFMA";
const DPP: &str = "does not build for GFX10: GFX9-only DPP controls (row_bcast, wave shifts)";

/// Cases skipped on gfx1030 in both wave sizes and why: the ones
/// `crates/emu/tests/gfx1030_cases.rs` lists as not building. (Its
/// wave32 `k_shfl` cases run; only their CPU references assume 64 lanes,
/// and the tools compare against the uninstrumented run, so they are
/// checked here.)
pub const SKIP: &[(&str, &str)] = &[
    ("dpp_scan_i32", DPP),
    ("dpp_patterns", DPP),
    ("dpp_row_scan_f32", DPP),
    ("mfma_f32_16x16x4f32", MFMA),
    ("mfma_f32_16x16x4f32_random", MFMA),
    ("mfma_f32_32x32x8f16", MFMA),
    ("mfma_f64_16x16x4f64", MFMA),
    ("mfma_i8", MFMA),
    ("mfma_bf16", MFMA),
];

/// The clang-22 cases for gfx1030 (targets rewritten), and the names of
/// those skipped. Panics when a [`SKIP`] entry names no case (the list
/// stays exact).
pub fn cases() -> (Vec<Case>, Vec<&'static str>) {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for case in lathe_cases::all() {
        if case.hipcc || !case.targets.contains(&"gfx942") {
            continue;
        }
        if SKIP.iter().any(|(n, _)| *n == case.name) {
            skipped.push(case.name);
            continue;
        }
        let mut c = case.clone();
        c.targets = &["gfx1030"];
        out.push(c);
    }
    for (n, why) in SKIP {
        assert!(
            skipped.contains(n),
            "{n} is listed as skipped ({why}) but is no clang-22 case"
        );
    }
    (out, skipped)
}

/// The case's code object for gfx1030 at `opt` and `wave` lanes per wave
/// (`lathe-cases`' build, shared with the emulator's tests).
pub fn code_object(case: &Case, opt: &'static str, wave: u32) -> PathBuf {
    build::linked_code_object_wave(case, "gfx1030", opt, wave)
}

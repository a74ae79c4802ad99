//! Random site selections on the emulator corpus built by clang-22 for
//! gfx1030 (RDNA2) in wave32 and wave64 at -O3, as `random_sites.rs` does
//! for gfx90a (D78): every run has sites, the instrumented kernel produces
//! bit-identical outputs with the waitcnt check on, and every site's
//! counters equal the emulator's recording of the same run.

mod common;
mod gfx1030_build;
mod random_sites_check;

use random_sites_check::{one_co, Stats};

#[test]
fn random_sites_keep_outputs_identical_on_gfx1030_wave32_and_wave64() {
    let (cases, skipped) = gfx1030_build::cases();
    let mut st = Stats::default();
    let mut rng = lathe_cases::Prng::new(0x1030_5173);
    // For looking at a failure: one case (`LATHE_DBI_CASE`), -O0
    // (`LATHE_DBI_O0`).
    let only = std::env::var("LATHE_DBI_CASE").ok();
    let opt = if std::env::var_os("LATHE_DBI_O0").is_some() {
        "-O0"
    } else {
        "-O3"
    };
    for c in &cases {
        if only.as_deref().is_some_and(|o| o != c.name) {
            continue;
        }
        for wave in [32, 64] {
            let co = std::fs::read(gfx1030_build::code_object(c, opt, wave)).expect("co");
            one_co(
                c,
                "gfx1030",
                &format!("wave{wave} {opt}"),
                &co,
                &mut rng,
                &mut st,
            );
        }
    }
    eprintln!(
        "gfx1030 random sites: {} runs, {} sites, {} counters equal to the ground truth, {} failed; skipped (do not build): {}",
        st.runs,
        st.sites,
        st.counters,
        st.failed.len(),
        skipped.join(", ")
    );
    for f in &st.failed {
        eprintln!("  {f}");
    }
    assert!(st.failed.is_empty());
    assert!(
        st.runs > 0 && st.counters >= st.sites,
        "{} runs, {} counters for {} sites",
        st.runs,
        st.counters,
        st.sites
    );
}

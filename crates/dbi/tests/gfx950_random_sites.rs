//! Random site selections on the emulator corpus built by clang-22 for
//! gfx950 (CDNA4) at -O3, as `random_sites.rs` does for gfx90a: every run
//! has sites, the instrumented kernel produces bit-identical outputs with
//! the waitcnt check on, and every site's counters equal the emulator's
//! recording of the same run.

mod common;
mod random_sites_check;

use random_sites_check::{one, Stats};

#[test]
fn random_sites_keep_outputs_identical_on_gfx950() {
    let mut st = Stats::default();
    let mut rng = lathe_cases::Prng::new(0x0950_5173);
    for case in lathe_cases::all() {
        if case.hipcc || !case.targets.contains(&"gfx942") {
            continue;
        }
        let mut c = case.clone();
        c.targets = &["gfx950"];
        one(&c, "gfx950", "-O3", &mut rng, &mut st);
    }
    eprintln!(
        "gfx950 random sites: {} runs, {} sites, {} counters equal to the ground truth, {} failed",
        st.runs,
        st.sites,
        st.counters,
        st.failed.len()
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

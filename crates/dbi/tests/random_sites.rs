//! Random site selections (the fuzz target's request generator, seeded
//! per case) on every corpus kernel, gfx90a -O0/-O3, in both register
//! modes: every run has sites (requests are drawn again until they
//! select some), the instrumented kernel must run with the waitcnt check
//! on and produce bit-identical outputs, and every site's counters must
//! equal the emulator's recording of the same run.

mod common;
mod random_sites_check;

use random_sites_check::{one, Stats};

#[test]
fn random_sites_keep_outputs_identical() {
    let mut st = Stats::default();
    let mut rng = lathe_cases::Prng::new(0x1a7e_0d61);
    for case in lathe_cases::all() {
        if !case.targets.contains(&"gfx90a") {
            continue;
        }
        let opts = case.opts();
        for &opt in opts {
            one(&case, "gfx90a", opt, &mut rng, &mut st);
        }
    }
    let Stats {
        runs,
        sites,
        counters,
        callee_sites,
        scc_sites,
        vcc_sites,
        failed,
    } = st;
    eprintln!(
        "random sites: {runs} runs, {sites} sites, {counters} counters equal to the ground truth, \
         {callee_sites} sites in device functions, {scc_sites} with SCC live, {vcc_sites} with VCC \
         live, {} failed",
        failed.len()
    );
    for f in &failed {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty());
    assert!(
        runs > 0 && counters >= sites,
        "{runs} runs, {counters} counters for {sites} sites"
    );
    assert!(callee_sites > 0, "no device-function site was exercised");
    assert!(
        scc_sites > 0 && vcc_sites > 0,
        "no site with SCC or VCC live"
    );
}

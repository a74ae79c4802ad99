//! Liveness on a wave32 kernel (D78): `dbi_divergent_write` built by
//! clang-22 for gfx1030 in wave32 uses `exec_lo` and `vcc_lo` as its lane
//! masks, so EXEC_HI and VCC_HI must never be live, while EXEC_LO is live
//! wherever a vector instruction follows and VCC_LO carries the branch
//! condition. The same source in wave64 (`-mwavefrontsize64`) keeps both
//! halves live together. A probe register picked from what the liveness
//! calls dead is therefore never a wave32 mask's only SGPR.

use lathe_codeobj::CodeObject;
use lathe_dbi::{Liveness, Program};
use lathe_isa::reg::sreg;
use lathe_testkit::{Build, Output};

const KERNEL: &str = "_Z19dbi_divergent_writePjPKjS1_";

/// (before-sets of every instruction of the kernel, its wave size).
fn live_sets(wave64: bool) -> (Vec<lathe_dbi::live::RegSet>, u32) {
    let mut b = Build::new("dbi_divergence.hip", &["gfx1030"], Output::CodeObject);
    if wave64 {
        b.extra = vec!["-mwavefrontsize64"];
    }
    let co = std::fs::read(b.build()).expect("code object");
    let obj = CodeObject::parse(&co).expect("parse");
    let p = Program::lift(&obj).expect("lift");
    let live = Liveness::compute(&p);
    let fi = p.function(KERNEL).expect("kernel");
    (live.functions[fi].before.clone(), p.target.wave_size())
}

#[test]
fn wave32_masks_are_one_sgpr_in_liveness() {
    let (sets, wave) = live_sets(false);
    assert_eq!(wave, 32, "gfx1030 code is lifted as wave32");
    let count = |r: u16| sets.iter().filter(|s| s.has_sreg(r)).count();
    let (exec_lo, exec_hi) = (count(sreg::EXEC_LO), count(sreg::EXEC_HI));
    let (vcc_lo, vcc_hi) = (count(sreg::VCC_LO), count(sreg::VCC_HI));
    eprintln!(
        "wave32: {} instructions; live before: exec_lo {exec_lo}, exec_hi {exec_hi}, vcc_lo {vcc_lo}, vcc_hi {vcc_hi}",
        sets.len()
    );
    assert!(exec_lo > 0 && vcc_lo > 0);
    assert_eq!(exec_hi, 0, "EXEC_HI live in a wave32 kernel");
    assert_eq!(vcc_hi, 0, "VCC_HI live in a wave32 kernel");
}

#[test]
fn wave64_masks_stay_pairs_in_liveness() {
    let (sets, wave) = live_sets(true);
    assert_eq!(wave, 64, "-mwavefrontsize64 code is lifted as wave64");
    for (i, s) in sets.iter().enumerate() {
        assert_eq!(
            s.has_sreg(sreg::EXEC_LO),
            s.has_sreg(sreg::EXEC_HI),
            "EXEC halves differ before instruction {i}"
        );
        assert_eq!(
            s.has_sreg(sreg::VCC_LO),
            s.has_sreg(sreg::VCC_HI),
            "VCC halves differ before instruction {i}"
        );
    }
    assert!(sets.iter().any(|s| s.has_sreg(sreg::VCC_HI)));
}

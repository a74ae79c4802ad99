//! Every built-in tool on the emulator corpus built by clang-22 for gfx950
//! (CDNA4) at -O0 and -O3, as `tools.rs` does for gfx90a and gfx942: the
//! instrumented run's outputs are bit-identical to the uninstrumented
//! run's, and every tool's counts equal the emulator's ground truth.
//! (Debian's hipcc has no gfx950 device library: the hipcc cases are not
//! built for it.)

mod common;
mod tools_check;

use tools_check::{check, Overhead};

#[test]
fn every_tool_on_every_clang_case_is_exact_on_gfx950() {
    let mut failed = Vec::new();
    let mut passed = 0;
    let mut overhead = Overhead::new();
    for case in lathe_cases::all() {
        if case.hipcc || !case.targets.contains(&"gfx942") {
            continue;
        }
        let mut c = case.clone();
        c.targets = &["gfx950"];
        for opt in ["-O0", "-O3"] {
            match check(&c, "gfx950", opt, &mut overhead) {
                Ok(()) => passed += 1,
                Err(e) => failed.push(format!("{} gfx950 {opt}: {e}", c.name)),
            }
        }
    }
    eprintln!(
        "dbi tools on gfx950: {passed} runs exact, {} failed",
        failed.len()
    );
    for f in &failed {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty(), "{} runs failed", failed.len());
    assert!(passed > 0);
}

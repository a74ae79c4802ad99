//! Every built-in tool on the emulator corpus built by clang-22 for
//! gfx1030 (RDNA2) in wave32 and wave64 at -O0 and -O3, as `tools.rs`
//! does for gfx90a and gfx942 (D78): the instrumented run's outputs are
//! bit-identical to the uninstrumented run's, and every tool's counts
//! equal the emulator's ground truth. The cases that do not build for
//! gfx1030 are listed in `gfx1030_build::SKIP` with why and reported.

mod common;
mod gfx1030_build;
mod tools_check;

use tools_check::{check_co, Overhead};

#[test]
fn every_tool_on_every_clang_case_is_exact_on_gfx1030_wave32_and_wave64() {
    let (cases, skipped) = gfx1030_build::cases();
    let mut failed = Vec::new();
    let mut passed = 0;
    let mut overhead = Overhead::new();
    let only = std::env::var("LATHE_DBI_CASE").ok();
    for c in &cases {
        if only.as_deref().is_some_and(|o| o != c.name) {
            continue;
        }
        for wave in [32, 64] {
            for opt in ["-O0", "-O3"] {
                let co =
                    std::fs::read(gfx1030_build::code_object(c, opt, wave)).expect("code object");
                // For looking at a failure: the instrumented objects.
                if let Ok(dir) = std::env::var("LATHE_DBI_DUMP") {
                    for t in lathe_dbi::tools::Tool::ALL {
                        if let Ok(b) = lathe_dbi::tools::instrument(&co, t, None) {
                            let _ = std::fs::write(
                                format!("{dir}/{}-w{wave}{opt}-{}.co", c.name, t.name()),
                                &b.out.code_object,
                            );
                        }
                    }
                    let _ = std::fs::write(format!("{dir}/{}-w{wave}{opt}.co", c.name), &co);
                }
                match check_co(c, "gfx1030", &co, &mut overhead) {
                    Ok(()) => passed += 1,
                    Err(e) => failed.push(format!("{} wave{wave} {opt}: {e}", c.name)),
                }
            }
        }
    }
    eprintln!(
        "dbi tools on gfx1030: {passed} runs exact, {} failed; skipped (do not build): {}",
        failed.len(),
        skipped.join(", ")
    );
    for (k, (with, orig)) in &overhead {
        eprintln!(
            "  {k}: {with} wave-instructions, {orig} original ({:.2}x)",
            *with as f64 / (*orig).max(1) as f64
        );
    }
    for f in &failed {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty(), "{} runs failed", failed.len());
    assert!(passed > 0);
}

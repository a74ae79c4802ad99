//! HIP hooks on gfx1030 (RDNA2) in wave32 and wave64 (D86), as `hooks.rs`
//! checks them on GFX9: the tool is compiled for the kernel code object's
//! wave size (`HipTool::load_for`: `-mwavefrontsize64` for a wave64
//! kernel), the instrumented run's outputs equal the uninstrumented run's
//! and the `instr-count` HIP tool's counts equal the emulator's ground
//! truth, with free SGPRs reserved and in lane mode.

mod common;
mod gfx1030_build;

use common::{args_of, outputs, shape_of};
use lathe_dbi::hook::HookError;
use lathe_dbi::manifest::HipTool;
use lathe_emu::run::Options;
use lathe_emu::session::Session;

fn opts() -> Options {
    Options {
        threads: 1,
        ..Options::default()
    }
}

fn example(name: &str) -> std::path::PathBuf {
    lathe_testkit::workspace_root()
        .join("examples/tools")
        .join(name)
}

#[test]
fn instr_count_hip_tool_is_exact_on_gfx1030_wave32_and_wave64() {
    let picks = [
        "saxpy",
        "collatz_steps",
        "divergent_mix",
        "grid3d_ids",
        "intdiv32",
        "block_reduce_i32",
    ];
    let (cases, _) = gfx1030_build::cases();
    let agent: lathe_bundle::TargetId = "gfx1030".parse().expect("target");
    let (mut done, mut failed) = (0, Vec::new());
    for case in cases.iter().filter(|c| picks.contains(&c.name)) {
        for wave in [32u32, 64] {
            let co = std::fs::read(gfx1030_build::code_object(case, "-O3", wave)).expect("co");
            for lanes in [false, true] {
                let what = format!(
                    "{} wave{wave}{}",
                    case.name,
                    if lanes { " (lane mode)" } else { "" }
                );
                let mut tool = HipTool::load_for(&example("instr-count"), &co)
                    .unwrap_or_else(|e| panic!("{what}: instr-count tool: {e}"));
                assert_eq!(tool.wave, wave, "{what}: the tool follows the kernel");
                tool.rewrite = lathe_dbi::rewrite::Options::lane_mode(lanes);
                let (args, shape) = (args_of(case), shape_of(case));
                let base = Session::load(agent, &[&co]).expect("load");
                let (_r, bufs) = base
                    .launch(case.kernel, shape, &args, &opts())
                    .expect("uninstrumented run");
                let want = outputs(&base, case, &bufs);
                let run = match lathe_dbi_run::hip::run(
                    agent,
                    &[&co],
                    case.kernel,
                    &tool,
                    shape,
                    &args,
                    &opts(),
                    true,
                ) {
                    Ok(r) => r,
                    Err(e) => {
                        failed.push(format!("{what}: {e}"));
                        continue;
                    }
                };
                if outputs(&run.session, case, &run.buffers) != want {
                    failed.push(format!("{what}: outputs differ"));
                    continue;
                }
                let gt = run.ground_truth.as_ref().expect("ground truth");
                let gw: u64 = gt.values().map(|c| c.waves).sum();
                let gl: u64 = gt.values().map(|c| c.lanes).sum();
                let got = run.result["wave_instructions"].as_u64().expect("u64");
                let tl = run.result["thread_instructions"].as_u64().expect("u64");
                assert!(gw > 0 && gl > 0, "{what}: empty ground truth");
                if (got, tl) != (gw, gl) {
                    failed.push(format!(
                        "{what}: {got} wave- and {tl} thread-instructions, ground truth {gw} and {gl}"
                    ));
                    continue;
                }
                done += 1;
            }
        }
    }
    for f in &failed {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty(), "{} failed", failed.len());
    assert_eq!(
        done,
        picks.len() * 4,
        "every pick in both wave sizes and modes"
    );
}

/// A tool built for wave32 (gfx1030's default) is refused on a wave64
/// kernel with a clear error, not run with the wrong lane masks.
#[test]
fn a_wave32_tool_is_refused_on_a_wave64_kernel() {
    let (cases, _) = gfx1030_build::cases();
    let case = cases.iter().find(|c| c.name == "saxpy").expect("saxpy");
    let co = std::fs::read(gfx1030_build::code_object(case, "-O3", 64)).expect("co");
    let tool = HipTool::load(&example("instr-count"), "gfx1030").expect("tool");
    assert_eq!(tool.wave, 32);
    match tool.instrument(&co, None) {
        Err(lathe_dbi::Error::Hook(HookError::WaveSize {
            tool: 32,
            kernel: 64,
        })) => {}
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("a wave32 tool instrumented a wave64 kernel"),
    }
}

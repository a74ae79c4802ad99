//! `lathe exec --target` with the RDNA agents (issue 23, D42): a HIP
//! program built by Debian's hipcc for gfx1030 starts through Debian's
//! HIP on the modelled RX 6800, sees its properties and runs its wave32
//! kernel on the emulator (D65), also instrumented by `--tool` with counts
//! equal to the emulator's ground truth (D86); a program without code for
//! the agent is refused before it starts.

use std::path::PathBuf;
use std::process::Command;

mod common;
use common::{have_hipcc, hip_build, tmpdir};

/// `tests/exec/rdna.hip` built by hipcc for gfx1030 only, once per run
/// (the tests run in parallel and would build it over each other).
fn rdna_app() -> PathBuf {
    static APP: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    APP.get_or_init(|| build_rdna_app("gfx1030")).clone()
}

fn build_rdna_app(arch: &str) -> PathBuf {
    let offload = format!("--offload-arch={arch}");
    hip_build(
        "lathe-exec-targets",
        "rdna",
        &format!("rdna-{arch}"),
        &["libhsa_runtime64.so", "liblathe_tool.so"],
        &[&offload, "-O2"],
    )
}

fn exec(tmp: &std::path::Path, target: &str, app: &PathBuf, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lathe"))
        .current_dir(tmp)
        .env_remove("LATHE_TARGET")
        .args(["exec", "--target", target, "--"])
        .arg(app)
        .args(args)
        .output()
        .expect("lathe exec")
}

#[test]
fn a_gfx1030_hip_program_sees_an_rx6800_and_its_kernel_runs() {
    if !have_hipcc() {
        return;
    }
    let tmp = tmpdir("exec-targets");
    let app = rdna_app();
    let o = exec(&tmp, "gfx1030", &app, &[]);
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{out}\n{err}");
    // AMD's RX 6800: 60 CUs, wave32, 64 KiB LDS per work-group, 4 MB L2.
    // HIP 5.2 counts work-group processors (2 CUs each) on GFX10+ in its
    // default WGP mode, as it does on the real card: 30 of the agent's 60.
    assert!(
        out.contains(
            "device: AMD Radeon RX 6800, gfx1030, 30 CUs, warp 32, 64 KiB LDS, 4096 KiB L2, 1024 threads per block"
        ),
        "{out}\n{err}"
    );
    // The kernel runs on the emulator's GFX10 wave32 rows (D65) and the
    // program checks its 1,000 results itself.
    let o = exec(&tmp, "gfx1030", &app, &["launch"]);
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(out.contains("device: AMD Radeon RX 6800"), "{out}\n{err}");
    assert!(out.contains("launch: ok"), "{out}\n{err}");
    assert!(o.status.success(), "{out}\n{err}");
}

#[test]
fn a_program_without_code_for_the_agent_is_refused_before_it_starts() {
    if !have_hipcc() {
        return;
    }
    let tmp = tmpdir("exec-targets-refused");
    let app = rdna_app();
    for (target, want) in [
        (
            "gfx90a",
            "holds GPU code for gfx1030 only; the modelled agent gfx90a:sramecc+:xnack- (--target gfx90a) needs code for gfx90a",
        ),
        (
            "gfx1100",
            "holds GPU code for gfx1030 only; the modelled agent gfx1100 (--target gfx1100) needs code for gfx1100 or gfx11-generic",
        ),
        ("gfx1030:xnack+", "does not support target feature"),
        ("gfx1031", "runtime models gfx90a (MI210), gfx942 (MI300X), gfx950 (MI355X), gfx1030 (RX 6800)"),
    ] {
        let o = exec(&tmp, target, &app, &[]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{target}: {err}");
        assert!(err.contains(want), "{target}: {err}");
        assert!(o.stdout.is_empty(), "{target}: the program ran");
        assert_eq!(err.lines().count(), 1, "{target}: one line: {err}");
    }
}

/// `lathe exec --target gfx1030 --tool instr-count` (D86): the wave32
/// kernel is instrumented at run time, the program's output is the
/// uninstrumented run's, and the counts equal the emulator's ground truth
/// of that run.
#[test]
fn instr_count_on_the_gfx1030_program_equals_the_ground_truth() {
    if !have_hipcc() {
        return;
    }
    let tmp = tmpdir("exec-targets-tool");
    let app = rdna_app();
    let gt = tmp.join("truth.json");
    let base = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .current_dir(&tmp)
        .env_remove("LATHE_TARGET")
        .env_remove("HSA_TOOLS_LIB")
        .env("LATHE_GROUND_TRUTH", &gt)
        .args(["exec", "--target", "gfx1030", "--"])
        .arg(&app)
        .arg("launch")
        .output()
        .expect("lathe exec");
    let base_out = String::from_utf8_lossy(&base.stdout).into_owned();
    assert!(
        base.status.success() && base_out.contains("launch: ok"),
        "{base_out}"
    );
    let truth: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&gt).expect("ground truth written")).expect("json");
    let out = tmp.join("tool.json");
    let o = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .current_dir(&tmp)
        .env_remove("LATHE_TARGET")
        .env_remove("HSA_TOOLS_LIB")
        .env_remove("LATHE_GROUND_TRUTH")
        .args([
            "exec",
            "--target",
            "gfx1030",
            "--tool",
            "instr-count",
            "--tool-out",
        ])
        .arg(&out)
        .arg("--")
        .arg(&app)
        .arg("launch")
        .output()
        .expect("lathe exec --tool");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), base_out, "{err}");
    let recs: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out).expect("--tool-out written")).expect("json");
    let (recs, truth) = (
        recs.as_array().expect("array"),
        truth.as_array().expect("array"),
    );
    assert_eq!(recs.len(), 1, "one launch");
    assert_eq!(truth.len(), 1, "one launch");
    assert_eq!(recs[0]["kernel"], truth[0]["kernel"]);
    assert_eq!(recs[0]["tool"]["name"], "instr-count");
    for k in ["wave_instructions", "thread_instructions"] {
        assert!(
            truth[0][k].as_u64().is_some_and(|n| n > 0),
            "{k}: {}",
            truth[0]
        );
        assert_eq!(recs[0]["tool"][k], truth[0][k], "{k}");
    }
}

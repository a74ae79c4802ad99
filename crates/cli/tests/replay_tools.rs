//! `lathe replay --tool` and `--check` (issue 22): a captured dispatch
//! replayed under a built-in lathe-dbi tool still matches the captured
//! after-state and counts what the captured run executed; the sanitizer's
//! checkers find LDS and barrier bugs in a replay, and nothing in a
//! correct kernel. Programs built here by Debian's hipcc.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::{have_hipcc, hip_app, hip_app_with, tmpdir};

fn capture(name: &str, prog: &Path, args: &[&str], opts: &[&str]) -> PathBuf {
    let dir = tmpdir(name);
    let o = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .arg("exec")
        .arg("--capture")
        .arg(&dir)
        .args(opts)
        .arg("--")
        .arg(prog)
        .args(args)
        .env_remove("HSA_TOOLS_LIB")
        .env_remove("LATHE_HSA_LIB")
        .output()
        .expect("run lathe exec");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("capture dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    assert_eq!(v.len(), 1, "{v:?}");
    v.remove(0)
}

/// `lathe --json replay CAPSULE EXTRA`: (exit ok, first JSON document,
/// all output).
fn replay(capsule: &Path, extra: &[&str]) -> (bool, Value, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .args(["--json", "replay"])
        .arg(capsule)
        .args(extra)
        .output()
        .expect("run lathe replay");
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let j = serde_json::Deserializer::from_str(&out)
        .into_iter::<Value>()
        .next()
        .and_then(Result::ok)
        .unwrap_or(Value::Null);
    (o.status.success(), j, out)
}

#[test]
fn a_replay_under_a_tool_matches_the_capture_and_counts_its_instructions() {
    if !have_hipcc() {
        return;
    }
    let app = hip_app("lathe-capture-test", "app", &["libhsa_runtime64.so"]);
    let c = capture(
        "replay-tool",
        &app,
        &["3000", "1", "0"],
        &["--launches", "0"],
    );
    let (ok, j, out) = replay(&c, &["--tool", "instr-count"]);
    assert!(ok, "{out}");
    assert_eq!(j["identical"], true, "{j}");
    let want = j["original"]["wave_instructions"].as_u64().expect("count");
    assert!(want > 0);
    // The probes' own instructions run too; the tool counts the kernel's.
    assert_eq!(j["tool"]["wave_instructions"].as_u64(), Some(want), "{j}");
    assert!(j["wave_instructions"].as_u64().unwrap_or(0) > want, "{j}");
    // kernarg sees the captured arguments: n = 3000.
    let (ok, j, out) = replay(&c, &["--tool", "kernarg"]);
    assert!(ok, "{out}");
    assert_eq!(j["identical"], true, "{j}");
    assert!(j["tool"].to_string().contains("3000"), "{j}");
    let (ok, _, out) = replay(&c, &["--tool", "no-such-tool"]);
    assert!(!ok);
    assert!(out.contains("unknown tool"), "{out}");
    let _ = std::fs::remove_dir_all(c.parent().expect("dir"));
}

#[test]
fn a_replay_under_the_checkers_finds_lds_and_barrier_bugs_and_nothing_in_a_correct_kernel() {
    if !have_hipcc() {
        return;
    }
    let prog = hip_app_with(
        "lathe-capture-test",
        "sanitize",
        &["libhsa_runtime64.so"],
        &["-g"],
    );
    let c = capture(
        "replay-lds",
        &prog,
        &["lds_uninit"],
        &["--kernels", "lds_unwritten"],
    );
    let (ok, j, out) = replay(&c, &["--check", "all"]);
    assert!(!ok, "{out}");
    assert_eq!(j["identical"], true, "{j}");
    let kinds: Vec<&str> = j["check"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["uninitialized-lds-read"], "{j}");
    assert!(out.contains("finding(s) in the replay"), "{out}");
    let _ = std::fs::remove_dir_all(c.parent().expect("dir"));

    let c = capture(
        "replay-sync",
        &prog,
        &["divergent"],
        &["--kernels", "divergent"],
    );
    let (ok, j, out) = replay(&c, &["--check", "synccheck"]);
    assert!(!ok, "{out}");
    let kinds: Vec<&str> = j["check"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"barrier-not-reached"), "{j}");
    let _ = std::fs::remove_dir_all(c.parent().expect("dir"));

    let c = capture("replay-ok", &prog, &["ok"], &["--launches", "0"]);
    let (ok, j, out) = replay(&c, &["--check", "all"]);
    assert!(ok, "{out}");
    assert_eq!(j["check"], Value::Array(vec![]), "{j}");
    assert_eq!(j["identical"], true, "{j}");
    let (ok, _, out) = replay(&c, &["--check", "nonsense"]);
    assert!(!ok);
    assert!(out.contains("unknown checker"), "{out}");
    let _ = std::fs::remove_dir_all(c.parent().expect("dir"));
}

/// A HIP tool directory (`examples/tools`), as `lathe exec --tool DIR`
/// takes it: the hooks' code object is loaded with the instrumented
/// kernel; memory still matches the capture, and the tool's counts equal
/// the emulator's own count of the captured run (instr-count) and the
/// captured packet's grid (griddim).
#[test]
fn a_replay_under_a_hip_tool_directory_matches_the_capture_and_reports_the_tools_counts() {
    if !have_hipcc() {
        return;
    }
    let example = |name: &str| {
        lathe_testkit::workspace_root()
            .join("examples/tools")
            .join(name)
            .display()
            .to_string()
    };
    let app = hip_app("lathe-capture-test", "app", &["libhsa_runtime64.so"]);
    let c = capture(
        "replay-hip-tool",
        &app,
        &["3000", "1", "0"],
        &["--launches", "0"],
    );
    let (ok, j, out) = replay(&c, &["--tool", &example("instr-count")]);
    assert!(ok, "{out}");
    assert_eq!(j["identical"], true, "{j}");
    let want = j["original"]["wave_instructions"].as_u64().expect("count");
    assert!(want > 0);
    assert_eq!(
        j["tool"]["report"]["wave_instructions"].as_u64(),
        Some(want),
        "{j}"
    );
    assert!(j["tool"]["sites"].as_u64() > Some(0), "{j}");
    // The hooks' own instructions run too.
    assert!(j["wave_instructions"].as_u64().unwrap_or(0) > want, "{j}");

    let (ok, j, out) = replay(&c, &["--tool", &example("griddim")]);
    assert!(ok, "{out}");
    assert_eq!(j["identical"], true, "{j}");
    let blocks: Vec<u64> = (0..3)
        .map(|i| {
            let g = j["grid"][i].as_u64().expect("grid");
            let b = j["block"][i].as_u64().expect("block");
            g.div_ceil(b)
        })
        .collect();
    let got: Vec<u64> = j["tool"]["report"]["grid_dim"]
        .as_array()
        .expect("grid_dim")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    assert_eq!(got, blocks, "{j}");

    // A directory without tool.json is an error naming it, not a panic.
    let empty = tmpdir("replay-hip-tool-empty");
    let (ok, _, out) = replay(&c, &["--tool", &empty.display().to_string()]);
    assert!(!ok);
    assert!(out.contains("tool.json"), "{out}");
    let _ = std::fs::remove_dir_all(&empty);
    let _ = std::fs::remove_dir_all(c.parent().expect("dir"));
}

//! `lathe run FILE --kernel K --tool PATH` with a tool written in HIP
//! (examples/tools/griddim) on the embedded demo library (gfx90a): the
//! report variables and line, outputs identical to the uninstrumented
//! run.

use std::path::Path;

mod common;

use common::{lathe_fails, lathe_ok};
use serde_json::Value;

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/demo/libdemo.so");

fn griddim() -> String {
    lathe_testkit::workspace_root()
        .join("examples/tools/griddim")
        .display()
        .to_string()
}

fn args(out: &Path, grid: &str) -> Vec<String> {
    vec![
        "--kernel".to_string(),
        "axpy".into(),
        "--grid".into(),
        grid.into(),
        "--block".into(),
        "256".into(),
        "-a".into(),
        format!("buf:y:4000:iota_f32:out={}", out.display()),
        "-a".into(),
        "buf:x:4000:f32:2".into(),
        "-a".into(),
        "f32:0.5".into(),
        "-a".into(),
        "i32:1000".into(),
    ]
}

#[test]
fn run_with_the_griddim_hip_tool() {
    let dir = common::tmpdir("run-hooks");
    let y0 = dir.join("y0.bin");
    let y1 = dir.join("y1.bin");
    let mut a0 = vec!["run".to_string(), DEMO.into()];
    a0.extend(args(&y0, "1000"));
    lathe_ok(&a0.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    let mut a1 = vec!["--json".to_string(), "run".into(), DEMO.into()];
    a1.extend(args(&y1, "1000"));
    a1.extend(["--tool".into(), griddim()]);
    let j: Value = serde_json::from_str(&lathe_ok(
        &a1.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
    ))
    .expect("json");
    // 1000 work-items in groups of 256: 4 groups, the last partial.
    assert_eq!(
        j["tool"]["report"]["grid_dim"],
        serde_json::json!([4, 1, 1])
    );
    assert_eq!(j["tool"]["line"], "GridDim (HIP): (4, 1, 1).");
    assert_eq!(j["sites"], 1);
    assert_eq!(
        std::fs::read(&y0).expect("y0"),
        std::fs::read(&y1).expect("y1"),
        "outputs differ from the uninstrumented run"
    );
    // Text mode prints the line; the manifest path works as well as the
    // directory.
    let mut a2 = vec!["run".to_string(), DEMO.into()];
    a2.extend(args(&y1, "700"));
    let manifest = format!("{}/tool.json", griddim());
    a2.extend(["--tool".into(), manifest]);
    let text = lathe_ok(&a2.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    assert!(text.contains("GridDim (HIP): (3, 1, 1)."), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_tool_directory_is_an_error() {
    let dir = common::tmpdir("run-hooks-missing");
    let y = dir.join("y.bin");
    let mut a = vec!["run".to_string(), DEMO.into()];
    a.extend(args(&y, "1000"));
    let missing = dir.join("no-such-tool/");
    a.extend(["--tool".into(), missing.display().to_string()]);
    let err = lathe_fails(&a.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    assert!(err.contains("tool.json"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hip_instr_count_equals_the_built_in_tool() {
    let dir = common::tmpdir("run-hooks-count");
    let y = dir.join("y.bin");
    let count = |tool: String| -> Value {
        let mut a = vec!["--json".to_string(), "run".into(), DEMO.into()];
        a.extend(args(&y, "1000"));
        a.extend(["--tool".into(), tool]);
        serde_json::from_str(&lathe_ok(&a.iter().map(|s| s.as_str()).collect::<Vec<_>>()))
            .expect("json")
    };
    let builtin = count("instr-count".into());
    let hip = count(
        lathe_testkit::workspace_root()
            .join("examples/tools/instr-count")
            .display()
            .to_string(),
    );
    let w = builtin["tool"]["wave_instructions"]
        .as_u64()
        .expect("built-in count");
    assert!(w > 0);
    assert_eq!(hip["tool"]["report"]["wave_instructions"].as_u64(), Some(w));
    assert_eq!(
        hip["tool"]["report"]["thread_instructions"],
        builtin["tool"]["thread_instructions"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

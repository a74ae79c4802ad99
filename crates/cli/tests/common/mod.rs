//! Running the `lathe` binary from the CLI tests (shared by the test files;
//! each uses part of it).
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

/// Runs `lathe ARGS`.
pub fn lathe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lathe"))
        .args(args)
        .output()
        .expect("run lathe")
}

/// Runs `lathe ARGS`, which must succeed; returns its stdout.
pub fn lathe_ok(args: &[&str]) -> String {
    let out = lathe(args);
    assert!(
        out.status.success(),
        "lathe {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Runs `lathe ARGS`, which must fail; returns stdout and stderr together.
pub fn lathe_fails(args: &[&str]) -> String {
    let out = lathe(args);
    assert!(!out.status.success(), "lathe {args:?} should fail");
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Runs `lathe --json ARGS`, which must succeed with valid JSON.
pub fn lathe_json(args: &[&str]) -> Value {
    let mut a = vec!["--json"];
    a.extend_from_slice(args);
    serde_json::from_str(&lathe_ok(&a)).expect("valid JSON")
}

/// A new empty directory under the test cache, unique to this process.
pub fn tmpdir(name: &str) -> PathBuf {
    let d = lathe_testkit::cache_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("mkdir");
    d
}

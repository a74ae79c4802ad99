//! The generated tables against the installed LLVM: the pinned LLVM
//! version in the banner must be the one the oracles run, and re-probing
//! LLVM must reproduce `src/generated/gfx9.rs` byte for byte (~3 minutes;
//! runs with `LATHE_REGEN_CHECK=1` or `LATHE_REQUIRE_EXTERNAL=1`, so
//! `scripts/test.sh` and CI always run it).

#![allow(clippy::unwrap_used)]

use std::process::Command;

const GENERATED: &str = include_str!("../src/generated/gfx9.rs");

fn llvm_version() -> String {
    let out =
        lathe_testkit::run_text(Command::new(lathe_testkit::llvm_tool("llvm-mc")).arg("--version"));
    let v = out
        .split("LLVM version ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap();
    v.to_string()
}

#[test]
fn banner_pins_the_installed_llvm() {
    let banner = GENERATED.lines().next().unwrap();
    let pinned = banner
        .split("from LLVM ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap();
    assert_eq!(
        pinned,
        llvm_version(),
        "tables were generated with another LLVM; run python3 crates/isa/gen/gen.py"
    );
}

#[test]
fn regenerating_reproduces_the_tables() {
    if std::env::var_os("LATHE_REGEN_CHECK").is_none() && !lathe_testkit::require_external() {
        eprintln!("set LATHE_REGEN_CHECK=1 to re-probe LLVM and diff the tables");
        return;
    }
    let gen = concat!(env!("CARGO_MANIFEST_DIR"), "/gen/gen.py");
    let out = Command::new("python3")
        .arg(gen)
        .arg("--check")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "generated tables differ from a fresh probe:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

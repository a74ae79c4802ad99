//! Shared by the runtime's integration tests: the built runtime under its
//! ROCr name, and programs built by Debian's hipcc / gcc.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `target/<profile>`, from the test executable (`target/<profile>/deps/…`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    exe.parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps")
        .to_path_buf()
}

/// The tests' output directory (`target/<profile>/lathe-hsa-test`),
/// created here so no test depends on another having made it.
pub fn out_dir() -> PathBuf {
    let dir = target_dir().join("lathe-hsa-test");
    std::fs::create_dir_all(&dir).expect("create the hsa test output directory");
    dir
}

/// A directory holding `libhsa-runtime64.so.1` → the freshly built runtime.
pub fn runtime_dir() -> PathBuf {
    let t = target_dir();
    let lib = t.join("libhsa_runtime64.so");
    assert!(
        lib.is_file(),
        "{} was not built: run `cargo test --workspace` or `cargo build -p lathe-hsa` with this profile first",
        lib.display()
    );
    assert_fresh(&lib);
    let dir = t.join("lathe-hsa-test");
    std::fs::create_dir_all(&dir).expect("create runtime dir");
    let link = dir.join("libhsa-runtime64.so.1");
    if std::fs::read_link(&link).ok().as_deref() != Some(lib.as_path()) {
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&lib, &link).expect("symlink runtime");
    }
    dir
}

/// Fails when a source file of the runtime or of a crate it is built from
/// is newer than the built library: `cargo test -p lathe-hsa` alone does not
/// rebuild a cdylib, and a stale one would test old code.
fn assert_fresh(lib: &Path) {
    let built = std::fs::metadata(lib)
        .and_then(|m| m.modified())
        .expect("library mtime");
    let crates = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("crates/")
        .to_path_buf();
    let mut stack: Vec<PathBuf> = ["hsa", "emu", "loader", "codeobj", "isa", "bundle"]
        .iter()
        .flat_map(|c| {
            [
                crates.join(c).join("src"),
                crates.join(c).join("Cargo.toml"),
            ]
        })
        .collect();
    while let Some(p) = stack.pop() {
        let Ok(m) = std::fs::metadata(&p) else {
            continue;
        };
        if m.is_dir() {
            if let Ok(rd) = std::fs::read_dir(&p) {
                stack.extend(rd.flatten().map(|e| e.path()));
            }
        } else if m.modified().is_ok_and(|t| t > built) {
            panic!(
                "{} is newer than {}: rebuild the runtime (`cargo build -p lathe-hsa` with this profile, or `cargo test --workspace`)",
                p.display(),
                lib.display()
            );
        }
    }
}

/// Whether a tool exists; a missing one is a failure under
/// `LATHE_REQUIRE_EXTERNAL=1`, else the test is skipped (with a note).
pub fn have(tool: &str) -> bool {
    let ok = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(tool).is_file()));
    if !ok {
        assert!(
            !lathe_testkit::require_external(),
            "{tool} is required (LATHE_REQUIRE_EXTERNAL=1); run scripts/setup.sh"
        );
        eprintln!("skipped: {tool} not installed (scripts/setup.sh installs it)");
    }
    ok
}

/// Source directory of the test programs.
pub fn src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name)
}

fn bin_dir() -> PathBuf {
    let d = out_dir().join("bin");
    std::fs::create_dir_all(&d).expect("create test bin dir");
    d
}

fn run_build(mut cmd: Command, what: &str) {
    let o = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        o.status.success(),
        "{what} failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Builds `tests/hip/NAME.hip` with `hipcc --offload-arch=gfx90a`.
pub fn hipcc(name: &str, extra: &[&str]) -> PathBuf {
    let out = bin_dir().join(format!(
        "{name}{}",
        extra.join("").replace(['-', '/', '.'], "_")
    ));
    let mut cmd = Command::new("hipcc");
    cmd.args(["--offload-arch=gfx90a", "-O2", "-o"])
        .arg(&out)
        .arg(src(&format!("hip/{name}.hip")))
        .args(extra);
    run_build(cmd, &format!("hipcc {name}"));
    out
}

/// Builds `tests/c/NAME.c` with gcc against Debian's HSA headers.
pub fn gcc(name: &str, extra: &[&str]) -> PathBuf {
    let out = bin_dir().join(name);
    lathe_testkit::gcc_hsa_program(&src(&format!("c/{name}.c")), &out, &runtime_dir(), extra);
    out
}

/// Runs a program with the runtime first on `LD_LIBRARY_PATH`.
pub fn run(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .env("LD_LIBRARY_PATH", runtime_dir())
        .env_remove("LATHE_TRACE")
        .env_remove("HSA_TOOLS_LIB");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output()
        .unwrap_or_else(|e| panic!("run {}: {e}", exe.display()))
}

/// Asserts a clean exit and the program's `NAME: ok` line.
pub fn assert_ok(o: &Output, name: &str) {
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && stdout.contains(&format!("{name}: ok")),
        "{name}: status {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        o.status
    );
}

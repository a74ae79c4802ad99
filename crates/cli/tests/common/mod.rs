//! Running the `lathe` binary from the CLI tests (shared by the test files;
//! each uses part of it).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
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

/// `target/<profile>`, from the test executable (`target/<profile>/deps/…`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    exe.parent()
        .and_then(std::path::Path::parent)
        .expect("target/<profile>/deps")
        .to_path_buf()
}

/// Whether hipcc exists; missing is a failure under
/// `LATHE_REQUIRE_EXTERNAL=1`, else the test is skipped with a note.
pub fn have_hipcc() -> bool {
    let ok = Command::new("sh")
        .args(["-c", "command -v hipcc"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            !lathe_testkit::require_external(),
            "hipcc is required (LATHE_REQUIRE_EXTERNAL=1); run scripts/setup.sh"
        );
        eprintln!("skipped: hipcc not installed (scripts/setup.sh installs it)");
    }
    ok
}

/// Builds `tests/exec/NAME.hip` with Debian's hipcc for gfx90a into
/// `target/<profile>/DIR/NAME`, after checking that the cdylibs `lathe exec`
/// loads (`libs`) are built (the workspace build makes them; `cargo test`
/// alone does not).
pub fn hip_app(dir: &str, name: &str, libs: &[&str]) -> PathBuf {
    hip_app_with(dir, name, libs, &[])
}

/// [`hip_app`] with more hipcc arguments (`-g`).
pub fn hip_app_with(dir: &str, name: &str, libs: &[&str], extra: &[&str]) -> PathBuf {
    let mut args = vec!["--offload-arch=gfx90a", "-O2"];
    args.extend_from_slice(extra);
    hip_build(dir, name, name, libs, &args)
}

/// Builds `tests/exec/NAME.hip` with Debian's hipcc and exactly `args`
/// (which name the `--offload-arch`) into `target/<profile>/DIR/OUT`,
/// after checking that the cdylibs `libs` are built.
pub fn hip_build(dir: &str, name: &str, out: &str, libs: &[&str], args: &[&str]) -> PathBuf {
    for lib in libs {
        let p = target_dir().join(lib);
        assert!(
            p.is_file(),
            "{} is not built: run `cargo build --workspace` with this profile first (scripts/test.sh does)",
            p.display()
        );
    }
    let dir = target_dir().join(dir);
    std::fs::create_dir_all(&dir).expect("create test dir");
    let out = dir.join(out);
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/exec")
        .join(format!("{name}.hip"));
    // Built under a name of its own and renamed into place: tests running
    // in parallel may build the same program while another runs it (writing
    // over a running executable fails with ETXTBSY; a rename does not).
    static BUILDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!("{name}.{}.{n}.tmp", std::process::id()));
    let o = Command::new("hipcc")
        .args(args)
        .arg("-o")
        .arg(&tmp)
        .arg(&src)
        .output()
        .expect("run hipcc");
    assert!(
        o.status.success(),
        "hipcc {name}.hip failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::rename(&tmp, &out).expect("rename the built program into place");
    out
}

/// Runs `lathe exec --timeout 120 --threads THREADS -- APP ARGS` with no
/// tracing or timeout from the environment; asserts it succeeded and
/// returns its standard output and the host time it took, in ms.
pub fn exec_app(app: &std::path::Path, threads: u32, args: &[String]) -> (String, f64) {
    let t = std::time::Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .env_remove("LATHE_TRACE")
        .env_remove("LATHE_TIMEOUT")
        .args([
            "exec",
            "--timeout",
            "120",
            "--threads",
            &threads.to_string(),
            "--",
        ])
        .arg(app)
        .args(args)
        .output()
        .expect("run lathe exec");
    let host_ms = t.elapsed().as_secs_f64() * 1e3;
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "lathe exec failed: {err}\n{out}");
    (out, host_ms)
}

/// Kernel name → clang's occupancy, from the remarks of
/// `-Rpass-analysis=kernel-resource-usage` (clang's standard error).
pub fn occupancy_remarks(text: &str) -> std::collections::BTreeMap<String, u64> {
    let mut v = std::collections::BTreeMap::new();
    let mut name = None;
    for l in text.lines().filter(|l| l.contains("remark:")) {
        if let Some(n) = l.split("Function Name: ").nth(1) {
            name = n.split_whitespace().next().map(str::to_string);
        }
        if let Some(x) = l.split("Occupancy [waves/SIMD]: ").nth(1) {
            let n: u64 = x
                .split_whitespace()
                .next()
                .and_then(|x| x.parse().ok())
                .expect("occupancy number");
            v.insert(name.take().expect("name before occupancy"), n);
        }
    }
    v
}

/// Collapses whitespace runs and drops empty lines, as the issue's
/// comparison with llvm-objdump does.
pub fn squash(s: &str) -> Vec<String> {
    s.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect()
}

/// `lathe disasm --format llvm` of the code object `co`, and llvm-objdump
/// 22's listing of it for `mcpu` with `mattr` (both [`squash`]ed;
/// llvm-objdump's file and section headers, before the first symbol
/// label, left out): `(ours, theirs)`.
pub fn listings(co: &Path, mcpu: &str, mattr: &[&str]) -> (Vec<String>, Vec<String>) {
    let ours = lathe_ok(&["disasm", co.to_str().expect("path"), "--format", "llvm"]);
    let theirs = lathe_testkit::run_text(
        Command::new(lathe_testkit::llvm_tool("llvm-objdump"))
            .args(["-d", "--no-show-raw-insn", "--no-leading-addr"])
            .arg(format!("--mcpu={mcpu}"))
            .args(mattr)
            .arg(co),
    );
    let theirs = squash(&theirs)
        .into_iter()
        .skip_while(|l| !l.ends_with(">:"))
        .collect();
    (squash(&ours), theirs)
}

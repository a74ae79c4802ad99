//! `lathe exec --check` (issue 21) on a real HIP program built by hipcc
//! with `-g` (tests/exec/sanitize.hip): each bug is found by the right
//! checker, at the line marked `BUG: MODE` in the source, with the right
//! blockIdx and threadIdx; the correct mode and the project's other HIP
//! test programs get no report; bad arguments are refused clearly.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod common;
use common::{have_hipcc, hip_app, hip_app_with, target_dir};

const LIBS: &[&str] = &["libhsa_runtime64.so"];

/// The program built with -g, once per test process (the tests run in
/// parallel and must not rewrite a running executable).
fn app() -> PathBuf {
    static APP: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    APP.get_or_init(|| hip_app_with("lathe-exec-check-test", "sanitize", LIBS, &["-g"]))
        .clone()
}

/// The line of `BUG: MODE` in the source.
fn bug_line(mode: &str) -> u64 {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/exec/sanitize.hip");
    let text = std::fs::read_to_string(src).expect("read source");
    let mark = format!("BUG: {mode}");
    let i = text
        .lines()
        .position(|l| l.trim_end().ends_with(&mark))
        .expect("marked line");
    i as u64 + 1
}

fn exec(args: &[&str], prog: &Path, prog_args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lathe"))
        .arg("exec")
        .args(args)
        .arg("--")
        .arg(prog)
        .args(prog_args)
        .output()
        .expect("run lathe exec")
}

/// Runs MODE under `--check all`; returns the reports, the
/// exit status and stderr.
fn checked(prog: &Path, mode: &str) -> (Vec<Value>, Option<i32>, String) {
    let dir = target_dir().join("lathe-exec-check-test");
    let json = dir.join(format!("{mode}.json"));
    let o = exec(
        &[
            "--check",
            "all",
            "--check-json",
            json.to_str().expect("utf-8"),
        ],
        prog,
        &[mode],
    );
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let text = std::fs::read_to_string(&json).expect("--check-json written");
    let v: Value = serde_json::from_str(&text).expect("JSON array");
    (v.as_array().expect("array").clone(), o.status.code(), err)
}

/// The one report of MODE: tool, kind, line, block, thread.
fn expect_one(
    prog: &Path,
    mode: &str,
    tool: &str,
    kind: &str,
    block: [u64; 3],
    thread: [u64; 3],
) -> Value {
    let (reports, code, err) = checked(prog, mode);
    assert_eq!(
        reports.len(),
        1,
        "{mode}: one folded report expected, got {reports:#?}\n{err}"
    );
    let r = &reports[0];
    assert_eq!(r["tool"], tool, "{mode}: {r:#}");
    assert_eq!(r["kind"], kind, "{mode}: {r:#}");
    // The line in the program: the innermost frame, or the frame an
    // inlined HIP header function (`__syncthreads`) was inlined into.
    let frames = r["frames"].as_array().expect("frames");
    let at = frames
        .iter()
        .find(|f| {
            f["file"]
                .as_str()
                .is_some_and(|f| f.ends_with("sanitize.hip"))
        })
        .unwrap_or_else(|| panic!("{mode}: no frame in sanitize.hip: {r:#}"));
    assert_eq!(
        at["line"].as_u64(),
        Some(bug_line(mode)),
        "{mode}: wrong line: {r:#}\n{err}"
    );
    let arr = |v: &Value| -> Vec<u64> {
        v.as_array()
            .expect("array")
            .iter()
            .map(|x| x.as_u64().expect("n"))
            .collect()
    };
    assert_eq!(arr(&r["workgroup"]), block, "{mode}: blockIdx: {r:#}");
    assert_eq!(arr(&r["thread"]), thread, "{mode}: threadIdx: {r:#}");
    assert_eq!(code, Some(66), "{mode}: exit status with findings\n{err}");
    assert!(
        err.contains(&format!("========= {tool}: 1 error")),
        "{mode}: summary:\n{err}"
    );
    assert!(
        err.contains(&format!("sanitize.hip:{}:", bug_line(mode))),
        "{mode}: text report with file:line:\n{err}"
    );
    r.clone()
}

#[test]
fn each_bug_is_found_by_its_checker_at_its_line_and_thread() {
    if !have_hipcc() {
        return;
    }
    let prog = app();
    // 4 floats past a 4,000-byte hipMalloc: threads 1000..1003, i.e.
    // block 3, threads 232..235; the first is reported, 4 counted.
    let r = expect_one(
        &prog,
        "oob",
        "memcheck",
        "out-of-bounds",
        [3, 0, 0],
        [232, 0, 0],
    );
    assert_eq!(r["count"], 4, "{r:#}");
    assert_eq!(r["allocation_size"], 4000, "{r:#}");
    assert_eq!(
        r["past_end"], 4,
        "the first access ends 4 bytes past the end: {r:#}"
    );
    assert_eq!(r["access"], "write");
    // An off-by-one in the last block, inside the same 4 KiB page.
    let r = expect_one(
        &prog,
        "page",
        "memcheck",
        "out-of-bounds",
        [3, 0, 0],
        [232, 0, 0],
    );
    assert_eq!(r["count"], 1, "{r:#}");
    // A store after hipFree: reported, and the run goes on.
    let r = expect_one(
        &prog,
        "uaf",
        "memcheck",
        "use-after-free",
        [0, 0, 0],
        [0, 0, 0],
    );
    assert_eq!(r["count"], 64, "{r:#}");
    // A read of a buffer nothing wrote.
    let r = expect_one(
        &prog,
        "uninit",
        "initcheck",
        "uninitialized-global-read",
        [0, 0, 0],
        [0, 0, 0],
    );
    assert_eq!(r["count"], 64, "{r:#}");
    // A read of shared memory only threads 0..63 wrote: threads 64..127.
    let r = expect_one(
        &prog,
        "lds_uninit",
        "initcheck",
        "uninitialized-lds-read",
        [0, 0, 0],
        [64, 0, 0],
    );
    assert_eq!(r["count"], 64, "{r:#}");
    // A barrier waves 2 and 3 never reach: reported at the barrier, for
    // the first waiting wave.
    let r = expect_one(
        &prog,
        "divergent",
        "synccheck",
        "barrier-not-reached",
        [0, 0, 0],
        [0, 0, 0],
    );
    assert_eq!(r["address"], 2, "the wave that ended: {r:#}");
}

#[test]
fn correct_programs_get_no_report() {
    if !have_hipcc() {
        return;
    }
    let prog = app();
    let (reports, code, err) = checked(&prog, "ok");
    assert!(reports.is_empty(), "{reports:#?}\n{err}");
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("========= memcheck: 0 errors"), "{err}");
    assert!(err.contains("========= initcheck: 0 errors"), "{err}");
    assert!(err.contains("========= synccheck: 0 errors"), "{err}");
    // The project's other HIP test programs.
    let app = hip_app("lathe-exec-check-test", "app", LIBS);
    let o = exec(&["--check", "all"], &app, &["3000", "2", "0"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "app: {err}");
    assert!(err.contains("========= memcheck: 0 errors"), "{err}");
    for (name, args) in [("memspaces", &[][..]), ("crowded", &[][..])] {
        let p = hip_app("lathe-exec-check-test", name, LIBS);
        let plain = exec(&[], &p, args);
        let o = exec(&["--check", "all"], &p, args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), plain.status.code(), "{name}: {err}");
        assert!(
            !err.contains("========= memcheck: ") || err.contains("========= memcheck: 0 errors"),
            "{name}: {err}"
        );
        assert!(
            err.contains("========= initcheck: 0 errors"),
            "{name}: {err}"
        );
        assert_eq!(
            o.stdout, plain.stdout,
            "{name}: output differs under --check"
        );
    }
}

#[test]
fn bad_arguments_and_programs_without_dwarf() {
    if !have_hipcc() {
        return;
    }
    let prog = app();
    let o = exec(&["--check", "nonsense"], &prog, &["ok"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("--check \"nonsense\": unknown checker"),
        "{err}"
    );
    let o = exec(
        &[
            "--check",
            "memcheck",
            "--check-json",
            "/nonexistent/dir/x.json",
        ],
        &prog,
        &["ok"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("--check-json /nonexistent/dir/x.json: cannot write"),
        "{err}"
    );
    // Without -g: kernel+offset and a hint.
    let plain = hip_app("lathe-exec-check-test-nog", "sanitize", LIBS);
    let o = exec(&["--check", "memcheck"], &plain, &["page"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(66), "{err}");
    assert!(err.contains("build with -g"), "{err}");
    assert!(err.contains("last_block"), "{err}");
}

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

/// A test program built with -g, once per test process (the tests run in
/// parallel and must not rewrite a running executable).
fn app_named(name: &'static str) -> PathBuf {
    static APPS: std::sync::Mutex<Vec<(&str, PathBuf)>> = std::sync::Mutex::new(Vec::new());
    let mut apps = APPS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = apps.iter().find(|(n, _)| *n == name) {
        return p.clone();
    }
    let p = hip_app_with("lathe-exec-check-test", name, LIBS, &["-g"]);
    apps.push((name, p.clone()));
    p
}

fn app() -> PathBuf {
    app_named("sanitize")
}

/// The line of the source of `name` (tests/exec/NAME.hip) that ends with
/// `mark`.
fn line_of(name: &str, mark: &str) -> u64 {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/exec/{name}.hip"));
    let text = std::fs::read_to_string(src).expect("read source");
    let i = text
        .lines()
        .position(|l| l.trim_end().ends_with(mark))
        .unwrap_or_else(|| panic!("{name}.hip: no line ending with {mark:?}"));
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

/// Runs MODE under `--check CHECKS`; returns the reports, the exit status,
/// stderr and stdout.
fn checked_with(
    prog: &Path,
    checks: &str,
    mode: &str,
) -> (Vec<Value>, Option<i32>, String, Vec<u8>) {
    let dir = target_dir().join("lathe-exec-check-test");
    let stem = prog.file_name().and_then(|n| n.to_str()).unwrap_or("p");
    let json = dir.join(format!("{stem}-{mode}-{checks}.json"));
    let o = exec(
        &[
            "--check",
            checks,
            "--check-json",
            json.to_str().expect("utf-8"),
        ],
        prog,
        &[mode],
    );
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let text = std::fs::read_to_string(&json).expect("--check-json written");
    let v: Value = serde_json::from_str(&text).expect("JSON array");
    (
        v.as_array().expect("array").clone(),
        o.status.code(),
        err,
        o.stdout,
    )
}

fn checked(prog: &Path, mode: &str) -> (Vec<Value>, Option<i32>, String) {
    let (r, c, e, _) = checked_with(prog, "all", mode);
    (r, c, e)
}

/// One bug: the program and mode, the checkers run, how many folded
/// reports the run makes, and the one this row looks at.
struct Bug {
    /// tests/exec/FILE.hip.
    file: &'static str,
    mode: &'static str,
    checks: &'static str,
    reports: usize,
    tool: &'static str,
    kind: &'static str,
    /// The source line ends with this.
    mark: &'static str,
    block: [u64; 3],
    thread: [u64; 3],
    /// Accesses folded into the report.
    count: u64,
    /// racecheck: the other access (its line's mark, thread, access).
    prior: Option<(&'static str, [u64; 3], &'static str)>,
}

/// The dynamic-LDS race's first report (the second row differs in the
/// kind and the two lines; one run serves both).
const RACE_DYN: Bug = Bug {
    file: "sanitize2",
    mode: "race_dyn",
    checks: "racecheck",
    reports: 2,
    tool: "racecheck",
    kind: "read-after-write",
    mark: "AT: race_dyn_load",
    block: [0, 0, 0],
    thread: [64, 0, 0],
    count: 64,
    prior: Some(("AT: race_dyn_store", [0, 0, 0], "write")),
};

const BUGS: &[Bug] = &[
    // 4 floats past a 4,000-byte hipMalloc: threads 1000..1003, i.e.
    // block 3, threads 232..235; the first is reported, 4 counted.
    Bug {
        file: "sanitize",
        mode: "oob",
        checks: "all",
        reports: 1,
        tool: "memcheck",
        kind: "out-of-bounds",
        mark: "BUG: oob",
        block: [3, 0, 0],
        thread: [232, 0, 0],
        count: 4,
        prior: None,
    },
    // An off-by-one in the last block, inside the same 4 KiB page.
    Bug {
        file: "sanitize",
        mode: "page",
        checks: "all",
        reports: 1,
        tool: "memcheck",
        kind: "out-of-bounds",
        mark: "BUG: page",
        block: [3, 0, 0],
        thread: [232, 0, 0],
        count: 1,
        prior: None,
    },
    // A store after hipFree: reported, and the run goes on.
    Bug {
        file: "sanitize",
        mode: "uaf",
        checks: "all",
        reports: 1,
        tool: "memcheck",
        kind: "use-after-free",
        mark: "BUG: uaf",
        block: [0, 0, 0],
        thread: [0, 0, 0],
        count: 64,
        prior: None,
    },
    // A read of a buffer nothing wrote.
    Bug {
        file: "sanitize",
        mode: "uninit",
        checks: "all",
        reports: 1,
        tool: "initcheck",
        kind: "uninitialized-global-read",
        mark: "BUG: uninit",
        block: [0, 0, 0],
        thread: [0, 0, 0],
        count: 64,
        prior: None,
    },
    // A read of shared memory only threads 0..63 wrote: threads 64..127.
    Bug {
        file: "sanitize",
        mode: "lds_uninit",
        checks: "all",
        reports: 1,
        tool: "initcheck",
        kind: "uninitialized-lds-read",
        mark: "BUG: lds_uninit",
        block: [0, 0, 0],
        thread: [64, 0, 0],
        count: 64,
        prior: None,
    },
    // A barrier waves 2 and 3 never reach: reported at the barrier, for
    // the first waiting wave.
    Bug {
        file: "sanitize",
        mode: "divergent",
        checks: "all",
        reports: 1,
        tool: "synccheck",
        kind: "barrier-not-reached",
        mark: "BUG: divergent",
        block: [0, 0, 0],
        thread: [0, 0, 0],
        count: 1,
        prior: None,
    },
    // The same in a noinline device function (the barrier's PC is in the
    // function, the line is the function's).
    Bug {
        file: "sanitize2",
        mode: "divergent_fn",
        checks: "all",
        reports: 1,
        tool: "synccheck",
        kind: "barrier-not-reached",
        mark: "AT: divergent_fn",
        block: [0, 0, 0],
        thread: [0, 0, 0],
        count: 1,
        prior: None,
    },
    // Rotate through dynamic LDS without a barrier: wave 0 runs first, so
    // wave 1's store overwrites what wave 0 read (write-after-read) and
    // wave 1's load reads what wave 0 wrote (read-after-write): thread 64
    // reads buf[0], which thread 0 wrote.
    RACE_DYN,
    Bug {
        kind: "write-after-read",
        mark: "AT: race_dyn_store",
        prior: Some(("AT: race_dyn_load", [0, 0, 0], "read")),
        ..RACE_DYN
    },
    // The reduction missing the barrier after the store: wave 0 adds
    // s[t + 128] before wave 2 stored it; wave 2's store then races with
    // that read (threads 128..255 of both blocks).
    Bug {
        file: "sanitize2",
        mode: "race_reduce",
        checks: "racecheck",
        reports: 1,
        tool: "racecheck",
        kind: "write-after-read",
        mark: "AT: reduce_store",
        block: [0, 0, 0],
        thread: [128, 0, 0],
        count: 256,
        prior: Some(("AT: reduce_add", [0, 0, 0], "read")),
    },
    // s[t / 2] = t: lanes 2k and 2k+1 write different values to one word.
    Bug {
        file: "sanitize2",
        mode: "same_inst",
        checks: "racecheck",
        reports: 1,
        tool: "racecheck",
        kind: "same-instruction-write-write",
        mark: "AT: same_inst",
        block: [0, 0, 0],
        thread: [1, 0, 0],
        count: 32,
        prior: Some(("AT: same_inst", [0, 0, 0], "write")),
    },
    // An atomic 2 bytes off: the first lane stops the dispatch.
    Bug {
        file: "sanitize2",
        mode: "misaligned",
        checks: "memcheck",
        reports: 1,
        tool: "memcheck",
        kind: "misaligned-atomic",
        mark: "AT: misaligned",
        block: [0, 0, 0],
        thread: [0, 0, 0],
        count: 1,
        prior: None,
    },
    // int a[256] written at 256 + t by wave 0: every lane past its
    // 1,040-byte private segment (run goes on).
    Bug {
        file: "sanitize2",
        mode: "scratch",
        checks: "memcheck",
        reports: 1,
        tool: "memcheck",
        kind: "scratch-out-of-bounds",
        mark: "AT: scratch",
        block: [0, 0, 0],
        thread: [0, 0, 0],
        count: 64,
        prior: None,
    },
    // d[t + 1] with 64 ints of dynamic LDS: thread 63 writes past it.
    Bug {
        file: "sanitize2",
        mode: "lds_past",
        checks: "memcheck",
        reports: 1,
        tool: "memcheck",
        kind: "lds-out-of-bounds",
        mark: "AT: lds_past",
        block: [0, 0, 0],
        thread: [63, 0, 0],
        count: 1,
        prior: None,
    },
];

/// The frame in the test program: the innermost frame in FILE.hip (the one
/// an inlined HIP header function such as `__syncthreads` went into).
fn line_in(frames: &Value, file: &str) -> Option<u64> {
    frames
        .as_array()?
        .iter()
        .find(|f| {
            f["file"]
                .as_str()
                .is_some_and(|f| f.ends_with(&format!("/{file}.hip")))
        })
        .and_then(|f| f["line"].as_u64())
}

fn arr(v: &Value) -> Vec<u64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}

/// Checks one row; returns its report.
fn check_bug(b: &Bug) -> Value {
    let prog = app_named(b.file);
    let what = format!("{} {} (--check {})", b.file, b.mode, b.checks);
    // Rows of one run (the same program, mode and checkers) share it.
    type Ran = (Vec<Value>, Option<i32>, String, Vec<u8>);
    type Key = (&'static str, &'static str, &'static str);
    static RUNS: std::sync::Mutex<Vec<(Key, Ran)>> = std::sync::Mutex::new(Vec::new());
    let key = (b.file, b.mode, b.checks);
    let known = {
        let runs = RUNS.lock().unwrap_or_else(|e| e.into_inner());
        runs.iter().find(|(k, _)| *k == key).map(|(_, r)| r.clone())
    };
    let (reports, code, err, out) = known.unwrap_or_else(|| {
        let r = checked_with(&prog, b.checks, b.mode);
        let mut runs = RUNS.lock().unwrap_or_else(|e| e.into_inner());
        runs.push((key, r.clone()));
        r
    });
    assert_eq!(
        reports.len(),
        b.reports,
        "{what}: reports: {reports:#?}\n{err}"
    );
    let r = reports
        .iter()
        .find(|r| r["tool"] == b.tool && r["kind"] == b.kind)
        .unwrap_or_else(|| panic!("{what}: no {} {}: {reports:#?}\n{err}", b.tool, b.kind));
    let line = line_of(b.file, b.mark);
    assert_eq!(
        line_in(&r["frames"], b.file),
        Some(line),
        "{what}: line: {r:#}\n{err}"
    );
    assert_eq!(arr(&r["workgroup"]), b.block, "{what}: blockIdx: {r:#}");
    assert_eq!(arr(&r["thread"]), b.thread, "{what}: threadIdx: {r:#}");
    assert_eq!(r["count"], b.count, "{what}: count: {r:#}");
    assert_eq!(code, Some(66), "{what}: exit status with findings\n{err}");
    let n = reports.iter().filter(|r| r["tool"] == b.tool).count();
    assert!(
        err.contains(&format!("========= {}: {n} error", b.tool)),
        "{what}: summary:\n{err}"
    );
    assert!(
        err.contains(&format!("{}.hip:{line}:", b.file)),
        "{what}: text report with file:line:\n{err}"
    );
    match b.prior {
        Some((mark, thread, access)) => {
            let p = &r["prior"];
            assert_eq!(p["access"], access, "{what}: other access: {r:#}");
            assert_eq!(
                p["line"].as_u64(),
                Some(line_of(b.file, mark)),
                "{what}: other line: {r:#}"
            );
            assert_eq!(arr(&p["thread"]), thread, "{what}: other thread: {r:#}");
            assert!(
                err.contains("the other access: "),
                "{what}: text names the other access\n{err}"
            );
        }
        None => assert!(r["prior"].is_null(), "{what}: {r:#}"),
    }
    // The checkers do not change what the kernel computes (but a use
    // after free, which plain exec stops at, runs on under memcheck).
    if b.kind == "use-after-free" {
        return r.clone();
    }
    let plain = exec(&[], &prog, &[b.mode]);
    assert_eq!(
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&plain.stdout),
        "{what}: output differs under --check"
    );
    r.clone()
}

#[test]
fn each_bug_is_found_by_its_checker_at_its_line_and_thread() {
    if !have_hipcc() {
        return;
    }
    for b in BUGS {
        let r = check_bug(b);
        match b.mode {
            "oob" => {
                assert_eq!(r["allocation_size"], 4000, "{r:#}");
                assert_eq!(
                    r["past_end"], 4,
                    "the first access ends 4 bytes past the end: {r:#}"
                );
                assert_eq!(r["access"], "write");
            }
            "divergent" | "divergent_fn" => {
                assert_eq!(r["address"], 2, "the wave that ended: {r:#}");
            }
            "lds_past" => {
                assert_eq!(r["address"], 256, "{r:#}");
                assert_eq!(r["allocation_size"], 256, "static 0 + dynamic 256: {r:#}");
            }
            "scratch" => assert_eq!(r["allocation_size"], 1040, "{r:#}"),
            // The lane the access stopped at, not `lane ?`.
            "misaligned" => assert_eq!(r["lane"], 0, "{r:#}"),
            _ => {}
        }
    }
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
    assert!(err.contains("========= racecheck: 0 errors"), "{err}");
    // Dynamic LDS, LDS atomics, global atomics and barriers, all correct.
    let (reports, code, err, out) = checked_with(&app_named("sanitize2"), "all", "ok");
    assert!(reports.is_empty(), "{reports:#?}\n{err}");
    assert_eq!(code, Some(0), "{err}");
    assert!(String::from_utf8_lossy(&out).contains("match"), "{err}");
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
        assert!(
            err.contains("========= racecheck: 0 errors"),
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

fn run_checked(args: &[&str]) -> (Vec<Value>, Option<i32>, String) {
    let prog = app_named("sanitize2");
    let json = target_dir().join("lathe-exec-check-test").join(format!(
        "run-{}.json",
        args.join("_").replace(['/', ':', ','], "_")
    ));
    let o = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .arg("run")
        .arg(&prog)
        .args(args)
        .args(["--check-json", json.to_str().expect("utf-8")])
        .output()
        .expect("run lathe run");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let text = std::fs::read_to_string(&json).expect("--check-json written");
    let v: Value = serde_json::from_str(&text).expect("JSON array");
    (v.as_array().expect("array").clone(), o.status.code(), err)
}

#[test]
fn lathe_run_checks_one_kernel_the_same_way() {
    if !have_hipcc() {
        return;
    }
    // The dynamic-LDS race, launched alone: the two hazards exec finds.
    let (reports, code, err) = run_checked(&[
        "--kernel",
        "rotate_dyn",
        "--grid",
        "128",
        "--block",
        "128",
        "--dynamic-lds",
        "512",
        "-a",
        "buf:out:512",
        "--check",
        "racecheck",
    ]);
    assert_eq!(code, Some(66), "{err}");
    let mut got: Vec<(String, u64, Vec<u64>)> = reports
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap_or("").to_string(),
                line_in(&r["frames"], "sanitize2").unwrap_or(0),
                arr(&r["thread"]),
            )
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        vec![
            (
                "read-after-write".into(),
                line_of("sanitize2", "AT: race_dyn_load"),
                vec![64, 0, 0]
            ),
            (
                "write-after-read".into(),
                line_of("sanitize2", "AT: race_dyn_store"),
                vec![64, 0, 0]
            ),
        ],
        "{err}"
    );
    assert!(
        err.contains("========= racecheck: 2 errors (128 accesses)"),
        "{err}"
    );
    // Past dynamic LDS: noted with its lane, then the launch stops.
    let (reports, code, err) = run_checked(&[
        "--kernel",
        "lds_past",
        "--grid",
        "64",
        "--block",
        "64",
        "--dynamic-lds",
        "256",
        "-a",
        "buf:out:256",
        "--check",
        "memcheck",
    ]);
    assert_ne!(code, Some(0), "{err}");
    assert_eq!(reports.len(), 1, "{reports:#?}\n{err}");
    assert_eq!(reports[0]["kind"], "lds-out-of-bounds");
    assert_eq!(arr(&reports[0]["thread"]), [63, 0, 0]);
    assert!(
        err.contains("LDS fault"),
        "the stop is still reported: {err}"
    );
    // A correct kernel with LDS atomics, dynamic LDS and barriers.
    let (reports, code, err) = run_checked(&[
        "--kernel",
        "hist_sums",
        "--grid",
        "3000",
        "--block",
        "256",
        "--dynamic-lds",
        "1024",
        "-a",
        "buf:in:12000:iota_u32",
        "-a",
        "buf:hist:64",
        "-a",
        "buf:total:4",
        "-a",
        "i32:3000",
        "--check",
        "all",
    ]);
    assert!(reports.is_empty(), "{reports:#?}\n{err}");
    assert_eq!(code, Some(0), "{err}");
    for c in ["memcheck", "initcheck", "racecheck", "synccheck"] {
        assert!(err.contains(&format!("========= {c}: 0 errors")), "{err}");
    }
    // Bad names are refused before anything runs.
    let o = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .args(["run", "x.co", "--check", "nonsense"])
        .output()
        .expect("run lathe run");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("--check \"nonsense\": unknown checker"),
        "{err}"
    );
}

#[test]
fn disasm_source_interleaves_lines_and_says_when_there_are_none() {
    if !have_hipcc() {
        return;
    }
    let disasm = |prog: &Path| {
        let o = Command::new(env!("CARGO_BIN_EXE_lathe"))
            .args(["disasm", "--source", "--kernel", "rotate_dyn"])
            .arg(prog)
            .output()
            .expect("run lathe disasm");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let text = disasm(&app_named("sanitize2"));
    // The LDS store is listed under its source line, the load under its.
    let under = |inst: &str| -> String {
        let lines: Vec<&str> = text.lines().collect();
        let i = lines
            .iter()
            .position(|l| l.contains(inst))
            .unwrap_or_else(|| panic!("no {inst}:\n{text}"));
        lines[..i]
            .iter()
            .rev()
            .find(|l| l.starts_with("; /") || l.starts_with("; "))
            .map(|l| l.to_string())
            .unwrap_or_default()
    };
    let store = line_of("sanitize2", "AT: race_dyn_store");
    let load = line_of("sanitize2", "AT: race_dyn_load");
    assert!(
        under("ds_write_b32").contains(&format!("sanitize2.hip:{store}:")),
        "{text}"
    );
    assert!(
        under("ds_read_b32").contains(&format!("sanitize2.hip:{load}:")),
        "{text}"
    );
    assert!(text.contains(";   inlined into "), "inlined frames: {text}");
    // Without -g: a line says there are none and that -g adds them.
    let nog = hip_app_with("lathe-exec-check-test-nog2", "sanitize2", LIBS, &[]);
    let text = disasm(&nog);
    assert!(text.contains("no source lines"), "{text}");
    assert!(text.contains("build with -g"), "{text}");
    assert!(text.contains("ds_write_b32"), "{text}");
}

/// rocRAND's and rocSPARSE's kernels (Debian's libraries, driven by the
/// runtime's test programs crates/hsa/tests/hip/{rocrand,rocsparse}.hip)
/// under `--check all`: the programs check their own results, and nothing
/// is reported. It takes minutes under a debug build's emulator, so it
/// runs in optimised builds (`scripts/test.sh` uses the ci profile) and
/// under `LATHE_REQUIRE_EXTERNAL`, and says it was skipped otherwise.
#[test]
fn rocrand_and_rocsparse_kernels_get_no_report() {
    if cfg!(debug_assertions) && !lathe_testkit::require_external() {
        eprintln!(
            "rocrand_and_rocsparse_kernels_get_no_report: skipped in a debug build (minutes); \
             scripts/test.sh runs it in the ci profile"
        );
        return;
    }
    if !have_hipcc() {
        return;
    }
    for lib in ["rocrand", "rocsparse"] {
        if !Path::new(&format!("/usr/include/{lib}/{lib}.h")).is_file() {
            assert!(
                !lathe_testkit::require_external(),
                "{lib}'s headers are missing: scripts/setup.sh installs them"
            );
            continue;
        }
        let dir = target_dir().join("lathe-exec-check-test");
        std::fs::create_dir_all(&dir).expect("dir");
        let exe = dir.join(lib);
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../hsa/tests/hip/{lib}.hip"));
        let o = Command::new("hipcc")
            .args(["--offload-arch=gfx90a", "-O2", "-o"])
            .arg(&exe)
            .arg(&src)
            .arg(format!("-l{lib}"))
            .output()
            .expect("run hipcc");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let o = exec(&["--check", "all"], &exe, &[]);
        let err = String::from_utf8_lossy(&o.stderr);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{lib}: {out}\n{err}");
        assert!(out.contains(&format!("{lib}: ok")), "{lib}: {out}");
        for c in ["memcheck", "initcheck", "racecheck", "synccheck"] {
            assert!(
                err.contains(&format!("========= {c}: 0 errors")),
                "{lib}: {c}:\n{err}"
            );
        }
    }
}

/// racecheck on global memory between blocks (tests/exec/sanitize3.hip):
/// the inter-block race is found at both lines with both blocks and
/// threads, the same with one host thread and with two; a read ordered
/// only by a non-returning atomic is a race; the "last block"
/// reduction, an atomics-only histogram, a chained scan through
/// acquire/release flags and blocks writing neighbouring bytes of one word
/// get no report.
#[test]
fn global_races_between_blocks() {
    if !have_hipcc() {
        return;
    }
    let prog = app_named("sanitize3");
    let dir = target_dir().join("lathe-exec-check-test");
    let mut seen = Vec::new();
    for threads in ["1", "2"] {
        let json = dir.join(format!("sanitize3-race-t{threads}.json"));
        let o = exec(
            &[
                "--threads",
                threads,
                "--check",
                "racecheck",
                "--check-json",
                json.to_str().expect("utf-8"),
            ],
            &prog,
            &["race"],
        );
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(66), "{err}");
        let text = std::fs::read_to_string(&json).expect("--check-json written");
        let mut v: Value = serde_json::from_str(&text).expect("JSON array");
        let reports = v.as_array_mut().expect("array");
        assert_eq!(reports.len(), 1, "threads {threads}: {reports:#?}\n{err}");
        let r = &reports[0];
        // Block b+1's store of its first element and block b's read of it
        // (blocks 1..3 against 0..2): placed on the higher block's access.
        assert_eq!(r["tool"], "racecheck");
        assert_eq!(r["kind"], "global-write-read", "{r:#}");
        assert_eq!(r["access"], "write");
        assert_eq!(
            line_in(&r["frames"], "sanitize3"),
            Some(line_of("sanitize3", "AT: race_store")),
            "{r:#}"
        );
        assert_eq!(arr(&r["workgroup"]), [1, 0, 0], "{r:#}");
        assert_eq!(arr(&r["thread"]), [0, 0, 0], "{r:#}");
        assert_eq!(r["count"], 3, "{r:#}");
        let p = &r["prior"];
        assert_eq!(p["access"], "read", "{r:#}");
        assert_eq!(
            p["line"].as_u64(),
            Some(line_of("sanitize3", "AT: race_load")),
            "{r:#}"
        );
        assert_eq!(arr(&p["workgroup"]), [0, 0, 0], "{r:#}");
        assert_eq!(arr(&p["thread"]), [0, 0, 0], "{r:#}");
        assert!(
            err.contains("========= racecheck: 1 error (3 accesses)"),
            "{err}"
        );
        assert!(
            err.contains("in block (0,0,0)") && err.contains("the other access: read"),
            "{err}"
        );
        // Host addresses differ from run to run; the rest must not.
        let mut r = r.clone();
        for k in ["address", "pc"] {
            r[k] = Value::Null;
        }
        r["prior"]["pc"] = Value::Null;
        seen.push(r);
    }
    assert_eq!(seen[0], seen[1], "the report depends on --threads");
    // An atomic whose result is dropped releases but does not acquire
    // (D33): block b's read of block b-1's slot is a race, found at the
    // load with the store as the other access. (The "last block"
    // reduction below, whose atomic returns, must still acquire.)
    let (reports, code, err, _) = checked_with(&prog, "racecheck", "noret");
    assert_eq!(code, Some(66), "noret: {err}");
    assert_eq!(reports.len(), 1, "noret: {reports:#?}\n{err}");
    let r = &reports[0];
    assert_eq!(r["kind"], "global-read-write", "{r:#}");
    assert_eq!(
        line_in(&r["frames"], "sanitize3"),
        Some(line_of("sanitize3", "AT: noret_load")),
        "{r:#}"
    );
    assert_eq!(arr(&r["workgroup"]), [1, 0, 0], "{r:#}");
    assert_eq!(r["count"], 3, "{r:#}");
    assert_eq!(
        r["prior"]["line"].as_u64(),
        Some(line_of("sanitize3", "AT: noret_store")),
        "{r:#}"
    );
    assert_eq!(arr(&r["prior"]["workgroup"]), [0, 0, 0], "{r:#}");
    for mode in ["reduce", "hist", "chain", "disjoint"] {
        let (reports, code, err, out) = checked_with(&prog, "all", mode);
        assert!(reports.is_empty(), "{mode}: {reports:#?}\n{err}");
        assert_eq!(code, Some(0), "{mode}: {err}");
        assert!(
            String::from_utf8_lossy(&out).contains("match"),
            "{mode}: {err}"
        );
        assert!(
            err.contains("========= racecheck: 0 errors"),
            "{mode}: {err}"
        );
    }
}

/// A kernel that faults without `--check` (a misaligned atomic, which the
/// emulator cannot perform): `lathe exec`'s and `lathe run`'s fault reports
/// give the source line with `-g`, with the faulting lane, and the `-g`
/// hint without it.
#[test]
fn plain_fault_reports_name_the_source_line() {
    if !have_hipcc() {
        return;
    }
    let line = line_of("sanitize2", "AT: misaligned");
    let want = format!("sanitize2.hip:{line}:");
    let o = exec(&[], &app_named("sanitize2"), &["misaligned"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("GPU memory fault in"), "{err}");
    assert!(
        err.contains(&want) && err.contains("inlined into"),
        "exec: {err}"
    );
    assert!(err.contains("lane 0 (the first faulting lane)"), "{err}");
    let o = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .arg("run")
        .arg(app_named("sanitize2"))
        .args([
            "--kernel",
            "misaligned_atomic",
            "--grid",
            "64",
            "--block",
            "64",
            "-a",
            "buf:p:512",
        ])
        .output()
        .expect("run lathe run");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains(&want), "run: {err}");
    let nog = hip_app_with("lathe-exec-check-test-nog2", "sanitize2", LIBS, &[]);
    let o = exec(&[], &nog, &["misaligned"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("GPU memory fault in"), "{err}");
    assert!(
        err.contains("(no source line: build with -g for file:line)"),
        "{err}"
    );
}

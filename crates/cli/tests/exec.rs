//! `lathe exec` end to end: a HIP program built here by Debian's hipcc
//! (ROCm 5.2, gfx90a) runs unmodified through Debian's libamdhip64.so.5 on
//! Lathe's runtime (`libhsa_runtime64.so`, which `cargo test --workspace`
//! builds next to the `lathe` binary). The program checks its results on
//! the host; these tests check the exit status `lathe exec` passes through
//! and the launch records of `--stats` / `--stats-json` against the
//! launches the program made.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::{json, Value};

mod common;
use common::{have_hipcc, hip_app, target_dir};

/// Builds `tests/exec/app.hip` once per test binary run.
fn app() -> PathBuf {
    static APP: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    APP.get_or_init(|| hip_app("lathe-exec-test", "app", &["libhsa_runtime64.so"]))
        .clone()
}

/// `lathe exec OPTS -- app ARGS`, with none of the runtime's variables
/// inherited.
fn exec(opts: &[&str], args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lathe"))
        .arg("exec")
        .args(opts)
        .arg("--")
        .arg(app())
        .args(args)
        .env_remove("LATHE_STATS")
        .env_remove("LATHE_STATS_JSON")
        .env_remove("LATHE_TRACE")
        .env_remove("LATHE_HSA_LIB")
        .env_remove("HSA_TOOLS_LIB")
        .output()
        .expect("run lathe exec")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn exit_status_of_the_program_is_passed_through() {
    if !have_hipcc() {
        return;
    }
    for status in [0, 42] {
        let o = exec(&[], &["1000", "3", &status.to_string()]);
        let (out, err) = text(&o);
        assert_eq!(
            o.status.code(),
            Some(status),
            "stdout:\n{out}\nstderr:\n{err}"
        );
        assert!(
            out.contains("app: ok, 3 launches of scale over 1000"),
            "stdout:\n{out}\nstderr:\n{err}"
        );
    }
    // The program's own usage error (no kernels run) comes back too.
    let o = exec(&[], &["1"]);
    assert_eq!(o.status.code(), Some(3), "{:?}", text(&o));
}

#[test]
fn faulting_kernel_aborts_and_lathe_reports_the_signal() {
    if !have_hipcc() {
        return;
    }
    let o = exec(&[], &["fault"]);
    let (out, err) = text(&o);
    // ROCr aborts the process on a queue fault; `lathe exec` exits with
    // 128 + SIGABRT as a shell does and says so.
    assert_eq!(
        o.status.code(),
        Some(128 + 6),
        "stdout:\n{out}\nstderr:\n{err}"
    );
    assert!(err.contains("was killed by signal 6"), "{err}");
    assert!(err.contains("Memory access fault by GPU"), "{err}");
    assert!(
        err.contains("_Z10wild_storePii"),
        "kernel not named:\n{err}"
    );
    assert!(
        err.contains("global_store_dword"),
        "instruction not named:\n{err}"
    );
    assert!(
        !out.contains("synchronize returned"),
        "ran past the fault:\n{out}"
    );
}

#[test]
fn stats_and_stats_json_list_every_launch() {
    if !have_hipcc() {
        return;
    }
    let json_path = target_dir().join("lathe-exec-test").join("stats.json");
    let _ = std::fs::remove_file(&json_path);
    let (n, launches) = (1024u64, 5usize);
    let o = exec(
        &[
            "--stats",
            "--stats-json",
            json_path.to_str().expect("utf-8"),
        ],
        &[&n.to_string(), &launches.to_string(), "0"],
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "stdout:\n{out}\nstderr:\n{err}");

    let v: Value = serde_json::from_str(
        &std::fs::read_to_string(&json_path).expect("--stats-json file written"),
    )
    .expect("valid JSON");
    let all = v.as_array().expect("a JSON array");
    for rec in all {
        let keys: Vec<&str> = rec
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys.len(),
            6,
            "fields kernel, name, grid, block, wave_instructions, seconds: {rec}"
        );
        assert!(rec["seconds"].as_f64().expect("seconds") > 0.0, "{rec}");
        assert!(
            rec["wave_instructions"].as_u64().expect("count") > 0,
            "{rec}"
        );
    }
    let scale: Vec<&Value> = all
        .iter()
        .filter(|r| r["kernel"] == "_Z5scalePffi")
        .collect();
    assert_eq!(scale.len(), launches + 1, "scale launches in {v:#}");
    let wi = |r: &Value| r["wave_instructions"].as_u64().expect("count");
    for r in &scale[..launches] {
        assert_eq!(r["grid"], json!([n, 1, 1]), "{r}");
        assert_eq!(r["block"], json!([128, 1, 1]), "{r}");
        assert_eq!(wi(r), wi(scale[0]), "same launch, same work: {r}");
    }
    // Every wave of `scale` takes the same path (N is a multiple of 128),
    // so twice the grid is exactly twice the wave-instructions.
    let last = scale[launches];
    assert_eq!(last["grid"], json!([2 * n, 1, 1]), "{last}");
    assert_eq!(wi(last), 2 * wi(scale[0]), "{last}");
    assert_eq!(wi(scale[0]) % (n / 64), 0, "per-wave count: {}", scale[0]);
    let iota: Vec<&Value> = all
        .iter()
        .filter(|r| r["kernel"] == "_Z6iota2dPii")
        .collect();
    assert_eq!(iota.len(), 1, "{v:#}");
    assert_eq!(iota[0]["grid"], json!([64, 8, 1]));
    assert_eq!(iota[0]["block"], json!([16, 4, 1]));

    // `--stats` prints the same launches, one line each, on stderr, by
    // their demangled names (then a summary).
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("lathe: kernel ") && !l.starts_with("lathe: kernel summary"))
        .collect();
    assert_eq!(lines.len(), all.len(), "stderr:\n{err}");
    let first = format!(
        "lathe: kernel scale(float*, float, int) grid [{n},1,1] block [128,1,1] {} wave-instructions ",
        wi(scale[0])
    );
    assert_eq!(
        lines.iter().filter(|l| l.starts_with(&first)).count(),
        launches,
        "stderr:\n{err}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with(&format!(
            "lathe: kernel scale(float*, float, int) grid [{},1,1] block [128,1,1] {} wave-instructions ",
            2 * n,
            wi(last)
        ))),
        "stderr:\n{err}"
    );
}

#[test]
fn a_missing_program_is_an_error_naming_it() {
    let o = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .args(["exec", "--", "/nonexistent/lathe-app"])
        .output()
        .expect("run lathe exec");
    let (_, err) = text(&o);
    assert!(!o.status.success());
    assert!(err.contains("/nonexistent/lathe-app"), "{err}");
}

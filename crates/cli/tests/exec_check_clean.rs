//! No false reports (issue 21): the HIP test programs the project runs
//! under `lathe exec` and through its HSA runtime, each under
//! `lathe exec --check all`, report nothing but the findings they really
//! have (memory.hip's `bump` reads a buffer it never wrote; fault.hip
//! stores through a wild pointer), and each program's own check passes.
//! One test, two programs at a time, so the suite stays short.
//! (sanitize/sanitize2 `ok`, `app`, memspaces and crowded are in
//! exec_check.rs; rocRAND and rocSPARSE, minutes in a debug build, too.)

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::{have_hipcc, target_dir};

/// A program, its arguments and what `--check all` must find: `(tool,
/// kind, line of the source)` per folded report.
struct Prog {
    /// Source, relative to the workspace root.
    src: &'static str,
    args: &'static [&'static str],
    /// The exit status the program's own check gives.
    status: Option<i32>,
    findings: &'static [(&'static str, &'static str, u64)],
}

const PROGS: &[Prog] = &[
    Prog {
        src: "crates/cli/tests/exec/clock.hip",
        args: &["2", "4"],
        status: Some(0),
        findings: &[],
    },
    Prog {
        src: "crates/cli/tests/exec/daily.hip",
        args: &["spin", "1000", "3"],
        status: Some(0),
        findings: &[],
    },
    Prog {
        src: "crates/cli/tests/exec/tools_app.hip",
        args: &[],
        status: Some(0),
        findings: &[],
    },
    Prog {
        src: "crates/cli/tests/exec/unused.hip",
        args: &[],
        status: Some(0),
        findings: &[],
    },
    Prog {
        src: "crates/hsa/tests/hip/basics.hip",
        args: &[],
        status: Some(0),
        findings: &[],
    },
    // `bump` adds 1 to `table_dummy`, a hipMalloc buffer nothing wrote.
    Prog {
        src: "crates/hsa/tests/hip/memory.hip",
        args: &[],
        status: Some(66),
        findings: &[("initcheck", "uninitialized-global-read", 23)],
    },
    Prog {
        src: "crates/hsa/tests/hip/printf.hip",
        args: &[],
        status: Some(0),
        findings: &[],
    },
    Prog {
        src: "crates/hsa/tests/hip/streams.hip",
        args: &[],
        status: Some(0),
        findings: &[],
    },
    Prog {
        src: "crates/hsa/tests/hip/threads.hip",
        args: &[],
        status: Some(0),
        findings: &[],
    },
    Prog {
        src: "crates/hsa/tests/hip/launches.hip",
        args: &[],
        status: Some(0),
        findings: &[],
    },
    Prog {
        src: "crates/hsa/tests/hip/coop.hip",
        args: &[],
        status: Some(0),
        findings: &[],
    },
    // A store through a wild pointer: the dispatch stops.
    Prog {
        src: "crates/hsa/tests/hip/fault.hip",
        args: &[],
        status: None,
        findings: &[("memcheck", "unmapped", 6)],
    },
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn build(src: &str, out: &Path, extra: &[&str]) {
    let o = Command::new("hipcc")
        .args(["--offload-arch=gfx90a", "-O2", "-g"])
        .args(extra)
        .arg("-o")
        .arg(out)
        .arg(root().join(src))
        .output()
        .expect("run hipcc");
    assert!(
        o.status.success(),
        "hipcc {src}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Runs `exe ARGS` under `--check all`: the folded reports, the status
/// and stderr.
fn checked(exe: &Path, args: &[&str]) -> (Vec<Value>, Option<i32>, String, String) {
    let json = exe.with_extension("check.json");
    let o = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .args(["exec", "--check", "all", "--check-json"])
        .arg(&json)
        .arg("--")
        .arg(exe)
        .args(args)
        .output()
        .expect("run lathe exec");
    let text = std::fs::read_to_string(&json).expect("--check-json written");
    let v: Value = serde_json::from_str(&text).expect("JSON array");
    (
        v.as_array().expect("array").clone(),
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

fn check_one(p: &Prog, dir: &Path) -> Result<(), String> {
    let name = Path::new(p.src)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("p");
    let exe = dir.join(name);
    build(p.src, &exe, &[]);
    let (reports, status, err, out) = checked(&exe, p.args);
    let mut got: Vec<(String, String, u64)> = reports
        .iter()
        .map(|r| {
            let line = r["frames"]
                .as_array()
                .and_then(|f| {
                    f.iter().find(|f| {
                        f["file"]
                            .as_str()
                            .is_some_and(|s| s.ends_with(&format!("/{name}.hip")))
                    })
                })
                .and_then(|f| f["line"].as_u64())
                .unwrap_or(0);
            (
                r["tool"].as_str().unwrap_or("").to_string(),
                r["kind"].as_str().unwrap_or("").to_string(),
                line,
            )
        })
        .collect();
    got.sort();
    let want: Vec<(String, String, u64)> = p
        .findings
        .iter()
        .map(|(t, k, l)| (t.to_string(), k.to_string(), *l))
        .collect();
    if got != want {
        return Err(format!(
            "{name}: findings {got:?}, expected {want:?}\n{reports:#?}\n{err}"
        ));
    }
    if p.status.is_some() && status != p.status {
        return Err(format!(
            "{name}: exit {status:?}, expected {:?}\n{out}\n{err}",
            p.status
        ));
    }
    if p.status.is_none() && status == Some(0) {
        return Err(format!("{name}: a stopped dispatch exited 0\n{err}"));
    }
    for c in ["memcheck", "initcheck", "racecheck", "synccheck"] {
        let n = want.iter().filter(|w| w.0 == c).count();
        let summary = format!("========= {c}: {n} error");
        if !err.contains(&summary) {
            return Err(format!("{name}: no {summary:?}\n{err}"));
        }
    }
    Ok(())
}

#[test]
fn project_hip_programs_report_only_their_real_findings() {
    if !have_hipcc() {
        return;
    }
    let dir = target_dir().join("lathe-exec-check-clean");
    std::fs::create_dir_all(&dir).expect("dir");
    // modules.hip loads a code object built with --genco.
    let co = dir.join("modules_kernels.co");
    let o = Command::new("hipcc")
        .args(["--offload-arch=gfx90a", "-O2", "-g", "--genco", "-o"])
        .arg(&co)
        .arg(root().join("crates/hsa/tests/hip/modules_kernels.hip"))
        .output()
        .expect("run hipcc");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let errors = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(p) = PROGS.get(i) else {
                    break;
                };
                if let Err(e) = check_one(p, &dir) {
                    errors.lock().unwrap_or_else(|e| e.into_inner()).push(e);
                }
            });
        }
    });
    let exe = dir.join("modules");
    build("crates/hsa/tests/hip/modules.hip", &exe, &[]);
    let (reports, status, err, _) = checked(&exe, &[co.to_str().expect("utf-8")]);
    let mut errors = errors.into_inner().unwrap_or_else(|e| e.into_inner());
    if !reports.is_empty() || status != Some(0) {
        errors.push(format!("modules: {reports:#?} exit {status:?}\n{err}"));
    }
    assert!(errors.is_empty(), "{}", errors.join("\n\n"));
}

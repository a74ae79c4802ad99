//! `lathe exec --tool` end to end: a HIP program built here by Debian's
//! hipcc (tests/exec/tools_app.hip: seed 002's `complex_float(char*, int)`
//! on 39063 × 256, plus 2-D and 3-D grids) runs unmodified with its
//! dispatches instrumented at run time by `liblathe_tool.so`
//! (`HSA_TOOLS_LIB`). Each tool's per-launch results are checked against
//! the emulator's ground truth of an uninstrumented run of the same
//! program (Lathe's runtime records it under `LATHE_GROUND_TRUTH`), and the
//! program's own output and exit status must not change.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod common;
use common::{have_hipcc, hip_app, target_dir};

/// Builds tests/exec/tools_app.hip once.
fn app() -> PathBuf {
    static APP: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    APP.get_or_init(|| {
        hip_app(
            "lathe-exec-tool-test",
            "tools_app",
            &["libhsa_runtime64.so", "liblathe_tool.so"],
        )
    })
    .clone()
}

/// `lathe exec OPTS -- tools_app`, with extra environment.
fn exec(opts: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_lathe"));
    c.arg("exec").args(opts).arg("--").arg(app());
    for v in [
        "LATHE_STATS",
        "LATHE_STATS_JSON",
        "LATHE_GROUND_TRUTH",
        "HSA_TOOLS_LIB",
    ] {
        c.env_remove(v);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run lathe exec")
}

fn out_dir(name: &str) -> PathBuf {
    let d = target_dir().join("lathe-exec-tool-test").join(name);
    std::fs::create_dir_all(&d).expect("create test dir");
    d
}

/// The uninstrumented run: its stdout and the ground truth per launch.
fn baseline() -> &'static (String, Vec<Value>) {
    static B: std::sync::OnceLock<(String, Vec<Value>)> = std::sync::OnceLock::new();
    B.get_or_init(|| {
        let gt = out_dir("baseline").join("truth.json");
        let o = exec(&[], &[("LATHE_GROUND_TRUTH", &gt)]);
        assert!(
            o.status.success(),
            "uninstrumented run failed: {}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        let stdout = String::from_utf8(o.stdout).expect("utf-8 stdout");
        assert!(stdout.contains("ok: 0 wrong"), "{stdout}");
        let v: Value = serde_json::from_slice(&std::fs::read(&gt).expect("ground truth written"))
            .expect("ground truth JSON");
        let launches = v.as_array().expect("array").clone();
        let names: Vec<&str> = launches
            .iter()
            .map(|l| l["kernel"].as_str().expect("record field"))
            .collect();
        assert_eq!(
            names,
            ["_Z13complex_floatPci", "_Z6grid2dPfii", "_Z6grid3dPiiii"],
            "launches the program makes"
        );
        (stdout, launches)
    })
}

/// Runs with `--tool TOOL --tool-out`, checks the program's output is the
/// uninstrumented one, and returns the tool's per-launch records.
fn tool_run(tool: &str, extra: &[&str]) -> (Vec<Value>, String) {
    let path = out_dir(&format!(
        "{tool}{}",
        extra.join("_").replace(['/', ' '], "_")
    ))
    .join("tool.json");
    let mut opts = vec![
        "--tool",
        tool,
        "--tool-out",
        path.to_str().expect("utf-8 path"),
    ];
    opts.extend_from_slice(extra);
    let o = exec(&opts, &[]);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "--tool {tool} run failed:\n{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        baseline().0,
        "--tool {tool} changed the program's output"
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&path).expect("--tool-out written"))
        .expect("tool JSON");
    (v.as_array().expect("array").clone(), stderr)
}

#[test]
fn instr_count_equals_ground_truth_per_launch() {
    if !have_hipcc() {
        return;
    }
    let (recs, _) = tool_run("instr-count", &[]);
    let gt = &baseline().1;
    assert_eq!(recs.len(), gt.len());
    for (r, g) in recs.iter().zip(gt) {
        assert_eq!(r["launch"], g["launch"]);
        assert_eq!(r["kernel"], g["kernel"]);
        assert_eq!(r["grid"], g["grid"]);
        assert_eq!(r["block"], g["block"]);
        assert_eq!(r["tool"]["name"], "instr-count");
        assert_eq!(
            r["tool"]["wave_instructions"], g["wave_instructions"],
            "{}",
            r["kernel"]
        );
        assert_eq!(
            r["tool"]["thread_instructions"], g["thread_instructions"],
            "{}",
            r["kernel"]
        );
    }
    // The 1-D launch alone is 156,252 waves: the counts are not trivial.
    assert!(gt[0]["wave_instructions"].as_u64().expect("record field") > 156_252 * 5);
}

/// Without `--tool-out`, each launch's record is a line on stderr whose
/// summary (the `Display` of lathe-dbi's `report::Report`) gives the counts the ground
/// truth has.
#[test]
fn instr_count_stderr_lines_give_the_ground_truth_counts() {
    if !have_hipcc() {
        return;
    }
    let o = exec(&["--tool", "instr-count"], &[]);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{stderr}");
    let gt = &baseline().1;
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains(": instr-count: "))
        .collect();
    assert_eq!(lines.len(), gt.len(), "stderr:\n{stderr}");
    for (l, g) in lines.iter().zip(gt) {
        let want = format!(
            "instr-count: wave instructions {}, thread instructions {}",
            g["wave_instructions"], g["thread_instructions"]
        );
        assert!(l.ends_with(&want), "{l:?} does not end with {want:?}");
    }
}

/// Ground truth: wave executions per code-object address.
fn per_pc(g: &Value) -> BTreeMap<u64, (u64, String)> {
    g["per_pc"]
        .as_array()
        .expect("record field")
        .iter()
        .map(|e| {
            (
                e[0].as_u64().expect("record field"),
                (
                    e[1].as_u64().expect("record field"),
                    e[3].as_str().expect("record field").to_string(),
                ),
            )
        })
        .collect()
}

#[test]
fn block_count_equals_ground_truth_per_launch() {
    if !have_hipcc() {
        return;
    }
    let (recs, _) = tool_run("block-count", &[]);
    let gt = &baseline().1;
    assert_eq!(recs.len(), gt.len());
    for (r, g) in recs.iter().zip(gt) {
        let pcs = per_pc(g);
        let blocks = r["tool"]["blocks"].as_array().expect("blocks");
        assert!(blocks.len() >= 2, "{}: {blocks:?}", r["kernel"]);
        let mut nonzero = 0;
        for b in blocks {
            let start = b["start"].as_u64().expect("record field");
            let want = pcs.get(&start).map_or(0, |c| c.0);
            assert_eq!(
                b["count"].as_u64().expect("record field"),
                want,
                "{} block at {start:#x}",
                r["kernel"]
            );
            nonzero += usize::from(want > 0);
        }
        assert!(nonzero >= 2, "{}", r["kernel"]);
    }
}

#[test]
fn opcode_hist_equals_ground_truth_per_launch() {
    if !have_hipcc() {
        return;
    }
    let (recs, _) = tool_run("opcode-hist", &[]);
    let gt = &baseline().1;
    assert_eq!(recs.len(), gt.len());
    for (r, g) in recs.iter().zip(gt) {
        let mut want: BTreeMap<String, u64> = BTreeMap::new();
        for (waves, op) in per_pc(g).into_values() {
            *want.entry(op).or_default() += waves;
        }
        let got: BTreeMap<String, u64> = r["tool"]["opcodes"]
            .as_array()
            .expect("opcodes")
            .iter()
            .map(|o| {
                (
                    o["opcode"].as_str().expect("record field").to_string(),
                    o["count"].as_u64().expect("record field"),
                )
            })
            .filter(|(_, c)| *c > 0)
            .collect();
        assert_eq!(got, want, "{}", r["kernel"]);
    }
}

#[test]
fn kernarg_prints_seed_002_line_per_launch() {
    if !have_hipcc() {
        return;
    }
    // Without --tool-out the records go to stderr, one line per launch.
    let o = exec(&["--tool", "kernarg"], &[]);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), baseline().0);
    let want = [
        "Kernel 0 - complex_float(char*, int): Total Grid Size Dims (HSA): (10000128, 1, 1) Workgroup Dims (HSA): (256, 1, 1) : GridDim (HIP): (39063, 1, 1).",
        "Kernel 1 - grid2d(float*, int, int): Total Grid Size Dims (HSA): (112, 40, 1) Workgroup Dims (HSA): (16, 8, 1) : GridDim (HIP): (7, 5, 1).",
        "Kernel 2 - grid3d(int*, int, int, int): Total Grid Size Dims (HSA): (24, 12, 8) Workgroup Dims (HSA): (8, 4, 2) : GridDim (HIP): (3, 3, 4).",
    ];
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("Kernel "))
        .collect();
    assert_eq!(lines, want, "stderr:\n{stderr}");
}

#[test]
fn selection_instruments_only_what_is_chosen() {
    if !have_hipcc() {
        return;
    }
    let gt = &baseline().1;
    let (recs, _) = tool_run("instr-count", &["--kernels", "grid[23]d"]);
    let got: Vec<(u64, &str)> = recs
        .iter()
        .map(|r| {
            (
                r["launch"].as_u64().expect("record field"),
                r["kernel"].as_str().expect("record field"),
            )
        })
        .collect();
    assert_eq!(got, [(1, "_Z6grid2dPfii"), (2, "_Z6grid3dPiiii")]);
    for r in &recs {
        let g = &gt[r["launch"].as_u64().expect("record field") as usize];
        assert_eq!(r["tool"]["wave_instructions"], g["wave_instructions"]);
    }
    let (recs, _) = tool_run("instr-count", &["--launches", "0-0"]);
    let got: Vec<u64> = recs
        .iter()
        .map(|r| r["launch"].as_u64().expect("record field"))
        .collect();
    assert_eq!(got, [0]);
    assert_eq!(
        recs[0]["tool"]["wave_instructions"],
        gt[0]["wave_instructions"]
    );
}

#[test]
fn bad_selection_is_a_clear_error() {
    if !have_hipcc() {
        return;
    }
    let o = exec(&["--tool", "instr-count", "--launches", "3-1"], &[]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("--launches \"3-1\": 1 is before 3"), "{e}");
    let o = exec(&["--tool", "no-such-tool"], &[]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("no-such-tool"), "{e}");
}

/// tests/exec/crowded.hip: every VGPR written by an asm block, so probe
/// registers must be spilled, and a 104,000-byte private array with a
/// recursive callee (a dynamic stack), so a probe area past the stack's
/// reserve would exceed the scratch a lane can have: no built-in tool can
/// place its probes. The tool error is reported; then the kernel runs uninstrumented
/// (`--on-tool-error skip`, the default) or the program stops (`abort`,
/// exit status 70).
#[test]
fn a_tool_error_skips_or_aborts_as_chosen() {
    if !have_hipcc() {
        return;
    }
    let app = hip_app(
        "lathe-exec-tool-test",
        "crowded",
        &["libhsa_runtime64.so", "liblathe_tool.so"],
    );
    let run = |opts: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_lathe"))
            .arg("exec")
            .args(opts)
            .arg("--")
            .arg(&app)
            .env_remove("HSA_TOOLS_LIB")
            .env_remove("LATHE_GROUND_TRUTH")
            .output()
            .expect("run lathe exec");
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        (o.status.code(), out, err)
    };
    let (code, out, err) = run(&[]);
    assert_eq!((code, out.as_str()), (Some(0), "crowded: ok\n"), "{err}");
    let why = "instrumenting _Z7crowdedPi with instr-count: _Z3fibi: no free registers for probes \
               (no scratch for probes: a private segment of 136880 bytes per lane is more than \
               the hardware's 131056)";
    for opts in [
        &["--tool", "instr-count"][..],
        &["--tool", "instr-count", "--on-tool-error", "skip"][..],
    ] {
        let (code, out, err) = run(opts);
        assert_eq!(
            (code, out.as_str()),
            (Some(0), "crowded: ok\n"),
            "{opts:?}: {err}"
        );
        assert!(err.contains(why), "{opts:?}: {err}");
        assert!(
            err.contains("crowded(int*) runs uninstrumented (--on-tool-error skip)"),
            "{opts:?}: {err}"
        );
    }
    let (code, out, err) = run(&["--tool", "instr-count", "--on-tool-error", "abort"]);
    assert_eq!(code, Some(70), "{out}{err}");
    assert!(!out.contains("crowded: ok"), "{out}");
    assert!(err.contains(why), "{err}");
    assert!(
        err.contains("stopping the program (--on-tool-error abort)"),
        "{err}"
    );
}

/// `mem-trace` under `lathe exec`, on tests/exec/app.hip (five small
/// launches): per launch, every traced access equals the emulator's access
/// log of an uninstrumented run as multisets of (instruction, lane), and at
/// each instruction the lanes' addresses agree relative to the lowest one
/// (absolute addresses differ between the two processes).
#[test]
fn mem_trace_equals_ground_truth_accesses_per_launch() {
    if !have_hipcc() {
        return;
    }
    let app = hip_app(
        "lathe-exec-test",
        "app",
        &["libhsa_runtime64.so", "liblathe_tool.so"],
    );
    let dir = out_dir("mem-trace");
    let (gt, trace) = (dir.join("truth.json"), dir.join("trace.json"));
    let run = |opts: &[&str], env: &[(&str, &std::ffi::OsStr)]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_lathe"));
        c.arg("exec")
            .args(opts)
            .arg("--")
            .arg(&app)
            .args(["1000", "3", "0"]);
        c.env_remove("HSA_TOOLS_LIB")
            .env_remove("LATHE_GROUND_TRUTH");
        for (k, v) in env {
            c.env(k, v);
        }
        let o = c.output().expect("run lathe exec");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let base = run(
        &[],
        &[
            ("LATHE_GROUND_TRUTH", gt.as_os_str()),
            ("LATHE_GROUND_TRUTH_ACCESSES", "1".as_ref()),
        ],
    );
    let traced = run(
        &[
            "--tool",
            "mem-trace",
            "--tool-out",
            trace.to_str().expect("utf-8 path"),
        ],
        &[],
    );
    assert_eq!(traced, base, "mem-trace changed the program's output");
    let read = |p: &Path| -> Vec<Value> {
        let v: Value = serde_json::from_slice(&std::fs::read(p).expect("written")).expect("JSON");
        v.as_array().expect("array").clone()
    };
    let (gt, recs) = (read(&gt), read(&trace));
    assert_eq!(recs.len(), gt.len(), "launches");
    assert!(recs.len() >= 5);
    // (pc, lane) multiset and per-pc relative addresses.
    type Shape = (Vec<(u64, u64)>, BTreeMap<u64, Vec<u64>>);
    let shape = |rows: Vec<(u64, u64, u64)>| -> Shape {
        let mut keys: Vec<(u64, u64)> = rows.iter().map(|r| (r.0, r.1)).collect();
        keys.sort_unstable();
        let mut by_pc: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for r in &rows {
            by_pc.entry(r.0).or_default().push(r.2);
        }
        for v in by_pc.values_mut() {
            let lo = v.iter().copied().min().unwrap_or(0);
            v.iter_mut().for_each(|a| *a -= lo);
            v.sort_unstable();
        }
        (keys, by_pc)
    };
    let field = |e: &Value, k: usize| e[k].as_u64().expect("number");
    // The tool's events are labelled.
    let named = |e: &Value, k: &str| e[k].as_u64().unwrap_or_else(|| panic!("{k} in {e}"));
    let mut traced_total = 0;
    for (r, g) in recs.iter().zip(&gt) {
        assert_eq!(r["kernel"], g["kernel"]);
        let t = &r["tool"];
        assert_eq!(t["dropped"], 0, "{}", r["kernel"]);
        let got: Vec<(u64, u64, u64)> = t["events"]
            .as_array()
            .expect("events")
            .iter()
            .map(|e| (named(e, "pc"), named(e, "lane"), named(e, "address")))
            .collect();
        let want: Vec<(u64, u64, u64)> = g["accesses"]
            .as_array()
            .expect("accesses")
            .iter()
            .map(|e| (field(e, 0), field(e, 1), field(e, 2)))
            .collect();
        traced_total += got.len();
        assert_eq!(
            shape(got),
            shape(want),
            "launch {} {}",
            r["launch"],
            r["kernel"]
        );
    }
    assert!(traced_total > 1000, "{traced_total} accesses traced");
}

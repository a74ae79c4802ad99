//! `lathe exec --stats`, `--stats-json` and `--kernel-trace` on a real
//! multi-kernel HIP program (tests/exec/app.hip: `scale(float*, float,
//! int)` L + 1 times, then `iota2d(int*, int)`), and what the `kernarg`
//! and `instr-count` tools and `--stats` say about the same launches:
//! names demangled, a rocprofv3-style per-kernel summary, the kernel trace
//! as rocprofv3's CSV and a Perfetto timeline, an instrumented kernel
//! counted by its original instructions, kernel arguments by type.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

mod common;
use common::{have_hipcc, hip_app, target_dir};

fn app() -> PathBuf {
    static APP: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    APP.get_or_init(|| {
        hip_app(
            "lathe-exec-profile-test",
            "app",
            &["libhsa_runtime64.so", "liblathe_tool.so"],
        )
    })
    .clone()
}

fn dir(name: &str) -> PathBuf {
    let d = target_dir().join("lathe-exec-profile-test").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create test dir");
    d
}

/// `lathe exec OPTS -- app 1000 3 0`: scale × 4, iota2d × 1.
fn exec(opts: &[&str]) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .arg("exec")
        .args(opts)
        .arg("--")
        .arg(app())
        .args(["1000", "3", "0"])
        .env_remove("LATHE_STATS")
        .env_remove("LATHE_STATS_JSON")
        .env_remove("LATHE_KERNEL_TRACE")
        .env_remove("LATHE_GROUND_TRUTH")
        .env_remove("HSA_TOOLS_LIB")
        .output()
        .expect("run lathe exec");
    assert!(
        o.status.success(),
        "lathe exec {opts:?}:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

const SCALE: &str = "scale(float*, float, int)";
const IOTA: &str = "iota2d(int*, int)";

/// `--stats`: one line per launch with the demangled name, then the
/// summary — per kernel calls, total, mean, min and max seconds, longest
/// total first — whose numbers are those of `--stats-json`'s launches.
#[test]
fn stats_lines_are_demangled_and_end_with_a_per_kernel_summary() {
    if !have_hipcc() {
        return;
    }
    let d = dir("stats");
    let json_path = d.join("stats.json");
    let o = exec(&[
        "--stats",
        "--stats-json",
        json_path.to_str().expect("utf-8"),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    let launches = read_json(&json_path);
    let launches = launches.as_array().expect("array");
    assert_eq!(launches.len(), 5, "{launches:?}");
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("lathe: kernel ") && !l.contains("summary"))
        .collect();
    assert_eq!(lines.len(), 5, "{err}");
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with(&format!(
                "lathe: kernel {SCALE} grid [1024,1,1] block [128,1,1] "
            )))
            .count(),
        3,
        "{err}"
    );
    assert!(!err.contains("_Z5scale"), "mangled name in:\n{err}");
    for l in &launches[..] {
        assert_eq!(
            l["kernel"].as_str().map(|k| k.starts_with("_Z")),
            Some(true)
        );
        assert!(l["name"] == SCALE || l["name"] == IOTA, "{l}");
    }
    // The summary: a title, a header, one row per kernel.
    let at = err
        .find("lathe: kernel summary: 2 kernel(s), 5 launch(es), ")
        .unwrap_or_else(|| panic!("no summary in:\n{err}"));
    let rows: Vec<Vec<&str>> = err[at..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with("lathe: "))
        .map(|l| l["lathe: ".len()..].split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 2, "{}", &err[at..]);
    let secs = |name: &str| -> Vec<f64> {
        launches
            .iter()
            .filter(|l| l["name"] == name)
            .map(|l| l["seconds"].as_f64().expect("seconds"))
            .collect()
    };
    let mut by_total: Vec<(&str, Vec<f64>)> = vec![(SCALE, secs(SCALE)), (IOTA, secs(IOTA))];
    by_total.sort_by(|a, b| b.1.iter().sum::<f64>().total_cmp(&a.1.iter().sum::<f64>()));
    for (row, (name, s)) in rows.iter().zip(&by_total) {
        assert_eq!(row[6..].join(" "), *name, "{row:?}");
        assert_eq!(row[0], s.len().to_string(), "{row:?}");
        let num = |i: usize| row[i].parse::<f64>().expect("number");
        let total: f64 = s.iter().sum();
        let close = |a: f64, b: f64| (a - b).abs() < 2e-6;
        assert!(close(num(1), total), "{row:?} vs {s:?}");
        assert!(close(num(2), total / s.len() as f64), "{row:?}");
        assert!(
            close(num(3), s.iter().copied().fold(f64::INFINITY, f64::min)),
            "{row:?}"
        );
        assert!(
            close(num(4), s.iter().copied().fold(0.0, f64::max)),
            "{row:?}"
        );
    }
    assert_eq!(err.matches("kernel summary").count(), 1, "{err}");
}

/// A CSV line of quoted fields (rocprofv3's quoting: `""` inside).
fn csv_fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    while chars.peek().is_some() {
        assert_eq!(chars.next(), Some('"'), "unquoted field in {line}");
        let mut f = String::new();
        loop {
            match chars.next() {
                Some('"') if chars.peek() == Some(&'"') => {
                    chars.next();
                    f.push('"');
                }
                Some('"') => break,
                Some(c) => f.push(c),
                None => panic!("unterminated field in {line}"),
            }
        }
        out.push(f);
        match chars.next() {
            Some(',') | None => {}
            Some(c) => panic!("{c:?} after a field in {line}"),
        }
    }
    out
}

/// `--kernel-trace PREFIX`: the CSV has rocprofv3's columns and a row per
/// launch with the demangled name and the launch's sizes; the Perfetto
/// timeline is valid JSON with a track per queue and a slice per launch,
/// matching the CSV's rows.
#[test]
fn kernel_trace_writes_rocprofv3_csv_and_a_perfetto_timeline() {
    if !have_hipcc() {
        return;
    }
    let d = dir("trace");
    let prefix = d.join("run");
    let stats = d.join("stats.json");
    exec(&[
        "--kernel-trace",
        prefix.to_str().expect("utf-8"),
        "--stats-json",
        stats.to_str().expect("utf-8"),
    ]);
    let launches = read_json(&stats);
    let launches = launches.as_array().expect("array");
    let csv = std::fs::read_to_string(d.join("run_kernel_trace.csv")).expect("the CSV");
    let mut lines = csv.lines();
    let header = csv_fields(lines.next().expect("header"));
    assert_eq!(
        header,
        [
            "Kind",
            "Agent_Id",
            "Queue_Id",
            "Stream_Id",
            "Thread_Id",
            "Dispatch_Id",
            "Kernel_Id",
            "Kernel_Name",
            "Correlation_Id",
            "Start_Timestamp",
            "End_Timestamp",
            "LDS_Block_Size",
            "Scratch_Size",
            "VGPR_Count",
            "Accum_VGPR_Count",
            "SGPR_Count",
            "Workgroup_Size_X",
            "Workgroup_Size_Y",
            "Workgroup_Size_Z",
            "Grid_Size_X",
            "Grid_Size_Y",
            "Grid_Size_Z"
        ]
    );
    let rows: Vec<Vec<String>> = lines.map(csv_fields).collect();
    assert_eq!(rows.len(), launches.len(), "{csv}");
    assert_eq!(rows.len(), 5);
    let col = |r: &Vec<String>, name: &str| -> String {
        r[header.iter().position(|h| h == name).expect("column")].clone()
    };
    let num = |r: &Vec<String>, name: &str| -> u64 { col(r, name).parse().expect("number") };
    let mut kernel_ids = std::collections::BTreeMap::new();
    for (i, (r, l)) in rows.iter().zip(launches).enumerate() {
        assert_eq!(r.len(), header.len());
        assert_eq!(col(r, "Kind"), "KERNEL_DISPATCH");
        assert_eq!(col(r, "Kernel_Name"), l["name"].as_str().expect("name"));
        assert_eq!(num(r, "Dispatch_Id"), i as u64 + 1);
        assert_eq!(num(r, "Correlation_Id"), i as u64 + 1);
        let sizes = |p: &str| {
            json!([
                num(r, &format!("{p}_X")),
                num(r, &format!("{p}_Y")),
                num(r, &format!("{p}_Z"))
            ])
        };
        assert_eq!(sizes("Grid_Size"), l["grid"]);
        assert_eq!(sizes("Workgroup_Size"), l["block"]);
        assert!(num(r, "End_Timestamp") > num(r, "Start_Timestamp"), "{r:?}");
        assert!(
            num(r, "VGPR_Count") > 0 && num(r, "SGPR_Count") > 0,
            "{r:?}"
        );
        // One id per kernel.
        let id = num(r, "Kernel_Id");
        assert_eq!(*kernel_ids.entry(col(r, "Kernel_Name")).or_insert(id), id);
        if i > 0 {
            assert!(num(r, "Start_Timestamp") >= num(&rows[i - 1], "End_Timestamp"));
        }
    }
    assert_eq!(kernel_ids.len(), 2);
    assert_eq!(
        kernel_ids.keys().cloned().collect::<Vec<_>>(),
        [IOTA, SCALE]
    );

    let t = read_json(&d.join("run_kernel_trace.perfetto.json"));
    let ev = t["traceEvents"].as_array().expect("traceEvents");
    let tracks: Vec<&Value> = ev
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .collect();
    let slices: Vec<&Value> = ev.iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(slices.len(), rows.len());
    for (s, r) in slices.iter().zip(&rows) {
        assert_eq!(s["name"], col(r, "Kernel_Name"));
        assert_eq!(s["tid"], num(r, "Queue_Id"));
        assert!(
            tracks
                .iter()
                .any(|t| t["tid"] == s["tid"] && t["pid"] == s["pid"]),
            "slice on a track with no name: {s}"
        );
        let ts = s["ts"].as_f64().expect("ts");
        assert!(
            (ts * 1000.0 - num(r, "Start_Timestamp") as f64).abs() < 1.0,
            "{s}"
        );
        // The slice's counts: 64-wide waves of the launch's work-groups.
        let groups: u64 = ["X", "Y", "Z"]
            .iter()
            .map(|a| {
                num(r, &format!("Grid_Size_{a}")).div_ceil(num(r, &format!("Workgroup_Size_{a}")))
            })
            .product();
        let per_group =
            (num(r, "Workgroup_Size_X") * num(r, "Workgroup_Size_Y") * num(r, "Workgroup_Size_Z"))
                .div_ceil(64);
        assert_eq!(s["args"]["workgroups"], groups, "{s}");
        assert_eq!(s["args"]["waves"], groups * per_group, "{s}");
        let dur = s["dur"].as_f64().expect("dur");
        let want = (num(r, "End_Timestamp") - num(r, "Start_Timestamp")) as f64 / 1000.0;
        assert!((dur - want).abs() < 1e-3, "{s}");
    }
}

/// Under `--tool instr-count`, `--stats-json` counts the original kernel's
/// instructions — what instr-count measures — and gives the instrumented
/// code's count apart, labelled.
#[test]
fn stats_under_a_tool_count_the_original_kernel() {
    if !have_hipcc() {
        return;
    }
    let d = dir("stats-tool");
    let (stats, tool) = (d.join("stats.json"), d.join("tool.json"));
    let o = exec(&[
        "--stats",
        "--stats-json",
        stats.to_str().expect("utf-8"),
        "--tool",
        "instr-count",
        "--tool-out",
        tool.to_str().expect("utf-8"),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    let (s, t) = (read_json(&stats), read_json(&tool));
    let (s, t) = (s.as_array().expect("array"), t.as_array().expect("array"));
    assert_eq!(s.len(), 5);
    assert_eq!(t.len(), 5);
    for (l, r) in s.iter().zip(t) {
        assert_eq!(l["kernel"], r["kernel"]);
        assert_eq!(
            l["wave_instructions"], r["tool"]["wave_instructions"],
            "{l} vs instr-count {r}"
        );
        assert_eq!(l["instrumented"], true, "{l}");
        assert!(
            l["instrumented_wave_instructions"].as_u64() > l["wave_instructions"].as_u64(),
            "{l}"
        );
        let line = format!(
            "{} wave-instructions (original kernel; {} with the tool's probes)",
            l["wave_instructions"], l["instrumented_wave_instructions"]
        );
        assert!(err.contains(&line), "{line} not in:\n{err}");
    }
    // Without a tool: the same counts, nothing labelled.
    let plain = d.join("plain.json");
    exec(&["--stats-json", plain.to_str().expect("utf-8")]);
    let p = read_json(&plain);
    for (a, b) in p.as_array().expect("array").iter().zip(s) {
        assert_eq!(a["wave_instructions"], b["wave_instructions"]);
        assert!(a.get("instrumented").is_none(), "{a}");
    }
}

/// The `kernarg` tool gives each argument its type from the demangled
/// signature: `scale`'s `float` is 2 (then 0.5), not its bits; its pointer
/// is hex; its `int` is 1000 (then 2000); `block_dim` comes from the
/// dispatch packet (code object v4 has no hidden group sizes).
#[test]
fn kernarg_prints_arguments_by_type() {
    if !have_hipcc() {
        return;
    }
    let d = dir("kernarg");
    let out = d.join("kernarg.json");
    exec(&[
        "--tool",
        "kernarg",
        "--tool-out",
        out.to_str().expect("utf-8"),
    ]);
    let v = read_json(&out);
    let v = v.as_array().expect("array");
    assert_eq!(v.len(), 5);
    for (i, r) in v.iter().enumerate() {
        let t = &r["tool"];
        let explicit: Vec<&Value> = t["args"]
            .as_array()
            .expect("args")
            .iter()
            .filter(|a| !a["kind"].as_str().unwrap_or("").starts_with("hidden_"))
            .collect();
        if r["name"] == SCALE {
            let (a, n) = if i < 3 { (2.0, 1000) } else { (0.5, 2000) };
            assert_eq!(explicit.len(), 3, "{t}");
            let p = explicit[0]["value"].as_str().expect("a pointer as text");
            assert!(
                p.starts_with("0x") && u64::from_str_radix(&p[2..], 16).is_ok_and(|x| x > 0),
                "{p}"
            );
            assert_eq!(explicit[0]["type"], "float*");
            assert_eq!(explicit[1]["type"], "float");
            assert_eq!(explicit[1]["value"].as_f64(), Some(a), "{t}");
            assert_eq!(explicit[1]["bits"], u64::from(f32::to_bits(a as f32)));
            assert_eq!(explicit[2]["type"], "int");
            assert_eq!(explicit[2]["value"], n);
            assert_eq!(t["block_dim"], json!([128, 1, 1]), "{t}");
        } else {
            assert_eq!(r["name"], IOTA);
            assert_eq!(explicit[0]["type"], "int*");
            assert_eq!(explicit[1]["value"], 64);
            assert_eq!(t["block_dim"], json!([16, 4, 1]), "{t}");
            assert_eq!(t["grid_dim"], json!([4, 2, 1]), "{t}");
        }
    }
}

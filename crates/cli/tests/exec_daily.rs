//! `lathe exec` and `lathe run` as daily tools (issue 19): real SIGINT and
//! SIGTERM while a long kernel runs (the program is gone, the waves'
//! positions are reported in code-object terms, the exit status is
//! 128 + the signal, output files are written marked incomplete, no
//! temporary directory is left), and the fault report of `exec` (plain
//! and under `--tool`) naming the same kernel, offset, instruction,
//! work-group and lane as `lathe run` on the same bug.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;
use common::{have_hipcc, hip_app, tmpdir};

fn app() -> PathBuf {
    static APP: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    APP.get_or_init(|| {
        hip_app(
            "lathe-exec-daily",
            "daily",
            &["libhsa_runtime64.so", "liblathe_tool.so"],
        )
    })
    .clone()
}

fn lathe_cmd(tmp: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_lathe"));
    for v in [
        "LATHE_STATS",
        "LATHE_STATS_JSON",
        "LATHE_TRACE",
        "LATHE_HSA_LIB",
        "HSA_TOOLS_LIB",
        "LATHE_TIMEOUT",
    ] {
        c.env_remove(v);
    }
    c.env("TMPDIR", tmp);
    // Lathe keeps an ignored SIGINT ignored (as a shell's background job
    // expects), and a test run started from a non-interactive shell's
    // background job inherits SIGINT ignored. These tests are about a
    // terminal's signals, so the child starts with the default disposition
    // whatever the test process inherited.
    // SAFETY: the closure runs in the forked child before exec and calls
    // only signal(2), which is async-signal-safe; it touches no memory
    // shared with the parent.
    unsafe {
        use std::os::unix::process::CommandExt;
        c.pre_exec(|| {
            for sig in [libc::SIGINT, libc::SIGTERM] {
                if libc::signal(sig, libc::SIG_DFL) == libc::SIG_ERR {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    c
}

fn kill(pid: i32, sig: i32) {
    // SAFETY: kill(2) on a process this test started.
    assert_eq!(unsafe { libc::kill(pid, sig) }, 0, "kill {pid} {sig}");
}

/// Reads the child's stdout until a line starting with `want`; returns the
/// lines read.
fn wait_for_line(child: &mut Child, want: &str) -> Vec<String> {
    let out = child.stdout.take().expect("piped stdout");
    let mut lines = Vec::new();
    for l in BufReader::new(out).lines() {
        let l = l.expect("read stdout");
        let hit = l.starts_with(want);
        lines.push(l);
        if hit {
            return lines;
        }
    }
    panic!("no line {want:?} in {lines:?}");
}

/// Whether process `pid` exists (a zombie counts: not reaped).
fn alive(pid: i32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

fn finish(child: Child) -> (Output, Duration) {
    let t = Instant::now();
    let o = child.wait_with_output().expect("wait for lathe");
    (o, t.elapsed())
}

/// `lathe exec [OPTS] -- daily spin` interrupted by `sig` about a second
/// into its first launch: returns lathe's output, stderr, the program's
/// pid and the temporary directory lathe was given.
fn interrupted_exec(opts: &[&str], sig: i32, whole_group: bool) -> (Output, String, i32, PathBuf) {
    let tmp = tmpdir(&format!("exec-daily-signal-{sig}-{}", opts.len()));
    let mut cmd = lathe_cmd(&tmp);
    cmd.arg("exec")
        .args(opts)
        .arg("--")
        .arg(app())
        .args(["spin", "2000000000", "3"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if whole_group {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd.spawn().expect("run lathe exec");
    let lines = wait_for_line(&mut child, "launch 0");
    let pid: i32 = lines
        .iter()
        .find_map(|l| l.strip_prefix("daily: pid "))
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("no pid in {lines:?}"));
    // The first launch loads code (and under --tool instruments it) before
    // the kernel runs; on a loaded machine that takes seconds.
    let settle = if opts.contains(&"--tool") { 6000 } else { 3000 };
    std::thread::sleep(Duration::from_millis(settle));
    if whole_group {
        // As a terminal's Ctrl-C: every process of the group.
        kill(-(child.id() as i32), sig);
    } else {
        // As `timeout -s INT`: lathe only.
        kill(child.id() as i32, sig);
    }
    let (o, took) = finish(child);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(took < Duration::from_secs(20), "took {took:?}:\n{err}");
    (o, err, pid, tmp)
}

fn check_interrupted(o: &Output, err: &str, pid: i32, tmp: &Path, sig: i32, name: &str) {
    assert_eq!(o.status.code(), Some(128 + sig), "stderr:\n{err}");
    assert!(!alive(pid), "the program {pid} outlived lathe exec:\n{err}");
    assert!(
        err.contains(&format!("{name} while _Z4spinPii was running; ")),
        "no wave report:\n{err}"
    );
    // Each wave named in code-object terms: kernel + offset, instruction
    // (work-group 0 runs first; how many run at once depends on the cores).
    let line = err
        .lines()
        .find(|l| {
            let l = l.trim_start();
            l.starts_with("wave 0 of work-group (0, 0, 0): at pc 0x")
                || l.starts_with("wave 0 of work-group (0, 0, 0): at original pc 0x")
        })
        .unwrap_or_else(|| panic!("no line for work-group 0:\n{err}"));
    if !line.contains("original pc") {
        assert!(line.contains("(_Z4spinPii+0x"), "{line}");
    }
    assert!(line.contains(" wave-instructions"), "{line}");
    assert!(!err.contains("WaveId"), "Rust Debug text:\n{err}");
    let left: Vec<_> = std::fs::read_dir(tmp)
        .expect("read tmp")
        .map(|e| e.expect("entry").path())
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

fn read_json(p: &Path) -> Value {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).expect("valid JSON")
}

#[test]
fn sigint_to_lathe_exec_stops_the_program_and_writes_incomplete_outputs() {
    if !have_hipcc() {
        return;
    }
    let dir = tmpdir("exec-daily-sigint-out");
    let (stats, tool) = (dir.join("stats.json"), dir.join("tool.json"));
    let (o, err, pid, tmp) = interrupted_exec(
        &[
            "--stats-json",
            stats.to_str().expect("utf-8"),
            "--tool",
            "instr-count",
            "--tool-out",
            tool.to_str().expect("utf-8"),
        ],
        libc::SIGINT,
        false,
    );
    check_interrupted(&o, &err, pid, &tmp, libc::SIGINT, "SIGINT");
    // Under --tool the waves are in the instrumented kernel: named by the
    // original instruction.
    assert!(err.contains("at original pc 0x"), "{err}");
    for f in [&stats, &tool] {
        let v = read_json(f);
        assert_eq!(
            v["incomplete"].as_str(),
            Some("interrupted by SIGINT"),
            "{}: {v:#}",
            f.display()
        );
        assert!(v["launches"].is_array(), "{v:#}");
    }
}

#[test]
fn sigterm_to_lathe_exec_stops_the_program() {
    if !have_hipcc() {
        return;
    }
    let stats = tmpdir("exec-daily-sigterm-out").join("stats.json");
    let (o, err, pid, tmp) = interrupted_exec(
        &["--stats-json", stats.to_str().expect("utf-8")],
        libc::SIGTERM,
        false,
    );
    check_interrupted(&o, &err, pid, &tmp, libc::SIGTERM, "SIGTERM");
    assert!(!err.contains("original pc"), "no instrumentation:\n{err}");
    let v = read_json(&stats);
    assert_eq!(v["incomplete"].as_str(), Some("interrupted by SIGTERM"));
}

#[test]
fn ctrl_c_to_the_whole_process_group_is_one_interrupt() {
    if !have_hipcc() {
        return;
    }
    let (o, err, pid, tmp) = interrupted_exec(&[], libc::SIGINT, true);
    check_interrupted(&o, &err, pid, &tmp, libc::SIGINT, "SIGINT");
}

#[test]
fn sigint_to_lathe_run_reports_waves_and_writes_out_files() {
    if !have_hipcc() {
        return;
    }
    let dir = tmpdir("run-daily-sigint");
    let out = dir.join("out.bin");
    let child = lathe_cmd(&dir)
        .args(["run"])
        .arg(app())
        .args(["--kernel", "spin", "--grid", "256", "--block", "64", "-a"])
        .arg(format!("buf:out:1024:byte:7:out={}", out.display()))
        .args(["-a", "i32:2000000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run lathe run");
    std::thread::sleep(Duration::from_millis(1500));
    kill(child.id() as i32, libc::SIGINT);
    let (o, took) = finish(child);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert_eq!(o.status.code(), Some(130), "stderr:\n{err}");
    assert!(
        err.contains("SIGINT while _Z4spinPii was running; "),
        "{err}"
    );
    assert!(
        err.lines().any(|l| l
            .trim_start()
            .starts_with("wave 0 of work-group (0, 0, 0): at pc 0x")
            && l.contains("(_Z4spinPii+0x")),
        "{err}"
    );
    assert!(err.contains("contents at the time of the signal"), "{err}");
    // The kernel had not stored yet: the fill is still there.
    assert_eq!(
        std::fs::read(&out).expect("out= file written"),
        vec![7u8; 1024]
    );
}

/// The lines of a fault report from `at ` and `in ` on (trimmed), and its
/// first line.
fn report_lines(text: &str) -> (String, String, String) {
    let start = text
        .lines()
        .position(|l| l.contains("GPU memory fault in "))
        .unwrap_or_else(|| panic!("no fault report:\n{text}"));
    let lines: Vec<&str> = text.lines().skip(start).map(str::trim).collect();
    let first = lines[0]
        .trim_start_matches("lathe: error: ")
        .trim_start_matches("lathe: ");
    let at = lines
        .iter()
        .find(|l| l.starts_with("at "))
        .unwrap_or_else(|| panic!("no `at` line:\n{text}"));
    let inw = lines
        .iter()
        .find(|l| l.starts_with("in "))
        .unwrap_or_else(|| panic!("no `in` line:\n{text}"));
    (first.to_string(), at.to_string(), inw.to_string())
}

#[test]
fn exec_fault_report_names_what_lathe_run_names() {
    if !have_hipcc() {
        return;
    }
    let dir = tmpdir("exec-daily-fault");
    // lathe run on the same kernel and the same bug: a 64-byte buffer.
    let run = lathe_cmd(&dir)
        .arg("run")
        .arg(app())
        .args([
            "--kernel",
            "strided_store",
            "--grid",
            "64",
            "--block",
            "64",
            "-a",
            "buf:p:64",
            "-a",
            "i32:7",
        ])
        .output()
        .expect("run lathe run");
    let run_err = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(!run.status.success(), "{run_err}");
    let (run_first, run_at, run_in) = report_lines(&run_err);
    assert!(
        run_in.contains("lane 1 (the first faulting lane)"),
        "{run_err}"
    );
    assert!(run_at.contains("(_Z13strided_storePii+0x"), "{run_err}");

    let stats = dir.join("stats.json");
    let tool_out = dir.join("tool.json");
    for tool in [false, true] {
        let mut cmd = lathe_cmd(&dir);
        cmd.arg("exec")
            .args(["--stats-json", stats.to_str().expect("utf-8")]);
        if tool {
            cmd.args([
                "--tool",
                "instr-count",
                "--tool-out",
                tool_out.to_str().expect("utf-8"),
            ]);
        }
        let o = cmd.arg("--").arg(app()).arg("oob").output().expect("exec");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(128 + 6), "{err}");
        let (first, at, inw) = report_lines(&err);
        // Same kernel and kind of access; the address differs (another
        // allocator), so compare up to it.
        let upto = |s: &str| s.split(" at 0x").next().unwrap_or_default().to_string();
        assert_eq!(upto(&first), upto(&run_first), "{err}");
        assert_eq!(inw, run_in, "{err}");
        if tool {
            // `at original pc 0x… (kernel+off), instrumented pc 0x…: inst`
            let orig = at.replace("at original pc", "at pc");
            let (place, inst) = orig
                .split_once(", instrumented pc")
                .expect("instrumented pc");
            let inst = inst.split_once(": ").expect("instruction").1;
            assert_eq!(format!("{place}: {inst}"), run_at, "{err}");
            let v = read_json(&tool_out);
            assert!(
                v["incomplete"]
                    .as_str()
                    .is_some_and(|s| s.contains("_Z13strided_storePii")),
                "{v:#}"
            );
        } else {
            assert_eq!(at, run_at, "{err}");
        }
        assert!(
            err.contains("bytes past the end of the allocation at 0x"),
            "{err}"
        );
        let v = read_json(&stats);
        assert!(
            v["incomplete"]
                .as_str()
                .is_some_and(|s| s.starts_with("kernel _Z13strided_storePii stopped")),
            "{v:#}"
        );
    }
}

fn lathe_out(args: &[&str]) -> Output {
    let tmp = tmpdir("daily-misc");
    lathe_cmd(&tmp).args(args).output().expect("run lathe")
}

fn stderr_of(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn one_kernel_name_matcher_accepts_the_source_spelling() {
    if !have_hipcc() {
        return;
    }
    let app = app();
    let app = app.to_str().expect("utf-8");
    for name in [
        "reduce_sum",
        "reduce_sum(const float*, float*, int)",
        "reduce_sum(const float *, float *, int)",
        "reduce_sum(float const*, float*, int)",
    ] {
        for cmd in [
            &["cfg", app, "--kernel", name][..],
            &["disasm", app, "--kernel", name],
        ] {
            let o = lathe_out(cmd);
            assert!(o.status.success(), "{cmd:?}: {}", stderr_of(&o));
        }
    }
    // run --tool names the kernel as run does.
    let o = lathe_out(&[
        "run",
        app,
        "--kernel",
        "reduce_sum(const float*, float*, int)",
        "--grid",
        "64",
        "--block",
        "64",
        "-a",
        "buf:in:256:f32:1",
        "-a",
        "buf:out:4",
        "-a",
        "i32:64",
        "--tool",
        "block-count",
    ]);
    assert!(o.status.success(), "{}", stderr_of(&o));
    let o = lathe_out(&["cfg", app, "--kernel", "reduce_sum(int)"]);
    assert!(!o.status.success());
    assert!(
        stderr_of(&o).contains("reduce_sum(float const*, float*, int)"),
        "{}",
        stderr_of(&o)
    );
}

#[test]
fn grid_warnings_and_blocks() {
    if !have_hipcc() {
        return;
    }
    let app = app();
    let app = app.to_str().expect("utf-8");
    let run = |grid: &[&str]| {
        let mut a = vec!["run", app, "--kernel", "spin", "--block", "64"];
        a.extend_from_slice(grid);
        a.extend_from_slice(&["-a", "buf:out:4096", "-a", "i32:1"]);
        let o = lathe_out(&a);
        assert!(o.status.success(), "{a:?}: {}", stderr_of(&o));
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr_of(&o),
        )
    };
    let (_, err) = run(&["--grid", "4"]);
    assert!(
        err.contains("grid x = 4 work-items is smaller than one work-group (64)"),
        "{err}"
    );
    let (_, err) = run(&["--grid", "1000"]);
    assert!(
        err.contains("grid x = 1000 work-items is not a multiple of the work-group size 64"),
        "{err}"
    );
    let (out, err) = run(&["--blocks", "4"]);
    assert!(!err.contains("warning"), "{err}");
    assert!(out.contains("grid 256x1x1 block 64x1x1"), "{out}");
    assert!(out.contains("4 work-groups, 4 waves"), "{out}");
}

#[test]
fn empty_tool_selections_are_reported() {
    if !have_hipcc() {
        return;
    }
    let tmp = tmpdir("daily-empty");
    let app = app();
    let o = lathe_cmd(&tmp)
        .args([
            "exec",
            "--tool",
            "instr-count",
            "--kernels",
            "nomatch",
            "--",
        ])
        .arg(&app)
        .args(["spin", "1", "2"])
        .output()
        .expect("exec");
    let err = stderr_of(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(
            "no launch was instrumented: --kernels \"nomatch\" selected none of the program's"
        ),
        "{err}"
    );
    let o = lathe_cmd(&tmp)
        .args(["exec", "--tool", "instr-count", "--launches", "7", "--"])
        .arg(&app)
        .args(["spin", "1", "2"])
        .output()
        .expect("exec");
    assert!(
        stderr_of(&o).contains("--launches 7 selected none"),
        "{}",
        stderr_of(&o)
    );
    let o = lathe_cmd(&tmp)
        .args(["exec", "--tool", "instr-count", "--", "/bin/true"])
        .output()
        .expect("exec");
    assert!(o.status.success());
    assert!(
        stderr_of(&o).contains("never started an HSA runtime"),
        "{}",
        stderr_of(&o)
    );
}

#[test]
fn a_target_the_program_or_runtime_cannot_serve_fails_before_it_starts() {
    if !have_hipcc() {
        return;
    }
    let tmp = tmpdir("daily-target");
    let app = app();
    for (t, want) in [
        ("gfx942", "holds GPU code for gfx90a"),
        ("gfx1030", "needs code for gfx1030"),
        ("gfx1031", "Lathe's runtime models gfx90a (MI210)"),
    ] {
        let o = lathe_cmd(&tmp)
            .args(["exec", "--target", t, "--"])
            .arg(&app)
            .args(["spin", "1", "1"])
            .output()
            .expect("exec");
        let err = stderr_of(&o);
        assert!(!o.status.success(), "{err}");
        assert!(err.contains(want), "{err}");
        assert!(
            o.stdout.is_empty(),
            "the program ran: {:?}",
            String::from_utf8_lossy(&o.stdout)
        );
        assert_eq!(err.lines().count(), 1, "one line: {err}");
    }
}

#[test]
fn a_closed_stdout_ends_exec_as_sigpipe_would() {
    if !have_hipcc() {
        return;
    }
    let tmp = tmpdir("daily-pipe");
    let mut child = lathe_cmd(&tmp)
        .args(["exec", "--"])
        .arg(app())
        .args(["spin", "1", "200"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("exec");
    drop(child.stdout.take());
    let o = child.wait_with_output().expect("wait");
    let err = stderr_of(&o);
    assert_eq!(o.status.code(), Some(128 + libc::SIGPIPE), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

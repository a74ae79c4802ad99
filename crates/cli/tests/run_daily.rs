//! `lathe run` as a daily tool (issue 19): `--tool` keeps `--dump`,
//! `--expect` and text output; `--grid` and `--block` each override a
//! spec; typed `--expect`; scalar arguments checked against the kernel's
//! signature; sizes beyond the machine's memory refused; and the smaller
//! `disasm`/`cfg`/`info` fixes. Inputs: the embedded demo library
//! (crates/cli/demo, built from corpus sources) and code objects clang-22
//! builds from corpus/hip through the shared cache.

use std::path::{Path, PathBuf};

mod common;

use common::{lathe, lathe_fails as fails, lathe_json as json, lathe_ok as ok};
use lathe_testkit::{Build, Output};
use serde_json::Value;

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/demo/libdemo.so");

fn tmpdir(name: &str) -> PathBuf {
    common::tmpdir(&format!("rundaily-{name}"))
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// axpy (y = a*x + y) over `n` floats: y = 1, x = 0, 1, 2, ...
fn axpy_args(n: usize, a: &str) -> Vec<String> {
    vec![
        "--kernel".into(),
        "axpy".into(),
        "-a".into(),
        format!("buf:y:{}:f32:1", 4 * n),
        "-a".into(),
        format!("buf:x:{}:iota_f32", 4 * n),
        "-a".into(),
        format!("f32:{a}"),
        "-a".into(),
        format!("i32:{n}"),
    ]
}

fn run_args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn run_tool_keeps_dump_and_text_output() {
    let mut a: Vec<String> = vec!["run".into(), DEMO.into()];
    a.extend(axpy_args(128, "2"));
    a.extend(
        [
            "--grid",
            "128",
            "--block",
            "64",
            "--tool",
            "instr-count",
            "--dump",
            "y:f32",
        ]
        .map(String::from),
    );
    let text = ok(&run_args(&a));
    // Text, not JSON, without --json.
    assert!(!text.trim_start().starts_with('{'), "{text}");
    assert!(text.contains("under instr-count"), "{text}");
    assert!(text.contains("wave_instructions: "), "{text}");
    // The dump after the tool's run: y[i] = 2*i + 1.
    assert!(text.contains("buffer y (512 bytes) as f32:"), "{text}");
    assert!(text.contains("[    0] 1.0 3.0 5.0 7.0"), "{text}");
    assert!(text.contains("[  120] 241.0 243.0"), "{text}");
    // JSON when asked, with the dump.
    let j = json(&run_args(&a));
    assert_eq!(j["tool"]["name"], "instr-count");
    assert_eq!(j["dumps"][0]["values"][5], 11.0);
    // A HIP tool too.
    let griddim = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/tools/griddim")
        .display()
        .to_string();
    let n = a.len();
    a[n - 3] = griddim;
    let text = ok(&run_args(&a));
    assert!(text.contains("GridDim (HIP): (2, 1, 1)."), "{text}");
    assert!(text.contains("[    0] 1.0 3.0 5.0 7.0"), "{text}");
}

#[test]
fn grid_and_block_each_override_a_spec() {
    let dir = tmpdir("spec");
    let spec = dir.join("axpy.json");
    std::fs::write(
        &spec,
        r#"{"kernel": "axpy", "grid": [256], "block": [64],
  "args": [{"buffer": {"name": "y", "size": 1024, "fill": "f32:1"}},
           {"buffer": {"name": "x", "size": 1024, "fill": "iota_f32"}}, {"f32": 2.0}, {"i32": 256}]}"#,
    )
    .expect("spec");
    let j = json(&["run", DEMO, "--spec", s(&spec)]);
    assert_eq!(
        (j["grid"][0].as_u64(), j["block"][0].as_u64()),
        (Some(256), Some(64))
    );
    let j = json(&["run", DEMO, "--spec", s(&spec), "--grid", "128"]);
    assert_eq!(
        (j["grid"][0].as_u64(), j["block"][0].as_u64()),
        (Some(128), Some(64))
    );
    assert_eq!(j["workgroups"], 2);
    let j = json(&["run", DEMO, "--spec", s(&spec), "--block", "128"]);
    assert_eq!(
        (j["grid"][0].as_u64(), j["block"][0].as_u64()),
        (Some(256), Some(128))
    );
    assert_eq!(j["workgroups"], 2);
    let j = json(&["run", DEMO, "--spec", s(&spec), "--blocks", "1"]);
    assert_eq!(
        (j["grid"][0].as_u64(), j["block"][0].as_u64()),
        (Some(64), Some(64))
    );
    // Under --tool too.
    let j = json(&[
        "run",
        DEMO,
        "--spec",
        s(&spec),
        "--grid",
        "64",
        "--tool",
        "instr-count",
    ]);
    assert_eq!(j["workgroups"], 1);
}

fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn typed_expect_reports_elements_and_errors() {
    let dir = tmpdir("typed");
    // y[i] = 2 * i + 1 after the run.
    let mut y: Vec<f32> = (0..128).map(|i| 2.0 * i as f32 + 1.0).collect();
    let exact = dir.join("exact.f32");
    std::fs::write(&exact, floats(&y)).expect("write");
    y[7] += 0.5;
    y[100] -= 1.0;
    let off = dir.join("off.f32");
    std::fs::write(&off, floats(&y)).expect("write");
    let mut base: Vec<String> = vec!["run".into(), DEMO.into()];
    base.extend(axpy_args(128, "2"));
    base.extend(["--grid", "128", "--block", "64"].map(String::from));
    let with = |x: &str| {
        let mut a = base.clone();
        a.extend(["--expect".to_string(), x.to_string()]);
        a
    };
    let a = with(&format!("y:f32={}", s(&exact)));
    let text = ok(&run_args(&a));
    assert!(text.contains("buffer y matches"), "{text}");
    assert!(text.contains("as f32 (128 elements"), "{text}");
    let a = with(&format!("y:f32={}", s(&off)));
    let e = fails(&run_args(&a));
    assert!(e.contains("2 of 128 elements differ"), "{e}");
    assert!(e.contains("[7] got 15 expected 15.5"), "{e}");
    assert!(e.contains("[100] got 201 expected 200"), "{e}");
    assert!(e.contains("max abs error 1,"), "{e}");
    // Within a relative tolerance (0.5 / 15.5 = 3.2 %).
    let a = with(&format!("y:f32={}:rtol=0.05", s(&off)));
    let text = ok(&run_args(&a));
    assert!(text.contains("rtol 0.05"), "{text}");
    let a = with(&format!("y:f32={}:rtol=0.01", s(&off)));
    let e = fails(&run_args(&a));
    assert!(e.contains("1 of 128 elements differ"), "{e}");
    // Or an absolute one.
    let a = with(&format!("y:f32={}:atol=1", s(&off)));
    ok(&run_args(&a));
    // JSON names the elements.
    let mut a = with(&format!("y:f32={}", s(&off)));
    a.insert(0, "--json".into());
    let out = common::lathe(&run_args(&a));
    assert!(!out.status.success());
    // The run's document, then the error's.
    let j: Value = serde_json::Deserializer::from_slice(&out.stdout)
        .into_iter()
        .next()
        .expect("a document")
        .expect("json");
    let x = &j["expect"][0];
    assert_eq!(x["mismatches"], 2);
    assert_eq!(x["first_mismatches"][0]["index"], 7);
    assert_eq!(x["first_mismatches"][0]["expected"], 15.5);
    assert_eq!(x["first_mismatches"][0]["actual"], 15.0);
    assert_eq!(x["max_abs_error"], 1.0);
    // Integers compare exactly: the same bytes as i32 differ in 2 elements.
    let a = with(&format!("y:i32={}", s(&off)));
    let e = fails(&run_args(&a));
    assert!(e.contains("2 of 128 elements differ"), "{e}");
    let a = with(&format!("y:i32={}:rtol=0.1", s(&off)));
    let e = fails(&run_args(&a));
    assert!(e.contains("compared exactly"), "{e}");
    // The byte form stays.
    let a = with(&format!("y={}", s(&off)));
    let e = fails(&run_args(&a));
    assert!(e.contains("byte(s) differ, first at offset 30"), "{e}");
}

#[test]
fn scalar_arguments_are_checked_against_the_signature() {
    let run = |a_arg: &str, n_arg: &str| {
        let out = lathe(&[
            "run",
            DEMO,
            "--kernel",
            "axpy",
            "--grid",
            "64",
            "--block",
            "64",
            "-a",
            "buf:y:256",
            "-a",
            "buf:x:256",
            "-a",
            a_arg,
            "-a",
            n_arg,
        ]);
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    assert_eq!(run("f32:2", "i32:64"), "", "a well-typed launch is quiet");
    // axpy(float*, float const*, float a, int n)
    let e = run("i32:2", "i32:64");
    assert!(
        e.contains("argument #3 has type `float` (floating-point) but i32:2 was given"),
        "{e}"
    );
    assert!(e.contains("(3e-45)"), "i32 2's bits as a float: {e}");
    assert!(e.contains("pass it as f32:VALUE"), "{e}");
    let e = run("f32:2", "f32:1000");
    assert!(
        e.contains("argument #4 has type `int` (integer) but f32:1000 was given"),
        "{e}"
    );
    assert!(e.contains("1148846080"), "f32 1000's bits as an int: {e}");
    assert!(e.contains("pass it as i32:VALUE"), "{e}");
    // Under --tool too.
    let out = lathe(&[
        "run",
        DEMO,
        "--kernel",
        "axpy",
        "--grid",
        "64",
        "--block",
        "64",
        "-a",
        "buf:y:256",
        "-a",
        "buf:x:256",
        "-a",
        "i32:2",
        "-a",
        "i32:64",
        "--tool",
        "instr-count",
    ]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("argument #3 has type `float`"), "{e}");
}

#[test]
fn an_lds_overflow_from_a_large_block_suggests_a_smaller_block() {
    // block_reduce_i32 (corpus/hip/k_lds.hip) reduces in `__shared__ int
    // buf[256]`, indexed by threadIdx.x: a work-group of 512 runs past it.
    let co = Build::new("k_lds.hip", &["gfx90a"], Output::CodeObject).build();
    let run = |block: &str| {
        fails(&[
            "run",
            s(&co),
            "--kernel",
            "block_reduce_i32",
            "--grid",
            "512",
            "--block",
            block,
            "-a",
            "buf:out:64",
            "-a",
            "buf:in:2048",
            "-a",
            "i32:512",
        ])
    };
    let e = run("512");
    assert!(e.contains("LDS fault in"), "{e}");
    assert!(e.contains("try a smaller --block than 512x1x1"), "{e}");
    assert!(
        e.contains("bytes of LDS per work-group; the work-group has 1024 (1024 static + 0 dynamic; the hardware allows 65536)"),
        "{e}"
    );
    assert!(!e.contains("--dynamic-lds"), "not the fix here: {e}");
    // 256 work-items fit.
    ok(&[
        "run",
        s(&co),
        "--kernel",
        "block_reduce_i32",
        "--grid",
        "512",
        "--block",
        "256",
        "-a",
        "buf:out:64",
        "-a",
        "buf:in:2048",
        "-a",
        "i32:512",
    ]);
}

#[test]
fn disasm_names_calls_and_backward_branches_in_lathe_style_only() {
    let lathe_style = ok(&["disasm", DEMO, "-t", "gfx90a"]);
    let llvm = ok(&["disasm", DEMO, "-t", "gfx90a", "--format", "llvm"]);
    // eval_poly calls poly (corpus/hip: a __device__ function).
    let call = lathe_style
        .lines()
        .find(|l| l.contains(":  s_swappc_b64"))
        .expect("a call");
    assert!(call.contains("; calls _Z4polyf (0x"), "{call}");
    let ret = lathe_style
        .lines()
        .find(|l| l.contains("s_setpc_b64 s[30:31]"))
        .expect("a return");
    assert!(ret.contains("; returns to the caller"), "{ret}");
    // block_sum's loop branches back.
    let back = lathe_style
        .lines()
        .find(|l| l.contains("s_branch 65516"))
        .expect("a backward branch");
    assert!(
        back.ends_with("; -> .L_Z9block_sumPKfPfi_1 (offset -20: back to 0x1e80)"),
        "{back}"
    );
    // The address is the label's.
    let at = lathe_style
        .lines()
        .skip_while(|l| *l != ".L_Z9block_sumPKfPfi_1:")
        .nth(1)
        .expect("the label's first instruction");
    assert!(at.trim_start().starts_with("1e80:"), "{at}");
    // LLVM style is LLVM's text.
    assert!(
        llvm.contains("\ts_branch 65516 ") && llvm.contains("<_Z9block_sumPKfPfi+0x80>\n"),
        "LLVM text unchanged"
    );
    assert!(!llvm.contains("calls _Z4polyf"));
    assert!(!llvm.contains("back to"));
}

#[test]
fn disasm_json_names_the_bundle_entry_and_cfg_lists_registers() {
    let j = json(&["disasm", DEMO, "-t", "gfx90a", "--kernel", "axpy"]);
    let o = &j["files"][0]["code_objects"][0]["origin"];
    assert_eq!(o["bundle"], 0, "{o}");
    assert_eq!(o["entry"], 1, "{o}");
    assert_eq!(o["id"], "hipv4-amdgcn-amd-amdhsa--gfx90a", "{o}");
    assert!(o["bundle_offset"].as_u64().is_some_and(|x| x > 0), "{o}");
    assert!(o["entry_offset"].as_u64().is_some(), "{o}");
    assert!(
        o["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("libdemo.so")),
        "{o}"
    );
    // A bare code object names its file.
    let co = Build::new("k_lds.hip", &["gfx90a"], Output::CodeObject).build();
    let j = json(&["disasm", s(&co), "--kernel", "block_reduce_i32"]);
    assert_eq!(j["files"][0]["code_objects"][0]["origin"]["file"], s(&co));
    // cfg: live registers as arrays of names, one per register.
    let j = json(&["cfg", DEMO, "--target", "gfx90a", "--kernel", "eval_poly"]);
    let b0 = &j["functions"][0]["blocks"][0];
    let names = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap_or_else(|| panic!("an array: {v}"))
            .iter()
            .map(|x| x.as_str().expect("a name").to_string())
            .collect()
    };
    let live_in = names(&b0["live_in"]);
    // The kernarg pointer s[4:5], exec and the work-item ID v0.
    for r in ["s4", "s5", "exec", "v0"] {
        assert!(live_in.iter().any(|x| x == r), "{r} in {live_in:?}");
    }
    assert!(
        live_in.iter().all(|x| !x.contains(' ') && !x.contains('[')),
        "{live_in:?}"
    );
    names(&b0["live_out"]);
}

#[test]
fn info_says_what_the_unified_register_file_allocates() {
    let text = ok(&["info", DEMO, "-t", "gfx90a", "--kernel", "axpy"]);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("registers:"))
        .expect("registers line");
    // The metadata says 0 AGPRs: nothing is "for AGPRs".
    assert!(text.contains("0 AGPRs"), "{text}");
    assert!(!line.contains("for AGPRs"), "{line}");
    assert!(line.contains("granule"), "{line}");
    assert!(line.contains("no AGPRs"), "{line}");
}

fn mem_available() -> Option<u64> {
    let m = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb: u64 = m
        .lines()
        .find(|l| l.starts_with("MemAvailable:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kb * 1024)
}

#[test]
fn buffers_beyond_available_memory_are_refused_at_once() {
    let Some(avail) = mem_available() else {
        eprintln!("skipped: no MemAvailable in /proc/meminfo");
        return;
    };
    let run = |y: u64, x: u64| {
        let t = std::time::Instant::now();
        let e = fails(&[
            "run",
            DEMO,
            "--kernel",
            "axpy",
            "--grid",
            "64",
            "--block",
            "64",
            "-a",
            &format!("buf:y:{y}"),
            "-a",
            &format!("buf:x:{x}"),
            "-a",
            "f32:1",
            "-a",
            "i32:64",
        ]);
        assert!(t.elapsed().as_secs() < 5, "refused at once: {e}");
        e
    };
    // One buffer larger than the machine.
    let huge = 400_000_000_000_000u64;
    let e = run(256, huge);
    assert!(
        e.contains(&format!(
            "argument #2 (buf:x): cannot allocate {huge} bytes of device memory"
        )),
        "{e}"
    );
    assert!(
        e.contains("more than this machine's available memory"),
        "{e}"
    );
    assert!(e.contains("MemAvailable"), "{e}");
    // Two that fit alone but not together.
    let big = avail / 3 * 2;
    let e = run(big, big);
    assert!(
        e.contains("argument #2 (buf:x): the buffers up to and including it total"),
        "{e}"
    );
    // Under --tool too.
    let e = fails(&[
        "run",
        DEMO,
        "--kernel",
        "axpy",
        "--grid",
        "64",
        "--block",
        "64",
        "-a",
        &format!("buf:y:{huge}"),
        "-a",
        "buf:x:256",
        "-a",
        "f32:1",
        "-a",
        "i32:64",
        "--tool",
        "instr-count",
    ]);
    assert!(e.contains("argument #1 (buf:y)"), "{e}");
}

#[test]
fn large_fills_show_progress_lines_without_a_terminal() {
    // 320 MiB of random fill (lines start at 256 MiB); stderr is a pipe.
    let args = [
        "run",
        DEMO,
        "--kernel",
        "axpy",
        "--grid",
        "64",
        "--block",
        "64",
        "-a",
        "buf:y:256",
        "-a",
        "buf:x:335544320:random_u32",
        "-a",
        "f32:1",
        "-a",
        "i32:64",
    ];
    let run = |interval: &str, quiet: bool| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_lathe"));
        if quiet {
            c.arg("-q");
        }
        let out = c
            .args(args)
            .env("LATHE_PROGRESS_INTERVAL", interval)
            .output()
            .expect("run lathe");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let e = run("0", false);
    let lines: Vec<&str> = e
        .lines()
        .filter(|l| l.starts_with("lathe: filling buffers: "))
        .collect();
    assert!(!lines.is_empty(), "{e}");
    assert!(lines[0].contains(" of 320.0 MiB ("), "{}", lines[0]);
    // -q silences them; a long interval leaves none for a short fill.
    assert!(!run("0", true).contains("filling buffers"));
    assert!(!run("3600", false).contains("filling buffers"));
}

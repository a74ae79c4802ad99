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
        e.contains("argument #3 is a `float` (floating-point) but i32:2 was given"),
        "{e}"
    );
    assert!(e.contains("pass it as f32:VALUE"), "{e}");
    let e = run("f32:2", "f32:1000");
    assert!(
        e.contains("argument #4 is a `int` (integer) but f32:1000 was given"),
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
    assert!(e.contains("argument #3 is a `float`"), "{e}");
}

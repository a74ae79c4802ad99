//! `lathe cfg`, `lathe instrument` and `lathe run --tool` on the embedded
//! demo library (clang-built HIP, gfx90a), with llvm-objdump and the
//! uninstrumented run as oracles.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

mod common;

use common::lathe_ok;
use lathe_testkit::{llvm_tool, run_text};
use serde_json::Value;

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/demo/libdemo.so");

fn tmpdir(name: &str) -> PathBuf {
    common::tmpdir(&format!("dbi-cli-{name}"))
}

fn gfx90a_object(dir: &std::path::Path) -> PathBuf {
    lathe_ok(&[
        "-q",
        "bundle",
        "extract",
        DEMO,
        "-t",
        "gfx90a",
        "-o",
        dir.to_str().expect("utf-8"),
    ]);
    std::fs::read_dir(dir)
        .expect("dir")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains("gfx90a"))
        .expect("extracted gfx90a code object")
}

#[test]
fn cfg_covers_every_instruction_objdump_sees() {
    let dir = tmpdir("cfg");
    let co = gfx90a_object(&dir);
    let co_s = co.to_str().expect("utf-8");
    let j: Value = serde_json::from_str(&lathe_ok(&["--json", "cfg", co_s, "--kernel", "axpy"]))
        .expect("json");
    let f = &j["functions"][0];
    assert!(f["name"].as_str().expect("name").contains("axpy"));
    let mut ours = BTreeSet::new();
    for b in f["blocks"].as_array().expect("blocks") {
        for i in b["instructions"].as_array().expect("insts") {
            ours.insert(i["addr"].as_u64().expect("addr"));
        }
        for s in b["succs"].as_array().expect("succs") {
            assert!(s.as_u64().expect("succ") < f["blocks"].as_array().expect("b").len() as u64);
        }
    }
    // llvm-objdump's instruction addresses for the kernel.
    let dis = run_text(
        Command::new(llvm_tool("llvm-objdump"))
            .args([
                "-d",
                "--mcpu=gfx90a",
                "--disassemble-symbols=_Z4axpyPfPKffi",
            ])
            .arg(&co),
    );
    let theirs: BTreeSet<u64> = dis
        .lines()
        .filter_map(|l| l.split("// ").nth(1))
        .filter_map(|a| u64::from_str_radix(a.split(':').next()?.trim(), 16).ok())
        .collect();
    assert!(!theirs.is_empty(), "objdump listed nothing");
    assert_eq!(ours, theirs);
    let text = lathe_ok(&["cfg", co_s, "--kernel", "axpy"]);
    assert!(text.contains("bb0") && text.contains("live-in:"), "{text}");
    let dot = lathe_ok(&["cfg", co_s, "--kernel", "axpy", "--format", "dot"]);
    assert!(dot.starts_with("digraph cfg {") && dot.trim_end().ends_with('}'));
    assert_eq!(dot.matches('{').count(), dot.matches('}').count());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_tool_counts_match_and_outputs_are_identical() {
    let dir = tmpdir("run");
    let y0 = dir.join("y0.bin");
    let y1 = dir.join("y1.bin");
    let args = |out: &PathBuf| {
        vec![
            "--kernel".to_string(),
            "axpy".into(),
            "--grid".into(),
            "1000".into(),
            "--block".into(),
            "256".into(),
            "-a".into(),
            format!("buf:y:4000:iota_f32:out={}", out.display()),
            "-a".into(),
            "buf:x:4000:f32:2".into(),
            "-a".into(),
            "f32:0.5".into(),
            "-a".into(),
            "i32:1000".into(),
        ]
    };
    let mut a0 = vec!["--json".to_string(), "run".into(), DEMO.into()];
    a0.extend(args(&y0));
    let base: Value = serde_json::from_str(&lathe_ok(
        &a0.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
    ))
    .expect("json");
    let mut a1 = vec!["--json".to_string(), "run".into(), DEMO.into()];
    a1.extend(args(&y1));
    a1.extend(["--tool".into(), "instr-count".into()]);
    let inst: Value = serde_json::from_str(&lathe_ok(
        &a1.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
    ))
    .expect("json");
    assert_eq!(inst["tool"]["name"], "instr-count");
    assert_eq!(inst["tool"]["wave_instructions"], base["wave_instructions"]);
    // 1000 work-items: thread-level count is a multiple of the active lanes.
    assert!(
        inst["tool"]["thread_instructions"]
            .as_u64()
            .expect("threads")
            > 0
    );
    assert_eq!(
        std::fs::read(&y0).expect("y0"),
        std::fs::read(&y1).expect("y1")
    );
    // kernarg sees the launch geometry.
    let mut a2 = vec!["--json".to_string(), "run".into(), DEMO.into()];
    a2.extend(args(&y1));
    a2.extend(["--tool".into(), "kernarg".into()]);
    let ka: Value = serde_json::from_str(&lathe_ok(
        &a2.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
    ))
    .expect("json");
    assert_eq!(ka["tool"]["grid_dim"], serde_json::json!([4, 1, 1]));
    assert_eq!(ka["tool"]["block_dim"], serde_json::json!([256, 1, 1]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn instrument_writes_a_code_object_llvm_reads() {
    let dir = tmpdir("inst");
    let co = gfx90a_object(&dir);
    let out = dir.join("out.co");
    let j: Value = serde_json::from_str(&lathe_ok(&[
        "--json",
        "instrument",
        co.to_str().expect("utf-8"),
        "--tool",
        "block-count",
        "-o",
        out.to_str().expect("utf-8"),
    ]))
    .expect("json");
    assert!(!j["sites"].as_array().expect("sites").is_empty());
    let re = run_text(Command::new(llvm_tool("llvm-readelf")).arg("-a").arg(&out));
    assert!(re.contains(".lathe.text"));
    let info = lathe_ok(&["info", out.to_str().expect("utf-8")]);
    assert!(info.contains("descriptors agree with metadata"), "{info}");
    let _ = std::fs::remove_dir_all(&dir);
}

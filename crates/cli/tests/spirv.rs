//! `lathe info` and `lathe bundle extract --explain` on a clang-22 bundle
//! holding a SPIR-V entry (`--offload-arch=amdgcnspirv -use-spirv-backend`).

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a test failure

use std::process::Command;

use lathe_testkit::{Build, Output};

fn lathe(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn spirv_entries_are_described_not_errors() {
    let mut b = Build::new("vecops.hip", &["amdgcnspirv"], Output::DeviceBundle);
    b.extra = vec!["-use-spirv-backend"];
    let bundle = b.build();
    let path = bundle.to_str().unwrap();
    let (ok, out, err) = lathe(&["-q", "info", path]);
    assert!(ok, "{out}{err}");
    assert!(!out.contains("error"), "{out}");
    assert!(
        out.contains(
            "SPIR-V module bundle 0 entry 1 (hip-spirv64-amd-amdhsa--amdgcnspirv): SPIR-V 1."
        ),
        "{out}"
    );
    for want in [
        "Kernel axpy(float*, float const*, float, int)",
        "Kernel eval_poly(float*, float const*, int)",
        "Kernel count_managed(int const*, int)",
        "memory model: Physical64 OpenCL",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
    let caps = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("capabilities: "))
        .unwrap();
    assert!(caps.split(", ").any(|c| c == "Kernel"), "{caps}");

    let (_, json, _) = lathe(&["-q", "--json", "info", path]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let names: Vec<&str> = v["code_objects"][0]["spirv"]["entry_points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "_Z4axpyPfPKffi",
            "_Z9eval_polyPfPKfi",
            "_Z13count_managedPKii"
        ]
    );

    let dir = lathe_testkit::cache_dir().join("cli-spirv-extract");
    let (_, out, err) = lathe(&[
        "-q",
        "bundle",
        "extract",
        path,
        "-t",
        "gfx90a",
        "--explain",
        "-o",
        dir.to_str().unwrap(),
    ]);
    let text = format!("{out}{err}");
    assert!(
        text.contains("hip-spirv64-amd-amdhsa--amdgcnspirv: refused: SPIR-V entry")
            && text.contains("must be compiled for the agent first"),
        "{text}"
    );
}

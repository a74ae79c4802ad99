//! HSA-level programs compiled by gcc/g++ against Debian's ROCm 5.2
//! headers: the API directly (agents, pools, signals, queues with ring
//! wrap-around and barrier packets, executables, bad arguments), and an
//! HSA_TOOLS_LIB tool that counts dispatches through the API table.

mod support;

use std::process::Command;

use support::{have, hipcc, run, target_dir};

fn device_code_object() -> std::path::PathBuf {
    let co = target_dir()
        .join("lathe-hsa-test")
        .join("modules_kernels.elf");
    let st = Command::new("hipcc")
        .args([
            "--offload-arch=gfx90a",
            "-O2",
            "--cuda-device-only",
            "-c",
            "--no-gpu-bundle-output",
            "-o",
        ])
        .arg(&co)
        .arg(support::src("hip/modules_kernels.hip"))
        .status()
        .expect("hipcc");
    assert!(st.success(), "hipcc --cuda-device-only failed");
    co
}

#[test]
fn hsa_api_agents_pools_signals_queues_executables() {
    if !have("hipcc") || !have("gcc") {
        return;
    }
    let co = device_code_object();
    let exe = support::gcc("hsa_api", &[]);
    let o = run(&exe, &[co.to_str().expect("utf-8")], &[]);
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(
        o.status.success() && out.contains("hsa_api: ok"),
        "stdout:\n{out}\nstderr:\n{err}"
    );
}

#[test]
fn tools_lib_counts_every_dispatch_through_the_api_table() {
    if !have("hipcc") || !have("g++") {
        return;
    }
    let tool = target_dir()
        .join("lathe-hsa-test")
        .join("libdispatch_counter.so");
    let st = Command::new("g++")
        .args([
            "-shared",
            "-fPIC",
            "-O1",
            "-Wall",
            "-Werror",
            "-I/usr/include/hsa",
            "-o",
        ])
        .arg(&tool)
        .arg(support::src("c/dispatch_counter.cpp"))
        .status()
        .expect("g++");
    assert!(st.success(), "g++ dispatch_counter failed");
    let exe = hipcc("launches", &[]);
    for n in [1, 37] {
        let o = run(
            &exe,
            &[&n.to_string()],
            &[("HSA_TOOLS_LIB", tool.to_str().expect("utf-8"))],
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        assert!(
            err.contains(&format!("dispatch-counter: {n} kernel dispatches")),
            "want {n} dispatches counted:\n{err}"
        );
    }
}

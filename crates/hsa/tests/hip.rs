//! Unmodified HIP programs built by Debian's hipcc (ROCm 5.2, gfx90a) run
//! through Debian's libamdhip64.so.5 on Lathe's runtime; each checks its
//! results on the host against a CPU computation.

mod support;

use support::{assert_ok, have, hipcc, run};

#[test]
fn basics_malloc_memcpy_memset_kernel() {
    if !have("hipcc") {
        return;
    }
    let exe = hipcc("basics", &[]);
    let o = run(&exe, &[], &[]);
    assert_ok(&o, "basics");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("device: AMD Instinct MI210, gfx90a:sramecc+:xnack-, 104 CUs, wave 64, 64 KiB LDS, 1700 MHz, 64 GiB"),
        "hipGetDeviceProperties:\n{out}"
    );
}

#[test]
fn pinned_registered_managed_and_symbols() {
    if !have("hipcc") {
        return;
    }
    let exe = hipcc("memory", &[]);
    assert_ok(&run(&exe, &[], &[]), "memory");
}

#[test]
fn device_printf() {
    if !have("hipcc") {
        return;
    }
    let exe = hipcc("printf", &[]);
    let o = run(&exe, &[], &[]);
    assert_ok(&o, "printf");
    let out = String::from_utf8_lossy(&o.stdout);
    for i in (0..128).step_by(16) {
        let line = format!("lane {i} of 128 says {}", 7 + i * i);
        assert!(out.contains(&line), "missing {line:?} in:\n{out}");
    }
}

#[test]
fn streams_events_and_wait_event_ordering() {
    if !have("hipcc") {
        return;
    }
    let exe = hipcc("streams", &[]);
    assert_ok(&run(&exe, &[], &[]), "streams");
}

#[test]
fn four_host_threads_launch_at_once() {
    if !have("hipcc") {
        return;
    }
    let exe = hipcc("threads", &[]);
    assert_ok(&run(&exe, &[], &[]), "threads");
}

#[test]
fn module_load_get_function_launch() {
    if !have("hipcc") {
        return;
    }
    let co = support::out_dir().join("modules_kernels.co");
    let st = std::process::Command::new("hipcc")
        .args(["--offload-arch=gfx90a", "-O2", "--genco", "-o"])
        .arg(&co)
        .arg(support::src("hip/modules_kernels.hip"))
        .status()
        .expect("hipcc --genco");
    assert!(st.success());
    let exe = hipcc("modules", &[]);
    assert_ok(&run(&exe, &[co.to_str().expect("utf-8")], &[]), "modules");
}

#[test]
fn faulting_kernel_is_reported_and_the_process_fails() {
    if !have("hipcc") {
        return;
    }
    let exe = hipcc("fault", &[]);
    let o = run(&exe, &[], &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success(),
        "a faulting kernel must not exit 0:\n{err}"
    );
    assert!(err.contains("Memory access fault by GPU"), "{err}");
    assert!(
        err.contains("_Z10wild_storePii"),
        "kernel not named:\n{err}"
    );
    assert!(
        err.contains("global_store_dword"),
        "instruction not named:\n{err}"
    );
    assert!(err.contains("0x10000"), "address not named:\n{err}");
}

#[test]
fn stats_json_lists_every_launch() {
    if !have("hipcc") {
        return;
    }
    let exe = hipcc("basics", &[]);
    let json = support::out_dir().join("basics-stats.json");
    let _ = std::fs::remove_file(&json);
    let o = run(
        &exe,
        &[],
        &[("LATHE_STATS_JSON", json.to_str().expect("utf-8"))],
    );
    assert_ok(&o, "basics");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("stats written"))
            .expect("json");
    let launches = v.as_array().expect("array");
    let axpy = launches
        .iter()
        .find(|l| l["kernel"] == "_Z4axpyPfPKffi")
        .expect("the axpy launch is listed");
    assert_eq!(axpy["grid"], serde_json::json!([10240, 1, 1]));
    assert_eq!(axpy["block"], serde_json::json!([256, 1, 1]));
    assert!(axpy["wave_instructions"].as_u64().expect("count") > 1000);
    assert!(axpy["seconds"].as_f64().expect("time") > 0.0);
}

fn have_dev_package(header: &str) -> bool {
    let ok = std::path::Path::new("/usr/include").join(header).exists();
    if !ok {
        assert!(
            !lathe_testkit::require_external(),
            "/usr/include/{header} is required (LATHE_REQUIRE_EXTERNAL=1); run scripts/setup.sh"
        );
        eprintln!("skipped: /usr/include/{header} missing (scripts/setup.sh installs it)");
    }
    ok
}

#[test]
fn rocrand_uniform_and_normal_generators() {
    if !have("hipcc") || !have_dev_package("rocrand/rocrand.h") {
        return;
    }
    let exe = hipcc("rocrand", &["-lrocrand"]);
    assert_ok(&run(&exe, &[], &[]), "rocrand");
}

#[test]
fn rocsparse_csrmv_f32_f64() {
    if !have("hipcc") || !have_dev_package("rocsparse/rocsparse.h") {
        return;
    }
    let exe = hipcc("rocsparse", &["-lrocsparse"]);
    assert_ok(&run(&exe, &[], &[]), "rocsparse");
}

#[test]
fn cooperative_launch_is_refused_not_hung() {
    if !have("hipcc") {
        return;
    }
    let exe = hipcc("coop", &[]);
    let o = run(&exe, &[], &[]);
    assert_ok(&o, "coop");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("coop: cooperative launch attribute 0"),
        "{out}"
    );
}

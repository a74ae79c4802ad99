//! Capture through the public HSA API (issue 22, "capture on real
//! hardware", decision D32): `liblathe_tool.so` loaded as `HSA_TOOLS_LIB`
//! with `LATHE_TOOL_CAPTURE=DIR` writes capsules of a HIP program built
//! here by Debian's hipcc (tests/exec/app.hip), running on Lathe's runtime
//! in its ROCr-faithful mode (`LATHE_HSA_RELA_DYN_ONLY=1`: executables
//! apply only `.rela.dyn`, as ROCr does); `lathe replay` replays every
//! capsule bit-identically.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod common;
use common::{have_hipcc, hip_app, target_dir, tmpdir};

fn app() -> PathBuf {
    static APP: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    APP.get_or_init(|| {
        hip_app(
            "lathe-tool-capture-test",
            "app",
            &["libhsa_runtime64.so", "liblathe_tool.so"],
        )
    })
    .clone()
}

/// `lathe exec OPTS -- app 1000 1 0` with the tool library set by hand
/// (as on ROCr) and `env`.
fn exec(opts: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_lathe"));
    c.arg("exec")
        .args(opts)
        .arg("--")
        .arg(app())
        .args(["1000", "1", "0"])
        .env("HSA_TOOLS_LIB", target_dir().join("liblathe_tool.so"))
        .env("LATHE_HSA_RELA_DYN_ONLY", "1");
    for v in [
        "LATHE_TOOL",
        "LATHE_TOOL_OUT",
        "LATHE_TOOL_KERNELS",
        "LATHE_TOOL_LAUNCHES",
        "LATHE_TOOL_CAPTURE",
        "LATHE_CAPTURE",
        "LATHE_STATS",
        "LATHE_STATS_JSON",
    ] {
        c.env_remove(v);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run lathe exec")
}

fn replay(capsule: &Path) -> (bool, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .args(["--json", "replay"])
        .arg(capsule)
        .output()
        .expect("run lathe replay");
    (
        o.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    )
}

#[test]
fn tool_library_capsules_replay_bit_identically() {
    if !have_hipcc() {
        return;
    }
    let dir = tmpdir("lathe-tool-capture");
    let d = dir.to_str().expect("utf-8");
    let plain = exec(&[], &[]);
    assert!(plain.status.success(), "{plain:?}");
    let o = exec(
        &[],
        &[("LATHE_TOOL_CAPTURE", d), ("LATHE_TOOL_LAUNCHES", "0-2")],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), plain.status.code(), "{err}");
    assert_eq!(o.stdout, plain.stdout, "{err}");
    let mut caps: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("capture dir")
        .map(|e| e.expect("entry").path())
        .collect();
    caps.sort();
    let names: Vec<String> = caps
        .iter()
        .map(|p| p.file_name().expect("name").to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["00000-scale", "00001-scale", "00002-iota2d"],
        "{err}"
    );
    for c in &caps {
        let m: Value = serde_json::from_slice(
            &std::fs::read(c.join("capsule.json")).expect("manifest written"),
        )
        .expect("manifest JSON");
        let kinds: Vec<&str> = m["allocations"]
            .as_array()
            .expect("allocations")
            .iter()
            .map(|a| a["kind"].as_str().expect("kind"))
            .collect();
        for k in ["code", "kernarg", "queue", "packet", "gpu-coarse"] {
            assert!(kinds.contains(&k), "{k} missing from {kinds:?}");
        }
        let (ok, out) = replay(c);
        assert!(ok, "replay {}: {out}", c.display());
        let j: Value = serde_json::from_str(&out).expect("replay JSON");
        assert_eq!(j["identical"], true, "{j}");
        // Every kernel here writes its output: the after-state is not
        // empty, so an identical replay really compared results.
        assert!(
            !m["after_pages"].as_array().expect("after_pages").is_empty(),
            "{m}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tool_and_capture_together_is_an_error() {
    if !have_hipcc() {
        return;
    }
    let dir = tmpdir("lathe-tool-capture-both");
    // `lathe exec --tool` sets LATHE_TOOL (and HSA_TOOLS_LIB).
    let o = exec(
        &["--tool", "instr-count"],
        &[("LATHE_TOOL_CAPTURE", dir.to_str().expect("utf-8"))],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("LATHE_TOOL and LATHE_TOOL_CAPTURE are both set"),
        "{err}"
    );
    assert!(o.status.success(), "skip: the program still runs: {err}");
    assert_eq!(
        std::fs::read_dir(&dir).expect("dir").count(),
        0,
        "nothing captured: {err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kernel_regex_selects_what_is_captured() {
    if !have_hipcc() {
        return;
    }
    let dir = tmpdir("lathe-tool-capture-regex");
    let o = exec(
        &[],
        &[
            ("LATHE_TOOL_CAPTURE", dir.to_str().expect("utf-8")),
            ("LATHE_TOOL_KERNELS", "iota2d"),
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["00002-iota2d"], "{err}");
    let empty = tmpdir("lathe-tool-capture-none");
    let o = exec(
        &[],
        &[
            ("LATHE_TOOL_CAPTURE", empty.to_str().expect("utf-8")),
            ("LATHE_TOOL_KERNELS", "no_such_kernel"),
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("no launch was captured"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&empty);
}

/// Builds `tests/exec/NAME.hip`-less pieces for `two_objects.c`: a bare
/// gfx90a code object from HIP source text.
fn device_object(dir: &Path, name: &str, src: &str) -> PathBuf {
    let hip = dir.join(format!("{name}.hip"));
    std::fs::write(&hip, src).expect("write source");
    let co = dir.join(format!("{name}.co"));
    lathe_testkit::hip_code_object(&hip, &co, "gfx90a");
    co
}

/// Through the HSA API only (tests/exec/two_objects.c): two code objects
/// loaded into one executable, the kernel in the second, its input and
/// output malloc'ed host memory locked with `hsa_amd_memory_lock` and
/// `_lock_to_pool`. The capsule holds both code objects (their bytes as
/// loaded) and both locked ranges at their device aliases, and replays
/// bit-identically; the program's own check passes under capture.
#[test]
fn tool_library_captures_locked_host_memory_and_every_code_object_of_the_executable() {
    if !have_hipcc() {
        return;
    }
    let work = tmpdir("lathe-tool-capture-two");
    let a = device_object(
        &work,
        "first",
        "#include <hip/hip_runtime.h>\nextern \"C\" __global__ void first_kernel(int* p) { p[threadIdx.x] = 1; }\n",
    );
    let b = device_object(
        &work,
        "second",
        "#include <hip/hip_runtime.h>\nextern \"C\" __global__ void scale_locked(const int* in, int* out, int k) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  out[i] = in[i] * k + 7;\n}\n",
    );
    // The runtime under the name the program links against.
    let rt = work.join("rt");
    std::fs::create_dir_all(&rt).expect("mkdir");
    std::os::unix::fs::symlink(
        target_dir().join("libhsa_runtime64.so"),
        rt.join("libhsa-runtime64.so.1"),
    )
    .expect("symlink");
    let prog = work.join("two_objects");
    lathe_testkit::gcc_hsa_program(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/exec/two_objects.c"),
        &prog,
        &rt,
        &[],
    );
    let caps = work.join("caps");
    let o = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .arg("exec")
        .arg("--")
        .arg(&prog)
        .arg(&a)
        .arg(&b)
        .env("HSA_TOOLS_LIB", target_dir().join("liblathe_tool.so"))
        .env("LATHE_HSA_RELA_DYN_ONLY", "1")
        .env("LATHE_TOOL_CAPTURE", &caps)
        .env_remove("LATHE_TOOL")
        .env_remove("LATHE_TOOL_KERNELS")
        .env_remove("LATHE_TOOL_LAUNCHES")
        .output()
        .expect("run lathe exec");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "two_objects: ok\n",
        "{err}"
    );
    let c = caps.join("00000-scale_locked");
    let m: Value = serde_json::from_slice(
        &std::fs::read(c.join("capsule.json")).unwrap_or_else(|e| panic!("{e}: {err}")),
    )
    .expect("manifest JSON");
    // Both code objects, in load order, byte for byte.
    assert_eq!(m["code_objects"].as_array().map(Vec::len), Some(2), "{m}");
    for (i, src) in [&a, &b].into_iter().enumerate() {
        assert_eq!(
            std::fs::read(c.join(format!("code/{i}.co"))).expect("code object"),
            std::fs::read(src).expect("source object"),
            "code/{i}.co"
        );
    }
    let allocs = m["allocations"].as_array().expect("allocations");
    let locked: Vec<&Value> = allocs
        .iter()
        .filter(|x| x["kind"] == "host-locked")
        .collect();
    assert_eq!(locked.len(), 2, "{m}");
    assert!(locked.iter().all(|x| x["size"] == 4096 * 4), "{m}");
    let (ok, out) = replay(&c);
    assert!(ok, "replay: {out}");
    let j: Value = serde_json::from_str(&out).expect("replay JSON");
    assert_eq!(j["identical"], true, "{j}");
    // The output (one of the locked ranges) changed: the replay compared
    // the kernel's result.
    let out_alloc = allocs
        .iter()
        .position(|x| x["kind"] == "host-locked" && x["size"] == 4096 * 4)
        .expect("locked");
    let changed: Vec<u64> = m["after_pages"]
        .as_array()
        .expect("after_pages")
        .iter()
        .filter_map(|p| p[0].as_u64())
        .collect();
    assert!(
        changed
            .iter()
            .any(|&i| allocs[i as usize]["kind"] == "host-locked"),
        "{m} (first locked allocation a{out_alloc})"
    );
    let _ = std::fs::remove_dir_all(&work);
}

//! `lathe exec --tool PATH`: tools written in HIP (`examples/tools`),
//! attached at dispatch by `liblathe_tool.so` to an unmodified program
//! built by Debian's hipcc (tests/exec/tools_app.hip: seed 002's
//! `complex_float(char*, int)` on 39063 × 256, plus 2-D and 3-D grids with
//! partial work-groups; code object v4, so gridDim comes from the dispatch
//! packet). Each tool's per-launch results are checked against an
//! independent source — the built-in `kernarg` tool for the seed's line,
//! the emulator's ground truth of an uninstrumented run for counts — and
//! the program's output and exit status must not change. Bad tools are
//! reported, then the program runs uninstrumented or stops, as chosen.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod common;
use common::{have_hipcc, hip_app, target_dir};

fn app() -> PathBuf {
    static APP: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    APP.get_or_init(|| {
        hip_app(
            "lathe-exec-hip-tool-test",
            "tools_app",
            &["libhsa_runtime64.so", "liblathe_tool.so"],
        )
    })
    .clone()
}

fn example(name: &str) -> String {
    lathe_testkit::workspace_root()
        .join("examples/tools")
        .join(name)
        .display()
        .to_string()
}

fn exec(opts: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_lathe"));
    c.arg("exec").args(opts).arg("--").arg(app());
    for v in ["LATHE_GROUND_TRUTH", "HSA_TOOLS_LIB", "LATHE_STATS"] {
        c.env_remove(v);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run lathe exec")
}

fn dir(name: &str) -> PathBuf {
    let d = target_dir().join("lathe-exec-hip-tool-test").join(name);
    std::fs::create_dir_all(&d).expect("create test dir");
    d
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The uninstrumented program's stdout.
fn baseline() -> &'static str {
    static B: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    B.get_or_init(|| {
        let o = exec(&[], &[]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
    })
}

/// The griddim example with a `line` that names the launch's fields
/// (`{launch}`, `{kernel}`, `{grid}`, `{block}`): seed 002's line.
fn griddim_with_launch_fields() -> PathBuf {
    let d = dir("griddim-seed-line");
    let src = lathe_testkit::workspace_root().join("examples/tools/griddim");
    std::fs::copy(src.join("tool.hip"), d.join("tool.hip")).expect("copy tool.hip");
    let mut m: Value = serde_json::from_str(
        &std::fs::read_to_string(src.join("tool.json")).expect("read tool.json"),
    )
    .expect("tool.json");
    m["line"] = Value::from(
        "Kernel {launch} - {kernel}: Total Grid Size Dims (HSA): ({grid}) Workgroup Dims (HSA): \
         ({block}) : GridDim (HIP): ({grid_dim[0]}, {grid_dim[1]}, {grid_dim[2]}).",
    );
    std::fs::write(d.join("tool.json"), m.to_string()).expect("write tool.json");
    d
}

/// Seed 002's result: the griddim HIP tool prints, per launch, its own
/// line (no fields added in front), and a copy whose line names the
/// launch's fields prints the same line as the built-in `kernarg` tool
/// (whose GridDim is checked against the grid in exec_tool.rs) — the
/// GridDim the hook read inside the kernel; also when the loader, as
/// ROCr's, leaves the hook calls to the tool library.
#[test]
fn griddim_hip_tool_prints_the_seed_line() {
    if !have_hipcc() {
        return;
    }
    let lines = |o: &Output| -> Vec<String> {
        text(&o.stderr)
            .lines()
            .filter(|l| l.starts_with("Kernel "))
            .map(str::to_string)
            .collect()
    };
    let k = exec(&["--tool", "kernarg"], &[]);
    assert!(k.status.success(), "{}", text(&k.stderr));
    let plain = exec(&["--tool", &example("griddim")], &[]);
    assert!(plain.status.success(), "{}", text(&plain.stderr));
    let err = text(&plain.stderr);
    let own: Vec<&str> = err.lines().filter(|l| l.contains("GridDim")).collect();
    assert_eq!(
        own,
        [
            "GridDim (HIP): (39063, 1, 1).",
            "GridDim (HIP): (7, 5, 1).",
            "GridDim (HIP): (3, 3, 4)."
        ],
        "the tool's own line, as its manifest writes it:\n{err}"
    );
    let seed = griddim_with_launch_fields();
    let seed = seed.to_str().expect("utf-8 path");
    let g = exec(&["--tool", seed], &[]);
    assert!(g.status.success(), "{}", text(&g.stderr));
    assert_eq!(text(&g.stdout), baseline(), "the program's output changed");
    let (want, got) = (lines(&k), lines(&g));
    assert_eq!(want.len(), 3, "{}", text(&k.stderr));
    assert_eq!(got, want, "griddim:\n{}", text(&g.stderr));
    assert_eq!(
        got[0],
        "Kernel 0 - complex_float(char*, int): Total Grid Size Dims (HSA): (10000128, 1, 1) \
         Workgroup Dims (HSA): (256, 1, 1) : GridDim (HIP): (39063, 1, 1)."
    );
    // As on ROCr: the loader applies only .rela.dyn, so the hook calls are
    // linked by the tool library itself (from HookBuild::relocs and the
    // tool object's load address).
    let one = Path::new("1");
    let r = exec(&["--tool", seed], &[("LATHE_HSA_RELA_DYN_ONLY", one)]);
    assert!(r.status.success(), "{}", text(&r.stderr));
    assert_eq!(text(&r.stdout), baseline());
    assert_eq!(
        lines(&r),
        want,
        "linked by the tool library:\n{}",
        text(&r.stderr)
    );
}

/// The instr-count HIP tool (a hook per block entry and after every EXEC
/// write) equals the emulator's ground truth of an uninstrumented run, per
/// launch, at wave and thread level.
#[test]
fn instr_count_hip_tool_equals_ground_truth_per_launch() {
    if !have_hipcc() {
        return;
    }
    let d = dir("instr-count");
    let gt = d.join("truth.json");
    let o = exec(&[], &[("LATHE_GROUND_TRUTH", &gt)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = d.join("tool.json");
    let o = exec(
        &[
            "--tool",
            &example("instr-count"),
            "--tool-out",
            out.to_str().expect("utf-8 path"),
        ],
        &[],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), baseline(), "the program's output changed");
    let read = |p: &Path| -> Vec<Value> {
        serde_json::from_str::<Value>(&std::fs::read_to_string(p).expect("read json"))
            .expect("json")
            .as_array()
            .expect("array")
            .clone()
    };
    let (truth, recs) = (read(&gt), read(&out));
    assert_eq!(recs.len(), truth.len(), "launches");
    assert_eq!(recs.len(), 3);
    for (r, g) in recs.iter().zip(&truth) {
        assert_eq!(r["kernel"], g["kernel"]);
        let t = &r["tool"];
        assert_eq!(t["hip"], true, "{r}");
        assert!(g["wave_instructions"].as_u64() > Some(0));
        for k in ["wave_instructions", "thread_instructions"] {
            assert_eq!(t[k], g[k], "launch {} {}: {k}", r["launch"], r["kernel"]);
        }
    }
}

/// Writes a HIP tool (tool.hip + tool.json) into the test directory.
fn bad_tool(name: &str, hip: &str, json: &str) -> PathBuf {
    let d = dir(&format!("bad-{name}"));
    std::fs::write(d.join("tool.hip"), hip).expect("write tool.hip");
    std::fs::write(d.join("tool.json"), json).expect("write tool.json");
    d
}

/// Bad tools — a manifest naming a missing hook, a hook with the wrong
/// argument types, a tool that does not compile for the program's
/// processor, a prebuilt tool code object for another processor: each can
/// instrument nothing, so `lathe exec` reports it once, with the reason,
/// and exits non-zero before the program starts, whatever
/// `--on-tool-error` says (that is for kernels a good tool cannot
/// instrument).
#[test]
fn bad_hip_tools_stop_before_the_program_starts() {
    if !have_hipcc() {
        return;
    }
    const HDR: &str = "#include \"lathe_hip_extra.h\"\n__device__ unsigned int seen;\n";
    let one = |hook: &str, args: &str| {
        format!(
            r#"{{"hooks": [{{"at": "block-entry", "hook": "{hook}", "args": [{args}]}}],
                "report": [{{"var": "seen", "type": "u32"}}]}}"#
        )
    };
    let tools = [
        (
            "missing-hook",
            bad_tool(
                "missing-hook",
                &format!("{HDR}extern \"C\" __device__ void h(unsigned a) {{ seen = a; }}\n"),
                &one("on_block", r#""site""#),
            ),
            "on_block",
        ),
        (
            "wrong-types",
            bad_tool(
                "wrong-types",
                &format!("{HDR}extern \"C\" __device__ void h(unsigned a) {{ seen = a; }}\n"),
                &one("h", r#""exec""#),
            ),
            "parameter 0",
        ),
        (
            "for-another-target",
            bad_tool(
                "for-another-target",
                &format!(
                    "{HDR}#if defined(__gfx90a__)\n#error \"this tool is written for gfx942\"\n#endif\n\
                     extern \"C\" __device__ void h(unsigned a) {{ seen = a; }}\n"
                ),
                &one("h", r#""site""#),
            ),
            "this tool is written for gfx942",
        ),
    ];
    // A tool code object built for another processor (gfx942), named by
    // the manifest's "object", for this gfx90a program.
    let other = dir("bad-object-for-another-target");
    let src = other.join("tool.hip");
    std::fs::write(
        &src,
        format!("{HDR}extern \"C\" __device__ void h(unsigned a) {{ seen = a; }}\n"),
    )
    .expect("write tool.hip");
    let (code, _) = lathe_dbi::manifest::compile(&src, "gfx942").expect("compile for gfx942");
    std::fs::write(other.join("tool-gfx942.co"), code).expect("write object");
    let json = one("h", r#""site""#).replacen('{', r#"{"object": "tool-gfx942.co", "#, 1);
    std::fs::write(other.join("tool.json"), json).expect("write tool.json");
    let mut tools = tools.to_vec();
    tools.push((
        "object-for-another-target",
        other,
        "the tool code object is for gfx942, the kernel's code object for gfx90a",
    ));
    for (name, path, why) in &tools {
        let p = path.to_str().expect("utf-8 path");
        for opts in [
            vec!["--tool", p],
            vec!["--tool", p, "--on-tool-error", "skip"],
            vec!["--tool", p, "--on-tool-error", "abort"],
        ] {
            let o = exec(&opts, &[]);
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{name} {opts:?}: {err}");
            assert!(err.starts_with("lathe: error: --tool "), "{name}: {err}");
            assert!(
                err.contains(
                    "the HIP tool cannot be built for gfx90a, so the program was not started"
                ),
                "{name}: {err}"
            );
            assert!(err.contains(why), "{name}: {err}");
            assert_eq!(
                err.matches("lathe: error:").count(),
                1,
                "{name}: reported once:\n{err}"
            );
            assert!(
                !err.contains("lathe-tool:"),
                "{name}: the tool library ran:\n{err}"
            );
            assert_eq!(text(&o.stdout), "", "{name}: the program ran");
        }
    }
}

/// `#include <hip/hip_runtime.h>` in a tool: instr-count written with the
/// HIP headers' `__popcll`, `__ffsll`, `atomicAdd`, `warpSize` and a
/// device-library math call (`sinf`, linked from the ROCm device
/// libraries) builds, runs, and counts what the emulator's ground truth
/// counts, per launch.
#[test]
fn tool_including_hip_runtime_h_builds_and_counts() {
    if !have_hipcc() {
        return;
    }
    let d = dir("hip-runtime-h");
    std::fs::write(
        d.join("tool.hip"),
        r#"#include <hip/hip_runtime.h>

__device__ unsigned long long wave_instructions;
__device__ unsigned long long thread_instructions;
__device__ unsigned int wave_size;
__device__ float sine;

extern "C" __device__ void count_segment(unsigned int insts, unsigned long long exec, unsigned int lane) {
  unsigned int first = exec == 0 ? 0u : (unsigned int)(__ffsll((long long)exec) - 1);
  if (lane == first && insts != 0) {
    atomicAdd(&wave_instructions, (unsigned long long)insts);
    atomicAdd(&thread_instructions, (unsigned long long)insts * (unsigned long long)__popcll(exec));
    wave_size = warpSize;
    sine = sinf((float)(insts - insts + 1u));
  }
}
"#,
    )
    .expect("write tool.hip");
    let mut m: Value = serde_json::from_str(
        &std::fs::read_to_string(
            lathe_testkit::workspace_root().join("examples/tools/instr-count/tool.json"),
        )
        .expect("read instr-count's manifest"),
    )
    .expect("manifest");
    m["report"] = serde_json::json!([
        {"var": "wave_instructions", "type": "u64"},
        {"var": "thread_instructions", "type": "u64"},
        {"var": "wave_size", "type": "u32"},
        {"var": "sine", "type": "f32"}
    ]);
    m["line"] = Value::from("{launch} {kernel}: {wave_instructions} wave instructions");
    std::fs::write(d.join("tool.json"), m.to_string()).expect("write tool.json");
    let gt = d.join("truth.json");
    let o = exec(&[], &[("LATHE_GROUND_TRUTH", &gt)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = d.join("out.json");
    let tool = d.to_str().expect("utf-8 path");
    let o = exec(
        &[
            "--tool",
            tool,
            "--tool-out",
            out.to_str().expect("utf-8 path"),
        ],
        &[],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), baseline(), "the program's output changed");
    let read = |p: &Path| -> Vec<Value> {
        serde_json::from_str::<Value>(&std::fs::read_to_string(p).expect("read json"))
            .expect("json")
            .as_array()
            .expect("array")
            .clone()
    };
    let (truth, recs) = (read(&gt), read(&out));
    assert_eq!(recs.len(), 3, "{recs:?}");
    for (r, g) in recs.iter().zip(&truth) {
        let t = &r["tool"];
        assert_eq!(t["hip"], true, "{r}");
        for k in ["wave_instructions", "thread_instructions"] {
            assert_eq!(t[k], g[k], "launch {} {}: {k}", r["launch"], r["kernel"]);
        }
        assert_eq!(t["wave_size"], 64, "{r}");
        let s = t["sine"].as_f64().expect("sine");
        assert!((s - 1f64.sin()).abs() < 1e-6, "sinf(1) = {s}");
        assert_eq!(
            t["line"],
            format!(
                "{} {}: {} wave instructions",
                r["launch"],
                r["name"].as_str().expect("name"),
                g["wave_instructions"]
            )
        );
    }
}

/// A tool with a compile error: clang's message is shown once (not once
/// per kernel or launch), and `lathe exec` exits non-zero without running
/// the program.
#[test]
fn tool_compile_error_is_reported_once_and_fails() {
    if !have_hipcc() {
        return;
    }
    let d = dir("compile-error");
    std::fs::write(
        d.join("tool.hip"),
        "#include <hip/hip_runtime.h>\n__device__ unsigned int seen;\n\
         extern \"C\" __device__ void h(unsigned a) { seen = a + not_declared_anywhere; }\n",
    )
    .expect("write tool.hip");
    std::fs::write(
        d.join("tool.json"),
        r#"{"hooks": [{"at": "block-entry", "hook": "h", "args": ["site"]}],
            "report": [{"var": "seen", "type": "u32"}]}"#,
    )
    .expect("write tool.json");
    let o = exec(&["--tool", d.to_str().expect("utf-8 path")], &[]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(
        err.matches("use of undeclared identifier 'not_declared_anywhere'")
            .count(),
        1,
        "{err}"
    );
    assert!(err.contains("tool.hip for gfx90a failed"), "{err}");
    assert_eq!(text(&o.stdout), "", "the program ran");
}

/// `lathe run --tool` fills the same launch fields in a HIP tool's line as
/// `lathe exec` (launch 0, the demangled kernel, the grid and block).
#[test]
fn run_fills_the_launch_fields_of_a_hip_tool_line() {
    let tool = griddim_with_launch_fields();
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/demo/libdemo.so");
    let out = dir("run-line").join("y.bin");
    let o = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .args(["--json", "run", demo, "--kernel", "axpy", "--grid", "1000"])
        .args(["--block", "256", "-a"])
        .arg(format!("buf:y:4000:iota_f32:out={}", out.display()))
        .args(["-a", "buf:x:4000:f32:2", "-a", "f32:0.5", "-a", "i32:1000"])
        .arg("--tool")
        .arg(&tool)
        .output()
        .expect("run lathe run");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let j: Value = serde_json::from_slice(&o.stdout).expect("json");
    let line = j["tool"]["line"].as_str().expect("line");
    assert!(line.starts_with("Kernel 0 - axpy"), "{line}");
    assert!(
        line.ends_with(
            ": Total Grid Size Dims (HSA): (1000, 1, 1) Workgroup Dims (HSA): (256, 1, 1) : \
             GridDim (HIP): (4, 1, 1)."
        ),
        "{line}"
    );
}

/// Without `lathe exec`'s check (the runtime loads the tool library
/// through `HSA_TOOLS_LIB` set by hand), a HIP tool that does not compile
/// fails every kernel with the same error: the library says it once,
/// with one note that the program runs uninstrumented, for the three
/// kernels of the program.
#[test]
fn the_tool_library_reports_a_broken_hip_tool_once() {
    if !have_hipcc() {
        return;
    }
    let d = bad_tool(
        "broken-once",
        "#include \"lathe_hip_extra.h\"\n__device__ unsigned int seen;\n\
         extern \"C\" __device__ void h(unsigned a) { seen = a + broken_on_purpose; }\n",
        r#"{"hooks": [{"at": "block-entry", "hook": "h", "args": ["site"]}],
            "report": [{"var": "seen", "type": "u32"}]}"#,
    );
    // The runtime under its ROCr name, as `lathe exec` links it.
    let _ = exec(&[], &[]);
    let rt = target_dir().join("lathe-hsa");
    assert!(
        rt.join("libhsa-runtime64.so.1").exists(),
        "{}",
        rt.display()
    );
    let o = Command::new(app())
        .env("LD_LIBRARY_PATH", &rt)
        .env("HSA_TOOLS_LIB", target_dir().join("liblathe_tool.so"))
        .env("LATHE_TOOL", &d)
        .env_remove("LATHE_TOOL_OUT")
        .env_remove("LATHE_TOOL_ON_ERROR")
        .output()
        .expect("run the program");
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(text(&o.stdout), baseline(), "the program's output changed");
    assert_eq!(
        err.matches("use of undeclared identifier 'broken_on_purpose'")
            .count(),
        1,
        "{err}"
    );
    assert_eq!(err.matches("lathe-tool: error: ").count(), 1, "{err}");
    assert_eq!(
        err.matches("lathe-tool: the program runs uninstrumented")
            .count(),
        1,
        "{err}"
    );
}

//! HIP hooks (crates/dbi/src/hook.rs, manifest.rs): tools written in HIP,
//! compiled by clang-22 into a tool code object, called from instrumented
//! kernels (also clang-22 built) on the emulator. Every run's outputs
//! equal the uninstrumented run's, and counts equal the emulator's
//! ground truth.

mod common;
use common::hip_shared;

use std::path::{Path, PathBuf};

use lathe_dbi::hook::HookError;
use lathe_dbi::manifest::HipTool;
use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::Options;
use lathe_emu::session::{Session, Shape};

fn root() -> PathBuf {
    lathe_testkit::workspace_root()
}

fn example(name: &str) -> PathBuf {
    root().join("examples/tools").join(name)
}

fn test_tool(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/hip/hook_tools")
        .join(name)
}

fn opts() -> Options {
    Options {
        threads: 1,
        ..Options::default()
    }
}

fn u32_arg(v: u32) -> Arg {
    Arg::Scalar {
        ty: "u32".into(),
        bytes: v.to_le_bytes().to_vec(),
    }
}

fn buf(name: &str, bytes: Vec<u8>) -> Arg {
    Arg::Buffer {
        name: name.into(),
        size: bytes.len() as u64,
        fill: Fill::Bytes(bytes),
        output: None,
    }
}

/// Runs `kernel` plain and under `tool`; asserts equal outputs and returns
/// the tool run.
fn run_both(
    target: &str,
    co: &[u8],
    kernel: &str,
    tool: &HipTool,
    shape: Shape,
    args: &[Arg],
) -> lathe_dbi_run::hip::HipRun {
    let agent: lathe_bundle::TargetId = target.parse().expect("target");
    let base = Session::load(agent, &[co]).expect("load");
    let (_r, bufs) = base
        .launch(kernel, shape, args, &opts())
        .expect("uninstrumented run");
    let want: Vec<Vec<u8>> = bufs
        .iter()
        .map(|b| base.download(b.addr, b.size).expect("out"))
        .collect();
    let run = lathe_dbi_run::hip::run(agent, &[co], kernel, tool, shape, args, &opts(), true)
        .unwrap_or_else(|e| panic!("{target} {kernel}: {e}"));
    let got: Vec<Vec<u8>> = run
        .buffers
        .iter()
        .map(|b| run.session.download(b.addr, b.size).expect("out"))
        .collect();
    assert_eq!(
        got, want,
        "{target} {kernel}: outputs differ from the uninstrumented run"
    );
    assert!(!run.build.sites.is_empty(), "{target} {kernel}: no sites");
    run
}

/// Runs a corpus case (-O3) plain and under `tool` (recording ground
/// truth); asserts equal outputs and returns the tool run.
fn case_under_tool(
    case: &lathe_cases::Case,
    target: &'static str,
    tool: &HipTool,
    what: &str,
) -> lathe_dbi_run::hip::HipRun {
    use common::{args_of, outputs, shape_of};
    let co = std::fs::read(lathe_cases::build::linked_code_object(case, target, "-O3"))
        .expect("case code object");
    let agent: lathe_bundle::TargetId = target.parse().expect("target");
    let (args, shape) = (args_of(case), shape_of(case));
    let base = Session::load(agent, &[&co]).expect("load");
    let (_r, bufs) = base
        .launch(case.kernel, shape, &args, &opts())
        .expect("uninstrumented run");
    let want = outputs(&base, case, &bufs);
    let run = lathe_dbi_run::hip::run(
        agent,
        &[&co],
        case.kernel,
        tool,
        shape,
        &args,
        &opts(),
        true,
    )
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(
        outputs(&run.session, case, &run.buffers),
        want,
        "{what}: outputs"
    );
    run
}

/// Ground-truth wave- and lane-level instruction totals of a run.
fn totals(run: &lathe_dbi_run::hip::HipRun) -> (u64, u64) {
    let gt = run.ground_truth.as_ref().expect("ground truth");
    (
        gt.values().map(|c| c.waves).sum(),
        gt.values().map(|c| c.lanes).sum(),
    )
}

#[test]
fn griddim_on_1d_2d_3d_grids_with_partial_work_groups() {
    for (target, lanes) in [
        ("gfx90a", false),
        ("gfx942", false),
        ("gfx90a", true),
        ("gfx942", true),
    ] {
        let mut tool = HipTool::load(&example("griddim"), target).expect("griddim tool");
        tool.rewrite = lathe_dbi::rewrite::Options::lane_mode(lanes);
        let co = hip_shared("hook_kernels.hip", target);
        // 1-D: 1000 items in blocks of 64: 16 groups, the last partial.
        let n = 1000u32;
        let input: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
        let cases: Vec<(&str, Shape, Vec<Arg>, [u32; 3])> = vec![
            (
                "hk_scale",
                Shape::linear(n, 64),
                vec![
                    buf("out", vec![0; 4 * n as usize]),
                    buf("in", input),
                    u32_arg(n),
                ],
                [16, 1, 1],
            ),
            (
                "hk_fill2d",
                Shape {
                    grid: [50, 30, 1],
                    block: [16, 8, 1],
                    dims: 2,
                    dynamic_lds: 0,
                },
                vec![buf("out", vec![0; 4 * 50 * 30]), u32_arg(50), u32_arg(30)],
                [4, 4, 1],
            ),
            (
                "hk_fill3d",
                Shape {
                    grid: [9, 10, 11],
                    block: [4, 4, 4],
                    dims: 3,
                    dynamic_lds: 0,
                },
                vec![
                    buf("out", vec![0; 4 * 9 * 10 * 11]),
                    u32_arg(9),
                    u32_arg(10),
                    u32_arg(11),
                ],
                [3, 3, 3],
            ),
        ];
        for (kernel, shape, args, want) in cases {
            let run = run_both(target, &co, kernel, &tool, shape, &args);
            assert_eq!(run.build.sites.len(), 1, "{target} {kernel}: one site");
            // Two relocations (low and high half) against the hook.
            let r = &run.build.relocs;
            assert_eq!(r.len(), 2, "{target} {kernel}: {r:?}");
            assert!(r.iter().all(|x| x.symbol == "griddim_hook"));
            common::llvm_accepts(&run.build.code_object, target, &format!("hooked-{kernel}"))
                .unwrap_or_else(|e| panic!("{target} {kernel}: {e}"));
            let got: Vec<u64> = run.result["grid_dim"]
                .as_array()
                .expect("grid_dim")
                .iter()
                .map(|v| v.as_u64().expect("u32"))
                .collect();
            assert_eq!(got, want.map(u64::from).to_vec(), "{target} {kernel}");
            let line = run.line.expect("line");
            assert_eq!(
                line,
                format!("GridDim (HIP): ({}, {}, {}).", want[0], want[1], want[2])
            );
        }
    }
}

/// The instr-count HIP tool (a hook at every block entry, the block's
/// instruction count as a constant argument) equals the emulator's ground
/// truth of wave-instructions on corpus kernels, gfx90a and gfx942, with
/// free SGPRs reserved and in lane mode.
#[test]
fn instr_count_hip_tool_equals_ground_truth_on_corpus_kernels() {
    use common::{args_of, outputs, shape_of};
    let picks = [
        "saxpy",
        "collatz_steps",
        "divergent_mix",
        "grid3d_ids",
        "intdiv32",
        "block_reduce_i32",
    ];
    let mut done = 0;
    let mut failed = Vec::new();
    for case in lathe_cases::all()
        .into_iter()
        .filter(|c| picks.contains(&c.name))
    {
        for (target, lanes) in [
            ("gfx90a", false),
            ("gfx942", false),
            ("gfx90a", true),
            ("gfx942", true),
        ] {
            if !case.targets.contains(&target) {
                continue;
            }
            let mut tool =
                HipTool::load(&example("instr-count"), target).expect("instr-count tool");
            // Lane mode: probe SGPRs borrowed per site, state in VGPR lanes.
            tool.rewrite = lathe_dbi::rewrite::Options::lane_mode(lanes);
            let co = std::fs::read(lathe_cases::build::linked_code_object(&case, target, "-O3"))
                .expect("case code object");
            let agent: lathe_bundle::TargetId = target.parse().expect("target");
            let (args, shape) = (args_of(&case), shape_of(&case));
            let base = Session::load(agent, &[&co]).expect("load");
            let (_r, bufs) = base
                .launch(case.kernel, shape, &args, &opts())
                .expect("uninstrumented run");
            let want = outputs(&base, &case, &bufs);
            let what = format!(
                "{} {target}{}",
                case.name,
                if lanes { " (lane mode)" } else { "" }
            );
            let run = match lathe_dbi_run::hip::run(
                agent,
                &[&co],
                case.kernel,
                &tool,
                shape,
                &args,
                &opts(),
                true,
            ) {
                Ok(r) => r,
                Err(e) => {
                    failed.push(format!("{what}: {e}"));
                    continue;
                }
            };
            assert!(!run.build.sites.is_empty(), "{what}: no sites");
            if outputs(&run.session, &case, &run.buffers) != want {
                failed.push(format!("{what}: outputs differ"));
                continue;
            }
            let gt = run.ground_truth.as_ref().expect("ground truth");
            let gw: u64 = gt.values().map(|c| c.waves).sum();
            let got = run.result["wave_instructions"].as_u64().expect("u64");
            assert!(gw > 0, "{what}: empty ground truth");
            if got != gw {
                failed.push(format!(
                    "{what}: {got} wave-instructions, ground truth {gw}"
                ));
                continue;
            }
            let tl = run.result["thread_instructions"].as_u64().expect("u64");
            let gl: u64 = gt.values().map(|c| c.lanes).sum();
            assert!(tl > 0, "{what}: no thread instructions");
            if tl != gl {
                failed.push(format!(
                    "{what}: {tl} thread-instructions, ground truth {gl}"
                ));
                continue;
            }
            eprintln!(
                "{what}: {got} wave-instructions, exact; {}",
                run.line.unwrap_or_default()
            );
            done += 1;
        }
    }
    for f in &failed {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty(), "{} failed", failed.len());
    assert!(done >= 16, "only {done} runs");
}

/// A hook that calls a `noinline` device function and keeps a local array
/// in scratch, in a kernel that had no scratch (hk_scale) and in a kernel
/// that itself calls device functions (hk_calls): outputs unchanged, one
/// hook call per active lane per block entry.
#[test]
fn hook_with_scratch_and_calls_in_kernels_with_and_without_calls() {
    for (target, lanes) in [
        ("gfx90a", false),
        ("gfx942", false),
        ("gfx90a", true),
        ("gfx942", true),
    ] {
        let mut tool = HipTool::load(&test_tool("scratchy"), target).expect("scratchy tool");
        tool.rewrite = lathe_dbi::rewrite::Options::lane_mode(lanes);
        assert!(
            tool.hooks()[0].frame > 0,
            "{target}: the hook's frame was not found"
        );
        let co = hip_shared("hook_kernels.hip", target);
        let parsed = lathe_codeobj::CodeObject::parse(&co).expect("parse");
        let syms = parsed.symbols().expect("symbols");
        let scale = syms.kernel("hk_scale").expect("hk_scale");
        let d = scale.descriptor.as_ref().expect("descriptor");
        assert_eq!(
            d.compute_pgm_rsrc2 & 1,
            0,
            "{target}: hk_scale should have no scratch of its own"
        );
        let n = 200u32;
        let input: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
        for (kernel, args) in [
            (
                "hk_scale",
                vec![
                    buf("out", vec![0; 4 * n as usize]),
                    buf("in", input.clone()),
                    u32_arg(n),
                ],
            ),
            (
                "hk_calls",
                vec![buf("out", vec![0; 4 * n as usize]), u32_arg(n)],
            ),
        ] {
            if lanes && target == "gfx90a" && kernel == "hk_calls" {
                // Forced lane mode has no SGPR quad for the scratch
                // descriptor at this kernel's entry (a rewriter limit,
                // reported as NoRegisters): checked, not run.
                let e = tool.instrument(&co, Some(kernel)).expect_err("lane mode");
                assert!(matches!(e, lathe_dbi::Error::NoRegisters { .. }), "{e}");
                continue;
            }
            let run = run_both(target, &co, kernel, &tool, Shape::linear(256, 64), &args);
            let gt = run.ground_truth.as_ref().expect("ground truth");
            // One call per active lane at each block entry.
            let want: u64 = run
                .build
                .sites
                .iter()
                .map(|s| gt.get(&s.pc).map_or(0, |c| c.lanes))
                .sum();
            let calls = run.result["calls"].as_u64().expect("calls");
            assert!(calls > 0, "{target} {kernel}: no hook calls");
            assert_eq!(calls, want, "{target} {kernel}: hook calls");
            assert!(run.result["total"].as_u64().expect("total") > 0);
            if kernel == "hk_calls" {
                assert!(
                    run.build.program.functions.len() > 1,
                    "{target}: hk_calls calls a device function"
                );
            }
        }
    }
}

/// Writes a tool directory under the temp dir.
fn temp_tool(name: &str, hip: &str, json: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lathe-hooks-test-{name}"));
    std::fs::create_dir_all(&d).expect("dir");
    std::fs::write(d.join("tool.hip"), hip).expect("hip");
    std::fs::write(d.join("tool.json"), json).expect("json");
    d
}

fn load_err(name: &str, hip: &str, json: &str) -> HookError {
    let d = temp_tool(name, hip, json);
    match HipTool::load(&d, "gfx90a") {
        Ok(_) => panic!("{name}: loaded"),
        Err(e) => e,
    }
}

const HDR: &str = "#include \"lathe_hip_extra.h\"\n__device__ unsigned int v;\n";

#[test]
fn bad_tools_are_refused_with_clear_errors() {
    let one = |hook: &str, args: &str| {
        format!(r#"{{"hooks": [{{"at": "before", "hook": "{hook}", "args": [{args}]}}]}}"#)
    };
    // A hook the object does not define.
    let e = load_err(
        "missing",
        &format!("{HDR}extern \"C\" __device__ void h(unsigned a) {{ v = a; }}\n"),
        &one("nope", r#""site""#),
    );
    assert!(
        matches!(&e, HookError::MissingHook { hook, .. } if hook == "nope"),
        "{e}"
    );
    // Not extern "C": the mangled name is pointed out.
    let e = load_err(
        "mangled",
        &format!("{HDR}__device__ void h(unsigned a) {{ v = a; }}\n"),
        &one("h", r#""site""#),
    );
    assert!(
        matches!(&e, HookError::MissingHook { hint, .. } if hint.contains("extern")),
        "{e}"
    );
    // A struct argument.
    let e = load_err(
        "struct",
        &format!(
            "{HDR}struct P {{ unsigned a, b; }};\nextern \"C\" __device__ void h(P p) {{ v = p.a + p.b; }}\n"
        ),
        &one("h", r#""site""#),
    );
    assert!(
        matches!(&e, HookError::Signature { why, .. } if why.contains("unsupported parameter")),
        "{e}"
    );
    // Wrong argument count.
    let e = load_err(
        "count",
        &format!("{HDR}extern \"C\" __device__ void h(unsigned a, unsigned b) {{ v = a + b; }}\n"),
        &one("h", r#""site""#),
    );
    assert!(
        matches!(&e, HookError::Signature { why, .. } if why.contains("takes 2 parameters")),
        "{e}"
    );
    // Wrong argument type (pc is 64-bit).
    let e = load_err(
        "type",
        &format!("{HDR}extern \"C\" __device__ void h(unsigned a) {{ v = a; }}\n"),
        &one("h", r#""pc""#),
    );
    assert!(
        matches!(&e, HookError::Signature { why, .. } if why.contains("parameter 0")),
        "{e}"
    );
    // Types declared in the manifest that do not match the arguments.
    let e = load_err(
        "declared",
        &format!("{HDR}extern \"C\" __device__ void h(unsigned a) {{ v = a; }}\n"),
        r#"{"hooks": [{"at": "before", "hook": "h", "args": ["exec"], "types": ["u32"]}]}"#,
    );
    assert!(
        matches!(&e, HookError::Signature { why, .. } if why.contains("declared")),
        "{e}"
    );
    // More arguments than the argument VGPRs.
    let many = vec![r#""pc""#; 17].join(", ");
    let e = load_err(
        "many",
        &format!("{HDR}extern \"C\" __device__ void h(unsigned a) {{ v = a; }}\n"),
        &one("h", &many),
    );
    assert!(
        matches!(&e, HookError::Signature { why, .. } if why.contains("34 VGPRs")),
        "{e}"
    );
    // A hook using threadIdx (an implicit input hooks do not get).
    let e = load_err(
        "implicit",
        "#include \"lathe_hip.h\"\n__device__ unsigned int v[64];\nextern \"C\" __device__ void h(unsigned a) { v[threadIdx.x & 63] = a; }\n",
        &one("h", r#""site""#),
    );
    assert!(
        matches!(&e, HookError::Signature { why, .. } if why.contains("implicit")),
        "{e}"
    );
    // A compiler error: clang's stderr is shown.
    let e = load_err(
        "syntax",
        &format!("{HDR}extern \"C\" __device__ void h(unsigned a) {{ v = a }}\n"),
        &one("h", r#""site""#),
    );
    assert!(
        matches!(&e, HookError::Compile { stderr, .. } if stderr.contains("error")),
        "{e}"
    );
    // A malformed manifest.
    let e = load_err(
        "manifest",
        &format!("{HDR}extern \"C\" __device__ void h(unsigned a) {{ v = a; }}\n"),
        r#"{"hooks": [{"at": "sideways", "hook": "h"}]}"#,
    );
    assert!(matches!(&e, HookError::Manifest { .. }), "{e}");
    let e = load_err(
        "vocab",
        &format!("{HDR}extern \"C\" __device__ void h(unsigned a) {{ v = a; }}\n"),
        &one("h", r#""the_answer""#),
    );
    assert!(
        matches!(&e, HookError::Manifest { why, .. } if why.contains("the_answer")),
        "{e}"
    );
    // A tool object for another target than the kernel's.
    let tool = HipTool::load(&example("griddim"), "gfx90a").expect("griddim");
    let co = hip_shared("hook_kernels.hip", "gfx942");
    match tool.instrument(&co, None) {
        Err(lathe_dbi::Error::Hook(HookError::Target { found, want })) => {
            assert_eq!((found.as_str(), want.as_str()), ("gfx90a", "gfx942"));
        }
        other => panic!("expected a target error, got {other:?}"),
    }
}

/// Cached compiles: a second load reuses the cached object.
#[test]
fn tool_objects_are_cached_by_content() {
    let a = HipTool::load(&example("griddim"), "gfx942").expect("first");
    let t0 = std::fs::metadata(&a.cache_path)
        .expect("cached")
        .modified()
        .expect("mtime");
    let b = HipTool::load(&example("griddim"), "gfx942").expect("second");
    assert_eq!(a.cache_path, b.cache_path);
    assert_eq!(a.code_object(), b.code_object());
    let t1 = std::fs::metadata(&b.cache_path)
        .expect("cached")
        .modified()
        .expect("mtime");
    assert_eq!(t0, t1, "recompiled");
    // The report variables start at zero.
    let r = a.reset_values();
    assert_eq!(r, vec![("grid_dim".to_string(), vec![0u8; 12])]);
}

/// A hook before every global load with the original pc and the lane's
/// address (`vaddr`): one call per active lane, the addresses are the
/// input buffer's, the pc is the load's.
#[test]
fn load_hook_gets_pc_and_lane_addresses() {
    for (target, lanes) in [
        ("gfx90a", false),
        ("gfx942", false),
        ("gfx90a", true),
        ("gfx942", true),
    ] {
        let mut tool = HipTool::load(&test_tool("loads"), target).expect("loads tool");
        tool.rewrite = lathe_dbi::rewrite::Options::lane_mode(lanes);
        let co = hip_shared("hook_kernels.hip", target);
        let n = 1000u32;
        let input: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
        let args = vec![
            buf("out", vec![0; 4 * n as usize]),
            buf("in", input),
            u32_arg(n),
        ];
        let run = run_both(
            target,
            &co,
            "hk_scale",
            &tool,
            Shape::linear(1024, 64),
            &args,
        );
        assert_eq!(run.build.sites.len(), 1, "{target}: one global load");
        let site = &run.build.sites[0];
        assert!(site.inst.starts_with("global_load"), "{}", site.inst);
        let r = &run.result;
        assert_eq!(r["loads"].as_u64(), Some(u64::from(n)), "{target}");
        let base = run.buffers[1].addr;
        let want: u64 = (0..u64::from(n)).map(|i| base + 4 * i).sum();
        assert_eq!(r["address_sum"].as_u64(), Some(want), "{target}");
        assert_eq!(r["last_pc"].as_u64(), Some(site.pc), "{target}");
    }
}

/// A hook before every instruction of corpus kernels (sites with SCC,
/// VCC and M0 live, EXEC being written, calls): the wave and lane counts
/// equal the ground truth exactly, the outputs the uninstrumented run's.
#[test]
fn a_hook_before_every_instruction_is_exact() {
    let picks = [
        "saxpy",
        "divergent_mix",
        "block_reduce_i32",
        "intdiv_const",
        "local_array_dyn",
    ];
    let (mut done, mut scc_sites, mut vcc_sites) = (0, 0, 0);
    for case in lathe_cases::all()
        .into_iter()
        .filter(|c| picks.contains(&c.name))
    {
        for (target, lanes) in [("gfx90a", false), ("gfx942", false), ("gfx942", true)] {
            if !case.targets.contains(&target) {
                continue;
            }
            let what = format!("{} {target} lanes={lanes}", case.name);
            let mut tool = HipTool::load(&test_tool("every"), target).expect("every tool");
            tool.rewrite = lathe_dbi::rewrite::Options::lane_mode(lanes);
            let run = case_under_tool(&case, target, &tool, &what);
            let (gw, gl) = totals(&run);
            assert!(gw > 0 && gl > 0, "{what}: empty ground truth");
            assert!(
                run.build.sites.len() > 10,
                "{what}: {} sites",
                run.build.sites.len()
            );
            assert_eq!(run.result["waves"].as_u64(), Some(gw), "{what}: waves");
            assert_eq!(run.result["lanes"].as_u64(), Some(gl), "{what}: lanes");
            let scc = run.build.sites.iter().filter(|s| s.scc_live).count();
            let vcc = run.build.sites.iter().filter(|s| s.vcc_live).count();
            scc_sites += scc;
            vcc_sites += vcc;
            eprintln!(
                "{what}: {} sites ({scc} with SCC live, {vcc} with VCC live), {gw} wave-instructions exact",
                run.build.sites.len()
            );
            done += 1;
        }
    }
    assert!(done >= 8, "only {done} runs");
    assert!(
        scc_sites > 0 && vcc_sites > 0,
        "{scc_sites} sites with SCC live, {vcc_sites} with VCC live"
    );
}

/// A kernel calling, in another code object, a function that clobbers
/// every caller-saved register the convention lets it
/// (tests/hip/ext_lib.hip): its stack size is decided at dispatch
/// (`.uses_dynamic_stack`), and a kernel that recurses (sort_local) too.
/// On gfx942 (architected flat scratch) the hook's save area and frame go
/// above the kernel's stack pointer, as a callee's would; on gfx90a past
/// the stack's reserve (D12). With a hook before every instruction the
/// outputs equal a CPU reference and the counts the ground truth.
#[test]
fn hooks_in_kernels_with_a_dynamic_stack() {
    const N: u32 = 200;
    let reference: Vec<u8> = (0..256i32)
        .flat_map(|i| {
            let v = if i < N as i32 {
                (i * 3 + 1) + 5 * ((i + 7) * 3 + 1)
            } else {
                0
            };
            v.to_le_bytes()
        })
        .collect();
    for target in ["gfx90a", "gfx942"] {
        let lib = hip_shared("ext_lib.hip", target);
        let main = hip_shared("ext_main.hip", target);
        let tool = HipTool::load(&test_tool("every"), target).expect("every tool");
        let agent: lathe_bundle::TargetId = target.parse().expect("target");
        let args = vec![buf("out", vec![0; 4 * 256]), u32_arg(N)];
        let run = lathe_dbi_run::hip::run(
            agent,
            &[&lib, &main],
            "ext_calls",
            &tool,
            Shape::linear(256, 64),
            &args,
            &opts(),
            true,
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
        let got = run
            .session
            .download(run.buffers[0].addr, run.buffers[0].size)
            .expect("out");
        assert_eq!(got, reference, "{target}: outputs");
        let gt = run.ground_truth.as_ref().expect("ground truth");
        let gw: u64 = gt.values().map(|c| c.waves).sum();
        let gl: u64 = gt.values().map(|c| c.lanes).sum();
        assert!(gw > 0 && run.build.sites.len() > 10, "{target}");
        assert_eq!(run.result["waves"].as_u64(), Some(gw), "{target}: waves");
        assert_eq!(run.result["lanes"].as_u64(), Some(gl), "{target}: lanes");
    }
    // A recursive kernel from the corpus.
    let case = lathe_cases::by_name("sort_local").expect("sort_local");
    let tool = HipTool::load(&test_tool("every"), "gfx90a").expect("every tool");
    let run = case_under_tool(&case, "gfx90a", &tool, "sort_local");
    assert_eq!(
        run.result["waves"].as_u64(),
        Some(totals(&run).0),
        "sort_local: waves"
    );
}

/// The griddim hook at kernel entry and before `s_endpgm`, given the
/// work-group size (`block_dim_*`, 16-bit hidden arguments) instead.
#[test]
fn kernel_entry_and_endpgm_hooks_read_block_dims() {
    let hip = std::fs::read_to_string(example("griddim").join("tool.hip")).expect("tool.hip");
    for (name, at) in [("entry", "kernel-entry"), ("endpgm", "endpgm")] {
        let dir = temp_tool(
            &format!("blockdim-{name}"),
            &hip,
            &format!(
                r#"{{"hooks": [{{"at": "{at}", "hook": "griddim_hook", "args": ["block_dim_x", "block_dim_y", "block_dim_z"]}}],
                   "report": [{{"var": "grid_dim", "type": "u32", "count": 3}}]}}"#
            ),
        );
        for target in ["gfx90a", "gfx942"] {
            let tool = HipTool::load(&dir, target).expect("tool");
            let co = hip_shared("hook_kernels.hip", target);
            let shape = Shape {
                grid: [9, 10, 11],
                block: [4, 4, 2],
                dims: 3,
                dynamic_lds: 0,
            };
            let args = vec![
                buf("out", vec![0; 4 * 9 * 10 * 11]),
                u32_arg(9),
                u32_arg(10),
                u32_arg(11),
            ];
            let run = run_both(target, &co, "hk_fill3d", &tool, shape, &args);
            assert_eq!(
                run.result["grid_dim"],
                serde_json::json!([4, 4, 2]),
                "{target} {at}"
            );
            assert!(run.build.sites.iter().all(|s| s.at
                == if at == "endpgm" {
                    lathe_dbi::rewrite::Where::BeforeEndpgm
                } else {
                    lathe_dbi::rewrite::Where::KernelEntry
                }));
        }
    }
}

/// Every corpus case (gfx90a and gfx942, -O3) under the instr-count HIP
/// tool and, where small enough, a hook before every instruction: outputs
/// equal to the uninstrumented run's byte for byte (not through the case's
/// tolerance), wave- and thread-level counts equal to the
/// ground truth — kernels with a dynamic stack included. `LATHE_DBI_CASE`
/// filters by name; `LATHE_HOOKS_LANES=1` runs it in lane mode.
#[test]
fn hip_tools_on_every_case() {
    use common::{args_of, outputs, shape_of};
    let filter = std::env::var("LATHE_DBI_CASE").ok();
    let (mut exact, mut failed) = (0, Vec::new());
    for case in lathe_cases::all() {
        if filter.as_deref().is_some_and(|f| !case.name.contains(f)) {
            continue;
        }
        for &target in case.targets {
            if !matches!(target, "gfx90a" | "gfx942") {
                continue;
            }
            let objs: Vec<Vec<u8>> =
                vec![
                    std::fs::read(lathe_cases::build::linked_code_object(&case, target, "-O3"))
                        .expect("code object"),
                ];
            let refs: Vec<&[u8]> = objs.iter().map(|v| v.as_slice()).collect();
            let agent: lathe_bundle::TargetId = target.parse().expect("target");
            let (args, shape) = (args_of(&case), shape_of(&case));
            let base = Session::load(agent, &refs).expect("load");
            let (_r, bufs) = match base.launch(case.kernel, shape, &args, &opts()) {
                Ok(x) => x,
                Err(e) => panic!("{} {target}: uninstrumented: {e}", case.name),
            };
            let want = outputs(&base, &case, &bufs);
            for tool_name in ["instr-count", "every"] {
                let what = format!("{} {target} {tool_name}", case.name);
                let path = if tool_name == "every" {
                    test_tool("every")
                } else {
                    example(tool_name)
                };
                let mut tool = HipTool::load(&path, target).expect("tool");
                tool.rewrite = lathe_dbi::rewrite::Options::lane_mode(
                    std::env::var_os("LATHE_HOOKS_LANES").is_some(),
                );
                let run = match lathe_dbi_run::hip::run(
                    agent,
                    &refs,
                    case.kernel,
                    &tool,
                    shape,
                    &args,
                    &opts(),
                    true,
                ) {
                    Ok(r) => r,
                    Err(e) => {
                        failed.push(format!("{what}: {e}"));
                        continue;
                    }
                };
                // Byte for byte, whatever the case's own tolerance.
                if outputs(&run.session, &case, &run.buffers) != want {
                    failed.push(format!(
                        "{what}: outputs differ from the uninstrumented run"
                    ));
                    continue;
                }
                let gt = run.ground_truth.as_ref().expect("ground truth");
                let gw: u64 = gt.values().map(|c| c.waves).sum();
                let key = if tool_name == "every" {
                    "waves"
                } else {
                    "wave_instructions"
                };
                if run.result[key].as_u64() != Some(gw) {
                    failed.push(format!("{what}: {} vs ground truth {gw}", run.result[key]));
                    continue;
                }
                let gl: u64 = gt.values().map(|c| c.lanes).sum();
                let lanes_key = if tool_name == "every" {
                    "lanes"
                } else {
                    "thread_instructions"
                };
                if run.result[lanes_key].as_u64() != Some(gl) {
                    failed.push(format!(
                        "{what}: {} thread-instructions vs ground truth {gl}",
                        run.result[lanes_key]
                    ));
                    continue;
                }
                exact += 1;
            }
        }
    }
    eprintln!("hip tools: {exact} runs exact (wave- and thread-level)");
    for f in &failed {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty(), "{} failed", failed.len());
    assert!(exact > 0);
}

//! Register-stress kernels: every VGPR (v0..v255) and AGPR (a0..a255) in
//! use and live across a divergent loop, the SGPRs all in use too (most
//! live across the loop), with and without the kernel's own scratch. The
//! kernels are assembly generated here and built by clang-22 (`-x
//! assembler`) and `ld.lld -shared`, so the register use is exactly what
//! is written. After the divergent loop, lanes 16.. replace v3..v18
//! without reading them (a partial-EXEC write: lane 0, where probes work,
//! keeps its values). No register is free for probes: every tool must spill its
//! VGPRs to scratch (enabling it, or growing the kernel's own) and borrow
//! dead SGPRs per site. Each run's outputs must equal the uninstrumented
//! run's and a CPU reference, its counts the emulator's ground truth, with
//! the waitcnt check on; the results pass Lathe's descriptor/metadata
//! check and `llvm-objdump`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use lathe_codeobj::CodeObject;
use lathe_dbi::tools::{self, Tool};
use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::Options;
use lathe_emu::session::{Session, Shape};

mod common;

/// One stress kernel variant.
#[derive(Debug, Clone, Copy)]
struct Variant {
    name: &'static str,
    /// Last SGPR holding a constant live across the loop (s8..=smax).
    smax: u16,
    /// The kernel has its own scratch (a value stored at entry, reloaded
    /// after the loop).
    scratch: bool,
    /// The initial SGPRs are read after the loop too: every SGPR is live
    /// across it.
    all_live: bool,
}

const VARIANTS: [Variant; 3] = [
    // SGPRs s8..s95 live across the loop, s96..s101 the loop's own:
    // only the initial SGPRs are dead there.
    Variant {
        name: "regs_all",
        smax: 95,
        scratch: false,
        all_live: false,
    },
    Variant {
        name: "regs_all_scratch",
        smax: 89,
        scratch: true,
        all_live: false,
    },
    // Every VGPR and AGPR, few SGPRs: probe SGPRs are reserved, VGPRs
    // spilled.
    Variant {
        name: "regs_vgprs",
        smax: 40,
        scratch: false,
        all_live: false,
    },
];

const GRID: u32 = 192;
const ITERS: u32 = 5;
/// Lanes below this run the loop.
const DIVERGE: u32 = 48;

/// Initial value of vK (K >= 2) for global id `g`.
fn vinit(k: u32, g: u32) -> u32 {
    g.wrapping_mul(k).wrapping_add(k)
}

/// After the loop, lanes from this one on (lane 0 never is: a probe's
/// own lane) replace v3..=[`PARTIAL_LAST`] without reading them first: a
/// write under a partial EXEC that must not end those registers'
/// liveness, whose values lanes 0..PARTIAL still need.
const PARTIAL: u32 = 16;
/// The last VGPR of the partial write.
const PARTIAL_LAST: u32 = 18;

/// What the partial write stores in vK.
fn pconst(k: u32) -> u32 {
    k.wrapping_mul(0x1111)
}

/// Initial value of sK.
fn sinit(k: u32) -> u32 {
    k.wrapping_mul(0x9e37).wrapping_add(3)
}

/// The kernel's output for global id `g`, computed on the CPU.
fn reference(v: Variant, g: u32) -> u32 {
    let tid = g % 64;
    let mut acc = vinit(2, g);
    if tid < DIVERGE {
        acc = acc.wrapping_add(ITERS);
    }
    for k in 3..256 {
        // Lanes from PARTIAL on replaced v3..=v18 after the loop.
        let partial = tid >= PARTIAL && k <= PARTIAL_LAST;
        acc = acc.wrapping_add(if partial { pconst(k) } else { vinit(k, g) });
    }
    for k in 0..256 {
        acc = acc.wrapping_add(vinit(2 + k % 254, g));
    }
    for k in 8..=u32::from(v.smax) {
        acc = acc.wrapping_add(sinit(k));
    }
    // Temporaries s(smax+1)..s95, summed before the loop.
    for k in u32::from(v.smax) + 1..=95 {
        acc = acc.wrapping_add(sinit(k) ^ 0x55);
    }
    if v.scratch {
        acc = acc.wrapping_add(vinit(5, g).wrapping_mul(3));
    }
    acc
}

fn asm(v: Variant, target: &str) -> String {
    let gfx90a = target == "gfx90a";
    // Initial SGPRs: gfx90a with scratch: s[0:3] buffer, s[4:5] kernarg,
    // s6 work-group x, s7 wave offset; else s[0:1] kernarg, s2 work-group.
    let (ka, wg) = if v.scratch && gfx90a { (4, 6) } else { (0, 2) };
    let mut a = String::new();
    let w = &mut a;
    let _ = writeln!(w, ".amdgcn_target \"amdgcn-amd-amdhsa--{target}\"");
    let _ = writeln!(
        w,
        ".text\n.globl {0}\n.p2align 8\n.type {0},@function\n{0}:",
        v.name
    );
    let _ = writeln!(w, "  s_load_dwordx2 s[96:97], s[{ka}:{}], 0", ka + 1);
    let _ = writeln!(w, "  s_load_dword s98, s[{ka}:{}], 8", ka + 1);
    let _ = writeln!(w, "  v_lshl_add_u32 v1, s{wg}, 6, v0");
    for k in 2..256 {
        let _ = writeln!(w, "  v_mul_u32_u24_e32 v{k}, {k}, v1");
        let _ = writeln!(w, "  v_add_u32_e32 v{k}, {k}, v{k}");
    }
    for k in 0..256 {
        let _ = writeln!(w, "  v_accvgpr_write_b32 a{k}, v{}", 2 + k % 254);
    }
    for k in 8..=v.smax {
        let _ = writeln!(w, "  s_mov_b32 s{k}, {:#x}", sinit(u32::from(k)));
    }
    // Temporaries: used (so every SGPR is), dead across the loop.
    for k in v.smax + 1..=95 {
        let _ = writeln!(w, "  s_mov_b32 s{k}, {:#x}", sinit(u32::from(k)) ^ 0x55);
        let _ = writeln!(w, "  v_add_u32_e32 v2, s{k}, v2");
    }
    if v.scratch {
        // The kernel's own frame: 3 * v5 at offset 0, reloaded after the loop.
        let _ = writeln!(w, "  v_mul_u32_u24_e32 v0, 3, v5");
        if gfx90a {
            let _ = writeln!(w, "  buffer_store_dword v0, off, s[0:3], s7");
        } else {
            let _ = writeln!(w, "  scratch_store_dword off, v0, off");
        }
        let _ = writeln!(w, "  v_and_b32_e32 v0, 63, v1");
    }
    let _ = writeln!(w, "  v_cmp_gt_u32_e32 vcc, {DIVERGE}, v0");
    let _ = writeln!(w, "  s_waitcnt vmcnt(0) lgkmcnt(0)");
    let _ = writeln!(w, "  s_and_saveexec_b64 s[100:101], vcc");
    let _ = writeln!(w, "  s_mov_b32 s99, s98");
    let _ = writeln!(w, "  s_cbranch_execz .Ldone");
    let _ = writeln!(w, ".Lloop:");
    let _ = writeln!(w, "  v_add_u32_e32 v2, 1, v2");
    // out[g] = v2 each iteration (v4 = 4g + 4), overwritten at the end.
    let _ = writeln!(w, "  global_store_dword v4, v2, s[96:97] offset:-4");
    let _ = writeln!(w, "  s_add_u32 s99, s99, -1");
    let _ = writeln!(w, "  s_cmp_lg_u32 s99, 0");
    let _ = writeln!(w, "  s_cbranch_scc1 .Lloop");
    let _ = writeln!(w, ".Ldone:");
    let _ = writeln!(w, "  s_or_b64 exec, exec, s[100:101]");
    let _ = writeln!(w, "  v_cmp_le_u32_e32 vcc, {PARTIAL}, v0");
    let _ = writeln!(w, "  s_and_saveexec_b64 s[100:101], vcc");
    let _ = writeln!(w, "  s_cbranch_execz .Lpartial");
    for k in 3..=PARTIAL_LAST {
        let _ = writeln!(w, "  v_mov_b32_e32 v{k}, {:#x}", pconst(k));
    }
    let _ = writeln!(w, ".Lpartial:");
    let _ = writeln!(w, "  s_or_b64 exec, exec, s[100:101]");
    for k in 3..256 {
        let _ = writeln!(w, "  v_add_u32_e32 v2, v{k}, v2");
    }
    for k in 0..256 {
        let _ = writeln!(w, "  v_accvgpr_read_b32 v3, a{k}");
        let _ = writeln!(w, "  v_add_u32_e32 v2, v3, v2");
    }
    for k in 8..=v.smax {
        let _ = writeln!(w, "  v_add_u32_e32 v2, s{k}, v2");
    }
    if v.all_live {
        for k in 0..8 {
            let _ = writeln!(w, "  v_add_u32_e32 v2, s{k}, v2");
        }
        let _ = writeln!(w, "  v_add_u32_e32 v2, s98, v2");
    }
    if v.scratch {
        if gfx90a {
            let _ = writeln!(w, "  buffer_load_dword v3, off, s[0:3], s7");
        } else {
            let _ = writeln!(w, "  scratch_load_dword v3, off, off");
        }
        let _ = writeln!(w, "  s_waitcnt vmcnt(0)");
        let _ = writeln!(w, "  v_add_u32_e32 v2, v3, v2");
    }
    let _ = writeln!(w, "  v_lshlrev_b32_e32 v3, 2, v1");
    let _ = writeln!(w, "  global_store_dword v3, v2, s[96:97]");
    let _ = writeln!(w, "  s_endpgm");
    let _ = writeln!(w, ".Lend:\n.size {0}, .Lend-{0}", v.name);
    let priv_size = if v.scratch { 16 } else { 0 };
    let _ = writeln!(w, ".rodata\n.p2align 6\n.amdhsa_kernel {}", v.name);
    let _ = writeln!(
        w,
        "  .amdhsa_next_free_vgpr 512\n  .amdhsa_accum_offset 256"
    );
    let _ = writeln!(w, "  .amdhsa_next_free_sgpr 102");
    let _ = writeln!(
        w,
        "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_kernarg_size 16"
    );
    let _ = writeln!(w, "  .amdhsa_system_sgpr_workgroup_id_x 1");
    let _ = writeln!(w, "  .amdhsa_private_segment_fixed_size {priv_size}");
    if v.scratch {
        if gfx90a {
            let _ = writeln!(w, "  .amdhsa_user_sgpr_private_segment_buffer 1");
            let _ = writeln!(
                w,
                "  .amdhsa_system_sgpr_private_segment_wavefront_offset 1"
            );
        } else {
            let _ = writeln!(w, "  .amdhsa_enable_private_segment 1");
        }
    }
    if gfx90a {
        let _ = writeln!(w, "  .amdhsa_reserve_flat_scratch 0");
    }
    let _ = writeln!(w, ".end_amdhsa_kernel");
    let _ = writeln!(
        w,
        ".amdgpu_metadata\n---\namdhsa.version: [ 1, 2 ]\namdhsa.kernels:\n  - .name: {0}\n    \
         .symbol: {0}.kd\n    .kernarg_segment_size: 16\n    .kernarg_segment_align: 8\n    \
         .group_segment_fixed_size: 0\n    .private_segment_fixed_size: {priv_size}\n    \
         .wavefront_size: 64\n    .sgpr_count: 106\n    .vgpr_count: 512\n    .agpr_count: 256\n    \
         .max_flat_workgroup_size: 256\n    .args:\n      - {{ .name: out, .size: 8, .offset: 0, \
         .value_kind: global_buffer, .address_space: global }}\n      - {{ .name: iters, .size: 4, \
         .offset: 8, .value_kind: by_value }}\n...\n.end_amdgpu_metadata",
        v.name
    );
    a
}

/// Assembles and links the variant (cached by its text).
fn build(v: Variant, target: &str) -> PathBuf {
    lathe_testkit::assemble_shared(target, &format!("stress-{}", v.name), &asm(v, target))
}

fn args() -> Vec<Arg> {
    vec![
        Arg::Buffer {
            name: "out".into(),
            size: u64::from(GRID) * 4,
            fill: Fill::Bytes(vec![0; GRID as usize * 4]),
            output: None,
        },
        Arg::Scalar {
            ty: "u32".into(),
            bytes: ITERS.to_le_bytes().to_vec(),
        },
    ]
}

fn shape() -> Shape {
    Shape {
        grid: [GRID, 1, 1],
        block: [64, 1, 1],
        dims: 1,
        dynamic_lds: 0,
    }
}

/// Checks one tool's result against the run's ground truth.
fn check_counts(
    tool: Tool,
    kernel: &str,
    run: &lathe_dbi_run::builtin::ToolRun,
    b: &tools::ToolBuild,
) -> Result<(), String> {
    let gt = run.ground_truth.as_ref().ok_or("no ground truth")?;
    let r = &run.result;
    match tool {
        Tool::InstrCount => {
            let gw: u64 = gt.values().map(|c| c.waves).sum();
            let gl: u64 = gt.values().map(|c| c.lanes).sum();
            let got = (
                r["wave_instructions"].as_u64(),
                r["thread_instructions"].as_u64(),
            );
            if got != (Some(gw), Some(gl)) {
                return Err(format!("instr-count {got:?}, ground truth ({gw}, {gl})"));
            }
        }
        Tool::BlockCount => common::check_block_counts(r, &b.program, kernel, gt)?,
        Tool::OpcodeHist => {
            let mut want: BTreeMap<String, u64> = BTreeMap::new();
            for (pc, c) in gt {
                let fi = b.program.function_containing(*pc).ok_or("pc")?;
                let f = &b.program.functions[fi];
                let i = f.index_of(*pc).ok_or("inst")?;
                *want
                    .entry(f.insts[i].inst.opcode().name().to_string())
                    .or_default() += c.waves;
            }
            want.retain(|_, n| *n > 0);
            let got: BTreeMap<String, u64> = r["opcodes"]
                .as_array()
                .ok_or("opcodes")?
                .iter()
                .map(|o| {
                    (
                        o["opcode"].as_str().unwrap_or("").to_string(),
                        o["count"].as_u64().unwrap_or(0),
                    )
                })
                .collect();
            if got != want {
                return Err("opcode-hist differs from the ground truth".into());
            }
        }
        Tool::Kernarg => {
            let args = r["args"].as_array().ok_or("args")?;
            let iters = args.iter().find(|a| a["name"] == "iters").ok_or("iters")?;
            if iters["value"].as_u64() != Some(u64::from(ITERS)) {
                return Err(format!("kernarg iters = {}", iters["value"]));
            }
        }
        Tool::MemTrace => {
            let t = run.trace.as_ref().ok_or("trace")?;
            let pcs: std::collections::BTreeSet<u64> = b.sites.iter().map(|s| s.pc).collect();
            let want: Vec<(u64, u8, u64)> = run
                .ground_truth_accesses
                .clone()
                .ok_or("accesses")?
                .into_iter()
                .filter(|a| pcs.contains(&a.0))
                .collect();
            let mut got: Vec<(u64, u8, u64)> =
                t.events.iter().map(|e| (e.pc, e.lane, e.addr)).collect();
            got.sort_unstable();
            if t.dropped != 0 || got != want || want.is_empty() {
                return Err(format!(
                    "mem-trace: {} traced, {} in the ground truth, {} dropped",
                    got.len(),
                    want.len(),
                    t.dropped
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

#[test]
fn every_tool_on_register_stress_kernels_is_exact() {
    let mut failed = Vec::new();
    let mut done = 0;
    for target in ["gfx90a", "gfx942"] {
        let agent: lathe_bundle::TargetId = target.parse().expect("target");
        for v in VARIANTS {
            let path = build(v, target);
            let co = std::fs::read(&path).expect("code object");
            let parsed = CodeObject::parse(&co).expect("parse");
            let check = lathe_codeobj::check::check(&parsed).expect("check");
            assert!(
                check.is_clean(),
                "{} {target}: {:?}",
                v.name,
                check.warnings
            );
            let opts = Options {
                threads: 1,
                ..Options::default()
            };
            let base = Session::load(agent, &[&co]).expect("load");
            let (_r, bufs) = base
                .launch(v.name, shape(), &args(), &opts)
                .expect("uninstrumented run");
            let want = base.download(bufs[0].addr, bufs[0].size).expect("out");
            let reference: Vec<u8> = (0..GRID)
                .flat_map(|g| reference(v, g).to_le_bytes())
                .collect();
            assert_eq!(
                want, reference,
                "{} {target}: the kernel disagrees with the CPU",
                v.name
            );
            for tool in Tool::ALL {
                let what = format!("{} {target} {}", v.name, tool.name());
                let ro = lathe_dbi_run::builtin::RunOptions {
                    record: true,
                    force_lane_mode: false,
                    trace_capacity: None,
                };
                let (run, b) = match lathe_dbi_run::builtin::run(
                    agent,
                    &[&co],
                    v.name,
                    tool,
                    shape(),
                    &args(),
                    &opts,
                    &ro,
                ) {
                    Ok(x) => x,
                    Err(e) => {
                        failed.push(format!("{what}: {e}"));
                        continue;
                    }
                };
                let got = run
                    .session
                    .download(run.buffers[0].addr, run.buffers[0].size)
                    .expect("out");
                let nco = CodeObject::parse(&b.code_object).expect("parse result");
                let check = lathe_codeobj::check::check(&nco).expect("check");
                let ks = b.scratch.iter().find(|k| k.kernel == v.name);
                if got != want {
                    failed.push(format!("{what}: outputs differ"));
                } else if !check.is_clean() {
                    failed.push(format!("{what}: check: {:?}", check.warnings));
                } else if ks.is_none() || (b.spilled_sites == 0 && tool != Tool::Kernarg) {
                    // (kernarg's one site is at entry, where nearly
                    // everything is dead.)
                    failed.push(format!("{what}: nothing was spilled to scratch"));
                } else if let Err(e) =
                    common::llvm_accepts(&b.code_object, target, &what.replace(' ', "-"))
                {
                    failed.push(format!("{what}: {e}"));
                } else if let Err(e) = check_counts(tool, v.name, &run, &b) {
                    failed.push(format!("{what}: {e}"));
                } else {
                    done += 1;
                    eprintln!(
                        "{what}: {} sites, {} spilled, scratch {:?}",
                        b.sites.len(),
                        b.spilled_sites,
                        ks
                    );
                }
            }
        }
    }
    for f in &failed {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty(), "{} failed", failed.len());
    assert!(done > 0);
}

/// Every SGPR live across the loop (the initial ones are read after it):
/// a block-count site in the loop has no SGPR to hold EXEC while VGPRs are
/// spilled, so instrumenting fails with a typed error naming the site,
/// not a panic or wrong code; the entry-only `kernarg` tool still works.
#[test]
fn a_site_with_every_register_live_is_refused_with_a_typed_error() {
    let v = Variant {
        name: "regs_all_live",
        smax: 95,
        scratch: false,
        all_live: true,
    };
    for target in ["gfx90a", "gfx942"] {
        let co = std::fs::read(build(v, target)).expect("code object");
        match tools::instrument(&co, Tool::BlockCount, None) {
            Err(lathe_dbi::Error::NoRegisters { function, why }) => {
                assert_eq!(function, v.name);
                assert!(why.contains("no dead SGPR pair at the site at 0x"), "{why}");
            }
            other => panic!(
                "{target}: expected NoRegisters, got {:?}",
                other.map(|b| b.sites.len())
            ),
        }
        let b = tools::instrument(&co, Tool::Kernarg, None).expect("kernarg");
        assert_eq!(b.sites.len(), 1);
    }
}

/// Random site selections (the fuzz target's request generator) on the
/// register-stress kernels, where every probe register is spilled to
/// scratch at sites anywhere (inside the divergent loop, with SCC or VCC
/// live, after EXEC writes): outputs stay equal to the CPU reference with
/// the waitcnt check on. A site where no SGPR pair is dead may be refused
/// with a typed `NoRegisters` error, nothing else.
#[test]
fn random_sites_on_register_stress_kernels_keep_outputs() {
    use lathe_dbi::rewrite::{instrument_lifted_with, Options as RwOptions};
    use lathe_dbi::tools::requests_from_bytes;
    let mut rng = lathe_cases::Prng::new(0x5e1f_5c7a);
    let (mut runs, mut refused, mut spilled) = (0, 0, 0);
    let mut failed = Vec::new();
    for target in ["gfx90a", "gfx942"] {
        let agent: lathe_bundle::TargetId = target.parse().expect("target");
        for v in VARIANTS {
            let co = std::fs::read(build(v, target)).expect("code object");
            let obj = CodeObject::parse(&co).expect("parse");
            let p = lathe_dbi::Program::lift(&obj).expect("lift");
            let live = lathe_dbi::Liveness::compute(&p);
            let reference: Vec<u8> = (0..GRID)
                .flat_map(|g| reference(v, g).to_le_bytes())
                .collect();
            for k in 0..24 {
                let bytes: Vec<u8> = (0..16).map(|_| rng.next_u32() as u8).collect();
                // Every other run with lane mode forced: full mode (state
                // word in scratch) even where SGPRs are free.
                let lanes = k % 2 == 1;
                let what = format!("{} {target} {bytes:02x?} lanes {lanes}", v.name);
                let reqs = requests_from_bytes(&bytes);
                let out = match instrument_lifted_with(
                    &obj,
                    &p,
                    &live,
                    &reqs,
                    &RwOptions::lane_mode(lanes),
                ) {
                    Ok(o) => o,
                    Err(lathe_dbi::Error::NoRegisters { .. }) => {
                        refused += 1;
                        continue;
                    }
                    Err(e) => {
                        failed.push(format!("{what}: {e}"));
                        continue;
                    }
                };
                spilled += out.spilled_sites;
                let session = Session::load(agent, &[&out.code_object]).expect("load");
                let var = session
                    .exe
                    .symbol(lathe_dbi::elfout::DATA_SYMBOL)
                    .expect("data symbol")
                    .address;
                let buf = session
                    .upload(&vec![0u8; out.data_size as usize])
                    .expect("probe data");
                session.mem.view().store_u64(var, buf).expect("pointer");
                let opts = Options {
                    threads: 1,
                    ..Options::default()
                };
                match session.launch(v.name, shape(), &args(), &opts) {
                    Ok((_r, bufs)) => {
                        let got = session.download(bufs[0].addr, bufs[0].size).expect("out");
                        if got != reference {
                            failed.push(format!("{what}: outputs differ"));
                        } else {
                            runs += 1;
                        }
                    }
                    Err(e) => failed.push(format!("{what}: {e}")),
                }
            }
        }
    }
    eprintln!(
        "random sites on stress kernels: {runs} runs exact, {spilled} sites spilled, {refused} \
         refused (no dead SGPR pair at a site)"
    );
    for f in &failed {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty(), "{} failed", failed.len());
    assert!(runs > 0 && spilled > 0);
}

/// The probe-scratch API ([`lathe_dbi::scratch`]) where nothing is free:
/// a probe asking for scratch bytes writes K through `scratch_*` (and K + 1
/// through the MUBUF descriptor the rewriter hands it on gfx90a) at kernel
/// entry, and reads both back before every `global_store` — inside the
/// loop, where every VGPR is live and the probe's registers are spilled
/// around it, the descriptor and probe-data address coming from the
/// area's state word (full mode). Counters equal K (and K + 1) times the
/// store's executions, outputs equal the CPU reference.
#[test]
fn probe_scratch_on_register_stress_kernels() {
    use common::roundtrip::{requests_at, K};
    use lathe_dbi::rewrite::{instrument_lifted_with, Options as RwOptions, Where};
    let mut done = 0;
    for target in ["gfx90a", "gfx942"] {
        let agent: lathe_bundle::TargetId = target.parse().expect("target");
        for v in VARIANTS {
            let co = std::fs::read(build(v, target)).expect("code object");
            let obj = CodeObject::parse(&co).expect("parse");
            let p = lathe_dbi::Program::lift(&obj).expect("lift");
            let live = lathe_dbi::Liveness::compute(&p);
            let reference: Vec<u8> = (0..GRID)
                .flat_map(|g| reference(v, g).to_le_bytes())
                .collect();
            for lanes in [false, true] {
                let what = format!("{} {target} lanes {lanes}", v.name);
                let reqs = requests_at(v.name, Where::Before, Some("^global_store"));
                let out =
                    instrument_lifted_with(&obj, &p, &live, &reqs, &RwOptions::lane_mode(lanes))
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(out.spilled_sites > 0, "{what}: nothing spilled");
                let nco = CodeObject::parse(&out.code_object).expect("parse result");
                let check = lathe_codeobj::check::check(&nco).expect("check");
                assert!(check.is_clean(), "{what}: {:?}", check.warnings);
                let session = Session::load(agent, &[&out.code_object]).expect("load");
                let var = session
                    .exe
                    .symbol(lathe_dbi::elfout::DATA_SYMBOL)
                    .expect("data symbol")
                    .address;
                let buf = session
                    .upload(&vec![0u8; out.data_size as usize])
                    .expect("probe data");
                session.mem.view().store_u64(var, buf).expect("pointer");
                let opts = Options {
                    threads: 1,
                    ..Options::default()
                };
                let (rep, bufs) = session
                    .launch(v.name, shape(), &args(), &opts)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let got = session.download(bufs[0].addr, bufs[0].size).expect("out");
                assert_eq!(got, reference, "{what}: outputs");
                let data = session.download(buf, out.data_size).expect("data");
                let at = |o: u32| {
                    u64::from_le_bytes(data[o as usize..o as usize + 8].try_into().expect("8"))
                };
                let (mut a, mut b) = (0, 0);
                for s in out.sites.iter().filter(|s| s.at == Where::Before) {
                    a += at(s.slot);
                    b += at(s.slot + 8);
                }
                // Every wave runs the loop's store ITERS times, then the
                // final one.
                let stores = rep.waves * u64::from(ITERS + 1);
                assert_eq!(
                    (a, b),
                    (u64::from(K) * stores, u64::from(K + 1) * stores),
                    "{what}: counters"
                );
                done += 1;
            }
        }
    }
    assert_eq!(done, 12);
}

/// Where nothing is free, checked statically (no run): every tool and
/// random site selections, in both register modes, on every variant and
/// target; the probe code must leave each register live after it
/// unwritten or saved first ([`lathe_dbi::verify_regs`]): the borrowed
/// SGPRs and spilled VGPRs, which the reserved-register path never needs.
#[test]
fn probes_on_register_stress_kernels_keep_live_registers_statically() {
    use lathe_dbi::rewrite::{instrument_lifted_with, Options as RwOptions};
    use lathe_dbi::tools::requests_from_bytes;
    let mut rng = lathe_cases::Prng::new(0x57a7_1c5e);
    let (mut outs, mut saved, mut spilled, mut refused) = (0, 0, 0, 0);
    let mut failed = Vec::new();
    for target in ["gfx90a", "gfx942"] {
        for v in VARIANTS {
            let co = std::fs::read(build(v, target)).expect("code object");
            let obj = CodeObject::parse(&co).expect("parse");
            let p = lathe_dbi::Program::lift(&obj).expect("lift");
            let live = lathe_dbi::Liveness::compute(&p);
            for k in 0..(Tool::ALL.len() + 24) {
                let (what, reqs) = match Tool::ALL.get(k) {
                    Some(&t) => (
                        t.name().to_string(),
                        tools::requests(t, None, 64).expect("requests"),
                    ),
                    None => {
                        let b: Vec<u8> = (0..16).map(|_| rng.next_u32() as u8).collect();
                        (format!("{b:02x?}"), requests_from_bytes(&b))
                    }
                };
                for lanes in [false, true] {
                    let what = format!("{} {target} {what} lanes {lanes}", v.name);
                    let out = match instrument_lifted_with(
                        &obj,
                        &p,
                        &live,
                        &reqs,
                        &RwOptions::lane_mode(lanes),
                    ) {
                        Ok(o) => o,
                        Err(lathe_dbi::Error::NoRegisters { .. }) => {
                            refused += 1;
                            continue;
                        }
                        Err(e) => {
                            failed.push(format!("{what}: {e}"));
                            continue;
                        }
                    };
                    outs += 1;
                    spilled += out.spilled_sites;
                    match lathe_dbi::verify_regs::check(&p, &live, &out.code_object, &out.addr_map)
                    {
                        Ok(c) => saved += c.saved,
                        Err(e) => failed.push(format!("{what}: {e}")),
                    }
                }
            }
        }
    }
    eprintln!(
        "stress kernels, static: {outs} instrumented, {spilled} sites spilled, {saved} probe runs \
         saving a live register, {refused} refused"
    );
    for f in failed.iter().take(20) {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty(), "{} failed", failed.len());
    assert!(outs > 100 && spilled > 0 && saved > 0);
}

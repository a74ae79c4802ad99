//! Layout under heavy insertion: `dbi_big_loop` (clang-22 -O3) has a loop
//! of ~48 KiB, which grows past 128 KiB instrumented; a counter before every VALU instruction pushes its
//! branches out of s_branch range. The rewriter must relax them into long
//! jumps; the kernel must produce the uninstrumented run's outputs with
//! the waitcnt check on, and every site's counters must equal the
//! emulator's ground truth for its instruction. The kernel uses s0..s95,
//! so the rewriter switches to lane mode by itself (SGPRs borrowed per
//! site, long jumps through dead SGPRs).

use std::sync::Arc;

use lathe_codeobj::CodeObject;
use lathe_dbi::rewrite::{
    instrument_lifted_with, CounterProbe, InstClass, Options as RwOptions, Request, Selector, Where,
};
use lathe_dbi::{Liveness, Program};
use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::Options;
use lathe_emu::session::{Session, Shape};
use lathe_testkit::{Build, Output};

const KERNEL: &str = "_Z12dbi_big_loopPjPKji";

fn args() -> Vec<Arg> {
    let n = 128u32;
    vec![
        Arg::Buffer {
            name: "out".into(),
            size: 4 * u64::from(n),
            fill: Fill::Bytes(vec![0; 4 * n as usize]),
            output: None,
        },
        Arg::Buffer {
            name: "in".into(),
            size: 4 * u64::from(n),
            fill: Fill::Bytes(
                (0..n)
                    .flat_map(|i| i.wrapping_mul(2654435761u32).to_le_bytes())
                    .collect(),
            ),
            output: None,
        },
        Arg::Scalar {
            ty: "i32".into(),
            bytes: 3i32.to_le_bytes().to_vec(),
        },
    ]
}

/// CPU reference.
fn reference() -> Vec<u8> {
    (0..128u32)
        .flat_map(|t| {
            let mut x = t.wrapping_mul(2654435761);
            let mut y = t;
            for k in 0..3u32 {
                for j in 0..2500u32 {
                    x = x.wrapping_mul(1664525).wrapping_add(j * 7 + k);
                    y ^= x >> (j & 15);
                }
            }
            (x ^ y).to_le_bytes()
        })
        .collect()
}

#[test]
fn long_jumps_keep_big_kernels_exact() {
    let path = Build::new("dbi_big.hip", &["gfx90a"], Output::CodeObject).build();
    let co = std::fs::read(path).expect("code object");
    let obj = CodeObject::parse(&co).expect("parse");
    let p = Program::lift(&obj).expect("lift");
    let f = &p.functions[p.function(KERNEL).expect("kernel")];
    assert!(f.size > 32 * 1024, "kernel is only {} bytes", f.size);
    let live = Liveness::compute(&p);
    let opts = Options {
        threads: 1,
        ..Options::default()
    };
    let shape = Shape::linear(128, 64);
    let agent: lathe_bundle::TargetId = "gfx90a".parse().expect("target");
    let base = Session::load(agent, &[&co]).expect("load");
    let (_r, bufs) = base.launch(KERNEL, shape, &args(), &opts).expect("run");
    let want = base.download(bufs[0].addr, bufs[0].size).expect("read");
    assert_eq!(want, reference());
    let req = Request {
        select: Selector {
            class: Some(InstClass::Valu),
            ..Default::default()
        },
        at: Where::Before,
        probe: Arc::new(CounterProbe { lanes: true }),
    };
    for lanes in [false, true] {
        let out = instrument_lifted_with(
            &obj,
            &p,
            &live,
            std::slice::from_ref(&req),
            &RwOptions::lane_mode(lanes),
        )
        .expect("instrument");
        assert!(out.relaxed_branches > 0, "no branch needed relaxation");
        // Relaxed branches pass the static check too (lathe_dbi::verify).
        lathe_dbi::verify::check(&p, &out.code_object, &out.addr_map)
            .unwrap_or_else(|e| panic!("lanes {lanes}: {e}"));
        let span = out.addr_map.iter().map(|(n, _)| *n).max().unwrap_or(0)
            - out.addr_map.iter().map(|(n, _)| *n).min().unwrap_or(0);
        assert!(
            span > 128 * 1024,
            "instrumented code spans only {span} bytes"
        );
        let s = Session::load(agent, &[&out.code_object]).expect("load instrumented");
        let var = s
            .exe
            .symbol(lathe_dbi::elfout::DATA_SYMBOL)
            .expect("symbol")
            .address;
        let buf = s
            .upload(&vec![0u8; out.data_size as usize])
            .expect("buffer");
        s.mem.view().store_u64(var, buf).expect("pointer");
        let (_r, bufs, rec) = s
            .launch_recorded(KERNEL, shape, &args(), &opts)
            .expect("run instrumented");
        assert_eq!(
            s.download(bufs[0].addr, bufs[0].size).expect("read"),
            want,
            "lanes {lanes}"
        );
        let data = s.download(buf, out.data_size).expect("probe data");
        let lco = &s.exe.code_objects()[0];
        let new_of: std::collections::HashMap<u64, u64> =
            out.addr_map.iter().map(|(n, o)| (*o, *n)).collect();
        for site in &out.sites {
            let gt = rec
                .per_pc
                .get(&lco.device_address(new_of[&site.pc]))
                .copied()
                .unwrap_or_default();
            let at = site.slot as usize;
            let w = u64::from_le_bytes(data[at..at + 8].try_into().expect("8"));
            let l = u64::from_le_bytes(data[at + 8..at + 16].try_into().expect("8"));
            assert_eq!(
                (w, l),
                (gt.waves, gt.lanes),
                "site at {:#x} ({}), lanes {lanes}",
                site.pc,
                site.inst
            );
        }
        eprintln!(
            "lanes {lanes}: {} sites, {} long jumps, kernel {} -> {span} bytes, regs {:?}",
            out.sites.len(),
            out.relaxed_branches,
            f.size,
            out.regs
        );
    }
}

/// Filler VALU instructions the relaxed branch jumps over: 32 KiB, which a
/// counter before each pushes past s_branch and s_call range.
const FILLER: u32 = 8192;

/// `scc_relax` (assembly, built by clang-22): SCC = (work-group < 2) is set
/// once and read after each of the three places the rewriter saves and
/// restores it: a bare `s_getpc_b64` (re-based by an add), an `s_call_b64`
/// whose callee (which reads SCC first) ends up out of range, and an
/// `s_cbranch_scc1` over the filler, relaxed to a long jump. Each read
/// leaves a bit in the output, so an SCC clobbered at any of them changes
/// it, in the waves with SCC = 1 or in those with SCC = 0.
fn scc_asm(target: &str) -> String {
    use std::fmt::Write as _;
    let mut a = String::new();
    let w = &mut a;
    let _ = writeln!(w, ".amdgcn_target \"amdgcn-amd-amdhsa--{target}\"");
    let _ = writeln!(
        w,
        ".text\n.globl scc_relax\n.p2align 8\n.type scc_relax,@function\nscc_relax:"
    );
    let _ = writeln!(w, "  s_load_dwordx2 s[4:5], s[0:1], 0");
    let _ = writeln!(w, "  v_mov_b32_e32 v1, s2");
    let _ = writeln!(w, "  s_cmp_lt_u32 s2, 2");
    let _ = writeln!(w, "  s_getpc_b64 s[6:7]");
    let _ = writeln!(w, "  s_cselect_b32 s8, 1, 0");
    let _ = writeln!(w, "  s_call_b64 s[30:31], scc_callee");
    let _ = writeln!(w, "  s_cselect_b32 s10, 4, 0");
    let _ = writeln!(w, "  s_cbranch_scc1 .Lfar");
    for _ in 0..FILLER {
        let _ = writeln!(w, "  v_add_u32_e32 v1, 1, v1");
    }
    let _ = writeln!(w, ".Lfar:");
    let _ = writeln!(w, "  s_cselect_b32 s11, 8, 0");
    let _ = writeln!(w, "  s_or_b32 s8, s8, s9");
    let _ = writeln!(w, "  s_or_b32 s8, s8, s10");
    let _ = writeln!(w, "  s_or_b32 s8, s8, s11");
    let _ = writeln!(w, "  v_lshl_or_b32 v2, v1, 4, s8");
    let _ = writeln!(w, "  v_lshl_add_u32 v3, s2, 6, v0");
    let _ = writeln!(w, "  v_lshlrev_b32_e32 v3, 2, v3");
    let _ = writeln!(w, "  s_waitcnt lgkmcnt(0)");
    let _ = writeln!(w, "  global_store_dword v3, v2, s[4:5]");
    let _ = writeln!(w, "  s_endpgm");
    let _ = writeln!(w, ".Lend:\n.size scc_relax, .Lend-scc_relax");
    let _ = writeln!(w, ".p2align 2\n.type scc_callee,@function\nscc_callee:");
    let _ = writeln!(w, "  s_cselect_b32 s9, 2, 0");
    let _ = writeln!(w, "  s_setpc_b64 s[30:31]");
    let _ = writeln!(w, ".Lcend:\n.size scc_callee, .Lcend-scc_callee");
    let _ = writeln!(w, ".rodata\n.p2align 6\n.amdhsa_kernel scc_relax");
    let _ = writeln!(w, "  .amdhsa_next_free_vgpr 4");
    if target == "gfx90a" || target == "gfx942" {
        let _ = writeln!(w, "  .amdhsa_accum_offset 4");
    }
    let _ = writeln!(w, "  .amdhsa_next_free_sgpr 32");
    let _ = writeln!(
        w,
        "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_kernarg_size 8"
    );
    let _ = writeln!(w, "  .amdhsa_system_sgpr_workgroup_id_x 1");
    if target == "gfx90a" {
        let _ = writeln!(w, "  .amdhsa_reserve_flat_scratch 0");
    }
    let _ = writeln!(w, ".end_amdhsa_kernel");
    let _ = writeln!(
        w,
        ".amdgpu_metadata\n---\namdhsa.version: [ 1, 2 ]\namdhsa.kernels:\n  - .name: scc_relax\n    \
         .symbol: scc_relax.kd\n    .kernarg_segment_size: 8\n    .kernarg_segment_align: 8\n    \
         .group_segment_fixed_size: 0\n    .private_segment_fixed_size: 0\n    \
         .wavefront_size: 64\n    .sgpr_count: 36\n    .vgpr_count: 4\n    \
         .max_flat_workgroup_size: 64\n    .args:\n      - {{ .name: out, .size: 8, .offset: 0, \
         .value_kind: global_buffer, .address_space: global }}\n...\n.end_amdgpu_metadata"
    );
    a
}

/// SCC live across a relaxed branch, a long call and an `s_getpc_b64`
/// fix (issue 20's mutation (b): each of the three restores replaced by
/// `s_nop 0` must fail here): with a counter before every VALU
/// instruction, in both register modes and on both processors, the
/// outputs equal the uninstrumented run's byte for byte and a CPU
/// reference.
#[test]
fn scc_survives_relaxation_long_calls_and_getpc_fixes() {
    const WGS: u32 = 4;
    let reference: Vec<u8> = (0..WGS * 64)
        .flat_map(|g| {
            let wg = g / 64;
            let v = if wg < 2 {
                (wg << 4) | 15
            } else {
                (wg + FILLER) << 4
            };
            v.to_le_bytes()
        })
        .collect();
    let args = vec![Arg::Buffer {
        name: "out".into(),
        size: u64::from(WGS) * 256,
        fill: Fill::Bytes(vec![0xee; WGS as usize * 256]),
        output: None,
    }];
    let shape = Shape::linear(WGS * 64, 64);
    let opts = Options {
        threads: 1,
        ..Options::default()
    };
    for target in ["gfx90a", "gfx942"] {
        let path = lathe_testkit::assemble_shared(target, "dbi-scc-relax", &scc_asm(target));
        let co = std::fs::read(path).expect("code object");
        let agent: lathe_bundle::TargetId = target.parse().expect("target");
        let base = Session::load(agent, &[&co]).expect("load");
        let (_r, bufs) = base.launch("scc_relax", shape, &args, &opts).expect("run");
        let want = base.download(bufs[0].addr, bufs[0].size).expect("read");
        assert_eq!(
            want, reference,
            "{target}: the kernel disagrees with the CPU"
        );
        let obj = CodeObject::parse(&co).expect("parse");
        let p = Program::lift(&obj).expect("lift");
        let f = &p.functions[p.function("scc_relax").expect("kernel")];
        assert_eq!(f.calls.len(), 1, "{target}: the call");
        assert!(
            f.pcrel.iter().any(|pr| pr.target.is_none()),
            "{target}: no bare s_getpc_b64"
        );
        let live = Liveness::compute(&p);
        let req = Request {
            select: Selector {
                class: Some(InstClass::Valu),
                ..Default::default()
            },
            at: Where::Before,
            probe: Arc::new(CounterProbe { lanes: true }),
        };
        for lanes in [false, true] {
            let what = format!("{target} lanes {lanes}");
            let out = instrument_lifted_with(
                &obj,
                &p,
                &live,
                std::slice::from_ref(&req),
                &RwOptions::lane_mode(lanes),
            )
            .expect("instrument");
            lathe_dbi::verify::check(&p, &out.code_object, &out.addr_map)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            // The s_cbranch_scc1 and the s_call_b64.
            assert!(
                out.relaxed_branches >= 2,
                "{what}: {} relaxed",
                out.relaxed_branches
            );
            assert!(
                out.sites.iter().filter(|s| s.scc_live).count() >= FILLER as usize,
                "{what}: sites with SCC live"
            );
            let s = Session::load(agent, &[&out.code_object]).expect("load instrumented");
            let var = s
                .exe
                .symbol(lathe_dbi::elfout::DATA_SYMBOL)
                .expect("symbol")
                .address;
            let buf = s
                .upload(&vec![0u8; out.data_size as usize])
                .expect("buffer");
            s.mem.view().store_u64(var, buf).expect("pointer");
            let (_r, bufs) = s
                .launch("scc_relax", shape, &args, &opts)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let got = s.download(bufs[0].addr, bufs[0].size).expect("read");
            assert!(
                got == want,
                "{what}: outputs differ from the uninstrumented run"
            );
        }
    }
}

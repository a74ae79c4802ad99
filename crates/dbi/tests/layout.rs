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

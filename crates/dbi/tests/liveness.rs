//! EXEC-aware liveness, proven by execution: in `dbi_divergent_write`
//! (clang-22, -O3) a VGPR is written inside a branch taken by odd lanes
//! only. Naive per-register liveness calls that register dead just before
//! the write; Lathe's liveness keeps it live (the even lanes' value lives
//! on). Clobbering the register there (all 64 lanes) changes the kernel's
//! output; clobbering a register Lathe's liveness calls dead does not.

use std::sync::Arc;

use lathe_codeobj::CodeObject;
use lathe_dbi::rewrite::{self, Probe, ProbeCx, Request, Selector, Where};
use lathe_dbi::{Liveness, Program};
use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::Options;
use lathe_emu::session::{Session, Shape};
use lathe_isa::{BuildError, Instruction, Opcode, Operand, RegRange};
use lathe_testkit::{Build, Output};

/// Writes 0xdeadbeef into `v{reg}` in every lane (EXEC saved, set to all
/// ones, restored).
#[derive(Debug)]
struct Clobber {
    reg: u16,
}

impl Probe for Clobber {
    fn slot_bytes(&self) -> u32 {
        0
    }
    fn emit(&self, cx: &ProbeCx<'_>, out: &mut Vec<Instruction>) -> Result<(), BuildError> {
        let t = cx.target;
        let r = cx.regs;
        out.push(rewrite::build(
            t,
            Opcode::S_MOV_B64,
            &[
                Operand::Reg(RegRange::sgpr(r.save, 2)),
                Operand::Reg(RegRange::EXEC),
            ],
        )?);
        out.push(rewrite::build(
            t,
            Opcode::S_MOV_B64,
            &[Operand::Reg(RegRange::EXEC), Operand::Int(-1)],
        )?);
        out.push(rewrite::build(
            t,
            Opcode::V_MOV_B32_E32,
            &[
                Operand::Reg(RegRange::vgpr(self.reg, 1)),
                Operand::Literal(0xdead_beef),
            ],
        )?);
        rewrite::exec_restore(t, r, out)
    }
}

fn run(co: &[u8]) -> Vec<u8> {
    let s = Session::load("gfx90a".parse().expect("target"), &[co]).expect("load");
    let n = 256u32;
    let input: Vec<u8> = (0..n).flat_map(|i| (i * 1000 + 1).to_le_bytes()).collect();
    let other: Vec<u8> = (0..n).flat_map(|i| (i ^ 0x55).to_le_bytes()).collect();
    let args = vec![
        Arg::Buffer {
            name: "out".into(),
            size: 4 * u64::from(n),
            fill: Fill::Bytes(vec![0; 4 * n as usize]),
            output: None,
        },
        Arg::Buffer {
            name: "in".into(),
            size: 4 * u64::from(n),
            fill: Fill::Bytes(input),
            output: None,
        },
        Arg::Buffer {
            name: "other".into(),
            size: 4 * u64::from(n),
            fill: Fill::Bytes(other),
            output: None,
        },
    ];
    let (_r, bufs) = s
        .launch(
            "_Z19dbi_divergent_writePjPKjS1_",
            Shape::linear(n, 64),
            &args,
            &Options::default(),
        )
        .expect("launch");
    s.download(bufs[0].addr, bufs[0].size).expect("read")
}

fn clobbered(co: &[u8], addr: u64, reg: u16) -> Vec<u8> {
    let req = Request {
        select: Selector {
            range: Some((addr, addr + 1)),
            ..Default::default()
        },
        at: Where::Before,
        probe: Arc::new(Clobber { reg }),
    };
    let out = rewrite::instrument(co, &[req]).expect("instrument");
    assert_eq!(out.sites.len(), 1);
    run(&out.code_object)
}

#[test]
fn naive_liveness_would_pick_a_live_register() {
    let path = Build::new("dbi_divergence.hip", &["gfx90a"], Output::CodeObject).build();
    let co = std::fs::read(path).expect("code object");
    let obj = CodeObject::parse(&co).expect("parse");
    let p = Program::lift(&obj).expect("lift");
    let aware = Liveness::compute(&p);
    let naive = Liveness::compute_with(&p, true);
    let fi = p
        .function("_Z19dbi_divergent_writePjPKjS1_")
        .expect("kernel");
    let f = &p.functions[fi];
    let max_v = (0..f.insts.len())
        .filter_map(|i| aware.functions[fi].before[i].max_vgpr())
        .max()
        .expect("vgprs");
    // A site and register: dead for naive liveness, live for Lathe's.
    let mut found = None;
    for i in 0..f.insts.len() {
        let (a, n) = (aware.functions[fi].before[i], naive.functions[fi].before[i]);
        if let Some(r) = (0..=max_v).find(|&r| a.has_vgpr(r) && !n.has_vgpr(r)) {
            // And a register Lathe calls dead there.
            let dead = (0..=max_v).find(|&d| !a.has_vgpr(d));
            // The last such site (past the branch's loads and waits).
            found = Some((i, r, dead));
        }
    }
    let (i, live_reg, dead_reg) = found.expect("a site where naive liveness differs");
    let addr = f.insts[i].addr;
    eprintln!(
        "at {addr:#x} `{}`: v{live_reg} is dead for naive liveness, live under divergence",
        f.insts[i].inst
    );
    let base = run(&co);
    assert_ne!(
        clobbered(&co, addr, live_reg),
        base,
        "clobbering v{live_reg} (naively dead) must change the output"
    );
    let dead_reg = dead_reg.expect("a register dead at the site");
    assert_eq!(
        clobbered(&co, addr, dead_reg),
        base,
        "clobbering v{dead_reg} (dead for Lathe) must not change the output"
    );
    // The reference: odd lanes other*3+7, even lanes in.
    let want: Vec<u8> = (0..256u32)
        .flat_map(|t| {
            if t & 1 == 1 {
                ((t ^ 0x55).wrapping_mul(3) + 7).to_le_bytes()
            } else {
                (t * 1000 + 1).to_le_bytes()
            }
        })
        .collect();
    assert_eq!(base, want);
}

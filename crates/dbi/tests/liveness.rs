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

/// Assembles BODY as the instructions of a gfx90a kernel `k` (16 bytes
/// of kernel arguments in s[0:1], 8 VGPRs, 16 SGPRs) and returns it lifted
/// with its EXEC-aware liveness.
fn kernel_k(name: &str, body: &str) -> (Program, Liveness) {
    let asm = format!(
        "{}{body}{}",
        r#".amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.text
.globl k
.p2align 8
.type k,@function
k:
"#,
        r#".Lend:
.size k, .Lend-k
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_next_free_vgpr 8
  .amdhsa_accum_offset 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 16
.end_amdhsa_kernel
"#
    );
    let path = lathe_testkit::assemble_shared("gfx90a", name, &asm);
    let co = std::fs::read(path).expect("code object");
    let obj = CodeObject::parse(&co).expect("parse");
    let p = Program::lift(&obj).expect("lift");
    let live = Liveness::compute(&p);
    (p, live)
}

/// Precision of the EXEC analysis, read statically: a vector write after
/// `s_mov_b64 exec, -1` covers every lane, so the register is dead before
/// it; after `s_mov_b64 exec, s[8:9]` (a mask the analysis cannot know)
/// the write may be partial, so the value from before lives on. Kills the
/// mutants of `is_exec_all_ones` listed in docs/mutants.md: answering
/// "never full" makes the first register live, and taking any
/// `s_mov_b64` into EXEC as full makes the second dead.
#[test]
fn a_write_under_a_full_exec_ends_liveness_and_under_an_unknown_mask_does_not() {
    let asm = r#"  s_load_dwordx2 s[4:5], s[0:1], 0
  s_load_dwordx2 s[8:9], s[0:1], 8
  v_mov_b32_e32 v5, v0
  v_mov_b32_e32 v2, 0
  v_cmp_gt_u32_e32 vcc, 5, v0
  s_and_saveexec_b64 s[2:3], vcc
  v_mov_b32_e32 v6, 1
  s_mov_b64 exec, -1
  v_mov_b32_e32 v5, 7
  s_waitcnt lgkmcnt(0)
  global_store_dword v2, v5, s[4:5]
  s_mov_b64 exec, s[8:9]
  v_mov_b32_e32 v5, 9
  s_mov_b64 exec, -1
  global_store_dword v2, v5, s[4:5] offset:4
  s_endpgm
"#;
    let (p, live) = kernel_k("exec-precision", asm);
    let fi = p.function("k").expect("kernel");
    let f = &p.functions[fi];
    // The two writes of v5 after a change of EXEC.
    let writes: Vec<usize> = (0..f.insts.len())
        .filter(|&i| {
            f.insts[i].inst.opcode() == Opcode::V_MOV_B32_E32
                && i > 0
                && f.insts[i - 1].inst.opcode() == Opcode::S_MOV_B64
                && f.insts[i].inst.to_string().contains("v5,")
        })
        .collect();
    assert_eq!(writes.len(), 2, "two writes of v5 after s_mov_b64 exec");
    let (full, unknown) = (writes[0], writes[1]);
    assert!(
        !live.functions[fi].before[full].has_vgpr(5),
        "`{}` after `{}`: every lane is written, so v5 is dead before it",
        f.insts[full].inst,
        f.insts[full - 1].inst
    );
    assert!(
        live.functions[fi].before[unknown].has_vgpr(5),
        "`{}` after `{}`: lanes outside the mask keep v5 (stored later), so it is live before it",
        f.insts[unknown].inst,
        f.insts[unknown - 1].inst
    );
}

/// A write of one half of EXEC alone (`s_mov_b32 exec_lo/exec_hi, …`)
/// also makes the mask unknown: `cargo mutants` showed that `writes_exec` looking at
/// one half only, or needing both, went unnoticed while every test wrote
/// EXEC as a pair (docs/mutants.md).
#[test]
fn a_write_of_one_half_of_exec_makes_the_mask_unknown() {
    for half in ["exec_lo, s8", "exec_hi, s9"] {
        one_half_of_exec(half);
    }
}

fn one_half_of_exec(half: &str) {
    let asm = r#"  s_load_dwordx2 s[4:5], s[0:1], 0
  s_load_dwordx2 s[8:9], s[0:1], 8
  v_mov_b32_e32 v5, v0
  v_mov_b32_e32 v2, 0
  s_mov_b64 exec, -1
  s_waitcnt lgkmcnt(0)
  s_mov_b32 HALF
  v_mov_b32_e32 v5, 9
  s_mov_b64 exec, -1
  global_store_dword v2, v5, s[4:5]
  s_endpgm
"#
    .replace("HALF", half);
    let name = format!("exec-half-precision-{}", &half[..7]);
    let (p, live) = kernel_k(&name, &asm);
    let fi = p.function("k").expect("kernel");
    let f = &p.functions[fi];
    let w = (1..f.insts.len())
        .find(|&i| {
            f.insts[i].inst.opcode() == Opcode::V_MOV_B32_E32
                && f.insts[i - 1].inst.opcode() == Opcode::S_MOV_B32
        })
        .expect("the write of v5 after s_mov_b32 exec");
    assert!(
        live.functions[fi].before[w].has_vgpr(5),
        "`{}` after `{}`: lanes outside the new mask keep v5 (stored later), so it is live before it",
        f.insts[w].inst,
        f.insts[w - 1].inst
    );
}

/// A dual-issue word reads VCC when either half does: a GFX11 VOPD whose Y
/// half is `v_dual_cndmask_b32` reads `vcc_lo` (its lane mask), although the
/// X half (`v_dual_mul_f32`) reads no VCC; one whose halves read none does
/// not. Encodings from llvm-mc 22 (`-mcpu=gfx1100`).
#[test]
fn a_vopd_y_half_cndmask_reads_vcc_lo() {
    use lathe_isa::Target;
    let vcc_lo = RegRange::sgpr(106, 1);
    let decode = |bytes: &[u8]| {
        let inst = lathe_isa::decode(Target::Gfx1100, bytes);
        assert!(!inst.is_invalid(), "{bytes:x?}");
        inst
    };
    // v_dual_mul_f32 v0, v1, v2 :: v_dual_cndmask_b32 v3, v4, v5
    let y_cnd = decode(&[0x01, 0x05, 0xd2, 0xc8, 0x04, 0x0b, 0x02, 0x00]);
    assert!(
        lathe_dbi::live::effects(&y_cnd).uses.contains(vcc_lo),
        "the Y half's lane mask is not read"
    );
    // v_dual_cndmask_b32 v0, v1, v2 :: v_dual_mul_f32 v3, v4, v5
    let x_cnd = decode(&[0x01, 0x05, 0x46, 0xca, 0x04, 0x0b, 0x02, 0x00]);
    assert!(lathe_dbi::live::effects(&x_cnd).uses.contains(vcc_lo));
    // v_dual_mul_f32 v0, v1, v2 :: v_dual_add_f32 v3, v4, v5
    let none = decode(&[0x01, 0x05, 0xc8, 0xc8, 0x04, 0x0b, 0x02, 0x00]);
    assert!(!lathe_dbi::live::effects(&none).uses.contains(RegRange::VCC));
}

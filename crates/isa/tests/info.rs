//! Instruction queries and the builder, on instructions assembled by
//! llvm-mc (the oracle for the bytes and the text): control flow, implicit
//! and explicit register reads/writes, memory class, waitcnt counters; and
//! instructions built from typed parts must equal what llvm-mc assembles.

#![allow(clippy::unwrap_used)]

use lathe_isa::{
    decode, imm, InlineFloat, Instruction, MemoryClass, Modifiers, Opcode, Operand, RegRange,
    Target,
};
use std::process::Command;

/// Assembles each line with llvm-mc and returns (text as llvm-mc prints it,
/// bytes).
fn assemble(target: Target, lines: &[&str]) -> Vec<(String, Vec<u8>)> {
    let dir = lathe_testkit::cache_dir().join("isa-info");
    std::fs::create_dir_all(&dir).unwrap();
    // Tests run on parallel threads of one process: name the file uniquely.
    static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let src = dir.join(format!("{}-{n}-{}.s", std::process::id(), target.name()));
    std::fs::write(&src, lines.join("\n") + "\n").unwrap();
    let out = lathe_testkit::run_text(
        Command::new(lathe_testkit::llvm_tool("llvm-mc"))
            .args(["-triple=amdgcn-amd-amdhsa", "-show-encoding"])
            .arg(format!("-mcpu={}", target.name()))
            .arg(&src),
    );
    let mut v = Vec::new();
    for l in out.lines() {
        let Some((text, enc)) = l.split_once("; encoding: [") else {
            continue;
        };
        let bytes = enc
            .trim_end_matches(']')
            .split(',')
            .map(|b| u8::from_str_radix(b.trim_start_matches("0x"), 16).unwrap())
            .collect();
        v.push((text.trim().to_string(), bytes));
    }
    assert_eq!(v.len(), lines.len(), "llvm-mc output:\n{out}");
    v
}

fn one(target: Target, line: &str) -> Instruction {
    let (text, bytes) = assemble(target, &[line]).pop().unwrap();
    let inst = decode(target, &bytes);
    assert_eq!(
        inst.to_string(),
        text,
        "decode of llvm-mc's bytes for {line}"
    );
    assert_eq!(inst.encode(), bytes);
    inst
}

fn reads(i: &Instruction, r: RegRange) -> bool {
    i.regs_read().contains(r)
}
fn writes(i: &Instruction, r: RegRange) -> bool {
    i.regs_written().contains(r)
}

const SCC: RegRange = lathe_isa::info::SCC;

#[test]
fn control_flow() {
    for t in Target::ALL {
        let b = one(t, "s_branch 5");
        assert_eq!(b.branch_target(0x100), Some(0x100 + 4 + 5 * 4));
        assert!(b.is_branch() && !b.is_cond_branch() && b.is_terminator());
        let back = one(t, "s_cbranch_scc1 65533"); // -3
        assert_eq!(back.branch_target(0x100), Some(0x100 + 4 - 12));
        assert!(back.is_cond_branch() && reads(&back, SCC));
        let v = one(t, "s_cbranch_vccz 1");
        assert!(reads(&v, RegRange::VCC));
        let e = one(t, "s_cbranch_execnz 1");
        assert!(reads(&e, RegRange::EXEC));
        let ret = one(t, "s_setpc_b64 s[30:31]");
        assert!(ret.is_return() && ret.is_terminator() && ret.is_indirect_branch());
        assert!(reads(&ret, RegRange::sgpr(30, 2)));
        let call = one(t, "s_swappc_b64 s[30:31], s[4:5]");
        assert!(call.is_call() && writes(&call, RegRange::sgpr(30, 2)));
        assert!(reads(&call, RegRange::sgpr(4, 2)));
        let c = one(t, "s_call_b64 s[30:31], 12");
        assert!(c.is_call());
        assert_eq!(c.branch_target(0x40), Some(0x40 + 4 + 48));
        let end = one(t, "s_endpgm");
        assert!(end.is_terminator() && !end.is_branch());
        assert!(one(t, "s_trap 2").is_terminator());
        assert!(!one(t, "s_nop 3").is_terminator());
        // Relocating a branch.
        let moved = b.with_branch_target(0x200, 0x100).unwrap();
        assert_eq!(moved.branch_target(0x200), Some(0x100));
        assert_eq!(moved.to_string(), "s_branch 65471");
    }
}

#[test]
fn implicit_registers() {
    let t = Target::Gfx90a;
    let add = one(t, "v_add_co_u32_e32 v0, vcc, v1, v2");
    assert!(writes(&add, RegRange::VCC) && reads(&add, RegRange::EXEC));
    assert!(reads(&add, RegRange::vgpr(1, 1)) && writes(&add, RegRange::vgpr(0, 1)));
    let addc = one(t, "v_addc_co_u32_e32 v0, vcc, v1, v2, vcc");
    assert!(reads(&addc, RegRange::VCC) && writes(&addc, RegRange::VCC));
    let cnd = one(t, "v_cndmask_b32_e32 v0, v1, v2, vcc");
    assert!(reads(&cnd, RegRange::VCC) && !writes(&cnd, RegRange::VCC));
    let cmp = one(t, "v_cmp_eq_u32_e32 vcc, 0, v0");
    assert!(writes(&cmp, RegRange::VCC) && !writes(&cmp, RegRange::EXEC));
    let cmpx = one(t, "v_cmpx_eq_u32_e32 vcc, 0, v0");
    assert!(writes(&cmpx, RegRange::EXEC));
    let cmp64 = one(t, "v_cmp_gt_u32_e64 s[4:5], s8, v2");
    assert!(writes(&cmp64, RegRange::sgpr(4, 2)) && !writes(&cmp64, RegRange::VCC));
    let sv = one(t, "s_and_saveexec_b64 s[4:5], vcc");
    assert!(reads(&sv, RegRange::EXEC) && writes(&sv, RegRange::EXEC));
    assert!(writes(&sv, SCC) && reads(&sv, RegRange::VCC) && writes(&sv, RegRange::sgpr(4, 2)));
    let sadd = one(t, "s_add_u32 s0, s1, s2");
    assert!(writes(&sadd, SCC) && !reads(&sadd, SCC));
    let saddc = one(t, "s_addc_u32 s0, s1, s2");
    assert!(writes(&saddc, SCC) && reads(&saddc, SCC));
    let csel = one(t, "s_cselect_b32 s0, s1, s2");
    assert!(reads(&csel, SCC) && !writes(&csel, SCC));
    let mov = one(t, "s_mov_b32 s0, s1");
    assert!(!writes(&mov, SCC));
    let rl = one(t, "v_readlane_b32 s0, v1, 3");
    assert!(!reads(&rl, RegRange::EXEC) && writes(&rl, RegRange::sgpr(0, 1)));
    let rfl = one(t, "v_readfirstlane_b32 s0, v1");
    assert!(reads(&rfl, RegRange::EXEC));
    let fmas = one(t, "v_div_fmas_f32 v0, v1, v2, v3");
    assert!(reads(&fmas, RegRange::VCC));
    let mac = one(t, "v_fmac_f32_e32 v0, v1, v2");
    assert!(reads(&mac, RegRange::vgpr(0, 1)) && writes(&mac, RegRange::vgpr(0, 1)));
    let sm = one(t, "s_sendmsg sendmsg(MSG_INTERRUPT)");
    assert!(reads(&sm, RegRange::M0) && sm.waitcnt().lgkm);
    let mfma = one(t, "v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]");
    assert!(writes(&mfma, RegRange::agpr(0, 16)) && reads(&mfma, RegRange::agpr(0, 16)));
    assert!(reads(&mfma, RegRange::vgpr(2, 2)));
    let acc = one(t, "v_accvgpr_write_b32 a1, v2");
    assert!(writes(&acc, RegRange::agpr(1, 1)) && reads(&acc, RegRange::vgpr(2, 1)));
}

/// GFX12.5 VOPD3 (D57): both destinations and every source of both halves
/// reach the register queries lathe-dbi lifts from (`for_each_reg`). The
/// first three words are clang-22's for gfx1250 (the corpus, -O3), printed
/// as llvm-objdump prints them; the fourth, an accumulating `fmac`, is
/// llvm-mc's.
#[test]
fn vopd3_defs_and_uses() {
    let t = Target::Gfx1250;
    let v = |n: u16| RegRange::vgpr(n, 1);
    let vcc_lo = RegRange::sgpr(106, 1);
    type Case = ([u32; 3], &'static str, Vec<RegRange>, Vec<RegRange>);
    let cases: Vec<Case> = vec![
        (
            [0xCF4D_310D, 0x0B0C_130E, 0x100B_0C0F],
            "v_dual_fma_f32 v15, -v13, v12, v11 :: v_dual_fma_f32 v16, -v14, v12, v11",
            vec![v(15), v(16)],
            vec![v(13), v(12), v(11), v(14)],
        ),
        (
            [0xCF84_911A, 0x0018_011D, 0x0B6A_130E],
            "v_dual_add_f64 v[14:15], v[26:27], v[24:25] :: v_dual_cndmask_b32 v11, v29, v19, vcc_lo",
            vec![RegRange::vgpr(14, 2), v(11)],
            vec![RegRange::vgpr(26, 2), RegRange::vgpr(24, 2), v(29), v(19), vcc_lo],
        ),
        (
            [0xCF25_2104, 0x6A06_0103, 0x0314_0804],
            "v_dual_cndmask_b32 v4, v4, v6, vcc_lo :: v_dual_bitop2_b32 v3, v3, v8 bitop3:0x14",
            vec![v(4), v(3)],
            vec![v(4), v(6), vcc_lo, v(3), v(8)],
        ),
    ];
    let fmac = one(t, "v_dual_fmac_f32 v0, -v1, v2 :: v_dual_mov_b32 v3, v4");
    let w = fmac.words();
    let mut all = cases;
    all.push((
        [w[0], w[1], w[2]],
        "v_dual_fmac_f32 v0, -v1, v2 :: v_dual_mov_b32 v3, v4",
        vec![v(0), v(3)],
        vec![v(1), v(2), v(0), v(4)],
    ));
    for (words, text, defs, uses) in all {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let i = decode(t, &bytes);
        assert_eq!(i.to_string(), text);
        assert_eq!(i.len(), 12, "{text}");
        let (mut d, mut u) = (Vec::new(), Vec::new());
        i.for_each_reg(|a| {
            if a.implicit {
                assert!(!a.write, "{text}: implicit write of {:?}", a.reg);
                return;
            }
            if a.write {
                d.push(a.reg);
            }
            if a.read {
                u.push(a.reg);
            }
        });
        // (Both halves may read one register: compared as sets.)
        let sorted = |mut x: Vec<RegRange>| {
            x.sort_by_key(|r| (r.file as u8, r.first, r.count));
            x.dedup();
            x
        };
        assert_eq!(sorted(d), sorted(defs), "{text}: registers written");
        assert_eq!(sorted(u), sorted(uses), "{text}: registers read");
        assert!(reads(&i, RegRange::EXEC), "{text}: reads exec");
    }
}

#[test]
fn memory_and_counters() {
    let t = Target::Gfx90a;
    let g = one(t, "global_load_dword v1, v[2:3], off offset:16");
    assert_eq!(g.memory_class(), MemoryClass::Global);
    assert!(g.is_load() && g.waitcnt().vm && !g.waitcnt().lgkm);
    assert!(writes(&g, RegRange::vgpr(1, 1)) && reads(&g, RegRange::vgpr(2, 2)));
    assert_eq!(g.modifiers().offset, 16);
    let gs = one(t, "global_store_dword v2, v4, s[0:1]");
    assert!(gs.is_store() && reads(&gs, RegRange::vgpr(4, 1)) && reads(&gs, RegRange::sgpr(0, 2)));
    let ga = one(t, "global_atomic_add v0, v[2:3], v3, off glc");
    assert!(ga.is_atomic() && writes(&ga, RegRange::vgpr(0, 1)));
    let ga_noret = one(t, "global_atomic_add v[2:3], v3, off");
    assert!(ga_noret.regs_written().is_empty());
    let f = one(t, "flat_load_dword v1, v[2:3]");
    assert_eq!(f.memory_class(), MemoryClass::Flat);
    assert!(f.waitcnt().vm && f.waitcnt().lgkm);
    let s = one(t, "s_load_dwordx2 s[0:1], s[4:5], 0x10");
    assert_eq!(s.memory_class(), MemoryClass::Scalar);
    assert!(s.waitcnt().lgkm && !s.waitcnt().vm && writes(&s, RegRange::sgpr(0, 2)));
    assert!(reads(&s, RegRange::sgpr(4, 2)));
    let d = one(t, "ds_read_b32 v1, v2 offset:8");
    assert_eq!(d.memory_class(), MemoryClass::Lds);
    assert!(d.waitcnt().lgkm && d.is_load());
    let b = one(t, "buffer_load_dword v1, v2, s[4:7], 0 offen offset:4");
    assert_eq!(b.memory_class(), MemoryClass::Buffer);
    assert!(b.waitcnt().vm && writes(&b, RegRange::vgpr(1, 1)) && reads(&b, RegRange::sgpr(4, 4)));
    let sc = one(t, "scratch_load_dword v1, v2, off");
    assert_eq!(sc.memory_class(), MemoryClass::Scratch);
    let w = one(t, "s_waitcnt vmcnt(0) lgkmcnt(0)");
    assert_eq!(w.waitcnt(), Default::default());
    assert_eq!(w.memory_class(), MemoryClass::None);
    let swz = one(t, "ds_swizzle_b32 v1, v2 offset:swizzle(SWAP,16)");
    assert_eq!(swz.memory_class(), MemoryClass::None);
    // gfx942 cache-policy spelling.
    let t2 = Target::Gfx942;
    let g2 = one(t2, "global_load_dword v1, v[2:3], off sc0 sc1 nt");
    let m = g2.modifiers();
    assert!(m.glc && m.scc && m.slc);
}

#[test]
fn builder_matches_llvm_mc() {
    // GFX9/GFX10 mnemonics (GFX11 renamed them: `global_load_b32`); the
    // GFX11 builder is checked by tests/roundtrip.rs on every corpus and
    // wheel instruction.
    for t in Target::ALL.into_iter().filter(|t| t.generation() <= 10) {
        let mut cases: Vec<(Instruction, &str)> = vec![
            (
                Instruction::build(t, Opcode::S_ADD_U32)
                    .operands(&[
                        RegRange::sgpr(0, 1).into(),
                        RegRange::sgpr(1, 1).into(),
                        Operand::Int(4),
                    ])
                    .unwrap()
                    .finish()
                    .unwrap(),
                "s_add_u32 s0, s1, 4",
            ),
            (
                Instruction::build(t, Opcode::S_MOV_B32)
                    .operands(&[RegRange::sgpr(5, 1).into(), Operand::Literal(0x1234_5678)])
                    .unwrap()
                    .finish()
                    .unwrap(),
                "s_mov_b32 s5, 0x12345678",
            ),
            (
                Instruction::build(t, Opcode::V_ADD_F32_E32)
                    .operands(&[
                        RegRange::vgpr(0, 1).into(),
                        Operand::Float(InlineFloat::One),
                        RegRange::vgpr(1, 1).into(),
                    ])
                    .unwrap()
                    .finish()
                    .unwrap(),
                "v_add_f32_e32 v0, 1.0, v1",
            ),
            (
                Instruction::build(t, Opcode::V_FMA_F32)
                    .modifiers(&{
                        let mut m = Modifiers::default();
                        m.clamp = true;
                        m.omod = 1;
                        m.neg = 0b001;
                        m.abs = 0b010;
                        m
                    })
                    .operands(&[
                        RegRange::vgpr(1, 1).into(),
                        RegRange::vgpr(2, 1).into(),
                        RegRange::vgpr(3, 1).into(),
                        RegRange::sgpr(4, 1).into(),
                    ])
                    .unwrap()
                    .finish()
                    .unwrap(),
                "v_fma_f32 v1, -v2, |v3|, s4 clamp mul:2",
            ),
            (
                Instruction::build(t, Opcode::GLOBAL_LOAD_DWORD)
                    .modifiers(&{
                        let mut m = Modifiers::default();
                        m.offset = -16;
                        m
                    })
                    .operands(&[
                        RegRange::vgpr(1, 1).into(),
                        RegRange::vgpr(2, 2).into(),
                        Operand::Off,
                    ])
                    .unwrap()
                    .finish()
                    .unwrap(),
                "global_load_dword v1, v[2:3], off offset:-16",
            ),
            (
                Instruction::build(t, Opcode::S_WAITCNT)
                    .operands(&[Operand::Imm(imm::waitcnt_encode(0, 7, 0) as i64)])
                    .unwrap()
                    .finish()
                    .unwrap(),
                "s_waitcnt vmcnt(0) lgkmcnt(0)",
            ),
            (
                Instruction::build(t, Opcode::V_MOV_B32_DPP)
                    .modifiers(&{
                        let mut m = Modifiers::default();
                        m.dpp_ctrl = 0x111;
                        m.row_mask = 0xF;
                        m.bank_mask = 0xF;
                        m.bound_ctrl = true;
                        m
                    })
                    .operands(&[RegRange::vgpr(0, 1).into(), RegRange::vgpr(1, 1).into()])
                    .unwrap()
                    .finish()
                    .unwrap(),
                "v_mov_b32_dpp v0, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1",
            ),
            (
                Instruction::build(t, Opcode::S_CBRANCH_EXECZ)
                    .operands(&[Operand::Branch(-3)])
                    .unwrap()
                    .finish()
                    .unwrap(),
                "s_cbranch_execz 65533",
            ),
        ];
        // AGPRs: gfx908 and later CDNA only.
        if t.has_agprs() {
            cases.push((
                Instruction::build(t, Opcode::V_ACCVGPR_WRITE_B32)
                    .operands(&[RegRange::agpr(3, 1).into(), RegRange::vgpr(7, 1).into()])
                    .unwrap()
                    .finish()
                    .unwrap(),
                "v_accvgpr_write_b32 a3, v7",
            ));
        }
        let texts: Vec<&str> = cases.iter().map(|c| c.1).collect();
        let asm = assemble(t, &texts);
        for ((built, line), (text, bytes)) in cases.iter().zip(asm) {
            assert_eq!(built.encode(), bytes, "{t}: building {line}");
            assert_eq!(built.to_string(), text, "{t}: printing {line}");
        }
    }
}

#[test]
fn builder_errors_are_specific() {
    let t = Target::Gfx90a;
    let e = Instruction::build(t, Opcode::S_ADD_U32)
        .operands(&[RegRange::sgpr(0, 1).into()])
        .unwrap_err();
    assert!(matches!(
        e,
        lathe_isa::BuildError::OperandCount {
            expected: 3,
            got: 1,
            ..
        }
    ));
    let e = Instruction::build(t, Opcode::V_ADD_F32_E32)
        .operands(&[
            RegRange::sgpr(0, 1).into(), // a VGPR destination is required
            Operand::Int(1),
            RegRange::vgpr(1, 1).into(),
        ])
        .unwrap_err();
    assert!(matches!(e, lathe_isa::BuildError::Operand { index: 0, .. }));
    // v_mov_b64 exists only on gfx940.
    let e = Instruction::build(t, Opcode::V_MOV_B64_E32)
        .operands(&[RegRange::vgpr(0, 2).into(), RegRange::vgpr(2, 2).into()])
        .unwrap_err();
    assert!(matches!(e, lathe_isa::BuildError::Unsupported { .. }));
}

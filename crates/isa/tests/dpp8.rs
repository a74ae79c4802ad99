//! DPP8 of the 32-bit encodings (VOP1/VOP2 from GFX10, VOPC from GFX11;
//! D66) against llvm-objdump 22: every `Vop1Dpp8`/`Vop2Dpp8`/`VopcDpp8`
//! opcode of one processor per table column, with random registers, lane
//! selects and `fi`, decoded by us and by LLVM. Validity, length and text
//! must agree; every valid word must re-encode to itself and rebuild
//! exactly from its typed parts (opcode, operands, modifiers).
//! `LATHE_DPP8_SWEEP=<n>` sets the variants per opcode (default 16).

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a test failure

mod common;

use common::{assemble, llvm, Rng};
use lathe_isa::{decode, Encoding, Field, Instruction, Opcode, RegRange, Target};

fn is_dpp8(e: Encoding) -> bool {
    matches!(
        e,
        Encoding::Vop1Dpp8 | Encoding::Vop2Dpp8 | Encoding::VopcDpp8
    )
}

fn set(w: &mut u32, lo: u32, width: u32, v: u32) {
    let m = (((1u64 << width) - 1) as u32) << lo;
    *w = (*w & !m) | ((v << lo) & m);
}

/// One random variant of `op`: random vdst/vsrc1 (where the encoding has
/// them), `fi` half the time, a random second dword (src0 and the lane
/// selects), and a trailing dword LLVM must not take.
fn variant(target: Target, op: Opcode, rng: &mut Rng) -> Vec<u32> {
    let info = op.info();
    let base = Instruction::build(target, op).raw_words();
    let has = |f| info.operands().iter().any(|o| o.field == f);
    let mut w0 = base[0];
    if has(Field::Vdst) && info.enc != Encoding::VopcDpp8 {
        set(&mut w0, 17, 8, rng.u32()); // vdst (bits 24:17)
    }
    if has(Field::Vsrc1) {
        set(&mut w0, 9, 8, rng.u32()); // vsrc1 (VOP1 keeps its opcode there)
    }
    if rng.below(2) == 0 {
        set(&mut w0, 0, 9, 0xEA); // fi:1
    }
    vec![w0, rng.u32(), 0xBF80_0000]
}

/// One processor per table column from GFX10 on, both wave sizes.
fn targets() -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    for t in Target::ALL.iter().copied().filter(|t| t.generation() >= 10) {
        for t in [Some(t), t.with_wave_size(64)].into_iter().flatten() {
            if !out.iter().any(|u| u.table_column() == t.table_column()) {
                out.push(t);
            }
        }
    }
    out
}

#[test]
fn dpp8_sweep_against_llvm() {
    let per_op: usize = std::env::var("LATHE_DPP8_SWEEP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16);
    let mut mismatches = Vec::new();
    let mut failures = Vec::new();
    let mut report = String::new();
    let (mut all_probes, mut all_valid) = (0usize, 0usize);
    for target in targets() {
        let ops: Vec<Opcode> = Opcode::all_for(target)
            .filter(|o| is_dpp8(o.info().enc))
            .collect();
        let mut rng = Rng(0xD9B8_2026_1128_0001 ^ target as u64);
        let mut probes = Vec::new();
        let mut owners = Vec::new();
        for &op in &ops {
            for _ in 0..per_op {
                probes.push(variant(target, op, &mut rng));
                owners.push(op);
            }
        }
        let theirs = llvm(target, &probes);
        let (mut valid, mut exact) = (0usize, 0usize);
        let mut seen_ok = std::collections::BTreeSet::new();
        for ((p, &op), t) in probes.iter().zip(&owners).zip(theirs) {
            let bytes: Vec<u8> = p.iter().flat_map(|w| w.to_le_bytes()).collect();
            let ours = decode(target, &bytes);
            let ours_t = (!ours.is_invalid()).then(|| {
                let mut s = ours.to_string();
                ours.write_warnings(&mut s).unwrap();
                (s, ours.len() / 4)
            });
            if t.as_ref().is_some_and(|(s, _)| s == "<crash>") {
                assert!(
                    ours_t.is_none(),
                    "{target} {p:08x?}: LLVM crashes, we print {ours_t:?}"
                );
                continue;
            }
            if ours_t != t {
                mismatches.push(format!(
                    "{target} {op:?} {:08x?}\n    ours: {ours_t:?}\n    llvm: {t:?}",
                    &p[..2]
                ));
                continue;
            }
            let Some((text, _)) = t else { continue };
            valid += 1;
            if ours.opcode() == op {
                seen_ok.insert(op);
            }
            assert_eq!(ours.words(), &p[..ours.len() / 4], "re-encoding {text}");
            let rebuilt = Instruction::build(target, ours.opcode())
                .modifiers(&ours.modifiers())
                .ops(&ours.operands())
                .and_then(|b| b.finish());
            // `v_nop` has no src0: LLVM ignores word 1's bits 7:0, and a
            // typed rebuild leaves them zero.
            let has_src0 = ours
                .info()
                .operands()
                .iter()
                .any(|o| o.field == Field::Src0);
            let ignored = if has_src0 { 0 } else { 0xFF };
            match rebuilt {
                Ok(r)
                    if r.to_string() == ours.to_string()
                        && r.words()[0] == ours.words()[0]
                        && (r.words()[1] ^ ours.words()[1]) & !ignored == 0 =>
                {
                    exact += 1
                }
                Ok(r) => mismatches.push(format!(
                    "{target} {p:08x?}: rebuilt {:08x?} prints {r}, not {text}",
                    r.words()
                )),
                Err(e) => mismatches.push(format!("{target} {p:08x?}: rebuild failed: {e}")),
            }
        }
        report += &format!(
            "{target}: {} opcodes, {} probes, {valid} valid, {exact} rebuilt (exactly but for ignored bits), \
             {} opcodes seen valid\n",
            ops.len(),
            probes.len(),
            seen_ok.len()
        );
        // Floors: the probes find about a hundred opcodes per GFX10 column
        // and two hundred from GFX11 on, and most variants decode.
        let floor = if target.generation() >= 11 { 200 } else { 90 };
        if ops.len() < floor || valid * 2 < probes.len() {
            failures.push(format!("{target}: too few opcodes or valid probes"));
        }
        if seen_ok.len() != ops.len() {
            let missing: Vec<_> = ops
                .iter()
                .filter(|o| !seen_ok.contains(o))
                .take(8)
                .collect();
            failures.push(format!("{target}: opcodes never valid: {missing:?}"));
        }
        all_probes += probes.len();
        all_valid += valid;
    }
    eprintln!("DPP8 sweep: {all_valid} of {all_probes} probes valid\n{report}");
    let show: usize = std::env::var("LATHE_DPP8_SHOW")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    for m in mismatches.iter().take(show) {
        eprintln!("{m}");
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches of {all_valid} valid probes",
        mismatches.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Instructions written by hand, assembled by llvm-mc: each decodes to the
/// text llvm-mc prints back, re-encodes to the same bytes, and reports the
/// registers it reads (src0 comes from the second dword) and EXEC.
#[test]
fn assembled_dpp8_against_llvm_mc() {
    // (line, first generation that has it, VGPR the op reads)
    let lines = [
        ("v_mov_b32_dpp v5, v2 dpp8:[7,6,5,4,3,2,1,0]", 10),
        ("v_mov_b32_dpp v5, v2 dpp8:[1,1,1,1,1,1,1,1] fi:1", 10),
        ("v_add_f32_dpp v5, v2, v3 dpp8:[7,6,5,4,3,2,1,0] fi:1", 10),
        ("v_add_nc_u32_dpp v255, v2, v200 dpp8:[0,1,2,3,4,5,6,7]", 10),
        (
            "v_cndmask_b32_dpp v1, v2, v3, vcc_lo dpp8:[7,6,5,4,3,2,1,0]",
            10,
        ),
        ("v_cmp_eq_f32 vcc_lo, v2, v3 dpp8:[7,6,5,4,3,2,1,0]", 11),
        ("v_cmpx_lt_u32 v2, v3 dpp8:[7,6,5,4,3,2,1,0] fi:1", 11),
        ("v_add_f16_dpp v5.l, v2.h, v3.l dpp8:[7,6,5,4,3,2,1,0]", 11),
    ];
    for target in [
        Target::Gfx1030,
        Target::Gfx1100,
        Target::Gfx1200,
        Target::Gfx1250,
    ] {
        for (line, since) in lines {
            // true16 names are GFX11's.
            if target.generation() < since || (line.contains(".l") && target.generation() != 11) {
                continue;
            }
            let bytes = assemble(target, line);
            let inst = decode(target, &bytes);
            assert_eq!(inst.to_string(), line, "{target}: {bytes:02x?}");
            assert!(is_dpp8(inst.encoding()), "{target} {line}");
            assert_eq!(inst.len(), 8, "{target} {line}");
            assert_eq!(inst.encode(), bytes, "{target} {line}");
            // src0 (v2) is read from word 1; the op reads EXEC.
            let read = inst.regs_read();
            assert!(
                read.contains(RegRange::vgpr(2, 1)),
                "{target} {line}: {read:?}"
            );
            assert!(
                read.iter().any(|r| r.first == 126),
                "{target} {line}: no exec in {read:?}"
            );
            let src0 = inst
                .operands()
                .iter()
                .find(|o| o.spec.field == Field::Src0)
                .map(|o| o.value);
            assert!(src0.is_some(), "{target} {line}: no src0");
        }
    }
}

/// GFX9 has no DPP8: its src0 values 0xE9/0xEA stay reserved.
#[test]
fn gfx9_has_no_dpp8() {
    let w = [0x7E0A_02E9u32, 0x0539_7701];
    let bytes: Vec<u8> = w.iter().flat_map(|w| w.to_le_bytes()).collect();
    assert!(!is_dpp8(decode(Target::Gfx90a, &bytes).encoding()));
}

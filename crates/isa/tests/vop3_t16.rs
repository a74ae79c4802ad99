//! GFX11's plain (non-DPP) VOP3 against llvm-objdump 22 (D79): LLVM reads
//! a 64-bit VOP3 word with the true16 table first and falls back to the
//! fake16 one when the true16 decoder rejects it; we model that with the
//! true16 rows' must-be-zero/one bits and the `Vop3F16` fallback rows.
//! Every `Vop3Gfx10`/`Vop3F16` opcode of each GFX11 table column (GFX11
//! and GFX11.5, both wave sizes) gets random variants (destination,
//! `abs`/`neg`, every `op_sel` bit, `clamp`, `omod`, sources from SGPRs,
//! special registers, constants and literals to VGPRs, non-zero unused
//! fields); validity, length and text must agree with LLVM, every valid
//! word must re-encode to itself and rebuild from its typed parts.
//! `LATHE_T16_SWEEP=<n>` sets the variants per opcode (default 16).

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a test failure

mod common;

use common::{assemble, llvm, Rng};
use lathe_isa::{decode, Encoding, Field, Instruction, Opcode, Target};

fn is_plain_vop3(e: Encoding) -> bool {
    matches!(e, Encoding::Vop3Gfx10 | Encoding::Vop3F16)
}

/// Source values for the 9-bit source fields: SGPRs, VCC, special
/// registers, inline constants, a literal (255), VGPRs.
const SRC9: &[u32] = &[
    0, 3, 102, 106, 107, 124, 125, 126, 128, 129, 193, 235, 240, 242, 248, 253, 255, 256, 257, 300,
    384, 511,
];

fn set(w: &mut u32, lo: u32, width: u32, v: u32) {
    let m = (((1u64 << width) - 1) as u32) << lo;
    *w = (*w & !m) | ((v << lo) & m);
}

/// One random variant of `op`: two words and a literal dword (LLVM takes
/// it when a source is 255).
fn variant(target: Target, op: Opcode, rng: &mut Rng) -> Vec<u32> {
    let info = op.info();
    let base = Instruction::build(target, op).raw_words();
    let zero = info.zero_bits(target);
    let mut w = [base[0], base[1]];
    // Word 0: destination, abs, op_sel, clamp (opcode and prefix kept).
    w[0] = (base[0] & 0xFFFF_0000) | (rng.u32() & 0xFFFF);
    set(&mut w[0], 0, 8, rng.pick(&[1, 8, 106, 124, 126, 200]));
    // Word 1: sources, omod, neg; a source stays a VGPR half the time.
    w[1] = rng.u32();
    for lo in [0, 9, 18] {
        let v = if rng.below(2) == 0 {
            rng.pick(SRC9)
        } else {
            256 + rng.below(256)
        };
        set(&mut w[1], lo, 9, v);
    }
    // Half the variants keep the must-be-zero bits (the true16 rows'
    // fallback bits among them) clear.
    if rng.below(2) != 0 {
        w[0] &= !zero[0];
        w[1] &= !zero[1];
    }
    vec![w[0], w[1], 0x3F80_0000]
}

/// Bits no operand or modifier of `inst` holds, which LLVM ignores and a
/// typed rebuild leaves zero: the fields of sources the opcode lacks, the
/// destination field of one without a destination, and the `op_sel` bits
/// of a fake16 reading that prints none.
fn ignored(inst: Instruction) -> [u32; 2] {
    let has = |f| inst.info().operands().iter().any(|o| o.field == f);
    let mut m = [0u32; 2];
    if !has(Field::Vdst) && !has(Field::Sdst) {
        m[0] |= 0xFF;
    }
    if !has(Field::Src0) {
        m[1] |= 0x1FF;
    }
    if !has(Field::Src1) {
        m[1] |= 0x1FF << 9;
    }
    if !has(Field::Src2) {
        m[1] |= 0x1FF << 18;
    }
    if inst.encoding() == Encoding::Vop3F16 && !inst.to_string().contains("op_sel") {
        m[0] |= 0xF << 11;
    }
    m
}

/// One GFX11 processor per table column (GFX11, GFX11.5; wave32, wave64).
fn targets() -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    for t in Target::ALL.iter().copied().filter(|t| t.generation() == 11) {
        for t in [Some(t), t.with_wave_size(64)].into_iter().flatten() {
            if !out.iter().any(|u| u.table_column() == t.table_column()) {
                out.push(t);
            }
        }
    }
    out
}

#[test]
fn gfx11_vop3_true16_fallback_sweep_against_llvm() {
    let per_op: usize = std::env::var("LATHE_T16_SWEEP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16);
    let mut mismatches = Vec::new();
    let mut kinds = std::collections::BTreeMap::<&str, usize>::new();
    let mut inexact = Vec::new();
    let mut failures = Vec::new();
    let mut report = String::new();
    let (mut all_probes, mut all_valid, mut all_fake16) = (0usize, 0usize, 0usize);
    let ts = targets();
    assert!(ts.len() >= 4, "GFX11 columns: {ts:?}");
    for target in ts {
        let ops: Vec<Opcode> = Opcode::all_for(target)
            .filter(|o| is_plain_vop3(o.info().enc))
            .collect();
        let nf16 = ops
            .iter()
            .filter(|o| o.info().enc == Encoding::Vop3F16)
            .count();
        let mut rng = Rng(0x7116_0D79_5EED_0001 ^ target as u64);
        let mut probes = Vec::new();
        let mut owners = Vec::new();
        for &op in &ops {
            for _ in 0..per_op {
                probes.push(variant(target, op, &mut rng));
                owners.push(op);
            }
        }
        let theirs = llvm(target, &probes);
        let (mut valid, mut exact, mut ignored_only, mut fake16) = (0usize, 0, 0, 0);
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
                let kind = match (&ours_t, &t) {
                    (Some(_), Some(_)) => "text",
                    (Some(_), None) => "we decode, LLVM rejects",
                    _ => "LLVM decodes, we reject",
                };
                *kinds.entry(kind).or_default() += 1;
                mismatches.push(format!(
                    "{target} {op:?} {:08x?}\n    ours: {ours_t:?}\n    llvm: {t:?}",
                    &p[..2]
                ));
                continue;
            }
            let Some((text, _)) = t else { continue };
            valid += 1;
            if ours.encoding() == Encoding::Vop3F16 {
                fake16 += 1;
            }
            if ours.opcode() == op {
                seen_ok.insert(op);
            }
            assert_eq!(ours.words(), &p[..ours.len() / 4], "re-encoding {text}");
            let rebuilt = Instruction::build(target, ours.opcode())
                .modifiers(&ours.modifiers())
                .ops(&ours.operands())
                .and_then(|b| b.finish());
            match rebuilt {
                Ok(r) if r.to_string() == ours.to_string() => {
                    if r.words() == ours.words() {
                        exact += 1;
                    } else if r
                        .words()
                        .iter()
                        .zip(ours.words())
                        .zip(ignored(ours))
                        .all(|((a, b), m)| (a ^ b) & !m == 0)
                    {
                        ignored_only += 1;
                    } else if inexact.len() < 10 {
                        inexact.push(format!(
                            "{target} {text}: {:08x?} -> {:08x?}",
                            ours.words(),
                            r.words()
                        ));
                    }
                }
                Ok(r) => mismatches.push(format!(
                    "{target} {p:08x?}: rebuilt {:08x?} prints {r}, not {text}",
                    r.words()
                )),
                Err(e) => mismatches.push(format!("{target} {p:08x?}: rebuild failed: {e}")),
            }
        }
        report += &format!(
            "{target} wave{}: {} opcodes ({nf16} fake16), {} probes, {valid} valid, {fake16} read as \
             fake16, {exact} rebuilt exactly, {} opcodes seen valid\n",
            target.wave_size(),
            ops.len(),
            probes.len(),
            seen_ok.len()
        );
        // The fallback rows exist and are used; most opcodes decode as
        // themselves in some variant.
        if nf16 < 100 || fake16 * 20 < valid {
            failures.push(format!(
                "{target}: {nf16} fake16 rows, {fake16} of {valid} valid words read as fake16"
            ));
        }
        if seen_ok.len() * 10 < ops.len() * 9 {
            let missing: Vec<_> = ops
                .iter()
                .filter(|o| !seen_ok.contains(o))
                .take(8)
                .collect();
            failures.push(format!("{target}: opcodes never valid: {missing:?}"));
        }
        if exact + ignored_only != valid {
            failures.push(format!(
                "{target}: {} typed rebuilds differ outside ignored bits",
                valid - exact - ignored_only
            ));
        }
        all_probes += probes.len();
        all_valid += valid;
        all_fake16 += fake16;
    }
    eprintln!(
        "GFX11 VOP3 true16/fake16 sweep: {all_valid} of {all_probes} probes valid, \
         {all_fake16} read as fake16; mismatches by kind {kinds:?}\n{report}"
    );
    let show: usize = std::env::var("LATHE_T16_SHOW")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    for m in mismatches.iter().take(show) {
        eprintln!("{m}");
    }
    for m in &inexact {
        eprintln!("inexact rebuild: {m}");
    }
    // A word both decoders read but print differently is what a wrong
    // true16/fake16 choice looks like: none may remain. The residual
    // (D79) is validity only: wave64 carry-outs of `s[102:103]`/
    // `s[104:105]` LLVM accepts with a misalignment warning (5 of 19,974
    // valid words measured); the bound is 0.1 % of the valid words.
    assert_eq!(
        kinds.get("text").copied().unwrap_or(0),
        0,
        "GFX11 words both decoders read but print differently"
    );
    assert!(
        mismatches.len() * 1000 <= all_valid,
        "{} mismatches of {all_valid} valid probes",
        mismatches.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

/// GFX11, written by hand and assembled by llvm-mc: the true16 readings
/// decode to llvm-mc's text and re-encode to its bytes; the same words
/// with a bit the true16 decoder rejects (an `op_sel` bit of an operand
/// the opcode lacks, an SGPR `v_alignbit_b32` src2) decode as `Vop3F16` to
/// llvm-objdump's text and re-encode to themselves.
#[test]
fn assembled_gfx11_vop3_true16_fallback_against_llvm() {
    let lines = [
        "v_add_f16_e64 v8.l, v2.l, v16.l",
        "v_add_f16_e64 v8.h, v2.h, v16.l op_sel:[1,0,1]",
        "v_fma_f16 v1.l, v2.l, v3.h, v4.h op_sel:[0,1,1,0]",
        "v_cvt_f32_f16_e64 v1, v2.h op_sel:[1,0]",
        "v_cmp_lt_f16_e64 s5, v2.l, v3.h op_sel:[0,1,0]",
        "v_alignbit_b32 v1, v2, v3, v4.l",
        "v_add_nc_u16 v1.h, v2.l, v3.h op_sel:[0,1,1]",
        "v_mov_b16_e64 v1.h, v2.l op_sel:[0,1]",
        "v_add_f32_e64 v1, v2, v3",
    ];
    // (line, word, bit set): the true16 decoder rejects the result.
    let fallbacks = [
        (lines[0], 0, 13), // op_sel of src2, which v_add_f16 lacks
        (lines[3], 0, 12), // op_sel of src1, which v_cvt_f32_f16 lacks
        (lines[4], 0, 13),
    ];
    for target in [
        Target::Gfx1100,
        Target::Gfx1103,
        Target::Gfx1150,
        Target::Gfx11Generic,
    ] {
        for line in lines {
            let bytes = assemble(target, line);
            let inst = decode(target, &bytes);
            assert_eq!(inst.to_string(), line, "{target}: {bytes:02x?}");
            assert_eq!(inst.encoding(), Encoding::Vop3Gfx10, "{target} {line}");
            assert_eq!(inst.encode(), bytes, "{target} {line}");
        }
        let mut probes = Vec::new();
        for (line, w, bit) in fallbacks {
            let mut words = words_of(&assemble(target, line));
            words[w] |= 1 << bit;
            probes.push(words);
        }
        let mut w = words_of(&assemble(target, lines[5]));
        set(&mut w[1], 18, 9, 4); // src2 = s4
        probes.push(w);
        let theirs = llvm(target, &probes);
        for (p, t) in probes.iter().zip(theirs) {
            let (text, n) = t.unwrap_or_else(|| panic!("{target} {p:08x?}: LLVM rejects it"));
            assert_eq!(n, 2, "{target} {text}");
            assert!(
                !text.contains(".l") && !text.contains(".h"),
                "{target} {text}"
            );
            let bytes: Vec<u8> = p.iter().flat_map(|w| w.to_le_bytes()).collect();
            let inst = decode(target, &bytes);
            assert_eq!(inst.to_string(), text, "{target} {p:08x?}");
            assert_eq!(inst.encoding(), Encoding::Vop3F16, "{target} {text}");
            assert_eq!(inst.encode(), bytes, "{target} {text}");
        }
    }
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

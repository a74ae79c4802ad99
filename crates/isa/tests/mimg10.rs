//! GFX10 and GFX11 MIMG (D81) against llvm-objdump 22: every
//! `MimgGfx10`/`MimgHiGfx10`/`MimgGfx11` opcode of one processor per
//! GFX10/GFX11 table column (both wave sizes), with random `dim`, `dmask`,
//! `a16`, `d16`, `tfe`, `lwe`, `r128`, `unorm`, `glc`/`slc`/`dlc`, NSA
//! count, data and address registers (NSA fields, unused ones zero or not),
//! resource and sampler, decoded by us and by LLVM. Validity, length and
//! text must agree; every valid word must re-encode to itself and rebuild
//! exactly from its typed parts. `LATHE_MIMG10_SWEEP=<n>` sets the variants
//! per opcode (default 64).

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a test failure

mod common;

use common::{assemble, llvm, Rng};
use lathe_isa::{decode, Encoding, Field, Instruction, Opcode, RegRange, Target};

fn is_mimg(e: Encoding) -> bool {
    matches!(
        e,
        Encoding::MimgGfx10 | Encoding::MimgHiGfx10 | Encoding::MimgGfx11
    )
}

fn set(w: &mut u32, lo: u32, width: u32, v: u32) {
    let m = (((1u64 << width) - 1) as u32) << lo;
    *w = (*w & !m) | ((v << lo) & m);
}

const NOP: u32 = 0xBF80_0000;

/// One random variant of `op`: two words, the NSA dword(s) when the NSA
/// field is set, then words LLVM must not take as part of it.
fn variant(target: Target, op: Opcode, rng: &mut Rng) -> Vec<u32> {
    let base = Instruction::build(target, op).raw_words();
    let gfx11 = op.info().enc == Encoding::MimgGfx11;
    let (mut w0, mut w1) = (base[0], 0u32);
    // NSA: mostly none or one dword; GFX10 two sometimes (longer than an
    // `Instruction`: we decode those as `.long`). Not three: five words run
    // into the next probe's slot.
    let nsa = match rng.below(8) {
        0..=3 => 0,
        4..=6 => 1,
        _ if gfx11 => 1,
        _ => 2,
    };
    let (bits0, bits1): (&[u32], &[u32]) = if gfx11 {
        // unorm, slc, dlc, glc, r128, a16, d16 | tfe, lwe
        (&[7, 12, 13, 14, 15, 16, 17], &[21, 22])
    } else {
        // dlc, unorm, glc, r128, tfe, lwe, slc | a16, d16
        (&[7, 12, 13, 15, 16, 17, 25], &[30, 31])
    };
    for &b in bits0 {
        if rng.below(5) == 0 {
            w0 |= 1 << b;
        }
    }
    for &b in bits1 {
        if rng.below(5) == 0 {
            w1 |= 1 << b;
        }
    }
    if gfx11 {
        set(&mut w0, 0, 1, nsa);
        set(&mut w0, 2, 3, rng.below(8));
        // Sampler: half the time none (opcodes without one need zero).
        set(&mut w1, 26, 5, rng.below(2) * rng.below(32));
    } else {
        set(&mut w0, 1, 2, nsa);
        set(&mut w0, 3, 3, rng.below(8));
        set(&mut w1, 21, 5, rng.below(2) * rng.below(32));
    }
    set(&mut w0, 8, 4, rng.u32()); // dmask
    if rng.below(4) == 0 || op.name().contains("_bvh") {
        // A quarter of the variants, and all of the BVH opcodes' (valid in
        // no other shape): the BVH forms, dmask 0xf, r128, unorm (LLVM
        // decodes GFX11's only with it, D82), dim 1D, no NSA on GFX10
        // (eleven or more addresses).
        set(&mut w0, 8, 4, 0xF);
        if gfx11 {
            set(&mut w0, 2, 3, 0);
        } else {
            set(&mut w0, 1, 5, 0);
        }
        w0 |= 1 << 15;
        w0 |= 1 << if gfx11 { 7 } else { 12 };
    }
    set(&mut w1, 0, 8, rng.below(240)); // vaddr
    set(&mut w1, 8, 8, rng.below(240)); // vdata
    set(&mut w1, 16, 5, rng.below(32)); // resource
    let mut out = vec![w0, w1];
    for _ in 0..nsa {
        // Address registers: four random bytes, or only the first few.
        let n = rng.below(5);
        let mut w = 0;
        for i in 0..4 {
            if i < n || rng.below(3) == 0 {
                set(&mut w, 8 * i, 8, rng.below(240));
            }
        }
        out.push(w);
    }
    out.resize(4, NOP);
    out
}

/// One processor per GFX10/GFX11 table column, both wave sizes.
fn targets() -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    for t in Target::ALL
        .iter()
        .copied()
        .filter(|t| matches!(t.generation(), 10 | 11))
    {
        for t in [Some(t), t.with_wave_size(64)].into_iter().flatten() {
            if !out.iter().any(|u| u.table_column() == t.table_column()) {
                out.push(t);
            }
        }
    }
    out
}

/// Word bits no field or modifier holds (LLVM ignores them): GFX10 word 0
/// bit 14 and word 1 bits 29:26; GFX11 word 0 bits 6:5 and 1, word 1 bits
/// 25:23 and 31.
fn ignored(enc: Encoding) -> [u32; 2] {
    if enc == Encoding::MimgGfx11 {
        [0x62, 0x8380_0000]
    } else {
        [1 << 14, 0x3C00_0000]
    }
}

#[test]
fn mimg10_sweep_against_llvm() {
    let per_op: usize = std::env::var("LATHE_MIMG10_SWEEP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let mut mismatches = Vec::new();
    let mut failures = Vec::new();
    let mut report = String::new();
    let (mut all_probes, mut all_valid) = (0usize, 0usize);
    for target in targets() {
        let ops: Vec<Opcode> = Opcode::all_for(target)
            .filter(|o| is_mimg(o.info().enc))
            .collect();
        let mut rng = Rng(0x3161_2026_1128_0081 ^ target as u64);
        let mut probes = Vec::new();
        let mut owners = Vec::new();
        for &op in &ops {
            for _ in 0..per_op {
                probes.push(variant(target, op, &mut rng));
                owners.push(op);
            }
        }
        let theirs = llvm(target, &probes);
        let (mut valid, mut exact, mut long_nsa, mut rerun) = (0usize, 0usize, 0usize, 0usize);
        let mut seen_ok = std::collections::BTreeSet::new();
        for ((p, &op), mut t) in probes.iter().zip(&owners).zip(theirs) {
            let bytes: Vec<u8> = p.iter().flat_map(|w| w.to_le_bytes()).collect();
            let ours = decode(target, &bytes);
            let ours_t = (!ours.is_invalid()).then(|| {
                let mut s = ours.to_string();
                ours.write_warnings(&mut s).unwrap();
                (s, ours.len() / 4)
            });
            let long = ours_t.is_none() && t.as_ref().is_some_and(|(_, n)| *n > 3);
            if ours_t != t && !long && rerun < 1000 {
                // The previous slot's last words can run into this slot:
                // ask again with the probe alone.
                t = llvm(target, std::slice::from_ref(p)).remove(0);
                rerun += 1;
            }
            if long {
                // A GFX10 NSA word of four or five dwords: longer than an
                // `Instruction` (D81, residual).
                long_nsa += 1;
                continue;
            }
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
                    &p[..3]
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
            // Bits LLVM ignores, and address bytes of the NSA dword the
            // form does not use (not operands), may differ.
            let used = |r: &Instruction| -> [u32; 3] {
                let ig = ignored(r.encoding());
                let mut m = [!ig[0], !ig[1], 0];
                for o in r.operands().iter() {
                    let lo = match o.spec.field {
                        Field::Vaddr1 => 0,
                        Field::Vaddr2 => 8,
                        Field::Vaddr3 => 16,
                        Field::Vaddr4 => 24,
                        _ => continue,
                    };
                    m[2] |= 0xFF << lo;
                }
                m
            };
            match rebuilt {
                Ok(r)
                    if r.to_string() == ours.to_string() && r.len() == ours.len() && {
                        let m = used(&ours);
                        (0..ours.len() / 4).all(|i| (r.words()[i] ^ ours.words()[i]) & m[i] == 0)
                    } =>
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
            "{target}: {} opcodes, {} probes, {valid} valid, {exact} rebuilt, {} opcodes seen valid, \
             {rerun} asked again alone, {long_nsa} GFX10 NSA words over 96 bits\n",
            ops.len(),
            probes.len(),
            seen_ok.len()
        );
        if ops.len() < 80 || valid * 5 < probes.len() {
            failures.push(format!("{target}: too few opcodes or valid probes"));
        }
        // The residual bound: the long GFX10 NSA words only (an eighth of
        // the GFX10 probes ask for two or three NSA dwords), none on GFX11.
        if long_nsa * 8 > probes.len() || (target.generation() == 11 && long_nsa > 0) {
            failures.push(format!("{target}: {long_nsa} long-NSA residuals"));
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
    eprintln!("MIMG sweep: {all_valid} of {all_probes} probes valid\n{report}");
    let show: usize = std::env::var("LATHE_MIMG10_SHOW")
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
/// text llvm-mc prints back, re-encodes to the same bytes and reports its
/// address register v4 as read.
#[test]
fn assembled_mimg_against_llvm_mc() {
    let common = [
        "image_load v[0:3], v[4:5], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D",
        "image_load v[0:3], [v4, v6], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D",
        "image_load v[0:1], [v4, v9, v5], s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_3D glc slc dlc",
        "image_load_mip v[0:2], v[4:7], s[8:15] dmask:0x7 dim:SQ_RSRC_IMG_2D_ARRAY",
        "image_load v[0:4], v[4:5], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D tfe",
        "image_load v[0:1], v[4:5], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D d16",
        "image_load v0, v4, s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D a16",
        "image_store v[0:3], [v4, v5, v6], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_3D unorm",
        "image_atomic_add v0, v[4:5], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D glc",
        "image_atomic_cmpswap v[0:1], v4, s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_1D",
        "image_get_resinfo v[0:3], v4, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D",
        "image_sample v[0:3], v[4:5], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D",
        "image_sample v[0:3], [v4, v8], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D",
        "image_sample_l v[0:4], v[4:6], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D tfe lwe",
        "image_gather4 v[0:3], v[4:5], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        "image_get_lod v[0:1], v[4:5], s[8:15], s[16:19] dmask:0x3 dim:SQ_RSRC_IMG_2D",
        "image_sample_c_d_cl_o v[0:3], [v4, v2, v3, v1, v5], s[8:15], s[4:7] dmask:0xf dim:SQ_RSRC_IMG_1D a16",
    ];
    let gfx1030 = [
        "image_msaa_load v[0:3], v[4:6], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D_MSAA",
        "image_bvh_intersect_ray v[0:3], v[4:14], s[8:11]",
        "image_bvh64_intersect_ray v[0:3], v[4:15], s[8:11]",
        "image_sample_d_g16 v[0:3], [v4, v5, v6, v7], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D",
    ];
    let gfx1100 = [
        "image_msaa_load v[0:3], [v4, v5, v6], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D_MSAA",
        "image_sample_d_g16 v[0:3], [v4, v5, v6, v7], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D",
        "image_sample_c_d_cl_o v[0:3], [v4, v2, v3, v1, v[5:6]], s[8:15], s[4:7] dmask:0xf dim:SQ_RSRC_IMG_1D",
        // The BVH opcodes (D82): plain, a16, and the NSA tuples.
        "image_bvh_intersect_ray v[0:3], v[4:14], s[8:11]",
        "image_bvh_intersect_ray v[0:3], v[4:11], s[8:11] a16",
        "image_bvh64_intersect_ray v[0:3], v[4:15], s[8:11]",
        "image_bvh64_intersect_ray v[0:3], v[4:12], s[8:11] a16",
        "image_bvh_intersect_ray v[0:3], [v4, v9, v[10:12], v[13:15], v[16:18]], s[8:11]",
        "image_bvh64_intersect_ray v[0:3], [v[4:5], v9, v[10:12], v[13:15], v[16:18]], s[8:11]",
        "image_bvh_intersect_ray v[0:3], [v4, v9, v[10:12], v[13:15]], s[8:11] a16",
    ];
    let mut bad = Vec::new();
    let mut n = 0;
    for (target, extra) in [
        (Target::Gfx1010, &[][..]),
        (Target::Gfx1030, &gfx1030[..]),
        (Target::Gfx1100, &gfx1100[..]),
        (Target::Gfx1150, &gfx1100[..]),
    ] {
        for line in common.iter().chain(extra) {
            let bytes = assemble(target, line);
            // llvm-mc's own text (the NSA forms print two spaces after
            // the mnemonic).
            let want = llvm(
                target,
                &[bytes
                    .chunks(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect()],
            )
            .remove(0)
            .map(|(s, _)| s);
            let inst = decode(target, &bytes);
            n += 1;
            if Some(inst.to_string()) != want || inst.encode() != bytes {
                bad.push(format!(
                    "{target} {line}\n    ours: {inst} {:02x?}\n    llvm: {want:?}",
                    bytes
                ));
                continue;
            }
            assert!(is_mimg(inst.encoding()), "{line}");
            let read = inst.regs_read();
            assert!(
                read.contains(RegRange::vgpr(4, 1)),
                "{target} {line}: {read:?}"
            );
        }
    }
    assert!(bad.is_empty(), "{} of {n}: {bad:#?}", bad.len());
}

/// GFX9 and GFX12 read the same prefix as other encodings; GFX10's NSA
/// words of more than 96 bits are `.long` (D81).
#[test]
fn long_gfx10_nsa_is_invalid() {
    let line = "image_sample_c_d_cl_o v[0:3], [v1, v2, v3, v4, v5, v6], s[8:15], s[4:7] dmask:0xf dim:SQ_RSRC_IMG_1D";
    let bytes = assemble(Target::Gfx1030, line);
    assert_eq!(bytes.len(), 16);
    assert!(decode(Target::Gfx1030, &bytes).is_invalid());
    let bytes = assemble(
        Target::Gfx1030,
        "image_sample v[0:3], [v1, v2], s[8:15], s[4:7] dmask:0xf dim:SQ_RSRC_IMG_2D",
    );
    assert_eq!(decode(Target::Gfx1030, &bytes).len(), 12);
}

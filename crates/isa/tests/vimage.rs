//! GFX12 VIMAGE and VSAMPLE (D72) against llvm-objdump 22: every
//! `VimageGfx12`/`VsampleGfx12` opcode of one processor per GFX12 table
//! column, with random `dim`, `dmask`, `a16`, `d16`, `tfe`/`lwe`, `r128`,
//! `unorm`, `nv`, `th`/`scope`, data and address registers (NSA fields,
//! unused ones zero or not), resource and sampler, decoded by us and by
//! LLVM. Validity, length and text must agree; every valid word must
//! re-encode to itself and rebuild exactly from its typed parts.
//! `LATHE_VIMAGE_SWEEP=<n>` sets the variants per opcode (default 64).

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a test failure

mod common;

use common::{assemble, llvm, Rng};
use lathe_isa::{decode, Encoding, Field, Instruction, Opcode, RegRange, Target};

fn is_image(e: Encoding) -> bool {
    matches!(e, Encoding::VimageGfx12 | Encoding::VsampleGfx12)
}

fn set(w: &mut u32, lo: u32, width: u32, v: u32) {
    let m = (((1u64 << width) - 1) as u32) << lo;
    *w = (*w & !m) | ((v << lo) & m);
}

/// A random scalar tuple base: aligned to 4 and below `vcc` mostly, any
/// SGPR number below 106 sometimes (LLVM aligns it down and warns).
fn sgpr(rng: &mut Rng) -> u32 {
    if rng.below(8) == 0 {
        rng.below(106)
    } else {
        rng.below(24) * 4
    }
}

/// One random variant of `op` (three words, then a word LLVM must not
/// take).
fn variant(target: Target, op: Opcode, rng: &mut Rng) -> Vec<u32> {
    let base = Instruction::build(target, op).raw_words();
    let sample = op.info().enc == Encoding::VsampleGfx12;
    let mut w = [base[0], 0u32, 0u32];
    set(&mut w[0], 0, 3, rng.below(8)); // dim
    for bit in [3, 4, 5, 6, 7, 13] {
        // tfe (VSAMPLE), r128, d16, a16, nv, unorm (VSAMPLE)
        if rng.below(4) == 0 {
            w[0] |= 1 << bit;
        }
    }
    set(&mut w[0], 22, 4, rng.u32()); // dmask
    let bvh = rng.below(4) == 0;
    if bvh {
        // The BVH opcodes' forms: dmask 0xf, r128, dim 1D, a16 or not,
        // no other flag, no cache policy.
        set(&mut w[0], 22, 4, 0xF);
        set(&mut w[0], 0, 8, 1 << 4 | (rng.below(2) << 6));
    }
    set(&mut w[1], 0, 8, rng.below(240)); // vdata
    set(&mut w[1], 9, 9, sgpr(rng)); // rsrc
    if !bvh {
        set(&mut w[1], 18, 5, rng.u32()); // scope, th (BVH: none)
    }
    if sample {
        set(&mut w[1], 8, 1, (rng.below(4) == 0) as u32); // lwe
        set(&mut w[1], 23, 9, sgpr(rng)); // sampler
    } else {
        set(&mut w[1], 23, 1, (!bvh && rng.below(4) == 0) as u32); // tfe
        if rng.below(2) == 0 {
            set(&mut w[1], 24, 8, rng.below(240)); // fifth address
        }
    }
    // Address registers: four random bytes, or only the first few.
    let n = rng.below(5);
    for i in 0..4 {
        if i < n || rng.below(3) == 0 {
            set(&mut w[2], 8 * i, 8, rng.below(240));
        }
    }
    vec![w[0], w[1], w[2], 0xBF80_0000]
}

/// One processor per GFX12 table column that has image instructions, both
/// wave sizes.
fn targets() -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    for t in Target::ALL
        .iter()
        .copied()
        .filter(|t| t.generation() == 12 && !t.is_gfx1250())
    {
        for t in [Some(t), t.with_wave_size(64)].into_iter().flatten() {
            if !out.iter().any(|u| u.table_column() == t.table_column()) {
                out.push(t);
            }
        }
    }
    out
}

#[test]
fn vimage_sweep_against_llvm() {
    let per_op: usize = std::env::var("LATHE_VIMAGE_SWEEP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let mut mismatches = Vec::new();
    let mut failures = Vec::new();
    let mut report = String::new();
    let (mut all_probes, mut all_valid) = (0usize, 0usize);
    for target in targets() {
        let ops: Vec<Opcode> = Opcode::all_for(target)
            .filter(|o| is_image(o.info().enc))
            .collect();
        let mut rng = Rng(0x1AA6_2026_1128_0001 ^ target as u64);
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
        let (mut vop3p, mut rerun) = (0usize, 0usize);
        let mut seen_ok = std::collections::BTreeSet::new();
        for ((p, &op), mut t) in probes.iter().zip(&owners).zip(theirs) {
            let bytes: Vec<u8> = p.iter().flat_map(|w| w.to_le_bytes()).collect();
            let ours = decode(target, &bytes);
            let ours_t = (!ours.is_invalid()).then(|| {
                let mut s = ours.to_string();
                ours.write_warnings(&mut s).unwrap();
                (s, ours.len() / 4)
            });
            if ours_t != t && rerun < 200 {
                // In a batch the previous slot's last words can decode as
                // a 96-bit instruction that runs into this slot: ask
                // again with the probe alone (a few hundred at most).
                t = llvm(target, std::slice::from_ref(p)).remove(0);
                rerun += 1;
            }
            if ours_t != t && p[0] >> 23 == 0x1A7 {
                // Word 0 bits 31:23 of 0x1A7 (dmask bits 3:1 set) are also
                // the VOP3P prefix of LLVM's `v_fma_mix*` decoder table,
                // which LLVM 22 tries first on GFX12: it prints
                // `v_fma_mix*` or rejects the word (D72, residual).
                vop3p += 1;
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
            // Address fields the form does not use are not operands: a
            // typed rebuild leaves them zero (LLVM ignores them).
            let used = |r: &Instruction| -> [u32; 3] {
                // Word 0 bits LLVM ignores (no field, no modifier):
                // VIMAGE 13:8 and 3, VSAMPLE 12:8.
                let mut m = [!0x3F08u32, !0u32, 0];
                if r.encoding() == Encoding::VimageGfx12 {
                    m[1] &= 0x00FF_FFFF;
                } else {
                    m[0] = !0x1F00;
                }
                for o in r.operands().iter() {
                    let (w, lo) = match o.spec.field {
                        Field::Vaddr => (2, 0),
                        Field::Vaddr1 => (2, 8),
                        Field::Vaddr2 => (2, 16),
                        Field::Vaddr3 => (2, 24),
                        Field::Vaddr4 => (1, 24),
                        _ => continue,
                    };
                    m[w] |= 0xFF << lo;
                }
                m
            };
            match rebuilt {
                Ok(r)
                    if r.to_string() == ours.to_string() && {
                        let m = used(&ours);
                        (0..3).all(|i| (r.words()[i] ^ ours.words()[i]) & m[i] == 0)
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
             {rerun} asked again alone, {vop3p} differ under the v_fma_mix prefix\n",
            ops.len(),
            probes.len(),
            seen_ok.len()
        );
        if ops.len() < 80 || valid * 5 < probes.len() {
            failures.push(format!("{target}: too few opcodes or valid probes"));
        }
        // The residual bound: the `v_fma_mix` prefix class only, at most
        // 1 % of the probes.
        if vop3p * 100 > probes.len() {
            failures.push(format!("{target}: {vop3p} v_fma_mix-prefix residuals"));
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
    eprintln!("VIMAGE sweep: {all_valid} of {all_probes} probes valid\n{report}");
    let show: usize = std::env::var("LATHE_VIMAGE_SHOW")
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

/// Instructions written by hand, assembled by llvm-mc for gfx1200: each
/// decodes to the text llvm-mc prints back, re-encodes to the same bytes
/// and reports its address registers as read.
#[test]
fn assembled_images_against_llvm_mc() {
    let lines = [
        "image_load v[0:3], v4, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_1D",
        "image_load v[0:3], [v4, v5], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D",
        "image_load v[0:1], [v4, v5, v6], s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_3D th:TH_LOAD_NT scope:SCOPE_SYS",
        "image_load_mip v[0:2], [v4, v5, v6, v7], s[8:15] dmask:0x7 dim:SQ_RSRC_IMG_2D_ARRAY",
        "image_load v[0:4], [v4, v5], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D tfe",
        "image_load v[0:1], [v4, v5], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D d16",
        "image_load v0, v4, s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D a16",
        "image_store v[0:3], [v4, v5, v6], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_3D th:TH_STORE_NT",
        "image_atomic_add_uint v0, [v4, v5], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D th:TH_ATOMIC_RETURN",
        "image_atomic_cmpswap v[0:1], v4, s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_1D",
        "image_get_resinfo v[0:3], v4, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D",
        "image_msaa_load v[0:3], [v4, v5, v6], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D_MSAA",
        "image_sample v[0:3], [v4, v5], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D",
        "image_sample v[0:3], v4, s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_1D unorm",
        "image_sample_c_d_cl_o v[0:3], [v4, v5, v6, v[7:15]], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_3D",
        "image_sample_l v[0:4], [v4, v5, v6], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D tfe lwe",
        "image_gather4 v[0:3], [v4, v5], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        "image_get_lod v[0:1], [v4, v5], s[8:15], s[16:19] dmask:0x3 dim:SQ_RSRC_IMG_2D",
        "image_bvh_intersect_ray v[0:3], [v4, v5, v[6:8], v[9:11], v[12:14]], s[8:11]",
        "image_bvh64_intersect_ray v[0:3], [v[4:5], v6, v[7:9], v[10:12], v[13:15]], s[8:11]",
        "image_bvh_intersect_ray v[0:3], [v4, v5, v[6:8], v[9:11]], s[8:11] a16",
    ];
    let target = Target::Gfx1200;
    let mut bad = Vec::new();
    for line in lines {
        let bytes = assemble(target, line);
        let inst = decode(target, &bytes);
        if inst.to_string() != line || inst.encode() != bytes {
            bad.push(format!("{line}\n    ours: {inst} {:02x?}", bytes));
            continue;
        }
        assert!(is_image(inst.encoding()), "{line}");
        assert_eq!(inst.len(), 12, "{line}");
        let read = inst.regs_read();
        assert!(read.contains(RegRange::vgpr(4, 1)), "{line}: {read:?}");
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// GFX12.5 has no image instructions in LLVM 22: the words are `.long`.
#[test]
fn gfx1250_has_no_images() {
    let w = [0xD3C0_0001u32, 0x0000_1000, 0x0000_0504];
    let bytes: Vec<u8> = w.iter().flat_map(|w| w.to_le_bytes()).collect();
    assert!(decode(Target::Gfx1250, &bytes).is_invalid());
    assert!(!decode(Target::Gfx1200, &bytes).is_invalid());
}

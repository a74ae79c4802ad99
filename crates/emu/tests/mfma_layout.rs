//! MFMA register layouts: every element of A, B and C/D of every shape
//! against layout functions written per shape family from the ISA guide's
//! worked examples and ROCm's MFMA reference (not from the generic formula
//! the crate uses), the inverse mappings, register counts, SMFMAC index
//! layout, names, opcodes and the modifier bits of the VOP3P-MAI encoding.

use lathe_emu::mfma::{AccType, InType, Mods, Shape, Slot, Target, SHAPES};
use std::collections::HashSet;

fn both(s: &Shape) -> Vec<Target> {
    [Target::Gfx90a, Target::Gfx942, Target::Gfx950]
        .into_iter()
        .filter(|t| s.variant(*t).is_some())
        .collect()
}

/// (register, lane, bit offset) of `A[b][i][k]` (or `B[b][k][j]` with `x = j`):
/// * f64, 16x16x4: lane `16k + x`; 4x4x4 (4 blocks): lane `16k + 4b + x`;
/// * multi-block shapes keep a block's whole row of A in one lane group:
///   lane `M·b + x`, element `k` of the lane;
/// * single-block shapes split K over the four (16-row) or two (32-row)
///   lane groups: lane `M·(k / kl) + x`, element `k % kl`, `kl = K·M/64`;
/// * elements pack little-endian, 16-bit two per register, 8-bit four.
fn ref_in(s: &Shape, ty: InType, b: usize, x: usize, k: usize) -> (usize, usize, u32) {
    if ty == InType::F64 {
        let lane = if s.blocks == 1 {
            16 * k + x
        } else {
            16 * k + 4 * b + x
        };
        return (0, lane, 0);
    }
    let (lane, e) = if s.m * s.blocks == 64 {
        (s.m * b + x, k)
    } else {
        assert_eq!(s.blocks, 1, "{}", s.name());
        let kl = s.k * s.m / 64;
        (s.m * (k / kl) + x, k % kl)
    };
    let bits = ty.bits() as usize;
    ((e * bits) / 32, lane, ((e * bits) % 32) as u32)
}

/// (register, lane) of `C/D[b][i][j]`, from ROCm's CDNA2 MFMA reference
/// tables and the ISA guide's f64 example:
/// 32x32: lane `32·((i/4) % 2) + j`, reg `16b + 4·(i/8) + i%4`;
/// 16x16: lane `16·(i/4) + j`, reg `4b + i%4`; 4x4: lane `4b + j`, reg `i`;
/// f64 16x16: lane `16·(i%4) + j`, regs `2·(i/4)`; f64 4x4: lane `16i + 4b + j`.
fn ref_cd(s: &Shape, b: usize, i: usize, j: usize) -> (usize, usize) {
    match (s.acc, s.m) {
        (AccType::F64, 16) => (2 * (i / 4), 16 * (i % 4) + j),
        (AccType::F64, 4) => (0, 16 * i + 4 * b + j),
        (_, 32) => (16 * b + 4 * (i / 8) + i % 4, 32 * ((i / 4) % 2) + j),
        (_, 16) => (4 * b + i % 4, 16 * (i / 4) + j),
        (_, 4) => (i, 4 * b + j),
        _ => unreachable!(),
    }
}

#[test]
fn dense_layouts_match_the_reference_tables() {
    let mut elems = 0;
    for s in SHAPES.iter().filter(|s| !s.sparse) {
        for b in 0..s.blocks {
            for k in 0..s.k {
                for x in 0..s.m {
                    let a = s.a_slot(b, x, k);
                    assert_eq!(
                        (a.reg, a.lane, a.shift),
                        ref_in(s, s.a, b, x, k),
                        "{} A",
                        s.name()
                    );
                    assert_eq!(a.bits, s.a.bits());
                    let bb = s.b_slot(b, k, x);
                    assert_eq!(
                        (bb.reg, bb.lane, bb.shift),
                        ref_in(s, s.b, b, x, k),
                        "{} B",
                        s.name()
                    );
                    elems += 2;
                }
            }
            for i in 0..s.m {
                for j in 0..s.n {
                    let d = s.cd_slot(b, i, j);
                    assert_eq!((d.reg, d.lane, d.shift), {
                        let (r, l) = ref_cd(s, b, i, j);
                        (r, l, 0)
                    });
                    elems += 1;
                }
            }
        }
    }
    assert!(elems > 40_000, "{elems}");
}

#[test]
fn isa_guide_worked_examples() {
    // V_MFMA_F32_32X32X1_2B_F32: D[b,i,j] in lane j + 32((i/4)%2) of
    // register 16b + 4(i/8) + i%4; A in lane l holds A[l/32, l%32, 0].
    let s = Shape::find(Target::Gfx942, "v_mfma_f32_32x32x1_2b_f32").expect("shape");
    for l in 0..64 {
        assert_eq!(s.a_elem(0, l, 0), Some((l / 32, l % 32, 0)));
        assert_eq!(s.b_elem(0, l, 0), Some((l / 32, 0, l % 32)));
    }
    assert_eq!(s.cd_slot(1, 31, 31).reg, 31);
    assert_eq!(s.cd_slot(1, 31, 31).lane, 63);
    assert_eq!(s.cd_slot(0, 5, 0).lane, 32);
    // V_MFMA_F32_4X4X4_16B_F16: A register 1 bits 15:0 of lane 4 is A[1,0,2].
    let s = Shape::find(Target::Gfx942, "v_mfma_f32_4x4x4_16b_f16").expect("shape");
    assert_eq!(s.a_elem(1, 4, 0), Some((1, 0, 2)));
    assert_eq!(s.a_elem(1, 4, 1), Some((1, 0, 3)));
    let sl = s.a_slot(1, 0, 2);
    assert_eq!((sl.reg, sl.lane, sl.shift, sl.bits), (1, 4, 0, 16));
    // The calculator's V_MFMA_F32_4X4X4F16 example: A[1][2] of block 4 is
    // v1{17}.[15:0]; D[3][2] of block 1 is v3{6}.
    let sl = s.a_slot(4, 1, 2);
    assert_eq!((sl.reg, sl.lane, sl.shift), (1, 17, 0));
    assert_eq!(s.cd_elem(3, 6), Some((1, 3, 2)));
    // V_MFMA_F64_16X16X4_F64: register pair 1 (v[3:2]) of lane 16 holds D[0,5,0].
    let s = Shape::find(Target::Gfx942, "v_mfma_f64_16x16x4_f64").expect("shape");
    assert_eq!(s.cd_elem(2, 16), Some((0, 5, 0)));
    assert_eq!(s.cd_elem(3, 16), Some((0, 5, 0)));
    assert_eq!(s.cd_elem(7, 63), Some((0, 15, 15)));
}

#[test]
fn inverse_mappings_round_trip_and_cover_every_bit() {
    for s in SHAPES {
        // C/D: every (register, lane) names one element and back.
        let mut seen = HashSet::new();
        for reg in 0..s.cd_regs() {
            for lane in 0..64 {
                let (b, i, j) = s.cd_elem(reg, lane).expect("in range");
                let sl = s.cd_slot(b, i, j);
                assert!(sl.reg == reg || (sl.bits == 64 && sl.reg + 1 == reg));
                assert_eq!(sl.lane, lane);
                seen.insert((b, i, j));
            }
        }
        assert_eq!(seen.len(), s.m * s.n * s.blocks, "{}", s.name());
        assert_eq!(s.cd_elem(s.cd_regs(), 0), None);
        if s.sparse {
            continue;
        }
        for (bits, regs) in [(s.a.bits(), s.a_regs()), (s.b.bits(), s.b_regs())] {
            let parts = if bits >= 32 { 1 } else { (32 / bits) as usize };
            let mut seen = HashSet::new();
            for reg in (0..regs).step_by(if bits == 64 { 2 } else { 1 }) {
                for lane in 0..64 {
                    for part in 0..parts {
                        let is_a = bits == s.a.bits() && regs == s.a_regs();
                        let (b, x, k, sl) = if is_a {
                            let (b, i, k) = s.a_elem(reg, lane, part).expect("A");
                            (b, i, k, s.a_slot(b, i, k))
                        } else {
                            let (b, k, j) = s.b_elem(reg, lane, part).expect("B");
                            (b, j, k, s.b_slot(b, k, j))
                        };
                        assert_eq!(
                            (sl.reg, sl.lane, sl.shift as usize),
                            (reg, lane, part * bits as usize)
                        );
                        seen.insert((b, x, k));
                    }
                }
            }
            assert_eq!(seen.len(), s.m * s.k * s.blocks, "{}", s.name());
        }
        assert_eq!(s.a_elem(0, 0, 64), None);
    }
}

#[test]
fn register_counts() {
    // (name as printed for the target, A, B, C/D registers), from the ISA
    // guides' operand tables.
    let table: &[(Target, &str, usize, usize, usize)] = &[
        (Target::Gfx90a, "v_mfma_f32_32x32x1f32", 1, 1, 32),
        (Target::Gfx90a, "v_mfma_f32_16x16x1f32", 1, 1, 16),
        (Target::Gfx90a, "v_mfma_f32_4x4x1f32", 1, 1, 4),
        (Target::Gfx90a, "v_mfma_f32_32x32x2f32", 1, 1, 16),
        (Target::Gfx90a, "v_mfma_f32_16x16x4f32", 1, 1, 4),
        (Target::Gfx90a, "v_mfma_f32_32x32x4f16", 2, 2, 32),
        (Target::Gfx90a, "v_mfma_f32_4x4x4f16", 2, 2, 4),
        (Target::Gfx90a, "v_mfma_f32_32x32x8f16", 2, 2, 16),
        (Target::Gfx90a, "v_mfma_f32_16x16x16f16", 2, 2, 4),
        (Target::Gfx90a, "v_mfma_i32_32x32x4i8", 1, 1, 32),
        (Target::Gfx90a, "v_mfma_i32_16x16x16i8", 1, 1, 4),
        (Target::Gfx90a, "v_mfma_f32_32x32x4bf16_1k", 2, 2, 32),
        (Target::Gfx90a, "v_mfma_f32_16x16x16bf16_1k", 2, 2, 4),
        (Target::Gfx90a, "v_mfma_f32_32x32x2bf16", 1, 1, 32),
        (Target::Gfx90a, "v_mfma_f32_32x32x4bf16", 1, 1, 16),
        (Target::Gfx90a, "v_mfma_f32_16x16x8bf16", 1, 1, 4),
        (Target::Gfx90a, "v_mfma_f64_16x16x4f64", 2, 2, 8),
        (Target::Gfx90a, "v_mfma_f64_4x4x4f64", 2, 2, 2),
        (Target::Gfx942, "v_mfma_i32_32x32x16_i8", 2, 2, 16),
        (Target::Gfx942, "v_mfma_i32_16x16x32_i8", 2, 2, 4),
        (Target::Gfx942, "v_mfma_f32_16x16x8_xf32", 2, 2, 4),
        (Target::Gfx942, "v_mfma_f32_32x32x4_xf32", 2, 2, 16),
        (Target::Gfx942, "v_mfma_f32_16x16x32_fp8_bf8", 2, 2, 4),
        (Target::Gfx942, "v_mfma_f32_32x32x16_bf8_bf8", 2, 2, 16),
        (Target::Gfx942, "v_smfmac_f32_16x16x32_f16", 2, 4, 4),
        (Target::Gfx942, "v_smfmac_f32_32x32x16_bf16", 2, 4, 16),
        (Target::Gfx942, "v_smfmac_i32_16x16x64_i8", 2, 4, 4),
        (Target::Gfx942, "v_smfmac_i32_32x32x32_i8", 2, 4, 16),
        (Target::Gfx942, "v_smfmac_f32_16x16x64_fp8_fp8", 2, 4, 4),
        (Target::Gfx942, "v_smfmac_f32_32x32x32_bf8_fp8", 2, 4, 16),
    ];
    for &(t, name, a, b, cd) in table {
        let s = Shape::find(t, name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!((s.a_regs(), s.b_regs(), s.cd_regs()), (a, b, cd), "{name}");
    }
    // Every dense shape's A/B registers hold exactly M·K·blocks elements.
    for s in SHAPES.iter().filter(|s| !s.sparse) {
        let per_reg = |bits: u32| {
            if bits >= 32 {
                32.0 / bits as f64
            } else {
                (32 / bits) as f64
            }
        };
        assert_eq!(
            s.a_regs() as f64 * 64.0 * per_reg(s.a.bits()),
            (s.m * s.k * s.blocks) as f64
        );
    }
}

#[test]
fn names_opcodes_and_targets() {
    assert_eq!(SHAPES.len(), 77);
    let mut seen = HashSet::new();
    for s in SHAPES {
        for t in both(s) {
            let v = s.variant(t).expect("variant");
            assert!(
                seen.insert((t, v.opcode)),
                "duplicate opcode {:#x} on {t}",
                v.opcode
            );
            assert_eq!(Shape::by_opcode(t, v.opcode), Some(s));
            assert_eq!(Shape::find(t, v.name), Some(s));
        }
    }
    let g90 = |n| Shape::find(Target::Gfx90a, n);
    let g942 = |n| Shape::find(Target::Gfx942, n);
    // Same operation, different spellings and opcodes.
    let bf = g90("v_mfma_f32_16x16x16bf16_1k").expect("gfx90a");
    assert_eq!(bf.gfx90a.expect("v").opcode, 0x67);
    assert_eq!(bf.gfx942.expect("v").opcode, 0x61);
    assert_eq!(g942("v_mfma_f32_16x16x16_bf16"), Some(bf));
    // gfx942 also accepts the old spellings; on gfx90a `32x32x4bf16` is the
    // one-block, two-bf16-per-lane operation, on gfx942 the `_2b` one.
    assert_eq!(g942("v_mfma_f32_16x16x16bf16_1k"), Some(bf));
    assert_eq!(g942("v_mfma_f32_32x32x1f32").map(|s| s.blocks), Some(2));
    assert_eq!(g942("v_mfma_i32_16x16x32i8").map(|s| s.k), Some(32));
    let old = g90("v_mfma_f32_32x32x4bf16").expect("gfx90a");
    assert_eq!((old.blocks, old.a_regs()), (1, 1));
    let new = g942("v_mfma_f32_32x32x4bf16").expect("gfx942");
    assert_eq!((new.blocks, new.a_regs()), (2, 2));
    assert_eq!(g90("v_mfma_f32_32x32x1_2b_f32"), None);
    // gfx90a-only and gfx942-only operations.
    assert_eq!(g942("v_mfma_i32_16x16x16i8"), None);
    assert_eq!(g942("v_mfma_f32_32x32x2bf16"), None);
    assert_eq!(g90("v_mfma_i32_16x16x32_i8"), None);
    assert_eq!(g90("v_smfmac_f32_16x16x32_f16"), None);
    assert_eq!(Shape::by_opcode(Target::Gfx90a, 0x3e), None);
    assert_eq!(
        Shape::by_opcode(Target::Gfx942, 0x3e).map(|s| s.a),
        Some(InType::Xf32)
    );
}

#[test]
fn mods_from_llvm_encodings() {
    // v_mfma_f32_16x16x4f32 v[0:3], v32, v33, v[0:3] cbsz:1 abid:1 blgp:3
    let m = Mods::from_words(0xD3C5_0900, 0x6402_4320);
    assert_eq!((m.cbsz, m.abid, m.blgp, m.clamp), (1, 1, 3, false));
    // v_mfma_f64_16x16x4_f64 ... neg:[1,0,1] (gfx942)
    let m = Mods::from_words(0xD3EE_0000, 0xA402_4520);
    assert_eq!((m.cbsz, m.abid, m.blgp), (0, 0, 5));
    // Bit 15 of the first dword is acc_cd on gfx90a/gfx942 (llvm-mc:
    // `v_mfma_f32_16x16x4f32 a[0:3], v32, v33, a[0:3]` is 0xd3c58000
    // 0x04024320), never clamp: an AGPR accumulator must not saturate.
    let m = Mods::from_words(0xD3C5_8000, 0x0402_4320);
    assert_eq!((m.cbsz, m.abid, m.blgp, m.clamp), (0, 0, 0, false));
}

#[test]
fn smfmac_layouts_match_the_isa_tables() {
    // 16-bit data: per lane group, k = 8·(lane/M) + 2·reg + half for B;
    // compressed A: group of four g holds its two values in register
    // (g % 2), halves 0 and 1; index bits 4·(g%2) + 2·which in set s at 8s.
    // 8-bit data: B k = 16·(lane/M) + 4·reg + byte; A group g in register
    // (g % 4) / 2, bytes 2·(g%2) + which; index set s at 16s.
    for s in SHAPES.iter().filter(|s| s.sparse) {
        let lanes_per_group = 64 / s.m;
        let kl = s.k / lanes_per_group;
        for i in 0..s.m {
            for k in 0..s.k {
                let b = s.b_slot(0, k, i);
                let (reg, shift) = if s.b.bits() == 16 {
                    ((k % kl) / 2, 16 * (k % 2) as u32)
                } else {
                    ((k % kl) / 4, 8 * (k % 4) as u32)
                };
                assert_eq!((b.reg, b.lane, b.shift), (reg, i + s.m * (k / kl), shift));
            }
            for g in 0..s.k / 4 {
                let lg = g % (kl / 4);
                for which in 0..2 {
                    let a = s.sparse_a_slot(i, g, which);
                    let want = if s.a.bits() == 16 {
                        (lg, 16 * which as u32)
                    } else {
                        (lg / 2, 16 * (lg % 2) as u32 + 8 * which as u32)
                    };
                    assert_eq!((a.reg, a.shift), want, "{}", s.name());
                    assert_eq!(a.lane, i + s.m * (4 * g / kl));
                    for set in 0..s.sparse_index_sets() {
                        let ix = s.sparse_index_slot(i, g, which, set);
                        let want = (set * kl + 4 * lg + 2 * which) as u32;
                        assert_eq!((ix.reg, ix.lane, ix.shift, ix.bits), (0, a.lane, want, 2));
                    }
                }
            }
        }
        let sets = if s.a.bits() == 16 { 4 } else { 2 };
        assert_eq!(s.sparse_index_sets(), sets);
    }
}

#[test]
fn slot_read_write() {
    let mut regs = vec![[0u32; 64]; 2];
    let sl = Slot {
        reg: 1,
        lane: 5,
        shift: 8,
        bits: 8,
    };
    sl.write(&mut regs, 0x1AB);
    assert_eq!(regs[1][5], 0xAB00);
    assert_eq!(sl.read(&regs), 0xAB);
    let wide = Slot {
        reg: 0,
        lane: 3,
        shift: 0,
        bits: 64,
    };
    wide.write(&mut regs, 0x1122_3344_5566_7788);
    assert_eq!((regs[0][3], regs[1][3]), (0x5566_7788, 0x1122_3344));
    assert_eq!(wide.read(&regs), 0x1122_3344_5566_7788);
}

/// The interpreter finds an MFMA's row by the decoder's encoding and
/// opcode field ([`Shape::of_opcode`]), not by its mnemonic; the table's
/// mnemonics are checked here against the ISA tables: every opcode the ISA
/// describes as a matrix operation on gfx90a, gfx942 and gfx950 is the
/// row its spelling names (or has no row, and then no semantics there),
/// and every row's variant is an ISA opcode of that spelling and code.
#[test]
fn rows_are_keyed_by_the_isa_opcode_and_agree_with_its_mnemonics() {
    use lathe_isa::{Encoding, Opcode, Sem};
    let isa = |t: Target| match t {
        Target::Gfx90a => lathe_isa::Target::Gfx90a,
        Target::Gfx942 => lathe_isa::Target::Gfx942,
        Target::Gfx950 => lathe_isa::Target::Gfx950,
    };
    let mut keyed = 0;
    for t in [Target::Gfx90a, Target::Gfx942, Target::Gfx950] {
        for op in Opcode::all_for(isa(t)) {
            if lathe_isa::sem::of(op).sem != Sem::Mfma {
                continue;
            }
            let info = op.info();
            let by_code = Shape::of_opcode(t, op);
            assert_eq!(
                by_code,
                Shape::find(t, info.name()),
                "{} (opcode {:#x}) on {t}: the row its opcode selects is not the row its name does",
                info.name(),
                info.code
            );
            if let Some(s) = by_code {
                assert_eq!(s.variant(t).map(|v| v.name), Some(info.name()));
                keyed += 1;
            }
        }
        for s in SHAPES {
            if let Some(v) = s.variant(t) {
                let op = Opcode::from_name(isa(t), v.name)
                    .unwrap_or_else(|| panic!("{} is not an opcode of {t}", v.name));
                assert_eq!(
                    (op.info().enc, op.info().code),
                    (Encoding::Mai, u16::from(v.opcode)),
                    "{} on {t}",
                    v.name
                );
                assert_eq!(Shape::of_opcode(t, op), Some(s));
            }
        }
    }
    // Every variant of every row was reached from an ISA opcode.
    let variants: usize = [Target::Gfx90a, Target::Gfx942, Target::Gfx950]
        .into_iter()
        .map(|t| SHAPES.iter().filter(|s| s.variant(t).is_some()).count())
        .sum();
    assert_eq!(keyed, variants);
}

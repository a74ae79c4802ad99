//! DPP semantics: hand-checked source-lane tables for every control, algebraic
//! properties, row/bank masks, BOUND_CTRL, EXEC, the encodings LLVM emits, and
//! the instruction sequences clang-22 compiles corpus/hip/k_dpp.hip to.
#![allow(clippy::needless_range_loop)] // lanes are indices

use lathe_emu::wave::VReg;
use lathe_emu::xlane::{apply_dpp, dpp_source_lane, write_masked, Dpp, DppCtrl, DppLane};

const ALL: u64 = u64::MAX;

fn lanes() -> VReg {
    std::array::from_fn(|l| l as u32)
}

fn dpp(ctrl: u16, row_mask: u8, bank_mask: u8, bound_ctrl: bool) -> Dpp {
    Dpp::new(ctrl, row_mask, bank_mask, bound_ctrl).expect("valid dpp_ctrl")
}

/// Source lanes of lanes 0..n under `ctrl` (None = no source).
fn sources(ctrl: u16, n: usize) -> Vec<Option<usize>> {
    (0..n).map(|l| dpp_source_lane(ctrl, l)).collect()
}

fn s(v: &[i32]) -> Vec<Option<usize>> {
    v.iter().map(|&x| (x >= 0).then_some(x as usize)).collect()
}

#[test]
fn quad_perm_tables() {
    // quad_perm:[1,0,3,2] = 0xB1 (LLVM encodes it so in k_dpp.hip).
    assert_eq!(
        sources(0xB1, 12),
        s(&[1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10])
    );
    // quad_perm:[3,3,0,1] = 0x4F.
    assert_eq!(sources(0x4F, 8), s(&[3, 3, 0, 1, 7, 7, 4, 5]));
    // Identity [0,1,2,3] = 0xE4, broadcast [2,2,2,2] = 0xAA, at the top lanes.
    assert_eq!(sources(0xE4, 64), s(&(0..64).collect::<Vec<i32>>()));
    assert_eq!(
        (60..64)
            .map(|l| dpp_source_lane(0xAA, l))
            .collect::<Vec<_>>(),
        s(&[62, 62, 62, 62])
    );
}

#[test]
fn row_shift_tables() {
    // row_shl:1 in row 0 and row 3.
    assert_eq!(
        sources(0x101, 16),
        s(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, -1])
    );
    assert_eq!(
        (48..64)
            .map(|l| dpp_source_lane(0x101, l))
            .collect::<Vec<_>>(),
        s(&[49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, -1])
    );
    // row_shl:3, row 1.
    assert_eq!(
        (16..32)
            .map(|l| dpp_source_lane(0x103, l))
            .collect::<Vec<_>>(),
        s(&[19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, -1, -1, -1])
    );
    // row_shr:5, row 2.
    assert_eq!(
        (32..48)
            .map(|l| dpp_source_lane(0x115, l))
            .collect::<Vec<_>>(),
        s(&[-1, -1, -1, -1, -1, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42])
    );
    // row_shr:15 and row_shl:15: one lane per row survives.
    assert_eq!(
        sources(0x11F, 16),
        s(&[-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0])
    );
    assert_eq!(
        sources(0x10F, 16),
        s(&[15, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1])
    );
    // row_ror:5 wraps within the row.
    assert_eq!(
        sources(0x125, 16),
        s(&[11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    );
    assert_eq!(
        (16..32)
            .map(|l| dpp_source_lane(0x121, l))
            .collect::<Vec<_>>(),
        s(&[31, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30])
    );
}

#[test]
fn wave_shift_tables() {
    let at = |ctrl: u16, ls: &[usize]| {
        ls.iter()
            .map(|&l| dpp_source_lane(ctrl, l))
            .collect::<Vec<_>>()
    };
    let ls = [0, 1, 15, 16, 31, 32, 62, 63];
    // wave_shl:1 crosses rows: lane 15 reads 16.
    assert_eq!(at(0x130, &ls), s(&[1, 2, 16, 17, 32, 33, 63, -1]));
    assert_eq!(at(0x134, &ls), s(&[1, 2, 16, 17, 32, 33, 63, 0]));
    assert_eq!(at(0x138, &ls), s(&[-1, 0, 14, 15, 30, 31, 61, 62]));
    assert_eq!(at(0x13C, &ls), s(&[63, 0, 14, 15, 30, 31, 61, 62]));
}

#[test]
fn mirror_and_broadcast_tables() {
    assert_eq!(
        (16..32)
            .map(|l| dpp_source_lane(0x140, l))
            .collect::<Vec<_>>(),
        s(&[31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16])
    );
    assert_eq!(
        sources(0x141, 16),
        s(&[7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8])
    );
    // row_bcast:15: rows 1..3 read 15, 31, 47; row 0 has no source.
    let b15: Vec<_> = [0, 15, 16, 31, 32, 47, 48, 63]
        .iter()
        .map(|&l| dpp_source_lane(0x142, l))
        .collect();
    assert_eq!(b15, s(&[-1, -1, 15, 15, 31, 31, 47, 47]));
    // row_bcast:31: rows 2 and 3 read 31.
    let b31: Vec<_> = [0, 31, 32, 47, 48, 63]
        .iter()
        .map(|&l| dpp_source_lane(0x143, l))
        .collect();
    assert_eq!(b31, s(&[-1, -1, 31, 31, 31, 31]));
    // row_newbcast:5 (gfx90a+): every lane of a row reads lane 5 of it.
    let nb: Vec<_> = [0, 5, 15, 16, 40, 63]
        .iter()
        .map(|&l| dpp_source_lane(0x155, l))
        .collect();
    assert_eq!(nb, s(&[5, 5, 5, 21, 37, 53]));
}

#[test]
fn decode_encode_and_reserved() {
    let mut valid = 0;
    for ctrl in 0..0x200u16 {
        match DppCtrl::decode(ctrl) {
            Some(c) => {
                valid += 1;
                assert_eq!(c.encode(), ctrl, "{c:?}");
            }
            None => assert!((0..64).all(|l| dpp_source_lane(ctrl, l).is_none())),
        }
    }
    // 256 quad perms + 3 x 15 row shifts/rotates + 4 wave ops + 4 + 16 newbcast.
    assert_eq!(valid, 256 + 45 + 4 + 4 + 16);
    for reserved in [
        0x100, 0x110, 0x120, 0x131, 0x13F, 0x144, 0x14F, 0x160, 0x1FF,
    ] {
        assert_eq!(DppCtrl::decode(reserved), None, "{reserved:#x}");
    }
}

#[test]
fn dpp_dwords_from_llvm() {
    // Second dwords of instructions clang-22 emitted for k_dpp.hip (gfx90a)
    // and llvm-mc encodings.
    let cases: [(u32, u8, u16, u8, u8, bool); 6] = [
        // v_add_u32_dpp v2, v2, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
        (0xFF09_1102, 2, 0x111, 0xF, 0xF, true),
        // ... row_bcast:15 row_mask:0xa bank_mask:0xf
        (0xAF01_4202, 2, 0x142, 0xA, 0xF, false),
        // v_mov_b32_dpp v20, v18 quad_perm:[1,0,3,2]
        (0xFF00_B112, 18, 0xB1, 0xF, 0xF, false),
        // v_mov_b32_dpp v19, v18 row_shr:1 row_mask:0x5 bank_mask:0x3 bound_ctrl:1
        (0x5309_1112, 18, 0x111, 0x5, 0x3, true),
        // v_mov_b32_dpp v1, v2 row_newbcast:5
        (0xFF01_5502, 2, 0x155, 0xF, 0xF, false),
        // v_mov_b32_dpp v1, v2 quad_perm:[3,2,1,0] row_mask:0x1 bank_mask:0x8 bound_ctrl:1
        (0x1808_1B02, 2, 0x1B, 0x1, 0x8, true),
    ];
    for (dw, src, ctrl, rm, bm, bc) in cases {
        let (s0, d) = Dpp::from_dword(dw).expect("valid");
        assert_eq!((s0, d), (src, dpp(ctrl, rm, bm, bc)), "{dw:#010x}");
    }
    assert_eq!(Dpp::from_dword(0xFF01_0002), None); // dpp_ctrl 0x100
}

#[test]
fn ror_inverse_and_involutions() {
    let src = lanes();
    for k in 1..16u16 {
        let (a, m1) = dpp(0x120 | k, 0xF, 0xF, false).fetch(&src, ALL);
        let (b, m2) = dpp(0x120 | (16 - k), 0xF, 0xF, false).fetch(&a, ALL);
        assert_eq!((m1, m2), (ALL, ALL));
        assert_eq!(b, src, "row_ror:{k} then row_ror:{}", 16 - k);
        // row_ror:k equals k applications of row_ror:1.
        let mut c = src;
        for _ in 0..k {
            c = dpp(0x121, 0xF, 0xF, false).fetch(&c, ALL).0;
        }
        assert_eq!(c, a);
    }
    for ctrl in [0x140, 0x141, 0xB1, 0x1B] {
        let (a, _) = dpp(ctrl, 0xF, 0xF, false).fetch(&src, ALL);
        let (b, _) = dpp(ctrl, 0xF, 0xF, false).fetch(&a, ALL);
        assert_eq!(b, src, "{ctrl:#x} is an involution");
    }
    // wave_rol:1 then wave_ror:1 is the identity; 64 x wave_rol:1 too.
    let (a, _) = dpp(0x134, 0xF, 0xF, false).fetch(&src, ALL);
    assert_eq!(dpp(0x13C, 0xF, 0xF, false).fetch(&a, ALL).0, src);
    let mut c = src;
    for _ in 0..64 {
        c = dpp(0x134, 0xF, 0xF, false).fetch(&c, ALL).0;
    }
    assert_eq!(c, src);
}

#[test]
fn wave_shifts_cross_rows_row_shifts_do_not() {
    let src = lanes();
    let old = [0xDEAD_u32; 64];
    let (w, wm) = apply_dpp(&src, &old, ALL, &dpp(0x130, 0xF, 0xF, false));
    let (r, rm) = apply_dpp(&src, &old, ALL, &dpp(0x101, 0xF, 0xF, false));
    for l in [15, 31, 47] {
        assert_eq!(w[l], l as u32 + 1, "wave_shl:1 lane {l}");
        assert_eq!(r[l], 0xDEAD, "row_shl:1 lane {l} keeps old");
    }
    assert_eq!(w[63], 0xDEAD);
    assert_eq!(wm, ALL & !(1 << 63));
    assert_eq!(rm, ALL & !(1 << 15 | 1 << 31 | 1 << 47 | 1 << 63));
    // wave_shr:1 with BOUND_CTRL: lane 0 gets 0, everything else lane - 1.
    let (v, m) = apply_dpp(&src, &old, ALL, &dpp(0x138, 0xF, 0xF, true));
    assert_eq!(m, ALL);
    assert_eq!(v[0], 0);
    assert!((1..64).all(|l| v[l] == l as u32 - 1));
}

#[test]
fn row_bcast_fills_next_rows() {
    let src: VReg = std::array::from_fn(|l| 100 + l as u32);
    let old = [7u32; 64];
    // row_bcast:15 with row_mask 0xa (the scan idiom): rows 1 and 3 get
    // lanes 15 and 47; rows 0 and 2 keep old.
    let (v, m) = apply_dpp(&src, &old, ALL, &dpp(0x142, 0xA, 0xF, false));
    assert_eq!(m, 0xFFFF_0000_FFFF_0000);
    for l in 0..64 {
        let want = match l / 16 {
            1 => 115,
            3 => 147,
            _ => 7,
        };
        assert_eq!(v[l], want, "lane {l}");
    }
    // All rows enabled, no bound_ctrl: row 2 gets lane 31, row 0 keeps old.
    let (v, m) = apply_dpp(&src, &old, ALL, &dpp(0x142, 0xF, 0xF, false));
    assert_eq!(m, 0xFFFF_FFFF_FFFF_0000);
    assert_eq!((v[0], v[16], v[32], v[48]), (7, 115, 131, 147));
    // With bound_ctrl, row 0 (no source) is written with 0.
    let (v, m) = apply_dpp(&src, &old, ALL, &dpp(0x142, 0xF, 0xF, true));
    assert_eq!(m, ALL);
    assert!(v[..16].iter().all(|&x| x == 0));
    // row_bcast:31 with row_mask 0xc: rows 2 and 3 all read lane 31.
    let (v, m) = apply_dpp(&src, &old, ALL, &dpp(0x143, 0xC, 0xF, false));
    assert_eq!(m, 0xFFFF_FFFF_0000_0000);
    assert!(v[32..].iter().all(|&x| x == 131));
    assert!(v[..32].iter().all(|&x| x == 7));
}

#[test]
fn row_and_bank_masks_gate_writes_not_reads() {
    let src = lanes();
    let old = [0xAAAA_u32; 64];
    // row_shr:1 row_mask:0x5 bank_mask:0x3 bound_ctrl:1 (dpp_patterns r[13]).
    let (v, m) = apply_dpp(&src, &old, ALL, &dpp(0x111, 0x5, 0x3, true));
    for l in 0..64 {
        let enabled = (l / 16) % 2 == 0 && (l % 16) < 8;
        let want = if !enabled {
            0xAAAA
        } else if l % 16 == 0 {
            0
        } else {
            l as u32 - 1
        };
        assert_eq!(v[l], want, "lane {l}");
        assert_eq!(m >> l & 1 == 1, enabled, "lane {l}");
    }
    // A lane masked off for writing is still a valid source: quad_perm
    // [1,0,3,2] with bank 0 disabled — lanes 4..7 write, lanes 0..3 do not,
    // and lane 4's source 5 is fine; with bank_mask 0x1 only lanes 0..3 of
    // each row write and read lanes 1,0,3,2 (themselves disabled for nothing).
    let (v, m) = apply_dpp(&src, &old, ALL, &dpp(0xB1, 0xF, 0x1, false));
    assert_eq!(m, 0x000F_000F_000F_000F);
    assert_eq!(&v[..8], &[1, 0, 3, 2, 0xAAAA, 0xAAAA, 0xAAAA, 0xAAAA]);
    // row_shl:4 with only bank 0 writing reads bank 1 (lanes 4..7).
    let (v, _) = apply_dpp(&src, &old, ALL, &dpp(0x104, 0xF, 0x1, false));
    assert_eq!(&v[16..20], &[20, 21, 22, 23]);
    // Empty masks write nothing, whatever bound_ctrl says.
    assert_eq!(dpp(0x101, 0x0, 0xF, true).fetch(&src, ALL).1, 0);
    assert_eq!(dpp(0x101, 0xF, 0x0, true).fetch(&src, ALL).1, 0);
}

#[test]
fn exec_inactive_destination_and_source() {
    let src = lanes();
    let old = [0xBBBB_u32; 64];
    // Lanes 0..31 active.
    let exec = 0x0000_0000_FFFF_FFFF;
    let d = dpp(0x13C, 0xF, 0xF, false); // wave_ror:1
    let plan = d.plan(exec);
    // Lane 0 reads lane 63, which is inactive: invalid source, not written.
    assert_eq!(plan[0], DppLane::Skip);
    assert_eq!(plan[1], DppLane::Read(0));
    // Inactive lanes are never written, even with bound_ctrl.
    assert_eq!(plan[40], DppLane::Skip);
    let (v, m) = apply_dpp(&src, &old, exec, &d);
    assert_eq!(m, exec & !1);
    assert_eq!(v[0], 0xBBBB);
    assert_eq!(v[31], 30);
    assert_eq!(v[32], 0xBBBB);
    // With bound_ctrl the inactive source reads as 0 and lane 0 is written.
    let d = dpp(0x13C, 0xF, 0xF, true);
    assert_eq!(d.plan(exec)[0], DppLane::Zero);
    let (v, m) = apply_dpp(&src, &old, exec, &d);
    assert_eq!((v[0], m), (0, exec));
    // quad_perm broadcast of lane 3 of each quad with lane 3 inactive.
    let exec = ALL & !(1 << 3);
    let (v, m) = apply_dpp(&src, &old, exec, &dpp(0xFF, 0xF, 0xF, false));
    assert_eq!(&v[..8], &[0xBBBB, 0xBBBB, 0xBBBB, 0xBBBB, 7, 7, 7, 7]);
    assert_eq!(m, ALL & !0xF);
    // EXEC = 0: nothing.
    assert_eq!(dpp(0xE4, 0xF, 0xF, true).fetch(&src, 0).1, 0);
}

#[test]
fn fetch64_moves_both_halves() {
    let lo = lanes();
    let hi: VReg = std::array::from_fn(|l| 1000 + l as u32);
    let d = dpp(0x153, 0xF, 0xF, false); // row_newbcast:3
    let (l, h, m) = d.fetch64(&lo, &hi, ALL);
    assert_eq!(m, ALL);
    for x in 0..64 {
        let src = (x & !15) + 3;
        assert_eq!((l[x], h[x]), (src as u32, 1000 + src as u32));
    }
}

/// The DPP model the lathe-cases crate documents for k_dpp.hip, written
/// again from its prose ("lane l reads lane src(l); if src(l) is outside the
/// row/wave, the lane is written with 0 when bound_ctrl is set and keeps old
/// otherwise; lanes whose row ... or bank ... is off are not written and keep
/// old") with the source-lane table of that crate's `src_lane`. All lanes
/// active, as in its kernels.
fn cases_model(ctrl: u16, old: &VReg, src: &VReg, rm: u8, bm: u8, bc: bool) -> VReg {
    std::array::from_fn(|l| {
        let (row, p) = (l & !15, l % 16);
        let sl = match ctrl {
            0..=0xFF => Some((l & !3) + ((ctrl as usize >> (2 * (l % 4))) & 3)),
            0x101..=0x10F => (p + (ctrl as usize & 15) < 16).then(|| l + (ctrl as usize & 15)),
            0x111..=0x11F => (p >= (ctrl as usize & 15)).then(|| l - (ctrl as usize & 15)),
            0x121..=0x12F => Some(row + (p + 16 - (ctrl as usize & 15)) % 16),
            0x130 => (l < 63).then_some(l + 1),
            0x134 => Some((l + 1) % 64),
            0x138 => (l > 0).then(|| l - 1),
            0x13C => Some((l + 63) % 64),
            0x140 => Some(row + 15 - p),
            0x141 => Some((l & !7) + 7 - l % 8),
            0x142 => (l >= 16).then(|| row - 1),
            0x143 => (l >= 32).then_some(31),
            _ => unreachable!(),
        };
        let enabled = rm >> (l / 16) & 1 == 1 && bm >> ((l % 16) / 4) & 1 == 1;
        match (enabled, sl) {
            (false, _) => old[l],
            (true, Some(s)) => src[s],
            (true, None) if bc => 0,
            (true, None) => old[l],
        }
    })
}

#[test]
fn agrees_with_the_cases_crate_model() {
    // Every GFX9 control the cases crate models, every row/bank mask pair,
    // both bound_ctrl values, pseudo-random data.
    let mut x = 0x1234_5678_u32;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let src: VReg = std::array::from_fn(|_| rnd());
    let old: VReg = std::array::from_fn(|l| 0xDEAD_0000 | l as u32);
    let ctrls = (0..0x100u16)
        .chain((1..16).flat_map(|n| [0x100 | n, 0x110 | n, 0x120 | n]))
        .chain([0x130, 0x134, 0x138, 0x13C, 0x140, 0x141, 0x142, 0x143]);
    for ctrl in ctrls {
        for rm in 0..16u8 {
            for bm in [0x0, 0x3, 0x5, 0xA, 0xF] {
                for bc in [false, true] {
                    let (got, _) = apply_dpp(&src, &old, ALL, &dpp(ctrl, rm, bm, bc));
                    assert_eq!(
                        got,
                        cases_model(ctrl, &old, &src, rm, bm, bc),
                        "ctrl {ctrl:#x} rm {rm:#x} bm {bm:#x} bc {bc}"
                    );
                }
            }
        }
    }
}

/// `v_add_u32_dpp vd, vs(dpp), vd` as the interpreter will run it.
fn add_dpp(v: &VReg, d: &Dpp) -> VReg {
    let (s0, m) = d.fetch(v, ALL);
    let sum: VReg = std::array::from_fn(|l| s0[l].wrapping_add(v[l]));
    let mut out = *v;
    write_masked(&mut out, &sum, m);
    out
}

#[test]
fn compiled_dpp_scan_is_a_wave_prefix_sum() {
    // clang-22 -O3 compiles dpp_scan_i32 (gfx90a and gfx942) to:
    //   v_add_u32_dpp v2, v2, v2 row_shr:{1,2,4,8} row_mask:0xf bank_mask:0xf bound_ctrl:1
    //   v_add_u32_dpp v2, v2, v2 row_bcast:15 row_mask:0xa bank_mask:0xf
    //   v_add_u32_dpp v2, v2, v2 row_bcast:31 row_mask:0xc bank_mask:0xf
    // (the DPP combiner folded `v + update_dpp(0, v, ...)` into the adds).
    let mut x = 99u32;
    let input: VReg = std::array::from_fn(|_| {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        x
    });
    let mut v = input;
    for n in [1u16, 2, 4, 8] {
        v = add_dpp(&v, &dpp(0x110 | n, 0xF, 0xF, true));
    }
    v = add_dpp(&v, &dpp(0x142, 0xA, 0xF, false));
    v = add_dpp(&v, &dpp(0x143, 0xC, 0xF, false));
    let mut acc = 0u32;
    for l in 0..64 {
        acc = acc.wrapping_add(input[l]);
        assert_eq!(v[l], acc, "lane {l}");
    }
}

#[test]
fn compiled_row_scan_f32_matches_the_reference_rounding() {
    // dpp_row_scan_f32: v_add_f32_dpp v2, v2, v2 row_shr:k ... bound_ctrl:1 for
    // k = 1, 2, 4, 8; the cases crate's reference adds x[l - k] or +0.0.
    let input: Vec<f32> = (0..64)
        .map(|l| ((l * 37 % 17) as f32 - 8.0) / 3.0)
        .collect();
    let mut v: VReg = std::array::from_fn(|l| input[l].to_bits());
    let mut r = input.clone();
    for k in [1usize, 2, 4, 8] {
        let (s0, m) = dpp(0x110 | k as u16, 0xF, 0xF, true).fetch(&v, ALL);
        assert_eq!(m, ALL);
        v = std::array::from_fn(|l| (f32::from_bits(s0[l]) + f32::from_bits(v[l])).to_bits());
        r = (0..64)
            .map(|l| r[l] + if l % 16 >= k { r[l - k] } else { 0.0 })
            .collect();
    }
    for l in 0..64 {
        assert_eq!(v[l], r[l].to_bits(), "lane {l}");
    }
}

//! MFMA/SMFMAC results against a plain matrix multiply: explicit matrices of
//! small integers (every summation order is exact), scattered into registers
//! with layout functions written here from the ISA guide's tables, for every
//! shape on every target, with CBSZ/ABID/BLGP and f64 negation; SMFMAC with
//! 2:4 sparse A and index sets; the documented rounding, denormal, NaN,
//! clamp and wrap behaviour; and the lane mappings of corpus/hip/k_mfma.hip.
#![allow(clippy::needless_range_loop)] // matrix indices

use lathe_emu::mfma::{mfma, smfmac, AccType, InType, MfmaError, Mods, Shape, Target, SHAPES};
use lathe_emu::wave::VReg;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

// ---- encoders (independent of the crate's decoders) -----------------------

fn f16_bits(n: i64) -> u64 {
    if n == 0 {
        return 0;
    }
    let (s, a) = (u64::from(n < 0) << 15, n.unsigned_abs());
    let e = 63 - a.leading_zeros() as u64;
    s | (e + 15) << 10 | ((a << 10 >> e) - 1024)
}

fn fnuz_bits(n: i64, mbits: u32, bias: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let (s, a) = (u64::from(n < 0) << 7, n.unsigned_abs());
    let e = 63 - a.leading_zeros() as u64;
    let m = (a << mbits >> e) - (1 << mbits);
    assert!(
        m < 1 << mbits && a << mbits >> e << e == a << mbits,
        "{n} not exact"
    );
    s | (e + bias) << mbits | m
}

/// Bits of the integer `n` in type `ty`.
fn enc(ty: InType, n: i64) -> u64 {
    match ty {
        InType::F32 | InType::Xf32 => u64::from((n as f32).to_bits()),
        InType::F16 => f16_bits(n),
        InType::Bf16 => u64::from((n as f32).to_bits() >> 16),
        InType::I8 => n as u8 as u64,
        InType::Fp8 => fnuz_bits(n, 3, 8),
        InType::Bf8 => fnuz_bits(n, 2, 16),
        // gfx950's OCP formats (checked in gfx950_mfma.rs).
        InType::Fp8Ocp => fnuz_bits(n, 3, 7),
        InType::Bf8Ocp => fnuz_bits(n, 2, 15),
        InType::Fp4 => {
            let x = fnuz_bits(n, 1, 1);
            x & 7 | x >> 7 << 3
        }
        InType::F64 => (n as f64).to_bits(),
    }
}

fn range(ty: InType) -> (i64, i64) {
    match ty {
        InType::I8 => (-128, 127),
        InType::F16 => (-4, 4),
        InType::F64 => (-100, 100),
        _ => (-8, 8),
    }
}

fn enc_acc(acc: AccType, n: i64) -> u64 {
    match acc {
        AccType::F32 => u64::from((n as f32).to_bits()),
        AccType::F64 => (n as f64).to_bits(),
        AccType::I32 => u64::from(n as i32 as u32),
    }
}

/// The accumulator value `v` (exact integer) as bits: wraps for i32.
fn want_acc(acc: AccType, v: i64) -> u64 {
    match acc {
        AccType::F32 => {
            assert!(v.abs() < 1 << 24);
            u64::from((v as f32).to_bits())
        }
        AccType::F64 => (v as f64).to_bits(),
        AccType::I32 => u64::from(v as i32 as u32),
    }
}

// ---- layouts written from the ISA guide (see mfma_layout.rs) ---------------

fn put(regs: &mut [VReg], reg: usize, lane: usize, shift: u32, bits: u32, v: u64) {
    if bits == 64 {
        regs[reg][lane] = v as u32;
        regs[reg + 1][lane] = (v >> 32) as u32;
    } else {
        let m = ((1u64 << bits) - 1) as u32;
        regs[reg][lane] = (regs[reg][lane] & !(m << shift)) | ((v as u32 & m) << shift);
    }
}

fn get(regs: &[VReg], reg: usize, lane: usize, shift: u32, bits: u32) -> u64 {
    if bits == 64 {
        u64::from(regs[reg][lane]) | u64::from(regs[reg + 1][lane]) << 32
    } else {
        (u64::from(regs[reg][lane]) >> shift) & ((1u64 << bits) - 1)
    }
}

fn loc_in(s: &Shape, ty: InType, b: usize, x: usize, k: usize) -> (usize, usize, u32) {
    if ty == InType::F64 {
        return (0, 16 * k + if s.blocks == 1 { 0 } else { 4 * b } + x, 0);
    }
    let (lane, e) = if s.m * s.blocks == 64 {
        (s.m * b + x, k)
    } else {
        let kl = s.k * s.m / 64;
        (s.m * (k / kl) + x, k % kl)
    };
    let bits = ty.bits() as usize;
    ((e * bits) / 32, lane, ((e * bits) % 32) as u32)
}

fn loc_cd(s: &Shape, b: usize, i: usize, j: usize) -> (usize, usize) {
    match (s.acc, s.m) {
        (AccType::F64, 16) => (2 * (i / 4), 16 * (i % 4) + j),
        (AccType::F64, 4) => (0, 16 * i + 4 * b + j),
        (_, 32) => (16 * b + 4 * (i / 8) + i % 4, 32 * ((i / 4) % 2) + j),
        (_, 16) => (4 * b + i % 4, 16 * (i / 4) + j),
        _ => (i, 4 * b + j),
    }
}

/// Explicit matrices of one problem: a[b][i][k], b[b][k][j], c[b][i][j].
struct Problem {
    a: Vec<Vec<Vec<i64>>>,
    b: Vec<Vec<Vec<i64>>>,
    c: Vec<Vec<Vec<i64>>>,
}

fn problem(s: &Shape, r: &mut Rng) -> Problem {
    let (alo, ahi) = range(s.a);
    let (blo, bhi) = range(s.b);
    let (clo, chi) = match s.acc {
        AccType::I32 => (i64::from(i32::MIN), i64::from(i32::MAX)),
        AccType::F32 => (-1000, 1000),
        AccType::F64 => (-10000, 10000),
    };
    let mat = |r: &mut Rng, rows, cols, lo, hi| -> Vec<Vec<Vec<i64>>> {
        (0..s.blocks)
            .map(|_| {
                (0..rows)
                    .map(|_| (0..cols).map(|_| r.int(lo, hi)).collect())
                    .collect()
            })
            .collect()
    };
    Problem {
        a: mat(r, s.m, s.k, alo, ahi),
        b: mat(r, s.k, s.n, blo, bhi),
        c: mat(r, s.m, s.n, clo, chi),
    }
}

fn scatter(s: &Shape, p: &Problem) -> (Vec<VReg>, Vec<VReg>, Vec<VReg>) {
    let mut a = vec![[0u32; 64]; s.a_regs()];
    let mut b = vec![[0u32; 64]; s.b_regs()];
    let mut c = vec![[0u32; 64]; s.cd_regs()];
    for blk in 0..s.blocks {
        for i in 0..s.m {
            for k in 0..s.k {
                let (reg, lane, sh) = loc_in(s, s.a, blk, i, k);
                put(&mut a, reg, lane, sh, s.a.bits(), enc(s.a, p.a[blk][i][k]));
                let (reg, lane, sh) = loc_in(s, s.b, blk, i, k);
                put(&mut b, reg, lane, sh, s.b.bits(), enc(s.b, p.b[blk][k][i]));
            }
            for j in 0..s.n {
                let (reg, lane) = loc_cd(s, blk, i, j);
                put(
                    &mut c,
                    reg,
                    lane,
                    0,
                    s.acc.bits(),
                    enc_acc(s.acc, p.c[blk][i][j]),
                );
            }
        }
    }
    (a, b, c)
}

/// D = C + A[src_block(b)] · B'[b] with B' = `bsel(b, k, j)`.
fn reference(
    s: &Shape,
    p: &Problem,
    src_block: impl Fn(usize) -> usize,
    bsel: impl Fn(usize, usize, usize) -> i64,
    neg: [bool; 3],
) -> Vec<Vec<Vec<i64>>> {
    let sg = |n: bool, v: i64| if n { -v } else { v };
    (0..s.blocks)
        .map(|blk| {
            (0..s.m)
                .map(|i| {
                    (0..s.n)
                        .map(|j| {
                            let mut acc = sg(neg[2], p.c[blk][i][j]);
                            for k in 0..s.k {
                                acc += sg(neg[0], p.a[src_block(blk)][i][k])
                                    * sg(neg[1], bsel(blk, k, j));
                            }
                            acc
                        })
                        .collect()
                })
                .collect()
        })
        .collect()
}

fn check(s: &Shape, d: &[VReg], want: &[Vec<Vec<i64>>], what: &str) {
    assert_eq!(d.len(), s.cd_regs());
    for blk in 0..s.blocks {
        for i in 0..s.m {
            for j in 0..s.n {
                let (reg, lane) = loc_cd(s, blk, i, j);
                assert_eq!(
                    get(d, reg, lane, 0, s.acc.bits()),
                    want_acc(s.acc, want[blk][i][j]),
                    "{} {what}: D[{blk}][{i}][{j}]",
                    s.name()
                );
            }
        }
    }
}

fn targets(s: &Shape) -> Vec<Target> {
    [Target::Gfx90a, Target::Gfx942]
        .into_iter()
        .filter(|t| s.variant(*t).is_some())
        .collect()
}

#[test]
fn every_dense_shape_against_a_reference_gemm() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let mut n = 0;
    for s in SHAPES.iter().filter(|s| !s.sparse) {
        for t in targets(s) {
            for _ in 0..3 {
                let p = problem(s, &mut r);
                let (a, b, c) = scatter(s, &p);
                let d = mfma(s, t, &a, &b, &c, &Mods::default()).expect("mfma");
                let want = reference(s, &p, |b| b, |b, k, j| p.b[b][k][j], [false; 3]);
                check(s, &d, &want, &format!("{t}"));
                n += 1;
            }
        }
    }
    let variants: usize = SHAPES
        .iter()
        .filter(|s| !s.sparse)
        .map(|s| targets(s).len())
        .sum();
    assert_eq!(n, 3 * variants);
    assert_eq!(variants, 59);
}

#[test]
fn cbsz_abid_broadcast_neighbouring_blocks() {
    let mut r = Rng(77);
    let mut n = 0;
    for s in SHAPES.iter().filter(|s| s.broadcast) {
        let t = targets(s)[0];
        let p = problem(s, &mut r);
        let (a, b, c) = scatter(s, &p);
        let log2 = s.blocks.trailing_zeros() as u8;
        for cbsz in 0..=log2 {
            for abid in 0..1u8 << cbsz {
                let mods = Mods {
                    cbsz,
                    abid,
                    ..Mods::default()
                };
                let d = mfma(s, t, &a, &b, &c, &mods).expect("mfma");
                let g = 1usize << cbsz;
                let want = reference(
                    s,
                    &p,
                    |b| b / g * g + abid as usize,
                    |b, k, j| p.b[b][k][j],
                    [false; 3],
                );
                check(s, &d, &want, &format!("cbsz {cbsz} abid {abid}"));
                n += 1;
            }
            // abid out of the group: rejected.
            let bad = Mods {
                cbsz,
                abid: 1 << cbsz,
                ..Mods::default()
            };
            assert!(matches!(
                mfma(s, t, &a, &b, &c, &bad),
                Err(MfmaError::Broadcast { .. })
            ));
        }
        let too_big = Mods {
            cbsz: log2 + 1,
            ..Mods::default()
        };
        let err = mfma(s, t, &a, &b, &c, &too_big).expect_err("cbsz too big");
        assert!(
            matches!(err, MfmaError::Broadcast { cbsz, abid: 0, .. } if cbsz == log2 + 1),
            "{err}"
        );
    }
    assert!(n > 100);
    // Single-block shapes take no broadcast.
    let s = Shape::find(Target::Gfx90a, "v_mfma_f32_16x16x4f32").expect("shape");
    let (a, b, c) = scatter(s, &problem(s, &mut r));
    let m = Mods {
        cbsz: 1,
        ..Mods::default()
    };
    assert!(matches!(
        mfma(s, Target::Gfx90a, &a, &b, &c, &m),
        Err(MfmaError::Broadcast { .. })
    ));
}

/// The lane B data is fetched from under BLGP, from the ISA guide's table.
fn blgp_src(blgp: u8, l: usize) -> usize {
    match blgp {
        0 => l,
        1 => l % 32,
        2 => l % 32 + 32,
        3 => (l + 16) % 64,
        4 => l % 16,
        5 => l % 16 + 16,
        6 => l % 16 + 32,
        _ => l % 16 + 48,
    }
}

#[test]
fn blgp_lane_patterns() {
    let mut r = Rng(4242);
    let mut n = 0;
    for s in SHAPES.iter().filter(|s| s.acc != AccType::F64 && !s.sparse) {
        for t in targets(s) {
            let use_ = s.variant(t).expect("v").blgp;
            let p = problem(s, &mut r);
            let (a, b, c) = scatter(s, &p);
            for blgp in 1..8u8 {
                let mods = Mods {
                    blgp,
                    ..Mods::default()
                };
                let got = mfma(s, t, &a, &b, &c, &mods);
                if use_ != lathe_emu::mfma::BlgpUse::LaneGroups {
                    assert!(
                        matches!(got, Err(MfmaError::Blgp { .. })),
                        "{} {t}",
                        s.name()
                    );
                    continue;
                }
                // B'[b][k][j] is whatever sits in the remapped lane, same item.
                let bsel = |blk, k, j| {
                    let (reg, lane, sh) = loc_in(s, s.b, blk, j, k);
                    let raw = get(&b, reg, blgp_src(blgp, lane), sh, s.b.bits());
                    (0..s.blocks)
                        .flat_map(|bb| {
                            (0..s.k).flat_map(move |kk| (0..s.n).map(move |jj| (bb, kk, jj)))
                        })
                        .find(|&(bb, kk, jj)| {
                            let (r2, l2, s2) = loc_in(s, s.b, bb, jj, kk);
                            (r2, l2, s2) == (reg, blgp_src(blgp, lane), sh)
                        })
                        .map(|(bb, kk, jj)| p.b[bb][kk][jj])
                        .inspect(|&v| assert_eq!(enc(s.b, v), raw))
                        .expect("source element")
                };
                let want = reference(s, &p, |b| b, bsel, [false; 3]);
                check(s, &got.expect("mfma"), &want, &format!("{t} blgp {blgp}"));
                n += 1;
            }
        }
    }
    assert!(n > 150);
}

#[test]
fn blgp_hand_examples() {
    // v_mfma_f32_16x16x1f32 (4 blocks of 16 lanes): blgp 4 makes every block
    // multiply by block 0's B; blgp 3 makes block b use block (b+1)%4's B.
    let s = Shape::find(Target::Gfx90a, "v_mfma_f32_16x16x1f32").expect("shape");
    let mut r = Rng(5);
    let p = problem(s, &mut r);
    let (a, b, c) = scatter(s, &p);
    for (blgp, from) in [
        (4u8, [0, 0, 0, 0]),
        (3, [1, 2, 3, 0]),
        (1, [0, 1, 0, 1]),
        (7, [3, 3, 3, 3]),
    ] {
        let m = Mods {
            blgp,
            ..Mods::default()
        };
        let d = mfma(s, Target::Gfx90a, &a, &b, &c, &m).expect("mfma");
        let want = reference(s, &p, |b| b, |b, k, j| p.b[from[b]][k][j], [false; 3]);
        check(s, &d, &want, &format!("blgp {blgp}"));
    }
}

#[test]
fn f64_negation_on_gfx942_only() {
    let mut r = Rng(64);
    for name in ["v_mfma_f64_16x16x4_f64", "v_mfma_f64_4x4x4_4b_f64"] {
        let s = Shape::find(Target::Gfx942, name).expect("shape");
        let p = problem(s, &mut r);
        let (a, b, c) = scatter(s, &p);
        for blgp in 0..8u8 {
            let m = Mods {
                blgp,
                // Ignored by the f64 shapes.
                cbsz: 3,
                abid: 5,
                ..Mods::default()
            };
            let d = mfma(s, Target::Gfx942, &a, &b, &c, &m).expect("mfma");
            let neg = [blgp & 1 != 0, blgp & 2 != 0, blgp & 4 != 0];
            let want = reference(s, &p, |b| b, |b, k, j| p.b[b][k][j], neg);
            check(s, &d, &want, &format!("neg {blgp:03b}"));
            let g90 = mfma(s, Target::Gfx90a, &a, &b, &c, &m);
            if blgp == 0 {
                assert!(g90.is_ok());
            } else {
                assert!(matches!(g90, Err(MfmaError::Blgp { .. })));
            }
        }
    }
}

#[test]
fn operand_checks() {
    let s = Shape::find(Target::Gfx942, "v_mfma_f32_32x32x8_f16").expect("shape");
    let r2 = vec![[0u32; 64]; 2];
    let r16 = vec![[0u32; 64]; 16];
    let m = Mods::default();
    assert!(mfma(s, Target::Gfx942, &r2, &r2, &r16, &m).is_ok());
    assert!(matches!(
        mfma(s, Target::Gfx942, &r2[..1], &r2, &r16, &m),
        Err(MfmaError::Registers {
            operand: "A",
            need: 2,
            got: 1,
            ..
        })
    ));
    assert!(matches!(
        mfma(s, Target::Gfx942, &r2, &r2, &r2, &m),
        Err(MfmaError::Registers { operand: "C", .. })
    ));
    let x = Shape::find(Target::Gfx942, "v_mfma_f32_16x16x8_xf32").expect("shape");
    assert!(matches!(
        mfma(x, Target::Gfx90a, &r2, &r2, &r16[..4], &m),
        Err(MfmaError::Unavailable { .. })
    ));
    let sp = Shape::find(Target::Gfx942, "v_smfmac_f32_16x16x32_f16").expect("shape");
    assert!(matches!(
        mfma(sp, Target::Gfx942, &r2, &r16[..4], &r16[..4], &m),
        Err(MfmaError::Kind { .. })
    ));
    assert!(matches!(
        smfmac(s, Target::Gfx942, &r2, &r2, &r2[0], &r16, &m),
        Err(MfmaError::Kind { .. })
    ));
}

// ---- SMFMAC -----------------------------------------------------------------

#[test]
fn smfmac_against_dense_reference() {
    let mut r = Rng(31337);
    for s in SHAPES.iter().filter(|s| s.sparse) {
        // gfx942's rows on gfx942, gfx950's OCP fp8/bf8 rows on gfx950.
        let t = [Target::Gfx942, Target::Gfx950]
            .into_iter()
            .find(|&t| s.variant(t).is_some())
            .expect("an SMFMAC row runs somewhere");
        let kl = s.k * s.m / 64;
        for (cbsz, abid) in [(0u8, 0u8), (0, 1), (0, 3), (1, 2), (2, 1)] {
            let sets = if s.a.bits() == 16 { 4 } else { 2 };
            let set = if cbsz & 3 == 0 {
                abid as usize % sets
            } else {
                0
            };
            // Dense A with two non-zeros per group of four, in positions p0 < p1.
            let (lo, hi) = range(s.a);
            let mut dense = vec![vec![0i64; s.k]; s.m];
            let mut a = vec![[0u32; 64]; s.a_regs()];
            // Fill every index set with garbage first; the right one is
            // overwritten below.
            let mut idx: VReg = std::array::from_fn(|_| r.next() as u32);
            for i in 0..s.m {
                for g in 0..s.k / 4 {
                    let p0 = r.int(0, 2) as usize;
                    let p1 = r.int(p0 as i64 + 1, 3) as usize;
                    let lane = i + s.m * (4 * g / kl);
                    let lg = g % (kl / 4);
                    for (which, pos) in [(0usize, p0), (1, p1)] {
                        let v = r.int(lo, hi);
                        dense[i][4 * g + pos] = v;
                        let (reg, sh) = if s.a.bits() == 16 {
                            (lg, 16 * which as u32)
                        } else {
                            (lg / 2, 16 * (lg % 2) as u32 + 8 * which as u32)
                        };
                        put(&mut a, reg, lane, sh, s.a.bits(), enc(s.a, v));
                        let ish = (set * kl + 4 * lg + 2 * which) as u32;
                        idx[lane] = (idx[lane] & !(3 << ish)) | (pos as u32) << ish;
                    }
                }
            }
            let p = Problem {
                a: vec![dense],
                b: problem(s, &mut r).b,
                c: problem(s, &mut r).c,
            };
            let (_, b, c) = scatter_bc(s, &p);
            let m = Mods {
                cbsz,
                abid,
                ..Mods::default()
            };
            let d = smfmac(s, t, &a, &b, &idx, &c, &m).expect("smfmac");
            let want = reference(s, &p, |b| b, |b, k, j| p.b[b][k][j], [false; 3]);
            check(s, &d, &want, &format!("cbsz {cbsz} abid {abid}"));
        }
        // BLGP is not an SMFMAC modifier.
        let z = vec![[0u32; 64]; 4];
        let m = Mods {
            blgp: 1,
            ..Mods::default()
        };
        let c = vec![[0u32; 64]; s.cd_regs()];
        let err = smfmac(s, t, &z[..2], &z, &z[0], &c, &m).expect_err("blgp");
        assert!(
            matches!(
                err,
                MfmaError::Blgp {
                    blgp: 1,
                    target,
                    ..
                } if target == t
            ),
            "{err}"
        );
        // SMFMAC is new in gfx940.
        let err = smfmac(s, Target::Gfx90a, &z[..2], &z, &z[0], &c, &Mods::default())
            .expect_err("no SMFMAC on gfx90a");
        assert!(
            matches!(
                err,
                MfmaError::Unavailable {
                    target: Target::Gfx90a,
                    ..
                }
            ),
            "{err}"
        );
    }
}

/// B and C of a problem in registers (A is built separately for SMFMAC).
fn scatter_bc(s: &Shape, p: &Problem) -> ((), Vec<VReg>, Vec<VReg>) {
    let mut b = vec![[0u32; 64]; s.b_regs()];
    let mut c = vec![[0u32; 64]; s.cd_regs()];
    for j in 0..s.n {
        for k in 0..s.k {
            let (reg, lane, sh) = loc_in(s, s.b, 0, j, k);
            put(&mut b, reg, lane, sh, s.b.bits(), enc(s.b, p.b[0][k][j]));
        }
        for i in 0..s.m {
            let (reg, lane) = loc_cd(s, 0, i, j);
            put(
                &mut c,
                reg,
                lane,
                0,
                s.acc.bits(),
                enc_acc(s.acc, p.c[0][i][j]),
            );
        }
    }
    ((), b, c)
}

// ---- numerics ----------------------------------------------------------------

/// 16x16x4f32 (gfx90a) with A column k = `a[k]` in every row, B row k = `b[k]`
/// in every column and C = `c`; returns D[0][0].
fn f32_dot(a: [f32; 4], b: [f32; 4], c: f32, mods: &Mods) -> f32 {
    let s = Shape::find(Target::Gfx90a, "v_mfma_f32_16x16x4f32").expect("shape");
    let ra: Vec<VReg> = vec![std::array::from_fn(|l| a[l / 16].to_bits())];
    let rb: Vec<VReg> = vec![std::array::from_fn(|l| b[l / 16].to_bits())];
    let rc = vec![[c.to_bits(); 64]; 4];
    let d = mfma(s, Target::Gfx90a, &ra, &rb, &rc, mods).expect("mfma");
    // Every element is the same.
    assert!(d.iter().all(|r| r.iter().all(|&x| x == d[0][0])));
    f32::from_bits(d[0][0])
}

#[test]
fn documented_summation_order_and_rounding() {
    let m = Mods::default();
    // acc = fma(a_k, b_k, acc) in k order from C: 1 + 2^24 rounds to 2^24
    // (nearest-even), then - 2^24 gives 0; the exact sum is 1.
    let big = 16_777_216.0f32;
    assert_eq!(
        f32_dot([1.0, -1.0, 0.0, 0.0], [big, big, 0.0, 0.0], 1.0, &m),
        0.0
    );
    // Reversing the k order changes the result: (1 - 2^24) + 2^24 = 1 exactly?
    // 1 - 2^24 = -16777215 is representable, so the result is 1.
    assert_eq!(
        f32_dot([-1.0, 1.0, 0.0, 0.0], [big, big, 0.0, 0.0], 1.0, &m),
        1.0
    );
    // Each step is one fused rounding: 1 + 3·2^-24 is not representable;
    // fma(1+2^-23, 1+2^-23, 0) rounds once.
    let x = 1.0 + f32::EPSILON;
    let want = x.mul_add(x, 0.0);
    assert_eq!(
        f32_dot([x, 0.0, 0.0, 0.0], [x, 0.0, 0.0, 0.0], 0.0, &m),
        want
    );
}

#[test]
fn denormals_nan_and_clamp() {
    let m = Mods::default();
    let tiny = f32::from_bits(1); // smallest subnormal
                                  // Subnormal f32 inputs are used as they are, and a subnormal result stays.
    assert_eq!(
        f32_dot([tiny, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], 0.0, &m),
        tiny
    );
    // ... unless MODE flushes f32 input denormals.
    let flush = Mods {
        flush_f32_input_denorms: true,
        ..Mods::default()
    };
    assert_eq!(
        f32_dot([tiny, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], 0.0, &flush),
        0.0
    );
    // C is never flushed.
    assert_eq!(f32_dot([0.0; 4], [0.0; 4], tiny, &flush), tiny);
    // NaN comes out as the canonical quiet NaN.
    let nan = f32::from_bits(0x7FA0_0001);
    let d = f32_dot([nan, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], 0.0, &m);
    assert_eq!(d.to_bits(), 0x7FC0_0000);
    assert!(f32_dot([f32::INFINITY, 0.0, 0.0, 0.0], [0.0; 4], 0.0, &m).is_nan());
    // Overflow: +inf, or +MAX with clamp; an infinite input stays infinite.
    let huge = f32::MAX;
    assert_eq!(
        f32_dot([huge, huge, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], 0.0, &m),
        f32::INFINITY
    );
    let clamp = Mods {
        clamp: true,
        ..Mods::default()
    };
    assert_eq!(
        f32_dot([huge, huge, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], 0.0, &clamp),
        f32::MAX
    );
    assert_eq!(
        f32_dot([-huge, -huge, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], 0.0, &clamp),
        -f32::MAX
    );
    assert_eq!(
        f32_dot(
            [f32::INFINITY, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
            0.0,
            &clamp
        ),
        f32::INFINITY
    );
}

#[test]
fn f16_subnormals_are_kept() {
    // v_mfma_f32_4x4x4f16 block 0, row 0 x column 0: 2^-24 (the smallest f16
    // subnormal, 0x0001) times 2^-24 is 2^-48, a normal f32.
    let s = Shape::find(Target::Gfx90a, "v_mfma_f32_4x4x4f16").expect("shape");
    let mut a = vec![[0u32; 64]; 2];
    let mut b = vec![[0u32; 64]; 2];
    a[0][0] = 0x0001;
    b[0][0] = 0x0001;
    let c = vec![[0u32; 64]; 4];
    let d = mfma(s, Target::Gfx90a, &a, &b, &c, &Mods::default()).expect("mfma");
    assert_eq!(f32::from_bits(d[0][0]), 2f32.powi(-48));
}

#[test]
fn i8_wraps_or_saturates() {
    // v_mfma_i32_4x4x4i8: C = i32::MAX, one product 127 * 127.
    let s = Shape::find(Target::Gfx90a, "v_mfma_i32_4x4x4i8").expect("shape");
    let a = vec![[127u32; 64]];
    let b = vec![[127u32; 64]];
    let c = vec![[i32::MAX as u32; 64]; 4];
    let d = mfma(s, Target::Gfx90a, &a, &b, &c, &Mods::default()).expect("mfma");
    assert_eq!(d[0][0] as i32, i32::MAX.wrapping_add(127 * 127));
    let clamp = Mods {
        clamp: true,
        ..Mods::default()
    };
    let d = mfma(s, Target::Gfx90a, &a, &b, &c, &clamp).expect("mfma");
    assert_eq!(d[0][0] as i32, i32::MAX);
    // Signed bytes: 0x80 * 0x80 = 16384 each, four of them.
    let a = vec![[0x8080_8080u32; 64]];
    let c = vec![[0u32; 64]; 4];
    let d = mfma(s, Target::Gfx90a, &a, &a, &c, &Mods::default()).expect("mfma");
    assert_eq!(d[3][63] as i32, 4 * 16384);
}

#[test]
fn fp8_bf8_and_xf32_inputs() {
    // 16x16x32_fp8_fp8 with one non-zero product per output: decode checks.
    let s = Shape::find(Target::Gfx942, "v_mfma_f32_16x16x32_fp8_fp8").expect("shape");
    let one = |av: u8, bv: u8| {
        let mut a = vec![[0u32; 64]; 2];
        let mut b = vec![[0u32; 64]; 2];
        a[0][0] = u32::from(av);
        b[0][0] = u32::from(bv);
        let c = vec![[0u32; 64]; 4];
        f32::from_bits(mfma(s, Target::Gfx942, &a, &b, &c, &Mods::default()).expect("mfma")[0][0])
    };
    let fp8_one = 0x40; // exponent 8 = bias: 1.0
    assert_eq!(one(0x7F, fp8_one), 240.0, "fp8 max (FNUZ)");
    assert_eq!(one(0x01, fp8_one), 2f32.powi(-10), "fp8 smallest subnormal");
    assert_eq!(one(0xC4, fp8_one), -1.5);
    assert_eq!(one(0xCC, fp8_one), -3.0);
    assert!(one(0x80, fp8_one).is_nan(), "0x80 is NaN");
    assert_eq!(one(0x00, 0x80).to_bits(), 0x7FC0_0000);
    let s = Shape::find(Target::Gfx942, "v_mfma_f32_16x16x32_bf8_bf8").expect("shape");
    let one = |av: u8, bv: u8| {
        let mut a = vec![[0u32; 64]; 2];
        let mut b = vec![[0u32; 64]; 2];
        a[0][0] = u32::from(av);
        b[0][0] = u32::from(bv);
        let c = vec![[0u32; 64]; 4];
        f32::from_bits(mfma(s, Target::Gfx942, &a, &b, &c, &Mods::default()).expect("mfma")[0][0])
    };
    let bf8_one = 0x40; // exponent 16 = bias
    assert_eq!(one(0x7F, bf8_one), 57344.0, "bf8 max (FNUZ)");
    assert_eq!(one(0x01, bf8_one), 2f32.powi(-17));
    assert_eq!(one(0x01, 0x01), 2f32.powi(-34));
    // xf32: inputs keep 10 mantissa bits, nearest-even.
    let s = Shape::find(Target::Gfx942, "v_mfma_f32_16x16x8_xf32").expect("shape");
    let x = |v: f32| {
        let mut a = vec![[0u32; 64]; 2];
        let mut b = vec![[0u32; 64]; 2];
        a[0][0] = v.to_bits();
        b[0][0] = 1f32.to_bits();
        let c = vec![[0u32; 64]; 4];
        f32::from_bits(mfma(s, Target::Gfx942, &a, &b, &c, &Mods::default()).expect("mfma")[0][0])
    };
    assert_eq!(x(1.0 + 2f32.powi(-10)), 1.0 + 2f32.powi(-10));
    assert_eq!(x(1.0 + 2f32.powi(-11)), 1.0, "tie to even");
    assert_eq!(
        x(1.0 + 3.0 * 2f32.powi(-11)),
        1.0 + 2f32.powi(-9),
        "tie to even, up"
    );
    assert_eq!(
        x(1.0 + 2f32.powi(-11) + 2f32.powi(-20)),
        1.0 + 2f32.powi(-10)
    );
}

// ---- the lane mappings corpus/hip/k_mfma.hip assumes --------------------------

fn gemm(a: &[i64], b: &[i64], c: &[i64], m: usize, n: usize, k: usize) -> Vec<i64> {
    let mut d = c.to_vec();
    for i in 0..m {
        for j in 0..n {
            for x in 0..k {
                d[i * n + j] += a[i * k + x] * b[x * n + j];
            }
        }
    }
    d
}

#[test]
fn k_mfma_kernels() {
    let mut r = Rng(0x3F3A);
    for t in [Target::Gfx90a, Target::Gfx942] {
        // mfma_f32_16x16x4f32_gemm: 16x16 (K = 16) as four 16x16x4f32 steps.
        let a: Vec<i64> = (0..256).map(|_| r.int(-8, 8)).collect();
        let b: Vec<i64> = (0..256).map(|_| r.int(-8, 8)).collect();
        let c: Vec<i64> = (0..256).map(|_| r.int(-100, 100)).collect();
        let s = Shape::find(t, "v_mfma_f32_16x16x4f32").expect("shape");
        let f = |v: i64| (v as f32).to_bits();
        let mut acc: Vec<VReg> = (0..4)
            .map(|v| std::array::from_fn(|l| f(c[(4 * (l / 16) + v) * 16 + l % 16])))
            .collect();
        for kb in 0..4 {
            let ra = vec![std::array::from_fn(|l| {
                f(a[(l % 16) * 16 + kb * 4 + l / 16])
            })];
            let rb = vec![std::array::from_fn(|l| {
                f(b[(kb * 4 + l / 16) * 16 + l % 16])
            })];
            acc = mfma(s, t, &ra, &rb, &acc, &Mods::default()).expect("mfma");
        }
        let want = gemm(&a, &b, &c, 16, 16, 16);
        for l in 0..64 {
            for v in 0..4 {
                assert_eq!(acc[v][l], f(want[(4 * (l / 16) + v) * 16 + l % 16]));
            }
        }

        // mfma_f32_32x32x8f16_gemm: 32x32x32 as four 32x32x8f16 steps.
        let a: Vec<i64> = (0..1024).map(|_| r.int(-4, 4)).collect();
        let b: Vec<i64> = (0..1024).map(|_| r.int(-4, 4)).collect();
        let s = Shape::find(t, "v_mfma_f32_32x32x8f16").expect("shape");
        let h = |v: i64| f16_bits(v) as u32;
        let mut acc = vec![[0u32; 64]; 16];
        for kb in 0..4 {
            let pack = |m: &dyn Fn(usize, usize) -> i64| -> Vec<VReg> {
                (0..2)
                    .map(|reg| {
                        std::array::from_fn(|l| h(m(l, 2 * reg)) | h(m(l, 2 * reg + 1)) << 16)
                    })
                    .collect()
            };
            let ra = pack(&|l, v| a[(l % 32) * 32 + kb * 8 + 4 * (l / 32) + v]);
            let rb = pack(&|l, v| b[(kb * 8 + 4 * (l / 32) + v) * 32 + l % 32]);
            acc = mfma(s, t, &ra, &rb, &acc, &Mods::default()).expect("mfma");
        }
        let want = gemm(&a, &b, &vec![0; 1024], 32, 32, 32);
        for l in 0..64 {
            for v in 0..16 {
                let row = 8 * (v / 4) + 4 * (l / 32) + v % 4;
                assert_eq!(acc[v][l], f(want[row * 32 + l % 32]));
            }
        }

        // mfma_f64_16x16x4f64_gemm: register v, lane group q hold row 4v + q.
        let a: Vec<i64> = (0..256).map(|_| r.int(-100, 100)).collect();
        let b: Vec<i64> = (0..256).map(|_| r.int(-100, 100)).collect();
        let c: Vec<i64> = (0..256).map(|_| r.int(-10000, 10000)).collect();
        let s = Shape::find(t, "v_mfma_f64_16x16x4f64").expect("shape");
        let split = |vals: &dyn Fn(usize) -> i64| -> [VReg; 2] {
            [
                std::array::from_fn(|l| (vals(l) as f64).to_bits() as u32),
                std::array::from_fn(|l| ((vals(l) as f64).to_bits() >> 32) as u32),
            ]
        };
        let mut acc: Vec<VReg> = (0..4)
            .flat_map(|v| split(&|l| c[(4 * v + l / 16) * 16 + l % 16]))
            .collect();
        for kb in 0..4 {
            let ra = split(&|l| a[(l % 16) * 16 + kb * 4 + l / 16]).to_vec();
            let rb = split(&|l| b[(kb * 4 + l / 16) * 16 + l % 16]).to_vec();
            acc = mfma(s, t, &ra, &rb, &acc, &Mods::default()).expect("mfma");
        }
        let want = gemm(&a, &b, &c, 16, 16, 16);
        for l in 0..64 {
            for v in 0..4 {
                let got = u64::from(acc[2 * v][l]) | u64::from(acc[2 * v + 1][l]) << 32;
                assert_eq!(got, (want[(4 * v + l / 16) * 16 + l % 16] as f64).to_bits());
            }
        }

        // mfma_i8_gemm: 16x16 = 16x32 · 32x16 + C. gfx90a: two 16x16x16i8
        // (k = 16s + 4q + e); gfx942: one 16x16x32_i8 (k = 8q + e).
        let a: Vec<i64> = (0..512).map(|_| r.int(-128, 127)).collect();
        let b: Vec<i64> = (0..512).map(|_| r.int(-128, 127)).collect();
        let c: Vec<i64> = (0..256).map(|_| r.int(-(1 << 27), 1 << 27)).collect();
        let mut acc: Vec<VReg> = (0..4)
            .map(|v| std::array::from_fn(|l| c[(4 * (l / 16) + v) * 16 + l % 16] as i32 as u32))
            .collect();
        let byte = |v: i64, e: usize| (v as u8 as u32) << (8 * e);
        if t == Target::Gfx90a {
            let s = Shape::find(t, "v_mfma_i32_16x16x16i8").expect("shape");
            for st in 0..2 {
                let ra = vec![std::array::from_fn(|l| {
                    (0..4).fold(0, |w, e| {
                        w | byte(a[(l % 16) * 32 + 16 * st + 4 * (l / 16) + e], e)
                    })
                })];
                let rb = vec![std::array::from_fn(|l| {
                    (0..4).fold(0, |w, e| {
                        w | byte(b[(16 * st + 4 * (l / 16) + e) * 16 + l % 16], e)
                    })
                })];
                acc = mfma(s, t, &ra, &rb, &acc, &Mods::default()).expect("mfma");
            }
        } else {
            let s = Shape::find(t, "v_mfma_i32_16x16x32_i8").expect("shape");
            let two = |m: &dyn Fn(usize, usize) -> i64| -> Vec<VReg> {
                (0..2)
                    .map(|reg| {
                        std::array::from_fn(|l| {
                            (0..4).fold(0, |w, e| w | byte(m(l, 4 * reg + e), e))
                        })
                    })
                    .collect()
            };
            let ra = two(&|l, e| a[(l % 16) * 32 + 8 * (l / 16) + e]);
            let rb = two(&|l, e| b[(8 * (l / 16) + e) * 16 + l % 16]);
            acc = mfma(s, t, &ra, &rb, &acc, &Mods::default()).expect("mfma");
        }
        let want = gemm(&a, &b, &c, 16, 16, 32);
        for l in 0..64 {
            for v in 0..4 {
                assert_eq!(
                    acc[v][l] as i32,
                    want[(4 * (l / 16) + v) * 16 + l % 16] as i32
                );
            }
        }

        // mfma_bf16_gemm: two 16x16x16bf16_1k steps (k = 16s + 4q + v).
        let a: Vec<i64> = (0..512).map(|_| r.int(-8, 8)).collect();
        let b: Vec<i64> = (0..512).map(|_| r.int(-8, 8)).collect();
        let s = Shape::find(t, "v_mfma_f32_16x16x16bf16_1k").expect("shape");
        let bf = |v: i64| (v as f32).to_bits() >> 16;
        let mut acc = vec![[0u32; 64]; 4];
        for st in 0..2 {
            let pack = |m: &dyn Fn(usize, usize) -> i64| -> Vec<VReg> {
                (0..2)
                    .map(|reg| {
                        std::array::from_fn(|l| bf(m(l, 2 * reg)) | bf(m(l, 2 * reg + 1)) << 16)
                    })
                    .collect()
            };
            let ra = pack(&|l, v| a[(l % 16) * 32 + 16 * st + 4 * (l / 16) + v]);
            let rb = pack(&|l, v| b[(16 * st + 4 * (l / 16) + v) * 16 + l % 16]);
            acc = mfma(s, t, &ra, &rb, &acc, &Mods::default()).expect("mfma");
        }
        let want = gemm(&a, &b, &vec![0; 256], 16, 16, 32);
        for l in 0..64 {
            for v in 0..4 {
                assert_eq!(acc[v][l], f(want[(4 * (l / 16) + v) * 16 + l % 16]));
            }
        }
    }
}

//! The table of MFMA/SMFMAC instructions on gfx90a, gfx942 and gfx950.
//!
//! One row per distinct operation; an operation both targets have (same
//! shape, types and layout) is one row with a variant per target, since the
//! mnemonics and opcodes differ (`v_mfma_f32_32x32x1f32` on gfx90a is
//! `v_mfma_f32_32x32x1_2b_f32`, opcode 0x40 on both;
//! `v_mfma_f32_16x16x16bf16_1k` is opcode 0x67 on gfx90a and
//! `v_mfma_f32_16x16x16_bf16`, opcode 0x61, on gfx942).
//!
//! Mnemonics and VOP3P-MAI opcodes (bits 22:16 of the first dword) are as
//! LLVM 22's assembler encodes and its disassembler prints them. Dimensions,
//! register counts and modifier support follow AMD's CDNA2/CDNA3 ISA guides
//! and AMD's matrix instruction calculator: BLGP as a lane pattern is
//! accepted by every non-f64 MFMA on gfx90a but on gfx942 only by the
//! multi-block shapes and the two f32 K-split shapes; on gfx942 the f64
//! shapes use BLGP as negate bits; CBSZ/ABID broadcast exists for the
//! multi-block non-f64 shapes.
//!
//! gfx950 (CDNA4) has gfx942's rows under the same mnemonics and opcodes,
//! except xf32 (removed) and the fp8/bf8 ones, whose inputs are the OCP
//! formats there: those are rows of their own (`Fp8Ocp`, `Bf8Ocp`). Its
//! additions (LLVM 22 opcodes): the doubled-K f16/bf16/i8 MFMAs and the
//! two `*_f8f6f4` MFMAs, whose A/B formats CBSZ/BLGP select
//! ([`Shape::with_formats`]). The gfx950-only SMFMAC shapes are not here
//! yet (their index-register layout at the larger K is not pinned: D51).

use super::{AccType, BlgpUse, InType, Shape, Variant};

const fn v(name: &'static str, opcode: u8, blgp: BlgpUse) -> Option<Variant> {
    Some(Variant { name, opcode, blgp })
}

#[allow(clippy::too_many_arguments)]
const fn row(
    gfx90a: Option<Variant>,
    gfx942: Option<Variant>,
    m: usize,
    n: usize,
    k: usize,
    blocks: usize,
    a: InType,
    b: InType,
    acc: AccType,
    sparse: bool,
) -> Shape {
    // gfx950 keeps gfx942's operations but xf32 and the FNUZ 8-bit ones.
    let gfx950 = if matches!(a, Xf32 | Fp8 | Bf8) || matches!(b, Xf32 | Fp8 | Bf8) {
        None
    } else {
        gfx942
    };
    Shape {
        gfx90a,
        gfx942,
        gfx950,
        m,
        n,
        k,
        blocks,
        a,
        b,
        acc,
        sparse,
        broadcast: blocks > 1 && !matches!(acc, AccType::F64),
        f8f6f4: false,
    }
}

/// A gfx950-only row.
#[allow(clippy::too_many_arguments)]
const fn row950(
    gfx950: Option<Variant>,
    m: usize,
    n: usize,
    k: usize,
    a: InType,
    b: InType,
    acc: AccType,
    sparse: bool,
) -> Shape {
    Shape {
        gfx90a: None,
        gfx942: None,
        gfx950,
        m,
        n,
        k,
        blocks: 1,
        a,
        b,
        acc,
        sparse,
        broadcast: false,
        f8f6f4: false,
    }
}

/// A gfx950 `*_f8f6f4` row (fp8 by default; CBSZ/BLGP pick the formats).
const fn f8f6f4(gfx950: Option<Variant>, m: usize, n: usize, k: usize) -> Shape {
    Shape {
        f8f6f4: true,
        ..row950(gfx950, m, n, k, Fp8Ocp, Fp8Ocp, AF32, false)
    }
}

use AccType::{F32 as AF32, F64 as AF64, I32 as AI32};
use BlgpUse::{LaneGroups as L, Negate as Neg, Unsupported as U};
use InType::{Bf16, Bf8, Bf8Ocp, Fp8, Fp8Ocp, Xf32, F16, F32, F64, I8};

const N: Option<Variant> = None;

/// Every MFMA/SMFMAC operation of gfx90a, gfx942 and gfx950.
#[rustfmt::skip]
pub static SHAPES: &[Shape] = &[
    // f32 inputs.
    row(v("v_mfma_f32_32x32x1f32", 0x40, L), v("v_mfma_f32_32x32x1_2b_f32", 0x40, L), 32, 32, 1, 2, F32, F32, AF32, false),
    row(v("v_mfma_f32_16x16x1f32", 0x41, L), v("v_mfma_f32_16x16x1_4b_f32", 0x41, L), 16, 16, 1, 4, F32, F32, AF32, false),
    row(v("v_mfma_f32_4x4x1f32", 0x42, L), v("v_mfma_f32_4x4x1_16b_f32", 0x42, L), 4, 4, 1, 16, F32, F32, AF32, false),
    row(v("v_mfma_f32_32x32x2f32", 0x44, L), v("v_mfma_f32_32x32x2_f32", 0x44, L), 32, 32, 2, 1, F32, F32, AF32, false),
    row(v("v_mfma_f32_16x16x4f32", 0x45, L), v("v_mfma_f32_16x16x4_f32", 0x45, L), 16, 16, 4, 1, F32, F32, AF32, false),
    // f16 inputs.
    row(v("v_mfma_f32_32x32x4f16", 0x48, L), v("v_mfma_f32_32x32x4_2b_f16", 0x48, L), 32, 32, 4, 2, F16, F16, AF32, false),
    row(v("v_mfma_f32_16x16x4f16", 0x49, L), v("v_mfma_f32_16x16x4_4b_f16", 0x49, L), 16, 16, 4, 4, F16, F16, AF32, false),
    row(v("v_mfma_f32_4x4x4f16", 0x4a, L), v("v_mfma_f32_4x4x4_16b_f16", 0x4a, L), 4, 4, 4, 16, F16, F16, AF32, false),
    row(v("v_mfma_f32_32x32x8f16", 0x4c, L), v("v_mfma_f32_32x32x8_f16", 0x4c, U), 32, 32, 8, 1, F16, F16, AF32, false),
    row(v("v_mfma_f32_16x16x16f16", 0x4d, L), v("v_mfma_f32_16x16x16_f16", 0x4d, U), 16, 16, 16, 1, F16, F16, AF32, false),
    // i8 inputs.
    row(v("v_mfma_i32_32x32x4i8", 0x50, L), v("v_mfma_i32_32x32x4_2b_i8", 0x50, L), 32, 32, 4, 2, I8, I8, AI32, false),
    row(v("v_mfma_i32_16x16x4i8", 0x51, L), v("v_mfma_i32_16x16x4_4b_i8", 0x51, L), 16, 16, 4, 4, I8, I8, AI32, false),
    row(v("v_mfma_i32_4x4x4i8", 0x52, L), v("v_mfma_i32_4x4x4_16b_i8", 0x52, L), 4, 4, 4, 16, I8, I8, AI32, false),
    row(v("v_mfma_i32_32x32x8i8", 0x54, L), N, 32, 32, 8, 1, I8, I8, AI32, false),
    row(v("v_mfma_i32_16x16x16i8", 0x55, L), N, 16, 16, 16, 1, I8, I8, AI32, false),
    row(N, v("v_mfma_i32_32x32x16_i8", 0x56, U), 32, 32, 16, 1, I8, I8, AI32, false),
    row(N, v("v_mfma_i32_16x16x32_i8", 0x57, U), 16, 16, 32, 1, I8, I8, AI32, false),
    // bf16 inputs, four per lane ("_1k").
    row(v("v_mfma_f32_32x32x4bf16_1k", 0x63, L), v("v_mfma_f32_32x32x4_2b_bf16", 0x5d, L), 32, 32, 4, 2, Bf16, Bf16, AF32, false),
    row(v("v_mfma_f32_16x16x4bf16_1k", 0x64, L), v("v_mfma_f32_16x16x4_4b_bf16", 0x5e, L), 16, 16, 4, 4, Bf16, Bf16, AF32, false),
    row(v("v_mfma_f32_4x4x4bf16_1k", 0x65, L), v("v_mfma_f32_4x4x4_16b_bf16", 0x5f, L), 4, 4, 4, 16, Bf16, Bf16, AF32, false),
    row(v("v_mfma_f32_32x32x8bf16_1k", 0x66, L), v("v_mfma_f32_32x32x8_bf16", 0x60, U), 32, 32, 8, 1, Bf16, Bf16, AF32, false),
    row(v("v_mfma_f32_16x16x16bf16_1k", 0x67, L), v("v_mfma_f32_16x16x16_bf16", 0x61, U), 16, 16, 16, 1, Bf16, Bf16, AF32, false),
    // bf16 inputs, two per lane (gfx90a only).
    row(v("v_mfma_f32_32x32x2bf16", 0x68, L), N, 32, 32, 2, 2, Bf16, Bf16, AF32, false),
    row(v("v_mfma_f32_16x16x2bf16", 0x69, L), N, 16, 16, 2, 4, Bf16, Bf16, AF32, false),
    row(v("v_mfma_f32_4x4x2bf16", 0x6b, L), N, 4, 4, 2, 16, Bf16, Bf16, AF32, false),
    row(v("v_mfma_f32_32x32x4bf16", 0x6c, L), N, 32, 32, 4, 1, Bf16, Bf16, AF32, false),
    row(v("v_mfma_f32_16x16x8bf16", 0x6d, L), N, 16, 16, 8, 1, Bf16, Bf16, AF32, false),
    // f64.
    row(v("v_mfma_f64_16x16x4f64", 0x6e, U), v("v_mfma_f64_16x16x4_f64", 0x6e, Neg), 16, 16, 4, 1, F64, F64, AF64, false),
    row(v("v_mfma_f64_4x4x4f64", 0x6f, U), v("v_mfma_f64_4x4x4_4b_f64", 0x6f, Neg), 4, 4, 4, 4, F64, F64, AF64, false),
    // xf32 (gfx942).
    row(N, v("v_mfma_f32_16x16x8_xf32", 0x3e, U), 16, 16, 8, 1, Xf32, Xf32, AF32, false),
    row(N, v("v_mfma_f32_32x32x4_xf32", 0x3f, U), 32, 32, 4, 1, Xf32, Xf32, AF32, false),
    // fp8/bf8 (gfx942; A type first in the name).
    row(N, v("v_mfma_f32_16x16x32_bf8_bf8", 0x70, U), 16, 16, 32, 1, Bf8, Bf8, AF32, false),
    row(N, v("v_mfma_f32_16x16x32_bf8_fp8", 0x71, U), 16, 16, 32, 1, Bf8, Fp8, AF32, false),
    row(N, v("v_mfma_f32_16x16x32_fp8_bf8", 0x72, U), 16, 16, 32, 1, Fp8, Bf8, AF32, false),
    row(N, v("v_mfma_f32_16x16x32_fp8_fp8", 0x73, U), 16, 16, 32, 1, Fp8, Fp8, AF32, false),
    row(N, v("v_mfma_f32_32x32x16_bf8_bf8", 0x74, U), 32, 32, 16, 1, Bf8, Bf8, AF32, false),
    row(N, v("v_mfma_f32_32x32x16_bf8_fp8", 0x75, U), 32, 32, 16, 1, Bf8, Fp8, AF32, false),
    row(N, v("v_mfma_f32_32x32x16_fp8_bf8", 0x76, U), 32, 32, 16, 1, Fp8, Bf8, AF32, false),
    row(N, v("v_mfma_f32_32x32x16_fp8_fp8", 0x77, U), 32, 32, 16, 1, Fp8, Fp8, AF32, false),
    // SMFMAC (gfx942): 4:2 structured-sparse A; K is the dense K.
    row(N, v("v_smfmac_f32_16x16x32_f16", 0x62, U), 16, 16, 32, 1, F16, F16, AF32, true),
    row(N, v("v_smfmac_f32_32x32x16_f16", 0x64, U), 32, 32, 16, 1, F16, F16, AF32, true),
    row(N, v("v_smfmac_f32_16x16x32_bf16", 0x66, U), 16, 16, 32, 1, Bf16, Bf16, AF32, true),
    row(N, v("v_smfmac_f32_32x32x16_bf16", 0x68, U), 32, 32, 16, 1, Bf16, Bf16, AF32, true),
    row(N, v("v_smfmac_i32_16x16x64_i8", 0x6a, U), 16, 16, 64, 1, I8, I8, AI32, true),
    row(N, v("v_smfmac_i32_32x32x32_i8", 0x6c, U), 32, 32, 32, 1, I8, I8, AI32, true),
    row(N, v("v_smfmac_f32_16x16x64_bf8_bf8", 0x78, U), 16, 16, 64, 1, Bf8, Bf8, AF32, true),
    row(N, v("v_smfmac_f32_16x16x64_bf8_fp8", 0x79, U), 16, 16, 64, 1, Bf8, Fp8, AF32, true),
    row(N, v("v_smfmac_f32_16x16x64_fp8_bf8", 0x7a, U), 16, 16, 64, 1, Fp8, Bf8, AF32, true),
    row(N, v("v_smfmac_f32_16x16x64_fp8_fp8", 0x7b, U), 16, 16, 64, 1, Fp8, Fp8, AF32, true),
    row(N, v("v_smfmac_f32_32x32x32_bf8_bf8", 0x7c, U), 32, 32, 32, 1, Bf8, Bf8, AF32, true),
    row(N, v("v_smfmac_f32_32x32x32_bf8_fp8", 0x7d, U), 32, 32, 32, 1, Bf8, Fp8, AF32, true),
    row(N, v("v_smfmac_f32_32x32x32_fp8_bf8", 0x7e, U), 32, 32, 32, 1, Fp8, Bf8, AF32, true),
    row(N, v("v_smfmac_f32_32x32x32_fp8_fp8", 0x7f, U), 32, 32, 32, 1, Fp8, Fp8, AF32, true),
    // gfx950: the fp8/bf8 operations in the OCP formats (same mnemonics and
    // opcodes as gfx942's).
    row950(v("v_mfma_f32_16x16x32_bf8_bf8", 0x70, U), 16, 16, 32, Bf8Ocp, Bf8Ocp, AF32, false),
    row950(v("v_mfma_f32_16x16x32_bf8_fp8", 0x71, U), 16, 16, 32, Bf8Ocp, Fp8Ocp, AF32, false),
    row950(v("v_mfma_f32_16x16x32_fp8_bf8", 0x72, U), 16, 16, 32, Fp8Ocp, Bf8Ocp, AF32, false),
    row950(v("v_mfma_f32_16x16x32_fp8_fp8", 0x73, U), 16, 16, 32, Fp8Ocp, Fp8Ocp, AF32, false),
    row950(v("v_mfma_f32_32x32x16_bf8_bf8", 0x74, U), 32, 32, 16, Bf8Ocp, Bf8Ocp, AF32, false),
    row950(v("v_mfma_f32_32x32x16_bf8_fp8", 0x75, U), 32, 32, 16, Bf8Ocp, Fp8Ocp, AF32, false),
    row950(v("v_mfma_f32_32x32x16_fp8_bf8", 0x76, U), 32, 32, 16, Fp8Ocp, Bf8Ocp, AF32, false),
    row950(v("v_mfma_f32_32x32x16_fp8_fp8", 0x77, U), 32, 32, 16, Fp8Ocp, Fp8Ocp, AF32, false),
    row950(v("v_smfmac_f32_16x16x64_bf8_bf8", 0x78, U), 16, 16, 64, Bf8Ocp, Bf8Ocp, AF32, true),
    row950(v("v_smfmac_f32_16x16x64_bf8_fp8", 0x79, U), 16, 16, 64, Bf8Ocp, Fp8Ocp, AF32, true),
    row950(v("v_smfmac_f32_16x16x64_fp8_bf8", 0x7a, U), 16, 16, 64, Fp8Ocp, Bf8Ocp, AF32, true),
    row950(v("v_smfmac_f32_16x16x64_fp8_fp8", 0x7b, U), 16, 16, 64, Fp8Ocp, Fp8Ocp, AF32, true),
    row950(v("v_smfmac_f32_32x32x32_bf8_bf8", 0x7c, U), 32, 32, 32, Bf8Ocp, Bf8Ocp, AF32, true),
    row950(v("v_smfmac_f32_32x32x32_bf8_fp8", 0x7d, U), 32, 32, 32, Bf8Ocp, Fp8Ocp, AF32, true),
    row950(v("v_smfmac_f32_32x32x32_fp8_bf8", 0x7e, U), 32, 32, 32, Fp8Ocp, Bf8Ocp, AF32, true),
    row950(v("v_smfmac_f32_32x32x32_fp8_fp8", 0x7f, U), 32, 32, 32, Fp8Ocp, Fp8Ocp, AF32, true),
    // gfx950: doubled K.
    row950(v("v_mfma_f32_16x16x32_bf16", 0x35, U), 16, 16, 32, Bf16, Bf16, AF32, false),
    row950(v("v_mfma_f32_32x32x16_bf16", 0x37, U), 32, 32, 16, Bf16, Bf16, AF32, false),
    row950(v("v_mfma_f32_16x16x32_f16", 0x54, U), 16, 16, 32, F16, F16, AF32, false),
    row950(v("v_mfma_f32_32x32x16_f16", 0x55, U), 32, 32, 16, F16, F16, AF32, false),
    row950(v("v_mfma_i32_16x16x64_i8", 0x36, U), 16, 16, 64, I8, I8, AI32, false),
    row950(v("v_mfma_i32_32x32x32_i8", 0x38, U), 32, 32, 32, I8, I8, AI32, false),
    // gfx950: f8f6f4 (formats from CBSZ/BLGP).
    f8f6f4(v("v_mfma_f32_16x16x128_f8f6f4", 0x2d, U), 16, 16, 128),
    f8f6f4(v("v_mfma_f32_32x32x64_f8f6f4", 0x2e, U), 32, 32, 64),
];

//! Matrix instructions (MFMA), evaluated by [`crate::mfma`].
//!
//! Each opcode's shape, and for the dense shapes other than f64 (f32
//! accumulator with f32, xf32, f16, bf16, fp8, bf8 inputs; i32 with i8) a
//! prepared [`crate::mfma::DenseKernel`], are looked up once per opcode in a
//! static table. An execution of those
//! shapes (with every operand whole registers inside its file and C
//! registers or a constant) runs in place on the register files
//! (`Box<[VReg]>`, one 64-lane row per register):
//!
//! * A and B are widened straight from their VGPR/AGPR rows into a
//!   per-thread scratch [`crate::mfma::Frags`] in matrix layout (k-major
//!   f32: a B row of N values contiguous; see the kernel's docs), before
//!   anything is written, so D may overlap A or B;
//! * C is copied onto D as whole registers (`copy_within` in one file,
//!   `copy_from_slice` across files, a splat for a constant; nothing when
//!   C and D are the same registers, as in a GEMM loop);
//! * D is accumulated in place: each output row is N consecutive lanes of
//!   one D register, loaded into f32 vector registers, given one fused
//!   multiply-add per k in k order, stored back (i8: the exact sum of
//!   products added to C as i32).
//!
//! Nothing is allocated per execution. Everything else (f64 shapes,
//! registers past the end of a file) gathers whole
//! registers and calls [`crate::mfma::mfma`], which evaluates element by
//! element with the same order of accumulation.

use super::*;

/// MFMA: gathers the A, B and C registers, evaluates with [`crate::mfma`],
/// and writes D.
pub(super) fn mfma_op(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use crate::mfma::{mfma, Mods};
    let target = mfma_target(i.target());
    let Some(entry) = entry_of(target, i.opcode()) else {
        return Err(unsupported(w, i, c.pc));
    };
    let mut shape = entry.shape;
    let words = i.words();
    let mut mods = Mods::from_words(words[0], words.get(1).copied().unwrap_or(0));
    let mut kernel = entry.kernel.as_ref();
    // gfx950 `*_f8f6f4`: CBSZ and BLGP are the A and B formats.
    let formats;
    if shape.f8f6f4 {
        kernel = crate::mfma::f8f6f4_kernel(shape, mods.cbsz, mods.blgp);
        let Some(s) = shape.with_formats(mods.cbsz, mods.blgp) else {
            return Err(unsupported(w, i, c.pc));
        };
        if mods.abid != 0 {
            return Err(unsupported(w, i, c.pc));
        }
        formats = s;
        shape = &formats;
        (mods.cbsz, mods.blgp) = (0, 0);
    }
    let (Some(d), Some(a), Some(b), Some(cc)) = (
        c.dst(0).copied(),
        c.src(0).copied(),
        c.src(1).copied(),
        c.src(2).copied(),
    ) else {
        return Err(unsupported(w, i, c.pc));
    };
    if let Some(kern) = kernel {
        if let Some(r) = in_place(w, kern, target, [&d, &a, &b, &cc], &mods) {
            return r
                .map(|()| Flow::Continue)
                .map_err(|_| unsupported(w, i, c.pc));
        }
    }
    // Whole registers (a register past the file reads 0).
    let gather = |op: &Op, n: usize| -> Vec<crate::wave::VReg> {
        (0..n)
            .map(|k| match op.value {
                Operand::Reg(RegRange {
                    file: RegFile::Vgpr,
                    first,
                    ..
                }) => w
                    .vgpr
                    .get(first as usize + k)
                    .copied()
                    .unwrap_or([0; LANES]),
                Operand::Reg(RegRange {
                    file: RegFile::Agpr,
                    first,
                    ..
                }) => w
                    .agpr
                    .get(first as usize + k)
                    .copied()
                    .unwrap_or([0; LANES]),
                _ => [const_word(op, k); LANES],
            })
            .collect()
    };
    let av = gather(&a, shape.a_regs());
    let bv = gather(&b, shape.b_regs());
    let out = if shape.sparse {
        // SMFMAC: src2 is the index register, C is D's old value.
        let index = gather(&cc, 1)[0];
        let acc = gather(&d, shape.cd_regs());
        crate::mfma::smfmac(shape, target, &av, &bv, &index, &acc, &mods)
    } else {
        let cv = gather(&cc, shape.cd_regs());
        mfma(shape, target, &av, &bv, &cv, &mods)
    }
    .map_err(|_| unsupported(w, i, c.pc))?;
    // Every lane of D is written, whatever EXEC (whole registers; one past
    // the file is dropped).
    for (k, r) in out.iter().enumerate() {
        let row = match d.value {
            Operand::Reg(RegRange {
                file: RegFile::Vgpr,
                first,
                ..
            }) => w.vgpr.get_mut(first as usize + k),
            Operand::Reg(RegRange {
                file: RegFile::Agpr,
                first,
                ..
            }) => w.agpr.get_mut(first as usize + k),
            _ => {
                for (l, v) in r.iter().enumerate() {
                    vwrite(w, &d, l, k, *v);
                }
                continue;
            }
        };
        if let Some(row) = row {
            *row = *r;
        }
    }
    Ok(Flow::Continue)
}

/// Register `k` of a constant operand: every register holds it (64-bit
/// element types hold it per register pair; a 32-bit one holds the
/// constant's 32-bit encoding, 1.0 as 0x3f800000).
fn const_word(op: &Op, k: usize) -> u32 {
    if op.ty() == Ty::F64 {
        (const64(op).unwrap_or(0) >> (32 * (k % 2))) as u32
    } else {
        const32(op).unwrap_or(0)
    }
}

/// The register file and first register of `n` whole registers of `op`,
/// if it names VGPRs or AGPRs that are all inside the file.
fn whole_regs(w: &Wave, op: &Op, n: usize) -> Option<(RegFile, usize)> {
    let Operand::Reg(RegRange { file, first, .. }) = op.value else {
        return None;
    };
    let len = match file {
        RegFile::Vgpr => w.vgpr.len(),
        RegFile::Agpr => w.agpr.len(),
        _ => return None,
    };
    let first = first as usize;
    (first + n <= len).then_some((file, first))
}

fn file(w: &Wave, f: RegFile) -> &[crate::wave::VReg] {
    if f == RegFile::Agpr {
        &w.agpr
    } else {
        &w.vgpr
    }
}

fn file_mut(w: &mut Wave, f: RegFile) -> &mut [crate::wave::VReg] {
    if f == RegFile::Agpr {
        &mut w.agpr
    } else {
        &mut w.vgpr
    }
}

/// The fast path ([`crate::mfma::DenseKernel`]): A and B are widened
/// straight from the register files, C is copied onto D (nothing to copy
/// when they are the same registers, as in a GEMM loop; a constant C is
/// splatted) and D is accumulated in place. `None` when an operand
/// register range is not wholly inside its file: the general path handles
/// those.
fn in_place(
    w: &mut Wave,
    kern: &crate::mfma::DenseKernel,
    target: crate::mfma::Target,
    [d, a, b, c]: [&Op; 4],
    mods: &crate::mfma::Mods,
) -> Option<Result<(), crate::mfma::MfmaError>> {
    // Scratch for the widened A and B, reused (not zeroed) per execution.
    thread_local! {
        static FRAGS: std::cell::RefCell<crate::mfma::Frags> =
            const { std::cell::RefCell::new(crate::mfma::Frags::ZERO) };
    }
    FRAGS.with_borrow_mut(|frags| in_place_with(w, kern, target, [d, a, b, c], mods, frags))
}

/// [`in_place`] with the scratch fragments.
fn in_place_with(
    w: &mut Wave,
    kern: &crate::mfma::DenseKernel,
    target: crate::mfma::Target,
    [d, a, b, c]: [&Op; 4],
    mods: &crate::mfma::Mods,
    frags: &mut crate::mfma::Frags,
) -> Option<Result<(), crate::mfma::MfmaError>> {
    let n = kern.cd_regs();
    let (df, d0) = whole_regs(w, d, n)?;
    let (af, a0) = whole_regs(w, a, kern.a_regs())?;
    let (bf, b0) = whole_regs(w, b, kern.b_regs())?;
    let cr = match c.value {
        Operand::Reg(_) => Some(whole_regs(w, c, n)?),
        _ => None,
    };
    if let Err(e) = kern.load(
        target,
        &file(w, af)[a0..a0 + kern.a_regs()],
        &file(w, bf)[b0..b0 + kern.b_regs()],
        mods,
        frags,
    ) {
        return Some(Err(e));
    }
    match cr {
        Some((cf, c0)) if cf == df => {
            if c0 != d0 {
                file_mut(w, df).copy_within(c0..c0 + n, d0);
            }
        }
        Some((cf, c0)) => {
            let (src, dst) = if cf == RegFile::Agpr {
                (&w.agpr, &mut w.vgpr)
            } else {
                (&w.vgpr, &mut w.agpr)
            };
            dst[d0..d0 + n].copy_from_slice(&src[c0..c0 + n]);
        }
        None => {
            for (k, r) in file_mut(w, df)[d0..d0 + n].iter_mut().enumerate() {
                *r = [const_word(c, k); LANES];
            }
        }
    }
    kern.accumulate(frags, &mut file_mut(w, df)[d0..d0 + n]);
    Some(Ok(()))
}

/// What the interpreter knows about a matrix opcode on a target: its shape
/// and, for the dense shapes other than f64, the prepared fast path.
struct Entry {
    shape: &'static crate::mfma::Shape,
    kernel: Option<crate::mfma::DenseKernel>,
}

/// The MFMA entry of an opcode on a target, worked out on its first
/// execution (once per opcode and target, not per executed instruction;
/// only for the opcodes a program uses).
fn entry_of(target: crate::mfma::Target, op: Opcode) -> Option<&'static Entry> {
    use crate::mfma::{DenseKernel, Shape, Target as MT};
    type Table = Vec<[OnceLock<Option<Entry>>; 3]>;
    static T: OnceLock<Table> = OnceLock::new();
    if op.is_invalid() {
        return None;
    }
    let t = T.get_or_init(|| {
        Opcode::all()
            .map(|_| [OnceLock::new(), OnceLock::new(), OnceLock::new()])
            .collect()
    });
    let slot = match target {
        MT::Gfx90a => 0,
        MT::Gfx942 => 1,
        MT::Gfx950 => 2,
    };
    t.get(op.index() as usize)?[slot]
        .get_or_init(|| {
            if sem::of(op).sem != Sem::Mfma {
                return None;
            }
            Shape::of_opcode(target, op).map(|shape| Entry {
                shape,
                kernel: DenseKernel::new(shape),
            })
        })
        .as_ref()
}

/// The matrix-core processor of an ISA target (gfx90a, gfx950; gfx942 for
/// the rest of the GFX940 family).
pub(super) fn mfma_target(t: Target) -> crate::mfma::Target {
    use crate::mfma::Target as MT;
    match t {
        Target::Gfx90a => MT::Gfx90a,
        Target::Gfx950 => MT::Gfx950,
        _ => MT::Gfx942,
    }
}

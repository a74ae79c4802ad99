//! Matrix instructions (MFMA), evaluated by [`crate::mfma`].

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
    use crate::mfma::{mfma, Mods, Target as MT};
    let target = match i.target() {
        Target::Gfx90a => MT::Gfx90a,
        _ => MT::Gfx942,
    };
    let Some(shape) = shape_of(target, i.opcode()) else {
        return Err(unsupported(w, i, c.pc));
    };
    let (Some(d), Some(a), Some(b), Some(cc)) = (
        c.dst(0).copied(),
        c.src(0).copied(),
        c.src(1).copied(),
        c.src(2).copied(),
    ) else {
        return Err(unsupported(w, i, c.pc));
    };
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
                _ => {
                    // An inline constant C: every register holds it
                    // (64-bit element types hold it per register pair).
                    let v = const64(op).unwrap_or(0);
                    [if op.ty() == Ty::F64 {
                        (v >> (32 * (k % 2))) as u32
                    } else {
                        v as u32
                    }; LANES]
                }
            })
            .collect()
    };
    let av = gather(&a, shape.a_regs());
    let bv = gather(&b, shape.b_regs());
    let cv = gather(&cc, shape.cd_regs());
    let words = i.words();
    let mods = Mods::from_words(words[0], words.get(1).copied().unwrap_or(0));
    let out = mfma(shape, target, &av, &bv, &cv, &mods).map_err(|_| unsupported(w, i, c.pc))?;
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

/// The MFMA shape of an opcode on a target, looked up by mnemonic once per
/// opcode (not per executed instruction).
fn shape_of(target: crate::mfma::Target, op: Opcode) -> Option<&'static crate::mfma::Shape> {
    use crate::mfma::{Shape, Target as MT};
    type Table = Vec<[Option<&'static Shape>; 2]>;
    static T: OnceLock<Table> = OnceLock::new();
    if op.is_invalid() {
        return None;
    }
    let t = T.get_or_init(|| {
        Opcode::all()
            .map(|o| {
                let n = o.info().name;
                if n.starts_with("v_mfma") || n.starts_with("v_smfmac") {
                    [Shape::find(MT::Gfx90a, n), Shape::find(MT::Gfx942, n)]
                } else {
                    [None, None]
                }
            })
            .collect()
    });
    t.get(op.index() as usize)?[usize::from(target == MT::Gfx942)]
}

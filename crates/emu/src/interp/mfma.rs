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
    use crate::mfma::{mfma, Mods, Shape, Target as MT};
    let target = match i.target() {
        Target::Gfx90a => MT::Gfx90a,
        _ => MT::Gfx942,
    };
    let Some(shape) = Shape::find(target, i.opcode().name()) else {
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
    let gather = |op: &Op, n: usize| -> Vec<crate::wave::VReg> {
        (0..n)
            .map(|k| {
                let mut r = [0u32; LANES];
                for (l, x) in r.iter_mut().enumerate() {
                    *x = match op.value {
                        Operand::Reg(RegRange {
                            file: RegFile::Vgpr,
                            first,
                            ..
                        }) => w.vgpr.get(first as usize + k).map_or(0, |v| v[l]),
                        Operand::Reg(RegRange {
                            file: RegFile::Agpr,
                            first,
                            ..
                        }) => w.agpr.get(first as usize + k).map_or(0, |v| v[l]),
                        _ => {
                            // An inline constant C: every register holds it
                            // (64-bit element types hold it per register pair).
                            let v = const64(op).unwrap_or(0);
                            if op.ty() == Ty::F64 {
                                (v >> (32 * (k % 2))) as u32
                            } else {
                                v as u32
                            }
                        }
                    };
                }
                r
            })
            .collect()
    };
    let av = gather(&a, shape.a_regs());
    let bv = gather(&b, shape.b_regs());
    let cv = gather(&cc, shape.cd_regs());
    let words = i.words();
    let mods = Mods::from_words(words[0], words.get(1).copied().unwrap_or(0));
    let out = mfma(shape, target, &av, &bv, &cv, &mods).map_err(|_| unsupported(w, i, c.pc))?;
    for (k, r) in out.iter().enumerate() {
        for (l, v) in r.iter().enumerate() {
            vwrite(w, &d, l, k, *v);
        }
    }
    Ok(Flow::Continue)
}

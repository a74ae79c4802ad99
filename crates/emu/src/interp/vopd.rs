//! VOPD dual issue (GFX11, D77): one word holds two VALU operations, X and
//! Y, that both read their sources before either writes. The decoder lists
//! X's operands, then Y's (from its `VdstY` destination on); each half runs
//! through its row's generic handler on its own operand list. Y runs after
//! X with X's destination put back as it was, so a Y source naming X's
//! destination reads the old value; then X's result is written. (X cannot
//! read what Y writes: Y has not run. The two destinations differ: the
//! encoding gives them opposite parities.)

use super::*;

/// The `v_dual_*` handler: X, then Y, each as its own instruction.
pub(super) fn vopd(
    x: &mut Core<'_>,
    w: &mut Wave,
    lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let hy = i.vopd_y().and_then(|y| match sem::of(y).sem {
        Sem::Valu(op) => valu::handler(op).map(|h| (h, Sem::Valu(op))),
        _ => None,
    });
    let (Sem::Valu(opx), Some((hy, sem_y))) = (c.sem, hy) else {
        return Err(unsupported(w, i, c.pc));
    };
    let Some(hx) = valu::handler(opx) else {
        return Err(unsupported(w, i, c.pc));
    };
    let all = c.ops;
    let split = all.ops[..all.len]
        .iter()
        .position(|o| o.is_some_and(|o| o.field() == Field::VdstY))
        .ok_or_else(|| unsupported(w, i, c.pc))?;
    let (mut xo, mut yo) = (*all, *all);
    xo.len = split;
    xo.index();
    yo.ops = [None; lathe_isa::operand::MAX_OPERANDS];
    yo.ops[..all.len - split].copy_from_slice(&all.ops[split..all.len]);
    yo.len = all.len - split;
    yo.index();
    let Some(Operand::Reg(dx)) = xo.dst(0).map(|o| o.value) else {
        return Err(unsupported(w, i, c.pc));
    };
    let dx = dx.first as usize;
    if dx >= w.vgpr.len() {
        return Err(unsupported(w, i, c.pc));
    }
    let before = w.vgpr[dx];
    let cx = Ctx {
        pc: c.pc,
        sem: c.sem,
        ops: &xo,
        target: None,
        consts: None,
    };
    hx(x, w, lds, i, &cx)?;
    let x_result = std::mem::replace(&mut w.vgpr[dx], before);
    let cy = Ctx {
        pc: c.pc,
        sem: sem_y,
        ops: &yo,
        target: None,
        consts: None,
    };
    hy(x, w, lds, i, &cy)?;
    w.vgpr[dx] = x_result;
    Ok(Flow::Continue)
}

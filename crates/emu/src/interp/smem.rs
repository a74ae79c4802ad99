//! Scalar memory (SMEM) loads.

use super::*;

/// The SMEM handler of `name`.
pub(super) fn handler(name: &str) -> Option<Handler> {
    Some(match name {
        // ---- SMEM
        "s_load_dword" | "s_load_dwordx2" | "s_load_dwordx4" | "s_load_dwordx8"
        | "s_load_dwordx16" => smem_load,
        _ => return None,
    })
}

/// Scalar loads.
pub(super) fn smem_load(
    x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let (Some(d), Some(base)) = (
        c.by_field(Field::Sdata).copied(),
        c.by_field(Field::Sbase).copied(),
    ) else {
        return Err(unsupported(w, i, c.pc));
    };
    let off = match c.by_field(Field::Offset).map(|o| o.value) {
        Some(Operand::Imm(v)) => v as u64,
        Some(Operand::Literal(v)) => u64::from(v),
        Some(_) => c
            .by_field(Field::Offset)
            .map_or(0, |o| u64::from(s32(w, o))),
        None => 0,
    };
    let addr = s64(w, &base).wrapping_add(off);
    let Operand::Reg(r) = d.value else {
        return Err(unsupported(w, i, c.pc));
    };
    for k in 0..r.count as u64 {
        let v = x
            .view
            .load_u32(addr + 4 * k)
            .map_err(|f| fault(w, i, c.pc, f))?;
        sreg_write(w, r.first + k as u16, v);
    }
    Ok(Flow::Continue)
}

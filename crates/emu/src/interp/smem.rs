//! Scalar memory (SMEM) loads.

use super::*;

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
    // An SGPR offset beside the immediate (GFX9's SOE forms, GFX10's
    // `soffset`; GFX10's `null` reads 0).
    let soff = c
        .by_field(Field::Soffset)
        .map_or(0, |o| u64::from(s32(w, o)));
    let addr = s64(w, &base).wrapping_add(off).wrapping_add(soff);
    let Operand::Reg(r) = d.value else {
        return Err(unsupported(w, i, c.pc));
    };
    // GFX12's sub-dword loads (`s_load_u16`, `s_load_i8`): one byte or
    // short, zero- or sign-extended into one SGPR (D85).
    if let Sem::Mem(m) = c.sem {
        if m.size < 4 {
            let v = if m.size == 1 {
                let [b] = x.view.load::<1>(addr).map_err(|f| fault(w, i, c.pc, f))?;
                if m.signed {
                    b as i8 as i32 as u32
                } else {
                    u32::from(b)
                }
            } else {
                let h =
                    u16::from_le_bytes(x.view.load::<2>(addr).map_err(|f| fault(w, i, c.pc, f))?);
                if m.signed {
                    h as i16 as i32 as u32
                } else {
                    u32::from(h)
                }
            };
            sreg_write(w, r.first, v);
            return Ok(Flow::Continue);
        }
    }
    // One bounds check for the whole load (at most 16 dwords); a fault
    // still names the first dword that takes it, with the dwords before it
    // written as before.
    let mut v = [0u32; 16];
    let n = (r.count as usize).min(16);
    let res = x.view.load_dwords(addr, &mut v[..n]);
    let done = match &res {
        Ok(()) => n,
        Err(f) => fault_dword(f, addr),
    };
    for (k, v) in v.iter().enumerate().take(done) {
        sreg_write(w, r.first + k as u16, *v);
    }
    res.map_err(|f| fault(w, i, c.pc, f))?;
    Ok(Flow::Continue)
}

/// How many dwords of a scalar load from `addr` precede the one that took
/// fault `f`.
fn fault_dword(f: &Fault, addr: u64) -> usize {
    let at = match f {
        Fault::Unmapped { addr: a, .. }
        | Fault::ReadOnly { addr: a, .. }
        | Fault::Misaligned { addr: a, .. } => *a,
    };
    (at.wrapping_sub(addr) / 4) as usize
}

//! `s_set_gpr_idx_idx` and `s_set_gpr_idx_mode`: change the index or the
//! operand mask of VGPR indexing (`s_set_gpr_idx_on` turns it on).
//!
//! The manual: `s_set_gpr_idx_idx` sets M0[7:0] = S0[7:0];
//! `s_set_gpr_idx_mode` sets M0[15:12] = SIMM16[3:0] (bit 0 SRC0, 1 SRC1,
//! 2 SRC2, 3 DST). While indexing is on, the next VALU instructions use the
//! new index or mask; while it is off only M0 changes.

use super::*;

/// `s_set_gpr_idx_idx ssrc0`.
pub(super) fn set_idx(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let Some(s) = c.src(0).copied() else {
        return Err(unsupported(w, i, c.pc));
    };
    let idx = s32(w, &s) & 0xff;
    w.m0 = (w.m0 & !0xff) | idx;
    if let Some((mode, _)) = w.gpr_idx {
        w.gpr_idx = Some((mode, idx));
    }
    Ok(Flow::Continue)
}

/// `s_set_gpr_idx_mode simm16`.
pub(super) fn set_mode(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    _c: &Ctx,
) -> Result<Flow, Stop> {
    let mode = i.field(Field::Simm16).unwrap_or(0) & 0xf;
    w.m0 = (w.m0 & !0xf000) | mode << 12;
    if let Some((_, idx)) = w.gpr_idx {
        w.gpr_idx = Some((mode as u8, idx));
    }
    Ok(Flow::Continue)
}

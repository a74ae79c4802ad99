//! SDWA and DPP forms: wrappers that stage operands and run the
//! VOP1/VOP2 handler.

use super::*;

// ---------------------------------------------------------------- SDWA / DPP

/// Temporary VGPRs after the wave's real ones, where the SDWA/DPP wrappers stage operands.
pub(super) fn tmp_reg(w: &Wave, k: u16, width: u8) -> Operand {
    Operand::Reg(RegRange::vgpr(w.temp_base() as u16 + k, width))
}

/// Runs a VOP1/VOP2 handler in SDWA form: sources are selected (and sign-
/// or zero-extended) into temporaries, the operation runs, and the result is
/// merged into the destination per `dst_sel`/`dst_unused`.
pub(super) fn sdwa(
    x: &mut Core<'_>,
    w: &mut Wave,
    lds: &mut [u8],
    i: &Instruction,
    c: Ctx<'_>,
    h: Handler,
) -> Result<Flow, Stop> {
    use crate::xlane::{sdwa_dst, sdwa_src, DstUnused, SdwaSel};
    let d1 = i.words().get(1).copied().unwrap_or(0);
    let dst_sel = SdwaSel::decode((d1 >> 8 & 7) as u8);
    let unused = DstUnused::decode((d1 >> 11 & 3) as u8);
    let sel = [
        SdwaSel::decode((d1 >> 16 & 7) as u8),
        SdwaSel::decode((d1 >> 24 & 7) as u8),
    ];
    let (Some(dst_sel), Some(unused), Some(s0sel), Some(s1sel)) = (dst_sel, unused, sel[0], sel[1])
    else {
        return Err(unsupported(w, i, c.pc));
    };
    if d1 >> 13 & 1 == 1 || d1 >> 14 & 3 != 0 {
        // clamp/omod in SDWA form: not modelled yet.
        return Err(unsupported(w, i, c.pc));
    }
    let exec = w.exec;
    let mut src_idx = 0u16;
    let mut ops = *c.ops;
    let n = ops.as_slice().len();
    for k in 0..n {
        let Some(op) = ops.as_slice().get(k).copied() else {
            continue;
        };
        if op.field() == Field::Implicit || op.access() == lathe_isa::opcode::Access::W {
            continue;
        }
        let sel = if src_idx == 0 { s0sel } else { s1sel };
        let reg = w.temp_base() + src_idx as usize;
        for l in 0..LANES {
            if exec >> l & 1 == 1 {
                let v = sdwa_src(v32(w, &op, l), sel, op.sext);
                w.vgpr[reg][l] = v;
            }
        }
        let mut nop = op;
        nop.value = tmp_reg(w, src_idx, 1);
        nop.sext = false;
        ops.set(k, nop);
        src_idx += 1;
    }
    // Destination: run into a temporary, then merge.
    let dk = ops
        .as_slice()
        .iter()
        .position(|o| o.field() != Field::Implicit && o.access() != lathe_isa::opcode::Access::R);
    let real_dst = dk.and_then(|k| ops.as_slice().get(k).copied());
    // A VGPR pair destination (`v_cvt_pk_f32_{fp8,bf8}`, the only SDWA
    // operations with one) goes to temporaries 2 and 3 (VOP1 uses only the
    // first source temporary).
    let wide = matches!(real_dst.map(|d| d.value), Some(Operand::Reg(r)) if r.count == 2);
    let dtmp = if wide { 2 } else { 3 };
    if let (Some(k), Some(d)) = (dk, real_dst) {
        if matches!(d.value, Operand::Reg(r) if r.file == RegFile::Vgpr) {
            let mut nd = d;
            nd.value = tmp_reg(w, dtmp, 1 + u8::from(wide));
            ops.set(k, nd);
        }
    }
    let flow = h(
        x,
        w,
        lds,
        i,
        &Ctx {
            pc: c.pc,
            sem: c.sem,
            ops: &ops,
            target: c.target,
            consts: None,
        },
    )?;
    if let Some(d) =
        real_dst.filter(|d| matches!(d.value, Operand::Reg(r) if r.file == RegFile::Vgpr))
    {
        for k in 0..1 + usize::from(wide) {
            for l in 0..LANES {
                if exec >> l & 1 == 1 {
                    let old = (v64(w, &d, l) >> (32 * k)) as u32;
                    let r = w.vgpr[w.temp_base() + dtmp as usize + k][l];
                    vwrite(w, &d, l, k, sdwa_dst(r, old, dst_sel, unused));
                }
            }
        }
    }
    Ok(flow)
}

/// Runs a VOP1/VOP2 handler in DPP form: src0 is fetched through the lane
/// permutation, and only the lanes DPP writes (row/bank masks, bound_ctrl)
/// are updated.
pub(super) fn dpp(
    x: &mut Core<'_>,
    w: &mut Wave,
    lds: &mut [u8],
    i: &Instruction,
    c: Ctx<'_>,
    h: Handler,
) -> Result<Flow, Stop> {
    let d1 = i.words().get(1).copied().unwrap_or(0);
    let Some((_src0, d)) = crate::xlane::Dpp::from_dword(d1) else {
        return Err(unsupported(w, i, c.pc));
    };
    let exec = w.exec;
    let k = c
        .ops
        .as_slice()
        .iter()
        .position(|o| o.field() == Field::Src0);
    let Some(k) = k else {
        return Err(unsupported(w, i, c.pc));
    };
    let Some(op) = c.ops.as_slice().get(k).copied() else {
        return Err(unsupported(w, i, c.pc));
    };
    let Operand::Reg(r) = op.value else {
        return Err(unsupported(w, i, c.pc));
    };
    let src = *w
        .vgpr
        .get(r.first as usize)
        .ok_or_else(|| unsupported(w, i, c.pc))?;
    let (vals, written) = d.fetch(&src, exec);
    let t = w.temp_base();
    w.vgpr[t] = vals;
    let mut nop = op;
    nop.value = tmp_reg(w, 0, 1);
    let mut ops = *c.ops;
    ops.set(k, nop);
    w.exec = exec & written;
    let r = h(
        x,
        w,
        lds,
        i,
        &Ctx {
            pc: c.pc,
            sem: c.sem,
            ops: &ops,
            target: c.target,
            consts: None,
        },
    );
    // The handler may not change EXEC for VOP1/VOP2; restore it.
    w.exec = exec;
    r
}

//! MUBUF atomics (`buffer_atomic_*`): the address of each active lane is
//! worked out as for MUBUF loads and stores (`vmem::mubuf`: buffer base +
//! index * stride + VGPR offset + instruction offset + SOFFSET); a lane
//! whose access does not fit in the buffer (NUM_RECORDS bytes, times
//! STRIDE when that is set) changes nothing and returns zero.
//!
//! Each lane's read-modify-write is one sequentially consistent host atomic
//! of 4 or 8 bytes (`MemView::atomic`, D17), lanes in order. `cmpswap`
//! takes {new, compare} from VDATA (`_x2`: two dword pairs). The packed
//! `pk_add_f16` is a compare-and-swap loop around the two f16 sums (nearest
//! even, denormals kept). With GLC (`sc0`) set the old value is written to
//! VDATA. Descriptors with ADD_TID_ENABLE (the swizzled private segment)
//! are not modelled for atomics: no compiler emits one.

use super::*;

/// `buffer_atomic_*`.
pub(super) fn mubuf_atomic(
    x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    if matches!(i.encoding(), Encoding::MubufGfx11 | Encoding::MubufGfx12) {
        // GFX11's MUBUF layout (`offen`/`idxen` in word 1) and GFX12's
        // VBUFFER: not modelled (D77, D85).
        return Err(unsupported(w, i, c.pc));
    }
    let w0 = i.words()[0];
    let inst_off = u64::from(w0 & 0xfff);
    let offen = w0 >> 12 & 1 == 1;
    let idxen = w0 >> 13 & 1 == 1;
    let glc = w0 >> 14 & 1 == 1;
    let (Sem::Mem(m), false) = (c.sem, w0 >> 16 & 1 == 1) else {
        return Err(unsupported(w, i, c.pc));
    };
    let MemOp::Atomic(a) = m.op else {
        return Err(unsupported(w, i, c.pc));
    };
    let (Some(rsrc), Some(vdata)) = (
        c.by_field(Field::Srsrc).copied(),
        c.by_field(Field::Vdata).copied(),
    ) else {
        return Err(unsupported(w, i, c.pc));
    };
    let (Operand::Reg(r), Operand::Reg(vd)) = (rsrc.value, vdata.value) else {
        return Err(unsupported(w, i, c.pc));
    };
    let vaddr = c
        .by_field(Field::Vaddr)
        .copied()
        .filter(|o| !matches!(o.value, Operand::Off));
    let soff = c
        .by_field(Field::Soffset)
        .map_or(0, |o| u64::from(s32(w, o)));
    let d: [u32; 4] = std::array::from_fn(|k| sreg_read(w, r.first + k as u16));
    let base = u64::from(d[0]) | (u64::from(d[1] & 0xffff) << 32);
    let stride = u64::from(d[1] >> 16 & 0x3fff);
    let bound = u64::from(d[2]) * stride.max(1);
    if d[3] >> 23 & 1 == 1 {
        return Err(unsupported(w, i, c.pc));
    }
    let size = u32::from(m.size);
    let wide = size == 8;
    // Dword k of VDATA in lane l.
    let vreg = |w: &Wave, k: u16, l: usize| {
        let mut op = vdata;
        op.value = Operand::Reg(RegRange {
            file: vd.file,
            first: vd.first.wrapping_add(k),
            count: 1,
        });
        u64::from(v32(w, &op, l))
    };
    for l in 0..LANES {
        if !w.active(l) {
            continue;
        }
        let v0 = vaddr.as_ref().map_or(0, |v| u64::from(v32(w, v, l)));
        let v1 = match (&vaddr, idxen && offen) {
            (
                Some(Op {
                    value: Operand::Reg(rr),
                    ..
                }),
                true,
            ) => u64::from(w.vgpr.get(rr.first as usize + 1).map_or(0, |row| row[l])),
            _ => 0,
        };
        let (vi, vo) = match (idxen, offen) {
            (true, true) => (v0, v1),
            (true, false) => (v0, 0),
            (false, true) => (0, v0),
            _ => (0, 0),
        };
        let off = vi * stride + vo + inst_off + soff;
        let (src, cmp) = if wide {
            (
                vreg(w, 0, l) | vreg(w, 1, l) << 32,
                vreg(w, 2, l) | vreg(w, 3, l) << 32,
            )
        } else {
            (vreg(w, 0, l), vreg(w, 1, l))
        };
        let old = if off + u64::from(size) > bound {
            0
        } else {
            let addr = base.wrapping_add(off);
            let r = match a.op {
                sem::AtomicOp::CmpSwap => x.view.atomic(addr, size, AtomicOp::CmpSwap(cmp), src),
                sem::AtomicOp::PkAddF16 => pk_add_f16(&mut x.view, addr, src as u32),
                op => match rmw_of(op) {
                    Some(op) => x.view.atomic(addr, size, op, src),
                    None => return Err(unsupported(w, i, c.pc)),
                },
            };
            r.map_err(|f| lane_fault(w, i, c.pc, (l, f)))?
        };
        if glc && a.ret == sem::Ret::Glc {
            vwrite(w, &vdata, l, 0, old as u32);
            if wide {
                vwrite(w, &vdata, l, 1, (old >> 32) as u32);
            }
        }
    }
    Ok(Flow::Continue)
}

/// The packed f16 add as a compare-and-swap loop; returns the old dword.
fn pk_add_f16(view: &mut MemView<'_>, addr: u64, v: u32) -> Result<u64, Fault> {
    let mut cur = view.atomic(addr, 4, AtomicOp::Or, 0)?;
    loop {
        let new = alu::packed::pk_add_f16(cur as u32, v, M);
        let seen = view.atomic(addr, 4, AtomicOp::CmpSwap(cur), u64::from(new))?;
        if seen == cur {
            return Ok(cur);
        }
        cur = seen;
    }
}

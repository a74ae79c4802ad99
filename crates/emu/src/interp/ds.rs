//! LDS (DS) operations.

use super::*;

/// LDS operations: reads, writes (incl. read2/write2), atomics and bpermute.
pub(super) fn ds(
    x: &mut Core<'_>,
    w: &mut Wave,
    lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let op = DsOp::of(i.opcode());
    let name = i.opcode().name();
    let w0 = i.words()[0];
    if w0 >> 16 & 1 == 1 {
        return Err(unsupported(w, i, c.pc));
    }
    let off0 = u64::from(w0 & 0xff);
    let off1 = u64::from(w0 >> 8 & 0xff);
    let off16 = u64::from(w0 & 0xffff);
    let addr = c.by_field(Field::Addr).copied();
    let d0 = c.by_field(Field::Data0).copied();
    let d1 = c.by_field(Field::Data1).copied();
    let vdst = c.by_field(Field::Vdst).copied();
    // ds_permute/ds_bpermute/ds_swizzle move data between lanes through
    // the LDS crossbar without touching LDS memory: not accesses.
    let crossbar = op.permute || name == "ds_swizzle_b32";
    if let (Some(log), Some(a), false) = (x.mem_log.as_mut(), addr.as_ref(), crossbar) {
        for l in (0..LANES).filter(|&l| w.active(l)) {
            log.push(crate::record::MemAccess {
                pc: c.pc,
                lane: l as u8,
                addr: u64::from(v32(w, a, l)) + off16,
            });
        }
    }
    if op.permute {
        let (Some(a), Some(d), Some(v)) = (addr, d0, vdst) else {
            return Err(unsupported(w, i, c.pc));
        };
        let (src, sels) = (lanes32(w, &d), lanes32(w, &a));
        let backward = name == "ds_bpermute_b32";
        let mut out = [0u32; LANES];
        let mut written = [false; LANES];
        for l in 0..LANES {
            if !w.active(l) {
                continue;
            }
            let sel = ((sels[l] as u64 + off16) >> 2 & 63) as usize;
            if backward {
                out[l] = if w.active(sel) { src[sel] } else { 0 };
                written[l] = true;
            } else {
                out[sel] = src[l];
                written[sel] = true;
            }
        }
        for l in 0..LANES {
            if w.active(l) {
                vwrite(w, &v, l, 0, if written[l] { out[l] } else { 0 });
            }
        }
        return Ok(Flow::Continue);
    }
    if op.swizzle {
        // Lanes exchange through the swizzle pattern in the offset; LDS is
        // not touched.
        let (Some(a), Some(v)) = (addr, vdst) else {
            return Err(unsupported(w, i, c.pc));
        };
        let out = crate::xlane::ds_swizzle(&lanes32(w, &a), w.exec, off16 as u16);
        write_lanes32(w, &v, &out);
        return Ok(Flow::Continue);
    }
    if op.unmodelled {
        return Err(unsupported(w, i, c.pc));
    }
    let DsOp {
        two,
        st64,
        elem,
        signed,
        read: is_read,
        write: is_write,
        ..
    } = op;
    let atomic = (!is_read && !is_write).then_some(name);
    if (is_read || is_write)
        && elem % 4 == 0
        && ds_dwords(w, lds, &op, [off0, off1, off16], addr, [d0, d1], vdst)
    {
        return Ok(Flow::Continue);
    }
    // A plain read whose every active lane is inside LDS: one bounds check
    // for the wave, results written whole.
    if is_read && !two && w.exec != 0 {
        let base = addr.map_or([0; LANES], |a| lanes32(w, &a));
        let exec = w.exec;
        let hi = (0..LANES)
            .filter(|l| exec >> l & 1 == 1)
            .map(|l| u64::from(base[l]) + off16 + u64::from(elem))
            .max()
            .unwrap_or(0);
        if hi <= lds.len() as u64 {
            let mut vals = [[0u32; LANES]; 4];
            for l in (0..LANES).filter(|l| exec >> l & 1 == 1) {
                let a = (u64::from(base[l]) + off16) as usize;
                let mut buf = [0u8; 16];
                buf[..elem as usize].copy_from_slice(&lds[a..a + elem as usize]);
                let r = load_result(&buf, elem, signed);
                for (k, v) in vals.iter_mut().enumerate() {
                    v[l] = r[k];
                }
            }
            if let Some(v) = vdst {
                for (k, vals) in vals.iter().enumerate().take(elem.div_ceil(4) as usize) {
                    let mut vk = v;
                    if let Operand::Reg(mut r) = vk.value {
                        r.first = r.first.wrapping_add(k as u16);
                        vk.value = Operand::Reg(r);
                    }
                    write_lanes32_masked(w, &vk, vals, exec);
                }
            }
            return Ok(Flow::Continue);
        }
    }
    for l in 0..LANES {
        if !w.active(l) {
            continue;
        }
        let base = addr.map_or(0, |a| u64::from(v32(w, &a, l)));
        if two {
            let scale = elem as u64 * if st64 { 64 } else { 1 };
            let addrs = [base + off0 * scale, base + off1 * scale];
            for (k, a) in addrs.iter().enumerate() {
                if is_read {
                    let b = lds_slice(lds, *a, elem, AccessKind::Read, w, i, c.pc)?;
                    let mut buf = [0u8; 16];
                    buf[..elem as usize].copy_from_slice(b);
                    let r = load_result(&buf, elem, false);
                    if let Some(v) = vdst {
                        for (j, x) in r.iter().enumerate().take((elem / 4) as usize) {
                            vwrite(w, &v, l, k * (elem / 4) as usize + j, *x);
                        }
                    }
                } else {
                    let src = if k == 0 { d0 } else { d1 };
                    let Some(sop) = src else {
                        return Err(unsupported(w, i, c.pc));
                    };
                    let v = if elem == 8 {
                        v64(w, &sop, l)
                    } else {
                        u64::from(v32(w, &sop, l))
                    };
                    lds_slice(lds, *a, elem, AccessKind::Write, w, i, c.pc)?
                        .copy_from_slice(&v.to_le_bytes()[..elem as usize]);
                }
            }
            continue;
        }
        let a = base + off16;
        if is_read {
            let b = lds_slice(lds, a, elem, AccessKind::Read, w, i, c.pc)?;
            let mut buf = [0u8; 16];
            buf[..elem as usize].copy_from_slice(b);
            let r = load_result(&buf, elem, signed);
            if let Some(v) = vdst {
                for (k, x) in r.iter().enumerate().take(elem.div_ceil(4) as usize) {
                    vwrite(w, &v, l, k, *x);
                }
            }
        } else if is_write {
            let Some(sop) = d0 else {
                return Err(unsupported(w, i, c.pc));
            };
            let mut b = [0u8; 16];
            let Operand::Reg(r) = sop.value else {
                return Err(unsupported(w, i, c.pc));
            };
            for k in 0..elem.div_ceil(4) as usize {
                let v = w.vgpr.get(r.first as usize + k).map_or(0, |x| x[l]);
                b[k * 4..k * 4 + 4].copy_from_slice(&v.to_le_bytes());
            }
            lds_slice(lds, a, elem, AccessKind::Write, w, i, c.pc)?
                .copy_from_slice(&b[..elem as usize]);
        } else if let Some(n) = atomic {
            let wide = n.ends_with("64");
            let size = if wide { 8u32 } else { 4 };
            let slot = lds_slice(lds, a, size, AccessKind::Atomic, w, i, c.pc)?;
            let old = if wide {
                u64::from_le_bytes(slot[..8].try_into().unwrap_or([0; 8]))
            } else {
                u64::from(u32::from_le_bytes(slot[..4].try_into().unwrap_or([0; 4])))
            };
            let Some(sop) = d0 else {
                return Err(unsupported(w, i, c.pc));
            };
            let v = if wide {
                v64(w, &sop, l)
            } else {
                u64::from(v32(w, &sop, l))
            };
            let new = if n.contains("cmpst") {
                let Some(s1) = d1 else {
                    return Err(unsupported(w, i, c.pc));
                };
                let src = if wide {
                    v64(w, &s1, l)
                } else {
                    u64::from(v32(w, &s1, l))
                };
                if old == v {
                    src
                } else {
                    old
                }
            } else {
                let op = if n.contains("add_f32") {
                    Some(AtomicOp::FAdd)
                } else {
                    atomic_op(n)
                };
                let Some(op) = op else {
                    return Err(unsupported(w, i, c.pc));
                };
                rmw(op, old, v, size).unwrap_or(old)
            };
            slot.copy_from_slice(&new.to_le_bytes()[..size as usize]);
            if n.contains("_rtn_") || n.starts_with("ds_wrxchg") {
                if let Some(vd) = vdst {
                    vwrite(w, &vd, l, 0, old as u32);
                    if wide {
                        vwrite(w, &vd, l, 1, (old >> 32) as u32);
                    }
                }
            }
        }
    }
    Ok(Flow::Continue)
}

/// The VGPR rows `first..first + n` of a VGPR operand, when they are all
/// real registers.
fn vgpr_rows(w: &Wave, op: Option<Op>, n: usize) -> Option<usize> {
    match op?.value {
        Operand::Reg(r) if r.file == RegFile::Vgpr && r.first as usize + n <= w.temp_base() => {
            Some(r.first as usize)
        }
        _ => None,
    }
}

/// Whole-dword DS reads and writes (incl. read2/write2) between LDS and
/// VGPRs when every active lane's accesses lie inside LDS: one bounds check
/// for the wave, lanes in the general path's order. Returns `false` (and
/// does nothing) when the operands or addresses need the general path, which
/// also reports the fault.
fn ds_dwords(
    w: &mut Wave,
    lds: &mut [u8],
    op: &DsOp,
    [off0, off1, off16]: [u64; 3],
    addr: Option<Op>,
    data: [Option<Op>; 2],
    vdst: Option<Op>,
) -> bool {
    let exec = w.exec;
    let dw = (op.elem / 4) as usize;
    let Some(a) = vgpr_rows(w, addr, 1) else {
        return false;
    };
    let (offs, nslot) = if op.two {
        let scale = u64::from(op.elem) * if op.st64 { 64 } else { 1 };
        ([off0 * scale, off1 * scale], 2)
    } else {
        ([off16, 0], 1)
    };
    if exec == 0 {
        return false;
    }
    let base = &w.vgpr[a];
    // The highest active address.
    let hi = if exec == u64::MAX {
        base.iter().copied().max().unwrap_or(0)
    } else {
        let mut hi = 0;
        let mut m = exec;
        while m != 0 {
            hi = hi.max(base[m.trailing_zeros() as usize]);
            m &= m - 1;
        }
        hi
    };
    let top = offs[..nslot].iter().max().copied().unwrap_or(0);
    if u64::from(hi) + top + u64::from(op.elem) > lds.len() as u64 {
        return false;
    }
    let base = *base;
    // The active lanes, lowest first.
    let lanes = move || {
        let mut m = exec;
        std::iter::from_fn(move || {
            (m != 0).then(|| {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                l
            })
        })
    };
    if op.write {
        let mut rows = [0usize; 2];
        for (k, r) in rows.iter_mut().enumerate().take(nslot) {
            match vgpr_rows(w, data[k], dw) {
                Some(f) => *r = f,
                None => return false,
            }
        }
        if dw == 1 && nslot == 1 {
            let (src, off) = (&w.vgpr[rows[0]], offs[0] as usize);
            for l in lanes() {
                let at = base[l] as usize + off;
                lds[at..at + 4].copy_from_slice(&src[l].to_le_bytes());
            }
            return true;
        }
        // Lane by lane, each lane's elements in order (overlapping
        // addresses end up as the general path leaves them).
        for l in lanes() {
            for (off, row) in offs.iter().zip(rows).take(nslot) {
                let at = (u64::from(base[l]) + off) as usize;
                for j in 0..dw {
                    let v = w.vgpr[row + j][l];
                    lds[at + 4 * j..at + 4 * j + 4].copy_from_slice(&v.to_le_bytes());
                }
            }
        }
    } else {
        let Some(v) = vgpr_rows(w, vdst, dw * nslot) else {
            return false;
        };
        // Reads leave LDS as it is: one destination row at a time.
        for (k, off) in offs.iter().enumerate().take(nslot) {
            for j in 0..dw {
                let dst = &mut w.vgpr[v + k * dw + j];
                let o = *off as usize + 4 * j;
                for l in lanes() {
                    let at = base[l] as usize + o;
                    let b = &lds[at..at + 4];
                    dst[l] = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
            }
        }
    }
    true
}

/// What a DS opcode does, worked out from its mnemonic once per opcode
/// (not per executed instruction).
#[derive(Clone, Copy, Default)]
pub(super) struct DsOp {
    /// `ds_bpermute_b32` / `ds_permute_b32`.
    permute: bool,
    /// `ds_swizzle_b32`.
    swizzle: bool,
    /// GWS, append and consume: not modelled.
    unmodelled: bool,
    /// `read2`/`write2` forms.
    two: bool,
    /// `st64` forms.
    st64: bool,
    /// Element bytes.
    elem: u32,
    /// Sign-extending read.
    signed: bool,
    read: bool,
    write: bool,
}

impl DsOp {
    pub(super) fn of(op: Opcode) -> DsOp {
        static T: OnceLock<Vec<DsOp>> = OnceLock::new();
        let t = T.get_or_init(|| {
            Opcode::all()
                .map(|o| DsOp::from_name(o.info().name))
                .collect()
        });
        if op.is_invalid() {
            return DsOp::default();
        }
        t.get(op.index() as usize).copied().unwrap_or_default()
    }

    pub(super) fn from_name(name: &str) -> DsOp {
        let two = name.contains("read2") || name.contains("write2");
        let (elem, signed) = if two {
            if name.ends_with("b64") {
                (8, false)
            } else {
                (4, false)
            }
        } else {
            match name {
                n if n.contains("u8") || n.ends_with("_b8") => (1, false),
                n if n.contains("i8") => (1, true),
                n if n.contains("u16") && !n.starts_with("ds_add") || n.ends_with("_b16") => {
                    (2, false)
                }
                n if n.contains("i16") => (2, true),
                n => mem_width(n),
            }
        };
        DsOp {
            permute: name == "ds_bpermute_b32" || name == "ds_permute_b32",
            swizzle: name == "ds_swizzle_b32",
            unmodelled: name.contains("gws") || name.contains("append") || name.contains("consume"),
            two,
            st64: name.contains("st64"),
            elem,
            signed,
            read: name.starts_with("ds_read"),
            write: name.starts_with("ds_write"),
        }
    }
}

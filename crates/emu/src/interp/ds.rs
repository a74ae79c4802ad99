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
    let op = DsOp::of(c.sem);
    if op.nop {
        return Ok(Flow::Continue);
    }
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
    let crossbar = op.permute || op.swizzle;
    if let (Some(log), Some(a), false) = (x.mem_log.as_mut(), addr.as_ref(), crossbar) {
        for l in (0..LANES).filter(|&l| w.active(l)) {
            log.push(crate::record::MemAccess {
                pc: c.pc,
                lane: l as u8,
                addr: lds_addr(u64::from(v32(w, a, l)), off16),
            });
        }
    }
    if op.permute {
        let (Some(a), Some(d), Some(v)) = (addr, d0, vdst) else {
            return Err(unsupported(w, i, c.pc));
        };
        let (src, sels) = (lanes32(w, &d), lanes32(w, &a));
        let backward = op.backward;
        let mut out = [0u32; LANES];
        let mut written = [false; LANES];
        for l in 0..LANES {
            if !w.active(l) {
                continue;
            }
            let sel = ((sels[l] as u64 + off16) >> 2 & u64::from(w.size.lanes() - 1)) as usize;
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
        atomic,
        d16,
        ..
    } = op;
    if !x.lds_shadow.is_empty() {
        lds_initcheck(x, w, &op, [off0, off1, off16], addr);
    }
    if x.view.check_mut().is_some_and(|c| c.checks.memcheck) {
        lds_memcheck(x, w, lds.len(), &op, [off0, off1, off16], addr);
    }
    if x.race.is_some() {
        lds_racecheck(x, w, lds, &op, [off0, off1, off16], addr, [d0, d1], c.pc);
    }
    if (is_read || is_write)
        && elem % 4 == 0
        && ds_dwords(w, lds, &op, [off0, off1, off16], addr, [d0, d1], vdst)
    {
        return Ok(Flow::Continue);
    }
    // A plain read whose every active lane is inside LDS: one bounds check
    // for the wave, results written whole.
    if is_read && !two && d16 == sem::D16::No && w.exec != 0 {
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
            let addrs = [lds_addr(base, off0 * scale), lds_addr(base, off1 * scale)];
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
        let a = lds_addr(base, off16);
        if is_read {
            let b = lds_slice(lds, a, elem, AccessKind::Read, w, i, c.pc)?;
            let mut buf = [0u8; 16];
            buf[..elem as usize].copy_from_slice(b);
            let r = load_result(&buf, elem, signed);
            if let Some(v) = vdst {
                // D16 reads replace one half and keep the other.
                let r0 = match d16 {
                    sem::D16::No => r[0],
                    _ => super::vmem::d16_merge(d16, v32(w, &v, l), r[0]),
                };
                vwrite(w, &v, l, 0, r0);
                for (k, x) in r.iter().enumerate().take(elem.div_ceil(4) as usize).skip(1) {
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
                // `_d16_hi` writes store the high half.
                let v = if d16 == sem::D16::Hi { v >> 16 } else { v };
                b[k * 4..k * 4 + 4].copy_from_slice(&v.to_le_bytes());
            }
            lds_slice(lds, a, elem, AccessKind::Write, w, i, c.pc)?
                .copy_from_slice(&b[..elem as usize]);
        } else if let Some(at) = atomic {
            let size = elem;
            let wide = size == 8;
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
            // The second data operand (cmpst: the new value; mskor: the
            // bits to set).
            let data1 = |w: &Wave| {
                d1.map(|s1| {
                    if wide {
                        v64(w, &s1, l)
                    } else {
                        u64::from(v32(w, &s1, l))
                    }
                })
                .ok_or_else(|| unsupported(w, i, c.pc))
            };
            let mask = if wide { u64::MAX } else { u64::from(u32::MAX) };
            let new = match at.op {
                sem::AtomicOp::CmpSt if old == v => data1(w)?,
                sem::AtomicOp::CmpStF if float_eq(old, v, wide) => data1(w)?,
                sem::AtomicOp::CmpSt | sem::AtomicOp::CmpStF => old,
                sem::AtomicOp::Rsub => v.wrapping_sub(old) & mask,
                sem::AtomicOp::Mskor => (old & !v) | data1(w)?,
                other => {
                    let Some(op) = rmw_of(other) else {
                        return Err(unsupported(w, i, c.pc));
                    };
                    rmw(op, old, v, size).unwrap_or(old)
                }
            };
            slot.copy_from_slice(&new.to_le_bytes()[..size as usize]);
            if at.ret == sem::Ret::Yes {
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

/// initcheck on LDS: every active lane's bytes, read before anything wrote
/// them since the work-group started, are reported; writes and atomics
/// mark them. Addresses outside LDS are left to the access (its fault).
fn lds_initcheck(
    x: &mut Core<'_>,
    w: &Wave,
    op: &DsOp,
    [off0, off1, off16]: [u64; 3],
    addr: Option<Op>,
) {
    let elem = op.elem as usize;
    let (offs, n) = if op.two {
        let scale = op.elem as u64 * if op.st64 { 64 } else { 1 };
        ([off0 * scale, off1 * scale], 2)
    } else {
        ([off16, 0], 1)
    };
    let reads = op.read;
    let shadow = &mut x.lds_shadow;
    let mut found: Vec<(usize, u64)> = Vec::new();
    for l in (0..LANES).filter(|&l| w.active(l)) {
        let base = addr.map_or(0, |a| u64::from(v32(w, &a, l)));
        for off in &offs[..n] {
            let a = lds_addr(base, *off) as usize;
            let Some(s) = a.checked_add(elem).and_then(|e| shadow.get_mut(a..e)) else {
                continue;
            };
            if reads {
                if s.contains(&0) {
                    found.push((l, a as u64));
                }
            } else {
                s.fill(1);
            }
        }
    }
    if found.is_empty() {
        return;
    }
    let size = shadow.len() as u64;
    if let Some(c) = x.view.check_mut() {
        for (l, a) in found {
            c.lane = Some(l as u8);
            c.note(
                Kind::UninitializedLds,
                Access::Read,
                op.elem,
                a,
                Some((0, size)),
            );
        }
    }
}

/// memcheck on LDS: the first active lane (in the order the access runs)
/// whose access lies past the LDS size is noted with its lane; the access
/// itself then stops the dispatch ([`Stop::LdsFault`], which carries no
/// lane).
/// How an LDS instruction accesses memory, for the checkers: the access
/// kind (`None`: it neither reads nor writes), and its byte offsets from
/// each lane's address (two for the `*2*` forms, scaled by the element and
/// `st64`), with how many of them are used.
fn lane_offsets(op: &DsOp, [off0, off1, off16]: [u64; 3]) -> Option<(Access, [u64; 2], usize)> {
    let access = if op.atomic.is_some() {
        Access::Atomic
    } else if op.write {
        Access::Write
    } else if op.read {
        Access::Read
    } else {
        return None;
    };
    Some(if op.two {
        let scale = u64::from(op.elem) * if op.st64 { 64 } else { 1 };
        (access, [off0 * scale, off1 * scale], 2)
    } else {
        (access, [off16, 0], 1)
    })
}

fn lds_memcheck(
    x: &mut Core<'_>,
    w: &Wave,
    len: usize,
    op: &DsOp,
    [off0, off1, off16]: [u64; 3],
    addr: Option<Op>,
) {
    let Some((access, offs, n)) = lane_offsets(op, [off0, off1, off16]) else {
        return;
    };
    for l in (0..LANES).filter(|&l| w.active(l)) {
        let base = addr.map_or(0, |a| u64::from(v32(w, &a, l)));
        for off in &offs[..n] {
            let a = lds_addr(base, *off);
            if a + u64::from(op.elem) > len as u64 {
                if let Some(c) = x.view.check_mut() {
                    c.lane = Some(l as u8);
                    c.note(
                        Kind::LdsOutOfBounds,
                        access,
                        op.elem,
                        a,
                        Some((0, len as u64)),
                    );
                    c.lane = None;
                }
                return;
            }
        }
    }
}

/// racecheck on LDS ([`crate::check::race`]): every active lane's access
/// of this instruction, before it is performed, against the work-group's
/// race shadow; hazards are noted for the instruction.
#[allow(clippy::too_many_arguments)]
fn lds_racecheck(
    x: &mut Core<'_>,
    w: &Wave,
    lds: &[u8],
    op: &DsOp,
    [off0, off1, off16]: [u64; 3],
    addr: Option<Op>,
    data: [Option<Op>; 2],
    pc: u64,
) {
    let Some(race) = x.race.as_mut() else {
        return;
    };
    let Some((access, offs, n)) = lane_offsets(op, [off0, off1, off16]) else {
        return;
    };
    let size = op.elem.min(16) as u8;
    let mut accs = std::mem::take(&mut race.buf);
    accs.clear();
    for l in (0..LANES).filter(|&l| w.active(l)) {
        let base = addr.map_or(0, |a| u64::from(v32(w, &a, l)));
        for (k, off) in offs[..n].iter().enumerate() {
            let mut bytes = [0u8; 16];
            if access == Access::Write {
                if let Some(Operand::Reg(r)) = data[k].map(|d| d.value) {
                    for j in 0..usize::from(size).div_ceil(4) {
                        let v = w.vgpr.get(r.first as usize + j).map_or(0, |x| x[l]);
                        let v = if op.d16 == sem::D16::Hi { v >> 16 } else { v };
                        bytes[j * 4..j * 4 + 4].copy_from_slice(&v.to_le_bytes());
                    }
                }
            }
            accs.push(crate::check::race::LaneAccess {
                lane: l as u8,
                addr: lds_addr(base, *off) as u32,
                size,
                access,
                bytes,
            });
        }
    }
    let mut found = Vec::new();
    race.access(w.index, pc, &accs, lds, &mut found);
    race.buf = accs;
    if found.is_empty() {
        return;
    }
    if let Some(c) = x.view.check_mut() {
        c.pending.extend(found);
    }
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

/// What a DS opcode does, from its description ([`lathe_isa::sem`]).
#[derive(Clone, Copy)]
pub(super) struct DsOp {
    /// `ds_nop`.
    nop: bool,
    /// `ds_bpermute_b32` / `ds_permute_b32`.
    permute: bool,
    /// `ds_bpermute_b32` (lanes pull).
    backward: bool,
    /// `ds_swizzle_b32`.
    swizzle: bool,
    /// Append, consume, the `addtid` forms and the two-address exchange:
    /// not modelled yet.
    unmodelled: bool,
    /// `read2`/`write2` forms.
    two: bool,
    /// `st64` forms.
    st64: bool,
    /// Element bytes.
    elem: u32,
    /// Sign-extending read.
    signed: bool,
    /// Which half a D16 read replaces.
    d16: sem::D16,
    read: bool,
    write: bool,
    /// A read-modify-write.
    atomic: Option<sem::Atomic>,
}

impl DsOp {
    pub(super) fn of(s: Sem) -> DsOp {
        let none = DsOp {
            nop: false,
            permute: false,
            backward: false,
            swizzle: false,
            unmodelled: false,
            two: false,
            st64: false,
            elem: 4,
            signed: false,
            d16: sem::D16::No,
            read: false,
            write: false,
            atomic: None,
        };
        let m = match s {
            Sem::Ds(d) => {
                return match d {
                    sem::DsOp::Nop => DsOp { nop: true, ..none },
                    sem::DsOp::Permute => DsOp {
                        permute: true,
                        ..none
                    },
                    sem::DsOp::Bpermute => DsOp {
                        permute: true,
                        backward: true,
                        ..none
                    },
                    sem::DsOp::Swizzle => DsOp {
                        swizzle: true,
                        ..none
                    },
                    sem::DsOp::Append
                    | sem::DsOp::Consume
                    | sem::DsOp::ReadAddTid
                    | sem::DsOp::WriteAddTid
                    | sem::DsOp::ReadTr { .. } => DsOp {
                        unmodelled: true,
                        ..none
                    },
                }
            }
            Sem::Mem(m) if m.space == Space::Lds => m,
            _ => {
                return DsOp {
                    unmodelled: true,
                    ..none
                }
            }
        };
        let base = DsOp {
            elem: u32::from(m.size) * u32::from(m.elems),
            signed: m.signed,
            d16: m.d16,
            ..none
        };
        match m.op {
            MemOp::Load => DsOp { read: true, ..base },
            MemOp::Store => DsOp {
                write: true,
                ..base
            },
            MemOp::Load2 { st64 } => DsOp {
                read: true,
                two: true,
                st64,
                ..base
            },
            MemOp::Store2 { st64 } => DsOp {
                write: true,
                two: true,
                st64,
                ..base
            },
            MemOp::Atomic(a) => DsOp {
                atomic: Some(a),
                ..base
            },
            MemOp::Xchg2 { .. } | MemOp::LoadToLds => DsOp {
                unmodelled: true,
                ..base
            },
        }
    }
}

/// IEEE equality of two f32 (or f64, `wide`) bit patterns (`ds_cmpst_f*`).
fn float_eq(a: u64, b: u64, wide: bool) -> bool {
    if wide {
        f64::from_bits(a) == f64::from_bits(b)
    } else {
        f32::from_bits(a as u32) == f32::from_bits(b as u32)
    }
}

/// An LDS address: the VGPR base plus the instruction's offset, added in
/// 32 bits as the hardware does (compiled code folds `tile[63 - t]` into a
/// negative base and a positive offset).
fn lds_addr(base: u64, off: u64) -> u64 {
    base.wrapping_add(off) & 0xFFFF_FFFF
}

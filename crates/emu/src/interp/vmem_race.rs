//! racecheck's look at global memory (`crate::check::global`, D33): the
//! device addresses of a FLAT/GLOBAL or MUBUF instruction's active lanes,
//! worked out as the handlers do, handed over before the access (plain
//! accesses checked and recorded, synchronising ones released) and, for
//! synchronising accesses, again after it (acquired).
//!
//! Synchronising: read-modify-write atomics, and loads and stores with
//! GLC/SC0 (FLAT bit 16, MUBUF bit 14), SC1 on gfx942 or SCC on gfx90a
//! (FLAT bit 25, MUBUF bit 15): the AMDGPU memory model's atomic and
//! volatile loads and stores carry those bits (gfx90a's atomic stores
//! carry none, which the acquire's look at the last plain write covers).
//! Every synchronising access releases; only those that return a value
//! (loads, and atomics with GLC/SC0) acquire.
//! Not looked at: SCRATCH and private-segment buffers (one lane's own
//! memory), FLAT lanes in the LDS or private aperture, MTBUF, LDS-direct
//! loads and scalar loads.

use super::*;
use crate::check::global::LaneAccess;

/// Before the instruction at `c.pc` runs: returns the bytes per lane of a
/// synchronising access that returns a value (its addresses kept for
/// [`after`], the acquire), `None` for anything else.
pub(super) fn before(x: &mut Core<'_>, w: &Wave, i: &Instruction, c: &Ctx) -> Option<u8> {
    let Sem::Mem(m) = c.sem else {
        return None;
    };
    let w0 = i.words()[0];
    let (sync_bits, data) = match m.space {
        Space::Flat | Space::Global => (w0 & (1 << 16 | 1 << 25) != 0, Field::Data),
        Space::Buffer => (w0 & (1 << 14 | 1 << 15) != 0, Field::Vdata),
        _ => return None,
    };
    let (write, atomic) = match m.op {
        MemOp::Load => (false, false),
        MemOp::Store => (true, false),
        MemOp::Atomic(_) => (true, true),
        _ => return None,
    };
    let width = if atomic {
        m.size
    } else {
        m.size.saturating_mul(m.elems)
    };
    let n = u32::from(width);
    let mut addrs = [0u64; LANES];
    let live = match m.space {
        Space::Buffer => buffer_addrs(w, i, c, n, &mut addrs)?,
        _ => {
            let offset = flat_offset(i);
            let addr_op = c.by_field(Field::Addr);
            let saddr = c
                .by_field(Field::Saddr)
                .filter(|o| !matches!(o.value, Operand::Off));
            addrs = flat_addrs(w, addr_op, saddr, offset);
            let mut live = w.exec;
            if i.encoding().family() == Encoding::Flat {
                for l in lanes_of(w.exec) {
                    if !matches!(flat_place(w, addrs[l], l), Place::Global(g) if g == addrs[l]) {
                        live &= !(1 << l);
                    }
                }
            }
            live
        }
    };
    let g = x.global.as_deref_mut()?;
    if atomic || sync_bits {
        // The list is the thread's, reused from one instruction to the next.
        let mut list = std::mem::take(&mut g.pending);
        list.clear();
        list.extend(lanes_of(live).map(|l| addrs[l]));
        g.release(w.workgroup, &list, width);
        g.pending = list;
        // Only an access that returns a value can acquire: a load, or an
        // atomic with GLC/SC0 (the returning form). A store, or an atomic
        // whose result is not returned, observes nothing the wave could
        // order its later accesses by (D33).
        let returns = match m.space {
            Space::Buffer => w0 & 1 << 14 != 0,
            _ => w0 & 1 << 16 != 0,
        };
        return (!write || returns).then_some(width);
    }
    let bytes = match (write, c.by_field(data).map(|d| d.value)) {
        (true, Some(Operand::Reg(r))) => Some(store_bytes(w, r, n, m.d16)),
        (true, _) => return None,
        (false, _) => None,
    };
    let mut buf = std::mem::take(&mut g.buf);
    buf.clear();
    for l in lanes_of(live) {
        buf.push(LaneAccess {
            lane: l as u8,
            addr: addrs[l],
            size: width.min(16),
            bytes: bytes.as_ref().map_or([0; 16], |b| b[l]),
        });
    }
    g.plain(w.workgroup, w.index, c.pc, i, write, &buf);
    g.buf = buf;
    None
}

/// After a synchronising access of `width` bytes per lane: the acquire.
pub(super) fn after(x: &mut Core<'_>, w: &Wave, width: u8) {
    if let Some(g) = x.global.as_deref_mut() {
        let list = std::mem::take(&mut g.pending);
        g.acquire(w.workgroup, &list, width);
        g.pending = list;
    }
}

/// The device addresses of a MUBUF instruction's lanes that access
/// memory (as `vmem::mubuf` and `buffer_atomic` work them out); `None`
/// for the private segment (ADD_TID_ENABLE) and LDS forms.
fn buffer_addrs(
    w: &Wave,
    i: &Instruction,
    c: &Ctx,
    n: u32,
    addrs: &mut [u64; LANES],
) -> Option<u64> {
    let w0 = i.words()[0];
    if w0 >> 16 & 1 == 1 {
        return None;
    }
    let inst_off = u64::from(w0 & 0xfff);
    let offen = w0 >> 12 & 1 == 1;
    let idxen = w0 >> 13 & 1 == 1;
    let Operand::Reg(r) = c.by_field(Field::Srsrc)?.value else {
        return None;
    };
    let d: [u32; 4] = std::array::from_fn(|k| sreg_read(w, r.first + k as u16));
    if d[3] >> 23 & 1 == 1 {
        return None;
    }
    let base = u64::from(d[0]) | (u64::from(d[1] & 0xffff) << 32);
    let stride = u64::from(d[1] >> 16 & 0x3fff);
    let bound = u64::from(d[2]) * stride.max(1);
    let soff = c
        .by_field(Field::Soffset)
        .map_or(0, |o| u64::from(s32(w, o)));
    let vaddr = c
        .by_field(Field::Vaddr)
        .filter(|o| !matches!(o.value, Operand::Off));
    let row = |k: u16, l: usize| match vaddr.map(|v| v.value) {
        Some(Operand::Reg(rr)) if rr.file == RegFile::Vgpr => w
            .vgpr
            .get(usize::from(rr.first) + usize::from(k))
            .map_or(0, |row| u64::from(row[l])),
        Some(_) if k == 0 => vaddr.map_or(0, |v| u64::from(v32(w, v, l))),
        _ => 0,
    };
    let mut live = 0u64;
    for l in lanes_of(w.exec) {
        let (vi, vo) = match (idxen, offen) {
            (true, true) => (row(0, l), row(1, l)),
            (true, false) => (row(0, l), 0),
            (false, true) => (0, row(0, l)),
            _ => (0, 0),
        };
        let off = vi * stride + vo + inst_off + soff;
        if off + u64::from(n) > bound {
            continue;
        }
        addrs[l] = base.wrapping_add(off);
        live |= 1 << l;
    }
    Some(live)
}

fn lanes_of(mask: u64) -> impl Iterator<Item = usize> {
    (0..LANES).filter(move |l| mask >> l & 1 == 1)
}

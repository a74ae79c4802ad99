//! Scalar memory beyond plain loads: `s_store_*`, `s_atomic_*`, the
//! buffer forms `s_buffer_load/store/atomic_*` and the scalar scratch
//! accesses `s_scratch_load/store_*`.
//!
//! * `s_*`: the address is the 64-bit SBASE pair plus the offset (the
//!   immediate, or SOFFSET's SGPR), as for `s_load`.
//! * `s_buffer_*`: SBASE names a 4-SGPR buffer resource; the address is its
//!   48-bit base plus the offset. A dword whose offset is at or past the
//!   buffer's size (NUM_RECORDS bytes, times STRIDE when that is set) reads
//!   zero and is not written; an atomic out of range does nothing and
//!   returns zero.
//! * Atomics operate on 4 or 8 bytes (`_x2`) as one sequentially consistent
//!   read-modify-write (`MemView::atomic`, D17); `cmpswap` takes {new,
//!   compare} from SDATA. With GLC set the old value is written back to
//!   SDATA.
//!
//! Stores move the data through `MemView::write_bytes`, so every naturally
//! aligned dword and dword pair is single-copy atomic (D17).

use super::*;

/// Byte offset of an SMEM access (immediate or SGPR, plus SOFFSET when
/// present).
pub(super) fn smem_offset(w: &Wave, c: &Ctx) -> u64 {
    let off = match c.by_field(Field::Offset).map(|o| o.value) {
        Some(Operand::Imm(v)) => v as u64,
        Some(Operand::Literal(v)) => u64::from(v),
        Some(_) => c
            .by_field(Field::Offset)
            .map_or(0, |o| u64::from(s32(w, o))),
        None => 0,
    };
    let soff = c
        .by_field(Field::Soffset)
        .map_or(0, |o| u64::from(s32(w, o)));
    off.wrapping_add(soff)
}

/// The address and, for a buffer access, the number of bytes from it that
/// lie inside the buffer.
fn target(w: &Wave, c: &Ctx, space: Space) -> Option<(u64, Option<u64>)> {
    let base = c.by_field(Field::Sbase).copied()?;
    if space == Space::ScalarScratch {
        return Some((s64(w, &base).wrapping_add(scratch_offset(w, c)), None));
    }
    let off = smem_offset(w, c);
    if space == Space::ScalarBuffer {
        let Operand::Reg(r) = base.value else {
            return None;
        };
        let d: [u32; 4] = std::array::from_fn(|k| sreg_read(w, r.first + k as u16));
        let b = u64::from(d[0]) | u64::from(d[1] & 0xffff) << 32;
        let stride = u64::from(d[1] >> 16 & 0x3fff);
        let bound = u64::from(d[2]) * stride.max(1);
        Some((b.wrapping_add(off), Some(bound.saturating_sub(off))))
    } else {
        Some((s64(w, &base).wrapping_add(off), None))
    }
}

/// The offset of `s_scratch_*` (MI200 ISA, SMEM opcodes 5-7 and 21-23):
/// an SGPR offset counts 64-byte units ("consistent with other scratch
/// operations"), an immediate is a signed byte offset. The scratch memory
/// is addressed linearly from SBASE, which the shader composes (the wave's
/// scratch base): the scalar data cache sees no per-lane swizzle.
fn scratch_offset(w: &Wave, c: &Ctx) -> u64 {
    let unit = |o: &Op| u64::from(s32(w, o)) * 64;
    let off = match c.by_field(Field::Offset) {
        Some(o) => match o.value {
            Operand::Imm(v) => v as u64,
            Operand::Literal(v) => u64::from(v),
            _ => unit(o),
        },
        None => 0,
    };
    off.wrapping_add(c.by_field(Field::Soffset).map_or(0, unit))
}

/// `s_buffer_load_*` (bounds-checked per dword), `s_store_*`,
/// `s_buffer_store_*`, `s_atomic_*`, `s_buffer_atomic_*`,
/// `s_scratch_load/store_*`.
pub(super) fn smem_rw(
    x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let Sem::Mem(m) = c.sem else {
        return Err(unsupported(w, i, c.pc));
    };
    let (Some(sdata), Some((addr, room))) =
        (c.by_field(Field::Sdata).copied(), target(w, c, m.space))
    else {
        return Err(unsupported(w, i, c.pc));
    };
    let Operand::Reg(r) = sdata.value else {
        return Err(unsupported(w, i, c.pc));
    };
    let glc = i.words()[0] >> 16 & 1 == 1;
    let fits = |k: u64, n: u64| room.is_none_or(|room| k + n <= room);
    match m.op {
        MemOp::Load => {
            let n = (m.size as usize * m.elems as usize / 4).min(16);
            // The dwords inside the buffer (a prefix) in one access; the
            // rest read zero.
            let inside = (0..n).take_while(|&k| fits(4 * k as u64, 4)).count();
            let mut b = [0u8; 64];
            x.view
                .read_bytes(addr, &mut b[..4 * inside])
                .map_err(|f| fault(w, i, c.pc, f))?;
            for (k, d) in b.chunks_exact(4).enumerate().take(n) {
                sreg_write(
                    w,
                    r.first + k as u16,
                    u32::from_le_bytes([d[0], d[1], d[2], d[3]]),
                );
            }
        }
        MemOp::Store => {
            let n = m.size as usize * m.elems as usize / 4;
            let bytes: Vec<u8> = (0..n)
                .flat_map(|k| sreg_read(w, r.first + k as u16).to_le_bytes())
                .collect();
            if fits(0, bytes.len() as u64) {
                x.view
                    .write_bytes(addr, &bytes)
                    .map_err(|f| fault(w, i, c.pc, f))?;
            } else {
                for (k, d) in bytes.chunks_exact(4).enumerate() {
                    let k = 4 * k as u64;
                    if fits(k, 4) {
                        x.view
                            .write_bytes(addr.wrapping_add(k), d)
                            .map_err(|f| fault(w, i, c.pc, f))?;
                    }
                }
            }
        }
        MemOp::Atomic(a) => {
            let size = u32::from(m.size);
            let wide = size == 8;
            let reg = |k: u16| u64::from(sreg_read(w, r.first + k));
            let (operand, cmp) = if wide {
                (reg(0) | reg(1) << 32, reg(2) | reg(3) << 32)
            } else {
                (reg(0), reg(1))
            };
            let old = if !fits(0, u64::from(size)) {
                0
            } else {
                match a.op {
                    sem::AtomicOp::CmpSwap => {
                        x.view.atomic(addr, size, AtomicOp::CmpSwap(cmp), operand)
                    }
                    op => match rmw_of(op) {
                        Some(op) => x.view.atomic(addr, size, op, operand),
                        None => return Err(unsupported(w, i, c.pc)),
                    },
                }
                .map_err(|f| fault(w, i, c.pc, f))?
            };
            if glc && a.ret == sem::Ret::Glc {
                sreg_write(w, r.first, old as u32);
                if wide {
                    sreg_write(w, r.first + 1, (old >> 32) as u32);
                }
            }
        }
        _ => return Err(unsupported(w, i, c.pc)),
    }
    Ok(Flow::Continue)
}

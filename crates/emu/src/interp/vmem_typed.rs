//! MTBUF `tbuffer_load/store_format_*` and MUBUF `buffer_load/store_format_*`
//! data movement (MTBUF's format from the instruction, MUBUF's from the
//! buffer resource): after MUBUF's
//! addressing (`vmem::mubuf`: index, offsets, range check, the swizzled
//! private segment), each active lane moves one element of the
//! instruction's data format and converts its components
//! ([`alu::bufmt`]).
//!
//! * Loads write the instruction's component count (x to xyzw) from v0 on;
//!   d16 forms pack two 16-bit components per VGPR (x in the low half; the
//!   high half of an odd count's last VGPR is 0). A lane outside the
//!   buffer's range converts an all-zero element. MUBUF format loads
//!   route each result through the resource's DST_SEL: 0 gives 0, 1 gives
//!   one (1.0 for the float-valued number formats), 4 to 7 the element's
//!   x to w (a component the format lacks reads as above); 2 and 3 are
//!   reserved and stop as unsupported. `_d16_hi_x` loads write the high
//!   half and keep the low one.
//! * Stores build the element from the components given; with fewer
//!   components than the format has, only the bytes holding the given ones
//!   are written (a packed format's shared byte takes 0 for the missing
//!   component's bits). Lanes out of range write nothing. DST_SEL does not
//!   apply to stores; `_d16_hi_x` stores take x from the high half.

use super::*;
use alu::bufmt::{self, Dfmt, Nfmt};

/// Reads (`store` false) or writes lane `l`'s bytes `buf` at `addr`, or at
/// byte `addr` of the swizzled private segment `seg` (its base and the
/// wave's lanes).
fn access(
    x: &mut Core<'_>,
    seg: Option<(u64, u32)>,
    addr: u64,
    l: usize,
    buf: &mut [u8],
    store: bool,
) -> Result<(), Fault> {
    let Some((seg, lanes)) = seg else {
        return if store {
            x.view.write_bytes(addr, buf)
        } else {
            x.view.read_bytes(addr, buf)
        };
    };
    let n = buf.len() as u64;
    let mut k = 0;
    while k < n {
        let chunk = (n - k).min(4 - (addr + k) % 4);
        let a = vmem::buffer_private(seg, addr + k, l, lanes);
        let part = &mut buf[k as usize..(k + chunk) as usize];
        if store {
            x.view.write_bytes(a, part)?;
        } else {
            x.view.read_bytes(a, part)?;
        }
        k += chunk;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub(super) fn typed(
    x: &mut Core<'_>,
    w: &mut Wave,
    i: &Instruction,
    c: &Ctx,
    addrs: &[u64; LANES],
    live: u64,
    seg: Option<(u64, u32)>,
    (d, nf, m, dst_sel): (Dfmt, Nfmt, sem::Mem, Option<[u32; 4]>),
    vdata: Op,
) -> Result<Flow, Stop> {
    let comps = usize::from(m.elems);
    let d16 = m.d16 != sem::D16::No;
    let hi = m.d16 == sem::D16::Hi;
    let sel = |k: usize| dst_sel.map_or(4 + k as u32, |s| s[k]);
    let store = m.op == sem::MemOp::Store;
    let bad = |w: &Wave| unsupported(w, i, c.pc);
    // The bytes a store writes: those holding the components it has.
    let store_bytes = d.bits_through(comps).div_ceil(8);
    for (l, &addr) in addrs.iter().enumerate() {
        if !w.active(l) {
            continue;
        }
        let inside = live >> l & 1 == 1;
        x.view.set_lane(l);
        if store {
            let mut el = 0u128;
            for k in 0..comps {
                el = if d16 {
                    let half = if hi { 1 } else { k % 2 };
                    let h = (v32(w, &dword(&vdata, k / 2), l) >> (16 * half)) as u16;
                    bufmt::store_d16(el, d, nf, k, h)
                } else {
                    bufmt::store(el, d, nf, k, v32(w, &dword(&vdata, k), l))
                }
                .ok_or_else(|| bad(w))?;
            }
            if inside {
                let mut b = el.to_le_bytes();
                access(x, seg, addr, l, &mut b[..store_bytes as usize], true)
                    .map_err(|f| lane_fault(w, i, c.pc, (l, f)))?;
            }
        } else {
            let mut b = [0u8; 16];
            if inside {
                access(x, seg, addr, l, &mut b[..d.bytes as usize], false)
                    .map_err(|f| lane_fault(w, i, c.pc, (l, f)))?;
            }
            let el = u128::from_le_bytes(b);
            if hi {
                let h = bufmt::load_sel_d16(el, d, nf, sel(0)).ok_or_else(|| bad(w))?;
                let old = v32(w, &vdata, l);
                vwrite(w, &vdata, l, 0, vmem::d16_merge(m.d16, old, u32::from(h)));
            } else if d16 {
                for k in (0..comps).step_by(2) {
                    let lo = bufmt::load_sel_d16(el, d, nf, sel(k)).ok_or_else(|| bad(w))?;
                    let hi = if k + 1 < comps {
                        bufmt::load_sel_d16(el, d, nf, sel(k + 1)).ok_or_else(|| bad(w))?
                    } else {
                        0
                    };
                    vwrite(w, &vdata, l, k / 2, u32::from(lo) | u32::from(hi) << 16);
                }
            } else {
                for k in 0..comps {
                    let v = bufmt::load_sel(el, d, nf, sel(k)).ok_or_else(|| bad(w))?;
                    vwrite(w, &vdata, l, k, v);
                }
            }
        }
    }
    Ok(Flow::Continue)
}

/// Dword `k` of a register operand.
fn dword(op: &Op, k: usize) -> Op {
    let mut o = *op;
    if let Operand::Reg(r) = o.value {
        o.value = Operand::Reg(RegRange {
            file: r.file,
            first: r.first.wrapping_add(k as u16),
            count: 1,
        });
    }
    o
}

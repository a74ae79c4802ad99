//! Vector memory: FLAT, GLOBAL and SCRATCH (the flat address model:
//! LDS, private and device apertures) and MUBUF/MTBUF addressing (MTBUF's
//! format conversions are in `vmem_typed`).

use super::*;

// ---------------------------------------------------------------- memory

/// What a FLAT/GLOBAL/SCRATCH or MUBUF mnemonic means, worked out once per
/// opcode (the handlers would otherwise parse the mnemonic every time).
#[derive(Clone, Copy)]
pub(super) struct MemOp {
    /// Bytes per lane and sign extension (loads/stores).
    width: u32,
    signed: bool,
    store: bool,
    atomic: bool,
    /// `cmpswap` (data is {src, cmp}).
    cmpswap: bool,
    /// 64-bit atomic.
    wide: bool,
    /// The read-modify-write of a non-cmpswap atomic (`None`: no semantics).
    rmw: Option<AtomicOp>,
    /// Not modelled (the paired and exchange forms of other spaces).
    unmodelled: bool,
    /// LDS-direct load (`global/scratch_load_lds_*`): the loaded dword
    /// goes to LDS, not to a VGPR ([`load_to_lds`]).
    to_lds: bool,
    /// MUBUF format form (`buffer_*_format_*`): the data and number
    /// format come from the buffer resource ([`mubuf`]).
    format: bool,
    /// Which half of the VGPR a D16 access loads into or stores from.
    d16: sem::D16,
}

/// What a FLAT/GLOBAL/SCRATCH or MUBUF opcode does, from its description
/// ([`lathe_isa::sem::Mem`]).
pub(super) fn mem_op(op: Opcode) -> MemOp {
    let unmodelled = MemOp {
        width: 4,
        signed: false,
        store: false,
        atomic: false,
        cmpswap: false,
        wide: false,
        rmw: None,
        unmodelled: true,
        to_lds: false,
        format: false,
        d16: sem::D16::No,
    };
    let Sem::Mem(m) = sem::of(op).sem else {
        return unmodelled;
    };
    let (store, atomic) = match m.op {
        sem::MemOp::Load | sem::MemOp::LoadToLds => (false, None),
        sem::MemOp::Store => (true, None),
        sem::MemOp::Atomic(a) => (false, Some(a.op)),
        sem::MemOp::Load2 { .. } | sem::MemOp::Store2 { .. } | sem::MemOp::Xchg2 { .. } => {
            return unmodelled
        }
    };
    MemOp {
        width: u32::from(m.size) * u32::from(m.elems),
        signed: m.signed,
        store,
        atomic: atomic.is_some(),
        cmpswap: atomic == Some(sem::AtomicOp::CmpSwap),
        wide: m.size == 8,
        rmw: atomic.and_then(rmw_of),
        unmodelled: false,
        to_lds: m.op == sem::MemOp::LoadToLds,
        // MUBUF's format forms convert in `vmem_typed`, as MTBUF's do.
        format: m.format,
        d16: m.d16,
    }
}

/// Whether the FLAT/GLOBAL/SCRATCH/MUBUF handlers run `op` rather than
/// stop on it as unsupported (they stop on what [`mem_op`] marks
/// unmodelled); `true` for every other opcode. The coverage test reads
/// this, so an opcode with a handler that always stops is not counted.
pub(super) fn runs(op: Opcode) -> bool {
    match sem::of(op).sem {
        Sem::Mem(m)
            if matches!(
                m.space,
                Space::Flat | Space::Global | Space::Scratch | Space::Buffer
            ) =>
        {
            !mem_op(op).unmodelled
        }
        _ => true,
    }
}

/// The read-modify-write of a described atomic (`None`: compare-swaps,
/// which take two operands, and the operations not modelled yet).
pub(super) fn rmw_of(op: sem::AtomicOp) -> Option<AtomicOp> {
    use sem::AtomicOp as A;
    Some(match op {
        A::Swap => AtomicOp::Swap,
        A::Add => AtomicOp::Add,
        A::Sub => AtomicOp::Sub,
        A::SMin => AtomicOp::SMin,
        A::UMin => AtomicOp::UMin,
        A::SMax => AtomicOp::SMax,
        A::UMax => AtomicOp::UMax,
        A::And => AtomicOp::And,
        A::Or => AtomicOp::Or,
        A::Xor => AtomicOp::Xor,
        A::Inc => AtomicOp::Inc,
        A::Dec => AtomicOp::Dec,
        A::FAdd => AtomicOp::FAdd,
        A::FMin => AtomicOp::FMin,
        A::FMax => AtomicOp::FMax,
        A::CmpSwap
        | A::CmpSt
        | A::CmpStF
        | A::Rsub
        | A::PkAddF16
        | A::PkAddBf16
        | A::Mskor
        | A::CondXchg32
        | A::Wrap => return None,
    })
}

/// Device address of byte `p` of lane `l` in a buffer view of the
/// swizzled private segment at `seg` (MUBUF/MTBUF with ADD_TID_ENABLE):
/// 4-byte elements, one row per dword of `lanes` lanes (the index stride
/// is the wave size: 64, or 32 in wave32, where LLVM also scales stack
/// offsets by 32).
pub(super) fn buffer_private(seg: u64, p: u64, l: usize, lanes: u32) -> u64 {
    seg.wrapping_add((p / 4) * 4 * u64::from(lanes) + l as u64 * 4 + p % 4)
}

/// The immediate offset of a FLAT/GLOBAL/SCRATCH word: GFX9's 13 bits
/// (FLAT's low 12 unsigned, the others signed); GFX10's 12 (bit 12 is
/// `dlc`), signed for GLOBAL and SCRATCH; GFX11's 13, signed (LLVM keeps
/// a FLAT-segment offset non-negative).
pub(super) fn flat_offset(i: &Instruction) -> i64 {
    let w0 = i.words()[0];
    match i.encoding() {
        Encoding::Flat | Encoding::FlatGfx10 => i64::from(w0 & 0xfff),
        Encoding::GlobalGfx10 | Encoding::ScratchGfx10 => i64::from(((w0 << 20) as i32) >> 20),
        // GFX12's VFLAT/VGLOBAL/VSCRATCH: 24 bits, signed, in bits 95:72.
        Encoding::FlatGfx12 | Encoding::GlobalGfx12 | Encoding::ScratchGfx12 => i
            .words()
            .get(2)
            .map_or(0, |&w2| i64::from((w2 as i32) >> 8)),
        _ => i64::from((((w0 & 0x1fff) << 19) as i32) >> 19),
    }
}

/// Whether a FLAT/GLOBAL/SCRATCH word has `glc` set (an atomic returns the
/// old value): bit 16 up to GFX10, bit 14 in GFX11's layouts, and GFX12's
/// `th:TH_ATOMIC_RETURN` (`th` bit 0, bit 52 of the instruction).
pub(super) fn flat_glc(i: &Instruction) -> bool {
    let (word, bit) = match i.encoding() {
        Encoding::FlatGfx11 | Encoding::GlobalGfx11 | Encoding::ScratchGfx11 => (0, 14),
        Encoding::FlatGfx12 | Encoding::GlobalGfx12 | Encoding::ScratchGfx12 => (1, 20),
        _ => (0, 16),
    };
    i.words().get(word).is_some_and(|w| w >> bit & 1 == 1)
}

/// Where one lane's access goes after flat/private/LDS resolution.
pub(super) enum Place {
    Global(u64),
    Lds(u64),
}

/// Device address of private (scratch) byte `p` of lane `l`: dwords are
/// interleaved across the wave's lanes, as for the swizzled private segment.
pub(super) fn private_phys(w: &Wave, p: u64, l: usize) -> u64 {
    buffer_private(w.flat_scratch, p, l, w.size.lanes())
}

pub(super) fn flat_place(w: &Wave, addr: u64, l: usize) -> Place {
    if (SHARED_APERTURE..SHARED_APERTURE + APERTURE_SIZE).contains(&addr) {
        Place::Lds(addr - SHARED_APERTURE)
    } else if (PRIVATE_APERTURE..PRIVATE_APERTURE + APERTURE_SIZE).contains(&addr) {
        Place::Global(private_phys(w, addr - PRIVATE_APERTURE, l))
    } else {
        Place::Global(addr)
    }
}

pub(super) fn lds_slice<'a>(
    lds: &'a mut [u8],
    off: u64,
    n: u32,
    kind: AccessKind,
    w: &Wave,
    i: &Instruction,
    pc: u64,
) -> Result<&'a mut [u8], Stop> {
    let len = lds.len();
    usize::try_from(off)
        .ok()
        .and_then(|o| lds.get_mut(o..o.checked_add(n as usize)?))
        .ok_or_else(|| Stop::LdsFault {
            offset: off,
            size: n,
            kind,
            lds_size: len,
            pc,
            wave: id(w),
            inst: i.to_string(),
        })
}

/// memcheck: lane `l`'s private access of `n` bytes at offset `p` must lie
/// inside its private segment (the access is still performed).
pub(super) fn check_private(x: &mut Core<'_>, p: u64, n: u32, l: usize, access: Access) {
    if let Some(c) = x.view.check_mut() {
        if c.checks.memcheck && p.saturating_add(u64::from(n)) > c.private_size {
            c.lane = Some(l as u8);
            let size = c.private_size;
            c.note(Kind::ScratchOutOfBounds, access, n, p, Some((0, size)));
        }
    }
}

/// Reads `n` bytes for lane `l` at a resolved place, dword by dword for
/// private memory (whose dwords are not contiguous).
#[allow(clippy::too_many_arguments)]
pub(super) fn read_place(
    x: &mut Core<'_>,
    w: &Wave,
    lds: &mut [u8],
    i: &Instruction,
    pc: u64,
    place: &Place,
    private: Option<u64>,
    l: usize,
    n: u32,
) -> Result<[u8; 16], Stop> {
    let mut out = [0u8; 16];
    if let Some(p) = private {
        check_private(x, p, n, l, Access::Read);
        let mut k = 0;
        while k < n {
            let chunk = (n - k).min(4 - ((p + k as u64) % 4) as u32);
            let a = private_phys(w, p + k as u64, l);
            x.view
                .read_bytes(a, &mut out[k as usize..(k + chunk) as usize])
                .map_err(|f| fault(w, i, pc, f))?;
            k += chunk;
        }
        return Ok(out);
    }
    match place {
        Place::Global(a) => x
            .view
            .read_bytes(*a, &mut out[..n as usize])
            .map_err(|f| fault(w, i, pc, f))?,
        Place::Lds(o) => {
            out[..n as usize].copy_from_slice(lds_slice(lds, *o, n, AccessKind::Read, w, i, pc)?)
        }
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
pub(super) fn write_place(
    x: &mut Core<'_>,
    w: &Wave,
    lds: &mut [u8],
    i: &Instruction,
    pc: u64,
    place: &Place,
    private: Option<u64>,
    l: usize,
    bytes: &[u8],
) -> Result<(), Stop> {
    let n = bytes.len() as u32;
    if let Some(p) = private {
        check_private(x, p, n, l, Access::Write);
        let mut k = 0;
        while k < n {
            let chunk = (n - k).min(4 - ((p + k as u64) % 4) as u32);
            let a = private_phys(w, p + k as u64, l);
            x.view
                .write_bytes(a, &bytes[k as usize..(k + chunk) as usize])
                .map_err(|f| fault(w, i, pc, f))?;
            k += chunk;
        }
        return Ok(());
    }
    match place {
        Place::Global(a) => x
            .view
            .write_bytes(*a, bytes)
            .map_err(|f| fault(w, i, pc, f)),
        Place::Lds(o) => {
            lds_slice(lds, *o, n, AccessKind::Write, w, i, pc)?.copy_from_slice(bytes);
            Ok(())
        }
    }
}

pub(super) fn load_result(bytes: &[u8; 16], n: u32, signed: bool) -> [u32; 4] {
    let mut r = [0u32; 4];
    match (n, signed) {
        (1, false) => r[0] = u32::from(bytes[0]),
        (1, true) => r[0] = bytes[0] as i8 as i32 as u32,
        (2, false) => r[0] = u32::from(u16::from_le_bytes([bytes[0], bytes[1]])),
        (2, true) => r[0] = i16::from_le_bytes([bytes[0], bytes[1]]) as i32 as u32,
        _ => {
            for (k, c) in bytes.chunks(4).take((n / 4) as usize).enumerate() {
                r[k] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
    }
    r
}

/// Lane `l`'s FLAT/GLOBAL address: `saddr + vaddr` (32-bit offset) or the
/// 64-bit `vaddr`, plus the instruction's offset.
pub(super) fn flat_addr(
    w: &Wave,
    addr: Option<&Op>,
    saddr: Option<&Op>,
    offset: i64,
    l: usize,
) -> u64 {
    let base = match (addr, saddr) {
        (Some(a), Some(s)) => s64(w, s).wrapping_add(u64::from(v32(w, a, l))),
        (Some(a), None) => v64(w, a, l),
        _ => 0,
    };
    (base as i64).wrapping_add(offset) as u64
}

/// A `scratch_*` instruction's private-segment offset for lane `l`: the
/// 32-bit VGPR and/or SGPR offsets plus the immediate, modulo 2^32.
pub(super) fn scratch_offset(
    w: &Wave,
    addr: Option<&Op>,
    saddr: Option<&Op>,
    offset: i64,
    l: usize,
) -> u64 {
    let base = match (addr, saddr) {
        (Some(a), Some(s)) if !matches!(a.value, Operand::Off) => {
            u64::from(v32(w, a, l)).wrapping_add(u64::from(s32(w, s)))
        }
        (Some(a), None) if !matches!(a.value, Operand::Off) => u64::from(v32(w, a, l)),
        (_, Some(s)) => u64::from(s32(w, s)),
        _ => 0,
    };
    (base as i64).wrapping_add(offset) as u64 & 0xffff_ffff
}

/// Every lane's store data: `dwords` consecutive VGPRs or AGPRs from
/// `r`, little-endian (registers outside the wave's file read as 0).
pub(super) fn store_data(w: &Wave, r: RegRange, dwords: usize) -> [[u8; 16]; LANES] {
    let file = if r.file == RegFile::Agpr {
        &w.agpr
    } else {
        &w.vgpr
    };
    let mut out = [[0u8; 16]; LANES];
    for k in 0..dwords.min(4) {
        if let Some(reg) = file.get(r.first as usize + k) {
            for (b, v) in out.iter_mut().zip(reg.iter()) {
                b[k * 4..k * 4 + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
    }
    out
}

/// The bytes each lane stores (`n` from the start): [`store_data`], and
/// for a `_d16_hi` store the VGPR's high half moved down.
pub(super) fn store_bytes(w: &Wave, r: RegRange, n: u32, d16: sem::D16) -> [[u8; 16]; LANES] {
    let mut out = store_data(w, r, n.div_ceil(4) as usize);
    if d16 == sem::D16::Hi {
        for b in &mut out {
            b.copy_within(2..4, 0);
        }
    }
    out
}

/// The dword a D16 load leaves in its VGPR: the loaded 16 bits (the low
/// half of `loaded`, a byte already extended to 16 bits) in the half `d16`
/// names, the other half of `old` kept. Whole-dword loads (`D16::No`)
/// replace it.
pub(super) fn d16_merge(d16: sem::D16, old: u32, loaded: u32) -> u32 {
    match d16 {
        sem::D16::No => loaded,
        sem::D16::Lo => old & 0xffff_0000 | loaded & 0xffff,
        sem::D16::Hi => old & 0xffff | loaded << 16,
    }
}

/// Writes loaded bytes (`n` per lane, sign- or zero-extended below a
/// dword; a D16 load into one half, [`d16_merge`]) to the destination `vd`
/// in the lanes of `mask`.
pub(super) fn write_loaded(
    w: &mut Wave,
    vd: &Op,
    bytes: &[[u8; 16]; LANES],
    mask: u64,
    n: u32,
    signed: bool,
    d16: sem::D16,
) {
    let dwords = n.div_ceil(4) as usize;
    let mut vals = [[0u32; LANES]; 4];
    for (l, b) in bytes.iter().enumerate() {
        let r = load_result(b, n, signed);
        for (k, v) in vals.iter_mut().enumerate().take(dwords) {
            v[l] = r[k];
        }
        if d16 != sem::D16::No && mask >> l & 1 == 1 {
            vals[0][l] = d16_merge(d16, v32(w, vd, l), r[0]);
        }
    }
    for (k, v) in vals.iter().enumerate().take(dwords) {
        let mut op = *vd;
        if let Operand::Reg(mut r) = op.value {
            r.first = r.first.wrapping_add(k as u16);
            op.value = Operand::Reg(r);
        }
        write_lanes32_masked(w, &op, v, mask);
    }
}

/// Every lane's FLAT/GLOBAL address ([`flat_addr`]); inactive lanes too.
pub(super) fn flat_addrs(
    w: &Wave,
    addr: Option<&Op>,
    saddr: Option<&Op>,
    offset: i64,
) -> [u64; LANES] {
    // Each arm builds the array in place (`from_fn`), so it is not built
    // zeroed and then copied out.
    let at = |v: u64| (v as i64).wrapping_add(offset) as u64;
    match (addr, saddr) {
        (Some(a), Some(s)) => {
            let base = s64(w, s);
            // A VGPR offset is read in place.
            let copy;
            let v = match vgpr_row(w, a, 0) {
                Some(r) => r,
                None => {
                    copy = lanes32(w, a);
                    &copy
                }
            };
            std::array::from_fn(|l| at(base.wrapping_add(u64::from(v[l]))))
        }
        (Some(a), None) => match (vgpr_row(w, a, 0), vgpr_row(w, a, 1)) {
            // A VGPR pair is read in place.
            (Some(lo), Some(hi)) => {
                std::array::from_fn(|l| at(u64::from(lo[l]) | u64::from(hi[l]) << 32))
            }
            _ => {
                let v = lanes64(w, a);
                std::array::from_fn(|l| at(v[l]))
            }
        },
        _ => [offset as u64; LANES],
    }
}

/// A FLAT load or store of whole dwords for the whole wave at once, when
/// every active lane's address is in the LDS aperture or global memory
/// (none private): the LDS lanes' accesses are checked up front and the
/// global lanes go through one [`MemView::gather_dwords`] or
/// [`MemView::scatter_dwords`], so nothing is done unless all of it can
/// be (no lane faults). Returns `false`, having changed nothing, when the
/// lane-by-lane path must run instead (it also reports any fault). A
/// generic pointer to `__shared__` memory, as in a loop over
/// `lane == 0 ? global : lds` operands, is the common case.
#[allow(clippy::too_many_arguments)]
fn flat_dwords(
    x: &mut Core<'_>,
    w: &mut Wave,
    lds: &mut [u8],
    addr_op: &Option<Op>,
    saddr: &Option<Op>,
    offset: i64,
    n: u32,
    is_store: bool,
    data: Option<Op>,
    vdst: Option<Op>,
) -> bool {
    let dw = (n / 4) as usize;
    let reg = if is_store { data } else { vdst };
    let Some(Operand::Reg(r)) = reg.map(|d| d.value) else {
        return false;
    };
    let f = r.first as usize;
    if r.file != RegFile::Vgpr || f + dw > w.temp_base() || w.exec == 0 {
        return false;
    }
    let addrs = flat_addrs(w, addr_op.as_ref(), saddr.as_ref(), offset);
    let (mut global, mut shared) = (0u64, 0u64);
    let mut m = w.exec;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let a = addrs[l];
        if (SHARED_APERTURE..SHARED_APERTURE + APERTURE_SIZE).contains(&a) {
            // Inside the LDS allocation, or the lane-by-lane path reports it.
            if a - SHARED_APERTURE + u64::from(n) > lds.len() as u64 {
                return false;
            }
            shared |= 1 << l;
        } else if (PRIVATE_APERTURE..PRIVATE_APERTURE + APERTURE_SIZE).contains(&a) {
            return false;
        } else {
            global |= 1 << l;
        }
    }
    // Global lanes first: the only part that can refuse (then nothing has
    // been written).
    if global != 0 {
        let done = if is_store {
            x.view.scatter_dwords(&addrs, global, &w.vgpr[f..f + dw])
        } else {
            x.view.gather_dwords(&addrs, global, &mut w.vgpr[f..f + dw])
        };
        if !done {
            return false;
        }
    }
    // LDS lanes in lane order (a later lane's store wins, as lane by lane).
    let mut m = shared;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let o = (addrs[l] - SHARED_APERTURE) as usize;
        for k in 0..dw {
            let at = o + 4 * k;
            if is_store {
                lds[at..at + 4].copy_from_slice(&w.vgpr[f + k][l].to_le_bytes());
            } else {
                let b = &lds[at..at + 4];
                w.vgpr[f + k][l] = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
        }
    }
    true
}

/// FLAT, GLOBAL and SCRATCH loads, stores and atomics.
pub(super) fn vmem(
    x: &mut Core<'_>,
    w: &mut Wave,
    lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let enc = i.encoding().family();
    let offset = flat_offset(i);
    let glc = flat_glc(i);
    let m = mem_op(i.opcode());
    let (n, signed, is_atomic, is_store) = (m.width, m.signed, m.atomic, m.store);
    if m.unmodelled || m.format {
        return Err(unsupported(w, i, c.pc));
    }
    if m.to_lds {
        return load_to_lds(x, w, lds, i, c, offset, m);
    }
    let addr_op = c.by_field(Field::Addr).copied();
    let saddr = c
        .by_field(Field::Saddr)
        .copied()
        .filter(|o| !matches!(o.value, Operand::Off));
    let data = c.by_field(Field::Data).copied();
    let vdst = c.by_field(Field::Vdst).copied();
    if let Some(log) = x.mem_log.as_mut() {
        for l in (0..LANES).filter(|&l| w.active(l)) {
            log.push(crate::record::MemAccess {
                pc: c.pc,
                lane: l as u8,
                addr: if enc == Encoding::Scratch {
                    scratch_offset(w, addr_op.as_ref(), saddr.as_ref(), offset, l)
                } else {
                    flat_addr(w, addr_op.as_ref(), saddr.as_ref(), offset, l)
                },
            });
        }
    }
    if enc == Encoding::Global && !is_atomic {
        // Global addresses need no aperture or private-segment resolution:
        // the whole wave goes through one gather or scatter.
        let addrs = flat_addrs(w, addr_op.as_ref(), saddr.as_ref(), offset);
        // Whole dwords to or from VGPRs: straight between memory and the
        // register file when the wave's accesses fall in one region.
        if n % 4 == 0 {
            let dw = (n / 4) as usize;
            let reg = if is_store { data } else { vdst };
            if let Some(Operand::Reg(r)) = reg.map(|d| d.value) {
                let f = r.first as usize;
                if r.file == RegFile::Vgpr && f + dw <= w.temp_base() {
                    let exec = w.exec;
                    let done = if is_store {
                        x.view.scatter_dwords(&addrs, exec, &w.vgpr[f..f + dw])
                    } else {
                        x.view.gather_dwords(&addrs, exec, &mut w.vgpr[f..f + dw])
                    };
                    if done {
                        return Ok(Flow::Continue);
                    }
                }
            }
        }
        if is_store {
            let Some(Operand::Reg(r)) = data.map(|d| d.value) else {
                return Err(unsupported(w, i, c.pc));
            };
            let bytes = store_bytes(w, r, n, m.d16);
            x.view
                .scatter(&addrs, w.exec, n, &bytes)
                .map_err(|e| lane_fault(w, i, c.pc, e))?;
        } else {
            let mut bytes = [[0u8; 16]; LANES];
            x.view
                .gather(&addrs, w.exec, n, &mut bytes)
                .map_err(|e| lane_fault(w, i, c.pc, e))?;
            if let Some(vd) = vdst {
                write_loaded(w, &vd, &bytes, w.exec, n, signed, m.d16);
            }
        }
        return Ok(Flow::Continue);
    }
    if enc == Encoding::Flat
        && !is_atomic
        && n % 4 == 0
        && flat_dwords(x, w, lds, &addr_op, &saddr, offset, n, is_store, data, vdst)
    {
        return Ok(Flow::Continue);
    }
    let stored = match (is_store && !is_atomic, data.map(|d| d.value)) {
        (true, Some(Operand::Reg(r))) => store_bytes(w, r, n, m.d16),
        _ => [[0u8; 16]; LANES],
    };
    for (l, lane_data) in stored.iter().enumerate() {
        if !w.active(l) {
            continue;
        }
        x.view.set_lane(l);
        let (place, private) = match enc {
            Encoding::Scratch => (
                Place::Global(0),
                Some(scratch_offset(
                    w,
                    addr_op.as_ref(),
                    saddr.as_ref(),
                    offset,
                    l,
                )),
            ),
            _ => {
                let a = flat_addr(w, addr_op.as_ref(), saddr.as_ref(), offset, l);
                if enc == Encoding::Flat {
                    match flat_place(w, a, l) {
                        Place::Global(g)
                            if (PRIVATE_APERTURE..PRIVATE_APERTURE + APERTURE_SIZE)
                                .contains(&a) =>
                        {
                            let _ = g;
                            (Place::Global(0), Some(a - PRIVATE_APERTURE))
                        }
                        p => (p, None),
                    }
                } else {
                    (Place::Global(a), None)
                }
            }
        };
        if is_atomic {
            let op = match (m.cmpswap, m.rmw) {
                (true, _) => None,
                (false, Some(o)) => Some(o),
                (false, None) => return Err(unsupported(w, i, c.pc)),
            };
            let Some(d) = data else {
                return Err(unsupported(w, i, c.pc));
            };
            let wide = m.wide;
            let size = if wide { 8 } else { 4 };
            let (operand, op) = match op {
                Some(o) => (
                    if wide {
                        v64(w, &d, l)
                    } else {
                        u64::from(v32(w, &d, l))
                    },
                    o,
                ),
                None => {
                    // cmpswap data is {src, cmp}.
                    let (src, cmp) = if wide {
                        let Operand::Reg(r) = d.value else {
                            return Err(unsupported(w, i, c.pc));
                        };
                        // Past the wave's registers reads 0, as `v32` does.
                        let lo = |k: u16| {
                            w.vgpr
                                .get(usize::from(r.first) + usize::from(k))
                                .map_or(0, |row| u64::from(row[l]))
                        };
                        (lo(0) | lo(1) << 32, lo(2) | lo(3) << 32)
                    } else {
                        let v = v64(w, &d, l);
                        (v & 0xffff_ffff, v >> 32)
                    };
                    (src, AtomicOp::CmpSwap(cmp))
                }
            };
            let a = match place {
                Place::Global(a) => a,
                Place::Lds(o) => {
                    // A flat atomic that resolves to LDS.
                    let slot = lds_slice(lds, o, size, AccessKind::Atomic, w, i, c.pc)?;
                    let mut old_b = [0u8; 8];
                    old_b[..size as usize].copy_from_slice(slot);
                    let old = u64::from_le_bytes(old_b);
                    let new = rmw(op, old, operand, size).unwrap_or(old);
                    slot.copy_from_slice(&new.to_le_bytes()[..size as usize]);
                    if glc {
                        if let Some(vd) = vdst {
                            vwrite(w, &vd, l, 0, old as u32);
                            if wide {
                                vwrite(w, &vd, l, 1, (old >> 32) as u32);
                            }
                        }
                    }
                    continue;
                }
            };
            let a = match private {
                Some(p) => private_phys(w, p, l),
                None => a,
            };
            let old = x
                .view
                .atomic(a, size, op, operand)
                .map_err(|f| lane_fault(w, i, c.pc, (l, f)))?;
            if glc {
                if let Some(vd) = vdst {
                    vwrite(w, &vd, l, 0, old as u32);
                    if wide {
                        vwrite(w, &vd, l, 1, (old >> 32) as u32);
                    }
                }
            }
        } else if is_store {
            if data.is_none() {
                return Err(unsupported(w, i, c.pc));
            }
            write_place(
                x,
                w,
                lds,
                i,
                c.pc,
                &place,
                private,
                l,
                &lane_data[..n as usize],
            )?;
        } else {
            let bytes = read_place(x, w, lds, i, c.pc, &place, private, l, n)?;
            let mut r = load_result(&bytes, n, signed);
            if let Some(vd) = vdst {
                r[0] = d16_merge(m.d16, v32(w, &vd, l), r[0]);
                for (k, v) in r.iter().enumerate().take(n.div_ceil(4) as usize) {
                    vwrite(w, &vd, l, k, *v);
                }
            }
        }
    }
    Ok(Flow::Continue)
}

/// MUBUF loads and stores. A descriptor with ADD_TID_ENABLE (the private
/// segment buffer) addresses lane-swizzled scratch; any other is a linear
/// raw buffer bounded by NUM_RECORDS.
pub(super) fn mubuf(
    x: &mut Core<'_>,
    w: &mut Wave,
    lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    if matches!(i.encoding(), Encoding::MubufGfx11 | Encoding::MubufGfx12) {
        // GFX11 moved `offen`/`idxen` to word 1 and the LDS bit away, GFX12
        // (VBUFFER) moved the fields again: not modelled (D77, D85; clang's
        // compute code uses GLOBAL instead).
        return Err(unsupported(w, i, c.pc));
    }
    let w0 = i.words()[0];
    let inst_off = u64::from(w0 & 0xfff);
    let offen = w0 >> 12 & 1 == 1;
    let idxen = w0 >> 13 & 1 == 1;
    let m = mem_op(i.opcode());
    let d16 = m.d16;
    // MUBUF's LDS bit (bit 16; MTBUF's bit 16 is part of its opcode).
    let untyped = matches!(c.sem, Sem::Mem(sm) if sm.space == Space::Buffer);
    let to_lds = untyped && w0 >> 16 & 1 == 1;
    // A MUBUF format form (MTBUF's descriptions are format forms too).
    let rsrc_format = untyped && m.format;
    if m.unmodelled || (to_lds && (m.store || m.format)) {
        return Err(unsupported(w, i, c.pc));
    }
    // VDATA (absent from the LDS form).
    let vdata = c.by_field(Field::Vdata).copied();
    let Some(rsrc) = c.by_field(Field::Srsrc).copied() else {
        return Err(unsupported(w, i, c.pc));
    };
    let Operand::Reg(r) = rsrc.value else {
        return Err(unsupported(w, i, c.pc));
    };
    let d: [u32; 4] = std::array::from_fn(|k| sreg_read(w, r.first + k as u16));
    // The element format: MTBUF's from the instruction (DFMT 22:19, NFMT
    // 25:23); MUBUF format forms' from the resource (DATA_FORMAT 18:15,
    // NUM_FORMAT 14:12 of its last dword), whose loads also apply the
    // resource's DST_SEL_X..W (bits 11:0, 3 bits each).
    let typed = match c.sem {
        Sem::Mem(sm) if sm.space == Space::TypedBuffer || rsrc_format => {
            let (df, nf) = if rsrc_format {
                (d[3] >> 15 & 0xf, d[3] >> 12 & 7)
            } else {
                (w0 >> 19 & 0xf, w0 >> 23 & 7)
            };
            match (alu::bufmt::Dfmt::decode(df), alu::bufmt::Nfmt::decode(nf)) {
                (Some(dfmt), Some(nfmt)) => Some((dfmt, nfmt, sm)),
                _ => return Err(unsupported(w, i, c.pc)),
            }
        }
        _ => None,
    };
    let dst_sel = rsrc_format.then(|| std::array::from_fn::<u32, 4, _>(|k| d[3] >> (3 * k) & 7));
    let (n, signed, is_store) = match typed {
        Some((d, _, sm)) => (d.bytes, false, sm.op == sem::MemOp::Store),
        None => (m.width, m.signed, m.store),
    };
    let vaddr = c
        .by_field(Field::Vaddr)
        .copied()
        .filter(|o| !matches!(o.value, Operand::Off));
    let soff = c
        .by_field(Field::Soffset)
        .map_or(0, |o| u64::from(s32(w, o)));
    let base = u64::from(d[0]) | (u64::from(d[1] & 0xffff) << 32);
    let stride = u64::from(d[1] >> 16 & 0x3fff);
    let num_records = u64::from(d[2]);
    let add_tid = d[3] >> 23 & 1 == 1;
    // Addresses of the lanes that access memory; lanes out of the buffer's
    // range read zero and drop their writes. For the private segment
    // (ADD_TID_ENABLE), `addrs` holds the lane's byte offset in it.
    let mut addrs = [0u64; LANES];
    let mut live = 0u64;
    // VADDR's lanes, read in place: the first register (index or offset)
    // and, with both IDXEN and OFFEN, the next VGPR (the offset).
    static ZERO: VReg = [0; LANES];
    let copy;
    let row0: &VReg = match &vaddr {
        Some(v) => match vgpr_row(w, v, 0) {
            Some(r) => r,
            None => {
                copy = lanes32(w, v);
                &copy
            }
        },
        None => &ZERO,
    };
    let row1: &VReg = match (idxen && offen, &vaddr) {
        (true, Some(v)) => match v.value {
            Operand::Reg(rr) => w.vgpr.get(rr.first as usize + 1).unwrap_or(&ZERO),
            _ if w.exec != 0 => return Err(unsupported(w, i, c.pc)),
            _ => &ZERO,
        },
        _ => &ZERO,
    };
    // Private segment, not recording: every lane's offset at once (only
    // the active lanes' are used).
    let quick = add_tid && x.mem_log.is_none();
    if quick {
        let vo: &VReg = match (idxen, offen) {
            (true, true) => row1,
            (false, true) => row0,
            _ => &ZERO,
        };
        for (a, v) in addrs.iter_mut().zip(vo) {
            *a = u64::from(*v) + inst_off;
        }
        live = w.exec;
    }
    let mut m = if quick { 0 } else { w.exec };
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let addr = &mut addrs[l];
        let (vi, vo) = match (idxen, offen) {
            (true, true) => (u64::from(row0[l]), u64::from(row1[l])),
            (true, false) => (u64::from(row0[l]), 0),
            (false, true) => (0, u64::from(row0[l])),
            _ => (0, 0),
        };
        if add_tid {
            *addr = vo + inst_off;
            if let Some(log) = x.mem_log.as_mut() {
                // The device address of the lane's first byte in the
                // swizzled private segment.
                let p = vo + inst_off;
                log.push(crate::record::MemAccess {
                    pc: c.pc,
                    lane: l as u8,
                    addr: buffer_private(base + soff, p, l, w.size.lanes()),
                });
            }
        } else {
            let off = vo + inst_off;
            let bound = if stride == 0 {
                num_records
            } else {
                num_records * stride
            };
            let a_off = vi * stride + off + soff;
            if let Some(log) = x.mem_log.as_mut() {
                // Every active lane, in range or not (an out-of-range lane
                // reads zero but still issued the access).
                log.push(crate::record::MemAccess {
                    pc: c.pc,
                    lane: l as u8,
                    addr: base.wrapping_add(a_off),
                });
            }
            if a_off + u64::from(n) > bound {
                continue;
            }
            *addr = base + a_off;
        }
        live |= 1 << l;
    }
    if add_tid && x.view.check_mut().is_some() {
        let access = if is_store {
            Access::Write
        } else {
            Access::Read
        };
        for l in (0..LANES).filter(|l| live >> l & 1 == 1) {
            check_private(x, addrs[l], n, l, access);
        }
    }
    if to_lds {
        if add_tid {
            return Err(unsupported(w, i, c.pc));
        }
        return buffer_to_lds(x, w, lds, i, c, &addrs, live, inst_off, (n, signed));
    }
    let Some(vdata) = vdata else {
        return Err(unsupported(w, i, c.pc));
    };
    if let Some((d, nf, sm)) = typed {
        let seg = add_tid.then_some((base + soff, w.size.lanes()));
        return super::vmem_typed::typed(
            x,
            w,
            i,
            c,
            &addrs,
            live,
            seg,
            (d, nf, sm, dst_sel),
            vdata,
        );
    }
    if add_tid {
        // Private segment: soffset is the wave's (wave-scaled) base, and
        // each lane's dwords are interleaved with the other lanes' (64
        // lanes x 4 bytes per row), so an access is split at dword edges.
        let seg = base + soff;
        let lanes = w.size.lanes();
        let phys = |p: u64, l: usize| buffer_private(seg, p, l, lanes);
        // Fast path: every lane at the same dword-aligned offset (spills,
        // stack slots), so dword k of the wave is one 256-byte row. If a
        // row access faults, the lane-by-lane path below reports it.
        let p0 = addrs[live.trailing_zeros().min(63) as usize];
        let uniform = live != 0 && n % 4 == 0 && p0 % 4 == 0 && {
            let mut differ = 0u64;
            for (l, a) in addrs.iter().enumerate() {
                differ |= u64::from(*a != p0) << l;
            }
            differ & live == 0
        };
        // The common case of that: VGPR data, moved row by row straight
        // between the register file and scratch.
        if let (true, Operand::Reg(vr)) = (uniform, vdata.value) {
            let (f, dw) = (vr.first as usize, (n / 4) as usize);
            if vr.file == RegFile::Vgpr && f + dw <= w.temp_base() {
                let mut done = true;
                for k in 0..dw {
                    let row = phys(p0 + 4 * k as u64, 0);
                    let rows: [u64; LANES] = std::array::from_fn(|l| row + 4 * l as u64);
                    done = if is_store {
                        x.view
                            .scatter_dwords(&rows, live, &w.vgpr[f + k..f + k + 1])
                    } else {
                        x.view
                            .gather_dwords(&rows, live, &mut w.vgpr[f + k..f + k + 1])
                    };
                    if !done {
                        break;
                    }
                }
                if done {
                    return Ok(Flow::Continue);
                }
            }
        }
        if let (true, Operand::Reg(vr)) = (uniform, vdata.value) {
            let data = store_data(w, vr, (n / 4) as usize);
            let mut done = true;
            for k in 0..(n / 4) as usize {
                let row = phys(p0 + 4 * k as u64, 0);
                if is_store && live == u64::MAX {
                    // The whole row at once.
                    let mut b = [0u8; 4 * LANES];
                    for (o, d) in b.chunks_exact_mut(4).zip(&data) {
                        o.copy_from_slice(&d[k * 4..k * 4 + 4]);
                    }
                    if x.view.write_bytes(row, &b).is_err() {
                        done = false;
                        break;
                    }
                } else if is_store {
                    let mut lanes = [[0u8; 16]; LANES];
                    let mut rows = [0u64; LANES];
                    for (l, (b, a)) in lanes.iter_mut().zip(rows.iter_mut()).enumerate() {
                        b[..4].copy_from_slice(&data[l][k * 4..k * 4 + 4]);
                        *a = row + 4 * l as u64;
                    }
                    if x.view.scatter(&rows, live, 4, &lanes).is_err() {
                        done = false;
                        break;
                    }
                } else {
                    let mut b = [0u8; 4 * LANES];
                    if x.view.read_bytes(row, &mut b).is_err() {
                        done = false;
                        break;
                    }
                    let mut vals = [0u32; LANES];
                    for (o, v) in vals.iter_mut().zip(b.chunks_exact(4)) {
                        *o = u32::from_le_bytes([v[0], v[1], v[2], v[3]]);
                    }
                    let mut vk = vdata;
                    if let Operand::Reg(mut rr) = vk.value {
                        rr.first = rr.first.wrapping_add(k as u16);
                        vk.value = Operand::Reg(rr);
                    }
                    write_lanes32_masked(w, &vk, &vals, live);
                }
            }
            if done {
                return Ok(Flow::Continue);
            }
        }
        let data = match (is_store, vdata.value) {
            (false, _) => [[0u8; 16]; LANES],
            (true, Operand::Reg(vr)) => store_bytes(w, vr, n, d16),
            (true, _) => return Err(unsupported(w, i, c.pc)),
        };
        for (l, &p) in addrs.iter().enumerate() {
            if live >> l & 1 == 0 {
                continue;
            }
            x.view.set_lane(l);
            let mut b = data[l];
            let mut k = 0;
            while k < n {
                let chunk = (n - k).min(4 - ((p + u64::from(k)) % 4) as u32);
                let a = phys(p + u64::from(k), l);
                let part = &mut b[k as usize..(k + chunk) as usize];
                let r = if is_store {
                    x.view.write_bytes(a, part)
                } else {
                    x.view.read_bytes(a, part)
                };
                r.map_err(|f| fault(w, i, c.pc, f))?;
                k += chunk;
            }
            if !is_store {
                let mut r = load_result(&b, n, signed);
                r[0] = d16_merge(d16, v32(w, &vdata, l), r[0]);
                for (k, v) in r.iter().enumerate().take(n.div_ceil(4) as usize) {
                    vwrite(w, &vdata, l, k, *v);
                }
            }
        }
        return Ok(Flow::Continue);
    }
    if is_store {
        let Operand::Reg(vr) = vdata.value else {
            return Err(unsupported(w, i, c.pc));
        };
        let bytes = store_bytes(w, vr, n, d16);
        x.view
            .scatter(&addrs, live, n, &bytes)
            .map_err(|e| lane_fault(w, i, c.pc, e))?;
    } else {
        let mut bytes = [[0u8; 16]; LANES];
        x.view
            .gather(&addrs, live, n, &mut bytes)
            .map_err(|e| lane_fault(w, i, c.pc, e))?;
        // Out-of-range lanes gathered nothing: they load 0.
        write_loaded(w, &vdata, &bytes, w.exec, n, signed, d16);
    }
    Ok(Flow::Continue)
}

/// The LDS byte offset lane `l` of an LDS-direct load writes its dword
/// to: M0 plus the instruction offset plus 4 per lane (MI200 ISA, "LDS
/// DMA": LDS_ADDR = LDS_base + M0 + inst_offset + TID * 4; the wave's
/// LDS base is 0 in the work-group's LDS slice here), modulo 2^32.
pub(super) fn lds_direct_offset(w: &Wave, inst_off: i64, l: usize) -> u64 {
    (i64::from(w.m0).wrapping_add(inst_off) as u64).wrapping_add(4 * l as u64) & 0xffff_ffff
}

/// `global_load_lds_*` and `scratch_load_lds_*`: each active lane loads
/// `width` bytes from its GLOBAL address or private offset (the same
/// addressing as the plain loads), zero- or sign-extends them to a dword
/// and writes it to LDS at [`lds_direct_offset`]. No VGPR is written.
fn load_to_lds(
    x: &mut Core<'_>,
    w: &mut Wave,
    lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
    offset: i64,
    m: MemOp,
) -> Result<Flow, Stop> {
    let scratch = i.encoding().family() == Encoding::Scratch;
    let addr_op = c.by_field(Field::Addr).copied();
    let saddr = c
        .by_field(Field::Saddr)
        .copied()
        .filter(|o| !matches!(o.value, Operand::Off));
    for l in (0..LANES).filter(|&l| w.active(l)) {
        x.view.set_lane(l);
        let (place, private) = if scratch {
            let p = scratch_offset(w, addr_op.as_ref(), saddr.as_ref(), offset, l);
            (Place::Global(0), Some(p))
        } else {
            let a = flat_addr(w, addr_op.as_ref(), saddr.as_ref(), offset, l);
            (Place::Global(a), None)
        };
        if let Some(log) = x.mem_log.as_mut() {
            log.push(crate::record::MemAccess {
                pc: c.pc,
                lane: l as u8,
                addr: match (&place, private) {
                    (_, Some(p)) => p,
                    (Place::Global(a), None) => *a,
                    (Place::Lds(o), None) => *o,
                },
            });
        }
        let bytes = read_place(x, w, lds, i, c.pc, &place, private, l, m.width)?;
        let v = load_result(&bytes, m.width, m.signed)[0];
        let o = lds_direct_offset(w, offset, l);
        lds_slice(lds, o, 4, AccessKind::Write, w, i, c.pc)?.copy_from_slice(&v.to_le_bytes());
    }
    Ok(Flow::Continue)
}

/// MUBUF loads with the LDS bit: each active lane's element (zero when
/// the lane is outside the buffer's range), extended to a dword, goes to
/// LDS at [`lds_direct_offset`]; VDATA is not written.
#[allow(clippy::too_many_arguments)]
fn buffer_to_lds(
    x: &mut Core<'_>,
    w: &mut Wave,
    lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
    addrs: &[u64; LANES],
    live: u64,
    inst_off: u64,
    (n, signed): (u32, bool),
) -> Result<Flow, Stop> {
    if n > 4 {
        return Err(unsupported(w, i, c.pc));
    }
    let mut bytes = [[0u8; 16]; LANES];
    x.view
        .gather(addrs, live, n, &mut bytes)
        .map_err(|e| lane_fault(w, i, c.pc, e))?;
    for l in (0..LANES).filter(|&l| w.active(l)) {
        let v = load_result(&bytes[l], n, signed)[0];
        let o = lds_direct_offset(w, inst_off as i64, l);
        lds_slice(lds, o, 4, AccessKind::Write, w, i, c.pc)?.copy_from_slice(&v.to_le_bytes());
    }
    Ok(Flow::Continue)
}

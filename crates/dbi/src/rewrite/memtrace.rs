//! The `mem-trace` probe: one ring-buffer record per wave-execution of a
//! memory instruction, with the wave's identity (work-group and wave
//! index, saved at kernel entry by [`MemTraceEntry`]) and each active
//! lane's address.

use std::collections::BTreeMap;
use std::sync::Arc;

use lathe_isa::{BuildError, Instruction, Modifiers, Opcode, Operand, RegFile, RegRange, Target};

use super::probe::{Probe, ProbeCx};
use crate::asm::*;
use crate::scratch::{load_dword, store_dword};

/// Size of one `mem-trace` record. Layout (little-endian):
///
/// | offset | type | field |
/// |---|---|---|
/// | 0 | u32 | site |
/// | 4 | u32 | (unused) |
/// | 8 | u64 | EXEC |
/// | 16 | u32 ×3 | work-group id x, y, z |
/// | 28 | u32 | wave index in the work-group |
/// | 32 | u64 ×64 | address register part of each lane (active lanes only) |
pub const TRACE_RECORD: u32 = 32 + 64 * 8;

/// Bytes per lane [`MemTraceEntry`] keeps in its scratch area: work-group
/// id x, y, z and the wave index (u32 each).
pub const WAVE_ID_BYTES: u32 = 16;

/// Where a kernel's wave identity comes from at its entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WaveIdSource {
    /// The initial SGPRs holding work-group id x, y, z (an axis the
    /// descriptor does not enable reads as 0).
    pub workgroup_sgprs: [Option<u16>; 3],
    /// Work-item ids packed in v0 (10 bits each: gfx90a, gfx94x) rather
    /// than v0, v1, v2.
    pub packed_tid: bool,
    /// Work-item id axes the descriptor enables (1..=3).
    pub tid_dims: u8,
    /// Where `workgroup_size_x | workgroup_size_y << 16` is read to
    /// flatten a multi-dimensional work-item id.
    pub group_size: Option<GroupSizeAt>,
}

/// Where a kernel reads its work-group size and, for a partial
/// work-group (the last of an axis whose grid size is no multiple of the
/// work-group size), the group's real extent: the hardware packs a
/// partial group's work-items into waves by its real extents, so the
/// wave index flattens the work-item id with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupSizeAt {
    /// The kernarg segment (code object v5): `hidden_group_size_x` at
    /// `size` (y 2 bytes after) and, when the metadata has them,
    /// `hidden_block_count_x` and `hidden_remainder_x` at `partial`'s
    /// offsets (y 4 and 2 bytes after). The HIP runtime (clr) writes the
    /// count of *full* work-groups (grid / size, rounded down), and a
    /// group's extent is `id < count ? size : remainder`, as the device
    /// library's `__ockl_get_local_size` reads it.
    Kernarg {
        /// Offset of `hidden_group_size_x`.
        size: u32,
        /// Offsets of `hidden_block_count_x` and `hidden_remainder_x`.
        partial: Option<(u32, u32)>,
    },
    /// The AQL packet, through the dispatch-pointer SGPR pair: a group's
    /// extent is `min(size, grid - id × size)`.
    Packet(u16),
}

/// Saves the wave's identity at kernel entry, for [`MemTraceProbe`]: the
/// work-group id x, y, z from the initial SGPRs and the wave index in the
/// work-group (the flat work-item id of the wave's first lane over the
/// wave size: `x + size_x × (y + size_y × z)`, with the extents of this
/// work-group — partial for the last one of an axis — from the dispatch
/// packet or the kernarg segment, [`GroupSizeAt`]; a kernel with neither
/// gets `x / wave size`, exact for one-dimensional work-groups), into every lane's
/// copy of its scratch area ([`WAVE_ID_BYTES`]). Its request must come
/// right before the [`MemTraceProbe`]'s.
#[derive(Debug, Clone, Default)]
pub struct MemTraceEntry {
    /// By function index (kernels).
    pub kernels: Arc<BTreeMap<usize, WaveIdSource>>,
}

impl Probe for MemTraceEntry {
    fn slot_bytes(&self) -> u32 {
        0
    }
    fn scratch_bytes(&self) -> u32 {
        WAVE_ID_BYTES
    }
    fn emit(&self, cx: &ProbeCx<'_>, out: &mut Vec<Instruction>) -> Result<(), BuildError> {
        let (Some(sc), Some(src)) = (cx.scratch, self.kernels.get(&cx.function_index)) else {
            return Ok(());
        };
        let (t, r) = (cx.target, cx.regs);
        // SCC is dead at kernel entry. x in tmp, y in tmp+1, z in t2; the
        // group's extents in t2+1 (with scc as a temporary).
        let (x, y, z, gs, gy) = (r.tmp, r.tmp + 1, r.t2, r.t2 + 1, r.scc);
        out.push(mask_mov(t, mask_reg(t, r.save), exec_mask(t))?);
        out.push(build(
            t,
            Opcode::V_READFIRSTLANE_B32,
            &[sreg(x, 1), vreg(0, 1)],
        )?);
        let dims = src.tid_dims.clamp(1, 3);
        if src.packed_tid {
            for (d, at) in [(y, 10u32), (z, 20)] {
                out.push(build(
                    t,
                    Opcode::S_BFE_U32,
                    &[sreg(d, 1), sreg(x, 1), Operand::Literal((10 << 16) | at)],
                )?);
            }
            out.push(build(
                t,
                Opcode::S_AND_B32,
                &[sreg(x, 1), sreg(x, 1), Operand::Literal(0x3ff)],
            )?);
        } else {
            for (k, d) in [(1u8, y), (2, z)] {
                out.push(if dims > k {
                    build(
                        t,
                        Opcode::V_READFIRSTLANE_B32,
                        &[sreg(d, 1), vreg(u16::from(k), 1)],
                    )?
                } else {
                    build(t, Opcode::S_MOV_B32, &[sreg(d, 1), Operand::Int(0)])?
                });
            }
        }
        let at = src
            .group_size
            .filter(|a| matches!(a, GroupSizeAt::Packet(_)) || cx.kernarg_sgpr.is_some());
        if dims > 1 {
            if let Some(at) = at {
                // z = y + size_y × z (the z term only in 3-D), then
                // x += size_x × z.
                if dims > 2 {
                    extent(cx, src, at, 1, gs, gy, out)?;
                    out.push(build(
                        t,
                        Opcode::S_MUL_I32,
                        &[sreg(z, 1), sreg(z, 1), sreg(gs, 1)],
                    )?);
                    out.push(build(
                        t,
                        Opcode::S_ADD_U32,
                        &[sreg(z, 1), sreg(z, 1), sreg(y, 1)],
                    )?);
                } else {
                    out.push(build(t, Opcode::S_MOV_B32, &[sreg(z, 1), sreg(y, 1)])?);
                }
                extent(cx, src, at, 0, gs, gy, out)?;
                out.push(build(
                    t,
                    Opcode::S_MUL_I32,
                    &[sreg(z, 1), sreg(z, 1), sreg(gs, 1)],
                )?);
                out.push(build(
                    t,
                    Opcode::S_ADD_U32,
                    &[sreg(x, 1), sreg(x, 1), sreg(z, 1)],
                )?);
            }
        }
        out.push(build(
            t,
            Opcode::S_LSHR_B32,
            &[
                sreg(x, 1),
                sreg(x, 1),
                Operand::Int(t.wave_size().trailing_zeros() as i8),
            ],
        )?);
        // Every lane's copy (a later site may run in lanes inactive here).
        out.push(mask_mov(t, exec_mask(t), Operand::Int(-1))?);
        out.push(build(
            t,
            Opcode::S_MOV_B32,
            &[sreg(r.t2, 1), konst(sc.area)],
        )?);
        for (k, s) in src.workgroup_sgprs.iter().enumerate() {
            let v = match s {
                Some(n) => sreg(*n, 1),
                None => Operand::Int(0),
            };
            out.push(build(t, Opcode::V_MOV_B32_E32, &[vreg(r.vtmp, 1), v])?);
            out.push(store_dword(t, r.vtmp, r.t2, 4 * k as u32)?);
        }
        out.push(build(
            t,
            Opcode::V_MOV_B32_E32,
            &[vreg(r.vtmp, 1), sreg(x, 1)],
        )?);
        out.push(store_dword(t, r.vtmp, r.t2, 12)?);
        exec_restore(t, r, out)
    }
}

/// Appends code leaving in `d` this work-group's extent along `ax` (0
/// or 1): the work-group size, or the remainder for a partial group
/// ([`GroupSizeAt`]). Uses `tmp` and the probe VGPR `vtmp`; writes SCC.
/// Without the kernarg pointer or the partial-group offsets, the full
/// work-group size.
fn extent(
    cx: &ProbeCx<'_>,
    src: &WaveIdSource,
    at: GroupSizeAt,
    ax: u8,
    d: u16,
    tmp: u16,
    out: &mut Vec<Instruction>,
) -> Result<(), BuildError> {
    let (t, r) = (cx.target, cx.regs);
    let a = u32::from(ax.min(1));
    let id = src.workgroup_sgprs[usize::from(ax.min(1))];
    // The 16-bit field at byte `off` of the dword loaded from `off & !3`.
    let half = |off: u32| Operand::Literal((16 << 16) | (8 * (off & 3)));
    match at {
        GroupSizeAt::Packet(dp) => {
            let size = crate::dims::PACKET_WORKGROUP_SIZE + 2 * a;
            out.push(smem_load(t, Opcode::S_LOAD_DWORD, d, dp, size & !3)?);
            out.push(smem_load(
                t,
                Opcode::S_LOAD_DWORD,
                tmp,
                dp,
                crate::dims::PACKET_GRID_SIZE + 4 * a,
            )?);
            out.push(waitcnt(t, 63, 0)?);
            out.push(build(
                t,
                Opcode::S_BFE_U32,
                &[sreg(d, 1), sreg(d, 1), half(size)],
            )?);
            if let Some(id) = id {
                // tmp = grid - id × size, the size kept in vtmp meanwhile.
                out.push(build(
                    t,
                    Opcode::V_MOV_B32_E32,
                    &[vreg(r.vtmp, 1), sreg(d, 1)],
                )?);
                out.push(build(
                    t,
                    Opcode::S_MUL_I32,
                    &[sreg(d, 1), sreg(id, 1), sreg(d, 1)],
                )?);
                out.push(build(
                    t,
                    Opcode::S_SUB_U32,
                    &[sreg(tmp, 1), sreg(tmp, 1), sreg(d, 1)],
                )?);
                out.push(build(
                    t,
                    Opcode::V_READFIRSTLANE_B32,
                    &[sreg(d, 1), vreg(r.vtmp, 1)],
                )?);
            }
            out.push(build(
                t,
                Opcode::S_MIN_U32,
                &[sreg(d, 1), sreg(d, 1), sreg(tmp, 1)],
            )?);
        }
        GroupSizeAt::Kernarg { size, partial } => {
            let Some(ka) = cx.kernarg_sgpr else {
                return Ok(());
            };
            let size = size + 2 * a;
            out.push(smem_load(t, Opcode::S_LOAD_DWORD, d, ka, size & !3)?);
            let Some((count, rem)) = partial else {
                out.push(waitcnt(t, 63, 0)?);
                out.push(build(
                    t,
                    Opcode::S_BFE_U32,
                    &[sreg(d, 1), sreg(d, 1), half(size)],
                )?);
                return Ok(());
            };
            let rem = rem + 2 * a;
            out.push(smem_load(t, Opcode::S_LOAD_DWORD, tmp, ka, rem & !3)?);
            out.push(waitcnt(t, 63, 0)?);
            out.push(build(
                t,
                Opcode::S_BFE_U32,
                &[sreg(d, 1), sreg(d, 1), half(size)],
            )?);
            out.push(build(
                t,
                Opcode::S_BFE_U32,
                &[sreg(tmp, 1), sreg(tmp, 1), half(rem)],
            )?);
            // id < count ? size : remainder (the remainder kept in vtmp
            // while tmp holds the count).
            out.push(build(
                t,
                Opcode::V_MOV_B32_E32,
                &[vreg(r.vtmp, 1), sreg(tmp, 1)],
            )?);
            out.push(smem_load(t, Opcode::S_LOAD_DWORD, tmp, ka, count + 4 * a)?);
            out.push(waitcnt(t, 63, 0)?);
            let idv = id.map_or(Operand::Int(0), |n| sreg(n, 1));
            out.push(build(t, Opcode::S_CMP_LT_U32, &[idv, sreg(tmp, 1)])?);
            out.push(build(
                t,
                Opcode::V_READFIRSTLANE_B32,
                &[sreg(tmp, 1), vreg(r.vtmp, 1)],
            )?);
            out.push(build(
                t,
                Opcode::S_CSELECT_B32,
                &[sreg(d, 1), sreg(d, 1), sreg(tmp, 1)],
            )?);
        }
    }
    Ok(())
}

/// Appends one record per wave-execution of a memory instruction to a ring
/// buffer in the request's shared region: `[next u64][dropped u64]`
/// followed by `capacity` records ([`TRACE_RECORD`] bytes: site, EXEC,
/// the wave's work-group id and index — read from [`MemTraceEntry`]'s
/// scratch area, [`WAVE_ID_BYTES`] before this request's own — then the
/// address register part per active lane — the host adds the
/// instruction's immediate offset). A record is reserved with an atomic
/// add on `next`; when the ring is full the probe adds 1 to `dropped` and
/// writes nothing, so a full buffer never corrupts the kernel. GLOBAL and
/// FLAT (vaddr pair, or saddr + 32-bit vaddr), DS (address VGPR) and
/// SCRATCH (the lane's private offset: saddr + vaddr, 32 bits) are traced;
/// other instructions (MUBUF among them) get no code. Touches no SCC, VCC
/// or M0.
#[derive(Debug, Clone, Copy)]
pub struct MemTraceProbe {
    /// Records the ring holds.
    pub capacity: u32,
}

impl Probe for MemTraceProbe {
    fn slot_bytes(&self) -> u32 {
        0
    }
    fn shared_bytes(&self) -> u32 {
        16 + self.capacity * TRACE_RECORD
    }
    fn scratch_bytes(&self) -> u32 {
        // Only to learn where the area is: [`MemTraceEntry`]'s comes
        // right before it.
        4
    }
    fn emit(&self, cx: &ProbeCx<'_>, out: &mut Vec<Instruction>) -> Result<(), BuildError> {
        use lathe_isa::{Encoding, Field};
        let (t, r) = (cx.target, cx.regs);
        let enc = cx.inst.encoding().family();
        let ops = cx.inst.operands();
        let by = |f: Field| ops.iter().find(|o| o.spec.field == f).map(|o| o.value);
        let scratch = enc == Encoding::Scratch;
        let vaddr = match by(Field::Addr) {
            Some(Operand::Reg(a)) if a.file == RegFile::Vgpr => Some(a),
            _ => None,
        };
        let saddr = match by(Field::Saddr) {
            Some(Operand::Reg(s)) if s.file == RegFile::Scalar => Some(s),
            _ => None,
        };
        let buffer = enc == Encoding::Mubuf;
        if buffer && (cx.inst.words()[0] >> 16 & 1 == 1 || mubuf_parts(&cx.inst).is_none()) {
            // Buffer-to-LDS loads (and malformed operands): no address.
            return Ok(());
        }
        if !matches!(
            enc,
            Encoding::Global | Encoding::Flat | Encoding::Ds | Encoding::Scratch | Encoding::Mubuf
        ) || vaddr.is_none() && !scratch && !buffer
        {
            return Ok(());
        }
        let (pa, ret) = (r.vaux + 2, r.vaux);
        let ring = cx.shared;
        exec_one(t, r, out)?;
        // Reserve a record: ret = next++.
        out.push(build(
            t,
            Opcode::V_MOV_B32_E32,
            &[vreg(r.vtmp, 1), konst(ring)],
        )?);
        out.push(atomic_add_x2_rtn(t, r, ret, r.vtmp, r.vdata, 0)?);
        out.push(waitcnt(t, 0, 15)?);
        // VOP3 takes no literal on GFX9: the capacity goes through a VGPR.
        out.push(build(
            t,
            Opcode::V_MOV_B32_E32,
            &[vreg(pa, 1), konst(self.capacity)],
        )?);
        out.push(build(
            t,
            Opcode::V_CMP_LE_U32_E64,
            &[mask_reg(t, r.t2), vreg(pa, 1), vreg(ret, 1)],
        )?);
        out.push(build(
            t,
            Opcode::V_CMP_GT_U32_E64,
            &[mask_reg(t, r.tmp), vreg(pa, 1), vreg(ret, 1)],
        )?);
        // Full: count the drop.
        out.push(mask_mov(t, exec_mask(t), mask_reg(t, r.t2))?);
        let mut m8 = Modifiers::default();
        m8.offset = 8;
        out.push(build_m(
            t,
            Opcode::GLOBAL_ATOMIC_ADD_X2,
            &m8,
            &[vreg(r.vtmp, 1), vreg(r.vdata, 2), sreg(r.ptr, 2)],
        )?);
        out.push(mask_mov(t, exec_mask(t), mask_reg(t, r.tmp))?);
        // The record body, skipped when full.
        let mut body = Vec::with_capacity(24);
        // ret = ring + 16 + ret * TRACE_RECORD (lane 0).
        body.push(build(
            t,
            Opcode::V_MUL_U32_U24_E32,
            &[vreg(ret, 1), Operand::Literal(TRACE_RECORD), vreg(ret, 1)],
        )?);
        body.push(build(
            t,
            add_u32(t),
            &[vreg(ret, 1), Operand::Literal(ring + 16), vreg(ret, 1)],
        )?);
        body.push(build(
            t,
            Opcode::V_MOV_B32_E32,
            &[vreg(pa, 1), konst(cx.site)],
        )?);
        body.push(build(
            t,
            Opcode::GLOBAL_STORE_DWORD,
            &[vreg(ret, 1), vreg(pa, 1), sreg(r.ptr, 2)],
        )?);
        body.push(build(
            t,
            Opcode::V_MOV_B32_E32,
            &[vreg(pa, 1), sreg(r.save, 1)],
        )?);
        // EXEC's high half (none in wave32: 0).
        let exec_hi = if mask_sgprs(t) == 2 {
            sreg(r.save + 1, 1)
        } else {
            Operand::Int(0)
        };
        body.push(build(
            t,
            Opcode::V_MOV_B32_E32,
            &[vreg(pa + 1, 1), exec_hi],
        )?);
        body.push(build_m(
            t,
            Opcode::GLOBAL_STORE_DWORDX2,
            &m8,
            &[vreg(ret, 1), vreg(pa, 2), sreg(r.ptr, 2)],
        )?);
        // The wave's identity (lane 0's copy), at record + 16.
        if let Some(sc) = cx.scratch {
            body.push(build(
                t,
                Opcode::S_MOV_B32,
                &[sreg(r.t2, 1), konst(sc.area.wrapping_sub(WAVE_ID_BYTES))],
            )?);
            for k in 0..2u32 {
                body.push(load_dword(t, pa, r.t2, 8 * k)?);
                body.push(load_dword(t, pa + 1, r.t2, 8 * k + 4)?);
                body.push(waitcnt(t, 0, 15)?);
                let mut m = Modifiers::default();
                m.offset = 16 + 8 * k as i32;
                body.push(build_m(
                    t,
                    Opcode::GLOBAL_STORE_DWORDX2,
                    &m,
                    &[vreg(ret, 1), vreg(pa, 2), sreg(r.ptr, 2)],
                )?);
            }
        }
        body.push(build(
            t,
            Opcode::V_READFIRSTLANE_B32,
            &[sreg(r.scc, 1), vreg(ret, 1)],
        )?);
        // Every active lane: its address at record + 32 + 8 * lane.
        body.push(mask_mov(t, exec_mask(t), mask_reg(t, r.save))?);
        body.push(build(
            t,
            Opcode::V_MBCNT_LO_U32_B32,
            &[vreg(r.vtmp, 1), Operand::Int(-1), Operand::Int(0)],
        )?);
        body.push(build(
            t,
            Opcode::V_MBCNT_HI_U32_B32,
            &[vreg(r.vtmp, 1), Operand::Int(-1), vreg(r.vtmp, 1)],
        )?);
        body.push(build(
            t,
            Opcode::V_LSHLREV_B32_E32,
            &[vreg(r.vtmp, 1), Operand::Int(3), vreg(r.vtmp, 1)],
        )?);
        body.push(build(
            t,
            add_u32(t),
            &[vreg(r.vtmp, 1), sreg(r.scc, 1), vreg(r.vtmp, 1)],
        )?);
        if scratch {
            // The lane's private offset (32 bits): saddr + vaddr.
            let lo = match (saddr, vaddr) {
                (Some(sa), Some(va)) => build(
                    t,
                    add_u32(t),
                    &[vreg(pa, 1), sreg(sa.first, 1), vreg(va.first, 1)],
                )?,
                (Some(sa), None) => {
                    build(t, Opcode::V_MOV_B32_E32, &[vreg(pa, 1), sreg(sa.first, 1)])?
                }
                (None, Some(va)) => {
                    build(t, Opcode::V_MOV_B32_E32, &[vreg(pa, 1), vreg(va.first, 1)])?
                }
                (None, None) => build(t, Opcode::V_MOV_B32_E32, &[vreg(pa, 1), Operand::Int(0)])?,
            };
            body.push(lo);
            body.push(build(
                t,
                Opcode::V_MOV_B32_E32,
                &[vreg(pa + 1, 1), Operand::Int(0)],
            )?);
        }
        if buffer {
            mubuf_address(t, r, &cx.inst, &mut body)?;
        }
        let addr = vaddr.unwrap_or(RegRange::vgpr(0, 1));
        match (enc, saddr) {
            (Encoding::Scratch | Encoding::Mubuf, _) => {}
            (Encoding::Ds, _) => {
                body.push(build(
                    t,
                    Opcode::V_MOV_B32_E32,
                    &[vreg(pa, 1), vreg(addr.first, 1)],
                )?);
                body.push(build(
                    t,
                    Opcode::V_MOV_B32_E32,
                    &[vreg(pa + 1, 1), Operand::Int(0)],
                )?);
            }
            (_, Some(s)) => {
                body.push(build(
                    t,
                    add_co_u32(t),
                    &[
                        vreg(pa, 1),
                        mask_reg(t, r.t2),
                        sreg(s.first, 1),
                        vreg(addr.first, 1),
                    ],
                )?);
                body.push(build(
                    t,
                    Opcode::V_MOV_B32_E32,
                    &[vreg(pa + 1, 1), sreg(s.first + 1, 1)],
                )?);
                body.push(build(
                    t,
                    addc_u32(t),
                    &[
                        vreg(pa + 1, 1),
                        mask_reg(t, r.t2),
                        vreg(pa + 1, 1),
                        Operand::Int(0),
                        mask_reg(t, r.t2),
                    ],
                )?);
            }
            (_, None) => {
                body.push(build(
                    t,
                    Opcode::V_MOV_B32_E32,
                    &[vreg(pa, 1), vreg(addr.first, 1)],
                )?);
                body.push(build(
                    t,
                    Opcode::V_MOV_B32_E32,
                    &[vreg(pa + 1, 1), vreg(addr.first + 1, 1)],
                )?);
            }
        }
        let mut m32 = Modifiers::default();
        m32.offset = 32;
        body.push(build_m(
            t,
            Opcode::GLOBAL_STORE_DWORDX2,
            &m32,
            &[vreg(r.vtmp, 1), vreg(pa, 2), sreg(r.ptr, 2)],
        )?);
        let skip: usize = body.iter().map(|i| i.len()).sum::<usize>() / 4;
        out.push(build(
            t,
            Opcode::S_CBRANCH_EXECZ,
            &[Operand::Branch(skip as i16)],
        )?);
        out.extend(body);
        exec_restore(t, r, out)
    }
}

/// The operands of a MUBUF access: (resource descriptor SGPR quad,
/// soffset, vaddr, offen, idxen, 12-bit offset).
pub(crate) fn mubuf_parts(
    inst: &Instruction,
) -> Option<(u16, Operand, Option<RegRange>, bool, bool, u32)> {
    use lathe_isa::Field;
    let ops = inst.operands();
    let by = |f: Field| ops.iter().find(|o| o.spec.field == f).map(|o| o.value);
    let rsrc = match by(Field::Srsrc)? {
        Operand::Reg(r) if r.file == RegFile::Scalar => r.first,
        _ => return None,
    };
    let soff = match by(Field::Soffset) {
        Some(o @ (Operand::Reg(_) | Operand::Int(_))) => o,
        _ => Operand::Int(0),
    };
    let vaddr = match by(Field::Vaddr) {
        Some(Operand::Reg(a)) if a.file == RegFile::Vgpr => Some(a),
        _ => None,
    };
    let w0 = inst.words()[0];
    Some((
        rsrc,
        soff,
        vaddr,
        w0 >> 12 & 1 == 1,
        w0 >> 13 & 1 == 1,
        w0 & 0xfff,
    ))
}

/// Computes the device address of each active lane's first byte of a
/// MUBUF access into `vaux+2 : vaux+3`, the address the emulator records:
/// `base + index × stride + offset + soffset` for a raw buffer, and for a
/// descriptor with ADD_TID_ENABLE (the swizzled private segment) `base +
/// soffset + (p / 4) × 4 × lanes + lane × 4 + p % 4` with `p = offset`. Which
/// one is chosen per wave from the descriptor's bit, so one probe serves
/// both. Uses `vaux..vaux+3`, `tmp` and `t2`; VALU only (no SCC).
pub(crate) fn mubuf_address(
    t: Target,
    r: &Reserved,
    inst: &Instruction,
    out: &mut Vec<Instruction>,
) -> Result<(), BuildError> {
    let Some((rsrc, soff, vaddr, offen, idxen, imm)) = mubuf_parts(inst) else {
        return Ok(());
    };
    let (p, swz, lo, hi) = (r.vaux, r.vaux + 1, r.vaux + 2, r.vaux + 3);
    let first = vaddr.map_or(0, |a| a.first);
    // tmp = lanes of the wave when the descriptor swizzles (ADD_TID_ENABLE,
    // bit 23 of its fourth dword).
    out.push(build(
        t,
        Opcode::V_BFE_U32,
        &[
            vreg(p, 1),
            sreg(rsrc + 3, 1),
            Operand::Int(23),
            Operand::Int(1),
        ],
    )?);
    out.push(build(
        t,
        Opcode::V_CMP_NE_U32_E64,
        &[mask_reg(t, r.tmp), Operand::Int(0), vreg(p, 1)],
    )?);
    // p = the lane's offset register (second of the pair with idxen) +
    // the instruction's offset.
    let vo = match (offen, idxen, vaddr) {
        (true, true, Some(_)) => vreg(first + 1, 1),
        (true, false, Some(_)) => vreg(first, 1),
        _ => Operand::Int(0),
    };
    out.push(build(t, Opcode::V_MOV_B32_E32, &[vreg(p, 1), vo])?);
    out.push(build(t, add_u32(t), &[vreg(p, 1), konst(imm), vreg(p, 1)])?);
    // Swizzled: swz = (p / 4) × 4 × lanes + lane × 4 + p % 4 (lo as
    // temporary).
    out.push(build(
        t,
        Opcode::V_MBCNT_LO_U32_B32,
        &[vreg(swz, 1), Operand::Int(-1), Operand::Int(0)],
    )?);
    out.push(build(
        t,
        Opcode::V_MBCNT_HI_U32_B32,
        &[vreg(swz, 1), Operand::Int(-1), vreg(swz, 1)],
    )?);
    out.push(build(
        t,
        Opcode::V_LSHLREV_B32_E32,
        &[vreg(swz, 1), Operand::Int(2), vreg(swz, 1)],
    )?);
    out.push(build(
        t,
        Opcode::V_BFE_U32,
        &[vreg(lo, 1), vreg(p, 1), Operand::Int(0), Operand::Int(2)],
    )?);
    out.push(build(
        t,
        Opcode::V_OR_B32_E32,
        &[vreg(swz, 1), vreg(lo, 1), vreg(swz, 1)],
    )?);
    out.push(build(
        t,
        Opcode::V_LSHRREV_B32_E32,
        &[vreg(lo, 1), Operand::Int(2), vreg(p, 1)],
    )?);
    out.push(build(
        t,
        Opcode::V_LSHLREV_B32_E32,
        // A row is lanes × 4 bytes: 256 in wave64, 128 in wave32.
        &[
            vreg(lo, 1),
            Operand::Int((t.wave_size() * 4).trailing_zeros() as i8),
            vreg(lo, 1),
        ],
    )?);
    out.push(build(
        t,
        Opcode::V_OR_B32_E32,
        &[vreg(swz, 1), vreg(lo, 1), vreg(swz, 1)],
    )?);
    // Raw: lo:hi = index × stride + p (64 bits; p is free afterwards).
    out.push(build(t, Opcode::V_MOV_B32_E32, &[vreg(lo, 1), vreg(p, 1)])?);
    out.push(build(
        t,
        Opcode::V_MOV_B32_E32,
        &[vreg(hi, 1), Operand::Int(0)],
    )?);
    if idxen && vaddr.is_some() {
        out.push(build(
            t,
            Opcode::V_BFE_U32,
            &[
                vreg(p, 1),
                sreg(rsrc + 1, 1),
                Operand::Int(16),
                Operand::Int(14),
            ],
        )?);
        out.push(build(
            t,
            Opcode::V_MAD_U64_U32,
            &[
                vreg(lo, 2),
                mask_reg(t, r.t2),
                vreg(first, 1),
                vreg(p, 1),
                vreg(lo, 2),
            ],
        )?);
    }
    // Choose per the descriptor, then add the base (48 bits) and soffset.
    out.push(build(
        t,
        Opcode::V_CNDMASK_B32_E64,
        &[vreg(lo, 1), vreg(lo, 1), vreg(swz, 1), mask_reg(t, r.tmp)],
    )?);
    out.push(build(
        t,
        Opcode::V_CNDMASK_B32_E64,
        &[
            vreg(hi, 1),
            vreg(hi, 1),
            Operand::Int(0),
            mask_reg(t, r.tmp),
        ],
    )?);
    out.push(build(
        t,
        Opcode::V_MOV_B32_E32,
        &[vreg(p, 1), sreg(rsrc + 1, 1)],
    )?);
    out.push(build(
        t,
        Opcode::V_AND_B32_E32,
        &[vreg(p, 1), Operand::Literal(0xffff), vreg(p, 1)],
    )?);
    out.push(build(
        t,
        add_co_u32(t),
        &[vreg(lo, 1), mask_reg(t, r.t2), sreg(rsrc, 1), vreg(lo, 1)],
    )?);
    out.push(build(
        t,
        addc_u32(t),
        &[
            vreg(hi, 1),
            mask_reg(t, r.t2),
            vreg(p, 1),
            vreg(hi, 1),
            mask_reg(t, r.t2),
        ],
    )?);
    out.push(build(
        t,
        add_co_u32(t),
        &[vreg(lo, 1), mask_reg(t, r.t2), soff, vreg(lo, 1)],
    )?);
    out.push(build(
        t,
        addc_u32(t),
        &[
            vreg(hi, 1),
            mask_reg(t, r.t2),
            Operand::Int(0),
            vreg(hi, 1),
            mask_reg(t, r.t2),
        ],
    )?);
    Ok(())
}

/// `global_atomic_add_x2` returning the old value in `vdst`.
pub(crate) fn atomic_add_x2_rtn(
    t: Target,
    r: &Reserved,
    vdst: u16,
    addr: u16,
    data: u16,
    off: i32,
) -> Result<Instruction, BuildError> {
    let mut m = Modifiers::default();
    m.offset = off;
    m.glc = true;
    Instruction::build(t, Opcode::GLOBAL_ATOMIC_ADD_X2)
        .modifiers(&m)
        .operands(&[vreg(addr, 1), vreg(data, 2), sreg(r.ptr, 2)])?
        .field(lathe_isa::Field::Vdst, u32::from(vdst))
        .finish()
}

//! Operand access: scalar and vector register reads and writes, inline
//! constants and literals, source and output modifiers.

use super::*;

#[inline]
pub(super) fn sreg_read(w: &Wave, n: u16) -> u32 {
    use lathe_isa::reg::sreg::*;
    if let Some(v) = w.sgpr.get(n as usize) {
        return *v;
    }
    match n {
        0..=107 => w.sgpr[n as usize],
        108..=123 => w.ttmp[(n - 108) as usize],
        M0 => w.m0,
        NULL => 0,
        EXEC_LO => w.exec as u32,
        EXEC_HI => (w.exec >> 32) as u32,
        SRC_SHARED_BASE => (SHARED_APERTURE >> 32) as u32,
        SRC_SHARED_LIMIT => ((SHARED_APERTURE + APERTURE_SIZE - 1) >> 32) as u32,
        SRC_PRIVATE_BASE => (PRIVATE_APERTURE >> 32) as u32,
        SRC_PRIVATE_LIMIT => ((PRIVATE_APERTURE + APERTURE_SIZE - 1) >> 32) as u32,
        SRC_VCCZ => u32::from(w.vcc() == 0),
        SRC_EXECZ => u32::from(w.exec == 0),
        SRC_SCC => u32::from(w.scc),
        _ => 0,
    }
}

pub(super) fn sreg_write(w: &mut Wave, n: u16, v: u32) {
    use lathe_isa::reg::sreg::*;
    match n {
        0..=107 => w.sgpr[n as usize] = v,
        108..=123 => w.ttmp[(n - 108) as usize] = v,
        M0 => w.m0 = v,
        EXEC_LO => w.exec = (w.exec & !0xffff_ffff) | u64::from(v),
        // Wave32 has no lanes above 31: EXEC_HI's writes are dropped, so
        // EXEC never names a lane the wave does not have (D65).
        EXEC_HI if w.size == WaveSize::W32 => {}
        EXEC_HI => w.exec = (w.exec & 0xffff_ffff) | (u64::from(v) << 32),
        _ => {}
    }
}

/// Value of a 64-bit operand from a 32-bit literal or inline constant.
pub(super) fn const64(op: &Op) -> Option<u64> {
    Some(match op.value {
        Operand::Int(i) => i as i64 as u64,
        // A 64-bit operand's inline float constant is the double encoding,
        // whatever the operation's type.
        Operand::Float(f) => f.f64_bits(),
        Operand::Literal(l) => match op.ty() {
            Ty::F64 => u64::from(l) << 32,
            _ => u64::from(l),
        },
        _ => return None,
    })
}

#[inline]
pub(super) fn const32(op: &Op) -> Option<u32> {
    Some(match op.value {
        Operand::Int(i) => i as i32 as u32,
        Operand::Float(f) => match op.ty() {
            Ty::F16 | Ty::V2F16 => u32::from(f.f16_bits()),
            _ => f.f32_bits(),
        },
        Operand::Literal(l) => l,
        Operand::Imm(v) => v as u32,
        _ => return None,
    })
}

/// Scalar (lane-independent) 32-bit read.
#[inline]
pub(super) fn s32(w: &Wave, op: &Op) -> u32 {
    match op.value {
        Operand::Reg(r) => match r.file {
            RegFile::Scalar => sreg_read(w, r.first),
            _ => 0,
        },
        _ => const32(op).unwrap_or(0),
    }
}

/// Scalar 64-bit read. An operand one register wide (a lane mask in
/// wave32 code: `vcc_lo`, a VOP3 `sdst`, a `_b32` saveexec source) reads
/// that register alone, zero-extended.
pub(super) fn s64(w: &Wave, op: &Op) -> u64 {
    match op.value {
        Operand::Reg(r) if r.file == RegFile::Scalar => {
            use lathe_isa::reg::sreg::*;
            match r.first {
                SRC_SHARED_BASE => SHARED_APERTURE,
                SRC_PRIVATE_BASE => PRIVATE_APERTURE,
                // `null` as a pair (GFX10+ wave64 code) is null, not
                // null and EXEC_LO.
                NULL => 0,
                n if r.count == 1 => u64::from(sreg_read(w, n)),
                EXEC_LO => w.exec,
                n => u64::from(sreg_read(w, n)) | (u64::from(sreg_read(w, n + 1)) << 32),
            }
        }
        _ => const64(op).unwrap_or(0),
    }
}

pub(super) fn s_write32(w: &mut Wave, op: &Op, v: u32) {
    if let Operand::Reg(r) = op.value {
        if r.file == RegFile::Scalar {
            sreg_write(w, r.first, v);
        }
    }
}

/// Scalar 64-bit write; to an operand one register wide (a wave32 lane
/// mask) only the low half, the next register left alone.
pub(super) fn s_write64(w: &mut Wave, op: &Op, v: u64) {
    if let Operand::Reg(r) = op.value {
        // `null` as a pair (a wave64 VOP3 `sdst` of GFX10+) discards the
        // value: it must not reach EXEC_LO, the register after it.
        if r.file == RegFile::Scalar && r.first != lathe_isa::reg::sreg::NULL {
            sreg_write(w, r.first, v as u32);
            if r.count != 1 {
                sreg_write(w, r.first + 1, (v >> 32) as u32);
            }
        }
    }
}

/// Lane `l`'s 32-bit read of a vector source (a VGPR, AGPR or any scalar source).
#[inline]
pub(super) fn v32(w: &Wave, op: &Op, l: usize) -> u32 {
    match op.value {
        Operand::Reg(RegRange {
            file: RegFile::Vgpr,
            first,
            ..
        }) => w.vgpr.get(first as usize).map_or(0, |r| r[l]),
        Operand::Reg(RegRange {
            file: RegFile::Agpr,
            first,
            ..
        }) => w.agpr.get(first as usize).map_or(0, |r| r[l]),
        // The common scalar sources, without leaving the lane loop.
        Operand::Reg(RegRange {
            file: RegFile::Scalar,
            first,
            ..
        }) if (first as usize) < w.sgpr.len() => w.sgpr[first as usize],
        Operand::Literal(v) => v,
        Operand::Int(i) => i as i32 as u32,
        _ => s32(w, op),
    }
}

/// Lane `l`'s 64-bit read.
#[inline]
pub(super) fn v64(w: &Wave, op: &Op, l: usize) -> u64 {
    match op.value {
        Operand::Reg(RegRange {
            file: RegFile::Vgpr,
            first,
            ..
        }) => {
            let f = first as usize;
            let g = |i: usize| w.vgpr.get(i).map_or(0, |r| u64::from(r[l]));
            g(f) | (g(f + 1) << 32)
        }
        Operand::Reg(RegRange {
            file: RegFile::Agpr,
            first,
            ..
        }) => {
            let f = first as usize;
            let g = |i: usize| w.agpr.get(i).map_or(0, |r| u64::from(r[l]));
            g(f) | (g(f + 1) << 32)
        }
        _ => s64(w, op),
    }
}

#[inline]
pub(super) fn vwrite(w: &mut Wave, op: &Op, l: usize, k: usize, v: u32) {
    if let Operand::Reg(r) = op.value {
        let i = r.first as usize + k;
        match r.file {
            RegFile::Vgpr => {
                if let Some(x) = w.vgpr.get_mut(i) {
                    x[l] = v;
                }
            }
            RegFile::Agpr => {
                if let Some(x) = w.agpr.get_mut(i) {
                    x[l] = v;
                }
            }
            RegFile::Scalar => sreg_write(w, r.first + k as u16, v),
        }
    }
}

/// Every lane of a 32-bit vector source (a VGPR or AGPR copied whole, a
/// scalar source splatted), source modifiers not applied. Lane handlers
/// read these instead of resolving the operand once per lane.
#[inline]
pub(super) fn lanes32(w: &Wave, op: &Op) -> VReg {
    match op.value {
        Operand::Reg(RegRange {
            file: RegFile::Vgpr,
            first,
            ..
        }) => w.vgpr.get(first as usize).copied().unwrap_or([0; LANES]),
        Operand::Reg(RegRange {
            file: RegFile::Agpr,
            first,
            ..
        }) => w.agpr.get(first as usize).copied().unwrap_or([0; LANES]),
        _ => [s32(w, op); LANES],
    }
}

/// Every lane of a 64-bit source (a VGPR/AGPR pair, or a scalar source
/// splatted), as [`v64`] reads it.
#[inline]
pub(super) fn lanes64(w: &Wave, op: &Op) -> [u64; LANES] {
    let file = match op.value {
        Operand::Reg(RegRange {
            file: RegFile::Vgpr,
            first,
            ..
        }) => Some((&w.vgpr, first as usize)),
        Operand::Reg(RegRange {
            file: RegFile::Agpr,
            first,
            ..
        }) => Some((&w.agpr, first as usize)),
        _ => None,
    };
    let Some((regs, f)) = file else {
        return [s64(w, op); LANES];
    };
    let lo = regs.get(f).copied().unwrap_or([0; LANES]);
    let hi = regs.get(f + 1).copied().unwrap_or([0; LANES]);
    let mut out = [0u64; LANES];
    for (o, (l, h)) in out.iter_mut().zip(lo.iter().zip(&hi)) {
        *o = u64::from(*l) | u64::from(*h) << 32;
    }
    out
}

/// Writes `vals` to a 32-bit destination in the active lanes: a VGPR under
/// full EXEC is one copy, inline; anything else goes through
/// [`write_lanes32_masked`].
#[inline(always)]
pub(super) fn write_lanes32(w: &mut Wave, op: &Op, vals: &VReg) {
    if let Operand::Reg(RegRange {
        file: RegFile::Vgpr,
        first,
        ..
    }) = op.value
    {
        if w.exec == u64::MAX {
            if let Some(r) = w.vgpr.get_mut(first as usize) {
                *r = *vals;
                return;
            }
        }
    }
    write_lanes32_masked(w, op, vals, w.exec)
}

/// Writes `vals` to a 32-bit destination in the lanes of `exec`.
#[inline(never)]
pub(super) fn write_lanes32_masked(w: &mut Wave, op: &Op, vals: &VReg, exec: u64) {
    let reg = match op.value {
        Operand::Reg(RegRange {
            file: RegFile::Vgpr,
            first,
            ..
        }) => w.vgpr.get_mut(first as usize),
        Operand::Reg(RegRange {
            file: RegFile::Agpr,
            first,
            ..
        }) => w.agpr.get_mut(first as usize),
        _ => {
            for (l, v) in vals.iter().enumerate() {
                if exec >> l & 1 == 1 {
                    vwrite(w, op, l, 0, *v);
                }
            }
            return;
        }
    };
    if let Some(r) = reg {
        lanes::blend(r, vals, exec);
    }
}

/// Writes `vals` to a 64-bit destination (a register pair) in the active
/// lanes.
#[inline]
pub(super) fn write_lanes64(w: &mut Wave, op: &Op, vals: &[u64; LANES]) {
    let (mut lo, mut hi) = ([0u32; LANES], [0u32; LANES]);
    for (l, v) in vals.iter().enumerate() {
        lo[l] = *v as u32;
        hi[l] = (*v >> 32) as u32;
    }
    let mut op1 = *op;
    if let Operand::Reg(mut r) = op1.value {
        r.first = r.first.wrapping_add(1);
        op1.value = Operand::Reg(r);
    }
    write_lanes32(w, op, &lo);
    write_lanes32(w, &op1, &hi);
}

pub(super) fn f32_mods(op: &Op, v: u32) -> u32 {
    let v = if op.abs { v & 0x7fff_ffff } else { v };
    if op.neg {
        v ^ 0x8000_0000
    } else {
        v
    }
}

/// Applies a 32-bit source's neg/abs modifiers by its type: on bit 15 for
/// f16 operands, bit 31 otherwise (the flags are only ever set on float
/// operands).
pub(super) fn src_mods(op: &Op, v: u32) -> u32 {
    if !op.neg && !op.abs {
        return v;
    }
    match op.ty() {
        Ty::F16 => {
            let v = if op.abs { v & !0x8000 } else { v };
            if op.neg {
                v ^ 0x8000
            } else {
                v
            }
        }
        _ => f32_mods(op, v),
    }
}

pub(super) fn f64_mods(op: &Op, v: u64) -> u64 {
    let v = if op.abs { v & !(1 << 63) } else { v };
    if op.neg {
        v ^ (1 << 63)
    } else {
        v
    }
}

/// VOP3 output modifiers (clamp, omod) from the instruction words.
pub(super) fn vop3_clamp_omod(inst: &Instruction) -> (bool, u32) {
    if inst.encoding().family() != Encoding::Vop3 {
        return (false, 0);
    }
    let w = inst.words();
    (w[0] >> 15 & 1 == 1, w.get(1).map_or(0, |x| x >> 27 & 3))
}

pub(super) fn apply_omod_clamp_f32(x: f32, clamp: bool, omod: u32) -> f32 {
    let x = match omod {
        1 => x * 2.0,
        2 => x * 4.0,
        3 => x * 0.5,
        _ => x,
    };
    if clamp {
        if x.is_nan() {
            0.0
        } else {
            x.clamp(0.0, 1.0)
        }
    } else {
        x
    }
}

pub(super) fn apply_omod_clamp_f64(x: f64, clamp: bool, omod: u32) -> f64 {
    let x = match omod {
        1 => x * 2.0,
        2 => x * 4.0,
        3 => x * 0.5,
        _ => x,
    };
    if clamp {
        if x.is_nan() {
            0.0
        } else {
            x.clamp(0.0, 1.0)
        }
    } else {
        x
    }
}

/// Every lane of a 32-bit source with its neg/abs modifiers applied
/// ([`src_mods`]).
#[inline]
pub(super) fn lanes32_mods(w: &Wave, op: &Op) -> VReg {
    let mut v = lanes32(w, op);
    if op.neg || op.abs {
        for x in &mut v {
            *x = src_mods(op, *x);
        }
    }
    v
}

/// An f32 source in place (`row`: the constant splatted at decode, if it
/// is one), with its `abs`/`neg` modifiers.
#[inline(always)]
pub(super) fn src_f32<'a>(
    w: &'a Wave,
    op: &Op,
    row: Option<&'a VReg>,
    splat: &'a mut VReg,
) -> lanes::Src<'a> {
    let v = match row {
        Some(r) => r,
        None => src_ref(w, op, splat),
    };
    lanes::Src::f32(v, op.abs, op.neg)
}

/// Every lane of a 32-bit source in place: the wave's VGPR or AGPR, or
/// `splat` filled with a scalar source (no copy of a vector register).
#[inline(always)]
pub(super) fn src_ref<'a>(w: &'a Wave, op: &Op, splat: &'a mut VReg) -> &'a VReg {
    if let Operand::Reg(RegRange {
        file: RegFile::Vgpr,
        first,
        ..
    }) = op.value
    {
        if let Some(r) = w.vgpr.get(first as usize) {
            return r;
        }
    }
    src_ref_other(w, op, splat)
}

/// [`src_ref`] of anything but an existing VGPR.
#[inline(never)]
fn src_ref_other<'a>(w: &'a Wave, op: &Op, splat: &'a mut VReg) -> &'a VReg {
    match op.value {
        Operand::Reg(RegRange {
            file: RegFile::Vgpr,
            first,
            ..
        }) => {
            if let Some(r) = w.vgpr.get(first as usize) {
                return r;
            }
            *splat = [0; LANES];
        }
        Operand::Reg(RegRange {
            file: RegFile::Agpr,
            first,
            ..
        }) => {
            if let Some(r) = w.agpr.get(first as usize) {
                return r;
            }
            *splat = [0; LANES];
        }
        _ => *splat = [s32(w, op); LANES],
    }
    splat
}

/// Lane buffers a handler computes in: splatted scalar sources and results.
/// Kept in [`Core`] for the thread's lifetime, so no handler zeroes 256-byte
/// arrays per executed instruction (every buffer is written before it is
/// read).
pub(super) struct Bufs {
    /// Source buffers (splatted scalars, sources with modifiers).
    pub(super) src: [VReg; 6],
    /// Results.
    pub(super) out: [VReg; 2],
}

impl Default for Bufs {
    fn default() -> Self {
        Bufs {
            src: [[0; LANES]; 6],
            out: [[0; LANES]; 2],
        }
    }
}

/// A 32-bit integer source in place ([`src_ref`]); only a source with
/// neg/abs modifiers is copied (into `buf`) to apply them.
#[inline(always)]
pub(super) fn src_u32<'a>(
    w: &'a Wave,
    op: &Op,
    row: Option<&'a VReg>,
    buf: &'a mut VReg,
) -> &'a VReg {
    if op.neg || op.abs {
        *buf = lanes32_mods(w, op);
        return buf;
    }
    match row {
        Some(r) => r,
        None => src_ref(w, op, buf),
    }
}

/// VGPR `first + k` of a VGPR operand, in place, when it exists.
#[inline]
pub(super) fn vgpr_row<'a>(w: &'a Wave, op: &Op, k: usize) -> Option<&'a VReg> {
    match op.value {
        Operand::Reg(RegRange {
            file: RegFile::Vgpr,
            first,
            ..
        }) => w.vgpr.get(first as usize + k),
        _ => None,
    }
}

/// A 64-bit source as its low and high 32-bit rows: a VGPR or AGPR pair in
/// place; anything else (a scalar pair, a constant, a pair past the file)
/// split into `lo` and `hi` as [`lanes64`] reads it.
#[inline]
pub(super) fn src64<'a>(
    w: &'a Wave,
    op: &Op,
    lo: &'a mut VReg,
    hi: &'a mut VReg,
) -> (&'a VReg, &'a VReg) {
    let file = match op.value {
        Operand::Reg(RegRange {
            file: RegFile::Vgpr,
            first,
            ..
        }) => Some((&w.vgpr, first as usize)),
        Operand::Reg(RegRange {
            file: RegFile::Agpr,
            first,
            ..
        }) => Some((&w.agpr, first as usize)),
        _ => None,
    };
    if let Some((regs, f)) = file {
        if let (Some(a), Some(b)) = (regs.get(f), regs.get(f + 1)) {
            return (a, b);
        }
    }
    let v = lanes64(w, op);
    for (l, x) in v.iter().enumerate() {
        lo[l] = *x as u32;
        hi[l] = (*x >> 32) as u32;
    }
    (lo, hi)
}

/// The operand of the next register (`first + 1`): the high half of a
/// 64-bit destination.
#[inline]
pub(super) fn next_reg(op: &Op) -> Op {
    let mut op1 = *op;
    if let Operand::Reg(mut r) = op1.value {
        r.first = r.first.wrapping_add(1);
        op1.value = Operand::Reg(r);
    }
    op1
}

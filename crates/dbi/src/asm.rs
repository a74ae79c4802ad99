//! The probe assembler: the registers reserved for probes ([`Reserved`])
//! and the instruction builders probes, the rewriter's own fix-ups, the
//! scratch set-up and hook calls are made of (all on `lathe-isa`'s
//! encoder).

use lathe_isa::{BuildError, Instruction, Modifiers, Opcode, Operand, RegRange, Target};

/// Registers reserved for probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Reserved {
    /// SGPR pair holding the probe-data buffer address.
    pub ptr: u16,
    /// SGPR pair for saving EXEC.
    pub save: u16,
    /// SGPR pair for temporaries (and long jumps).
    pub tmp: u16,
    /// A second SGPR pair for temporaries.
    pub t2: u16,
    /// SGPR holding a saved SCC.
    pub scc: u16,
    /// VGPR pair holding 1 and 0 in lane 0 (set at kernel entry).
    pub vdata: u16,
    /// VGPR pair for counts (lane 0: high half 0, set at kernel entry).
    pub vcnt: u16,
    /// VGPR holding 0 in lane 0 (set at kernel entry): the address offset.
    pub voff: u16,
    /// VGPR for temporaries.
    pub vtmp: u16,
    /// Four VGPRs (even-aligned) for temporaries.
    pub vaux: u16,
    /// Lane mode (no SGPRs free in the code object): a VGPR whose lanes 0
    /// and 1 hold the probe-data address and whose other lanes hold the
    /// SGPRs a site borrows; the SGPR fields are then chosen per site.
    pub vstate: Option<u16>,
}

impl Reserved {
    /// One past the last reserved SGPR (0 in lane mode).
    pub fn sgpr_end(&self) -> u16 {
        if self.vstate.is_some() {
            0
        } else {
            self.scc + 1
        }
    }
    /// One past the last reserved VGPR.
    pub fn vgpr_end(&self) -> u16 {
        [
            self.vdata + 2,
            self.vcnt + 2,
            self.voff + 1,
            self.vtmp + 1,
            self.vaux + 4,
            self.vstate.map_or(0, |v| v + 1),
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
    }
}

pub(crate) fn sreg(n: u16, c: u8) -> Operand {
    Operand::Reg(RegRange::sgpr(n, c))
}

pub(crate) fn vreg(n: u16, c: u8) -> Operand {
    Operand::Reg(RegRange::vgpr(n, c))
}

pub(crate) fn konst(v: u32) -> Operand {
    if v <= 64 {
        Operand::Int(v as i8)
    } else {
        Operand::Literal(v)
    }
}

/// A multiply-rotate hasher for the rewriter's memo tables (keys are
/// small register and opcode numbers; nothing adversarial): the standard
/// SipHash cost more than the encoding it saved.
#[derive(Clone, Copy, Default)]
pub(crate) struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u8(&mut self, v: u8) {
        self.write_u64(u64::from(v));
    }
    fn write_u16(&mut self, v: u16) {
        self.write_u64(u64::from(v));
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

/// [`FastHasher`] for `HashMap`.
pub(crate) type FastHash = std::hash::BuildHasherDefault<FastHasher>;

/// `op` with printed operands `ops` and default modifiers.
pub fn build(t: Target, op: Opcode, ops: &[Operand]) -> Result<Instruction, BuildError> {
    build_m(t, op, &Modifiers::default(), ops)
}

/// `op` with printed operands `ops` and modifiers `m`.
pub fn build_m(
    t: Target,
    op: Opcode,
    m: &Modifiers,
    ops: &[Operand],
) -> Result<Instruction, BuildError> {
    // Probes are the same few instructions at every site: encode each
    // distinct (target, opcode, modifiers, operands) once per thread. The
    // encoder is a pure function of these, so a hit returns exactly what
    // encoding again would; the table is bounded (cleared when full).
    // The key holds the operands inline (padded, with their count): a
    // look-up allocates nothing. Longer lists are not kept.
    const MAX_OPS: usize = 6;
    type Key = (Target, Opcode, Modifiers, u8, [Operand; MAX_OPS]);
    type Table = std::collections::HashMap<Key, Result<Instruction, BuildError>, FastHash>;
    thread_local! {
        static BUILT: std::cell::RefCell<Table> = std::cell::RefCell::default();
    }
    const MAX_BUILT: usize = 4096;
    let encode = || {
        Instruction::build(t, op)
            .modifiers(m)
            .operands(ops)
            .and_then(|b| b.finish())
    };
    if ops.len() > MAX_OPS {
        return encode();
    }
    let mut inline = [Operand::Int(0); MAX_OPS];
    inline[..ops.len()].copy_from_slice(ops);
    let key: Key = (t, op, *m, ops.len() as u8, inline);
    if let Some(hit) = BUILT.with(|b| b.borrow().get(&key).cloned()) {
        return hit;
    }
    let built = encode();
    BUILT.with(|b| {
        let mut b = b.borrow_mut();
        if b.len() >= MAX_BUILT {
            b.clear();
        }
        b.insert(key, built.clone());
    });
    built
}

/// An SMEM load `op sdata, s[sbase:sbase+1], off` with an immediate
/// offset (GFX9 encoding: the builder's operand list has no immediate
/// form for the offset, so the words are assembled here and checked by
/// decoding).
pub fn smem_load(
    t: Target,
    op: Opcode,
    sdata: u16,
    sbase: u16,
    off: u32,
) -> Result<Instruction, BuildError> {
    let op = op.for_target(t);
    let code = u32::from(op.info().code);
    let (w0, w1) = if t.generation() >= 10 {
        // GFX10: no IMM bit; the 21-bit offset is always added, with
        // `soffset` = null (reads 0).
        (
            0xf400_0000 | (code << 18) | (u32::from(sdata) << 6) | (u32::from(sbase) >> 1),
            (u32::from(lathe_isa::reg::sreg::NULL) << 25) | (off & 0xf_ffff),
        )
    } else {
        (
            0xc000_0000
                | (code << 18)
                | (1 << 17)
                | (u32::from(sdata) << 6)
                | (u32::from(sbase) >> 1),
            off & 0xf_ffff,
        )
    };
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&w0.to_le_bytes());
    b[4..].copy_from_slice(&w1.to_le_bytes());
    let i = lathe_isa::decode(t, &b);
    if i.opcode() != op || i.len() != 8 {
        return Err(BuildError::Invalid {
            opcode: op,
            words: vec![w0, w1],
        });
    }
    Ok(i)
}

/// `s_waitcnt` with the given counts (max = no wait on that counter).
pub fn waitcnt(t: Target, vm: u32, lgkm: u32) -> Result<Instruction, BuildError> {
    let mut imm = lathe_isa::imm::waitcnt_encode(vm, 7, lgkm);
    // GFX10 widens lgkmcnt to bits 13:8: "no wait" (15 on GFX9) is 63.
    if t.generation() == 10 && lgkm >= 15 {
        imm |= 0x3f << 8;
    }
    build(t, Opcode::S_WAITCNT, &[Operand::Imm(i64::from(imm))])
}

/// SGPRs in a lane mask on `t`: 1 in wave32 (EXEC_LO, VCC_LO, a VOP3
/// `sdst`), 2 in wave64.
pub fn mask_sgprs(t: Target) -> u8 {
    if t.wave_size() == 32 {
        1
    } else {
        2
    }
}

/// EXEC as a lane mask on `t`: `exec_lo` in wave32, `exec` in wave64.
pub fn exec_mask(t: Target) -> Operand {
    Operand::Reg(RegRange::sgpr(lathe_isa::reg::sreg::EXEC_LO, mask_sgprs(t)))
}

/// VCC as a lane mask on `t`: `vcc_lo` in wave32, `vcc` in wave64.
pub fn vcc_mask(t: Target) -> Operand {
    Operand::Reg(RegRange::sgpr(lathe_isa::reg::sreg::VCC_LO, mask_sgprs(t)))
}

/// The lane mask held in SGPRs from `s` on `t` (one SGPR in wave32, a
/// pair in wave64).
pub fn mask_reg(t: Target, s: u16) -> Operand {
    sreg(s, mask_sgprs(t))
}

/// The instruction's opcode under the GFX9 name the rewriter compares
/// with (`Opcode::S_ADD_U32`, `Opcode::S_SWAPPC_B64`, ...): GFX10 words
/// decode to GFX10's own table entries (`s_mov_b32` is SOP1 0 on GFX9, 3
/// on GFX10), so an entry of another generation is mapped to gfx90a's
/// entry of the same mnemonic and encoding family (memoised). GFX9 code
/// is returned as decoded.
pub fn canon(inst: &Instruction) -> Opcode {
    let op = inst.opcode();
    if inst.target().generation() == 9 {
        return op;
    }
    thread_local! {
        static CANON: std::cell::RefCell<std::collections::HashMap<Opcode, Opcode, FastHash>> =
            std::cell::RefCell::default();
    }
    if let Some(c) = CANON.with(|m| m.borrow().get(&op).copied()) {
        return c;
    }
    let c = op.for_target(Target::Gfx90a);
    CANON.with(|m| m.borrow_mut().insert(op, c));
    c
}

/// The memory class of `inst`, read through its encoding family so GFX10
/// words (`GlobalGfx10`, `SmemGfx10`, `DsGfx10`, ...) are classed as
/// their GFX9 forms are ([`Instruction::memory_class`] matches the GFX9
/// encodings only). GFX10 DS is LDS (Lathe's compute code has no GDS).
pub fn memory_class(inst: &Instruction) -> lathe_isa::MemoryClass {
    use lathe_isa::{Encoding as E, MemoryClass as M};
    let enc = inst.encoding();
    if enc.family() == enc {
        return inst.memory_class();
    }
    match enc.family() {
        E::Smem => M::Scalar,
        E::Flat => M::Flat,
        E::Global => M::Global,
        E::Scratch => M::Scratch,
        E::Mubuf | E::Mtbuf => M::Buffer,
        E::Ds if inst.is_load() || inst.is_store() || inst.is_atomic() => M::Lds,
        _ => inst.memory_class(),
    }
}

/// The first of `ops` that `t` has (the generations name some VALU
/// instructions differently: GFX9's `v_add_u32` is GFX10's
/// `v_add_nc_u32`); the first one when none is there, so the encoder
/// reports it.
fn first_on(t: Target, ops: &[Opcode]) -> Opcode {
    ops.iter()
        .copied()
        .find(|o| o.for_target(t).info().supports(t))
        .unwrap_or(ops[0])
}

/// The 32-bit VALU add without carry-out, e32 (`v_add_u32`,
/// `v_add_nc_u32`).
pub(crate) fn add_u32(t: Target) -> Opcode {
    first_on(t, &[Opcode::V_ADD_U32_E32, Opcode::V_ADD_NC_U32_E32])
}

/// The VOP3 add with carry-out (`v_add_co_u32_e64`, GFX10's
/// `v_add_co_u32`).
pub(crate) fn add_co_u32(t: Target) -> Opcode {
    first_on(t, &[Opcode::V_ADD_CO_U32_E64, Opcode::V_ADD_CO_U32])
}

/// The VOP3 add with carry-in and carry-out (`v_addc_co_u32`,
/// `v_add_co_ci_u32`).
pub(crate) fn addc_u32(t: Target) -> Opcode {
    first_on(t, &[Opcode::V_ADDC_CO_U32_E64, Opcode::V_ADD_CO_CI_U32_E64])
}

/// `s_mov_b32`/`s_mov_b64 dst, src` for a lane mask on `t`.
pub fn mask_mov(t: Target, dst: Operand, src: Operand) -> Result<Instruction, BuildError> {
    let op = if mask_sgprs(t) == 1 {
        Opcode::S_MOV_B32
    } else {
        Opcode::S_MOV_B64
    };
    build(t, op, &[dst, src])
}

/// `s_mov_b64 s[save], exec; s_mov_b64 exec, 1` (`_b32` and `exec_lo` in
/// wave32).
pub fn exec_one(t: Target, r: &Reserved, out: &mut Vec<Instruction>) -> Result<(), BuildError> {
    out.push(mask_mov(t, mask_reg(t, r.save), exec_mask(t))?);
    out.push(mask_mov(t, exec_mask(t), Operand::Int(1))?);
    Ok(())
}

/// `s_mov_b64 exec, s[save]` (`_b32` and `exec_lo` in wave32).
pub fn exec_restore(t: Target, r: &Reserved, out: &mut Vec<Instruction>) -> Result<(), BuildError> {
    out.push(mask_mov(t, exec_mask(t), mask_reg(t, r.save))?);
    Ok(())
}

/// `global_atomic_add_x2 v[addr], v[data:data+1], s[ptr:ptr+1] offset:off`.
pub fn atomic_add_x2(
    t: Target,
    r: &Reserved,
    addr: u16,
    data: u16,
    off: i32,
) -> Result<Instruction, BuildError> {
    let mut m = Modifiers::default();
    m.offset = off;
    build_m(
        t,
        Opcode::GLOBAL_ATOMIC_ADD_X2,
        &m,
        &[vreg(addr, 1), vreg(data, 2), sreg(r.ptr, 2)],
    )
}

/// The largest immediate offset of a GLOBAL instruction on `t`: 13 bits
/// signed on GFX9, 12 bits signed on GFX10 (bit 12 is `dlc`).
pub fn max_global_offset(t: Target) -> u32 {
    if t.generation() == 10 {
        2047
    } else {
        4095
    }
}

/// The VGPR holding a slot's offset and the immediate: the zero VGPR and
/// the slot as immediate while it fits the target's signed GLOBAL offset
/// ([`max_global_offset`]), else `v_mov_b32 vtmp, slot` and 0.
pub(crate) fn slot_address(
    t: Target,
    r: &Reserved,
    slot: u32,
    span: u32,
    out: &mut Vec<Instruction>,
) -> Result<(u16, i32), BuildError> {
    if slot + span <= max_global_offset(t) {
        Ok((r.voff, slot as i32))
    } else {
        out.push(build(
            t,
            Opcode::V_MOV_B32_E32,
            &[vreg(r.vtmp, 1), konst(slot)],
        )?);
        Ok((r.vtmp, 0))
    }
}

/// Sets the reserved VGPRs' lane-0 constants (kernel entry): `vdata` =
/// {1, 0}, `vcnt` high = 0, `voff` = 0. Every lane active at kernel entry
/// gets them (lane 0 always is: a wave starts with its first lanes), so
/// EXEC is left alone; `save` is not needed (kept for callers).
pub fn preset_vgprs(
    t: Target,
    r: &Reserved,
    save: u16,
    out: &mut Vec<Instruction>,
) -> Result<(), BuildError> {
    let _ = save;
    for (v, k) in [(r.vdata, 1), (r.vdata + 1, 0), (r.vcnt + 1, 0), (r.voff, 0)] {
        out.push(build(
            t,
            Opcode::V_MOV_B32_E32,
            &[vreg(v, 1), Operand::Int(k)],
        )?);
    }
    Ok(())
}

pub(crate) fn writelane(t: Target, v: u16, s: u16, lane: u16) -> Result<Instruction, BuildError> {
    build(
        t,
        Opcode::V_WRITELANE_B32,
        &[vreg(v, 1), sreg(s, 1), konst(u32::from(lane))],
    )
}

/// `v_readlane_b32 s, v, lane`.
pub(crate) fn readlane(t: Target, s: u16, v: u16, lane: u16) -> Result<Instruction, BuildError> {
    build(
        t,
        Opcode::V_READLANE_B32,
        &[sreg(s, 1), vreg(v, 1), konst(u32::from(lane))],
    )
}

/// `s_nop n`.
pub(crate) fn nop(t: Target, n: u16) -> Result<Instruction, BuildError> {
    build(t, Opcode::S_NOP, &[Operand::Imm(i64::from(n))])
}

//! Program control (SOPP): no-ops, branches, barriers, `s_endpgm`,
//! messages, traps, MODE and GPR-index state.

use super::*;

/// The handler of a program-control operation.
pub(super) fn handler(op: Control) -> Option<Handler> {
    Some(match op {
        // Hints, cache maintenance (memory is coherent in this model) and
        // trace data (no tracer) change no state.
        Control::Nop
        | Control::Waitcnt
        | Control::SetPrio
        | Control::Sleep
        | Control::Cache
        | Control::TraceData
        | Control::PerfLevel
        | Control::Wakeup => nop,
        Control::Endpgm => |_x, _w, _l, _i, _c| Ok(Flow::End),
        Control::GprIdxOn => |_x, w, _l, i, c| {
            // The index comes from the SGPR source; the mode from simm (SOPC ssrc1).
            let idx = c.src(0).map_or(0, |s| s32(w, s)) & 0xff;
            let mode = (i.words()[0] >> 8 & 0xf) as u8;
            w.m0 = (w.m0 & !0xff) | idx;
            w.gpr_idx = Some((mode, idx));
            Ok(Flow::Continue)
        },
        Control::GetReg => |_x, w, _l, i, c| {
            let (id, off, size) = hwreg(i);
            let reg = match id {
                HW_REG_MODE => w.mode,
                HW_REG_SH_MEM_BASES => sh_mem_bases(),
                _ => return Err(unsupported(w, i, c.pc)),
            };
            let Some(d) = c.dst(0).copied() else {
                return Err(unsupported(w, i, c.pc));
            };
            s_write32(w, &d, (reg >> off) & mask_bits(size));
            Ok(Flow::Continue)
        },
        Control::SetReg | Control::SetRegImm => |_x, w, _l, i, c| {
            let (id, off, size) = hwreg(i);
            // GFX10's FLAT_SCR_LO/HI (hwreg 20, 21): a kernel sets its
            // flat-scratch base from FLAT_SCRATCH_INIT plus its wave offset,
            // the base the dispatcher already gave the wave
            // (`Wave::flat_scratch`), so the write changes nothing (D65),
            // as a GFX9 kernel's write of the FLAT_SCRATCH pair does not.
            if matches!(id, HW_REG_FLAT_SCR_LO | HW_REG_FLAT_SCR_HI) {
                return Ok(Flow::Continue);
            }
            if id != HW_REG_MODE {
                return Err(unsupported(w, i, c.pc));
            }
            let v = match i.literal() {
                Some(l) if c.sem == Sem::Control(Control::SetRegImm) => l,
                _ => c
                    .ops
                    .as_slice()
                    .iter()
                    .find(|o| o.field() == Field::Sdst)
                    .map_or(0, |o| s32(w, o)),
            };
            let m = mask_bits(size) << off;
            w.mode = (w.mode & !m) | ((v << off) & m);
            Ok(Flow::Continue)
        },
        Control::GprIdxOff => |_x, w, _l, _i, _c| {
            w.gpr_idx = None;
            Ok(Flow::Continue)
        },
        Control::Barrier => |_x, _w, _l, _i, _c| Ok(Flow::Barrier),
        // Only MSG_INTERRUPT (message ID 1 in SIMM16[3:0]) is modelled: it
        // raises a host interrupt carrying M0, which the runtime's hook
        // receives. Other messages (GS, save-wave, ...) stop as unsupported.
        Control::SendMsg => |x, w, _l, i, c| {
            if i.field(Field::Simm16).unwrap_or(0) & 0xf != 1 {
                return Err(unsupported(w, i, c.pc));
            }
            if let Some(f) = x.interrupt {
                f(w.m0);
            }
            Ok(Flow::Continue)
        },
        Control::Trap => |_x, w, _l, i, c| {
            Err(Stop::Trap {
                code: i.field(Field::Simm16).unwrap_or(0) & 0xff,
                pc: c.pc,
                wave: id(w),
            })
        },
        Control::GetPc => |_x, w, _l, i, c| {
            if let Some(d) = c.dst(0) {
                s_write64(w, &d.clone(), c.pc + i.len() as u64);
            }
            Ok(Flow::Continue)
        },
        Control::SetPc => |_x, w, _l, _i, c| {
            if let Some(s) = c.src(0) {
                w.pc = s64(w, s);
            }
            Ok(Flow::Continue)
        },
        Control::SwapPc => |_x, w, _l, i, c| {
            let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) else {
                return Err(unsupported(w, i, c.pc));
            };
            let target = s64(w, &s);
            s_write64(w, &d, c.pc + i.len() as u64);
            w.pc = target;
            Ok(Flow::Continue)
        },
        // SOPK: the return address (the next instruction) into SDST, then a
        // PC-relative jump (SIMM16 dwords from the next instruction).
        Control::Call => |_x, w, _l, i, c| {
            let (Some(d), Some(t)) = (c.dst(0).copied(), c.target) else {
                return Err(unsupported(w, i, c.pc));
            };
            s_write64(w, &d, c.pc + i.len() as u64);
            w.pc = t;
            Ok(Flow::Continue)
        },
        // `s_sendmsghalt` is described as trap-handler state (its halted
        // wave waits for a debugger); the GPR-index forms are handled in
        // `gpr_idx`.
        Control::SendMsgHalt | Control::GprIdxMode | Control::GprIdxIdx => return None,
    })
}

/// Whether a branch with condition `cond` is taken. Without a debugger
/// attached, the debugger flags are clear.
pub(super) fn taken(cond: Cond, w: &Wave) -> bool {
    match cond {
        Cond::Always => true,
        Cond::Scc0 => !w.scc,
        Cond::Scc1 => w.scc,
        Cond::Vccz => w.vcc() == 0,
        Cond::Vccnz => w.vcc() != 0,
        Cond::Execz => w.exec == 0,
        Cond::Execnz => w.exec != 0,
        Cond::CdbgSys | Cond::CdbgUser | Cond::CdbgSysOrUser | Cond::CdbgSysAndUser => false,
    }
}

/// Direct branches: the condition from the description, the target
/// worked out at decode.
pub(super) fn branch(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _l: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let Sem::Branch(cond) = c.sem else {
        return Err(unsupported(w, i, c.pc));
    };
    if taken(cond, w) {
        w.pc = c.target.ok_or_else(|| unsupported(w, i, c.pc))?;
    }
    Ok(Flow::Continue)
}

pub(super) fn nop(
    _x: &mut Core<'_>,
    _w: &mut Wave,
    _l: &mut [u8],
    _i: &Instruction,
    _c: &Ctx,
) -> Result<Flow, Stop> {
    Ok(Flow::Continue)
}

/// `SH_MEM_BASES` (hwreg 15): bits 15:0 hold bits 63:48 of the private
/// aperture's base, bits 31:16 those of the shared (LDS) aperture's, which
/// is how compiled code tests whether a flat address is LDS or scratch.
pub(super) fn sh_mem_bases() -> u32 {
    ((SHARED_APERTURE >> 48) as u32) << 16 | (PRIVATE_APERTURE >> 48) as u32
}

/// `s_memtime` and `s_memrealtime`: the clocks of [`crate::clock`] into an
/// SGPR pair.
pub(super) fn time(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _l: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    // SMEM's `sdata` is listed as a read operand (as for the loads), so the
    // destination pair is found by its field.
    let (Sem::Time(clock), Some(d)) = (c.sem, c.by_field(Field::Sdata).copied()) else {
        return Err(unsupported(w, i, c.pc));
    };
    let t = match clock {
        Clock::Shader => crate::clock::memtime(w.clock_base, w.instructions),
        Clock::Real => crate::clock::memrealtime(w.clock_base, w.instructions),
    };
    s_write64(w, &d, t);
    Ok(Flow::Continue)
}

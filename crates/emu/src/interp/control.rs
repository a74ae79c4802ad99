//! Program control (SOPP): no-ops, branches, barriers, `s_endpgm`,
//! messages, traps, MODE and GPR-index state.

use super::*;

/// The SOPP handler of `name` (without encoding suffix).
pub(super) fn handler(name: &str) -> Option<Handler> {
    Some(match name {
        // ---- SOPP
        "s_nop" | "s_waitcnt" | "s_setprio" | "s_sleep" | "s_dcache_wb" | "s_dcache_inv"
        | "s_icache_inv" | "s_buffer_wbinvl1" | "buffer_wbinvl1_vol" | "buffer_inv"
        | "buffer_wbl2" | "buffer_invl2" | "buffer_wbinvl1" | "s_ttracedata" => nop,
        "s_endpgm" => |_x, _w, _l, _i, _c| Ok(Flow::End),
        "s_set_gpr_idx_on" => |_x, w, _l, i, c| {
            // The index comes from the SGPR source; the mode from simm (SOPC ssrc1).
            let idx = c.src(0).map_or(0, |s| s32(w, s)) & 0xff;
            let mode = (i.words()[0] >> 8 & 0xf) as u8;
            w.m0 = (w.m0 & !0xff) | idx;
            w.gpr_idx = Some((mode, idx));
            Ok(Flow::Continue)
        },
        "s_getreg_b32" => |_x, w, _l, i, c| {
            let (id, off, size) = hwreg(i);
            if id != HW_REG_MODE {
                return Err(unsupported(w, i, c.pc));
            }
            if let Some(d) = c.dst(0).copied() {
                let v = (w.mode >> off) & mask_bits(size);
                s_write32(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        "s_setreg_b32" | "s_setreg_imm32_b32" => |_x, w, _l, i, c| {
            let (id, off, size) = hwreg(i);
            if id != HW_REG_MODE {
                return Err(unsupported(w, i, c.pc));
            }
            let v = match i.literal() {
                Some(l) if i.opcode().name() == "s_setreg_imm32_b32" => l,
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
        "s_set_gpr_idx_off" => |_x, w, _l, _i, _c| {
            w.gpr_idx = None;
            Ok(Flow::Continue)
        },
        "s_barrier" => |_x, _w, _l, _i, _c| Ok(Flow::Barrier),
        // Only MSG_INTERRUPT (message ID 1 in SIMM16[3:0]) is modelled: it
        // raises a host interrupt carrying M0, which the runtime's hook
        // receives. Other messages (GS, save-wave, ...) stop as unsupported.
        "s_sendmsg" => |x, w, _l, i, c| {
            if i.field(Field::Simm16).unwrap_or(0) & 0xf != 1 {
                return Err(unsupported(w, i, c.pc));
            }
            if let Some(f) = x.interrupt {
                f(w.m0);
            }
            Ok(Flow::Continue)
        },
        "s_branch" => |_x, w, _l, _i, c| {
            w.pc = c.target.unwrap_or(w.pc);
            Ok(Flow::Continue)
        },
        "s_cbranch_scc0" => cbr!(|w| !w.scc),
        "s_cbranch_scc1" => cbr!(|w| w.scc),
        "s_cbranch_vccz" => cbr!(|w| w.vcc() == 0),
        "s_cbranch_vccnz" => cbr!(|w| w.vcc() != 0),
        "s_cbranch_execz" => cbr!(|w| w.exec == 0),
        "s_cbranch_execnz" => cbr!(|w| w.exec != 0),
        "s_trap" => |_x, w, _l, i, c| {
            Err(Stop::Trap {
                code: i.field(Field::Simm16).unwrap_or(0) & 0xff,
                pc: c.pc,
                wave: id(w),
            })
        },
        "s_getpc_b64" => |_x, w, _l, i, c| {
            if let Some(d) = c.dst(0) {
                s_write64(w, &d.clone(), c.pc + i.len() as u64);
            }
            Ok(Flow::Continue)
        },
        "s_setpc_b64" => |_x, w, _l, _i, c| {
            if let Some(s) = c.src(0) {
                w.pc = s64(w, s);
            }
            Ok(Flow::Continue)
        },
        "s_swappc_b64" => |_x, w, _l, i, c| {
            let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) else {
                return Ok(Flow::Continue);
            };
            let target = s64(w, &s);
            s_write64(w, &d, c.pc + i.len() as u64);
            w.pc = target;
            Ok(Flow::Continue)
        },
        // SOPK: the return address (the next instruction) into SDST, then a
        // PC-relative jump (SIMM16 dwords from the next instruction).
        "s_call_b64" => |_x, w, _l, i, c| {
            let (Some(d), Some(t)) = (c.dst(0).copied(), c.target) else {
                return Err(unsupported(w, i, c.pc));
            };
            s_write64(w, &d, c.pc + i.len() as u64);
            w.pc = t;
            Ok(Flow::Continue)
        },
        _ => return None,
    })
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

//! SOP1/SOP2/SOPK/SOPC/SOPP: the symbolic 16-bit immediates (`hwreg`,
//! `sendmsg`, `s_waitcnt` counters, `gpr_idx`). Operands of these encodings
//! are fully described by the generated tables.

use crate::generated::gfx9 as gen;
use crate::print::write_hex;
use crate::reg::write_u32;
use crate::target::Target;
use std::fmt::{self, Write};

/// Decoded `hwreg(id, offset, width)` immediate.
pub fn hwreg_fields(v: u32) -> (u32, u32, u32) {
    (v & 0x3F, (v >> 6) & 0x1F, ((v >> 11) & 0x1F) + 1)
}

pub(crate) fn write_hwreg(target: Target, v: u32, out: &mut impl Write) -> fmt::Result {
    let (id, offset, width) = hwreg_fields(v);
    out.write_str("hwreg(")?;
    let name = gen::HWREG_NAMES
        .get(target.index())
        .and_then(|t| t.get(id as usize))
        .map(|&p| crate::generated::text(p))
        .unwrap_or("");
    if name.is_empty() {
        write_u32(out, id)?;
    } else {
        out.write_str(name)?;
    }
    if offset != 0 || width != 32 {
        out.write_str(", ")?;
        write_u32(out, offset)?;
        out.write_str(", ")?;
        write_u32(out, width)?;
    }
    out.write_char(')')
}

pub(crate) fn write_sendmsg(target: Target, v: u32, out: &mut impl Write) -> fmt::Result {
    // The table covers the 10 bits LLVM decodes (id, op, stream). Symbolic
    // names ignore the other bits; the numeric `sendmsg(a, b, c)` form and
    // anything else need them clear.
    let text = gen::SENDMSG
        .get(target.index())
        .and_then(|t| t.get((v & 0x3FF) as usize))
        .map(|&p| crate::generated::text(p))
        .unwrap_or("");
    let symbolic = text
        .strip_prefix("sendmsg(")
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_alphabetic()));
    let text = if v < 1024 || symbolic { text } else { "" };
    if text.is_empty() {
        write_u32(out, v)
    } else {
        out.write_str(text)
    }
}

/// GFX9 `s_waitcnt` fields: (vmcnt, expcnt, lgkmcnt).
pub fn waitcnt_fields(v: u32) -> (u32, u32, u32) {
    let vm = (v & 0xF) | ((v >> 14) & 3) << 4;
    let exp = (v >> 4) & 7;
    let lgkm = (v >> 8) & 0xF;
    (vm, exp, lgkm)
}

/// Encodes GFX9 `s_waitcnt` fields (each clamped to its width).
pub fn waitcnt_encode(vm: u32, exp: u32, lgkm: u32) -> u16 {
    let vm = vm.min(63);
    let v = (vm & 0xF) | (exp.min(7) << 4) | (lgkm.min(15) << 8) | ((vm >> 4) << 14);
    v as u16
}

/// `s_waitcnt` fields on `target`: GFX10 widens lgkmcnt to 6 bits (13:8).
pub fn waitcnt_fields_for(target: Target, v: u32) -> (u32, u32, u32) {
    let (vm, exp, lgkm) = waitcnt_fields(v);
    if target.generation() >= 11 {
        // GFX11: expcnt 2:0, lgkmcnt 9:4, vmcnt 15:10.
        ((v >> 10) & 0x3F, v & 7, (v >> 4) & 0x3F)
    } else if target.generation() >= 10 {
        (vm, exp, (v >> 8) & 0x3F)
    } else {
        (vm, exp, lgkm)
    }
}

pub(crate) fn write_waitcnt(target: Target, v: u32, out: &mut impl Write) -> fmt::Result {
    let (vm, exp, lgkm) = waitcnt_fields_for(target, v);
    let lgkm_max = if target.generation() >= 10 { 63 } else { 15 };
    let (dvm, dexp, dlgkm) = (vm == 63, exp == 7, lgkm == lgkm_max);
    let all = dvm && dexp && dlgkm;
    let mut sp = false;
    if !dvm || all {
        out.write_str("vmcnt(")?;
        write_u32(out, vm)?;
        out.write_char(')')?;
        sp = true;
    }
    if !dexp || all {
        if sp {
            out.write_char(' ')?;
        }
        out.write_str("expcnt(")?;
        write_u32(out, exp)?;
        out.write_char(')')?;
        sp = true;
    }
    if !dlgkm || all {
        if sp {
            out.write_char(' ')?;
        }
        out.write_str("lgkmcnt(")?;
        write_u32(out, lgkm)?;
        out.write_char(')')?;
    }
    Ok(())
}

/// `s_delay_alu`: the named fields that are not zero, joined by ` | `, or
/// the value in decimal when all are zero (names from the tables).
pub(crate) fn write_delay_alu(target: Target, v: u32, out: &mut impl Write) -> fmt::Result {
    let names = &crate::generated::gfx9::DELAY_ALU[target.index()];
    let parts = [
        ("instid0(", (v & 0xF) as usize),
        ("instskip(", 16 + ((v >> 4) & 7) as usize),
        ("instid1(", ((v >> 7) & 0xF) as usize),
    ];
    let mut first = true;
    for (label, i) in parts {
        if i == 0 || i == 16 {
            continue;
        }
        if !first {
            out.write_str(" | ")?;
        }
        first = false;
        out.write_str(label)?;
        out.write_str(names[i])?;
        out.write_char(')')?;
    }
    if first {
        write_u32(out, v)?;
    }
    Ok(())
}

/// `s_waitcnt_depctr`: the counters (from the tables) whose value is not
/// their maximum, or all of them when none is; hex when a bit outside the
/// counters is set.
pub(crate) fn write_depctr(target: Target, v: u32, out: &mut impl Write) -> fmt::Result {
    let ctrs = crate::generated::gfx9::DEPCTR[target.index()];
    let known = ctrs
        .iter()
        .fold(0u32, |m, &(_, lo, w)| m | (((1 << w) - 1) << lo));
    if ctrs.is_empty() || v & !known != 0 {
        return write_hex(out, v as u64);
    }
    let val = |lo: u8, w: u8| (v >> lo) & ((1 << w) - 1);
    let all_max = ctrs.iter().all(|&(_, lo, w)| val(lo, w) == (1 << w) - 1);
    let mut first = true;
    for &(name, lo, w) in ctrs {
        let x = val(lo, w);
        if !all_max && x == (1 << w) - 1 {
            continue;
        }
        if !first {
            out.write_char(' ')?;
        }
        first = false;
        out.write_str(name)?;
        out.write_char('(')?;
        write_u32(out, x)?;
        out.write_char(')')?;
    }
    Ok(())
}

pub(crate) fn write_gpr_idx(v: u32, out: &mut impl Write) -> fmt::Result {
    if v & !0xF != 0 {
        return write_hex(out, v as u64);
    }
    out.write_str("gpr_idx(")?;
    let names = ["SRC0", "SRC1", "SRC2", "DST"];
    let mut first = true;
    for (i, n) in names.iter().enumerate() {
        if v >> i & 1 != 0 {
            if !first {
                out.write_char(',')?;
            }
            first = false;
            out.write_str(n)?;
        }
    }
    out.write_char(')')
}

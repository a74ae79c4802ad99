//! DS (LDS/GDS): offsets (`offset:`, `offset0:`/`offset1:`, the
//! `ds_swizzle_b32` pattern) and `gds`.

use crate::inst::Instruction;
use crate::opcode::flags;
use crate::print::write_dec;
use std::fmt::{self, Write};

pub(crate) fn print_mods(inst: &Instruction, out: &mut impl Write) -> fmt::Result {
    let off0 = inst.bits(0, 0, 8);
    let off1 = inst.bits(0, 8, 8);
    if inst.has(flags::SWIZZLE) {
        let v = inst.bits(0, 0, 16);
        if v != 0 {
            out.write_str(" offset:")?;
            write_swizzle(v, out)?;
        }
    } else if inst.has(flags::OFFSET01) {
        if off0 != 0 {
            out.write_str(" offset0:")?;
            write_dec(out, off0)?;
        }
        if off1 != 0 {
            out.write_str(" offset1:")?;
            write_dec(out, off1)?;
        }
    } else if inst.has(flags::OFFSET) {
        let v = inst.bits(0, 0, 16);
        if v != 0 {
            out.write_str(" offset:")?;
            write_dec(out, v)?;
        }
    }
    let gds = if inst.encoding().is_gfx10() { 17 } else { 16 };
    if inst.has(flags::GDS) && inst.bit(gds) {
        out.write_str(" gds")?;
    }
    Ok(())
}

/// `ds_swizzle_b32` offset pattern, as LLVM prints it.
pub(crate) fn write_swizzle(v: u32, out: &mut impl Write) -> fmt::Result {
    const BITMASK_MAX: u32 = 0x1F;
    // GFX9+: rotate (0xC000..0xE000) and FFT (0xE000..) modes.
    if v >= 0xE000 {
        out.write_str("swizzle(FFT,")?;
        write_dec(out, v & 0x1F)?;
        return out.write_char(')');
    }
    if v >= 0xC000 {
        out.write_str("swizzle(ROTATE,")?;
        write_dec(out, (v >> 10) & 1)?;
        out.write_char(',')?;
        write_dec(out, (v >> 5) & 0x1F)?;
        return out.write_char(')');
    }
    if v & 0xFF00 == 0x8000 {
        out.write_str("swizzle(QUAD_PERM")?;
        let mut x = v;
        for _ in 0..4 {
            out.write_char(',')?;
            write_dec(out, x & 3)?;
            x >>= 2;
        }
        return out.write_char(')');
    }
    if v & 0x8000 != 0 {
        // Not a symbolic form: raw 16-bit value.
        return write_dec(out, v);
    }
    let and_mask = v & 0x1F;
    let or_mask = (v >> 5) & 0x1F;
    let xor_mask = (v >> 10) & 0x1F;
    if and_mask == BITMASK_MAX && or_mask == 0 && xor_mask.count_ones() == 1 {
        out.write_str("swizzle(SWAP,")?;
        write_dec(out, xor_mask)?;
        return out.write_char(')');
    }
    if and_mask == BITMASK_MAX && or_mask == 0 && xor_mask > 0 && (xor_mask + 1).is_power_of_two() {
        out.write_str("swizzle(REVERSE,")?;
        write_dec(out, xor_mask + 1)?;
        return out.write_char(')');
    }
    let group = BITMASK_MAX - and_mask + 1;
    if group > 1 && group.is_power_of_two() && or_mask < group && xor_mask == 0 {
        out.write_str("swizzle(BROADCAST,")?;
        write_dec(out, group)?;
        out.write_char(',')?;
        write_dec(out, or_mask)?;
        return out.write_char(')');
    }
    out.write_str("swizzle(BITMASK_PERM,\"")?;
    let p0 = or_mask ^ xor_mask;
    let p1 = ((BITMASK_MAX & and_mask) | or_mask) ^ xor_mask;
    for i in (0..5).rev() {
        let m = 1 << i;
        let (a, b) = (p0 & m, p1 & m);
        out.write_char(match (a == b, a == 0) {
            (true, true) => '0',
            (true, false) => '1',
            (false, true) => 'p',
            (false, false) => 'i',
        })?;
    }
    out.write_str("\")")
}

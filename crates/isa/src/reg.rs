//! Registers: the scalar operand space (SGPRs, special registers, TTMPs and
//! the source-only "inline registers"), VGPRs and AGPRs, and their names as
//! LLVM prints them.

use std::fmt;

/// A register file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegFile {
    /// The scalar operand space, indexed by its 8-bit encoding: `s0..s101`
    /// (0-101), `flat_scratch` (102-103), `xnack_mask` (104-105), `vcc`
    /// (106-107), `ttmp0..15` (108-123), `m0` (124), `null` (125), `exec`
    /// (126-127), and source-only registers `src_shared_base` (235) ..
    /// `src_pops_exiting_wave_id` (239), `src_vccz` (251), `src_execz`
    /// (252), `src_scc` (253), `src_lds_direct` (254).
    Scalar,
    /// Vector registers `v0..v255`.
    Vgpr,
    /// Accumulation registers `a0..a255`.
    Agpr,
}

/// Scalar-space encodings of the special registers.
pub mod sreg {
    /// `flat_scratch_lo`.
    pub const FLAT_SCRATCH_LO: u16 = 102;
    /// `flat_scratch_hi`.
    pub const FLAT_SCRATCH_HI: u16 = 103;
    /// `xnack_mask_lo`.
    pub const XNACK_MASK_LO: u16 = 104;
    /// `xnack_mask_hi`.
    pub const XNACK_MASK_HI: u16 = 105;
    /// `vcc_lo`.
    pub const VCC_LO: u16 = 106;
    /// `vcc_hi`.
    pub const VCC_HI: u16 = 107;
    /// `ttmp0`.
    pub const TTMP0: u16 = 108;
    /// `m0`.
    pub const M0: u16 = 124;
    /// `null`.
    pub const NULL: u16 = 125;
    /// `exec_lo`.
    pub const EXEC_LO: u16 = 126;
    /// `exec_hi`.
    pub const EXEC_HI: u16 = 127;
    /// `src_shared_base`.
    pub const SRC_SHARED_BASE: u16 = 235;
    /// `src_shared_limit`.
    pub const SRC_SHARED_LIMIT: u16 = 236;
    /// `src_private_base`.
    pub const SRC_PRIVATE_BASE: u16 = 237;
    /// `src_private_limit`.
    pub const SRC_PRIVATE_LIMIT: u16 = 238;
    /// `src_pops_exiting_wave_id`.
    pub const SRC_POPS_EXITING_WAVE_ID: u16 = 239;
    /// `src_flat_scratch_base_lo`.
    pub const SRC_FLAT_SCRATCH_BASE_LO: u16 = 230;
    /// `src_flat_scratch_base_hi`.
    pub const SRC_FLAT_SCRATCH_BASE_HI: u16 = 231;
    /// `src_vccz`.
    pub const SRC_VCCZ: u16 = 251;
    /// `src_execz`.
    pub const SRC_EXECZ: u16 = 252;
    /// `src_scc`.
    pub const SRC_SCC: u16 = 253;
    /// `src_lds_direct`.
    pub const SRC_LDS_DIRECT: u16 = 254;
}

/// A contiguous range of registers: `s[4:5]`, `v7`, `a[0:15]`, `vcc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegRange {
    /// Register file.
    pub file: RegFile,
    /// First register (for [`RegFile::Scalar`], its encoding).
    pub first: u16,
    /// Number of 32-bit registers.
    pub count: u8,
}

impl RegRange {
    /// A range of `count` SGPRs starting at `s{first}`.
    pub const fn sgpr(first: u16, count: u8) -> RegRange {
        RegRange {
            file: RegFile::Scalar,
            first,
            count,
        }
    }
    /// A range of `count` VGPRs starting at `v{first}`.
    pub const fn vgpr(first: u16, count: u8) -> RegRange {
        RegRange {
            file: RegFile::Vgpr,
            first,
            count,
        }
    }
    /// A range of `count` AGPRs starting at `a{first}`.
    pub const fn agpr(first: u16, count: u8) -> RegRange {
        RegRange {
            file: RegFile::Agpr,
            first,
            count,
        }
    }
    /// `vcc` (64-bit).
    pub const VCC: RegRange = RegRange::sgpr(sreg::VCC_LO, 2);
    /// `exec` (64-bit).
    pub const EXEC: RegRange = RegRange::sgpr(sreg::EXEC_LO, 2);
    /// `m0`.
    pub const M0: RegRange = RegRange::sgpr(sreg::M0, 1);

    /// Last register of the range.
    pub fn last(&self) -> u16 {
        self.first + self.count.saturating_sub(1) as u16
    }

    /// True if `self` and `other` share a register.
    pub fn overlaps(&self, other: &RegRange) -> bool {
        self.file == other.file && self.first <= other.last() && other.first <= self.last()
    }

    /// True if the range is made of general-purpose SGPRs (`s0..s101`).
    pub fn is_sgpr(&self) -> bool {
        self.file == RegFile::Scalar && self.last() <= 101
    }

    /// Writes the LLVM name (`s[4:5]`, `vcc`, `ttmp[0:3]`, `v7`).
    pub fn write(&self, out: &mut impl fmt::Write) -> fmt::Result {
        match self.file {
            RegFile::Vgpr => write_range(out, "v", self.first, self.count),
            RegFile::Agpr => write_range(out, "a", self.first, self.count),
            RegFile::Scalar => write_scalar(out, self.first, self.count),
        }
    }
}

impl fmt::Display for RegRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f)
    }
}

pub(crate) fn write_range(
    out: &mut impl fmt::Write,
    prefix: &str,
    first: u16,
    count: u8,
) -> fmt::Result {
    if count <= 1 {
        out.write_str(prefix)?;
        write_u32(out, first as u32)
    } else {
        out.write_str(prefix)?;
        out.write_char('[')?;
        write_u32(out, first as u32)?;
        out.write_char(':')?;
        write_u32(out, first as u32 + count as u32 - 1)?;
        out.write_char(']')
    }
}

/// Decimal without going through `core::fmt` machinery (hot path).
#[inline]
pub(crate) fn write_u32(out: &mut impl fmt::Write, mut v: u32) -> fmt::Result {
    if v < 10 {
        return out.write_char(char::from(b'0' + v as u8));
    }
    let mut buf = [0u8; 10];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    // SAFETY-free: digits are ASCII.
    out.write_str(std::str::from_utf8(&buf[i..]).unwrap_or("?"))
}

pub(crate) fn write_scalar(out: &mut impl fmt::Write, first: u16, count: u8) -> fmt::Result {
    let w = count.max(1);
    let pair = |out: &mut dyn fmt::Write, lo: &str, hi: &str, full: &str, is_hi: bool| {
        out.write_str(if w >= 2 {
            full
        } else if is_hi {
            hi
        } else {
            lo
        })
    };
    match first {
        0..=101 => write_range(out, "s", first, w),
        102 | 103 => pair(
            out,
            "flat_scratch_lo",
            "flat_scratch_hi",
            "flat_scratch",
            first == 103,
        ),
        104 | 105 => pair(
            out,
            "xnack_mask_lo",
            "xnack_mask_hi",
            "xnack_mask",
            first == 105,
        ),
        106 | 107 => pair(out, "vcc_lo", "vcc_hi", "vcc", first == 107),
        108..=123 => write_range(out, "ttmp", first - 108, w),
        124 => out.write_str("m0"),
        125 => out.write_str("null"),
        126 | 127 => pair(out, "exec_lo", "exec_hi", "exec", first == 127),
        235 => out.write_str("src_shared_base"),
        236 => out.write_str("src_shared_limit"),
        237 => out.write_str("src_private_base"),
        238 => out.write_str("src_private_limit"),
        239 => out.write_str("src_pops_exiting_wave_id"),
        230 => out.write_str("src_flat_scratch_base_lo"),
        231 => out.write_str("src_flat_scratch_base_hi"),
        251 => out.write_str("src_vccz"),
        252 => out.write_str("src_execz"),
        253 => out.write_str("src_scc"),
        254 => out.write_str("src_lds_direct"),
        _ => {
            out.write_str("<sreg")?;
            write_u32(out, first as u32)?;
            out.write_char('>')
        }
    }
}

/// The encoding of scalar register `n` (in this crate's numbering, where
/// `m0` is 124 and `null` 125, as on GFX9/10) on `target`: GFX11 swapped
/// the two. The mapping is its own inverse, so it also reads a field.
#[inline]
pub(crate) fn sgpr_code(target: crate::Target, n: u16) -> u32 {
    match n {
        124 | 125 if target.generation() >= 11 => (n ^ 1) as u32,
        _ => n as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(r: RegRange) -> String {
        r.to_string()
    }

    #[test]
    fn names_match_llvm_spelling() {
        assert_eq!(name(RegRange::sgpr(4, 2)), "s[4:5]");
        assert_eq!(name(RegRange::sgpr(7, 1)), "s7");
        assert_eq!(name(RegRange::vgpr(0, 4)), "v[0:3]");
        assert_eq!(name(RegRange::agpr(3, 1)), "a3");
        assert_eq!(name(RegRange::VCC), "vcc");
        assert_eq!(name(RegRange::sgpr(107, 1)), "vcc_hi");
        assert_eq!(name(RegRange::EXEC), "exec");
        assert_eq!(name(RegRange::sgpr(110, 2)), "ttmp[2:3]");
        assert_eq!(name(RegRange::sgpr(235, 1)), "src_shared_base");
        assert!(RegRange::sgpr(4, 2).overlaps(&RegRange::sgpr(5, 1)));
        assert!(!RegRange::sgpr(4, 2).overlaps(&RegRange::vgpr(5, 1)));
    }
}

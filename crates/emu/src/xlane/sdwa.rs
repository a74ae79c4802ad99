//! SDWA (sub-dword addressing) operand and destination selects, GFX9.
//!
//! A VOP_SDWA instruction reads each source through a select (`src0_sel`,
//! `src1_sel`): the chosen byte or word is moved to bit 0 and zero-extended,
//! or sign-extended with the `sext` operand modifier (integer operands). The
//! result is written through `dst_sel`: its low bits go to the selected field,
//! and `dst_unused` says what happens to the other bits — `UNUSED_PAD` zeroes
//! them, `UNUSED_SEXT` fills the bits above the field with the field's top
//! bit and zeroes the bits below it, `UNUSED_PRESERVE` keeps the
//! destination's previous bits (LLVM `AMDGPUModifierSyntax`, ISA SDWA field
//! table). The encodings are `SEL`: BYTE_0..BYTE_3 = 0..3, WORD_0 = 4,
//! WORD_1 = 5, DWORD = 6; `dst_unused`: PAD = 0, SEXT = 1, PRESERVE = 2.
//! These are per-lane functions; EXEC applies as for any VALU op.

/// An SDWA operand or destination select.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SdwaSel {
    /// Bits 7:0.
    Byte0,
    /// Bits 15:8.
    Byte1,
    /// Bits 23:16.
    Byte2,
    /// Bits 31:24.
    Byte3,
    /// Bits 15:0.
    Word0,
    /// Bits 31:16.
    Word1,
    /// Bits 31:0.
    Dword,
}

impl SdwaSel {
    /// Decodes a 3-bit select field; `None` for the reserved value 7.
    pub const fn decode(v: u8) -> Option<SdwaSel> {
        Some(match v {
            0 => SdwaSel::Byte0,
            1 => SdwaSel::Byte1,
            2 => SdwaSel::Byte2,
            3 => SdwaSel::Byte3,
            4 => SdwaSel::Word0,
            5 => SdwaSel::Word1,
            6 => SdwaSel::Dword,
            _ => return None,
        })
    }

    /// The field's lowest bit.
    pub const fn shift(self) -> u32 {
        match self {
            SdwaSel::Byte0 | SdwaSel::Word0 | SdwaSel::Dword => 0,
            SdwaSel::Byte1 => 8,
            SdwaSel::Byte2 | SdwaSel::Word1 => 16,
            SdwaSel::Byte3 => 24,
        }
    }

    /// The field's width in bits.
    pub const fn width(self) -> u32 {
        match self {
            SdwaSel::Byte0 | SdwaSel::Byte1 | SdwaSel::Byte2 | SdwaSel::Byte3 => 8,
            SdwaSel::Word0 | SdwaSel::Word1 => 16,
            SdwaSel::Dword => 32,
        }
    }

    /// The field's bits in place (`0xFF00` for `BYTE_1`).
    pub const fn mask(self) -> u32 {
        (u32::MAX >> (32 - self.width())) << self.shift()
    }
}

/// What happens to the destination bits outside `dst_sel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DstUnused {
    /// `UNUSED_PAD`: zero.
    Pad,
    /// `UNUSED_SEXT`: bits above the field copy its top bit; bits below are 0.
    Sext,
    /// `UNUSED_PRESERVE`: the destination's previous bits.
    Preserve,
}

impl DstUnused {
    /// Decodes the 2-bit `dst_unused` field; `None` for the reserved value 3.
    pub const fn decode(v: u8) -> Option<DstUnused> {
        Some(match v {
            0 => DstUnused::Pad,
            1 => DstUnused::Sext,
            2 => DstUnused::Preserve,
            _ => return None,
        })
    }
}

/// A source operand as the operation sees it: the selected field moved to
/// bit 0, zero-extended, or sign-extended when `sext` is set.
pub const fn sdwa_src(value: u32, sel: SdwaSel, sext: bool) -> u32 {
    let w = sel.width();
    let field = (value & sel.mask()) >> sel.shift();
    if sext && w < 32 {
        (((field << (32 - w)) as i32) >> (32 - w)) as u32
    } else {
        field
    }
}

/// The destination register after writing `result` through `dst_sel` with
/// `dst_unused`; `old` is its previous value (used by `UNUSED_PRESERVE`).
pub const fn sdwa_dst(result: u32, old: u32, sel: SdwaSel, unused: DstUnused) -> u32 {
    let m = sel.mask();
    let placed = (result << sel.shift()) & m;
    match unused {
        DstUnused::Pad => placed,
        DstUnused::Preserve => (old & !m) | placed,
        DstUnused::Sext => {
            let end = sel.shift() + sel.width();
            if end < 32 && (placed >> (end - 1)) & 1 == 1 {
                placed | u32::MAX << end
            } else {
                placed
            }
        }
    }
}

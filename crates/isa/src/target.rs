//! Targets (GPU processors) and the differences between them that matter for
//! decoding, encoding and printing.

use std::fmt;

/// A GPU processor this crate can decode for.
///
/// Built from a processor name such as `"gfx90a"` or a full target id such as
/// `"gfx942:sramecc+:xnack-"` (features are ignored). GFX10, GFX11 and GFX12
/// processors will be added; match on it with a wildcard arm.
///
/// Processors whose instruction sets LLVM decodes identically share one
/// column of the generated tables (the generator groups them by probing each
/// one); which ones do is not part of the API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
#[repr(u8)]
pub enum Target {
    /// CDNA2 (MI200 series): GFX9 with AGPRs, packed FP32, 64-bit DPP.
    Gfx90a = 0,
    /// CDNA3 (MI300 series): GFX9 ("GFX940" family), `sc0 sc1 nt` cache bits,
    /// FP8 conversions and MFMA, SMFMAC, `v_mov_b64`.
    Gfx942 = 1,
    /// Vega 10.
    Gfx900 = 2,
    /// Raven (APU).
    Gfx902 = 3,
    /// Vega 12.
    Gfx904 = 4,
    /// Vega 20 (MI50/MI60): adds dot-product instructions.
    Gfx906 = 5,
    /// CDNA1 (MI100): MFMA with AGPRs.
    Gfx908 = 6,
    /// Raven 2 (APU).
    Gfx909 = 7,
    /// Renoir (APU).
    Gfx90c = 8,
    /// CDNA4 (MI350 series): GFX940 family with f8f6f4 and scaled MFMA.
    Gfx950 = 9,
    /// `gfx9-generic`: code for gfx900, 902, 904, 906, 909 and 90c.
    Gfx9Generic = 10,
    /// `gfx9-4-generic`: code for gfx940, 941, 942 and 950.
    Gfx94Generic = 11,
    /// Navi 21 (RDNA2, GFX10.3), wave32 — the disassembler's default wave
    /// size for GFX10+; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1030 = 12,
    /// gfx1030 running wave64 code (`+wavefrontsize64`): same processor,
    /// lane masks are register pairs (`vcc`, `s[0:1]`) instead of `vcc_lo`.
    #[doc(hidden)]
    Gfx1030W64 = 13,
    /// Navi 31 (RDNA3, GFX11), wave32; [`Target::with_wave_size`] gives the
    /// wave64 form.
    Gfx1100 = 14,
    /// gfx1100 running wave64 code.
    #[doc(hidden)]
    Gfx1100W64 = 15,
}

/// Error for an unknown or unsupported processor name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TargetError {
    /// The processor part of the name is not one this crate supports.
    #[error(
        "unsupported AMDGPU processor {name:?} (supported: {})",
        Target::supported_list()
    )]
    Unsupported {
        /// The processor name as given (features stripped).
        name: String,
    },
}

impl Target {
    /// Every supported target, in LLVM's order.
    pub const ALL: [Target; 14] = [
        Target::Gfx900,
        Target::Gfx902,
        Target::Gfx904,
        Target::Gfx906,
        Target::Gfx908,
        Target::Gfx909,
        Target::Gfx90a,
        Target::Gfx90c,
        Target::Gfx942,
        Target::Gfx950,
        Target::Gfx9Generic,
        Target::Gfx94Generic,
        Target::Gfx1030,
        Target::Gfx1100,
    ];

    /// Parses a processor name or target id (`gfx90a`, `gfx942:xnack+`,
    /// `amdgcn-amd-amdhsa--gfx90a:sramecc+`).
    pub fn from_name(name: &str) -> Result<Target, TargetError> {
        let proc_ = name.rsplit("--").next().unwrap_or(name);
        let proc_ = proc_.split(':').next().unwrap_or(proc_);
        Target::ALL
            .into_iter()
            .find(|t| t.name() == proc_)
            .ok_or_else(|| TargetError::Unsupported {
                name: proc_.to_string(),
            })
    }

    /// The supported processor names, comma-separated (for messages).
    pub fn supported_list() -> String {
        let names: Vec<&str> = Target::ALL.iter().map(|t| t.name()).collect();
        names.join(", ")
    }

    /// The processor name, as LLVM spells it (`gfx90a`).
    pub fn name(self) -> &'static str {
        match self {
            Target::Gfx90a => "gfx90a",
            Target::Gfx942 => "gfx942",
            Target::Gfx900 => "gfx900",
            Target::Gfx902 => "gfx902",
            Target::Gfx904 => "gfx904",
            Target::Gfx906 => "gfx906",
            Target::Gfx908 => "gfx908",
            Target::Gfx909 => "gfx909",
            Target::Gfx90c => "gfx90c",
            Target::Gfx950 => "gfx950",
            Target::Gfx9Generic => "gfx9-generic",
            Target::Gfx94Generic => "gfx9-4-generic",
            Target::Gfx1030 | Target::Gfx1030W64 => "gfx1030",
            Target::Gfx1100 | Target::Gfx1100W64 => "gfx1100",
        }
    }

    /// The GFX generation: 9 (GCN5/CDNA), 10 (RDNA1/2) or 11 (RDNA3).
    #[inline]
    pub fn generation(self) -> u8 {
        match self {
            Target::Gfx1030 | Target::Gfx1030W64 => 10,
            Target::Gfx1100 | Target::Gfx1100W64 => 11,
            _ => 9,
        }
    }

    /// This processor running code of `wave_size` (32 or 64) lanes per
    /// wave: GFX10+ processors run both (LLVM's `wavefrontsize64` feature;
    /// per kernel, the kernel descriptor's wave32 bit), GFX9 only 64.
    /// `None` for a size the processor does not run.
    pub fn with_wave_size(self, wave_size: u32) -> Option<Target> {
        match (self, wave_size) {
            (Target::Gfx1030 | Target::Gfx1030W64, 32) => Some(Target::Gfx1030),
            (Target::Gfx1030 | Target::Gfx1030W64, 64) => Some(Target::Gfx1030W64),
            (Target::Gfx1100 | Target::Gfx1100W64, 32) => Some(Target::Gfx1100),
            (Target::Gfx1100 | Target::Gfx1100W64, 64) => Some(Target::Gfx1100W64),
            (t, 64) if t.generation() == 9 => Some(t),
            _ => None,
        }
    }

    /// Column of per-target tables (processors LLVM decodes identically
    /// share one).
    #[inline]
    pub(crate) fn index(self) -> usize {
        crate::generated::gfx9::COLUMN[self as usize] as usize
    }

    /// The generated-table column this processor uses (processors with
    /// equal columns decode identically). For tests that sweep one
    /// processor per column; not a stable part of the API.
    #[doc(hidden)]
    pub fn table_column(self) -> usize {
        self.index()
    }

    /// Bit of this target's column in an
    /// [`OpInfo`](crate::opcode::OpInfo) `targets` mask.
    #[inline]
    pub(crate) fn bit(self) -> u16 {
        1 << self.index()
    }

    /// True for the GFX940 family (gfx940/941/942/950, gfx9-4-generic):
    /// cache-policy bits print as `sc0 sc1 nt`, scratch has the ST
    /// addressing mode.
    #[inline]
    pub fn is_gfx940(self) -> bool {
        matches!(self, Target::Gfx942 | Target::Gfx950 | Target::Gfx94Generic)
    }

    /// True when 64-bit and wider VGPR/AGPR tuples must start at an even
    /// register (gfx90a and later), which is also when memory instructions
    /// can read and write AGPRs (the `acc` bits).
    #[inline]
    pub fn needs_aligned_vgprs(self) -> bool {
        self == Target::Gfx90a || self.is_gfx940()
    }

    /// True when the processor has AGPRs (gfx908 and later CDNA).
    #[inline]
    pub fn has_agprs(self) -> bool {
        self == Target::Gfx908 || self.needs_aligned_vgprs()
    }

    /// Wave size: 64 on GFX9; on GFX10+ 32 unless the target was made
    /// with [`Target::with_wave_size`]`(64)`.
    #[inline]
    pub fn wave_size(self) -> u32 {
        match self {
            Target::Gfx1030 | Target::Gfx1100 => 32,
            _ => 64,
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Target {
    type Err = TargetError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Target::from_name(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_target_ids() {
        assert_eq!(Target::from_name("gfx90a"), Ok(Target::Gfx90a));
        assert_eq!(
            Target::from_name("gfx942:sramecc+:xnack-"),
            Ok(Target::Gfx942)
        );
        assert_eq!(
            Target::from_name("amdgcn-amd-amdhsa--gfx90a:xnack+"),
            Ok(Target::Gfx90a)
        );
        assert_eq!(
            Target::from_name("gfx1200"),
            Err(TargetError::Unsupported {
                name: "gfx1200".into()
            })
        );
        assert_eq!(
            Target::Gfx1030.with_wave_size(64).map(Target::wave_size),
            Some(64)
        );
        for t in Target::ALL {
            assert_eq!(Target::from_name(t.name()), Ok(t));
        }
    }
}

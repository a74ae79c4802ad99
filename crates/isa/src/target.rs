//! Targets (GPU processors) and the differences between them that matter for
//! decoding, encoding and printing.

use std::fmt;

/// A GPU processor this crate can decode for.
///
/// Built from a processor name such as `"gfx90a"` or a full target id such as
/// `"gfx942:sramecc+:xnack-"` (features are ignored). More GFX9, GFX10, GFX11
/// and GFX12 processors will be added; match on it with a wildcard arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
#[repr(u8)]
pub enum Target {
    /// CDNA2 (MI200 series): GFX9 with AGPRs, packed FP32, 64-bit DPP.
    Gfx90a = 0,
    /// CDNA3 (MI300 series): GFX9 ("GFX940" family), `sc0 sc1 nt` cache bits,
    /// FP8 conversions and MFMA, SMFMAC, `v_mov_b64`.
    Gfx942 = 1,
}

/// Error for an unknown or unsupported processor name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TargetError {
    /// The processor part of the name is not one this crate supports.
    #[error("unsupported AMDGPU processor {name:?} (supported: gfx90a, gfx942)")]
    Unsupported {
        /// The processor name as given (features stripped).
        name: String,
    },
}

impl Target {
    /// Every supported target.
    pub const ALL: [Target; 2] = [Target::Gfx90a, Target::Gfx942];

    /// Number of supported targets (the width of per-target tables).
    pub(crate) const COUNT: usize = 2;

    /// Parses a processor name or target id (`gfx90a`, `gfx942:xnack+`,
    /// `amdgcn-amd-amdhsa--gfx90a:sramecc+`).
    pub fn from_name(name: &str) -> Result<Target, TargetError> {
        let proc_ = name.rsplit("--").next().unwrap_or(name);
        let proc_ = proc_.split(':').next().unwrap_or(proc_);
        match proc_ {
            "gfx90a" => Ok(Target::Gfx90a),
            "gfx942" => Ok(Target::Gfx942),
            _ => Err(TargetError::Unsupported {
                name: proc_.to_string(),
            }),
        }
    }

    /// The processor name, as LLVM spells it (`gfx90a`).
    pub fn name(self) -> &'static str {
        match self {
            Target::Gfx90a => "gfx90a",
            Target::Gfx942 => "gfx942",
        }
    }

    /// Index into per-target tables.
    #[inline]
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// Bit of this target in a [`TargetSet`](crate::opcode::OpInfo::targets) mask.
    #[inline]
    pub(crate) fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// True for the GFX940 family (gfx940/941/942): cache-policy bits print
    /// as `sc0 sc1 nt`, scratch has the ST addressing mode.
    #[inline]
    pub fn is_gfx940(self) -> bool {
        matches!(self, Target::Gfx942)
    }

    /// True when 64-bit and wider VGPR/AGPR tuples must start at an even
    /// register (gfx90a and later).
    #[inline]
    pub fn needs_aligned_vgprs(self) -> bool {
        true
    }

    /// Wave size (64 on all GFX9 targets).
    #[inline]
    pub fn wave_size(self) -> u32 {
        64
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
            Target::from_name("gfx1100"),
            Err(TargetError::Unsupported {
                name: "gfx1100".into()
            })
        );
        for t in Target::ALL {
            assert_eq!(Target::from_name(t.name()), Ok(t));
        }
    }
}

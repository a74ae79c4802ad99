//! Targets (GPU processors) and the differences between them that matter for
//! decoding, encoding and printing.

use std::fmt;

/// A GPU processor this crate can decode for.
///
/// Built from a processor name such as `"gfx90a"` or a full target id such as
/// `"gfx942:sramecc+:xnack-"` (features are ignored). More processors may
/// be added; match on it with a wildcard arm.
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
    /// Navi 22 (RDNA2), wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1031 = 16,
    /// gfx1031 running wave64 code.
    #[doc(hidden)]
    Gfx1031W64 = 17,
    /// Navi 23 (RDNA2), wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1032 = 18,
    /// gfx1032 running wave64 code.
    #[doc(hidden)]
    Gfx1032W64 = 19,
    /// Van Gogh (RDNA2 APU), wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1033 = 20,
    /// gfx1033 running wave64 code.
    #[doc(hidden)]
    Gfx1033W64 = 21,
    /// Navi 24 (RDNA2), wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1034 = 22,
    /// gfx1034 running wave64 code.
    #[doc(hidden)]
    Gfx1034W64 = 23,
    /// Rembrandt (RDNA2 APU), wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1035 = 24,
    /// gfx1035 running wave64 code.
    #[doc(hidden)]
    Gfx1035W64 = 25,
    /// Raphael (RDNA2 APU graphics), wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1036 = 26,
    /// gfx1036 running wave64 code.
    #[doc(hidden)]
    Gfx1036W64 = 27,
    /// `gfx10-3-generic`: code for gfx1030-gfx1036, wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx103Generic = 28,
    /// gfx10-3-generic running wave64 code.
    #[doc(hidden)]
    Gfx103GenericW64 = 29,
    /// Navi 32 (RDNA3), wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1101 = 30,
    /// gfx1101 running wave64 code.
    #[doc(hidden)]
    Gfx1101W64 = 31,
    /// Navi 33 (RDNA3), wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1102 = 32,
    /// gfx1102 running wave64 code.
    #[doc(hidden)]
    Gfx1102W64 = 33,
    /// Phoenix (RDNA3 APU), wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1103 = 34,
    /// gfx1103 running wave64 code.
    #[doc(hidden)]
    Gfx1103W64 = 35,
    /// Strix Point (RDNA3.5, GFX11.5), wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1150 = 36,
    /// gfx1150 running wave64 code.
    #[doc(hidden)]
    Gfx1150W64 = 37,
    /// Strix Halo (RDNA3.5, GFX11.5), wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1151 = 38,
    /// gfx1151 running wave64 code.
    #[doc(hidden)]
    Gfx1151W64 = 39,
    /// Krackan Point (RDNA3.5, GFX11.5), wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1152 = 40,
    /// gfx1152 running wave64 code.
    #[doc(hidden)]
    Gfx1152W64 = 41,
    /// RDNA3.5 (GFX11.5), wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1153 = 42,
    /// gfx1153 running wave64 code.
    #[doc(hidden)]
    Gfx1153W64 = 43,
    /// `gfx11-generic`: code for gfx1100-gfx1103 and gfx1150-gfx1153, wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx11Generic = 44,
    /// gfx11-generic running wave64 code.
    #[doc(hidden)]
    Gfx11GenericW64 = 45,
    /// Navi 44 (RDNA4, GFX12), wave32; [`Target::with_wave_size`] gives the
    /// wave64 form.
    Gfx1200 = 46,
    /// gfx1200 running wave64 code.
    #[doc(hidden)]
    Gfx1200W64 = 47,
    /// Navi 48 (RDNA4, GFX12), wave32; [`Target::with_wave_size`] gives the
    /// wave64 form.
    Gfx1201 = 48,
    /// gfx1201 running wave64 code.
    #[doc(hidden)]
    Gfx1201W64 = 49,
    /// `gfx12-generic`: code for gfx1200 and gfx1201, wave32.
    Gfx12Generic = 50,
    /// gfx12-generic running wave64 code.
    #[doc(hidden)]
    Gfx12GenericW64 = 51,
    /// Navi 10 (RDNA1, GFX10.1), wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1010 = 52,
    /// gfx1010 running wave64 code.
    #[doc(hidden)]
    Gfx1010W64 = 53,
    /// Navi 12 (RDNA1, GFX10.1): adds dot-product instructions, wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1011 = 54,
    /// gfx1011 running wave64 code.
    #[doc(hidden)]
    Gfx1011W64 = 55,
    /// Navi 14 (RDNA1, GFX10.1): adds dot-product instructions, wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1012 = 56,
    /// gfx1012 running wave64 code.
    #[doc(hidden)]
    Gfx1012W64 = 57,
    /// Cyan Skillfish (RDNA1 APU, GFX10.1): adds image BVH instructions, wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx1013 = 58,
    /// gfx1013 running wave64 code.
    #[doc(hidden)]
    Gfx1013W64 = 59,
    /// `gfx10-1-generic`: code for gfx1010-gfx1013, wave32; [`Target::with_wave_size`] gives the wave64 form.
    Gfx101Generic = 60,
    /// gfx10-1-generic running wave64 code.
    #[doc(hidden)]
    Gfx101GenericW64 = 61,
    /// GFX12.5 (MI400 series), wave32 only (LLVM 22 refuses
    /// `wavefrontsize64` there): 64-bit literals, VOPD3, VFLAT `saddr`,
    /// `s_wait_xcnt`, bitop3, scaled conversions (D50, D54).
    Gfx1250 = 62,
    /// GFX12.5 with the DP-ALU DPP forms (`row_share` only), wave32 only.
    Gfx1251 = 63,
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
    /// Every supported processor, in LLVM's order (each GFX10+ one in its
    /// wave32 form).
    pub const ALL: [Target; 39] = [
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
        Target::Gfx1010,
        Target::Gfx1011,
        Target::Gfx1012,
        Target::Gfx1013,
        Target::Gfx101Generic,
        Target::Gfx1030,
        Target::Gfx1031,
        Target::Gfx1032,
        Target::Gfx1033,
        Target::Gfx1034,
        Target::Gfx1035,
        Target::Gfx1036,
        Target::Gfx103Generic,
        Target::Gfx1100,
        Target::Gfx1101,
        Target::Gfx1102,
        Target::Gfx1103,
        Target::Gfx1150,
        Target::Gfx1151,
        Target::Gfx1152,
        Target::Gfx1153,
        Target::Gfx11Generic,
        Target::Gfx1200,
        Target::Gfx1201,
        Target::Gfx12Generic,
        Target::Gfx1250,
        Target::Gfx1251,
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
        VARIANTS[self as usize].0
    }

    /// The GFX generation: 9 (GCN5/CDNA), 10 (RDNA1/2), 11 (RDNA3,
    /// RDNA3.5) or 12 (RDNA4).
    #[inline]
    pub fn generation(self) -> u8 {
        VARIANTS[self as usize].1
    }

    /// This processor running code of `wave_size` (32 or 64) lanes per
    /// wave: GFX10+ processors run both (LLVM's `wavefrontsize64` feature;
    /// per kernel, the kernel descriptor's wave32 bit), GFX9 only 64.
    /// `None` for a size the processor does not run. The sizes come from
    /// `VARIANTS` (one row per processor and wave size), so a processor
    /// with one wave size only (GFX12.5, D50) needs no special case.
    pub fn with_wave_size(self, wave_size: u32) -> Option<Target> {
        let name = self.name();
        VARIANTS
            .iter()
            .find(|v| v.0 == name && v.3 == wave_size)
            .map(|v| v.2)
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
    pub(crate) fn bit(self) -> u32 {
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

    /// True for GFX12.5 (gfx1250, gfx1251): source encoding 254 is a
    /// 64-bit (two-dword) literal, FLAT takes an SGPR base (D54).
    #[inline]
    pub fn is_gfx1250(self) -> bool {
        matches!(self, Target::Gfx1250 | Target::Gfx1251)
    }

    /// Wave size: 64 on GFX9; on GFX10+ 32 unless the target was made
    /// with [`Target::with_wave_size`]`(64)`.
    #[inline]
    pub fn wave_size(self) -> u32 {
        VARIANTS[self as usize].3
    }
}

/// (name, generation, variant, wave size) of every `Target`, by
/// discriminant (the order of the generator's `ALL_TARGETS`, which `COLUMN`
/// follows).
static VARIANTS: [(&str, u8, Target, u32); 64] = [
    ("gfx90a", 9, Target::Gfx90a, 64),
    ("gfx942", 9, Target::Gfx942, 64),
    ("gfx900", 9, Target::Gfx900, 64),
    ("gfx902", 9, Target::Gfx902, 64),
    ("gfx904", 9, Target::Gfx904, 64),
    ("gfx906", 9, Target::Gfx906, 64),
    ("gfx908", 9, Target::Gfx908, 64),
    ("gfx909", 9, Target::Gfx909, 64),
    ("gfx90c", 9, Target::Gfx90c, 64),
    ("gfx950", 9, Target::Gfx950, 64),
    ("gfx9-generic", 9, Target::Gfx9Generic, 64),
    ("gfx9-4-generic", 9, Target::Gfx94Generic, 64),
    ("gfx1030", 10, Target::Gfx1030, 32),
    ("gfx1030", 10, Target::Gfx1030W64, 64),
    ("gfx1100", 11, Target::Gfx1100, 32),
    ("gfx1100", 11, Target::Gfx1100W64, 64),
    ("gfx1031", 10, Target::Gfx1031, 32),
    ("gfx1031", 10, Target::Gfx1031W64, 64),
    ("gfx1032", 10, Target::Gfx1032, 32),
    ("gfx1032", 10, Target::Gfx1032W64, 64),
    ("gfx1033", 10, Target::Gfx1033, 32),
    ("gfx1033", 10, Target::Gfx1033W64, 64),
    ("gfx1034", 10, Target::Gfx1034, 32),
    ("gfx1034", 10, Target::Gfx1034W64, 64),
    ("gfx1035", 10, Target::Gfx1035, 32),
    ("gfx1035", 10, Target::Gfx1035W64, 64),
    ("gfx1036", 10, Target::Gfx1036, 32),
    ("gfx1036", 10, Target::Gfx1036W64, 64),
    ("gfx10-3-generic", 10, Target::Gfx103Generic, 32),
    ("gfx10-3-generic", 10, Target::Gfx103GenericW64, 64),
    ("gfx1101", 11, Target::Gfx1101, 32),
    ("gfx1101", 11, Target::Gfx1101W64, 64),
    ("gfx1102", 11, Target::Gfx1102, 32),
    ("gfx1102", 11, Target::Gfx1102W64, 64),
    ("gfx1103", 11, Target::Gfx1103, 32),
    ("gfx1103", 11, Target::Gfx1103W64, 64),
    ("gfx1150", 11, Target::Gfx1150, 32),
    ("gfx1150", 11, Target::Gfx1150W64, 64),
    ("gfx1151", 11, Target::Gfx1151, 32),
    ("gfx1151", 11, Target::Gfx1151W64, 64),
    ("gfx1152", 11, Target::Gfx1152, 32),
    ("gfx1152", 11, Target::Gfx1152W64, 64),
    ("gfx1153", 11, Target::Gfx1153, 32),
    ("gfx1153", 11, Target::Gfx1153W64, 64),
    ("gfx11-generic", 11, Target::Gfx11Generic, 32),
    ("gfx11-generic", 11, Target::Gfx11GenericW64, 64),
    ("gfx1200", 12, Target::Gfx1200, 32),
    ("gfx1200", 12, Target::Gfx1200W64, 64),
    ("gfx1201", 12, Target::Gfx1201, 32),
    ("gfx1201", 12, Target::Gfx1201W64, 64),
    ("gfx12-generic", 12, Target::Gfx12Generic, 32),
    ("gfx12-generic", 12, Target::Gfx12GenericW64, 64),
    ("gfx1010", 10, Target::Gfx1010, 32),
    ("gfx1010", 10, Target::Gfx1010W64, 64),
    ("gfx1011", 10, Target::Gfx1011, 32),
    ("gfx1011", 10, Target::Gfx1011W64, 64),
    ("gfx1012", 10, Target::Gfx1012, 32),
    ("gfx1012", 10, Target::Gfx1012W64, 64),
    ("gfx1013", 10, Target::Gfx1013, 32),
    ("gfx1013", 10, Target::Gfx1013W64, 64),
    ("gfx10-1-generic", 10, Target::Gfx101Generic, 32),
    ("gfx10-1-generic", 10, Target::Gfx101GenericW64, 64),
    ("gfx1250", 12, Target::Gfx1250, 32),
    ("gfx1251", 12, Target::Gfx1251, 32),
];

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
            Target::from_name("gfx1300"),
            Err(TargetError::Unsupported {
                name: "gfx1300".into()
            })
        );
        assert_eq!(Target::from_name("gfx1250:xnack+"), Ok(Target::Gfx1250));
        assert_eq!(Target::Gfx1250.with_wave_size(64), None);
        assert_eq!(Target::Gfx1251.wave_size(), 32);
        assert_eq!(
            Target::Gfx1030.with_wave_size(64).map(Target::wave_size),
            Some(64)
        );
        for t in Target::ALL {
            assert_eq!(Target::from_name(t.name()), Ok(t));
        }
    }

    /// `VARIANTS` is in discriminant order, which must be the generator's
    /// target order (the generated file's banner lists it, `:w64` marking
    /// the wave64 forms): `COLUMN` is indexed by discriminant.
    #[test]
    fn variants_follow_the_generated_column_order() {
        let src = include_str!("generated/gfx9.rs");
        let banner = src
            .lines()
            .find_map(|l| l.strip_prefix("//! Generated GFX9 opcode tables ("))
            .and_then(|l| l.strip_suffix(")."))
            .expect("banner");
        let listed: Vec<&str> = banner.split(", ").collect();
        assert_eq!(listed.len(), VARIANTS.len());
        assert_eq!(crate::generated::gfx9::COLUMN.len(), VARIANTS.len());
        for (i, ((name, _, t, _), l)) in VARIANTS.iter().zip(&listed).enumerate() {
            assert_eq!(*t as usize, i);
            let wave64 = l.ends_with(":w64");
            assert_eq!(l.trim_end_matches(":w64"), *name);
            assert_eq!(
                t.wave_size(),
                if wave64 || t.generation() == 9 {
                    64
                } else {
                    32
                }
            );
            assert_eq!(t.with_wave_size(t.wave_size()), Some(*t));
        }
        // Each GFX10+ processor has both sizes, wave32 first (the banner's
        // `:w64` line follows its wave32 line).
        for t in Target::ALL
            .into_iter()
            .filter(|t| t.generation() >= 10 && !t.is_gfx1250())
        {
            let w64 = t.with_wave_size(64).expect("GFX10+ runs wave64");
            assert_eq!((t.wave_size(), w64.wave_size()), (32, 64));
            assert_eq!(w64 as usize, t as usize + 1);
            assert_eq!(w64.with_wave_size(32), Some(t));
        }
        assert_eq!(Target::Gfx1151.with_wave_size(64), Some(Target::Gfx1151W64));
        assert_eq!(Target::Gfx1151W64.with_wave_size(32), Some(Target::Gfx1151));
        assert_eq!(Target::Gfx906.with_wave_size(32), None);
    }
}

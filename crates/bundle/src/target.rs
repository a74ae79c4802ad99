//! AMDGPU processors and target IDs.
//!
//! Owns the table of AMDGCN processors (name, `EF_AMDGPU_MACH_*` value,
//! family, which target-ID features they accept, generic-target membership)
//! and the target-ID syntax `processor[:feature(+|-)]*` with its canonical
//! printing. Compatibility rules between target IDs live in [`mod@crate::select`].
//!
//! The `EF_AMDGPU_MACH_*` numbers come from LLVM's `BinaryFormat/ELF.h`; the
//! legacy `gfx940` (0x40) and `gfx941` (0x4b), which LLVM 22 marks reserved,
//! are kept because code objects built by older ROCm releases still use them.

use std::fmt;
use std::str::FromStr;

/// The setting of one target feature (`xnack` or `sramecc`) in a target ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FeatureSetting {
    /// Not specified: the code runs whatever the agent's setting is.
    Any,
    /// Specified on (`xnack+`).
    On,
    /// Specified off (`xnack-`).
    Off,
}

impl FeatureSetting {
    /// The `+`/`-` suffix, or `None` for [`FeatureSetting::Any`].
    pub fn sign(self) -> Option<char> {
        match self {
            FeatureSetting::Any => None,
            FeatureSetting::On => Some('+'),
            FeatureSetting::Off => Some('-'),
        }
    }
}

/// GCN/RDNA generation of a processor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Family {
    /// GFX6 (Southern Islands).
    Gfx6,
    /// GFX7 (Sea Islands).
    Gfx7,
    /// GFX8 (Volcanic Islands).
    Gfx8,
    /// GFX9 (Vega, CDNA).
    Gfx9,
    /// GFX10 (RDNA 1 and 2).
    Gfx10,
    /// GFX11 (RDNA 3).
    Gfx11,
    /// GFX12 (RDNA 4 and later).
    Gfx12,
}

#[derive(Debug)]
struct ProcessorInfo {
    name: &'static str,
    mach: u32,
    family: Family,
    xnack: bool,
    sramecc: bool,
    members: &'static [&'static str],
}

const fn p(
    name: &'static str,
    mach: u32,
    family: Family,
    xnack: bool,
    sramecc: bool,
) -> ProcessorInfo {
    ProcessorInfo {
        name,
        mach,
        family,
        xnack,
        sramecc,
        members: &[],
    }
}

const fn g(
    name: &'static str,
    mach: u32,
    family: Family,
    xnack: bool,
    sramecc: bool,
    members: &'static [&'static str],
) -> ProcessorInfo {
    ProcessorInfo {
        name,
        mach,
        family,
        xnack,
        sramecc,
        members,
    }
}

use Family::*;

/// Every AMDGCN processor Lathe knows. Order is the order of [`Processor::all`].
static PROCESSORS: &[ProcessorInfo] = &[
    p("gfx600", 0x20, Gfx6, false, false),
    p("gfx601", 0x21, Gfx6, false, false),
    p("gfx602", 0x3a, Gfx6, false, false),
    p("gfx700", 0x22, Gfx7, false, false),
    p("gfx701", 0x23, Gfx7, false, false),
    p("gfx702", 0x24, Gfx7, false, false),
    p("gfx703", 0x25, Gfx7, false, false),
    p("gfx704", 0x26, Gfx7, false, false),
    p("gfx705", 0x3b, Gfx7, false, false),
    p("gfx801", 0x28, Gfx8, true, false),
    p("gfx802", 0x29, Gfx8, false, false),
    p("gfx803", 0x2a, Gfx8, false, false),
    p("gfx805", 0x3c, Gfx8, false, false),
    p("gfx810", 0x2b, Gfx8, true, false),
    p("gfx900", 0x2c, Gfx9, true, false),
    p("gfx902", 0x2d, Gfx9, true, false),
    p("gfx904", 0x2e, Gfx9, true, false),
    p("gfx906", 0x2f, Gfx9, true, true),
    p("gfx908", 0x30, Gfx9, true, true),
    p("gfx909", 0x31, Gfx9, true, false),
    p("gfx90a", 0x3f, Gfx9, true, true),
    p("gfx90c", 0x32, Gfx9, true, false),
    p("gfx940", 0x40, Gfx9, true, true),
    p("gfx941", 0x4b, Gfx9, true, true),
    p("gfx942", 0x4c, Gfx9, true, true),
    p("gfx950", 0x4f, Gfx9, true, true),
    p("gfx1010", 0x33, Gfx10, true, false),
    p("gfx1011", 0x34, Gfx10, true, false),
    p("gfx1012", 0x35, Gfx10, true, false),
    p("gfx1013", 0x42, Gfx10, true, false),
    p("gfx1030", 0x36, Gfx10, false, false),
    p("gfx1031", 0x37, Gfx10, false, false),
    p("gfx1032", 0x38, Gfx10, false, false),
    p("gfx1033", 0x39, Gfx10, false, false),
    p("gfx1034", 0x3e, Gfx10, false, false),
    p("gfx1035", 0x3d, Gfx10, false, false),
    p("gfx1036", 0x45, Gfx10, false, false),
    p("gfx1100", 0x41, Gfx11, false, false),
    p("gfx1101", 0x46, Gfx11, false, false),
    p("gfx1102", 0x47, Gfx11, false, false),
    p("gfx1103", 0x44, Gfx11, false, false),
    p("gfx1150", 0x43, Gfx11, false, false),
    p("gfx1151", 0x4a, Gfx11, false, false),
    p("gfx1152", 0x55, Gfx11, false, false),
    p("gfx1153", 0x58, Gfx11, false, false),
    p("gfx1200", 0x48, Gfx12, false, false),
    p("gfx1201", 0x4e, Gfx12, false, false),
    // gfx1250/gfx1251 code objects carry "any" xnack/sramecc bits in e_flags,
    // but clang 22 rejects both features in their target IDs.
    p("gfx1250", 0x49, Gfx12, false, false),
    p("gfx1251", 0x5a, Gfx12, false, false),
    g(
        "gfx9-generic",
        0x51,
        Gfx9,
        true,
        false,
        &["gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"],
    ),
    g(
        "gfx9-4-generic",
        0x5f,
        Gfx9,
        true,
        true,
        &["gfx940", "gfx941", "gfx942", "gfx950"],
    ),
    g(
        "gfx10-1-generic",
        0x52,
        Gfx10,
        true,
        false,
        &["gfx1010", "gfx1011", "gfx1012", "gfx1013"],
    ),
    g(
        "gfx10-3-generic",
        0x53,
        Gfx10,
        false,
        false,
        &[
            "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036",
        ],
    ),
    g(
        "gfx11-generic",
        0x54,
        Gfx11,
        false,
        false,
        &[
            "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153",
        ],
    ),
    g(
        "gfx12-generic",
        0x59,
        Gfx12,
        false,
        false,
        &["gfx1200", "gfx1201"],
    ),
];

/// An AMDGCN processor (`gfx90a`, `gfx9-4-generic`, ...): a small copyable
/// handle into Lathe's processor table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Processor(u8);

impl Processor {
    fn info(self) -> &'static ProcessorInfo {
        // The index is only ever constructed from a position in PROCESSORS;
        // fall back to the first entry rather than panic.
        PROCESSORS
            .get(usize::from(self.0))
            .unwrap_or(&PROCESSORS[0])
    }

    /// Looks a processor up by its exact (lower-case) name.
    pub fn from_name(name: &str) -> Option<Processor> {
        PROCESSORS
            .iter()
            .position(|p| p.name == name)
            .and_then(|i| u8::try_from(i).ok())
            .map(Processor)
    }

    /// Looks a processor up by its `EF_AMDGPU_MACH_*` value (`e_flags & 0xff`).
    pub fn from_elf_mach(mach: u32) -> Option<Processor> {
        PROCESSORS
            .iter()
            .position(|p| p.mach == mach)
            .and_then(|i| u8::try_from(i).ok())
            .map(Processor)
    }

    /// The processor name, e.g. `"gfx90a"`.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The `EF_AMDGPU_MACH_*` value.
    pub fn elf_mach(self) -> u32 {
        self.info().mach
    }

    /// Whether `xnack` may appear as a feature in this processor's target ID.
    pub fn supports_xnack(self) -> bool {
        self.info().xnack
    }

    /// Whether `sramecc` may appear as a feature in this processor's target ID.
    pub fn supports_sramecc(self) -> bool {
        self.info().sramecc
    }

    /// Whether this is a generic target (`gfx9-generic`, ...).
    pub fn is_generic(self) -> bool {
        !self.info().members.is_empty()
    }

    /// Names of the processors a generic target covers; empty unless generic.
    pub fn generic_members(self) -> &'static [&'static str] {
        self.info().members
    }

    /// The generic target whose member list contains this processor, if any.
    pub fn generic(self) -> Option<Processor> {
        let name = self.name();
        Processor::all().find(|g| g.generic_members().contains(&name))
    }

    /// The GFX generation.
    pub fn family(self) -> Family {
        self.info().family
    }

    /// Whether code for this processor defaults to wave64 (GFX6–GFX9);
    /// GFX10 and later default to wave32.
    pub fn wave64_default(self) -> bool {
        self.info().family <= Family::Gfx9
    }

    /// Every known processor, in table order.
    pub fn all() -> impl Iterator<Item = Processor> {
        (0..PROCESSORS.len()).filter_map(|i| u8::try_from(i).ok().map(Processor))
    }
}

impl fmt::Debug for Processor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Processor({})", self.name())
    }
}

impl fmt::Display for Processor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Processor {
    type Err = TargetIdError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Processor::from_name(s)
            .ok_or_else(|| TargetIdError::UnknownProcessor { name: s.to_owned() })
    }
}

/// A target ID: a processor plus its `sramecc` and `xnack` settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TargetId {
    /// The processor.
    pub processor: Processor,
    /// `sramecc` setting ([`FeatureSetting::Any`] when not given).
    pub sramecc: FeatureSetting,
    /// `xnack` setting ([`FeatureSetting::Any`] when not given).
    pub xnack: FeatureSetting,
}

impl TargetId {
    /// A target ID with no features specified.
    pub fn new(processor: Processor) -> TargetId {
        TargetId {
            processor,
            sramecc: FeatureSetting::Any,
            xnack: FeatureSetting::Any,
        }
    }
}

impl From<Processor> for TargetId {
    fn from(p: Processor) -> TargetId {
        TargetId::new(p)
    }
}

/// Why a target-ID string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TargetIdError {
    /// The string is empty.
    #[error("empty target ID")]
    Empty,
    /// The processor name is not in the table.
    #[error("unknown processor `{name}`")]
    UnknownProcessor {
        /// The processor part of the string.
        name: String,
    },
    /// A feature other than `xnack` or `sramecc`.
    #[error("unknown target feature `{feature}` (expected xnack or sramecc)")]
    UnknownFeature {
        /// The feature name without its sign.
        feature: String,
    },
    /// A known feature the processor does not support.
    #[error("processor {processor} does not support target feature `{feature}`")]
    UnsupportedFeature {
        /// The processor name.
        processor: &'static str,
        /// The feature name.
        feature: &'static str,
    },
    /// The same feature given twice.
    #[error("target feature `{feature}` given more than once")]
    DuplicateFeature {
        /// The feature name.
        feature: &'static str,
    },
    /// A feature without a trailing `+` or `-`.
    #[error("target feature `{feature}` lacks a `+` or `-` suffix")]
    MissingSign {
        /// The feature as written.
        feature: String,
    },
}

impl FromStr for TargetId {
    type Err = TargetIdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.is_empty() {
            return Err(TargetIdError::Empty);
        }
        let mut parts = s.split(':');
        let proc_name = parts.next().unwrap_or("");
        let processor = proc_name.parse::<Processor>()?;
        let mut id = TargetId::new(processor);
        for part in parts {
            let (name, setting) = if let Some(n) = part.strip_suffix('+') {
                (n, FeatureSetting::On)
            } else if let Some(n) = part.strip_suffix('-') {
                (n, FeatureSetting::Off)
            } else {
                return match part {
                    "xnack" | "sramecc" => Err(TargetIdError::MissingSign {
                        feature: part.to_owned(),
                    }),
                    _ => Err(TargetIdError::UnknownFeature {
                        feature: part.to_owned(),
                    }),
                };
            };
            let (feature, supported, slot): (&'static str, bool, &mut FeatureSetting) = match name {
                "xnack" => ("xnack", processor.supports_xnack(), &mut id.xnack),
                "sramecc" => ("sramecc", processor.supports_sramecc(), &mut id.sramecc),
                _ => {
                    return Err(TargetIdError::UnknownFeature {
                        feature: name.to_owned(),
                    })
                }
            };
            if !supported {
                return Err(TargetIdError::UnsupportedFeature {
                    processor: processor.name(),
                    feature,
                });
            }
            if *slot != FeatureSetting::Any {
                return Err(TargetIdError::DuplicateFeature { feature });
            }
            *slot = setting;
        }
        Ok(id)
    }
}

impl fmt::Display for TargetId {
    /// Canonical form: processor, then features sorted by name
    /// (`gfx90a:sramecc+:xnack-`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.processor.name())?;
        if let Some(s) = self.sramecc.sign() {
            write!(f, ":sramecc{s}")?;
        }
        if let Some(s) = self.xnack.sign() {
            write!(f, ":xnack{s}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        let all: Vec<_> = Processor::all().collect();
        assert_eq!(all.len(), PROCESSORS.len());
        for (i, a) in all.iter().enumerate() {
            assert_eq!(Processor::from_name(a.name()), Some(*a));
            assert_eq!(Processor::from_elf_mach(a.elf_mach()), Some(*a));
            for b in &all[i + 1..] {
                assert_ne!(a.name(), b.name());
                assert_ne!(a.elf_mach(), b.elf_mach(), "{a} and {b}");
            }
            for m in a.generic_members() {
                let mp = Processor::from_name(m).expect("generic member is known");
                assert_eq!(mp.family(), a.family(), "{m} in {a}");
                assert_eq!(mp.generic(), Some(*a));
                assert!(!mp.is_generic());
            }
        }
    }

    #[test]
    fn parse_and_canonical_print() {
        let t: TargetId = "gfx90a:xnack-:sramecc+".parse().expect("valid");
        assert_eq!(t.processor.name(), "gfx90a");
        assert_eq!(t.xnack, FeatureSetting::Off);
        assert_eq!(t.sramecc, FeatureSetting::On);
        assert_eq!(t.to_string(), "gfx90a:sramecc+:xnack-");
        let g: TargetId = "gfx9-4-generic:xnack+".parse().expect("valid");
        assert_eq!(g.to_string(), "gfx9-4-generic:xnack+");
        assert!(g.processor.is_generic());
        assert_eq!(
            "gfx1100".parse::<TargetId>().expect("valid").to_string(),
            "gfx1100"
        );
    }

    #[test]
    fn parse_errors() {
        use TargetIdError as E;
        let e = |s: &str| s.parse::<TargetId>().expect_err(s);
        assert_eq!(e(""), E::Empty);
        assert_eq!(
            e("gfx9999"),
            E::UnknownProcessor {
                name: "gfx9999".into()
            }
        );
        assert_eq!(
            e("gfx90a:foo+"),
            E::UnknownFeature {
                feature: "foo".into()
            }
        );
        assert_eq!(
            e("gfx1100:xnack+"),
            E::UnsupportedFeature {
                processor: "gfx1100",
                feature: "xnack"
            }
        );
        assert_eq!(
            e("gfx900:sramecc-"),
            E::UnsupportedFeature {
                processor: "gfx900",
                feature: "sramecc"
            }
        );
        assert_eq!(
            e("gfx90a:xnack+:xnack-"),
            E::DuplicateFeature { feature: "xnack" }
        );
        assert_eq!(
            e("gfx90a:xnack"),
            E::MissingSign {
                feature: "xnack".into()
            }
        );
        assert_eq!(e("gfx90a:"), E::UnknownFeature { feature: "".into() });
    }
}

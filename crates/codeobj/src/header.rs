//! The ELF header of an AMDGPU code object: OS ABI, code object version and
//! the target encoded in `e_flags`.
//!
//! Owns the checks that make a file an AMDGPU code object (ELF64,
//! little-endian, `EM_AMDGPU`) and the decoding of `e_flags`: processor
//! (`EF_AMDGPU_MACH`), `xnack`/`sramecc` in both the V3 one-bit and the V4+
//! two-bit forms, the V2 feature bits, and the V6 generic version.

use lathe_bundle::target::{FeatureSetting, Processor, TargetId};

use crate::error::{Error, Result};

/// `EM_AMDGPU`.
pub const EM_AMDGPU: u16 = 224;
/// `ELFOSABI_AMDGPU_HSA`.
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// `ELFOSABI_AMDGPU_PAL`.
pub const ELFOSABI_AMDGPU_PAL: u8 = 65;
/// `ELFOSABI_AMDGPU_MESA3D`.
pub const ELFOSABI_AMDGPU_MESA3D: u8 = 66;
/// `EF_AMDGPU_MACH` mask.
pub const EF_AMDGPU_MACH: u32 = 0xff;
/// `EF_AMDGPU_FEATURE_XNACK_V2`.
pub const EF_AMDGPU_FEATURE_XNACK_V2: u32 = 0x01;
/// `EF_AMDGPU_FEATURE_TRAP_HANDLER_V2`.
pub const EF_AMDGPU_FEATURE_TRAP_HANDLER_V2: u32 = 0x02;
/// `EF_AMDGPU_FEATURE_XNACK_V3`.
pub const EF_AMDGPU_FEATURE_XNACK_V3: u32 = 0x100;
/// `EF_AMDGPU_FEATURE_SRAMECC_V3`.
pub const EF_AMDGPU_FEATURE_SRAMECC_V3: u32 = 0x200;
/// `EF_AMDGPU_FEATURE_XNACK_V4` mask.
pub const EF_AMDGPU_FEATURE_XNACK_V4: u32 = 0x300;
/// `EF_AMDGPU_FEATURE_SRAMECC_V4` mask.
pub const EF_AMDGPU_FEATURE_SRAMECC_V4: u32 = 0xc00;
/// `EF_AMDGPU_GENERIC_VERSION` mask (V6).
pub const EF_AMDGPU_GENERIC_VERSION: u32 = 0xff00_0000;

/// The OS ABI (`EI_OSABI`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OsAbi {
    /// `ELFOSABI_AMDGPU_HSA` (64): ROCm.
    Hsa,
    /// `ELFOSABI_AMDGPU_PAL` (65).
    Pal,
    /// `ELFOSABI_AMDGPU_MESA3D` (66).
    Mesa3d,
    /// Any other value.
    Other(u8),
}

impl OsAbi {
    /// From the `EI_OSABI` byte.
    pub fn from_byte(b: u8) -> Self {
        match b {
            ELFOSABI_AMDGPU_HSA => OsAbi::Hsa,
            ELFOSABI_AMDGPU_PAL => OsAbi::Pal,
            ELFOSABI_AMDGPU_MESA3D => OsAbi::Mesa3d,
            o => OsAbi::Other(o),
        }
    }
}

/// AMDHSA code object version, from `EI_ABIVERSION` under the HSA OS ABI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CodeObjectVersion {
    /// V2 (ABI version 0): target in notes, not in `e_flags`.
    V2,
    /// V3 (ABI version 1): one-bit xnack/sramecc flags.
    V3,
    /// V4 (ABI version 2): two-bit xnack/sramecc fields.
    V4,
    /// V5 (ABI version 3).
    V5,
    /// V6 (ABI version 4): adds generic targets and their version.
    V6,
}

impl CodeObjectVersion {
    /// From the HSA `EI_ABIVERSION` byte.
    pub fn from_abi_version(v: u8) -> Option<Self> {
        Some(match v {
            0 => Self::V2,
            1 => Self::V3,
            2 => Self::V4,
            3 => Self::V5,
            4 => Self::V6,
            _ => return None,
        })
    }

    /// The version number (2..=6).
    pub fn number(self) -> u32 {
        match self {
            Self::V2 => 2,
            Self::V3 => 3,
            Self::V4 => 4,
            Self::V5 => 5,
            Self::V6 => 6,
        }
    }
}

/// A target feature as encoded in `e_flags`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FeatureFlag {
    /// The processor does not support the feature (V4+ value 0).
    Unsupported,
    /// Code works with the feature on or off (V4+ value 1).
    Any,
    /// Feature off (V4+ value 2; V3 bit clear on a supporting processor).
    Off,
    /// Feature on (V4+ value 3; V3 bit set).
    On,
}

impl FeatureFlag {
    fn from_v4(bits: u32) -> Self {
        match bits & 3 {
            0 => Self::Unsupported,
            1 => Self::Any,
            2 => Self::Off,
            _ => Self::On,
        }
    }

    /// The target-ID setting: `Unsupported` and `Any` both map to
    /// [`FeatureSetting::Any`].
    pub fn setting(self) -> FeatureSetting {
        match self {
            Self::On => FeatureSetting::On,
            Self::Off => FeatureSetting::Off,
            Self::Any | Self::Unsupported => FeatureSetting::Any,
        }
    }
}

/// The decoded ELF header of an AMDGPU code object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Header {
    /// `EI_OSABI`.
    pub os_abi: OsAbi,
    /// `EI_ABIVERSION`.
    pub abi_version: u8,
    /// Code object version (HSA OS ABI only).
    pub code_object_version: Option<CodeObjectVersion>,
    /// `e_type` (`ET_REL` = 1, `ET_EXEC` = 2, `ET_DYN` = 3).
    pub e_type: u16,
    /// `e_flags`, raw.
    pub e_flags: u32,
    /// `e_entry`.
    pub entry: u64,
    /// The processor from `EF_AMDGPU_MACH`; `None` only for V2 objects whose
    /// `e_flags` carry no processor (see [`crate::CodeObject::target`]).
    pub processor: Option<Processor>,
    /// The `xnack` feature encoded in `e_flags`.
    pub xnack: FeatureFlag,
    /// The `sramecc` feature encoded in `e_flags`.
    pub sramecc: FeatureFlag,
    /// V2 only: `EF_AMDGPU_FEATURE_TRAP_HANDLER_V2`.
    pub trap_handler_v2: bool,
    /// V6 generic version (`e_flags` bits 24–31), if non-zero.
    pub generic_version: Option<u8>,
}

/// `ET_REL`.
pub const ET_REL: u16 = 1;
/// `ET_EXEC`.
pub const ET_EXEC: u16 = 2;
/// `ET_DYN`.
pub const ET_DYN: u16 = 3;

fn u16_at(d: &[u8], off: usize) -> u16 {
    d.get(off..off + 2)
        .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]))
}

fn u32_at(d: &[u8], off: usize) -> u32 {
    d.get(off..off + 4)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn u64_at(d: &[u8], off: usize) -> u64 {
    d.get(off..off + 8).map_or(0, |b| {
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        u64::from_le_bytes(a)
    })
}

impl Header {
    /// Checks the identification bytes and decodes the header of `data`.
    pub fn parse(data: &[u8]) -> Result<Header> {
        if data.len() < 64 {
            if data.len() >= 4 && data[..4] != *b"\x7fELF" {
                let mut magic = [0u8; 4];
                magic.copy_from_slice(&data[..4]);
                return Err(Error::NotElf { magic });
            }
            return Err(Error::TooShort { len: data.len() });
        }
        let mut magic = [0u8; 4];
        magic.copy_from_slice(&data[..4]);
        if magic != *b"\x7fELF" {
            return Err(Error::NotElf { magic });
        }
        if data[4] != 2 {
            return Err(Error::Not64Bit { class: data[4] });
        }
        if data[5] != 1 {
            return Err(Error::NotLittleEndian { data: data[5] });
        }
        let machine = u16_at(data, 18);
        if machine != EM_AMDGPU {
            return Err(Error::NotAmdgpu { machine });
        }
        let os_abi = OsAbi::from_byte(data[7]);
        let abi_version = data[8];
        let e_type = u16_at(data, 16);
        let entry = u64_at(data, 24);
        let e_flags = u32_at(data, 48);
        Self::from_fields(os_abi, abi_version, e_type, e_flags, entry)
    }

    /// Decodes `e_flags` given the identification fields.
    pub fn from_fields(
        os_abi: OsAbi,
        abi_version: u8,
        e_type: u16,
        e_flags: u32,
        entry: u64,
    ) -> Result<Header> {
        let code_object_version = match os_abi {
            OsAbi::Hsa => Some(
                CodeObjectVersion::from_abi_version(abi_version)
                    .ok_or(Error::UnsupportedAbiVersion { abi_version })?,
            ),
            _ => None,
        };
        let mach = e_flags & EF_AMDGPU_MACH;
        let processor = Processor::from_elf_mach(mach);
        let is_v2 = code_object_version == Some(CodeObjectVersion::V2);
        if processor.is_none() && !(is_v2 && mach == 0) {
            return Err(Error::UnknownMach { mach, e_flags });
        }
        let supports = |f: fn(Processor) -> bool| processor.is_some_and(f);
        let (xnack, sramecc, trap_handler_v2) = match code_object_version {
            Some(CodeObjectVersion::V2) => {
                // LLVM writes V2 objects with the V3 bit positions; older
                // tools used EF_AMDGPU_FEATURE_XNACK_V2. Accept both.
                let x = if e_flags & (EF_AMDGPU_FEATURE_XNACK_V2 | EF_AMDGPU_FEATURE_XNACK_V3) != 0
                {
                    FeatureFlag::On
                } else if supports(Processor::supports_xnack) {
                    FeatureFlag::Off
                } else {
                    FeatureFlag::Unsupported
                };
                let s = if e_flags & EF_AMDGPU_FEATURE_SRAMECC_V3 != 0 {
                    FeatureFlag::On
                } else if supports(Processor::supports_sramecc) {
                    FeatureFlag::Off
                } else {
                    FeatureFlag::Unsupported
                };
                (x, s, e_flags & EF_AMDGPU_FEATURE_TRAP_HANDLER_V2 != 0)
            }
            Some(CodeObjectVersion::V4 | CodeObjectVersion::V5 | CodeObjectVersion::V6) => (
                FeatureFlag::from_v4((e_flags & EF_AMDGPU_FEATURE_XNACK_V4) >> 8),
                FeatureFlag::from_v4((e_flags & EF_AMDGPU_FEATURE_SRAMECC_V4) >> 10),
                false,
            ),
            // V3 and the non-HSA OS ABIs use the one-bit form.
            _ => {
                let one = |bit: u32, sup: bool| {
                    if e_flags & bit != 0 {
                        FeatureFlag::On
                    } else if sup {
                        FeatureFlag::Off
                    } else {
                        FeatureFlag::Unsupported
                    }
                };
                (
                    one(
                        EF_AMDGPU_FEATURE_XNACK_V3,
                        supports(Processor::supports_xnack),
                    ),
                    one(
                        EF_AMDGPU_FEATURE_SRAMECC_V3,
                        supports(Processor::supports_sramecc),
                    ),
                    false,
                )
            }
        };
        let gv = (e_flags & EF_AMDGPU_GENERIC_VERSION) >> 24;
        Ok(Header {
            os_abi,
            abi_version,
            code_object_version,
            e_type,
            e_flags,
            entry,
            processor,
            xnack,
            sramecc,
            trap_handler_v2,
            generic_version: (gv != 0).then_some(gv as u8),
        })
    }

    /// The target ID encoded in `e_flags` (features the processor does not
    /// support are left unspecified). `None` for V2 objects without a
    /// processor in `e_flags`.
    pub fn target_id(&self) -> Option<TargetId> {
        let p = self.processor?;
        let mut t = TargetId::new(p);
        if p.supports_xnack() {
            t.xnack = self.xnack.setting();
        }
        if p.supports_sramecc() {
            t.sramecc = self.sramecc.setting();
        }
        Some(t)
    }
}

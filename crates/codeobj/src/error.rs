//! The crate's error type.

use crate::kd::KdError;
use crate::metadata::MetadataError;

/// Why a code object (or part of it) could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Fewer bytes than an ELF64 header.
    #[error("file is {len} bytes, too short for an ELF64 header (64 bytes)")]
    TooShort {
        /// Length of the input.
        len: usize,
    },
    /// No `\x7fELF` magic.
    #[error("not an ELF file: magic is {magic:02x?}")]
    NotElf {
        /// The first four bytes.
        magic: [u8; 4],
    },
    /// `EI_CLASS` is not ELFCLASS64.
    #[error("ELF class {class} is not ELFCLASS64 (2): AMDGPU code objects are 64-bit")]
    Not64Bit {
        /// The `EI_CLASS` byte.
        class: u8,
    },
    /// `EI_DATA` is not little-endian.
    #[error("ELF data encoding {data} is not little-endian (1)")]
    NotLittleEndian {
        /// The `EI_DATA` byte.
        data: u8,
    },
    /// `e_machine` is not `EM_AMDGPU`.
    #[error("e_machine is {machine}, not EM_AMDGPU (224)")]
    NotAmdgpu {
        /// The `e_machine` value.
        machine: u16,
    },
    /// The processor field of `e_flags` names no known processor.
    #[error("unknown AMDGPU processor: EF_AMDGPU_MACH 0x{mach:02x} (e_flags 0x{e_flags:08x})")]
    UnknownMach {
        /// `e_flags & 0xff`.
        mach: u32,
        /// The whole `e_flags`.
        e_flags: u32,
    },
    /// An HSA `EI_ABIVERSION` this crate does not know.
    #[error("unsupported AMDHSA ABI version {abi_version} (known: 0..=4, code object V2..V6)")]
    UnsupportedAbiVersion {
        /// The `EI_ABIVERSION` byte.
        abi_version: u8,
    },
    /// Generic ELF structure error reported by the `object` crate.
    #[error("malformed ELF ({context}): {source}")]
    Elf {
        /// What was being read.
        context: String,
        /// The underlying error.
        source: object::read::Error,
    },
    /// A section's file range lies outside the file.
    #[error("section {section} [{index}] data at 0x{offset:x}+0x{size:x} lies beyond the {file_len}-byte file")]
    SectionOutOfBounds {
        /// Section name.
        section: String,
        /// Section index.
        index: usize,
        /// `sh_offset`.
        offset: u64,
        /// `sh_size`.
        size: u64,
        /// File length.
        file_len: usize,
    },
    /// A name that is not UTF-8.
    #[error("{what} {index} has a name that is not valid UTF-8")]
    BadName {
        /// `section` or `symbol`.
        what: &'static str,
        /// Its index.
        index: usize,
    },
    /// A note header or payload runs past the end of its container.
    #[error("note at offset 0x{offset:x} in {container}: {reason}")]
    BadNote {
        /// Section or segment holding the note.
        container: String,
        /// File offset of the note header.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// The metadata note could not be decoded.
    #[error("NT_AMDGPU_METADATA note: {0}")]
    Metadata(#[from] MetadataError),
    /// A kernel descriptor could not be read.
    #[error("kernel `{kernel}`: {source}")]
    KernelDescriptor {
        /// The kernel name (without `.kd`).
        kernel: String,
        /// What is wrong with its descriptor.
        source: KdError,
    },
    /// A relocation refers to a symbol index outside its symbol table.
    #[error("relocation {index} in section {section} refers to symbol {symbol}, beyond the {count} symbols of its table")]
    BadRelocationSymbol {
        /// Name of the relocation section.
        section: String,
        /// Entry index.
        index: usize,
        /// The symbol index.
        symbol: u32,
        /// Size of the linked symbol table.
        count: usize,
    },
}

impl Error {
    pub(crate) fn elf(context: impl Into<String>, source: object::read::Error) -> Self {
        Error::Elf {
            context: context.into(),
            source,
        }
    }
}

/// Result alias for this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

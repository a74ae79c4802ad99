//! The crate's error type and the resource limits parsers obey.
//!
//! Offsets in errors are relative to the start of the buffer that was handed
//! to the parser (a bundle, a CCOB, or a whole file). When host discovery
//! parses a bundle inside an ELF section it wraps the error in
//! [`Error::InBundle`], which adds the file offset and section name.

use crate::method::Method;

/// Everything that can go wrong while reading or writing bundles.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes at `offset` are neither `__CLANG_OFFLOAD_BUNDLE__` nor `CCOB`.
    #[error("no offload bundle magic at offset {offset:#x} (found {found:02x?})")]
    BadMagic {
        /// Where the magic was expected.
        offset: u64,
        /// Up to the first 8 bytes found there.
        found: Vec<u8>,
    },
    /// A structure extends past the end of the data.
    #[error(
        "truncated {what} at offset {offset:#x}: needs {needed} bytes, only {available} available"
    )]
    Truncated {
        /// Which structure was being read.
        what: &'static str,
        /// Where it starts.
        offset: u64,
        /// Bytes it needs.
        needed: u64,
        /// Bytes that remain from `offset`.
        available: u64,
    },
    /// The entry count cannot fit in the bundle (each entry header needs at
    /// least 24 bytes).
    #[error("bundle declares {count} entries but its {available} bytes can hold at most {max}")]
    TooManyEntries {
        /// Declared count.
        count: u64,
        /// Largest count the data could hold.
        max: u64,
        /// Bundle size in bytes.
        available: u64,
    },
    /// An entry ID longer than [`Limits::max_id_len`].
    #[error("entry {index}: ID length {len} (at offset {offset:#x}) exceeds the limit of {max}")]
    IdTooLong {
        /// Entry index.
        index: u64,
        /// Offset of the length field.
        offset: u64,
        /// Declared length.
        len: u64,
        /// The limit.
        max: u64,
    },
    /// An entry's data range lies (partly) outside the bundle.
    #[error(
        "entry {index} ({id}): data {offset:#x}+{size:#x} lies outside the {bundle_size}-byte bundle"
    )]
    EntryOutOfRange {
        /// Entry index.
        index: usize,
        /// Entry ID (lossy UTF-8).
        id: String,
        /// Declared offset.
        offset: u64,
        /// Declared size.
        size: u64,
        /// Bytes available from the bundle start.
        bundle_size: u64,
    },
    /// A non-empty entry starts inside the bundle header.
    #[error("entry {index} ({id}): data at {offset:#x} overlaps the header, which ends at {header_end:#x}")]
    EntryOverlapsHeader {
        /// Entry index.
        index: usize,
        /// Entry ID (lossy UTF-8).
        id: String,
        /// Declared offset.
        offset: u64,
        /// End of the header (entry table).
        header_end: u64,
    },
    /// Two non-empty entries share bytes.
    #[error(
        "entries {first} ({first_id}, {first_start:#x}..{first_end:#x}) and {second} ({second_id}, {second_start:#x}..{second_end:#x}) overlap"
    )]
    EntriesOverlap {
        /// Index of the entry that starts first.
        first: usize,
        /// Its ID.
        first_id: String,
        /// Its start offset.
        first_start: u64,
        /// Its end offset.
        first_end: u64,
        /// Index of the other entry.
        second: usize,
        /// Its ID.
        second_id: String,
        /// Its start offset.
        second_start: u64,
        /// Its end offset.
        second_end: u64,
    },
    /// A CCOB header with a version other than 1, 2 or 3.
    #[error("CCOB: unsupported format version {version} (supported: 1, 2, 3)")]
    CcobVersion {
        /// The version field.
        version: u16,
    },
    /// A CCOB header with an unknown compression method.
    #[error("CCOB: unknown compression method {method} (0 = zlib, 1 = zstd)")]
    CcobMethod {
        /// The method field.
        method: u16,
    },
    /// The CCOB total-size field is smaller than the header or larger than
    /// the data.
    #[error(
        "CCOB: total size field {declared} is invalid (header is {header_len} bytes, {available} bytes available)"
    )]
    CcobFileSize {
        /// The total-size field.
        declared: u64,
        /// Header length for this version.
        header_len: u64,
        /// Bytes available from the CCOB start.
        available: u64,
    },
    /// The declared uncompressed size exceeds the configured limits.
    #[error(
        "CCOB: declared uncompressed size {declared} exceeds the limit of {limit} bytes ({compressed} compressed bytes; see Limits)"
    )]
    CcobTooLarge {
        /// The declared uncompressed size.
        declared: u64,
        /// The effective limit for this CCOB.
        limit: u64,
        /// Compressed payload size.
        compressed: u64,
    },
    /// The compressed stream is corrupt or ends early.
    #[error("CCOB: corrupt {method} data near offset {offset:#x}: {message}")]
    Decompress {
        /// Compression method.
        method: Method,
        /// Offset (from the CCOB start) of the input chunk where decoding failed.
        offset: u64,
        /// The decoder's message.
        message: String,
    },
    /// Decompression produced a different number of bytes than declared.
    #[error("CCOB: declared uncompressed size {declared} but the data decompresses to {actual}{}", if *.more { " or more" } else { "" })]
    CcobSizeMismatch {
        /// Declared size.
        declared: u64,
        /// Bytes produced (a lower bound when `more`).
        actual: u64,
        /// Decoding stopped early because output exceeded the declared size.
        more: bool,
    },
    /// The MD5-derived hash does not match the decompressed data.
    #[error("CCOB: hash mismatch: header says {stored:#018x}, data hashes to {computed:#018x}")]
    CcobHashMismatch {
        /// Hash in the header.
        stored: u64,
        /// Low 64 bits of the MD5 of the decompressed data.
        computed: u64,
    },
    /// Writing a CCOB failed.
    #[error("CCOB: cannot compress: {message}")]
    Compress {
        /// What went wrong.
        message: String,
    },
    /// A host ELF file could not be read.
    #[error("ELF: {message}")]
    Elf {
        /// What went wrong.
        message: String,
    },
    /// Non-zero bytes between or after bundles in a fat-binary section
    /// (offset from the scanned buffer; a file offset in
    /// [`crate::host::Discovery::problems`]).
    #[error("unexpected non-bundle data at offset {offset:#x} ({len} bytes skipped up to the next bundle or the end)")]
    StrayData {
        /// Where the data starts.
        offset: u64,
        /// How many bytes were skipped.
        len: u64,
    },
    /// An error inside a bundle found in a larger file.
    #[error("bundle {bundle} at file offset {file_offset:#x}{}: {source}", section.as_deref().map(|s| format!(" in {s}")).unwrap_or_default())]
    InBundle {
        /// Index of the bundle in discovery order.
        bundle: usize,
        /// File offset of the bundle.
        file_offset: u64,
        /// Section holding it, if any.
        section: Option<String>,
        /// The underlying error (offsets relative to the bundle).
        source: Box<Error>,
    },
}

/// Result alias for this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Resource limits for parsing untrusted input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Hard cap on the uncompressed size of one CCOB (default 4 GiB).
    pub max_decompressed: u64,
    /// Largest accepted ratio of declared uncompressed size to compressed
    /// payload size (default 2048) …
    pub max_ratio: u64,
    /// … except that sizes up to this many bytes are always accepted
    /// (subject to `max_decompressed`; default 256 MiB).
    pub ratio_floor: u64,
    /// Longest accepted entry ID (default 4096 bytes).
    pub max_id_len: u64,
    /// Check the CCOB hash after decompressing (default true).
    pub verify_hash: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_decompressed: 4 << 30,
            max_ratio: 2048,
            ratio_floor: 256 << 20,
            max_id_len: 4096,
            verify_hash: true,
        }
    }
}

impl Limits {
    /// The uncompressed-size limit for a payload of `compressed` bytes.
    pub fn decompressed_limit(&self, compressed: u64) -> u64 {
        compressed
            .saturating_mul(self.max_ratio)
            .max(self.ratio_floor)
            .min(self.max_decompressed)
    }
}

#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod image;
pub mod read;
pub mod write;

use serde::{Deserialize, Serialize};

/// The `format` field of every capsule manifest.
pub const FORMAT: &str = "lathe-capsule";
/// The version this crate writes. Versions 1 (every allocation stored
/// whole, no `before_pages`) and 2 (touched pages, `code` allocations
/// whole) are still read: a code allocation's unstored pages come from
/// loading its code object there ([`image`]), which for them is never
/// needed.
pub const VERSION: u32 = 3;
/// The manifest's file name inside a capsule directory.
pub const MANIFEST: &str = "capsule.json";
/// The stored memory before the dispatch, concatenated (zstd): every
/// allocation whole, or the runs `before_pages` lists.
pub const BEFORE: &str = "before.zst";
/// The pages the dispatch changed, after it, concatenated (zstd).
pub const AFTER: &str = "after.zst";
/// Granularity of the after-state.
pub const PAGE: u64 = 4096;

/// Code object `i`'s file inside a capsule directory.
pub fn code_file(i: usize) -> String {
    format!("code/{i}.co")
}

/// `capsule.json`: everything but the bulk bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// The agent's full target ID (`gfx90a:sramecc+:xnack-`).
    pub target: String,
    /// Launch index in the captured process (from 0, every kernel dispatch).
    pub launch: u64,
    /// The kernel's symbol (mangled).
    pub kernel: String,
    /// Device address of its kernel descriptor (the packet's `kernel_object`).
    pub kernel_object: u64,
    /// The code objects of the kernel's executable, in load order.
    pub code_objects: Vec<CodeObjectEntry>,
    /// The 64-byte AQL kernel-dispatch packet, in hex.
    pub packet: String,
    /// Where the packet was (the kernel's `dispatch_ptr`).
    pub packet_address: u64,
    /// Where the queue's `amd_queue_t` was (the kernel's `queue_ptr`).
    pub queue_address: u64,
    /// The packet's dispatch ID.
    pub dispatch_id: u64,
    /// The kernel's argument bytes (its `kernarg_size`), in hex; they are
    /// also inside one of the allocations.
    pub kernarg: String,
    /// Every allocation the dispatch could see, sorted by base, disjoint.
    pub allocations: Vec<Allocation>,
    /// Uncompressed size of [`BEFORE`]: the sum of the allocation sizes,
    /// or of the `before_pages` runs.
    pub before_bytes: u64,
    /// Version 2: the stored runs of memory, `[allocation, offset,
    /// length]`, ascending and disjoint: the pages the dispatch touched,
    /// clipped to their allocation. Absent: every allocation is stored
    /// whole (version 1, and `--capture-memory all`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_pages: Option<Vec<[u64; 3]>>,
    /// The changed pages in [`AFTER`], in order: `[allocation, offset, length]`.
    pub after_pages: Vec<[u64; 3]>,
    /// How the original dispatch went.
    pub original: Original,
}

/// One loaded code object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeObjectEntry {
    /// Its size in bytes (the file `code/N.co`).
    pub size: u64,
    /// The allocation holding its loaded segments (kind `code`).
    pub allocation: usize,
}

/// One device allocation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Allocation {
    /// Device address.
    pub base: u64,
    /// Size in bytes.
    pub size: u64,
    /// What it was: `gpu-coarse`, `gpu-fine`, `cpu-fine`, `cpu-coarse`,
    /// `host-locked`, `code`, `queue` or `packet`.
    pub kind: String,
}

/// The original dispatch, for comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Original {
    /// Wall time of the dispatch in the captured run.
    pub seconds: f64,
    /// Wave-instructions it executed (0 if it stopped).
    pub wave_instructions: u64,
    /// Emulator threads it ran on.
    pub threads: u64,
    /// `None`: it completed; else the first line of why it stopped.
    pub stopped: Option<String>,
}

/// Lowercase hex of `b`.
pub fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        s.push_str(&format!("{x:02x}"));
    }
    s
}

/// Bytes of a hex string, if it is one.
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_roundtrip() {
        assert_eq!(
            unhex(&hex(&[0, 1, 0xab, 0xff])),
            Some(vec![0, 1, 0xab, 0xff])
        );
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex("zz"), None);
        assert_eq!(unhex("é1"), None);
    }
}

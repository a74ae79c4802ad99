//! `lathe-bundle`: clang offload bundles.
//!
//! Owns: the uncompressed `__CLANG_OFFLOAD_BUNDLE__` format (read and write),
//! compressed `CCOB` bundles v1–v3 (zlib/zstd, MD5 hash check), discovery of
//! bundles inside host ELF files (`.hip_fatbin`, `.hipFatBinSegment`), AMDGPU
//! target IDs with clang's compatibility rules plus generic and extended ISA
//! compatibility, and deterministic code-object selection for an agent.

pub mod target;

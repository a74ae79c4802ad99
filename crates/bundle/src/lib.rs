//! `lathe-bundle`: clang offload bundles.
//!
//! Owns: the uncompressed `__CLANG_OFFLOAD_BUNDLE__` format (read and write),
//! compressed `CCOB` bundles v1–v3 (zlib/zstd, MD5 hash check), discovery of
//! bundles inside host ELF files (`.hip_fatbin`, `.hipFatBinSegment`), AMDGPU
//! target IDs with clang's compatibility rules plus generic and extended ISA
//! compatibility, and deterministic code-object selection for an agent.
//!
//! Entry points:
//!
//! * [`host::discover`]: every bundle in any file, zero-copy;
//! * [`walk::walk`]: lazily every (bundle, entry), with progress;
//! * [`bundle::Bundle::parse`] / [`bundle::BundleWriter`]: one plain bundle;
//! * [`ccob::decompress`] / [`ccob::compress`]: one CCOB;
//! * [`select::select`]: the best entry for an agent, with explanations;
//! * [`target`]: processors and target IDs.
//!
//! Library code never panics on input bytes; all limits are in [`Limits`].

pub mod bundle;
pub mod ccob;
mod elf;
pub mod error;
pub mod host;
pub mod id;
mod method;
pub mod select;
pub mod target;
pub mod walk;

pub use bundle::{Bundle, BundleWriter, Entry};
pub use error::{Error, Limits, Result};
pub use host::{classify, discover, Discovery, FileKind, FoundBundle};
pub use id::EntryId;
pub use select::{select, Policy, Selection};
pub use target::{FeatureSetting, Processor, TargetId};
pub use walk::walk;

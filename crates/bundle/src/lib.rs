#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

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

#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod addr_map;
pub mod asm;
pub mod cfg;
pub mod dims;
pub mod elfout;
pub mod hook;
pub mod lift;
pub mod live;
pub mod manifest;
pub mod report;
pub mod rewrite;
pub mod scratch;
pub mod tools;
pub mod verify;
pub mod verify_regs;

pub use lift::{Block, Function, FunctionKind, Program};
pub use live::{Liveness, RegSet};
pub use manifest::{HipTool, HookBuild};

/// Instrumentation errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The code object could not be read.
    #[error(transparent)]
    CodeObject(#[from] lathe_codeobj::Error),
    /// The code object names no processor.
    #[error("the code object names no known processor")]
    NoTarget,
    /// The processor is not supported by the ISA tables.
    #[error("target {0}: {1}")]
    Target(String, lathe_isa::TargetError),
    /// The processor's code can be lifted but not instrumented yet.
    #[error(
        "{0} code can be disassembled and lifted but not instrumented yet (GFX9 and GFX10 only)"
    )]
    NotInstrumentable(String),
    /// No function matched.
    #[error("no kernel or function named {0}")]
    NoFunction(String),
    /// A bad selection pattern.
    #[error("bad pattern {pattern:?}: {why}")]
    Pattern {
        /// The pattern.
        pattern: String,
        /// Why.
        why: String,
    },
    /// A probe or fix-up instruction could not be encoded.
    #[error("{function} at {addr:#x}: cannot encode {what}: {source}")]
    Encode {
        /// Function.
        function: String,
        /// Original address.
        addr: u64,
        /// What was being built.
        what: String,
        /// Encoder error.
        source: lathe_isa::BuildError,
    },
    /// The rewriter cannot instrument this code safely.
    #[error("{function} at {addr:#x}: {why}")]
    Unsupported {
        /// Function.
        function: String,
        /// Address.
        addr: u64,
        /// Why.
        why: String,
    },
    /// No registers are left for probes.
    #[error("{function}: no free registers for probes ({why})")]
    NoRegisters {
        /// Function.
        function: String,
        /// What was missing.
        why: String,
    },
    /// Writing the new ELF failed.
    #[error("writing the instrumented code object: {0}")]
    Elf(String),
    /// Reading probe data back failed.
    #[error("reading probe data: {0}")]
    ProbeData(String),
    /// A [`rewrite::Prepared`] used with a program it was not made for.
    #[error("the prepared rewrite was made for another program")]
    Prepared,
    /// A HIP tool (hook) error.
    #[error(transparent)]
    Hook(#[from] hook::HookError),
}

//! `lathe-dbi`: binary instrumentation of AMDGPU code objects, on Lathe's
//! own decoder and encoder (no LLVM at run time).
//!
//! * [`lift`]: every kernel and device function (from the symbol table,
//!   local symbols included) as instructions, basic blocks, a CFG and a
//!   call graph; `s_getpc_b64` + constant-offset computations are
//!   recovered, so calls through `s_swappc_b64`/`s_setpc_b64` resolve;
//!   what cannot be recovered is listed; bytes between functions are kept.
//! * [`live`]: per-instruction liveness of SGPRs, VCC, EXEC, M0, SCC,
//!   VGPRs and AGPRs across calls, with vector writes under a partial EXEC
//!   treated as partial (they do not end liveness in the other lanes).
//! * [`cfg`]: the CFG, call graph and block-boundary liveness as text,
//!   Graphviz dot or JSON (`lathe cfg`).
//! * [`rewrite`]: sites (before/after an instruction, block entry/exit,
//!   kernel entry, before `s_endpgm`, function entry/return) selected by
//!   kernel regex, instruction class or opcode pattern and address range;
//!   probes built with the encoder; registers for probes; layout (branch
//!   re-targeting, `s_getpc` re-basing, long-jump relaxation); a new code
//!   object with updated descriptors and metadata ([`elfout`]).
//! * [`scratch`]: scratch for probes: enabling the private segment in a
//!   kernel that had none (the initial SGPRs it moves are moved back at
//!   entry), growing it in one that had its own, and where the probe area
//!   and the scratch descriptor are at every site.
//! * [`hook`] and [`manifest`]: tools written in HIP — hooks
//!   (`extern "C" __device__` functions of a clang-built tool code object)
//!   called from sites under the AMDGPU calling convention, the `tool.json`
//!   manifest, compiling and caching, [`HipTool`] for runtimes and
//!   [`manifest::run`] on the emulator.
//! * [`tools`]: the built-in tools (`instr-count`, `block-count`,
//!   `opcode-hist`, `kernarg`, `mem-trace`) and running them on the
//!   emulator, with the emulator's ground-truth recording of the same run.
//!
//! ```no_run
//! use lathe_dbi::tools::Tool;
//! let bytes = std::fs::read("kernel.co").unwrap();
//! let out = lathe_dbi::tools::instrument(&bytes, Tool::BlockCount, None).unwrap();
//! std::fs::write("kernel.instrumented.co", &out.code_object).unwrap();
//! for s in out.sites.iter().take(3) {
//!     println!("site {} at original pc {:#x}: {}", s.id, s.pc, s.inst);
//! }
//! ```

pub mod cfg;
pub mod dims;
pub mod elfout;
pub mod hook;
pub mod lift;
pub mod live;
pub mod manifest;
pub mod rewrite;
pub mod scratch;
pub mod tools;

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
    /// Running on the emulator failed.
    #[error(transparent)]
    Session(#[from] lathe_emu::session::SessionError),
    /// Reading probe data back failed.
    #[error("reading probe data: {0}")]
    ProbeData(String),
    /// A HIP tool (hook) error.
    #[error(transparent)]
    Hook(#[from] hook::HookError),
}

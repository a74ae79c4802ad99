//! A built-in tool's result, typed: what [`crate::tools::decode`] reads
//! from one launch's probe data.
//!
//! One value serves both outputs. Serialised (serde), it is the tool's
//! JSON result, tagged with the tool's name (`{"name": "instr-count",
//! ...}`) as `lathe run --tool --json`, `lathe exec --tool` and
//! `LATHE_TOOL_OUT` write it. Displayed, it is the one-line summary
//! `lathe exec --tool` prints per launch. Nothing reads a result back by
//! field name to decide what it is.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

/// One launch's result of a built-in tool ([`crate::tools::Tool`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "name", rename_all = "kebab-case")]
pub enum Report {
    /// `instr-count`.
    InstrCount(InstrCount),
    /// `block-count`.
    BlockCount(BlockCount),
    /// `opcode-hist`.
    OpcodeHist(OpcodeHist),
    /// `kernarg`.
    Kernarg(Kernarg),
    /// `mem-trace`.
    MemTrace(MemTrace),
}

/// Instructions of the original program executed by one launch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstrCount {
    /// The launched kernel.
    pub kernel: String,
    /// Wave-level: one per wave that executed an instruction.
    pub wave_instructions: u64,
    /// Thread-level: one per active lane.
    pub thread_instructions: u64,
}

/// Executions per basic block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockCount {
    /// The launched kernel.
    pub kernel: String,
    /// Every block with a counter or a count derived from one, in function
    /// and block order.
    pub blocks: Vec<BlockExecutions>,
}

/// One block's executions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockExecutions {
    /// The function (kernel or device function) holding the block.
    pub function: String,
    /// The block's index in that function.
    pub block: usize,
    /// Original address of its first instruction.
    pub start: u64,
    /// Original address just past its last instruction.
    pub end: u64,
    /// Wave executions.
    pub count: u64,
}

/// Executions per opcode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpcodeHist {
    /// The launched kernel.
    pub kernel: String,
    /// Opcodes executed, most executed first (ties by opcode).
    pub opcodes: Vec<OpcodeExecutions>,
}

/// One opcode's executions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpcodeExecutions {
    /// The mnemonic.
    pub opcode: &'static str,
    /// Wave executions.
    pub count: u64,
}

/// The kernel arguments as the kernel read them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Kernarg {
    /// The launched kernel.
    pub kernel: String,
    /// Every argument of the metadata, hidden ones included.
    pub args: Vec<KernargValue>,
    /// The hidden block counts (HIP's `gridDim`), when the kernel has them.
    pub grid_dim: Option<[u64; 3]>,
    /// The hidden group sizes (HIP's `blockDim`), when the kernel has them.
    pub block_dim: Option<[u64; 3]>,
}

/// One argument's bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KernargValue {
    /// Its name in the metadata (empty without one).
    pub name: String,
    /// Its `.value_kind`.
    pub kind: String,
    /// Byte offset in the kernarg segment.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// Its first eight bytes, little-endian.
    pub value: u64,
    /// Every byte, in hex.
    pub bytes: String,
}

/// What the `mem-trace` ring held after one launch (the accesses
/// themselves are in [`crate::tools::Trace`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemTrace {
    /// The launched kernel.
    pub kernel: String,
    /// Records written.
    pub records: u64,
    /// Records reserved (written or dropped).
    pub reserved: u64,
    /// Records lost because the ring was full.
    pub dropped: u64,
    /// The ring's capacity in records.
    pub capacity: u32,
    /// Lane accesses in the written records.
    pub accesses: usize,
    /// Lane accesses per kind (`load`, `store`, `atomic`).
    pub per_kind: BTreeMap<&'static str, u64>,
}

impl Report {
    /// The JSON result.
    pub fn to_json(&self) -> serde_json::Value {
        // Every field is a string, number, array or map with string keys:
        // serialising cannot fail.
        serde_json::to_value(self).unwrap_or_default()
    }
}

impl fmt::Display for Report {
    /// The one-line summary of `lathe exec --tool`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Report::InstrCount(r) => write!(
                f,
                "wave instructions {}, thread instructions {}",
                r.wave_instructions, r.thread_instructions
            ),
            Report::BlockCount(r) => {
                let ran = r.blocks.iter().filter(|b| b.count > 0).count();
                let total: u64 = r.blocks.iter().map(|b| b.count).sum();
                write!(
                    f,
                    "{ran} of {} blocks executed, {total} block executions",
                    r.blocks.len()
                )
            }
            Report::OpcodeHist(r) => {
                let top: Vec<String> = r
                    .opcodes
                    .iter()
                    .take(5)
                    .map(|o| format!("{} {}", o.opcode, o.count))
                    .collect();
                write!(f, "{} opcodes; top: {}", r.opcodes.len(), top.join(", "))
            }
            Report::MemTrace(r) => write!(
                f,
                "{} accesses in {} records, {} dropped",
                r.accesses, r.records, r.dropped
            ),
            Report::Kernarg(_) => write!(f, "{}", self.to_json()),
        }
    }
}

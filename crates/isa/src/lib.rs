#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod decode;
mod enc;
mod encode;
pub mod generated;
pub mod info;
mod inst;
pub mod listing;
mod modifiers;
pub mod opcode;
pub mod operand;
mod print;
pub mod reg;
pub mod sem;
mod target;
mod validate;

pub use decode::{decode, Decoder};
pub use encode::{BuildError, InstBuilder};
pub use info::{MemoryClass, RegAccess, Waitcnt};
pub use inst::Instruction;
pub use listing::{write_listing, ListingSymbol, Style};
pub use modifiers::Modifiers;
pub use opcode::{Encoding, Field, Kind, OpInfo, Opcode, OperandSpec, Ty};
pub use operand::{InlineFloat, Op, Operand, Operands};
pub use reg::{RegFile, RegRange};
pub use sem::{Desc, Sem};
pub use target::{Target, TargetError};

/// Symbolic immediates: `s_waitcnt` and `hwreg` field helpers.
pub mod imm {
    pub use crate::enc::sop::{hwreg_fields, waitcnt_encode, waitcnt_fields};
}

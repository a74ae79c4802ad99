//! `lathe-isa`: AMDGPU machine code — decode, encode and print (exactly as
//! LLVM 22's disassembler prints it), for GFX9, GFX10.3 and GFX11 processors
//! (the crate README lists them).
//!
//! The instruction set is described once, as data: `gen/gen.py` probes LLVM
//! 22's disassembler for every opcode of every encoding and writes the
//! tables in [`generated`] (mnemonics, operand shapes, printed modifiers,
//! must-be-zero bits, constant types). The hand-written code is per
//! encoding (field layouts, modifier printing) in `enc/`. See the crate
//! README for the table format and how to regenerate.
//!
//! ```
//! use lathe_isa::{decode, Target};
//! let inst = decode(Target::Gfx90a, &[0x01, 0x02, 0x00, 0x80]);
//! assert_eq!(inst.to_string(), "s_add_u32 s0, s1, s2");
//! assert_eq!(inst.len(), 4);
//! assert_eq!(inst.encode(), vec![0x01, 0x02, 0x00, 0x80]);
//! ```
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

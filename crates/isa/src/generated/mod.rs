//! Tables generated from LLVM by `crates/isa/gen/gen.py` (do not edit).

#[rustfmt::skip]
pub mod gfx9;

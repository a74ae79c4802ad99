//! Tables generated from LLVM by `crates/isa/gen/gen.py` (do not edit).

#[rustfmt::skip]
pub mod gfx9;

/// The text at `packed` (`offset << 8 | length`) in [`gfx9::TEXT`]; empty if
/// out of range.
#[inline]
pub(crate) fn text(packed: u32) -> &'static str {
    let (at, len) = ((packed >> 8) as usize, (packed & 0xFF) as usize);
    gfx9::TEXT.get(at..at + len).unwrap_or("")
}

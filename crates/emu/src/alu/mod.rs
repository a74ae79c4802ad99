//! VALU/SALU arithmetic semantics, one lane at a time.
//!
//! Pure functions the interpreter calls after decoding an instruction and
//! reading its operands: they take raw register bits (plus the wave's
//! [`Mode`] for floating point, the carry or SCC input where there is one)
//! and return raw result bits (plus the carry, VCC or SCC output). Nothing
//! here allocates or touches wave state. Semantics follow the AMD
//! GFX9/CDNA2/CDNA3 ISA manuals' pseudocode; where a manual is silent or
//! self-contradictory the choice made is documented on the function.
//!
//! * [`mode`] — the MODE register's rounding/denormal/DX10/IEEE fields.
//! * [`soft`] — an exact floating-point core (any rounding direction, any of
//!   f16/bf16/f32/f64) used for directed rounding, f16 and conversions.
//! * [`float`] — add/mul/fma/mad, legacy multiplies, min/max/med3, integral
//!   rounding, fract/frexp/ldexp, input/output modifiers, and the division
//!   helpers `v_div_scale`/`v_div_fmas`/`v_div_fixup`.
//! * [`host`] — f32/f64 lane operations on host floats (nearest-even), for
//!   the interpreter's vectorised lane loops.
//! * [`trans`] — rcp/rsq/sqrt/exp/log/sin/cos.
//! * [`trig`] — `v_trig_preop_f64` (segments of 2/π).
//! * [`bufmt`] — typed-buffer (MTBUF) data and number formats.
//! * [`cvt`] — conversions, bf16, normalised packing, 16-bit halves.
//! * [`fp8`] — gfx942 FP8/BF8 (FNUZ) conversions.
//! * [`gfx950`] — CDNA4's minimum3/maximum3, bitop3, ashr_pk, cvt_pk.
//! * [`int`] — VALU integer ops (moves, bitwise, min/max, multiplies, carries, shifts, bitfields,
//!   permutes, SAD, 16-bit ops, dot products).
//! * [`packed`] — VOP3P packed 16-bit and packed f32 ops.
//! * [`salu`] — scalar ops and which of them write SCC.
//! * [`cmp`] — VOPC float/class/integer predicates.
//!
//! Things deliberately left to the interpreter: operand fetch (including
//! SDWA/DPP selects and op_sel half selection for non-packed 16-bit ops),
//! where a 16-bit result lands in the destination register, EXEC masking,
//! and VCC/SCC/EXEC writes.

pub mod bufmt;
pub mod cmp;
pub mod cvt;
pub mod float;
pub mod fp8;
pub mod gfx950;
pub mod host;
pub mod int;
pub mod mode;
pub mod packed;
pub mod salu;
pub mod soft;
pub mod trans;
pub mod trig;

pub use mode::{Denorm, FpCtl, Mode, Round};

//! VOPC comparisons: float predicates, `v_cmp_class`, integer predicates.
//!
//! The `v_cmpx_*` forms compute the same bit and also write it to EXEC;
//! the signaling `v_cmps_*`/`v_cmpsx_*` forms of older GCN differ from the
//! quiet ones only in raising the invalid exception for quiet NaN operands,
//! which this model does not track, so the same predicate function serves
//! all of them. Float comparisons flush denormal inputs per the mode's
//! input-denormal field for that precision; `v_cmp_class` never flushes
//! (it classifies the raw bits).

use super::float::{flush_in, Arith};
use super::mode::Mode;
use super::soft::{self, F16, F32, F64};
use std::cmp::Ordering;

/// The 16 float compare predicates, in opcode order (`v_cmp_f` = 0 ...
/// `v_cmp_tru` = 15).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FCmp {
    /// Always false.
    F,
    /// a < b (ordered).
    Lt,
    /// a == b (ordered).
    Eq,
    /// a <= b (ordered).
    Le,
    /// a > b (ordered).
    Gt,
    /// a < b or a > b (ordered, "less or greater").
    Lg,
    /// a >= b (ordered).
    Ge,
    /// Ordered: neither is NaN.
    O,
    /// Unordered: either is NaN.
    U,
    /// !(a >= b): less or unordered.
    Nge,
    /// !(a <> b): equal or unordered.
    Nlg,
    /// !(a > b).
    Ngt,
    /// !(a <= b).
    Nle,
    /// !(a == b).
    Neq,
    /// !(a < b).
    Nlt,
    /// Always true.
    Tru,
}

impl FCmp {
    /// From the low 4 bits of the VOPC opcode within its group.
    #[inline]
    pub fn from_index(i: u32) -> FCmp {
        use FCmp::*;
        [
            F, Lt, Eq, Le, Gt, Lg, Ge, O, U, Nge, Nlg, Ngt, Nle, Neq, Nlt, Tru,
        ][(i & 15) as usize]
    }

    /// Evaluates the predicate for an IEEE ordering (`None` = unordered).
    #[inline]
    pub fn eval(self, ord: Option<Ordering>) -> bool {
        use FCmp::*;
        let (lt, eq, gt, un) = match ord {
            Some(Ordering::Less) => (true, false, false, false),
            Some(Ordering::Equal) => (false, true, false, false),
            Some(Ordering::Greater) => (false, false, true, false),
            None => (false, false, false, true),
        };
        match self {
            F => false,
            Lt => lt,
            Eq => eq,
            Le => lt || eq,
            Gt => gt,
            Lg => lt || gt,
            Ge => gt || eq,
            O => !un,
            U => un,
            Nge => lt || un,
            Nlg => eq || un,
            Ngt => !gt,
            Nle => gt || un,
            Neq => !eq,
            Nlt => !lt,
            Tru => true,
        }
    }
}

/// A float comparison in format F.
#[inline]
pub fn cmp_float<F: Arith>(op: FCmp, a: u64, b: u64, m: Mode) -> bool {
    let ctl = F::ctl(m);
    let a = flush_in::<F>(a, ctl);
    let b = flush_in::<F>(b, ctl);
    op.eval(soft::compare::<F>(a, b))
}
/// `v_cmp_*_f16`.
#[inline]
pub fn cmp_f16(op: FCmp, a: u16, b: u16, m: Mode) -> bool {
    cmp_float::<F16>(op, a as u64, b as u64, m)
}
/// `v_cmp_*_f32`.
#[inline]
pub fn cmp_f32(op: FCmp, a: u32, b: u32, m: Mode) -> bool {
    cmp_float::<F32>(op, a as u64, b as u64, m)
}
/// `v_cmp_*_f64`.
#[inline]
pub fn cmp_f64(op: FCmp, a: u64, b: u64, m: Mode) -> bool {
    cmp_float::<F64>(op, a, b, m)
}

/// Class mask bits of `v_cmp_class_*`.
pub mod class {
    /// Signaling NaN.
    pub const SNAN: u32 = 1 << 0;
    /// Quiet NaN.
    pub const QNAN: u32 = 1 << 1;
    /// -infinity.
    pub const NEG_INF: u32 = 1 << 2;
    /// Negative normal.
    pub const NEG_NORMAL: u32 = 1 << 3;
    /// Negative denormal.
    pub const NEG_DENORM: u32 = 1 << 4;
    /// -0.
    pub const NEG_ZERO: u32 = 1 << 5;
    /// +0.
    pub const POS_ZERO: u32 = 1 << 6;
    /// Positive denormal.
    pub const POS_DENORM: u32 = 1 << 7;
    /// Positive normal.
    pub const POS_NORMAL: u32 = 1 << 8;
    /// +infinity.
    pub const POS_INF: u32 = 1 << 9;
}

/// The class bit (one of [`class`]) of a value.
#[inline]
pub fn classify<F: Arith>(a: u64) -> u32 {
    let neg = soft::sign::<F>(a);
    if soft::is_nan::<F>(a) {
        return if soft::is_snan::<F>(a) {
            class::SNAN
        } else {
            class::QNAN
        };
    }
    if soft::is_inf::<F>(a) {
        if neg {
            class::NEG_INF
        } else {
            class::POS_INF
        }
    } else if soft::is_zero::<F>(a) {
        if neg {
            class::NEG_ZERO
        } else {
            class::POS_ZERO
        }
    } else if soft::is_denorm::<F>(a) {
        if neg {
            class::NEG_DENORM
        } else {
            class::POS_DENORM
        }
    } else if neg {
        class::NEG_NORMAL
    } else {
        class::POS_NORMAL
    }
}

/// `v_cmp_class_*`: true iff `a`'s class bit is set in `mask[9:0]`.
#[inline]
pub fn cmp_class<F: Arith>(a: u64, mask: u32) -> bool {
    classify::<F>(a) & mask & 0x3ff != 0
}
/// `v_cmp_class_f16`.
#[inline]
pub fn cmp_class_f16(a: u16, mask: u32) -> bool {
    cmp_class::<F16>(a as u64, mask)
}
/// `v_cmp_class_f32`.
#[inline]
pub fn cmp_class_f32(a: u32, mask: u32) -> bool {
    cmp_class::<F32>(a as u64, mask)
}
/// `v_cmp_class_f64`.
#[inline]
pub fn cmp_class_f64(a: u64, mask: u32) -> bool {
    cmp_class::<F64>(a, mask)
}

/// The 8 integer compare predicates, in opcode order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ICmp {
    /// Always false.
    F,
    /// <
    Lt,
    /// ==
    Eq,
    /// <=
    Le,
    /// >
    Gt,
    /// !=
    Ne,
    /// >=
    Ge,
    /// Always true.
    T,
}

impl ICmp {
    /// From the low 3 bits of the VOPC opcode within its group.
    #[inline]
    pub fn from_index(i: u32) -> ICmp {
        use ICmp::*;
        [F, Lt, Eq, Le, Gt, Ne, Ge, T][(i & 7) as usize]
    }

    /// Evaluates the predicate on two ordered values.
    #[inline]
    pub fn eval<T: Ord>(self, a: T, b: T) -> bool {
        match self {
            ICmp::F => false,
            ICmp::Lt => a < b,
            ICmp::Eq => a == b,
            ICmp::Le => a <= b,
            ICmp::Gt => a > b,
            ICmp::Ne => a != b,
            ICmp::Ge => a >= b,
            ICmp::T => true,
        }
    }
}

/// `v_cmp_*_i16`.
#[inline]
pub fn cmp_i16(op: ICmp, a: u16, b: u16) -> bool {
    op.eval(a as i16, b as i16)
}
/// `v_cmp_*_u16`.
#[inline]
pub fn cmp_u16(op: ICmp, a: u16, b: u16) -> bool {
    op.eval(a, b)
}
/// `v_cmp_*_i32`.
#[inline]
pub fn cmp_i32(op: ICmp, a: u32, b: u32) -> bool {
    op.eval(a as i32, b as i32)
}
/// `v_cmp_*_u32`.
#[inline]
pub fn cmp_u32(op: ICmp, a: u32, b: u32) -> bool {
    op.eval(a, b)
}
/// `v_cmp_*_i64`.
#[inline]
pub fn cmp_i64(op: ICmp, a: u64, b: u64) -> bool {
    op.eval(a as i64, b as i64)
}
/// `v_cmp_*_u64`.
#[inline]
pub fn cmp_u64(op: ICmp, a: u64, b: u64) -> bool {
    op.eval(a, b)
}

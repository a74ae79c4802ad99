//! Scalar ALU (SOP1/SOP2/SOPC/SOPK) operations and their SCC results.
//!
//! Functions that write SCC return `(result, scc)`; the others return the
//! result alone and leave SCC unchanged. Which instructions write SCC, and
//! how (CDNA3/CDNA4 ISA manual):
//!
//! | instructions | SCC |
//! |---|---|
//! | `s_add_u32`, `s_addc_u32`, `s_lshl{1..4}_add_u32` | unsigned carry-out |
//! | `s_sub_u32`, `s_subb_u32` | borrow (subtrahend + carry-in > minuend) |
//! | `s_add_i32`, `s_sub_i32`, `s_addk_i32` | signed overflow |
//! | `s_min_*`, `s_max_*` | the first operand was selected |
//! | `s_and/or/xor/andn2/orn2/nand/nor/xnor_b32/b64`, `s_not_*` | result != 0 |
//! | `s_lshl/lshr/ashr_*`, `s_bfe_*`, `s_wqm_*`, `s_quadmask_*` | result != 0 |
//! | `s_bcnt0/1_i32_b32/b64` | result (the count) != 0 |
//! | `s_abs_i32`, `s_absdiff_i32` | result != 0 |
//! | `s_*_saveexec_b64`, `s_*_wrexec_b64` | new EXEC != 0 |
//! | `s_cmp_*`, `s_cmpk_*`, `s_bitcmp0/1_*` | the comparison |
//!
//! Not writing SCC: `s_mul_i32`, `s_mul_hi_*`, `s_mulk_i32`, `s_bfm_*`,
//! `s_brev_*`, `s_ff0/ff1_*`, `s_flbit_*`, `s_sext_*`, `s_bitset0/1_*`,
//! `s_pack_*`, `s_cselect_*` (reads it), `s_mov*`, `s_cmov*` (reads it),
//! `s_movk_i32`, `s_bitreplicate_b64_b32`.

/// `s_add_u32`: (sum, carry).
#[inline]
pub fn add_u32(a: u32, b: u32) -> (u32, bool) {
    a.overflowing_add(b)
}
/// `s_addc_u32`: a + b + SCC, (sum, carry).
#[inline]
pub fn addc_u32(a: u32, b: u32, scc: bool) -> (u32, bool) {
    let v = a as u64 + b as u64 + scc as u64;
    (v as u32, v >> 32 != 0)
}
/// `s_sub_u32`: (difference, borrow = b > a).
#[inline]
pub fn sub_u32(a: u32, b: u32) -> (u32, bool) {
    a.overflowing_sub(b)
}
/// `s_subb_u32`: a - b - SCC, borrow = b + SCC > a.
#[inline]
pub fn subb_u32(a: u32, b: u32, scc: bool) -> (u32, bool) {
    (
        a.wrapping_sub(b).wrapping_sub(scc as u32),
        b as u64 + scc as u64 > a as u64,
    )
}
/// `s_add_i32`: (sum, signed overflow).
#[inline]
pub fn add_i32(a: u32, b: u32) -> (u32, bool) {
    let (r, o) = (a as i32).overflowing_add(b as i32);
    (r as u32, o)
}
/// `s_sub_i32`: (difference, signed overflow).
#[inline]
pub fn sub_i32(a: u32, b: u32) -> (u32, bool) {
    let (r, o) = (a as i32).overflowing_sub(b as i32);
    (r as u32, o)
}
/// `s_addk_i32`: d + sext(imm16), (sum, signed overflow).
#[inline]
pub fn addk_i32(d: u32, imm: u16) -> (u32, bool) {
    add_i32(d, imm as i16 as i32 as u32)
}
/// `s_mulk_i32`: d * sext(imm16) (no SCC).
#[inline]
pub fn mulk_i32(d: u32, imm: u16) -> u32 {
    d.wrapping_mul(imm as i16 as i32 as u32)
}
/// `s_movk_i32`: sext(imm16).
#[inline]
pub fn movk_i32(imm: u16) -> u32 {
    imm as i16 as i32 as u32
}
/// `s_min_i32`: (min, SCC = a < b).
#[inline]
pub fn min_i32(a: u32, b: u32) -> (u32, bool) {
    let s = (a as i32) < (b as i32);
    (if s { a } else { b }, s)
}
/// `s_min_u32`: (min, SCC = a < b).
#[inline]
pub fn min_u32(a: u32, b: u32) -> (u32, bool) {
    let s = a < b;
    (if s { a } else { b }, s)
}
/// `s_max_i32`: (max, SCC = a > b). The CDNA3/RDNA4 manuals' pseudocode
/// says `SCC = S0 >= S1`, but the Vega manual's text ("SCC = 1 if S0 is
/// the maximum", `D = S0 > S1 ? S0 : S1`) and hardware-tested emulators
/// (tinygrad's, which patches the pseudocode to a strict compare for
/// equal operands) say strict; the fast tier and the earlier handler did
/// the same, so equal operands clear SCC.
#[inline]
pub fn max_i32(a: u32, b: u32) -> (u32, bool) {
    let s = (a as i32) > (b as i32);
    (if s { a } else { b }, s)
}
/// `s_max_u32`: (max, SCC = a > b), strict as [`max_i32`].
#[inline]
pub fn max_u32(a: u32, b: u32) -> (u32, bool) {
    let s = a > b;
    (if s { a } else { b }, s)
}
/// `s_cselect_b32/b64`: SCC ? a : b.
#[inline]
pub fn cselect<T>(a: T, b: T, scc: bool) -> T {
    if scc {
        a
    } else {
        b
    }
}

/// Bitwise SOP2 operations (`s_and`, `s_or`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitOp {
    /// a & b
    And,
    /// a | b
    Or,
    /// a ^ b
    Xor,
    /// a & !b
    Andn2,
    /// a | !b
    Orn2,
    /// !(a & b)
    Nand,
    /// !(a | b)
    Nor,
    /// !(a ^ b)
    Xnor,
}

/// `s_{and,or,xor,andn2,orn2,nand,nor,xnor}_b64` (use `as u32` for the b32
/// forms via [`bitop_b32`]): (result, SCC = result != 0).
#[inline]
pub fn bitop_b64(op: BitOp, a: u64, b: u64) -> (u64, bool) {
    let r = match op {
        BitOp::And => a & b,
        BitOp::Or => a | b,
        BitOp::Xor => a ^ b,
        BitOp::Andn2 => a & !b,
        BitOp::Orn2 => a | !b,
        BitOp::Nand => !(a & b),
        BitOp::Nor => !(a | b),
        BitOp::Xnor => !(a ^ b),
    };
    (r, r != 0)
}
/// The 32-bit forms of [`bitop_b64`].
#[inline]
pub fn bitop_b32(op: BitOp, a: u32, b: u32) -> (u32, bool) {
    let (r, _) = bitop_b64(op, a as u64, b as u64);
    let r = r as u32;
    (r, r != 0)
}
/// `s_not_b32`.
#[inline]
pub fn not_b32(a: u32) -> (u32, bool) {
    (!a, !a != 0)
}
/// `s_not_b64`.
#[inline]
pub fn not_b64(a: u64) -> (u64, bool) {
    (!a, !a != 0)
}

/// `s_lshl_b32`: a << b[4:0].
#[inline]
pub fn lshl_b32(a: u32, b: u32) -> (u32, bool) {
    let r = a << (b & 31);
    (r, r != 0)
}
/// `s_lshl_b64`: a << b[5:0].
#[inline]
pub fn lshl_b64(a: u64, b: u32) -> (u64, bool) {
    let r = a << (b & 63);
    (r, r != 0)
}
/// `s_lshr_b32`.
#[inline]
pub fn lshr_b32(a: u32, b: u32) -> (u32, bool) {
    let r = a >> (b & 31);
    (r, r != 0)
}
/// `s_lshr_b64`.
#[inline]
pub fn lshr_b64(a: u64, b: u32) -> (u64, bool) {
    let r = a >> (b & 63);
    (r, r != 0)
}
/// `s_ashr_i32`.
#[inline]
pub fn ashr_i32(a: u32, b: u32) -> (u32, bool) {
    let r = ((a as i32) >> (b & 31)) as u32;
    (r, r != 0)
}
/// `s_ashr_i64`.
#[inline]
pub fn ashr_i64(a: u64, b: u32) -> (u64, bool) {
    let r = ((a as i64) >> (b & 63)) as u64;
    (r, r != 0)
}
/// `s_lshl{n}_add_u32` (n = 1..=4): `(a << n) + b`, SCC = the 64-bit sum
/// exceeds 32 bits (so bits shifted out of `a` also set it).
#[inline]
pub fn lshl_add_u32(n: u32, a: u32, b: u32) -> (u32, bool) {
    let v = ((a as u64) << n) + b as u64;
    (v as u32, v >> 32 != 0)
}

/// `s_bfm_b32`: `((1 << a[4:0]) - 1) << b[4:0]` (no SCC).
#[inline]
pub fn bfm_b32(a: u32, b: u32) -> u32 {
    ((1u32 << (a & 31)) - 1) << (b & 31)
}
/// `s_bfm_b64`: `((1 << a[5:0]) - 1) << b[5:0]`.
#[inline]
pub fn bfm_b64(a: u32, b: u32) -> u64 {
    ((1u64 << (a & 63)) - 1) << (b & 63)
}
/// Width field of the s_bfe control operand: bits 22:16 (0..=127; widths
/// beyond the operand size take the whole shifted value).
#[inline]
fn bfe_width(b: u32) -> u32 {
    (b >> 16) & 0x7f
}
/// `s_bfe_u32`: offset `b[4:0]`, width `b[22:16]`.
#[inline]
pub fn bfe_u32(a: u32, b: u32) -> (u32, bool) {
    let w = bfe_width(b);
    let v = a >> (b & 31);
    let r = if w >= 32 { v } else { v & ((1u32 << w) - 1) };
    (r, r != 0)
}
/// `s_bfe_i32`: as [`bfe_u32`], sign-extended from bit `width - 1` (width 0
/// gives 0).
#[inline]
pub fn bfe_i32(a: u32, b: u32) -> (u32, bool) {
    let w = bfe_width(b);
    let v = a >> (b & 31);
    let r = if w == 0 {
        0
    } else if w >= 32 {
        v
    } else {
        let f = v & ((1u32 << w) - 1);
        (((f << (32 - w)) as i32) >> (32 - w)) as u32
    };
    (r, r != 0)
}
/// `s_bfe_u64`: offset `b[5:0]`, width `b[22:16]`.
#[inline]
pub fn bfe_u64(a: u64, b: u32) -> (u64, bool) {
    let w = bfe_width(b);
    let v = a >> (b & 63);
    let r = if w >= 64 { v } else { v & ((1u64 << w) - 1) };
    (r, r != 0)
}
/// `s_bfe_i64`.
#[inline]
pub fn bfe_i64(a: u64, b: u32) -> (u64, bool) {
    let w = bfe_width(b);
    let v = a >> (b & 63);
    let r = if w == 0 {
        0
    } else if w >= 64 {
        v
    } else {
        let f = v & ((1u64 << w) - 1);
        (((f << (64 - w)) as i64) >> (64 - w)) as u64
    };
    (r, r != 0)
}

/// `s_mul_i32` (no SCC).
#[inline]
pub fn mul_i32(a: u32, b: u32) -> u32 {
    a.wrapping_mul(b)
}
/// `s_mul_hi_u32` (no SCC).
#[inline]
pub fn mul_hi_u32(a: u32, b: u32) -> u32 {
    ((a as u64 * b as u64) >> 32) as u32
}
/// `s_mul_hi_i32` (no SCC).
#[inline]
pub fn mul_hi_i32(a: u32, b: u32) -> u32 {
    ((a as i32 as i64 * b as i32 as i64) >> 32) as u32
}
/// `s_absdiff_i32`: |a - b| with wrapping (0x80000000 - 0 stays
/// 0x80000000), SCC = result != 0.
#[inline]
pub fn absdiff_i32(a: u32, b: u32) -> (u32, bool) {
    let d = (a as i32).wrapping_sub(b as i32);
    let r = d.wrapping_abs() as u32;
    (r, r != 0)
}
/// `s_abs_i32`: |a| with wrapping (abs(i32::MIN) = i32::MIN).
#[inline]
pub fn abs_i32(a: u32) -> (u32, bool) {
    let r = (a as i32).wrapping_abs() as u32;
    (r, r != 0)
}

/// `s_bcnt0_i32_b32`: number of zero bits, SCC = count != 0.
#[inline]
pub fn bcnt0_i32_b32(a: u32) -> (u32, bool) {
    let r = a.count_zeros();
    (r, r != 0)
}
/// `s_bcnt0_i32_b64`.
#[inline]
pub fn bcnt0_i32_b64(a: u64) -> (u32, bool) {
    let r = a.count_zeros();
    (r, r != 0)
}
/// `s_bcnt1_i32_b32`.
#[inline]
pub fn bcnt1_i32_b32(a: u32) -> (u32, bool) {
    let r = a.count_ones();
    (r, r != 0)
}
/// `s_bcnt1_i32_b64`.
#[inline]
pub fn bcnt1_i32_b64(a: u64) -> (u32, bool) {
    let r = a.count_ones();
    (r, r != 0)
}
/// `s_ff0_i32_b32`: index of the lowest 0 bit, or -1.
#[inline]
pub fn ff0_i32_b32(a: u32) -> u32 {
    ff1_i32_b32(!a)
}
/// `s_ff0_i32_b64`.
#[inline]
pub fn ff0_i32_b64(a: u64) -> u32 {
    ff1_i32_b64(!a)
}
/// `s_ff1_i32_b32`: index of the lowest 1 bit, or -1.
#[inline]
pub fn ff1_i32_b32(a: u32) -> u32 {
    if a == 0 {
        u32::MAX
    } else {
        a.trailing_zeros()
    }
}
/// `s_ff1_i32_b64`.
#[inline]
pub fn ff1_i32_b64(a: u64) -> u32 {
    if a == 0 {
        u32::MAX
    } else {
        a.trailing_zeros()
    }
}
/// `s_flbit_i32_b32`: leading zeros, or -1 for 0.
#[inline]
pub fn flbit_i32_b32(a: u32) -> u32 {
    if a == 0 {
        u32::MAX
    } else {
        a.leading_zeros()
    }
}
/// `s_flbit_i32_b64`.
#[inline]
pub fn flbit_i32_b64(a: u64) -> u32 {
    if a == 0 {
        u32::MAX
    } else {
        a.leading_zeros()
    }
}
/// `s_flbit_i32`: first bit (from the MSB) differing from the sign bit,
/// or -1 if all bits are equal.
#[inline]
pub fn flbit_i32(a: u32) -> u32 {
    flbit_i32_b32(if a >> 31 != 0 { !a } else { a })
}
/// `s_flbit_i32_i64`.
#[inline]
pub fn flbit_i32_i64(a: u64) -> u32 {
    flbit_i32_b64(if a >> 63 != 0 { !a } else { a })
}
/// `s_brev_b32`.
#[inline]
pub fn brev_b32(a: u32) -> u32 {
    a.reverse_bits()
}
/// `s_brev_b64`.
#[inline]
pub fn brev_b64(a: u64) -> u64 {
    a.reverse_bits()
}
/// `s_sext_i32_i8`.
#[inline]
pub fn sext_i32_i8(a: u32) -> u32 {
    a as u8 as i8 as i32 as u32
}
/// `s_sext_i32_i16`.
#[inline]
pub fn sext_i32_i16(a: u32) -> u32 {
    a as u16 as i16 as i32 as u32
}
/// `s_bitset0_b32`: clears bit `b[4:0]` of `d`.
#[inline]
pub fn bitset0_b32(d: u32, b: u32) -> u32 {
    d & !(1 << (b & 31))
}
/// `s_bitset1_b32`: sets bit `b[4:0]` of `d`.
#[inline]
pub fn bitset1_b32(d: u32, b: u32) -> u32 {
    d | 1 << (b & 31)
}
/// `s_bitset0_b64`: clears bit `b[5:0]`.
#[inline]
pub fn bitset0_b64(d: u64, b: u32) -> u64 {
    d & !(1 << (b & 63))
}
/// `s_bitset1_b64`: sets bit `b[5:0]`.
#[inline]
pub fn bitset1_b64(d: u64, b: u32) -> u64 {
    d | 1 << (b & 63)
}
/// `s_bitcmp0_b32` / `s_bitcmp1_b32`: SCC = bit `b[4:0]` of `a` == `one`.
#[inline]
pub fn bitcmp_b32(a: u32, b: u32, one: bool) -> bool {
    ((a >> (b & 31)) & 1 != 0) == one
}
/// `s_bitcmp0_b64` / `s_bitcmp1_b64`.
#[inline]
pub fn bitcmp_b64(a: u64, b: u32, one: bool) -> bool {
    ((a >> (b & 63)) & 1 != 0) == one
}
/// `s_pack_ll_b32_b16`: `{b[15:0], a[15:0]}`.
#[inline]
pub fn pack_ll_b32_b16(a: u32, b: u32) -> u32 {
    (a & 0xffff) | b << 16
}
/// `s_pack_lh_b32_b16`: `{b[31:16], a[15:0]}`.
#[inline]
pub fn pack_lh_b32_b16(a: u32, b: u32) -> u32 {
    (a & 0xffff) | (b & 0xffff_0000)
}
/// `s_pack_hh_b32_b16`: `{b[31:16], a[31:16]}`.
#[inline]
pub fn pack_hh_b32_b16(a: u32, b: u32) -> u32 {
    a >> 16 | (b & 0xffff_0000)
}
/// `s_wqm_b64`: each nibble becomes 0xf if any of its bits is set.
#[inline]
pub fn wqm_b64(a: u64) -> (u64, bool) {
    let mut r = 0u64;
    for q in 0..16 {
        if (a >> (4 * q)) & 0xf != 0 {
            r |= 0xf << (4 * q);
        }
    }
    (r, r != 0)
}
/// `s_wqm_b32`.
#[inline]
pub fn wqm_b32(a: u32) -> (u32, bool) {
    let (r, s) = wqm_b64(a as u64);
    (r as u32, s)
}
/// `s_quadmask_b64`: bit q set if nibble q of `a` is nonzero.
#[inline]
pub fn quadmask_b64(a: u64) -> (u64, bool) {
    let mut r = 0u64;
    for q in 0..16 {
        if (a >> (4 * q)) & 0xf != 0 {
            r |= 1 << q;
        }
    }
    (r, r != 0)
}
/// `s_quadmask_b32`.
#[inline]
pub fn quadmask_b32(a: u32) -> (u32, bool) {
    let (r, s) = quadmask_b64(a as u64);
    (r as u32, s)
}
/// `s_bitreplicate_b64_b32`: each bit of `a` doubled (no SCC).
#[inline]
pub fn bitreplicate_b64_b32(a: u32) -> u64 {
    let mut r = 0u64;
    for i in 0..32 {
        if (a >> i) & 1 != 0 {
            r |= 3 << (2 * i);
        }
    }
    r
}

/// SOPC/SOPK integer comparison predicates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ICmp {
    /// ==
    Eq,
    /// != (`lg`)
    Lg,
    /// >
    Gt,
    /// >=
    Ge,
    /// <
    Lt,
    /// <=
    Le,
}

#[inline]
fn icmp<T: Ord>(op: ICmp, a: T, b: T) -> bool {
    match op {
        ICmp::Eq => a == b,
        ICmp::Lg => a != b,
        ICmp::Gt => a > b,
        ICmp::Ge => a >= b,
        ICmp::Lt => a < b,
        ICmp::Le => a <= b,
    }
}
/// `s_cmp_*_i32`.
#[inline]
pub fn cmp_i32(op: ICmp, a: u32, b: u32) -> bool {
    icmp(op, a as i32, b as i32)
}
/// `s_cmp_*_u32`.
#[inline]
pub fn cmp_u32(op: ICmp, a: u32, b: u32) -> bool {
    icmp(op, a, b)
}
/// `s_cmp_eq_u64` / `s_cmp_lg_u64`.
#[inline]
pub fn cmp_u64(op: ICmp, a: u64, b: u64) -> bool {
    icmp(op, a, b)
}

//! VALU integer operations with GFX9/CDNA semantics.
//!
//! Shift amounts are masked to the operand width (5 bits for 32-bit, 4 for
//! 16-bit, 6 for 64-bit) as the manual's `S[4:0]` notation says. The
//! `clamp` arguments are the VOP3 clamp bit, which on integer adds and
//! subtracts saturates in the instruction's integer domain.

// ---- moves, bitwise, min/max ---------------------------------------------------

/// `v_mov_b32` (and the `v_accvgpr_*` moves).
#[inline]
pub fn mov_b32(a: u32) -> u32 {
    a
}
/// `v_not_b32`.
#[inline]
pub fn not_b32(a: u32) -> u32 {
    !a
}
/// `v_and_b32`.
#[inline]
pub fn and_b32(a: u32, b: u32) -> u32 {
    a & b
}
/// `v_or_b32`.
#[inline]
pub fn or_b32(a: u32, b: u32) -> u32 {
    a | b
}
/// `v_xor_b32`.
#[inline]
pub fn xor_b32(a: u32, b: u32) -> u32 {
    a ^ b
}
/// `v_xnor_b32`.
#[inline]
pub fn xnor_b32(a: u32, b: u32) -> u32 {
    !(a ^ b)
}
/// `v_xor3_b32`.
#[inline]
pub fn xor3_b32(a: u32, b: u32, c: u32) -> u32 {
    a ^ b ^ c
}
/// `v_min_u32`.
#[inline]
pub fn min_u32(a: u32, b: u32) -> u32 {
    a.min(b)
}
/// `v_max_u32`.
#[inline]
pub fn max_u32(a: u32, b: u32) -> u32 {
    a.max(b)
}
/// `v_min_i32`.
#[inline]
pub fn min_i32(a: u32, b: u32) -> u32 {
    (a as i32).min(b as i32) as u32
}
/// `v_max_i32`.
#[inline]
pub fn max_i32(a: u32, b: u32) -> u32 {
    (a as i32).max(b as i32) as u32
}

// ---- multiplies -------------------------------------------------------------

/// `v_mul_lo_u32` / `v_mul_lo_i32`: low 32 bits of the product.
#[inline]
pub fn mul_lo_u32(a: u32, b: u32) -> u32 {
    a.wrapping_mul(b)
}
/// `v_mul_hi_u32`: high 32 bits of the unsigned 64-bit product.
#[inline]
pub fn mul_hi_u32(a: u32, b: u32) -> u32 {
    ((a as u64 * b as u64) >> 32) as u32
}
/// `v_mul_hi_i32`: high 32 bits of the signed 64-bit product.
#[inline]
pub fn mul_hi_i32(a: u32, b: u32) -> u32 {
    ((a as i32 as i64 * b as i32 as i64) >> 32) as u32
}
#[inline]
fn u24(x: u32) -> u64 {
    (x & 0xff_ffff) as u64
}
#[inline]
fn i24(x: u32) -> i64 {
    (((x << 8) as i32) >> 8) as i64
}
/// `v_mul_u32_u24`: low 32 bits of u24 * u24.
#[inline]
pub fn mul_u32_u24(a: u32, b: u32) -> u32 {
    (u24(a) * u24(b)) as u32
}
/// `v_mul_hi_u32_u24`: bits 47:32 of u24 * u24.
#[inline]
pub fn mul_hi_u32_u24(a: u32, b: u32) -> u32 {
    ((u24(a) * u24(b)) >> 32) as u32
}
/// `v_mul_i32_i24`: low 32 bits of i24 * i24.
#[inline]
pub fn mul_i32_i24(a: u32, b: u32) -> u32 {
    (i24(a) * i24(b)) as u32
}
/// `v_mul_hi_i32_i24`: bits 63:32 of the sign-extended i24 * i24.
#[inline]
pub fn mul_hi_i32_i24(a: u32, b: u32) -> u32 {
    ((i24(a) * i24(b)) >> 32) as u32
}
/// `v_mad_u32_u24`: u24 * u24 + c (mod 2^32; clamp saturates).
#[inline]
pub fn mad_u32_u24(a: u32, b: u32, c: u32, clamp: bool) -> u32 {
    let v = u24(a) * u24(b) + c as u64;
    if clamp {
        v.min(u32::MAX as u64) as u32
    } else {
        v as u32
    }
}
/// `v_mad_i32_i24`: i24 * i24 + c (mod 2^32; clamp saturates to i32).
#[inline]
pub fn mad_i32_i24(a: u32, b: u32, c: u32, clamp: bool) -> u32 {
    let v = i24(a) * i24(b) + c as i32 as i64;
    if clamp {
        v.clamp(i32::MIN as i64, i32::MAX as i64) as u32
    } else {
        v as u32
    }
}
/// `v_mad_u32_u16`: u16 * u16 + c (the 16-bit operands are the caller's
/// op_sel-selected halves).
#[inline]
pub fn mad_u32_u16(a: u16, b: u16, c: u32, clamp: bool) -> u32 {
    let v = a as u64 * b as u64 + c as u64;
    if clamp {
        v.min(u32::MAX as u64) as u32
    } else {
        v as u32
    }
}
/// `v_mad_i32_i16`: i16 * i16 + c.
#[inline]
pub fn mad_i32_i16(a: u16, b: u16, c: u32, clamp: bool) -> u32 {
    let v = a as i16 as i64 * b as i16 as i64 + c as i32 as i64;
    if clamp {
        v.clamp(i32::MIN as i64, i32::MAX as i64) as u32
    } else {
        v as u32
    }
}
/// `v_mad_u64_u32`: `{carry, D} = u32 * u32 + u64` in 65 bits.
#[inline]
pub fn mad_u64_u32(a: u32, b: u32, c: u64) -> (u64, bool) {
    // The product is below 2^64, so the 65-bit sum is one 64-bit add and
    // its overflow (no 128-bit arithmetic: the lane loops vectorise).
    (u64::from(a) * u64::from(b)).overflowing_add(c)
}
/// `v_mad_i64_i32`: `{D1, D0} = 65'I(a) * 65'I(b) + 65'I(c)`, D1 being bit
/// 64 of the 65-bit two's-complement sum as the manual writes it (so it
/// equals the sign of the true result whenever that fits in 65 bits, which
/// it always does).
#[inline]
pub fn mad_i64_i32(a: u32, b: u32, c: u64) -> (u64, bool) {
    let v = a as i32 as i128 * b as i32 as i128 + c as i64 as i128;
    (v as u64, (v >> 64) & 1 != 0)
}

// ---- adds and subtracts -------------------------------------------------------

/// `v_add_co_u32` / `v_addc_co_u32`: a + b + cin, returning the sum and
/// the carry-out (VCC bit). With `clamp`, the sum saturates at 0xffffffff
/// (the carry still reports the overflow).
#[inline]
pub fn addc_co_u32(a: u32, b: u32, cin: bool, clamp: bool) -> (u32, bool) {
    // In 32-bit steps (the carry is either step's), so a loop over lanes
    // vectorises eight lanes wide.
    let (s, c1) = a.overflowing_add(b);
    let (v, c2) = s.overflowing_add(u32::from(cin));
    let carry = c1 | c2;
    let r = if clamp && carry { u32::MAX } else { v };
    (r, carry)
}
/// `v_sub_co_u32` / `v_subb_co_u32`: a - b - bin, returning the difference
/// and the borrow (VCC bit: b + bin > a). With `clamp` the difference
/// saturates at 0.
#[inline]
pub fn subb_co_u32(a: u32, b: u32, bin: bool, clamp: bool) -> (u32, bool) {
    // In 32-bit steps, as `addc_co_u32`: b + bin > a exactly when either
    // step borrows.
    let (t, b1) = a.overflowing_sub(b);
    let (v, b2) = t.overflowing_sub(u32::from(bin));
    let borrow = b1 | b2;
    let r = if clamp && borrow { 0 } else { v };
    (r, borrow)
}
/// `v_subrev_co_u32` / `v_subbrev_co_u32`: b - a - bin.
#[inline]
pub fn subbrev_co_u32(a: u32, b: u32, bin: bool, clamp: bool) -> (u32, bool) {
    subb_co_u32(b, a, bin, clamp)
}
/// `v_add_u32` (GFX9 no-carry add): a + b, saturating with `clamp`.
#[inline]
pub fn add_u32(a: u32, b: u32, clamp: bool) -> u32 {
    if clamp {
        a.saturating_add(b)
    } else {
        a.wrapping_add(b)
    }
}
/// `v_sub_u32`: a - b, saturating at 0 with `clamp`.
#[inline]
pub fn sub_u32(a: u32, b: u32, clamp: bool) -> u32 {
    if clamp {
        a.saturating_sub(b)
    } else {
        a.wrapping_sub(b)
    }
}
/// `v_add3_u32`: a + b + c (no carry, no saturation).
#[inline]
pub fn add3_u32(a: u32, b: u32, c: u32) -> u32 {
    a.wrapping_add(b).wrapping_add(c)
}
/// `v_add_i32` (VOP3, signed): a + b, saturating to i32 with `clamp`.
#[inline]
pub fn add_i32(a: u32, b: u32, clamp: bool) -> u32 {
    if clamp {
        (a as i32).saturating_add(b as i32) as u32
    } else {
        a.wrapping_add(b)
    }
}
/// `v_sub_i32` (VOP3, signed): a - b, saturating to i32 with `clamp`.
#[inline]
pub fn sub_i32(a: u32, b: u32, clamp: bool) -> u32 {
    if clamp {
        (a as i32).saturating_sub(b as i32) as u32
    } else {
        a.wrapping_sub(b)
    }
}

// ---- shifts and bitfields ------------------------------------------------------

/// `v_lshlrev_b32`: `val << (shift & 31)`.
#[inline]
pub fn lshlrev_b32(shift: u32, val: u32) -> u32 {
    val << (shift & 31)
}
/// `v_lshrrev_b32`: `val >> (shift & 31)`.
#[inline]
pub fn lshrrev_b32(shift: u32, val: u32) -> u32 {
    val >> (shift & 31)
}
/// `v_ashrrev_i32`: arithmetic `val >> (shift & 31)`.
#[inline]
pub fn ashrrev_i32(shift: u32, val: u32) -> u32 {
    ((val as i32) >> (shift & 31)) as u32
}
/// `v_lshlrev_b64`: `val << (shift & 63)`.
#[inline]
pub fn lshlrev_b64(shift: u32, val: u64) -> u64 {
    val << (shift & 63)
}
/// `v_lshrrev_b64`.
#[inline]
pub fn lshrrev_b64(shift: u32, val: u64) -> u64 {
    val >> (shift & 63)
}
/// `v_ashrrev_i64`.
#[inline]
pub fn ashrrev_i64(shift: u32, val: u64) -> u64 {
    ((val as i64) >> (shift & 63)) as u64
}
/// `v_lshl_add_u32`: `(a << (b & 31)) + c`.
#[inline]
pub fn lshl_add_u32(a: u32, b: u32, c: u32) -> u32 {
    (a << (b & 31)).wrapping_add(c)
}
/// `v_add_lshl_u32`: `(a + b) << (c & 31)`.
#[inline]
pub fn add_lshl_u32(a: u32, b: u32, c: u32) -> u32 {
    a.wrapping_add(b) << (c & 31)
}
/// `v_lshl_or_b32`: `(a << (b & 31)) | c`.
#[inline]
pub fn lshl_or_b32(a: u32, b: u32, c: u32) -> u32 {
    (a << (b & 31)) | c
}
/// `v_and_or_b32`: `(a & b) | c`.
#[inline]
pub fn and_or_b32(a: u32, b: u32, c: u32) -> u32 {
    (a & b) | c
}
/// `v_or3_b32`: `a | b | c`.
#[inline]
pub fn or3_b32(a: u32, b: u32, c: u32) -> u32 {
    a | b | c
}
/// `v_xad_u32`: `(a ^ b) + c`.
#[inline]
pub fn xad_u32(a: u32, b: u32, c: u32) -> u32 {
    (a ^ b).wrapping_add(c)
}
/// `v_lshl_add_u64` (gfx940+): `(a << b[2:0]) + c`; the manual says shift
/// counts above 4 are unsupported and act as 0.
#[inline]
pub fn lshl_add_u64(a: u64, b: u32, c: u64) -> u64 {
    let s = b & 7;
    let s = if s > 4 { 0 } else { s };
    (a << s).wrapping_add(c)
}

/// `v_bfe_u32`: `(a >> off[4:0]) & ((1 << width[4:0]) - 1)` (width 0 gives
/// 0).
#[inline]
pub fn bfe_u32(a: u32, off: u32, width: u32) -> u32 {
    let w = width & 31;
    (a >> (off & 31)) & ((1u32 << w) - 1)
}
/// `v_bfe_i32`: the field sign-extended from its top bit (width 0 gives 0).
#[inline]
pub fn bfe_i32(a: u32, off: u32, width: u32) -> u32 {
    let w = width & 31;
    if w == 0 {
        return 0;
    }
    let f = (a >> (off & 31)) & ((1u32 << w) - 1);
    (((f << (32 - w)) as i32) >> (32 - w)) as u32
}
/// `v_bfi_b32`: `(mask & b) | (!mask & c)`.
#[inline]
pub fn bfi_b32(mask: u32, b: u32, c: u32) -> u32 {
    (mask & b) | (!mask & c)
}
/// `v_bfm_b32`: `((1 << width[4:0]) - 1) << off[4:0]`.
#[inline]
pub fn bfm_b32(width: u32, off: u32) -> u32 {
    ((1u32 << (width & 31)) - 1) << (off & 31)
}
/// `v_alignbit_b32`: `({a, b} >> c[4:0])[31:0]` (a is the high word).
#[inline]
pub fn alignbit_b32(a: u32, b: u32, c: u32) -> u32 {
    ((((a as u64) << 32) | b as u64) >> (c & 31)) as u32
}
/// `v_alignbyte_b32`: `({a, b} >> (8 * c[1:0]))[31:0]`.
#[inline]
pub fn alignbyte_b32(a: u32, b: u32, c: u32) -> u32 {
    ((((a as u64) << 32) | b as u64) >> (8 * (c & 3))) as u32
}
/// `v_perm_b32`: each selector byte of `sel` picks from the 8 bytes of
/// `{a, b}` (b = bytes 0–3, a = bytes 4–7): 0–7 that byte, 8–11 the sign
/// of byte 1, 3, 5, 7 replicated (0x00 or 0xff), 12 gives 0x00, 13 and
/// above give 0xff.
#[inline]
pub fn perm_b32(a: u32, b: u32, sel: u32) -> u32 {
    let data = ((a as u64) << 32) | b as u64;
    let byte = |i: u32| (data >> (8 * i)) as u8;
    let pick = |s: u8| -> u8 {
        match s {
            0..=7 => byte(s as u32),
            8..=11 => {
                let src = 2 * (s as u32 - 8) + 1;
                if byte(src) & 0x80 != 0 {
                    0xff
                } else {
                    0
                }
            }
            12 => 0,
            _ => 0xff,
        }
    };
    let mut r = 0u32;
    for i in 0..4 {
        r |= (pick((sel >> (8 * i)) as u8) as u32) << (8 * i);
    }
    r
}
/// `v_bfrev_b32`.
#[inline]
pub fn bfrev_b32(a: u32) -> u32 {
    a.reverse_bits()
}
/// `v_bcnt_u32_b32`: popcount(a) + b.
#[inline]
pub fn bcnt_u32_b32(a: u32, b: u32) -> u32 {
    a.count_ones().wrapping_add(b)
}
/// `v_ffbh_u32`: leading zeros, or -1 (0xffffffff) for 0.
#[inline]
pub fn ffbh_u32(a: u32) -> u32 {
    if a == 0 {
        u32::MAX
    } else {
        a.leading_zeros()
    }
}
/// `v_ffbl_b32`: trailing zeros, or -1 for 0.
#[inline]
pub fn ffbl_b32(a: u32) -> u32 {
    if a == 0 {
        u32::MAX
    } else {
        a.trailing_zeros()
    }
}
/// `v_ffbh_i32`: the position, counted from the MSB, of the first bit that
/// differs from the sign bit (so 0x40000000 and 0x80000000 give 1), or -1
/// when all 32 bits are equal.
#[inline]
pub fn ffbh_i32(a: u32) -> u32 {
    let x = if a & 0x8000_0000 != 0 { !a } else { a };
    if x == 0 {
        u32::MAX
    } else {
        x.leading_zeros()
    }
}
/// `v_mbcnt_lo_u32_b32`: popcount of `mask`'s bits for lanes below `lane`
/// among lanes 0–31, plus `acc`.
#[inline]
pub fn mbcnt_lo_u32_b32(mask: u32, acc: u32, lane: u32) -> u32 {
    let below = if lane >= 32 {
        u32::MAX
    } else {
        (1u32 << lane) - 1
    };
    (mask & below).count_ones().wrapping_add(acc)
}
/// `v_mbcnt_hi_u32_b32`: popcount of `mask`'s bits for lanes below `lane`
/// among lanes 32–63, plus `acc`.
#[inline]
pub fn mbcnt_hi_u32_b32(mask: u32, acc: u32, lane: u32) -> u32 {
    let below = if lane <= 32 {
        0
    } else if lane >= 64 {
        u32::MAX
    } else {
        (1u32 << (lane - 32)) - 1
    };
    (mask & below).count_ones().wrapping_add(acc)
}

// ---- sums of absolute differences -------------------------------------------------

#[inline]
fn absdiff(x: u32, y: u32) -> u32 {
    x.abs_diff(y)
}
/// `v_sad_u8`: sum of |a.byte[i] - b.byte[i]| + c.
#[inline]
pub fn sad_u8(a: u32, b: u32, c: u32) -> u32 {
    let mut t = c;
    for i in 0..4 {
        t = t.wrapping_add(absdiff((a >> (8 * i)) & 0xff, (b >> (8 * i)) & 0xff));
    }
    t
}
/// `v_sad_hi_u8`: `(sad_u8(a, b, 0) << 16) + c`.
#[inline]
pub fn sad_hi_u8(a: u32, b: u32, c: u32) -> u32 {
    (sad_u8(a, b, 0) << 16).wrapping_add(c)
}
/// `v_sad_u16`: sum over the two halves + c.
#[inline]
pub fn sad_u16(a: u32, b: u32, c: u32) -> u32 {
    c.wrapping_add(absdiff(a & 0xffff, b & 0xffff))
        .wrapping_add(absdiff(a >> 16, b >> 16))
}
/// `v_sad_u32`: |a - b| + c.
#[inline]
pub fn sad_u32(a: u32, b: u32, c: u32) -> u32 {
    absdiff(a, b).wrapping_add(c)
}
/// `v_msad_u8`: as [`sad_u8`] but bytes where `b` (the reference) is 0 are
/// skipped.
#[inline]
pub fn msad_u8(a: u32, b: u32, c: u32) -> u32 {
    let mut t = c;
    for i in 0..4 {
        let rb = (b >> (8 * i)) & 0xff;
        if rb != 0 {
            t = t.wrapping_add(absdiff((a >> (8 * i)) & 0xff, rb));
        }
    }
    t
}
/// `v_qsad_pk_u16_u8`: four `sad_u8` over byte windows of the 64-bit `a`,
/// each accumulating into a 16-bit lane of `c`, truncated to 16 bits.
#[inline]
pub fn qsad_pk_u16_u8(a: u64, b: u32, c: u64) -> u64 {
    let mut r = 0u64;
    for i in 0..4 {
        let win = (a >> (8 * i)) as u32;
        let acc = ((c >> (16 * i)) & 0xffff) as u32;
        r |= ((sad_u8(win, b, acc) & 0xffff) as u64) << (16 * i);
    }
    r
}
/// `v_mqsad_pk_u16_u8`: as [`qsad_pk_u16_u8`] with [`msad_u8`].
#[inline]
pub fn mqsad_pk_u16_u8(a: u64, b: u32, c: u64) -> u64 {
    let mut r = 0u64;
    for i in 0..4 {
        let win = (a >> (8 * i)) as u32;
        let acc = ((c >> (16 * i)) & 0xffff) as u32;
        r |= ((msad_u8(win, b, acc) & 0xffff) as u64) << (16 * i);
    }
    r
}
/// `v_mqsad_u32_u8`: four `msad_u8` with 32-bit accumulators.
#[inline]
pub fn mqsad_u32_u8(a: u64, b: u32, c: [u32; 4]) -> [u32; 4] {
    let mut r = [0u32; 4];
    for (i, (out, acc)) in r.iter_mut().zip(c).enumerate() {
        *out = msad_u8((a >> (8 * i)) as u32, b, acc);
    }
    r
}
/// `v_lerp_u8`: per byte `(a + b + c.bit[8i]) >> 1`.
#[inline]
pub fn lerp_u8(a: u32, b: u32, c: u32) -> u32 {
    let mut r = 0;
    for i in 0..4 {
        let x = (a >> (8 * i)) & 0xff;
        let y = (b >> (8 * i)) & 0xff;
        let rnd = (c >> (8 * i)) & 1;
        r |= ((x + y + rnd) >> 1) << (8 * i);
    }
    r
}

// ---- min/max/med3 -----------------------------------------------------------------

/// `v_min3_i32`.
#[inline]
pub fn min3_i32(a: u32, b: u32, c: u32) -> u32 {
    (a as i32).min(b as i32).min(c as i32) as u32
}
/// `v_max3_i32`.
#[inline]
pub fn max3_i32(a: u32, b: u32, c: u32) -> u32 {
    (a as i32).max(b as i32).max(c as i32) as u32
}
/// `v_med3_i32`: the median.
#[inline]
pub fn med3_i32(a: u32, b: u32, c: u32) -> u32 {
    let (a, b, c) = (a as i32, b as i32, c as i32);
    a.max(b).min(a.min(b).max(c)) as u32
}
/// `v_min3_u32`.
#[inline]
pub fn min3_u32(a: u32, b: u32, c: u32) -> u32 {
    a.min(b).min(c)
}
/// `v_max3_u32`.
#[inline]
pub fn max3_u32(a: u32, b: u32, c: u32) -> u32 {
    a.max(b).max(c)
}
/// `v_med3_u32`.
#[inline]
pub fn med3_u32(a: u32, b: u32, c: u32) -> u32 {
    a.max(b).min(a.min(b).max(c))
}
/// `v_min3_i16`.
#[inline]
pub fn min3_i16(a: u16, b: u16, c: u16) -> u16 {
    (a as i16).min(b as i16).min(c as i16) as u16
}
/// `v_max3_i16`.
#[inline]
pub fn max3_i16(a: u16, b: u16, c: u16) -> u16 {
    (a as i16).max(b as i16).max(c as i16) as u16
}
/// `v_med3_i16`.
#[inline]
pub fn med3_i16(a: u16, b: u16, c: u16) -> u16 {
    let (a, b, c) = (a as i16, b as i16, c as i16);
    a.max(b).min(a.min(b).max(c)) as u16
}
/// `v_min3_u16`.
#[inline]
pub fn min3_u16(a: u16, b: u16, c: u16) -> u16 {
    a.min(b).min(c)
}
/// `v_max3_u16`.
#[inline]
pub fn max3_u16(a: u16, b: u16, c: u16) -> u16 {
    a.max(b).max(c)
}
/// `v_med3_u16`.
#[inline]
pub fn med3_u16(a: u16, b: u16, c: u16) -> u16 {
    a.max(b).min(a.min(b).max(c))
}

// ---- 16-bit integer ops (operands are the op_sel-selected halves) -----------------

/// `v_add_u16`: a + b mod 2^16 (clamp: saturate at 0xffff).
#[inline]
pub fn add_u16(a: u16, b: u16, clamp: bool) -> u16 {
    if clamp {
        a.saturating_add(b)
    } else {
        a.wrapping_add(b)
    }
}
/// `v_sub_u16`: a - b (clamp: saturate at 0). `v_subrev_u16` swaps.
#[inline]
pub fn sub_u16(a: u16, b: u16, clamp: bool) -> u16 {
    if clamp {
        a.saturating_sub(b)
    } else {
        a.wrapping_sub(b)
    }
}
/// `v_add_i16` (VOP3): signed, clamp saturates to i16.
#[inline]
pub fn add_i16(a: u16, b: u16, clamp: bool) -> u16 {
    if clamp {
        (a as i16).saturating_add(b as i16) as u16
    } else {
        a.wrapping_add(b)
    }
}
/// `v_sub_i16` (VOP3): signed, clamp saturates to i16.
#[inline]
pub fn sub_i16(a: u16, b: u16, clamp: bool) -> u16 {
    if clamp {
        (a as i16).saturating_sub(b as i16) as u16
    } else {
        a.wrapping_sub(b)
    }
}
/// `v_mul_lo_u16`: low 16 bits of the product (clamp: saturate).
#[inline]
pub fn mul_lo_u16(a: u16, b: u16, clamp: bool) -> u16 {
    let v = a as u32 * b as u32;
    if clamp {
        v.min(0xffff) as u16
    } else {
        v as u16
    }
}
/// `v_mad_u16` / `v_mad_legacy_u16`: a * b + c mod 2^16 (clamp saturates).
#[inline]
pub fn mad_u16(a: u16, b: u16, c: u16, clamp: bool) -> u16 {
    let v = a as u32 * b as u32 + c as u32;
    if clamp {
        v.min(0xffff) as u16
    } else {
        v as u16
    }
}
/// `v_mad_i16` / `v_mad_legacy_i16`: signed, clamp saturates to i16.
#[inline]
pub fn mad_i16(a: u16, b: u16, c: u16, clamp: bool) -> u16 {
    let v = a as i16 as i32 * b as i16 as i32 + c as i16 as i32;
    if clamp {
        v.clamp(i16::MIN as i32, i16::MAX as i32) as u16
    } else {
        v as u16
    }
}
/// `v_lshlrev_b16`: `val << (shift & 15)`.
#[inline]
pub fn lshlrev_b16(shift: u16, val: u16) -> u16 {
    val << (shift & 15)
}
/// `v_lshrrev_b16`.
#[inline]
pub fn lshrrev_b16(shift: u16, val: u16) -> u16 {
    val >> (shift & 15)
}
/// `v_ashrrev_i16`.
#[inline]
pub fn ashrrev_i16(shift: u16, val: u16) -> u16 {
    ((val as i16) >> (shift & 15)) as u16
}
/// `v_max_i16`.
#[inline]
pub fn max_i16(a: u16, b: u16) -> u16 {
    (a as i16).max(b as i16) as u16
}
/// `v_min_i16`.
#[inline]
pub fn min_i16(a: u16, b: u16) -> u16 {
    (a as i16).min(b as i16) as u16
}
/// `v_max_u16`.
#[inline]
pub fn max_u16(a: u16, b: u16) -> u16 {
    a.max(b)
}
/// `v_min_u16`.
#[inline]
pub fn min_u16(a: u16, b: u16) -> u16 {
    a.min(b)
}

// ---- dot products (VOP3P) ------------------------------------------------------------

/// `v_dot2_i32_i16` / `v_dot2c_i32_i16`: c + a.lo*b.lo + a.hi*b.hi (signed;
/// clamp saturates to i32).
#[inline]
pub fn dot2_i32_i16(a: u32, b: u32, c: u32, clamp: bool) -> u32 {
    let p = |x: u32| x as u16 as i16 as i64;
    let v = c as i32 as i64 + p(a) * p(b) + p(a >> 16) * p(b >> 16);
    if clamp {
        v.clamp(i32::MIN as i64, i32::MAX as i64) as u32
    } else {
        v as u32
    }
}
/// `v_dot2_u32_u16`: unsigned (clamp saturates to u32).
#[inline]
pub fn dot2_u32_u16(a: u32, b: u32, c: u32, clamp: bool) -> u32 {
    let p = |x: u32| (x & 0xffff) as u64;
    let v = c as u64 + p(a) * p(b) + p(a >> 16) * p(b >> 16);
    if clamp {
        v.min(u32::MAX as u64) as u32
    } else {
        v as u32
    }
}
/// `v_dot4_i32_i8` / `v_dot4c_i32_i8`.
#[inline]
pub fn dot4_i32_i8(a: u32, b: u32, c: u32, clamp: bool) -> u32 {
    let mut v = c as i32 as i64;
    for i in 0..4 {
        v += ((a >> (8 * i)) as u8 as i8 as i64) * ((b >> (8 * i)) as u8 as i8 as i64);
    }
    if clamp {
        v.clamp(i32::MIN as i64, i32::MAX as i64) as u32
    } else {
        v as u32
    }
}
/// `v_dot4_u32_u8`.
#[inline]
pub fn dot4_u32_u8(a: u32, b: u32, c: u32, clamp: bool) -> u32 {
    let mut v = c as u64;
    for i in 0..4 {
        v += ((a >> (8 * i)) & 0xff) as u64 * ((b >> (8 * i)) & 0xff) as u64;
    }
    if clamp {
        v.min(u32::MAX as u64) as u32
    } else {
        v as u32
    }
}
/// `v_dot8_i32_i4` / `v_dot8c_i32_i4`.
#[inline]
pub fn dot8_i32_i4(a: u32, b: u32, c: u32, clamp: bool) -> u32 {
    let mut v = c as i32 as i64;
    let n = |x: u32, i: u32| ((((x >> (4 * i)) << 28) as i32) >> 28) as i64;
    for i in 0..8 {
        v += n(a, i) * n(b, i);
    }
    if clamp {
        v.clamp(i32::MIN as i64, i32::MAX as i64) as u32
    } else {
        v as u32
    }
}
/// `v_dot8_u32_u4`.
#[inline]
pub fn dot8_u32_u4(a: u32, b: u32, c: u32, clamp: bool) -> u32 {
    let mut v = c as u64;
    for i in 0..8 {
        v += ((a >> (4 * i)) & 15) as u64 * ((b >> (4 * i)) & 15) as u64;
    }
    if clamp {
        v.min(u32::MAX as u64) as u32
    } else {
        v as u32
    }
}

//! Scalar ALU: SOP1, SOP2, SOPC and SOPK.

use super::*;

/// The SOP1/SOP2/SOPC/SOPK handler of `name`.
pub(super) fn handler(name: &str) -> Option<Handler> {
    Some(match name {
        // ---- SOP1
        "s_mov_b32" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                let v = s32(w, &s);
                s_write32(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        "s_mov_b64" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                let v = s64(w, &s);
                s_write64(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        "s_cmov_b32" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                if w.scc {
                    let v = s32(w, &s);
                    s_write32(w, &d, v);
                }
            }
            Ok(Flow::Continue)
        },
        "s_not_b32" => sop1_32!(|w, a| {
            let r = !a;
            w.scc = r != 0;
            r
        }),
        "s_not_b64" => sop1_64!(|w, a| {
            let r = !a;
            w.scc = r != 0;
            r
        }),
        "s_brev_b32" => sop1_32!(|_w, a| a.reverse_bits()),
        "s_sext_i32_i8" => sop1_32!(|_w, a| a as i8 as i32 as u32),
        "s_sext_i32_i16" => sop1_32!(|_w, a| a as i16 as i32 as u32),
        "s_abs_i32" => sop1_32!(|w, a| {
            let r = (a as i32).wrapping_abs() as u32;
            w.scc = r != 0;
            r
        }),
        "s_bcnt1_i32_b32" => sop1_32!(|w, a| {
            let r = a.count_ones();
            w.scc = r != 0;
            r
        }),
        "s_bcnt1_i32_b64" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                let r = s64(w, &s).count_ones();
                w.scc = r != 0;
                s_write32(w, &d, r);
            }
            Ok(Flow::Continue)
        },
        "s_ff1_i32_b32" => sop1_32!(|_w, a| if a == 0 { u32::MAX } else { a.trailing_zeros() }),
        "s_ff1_i32_b64" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) {
                let a = s64(w, &s);
                s_write32(w, &d, if a == 0 { u32::MAX } else { a.trailing_zeros() });
            }
            Ok(Flow::Continue)
        },
        "s_flbit_i32_b32" => sop1_32!(|_w, a| if a == 0 { u32::MAX } else { a.leading_zeros() }),
        "s_and_saveexec_b64" => saveexec!(|s, e| s & e),
        "s_or_saveexec_b64" => saveexec!(|s, e| s | e),
        "s_xor_saveexec_b64" => saveexec!(|s, e| s ^ e),
        "s_andn2_saveexec_b64" => saveexec!(|s, e| s & !e),
        "s_orn2_saveexec_b64" => saveexec!(|s, e| s | !e),
        // ---- SOP2
        "s_add_u32" => salu32!(
            |a, b| a.wrapping_add(b),
            scc = |r| Some(u64::from(a) + u64::from(b) > 0xffff_ffff)
        ),
        "s_sub_u32" => salu32!(|a, b| a.wrapping_sub(b), scc = |r| Some(b > a)),
        "s_add_i32" => salu32!(
            |a, b| a.wrapping_add(b),
            scc = |r| Some((a as i32).checked_add(b as i32).is_none())
        ),
        "s_sub_i32" => salu32!(
            |a, b| a.wrapping_sub(b),
            scc = |r| Some((a as i32).checked_sub(b as i32).is_none())
        ),
        "s_addc_u32" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            let t = u64::from(s32(w, &s0)) + u64::from(s32(w, &s1)) + u64::from(w.scc);
            w.scc = t > 0xffff_ffff;
            s_write32(w, &d, t as u32);
            Ok(Flow::Continue)
        },
        "s_subb_u32" => |_x, w, _l, _i, c| {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Ok(Flow::Continue);
            };
            let (a, b, ci) = (
                u64::from(s32(w, &s0)),
                u64::from(s32(w, &s1)),
                u64::from(w.scc),
            );
            w.scc = b + ci > a;
            s_write32(w, &d, a.wrapping_sub(b).wrapping_sub(ci) as u32);
            Ok(Flow::Continue)
        },
        "s_mul_i32" => salu32!(|a, b| a.wrapping_mul(b), scc = |r| None),
        "s_mul_hi_u32" => salu32!(
            |a, b| ((u64::from(a) * u64::from(b)) >> 32) as u32,
            scc = |r| None
        ),
        "s_mul_hi_i32" => salu32!(
            |a, b| ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32,
            scc = |r| None
        ),
        "s_and_b32" => salu32!(|a, b| a & b, scc = |r| Some(r != 0)),
        "s_or_b32" => salu32!(|a, b| a | b, scc = |r| Some(r != 0)),
        "s_xor_b32" => salu32!(|a, b| a ^ b, scc = |r| Some(r != 0)),
        "s_andn2_b32" => salu32!(|a, b| a & !b, scc = |r| Some(r != 0)),
        "s_orn2_b32" => salu32!(|a, b| a | !b, scc = |r| Some(r != 0)),
        "s_nand_b32" => salu32!(|a, b| !(a & b), scc = |r| Some(r != 0)),
        "s_nor_b32" => salu32!(|a, b| !(a | b), scc = |r| Some(r != 0)),
        "s_xnor_b32" => salu32!(|a, b| !(a ^ b), scc = |r| Some(r != 0)),
        "s_and_b64" => salu64!(|a, b| a & b, scc = |r| Some(r != 0)),
        "s_or_b64" => salu64!(|a, b| a | b, scc = |r| Some(r != 0)),
        "s_xor_b64" => salu64!(|a, b| a ^ b, scc = |r| Some(r != 0)),
        "s_andn2_b64" => salu64!(|a, b| a & !b, scc = |r| Some(r != 0)),
        "s_orn2_b64" => salu64!(|a, b| a | !b, scc = |r| Some(r != 0)),
        "s_nand_b64" => salu64!(|a, b| !(a & b), scc = |r| Some(r != 0)),
        "s_nor_b64" => salu64!(|a, b| !(a | b), scc = |r| Some(r != 0)),
        "s_xnor_b64" => salu64!(|a, b| !(a ^ b), scc = |r| Some(r != 0)),
        "s_lshl_b32" => salu32!(|a, b| a << (b & 31), scc = |r| Some(r != 0)),
        "s_lshr_b32" => salu32!(|a, b| a >> (b & 31), scc = |r| Some(r != 0)),
        "s_ashr_i32" => salu32!(
            |a, b| ((a as i32) >> (b & 31)) as u32,
            scc = |r| Some(r != 0)
        ),
        "s_lshl_b64" => salu64!(|a, b| a << (b & 63), scc = |r| Some(r != 0)),
        "s_lshr_b64" => salu64!(|a, b| a >> (b & 63), scc = |r| Some(r != 0)),
        "s_ashr_i64" => salu64!(
            |a, b| ((a as i64) >> (b & 63)) as u64,
            scc = |r| Some(r != 0)
        ),
        "s_lshl1_add_u32" => salu32!(
            |a, b| (a << 1).wrapping_add(b),
            scc = |r| Some((u64::from(a) << 1) + u64::from(b) > 0xffff_ffff)
        ),
        "s_lshl2_add_u32" => salu32!(
            |a, b| (a << 2).wrapping_add(b),
            scc = |r| Some((u64::from(a) << 2) + u64::from(b) > 0xffff_ffff)
        ),
        "s_lshl3_add_u32" => salu32!(
            |a, b| (a << 3).wrapping_add(b),
            scc = |r| Some((u64::from(a) << 3) + u64::from(b) > 0xffff_ffff)
        ),
        "s_lshl4_add_u32" => salu32!(
            |a, b| (a << 4).wrapping_add(b),
            scc = |r| Some((u64::from(a) << 4) + u64::from(b) > 0xffff_ffff)
        ),
        "s_min_i32" => salu32!(
            |a, b| (a as i32).min(b as i32) as u32,
            scc = |r| Some((a as i32) < (b as i32))
        ),
        "s_min_u32" => salu32!(|a, b| a.min(b), scc = |r| Some(a < b)),
        "s_max_i32" => salu32!(
            |a, b| (a as i32).max(b as i32) as u32,
            scc = |r| Some((a as i32) > (b as i32))
        ),
        "s_max_u32" => salu32!(|a, b| a.max(b), scc = |r| Some(a > b)),
        "s_cselect_b32" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            {
                let v = if w.scc { s32(w, &s0) } else { s32(w, &s1) };
                s_write32(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        "s_cselect_b64" => |_x, w, _l, _i, c| {
            if let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            {
                let v = if w.scc { s64(w, &s0) } else { s64(w, &s1) };
                s_write64(w, &d, v);
            }
            Ok(Flow::Continue)
        },
        "s_bfe_u32" => salu32!(
            |a, b| bfe_u32(a, b & 31, (b >> 16) & 0x7f),
            scc = |r| Some(r != 0)
        ),
        "s_bfe_i32" => salu32!(
            |a, b| bfe_i32(a, b & 31, (b >> 16) & 0x7f),
            scc = |r| Some(r != 0)
        ),
        "s_bfm_b32" => salu32!(
            |a, b| (((1u64 << (a & 31)) - 1) as u32) << (b & 31),
            scc = |r| None
        ),
        "s_pack_ll_b32_b16" => salu32!(|a, b| (a & 0xffff) | (b << 16), scc = |r| None),
        "s_pack_lh_b32_b16" => salu32!(|a, b| (a & 0xffff) | (b & 0xffff_0000), scc = |r| None),
        "s_pack_hh_b32_b16" => salu32!(|a, b| (a >> 16) | (b & 0xffff_0000), scc = |r| None),
        // ---- SOPC
        "s_cmp_eq_u32" | "s_cmp_eq_i32" => sopc!(|a, b| a == b),
        "s_cmp_lg_u32" | "s_cmp_lg_i32" => sopc!(|a, b| a != b),
        "s_cmp_lt_u32" => sopc!(|a, b| a < b),
        "s_cmp_le_u32" => sopc!(|a, b| a <= b),
        "s_cmp_gt_u32" => sopc!(|a, b| a > b),
        "s_cmp_ge_u32" => sopc!(|a, b| a >= b),
        "s_cmp_lt_i32" => sopc!(|a, b| (a as i32) < (b as i32)),
        "s_cmp_le_i32" => sopc!(|a, b| (a as i32) <= (b as i32)),
        "s_cmp_gt_i32" => sopc!(|a, b| (a as i32) > (b as i32)),
        "s_cmp_ge_i32" => sopc!(|a, b| (a as i32) >= (b as i32)),
        "s_cmp_eq_u64" => |_x, w, _l, _i, c| {
            if let (Some(a), Some(b)) = (c.src(0), c.src(1)) {
                w.scc = s64(w, a) == s64(w, b);
            }
            Ok(Flow::Continue)
        },
        "s_cmp_lg_u64" => |_x, w, _l, _i, c| {
            if let (Some(a), Some(b)) = (c.src(0), c.src(1)) {
                w.scc = s64(w, a) != s64(w, b);
            }
            Ok(Flow::Continue)
        },
        "s_bitcmp1_b32" => sopc!(|a, b| a >> (b & 31) & 1 == 1),
        "s_bitcmp0_b32" => sopc!(|a, b| a >> (b & 31) & 1 == 0),
        // ---- SOPK
        "s_movk_i32" => |_x, w, _l, i, c| {
            if let Some(d) = c.dst(0).copied() {
                let k = i.field(Field::Simm16).unwrap_or(0) as u16 as i16 as i32 as u32;
                s_write32(w, &d, k);
            }
            Ok(Flow::Continue)
        },
        "s_addk_i32" => |_x, w, _l, i, c| {
            if let Some(d) = c.dst(0).copied() {
                let k = i.field(Field::Simm16).unwrap_or(0) as u16 as i16 as i32;
                let a = s32(w, &d) as i32;
                w.scc = a.checked_add(k).is_none();
                s_write32(w, &d, a.wrapping_add(k) as u32);
            }
            Ok(Flow::Continue)
        },
        "s_mulk_i32" => |_x, w, _l, i, c| {
            if let Some(d) = c.dst(0).copied() {
                let k = i.field(Field::Simm16).unwrap_or(0) as u16 as i16 as i32;
                let a = s32(w, &d) as i32;
                s_write32(w, &d, a.wrapping_mul(k) as u32);
            }
            Ok(Flow::Continue)
        },
        "s_cmpk_eq_u32" | "s_cmpk_eq_i32" => sopk_cmp!(|a, k| a == k),
        "s_cmpk_lg_u32" | "s_cmpk_lg_i32" => sopk_cmp!(|a, k| a != k),
        "s_cmpk_lt_u32" => sopk_cmp!(|a, k| a < (k & 0xffff)),
        "s_cmpk_gt_u32" => sopk_cmp!(|a, k| a > (k & 0xffff)),
        "s_cmpk_le_u32" => sopk_cmp!(|a, k| a <= (k & 0xffff)),
        "s_cmpk_ge_u32" => sopk_cmp!(|a, k| a >= (k & 0xffff)),
        "s_cmpk_lt_i32" => sopk_cmp!(|a, k| (a as i32) < (k as i32)),
        "s_cmpk_gt_i32" => sopk_cmp!(|a, k| (a as i32) > (k as i32)),
        "s_cmpk_le_i32" => sopk_cmp!(|a, k| (a as i32) <= (k as i32)),
        "s_cmpk_ge_i32" => sopk_cmp!(|a, k| (a as i32) >= (k as i32)),
        _ => return None,
    })
}

/// `hwreg(id, offset, size)` from a SOPK simm16.
pub(super) fn hwreg(i: &Instruction) -> (u32, u32, u32) {
    let k = i.field(Field::Simm16).unwrap_or(0);
    (k & 0x3f, (k >> 6) & 0x1f, ((k >> 11) & 0x1f) + 1)
}

pub(super) const HW_REG_MODE: u32 = 1;

pub(super) fn mask_bits(n: u32) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

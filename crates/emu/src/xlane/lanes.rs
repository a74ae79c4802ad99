//! Single-lane reads and writes (`v_readlane_b32`, `v_writelane_b32`,
//! `v_readfirstlane_b32`), lane counting (`v_mbcnt_lo/hi_u32_b32`) and lane
//! mask helpers.
//!
//! Pinned rules (CDNA3/CDNA4 ISA pseudocode):
//! * `v_readlane_b32 sdst, vsrc, ssrc1` reads lane `ssrc1[5:0]` (wave64; the
//!   other bits of the lane select are ignored) whatever EXEC is.
//! * `v_writelane_b32 vdst, ssrc0, ssrc1` writes lane `ssrc1[5:0]` whatever
//!   EXEC is.
//! * `v_readfirstlane_b32` reads the lowest lane set in EXEC, or lane 0 when
//!   EXEC is zero ("force lane 0 if all lanes are disabled").
//! * `v_mbcnt_lo_u32_b32 d, s0, s1`: `d = s1 + popcount(s0 & lanes_below[31:0])`,
//!   `v_mbcnt_hi_u32_b32`: the same with `lanes_below[63:32]`, where
//!   `lanes_below = (1 << lane) - 1`.

use crate::wave::{VReg, LANES};

/// `v_readlane_b32`: lane `lane_sel & 63` of `src` (EXEC is ignored).
pub const fn readlane(src: &VReg, lane_sel: u32) -> u32 {
    src[(lane_sel & 63) as usize]
}

/// `v_writelane_b32`: writes `value` to lane `lane_sel & 63` of `dst`
/// (EXEC is ignored).
pub fn writelane(dst: &mut VReg, value: u32, lane_sel: u32) {
    dst[(lane_sel & 63) as usize] = value;
}

/// The lowest lane set in `exec`, or 0 when `exec` is 0.
pub const fn first_active_lane(exec: u64) -> usize {
    if exec == 0 {
        0
    } else {
        exec.trailing_zeros() as usize
    }
}

/// `v_readfirstlane_b32`: `src` in the lowest active lane (lane 0 if none).
pub const fn readfirstlane(src: &VReg, exec: u64) -> u32 {
    src[first_active_lane(exec)]
}

/// The lanes below `lane` as a mask (`(1 << lane) - 1`; all 64 bits for 64).
pub const fn lane_mask_below(lane: usize) -> u64 {
    if lane >= 64 {
        u64::MAX
    } else {
        (1u64 << lane) - 1
    }
}

/// `v_mbcnt_lo_u32_b32` in lane `lane`: `acc + popcount(mask & below[31:0])`.
pub const fn mbcnt_lo(mask: u32, acc: u32, lane: usize) -> u32 {
    acc.wrapping_add((mask & lane_mask_below(lane) as u32).count_ones())
}

/// `v_mbcnt_hi_u32_b32` in lane `lane`: `acc + popcount(mask & below[63:32])`.
pub const fn mbcnt_hi(mask: u32, acc: u32, lane: usize) -> u32 {
    acc.wrapping_add((mask & (lane_mask_below(lane) >> 32) as u32).count_ones())
}

/// Writes the lanes of `vals` selected by `mask` into `dst`.
pub fn write_masked(dst: &mut VReg, vals: &VReg, mask: u64) {
    for l in 0..LANES {
        if mask >> l & 1 == 1 {
            dst[l] = vals[l];
        }
    }
}

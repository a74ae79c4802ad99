//! SDWA selects, ds_swizzle_b32 patterns (checked against LLVM's swizzle
//! macro encodings and independent formulas), ds_permute/ds_bpermute with
//! inactive lanes, readlane/writelane/readfirstlane and mbcnt.
#![allow(clippy::needless_range_loop)] // lanes are indices

use lathe_emu::wave::VReg;
use lathe_emu::xlane::{
    ds_bpermute, ds_permute, ds_swizzle, first_active_lane, lane_mask_below, mbcnt_hi, mbcnt_lo,
    readfirstlane, readlane, sdwa_dst, sdwa_src, swizzle_source_lane, write_masked, writelane,
    DstUnused, SdwaSel, Swizzle,
};

const ALL: u64 = u64::MAX;

fn lanes() -> VReg {
    std::array::from_fn(|l| l as u32)
}

// ---- SDWA ---------------------------------------------------------------

#[test]
fn sdwa_source_selects() {
    let v = 0x8C7B_F281_u32;
    use SdwaSel::*;
    let table = [
        (Byte0, 0x81, 0xFFFF_FF81),
        (Byte1, 0xF2, 0xFFFF_FFF2),
        (Byte2, 0x7B, 0x0000_007B),
        (Byte3, 0x8C, 0xFFFF_FF8C),
        (Word0, 0xF281, 0xFFFF_F281),
        (Word1, 0x8C7B, 0xFFFF_8C7B),
        (Dword, v, v),
    ];
    for (sel, zext, sext) in table {
        assert_eq!(sdwa_src(v, sel, false), zext, "{sel:?}");
        assert_eq!(sdwa_src(v, sel, true), sext, "{sel:?} sext");
    }
    for (code, sel) in [Byte0, Byte1, Byte2, Byte3, Word0, Word1, Dword]
        .iter()
        .enumerate()
    {
        assert_eq!(SdwaSel::decode(code as u8), Some(*sel));
    }
    assert_eq!(SdwaSel::decode(7), None);
    assert_eq!(DstUnused::decode(3), None);
}

#[test]
fn sdwa_destination_selects() {
    use DstUnused::*;
    use SdwaSel::*;
    let old = 0x1234_5678_u32;
    // result with bit 7 and bit 15 set in the low byte/word.
    let r = 0xABCD_9E85_u32;
    let table = [
        (Byte0, Pad, 0x0000_0085),
        (Byte0, Sext, 0xFFFF_FF85),
        (Byte0, Preserve, 0x1234_5685),
        (Byte1, Pad, 0x0000_8500),
        (Byte1, Sext, 0xFFFF_8500),
        (Byte1, Preserve, 0x1234_8578),
        (Byte2, Sext, 0xFF85_0000),
        (Byte3, Pad, 0x8500_0000),
        (Byte3, Sext, 0x8500_0000),
        (Byte3, Preserve, 0x8534_5678),
        (Word0, Sext, 0xFFFF_9E85),
        (Word1, Pad, 0x9E85_0000),
        (Word1, Sext, 0x9E85_0000),
        (Word1, Preserve, 0x9E85_5678),
        (Dword, Pad, r),
        (Dword, Sext, r),
        (Dword, Preserve, r),
    ];
    for (sel, unused, want) in table {
        assert_eq!(sdwa_dst(r, old, sel, unused), want, "{sel:?} {unused:?}");
    }
    // A positive field sign-extends with zeros.
    assert_eq!(sdwa_dst(0x7F, old, Byte1, Sext), 0x0000_7F00);
}

#[test]
fn sdwa_or_from_k_mfma() {
    // clang emits `v_or_b32_sdwa v5, v15, v5 dst_sel:DWORD dst_unused:UNUSED_PAD
    // src0_sel:DWORD src1_sel:BYTE_0` to insert a byte.
    let (a, b) = (0x1122_3300_u32, 0xFFFF_FF44_u32);
    let r = sdwa_src(a, SdwaSel::Dword, false) | sdwa_src(b, SdwaSel::Byte0, false);
    assert_eq!(sdwa_dst(r, 0, SdwaSel::Dword, DstUnused::Pad), 0x1122_3344);
}

// ---- ds_swizzle ---------------------------------------------------------

#[test]
fn swizzle_offsets_llvm_encodes() {
    // Offsets from llvm-mc for LLVM's swizzle() macros.
    // swizzle(QUAD_PERM,1,0,3,2) = 0x80B1.
    assert_eq!(Swizzle::decode(0x80B1), Swizzle::QuadPerm([1, 0, 3, 2]));
    for l in 0..64 {
        assert_eq!(swizzle_source_lane(0x80B1, l), l ^ 1);
    }
    // swizzle(SWAP,16) = 0x401F: exchange 16-lane groups within each half.
    for l in 0..64 {
        assert_eq!(swizzle_source_lane(0x401F, l), l ^ 16);
    }
    // swizzle(REVERSE,8) = 0x1C1F: reverse groups of 8.
    for l in 0..64 {
        assert_eq!(swizzle_source_lane(0x1C1F, l), (l & !7) | (7 - (l & 7)));
    }
    // swizzle(BROADCAST,4,1) = 0x003C: lane 1 of each group of 4.
    for l in 0..64 {
        assert_eq!(swizzle_source_lane(0x003C, l), (l & !3) | 1);
    }
    // swizzle(BITMASK_PERM,"01pi0") = 0x0906: per bit, MSB first: force 0,
    // force 1, preserve, invert, force 0.
    for l in 0usize..64 {
        let want = (l & 0x20) | 0b01000 | (l & 0b00100) | (!l & 0b00010);
        assert_eq!(swizzle_source_lane(0x0906, l), want, "lane {l}");
    }
    // swizzle(ROTATE,1,3) = 0xC460: rotate right by 3 within each half.
    for l in 0..64 {
        assert_eq!(swizzle_source_lane(0xC460, l), (l & 0x20) | ((l + 29) % 32));
    }
    // swizzle(ROTATE,0,5) = 0xC0A0: rotate left by 5.
    for l in 0..64 {
        assert_eq!(swizzle_source_lane(0xC0A0, l), (l & 0x20) | ((l + 5) % 32));
    }
}

#[test]
fn swizzle_bitmask_mode_formula() {
    // Independent formula over every bit-mask offset and lane:
    // j = (((i % 32) & and) | or) ^ xor, in the same 32-lane half.
    for off in (0u16..0x8000).step_by(7) {
        let (and, or, xor) = (off & 31, (off >> 5) & 31, (off >> 10) & 31);
        for l in [0usize, 1, 5, 17, 31, 32, 45, 63] {
            let j = ((((l % 32) as u16 & and) | or) ^ xor) as usize;
            assert_eq!(
                swizzle_source_lane(off, l),
                (l / 32) * 32 + j,
                "{off:#x} lane {l}"
            );
        }
    }
    // Quad mode ignores offset bits 14:8.
    for off in [0x8000u16, 0x801B, 0x80E4, 0xBF4E] {
        for l in 0..64 {
            let sel = (off as usize >> (2 * (l % 4))) & 3;
            assert_eq!(swizzle_source_lane(off, l), (l & !3) + sel);
        }
    }
}

#[test]
fn swizzle_fft_mode() {
    // mask 0x1F: identity; mask 0: 5-bit reversal within each half.
    for l in 0..64 {
        assert_eq!(swizzle_source_lane(0xE01F, l), l);
        let rev = (0..5).fold(0, |r, b| r | ((l >> b) & 1) << (4 - b));
        assert_eq!(swizzle_source_lane(0xE000, l), (l & 0x20) | rev);
    }
    // swizzle(FFT,5): mask 0b00101 keeps bits 0 and 2 and fills the rest
    // from the reversed index shifted right by popcount(mask) = 2.
    for l in 0usize..64 {
        let rev = (0..5).fold(0, |r, b| r | ((l >> b) & 1) << (4 - b));
        let want = (l & 0x20) | (((rev >> 2) | (l & 5)) & 31);
        assert_eq!(swizzle_source_lane(0xE005, l), want);
    }
}

#[test]
fn swizzle_never_crosses_halves_and_zeroes_inactive_sources() {
    for off in (0u16..=0xFFFF).step_by(13) {
        for l in 0..64 {
            assert_eq!(swizzle_source_lane(off, l) / 32, l / 32, "{off:#x}");
        }
    }
    let src: VReg = std::array::from_fn(|l| 100 + l as u32);
    // SWAP,1 with odd lanes inactive: even lanes read odd lanes -> 0.
    let exec = 0x5555_5555_5555_5555;
    let out = ds_swizzle(&src, exec, 0x041F);
    for l in (0..64).step_by(2) {
        assert_eq!(out[l], 0, "lane {l}");
    }
    let out = ds_swizzle(&src, ALL, 0x041F);
    assert_eq!(&out[..4], &[101, 100, 103, 102]);
}

// ---- ds_permute / ds_bpermute -------------------------------------------

#[test]
fn bpermute_gathers_by_byte_address() {
    let data: VReg = std::array::from_fn(|l| 1000 + l as u32);
    // The ISA guide's 4-lane example, scaled: addresses {0, 0, 12, 4}.
    let mut addr = [0u32; 64];
    addr[..4].copy_from_slice(&[0, 0, 12, 4]);
    let out = ds_bpermute(&addr, &data, ALL, 0);
    assert_eq!(&out[..4], &[1000, 1000, 1003, 1001]);
    // EXEC = lanes 1 and 3: lane 1 reads inactive lane 0 -> 0.
    let out = ds_bpermute(&addr, &data, 0b1010, 0);
    assert_eq!((out[1], out[3]), (0, 1001));
    // Only bits 7:2 of (addr + offset) matter; the offset is added first.
    let addr: VReg = std::array::from_fn(|l| ((l as u32) << 2) | 0xFFFF_FF03);
    let out = ds_bpermute(&addr, &data, ALL, 0);
    for l in 0..64 {
        assert_eq!(out[l], 1000 + l as u32);
    }
    let addr: VReg = std::array::from_fn(|l| (l as u32) * 4);
    let out = ds_bpermute(&addr, &data, ALL, 8);
    for l in 0..64 {
        assert_eq!(out[l], 1000 + ((l + 2) % 64) as u32);
    }
}

#[test]
fn bpermute_shuffles_from_k_shfl() {
    // lathe_shfl_xor / shfl_up / rotate as k_shfl.hip builds them.
    let data: VReg = std::array::from_fn(|l| (l as u32).wrapping_mul(2_654_435_761));
    for mask in [1usize, 2, 4, 8, 16, 32] {
        let addr: VReg = std::array::from_fn(|l| ((l ^ mask) << 2) as u32);
        let out = ds_bpermute(&addr, &data, ALL, 0);
        assert!((0..64).all(|l| out[l] == data[l ^ mask]));
    }
    for d in [1usize, 3, 32] {
        let addr: VReg = std::array::from_fn(|l| ((if l >= d { l - d } else { l }) << 2) as u32);
        let out = ds_bpermute(&addr, &data, ALL, 0);
        assert!((0..64).all(|l| out[l] == data[if l >= d { l - d } else { l }]));
    }
    for r in [1usize, 6, 11, 16] {
        let addr: VReg = std::array::from_fn(|l| (((l + r) & 63) << 2) as u32);
        let out = ds_bpermute(&addr, &data, ALL, 0);
        assert!((0..64).all(|l| out[l] == data[(l + r) % 64]));
    }
}

#[test]
fn permute_scatters_highest_sender_wins() {
    let data: VReg = std::array::from_fn(|l| 2000 + l as u32);
    let mut addr = [0u32; 64];
    // ISA example: {0, 0, 12, 4} -> {B, D, 0, C} for lanes 0..3.
    addr[..4].copy_from_slice(&[0, 0, 12, 4]);
    // Lanes 4..63 send to themselves so only lanes 0..3 are interesting.
    for (l, a) in addr.iter_mut().enumerate().skip(4) {
        *a = (l * 4) as u32;
    }
    let out = ds_permute(&addr, &data, ALL, 0);
    assert_eq!(&out[..4], &[2001, 2003, 0, 2002]);
    // EXEC = lanes 1 and 3: lane 1 sends to 0, lane 3 sends to 1.
    let out = ds_permute(&addr, &data, 0b1010, 0);
    assert_eq!(&out[..4], &[2001, 2003, 0, 0]);
    // A full reversal is a permutation and its own inverse.
    let addr: VReg = std::array::from_fn(|l| ((63 - l) * 4) as u32);
    let once = ds_permute(&addr, &data, ALL, 0);
    assert_eq!(ds_permute(&addr, &once, ALL, 0), data);
    assert_eq!(once, ds_bpermute(&addr, &data, ALL, 0));
}

// ---- readlane / writelane / readfirstlane / mbcnt -----------------------

#[test]
fn single_lane_access() {
    let v = lanes();
    assert_eq!(readlane(&v, 17), 17);
    assert_eq!(readlane(&v, 64 + 5), 5, "only lane select bits 5:0 count");
    assert_eq!(readlane(&v, 0xFFFF_FFFF), 63);
    let mut w = v;
    writelane(&mut w, 0xABC, 130);
    assert_eq!(w[2], 0xABC);
    assert_eq!(readfirstlane(&v, 0), 0, "EXEC = 0 reads lane 0");
    assert_eq!(readfirstlane(&v, 1 << 40 | 1 << 50), 40);
    assert_eq!(readfirstlane(&v, 1 << 63), 63);
    assert_eq!(first_active_lane(0), 0);
}

#[test]
fn mbcnt_gives_lane_ids_and_ranks() {
    for l in 0..64 {
        // lathe_lane_id(): mbcnt_hi(~0, mbcnt_lo(~0, 0)).
        assert_eq!(mbcnt_hi(!0, mbcnt_lo(!0, 0, l), l), l as u32);
        assert_eq!(lane_mask_below(l).count_ones(), l as u32);
    }
    assert_eq!(lane_mask_below(64), u64::MAX);
    // Rank among set lanes below (wave_ballot).
    let m: u64 = 0xF0F0_1234_8001_0003;
    for l in 0..64 {
        let r = mbcnt_hi((m >> 32) as u32, mbcnt_lo(m as u32, 0, l), l);
        assert_eq!(r, (m & lane_mask_below(l)).count_ones(), "lane {l}");
    }
    assert_eq!(mbcnt_lo(0xFFFF_FFFF, 10, 3), 13);
}

#[test]
fn write_masked_merges() {
    let mut d = [7u32; 64];
    write_masked(&mut d, &lanes(), 0x8000_0000_0000_0001);
    assert_eq!((d[0], d[1], d[62], d[63]), (0, 7, 7, 63));
}

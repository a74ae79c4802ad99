//! LDS-crossbar lane exchanges that do not access LDS memory:
//! `ds_swizzle_b32`, `ds_permute_b32`, `ds_bpermute_b32`.
//!
//! Pinned rules (CDNA3/CDNA4 ISA, DS instruction pseudocode):
//! * All three write only lanes active in EXEC; the functions here return a
//!   value for every lane (0 where nothing is produced) and the caller writes
//!   the EXEC lanes ([`super::lanes::write_masked`]).
//! * `ds_swizzle_b32`: lane `i` reads lane `j` given by the 16-bit offset
//!   ([`Swizzle`]); a source lane inactive in EXEC reads as 0. The pattern
//!   never crosses the 32-lane halves of the wave (`j |= i & 0x20`).
//! * `ds_bpermute_b32 vdst, vaddr, vdata offset:o`: lane `i` reads lane
//!   `((vaddr[i] + o) / 4) % 64` (a byte address, 32-bit wrapping add); an
//!   inactive source lane reads as 0.
//! * `ds_permute_b32`: each active lane `i` sends `vdata[i]` to lane
//!   `((vaddr[i] + o) / 4) % 64`; inactive lanes send nothing; lanes nobody
//!   sends to receive 0; when several lanes send to the same lane the
//!   highest-numbered sender wins.

use crate::wave::{VReg, LANES};

/// A decoded `ds_swizzle_b32` offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// `offset[15] == 1`, below 0xC000: within each group of 4 lanes, lane
    /// `q` reads lane `sel[q]` (offset bits `2q+1:2q`; LLVM
    /// `swizzle(QUAD_PERM, ...)`).
    QuadPerm([u8; 4]),
    /// `offset[15] == 0`: within each 32-lane half, lane `i` reads
    /// `((i & and) | or) ^ xor` on the low 5 bits (`and` = offset[4:0],
    /// `or` = offset[9:5], `xor` = offset[14:10]; LLVM `BITMASK_PERM`,
    /// `SWAP`, `REVERSE`, `BROADCAST`).
    BitMask {
        /// AND mask.
        and: u8,
        /// OR mask.
        or: u8,
        /// XOR mask.
        xor: u8,
    },
    /// 0xC000–0xDFFF: lane `i` reads `(i & mask) | ((i ± amount) & !mask)`
    /// on the low 5 bits (`mask` = offset[4:0], `amount` = offset[9:5],
    /// `right` = offset[10] subtracts; LLVM `swizzle(ROTATE, dir, n)`).
    Rotate {
        /// Lane bits that do not rotate.
        mask: u8,
        /// Rotation amount (0–31).
        amount: u8,
        /// Rotate towards higher lanes (lane `i` reads `i - amount`).
        right: bool,
    },
    /// 0xE000–0xFFFF: lane `i` reads `(rev5(i) >> popcount(mask)) | (i &
    /// mask)` on the low 5 bits, `rev5` reversing 5 bits (`mask` =
    /// offset[4:0]; LLVM `swizzle(FFT, n)`).
    Fft {
        /// FFT stage mask.
        mask: u8,
    },
}

impl Swizzle {
    /// Decodes a `ds_swizzle_b32` offset (every 16-bit value means
    /// something).
    pub const fn decode(offset: u16) -> Swizzle {
        if offset >= 0xE000 {
            Swizzle::Fft {
                mask: (offset & 0x1F) as u8,
            }
        } else if offset >= 0xC000 {
            Swizzle::Rotate {
                mask: (offset & 0x1F) as u8,
                amount: ((offset >> 5) & 0x1F) as u8,
                right: (offset >> 10) & 1 == 1,
            }
        } else if offset & 0x8000 != 0 {
            Swizzle::QuadPerm([
                (offset & 3) as u8,
                ((offset >> 2) & 3) as u8,
                ((offset >> 4) & 3) as u8,
                ((offset >> 6) & 3) as u8,
            ])
        } else {
            Swizzle::BitMask {
                and: (offset & 0x1F) as u8,
                or: ((offset >> 5) & 0x1F) as u8,
                xor: ((offset >> 10) & 0x1F) as u8,
            }
        }
    }

    /// The lane lane `lane` reads.
    pub fn source_lane(self, lane: usize) -> usize {
        let half = lane & 0x20;
        let i = lane & 0x1F;
        match self {
            Swizzle::QuadPerm(s) => (lane & !3) + usize::from(s[lane & 3] & 3),
            Swizzle::BitMask { and, or, xor } => {
                half | ((((i & usize::from(and)) | usize::from(or)) ^ usize::from(xor)) & 0x1F)
            }
            Swizzle::Rotate {
                mask,
                amount,
                right,
            } => {
                let m = usize::from(mask & 0x1F);
                let r = usize::from(amount & 0x1F);
                let moved = if right { i + 32 - r } else { i + r };
                half | (i & m) | (moved & !m & 0x1F)
            }
            Swizzle::Fft { mask } => {
                let m = usize::from(mask & 0x1F);
                let rev = (i.reverse_bits() >> (usize::BITS - 5)) & 0x1F;
                half | (((rev >> m.count_ones()) | (i & m)) & 0x1F)
            }
        }
    }
}

/// The lane lane `lane` reads under `ds_swizzle_b32 offset:offset`.
pub fn swizzle_source_lane(offset: u16, lane: usize) -> usize {
    Swizzle::decode(offset).source_lane(lane)
}

/// `ds_swizzle_b32`: every lane's result (0 where the source lane is
/// inactive). Write the EXEC lanes.
pub fn ds_swizzle(src: &VReg, exec: u64, offset: u16) -> VReg {
    let sw = Swizzle::decode(offset);
    let mut out = [0u32; LANES];
    for (l, o) in out.iter_mut().enumerate() {
        let j = sw.source_lane(l);
        if exec >> j & 1 == 1 {
            *o = src[j];
        }
    }
    out
}

/// The lane `ds_bpermute_b32` makes a lane with address `addr` read.
pub const fn bpermute_source_lane(addr: u32, offset: u16) -> usize {
    (addr.wrapping_add(offset as u32) / 4 % 64) as usize
}

/// The lane `ds_permute_b32` makes a lane with address `addr` write.
pub const fn permute_dest_lane(addr: u32, offset: u16) -> usize {
    bpermute_source_lane(addr, offset)
}

/// `ds_bpermute_b32` (backward permute, a gather): every lane's result (0
/// where the source lane is inactive). Write the EXEC lanes.
pub fn ds_bpermute(addr: &VReg, data: &VReg, exec: u64, offset: u16) -> VReg {
    let mut out = [0u32; LANES];
    for (l, o) in out.iter_mut().enumerate() {
        let s = bpermute_source_lane(addr[l], offset);
        if exec >> s & 1 == 1 {
            *o = data[s];
        }
    }
    out
}

/// `ds_permute_b32` (forward permute, a scatter): every lane's result (0
/// where no active lane sent anything; the highest sender wins). Write the
/// EXEC lanes.
pub fn ds_permute(addr: &VReg, data: &VReg, exec: u64, offset: u16) -> VReg {
    let mut out = [0u32; LANES];
    for l in 0..LANES {
        if exec >> l & 1 == 1 {
            out[permute_dest_lane(addr[l], offset)] = data[l];
        }
    }
    out
}

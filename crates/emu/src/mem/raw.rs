//! Host-side primitives under the access path: the read-modify-write
//! rule and the relaxed-atomic copies between device bytes and buffers
//! (the memory-model rules are in the module docs of [`super`]).

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering};

use super::AtomicOp;

/// The new value of a `size`-byte (4 or 8) read-modify-write of `cur` with
/// operand `v`, or `None` when nothing is written (a failed compare and
/// swap). Values are zero-extended; signed and float operations interpret
/// the low `size` bytes. Shared by device-memory and LDS atomics.
pub fn rmw(op: AtomicOp, cur: u64, v: u64, size: u32) -> Option<u64> {
    let wide = size == 8;
    let mask = if wide { u64::MAX } else { 0xffff_ffff };
    let (cur, v) = (cur & mask, v & mask);
    let sx = |x: u64| {
        if wide {
            x as i64
        } else {
            x as u32 as i32 as i64
        }
    };
    let fp = |f: fn(f64, f64) -> f64| {
        if wide {
            f(f64::from_bits(cur), f64::from_bits(v)).to_bits()
        } else {
            u64::from(
                (f(
                    f64::from(f32::from_bits(cur as u32)),
                    f64::from(f32::from_bits(v as u32)),
                ) as f32)
                    .to_bits(),
            )
        }
    };
    let r = match op {
        AtomicOp::Swap => v,
        AtomicOp::CmpSwap(cmp) => {
            if cur == cmp & mask {
                v
            } else {
                return None;
            }
        }
        AtomicOp::Add => cur.wrapping_add(v),
        AtomicOp::Sub => cur.wrapping_sub(v),
        AtomicOp::SMin => sx(cur).min(sx(v)) as u64,
        AtomicOp::UMin => cur.min(v),
        AtomicOp::SMax => sx(cur).max(sx(v)) as u64,
        AtomicOp::UMax => cur.max(v),
        AtomicOp::And => cur & v,
        AtomicOp::Or => cur | v,
        AtomicOp::Xor => cur ^ v,
        AtomicOp::Inc => {
            if cur >= v {
                0
            } else {
                cur + 1
            }
        }
        AtomicOp::Dec => {
            if cur == 0 || cur > v {
                v
            } else {
                cur - 1
            }
        }
        // An f32 sum computed in f64 and rounded once equals the f32 sum.
        AtomicOp::FAdd => fp(|a, b| a + b),
        AtomicOp::FMin => fp(f64::min),
        AtomicOp::FMax => fp(f64::max),
    };
    Some(r & mask)
}

/// Loads `nd` (1–4) little-endian dwords of one lane from the 4-aligned
/// `p` (see [`load_dwords_atomic`]).
///
/// # Safety
/// As for [`load_dwords_atomic`] with `out.len() = nd`.
#[inline(always)]
pub(super) unsafe fn load_lane_dwords(p: *const u8, nd: usize) -> [u32; 4] {
    let mut v = [0u32; 4];
    // SAFETY: the caller's guarantee, for `nd` dwords.
    unsafe { load_dwords_atomic(p, &mut v[..nd]) };
    v
}

/// Loads `out.len()` little-endian dwords from the 4-aligned `p`. Each
/// dword pair at an 8-aligned address is read with one 64-bit atomic load,
/// so a naturally aligned 64-bit access is single-copy atomic across host
/// threads, as on the hardware (`global_load_dwordx2` of a value another
/// wave stores with `global_store_dwordx2` is never torn).
///
/// # Safety
/// `p` must be 4-aligned and `p..p+4*out.len()` valid, live memory that is
/// only ever accessed atomically (or not concurrently).
#[inline(always)]
pub(super) unsafe fn load_dwords_atomic(p: *const u8, out: &mut [u32]) {
    let nd = out.len();
    let mut k = 0;
    while k < nd {
        let q = p.wrapping_add(4 * k);
        // SAFETY (both arms): the caller guarantees `p..p+4nd` is valid and
        // `p` 4-aligned; the 64-bit arm reads dwords `k, k+1` (both inside)
        // at an 8-aligned address, the 32-bit arm dword `k`.
        unsafe {
            if k + 1 < nd && (q as usize) % 8 == 0 {
                let d = u64::from_le(AtomicU64::from_ptr(q as *mut u64).load(Ordering::Relaxed));
                out[k] = d as u32;
                out[k + 1] = (d >> 32) as u32;
                k += 2;
            } else {
                out[k] = u32::from_le(AtomicU32::from_ptr(q as *mut u32).load(Ordering::Relaxed));
                k += 1;
            }
        }
    }
}

/// Stores one lane's dwords `v` at the 4-aligned `p`, each dword pair at an
/// 8-aligned address with one 64-bit atomic store (see [`load_dwords_atomic`]).
///
/// # Safety
/// As for [`load_dwords_atomic`], with `v.len()` dwords, and the memory
/// must be writable.
#[inline(always)]
pub(super) unsafe fn store_lane_dwords(p: *mut u8, v: &[u32]) {
    let nd = v.len();
    let mut k = 0;
    while k < nd {
        let q = p.wrapping_add(4 * k);
        // SAFETY (both arms): as in `load_dwords_atomic`.
        unsafe {
            if k + 1 < nd && (q as usize) % 8 == 0 {
                let d = u64::from(v[k]) | (u64::from(v[k + 1]) << 32);
                AtomicU64::from_ptr(q as *mut u64).store(d.to_le(), Ordering::Relaxed);
                k += 2;
            } else {
                AtomicU32::from_ptr(q as *mut u32).store(v[k].to_le(), Ordering::Relaxed);
                k += 1;
            }
        }
    }
}

/// The lanes set in `mask`, lowest first.
pub(super) fn set_lanes(mask: u64) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            l
        })
    })
}

/// Copies from device bytes at `src` into `dst` with relaxed atomic loads,
/// using the widest naturally aligned width available.
///
/// # Safety
/// `src..src+dst.len()` must be valid, live memory that is only ever
/// accessed atomically (or not concurrently).
pub(super) unsafe fn atomic_copy_from(src: *const u8, dst: &mut [u8]) {
    let mut i = 0;
    let n = dst.len();
    while i < n {
        let p = src.wrapping_add(i);
        let rem = n - i;
        // SAFETY (all arms): the caller guarantees `p..p+rem` is valid; each
        // arm reads at most `rem` bytes at an address aligned for the type.
        unsafe {
            if rem >= 8 && (p as usize) % 8 == 0 {
                let v = AtomicU64::from_ptr(p as *mut u64).load(Ordering::Relaxed);
                dst[i..i + 8].copy_from_slice(&v.to_le_bytes());
                i += 8;
            } else if rem >= 4 && (p as usize) % 4 == 0 {
                let v = AtomicU32::from_ptr(p as *mut u32).load(Ordering::Relaxed);
                dst[i..i + 4].copy_from_slice(&v.to_le_bytes());
                i += 4;
            } else if rem >= 2 && (p as usize) % 2 == 0 {
                let v = AtomicU16::from_ptr(p as *mut u16).load(Ordering::Relaxed);
                dst[i..i + 2].copy_from_slice(&v.to_le_bytes());
                i += 2;
            } else {
                dst[i] = AtomicU8::from_ptr(p as *mut u8).load(Ordering::Relaxed);
                i += 1;
            }
        }
    }
}

/// Copies `src` to device bytes at `dst` with relaxed atomic stores.
///
/// # Safety
/// As for [`atomic_copy_from`], and the memory must be writable.
pub(super) unsafe fn atomic_copy_to(dst: *mut u8, src: &[u8]) {
    let mut i = 0;
    let n = src.len();
    while i < n {
        let p = dst.wrapping_add(i);
        let rem = n - i;
        // SAFETY (all arms): as in `atomic_copy_from`.
        unsafe {
            if rem >= 8 && (p as usize) % 8 == 0 {
                let mut b = [0u8; 8];
                b.copy_from_slice(&src[i..i + 8]);
                AtomicU64::from_ptr(p as *mut u64).store(u64::from_le_bytes(b), Ordering::Relaxed);
                i += 8;
            } else if rem >= 4 && (p as usize) % 4 == 0 {
                let mut b = [0u8; 4];
                b.copy_from_slice(&src[i..i + 4]);
                AtomicU32::from_ptr(p as *mut u32).store(u32::from_le_bytes(b), Ordering::Relaxed);
                i += 4;
            } else if rem >= 2 && (p as usize) % 2 == 0 {
                AtomicU16::from_ptr(p as *mut u16)
                    .store(u16::from_le_bytes([src[i], src[i + 1]]), Ordering::Relaxed);
                i += 2;
            } else {
                AtomicU8::from_ptr(p).store(src[i], Ordering::Relaxed);
                i += 1;
            }
        }
    }
}

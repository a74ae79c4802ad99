//! `MemView::gather_dwords`/`scatter_dwords` under a full EXEC with
//! scattered (not unit-stride) addresses, the whole-wave loop D84 added:
//! against lane-by-lane `load_u32`/`store_u32` of the same addresses, with
//! repeated addresses (the later lane's store wins), wider loads,
//! misaligned addresses (the per-lane path) and a wave reaching past its
//! allocation (refused whole; `gather` then names the first faulting lane,
//! as before).

use lathe_emu::mem::{AccessKind, DeviceMemory, Fault, RegionKind};

/// A permutation-with-repeats of dword slots in `0..slots`, from a fixed
/// seed (an LCG: the test needs no randomness source).
fn slots(seed: u32, slots: u32) -> [u64; 64] {
    let mut x = seed;
    std::array::from_fn(|_| {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        u64::from((x >> 8) % slots)
    })
}

#[test]
fn whole_wave_gathers_read_each_lanes_own_address() {
    let mem = DeviceMemory::new();
    let len = 1024u64;
    let a = mem.allocate(len, 256, RegionKind::Device).expect("alloc");
    let mut v = mem.view();
    for k in 0..len / 4 {
        v.store_u32(a + 4 * k, 0x1000_0000 | ((k as u32) * 7))
            .expect("in bounds");
    }
    for seed in 0..20 {
        let idx = slots(seed, 256);
        let addrs = idx.map(|s| a + 4 * s);
        let mut out = [[0u32; 64]];
        assert!(v.gather_dwords(&addrs, u64::MAX, &mut out));
        for l in 0..64 {
            assert_eq!(Ok(out[0][l]), v.load_u32(addrs[l]), "seed {seed} lane {l}");
        }
        // Two and three dwords per lane, 4-aligned starts.
        for nd in [2usize, 3] {
            let idx = slots(seed + 100, 256 - nd as u32);
            let addrs = idx.map(|s| a + 4 * s);
            let mut out = vec![[0u32; 64]; nd];
            assert!(v.gather_dwords(&addrs, u64::MAX, &mut out));
            for l in 0..64 {
                for (k, o) in out.iter().enumerate() {
                    let want = v.load_u32(addrs[l] + 4 * k as u64);
                    assert_eq!(Ok(o[l]), want, "nd {nd} seed {seed} lane {l} dword {k}");
                }
            }
        }
        // Misaligned starts (2 bytes in): the per-lane path, same values.
        let addrs2 = idx.map(|s| a + 2 + 4 * (s % 255));
        assert!(v.gather_dwords(&addrs2, u64::MAX, &mut out));
        for l in 0..64 {
            assert_eq!(Ok(out[0][l]), v.load_u32(addrs2[l]), "misaligned lane {l}");
        }
    }
}

#[test]
fn whole_wave_scatters_write_in_lane_order() {
    let mem = DeviceMemory::new();
    let len = 256u64;
    let a = mem.allocate(len, 256, RegionKind::Device).expect("alloc");
    let b = mem.allocate(len, 256, RegionKind::Device).expect("alloc");
    let mut v = mem.view();
    for seed in 0..20 {
        // 64 lanes over 16 dwords: many repeats.
        let idx = slots(seed, 16);
        let data = [std::array::from_fn(|l| seed << 16 | l as u32)];
        assert!(v.scatter_dwords(&idx.map(|s| a + 4 * s), u64::MAX, &data));
        // The reference: lane by lane, in order, into the other buffer.
        for l in 0..64 {
            v.store_u32(b + 4 * idx[l], data[0][l]).expect("in bounds");
        }
        for k in 0..16 {
            assert_eq!(
                v.load_u32(a + 4 * k),
                v.load_u32(b + 4 * k),
                "seed {seed} dword {k}"
            );
        }
    }
}

#[test]
fn a_whole_wave_gather_past_the_end_is_refused_and_the_first_lane_named() {
    let mem = DeviceMemory::new();
    let a = mem.allocate(256, 256, RegionKind::Device).expect("alloc");
    let mut v = mem.view();
    let mut addrs = slots(7, 64).map(|s| a + 4 * s);
    addrs[11] = a + 256;
    addrs[40] = a + 260;
    let mut out = [[0u32; 64]];
    assert!(!v.gather_dwords(&addrs, u64::MAX, &mut out));
    assert!(!v.scatter_dwords(&addrs, u64::MAX, &out));
    let mut bytes = [[0u8; 16]; 64];
    let (lane, fault) = v
        .gather(&addrs, u64::MAX, 4, &mut bytes)
        .expect_err("lane 11 is past the end");
    assert_eq!(lane, 11);
    assert!(
        matches!(fault, Fault::Unmapped { addr, size: 4, kind: AccessKind::Read, .. } if addr == a + 256),
        "{fault:?}"
    );
}

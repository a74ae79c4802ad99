//! Tests of the allocation table and the access paths.

use super::*;

#[test]
fn load_store_roundtrip_and_bounds() {
    let mem = DeviceMemory::new();
    let a = mem.allocate(64, 256, RegionKind::Device).expect("alloc");
    assert_eq!(a % 256, 0);
    let mut v = mem.view();
    v.store_u32(a + 60, 0xdead_beef).expect("in bounds");
    assert_eq!(v.load_u32(a + 60), Ok(0xdead_beef));
    // Unaligned 8-byte access inside the region works.
    v.store_u64(a + 3, 0x0102_0304_0506_0708)
        .expect("in bounds");
    assert_eq!(v.load_u64(a + 3), Ok(0x0102_0304_0506_0708));
    // One byte past the end faults with the nearest allocation named.
    match v.load_u32(a + 61) {
        Err(Fault::Unmapped {
            addr,
            size: 4,
            kind: AccessKind::Read,
            nearest: Some((s, 64)),
        }) => {
            assert_eq!(addr, a + 61);
            assert_eq!(s, a);
        }
        other => panic!("expected an unmapped fault, got {other:?}"),
    }
    assert!(matches!(
        v.store_u32(0x10, 1),
        Err(Fault::Unmapped {
            kind: AccessKind::Write,
            ..
        })
    ));
}

#[test]
fn gather_scatter_lanes_and_first_faulting_lane() {
    let mem = DeviceMemory::new();
    let a = mem
        .allocate(64 * 4, 256, RegionKind::Device)
        .expect("alloc");
    let mut v = mem.view();
    let mut addrs = [0u64; 64];
    let mut data = [[0u8; 16]; 64];
    for l in 0..64 {
        // Reversed lane order, 4 bytes each.
        addrs[l] = a + (63 - l as u64) * 4;
        data[l][..4].copy_from_slice(&(l as u32 * 3).to_le_bytes());
    }
    let exec = 0xffff_0000_ffff_fff0;
    v.scatter(&addrs, exec, 4, &data).expect("in bounds");
    let mut out = [[0u8; 16]; 64];
    v.gather(&addrs, u64::MAX, 4, &mut out).expect("in bounds");
    for (l, o) in out.iter().enumerate() {
        let want = if exec >> l & 1 == 1 { l as u32 * 3 } else { 0 };
        assert_eq!(o[..4], want.to_le_bytes(), "lane {l}");
    }
    // Lanes 5 and 9 out of bounds: lane 5 is reported, lanes before it
    // were written, none after.
    addrs[5] = a + 64 * 4;
    addrs[9] = a - 4;
    let mut data2 = data;
    for d in data2.iter_mut() {
        d[..4].copy_from_slice(&7u32.to_le_bytes());
    }
    let (lane, fault) = v.scatter(&addrs, u64::MAX, 4, &data2).expect_err("oob");
    assert_eq!(lane, 5);
    assert!(
        matches!(fault, Fault::Unmapped { addr, size: 4, kind: AccessKind::Write, .. } if addr == a + 256)
    );
    assert_eq!(v.load_u32(addrs[4]), Ok(7));
    assert_eq!(v.load_u32(addrs[6]), Ok(6 * 3));
    let (lane, _) = v.gather(&addrs, !(1 << 5), 4, &mut out).expect_err("oob");
    assert_eq!(lane, 9);
}

#[test]
fn unit_stride_dwords_go_straight_between_registers_and_memory() {
    let mem = DeviceMemory::new();
    let a = mem
        .allocate(64 * 8, 256, RegionKind::Device)
        .expect("alloc");
    let mut v = mem.view();
    // dwordx2 per lane, lanes in order: the unit-stride path.
    let addrs: [u64; 64] = std::array::from_fn(|l| a + 8 * l as u64);
    let data: Vec<[u32; 64]> = (0..2)
        .map(|k| std::array::from_fn(|l| (l as u32) << 8 | k))
        .collect();
    assert!(v.scatter_dwords(&addrs, u64::MAX, &data));
    assert_eq!(v.load_u64(a + 8 * 5), Ok(5 << 8 | (5 << 8 | 1) << 32));
    let mut out = vec![[0u32; 64]; 2];
    assert!(v.gather_dwords(&addrs, u64::MAX, &mut out));
    assert_eq!(out, data);
    // One dword per lane over the same bytes reads them in order.
    let addrs1: [u64; 64] = std::array::from_fn(|l| a + 4 * l as u64);
    let mut one = [[0u32; 64]];
    assert!(v.gather_dwords(&addrs1, u64::MAX, &mut one));
    assert_eq!(one[0][3], (1 << 8) | 1);
    // A stride run past the region's end is refused as a whole (the
    // caller's general path then names the first faulting lane).
    let past: [u64; 64] = std::array::from_fn(|l| a + 8 + 8 * l as u64);
    assert!(!v.gather_dwords(&past, u64::MAX, &mut out));
    assert!(!v.scatter_dwords(&past, u64::MAX, &data));
    assert_eq!(v.load_u64(a + 8), Ok(1 << 8 | (1 << 8 | 1) << 32));
}

#[test]
fn host_alias_reaches_the_host_bytes_at_another_address() {
    let mem = DeviceMemory::new();
    let mut host = vec![0u8; 64];
    host[8] = 0x5a;
    let device = 0x7000_0000_0000u64;
    // SAFETY: `host` outlives the registration (freed below first).
    let d =
        unsafe { mem.register_host_alias(device, host.as_mut_ptr(), 64, true, RegionKind::Host) }
            .expect("alias");
    assert_eq!(d, device);
    let mut v = mem.view();
    assert_eq!(v.load::<1>(device + 8), Ok([0x5a]));
    v.store_u32(device + 16, 0x0102_0304).expect("store");
    drop(v);
    assert!(mem.view().load_u32(device + 64).is_err());
    mem.free(device).expect("free");
    assert_eq!(host[16..20], [4, 3, 2, 1]);
}

#[test]
fn freed_memory_faults_but_cached_views_stay_sound() {
    let mem = DeviceMemory::new();
    let a = mem.allocate(16, 256, RegionKind::Device).expect("alloc");
    let mut v = mem.view();
    v.store_u32(a, 7).expect("store");
    mem.free(a).expect("free");
    assert_eq!(mem.region_count(), 0);
    // A fresh view sees the free.
    assert!(matches!(
        mem.view().load_u32(a),
        Err(Fault::Unmapped { addr, size: 4, .. }) if addr == a
    ));
    assert_eq!(mem.free(a), Err(MemError::NotAllocated(a)));
}

#[test]
fn atomics() {
    let mem = DeviceMemory::new();
    let a = mem.allocate(16, 256, RegionKind::Device).expect("alloc");
    let mut v = mem.view();
    assert_eq!(v.atomic(a, 4, AtomicOp::Add, 5), Ok(0));
    assert_eq!(v.atomic(a, 4, AtomicOp::SMax, (-3i32) as u32 as u64), Ok(5));
    assert_eq!(
        v.atomic(a, 4, AtomicOp::CmpSwap(4), 9),
        Ok(5),
        "failed CAS keeps value"
    );
    assert_eq!(v.atomic(a, 4, AtomicOp::CmpSwap(5), 9), Ok(5));
    assert_eq!(v.load_u32(a), Ok(9));
    assert_eq!(v.atomic(a, 4, AtomicOp::Inc, 9), Ok(9));
    assert_eq!(v.load_u32(a), Ok(0), "inc wraps past the operand");
    assert_eq!(
        v.atomic(a + 2, 4, AtomicOp::Add, 1),
        Err(Fault::Misaligned {
            addr: a + 2,
            size: 4
        })
    );
    v.store_u64(a + 8, 1.5f64.to_bits()).expect("store");
    v.atomic(a + 8, 8, AtomicOp::FAdd, 2.25f64.to_bits())
        .expect("fadd");
    assert_eq!(f64::from_bits(v.load_u64(a + 8).expect("load")), 3.75);
}

#[test]
fn parallel_atomic_adds_are_exact() {
    let mem = DeviceMemory::new();
    let a = mem.allocate(4, 256, RegionKind::Device).expect("alloc");
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let mut v = mem.view();
                for _ in 0..10_000 {
                    v.atomic(a, 4, AtomicOp::Add, 1).expect("add");
                }
            });
        }
    });
    assert_eq!(mem.view().load_u32(a), Ok(40_000));
}

#[test]
fn registered_host_memory_and_overlap() {
    let mem = DeviceMemory::new();
    let mut host = vec![0u8; 32];
    let p = host.as_mut_ptr();
    // SAFETY: `host` outlives every use of the region and is freed from
    // the table before it is dropped.
    let a = unsafe { mem.register_host(p, 32, false, RegionKind::Host) }.expect("register");
    assert_eq!(a, p as usize as u64);
    // SAFETY: as above; this call must fail without registering.
    let again = unsafe { mem.register_host(p.wrapping_add(8), 8, true, RegionKind::Host) };
    assert!(matches!(again, Err(MemError::Overlap { .. })));
    let mut v = mem.view();
    assert!(matches!(
        v.store_u32(a, 1),
        Err(Fault::ReadOnly {
            region: RegionKind::Host,
            ..
        })
    ));
    assert_eq!(v.load_u32(a), Ok(0));
    drop(v);
    mem.free(a).expect("free");
    drop(host);
}

#[test]
fn touch_tracking_notes_each_lanes_page_only_while_on() {
    let mem = DeviceMemory::new();
    let a = mem
        .allocate(64 << 12, 4096, RegionKind::Device)
        .expect("alloc");
    let page = |off: u64| (a + off) >> TOUCH_PAGE_SHIFT;
    // Off: a view notes nothing (and no tracker exists).
    mem.view().store_u32(a, 1).expect("store");
    let t = mem.track_touches();
    {
        let mut v = mem.view();
        assert_eq!(v.load_u32(a + 5 * 4096 + 8), Ok(0));
        // An 8-byte store straddling pages 9 and 10.
        v.store_u64(a + 10 * 4096 - 4, 7).expect("store");
        // Two scattered lanes, 40 pages apart: their pages, not the span.
        let mut addrs = [0u64; 64];
        addrs[0] = a + 20 * 4096;
        addrs[1] = a + 60 * 4096 + 100;
        let mut out = [[0u8; 16]; 64];
        v.gather(&addrs, 0b11, 4, &mut out).expect("gather");
        // A whole wave's unit-stride dwords: 256 bytes in page 30.
        let addrs: [u64; 64] = std::array::from_fn(|l| a + 30 * 4096 + 4 * l as u64);
        let mut regs = [[0u32; 64]];
        assert!(v.gather_dwords(&addrs, u64::MAX, &mut regs));
        v.atomic(a + 33 * 4096, 4, AtomicOp::Add, 1)
            .expect("atomic");
    }
    mem.stop_tracking();
    mem.view().store_u32(a + 50 * 4096, 1).expect("store");
    let want: Vec<u64> = [5, 9, 10, 20, 30, 33, 60]
        .iter()
        .map(|&p| page(p * 4096))
        .collect();
    assert_eq!(t.pages(), want);
}

/// An access that starts 1 byte, 1 page, 4 KiB or up to [`GUARD`] past the
/// end of an allocation faults naming that allocation, whatever the sizes
/// and alignments of it and of the allocations made around it (D63: with
/// heap placement, a neighbour could sit right there).
#[test]
fn accesses_past_the_end_fault_naming_the_allocation_whatever_the_sizes() {
    let mem = DeviceMemory::new();
    let sizes = [
        1u64, 4, 63, 64, 255, 256, 4092, 4095, 4096, 4097, 8192, 65536, 100_003,
    ];
    let mut allocs = Vec::new();
    for round in 0..6u64 {
        for (i, &len) in sizes.iter().enumerate() {
            let align = if (i as u64 + round) % 3 == 0 {
                4096
            } else {
                256
            };
            let a = mem.allocate(len, align, RegionKind::Device).expect("alloc");
            assert_eq!(a % align, 0);
            allocs.push((a, len));
        }
    }
    // Some host memory registered in between, as `lathe exec` does.
    let mut host = vec![0u8; 3 * 4096];
    // SAFETY: `host` outlives every access below and is unregistered
    // before it is dropped.
    let h = unsafe { mem.register_host(host.as_mut_ptr(), 3 * 4096, true, RegionKind::Host) }
        .expect("register");
    let mut v = mem.view();
    for &(a, len) in &allocs {
        // The last bytes are there.
        v.store(a + len - 1, [0x5a]).expect("last byte");
        let end = a + len;
        let page_end = end.next_multiple_of(4096);
        let offsets = [
            0,
            1,
            page_end - end,
            page_end - end + 4096,
            4096,
            4096 + 1,
            GUARD - 4,
            page_end - end + GUARD - 4,
        ];
        for off in offsets {
            let named = |r: Result<(), Fault>, at: u64, what: &str| match r {
                Err(Fault::Unmapped {
                    addr,
                    nearest: Some(n),
                    ..
                }) => {
                    assert_eq!(addr, at, "{what} {off} past {len} bytes");
                    assert_eq!(n, (a, len), "{what} {off} past {len} bytes names it");
                }
                other => panic!("{what} {off} past a {len}-byte allocation: {other:?}"),
            };
            let at = end + off;
            named(v.load_u32(at).map(drop), at, "read");
            named(v.store_u32(at, 1), at, "write");
            let at4 = at.next_multiple_of(4);
            named(v.atomic(at4, 4, AtomicOp::Add, 1).map(drop), at4, "atomic");
        }
        // A wave whose lanes store bytes 4 KiB apart from the last byte on:
        // lane 1 is the first faulting lane.
        let addrs: [u64; 64] = std::array::from_fn(|l| end - 1 + 4096 * l as u64);
        let data = [[7u8; 16]; 64];
        match v.scatter(&addrs, u64::MAX, 1, &data) {
            Err((lane, Fault::Unmapped { nearest, .. })) => {
                assert_eq!(lane, 1, "first faulting lane past {len} bytes");
                assert_eq!(nearest, Some((a, len)));
            }
            other => panic!("scatter past {len} bytes: {other:?}"),
        }
    }
    drop(v);
    mem.free(h).expect("unregister");
    drop(host);
    for &(a, _) in &allocs {
        mem.free(a).expect("free");
    }
    assert_eq!(mem.region_count(), 0);
}

/// Owned allocations are zeroed, aligned, usable to their last byte, and
/// their memory goes back when the last view lets go (quarantine keeps it).
#[test]
fn owned_pages_zeroed_aligned_and_kept_under_quarantine() {
    let mem = DeviceMemory::new();
    for &(len, align) in &[
        (1u64, 256u64),
        (5000, 4096),
        (3 << 20, 1 << 16),
        (64, 1 << 21),
    ] {
        let a = mem.allocate(len, align, RegionKind::Device).expect("alloc");
        assert_eq!(a % align, 0);
        let mut buf = vec![1u8; len as usize];
        let mut v = mem.view();
        v.read_bytes(a, &mut buf).expect("read");
        assert!(buf.iter().all(|&b| b == 0), "{len} bytes zeroed");
        v.write_bytes(a, &vec![0xab; len as usize]).expect("write");
        assert_eq!(v.load::<1>(a + len - 1), Ok([0xab]));
    }
    assert!(mem.allocate(64, 3000, RegionKind::Device).is_err());
    mem.set_quarantine(true);
    let a = mem.allocate(64, 256, RegionKind::Device).expect("alloc");
    mem.free(a).expect("free");
    assert!(mem.find(a, 4).is_some(), "quarantined, still mapped");
    assert_eq!(mem.free(a), Err(MemError::NotAllocated(a)));
}

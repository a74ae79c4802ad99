//! MUBUF accesses to the swizzled private segment (ADD_TID_ENABLE, 4-byte
//! elements, 64-lane index stride): dword k of lane l at byte offset p lives
//! at `base + (p/4 + k) * 256 + l * 4`. Multi-dword accesses are split at
//! dword edges, which clang's own code rarely exercises (it spills dword by
//! dword), so the instructions are assembled here (encodings from llvm-mc).

use lathe_emu::interp::Exec;
use lathe_emu::mem::{DeviceMemory, RegionKind};
use lathe_emu::wave::{Flow, Step, Wave};
use lathe_isa::Target;

/// `buffer_store_dwordx2 v[0:1], off, s[0:3], 0 offset:8`
/// `buffer_load_dwordx2 v[2:3], off, s[0:3], 0 offset:8`
/// `buffer_load_dword v4, off, s[0:3], 0 offset:12`
/// `buffer_store_dword a0, off, s[0:3], 0 offset:16` (AGPR data, gfx90a)
/// `buffer_load_dword v5, off, s[0:3], 0 offset:16`
/// `buffer_store_dwordx2 v[0:1], v6, s[0:3], 0 offen offset:32` (per-lane
/// offsets: the lane-by-lane path)
/// `buffer_load_dwordx2 v[8:9], v6, s[0:3], 0 offen offset:32`
/// `s_endpgm`
const CODE: [u32; 15] = [
    0xe074_0008,
    0x8000_0000,
    0xe054_0008,
    0x8000_0200,
    0xe050_000c,
    0x8000_0400,
    0xe070_0010,
    0x8080_0000,
    0xe050_0010,
    0x8000_0500,
    0xe074_1020,
    0x8000_0006,
    0xe054_1020,
    0x8000_0806,
    0xbf81_0000,
];

#[test]
fn multi_dword_private_accesses_follow_the_swizzle() {
    let mem = DeviceMemory::new();
    let code = mem.allocate(64, 256, RegionKind::Device).expect("code");
    let seg = mem
        .allocate(16 * 256, 256, RegionKind::Device)
        .expect("scratch");
    let mut v = mem.view();
    for (k, word) in CODE.iter().enumerate() {
        v.store_u32(code + 4 * k as u64, *word).expect("code");
    }
    let mut w = Wave::new(code, [0; 3], 0);
    w.exec = u64::MAX;
    // The private segment buffer descriptor, as dispatch builds it.
    let srd = [
        seg as u32,
        ((seg >> 32) as u32 & 0xffff) | (1 << 31),
        u32::MAX,
        1 << 23 | 0x27000,
    ];
    w.sgpr[..4].copy_from_slice(&srd);
    for l in 0..64 {
        w.vgpr[0][l] = 0x1000 + l as u32;
        w.vgpr[1][l] = 0x2000 + l as u32;
        w.agpr[0][l] = 0xa000 + l as u32;
        // Odd lanes 8 bytes further: rows 8/9 for even lanes, 10/11 for odd.
        w.vgpr[6][l] = (l as u32 % 2) * 8;
    }
    let mut exec = Exec::new(mem.view(), Target::Gfx90a);
    let mut lds = [];
    let mut flows = Vec::new();
    for _ in 0..CODE.len() {
        let f = exec.step(&mut w, &mut lds).expect("runs");
        flows.push(f);
        if f == Flow::End {
            break;
        }
    }
    assert_eq!(flows.last(), Some(&Flow::End));
    for l in 0..64u64 {
        // Offset 8 → row 2 for dword 0, row 3 for dword 1.
        assert_eq!(v.load_u32(seg + 2 * 256 + l * 4), Ok(0x1000 + l as u32));
        assert_eq!(v.load_u32(seg + 3 * 256 + l * 4), Ok(0x2000 + l as u32));
    }
    for l in 0..64u64 {
        let row = 8 + (l % 2) * 2;
        assert_eq!(v.load_u32(seg + row * 256 + l * 4), Ok(0x1000 + l as u32));
        assert_eq!(
            v.load_u32(seg + (row + 1) * 256 + l * 4),
            Ok(0x2000 + l as u32)
        );
    }
    // Nothing landed where a contiguous 8-byte write would have put dword 1.
    assert_eq!(v.load_u32(seg + 2 * 256 + 4), Ok(0x1001));
    for l in 0..64 {
        assert_eq!(w.vgpr[2][l], 0x1000 + l as u32, "lane {l}");
        assert_eq!(w.vgpr[3][l], 0x2000 + l as u32, "lane {l}");
        assert_eq!(w.vgpr[4][l], 0x2000 + l as u32, "lane {l}");
        assert_eq!(w.vgpr[5][l], 0xa000 + l as u32, "lane {l}");
        assert_eq!(w.vgpr[8][l], 0x1000 + l as u32, "lane {l}");
        assert_eq!(w.vgpr[9][l], 0x2000 + l as u32, "lane {l}");
    }
}

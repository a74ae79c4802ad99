//! `s_scratch_load/store_dword{,x2,x4}` (GFX9 SMEM opcodes 5-7, 21-23):
//! the address is the SBASE pair plus an immediate signed byte offset or an
//! SGPR offset counted in 64-byte units (MI200 ISA, SMEM opcode table), and
//! the scratch memory is addressed linearly (no per-lane swizzle). The
//! instructions are encoded by llvm-mc (gfx90a) and run with EXEC = 0,
//! which scalar memory ignores.

use lathe_emu::interp::Exec;
use lathe_emu::mem::{DeviceMemory, RegionKind};
use lathe_emu::wave::{Flow, Step, Wave};
use lathe_isa::Target;

/// `s_scratch_store_dwordx4 s[8:11], s[2:3], 0x40`
/// `s_scratch_store_dwordx2 s[12:13], s[2:3], s4`
/// `s_scratch_store_dword s14, s[2:3], -0x10`
/// `s_scratch_load_dwordx4 s[20:23], s[2:3], 0x40`
/// `s_scratch_load_dwordx2 s[24:25], s[2:3], s4`
/// `s_scratch_load_dword s26, s[2:3], -0x10`
/// `s_endpgm`
const CODE: [u32; 13] = [
    0xc05e_0201,
    0x0000_0040,
    0xc058_0301,
    0x0000_0004,
    0xc056_0381,
    0x001f_fff0,
    0xc01e_0501,
    0x0000_0040,
    0xc018_0601,
    0x0000_0004,
    0xc016_0681,
    0x001f_fff0,
    0xbf81_0000,
];

#[test]
fn scalar_scratch_loads_and_stores_address_sbase_plus_offset() {
    let mem = DeviceMemory::new();
    let code = mem.allocate(64, 256, RegionKind::Device).expect("code");
    let seg = mem
        .allocate(4096, 256, RegionKind::Device)
        .expect("scratch");
    let mut v = mem.view();
    for (k, word) in CODE.iter().enumerate() {
        v.store_u32(code + 4 * k as u64, *word).expect("code");
    }
    let mut w = Wave::new(code, [0; 3], 0);
    w.exec = 0;
    let base = seg + 0x100;
    w.sgpr[2] = base as u32;
    w.sgpr[3] = (base >> 32) as u32;
    w.sgpr[4] = 3; // 3 * 64 bytes
    for k in 0..7 {
        w.sgpr[8 + k] = 0x5ca1_0000 + k as u32;
    }
    let mut exec = Exec::new(mem.view(), Target::Gfx90a);
    let mut lds = [];
    let mut last = Flow::Continue;
    for _ in 0..CODE.len() {
        last = exec.step(&mut w, &mut lds).expect("runs");
        if last == Flow::End {
            break;
        }
    }
    assert_eq!(last, Flow::End);
    // The stores, byte-addressed from SBASE.
    for k in 0..4u64 {
        assert_eq!(v.load_u32(base + 0x40 + 4 * k), Ok(0x5ca1_0000 + k as u32));
    }
    assert_eq!(v.load_u32(base + 3 * 64), Ok(0x5ca1_0004));
    assert_eq!(v.load_u32(base + 3 * 64 + 4), Ok(0x5ca1_0005));
    assert_eq!(v.load_u32(base - 0x10), Ok(0x5ca1_0006));
    // Nothing where an SGPR offset in bytes, or an unsigned 21-bit
    // immediate, would have put them.
    assert_eq!(v.load_u32(base + 3), Ok(0));
    // The loads read them back.
    assert_eq!(
        w.sgpr[20..27],
        [
            0x5ca1_0000,
            0x5ca1_0001,
            0x5ca1_0002,
            0x5ca1_0003,
            0x5ca1_0004,
            0x5ca1_0005,
            0x5ca1_0006
        ]
    );
}

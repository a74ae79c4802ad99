//! D16 loads and stores of GLOBAL, FLAT and MUBUF (`*_load_short_d16`,
//! `*_d16_hi`, `*_ubyte_d16`, `*_sbyte_d16_hi`, `*_store_short_d16_hi`,
//! `*_store_byte_d16_hi`): a load replaces one 16-bit half of its VGPR
//! (a byte zero- or sign-extended to 16 bits) and keeps the other; a
//! `_hi` store writes the high half. They used to stop as unsupported
//! while the coverage test counted them as having semantics.
//!
//! DS (LDS) D16 reads and `_d16_hi` writes (`ds_read_{u8,i8,u16}_d16`,
//! their `_hi` forms, `ds_write_b8/b16_d16_hi`) follow the same rule, run
//! on a copy of each lane's 32 input bytes in LDS.
//!
//! Each lane loads from its own 32 input bytes (the shared kernel's
//! `v[2:3]`), under the wave's EXEC pattern, into registers that first
//! hold its input dword 0; stores go to the lane's input dword 5 and are
//! read back. The expected values are computed here from the input bytes.

use lathe_emu::run::Options;

mod alu_common;
mod common;
use alu_common::Rng;
use common::{IN, SENTINEL, WAVES};

/// (instruction, reference from the lane's input bytes `b` and its
/// register's old value `old`).
type Case = (&'static str, fn(&[u8; 32], u32) -> u32);

fn h(b: &[u8; 32], o: usize) -> u32 {
    u32::from(u16::from_le_bytes([b[o], b[o + 1]]))
}

const CASES: &[Case] = &[
    ("global_load_short_d16 vR, v[2:3], off offset:4", |b, old| {
        old & 0xffff_0000 | h(b, 4)
    }),
    ("global_load_short_d16_hi vR, v[2:3], off offset:6", |b, old| {
        old & 0xffff | h(b, 6) << 16
    }),
    ("global_load_ubyte_d16 vR, v[2:3], off offset:9", |b, old| {
        old & 0xffff_0000 | u32::from(b[9])
    }),
    ("global_load_sbyte_d16 vR, v[2:3], off offset:10", |b, old| {
        old & 0xffff_0000 | u32::from(b[10] as i8 as i16 as u16)
    }),
    ("global_load_ubyte_d16_hi vR, v[2:3], off offset:13", |b, old| {
        old & 0xffff | u32::from(b[13]) << 16
    }),
    ("global_load_sbyte_d16_hi vR, v[2:3], off offset:11", |b, old| {
        old & 0xffff | u32::from(b[11] as i8 as i16 as u16) << 16
    }),
    ("flat_load_short_d16_hi vR, v[2:3] offset:14", |b, old| {
        old & 0xffff | h(b, 14) << 16
    }),
    ("flat_load_sbyte_d16 vR, v[2:3] offset:15", |b, old| {
        old & 0xffff_0000 | u32::from(b[15] as i8 as i16 as u16)
    }),
    ("buffer_load_short_d16_hi vR, v5, s[28:31], 0 offen offset:18", |b, old| {
        old & 0xffff | h(b, 18) << 16
    }),
    ("buffer_load_ubyte_d16 vR, v5, s[28:31], 0 offen offset:21", |b, old| {
        old & 0xffff_0000 | u32::from(b[21])
    }),
    // Stores of v11's high half (input bytes 6-7) into the lane's dword
    // 5, read back after each (dwords 6-7 are EXEC patterns other waves
    // read, so they stay untouched).
    (
        "global_store_short_d16_hi v[2:3], v11, off offset:20\n  s_waitcnt vmcnt(0)\n  global_load_dword vR, v[2:3], off offset:20",
        |b, _| h(b, 22) << 16 | h(b, 6),
    ),
    (
        "global_store_byte_d16_hi v[2:3], v11, off offset:21\n  s_waitcnt vmcnt(0)\n  global_load_dword vR, v[2:3], off offset:20",
        // After the short store above: byte 21 takes byte 6 too.
        |b, _| h(b, 22) << 16 | u32::from(b[6]) << 8 | u32::from(b[6]),
    ),
    (
        "buffer_store_short_d16_hi v11, v5, s[28:31], 0 offen offset:22\n  s_waitcnt vmcnt(0)\n  global_load_dword vR, v[2:3], off offset:20",
        |b, _| h(b, 6) << 16 | u32::from(b[6]) << 8 | u32::from(b[6]),
    ),
];

/// The LDS cases: each lane's 32 input bytes are at `v6` = lane × 32.
const DS_CASES: &[Case] = &[
    ("ds_read_u8_d16 vR, v6 offset:9", |b, old| {
        old & 0xffff_0000 | u32::from(b[9])
    }),
    ("ds_read_u8_d16_hi vR, v6 offset:13", |b, old| {
        old & 0xffff | u32::from(b[13]) << 16
    }),
    ("ds_read_i8_d16 vR, v6 offset:10", |b, old| {
        old & 0xffff_0000 | u32::from(b[10] as i8 as i16 as u16)
    }),
    ("ds_read_i8_d16_hi vR, v6 offset:11", |b, old| {
        old & 0xffff | u32::from(b[11] as i8 as i16 as u16) << 16
    }),
    ("ds_read_u16_d16 vR, v6 offset:4", |b, old| {
        old & 0xffff_0000 | h(b, 4)
    }),
    ("ds_read_u16_d16_hi vR, v6 offset:14", |b, old| {
        old & 0xffff | h(b, 14) << 16
    }),
    (
        "ds_write_b16_d16_hi v6, v11 offset:20\n  s_waitcnt lgkmcnt(0)\n  ds_read_b32 vR, v6 offset:20",
        |b, _| h(b, 22) << 16 | h(b, 6),
    ),
    (
        "ds_write_b8_d16_hi v6, v11 offset:23\n  s_waitcnt lgkmcnt(0)\n  ds_read_b32 vR, v6 offset:20",
        |b, _| u32::from(b[6]) << 24 | u32::from(b[22]) << 16 | h(b, 6),
    ),
];

fn ds_asm(target: &str) -> String {
    let mut ops = String::new();
    for (k, (line, _)) in DS_CASES.iter().enumerate() {
        let r = format!("v{}", 40 + k);
        ops += &format!(
            "  v_mov_b32_e32 {r}, v10\n  {}\n  s_waitcnt lgkmcnt(0)\n",
            line.replace("vR", &r)
        );
    }
    let results = DS_CASES.len() as u32;
    let body = format!(
        "  v_lshlrev_b32_e32 v6, 5, v0\n  ds_write_b128 v6, v[10:13]\n  ds_write_b128 v6, v[14:17] offset:16\n  s_waitcnt lgkmcnt(0)\n{}",
        common::under_wave_exec(&ops, results)
    );
    common::kernel(
        target,
        "d16lds",
        &body,
        &common::stores(results),
        results,
        "  .amdhsa_group_segment_fixed_size 2048",
    )
}

fn asm(target: &str) -> String {
    let mut ops = String::from(
        // A raw buffer over the input (base s[6:7], no stride, every
        // byte in range) and each lane's byte offset into it.
        "  s_mov_b32 s28, s6\n  s_and_b32 s29, s7, 0xffff\n  s_mov_b32 s30, -1\n  s_mov_b32 s31, 0x27000\n  v_lshlrev_b32_e32 v5, 5, v1\n",
    );
    for (k, (line, _)) in CASES.iter().enumerate() {
        let r = format!("v{}", 40 + k);
        ops += &format!(
            "  v_mov_b32_e32 {r}, v10\n  {}\n  s_waitcnt vmcnt(0)\n",
            line.replace("vR", &r)
        );
    }
    let results = CASES.len() as u32;
    common::kernel(
        target,
        "d16mem",
        &common::under_wave_exec(&ops, results),
        &common::stores(results),
        results,
        "",
    )
}

#[test]
fn d16_loads_keep_the_other_half_and_hi_stores_write_the_high_half() {
    check("d16mem", CASES, asm);
}

#[test]
fn ds_d16_reads_keep_the_other_half_and_hi_writes_write_the_high_half() {
    check("d16lds", DS_CASES, ds_asm);
}

/// Runs kernel `name` built by `asm` on random inputs under the EXEC
/// patterns, on gfx90a and gfx942, and compares each case with its
/// reference.
fn check(name: &str, cases: &[Case], asm: fn(&str) -> String) {
    let mut rng = Rng::new(0xd16);
    let mut input: Vec<u32> = (0..WAVES as usize * 64 * IN).map(|_| rng.u32()).collect();
    common::exec_patterns(&mut input, || rng.u32());
    let results = cases.len();
    for target in ["gfx90a", "gfx942"] {
        let text = asm(target);
        let co = std::fs::read(lathe_testkit::assemble_shared(target, name, &text))
            .expect("code object");
        let opts = Options {
            threads: 1,
            ..Options::default()
        };
        let (out, _) = common::launch(&co, target, name, results as u32, &input, &opts);
        let mut bad = Vec::new();
        for g in 0..WAVES as usize {
            let exec = u64::from(input[g * IN + 6]) | u64::from(input[g * IN + 7]) << 32;
            for l in 0..64 {
                let lane = g * 64 + l;
                let words = &input[lane * IN..(lane + 1) * IN];
                let mut b = [0u8; 32];
                for (o, w) in b.chunks_exact_mut(4).zip(words) {
                    o.copy_from_slice(&w.to_le_bytes());
                }
                for (k, (line, f)) in cases.iter().enumerate() {
                    let want = if exec >> l & 1 == 1 {
                        f(&b, words[0])
                    } else {
                        SENTINEL
                    };
                    let got = out[lane * results + k];
                    if got != want {
                        bad.push(format!(
                            "{target} wave {g} lane {l} `{}`: got {got:#010x}, want {want:#010x}",
                            line.lines().next().unwrap_or("")
                        ));
                    }
                }
            }
        }
        assert!(
            bad.is_empty(),
            "{} mismatches, first:\n{}",
            bad.len(),
            bad[..bad.len().min(10)].join("\n")
        );
    }
}

//! LDS-direct loads: `global_load_lds_{ubyte,sbyte,ushort,sshort,dword}`,
//! `scratch_load_lds_*` (gfx942) and MUBUF loads with the `lds` bit
//! (gfx90a and gfx942). Each active lane loads from its GLOBAL address,
//! private offset or buffer element, extends the value to a dword and
//! writes it to LDS at M0 + the instruction offset + 4 × lane id; no VGPR
//! is written.
//!
//! Every case has its own 256-byte LDS region `R` ([`region`]), filled first (full
//! EXEC) with a per-lane pattern; the load runs under the wave's EXEC
//! pattern with M0 = `R` − offset, and all 64 slots are read back with
//! full EXEC. The expected value of each slot is computed here from the
//! lane's input bytes (active lanes) or is the pattern (inactive lanes),
//! so a write to the wrong slot, by an inactive lane or without the
//! offset shows up.

use lathe_emu::run::Options;

mod alu_common;
mod common;
use alu_common::Rng;
use common::{IN, WAVES};

/// (instruction with `OFF` for its offset, offset, bytes, signed).
type Case = (&'static str, u32, u32, bool);

const GLOBAL: &[Case] = &[
    ("global_load_lds_ubyte v[2:3], off offset:OFF", 5, 1, false),
    ("global_load_lds_sbyte v[2:3], off offset:OFF", 9, 1, true),
    ("global_load_lds_ushort v[2:3], off offset:OFF", 6, 2, false),
    ("global_load_lds_sshort v8, s[6:7] offset:OFF", 14, 2, true),
    ("global_load_lds_dword v8, s[6:7] offset:OFF", 20, 4, false),
    ("global_load_lds_sbyte v8, s[6:7] offset:OFF", 3, 1, true),
    // The private segment holds a copy of the lane's 32 input bytes.
    ("scratch_load_lds_ubyte v9, off offset:OFF", 7, 1, false),
    ("scratch_load_lds_sbyte v9, off offset:OFF", 11, 1, true),
    ("scratch_load_lds_ushort v9, off offset:OFF", 18, 2, false),
    ("scratch_load_lds_sshort v9, off offset:OFF", 22, 2, true),
    ("scratch_load_lds_dword v9, off offset:OFF", 24, 4, false),
];

/// MUBUF over a raw buffer of the input (every byte in range); v5 is the
/// lane's byte offset in it.
const BUFFER: &[Case] = &[
    (
        "buffer_load_ubyte v5, s[28:31], 0 offen offset:OFF lds",
        13,
        1,
        false,
    ),
    (
        "buffer_load_sbyte v5, s[28:31], 0 offen offset:OFF lds",
        15,
        1,
        true,
    ),
    (
        "buffer_load_ushort v5, s[28:31], 0 offen offset:OFF lds",
        2,
        2,
        false,
    ),
    (
        "buffer_load_sshort v5, s[28:31], 0 offen offset:OFF lds",
        26,
        2,
        true,
    ),
    (
        "buffer_load_dword v5, s[28:31], 0 offen offset:OFF lds",
        28,
        4,
        false,
    ),
];

fn cases(target: &str) -> Vec<Case> {
    let mut v = BUFFER.to_vec();
    if target == "gfx942" {
        v.extend_from_slice(GLOBAL);
    }
    v
}

fn pattern(global_lane: usize, k: usize) -> u32 {
    (global_lane as u32).wrapping_mul(0x9e37_79b9) ^ 0x5a5a_0000 ^ k as u32
}

/// Case `k`'s LDS region: 256 bytes from here (none at 0, so that M0 =
/// region − offset stays positive).
fn region(k: usize) -> u32 {
    256 * (k as u32 + 1)
}

fn asm(target: &str) -> String {
    let cases = cases(target);
    // v6: lane id × 4 (the LDS slot); v7: the fill pattern base; v8:
    // the lane's byte offset in `in` (saddr form); v9: private offset 0.
    let mut pre = String::from(
        "  v_lshlrev_b32_e32 v6, 2, v0\n  s_mov_b32 s9, 0x9e3779b9\n  v_mul_lo_u32 v7, v1, s9\n  v_xor_b32_e32 v7, 0x5a5a0000, v7\n  v_lshlrev_b32_e32 v8, 5, v1\n  v_mov_b32_e32 v9, 0\n  v_mov_b32_e32 v5, v8\n  s_mov_b32 s28, s6\n  s_and_b32 s29, s7, 0xffff\n  s_mov_b32 s30, -1\n  s_mov_b32 s31, 0x27000\n",
    );
    if target == "gfx942" {
        pre += "  scratch_store_dwordx4 v9, v[10:13], off\n  scratch_store_dwordx4 v9, v[14:17], off offset:16\n";
    }
    for k in 0..cases.len() {
        pre += &format!(
            "  v_xor_b32_e32 v4, {k}, v7\n  ds_write_b32 v6, v4 offset:{}\n",
            region(k)
        );
    }
    pre += "  s_waitcnt vmcnt(0) lgkmcnt(0)\n";
    let mut ops = String::new();
    for (k, (line, off, _, _)) in cases.iter().enumerate() {
        ops += &format!(
            "  s_mov_b32 m0, {}\n  {}\n  s_waitcnt vmcnt(0)\n",
            region(k) - off,
            line.replace("OFF", &off.to_string())
        );
    }
    let results = cases.len() as u32;
    let mut back = String::from("  s_waitcnt vmcnt(0) lgkmcnt(0)\n");
    for k in 0..cases.len() {
        back += &format!("  ds_read_b32 v{}, v6 offset:{}\n", 40 + k, region(k));
    }
    back += "  s_waitcnt lgkmcnt(0)\n";
    let body = format!("{pre}{}\n{back}", common::under_wave_exec(&ops, results));
    common::kernel(
        target,
        "ldsdirect",
        &body,
        &common::stores(results),
        results,
        &format!(
            "  .amdhsa_group_segment_fixed_size {}\n  .amdhsa_private_segment_fixed_size 64",
            region(cases.len())
        ),
    )
}

#[test]
fn lds_direct_loads_write_m0_plus_offset_plus_4_per_lane() {
    let mut rng = Rng::new(0x1d5);
    let mut input: Vec<u32> = (0..WAVES as usize * 64 * IN).map(|_| rng.u32()).collect();
    common::exec_patterns(&mut input, || rng.u32());
    for target in ["gfx90a", "gfx942"] {
        let cases = cases(target);
        let results = cases.len();
        let text = asm(target);
        let co = std::fs::read(lathe_testkit::assemble_shared(target, "ldsdirect", &text))
            .expect("code object");
        let opts = Options {
            threads: 1,
            ..Options::default()
        };
        let (out, _) = common::launch(&co, target, "ldsdirect", results as u32, &input, &opts);
        let mut bad = Vec::new();
        let mut loaded = 0;
        for g in 0..WAVES as usize {
            let exec = u64::from(input[g * IN + 6]) | u64::from(input[g * IN + 7]) << 32;
            for l in 0..64 {
                let lane = g * 64 + l;
                let words = &input[lane * IN..(lane + 1) * IN];
                let mut b = [0u8; 32];
                for (o, w) in b.chunks_exact_mut(4).zip(words) {
                    o.copy_from_slice(&w.to_le_bytes());
                }
                for (k, &(line, off, n, signed)) in cases.iter().enumerate() {
                    let o = off as usize;
                    let want = if exec >> l & 1 == 1 {
                        loaded += 1;
                        match (n, signed) {
                            (1, false) => u32::from(b[o]),
                            (1, true) => b[o] as i8 as u32,
                            (2, false) => u32::from(u16::from_le_bytes([b[o], b[o + 1]])),
                            (2, true) => i16::from_le_bytes([b[o], b[o + 1]]) as u32,
                            _ => u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]),
                        }
                    } else {
                        pattern(lane, k)
                    };
                    let got = out[lane * results + k];
                    if got != want {
                        bad.push(format!(
                            "{target} wave {g} lane {l} `{line}` (offset {off}): got {got:#010x}, want {want:#010x}"
                        ));
                    }
                }
            }
        }
        assert!(loaded > 0, "no active lane");
        assert!(
            bad.is_empty(),
            "{} mismatches, first:\n{}",
            bad.len(),
            bad[..bad.len().min(10)].join("\n")
        );
    }
}

//! FLAT loads and stores whose lanes mix the LDS aperture and global
//! memory (a generic pointer that is `&shared[..]` in some lanes and a
//! device pointer in others, as HIP code compiles `tid == 0 ? global :
//! shared` operands), under the shared kernel's EXEC patterns. Such a
//! wave goes through one whole-wave access (`vmem::flat_dwords`), or lane
//! by lane when a lane is private; the results must be the same.
//!
//! Each lane's 32 input bytes are in global memory (`v[2:3]`) and, XORed
//! with [`KEY`], in LDS at lane × 32; a lane whose input dword 1 is odd
//! points into LDS. The expected values are computed here from the input
//! words.

use lathe_emu::run::Options;

mod alu_common;
mod common;
use alu_common::Rng;
use common::{IN, SENTINEL, WAVES};

/// What the LDS copy of each input dword is XORed with.
const KEY: u32 = 0x5a5a_5a5a;

/// (instructions leaving their result in vR, reference from the lane's
/// input words `w` and whether the lane points into LDS). Later cases see
/// earlier cases' stores.
type Case = (&'static str, fn(&[u32], bool) -> u32);

fn k(lds: bool) -> u32 {
    if lds {
        KEY
    } else {
        0
    }
}

const CASES: &[Case] = &[
    ("flat_load_dword vR, v[8:9] offset:4", |w, l| w[1] ^ k(l)),
    (
        "flat_load_dwordx2 v[30:31], v[8:9] offset:8\n  s_waitcnt vmcnt(0) lgkmcnt(0)\n  v_mov_b32_e32 vR, v31",
        |w, l| w[3] ^ k(l),
    ),
    (
        "flat_load_dwordx4 v[30:33], v[8:9] offset:16\n  s_waitcnt vmcnt(0) lgkmcnt(0)\n  v_mov_b32_e32 vR, v32",
        |w, l| w[6] ^ k(l),
    ),
    (
        "flat_load_dwordx3 v[30:32], v[8:9]\n  s_waitcnt vmcnt(0) lgkmcnt(0)\n  v_mov_b32_e32 vR, v30",
        |w, l| w[0] ^ k(l),
    ),
    // Stores of the lane's (global) words 2-3 into its dwords 4-5, read
    // back from where they went (dwords 6-7 are EXEC patterns other waves
    // read, so they stay untouched).
    (
        "flat_store_dwordx2 v[8:9], v[12:13] offset:16\n  s_waitcnt vmcnt(0) lgkmcnt(0)\n  flat_load_dword vR, v[8:9] offset:20",
        |w, _| w[3],
    ),
    (
        "flat_store_dword v[8:9], v10 offset:16\n  s_waitcnt vmcnt(0) lgkmcnt(0)\n  flat_load_dwordx2 v[30:31], v[8:9] offset:16\n  s_waitcnt vmcnt(0) lgkmcnt(0)\n  v_xor_b32_e32 vR, v30, v31",
        |w, _| w[0] ^ w[3],
    ),
    // The destination overwrites the address pair.
    (
        "v_mov_b32_e32 v34, v8\n  v_mov_b32_e32 v35, v9\n  flat_load_dwordx2 v[34:35], v[34:35] offset:8\n  s_waitcnt vmcnt(0) lgkmcnt(0)\n  v_mov_b32_e32 vR, v34",
        |w, l| w[2] ^ k(l),
    ),
];

fn asm(target: &str) -> String {
    let mut ops = String::new();
    for (k, (line, _)) in CASES.iter().enumerate() {
        let r = format!("v{}", 40 + k);
        ops += &format!(
            "  {}\n  s_waitcnt vmcnt(0) lgkmcnt(0)\n",
            line.replace("vR", &r)
        );
    }
    let xors: String = (0..8)
        .map(|j| format!("  v_xor_b32_e32 v{}, s38, v{}\n", 20 + j, 10 + j))
        .collect();
    let results = CASES.len() as u32;
    let body = format!(
        "  s_mov_b32 s38, {KEY:#x}\n{xors}  v_lshlrev_b32_e32 v6, 5, v0\n  ds_write_b128 v6, v[20:23]\n  ds_write_b128 v6, v[24:27] offset:16\n  s_waitcnt lgkmcnt(0)\n  s_getreg_b32 s38, hwreg(HW_REG_SH_MEM_BASES, 16, 16)\n  s_lshl_b32 s38, s38, 16\n  v_and_b32_e32 v7, 1, v11\n  v_cmp_ne_u32_e32 vcc, 0, v7\n  v_mov_b32_e32 v9, s38\n  v_cndmask_b32_e32 v8, v2, v6, vcc\n  v_cndmask_b32_e32 v9, v3, v9, vcc\n{}",
        common::under_wave_exec(&ops, results)
    );
    common::kernel(
        target,
        "flatlds",
        &body,
        &common::stores(results),
        results,
        "  .amdhsa_group_segment_fixed_size 2048",
    )
}

#[test]
fn flat_accesses_mixing_lds_and_global_lanes_reach_each_lanes_memory() {
    let mut rng = Rng::new(0xf1a7);
    let mut input: Vec<u32> = (0..WAVES as usize * 64 * IN).map(|_| rng.u32()).collect();
    common::exec_patterns(&mut input, || rng.u32());
    // Wave 1 all in LDS, wave 2 all global, the others mixed at random.
    for l in 0..64 {
        input[(64 + l) * IN + 1] |= 1;
        input[(128 + l) * IN + 1] &= !1;
    }
    let results = CASES.len();
    let (mut lds_lanes, mut global_lanes) = (0, 0);
    for target in ["gfx90a", "gfx942"] {
        let co = std::fs::read(lathe_testkit::assemble_shared(
            target,
            "flatlds",
            &asm(target),
        ))
        .expect("code object");
        let opts = Options {
            threads: 1,
            ..Options::default()
        };
        let (out, _) = common::launch(&co, target, "flatlds", results as u32, &input, &opts);
        let mut bad = Vec::new();
        for g in 0..WAVES as usize {
            let exec = u64::from(input[g * IN + 6]) | u64::from(input[g * IN + 7]) << 32;
            for l in 0..64 {
                let lane = g * 64 + l;
                let words = &input[lane * IN..(lane + 1) * IN];
                let lds = words[1] & 1 == 1;
                let active = exec >> l & 1 == 1;
                if active {
                    *(if lds {
                        &mut lds_lanes
                    } else {
                        &mut global_lanes
                    }) += 1;
                }
                for (k, (line, f)) in CASES.iter().enumerate() {
                    let want = if active { f(words, lds) } else { SENTINEL };
                    let got = out[lane * results + k];
                    if got != want {
                        bad.push(format!(
                            "{target} wave {g} lane {l} ({}) `{}`: got {got:#010x}, want {want:#010x}",
                            if lds { "LDS" } else { "global" },
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
    assert!(
        lds_lanes > 100 && global_lanes > 100,
        "{lds_lanes} LDS, {global_lanes} global lanes"
    );
}

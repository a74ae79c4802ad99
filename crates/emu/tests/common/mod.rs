//! The assembly kernel shared by the operation tests (`gaps_valu.rs`,
//! `sem_ops.rs`, `fast_tier.rs`): one wave per work-group loads eight input
//! dwords per lane into v10..v17 and eight per wave into s20..s27, runs
//! `body`, and stores `results` dwords per lane from v40 on (`stores`);
//! and the harness around it: the stores, the per-wave EXEC patterns and
//! one launch that returns the output dwords.
//!
//! Each test binary uses a different part of this module.
#![allow(dead_code)]

use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::{Options, Report};
use lathe_emu::session::{Session, Shape};

/// Waves (one per work-group) of a launch of the shared kernel.
pub const WAVES: u32 = 8;
/// Input dwords per lane (dwords 6-7 of lane `g` are wave `g`'s EXEC
/// pattern for [`under_wave_exec`]).
pub const IN: usize = 8;
/// What a result register holds in a lane the operation left alone.
pub const SENTINEL: u32 = 0xdead_beef;

/// The kernel `name` for `target`: `body` between the loads and the
/// stores, `descriptor` extra `.amdhsa_*` lines (MODE at entry).
pub fn kernel(
    target: &str,
    name: &str,
    body: &str,
    stores: &str,
    results: u32,
    descriptor: &str,
) -> String {
    format!(
        r#".amdgcn_target "amdgcn-amd-amdhsa--{target}"
.text
.globl {name}
.p2align 8
.type {name},@function
{name}:
  s_load_dwordx4 s[4:7], s[0:1], 0
  s_lshl_b32 s8, s2, 5
  v_lshl_add_u32 v1, s2, 6, v0
  s_waitcnt lgkmcnt(0)
  s_load_dwordx8 s[20:27], s[6:7], s8
  v_lshlrev_b32_e32 v2, 5, v1
  v_mov_b32_e32 v3, s7
  v_add_co_u32_e32 v2, vcc, s6, v2
  v_addc_co_u32_e32 v3, vcc, 0, v3, vcc
  global_load_dwordx4 v[10:13], v[2:3], off
  global_load_dwordx4 v[14:17], v[2:3], off offset:16
  s_waitcnt vmcnt(0) lgkmcnt(0)
{body}
  v_mul_u32_u24_e32 v2, {stride}, v1
  v_mov_b32_e32 v3, s5
  v_add_co_u32_e32 v2, vcc, s4, v2
  v_addc_co_u32_e32 v3, vcc, 0, v3, vcc
{stores}
  s_endpgm
.Lend:
.size {name}, .Lend-{name}
.rodata
.p2align 6
.amdhsa_kernel {name}
  .amdhsa_next_free_vgpr {vgprs}
  .amdhsa_accum_offset {vgprs}
  .amdhsa_next_free_sgpr 40
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 16
  .amdhsa_system_sgpr_workgroup_id_x 1
{descriptor}
  {flat}
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: {name}
    .symbol: {name}.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 44
    .vgpr_count: {vgprs}
    .max_flat_workgroup_size: 64
    .args:
      - {{ .name: out, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }}
      - {{ .name: in, .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global }}
...
.end_amdgpu_metadata
"#,
        stride = 4 * results,
        vgprs = (40 + results).next_multiple_of(8),
        flat = if target == "gfx90a" {
            ".amdhsa_reserve_flat_scratch 0"
        } else {
            ""
        },
    )
}

/// Stores of `results` dwords per lane from v40 on.
pub fn stores(results: u32) -> String {
    (0..results)
        .map(|k| {
            format!(
                "  global_store_dword v[2:3], v{}, off offset:{}\n",
                40 + k,
                4 * k
            )
        })
        .collect()
}

/// A kernel body running `ops` under the wave's EXEC pattern (s26/s27),
/// with the `results` result registers preset to [`SENTINEL`] and EXEC
/// restored for the stores.
pub fn under_wave_exec(ops: &str, results: u32) -> String {
    let sentinel: String = (0..results)
        .map(|k| format!("  v_mov_b32_e32 v{}, {SENTINEL:#x}\n", 40 + k))
        .collect();
    format!("{sentinel}\n  s_mov_b64 s[36:37], exec\n  s_mov_b32 exec_lo, s26\n  s_mov_b32 exec_hi, s27\n{ops}\n  s_mov_b64 exec, s[36:37]")
}

/// Writes wave `g`'s EXEC pattern into lane `g`'s dwords 6-7 for every
/// wave: full, `exec_lo == 0` with `exec_hi != 0`, `exec_hi == 0`, random
/// (`random` gives the random words).
pub fn exec_patterns(input: &mut [u32], mut random: impl FnMut() -> u32) {
    for g in 0..WAVES as usize {
        let (lo, hi) = match g % 4 {
            0 => (u32::MAX, u32::MAX),
            1 => (0, random() | 1),
            2 => (random() | 1, 0),
            _ => (random(), random()),
        };
        input[g * IN + 6] = lo;
        input[g * IN + 7] = hi;
    }
}

/// Runs kernel `name` of the code object `co` over [`WAVES`] waves with
/// `input` (per lane [`IN`] dwords) and `opts`: the `results` output
/// dwords per lane, and the run's report.
pub fn launch(
    co: &[u8],
    target: &str,
    name: &str,
    results: u32,
    input: &[u32],
    opts: &Options,
) -> (Vec<u32>, Report) {
    let session = Session::load(target.parse().expect("target"), &[co]).expect("load");
    let n = WAVES * 64 * results;
    let args = vec![
        Arg::Buffer {
            name: "out".into(),
            size: u64::from(n) * 4,
            fill: Fill::Bytes(vec![0; n as usize * 4]),
            output: None,
        },
        Arg::Buffer {
            name: "in".into(),
            size: input.len() as u64 * 4,
            fill: Fill::Bytes(input.iter().flat_map(|x| x.to_le_bytes()).collect()),
            output: None,
        },
    ];
    let shape = Shape {
        grid: [WAVES * 64, 1, 1],
        block: [64, 1, 1],
        dims: 1,
        dynamic_lds: 0,
    };
    let (report, bufs) = session.launch(name, shape, &args, opts).expect("run");
    let bytes = session.download(bufs[0].addr, bufs[0].size).expect("out");
    let out = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    (out, report)
}

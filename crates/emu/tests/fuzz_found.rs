//! Inputs the `interp` fuzzer found, as small kernels: each must end in a
//! completion or a typed stop, never a host panic.

use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::Options;
use lathe_emu::session::{Session, SessionError, Shape};

/// `fuzz/seeds/interp/cmpswap_x2_past_vgprs`: a 64-bit compare-and-swap
/// whose data registers lie past the wave's VGPRs (the kernel allocates 8)
/// indexed the register file directly and panicked. Registers past the
/// allocation read 0, as every other vector source does.
#[test]
fn cmpswap_x2_with_data_past_the_allocated_vgprs() {
    for target in ["gfx90a", "gfx942"] {
        let glc = if target == "gfx942" { "sc0" } else { "glc" };
        let asm = format!(
            r#".amdgcn_target "amdgcn-amd-amdhsa--{target}"
.text
.globl k
.p2align 8
.type k,@function
k:
  s_load_dwordx2 s[4:5], s[0:1], 0
  s_waitcnt lgkmcnt(0)
  v_mov_b32_e32 v0, s4
  v_mov_b32_e32 v1, s5
  global_atomic_cmpswap_x2 v[2:3], v[0:1], v[132:135], off {glc}
  s_waitcnt vmcnt(0)
  global_store_dwordx2 v[0:1], v[2:3], off offset:8
  s_endpgm
.Lend:
.size k, .Lend-k
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_next_free_vgpr 8
  .amdhsa_accum_offset 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 8
  {flat}
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 8
    .max_flat_workgroup_size: 64
    .args:
      - {{ .name: mem, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }}
...
.end_amdgpu_metadata
"#,
            flat = if target == "gfx90a" {
                ".amdhsa_reserve_flat_scratch 0"
            } else {
                ""
            },
        );
        let co = std::fs::read(lathe_testkit::assemble_shared(
            target,
            "fuzz_cmpswap_x2",
            &asm,
        ))
        .expect("code object");
        let s = Session::load(target.parse().expect("target"), &[&co]).expect("load");
        // mem[0] = 0: equal to the compare value the registers past the
        // allocation hold (0), so the swap stores their source, also 0.
        let mut init = vec![0u8; 16];
        init[8..].copy_from_slice(&u64::MAX.to_le_bytes());
        let args = [Arg::Buffer {
            name: "mem".into(),
            size: 16,
            fill: Fill::Bytes(init),
            output: None,
        }];
        let opts = Options {
            threads: 1,
            ..Options::default()
        };
        match s.launch("k", Shape::linear(1, 1), &args, &opts) {
            Ok((_r, bufs)) => {
                let got = s.download(bufs[0].addr, 16).expect("read");
                // The old value (0) was returned and stored at offset 8.
                assert_eq!(got, vec![0u8; 16], "{target}");
            }
            Err(SessionError::Dispatch(e)) => panic!("{target}: unexpected stop {e}"),
            Err(e) => panic!("{target}: {e}"),
        }
    }
}

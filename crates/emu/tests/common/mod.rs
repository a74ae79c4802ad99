//! The assembly kernel shared by the operation tests (`gaps_valu.rs`,
//! `sem_ops.rs`, `fast_tier.rs`): one wave per work-group loads eight input
//! dwords per lane into v10..v17 and eight per wave into s20..s27, runs
//! `body`, and stores `results` dwords per lane from v40 on (`stores`).

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

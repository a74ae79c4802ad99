//! `mem-trace` on raw buffer (MUBUF) accesses: a kernel written in
//! assembly (built by clang-22 and `ld.lld -shared`) that builds its own
//! buffer descriptors and loads with `idxen`, `idxen offen` (the index and
//! offset pair) and stores with `offen` plus an SGPR `soffset`, with a
//! record stride, lanes past `num_records` (they read zero, their accesses
//! still issue) and a partial EXEC. The trace must equal the emulator's
//! access log exactly (per lane: the device address of the first byte),
//! the outputs the uninstrumented run's and a CPU reference's.

use std::path::PathBuf;

use lathe_dbi::tools::Tool;
use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::Options;
use lathe_emu::session::{Session, Shape};

mod common;

const GRID: u32 = 192;
/// Records the input descriptor covers (8-byte stride): work-items at or
/// past this index read zero.
const RECORDS: u32 = 100;
/// Input words.
const IN_WORDS: u32 = 2 * GRID + 16;
/// Lanes below this run the partial-EXEC load.
const PARTIAL: u32 = 40;

fn asm(target: &str) -> String {
    format!(
        r#".amdgcn_target "amdgcn-amd-amdhsa--{target}"
.text
.globl raw_buf
.p2align 8
.type raw_buf,@function
raw_buf:
  s_load_dwordx4 s[4:7], s[0:1], 0
  v_lshl_add_u32 v1, s2, 6, v0
  s_waitcnt lgkmcnt(0)
  ; in: stride 8, {RECORDS} records
  s_mov_b32 s8, s6
  s_and_b32 s9, s7, 0xffff
  s_or_b32 s9, s9, 0x80000
  s_mov_b32 s10, {RECORDS}
  s_mov_b32 s11, 0x27000
  ; out: raw bytes, stride 0, based 8 bytes low (soffset adds them back)
  s_sub_u32 s12, s4, 8
  s_subb_u32 s13, s5, 0
  s_and_b32 s13, s13, 0xffff
  s_mov_b32 s14, {out_bytes}
  s_mov_b32 s15, 0x27000
  buffer_load_dword v2, v1, s[8:11], 0 idxen offset:4
  v_and_b32_e32 v5, 4, v0
  v_mov_b32_e32 v4, v1
  v_mov_b32_e32 v3, 0
  v_cmp_gt_u32_e32 vcc, {PARTIAL}, v0
  s_and_saveexec_b64 s[18:19], vcc
  buffer_load_dword v3, v[4:5], s[8:11], 0 idxen offen
  s_mov_b64 exec, s[18:19]
  v_lshlrev_b32_e32 v6, 2, v1
  s_mov_b32 s16, 8
  s_waitcnt vmcnt(0)
  v_add_u32_e32 v2, v2, v3
  buffer_store_dword v2, v6, s[12:15], s16 offen
  s_endpgm
.Lend:
.size raw_buf, .Lend-raw_buf
.rodata
.p2align 6
.amdhsa_kernel raw_buf
  .amdhsa_next_free_vgpr 8
  {accum}
  .amdhsa_next_free_sgpr 20
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 16
  .amdhsa_system_sgpr_workgroup_id_x 1
  {flat}
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: raw_buf
    .symbol: raw_buf.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 24
    .vgpr_count: 8
    .max_flat_workgroup_size: 64
    .args:
      - {{ .name: out, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }}
      - {{ .name: in, .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global }}
...
.end_amdgpu_metadata
"#,
        out_bytes = GRID * 4 + 8,
        accum = ".amdhsa_accum_offset 8",
        flat = if target == "gfx90a" {
            ".amdhsa_reserve_flat_scratch 0"
        } else {
            ""
        },
    )
}

/// Assembles and links the kernel (cached by its text).
fn build(target: &str) -> PathBuf {
    lathe_testkit::assemble_shared(target, "rawbuf", &asm(target))
}

fn input(k: u32) -> u32 {
    k.wrapping_mul(2_654_435_761) ^ 0x5a5a_0000
}

/// What work-item `g` stores (at `out[g]`): `in` record `g`'s second word
/// plus, for lanes below [`PARTIAL`], the word chosen by lane bit 2 — each
/// zero past the descriptor's records.
fn reference(g: u32) -> u32 {
    let lane = g % 64;
    let rec = |w: u32| if g < RECORDS { input(2 * g + w) } else { 0 };
    let a = rec(1);
    let b = if lane < PARTIAL {
        rec(u32::from(lane & 4 != 0))
    } else {
        0
    };
    a.wrapping_add(b)
}

fn args() -> Vec<Arg> {
    vec![
        Arg::Buffer {
            name: "out".into(),
            size: u64::from(GRID) * 4,
            fill: Fill::Bytes(vec![0; GRID as usize * 4]),
            output: None,
        },
        Arg::Buffer {
            name: "in".into(),
            size: u64::from(IN_WORDS) * 4,
            fill: Fill::Bytes((0..IN_WORDS).flat_map(|k| input(k).to_le_bytes()).collect()),
            output: None,
        },
    ]
}

fn shape() -> Shape {
    Shape {
        grid: [GRID, 1, 1],
        block: [64, 1, 1],
        dims: 1,
        dynamic_lds: 0,
    }
}

#[test]
fn raw_buffer_accesses_are_traced_exactly() {
    for target in ["gfx90a", "gfx942"] {
        let agent: lathe_bundle::TargetId = target.parse().expect("target");
        let co = std::fs::read(build(target)).expect("code object");
        let opts = Options {
            threads: 1,
            ..Options::default()
        };
        let base = Session::load(agent, &[&co]).expect("load");
        let (_r, bufs) = base
            .launch("raw_buf", shape(), &args(), &opts)
            .expect("uninstrumented run");
        let want = base.download(bufs[0].addr, bufs[0].size).expect("out");
        let reference: Vec<u8> = (0..GRID).flat_map(|g| reference(g).to_le_bytes()).collect();
        assert_eq!(
            want, reference,
            "{target}: the kernel disagrees with the CPU"
        );
        let ro = lathe_dbi_run::builtin::RunOptions {
            record: true,
            force_lane_mode: false,
            trace_capacity: None,
        };
        let (run, b) = lathe_dbi_run::builtin::run(
            agent,
            &[&co],
            "raw_buf",
            Tool::MemTrace,
            shape(),
            &args(),
            &opts,
            &ro,
        )
        .expect("instrumented run");
        let got = run
            .session
            .download(run.buffers[0].addr, run.buffers[0].size)
            .expect("out");
        assert_eq!(got, want, "{target}: instrumented outputs differ");
        let t = run.trace.as_ref().expect("trace");
        assert_eq!(t.dropped, 0, "{target}: the ring filled");
        let mut traced: Vec<(u64, u8, u64)> =
            t.events.iter().map(|e| (e.pc, e.lane, e.addr)).collect();
        traced.sort_unstable();
        let truth = run.ground_truth_accesses.clone().expect("recorded");
        assert_eq!(
            traced.len(),
            truth.len(),
            "{target}: {} traced, {} in the access log",
            traced.len(),
            truth.len()
        );
        assert_eq!(traced, truth, "{target}: trace and access log differ");
        // Three buffer instructions: 2 full-wave, 1 under a partial EXEC.
        let waves = u64::from(GRID / 64);
        assert_eq!(
            truth.len() as u64,
            waves * (64 + 64 + u64::from(PARTIAL)),
            "{target}: access count"
        );
        // Addresses are the CPU's: the store of work-item g at out + 4g.
        let (in_addr, out_addr) = (run.buffers[1].addr, run.buffers[0].addr);
        let store_pc = b
            .sites
            .iter()
            .find(|s| s.inst.starts_with("buffer_store_dword"))
            .expect("store site")
            .pc;
        let stores: Vec<u64> = traced
            .iter()
            .filter(|a| a.0 == store_pc)
            .map(|a| a.2)
            .collect();
        assert_eq!(stores.len(), GRID as usize);
        for a in &stores {
            assert!(
                (out_addr..out_addr + u64::from(GRID) * 4).contains(a) && (a - out_addr) % 4 == 0,
                "{target}: store address {a:#x} outside out"
            );
        }
        // Past the records the loads still issue, beyond the input.
        assert!(
            traced
                .iter()
                .any(|a| a.0 != store_pc && a.2 >= in_addr + u64::from(RECORDS) * 8),
            "{target}: no out-of-range lane was traced"
        );
        let nco = lathe_codeobj::CodeObject::parse(&b.code_object).expect("parse result");
        assert!(lathe_codeobj::check::check(&nco).expect("check").is_clean());
        common::llvm_accepts(&b.code_object, target, &format!("rawbuf-{target}"))
            .expect("llvm accepts");
    }
}

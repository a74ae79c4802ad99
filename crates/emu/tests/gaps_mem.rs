//! Memory operations added with `interp/buffer_atomic.rs` and
//! `interp/smem_rw.rs`: every `buffer_atomic_*` (MUBUF, 32 and 64 bits,
//! cmpswap, f32/f64 add, f64 min/max, packed f16 add), `s_atomic_*`,
//! `s_buffer_atomic_*`, `s_store_*`, `s_buffer_store_*` and
//! `s_buffer_load_*` (with dwords past the buffer's end).
//!
//! An assembly kernel (clang-22, gfx90a and gfx942) runs each operation on
//! a slot of its own per lane (vector) or per wave (scalar), with random
//! initial memory and random operands, under per-wave EXEC patterns. The
//! returned old values (GLC) and the final memory are checked against a
//! reference written here from the ISA manual's definitions; slots of
//! inactive lanes must be untouched. A second kernel has all 64 lanes of
//! every wave, on several host threads, add into one word, which must see
//! every addition (no lost update).

mod alu_common;
use alu_common::Rng;

use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::Options;
use lathe_emu::session::{Session, Shape};

const WAVES: usize = 8;
const LANES: usize = WAVES * 64;
/// Bytes of memory per operation and lane (or wave): room for 4 dwords.
const SLOT: usize = 16;

type Rmw = fn(u64, u64, u64) -> u64;

/// (mnemonic, 64-bit, cmpswap, reference new value from (old, src, cmp)).
fn vector_ops() -> Vec<(&'static str, bool, bool, Rmw)> {
    fn fadd32(o: u64, s: u64, _: u64) -> u64 {
        u64::from((f32::from_bits(o as u32) + f32::from_bits(s as u32)).to_bits())
    }
    fn fadd64(o: u64, s: u64, _: u64) -> u64 {
        (f64::from_bits(o) + f64::from_bits(s)).to_bits()
    }
    fn fmin64(o: u64, s: u64, _: u64) -> u64 {
        f64::from_bits(o).min(f64::from_bits(s)).to_bits()
    }
    fn fmax64(o: u64, s: u64, _: u64) -> u64 {
        f64::from_bits(o).max(f64::from_bits(s)).to_bits()
    }
    fn pk_add_f16(o: u64, s: u64, _: u64) -> u64 {
        let h = |x: u64, k: u32| f16v((x >> (16 * k)) as u16);
        u64::from(to_f16(h(o, 0) + h(s, 0))) | u64::from(to_f16(h(o, 1) + h(s, 1))) << 16
    }
    let mut v: Vec<(&'static str, bool, bool, Rmw)> = Vec::new();
    for (wide, suffix) in [(false, ""), (true, "_x2")] {
        let list: [(&'static str, Rmw); 13] = if wide {
            [
                ("swap", |_, s, _| s),
                ("cmpswap", |o, s, c| if o == c { s } else { o }),
                ("add", |o, s, _| o.wrapping_add(s)),
                ("sub", |o, s, _| o.wrapping_sub(s)),
                ("smin", |o, s, _| (o as i64).min(s as i64) as u64),
                ("umin", |o, s, _| o.min(s)),
                ("smax", |o, s, _| (o as i64).max(s as i64) as u64),
                ("umax", |o, s, _| o.max(s)),
                ("and", |o, s, _| o & s),
                ("or", |o, s, _| o | s),
                ("xor", |o, s, _| o ^ s),
                ("inc", |o, s, _| if o >= s { 0 } else { o + 1 }),
                ("dec", |o, s, _| if o == 0 || o > s { s } else { o - 1 }),
            ]
        } else {
            [
                ("swap", |_, s, _| s),
                ("cmpswap", |o, s, c| if o == c { s } else { o }),
                ("add", |o, s, _| (o as u32).wrapping_add(s as u32).into()),
                ("sub", |o, s, _| (o as u32).wrapping_sub(s as u32).into()),
                ("smin", |o, s, _| (o as i32).min(s as i32) as u32 as u64),
                ("umin", |o, s, _| (o as u32).min(s as u32).into()),
                ("smax", |o, s, _| (o as i32).max(s as i32) as u32 as u64),
                ("umax", |o, s, _| (o as u32).max(s as u32).into()),
                ("and", |o, s, _| o & s),
                ("or", |o, s, _| o | s),
                ("xor", |o, s, _| o ^ s),
                (
                    "inc",
                    |o, s, _| if o as u32 >= s as u32 { 0 } else { o + 1 },
                ),
                ("dec", |o, s, _| {
                    let (o, s) = (o as u32, s as u32);
                    (if o == 0 || o > s { s } else { o - 1 }).into()
                }),
            ]
        };
        for (name, f) in list {
            let mn: &'static str = Box::leak(format!("{name}{suffix}").into_boxed_str());
            v.push((mn, wide, name == "cmpswap", f));
        }
    }
    v.push(("add_f32", false, false, fadd32));
    v.push(("add_f64", true, false, fadd64));
    v.push(("min_f64", true, false, fmin64));
    v.push(("max_f64", true, false, fmax64));
    v.push(("pk_add_f16", false, false, pk_add_f16));
    v
}

fn f16v(h: u16) -> f64 {
    let s = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let e = i32::from(h >> 10 & 0x1f);
    let m = f64::from(h & 0x3ff);
    s * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

/// Nearest-even f16 of a value that is a sum of two normal f16 values of
/// moderate size (no overflow or denormal results in this test).
fn to_f16(x: f64) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a == 0.0 {
        return sign;
    }
    let mut e = a.log2().floor() as i32;
    if 2f64.powi(e) > a {
        e -= 1;
    }
    if 2f64.powi(e + 1) <= a {
        e += 1;
    }
    if e < -14 {
        return sign | (a * 2f64.powi(24)).round_ties_even() as u16;
    }
    let m = (a / 2f64.powi(e) * 1024.0).round_ties_even() as u16;
    let (e, m) = if m == 2048 { (e + 1, 1024) } else { (e, m) };
    sign | ((e + 15) as u16) << 10 | (m - 1024)
}

/// A value for operation `name`: floats for the float ones, small numbers
/// for inc/dec (so both wrap rules occur), random bits otherwise.
fn value(r: &mut Rng, name: &str, wide: bool) -> u64 {
    let h = |r: &mut Rng| u64::from((r.u32() as u16 & 0x83ff) | (12 + r.below(6) as u16) << 10);
    match name {
        "add_f32" => u64::from((r.below(2000) as f32 - 1000.0).to_bits() ^ (r.u32() & 0xffff)),
        "add_f64" | "min_f64" | "max_f64" => ((r.below(2000) as f64 - 1000.0) / 7.0).to_bits(),
        "pk_add_f16" => h(r) | h(r) << 16,
        n if n.starts_with("inc") || n.starts_with("dec") => r.below(6),
        _ if wide => r.u64(),
        _ => u64::from(r.u32()),
    }
}

const SCALAR_OPS: [&str; 13] = [
    "swap", "cmpswap", "add", "sub", "smin", "umin", "smax", "umax", "and", "or", "xor", "inc",
    "dec",
];

fn kernel(target: &str, vops: &[(&'static str, bool, bool, Rmw)]) -> String {
    let mut body = String::new();
    // Vector atomics: v1 = global lane, v4 = lane * SLOT; operands in
    // v[20:23] = {src, cmp} loaded per op from the input.
    for (k, (name, _wide, _cas, _)) in vops.iter().enumerate() {
        let region = k * LANES * SLOT;
        body += &format!(
            "  s_mov_b32 s16, {region}\n  global_load_dwordx4 v[20:23], v[6:7], off offset:{}\n  s_waitcnt vmcnt(0)\n  buffer_atomic_{name} v[20:23], v4, s[8:11], s16 offen {glc}\n  s_waitcnt vmcnt(0)\n  global_store_dwordx4 v[8:9], v[20:23], off offset:{}\n",
            0,
            16 * k,
            glc = if target == "gfx942" { "sc0" } else { "glc" },
        )
        .replace("v[20:23], v4", &data_regs(name));
        body += "  v_add_co_u32_e32 v6, vcc, 16, v6\n  v_addc_co_u32_e32 v7, vcc, 0, v7, vcc\n";
    }
    // Scalar atomics and buffer atomics on wave g's slot of their region.
    let nv = vops.len();
    let mut k = nv;
    for prefix in ["s_atomic", "s_buffer_atomic"] {
        for (wide, suffix) in [(false, ""), (true, "_x2")] {
            for name in SCALAR_OPS {
                let region = k * LANES * SLOT;
                let data = match (name == "cmpswap", wide) {
                    (false, false) => "s30",
                    (false, true) | (true, false) => "s[30:31]",
                    (true, true) => "s[28:31]",
                };
                let base = if prefix == "s_atomic" {
                    "s[12:13]"
                } else {
                    "s[8:11]"
                };
                // s17 = region + wave * SLOT; operands at s[28:31] from the
                // uniform input (wave g's lane-0 row of its op).
                body += &format!(
                    "  s_add_u32 s17, s18, {region}\n  s_load_dwordx4 s[28:31], s[14:15], {off}\n  s_waitcnt lgkmcnt(0)\n{fix}  {prefix}_{name}{suffix} {data}, {base}, s17 glc\n  s_waitcnt lgkmcnt(0)\n  v_mov_b32_e32 v24, s30\n  v_mov_b32_e32 v25, s31\n  v_mov_b32_e32 v26, s28\n  v_mov_b32_e32 v27, s29\n  global_store_dwordx4 v[8:9], v[24:27], off offset:{out}\n",
                    off = 16 * k,
                    out = 16 * k,
                    // cmpswap data is {src, cmp}: s[28:31] for x2, s[30:31] else.
                    fix = "",
                );
                k += 1;
            }
        }
    }
    // Scalar stores of s[28:31] (the op's row) and loads back, buffer loads
    // past the end (NUM_RECORDS in s10 is the whole memory).
    let stores = [
        ("s_store_dword", "s28"),
        ("s_store_dwordx2", "s[28:29]"),
        ("s_store_dwordx4", "s[28:31]"),
        ("s_buffer_store_dword", "s28"),
        ("s_buffer_store_dwordx2", "s[28:29]"),
        ("s_buffer_store_dwordx4", "s[28:31]"),
    ];
    for (name, data) in stores {
        let region = k * LANES * SLOT;
        let base = if name.starts_with("s_buffer") {
            "s[8:11]"
        } else {
            "s[12:13]"
        };
        body += &format!(
            "  s_add_u32 s17, s18, {region}\n  s_load_dwordx4 s[28:31], s[14:15], {off}\n  s_waitcnt lgkmcnt(0)\n  {name} {data}, {base}, s17\n  s_waitcnt lgkmcnt(0)\n",
            off = 16 * k,
        );
        k += 1;
    }
    for (name, first, n) in LOADS {
        // From the end of the memory minus 8 bytes: the last 2 dwords are
        // inside, the rest read zero. Copied to the output 4 at a time.
        let data = if n == 1 {
            format!("s{first}")
        } else {
            format!("s[{first}:{}]", first + n - 1)
        };
        body += &format!(
            "  s_sub_u32 s17, s10, 8\n  {name} {data}, s[8:11], s17\n  s_waitcnt lgkmcnt(0)\n"
        );
        for j in 0..n {
            body += &format!("  v_mov_b32_e32 v{}, s{}\n", 24 + j % 4, first + j);
            if j % 4 == 3 || j == n - 1 {
                body += &format!(
                    "  global_store_dwordx4 v[8:9], v[24:27], off offset:{}\n  v_mov_b32_e32 v24, 0\n  v_mov_b32_e32 v25, 0\n  v_mov_b32_e32 v26, 0\n  v_mov_b32_e32 v27, 0\n",
                    16 * k
                );
                k += 1;
            }
        }
    }
    format!(
        r#".amdgcn_target "amdgcn-amd-amdhsa--{target}"
.text
.globl gmem
.p2align 8
.type gmem,@function
gmem:
  s_load_dwordx4 s[4:7], s[0:1], 0
  s_load_dwordx2 s[12:13], s[0:1], 16
  s_load_dword s19, s[0:1], 24
  v_lshl_add_u32 v1, s2, 6, v0
  s_waitcnt lgkmcnt(0)
  ; s[8:11]: a raw buffer over the memory, NUM_RECORDS = its size
  s_mov_b32 s8, s12
  s_and_b32 s9, s13, 0xffff
  s_mov_b32 s10, s19
  s_mov_b32 s11, 0x27000
  ; s[14:15]: wave g's input rows (lane 0's); s18 = g * SLOT
  s_mul_i32 s18, s2, {row_bytes}
  s_add_u32 s14, s6, s18
  s_addc_u32 s15, s7, 0
  s_mul_i32 s18, s2, {slot}
  ; v4 = lane * SLOT, v[6:7] = the lane's input row, v[8:9] its output row
  v_mul_u32_u24_e32 v4, {slot}, v1
  v_mul_u32_u24_e32 v2, {row_bytes_lane}, v1
  v_mov_b32_e32 v3, s7
  v_add_co_u32_e32 v6, vcc, s6, v2
  v_addc_co_u32_e32 v7, vcc, 0, v3, vcc
  v_mov_b32_e32 v3, s5
  v_add_co_u32_e32 v8, vcc, s4, v2
  v_addc_co_u32_e32 v9, vcc, 0, v3, vcc
  ; EXEC pattern of the wave: the first input row's last 8 bytes
  s_load_dwordx2 s[20:21], s[14:15], {exec_off}
  s_waitcnt lgkmcnt(0)
  s_mov_b64 s[22:23], exec
  s_mov_b64 exec, s[20:21]
{body}
  s_endpgm
.Lend:
.size gmem, .Lend-gmem
.rodata
.p2align 6
.amdhsa_kernel gmem
  .amdhsa_next_free_vgpr 32
  .amdhsa_accum_offset 32
  .amdhsa_next_free_sgpr 64
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 32
  .amdhsa_system_sgpr_workgroup_id_x 1
  {flat}
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: gmem
    .symbol: gmem.kd
    .kernarg_segment_size: 32
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 70
    .vgpr_count: 32
    .max_flat_workgroup_size: 64
    .args:
      - {{ .name: out, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }}
      - {{ .name: in, .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global }}
      - {{ .name: mem, .size: 8, .offset: 16, .value_kind: global_buffer, .address_space: global }}
      - {{ .name: size, .size: 4, .offset: 24, .value_kind: by_value }}
...
.end_amdgpu_metadata
"#,
        slot = SLOT,
        row_bytes = 64 * ROW,
        row_bytes_lane = ROW,
        exec_off = ROW - 8,
        flat = if target == "gfx90a" {
            ".amdhsa_reserve_flat_scratch 0"
        } else {
            ""
        },
    )
}

const LOADS: [(&str, usize, usize); 5] = [
    ("s_buffer_load_dword", 28, 1),
    ("s_buffer_load_dwordx2", 28, 2),
    ("s_buffer_load_dwordx4", 28, 4),
    ("s_buffer_load_dwordx8", 32, 8),
    ("s_buffer_load_dwordx16", 40, 16),
];

/// The 16-byte operand row of operation k (`a`, `b`) for (src, cmp), as
/// its kernel line reads it: vector data from the row's start ({src, cmp}
/// dword-packed for a 32-bit cmpswap); scalar data s[30:31] = `b` (or
/// {src, cmp} for a 32-bit cmpswap), s[28:31] = {src, cmp} for cmpswap_x2.
fn layout(scalar: bool, cas: bool, wide: bool, src: u64, cmp: u64) -> (u64, u64) {
    match (scalar, cas, wide) {
        (_, true, true) => (src, cmp),
        (false, true, false) => (src | cmp << 32, 0),
        (false, false, _) => (src, 0),
        (true, true, false) => (0, src | cmp << 32),
        (true, false, _) => (0, src),
    }
}

/// VDATA of a vector atomic.
fn data_regs(name: &str) -> String {
    let n = match (
        name.contains("cmpswap"),
        name.ends_with("x2") || name.ends_with("f64"),
    ) {
        (true, true) => 4,
        (true, false) | (false, true) => 2,
        (false, false) => 1,
    };
    let r = match n {
        1 => "v20".to_string(),
        n => format!("v[20:{}]", 19 + n),
    };
    format!("{r}, v4")
}

/// Bytes of input (and output) per lane: one 16-byte row per operation,
/// plus the EXEC pattern at the end.
const ROW: usize = 16 * 128 + 16;

#[test]
fn memory_operations_match_the_reference() {
    let vops = vector_ops();
    let nv = vops.len();
    let nscalar = 2 * 2 * SCALAR_OPS.len();
    let nstores = 6;
    let nloads = 1 + 1 + 1 + 2 + 4;
    let nops = nv + nscalar + nstores;
    assert!(16 * (nops + nloads) + 16 <= ROW);
    let mut r = Rng::new(0x06a9_53e3);
    // Initial memory: every op's region.
    let mem_bytes = nops * LANES * SLOT;
    let mut mem = vec![0u64; mem_bytes / 8];
    let mut input = vec![0u8; LANES * ROW];
    let mut operands = vec![vec![(0u64, 0u64); LANES]; nops];
    let op_name = |k: usize| -> (String, bool) {
        if k < nv {
            (vops[k].0.to_string(), vops[k].1)
        } else if k < nv + nscalar {
            let j = k - nv;
            let wide = j % 26 >= 13;
            (SCALAR_OPS[j % 13].to_string(), wide)
        } else {
            ("store".to_string(), true)
        }
    };
    for k in 0..nops {
        let (name, wide) = op_name(k);
        for l in 0..LANES {
            let slot = (k * LANES * SLOT + l * SLOT) / 8;
            mem[slot] = value(&mut r, &name, wide);
            mem[slot + 1] = r.u64();
            let src = value(&mut r, &name, wide);
            // cmpswap: the compare value equals the old value half the time.
            let cmp = if r.bool() {
                mem[slot]
            } else {
                value(&mut r, &name, wide)
            };
            let mask = if wide { u64::MAX } else { 0xffff_ffff };
            let (src, cmp) = (src & mask, cmp & mask);
            operands[k][l] = (src, cmp);
            let (a, b) = if k < nv + nscalar {
                layout(k >= nv, name.contains("cmpswap"), wide, src, cmp)
            } else {
                (r.u64(), r.u64())
            };
            let row = &mut input[l * ROW + 16 * k..l * ROW + 16 * k + 16];
            row[..8].copy_from_slice(&a.to_le_bytes());
            row[8..].copy_from_slice(&b.to_le_bytes());
        }
    }
    for g in 0..WAVES {
        let exec: u64 = match g % 4 {
            0 => u64::MAX,
            1 => u64::from(r.u32() | 1) << 32,
            2 => u64::from(r.u32() | 1),
            _ => r.u64() | 1,
        };
        let at = g * 64 * ROW + ROW - 8;
        input[at..at + 8].copy_from_slice(&exec.to_le_bytes());
    }
    let mem_init: Vec<u8> = mem.iter().flat_map(|x| x.to_le_bytes()).collect();
    for target in ["gfx90a", "gfx942"] {
        let co = std::fs::read(lathe_testkit::assemble_shared(
            target,
            "gaps_mem",
            &kernel(target, &vops),
        ))
        .expect("code object");
        let s = Session::load(target.parse().expect("target"), &[&co]).expect("load");
        let args = [
            Arg::Buffer {
                name: "out".into(),
                size: (LANES * ROW) as u64,
                fill: Fill::Bytes(vec![0; LANES * ROW]),
                output: None,
            },
            Arg::Buffer {
                name: "in".into(),
                size: input.len() as u64,
                fill: Fill::Bytes(input.clone()),
                output: None,
            },
            Arg::Buffer {
                name: "mem".into(),
                size: mem_init.len() as u64,
                fill: Fill::Bytes(mem_init.clone()),
                output: None,
            },
            Arg::Scalar {
                ty: "i32".into(),
                bytes: (mem_init.len() as u32).to_le_bytes().to_vec(),
            },
        ];
        let (_r, bufs) = s
            .launch(
                "gmem",
                Shape::linear(LANES as u32, 64),
                &args,
                &Options {
                    threads: 2,
                    ..Options::default()
                },
            )
            .expect("runs");
        let out = s.download(bufs[0].addr, bufs[0].size).expect("out");
        let fin = s.download(bufs[2].addr, bufs[2].size).expect("mem");
        let u64at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("8"));
        let mut bad = Vec::new();
        for g in 0..WAVES {
            let exec = u64at(&input, g * 64 * ROW + ROW - 8);
            for k in 0..nops {
                let (name, wide) = op_name(k);
                let scalar = k >= nv;
                for l in 0..64 {
                    let lane = g * 64 + l;
                    // A scalar op's slot is wave g's, its operands lane 0's row.
                    let (slot_lane, row_lane) = if scalar { (g, g * 64) } else { (lane, lane) };
                    let slot = k * LANES * SLOT + slot_lane * SLOT;
                    let row = row_lane * ROW + 16 * k;
                    let old = u64at(&mem_init, slot);
                    let active = exec >> l & 1 == 1;
                    let mask = if wide { u64::MAX } else { 0xffff_ffff };
                    let (src, cmp) = operands[k][row_lane];
                    let f: Rmw = if k < nv {
                        vops[k].3
                    } else if k < nv + nscalar {
                        vops[(k - nv) % 26].3
                    } else {
                        |o, _, _| o
                    };
                    if k < nv + nscalar {
                        let new = f(old & mask, src, cmp) & mask | old & !mask;
                        // Scalar memory runs whatever EXEC is.
                        let want_mem = if scalar || active { new } else { old };
                        let got_mem = u64at(&fin, slot);
                        if (!scalar || l == 0) && got_mem != want_mem {
                            bad.push(format!("{target} wave {g} lane {l} {name} (op {k}): memory {got_mem:#x}, want {want_mem:#x} (old {old:#x}, src {src:#x}, cmp {cmp:#x})"));
                        }
                        if !active {
                            continue;
                        }
                        // Scalar cmpswap_x2 returns into s[28:29] (bytes 8..16).
                        let at = if scalar && wide && name == "cmpswap" {
                            8
                        } else {
                            0
                        };
                        let got_ret = u64at(&out, lane * ROW + 16 * k + at) & mask;
                        if got_ret != old & mask {
                            bad.push(format!("{target} wave {g} lane {l} {name} (op {k}): returned {got_ret:#x}, want {:#x}", old & mask));
                        }
                    } else if l == 0 {
                        // Stores: dwords 1, 2, 4 of the row.
                        let n = [1, 2, 4][(k - nv - nscalar) % 3];
                        let want: Vec<u8> = input[row..row + 4 * n].to_vec();
                        let got = &fin[slot..slot + 4 * n];
                        if got != want.as_slice()
                            || fin[slot + 4 * n..slot + 16] != mem_init[slot + 4 * n..slot + 16]
                        {
                            bad.push(format!("{target} wave {g} store op {k}: memory {:02x?}, want {want:02x?} then the old bytes", &fin[slot..slot + 16]));
                        }
                    }
                }
            }
            // Buffer loads from 8 bytes before the end: 2 dwords, then zeros.
            let tail = &mem_init[mem_init.len() - 8..];
            if exec != 0 {
                let first = g * 64 + exec.trailing_zeros() as usize;
                let mut kk = nops;
                for (_, _, n) in LOADS {
                    let mut got = Vec::new();
                    for _ in 0..n.div_ceil(4) {
                        got.extend_from_slice(
                            &out[first * ROW + 16 * kk..first * ROW + 16 * kk + 16],
                        );
                        kk += 1;
                    }
                    let mut want = vec![0u8; got.len()];
                    let inside = 8.min(4 * n);
                    want[..inside].copy_from_slice(&tail[..inside]);
                    if got[..4 * n] != want[..4 * n] {
                        bad.push(format!(
                            "{target} wave {g} s_buffer_load x{n}: {got:02x?}, want {want:02x?}"
                        ));
                    }
                }
            }
        }
        assert!(
            bad.is_empty(),
            "{} mismatches:\n{}",
            bad.len(),
            bad[..bad.len().min(16)].join("\n")
        );
    }
}

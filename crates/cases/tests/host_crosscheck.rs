//! Cross-checks the Rust references against the kernels' own source: every
//! case whose kernel needs no cross-lane operation, LDS or barrier is
//! compiled as host C++ (clang-22, a small shim replacing lathe_hip_extra.h)
//! and run work-item by work-item over its grid (partial workgroups
//! included); the outputs must pass the case's check. This catches mistakes
//! in porting a kernel to its Rust reference. It says nothing about GPU
//! specifics (rounding of v_sqrt, DPP, MFMA, ...), which the shim does not
//! model.

use lathe_cases::{all, Case, Run, Value};
use lathe_testkit::{cache_dir, llvm_tool, run, workspace_root};
use std::collections::hash_map::DefaultHasher;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::process::Command;

/// Cases run on the host (kernels without LDS, barriers or cross-lane ops).
const HOST_CASES: &[&str] = &[
    "vadd_i32",
    "saxpy",
    "clamp_f32",
    "select_i32",
    "bitops_u32",
    "mad_mix_f32",
    "convert_mix",
    "atomic_int_ops",
    "atomic_ticket",
    "atomic_cas_loops",
    "atomic_fadd",
    "recursion_mix",
    "ackermann",
    "local_array_dyn",
    "sort_local",
    "devlib_hash",
    "devlib_poly",
    "devlib_gcd",
    "globals_kernel",
    "globals_struct",
    "f64_ops",
    "f16x2_ops",
    "f16_convert",
    "intdiv32",
    "intdiv64",
    "intdiv_const",
    "grid2d_stencil",
    "grid3d_ids",
    "collatz_steps",
    "divergent_mix",
    "nested_loops",
];

const SHIM: &str = r#"// Host shim for corpus kernels (tests/host_crosscheck.rs).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#define __global__
#define __device__
#define __host__
#define __shared__
#define __constant__
#define __managed__
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline
struct LatheDim { unsigned x, y, z; };
static LatheDim threadIdx, blockIdx, blockDim;
static inline void __syncthreads() {}
unsigned char lathe_dyn[1 << 16];
typedef unsigned long long lathe_u64;
typedef long long lathe_i64;
typedef _Float16 half2_t __attribute__((ext_vector_type(2)));
template <class T> static T atomicAdd(T *p, T v) { T o = *p; *p = o + v; return o; }
template <class T> static T atomicMin(T *p, T v) { T o = *p; if (v < o) *p = v; return o; }
template <class T> static T atomicMax(T *p, T v) { T o = *p; if (v > o) *p = v; return o; }
template <class T> static T atomicAnd(T *p, T v) { T o = *p; *p = o & v; return o; }
template <class T> static T atomicOr(T *p, T v) { T o = *p; *p = o | v; return o; }
template <class T> static T atomicXor(T *p, T v) { T o = *p; *p = o ^ v; return o; }
template <class T> static T atomicCAS(T *p, T e, T d) { T o = *p; if (o == e) *p = d; return o; }
static unsigned atomicInc(unsigned *p, unsigned lim) { unsigned o = *p; *p = o >= lim ? 0 : o + 1; return o; }
struct LatheArg {
  void *p; long long i; double d;
  template <class T> operator T *() const { return (T *)p; }
  operator int() const { return (int)i; }
  operator unsigned() const { return (unsigned)i; }
  operator float() const { return (float)d; }
  operator double() const { return d; }
};
static std::vector<std::vector<unsigned char>> lathe_read(const char *path) {
  std::vector<std::vector<unsigned char>> v;
  FILE *f = fopen(path, "rb");
  if (!f) exit(2);
  unsigned long long len;
  while (fread(&len, 8, 1, f) == 1) {
    std::vector<unsigned char> b(len + 1);
    if (len && fread(b.data(), 1, len, f) != len) exit(3);
    b.resize(len);
    v.push_back(b);
  }
  fclose(f);
  return v;
}
static void lathe_write(FILE *f, const void *p, unsigned long long len) {
  fwrite(&len, 8, 1, f);
  fwrite(p, 1, len, f);
}
"#;

/// The kernel's unqualified name from its mangled symbol (`_Z<len><name>...`).
fn base_name(sym: &str) -> &str {
    let rest = &sym[2..];
    let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
    let len: usize = rest[..digits].parse().expect("length");
    &rest[digits..digits + len]
}

fn driver(c: &Case) -> String {
    let mut s = String::from("#include \"lathe_hip_extra.h\"\n");
    for src in c.sources {
        let p = workspace_root().join("corpus/hip").join(src);
        writeln!(s, "#include \"{}\"", p.display()).expect("fmt");
    }
    s.push_str("int main(int, char **argv) {\n  auto bufs = lathe_read(argv[1]);\n");
    let mut call = Vec::new();
    let mut nbuf = 0;
    for a in &c.args {
        call.push(match a.value {
            Value::Buffer { .. } => {
                nbuf += 1;
                format!("LatheArg{{bufs[{}].data(), 0, 0}}", nbuf - 1)
            }
            Value::U32(v) => format!("LatheArg{{0, {v}LL, 0}}"),
            Value::I32(v) => format!("LatheArg{{0, {v}LL, 0}}"),
            Value::U64(v) => format!("LatheArg{{0, (long long){v}ULL, 0}}"),
            Value::I64(v) => format!("LatheArg{{0, {v}LL, 0}}"),
            Value::F32(v) => format!(
                "LatheArg{{0, 0, (double)__builtin_bit_cast(float, {:#x}u)}}",
                v.to_bits()
            ),
            Value::F64(v) => format!(
                "LatheArg{{0, 0, __builtin_bit_cast(double, {:#x}ull)}}",
                v.to_bits()
            ),
        });
    }
    let [gx, gy, gz] = c.grid;
    let [bx, by, bz] = c.block;
    writeln!(
        s,
        "  blockDim = {{{bx}u, {by}u, {bz}u}};
  for (unsigned z = 0; z < {gz}u; ++z) for (unsigned y = 0; y < {gy}u; ++y) for (unsigned x = 0; x < {gx}u; ++x) {{
    blockIdx = {{x / {bx}u, y / {by}u, z / {bz}u}};
    threadIdx = {{x % {bx}u, y % {by}u, z % {bz}u}};
    {}({});
  }}
  FILE *f = fopen(argv[2], \"wb\");
  for (auto &b : bufs) lathe_write(f, b.data(), b.size());",
        base_name(c.kernel),
        call.join(", ")
    )
    .expect("fmt");
    for g in &c.globals {
        writeln!(s, "  lathe_write(f, &{}, {});", g.symbol, g.size).expect("fmt");
    }
    s.push_str("  fclose(f);\n  return 0;\n}\n");
    s
}

fn write_blobs(path: &PathBuf, blobs: &[&[u8]]) {
    let mut out = Vec::new();
    for b in blobs {
        out.extend_from_slice(&(b.len() as u64).to_le_bytes());
        out.extend_from_slice(b);
    }
    std::fs::write(path, out).expect("write blobs");
}

fn read_blobs(path: &PathBuf) -> Vec<Vec<u8>> {
    let data = std::fs::read(path).expect("read blobs");
    let mut v = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let len = u64::from_le_bytes(data[at..at + 8].try_into().expect("8 bytes")) as usize;
        v.push(data[at + 8..at + 8 + len].to_vec());
        at += 8 + len;
    }
    v
}

#[test]
fn host_runs_of_the_kernels_pass_the_checks() {
    let dir = cache_dir().join("host-crosscheck");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("lathe_hip_extra.h"), SHIM).expect("write shim");
    let cases = all();
    for name in HOST_CASES {
        let c = cases
            .iter()
            .find(|c| c.name == *name)
            .unwrap_or_else(|| panic!("no case {name}"));
        let src = driver(c);
        let mut h = DefaultHasher::new();
        (SHIM, &src).hash(&mut h);
        for s in c.sources {
            std::fs::read(workspace_root().join("corpus/hip").join(s))
                .expect("source")
                .hash(&mut h);
        }
        let exe = dir.join(format!("{}-{:016x}", c.name, h.finish()));
        if !exe.exists() {
            let cpp = exe.with_extension("cpp");
            std::fs::write(&cpp, &src).expect("write driver");
            let tmp = exe.with_extension("tmp");
            run(Command::new(llvm_tool("clang++"))
                .args([
                    "-std=c++17",
                    "-O1",
                    "-w",
                    "-ffp-contract=off",
                    "-Xclang",
                    "-ffloat16-excess-precision=none",
                ])
                .arg("-I")
                .arg(&dir)
                .arg(&cpp)
                .arg("-o")
                .arg(&tmp));
            std::fs::rename(&tmp, &exe).expect("rename exe");
        }
        let bufs: Vec<(&str, &[u8], bool)> = c
            .args
            .iter()
            .filter_map(|a| match &a.value {
                Value::Buffer { bytes, output } => {
                    Some((a.name, bytes.as_slice(), output.is_some()))
                }
                _ => None,
            })
            .collect();
        let input = dir.join(format!("{}.in", c.name));
        let output = dir.join(format!("{}.out", c.name));
        write_blobs(&input, &bufs.iter().map(|b| b.1).collect::<Vec<_>>());
        run(Command::new(&exe).arg(&input).arg(&output));
        let blobs = read_blobs(&output);
        let mut outs = Vec::new();
        for (i, (name, _, is_out)) in bufs.iter().enumerate() {
            if *is_out {
                outs.push((name.to_string(), blobs[i].clone()));
            }
        }
        for (g, b) in c.globals.iter().zip(&blobs[bufs.len()..]) {
            outs.push((g.symbol.to_string(), b.clone()));
        }
        c.check(&Run::new(outs))
            .unwrap_or_else(|e| panic!("host run: {e}"));
    }
}

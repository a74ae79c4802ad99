//! gfx950 (CDNA4) matrix instructions through the interpreter, against a
//! CPU GEMM: `corpus/hip/mfma_gfx950.hip` (clang-22, gfx950) runs
//! `v_mfma_f32_16x16x128_f8f6f4` with fp8 x fp8, bf8 x fp4 and fp4 x bf8
//! operands (CBSZ/BLGP formats) and `v_mfma_f32_16x16x32_bf16`, on random
//! codes of every finite value of each format (subnormals and zeros
//! included). The reference decodes the codes with the OCP Microscaling
//! Formats v1.0 definitions written here (E4M3: bias 7, S.1111.111 NaN;
//! E5M2: bias 15, IEEE specials; E2M1: bias 1), sums in f64, and allows
//! the f32 rounding of a k-ordered accumulation (hardware's internal order
//! is not public: D51). A format decoded with the wrong bias or mantissa
//! width is off by a factor of two or more on most elements.

use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::Options;
use lathe_emu::session::{Session, Shape};
use lathe_testkit::{Build, Output};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}

#[derive(Clone, Copy, Debug)]
enum Fmt {
    E4M3,
    E5M2,
    E2M1,
}

impl Fmt {
    fn bits(self) -> u32 {
        match self {
            Fmt::E2M1 => 4,
            _ => 8,
        }
    }

    /// The OCP MX value of `code`, `None` for NaN and infinities.
    fn value(self, code: u32) -> Option<f64> {
        let (e_bits, m_bits, bias) = match self {
            Fmt::E4M3 => (4, 3, 7),
            Fmt::E5M2 => (5, 2, 15),
            Fmt::E2M1 => (2, 1, 1),
        };
        let sign = if code >> (e_bits + m_bits) & 1 == 1 {
            -1.0
        } else {
            1.0
        };
        let e = (code >> m_bits) & ((1 << e_bits) - 1);
        let m = f64::from(code & ((1 << m_bits) - 1));
        let top = e == (1 << e_bits) - 1;
        match self {
            Fmt::E4M3 if top && m == 7.0 => return None,
            Fmt::E5M2 if top => return None,
            _ => {}
        }
        let frac = m / f64::from(1u32 << m_bits);
        let mag = if e == 0 {
            frac * 2f64.powi(1 - bias)
        } else {
            (1.0 + frac) * 2f64.powi(e as i32 - bias)
        };
        Some(sign * mag)
    }

    /// A random finite code.
    fn code(self, r: &mut Rng) -> u32 {
        loop {
            let c = r.next() & ((1 << self.bits()) - 1);
            if self.value(c).is_some() {
                return c;
            }
        }
    }
}

/// Packs codes of `bits` bits little-endian into bytes.
fn pack(codes: &[u32], bits: u32) -> Vec<u8> {
    if bits == 8 {
        return codes.iter().map(|&c| c as u8).collect();
    }
    codes
        .chunks(2)
        .map(|p| (p[0] | p.get(1).copied().unwrap_or(0) << 4) as u8)
        .collect()
}

fn run(kernel: &str, a: Vec<u8>, b: Vec<u8>, c: &[f32]) -> Vec<f32> {
    let co = std::fs::read(Build::new("mfma_gfx950.hip", &["gfx950"], Output::CodeObject).build())
        .expect("code object");
    let s = Session::load("gfx950".parse().expect("target"), &[&co]).expect("load");
    let buf = |name: &str, bytes: Vec<u8>| Arg::Buffer {
        name: name.into(),
        size: bytes.len() as u64,
        fill: Fill::Bytes(bytes),
        output: None,
    };
    let args = vec![
        buf("D", vec![0; 256 * 4]),
        buf("A", a),
        buf("B", b),
        buf("C", c.iter().flat_map(|x| x.to_le_bytes()).collect()),
    ];
    let shape = Shape {
        grid: [64, 1, 1],
        block: [64, 1, 1],
        dims: 1,
        dynamic_lds: 0,
    };
    let (_r, bufs) = s
        .launch(kernel, shape, &args, &Options::default())
        .expect("run");
    s.download(bufs[0].addr, bufs[0].size)
        .expect("D")
        .chunks(4)
        .map(|x| f32::from_le_bytes(x.try_into().expect("4")))
        .collect()
}

/// Compares D with C + A·B (16x16, K = `k`), A and B as f64 matrices.
fn check(what: &str, d: &[f32], a: &[f64], b: &[f64], c: &[f32], k: usize) {
    for i in 0..16 {
        for j in 0..16 {
            let mut sum = f64::from(c[i * 16 + j]);
            let mut mag = sum.abs();
            for kk in 0..k {
                let p = a[i * k + kk] * b[kk * 16 + j];
                sum += p;
                mag += p.abs();
            }
            let got = f64::from(d[i * 16 + j]);
            // k-ordered f32 accumulation: at most one rounding per step.
            let tol = mag * (k as f64 + 1.0) * 2f64.powi(-24) + 1e-30;
            assert!(
                (got - sum).abs() <= tol,
                "{what}: D[{i}][{j}] = {got}, want {sum} (± {tol})"
            );
        }
    }
}

fn f8f6f4(kernel: &str, fa: Fmt, fb: Fmt, seed: u64) {
    let mut r = Rng(seed);
    let ac: Vec<u32> = (0..16 * 128).map(|_| fa.code(&mut r)).collect();
    let bc: Vec<u32> = (0..128 * 16).map(|_| fb.code(&mut r)).collect();
    let c: Vec<f32> = (0..256)
        .map(|_| (r.next() % 2001) as f32 / 8.0 - 125.0)
        .collect();
    let d = run(kernel, pack(&ac, fa.bits()), pack(&bc, fb.bits()), &c);
    let av: Vec<f64> = ac.iter().map(|&x| fa.value(x).expect("finite")).collect();
    let bv: Vec<f64> = bc.iter().map(|&x| fb.value(x).expect("finite")).collect();
    check(kernel, &d, &av, &bv, &c, 128);
}

#[test]
fn f8f6f4_fp8_fp8_matches_a_cpu_gemm() {
    f8f6f4("f8f6f4_fp8_fp8", Fmt::E4M3, Fmt::E4M3, 0x950_0001);
}

#[test]
fn f8f6f4_bf8_fp4_matches_a_cpu_gemm() {
    f8f6f4("f8f6f4_bf8_fp4", Fmt::E5M2, Fmt::E2M1, 0x950_0002);
}

#[test]
fn f8f6f4_fp4_bf8_matches_a_cpu_gemm() {
    f8f6f4("f8f6f4_fp4_bf8", Fmt::E2M1, Fmt::E5M2, 0x950_0003);
}

#[test]
fn bf16_16x16x32_matches_a_cpu_gemm() {
    let mut r = Rng(0x950_0004);
    // bf16 of moderate magnitude (exponent 120..135), both signs.
    let mut bf = || (r.next() & 0x807f) | (120 + r.next() % 16) << 7;
    let a: Vec<u32> = (0..16 * 32).map(|_| bf()).collect();
    let b: Vec<u32> = (0..32 * 16).map(|_| bf()).collect();
    let c: Vec<f32> = (0..256).map(|i| i as f32 * 0.25 - 30.0).collect();
    let bytes = |v: &[u32]| v.iter().flat_map(|&x| (x as u16).to_le_bytes()).collect();
    let d = run("mfma_bf16_16x16x32", bytes(&a), bytes(&b), &c);
    let val = |x: &u32| f64::from(f32::from_bits(x << 16));
    let av: Vec<f64> = a.iter().map(val).collect();
    let bv: Vec<f64> = b.iter().map(val).collect();
    check("16x16x32 bf16", &d, &av, &bv, &c, 32);
}

//! MTBUF `tbuffer_load/store_format_{x,xy,xyz,xyzw}` and their d16 forms
//! over every data format x number format the GFX9 `format:` field
//! defines, run as assembled gfx90a and gfx942 kernels: each lane indexes
//! its own 32-byte record (IDXEN, stride 32) of the input buffer; loads
//! read at byte offset 8, stores write at offset 0 (cleared first) and are
//! read back raw. One load runs against a descriptor of 4 records, so the
//! lanes past it must read an all-zero element. EXEC patterns per wave as
//! in the other operation tests (full, only exec_hi, only exec_lo, mixed).
//!
//! The reference is written here from the MI200 ISA's format tables:
//! components listed least-significant first per format, values by the
//! unorm/snorm/scaled/int/float definitions, f16 and the 10/11-bit floats
//! decoded from sign/exponent/mantissa, stores by clamping, scaling and
//! rounding in f64.

mod alu_common;
mod common;
use alu_common::Rng;

use lathe_emu::run::Options;

use common::{IN, SENTINEL, WAVES};

/// Component widths, x first, and element bytes, by DFMT.
fn layout(d: u32) -> (Vec<u32>, u32) {
    match d {
        1 => (vec![8], 1),
        2 => (vec![16], 2),
        3 => (vec![8, 8], 2),
        4 => (vec![32], 4),
        5 => (vec![16, 16], 4),
        6 => (vec![11, 11, 10], 4),
        7 => (vec![10, 11, 11], 4),
        8 => (vec![2, 10, 10, 10], 4),
        9 => (vec![10, 10, 10, 2], 4),
        10 => (vec![8; 4], 4),
        11 => (vec![32; 2], 8),
        12 => (vec![16; 4], 8),
        13 => (vec![32; 3], 12),
        14 => (vec![32; 4], 16),
        _ => unreachable!(),
    }
}

const NFMTS: [u32; 7] = [0, 1, 2, 3, 4, 5, 7];

fn valid(d: u32, n: u32) -> bool {
    n != 7 || layout(d).0.iter().all(|&b| b >= 10)
}

/// The element's bits as one integer, and component k's raw bits.
fn field(el: u128, d: u32, k: usize) -> u64 {
    let (w, _) = layout(d);
    let off: u32 = w[..k].iter().sum();
    ((el >> off) as u64) & ((1u64 << w[k]) - 1)
}

fn signed(v: u64, b: u32) -> i64 {
    if v >> (b - 1) & 1 == 1 {
        v as i64 - (1i64 << b)
    } else {
        v as i64
    }
}

/// f16 / unsigned small float value by sign, exponent, mantissa.
fn minifloat(v: u64, ebits: u32, mbits: u32, has_sign: bool) -> f64 {
    let s = if has_sign && v >> (ebits + mbits) & 1 == 1 {
        -1.0
    } else {
        1.0
    };
    let e = (v >> mbits) as i32 & ((1 << ebits) - 1);
    let m = (v & ((1 << mbits) - 1)) as f64;
    let bias = (1 << (ebits - 1)) - 1;
    s * if e == (1 << ebits) - 1 {
        if m == 0.0 {
            f64::INFINITY
        } else {
            f64::NAN
        }
    } else if e == 0 {
        m / f64::from(1u32 << mbits) * 2f64.powi(1 - bias)
    } else {
        (1.0 + m / f64::from(1u32 << mbits)) * 2f64.powi(e - bias)
    }
}

fn f32b(x: f64) -> u32 {
    if x.is_nan() {
        0x7fc0_0000
    } else {
        (x as f32).to_bits()
    }
}

/// f32 bits to f16 bits, nearest even (NaN quiet).
fn to_h(x: u32) -> u32 {
    let f = f64::from(f32::from_bits(x));
    let sign = (x >> 16) & 0x8000;
    if f.is_nan() {
        return sign | 0x7e00;
    }
    let a = f.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    // Enumerate the 31 binades' quanta: value = q * 2^(e-25) for the
    // binade's quantum.
    let quantum = if a < 2f64.powi(-14) {
        2f64.powi(-24)
    } else {
        let mut e = a.log2().floor() as i32;
        if 2f64.powi(e) > a {
            e -= 1;
        }
        if 2f64.powi(e + 1) <= a {
            e += 1;
        }
        2f64.powi(e - 10)
    };
    let q = a / quantum;
    let r = q.round_ties_even();
    let v = r * quantum;
    // Rebuild the bits from the value.
    let bits = if v < 2f64.powi(-14) {
        (v / 2f64.powi(-24)) as u32
    } else {
        let e = v.log2().floor() as i32;
        let m = ((v / 2f64.powi(e) - 1.0) * 1024.0) as u32;
        ((e + 15) as u32) << 10 | m
    };
    sign | bits
}

fn is_float_valued(n: u32) -> bool {
    !matches!(n, 4 | 5)
}

/// Load reference: component k of element `el` as the VGPR dword.
fn load_ref(el: u128, d: u32, n: u32, k: usize) -> u32 {
    let (w, _) = layout(d);
    if k >= w.len() {
        return match (k, is_float_valued(n)) {
            (3, true) => 0x3f80_0000,
            (3, false) => 1,
            _ => 0,
        };
    }
    let b = w[k];
    let v = field(el, d, k);
    match n {
        0 => f32b(v as f64 / ((1u64 << b) - 1) as f64),
        1 => f32b((signed(v, b) as f64 / ((1u64 << (b - 1)) - 1) as f64).max(-1.0)),
        2 => (v as f32).to_bits(),
        3 => (signed(v, b) as f32).to_bits(),
        4 => v as u32,
        5 => signed(v, b) as u32,
        _ => match b {
            32 => v as u32,
            16 => f32b(minifloat(v, 5, 10, true)),
            11 => f32b(minifloat(v, 5, 6, false)),
            _ => f32b(minifloat(v, 5, 5, false)),
        },
    }
}

/// Store reference: the field bits for VGPR value `v`.
fn store_ref(v: u32, b: u32, n: u32) -> u64 {
    let x = f64::from(f32::from_bits(v));
    let m = (1u64 << b) - 1;
    let clamp = |lo: f64, hi: f64| if x.is_nan() { 0.0 } else { x.max(lo).min(hi) };
    match n {
        0 => (clamp(0.0, 1.0) * m as f64).round_ties_even() as u64,
        1 => {
            let s = (clamp(-1.0, 1.0) * ((1u64 << (b - 1)) - 1) as f64).round_ties_even() as i64;
            (s as u64) & m
        }
        2 => {
            let t = clamp(0.0, m as f64).trunc();
            t as u64
        }
        3 => {
            let lo = -((1i64 << (b - 1)) as f64);
            let hi = ((1i64 << (b - 1)) - 1) as f64;
            (clamp(lo, hi).trunc() as i64 as u64) & m
        }
        4 | 5 => u64::from(v) & m,
        _ => match b {
            32 => u64::from(v),
            16 => u64::from(to_h(v)),
            _ => {
                // Unsigned small float: via f16, dropping 10 - mb bits
                // (nearest even), negatives to 0.
                let mb = if b == 11 { 6 } else { 5 };
                if f32::from_bits(v).is_nan() {
                    return 31 << mb | 1 << (mb - 1);
                }
                if x <= 0.0 {
                    return 0;
                }
                let h = u64::from(to_h(v));
                if h >= 0x7c00 {
                    return 31 << mb;
                }
                let sh = 10 - mb;
                let kept = h >> sh;
                let rest = h & ((1 << sh) - 1);
                let half = 1 << (sh - 1);
                let r = kept + u64::from(rest > half || (rest == half && kept & 1 == 1));
                r.min(31 << mb)
            }
        },
    }
}

fn f16_to_f32(h: u32) -> u32 {
    f32b(minifloat(u64::from(h & 0xffff), 5, 10, true))
}

#[derive(Clone)]
struct Case {
    line: String,
    width: u32,
    kind: Kind,
}

#[derive(Clone, Copy)]
enum Kind {
    Load {
        d: u32,
        n: u32,
        comps: usize,
        d16: bool,
        /// Against the 4-record descriptor.
        small: bool,
        /// DST_SEL_X..W (MUBUF format loads; [`ID`] for MTBUF).
        sel: [u32; 4],
        /// `_d16_hi_x`: into the high half of a VGPR holding [`OLD`].
        hi: bool,
    },
    Store {
        d: u32,
        n: u32,
        comps: usize,
        d16: bool,
        /// `_d16_hi_x`: x from the high half.
        hi: bool,
    },
}

const SUFFIX: [&str; 4] = ["x", "xy", "xyz", "xyzw"];

/// The identity DST_SEL (x, y, z, w).
const ID: [u32; 4] = [4, 5, 6, 7];

/// What a `_d16_hi_x` load's VGPR holds before it.
const OLD: u32 = 0x1234_abcd;

/// The last dword of a MUBUF format resource: DST_SEL_X..W (3 bits each
/// from bit 0), NUM_FORMAT (14:12), DATA_FORMAT (18:15).
fn word3(d: u32, n: u32, sel: [u32; 4]) -> u32 {
    sel[0] | sel[1] << 3 | sel[2] << 6 | sel[3] << 9 | n << 12 | d << 15
}

/// MUBUF `buffer_load/store_format_*`: the same elements through
/// s[16:19], a copy of the 32-byte-stride resource s[28:31] whose last
/// dword (s19, set before each case) holds the format and DST_SEL.
fn mubuf_cases() -> Vec<Case> {
    let mut v = Vec::new();
    let sels = [0u32, 1, 4, 5, 6, 7];
    let load = |d, n, comps, d16, sel, hi| Kind::Load {
        d,
        n,
        comps,
        d16,
        small: false,
        sel,
        hi,
    };
    for d in 1..=14u32 {
        for n in NFMTS {
            if !valid(d, n) {
                continue;
            }
            // A select per (format, component), 0 and 1 included.
            let sel: [u32; 4] =
                std::array::from_fn(|k| sels[(d as usize * 7 + n as usize * 3 + k * 5) % 6]);
            let w3 = word3(d, n, sel);
            v.push(Case {
                line: format!("s_mov_b32 s19, {w3:#x}\n  buffer_load_format_xyzw vR4, v1, s[16:19], 0 idxen offset:8"),
                width: 4,
                kind: load(d, n, 4, false, sel, false),
            });
            let w3 = word3(d, n, ID);
            v.push(Case {
                line: format!("s_mov_b32 s19, {w3:#x}\n  buffer_load_format_d16_xyzw vR2, v1, s[16:19], 0 idxen offset:8"),
                width: 2,
                kind: load(d, n, 4, true, ID, false),
            });
            v.push(Case {
                line: format!(
                    "buffer_store_dwordx4 v[20:23], v1, s[28:31], 0 idxen\n  s_waitcnt vmcnt(0)\n  s_mov_b32 s19, {w3:#x}\n  buffer_store_format_xyzw v[12:15], v1, s[16:19], 0 idxen\n  s_waitcnt vmcnt(0)\n  buffer_load_dwordx4 vR4, v1, s[28:31], 0 idxen\n  s_waitcnt vmcnt(0)"
                ),
                width: 4,
                kind: Kind::Store {
                    d,
                    n,
                    comps: 4,
                    d16: false,
                    hi: false,
                },
            });
        }
    }
    // Every other form, on a few formats.
    let loads: [(&str, &str, usize, bool, u32, u32); 7] = [
        ("x", "vR", 1, false, 14, 7),
        ("xy", "vR2", 2, false, 10, 1),
        ("xyz", "vR3", 3, false, 9, 0),
        ("d16_x", "vR", 1, true, 12, 7),
        ("d16_xy", "vR", 2, true, 10, 4),
        ("d16_xyz", "vR2", 3, true, 12, 5),
        ("d16_hi_x", "vR", 1, true, 5, 7),
    ];
    for (sfx, dst, comps, d16, d, n) in loads {
        let hi = sfx == "d16_hi_x";
        let w3 = word3(d, n, [5, 4, 7, 1]);
        let init = if hi {
            format!("v_mov_b32_e32 vR, {OLD:#x}\n  ")
        } else {
            String::new()
        };
        v.push(Case {
            line: format!("s_mov_b32 s19, {w3:#x}\n  {init}buffer_load_format_{sfx} {dst}, v1, s[16:19], 0 idxen offset:8"),
            width: if d16 { comps.div_ceil(2) } else { comps } as u32,
            kind: load(d, n, comps, d16, [5, 4, 7, 1], hi),
        });
    }
    let stores: [(&str, &str, usize, bool, u32, u32); 7] = [
        ("x", "v12", 1, false, 13, 4),
        ("xy", "v[12:13]", 2, false, 8, 0),
        ("xyz", "v[12:14]", 3, false, 7, 7),
        ("d16_x", "v12", 1, true, 12, 1),
        ("d16_xy", "v12", 2, true, 5, 7),
        ("d16_xyzw", "v[12:13]", 4, true, 10, 5),
        ("d16_hi_x", "v12", 1, true, 2, 7),
    ];
    for (sfx, src, comps, d16, d, n) in stores {
        let w3 = word3(d, n, ID);
        v.push(Case {
            line: format!(
                "buffer_store_dwordx4 v[20:23], v1, s[28:31], 0 idxen\n  s_waitcnt vmcnt(0)\n  s_mov_b32 s19, {w3:#x}\n  buffer_store_format_{sfx} {src}, v1, s[16:19], 0 idxen\n  s_waitcnt vmcnt(0)\n  buffer_load_dwordx4 vR4, v1, s[28:31], 0 idxen\n  s_waitcnt vmcnt(0)"
            ),
            width: 4,
            kind: Kind::Store {
                d,
                n,
                comps,
                d16,
                hi: sfx == "d16_hi_x",
            },
        });
    }
    // The range check: 4 records of the 32-byte stride.
    v.push(Case {
        line: format!(
            "s_mov_b32 s18, 4\n  s_mov_b32 s19, {:#x}\n  buffer_load_format_xyzw vR4, v1, s[16:19], 0 idxen offset:8\n  s_mov_b32 s18, -1",
            word3(12, 0, ID)
        ),
        width: 4,
        kind: Kind::Load {
            d: 12,
            n: 0,
            comps: 4,
            d16: false,
            small: true,
            sel: ID,
            hi: false,
        },
    });
    v
}

fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for d in 1..=14 {
        for n in NFMTS {
            if !valid(d, n) {
                continue;
            }
            let f = d | n << 4;
            v.push(Case {
                line: format!(
                    "tbuffer_load_format_xyzw vR4, v1, s[28:31], 0 format:{f} idxen offset:8"
                ),
                width: 4,
                kind: Kind::Load {
                    d,
                    n,
                    comps: 4,
                    d16: false,
                    small: false,
                    sel: ID,
                    hi: false,
                },
            });
            v.push(Case {
                line: format!(
                    "tbuffer_load_format_d16_xyzw vR2, v1, s[28:31], 0 format:{f} idxen offset:8"
                ),
                width: 2,
                kind: Kind::Load {
                    d,
                    n,
                    comps: 4,
                    d16: true,
                    small: false,
                    sel: ID,
                    hi: false,
                },
            });
            for (comps, d16) in [(4, false), (3, true)] {
                let regs = if d16 { 2 } else { 4 };
                let src = if d16 { "v[12:13]" } else { "v[12:15]" };
                let sfx = SUFFIX[comps - 1];
                let form = if d16 { "d16_" } else { "" };
                v.push(Case {
                    line: format!(
                        "buffer_store_dwordx4 v[20:23], v1, s[28:31], 0 idxen\n  s_waitcnt vmcnt(0)\n  tbuffer_store_format_{form}{sfx} {src}, v1, s[28:31], 0 format:{f} idxen\n  s_waitcnt vmcnt(0)\n  buffer_load_dwordx4 vR4, v1, s[28:31], 0 idxen\n  s_waitcnt vmcnt(0)"
                    ),
                    width: 4.max(regs),
                    kind: Kind::Store {
                        d,
                        n,
                        comps,
                        d16,
                        hi: false,
                    },
                });
            }
        }
    }
    // Fewer components than the format, and the range check.
    for (comps, d16, f) in [
        (1, false, 10u32),
        (2, false, 12 | 7 << 4),
        (3, false, 14 | 4 << 4),
        (1, true, 5 | 7 << 4),
        (2, true, 10 | 1 << 4),
    ] {
        let sfx = SUFFIX[comps - 1];
        let form = if d16 { "d16_" } else { "" };
        let width = if d16 { comps.div_ceil(2) } else { comps } as u32;
        let dst = match width {
            1 => "vR",
            2 => "vR2",
            _ => "vR3",
        };
        v.push(Case {
            line: format!(
                "tbuffer_load_format_{form}{sfx} {dst}, v1, s[28:31], 0 format:{f} idxen offset:8"
            ),
            width,
            kind: Kind::Load {
                d: f & 15,
                n: f >> 4,
                comps,
                d16,
                small: false,
                sel: ID,
                hi: false,
            },
        });
    }
    // 2_10_10_10 unorm, 10_11_11 float, 16_16_16_16 sint.
    for (comps, f) in [(2usize, 9), (1, 6 | 7 << 4), (3, 12 | 5 << 4)] {
        v.push(Case {
            line: format!(
                "buffer_store_dwordx4 v[20:23], v1, s[28:31], 0 idxen\n  s_waitcnt vmcnt(0)\n  tbuffer_store_format_{} v[12:15], v1, s[28:31], 0 format:{f} idxen\n  s_waitcnt vmcnt(0)\n  buffer_load_dwordx4 vR4, v1, s[28:31], 0 idxen\n  s_waitcnt vmcnt(0)",
                SUFFIX[comps - 1]
            )
            .replace("v[12:15], v1, s[28:31], 0 format", match comps {
                1 => "v12, v1, s[28:31], 0 format",
                2 => "v[12:13], v1, s[28:31], 0 format",
                _ => "v[12:14], v1, s[28:31], 0 format",
            }),
            width: 4,
            kind: Kind::Store {
                d: f & 15,
                n: f >> 4,
                comps,
                d16: false,
                hi: false,
            },
        });
    }
    v.extend(mubuf_cases());
    // A 32_32 element at bytes 28..35 of a raw buffer of 30 bytes: out of
    // range as a whole.
    v.push(Case {
        line: "tbuffer_load_format_xyzw vR4, off, s[12:15], 0 format:75 offset:28".into(),
        width: 4,
        kind: Kind::Load {
            d: 11,
            n: 4,
            comps: 4,
            d16: false,
            small: true,
            sel: ID,
            hi: false,
        },
    });
    v.push(Case {
        line: "tbuffer_load_format_xyzw vR4, v1, s[32:35], 0 format:12 idxen offset:8".into(),
        width: 4,
        kind: Kind::Load {
            d: 12,
            n: 0,
            comps: 4,
            d16: false,
            small: true,
            sel: ID,
            hi: false,
        },
    });
    // The loads read the input at offset 8, which the stores (offset 0,
    // 16 bytes) overwrite: loads first.
    let (mut loads, stores): (Vec<Case>, Vec<Case>) = v
        .into_iter()
        .partition(|c| matches!(c.kind, Kind::Load { .. }));
    loads.extend(stores);
    loads
}

fn element(x: &[u32], at: usize) -> u128 {
    let mut el = 0u128;
    for k in 0..4 {
        el |= u128::from(x.get(at + k).copied().unwrap_or(0)) << (32 * k);
    }
    el
}

fn reference(case: &Case, x: &[u32], lane: usize) -> Vec<u32> {
    match case.kind {
        Kind::Load {
            d,
            n,
            comps,
            d16,
            small,
            sel,
            hi,
        } => {
            let (_, bytes) = layout(d);
            let mut el = element(x, 2);
            if bytes < 16 {
                el &= (1u128 << (8 * bytes)) - 1;
            }
            // The 4-record descriptor: lanes past index 3 are out of range;
            // the 30-byte raw buffer (the only 32_32 `small` case): all.
            if small && (lane >= 4 || d == 11) {
                el = 0;
            }
            let one = if is_float_valued(n) { 0x3f80_0000 } else { 1 };
            let c: Vec<u32> = (0..comps)
                .map(|k| match sel[k] {
                    0 => 0,
                    1 => one,
                    s => load_ref(el, d, n, s as usize - 4),
                })
                .collect();
            if d16 {
                let h = |v: u32| {
                    if is_float_valued(n) {
                        to_h(v)
                    } else {
                        v & 0xffff
                    }
                };
                if hi {
                    return vec![h(c[0]) << 16 | OLD & 0xffff];
                }
                c.chunks(2)
                    .map(|p| h(p[0]) | p.get(1).map_or(0, |&v| h(v)) << 16)
                    .collect()
            } else {
                c
            }
        }
        Kind::Store {
            d,
            n,
            comps,
            d16,
            hi,
        } => {
            let (w, _) = layout(d);
            let mut el = 0u128;
            let mut off = 0;
            for (k, &b) in w.iter().enumerate().take(comps) {
                let v = if d16 {
                    let half = if hi { 1 } else { k % 2 };
                    let h = x[2 + k / 2] >> (16 * half) & 0xffff;
                    match n {
                        4 => h,
                        5 => h as u16 as i16 as u32,
                        _ => f16_to_f32(h),
                    }
                } else {
                    x[2 + k]
                };
                el |= u128::from(store_ref(v, b, n)) << off;
                off += b;
            }
            // Bytes past the given components keep the 0xa5 fill.
            let written = off.div_ceil(8);
            let fill = if written >= 16 {
                0
            } else {
                u128::MAX << (8 * written) & 0xa5a5_a5a5_a5a5_a5a5_a5a5_a5a5_a5a5_a5a5
            };
            let el = el | fill;
            (0..4).map(|k| (el >> (32 * k)) as u32).collect()
        }
    }
}

fn asm(target: &str, cases: &[Case]) -> (String, u32) {
    let mut ops = String::new();
    let mut r = 40u32;
    for case in cases {
        r += r % 2 * u32::from(case.width > 1);
        let l = case
            .line
            .replace("vR4", &format!("v[{r}:{}]", r + 3))
            .replace("vR3", &format!("v[{r}:{}]", r + 2))
            .replace("vR2", &format!("v[{r}:{}]", r + 1))
            .replace("vR", &format!("v{r}"));
        ops += &format!("  {l}\n");
        r += case.width;
    }
    let results = r - 40;
    let sentinel: String = (0..results)
        .map(|k| format!("  v_mov_b32_e32 v{}, {SENTINEL:#x}\n", 40 + k))
        .collect();
    let stores: String = (0..results)
        .map(|k| {
            format!(
                "  global_store_dword v[2:3], v{}, off offset:{}\n",
                40 + k,
                4 * k
            )
        })
        .collect();
    let body = format!(
        "{sentinel}
  s_mov_b32 s28, s6
  s_and_b32 s29, s7, 0xffff
  s_or_b32 s29, s29, 0x200000
  s_mov_b32 s30, -1
  s_mov_b32 s31, 0x27000
  s_mov_b64 s[32:33], s[28:29]
  s_mov_b32 s34, 4
  s_mov_b32 s35, 0x27000
  s_mov_b64 s[12:13], s[28:29]
  s_and_b32 s13, s13, 0xffff
  s_mov_b32 s14, 30
  s_mov_b32 s15, 0x27000
  s_mov_b64 s[16:17], s[28:29]
  s_mov_b32 s18, -1
  v_mov_b32_e32 v20, 0xa5a5a5a5
  v_mov_b32_e32 v21, 0xa5a5a5a5
  v_mov_b32_e32 v22, 0xa5a5a5a5
  v_mov_b32_e32 v23, 0xa5a5a5a5
  s_mov_b64 s[36:37], exec
  s_mov_b32 exec_lo, s26
  s_mov_b32 exec_hi, s27
{ops}
  s_waitcnt vmcnt(0)
  s_mov_b64 exec, s[36:37]"
    );
    (
        common::kernel(target, "tbuf", &body, &stores, results, ""),
        results,
    )
}

fn inputs() -> Vec<u32> {
    let mut rng = Rng::new(0x7b0f);
    let lanes = (WAVES * 64) as usize;
    let mut v = vec![0u32; lanes * IN];
    let halves = [
        0u32, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x83ff, 0x3c00, 0xbc00, 0x3800, 0x7bff,
    ];
    let floats = [
        0.0f32, -0.0, 1.0, -1.0, 0.5, 0.25, 1.5, -2.0, 255.5, 1e10, -1e10, 3.0e-5,
    ];
    for l in 0..lanes {
        let x = &mut v[l * IN..(l + 1) * IN];
        for v in x.iter_mut().take(6).skip(2) {
            *v = match rng.below(5) {
                0 => rng.pick(&halves) | rng.pick(&halves) << 16,
                1 => rng.pick(&floats).to_bits(),
                // A float in [-1.25, 1.25]: normalised stores round.
                2 => ((rng.below(1 << 20) as f32 / (1 << 19) as f32 - 1.0) * 1.25).to_bits(),
                3 => rng.f32(),
                _ => rng.u32(),
            };
        }
    }
    common::exec_patterns(&mut v, || rng.u32());
    v
}

fn run(co: &[u8], target: &str, results: u32, input: &[u32]) -> Vec<u32> {
    common::launch(co, target, "tbuf", results, input, &Options::default()).0
}

fn same(got: u32, want: u32, f16: bool) -> bool {
    if got == want {
        return true;
    }
    if f16 {
        let nan = |h: u32| h & 0x7c00 == 0x7c00 && h & 0x3ff != 0;
        let lo = |v: u32| v & 0xffff;
        let hi = |v: u32| v >> 16;
        (lo(got) == lo(want) || (nan(lo(got)) && nan(lo(want))))
            && (hi(got) == hi(want) || (nan(hi(got)) && nan(hi(want))))
    } else {
        f32::from_bits(got).is_nan() && f32::from_bits(want).is_nan()
    }
}

#[test]
fn typed_buffer_formats_match_the_reference() {
    let input = inputs();
    let all = cases();
    // Kernels of at most ~200 result VGPRs each.
    let mut batches: Vec<Vec<Case>> = vec![Vec::new()];
    for c in all {
        let used: u32 = batches
            .last()
            .map_or(0, |b| b.iter().map(|c| c.width + 1).sum());
        if used + c.width > 200 {
            batches.push(Vec::new());
        }
        batches.last_mut().expect("batch").push(c);
    }
    for (target, cases) in ["gfx90a", "gfx942"]
        .into_iter()
        .flat_map(|t| batches.iter().map(move |b| (t, b)))
    {
        let (text, results) = asm(target, cases);
        let path = lathe_testkit::assemble_shared(target, "tbuffer", &text);
        let co = std::fs::read(&path).expect("code object");
        let out = run(&co, target, results, &input);
        let mut failures = Vec::new();
        for g in 0..WAVES as usize {
            let uni = &input[g * IN..(g + 1) * IN];
            let exec = u64::from(uni[6]) | u64::from(uni[7]) << 32;
            let mut r = 0usize;
            for case in cases {
                r += r % 2 * usize::from(case.width > 1);
                for l in 0..64 {
                    let lane = g * 64 + l;
                    let x = &input[lane * IN..(lane + 1) * IN];
                    let active = exec >> l & 1 == 1;
                    let want = if active {
                        reference(case, x, lane)
                    } else {
                        vec![SENTINEL; case.width as usize]
                    };
                    // f16 fields: any NaN matches any NaN (payloads are
                    // not specified).
                    let f16 = active
                        && matches!(
                            case.kind,
                            Kind::Load { d16: true, .. }
                                | Kind::Store {
                                    d: 2 | 5 | 12,
                                    n: 7,
                                    ..
                                }
                        );
                    for (k, &want) in want.iter().enumerate() {
                        let got = out[lane * results as usize + r + k];
                        if !same(got, want, f16) {
                            failures.push(format!(
                                "{target} wave {g} lane {l} `{}` dword {k}: got {got:#010x}, want {want:#010x} (inputs {:08x?})",
                                case.line.lines().nth(2).unwrap_or(&case.line).trim(),
                                &x[2..6]
                            ));
                        }
                    }
                }
                r += case.width as usize;
            }
        }
        assert!(
            failures.is_empty(),
            "{} mismatches, first:\n{}",
            failures.len(),
            failures[..failures.len().min(20)].join("\n")
        );
    }
}

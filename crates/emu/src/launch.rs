//! Kernel launches described as data: the JSON launch spec of `lathe run`
//! and its command-line shorthand, turned into device buffers and a kernarg
//! segment laid out by the kernel's metadata.
//!
//! Spec (all keys but `kernel`, `grid` and `block` optional):
//!
//! ```json
//! {
//!   "kernel": "axpy",
//!   "target": "gfx90a",
//!   "grid": [1000], "block": [256],
//!   "dynamic_lds": 0,
//!   "args": [
//!     {"buffer": {"name": "y", "size": 4000, "fill": "iota_f32", "output": "y.bin"}},
//!     {"buffer": {"name": "x", "file": "x.bin"}},
//!     {"f32": 2.0},
//!     {"i32": 1000}
//!   ]
//! }
//! ```
//!
//! Scalars: `i8 u8 i16 u16 i32 u32 i64 u64 f16 f32 f64` (f16 given as a
//! number, rounded to nearest even). Buffer fills: `zero`, `iota_u32`,
//! `iota_f32`, `random_u32` (fixed seed), `byte:N`, `u32:N`, `f32:X`; or
//! `file` with the initial bytes (size defaults to the file's). A buffer with
//! `output` is written to that path after the run.
//!
//! Command-line form of one argument: `buf:NAME:SIZE[:FILL][:out=PATH]`,
//! `buf:NAME:@FILE[:out=PATH]`, or `TYPE:VALUE` for scalars.

use serde::Deserialize;

/// Launch-spec errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LaunchError {
    /// A malformed argument or spec field.
    #[error("argument {index}: {why}")]
    BadArg {
        /// Argument position (0-based).
        index: usize,
        /// What is wrong.
        why: String,
    },
    /// The spec is not valid JSON for a launch.
    #[error("launch spec: {0}")]
    Spec(String),
    /// The arguments do not match the kernel's explicit parameters.
    #[error("kernel {kernel} takes {expected} explicit argument(s) ({signature}), {given} given")]
    Count {
        /// Kernel.
        kernel: String,
        /// Metadata count.
        expected: usize,
        /// Given count.
        given: usize,
        /// Parameter kinds and sizes.
        signature: String,
    },
    /// A scalar's width does not match the parameter's size.
    #[error("argument {index}: a {given}-byte {kind} for a {expected}-byte parameter")]
    Size {
        /// Position.
        index: usize,
        /// The scalar type given.
        kind: String,
        /// Its size.
        given: usize,
        /// The parameter's size.
        expected: u64,
    },
    /// A file could not be read.
    #[error("argument {index}: cannot read {path}: {why}")]
    File {
        /// Position.
        index: usize,
        /// Path.
        path: String,
        /// The I/O error.
        why: String,
    },
}

/// How a buffer starts.
#[derive(Debug, Clone, PartialEq)]
pub enum Fill {
    /// All zero.
    Zero,
    /// Every byte `N`.
    Byte(u8),
    /// Every u32 `N`.
    U32(u32),
    /// Every f32 `X`.
    F32(f32),
    /// u32 `i` at index `i`.
    IotaU32,
    /// f32 `i` at index `i`.
    IotaF32,
    /// A fixed-seed xorshift stream of u32.
    RandomU32,
    /// Bytes given (from a file).
    Bytes(Vec<u8>),
}

/// One kernel argument.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A device buffer; the kernel receives its address.
    Buffer {
        /// Name (for reports and outputs).
        name: String,
        /// Size in bytes.
        size: u64,
        /// Initial contents.
        fill: Fill,
        /// Where to write the contents after the run.
        output: Option<String>,
    },
    /// A scalar, little-endian bytes (1, 2, 4 or 8 of them).
    Scalar {
        /// Type name (`i32`, `f32`, ...).
        ty: String,
        /// Bytes.
        bytes: Vec<u8>,
    },
}

impl Fill {
    /// Parses a fill name.
    pub fn parse(s: &str) -> Result<Fill, String> {
        Ok(match s {
            "zero" => Fill::Zero,
            "iota_u32" => Fill::IotaU32,
            "iota_f32" => Fill::IotaF32,
            "random_u32" => Fill::RandomU32,
            _ => {
                let (k, v) = s
                    .split_once(':')
                    .ok_or_else(|| format!("unknown fill '{s}'"))?;
                match k {
                    "byte" => Fill::Byte(
                        parse_int(v).and_then(|x| u8::try_from(x).map_err(|e| e.to_string()))?,
                    ),
                    "u32" => Fill::U32(
                        parse_int(v).and_then(|x| u32::try_from(x).map_err(|e| e.to_string()))?,
                    ),
                    "f32" => Fill::F32(v.parse().map_err(|e| format!("f32 '{v}': {e}"))?),
                    _ => return Err(format!("unknown fill '{s}'")),
                }
            }
        })
    }

    /// The initial bytes of a buffer of `size` bytes (for small buffers;
    /// [`Fill::generate`] streams large ones).
    pub fn bytes(&self, size: u64) -> Vec<u8> {
        let mut v = vec![0u8; size as usize];
        self.generate(size, |off, c| {
            let o = off as usize;
            v[o..o + c.len()].copy_from_slice(c);
        });
        v
    }

    /// Produces the initial bytes of a `size`-byte buffer in order, 64 KiB
    /// at a time, as `sink(offset, bytes)`: a huge buffer is never built in
    /// host memory. Nothing is produced for [`Fill::Zero`] (device memory
    /// starts zeroed).
    pub fn generate(&self, size: u64, mut sink: impl FnMut(u64, &[u8])) {
        const CHUNK: u64 = 1 << 16;
        if *self == Fill::Zero {
            return;
        }
        let mut buf = vec![0u8; size.min(CHUNK) as usize];
        let mut rng: u32 = 0x2545_f491;
        let mut off = 0u64;
        while off < size {
            let n = (size - off).min(CHUNK) as usize;
            let c = &mut buf[..n];
            // Word index of the chunk's first dword (chunks are whole dwords).
            let base = (off / 4) as usize;
            let mut words = |f: &mut dyn FnMut(usize) -> u32| {
                for (i, w) in c.chunks_mut(4).enumerate() {
                    let b = f(base + i).to_le_bytes();
                    w.copy_from_slice(&b[..w.len()]);
                }
            };
            match self {
                Fill::Zero => {}
                Fill::Byte(b) => c.fill(*b),
                Fill::U32(x) => words(&mut |_| *x),
                Fill::F32(x) => words(&mut |_| x.to_bits()),
                Fill::IotaU32 => words(&mut |i| i as u32),
                Fill::IotaF32 => words(&mut |i| (i as f32).to_bits()),
                Fill::RandomU32 => words(&mut |_| {
                    rng ^= rng << 13;
                    rng ^= rng >> 17;
                    rng ^= rng << 5;
                    rng
                }),
                Fill::Bytes(b) => {
                    c.fill(0);
                    let from = usize::try_from(off).unwrap_or(usize::MAX).min(b.len());
                    let k = (b.len() - from).min(n);
                    c[..k].copy_from_slice(&b[from..from + k]);
                }
            }
            sink(off, c);
            off += n as u64;
        }
    }
}

fn parse_int(s: &str) -> Result<u64, String> {
    let r = if let Some(h) = s.strip_prefix("0x") {
        u64::from_str_radix(h, 16)
    } else {
        s.parse()
    };
    r.map_err(|e| format!("'{s}': {e}"))
}

fn parse_signed(s: &str) -> Result<i64, String> {
    if let Some(rest) = s.strip_prefix('-') {
        parse_int(rest).and_then(|v| i64::try_from(v).map(|x| -x).map_err(|e| e.to_string()))
    } else {
        parse_int(s).map(|v| v as i64)
    }
}

/// Scalar bytes of `value` as type `ty`.
pub fn scalar_bytes(ty: &str, value: &str) -> Result<Vec<u8>, String> {
    let range = |v: i64, lo: i64, hi: i64| {
        if v < lo || v > hi {
            Err(format!("{value} does not fit in {ty}"))
        } else {
            Ok(v)
        }
    };
    Ok(match ty {
        "i8" => vec![range(parse_signed(value)?, -128, 127)? as u8],
        "u8" => vec![range(parse_signed(value)?, 0, 255)? as u8],
        "i16" => (range(parse_signed(value)?, -32768, 32767)? as i16)
            .to_le_bytes()
            .to_vec(),
        "u16" => (range(parse_signed(value)?, 0, 65535)? as u16)
            .to_le_bytes()
            .to_vec(),
        "i32" => (range(parse_signed(value)?, i32::MIN as i64, i32::MAX as i64)? as i32)
            .to_le_bytes()
            .to_vec(),
        "u32" => (range(parse_signed(value)?, 0, u32::MAX as i64)? as u32)
            .to_le_bytes()
            .to_vec(),
        "i64" => parse_signed(value)?.to_le_bytes().to_vec(),
        "u64" => parse_int(value)?.to_le_bytes().to_vec(),
        "f16" => f32_to_f16(
            value
                .parse::<f32>()
                .map_err(|e| format!("f16 '{value}': {e}"))?,
        )
        .to_le_bytes()
        .to_vec(),
        "f32" => value
            .parse::<f32>()
            .map_err(|e| format!("f32 '{value}': {e}"))?
            .to_le_bytes()
            .to_vec(),
        "f64" => value
            .parse::<f64>()
            .map_err(|e| format!("f64 '{value}': {e}"))?
            .to_le_bytes()
            .to_vec(),
        _ => {
            return Err(format!(
                "unknown scalar type '{ty}' (i8 u8 i16 u16 i32 u32 i64 u64 f16 f32 f64)"
            ))
        }
    })
}

/// IEEE binary16 from binary32, round to nearest even.
pub fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1 << shift) - 1);
        let mut r = m >> shift;
        if rest > half || (rest == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let rest = man & 0x1fff;
    let mut r = ((e as u32) << 10) | (man >> 13);
    if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

/// Parses one command-line argument (see the module docs).
pub fn parse_cli_arg(index: usize, s: &str) -> Result<Arg, LaunchError> {
    let bad = |why: String| LaunchError::BadArg { index, why };
    let (kind, rest) = s.split_once(':').ok_or_else(|| {
        bad(format!(
            "'{s}': expected TYPE:VALUE or buf:NAME:SIZE[:FILL][:out=PATH]"
        ))
    })?;
    if kind != "buf" {
        return scalar_bytes(kind, rest)
            .map(|bytes| Arg::Scalar {
                ty: kind.into(),
                bytes,
            })
            .map_err(bad);
    }
    let mut parts = rest.split(':');
    let name = parts
        .next()
        .filter(|n| !n.is_empty())
        .ok_or_else(|| bad("buffer needs a name".into()))?;
    let size_or_file = parts
        .next()
        .ok_or_else(|| bad(format!("buffer {name} needs a size or @FILE")))?;
    let (size, mut fill) = if let Some(path) = size_or_file.strip_prefix('@') {
        let b = std::fs::read(path).map_err(|e| LaunchError::File {
            index,
            path: path.into(),
            why: e.to_string(),
        })?;
        (b.len() as u64, Fill::Bytes(b))
    } else {
        (
            parse_int(size_or_file).map_err(|e| bad(format!("buffer size {e}")))?,
            Fill::Zero,
        )
    };
    let mut output = None;
    let rest: Vec<&str> = parts.collect();
    let mut i = 0;
    while i < rest.len() {
        let p = rest[i];
        if let Some(o) = p.strip_prefix("out=") {
            output = Some(o.to_string());
        } else if matches!(p, "byte" | "u32" | "f32") && i + 1 < rest.len() {
            fill = Fill::parse(&format!("{p}:{}", rest[i + 1])).map_err(bad)?;
            i += 1;
        } else {
            fill = Fill::parse(p).map_err(bad)?;
        }
        i += 1;
    }
    Ok(Arg::Buffer {
        name: name.into(),
        size,
        fill,
        output,
    })
}

/// A parsed JSON launch spec.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchSpec {
    /// Kernel name (mangled, or the plain name of a unique kernel).
    pub kernel: String,
    /// Agent target ID.
    pub target: Option<String>,
    /// Grid size in work-items.
    pub grid: [u32; 3],
    /// Work-group size.
    pub block: [u32; 3],
    /// Dimensions (length of `grid`).
    pub dims: u32,
    /// Dynamic LDS bytes.
    pub dynamic_lds: u32,
    /// Arguments in order.
    pub args: Vec<Arg>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    kernel: String,
    target: Option<String>,
    grid: Vec<u32>,
    block: Vec<u32>,
    #[serde(default)]
    dynamic_lds: u32,
    #[serde(default)]
    args: Vec<serde_json::Value>,
}

/// Pads a 1–3 element size list with ones.
pub fn dims3(v: &[u32], what: &str) -> Result<([u32; 3], u32), String> {
    if v.is_empty() || v.len() > 3 {
        return Err(format!("{what} needs 1 to 3 sizes, got {}", v.len()));
    }
    let mut out = [1u32; 3];
    out[..v.len()].copy_from_slice(v);
    Ok((out, v.len() as u32))
}

impl LaunchSpec {
    /// Parses a JSON spec; relative file paths resolve against `base`.
    pub fn from_json(text: &str, base: &std::path::Path) -> Result<LaunchSpec, LaunchError> {
        let raw: RawSpec =
            serde_json::from_str(text).map_err(|e| LaunchError::Spec(e.to_string()))?;
        let (grid, dims) = dims3(&raw.grid, "grid").map_err(LaunchError::Spec)?;
        let (block, bdims) = dims3(&raw.block, "block").map_err(LaunchError::Spec)?;
        let dims = dims.max(bdims);
        let mut args = Vec::new();
        for (index, a) in raw.args.iter().enumerate() {
            args.push(json_arg(index, a, base)?);
        }
        Ok(LaunchSpec {
            kernel: raw.kernel,
            target: raw.target,
            grid,
            block,
            dims,
            dynamic_lds: raw.dynamic_lds,
            args,
        })
    }
}

fn json_arg(
    index: usize,
    v: &serde_json::Value,
    base: &std::path::Path,
) -> Result<Arg, LaunchError> {
    let bad = |why: String| LaunchError::BadArg { index, why };
    let obj = v
        .as_object()
        .filter(|o| o.len() == 1)
        .ok_or_else(|| bad(format!("expected one-key object, got {v}")))?;
    let (k, val) = obj
        .iter()
        .next()
        .ok_or_else(|| bad("empty object".into()))?;
    if k != "buffer" {
        let text = match val {
            serde_json::Value::Number(n) => n.to_string(),
            serde_json::Value::String(s) => s.clone(),
            other => return Err(bad(format!("{k} value must be a number, got {other}"))),
        };
        return scalar_bytes(k, &text)
            .map(|bytes| Arg::Scalar {
                ty: k.clone(),
                bytes,
            })
            .map_err(bad);
    }
    let b = val
        .as_object()
        .ok_or_else(|| bad("buffer must be an object".into()))?;
    for key in b.keys() {
        if !matches!(key.as_str(), "name" | "size" | "fill" | "file" | "output") {
            return Err(bad(format!("unknown buffer key '{key}'")));
        }
    }
    let name = b
        .get("name")
        .and_then(|x| x.as_str())
        .unwrap_or("buffer")
        .to_string();
    let output = b
        .get("output")
        .and_then(|x| x.as_str())
        .map(|o| base.join(o).display().to_string());
    let mut fill = match b.get("fill").and_then(|x| x.as_str()) {
        Some(f) => Fill::parse(f).map_err(bad)?,
        None => Fill::Zero,
    };
    let mut size = b.get("size").and_then(|x| x.as_u64());
    if let Some(f) = b.get("file").and_then(|x| x.as_str()) {
        let p = base.join(f);
        let bytes = std::fs::read(&p).map_err(|e| LaunchError::File {
            index,
            path: p.display().to_string(),
            why: e.to_string(),
        })?;
        size.get_or_insert(bytes.len() as u64);
        fill = Fill::Bytes(bytes);
    }
    let size = size.ok_or_else(|| bad(format!("buffer {name} needs a size or a file")))?;
    Ok(Arg::Buffer {
        name,
        size,
        fill,
        output,
    })
}

/// An explicit kernel parameter from the metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param<'a> {
    /// `.value_kind`.
    pub kind: &'a str,
    /// `.offset`.
    pub offset: u64,
    /// `.size`.
    pub size: u64,
}

/// Checks the arguments against the kernel's explicit parameters and writes
/// them into `kernarg`: scalars as given, buffers as the device addresses in
/// `buffer_addrs` (one per buffer argument, in order).
pub fn write_explicit_args(
    kernel: &str,
    params: &[Param<'_>],
    args: &[Arg],
    buffer_addrs: &[u64],
    kernarg: &mut [u8],
) -> Result<(), LaunchError> {
    if params.len() != args.len() {
        return Err(LaunchError::Count {
            kernel: kernel.into(),
            expected: params.len(),
            given: args.len(),
            signature: params
                .iter()
                .map(|p| format!("{}:{}", p.kind, p.size))
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    let mut next_buf = buffer_addrs.iter();
    for (index, (p, a)) in params.iter().zip(args).enumerate() {
        let bytes: Vec<u8> = match a {
            Arg::Buffer { .. } => {
                if p.size != 8 {
                    return Err(LaunchError::BadArg {
                        index,
                        why: format!("a buffer for a {}-byte {} parameter", p.size, p.kind),
                    });
                }
                next_buf.next().copied().unwrap_or(0).to_le_bytes().to_vec()
            }
            Arg::Scalar { ty, bytes } => {
                if bytes.len() as u64 != p.size {
                    return Err(LaunchError::Size {
                        index,
                        kind: ty.clone(),
                        given: bytes.len(),
                        expected: p.size,
                    });
                }
                bytes.clone()
            }
        };
        let off = p.offset as usize;
        let dst = kernarg
            .get_mut(off..off + bytes.len())
            .ok_or_else(|| LaunchError::BadArg {
                index,
                why: format!("parameter at {off} lies outside the kernarg segment"),
            })?;
        dst.copy_from_slice(&bytes);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_args() {
        assert_eq!(
            parse_cli_arg(0, "f32:2.5").expect("f32"),
            Arg::Scalar {
                ty: "f32".into(),
                bytes: 2.5f32.to_le_bytes().to_vec()
            }
        );
        assert_eq!(
            parse_cli_arg(0, "i8:-3").expect("i8"),
            Arg::Scalar {
                ty: "i8".into(),
                bytes: vec![0xfd]
            }
        );
        assert!(matches!(
            parse_cli_arg(3, "u8:300"),
            Err(LaunchError::BadArg { index: 3, .. })
        ));
        assert_eq!(
            parse_cli_arg(1, "buf:y:4096:iota_f32:out=y.bin").expect("buf"),
            Arg::Buffer {
                name: "y".into(),
                size: 4096,
                fill: Fill::IotaF32,
                output: Some("y.bin".into())
            }
        );
        assert_eq!(
            parse_cli_arg(1, "buf:z:0x100:u32:7").expect("buf"),
            Arg::Buffer {
                name: "z".into(),
                size: 256,
                fill: Fill::U32(7),
                output: None
            }
        );
        assert!(matches!(
            parse_cli_arg(0, "q32:1"),
            Err(LaunchError::BadArg { .. })
        ));
        assert!(matches!(
            parse_cli_arg(0, "buf:x:@/nonexistent"),
            Err(LaunchError::File { .. })
        ));
    }

    #[test]
    fn f16_rounding() {
        assert_eq!(f32_to_f16(1.0), 0x3c00);
        assert_eq!(f32_to_f16(-2.0), 0xc000);
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7c00, "rounds to infinity");
        assert_eq!(f32_to_f16(5.960_464_5e-8), 0x0001, "smallest subnormal");
        assert_eq!(f32_to_f16(1.0 + 1.0 / 2048.0), 0x3c00, "tie to even");
        assert_eq!(f32_to_f16(f32::NAN) & 0x7e00, 0x7e00);
    }

    #[test]
    fn spec_and_kernarg_layout() {
        let spec = LaunchSpec::from_json(
            r#"{"kernel":"axpy","grid":[1000],"block":[256],
                "args":[{"buffer":{"name":"y","size":4000,"fill":"iota_f32","output":"y.bin"}},
                        {"buffer":{"name":"x","size":4000}},{"f32":2.0},{"i32":1000}]}"#,
            std::path::Path::new("/tmp"),
        )
        .expect("spec");
        assert_eq!(
            (spec.grid, spec.block, spec.dims),
            ([1000, 1, 1], [256, 1, 1], 1)
        );
        let params = [
            Param {
                kind: "global_buffer",
                offset: 0,
                size: 8,
            },
            Param {
                kind: "global_buffer",
                offset: 8,
                size: 8,
            },
            Param {
                kind: "by_value",
                offset: 16,
                size: 4,
            },
            Param {
                kind: "by_value",
                offset: 20,
                size: 4,
            },
        ];
        let mut k = vec![0u8; 24];
        write_explicit_args("axpy", &params, &spec.args, &[0x1000, 0x2000], &mut k)
            .expect("layout");
        assert_eq!(&k[0..8], &0x1000u64.to_le_bytes());
        assert_eq!(&k[8..16], &0x2000u64.to_le_bytes());
        assert_eq!(&k[16..20], &2.0f32.to_le_bytes());
        assert_eq!(&k[20..24], &1000i32.to_le_bytes());
        let e =
            write_explicit_args("axpy", &params[..3], &spec.args, &[], &mut k).expect_err("count");
        assert!(
            e.to_string().contains("takes 3 explicit argument(s)"),
            "{e}"
        );
        let wrong = [Arg::Scalar {
            ty: "f64".into(),
            bytes: vec![0; 8],
        }];
        let e = write_explicit_args("k", &params[2..3], &wrong, &[], &mut k).expect_err("size");
        assert!(matches!(
            e,
            LaunchError::Size {
                expected: 4,
                given: 8,
                ..
            }
        ));
        let e = LaunchSpec::from_json(
            r#"{"kernel":"k","grid":[],"block":[1]}"#,
            std::path::Path::new("."),
        )
        .expect_err("empty grid");
        assert!(
            matches!(&e, LaunchError::Spec(m) if m == "grid needs 1 to 3 sizes, got 0"),
            "{e}"
        );
        let e = LaunchSpec::from_json(
            r#"{"kernel":"k","grid":[1],"block":[1],"bogus":1}"#,
            std::path::Path::new("."),
        )
        .expect_err("unknown field");
        assert!(
            matches!(&e, LaunchError::Spec(m) if m.contains("unknown field `bogus`")),
            "{e}"
        );
    }

    #[test]
    fn fills() {
        assert_eq!(Fill::IotaU32.bytes(10), vec![0, 0, 0, 0, 1, 0, 0, 0, 2, 0]);
        // Streaming across chunk edges gives the same bytes as one piece.
        let big = (1 << 17) + 6;
        for f in [
            Fill::IotaF32,
            Fill::RandomU32,
            Fill::Bytes((0..=255).cycle().take(70_000).collect()),
        ] {
            let whole = f.bytes(big);
            assert_eq!(whole.len() as u64, big);
            let mut words = Vec::new();
            f.generate(big, |off, c| {
                assert_eq!(off as usize, words.len());
                words.extend_from_slice(c);
            });
            assert_eq!(words, whole);
            if let Fill::IotaF32 = f {
                let k = 30_000usize;
                assert_eq!(whole[4 * k..4 * k + 4], (k as f32).to_le_bytes());
            }
        }
        let mut calls = 0;
        Fill::Zero.generate(1 << 40, |_, _| calls += 1);
        assert_eq!(calls, 0, "a zero fill writes nothing");
        assert_eq!(Fill::Zero.bytes(5), vec![0; 5]);
        assert_eq!(Fill::Byte(7).bytes(3), vec![7, 7, 7]);
        let r1 = Fill::RandomU32.bytes(64);
        assert_eq!(r1, Fill::RandomU32.bytes(64), "deterministic");
        assert_ne!(r1, vec![0; 64]);
    }
}

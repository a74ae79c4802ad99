//! What `lathe run` does with memory around a launch: `--set` device
//! globals before it, `--dump` and `--expect` buffers and device globals
//! after it.

use std::fmt::Write as _;

use anyhow::{bail, Context, Result};
use lathe_emu::launch::scalar_bytes;
use lathe_emu::session::{BufferOut, Session};
use lathe_loader::SymbolKind;
use serde_json::{json, Value};

/// A device global's address and size, found by the shared name rules.
fn global(session: &Session, pattern: &str) -> Result<(String, u64, u64)> {
    let vars: Vec<&lathe_loader::LoadedSymbol> = session
        .exe
        .symbols_of(SymbolKind::Variable)
        .filter(|s| !s.name.ends_with(".managed"))
        .collect();
    let name = lathe_codeobj::names::resolve(
        pattern,
        vars.iter().map(|s| s.name.as_str()),
        "device global",
    )?;
    // A `__managed__` variable's symbol is a pointer to its storage.
    if let Some(st) = session.exe.symbol(&format!("{name}.managed")) {
        return Ok((name.to_string(), st.address, st.size));
    }
    let s = session.exe.symbol(name).context("symbol vanished")?;
    Ok((name.to_string(), s.address, s.size))
}

/// Where NAME lives: a buffer of the run (by its argument name), else a
/// device global.
fn locate(session: &Session, buffers: &[BufferOut], name: &str) -> Result<(String, u64, u64)> {
    if let Some(b) = buffers.iter().rev().find(|b| b.name == name) {
        return Ok((format!("buffer {}", b.name), b.addr, b.size));
    }
    let (n, addr, size) = global(session, name)
        .with_context(|| format!("'{name}' is neither a buffer of this run nor a device global"))?;
    Ok((format!("device global {n}"), addr, size))
}

/// `--set NAME=TYPE:V[,V...]` or `NAME=@FILE`.
pub(super) fn set_global(session: &Session, spec: &str) -> Result<String> {
    let (name, value) = spec
        .split_once('=')
        .with_context(|| format!("--set '{spec}': expected NAME=TYPE:V[,V...] or NAME=@FILE"))?;
    let (full, addr, size) = global(session, name).with_context(|| format!("--set '{spec}'"))?;
    let bytes = if let Some(f) = value.strip_prefix('@') {
        std::fs::read(f).with_context(|| format!("--set '{spec}': cannot read {f}"))?
    } else {
        let (ty, vals) = value
            .split_once(':')
            .with_context(|| format!("--set '{spec}': expected TYPE:V[,V...]"))?;
        let mut b = Vec::new();
        for v in vals.split(',') {
            b.extend(
                scalar_bytes(ty, v.trim()).map_err(|e| anyhow::anyhow!("--set '{spec}': {e}"))?,
            );
        }
        b
    };
    if bytes.len() as u64 > size {
        bail!(
            "--set '{spec}': {} bytes given but {full} has {size}",
            bytes.len()
        );
    }
    session
        .mem
        .view()
        .write_bytes(addr, &bytes)
        .map_err(|e| anyhow::anyhow!("--set '{spec}': {e}"))?;
    Ok(full)
}

const TYPES: [(&str, usize); 11] = [
    ("i8", 1),
    ("u8", 1),
    ("i16", 2),
    ("u16", 2),
    ("i32", 4),
    ("u32", 4),
    ("i64", 8),
    ("u64", 8),
    ("f16", 2),
    ("f32", 4),
    ("f64", 8),
];

/// Bytes as typed values, at most `max` of them.
fn typed_values(ty: &str, bytes: &[u8], max: usize) -> Result<(Vec<Value>, String)> {
    if ty == "hex" {
        let shown = &bytes[..bytes.len().min(max)];
        let text = shown
            .chunks(16)
            .enumerate()
            .map(|(i, c)| {
                format!(
                    "  {:08x}: {}",
                    i * 16,
                    c.iter()
                        .map(|b| format!("{b:02x}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                )
            })
            .collect::<Vec<_>>()
            .join("\n");
        return Ok((shown.iter().map(|&b| json!(b)).collect(), text));
    }
    let size = TYPES
        .iter()
        .find(|(t, _)| *t == ty)
        .map(|(_, s)| *s)
        .with_context(|| {
            format!("unknown type '{ty}' (i8 u8 i16 u16 i32 u32 i64 u64 f16 f32 f64 hex)")
        })?;
    let mut vals = Vec::new();
    for c in bytes.chunks_exact(size).take(max) {
        let mut b = [0u8; 8];
        b[..size].copy_from_slice(c);
        let x = u64::from_le_bytes(b);
        vals.push(match ty {
            "i8" => json!(x as u8 as i8),
            "i16" => json!(x as u16 as i16),
            "i32" => json!(x as u32 as i32),
            "i64" => json!(x as i64),
            "f16" => json!(f16_to_f32(x as u16)),
            "f32" => json!(f32::from_bits(x as u32)),
            "f64" => json!(f64::from_bits(x)),
            _ => json!(x),
        });
    }
    let text = vals
        .chunks(8)
        .enumerate()
        .map(|(i, c)| {
            format!(
                "  [{:>5}] {}",
                i * 8,
                c.iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    Ok((vals, text))
}

pub(super) fn f16_to_f32(h: u16) -> f32 {
    let s = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f32::from(h & 0x3ff);
    match e {
        0 => s * m * 2f32.powi(-24),
        31 if m == 0.0 => s * f32::INFINITY,
        31 => f32::NAN,
        _ => s * (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    }
}

/// `--dump NAME[:TYPE][:out=PATH]` for each of `dumps`: lines appended to
/// `text`, and the JSON entries.
pub(crate) fn dumps(
    session: &Session,
    buffers: &[BufferOut],
    dumps: &[String],
    text: &mut String,
) -> Result<Vec<Value>> {
    let mut dumps_json = Vec::new();
    for d in dumps {
        let mut parts = d.split(':');
        let name = parts.next().unwrap_or("");
        let mut ty = "hex";
        let mut out = None;
        for p in parts {
            if let Some(o) = p.strip_prefix("out=") {
                out = Some(o);
            } else {
                ty = p;
            }
        }
        let (what, addr, size) =
            locate(session, buffers, name).with_context(|| format!("--dump '{d}'"))?;
        let data = session
            .download(addr, size)
            .map_err(|e| anyhow::anyhow!("--dump '{d}': {e}"))?;
        if let Some(o) = out {
            std::fs::write(o, &data).with_context(|| format!("cannot write {o}"))?;
            let _ = writeln!(text, "wrote {what} ({size} bytes) to {o}");
        }
        let max = if out.is_some() { 0 } else { 4096 };
        let (vals, shown) =
            typed_values(ty, &data, max).with_context(|| format!("--dump '{d}'"))?;
        if out.is_none() {
            let elems = if ty == "hex" {
                data.len()
            } else {
                data.len() / TYPES.iter().find(|(t, _)| *t == ty).map_or(1, |(_, s)| *s)
            };
            let _ = writeln!(
                text,
                "{what} ({size} bytes) as {ty}{}:\n{shown}",
                if elems > vals.len() {
                    format!(", first {} of {elems}", vals.len())
                } else {
                    String::new()
                }
            );
        }
        dumps_json.push(json!({"name": name, "what": what, "size": size, "type": ty, "values": vals, "output": out}));
    }
    Ok(dumps_json)
}

/// `--expect NAME=FILE` for each of `expects`: lines appended to `text`,
/// the JSON entries, and the failures (empty when everything matched).
pub(crate) fn expectations(
    session: &Session,
    buffers: &[BufferOut],
    expects: &[String],
    text: &mut String,
) -> Result<(Vec<Value>, Vec<String>)> {
    let mut expect_json = Vec::new();
    let mut failures = Vec::new();
    for x in expects {
        let (name, file) = x.split_once('=').with_context(|| {
            format!("--expect '{x}': expected NAME=FILE or NAME:TYPE=FILE[:rtol=X][:atol=Y]")
        })?;
        if let Some((name, ty)) = name.split_once(':') {
            let (j, fail) = typed_expect(session, buffers, x, name, ty, file, text)?;
            expect_json.push(j);
            failures.extend(fail);
            continue;
        }
        let want =
            std::fs::read(file).with_context(|| format!("--expect '{x}': cannot read {file}"))?;
        let (what, addr, size) =
            locate(session, buffers, name).with_context(|| format!("--expect '{x}'"))?;
        let got = session
            .download(addr, size)
            .map_err(|e| anyhow::anyhow!("--expect '{x}': {e}"))?;
        let diffs =
            got.iter().zip(&want).filter(|(a, b)| a != b).count() + got.len().abs_diff(want.len());
        let first = got
            .iter()
            .zip(&want)
            .position(|(a, b)| a != b)
            .or_else(|| (got.len() != want.len()).then(|| got.len().min(want.len())));
        let line = match first {
            None => format!("{what} matches {file} ({size} bytes)"),
            Some(off) => {
                let m = format!(
                    "{what} differs from {file}: {diffs} byte(s) differ, first at offset {off} (got {}, expected {}){}",
                    got.get(off).map_or("end".into(), |b| format!("{b:#04x}")),
                    want.get(off).map_or("end".into(), |b| format!("{b:#04x}")),
                    if got.len() != want.len() {
                        format!("; sizes {} vs {}", got.len(), want.len())
                    } else {
                        String::new()
                    }
                );
                failures.push(m.clone());
                m
            }
        };
        let _ = writeln!(text, "{line}");
        expect_json.push(json!({"name": name, "file": file, "matches": first.is_none(), "differing_bytes": diffs, "first_difference": first}));
    }
    Ok((expect_json, failures))
}

/// A typed `--expect NAME:TYPE=FILE[:rtol=X][:atol=Y]`: element by
/// element, integers exactly, floating-point values within
/// `atol + rtol * |expected|` (both 0 by default: equal values; NaN
/// matches NaN).
fn typed_expect(
    session: &Session,
    buffers: &[BufferOut],
    x: &str,
    name: &str,
    ty: &str,
    file_tol: &str,
    text: &mut String,
) -> Result<(Value, Option<String>)> {
    let size = TYPES
        .iter()
        .find(|(t, _)| *t == ty)
        .map(|(_, s)| *s)
        .with_context(|| {
            format!(
                "--expect '{x}': unknown type '{ty}' (i8 u8 i16 u16 i32 u32 i64 u64 f16 f32 f64)"
            )
        })?;
    let float = ty.starts_with('f');
    let (mut file, mut rtol, mut atol) = (file_tol, 0f64, 0f64);
    while let Some((rest, opt)) = file.rsplit_once(':') {
        let (slot, v) = if let Some(v) = opt.strip_prefix("rtol=") {
            (&mut rtol, v)
        } else if let Some(v) = opt.strip_prefix("atol=") {
            (&mut atol, v)
        } else {
            break;
        };
        *slot = v
            .parse::<f64>()
            .ok()
            .filter(|t| t.is_finite() && *t >= 0.0)
            .with_context(|| format!("--expect '{x}': '{opt}': expected a number >= 0"))?;
        if !float {
            bail!("--expect '{x}': {ty} elements are compared exactly; rtol and atol are for f16, f32 and f64");
        }
        file = rest;
    }
    let want =
        std::fs::read(file).with_context(|| format!("--expect '{x}': cannot read {file}"))?;
    if want.len() % size != 0 {
        bail!(
            "--expect '{x}': {file} has {} bytes, not a whole number of {size}-byte {ty} elements",
            want.len()
        );
    }
    let (what, addr, bytes) =
        locate(session, buffers, name).with_context(|| format!("--expect '{x}'"))?;
    let got = session
        .download(addr, bytes)
        .map_err(|e| anyhow::anyhow!("--expect '{x}': {e}"))?;
    let value = |c: &[u8]| -> Num {
        let mut b = [0u8; 8];
        b[..size].copy_from_slice(c);
        let v = u64::from_le_bytes(b);
        match ty {
            "f16" => Num::F(f64::from(f16_to_f32(v as u16))),
            "f32" => Num::F(f64::from(f32::from_bits(v as u32))),
            "f64" => Num::F(f64::from_bits(v)),
            "i8" => Num::I(i128::from(v as u8 as i8)),
            "i16" => Num::I(i128::from(v as u16 as i16)),
            "i32" => Num::I(i128::from(v as u32 as i32)),
            "i64" => Num::I(i128::from(v as i64)),
            _ => Num::I(i128::from(v)),
        }
    };
    let (n_got, n_want) = (got.len() / size, want.len() / size);
    let mut mismatches = 0usize;
    let mut first = Vec::new();
    let (mut max_abs, mut max_rel) = (0f64, 0f64);
    for (i, (g, w)) in got
        .chunks_exact(size)
        .zip(want.chunks_exact(size))
        .enumerate()
    {
        let (g, w) = (value(g), value(w));
        let (ok, abs, rel) = match (g, w) {
            (Num::F(g), Num::F(w)) => {
                if g.is_nan() && w.is_nan() || g == w {
                    (true, 0.0, 0.0)
                } else {
                    let abs = (g - w).abs();
                    let rel = if w == 0.0 { abs } else { abs / w.abs() };
                    (abs <= atol + rtol * w.abs(), abs, rel)
                }
            }
            (Num::I(g), Num::I(w)) => {
                let abs = (g - w).unsigned_abs() as f64;
                (
                    g == w,
                    abs,
                    if w == 0 {
                        abs
                    } else {
                        abs / w.unsigned_abs() as f64
                    },
                )
            }
            _ => (false, f64::NAN, f64::NAN),
        };
        // NaN against a number is the worst error there is.
        max_abs = if abs.is_nan() {
            f64::NAN
        } else {
            max_abs.max(abs)
        };
        max_rel = if rel.is_nan() {
            f64::NAN
        } else {
            max_rel.max(rel)
        };
        if !ok {
            mismatches += 1;
            if first.len() < 5 {
                first.push((i, g, w));
            }
        }
    }
    let sized = n_got == n_want;
    let matches = mismatches == 0 && sized;
    let tol = if float {
        format!(", rtol {rtol}, atol {atol}")
    } else {
        String::new()
    };
    let line = if matches {
        format!(
            "{what} matches {file} as {ty} ({n_got} elements{tol}; max abs error {max_abs}, max rel error {max_rel})"
        )
    } else {
        let mut m = format!(
            "{what} differs from {file} as {ty}: {mismatches} of {} elements differ{tol}",
            n_got.min(n_want)
        );
        if !sized {
            let _ = write!(m, "; {what} has {n_got} elements, {file} {n_want}");
        }
        if mismatches > 0 {
            let _ = write!(
                m,
                "; max abs error {max_abs}, max rel error {max_rel}; first: {}",
                first
                    .iter()
                    .map(|(i, g, w)| format!("[{i}] got {g} expected {w}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        m
    };
    let _ = writeln!(text, "{line}");
    let j = json!({
        "name": name, "file": file, "type": ty, "matches": matches,
        "elements": n_got, "expected_elements": n_want,
        "mismatches": mismatches,
        "first_mismatches": first.iter().map(|(i, g, w)| json!({"index": i, "actual": g.json(), "expected": w.json()})).collect::<Vec<_>>(),
        "max_abs_error": finite(max_abs), "max_rel_error": finite(max_rel),
        "rtol": float.then_some(rtol), "atol": float.then_some(atol),
    });
    Ok((j, (!matches).then_some(line)))
}

/// An element value.
#[derive(Clone, Copy)]
enum Num {
    I(i128),
    F(f64),
}

impl Num {
    fn json(self) -> Value {
        match self {
            // JSON has no integers wider than 64 bits; every element fits.
            Num::I(v) => i64::try_from(v).map_or_else(|_| json!(v as u64), |v| json!(v)),
            Num::F(v) => finite(v),
        }
    }
}

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Num::I(v) => write!(f, "{v}"),
            Num::F(v) => write!(f, "{v}"),
        }
    }
}

/// A float as JSON: a number, or its text (`NaN`, `inf`) where JSON has
/// none.
fn finite(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else {
        json!(v.to_string())
    }
}

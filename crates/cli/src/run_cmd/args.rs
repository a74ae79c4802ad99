//! The launches of `lathe run`: the spec and the command line merged into
//! steps, and warnings about launches that are legal but probably not what
//! was meant.

use std::path::Path;

use anyhow::{bail, Context, Result};
use lathe_emu::launch::{dims3, parse_cli_arg, Arg, LaunchSpec};
use lathe_emu::session::{Session, Shape};

use crate::RunArgs;

fn parse_dims(s: &str, what: &str) -> Result<Vec<u32>> {
    s.split(',')
        .map(|x| {
            x.trim()
                .parse::<u32>()
                .with_context(|| format!("--{what} '{s}': expected X[,Y[,Z]]"))
        })
        .collect()
}

/// One launch to run.
pub(crate) struct Step {
    pub kernel: String,
    pub shape: Shape,
    pub args: Vec<Arg>,
}

/// Plans the launches from the spec and the command line.
pub(super) fn plan(a: &RunArgs) -> Result<(Vec<Step>, Option<String>)> {
    let specs = match &a.spec {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read {}", p.display()))?;
            LaunchSpec::sequence_from_json(&text, p.parent().unwrap_or(Path::new(".")))
                .with_context(|| format!("{}", p.display()))?
        }
        None => Vec::new(),
    };
    if specs.len() > 1 {
        if a.kernel.is_some()
            || a.grid.is_some()
            || a.blocks.is_some()
            || a.block.is_some()
            || !a.args.is_empty()
        {
            bail!(
                "--kernel, --grid, --blocks, --block and --arg cannot override a spec with several launches"
            );
        }
        let target = specs.iter().find_map(|s| s.target.clone());
        return Ok((
            specs
                .into_iter()
                .map(|s| Step {
                    kernel: s.kernel,
                    shape: Shape {
                        grid: s.grid,
                        block: s.block,
                        dims: s.dims,
                        dynamic_lds: a.dynamic_lds.unwrap_or(s.dynamic_lds),
                    },
                    args: s.args,
                })
                .collect(),
            target,
        ));
    }
    let spec = specs.into_iter().next();
    let kernel = a
        .kernel
        .clone()
        .or_else(|| spec.as_ref().map(|s| s.kernel.clone()))
        .context("--kernel is required (or a --spec naming it)")?;
    // Each of --grid/--blocks and --block overrides the spec's on its own.
    let (block, bd) = match (&a.block, &spec) {
        (Some(b), _) => dims3(&parse_dims(b, "block")?, "block").map_err(anyhow::Error::msg)?,
        (None, Some(s)) => (s.block, s.dims),
        (None, None) => bail!("--block is required (or a --spec)"),
    };
    let (grid, gd) = match (&a.grid, &a.blocks, &spec) {
        (Some(g), _, _) => dims3(&parse_dims(g, "grid")?, "grid").map_err(anyhow::Error::msg)?,
        (None, Some(n), _) => {
            let (n, nd) = dims3(&parse_dims(n, "blocks")?, "blocks").map_err(anyhow::Error::msg)?;
            let mut g = [0u32; 3];
            for d in 0..3 {
                g[d] = n[d].checked_mul(block[d]).with_context(|| {
                    format!(
                        "--blocks {}: {} work-groups of {} work-items overflow a 32-bit grid",
                        a.blocks.as_deref().unwrap_or(""),
                        n[d],
                        block[d]
                    )
                })?;
            }
            (g, nd)
        }
        (None, None, Some(s)) => (s.grid, s.dims),
        (None, None, None) => {
            bail!("--grid (work-items) or --blocks (work-groups) is required (or a --spec)")
        }
    };
    let dims = gd.max(bd);
    let args: Vec<Arg> = if a.args.is_empty() {
        spec.as_ref().map(|s| s.args.clone()).unwrap_or_default()
    } else {
        a.args
            .iter()
            .enumerate()
            .map(|(i, s)| parse_cli_arg(i, s).with_context(|| format!("--arg #{} '{s}'", i + 1)))
            .collect::<Result<_>>()?
    };
    let dynamic_lds = a
        .dynamic_lds
        .or(spec.as_ref().map(|s| s.dynamic_lds))
        .unwrap_or(0);
    let target = spec.as_ref().and_then(|s| s.target.clone());
    Ok((
        vec![Step {
            kernel,
            shape: Shape {
                grid,
                block,
                dims,
                dynamic_lds,
            },
            args,
        }],
        target,
    ))
}

/// Warnings about a grid that is legal but probably not what was meant:
/// `--grid` counts work-items (as HSA does), which a HIP user may read as
/// work-groups.
pub(super) fn grid_warnings(step: &Step) -> Vec<String> {
    let mut w = Vec::new();
    for (d, axis) in ["x", "y", "z"].iter().enumerate() {
        let (g, b) = (step.shape.grid[d], step.shape.block[d]);
        if b == 0 || g == 0 {
            continue;
        }
        if g < b {
            w.push(format!(
                "grid {axis} = {g} work-items is smaller than one work-group ({b}): one partial work-group of {g} work-items runs (--grid counts work-items, as HSA does; --blocks counts work-groups, as HIP's <<<blocks, threads>>> does)"
            ));
        } else if g % b != 0 {
            w.push(format!(
                "grid {axis} = {g} work-items is not a multiple of the work-group size {b}: the last work-group is partial ({} of {b} work-items; --grid counts work-items, --blocks work-groups)",
                g % b
            ));
        }
    }
    w
}

/// Warnings about a launch that is legal but probably not what was meant.
pub(super) fn warnings(session: &Session, step: &Step) -> Vec<String> {
    let mut w = Vec::new();
    let Ok((sym, md)) = session.kernel_metadata(&step.kernel) else {
        return w;
    };
    if md.uniform_work_group_size == Some(1) {
        for (d, axis) in ["x", "y", "z"].iter().enumerate() {
            let (g, b) = (step.shape.grid[d], step.shape.block[d]);
            if b > 0 && g % b != 0 {
                w.push(format!(
                    "{}: grid {axis} = {g} is not a multiple of the work-group size {b}, but the kernel's metadata says uniform_work_group_size: 1 (compiled assuming full work-groups; the last work-group is partial)",
                    sym.name
                ));
            }
        }
    }
    let params: Vec<_> = md
        .args
        .iter()
        .filter(|p| !p.value_kind.is_hidden())
        .collect();
    // The parameter types: the metadata's type names (OpenCL), else the
    // demangled signature's.
    let pretty = lathe_codeobj::names::demangle(&sym.name);
    let sig = pretty
        .as_deref()
        .and_then(lathe_codeobj::names::parameters)
        .filter(|p| p.len() == params.len());
    for (i, (p, a)) in params.iter().zip(&step.args).enumerate() {
        let Arg::Scalar { ty, bytes } = a else {
            continue;
        };
        if p.value_kind.as_str() == "global_buffer" {
            w.push(format!(
                "{}: argument #{} is a global_buffer (a pointer) but a scalar {ty} was given; use buf:NAME:SIZE for a device buffer",
                sym.name,
                i + 1
            ));
            continue;
        }
        let Some(cty) = p.type_name.or_else(|| sig.as_ref().map(|s| s[i])) else {
            continue;
        };
        let (Some(want), Some(given)) = (number_kind(cty), number_kind(ty)) else {
            continue;
        };
        if want != given {
            let name = p.name.map(|n| format!(" {n}")).unwrap_or_default();
            w.push(format!(
                "{}: argument #{}{name} has type `{cty}` ({want}) but {ty}:{} was given: the kernel reads its bits as {} ({}); pass it as {}:VALUE",
                pretty.as_deref().unwrap_or(&sym.name),
                i + 1,
                shown(ty, bytes),
                if want == "floating-point" { "a floating-point number" } else { "an integer" },
                reinterpreted(cty, bytes),
                suggest(cty, bytes.len()),
            ));
        }
    }
    w
}

/// Whether a C++ or lathe scalar type is an integer or a floating-point
/// number; `None` for anything else (pointers, structs, unknown names).
fn number_kind(ty: &str) -> Option<&'static str> {
    let t = ty
        .trim()
        .trim_start_matches("const ")
        .trim_end_matches(" const");
    if t.contains('*') || t.contains('&') {
        return None;
    }
    match t {
        "f16" | "f32" | "f64" | "float" | "double" | "half" | "_Float16" | "__half" | "__fp16"
        | "__hip_bfloat16" | "__bf16" => Some("floating-point"),
        "i8" | "u8" | "i16" | "u16" | "i32" | "u32" | "i64" | "u64" | "bool" | "char"
        | "signed char" | "unsigned char" | "short" | "unsigned short" | "int" | "unsigned int"
        | "unsigned" | "long" | "unsigned long" | "long long" | "unsigned long long" | "int8_t"
        | "uint8_t" | "int16_t" | "uint16_t" | "int32_t" | "uint32_t" | "int64_t" | "uint64_t"
        | "size_t" => Some("integer"),
        _ => None,
    }
}

/// The lathe type to pass for a C++ parameter type of `size` bytes.
fn suggest(cty: &str, size: usize) -> &'static str {
    match (number_kind(cty), size) {
        (Some("floating-point"), 2) => "f16",
        (Some("floating-point"), 8) => "f64",
        (Some("floating-point"), _) => "f32",
        (_, 1) if cty.contains("unsigned") || cty.starts_with('u') => "u8",
        (_, 1) => "i8",
        (_, 2) if cty.contains("unsigned") || cty.starts_with('u') => "u16",
        (_, 2) => "i16",
        (_, 8) if cty.contains("unsigned") || cty.starts_with('u') || cty == "size_t" => "u64",
        (_, 8) => "i64",
        _ if cty.contains("unsigned") || cty.starts_with('u') => "u32",
        _ => "i32",
    }
}

/// The value `bytes` hold as the lathe type `ty`.
fn shown(ty: &str, bytes: &[u8]) -> String {
    let mut b = [0u8; 8];
    let n = bytes.len().min(8);
    b[..n].copy_from_slice(&bytes[..n]);
    let x = u64::from_le_bytes(b);
    match (ty, n) {
        ("f32", 4) => float_text(f32::from_bits(x as u32)),
        ("f64", 8) => float_text(f64::from_bits(x)),
        ("f16", 2) => float_text(super::expect::f16_to_f32(x as u16)),
        (t, _) if t.starts_with('i') => {
            let sh = 64 - 8 * n as u32;
            (((x << sh) as i64) >> sh).to_string()
        }
        _ => x.to_string(),
    }
}

/// A float as text, in scientific notation when tiny or huge
/// (`2.8e-45`, not 45 zeros), with the shortest digits of its own type.
fn float_text<F>(v: F) -> String
where
    F: Copy + std::fmt::Display + std::fmt::LowerExp + Into<f64>,
{
    let x: f64 = v.into();
    if x != 0.0 && x.is_finite() && !(1e-4..1e9).contains(&x.abs()) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

/// What a kernel parameter of C++ type `cty` reads from `bytes`.
fn reinterpreted(cty: &str, bytes: &[u8]) -> String {
    let ty = suggest(cty, bytes.len());
    shown(ty, bytes)
}

/// The machine's available memory in bytes (`MemAvailable` in
/// /proc/meminfo), or `None` where that cannot be read.
pub(crate) fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line
        .trim_start_matches("MemAvailable:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kb.checked_mul(1024)
}

/// Refuses, before anything is allocated, buffers that cannot fit in the
/// machine's available memory: one argument's, or the launches' together
/// (a sequence's buffers live until the end of the run).
pub(super) fn check_memory(steps: &[Step], available: Option<u64>) -> Result<()> {
    let Some(avail) = available else {
        return Ok(());
    };
    let human = crate::output::human_size;
    let mut total = 0u64;
    for (si, step) in steps.iter().enumerate() {
        for (i, a) in step.args.iter().enumerate() {
            let Arg::Buffer { name, size, .. } = a else {
                continue;
            };
            let which = if steps.len() > 1 {
                format!("launch {} argument #{} (buf:{name})", si + 1, i + 1)
            } else {
                format!("argument #{} (buf:{name})", i + 1)
            };
            if *size > avail {
                bail!(
                    "{which}: cannot allocate {size} bytes of device memory ({}): more than this machine's available memory, {} (MemAvailable in /proc/meminfo); the emulator keeps every buffer in host memory",
                    human(*size),
                    human(avail)
                );
            }
            total = total.saturating_add(*size);
            if total > avail {
                bail!(
                    "{which}: the buffers up to and including it total {total} bytes ({}), more than this machine's available memory, {} (MemAvailable in /proc/meminfo); the emulator keeps every buffer in host memory",
                    human(total),
                    human(avail)
                );
            }
        }
    }
    Ok(())
}

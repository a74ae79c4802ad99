//! `lathe run`: load a code object (or the code objects a file carries for
//! one target), launch one kernel or a sequence of kernels sharing buffers
//! on the emulator, write outputs, dump and check buffers and device
//! globals, and print a summary. A fault is reported at the code-object
//! address `disasm` prints, with the kernel and offset, the wave, and the
//! buffer the address belongs to (or lies nearest to).

use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use anyhow::{bail, Context, Result};
use lathe_bundle::TargetId;
use lathe_emu::interp::Stop;
use lathe_emu::launch::{dims3, parse_cli_arg, scalar_bytes, Arg, LaunchSpec};
use lathe_emu::mem::Fault;
use lathe_emu::run::{DispatchError, Options, Progress};
use lathe_emu::session::{BufferOut, Session, SessionError, Shape};
use lathe_loader::SymbolKind;
use serde_json::{json, Value};

use crate::input::Input;
use crate::objects::code_objects;
use crate::output::{byte_bar, print, print_json, Ctx};
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
struct Step {
    kernel: String,
    shape: Shape,
    args: Vec<Arg>,
}

/// Plans the launches from the spec and the command line.
fn plan(a: &RunArgs) -> Result<(Vec<Step>, Option<String>)> {
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
fn grid_warnings(step: &Step) -> Vec<String> {
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
fn warnings(session: &Session, step: &Step) -> Vec<String> {
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
    for (i, (p, a)) in params.iter().zip(&step.args).enumerate() {
        if let (Arg::Scalar { ty, .. }, "global_buffer") = (a, p.value_kind.as_str()) {
            w.push(format!(
                "{}: argument #{} is a global_buffer (a pointer) but a scalar {ty} was given; use buf:NAME:SIZE for a device buffer",
                sym.name,
                i + 1
            ));
        }
    }
    w
}

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
fn set_global(session: &Session, spec: &str) -> Result<String> {
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

fn f16_to_f32(h: u16) -> f32 {
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

/// Code-object address, kernel/function + offset for a device PC.
fn place(session: &Session, pc: u64) -> String {
    for lco in session.exe.code_objects() {
        if pc >= lco.load_base && pc < lco.load_base + lco.load_size {
            let vaddr = pc.wrapping_sub(lco.load_delta as u64);
            let mut best: Option<(&str, u64)> = None;
            for s in session.exe.symbols() {
                if s.code_object != Some(lco.index) {
                    continue;
                }
                let start = match (s.kind, s.kernel) {
                    (SymbolKind::Kernel, Some(k)) => k.entry,
                    (SymbolKind::DeviceFunction, _) => s.address,
                    _ => continue,
                };
                if start <= pc && best.is_none_or(|(_, b)| start > b) {
                    best = Some((s.name.as_str(), start));
                }
            }
            return match best {
                Some((n, start)) => format!("pc {vaddr:#x} ({n}+{:#x})", pc - start),
                None => format!("pc {vaddr:#x}"),
            };
        }
    }
    format!("device address {pc:#x} (outside every code object)")
}

/// One unfinished wave of a watchdog or interrupt report.
fn wave_at(session: &Session, w: &lathe_emu::interp::WaveAt) -> String {
    format!(
        "wave {} of work-group ({}, {}, {}): at {}: {} after {} wave-instructions{}",
        w.wave.wave,
        w.wave.workgroup[0],
        w.wave.workgroup[1],
        w.wave.workgroup[2],
        place(session, w.pc),
        w.inst,
        w.instructions,
        if w.at_barrier {
            " (waiting at s_barrier)"
        } else {
            ""
        }
    )
}

fn not_started_text(n: u64) -> String {
    if n > 0 {
        format!(" and {n} work-group(s) not started")
    } else {
        String::new()
    }
}

/// Which buffer an address belongs to, or lies nearest.
fn buffer_for(buffers: &[BufferOut], addr: u64) -> Option<String> {
    let inside = buffers
        .iter()
        .find(|b| addr >= b.addr && addr < b.addr + b.size.max(1));
    if let Some(b) = inside {
        return Some(format!("inside buf:{} at offset {}", b.name, addr - b.addr));
    }
    let below = buffers
        .iter()
        .filter(|b| b.addr <= addr)
        .max_by_key(|b| b.addr)?;
    Some(format!(
        "{} bytes past the end of buf:{} ({} bytes)",
        addr - (below.addr + below.size),
        below.name,
        below.size
    ))
}

/// A worded report of why a launch failed.
fn fault_report(
    session: &Session,
    step: &Step,
    buffers: &[BufferOut],
    e: &SessionError,
) -> Option<String> {
    let SessionError::Dispatch(DispatchError::Stopped { kernel, stop }) = e else {
        return None;
    };
    let wave = |w: &lathe_emu::interp::WaveId| {
        format!(
            "wave {} of work-group ({}, {}, {})",
            w.wave, w.workgroup[0], w.workgroup[1], w.workgroup[2]
        )
    };
    let mut t = String::new();
    match stop {
        Stop::Fault {
            fault,
            pc,
            wave: w,
            inst,
            lane,
        } => {
            let (what, addr) = match fault {
                Fault::Unmapped {
                    addr, size, kind, ..
                } => (
                    format!("{kind} of {size} bytes at {addr:#x} outside every allocation"),
                    Some(*addr),
                ),
                Fault::ReadOnly {
                    addr, size, kind, ..
                } => (
                    format!("{kind} of {size} bytes at {addr:#x} to read-only memory"),
                    Some(*addr),
                ),
                Fault::Misaligned { addr, size } => (
                    format!("misaligned {size}-byte atomic at {addr:#x}"),
                    Some(*addr),
                ),
                other => (other.to_string(), None),
            };
            let _ = writeln!(t, "GPU memory fault in {kernel}: {what}");
            let _ = writeln!(t, "  at {}: {inst}", place(session, *pc));
            match lane {
                Some(l) => {
                    let _ = writeln!(t, "  in {}, lane {l} (the first faulting lane)", wave(w));
                }
                None => {
                    let _ = writeln!(t, "  in {}", wave(w));
                }
            }
            if let Some(b) = addr.and_then(|a| buffer_for(buffers, a)) {
                let _ = writeln!(t, "  the address is {b}");
            }
        }
        Stop::LdsFault {
            offset,
            size,
            kind,
            lds_size,
            pc,
            wave: w,
            inst,
        } => {
            let _ = writeln!(
                t,
                "LDS fault in {kernel}: {kind} of {size} bytes at LDS offset {offset:#x}, outside the {lds_size}-byte allocation"
            );
            let _ = writeln!(t, "  at {}: {inst}", place(session, *pc));
            let _ = writeln!(t, "  in {}", wave(w));
            if step.shape.dynamic_lds == 0 {
                let _ = writeln!(
                    t,
                    "  hint: the launch gave no dynamic LDS; if the kernel uses `extern __shared__` memory, pass its size with --dynamic-lds BYTES (or \"dynamic_lds\" in the spec)"
                );
            }
        }
        Stop::Unsupported { inst, pc, wave: w } => {
            let _ = writeln!(
                t,
                "{kernel}: the emulator does not support {inst}\n  at {}\n  in {}",
                place(session, *pc),
                wave(w)
            );
        }
        Stop::Invalid { inst, pc, wave: w } => {
            let _ = writeln!(
                t,
                "{kernel}: invalid instruction {inst}\n  at {}\n  in {}",
                place(session, *pc),
                wave(w)
            );
        }
        Stop::MissingWait {
            hazard,
            pc,
            wave: w,
            inst,
        } => {
            let _ = writeln!(
                t,
                "{kernel}: missing s_waitcnt: `{inst}` {hazard}\n  at {}\n  in {}",
                place(session, *pc),
                wave(w)
            );
        }
        Stop::Trap { code, pc, wave: w } => {
            let _ = writeln!(
                t,
                "{kernel}: s_trap {code}\n  at {}\n  in {}",
                place(session, *pc),
                wave(w)
            );
        }
        Stop::Budget { pc, wave: w } => {
            let _ = writeln!(
                t,
                "{kernel}: instruction budget exhausted (an endless loop?)\n  at {}\n  in {}",
                place(session, *pc),
                wave(w)
            );
        }
        Stop::Timeout {
            limit,
            waves,
            not_started,
        } => {
            let _ = writeln!(
                t,
                "{kernel}: watchdog: still running after {:.1} s (an endless loop?); {} unfinished wave(s){}:",
                limit.as_secs_f64(),
                waves.len(),
                not_started_text(*not_started)
            );
            for w in waves {
                let _ = writeln!(t, "  {}", wave_at(session, w));
            }
        }
        Stop::Interrupted {
            signal,
            waves,
            not_started,
        } => {
            let _ = writeln!(
                t,
                "{} while {kernel} was running; {} unfinished wave(s){}:",
                crate::signals::name(*signal),
                waves.len(),
                not_started_text(*not_started)
            );
            for w in waves {
                let _ = writeln!(t, "  {}", wave_at(session, w));
            }
        }
        _ => return None,
    }
    Some(t)
}

/// Writes the `out=` files of `buffers`.
pub(crate) fn write_outputs(session: &Session, buffers: &[BufferOut]) -> Result<Vec<String>> {
    let mut written = Vec::new();
    for b in buffers {
        if let Some(path) = &b.output {
            let data = session
                .download(b.addr, b.size)
                .map_err(|e| anyhow::anyhow!("reading buffer {}: {e}", b.name))?;
            std::fs::write(path, data).with_context(|| format!("cannot write {path}"))?;
            written.push(format!("wrote buf:{} ({} bytes) to {path}", b.name, b.size));
        }
    }
    Ok(written)
}

/// A work-group progress bar drawn by a thread while `f` runs.
fn with_dispatch_bar<T>(ctx: &Ctx, total: u64, f: impl FnOnce(Option<Progress>) -> T) -> T {
    let show = ctx.progress && std::io::IsTerminal::is_terminal(&std::io::stderr());
    if !show || total < 2 {
        return f(None);
    }
    // One counter per launch, leaked: a few bytes per launch of a
    // short-lived process, and it lets `Options` stay `Copy`.
    let counter: &'static AtomicU64 = Box::leak(Box::new(AtomicU64::new(0)));
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let stop = &stop;
        s.spawn(move || {
            // Only dispatches that last show a bar.
            let start = std::time::Instant::now();
            let mut bar: Option<indicatif::ProgressBar> = None;
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(100));
                if bar.is_none() && start.elapsed().as_millis() >= 500 {
                    let b = indicatif::ProgressBar::new(total);
                    b.set_style(
                        indicatif::ProgressStyle::with_template(
                            "running [{bar:30}] {pos}/{len} work-groups ({per_sec}, {eta})",
                        )
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                        .progress_chars("=> "),
                    );
                    bar = Some(b);
                }
                if let Some(b) = &bar {
                    b.set_position(counter.load(Ordering::Relaxed));
                }
            }
            if let Some(b) = bar {
                b.finish_and_clear();
            }
        });
        let r = f(Some(Progress(counter)));
        stop.store(true, Ordering::Relaxed);
        r
    })
}

/// `--tool` names a HIP tool (a directory with `tool.json`, or a manifest
/// file) rather than a built-in tool (a built-in name wins over a
/// directory of that name unless written as a path, `./instr-count`).
fn is_tool_path(tool: &str) -> bool {
    let p = Path::new(tool);
    let builtin = lathe_dbi::tools::Tool::ALL.iter().any(|t| t.name() == tool);
    tool.contains('/') || tool.ends_with(".json") || (!builtin && (p.is_dir() || p.is_file()))
}

/// `lathe run --tool PATH`: a HIP tool ([`lathe_dbi::manifest`]) on the
/// emulator: the kernel's code object instrumented with its hooks, loaded
/// with the compiled tool code object into one session; prints the
/// report variables (and the manifest's line).
#[allow(clippy::too_many_arguments)]
fn run_hip_tool(
    ctx: &Ctx,
    path: &Path,
    out: Option<&Path>,
    agent: TargetId,
    objects: &[&[u8]],
    kernel: &str,
    shape: Shape,
    args: &[Arg],
    opts: &Options,
) -> Result<()> {
    let tool = lathe_dbi::HipTool::load(path, &agent.processor.to_string())
        .with_context(|| format!("loading the HIP tool {}", path.display()))?;
    let run = lathe_dbi::manifest::run(agent, objects, kernel, &tool, shape, args, opts, false)
        .with_context(|| format!("running {kernel} under {}", path.display()))?;
    write_outputs(&run.session, &run.buffers)?;
    if let Some(p) = out {
        let text = serde_json::to_string_pretty(&run.result)?;
        std::fs::write(p, text).with_context(|| format!("cannot write {}", p.display()))?;
    }
    if ctx.json {
        return print_json(&json!({
            "kernel": kernel,
            "workgroups": run.report.workgroups,
            "waves": run.report.waves,
            "wave_instructions_with_probes": run.report.wave_instructions,
            "sites": run.build.sites.len(),
            "tool": {
                "path": path.display().to_string(),
                "report": run.result,
                "line": run.line,
            },
        }));
    }
    let mut text = String::new();
    if let Some(l) = &run.line {
        let _ = writeln!(text, "{l}");
    }
    let _ = writeln!(
        text,
        "{} hook site(s); report: {}",
        run.build.sites.len(),
        serde_json::to_string(&run.result)?
    );
    print(&text)
}

/// `lathe run`.
pub fn run(ctx: &Ctx, a: RunArgs) -> Result<()> {
    if a.policy.is_some() && a.target.is_none() {
        bail!("--policy needs --target (it chooses among code objects for a target)");
    }
    let (steps, spec_target) = plan(&a)?;
    for step in &steps {
        for w in grid_warnings(step) {
            eprintln!("lathe: warning: {}: {w}", step.kernel);
        }
    }
    crate::signals::stop_emulator_on_signal();
    let target_s = a
        .target
        .clone()
        .or(spec_target)
        .unwrap_or_else(|| "gfx90a".into());
    let agent: TargetId = crate::bundle_cmd::parse_targets(std::slice::from_ref(&target_s))?
        .into_iter()
        .next()
        .context("no target")?;
    let input = Input::open(&a.file)?;
    crate::input::ensure_known(&input)?;
    let policy = a.policy.unwrap_or(crate::PolicyArg::Clang);
    let objects = code_objects(&input, Some(&agent), policy.into())?;
    if objects.is_empty() {
        bail!("{}: no code object for {agent}", input.name());
    }
    let bytes: Vec<&[u8]> = objects.iter().map(|o| o.bytes.as_slice()).collect();
    if !(a.timeout >= 0.0 && a.timeout.is_finite()) {
        bail!("--timeout {}: expected a number of seconds >= 0", a.timeout);
    }
    let timeout = (a.timeout > 0.0).then(|| std::time::Duration::from_secs_f64(a.timeout));
    if let Some(tool) = &a.tool {
        let [step] = steps.as_slice() else {
            bail!("--tool runs one launch; the spec has {}", steps.len());
        };
        // The kernel named as every command names it (lathe_codeobj::names).
        let kernel = Session::load(agent, &bytes)
            .with_context(|| format!("loading {} for {agent}", input.name()))?
            .kernel_metadata(&step.kernel)
            .map(|(s, _)| s.name.clone())
            .with_context(|| format!("{}: --kernel {}", input.name(), step.kernel))?;
        let opts = Options {
            threads: a.threads,
            check_waitcnt: !a.no_waitcnt_check,
            timeout,
            ..Options::default()
        };
        if is_tool_path(tool) {
            return run_hip_tool(
                ctx,
                Path::new(tool),
                a.tool_out.as_deref(),
                agent,
                &bytes,
                &kernel,
                step.shape,
                &step.args,
                &opts,
            );
        }
        return crate::instrument_cmd::run_tool(
            ctx,
            tool,
            a.tool_out.as_deref(),
            agent,
            &bytes,
            &kernel,
            step.shape,
            &step.args,
            &opts,
        );
    }
    let session = Session::load(agent, &bytes)
        .with_context(|| format!("loading {} for {agent}", input.name()))?;
    let mut notes = Vec::new();
    for s in &a.set {
        let n = set_global(&session, s)?;
        notes.push(format!("set {n}"));
    }
    let mut buffers: Vec<BufferOut> = Vec::new();
    let mut launches_json = Vec::new();
    let mut text = String::new();
    for (i, step) in steps.iter().enumerate() {
        for w in warnings(&session, step) {
            eprintln!("lathe: warning: {w}");
        }
        let opts_base = Options {
            threads: a.threads,
            check_waitcnt: !a.no_waitcnt_check,
            timeout,
            ..Options::default()
        };
        let fill_total: u64 = step
            .args
            .iter()
            .map(|x| match x {
                Arg::Buffer { size, .. } => *size,
                _ => 0,
            })
            .sum();
        let bar = byte_bar(ctx, fill_total, "filling buffers");
        if fill_total < (64 << 20) {
            bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        }
        let total_wgs: u64 = (0..3)
            .map(|d| u64::from(step.shape.grid[d].div_ceil(step.shape.block[d].max(1))))
            .product();
        let result = with_dispatch_bar(ctx, total_wgs, |progress| {
            let opts = Options {
                progress,
                ..opts_base
            };
            session.launch_in(
                &step.kernel,
                step.shape,
                &step.args,
                &opts,
                &mut buffers,
                &mut |n| {
                    if n >= bar.position() + (16 << 20) || n == fill_total {
                        bar.set_position(n);
                    }
                    if n == fill_total {
                        bar.finish_and_clear();
                    }
                },
            )
        });
        bar.finish_and_clear();
        let report = match result {
            Ok(r) => r,
            Err(e) => {
                let report = fault_report(&session, step, &buffers, &e);
                let mut msg = match report {
                    Some(r) => r.trim_end().to_string(),
                    None => {
                        return Err(
                            anyhow::Error::new(e).context(format!("launch of {}", step.kernel))
                        )
                    }
                };
                // Outputs hold what the kernel wrote before it stopped.
                match write_outputs(&session, &buffers) {
                    Ok(w) if !w.is_empty() => {
                        let _ = write!(
                            msg,
                            "\n  out= files written with the contents at the time of the {}:\n    {}",
                            if crate::signals::received().is_some() { "signal" } else { "fault" },
                            w.join("\n    ")
                        );
                    }
                    Ok(_) => {}
                    Err(we) => {
                        let _ = write!(msg, "\n  out= files not written: {we:#}");
                    }
                }
                if steps.len() > 1 {
                    msg = format!("launch {} of {}: {msg}", i + 1, steps.len());
                }
                bail!("{msg}");
            }
        };
        let secs = report.elapsed.as_secs_f64();
        let rate = report.wave_instructions as f64 / secs.max(1e-9);
        let name = session
            .kernel_metadata(&step.kernel)
            .map(|(s, _)| s.name.clone())
            .unwrap_or_else(|_| step.kernel.clone());
        let (grid, block) = (step.shape.grid, step.shape.block);
        launches_json.push(json!({
            "kernel": name,
            "grid": grid, "block": block,
            "workgroups": report.workgroups,
            "waves": report.waves,
            "wave_instructions": report.wave_instructions,
            "seconds": secs,
            "wave_instructions_per_second": rate,
            "threads": report.threads,
            "per_opcode": report.per_opcode.iter().map(|(o, n)| json!({"opcode": o.name(), "count": n})).collect::<Vec<_>>(),
        }));
        let _ = writeln!(
            text,
            "{name} on {agent}: grid {}x{}x{} block {}x{}x{}",
            grid[0], grid[1], grid[2], block[0], block[1], block[2]
        );
        let _ = writeln!(
            text,
            "{} work-groups, {} waves, {} wave-instructions in {:.3} ms ({:.1} M wave-instr/s, {} thread(s))",
            report.workgroups,
            report.waves,
            report.wave_instructions,
            secs * 1e3,
            rate / 1e6,
            report.threads
        );
        let _ = writeln!(text, "top opcodes:");
        for (o, n) in report.per_opcode.iter().take(10) {
            let _ = writeln!(
                text,
                "  {:>12}  {:5.1}%  {}",
                n,
                100.0 * *n as f64 / report.wave_instructions.max(1) as f64,
                o.name()
            );
        }
    }
    let written = write_outputs(&session, &buffers)?;
    for w in &written {
        let _ = writeln!(text, "{w}");
    }
    // Dumps.
    let mut dumps_json = Vec::new();
    for d in &a.dump {
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
            locate(&session, &buffers, name).with_context(|| format!("--dump '{d}'"))?;
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
    // Expectations.
    let mut expect_json = Vec::new();
    let mut failures = Vec::new();
    for x in &a.expect {
        let (name, file) = x
            .split_once('=')
            .with_context(|| format!("--expect '{x}': expected NAME=FILE"))?;
        let want =
            std::fs::read(file).with_context(|| format!("--expect '{x}': cannot read {file}"))?;
        let (what, addr, size) =
            locate(&session, &buffers, name).with_context(|| format!("--expect '{x}'"))?;
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
    for n in &notes {
        let _ = writeln!(text, "{n}");
    }
    if ctx.json {
        let mut j = json!({
            "target": agent.to_string(),
            "launches": launches_json,
            "outputs": buffers.iter().filter_map(|b| b.output.clone()).collect::<Vec<_>>(),
            "dumps": dumps_json,
            "expect": expect_json,
        });
        // A single launch keeps its fields at the top level too.
        if let (Some(Value::Object(l)), 1) = (launches_json_first(&j), steps.len()) {
            for (k, v) in l {
                j[k.as_str()] = v;
            }
        }
        print_json(&j)?;
    } else {
        print(&text)?;
    }
    if !failures.is_empty() {
        bail!("{}", failures.join("; "));
    }
    Ok(())
}

fn launches_json_first(j: &Value) -> Option<Value> {
    j["launches"].as_array()?.first().cloned()
}

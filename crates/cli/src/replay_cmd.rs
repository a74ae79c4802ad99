//! `lathe replay CAPSULE`: runs a dispatch captured by `lathe exec
//! --capture` again on the emulator, with its memory at the captured
//! device addresses (`replay_place`), and compares every
//! allocation with the captured after-state. Dispatch progress, stop
//! reports, `--dump` and `--expect` are `lathe run`'s (`run_cmd`), with
//! allocation `i` named `aI` as a buffer.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::replay_place::{PlaceError, Placed};
use anyhow::{bail, Context, Result};
use clap::Args;
use lathe_capsule::read::{Capsule, Limits};
use lathe_emu::dispatch::AqlDispatch;
use lathe_emu::run::{dispatch_from_queue, Launch, Options, QueueContext};
use lathe_emu::session::{BufferOut, SessionError, Shape};
use serde_json::json;

use crate::output::{print, print_json, Ctx};
use crate::replay_instr::Built;
use crate::run_cmd::{dumps, expectations, fault_report, mem_available, with_dispatch_bar, Step};

/// `lathe replay` options.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A capsule directory written by `lathe exec --capture`.
    capsule: PathBuf,
    /// Emulator host threads (0: all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Run the kernel from this code object (or a file carrying one for the
    /// capsule's target) instead: another build of the same kernel symbol;
    /// the differences from the captured after-state are reported.
    #[arg(long, value_name = "FILE")]
    code: Option<PathBuf>,
    /// Print an allocation (`aN`) or device global after the replay, as
    /// `lathe run --dump` does: NAME[:TYPE][:out=PATH].
    #[arg(long)]
    dump: Vec<String>,
    /// Compare an allocation (`aN`) or device global with FILE, as
    /// `lathe run --expect` does: NAME=FILE.
    #[arg(long)]
    expect: Vec<String>,
    /// Instrument the replayed kernel with a built-in tool or a HIP tool
    /// (a directory with tool.json and tool.hip, or a manifest), as `lathe
    /// run --tool`; memory must still match the captured after-state.
    #[arg(long, value_name = "NAME|DIR")]
    tool: Option<String>,
    /// Run the sanitizer's checkers on the replay: a comma-separated list
    /// of memcheck, initcheck, synccheck or all (as `lathe exec --check`).
    #[arg(long, value_name = "LIST")]
    check: Option<String>,
    /// Watchdog in seconds (0: none).
    #[arg(long, default_value_t = 600.0)]
    timeout: f64,
}

/// One allocation that differs from the capture.
struct Diff {
    index: usize,
    differing: u64,
    first: u64,
}

/// The code objects `--code FILE` offers for the capsule's target.
fn replacement_candidates(a: &ReplayArgs, c: &Capsule) -> Result<Vec<Vec<u8>>> {
    let Some(path) = &a.code else {
        return Ok(Vec::new());
    };
    let input = crate::input::Input::open(path)?;
    crate::input::ensure_known(&input)?;
    let objects =
        crate::objects::code_objects(&input, Some(&c.target), crate::PolicyArg::Clang.into())?;
    if objects.is_empty() {
        bail!("--code {}: no code object for {}", path.display(), c.target);
    }
    Ok(objects.into_iter().map(|o| o.bytes.to_vec()).collect())
}

fn place(a: &ReplayArgs, c: &Capsule) -> Result<(Placed, Option<Built>)> {
    let candidates = replacement_candidates(a, c)?;
    if candidates.is_empty() {
        let Some(tool) = &a.tool else {
            return Ok((Placed::new(c, None)?, None));
        };
        let b = crate::replay_instr::instrument(tool, c, None)?;
        let p = Placed::with_code(c, &b.objects()).context("placing the instrumented kernel")?;
        return Ok((p, Some(b)));
    }
    let mut last = None;
    for co in &candidates {
        let built = match &a.tool {
            Some(tool) => match crate::replay_instr::instrument(tool, c, Some(co)) {
                Ok(b) => Some(b),
                Err(e) => {
                    last = Some(e);
                    continue;
                }
            },
            None => None,
        };
        let objects = built
            .as_ref()
            .map_or_else(|| vec![co.as_slice()], Built::objects);
        match Placed::with_code(c, &objects) {
            Ok(p) => return Ok((p, built)),
            Err(e @ PlaceError::Kernel(_)) => last = Some(e.into()),
            Err(e) => return Err(e).context(format!("--code {}", path_of(a))),
        }
    }
    Err(last.unwrap_or_else(|| anyhow::anyhow!("no code object")))
        .context(format!("--code {}", path_of(a)))
}

/// The first address in a stop report that lies in a captured allocation
/// but on none of its stored pages: `(allocation, offset, address)`.
fn unstored_in(c: &Capsule, msg: &str) -> Option<(usize, u64, u64)> {
    msg.split(|ch: char| !ch.is_ascii_alphanumeric())
        .filter_map(|w| u64::from_str_radix(w.strip_prefix("0x")?, 16).ok())
        .find_map(|addr| c.unstored(addr).map(|(i, off)| (i, off, addr)))
}

fn path_of(a: &ReplayArgs) -> String {
    a.code
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default()
}

/// `lathe replay`.
pub fn run(ctx: &Ctx, a: ReplayArgs) -> Result<()> {
    if !(a.timeout >= 0.0 && a.timeout.is_finite()) {
        bail!("--timeout {}: expected a number of seconds >= 0", a.timeout);
    }
    let limits = Limits {
        memory: mem_available().map_or(Limits::default().memory, |m| m / 2),
        ..Limits::default()
    };
    let name = a.capsule.display().to_string();
    let t0 = std::time::Instant::now();
    let c = Capsule::open(&a.capsule, &limits).with_context(|| format!("capsule {name}"))?;
    let m = &c.manifest;
    crate::signals::stop_emulator_on_signal();
    let t_read = t0.elapsed().as_secs_f64();
    let checker = a
        .check
        .as_deref()
        .map(crate::replay_instr::checker)
        .transpose()?;
    let (mut placed, built) = place(&a, &c).with_context(|| format!("capsule {name}"))?;
    let probe_buf = match &built {
        Some(b) => Some(crate::replay_instr::attach(&placed.session, b)?),
        None => None,
    };
    let t_place = t0.elapsed().as_secs_f64() - t_read;
    let pkt = AqlDispatch::from_bytes(&c.packet);
    let geometry = pkt
        .geometry()
        .with_context(|| format!("capsule {name}: the packet"))?;
    let kernel = placed.kernel;
    let launch = Launch {
        name: &m.kernel,
        kernel: &kernel,
        geometry,
        kernarg: pkt.kernarg_address,
        dynamic_lds: pkt
            .group_segment_size
            .saturating_sub(kernel.group_segment_size),
    };
    let qctx = QueueContext {
        packet: m.packet_address,
        queue: m.queue_address,
        dispatch_id: m.dispatch_id,
    };
    let buffers: Vec<BufferOut> = m
        .allocations
        .iter()
        .enumerate()
        .map(|(i, al)| BufferOut {
            name: format!("a{i}"),
            addr: al.base,
            size: al.size,
            output: None,
        })
        .collect();
    let step = Step {
        kernel: m.kernel.clone(),
        shape: Shape {
            grid: geometry.grid,
            block: geometry.workgroup,
            dims: geometry.dims,
            dynamic_lds: launch.dynamic_lds,
        },
        args: Vec::new(),
    };
    let total_wgs = geometry.total_workgroups();
    let result = with_dispatch_bar(ctx, total_wgs, |progress| {
        let opts = Options {
            threads: a.threads,
            timeout: (a.timeout > 0.0).then(|| std::time::Duration::from_secs_f64(a.timeout)),
            progress,
            check: crate::replay_instr::hook(checker),
            ..Options::default()
        };
        dispatch_from_queue(
            &placed.session.mem,
            placed.session.target,
            placed.session.arch,
            &launch,
            &opts,
            qctx,
        )
    });
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            // The symbols, to name places (loaded only now: most replays
            // never stop).
            if placed.captured_exe.is_none() {
                if let Ok(x) = Placed::names(&c) {
                    placed.session.exe = x;
                }
            }
            let session = &placed.session;
            let e = SessionError::Dispatch(e);
            let mut msg = fault_report(session, &step, &buffers, &e)
                .map(|r| r.trim_end().to_string())
                .unwrap_or_else(|| e.to_string());
            if let Some((i, off, addr)) = unstored_in(&c, &msg) {
                let al = &m.allocations[i];
                let _ = write!(
                    msg,
                    "\n  the replay touched {addr:#x}, offset {off:#x} of allocation a{i} ({}, {:#x}, {} bytes), on a page the captured dispatch did not touch: outside the capsule (capture with --capture-memory all to store every allocation whole)",
                    al.kind, al.base, al.size
                );
            } else if msg.contains("outside every allocation") {
                msg.push_str("\n  the replay touched memory outside the capsule (every allocation it holds is named aN above)");
            }
            if let Some(why) = &m.original.stopped {
                let _ = write!(msg, "\n  the captured dispatch stopped too: {why}");
            }
            bail!("replay of {name} stopped: {msg}");
        }
    };
    let session = &placed.session;
    // Every allocation against the captured after-state.
    let t_compare = std::time::Instant::now();
    let mut diffs = Vec::new();
    let mut compared = 0u64;
    for (i, al) in m.allocations.iter().enumerate() {
        let changed = c.changed(i);
        let (mut differing, mut first) = (0u64, None);
        for run in c.runs(i) {
            let got = session
                .download(al.base + run.offset, run.len)
                .map_err(|e| anyhow::anyhow!("reading allocation a{i}: {e}"))?;
            let want: std::borrow::Cow<'_, [u8]> = if changed {
                c.after(i, run).into()
            } else {
                c.before(run).into()
            };
            compared += run.len;
            if got[..] == want[..] {
                continue;
            }
            for (j, (x, y)) in got.iter().zip(want.iter()).enumerate() {
                if x != y {
                    differing += 1;
                    first.get_or_insert(run.offset + j as u64);
                }
            }
        }
        if let Some(first) = first {
            diffs.push(Diff {
                index: i,
                differing,
                first,
            });
        }
    }
    let t_compare = t_compare.elapsed().as_secs_f64();
    let secs = report.elapsed.as_secs_f64();
    let demangled = lathe_codeobj::names::demangle(&m.kernel).unwrap_or_else(|| m.kernel.clone());
    let mut text = String::new();
    let [gx, gy, gz] = geometry.grid;
    let [bx, by, bz] = geometry.workgroup;
    let _ = writeln!(
        text,
        "replayed launch {} {demangled} on {}{}: grid {gx}x{gy}x{gz} block {bx}x{by}x{bz}",
        m.launch,
        m.target,
        if a.code.is_some() {
            format!(" with the kernel from {}", path_of(&a))
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        text,
        "{} work-groups, {} waves, {} wave-instructions in {:.3} ms ({} thread(s)); captured: {} wave-instructions in {:.3} ms",
        report.workgroups,
        report.waves,
        report.wave_instructions,
        secs * 1e3,
        report.threads,
        m.original.wave_instructions,
        m.original.seconds * 1e3
    );
    for d in &diffs {
        let al = &m.allocations[d.index];
        let _ = writeln!(
            text,
            "a{} ({}, {:#x}, {} bytes): {} bytes differ, the first at offset {:#x}",
            d.index, al.kind, al.base, al.size, d.differing, d.first
        );
    }
    if diffs.is_empty() {
        let _ = writeln!(
            text,
            "identical: {} allocations ({compared} bytes) match the captured after-state",
            m.allocations.len()
        );
    }
    let tool_json = match (&built, probe_buf) {
        (Some(b), Some(buf)) => {
            let r = crate::replay_instr::result(session, b, buf, &m.kernel, &step.shape)?;
            if let Some(line) = r.get("line").and_then(|l| l.as_str()) {
                let _ = writeln!(text, "{line}");
            }
            let _ = writeln!(
                text,
                "{}: {}",
                a.tool.as_deref().unwrap_or_default(),
                serde_json::to_string_pretty(&r)?
            );
            Some(r)
        }
        _ => None,
    };
    let (check_count, check_json) = match checker {
        Some(ch) => {
            let (n, j) = crate::replay_instr::findings(ch, &c, &mut text);
            (n, Some(j))
        }
        None => (0, None),
    };
    let dumps_json = dumps(session, &buffers, &a.dump, &mut text)?;
    let (expect_json, failures) = expectations(session, &buffers, &a.expect, &mut text)?;
    if ctx.json {
        print_json(&json!({
            "capsule": name,
            "launch": m.launch,
            "kernel": m.kernel,
            "target": m.target,
            "code": a.code.as_ref().map(|p| p.display().to_string()),
            "grid": geometry.grid, "block": geometry.workgroup,
            "workgroups": report.workgroups,
            "waves": report.waves,
            "wave_instructions": report.wave_instructions,
            "seconds": secs,
            "phases": {"read": t_read, "place": t_place, "compare": t_compare},
            "threads": report.threads,
            "original": {"seconds": m.original.seconds, "wave_instructions": m.original.wave_instructions},
            "identical": diffs.is_empty(),
            "compared_bytes": compared,
            "differences": diffs.iter().map(|d| {
                let al = &m.allocations[d.index];
                json!({"allocation": format!("a{}", d.index), "kind": al.kind, "base": al.base,
                       "size": al.size, "differing_bytes": d.differing, "first_offset": d.first})
            }).collect::<Vec<_>>(),
            "dumps": dumps_json,
            "expect": expect_json,
            "tool": tool_json,
            "check": check_json,
        }))?;
    } else {
        print(&text)?;
    }
    if !diffs.is_empty() {
        bail!(
            "the replay differs from the captured after-state in {} allocation(s): {}",
            diffs.len(),
            diffs
                .iter()
                .map(|d| format!(
                    "a{} ({} bytes from offset {:#x})",
                    d.index, d.differing, d.first
                ))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if !failures.is_empty() {
        bail!("{}", failures.join("; "));
    }
    if check_count > 0 {
        bail!(
            "--check {}: {check_count} finding(s) in the replay",
            a.check.as_deref().unwrap_or_default()
        );
    }
    Ok(())
}

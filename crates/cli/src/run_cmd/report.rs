//! How `lathe run` reports a stopped launch (through the formatter
//! `lathe exec` shares, [`lathe_emu::stop_report`]) and its outputs: PCs as
//! the code-object addresses `disasm` prints, addresses by the buffer they
//! lie in or nearest, `out=` files, and the dispatch progress bar.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use anyhow::{Context, Result};
use lathe_dbi::rewrite::Where;
use lathe_dbi_run::Stopped;
use lathe_emu::interp::Stop;
use lathe_emu::run::{DispatchError, Progress};
use lathe_emu::session::{BufferOut, Session, SessionError};
use lathe_emu::stop_report::{stop_report, Places};

use super::args::Step;
use crate::output::Ctx;

/// Code-object address, kernel/function + offset for a device PC (the
/// sanitizer's reports).
pub(super) fn place_of(session: &Session, pc: u64) -> String {
    place(session, None, pc)
}

/// Code-object address, kernel/function + offset for a device PC; in the
/// code object a tool instrumented, the original instruction's (with the
/// instrumented PC, and the probe sites when it is in probe code).
fn place(session: &Session, tool: Option<&Tool<'_>>, pc: u64) -> String {
    for lco in session.exe.code_objects() {
        if pc >= lco.load_base && pc < lco.load_base + lco.load_size {
            let vaddr = pc.wrapping_sub(lco.load_delta as u64);
            let tool = tool.filter(|t| lco.storage == t.stopped.code_object);
            let map = tool.map(|t| &t.stopped.addr_map);
            // Functions are named by their original entries when
            // instrumented (`Executable::function_at`).
            let named = |vaddr: u64| match session.exe.function_at(lco, vaddr, map) {
                Some((n, start)) => format!("pc {vaddr:#x} ({n}+{:#x})", vaddr - start),
                None => format!("pc {vaddr:#x}"),
            };
            let (Some(t), Some((orig, exact))) = (tool, map.and_then(|m| m.original(vaddr))) else {
                return named(vaddr);
            };
            let probe = if exact {
                String::new()
            } else {
                format!(" (in the probe code after it{})", t.sites_at(vaddr))
            };
            return format!(
                "original {}, instrumented pc {vaddr:#x}{probe}",
                named(orig)
            );
        }
    }
    format!("device address {pc:#x} (outside every code object)")
}

/// A stopped run under a tool: its session, the instrumented code's
/// address map and sites, and the tool's name.
pub(super) struct Tool<'a> {
    pub(super) stopped: &'a Stopped,
    pub(super) name: &'a str,
}

impl Tool<'_> {
    /// `: instr-count site 3 (before pc 0x1a34)`: the sites whose probe
    /// code lies between the original instructions around `vaddr` (after
    /// the one before it, or before the one after it).
    fn sites_at(&self, vaddr: u64) -> String {
        let (prev, next) = self.stopped.addr_map.around(vaddr);
        let sites: Vec<String> = self
            .stopped
            .sites
            .iter()
            .filter(|s| {
                let after = s.at == Where::After;
                (after && Some(s.pc) == prev) || (!after && Some(s.pc) == next)
            })
            .map(|s| {
                let at = serde_json::to_value(s.at)
                    .ok()
                    .and_then(|v| v.as_str().map(|w| w.replace('_', " ")))
                    .unwrap_or_default();
                format!("site {} ({at} pc {:#x})", s.id, s.pc)
            })
            .collect();
        if sites.is_empty() {
            String::new()
        } else {
            format!(": {} {}", self.name, sites.join(", "))
        }
    }

    /// The original instruction's text at the instrumented device PC
    /// `pc`, when it is one (a moved branch prints its new offset).
    fn original_inst(&self, pc: u64) -> Option<String> {
        let s = self.stopped;
        let lco = s
            .session
            .exe
            .code_objects()
            .iter()
            .find(|c| c.storage == s.code_object)?;
        let vaddr = pc.wrapping_sub(lco.load_delta as u64);
        let (orig, true) = s.addr_map.original(vaddr)? else {
            return None;
        };
        s.program
            .functions
            .iter()
            .find_map(|f| f.index_of(orig).map(|i| f.insts[i].inst.to_string()))
    }

    /// `stop` with each original instruction's text.
    fn original_stop(&self, stop: &Stop) -> Stop {
        let mut stop = stop.clone();
        let fix = |pc: u64, inst: &mut String| {
            if let Some(o) = self.original_inst(pc) {
                *inst = o;
            }
        };
        match &mut stop {
            Stop::Fault { pc, inst, .. }
            | Stop::LdsFault { pc, inst, .. }
            | Stop::Unsupported { pc, inst, .. }
            | Stop::Invalid { pc, inst, .. }
            | Stop::MissingWait { pc, inst, .. } => fix(*pc, inst),
            Stop::Timeout { waves, .. } | Stop::Interrupted { waves, .. } => {
                for w in waves {
                    fix(w.pc, &mut w.inst);
                }
            }
            _ => {}
        }
        stop
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

/// A session's view for the stop report: PCs by its code objects,
/// addresses by the run's buffers, and a hint for LDS faults.
struct Run<'a> {
    session: &'a Session,
    step: &'a Step,
    buffers: &'a [BufferOut],
    tool: Option<&'a Tool<'a>>,
}

impl Places for Run<'_> {
    fn place(&self, pc: u64) -> String {
        place(self.session, self.tool, pc)
    }
    fn allocation(&self, addr: u64) -> Option<String> {
        buffer_for(self.buffers, addr)
    }
    fn signal_name(&self, signal: i32) -> String {
        crate::signals::name(signal)
    }
    fn lds_hint(&self, offset: u64, size: u32, lds_size: usize) -> Option<String> {
        lds_hint(self.session, self.step, offset + u64::from(size), lds_size)
    }
    fn source(&self, pc: u64) -> Option<Vec<lathe_codeobj::lines::Frame>> {
        // Under a tool the stop is already in the original code's terms.
        super::check::source_in(self.session, pc)
    }
}

/// Hardware LDS per work-group on GFX9.
const LDS_PER_WORKGROUP: u64 = 64 << 10;

/// Why an LDS access ran past the work-group's allocation, as a hint: with
/// no LDS at all, dynamic LDS the launch forgot; with static LDS (sized
/// when the kernel was compiled), a work-group larger than the kernel was
/// written for; with dynamic LDS, too little of it.
fn lds_hint(session: &Session, step: &Step, needed: u64, lds_size: usize) -> Option<String> {
    let dynamic = u64::from(step.shape.dynamic_lds);
    let md = session.kernel_metadata(&step.kernel).ok().map(|(_, m)| m);
    let fixed = md
        .as_ref()
        .map_or(lds_size as u64 - dynamic, |m| m.group_segment_fixed_size);
    let items: u64 = step.shape.block.iter().map(|&b| u64::from(b)).product();
    let [x, y, z] = step.shape.block;
    let need = format!(
        "this access needs at least {needed} bytes of LDS per work-group; the work-group has {lds_size} ({fixed} static + {dynamic} dynamic; the hardware allows {LDS_PER_WORKGROUP})"
    );
    Some(if fixed == 0 && dynamic == 0 {
        "  hint: the launch gave no dynamic LDS; if the kernel uses `extern __shared__` memory, pass its size with --dynamic-lds BYTES (or \"dynamic_lds\" in the spec)\n".to_string()
    } else if fixed > 0 {
        let max = md
            .as_ref()
            .map(|m| format!(" (its metadata allows up to {})", m.max_flat_workgroup_size))
            .unwrap_or_default();
        format!(
            "  hint: {need}. The kernel's static LDS (`__shared__` arrays) is sized when it is compiled, so a work-group larger than the kernel was written for runs past it: try a smaller --block than {x}x{y}x{z} ({items} work-items{max})\n"
        )
    } else {
        format!(
            "  hint: {need}. Pass a larger --dynamic-lds, or a smaller --block than {x}x{y}x{z} if the kernel sizes its LDS use by the work-group\n"
        )
    })
}

/// A worded report of why a launch failed.
pub(crate) fn fault_report(
    session: &Session,
    step: &Step,
    buffers: &[BufferOut],
    e: &SessionError,
) -> Option<String> {
    let SessionError::Dispatch(DispatchError::Stopped { kernel, stop }) = e else {
        return None;
    };
    stop_report(
        &Run {
            session,
            step,
            buffers,
            tool: None,
        },
        kernel,
        stop,
    )
}

/// A worded report of why a launch under a tool stopped, in the
/// original code object's terms.
pub(super) fn tool_fault_report(t: &Tool<'_>, step: &Step) -> Option<String> {
    let s = t.stopped;
    let SessionError::Dispatch(DispatchError::Stopped { kernel, stop }) = &s.error else {
        return None;
    };
    stop_report(
        &Run {
            session: &s.session,
            step,
            buffers: &s.buffers,
            tool: Some(t),
        },
        kernel,
        &t.original_stop(stop),
    )
}

/// `msg` and the `out=` files written with the contents at the stop.
pub(super) fn with_outputs(mut msg: String, session: &Session, buffers: &[BufferOut]) -> String {
    match write_outputs(session, buffers) {
        Ok(w) if !w.is_empty() => {
            let _ = write!(
                msg,
                "\n  out= files written with the contents at the time of the {}:\n    {}",
                if crate::signals::received().is_some() {
                    "signal"
                } else {
                    "fault"
                },
                w.join("\n    ")
            );
        }
        Ok(_) => {}
        Err(we) => {
            let _ = write!(msg, "\n  out= files not written: {we:#}");
        }
    }
    msg
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
pub(crate) fn with_dispatch_bar<T>(
    ctx: &Ctx,
    total: u64,
    f: impl FnOnce(Option<Progress>) -> T,
) -> T {
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

//! How `lathe run` reports a stopped launch (through the formatter
//! `lathe exec` shares, [`lathe_emu::stop_report`]) and its outputs: PCs as
//! the code-object addresses `disasm` prints, addresses by the buffer they
//! lie in or nearest, `out=` files, and the dispatch progress bar.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use anyhow::{Context, Result};
use lathe_emu::run::{DispatchError, Progress};
use lathe_emu::session::{BufferOut, Session, SessionError};
use lathe_emu::stop_report::{stop_report, Places};
use lathe_loader::SymbolKind;

use super::args::Step;
use crate::output::Ctx;

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
}

impl Places for Run<'_> {
    fn place(&self, pc: u64) -> String {
        place(self.session, pc)
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
pub(super) fn fault_report(
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
        },
        kernel,
        stop,
    )
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
pub(super) fn with_dispatch_bar<T>(
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

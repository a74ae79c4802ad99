//! Why a dispatch stopped, in code-object terms: the kernel, the PC as the
//! code-object address `lathe disasm` prints with the kernel or function
//! plus offset (mapped back to the original instruction in an
//! instrumented kernel), the instruction, the wave and work-group, the
//! lane, and the allocation a faulting address lies in or just past —
//! the same lines `lathe run` prints for the same stop.

use lathe_emu::interp::Stop;
use lathe_emu::stop_report::{self, Places};

use crate::rt::{lock, rt_any};

/// The runtime's view: PCs through every loaded executable (instrumented
/// code mapped back), addresses through the runtime's allocations.
struct Runtime;

impl Places for Runtime {
    fn place(&self, pc: u64) -> String {
        crate::exec::place(pc)
    }
    fn allocation(&self, addr: u64) -> Option<String> {
        allocation_for(addr)
    }
    fn signal_name(&self, signal: i32) -> String {
        signal_name(signal)
    }
    fn source(&self, pc: u64) -> Option<Vec<lathe_codeobj::lines::Frame>> {
        crate::check::source_at(pc)
    }
}

/// The allocation `addr` lies in, or the nearest one below it.
fn allocation_for(addr: u64) -> Option<String> {
    let r = rt_any()?;
    let allocs = lock(&r.allocs);
    let inside = allocs
        .values()
        .find(|a| addr >= a.device && addr < a.device + a.size.max(1));
    if let Some(a) = inside {
        return Some(format!(
            "inside the allocation at {:#x} ({} bytes) at offset {}",
            a.device,
            a.size,
            addr - a.device
        ));
    }
    let below = allocs
        .values()
        .filter(|a| a.device <= addr)
        .max_by_key(|a| a.device)?;
    Some(format!(
        "{} bytes past the end of the allocation at {:#x} ({} bytes)",
        addr - (below.device + below.size),
        below.device,
        below.size
    ))
}

/// The report of a stopped dispatch of `kernel` (lines, each ending in a
/// newline), or `None` for stops that carry no position
/// ([`lathe_emu::stop_report`], the formatter `lathe run` uses too).
pub fn stop(kernel: &str, s: &Stop) -> Option<String> {
    stop_report::stop_report(&Runtime, kernel, s)
}

/// `SIGINT`, `SIGTERM`, else `signal N`.
pub fn signal_name(sig: i32) -> String {
    match sig {
        libc::SIGINT => "SIGINT".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGHUP => "SIGHUP".into(),
        s => format!("signal {s}"),
    }
}

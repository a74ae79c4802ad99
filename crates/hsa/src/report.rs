//! Why a dispatch stopped, in code-object terms: the kernel, the PC as the
//! code-object address `lathe disasm` prints with the kernel or function
//! plus offset (mapped back to the original instruction in an
//! instrumented kernel), the instruction, the wave and work-group, the
//! lane, and the allocation a faulting address lies in or just past —
//! the same lines `lathe run` prints for the same stop.

use std::fmt::Write as _;

use lathe_emu::interp::{Stop, WaveAt, WaveId};
use lathe_emu::mem::Fault;

use crate::exec::place;
use crate::rt::{lock, rt_any};

fn wave(w: &WaveId) -> String {
    format!(
        "wave {} of work-group ({}, {}, {})",
        w.wave, w.workgroup[0], w.workgroup[1], w.workgroup[2]
    )
}

/// One unfinished wave of a watchdog or interrupt report.
pub fn wave_at(w: &WaveAt) -> String {
    format!(
        "{}: at {}: {} after {} wave-instructions{}",
        wave(&w.wave),
        place(w.pc),
        w.inst,
        w.instructions,
        if w.at_barrier {
            " (waiting at s_barrier)"
        } else {
            ""
        }
    )
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
/// newline), or `None` for stops that carry no position.
pub fn stop(kernel: &str, s: &Stop) -> Option<String> {
    let mut t = String::new();
    match s {
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
            let _ = writeln!(t, "  at {}: {inst}", place(*pc));
            match lane {
                Some(l) => {
                    let _ = writeln!(t, "  in {}, lane {l} (the first faulting lane)", wave(w));
                }
                None => {
                    let _ = writeln!(t, "  in {}", wave(w));
                }
            }
            if let Some(b) = addr.and_then(allocation_for) {
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
            let _ = writeln!(t, "  at {}: {inst}", place(*pc));
            let _ = writeln!(t, "  in {}", wave(w));
        }
        Stop::Unsupported { inst, pc, wave: w } => {
            let _ = writeln!(
                t,
                "{kernel}: the emulator does not support {inst}\n  at {}\n  in {}",
                place(*pc),
                wave(w)
            );
        }
        Stop::Invalid { inst, pc, wave: w } => {
            let _ = writeln!(
                t,
                "{kernel}: invalid instruction {inst}\n  at {}\n  in {}",
                place(*pc),
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
                place(*pc),
                wave(w)
            );
        }
        Stop::Trap { code, pc, wave: w } => {
            let _ = writeln!(
                t,
                "{kernel}: s_trap {code}\n  at {}\n  in {}",
                place(*pc),
                wave(w)
            );
        }
        Stop::Budget { pc, wave: w } => {
            let _ = writeln!(
                t,
                "{kernel}: instruction budget exhausted (an endless loop?)\n  at {}\n  in {}",
                place(*pc),
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
                let _ = writeln!(t, "  {}", wave_at(w));
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
                signal_name(*signal),
                waves.len(),
                not_started_text(*not_started)
            );
            for w in waves {
                let _ = writeln!(t, "  {}", wave_at(w));
            }
        }
        _ => return None,
    }
    Some(t)
}

fn not_started_text(n: u64) -> String {
    if n > 0 {
        format!(" and {n} work-group(s) not started")
    } else {
        String::new()
    }
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

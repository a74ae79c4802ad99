//! Why a dispatch stopped, worded for a person: the one formatter behind
//! `lathe run`'s and `lathe exec`'s (lathe-hsa's) stop reports. What the
//! two differ in — how a device PC is placed and named (a session's code
//! objects, or every executable of the HSA runtime with instrumented code
//! mapped back), how an address's allocation is named (`buf:NAME`, or the
//! runtime's allocation), a signal's name and any hint after an LDS fault —
//! comes from a [`Places`] the caller implements.

use std::fmt::Write as _;

use crate::interp::{Stop, WaveAt, WaveId};
use crate::mem::Fault;

/// What a stop report needs from its caller.
pub trait Places {
    /// A device PC in code-object terms, e.g. `pc 0x1a30 (_Z4axpyPfPKffi+0x30)`.
    fn place(&self, pc: u64) -> String;
    /// The allocation a faulting address lies in or just past (the text
    /// after "the address is "), or `None` when there is none to name.
    fn allocation(&self, addr: u64) -> Option<String>;
    /// A signal's name (`SIGINT`).
    fn signal_name(&self, signal: i32) -> String;
    /// Lines (each ending in a newline) added after an LDS fault report:
    /// a hint at the likely cause. None by default.
    fn lds_hint(&self, _offset: u64, _size: u32, _lds_size: usize) -> Option<String> {
        None
    }
    /// The source frames at `pc`, innermost first (from the code object's
    /// DWARF): `None` when the caller cannot look them up, empty when the
    /// code object has none for `pc`. None by default.
    fn source(&self, _pc: u64) -> Option<Vec<lathe_codeobj::lines::Frame>> {
        None
    }
}

/// The source lines of `pc` under a fault's `at` line: `file:line:column`
/// with inlined frames, or the hint that `-g` adds them.
fn source_lines(t: &mut String, p: &(impl Places + ?Sized), pc: u64) {
    let Some(frames) = p.source(pc) else {
        return;
    };
    if frames.is_empty() {
        let _ = writeln!(t, "  (no source line: build with -g for file:line)");
    }
    for (k, f) in frames.iter().enumerate() {
        let _ = writeln!(t, "  {} {f}", if k == 0 { "at" } else { "inlined into" });
    }
}

/// `wave W of work-group (X, Y, Z)`.
pub fn wave(w: &WaveId) -> String {
    format!(
        "wave {} of work-group ({}, {}, {})",
        w.wave, w.workgroup[0], w.workgroup[1], w.workgroup[2]
    )
}

/// One unfinished wave of a watchdog or interrupt report.
pub fn wave_at(p: &(impl Places + ?Sized), w: &WaveAt) -> String {
    format!(
        "{}: at {}: {} after {} wave-instructions{}",
        wave(&w.wave),
        p.place(w.pc),
        w.inst,
        w.instructions,
        if w.at_barrier {
            " (waiting at s_barrier)"
        } else {
            ""
        }
    )
}

/// ` and N work-group(s) not started`, or nothing.
pub fn not_started_text(n: u64) -> String {
    if n > 0 {
        format!(" and {n} work-group(s) not started")
    } else {
        String::new()
    }
}

/// The report of a stopped dispatch of `kernel` (lines, each ending in a
/// newline). Every stop has one today; `None` leaves room for stops that
/// carry no position.
pub fn stop_report(p: &(impl Places + ?Sized), kernel: &str, s: &Stop) -> Option<String> {
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
            };
            let _ = writeln!(t, "GPU memory fault in {kernel}: {what}");
            let _ = writeln!(t, "  at {}: {inst}", p.place(*pc));
            source_lines(&mut t, p, *pc);
            match lane {
                Some(l) => {
                    let _ = writeln!(t, "  in {}, lane {l} (the first faulting lane)", wave(w));
                }
                None => {
                    let _ = writeln!(t, "  in {}", wave(w));
                }
            }
            if let Some(b) = addr.and_then(|a| p.allocation(a)) {
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
            let _ = writeln!(t, "  at {}: {inst}", p.place(*pc));
            source_lines(&mut t, p, *pc);
            let _ = writeln!(t, "  in {}", wave(w));
            if let Some(h) = p.lds_hint(*offset, *size, *lds_size) {
                t.push_str(&h);
            }
        }
        Stop::Unsupported { inst, pc, wave: w } => {
            let _ = writeln!(
                t,
                "{kernel}: the emulator does not support {inst}\n  at {}\n  in {}",
                p.place(*pc),
                wave(w)
            );
        }
        Stop::Invalid { inst, pc, wave: w } => {
            let _ = writeln!(
                t,
                "{kernel}: invalid instruction {inst}\n  at {}\n  in {}",
                p.place(*pc),
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
                p.place(*pc),
                wave(w)
            );
        }
        Stop::Trap { code, pc, wave: w } => {
            let _ = writeln!(
                t,
                "{kernel}: s_trap {code}\n  at {}\n  in {}",
                p.place(*pc),
                wave(w)
            );
        }
        Stop::Budget { pc, wave: w } => {
            let _ = writeln!(
                t,
                "{kernel}: instruction budget exhausted (an endless loop?)\n  at {}\n  in {}",
                p.place(*pc),
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
                let _ = writeln!(t, "  {}", wave_at(p, w));
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
                p.signal_name(*signal),
                waves.len(),
                not_started_text(*not_started)
            );
            for w in waves {
                let _ = writeln!(t, "  {}", wave_at(p, w));
            }
        }
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct P;
    impl Places for P {
        fn place(&self, pc: u64) -> String {
            format!("pc {pc:#x} (k+0x4)")
        }
        fn allocation(&self, addr: u64) -> Option<String> {
            Some(format!("inside buf:y at offset {}", addr - 0x1000))
        }
        fn signal_name(&self, s: i32) -> String {
            format!("SIG{s}")
        }
        fn lds_hint(&self, offset: u64, size: u32, lds: usize) -> Option<String> {
            Some(format!("  hint: {offset} {size} {lds}\n"))
        }
    }

    #[test]
    fn words_a_fault_an_lds_fault_and_an_interrupt() {
        let w = WaveId {
            workgroup: [1, 0, 0],
            wave: 2,
        };
        let f = Stop::Fault {
            fault: Fault::Misaligned {
                addr: 0x1003,
                size: 4,
            },
            pc: 0x104,
            wave: w,
            inst: "global_atomic_add v1, v2, s[0:1]".into(),
            lane: Some(3),
        };
        assert_eq!(
            stop_report(&P, "k", &f).as_deref(),
            Some(
                "GPU memory fault in k: misaligned 4-byte atomic at 0x1003\n  at pc 0x104 (k+0x4): global_atomic_add v1, v2, s[0:1]\n  in wave 2 of work-group (1, 0, 0), lane 3 (the first faulting lane)\n  the address is inside buf:y at offset 3\n"
            )
        );
        let l = Stop::LdsFault {
            offset: 0x400,
            size: 4,
            kind: crate::mem::AccessKind::Read,
            lds_size: 1024,
            pc: 0x104,
            wave: w,
            inst: "ds_read_b32 v0, v1".into(),
        };
        let r = stop_report(&P, "k", &l).expect("report");
        assert!(r.ends_with("  hint: 1024 4 1024\n"), "{r}");
        let i = Stop::Interrupted {
            signal: 2,
            waves: vec![WaveAt {
                wave: w,
                pc: 0x108,
                inst: "s_branch 65535".into(),
                instructions: 7,
                at_barrier: true,
            }],
            not_started: 3,
        };
        assert_eq!(
            stop_report(&P, "k", &i).as_deref(),
            Some("SIG2 while k was running; 1 unfinished wave(s) and 3 work-group(s) not started:\n  wave 2 of work-group (1, 0, 0): at pc 0x108 (k+0x4): s_branch 65535 after 7 wave-instructions (waiting at s_barrier)\n")
        );
    }
}

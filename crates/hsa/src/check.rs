//! `lathe exec --check`: the runtime's side of the sanitizer (issue 21,
//! docs/decisions.md D27).
//!
//! `LATHE_CHECK` names the checkers (`memcheck,initcheck`), set by
//! `lathe exec`; `LATHE_CHECK_LOG` is a file to which every finding is
//! appended as one JSON object per line (`lathe exec` folds them, counts
//! them, prints the summary and writes `--check-json`). The emulator finds
//! the accesses ([`lathe_emu::check`]); after each dispatch this module
//! takes them, adds the stop of a dispatch that faulted (an access outside
//! every allocation, past LDS or a misaligned atomic), places each in
//! code-object terms with its source line (DWARF of a `-g` build, through
//! [`lathe_codeobj::lines`]) and prints the first of each kind at each PC
//! on stderr, in the manner of compute-sanitizer.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::{Mutex, OnceLock};

use lathe_codeobj::lines::{Frame, Lines};
use lathe_emu::check::report::{render, Places};
use lathe_emu::check::{Access, CheckHook, Checker, Checks, Hit, Kind, Violation};
use lathe_emu::interp::Stop;
use lathe_emu::mem::{AccessKind, Fault};

use crate::rt::lock;

struct State {
    checker: &'static Checker,
    log: Option<Mutex<std::fs::File>>,
    /// (kind, pc) already printed.
    printed: Mutex<HashSet<(Kind, u64)>>,
    /// Source frames per PC.
    lines: Mutex<HashMap<u64, Vec<Frame>>>,
}

fn state() -> Option<&'static State> {
    static S: OnceLock<Option<State>> = OnceLock::new();
    S.get_or_init(|| {
        let spec = std::env::var("LATHE_CHECK").ok()?;
        let mut checks = Checks::default();
        for name in spec.split(',') {
            match name.trim() {
                "memcheck" => checks.memcheck = true,
                "initcheck" => checks.initcheck = true,
                "synccheck" => checks.synccheck = true,
                "racecheck" => checks.racecheck = true,
                _ => {}
            }
        }
        if !checks.any() {
            return None;
        }
        let log = std::env::var_os("LATHE_CHECK_LOG").and_then(|p| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .ok()
                .map(Mutex::new)
        });
        Some(State {
            checker: Box::leak(Box::new(Checker::new(checks))),
            log,
            printed: Mutex::default(),
            lines: Mutex::default(),
        })
    })
    .as_ref()
}

/// The checkers running (none without `LATHE_CHECK`).
pub fn checks() -> Checks {
    state().map_or_else(Checks::default, |s| s.checker.checks)
}

/// The dispatch option that turns the emulator's checks on.
pub fn hook() -> Option<CheckHook> {
    state().map(|s| CheckHook(s.checker))
}

/// The finding a dispatch's stop stands for, if it is a memory one.
fn from_stop(stop: &Stop) -> Option<Hit> {
    let access = |k: AccessKind| match k {
        AccessKind::Read => Access::Read,
        AccessKind::Write => Access::Write,
        AccessKind::Atomic => Access::Atomic,
    };
    match stop {
        Stop::Fault {
            fault,
            pc,
            wave,
            inst,
            lane,
        } => {
            let (kind, a, size, addr, region) = match *fault {
                Fault::Unmapped {
                    addr,
                    size,
                    kind,
                    nearest,
                } => (Kind::Unmapped, access(kind), size, addr, nearest),
                Fault::Misaligned { addr, size } => {
                    (Kind::MisalignedAtomic, Access::Atomic, size, addr, None)
                }
                _ => return None,
            };
            // The runtime's record of the allocation below (its requested
            // size), when there is one.
            let region = region.map(|(s, l)| {
                let r = crate::rt::rt_any();
                let size = r
                    .and_then(|r| lock(&r.allocs).get(&s).map(|a| a.size))
                    .unwrap_or(l);
                (s, size)
            });
            Some(Hit {
                v: Violation {
                    kind,
                    access: a,
                    size,
                    addr,
                    lane: lane.map(|l| l as u8),
                    region,
                    prior: None,
                },
                pc: *pc,
                workgroup: wave.workgroup,
                wave: wave.wave,
                inst: inst.clone(),
            })
        }
        Stop::LdsFault {
            offset,
            size,
            kind,
            lds_size,
            pc,
            wave,
            inst,
        } => Some(Hit {
            v: Violation {
                kind: Kind::LdsOutOfBounds,
                access: access(*kind),
                size: *size,
                addr: *offset,
                lane: None,
                region: Some((0, *lds_size as u64)),
                prior: None,
            },
            pc: *pc,
            workgroup: wave.workgroup,
            wave: wave.wave,
            inst: inst.clone(),
        }),
        _ => None,
    }
}

/// The source frames at a device PC (for the plain fault report): `None`
/// outside every loaded code object, empty without DWARF for it.
pub(crate) fn source_at(pc: u64) -> Option<Vec<Frame>> {
    crate::exec::with_code_object(pc, |elf, vaddr| {
        Lines::new(elf).map_or_else(Vec::new, |l| l.frames(vaddr))
    })
}

fn frames(s: &State, pc: u64) -> Vec<Frame> {
    if let Some(f) = lock(&s.lines).get(&pc) {
        return f.clone();
    }
    let f = crate::exec::with_code_object(pc, |elf, vaddr| {
        Lines::new(elf).map_or_else(Vec::new, |l| l.frames(vaddr))
    })
    .unwrap_or_default();
    lock(&s.lines).insert(pc, f.clone());
    f
}

/// After a dispatch of `kernel` (mangled) with work-groups of `block`
/// work-items: reports what the checkers found, and the dispatch's stop
/// when it is a memory fault.
pub fn after_dispatch<T>(
    kernel: &str,
    block: [u16; 3],
    result: &Result<T, lathe_emu::run::DispatchError>,
) {
    let Some(s) = state() else { return };
    let stop = match result {
        Err(lathe_emu::run::DispatchError::Stopped { stop, .. }) => Some(stop),
        _ => None,
    };
    let (mut hits, dropped) = s.checker.take();
    if let Some(h) = stop
        .filter(|_| s.checker.checks.memcheck)
        .and_then(from_stop)
    {
        // The LDS handler notes an access past LDS with its lane before
        // the access stops the dispatch: the stop adds nothing then.
        let noted = hits.iter().any(|k| {
            k.v.kind == h.v.kind && k.pc == h.pc && k.wave == h.wave && k.workgroup == h.workgroup
        });
        if !noted {
            hits.push(h);
        }
    }
    if hits.is_empty() && dropped == 0 {
        return;
    }
    let name = lathe_codeobj::names::demangle(kernel).unwrap_or_else(|| kernel.to_string());
    let (log, mut text) = render(&hits, kernel, block, &HsaPlaces(s), &mut lock(&s.printed));
    if dropped > 0 {
        text.push_str(&format!(
            "========= {dropped} more findings in {name} were counted but not kept\n"
        ));
    }
    if let Some(f) = &s.log {
        let _ = lock(f).write_all(log.as_bytes());
    }
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// PCs placed in the runtime's loaded code objects (source lines cached).
struct HsaPlaces(&'static State);

impl Places for HsaPlaces {
    fn place(&self, pc: u64) -> String {
        crate::exec::place(pc)
    }
    fn frames(&self, pc: u64) -> Vec<Frame> {
        frames(self.0, pc)
    }
}

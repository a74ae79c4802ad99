//! The sanitizer's emulator side (issue 21, docs/decisions.md D27):
//! what a checked access found wrong, and where the findings of a
//! dispatch's host threads meet.
//!
//! The checks themselves sit where the bytes are: [`crate::mem::MemView`]
//! compares each access with its region's requested size, its freed mark
//! and its shadow (a byte per byte: written or not), and the LDS handler
//! with the work-group's LDS shadow. An access with something wrong is
//! still performed exactly as without checking (the bytes past a
//! requested size are the allocation's padding, a freed allocation is kept
//! in quarantine), so a kernel's effect on memory does not depend on the
//! checker. A finding is first noted on the view (with the lane, when the
//! access is per lane) and, when the instruction ends, tagged with the PC,
//! the wave and the instruction text ([`Hit`]) and handed to the shared
//! [`Checker`]. Nothing here costs anything when checking is off: the
//! view's checker is an `Option` tested once per access.
//!
//! This module imports nothing from the rest of the crate: `mem` and the
//! interpreter import it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

pub mod global;
pub mod race;
pub mod report;

/// Which checkers run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Checks {
    /// Out-of-bounds and freed-memory accesses (global, LDS, scratch),
    /// misaligned atomics.
    pub memcheck: bool,
    /// Reads of global or LDS bytes nothing wrote.
    pub initcheck: bool,
    /// Barriers some waves of a work-group never reach, or reach at
    /// different `s_barrier`s.
    pub synccheck: bool,
    /// LDS hazards between waves of a work-group with no barrier between
    /// them ([`race`]), and global hazards between work-groups of a
    /// dispatch with no atomic ordering them ([`global`]).
    pub racecheck: bool,
}

impl Checks {
    /// Any checker at all.
    pub fn any(self) -> bool {
        self.memcheck || self.initcheck || self.synccheck || self.racecheck
    }
}

/// The access a finding is about (the memory layer's `AccessKind`, kept
/// apart so this module imports nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// A load.
    Read,
    /// A store.
    Write,
    /// A read-modify-write atomic.
    Atomic,
    /// `s_barrier` (synccheck).
    Barrier,
}

impl Access {
    /// `read`, `write`, `atomic`.
    pub fn name(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
            Access::Atomic => "atomic",
            Access::Barrier => "barrier",
        }
    }
}

/// What is wrong with an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// Global memory past the size the program asked for (inside the
    /// allocation's padding).
    OutOfBounds,
    /// Global memory of a freed allocation.
    UseAfterFree,
    /// Global memory outside every allocation (the dispatch stops).
    Unmapped,
    /// LDS past the kernel's static plus dynamic size (the dispatch stops).
    LdsOutOfBounds,
    /// Private memory past a lane's private segment.
    ScratchOutOfBounds,
    /// An atomic at an address not aligned to its size (the dispatch
    /// stops).
    MisalignedAtomic,
    /// A read of global bytes nothing wrote since allocation.
    Uninitialized,
    /// A read of LDS bytes nothing wrote since the work-group started.
    UninitializedLds,
    /// Waves wait at a barrier another wave of the work-group ended
    /// without reaching (the address is that wave's index).
    BarrierNotReached,
    /// Waves of one work-group wait at different `s_barrier`s (the
    /// address is the other barrier's PC).
    BarrierMismatch,
    /// An LDS read of bytes another wave wrote with no barrier between.
    RaceReadAfterWrite,
    /// An LDS write of bytes another wave read with no barrier between.
    RaceWriteAfterRead,
    /// An LDS write of bytes another wave wrote (another value) with no
    /// barrier between.
    RaceWriteAfterWrite,
    /// Two lanes of one store write different values to one LDS byte.
    RaceSameInstruction,
    /// A plain global read of bytes another work-group of the dispatch
    /// writes plainly, with no atomic ordering the two ([`global`]).
    GlobalRaceReadWrite,
    /// A plain global write of bytes another work-group reads plainly,
    /// unordered.
    GlobalRaceWriteRead,
    /// A plain global write of bytes another work-group writes plainly
    /// (another value), unordered.
    GlobalRaceWriteWrite,
}

impl Kind {
    /// The checker that reports it.
    pub fn tool(self) -> &'static str {
        match self {
            Kind::Uninitialized | Kind::UninitializedLds => "initcheck",
            Kind::BarrierNotReached | Kind::BarrierMismatch => "synccheck",
            Kind::RaceReadAfterWrite
            | Kind::RaceWriteAfterRead
            | Kind::RaceWriteAfterWrite
            | Kind::RaceSameInstruction
            | Kind::GlobalRaceReadWrite
            | Kind::GlobalRaceWriteRead
            | Kind::GlobalRaceWriteWrite => "racecheck",
            _ => "memcheck",
        }
    }

    /// A short machine name (`--check-json`'s `kind`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::OutOfBounds => "out-of-bounds",
            Kind::UseAfterFree => "use-after-free",
            Kind::Unmapped => "unmapped",
            Kind::LdsOutOfBounds => "lds-out-of-bounds",
            Kind::ScratchOutOfBounds => "scratch-out-of-bounds",
            Kind::MisalignedAtomic => "misaligned-atomic",
            Kind::Uninitialized => "uninitialized-global-read",
            Kind::UninitializedLds => "uninitialized-lds-read",
            Kind::BarrierNotReached => "barrier-not-reached",
            Kind::BarrierMismatch => "barrier-mismatch",
            Kind::RaceReadAfterWrite => "read-after-write",
            Kind::RaceWriteAfterRead => "write-after-read",
            Kind::RaceWriteAfterWrite => "write-after-write",
            Kind::RaceSameInstruction => "same-instruction-write-write",
            Kind::GlobalRaceReadWrite => "global-read-write",
            Kind::GlobalRaceWriteRead => "global-write-read",
            Kind::GlobalRaceWriteWrite => "global-write-write",
        }
    }

    /// The memory the access went to: `global`, `shared`, `local`.
    pub fn space(self) -> &'static str {
        match self {
            Kind::LdsOutOfBounds
            | Kind::UninitializedLds
            | Kind::RaceReadAfterWrite
            | Kind::RaceWriteAfterRead
            | Kind::RaceWriteAfterWrite
            | Kind::RaceSameInstruction => "shared",
            Kind::ScratchOutOfBounds => "local",
            Kind::BarrierNotReached | Kind::BarrierMismatch => "barrier",
            _ => "global",
        }
    }
}

/// One wrong access, as the memory layer sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Violation {
    /// What is wrong.
    pub kind: Kind,
    /// Read, write or atomic.
    pub access: Access,
    /// Bytes accessed.
    pub size: u32,
    /// The address: a device address for global memory, the LDS offset
    /// for LDS, the lane's private offset for scratch.
    pub addr: u64,
    /// The lane, when the access is per lane.
    pub lane: Option<u8>,
    /// The allocation: its base and the size the program asked for (for
    /// LDS, 0 and the LDS size; for scratch, 0 and the private segment
    /// size).
    pub region: Option<(u64, u64)>,
    /// racecheck: the earlier access the hazard is with.
    pub prior: Option<Prior>,
}

/// The earlier of a racecheck hazard's two accesses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prior {
    /// Read, write or atomic.
    pub access: Access,
    /// Device address of its instruction.
    pub pc: u64,
    /// Its wave's index in the work-group.
    pub wave: u32,
    /// Its lane.
    pub lane: u8,
    /// Its work-group, when not the access's own (global races).
    pub workgroup: Option<[u32; 3]>,
}

/// A [`Violation`] placed: the instruction and wave that made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The access.
    pub v: Violation,
    /// Device address of the instruction.
    pub pc: u64,
    /// Work-group ID.
    pub workgroup: [u32; 3],
    /// Wave index in the work-group.
    pub wave: u32,
    /// The instruction's text.
    pub inst: String,
}

/// Hits kept per [`Checker`] until taken (more are counted, not kept).
pub const KEEP: usize = 100_000;

/// The findings of one or more dispatches, shared by their host threads.
#[derive(Debug, Default)]
pub struct Checker {
    /// Which checkers run.
    pub checks: Checks,
    hits: Mutex<Vec<Hit>>,
    dropped: AtomicU64,
}

impl Checker {
    /// A checker running `checks`.
    pub fn new(checks: Checks) -> Self {
        Checker {
            checks,
            ..Default::default()
        }
    }

    /// Adds hits (beyond [`KEEP`] waiting ones, they are only counted).
    pub fn add(&self, new: impl IntoIterator<Item = Hit>) {
        let mut h = self.hits.lock().unwrap_or_else(|e| e.into_inner());
        for hit in new {
            if h.len() < KEEP {
                h.push(hit);
            } else {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// The hits so far, and how many more were only counted; both reset.
    /// Hits arrive in whatever order the host threads ran the work-groups;
    /// they are returned in launch order (work-group z, y, x, then wave
    /// and lane), so the text report, which prints the first hit of
    /// each kind at each PC, names the same thread whatever `--threads`.
    pub fn take(&self) -> (Vec<Hit>, u64) {
        let mut h = std::mem::take(&mut *self.hits.lock().unwrap_or_else(|e| e.into_inner()));
        // Stable: one wave's hits keep their program order.
        h.sort_by_key(|x| {
            let [gx, gy, gz] = x.workgroup;
            (gz, gy, gx, x.wave, x.v.lane)
        });
        (h, self.dropped.swap(0, Ordering::Relaxed))
    }
}

/// A dispatch option naming the checker (compared by identity; `Copy`, as
/// the options are).
#[derive(Debug, Clone, Copy)]
pub struct CheckHook(pub &'static Checker);

impl PartialEq for CheckHook {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for CheckHook {}

/// The memory layer's per-thread checking state: the findings of the
/// instruction running, and the lane it is working on.
#[derive(Debug)]
pub struct ViewCheck {
    /// Where findings go.
    pub checker: &'static Checker,
    /// Which checkers run.
    pub checks: Checks,
    /// The lane being accessed (per-lane paths set it).
    pub lane: Option<u8>,
    /// Findings of the instruction running.
    pub pending: Vec<Violation>,
    /// Bytes of a lane's private segment.
    pub private_size: u64,
}

impl ViewCheck {
    /// A fresh state reporting to `checker`.
    pub fn new(checker: &'static Checker) -> Self {
        ViewCheck {
            checks: checker.checks,
            checker,
            lane: None,
            pending: Vec::new(),
            private_size: u64::MAX,
        }
    }

    /// Notes a finding for the running instruction (the lane filled in).
    pub fn note(
        &mut self,
        kind: Kind,
        access: Access,
        size: u32,
        addr: u64,
        region: Option<(u64, u64)>,
    ) {
        self.pending.push(Violation {
            kind,
            access,
            size,
            addr,
            lane: self.lane,
            region,
            prior: None,
        });
    }

    /// Hands the running instruction's findings to the checker, placed at
    /// `pc` in `wave` of `workgroup`.
    pub fn flush(&mut self, pc: u64, workgroup: [u32; 3], wave: u32, inst: &dyn std::fmt::Display) {
        self.lane = None;
        if self.pending.is_empty() {
            return;
        }
        let text = inst.to_string();
        let hits: Vec<Hit> = self
            .pending
            .drain(..)
            .map(|v| Hit {
                v,
                pc,
                workgroup,
                wave,
                inst: text.clone(),
            })
            .collect();
        self.checker.add(hits);
    }
}

//! racecheck on LDS (issue 21, docs/decisions.md D29): hazards between
//! accesses of one work-group that no barrier orders.
//!
//! What orders LDS accesses on the hardware, and so here:
//! - one wave's instructions run in program order (its DS operations are
//!   issued and complete in order), so two accesses of one wave in two
//!   instructions never race;
//! - `s_barrier` orders everything every wave of the work-group did before
//!   it against everything after it;
//! - nothing else: two waves of a work-group run in an order the hardware
//!   picks, so a read of a byte another wave wrote since the last barrier
//!   (read-after-write), a write of a byte another wave read
//!   (write-after-read) or wrote (write-after-write) is a hazard;
//! - the lanes of one instruction run together: if two lanes of one store
//!   write different values to one byte, which value stays is not defined
//!   (a same-instruction conflict).
//!
//! Atomics (`ds_add_u32`, …) are ordered with each other by the hardware,
//! so two atomics never race; an atomic against a plain access of another
//! wave does. Writes of the value a byte already holds change nothing in
//! any order and are not reported (the same rule for same-instruction
//! writes of one value by several lanes).
//!
//! The shadow is a [`Cell`] per LDS byte: the last write and the last reads
//! of two different waves, each stamped with the barrier interval
//! (`epoch`) it happened in. A new work-group and every barrier release
//! start a new interval, so nothing is ever cleared: an access of an
//! older interval is ordered by a barrier. The checker only reads the
//! access and LDS, so the kernel's results do not change.

use super::{Access, Kind, Prior, Violation};

/// One access recorded in the shadow.
#[derive(Debug, Clone, Copy, Default)]
struct Acc {
    /// Barrier interval (0: never).
    epoch: u32,
    /// Wave index in the work-group.
    wave: u16,
    lane: u8,
    atomic: bool,
    pc: u64,
}

/// A byte's accesses in the current interval.
#[derive(Debug, Clone, Copy, Default)]
struct Cell {
    write: Acc,
    /// The last reads by two different waves (`read[0]` the latest).
    read: [Acc; 2],
}

/// One lane's access of one instruction.
#[derive(Debug, Clone, Copy)]
pub struct LaneAccess {
    /// The lane, 0-63.
    pub lane: u8,
    /// LDS offset.
    pub addr: u32,
    /// Bytes (1 to 16).
    pub size: u8,
    /// Read, write or atomic.
    pub access: Access,
    /// A write's bytes (the first `size`).
    pub bytes: [u8; 16],
}

/// The racecheck state of one host thread: the shadow of the work-group it
/// runs.
#[derive(Debug, Default)]
pub struct Race {
    epoch: u32,
    cells: Vec<Cell>,
    /// Scratch for same-instruction conflicts.
    writes: Vec<(u32, u8, u8)>,
    /// Scratch for the caller's lane accesses (taken and given back).
    pub buf: Vec<LaneAccess>,
}

impl Race {
    /// A work-group of `lds` LDS bytes starts.
    pub fn start_workgroup(&mut self, lds: usize) {
        if self.cells.len() < lds {
            self.cells.resize(lds, Cell::default());
        }
        self.next_epoch();
    }

    /// Every wave of the work-group passed a barrier.
    pub fn barrier(&mut self) {
        self.next_epoch();
    }

    fn next_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // 2^32 intervals later: old stamps could look current.
            self.cells.fill(Cell::default());
            self.epoch = 1;
        }
    }

    /// Checks one instruction of wave `wave` at `pc` (its lanes'
    /// accesses, before they are performed on `lds`) and records it;
    /// hazards go to `out`. Bytes outside the shadow are left to memcheck.
    pub fn access(
        &mut self,
        wave: u32,
        pc: u64,
        accs: &[LaneAccess],
        lds: &[u8],
        out: &mut Vec<Violation>,
    ) {
        let epoch = self.epoch;
        let me = wave as u16;
        let n = self.cells.len().min(lds.len());
        for a in accs {
            let lo = a.addr as usize;
            let Some(hi) = lo.checked_add(usize::from(a.size)).filter(|&h| h <= n) else {
                continue;
            };
            let atomic = a.access == Access::Atomic;
            let now = Acc {
                epoch,
                wave: me,
                lane: a.lane,
                atomic,
                pc,
            };
            let mut found: Option<(Kind, Acc)> = None;
            for (k, cell) in self.cells[lo..hi].iter_mut().enumerate() {
                let w = cell.write;
                let other_write = w.epoch == epoch && w.wave != me;
                match a.access {
                    Access::Read => {
                        if other_write && found.is_none() {
                            found = Some((Kind::RaceReadAfterWrite, w));
                        }
                        if cell.read[0].epoch == epoch && cell.read[0].wave == me {
                            cell.read[0] = now;
                        } else {
                            cell.read[1] = cell.read[0];
                            cell.read[0] = now;
                        }
                    }
                    _ => {
                        if found.is_none() {
                            let same = !atomic && !w.atomic && lds[lo + k] == a.bytes[k];
                            if other_write && !(atomic && w.atomic) && !same {
                                found = Some((Kind::RaceWriteAfterWrite, w));
                            } else if let Some(r) =
                                cell.read.iter().find(|r| r.epoch == epoch && r.wave != me)
                            {
                                if !(atomic && r.atomic) {
                                    found = Some((Kind::RaceWriteAfterRead, *r));
                                }
                            }
                        }
                        cell.write = now;
                    }
                }
            }
            if let Some((kind, p)) = found {
                out.push(Violation {
                    kind,
                    access: a.access,
                    size: u32::from(a.size),
                    addr: u64::from(a.addr),
                    lane: Some(a.lane),
                    region: Some((0, lds.len() as u64)),
                    prior: Some(Prior {
                        access: if p.atomic {
                            Access::Atomic
                        } else if kind == Kind::RaceWriteAfterRead {
                            Access::Read
                        } else {
                            Access::Write
                        },
                        pc: p.pc,
                        wave: u32::from(p.wave),
                        lane: p.lane,
                        workgroup: None,
                    }),
                });
            }
        }
        self.same_instruction(wave, pc, accs, out);
    }

    /// Two lanes of one store writing different values to one byte.
    fn same_instruction(
        &mut self,
        wave: u32,
        pc: u64,
        accs: &[LaneAccess],
        out: &mut Vec<Violation>,
    ) {
        if !overlapping(accs) {
            return;
        }
        let w = &mut self.writes;
        w.clear();
        for (i, a) in accs.iter().enumerate() {
            if a.access == Access::Write {
                for k in 0..a.size {
                    w.push((a.addr.wrapping_add(u32::from(k)), i as u8, k));
                }
            }
        }
        if w.len() < 2 {
            return;
        }
        w.sort_unstable();
        let mut reported: u64 = 0;
        for p in w.windows(2) {
            let ((addr, i, k), (addr2, j, m)) = (p[0], p[1]);
            if addr != addr2 {
                continue;
            }
            let (a, b) = (&accs[usize::from(i)], &accs[usize::from(j)]);
            if a.lane == b.lane || a.bytes[usize::from(k)] == b.bytes[usize::from(m)] {
                continue;
            }
            // One report per lane (the later one in lane order).
            let bit = 1u64 << (b.lane.max(a.lane) & 63);
            if reported & bit != 0 {
                continue;
            }
            reported |= bit;
            let (first, second) = if a.lane < b.lane { (a, b) } else { (b, a) };
            out.push(Violation {
                kind: Kind::RaceSameInstruction,
                access: Access::Write,
                size: u32::from(second.size),
                addr: u64::from(addr),
                lane: Some(second.lane),
                region: None,
                prior: Some(Prior {
                    access: Access::Write,
                    pc,
                    wave,
                    lane: first.lane,
                    workgroup: None,
                }),
            });
        }
    }
}

/// Whether two writes of the instruction may share a byte: the writes'
/// start offsets sorted, each must end before the next starts (one sort
/// of at most 128 offsets instead of one of every byte).
fn overlapping(accs: &[LaneAccess]) -> bool {
    let mut starts = [(0u32, 0u8); 128];
    let mut n = 0;
    for a in accs.iter().filter(|a| a.access == Access::Write) {
        if n == starts.len() {
            return true;
        }
        starts[n] = (a.addr, a.size);
        n += 1;
    }
    let starts = &mut starts[..n];
    starts.sort_unstable();
    starts
        .windows(2)
        .any(|p| u64::from(p[0].0) + u64::from(p[0].1) > u64::from(p[1].0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(lane: u8, addr: u32, access: Access, v: u8) -> LaneAccess {
        LaneAccess {
            lane,
            addr,
            size: 4,
            access,
            bytes: [v; 16],
        }
    }

    fn run(r: &mut Race, wave: u32, pc: u64, a: &[LaneAccess], lds: &[u8]) -> Vec<Violation> {
        let mut out = Vec::new();
        r.access(wave, pc, a, lds, &mut out);
        out
    }

    #[test]
    fn hazards_between_waves_and_barriers() {
        let lds = [0u8; 64];
        let mut r = Race::default();
        r.start_workgroup(64);
        assert!(run(&mut r, 0, 0x10, &[acc(0, 0, Access::Write, 1)], &lds).is_empty());
        // Same wave, later instruction: ordered.
        assert!(run(&mut r, 0, 0x14, &[acc(3, 0, Access::Read, 0)], &lds).is_empty());
        // Another wave reads it: read-after-write, naming wave 0's store.
        let v = run(&mut r, 1, 0x20, &[acc(5, 0, Access::Read, 0)], &lds);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].kind, Kind::RaceReadAfterWrite);
        let p = v[0].prior.expect("prior");
        assert_eq!(
            (p.pc, p.wave, p.lane, p.access),
            (0x10, 0, 0, Access::Write)
        );
        // Wave 0 writes what wave 1 read: write-after-read.
        let v = run(&mut r, 0, 0x18, &[acc(0, 0, Access::Write, 2)], &lds);
        assert_eq!(v[0].kind, Kind::RaceWriteAfterRead);
        // After a barrier nothing races.
        r.barrier();
        assert!(run(&mut r, 1, 0x30, &[acc(0, 0, Access::Write, 3)], &lds).is_empty());
        // Another wave writes a different value: write-after-write.
        let v = run(&mut r, 2, 0x40, &[acc(0, 0, Access::Write, 4)], &lds);
        assert_eq!(v[0].kind, Kind::RaceWriteAfterWrite);
        // Atomics against atomics do not race.
        r.barrier();
        assert!(run(&mut r, 0, 0x50, &[acc(0, 8, Access::Atomic, 0)], &lds).is_empty());
        assert!(run(&mut r, 1, 0x50, &[acc(0, 8, Access::Atomic, 0)], &lds).is_empty());
        // A plain read of an atomic's result by another wave does.
        let v = run(&mut r, 2, 0x60, &[acc(0, 8, Access::Read, 0)], &lds);
        assert_eq!(v[0].kind, Kind::RaceReadAfterWrite);
        assert_eq!(v[0].prior.expect("prior").access, Access::Atomic);
        // A new work-group starts clean.
        r.start_workgroup(64);
        assert!(run(&mut r, 3, 0x60, &[acc(0, 8, Access::Read, 0)], &lds).is_empty());
    }

    #[test]
    fn same_value_and_same_instruction_writes() {
        let mut lds = [0u8; 64];
        let mut r = Race::default();
        r.start_workgroup(64);
        assert!(run(&mut r, 0, 0x10, &[acc(0, 4, Access::Write, 7)], &lds).is_empty());
        lds[4..8].fill(7);
        // The value the byte holds: no effect in any order.
        assert!(run(&mut r, 1, 0x20, &[acc(0, 4, Access::Write, 7)], &lds).is_empty());
        // Two lanes of one store, one byte, different values.
        let v = run(
            &mut r,
            0,
            0x30,
            &[acc(1, 16, Access::Write, 1), acc(9, 16, Access::Write, 2)],
            &lds,
        );
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].kind, Kind::RaceSameInstruction);
        assert_eq!(v[0].lane, Some(9));
        assert_eq!(v[0].prior.expect("prior").lane, 1);
        // The same value from every lane is fine.
        let same: Vec<_> = (0..64).map(|l| acc(l, 32, Access::Write, 5)).collect();
        assert!(run(&mut r, 0, 0x40, &same, &lds).is_empty());
    }
}

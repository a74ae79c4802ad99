//! Emulator state kept from one dispatch to the next (issue 20, D49), so a
//! launch's fixed cost is not spent decoding the kernel again, zeroing
//! and summing thousands of per-opcode counters, or allocating register
//! files and lane buffers.
//!
//! Two pools, each behind one mutex taken twice per worker per dispatch:
//! * workers' kernel-independent parts ([`Worker`]): the lane buffers,
//!   the per-opcode counts (zero between dispatches: a worker reads back
//!   and zeroes only the slots its kernel's instructions count in) and
//!   the last work-group's waves and LDS;
//! * kernels' decoded instructions ([`Code`]), keyed by target and kernel
//!   descriptor address, with the exact words each was decoded from.
//!
//! A decode is only reused while the bytes at its address are still those
//! words: before every dispatch [`take_code`] reads the code back from
//! device memory and compares it, run by run, with the words the kept
//! decodes came from; any difference (code rewritten by an instrumenter,
//! a host copy, another code object loaded at the same address, memory
//! freed) drops all of that kernel's decodes, so the dispatch decodes
//! afresh. The comparison goes through an ordinary view, so capture
//! still notes the code pages as touched; it costs a copy of the bytes
//! the kernel ran before (a few hundred bytes for a small kernel).

use std::sync::Mutex;

use lathe_isa::Target;

use crate::interp::{Buffers, Decodes};
use crate::mem::DeviceMemory;
use crate::wave::Workgroup;

/// Idle workers kept.
const WORKERS: usize = 16;
/// Idle kernels' decodes kept (least recently used dropped first)...
const CODES: usize = 64;
/// ... and at most this many decoded instructions over all of them.
const INSTRUCTIONS: usize = 200_000;

/// A worker's kernel-independent state.
pub(super) struct Worker {
    pub buffers: Buffers,
    pub wg: Workgroup,
}

impl Default for Worker {
    fn default() -> Self {
        Worker {
            buffers: Buffers::default(),
            wg: Workgroup {
                id: [0; 3],
                lds: Vec::new(),
                waves: Vec::new(),
            },
        }
    }
}

/// What a kept [`Code`] belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Key {
    pub target: Target,
    /// Kernel descriptor address.
    pub kernel: u64,
}

/// One kernel's decoded instructions and the code bytes they came from.
pub(super) struct Code {
    key: Key,
    /// `None` while a dispatch runs them (taking them out builds nothing).
    pub decodes: Option<Decodes>,
    /// `decodes.len()` when `runs`, `bytes` and `slots` were worked out.
    built: usize,
    /// Contiguous runs of decoded code: (address, length), their bytes
    /// one after another in `bytes`.
    runs: Vec<(u64, usize)>,
    bytes: Vec<u8>,
    /// Two decodes overlap with different bytes (code changed during a
    /// dispatch): never reused.
    poisoned: bool,
    /// The distinct count slots of the decoded instructions.
    slots: Vec<u32>,
    /// Last use, for eviction.
    stamp: u64,
}

struct Pools {
    workers: Vec<Worker>,
    codes: Vec<Code>,
    clock: u64,
}

static POOLS: Mutex<Pools> = Mutex::new(Pools {
    workers: Vec::new(),
    codes: Vec::new(),
    clock: 0,
});

fn pools() -> std::sync::MutexGuard<'static, Pools> {
    POOLS.lock().unwrap_or_else(|p| p.into_inner())
}

/// A worker's state: kept from an earlier dispatch, or new.
pub(super) fn take_worker() -> Worker {
    pools().workers.pop().unwrap_or_default()
}

/// The decodes of `key`'s kernel, if kept and still matching the code in
/// `mem` byte for byte; otherwise empty.
pub(super) fn take_code(key: Key, mem: &DeviceMemory) -> Code {
    let kept = {
        let mut p = pools();
        let i = p.codes.iter().position(|c| c.key == key);
        i.map(|i| p.codes.swap_remove(i))
    };
    match kept {
        Some(c) if !c.poisoned && c.matches(mem) => c,
        _ => Code {
            key,
            decodes: None,
            built: 0,
            runs: Vec::new(),
            bytes: Vec::new(),
            poisoned: false,
            slots: Vec::new(),
            stamp: 0,
        },
    }
}

/// Hands a worker and its kernel's decodes back for the next dispatch.
/// `worker.buffers.counts` must be zero again ([`Code::harvest`]).
pub(super) fn give(worker: Worker, mut code: Code) {
    code.settle();
    let mut p = pools();
    if p.workers.len() < WORKERS {
        p.workers.push(worker);
    }
    p.clock += 1;
    code.stamp = p.clock;
    p.codes.push(code);
    while p.codes.len() > CODES
        || (p.codes.len() > 1 && p.codes.iter().map(Code::len).sum::<usize>() > INSTRUCTIONS)
    {
        let oldest = p
            .codes
            .iter()
            .enumerate()
            .min_by_key(|(_, c)| c.stamp)
            .map_or(0, |(i, _)| i);
        p.codes.swap_remove(oldest);
    }
}

impl Code {
    /// Decoded instructions kept.
    fn len(&self) -> usize {
        self.decodes.as_ref().map_or(0, Decodes::len)
    }

    /// Whether every kept decode's words are still the bytes at its address.
    fn matches(&self, mem: &DeviceMemory) -> bool {
        let mut view = mem.view();
        let mut buf = [0u8; 512];
        let mut at = 0;
        for &(start, len) in &self.runs {
            let mut done = 0;
            while done < len {
                let n = (len - done).min(buf.len());
                if view.read_bytes(start + done as u64, &mut buf[..n]).is_err() {
                    return false;
                }
                if buf[..n] != self.bytes[at + done..at + done + n] {
                    return false;
                }
                done += n;
            }
            at += len;
        }
        true
    }

    /// Works out the runs, their bytes and the count slots again when the
    /// dispatch decoded something new.
    fn settle(&mut self) {
        let Some(decodes) = self.decodes.as_ref() else {
            return;
        };
        if decodes.len() == self.built {
            return;
        }
        self.built = decodes.len();
        let mut insts: Vec<(u64, Vec<u8>)> = Vec::with_capacity(self.built);
        let mut seen = Vec::<u64>::new();
        self.slots.clear();
        decodes.each(|pc, words, slot| {
            insts.push((pc, words.iter().flat_map(|w| w.to_le_bytes()).collect()));
            let (word, bit) = (slot as usize / 64, slot % 64);
            if seen.len() <= word {
                seen.resize(word + 1, 0);
            }
            if seen[word] >> bit & 1 == 0 {
                seen[word] |= 1 << bit;
                self.slots.push(slot);
            }
        });
        insts.sort_by_key(|(pc, _)| *pc);
        self.runs.clear();
        self.bytes.clear();
        for (pc, b) in insts {
            // The run this instruction starts in or just after.
            let joined = self.runs.last_mut().and_then(|(start, len)| {
                let end = *start + *len as u64;
                (pc <= end).then_some((start, len, end))
            });
            match joined {
                Some((start, len, end)) => {
                    // Bytes already in the run must agree with this decode.
                    let from = (pc - *start) as usize;
                    let tail = self.bytes.len() - *len;
                    let overlap = ((end - pc) as usize).min(b.len());
                    if self.bytes[tail + from..tail + from + overlap] != b[..overlap] {
                        self.poisoned = true;
                    }
                    self.bytes.extend_from_slice(&b[overlap..]);
                    *len += b.len() - overlap;
                }
                None => {
                    self.runs.push((pc, b.len()));
                    self.bytes.extend_from_slice(&b);
                }
            }
        }
    }

    /// Reads this dispatch's per-opcode counts out of `counts` (only the
    /// slots of the decoded instructions: nothing else counts) and zeroes
    /// them: (slot, count) for the non-zero ones, appended to `out`.
    pub fn harvest(&mut self, counts: &mut [u64], out: &mut Vec<(u32, u64)>) {
        self.settle();
        for &s in &self.slots {
            if let Some(c) = counts.get_mut(s as usize) {
                if *c > 0 {
                    out.push((s, std::mem::take(c)));
                }
            }
        }
    }
}

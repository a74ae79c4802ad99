//! Ground-truth recording: what every executed instruction did, for
//! checking binary instrumentation against the emulator itself.
//!
//! A [`Recorder`] is attached to an [`Exec`](crate::interp::Exec) only when
//! a dispatch asks for it ([`crate::run::dispatch_recorded`]); `step` then
//! makes one call per executed instruction ([`Recorder::step`]). When no
//! recorder is attached the cost is one well-predicted branch on an
//! `Option` per instruction.
//!
//! Per program counter it keeps the number of wave-level executions and the
//! number of active lanes summed over them (EXEC before the instruction);
//! the vector-memory and LDS handlers add one [`MemAccess`] per active lane
//! (one `Option` check per memory instruction when off).

use std::collections::HashMap;

/// Executions of one instruction address.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PcCount {
    /// Times a wave executed the instruction.
    pub waves: u64,
    /// Active lanes (EXEC before the instruction) summed over those times.
    pub lanes: u64,
}

/// One lane's memory access: the address the instruction computed
/// (FLAT/GLOBAL: registers plus offset, before aperture resolution;
/// SCRATCH: the lane's 32-bit private-segment offset, VGPR and/or SGPR plus
/// offset; DS: the address VGPR plus the 16-bit offset field; MUBUF: the
/// device address of the lane's first byte — base + index × stride +
/// offsets for a raw buffer (recorded even when out of range), and the
/// swizzled address in the private segment for a descriptor with
/// ADD_TID_ENABLE).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MemAccess {
    /// Device address of the instruction.
    pub pc: u64,
    /// Lane.
    pub lane: u8,
    /// Address.
    pub addr: u64,
}

/// Per-PC execution counts and the access log of one host thread's waves.
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    /// Counts by device address of the instruction.
    pub per_pc: HashMap<u64, PcCount>,
    /// Vector-memory and LDS accesses, per active lane, in execution order
    /// per thread.
    pub accesses: Vec<MemAccess>,
    /// The wave (work-group id, index in the work-group) of each access,
    /// parallel to [`Recorder::accesses`] when the dispatch tagged them
    /// (`lathe_emu::run` does, one scheduling slice at a time).
    pub access_waves: Vec<([u32; 3], u32)>,
}

impl Recorder {
    /// Records one execution of the instruction at `pc` under `exec`.
    #[inline]
    pub fn step(&mut self, pc: u64, exec: u64) {
        let c = self.per_pc.entry(pc).or_default();
        c.waves += 1;
        c.lanes += u64::from(exec.count_ones());
    }

    /// Adds another recorder's counts.
    pub fn merge(&mut self, other: &Recorder) {
        for (pc, c) in &other.per_pc {
            let e = self.per_pc.entry(*pc).or_default();
            e.waves += c.waves;
            e.lanes += c.lanes;
        }
        self.accesses.extend_from_slice(&other.accesses);
        self.access_waves.extend_from_slice(&other.access_waves);
    }

    /// Total wave-level executions.
    pub fn wave_instructions(&self) -> u64 {
        self.per_pc.values().map(|c| c.waves).sum()
    }

    /// Total active lanes over all executions (thread-level instructions).
    pub fn thread_instructions(&self) -> u64 {
        self.per_pc.values().map(|c| c.lanes).sum()
    }
}

//! The `.lathe.addr_map` section of an instrumented code object: a
//! non-allocated section of little-endian u64 pairs (instrumented address,
//! original address), sorted by the former. `lathe-dbi` writes it when it
//! rewrites a code object; runtimes and reports read it here to name the
//! original instruction an instrumented address stands for (a fault, an
//! interrupted wave, a `lathe run --tool` stop).

/// The section's name.
pub const SECTION: &str = ".lathe.addr_map";

/// Instrumented → original addresses of every original instruction of an
/// instrumented code object, sorted by the instrumented address.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddrMap {
    pairs: Vec<(u64, u64)>,
}

impl AddrMap {
    /// The map of (instrumented, original) `pairs` (any order).
    pub fn new(pairs: &[(u64, u64)]) -> AddrMap {
        let mut pairs = pairs.to_vec();
        pairs.sort_unstable();
        AddrMap { pairs }
    }

    /// The map in `elf`'s [`SECTION`]; `None` without one.
    pub fn read(elf: &[u8]) -> Option<AddrMap> {
        let co = crate::CodeObject::parse(elf).ok()?;
        let data = co.section_data(co.section_by_name(SECTION)?).ok()?;
        let pairs: Vec<(u64, u64)> = data
            .chunks_exact(16)
            .map(|c| {
                let (new, old) = c.split_at(8);
                let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or_default());
                (word(new), word(old))
            })
            .collect();
        Some(AddrMap::new(&pairs))
    }

    /// The (instrumented, original) pairs, sorted.
    pub fn pairs(&self) -> &[(u64, u64)] {
        &self.pairs
    }

    /// The original instruction the instrumented address `new` stands
    /// for, and whether `new` is that instruction itself (else it is in
    /// probe code placed after it); `None` before the first instruction.
    pub fn original(&self, new: u64) -> Option<(u64, bool)> {
        let i = self.pairs.partition_point(|&(n, _)| n <= new);
        let (n, old) = *self.pairs.get(i.checked_sub(1)?)?;
        Some((old, n == new))
    }

    /// The original instruction at or after the instrumented address
    /// `new` (a function's moved entry, which probes may precede); `None`
    /// past the last one.
    pub fn original_at_or_after(&self, new: u64) -> Option<u64> {
        let i = self.pairs.partition_point(|&(n, _)| n < new);
        self.pairs.get(i).map(|&(_, old)| old)
    }

    /// The original instructions around probe code at `new`: the one it
    /// follows and the one it precedes (either may be missing at a
    /// function's ends).
    pub fn around(&self, new: u64) -> (Option<u64>, Option<u64>) {
        let i = self.pairs.partition_point(|&(n, _)| n <= new);
        let before = i.checked_sub(1).map(|j| self.pairs[j].1);
        (before, self.pairs.get(i).map(|&(_, old)| old))
    }
}

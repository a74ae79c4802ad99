//! A static check that probe code keeps the program's registers, without
//! running it: the register half of [`crate::verify`], for the fuzzer
//! (`dbi_sites`) and `crates/dbi/tests/regs_static.rs`.
//!
//! The instrumented code is lifted again and cut, by its address map,
//! into runs of inserted instructions (probes, spills, register saves,
//! long jumps), each ending at an original instruction. Every register an
//! inserted run writes must be dead before that original instruction (by
//! the original program's [`Liveness`]; a register no original
//! instruction names counts as dead), or read by the run before its first
//! write there (saved: to a VGPR lane, to scratch, to an SGPR pair).
//!
//! A register picked as dead while it is live, a reservation overlapping
//! the program's registers, or a live VGPR or SGPR used without being
//! saved first is what this catches. It does not check that a saved value
//! is restored (running does: `random_sites.rs`, `stress.rs`).

use lathe_codeobj::CodeObject;

use crate::addr_map::AddrMap;
use crate::lift::Program;
use crate::live::{effects, Liveness, RegSet};

/// What [`check_lifted`] verified.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Checked {
    /// Runs of inserted instructions checked.
    pub runs: usize,
    /// Inserted instructions checked.
    pub inserted: usize,
    /// Runs that wrote a register live after them, saving it first.
    pub saved: usize,
}

/// Checks the instrumented code object `out` (with its address map, as
/// [`crate::rewrite::Instrumented::addr_map`]) against `original` and its
/// liveness `live` (see the module docs).
pub fn check(
    original: &Program,
    live: &Liveness,
    out: &[u8],
    addr_map: &[(u64, u64)],
) -> Result<Checked, String> {
    let co = CodeObject::parse(out).map_err(|e| format!("does not parse: {e}"))?;
    let q = Program::lift(&co).map_err(|e| format!("does not lift: {e}"))?;
    check_lifted(original, live, &q, addr_map)
}

/// [`check`] on the instrumented code, already lifted (`q`).
pub fn check_lifted(
    original: &Program,
    live: &Liveness,
    q: &Program,
    addr_map: &[(u64, u64)],
) -> Result<Checked, String> {
    let map = AddrMap::new(addr_map);
    // Registers some original instruction reads or writes. Liveness calls
    // everything live before a call it cannot resolve; a register no
    // instruction names carries none of the program's values (callees
    // keep the callee-saved ones, where such components get their probe
    // registers), so only named registers count.
    let mut named = RegSet::default();
    for f in &live.functions {
        for e in &f.effects {
            named = named.union(&e.uses).union(&e.defs);
        }
    }
    let mut c = Checked::default();
    for f in &q.functions {
        // The current run: registers written, and those read before
        // their first write in it.
        let (mut written, mut saved) = (RegSet::default(), RegSet::default());
        let mut first: Option<u64> = None;
        for i in &f.insts {
            match map.original(i.addr) {
                Some((old, true)) => {
                    let Some(start) = first.take() else {
                        continue;
                    };
                    let fi = original
                        .function_containing(old)
                        .ok_or_else(|| format!("original {old:#x} is in no function"))?;
                    let of = &original.functions[fi];
                    let k = of
                        .index_of(old)
                        .ok_or_else(|| format!("original {old:#x} is no instruction"))?;
                    let need = live.functions[fi].before[k].intersect(&named);
                    let lost = written.intersect(&need);
                    let unsaved = RegSet {
                        s: lost.s & !saved.s,
                        scc: lost.scc && !saved.scc,
                        v: std::array::from_fn(|j| lost.v[j] & !saved.v[j]),
                        a: std::array::from_fn(|j| lost.a[j] & !saved.a[j]),
                    };
                    if !unsaved.is_empty() {
                        return Err(format!(
                            "probe code at {start:#x} (before {}+{:#x}: {}) writes {unsaved}, \
                             live there, without saving it first",
                            of.name,
                            old - of.addr,
                            of.insts[k].inst
                        ));
                    }
                    c.runs += 1;
                    if !lost.is_empty() {
                        c.saved += 1;
                    }
                    (written, saved) = (RegSet::default(), RegSet::default());
                }
                _ => {
                    first.get_or_insert(i.addr);
                    c.inserted += 1;
                    let e = effects(&i.inst);
                    let fresh = e.uses.intersect(&RegSet {
                        s: !written.s,
                        scc: !written.scc,
                        v: written.v.map(|w| !w),
                        a: written.a.map(|w| !w),
                    });
                    saved = saved.union(&fresh);
                    written = written.union(&e.defs);
                }
            }
        }
    }
    Ok(c)
}

//! A static check of an instrumented code object against the program it
//! was made from, without running it: the checks the fuzzer (`dbi_sites`)
//! and the rewriting benchmark (`bench/dbi.py`) apply to every output.
//!
//! - The instrumented code object parses and lifts again, with no more
//!   unresolved code than the original had.
//! - Its address map (the rewriter's, which [`crate::addr_map`] stores in
//!   the file) names every original instruction exactly once, at an
//!   instruction of the new code.
//! - Each original instruction is still there, word for word. Branches,
//!   calls and the PC-relative address arithmetic after an `s_getpc`
//!   (which relaxation and moved code re-encode) must keep their opcode;
//!   a branch or call relaxed into a long jump or call must reach an
//!   indirect one (`s_setpc_b64`, `s_swappc_b64`) or its own opcode
//!   before the next original instruction.
//!
//! This does not show that probes keep the kernel's behaviour — running
//! does (`crates/dbi/tests/tools.rs`, `random_sites.rs`) — but it catches
//! lost, duplicated or altered original instructions cheaply.

use lathe_codeobj::CodeObject;
use lathe_isa::opcode::flags;

use crate::addr_map::AddrMap;
use crate::lift::{Inst, Program};

/// What [`check`] verified, for reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Checked {
    /// Original instructions found word for word.
    pub same_words: usize,
    /// Branches, calls and PC-relative arithmetic found with their opcode.
    pub same_opcode: usize,
    /// Instructions the instrumented code lifts to (originals and probes).
    pub instructions: usize,
}

/// `map.original(i.addr)` for each of `insts` (ascending addresses), by
/// walking `pairs` (sorted by instrumented address, as
/// [`AddrMap::pairs`]) alongside instead of searching per instruction:
/// the original instruction each stands for and whether it is that
/// instruction itself.
pub(crate) fn originals<'a>(
    pairs: &'a [(u64, u64)],
    insts: &'a [Inst],
) -> impl Iterator<Item = Option<(u64, bool)>> + 'a {
    let mut j = insts
        .first()
        .map_or(0, |i0| pairs.partition_point(|&(n, _)| n < i0.addr));
    insts.iter().map(move |i| {
        while pairs.get(j).is_some_and(|&(n, _)| n <= i.addr) {
            j += 1;
        }
        j.checked_sub(1).map(|k| (pairs[k].1, pairs[k].0 == i.addr))
    })
}

/// Checks the instrumented code object `out`, with its address map
/// `addr_map` ((instrumented, original) pairs, as
/// [`crate::rewrite::Instrumented::addr_map`]), against `original`, the
/// lifted program it was rewritten from (see the module docs).
pub fn check(original: &Program, out: &[u8], addr_map: &[(u64, u64)]) -> Result<Checked, String> {
    let co = CodeObject::parse(out).map_err(|e| format!("does not parse: {e}"))?;
    let q = Program::lift(&co).map_err(|e| format!("does not lift: {e}"))?;
    check_lifted(original, &q, addr_map)
}

/// [`check`] on the instrumented code object, already parsed and lifted
/// (`q`).
pub fn check_lifted(
    original: &Program,
    q: &Program,
    addr_map: &[(u64, u64)],
) -> Result<Checked, String> {
    if q.unresolved.len() > original.unresolved.len() {
        return Err(format!(
            "{} unresolved after instrumenting, {} before: first {:?}",
            q.unresolved.len(),
            original.unresolved.len(),
            q.unresolved.first()
        ));
    }
    let map = AddrMap::new(addr_map);
    // (original address, function, index) of every original instruction
    // in `q`, sorted by the original address: one walk of the sorted map
    // alongside each function's ascending addresses.
    let mut at: Vec<(u64, usize, usize)> = Vec::with_capacity(addr_map.len());
    for (fi, f) in q.functions.iter().enumerate() {
        for (ii, orig) in originals(map.pairs(), &f.insts).enumerate() {
            if let Some((old, true)) = orig {
                at.push((old, fi, ii));
            }
        }
    }
    at.sort_unstable();
    if let Some(w) = at.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(format!("original {:#x} is mapped twice", w[0].0));
    }
    let mut c = Checked {
        instructions: q.functions.iter().map(|f| f.insts.len()).sum(),
        ..Checked::default()
    };
    let flow = flags::BRANCH | flags::CBRANCH | flags::CALL;
    for f in &original.functions {
        let pcrel: Vec<usize> = f
            .pcrel
            .iter()
            .flat_map(|r| [Some(r.getpc), r.add, r.addc])
            .flatten()
            .collect();
        for (k, i) in f.insts.iter().enumerate() {
            let place = || format!("{}+{:#x} ({})", f.name, i.addr - f.addr, i.inst);
            let (fi, ii) = at
                .binary_search_by_key(&i.addr, |&(old, _, _)| old)
                .map(|k| (at[k].1, at[k].2))
                .map_err(|_| format!("{} is not in the instrumented code", place()))?;
            let new: &Inst = &q.functions[fi].insts[ii];
            if i.inst.flags() & flow != 0 || pcrel.contains(&k) {
                let relaxed = i.inst.flags() & flow != 0
                    && q.functions[fi].insts[ii..]
                        .iter()
                        .take_while(|n| {
                            n.addr == new.addr || !matches!(map.original(n.addr), Some((_, true)))
                        })
                        .any(|n| {
                            n.inst.opcode() == i.inst.opcode()
                                || n.inst.flags() & flags::INDIRECT != 0
                        });
                if new.inst.opcode() != i.inst.opcode() && !relaxed {
                    return Err(format!("{} became {}", place(), new.inst));
                }
                c.same_opcode += 1;
            } else {
                if new.inst.words() != i.inst.words() {
                    return Err(format!("{} became {}", place(), new.inst));
                }
                c.same_words += 1;
            }
        }
    }
    Ok(c)
}

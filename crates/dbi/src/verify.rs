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

use std::collections::HashMap;

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
    // Original address -> (function, index) of its instruction in `q`.
    let mut at: HashMap<u64, (usize, usize), crate::asm::FastHash> = HashMap::default();
    for (fi, f) in q.functions.iter().enumerate() {
        for (ii, i) in f.insts.iter().enumerate() {
            if let Some((old, true)) = map.original(i.addr) {
                if at.insert(old, (fi, ii)).is_some() {
                    return Err(format!("original {old:#x} is mapped twice"));
                }
            }
        }
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
            let &(fi, ii) = at
                .get(&i.addr)
                .ok_or_else(|| format!("{} is not in the instrumented code", place()))?;
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

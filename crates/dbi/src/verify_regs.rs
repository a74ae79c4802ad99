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
//!
//! Every inserted instruction's register tuples must also be aligned as
//! the ISA requires ([`misaligned`]): a probe handed an odd VGPR pair on
//! gfx90a encodes, but names registers the hardware does not.

use std::collections::HashMap;

use lathe_codeobj::CodeObject;
use lathe_isa::opcode::mods;
use lathe_isa::{Instruction, Kind, Operand, RegFile, RegRange, Target};

use crate::addr_map::AddrMap;
use crate::lift::Program;
use crate::live::{effects, Effects, Liveness, RegSet};

/// An instruction's words and target, as a key: the words are the whole
/// instruction (at most 12 bytes: GFX9's longest is 8 and a literal).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Words(Target, [u32; 3], usize);

impl Words {
    fn of(inst: &Instruction) -> Option<Words> {
        let w = inst.words();
        if inst.len() > 12 || w.len() > 3 {
            return None;
        }
        let mut k = [0u32; 3];
        k[..w.len()].copy_from_slice(w);
        Some(Words(inst.target(), k, inst.len()))
    }
}

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
    // Probe code repeats, within an output and from one output to the
    // next (the fuzzer checks thousands): each distinct word sequence's
    // effects and alignment are computed once per thread. Both are
    // functions of the words and the target alone, so a hit is what
    // computing again would give; the table is bounded (cleared when
    // full).
    type Memo = HashMap<Words, (Effects, Option<RegRange>), crate::asm::FastHash>;
    thread_local! {
        static MEMO: std::cell::RefCell<Memo> = std::cell::RefCell::default();
    }
    const MAX_MEMO: usize = 4096;
    for f in &q.functions {
        // The current run: registers written, and those read before
        // their first write in it.
        let (mut written, mut saved) = (RegSet::default(), RegSet::default());
        let mut first: Option<u64> = None;
        // `map.original(i.addr)`, walking the sorted pairs alongside the
        // function's ascending addresses instead of searching per
        // instruction.
        let pairs = map.pairs();
        let mut j = f
            .insts
            .first()
            .map_or(0, |i0| pairs.partition_point(|&(n, _)| n < i0.addr));
        for i in &f.insts {
            while pairs.get(j).is_some_and(|&(n, _)| n <= i.addr) {
                j += 1;
            }
            let orig = j.checked_sub(1).map(|k| (pairs[k].1, pairs[k].0 == i.addr));
            match orig {
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
                    let look = || (effects(&i.inst), misaligned(&i.inst));
                    let (e, bad) = match Words::of(&i.inst) {
                        Some(key) => MEMO.with(|m| {
                            let mut m = m.borrow_mut();
                            if m.len() >= MAX_MEMO && !m.contains_key(&key) {
                                m.clear();
                            }
                            *m.entry(key).or_insert_with(look)
                        }),
                        None => look(),
                    };
                    if let Some(r) = bad {
                        return Err(format!(
                            "probe instruction at {:#x} ({}, in {}) names {r}, a misaligned \
                             register tuple",
                            i.addr, i.inst, f.name
                        ));
                    }
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

/// The first register tuple `inst` names that is misaligned for its
/// target, if any. The rules are LLVM's (AMDGPU 22, which rejects such
/// operands in assembly and flags them when disassembling):
///
/// - SGPR and TTMP tuples, on every target: a pair starts at an even
///   register, a wider tuple at a multiple of 4 (`s[1:2]` and `s[2:5]`
///   are invalid; LLVM's disassembler reads such a field as the
///   aligned tuple below it, with a warning);
/// - VGPR and AGPR tuples (64-bit and wider operands, MFMA sources and
///   accumulators) start at an even register on gfx90a and gfx94x
///   ([`Target::needs_aligned_vgprs`](lathe_isa::Target::needs_aligned_vgprs))
///   wherever the operand's register class is an aligned one: the ISA
///   tables' [`mods::ALIGN`] (or [`mods::ALIGN_ACC`] for an AGPR in an
///   operand that takes either file), generated from LLVM's classes.
pub fn misaligned(inst: &Instruction) -> Option<RegRange> {
    let t = inst.target();
    let vector_rule = t.needs_aligned_vgprs() || t.is_gfx1250();
    for op in inst.operands().as_slice() {
        let Operand::Reg(r) = op.value else {
            continue;
        };
        if r.count < 2 {
            continue;
        }
        let bad = match r.file {
            RegFile::Scalar => {
                let align = if r.count == 2 { 2 } else { 4 };
                match r.first {
                    0..=101 => r.first % align != 0,
                    108..=123 => (r.first - 108) % align != 0,
                    _ => false,
                }
            }
            RegFile::Vgpr | RegFile::Agpr => {
                let either = matches!(op.kind(), Kind::AvReg | Kind::AvSrc);
                let flag = if either && r.file == RegFile::Agpr {
                    mods::ALIGN_ACC
                } else {
                    mods::ALIGN
                };
                vector_rule && r.first % 2 != 0 && op.spec.mods & flag != 0
            }
        };
        if bad {
            return Some(r);
        }
    }
    None
}

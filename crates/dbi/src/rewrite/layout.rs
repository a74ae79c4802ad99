//! Layout: each function as a list of items (original instructions,
//! probe code, re-targeted branches and calls, `s_getpc_b64` fixes), their
//! sizes, and the long-jump and long-call sequences branches and calls
//! are relaxed to; the layout of every function with relaxation
//! ([`relax`]) and the encoding of the new code ([`emit`]).

use std::collections::HashMap;
use std::sync::Arc;

use lathe_codeobj::CodeObject;
use lathe_isa::{BuildError, Instruction, Opcode, Operand, Target};

use super::probe::SymRef;
use crate::asm::*;
use crate::elfout::{self, NewLayout};
use crate::lift::Program;
use crate::Error;

/// Probe code at one place: instructions and their symbol references.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProbeCode {
    pub(crate) insts: Vec<Instruction>,
    pub(crate) syms: Vec<SymRef>,
}

impl ProbeCode {
    pub(crate) fn push(&mut self, i: Instruction) {
        self.insts.push(i);
    }
    /// Moves the code into `items` (symbol references become
    /// [`Item::PcAdd`]s against [`AddrRef::Sym`]).
    pub(crate) fn drain_into(&mut self, items: &mut Vec<Item>) {
        let base = items.len();
        let mut refs: HashMap<usize, (usize, bool, Arc<str>)> = HashMap::new();
        for r in self.syms.drain(..) {
            let name: Arc<str> = r.symbol.into();
            refs.insert(r.add, (r.getpc, false, name.clone()));
            refs.insert(r.add + 1, (r.getpc, true, name));
        }
        for (k, inst) in self.insts.drain(..).enumerate() {
            // Most probe code references no symbol: no look-up then.
            let r = if refs.is_empty() {
                None
            } else {
                refs.remove(&k)
            };
            match r {
                Some((g, hi, name)) => items.push(Item::PcAdd {
                    inst,
                    getpc: base + g,
                    target: AddrRef::Sym(name),
                    hi,
                }),
                None => items.push(Item::Fixed(inst)),
            }
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) enum AddrRef {
    /// An original address (mapped to its new copy if it is code);
    /// `u64::MAX` names the probe-data variable.
    Old(u64),
    /// A symbol of another code object (relocated by the loader).
    Sym(Arc<str>),
}

#[derive(Debug, Clone)]
pub(crate) enum Item {
    Fixed(Instruction),
    /// A PC-relative branch to an item; `long` once relaxed.
    Branch {
        inst: Instruction,
        target: usize,
        long: bool,
        orig: u64,
        /// SGPR pair and single for a long jump, if any are free.
        scratch: Option<(u16, u16)>,
    },
    /// The literal of a recognised `s_add_u32`/`s_addc_u32` after the
    /// `s_getpc_b64` at item `getpc`: `target - (getpc + 4)`.
    PcAdd {
        inst: Instruction,
        getpc: usize,
        target: AddrRef,
        hi: bool,
    },
    /// `s_call_b64` to function `callee`; `long` once relaxed to
    /// `s_getpc_b64`/add/`s_swappc_b64` (SCC saved in `scratch`).
    Call {
        inst: Instruction,
        callee: usize,
        long: bool,
        orig: u64,
        scratch: Option<u16>,
    },
    /// Correction after a bare `s_getpc_b64` at item `getpc` that was at
    /// `old` in the original code.
    PcFix {
        reg: u16,
        getpc: usize,
        old: u64,
        /// SGPR saving SCC, if one is free.
        scratch: Option<u16>,
    },
}

impl Item {
    pub(crate) fn size(&self) -> u64 {
        match self {
            Item::Fixed(i) => i.len() as u64,
            Item::Branch { long: false, .. } => 4,
            Item::Branch {
                inst, long: true, ..
            } => {
                if inst.is_cond_branch() {
                    8 + LONG_JUMP
                } else {
                    LONG_JUMP
                }
            }
            Item::PcAdd { .. } => 8,
            Item::PcFix { .. } => 4 + 4 + 8 + 8 + 4,
            Item::Call { long: false, .. } => 4,
            Item::Call { long: true, .. } => LONG_JUMP,
        }
    }
}

/// Bytes of a long jump or call: `s_waitcnt lgkmcnt(0)` (its SGPRs may be
/// dead ones a scalar load is still due to write), `s_getpc_b64`, SCC save,
/// add, add with carry, SCC restore, `s_setpc_b64`/`s_swappc_b64`.
pub(crate) const LONG_JUMP: u64 = 36;

pub(crate) struct FnCode {
    pub(crate) items: Vec<Item>,
    /// Item of each original instruction.
    pub(crate) inst_item: Vec<usize>,
    /// Item index where the group of original instruction `i` starts.
    pub(crate) label: Vec<usize>,
    /// Item address (relative to the function's new start), recomputed.
    pub(crate) offs: Vec<u64>,
    pub(crate) size: u64,
}

impl FnCode {
    pub(crate) fn relayout(&mut self) {
        self.offs.clear();
        let mut o = 0;
        for it in &self.items {
            self.offs.push(o);
            o += it.size();
        }
        self.offs.push(o);
        self.size = o;
    }
}

pub(crate) fn encode_err<'a>(
    function: &'a str,
    addr: u64,
    what: &str,
) -> impl FnOnce(BuildError) -> Error + 'a {
    let what = what.to_string();
    move |source| Error::Encode {
        function: function.to_string(),
        addr,
        what,
        source,
    }
}

pub(crate) fn long_jump(
    t: Target,
    r: &Reserved,
    at: u64,
    to: u64,
    out: &mut Vec<u8>,
) -> Result<(), BuildError> {
    // The s_getpc_b64 follows the wait.
    let k = to.wrapping_sub(at + 8);
    let seq = [
        waitcnt(t, 63, 0)?,
        build(t, Opcode::S_GETPC_B64, &[sreg(r.tmp, 2)])?,
        build(
            t,
            Opcode::S_CSELECT_B32,
            &[sreg(r.scc, 1), Operand::Int(1), Operand::Int(0)],
        )?,
        build(
            t,
            Opcode::S_ADD_U32,
            &[sreg(r.tmp, 1), sreg(r.tmp, 1), Operand::Literal(k as u32)],
        )?,
        build(
            t,
            Opcode::S_ADDC_U32,
            &[
                sreg(r.tmp + 1, 1),
                sreg(r.tmp + 1, 1),
                Operand::Literal((k >> 32) as u32),
            ],
        )?,
        build(t, Opcode::S_CMP_LG_U32, &[sreg(r.scc, 1), Operand::Int(0)])?,
        build(t, Opcode::S_SETPC_B64, &[sreg(r.tmp, 2)])?,
    ];
    let mut n = 0;
    for i in seq {
        n += i.len();
        i.encode_into(out);
    }
    debug_assert_eq!(n as u64, LONG_JUMP);
    Ok(())
}

/// `s_call_b64 s[d:d+1], to` out of range: `s_getpc_b64 s[d:d+1]`, add
/// the distance (SCC saved in `scc`), `s_swappc_b64 s[d:d+1], s[d:d+1]`
/// (the return address is the instruction after it, as after the call).
pub(crate) fn long_call(
    t: Target,
    d: u16,
    scc: u16,
    at: u64,
    to: u64,
    out: &mut Vec<u8>,
) -> Result<(), BuildError> {
    // The s_getpc_b64 follows the wait.
    let k = to.wrapping_sub(at + 8);
    let seq = [
        waitcnt(t, 63, 0)?,
        build(t, Opcode::S_GETPC_B64, &[sreg(d, 2)])?,
        build(
            t,
            Opcode::S_CSELECT_B32,
            &[sreg(scc, 1), Operand::Int(1), Operand::Int(0)],
        )?,
        build(
            t,
            Opcode::S_ADD_U32,
            &[sreg(d, 1), sreg(d, 1), Operand::Literal(k as u32)],
        )?,
        build(
            t,
            Opcode::S_ADDC_U32,
            &[
                sreg(d + 1, 1),
                sreg(d + 1, 1),
                Operand::Literal((k >> 32) as u32),
            ],
        )?,
        build(t, Opcode::S_CMP_LG_U32, &[sreg(scc, 1), Operand::Int(0)])?,
        build(t, Opcode::S_SWAPPC_B64, &[sreg(d, 2), sreg(d, 2)])?,
    ];
    let mut n = 0;
    for i in seq {
        n += i.len();
        i.encode_into(out);
    }
    debug_assert_eq!(n as u64, LONG_JUMP);
    Ok(())
}

/// `inst` (`s_add_u32`/`s_addc_u32` with a constant) with the constant
/// replaced by the literal `v`.
pub(crate) fn replace_literal(
    t: Target,
    inst: &Instruction,
    v: u32,
) -> Result<Instruction, BuildError> {
    let ops: Vec<Operand> = inst
        .operands()
        .iter()
        .enumerate()
        .map(|(k, o)| match o.value {
            Operand::Literal(_) | Operand::Int(_) if k > 0 => Operand::Literal(v),
            x => x,
        })
        .collect();
    build(t, inst.opcode(), &ops)
}

/// Lays the functions out one after another (256-byte aligned) and relaxes
/// every branch and call whose distance no longer fits into a long jump or
/// call, until nothing changes: the new layout, each function's offset and
/// the number of relaxed branches and calls.
pub(crate) fn relax(co: &CodeObject<'_>, code: &mut [FnCode]) -> (NewLayout, Vec<u64>, usize) {
    // Global layout with relaxation.
    let mut starts = vec![0u64; code.len()];
    let mut relaxed = 0;
    let lay = loop {
        let mut o = 0u64;
        for (k, fc) in code.iter().enumerate() {
            o = o.next_multiple_of(256);
            starts[k] = o;
            o += fc.size;
        }
        let lay = elfout::layout(co, o);
        let mut changed = false;
        for (fi, fc) in code.iter_mut().enumerate() {
            let mut any = false;
            for k in 0..fc.items.len() {
                if let Item::Call {
                    callee,
                    long: false,
                    ..
                } = fc.items[k]
                {
                    let from = (starts[fi] + fc.offs[k]) as i64 + 4;
                    let d = (starts[callee] as i64 - from) / 4;
                    if !(i64::from(i16::MIN)..=i64::from(i16::MAX)).contains(&d) {
                        if let Item::Call { long, .. } = &mut fc.items[k] {
                            *long = true;
                        }
                        any = true;
                        relaxed += 1;
                    }
                    continue;
                }
                if let Item::Branch { target, long, .. } = fc.items[k] {
                    if long {
                        continue;
                    }
                    let from = fc.offs[k] as i64 + 4;
                    let to = fc.offs[target] as i64;
                    let d = (to - from) / 4;
                    if !(i64::from(i16::MIN)..=i64::from(i16::MAX)).contains(&d) {
                        if let Item::Branch { long, .. } = &mut fc.items[k] {
                            *long = true;
                        }
                        any = true;
                        relaxed += 1;
                    }
                }
            }
            if any {
                fc.relayout();
                changed = true;
            }
        }
        if !changed {
            break lay;
        }
    };
    (lay, starts, relaxed)
}

/// The encoded code ([`emit`]).
pub(crate) struct Emitted {
    /// The new code section's bytes.
    pub(crate) code: Vec<u8>,
    /// Relocations against other code objects' symbols.
    pub(crate) relocs: Vec<elfout::Reloc>,
    /// Each function's new address.
    pub(crate) fn_new: Vec<u64>,
}

/// Encodes every function's items at its new address: branches and calls
/// re-targeted (or as long jumps and calls), `s_getpc_b64`-relative
/// literals re-based (symbol references become relocations), bare
/// `s_getpc_b64`s corrected. Returns the code, its relocations and each
/// function's new address.
pub(crate) fn emit(
    p: &Program,
    regs: Reserved,
    code: &[FnCode],
    starts: &[u64],
    lay: NewLayout,
) -> Result<Emitted, Error> {
    let t = p.target;
    let NewLayout {
        code_addr,
        data_addr,
    } = lay;
    let fn_new: Vec<u64> = starts.iter().map(|s| code_addr + s).collect();
    // Maps an original address to its new location.
    let map_old = |a: u64| -> u64 {
        if a == u64::MAX {
            return data_addr;
        }
        if let Some(fi) = p.function_at(a) {
            return fn_new[fi];
        }
        if let Some(fi) = p.function_containing(a) {
            if let Some(ii) = p.functions[fi].index_of(a) {
                let fc = &code[fi];
                return fn_new[fi] + fc.offs[fc.label[ii]];
            }
        }
        a
    };
    // Emit.
    let mut out: Vec<u8> = Vec::new();
    let mut relocs: Vec<elfout::Reloc> = Vec::new();
    for (fi, fc) in code.iter().enumerate() {
        let f = &p.functions[fi];
        let base = fn_new[fi];
        while (out.len() as u64) < starts[fi] {
            // s_nop 0 padding between functions, as LLVM pads.
            out.extend_from_slice(&0xbf80_0000u32.to_le_bytes());
        }
        for (k, it) in fc.items.iter().enumerate() {
            let at = base + fc.offs[k];
            let enc = |e| encode_err(&f.name, at, e);
            match it {
                Item::Fixed(i) => i.encode_into(&mut out),
                Item::Branch {
                    inst,
                    target,
                    long,
                    orig,
                    scratch,
                } => {
                    let to = base + fc.offs[*target];
                    if !long {
                        let b =
                            inst.with_branch_target(at, to)
                                .ok_or_else(|| Error::Unsupported {
                                    function: f.name.clone(),
                                    addr: *orig,
                                    why: "branch re-targeting failed".into(),
                                })?;
                        b.encode_into(&mut out);
                    } else {
                        let mut at2 = at;
                        if inst.is_cond_branch() {
                            // s_cbranch_X +1 (to the long jump); s_branch over it.
                            let c = inst.with_simm16(1).ok_or_else(|| Error::Unsupported {
                                function: f.name.clone(),
                                addr: at,
                                why: "cannot relax conditional branch".into(),
                            })?;
                            c.encode_into(&mut out);
                            build(
                                t,
                                Opcode::S_BRANCH,
                                &[Operand::Branch((LONG_JUMP / 4) as i16)],
                            )
                            .map_err(enc("long jump"))?
                            .encode_into(&mut out);
                            at2 += 8;
                        }
                        let (tmp, scc) = scratch.ok_or_else(|| Error::NoRegisters {
                            function: f.name.clone(),
                            why: format!("no dead SGPRs for a long jump at {orig:#x}"),
                        })?;
                        let mut r = regs;
                        r.tmp = tmp;
                        r.scc = scc;
                        long_jump(t, &r, at2, to, &mut out).map_err(enc("long jump"))?;
                    }
                }
                Item::PcAdd {
                    inst,
                    getpc,
                    target,
                    hi,
                } => {
                    let pc = base + fc.offs[*getpc] + 4;
                    let v = match target {
                        AddrRef::Old(a) => {
                            let kk = map_old(*a).wrapping_sub(pc);
                            if *hi {
                                (kk >> 32) as u32
                            } else {
                                kk as u32
                            }
                        }
                        AddrRef::Sym(name) => {
                            // The literal follows the 4-byte opcode word;
                            // S + A - P with A = P - pc is S - pc.
                            let p_lit = at + 4;
                            relocs.push(elfout::Reloc {
                                offset: p_lit,
                                kind: if *hi {
                                    elfout::R_AMDGPU_REL32_HI
                                } else {
                                    elfout::R_AMDGPU_REL32_LO
                                },
                                symbol: name.to_string(),
                                addend: p_lit.wrapping_sub(pc) as i64,
                            });
                            0
                        }
                    };
                    replace_literal(t, inst, v)
                        .map_err(enc("address computation"))?
                        .encode_into(&mut out);
                }
                Item::Call {
                    inst,
                    callee,
                    long,
                    orig,
                    scratch,
                } => {
                    let to = fn_new[*callee];
                    if !long {
                        inst.with_branch_target(at, to)
                            .ok_or_else(|| Error::Unsupported {
                                function: f.name.clone(),
                                addr: *orig,
                                why: "call re-targeting failed".into(),
                            })?
                            .encode_into(&mut out);
                    } else {
                        let scc = scratch.ok_or_else(|| Error::NoRegisters {
                            function: f.name.clone(),
                            why: format!("no dead SGPR to save SCC at the s_call_b64 to {orig:#x}"),
                        })?;
                        let Some(Operand::Reg(d)) = inst.operands().first().map(|o| o.value) else {
                            return Err(Error::Unsupported {
                                function: f.name.clone(),
                                addr: *orig,
                                why: "s_call_b64 without a register destination".into(),
                            });
                        };
                        long_call(t, d.first, scc, at, to, &mut out).map_err(enc("long call"))?;
                    }
                }
                Item::PcFix {
                    reg,
                    getpc,
                    old,
                    scratch,
                } => {
                    let pc = base + fc.offs[*getpc] + 4;
                    let delta = (old + 4).wrapping_sub(pc);
                    let mut r = regs;
                    r.scc = scratch.ok_or_else(|| Error::NoRegisters {
                        function: f.name.clone(),
                        why: format!("no dead SGPR to save SCC at the s_getpc_b64 at {old:#x}"),
                    })?;
                    let r = &r;
                    let mut v = Vec::new();
                    // The SCC copy may go to a dead SGPR a scalar load is
                    // still due to write.
                    v.push(waitcnt(t, 63, 0).map_err(enc("getpc fix"))?);
                    v.push(
                        build(
                            t,
                            Opcode::S_CSELECT_B32,
                            &[sreg(r.scc, 1), Operand::Int(1), Operand::Int(0)],
                        )
                        .map_err(enc("getpc fix"))?,
                    );
                    v.push(
                        build(
                            t,
                            Opcode::S_ADD_U32,
                            &[sreg(*reg, 1), sreg(*reg, 1), Operand::Literal(delta as u32)],
                        )
                        .map_err(enc("getpc fix"))?,
                    );
                    v.push(
                        build(
                            t,
                            Opcode::S_ADDC_U32,
                            &[
                                sreg(*reg + 1, 1),
                                sreg(*reg + 1, 1),
                                Operand::Literal((delta >> 32) as u32),
                            ],
                        )
                        .map_err(enc("getpc fix"))?,
                    );
                    v.push(
                        build(t, Opcode::S_CMP_LG_U32, &[sreg(r.scc, 1), Operand::Int(0)])
                            .map_err(enc("getpc fix"))?,
                    );
                    for i in v {
                        i.encode_into(&mut out);
                    }
                }
            }
        }
        debug_assert_eq!(out.len() as u64, starts[fi] + fc.size);
    }
    Ok(Emitted {
        code: out,
        relocs,
        fn_new,
    })
}

//! Lifting: a code object's kernels and device functions (from its symbols,
//! local ones included) as instructions, basic blocks, a CFG and a call
//! graph, with `s_getpc_b64`-relative address computations recovered.
//!
//! Code addresses are ELF virtual addresses. Bytes of an executable section
//! that belong to no function are kept as [`Gap`]s (data, padding).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use lathe_codeobj::{CodeObject, SymbolKind, SymbolSection};
use lathe_isa::{Instruction, Opcode, Operand, RegFile, RegRange, Target};

use crate::Error;

/// `SHF_EXECINSTR`.
const SHF_EXECINSTR: u64 = 4;

/// Kernel or device function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FunctionKind {
    /// A kernel (entered through its descriptor).
    Kernel,
    /// A device function (entered through calls).
    DeviceFunction,
}

/// One decoded instruction and where it is.
#[derive(Debug, Clone, Copy)]
pub struct Inst {
    /// ELF virtual address.
    pub addr: u64,
    /// The instruction.
    pub inst: Instruction,
}

/// A basic block: instructions `start..end` of its function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// First instruction index.
    pub start: usize,
    /// One past the last instruction index.
    pub end: usize,
    /// Successor blocks (taken target first, then fall-through).
    pub succs: Vec<usize>,
    /// Predecessor blocks.
    pub preds: Vec<usize>,
}

/// How a block's last instruction leaves it, as far as the CFG is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Exit {
    /// Falls through or branches inside the function.
    Local,
    /// `s_endpgm`.
    EndProgram,
    /// `s_setpc_b64` returning to the caller.
    Return,
    /// A jump whose target is not recovered (counted in
    /// [`Program::unresolved`]).
    Unresolved,
    /// A tail jump to another function.
    TailCall,
    /// `s_trap` and other instructions that end the wave or trap.
    Trap,
}

/// A call site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// Instruction index of the `s_swappc_b64`, `s_call_b64` or tail
    /// `s_setpc_b64`.
    pub site: usize,
    /// Target address, if recovered.
    pub target: Option<u64>,
    /// Index of the called function in [`Program::functions`].
    pub callee: Option<usize>,
}

/// An `s_getpc_b64` and the constant offset later added to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcRel {
    /// Instruction index of the `s_getpc_b64`.
    pub getpc: usize,
    /// The destination pair's first SGPR.
    pub sreg: u16,
    /// Instruction index of `s_add_u32 lo, lo, K` (K a literal).
    pub add: Option<usize>,
    /// Instruction index of `s_addc_u32 hi, hi, K`.
    pub addc: Option<usize>,
    /// The address computed: `getpc + 4 + (Khi:Klo)`, if both adds are found.
    pub target: Option<u64>,
}

/// A lifted kernel or device function.
#[derive(Debug, Clone)]
pub struct Function {
    /// Symbol name.
    pub name: String,
    /// Kernel or device function.
    pub kind: FunctionKind,
    /// Entry address.
    pub addr: u64,
    /// Size in bytes.
    pub size: u64,
    /// Instructions in address order.
    pub insts: Vec<Inst>,
    /// Basic blocks in address order (block 0 is the entry).
    pub blocks: Vec<Block>,
    /// How each block is left.
    pub exits: Vec<Exit>,
    /// Block of each instruction.
    pub block_of: Vec<usize>,
    /// Call sites.
    pub calls: Vec<Call>,
    /// `s_getpc_b64`-relative computations.
    pub pcrel: Vec<PcRel>,
}

impl Function {
    /// Index of the instruction at `addr`.
    pub fn index_of(&self, addr: u64) -> Option<usize> {
        self.insts.binary_search_by_key(&addr, |i| i.addr).ok()
    }

    /// Address one past the last byte.
    pub fn end(&self) -> u64 {
        self.addr + self.size
    }

    /// Instruction indices of a block.
    pub fn block_insts(&self, b: usize) -> std::ops::Range<usize> {
        self.blocks[b].start..self.blocks[b].end
    }
}

/// Bytes of an executable section outside every function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gap {
    /// Start address.
    pub addr: u64,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// `target` running the code object's wave size: GFX10+ kernels say theirs
/// in the descriptor (`ENABLE_WAVEFRONT_SIZE32`), and device functions run
/// in their callers' waves, so one size covers the object. Decoding and
/// every probe follow it (one-SGPR lane masks in wave32). A code object
/// whose kernels disagree is refused.
fn code_wave_target(
    co: &CodeObject<'_>,
    target: Target,
    syms: &lathe_codeobj::Symbols<'_>,
) -> Result<Target, Error> {
    let Some(tid) = co.target() else {
        return Ok(target);
    };
    let arch = lathe_codeobj::KdArch::for_processor(tid.processor);
    let mut size: Option<(u32, &str)> = None;
    for k in syms.kernels() {
        let Ok(d) = &k.descriptor else { continue };
        let w = d.wavefront_size(arch);
        match size {
            Some((s, first)) if s != w => {
                return Err(Error::Unsupported {
                    function: k.name.to_string(),
                    addr: k.entry.unwrap_or(0),
                    why: format!("wave{w} kernel in a code object whose {first} is wave{s}"),
                })
            }
            Some(_) => {}
            None => size = Some((w, k.name)),
        }
    }
    Ok(size
        .and_then(|(w, _)| target.with_wave_size(w))
        .unwrap_or(target))
}

/// A branch, call or address computation whose target is not recovered.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Unresolved {
    /// Function name.
    pub function: String,
    /// Instruction address.
    pub addr: u64,
    /// The instruction as printed.
    pub inst: String,
    /// Why.
    pub why: String,
}

/// A lifted code object.
#[derive(Debug, Clone)]
pub struct Program {
    /// ISA target.
    pub target: Target,
    /// Kernels and device functions by address.
    pub functions: Vec<Function>,
    /// Bytes between functions.
    pub gaps: Vec<Gap>,
    /// What could not be recovered.
    pub unresolved: Vec<Unresolved>,
    /// Callers of each function: (function, call index).
    pub callers: Vec<Vec<(usize, usize)>>,
}

impl Program {
    /// Lifts every kernel and device function of `co`.
    pub fn lift(co: &CodeObject<'_>) -> Result<Program, Error> {
        Program::lift_wave(co, None)
    }

    /// [`Program::lift`] in `wave` lanes per wave when given: for an
    /// object with no kernel descriptor to read it from (a HIP tool's
    /// device functions run in their callers' waves, D86).
    pub fn lift_wave(co: &CodeObject<'_>, wave: Option<u32>) -> Result<Program, Error> {
        let tid = co.target().ok_or(Error::NoTarget)?;
        let target = Target::from_name(tid.processor.name())
            .map_err(|e| Error::Target(tid.to_string(), e))?;
        let syms = co.symbols()?;
        let target = match wave.and_then(|w| target.with_wave_size(w)) {
            Some(t) => t,
            None => code_wave_target(co, target, &syms)?,
        };
        let exec_sections: Vec<_> = co
            .sections()
            .iter()
            .filter(|s| s.flags & SHF_EXECINSTR != 0 && s.sh_type != lathe_codeobj::elf::SHT_NOBITS)
            .collect();
        // Candidate entries: symbol → (address, size, kind).
        let mut entries: BTreeMap<u64, (String, u64, FunctionKind)> = BTreeMap::new();
        let kernel_names: BTreeSet<&str> = syms.kernels().iter().map(|k| k.name).collect();
        for k in syms.kernels() {
            let (addr, size) = match (&k.code, k.entry) {
                (Some(c), _) if c.defined => (c.value, c.size),
                (_, Some(e)) => (e, 0),
                _ => continue,
            };
            entries.insert(addr, (k.name.to_string(), size, FunctionKind::Kernel));
        }
        for s in syms.all() {
            if s.kind != SymbolKind::DeviceFunction || !s.defined {
                continue;
            }
            if kernel_names.contains(s.name) {
                continue;
            }
            let SymbolSection::Index(si) = s.section else {
                continue;
            };
            if !exec_sections.iter().any(|e| e.index == si) {
                continue;
            }
            entries
                .entry(s.value)
                .or_insert_with(|| (s.name.to_string(), s.size, FunctionKind::DeviceFunction));
        }
        let mut functions = Vec::new();
        let mut gaps = Vec::new();
        for sec in &exec_sections {
            let data = co.section_data(sec)?;
            let lo = sec.address;
            let Some(hi) = lo.checked_add(data.len() as u64) else {
                return Err(crate::Error::Unsupported {
                    function: sec.name.to_string(),
                    addr: lo,
                    why: format!(
                        "the section's {} bytes at {lo:#x} run past the end of the address space",
                        data.len()
                    ),
                });
            };
            let in_sec: Vec<(u64, &(String, u64, FunctionKind))> =
                entries.range(lo..hi).map(|(a, e)| (*a, e)).collect();
            let mut cursor = lo;
            for (i, (addr, (name, size, kind))) in in_sec.iter().enumerate() {
                let next = in_sec.get(i + 1).map_or(hi, |n| n.0);
                let end = if *size == 0 {
                    next
                } else {
                    addr.saturating_add(*size).min(next).min(hi)
                };
                if *addr > cursor {
                    gaps.push(Gap {
                        addr: cursor,
                        bytes: data[(cursor - lo) as usize..(addr - lo) as usize].to_vec(),
                    });
                }
                let bytes = &data[(addr - lo) as usize..(end - lo) as usize];
                functions.push(decode_function(target, name, *kind, *addr, bytes));
                cursor = end.max(cursor);
            }
            if cursor < hi {
                gaps.push(Gap {
                    addr: cursor,
                    bytes: data[(cursor - lo) as usize..].to_vec(),
                });
            }
        }
        let mut p = Program {
            target,
            functions,
            gaps,
            unresolved: Vec::new(),
            callers: Vec::new(),
        };
        p.build_cfgs();
        Ok(p)
    }

    /// Index of the function whose entry is `addr`.
    pub fn function_at(&self, addr: u64) -> Option<usize> {
        self.functions.binary_search_by_key(&addr, |f| f.addr).ok()
    }

    /// Index of the function containing `addr`.
    pub fn function_containing(&self, addr: u64) -> Option<usize> {
        let i = self.functions.partition_point(|f| f.addr <= addr);
        (i > 0 && addr < self.functions[i - 1].end()).then(|| i - 1)
    }

    /// The function called `name`.
    pub fn function(&self, name: &str) -> Option<usize> {
        self.functions.iter().position(|f| f.name == name)
    }

    fn build_cfgs(&mut self) {
        let entries: HashMap<u64, usize> = self
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.addr, i))
            .collect();
        let mut unresolved = Vec::new();
        for f in &mut self.functions {
            build_cfg(f, &entries, &mut unresolved);
        }
        let mut callers = vec![Vec::new(); self.functions.len()];
        for (fi, f) in self.functions.iter().enumerate() {
            for (ci, c) in f.calls.iter().enumerate() {
                if let Some(t) = c.callee {
                    callers[t].push((fi, ci));
                }
            }
        }
        self.callers = callers;
        self.unresolved = unresolved;
    }
}

fn decode_function(
    target: Target,
    name: &str,
    kind: FunctionKind,
    addr: u64,
    bytes: &[u8],
) -> Function {
    let insts: Vec<Inst> = lathe_isa::Decoder::new(target, bytes)
        .map(|(off, inst)| Inst {
            addr: addr + off as u64,
            inst,
        })
        .collect();
    Function {
        name: name.to_string(),
        kind,
        addr,
        size: bytes.len() as u64,
        insts,
        blocks: Vec::new(),
        exits: Vec::new(),
        block_of: Vec::new(),
        calls: Vec::new(),
        pcrel: Vec::new(),
    }
}

fn sreg_of(op: &Operand) -> Option<RegRange> {
    match op {
        Operand::Reg(r) if r.file == RegFile::Scalar => Some(*r),
        _ => None,
    }
}

/// The literal K of `s_add_u32 d, d, K` / `s_addc_u32 d, d, K` (either
/// source order) when `d` is `reg`.
fn add_literal(inst: &Instruction, op: Opcode, reg: u16) -> Option<u32> {
    if crate::asm::canon(inst) != op {
        return None;
    }
    let ops = inst.operands();
    let d = sreg_of(&ops.first()?.value)?;
    if d.first != reg {
        return None;
    }
    let (a, b) = (ops.get(1)?.value, ops.get(2)?.value);
    let is_d = |o: &Operand| sreg_of(o).is_some_and(|r| r.first == reg);
    let k = |o: &Operand| match o {
        Operand::Literal(v) => Some(*v),
        Operand::Int(i) => Some(*i as i32 as u32),
        _ => None,
    };
    if is_d(&a) {
        k(&b)
    } else if is_d(&b) {
        k(&a)
    } else {
        None
    }
}

fn writes_sreg(inst: &Instruction, reg: u16) -> bool {
    let mut w = false;
    inst.for_each_reg(|a| {
        if a.write && a.reg.file == RegFile::Scalar && a.reg.first <= reg && reg <= a.reg.last() {
            w = true;
        }
    });
    w
}

/// Finds the `s_getpc_b64` computations of a function.
fn find_pcrel(f: &Function) -> Vec<PcRel> {
    let mut out = Vec::new();
    for (i, gi) in f.insts.iter().enumerate() {
        if crate::asm::canon(&gi.inst) != Opcode::S_GETPC_B64 {
            continue;
        }
        let Some(d) = gi.inst.operands().first().and_then(|o| sreg_of(&o.value)) else {
            continue;
        };
        let (lo, hi) = (d.first, d.first + 1);
        let mut pr = PcRel {
            getpc: i,
            sreg: lo,
            add: None,
            addc: None,
            target: None,
        };
        let (mut klo, mut khi) = (0u32, 0u32);
        for (j, x) in f.insts.iter().enumerate().skip(i + 1).take(16) {
            if pr.add.is_none() {
                if let Some(k) = add_literal(&x.inst, Opcode::S_ADD_U32, lo) {
                    pr.add = Some(j);
                    klo = k;
                    continue;
                }
            } else if pr.addc.is_none() {
                if let Some(k) = add_literal(&x.inst, Opcode::S_ADDC_U32, hi) {
                    pr.addc = Some(j);
                    khi = k;
                    break;
                }
            }
            if x.inst.is_terminator() || writes_sreg(&x.inst, lo) || writes_sreg(&x.inst, hi) {
                break;
            }
        }
        if pr.add.is_some() && pr.addc.is_some() {
            let k = u64::from(khi) << 32 | u64::from(klo);
            pr.target = Some((gi.addr + 4).wrapping_add(k));
        } else {
            pr.add = None;
            pr.addc = None;
        }
        out.push(pr);
    }
    out
}

fn build_cfg(f: &mut Function, entries: &HashMap<u64, usize>, unresolved: &mut Vec<Unresolved>) {
    let n = f.insts.len();
    f.pcrel = find_pcrel(f);
    let mut unres = |f: &Function, i: usize, why: &str| {
        unresolved.push(Unresolved {
            function: f.name.clone(),
            addr: f.insts[i].addr,
            inst: f.insts[i].inst.to_string(),
            why: why.to_string(),
        })
    };
    // Value of an SGPR pair at instruction i from a pc-relative computation
    // that completed before it.
    let pair_target = |f: &Function, i: usize, reg: u16| -> Option<u64> {
        f.pcrel
            .iter()
            .filter(|p| p.sreg == reg && p.addc.is_some_and(|a| a < i))
            .filter(|p| {
                let from = p.addc.unwrap_or(p.getpc) + 1;
                !f.insts[from..i]
                    .iter()
                    .any(|x| writes_sreg(&x.inst, reg) || writes_sreg(&x.inst, reg + 1))
            })
            .max_by_key(|p| p.getpc)
            .and_then(|p| p.target)
    };
    for p in &f.pcrel {
        if p.target.is_none() {
            unres(
                f,
                p.getpc,
                "s_getpc_b64 without a recognised constant offset",
            );
        }
    }
    let mut leaders = BTreeSet::new();
    leaders.insert(0usize);
    let mut calls = Vec::new();
    for (i, x) in f.insts.iter().enumerate() {
        let inst = &x.inst;
        if inst.is_invalid() {
            unres(f, i, "invalid instruction");
        }
        if let Some(t) = pc_relative_target(inst, x.addr) {
            if crate::asm::canon(inst) == Opcode::S_CALL_B64 {
                calls.push(Call {
                    site: i,
                    target: Some(t),
                    callee: entries.get(&t).copied(),
                });
            } else if let Some(ti) = f.index_of(t) {
                leaders.insert(ti);
            } else {
                unres(f, i, "branch target outside the function");
            }
        }
        match crate::asm::canon(inst) {
            Opcode::S_SWAPPC_B64 => {
                let src = inst.operands().get(1).and_then(|o| sreg_of(&o.value));
                let t = src.and_then(|r| pair_target(f, i, r.first));
                if t.is_none() {
                    unres(f, i, "call target not recovered");
                }
                calls.push(Call {
                    site: i,
                    target: t,
                    callee: t.and_then(|t| entries.get(&t).copied()),
                });
            }
            Opcode::S_SETPC_B64 => {
                let src = inst.operands().first().and_then(|o| sreg_of(&o.value));
                if let Some(t) = src.and_then(|r| pair_target(f, i, r.first)) {
                    if let Some(ti) = f.index_of(t) {
                        leaders.insert(ti);
                    } else {
                        calls.push(Call {
                            site: i,
                            target: Some(t),
                            callee: entries.get(&t).copied(),
                        });
                    }
                }
            }
            _ => {}
        }
        if inst.is_terminator() && i + 1 < n {
            leaders.insert(i + 1);
        }
    }
    let starts: Vec<usize> = leaders.into_iter().filter(|&l| l < n).collect();
    let mut block_of = vec![0usize; n];
    let mut blocks: Vec<Block> = Vec::with_capacity(starts.len());
    for (bi, &s) in starts.iter().enumerate() {
        let e = starts.get(bi + 1).copied().unwrap_or(n);
        for b in &mut block_of[s..e] {
            *b = bi;
        }
        blocks.push(Block {
            start: s,
            end: e,
            succs: Vec::new(),
            preds: Vec::new(),
        });
    }
    let mut exits = vec![Exit::Local; blocks.len()];
    for bi in 0..blocks.len() {
        let last = blocks[bi].end - 1;
        let x = f.insts[last];
        let inst = &x.inst;
        let next = (bi + 1 < blocks.len()).then_some(bi + 1);
        let mut succs = Vec::new();
        let op = crate::asm::canon(inst);
        if let Some(t) = pc_relative_target(inst, x.addr).filter(|_| op != Opcode::S_CALL_B64) {
            if let Some(ti) = f.index_of(t) {
                succs.push(block_of[ti]);
            } else {
                exits[bi] = Exit::Unresolved;
            }
            if inst.is_cond_branch() {
                succs.extend(next);
            }
        } else if op == Opcode::S_SETPC_B64 {
            let src = inst.operands().first().and_then(|o| sreg_of(&o.value));
            match src.and_then(|r| pair_target(f, last, r.first)) {
                Some(t) => match f.index_of(t) {
                    Some(ti) => succs.push(block_of[ti]),
                    None => exits[bi] = Exit::TailCall,
                },
                None if f.kind == FunctionKind::DeviceFunction => exits[bi] = Exit::Return,
                None => {
                    exits[bi] = Exit::Unresolved;
                    unres(f, last, "indirect jump target not recovered");
                }
            }
        } else if inst.flags() & lathe_isa::opcode::flags::ENDPGM != 0 {
            exits[bi] = Exit::EndProgram;
        } else if op == Opcode::S_TRAP || op == Opcode::S_RFE_B64 {
            exits[bi] = Exit::Trap;
        } else {
            // Fall-through, calls included (the callee returns here).
            match next {
                Some(nb) => succs.push(nb),
                None => exits[bi] = Exit::Unresolved,
            }
        }
        succs.dedup();
        blocks[bi].succs = succs;
    }
    for bi in 0..blocks.len() {
        for s in blocks[bi].succs.clone() {
            blocks[s].preds.push(bi);
        }
    }
    f.blocks = blocks;
    f.exits = exits;
    f.block_of = block_of;
    f.calls = calls;
}

/// [`Instruction::branch_target`](lathe_isa::Instruction::branch_target),
/// asked only of opcodes with a branch-offset operand (a table look-up):
/// decoding every operand of every instruction to find none was most of
/// what lifting cost.
fn pc_relative_target(inst: &lathe_isa::Instruction, addr: u64) -> Option<u64> {
    let has = !inst.is_invalid()
        && inst
            .info()
            .operands()
            .iter()
            .any(|s| s.kind == lathe_isa::Kind::Branch);
    if has {
        inst.branch_target(addr)
    } else {
        None
    }
}

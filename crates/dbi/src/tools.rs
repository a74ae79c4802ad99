//! The built-in tools: their requests, instrumenting with them, and
//! decoding their data (`lathe-dbi-run` runs them on the emulator).
//!
//! | tool | sites | result |
//! | --- | --- | --- |
//! | `instr-count` | block entry and after every EXEC write inside a block (regions of constant EXEC), wave + lane counters | wave- and thread-level counts of the original program's instructions |
//! | `block-count` | block entry, wave counter | executions per block with its address range |
//! | `opcode-hist` | block entry, wave counter | executions per opcode (block counts × the block's opcodes) |
//! | `kernarg` | kernel entry, copy of the kernarg segment | arguments and hidden arguments as the kernel sees them |
//! | `mem-trace` | kernel entry (the wave's work-group and index, saved in scratch) and before every GLOBAL/FLAT/DS/SCRATCH/MUBUF instruction, ring-buffer record | every access per active lane with its work-group and wave (SCRATCH: the lane's private offset) (CSV, Perfetto JSON with a track per wave), records dropped when the ring is full |
//!
//! Counts are of the original program's instructions (the probes' own
//! instructions are not counted): a region's counter times the number of
//! original instructions in it.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};

use lathe_codeobj::CodeObject;
use lathe_isa::Opcode;
use regex::Regex;

use crate::lift::Program;
use crate::live::Liveness;
use crate::report::{self, Report};
use crate::rewrite::{
    writes_exec, CounterProbe, GroupSizeAt, InstClass, Instrumented, KernargProbe, MemTraceEntry,
    MemTraceProbe, Request, Selector, WaveIdSource, Where,
};
use crate::Error;

/// A built-in tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Tool {
    /// Wave- and thread-level instruction counts.
    InstrCount,
    /// Executions per basic block.
    BlockCount,
    /// Executions per opcode.
    OpcodeHist,
    /// The kernel arguments as the kernel sees them.
    Kernarg,
    /// Every GLOBAL/FLAT/LDS/SCRATCH access per active lane, through a ring
    /// buffer.
    MemTrace,
}

/// Records of the `mem-trace` ring (wave-executions of memory
/// instructions) unless a run asks for another capacity.
pub const TRACE_CAPACITY: u32 = 1 << 14;

impl Tool {
    /// Every tool.
    pub const ALL: [Tool; 5] = [
        Tool::InstrCount,
        Tool::BlockCount,
        Tool::OpcodeHist,
        Tool::Kernarg,
        Tool::MemTrace,
    ];

    /// The tool's name.
    pub fn name(self) -> &'static str {
        match self {
            Tool::InstrCount => "instr-count",
            Tool::BlockCount => "block-count",
            Tool::OpcodeHist => "opcode-hist",
            Tool::Kernarg => "kernarg",
            Tool::MemTrace => "mem-trace",
        }
    }

    /// Parses a tool name.
    pub fn parse(s: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name() == s)
    }

    /// Every tool's name, comma-separated (for messages).
    pub fn names() -> String {
        Tool::ALL.map(Tool::name).join(", ")
    }

    /// Parses a tool name, or says which names there are.
    pub fn named(s: &str) -> Result<Tool, String> {
        Tool::parse(s).ok_or_else(|| format!("unknown tool '{s}' (tools: {})", Tool::names()))
    }
}

/// Instrumentation requests for `tool` on kernels matching `kernel`.
pub fn requests(
    tool: Tool,
    kernel: Option<&str>,
    kernarg_bytes: u32,
) -> Result<Vec<Request>, Error> {
    requests_with(tool, kernel, kernarg_bytes, TRACE_CAPACITY)
}

/// [`requests`] with the `mem-trace` ring capacity.
pub fn requests_with(
    tool: Tool,
    kernel: Option<&str>,
    kernarg_bytes: u32,
    trace_capacity: u32,
) -> Result<Vec<Request>, Error> {
    let kre = kernel
        .map(|k| {
            Regex::new(k).map_err(|e| Error::Pattern {
                pattern: k.to_string(),
                why: e.to_string(),
            })
        })
        .transpose()?;
    let sel = Selector {
        kernel: kre,
        ..Default::default()
    };
    Ok(match tool {
        Tool::InstrCount => vec![
            Request {
                select: sel.clone(),
                at: Where::BlockEntry,
                probe: Arc::new(CounterProbe { lanes: true }),
            },
            Request {
                select: Selector {
                    class: Some(InstClass::ExecWrite),
                    ..sel
                },
                at: Where::After,
                probe: Arc::new(CounterProbe { lanes: true }),
            },
        ],
        Tool::BlockCount | Tool::OpcodeHist => vec![Request {
            select: sel,
            at: Where::BlockEntry,
            probe: Arc::new(CounterProbe { lanes: false }),
        }],
        Tool::Kernarg => vec![Request {
            select: sel,
            at: Where::KernelEntry,
            probe: Arc::new(KernargProbe {
                bytes: kernarg_bytes,
            }),
        }],
        // The entry request first: the trace probe finds the saved wave
        // identity right before its own scratch area. Its kernels are
        // filled in by [`instrument_tool`] ([`wave_id_sources`]).
        Tool::MemTrace => vec![
            Request {
                select: sel.clone(),
                at: Where::KernelEntry,
                probe: Arc::new(MemTraceEntry::default()),
            },
            Request {
                select: Selector {
                    class: Some(InstClass::Memory),
                    opcode: Regex::new("^(global_|flat_|ds_|scratch_|buffer_(load|store)_)").ok(),
                    ..sel
                },
                at: Where::Before,
                probe: Arc::new(MemTraceProbe {
                    capacity: trace_capacity,
                }),
            },
        ],
    })
}

/// Where each kernel of `co` (by function index in `p`) finds its wave
/// identity at entry ([`MemTraceEntry`]): the work-group id SGPRs and
/// work-item id layout its descriptor enables, and where its work-group
/// extents are read: the dispatch packet when the kernel has the dispatch
/// pointer, else `hidden_group_size_x`/`_y` (and `hidden_block_count_*`,
/// `hidden_remainder_*` for partial groups) in the kernarg segment.
pub fn wave_id_sources(co: &CodeObject<'_>, p: &Program) -> BTreeMap<usize, WaveIdSource> {
    use lathe_codeobj::kd::SgprRole;
    let mut out = BTreeMap::new();
    let (Ok(syms), Some(tid)) = (co.symbols(), co.target()) else {
        return out;
    };
    let arch = lathe_codeobj::KdArch::for_processor(tid.processor);
    for k in syms.kernels() {
        let (Some(fi), Ok(d)) = (p.function(k.name), &k.descriptor) else {
            continue;
        };
        let sgprs = d.initial_sgprs(arch);
        let at = |role| {
            sgprs
                .iter()
                .find(|s| s.role == role)
                .map(|s| s.first as u16)
        };
        let mut src = WaveIdSource {
            workgroup_sgprs: [
                at(SgprRole::WorkgroupIdX),
                at(SgprRole::WorkgroupIdY),
                at(SgprRole::WorkgroupIdZ),
            ],
            packed_tid: arch.packs_workitem_ids(),
            tid_dims: (d.rsrc2(arch).enable_vgpr_workitem_id + 1).min(3) as u8,
            group_size: at(SgprRole::DispatchPtr).map(GroupSizeAt::Packet),
        };
        // The packet when the kernel has it (its grid size gives a
        // partial group's extent whoever dispatched it), else the v5
        // hidden arguments.
        if let (None, Some(md)) = (src.group_size, &k.metadata) {
            use lathe_codeobj::metadata::ValueKind as V;
            let off = |v: V| md.args.iter().find(|a| a.value_kind == v).map(|a| a.offset);
            if let (Some(gx), Some(gy)) = (off(V::HiddenGroupSizeX), off(V::HiddenGroupSizeY)) {
                if gx % 2 == 0 && gy == gx + 2 {
                    let partial = match (
                        off(V::HiddenBlockCountX),
                        off(V::HiddenBlockCountY),
                        off(V::HiddenRemainderX),
                        off(V::HiddenRemainderY),
                    ) {
                        (Some(cx), Some(cy), Some(rx), Some(ry))
                            if cx % 4 == 0 && cy == cx + 4 && rx % 2 == 0 && ry == rx + 2 =>
                        {
                            Some((cx as u32, rx as u32))
                        }
                        _ => None,
                    };
                    src.group_size = Some(GroupSizeAt::Kernarg {
                        size: gx as u32,
                        partial,
                    });
                }
            }
        }
        out.insert(fi, src);
    }
    out
}

/// One lane's access with its wave: (original pc, lane, address,
/// work-group id, wave index in the work-group).
pub type WaveAccess = (u64, u8, u64, [u32; 3], u32);

/// An instrumented code object and what its probe data means.
#[derive(Debug, Clone)]
pub struct ToolBuild {
    /// The tool.
    pub tool: Tool,
    /// The rewriter's result (new code object, site map).
    pub out: Instrumented,
    /// The lifted original.
    pub program: Program,
    /// Kernel argument metadata, for `kernarg`: (name, offset, size, kind).
    pub args: BTreeMap<String, Vec<(String, u32, u32, String)>>,
    /// `mem-trace` ring capacity (records).
    pub trace_capacity: u32,
    /// `block-count`/`opcode-hist`: per function index, the blocks that
    /// got no counter because they run exactly once per entry of the
    /// function ([`once_per_entry`]); their count is the entry block's.
    pub derived: BTreeMap<usize, Vec<usize>>,
}

impl std::ops::Deref for ToolBuild {
    type Target = Instrumented;
    fn deref(&self) -> &Instrumented {
        &self.out
    }
}

/// Instruments `bytes` with `tool` for kernels matching `kernel`.
pub fn instrument(bytes: &[u8], tool: Tool, kernel: Option<&str>) -> Result<ToolBuild, Error> {
    instrument_with(bytes, tool, kernel, &crate::rewrite::Options::default())
}

/// [`instrument`] with rewriter options.
pub fn instrument_with(
    bytes: &[u8],
    tool: Tool,
    kernel: Option<&str>,
    ropts: &crate::rewrite::Options,
) -> Result<ToolBuild, Error> {
    instrument_tool(bytes, tool, kernel, ropts, TRACE_CAPACITY)
}

/// [`instrument_with`] with the `mem-trace` ring capacity.
pub fn instrument_tool(
    bytes: &[u8],
    tool: Tool,
    kernel: Option<&str>,
    ropts: &crate::rewrite::Options,
    trace_capacity: u32,
) -> Result<ToolBuild, Error> {
    let co = CodeObject::parse(bytes)?;
    let program = Program::lift(&co)?;
    let live = Liveness::compute(&program);
    let mut ka = 0u32;
    let mut args = BTreeMap::new();
    if let Some(md) = co.metadata()? {
        for k in &md.kernels {
            ka = ka.max(k.kernarg_segment_size.min(4096) as u32);
            let name = k.symbol.strip_suffix(".kd").unwrap_or(k.name).to_string();
            args.insert(
                name,
                k.args
                    .iter()
                    .map(|a| {
                        (
                            a.name.unwrap_or("").to_string(),
                            a.offset.min(4096) as u32,
                            a.size.min(4096) as u32,
                            a.value_kind.as_str().to_string(),
                        )
                    })
                    .collect(),
            );
        }
    }
    let mut reqs = requests_with(tool, kernel, ka, trace_capacity)?;
    if tool == Tool::MemTrace {
        let kernels = Arc::new(wave_id_sources(&co, &program));
        reqs[0].probe = Arc::new(MemTraceEntry { kernels });
    }
    // Block counters: none on blocks whose count is their function's
    // entry count.
    let mut derived = BTreeMap::new();
    if matches!(tool, Tool::BlockCount | Tool::OpcodeHist) {
        let mut skip = std::collections::BTreeSet::new();
        for (fi, f) in program.functions.iter().enumerate() {
            let d = once_per_entry(f);
            for &b in &d {
                skip.insert(f.insts[f.blocks[b].start].addr);
            }
            if !d.is_empty() {
                derived.insert(fi, d);
            }
        }
        for r in &mut reqs {
            r.select.skip = Some(Arc::new(skip.clone()));
        }
    }
    let out = crate::rewrite::instrument_lifted_with(&co, &program, &live, &reqs, ropts)?;
    Ok(ToolBuild {
        tool,
        out,
        program,
        args,
        trace_capacity,
        derived,
    })
}

/// Decodes the probe data of one dispatch of `kernel`.
pub fn decode(b: &ToolBuild, kernel: &str, data: &[u8]) -> Result<Report, Error> {
    let u64_at = |o: u32| -> u64 {
        data.get(o as usize..o as usize + 8)
            .map_or(0, |s| u64::from_le_bytes(s.try_into().unwrap_or([0; 8])))
    };
    let p = &b.program;
    let kfi = p
        .function(kernel)
        .ok_or_else(|| Error::NoFunction(kernel.to_string()))?;
    let fns = crate::cfg::reachable(p, kfi);
    let sites: Vec<_> = b
        .sites
        .iter()
        .filter(|s| fns.contains(&s.function_index))
        .collect();
    Ok(match b.tool {
        Tool::MemTrace => {
            let t = decode_trace(b, data);
            let mut per_kind: BTreeMap<&str, u64> = BTreeMap::new();
            for e in &t.events {
                *per_kind.entry(e.kind).or_default() += 1;
            }
            Report::MemTrace(report::MemTrace {
                kernel: kernel.to_string(),
                records: t.records,
                reserved: t.reserved,
                dropped: t.dropped,
                capacity: b.trace_capacity,
                accesses: t.events.len(),
                per_kind,
            })
        }
        Tool::InstrCount => {
            // Region lengths: from each site's start to the next site of
            // the same block (or the block's end).
            let (mut waves, mut threads) = (0u64, 0u64);
            for s in &sites {
                let f = &p.functions[s.function_index];
                let blk = &f.blocks[f.block_of[s.inst_index]];
                let start = match s.at {
                    Where::After => s.inst_index + 1,
                    _ => s.inst_index,
                };
                let mut end = blk.end;
                for i in start..blk.end {
                    if writes_exec(&f.insts[i].inst) && i + 1 < blk.end {
                        end = i + 1;
                        break;
                    }
                }
                let len = (end - start) as u64;
                waves += u64_at(s.slot) * len;
                threads += u64_at(s.slot + 8) * len;
            }
            Report::InstrCount(report::InstrCount {
                kernel: kernel.to_string(),
                wave_instructions: waves,
                thread_instructions: threads,
            })
        }
        Tool::BlockCount => {
            let blocks = block_counts(b, &sites, &u64_at)
                .into_iter()
                .map(|(fi, bi, count)| {
                    let f = &p.functions[fi];
                    let blk = &f.blocks[bi];
                    let last = f.insts[blk.end - 1];
                    report::BlockExecutions {
                        function: f.name.clone(),
                        block: bi,
                        start: f.insts[blk.start].addr,
                        end: last.addr + last.inst.len() as u64,
                        count,
                    }
                })
                .collect();
            Report::BlockCount(report::BlockCount {
                kernel: kernel.to_string(),
                blocks,
            })
        }
        Tool::OpcodeHist => {
            let mut h: BTreeMap<Opcode, u64> = BTreeMap::new();
            for (fi, bi, c) in block_counts(b, &sites, &u64_at) {
                let f = &p.functions[fi];
                let blk = &f.blocks[bi];
                if c == 0 {
                    continue;
                }
                for x in &f.insts[blk.start..blk.end] {
                    *h.entry(x.inst.opcode()).or_default() += c;
                }
            }
            let mut v: Vec<(Opcode, u64)> = h.into_iter().collect();
            v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let opcodes = v
                .iter()
                .map(|&(o, count)| report::OpcodeExecutions {
                    opcode: o.name(),
                    count,
                })
                .collect();
            Report::OpcodeHist(report::OpcodeHist {
                kernel: kernel.to_string(),
                opcodes,
            })
        }
        Tool::Kernarg => {
            let s = sites
                .iter()
                .find(|s| s.function_index == kfi)
                .ok_or_else(|| Error::ProbeData(format!("no kernarg site in {kernel}")))?;
            let args = b.args.get(kernel).cloned().unwrap_or_default();
            let mut out = Vec::new();
            let mut named: BTreeMap<String, u64> = BTreeMap::new();
            for (name, off, size, kind) in &args {
                let o = (s.slot + off) as usize;
                let bytes = data.get(o..o + *size as usize).unwrap_or(&[]);
                let mut v = 0u64;
                for (i, x) in bytes.iter().take(8).enumerate() {
                    v |= u64::from(*x) << (8 * i);
                }
                named.insert(kind.clone(), v);
                out.push(report::KernargValue {
                    name: name.clone(),
                    kind: kind.clone(),
                    offset: *off,
                    size: *size,
                    value: v,
                    bytes: bytes.iter().map(|b| format!("{b:02x}")).collect(),
                });
            }
            let g = |k: &str| named.get(k).copied();
            let dim = |a: &str, b: &str, c: &str| Some([g(a)?, g(b)?, g(c)?]);
            // HIP's gridDim counts a partial work-group too: the runtime's
            // `hidden_block_count` (whole groups) plus one where the
            // `hidden_remainder` is not 0.
            let grid_dim = dim(
                "hidden_block_count_x",
                "hidden_block_count_y",
                "hidden_block_count_z",
            )
            .map(|mut n| {
                for (d, r) in [
                    "hidden_remainder_x",
                    "hidden_remainder_y",
                    "hidden_remainder_z",
                ]
                .into_iter()
                .enumerate()
                {
                    n[d] += u64::from(g(r).is_some_and(|r| r != 0));
                }
                n
            });
            Report::Kernarg(report::Kernarg {
                kernel: kernel.to_string(),
                args: out,
                grid_dim,
                block_dim: dim(
                    "hidden_group_size_x",
                    "hidden_group_size_y",
                    "hidden_group_size_z",
                ),
            })
        }
    })
}

/// (function index, block, executions) of every block with a counter or a
/// derived count, in function and block order.
fn block_counts(
    b: &ToolBuild,
    sites: &[&crate::rewrite::Site],
    u64_at: &dyn Fn(u32) -> u64,
) -> Vec<(usize, usize, u64)> {
    let p = &b.program;
    let mut counted: BTreeMap<(usize, usize), u64> = BTreeMap::new();
    for s in sites {
        let bi = p.functions[s.function_index].block_of[s.inst_index];
        counted.insert((s.function_index, bi), u64_at(s.slot));
    }
    let mut fns: Vec<usize> = counted.keys().map(|k| k.0).collect();
    fns.dedup();
    for fi in fns {
        let entry = counted.get(&(fi, 0)).copied();
        for &bi in b.derived.get(&fi).map_or(&[][..], |v| v.as_slice()) {
            if let Some(c) = entry {
                counted.insert((fi, bi), c);
            }
        }
    }
    counted.into_iter().map(|((f, bl), c)| (f, bl, c)).collect()
}

/// The blocks of `f` (other than its entry block) that run exactly once
/// each time `f` is entered: they post-dominate the entry block (every
/// path from entry to an exit passes through them) and lie on no cycle,
/// and the entry block lies on no cycle either. Their execution count is
/// the entry block's, so block counters can skip them.
pub fn once_per_entry(f: &crate::Function) -> Vec<usize> {
    use crate::lift::Exit;
    let n = f.blocks.len();
    if n < 2 {
        return Vec::new();
    }
    let exit = n;
    let is_exit = |b: usize| f.exits[b] != Exit::Local || f.blocks[b].succs.is_empty();
    // Post-dominators (Cooper, Harvey, Kennedy) on the reversed CFG rooted
    // at a virtual exit node; reverse-graph successors of the exit are the
    // exit blocks, of a block its CFG predecessors.
    let rsuccs = |v: usize| -> Vec<usize> {
        if v == exit {
            (0..n).filter(|&b| is_exit(b)).collect()
        } else {
            f.blocks[v].preds.clone()
        }
    };
    // Postorder of the reversed graph from the exit.
    let mut order = Vec::with_capacity(n + 1);
    let mut seen = vec![false; n + 1];
    let mut stack = vec![(exit, rsuccs(exit), 0usize)];
    seen[exit] = true;
    while let Some((v, succ, k)) = stack.last_mut() {
        if let Some(&w) = succ.get(*k) {
            *k += 1;
            if !seen[w] {
                seen[w] = true;
                let s = rsuccs(w);
                stack.push((w, s, 0));
            }
        } else {
            order.push(*v);
            stack.pop();
        }
    }
    let mut po = vec![usize::MAX; n + 1];
    for (i, &v) in order.iter().enumerate() {
        po[v] = i;
    }
    if po[0] == usize::MAX {
        return Vec::new();
    }
    // Reverse-graph predecessors of a block: its CFG successors, plus the
    // exit for exit blocks.
    let rpreds = |v: usize| -> Vec<usize> {
        let mut p = f.blocks[v].succs.clone();
        if is_exit(v) {
            p.push(exit);
        }
        p
    };
    let mut ipdom = vec![usize::MAX; n + 1];
    ipdom[exit] = exit;
    let mut changed = true;
    while changed {
        changed = false;
        for &v in order.iter().rev() {
            if v == exit {
                continue;
            }
            let mut new = usize::MAX;
            for p in rpreds(v) {
                if ipdom[p] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX {
                    p
                } else {
                    let (mut a, mut b) = (p, new);
                    while a != b {
                        while po[a] < po[b] {
                            a = ipdom[a];
                        }
                        while po[b] < po[a] {
                            b = ipdom[b];
                        }
                    }
                    a
                };
            }
            if new != usize::MAX && ipdom[v] != new {
                ipdom[v] = new;
                changed = true;
            }
        }
    }
    // On a cycle: reachable from one of its successors.
    let on_cycle = |b: usize| -> bool {
        let mut seen = vec![false; n];
        let mut st: Vec<usize> = f.blocks[b].succs.clone();
        while let Some(v) = st.pop() {
            if v == b {
                return true;
            }
            if !std::mem::replace(&mut seen[v], true) {
                st.extend(f.blocks[v].succs.iter().copied());
            }
        }
        false
    };
    if on_cycle(0) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut v = ipdom[0];
    while v != exit && v != usize::MAX {
        if !on_cycle(v) {
            out.push(v);
        }
        v = ipdom[v];
    }
    out.sort_unstable();
    out
}

/// The full name of the kernel `kernel` (its name, or the base name of a
/// mangled one) if the code object `o` defines it.
pub fn kernel_named(o: &[u8], kernel: &str) -> Option<String> {
    let c = CodeObject::parse(o).ok()?;
    let s = c.symbols().ok()?;
    s.kernels()
        .iter()
        .find(|k| k.name == kernel || lathe_loader::mangled_base_name(k.name) == Some(kernel))
        .map(|k| k.name.to_string())
}

/// Instrumentation requests derived from arbitrary bytes (the fuzz target
/// and the random-site test): 1–4 requests, each at any [`Where`], with an
/// optional instruction-class or opcode selector and a counter probe (with
/// or without lane counts).
pub fn requests_from_bytes(data: &[u8]) -> Vec<Request> {
    const WHERE: [Where; 8] = [
        Where::Before,
        Where::After,
        Where::BlockEntry,
        Where::BlockExit,
        Where::KernelEntry,
        Where::BeforeEndpgm,
        Where::FunctionEntry,
        Where::FunctionReturn,
    ];
    const CLASSES: [Option<InstClass>; 9] = [
        None,
        Some(InstClass::Salu),
        Some(InstClass::Valu),
        Some(InstClass::Smem),
        Some(InstClass::Vmem),
        Some(InstClass::Lds),
        Some(InstClass::Memory),
        Some(InstClass::Branch),
        Some(InstClass::ExecWrite),
    ];
    const OPCODES: [&str; 4] = ["^s_waitcnt", "^v_cmp", "^global_", "^s_cbranch"];
    let b = |i: usize| data.get(i).copied().unwrap_or(0) as usize;
    let n = 1 + b(0) % 4;
    (0..n)
        .map(|k| {
            let x = b(1 + 3 * k);
            let y = b(2 + 3 * k);
            let z = b(3 + 3 * k);
            let opcode = (z & 0x80 != 0)
                .then(|| Regex::new(OPCODES[z % OPCODES.len()]).ok())
                .flatten();
            Request {
                select: Selector {
                    class: CLASSES[y % CLASSES.len()],
                    opcode,
                    ..Default::default()
                },
                at: WHERE[x % WHERE.len()],
                probe: Arc::new(CounterProbe { lanes: z & 1 != 0 }),
            }
        })
        .collect()
}

/// One traced access: a lane of one wave-execution of a memory instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct TraceEvent {
    /// Record index in the ring (order of reservation).
    pub record: u64,
    /// Original address of the instruction.
    pub pc: u64,
    /// `load`, `store` or `atomic`.
    pub kind: &'static str,
    /// The address space the instruction addresses: `global` (GLOBAL),
    /// `lds` (DS), `scratch` (SCRATCH), `buffer` (MUBUF: the private
    /// segment's buffer) or `flat` (FLAT: any of them, by address).
    pub space: &'static str,
    /// Bytes per lane.
    pub size: u32,
    /// Lane.
    pub lane: u8,
    /// Address (register part plus the instruction's offset field).
    pub addr: u64,
    /// Site index.
    pub site: u32,
    /// The wave's work-group id (x, y, z).
    pub workgroup: [u32; 3],
    /// The wave's index in its work-group (flat work-item id of its first
    /// lane over 64).
    pub wave: u32,
}

/// A decoded `mem-trace` ring.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// Records written.
    pub records: u64,
    /// Records reserved (written + dropped).
    pub reserved: u64,
    /// Records dropped because the ring was full.
    pub dropped: u64,
    /// Accesses, per active lane.
    pub events: Vec<TraceEvent>,
}

/// Bytes per lane of one access of a memory instruction, from its
/// semantic description (a `read2`/`write2` records each of its two
/// accesses at the element size).
fn access_size(inst: &lathe_isa::Instruction) -> u32 {
    match lathe_isa::sem::of(inst.opcode()).sem {
        lathe_isa::sem::Sem::Mem(m) => u32::from(m.size) * u32::from(m.elems),
        _ => 4,
    }
}

/// The immediate offset the emulator adds (FLAT: 12 bits; GLOBAL and
/// SCRATCH: 13 bits signed on GFX9, 12 on GFX10, where bit 12 is `dlc`;
/// DS: the 16-bit offset field).
fn imm_offset(inst: &lathe_isa::Instruction) -> i64 {
    let w0 = inst.words().first().copied().unwrap_or(0);
    let bits = crate::asm::max_global_offset(inst.target()).count_ones() + 1;
    match inst.encoding().family() {
        lathe_isa::Encoding::Flat => i64::from(w0 & 0xfff),
        lathe_isa::Encoding::Ds => i64::from(w0 & 0xffff),
        _ => i64::from((w0 << (32 - bits)) as i32 >> (32 - bits)),
    }
}

/// Decodes the `mem-trace` ring of one dispatch.
pub fn decode_trace(b: &ToolBuild, data: &[u8]) -> Trace {
    let u64_at = |o: u64| -> u64 {
        usize::try_from(o)
            .ok()
            .and_then(|o| data.get(o..o + 8))
            .map_or(0, |s| u64::from_le_bytes(s.try_into().unwrap_or([0; 8])))
    };
    let reserved = u64_at(0);
    let dropped = u64_at(8);
    let records = reserved.min(u64::from(b.trace_capacity));
    let rec = u64::from(crate::rewrite::TRACE_RECORD);
    let mut events = Vec::new();
    for k in 0..records {
        let base = 16 + k * rec;
        let site = u64_at(base) as u32;
        let exec = u64_at(base + 8);
        let (wg_xy, wg_zw) = (u64_at(base + 16), u64_at(base + 24));
        let workgroup = [wg_xy as u32, (wg_xy >> 32) as u32, wg_zw as u32];
        let wave = (wg_zw >> 32) as u32;
        let Some(s) = b.sites.get(site as usize) else {
            continue;
        };
        let f = &b.program.functions[s.function_index];
        let inst = &f.insts[s.inst_index].inst;
        let kind = if inst.is_atomic() {
            "atomic"
        } else if inst.is_store() {
            "store"
        } else {
            "load"
        };
        let space = match inst.encoding().family() {
            lathe_isa::Encoding::Global => "global",
            lathe_isa::Encoding::Ds => "lds",
            lathe_isa::Encoding::Scratch => "scratch",
            lathe_isa::Encoding::Mubuf => "buffer",
            _ => "flat",
        };
        let size = access_size(inst);
        // The MUBUF probe records the whole address (its offset sits
        // inside the private segment's swizzle).
        let off = if inst.encoding().family() == lathe_isa::Encoding::Mubuf {
            0
        } else {
            imm_offset(inst)
        };
        // SCRATCH offsets and LDS addresses are 32 bits: the offset
        // field wraps (clang folds `tile[63 - t]` into a negative base).
        let scratch = matches!(
            inst.encoding().family(),
            lathe_isa::Encoding::Scratch | lathe_isa::Encoding::Ds
        );
        for lane in 0..64u8 {
            if exec >> lane & 1 == 0 {
                continue;
            }
            let a = u64_at(base + 32 + 8 * u64::from(lane));
            events.push(TraceEvent {
                record: k,
                pc: s.pc,
                kind,
                space,
                size,
                lane,
                addr: if scratch {
                    (a as i64).wrapping_add(off) as u64 & 0xffff_ffff
                } else {
                    (a as i64).wrapping_add(off) as u64
                },
                site,
                workgroup,
                wave,
            });
        }
    }
    Trace {
        records,
        reserved,
        dropped,
        events,
    }
}

/// The `mem-trace` CSV header ([`trace_csv_rows`]'s columns).
pub const TRACE_CSV_HEADER: &str =
    "launch,record,workgroup,wave,pc,instruction,kind,space,size,lane,address\n";

/// One launch's accesses as CSV rows (no header): the launch index, the
/// record (one wave-execution of the instruction), the wave's work-group
/// id (`"x,y,z"`) and index in the work-group, the instruction's original
/// address and text, `load`/`store`/`atomic`, the address space
/// ([`TraceEvent::space`]), bytes per lane, the lane and the address.
pub fn trace_csv_rows(b: &ToolBuild, t: &Trace, launch: u64) -> String {
    let mut s = String::new();
    for e in &t.events {
        let inst = b.sites.get(e.site as usize).map_or("", |x| x.inst.as_str());
        let [x, y, z] = e.workgroup;
        s.push_str(&format!(
            "{launch},{},\"{x},{y},{z}\",{},{:#x},\"{}\",{},{},{},{},{:#x}\n",
            e.record, e.wave, e.pc, inst, e.kind, e.space, e.size, e.lane, e.addr
        ));
    }
    s
}

/// The trace of one launch as CSV ([`TRACE_CSV_HEADER`], then the rows of
/// launch 0 and a `# dropped records` line).
pub fn trace_csv(b: &ToolBuild, t: &Trace) -> String {
    let mut s = String::from(TRACE_CSV_HEADER);
    s.push_str(&trace_csv_rows(b, t, 0));
    s.push_str(&format!("# dropped records: {}\n", t.dropped));
    s
}

/// One launch's accesses as Chrome/Perfetto trace events: the launch is
/// a process (`pid` = launch index, named `launch N: KERNEL`), each wave a
/// thread (one track per work-group and wave, named `wg X,Y,Z wave W`,
/// ordered by work-group then wave; `tid` = 1 + that order); each record
/// (one wave-execution of a memory instruction) is an instant event at its
/// record index, named by the instruction, in category `SPACE KIND`
/// (`lds load`, `global store`), its active lanes and their addresses as
/// args (`lanes`, `addresses`, in lane order).
pub fn trace_perfetto_events(b: &ToolBuild, t: &Trace, launch: u64, kernel: &str) -> Vec<Value> {
    let mut out = vec![json!({"ph": "M", "name": "process_name", "pid": launch,
        "args": {"name": if kernel.is_empty() { format!("launch {launch}") } else { format!("launch {launch}: {kernel}") }}})];
    // Tracks: (z, y, x, wave) order, so work-groups read in launch order.
    let key = |e: &TraceEvent| {
        let [x, y, z] = e.workgroup;
        (z, y, x, e.wave)
    };
    let mut waves: Vec<(u32, u32, u32, u32)> = t.events.iter().map(key).collect();
    waves.sort_unstable();
    waves.dedup();
    let tid_of = |e: &TraceEvent| waves.binary_search(&key(e)).map_or(0, |i| i + 1);
    for (i, (z, y, x, w)) in waves.iter().enumerate() {
        out.push(
            json!({"ph": "M", "name": "thread_name", "pid": launch, "tid": i + 1,
            "args": {"name": format!("wg {x},{y},{z} wave {w}")}}),
        );
        out.push(
            json!({"ph": "M", "name": "thread_sort_index", "pid": launch, "tid": i + 1,
            "args": {"sort_index": i + 1}}),
        );
    }
    // Events of one record are contiguous (decode order).
    let mut k = 0;
    while k < t.events.len() {
        let e = &t.events[k];
        let n = t.events[k..]
            .iter()
            .take_while(|o| o.record == e.record)
            .count();
        let rec = &t.events[k..k + n];
        k += n;
        let inst = b.sites.get(e.site as usize).map_or("", |x| x.inst.as_str());
        let lanes: Vec<u8> = rec.iter().map(|o| o.lane).collect();
        let addrs: Vec<String> = rec.iter().map(|o| format!("{:#x}", o.addr)).collect();
        out.push(
            json!({"name": inst, "cat": format!("{} {}", e.space, e.kind), "ph": "i",
            "s": "t", "ts": e.record, "pid": launch, "tid": tid_of(e),
            "args": {"pc": format!("{:#x}", e.pc), "workgroup": e.workgroup, "wave": e.wave,
                "size": e.size, "space": e.space, "kind": e.kind, "lanes": lanes,
                "addresses": addrs}}),
        );
    }
    out
}

/// The trace of one launch as a Chrome/Perfetto trace-event document
/// ([`trace_perfetto_events`] for launch 0), drops in `otherData`.
pub fn trace_perfetto(b: &ToolBuild, t: &Trace) -> Value {
    json!({"traceEvents": trace_perfetto_events(b, t, 0, ""), "displayTimeUnit": "ns",
        "otherData": {"records": t.records, "dropped": t.dropped}})
}

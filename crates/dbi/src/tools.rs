//! The built-in tools and running them on the emulator.
//!
//! | tool | sites | result |
//! | --- | --- | --- |
//! | `instr-count` | block entry and after every EXEC write inside a block (regions of constant EXEC), wave + lane counters | wave- and thread-level counts of the original program's instructions |
//! | `block-count` | block entry, wave counter | executions per block with its address range |
//! | `opcode-hist` | block entry, wave counter | executions per opcode (block counts × the block's opcodes) |
//! | `kernarg` | kernel entry, copy of the kernarg segment | arguments and hidden arguments as the kernel sees them |
//!
//! Counts are of the original program's instructions (the probes' own
//! instructions are not counted): a region's counter times the number of
//! original instructions in it.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};

use lathe_codeobj::CodeObject;
use lathe_emu::launch::Arg;
use lathe_emu::run::{Options, Report};
use lathe_emu::session::{BufferOut, Session, Shape};
use lathe_isa::Opcode;
use regex::Regex;

use crate::elfout::DATA_SYMBOL;
use crate::lift::Program;
use crate::live::Liveness;
use crate::rewrite::{
    writes_exec, CounterProbe, InstClass, Instrumented, KernargProbe, Request, Selector, Where,
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
}

impl Tool {
    /// Every tool.
    pub const ALL: [Tool; 4] = [
        Tool::InstrCount,
        Tool::BlockCount,
        Tool::OpcodeHist,
        Tool::Kernarg,
    ];

    /// The tool's name.
    pub fn name(self) -> &'static str {
        match self {
            Tool::InstrCount => "instr-count",
            Tool::BlockCount => "block-count",
            Tool::OpcodeHist => "opcode-hist",
            Tool::Kernarg => "kernarg",
        }
    }

    /// Parses a tool name.
    pub fn parse(s: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name() == s)
    }
}

/// Instrumentation requests for `tool` on kernels matching `kernel`.
pub fn requests(
    tool: Tool,
    kernel: Option<&str>,
    kernarg_bytes: u32,
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
    })
}

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
    let reqs = requests(tool, kernel, ka)?;
    let out = crate::rewrite::instrument_lifted_with(&co, &program, &live, &reqs, ropts)?;
    Ok(ToolBuild {
        tool,
        out,
        program,
        args,
    })
}

/// Decodes the probe data of one dispatch of `kernel`.
pub fn decode(b: &ToolBuild, kernel: &str, data: &[u8]) -> Result<Value, Error> {
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
            json!({"name": "instr-count", "kernel": kernel, "wave_instructions": waves, "thread_instructions": threads})
        }
        Tool::BlockCount => {
            let blocks: Vec<Value> = sites
                .iter()
                .map(|s| {
                    let f = &p.functions[s.function_index];
                    let bi = f.block_of[s.inst_index];
                    let blk = &f.blocks[bi];
                    let last = f.insts[blk.end - 1];
                    json!({"function": f.name, "block": bi, "start": f.insts[blk.start].addr,
                           "end": last.addr + last.inst.len() as u64, "count": u64_at(s.slot)})
                })
                .collect();
            json!({"name": "block-count", "kernel": kernel, "blocks": blocks})
        }
        Tool::OpcodeHist => {
            let mut h: BTreeMap<Opcode, u64> = BTreeMap::new();
            for s in &sites {
                let f = &p.functions[s.function_index];
                let blk = &f.blocks[f.block_of[s.inst_index]];
                let c = u64_at(s.slot);
                if c == 0 {
                    continue;
                }
                for x in &f.insts[blk.start..blk.end] {
                    *h.entry(x.inst.opcode()).or_default() += c;
                }
            }
            let mut v: Vec<(Opcode, u64)> = h.into_iter().collect();
            v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let ops: Vec<Value> = v
                .iter()
                .map(|(o, n)| json!({"opcode": o.name(), "count": n}))
                .collect();
            json!({"name": "opcode-hist", "kernel": kernel, "opcodes": ops})
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
                out.push(json!({"name": name, "kind": kind, "offset": off, "size": size,
                    "value": v, "bytes": bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()}));
            }
            let g = |k: &str| named.get(k).copied();
            let dim = |a: &str, b: &str, c: &str| -> Value {
                match (g(a), g(b), g(c)) {
                    (Some(x), Some(y), Some(z)) => json!([x, y, z]),
                    _ => Value::Null,
                }
            };
            json!({"name": "kernarg", "kernel": kernel, "args": out,
                "grid_dim": dim("hidden_block_count_x", "hidden_block_count_y", "hidden_block_count_z"),
                "block_dim": dim("hidden_group_size_x", "hidden_group_size_y", "hidden_group_size_z")})
        }
    })
}

/// How [`run`] runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Record ground truth ([`ToolRun::ground_truth`]).
    pub record: bool,
    /// Force the rewriter's lane mode.
    pub force_lane_mode: bool,
}

/// One instrumented run.
#[derive(Debug)]
pub struct ToolRun {
    /// The session the run used (read output buffers from it).
    pub session: Session,
    /// The dispatch report (counts include the probes' instructions).
    pub report: Report,
    /// Buffers made for buffer arguments.
    pub buffers: Vec<BufferOut>,
    /// The tool's result.
    pub result: Value,
    /// Ground truth of this run (with `record`): executions and active
    /// lanes of each original instruction, by original address (probe
    /// instructions excluded).
    pub ground_truth: Option<BTreeMap<u64, lathe_emu::record::PcCount>>,
}

#[allow(clippy::too_many_arguments)]
/// Instruments the code object of `objects` that defines `kernel`, loads
/// it with the others, runs `kernel` and decodes the tool's data.
pub fn run(
    agent: lathe_bundle::TargetId,
    objects: &[&[u8]],
    kernel: &str,
    tool: Tool,
    shape: Shape,
    args: &[Arg],
    opts: &Options,
    ro: &RunOptions,
) -> Result<(ToolRun, ToolBuild), Error> {
    let record = ro.record;
    let mut built = None;
    let mut objs: Vec<Vec<u8>> = Vec::new();
    let mut resolved = kernel.to_string();
    for o in objects {
        let found = CodeObject::parse(o).ok().and_then(|c| {
            c.symbols().ok().and_then(|s| {
                s.kernels()
                    .iter()
                    .find(|k| {
                        k.name == kernel || lathe_loader::mangled_base_name(k.name) == Some(kernel)
                    })
                    .map(|k| k.name.to_string())
            })
        });
        if let (Some(name), true) = (&found, built.is_none()) {
            resolved = name.clone();
            let kernel = resolved.as_str();
            let kre = format!("^{}$", regex::escape(kernel));
            let b = instrument_with(
                o,
                tool,
                Some(&kre),
                &crate::rewrite::Options::lane_mode(ro.force_lane_mode),
            )?;
            objs.push(b.code_object.clone());
            built = Some(b);
        } else {
            objs.push(o.to_vec());
        }
    }
    let b = built.ok_or_else(|| Error::NoFunction(kernel.to_string()))?;
    let refs: Vec<&[u8]> = objs.iter().map(|v| v.as_slice()).collect();
    let session = Session::load(agent, &refs)?;
    let var = session
        .exe
        .symbol(DATA_SYMBOL)
        .ok_or_else(|| Error::ProbeData(format!("{DATA_SYMBOL} not found after loading")))?
        .address;
    let buf = session
        .upload(&vec![0u8; b.data_size as usize])
        .map_err(|e| Error::ProbeData(e.to_string()))?;
    session
        .mem
        .view()
        .store_u64(var, buf)
        .map_err(|e| Error::ProbeData(e.to_string()))?;
    let (report, buffers, rec) = if record {
        let (r, b, rec) = session.launch_recorded(&resolved, shape, args, opts)?;
        (r, b, Some(rec))
    } else {
        let (r, b) = session.launch(&resolved, shape, args, opts)?;
        (r, b, None)
    };
    let ground_truth = rec.map(|rec| {
        let lco = session
            .exe
            .code_objects()
            .iter()
            .find(|c| c.storage == b.code_object);
        let mut m = BTreeMap::new();
        if let Some(lco) = lco {
            for (new, old) in &b.addr_map {
                if let Some(c) = rec.per_pc.get(&lco.device_address(*new)) {
                    m.insert(*old, *c);
                }
            }
        }
        m
    });
    let data = session
        .download(buf, b.data_size)
        .map_err(|e| Error::ProbeData(e.to_string()))?;
    let result = decode(&b, &resolved, &data)?;
    Ok((
        ToolRun {
            session,
            report,
            buffers,
            result,
            ground_truth,
        },
        b,
    ))
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

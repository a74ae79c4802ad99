//! Instrumenting one kernel of a code object with a built-in tool, and
//! decoding one launch's probe data into the tool's result.
//!
//! The built-in tools are lathe-dbi's ([`lathe_dbi::tools`]). `kernarg`
//! gets one more probe here, at kernel entry: a copy of the AQL dispatch
//! packet through the kernel's dispatch pointer, the packet as the kernel
//! reads it. HIP's `gridDim` is what the kernel computes from it under code
//! object v4 (`__ockl_get_num_groups`: grid size over work-group size,
//! rounded up), or the hidden `block_count` arguments under v5; the result's
//! `grid_dim` is that value as the instrumented kernel read it.

use std::collections::BTreeMap;
use std::sync::Arc;

use lathe_codeobj::aql::AqlDispatch;
use serde_json::{json, Value};

use lathe_codeobj::{CodeObject, KdArch};
use lathe_dbi::manifest::HipTool;
use lathe_dbi::report::Report;
use lathe_dbi::rewrite::{
    build, exec_one, exec_restore, smem_load, waitcnt, Options, Probe, ProbeCx, Request, Selector,
    Where,
};
use lathe_dbi::tools::{self, Tool, ToolBuild, TRACE_CAPACITY};
use lathe_isa::{BuildError, Instruction, Opcode, Operand, RegRange};

/// Bytes of the AQL kernel dispatch packet.
const PACKET_BYTES: u32 = 64;

/// Copies the dispatch packet (through the dispatch-pointer SGPR pair) into
/// the site's slot at kernel entry.
#[derive(Debug, Clone, Copy)]
struct DispatchPacketProbe {
    /// First SGPR of the dispatch pointer.
    sgpr: u16,
}

impl Probe for DispatchPacketProbe {
    fn slot_bytes(&self) -> u32 {
        PACKET_BYTES
    }
    fn emit(&self, cx: &ProbeCx<'_>, out: &mut Vec<Instruction>) -> Result<(), BuildError> {
        let (t, r) = (cx.target, cx.regs);
        let s = |n: u16, c: u8| Operand::Reg(RegRange::sgpr(n, c));
        let v = |n: u16, c: u8| Operand::Reg(RegRange::vgpr(n, c));
        exec_one(t, r, out)?;
        for k in 0..PACKET_BYTES / 4 {
            out.push(smem_load(t, Opcode::S_LOAD_DWORD, r.tmp, self.sgpr, 4 * k)?);
            out.push(waitcnt(t, 63, 0)?);
            out.push(build(
                t,
                Opcode::V_MOV_B32_E32,
                &[v(r.vtmp, 1), s(r.tmp, 1)],
            )?);
            out.push(build(
                t,
                Opcode::V_MOV_B32_E32,
                &[v(r.vcnt, 1), Operand::Literal(cx.slot + 4 * k)],
            )?);
            out.push(build(
                t,
                Opcode::GLOBAL_STORE_DWORD,
                &[v(r.vcnt, 1), v(r.vtmp, 1), s(r.ptr, 2)],
            )?);
        }
        exec_restore(t, r, out)
    }
}

/// One kernel instrumented with one tool.
#[derive(Debug)]
pub struct Build {
    /// The tool's build (for `kernarg`, its sites are the kernarg copy's
    /// only: what [`tools::decode`] reads).
    pub tb: ToolBuild,
    /// The instrumented code object.
    pub code_object: Arc<Vec<u8>>,
    /// Kernel (mangled name, no `.kd`).
    pub kernel: String,
    /// Offset of the dispatch-packet copy in the probe data (`kernarg`).
    pub packet_slot: Option<u32>,
    /// Bytes of probe data a launch needs.
    pub data_size: u64,
    /// `st_value` of the kernel descriptor (unchanged by instrumenting).
    pub kd_value: u64,
    /// Writable `PT_LOAD` segments of the original code object: (vaddr,
    /// memsz).
    pub writable: Vec<(u64, u64)>,
    /// For a kernel with a dynamic stack given probe scratch: where the
    /// probe area starts (bytes per lane). A launch whose packet asks for a
    /// larger private segment would let the kernel's stack reach it.
    pub dynamic_stack_area: Option<u32>,
}

/// Instruments `kernel` of `code` with `tool`.
pub fn build_kernel(code: &[u8], tool: Tool, kernel: &str) -> Result<Build, String> {
    let err =
        |e: &dyn std::fmt::Display| format!("instrumenting {kernel} with {}: {e}", tool.name());
    let co = CodeObject::parse(code).map_err(|e| err(&e))?;
    let syms = co.symbols().map_err(|e| err(&e))?;
    let k = syms
        .kernel(kernel)
        .ok_or_else(|| err(&"the code object has no such kernel"))?;
    let kd = k
        .descriptor
        .as_ref()
        .map_err(|e| err(&format!("kernel descriptor: {e}")))?;
    let kd_value = k
        .descriptor_symbol
        .as_ref()
        .map(|s| s.value)
        .ok_or_else(|| err(&"no kernel descriptor symbol"))?;
    let re = format!("^{}$", regex::escape(kernel));
    let (tb, packet_slot) = if tool == Tool::Kernarg {
        let tid = co
            .target()
            .ok_or_else(|| err(&"the code object names no processor"))?;
        let arch = KdArch::for_processor(tid.processor);
        let dispatch = kd
            .initial_sgprs(arch)
            .iter()
            .find(|s| s.role == lathe_codeobj::kd::SgprRole::DispatchPtr)
            .map(|s| s.first as u16);
        let program = lathe_dbi::Program::lift(&co).map_err(|e| err(&e))?;
        let live = lathe_dbi::Liveness::compute(&program);
        let mut args = BTreeMap::new();
        let mut ka = 0u32;
        if let Some(md) = co.metadata().map_err(|e| err(&e))? {
            for mk in &md.kernels {
                let name = mk.symbol.strip_suffix(".kd").unwrap_or(mk.name).to_string();
                if name == kernel {
                    ka = mk.kernarg_segment_size.min(4096) as u32;
                }
                args.insert(
                    name,
                    mk.args
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
        let mut reqs = tools::requests(Tool::Kernarg, Some(&re), ka).map_err(|e| err(&e))?;
        if let Some(sgpr) = dispatch {
            reqs.push(Request {
                select: Selector {
                    kernel: regex::Regex::new(&re).ok(),
                    ..Default::default()
                },
                at: Where::KernelEntry,
                probe: Arc::new(DispatchPacketProbe { sgpr }),
            });
        }
        let mut out = lathe_dbi::rewrite::instrument_lifted_with(
            &co,
            &program,
            &live,
            &reqs,
            &Options::default(),
        )
        .map_err(|e| err(&e))?;
        let packet_slot = out.sites.iter().find(|s| s.request == 1).map(|s| s.slot);
        out.sites.retain(|s| s.request == 0);
        (
            ToolBuild {
                tool,
                out,
                program,
                args,
                trace_capacity: TRACE_CAPACITY,
                derived: Default::default(),
            },
            packet_slot,
        )
    } else {
        let tb = tools::instrument_tool(code, tool, Some(&re), &Options::default(), TRACE_CAPACITY)
            .map_err(|e| err(&e))?;
        (tb, None)
    };
    if let Some((_, why)) = tb.skipped.iter().find(|(k, _)| k == kernel) {
        return Err(err(&format!("no free registers for probes ({why})")));
    }
    let dynamic_stack_area = dynamic_stack_area(kd, &tb.scratch, kernel);
    let writable = writable_segments(&co);
    let with_map =
        crate::addr_map::with_addr_map(&tb.code_object, &tb.out.addr_map).map_err(|e| err(&e))?;
    Ok(Build {
        code_object: Arc::new(with_map),
        data_size: tb.data_size.max(8),
        tb,
        kernel: kernel.to_string(),
        packet_slot,
        kd_value,
        writable,
        dynamic_stack_area,
    })
}

/// Where the probe area of a kernel with a dynamic stack starts.
fn dynamic_stack_area(
    kd: &lathe_codeobj::kd::KernelDescriptor,
    scratch: &[lathe_dbi::rewrite::KernelScratch],
    kernel: &str,
) -> Option<u32> {
    if !kd.properties().uses_dynamic_stack {
        return None;
    }
    scratch.iter().find(|k| k.kernel == kernel).map(|k| k.area)
}

/// Writable `PT_LOAD` segments: (vaddr, memsz).
fn writable_segments(co: &CodeObject) -> Vec<(u64, u64)> {
    co.segments()
        .iter()
        .filter(|s| s.p_type == 1 && s.flags & 2 != 0 && s.memsz > 0)
        .map(|s| (s.vaddr, s.memsz))
        .collect()
}

/// One kernel instrumented with a HIP tool ([`lathe_dbi::manifest`]).
#[derive(Debug)]
pub struct HipBuild {
    /// The instrumented code object (its hook symbols resolve against the
    /// tool code object loaded next to it).
    pub code_object: Arc<Vec<u8>>,
    /// Hook sites.
    pub sites: usize,
    /// `st_value` of the kernel descriptor.
    pub kd_value: u64,
    /// Writable `PT_LOAD` segments of the original code object.
    pub writable: Vec<(u64, u64)>,
    /// As [`Build::dynamic_stack_area`].
    pub dynamic_stack_area: Option<u32>,
    /// The hook calls' relocations: (field address in the instrumented
    /// object, relocation type, the hook's value in the tool object,
    /// addend). The tool library writes them itself after loading, for a
    /// loader that does not apply `.rela.lathe.text` (ROCr).
    pub relocs: Vec<(u64, u32, u64, i64)>,
}

/// Instruments `kernel` of `code` with the HIP tool `tool`.
pub fn build_hip(
    code: &[u8],
    tool: &HipTool,
    name: &str,
    kernel: &str,
) -> Result<HipBuild, String> {
    let err = |e: &dyn std::fmt::Display| format!("instrumenting {kernel} with {name}: {e}");
    let co = CodeObject::parse(code).map_err(|e| err(&e))?;
    let syms = co.symbols().map_err(|e| err(&e))?;
    let k = syms
        .kernel(kernel)
        .ok_or_else(|| err(&"the code object has no such kernel"))?;
    let kd = k
        .descriptor
        .as_ref()
        .map_err(|e| err(&format!("kernel descriptor: {e}")))?;
    let kd_value = k
        .descriptor_symbol
        .as_ref()
        .map(|s| s.value)
        .ok_or_else(|| err(&"no kernel descriptor symbol"))?;
    let hb = tool.instrument(code, Some(kernel)).map_err(|e| err(&e))?;
    if let Some((_, why)) = hb.skipped.iter().find(|(k, _)| k == kernel) {
        return Err(err(&format!("no free registers for probes ({why})")));
    }
    let tool_co = CodeObject::parse(tool.code_object()).map_err(|e| err(&e))?;
    let mut relocs = Vec::with_capacity(hb.relocs.len());
    for r in &hb.relocs {
        let s = tool_co
            .find_elf_symbol(&r.symbol)
            .ok_or_else(|| err(&format!("the tool object does not define {}", r.symbol)))?;
        relocs.push((r.offset, r.kind, s.value, r.addend));
    }
    Ok(HipBuild {
        relocs,
        dynamic_stack_area: dynamic_stack_area(kd, &hb.scratch, kernel),
        sites: hb.sites.len(),
        code_object: Arc::new(
            crate::addr_map::with_addr_map(&hb.code_object, &hb.addr_map).map_err(|e| err(&e))?,
        ),
        kd_value,
        writable: writable_segments(&co),
    })
}

/// One launch's `mem-trace` accesses as the shared writers render them
/// (lathe-dbi's [`tools::trace_csv_rows`] and
/// [`tools::trace_perfetto_events`], as `lathe run --tool mem-trace`).
#[derive(Debug, Default)]
pub struct TraceOut {
    /// The accesses as CSV rows (no header).
    pub csv_rows: String,
    /// The accesses as Perfetto (Chrome trace) events.
    pub perfetto: Vec<Value>,
    /// Records the probes wrote.
    pub records: u64,
    /// Records lost because the trace buffer was full.
    pub dropped: u64,
}

/// One launch's decoded result.
#[derive(Debug)]
pub struct Decoded {
    /// The typed result (its `Display` is the per-launch summary line).
    pub report: Report,
    /// The JSON result written to `LATHE_TOOL_OUT`: the report plus, for
    /// `mem-trace`, every access, and for `kernarg`, where GridDim came
    /// from and the arguments typed by the kernel's signature.
    pub json: Value,
    /// For `mem-trace`, the trace rendered for the CSV and Perfetto
    /// outputs.
    pub trace: Option<TraceOut>,
}

/// Decodes one launch's probe data.
pub fn decode(b: &Build, data: &[u8], launch: u64, kernel: &str) -> Result<Decoded, String> {
    let report = tools::decode(&b.tb, &b.kernel, data).map_err(|e| e.to_string())?;
    let mut v = report.to_json();
    let mut trace = None;
    if b.tb.tool == Tool::MemTrace {
        let t = tools::decode_trace(&b.tb, data);
        let events: Vec<Value> = t
            .events
            .iter()
            .map(|e| {
                json!({"record": e.record, "workgroup": e.workgroup, "wave": e.wave,
                    "pc": e.pc, "lane": e.lane, "address": e.addr, "size": e.size,
                    "kind": e.kind, "space": e.space})
            })
            .collect();
        v["events"] = Value::Array(events);
        trace = Some(TraceOut {
            csv_rows: tools::trace_csv_rows(&b.tb, &t, launch),
            perfetto: tools::trace_perfetto_events(&b.tb, &t, launch, kernel),
            records: t.records,
            dropped: t.dropped,
        });
    }
    if let Report::Kernarg(k) = &report {
        // The packet as the kernel saw it (code object v4 kernels read
        // their sizes from it).
        let packet = b.packet_slot.and_then(|o| {
            let o = o as usize;
            let p = data.get(o..o + 64)?;
            let mut pk = [0u8; 64];
            pk.copy_from_slice(p);
            Some(AqlDispatch::from_bytes(&pk))
        });
        // GridDim as the kernel reads it: v5's hidden block counts if
        // the kernel has them, else v4's computation from the packet.
        if k.grid_dim.is_none() {
            if let Some(d) = &packet {
                let gd: Vec<u64> = (0..3)
                    .map(|i| {
                        u64::from(d.grid_size[i]).div_ceil(u64::from(d.workgroup_size[i]).max(1))
                    })
                    .collect();
                v["grid_dim"] = json!(gd);
                v["grid_dim_source"] = json!("dispatch packet");
                v["packet"] = json!({"grid": d.grid_size, "block": d.workgroup_size});
            }
        } else {
            v["grid_dim_source"] = json!("hidden block count");
        }
        let demangled = lathe_codeobj::names::demangle(&b.kernel).unwrap_or_default();
        crate::kernarg::type_args(&mut v, &demangled, packet.map(|d| d.workgroup_size));
    }
    Ok(Decoded {
        report,
        json: v,
        trace,
    })
}

/// `(x, y, z)`.
pub fn triple<T: std::fmt::Display>(a: &[T]) -> String {
    let s: Vec<String> = a.iter().map(|x| x.to_string()).collect();
    format!("({})", s.join(", "))
}

/// The seed's `kernarg` line: the HSA fields from the application's
/// dispatch packet, GridDim from what the instrumented kernel read.
pub fn kernarg_line(index: u64, name: &str, d: &AqlDispatch, v: &Value) -> String {
    let gd = match v["grid_dim"].as_array() {
        Some(a) => {
            let n: Vec<String> = a.iter().map(|x| x.to_string()).collect();
            format!("({})", n.join(", "))
        }
        None => "(unavailable: the kernel has neither a dispatch pointer nor hidden block counts)"
            .to_string(),
    };
    format!(
        "Kernel {index} - {name}: Total Grid Size Dims (HSA): {} Workgroup Dims (HSA): {} : GridDim (HIP): {gd}.",
        triple(&d.grid_size),
        triple(&d.workgroup_size)
    )
}

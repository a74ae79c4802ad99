//! `lathe info`: a readable (or JSON) summary of a code object, bundle or
//! HIP host binary.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::{BufWriter, Write};

use anyhow::{Context, Result};
use lathe_bundle::host::Storage;
use lathe_bundle::{select, FileKind, Limits, Policy, TargetId};
use lathe_codeobj::kd::SgprRole;
use lathe_codeobj::names::{self, NameError};
use lathe_codeobj::{CodeObject, KdArch, Kernel, SymbolKind, SymbolSection};
use serde_json::{json, Value};

use crate::bundle_cmd::{discover_file, parse_targets};
use crate::input::{kind_key, kind_word, Input};
use crate::output::{byte_bar, human_size, stdout_err, Ctx};
use crate::InfoArgs;

pub use lathe_codeobj::names::demangle;

fn sgpr_role(r: SgprRole) -> &'static str {
    match r {
        SgprRole::PrivateSegmentBuffer => "private_segment_buffer",
        SgprRole::DispatchPtr => "dispatch_ptr",
        SgprRole::QueuePtr => "queue_ptr",
        SgprRole::KernargSegmentPtr => "kernarg_segment_ptr",
        SgprRole::DispatchId => "dispatch_id",
        SgprRole::FlatScratchInit => "flat_scratch_init",
        SgprRole::PrivateSegmentSize => "private_segment_size",
        SgprRole::PreloadedKernargs => "preloaded_kernargs",
        SgprRole::WorkgroupIdX => "workgroup_id_x",
        SgprRole::WorkgroupIdY => "workgroup_id_y",
        SgprRole::WorkgroupIdZ => "workgroup_id_z",
        SgprRole::WorkgroupInfo => "workgroup_info",
        SgprRole::PrivateSegmentWaveOffset => "private_segment_wave_offset",
        _ => "other",
    }
}

/// Descriptor fields shown on their own line: those that only some
/// generations have (the others are in the lines around it).
const GENERATION_FIELDS: &[&str] = &[
    "accum_offset",
    "tg_split",
    "workgroup_processor_mode",
    "memory_ordered",
    "forward_progress",
    "shared_vgpr_count",
    "wavefront_size32",
    "inst_pref_size",
    "trap_on_start",
    "trap_on_end",
    "image_op",
    "glg_en",
    "round_robin_scheduling",
    "named_barrier_count",
    "enable_dynamic_vgpr",
    "tcp_split",
    "enable_didt_throttle",
    "flat_scratch_is_nv",
    "enable_private_segment",
    "user_sgpr_kernarg_preload_length",
];

fn sgpr_range(first: u32, count: u32) -> String {
    if count == 1 {
        format!("s{first}")
    } else {
        format!("s[{}:{}]", first, first + count - 1)
    }
}

/// One code object found in the input, with where it came from.
struct Found<'a> {
    origin: String,
    origin_json: Value,
    bytes: &'a [u8],
}

/// Output as it is produced: text lines, or the members of one JSON
/// document written piece by piece, so that a library with a million lines
/// of output never sits in memory.
struct Sink {
    json: bool,
    out: BufWriter<std::io::Stdout>,
    /// Code objects written (for commas between JSON array members).
    objects: usize,
    /// JSON written before the first code object, held back until then.
    prefix: Option<String>,
}

impl Sink {
    fn text(&mut self, t: &str) -> Result<()> {
        if !self.json {
            self.out.write_all(t.as_bytes()).map_err(stdout_err)?;
        }
        Ok(())
    }

    fn raw(&mut self, t: &str) -> Result<()> {
        // The JSON document's head goes out with the first piece of it, so
        // that an error found before any code object is the only output.
        if let Some(p) = self.prefix.take() {
            self.out.write_all(p.as_bytes()).map_err(stdout_err)?;
        }
        self.out.write_all(t.as_bytes()).map_err(stdout_err)
    }

    fn object(&mut self, v: &Value) -> Result<()> {
        if self.json {
            if self.objects > 0 {
                self.raw(",\n")?;
            }
            let s = serde_json::to_string_pretty(v)?;
            self.raw(&s)?;
        }
        self.objects += 1;
        Ok(())
    }
}

/// What `info` shows of each code object.
struct Filter<'p> {
    kernel: Option<&'p str>,
    /// Kernel names seen in code objects where the pattern missed (for the
    /// error when it misses everywhere).
    seen: BTreeSet<String>,
    /// Kernels the pattern selected, by mangled name.
    matched: BTreeSet<String>,
}

fn kernel_json_and_text(
    k: &Kernel<'_>,
    arch: Option<KdArch>,
    processor: Option<lathe_codeobj::Processor>,
    json_on: bool,
    text: &mut String,
) -> Value {
    let pretty = demangle(k.name);
    let _ = writeln!(
        text,
        "    kernel {}{}",
        k.name,
        pretty
            .as_deref()
            .map(|p| format!("  [{p}]"))
            .unwrap_or_default()
    );
    let mut j = if json_on {
        json!({
            "name": k.name,
            "demangled": pretty,
            "entry": k.entry,
            "code_size": k.code.map(|c| c.size),
        })
    } else {
        Value::Null
    };
    let md = k.metadata.as_ref();
    match (&k.descriptor, arch) {
        (Ok(kd), Some(arch)) => {
            let props = kd.properties();
            let r2 = kd.rsrc2(arch);
            let vgprs = kd.allocated_vgprs(arch);
            let sgprs = kd.allocated_sgprs(arch);
            let accum = kd.accum_offset(arch);
            let vgpr_ids = match r2.enable_vgpr_workitem_id {
                0 => "x",
                1 => "x,y",
                _ => "x,y,z",
            };
            let _ =
                writeln!(
                text,
                "      code at {}{}, wave{}, LDS {} B, scratch {} B per work-item, kernarg {} B",
                k.entry.map(|e| format!("{e:#x}")).unwrap_or_else(|| "?".into()),
                k.code.map(|c| format!(" ({} B)", c.size)).unwrap_or_default(),
                kd.wavefront_size(arch),
                kd.group_segment_fixed_size,
                kd.private_segment_fixed_size,
                kd.kernarg_size
            );
            // The unified file (gfx90a+) puts AGPRs from `accum_offset` on;
            // the allocation is rounded up to the granule, so the part
            // above `accum_offset` can hold no AGPR the kernel uses.
            let used_agprs = md.and_then(|m| m.agpr_count);
            let vgpr_text = match (accum, used_agprs) {
                (Some(a), Some(0)) if a < vgprs => format!(
                    "{vgprs} VGPRs per work-item allocated (unified file: {a} for vector registers v0-v{}; the other {} are rounding up to the allocation granule, the kernel uses no AGPRs)",
                    a - 1,
                    vgprs - a
                ),
                (Some(a), used) if a < vgprs => format!(
                    "{vgprs} VGPRs per work-item allocated (unified file: {a} for vector registers v0-v{}, {} from accum_offset on for AGPRs{})",
                    a - 1,
                    vgprs - a,
                    used.map(|u| format!(", of which the kernel uses {u}"))
                        .unwrap_or_default()
                ),
                _ => format!("{vgprs} VGPRs per work-item allocated (no AGPRs)"),
            };
            let _ = writeln!(
                text,
                "      registers: {vgpr_text}, {}",
                sgprs
                    .map(|s| format!("{s} SGPRs per wave allocated"))
                    .unwrap_or_else(|| {
                        "SGPRs not allocated per kernel (GFX10+: every wave has the full set)"
                            .into()
                    })
            );
            let sgpr_text: Vec<String> = kd
                .initial_sgprs(arch)
                .iter()
                .map(|s| format!("{}={}", sgpr_range(s.first, s.count), sgpr_role(s.role)))
                .collect();
            let _ = writeln!(
                text,
                "      initial SGPRs: {} ; work-item IDs in VGPRs: {}{}",
                if sgpr_text.is_empty() {
                    "none".to_string()
                } else {
                    sgpr_text.join(" ")
                },
                vgpr_ids,
                if props.uses_dynamic_stack {
                    " ; dynamic stack"
                } else {
                    ""
                }
            );
            let wg = md
                .map(|m| m.max_flat_workgroup_size as u32)
                .filter(|&n| n > 0)
                .unwrap_or(1024);
            let assume = lathe_codeobj::occupancy::Assumptions {
                sgprs: md.map(|m| m.sgpr_count as u32),
                ..lathe_codeobj::occupancy::Assumptions::up_to(wg)
            };
            let fields = lathe_codeobj::kd_fields::fields(kd, arch);
            let gen_fields: Vec<String> = fields
                .iter()
                .filter(|f| GENERATION_FIELDS.contains(&f.name))
                .map(|f| format!("{}={}", f.name, f.value))
                .collect();
            if !gen_fields.is_empty() {
                let _ = writeln!(text, "      descriptor: {}", gen_fields.join(" "));
            }
            let occ = processor.map(|p| lathe_codeobj::occupancy::estimate(kd, p, &assume));
            match &occ {
                Some(Ok(o)) => {
                    let r = &o.resources;
                    let _ = writeln!(
                        text,
                        "      occupancy: {} waves per SIMD of {} (limited by {}; VGPRs allow {}, SGPRs {}, LDS {}) for work-groups of up to {}",
                        o.waves_per_simd,
                        o.max_waves_per_simd,
                        o.limiter.as_str(),
                        o.by_vgprs,
                        if o.sgprs.is_some() {
                            o.by_sgprs.to_string()
                        } else {
                            "do not limit".into()
                        },
                        o.by_lds.map(|n| n.to_string()).unwrap_or_else(|| "no limit".into()),
                        o.workgroup_size
                    );
                    let _ = writeln!(
                        text,
                        "      resources: {} VGPRs per lane allocated in blocks of {} from {} per SIMD (wave{}); {} SIMDs {} {} of LDS and {} barriers{}",
                        o.vgprs_allocated,
                        r.vgpr_alloc_granule,
                        r.vgpr_file,
                        r.wave_size,
                        r.simds,
                        if r.wgp_mode { "per work-group processor (WGP mode) share" } else { "per CU share" },
                        human_size(u64::from(r.lds_pool)),
                        r.barriers,
                        if r.lds_per_workgroup != r.lds_pool {
                            format!(", at most {} per work-group", human_size(u64::from(r.lds_per_workgroup)))
                        } else {
                            String::new()
                        }
                    );
                }
                Some(Err(e)) => {
                    let _ = writeln!(text, "      occupancy: not estimated: {e}");
                }
                None => {
                    let _ = writeln!(text, "      occupancy: not estimated: unknown processor");
                }
            }
            if json_on {
                let sgprs_json: Vec<Value> = kd
                    .initial_sgprs(arch)
                    .iter()
                    .map(|s| json!({"role": sgpr_role(s.role), "first": s.first, "count": s.count, "user": s.user}))
                    .collect();
                j["descriptor"] = json!({
                    "group_segment_fixed_size": kd.group_segment_fixed_size,
                    "private_segment_fixed_size": kd.private_segment_fixed_size,
                    "kernarg_size": kd.kernarg_size,
                    "kernel_code_entry_byte_offset": kd.kernel_code_entry_byte_offset,
                    "compute_pgm_rsrc1": format!("{:#010x}", kd.compute_pgm_rsrc1),
                    "compute_pgm_rsrc2": format!("{:#010x}", kd.compute_pgm_rsrc2),
                    "compute_pgm_rsrc3": format!("{:#010x}", kd.compute_pgm_rsrc3),
                    "kernel_code_properties": format!("{:#06x}", kd.kernel_code_properties),
                    "wavefront_size": kd.wavefront_size(arch),
                    "allocated_vgprs": vgprs,
                    "allocated_sgprs": sgprs,
                    "accum_offset": accum,
                    "allocated_agprs": accum.map(|a| vgprs.saturating_sub(a)),
                    "initial_sgprs": sgprs_json,
                    "workitem_id_vgprs": r2.enable_vgpr_workitem_id + 1,
                    "uses_dynamic_stack": props.uses_dynamic_stack,
                    "fields": fields
                        .iter()
                        .map(|f| (f.name.to_string(), json!(f.value)))
                        .collect::<serde_json::Map<String, Value>>(),
                });
                j["occupancy"] = match &occ {
                    Some(Ok(o)) => json!({
                        "waves_per_simd": o.waves_per_simd,
                        "max_waves_per_simd": o.max_waves_per_simd,
                        "limited_by": o.limiter.as_str(),
                        "by_vgprs": o.by_vgprs,
                        "by_sgprs": o.by_sgprs,
                        "by_lds": o.by_lds,
                        "workgroup_size": o.workgroup_size,
                        "min_workgroup_size": o.min_workgroup_size,
                        "lds_bytes": o.lds_bytes,
                        "vgprs_allocated": o.vgprs_allocated,
                        "sgprs": o.sgprs,
                        "resources": {
                            "wave_size": o.resources.wave_size,
                            "vgpr_file": o.resources.vgpr_file,
                            "vgpr_alloc_granule": o.resources.vgpr_alloc_granule,
                            "simds": o.resources.simds,
                            "wgp_mode": o.resources.wgp_mode,
                            "lds_pool": o.resources.lds_pool,
                            "lds_per_workgroup": o.resources.lds_per_workgroup,
                            "barriers": o.resources.barriers,
                        },
                    }),
                    Some(Err(e)) => json!({"not_estimated": e.to_string()}),
                    None => Value::Null,
                };
            }
        }
        (Err(e), _) => {
            let _ = writeln!(text, "      descriptor: error: {e}");
            if json_on {
                j["descriptor_error"] = json!(e.to_string());
            }
        }
        (Ok(_), None) => {
            let _ = writeln!(text, "      descriptor: unknown processor, not decoded");
        }
    }
    if let Some(m) = md {
        let params = pretty.as_deref().and_then(names::parameters);
        let explicit_count = m.args.iter().filter(|a| !a.value_kind.is_hidden()).count();
        let params = params.filter(|p| p.len() == explicit_count);
        let mut explicit = Vec::new();
        let mut hidden = Vec::new();
        let mut args_json = Vec::new();
        let mut n = 0usize;
        for a in &m.args {
            let kind = a.value_kind.as_str();
            let (ty, source) = match (a.type_name, &params) {
                (Some(t), _) => (Some(t), "metadata"),
                (None, Some(p)) if !a.value_kind.is_hidden() => (p.get(n).copied(), "signature"),
                _ => (None, "none"),
            };
            if a.value_kind.is_hidden() {
                hidden.push(kind.trim_start_matches("hidden_").to_string());
            } else {
                n += 1;
                explicit.push(format!(
                    "#{n} {}{} [{kind}, offset {}, {} B]",
                    a.name.map(|x| format!("{x}: ")).unwrap_or_default(),
                    ty.unwrap_or("?"),
                    a.offset,
                    a.size
                ));
            }
            if json_on {
                args_json.push(json!({
                    "name": a.name,
                    "type_name": a.type_name,
                    "type": ty,
                    "type_source": source,
                    "value_kind": kind,
                    "offset": a.offset,
                    "size": a.size,
                    "address_space": a.address_space.map(|s| format!("{s:?}").to_lowercase()),
                }));
            }
        }
        let spills = match (
            m.sgpr_spill_count.unwrap_or(0),
            m.vgpr_spill_count.unwrap_or(0),
        ) {
            (0, 0) => "no register spills".to_string(),
            (s, v) => format!("spills {s} SGPRs and {v} VGPRs to memory"),
        };
        let _ = writeln!(
            text,
            "      metadata: uses {} SGPRs, {} VGPRs{}; {spills}; max work-group size {}; uniform work-group size {}",
            m.sgpr_count,
            m.vgpr_count,
            m.agpr_count
                .map(|a| format!(", {a} AGPRs"))
                .unwrap_or_default(),
            m.max_flat_workgroup_size,
            match m.uniform_work_group_size {
                Some(1) => "required (the grid must be a multiple of the work-group)",
                Some(_) => "not required",
                None => "not stated",
            }
        );
        if explicit.is_empty() {
            let _ = writeln!(text, "      arguments: none");
        } else {
            let _ = writeln!(text, "      arguments:");
            for e in &explicit {
                let _ = writeln!(text, "        {e}");
            }
        }
        if !hidden.is_empty() {
            let _ = writeln!(text, "      hidden arguments: {}", hidden.join(" "));
        }
        if json_on {
            j["metadata"] = json!({
                "sgpr_count": m.sgpr_count,
                "vgpr_count": m.vgpr_count,
                "agpr_count": m.agpr_count,
                "sgpr_spill_count": m.sgpr_spill_count,
                "vgpr_spill_count": m.vgpr_spill_count,
                "max_flat_workgroup_size": m.max_flat_workgroup_size,
                "uniform_work_group_size": m.uniform_work_group_size,
                "kernarg_segment_size": m.kernarg_segment_size,
                "group_segment_fixed_size": m.group_segment_fixed_size,
                "private_segment_fixed_size": m.private_segment_fixed_size,
                "wavefront_size": m.wavefront_size,
                "args": args_json,
            });
        }
    }
    j
}

fn section_word(co: &CodeObject<'_>, s: &lathe_codeobj::Symbol<'_>) -> String {
    match s.section {
        SymbolSection::Index(i) => co.section(i).map(|x| x.name).unwrap_or("?").to_string(),
        SymbolSection::Undefined => "undefined".into(),
        SymbolSection::AmdgpuLds => "LDS".into(),
        SymbolSection::Absolute => "absolute".into(),
        SymbolSection::Common => "common".into(),
        _ => "special section".into(),
    }
}

/// Describes one code object into `sink`; `Ok(false)` when the kernel
/// filter matched nothing in it (nothing is written then).
fn describe_code_object(f: &Found<'_>, filter: &mut Filter<'_>, sink: &mut Sink) -> Result<bool> {
    let co = CodeObject::parse(f.bytes)
        .with_context(|| format!("{}: not a readable code object", f.origin))?;
    let syms = co
        .symbols()
        .with_context(|| format!("{}: symbols", f.origin))?;
    let only: Option<&str> = match filter.kernel {
        None => None,
        Some(p) => match names::resolve(p, syms.kernels().iter().map(|k| k.name), "kernel") {
            Ok(n) => {
                filter.matched.insert(n.to_string());
                Some(n)
            }
            Err(NameError::Missing { .. }) => {
                filter
                    .seen
                    .extend(syms.kernels().iter().map(|k| k.name.to_string()));
                return Ok(false);
            }
            Err(e) => return Err(anyhow::Error::new(e).context(f.origin.clone())),
        },
    };
    let json_on = sink.json;
    let mut text = String::new();
    let h = co.header();
    let target = co.target();
    let arch = co.kd_arch();
    let _ = writeln!(
        text,
        "  code object {}: {}, code object v{}, {} ({})",
        f.origin,
        target
            .map(|t| t.to_string())
            .unwrap_or_else(|| "unknown target".into()),
        h.code_object_version
            .map(|v| v.number().to_string())
            .unwrap_or_else(|| "?".into()),
        if h.e_type == lathe_codeobj::header::ET_REL {
            "relocatable"
        } else {
            "shared object"
        },
        human_size(f.bytes.len() as u64)
    );
    let mut kernels = Vec::new();
    for k in syms.kernels() {
        if only.is_some_and(|n| n != k.name) {
            continue;
        }
        kernels.push(kernel_json_and_text(
            k,
            arch,
            co.processor(),
            json_on,
            &mut text,
        ));
    }
    let sym_line = |kind: &str, s: &lathe_codeobj::Symbol<'_>| {
        let bind = match s.binding {
            0 => "local",
            1 => "global",
            2 => "weak",
            _ => "other",
        };
        let pretty = demangle(s.name)
            .map(|p| format!("  [{p}]"))
            .unwrap_or_default();
        let where_ = section_word(&co, s);
        (
            format!(
                "    {kind} {} at {:#x}, {} B, {bind}, {where_}{pretty}",
                s.name, s.value, s.size
            ),
            json!({"name": s.name, "demangled": demangle(s.name), "address": s.value, "size": s.size, "binding": bind, "section": where_}),
        )
    };
    let mut funcs = Vec::new();
    let mut vars = Vec::new();
    let mut undef = Vec::new();
    if only.is_none() {
        for s in syms.device_functions() {
            let (t, j) = sym_line("device function", s);
            let _ = writeln!(text, "{t}");
            funcs.push(j);
        }
        for s in syms.variables() {
            let (t, j) = sym_line("variable", s);
            let _ = writeln!(text, "{t}");
            vars.push(j);
        }
        for m in syms.managed_variables() {
            let _ = writeln!(
                text,
                "    managed variable {}: storage {} ({} B), pointer {}",
                m.name, m.storage.name, m.storage.size, m.pointer.name
            );
        }
        for s in syms.undefined() {
            let _ = writeln!(
                text,
                "    undefined {}{}",
                s.name,
                if s.referenced_by_relocations {
                    " (referenced by relocations)"
                } else {
                    ""
                }
            );
            undef.push(json!({"name": s.name, "referenced": s.referenced_by_relocations}));
        }
    }
    let report = lathe_codeobj::check::check_symbols(&co, &syms);
    let warnings: Vec<String> = report
        .warnings
        .iter()
        .filter(|w| only.is_none_or(|n| w.kernel() == n))
        .map(|w| w.to_string())
        .collect();
    if warnings.is_empty() {
        let _ = writeln!(
            text,
            "    check: {} kernel(s), descriptors agree with metadata",
            if only.is_some() { 1 } else { report.kernels }
        );
    } else {
        for w in &warnings {
            let _ = writeln!(text, "    check warning: {w}");
        }
    }
    sink.text(&text)?;
    if json_on {
        let relocs = co.relocations().map(|r| r.len()).unwrap_or(0);
        sink.object(&json!({
            "origin": f.origin_json,
            "target": target.map(|t| t.to_string()),
            "code_object_version": h.code_object_version.map(|v| v.number()),
            "e_flags": format!("{:#x}", h.e_flags),
            "size": f.bytes.len(),
            "kernels": kernels,
            "device_functions": funcs,
            "variables": vars,
            "managed_variables": syms.managed_variables().iter().map(|m| m.name).collect::<Vec<_>>(),
            "undefined": undef,
            "relocations": relocs,
            "check_warnings": warnings,
            "symbols_by_kind": {
                "kernel": syms.of_kind(SymbolKind::Kernel).count(),
                "device_function": syms.device_functions().count(),
                "variable": syms.variables().count(),
                "undefined": syms.undefined().count(),
            },
        }))?;
    } else {
        sink.objects += 1;
    }
    Ok(true)
}

/// Whether a bare code object with target `code` suits the `--target`s.
fn code_object_selected(code: Option<TargetId>, targets: &[TargetId], policy: Policy) -> bool {
    if targets.is_empty() {
        return true;
    }
    let Some(code) = code else { return false };
    targets.iter().any(|t| match policy {
        Policy::Exact => code == *t,
        Policy::Extended => lathe_loader::compatible(&code, t, true).is_ok(),
        _ => lathe_loader::compatible(&code, t, false).is_ok(),
    })
}

/// `lathe info [FILE]`.
pub fn run(ctx: &Ctx, a: InfoArgs) -> Result<()> {
    if a.policy.is_some() && a.target.is_empty() {
        anyhow::bail!("--policy needs --target (it chooses among code objects for a target)");
    }
    let policy: Policy = a.policy.unwrap_or(crate::PolicyArg::Clang).into();
    let input = Input::open_or_demo(a.file.as_deref())?;
    crate::input::ensure_known(&input)?;
    let limits = Limits::default();
    let targets: Vec<TargetId> = parse_targets(&a.target)?;
    let d = discover_file(&input, &limits)?;
    let mut sink = Sink {
        json: ctx.json,
        out: BufWriter::with_capacity(1 << 16, std::io::stdout()),
        objects: 0,
        prefix: None,
    };
    let mut filter = Filter {
        kernel: a.kernel.as_deref(),
        seen: BTreeSet::new(),
        matched: BTreeSet::new(),
    };
    sink.text(&format!(
        "{}: {} ({})\n",
        input.name(),
        kind_word(d.kind),
        human_size(input.bytes().len() as u64)
    ))?;
    if sink.json {
        sink.prefix = Some(format!(
            "{{\n\"file\": {},\n\"kind\": \"{}\",\n\"size\": {},\n\"code_objects\": [\n",
            json!(input.name()),
            kind_key(d.kind),
            input.bytes().len()
        ));
    }
    let mut skipped_targets: BTreeSet<String> = BTreeSet::new();
    if d.kind == FileKind::CodeObject {
        let co = CodeObject::parse(input.bytes())
            .with_context(|| format!("{}: not a readable code object", input.name()))?;
        if code_object_selected(co.target(), &targets, policy) {
            let f = Found {
                origin: input.name(),
                origin_json: json!(null),
                bytes: input.bytes(),
            };
            describe_code_object(&f, &mut filter, &mut sink)?;
        } else if let Some(t) = co.target() {
            skipped_targets.insert(t.to_string());
        }
    }
    let mut bundles_json = Vec::new();
    let bar = byte_bar(ctx, d.total_bundle_bytes(), "reading bundles");
    for b in &d.bundles {
        let opened = b.open(&limits)?;
        let bundle = opened.bundle(&limits).map_err(|e| b.wrap(e))?;
        let compressed = match b.storage {
            Storage::Compressed(h) => format!(", CCOB v{} {}", h.version, h.method),
            _ => String::new(),
        };
        if filter.kernel.is_none() {
            sink.text(&format!(
                "bundle {} at file offset {:#x}{}: {} entries{}\n",
                b.index,
                b.file_offset,
                b.section
                    .as_ref()
                    .map(|s| format!(" in {}", s.name))
                    .unwrap_or_default(),
                bundle.entries().len(),
                compressed
            ))?;
        }
        if sink.json {
            bundles_json.push(json!({
                "index": b.index,
                "file_offset": b.file_offset,
                "entries": bundle.entries().iter().map(|e| e.id.to_string_lossy()).collect::<Vec<_>>(),
            }));
        }
        let chosen: Vec<usize> = if targets.is_empty() {
            bundle
                .entries()
                .iter()
                .filter(|e| !e.id.is_host() && !e.data.is_empty())
                .map(|e| e.index)
                .collect()
        } else {
            for e in bundle.entries() {
                if let Some(t) = e.id.target_str() {
                    skipped_targets.insert(t.to_string());
                }
            }
            targets
                .iter()
                .filter_map(|t| select(bundle.entries(), t, policy).chosen)
                .collect()
        };
        for e in bundle
            .entries()
            .iter()
            .filter(|e| chosen.contains(&e.index))
        {
            let id = e.id.to_string_lossy();
            let f = Found {
                origin: format!("bundle {} entry {} ({id})", b.index, e.index),
                origin_json: json!({"bundle": b.index, "entry": e.index, "id": id}),
                bytes: e.data,
            };
            if e.data.starts_with(b"BC") || e.data.starts_with(&[0xde, 0xc0, 0x17, 0x0b]) {
                if filter.kernel.is_none() {
                    sink.text(&format!(
                        "  entry {} ({id}): LLVM bitcode, {}\n",
                        e.index,
                        human_size(e.data.len() as u64)
                    ))?;
                }
                continue;
            }
            if lathe_codeobj::spirv::is_spirv(e.data) {
                if filter.kernel.is_none() {
                    let mut t = String::new();
                    let j = crate::spirv_info::describe(
                        &f.origin,
                        f.origin_json.clone(),
                        e.data,
                        &mut t,
                    );
                    sink.text(&t)?;
                    sink.object(&j)?;
                }
                continue;
            }
            if let Err(err) = describe_code_object(&f, &mut filter, &mut sink) {
                if err.downcast_ref::<NameError>().is_some() {
                    return Err(err);
                }
                sink.text(&format!("  {}: error: {err:#}\n", f.origin))?;
                sink.object(&json!({"origin": f.origin_json, "error": format!("{err:#}")}))?;
            }
        }
        bar.inc(b.size());
    }
    bar.finish_and_clear();
    if let Some(p) = filter.kernel {
        if filter.matched.is_empty() {
            let e = names::resolve(p, filter.seen.iter().map(String::as_str), "kernel")
                .err()
                .unwrap_or(NameError::Missing {
                    what: "kernel".into(),
                    pattern: p.into(),
                    candidates: Vec::new(),
                    more: 0,
                });
            return Err(anyhow::Error::new(e).context(input.name()));
        }
    }
    if sink.objects == 0 && !targets.is_empty() {
        let list: Vec<String> = skipped_targets.into_iter().collect();
        anyhow::bail!(
            "{}: no code object for {} (code objects exist for {})",
            input.name(),
            a.target.join(", "),
            if list.is_empty() {
                "no target".into()
            } else {
                list.join(", ")
            }
        );
    }
    let mut host_json = Value::Null;
    if d.kind == FileKind::HostElf {
        let mut text = String::new();
        match lathe_codeobj::host::analyze_with(input.bytes(), &limits) {
            Ok(h) => {
                let shown = |name: &str| filter.kernel.is_none() || filter.matched.contains(name);
                let image_ok = |im: &lathe_codeobj::host::DeviceImage| {
                    targets.is_empty() || code_object_selected(im.target, &targets, policy)
                };
                let maps: Vec<&lathe_codeobj::host::HandleMapping> = h
                    .mappings
                    .iter()
                    .filter(|m| shown(&m.handle.name))
                    .collect();
                let _ = writeln!(text, "host kernel handles ({}):", maps.len());
                for m in &maps {
                    let places: Vec<String> = m
                        .images
                        .iter()
                        .filter_map(|&i| h.images.get(i))
                        .filter(|im| image_ok(im))
                        .map(|im| {
                            format!(
                                "{} (bundle {} entry {})",
                                im.target
                                    .map(|t| t.to_string())
                                    .unwrap_or_else(|| im.id.clone()),
                                im.bundle,
                                im.entry
                            )
                        })
                        .collect();
                    let missing: Vec<String> = m
                        .missing_in
                        .iter()
                        .filter_map(|&i| h.images.get(i))
                        .filter(|im| image_ok(im))
                        .map(|im| {
                            im.target
                                .map(|t| t.to_string())
                                .unwrap_or_else(|| im.id.clone())
                        })
                        .collect();
                    let _ = writeln!(
                        text,
                        "  {} at {:#x}{} -> {}{}",
                        m.handle.name,
                        m.handle.address,
                        m.stub
                            .as_deref()
                            .map(|s| format!(" (stub {s})"))
                            .unwrap_or_default(),
                        if places.is_empty() {
                            "no device kernel".to_string()
                        } else {
                            places.join(", ")
                        },
                        if missing.is_empty() {
                            String::new()
                        } else {
                            format!("; not built for {}", missing.join(", "))
                        }
                    );
                }
                if filter.kernel.is_none() {
                    for u in &h.unmatched_handles {
                        let _ = writeln!(text, "  unmatched handle {}", u.name);
                    }
                }
                if sink.json {
                    let image = |i: &usize| {
                        h.images.get(*i).map(|im| {
                            json!({
                                "image": i,
                                "bundle": im.bundle, "entry": im.entry, "id": im.id,
                                "target": im.target.map(|t| t.to_string()),
                            })
                        })
                    };
                    host_json = json!({
                        "mappings": maps.iter().map(|m| json!({
                            "handle": m.handle.name,
                            "address": m.handle.address,
                            "stub": m.stub,
                            "images": m.images.iter().filter_map(image).collect::<Vec<_>>(),
                            "missing_in": m.missing_in.iter().filter_map(image).collect::<Vec<_>>(),
                        })).collect::<Vec<_>>(),
                        "stubs": h.stubs.iter().map(|s| json!({"stub": s.symbol.name, "kernel": s.kernel})).collect::<Vec<_>>(),
                        "unmatched_handles": h.unmatched_handles.iter().map(|u| u.name.clone()).collect::<Vec<_>>(),
                        "unmatched_kernels": h.unmatched_kernels.iter().map(|(i, k)| json!({"image": i, "kernel": k})).collect::<Vec<_>>(),
                    });
                }
            }
            Err(e) => {
                let _ = writeln!(text, "host kernel handles: error: {e}");
                host_json = json!({"error": e.to_string()});
            }
        }
        sink.text(&text)?;
    }
    let mut text = String::new();
    for p in &d.problems {
        let _ = writeln!(text, "problem: {p}");
    }
    sink.text(&text)?;
    if sink.json {
        sink.raw(&format!(
            "\n],\n\"bundles\": {},\n\"host\": {},\n\"problems\": {}\n}}\n",
            serde_json::to_string_pretty(&bundles_json)?,
            serde_json::to_string_pretty(&host_json)?,
            serde_json::to_string_pretty(
                &d.problems.iter().map(|p| p.to_string()).collect::<Vec<_>>()
            )?
        ))?;
    }
    sink.out.flush().map_err(stdout_err)
}

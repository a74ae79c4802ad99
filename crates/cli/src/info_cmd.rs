//! `lathe info`: a readable (or JSON) summary of a code object, bundle or
//! HIP host binary.

use std::fmt::Write as _;

use anyhow::{Context, Result};
use lathe_bundle::host::Storage;
use lathe_bundle::{select, FileKind, Limits, TargetId};
use lathe_codeobj::kd::SgprRole;
use lathe_codeobj::{CodeObject, KdArch, Kernel, SymbolKind, SymbolSection};
use serde_json::{json, Value};

use crate::bundle_cmd::{discover_file, parse_targets};
use crate::input::Input;
use crate::output::{byte_bar, human_size, print, print_json, Ctx};
use crate::InfoArgs;

/// A readable name for a (possibly mangled) symbol.
pub fn demangle(name: &str) -> Option<String> {
    let sym = cpp_demangle::Symbol::new(name).ok()?;
    let s = sym
        .demangle(&cpp_demangle::DemangleOptions::default())
        .ok()?;
    (s != name).then_some(s)
}

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

fn kernel_json_and_text(k: &Kernel<'_>, arch: Option<KdArch>, text: &mut String) -> Value {
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
    let mut j = json!({
        "name": k.name,
        "demangled": pretty,
        "entry": k.entry,
        "code_size": k.code.map(|c| c.size),
    });
    match (&k.descriptor, arch) {
        (Ok(kd), Some(arch)) => {
            let props = kd.properties();
            let r2 = kd.rsrc2(arch);
            let sgprs: Vec<Value> = kd
                .initial_sgprs(arch)
                .iter()
                .map(|s| json!({"role": sgpr_role(s.role), "first": s.first, "count": s.count, "user": s.user}))
                .collect();
            let sgpr_text: Vec<String> = kd
                .initial_sgprs(arch)
                .iter()
                .map(|s| format!("{}={}", sgpr_range(s.first, s.count), sgpr_role(s.role)))
                .collect();
            let vgpr_ids = match r2.enable_vgpr_workitem_id {
                0 => "x",
                1 => "x,y",
                _ => "x,y,z",
            };
            let _ = writeln!(
                text,
                "      entry {}, wave{}, vgprs {}{}, sgprs {}, lds {} B, scratch {} B/lane, kernarg {} B",
                k.entry.map(|e| format!("{e:#x}")).unwrap_or_else(|| "?".into()),
                kd.wavefront_size(arch),
                kd.allocated_vgprs(arch),
                kd.accum_offset(arch)
                    .map(|a| format!(" (agprs from v{a})"))
                    .unwrap_or_default(),
                kd.allocated_sgprs(arch)
                    .map(|s| s.to_string())
                    .unwrap_or_else(|| "n/a".into()),
                kd.group_segment_fixed_size,
                kd.private_segment_fixed_size,
                kd.kernarg_size
            );
            let _ = writeln!(
                text,
                "      initial SGPRs: {} ; workitem IDs in VGPRs: {}{}",
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
                "allocated_vgprs": kd.allocated_vgprs(arch),
                "allocated_sgprs": kd.allocated_sgprs(arch),
                "accum_offset": kd.accum_offset(arch),
                "initial_sgprs": sgprs,
                "workitem_id_vgprs": r2.enable_vgpr_workitem_id + 1,
                "uses_dynamic_stack": props.uses_dynamic_stack,
            });
        }
        (Err(e), _) => {
            let _ = writeln!(text, "      descriptor: error: {e}");
            j["descriptor_error"] = json!(e.to_string());
        }
        (Ok(_), None) => {
            let _ = writeln!(text, "      descriptor: unknown processor, not decoded");
        }
    }
    if let Some(m) = &k.metadata {
        let mut explicit = Vec::new();
        let mut hidden = Vec::new();
        let mut args_json = Vec::new();
        for a in &m.args {
            let kind = a.value_kind.as_str();
            let desc = format!(
                "{}{}@{}:{}",
                a.name.map(|n| format!("{n} ")).unwrap_or_default(),
                a.type_name
                    .map(|t| format!("({t}) "))
                    .unwrap_or_else(|| format!("<{kind}> ")),
                a.offset,
                a.size
            );
            if a.value_kind.is_hidden() {
                hidden.push(kind.trim_start_matches("hidden_").to_string());
            } else {
                explicit.push(desc);
            }
            args_json.push(json!({
                "name": a.name,
                "type_name": a.type_name,
                "value_kind": kind,
                "offset": a.offset,
                "size": a.size,
                "address_space": a.address_space.map(|s| format!("{s:?}").to_lowercase()),
            }));
        }
        let _ = writeln!(
            text,
            "      metadata: sgpr {} vgpr {}{} spills s{}/v{}, max workgroup {}",
            m.sgpr_count,
            m.vgpr_count,
            m.agpr_count
                .map(|a| format!(" agpr {a}"))
                .unwrap_or_default(),
            m.sgpr_spill_count.unwrap_or(0),
            m.vgpr_spill_count.unwrap_or(0),
            m.max_flat_workgroup_size
        );
        let _ = writeln!(
            text,
            "      args: {}",
            if explicit.is_empty() {
                "none".to_string()
            } else {
                explicit.join(", ")
            }
        );
        if !hidden.is_empty() {
            let _ = writeln!(text, "      hidden args: {}", hidden.join(" "));
        }
        j["metadata"] = json!({
            "sgpr_count": m.sgpr_count,
            "vgpr_count": m.vgpr_count,
            "agpr_count": m.agpr_count,
            "sgpr_spill_count": m.sgpr_spill_count,
            "vgpr_spill_count": m.vgpr_spill_count,
            "max_flat_workgroup_size": m.max_flat_workgroup_size,
            "kernarg_segment_size": m.kernarg_segment_size,
            "group_segment_fixed_size": m.group_segment_fixed_size,
            "private_segment_fixed_size": m.private_segment_fixed_size,
            "wavefront_size": m.wavefront_size,
            "args": args_json,
        });
    }
    j
}

fn describe_code_object(f: &Found<'_>, text: &mut String) -> Result<Value> {
    let co = CodeObject::parse(f.bytes)
        .with_context(|| format!("{}: not a readable code object", f.origin))?;
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
    let syms = co
        .symbols()
        .with_context(|| format!("{}: symbols", f.origin))?;
    let mut kernels = Vec::new();
    for k in syms.kernels() {
        kernels.push(kernel_json_and_text(k, arch, text));
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
        let where_ = match s.section {
            SymbolSection::Index(i) => co.section(i).map(|x| x.name).unwrap_or("?").to_string(),
            SymbolSection::Undefined => "undefined".into(),
            SymbolSection::AmdgpuLds => "LDS".into(),
            other => format!("{other:?}"),
        };
        (
            format!(
                "    {kind} {} at {:#x}, {} B, {bind}, {where_}{pretty}",
                s.name, s.value, s.size
            ),
            json!({"name": s.name, "demangled": demangle(s.name), "address": s.value, "size": s.size, "binding": bind, "section": where_}),
        )
    };
    let mut funcs = Vec::new();
    for s in syms.device_functions() {
        let (t, j) = sym_line("device function", s);
        let _ = writeln!(text, "{t}");
        funcs.push(j);
    }
    let mut vars = Vec::new();
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
    let mut undef = Vec::new();
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
    let report = co
        .check()
        .with_context(|| format!("{}: descriptor check", f.origin))?;
    let warnings: Vec<String> = report.warnings.iter().map(|w| format!("{w:?}")).collect();
    if warnings.is_empty() {
        let _ = writeln!(
            text,
            "    check: {} kernel(s), descriptors agree with metadata",
            report.kernels
        );
    } else {
        for w in &warnings {
            let _ = writeln!(text, "    check warning: {w}");
        }
    }
    let relocs = co.relocations().map(|r| r.len()).unwrap_or(0);
    Ok(json!({
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
    }))
}

/// `lathe info [FILE]`.
pub fn run(ctx: &Ctx, a: InfoArgs) -> Result<()> {
    let input = Input::open_or_demo(a.file.as_deref())?;
    let limits = Limits::default();
    let targets: Vec<TargetId> = parse_targets(a.target.as_slice())?;
    let d = discover_file(&input, &limits)?;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{}: {} ({})",
        input.name(),
        match d.kind {
            FileKind::Bundle => "offload bundle",
            FileKind::Compressed => "compressed offload bundle (CCOB)",
            FileKind::CodeObject => "AMDGPU code object",
            FileKind::HostElf => "host ELF",
            _ => "unrecognised file",
        },
        human_size(input.bytes().len() as u64)
    );
    if d.kind == FileKind::Unknown {
        anyhow::bail!(
            "{}: not an ELF file, offload bundle or CCOB (first bytes {:02x?})",
            input.name(),
            &input.bytes()[..input.bytes().len().min(8)]
        );
    }
    let mut objects = Vec::new();
    let mut bundles_json = Vec::new();
    if d.kind == FileKind::CodeObject {
        let f = Found {
            origin: "(file)".into(),
            origin_json: json!(null),
            bytes: input.bytes(),
        };
        objects.push(describe_code_object(&f, &mut text)?);
    }
    let bar = byte_bar(ctx, d.total_bundle_bytes(), "reading bundles");
    for b in &d.bundles {
        let opened = b.open(&limits)?;
        let bundle = opened.bundle(&limits).map_err(|e| b.wrap(e))?;
        let compressed = match b.storage {
            Storage::Compressed(h) => format!(", CCOB v{} {}", h.version, h.method),
            _ => String::new(),
        };
        let _ = writeln!(
            text,
            "bundle {} at {:#x}{}: {} entries{}",
            b.index,
            b.file_offset,
            b.section
                .as_ref()
                .map(|s| format!(" in {}", s.name))
                .unwrap_or_default(),
            bundle.entries().len(),
            compressed
        );
        bundles_json.push(json!({
            "index": b.index,
            "file_offset": b.file_offset,
            "entries": bundle.entries().iter().map(|e| e.id.to_string_lossy()).collect::<Vec<_>>(),
        }));
        let chosen: Vec<usize> = if targets.is_empty() {
            bundle
                .entries()
                .iter()
                .filter(|e| !e.id.is_host() && !e.data.is_empty())
                .map(|e| e.index)
                .collect()
        } else {
            targets
                .iter()
                .filter_map(|t| select(bundle.entries(), t, a.policy.into()).chosen)
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
                let _ = writeln!(
                    text,
                    "  entry {} ({id}): LLVM bitcode, {}",
                    e.index,
                    human_size(e.data.len() as u64)
                );
                continue;
            }
            if lathe_codeobj::spirv::is_spirv(e.data) {
                let j = crate::spirv_info::describe(&f.origin, f.origin_json, e.data, &mut text);
                objects.push(j);
                continue;
            }
            match describe_code_object(&f, &mut text) {
                Ok(j) => objects.push(j),
                Err(err) => {
                    let _ = writeln!(text, "  {}: error: {err:#}", f.origin);
                    objects.push(json!({"origin": f.origin_json, "error": format!("{err:#}")}));
                }
            }
        }
        bar.inc(b.size());
    }
    bar.finish_and_clear();
    let mut host_json = Value::Null;
    if d.kind == FileKind::HostElf {
        match lathe_codeobj::host::analyze_with(input.bytes(), &limits) {
            Ok(h) => {
                let _ = writeln!(text, "host kernel handles ({}):", h.mappings.len());
                for m in &h.mappings {
                    let places: Vec<String> = m
                        .images
                        .iter()
                        .filter_map(|&i| h.images.get(i))
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
                        if m.missing_in.is_empty() {
                            String::new()
                        } else {
                            format!("; missing in {} image(s)", m.missing_in.len())
                        }
                    );
                }
                for u in &h.unmatched_handles {
                    let _ = writeln!(text, "  unmatched handle {}", u.name);
                }
                host_json = json!({
                    "mappings": h.mappings.iter().map(|m| json!({
                        "handle": m.handle.name,
                        "address": m.handle.address,
                        "stub": m.stub,
                        "images": m.images.iter().filter_map(|&i| h.images.get(i)).map(|im| json!({
                            "bundle": im.bundle, "entry": im.entry, "id": im.id,
                            "target": im.target.map(|t| t.to_string()),
                        })).collect::<Vec<_>>(),
                        "missing_in": m.missing_in,
                    })).collect::<Vec<_>>(),
                    "stubs": h.stubs.iter().map(|s| json!({"stub": s.symbol.name, "kernel": s.kernel})).collect::<Vec<_>>(),
                    "unmatched_handles": h.unmatched_handles.iter().map(|u| u.name.clone()).collect::<Vec<_>>(),
                    "unmatched_kernels": h.unmatched_kernels,
                });
            }
            Err(e) => {
                let _ = writeln!(text, "host kernel handles: error: {e}");
                host_json = json!({"error": e.to_string()});
            }
        }
    }
    for p in &d.problems {
        let _ = writeln!(text, "problem: {p}");
    }
    if ctx.json {
        print_json(&json!({
            "file": input.name(),
            "kind": format!("{:?}", d.kind),
            "size": input.bytes().len(),
            "bundles": bundles_json,
            "code_objects": objects,
            "host": host_json,
            "problems": d.problems.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
        }))
    } else {
        print(&text)
    }
}

//! Compares lathe-codeobj against the LLVM 22 tools on code objects built
//! from the HIP corpus with clang-22: header/e_flags (`llvm-readelf -h`),
//! sections (`-S`), program headers (`-l`), both symbol tables (`-s`),
//! relocations (`-r`), the metadata tree (`--notes`, YAML) and every kernel
//! descriptor field (`llvm-objdump --disassemble-symbols=<k>.kd`).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use common::*;
use lathe_codeobj::elf::{SymbolSection, SHT_NOBITS};
use lathe_codeobj::kd::Rsrc3;
use lathe_codeobj::{CodeObject, FeatureFlag, SymbolKind, SymbolTableKind};
use lathe_testkit::{Build, Output};

fn cases() -> &'static [(Case, Vec<u8>)] {
    static C: OnceLock<Vec<(Case, Vec<u8>)>> = OnceLock::new();
    C.get_or_init(|| {
        corpus_cases()
            .into_iter()
            .map(|c| {
                let bytes = std::fs::read(&c.path).expect("read code object");
                (c, bytes)
            })
            .collect()
    })
}

fn field<'t>(text: &'t str, key: &str) -> &'t str {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(key).map(str::trim))
        .unwrap_or_else(|| panic!("no `{key}` in readelf output"))
}

#[test]
fn header_matches_readelf() {
    for (case, bytes) in cases() {
        header_one(case, bytes);
    }
}

#[test]
fn sections_and_segments_match_readelf() {
    for (case, bytes) in cases() {
        let co = CodeObject::parse(bytes).expect("parse");
        let text = readelf(&["-S", "--wide"], &case.path);
        let mut rows = 0;
        for l in text.lines() {
            let l = l.trim_start();
            let Some(rest) = l.strip_prefix('[') else {
                continue;
            };
            let Some((num, rest)) = rest.split_once(']') else {
                continue;
            };
            let Ok(num) = num.trim().parse::<usize>() else {
                continue;
            };
            let f: Vec<&str> = rest.split_whitespace().collect();
            // Section 0 has an empty name.
            let f = if num == 0 {
                [&[""][..], &f[..]].concat()
            } else {
                f
            };
            let s = co.section(num).expect("section index");
            assert_eq!(s.name, f[0], "{}: section {num} name", case.label);
            let hex = |x: &str| u64::from_str_radix(x, 16).expect("hex");
            assert_eq!(s.address, hex(f[2]), "{} {}", case.label, s.name);
            assert_eq!(s.offset, hex(f[3]), "{} {}", case.label, s.name);
            assert_eq!(s.size, hex(f[4]), "{} {}", case.label, s.name);
            assert_eq!(s.entsize, hex(f[5]), "{} {}", case.label, s.name);
            // Flags may be empty, so read link/info/align from the end.
            let n = f.len();
            assert_eq!(s.link.to_string(), f[n - 3], "{} {}", case.label, s.name);
            assert_eq!(s.info.to_string(), f[n - 2], "{} {}", case.label, s.name);
            assert_eq!(s.align.to_string(), f[n - 1], "{} {}", case.label, s.name);
            assert_eq!(f[1] == "NOBITS", s.sh_type == SHT_NOBITS, "{}", case.label);
            assert_eq!(f[1] == "NOTE", s.sh_type == 7, "{}", case.label);
            rows += 1;
        }
        assert_eq!(rows, co.sections().len(), "{}", case.label);

        let text = readelf(&["-l", "--wide"], &case.path);
        let mut segs = Vec::new();
        let mut inside = false;
        for l in text.lines() {
            if l.trim_start().starts_with("Type ") {
                inside = true;
                continue;
            }
            if inside {
                if l.trim().is_empty() {
                    break;
                }
                segs.push(l.trim().to_string());
            }
        }
        assert_eq!(segs.len(), co.segments().len(), "{}", case.label);
        for (row, s) in segs.iter().zip(co.segments()) {
            let f: Vec<&str> = row.split_whitespace().collect();
            let ty = match s.p_type {
                1 => "LOAD",
                2 => "DYNAMIC",
                4 => "NOTE",
                6 => "PHDR",
                0x6474_e551 => "GNU_STACK",
                0x6474_e552 => "GNU_RELRO",
                _ => "?",
            };
            assert_eq!(f[0], ty, "{}", case.label);
            let hex = |x: &str| u64::from_str_radix(x.trim_start_matches("0x"), 16).expect("hex");
            assert_eq!(
                [hex(f[1]), hex(f[2]), hex(f[3]), hex(f[4]), hex(f[5])],
                [s.offset, s.vaddr, s.paddr, s.filesz, s.memsz],
                "{}: {row}",
                case.label
            );
            let flg: String = f[6..f.len() - 1].concat();
            let mut mine = String::new();
            if s.flags & 4 != 0 {
                mine.push('R');
            }
            if s.flags & 2 != 0 {
                mine.push('W');
            }
            if s.flags & 1 != 0 {
                mine.push('E');
            }
            assert_eq!(flg, mine, "{}: {row}", case.label);
            assert_eq!(hex(f[f.len() - 1]), s.align, "{}: {row}", case.label);
        }
    }
}

fn type_name(t: u8) -> &'static str {
    match t {
        0 => "NOTYPE",
        1 => "OBJECT",
        2 => "FUNC",
        3 => "SECTION",
        4 => "FILE",
        5 => "COMMON",
        6 => "TLS",
        10 => "AMDGPU_HSA_KERNEL",
        _ => "?",
    }
}

#[test]
fn symbols_match_readelf() {
    let total: usize = cases().iter().map(|(c, b)| symbols_one(c, b)).sum();
    assert!(total > 500, "compared only {total} symbols");
}

#[test]
fn relocations_match_readelf() {
    let total: usize = cases().iter().map(|(c, b)| relocations_one(c, b)).sum();
    assert!(total >= 8, "compared only {total} relocations");
}

#[test]
fn metadata_tree_matches_readelf_notes() {
    for (case, bytes) in cases() {
        metadata_one(case, bytes);
    }
}

/// Expected objdump value for one `.amdhsa_*` directive or `; NAME` comment.
fn kd_directive(
    co: &CodeObject<'_>,
    d: &lathe_codeobj::KernelDescriptor,
    name: &str,
) -> Option<i64> {
    let arch = co.kd_arch().expect("arch");
    let r1 = d.rsrc1(arch);
    let r2 = d.rsrc2(arch);
    let r3 = d.rsrc3(arch);
    let p = d.properties();
    let pl = d.preload();
    let b = |x: bool| i64::from(x);
    let o = |x: Option<bool>| x.map(i64::from);
    Some(match name {
        ".amdhsa_group_segment_fixed_size" => i64::from(d.group_segment_fixed_size),
        ".amdhsa_private_segment_fixed_size" => i64::from(d.private_segment_fixed_size),
        ".amdhsa_kernarg_size" => i64::from(d.kernarg_size),
        ".amdhsa_accum_offset" => i64::from(d.accum_offset(arch)?),
        ".amdhsa_tg_split" => match r3 {
            Rsrc3::Gfx90a { tg_split, .. } => b(tg_split),
            _ => return None,
        },
        ".amdhsa_shared_vgpr_count" | "SHARED_VGPR_COUNT" => match r3 {
            Rsrc3::Gfx10 { shared_vgpr_count }
            | Rsrc3::Gfx11 {
                shared_vgpr_count, ..
            } => i64::from(shared_vgpr_count),
            _ => return None,
        },
        ".amdhsa_inst_pref_size" | "INST_PREF_SIZE" => match r3 {
            Rsrc3::Gfx11 { inst_pref_size, .. } | Rsrc3::Gfx12 { inst_pref_size, .. } => {
                i64::from(inst_pref_size)
            }
            _ => return None,
        },
        "TRAP_ON_START" => match r3 {
            Rsrc3::Gfx11 { trap_on_start, .. } => b(trap_on_start),
            _ => return None,
        },
        "TRAP_ON_END" => match r3 {
            Rsrc3::Gfx11 { trap_on_end, .. } => b(trap_on_end),
            _ => return None,
        },
        "IMAGE_OP" => match r3 {
            Rsrc3::Gfx11 { image_op, .. } | Rsrc3::Gfx12 { image_op, .. } => b(image_op),
            _ => return None,
        },
        "GLG_EN" => match r3 {
            Rsrc3::Gfx12 { glg_en, .. } => b(glg_en),
            _ => return None,
        },
        ".amdhsa_next_free_vgpr" => i64::from(d.allocated_vgprs(arch)),
        ".amdhsa_next_free_sgpr" => i64::from((r1.granulated_wavefront_sgpr_count + 1) * 8),
        // The disassembler cannot recover these and always prints 0.
        ".amdhsa_reserve_vcc" | ".amdhsa_reserve_flat_scratch" | ".amdhsa_reserve_xnack_mask" => 0,
        ".amdhsa_float_round_mode_32" => i64::from(r1.float_round_mode_32),
        ".amdhsa_float_round_mode_16_64" => i64::from(r1.float_round_mode_16_64),
        ".amdhsa_float_denorm_mode_32" => i64::from(r1.float_denorm_mode_32),
        ".amdhsa_float_denorm_mode_16_64" => i64::from(r1.float_denorm_mode_16_64),
        ".amdhsa_dx10_clamp" => o(r1.enable_dx10_clamp)?,
        ".amdhsa_ieee_mode" => o(r1.enable_ieee_mode)?,
        ".amdhsa_fp16_overflow" => o(r1.fp16_ovfl)?,
        ".amdhsa_workgroup_processor_mode" => o(r1.wgp_mode)?,
        ".amdhsa_memory_ordered" => o(r1.mem_ordered)?,
        ".amdhsa_forward_progress" => o(r1.fwd_progress)?,
        ".amdhsa_round_robin_scheduling" => o(r1.enable_wg_rr_en)?,
        ".amdhsa_enable_private_segment" => {
            assert!(
                arch.architected_flat_scratch,
                "{name} needs architected flat scratch"
            );
            b(r2.enable_private_segment)
        }
        ".amdhsa_system_sgpr_private_segment_wavefront_offset" => {
            assert!(
                !arch.architected_flat_scratch,
                "{name} without architected flat scratch"
            );
            b(r2.enable_private_segment)
        }
        ".amdhsa_system_sgpr_workgroup_id_x" => b(r2.enable_sgpr_workgroup_id_x),
        ".amdhsa_system_sgpr_workgroup_id_y" => b(r2.enable_sgpr_workgroup_id_y),
        ".amdhsa_system_sgpr_workgroup_id_z" => b(r2.enable_sgpr_workgroup_id_z),
        ".amdhsa_system_sgpr_workgroup_info" => b(r2.enable_sgpr_workgroup_info),
        ".amdhsa_system_vgpr_workitem_id" => i64::from(r2.enable_vgpr_workitem_id),
        ".amdhsa_exception_fp_ieee_invalid_op" => {
            b(r2.enable_exception_ieee_754_fp_invalid_operation)
        }
        ".amdhsa_exception_fp_denorm_src" => b(r2.enable_exception_fp_denormal_source),
        ".amdhsa_exception_fp_ieee_div_zero" => b(r2.enable_exception_ieee_754_fp_division_by_zero),
        ".amdhsa_exception_fp_ieee_overflow" => b(r2.enable_exception_ieee_754_fp_overflow),
        ".amdhsa_exception_fp_ieee_underflow" => b(r2.enable_exception_ieee_754_fp_underflow),
        ".amdhsa_exception_fp_ieee_inexact" => b(r2.enable_exception_ieee_754_fp_inexact),
        ".amdhsa_exception_int_div_zero" => b(r2.enable_exception_int_divide_by_zero),
        ".amdhsa_user_sgpr_private_segment_buffer" => b(p.enable_sgpr_private_segment_buffer),
        ".amdhsa_user_sgpr_dispatch_ptr" => b(p.enable_sgpr_dispatch_ptr),
        ".amdhsa_user_sgpr_queue_ptr" => b(p.enable_sgpr_queue_ptr),
        ".amdhsa_user_sgpr_kernarg_segment_ptr" => b(p.enable_sgpr_kernarg_segment_ptr),
        ".amdhsa_user_sgpr_dispatch_id" => b(p.enable_sgpr_dispatch_id),
        ".amdhsa_user_sgpr_flat_scratch_init" => b(p.enable_sgpr_flat_scratch_init),
        ".amdhsa_user_sgpr_private_segment_size" => b(p.enable_sgpr_private_segment_size),
        ".amdhsa_wavefront_size32" => b(p.enable_wavefront_size32),
        ".amdhsa_uses_dynamic_stack" => b(p.uses_dynamic_stack),
        ".amdhsa_user_sgpr_kernarg_preload_length" => i64::from(pl.length),
        ".amdhsa_user_sgpr_kernarg_preload_offset" => i64::from(pl.offset),
        _ => return None,
    })
}

#[test]
fn kernel_descriptors_match_objdump() {
    let mut fields = 0;
    let mut kernels = 0;
    let mut skipped = 0;
    let mut seen = BTreeSet::new();
    for (case, bytes) in cases() {
        let (f, k, s) = kds_one(case, bytes, &mut seen);
        fields += f;
        kernels += k;
        skipped += s;
    }
    assert!(kernels >= 80, "only {kernels} kernels");
    // Every directive kind LLVM 22 prints for these targets was compared.
    for must in [
        ".amdhsa_accum_offset",
        "SHARED_VGPR_COUNT",
        ".amdhsa_inst_pref_size",
        "GLG_EN",
        ".amdhsa_round_robin_scheduling",
        ".amdhsa_enable_private_segment",
        ".amdhsa_system_sgpr_private_segment_wavefront_offset",
    ] {
        assert!(seen.contains(must), "{must} never compared");
    }
    assert!(
        skipped * 10 < kernels,
        "objdump refused {skipped} descriptors"
    );
    eprintln!(
        "compared {fields} descriptor fields of {kernels} kernels ({skipped} refused by objdump)"
    );
}

#[test]
fn symbol_model_kernels_functions_variables() {
    for (case, bytes) in cases() {
        let co = CodeObject::parse(bytes).expect("parse");
        let syms = co.symbols().expect("symbols");
        let (_, raw) = co.primary_symbols();
        let md = co.metadata().expect("md").expect("present");
        // Kernels = metadata kernels, each with code, descriptor, entry.
        let names: BTreeSet<&str> = syms.kernels().iter().map(|k| k.name).collect();
        let md_names: BTreeSet<&str> = md.kernels.iter().map(|k| k.name).collect();
        assert_eq!(names, md_names, "{}", case.label);
        for k in syms.kernels() {
            let code = k.code.expect("kernel code symbol");
            assert_eq!(
                k.entry,
                Some(code.value),
                "{}: {} entry",
                case.label,
                k.name
            );
            assert!(k.metadata.is_some());
            assert_eq!(code.kind, SymbolKind::Kernel);
        }
        // Device functions = every FUNC that is not a kernel, local included.
        let funcs: BTreeSet<&str> = raw
            .iter()
            .filter(|s| s.st_type == 2 && s.section != SymbolSection::Undefined)
            .map(|s| s.name)
            .filter(|n| !names.contains(n))
            .collect();
        let mine: BTreeSet<&str> = syms.device_functions().map(|s| s.name).collect();
        assert_eq!(mine, funcs, "{}", case.label);
        if case.label.starts_with("codeobj_features") && case.label.contains("-O3") {
            let f = syms.get("_ZL12local_helperi").expect("local helper");
            assert_eq!((f.kind, f.binding), (SymbolKind::DeviceFunction, 0));
        }
        if case.label.starts_with("vecops") && !case.label.contains("rdc") {
            let m = syms.managed_variables();
            assert_eq!(m.len(), 1, "{}", case.label);
            assert_eq!(m[0].name, "managed_total");
            assert_eq!(m[0].storage.name, "managed_total.managed");
            assert_eq!(m[0].storage.size, 4);
            assert_eq!(m[0].pointer.size, 8);
            let vars: BTreeSet<&str> = syms.variables().map(|s| s.name).collect();
            for v in ["coeffs", "hits", "managed_total", "managed_total.managed"] {
                assert!(vars.contains(v), "{}: {v}", case.label);
            }
        }
        if case.label.starts_with("rdc_main") {
            let und: BTreeMap<&str, bool> = syms
                .undefined()
                .map(|s| (s.name, s.referenced_by_relocations))
                .collect();
            for n in ["_Z7lib_mixii", "_Z8lib_lerpfff", "lib_scale"] {
                assert_eq!(und.get(n), Some(&true), "{}: {n}", case.label);
            }
        }
        if case.label.starts_with("rdc_lib") {
            for n in ["_Z7lib_mixii", "_Z8lib_lerpfff"] {
                let s = syms.get(n).expect("lib function");
                assert_eq!((s.kind, s.binding), (SymbolKind::DeviceFunction, 1), "{n}");
            }
            assert_eq!(
                syms.get("lib_scale").expect("var").kind,
                SymbolKind::Variable
            );
        }
    }
}

#[test]
fn descriptors_agree_with_metadata() {
    for (case, bytes) in cases() {
        let co = CodeObject::parse(bytes).expect("parse");
        let r = co.check().expect("check");
        assert_eq!(
            r.kernels == 0,
            case.label.starts_with("rdc_lib"),
            "{}",
            case.label
        );
        assert!(r.is_clean(), "{}: {:#?}", case.label, r.warnings);
    }
}

#[test]
fn initial_sgprs_follow_descriptor() {
    // dispatch_info uses the dispatch and queue pointers; with
    // -O3 on gfx90a the user SGPRs are: private segment buffer (4),
    // dispatch ptr (2), queue ptr (2), kernarg ptr (2), as objdump shows.
    let (_, bytes) = cases()
        .iter()
        .find(|(c, _)| c.label == "codeobj_features.hip gfx90a -O3")
        .expect("case");
    let co = CodeObject::parse(bytes).expect("parse");
    let arch = co.kd_arch().expect("arch");
    let d = co.kernel_descriptor("_Z13dispatch_infoPm").expect("kd");
    let roles: Vec<_> = d
        .initial_sgprs(arch)
        .iter()
        .map(|s| (s.role, s.first, s.count))
        .collect();
    use lathe_codeobj::kd::SgprRole::*;
    let p = d.properties();
    assert!(p.enable_sgpr_dispatch_ptr && p.enable_sgpr_queue_ptr);
    let mut expect = Vec::new();
    let mut n = 0;
    for (role, c, on) in [
        (
            PrivateSegmentBuffer,
            4,
            p.enable_sgpr_private_segment_buffer,
        ),
        (DispatchPtr, 2, true),
        (QueuePtr, 2, true),
        (KernargSegmentPtr, 2, true),
    ] {
        if on {
            expect.push((role, n, c));
            n += c;
        }
    }
    assert_eq!(d.rsrc2(arch).user_sgpr_count, n);
    expect.push((WorkgroupIdX, n, 1));
    assert_eq!(&roles[..expect.len()], &expect[..]);
}

fn header_one(case: &Case, bytes: &[u8]) {
    let co = CodeObject::parse(bytes).unwrap_or_else(|e| panic!("{}: {e}", case.label));
    let text = readelf(&["-h"], &case.path);
    let h = co.header();
    assert_eq!(field(&text, "OS/ABI:"), "AMDGPU - HSA", "{}", case.label);
    assert_eq!(
        field(&text, "ABI Version:"),
        h.abi_version.to_string(),
        "{}",
        case.label
    );
    let ty = field(&text, "Type:");
    let expect_ty = match h.e_type {
        1 => "REL",
        3 => "DYN",
        2 => "EXEC",
        _ => "?",
    };
    assert!(ty.starts_with(expect_ty), "{}: {ty}", case.label);
    let flags: Vec<&str> = field(&text, "Flags:").split(", ").collect();
    let raw = u32::from_str_radix(flags[0].trim_start_matches("0x"), 16).expect("hex");
    assert_eq!(raw, h.e_flags, "{}", case.label);
    let p = h.processor.expect("processor");
    assert_eq!(flags[1], p.name(), "{}", case.label);
    let feat = |name: &str, f: FeatureFlag| match f {
        FeatureFlag::Unsupported => None,
        FeatureFlag::Any => Some(name.to_string()),
        FeatureFlag::Off => Some(format!("{name}-")),
        FeatureFlag::On => Some(format!("{name}+")),
    };
    let mine: Vec<String> = [feat("xnack", h.xnack), feat("sramecc", h.sramecc)]
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(&flags[2..], mine.as_slice(), "{}", case.label);
    // Target from e_flags agrees with amdhsa.target in the metadata.
    let md = co.metadata().expect("metadata").expect("has metadata");
    let tgt = md.target.expect("amdhsa.target");
    let tid = co.target().expect("target");
    assert_eq!(
        tgt,
        format!("amdgcn-amd-amdhsa--{tid}"),
        "{}: e_flags target vs amdhsa.target",
        case.label
    );
}

fn symbols_one(case: &Case, bytes: &[u8]) -> usize {
    let mut total = 0;
    let co = CodeObject::parse(bytes).expect("parse");
    let tables = readelf_symbols(&readelf(&["-s", "--wide"], &case.path));
    for (name, kind) in [
        (".symtab", SymbolTableKind::Symtab),
        (".dynsym", SymbolTableKind::Dynsym),
    ] {
        let mine = co.symbol_table(kind);
        let theirs = tables.get(name).map(Vec::as_slice).unwrap_or(&[]);
        assert_eq!(mine.len(), theirs.len(), "{} {name}", case.label);
        for (m, t) in mine.iter().zip(theirs) {
            let ctx = format!("{} {name}[{}] {}", case.label, t.num, t.name);
            assert_eq!(m.index, t.num, "{ctx}");
            assert_eq!(m.name, t.name, "{ctx}");
            assert_eq!(m.value, t.value, "{ctx}");
            assert_eq!(m.size, t.size, "{ctx}");
            assert_eq!(type_name(m.st_type), t.ty, "{ctx}");
            let bind = ["LOCAL", "GLOBAL", "WEAK"][usize::from(m.binding.min(2))];
            assert_eq!(bind, t.bind, "{ctx}");
            let vis = ["DEFAULT", "INTERNAL", "HIDDEN", "PROTECTED"][usize::from(m.visibility)];
            assert_eq!(vis, t.vis, "{ctx}");
            let ndx = match m.section {
                SymbolSection::Undefined => "UND".to_string(),
                SymbolSection::Absolute => "ABS".to_string(),
                SymbolSection::Common => "COM".to_string(),
                SymbolSection::Index(i) => i.to_string(),
                o => format!("{o:?}"),
            };
            assert_eq!(ndx, t.ndx, "{ctx}");
            total += 1;
        }
    }
    total
}

fn relocations_one(case: &Case, bytes: &[u8]) -> usize {
    let mut total = 0;
    let co = CodeObject::parse(bytes).expect("parse");
    let mine = co.relocations().expect("relocations");
    let theirs = readelf_relocs(&readelf(&["-r", "--wide"], &case.path));
    assert_eq!(mine.len(), theirs.len(), "{}", case.label);
    for (m, t) in mine.iter().zip(&theirs) {
        let ctx = format!("{} {} @0x{:x}", case.label, t.section, t.offset);
        assert_eq!(co.sections()[m.section].name, t.section, "{ctx}");
        assert_eq!(m.offset, t.offset, "{ctx}");
        assert_eq!(
            (u64::from(m.symbol) << 32) | u64::from(m.kind.raw()),
            t.info,
            "{ctx}"
        );
        assert_eq!(m.kind.name().expect("known type"), t.ty, "{ctx}");
        assert_eq!(m.symbol_name.unwrap_or(""), t.sym_name, "{ctx}");
        if let Some(a) = t.addend {
            assert_eq!(m.addend, Some(a), "{ctx}");
        }
        total += 1;
    }
    total
}

fn metadata_one(case: &Case, bytes: &[u8]) {
    let co = CodeObject::parse(bytes).expect("parse");
    let notes: Vec<_> = co.notes().collect::<Result<_, _>>().expect("notes");
    let text = readelf(&["--notes"], &case.path);
    // Every note: owner and size.
    let rows: Vec<(String, usize)> = text
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let size = f.get(1)?.strip_prefix("0x")?;
            Some((f[0].to_string(), usize::from_str_radix(size, 16).ok()?))
        })
        .collect();
    let mine: Vec<(String, usize)> = notes
        .iter()
        .map(|n| (String::from_utf8_lossy(n.owner).into_owned(), n.desc.len()))
        .collect();
    assert_eq!(mine, rows, "{}", case.label);
    let md = co.metadata().expect("metadata").expect("present");
    let docs = notes_yaml(&text);
    let raws = co.metadata_notes().expect("notes");
    assert_eq!(docs.len(), raws.len(), "{}", case.label);
    let trees: Vec<_> = raws
        .iter()
        .map(|r| lathe_codeobj::msgpack::parse(r).expect("msgpack"))
        .collect();
    for (tree, doc) in trees.iter().zip(&docs) {
        let mut diffs = Vec::new();
        diff_value_yaml(tree, doc, "", &mut diffs);
        assert!(diffs.is_empty(), "{}: {diffs:#?}", case.label);
    }
    // The typed layer saw every key: nothing known landed in `extra`.
    assert!(md.extra.is_empty(), "{}: {:?}", case.label, md.extra);
    for k in &md.kernels {
        assert!(
            k.extra.is_empty(),
            "{} {}: {:?}",
            case.label,
            k.name,
            k.extra
        );
        for a in &k.args {
            assert!(a.extra.is_empty(), "{}: {:?}", case.label, a.extra);
            assert!(
                !matches!(a.value_kind, lathe_codeobj::ValueKind::Other(_)),
                "{}: unknown value kind {:?}",
                case.label,
                a.value_kind
            );
        }
        // Typed fields equal the tree's values.
        let raw = trees
            .iter()
            .filter_map(|t| t.get("amdhsa.kernels").and_then(|v| v.as_array()))
            .flatten()
            .find(|x| x.get(".name").and_then(|n| n.as_str()) == Some(k.name))
            .expect("raw kernel");
        let u = |key: &str| raw.get(key).and_then(|v| v.as_u64());
        assert_eq!(Some(k.kernarg_segment_size), u(".kernarg_segment_size"));
        assert_eq!(Some(k.sgpr_count), u(".sgpr_count"));
        assert_eq!(Some(k.vgpr_count), u(".vgpr_count"));
        assert_eq!(Some(k.wavefront_size), u(".wavefront_size"));
        assert_eq!(k.agpr_count, u(".agpr_count"));
        assert_eq!(
            k.args.len(),
            raw.get(".args")
                .and_then(|a| a.as_array())
                .map_or(0, |a| a.len())
        );
    }
}

/// Returns (fields compared, kernels, descriptors objdump refused).
fn kds_one(case: &Case, bytes: &[u8], seen: &mut BTreeSet<String>) -> (usize, usize, usize) {
    let (mut fields, mut kernels, mut skipped) = (0, 0, 0);
    let co = CodeObject::parse(bytes).expect("parse");
    let syms = co.symbols().expect("symbols");
    let kds: Vec<String> = syms
        .of_kind(SymbolKind::KernelDescriptor)
        .map(|s| s.name.to_string())
        .collect();
    if kds.is_empty() {
        return (0, 0, 0);
    }
    let arg = format!("--disassemble-symbols={}", kds.join(","));
    let text = objdump(&["-D", &arg], &case.path);
    let theirs = objdump_kds(&text);
    // llvm-objdump sizes a descriptor up to the next symbol or the end
    // of its section, so a descriptor followed by other .rodata bytes
    // (strings at -O0) is refused as "not 64-byte aligned". Check those
    // really are 64 aligned bytes and count them as skipped.
    let mut refused = 0;
    for l in text.lines() {
        if let Some(rest) = l.strip_prefix("; error decoding ") {
            let (sym, why) = rest.split_once(": ").expect("error line");
            assert_eq!(
                why, "kernel descriptor must be 64-byte aligned",
                "{}",
                case.label
            );
            let s = syms.get(sym).expect("kd symbol");
            assert_eq!((s.value % 64, s.size), (0, 64), "{}: {sym}", case.label);
            refused += 1;
            skipped += 1;
        }
    }
    assert_eq!(
        theirs.len() + refused,
        kds.len(),
        "{}: objdump kernels",
        case.label
    );
    for (kname, directives) in &theirs {
        let k = syms.kernel(kname).expect("kernel in model");
        let d = k.descriptor().expect("descriptor");
        for (dir, val) in directives {
            let mine = kd_directive(&co, d, dir)
                .unwrap_or_else(|| panic!("{}: {kname}: unmapped directive {dir}", case.label));
            assert_eq!(mine, *val, "{}: {kname}: {dir}", case.label);
            seen.insert(dir.clone());
            fields += 1;
        }
        kernels += 1;
    }
    (fields, kernels, skipped)
}

/// Every AMDGPU code object in the jax-rocm7-plugin wheel's bundles
/// (CCOB v3, extracted with lathe-bundle) parses completely: header,
/// symbols, relocations, notes, metadata, descriptors, cross-checks. Those
/// for every non-generic processor (GFX9 to GFX12, wave32 and wave64) are
/// also compared with the LLVM tools like the corpus objects.
#[test]
fn jax_wheel_code_objects() {
    use std::collections::HashSet;
    use std::hash::{Hash, Hasher};
    let libs = lathe_testkit::jax_plugin_libs();
    if libs.is_empty() {
        assert!(!lathe_testkit::require_external(), "jax wheel missing");
        eprintln!("jax wheel not found: skipped (run scripts/setup.sh)");
        return;
    }
    let dir = lathe_testkit::cache_dir().join("codeobj-jax");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let mut seen_hash = HashSet::new();
    let (mut objects, mut compared, mut kernels, mut fields) = (0, 0, 0, 0);
    let mut warnings = Vec::new();
    let mut seen = BTreeSet::new();
    let mut procs = BTreeSet::new();
    let mut parse_time = std::time::Duration::ZERO;
    let mut parsed_bytes = 0usize;
    for lib in &libs {
        let data = std::fs::read(lib).expect("read lib");
        let walk = lathe_bundle::walk(&data, &lathe_bundle::Limits::default()).expect("walk");
        for item in walk {
            let e = item.expect("bundle entry");
            if e.parsed_id().target_id().is_none() {
                continue;
            }
            let bytes: &[u8] = &e.data;
            let mut h = std::collections::hash_map::DefaultHasher::new();
            bytes.hash(&mut h);
            if !seen_hash.insert(h.finish()) {
                continue;
            }
            objects += 1;
            let t0 = std::time::Instant::now();
            let label = format!(
                "{} {}",
                lib.file_name().expect("file name").to_string_lossy(),
                e.id
            );
            let co = CodeObject::parse(bytes).unwrap_or_else(|err| panic!("{label}: {err}"));
            let p = co.processor().expect("processor");
            procs.insert(p.name());
            co.relocations().expect("relocations");
            for n in co.notes() {
                n.expect("note");
            }
            co.metadata().expect("metadata").expect("present");
            let syms = co.symbols().expect("symbols");
            for k in syms.kernels() {
                k.descriptor()
                    .unwrap_or_else(|err| panic!("{label}: {err}"));
            }
            let r = co.check().expect("check");
            parse_time += t0.elapsed();
            parsed_bytes += bytes.len();
            warnings.extend(r.warnings.into_iter().map(|w| (label.clone(), w)));
            if !p.is_generic() {
                let path = dir.join(format!("{:016x}.co", h.finish()));
                lathe_testkit::write_cached(&path, bytes);
                let case = Case { label, path };
                header_one(&case, bytes);
                symbols_one(&case, bytes);
                relocations_one(&case, bytes);
                metadata_one(&case, bytes);
                let (f, k, _) = kds_one(&case, bytes, &mut seen);
                fields += f;
                kernels += k;
                compared += 1;
            }
        }
    }
    eprintln!(
        "jax: {objects} distinct code objects ({} processors), {compared} compared with LLVM tools ({kernels} kernels, {fields} descriptor fields), {} check warnings",
        procs.len(),
        warnings.len()
    );
    eprintln!(
        "jax: parse + relocations + notes + metadata + symbols + descriptors + check of {parsed_bytes} bytes took {parse_time:?}"
    );
    assert!(objects >= 20, "only {objects} code objects");
    assert!(compared >= 100, "only {compared} compared");
    assert!(warnings.is_empty(), "{warnings:#?}");
}

/// Code object versions other than clang-22's default V6: V4 and V5 from
/// clang-22 (`-mcode-object-version`), V2 and V3 from clang-15 (unbundled
/// with its clang-offload-bundler). Header, symbols and relocations are
/// compared with llvm-readelf for all; metadata and descriptors for V3+;
/// for V2 the target comes from the `NT_AMD_HSA_ISA_*` notes and the YAML
/// metadata note is kept raw.
#[test]
fn other_code_object_versions() {
    let mut cases = Vec::new();
    for v in ["4", "5"] {
        let mut b = Build::new("vecops.hip", &["gfx90a:xnack-"], Output::CodeObject);
        b.extra = vec![if v == "4" {
            "-mcode-object-version=4"
        } else {
            "-mcode-object-version=5"
        }];
        cases.push((
            Case {
                label: format!("vecops V{v}"),
                path: b.build(),
            },
            v,
        ));
    }
    let clang15 = std::path::Path::new("/usr/lib/llvm-15/bin/clang++");
    if clang15.exists() {
        let dir = lathe_testkit::cache_dir().join("codeobj-clang15");
        std::fs::create_dir_all(&dir).expect("mkdir");
        for v in ["2", "3"] {
            let bundle = dir.join(format!("vecops-v{v}.bundle"));
            let out = dir.join(format!("vecops-v{v}-gfx906.co"));
            if !out.exists() {
                let tmp = lathe_testkit::tmp_beside(&out);
                lathe_testkit::run(
                    std::process::Command::new(clang15)
                        .args([
                            "-x",
                            "hip",
                            "-nogpuinc",
                            "-nogpulib",
                            "-O3",
                            "--offload-arch=gfx906",
                        ])
                        .args(["--cuda-device-only", &format!("-mcode-object-version={v}")])
                        .arg("-I")
                        .arg(lathe_testkit::workspace_root().join("corpus/include"))
                        .arg(lathe_testkit::corpus_src("vecops.hip"))
                        .arg("-o")
                        .arg(&bundle),
                );
                lathe_testkit::run(
                    std::process::Command::new("/usr/lib/llvm-15/bin/clang-offload-bundler")
                        .args([
                            "--unbundle",
                            "--type=o",
                            "--targets=hip-amdgcn-amd-amdhsa--gfx906",
                        ])
                        .arg(format!("--input={}", bundle.display()))
                        .arg(format!("--output={}", tmp.display())),
                );
                lathe_testkit::publish(&tmp, &out);
            }
            cases.push((
                Case {
                    label: format!("vecops V{v} (clang-15)"),
                    path: out,
                },
                v,
            ));
        }
    } else {
        assert!(!lathe_testkit::require_external(), "clang-15 missing");
        eprintln!("clang-15 not installed: V2/V3 skipped");
    }
    let mut seen = BTreeSet::new();
    for (case, v) in &cases {
        let bytes = std::fs::read(&case.path).expect("read");
        let co = CodeObject::parse(&bytes).expect("parse");
        assert_eq!(
            co.header()
                .code_object_version
                .map(|c| c.number().to_string())
                .as_deref(),
            Some(*v),
            "{}",
            case.label
        );
        symbols_one(case, &bytes);
        relocations_one(case, &bytes);
        let text = readelf(&["-h"], &case.path);
        let flags: Vec<&str> = field(&text, "Flags:").split(", ").collect();
        assert_eq!(flags[1], co.processor().expect("processor").name());
        if *v == "2" {
            // llvm-readelf prints V2/V3 feature bits as plain names (= on).
            assert_eq!(&flags[2..], ["xnack", "sramecc"]);
            let h = co.header();
            assert_eq!((h.xnack, h.sramecc), (FeatureFlag::On, FeatureFlag::On));
            let notes = readelf(&["--notes"], &case.path);
            let mut lines = notes.lines().map(str::trim);
            lines
                .by_ref()
                .find(|l| *l == "AMD HSA ISA Name:")
                .expect("ISA name note");
            let isa = lines.next().expect("ISA name");
            let mine = co
                .notes()
                .map(|n| n.expect("note"))
                .find(|n| n.owner == b"AMD" && n.n_type == lathe_codeobj::elf::NT_AMD_HSA_ISA_NAME)
                .expect("ISA name note");
            assert_eq!(
                std::str::from_utf8(mine.desc)
                    .expect("utf8")
                    .trim_end_matches('\0'),
                isa
            );
            // e_flags carries the processor, and it wins over the note.
            assert_eq!(co.target().expect("target").processor.name(), "gfx906");
            assert!(co.metadata().expect("md").is_none());
            let v2 = co.metadata_v2().expect("notes");
            if let Some(m) = v2 {
                assert!(m.text().expect("yaml").contains("Kernels:"));
            }
            continue;
        }
        if *v == "3" {
            assert_eq!(&flags[2..], ["xnack", "sramecc"]);
        } else {
            header_one(case, &bytes);
        }
        metadata_one(case, &bytes);
        let (f, k, _) = kds_one(case, &bytes, &mut seen);
        assert!(f > 0 && k == 3, "{}", case.label);
        assert!(co.check().expect("check").is_clean(), "{}", case.label);
    }
}

//! `lathe bundle list | extract | pack`.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Context, Result};
use lathe_bundle::ccob::{self, CompressOptions, Method, WriteVersion};
use lathe_bundle::host::{FoundBundle, Storage, WrapperTarget};
use lathe_bundle::select::Verdict;
use lathe_bundle::{discover, select, BundleWriter, Discovery, Limits, TargetId};
use serde_json::{json, Value};

use crate::input::Input;
use crate::output::{byte_bar, human_size, print, print_json, Ctx};
use crate::{CompressArg, ExtractArgs, PackArgs, PolicyArg};

impl From<PolicyArg> for lathe_bundle::Policy {
    fn from(p: PolicyArg) -> Self {
        match p {
            PolicyArg::Exact => lathe_bundle::Policy::Exact,
            PolicyArg::Clang => lathe_bundle::Policy::Clang,
            PolicyArg::Extended => lathe_bundle::Policy::Extended,
        }
    }
}

/// Parses `--target` values with a helpful error.
pub fn parse_targets(targets: &[String]) -> Result<Vec<TargetId>> {
    targets
        .iter()
        .map(|t| {
            // clang-offload-bundler's full spelling:
            // hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-
            let short = if t.contains("-amdgcn-") {
                lathe_bundle::EntryId::parse_str(t)
                    .target_str()
                    .with_context(|| format!("invalid bundle entry ID '{t}'"))?
            } else {
                t.as_str()
            };
            short.parse::<TargetId>().with_context(|| {
                format!("invalid target ID '{t}' (expected e.g. gfx90a, gfx90a:xnack- or hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-)")
            })
        })
        .collect()
}

/// Discovers bundles, failing with context if the file cannot be read.
pub fn discover_file<'a>(input: &'a Input, limits: &Limits) -> Result<Discovery<'a>> {
    discover(input.bytes(), limits).with_context(|| format!("cannot read {}", input.name()))
}

fn storage_json(b: &FoundBundle<'_>) -> Value {
    match b.storage {
        Storage::Plain => json!({"format": "plain"}),
        Storage::Sections => json!({"format": "sections"}),
        Storage::Compressed(h) => json!({
            "format": "ccob",
            "version": h.version,
            "method": h.method.to_string(),
            "compressed_size": b.bytes.len(),
            "uncompressed_size": h.uncompressed_size,
            "hash": format!("{:016x}", h.hash),
        }),
    }
}

fn storage_text(b: &FoundBundle<'_>) -> String {
    match b.storage {
        Storage::Plain => "plain".to_string(),
        Storage::Sections => "ELF sections".to_string(),
        Storage::Compressed(h) => format!(
            "CCOB v{} {}, {} -> {} ({:.1}x)",
            h.version,
            h.method,
            human_size(b.bytes.len() as u64),
            human_size(h.uncompressed_size),
            h.uncompressed_size as f64 / (b.bytes.len().max(1)) as f64
        ),
    }
}

fn wrapper_text(d: &Discovery<'_>, b: &FoundBundle<'_>) -> String {
    let mut s = String::new();
    for &w in &b.wrappers {
        if let Some(w) = d.wrappers.get(w) {
            let _ = write!(s, ", HIPF wrapper #{} at {:#x}", w.index, w.addr);
        }
    }
    s
}

/// `lathe bundle list FILE`.
pub fn list(ctx: &Ctx, file: &Path) -> Result<()> {
    let input = Input::open(file)?;
    crate::input::ensure_known(&input)?;
    let limits = Limits::default();
    let d = discover_file(&input, &limits)?;
    let bar = byte_bar(ctx, d.total_bundle_bytes(), "listing");
    let mut text = String::new();
    let mut bundles_json = Vec::new();
    let mut problems: Vec<String> = d.problems.iter().map(|e| e.to_string()).collect();
    let _ = writeln!(
        text,
        "{}: {}, {} bundle(s), {} HIPF wrapper(s)",
        input.name(),
        crate::input::kind_word(d.kind),
        d.bundles.len(),
        d.wrappers.len()
    );
    for b in &d.bundles {
        let mut entries_json = Vec::new();
        let section = b
            .section
            .as_ref()
            .map(|s| format!("section {}", s.name))
            .unwrap_or_else(|| "whole file".into());
        let _ = writeln!(
            text,
            "bundle {} at file offset {:#x} ({}{}), {}, {}{}",
            b.index,
            b.file_offset,
            section,
            if b.section.is_some() {
                format!(" + {:#x}", b.section_offset)
            } else {
                String::new()
            },
            human_size(b.size()),
            storage_text(b),
            wrapper_text(&d, b)
        );
        match b.open(&limits).and_then(|o| {
            let bundle = o.bundle(&limits).map_err(|e| b.wrap(e))?;
            Ok(bundle
                .entries()
                .iter()
                .map(|e| (e.index, e.id.to_string_lossy(), e.offset, e.data.len()))
                .collect::<Vec<_>>())
        }) {
            Ok(entries) => {
                let w = entries.len().saturating_sub(1).to_string().len();
                let _ = writeln!(
                    text,
                    "  {:>w2$}  {:<48} {:>12}  {:>12}",
                    "#",
                    "entry ID",
                    "offset (hex)",
                    "size (bytes)",
                    w2 = w + 2
                );
                for (i, id, off, size) in entries {
                    let _ = writeln!(
                        text,
                        "  [{i:>w$}]  {id:<48} {:>12}  {size:>12}",
                        format!("{off:#x}")
                    );
                    entries_json.push(json!({"index": i, "id": id, "offset": off, "size": size}));
                }
            }
            Err(e) => {
                let _ = writeln!(text, "  error: {e}");
                problems.push(e.to_string());
            }
        }
        bundles_json.push(json!({
            "index": b.index,
            "file_offset": b.file_offset,
            "section": b.section.as_ref().map(|s| s.name.clone()),
            "section_offset": b.section_offset,
            "size": b.size(),
            "storage": storage_json(b),
            "wrappers": b.wrappers,
            "entries": entries_json,
        }));
        bar.inc(b.size());
    }
    bar.finish_and_clear();
    for p in &d.problems {
        let _ = writeln!(text, "problem: {p}");
    }
    let wrappers: Vec<Value> = d
        .wrappers
        .iter()
        .map(|w| {
            json!({
                "index": w.index,
                "addr": w.addr,
                "file_offset": w.file_offset,
                "magic_ok": w.magic == lathe_bundle::host::HIPF_MAGIC,
                "version": w.version,
                "bundle": w.bundle,
                "target": match &w.target {
                    WrapperTarget::Location { section_offset, addr, .. } => json!({"section_offset": section_offset, "addr": addr}),
                    WrapperTarget::Undefined { symbol } => json!({"undefined": symbol}),
                    WrapperTarget::Null => json!("null"),
                    WrapperTarget::Dangling { value } => json!({"dangling": value}),
                    _ => json!("other"),
                },
            })
        })
        .collect();
    if ctx.json {
        print_json(&json!({
            "file": input.name(),
            "kind": crate::input::kind_key(d.kind),
            "bundles": bundles_json,
            "wrappers": wrappers,
            "problems": problems,
        }))
    } else {
        print(&text)
    }
}

fn file_stem_for(target: &TargetId) -> String {
    target.to_string().replace(':', "_")
}

/// `lathe bundle extract`.
pub fn extract(ctx: &Ctx, a: ExtractArgs) -> Result<()> {
    let input = Input::open(&a.file)?;
    let limits = Limits::default();
    if a.all && !a.targets.is_empty() {
        bail!("--all writes every entry; it cannot be combined with --target");
    }
    crate::input::ensure_known(&input)?;
    let mut targets = parse_targets(&a.targets)?;
    // A target given twice is extracted once.
    let mut seen = std::collections::HashSet::new();
    targets.retain(|t| seen.insert(t.to_string()));
    let d = discover_file(&input, &limits)?;
    if d.bundles.is_empty() {
        bail!(
            "{}: no offload bundles found (file kind: {})",
            input.name(),
            crate::input::kind_word(d.kind)
        );
    }
    // Targets that matched in at least one bundle, and the entry IDs seen
    // for each requested processor (for the hint when one matched nowhere).
    let mut hit = vec![false; targets.len()];
    let mut same_processor: Vec<std::collections::BTreeSet<String>> =
        vec![Default::default(); targets.len()];
    std::fs::create_dir_all(&a.output)
        .with_context(|| format!("cannot create {}", a.output.display()))?;
    let bar = byte_bar(ctx, d.total_bundle_bytes(), "extracting");
    let mut text = String::new();
    let mut written = Vec::new();
    let mut explains = Vec::new();
    let mut misses = 0usize;
    for b in &d.bundles {
        let opened = b.open(&limits)?;
        let bundle = opened.bundle(&limits).map_err(|e| b.wrap(e))?;
        let entries = bundle.entries();
        if a.all {
            for e in entries {
                if e.data.is_empty() {
                    continue;
                }
                let id = e.id.to_string_lossy().replace([':', '/'], "_");
                let path = a
                    .output
                    .join(format!("b{:03}-e{:02}-{id}.co", b.index, e.index));
                write_file(&path, e.data)?;
                written.push(json!({"bundle": b.index, "entry": e.index, "id": e.id.to_string_lossy(), "path": path, "size": e.data.len()}));
            }
        }
        for (ti, t) in targets.iter().enumerate() {
            for e in entries {
                if let Some(tid) = e.id.target_id() {
                    if tid.processor == t.processor {
                        same_processor[ti].insert(tid.to_string());
                    }
                }
            }
            let sel = select(entries, t, a.policy.into());
            if sel.chosen.is_some() {
                hit[ti] = true;
            }
            if a.explain {
                let _ = write!(text, "bundle {}: {}", b.index, sel.explain_text());
                explains.push(json!({
                    "bundle": b.index,
                    "agent": t.to_string(),
                    "chosen": sel.chosen,
                    "how": sel.how.map(|m| m.to_string()),
                    "entries": sel.explain.iter().map(|x| json!({
                        "index": x.index,
                        "id": x.id,
                        "verdict": match &x.verdict {
                            Verdict::Taken(m) => format!("taken: {m}"),
                            Verdict::Outranked { how, by } => format!("outranked by {by} ({how})"),
                            Verdict::Refused(r) => format!("refused: {r}"),
                        },
                    })).collect::<Vec<_>>(),
                }));
            }
            match sel.entry(entries) {
                Some(e) if !a.all => {
                    let path = a
                        .output
                        .join(format!("b{:03}-{}.co", b.index, file_stem_for(t)));
                    write_file(&path, e.data)?;
                    written.push(json!({"bundle": b.index, "entry": e.index, "id": e.id.to_string_lossy(), "target": t.to_string(), "path": path, "size": e.data.len()}));
                }
                Some(_) => {}
                None => misses += 1,
            }
        }
        bar.inc(b.size());
    }
    bar.finish_and_clear();
    let unmatched: Vec<String> = targets
        .iter()
        .zip(&hit)
        .zip(&same_processor)
        .filter(|((_, h), _)| !**h)
        .map(|((t, _), ids)| {
            if ids.is_empty() {
                format!("{t} (no entry for {} at all)", t.processor.name())
            } else {
                format!(
                    "{t} (entries exist for {}; ask for one of those)",
                    ids.iter().cloned().collect::<Vec<_>>().join(", ")
                )
            }
        })
        .collect();
    if !unmatched.is_empty() {
        if !a.explain {
            let _ = writeln!(text, "(use --explain to see why each entry was refused)");
        }
        if !ctx.json {
            print(&text)?;
        }
        bail!(
            "{}: no bundle has an entry compatible with {}",
            input.name(),
            unmatched.join("; ")
        );
    }
    if ctx.json {
        print_json(
            &json!({"written": written, "explain": explains, "bundles_without_match": misses}),
        )
    } else {
        let _ = writeln!(
            text,
            "wrote {} code object(s) to {} from {} bundle(s){}",
            written.len(),
            a.output.display(),
            d.bundles.len(),
            if misses > 0 {
                format!(
                    "; {misses} (bundle, target) pair(s) had no compatible entry (use --explain)"
                )
            } else {
                String::new()
            }
        );
        print(&text)
    }
}

fn write_file(path: &Path, data: &[u8]) -> Result<()> {
    std::fs::write(path, data).with_context(|| format!("cannot write {}", path.display()))
}

/// `lathe bundle pack`.
pub fn pack(ctx: &Ctx, a: PackArgs) -> Result<()> {
    if a.ccob_version.is_some() && a.compress.is_none() {
        bail!("--ccob-version applies to compressed bundles; add --compress zlib|zstd");
    }
    if a.no_host && a.entries.iter().any(|e| e.starts_with("host-")) {
        bail!("--no-host contradicts the host entry given with --entry");
    }
    let mut files = Vec::new();
    let mut ids = std::collections::HashSet::new();
    for spec in &a.entries {
        let (id, file) = spec
            .split_once('=')
            .with_context(|| format!("--entry '{spec}': expected ID=FILE"))?;
        if !ids.insert(id.to_string()) {
            bail!("--entry '{spec}': entry ID {id} given twice");
        }
        let data = std::fs::read(file).with_context(|| format!("cannot read {file}"))?;
        if !a.force {
            check_pack_entry(id, file, &data)?;
        }
        files.push((id.to_string(), data));
    }
    let mut w = BundleWriter::new();
    if !a.no_host && !files.iter().any(|(id, _)| id.starts_with("host-")) {
        w.add_host("x86_64-unknown-linux-gnu-");
    }
    for (id, data) in &files {
        w.add(id.clone(), data.as_slice());
    }
    let plain = w.to_vec();
    let bytes = match a.compress {
        None => plain,
        Some(m) => ccob::compress(
            &plain,
            &CompressOptions {
                version: if a.ccob_version == Some(2) {
                    WriteVersion::V2
                } else {
                    WriteVersion::V3
                },
                method: match m {
                    CompressArg::Zlib => Method::Zlib,
                    CompressArg::Zstd => Method::Zstd,
                },
                level: None,
            },
        )
        .context("cannot compress the bundle")?,
    };
    write_file(&a.output, &bytes)?;
    if ctx.json {
        print_json(&json!({"output": a.output, "size": bytes.len(), "entries": files.len()}))
    } else {
        print(&format!(
            "wrote {} ({}, {} entries)\n",
            a.output.display(),
            human_size(bytes.len() as u64),
            files.len()
        ))
    }
}

/// Checks one `bundle pack` entry: a complete HIP entry ID
/// (`hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-`) naming a code object whose
/// e_flags give the same target ID, or a host entry.
fn check_pack_entry(id: &str, file: &str, data: &[u8]) -> Result<()> {
    let eid = lathe_bundle::EntryId::parse_str(id);
    if eid.is_host() {
        return Ok(());
    }
    let Some(target) = eid.target_id() else {
        bail!(
            "--entry {id}={file}: '{id}' is not a complete entry ID; write it as clang-offload-bundler does, e.g. hipv4-amdgcn-amd-amdhsa--gfx90a:xnack- (or pass --force)"
        );
    };
    let co = lathe_codeobj::CodeObject::parse(data).map_err(|e| {
        anyhow::anyhow!("--entry {id}={file}: {file} is not an AMDGPU code object ({e}); pass --force to pack it anyway")
    })?;
    let Some(actual) = co.target() else {
        bail!("--entry {id}={file}: the code object's e_flags name no known processor (pass --force to pack it anyway)");
    };
    if actual != target {
        bail!(
            "--entry {id}={file}: the code object is for {actual} (from its e_flags) but the ID says {target}; use hipv4-amdgcn-amd-amdhsa--{actual} (or pass --force)"
        );
    }
    Ok(())
}

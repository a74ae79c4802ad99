//! `lathe replay --tool NAME|DIR` and `--check LIST`: a replay
//! instrumented with a built-in lathe-dbi tool or a tool written in HIP,
//! or run under the sanitizer's checkers
//! (issue 22). The captured memory is the same either way, and the
//! allocations are still compared with the captured after-state: a tool
//! or a checker must not change what the kernel computes.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anyhow::{bail, Context, Result};
use lathe_capsule::read::Capsule;
use lathe_dbi::tools::{self, Tool, ToolBuild};
use lathe_dbi::{HipTool, HookBuild};
use lathe_emu::check::{CheckHook, Checker, Checks, Hit};
use lathe_emu::session::Session;
use serde_json::{json, Value};

/// The capsule's code object holding the kernel (its descriptor lies in
/// that code object's allocation).
pub(crate) fn kernel_code_object(c: &Capsule) -> Option<&[u8]> {
    let m = &c.manifest;
    m.code_objects
        .iter()
        .zip(&c.code_objects)
        .find_map(|(e, bytes)| {
            let a = m.allocations.get(e.allocation)?;
            (m.kernel_object >= a.base && m.kernel_object - a.base < a.size)
                .then_some(bytes.as_slice())
        })
}

/// An instrumented build of the captured kernel for `--tool`.
pub(crate) enum Built {
    /// A built-in lathe-dbi tool: its probes write a data buffer.
    Builtin(Box<ToolBuild>),
    /// A HIP tool (a directory with `tool.json`, or a manifest): its hooks
    /// are a second code object, loaded with the instrumented one; its
    /// result is its report variables.
    Hip {
        tool: Box<HipTool>,
        build: Box<HookBuild>,
    },
}

impl Built {
    /// The code objects to load, the instrumented one first.
    pub(crate) fn objects(&self) -> Vec<&[u8]> {
        match self {
            Built::Builtin(b) => vec![b.code_object.as_slice()],
            Built::Hip { tool, build } => vec![build.code_object.as_slice(), tool.code_object()],
        }
    }
}

/// `--tool` names a HIP tool (a directory with `tool.json`, or a manifest
/// file) rather than a built-in tool, as `lathe run --tool` decides (a
/// built-in name wins over a directory of that name unless written as a
/// path, `./instr-count`).
fn is_tool_path(name: &str) -> bool {
    let p = std::path::Path::new(name);
    let builtin = Tool::ALL.iter().any(|t| t.name() == name);
    name.contains('/') || name.ends_with(".json") || (!builtin && (p.is_dir() || p.is_file()))
}

/// `--tool NAME|DIR`: the code object carrying the kernel (`code`, else
/// the capsule's), instrumented for the kernel only.
pub(crate) fn instrument(name: &str, c: &Capsule, code: Option<&[u8]>) -> Result<Built> {
    let bytes = match code {
        Some(b) => b,
        None => kernel_code_object(c).context("no code object holds the kernel descriptor")?,
    };
    let kernel = &c.manifest.kernel;
    if is_tool_path(name) {
        let path = std::path::Path::new(name);
        let processor = c.target.processor.to_string();
        let tool = HipTool::load_for(path, bytes).with_context(|| {
            format!("--tool {name}: the HIP tool cannot be built for {processor}")
        })?;
        let build = tool
            .instrument(bytes, Some(kernel.as_str()))
            .with_context(|| format!("--tool {name}: instrumenting {kernel}"))?;
        if let Some((_, why)) = build.skipped.iter().find(|(k, _)| k == kernel) {
            bail!("--tool {name}: {kernel} cannot be instrumented: {why}");
        }
        return Ok(Built::Hip {
            tool: Box::new(tool),
            build: Box::new(build),
        });
    }
    let tool = Tool::parse(name).with_context(|| {
        format!(
            "--tool {name}: unknown tool (tools: {}), nor an existing HIP tool directory or manifest",
            Tool::ALL.map(|t| t.name()).join(", ")
        )
    })?;
    let re = format!("^{}$", regex::escape(kernel));
    let b = tools::instrument(bytes, tool, Some(&re))
        .with_context(|| format!("--tool {name}: instrumenting {kernel}"))?;
    if let Some((_, why)) = b.skipped.iter().find(|(k, _)| k == kernel) {
        bail!("--tool {name}: {kernel} cannot be instrumented: {why}");
    }
    Ok(Built::Builtin(Box::new(b)))
}

/// Points the instrumented code object's data variable at a fresh zeroed
/// buffer (a built-in tool's probe data; a small unused one for a HIP
/// tool) and, for a HIP tool, sets its report variables to their initial
/// values. Returns the buffer's address.
pub(crate) fn attach(session: &Session, b: &Built) -> Result<u64> {
    let size = match b {
        Built::Builtin(b) => b.data_size.max(1),
        Built::Hip { .. } => 8,
    };
    let buf = session
        .upload(&vec![0u8; size as usize])
        .map_err(|e| anyhow::anyhow!("the probe data buffer: {e}"))?;
    let var = session.exe.symbol(lathe_dbi::elfout::DATA_SYMBOL);
    match (var, b) {
        (Some(v), _) => session
            .mem
            .view()
            .store_u64(v.address, buf)
            .map_err(|e| anyhow::anyhow!("the probe data variable: {e}"))?,
        (None, Built::Builtin(_)) => {
            bail!("the instrumented code object has no probe data variable")
        }
        (None, Built::Hip { .. }) => {}
    }
    if let Built::Hip { tool, .. } = b {
        for (var, bytes) in tool.reset_values() {
            let s = session
                .exe
                .symbol(&var)
                .with_context(|| format!("the HIP tool's report variable {var} is not loaded"))?;
            session
                .mem
                .view()
                .write_bytes(s.address, &bytes)
                .map_err(|e| anyhow::anyhow!("the report variable {var}: {e}"))?;
        }
    }
    Ok(buf)
}

/// The tool's result after the replay: a built-in tool's decoded probe
/// data, or a HIP tool's report variables (and its `line`, filled as
/// `lathe run --tool` fills it).
pub(crate) fn result(
    session: &Session,
    b: &Built,
    buf: u64,
    kernel: &str,
    shape: &lathe_emu::session::Shape,
) -> Result<Value> {
    match b {
        Built::Builtin(b) => {
            let data = session
                .download(buf, b.data_size)
                .map_err(|e| anyhow::anyhow!("reading the probe data: {e}"))?;
            tools::decode(b, kernel, &data)
                .map(|r| r.to_json())
                .context("decoding the probe data")
        }
        Built::Hip { tool, build } => {
            let result = tool.report(&mut |var, n| {
                let s = session.exe.symbol(var)?;
                session.download(s.address, n as u64).ok()
            });
            let mut values = result.clone();
            if let Value::Object(m) = &mut values {
                let demangled =
                    lathe_codeobj::names::demangle(kernel).unwrap_or_else(|| kernel.to_string());
                for (k, v) in [
                    ("kernel", json!(demangled)),
                    ("mangled", json!(kernel)),
                    ("grid", json!(shape.grid)),
                    ("block", json!(shape.block)),
                ] {
                    m.entry(k).or_insert(v);
                }
            }
            Ok(json!({
                "report": result,
                "line": tool.report_line(&values),
                "sites": build.sites.len(),
            }))
        }
    }
}

/// `--check LIST`: the checker the dispatch reports to.
pub(crate) fn checker(list: &str) -> Result<&'static Checker> {
    let mut checks = Checks::default();
    for name in crate::exec_check::parse(list)? {
        match name {
            "memcheck" => checks.memcheck = true,
            "initcheck" => checks.initcheck = true,
            "synccheck" => checks.synccheck = true,
            _ => {}
        }
    }
    // One per process, for the dispatch's `&'static` hook.
    Ok(Box::leak(Box::new(Checker::new(checks))))
}

/// The hook for the dispatch options.
pub(crate) fn hook(c: Option<&'static Checker>) -> Option<CheckHook> {
    c.map(CheckHook)
}

/// The findings, folded by checker, kind and PC: text lines (one per
/// fold, with its count and first instance) and JSON.
pub(crate) fn findings(c: &Checker, capsule: &Capsule, text: &mut String) -> (u64, Value) {
    let (hits, dropped) = c.take();
    let mut folds: BTreeMap<(&'static str, &'static str, u64), (u64, &Hit)> = BTreeMap::new();
    for h in &hits {
        folds
            .entry((h.v.kind.tool(), h.v.kind.name(), h.pc))
            .or_insert((0, h))
            .0 += 1;
    }
    let m = &capsule.manifest;
    let place = |addr: u64| {
        m.allocations
            .iter()
            .position(|a| addr >= a.base && addr - a.base < a.size)
            .map(|i| format!(" (a{i}+{:#x})", addr - m.allocations[i].base))
            .unwrap_or_default()
    };
    let mut list = Vec::new();
    for ((tool, kind, pc), (n, h)) in &folds {
        let lane = h.v.lane.map(|l| format!(" lane {l}")).unwrap_or_default();
        let [x, y, z] = h.workgroup;
        let _ = writeln!(
            text,
            "{tool}: {kind}: {} of {} bytes at {:#x}{} by work-group ({x},{y},{z}) wave {}{lane} at pc {pc:#x} `{}` ({n} time(s))",
            h.v.access.name(),
            h.v.size,
            h.v.addr,
            if h.v.kind.space() == "global" { place(h.v.addr) } else { format!(" ({})", h.v.kind.space()) },
            h.wave,
            h.inst,
        );
        list.push(json!({
            "checker": tool, "kind": kind, "access": h.v.access.name(), "size": h.v.size,
            "address": h.v.addr, "space": h.v.kind.space(), "pc": pc, "instruction": h.inst,
            "workgroup": h.workgroup, "wave": h.wave, "lane": h.v.lane, "count": n,
        }));
    }
    let total = hits.len() as u64 + dropped;
    let mut names: Vec<&str> = Vec::new();
    if c.checks.memcheck {
        names.push("memcheck");
    }
    if c.checks.initcheck {
        names.push("initcheck");
    }
    if c.checks.synccheck {
        names.push("synccheck");
    }
    let _ = writeln!(
        text,
        "{}: {total} finding(s){}",
        names.join(", "),
        if total == 0 { "" } else { " (above)" }
    );
    (total, Value::Array(list))
}

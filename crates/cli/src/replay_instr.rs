//! `lathe replay --tool NAME` and `--check LIST`: a replay instrumented
//! with a built-in lathe-dbi tool, or run under the sanitizer's checkers
//! (issue 22). The captured memory is the same either way, and the
//! allocations are still compared with the captured after-state: a tool
//! or a checker must not change what the kernel computes.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anyhow::{bail, Context, Result};
use lathe_capsule::read::Capsule;
use lathe_dbi::tools::{self, Tool, ToolBuild};
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

/// `--tool NAME`: the code object carrying the kernel (`code`, else the
/// capsule's), instrumented for the kernel only.
pub(crate) fn instrument(name: &str, c: &Capsule, code: Option<&[u8]>) -> Result<ToolBuild> {
    if name.contains('/') || name.ends_with(".json") || std::path::Path::new(name).is_dir() {
        bail!("--tool {name}: lathe replay runs the built-in tools ({}); HIP tools run under lathe exec --tool and lathe run --tool", Tool::ALL.map(|t| t.name()).join(", "));
    }
    let tool = Tool::parse(name).with_context(|| {
        format!(
            "--tool {name}: unknown tool (tools: {})",
            Tool::ALL.map(|t| t.name()).join(", ")
        )
    })?;
    let bytes = match code {
        Some(b) => b,
        None => kernel_code_object(c).context("no code object holds the kernel descriptor")?,
    };
    let kernel = &c.manifest.kernel;
    let re = format!("^{}$", regex::escape(kernel));
    let b = tools::instrument(bytes, tool, Some(&re))
        .with_context(|| format!("--tool {name}: instrumenting {kernel}"))?;
    if let Some((_, why)) = b.skipped.iter().find(|(k, _)| k == kernel) {
        bail!("--tool {name}: {kernel} cannot be instrumented: {why}");
    }
    Ok(b)
}

/// Points the instrumented code object's data variable at a fresh zeroed
/// buffer and returns the buffer's address.
pub(crate) fn attach(session: &Session, b: &ToolBuild) -> Result<u64> {
    let var = session
        .exe
        .symbol(lathe_dbi::elfout::DATA_SYMBOL)
        .context("the instrumented code object has no probe data variable")?
        .address;
    let buf = session
        .upload(&vec![0u8; b.data_size.max(1) as usize])
        .map_err(|e| anyhow::anyhow!("the probe data buffer: {e}"))?;
    session
        .mem
        .view()
        .store_u64(var, buf)
        .map_err(|e| anyhow::anyhow!("the probe data variable: {e}"))?;
    Ok(buf)
}

/// The tool's result after the replay.
pub(crate) fn result(session: &Session, b: &ToolBuild, buf: u64, kernel: &str) -> Result<Value> {
    let data = session
        .download(buf, b.data_size)
        .map_err(|e| anyhow::anyhow!("reading the probe data: {e}"))?;
    tools::decode(b, kernel, &data).context("decoding the probe data")
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

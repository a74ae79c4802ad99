//! `lathe instrument`: write a code object instrumented with a built-in
//! tool (lathe-dbi), and the tool glue `lathe run --tool` uses.

use std::path::Path;

use anyhow::{bail, Context, Result};
use lathe_bundle::TargetId;
use lathe_dbi::tools::{self, Tool};
use lathe_emu::launch::Arg;
use lathe_emu::run::Options;
use lathe_emu::session::Shape;
use serde_json::json;

use crate::input::Input;
use crate::objects::code_objects;
use crate::output::{print, print_json, Ctx};
use crate::InstrumentArgs;

fn tool(name: &str) -> Result<Tool> {
    Tool::parse(name).with_context(|| {
        format!(
            "unknown tool '{name}' (tools: {})",
            Tool::ALL.map(|t| t.name()).join(", ")
        )
    })
}

/// `lathe instrument`.
pub fn run(ctx: &Ctx, a: InstrumentArgs) -> Result<()> {
    let t = tool(&a.tool)?;
    let input = Input::open(&a.file)?;
    let agent: Option<TargetId> = a
        .target
        .as_deref()
        .map(|s| {
            s.parse()
                .with_context(|| format!("invalid target ID '{s}'"))
        })
        .transpose()?;
    let objects = code_objects(&input, agent.as_ref(), lathe_bundle::Policy::Clang)?;
    if objects.len() != 1 {
        bail!(
            "{}: {} code objects; pick one with --target",
            input.name(),
            objects.len()
        );
    }
    let b = tools::instrument(&objects[0].bytes, t, a.kernel.as_deref())
        .with_context(|| format!("instrumenting {}", objects[0].origin))?;
    std::fs::write(&a.output, &b.code_object)
        .with_context(|| format!("cannot write {}", a.output.display()))?;
    if ctx.json {
        return print_json(&json!({
            "tool": t.name(),
            "output": a.output.display().to_string(),
            "bytes": b.code_object.len(),
            "data_bytes": b.data_size,
            "relaxed_branches": b.relaxed_branches,
            "skipped": b.skipped.iter().map(|(k, why)| json!({"kernel": k, "why": why})).collect::<Vec<_>>(),
            "sites": b.sites,
        }));
    }
    for (k, why) in &b.skipped {
        eprintln!("warning: {k} left uninstrumented: {why}");
    }
    print(&format!(
        "{}: {} sites, {} bytes of probe data per dispatch, {} long jumps; wrote {} ({} bytes)\n",
        t.name(),
        b.sites.len(),
        b.data_size,
        b.relaxed_branches,
        a.output.display(),
        b.code_object.len()
    ))
}

/// `lathe run --tool`: instrument, run, write the tool's output.
#[allow(clippy::too_many_arguments)]
pub fn run_tool(
    ctx: &Ctx,
    name: &str,
    out: Option<&Path>,
    agent: TargetId,
    objects: &[&[u8]],
    kernel: &str,
    shape: Shape,
    args: &[Arg],
    opts: &Options,
) -> Result<()> {
    let t = tool(name)?;
    let (run, b) = tools::run(
        agent,
        objects,
        kernel,
        t,
        shape,
        args,
        opts,
        &tools::RunOptions::default(),
    )
    .with_context(|| format!("running {kernel} under {name}"))?;
    crate::run_cmd::write_outputs(&run.session, &run.buffers)?;
    if let Some(p) = out {
        let text = serde_json::to_string_pretty(&run.result)?;
        std::fs::write(p, text).with_context(|| format!("cannot write {}", p.display()))?;
        if let Some(t) = &run.trace {
            // mem-trace: the accesses as CSV and as a Perfetto trace.
            let csv = p.with_extension("csv");
            std::fs::write(&csv, tools::trace_csv(&b, t))
                .with_context(|| format!("cannot write {}", csv.display()))?;
            let pf = p.with_extension("perfetto.json");
            std::fs::write(&pf, serde_json::to_string(&tools::trace_perfetto(&b, t))?)
                .with_context(|| format!("cannot write {}", pf.display()))?;
        }
    }
    if ctx.json {
        return print_json(&json!({
            "kernel": kernel,
            "workgroups": run.report.workgroups,
            "waves": run.report.waves,
            "wave_instructions_with_probes": run.report.wave_instructions,
            "tool": run.result,
        }));
    }
    print(&format!("{}\n", serde_json::to_string_pretty(&run.result)?))
}

//! `lathe instrument`: write a code object instrumented with a built-in
//! tool (lathe-dbi). `lathe run --tool` runs one (run_cmd/tool.rs).

use anyhow::{bail, Context, Result};
use lathe_bundle::TargetId;
use lathe_dbi::tools::{self, Tool};
use serde_json::json;

use crate::input::Input;
use crate::objects::code_objects;
use crate::output::{print, print_json, Ctx};
use crate::InstrumentArgs;

fn tool(name: &str) -> Result<Tool> {
    Tool::named(name).map_err(anyhow::Error::msg)
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

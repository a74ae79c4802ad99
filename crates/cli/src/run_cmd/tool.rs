//! `lathe run --tool`: the launch instrumented with a built-in tool
//! (lathe-dbi) or a tool written in HIP ([`lathe_dbi::manifest`]); then the
//! same `out=` files, `--dump` and `--expect` as a plain run, and text
//! output unless `--json`.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Context, Result};
use lathe_bundle::TargetId;
use lathe_dbi::tools::{self, Tool};
use lathe_dbi_run::Stopped;
use lathe_emu::run::{Options, Report};
use lathe_emu::session::{BufferOut, Session};
use serde_json::{json, Value};

use super::args::Step;
use super::{expect, report, report::write_outputs};
use crate::output::{print, print_json, Ctx};
use crate::RunArgs;

/// `--tool` names a HIP tool (a directory with `tool.json`, or a manifest
/// file) rather than a built-in tool (a built-in name wins over a
/// directory of that name unless written as a path, `./instr-count`).
fn is_tool_path(tool: &str) -> bool {
    let p = Path::new(tool);
    let builtin = Tool::ALL.iter().any(|t| t.name() == tool);
    tool.contains('/') || tool.ends_with(".json") || (!builtin && (p.is_dir() || p.is_file()))
}

fn builtin(name: &str) -> Result<Tool> {
    Tool::parse(name).with_context(|| {
        format!(
            "unknown tool '{name}' (tools: {})",
            Tool::ALL.map(|t| t.name()).join(", ")
        )
    })
}

/// What a tool run left to report.
struct Done {
    session: Session,
    buffers: Vec<BufferOut>,
    report: Report,
    /// The tool's result (`--tool-out`, and `tool` in JSON).
    result: Value,
    /// JSON fields of this kind of tool.
    json: Value,
    /// Text lines of this kind of tool, before the result.
    lines: Vec<String>,
}

/// A built-in tool: instrument, run, write `--tool-out` (mem-trace also
/// its CSV and Perfetto trace).
fn run_builtin(
    name: &str,
    out: Option<&Path>,
    agent: TargetId,
    objects: &[&[u8]],
    kernel: &str,
    step: &Step,
    opts: &Options,
) -> Result<Result<Done, Box<Stopped>>> {
    let t = builtin(name)?;
    let ran = lathe_dbi_run::builtin::run(
        agent,
        objects,
        kernel,
        t,
        step.shape,
        &step.args,
        opts,
        &lathe_dbi_run::builtin::RunOptions::default(),
    );
    let (run, b) = match ran {
        Ok(r) => r,
        Err(lathe_dbi_run::Error::Stopped(s)) => return Ok(Err(s)),
        Err(e) => {
            return Err(anyhow::Error::new(e).context(format!("running {kernel} under {name}")))
        }
    };
    if let Some(p) = out {
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
    Ok(Ok(Done {
        json: json!({ "tool": run.result }),
        lines: Vec::new(),
        session: run.session,
        buffers: run.buffers,
        report: run.report,
        result: run.result,
    }))
}

/// A HIP tool: the kernel's code object instrumented with its hooks,
/// loaded with the compiled tool code object into one session.
fn run_hip(
    path: &Path,
    agent: TargetId,
    objects: &[&[u8]],
    kernel: &str,
    step: &Step,
    opts: &Options,
) -> Result<Result<Done, Box<Stopped>>> {
    // Hooks are built in the wave size of the object defining the kernel
    // (a wave64 gfx1030 kernel gets wave64 hooks).
    let defining = objects
        .iter()
        .find(|o| lathe_dbi::tools::kernel_named(o, kernel).is_some());
    let tool = match defining {
        Some(o) => lathe_dbi::HipTool::load_for(path, o),
        None => lathe_dbi::HipTool::load(path, &agent.processor.to_string()),
    }
    .with_context(|| format!("loading the HIP tool {}", path.display()))?;
    let ran = lathe_dbi_run::hip::run(
        agent, objects, kernel, &tool, step.shape, &step.args, opts, false,
    );
    let run = match ran {
        Ok(r) => r,
        Err(lathe_dbi_run::Error::Stopped(s)) => return Ok(Err(s)),
        Err(e) => {
            return Err(
                anyhow::Error::new(e).context(format!("running {kernel} under {}", path.display()))
            )
        }
    };
    let mut lines: Vec<String> = run.line.iter().cloned().collect();
    lines.push(format!("{} hook site(s)", run.build.sites.len()));
    Ok(Ok(Done {
        json: json!({
            "sites": run.build.sites.len(),
            "tool": {
                "path": path.display().to_string(),
                "report": run.result,
                "line": run.line,
            },
        }),
        lines,
        session: run.session,
        buffers: run.buffers,
        report: run.report,
        result: run.result,
    }))
}

/// `lathe run --tool`: one launch under the tool `tool`.
#[allow(clippy::too_many_arguments)]
pub(super) fn run(
    ctx: &Ctx,
    a: &RunArgs,
    tool: &str,
    agent: TargetId,
    objects: &[&[u8]],
    kernel: &str,
    step: &Step,
    opts: &Options,
) -> Result<()> {
    let out = a.tool_out.as_deref();
    let done = if is_tool_path(tool) {
        run_hip(Path::new(tool), agent, objects, kernel, step, opts)?
    } else {
        run_builtin(tool, out, agent, objects, kernel, step, opts)?
    };
    let done = match done {
        Ok(d) => d,
        // A fault, the watchdog or a signal: worded as a plain run words
        // it, at the original code object's addresses.
        Err(stopped) => {
            let t = report::Tool {
                stopped: &stopped,
                name: tool,
            };
            let Some(msg) = report::tool_fault_report(&t, step) else {
                bail!("running {kernel} under {tool}: {}", stopped.error);
            };
            let msg = report::with_outputs(
                msg.trim_end().to_string(),
                &stopped.session,
                &stopped.buffers,
            );
            bail!("{msg}");
        }
    };
    if let Some(p) = out {
        let text = serde_json::to_string_pretty(&done.result)?;
        std::fs::write(p, text).with_context(|| format!("cannot write {}", p.display()))?;
    }
    let mut text = String::new();
    let (grid, block) = (step.shape.grid, step.shape.block);
    let _ = writeln!(
        text,
        "{kernel} on {agent} under {tool}: grid {}x{}x{} block {}x{}x{}",
        grid[0], grid[1], grid[2], block[0], block[1], block[2]
    );
    let _ = writeln!(
        text,
        "{} work-groups, {} waves, {} wave-instructions (with the tool's probes)",
        done.report.workgroups, done.report.waves, done.report.wave_instructions
    );
    for l in &done.lines {
        let _ = writeln!(text, "{l}");
    }
    text.push_str(&result_text(&done.result));
    for w in write_outputs(&done.session, &done.buffers)? {
        let _ = writeln!(text, "{w}");
    }
    if let Some(p) = out {
        let _ = writeln!(text, "wrote the tool's result to {}", p.display());
    }
    let dumps = expect::dumps(&done.session, &done.buffers, &a.dump, &mut text)?;
    let (expects, failures) =
        expect::expectations(&done.session, &done.buffers, &a.expect, &mut text)?;
    if ctx.json {
        let mut j = json!({
            "kernel": kernel,
            "workgroups": done.report.workgroups,
            "waves": done.report.waves,
            "wave_instructions_with_probes": done.report.wave_instructions,
            "dumps": dumps,
            "expect": expects,
        });
        if let (Value::Object(j), Value::Object(extra)) = (&mut j, done.json) {
            j.extend(extra);
        }
        print_json(&j)?;
    } else {
        print(&text)?;
    }
    if !failures.is_empty() {
        bail!("{}", failures.join("; "));
    }
    Ok(())
}

/// A tool's result as text: `key: value` for scalars, `key: k=v k=v` for a
/// flat object, and a table for an array of objects (`block-count`'s
/// blocks, `opcode-hist`'s opcodes, `kernarg`'s args).
fn result_text(v: &Value) -> String {
    let mut t = String::new();
    let Value::Object(m) = v else {
        let _ = writeln!(t, "result: {v}");
        return t;
    };
    let scalar = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    for (k, v) in m {
        match v {
            Value::Array(rows) if rows.iter().all(Value::is_object) && !rows.is_empty() => {
                let mut cols: Vec<&str> = Vec::new();
                for r in rows {
                    for c in r.as_object().into_iter().flat_map(|o| o.keys()) {
                        if !cols.contains(&c.as_str()) {
                            cols.push(c);
                        }
                    }
                }
                // Code addresses in hex, as `disasm` prints them.
                let cell = |c: &str, v: &Value| match (c, v.as_u64()) {
                    ("start" | "end" | "pc" | "address", Some(x)) => format!("{x:#x}"),
                    _ => scalar(v),
                };
                let cells: Vec<Vec<String>> = rows
                    .iter()
                    .map(|r| cols.iter().map(|c| cell(c, &r[*c])).collect())
                    .collect();
                let widths: Vec<usize> = cols
                    .iter()
                    .enumerate()
                    .map(|(i, c)| cells.iter().map(|r| r[i].len()).fold(c.len(), usize::max))
                    .collect();
                let _ = writeln!(t, "{k} ({}):", rows.len());
                let row = |t: &mut String, r: &[String]| {
                    let line: Vec<String> = r
                        .iter()
                        .zip(&widths)
                        .map(|(c, w)| format!("{c:>w$}"))
                        .collect();
                    let _ = writeln!(t, "  {}", line.join("  ").trim_end());
                };
                row(
                    &mut t,
                    &cols.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
                );
                for r in &cells {
                    row(&mut t, r);
                }
            }
            Value::Object(o) if o.values().all(|x| !x.is_object() && !x.is_array()) => {
                let parts: Vec<String> = o
                    .iter()
                    .map(|(a, b)| format!("{a}={}", scalar(b)))
                    .collect();
                let _ = writeln!(t, "{k}: {}", parts.join(" "));
            }
            Value::Array(_) | Value::Object(_) => {
                let _ = writeln!(t, "{k}: {v}");
            }
            other => {
                let _ = writeln!(t, "{k}: {}", scalar(other));
            }
        }
    }
    t
}

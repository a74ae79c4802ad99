//! `lathe run`: load a code object (or the code objects a file carries for
//! one target), launch one kernel on the emulator, write outputs, and print
//! a summary.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Context, Result};
use lathe_bundle::TargetId;
use lathe_emu::launch::{dims3, parse_cli_arg, Arg, LaunchSpec};
use lathe_emu::run::Options;
use lathe_emu::session::{Session, Shape};
use serde_json::json;

use crate::input::Input;
use crate::objects::code_objects;
use crate::output::{print, print_json, Ctx};
use crate::RunArgs;

fn parse_dims(s: &str, what: &str) -> Result<Vec<u32>> {
    s.split(',')
        .map(|x| {
            x.trim()
                .parse::<u32>()
                .with_context(|| format!("--{what} '{s}': expected X[,Y[,Z]]"))
        })
        .collect()
}

/// `lathe run`.
pub fn run(ctx: &Ctx, a: RunArgs) -> Result<()> {
    let spec = match &a.spec {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read {}", p.display()))?;
            Some(
                LaunchSpec::from_json(&text, p.parent().unwrap_or(Path::new(".")))
                    .with_context(|| format!("{}", p.display()))?,
            )
        }
        None => None,
    };
    let kernel = a
        .kernel
        .clone()
        .or_else(|| spec.as_ref().map(|s| s.kernel.clone()))
        .context("--kernel is required (or a --spec naming it)")?;
    let target_s = a
        .target
        .clone()
        .or_else(|| spec.as_ref().and_then(|s| s.target.clone()))
        .unwrap_or_else(|| "gfx90a".into());
    let agent: TargetId = target_s
        .parse()
        .with_context(|| format!("invalid target ID '{target_s}'"))?;
    let (grid, block, dims) = match (&a.grid, &a.block, &spec) {
        (Some(g), Some(b), _) => {
            let (g, gd) = dims3(&parse_dims(g, "grid")?, "grid").map_err(anyhow::Error::msg)?;
            let (b, bd) = dims3(&parse_dims(b, "block")?, "block").map_err(anyhow::Error::msg)?;
            (g, b, gd.max(bd))
        }
        (_, _, Some(s)) => (s.grid, s.block, s.dims),
        _ => bail!("--grid and --block are required (or a --spec)"),
    };
    let args: Vec<Arg> = if a.args.is_empty() {
        spec.as_ref().map(|s| s.args.clone()).unwrap_or_default()
    } else {
        a.args
            .iter()
            .enumerate()
            .map(|(i, s)| parse_cli_arg(i, s))
            .collect::<Result<_, _>>()?
    };
    let dynamic_lds = a
        .dynamic_lds
        .or(spec.as_ref().map(|s| s.dynamic_lds))
        .unwrap_or(0);
    let input = Input::open(&a.file)?;
    let objects = code_objects(&input, Some(&agent), a.policy.into())?;
    if objects.is_empty() {
        bail!("{}: no code object for {agent}", input.name());
    }
    let bytes: Vec<&[u8]> = objects.iter().map(|o| o.bytes.as_slice()).collect();
    if let Some(tool) = &a.tool {
        let opts = Options {
            threads: a.threads,
            check_waitcnt: !a.no_waitcnt_check,
            ..Options::default()
        };
        let shape = Shape {
            grid,
            block,
            dims,
            dynamic_lds,
        };
        return crate::instrument_cmd::run_tool(
            ctx,
            tool,
            a.tool_out.as_deref(),
            agent,
            &bytes,
            &kernel,
            shape,
            &args,
            &opts,
        );
    }
    let session = Session::load(agent, &bytes)
        .with_context(|| format!("loading {} for {agent}", input.name()))?;
    if !(a.timeout >= 0.0 && a.timeout.is_finite()) {
        bail!("--timeout {}: expected a number of seconds >= 0", a.timeout);
    }
    let opts = Options {
        threads: a.threads,
        timeout: (a.timeout > 0.0).then(|| std::time::Duration::from_secs_f64(a.timeout)),
        check_waitcnt: !a.no_waitcnt_check,
        ..Options::default()
    };
    let shape = Shape {
        grid,
        block,
        dims,
        dynamic_lds,
    };
    let (report, buffers) = session.launch(&kernel, shape, &args, &opts)?;
    for b in &buffers {
        if let Some(path) = &b.output {
            let data = session
                .download(b.addr, b.size)
                .with_context(|| format!("reading buffer {}", b.name))?;
            std::fs::write(path, data).with_context(|| format!("cannot write {path}"))?;
        }
    }
    let secs = report.elapsed.as_secs_f64();
    let rate = report.wave_instructions as f64 / secs.max(1e-9);
    if ctx.json {
        return print_json(&json!({
            "kernel": kernel,
            "target": agent.to_string(),
            "grid": grid, "block": block,
            "workgroups": report.workgroups,
            "waves": report.waves,
            "wave_instructions": report.wave_instructions,
            "seconds": secs,
            "wave_instructions_per_second": rate,
            "threads": report.threads,
            "per_opcode": report.per_opcode.iter().map(|(o, n)| json!({"opcode": o.name(), "count": n})).collect::<Vec<_>>(),
            "outputs": buffers.iter().filter_map(|b| b.output.clone()).collect::<Vec<_>>(),
        }));
    }
    let mut t = String::new();
    let _ = writeln!(t, "{kernel} on {agent}: grid {grid:?} block {block:?}");
    let _ = writeln!(
        t,
        "{} work-groups, {} waves, {} wave-instructions in {:.3} ms ({:.1} M wave-instr/s, {} thread(s))",
        report.workgroups,
        report.waves,
        report.wave_instructions,
        secs * 1e3,
        rate / 1e6,
        report.threads
    );
    let _ = writeln!(t, "top opcodes:");
    for (o, n) in report.per_opcode.iter().take(10) {
        let _ = writeln!(
            t,
            "  {:>12}  {:5.1}%  {}",
            n,
            100.0 * *n as f64 / report.wave_instructions.max(1) as f64,
            o.name()
        );
    }
    for b in &buffers {
        if let Some(p) = &b.output {
            let _ = writeln!(t, "wrote {} ({} bytes) to {p}", b.name, b.size);
        }
    }
    print(&t)
}

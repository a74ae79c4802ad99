//! `lathe run`: load a code object (or the code objects a file carries for
//! one target), launch one kernel or a sequence of kernels sharing buffers
//! on the emulator, write outputs, dump and check buffers and device
//! globals, and print a summary. A fault is reported at the code-object
//! address `disasm` prints, with the kernel and offset, the wave, and the
//! buffer the address belongs to (or lies nearest to).
//!
//! Parts: [`args`] plans the launches from the spec and the command line,
//! [`expect`] sets, dumps and checks memory, [`report`] words a stopped
//! launch and writes `out=` files, [`tool`] runs under `--tool`, [`check`]
//! runs the sanitizer (`--check`).

mod args;
mod check;
mod expect;
mod report;
mod tool;

use std::fmt::Write as _;

use anyhow::{bail, Context, Result};
use lathe_bundle::TargetId;
use lathe_emu::launch::Arg;
use lathe_emu::run::Options;
use lathe_emu::session::{BufferOut, Session};
use serde_json::{json, Value};

use crate::input::Input;
use crate::objects::code_objects;
use crate::output::{byte_bar, print, print_json, Ctx, ProgressLines};
use crate::RunArgs;
use args::{grid_warnings, plan, warnings};
pub(crate) use args::{mem_available, Step};
pub(crate) use expect::{dumps, expectations};
pub(crate) use report::write_outputs;
pub(crate) use report::{fault_report, with_dispatch_bar};

/// `lathe run`.
pub fn run(ctx: &Ctx, a: RunArgs) -> Result<()> {
    if a.policy.is_some() && a.target.is_none() {
        bail!("--policy needs --target (it chooses among code objects for a target)");
    }
    let mut check = a
        .check
        .as_deref()
        .map(|l| check::RunCheck::new(l, a.check_json.as_deref()))
        .transpose()?;
    let (steps, spec_target) = plan(&a)?;
    args::check_memory(&steps, args::mem_available())?;
    for step in &steps {
        for w in grid_warnings(step) {
            eprintln!("lathe: warning: {}: {w}", step.kernel);
        }
    }
    crate::signals::stop_emulator_on_signal();
    let target_s = a
        .target
        .clone()
        .or(spec_target)
        .unwrap_or_else(|| "gfx90a".into());
    let agent: TargetId = crate::bundle_cmd::parse_targets(std::slice::from_ref(&target_s))?
        .into_iter()
        .next()
        .context("no target")?;
    let input = Input::open(&a.file)?;
    crate::input::ensure_known(&input)?;
    let policy = a.policy.unwrap_or(crate::PolicyArg::Clang);
    let objects = code_objects(&input, Some(&agent), policy.into())?;
    if objects.is_empty() {
        bail!("{}: no code object for {agent}", input.name());
    }
    let bytes: Vec<&[u8]> = objects.iter().map(|o| o.bytes.as_slice()).collect();
    if !(a.timeout >= 0.0 && a.timeout.is_finite()) {
        bail!("--timeout {}: expected a number of seconds >= 0", a.timeout);
    }
    let timeout = (a.timeout > 0.0).then(|| std::time::Duration::from_secs_f64(a.timeout));
    if let Some(tool) = &a.tool {
        let [step] = steps.as_slice() else {
            bail!("--tool runs one launch; the spec has {}", steps.len());
        };
        // The kernel named as every command names it (lathe_codeobj::names).
        let probe = Session::load(agent, &bytes)
            .with_context(|| format!("loading {} for {agent}", input.name()))?;
        let kernel = probe
            .kernel_metadata(&step.kernel)
            .map(|(s, _)| s.name.clone())
            .with_context(|| format!("{}: --kernel {}", input.name(), step.kernel))?;
        for w in warnings(&probe, step) {
            eprintln!("lathe: warning: {w}");
        }
        let opts = Options {
            threads: a.threads,
            check_waitcnt: !a.no_waitcnt_check,
            timeout,
            ..Options::default()
        };
        return tool::run(ctx, &a, tool, agent, &bytes, &kernel, step, &opts);
    }
    let session = Session::load(agent, &bytes)
        .with_context(|| format!("loading {} for {agent}", input.name()))?;
    let mut notes = Vec::new();
    for s in &a.set {
        let n = expect::set_global(&session, s)?;
        notes.push(format!("set {n}"));
    }
    let mut buffers: Vec<BufferOut> = Vec::new();
    let mut launches_json = Vec::new();
    let mut text = String::new();
    for (i, step) in steps.iter().enumerate() {
        for w in warnings(&session, step) {
            eprintln!("lathe: warning: {w}");
        }
        let opts_base = Options {
            threads: a.threads,
            check_waitcnt: !a.no_waitcnt_check,
            timeout,
            check: check.as_ref().map(check::RunCheck::hook),
            ..Options::default()
        };
        let fill_total: u64 = step
            .args
            .iter()
            .map(|x| match x {
                Arg::Buffer { size, .. } => *size,
                _ => 0,
            })
            .sum();
        let bar = byte_bar(ctx, fill_total, "filling buffers");
        if fill_total < (64 << 20) {
            bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        }
        // Without a terminal, a line every few seconds for large buffers.
        let mut lines = ProgressLines::bytes(ctx, "filling buffers", fill_total, 256 << 20);
        let total_wgs: u64 = (0..3)
            .map(|d| u64::from(step.shape.grid[d].div_ceil(step.shape.block[d].max(1))))
            .product();
        let result = with_dispatch_bar(ctx, total_wgs, |progress| {
            let opts = Options {
                progress,
                ..opts_base
            };
            session.launch_in(
                &step.kernel,
                step.shape,
                &step.args,
                &opts,
                &mut buffers,
                &mut |n| {
                    lines.update(n);
                    if n >= bar.position() + (16 << 20) || n == fill_total {
                        bar.set_position(n);
                    }
                    if n == fill_total {
                        bar.finish_and_clear();
                    }
                },
            )
        });
        bar.finish_and_clear();
        let name = session
            .kernel_metadata(&step.kernel)
            .map(|(s, _)| s.name.clone())
            .unwrap_or_else(|_| step.kernel.clone());
        if let Some(c) = check.as_mut() {
            c.after_launch(&session, &name, step.shape.block);
        }
        let report = match result {
            Ok(r) => r,
            Err(e) => {
                let report = fault_report(&session, step, &buffers, &e);
                let mut msg = match report {
                    Some(r) => r.trim_end().to_string(),
                    None => {
                        return Err(
                            anyhow::Error::new(e).context(format!("launch of {}", step.kernel))
                        )
                    }
                };
                // Outputs hold what the kernel wrote before it stopped.
                msg = report::with_outputs(msg, &session, &buffers);
                if steps.len() > 1 {
                    msg = format!("launch {} of {}: {msg}", i + 1, steps.len());
                }
                if let Some(c) = check.take() {
                    c.finish()?;
                }
                bail!("{msg}");
            }
        };
        let secs = report.elapsed.as_secs_f64();
        let rate = report.wave_instructions as f64 / secs.max(1e-9);
        let (grid, block) = (step.shape.grid, step.shape.block);
        launches_json.push(json!({
            "kernel": name,
            "grid": grid, "block": block,
            "workgroups": report.workgroups,
            "waves": report.waves,
            "wave_instructions": report.wave_instructions,
            "seconds": secs,
            "wave_instructions_per_second": rate,
            "threads": report.threads,
            "per_opcode": report.per_opcode.iter().map(|(o, n)| json!({"opcode": o.name(), "count": n})).collect::<Vec<_>>(),
        }));
        let _ = writeln!(
            text,
            "{name} on {agent}: grid {}x{}x{} block {}x{}x{}",
            grid[0], grid[1], grid[2], block[0], block[1], block[2]
        );
        let _ = writeln!(
            text,
            "{} work-groups, {} waves, {} wave-instructions in {:.3} ms ({:.1} M wave-instr/s, {} thread(s))",
            report.workgroups,
            report.waves,
            report.wave_instructions,
            secs * 1e3,
            rate / 1e6,
            report.threads
        );
        let _ = writeln!(text, "top opcodes:");
        for (o, n) in report.per_opcode.iter().take(10) {
            let _ = writeln!(
                text,
                "  {:>12}  {:5.1}%  {}",
                n,
                100.0 * *n as f64 / report.wave_instructions.max(1) as f64,
                o.name()
            );
        }
    }
    let written = write_outputs(&session, &buffers)?;
    for w in &written {
        let _ = writeln!(text, "{w}");
    }
    let dumps_json = expect::dumps(&session, &buffers, &a.dump, &mut text)?;
    let (expect_json, failures) = expect::expectations(&session, &buffers, &a.expect, &mut text)?;
    for n in &notes {
        let _ = writeln!(text, "{n}");
    }
    if ctx.json {
        let mut j = json!({
            "target": agent.to_string(),
            "launches": launches_json,
            "outputs": buffers.iter().filter_map(|b| b.output.clone()).collect::<Vec<_>>(),
            "dumps": dumps_json,
            "expect": expect_json,
        });
        // A single launch keeps its fields at the top level too.
        if let (Some(Value::Object(l)), 1) = (launches_json_first(&j), steps.len()) {
            for (k, v) in l {
                j[k.as_str()] = v;
            }
        }
        print_json(&j)?;
    } else {
        print(&text)?;
    }
    if !failures.is_empty() {
        bail!("{}", failures.join("; "));
    }
    if let Some(c) = check {
        if c.finish()? {
            std::process::exit(crate::exec_check::CHECK_FAILED_EXIT);
        }
    }
    Ok(())
}

fn launches_json_first(j: &Value) -> Option<Value> {
    j["launches"].as_array()?.first().cloned()
}

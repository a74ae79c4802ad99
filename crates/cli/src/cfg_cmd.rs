//! `lathe cfg`: the control-flow graph of a kernel or device function (and
//! what it calls) with live registers at block boundaries, as text,
//! Graphviz dot or JSON (lathe-dbi's lifting and liveness).

use anyhow::{bail, Context, Result};
use lathe_codeobj::CodeObject;
use lathe_dbi::cfg::{self, Format};
use lathe_dbi::{Liveness, Program};

use crate::input::Input;
use crate::objects::code_objects;
use crate::output::{print, Ctx};
use crate::CfgArgs;

/// `lathe cfg`.
pub fn run(ctx: &Ctx, a: CfgArgs) -> Result<()> {
    let input = Input::open(&a.file)?;
    let agent = a
        .target
        .as_deref()
        .map(|t| {
            t.parse()
                .with_context(|| format!("invalid target ID '{t}'"))
        })
        .transpose()?;
    let objects = code_objects(&input, agent.as_ref(), lathe_bundle::Policy::Clang)?;
    let format = if ctx.json {
        Format::Json
    } else {
        match a.format.as_str() {
            "text" => Format::Text,
            "dot" => Format::Dot,
            "json" => Format::Json,
            f => bail!("--format {f}: expected text, dot or json"),
        }
    };
    for o in &objects {
        let co = CodeObject::parse(&o.bytes).with_context(|| o.origin.clone())?;
        let p = Program::lift(&co).with_context(|| format!("lifting {}", o.origin))?;
        let Some(fi) = p.functions.iter().position(|f| {
            f.name == a.kernel
                || lathe_loader::mangled_base_name(&f.name) == Some(a.kernel.as_str())
        }) else {
            continue;
        };
        let live = Liveness::compute(&p);
        return print(&cfg::render(&p, &live, fi, format));
    }
    bail!("{}: no kernel or function named {}", input.name(), a.kernel)
}

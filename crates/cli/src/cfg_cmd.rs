//! `lathe cfg`: the control-flow graph of a kernel or device function (and
//! what it calls) with live registers at block boundaries, as text,
//! Graphviz dot or JSON (lathe-dbi's lifting and liveness).

use anyhow::{bail, Context, Result};
use lathe_codeobj::{names, CodeObject};
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
    let mut miss = None;
    for o in &objects {
        let co = CodeObject::parse(&o.bytes).with_context(|| o.origin.clone())?;
        let p = Program::lift(&co).with_context(|| format!("lifting {}", o.origin))?;
        // The kernel named as every command names it (lathe_codeobj::names).
        let names = p.functions.iter().map(|f| f.name.as_str());
        let name = match names::resolve(&a.kernel, names, "kernel or function") {
            Ok(n) => n.to_string(),
            Err(e) => {
                miss.get_or_insert(e);
                continue;
            }
        };
        let Some(fi) = p.functions.iter().position(|f| f.name == name) else {
            continue;
        };
        let live = Liveness::compute(&p);
        return print(&cfg::render(&p, &live, fi, format));
    }
    match miss {
        Some(e) => Err(anyhow::Error::new(e).context(input.name().to_string())),
        None => bail!("{}: no kernel or function named {}", input.name(), a.kernel),
    }
}

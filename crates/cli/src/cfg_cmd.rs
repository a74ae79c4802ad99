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
        let out = cfg::render(&p, &live, fi, format);
        if format == Format::Json {
            let mut j: serde_json::Value =
                serde_json::from_str(&out).context("the rendered graph is not JSON")?;
            register_lists(&mut j);
            return crate::output::print_json(&j);
        }
        return print(&out);
    }
    match miss {
        Some(e) => Err(anyhow::Error::new(e).context(input.name().to_string())),
        None => bail!("{}: no kernel or function named {}", input.name(), a.kernel),
    }
}

/// `live_in`/`live_out` as arrays of register names, one per register
/// (`"s[0:1] exec v0"` → `["s0", "s1", "exec", "v0"]`), wherever they occur.
fn register_lists(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                match x {
                    serde_json::Value::String(s) if k == "live_in" || k == "live_out" => {
                        *x = serde_json::json!(registers(s));
                    }
                    _ => register_lists(x),
                }
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(register_lists),
        _ => {}
    }
}

/// Register names from a liveness list: `s[4:7]` is `s4`..`s7`.
fn registers(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    for tok in s.split_whitespace() {
        let range = tok.split_once('[').and_then(|(file, r)| {
            let (lo, hi) = r.strip_suffix(']')?.split_once(':')?;
            Some((file, lo.parse::<u32>().ok()?, hi.parse::<u32>().ok()?))
        });
        match range {
            Some((file, lo, hi)) if lo <= hi => out.extend((lo..=hi).map(|r| format!("{file}{r}"))),
            _ => out.push(tok.to_string()),
        }
    }
    out
}

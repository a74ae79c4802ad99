//! The CFG of a lifted function as text, Graphviz dot or JSON: blocks with
//! their address ranges and instructions, edges, calls, and the registers
//! live at each block's entry and exit.

use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::lift::{Exit, Program};
use crate::live::Liveness;

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Human-readable listing.
    Text,
    /// Graphviz.
    Dot,
    /// JSON.
    Json,
}

fn callee_name(p: &Program, fi: usize, ci: usize) -> String {
    let c = &p.functions[fi].calls[ci];
    match (c.callee, c.target) {
        (Some(t), _) => p.functions[t].name.clone(),
        (None, Some(a)) => format!("{a:#x}"),
        (None, None) => "<unresolved>".into(),
    }
}

fn exit_name(e: Exit) -> &'static str {
    match e {
        Exit::Local => "local",
        Exit::EndProgram => "s_endpgm",
        Exit::Return => "return",
        Exit::Unresolved => "unresolved",
        Exit::TailCall => "tail call",
        Exit::Trap => "trap",
    }
}

/// Renders function `fi` (and the call graph reachable from it).
pub fn render(p: &Program, live: &Liveness, fi: usize, format: Format) -> String {
    match format {
        Format::Text => text(p, live, fi),
        Format::Dot => dot(p, live, fi),
        Format::Json => serde_json::to_string_pretty(&json_value(p, live, fi)).unwrap_or_default(),
    }
}

/// Functions reachable from `fi` through calls, `fi` first.
pub fn reachable(p: &Program, fi: usize) -> Vec<usize> {
    let mut seen = vec![fi];
    let mut k = 0;
    while k < seen.len() {
        for c in &p.functions[seen[k]].calls {
            if let Some(t) = c.callee {
                if !seen.contains(&t) {
                    seen.push(t);
                }
            }
        }
        k += 1;
    }
    seen
}

fn text(p: &Program, live: &Liveness, fi: usize) -> String {
    let mut s = String::new();
    for g in reachable(p, fi) {
        let f = &p.functions[g];
        let l = &live.functions[g];
        let _ = writeln!(
            s,
            "{} {} [{:#x}, {:#x}) {} instructions, {} blocks",
            match f.kind {
                crate::FunctionKind::Kernel => "kernel",
                crate::FunctionKind::DeviceFunction => "function",
            },
            f.name,
            f.addr,
            f.end(),
            f.insts.len(),
            f.blocks.len()
        );
        for (bi, b) in f.blocks.iter().enumerate() {
            let last = f.insts[b.end - 1];
            let _ = writeln!(
                s,
                "  bb{bi} [{:#x}, {:#x}) preds {:?} succs {:?} exit {}",
                f.insts[b.start].addr,
                last.addr + last.inst.len() as u64,
                b.preds,
                b.succs,
                exit_name(f.exits[bi])
            );
            let _ = writeln!(s, "    live-in:  {}", l.before[b.start]);
            for i in b.start..b.end {
                let x = &f.insts[i];
                let _ = writeln!(s, "    {:#08x}  {}", x.addr, x.inst);
            }
            let _ = writeln!(s, "    live-out: {}", l.after[b.end - 1]);
        }
        for (ci, c) in f.calls.iter().enumerate() {
            let _ = writeln!(
                s,
                "  call at {:#x} -> {}",
                f.insts[c.site].addr,
                callee_name(p, g, ci)
            );
        }
    }
    let un: Vec<_> = p
        .unresolved
        .iter()
        .filter(|u| {
            reachable(p, fi)
                .iter()
                .any(|&g| p.functions[g].name == u.function)
        })
        .collect();
    if !un.is_empty() {
        let _ = writeln!(s, "unresolved:");
        for u in un {
            let _ = writeln!(s, "  {} {:#x} {}: {}", u.function, u.addr, u.inst, u.why);
        }
    }
    s
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn dot(p: &Program, live: &Liveness, fi: usize) -> String {
    let mut s = String::from("digraph cfg {\n  node [shape=box fontname=monospace];\n");
    for g in reachable(p, fi) {
        let f = &p.functions[g];
        let l = &live.functions[g];
        let _ = writeln!(
            s,
            "  subgraph cluster_{g} {{\n    label=\"{}\";",
            esc(&f.name)
        );
        for (bi, b) in f.blocks.iter().enumerate() {
            let mut label = format!("bb{bi} {:#x}\\l", f.insts[b.start].addr);
            let _ = write!(label, "live-in: {}\\l", esc(&l.before[b.start].to_string()));
            for x in &f.insts[b.start..b.end] {
                let _ = write!(label, "{:#x}  {}\\l", x.addr, esc(&x.inst.to_string()));
            }
            let _ = write!(
                label,
                "live-out: {}\\l",
                esc(&l.after[b.end - 1].to_string())
            );
            let _ = writeln!(s, "    f{g}b{bi} [label=\"{label}\"];");
        }
        for (bi, b) in f.blocks.iter().enumerate() {
            for &t in &b.succs {
                let _ = writeln!(s, "    f{g}b{bi} -> f{g}b{t};");
            }
        }
        let _ = writeln!(s, "  }}");
        for c in &f.calls {
            if let Some(t) = c.callee {
                let _ = writeln!(
                    s,
                    "  f{g}b{} -> f{t}b0 [style=dashed label=call];",
                    f.block_of[c.site]
                );
            }
        }
    }
    s.push_str("}\n");
    s
}

/// The CFG as a JSON value.
pub fn json_value(p: &Program, live: &Liveness, fi: usize) -> Value {
    let funcs: Vec<Value> = reachable(p, fi)
        .into_iter()
        .map(|g| {
            let f = &p.functions[g];
            let l = &live.functions[g];
            let blocks: Vec<Value> = f
                .blocks
                .iter()
                .enumerate()
                .map(|(bi, b)| {
                    let last = f.insts[b.end - 1];
                    json!({
                        "index": bi,
                        "start": f.insts[b.start].addr,
                        "end": last.addr + last.inst.len() as u64,
                        "instructions": f.insts[b.start..b.end].iter().map(|x| json!({"addr": x.addr, "text": x.inst.to_string()})).collect::<Vec<_>>(),
                        "succs": b.succs,
                        "preds": b.preds,
                        "exit": exit_name(f.exits[bi]),
                        "live_in": l.before[b.start].to_string(),
                        "live_out": l.after[b.end - 1].to_string(),
                    })
                })
                .collect();
            let calls: Vec<Value> = f
                .calls
                .iter()
                .enumerate()
                .map(|(ci, c)| json!({"addr": f.insts[c.site].addr, "target": c.target, "callee": callee_name(p, g, ci)}))
                .collect();
            json!({"name": f.name, "kind": f.kind, "addr": f.addr, "size": f.size, "blocks": blocks, "calls": calls})
        })
        .collect();
    let unresolved: Vec<&crate::lift::Unresolved> = p.unresolved.iter().collect();
    json!({"functions": funcs, "unresolved": unresolved})
}

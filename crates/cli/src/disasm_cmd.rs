//! `lathe disasm`: listings of kernels and device functions, in Lathe's
//! style or exactly as `llvm-objdump -d --no-show-raw-insn --no-leading-addr`.

use std::fmt::Write as _;

use anyhow::{bail, Context, Result};
use lathe_codeobj::{CodeObject, SymbolSection};
use lathe_isa::{write_listing, ListingSymbol, Style, Target};

use crate::bundle_cmd::parse_targets;
use crate::input::Input;
use crate::objects::code_objects;
use crate::output::{print, Ctx};
use crate::{DisasmArgs, FormatArg};

/// `lathe disasm`.
pub fn run(_ctx: &Ctx, a: DisasmArgs) -> Result<()> {
    let input = Input::open(&a.file)?;
    let target = parse_targets(a.target.as_slice())?.into_iter().next();
    let objects = code_objects(&input, target.as_ref(), a.policy.into())?;
    let style = match a.format {
        FormatArg::Llvm => Style::LlvmObjdump,
        FormatArg::Lathe => Style::Lathe,
    };
    let many = objects.len() > 1;
    let mut text = String::new();
    let mut shown = 0;
    for o in &objects {
        let co = CodeObject::parse(&o.bytes)
            .with_context(|| format!("{}: not a readable code object", o.origin))?;
        let Some(proc_) = co.processor() else {
            continue;
        };
        let Ok(isa) = Target::from_name(proc_.name()) else {
            if !many {
                bail!(
                    "{}: {} code is not supported by the disassembler yet (gfx90a, gfx942)",
                    o.origin,
                    proc_.name()
                );
            }
            continue;
        };
        let Some(sec) = co.section_by_name(".text") else {
            continue;
        };
        let code = co
            .section_data(sec)
            .with_context(|| format!("{}: .text", o.origin))?;
        let (_, syms) = co.primary_symbols();
        let mut list: Vec<ListingSymbol<'_>> = syms
            .iter()
            .filter(|s| s.st_type == 2 && s.section == SymbolSection::Index(sec.index))
            .filter(|s| match &a.kernel {
                None => true,
                Some(k) => {
                    s.name == k || lathe_loader::mangled_base_name(s.name) == Some(k.as_str())
                }
            })
            .map(|s| ListingSymbol {
                name: s.name,
                addr: s.value,
                size: s.size,
            })
            .collect();
        list.sort_by_key(|s| s.addr);
        // Like llvm-objdump, code before the first symbol is listed under
        // the section's own name.
        if a.kernel.is_none() && list.first().is_none_or(|s| s.addr != sec.address) {
            list.insert(
                0,
                ListingSymbol {
                    name: ".text",
                    addr: sec.address,
                    size: 0,
                },
            );
        }
        if a.kernel.is_some() && list.is_empty() {
            continue;
        }
        let (code, base) = if a.kernel.is_some() {
            // Only the selected functions' bytes.
            let lo = list.first().map_or(sec.address, |s| s.addr);
            let hi = list.iter().map(|s| s.addr + s.size).max().unwrap_or(lo);
            let off = (lo - sec.address) as usize;
            (code.get(off..off + (hi - lo) as usize).unwrap_or(&[]), lo)
        } else {
            (code, sec.address)
        };
        if many {
            let _ = writeln!(text, "; {} ({})", o.origin, isa.name());
        }
        write_listing(&mut text, isa, code, base, &list, style).context("formatting")?;
        shown += 1;
    }
    if shown == 0 {
        match &a.kernel {
            Some(k) => bail!(
                "{}: no function named {k} in any gfx90a/gfx942 code object",
                input.name()
            ),
            None => bail!(
                "{}: no gfx90a/gfx942 code object to disassemble",
                input.name()
            ),
        }
    }
    match &a.output {
        Some(p) => {
            std::fs::write(p, &text).with_context(|| format!("cannot write {}", p.display()))
        }
        None => print(&text),
    }
}

//! Function listings: the text of `llvm-objdump -d --no-show-raw-insn
//! --no-leading-addr` for a code section ([`Style::LlvmObjdump`]), or a
//! Lathe listing with addresses and branch labels ([`Style::Lathe`]).

use crate::decode::Decoder;
use crate::inst::Instruction;
use crate::target::Target;
use std::fmt::{self, Write};

/// A symbol in the code section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListingSymbol<'a> {
    /// Name.
    pub name: &'a str,
    /// Address.
    pub addr: u64,
    /// Size in bytes (0 if unknown).
    pub size: u64,
}

/// Listing style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Style {
    /// Same text as `llvm-objdump -d --no-show-raw-insn --no-leading-addr`
    /// prints for the section (without its file/section headers): `<sym>:`
    /// labels, then per instruction a tab, the text, and the
    /// `// ADDRESS: WORDS` comment with branch targets and warnings.
    LlvmObjdump,
    /// Lathe's own listing: address, text, branch targets as local labels
    /// (`.L<func>_<n>`) or `<sym+off>`.
    Lathe,
}

/// Column (after the leading tab) where llvm-objdump starts its comment.
const COMMENT_COLUMN: usize = 59;

/// Writes a listing of `code` (the bytes of the section loaded at
/// `base_addr`) with `symbols` (those inside the section; others are
/// ignored).
pub fn write_listing(
    out: &mut impl Write,
    target: Target,
    code: &[u8],
    base_addr: u64,
    symbols: &[ListingSymbol<'_>],
    style: Style,
) -> fmt::Result {
    let end = base_addr.saturating_add(code.len() as u64);
    let mut syms: Vec<ListingSymbol<'_>> = symbols
        .iter()
        .copied()
        .filter(|s| s.addr >= base_addr && s.addr < end)
        .collect();
    syms.sort_by_key(|s| s.addr);
    match style {
        Style::LlvmObjdump => write_objdump(out, target, code, base_addr, &syms),
        Style::Lathe => write_lathe(out, target, code, base_addr, &syms),
    }
}

/// The symbol `addr` falls in (the last one at or before it).
fn containing<'a>(syms: &[ListingSymbol<'a>], addr: u64) -> Option<ListingSymbol<'a>> {
    let i = syms.partition_point(|s| s.addr <= addr);
    (i > 0).then(|| syms[i - 1])
}

fn write_sym_off(out: &mut impl Write, syms: &[ListingSymbol<'_>], addr: u64) -> fmt::Result {
    match containing(syms, addr) {
        Some(s) if s.addr == addr => write!(out, "<{}>", s.name),
        Some(s) => write!(out, "<{}+0x{:x}>", s.name, addr - s.addr),
        None => write!(out, "<0x{addr:x}>"),
    }
}

fn write_objdump(
    out: &mut impl Write,
    target: Target,
    code: &[u8],
    base: u64,
    syms: &[ListingSymbol<'_>],
) -> fmt::Result {
    let mut line = String::with_capacity(128);
    let mut si = 0usize;
    let mut off = 0usize;
    while off < code.len() {
        let addr = base + off as u64;
        // Labels for symbols at or before this address not yet printed.
        while si < syms.len() && syms[si].addr <= addr {
            writeln!(out)?;
            writeln!(out, "<{}>:", syms[si].name)?;
            si += 1;
        }
        // llvm-objdump skips runs of 8 or more zero bytes (in multiples of
        // 4) up to the end of the current symbol, printing "...".
        let region_end = syms
            .get(si)
            .map(|s| s.addr.saturating_sub(base) as usize)
            .unwrap_or(code.len())
            .min(code.len());
        let zeros = code
            .get(off..region_end)
            .unwrap_or_default()
            .iter()
            .take_while(|&&b| b == 0)
            .count();
        if zeros >= 8 {
            out.write_str("\t\t...\n")?;
            off += zeros & !3;
            continue;
        }
        let inst = crate::decode::decode(target, code.get(off..).unwrap_or_default());
        line.clear();
        line.push('\t');
        inst.write_to(&mut line)?;
        let width = line.len() - 1;
        for _ in width..COMMENT_COLUMN {
            line.push(' ');
        }
        write!(line, "// {addr:012X}:")?;
        if inst.len() < 4 {
            for b in code.get(off..).unwrap_or_default() {
                write!(line, " {b:02X}")?;
            }
        } else {
            for w in inst.words() {
                write!(line, " {w:08X}")?;
            }
        }
        if let Some(t) = inst.branch_target(addr) {
            if inst.opcode().info().enc == crate::opcode::Encoding::Sopp {
                line.push(' ');
                write_sym_off(&mut line, syms, t)?;
            }
        }
        inst.write_warnings(&mut line)?;
        out.write_str(&line)?;
        out.write_char('\n')?;
        off += inst.len().max(1);
    }
    Ok(())
}

fn write_lathe(
    out: &mut impl Write,
    target: Target,
    code: &[u8],
    base: u64,
    syms: &[ListingSymbol<'_>],
) -> fmt::Result {
    // First pass: branch targets get labels.
    let insts: Vec<(u64, Instruction)> = Decoder::new(target, code)
        .map(|(o, i)| (base + o as u64, i))
        .collect();
    let mut targets: Vec<u64> = insts
        .iter()
        .filter_map(|(a, i)| i.branch_target(*a))
        .filter(|t| !syms.iter().any(|s| s.addr == *t))
        .collect();
    targets.sort_unstable();
    targets.dedup();
    let label = |t: u64| -> Option<String> {
        let i = targets.binary_search(&t).ok()?;
        // Numbered from 0 within each function.
        let (f, first) = match containing(syms, t) {
            Some(s) => (s.name, targets.partition_point(|&x| x < s.addr)),
            None => ("text", 0),
        };
        Some(format!(".L{f}_{}", i - first))
    };
    let mut si = 0usize;
    let mut line = String::with_capacity(128);
    for (addr, inst) in &insts {
        while si < syms.len() && syms[si].addr <= *addr {
            writeln!(
                out,
                "\n{}:  ; 0x{:x}, {} bytes",
                syms[si].name, syms[si].addr, syms[si].size
            )?;
            si += 1;
        }
        if let Some(l) = label(*addr) {
            writeln!(out, "{l}:")?;
        }
        line.clear();
        write!(line, "  {addr:8x}:  ")?;
        inst.write_to(&mut line)?;
        if let Some(t) = inst.branch_target(*addr) {
            for _ in line.len()..70 {
                line.push(' ');
            }
            match label(t) {
                Some(l) => write!(line, " ; -> {l}")?,
                None => {
                    line.push_str(" ; -> ");
                    write_sym_off(&mut line, syms, t)?;
                }
            }
        }
        out.write_str(&line)?;
        out.write_char('\n')?;
    }
    Ok(())
}

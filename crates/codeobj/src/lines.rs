//! Source lines of code-object addresses from the DWARF a `-g` build
//! carries (`.debug_info`, `.debug_line`, ...), read with `gimli` and
//! `addr2line`: file, line and column, with the inlined frames, innermost
//! first.

use std::borrow::Cow;

use object::{Object, ObjectSection};

/// One frame of a source position (inlined callee first).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Frame {
    /// The function, demangled when it can be.
    pub function: Option<String>,
    /// The source file as the compiler named it (directory joined).
    pub file: Option<String>,
    /// Line, from 1.
    pub line: Option<u32>,
    /// Column, from 1.
    pub column: Option<u32>,
}

impl std::fmt::Display for Frame {
    /// `file:line:column`, then ` in function` when it is known (`??` and
    /// 0 for what the line table does not say).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}",
            self.file.as_deref().unwrap_or("??"),
            self.line.unwrap_or(0),
            self.column.unwrap_or(0)
        )?;
        if let Some(n) = &self.function {
            write!(f, " in {n}")?;
        }
        Ok(())
    }
}

type Reader<'a> = gimli::EndianSlice<'a, gimli::RunTimeEndian>;

/// The line tables of one code object (borrowing its bytes).
pub struct Lines<'a> {
    ctx: addr2line::Context<Reader<'a>>,
}

impl std::fmt::Debug for Lines<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Lines")
    }
}

impl<'a> Lines<'a> {
    /// The DWARF of the ELF `elf`; `None` when it has no `.debug_line` or
    /// the DWARF does not parse.
    pub fn new(elf: &'a [u8]) -> Option<Lines<'a>> {
        let file = object::File::parse(elf).ok()?;
        file.section_by_name(".debug_line")?;
        let endian = if file.is_little_endian() {
            gimli::RunTimeEndian::Little
        } else {
            gimli::RunTimeEndian::Big
        };
        let load = |id: gimli::SectionId| -> Result<Reader<'a>, gimli::Error> {
            let data: &'a [u8] = match file.section_by_name(id.name()) {
                Some(s) => match s.uncompressed_data() {
                    Ok(Cow::Borrowed(b)) => b,
                    // Compressed sections are not supported: no lines.
                    _ => &[],
                },
                None => &[],
            };
            Ok(gimli::EndianSlice::new(data, endian))
        };
        let dwarf = gimli::Dwarf::load(load).ok()?;
        let ctx = addr2line::Context::from_dwarf(dwarf).ok()?;
        Some(Lines { ctx })
    }

    /// The frames at code-object address `vaddr`, innermost (inlined)
    /// first; empty when no line covers it.
    pub fn frames(&self, vaddr: u64) -> Vec<Frame> {
        let mut out = Vec::new();
        let Ok(mut it) = self.ctx.find_frames(vaddr).skip_all_loads() else {
            return out;
        };
        while let Ok(Some(f)) = it.next() {
            let function = f
                .function
                .as_ref()
                .and_then(|n| n.raw_name().ok())
                .map(|n| crate::names::demangle(&n).unwrap_or_else(|| n.into_owned()));
            let (file, line, column) = match f.location {
                Some(l) => (l.file.map(str::to_owned), l.line, l.column),
                None => (None, None, None),
            };
            out.push(Frame {
                function,
                file,
                line,
                column,
            });
        }
        if out.iter().all(|f| f.line.is_none()) {
            // No frame info (line tables only): the line row alone.
            if let Ok(Some(l)) = self.ctx.find_location(vaddr) {
                out = vec![Frame {
                    function: None,
                    file: l.file.map(str::to_owned),
                    line: l.line,
                    column: l.column,
                }];
            }
        }
        out
    }
}

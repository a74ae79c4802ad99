//! A minimal, zero-copy, bounds-checked ELF64 little-endian reader: just
//! what host discovery needs (header, section headers and names, symbols,
//! RELA records). Every read is checked; malformed input yields
//! [`Error::Elf`].

use crate::error::{Error, Result};

pub(crate) const ET_REL: u16 = 1;
pub(crate) const ET_EXEC: u16 = 2;
pub(crate) const ET_DYN: u16 = 3;
pub(crate) const EM_X86_64: u16 = 62;
pub(crate) const EM_AARCH64: u16 = 183;
pub(crate) const EM_PPC64: u16 = 21;
pub(crate) const EM_AMDGPU: u16 = 224;
pub(crate) const SHT_SYMTAB: u32 = 2;
pub(crate) const SHT_RELA: u32 = 4;
pub(crate) const SHT_NOBITS: u32 = 8;
pub(crate) const SHT_DYNSYM: u32 = 11;
pub(crate) const SHF_ALLOC: u64 = 2;

fn err(message: impl Into<String>) -> Error {
    Error::Elf {
        message: message.into(),
    }
}

pub(crate) fn u16_at(d: &[u8], at: u64) -> Option<u16> {
    let at = usize::try_from(at).ok()?;
    Some(u16::from_le_bytes(
        d.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}
pub(crate) fn u32_at(d: &[u8], at: u64) -> Option<u32> {
    let at = usize::try_from(at).ok()?;
    Some(u32::from_le_bytes(
        d.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}
pub(crate) fn u64_at(d: &[u8], at: u64) -> Option<u64> {
    let at = usize::try_from(at).ok()?;
    Some(u64::from_le_bytes(
        d.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
}

fn range(d: &[u8], off: u64, len: u64) -> Option<&[u8]> {
    let s = usize::try_from(off).ok()?;
    let e = s.checked_add(usize::try_from(len).ok()?)?;
    d.get(s..e)
}

/// Whether `data` starts with the ELF magic.
pub(crate) fn is_elf(data: &[u8]) -> bool {
    data.starts_with(b"\x7fELF")
}

/// A section header.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shdr<'a> {
    pub index: usize,
    pub name: &'a str,
    pub sh_type: u32,
    pub flags: u64,
    pub addr: u64,
    pub offset: u64,
    pub size: u64,
    pub link: u32,
    pub info: u32,
}

/// A symbol.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sym<'a> {
    pub name: &'a str,
    pub shndx: u16,
    pub value: u64,
}

/// A RELA record.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rela {
    pub offset: u64,
    pub sym: u32,
    pub r_type: u32,
    pub addend: i64,
}

/// A parsed ELF64 little-endian file.
#[derive(Debug)]
pub(crate) struct Elf<'a> {
    pub data: &'a [u8],
    pub e_type: u16,
    pub e_machine: u16,
    pub sections: Vec<Shdr<'a>>,
}

impl<'a> Elf<'a> {
    /// Reads the ELF header and section table.
    pub fn parse(data: &'a [u8]) -> Result<Elf<'a>> {
        if !is_elf(data) {
            return Err(err("not an ELF file"));
        }
        if data.len() < 64 {
            return Err(Error::Truncated {
                what: "ELF header",
                offset: 0,
                needed: 64,
                available: data.len() as u64,
            });
        }
        let class = data.get(4).copied().unwrap_or(0);
        let endian = data.get(5).copied().unwrap_or(0);
        if class != 2 || endian != 1 {
            return Err(err(format!(
                "unsupported ELF class {class} / data encoding {endian} (only 64-bit little-endian)"
            )));
        }
        let h = |at: u64| u16_at(data, at).ok_or_else(|| err("truncated header"));
        let e_type = h(16)?;
        let e_machine = h(18)?;
        let shoff = u64_at(data, 40).ok_or_else(|| err("truncated header"))?;
        let shentsize = u64::from(h(58)?);
        let mut shnum = u64::from(h(60)?);
        let mut shstrndx = u64::from(h(62)?);
        if shoff == 0 {
            return Ok(Elf {
                data,
                e_type,
                e_machine,
                sections: Vec::new(),
            });
        }
        if shentsize < 64 {
            return Err(err(format!("section header size {shentsize} is below 64")));
        }
        // Extended numbering: section 0 holds the real count / string index.
        if shnum == 0 || shstrndx == 0xffff {
            let s0 = range(data, shoff, 64).ok_or_else(|| {
                err(format!(
                    "section header 0 at {shoff:#x} is outside the file"
                ))
            })?;
            if shnum == 0 {
                shnum = u64_at(s0, 32).unwrap_or(0);
            }
            if shstrndx == 0xffff {
                shstrndx = u64::from(u32_at(s0, 40).unwrap_or(0));
            }
        }
        let table_len = shnum
            .checked_mul(shentsize)
            .ok_or_else(|| err("section table size overflows"))?;
        if range(data, shoff, table_len).is_none() {
            return Err(err(format!(
                "section table ({shnum} x {shentsize} bytes at {shoff:#x}) extends past the {}-byte file",
                data.len()
            )));
        }
        // Section headers first, names once the string table is known.
        let mut names = Vec::new();
        let mut sections: Vec<Shdr<'a>> = Vec::new();
        for i in 0..shnum {
            let b = shoff + i * shentsize;
            names.push(u32_at(data, b).unwrap_or(0));
            sections.push(Shdr {
                index: sections.len(),
                name: "",
                sh_type: u32_at(data, b + 4).unwrap_or(0),
                flags: u64_at(data, b + 8).unwrap_or(0),
                addr: u64_at(data, b + 16).unwrap_or(0),
                offset: u64_at(data, b + 24).unwrap_or(0),
                size: u64_at(data, b + 32).unwrap_or(0),
                link: u32_at(data, b + 40).unwrap_or(0),
                info: u32_at(data, b + 44).unwrap_or(0),
            });
        }
        let strtab: &[u8] = usize::try_from(shstrndx)
            .ok()
            .and_then(|i| sections.get(i))
            .filter(|s| s.sh_type != SHT_NOBITS)
            .and_then(|s| range(data, s.offset, s.size))
            .unwrap_or(&[]);
        for (s, n) in sections.iter_mut().zip(names) {
            s.name = cstr(strtab, u64::from(n)).unwrap_or("");
        }
        Ok(Elf {
            data,
            e_type,
            e_machine,
            sections,
        })
    }

    /// The bytes of a section (empty for `SHT_NOBITS`), or an error if they
    /// lie outside the file.
    pub fn section_data(&self, s: &Shdr<'a>) -> Result<&'a [u8]> {
        if s.sh_type == SHT_NOBITS {
            return Ok(&[]);
        }
        range(self.data, s.offset, s.size).ok_or_else(|| {
            err(format!(
                "section {} `{}` ({:#x}+{:#x}) extends past the {}-byte file",
                s.index,
                s.name,
                s.offset,
                s.size,
                self.data.len()
            ))
        })
    }

    /// Reads symbol `index` of the symbol table in section `symtab`.
    pub fn symbol(&self, symtab: usize, index: u32) -> Option<Sym<'a>> {
        let st = self.sections.get(symtab)?;
        if st.sh_type != SHT_SYMTAB && st.sh_type != SHT_DYNSYM {
            return None;
        }
        let off = u64::from(index).checked_mul(24)?;
        if off.checked_add(24)? > st.size {
            return None;
        }
        let b = st.offset.checked_add(off)?;
        let name_off = u32_at(self.data, b)?;
        let shndx = u16_at(self.data, b.checked_add(6)?)?;
        let value = u64_at(self.data, b.checked_add(8)?)?;
        let strtab = self
            .sections
            .get(usize::try_from(st.link).ok()?)
            .and_then(|s| range(self.data, s.offset, s.size))
            .unwrap_or(&[]);
        Some(Sym {
            name: cstr(strtab, u64::from(name_off)).unwrap_or(""),
            shndx,
            value,
        })
    }

    /// The RELA records of a section (as many whole records as fit).
    pub fn relas(&self, s: &Shdr<'a>) -> Result<impl Iterator<Item = Rela> + 'a> {
        let d = self.section_data(s)?;
        Ok(d.chunks_exact(24).map(|c| {
            let info = u64_at(c, 8).unwrap_or(0);
            Rela {
                offset: u64_at(c, 0).unwrap_or(0),
                sym: (info >> 32) as u32,
                r_type: (info & 0xffff_ffff) as u32,
                addend: u64_at(c, 16).unwrap_or(0) as i64,
            }
        }))
    }

    /// The section index whose address range contains `addr` (allocated,
    /// non-empty sections only).
    pub fn section_containing(&self, addr: u64) -> Option<&Shdr<'a>> {
        self.sections.iter().find(|s| {
            s.flags & SHF_ALLOC != 0 && s.size > 0 && addr >= s.addr && addr - s.addr < s.size
        })
    }
}

fn cstr(tab: &[u8], off: u64) -> Option<&str> {
    let rest = tab.get(usize::try_from(off).ok()?..)?;
    let end = rest.iter().position(|&b| b == 0)?;
    std::str::from_utf8(rest.get(..end)?).ok()
}

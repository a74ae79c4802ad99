//! Generic ELF structure of a code object: sections, program headers,
//! symbol tables, relocations and notes.
//!
//! Owns the plain-data views ([`Section`], [`Segment`], [`ElfSymbol`],
//! [`Relocation`], [`Note`]) built on top of the `object` crate's ELF reader,
//! the `R_AMDGPU_*` relocation types and the note iterator.

use crate::error::{Error, Result};

/// `SHT_NOBITS`.
pub const SHT_NOBITS: u32 = 8;
/// `SHT_NOTE`.
pub const SHT_NOTE: u32 = 7;
/// `SHT_SYMTAB`.
pub const SHT_SYMTAB: u32 = 2;
/// `SHT_DYNSYM`.
pub const SHT_DYNSYM: u32 = 11;
/// `SHT_RELA`.
pub const SHT_RELA: u32 = 4;
/// `SHT_REL`.
pub const SHT_REL: u32 = 9;
/// `PT_NOTE`.
pub const PT_NOTE: u32 = 4;

/// One section header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Section<'a> {
    /// Index in the section header table.
    pub index: usize,
    /// Name from the section header string table.
    pub name: &'a str,
    /// `sh_type`.
    pub sh_type: u32,
    /// `sh_flags`.
    pub flags: u64,
    /// `sh_addr`.
    pub address: u64,
    /// `sh_offset`.
    pub offset: u64,
    /// `sh_size`.
    pub size: u64,
    /// `sh_link`.
    pub link: u32,
    /// `sh_info`.
    pub info: u32,
    /// `sh_addralign`.
    pub align: u64,
    /// `sh_entsize`.
    pub entsize: u64,
}

impl Section<'_> {
    /// Whether the section occupies no file bytes (`SHT_NOBITS`).
    pub fn is_nobits(&self) -> bool {
        self.sh_type == SHT_NOBITS
    }

    /// Whether `addr..addr+len` lies inside the section's address range.
    pub fn contains_range(&self, addr: u64, len: u64) -> bool {
        let Some(end) = addr.checked_add(len) else {
            return false;
        };
        let Some(sec_end) = self.address.checked_add(self.size) else {
            return false;
        };
        addr >= self.address && end <= sec_end
    }
}

/// One program header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Segment {
    /// `p_type`.
    pub p_type: u32,
    /// `p_flags` (`PF_X` = 1, `PF_W` = 2, `PF_R` = 4).
    pub flags: u32,
    /// `p_offset`.
    pub offset: u64,
    /// `p_vaddr`.
    pub vaddr: u64,
    /// `p_paddr`.
    pub paddr: u64,
    /// `p_filesz`.
    pub filesz: u64,
    /// `p_memsz`.
    pub memsz: u64,
    /// `p_align`.
    pub align: u64,
}

/// Which symbol table a symbol came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolTableKind {
    /// `.symtab` (`SHT_SYMTAB`).
    Symtab,
    /// `.dynsym` (`SHT_DYNSYM`).
    Dynsym,
}

/// Where a symbol is defined (`st_shndx`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolSection {
    /// `SHN_UNDEF`.
    Undefined,
    /// `SHN_ABS`.
    Absolute,
    /// `SHN_COMMON`.
    Common,
    /// `SHN_AMDGPU_LDS` (0xff00): a variable in LDS.
    AmdgpuLds,
    /// A section index.
    Index(usize),
    /// Another reserved index.
    Reserved(u16),
}

/// A raw ELF symbol table entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ElfSymbol<'a> {
    /// Index in its table.
    pub index: usize,
    /// Name (empty for the null symbol).
    pub name: &'a str,
    /// `STT_*` (low nibble of `st_info`).
    pub st_type: u8,
    /// `STB_*` (high nibble of `st_info`).
    pub binding: u8,
    /// `STV_*` (low two bits of `st_other`).
    pub visibility: u8,
    /// `st_shndx`, decoded.
    pub section: SymbolSection,
    /// `st_value`.
    pub value: u64,
    /// `st_size`.
    pub size: u64,
}

/// `STT_NOTYPE`.
pub const STT_NOTYPE: u8 = 0;
/// `STT_OBJECT`.
pub const STT_OBJECT: u8 = 1;
/// `STT_FUNC`.
pub const STT_FUNC: u8 = 2;
/// `STT_SECTION`.
pub const STT_SECTION: u8 = 3;
/// `STT_FILE`.
pub const STT_FILE: u8 = 4;
/// `STT_AMDGPU_HSA_KERNEL` (code object V2).
pub const STT_AMDGPU_HSA_KERNEL: u8 = 10;
/// `STB_LOCAL`.
pub const STB_LOCAL: u8 = 0;
/// `STB_GLOBAL`.
pub const STB_GLOBAL: u8 = 1;
/// `STB_WEAK`.
pub const STB_WEAK: u8 = 2;

/// An `R_AMDGPU_*` relocation type (numbers from LLVM's `ELFRelocs/AMDGPU.def`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RelocationType {
    /// `R_AMDGPU_NONE` (0)
    None,
    /// `R_AMDGPU_ABS32_LO` (1)
    Abs32Lo,
    /// `R_AMDGPU_ABS32_HI` (2)
    Abs32Hi,
    /// `R_AMDGPU_ABS64` (3)
    Abs64,
    /// `R_AMDGPU_REL32` (4)
    Rel32,
    /// `R_AMDGPU_REL64` (5)
    Rel64,
    /// `R_AMDGPU_ABS32` (6)
    Abs32,
    /// `R_AMDGPU_GOTPCREL` (7)
    GotPcRel,
    /// `R_AMDGPU_GOTPCREL32_LO` (8)
    GotPcRel32Lo,
    /// `R_AMDGPU_GOTPCREL32_HI` (9)
    GotPcRel32Hi,
    /// `R_AMDGPU_REL32_LO` (10)
    Rel32Lo,
    /// `R_AMDGPU_REL32_HI` (11)
    Rel32Hi,
    /// `R_AMDGPU_RELATIVE64` (13)
    Relative64,
    /// `R_AMDGPU_REL16` (14)
    Rel16,
    /// A number not in the list, kept as is.
    Unknown(u32),
}

const RELOC_NAMES: &[(u32, RelocationType, &str)] = &[
    (0, RelocationType::None, "R_AMDGPU_NONE"),
    (1, RelocationType::Abs32Lo, "R_AMDGPU_ABS32_LO"),
    (2, RelocationType::Abs32Hi, "R_AMDGPU_ABS32_HI"),
    (3, RelocationType::Abs64, "R_AMDGPU_ABS64"),
    (4, RelocationType::Rel32, "R_AMDGPU_REL32"),
    (5, RelocationType::Rel64, "R_AMDGPU_REL64"),
    (6, RelocationType::Abs32, "R_AMDGPU_ABS32"),
    (7, RelocationType::GotPcRel, "R_AMDGPU_GOTPCREL"),
    (8, RelocationType::GotPcRel32Lo, "R_AMDGPU_GOTPCREL32_LO"),
    (9, RelocationType::GotPcRel32Hi, "R_AMDGPU_GOTPCREL32_HI"),
    (10, RelocationType::Rel32Lo, "R_AMDGPU_REL32_LO"),
    (11, RelocationType::Rel32Hi, "R_AMDGPU_REL32_HI"),
    (13, RelocationType::Relative64, "R_AMDGPU_RELATIVE64"),
    (14, RelocationType::Rel16, "R_AMDGPU_REL16"),
];

impl RelocationType {
    /// From the `r_type` number.
    pub fn from_raw(r: u32) -> Self {
        RELOC_NAMES
            .iter()
            .find(|(n, _, _)| *n == r)
            .map_or(RelocationType::Unknown(r), |(_, t, _)| *t)
    }

    /// The `r_type` number.
    pub fn raw(self) -> u32 {
        match self {
            RelocationType::Unknown(r) => r,
            t => RELOC_NAMES
                .iter()
                .find(|(_, x, _)| *x == t)
                .map_or(0, |(n, _, _)| *n),
        }
    }

    /// The `R_AMDGPU_*` name, or `None` for unknown numbers.
    pub fn name(self) -> Option<&'static str> {
        RELOC_NAMES
            .iter()
            .find(|(_, x, _)| *x == self)
            .map(|(_, _, s)| *s)
    }
}

/// One relocation entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Relocation<'a> {
    /// Index of the `SHT_RELA`/`SHT_REL` section holding the entry.
    pub section: usize,
    /// Index of the entry in that section.
    pub index: usize,
    /// Section the relocation applies to (`sh_info`), 0 for dynamic relocations.
    pub target_section: usize,
    /// `r_offset`.
    pub offset: u64,
    /// The relocation type.
    pub kind: RelocationType,
    /// Symbol table index (`0` = none).
    pub symbol: u32,
    /// Name of the symbol, if any.
    pub symbol_name: Option<&'a str>,
    /// Which symbol table `symbol` indexes.
    pub symbol_table: Option<SymbolTableKind>,
    /// `r_addend` (`SHT_RELA`); `None` for `SHT_REL`.
    pub addend: Option<i64>,
}

/// One note: owner name, type and descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Note<'a> {
    /// Owner name without its terminating NUL (e.g. `b"AMDGPU"`).
    pub owner: &'a [u8],
    /// `n_type`.
    pub n_type: u32,
    /// The descriptor bytes.
    pub desc: &'a [u8],
    /// File offset of the note header.
    pub offset: u64,
}

/// `NT_AMDGPU_METADATA` (owner `AMDGPU`).
pub const NT_AMDGPU_METADATA: u32 = 32;
/// `NT_AMD_HSA_CODE_OBJECT_VERSION` (owner `AMD`, V2).
pub const NT_AMD_HSA_CODE_OBJECT_VERSION: u32 = 1;
/// `NT_AMD_HSA_HSAIL` (owner `AMD`, V2).
pub const NT_AMD_HSA_HSAIL: u32 = 2;
/// `NT_AMD_HSA_ISA_VERSION` (owner `AMD`, V2).
pub const NT_AMD_HSA_ISA_VERSION: u32 = 3;
/// `NT_AMD_HSA_METADATA` (owner `AMD`, V2 YAML metadata).
pub const NT_AMD_HSA_METADATA: u32 = 10;
/// `NT_AMD_HSA_ISA_NAME` (owner `AMD`, V2).
pub const NT_AMD_HSA_ISA_NAME: u32 = 11;
/// `NT_AMD_PAL_METADATA` (owner `AMD`).
pub const NT_AMD_PAL_METADATA: u32 = 12;

/// Iterator over the notes in one note section or segment. Yields an error
/// for a malformed note and then stops.
#[derive(Debug, Clone)]
pub struct Notes<'a> {
    container: String,
    data: &'a [u8],
    base_offset: u64,
    pos: usize,
    align: usize,
    done: bool,
}

impl<'a> Notes<'a> {
    /// Notes in `data`, which starts at file offset `base_offset`, padded to
    /// `align` (4 or 8) bytes. `container` names the section or segment in
    /// errors.
    pub fn new(container: impl Into<String>, data: &'a [u8], base_offset: u64, align: u64) -> Self {
        Notes {
            container: container.into(),
            data,
            base_offset,
            pos: 0,
            align: if align == 8 { 8 } else { 4 },
            done: false,
        }
    }

    fn fail(&mut self, reason: String) -> Option<Result<Note<'a>>> {
        self.done = true;
        Some(Err(Error::BadNote {
            container: self.container.clone(),
            offset: self.base_offset.saturating_add(self.pos as u64),
            reason,
        }))
    }
}

fn align_up(v: usize, a: usize) -> Option<usize> {
    v.checked_add(a - 1).map(|x| x & !(a - 1))
}

impl<'a> Iterator for Notes<'a> {
    type Item = Result<Note<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.pos >= self.data.len() {
            self.done = true;
            return None;
        }
        let rest = self.data.get(self.pos..).unwrap_or(&[]);
        if rest.len() < 12 {
            return self.fail(format!(
                "{} byte(s) left, a note header needs 12",
                rest.len()
            ));
        }
        let rd = |o: usize| u32::from_le_bytes([rest[o], rest[o + 1], rest[o + 2], rest[o + 3]]);
        let (namesz, descsz, n_type) = (rd(0) as usize, rd(4) as usize, rd(8));
        let name_end = 12usize.checked_add(namesz);
        let Some(name) = name_end.and_then(|e| rest.get(12..e)) else {
            return self.fail(format!(
                "name size {namesz} runs past the end ({} byte(s) left)",
                rest.len() - 12
            ));
        };
        let Some(desc_start) = align_up(12 + namesz, self.align) else {
            return self.fail("name size overflows".into());
        };
        let desc_end = desc_start.checked_add(descsz);
        let Some(desc) = desc_end.and_then(|e| rest.get(desc_start..e)) else {
            return self.fail(format!(
                "descriptor size {descsz} runs past the end ({} byte(s) left)",
                rest.len().saturating_sub(desc_start)
            ));
        };
        let owner = match name.iter().position(|&b| b == 0) {
            Some(n) => &name[..n],
            None => name,
        };
        let note = Note {
            owner,
            n_type,
            desc,
            offset: self.base_offset.saturating_add(self.pos as u64),
        };
        let next = desc_start
            .checked_add(descsz)
            .and_then(|e| align_up(e, self.align));
        match next.and_then(|n| self.pos.checked_add(n)) {
            Some(p) => self.pos = p,
            None => self.done = true,
        }
        Some(Ok(note))
    }
}

impl std::iter::FusedIterator for Notes<'_> {}

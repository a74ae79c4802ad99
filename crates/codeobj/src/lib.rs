#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod addr_map;
pub mod aql;
pub mod check;
pub mod elf;
pub mod error;
pub mod header;
pub mod host;
pub mod kd;
pub mod kd_fields;
pub mod lines;
pub mod metadata;
pub mod msgpack;
pub mod names;
pub mod occupancy;
pub mod spirv;
pub mod symbols;

use object::elf::FileHeader64;
use object::read::elf::{FileHeader, ProgramHeader, Rel, Rela, SectionHeader, SectionTable, Sym};
use object::LittleEndian as LE;

pub use elf::{
    ElfSymbol, Note, Notes, Relocation, RelocationType, Section, Segment, SymbolSection,
    SymbolTableKind,
};
pub use error::{Error, Result};
pub use header::{CodeObjectVersion, FeatureFlag, Header, OsAbi};
pub use kd::{KdArch, KdError, KernelDescriptor};
pub use lathe_bundle::target::{FeatureSetting, Processor, TargetId};
pub use metadata::{KernelArg, KernelMetadata, Metadata, MetadataError, MetadataV2, ValueKind};
pub use msgpack::Value;
pub use symbols::{Kernel, ManagedVariable, Symbol, SymbolKind, Symbols};

type Elf = FileHeader64<LE>;

/// A parsed AMDGPU code object borrowing its bytes.
#[derive(Debug, Clone)]
pub struct CodeObject<'a> {
    data: &'a [u8],
    header: Header,
    sections: Vec<Section<'a>>,
    segments: Vec<Segment>,
    symtab: Vec<ElfSymbol<'a>>,
    dynsym: Vec<ElfSymbol<'a>>,
    /// Section index of `.symtab` / `.dynsym`, if present.
    symtab_index: Option<usize>,
    dynsym_index: Option<usize>,
}

impl<'a> CodeObject<'a> {
    /// Parses the ELF header, section headers, program headers and symbol
    /// tables of `data`. Notes, metadata, relocations and kernel descriptors
    /// are read on demand.
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        let header = Header::parse(data)?;
        let fh = Elf::parse(data).map_err(|e| Error::elf("ELF header", e))?;
        let sections_tab = fh
            .sections(LE, data)
            .map_err(|e| Error::elf("section headers", e))?;
        let mut sections = Vec::with_capacity(sections_tab.len());
        for (i, sh) in sections_tab.iter().enumerate() {
            let name = sections_tab
                .section_name(LE, sh)
                .map_err(|e| Error::elf(format!("name of section {i}"), e))?;
            let name = std::str::from_utf8(name).map_err(|_| Error::BadName {
                what: "section",
                index: i,
            })?;
            sections.push(Section {
                index: i,
                name,
                sh_type: sh.sh_type(LE).0,
                flags: sh.sh_flags(LE).0,
                address: sh.sh_addr(LE),
                offset: sh.sh_offset(LE),
                size: sh.sh_size(LE),
                link: sh.sh_link(LE),
                info: sh.sh_info(LE),
                align: sh.sh_addralign(LE),
                entsize: sh.sh_entsize(LE),
            });
        }
        let phdrs = fh
            .program_headers(LE, data)
            .map_err(|e| Error::elf("program headers", e))?;
        let segments = phdrs
            .iter()
            .map(|p| Segment {
                p_type: p.p_type(LE).0,
                flags: p.p_flags(LE).0,
                offset: p.p_offset(LE),
                vaddr: p.p_vaddr(LE),
                paddr: p.p_paddr(LE),
                filesz: p.p_filesz(LE),
                memsz: p.p_memsz(LE),
                align: p.p_align(LE),
            })
            .collect();
        let (symtab, symtab_index) = read_symbols(&sections_tab, data, elf::SHT_SYMTAB, ".symtab")?;
        let (dynsym, dynsym_index) = read_symbols(&sections_tab, data, elf::SHT_DYNSYM, ".dynsym")?;
        Ok(CodeObject {
            data,
            header,
            sections,
            segments,
            symtab,
            dynsym,
            symtab_index,
            dynsym_index,
        })
    }

    /// The whole file.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The decoded ELF header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The target: from `e_flags`, or for code object V2 from the
    /// `NT_AMD_HSA_ISA_NAME` / `NT_AMD_HSA_ISA_VERSION` notes.
    pub fn target(&self) -> Option<TargetId> {
        if let Some(t) = self.header.target_id() {
            return Some(t);
        }
        for note in self.notes().flatten() {
            if note.owner != b"AMD" {
                continue;
            }
            if note.n_type == elf::NT_AMD_HSA_ISA_NAME {
                let s = std::str::from_utf8(note.desc).ok()?.trim_end_matches('\0');
                let tid = s.rsplit("--").next().unwrap_or(s);
                // V2 spelling: gfx906+xnack
                let tid = tid.replace('+', ":").replacen("xnack", "xnack+", 1);
                if let Ok(t) = tid.parse::<TargetId>() {
                    return Some(t);
                }
            }
            if note.n_type == elf::NT_AMD_HSA_ISA_VERSION && note.desc.len() >= 16 {
                let d = note.desc;
                let rd = |o: usize| u32::from_le_bytes([d[o], d[o + 1], d[o + 2], d[o + 3]]);
                let (maj, min, step) = (rd(4), rd(8), rd(12));
                let name = format!("gfx{maj}{min}{step:x}");
                if let Some(p) = Processor::from_name(&name) {
                    return Some(TargetId::new(p));
                }
            }
        }
        None
    }

    /// The processor, if known (see [`CodeObject::target`]).
    pub fn processor(&self) -> Option<Processor> {
        self.target().map(|t| t.processor)
    }

    /// All section headers, in index order.
    pub fn sections(&self) -> &[Section<'a>] {
        &self.sections
    }

    /// The first section named `name`.
    pub fn section_by_name(&self, name: &str) -> Option<&Section<'a>> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// The section at `index`.
    pub fn section(&self, index: usize) -> Option<&Section<'a>> {
        self.sections.get(index)
    }

    /// The file bytes of a section (empty for `SHT_NOBITS`).
    pub fn section_data(&self, s: &Section<'a>) -> Result<&'a [u8]> {
        if s.is_nobits() {
            return Ok(&[]);
        }
        let range = usize::try_from(s.offset)
            .ok()
            .zip(usize::try_from(s.size).ok())
            .and_then(|(o, n)| Some(o..o.checked_add(n)?));
        range
            .and_then(|r| self.data.get(r))
            .ok_or_else(|| Error::SectionOutOfBounds {
                section: s.name.into(),
                index: s.index,
                offset: s.offset,
                size: s.size,
                file_len: self.data.len(),
            })
    }

    /// All program headers.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Raw entries of `.symtab` (empty if absent).
    pub fn symtab(&self) -> &[ElfSymbol<'a>] {
        &self.symtab
    }

    /// Raw entries of `.dynsym` (empty if absent).
    pub fn dynsym(&self) -> &[ElfSymbol<'a>] {
        &self.dynsym
    }

    /// Raw entries of one symbol table.
    pub fn symbol_table(&self, kind: SymbolTableKind) -> &[ElfSymbol<'a>] {
        match kind {
            SymbolTableKind::Symtab => &self.symtab,
            SymbolTableKind::Dynsym => &self.dynsym,
        }
    }

    /// The primary symbol table: `.symtab` if present, else `.dynsym`.
    pub fn primary_symbols(&self) -> (SymbolTableKind, &[ElfSymbol<'a>]) {
        if self.symtab_index.is_some() {
            (SymbolTableKind::Symtab, &self.symtab)
        } else {
            (SymbolTableKind::Dynsym, &self.dynsym)
        }
    }

    fn table_for_section(&self, index: usize) -> Option<(SymbolTableKind, &[ElfSymbol<'a>])> {
        if Some(index) == self.symtab_index {
            Some((SymbolTableKind::Symtab, &self.symtab))
        } else if Some(index) == self.dynsym_index {
            Some((SymbolTableKind::Dynsym, &self.dynsym))
        } else {
            None
        }
    }

    /// Every relocation of every `SHT_RELA` and `SHT_REL` section, in
    /// section order.
    pub fn relocations(&self) -> Result<Vec<Relocation<'a>>> {
        let mut out = Vec::new();
        let fh = Elf::parse(self.data).map_err(|e| Error::elf("ELF header", e))?;
        let table = fh
            .sections(LE, self.data)
            .map_err(|e| Error::elf("section headers", e))?;
        for (si, sh) in table.iter().enumerate() {
            let name = self.sections.get(si).map_or("", |s| s.name);
            let link = sh.sh_link(LE) as usize;
            let target_section = sh.sh_info(LE) as usize;
            let syms = self.table_for_section(link);
            let mut push = |index: usize, offset: u64, sym: u32, ty: u32, addend: Option<i64>| {
                let (symbol_name, symbol_table) = if sym == 0 {
                    (None, syms.map(|s| s.0))
                } else {
                    let Some((k, t)) = syms else {
                        return Err(Error::BadRelocationSymbol {
                            section: name.into(),
                            index,
                            symbol: sym,
                            count: 0,
                        });
                    };
                    match t.get(sym as usize) {
                        Some(s) => (Some(s.name), Some(k)),
                        None => {
                            return Err(Error::BadRelocationSymbol {
                                section: name.into(),
                                index,
                                symbol: sym,
                                count: t.len(),
                            })
                        }
                    }
                };
                out.push(Relocation {
                    section: si,
                    index,
                    target_section,
                    offset,
                    kind: RelocationType::from_raw(ty),
                    symbol: sym,
                    symbol_name,
                    symbol_table,
                    addend,
                });
                Ok(())
            };
            if let Some((relas, _)) = sh
                .rela(LE, self.data)
                .map_err(|e| Error::elf(format!("relocations of {name}"), e))?
            {
                for (i, r) in relas.iter().enumerate() {
                    push(
                        i,
                        r.r_offset(LE),
                        r.r_sym(LE, false),
                        r.r_type(LE, false).0,
                        Some(r.r_addend(LE)),
                    )?;
                }
            } else if let Some((rels, _)) = sh
                .rel(LE, self.data)
                .map_err(|e| Error::elf(format!("relocations of {name}"), e))?
            {
                for (i, r) in rels.iter().enumerate() {
                    push(i, r.r_offset(LE), r.r_sym(LE), r.r_type(LE).0, None)?;
                }
            }
        }
        Ok(out)
    }

    /// Iterates over the notes of every `SHT_NOTE` section, or of every
    /// `PT_NOTE` segment when the file has no section headers. Each
    /// container's iterator stops after its first error.
    pub fn notes(&self) -> impl Iterator<Item = Result<Note<'a>>> + '_ {
        let from_sections: Vec<Notes<'a>> = self
            .sections
            .iter()
            .filter(|s| s.sh_type == elf::SHT_NOTE)
            .map(|s| match self.section_data(s) {
                Ok(d) => Notes::new(s.name, d, s.offset, s.align),
                Err(_) => Notes::new(s.name, &[], s.offset, s.align),
            })
            .collect();
        let containers = if self.sections.is_empty() {
            self.segments
                .iter()
                .filter(|p| p.p_type == elf::PT_NOTE)
                .map(|p| {
                    let d = usize::try_from(p.offset)
                        .ok()
                        .zip(usize::try_from(p.filesz).ok())
                        .and_then(|(o, n)| self.data.get(o..o.checked_add(n)?))
                        .unwrap_or(&[]);
                    Notes::new("PT_NOTE", d, p.offset, p.align)
                })
                .collect()
        } else {
            from_sections
        };
        containers.into_iter().flatten()
    }

    /// The first `NT_AMDGPU_METADATA` note's descriptor (msgpack bytes).
    pub fn metadata_bytes(&self) -> Result<Option<&'a [u8]>> {
        for n in self.notes() {
            let n = n?;
            if n.owner == b"AMDGPU" && n.n_type == elf::NT_AMDGPU_METADATA {
                return Ok(Some(n.desc));
            }
        }
        Ok(None)
    }

    /// The descriptors of every `NT_AMDGPU_METADATA` note, in file order.
    /// Linked `-fgpu-rdc` code objects carry one note per linked object.
    pub fn metadata_notes(&self) -> Result<Vec<&'a [u8]>> {
        let mut out = Vec::new();
        for n in self.notes() {
            let n = n?;
            if n.owner == b"AMDGPU" && n.n_type == elf::NT_AMDGPU_METADATA {
                out.push(n.desc);
            }
        }
        Ok(out)
    }

    /// The decoded code object V3+ metadata, if the object has any. When
    /// there are several metadata notes, the first one's version, target and
    /// tree are kept and the kernels, printf strings, globals and extra keys
    /// of the others are appended.
    pub fn metadata(&self) -> Result<Option<Metadata<'a>>> {
        let mut merged: Option<Metadata<'a>> = None;
        for b in self.metadata_notes()? {
            let m = Metadata::parse(b)?;
            match &mut merged {
                None => merged = Some(m),
                Some(first) => first.append(m),
            }
        }
        Ok(merged)
    }

    /// The code object V2 metadata note (`NT_AMD_HSA_METADATA`), kept raw.
    pub fn metadata_v2(&self) -> Result<Option<MetadataV2<'a>>> {
        for n in self.notes() {
            let n = n?;
            if n.owner == b"AMD" && n.n_type == elf::NT_AMD_HSA_METADATA {
                return Ok(Some(MetadataV2 { raw: n.desc }));
            }
        }
        Ok(None)
    }

    /// The architecture facts descriptors are decoded with.
    pub fn kd_arch(&self) -> Option<KdArch> {
        self.processor().map(KdArch::for_processor)
    }

    /// Looks up a symbol by name in `.symtab`, then `.dynsym`.
    pub fn find_elf_symbol(&self, name: &str) -> Option<&ElfSymbol<'a>> {
        self.symtab
            .iter()
            .chain(&self.dynsym)
            .find(|s| s.name == name && s.section != SymbolSection::Undefined)
            .or_else(|| {
                self.symtab
                    .iter()
                    .chain(&self.dynsym)
                    .find(|s| s.name == name)
            })
    }

    /// The 64 bytes of a descriptor symbol, checked to lie inside its section.
    pub fn descriptor_bytes(&self, kd: &ElfSymbol<'a>) -> Result<&'a [u8], KdError> {
        if kd.size != kd::KD_SIZE as u64 {
            return Err(KdError::WrongSymbolSize {
                symbol: kd.name.into(),
                size: kd.size,
            });
        }
        let SymbolSection::Index(si) = kd.section else {
            return Err(KdError::NotInSection {
                symbol: kd.name.into(),
            });
        };
        let Some(sec) = self.sections.get(si) else {
            return Err(KdError::NotInSection {
                symbol: kd.name.into(),
            });
        };
        // In ET_REL files symbol values are section offsets.
        let (addr, base) = if self.header.e_type == header::ET_REL {
            (kd.value, 0)
        } else {
            (kd.value, sec.address)
        };
        let rel = Section {
            address: base,
            ..*sec
        };
        if !rel.contains_range(addr, kd::KD_SIZE as u64) {
            return Err(KdError::OutsideSection {
                address: addr,
                section: sec.name.into(),
                section_address: base,
                section_end: base.saturating_add(sec.size),
            });
        }
        let data = self.section_data(sec).map_err(|_| KdError::NoData {
            section: sec.name.into(),
        })?;
        let off = (addr - base) as usize;
        data.get(off..off + kd::KD_SIZE)
            .filter(|_| !sec.is_nobits())
            .ok_or_else(|| KdError::NoData {
                section: sec.name.into(),
            })
    }

    /// Reads the descriptor of kernel `name` (symbol `name.kd`).
    pub fn kernel_descriptor(&self, name: &str) -> Result<KernelDescriptor> {
        let wrap = |source| Error::KernelDescriptor {
            kernel: name.into(),
            source,
        };
        let sym_name = format!("{name}.kd");
        let sym = self
            .find_elf_symbol(&sym_name)
            .ok_or_else(|| wrap(KdError::MissingSymbol { symbol: sym_name }))?;
        let bytes = self.descriptor_bytes(sym).map_err(wrap)?;
        KernelDescriptor::parse(bytes).map_err(wrap)
    }

    /// The classified symbol model (kernels, device functions, variables,
    /// undefined externals).
    pub fn symbols(&self) -> Result<Symbols<'a>> {
        Symbols::build(self)
    }

    /// Cross-checks every kernel's descriptor against the metadata.
    pub fn check(&self) -> Result<check::CheckReport> {
        check::check(self)
    }
}

fn read_symbols<'a>(
    table: &SectionTable<'a, Elf, &'a [u8]>,
    data: &'a [u8],
    sh_type: u32,
    what: &str,
) -> Result<(Vec<ElfSymbol<'a>>, Option<usize>)> {
    let st = table
        .symbols(LE, data, object::elf::SectionType(sh_type))
        .map_err(|e| Error::elf(what, e))?;
    if st.is_empty() && !table.iter().any(|s| s.sh_type(LE).0 == sh_type) {
        return Ok((Vec::new(), None));
    }
    let mut out = Vec::with_capacity(st.len());
    for (i, s) in st.symbols().iter().enumerate() {
        let name = st
            .symbol_name(LE, s)
            .map_err(|e| Error::elf(format!("{what} symbol {i} name"), e))?;
        let name = std::str::from_utf8(name).map_err(|_| Error::BadName {
            what: "symbol",
            index: i,
        })?;
        let shndx = s.st_shndx(LE).0;
        let section = match shndx {
            0 => SymbolSection::Undefined,
            0xfff1 => SymbolSection::Absolute,
            0xfff2 => SymbolSection::Common,
            0xff00 => SymbolSection::AmdgpuLds,
            0xffff => match st.shndx(LE, object::SymbolIndex(i)) {
                Some(x) => SymbolSection::Index(x as usize),
                None => SymbolSection::Reserved(shndx),
            },
            x if x >= 0xff00 => SymbolSection::Reserved(x),
            x => SymbolSection::Index(usize::from(x)),
        };
        out.push(ElfSymbol {
            index: i,
            name,
            st_type: s.st_type().0,
            binding: s.st_bind().0,
            visibility: s.st_visibility().0,
            section,
            value: s.st_value(LE),
            size: s.st_size(LE),
        });
    }
    Ok((out, Some(st.section().0)))
}

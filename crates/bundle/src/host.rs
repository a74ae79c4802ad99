//! Finding offload bundles in arbitrary files.
//!
//! Owns file classification ([`classify`]) and discovery ([`discover`]):
//! every bundle in a raw bundle or CCOB file, or in a host ELF file's
//! `.hip_fatbin` sections (several bundles back to back, zero padded),
//! `__CLANG_OFFLOAD_BUNDLE__<id>` sections (one entry per section, as in
//! `-fgpu-rdc -c` objects), and the `.hipFatBinSegment` wrappers
//! (`{u32 magic "HIPF", u32 version, u64 fatbin pointer, u64 unused}`)
//! linked to the bundle they point at:
//!
//! * executables: the pointer is the bundle's virtual address;
//! * shared libraries: the pointer is 0 in the file and an
//!   `R_*_RELATIVE` record in an allocated RELA section supplies the address;
//! * relocatable objects: a record in `.rela.hipFatBinSegment` refers to a
//!   symbol (the `.hip_fatbin` section symbol, or an undefined
//!   `__hip_fatbin_<id>` in `-fgpu-rdc` objects).
//!
//! Discovery is zero-copy: bundles are slices of the input, nothing is
//! decompressed until [`FoundBundle::open`].

use crate::bundle::{self, Bundle, Entry, Format, MAGIC as BUNDLE_MAGIC};
use crate::ccob::{self, CcobHeader};
use crate::elf::{self, Elf};
use crate::error::{Error, Limits, Result};
use crate::id::EntryId;

/// `"HIPF"` read as a little-endian u32.
pub const HIPF_MAGIC: u32 = 0x4849_5046;
/// Size of one `.hipFatBinSegment` record.
pub const WRAPPER_SIZE: u64 = 24;

/// What a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileKind {
    /// An uncompressed bundle (`__CLANG_OFFLOAD_BUNDLE__`).
    Bundle,
    /// A compressed bundle (`CCOB`).
    Compressed,
    /// A bare AMDGPU code object (ELF with `e_machine` = `EM_AMDGPU`).
    CodeObject,
    /// Any other ELF file: a host object, executable or shared library.
    HostElf,
    /// None of the above.
    Unknown,
}

/// Classifies `data` by its first bytes (and the ELF `e_machine`).
pub fn classify(data: &[u8]) -> FileKind {
    match bundle::magic_at(data) {
        Some(bundle::FormatKind::Plain) => return FileKind::Bundle,
        Some(bundle::FormatKind::Compressed) => return FileKind::Compressed,
        None => {}
    }
    if elf::is_elf(data) {
        let machine = if data.get(5) == Some(&2) {
            data.get(18..20).map(|b| u16::from_be_bytes([b[0], b[1]]))
        } else {
            elf::u16_at(data, 18)
        };
        if machine == Some(elf::EM_AMDGPU) {
            return FileKind::CodeObject;
        }
        return FileKind::HostElf;
    }
    FileKind::Unknown
}

/// An ELF section, as reported with a bundle or wrapper.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionRef {
    /// Section header index.
    pub index: usize,
    /// Section name.
    pub name: String,
    /// `sh_addr`.
    pub addr: u64,
    /// `sh_offset`.
    pub file_offset: u64,
}

/// How a found bundle is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// One uncompressed bundle.
    Plain,
    /// One compressed bundle, with its header.
    Compressed(CcobHeader),
    /// `__CLANG_OFFLOAD_BUNDLE__<id>` sections, one entry each.
    Sections,
}

/// A bundle located in a file.
#[derive(Clone, Debug)]
pub struct FoundBundle<'a> {
    /// Index in [`Discovery::bundles`].
    pub index: usize,
    /// File offset of the first byte (for [`Storage::Sections`], of the
    /// first section).
    pub file_offset: u64,
    /// The containing section, for host ELF files.
    pub section: Option<SectionRef>,
    /// Offset from the start of the section.
    pub section_offset: u64,
    /// The bundle's bytes (empty for [`Storage::Sections`]).
    pub bytes: &'a [u8],
    /// Plain, compressed or section entries.
    pub storage: Storage,
    /// Indices into [`Discovery::wrappers`] of the wrappers pointing here.
    pub wrappers: Vec<usize>,
    section_entries: Vec<Entry<'a>>,
}

impl<'a> FoundBundle<'a> {
    /// Size in the file (compressed size for a CCOB; total of the sections
    /// for [`Storage::Sections`]).
    pub fn size(&self) -> u64 {
        match self.storage {
            Storage::Sections => self
                .section_entries
                .iter()
                .map(|e| e.data.len() as u64)
                .sum(),
            _ => self.bytes.len() as u64,
        }
    }

    /// Makes the contents available: borrows a plain bundle, decompresses a
    /// CCOB (bounded by `limits`). Errors carry the bundle's file offset.
    pub fn open(&self, limits: &Limits) -> Result<Opened<'a>> {
        let r = match self.storage {
            Storage::Plain => Ok(Opened::Plain(self.bytes)),
            Storage::Compressed(_) => ccob::decompress(self.bytes, limits)
                .map(|(header, data)| Opened::Decompressed { header, data }),
            Storage::Sections => Ok(Opened::Entries(self.section_entries.clone())),
        };
        r.map_err(|e| self.wrap(e))
    }

    /// Wraps an error with this bundle's location.
    pub fn wrap(&self, e: Error) -> Error {
        Error::InBundle {
            bundle: self.index,
            file_offset: self.file_offset,
            section: self.section.as_ref().map(|s| s.name.clone()),
            source: Box::new(e),
        }
    }
}

/// The contents of an opened bundle.
#[derive(Debug, Clone)]
pub enum Opened<'a> {
    /// An uncompressed bundle in the input.
    Plain(&'a [u8]),
    /// A decompressed CCOB.
    Decompressed {
        /// The CCOB header.
        header: CcobHeader,
        /// The uncompressed bundle.
        data: Vec<u8>,
    },
    /// Entries taken from ELF sections.
    Entries(Vec<Entry<'a>>),
}

impl Opened<'_> {
    /// Parses the bundle (zero-copy over the opened bytes).
    pub fn bundle(&self, limits: &Limits) -> Result<Bundle<'_>> {
        match self {
            Opened::Plain(b) => Bundle::parse_with(b, limits),
            Opened::Decompressed { data, .. } => Bundle::parse_with(data, limits),
            Opened::Entries(e) => Ok(Bundle::from_entries(e.clone())),
        }
    }

    /// The uncompressed bundle bytes (empty for section entries).
    pub fn bytes(&self) -> &[u8] {
        match self {
            Opened::Plain(b) => b,
            Opened::Decompressed { data, .. } => data,
            Opened::Entries(_) => &[],
        }
    }
}

/// How a wrapper's pointer was resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Resolution {
    /// The pointer stored in the file (executables, or RELR-packed
    /// relocations whose addend is stored in place).
    Stored,
    /// An `R_*_RELATIVE` dynamic relocation.
    Relative,
    /// A relocation against a symbol.
    Symbol {
        /// Symbol name (empty for section symbols).
        name: String,
        /// Relocation addend.
        addend: i64,
    },
}

/// Where a wrapper's fat-binary pointer leads.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WrapperTarget {
    /// A location inside a section.
    Location {
        /// Section header index.
        section: usize,
        /// Offset within the section.
        section_offset: u64,
        /// Virtual address (linked files) or 0.
        addr: u64,
        /// How it was found.
        how: Resolution,
    },
    /// A relocation against an undefined symbol (resolved at link time).
    Undefined {
        /// The symbol.
        symbol: String,
    },
    /// The pointer is null and nothing relocates it.
    Null,
    /// A pointer that does not land in any section.
    Dangling {
        /// The pointer value.
        value: u64,
    },
}

/// A `.hipFatBinSegment` record (`__hip_fatbin_wrapper`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wrapper {
    /// Index in [`Discovery::wrappers`].
    pub index: usize,
    /// The section holding it.
    pub section: SectionRef,
    /// File offset of the record.
    pub file_offset: u64,
    /// Virtual address of the record (`sh_addr` + offset).
    pub addr: u64,
    /// The magic field (`0x48495046`, "HIPF", when valid).
    pub magic: u32,
    /// The version field.
    pub version: u32,
    /// The pointer as stored in the file.
    pub stored_pointer: u64,
    /// Where the pointer leads.
    pub target: WrapperTarget,
    /// The bundle it points at, if one starts exactly there.
    pub bundle: Option<usize>,
}

/// Everything found in a file.
#[derive(Clone, Debug)]
pub struct Discovery<'a> {
    /// The file's kind.
    pub kind: FileKind,
    /// Bundles in file order (`.hip_fatbin` first, then section bundles).
    pub bundles: Vec<FoundBundle<'a>>,
    /// Fat-binary wrappers.
    pub wrappers: Vec<Wrapper>,
    /// Non-fatal problems (a corrupt bundle header, stray bytes); the other
    /// bundles are still reported.
    pub problems: Vec<Error>,
    /// `e_machine` for ELF files.
    pub e_machine: Option<u16>,
    /// `e_type` for ELF files.
    pub e_type: Option<u16>,
}

impl<'a> Discovery<'a> {
    /// Total size in the file of all bundles.
    pub fn total_bundle_bytes(&self) -> u64 {
        self.bundles.iter().map(|b| b.size()).sum()
    }
}

/// Finds every bundle in `data`.
///
/// Fails only when the file itself cannot be read (an unreadable ELF
/// section table); problems with individual bundles are collected in
/// [`Discovery::problems`]. A bare code object or an unknown file yields no
/// bundles.
pub fn discover<'a>(data: &'a [u8], limits: &Limits) -> Result<Discovery<'a>> {
    let kind = classify(data);
    let mut d = Discovery {
        kind,
        bundles: Vec::new(),
        wrappers: Vec::new(),
        problems: Vec::new(),
        e_machine: None,
        e_type: None,
    };
    match kind {
        FileKind::Bundle | FileKind::Compressed => {
            scan(&mut d, data, None, 0, limits);
        }
        FileKind::HostElf => discover_elf(&mut d, data, limits)?,
        FileKind::CodeObject => {
            d.e_machine = Some(elf::EM_AMDGPU);
            d.e_type = elf::u16_at(data, 16);
        }
        FileKind::Unknown => {}
    }
    Ok(d)
}

/// Scans a buffer for back-to-back bundles, appending to `d`.
fn scan<'a>(
    d: &mut Discovery<'a>,
    data: &'a [u8],
    section: Option<&SectionRef>,
    base: u64,
    limits: &Limits,
) {
    for item in bundle::sequence(data, limits) {
        match item {
            Ok(raw) => {
                let index = d.bundles.len();
                d.bundles.push(FoundBundle {
                    index,
                    file_offset: base + raw.offset,
                    section: section.cloned(),
                    section_offset: raw.offset,
                    bytes: raw.bytes,
                    storage: match raw.format {
                        Format::Plain => Storage::Plain,
                        Format::Compressed(h) => Storage::Compressed(h),
                    },
                    wrappers: Vec::new(),
                    section_entries: Vec::new(),
                });
            }
            // Make offsets file-relative and name the section.
            Err(Error::InBundle {
                file_offset,
                source,
                ..
            }) => d.problems.push(Error::InBundle {
                bundle: d.bundles.len(),
                file_offset: base + file_offset,
                section: section.map(|s| s.name.clone()),
                source,
            }),
            Err(Error::StrayData { offset, len }) => d.problems.push(Error::StrayData {
                offset: base + offset,
                len,
            }),
            Err(e) => d.problems.push(e),
        }
    }
}

fn section_ref(s: &elf::Shdr<'_>) -> SectionRef {
    SectionRef {
        index: s.index,
        name: s.name.to_owned(),
        addr: s.addr,
        file_offset: s.offset,
    }
}

fn is_relative(machine: u16, r_type: u32) -> bool {
    matches!(
        (machine, r_type),
        (elf::EM_X86_64, 8) | (elf::EM_AARCH64, 1027) | (elf::EM_PPC64, 22)
    )
}

fn discover_elf<'a>(d: &mut Discovery<'a>, data: &'a [u8], limits: &Limits) -> Result<()> {
    let elf = Elf::parse(data)?;
    d.e_machine = Some(elf.e_machine);
    d.e_type = Some(elf.e_type);

    // Bundles in .hip_fatbin sections.
    for s in &elf.sections {
        if s.name != ".hip_fatbin" {
            continue;
        }
        match elf.section_data(s) {
            Ok(bytes) => scan(d, bytes, Some(&section_ref(s)), s.offset, limits),
            Err(e) => d.problems.push(e),
        }
    }

    // `__CLANG_OFFLOAD_BUNDLE__<id>` sections: one entry each.
    let prefix = std::str::from_utf8(BUNDLE_MAGIC).unwrap_or("__CLANG_OFFLOAD_BUNDLE__");
    let mut entries = Vec::new();
    let mut first: Option<&elf::Shdr<'_>> = None;
    for s in &elf.sections {
        let Some(id) = s.name.strip_prefix(prefix) else {
            continue;
        };
        match elf.section_data(s) {
            Ok(bytes) => {
                first.get_or_insert(s);
                // The host entry of an object bundle is a single zero byte.
                let id = EntryId::parse_str(id);
                let bytes = if id.is_host() && bytes == [0] {
                    &[][..]
                } else {
                    bytes
                };
                entries.push(Entry {
                    index: entries.len(),
                    id,
                    offset: s.offset,
                    data: bytes,
                });
            }
            Err(e) => d.problems.push(e),
        }
    }
    if let Some(f) = first {
        let index = d.bundles.len();
        d.bundles.push(FoundBundle {
            index,
            file_offset: f.offset,
            section: Some(section_ref(f)),
            section_offset: 0,
            bytes: &[],
            storage: Storage::Sections,
            wrappers: Vec::new(),
            section_entries: entries,
        });
    }

    // Wrappers.
    for seg in elf
        .sections
        .iter()
        .filter(|s| s.name == ".hipFatBinSegment")
    {
        let bytes = match elf.section_data(seg) {
            Ok(b) => b,
            Err(e) => {
                d.problems.push(e);
                continue;
            }
        };
        let count = seg.size / WRAPPER_SIZE;
        // Relocations that patch this section's pointer fields, by offset
        // within the section.
        let mut relocs: Vec<(u64, elf::Rela, usize)> = Vec::new();
        for rs in elf.sections.iter().filter(|r| r.sh_type == elf::SHT_RELA) {
            let linked = elf.e_type != elf::ET_REL || rs.info as usize == seg.index;
            if !linked {
                continue;
            }
            let Ok(it) = elf.relas(rs) else { continue };
            for r in it {
                let off = if elf.e_type == elf::ET_REL {
                    Some(r.offset)
                } else {
                    r.offset.checked_sub(seg.addr).filter(|o| *o < seg.size)
                };
                if let Some(o) = off {
                    relocs.push((o, r, rs.link as usize));
                }
            }
        }
        for i in 0..count {
            let at = i * WRAPPER_SIZE;
            let magic = elf::u32_at(bytes, at).unwrap_or(0);
            let version = elf::u32_at(bytes, at + 4).unwrap_or(0);
            let stored = elf::u64_at(bytes, at + 8).unwrap_or(0);
            let reloc = relocs.iter().find(|(o, _, _)| *o == at + 8);
            let target = resolve(&elf, stored, reloc.map(|(_, r, l)| (r, *l)));
            let index = d.wrappers.len();
            d.wrappers.push(Wrapper {
                index,
                section: section_ref(seg),
                file_offset: seg.offset + at,
                addr: seg.addr.wrapping_add(at),
                magic,
                version,
                stored_pointer: stored,
                target,
                bundle: None,
            });
        }
    }
    link_wrappers(d);
    Ok(())
}

fn resolve(elf: &Elf<'_>, stored: u64, reloc: Option<(&elf::Rela, usize)>) -> WrapperTarget {
    let linked = elf.e_type == elf::ET_EXEC || elf.e_type == elf::ET_DYN;
    let at_addr = |addr: u64, how: Resolution| match elf.section_containing(addr) {
        Some(s) => WrapperTarget::Location {
            section: s.index,
            section_offset: addr - s.addr,
            addr,
            how,
        },
        None => WrapperTarget::Dangling { value: addr },
    };
    match reloc {
        Some((r, symtab)) => {
            if linked && is_relative(elf.e_machine, r.r_type) {
                return at_addr(r.addend as u64, Resolution::Relative);
            }
            let sym = if r.sym == 0 {
                None
            } else {
                elf.symbol(symtab, r.sym)
            };
            match sym {
                Some(sym) if sym.shndx == 0 => WrapperTarget::Undefined {
                    symbol: sym.name.to_owned(),
                },
                Some(sym) => {
                    let value = sym.value.wrapping_add(r.addend as u64);
                    let how = Resolution::Symbol {
                        name: sym.name.to_owned(),
                        addend: r.addend,
                    };
                    if linked {
                        at_addr(value, how)
                    } else if usize::from(sym.shndx) < elf.sections.len() {
                        WrapperTarget::Location {
                            section: usize::from(sym.shndx),
                            section_offset: value,
                            addr: 0,
                            how,
                        }
                    } else {
                        WrapperTarget::Dangling { value }
                    }
                }
                None if linked => at_addr(r.addend as u64, Resolution::Relative),
                None => WrapperTarget::Dangling {
                    value: r.addend as u64,
                },
            }
        }
        None if stored == 0 => WrapperTarget::Null,
        None if linked => at_addr(stored, Resolution::Stored),
        None => WrapperTarget::Dangling { value: stored },
    }
}

fn link_wrappers(d: &mut Discovery<'_>) {
    for w in &mut d.wrappers {
        let WrapperTarget::Location {
            section,
            section_offset,
            ..
        } = w.target
        else {
            continue;
        };
        let hit = d.bundles.iter_mut().find(|b| {
            b.storage != Storage::Sections
                && b.section.as_ref().map(|s| s.index) == Some(section)
                && b.section_offset == section_offset
        });
        if let Some(b) = hit {
            b.wrappers.push(w.index);
            w.bundle = Some(b.index);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classify_by_magic() {
        assert_eq!(
            classify(b"__CLANG_OFFLOAD_BUNDLE__xxxxxxxx"),
            FileKind::Bundle
        );
        assert_eq!(classify(b"CCOB\x03\x00\x01\x00"), FileKind::Compressed);
        assert_eq!(classify(b"hello"), FileKind::Unknown);
        let mut amd = vec![0u8; 64];
        amd[..4].copy_from_slice(b"\x7fELF");
        amd[4] = 2;
        amd[5] = 1;
        amd[18] = 224;
        assert_eq!(classify(&amd), FileKind::CodeObject);
        amd[18] = 62;
        assert_eq!(classify(&amd), FileKind::HostElf);
    }
}

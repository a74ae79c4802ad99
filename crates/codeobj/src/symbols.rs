//! The classified symbol model of a code object.
//!
//! Owns the classification of ELF symbols into kernels (with their `.kd`
//! descriptor, entry address and metadata), kernel descriptors, device
//! functions (every non-kernel `STT_FUNC`, local or global), variables
//! (`STT_OBJECT`, with HIP `x` / `x.managed` managed pairs), undefined
//! externals (with whether relocations reference them) and everything else.

use std::collections::{HashMap, HashSet};

use crate::elf::{self, ElfSymbol, SymbolSection, SymbolTableKind};
use crate::error::{Error, Result};
use crate::header;
use crate::kd::{KdError, KernelDescriptor};
use crate::metadata::{KernelMetadata, Metadata};
use crate::CodeObject;

/// What a symbol is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SymbolKind {
    /// A kernel's code (an `STT_FUNC` whose name has a `<name>.kd` descriptor).
    Kernel,
    /// A kernel descriptor (`<name>.kd`, `STT_OBJECT`, 64 bytes).
    KernelDescriptor,
    /// Any other defined function, local or global.
    DeviceFunction,
    /// A defined data object (`STT_OBJECT`).
    Variable,
    /// An undefined symbol (`SHN_UNDEF`).
    Undefined,
    /// Anything else (section, file, absolute and untyped symbols).
    Other,
}

/// One classified symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Symbol<'a> {
    /// Name.
    pub name: &'a str,
    /// Classification.
    pub kind: SymbolKind,
    /// `STT_*`.
    pub st_type: u8,
    /// `STB_*`.
    pub binding: u8,
    /// `STV_*`.
    pub visibility: u8,
    /// Where it is defined.
    pub section: SymbolSection,
    /// `st_value`: the address (section offset in `ET_REL` files).
    pub value: u64,
    /// `st_size`.
    pub size: u64,
    /// Whether it is defined (not `SHN_UNDEF`).
    pub defined: bool,
    /// For undefined symbols: whether a relocation refers to it.
    pub referenced_by_relocations: bool,
    /// Which table it came from.
    pub table: SymbolTableKind,
    /// Index in that table.
    pub index: usize,
}

/// A kernel: its code symbol, descriptor and metadata.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Kernel<'a> {
    /// Kernel name (the `.kd` symbol without `.kd`).
    pub name: &'a str,
    /// The kernel code symbol, if present.
    pub code: Option<Symbol<'a>>,
    /// The descriptor symbol, if present.
    pub descriptor_symbol: Option<Symbol<'a>>,
    /// The decoded descriptor, or why it could not be read.
    pub descriptor: Result<KernelDescriptor, KdError>,
    /// The entry address: descriptor address + `kernel_code_entry_byte_offset`,
    /// or, in `ET_REL` files, resolved from the descriptor's relocation.
    pub entry: Option<u64>,
    /// The kernel's entry in `amdhsa.kernels`, if any.
    pub metadata: Option<KernelMetadata<'a>>,
}

impl Kernel<'_> {
    /// The descriptor, or an error naming the kernel.
    pub fn descriptor(&self) -> Result<&KernelDescriptor> {
        self.descriptor
            .as_ref()
            .map_err(|e| Error::KernelDescriptor {
                kernel: self.name.into(),
                source: e.clone(),
            })
    }
}

/// A HIP `__managed__` variable: the device storage `x.managed` and the
/// pointer variable `x` the runtime points at it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManagedVariable<'a> {
    /// Source name `x`.
    pub name: &'a str,
    /// `x.managed`: the storage.
    pub storage: Symbol<'a>,
    /// `x`: the pointer.
    pub pointer: Symbol<'a>,
}

/// The classified symbols of one code object.
#[derive(Debug, Clone)]
pub struct Symbols<'a> {
    symbols: Vec<Symbol<'a>>,
    by_name: HashMap<&'a str, usize>,
    kernels: Vec<Kernel<'a>>,
    managed: Vec<ManagedVariable<'a>>,
}

impl<'a> Symbols<'a> {
    /// Builds the model from the primary symbol table (`.symtab`, or
    /// `.dynsym` when stripped), the relocations and the metadata.
    pub fn build(co: &CodeObject<'a>) -> Result<Self> {
        let (table, raw) = co.primary_symbols();
        let relocs = co.relocations()?;
        let referenced: HashSet<&str> = relocs
            .iter()
            .filter(|r| r.symbol_table == Some(table))
            .filter_map(|r| r.symbol_name)
            .collect();
        let kd_names: HashSet<&str> = raw
            .iter()
            .filter(|s| s.st_type == elf::STT_OBJECT && s.section != SymbolSection::Undefined)
            .filter_map(|s| s.name.strip_suffix(".kd"))
            .collect();
        let mut symbols = Vec::with_capacity(raw.len());
        for s in raw.iter().skip(1) {
            symbols.push(classify(s, table, &kd_names, &referenced));
        }
        let mut by_name = HashMap::new();
        for (i, s) in symbols.iter().enumerate() {
            // Prefer a defined symbol over an undefined one of the same name.
            let e = by_name.entry(s.name).or_insert(i);
            if !symbols[*e].defined && s.defined {
                *e = i;
            }
        }
        let metadata: Option<Metadata<'a>> = co.metadata()?;
        let mut names: Vec<&'a str> = Vec::new();
        let mut seen: HashSet<&'a str> = HashSet::new();
        for s in &symbols {
            if s.kind == SymbolKind::KernelDescriptor {
                if let Some(n) = s.name.strip_suffix(".kd") {
                    if seen.insert(n) {
                        names.push(n);
                    }
                }
            }
        }
        if let Some(md) = &metadata {
            for k in &md.kernels {
                let n = k.symbol.strip_suffix(".kd").unwrap_or(k.name);
                if seen.insert(n) {
                    names.push(n);
                }
            }
        }
        let find = |n: &str| by_name.get(n).map(|&i| symbols[i]);
        // Metadata kernels by `.symbol` (without `.kd`) and by `.name`; the
        // first of equal keys wins, as a linear search would find it.
        let mut md_by_symbol: HashMap<&str, usize> = HashMap::new();
        let mut md_by_name: HashMap<&str, usize> = HashMap::new();
        if let Some(m) = &metadata {
            for (i, k) in m.kernels.iter().enumerate() {
                if let Some(n) = k.symbol.strip_suffix(".kd") {
                    md_by_symbol.entry(n).or_insert(i);
                }
                md_by_name.entry(k.name).or_insert(i);
            }
        }
        let mut kernels = Vec::with_capacity(names.len());
        for name in names {
            let kd_name = format!("{name}.kd");
            let descriptor_symbol =
                find(&kd_name).filter(|s| s.kind == SymbolKind::KernelDescriptor);
            let code = find(name).filter(|s| s.kind == SymbolKind::Kernel);
            let descriptor = match &descriptor_symbol {
                None => Err(KdError::MissingSymbol { symbol: kd_name }),
                Some(sym) => raw
                    .get(sym.index)
                    .ok_or(KdError::MissingSymbol {
                        symbol: kd_name.clone(),
                    })
                    .and_then(|e| co.descriptor_bytes(e))
                    .and_then(KernelDescriptor::parse),
            };
            let entry = match (&descriptor_symbol, &descriptor) {
                (Some(sym), Ok(d)) => entry_address(co, sym, d, &relocs, raw),
                _ => None,
            };
            let md = metadata.as_ref().and_then(|m| {
                md_by_symbol
                    .get(name)
                    .or_else(|| md_by_name.get(name))
                    .and_then(|&i| m.kernels.get(i))
                    .cloned()
            });
            kernels.push(Kernel {
                name,
                code,
                descriptor_symbol,
                descriptor,
                entry,
                metadata: md,
            });
        }
        let mut managed = Vec::new();
        for s in &symbols {
            if s.kind != SymbolKind::Variable {
                continue;
            }
            if let Some(base) = s.name.strip_suffix(".managed") {
                if let Some(p) = find(base).filter(|p| p.kind == SymbolKind::Variable) {
                    managed.push(ManagedVariable {
                        name: base,
                        storage: *s,
                        pointer: p,
                    });
                }
            }
        }
        Ok(Symbols {
            symbols,
            by_name,
            kernels,
            managed,
        })
    }

    /// All classified symbols (the null symbol excluded), in table order.
    pub fn all(&self) -> &[Symbol<'a>] {
        &self.symbols
    }

    /// Looks a symbol up by name (a defined one if there are several).
    pub fn get(&self, name: &str) -> Option<&Symbol<'a>> {
        self.by_name.get(name).and_then(|&i| self.symbols.get(i))
    }

    /// Symbols of one kind, in table order.
    pub fn of_kind(&self, kind: SymbolKind) -> impl Iterator<Item = &Symbol<'a>> {
        self.symbols.iter().filter(move |s| s.kind == kind)
    }

    /// Device functions (non-kernel functions), local and global.
    pub fn device_functions(&self) -> impl Iterator<Item = &Symbol<'a>> {
        self.of_kind(SymbolKind::DeviceFunction)
    }

    /// Defined variables.
    pub fn variables(&self) -> impl Iterator<Item = &Symbol<'a>> {
        self.of_kind(SymbolKind::Variable)
    }

    /// Undefined symbols.
    pub fn undefined(&self) -> impl Iterator<Item = &Symbol<'a>> {
        self.of_kind(SymbolKind::Undefined)
    }

    /// Kernels: every `.kd` symbol and every metadata kernel.
    pub fn kernels(&self) -> &[Kernel<'a>] {
        &self.kernels
    }

    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&Kernel<'a>> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// HIP managed variables (`x` / `x.managed` pairs).
    pub fn managed_variables(&self) -> &[ManagedVariable<'a>] {
        &self.managed
    }
}

fn classify<'a>(
    s: &ElfSymbol<'a>,
    table: SymbolTableKind,
    kd_names: &HashSet<&str>,
    referenced: &HashSet<&str>,
) -> Symbol<'a> {
    let defined = s.section != SymbolSection::Undefined;
    let in_section = matches!(
        s.section,
        SymbolSection::Index(_) | SymbolSection::AmdgpuLds | SymbolSection::Common
    );
    let kind = if !defined {
        SymbolKind::Undefined
    } else if s.st_type == elf::STT_FUNC || s.st_type == elf::STT_AMDGPU_HSA_KERNEL {
        if kd_names.contains(s.name) || s.st_type == elf::STT_AMDGPU_HSA_KERNEL {
            SymbolKind::Kernel
        } else {
            SymbolKind::DeviceFunction
        }
    } else if s.st_type == elf::STT_OBJECT && in_section {
        if s.name.ends_with(".kd") && s.size == crate::kd::KD_SIZE as u64 {
            SymbolKind::KernelDescriptor
        } else if let Some(n) = s.name.strip_suffix(".kd") {
            // A wrongly sized descriptor is still a descriptor: reading it
            // reports the size error.
            if kd_names.contains(n) {
                SymbolKind::KernelDescriptor
            } else {
                SymbolKind::Variable
            }
        } else {
            SymbolKind::Variable
        }
    } else {
        SymbolKind::Other
    };
    Symbol {
        name: s.name,
        kind,
        st_type: s.st_type,
        binding: s.binding,
        visibility: s.visibility,
        section: s.section,
        value: s.value,
        size: s.size,
        defined,
        referenced_by_relocations: !defined && referenced.contains(s.name),
        table,
        index: s.index,
    }
}

fn entry_address<'a>(
    co: &CodeObject<'a>,
    kd_sym: &Symbol<'a>,
    d: &KernelDescriptor,
    relocs: &[elf::Relocation<'a>],
    raw: &[ElfSymbol<'a>],
) -> Option<u64> {
    if co.header().e_type == header::ET_REL {
        let SymbolSection::Index(si) = kd_sym.section else {
            return None;
        };
        let field = kd_sym.value.checked_add(16)?;
        let r = relocs
            .iter()
            .find(|r| r.target_section == si && r.offset == field && r.symbol != 0)?;
        let s = raw.get(r.symbol as usize)?;
        // The field holds S + A - P; the entry is the descriptor plus that.
        let a = r.addend.unwrap_or(d.kernel_code_entry_byte_offset);
        return s.value.checked_add_signed(a)?.checked_sub(16);
    }
    kd_sym
        .value
        .checked_add_signed(d.kernel_code_entry_byte_offset)
}

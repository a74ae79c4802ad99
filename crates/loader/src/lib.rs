#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

use std::collections::HashMap;
use std::fmt;

use lathe_bundle::select::extended_compatible;
use lathe_bundle::{FeatureSetting, TargetId};
use lathe_codeobj::header::ET_DYN;
use lathe_codeobj::kd::KernelDescriptor;
use lathe_codeobj::{CodeObject, SymbolKind as CoKind, SymbolSection};

pub mod image;

use image::{relocate, Layout, Placement};

/// Where the loader gets device memory. The emulator's device memory
/// implements it; device addresses are plain `u64`s.
pub trait DeviceMemory {
    /// Allocates `size` zeroed bytes aligned to `align` and returns the
    /// device address.
    fn allocate(&self, size: u64, align: u64) -> Result<u64, String>;
    /// Copies `bytes` to device address `addr`.
    fn write(&self, addr: u64, bytes: &[u8]) -> Result<(), String>;
    /// Releases an allocation made by [`DeviceMemory::allocate`].
    fn free(&self, addr: u64) -> Result<(), String>;
}

/// Loader errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not a readable code object.
    #[error("code object {index}: {source}")]
    CodeObject {
        /// Load index.
        index: usize,
        /// The parse error.
        source: lathe_codeobj::Error,
    },
    /// The code object is not a shared object (`ET_DYN`).
    #[error("code object {index}: e_type {e_type} is not ET_DYN; link relocatable objects with ld.lld -shared first")]
    NotShared {
        /// Load index.
        index: usize,
        /// `e_type`.
        e_type: u16,
    },
    /// The code object does not run on the agent.
    #[error("code object {index} ({code}) cannot run on agent {agent}: {why}")]
    Incompatible {
        /// Load index.
        index: usize,
        /// The code object's target.
        code: String,
        /// The agent.
        agent: String,
        /// Why.
        why: String,
    },
    /// The executable is frozen; nothing can be loaded or defined.
    #[error("the executable is frozen")]
    Frozen,
    /// The executable must be frozen first.
    #[error("the executable is not frozen")]
    NotFrozen,
    /// A segment lies outside the file.
    #[error("code object {index}: segment {segment} (offset {offset:#x}, {filesz} bytes) lies outside the {file_len}-byte file")]
    SegmentOutOfFile {
        /// Load index.
        index: usize,
        /// Program header index.
        segment: usize,
        /// `p_offset`.
        offset: u64,
        /// `p_filesz`.
        filesz: u64,
        /// File length.
        file_len: usize,
    },
    /// The segments span too much memory.
    #[error(
        "code object {index}: segments span {span:#x} bytes, more than the {limit:#x}-byte limit"
    )]
    TooLarge {
        /// Load index.
        index: usize,
        /// Span of the `PT_LOAD` segments.
        span: u64,
        /// The limit.
        limit: u64,
    },
    /// Device memory refused.
    #[error("device memory: {0}")]
    Memory(String),
    /// A relocation could not be applied.
    #[error("code object {index}: relocation {reloc} ({kind}) at {offset:#x}: {why}")]
    Relocation {
        /// Load index.
        index: usize,
        /// Relocation number within the code object.
        reloc: usize,
        /// Type name.
        kind: String,
        /// `r_offset`.
        offset: u64,
        /// What went wrong.
        why: String,
    },
    /// Symbols left undefined at freeze.
    #[error("undefined symbol(s) at freeze: {}", .0.iter().map(|u| format!("{} (needed by code object {})", u.name, u.code_object)).collect::<Vec<_>>().join(", "))]
    Undefined(Vec<UndefinedSymbol>),
    /// An external variable was defined twice.
    #[error("external variable {0} is already defined")]
    Redefined(String),
}

/// A symbol nothing defines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndefinedSymbol {
    /// Name.
    pub name: String,
    /// The code object that refers to it.
    pub code_object: usize,
}

/// Result alias.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What a symbol of the executable is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SymbolKind {
    /// A kernel: `address` is its descriptor (`.kd`), as in HSA.
    Kernel,
    /// A variable (including `x.managed` storage).
    Variable,
    /// A device function (a non-kernel `STT_FUNC`).
    DeviceFunction,
    /// An indirect function (`STT_GNU_IFUNC`).
    IndirectFunction,
    /// An external variable defined by the host.
    ExternalVariable,
}

impl fmt::Display for SymbolKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SymbolKind::Kernel => "kernel",
            SymbolKind::Variable => "variable",
            SymbolKind::DeviceFunction => "device function",
            SymbolKind::IndirectFunction => "indirect function",
            SymbolKind::ExternalVariable => "external variable",
        })
    }
}

/// Kernel facts the dispatcher needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelInfo {
    /// Device address of the kernel descriptor.
    pub descriptor_address: u64,
    /// Device address of the first instruction.
    pub entry: u64,
    /// The descriptor.
    pub descriptor: KernelDescriptor,
    /// Kernarg segment size (from the metadata, else the descriptor).
    pub kernarg_size: u32,
    /// Kernarg segment alignment (metadata, default 16).
    pub kernarg_align: u32,
    /// Static LDS bytes.
    pub group_segment_size: u32,
    /// Scratch bytes per work-item.
    pub private_segment_size: u32,
    /// Whether the kernel uses a dynamically sized stack.
    pub dynamic_stack: bool,
}

/// A symbol of a frozen executable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedSymbol {
    /// Name (a kernel's name without `.kd`).
    pub name: String,
    /// Kind.
    pub kind: SymbolKind,
    /// Device address (a kernel's: of its descriptor).
    pub address: u64,
    /// Size in bytes.
    pub size: u64,
    /// Defining code object (`None` for external variables).
    pub code_object: Option<usize>,
    /// Global (visible to other code objects) or local.
    pub global: bool,
    /// For kernels.
    pub kernel: Option<KernelInfo>,
}

/// One loaded code object.
#[derive(Debug, Clone)]
pub struct LoadedCodeObject {
    /// Load index.
    pub index: usize,
    /// Target of the code object.
    pub target: TargetId,
    /// The original ELF bytes.
    pub storage: Vec<u8>,
    /// Device address of the lowest loaded virtual address.
    pub load_base: u64,
    /// Difference between device addresses and ELF virtual addresses.
    pub load_delta: i64,
    /// Bytes of device memory the segments span.
    pub load_size: u64,
    /// The relocated image, written to device memory at freeze.
    image: Vec<u8>,
    min_vaddr: u64,
}

impl LoadedCodeObject {
    /// Device address of an ELF virtual address of this code object.
    pub fn device_address(&self, vaddr: u64) -> u64 {
        vaddr.wrapping_add(self.load_delta as u64)
    }
}

/// Largest span of segments one code object may have (1 GiB).
pub const MAX_LOAD_SIZE: u64 = 1 << 30;

/// Whether code built for `code` runs on `agent`: the same processor (or a
/// generic target covering it; with `extended`, an extended-compatible one),
/// and every feature the code object fixes (`xnack±`, `sramecc±`) set the
/// same on the agent. An agent feature left unspecified accepts either.
pub fn compatible(code: &TargetId, agent: &TargetId, extended: bool) -> Result<(), String> {
    let cp = code.processor;
    let ap = agent.processor;
    let same = cp == ap;
    let generic = cp.is_generic() && cp.generic_members().contains(&ap.name());
    if !(same || generic || (extended && extended_compatible(cp, ap))) {
        return Err(format!(
            "processor {} does not run {} code",
            ap.name(),
            cp.name()
        ));
    }
    for (what, c, a) in [
        ("xnack", code.xnack, agent.xnack),
        ("sramecc", code.sramecc, agent.sramecc),
    ] {
        if c != FeatureSetting::Any && a != FeatureSetting::Any && c != a {
            return Err(format!(
                "code object requires {what}{} but the agent has {what}{}",
                sign(c),
                sign(a)
            ));
        }
    }
    Ok(())
}

fn sign(s: FeatureSetting) -> &'static str {
    match s {
        FeatureSetting::On => "+",
        FeatureSetting::Off => "-",
        FeatureSetting::Any => "",
    }
}

/// An executable for one agent.
#[derive(Debug)]
pub struct Executable {
    agent: TargetId,
    extended: bool,
    objects: Vec<LoadedCodeObject>,
    externals: Vec<(String, u64)>,
    symbols: Vec<LoadedSymbol>,
    by_name: HashMap<String, usize>,
    frozen: bool,
    rela_dyn_only: bool,
}

impl Executable {
    /// An empty executable for `agent` (clang's compatibility rules).
    pub fn new(agent: TargetId) -> Self {
        Executable {
            agent,
            extended: false,
            objects: Vec::new(),
            externals: Vec::new(),
            symbols: Vec::new(),
            by_name: HashMap::new(),
            frozen: false,
            rela_dyn_only: false,
        }
    }

    /// Apply only the relocations of `.rela.dyn`, as ROCr's loader does
    /// (it follows the dynamic table), not those of other allocated
    /// relocation sections (such as lathe-dbi's `.rela.lathe.text`): for
    /// testing what a tool must do itself on ROCr.
    pub fn rela_dyn_only(mut self, yes: bool) -> Self {
        self.rela_dyn_only = yes;
        self
    }

    /// Also accept extended-ISA-compatible code objects (e.g. gfx1030 code
    /// on a gfx1031 agent).
    pub fn allow_extended(mut self, yes: bool) -> Self {
        self.extended = yes;
        self
    }

    /// The agent.
    pub fn agent(&self) -> TargetId {
        self.agent
    }

    /// Whether [`Executable::freeze`] succeeded.
    pub fn is_frozen(&self) -> bool {
        self.frozen
    }

    /// Loads a code object (an `ET_DYN` AMDGPU ELF) and places its segments
    /// in device memory. Relocations are applied at freeze. Returns the load
    /// index.
    pub fn load(&mut self, mem: &dyn DeviceMemory, bytes: &[u8]) -> Result<usize> {
        if self.frozen {
            return Err(Error::Frozen);
        }
        let index = self.objects.len();
        let co = CodeObject::parse(bytes).map_err(|source| Error::CodeObject { index, source })?;
        let h = co.header();
        if h.e_type != ET_DYN {
            return Err(Error::NotShared {
                index,
                e_type: h.e_type,
            });
        }
        let target = co.target().ok_or_else(|| Error::Incompatible {
            index,
            code: "unknown".into(),
            agent: self.agent.to_string(),
            why: "the code object names no known processor".into(),
        })?;
        compatible(&target, &self.agent, self.extended).map_err(|why| Error::Incompatible {
            index,
            code: target.to_string(),
            agent: self.agent.to_string(),
            why,
        })?;
        let layout = Layout::of(&co, index)?;
        let mut image = vec![0u8; layout.size as usize];
        layout.copy_segments(&co, index, &mut image)?;
        let (span, align, min) = (layout.size, layout.align, layout.min_vaddr);
        let base = mem.allocate(span, align).map_err(Error::Memory)?;
        self.objects.push(LoadedCodeObject {
            index,
            target,
            storage: bytes.to_vec(),
            load_base: base,
            load_delta: base.wrapping_sub(min) as i64,
            load_size: span,
            image,
            min_vaddr: min,
        });
        Ok(index)
    }

    /// Defines an external variable (a symbol code objects may refer to but
    /// none defines) at a device address.
    pub fn define_external_variable(&mut self, name: &str, address: u64) -> Result<()> {
        if self.frozen {
            return Err(Error::Frozen);
        }
        if self.externals.iter().any(|(n, _)| n == name) {
            return Err(Error::Redefined(name.into()));
        }
        self.externals.push((name.into(), address));
        Ok(())
    }

    /// Resolves every relocation of every code object, writes the images to
    /// device memory and builds the symbol table. Fails, changing nothing,
    /// if any symbol is undefined, naming all of them.
    pub fn freeze(&mut self, mem: &dyn DeviceMemory) -> Result<()> {
        if self.frozen {
            return Err(Error::Frozen);
        }
        // Global definitions of every code object, first definition wins
        // (load order does not matter for well-formed programs: a symbol
        // defined twice globally is taken from the lowest load index).
        let mut globals: HashMap<String, u64> = HashMap::new();
        let mut symbols = Vec::new();
        for o in &self.objects {
            let co = CodeObject::parse(&o.storage).map_err(|source| Error::CodeObject {
                index: o.index,
                source,
            })?;
            for s in co.dynsym().iter().chain(co.symtab()) {
                if s.name.is_empty() || s.binding == 0 {
                    continue;
                }
                if let SymbolSection::Index(_) | SymbolSection::Absolute = s.section {
                    let addr = if s.section == SymbolSection::Absolute {
                        s.value
                    } else {
                        o.device_address(s.value)
                    };
                    globals.entry(s.name.to_string()).or_insert(addr);
                }
            }
            let syms = co.symbols().map_err(|source| Error::CodeObject {
                index: o.index,
                source,
            })?;
            for k in syms.kernels() {
                let (Some(kds), Ok(d)) = (k.descriptor_symbol, &k.descriptor) else {
                    continue;
                };
                let kd_addr = o.device_address(kds.value);
                let md = k.metadata.as_ref();
                let props = d.properties();
                symbols.push(LoadedSymbol {
                    name: k.name.to_string(),
                    kind: SymbolKind::Kernel,
                    address: kd_addr,
                    size: kds.size,
                    code_object: Some(o.index),
                    global: kds.binding != 0,
                    kernel: Some(KernelInfo {
                        descriptor_address: kd_addr,
                        entry: kd_addr.wrapping_add(d.kernel_code_entry_byte_offset as u64),
                        descriptor: *d,
                        kernarg_size: md.map_or(d.kernarg_size, |m| m.kernarg_segment_size as u32),
                        kernarg_align: md.map_or(16, |m| m.kernarg_segment_align.max(1) as u32),
                        group_segment_size: d.group_segment_fixed_size,
                        private_segment_size: d.private_segment_fixed_size,
                        dynamic_stack: props.uses_dynamic_stack,
                    }),
                });
            }
            for s in syms.all() {
                let kind = match s.kind {
                    CoKind::Variable => SymbolKind::Variable,
                    CoKind::DeviceFunction if s.st_type == 10 => SymbolKind::IndirectFunction,
                    CoKind::DeviceFunction => SymbolKind::DeviceFunction,
                    _ => continue,
                };
                let address = if s.section == SymbolSection::AmdgpuLds {
                    s.value
                } else {
                    o.device_address(s.value)
                };
                symbols.push(LoadedSymbol {
                    name: s.name.to_string(),
                    kind,
                    address,
                    size: s.size,
                    code_object: Some(o.index),
                    global: s.binding != 0,
                    kernel: None,
                });
            }
        }
        for (n, a) in &self.externals {
            globals.entry(n.clone()).or_insert(*a);
            symbols.push(LoadedSymbol {
                name: n.clone(),
                kind: SymbolKind::ExternalVariable,
                address: *a,
                size: 0,
                code_object: None,
                global: true,
                kernel: None,
            });
        }
        // Apply relocations to copies, so a failure leaves the executable as it was.
        let mut images: Vec<Vec<u8>> = self.objects.iter().map(|o| o.image.clone()).collect();
        let mut undefined = Vec::new();
        for (o, image) in self.objects.iter().zip(images.iter_mut()) {
            let co = CodeObject::parse(&o.storage).map_err(|source| Error::CodeObject {
                index: o.index,
                source,
            })?;
            let at = Placement {
                index: o.index,
                min_vaddr: o.min_vaddr,
                load_delta: o.load_delta,
                rela_dyn_only: self.rela_dyn_only,
            };
            relocate(
                &co,
                at,
                image,
                &mut |name| globals.get(name).copied(),
                &mut undefined,
            )?;
        }
        if !undefined.is_empty() {
            undefined.sort_by(|a, b| (&a.name, a.code_object).cmp(&(&b.name, b.code_object)));
            undefined.dedup();
            return Err(Error::Undefined(undefined));
        }
        for (o, image) in self.objects.iter_mut().zip(images) {
            mem.write(o.load_base, &image).map_err(Error::Memory)?;
            o.image = image;
        }
        let mut by_name: HashMap<String, usize> = HashMap::new();
        for (i, s) in symbols.iter().enumerate() {
            // Globals win over locals of the same name; first load wins.
            match by_name.get(&s.name) {
                Some(&j) if !s.global || symbols[j].global => {}
                _ => {
                    by_name.insert(s.name.clone(), i);
                }
            }
        }
        self.symbols = symbols;
        self.by_name = by_name;
        self.frozen = true;
        Ok(())
    }

    /// Looks up a symbol by name: its exact name first, so every name that
    /// [`Executable::symbols`] lists is found, even one that itself ends in
    /// `.kd`; otherwise a kernel by its descriptor's name (`name.kd`).
    pub fn symbol(&self, name: &str) -> Option<&LoadedSymbol> {
        if let Some(&i) = self.by_name.get(name) {
            return Some(&self.symbols[i]);
        }
        let base = name.strip_suffix(".kd")?;
        self.by_name
            .get(base)
            .map(|&i| &self.symbols[i])
            .filter(|s| s.kind == SymbolKind::Kernel)
    }

    /// Looks up a kernel by a pattern: mangled or demangled name, the plain
    /// name, or an unambiguous prefix of any of them
    /// ([`lathe_codeobj::names`]); `None` on a miss or an ambiguity.
    pub fn kernel(&self, name: &str) -> Option<&LoadedSymbol> {
        self.find_kernel(name).ok()
    }

    /// Like [`Executable::kernel`], but a miss or an ambiguity is an error
    /// listing the candidates with mangled and demangled names.
    pub fn find_kernel(
        &self,
        pattern: &str,
    ) -> std::result::Result<&LoadedSymbol, lathe_codeobj::names::NameError> {
        if let Some(s) = self
            .symbol(pattern)
            .filter(|s| s.kind == SymbolKind::Kernel)
        {
            return Ok(s);
        }
        let name = lathe_codeobj::names::resolve(
            pattern,
            self.symbols_of(SymbolKind::Kernel).map(|s| s.name.as_str()),
            "kernel",
        )?;
        self.symbol(name)
            .filter(|s| s.kind == SymbolKind::Kernel)
            .ok_or_else(|| lathe_codeobj::names::NameError::Missing {
                what: "kernel".into(),
                pattern: pattern.into(),
                candidates: Vec::new(),
                more: 0,
            })
    }

    /// Every symbol, in load order.
    pub fn symbols(&self) -> &[LoadedSymbol] {
        &self.symbols
    }

    /// Symbols of one kind.
    pub fn symbols_of(&self, kind: SymbolKind) -> impl Iterator<Item = &LoadedSymbol> {
        self.symbols.iter().filter(move |s| s.kind == kind)
    }

    /// The loaded code objects.
    pub fn code_objects(&self) -> &[LoadedCodeObject] {
        &self.objects
    }

    /// The kernel or device function of the loaded code object `lco`
    /// holding its code-object address `vaddr`: the function with the
    /// greatest entry at or below `vaddr`, and that entry.
    ///
    /// For an instrumented code object pass its address map: `vaddr` is
    /// then an original address, and each function's moved entry is
    /// named by the first original instruction at or after it (the
    /// rewriter moves every function; probes and a prologue may precede
    /// its first instruction).
    pub fn function_at(
        &self,
        lco: &LoadedCodeObject,
        vaddr: u64,
        map: Option<&lathe_codeobj::addr_map::AddrMap>,
    ) -> Option<(&str, u64)> {
        let start_of = |dev: u64| {
            let v = dev.wrapping_sub(lco.load_delta as u64);
            map.and_then(|m| m.original_at_or_after(v)).unwrap_or(v)
        };
        let mut best: Option<(&str, u64)> = None;
        for s in &self.symbols {
            if s.code_object != Some(lco.index) {
                continue;
            }
            let start = match (s.kind, s.kernel) {
                (SymbolKind::Kernel, Some(k)) => start_of(k.entry),
                (SymbolKind::DeviceFunction, _) => start_of(s.address),
                _ => continue,
            };
            if start <= vaddr && best.is_none_or(|(_, b)| start > b) {
                best = Some((s.name.as_str(), start));
            }
        }
        best
    }

    /// Releases the device memory of every code object.
    pub fn destroy(self, mem: &dyn DeviceMemory) -> Result<()> {
        for o in &self.objects {
            mem.free(o.load_base).map_err(Error::Memory)?;
        }
        Ok(())
    }
}

/// The unqualified name in an Itanium-mangled function name
/// (`_Z4axpyPfPKffi` → `axpy`), or the name itself if it is not mangled.
pub fn mangled_base_name(name: &str) -> Option<&str> {
    let Some(rest) = name.strip_prefix("_Z") else {
        return Some(name);
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = rest.get(..digits)?.parse().ok()?;
    rest.get(digits..digits + len)
}

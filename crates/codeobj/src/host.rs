//! The host side of HIP programs: kernel handles, device stubs and their
//! device kernels.
//!
//! Owns [`analyze`]: given a host ELF file (executable, shared library or
//! relocatable object), it lists the kernel handle symbols (data symbols
//! whose name is a device kernel's name: the address the host passes to
//! `__hipRegisterFunction` and `hipLaunchKernel`), the `__device_stub__`
//! functions, and maps each handle to the kernel in every device code
//! object that `lathe_bundle`'s discovery finds in the file. Handles and
//! kernels that match nothing are listed too.

use std::collections::{BTreeMap, BTreeSet};

use lathe_bundle::target::TargetId;
use lathe_bundle::Limits;
use object::{Object, ObjectSection, ObjectSymbol, SymbolKind as ObjKind};

use crate::CodeObject;

/// Why a host file could not be analysed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// The file is not an ELF file the `object` crate can read.
    #[error("host ELF: {0}")]
    Elf(object::read::Error),
    /// Bundle discovery failed.
    #[error("offload bundle discovery: {0}")]
    Bundle(#[from] lathe_bundle::Error),
}

/// A device code object found in the host file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceImage {
    /// Bundle index (discovery order).
    pub bundle: usize,
    /// Entry index in the bundle.
    pub entry: usize,
    /// The bundle entry ID, e.g. `hipv4-amdgcn-amd-amdhsa--gfx90a`.
    pub id: String,
    /// The entry's target ID.
    pub target: Option<TargetId>,
    /// Kernel names in the code object.
    pub kernels: Vec<String>,
    /// Why the code object could not be read, if it could not.
    pub error: Option<String>,
}

/// A host symbol (handle or stub).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HostSymbol {
    /// Symbol name.
    pub name: String,
    /// Address (section offset in relocatable objects).
    pub address: u64,
    /// Size.
    pub size: u64,
    /// Name of the defining section.
    pub section: Option<String>,
}

/// A `__device_stub__` function and the kernel name it launches.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceStub {
    /// The stub function.
    pub symbol: HostSymbol,
    /// The kernel name derived from the stub's mangled name.
    pub kernel: String,
}

/// One handle and the kernel it stands for in each device image.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HandleMapping {
    /// The handle symbol (named like the kernel).
    pub handle: HostSymbol,
    /// The stub that launches it, if present.
    pub stub: Option<String>,
    /// Indices into [`HostKernels::images`] holding the kernel.
    pub images: Vec<usize>,
    /// Indices into [`HostKernels::images`] of the readable images that lack
    /// the kernel although another entry of the same bundle (the same
    /// translation unit) holds it: a kernel not built for some target.
    pub missing_in: Vec<usize>,
}

/// Result of [`analyze`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct HostKernels {
    /// Device code objects found in the file.
    pub images: Vec<DeviceImage>,
    /// Handles that name a device kernel, with their images.
    pub mappings: Vec<HandleMapping>,
    /// Every `__device_stub__` function.
    pub stubs: Vec<DeviceStub>,
    /// Handles (data symbols named by a stub) that match no device kernel.
    pub unmatched_handles: Vec<HostSymbol>,
    /// (image index, kernel name) pairs no host handle refers to.
    pub unmatched_kernels: Vec<(usize, String)>,
}

/// Kernel name launched by a `__device_stub__` function, from its mangled
/// name: `_Z19__device_stub__axpyPfPKffi` → `_Z4axpyPfPKffi`,
/// `_ZN2ns19__device_stub__axpyEPf` → `_ZN2ns4axpyEPf`,
/// `__device_stub__k` (extern "C") → `k`.
pub fn stub_kernel_name(stub: &str) -> Option<String> {
    const TAG: &str = "__device_stub__";
    let at = stub.find(TAG)?;
    if at == 0 {
        return Some(stub[TAG.len()..].to_string());
    }
    let head = &stub[..at];
    let digits = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let len: usize = head[head.len() - digits..].parse().ok()?;
    let n = len.checked_sub(TAG.len()).filter(|&n| n > 0)?;
    Some(format!(
        "{}{n}{}",
        &head[..head.len() - digits],
        &stub[at + TAG.len()..]
    ))
}

fn host_symbol<'d>(file: &object::File<'d>, s: &object::Symbol<'d, '_>) -> Option<HostSymbol> {
    let name = s.name().ok()?.to_string();
    let section = s
        .section_index()
        .and_then(|i| file.section_by_index(i).ok())
        .and_then(|sec| sec.name().ok().map(str::to_string));
    Some(HostSymbol {
        name,
        address: s.address(),
        size: s.size(),
        section,
    })
}

/// Analyses a host ELF file: see the module documentation.
pub fn analyze(data: &[u8]) -> Result<HostKernels, HostError> {
    analyze_with(data, &Limits::default())
}

/// [`analyze`] with explicit decompression limits.
pub fn analyze_with(data: &[u8], limits: &Limits) -> Result<HostKernels, HostError> {
    let file = object::File::parse(data).map_err(HostError::Elf)?;
    let mut out = HostKernels::default();
    for item in lathe_bundle::walk(data, limits)? {
        let e = item?;
        let target = e.parsed_id().target_id();
        if target.is_none() {
            continue; // host entry
        }
        let bytes: &[u8] = &e.data;
        let (kernels, error) = match CodeObject::parse(bytes).and_then(|co| kernel_names(&co)) {
            Ok(k) => (k, None),
            Err(err) => (Vec::new(), Some(err.to_string())),
        };
        out.images.push(DeviceImage {
            bundle: e.bundle,
            entry: e.entry,
            id: e.id.clone(),
            target,
            kernels,
            error,
        });
    }
    let all_kernels: BTreeSet<&str> = out
        .images
        .iter()
        .flat_map(|i| i.kernels.iter().map(String::as_str))
        .collect();
    // Defined symbols from .symtab, else .dynsym.
    let mut syms: Vec<HostSymbol> = Vec::new();
    let mut data_syms: BTreeMap<String, HostSymbol> = BTreeMap::new();
    let tables: Vec<object::Symbol<'_, '_>> = if file.symbols().next().is_some() {
        file.symbols().collect()
    } else {
        file.dynamic_symbols().collect()
    };
    for s in &tables {
        if s.is_undefined() {
            continue;
        }
        let Some(h) = host_symbol(&file, s) else {
            continue;
        };
        match s.kind() {
            ObjKind::Text if h.name.contains("__device_stub__") => syms.push(h),
            ObjKind::Data | ObjKind::Unknown => {
                data_syms.entry(h.name.clone()).or_insert(h);
            }
            _ => {}
        }
    }
    for s in syms {
        if let Some(kernel) = stub_kernel_name(&s.name) {
            out.stubs.push(DeviceStub { symbol: s, kernel });
        }
    }
    let stub_for: BTreeMap<&str, &str> = out
        .stubs
        .iter()
        .map(|s| (s.kernel.as_str(), s.symbol.name.as_str()))
        .collect();
    // Which images hold each kernel, and the readable images of each bundle
    // (both in ascending image order).
    let mut kernel_images: std::collections::HashMap<&str, Vec<usize>> =
        std::collections::HashMap::new();
    let mut bundle_images: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, img) in out.images.iter().enumerate() {
        if img.error.is_some() {
            continue;
        }
        bundle_images.entry(img.bundle).or_default().push(i);
        for k in &img.kernels {
            let v = kernel_images.entry(k.as_str()).or_default();
            if v.last() != Some(&i) {
                v.push(i);
            }
        }
    }
    let mut referenced: BTreeSet<&str> = BTreeSet::new();
    for (name, h) in &data_syms {
        if all_kernels.contains(name.as_str()) {
            let images = kernel_images
                .get(name.as_str())
                .cloned()
                .unwrap_or_default();
            // Readable images of the bundles holding the kernel that lack it
            // (other bundles come from other translation units).
            let bundles: BTreeSet<usize> = images.iter().map(|&i| out.images[i].bundle).collect();
            let missing_in: Vec<usize> = bundles
                .iter()
                .flat_map(|b| bundle_images.get(b).into_iter().flatten().copied())
                .filter(|i| images.binary_search(i).is_err())
                .collect();
            referenced.insert(name.as_str());
            out.mappings.push(HandleMapping {
                handle: h.clone(),
                stub: stub_for.get(name.as_str()).map(|s| s.to_string()),
                images,
                missing_in,
            });
        } else if stub_for.contains_key(name.as_str()) {
            out.unmatched_handles.push(h.clone());
        }
    }
    let mut unmatched = Vec::new();
    for (i, img) in out.images.iter().enumerate() {
        for k in &img.kernels {
            if !referenced.contains(k.as_str()) {
                unmatched.push((i, k.clone()));
            }
        }
    }
    out.unmatched_kernels = unmatched;
    Ok(out)
}

/// The kernel names of a code object: its defined `.kd` symbols, read from
/// the symbol table alone (decoding the metadata of every code object of a
/// large library would cost most of the time); objects without any fall
/// back to the full symbol model, which also finds metadata-only kernels.
fn kernel_names(co: &CodeObject<'_>) -> crate::Result<Vec<String>> {
    let (_, raw) = co.primary_symbols();
    let kd: Vec<String> = raw
        .iter()
        .filter(|s| {
            s.st_type == crate::elf::STT_OBJECT && s.section != crate::SymbolSection::Undefined
        })
        .filter_map(|s| s.name.strip_suffix(".kd"))
        .map(str::to_string)
        .collect();
    if !kd.is_empty() {
        return Ok(kd);
    }
    Ok(co
        .symbols()?
        .kernels()
        .iter()
        .map(|k| k.name.to_string())
        .collect())
}

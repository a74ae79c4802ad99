//! The loaded images of a capsule's code objects, recreated at their
//! captured `code` allocations, so relocations give the bytes the captured
//! run had there (format 3 stores only the touched pages of a `code`
//! allocation; the rest comes from here, decisions D38 and D45).
//!
//! * [`Prepared`] is what replay uses: each code object parsed once, its
//!   segments copied straight into the caller's memory and its dynamic
//!   relocations applied there, with `lathe-loader`'s own two steps
//!   ([`lathe_loader::image`]) and its symbol rules, but no executable,
//!   symbol table or metadata.
//! * [`load`] builds the `lathe-loader` executable those loads make (for
//!   kernel and function names in a stop report) and, on request, its
//!   images: the reference [`Prepared`] is tested against.
//!
//! Plain byte buffers: no emulator memory, so the capture library
//! (`liblathe_tool.so`) does not link the emulator through this crate.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;

use lathe_codeobj::header::ET_DYN;
use lathe_codeobj::{CodeObject, SymbolSection};
use lathe_loader::image::{relocate, Layout, Placement};
use lathe_loader::Executable;

use crate::read::Capsule;

/// Why the code objects cannot be loaded at their captured allocations.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImageError {
    /// Loading the code objects.
    #[error("loading the capsule's code objects for {target}: {source}")]
    Load {
        /// The capsule's target.
        target: String,
        /// The loader's error.
        source: lathe_loader::Error,
    },
    /// A code object does not run on the capsule's target.
    #[error("loading the capsule's code objects for {target}: code object {index} ({code}) does not run on it: {why}")]
    Target {
        /// The capsule's target.
        target: String,
        /// Code object index.
        index: usize,
        /// Its target.
        code: String,
        /// Why not.
        why: String,
    },
}

/// The loader's memory: code object `i` goes to the `i`th captured code
/// allocation, whose bytes are a buffer (or nothing, for names only).
struct Slots {
    /// `(base, size)` of each code object's allocation.
    slots: Vec<(u64, u64)>,
    /// The images, when kept.
    bufs: Option<RefCell<Vec<Vec<u8>>>>,
    next: Cell<usize>,
}

impl lathe_loader::DeviceMemory for Slots {
    fn allocate(&self, size: u64, align: u64) -> Result<u64, String> {
        let i = self.next.get();
        let &(base, have) = self
            .slots
            .get(i)
            .ok_or_else(|| format!("code object {i} has no allocation"))?;
        if size != have || base % align.max(1) != 0 {
            return Err(format!(
                "code object {i} loads {size} bytes aligned to {align}; its captured allocation is {have} bytes at {base:#x}"
            ));
        }
        if let Some(b) = &self.bufs {
            // The reader bounded the code allocations' total (`Limits::memory`).
            b.borrow_mut()[i] = vec![0; size as usize];
        }
        self.next.set(i + 1);
        Ok(base)
    }
    fn write(&self, addr: u64, bytes: &[u8]) -> Result<(), String> {
        let Some(b) = &self.bufs else { return Ok(()) };
        let mut bufs = b.borrow_mut();
        let hit = self.slots.iter().enumerate().find_map(|(i, &(base, _))| {
            let off = usize::try_from(addr.checked_sub(base)?).ok()?;
            let end = off.checked_add(bytes.len())?;
            (end <= bufs[i].len()).then_some((i, off, end))
        });
        let (i, off, end) = hit.ok_or_else(|| {
            format!(
                "{} bytes at {addr:#x}: in no loaded code allocation",
                bytes.len()
            )
        })?;
        bufs[i][off..end].copy_from_slice(bytes);
        Ok(())
    }
    fn free(&self, _addr: u64) -> Result<(), String> {
        Ok(())
    }
}

/// The capsule's code objects loaded into their captured allocations.
#[derive(Debug)]
pub struct Images {
    /// The executable (symbols at their captured addresses).
    pub exe: Executable,
    /// Code object `i`'s allocation as loading leaves it (globals at their
    /// initial values), `manifest.code_objects[i].allocation`'s size;
    /// empty when loaded for names only.
    pub images: Vec<Vec<u8>>,
}

/// Loads `c`'s code objects at their captured allocations, keeping the
/// bytes (`keep`) or only the symbols.
pub fn load(c: &Capsule, keep: bool) -> Result<Images, ImageError> {
    check_targets(c)?;
    let m = &c.manifest;
    let load_err = |source| ImageError::Load {
        target: m.target.clone(),
        source,
    };
    let n = m.code_objects.len();
    let mem = Slots {
        slots: m
            .code_objects
            .iter()
            .map(|co| {
                let a = &m.allocations[co.allocation];
                (a.base, a.size)
            })
            .collect(),
        bufs: keep.then(|| RefCell::new(vec![Vec::new(); n])),
        next: Cell::new(0),
    };
    let mut exe = Executable::new(c.target);
    for co in &c.code_objects {
        exe.load(&mem, co).map_err(load_err)?;
    }
    exe.freeze(&mem).map_err(load_err)?;
    let images = mem.bufs.map(RefCell::into_inner).unwrap_or_default();
    Ok(Images { exe, images })
}

/// Every code object runs on the capsule's target (clang's rules).
pub fn check_targets(c: &Capsule) -> Result<(), ImageError> {
    for (index, co) in c.code_objects.iter().enumerate() {
        check_target(c, index, co)?;
    }
    Ok(())
}

/// Code object `index` (`bytes`) parsed, if it runs on the capsule's target.
fn check_target<'b>(
    c: &Capsule,
    index: usize,
    bytes: &'b [u8],
) -> Result<CodeObject<'b>, ImageError> {
    let err = |code: String, why: String| ImageError::Target {
        target: c.manifest.target.clone(),
        index,
        code,
        why,
    };
    let parsed = CodeObject::parse(bytes).map_err(|e| err("unreadable".into(), e.to_string()))?;
    let t = parsed
        .target()
        .ok_or_else(|| err("unknown".into(), "it names no known processor".into()))?;
    lathe_loader::compatible(&t, &c.target, false).map_err(|why| err(t.to_string(), why))?;
    Ok(parsed)
}

/// A capsule's code objects parsed and checked (targets, layouts against
/// their captured allocations), ready to write each image where the
/// caller keeps the allocation's bytes ([`Prepared::fill`]).
#[derive(Debug)]
pub struct Prepared<'c> {
    c: &'c Capsule,
    parsed: Vec<CodeObject<'c>>,
    layouts: Vec<Layout>,
    /// Global definitions of every code object, first wins, as the
    /// loader's freeze makes them; built on the first relocation that
    /// names a symbol its own code object does not define.
    globals: OnceCell<HashMap<&'c str, u64>>,
}

impl<'c> Prepared<'c> {
    /// Parses `c`'s code objects once and checks each runs on the
    /// capsule's target, is a shared object, and spans exactly its
    /// captured allocation at an address its alignment allows.
    pub fn new(c: &'c Capsule) -> Result<Prepared<'c>, ImageError> {
        let m = &c.manifest;
        let load_err = |source| ImageError::Load {
            target: m.target.clone(),
            source,
        };
        let mut parsed = Vec::with_capacity(c.code_objects.len());
        let mut layouts = Vec::with_capacity(c.code_objects.len());
        for (index, bytes) in c.code_objects.iter().enumerate() {
            let co = check_target(c, index, bytes)?;
            if co.header().e_type != ET_DYN {
                return Err(load_err(lathe_loader::Error::NotShared {
                    index,
                    e_type: co.header().e_type,
                }));
            }
            let layout = Layout::of(&co, index).map_err(load_err)?;
            let a = &m.allocations[m.code_objects[index].allocation];
            if layout.size != a.size || a.base % layout.align != 0 {
                return Err(load_err(lathe_loader::Error::Memory(format!(
                    "code object {index} loads {} bytes aligned to {}; its captured allocation is {} bytes at {:#x}",
                    layout.size, layout.align, a.size, a.base
                ))));
            }
            parsed.push(co);
            layouts.push(layout);
        }
        Ok(Prepared {
            c,
            parsed,
            layouts,
            globals: OnceCell::new(),
        })
    }

    /// Device address minus ELF address of code object `k`.
    fn delta(&self, k: usize) -> i64 {
        let m = &self.c.manifest;
        let base = m.allocations[m.code_objects[k].allocation].base;
        base.wrapping_sub(self.layouts[k].min_vaddr) as i64
    }

    fn globals(&self) -> &HashMap<&'c str, u64> {
        self.globals.get_or_init(|| {
            let mut g = HashMap::new();
            for (k, co) in self.parsed.iter().enumerate() {
                let delta = self.delta(k) as u64;
                for s in co.dynsym().iter().chain(co.symtab()) {
                    if s.name.is_empty() || s.binding == 0 {
                        continue;
                    }
                    let addr = match s.section {
                        SymbolSection::Absolute => s.value,
                        SymbolSection::Index(_) => s.value.wrapping_add(delta),
                        _ => continue,
                    };
                    g.entry(s.name).or_insert(addr);
                }
            }
            g
        })
    }

    /// Writes code object `k`'s image, relocated for its captured
    /// allocation, into `dst`: that allocation's bytes (its size), all
    /// zero on entry (fresh memory; only the segments' file bytes and the
    /// relocated words are written).
    pub fn fill(&self, k: usize, dst: &mut [u8]) -> Result<(), ImageError> {
        let m = &self.c.manifest;
        let load_err = |source| ImageError::Load {
            target: m.target.clone(),
            source,
        };
        let (co, layout) = (&self.parsed[k], self.layouts[k]);
        if dst.len() as u64 != layout.size {
            return Err(load_err(lathe_loader::Error::Memory(format!(
                "code object {k}: {} bytes to fill, its image is {}",
                dst.len(),
                layout.size
            ))));
        }
        layout.copy_segments(co, k, dst).map_err(load_err)?;
        let at = Placement {
            index: k,
            min_vaddr: layout.min_vaddr,
            load_delta: self.delta(k),
            rela_dyn_only: false,
        };
        let mut undefined = Vec::new();
        relocate(
            co,
            at,
            dst,
            &mut |name| self.globals().get(name).copied(),
            &mut undefined,
        )
        .map_err(load_err)?;
        if !undefined.is_empty() {
            undefined.sort_by(|a, b| a.name.cmp(&b.name));
            undefined.dedup();
            return Err(load_err(lathe_loader::Error::Undefined(undefined)));
        }
        Ok(())
    }
}

//! The loaded images of a capsule's code objects, recreated: each code
//! object loaded by `lathe-loader` at its captured `code` allocation, so
//! relocations give the bytes the captured run had there (format 3
//! stores only the touched pages of a `code` allocation; the rest comes
//! from here, decision D38). Also the executable those loads make, for
//! kernel and function names. Plain byte buffers: no emulator memory,
//! so the capture library (`liblathe_tool.so`) does not link the
//! emulator through this crate.

use std::cell::{Cell, RefCell};

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
        let err = |code: String, why: String| ImageError::Target {
            target: c.manifest.target.clone(),
            index,
            code,
            why,
        };
        let parsed = lathe_codeobj::CodeObject::parse(co)
            .map_err(|e| err("unreadable".into(), e.to_string()))?;
        let t = parsed
            .target()
            .ok_or_else(|| err("unknown".into(), "it names no known processor".into()))?;
        lathe_loader::compatible(&t, &c.target, false).map_err(|why| err(t.to_string(), why))?;
    }
    Ok(())
}

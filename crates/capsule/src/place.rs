//! A capsule's memory at its device addresses, ready to dispatch: the
//! memory layer of replay, and the only module of this crate with
//! `unsafe`.
//!
//! Every allocation is placed at its captured device address. The pages
//! covering each group of allocations are mapped at that very host
//! address when the replaying process has it free (`MAP_FIXED_NOREPLACE`),
//! so the device address is the host address as in the captured run and
//! nothing the emulator allocates later (scratch, its own packet copy)
//! can land there. When the address is taken, the allocation is host
//! memory with the same page offset registered at the device address as
//! an alias. The code objects are loaded by `lathe-loader` into their
//! captured allocations (so relocations give the same addresses), then
//! every allocation, code included, gets its captured bytes.

use std::cell::Cell;

use lathe_codeobj::kd::KdArch;
use lathe_emu::mem::{DeviceMemory, RegionKind};
use lathe_emu::session::Session;
use lathe_loader::{Executable, KernelInfo};

use crate::read::Capsule;
use crate::PAGE;

/// Why a capsule cannot be placed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlaceError {
    /// Host memory for the allocations.
    #[error("cannot place allocation {index} ({base:#x}, {size} bytes): {why}")]
    Memory {
        /// Allocation index.
        index: usize,
        /// Device address.
        base: u64,
        /// Size.
        size: u64,
        /// Why.
        why: String,
    },
    /// Loading the code objects.
    #[error("loading the capsule's code objects for {target}: {source}")]
    Load {
        /// The capsule's target.
        target: String,
        /// The loader's error.
        source: lathe_loader::Error,
    },
    /// Loading the replacement code object (`--code`).
    #[error("loading the replacement code object: {0}")]
    Code(lathe_loader::Error),
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
    /// The kernel is not where the capsule says.
    #[error("{0}")]
    Kernel(String),
}

/// One mapped or allocated host span covering whole pages.
#[derive(Debug)]
struct Span {
    start: u64,
    ptr: *mut u8,
    len: usize,
    mapped: bool,
}

impl Drop for Span {
    fn drop(&mut self) {
        if self.mapped {
            // SAFETY: `ptr..ptr+len` was mapped by `map_span` and is
            // unmapped once, here, after the device memory that aliased it
            // was dropped (`Placed`'s field order).
            unsafe { libc::munmap(self.ptr.cast(), self.len) };
        } else if let Ok(layout) = std::alloc::Layout::from_size_align(self.len, PAGE as usize) {
            // SAFETY: `ptr` came from `alloc_zeroed(layout)` with this
            // layout in `map_span`, freed once, after its last user.
            unsafe { std::alloc::dealloc(self.ptr, layout) };
        }
    }
}

/// Host memory for `len` bytes that the device sees at `start`: mapped at
/// `start` itself when free, else a page-aligned heap block.
fn map_span(start: u64, len: usize) -> Option<Span> {
    const USER_TOP: u64 = 1 << 47;
    if start != 0 && start.checked_add(len as u64).is_some_and(|e| e <= USER_TOP) {
        // SAFETY: MAP_FIXED_NOREPLACE never replaces an existing mapping;
        // the kernel either maps fresh zeroed pages at `start` or fails.
        let p = unsafe {
            libc::mmap(
                start as usize as *mut libc::c_void,
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE
                    | libc::MAP_ANONYMOUS
                    | libc::MAP_FIXED_NOREPLACE
                    | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p != libc::MAP_FAILED {
            if p as usize as u64 == start {
                return Some(Span {
                    start,
                    ptr: p.cast(),
                    len,
                    mapped: true,
                });
            }
            // An old kernel treated the address as a hint.
            // SAFETY: `p..p+len` is the mapping just made, unused.
            unsafe { libc::munmap(p, len) };
        }
    }
    let layout = std::alloc::Layout::from_size_align(len, PAGE as usize).ok()?;
    // SAFETY: `len` is non-zero (spans cover at least one page).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    (!ptr.is_null()).then_some(Span {
        start,
        ptr,
        len,
        mapped: false,
    })
}

fn region_kind(kind: &str) -> RegionKind {
    match kind {
        "code" => RegionKind::Code,
        "queue" | "packet" => RegionKind::Runtime,
        "host-locked" => RegionKind::Host,
        "kernarg" => RegionKind::Kernarg,
        _ => RegionKind::Device,
    }
}

/// The loader's memory during replay: each code object goes to the next
/// captured code allocation.
struct CodeSlots<'a> {
    /// `None`: a load for symbol names only, writing nothing.
    mem: Option<&'a DeviceMemory>,
    slots: Vec<(u64, u64)>,
    next: Cell<usize>,
}

impl lathe_loader::DeviceMemory for CodeSlots<'_> {
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
        self.next.set(i + 1);
        Ok(base)
    }
    fn write(&self, addr: u64, bytes: &[u8]) -> Result<(), String> {
        match self.mem {
            Some(m) => m.view().write_bytes(addr, bytes).map_err(|e| e.to_string()),
            None => Ok(()),
        }
    }
    fn free(&self, _addr: u64) -> Result<(), String> {
        Ok(())
    }
}

/// A placed capsule: memory as before the dispatch, code loaded.
#[derive(Debug)]
pub struct Placed {
    /// Device memory and the executable holding the kernel to run (the
    /// replacement's under `--code`). Dropped before `spans`.
    pub session: Session,
    /// The kernel to dispatch.
    pub kernel: KernelInfo,
    /// The captured executable when `session.exe` is the replacement.
    pub captured_exe: Option<Executable>,
    spans: Vec<Span>,
}

impl Placed {
    /// Places `c`; with `code`, the kernel runs from that code object
    /// instead (loaded at a fresh address; it must define the same symbol).
    pub fn new(c: &Capsule, code: Option<&[u8]>) -> Result<Placed, PlaceError> {
        match code {
            Some(co) => Placed::with_code(c, &[co]),
            None => Placed::with_code(c, &[]),
        }
    }

    /// Places `c`; with code objects, the kernel runs from the first
    /// (another build, or an instrumented one), loaded at fresh addresses
    /// into one executable with the rest (a HIP tool's hooks, which the
    /// first calls).
    pub fn with_code(c: &Capsule, objects: &[&[u8]]) -> Result<Placed, PlaceError> {
        let code = objects.first();
        let m = &c.manifest;
        let mem = DeviceMemory::new();
        // Whole pages covering each run of allocations that share pages.
        let mut groups: Vec<(u64, u64, Vec<usize>)> = Vec::new();
        for (i, a) in m.allocations.iter().enumerate() {
            let lo = a.base & !(PAGE - 1);
            let hi = (a.base + a.size).next_multiple_of(PAGE);
            match groups.last_mut() {
                Some(g) if lo < g.1 => {
                    g.1 = g.1.max(hi);
                    g.2.push(i);
                }
                _ => groups.push((lo, hi, vec![i])),
            }
        }
        let mut spans = Vec::with_capacity(groups.len());
        for (lo, hi, members) in groups {
            let first = members[0];
            let a = &m.allocations[first];
            let err = |why: &str| PlaceError::Memory {
                index: first,
                base: a.base,
                size: a.size,
                why: why.into(),
            };
            let len = usize::try_from(hi - lo).map_err(|_| err("too large"))?;
            let span = map_span(lo, len).ok_or_else(|| err("out of host memory"))?;
            for i in members {
                let a = &m.allocations[i];
                let kind = region_kind(&a.kind);
                // Only the stored runs are device memory: an access to
                // another page of the allocation faults, outside the
                // capsule.
                for run in c.runs(i) {
                    let dev = a.base + run.offset;
                    // SAFETY: the run lies inside `a` (checked by the
                    // reader), so inside the span covering `a`'s pages;
                    // the span stays mapped until after `mem` is dropped
                    // (field order of `Placed`).
                    let host = unsafe { span.ptr.add((dev - span.start) as usize) };
                    // SAFETY: `host..host+run.len` is inside the span,
                    // valid for reads and writes for as long as `mem`
                    // lives.
                    let r = unsafe {
                        if span.mapped {
                            mem.register_host(host, run.len, true, kind)
                        } else {
                            mem.register_host_alias(dev, host, run.len, true, kind)
                        }
                    };
                    r.map_err(|e| PlaceError::Memory {
                        index: i,
                        base: a.base,
                        size: a.size,
                        why: e.to_string(),
                    })?;
                }
            }
            spans.push(span);
        }
        // The code allocations' captured bytes are the loaded, relocated
        // images; the loader runs (into them) only for `--code`, whose
        // replacement may call into them. Otherwise the kernel comes from
        // its descriptor in the captured bytes, and the symbols are
        // loaded only to name places in a stop report ([`Placed::names`]).
        let exe = match code {
            Some(_) => load(c, Some(&mem))?,
            None => {
                check_targets(c)?;
                Executable::new(c.target)
            }
        };
        let mut view = mem.view();
        for (i, a) in m.allocations.iter().enumerate() {
            for run in c.runs(i) {
                view.write_bytes(a.base + run.offset, c.before(run))
                    .map_err(|e| PlaceError::Memory {
                        index: i,
                        base: a.base,
                        size: a.size,
                        why: e.to_string(),
                    })?;
            }
        }
        drop(view);
        let target = lathe_isa::Target::from_name(c.target.processor.name())
            .map_err(|e| PlaceError::Kernel(format!("target {}: {e}", c.target)))?;
        let arch = KdArch::for_processor(c.target.processor);
        let (exe, kernel, captured_exe) = match code {
            None => {
                let k = kernel_at(&mem, m.kernel_object)?;
                (exe, k, None)
            }
            Some(_) => {
                let mut other = Executable::new(c.target);
                for bytes in objects {
                    other.load(&mem, bytes).map_err(PlaceError::Code)?;
                }
                other.freeze(&mem).map_err(PlaceError::Code)?;
                let k = other
                    .kernel(&m.kernel)
                    .and_then(|s| s.kernel)
                    .ok_or_else(|| {
                        PlaceError::Kernel(format!(
                            "the replacement code object has no kernel {}",
                            m.kernel
                        ))
                    })?;
                (other, k, Some(exe))
            }
        };
        Ok(Placed {
            session: Session {
                mem,
                exe,
                target,
                arch,
            },
            kernel,
            captured_exe,
            spans,
        })
    }

    /// The capsule's code objects loaded for their symbols (kernel and
    /// function names in stop reports), writing no memory.
    pub fn names(c: &Capsule) -> Result<Executable, PlaceError> {
        load(c, None)
    }

    /// How many allocations were placed at their own host address (the
    /// rest are aliases of host memory elsewhere).
    pub fn mapped_in_place(&self) -> usize {
        self.spans.iter().filter(|s| s.mapped).count()
    }
}

/// Loads the capsule's code objects into their captured allocations.
fn load(c: &Capsule, mem: Option<&DeviceMemory>) -> Result<Executable, PlaceError> {
    let m = &c.manifest;
    let load_err = |source| PlaceError::Load {
        target: m.target.clone(),
        source,
    };
    let slots = CodeSlots {
        mem,
        slots: m
            .code_objects
            .iter()
            .map(|co| {
                let a = &m.allocations[co.allocation];
                (a.base, a.size)
            })
            .collect(),
        next: Cell::new(0),
    };
    let mut exe = Executable::new(c.target);
    for co in &c.code_objects {
        exe.load(&slots, co).map_err(load_err)?;
    }
    exe.freeze(&slots).map_err(load_err)?;
    Ok(exe)
}

/// The kernel whose descriptor is at `kd` in placed memory, as the loader
/// describes it (sizes from the descriptor).
fn kernel_at(mem: &DeviceMemory, kd: u64) -> Result<KernelInfo, PlaceError> {
    let mut b = [0u8; 64];
    mem.view()
        .read_bytes(kd, &mut b)
        .map_err(|e| PlaceError::Kernel(format!("the kernel descriptor at {kd:#x}: {e}")))?;
    let d = lathe_codeobj::kd::KernelDescriptor::parse(&b)
        .map_err(|e| PlaceError::Kernel(format!("the kernel descriptor at {kd:#x}: {e}")))?;
    Ok(KernelInfo {
        descriptor_address: kd,
        entry: kd.wrapping_add(d.kernel_code_entry_byte_offset as u64),
        descriptor: d,
        kernarg_size: d.kernarg_size,
        kernarg_align: 16,
        group_segment_size: d.group_segment_fixed_size,
        private_segment_size: d.private_segment_fixed_size,
        dynamic_stack: d.properties().uses_dynamic_stack,
    })
}

/// Every code object runs on the capsule's target (clang's rules).
fn check_targets(c: &Capsule) -> Result<(), PlaceError> {
    for (index, co) in c.code_objects.iter().enumerate() {
        let err = |code: String, why: String| PlaceError::Target {
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

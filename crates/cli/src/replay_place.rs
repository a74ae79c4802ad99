//! A capsule's memory at its device addresses, ready to dispatch: the
//! memory layer of `lathe replay` (here, not in `lathe-capsule`, so the
//! capture library that writes capsules does not link the emulator).
//!
//! Every allocation is placed at its captured device address. The pages
//! covering each group of allocations are mapped at that very host
//! address when the replaying process has it free (`MAP_FIXED_NOREPLACE`),
//! so the device address is the host address as in the captured run and
//! nothing the emulator allocates later (scratch, its own packet copy)
//! can land there. When the address is taken, the allocation is host
//! memory with the same page offset registered at the device address as
//! an alias. A `code` allocation the capsule does not store whole (format
//! 3: its touched pages only) is its code object loaded there by
//! `lathe-loader` (`lathe_capsule::image`, so relocations give the same
//! bytes), then every allocation, code included, gets its stored bytes.

use lathe_capsule::image::{self, ImageError};
use lathe_capsule::read::Capsule;
use lathe_capsule::PAGE;
use lathe_codeobj::kd::KdArch;
use lathe_emu::mem::{DeviceMemory, RegionKind};
use lathe_emu::session::Session;
use lathe_loader::{Executable, KernelInfo};

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
    /// Loading the capsule's code objects at their captured allocations.
    #[error(transparent)]
    Image(#[from] ImageError),
    /// Loading the replacement code object (`--code`).
    #[error("loading the replacement code object: {0}")]
    Code(lathe_loader::Error),
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
    /// Held for their `Drop` (unmapped after `session`).
    _spans: Vec<Span>,
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
        // A code allocation not stored whole is its code object's image
        // (relocated for its captured allocation) under the stored runs,
        // written straight into its place (`fill`). Whole ones need only
        // their targets checked; the kernel comes from its descriptor in
        // memory.
        let partial = m.code_objects.iter().any(|co| !c.whole(co.allocation));
        let prepared = if partial {
            Some(image::Prepared::new(c)?)
        } else {
            image::check_targets(c)?;
            None
        };
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
                let image = c.image_of(i);
                if let (Some(k), Some(p)) = (image, &prepared) {
                    if !c.whole(i) {
                        // SAFETY: the allocation lies inside the span (the
                        // span covers its pages), which is fresh zeroed
                        // memory that nothing else references yet: it is
                        // registered as device memory only below.
                        let dst = unsafe {
                            std::slice::from_raw_parts_mut(
                                span.ptr.add((a.base - span.start) as usize),
                                a.size as usize,
                            )
                        };
                        p.fill(k, dst)?;
                    }
                }
                // Only the stored runs are device memory: an access to
                // another page of the allocation faults, outside the
                // capsule. A code allocation is whole: its code object's
                // image under the stored runs.
                let whole = [(0, a.size)];
                let stored: Vec<(u64, u64)> = c.runs(i).iter().map(|r| (r.offset, r.len)).collect();
                let ranges = if image.is_some() {
                    &whole[..]
                } else {
                    &stored[..]
                };
                for &(offset, len) in ranges {
                    let dev = a.base + offset;
                    // SAFETY: the range lies inside `a` (runs are checked
                    // by the reader), so inside the span covering `a`'s pages;
                    // the span stays mapped until after `mem` is dropped
                    // (field order of `Placed`).
                    let host = unsafe { span.ptr.add((dev - span.start) as usize) };
                    // SAFETY: `host..host+len` is inside the span, valid
                    // for reads and writes for as long as `mem` lives.
                    let r = unsafe {
                        if span.mapped {
                            mem.register_host(host, len, true, kind)
                        } else {
                            mem.register_host_alias(dev, host, len, true, kind)
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
        drop(prepared);
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
                (Executable::new(c.target), k, None)
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
                (other, k, Some(Placed::names(c)?))
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
            _spans: spans,
        })
    }

    /// The capsule's code objects loaded for their symbols (kernel and
    /// function names in stop reports), writing no memory.
    pub fn names(c: &Capsule) -> Result<Executable, PlaceError> {
        Ok(image::load(c, false)?.exe)
    }
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

//! Device memory: allocations with bounds, registered host memory, and the
//! access path every emulated load, store and atomic goes through.
//!
//! As on an APU, a device address *is* the host virtual address of the
//! backing bytes, so a runtime layered on top can hand the same pointer to
//! host code. Bounds do not come from address translation but from an
//! allocation table: every access looks up the region that must contain the
//! whole access, and an access that no region contains is a [`Fault`], never
//! a host access.
//!
//! Emulated lanes run on several host threads at once and GPU programs may
//! race, so all accesses to region bytes use relaxed atomics (plain moves
//! on x86-64) — racy GPU code gives racy values, never undefined behaviour
//! in the emulator.
//!
//! **Memory model across host threads** (docs/decisions.md, D17):
//! * *Single-copy atomicity.* Every naturally aligned access of 1, 2, 4 or
//!   8 bytes is one host atomic of that width, so another thread sees it
//!   whole or not at all. A lane's wider access (`dwordx3`, `dwordx4`) is
//!   made of its naturally aligned 64-bit pairs and 32-bit dwords, each
//!   single-copy atomic, as the hardware guarantees no more. Unaligned
//!   accesses are split into the widest aligned pieces.
//! * *Read-modify-write atomics* are sequentially consistent host atomics
//!   of their width (compare-exchange loops for the float and min/max
//!   operations), so concurrent atomics never lose an update.
//! * *Visibility.* A store is visible to other host threads when the
//!   emulated instruction completes (memory completes at issue); plain
//!   accesses impose no order between threads, like relaxed GPU accesses at
//!   agent scope. Work-groups on one host thread see each other's stores in
//!   program order. The end of a dispatch (the AQL completion signal)
//!   orders everything the kernel wrote before the host or a later dispatch
//!   reads it.
//!
//! Lookups are fast: [`MemView`] caches the regions it last hit, and the
//! table is a sorted vector searched by binary search on a miss.
//!
//! A wave's vector access is checked once, not per lane, when the active
//! lanes' addresses span one region; the commonest shape, all 64 lanes
//! reading or writing consecutive elements, is recognised up front and
//! moved with one strided loop between memory and the register file
//! ([`MemView::gather_dwords`], [`MemView::scatter_dwords`]); all 64
//! lanes at other 4-aligned addresses in one region (a table read through
//! computed indices) take one straight loop as well. Whenever a
//! fast path's single check fails, the lane-by-lane path runs instead, so
//! the fault reported (and the first faulting lane) never depends on which
//! path was tried.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, RwLock};

mod pages;
mod raw;
mod touch;
mod view;

pub use pages::GUARD;
pub use raw::rmw;
pub use touch::{Touched, TOUCH_PAGE_SHIFT};
pub use view::MemView;

/// What kind of memory a region is; shown in fault reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegionKind {
    /// Device memory allocated by the runtime.
    Device,
    /// Host memory registered for device access.
    Host,
    /// A kernel argument segment.
    Kernarg,
    /// Loaded code-object segments.
    Code,
    /// Runtime-internal memory (queues, dispatch packets, signals).
    Runtime,
}

/// The kind of access that faulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessKind {
    /// A load.
    Read,
    /// A store.
    Write,
    /// A read-modify-write atomic.
    Atomic,
}

impl fmt::Display for AccessKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::Atomic => "atomic",
        })
    }
}

/// A memory access outside every region, or one the region refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Fault {
    /// No region contains `[addr, addr + size)`.
    #[error("GPU memory fault: {kind} of {size} bytes at {addr:#x} is outside every allocation{}", near_text(*.nearest))]
    Unmapped {
        /// First byte accessed.
        addr: u64,
        /// Access size in bytes.
        size: u32,
        /// Access kind.
        kind: AccessKind,
        /// The nearest region below the address: (start, length).
        nearest: Option<(u64, u64)>,
    },
    /// A write or atomic to a read-only region.
    #[error(
        "GPU memory fault: {kind} of {size} bytes at {addr:#x} to read-only {region:?} memory"
    )]
    ReadOnly {
        /// First byte accessed.
        addr: u64,
        /// Access size in bytes.
        size: u32,
        /// Access kind.
        kind: AccessKind,
        /// Kind of the region.
        region: RegionKind,
    },
    /// An atomic at an address not aligned to its size.
    #[error("GPU memory fault: misaligned {size}-byte atomic at {addr:#x}")]
    Misaligned {
        /// Address.
        addr: u64,
        /// Access size in bytes.
        size: u32,
    },
}

fn near_text(nearest: Option<(u64, u64)>) -> String {
    match nearest {
        Some((start, len)) => format!(
            " (nearest allocation below: {start:#x}..{:#x}, {len} bytes)",
            start.saturating_add(len)
        ),
        None => String::new(),
    }
}

/// Errors of allocation-table management (not of emulated accesses).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MemError {
    /// The host allocator refused the request.
    #[error("cannot allocate {0} bytes of device memory")]
    OutOfMemory(u64),
    /// The address is not the start of a live region.
    #[error("{0:#x} is not the start of an allocation")]
    NotAllocated(u64),
    /// A registered range overlaps an existing region.
    #[error("range {start:#x}..{end:#x} overlaps an existing allocation")]
    Overlap {
        /// Start of the new range.
        start: u64,
        /// End of the new range.
        end: u64,
    },
    /// A zero-length or wrapping range.
    #[error("invalid range: {0:#x} + {1}")]
    BadRange(u64, u64),
}

/// One contiguous region of device-visible memory.
pub struct Region {
    start: u64,
    len: u64,
    kind: RegionKind,
    writable: bool,
    /// The mapping of an owned region ([`DeviceMemory::allocate_sized`]),
    /// unmapped when the region is dropped; `None` for memory registered by
    /// the caller, who keeps it valid (see `register_host`).
    _pages: Option<pages::Pages>,
    /// Added (wrapping) to a device address to get the host address of its
    /// byte: 0 except for aliases ([`DeviceMemory::register_host_alias`]).
    host_delta: u64,
    /// The bytes the program asked for (`len` is rounded up): accesses
    /// past it are reported by memcheck (issue 21), and still performed.
    limit: u64,
    /// Freed while the table keeps freed regions ([`DeviceMemory::set_quarantine`]).
    freed: AtomicBool,
    /// initcheck's shadow: one byte per byte of `len`, non-zero once written.
    shadow: Option<Box<[AtomicU8]>>,
}

impl fmt::Debug for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Region")
            .field("start", &format_args!("{:#x}", self.start))
            .field("len", &self.len)
            .field("kind", &self.kind)
            .field("writable", &self.writable)
            .field("limit", &self.limit)
            .finish()
    }
}

impl Region {
    /// First address.
    pub fn start(&self) -> u64 {
        self.start
    }
    /// Length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }
    /// Never true: regions are non-empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Kind of memory.
    pub fn kind(&self) -> RegionKind {
        self.kind
    }
    fn contains(&self, addr: u64, size: u64) -> bool {
        addr >= self.start
            && addr
                .checked_add(size)
                .is_some_and(|end| end <= self.start + self.len)
    }
}

/// The allocation table of one emulated device.
#[derive(Debug, Default)]
pub struct DeviceMemory {
    regions: RwLock<Vec<Arc<Region>>>,
    /// [`DeviceMemory::free`] marks regions freed and keeps them (memcheck).
    quarantine: AtomicBool,
    /// Touch tracking is on ([`DeviceMemory::track_touches`]): checked
    /// before `touch` is locked, so views pay nothing when it is off.
    tracking: AtomicBool,
    touch: RwLock<Option<Arc<Touched>>>,
}

impl DeviceMemory {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Allocates `len` zeroed bytes aligned to `align` (a power of two, at
    /// least 256 like the HSA runtime). Returns the device address, which is
    /// also the host address of the bytes. Every allocation has pages of its
    /// own and is followed by [`GUARD`] bytes of address space that no
    /// region ever holds, so an access that starts less than that past its
    /// end faults naming it (D63).
    pub fn allocate(&self, len: u64, align: u64, kind: RegionKind) -> Result<u64, MemError> {
        self.allocate_sized(len, len, align, kind, false)
    }

    /// [`DeviceMemory::allocate`] of `len` bytes for a request of `asked`
    /// (at most `len`): accesses past `asked` are performed but reported by
    /// memcheck. With `shadow`, initcheck tracks which bytes were written.
    pub fn allocate_sized(
        &self,
        len: u64,
        asked: u64,
        align: u64,
        kind: RegionKind,
        shadow: bool,
    ) -> Result<u64, MemError> {
        if len == 0 {
            return Err(MemError::BadRange(0, len));
        }
        let size = usize::try_from(len).map_err(|_| MemError::OutOfMemory(len))?;
        if !align.is_power_of_two() {
            return Err(MemError::OutOfMemory(len));
        }
        let pages = pages::Pages::map(len, align.max(256)).ok_or(MemError::OutOfMemory(len))?;
        let region = Region {
            start: pages.start(),
            len,
            kind,
            writable: true,
            _pages: Some(pages),
            host_delta: 0,
            limit: asked.min(len),
            freed: AtomicBool::new(false),
            shadow: shadow.then(|| (0..size).map(|_| AtomicU8::new(0)).collect()),
        };
        let start = region.start;
        self.insert(region)?;
        Ok(start)
    }

    /// Makes `len` bytes of host memory at `ptr` device-accessible.
    ///
    /// # Safety
    /// `ptr..ptr+len` must stay valid for reads (and for writes if
    /// `writable`) until [`DeviceMemory::free`] is called for `ptr` and no
    /// dispatch that could touch it is running. The emulator accesses it with
    /// atomics only, so concurrent host access is racy but not undefined.
    pub unsafe fn register_host(
        &self,
        ptr: *mut u8,
        len: u64,
        writable: bool,
        kind: RegionKind,
    ) -> Result<u64, MemError> {
        let start = ptr as usize as u64;
        if len == 0 || start.checked_add(len).is_none() {
            return Err(MemError::BadRange(start, len));
        }
        self.insert(Region {
            start,
            len,
            kind,
            writable,
            _pages: None,
            host_delta: 0,
            limit: len,
            freed: AtomicBool::new(false),
            shadow: None,
        })?;
        Ok(start)
    }

    /// Makes `len` bytes of host memory at `ptr` device-accessible at a
    /// different device address, `device`, as a discrete GPU maps locked
    /// host memory into its own address range (a runtime picks `device`
    /// from address space it reserved, so host code never uses it).
    ///
    /// # Safety
    /// As for [`DeviceMemory::register_host`]: `ptr..ptr+len` stays valid
    /// until [`DeviceMemory::free`] is called for `device`.
    pub unsafe fn register_host_alias(
        &self,
        device: u64,
        ptr: *mut u8,
        len: u64,
        writable: bool,
        kind: RegionKind,
    ) -> Result<u64, MemError> {
        let host = ptr as usize as u64;
        if len == 0 || device.checked_add(len).is_none() || host.checked_add(len).is_none() {
            return Err(MemError::BadRange(device, len));
        }
        self.insert(Region {
            start: device,
            len,
            kind,
            writable,
            _pages: None,
            host_delta: host.wrapping_sub(device),
            limit: len,
            freed: AtomicBool::new(false),
            shadow: None,
        })?;
        Ok(device)
    }

    fn insert(&self, region: Region) -> Result<(), MemError> {
        let mut t = self.regions.write().unwrap_or_else(|e| e.into_inner());
        let end = region.start + region.len;
        let i = t.partition_point(|r| r.start < region.start);
        let overlaps_prev = i > 0 && t[i - 1].start + t[i - 1].len > region.start;
        let overlaps_next = t.get(i).is_some_and(|r| r.start < end);
        if overlaps_prev || overlaps_next {
            return Err(MemError::Overlap {
                start: region.start,
                end,
            });
        }
        t.insert(i, Arc::new(region));
        Ok(())
    }

    /// Removes the region starting at `addr`. Owned memory is released once
    /// no [`MemView`] still holds it. Under quarantine the region stays,
    /// marked freed (its bytes are never reused; memcheck reports every
    /// access to it).
    pub fn free(&self, addr: u64) -> Result<(), MemError> {
        let mut t = self.regions.write().unwrap_or_else(|e| e.into_inner());
        let i = t
            .binary_search_by_key(&addr, |r| r.start)
            .map_err(|_| MemError::NotAllocated(addr))?;
        if self.quarantine.load(Ordering::Relaxed) {
            if t[i].freed.swap(true, Ordering::Relaxed) {
                return Err(MemError::NotAllocated(addr));
            }
            return Ok(());
        }
        t.remove(i);
        Ok(())
    }

    /// Keeps freed regions, marked, so accesses to them are reported
    /// rather than faulting (memcheck).
    pub fn set_quarantine(&self, on: bool) {
        self.quarantine.store(on, Ordering::Relaxed);
    }

    /// Marks `[addr, addr + len)` written in initcheck's shadow (a host
    /// copy or fill into device memory); nothing without a shadow.
    pub fn mark_written(&self, addr: u64, len: u64) {
        let t = self.regions.read().unwrap_or_else(|e| e.into_inner());
        let i = t.partition_point(|r| r.start <= addr);
        let Some(r) = i.checked_sub(1).and_then(|j| t.get(j)) else {
            return;
        };
        if let Some(sh) = &r.shadow {
            let lo = addr.saturating_sub(r.start).min(r.len) as usize;
            let hi = addr.saturating_add(len).saturating_sub(r.start).min(r.len) as usize;
            for b in &sh[lo..hi.max(lo)] {
                b.store(1, Ordering::Relaxed);
            }
        }
    }

    /// The region containing `[addr, addr + size)`, if any.
    pub fn find(&self, addr: u64, size: u64) -> Option<Arc<Region>> {
        let t = self.regions.read().unwrap_or_else(|e| e.into_inner());
        let i = t.partition_point(|r| r.start <= addr);
        let r = t.get(i.checked_sub(1)?)?;
        r.contains(addr, size).then(|| Arc::clone(r))
    }

    fn nearest_below(&self, addr: u64) -> Option<(u64, u64)> {
        let t = self.regions.read().unwrap_or_else(|e| e.into_inner());
        let i = t.partition_point(|r| r.start <= addr);
        i.checked_sub(1).map(|j| (t[j].start, t[j].len))
    }

    /// Starts noting the pages every access through views created from
    /// now on touches (capture of a dispatch's pages, issue 22). The pages
    /// are in the returned set once those views are dropped.
    pub fn track_touches(&self) -> Arc<Touched> {
        let t = Arc::new(Touched::default());
        *self.touch.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::clone(&t));
        self.tracking.store(true, Ordering::SeqCst);
        t
    }

    /// Stops touch tracking (views still alive keep noting until dropped).
    pub fn stop_tracking(&self) {
        self.tracking.store(false, Ordering::SeqCst);
        *self.touch.write().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// The tracker views created now join, if tracking is on.
    fn tracker(&self) -> Option<Arc<Touched>> {
        if !self.tracking.load(Ordering::Relaxed) {
            return None;
        }
        self.touch.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Number of live regions.
    pub fn region_count(&self) -> usize {
        self.regions.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// A view with a lookup cache, for one host thread.
    pub fn view(&self) -> MemView<'_> {
        MemView::new(self)
    }
}

/// Read-modify-write operations for [`MemView::atomic`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AtomicOp {
    /// Swap.
    Swap,
    /// Compare and swap with the given comparand.
    CmpSwap(u64),
    /// Wrapping add.
    Add,
    /// Wrapping subtract.
    Sub,
    /// Signed minimum.
    SMin,
    /// Unsigned minimum.
    UMin,
    /// Signed maximum.
    SMax,
    /// Unsigned maximum.
    UMax,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise xor.
    Xor,
    /// Increment, wrapping to 0 past the operand (`atomic_inc`).
    Inc,
    /// Decrement, wrapping to the operand at 0 or above it (`atomic_dec`).
    Dec,
    /// IEEE add on f32 (size 4) or f64 (size 8).
    FAdd,
    /// IEEE minimum on f32/f64.
    FMin,
    /// IEEE maximum on f32/f64.
    FMax,
}

/// The loader places code-object segments through this.
impl lathe_loader::DeviceMemory for DeviceMemory {
    fn allocate(&self, size: u64, align: u64) -> Result<u64, String> {
        DeviceMemory::allocate(self, size, align, RegionKind::Code).map_err(|e| e.to_string())
    }
    fn write(&self, addr: u64, bytes: &[u8]) -> Result<(), String> {
        self.view()
            .write_bytes(addr, bytes)
            .map_err(|e| e.to_string())
    }
    fn free(&self, addr: u64) -> Result<(), String> {
        DeviceMemory::free(self, addr).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests;

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
//! ([`MemView::gather_dwords`], [`MemView::scatter_dwords`]). Whenever a
//! fast path's single check fails, the lane-by-lane path runs instead, so
//! the fault reported (and the first faulting lane) never depends on which
//! path was tried.

use std::alloc::{self, Layout};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, RwLock};

use crate::check::{Access, Kind, ViewCheck};

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

/// Backing storage of a region.
enum Backing {
    /// Owned by the region: allocated zeroed with `layout`, freed on drop.
    Owned(Layout),
    /// Registered by the caller, who keeps it valid (see `register_host`).
    Borrowed,
}

/// One contiguous region of device-visible memory.
pub struct Region {
    start: u64,
    len: u64,
    kind: RegionKind,
    writable: bool,
    backing: Backing,
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

impl Drop for Region {
    fn drop(&mut self) {
        if let Backing::Owned(layout) = self.backing {
            // SAFETY: `start` was returned by `alloc_zeroed(layout)` in
            // `DeviceMemory::allocate` and is freed exactly once, here, when
            // the last `Arc<Region>` (table entry or view cache) goes away.
            unsafe { alloc::dealloc(self.start as usize as *mut u8, layout) }
        }
    }
}

/// The allocation table of one emulated device.
#[derive(Debug, Default)]
pub struct DeviceMemory {
    regions: RwLock<Vec<Arc<Region>>>,
    /// [`DeviceMemory::free`] marks regions freed and keeps them (memcheck).
    quarantine: AtomicBool,
}

impl DeviceMemory {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Allocates `len` zeroed bytes aligned to `align` (a power of two, at
    /// least 256 like the HSA runtime). Returns the device address, which is
    /// also the host address of the bytes.
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
        let align = usize::try_from(align.max(256)).map_err(|_| MemError::OutOfMemory(len))?;
        let layout =
            Layout::from_size_align(size, align).map_err(|_| MemError::OutOfMemory(len))?;
        // SAFETY: `layout` has non-zero size (checked above).
        let ptr = unsafe { alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(MemError::OutOfMemory(len));
        }
        let region = Region {
            start: ptr as usize as u64,
            len,
            kind,
            writable: true,
            backing: Backing::Owned(layout),
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
            backing: Backing::Borrowed,
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
            backing: Backing::Borrowed,
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

    /// Number of live regions.
    pub fn region_count(&self) -> usize {
        self.regions.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// A view with a lookup cache, for one host thread.
    pub fn view(&self) -> MemView<'_> {
        MemView {
            mem: self,
            cache: Default::default(),
            check: None,
        }
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

/// Regions a [`MemView`] remembers (a kernel streaming over a few buffers,
/// its kernarg segment and its stack hits them all without a table
/// lookup). A miss takes the table's read lock and clones an `Arc`, both
/// atomic writes to lines every host thread shares, so the cache is sized
/// for kernels with several buffers rather than just the common two or
/// three.
const VIEW_CACHE: usize = 8;

/// A per-thread accessor with a small most-recently-used region cache.
pub struct MemView<'m> {
    mem: &'m DeviceMemory,
    cache: [Option<Arc<Region>>; VIEW_CACHE],
    /// The sanitizer ([`crate::check`]); `None`: no checks, one branch per
    /// access.
    check: Option<Box<ViewCheck>>,
}

impl fmt::Debug for MemView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemView")
            .field("cache", &self.cache)
            .field("check", &self.check)
            .finish()
    }
}

impl MemView<'_> {
    /// Turns the sanitizer on for this view ([`crate::check`]).
    pub fn set_check(&mut self, check: Option<Box<ViewCheck>>) {
        self.check = check;
    }

    /// The sanitizer's state, when on.
    pub fn check_mut(&mut self) -> Option<&mut ViewCheck> {
        self.check.as_deref_mut()
    }

    /// Names the lane the next accesses are for (for the sanitizer).
    #[inline]
    pub fn set_lane(&mut self, lane: usize) {
        if let Some(c) = self.check.as_deref_mut() {
            c.lane = Some(lane as u8);
        }
    }

    /// The host pointer for `[addr, addr + size)` after a bounds check,
    /// and the sanitizer's checks of the access when on.
    #[inline]
    fn locate(&mut self, addr: u64, size: u32, kind: AccessKind) -> Result<*mut u8, Fault> {
        let p = self.locate_raw(addr, size, kind)?;
        if self.check.is_some() {
            self.check_hit(addr, size, kind);
        }
        Ok(p)
    }

    /// The sanitizer's look at an access `locate_raw` just placed in
    /// `cache[0]`: past the requested size, to a freed region, or a read
    /// of bytes nothing wrote; writes mark the shadow.
    #[inline(never)]
    fn check_hit(&mut self, addr: u64, size: u32, kind: AccessKind) {
        let (Some(c), Some(r)) = (self.check.as_deref_mut(), self.cache[0].as_ref()) else {
            return;
        };
        let access = match kind {
            AccessKind::Read => Access::Read,
            AccessKind::Write => Access::Write,
            AccessKind::Atomic => Access::Atomic,
        };
        let region = Some((r.start, r.limit));
        let end = addr.saturating_add(u64::from(size));
        if c.checks.memcheck {
            if r.freed.load(Ordering::Relaxed) {
                c.note(Kind::UseAfterFree, access, size, addr, region);
                return;
            }
            if end > r.start + r.limit {
                c.note(Kind::OutOfBounds, access, size, addr, region);
            }
        }
        if let Some(sh) = &r.shadow {
            let lo = (addr - r.start) as usize;
            if kind == AccessKind::Read {
                let hi = (end.min(r.start + r.limit).saturating_sub(r.start) as usize).max(lo);
                if c.checks.initcheck && sh[lo..hi].iter().any(|b| b.load(Ordering::Relaxed) == 0) {
                    c.note(Kind::Uninitialized, access, size, addr, region);
                }
            } else {
                let hi = (end - r.start) as usize;
                for b in &sh[lo..hi] {
                    b.store(1, Ordering::Relaxed);
                }
            }
        }
    }

    /// Whether a wave-wide access to `[lo, lo + len)`, just placed in
    /// `cache[0]`, may skip per-lane checks: nothing to report and, for a
    /// contiguous (`exact`) write, the shadow marked.
    #[inline(never)]
    fn span_clean(&mut self, lo: u64, len: u64, kind: AccessKind, exact: bool) -> bool {
        let (Some(c), Some(r)) = (self.check.as_deref(), self.cache[0].as_ref()) else {
            return true;
        };
        if r.freed.load(Ordering::Relaxed) || lo + len > r.start + r.limit {
            return !c.checks.memcheck && r.shadow.is_none();
        }
        let Some(sh) = &r.shadow else {
            return true;
        };
        if !exact {
            return false;
        }
        let s = &sh[(lo - r.start) as usize..(lo - r.start + len) as usize];
        if kind == AccessKind::Read {
            !c.checks.initcheck || s.iter().all(|b| b.load(Ordering::Relaxed) != 0)
        } else {
            for b in s {
                b.store(1, Ordering::Relaxed);
            }
            true
        }
    }

    /// The host pointer for `[addr, addr + size)` after a bounds check.
    #[inline]
    fn locate_raw(&mut self, addr: u64, size: u32, kind: AccessKind) -> Result<*mut u8, Fault> {
        let hit =
            |r: &Option<Arc<Region>>| r.as_ref().is_some_and(|r| r.contains(addr, size as u64));
        let region = if hit(&self.cache[0]) {
            self.cache[0].as_ref()
        } else if let Some(k) = self.cache[1..].iter().position(hit) {
            // Move to the front, keeping the others in recency order.
            self.cache[..k + 2].rotate_right(1);
            self.cache[0].as_ref()
        } else {
            match self.mem.find(addr, size as u64) {
                Some(r) => {
                    self.cache.rotate_right(1);
                    self.cache[0] = Some(r);
                    self.cache[0].as_ref()
                }
                None => {
                    return Err(Fault::Unmapped {
                        addr,
                        size,
                        kind,
                        nearest: self.mem.nearest_below(addr),
                    })
                }
            }
        };
        // `region` is Some on every path that reaches here.
        let r = region.ok_or(Fault::Unmapped {
            addr,
            size,
            kind,
            nearest: None,
        })?;
        if kind != AccessKind::Read && !r.writable {
            return Err(Fault::ReadOnly {
                addr,
                size,
                kind,
                region: r.kind,
            });
        }
        Ok(addr.wrapping_add(r.host_delta) as usize as *mut u8)
    }

    /// Loads `N` bytes (N = 1, 2, 4, 8, 12, 16, …) little-endian.
    #[inline]
    pub fn load<const N: usize>(&mut self, addr: u64) -> Result<[u8; N], Fault> {
        let p = self.locate(addr, N as u32, AccessKind::Read)?;
        let mut out = [0u8; N];
        // SAFETY: `locate` proved `[p, p+N)` lies inside a live region whose
        // bytes stay allocated while the cache holds its Arc; access is
        // through atomics, so concurrent emulated stores are not data races.
        unsafe { atomic_copy_from(p, &mut out) };
        Ok(out)
    }

    /// Stores `N` bytes little-endian.
    #[inline]
    pub fn store<const N: usize>(&mut self, addr: u64, bytes: [u8; N]) -> Result<(), Fault> {
        let p = self.locate(addr, N as u32, AccessKind::Write)?;
        // SAFETY: as in `load`, and `locate` checked the region is writable.
        unsafe { atomic_copy_to(p, &bytes) };
        Ok(())
    }

    /// Loads a little-endian u32.
    #[inline]
    pub fn load_u32(&mut self, addr: u64) -> Result<u32, Fault> {
        self.load::<4>(addr).map(u32::from_le_bytes)
    }

    /// Loads a little-endian u64.
    #[inline]
    pub fn load_u64(&mut self, addr: u64) -> Result<u64, Fault> {
        self.load::<8>(addr).map(u64::from_le_bytes)
    }

    /// Stores a little-endian u32.
    #[inline]
    pub fn store_u32(&mut self, addr: u64, v: u32) -> Result<(), Fault> {
        self.store(addr, v.to_le_bytes())
    }

    /// Stores a little-endian u64.
    #[inline]
    pub fn store_u64(&mut self, addr: u64, v: u64) -> Result<(), Fault> {
        self.store(addr, v.to_le_bytes())
    }

    /// Copies `out.len()` bytes starting at `addr` into `out` (for the host
    /// side of a runtime, and for dumping buffers).
    pub fn read_bytes(&mut self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        let len = u32::try_from(out.len()).unwrap_or(u32::MAX);
        if out.is_empty() {
            return Ok(());
        }
        let p = self.locate(addr, len, AccessKind::Read)?;
        if len as usize != out.len() {
            return Err(Fault::Unmapped {
                addr,
                size: len,
                kind: AccessKind::Read,
                nearest: None,
            });
        }
        // SAFETY: as in `load`.
        unsafe { atomic_copy_from(p, out) };
        Ok(())
    }

    /// Copies `bytes` to `addr`.
    pub fn write_bytes(&mut self, addr: u64, bytes: &[u8]) -> Result<(), Fault> {
        if bytes.is_empty() {
            return Ok(());
        }
        let len = u32::try_from(bytes.len()).map_err(|_| Fault::Unmapped {
            addr,
            size: u32::MAX,
            kind: AccessKind::Write,
            nearest: None,
        })?;
        let p = self.locate(addr, len, AccessKind::Write)?;
        // SAFETY: as in `store`.
        unsafe { atomic_copy_to(p, bytes) };
        Ok(())
    }

    /// Loads `out.len()` consecutive little-endian dwords from `addr` (a
    /// scalar load): one bounds check for the whole run when it lies in one
    /// region; otherwise dword by dword, so a fault names the first dword
    /// that takes it (`out` holds the dwords before it).
    pub fn load_dwords(&mut self, addr: u64, out: &mut [u32]) -> Result<(), Fault> {
        let n = u32::try_from(out.len() * 4).unwrap_or(u32::MAX);
        match self.locate(addr, n, AccessKind::Read) {
            Ok(p) if (p as usize) % 4 == 0 => {
                // SAFETY: `locate` proved `[p, p + 4 * len)` lies in a
                // live region and `p` is 4-aligned; aligned dword pairs are
                // read as one 64-bit access (single-copy atomic).
                unsafe { load_dwords_atomic(p, out) };
                Ok(())
            }
            _ => {
                for (k, o) in out.iter_mut().enumerate() {
                    *o = self.load_u32(addr.wrapping_add(4 * k as u64))?;
                }
                Ok(())
            }
        }
    }

    /// Reads `width` bytes (at most 16) for every lane set in `exec` from
    /// `addrs[lane]` into `out[lane]`, lanes in order. A fault stops at the
    /// first lane that takes it and names that lane.
    pub fn gather(
        &mut self,
        addrs: &[u64; 64],
        exec: u64,
        width: u32,
        out: &mut [[u8; 16]; 64],
    ) -> Result<(), (usize, Fault)> {
        let n = (width as usize).min(16);
        // One check for the whole wave when its accesses fall in one
        // region (the common case); otherwise each lane is checked, and the
        // first faulting lane reported.
        if let Some((base, lo)) = self.span(addrs, exec, n, AccessKind::Read) {
            for l in set_lanes(exec) {
                let p = base.wrapping_add((addrs[l] - lo) as usize);
                // SAFETY: `span` proved every active lane's `[addr, addr+n)`
                // lies inside one live region; relaxed atomic accesses.
                unsafe { atomic_copy_from(p, &mut out[l][..n]) };
            }
            return Ok(());
        }
        for l in set_lanes(exec) {
            self.set_lane(l);
            let p = self
                .locate(addrs[l], n as u32, AccessKind::Read)
                .map_err(|f| (l, f))?;
            // SAFETY: `locate` proved `[p, p+n)` lies inside a live region
            // (as in `load`); the copy is made of relaxed atomic accesses.
            unsafe { atomic_copy_from(p, &mut out[l][..n]) };
        }
        Ok(())
    }

    /// Dword loads straight into registers: `out[k][lane]` becomes the
    /// `k`th little-endian dword at `addrs[lane]`, for every lane set in
    /// `exec`, when every active lane's access lies in one region (then no
    /// lane can fault). Returns `false` without reading anything otherwise:
    /// the caller then takes [`MemView::gather`], which reports the fault.
    pub fn gather_dwords(&mut self, addrs: &[u64; 64], exec: u64, out: &mut [[u32; 64]]) -> bool {
        let nd = out.len().min(4);
        let n = nd * 4;
        if let Some(p) = self.unit_stride(addrs, exec, n, AccessKind::Read) {
            if nd == 1 {
                for (l, v) in out[0].iter_mut().enumerate() {
                    // SAFETY: `unit_stride` proved `[p, p + 64n)` lies
                    // inside one live region and `p` is 4-aligned; lane
                    // `l`'s dword is at `p + 4l`, 4-aligned and inside it;
                    // relaxed atomic load.
                    let a = unsafe { AtomicU32::from_ptr(p.add(l * 4) as *mut u32) };
                    *v = u32::from_le(a.load(Ordering::Relaxed));
                }
            } else {
                for l in 0..64 {
                    // SAFETY: `unit_stride` proved `[p, p + 64n)` lies
                    // inside one live region and `p` is 4-aligned; lane
                    // `l`'s `n` bytes start at `p + l*n`, 4-aligned.
                    let v = unsafe { load_lane_dwords(p.add(l * n), nd) };
                    for (k, o) in out.iter_mut().take(nd).enumerate() {
                        o[l] = v[k];
                    }
                }
            }
            return true;
        }
        let Some((base, lo)) = self.span(addrs, exec, n, AccessKind::Read) else {
            return false;
        };
        for l in set_lanes(exec) {
            let p = base.wrapping_add((addrs[l] - lo) as usize);
            if (p as usize) % 4 == 0 {
                // SAFETY: `span` proved every active lane's `[addr,
                // addr+n)` lies inside one live region; `p` is 4-aligned.
                let v = unsafe { load_lane_dwords(p, nd) };
                for (k, o) in out.iter_mut().take(nd).enumerate() {
                    o[l] = v[k];
                }
            } else {
                let mut b = [0u8; 16];
                // SAFETY: as above; `atomic_copy_from` reads `n` bytes.
                unsafe { atomic_copy_from(p, &mut b[..n]) };
                for (k, o) in out.iter_mut().take(nd).enumerate() {
                    o[l] = u32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]]);
                }
            }
        }
        true
    }

    /// Dword stores straight from registers: the `k`th little-endian dword
    /// at `addrs[lane]` becomes `data[k][lane]`, for every lane set in
    /// `exec`, when every active lane's access lies in one region. Returns
    /// `false` without writing anything otherwise (the caller then takes
    /// [`MemView::scatter`], which reports the fault).
    pub fn scatter_dwords(&mut self, addrs: &[u64; 64], exec: u64, data: &[[u32; 64]]) -> bool {
        let nd = data.len().min(4);
        let n = nd * 4;
        if let Some(p) = self.unit_stride(addrs, exec, n, AccessKind::Write) {
            // Lane order, as the general path (overlapping lanes cannot
            // occur here: each lane has its own `n` bytes).
            if nd == 1 {
                for (l, v) in data[0].iter().enumerate() {
                    // SAFETY: `unit_stride` proved `[p, p + 64n)` lies
                    // inside one live, writable region and `p` is
                    // 4-aligned; lane `l`'s dword is at `p + 4l`, inside
                    // it; relaxed atomic store.
                    let a = unsafe { AtomicU32::from_ptr(p.add(l * 4) as *mut u32) };
                    a.store(v.to_le(), Ordering::Relaxed);
                }
            } else {
                for l in 0..64 {
                    let mut v = [0u32; 4];
                    for (k, d) in data.iter().take(nd).enumerate() {
                        v[k] = d[l];
                    }
                    // SAFETY: `unit_stride` proved `[p, p + 64n)` lies
                    // inside one live, writable region and `p` is
                    // 4-aligned; lane `l`'s `n` bytes start at `p + l*n`.
                    unsafe { store_lane_dwords(p.add(l * n), &v[..nd]) };
                }
            }
            return true;
        }
        let Some((base, lo)) = self.span(addrs, exec, n, AccessKind::Write) else {
            return false;
        };
        for l in set_lanes(exec) {
            let p = base.wrapping_add((addrs[l] - lo) as usize);
            let mut v = [0u32; 4];
            for (k, d) in data.iter().take(nd).enumerate() {
                v[k] = d[l];
            }
            if (p as usize) % 4 == 0 {
                // SAFETY: `span` proved every active lane's `[addr,
                // addr+n)` lies inside one live, writable region; `p` is
                // 4-aligned.
                unsafe { store_lane_dwords(p, &v[..nd]) };
            } else {
                let mut b = [0u8; 16];
                for (k, d) in v.iter().take(nd).enumerate() {
                    b[4 * k..4 * k + 4].copy_from_slice(&d.to_le_bytes());
                }
                // SAFETY: as above; `atomic_copy_to` writes `n` bytes.
                unsafe { atomic_copy_to(p, &b[..n]) };
            }
        }
        true
    }

    /// The 4-aligned host pointer of lane 0's address when all 64 lanes are
    /// active and lane `l` accesses the `n` bytes at `addrs[0] + l*n` (a
    /// wave streaming through an array: the common case), all inside one
    /// region; `None` otherwise (the caller takes the general path).
    #[inline]
    fn unit_stride(
        &mut self,
        addrs: &[u64; 64],
        exec: u64,
        n: usize,
        kind: AccessKind,
    ) -> Option<*mut u8> {
        if exec != u64::MAX || n == 0 {
            return None;
        }
        let lo = addrs[0];
        // Branch-free over all lanes, so the compare vectorizes.
        let off = addrs.iter().zip(0u64..).fold(0u64, |acc, (a, l)| {
            acc | (a.wrapping_sub(lo) ^ l.wrapping_mul(n as u64))
        });
        if off != 0 {
            return None;
        }
        let p = self.locate_raw(lo, 64 * n as u32, kind).ok()?;
        if self.check.is_some() && !self.span_clean(lo, 64 * n as u64, kind, true) {
            return None;
        }
        ((p as usize) % 4 == 0).then_some(p)
    }

    /// The host pointer of the lowest active address, and that address,
    /// when every active lane's `n`-byte access lies in one region (checked
    /// once, against the span from the lowest to the highest address);
    /// `None` otherwise, or when no lane is active.
    fn span(
        &mut self,
        addrs: &[u64; 64],
        exec: u64,
        n: usize,
        kind: AccessKind,
    ) -> Option<(*mut u8, u64)> {
        if exec == 0 {
            return None;
        }
        let (lo, hi) = set_lanes(exec).fold((u64::MAX, 0), |(lo, hi), l| {
            (lo.min(addrs[l]), hi.max(addrs[l]))
        });
        let len = (hi - lo).checked_add(n as u64)?;
        // Larger spans are scattered accesses: check lane by lane.
        if len > 1 << 20 {
            return None;
        }
        let p = self.locate_raw(lo, u32::try_from(len).ok()?, kind).ok()?;
        if self.check.is_some() && !self.span_clean(lo, len, kind, false) {
            return None;
        }
        Some((p, lo))
    }

    /// Writes the first `width` bytes (at most 16) of `data[lane]` to
    /// `addrs[lane]` for every lane set in `exec`, lanes in order. A fault
    /// stops at the first lane that takes it (earlier lanes stay written).
    pub fn scatter(
        &mut self,
        addrs: &[u64; 64],
        exec: u64,
        width: u32,
        data: &[[u8; 16]; 64],
    ) -> Result<(), (usize, Fault)> {
        let n = (width as usize).min(16);
        if let Some((base, lo)) = self.span(addrs, exec, n, AccessKind::Write) {
            for l in set_lanes(exec) {
                let p = base.wrapping_add((addrs[l] - lo) as usize);
                // SAFETY: `span` proved every active lane's `[addr, addr+n)`
                // lies inside one live, writable region; relaxed atomics.
                unsafe { atomic_copy_to(p, &data[l][..n]) };
            }
            return Ok(());
        }
        for l in set_lanes(exec) {
            self.set_lane(l);
            let p = self
                .locate(addrs[l], n as u32, AccessKind::Write)
                .map_err(|f| (l, f))?;
            // SAFETY: `locate` proved `[p, p+n)` lies inside a live,
            // writable region (as in `store`); relaxed atomic accesses.
            unsafe { atomic_copy_to(p, &data[l][..n]) };
        }
        Ok(())
    }

    /// Performs an atomic read-modify-write of `size` (4 or 8) bytes and
    /// returns the old value (zero-extended).
    pub fn atomic(
        &mut self,
        addr: u64,
        size: u32,
        op: AtomicOp,
        operand: u64,
    ) -> Result<u64, Fault> {
        if size != 4 && size != 8 {
            return Err(Fault::Misaligned { addr, size });
        }
        if addr % size as u64 != 0 {
            return Err(Fault::Misaligned { addr, size });
        }
        let p = self.locate(addr, size, AccessKind::Atomic)?;
        let old = if size == 4 {
            // SAFETY: `p` is 4-aligned (checked) and inside a live writable
            // region (`locate`); all other accesses to it are atomic.
            let a = unsafe { AtomicU32::from_ptr(p.cast::<u32>()) };
            let mut cur = a.load(Ordering::Relaxed);
            loop {
                let Some(new) = rmw(op, u64::from(cur), operand, 4).map(|n| n as u32) else {
                    break cur as u64;
                };
                match a.compare_exchange_weak(cur, new, Ordering::SeqCst, Ordering::Relaxed) {
                    Ok(_) => break cur as u64,
                    Err(c) => cur = c,
                }
            }
        } else {
            // SAFETY: as above with 8-byte alignment.
            let a = unsafe { AtomicU64::from_ptr(p.cast::<u64>()) };
            let mut cur = a.load(Ordering::Relaxed);
            loop {
                let Some(new) = rmw(op, cur, operand, 8) else {
                    break cur;
                };
                match a.compare_exchange_weak(cur, new, Ordering::SeqCst, Ordering::Relaxed) {
                    Ok(_) => break cur,
                    Err(c) => cur = c,
                }
            }
        };
        Ok(old)
    }
}

/// The new value of a `size`-byte (4 or 8) read-modify-write of `cur` with
/// operand `v`, or `None` when nothing is written (a failed compare and
/// swap). Values are zero-extended; signed and float operations interpret
/// the low `size` bytes. Shared by device-memory and LDS atomics.
pub fn rmw(op: AtomicOp, cur: u64, v: u64, size: u32) -> Option<u64> {
    let wide = size == 8;
    let mask = if wide { u64::MAX } else { 0xffff_ffff };
    let (cur, v) = (cur & mask, v & mask);
    let sx = |x: u64| {
        if wide {
            x as i64
        } else {
            x as u32 as i32 as i64
        }
    };
    let fp = |f: fn(f64, f64) -> f64| {
        if wide {
            f(f64::from_bits(cur), f64::from_bits(v)).to_bits()
        } else {
            u64::from(
                (f(
                    f64::from(f32::from_bits(cur as u32)),
                    f64::from(f32::from_bits(v as u32)),
                ) as f32)
                    .to_bits(),
            )
        }
    };
    let r = match op {
        AtomicOp::Swap => v,
        AtomicOp::CmpSwap(cmp) => {
            if cur == cmp & mask {
                v
            } else {
                return None;
            }
        }
        AtomicOp::Add => cur.wrapping_add(v),
        AtomicOp::Sub => cur.wrapping_sub(v),
        AtomicOp::SMin => sx(cur).min(sx(v)) as u64,
        AtomicOp::UMin => cur.min(v),
        AtomicOp::SMax => sx(cur).max(sx(v)) as u64,
        AtomicOp::UMax => cur.max(v),
        AtomicOp::And => cur & v,
        AtomicOp::Or => cur | v,
        AtomicOp::Xor => cur ^ v,
        AtomicOp::Inc => {
            if cur >= v {
                0
            } else {
                cur + 1
            }
        }
        AtomicOp::Dec => {
            if cur == 0 || cur > v {
                v
            } else {
                cur - 1
            }
        }
        // An f32 sum computed in f64 and rounded once equals the f32 sum.
        AtomicOp::FAdd => fp(|a, b| a + b),
        AtomicOp::FMin => fp(f64::min),
        AtomicOp::FMax => fp(f64::max),
    };
    Some(r & mask)
}

/// Loads `nd` (1–4) little-endian dwords of one lane from the 4-aligned
/// `p` (see [`load_dwords_atomic`]).
///
/// # Safety
/// As for [`load_dwords_atomic`] with `out.len() = nd`.
#[inline(always)]
unsafe fn load_lane_dwords(p: *const u8, nd: usize) -> [u32; 4] {
    let mut v = [0u32; 4];
    // SAFETY: the caller's guarantee, for `nd` dwords.
    unsafe { load_dwords_atomic(p, &mut v[..nd]) };
    v
}

/// Loads `out.len()` little-endian dwords from the 4-aligned `p`. Each
/// dword pair at an 8-aligned address is read with one 64-bit atomic load,
/// so a naturally aligned 64-bit access is single-copy atomic across host
/// threads, as on the hardware (`global_load_dwordx2` of a value another
/// wave stores with `global_store_dwordx2` is never torn).
///
/// # Safety
/// `p` must be 4-aligned and `p..p+4*out.len()` valid, live memory that is
/// only ever accessed atomically (or not concurrently).
#[inline(always)]
unsafe fn load_dwords_atomic(p: *const u8, out: &mut [u32]) {
    let nd = out.len();
    let mut k = 0;
    while k < nd {
        let q = p.wrapping_add(4 * k);
        // SAFETY (both arms): the caller guarantees `p..p+4nd` is valid and
        // `p` 4-aligned; the 64-bit arm reads dwords `k, k+1` (both inside)
        // at an 8-aligned address, the 32-bit arm dword `k`.
        unsafe {
            if k + 1 < nd && (q as usize) % 8 == 0 {
                let d = u64::from_le(AtomicU64::from_ptr(q as *mut u64).load(Ordering::Relaxed));
                out[k] = d as u32;
                out[k + 1] = (d >> 32) as u32;
                k += 2;
            } else {
                out[k] = u32::from_le(AtomicU32::from_ptr(q as *mut u32).load(Ordering::Relaxed));
                k += 1;
            }
        }
    }
}

/// Stores one lane's dwords `v` at the 4-aligned `p`, each dword pair at an
/// 8-aligned address with one 64-bit atomic store (see [`load_dwords_atomic`]).
///
/// # Safety
/// As for [`load_dwords_atomic`], with `v.len()` dwords, and the memory
/// must be writable.
#[inline(always)]
unsafe fn store_lane_dwords(p: *mut u8, v: &[u32]) {
    let nd = v.len();
    let mut k = 0;
    while k < nd {
        let q = p.wrapping_add(4 * k);
        // SAFETY (both arms): as in `load_dwords_atomic`.
        unsafe {
            if k + 1 < nd && (q as usize) % 8 == 0 {
                let d = u64::from(v[k]) | (u64::from(v[k + 1]) << 32);
                AtomicU64::from_ptr(q as *mut u64).store(d.to_le(), Ordering::Relaxed);
                k += 2;
            } else {
                AtomicU32::from_ptr(q as *mut u32).store(v[k].to_le(), Ordering::Relaxed);
                k += 1;
            }
        }
    }
}

/// The lanes set in `mask`, lowest first.
fn set_lanes(mask: u64) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            l
        })
    })
}

/// Copies from device bytes at `src` into `dst` with relaxed atomic loads,
/// using the widest naturally aligned width available.
///
/// # Safety
/// `src..src+dst.len()` must be valid, live memory that is only ever
/// accessed atomically (or not concurrently).
unsafe fn atomic_copy_from(src: *const u8, dst: &mut [u8]) {
    let mut i = 0;
    let n = dst.len();
    while i < n {
        let p = src.wrapping_add(i);
        let rem = n - i;
        // SAFETY (all arms): the caller guarantees `p..p+rem` is valid; each
        // arm reads at most `rem` bytes at an address aligned for the type.
        unsafe {
            if rem >= 8 && (p as usize) % 8 == 0 {
                let v = AtomicU64::from_ptr(p as *mut u64).load(Ordering::Relaxed);
                dst[i..i + 8].copy_from_slice(&v.to_le_bytes());
                i += 8;
            } else if rem >= 4 && (p as usize) % 4 == 0 {
                let v = AtomicU32::from_ptr(p as *mut u32).load(Ordering::Relaxed);
                dst[i..i + 4].copy_from_slice(&v.to_le_bytes());
                i += 4;
            } else if rem >= 2 && (p as usize) % 2 == 0 {
                let v = AtomicU16::from_ptr(p as *mut u16).load(Ordering::Relaxed);
                dst[i..i + 2].copy_from_slice(&v.to_le_bytes());
                i += 2;
            } else {
                dst[i] = AtomicU8::from_ptr(p as *mut u8).load(Ordering::Relaxed);
                i += 1;
            }
        }
    }
}

/// Copies `src` to device bytes at `dst` with relaxed atomic stores.
///
/// # Safety
/// As for [`atomic_copy_from`], and the memory must be writable.
unsafe fn atomic_copy_to(dst: *mut u8, src: &[u8]) {
    let mut i = 0;
    let n = src.len();
    while i < n {
        let p = dst.wrapping_add(i);
        let rem = n - i;
        // SAFETY (all arms): as in `atomic_copy_from`.
        unsafe {
            if rem >= 8 && (p as usize) % 8 == 0 {
                let mut b = [0u8; 8];
                b.copy_from_slice(&src[i..i + 8]);
                AtomicU64::from_ptr(p as *mut u64).store(u64::from_le_bytes(b), Ordering::Relaxed);
                i += 8;
            } else if rem >= 4 && (p as usize) % 4 == 0 {
                let mut b = [0u8; 4];
                b.copy_from_slice(&src[i..i + 4]);
                AtomicU32::from_ptr(p as *mut u32).store(u32::from_le_bytes(b), Ordering::Relaxed);
                i += 4;
            } else if rem >= 2 && (p as usize) % 2 == 0 {
                AtomicU16::from_ptr(p as *mut u16)
                    .store(u16::from_le_bytes([src[i], src[i + 1]]), Ordering::Relaxed);
                i += 2;
            } else {
                AtomicU8::from_ptr(p).store(src[i], Ordering::Relaxed);
                i += 1;
            }
        }
    }
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
mod tests {
    use super::*;

    #[test]
    fn load_store_roundtrip_and_bounds() {
        let mem = DeviceMemory::new();
        let a = mem.allocate(64, 256, RegionKind::Device).expect("alloc");
        assert_eq!(a % 256, 0);
        let mut v = mem.view();
        v.store_u32(a + 60, 0xdead_beef).expect("in bounds");
        assert_eq!(v.load_u32(a + 60), Ok(0xdead_beef));
        // Unaligned 8-byte access inside the region works.
        v.store_u64(a + 3, 0x0102_0304_0506_0708)
            .expect("in bounds");
        assert_eq!(v.load_u64(a + 3), Ok(0x0102_0304_0506_0708));
        // One byte past the end faults with the nearest allocation named.
        match v.load_u32(a + 61) {
            Err(Fault::Unmapped {
                addr,
                size: 4,
                kind: AccessKind::Read,
                nearest: Some((s, 64)),
            }) => {
                assert_eq!(addr, a + 61);
                assert_eq!(s, a);
            }
            other => panic!("expected an unmapped fault, got {other:?}"),
        }
        assert!(matches!(
            v.store_u32(0x10, 1),
            Err(Fault::Unmapped {
                kind: AccessKind::Write,
                ..
            })
        ));
    }

    #[test]
    fn gather_scatter_lanes_and_first_faulting_lane() {
        let mem = DeviceMemory::new();
        let a = mem
            .allocate(64 * 4, 256, RegionKind::Device)
            .expect("alloc");
        let mut v = mem.view();
        let mut addrs = [0u64; 64];
        let mut data = [[0u8; 16]; 64];
        for l in 0..64 {
            // Reversed lane order, 4 bytes each.
            addrs[l] = a + (63 - l as u64) * 4;
            data[l][..4].copy_from_slice(&(l as u32 * 3).to_le_bytes());
        }
        let exec = 0xffff_0000_ffff_fff0;
        v.scatter(&addrs, exec, 4, &data).expect("in bounds");
        let mut out = [[0u8; 16]; 64];
        v.gather(&addrs, u64::MAX, 4, &mut out).expect("in bounds");
        for (l, o) in out.iter().enumerate() {
            let want = if exec >> l & 1 == 1 { l as u32 * 3 } else { 0 };
            assert_eq!(o[..4], want.to_le_bytes(), "lane {l}");
        }
        // Lanes 5 and 9 out of bounds: lane 5 is reported, lanes before it
        // were written, none after.
        addrs[5] = a + 64 * 4;
        addrs[9] = a - 4;
        let mut data2 = data;
        for d in data2.iter_mut() {
            d[..4].copy_from_slice(&7u32.to_le_bytes());
        }
        let (lane, fault) = v.scatter(&addrs, u64::MAX, 4, &data2).expect_err("oob");
        assert_eq!(lane, 5);
        assert!(
            matches!(fault, Fault::Unmapped { addr, size: 4, kind: AccessKind::Write, .. } if addr == a + 256)
        );
        assert_eq!(v.load_u32(addrs[4]), Ok(7));
        assert_eq!(v.load_u32(addrs[6]), Ok(6 * 3));
        let (lane, _) = v.gather(&addrs, !(1 << 5), 4, &mut out).expect_err("oob");
        assert_eq!(lane, 9);
    }

    #[test]
    fn unit_stride_dwords_go_straight_between_registers_and_memory() {
        let mem = DeviceMemory::new();
        let a = mem
            .allocate(64 * 8, 256, RegionKind::Device)
            .expect("alloc");
        let mut v = mem.view();
        // dwordx2 per lane, lanes in order: the unit-stride path.
        let addrs: [u64; 64] = std::array::from_fn(|l| a + 8 * l as u64);
        let data: Vec<[u32; 64]> = (0..2)
            .map(|k| std::array::from_fn(|l| (l as u32) << 8 | k))
            .collect();
        assert!(v.scatter_dwords(&addrs, u64::MAX, &data));
        assert_eq!(v.load_u64(a + 8 * 5), Ok(5 << 8 | (5 << 8 | 1) << 32));
        let mut out = vec![[0u32; 64]; 2];
        assert!(v.gather_dwords(&addrs, u64::MAX, &mut out));
        assert_eq!(out, data);
        // One dword per lane over the same bytes reads them in order.
        let addrs1: [u64; 64] = std::array::from_fn(|l| a + 4 * l as u64);
        let mut one = [[0u32; 64]];
        assert!(v.gather_dwords(&addrs1, u64::MAX, &mut one));
        assert_eq!(one[0][3], (1 << 8) | 1);
        // A stride run past the region's end is refused as a whole (the
        // caller's general path then names the first faulting lane).
        let past: [u64; 64] = std::array::from_fn(|l| a + 8 + 8 * l as u64);
        assert!(!v.gather_dwords(&past, u64::MAX, &mut out));
        assert!(!v.scatter_dwords(&past, u64::MAX, &data));
        assert_eq!(v.load_u64(a + 8), Ok(1 << 8 | (1 << 8 | 1) << 32));
    }

    #[test]
    fn host_alias_reaches_the_host_bytes_at_another_address() {
        let mem = DeviceMemory::new();
        let mut host = vec![0u8; 64];
        host[8] = 0x5a;
        let device = 0x7000_0000_0000u64;
        // SAFETY: `host` outlives the registration (freed below first).
        let d = unsafe {
            mem.register_host_alias(device, host.as_mut_ptr(), 64, true, RegionKind::Host)
        }
        .expect("alias");
        assert_eq!(d, device);
        let mut v = mem.view();
        assert_eq!(v.load::<1>(device + 8), Ok([0x5a]));
        v.store_u32(device + 16, 0x0102_0304).expect("store");
        drop(v);
        assert!(mem.view().load_u32(device + 64).is_err());
        mem.free(device).expect("free");
        assert_eq!(host[16..20], [4, 3, 2, 1]);
    }

    #[test]
    fn freed_memory_faults_but_cached_views_stay_sound() {
        let mem = DeviceMemory::new();
        let a = mem.allocate(16, 256, RegionKind::Device).expect("alloc");
        let mut v = mem.view();
        v.store_u32(a, 7).expect("store");
        mem.free(a).expect("free");
        assert_eq!(mem.region_count(), 0);
        // A fresh view sees the free.
        assert!(matches!(
            mem.view().load_u32(a),
            Err(Fault::Unmapped { addr, size: 4, .. }) if addr == a
        ));
        assert_eq!(mem.free(a), Err(MemError::NotAllocated(a)));
    }

    #[test]
    fn atomics() {
        let mem = DeviceMemory::new();
        let a = mem.allocate(16, 256, RegionKind::Device).expect("alloc");
        let mut v = mem.view();
        assert_eq!(v.atomic(a, 4, AtomicOp::Add, 5), Ok(0));
        assert_eq!(v.atomic(a, 4, AtomicOp::SMax, (-3i32) as u32 as u64), Ok(5));
        assert_eq!(
            v.atomic(a, 4, AtomicOp::CmpSwap(4), 9),
            Ok(5),
            "failed CAS keeps value"
        );
        assert_eq!(v.atomic(a, 4, AtomicOp::CmpSwap(5), 9), Ok(5));
        assert_eq!(v.load_u32(a), Ok(9));
        assert_eq!(v.atomic(a, 4, AtomicOp::Inc, 9), Ok(9));
        assert_eq!(v.load_u32(a), Ok(0), "inc wraps past the operand");
        assert_eq!(
            v.atomic(a + 2, 4, AtomicOp::Add, 1),
            Err(Fault::Misaligned {
                addr: a + 2,
                size: 4
            })
        );
        v.store_u64(a + 8, 1.5f64.to_bits()).expect("store");
        v.atomic(a + 8, 8, AtomicOp::FAdd, 2.25f64.to_bits())
            .expect("fadd");
        assert_eq!(f64::from_bits(v.load_u64(a + 8).expect("load")), 3.75);
    }

    #[test]
    fn parallel_atomic_adds_are_exact() {
        let mem = DeviceMemory::new();
        let a = mem.allocate(4, 256, RegionKind::Device).expect("alloc");
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    let mut v = mem.view();
                    for _ in 0..10_000 {
                        v.atomic(a, 4, AtomicOp::Add, 1).expect("add");
                    }
                });
            }
        });
        assert_eq!(mem.view().load_u32(a), Ok(40_000));
    }

    #[test]
    fn registered_host_memory_and_overlap() {
        let mem = DeviceMemory::new();
        let mut host = vec![0u8; 32];
        let p = host.as_mut_ptr();
        // SAFETY: `host` outlives every use of the region and is freed from
        // the table before it is dropped.
        let a = unsafe { mem.register_host(p, 32, false, RegionKind::Host) }.expect("register");
        assert_eq!(a, p as usize as u64);
        // SAFETY: as above; this call must fail without registering.
        let again = unsafe { mem.register_host(p.wrapping_add(8), 8, true, RegionKind::Host) };
        assert!(matches!(again, Err(MemError::Overlap { .. })));
        let mut v = mem.view();
        assert!(matches!(
            v.store_u32(a, 1),
            Err(Fault::ReadOnly {
                region: RegionKind::Host,
                ..
            })
        ));
        assert_eq!(v.load_u32(a), Ok(0));
        drop(v);
        mem.free(a).expect("free");
        drop(host);
    }
}

//! Where owned device allocations live: each in an anonymous mapping of
//! its own, followed by a guard of [`GUARD`] bytes that no region, and no
//! other host mapping, can ever occupy (docs/decisions.md, D63).
//!
//! The allocation table, not the host's page protection, is what makes an
//! emulated access past the end fault: an address no region contains is a
//! [`Fault`](super::Fault). The guard's job is to keep that address out of
//! every *other* region. Device addresses are host addresses (as on an
//! APU), so without it the host allocator could put the next allocation,
//! or registered host memory, right after this one, and a stray lane
//! would write into it unreported. The guard is `PROT_NONE`, so host code
//! that runs off the end of device memory faults too, and it is reserved
//! with `MAP_NORESERVE`: address space only, no memory is committed.
//!
//! The accessible part is mapped without `MAP_NORESERVE` (its memory is
//! accounted like any heap allocation, so running out is an error at
//! allocation time, not a fault at first touch) and zero-filled lazily by
//! the kernel: allocating a big array no longer writes all its pages.

use std::ptr;

/// Bytes of inaccessible address space after every owned allocation's
/// last page. 64 KiB (16 pages of 4 KiB): any access that starts less than
/// 64 KiB past the end of an allocation, whatever its size, faults naming
/// it. This is stricter than the hardware: the KFD thunk leaves one guard
/// page between GPU virtual-address ranges, and ROCr suballocates small
/// VRAM allocations from shared blocks with no gap at all.
pub const GUARD: u64 = 64 << 10;

/// The host page size (at least 4 KiB).
fn page_size() -> u64 {
    // SAFETY: `sysconf` only reads a system value.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(p).unwrap_or(4096).max(4096)
}

/// One owned allocation's reservation: `[base, base + map_len)` is the
/// whole mapping (alignment slack below `start`, the accessible pages,
/// the guard); `[start, start + usable)` is readable and writable.
#[derive(Debug)]
pub(super) struct Pages {
    base: *mut libc::c_void,
    map_len: usize,
    start: u64,
}

// SAFETY: `Pages` owns its mapping and only unmaps it on drop; the bytes
// themselves are reached through raw addresses with atomics (see
// `super::raw`), never through references tied to this value.
unsafe impl Send for Pages {}
// SAFETY: as above; `&Pages` gives no access to the bytes.
unsafe impl Sync for Pages {}

impl Pages {
    /// Maps `len` (> 0) zeroed bytes at an `align`-aligned address
    /// (a power of two), followed by the guard. `None` when the address
    /// space or memory is not available.
    pub(super) fn map(len: u64, align: u64) -> Option<Pages> {
        let page = page_size();
        let usable = len.checked_next_multiple_of(page)?;
        let slack = align.max(page) - page;
        let total = usable.checked_add(GUARD)?.checked_add(slack)?;
        let map_len = usize::try_from(total).ok()?;
        let usable_len = usize::try_from(usable).ok()?;
        // SAFETY: an anonymous PROT_NONE reservation at an address the
        // kernel picks: it touches no existing mapping.
        let base = unsafe {
            libc::mmap(
                ptr::null_mut(),
                map_len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        let mut pages = Pages {
            base,
            map_len,
            start: base as u64,
        };
        // Below `base + slack`, so inside the reservation.
        let a = align.max(page);
        let start = (base as u64 + a - 1) & !(a - 1);
        pages.start = start;
        // SAFETY: `[start, start + usable)` lies inside the reservation just
        // made (`start - base <= slack`), which this function owns, so
        // MAP_FIXED replaces only our own PROT_NONE pages with fresh zeroed
        // readable and writable ones; the guard after them stays PROT_NONE.
        let p = unsafe {
            libc::mmap(
                start as usize as *mut libc::c_void,
                usable_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        // On failure `pages` is dropped here, unmapping the reservation.
        (p != libc::MAP_FAILED && p as u64 == start).then_some(pages)
    }

    /// The first accessible byte.
    pub(super) fn start(&self) -> u64 {
        self.start
    }
}

impl Drop for Pages {
    fn drop(&mut self) {
        // SAFETY: `[base, base + map_len)` is the mapping `Pages::map`
        // made, owned by this value alone and unmapped once, here, when the
        // region holding it is dropped (after its last `Arc`, so no view
        // can still reach the bytes).
        unsafe { libc::munmap(self.base, self.map_len) };
    }
}

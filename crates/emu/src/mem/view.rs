//! [`MemView`]: the access path every emulated load, store and atomic
//! takes, with its region cache, the wave-wide fast paths and the
//! sanitizer's per-access look.

use std::fmt;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

use super::raw::{
    atomic_copy_from, atomic_copy_to, load_dwords_atomic, load_lane_dwords, rmw, set_lanes,
    store_lane_dwords,
};
use super::touch::LocalTouch;
use super::{AccessKind, AtomicOp, DeviceMemory, Fault, Region};
use crate::check::{Access, Kind, ViewCheck};

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
    /// Touch tracking ([`DeviceMemory::track_touches`]); `None`: off, one
    /// branch per access.
    touch: Option<Box<LocalTouch>>,
}

impl fmt::Debug for MemView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemView")
            .field("cache", &self.cache)
            .field("check", &self.check)
            .field("touch", &self.touch.is_some())
            .finish()
    }
}

impl<'m> MemView<'m> {
    /// A view of `mem` with an empty cache and no checks.
    pub(super) fn new(mem: &'m DeviceMemory) -> Self {
        MemView {
            mem,
            cache: Default::default(),
            check: None,
            touch: mem.tracker().map(|t| Box::new(LocalTouch::new(t))),
        }
    }

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
        if let Some(t) = self.touch.as_deref_mut() {
            t.note(addr, u64::from(size));
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
        if exec == u64::MAX && whole_aligned(base, addrs) {
            // A gather of the whole wave from 4-aligned addresses (a table
            // read through computed indices): every lane in a straight
            // loop, no per-lane alignment test.
            if nd == 1 {
                for (v, a) in out[0].iter_mut().zip(addrs) {
                    // SAFETY: `span` proved every lane's `[addr, addr+4)`
                    // lies inside one live region, `base` being the host
                    // address of the lowest; `whole_aligned` proved the
                    // host address 4-aligned; relaxed atomic load.
                    let a = unsafe { AtomicU32::from_ptr(base.add((a - lo) as usize) as *mut u32) };
                    *v = u32::from_le(a.load(Ordering::Relaxed));
                }
            } else {
                for (l, a) in addrs.iter().enumerate() {
                    // SAFETY: as above, for the lane's `n` bytes.
                    let v = unsafe { load_lane_dwords(base.add((a - lo) as usize), nd) };
                    for (k, o) in out.iter_mut().take(nd).enumerate() {
                        o[l] = v[k];
                    }
                }
            }
            return true;
        }
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
        if exec == u64::MAX && nd == 1 && whole_aligned(base, addrs) {
            // As in `gather_dwords`: every lane in a straight loop, lane
            // order (a later lane's store to the same dword wins).
            for (v, a) in data[0].iter().zip(addrs) {
                // SAFETY: `span` proved every lane's `[addr, addr+4)` lies
                // inside one live, writable region, `base` being the host
                // address of the lowest; `whole_aligned` proved the host
                // address 4-aligned; relaxed atomic store.
                let a = unsafe { AtomicU32::from_ptr(base.add((a - lo) as usize) as *mut u32) };
                a.store(v.to_le(), Ordering::Relaxed);
            }
            return true;
        }
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
        // A gather through computed indices usually fails at lane 1:
        // tested before the pass over every lane.
        if addrs[1].wrapping_sub(lo) != n as u64 {
            return None;
        }
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
        let aligned = (p as usize) % 4 == 0;
        if aligned {
            if let Some(t) = self.touch.as_deref_mut() {
                t.note(lo, 64 * n as u64);
            }
        }
        aligned.then_some(p)
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
        if let Some(t) = self.touch.as_deref_mut() {
            // Each lane's bytes, not the whole span (scattered lanes).
            for l in set_lanes(exec) {
                t.note(addrs[l], n as u64);
            }
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

/// Whether every lane's host address is 4-aligned when `base` is the host
/// address of the lowest of `addrs` ([`MemView::span`] under a full EXEC):
/// `base` is and every address is (one branch-free pass over the lanes).
#[inline]
fn whole_aligned(base: *mut u8, addrs: &[u64; 64]) -> bool {
    (base as usize) % 4 == 0 && addrs.iter().fold(0, |s, &a| s | a) % 4 == 0
}

//! racecheck on global memory between the work-groups of one dispatch
//! (issue 21, docs/decisions.md D33): two plain (non-atomic) accesses of
//! one byte by different work-groups, at least one a write, that no chain
//! of atomics orders.
//!
//! **Happens-before through atomics.** Each work-group has an epoch (a
//! value of the dispatch's [`GlobalRace::tick`] counter) and a sparse
//! vector clock ([`Clock`]): for other work-groups, the latest epoch of
//! theirs it has synchronised with. Every synchronising access (an atomic
//! read-modify-write, and a load or store with GLC/SC0, SC1 or SCC set,
//! which is how the AMDGPU memory model emits atomic and volatile loads
//! and stores) releases on its 4-byte granule: before it is performed the
//! work-group's clock and epoch are joined into the granule's sync clock
//! and the work-group moves to a new epoch. One that returns a value (a
//! load, a returning atomic) also acquires: after it, the granule's sync
//! clock, and the epoch of the last plain write of
//! the granule (an atomic store on gfx90a is a plain `global_store`), are
//! joined into the work-group's clock. Release before and acquire after
//! the real access means an acquirer that saw a value also sees every
//! release made before it, whatever the host threads' timing.
//! Treating every synchronising access as a release (whatever its
//! ordering), every returning one as an acquire, and the bounded clocks
//! below, only ever add order a correct program could rely on: they can
//! hide a race, never invent one.
//!
//! **Plain accesses** are checked and recorded before they are performed,
//! in a shadow per touched 4 KiB page: per 4-byte granule the last write
//! and the last reads of two different work-groups ([`Cell`], 52 bytes
//! per granule, so 13 bytes per byte of a touched page), each with its
//! work-group, epoch, byte mask, site (PC), wave and lane. A prior access
//! of work-group `w` at epoch `e` is ordered before the current one when
//! the current work-group's clock holds `w` at `e` or later. Writes of the
//! bytes the last write wrote, with the same value, are not reported
//! (as for LDS, D29).
//!
//! **Reports** name both accesses and are placed on the access of the
//! higher work-group (in dispatch order), the other one being the prior:
//! which host thread ran first does not change a report.
//!
//! Work-groups run to completion on one host thread, so a work-group's
//! clock lives in its thread's [`Local`]; pages and sync clocks are shared,
//! behind locks (pages behind a read-mostly map and a lock each, sync
//! clocks in 64 shards).

use crate::hash::AddrMap as HashMap;
use std::sync::{Arc, Mutex, RwLock};

use super::{Access, Checker, Hit, Kind, Prior, Violation};

/// Bytes per shadow granule.
const GRAN: u64 = 4;
/// Granules per shadow page (4 KiB).
const PAGE_GRANULES: usize = 1024;
/// Entries a [`Clock`] keeps before folding the oldest into its floor.
const CLOCK_ENTRIES: usize = 16;
/// Shards of the sync clocks.
const SHARDS: usize = 64;

/// One plain access recorded in the shadow (16 bytes).
#[derive(Debug, Clone, Copy, Default)]
struct Acc {
    /// Epoch (0: never).
    epoch: u32,
    /// Work-group, in dispatch order.
    wg: u32,
    /// Site index ([`GlobalRace::site`]).
    site: u32,
    wave: u8,
    lane: u8,
    /// Bytes of the granule accessed.
    mask: u8,
    /// Bytes of the whole access.
    size: u8,
}

/// A granule's plain accesses.
#[derive(Debug, Clone, Copy, Default)]
struct Cell {
    write: Acc,
    /// The last reads by two different work-groups (`read[0]` the latest).
    read: [Acc; 2],
    /// The bytes the last write wrote.
    value: [u8; 4],
}

/// A sparse vector clock: work-group → epoch, at most [`CLOCK_ENTRIES`]
/// entries; entries folded out raise `floor`, which stands for every
/// work-group. Folding claims more order than was seen, which can only
/// hide a race.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    floor: u32,
    e: Vec<(u32, u32)>,
}

impl Clock {
    /// The epoch of `wg` this clock has synchronised with.
    pub fn get(&self, wg: u32) -> u32 {
        match self.e.binary_search_by_key(&wg, |&(w, _)| w) {
            Ok(k) => self.e[k].1.max(self.floor),
            Err(_) => self.floor,
        }
    }

    /// Raises `wg`'s entry to `epoch`.
    pub fn set(&mut self, wg: u32, epoch: u32) {
        if epoch <= self.floor {
            return;
        }
        // Entries are kept sorted by work-group.
        match self.e.binary_search_by_key(&wg, |&(w, _)| w) {
            Ok(k) => self.e[k].1 = self.e[k].1.max(epoch),
            Err(k) => {
                self.e.insert(k, (wg, epoch));
                if self.e.len() > CLOCK_ENTRIES {
                    // Fold the oldest half into the floor.
                    let mut by_epoch = [0u32; CLOCK_ENTRIES + 1];
                    for (k, &(_, e)) in self.e.iter().enumerate() {
                        by_epoch[k] = e;
                    }
                    by_epoch.sort_unstable();
                    // `len == CLOCK_ENTRIES + 1`: no unused zero slots.
                    let cut = self.e.len() / 2;
                    self.floor = self.floor.max(by_epoch[cut - 1]);
                    let f = self.floor;
                    self.e.retain(|&(_, e)| e > f);
                }
            }
        }
    }

    /// Joins `other` into this clock.
    pub fn join(&mut self, other: &Clock) {
        if other.floor > self.floor {
            self.floor = other.floor;
            let f = self.floor;
            self.e.retain(|&(_, e)| e > f);
        }
        // Both sorted by work-group: one merge pass finds what is new.
        let mut k = 0;
        for &(w, e) in &other.e {
            if e <= self.floor {
                continue;
            }
            while k < self.e.len() && self.e[k].0 < w {
                k += 1;
            }
            match self.e.get_mut(k) {
                Some(x) if x.0 == w => x.1 = x.1.max(e),
                _ => {
                    self.set(w, e);
                    // A fold may have dropped entries: find the place again.
                    k = 0;
                }
            }
        }
    }
}

/// A shadow page.
#[derive(Debug)]
struct Page(Mutex<Box<[Cell]>>);

/// The instructions plain accesses came from: PC and text by index, and
/// the index of each PC.
type Sites = (Vec<(u64, String)>, HashMap<u64, u32>);

/// The global racecheck state of one dispatch, shared by its host threads.
#[derive(Debug)]
pub struct GlobalRace {
    /// Work-groups per dimension (for the reports' block numbers).
    counts: [u32; 3],
    time: std::sync::atomic::AtomicU32,
    pages: RwLock<HashMap<u64, Arc<Page>>>,
    /// Pages made so far: an acquire that found no page for a granule
    /// need not look again while this is unchanged.
    made: std::sync::atomic::AtomicUsize,
    syncs: Vec<Mutex<HashMap<u64, Clock>>>,
    /// Sites: PC and instruction text, by index.
    sites: Mutex<Sites>,
}

impl GlobalRace {
    /// The state of a dispatch of `counts` work-groups per dimension.
    pub fn new(counts: [u32; 3]) -> Self {
        GlobalRace {
            counts: counts.map(|c| c.max(1)),
            time: std::sync::atomic::AtomicU32::new(1),
            pages: RwLock::default(),
            made: std::sync::atomic::AtomicUsize::new(0),
            syncs: (0..SHARDS).map(|_| Mutex::default()).collect(),
            sites: Mutex::default(),
        }
    }

    /// A new epoch, later than every one handed out before.
    fn tick(&self) -> u32 {
        // 2^32 epochs in one dispatch would wrap: saturating keeps epochs
        // ordered (later accesses then share the last epoch, which only
        // adds order).
        let t = self.time.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        t.min(u32::MAX - 1) + 1
    }

    fn block(&self, wg: u32) -> [u32; 3] {
        let [cx, cy, _] = self.counts;
        [wg % cx, wg / cx % cy, wg / (cx * cy)]
    }

    fn linear(&self, id: [u32; 3]) -> u32 {
        let [cx, cy, _] = self.counts;
        id[0].wrapping_add(cx.wrapping_mul(id[1].wrapping_add(cy.wrapping_mul(id[2]))))
    }

    fn page(&self, n: u64) -> Arc<Page> {
        if let Some(p) = self.pages.read().unwrap_or_else(|e| e.into_inner()).get(&n) {
            return p.clone();
        }
        let mut map = self.pages.write().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = map.get(&n) {
            return p.clone();
        }
        let p = Arc::new(Page(Mutex::new(
            vec![Cell::default(); PAGE_GRANULES].into_boxed_slice(),
        )));
        map.insert(n, p.clone());
        // Counted after the insert, under the write lock: a reader that
        // sees the new count finds the page.
        self.made.fetch_add(1, std::sync::atomic::Ordering::Release);
        p
    }

    /// The shard of granule `g`'s sync clock: by 64-byte line, so the
    /// neighbouring granules of one instruction (a wave's lanes on a small
    /// array) share one lock.
    fn shard_of(g: u64) -> usize {
        ((g >> 6).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize % SHARDS
    }

    fn site_text(&self, site: u32) -> (u64, String) {
        let s = self.sites.lock().unwrap_or_else(|e| e.into_inner());
        s.0.get(site as usize)
            .cloned()
            .unwrap_or((0, String::new()))
    }
}

/// One lane's global access of one instruction.
#[derive(Debug, Clone, Copy)]
pub struct LaneAccess {
    /// The lane, 0-63.
    pub lane: u8,
    /// Device address.
    pub addr: u64,
    /// Bytes (1 to 16).
    pub size: u8,
    /// A store's bytes (the first `size`).
    pub bytes: [u8; 16],
}

/// A host thread's side: the work-group it runs and its clock.
#[derive(Debug)]
pub struct Local {
    shared: Arc<GlobalRace>,
    checker: &'static Checker,
    /// The work-group running (`None` before the first access).
    wg: Option<[u32; 3]>,
    me: u32,
    epoch: u32,
    /// Plain accesses made in `epoch` (a release then moves on).
    dirty: bool,
    clock: Clock,
    pages: HashMap<u64, Arc<Page>>,
    /// The page [`Local::page`] last returned (a streaming wave stays in it).
    last: Option<(u64, Arc<Page>)>,
    /// Pages looked for and not found, with [`GlobalRace::made`] then.
    absent: HashMap<u64, usize>,
    sites: HashMap<u64, u32>,
    granules: Vec<u64>,
    hits: Vec<Hit>,
    /// Scratch for the caller's lane accesses (taken and given back).
    pub buf: Vec<LaneAccess>,
    /// The addresses of the synchronising access in flight (the caller's).
    pub pending: Vec<u64>,
}

impl Local {
    /// A thread's state for the dispatch `shared`, reporting to `checker`.
    pub fn new(shared: Arc<GlobalRace>, checker: &'static Checker) -> Self {
        Local {
            shared,
            checker,
            wg: None,
            me: 0,
            epoch: 0,
            dirty: false,
            clock: Clock::default(),
            pages: HashMap::default(),
            last: None,
            absent: HashMap::default(),
            sites: HashMap::default(),
            granules: Vec::new(),
            hits: Vec::new(),
            buf: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// Work-group `wg` runs the next access (a new one starts with a new
    /// epoch and an empty clock).
    fn enter(&mut self, wg: [u32; 3]) {
        if self.wg != Some(wg) {
            self.wg = Some(wg);
            self.me = self.shared.linear(wg);
            self.epoch = self.shared.tick();
            self.dirty = false;
            self.clock = Clock::default();
        }
    }

    fn site(&mut self, pc: u64, inst: &dyn std::fmt::Display) -> u32 {
        if let Some(&s) = self.sites.get(&pc) {
            return s;
        }
        let mut g = self.shared.sites.lock().unwrap_or_else(|e| e.into_inner());
        let (list, index) = &mut *g;
        let s = *index.entry(pc).or_insert_with(|| {
            list.push((pc, inst.to_string()));
            (list.len() - 1) as u32
        });
        drop(g);
        self.sites.insert(pc, s);
        s
    }

    fn page(&mut self, n: u64) -> Arc<Page> {
        if let Some((m, p)) = &self.last {
            if *m == n {
                return p.clone();
            }
        }
        let p = match self.pages.get(&n) {
            Some(p) => p.clone(),
            None => {
                let p = self.shared.page(n);
                self.pages.insert(n, p.clone());
                p
            }
        };
        self.last = Some((n, p.clone()));
        p
    }

    /// Checks and records the plain accesses of one instruction of wave
    /// `wave` of work-group `wg` at `pc` (before they are performed).
    #[allow(clippy::too_many_arguments)]
    pub fn plain(
        &mut self,
        wg: [u32; 3],
        wave: u32,
        pc: u64,
        inst: &dyn std::fmt::Display,
        write: bool,
        accs: &[LaneAccess],
    ) {
        if accs.is_empty() {
            return;
        }
        self.enter(wg);
        self.dirty = true;
        let site = self.site(pc, inst);
        let (me, epoch) = (self.me, self.epoch);
        let mut found: Vec<(usize, Kind, Acc, u64)> = Vec::new();
        let mut i = 0;
        while i < accs.len() {
            // The lanes whose bytes lie in one page are checked under one
            // lock (a wave streaming through an array: one or two pages).
            let pn = accs[i].addr >> 12;
            let page = self.page(pn);
            let mut cells = page.0.lock().unwrap_or_else(|e| e.into_inner());
            let start = i;
            while let Some(a) = accs.get(i) {
                let last = a.addr.saturating_add(u64::from(a.size.max(1)) - 1);
                if a.addr >> 12 != pn || last >> 12 != pn {
                    break;
                }
                if let Some(f) = lane(&mut cells, a, write, me, epoch, site, wave, &self.clock) {
                    found.push((i, f.0, f.1, f.2));
                }
                i += 1;
            }
            drop(cells);
            if i == start {
                // A lane's bytes cross into the next page: one byte at a
                // time.
                let a = accs[i];
                let mut hit = None;
                for k in 0..a.size {
                    let mut b = a;
                    b.addr = a.addr.wrapping_add(u64::from(k));
                    b.size = 1;
                    b.bytes = [0; 16];
                    b.bytes[0] = a.bytes[usize::from(k)];
                    let page = self.page(b.addr >> 12);
                    let mut cells = page.0.lock().unwrap_or_else(|e| e.into_inner());
                    let f = lane(&mut cells, &b, write, me, epoch, site, wave, &self.clock);
                    hit = hit.or(f);
                }
                if let Some(f) = hit {
                    found.push((i, f.0, f.1, f.2));
                }
                i += 1;
            }
        }
        for (k, kind, p, byte) in found {
            self.report(wg, wave, pc, inst, kind, &accs[k], p, byte);
        }
        self.flush();
    }

    /// A hazard between the current lane access `a` and the prior `p`,
    /// placed on the access of the higher work-group.
    #[allow(clippy::too_many_arguments)]
    fn report(
        &mut self,
        wg: [u32; 3],
        wave: u32,
        pc: u64,
        inst: &dyn std::fmt::Display,
        kind: Kind,
        a: &LaneAccess,
        p: Acc,
        byte: u64,
    ) {
        let (me_access, p_access) = match kind {
            Kind::GlobalRaceWriteWrite => (Access::Write, Access::Write),
            Kind::GlobalRaceWriteRead => (Access::Write, Access::Read),
            _ => (Access::Read, Access::Write),
        };
        let (ppc, ptext) = self.shared.site_text(p.site);
        let hit = if self.me > p.wg {
            Hit {
                v: Violation {
                    kind,
                    access: me_access,
                    size: u32::from(a.size),
                    addr: byte,
                    lane: Some(a.lane),
                    region: None,
                    prior: Some(Prior {
                        access: p_access,
                        pc: ppc,
                        wave: u32::from(p.wave),
                        lane: p.lane,
                        workgroup: Some(self.shared.block(p.wg)),
                    }),
                },
                pc,
                workgroup: wg,
                wave,
                inst: inst.to_string(),
            }
        } else {
            let swapped = match kind {
                Kind::GlobalRaceWriteRead => Kind::GlobalRaceReadWrite,
                Kind::GlobalRaceReadWrite => Kind::GlobalRaceWriteRead,
                k => k,
            };
            Hit {
                v: Violation {
                    kind: swapped,
                    access: p_access,
                    size: u32::from(p.size),
                    addr: byte,
                    lane: Some(p.lane),
                    region: None,
                    prior: Some(Prior {
                        access: me_access,
                        pc,
                        wave,
                        lane: a.lane,
                        workgroup: Some(wg),
                    }),
                },
                pc: ppc,
                workgroup: self.shared.block(p.wg),
                wave: u32::from(p.wave),
                inst: ptext,
            }
        };
        self.hits.push(hit);
    }

    fn flush(&mut self) {
        if !self.hits.is_empty() {
            self.checker.add(self.hits.drain(..));
        }
    }

    /// The granules (deduplicated) the synchronising accesses at `addrs`
    /// of `size` bytes touch.
    fn granules_of(&mut self, addrs: &[u64], size: u8) {
        self.granules.clear();
        for &a in addrs {
            let end = a.saturating_add(u64::from(size));
            let mut g = a & !(GRAN - 1);
            while g < end {
                self.granules.push(g);
                g += GRAN;
            }
        }
        self.granules.sort_unstable();
        self.granules.dedup();
    }

    /// Before a synchronising access of `size` bytes at `addrs` by
    /// work-group `wg`: the release. One shard lock per run of granules
    /// in one shard (sorted granules of a line share a shard).
    pub fn release(&mut self, wg: [u32; 3], addrs: &[u64], size: u8) {
        if addrs.is_empty() {
            return;
        }
        self.enter(wg);
        self.granules_of(addrs, size);
        let (me, epoch) = (self.me, self.epoch);
        let mut i = 0;
        while i < self.granules.len() {
            let sh = GlobalRace::shard_of(self.granules[i]);
            let mut s = self.shared.syncs[sh]
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            while let Some(&g) = self.granules.get(i) {
                if GlobalRace::shard_of(g) != sh {
                    break;
                }
                let c = s.entry(g).or_default();
                c.join(&self.clock);
                c.set(me, epoch);
                i += 1;
            }
        }
        if self.dirty {
            self.epoch = self.shared.tick();
            self.dirty = false;
        }
    }

    /// After a synchronising access of `size` bytes at `addrs`: the
    /// acquire (the granules' sync clocks and last plain writes).
    pub fn acquire(&mut self, wg: [u32; 3], addrs: &[u64], size: u8) {
        if addrs.is_empty() {
            return;
        }
        self.enter(wg);
        self.granules_of(addrs, size);
        let granules = std::mem::take(&mut self.granules);
        let mut i = 0;
        while i < granules.len() {
            let sh = GlobalRace::shard_of(granules[i]);
            let s = self.shared.syncs[sh]
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            while let Some(&g) = granules.get(i) {
                if GlobalRace::shard_of(g) != sh {
                    break;
                }
                if let Some(c) = s.get(&g) {
                    self.clock.join(c);
                }
                i += 1;
            }
        }
        // The last plain write of each granule (an atomic store on gfx90a
        // is a plain store): one page lock per run of granules in a page.
        let mut i = 0;
        while i < granules.len() {
            let pn = granules[i] >> 12;
            let run = granules[i..].iter().take_while(|&&g| g >> 12 == pn).count();
            if let Some(page) = self.known_page(pn) {
                let cells = page.0.lock().unwrap_or_else(|e| e.into_inner());
                for &g in &granules[i..i + run] {
                    let w = cells[((g >> 2) as usize) % PAGE_GRANULES].write;
                    if w.epoch != 0 && w.wg != self.me {
                        self.clock.set(w.wg, w.epoch);
                    }
                }
            }
            i += run;
        }
        self.granules = granules;
    }

    /// Shadow page `n` if any plain access made it: the thread's cache,
    /// else the shared map (not looked at again while no page was made
    /// since `n` was last missing from it).
    fn known_page(&mut self, n: u64) -> Option<Arc<Page>> {
        if let Some(p) = self.pages.get(&n) {
            return Some(p.clone());
        }
        let made = self.shared.made.load(std::sync::atomic::Ordering::Acquire);
        if self.absent.get(&n) == Some(&made) {
            return None;
        }
        let p = self
            .shared
            .pages
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&n)
            .cloned();
        match &p {
            Some(p) => {
                self.pages.insert(n, p.clone());
            }
            None => {
                self.absent.insert(n, made);
            }
        }
        p
    }
}

/// Checks and records lane access `a` (all its bytes in `cells`' page)
/// by work-group `me` in `epoch`: the first hazard, with the prior access
/// and the first byte both touch.
#[allow(clippy::too_many_arguments)]
fn lane(
    cells: &mut [Cell],
    a: &LaneAccess,
    write: bool,
    me: u32,
    epoch: u32,
    site: u32,
    wave: u32,
    clock: &Clock,
) -> Option<(Kind, Acc, u64)> {
    let ordered = |p: &Acc| p.epoch == 0 || p.wg == me || clock.get(p.wg) >= p.epoch;
    let end = a.addr + u64::from(a.size);
    let mut found = None;
    let mut g = a.addr & !(GRAN - 1);
    while g < end {
        let cell = &mut cells[((g >> 2) as usize) % PAGE_GRANULES];
        let (lo, hi) = (a.addr.max(g), end.min(g + GRAN));
        // Bytes lo..hi of the granule (1 to 4 of them).
        let mask = (((1u16 << (hi - lo)) - 1) << (lo - g)) as u8;
        let first = |m: u8| g + u64::from(m.trailing_zeros());
        let now = Acc {
            epoch,
            wg: me,
            site,
            wave: wave as u8,
            lane: a.lane,
            mask,
            size: a.size,
        };
        let w = cell.write;
        if write {
            if found.is_none() && w.mask & mask != 0 && !ordered(&w) {
                // Bytes written with the value they already hold from the
                // other write change nothing in any order.
                let same = (lo..hi).all(|b| {
                    let k = (b - g) as usize;
                    w.mask & (1 << k) == 0 || cell.value[k] == a.bytes[(b - a.addr) as usize]
                });
                if !same {
                    found = Some((Kind::GlobalRaceWriteWrite, w, first(w.mask & mask)));
                }
            }
            if found.is_none() {
                if let Some(r) = cell.read.iter().find(|r| r.mask & mask != 0 && !ordered(r)) {
                    found = Some((Kind::GlobalRaceWriteRead, *r, first(r.mask & mask)));
                }
            }
            if w.wg == me && w.epoch == epoch {
                cell.write = Acc {
                    mask: w.mask | mask,
                    ..now
                };
            } else {
                cell.write = now;
            }
            for b in lo..hi {
                cell.value[(b - g) as usize] = a.bytes[(b - a.addr) as usize];
            }
        } else {
            if found.is_none() && w.mask & mask != 0 && !ordered(&w) {
                found = Some((Kind::GlobalRaceReadWrite, w, first(w.mask & mask)));
            }
            let r0 = cell.read[0];
            if r0.wg == me && r0.epoch == epoch {
                cell.read[0].mask |= mask;
            } else if r0.wg == me || r0.epoch == 0 {
                cell.read[0] = now;
            } else {
                cell.read[1] = r0;
                cell.read[0] = now;
            }
        }
        g += GRAN;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Checks;

    fn checker() -> &'static Checker {
        Box::leak(Box::new(Checker::new(Checks {
            racecheck: true,
            ..Default::default()
        })))
    }

    fn lane(lane: u8, addr: u64, v: u8) -> LaneAccess {
        LaneAccess {
            lane,
            addr,
            size: 4,
            bytes: [v; 16],
        }
    }

    const A: u64 = 0x10_0000;

    #[test]
    fn unordered_blocks_race_and_reports_are_canonical() {
        for order in [[0u32, 1], [1, 0]] {
            let c = checker();
            let g = Arc::new(GlobalRace::new([2, 1, 1]));
            let mut t = [Local::new(g.clone(), c), Local::new(g, c)];
            for &b in &order {
                let pc = 0x100 + u64::from(b) * 8;
                let write = b == 0;
                t[b as usize].plain([b, 0, 0], 0, pc, &"op", write, &[lane(3, A, 7)]);
            }
            let (hits, _) = c.take();
            assert_eq!(hits.len(), 1, "{hits:?}");
            let h = &hits[0];
            // Placed on block 1's read, naming block 0's write, whichever ran first.
            assert_eq!(h.workgroup, [1, 0, 0]);
            assert_eq!(h.pc, 0x108);
            assert_eq!(h.v.kind, Kind::GlobalRaceReadWrite);
            let p = h.v.prior.expect("prior");
            assert_eq!(
                (p.pc, p.workgroup, p.access),
                (0x100, Some([0, 0, 0]), Access::Write)
            );
        }
    }

    #[test]
    fn atomics_order_and_disjoint_or_same_value_do_not_race() {
        let c = checker();
        let g = Arc::new(GlobalRace::new([8, 1, 1]));
        let counter = A + 0x1000;
        // Blocks 0..7 write their partial, then add to a counter; the last
        // (block 7) reads every partial: the "last block" reduction.
        let mut t = Local::new(g.clone(), c);
        for b in 0..8u32 {
            let wg = [b, 0, 0];
            t.plain(
                wg,
                0,
                0x10,
                &"st",
                true,
                &[lane(0, A + 4 * u64::from(b), b as u8)],
            );
            t.release(wg, &[counter], 4);
            t.acquire(wg, &[counter], 4);
        }
        let reads: Vec<_> = (0..8).map(|b| lane(b, A + 4 * u64::from(b), 0)).collect();
        t.plain([7, 0, 0], 0, 0x20, &"ld", false, &reads);
        assert!(c.take().0.is_empty());
        // Without the counter, block 0 reading block 1's partial races.
        t.plain([0, 0, 0], 0, 0x30, &"ld", false, &[lane(0, A + 4, 0)]);
        assert_eq!(c.take().0.len(), 1);
        // The same value written by two blocks is no race.
        let mut u = Local::new(Arc::new(GlobalRace::new([2, 1, 1])), c);
        u.plain([0, 0, 0], 0, 0x40, &"st", true, &[lane(0, A, 1)]);
        u.plain([1, 0, 0], 0, 0x40, &"st", true, &[lane(0, A, 1)]);
        // Adjacent bytes of one granule are not the same bytes.
        let byte = |addr, v| LaneAccess {
            lane: 0,
            addr,
            size: 1,
            bytes: [v; 16],
        };
        u.plain([0, 0, 0], 0, 0x50, &"st", true, &[byte(A + 8, 1)]);
        u.plain([1, 0, 0], 0, 0x50, &"st", true, &[byte(A + 9, 2)]);
        assert!(c.take().0.is_empty());
        // A flag stored plainly (an atomic store on gfx90a) and loaded with
        // GLC orders the data written before it.
        let mut v = Local::new(Arc::new(GlobalRace::new([2, 1, 1])), c);
        v.plain([0, 0, 0], 0, 0x60, &"st", true, &[lane(0, A, 5)]);
        v.release([0, 0, 0], &[A + 64], 4);
        v.plain([0, 0, 0], 0, 0x64, &"st", true, &[lane(0, A + 64, 1)]);
        v.release([1, 0, 0], &[A + 64], 4);
        v.acquire([1, 0, 0], &[A + 64], 4);
        v.plain([1, 0, 0], 0, 0x68, &"ld", false, &[lane(0, A, 0)]);
        assert!(c.take().0.is_empty());
    }

    #[test]
    fn merged_clocks_match_a_full_map() {
        // Joins and sets against a plain map of every entry (few enough
        // work-groups that nothing folds): the same epoch for each.
        let mut seed = 0x2545_f491_u64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m) as u32
        };
        for _ in 0..200 {
            let (mut a, mut b) = (Clock::default(), Clock::default());
            let (mut ra, mut rb) = (HashMap::default(), HashMap::default());
            for _ in 0..next(9) {
                let (w, e) = (next(12), 1 + next(50));
                a.set(w, e);
                let x = ra.entry(w).or_insert(0);
                *x = e.max(*x);
            }
            for _ in 0..next(9) {
                let (w, e) = (next(12), 1 + next(50));
                b.set(w, e);
                let x = rb.entry(w).or_insert(0);
                *x = e.max(*x);
            }
            a.join(&b);
            for (w, e) in rb {
                let x = ra.entry(w).or_insert(0);
                *x = e.max(*x);
            }
            for w in 0..12 {
                assert_eq!(a.get(w), ra.get(&w).copied().unwrap_or(0), "wg {w}");
            }
            assert!(a.e.windows(2).all(|p| p[0].0 < p[1].0));
        }
    }

    #[test]
    fn acquire_sees_a_plain_write_made_after_it_missed_the_page() {
        // Block 1 acquires a flag whose page holds no plain access yet;
        // then block 0 writes data and stores the flag plainly (gfx90a's
        // atomic store, no release) on that page; block 1's next acquire of the flag
        // must look at the page again and order the data.
        let c = checker();
        let g = Arc::new(GlobalRace::new([2, 1, 1]));
        let (mut t0, mut t1) = (Local::new(g.clone(), c), Local::new(g, c));
        let flag = A + 0x2000;
        t1.release([1, 0, 0], &[flag], 4);
        t1.acquire([1, 0, 0], &[flag], 4);
        t0.plain([0, 0, 0], 0, 0x10, &"st", true, &[lane(0, A, 9)]);
        t0.plain([0, 0, 0], 0, 0x14, &"st", true, &[lane(0, flag, 1)]);
        t1.release([1, 0, 0], &[flag], 4);
        t1.acquire([1, 0, 0], &[flag], 4);
        t1.plain([1, 0, 0], 0, 0x18, &"ld", false, &[lane(0, A, 0)]);
        assert!(c.take().0.is_empty());
        // Without the second acquire the read races.
        let c = checker();
        let g = Arc::new(GlobalRace::new([2, 1, 1]));
        let (mut t0, mut t1) = (Local::new(g.clone(), c), Local::new(g, c));
        t1.release([1, 0, 0], &[flag], 4);
        t1.acquire([1, 0, 0], &[flag], 4);
        t0.plain([0, 0, 0], 0, 0x10, &"st", true, &[lane(0, A, 9)]);
        t0.plain([0, 0, 0], 0, 0x14, &"st", true, &[lane(0, flag, 1)]);
        t1.plain([1, 0, 0], 0, 0x18, &"ld", false, &[lane(0, A, 0)]);
        assert_eq!(c.take().0.len(), 1);
    }

    #[test]
    fn clocks_fold_into_their_floor() {
        let mut k = Clock::default();
        for w in 0..40 {
            k.set(w, 100 + w);
        }
        assert!(k.e.len() <= CLOCK_ENTRIES);
        // Folded entries read as at least the floor, kept ones exactly.
        assert!(k.get(0) >= 100);
        assert_eq!(k.get(39), 139);
        let mut j = Clock::default();
        j.set(1000, 5);
        j.join(&k);
        assert_eq!(j.get(39), 139);
        assert!(j.get(1000) >= 5);
    }
}

//! Touch tracking: the pages an emulated dispatch reads or writes, for
//! capsules that store only those (`lathe exec --capture`, issue 22,
//! D30). Off by default; a [`MemView`](super::MemView) created while it is
//! on notes the page of every access it performs in a private set, merged
//! into the shared [`Touched`] when the view is dropped (the end of a
//! dispatch's host thread), so the access path takes no lock.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// Page granularity of the tracking (4 KiB).
pub const TOUCH_PAGE_SHIFT: u32 = 12;

/// The pages touched while tracking was on.
#[derive(Debug, Default)]
pub struct Touched {
    pages: Mutex<HashSet<u64>>,
}

impl Touched {
    /// The touched page numbers (`address >> 12`), ascending.
    pub fn pages(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .pages
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .copied()
            .collect();
        v.sort_unstable();
        v
    }
}

/// One view's pages, merged into `shared` on drop.
#[derive(Debug)]
pub(super) struct LocalTouch {
    shared: Arc<Touched>,
    seen: HashSet<u64>,
    /// The last page noted: most accesses repeat it.
    last: u64,
}

impl LocalTouch {
    pub(super) fn new(shared: Arc<Touched>) -> Self {
        LocalTouch {
            shared,
            seen: HashSet::new(),
            last: u64::MAX,
        }
    }

    /// Notes `[addr, addr + len)` (len > 0).
    #[inline]
    pub(super) fn note(&mut self, addr: u64, len: u64) {
        let first = addr >> TOUCH_PAGE_SHIFT;
        let last = addr.saturating_add(len.max(1) - 1) >> TOUCH_PAGE_SHIFT;
        if first == last && first == self.last {
            return;
        }
        for p in first..=last {
            self.seen.insert(p);
        }
        self.last = last;
    }
}

impl Drop for LocalTouch {
    fn drop(&mut self) {
        let mut s = self.shared.pages.lock().unwrap_or_else(|e| e.into_inner());
        s.extend(self.seen.drain());
    }
}

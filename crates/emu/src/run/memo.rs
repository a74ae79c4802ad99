//! Per-thread memos of what a dispatch works out from its kernel
//! descriptor and target alone (D75): the wave plan's SGPR layout and
//! the processor a target names. Each entry is keyed by the whole value
//! it was worked out from (the descriptor's fields, the architecture,
//! the target), so a kernel loaded again at the same address with
//! another descriptor, or another target, never gets a stale answer;
//! the geometry is the dispatch's own every time.

use std::cell::RefCell;

use lathe_bundle::target::Processor;
use lathe_codeobj::kd::{KdArch, KernelDescriptor};
use lathe_isa::Target;

use crate::dispatch::{Geometry, WavePlan};

/// Plans kept per thread (most recently used first); a program's hot
/// kernels are few.
const PLANS: usize = 8;

thread_local! {
    static PLAN: RefCell<Vec<(KernelDescriptor, KdArch, WavePlan)>> =
        const { RefCell::new(Vec::new()) };
    static PROCESSOR: RefCell<Option<(Target, Option<Processor>)>> =
        const { RefCell::new(None) };
}

/// [`WavePlan::new`], from this thread's memo when it planned the same
/// descriptor on the same architecture before.
pub(super) fn plan(kd: &KernelDescriptor, arch: KdArch, geo: &Geometry) -> WavePlan {
    PLAN.with(|m| {
        let mut m = m.borrow_mut();
        if let Some(i) = m.iter().position(|(k, a, _)| k == kd && *a == arch) {
            let p = m[i].2.with_geometry(geo);
            if i > 0 {
                let e = m.remove(i);
                m.insert(0, e);
            }
            return p;
        }
        let p = WavePlan::new(kd, arch, geo);
        m.truncate(PLANS - 1);
        m.insert(0, (*kd, arch, p.clone()));
        p
    })
}

/// The processor `target` names (`None`: not a processor of the table).
pub(super) fn processor(target: Target) -> Option<Processor> {
    PROCESSOR.with(|m| {
        let mut m = m.borrow_mut();
        match *m {
            Some((t, p)) if t == target => p,
            _ => {
                let p = Processor::from_name(target.name());
                *m = Some((target, p));
                p
            }
        }
    })
}

//! Dispatch capture (`lathe exec --capture DIR`, issue 22, D28): a
//! selected dispatch is written as a capsule (`lathe-capsule`) under
//! `LATHE_CAPTURE`: the code objects of the kernel's executable, the
//! packet and kernel arguments, and every live allocation (pool memory,
//! locked host memory, the executable's loaded segments, the queue and
//! the packet) before the dispatch, with the pages it changed after it.
//!
//! Memory (D30): by default only the pages the dispatch touched are
//! stored, with their contents before it: the emulator's memory layer
//! notes every page an access of the dispatch reaches
//! (`DeviceMemory::track_touches`), and the capsule keeps those pages of
//! each allocation (queue and packet whole) besides every
//! allocation's base and size. `LATHE_CAPTURE_MEMORY=all` stores every
//! allocation whole instead.
//!
//! Selection: `LATHE_CAPTURE_KERNELS` (a regex on the mangled or
//! demangled name) and `LATHE_CAPTURE_LAUNCHES` (`A-B`, `A-` or `A`,
//! counted from 0 over every kernel dispatch). While capture is on, a
//! captured dispatch runs alone: every dispatch takes a shared lock, a
//! captured one the exclusive lock, so no other queue's kernel changes
//! memory between its before and after snapshots.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};

use lathe_capsule::write::{
    capsule_name, host_owned, layout, runs_of_pages, write, Captured, Dispatch,
};
use lathe_capsule::{Allocation, Manifest, Original};
use lathe_emu::dispatch::AqlDispatch;
use lathe_emu::mem::{Touched, TOUCH_PAGE_SHIFT};
use lathe_emu::run::{DispatchError, QueueContext, Report};

use crate::exec::KernelEntry;
use crate::rt::{lock, AllocKind, Runtime};

#[derive(Debug)]
struct Config {
    dir: std::path::PathBuf,
    kernels: Option<regex::Regex>,
    launches: (u64, u64),
    /// `LATHE_CAPTURE_MEMORY=all`: every allocation whole.
    all: bool,
}

fn config() -> Option<&'static Config> {
    static C: OnceLock<Option<Config>> = OnceLock::new();
    C.get_or_init(|| {
        let dir = std::env::var_os("LATHE_CAPTURE").filter(|d| !d.is_empty())?;
        let kernels = std::env::var("LATHE_CAPTURE_KERNELS").ok().and_then(|k| {
            regex::Regex::new(&k)
                .map_err(|e| eprintln!("lathe-hsa: LATHE_CAPTURE_KERNELS={k:?}: {e}"))
                .ok()
        });
        let launches = std::env::var("LATHE_CAPTURE_LAUNCHES")
            .ok()
            .and_then(|l| parse_launches(&l))
            .unwrap_or((0, u64::MAX));
        let dir = std::path::PathBuf::from(dir);
        if let Err(e) = std::fs::create_dir_all(&dir) {
            eprintln!("lathe-hsa: --capture {}: {e}", dir.display());
        }
        let all = match std::env::var("LATHE_CAPTURE_MEMORY").as_deref() {
            Ok("all") => true,
            Ok("touched") | Err(_) => false,
            Ok(other) => {
                eprintln!("lathe-hsa: LATHE_CAPTURE_MEMORY={other:?}: expected touched or all; storing the touched pages");
                false
            }
        };
        Some(Config {
            dir,
            kernels,
            launches,
            all,
        })
    })
    .as_ref()
}

/// `A-B`, `A-` or `A`, inclusive.
fn parse_launches(s: &str) -> Option<(u64, u64)> {
    let n = |x: &str| x.trim().parse::<u64>().ok();
    match s.split_once('-') {
        Some((a, "")) => Some((n(a)?, u64::MAX)),
        Some((a, b)) => Some((n(a)?, n(b)?)),
        None => n(s).map(|a| (a, a)),
    }
}

static ALONE: RwLock<()> = RwLock::new(());
static LAUNCH: AtomicU64 = AtomicU64::new(0);
/// Dispatches selected for capture.
static SELECTED: AtomicU64 = AtomicU64::new(0);

/// What [`before`] hands to [`after`].
#[derive(Debug, Default)]
pub struct Pending {
    _shared: Option<RwLockReadGuard<'static, ()>>,
    capture: Option<Box<(RwLockWriteGuard<'static, ()>, Snapshot)>>,
}

#[derive(Debug)]
struct Snapshot {
    manifest: Manifest,
    code: Vec<Vec<u8>>,
    before: Vec<Vec<u8>>,
    demangled: String,
    /// The dispatch's pages, unless every allocation is stored whole.
    touched: Option<Arc<Touched>>,
}

/// Called just before a kernel dispatch runs: nothing unless capture is
/// on; snapshots the memory when this dispatch is selected.
pub fn before(
    r: &Runtime,
    k: &KernelEntry,
    pkt: &AqlDispatch,
    ctx: &QueueContext,
    packet: &[u8; 64],
) -> Pending {
    let Some(cfg) = config() else {
        return Pending::default();
    };
    let launch = LAUNCH.fetch_add(1, Ordering::Relaxed);
    let demangled = lathe_codeobj::names::demangle(&k.name).unwrap_or_else(|| k.name.clone());
    let selected = (cfg.launches.0..=cfg.launches.1).contains(&launch)
        && cfg
            .kernels
            .as_ref()
            .is_none_or(|re| re.is_match(&k.name) || re.is_match(&demangled));
    if !selected {
        return Pending {
            _shared: Some(ALONE.read().unwrap_or_else(|e| e.into_inner())),
            capture: None,
        };
    }
    SELECTED.fetch_add(1, Ordering::Relaxed);
    let guard = ALONE.write().unwrap_or_else(|e| e.into_inner());
    let Some(code) = crate::exec::code_objects_with(pkt.kernel_object) else {
        return Pending::default();
    };
    let mut others: Vec<Allocation> = Vec::new();
    for a in lock(&r.allocs).values() {
        let kind = match a.kind {
            AllocKind::Pool(crate::rt::POOL_GPU_COARSE) => "gpu-coarse",
            AllocKind::Pool(crate::rt::POOL_GPU_FINE) => "gpu-fine",
            AllocKind::Pool(crate::rt::POOL_CPU_COARSE) => "cpu-coarse",
            AllocKind::Pool(_) => "cpu-fine",
            AllocKind::Locked(_) => "host-locked",
        };
        // The region as the emulator bounds it (pool sizes are rounded
        // up to whole pages).
        let (base, size) = r
            .mem
            .find(a.device, 1)
            .map_or((a.device, a.size), |g| (g.start(), g.len()));
        others.push(Allocation {
            base,
            size,
            kind: kind.into(),
        });
    }
    let spans: Vec<(u64, u64)> = code.iter().map(|&(_, base, size)| (base, size)).collect();
    let layout = match layout(&spans, others, ctx.queue, ctx.packet, pkt.kernarg_address) {
        Ok(l) => l,
        Err(i) => {
            eprintln!("lathe-hsa: capture of launch {launch}: code object {i} overlaps another allocation; not captured");
            return Pending::default();
        }
    };
    let before = read_all(r, &layout.allocations);
    let mut kernarg = vec![0u8; k.info.kernarg_size as usize];
    let _ = r.mem.view().read_bytes(pkt.kernarg_address, &mut kernarg);
    let sizes: Vec<u64> = code.iter().map(|(b, _, _)| b.len() as u64).collect();
    let manifest = Manifest::new(
        Dispatch {
            target: r.gpu.target_id.to_string(),
            launch,
            kernel: k.name.clone(),
            kernel_object: pkt.kernel_object,
            packet,
            packet_address: ctx.packet,
            queue_address: ctx.queue,
            dispatch_id: ctx.dispatch_id,
            kernarg: &kernarg,
            original: Original {
                seconds: 0.0,
                wave_instructions: 0,
                threads: r.threads as u64,
                stopped: None,
            },
        },
        layout,
        &sizes,
    );
    // From here to `after`, the dispatch's views note the pages it
    // touches (the snapshot reads above are not noted).
    let touched = (!cfg.all).then(|| r.mem.track_touches());
    Pending {
        _shared: None,
        capture: Some(Box::new((
            guard,
            Snapshot {
                manifest,
                code: code.into_iter().map(|(b, _, _)| b).collect(),
                before,
                demangled,
                touched,
            },
        ))),
    }
}

fn read_all(r: &Runtime, allocs: &[Allocation]) -> Vec<Vec<u8>> {
    let mut view = r.mem.view();
    allocs
        .iter()
        .map(|a| {
            let mut v = vec![0u8; a.size as usize];
            let _ = view.read_bytes(a.base, &mut v);
            v
        })
        .collect()
}

/// Called right after the dispatch: writes the capsule of a captured one.
pub fn after(p: Pending, result: &Result<Report, DispatchError>) {
    let Some(b) = p.capture else { return };
    let (guard, mut s) = *b;
    let Some(r) = crate::rt::rt_any() else { return };
    let Some(cfg) = config() else { return };
    if s.touched.is_some() {
        r.mem.stop_tracking();
    }
    let known = s.touched.take().map(|t| {
        let pages = t.pages();
        s.manifest
            .allocations
            .iter()
            .map(|a| match a.kind.as_str() {
                // What the dispatch_ptr and queue_ptr point at: small,
                // and read by the emulator itself, not only the kernel.
                // A code allocation keeps its touched pages only: replay
                // loads its code object there beneath them (D38).
                "queue" | "packet" => vec![(0, a.size)],
                _ => runs_of_pages(a.base, a.size, &pages, TOUCH_PAGE_SHIFT),
            })
            .collect()
    });
    let mut after = read_all(r, &s.manifest.allocations);
    drop(guard);
    // Memory the host owns while the dispatch runs (HIP enqueues the next
    // packets and writes their arguments meanwhile) and a kernel may not
    // write: its after-state is its before-state.
    for (i, a) in s.manifest.allocations.iter().enumerate() {
        if host_owned(&a.kind) {
            after[i].clone_from(&s.before[i]);
        }
    }
    match result {
        Ok(rep) => {
            s.manifest.original.seconds = rep.elapsed.as_secs_f64();
            s.manifest.original.wave_instructions = rep.wave_instructions;
            s.manifest.original.threads = rep.threads as u64;
        }
        Err(e) => {
            s.manifest.original.stopped =
                Some(e.to_string().lines().next().unwrap_or_default().to_string());
        }
    }
    let launch = s.manifest.launch;
    let dir = cfg.dir.join(capsule_name(launch, &s.demangled));
    let captured = Captured {
        manifest: s.manifest,
        code_objects: s.code.iter().map(|c| c.as_slice()).collect(),
        before: s.before,
        after,
        known,
    };
    match write(&dir, captured) {
        Ok(_) => eprintln!(
            "lathe: captured launch {launch} ({}) to {}",
            s.demangled,
            dir.display()
        ),
        Err(e) => eprintln!(
            "lathe-hsa: capture of launch {launch} ({}) to {} failed: {e}",
            s.demangled,
            dir.display()
        ),
    }
}

/// At process exit: says so when `--capture` selected no dispatch.
pub fn at_exit() {
    let Some(cfg) = config() else { return };
    if SELECTED.load(Ordering::Relaxed) > 0 {
        return;
    }
    let launches = LAUNCH.load(Ordering::Relaxed);
    let mut why = Vec::new();
    if cfg.launches.0 >= launches {
        why.push(format!(
            "--launches starts at {} but the program made {launches} kernel launch(es) (0 to {})",
            cfg.launches.0,
            launches.saturating_sub(1)
        ));
    }
    if let Some(re) = &cfg.kernels {
        why.push(format!(
            "--kernels {:?} matched no launched kernel",
            re.as_str()
        ));
    }
    if why.is_empty() {
        why.push(format!("{launches} kernel launch(es), none selected"));
    }
    eprintln!(
        "lathe: --capture {}: nothing captured: {}",
        cfg.dir.display(),
        why.join("; ")
    );
}

//! Running one dispatch: scratch and LDS allocation, the AQL packet, wave
//! start states, work-groups spread over host threads, and the
//! ground-truth counters (wave-instructions per opcode).
//!
//! Work-groups are handed out by guided self-scheduling (`claim`): a
//! thread takes a run of groups from one shared counter, each run a
//! fraction of what is left (at most 64 groups, down to 1 at the end).
//! Everything else a thread counts stays thread-local until it finishes,
//! and the shared flags sit on their own cache lines, so a streaming
//! kernel's microsecond-long groups do not make the threads fight over
//! one line. Which thread runs a group never changes a result: groups are
//! independent, and each thread's registers, LDS and counters are its own.
//! Wave start state is worked out once per dispatch
//! ([`crate::dispatch::WavePlan`], its SGPR layout once per kernel: `memo`)
//! and written into waves reused from the previous group.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use lathe_codeobj::kd::KdArch;
use lathe_isa::{Opcode, Target};
use lathe_loader::KernelInfo;

use crate::dispatch::{AqlDispatch, DispatchSgprs, Geometry, GeometryError};
use crate::interp::{Exec, Stop};
use crate::mem::{DeviceMemory, MemError, RegionKind};
use crate::record::Recorder;
use crate::wave::{run_workgroup, Flow, Step, Wave, LANES};

mod kept;
mod memo;

/// Dispatch options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Host threads (0: all available cores).
    pub threads: usize,
    /// Instruction budget per work-group.
    pub budget_per_workgroup: u64,
    /// Extra scratch bytes per work-item for kernels with a dynamic stack.
    pub dynamic_stack: u32,
    /// Stop with [`Stop::MissingWait`] when a kernel uses a memory result
    /// before the `s_waitcnt` that guarantees it ([`crate::waitcnt`]).
    pub check_waitcnt: bool,
    /// The watchdog: a dispatch still running after this long stops with
    /// [`Stop::Timeout`], naming where each unfinished wave is (`None`: no
    /// limit).
    pub timeout: Option<Duration>,
    /// Counts finished work-groups, for a progress display.
    pub progress: Option<Progress>,
    /// Called when a wave sends `s_sendmsg sendmsg(MSG_INTERRUPT)` (`None`:
    /// nobody listens and the message is dropped).
    pub interrupt: Option<InterruptHook>,
    /// Run common instructions as fast-tier µops (the default); off, every
    /// instruction takes its general handler. Results are identical.
    pub fast_tier: bool,
    /// Count the wave-instructions that ran as fast-tier µops, per opcode
    /// ([`Report::uop_instructions`]; off by default, and then free). On
    /// when the environment has `LATHE_UOP_STATS`, which also prints the
    /// counts to stderr after each dispatch.
    pub count_uops: bool,
    /// The sanitizer ([`crate::check`]): findings go to this checker
    /// (`None`, the default: no checks, at no cost).
    pub check: Option<crate::check::CheckHook>,
}

/// The receiver of device interrupts: called on the emulator thread that
/// runs the wave, with the wave's M0 (the interrupt's payload; device
/// code signalling an HSA signal puts the low 8 bits of the signal's
/// event ID there, as the ROCm device library's `update_mbox` does).
#[derive(Debug, Clone, Copy)]
pub struct InterruptHook(pub fn(u32));

impl PartialEq for InterruptHook {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::fn_addr_eq(self.0, other.0)
    }
}

impl Eq for InterruptHook {}

pub use crate::interrupt::{interrupt, interrupted};

/// The default watchdog limit: generous, so only a kernel that never ends
/// (or one far too large to emulate) reaches it.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// A counter of finished work-groups that another thread may read while a
/// dispatch runs (`lathe run`'s progress bar).
#[derive(Debug, Clone, Copy)]
pub struct Progress(pub &'static AtomicU64);

impl PartialEq for Progress {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for Progress {}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: 0,
            budget_per_workgroup: 1 << 32,
            dynamic_stack: 16 * 1024,
            check_waitcnt: true,
            timeout: Some(DEFAULT_TIMEOUT),
            progress: None,
            interrupt: None,
            fast_tier: true,
            count_uops: std::env::var_os("LATHE_UOP_STATS").is_some(),
            check: None,
        }
    }
}

/// What a finished dispatch reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Work-groups run.
    pub workgroups: u64,
    /// Waves run.
    pub waves: u64,
    /// Wave-instructions executed.
    pub wave_instructions: u64,
    /// Wave-instructions per opcode, most frequent first.
    pub per_opcode: Vec<(Opcode, u64)>,
    /// Wall time of the dispatch.
    pub elapsed: Duration,
    /// Host threads used.
    pub threads: usize,
    /// Wave-instructions that ran as fast-tier µops, when counted
    /// ([`Options::count_uops`]).
    pub uop_instructions: Option<u64>,
    /// The same per opcode (empty when not counted).
    pub per_opcode_uops: Vec<(Opcode, u64)>,
}

/// Why a dispatch failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum DispatchError {
    /// Bad grid or work-group sizes.
    #[error(transparent)]
    Geometry(#[from] GeometryError),
    /// LDS request larger than the processor's LDS per work-group
    /// (`lathe_isa::sem::lds_bytes`).
    #[error("kernel needs {0} bytes of LDS ({2} has {1} per work-group)")]
    Lds(u64, u64, Target),
    /// The kernel's generation and wave size are not a row of
    /// [`crate::dispatch::EMULATED`].
    #[error(transparent)]
    NotEmulated(#[from] crate::dispatch::NotEmulated),
    /// Scratch or runtime memory could not be allocated.
    #[error("cannot allocate dispatch memory: {0}")]
    Memory(#[from] MemError),
    /// A wave stopped: fault, unsupported instruction, trap, budget.
    #[error("kernel {kernel}: {stop}")]
    Stopped {
        /// Kernel name.
        kernel: String,
        /// Why.
        stop: Stop,
    },
}

/// One kernel launch.
#[derive(Debug, Clone, Copy)]
pub struct Launch<'a> {
    /// Kernel name (for reports).
    pub name: &'a str,
    /// The kernel as loaded.
    pub kernel: &'a KernelInfo,
    /// Grid geometry.
    pub geometry: Geometry,
    /// Device address of the kernarg segment.
    pub kernarg: u64,
    /// Dynamic LDS bytes.
    pub dynamic_lds: u32,
}

/// Where a dispatch's packet and queue live when a runtime (`lathe-hsa`)
/// issued it from a real AQL queue: the kernel's `dispatch_ptr` and
/// `queue_ptr` then point at them instead of at copies made for the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueContext {
    /// Device address of the AQL dispatch packet.
    pub packet: u64,
    /// Device address of the queue (`amd_queue_t`).
    pub queue: u64,
    /// The packet's dispatch ID (its index in the queue).
    pub dispatch_id: u64,
}

/// Runs a dispatch to completion on `mem`.
pub fn dispatch(
    mem: &DeviceMemory,
    target: Target,
    arch: KdArch,
    l: &Launch<'_>,
    opts: &Options,
) -> Result<Report, DispatchError> {
    dispatch_impl(mem, target, arch, l, opts, false, None).map(|(r, _)| r)
}

/// [`dispatch`] with ground-truth recording ([`crate::record`]): also
/// returns per-PC execution and active-lane counts over every wave.
pub fn dispatch_recorded(
    mem: &DeviceMemory,
    target: Target,
    arch: KdArch,
    l: &Launch<'_>,
    opts: &Options,
) -> Result<(Report, Recorder), DispatchError> {
    dispatch_impl(mem, target, arch, l, opts, true, None)
        .map(|(r, rec)| (r, rec.unwrap_or_default()))
}

/// Runs a dispatch issued from an AQL queue (see [`QueueContext`]).
pub fn dispatch_from_queue(
    mem: &DeviceMemory,
    target: Target,
    arch: KdArch,
    l: &Launch<'_>,
    opts: &Options,
    ctx: QueueContext,
) -> Result<Report, DispatchError> {
    dispatch_impl(mem, target, arch, l, opts, false, Some(ctx)).map(|(r, _)| r)
}

fn dispatch_impl(
    mem: &DeviceMemory,
    target: Target,
    arch: KdArch,
    l: &Launch<'_>,
    opts: &Options,
    record: bool,
    ctx: Option<QueueContext>,
) -> Result<(Report, Option<Recorder>), DispatchError> {
    let start = Instant::now();
    let geo = l.geometry;
    let k = l.kernel;
    // What every wave starts with, worked out once; its wave size (the
    // kernel descriptor's, D42) picks the decoding (wave32 code names
    // one-SGPR lane masks) and must be a row the interpreter runs.
    let plan = memo::plan(&k.descriptor, arch, &geo);
    let lanes = plan.wave_size().lanes();
    if let Some(p) = memo::processor(target) {
        crate::dispatch::check_emulated(l.name, p, lanes)?;
    }
    let target = target.with_wave_size(lanes).unwrap_or(target);
    let lds_size = u64::from(k.group_segment_size) + u64::from(l.dynamic_lds);
    let lds_limit = u64::from(lathe_isa::sem::lds_bytes(target));
    if lds_size > lds_limit {
        return Err(DispatchError::Lds(lds_size, lds_limit, target));
    }
    let threads = if opts.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        opts.threads
    };
    let total_wgs = geo.total_workgroups();
    let threads = threads.min(total_wgs.max(1) as usize).max(1);
    let waves_per_wg = u64::from(plan.waves_in([0, 0, 0]));
    let per_lane = (u64::from(k.private_segment_size)
        + if k.dynamic_stack {
            u64::from(opts.dynamic_stack)
        } else {
            0
        })
    .next_multiple_of(16);
    let per_wave = per_lane * LANES as u64;
    let slot = per_wave * waves_per_wg;
    let scratch = if slot > 0 {
        Some(mem.allocate(slot * threads as u64, 256, RegionKind::Runtime)?)
    } else {
        None
    };
    // The AQL packet and a zeroed queue descriptor, for dispatch_ptr/queue_ptr
    // (unless the dispatch came from a runtime's queue).
    let own = ctx.is_none();
    let (packet, queue, dispatch_id) = match ctx {
        Some(c) => (c.packet, c.queue, c.dispatch_id),
        None => (
            mem.allocate(64, 64, RegionKind::Runtime)?,
            mem.allocate(256, 64, RegionKind::Runtime)?,
            0,
        ),
    };
    let aql = AqlDispatch {
        header: 2,
        setup: geo.dims as u16,
        workgroup_size: geo.workgroup.map(|x| x as u16),
        grid_size: geo.grid,
        private_segment_size: per_lane as u32,
        group_segment_size: lds_size as u32,
        kernel_object: k.descriptor_address,
        kernarg_address: l.kernarg,
        completion_signal: 0,
    };
    if own {
        let _ = mem.view().write_bytes(packet, &aql.to_bytes());
    }
    // Each shared counter on its own cache line: a thread claiming work
    // must not invalidate the line the other threads poll.
    let next = Padded(AtomicU64::new(0));
    let failed = Padded(AtomicBool::new(false));
    let error: Mutex<Option<Stop>> = Mutex::new(None);
    // (count slot, wave-instructions) of every thread.
    let counts: Mutex<Vec<(u32, u64)>> = Mutex::new(Vec::new());
    let uop_counts: Mutex<Vec<u64>> = Mutex::new(Vec::new());
    let recorded: Mutex<Option<Recorder>> = Mutex::new(record.then(Recorder::default));
    let waves_run = AtomicU64::new(0);
    let started = AtomicU64::new(0);
    let deadline = opts.timeout.map(|t| (start + t, t));
    let regs = k.descriptor.allocated_vgprs(arch) as usize;
    // MODE at entry from the descriptor. GFX12's has no DX10_CLAMP or IEEE
    // bits (its hardware has no such modes: min/max are the `_num`
    // operations, NaN-quieting): read as set, the modes the interpreter
    // models (D85). Earlier generations' bits are read as written.
    let r1 = k.descriptor.rsrc1(arch);
    let mode = crate::alu::Mode::from_kd(
        r1.float_round_mode_32,
        r1.float_round_mode_16_64,
        r1.float_denorm_mode_32,
        r1.float_denorm_mode_16_64,
        r1.enable_dx10_clamp.unwrap_or(true),
        r1.enable_ieee_mode.unwrap_or(true),
    )
    .bits();
    // racecheck's global shadow, one per dispatch (D33).
    let global_race = opts
        .check
        .filter(|h| h.0.checks.racecheck)
        .map(|_| std::sync::Arc::new(crate::check::global::GlobalRace::new(geo.workgroup_count())));
    let work = |t: usize| {
        let (next, failed, error, counts, waves_run, started, recorded, plan) = (
            &next, &failed, &error, &counts, &waves_run, &started, &recorded, &plan,
        );
        let uop_counts = &uop_counts;
        {
            {
                // Kept from earlier dispatches (D49): the kernel's decodes
                // (checked against the code bytes), counters, waves, LDS.
                let key = kept::Key {
                    target,
                    kernel: k.descriptor_address,
                };
                let kept::Worker { buffers, mut wg } = kept::take_worker();
                let mut code = kept::take_code(key, mem);
                let decodes = code.decodes.take().unwrap_or_default();
                let mut exec = Exec::resume(mem.view(), target, buffers, decodes);
                exec.check_waitcnt = opts.check_waitcnt;
                // The fast tier's µops are GFX9 wave64's (full-pair VCC
                // and carry masks, VOPC `v_cmpx` writing VCC too): GFX10
                // waves take the general handlers until its lowering reads
                // GFX10's operand lists (D65).
                exec.fast = opts.fast_tier && target.generation() == 9;
                if opts.count_uops {
                    exec.uop_counts = Some(vec![0; exec.counts.len()]);
                }
                exec.deadline = deadline;
                exec.set_check(opts.check.map(|h| h.0), per_lane);
                exec.set_global_race(global_race.clone());
                exec.set_interrupt(opts.interrupt.map(|h| h.0));
                if record {
                    exec.enable_recording();
                }
                // Recording: the accesses of each scheduling slice, tagged
                // with the slice's wave (nothing built when not recording:
                // a map's hasher reads thread-local keys).
                let mut tagged = record.then(Recorder::default);
                let slot_base = scratch.map_or(0, |b| b + slot * t as u64);
                // The work-group in flight: its waves and LDS are reused in
                // place by the next one (no per-group allocation or moves).
                // Work-groups claimed but not started, and what this thread
                // ran (published once, at the end).
                let mut claimed = 0..0;
                let (mut my_started, mut my_waves) = (0u64, 0u64);
                loop {
                    if failed.0.load(Ordering::Relaxed) {
                        break;
                    }
                    let Some(i) = claimed.next() else {
                        match claim(&next.0, total_wgs, threads as u64) {
                            Some(r) => {
                                claimed = r;
                                continue;
                            }
                            None => break,
                        }
                    };
                    my_started += 1;
                    let wg_id = geo.workgroup_id(i);
                    let nwaves = plan.waves_in(wg_id);
                    let d = DispatchSgprs {
                        private_segment_buffer: scratch_srd(slot_base),
                        dispatch_ptr: packet,
                        queue_ptr: queue,
                        kernarg_ptr: l.kernarg,
                        dispatch_id,
                        flat_scratch_init: slot_base,
                        private_segment_size: per_lane as u32,
                    };
                    wg.waves.truncate(nwaves as usize);
                    for wv in 0..nwaves {
                        let offset = per_wave * u64::from(wv);
                        let w = match wg.waves.get_mut(wv as usize) {
                            Some(w) => {
                                w.reset(k.entry, wg_id, wv, regs, regs);
                                w
                            }
                            None => {
                                wg.waves
                                    .push(Wave::with_registers(k.entry, wg_id, wv, regs, regs));
                                let last = wg.waves.len() - 1;
                                &mut wg.waves[last]
                            }
                        };
                        w.size = plan.wave_size();
                        w.exec = plan.init(&d, wg_id, wv, offset as u32, &mut w.sgpr, &mut w.vgpr);
                        plan.init_ttmp(wg_id, &mut w.ttmp);
                        w.flat_scratch = slot_base + offset;
                        w.mode = mode;
                    }
                    my_waves += u64::from(nwaves);
                    wg.id = wg_id;
                    wg.lds.clear();
                    wg.lds.resize(lds_size as usize, 0u8);
                    exec.start_workgroup(lds_size as usize);
                    let ran = if let Some(log) = tagged.as_mut() {
                        let mut t = Tagging {
                            exec: &mut exec,
                            log,
                        };
                        run_workgroup(&mut wg, &mut t, 64, opts.budget_per_workgroup)
                    } else {
                        run_workgroup(&mut wg, &mut exec, 64, opts.budget_per_workgroup)
                    };
                    if let Err(stop) = ran {
                        failed.0.store(true, Ordering::Relaxed);
                        let mut e = error.lock().unwrap_or_else(|p| p.into_inner());
                        match (&mut *e, stop) {
                            (None, stop) => *e = Some(stop),
                            // Every thread's watchdog fires (or sees the
                            // interrupt): gather all unfinished waves into
                            // one report.
                            (
                                Some(Stop::Timeout { waves, .. }),
                                Stop::Timeout { waves: more, .. },
                            )
                            | (
                                Some(Stop::Interrupted { waves, .. }),
                                Stop::Interrupted { waves: more, .. },
                            ) => {
                                waves.extend(more);
                                waves.sort_by_key(|w| (w.wave.workgroup, w.wave.wave));
                            }
                            _ => {}
                        }
                        break;
                    }
                    if let Some(p) = opts.progress {
                        p.0.fetch_add(1, Ordering::Relaxed);
                    }
                }
                started.fetch_add(my_started, Ordering::Relaxed);
                waves_run.fetch_add(my_waves, Ordering::Relaxed);
                // The µop loop counts per decoded instruction: into the
                // per-opcode counts before they are read.
                exec.fold_counts();
                if let Some(u) = &exec.uop_counts {
                    let mut c = uop_counts.lock().unwrap_or_else(|p| p.into_inner());
                    if c.len() < u.len() {
                        c.resize(u.len(), 0);
                    }
                    for (a, b) in c.iter_mut().zip(u) {
                        *a += b;
                    }
                }
                if let (Some(r), Some(tagged)) = (exec.take_recording(), tagged.as_mut()) {
                    tagged.merge(&r);
                    let mut all = recorded.lock().unwrap_or_else(|p| p.into_inner());
                    if let Some(all) = all.as_mut() {
                        all.merge(tagged);
                    }
                }
                let (mut buffers, decodes) = exec.keep();
                code.decodes = Some(decodes);
                // Straight into the dispatch's list (no list per thread).
                let mut c = counts.lock().unwrap_or_else(|p| p.into_inner());
                code.harvest(&mut buffers.counts, &mut c);
                drop(c);
                kept::give(kept::Worker { buffers, wg }, code);
            }
        }
    };
    // One thread runs here: a runtime's small launches skip a thread
    // spawn. With more, every worker is a fresh thread (measured: making
    // the calling thread worker 0 instead was slower and less steady,
    // 2 threads on the streaming triad 13 ms against 9.6 ms).
    if threads == 1 {
        work(0);
    } else {
        std::thread::scope(|s| {
            for t in 0..threads {
                let work = &work;
                s.spawn(move || work(t));
            }
        });
    }
    let owned = own.then_some([packet, queue]).into_iter().flatten();
    for a in owned.chain(scratch) {
        let _ = mem.free(a);
    }
    if let Some(mut stop) = error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        if let Stop::Timeout { not_started, .. } | Stop::Interrupted { not_started, .. } = &mut stop
        {
            *not_started = total_wgs.saturating_sub(started.into_inner());
        }
        return Err(DispatchError::Stopped {
            kernel: l.name.to_string(),
            stop,
        });
    }
    let counts = merge(counts.into_inner().unwrap_or_else(|p| p.into_inner()));
    let wave_instructions = counts.iter().map(|&(_, n)| n).sum();
    let mut per_opcode: Vec<(Opcode, u64)> = Vec::with_capacity(counts.len());
    per_opcode.extend(counts.iter().filter_map(|&(s, n)| Some((opcode(s)?, n))));
    per_opcode.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let uop_counts = uop_counts.into_inner().unwrap_or_else(|p| p.into_inner());
    // Only when counted (empty otherwise): not a walk of every opcode per
    // dispatch.
    let mut per_opcode_uops: Vec<(Opcode, u64)> = Vec::new();
    if opts.count_uops {
        per_opcode_uops.extend(
            Opcode::all()
                .zip(uop_counts.iter().copied())
                .filter(|(_, n)| *n > 0),
        );
        per_opcode_uops.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    }
    let uop_instructions = opts.count_uops.then(|| uop_counts.iter().sum::<u64>());
    // The environment only when counted: reading it takes the process's
    // environment lock and walks every variable, on every dispatch.
    let print_uops = uop_instructions.filter(|_| std::env::var_os("LATHE_UOP_STATS").is_some());
    if let Some(u) = print_uops {
        let total: u64 = wave_instructions;
        // The opcodes that took the general path, most frequent first.
        let mut general: Vec<(Opcode, u64)> = per_opcode
            .iter()
            .map(|&(o, n)| {
                (
                    o,
                    n - uop_counts.get(o.index() as usize).copied().unwrap_or(0),
                )
            })
            .filter(|(_, n)| *n > 0)
            .collect();
        general.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let top: Vec<String> = general
            .iter()
            .take(12)
            .map(|(o, n)| format!("{} {n}", o.name()))
            .collect();
        eprintln!(
            "lathe-emu uops: {u} of {total} wave-instructions ({:.1}%); general path: {}",
            100.0 * u as f64 / total.max(1) as f64,
            top.join(", ")
        );
    }
    Ok((
        Report {
            workgroups: total_wgs,
            waves: waves_run.into_inner(),
            wave_instructions,
            per_opcode,
            elapsed: start.elapsed(),
            threads,
            uop_instructions,
            per_opcode_uops,
        },
        recorded.into_inner().unwrap_or_else(|p| p.into_inner()),
    ))
}

/// Per-thread (slot, count) lists summed per slot, in slot order.
fn merge(mut counts: Vec<(u32, u64)>) -> Vec<(u32, u64)> {
    counts.sort_unstable_by_key(|&(s, _)| s);
    counts.dedup_by(|b, a| {
        let same = a.0 == b.0;
        if same {
            a.1 += b.1;
        }
        same
    });
    counts
}

/// The opcode counted in `slot` (`None`: the slot of undecodable words).
fn opcode(slot: u32) -> Option<Opcode> {
    static ALL: std::sync::OnceLock<Vec<Opcode>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| Opcode::all().collect())
        .get(slot as usize)
        .copied()
}

/// A value alone on its cache line (two lines: adjacent-line prefetch).
#[repr(align(128))]
struct Padded<T>(T);

/// Claims the next run of work-groups for one of `threads` threads, or
/// `None` when all are claimed: guided self-scheduling, so the shared
/// counter is touched once per run rather than once per group (groups of
/// a streaming kernel last about a microsecond), while runs shrink to one
/// group towards the end and keep the threads' finishing times close.
fn claim(next: &AtomicU64, total: u64, threads: u64) -> Option<std::ops::Range<u64>> {
    let mut cur = next.load(Ordering::Relaxed);
    loop {
        if cur >= total {
            return None;
        }
        let n = ((total - cur) / (8 * threads)).clamp(1, 64);
        match next.compare_exchange_weak(cur, cur + n, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Some(cur..cur + n),
            Err(c) => cur = c,
        }
    }
}

/// The private segment buffer descriptor for a scratch slot: base address,
/// swizzled with ADD_TID_ENABLE, as the runtime sets it up.
fn scratch_srd(base: u64) -> [u32; 4] {
    [
        base as u32,
        ((base >> 32) as u32 & 0xffff) | (1 << 31),
        u32::MAX,
        1 << 23 | 0x27000,
    ]
}

/// The interpreter under recording: after each scheduling slice (one wave's
/// run of up to 64 instructions) the slice's recording moves to `log`, its
/// accesses tagged with the wave ([`Recorder::access_waves`]).
struct Tagging<'a, 'b> {
    exec: &'a mut Exec<'b>,
    log: &'a mut Recorder,
}

impl Step for Tagging<'_, '_> {
    type Stop = Stop;
    fn step(&mut self, w: &mut Wave, lds: &mut [u8]) -> Result<Flow, Stop> {
        self.exec.step(w, lds)
    }
    fn run(&mut self, w: &mut Wave, lds: &mut [u8], max: u64) -> (u64, Result<Flow, Stop>) {
        let r = self.exec.run(w, lds, max);
        if let Some(mut rec) = self.exec.take_recording() {
            rec.access_waves = vec![(w.workgroup, w.index); rec.accesses.len()];
            self.log.merge(&rec);
            self.exec.enable_recording();
        }
        r
    }
    fn out_of_steps(&mut self, w: &Wave) -> Stop {
        self.exec.out_of_steps(w)
    }
    fn barrier_release(&mut self, waves: &[Wave]) {
        self.exec.barrier_release(waves);
    }
    fn expired(&mut self) -> bool {
        self.exec.expired()
    }
    fn timed_out(&mut self, waves: &[Wave]) -> Stop {
        self.exec.timed_out(waves)
    }
}

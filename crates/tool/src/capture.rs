//! Capture mode (`LATHE_TOOL_CAPTURE=DIR`, issue 22, decision D32): a
//! capsule of each selected dispatch, taken through the public HSA API
//! only, so it works on ROCr with a real GPU as on Lathe's runtime.
//!
//! The library wraps `hsa_amd_memory_pool_allocate`/`_free` and
//! `hsa_memory_allocate`/`_free` to know every live allocation. On a
//! selected dispatch (an intercepted packet) it drains the queue with a
//! barrier packet, copies every recorded allocation and the kernel's code
//! object segments with `hsa_memory_copy`, submits the packet with its own
//! completion signal, waits, copies them again, writes the capsule with
//! `lathe_capsule::write` and then completes the application's signal.
//! Every allocation is stored whole (the runtime cannot know which pages
//! the kernel touched).

use std::collections::{BTreeMap, HashMap};
use std::ffi::c_void;
use std::sync::Mutex;

use lathe_capsule::{write, Allocation, Manifest, Original};

use crate::api::{self, Handle, Status, Writer, SUCCESS};
use crate::state::{lock, state, KernelInfo, State};

const PACKET_TYPE_BARRIER_AND: u16 = 3;
const POOL_INFO_GLOBAL_FLAGS: u32 = 1;
const POOL_FLAG_FINE_GRAINED: u32 = 2;
const AGENT_INFO_DEVICE: u32 = 17;
const DEVICE_TYPE_CPU: u32 = 0;
const PT_LOAD: u32 = 1;
/// The most memory one capture copies (each of before and after).
const MAX_BYTES: u64 = 4 << 30;

/// The wrappers capture mode installs.
pub const WRAPPERS: api::AllocWrappers = api::AllocWrappers {
    pool_allocate,
    pool_free,
    memory_allocate,
    memory_free,
    memory_lock,
    memory_lock_to_pool,
    memory_unlock,
};

/// Live allocations: base → (size, kind).
static ALLOCS: Mutex<BTreeMap<u64, (u64, String)>> = Mutex::new(BTreeMap::new());
/// Locked host memory: host address → its device alias (a key of
/// `ALLOCS`, kind `host-locked`).
static LOCKED: Mutex<BTreeMap<u64, u64>> = Mutex::new(BTreeMap::new());
/// Pool → its kind (`gpu-fine`, …), learnt from the agents' pools.
static POOL_KINDS: Mutex<Option<HashMap<u64, String>>> = Mutex::new(None);

extern "C" fn note_pool(pool: Handle, data: *mut c_void) -> Status {
    let Some(st) = state() else { return SUCCESS };
    // SAFETY: `data` is the `(bool, HashMap)` `pool_kind` passed.
    let (cpu, map) = unsafe { &mut *(data as *mut (bool, HashMap<u64, String>)) };
    let mut flags = 0u32;
    (st.api.pool_get_info)(
        pool,
        POOL_INFO_GLOBAL_FLAGS,
        &mut flags as *mut u32 as *mut c_void,
    );
    let grain = if flags & POOL_FLAG_FINE_GRAINED != 0 {
        "fine"
    } else {
        "coarse"
    };
    let dev = if *cpu { "cpu" } else { "gpu" };
    map.insert(pool.handle, format!("{dev}-{grain}"));
    SUCCESS
}

extern "C" fn note_agent(agent: Handle, data: *mut c_void) -> Status {
    let Some(st) = state() else { return SUCCESS };
    // SAFETY: as in `note_pool`.
    let pair = unsafe { &mut *(data as *mut (bool, HashMap<u64, String>)) };
    let mut dev = u32::MAX;
    (st.api.agent_get_info)(
        agent,
        AGENT_INFO_DEVICE,
        &mut dev as *mut u32 as *mut c_void,
    );
    pair.0 = dev == DEVICE_TYPE_CPU;
    (st.api.iterate_pools)(agent, note_pool, data);
    SUCCESS
}

/// The kind of allocations from `pool`.
fn pool_kind(st: &State, pool: Handle) -> String {
    let mut kinds = lock(&POOL_KINDS);
    let map = kinds.get_or_insert_with(|| {
        let mut pair: (bool, HashMap<u64, String>) = (false, HashMap::new());
        (st.api.iterate_agents)(
            note_agent,
            &mut pair as *mut (bool, HashMap<u64, String>) as *mut c_void,
        );
        pair.1
    });
    map.get(&pool.handle)
        .cloned()
        .unwrap_or_else(|| "gpu-coarse".into())
}

extern "C" fn pool_allocate(
    pool: Handle,
    size: usize,
    flags: u32,
    ptr: *mut *mut c_void,
) -> Status {
    let Some(st) = state() else {
        return api::SUCCESS;
    };
    let s = (st.api.pool_allocate)(pool, size, flags, ptr);
    if s == SUCCESS && !ptr.is_null() {
        // SAFETY: written by the runtime on success.
        let p = unsafe { *ptr } as u64;
        let kind = pool_kind(st, pool);
        lock(&ALLOCS).insert(p, (size as u64, kind));
    }
    s
}

extern "C" fn pool_free(ptr: *mut c_void) -> Status {
    let Some(st) = state() else {
        return api::SUCCESS;
    };
    lock(&ALLOCS).remove(&(ptr as u64));
    (st.api.pool_free)(ptr)
}

extern "C" fn memory_allocate(region: Handle, size: usize, ptr: *mut *mut c_void) -> Status {
    let Some(st) = state() else {
        return api::SUCCESS;
    };
    let s = (st.api.memory_allocate)(region, size, ptr);
    if s == SUCCESS && !ptr.is_null() {
        // SAFETY: written by the runtime on success.
        let p = unsafe { *ptr } as u64;
        // A region's owner is not asked: its memory is device memory to
        // the replay.
        lock(&ALLOCS).insert(p, (size as u64, "gpu-coarse".into()));
    }
    s
}

extern "C" fn memory_free(ptr: *mut c_void) -> Status {
    let Some(st) = state() else {
        return api::SUCCESS;
    };
    lock(&ALLOCS).remove(&(ptr as u64));
    (st.api.memory_free)(ptr)
}

/// Notes locked host memory at its device alias after a lock succeeded.
fn note_locked(s: Status, host: *mut c_void, size: usize, agent_ptr: *mut *mut c_void) -> Status {
    if s == SUCCESS && !agent_ptr.is_null() && size > 0 {
        // SAFETY: written by the runtime on success.
        let dev = unsafe { *agent_ptr } as u64;
        if dev != 0 {
            lock(&LOCKED).insert(host as u64, dev);
            lock(&ALLOCS).insert(dev, (size as u64, "host-locked".into()));
        }
    }
    s
}

extern "C" fn memory_lock(
    host: *mut c_void,
    size: usize,
    agents: *const Handle,
    n: i32,
    agent_ptr: *mut *mut c_void,
) -> Status {
    let Some(st) = state() else {
        return api::SUCCESS;
    };
    let s = (st.api.memory_lock)(host, size, agents, n, agent_ptr);
    note_locked(s, host, size, agent_ptr)
}

extern "C" fn memory_lock_to_pool(
    host: *mut c_void,
    size: usize,
    agents: *const Handle,
    n: i32,
    pool: Handle,
    flags: u32,
    agent_ptr: *mut *mut c_void,
) -> Status {
    let Some(st) = state() else {
        return api::SUCCESS;
    };
    let s = (st.api.memory_lock_to_pool)(host, size, agents, n, pool, flags, agent_ptr);
    note_locked(s, host, size, agent_ptr)
}

extern "C" fn memory_unlock(host: *mut c_void) -> Status {
    let Some(st) = state() else {
        return api::SUCCESS;
    };
    if let Some(dev) = lock(&LOCKED).remove(&(host as u64)) {
        lock(&ALLOCS).remove(&dev);
    }
    (st.api.memory_unlock)(host)
}

type LcoIterate = extern "C" fn(
    Handle,
    extern "C" fn(Handle, Handle, *mut c_void) -> Status,
    *mut c_void,
) -> Status;

/// `hsa_ven_amd_loader_1_01_pfn_t`, the part used here (entries the
/// runtime leaves empty are `None`).
#[repr(C)]
#[derive(Clone, Copy)]
struct LoaderTable {
    query_host_address: *const c_void,
    query_segment_descriptors: *const c_void,
    query_executable: Option<extern "C" fn(*const c_void, *mut Handle) -> Status>,
    iterate_loaded_code_objects: Option<LcoIterate>,
    loaded_code_object_get_info: Option<extern "C" fn(Handle, u32, *mut c_void) -> Status>,
}

const EXTENSION_AMD_LOADER: u16 = 0x201;
const LCO_INFO_AGENT: u32 = 3;
const LCO_INFO_STORAGE_TYPE: u32 = 4;
const LCO_INFO_STORAGE_MEMORY_BASE: u32 = 5;
const LCO_INFO_STORAGE_MEMORY_SIZE: u32 = 6;
const LCO_INFO_LOAD_DELTA: u32 = 8;
const STORAGE_TYPE_MEMORY: u32 = 2;

extern "C" fn collect_lco(_exe: Handle, lco: Handle, data: *mut c_void) -> Status {
    // SAFETY: `data` is the `Vec<Handle>` `code_objects` passed.
    let v = unsafe { &mut *(data as *mut Vec<Handle>) };
    v.push(lco);
    SUCCESS
}

/// One code object of the kernel's executable: its load delta and bytes.
struct Loaded {
    delta: u64,
    bytes: std::sync::Arc<Vec<u8>>,
}

/// The code objects loaded for the kernel's agent into the executable
/// holding the kernel object `ko`, in load order, through the AMD loader
/// extension (public API on ROCr): each one's load delta, and its bytes
/// (the loader's in-memory storage, else what the reader wrappers kept
/// for that executable, in the same order). `None` when the extension is
/// missing or does not know the kernel.
fn code_objects(st: &State, ko: u64, k: &KernelInfo) -> Option<Vec<Loaded>> {
    let mut t = std::mem::MaybeUninit::<LoaderTable>::zeroed();
    let r = (st.api.major_extension_table)(
        EXTENSION_AMD_LOADER,
        1,
        std::mem::size_of::<LoaderTable>(),
        t.as_mut_ptr() as *mut c_void,
    );
    if r != SUCCESS {
        return None;
    }
    // SAFETY: zeroed is a valid `LoaderTable` (raw pointers and optional
    // function pointers: null is `None`), and the runtime wrote only
    // function pointers of these C types over it.
    let t = unsafe { t.assume_init() };
    let (Some(query), Some(iterate), Some(get_info)) = (
        t.query_executable,
        t.iterate_loaded_code_objects,
        t.loaded_code_object_get_info,
    ) else {
        return None;
    };
    let mut exe = Handle::default();
    if query(ko as *const c_void, &mut exe) != SUCCESS {
        return None;
    }
    let mut lcos: Vec<Handle> = Vec::new();
    if iterate(
        exe,
        collect_lco,
        &mut lcos as *mut Vec<Handle> as *mut c_void,
    ) != SUCCESS
    {
        return None;
    }
    let kept = lock(&st.loaded)
        .get(&exe.handle)
        .cloned()
        .unwrap_or_default();
    let info = |l: Handle, attr: u32| -> Option<u64> {
        let mut v = 0u64;
        (get_info(l, attr, &mut v as *mut u64 as *mut c_void) == SUCCESS).then_some(v)
    };
    let mut out = Vec::new();
    for (i, &l) in lcos.iter().enumerate() {
        if info(l, LCO_INFO_AGENT).is_some_and(|a| a != k.agent.handle) {
            continue;
        }
        let delta = info(l, LCO_INFO_LOAD_DELTA)?;
        let storage = info(l, LCO_INFO_STORAGE_TYPE).map(|v| v as u32);
        let bytes = match (
            storage,
            info(l, LCO_INFO_STORAGE_MEMORY_BASE),
            info(l, LCO_INFO_STORAGE_MEMORY_SIZE),
        ) {
            (Some(STORAGE_TYPE_MEMORY), Some(base), Some(size)) if base != 0 && size != 0 => {
                // SAFETY: the loader's own copy of the loaded code object,
                // `size` readable host bytes for as long as the executable
                // lives (it runs the kernel being captured).
                let b = unsafe { std::slice::from_raw_parts(base as *const u8, size as usize) };
                std::sync::Arc::new(b.to_vec())
            }
            _ => kept.get(i)?.1.clone(),
        };
        out.push(Loaded { delta, bytes });
    }
    Some(out)
}

/// Where the intercepted packet is: the application's queue (an
/// `hsa_queue_t`) and the packet's index in it.
#[derive(Debug, Clone, Copy)]
pub struct Where {
    /// The `hsa_queue_t` the application writes to.
    pub queue: u64,
    /// The packet's index.
    pub index: u64,
}

/// Prints `msg` on stderr once per process.
fn warn_once(msg: &str) {
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
        eprintln!("lathe-tool: capture: {msg}");
    }
}

fn copy_out(st: &State, a: &Allocation) -> Result<Vec<u8>, String> {
    let mut v = vec![0u8; a.size as usize];
    let r = (st.api.memory_copy)(
        v.as_mut_ptr() as *mut c_void,
        a.base as *const c_void,
        v.len(),
    );
    if r != SUCCESS {
        return Err(format!(
            "copying {} bytes of the {} allocation at {:#x}: {}",
            a.size,
            a.kind,
            a.base,
            st.api.status(r)
        ));
    }
    Ok(v)
}

/// Captures launch `index` (packet `p`, kernel `k` at `ko`) into a capsule
/// under the capture directory; the packet always runs and the
/// application's completion signal is always completed.
pub(crate) fn dispatch(
    st: &State,
    index: u64,
    ko: u64,
    k: &KernelInfo,
    p: &[u8; 64],
    at: Where,
    writer: Writer,
) -> Result<(), String> {
    let app_signal = u64::from_le_bytes(p[56..64].try_into().unwrap_or([0; 8]));
    let r = capture(st, index, ko, k, p, at, writer);
    if r.is_err() && !r.as_ref().is_err_and(|e| e.starts_with(SUBMITTED)) {
        // Not submitted: run the packet as the application wrote it.
        writer(p.as_ptr() as *const c_void, 1);
        return r.map(|_| ());
    }
    if app_signal != 0 {
        (st.api.signal_subtract_screlease)(Handle { handle: app_signal }, 1);
    }
    r.map(|_| ())
}

/// How an error after the packet was submitted starts.
const SUBMITTED: &str = "after the dispatch: ";

fn capture(
    st: &State,
    index: u64,
    ko: u64,
    k: &KernelInfo,
    p: &[u8; 64],
    at: Where,
    writer: Writer,
) -> Result<(), String> {
    let dir = st.cfg.capture.as_ref().ok_or("capture mode is off")?;
    let co = lathe_codeobj::CodeObject::parse(&k.code).map_err(|e| e.to_string())?;
    let target = co
        .target()
        .ok_or("the kernel's code object names no target")?
        .to_string();
    let kd = co
        .find_elf_symbol(&format!("{}.kd", k.mangled))
        .ok_or_else(|| format!("the code object has no symbol {}.kd", k.mangled))?
        .value;
    // Every code object of the kernel's executable (device functions in
    // other code objects), else the kernel's own.
    let objects = match code_objects(st, ko, k) {
        Some(v) if v.iter().any(|l| l.delta == ko.wrapping_sub(kd)) => v,
        _ => {
            warn_once(
                "the AMD loader extension does not list the kernel's executable; only the \
                 kernel's own code object is captured",
            );
            vec![Loaded {
                delta: ko.wrapping_sub(kd),
                bytes: k.code.clone(),
            }]
        }
    };
    let mut spans = Vec::with_capacity(objects.len());
    for l in &objects {
        let span = lathe_codeobj::CodeObject::parse(&l.bytes)
            .map_err(|e| format!("a code object of the kernel's executable: {e}"))?
            .segments()
            .iter()
            .filter(|s| s.p_type == PT_LOAD)
            .map(|s| s.vaddr.saturating_add(s.memsz))
            .max()
            .ok_or("a code object of the kernel's executable has no loadable segment")?;
        spans.push((l.delta, span));
    }
    let (guard, sig) = st.serialize()?;
    let wait = || st.wait_below_one(sig);
    // Drain the queue: earlier dispatches' writes are done before the
    // before-copy.
    let mut b = [0u8; 64];
    let hdr: u16 = PACKET_TYPE_BARRIER_AND | (1 << 8) | (2 << 9) | (2 << 11);
    b[0..2].copy_from_slice(&hdr.to_le_bytes());
    b[56..64].copy_from_slice(&sig.handle.to_le_bytes());
    (st.api.signal_store_relaxed)(sig, 1);
    writer(b.as_ptr() as *const c_void, 1);
    wait();

    // The application's queue: the public `hsa_queue_t` (base_address at
    // 8, size at 24); the packet's slot in its ring.
    let mut hq = [0u8; 64];
    if at.queue != 0 {
        // SAFETY: `at.queue` is the live `hsa_queue_t` the interceptor was
        // registered for, 64 host-readable bytes by the HSA ABI.
        unsafe { std::ptr::copy_nonoverlapping(at.queue as *const u8, hq.as_mut_ptr(), 64) };
    }
    let ring = u64::from_le_bytes(hq[8..16].try_into().unwrap_or([0; 8]));
    let slots = u64::from(u32::from_le_bytes(hq[24..28].try_into().unwrap_or([0; 4])));
    let packet_address = if ring != 0 && slots != 0 {
        ring + (at.index % slots) * 64
    } else {
        return Err("the application's queue has no ring buffer".into());
    };

    let recorded: Vec<Allocation> = lock(&ALLOCS)
        .iter()
        .map(|(&base, (size, kind))| Allocation {
            base,
            size: *size,
            kind: kind.clone(),
        })
        .collect();
    let kernarg_address = u64::from_le_bytes(p[40..48].try_into().unwrap_or([0; 8]));
    let layout = write::layout(&spans, recorded, at.queue, packet_address, kernarg_address)
        .map_err(|i| {
            format!("code object {i} of the kernel's executable overlaps another allocation")
        })?;
    let kernel_code = objects
        .iter()
        .position(|l| l.delta == ko.wrapping_sub(kd))
        .ok_or("the kernel's code object is not in its executable")?;
    let allocations = &layout.allocations;
    // Before and after images of everything are held in host memory.
    let total: u64 = allocations.iter().map(|a| a.size).sum();
    if total > MAX_BYTES {
        return Err(format!(
            "the {} recorded allocations hold {total} bytes, more than the {MAX_BYTES} a \
             capsule of whole allocations may copy; the launch ran uncaptured",
            allocations.len()
        ));
    }
    let mut queue_bytes = hq.to_vec();
    queue_bytes.resize(256, 0);
    let read = |a: &Allocation| -> Result<Vec<u8>, String> {
        match a.kind.as_str() {
            // The public part of the queue; the rest of `amd_queue_t` is
            // not the API's to read (zeros).
            "queue" => Ok(queue_bytes.clone()),
            "packet" => Ok(p.to_vec()),
            _ => copy_out(st, a),
        }
    };
    let before = allocations
        .iter()
        .map(read)
        .collect::<Result<Vec<_>, _>>()?;
    // The kernel descriptor's `kernarg_size` (bytes 8..12).
    let kernarg_size = before[layout.code_at[kernel_code]]
        .get(kd as usize + 8..kd as usize + 12)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        as usize;
    let kernarg = allocations
        .iter()
        .zip(&before)
        .find(|(a, _)| a.kind == "kernarg")
        .map(|(a, b)| {
            let off = (kernarg_address - a.base) as usize;
            b[off..b.len().min(off + kernarg_size)].to_vec()
        })
        .unwrap_or_default();

    // The dispatch, with our completion signal.
    let mut q = *p;
    q[56..64].copy_from_slice(&sig.handle.to_le_bytes());
    (st.api.signal_store_relaxed)(sig, 1);
    let t0 = std::time::Instant::now();
    writer(q.as_ptr() as *const c_void, 1);
    wait();
    let seconds = t0.elapsed().as_secs_f64();
    let mut after = Vec::with_capacity(allocations.len());
    for (a, b) in allocations.iter().zip(&before) {
        after.push(if write::host_owned(&a.kind) {
            b.clone()
        } else {
            copy_out(st, a).map_err(|e| format!("{SUBMITTED}{e}"))?
        });
    }
    drop(guard);

    let sizes: Vec<u64> = objects.iter().map(|l| l.bytes.len() as u64).collect();
    let manifest = Manifest::new(
        write::Dispatch {
            target,
            launch: index,
            kernel: k.mangled.clone(),
            kernel_object: ko,
            packet: p,
            packet_address,
            queue_address: at.queue,
            dispatch_id: at.index,
            kernarg: &kernarg,
            original: Original {
                seconds,
                wave_instructions: 0,
                threads: 0,
                stopped: None,
            },
        },
        layout,
        &sizes,
    );
    let path = dir.join(write::capsule_name(index, &k.demangled));
    write::write(
        &path,
        write::Captured {
            manifest,
            code_objects: objects.iter().map(|l| l.bytes.as_slice()).collect(),
            before,
            after,
            known: None,
        },
    )
    .map_err(|e| format!("{SUBMITTED}writing {}: {e}", path.display()))?;
    eprintln!(
        "lathe-tool: captured launch {index} of {} to {}",
        k.demangled,
        path.display()
    );
    Ok(())
}

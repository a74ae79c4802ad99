//! Memory pools, allocations, locked host memory, pointer queries and
//! copies. Memory is APU-style: every allocation is the emulator's device
//! memory and its device address is its host address.

use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};

use lathe_emu::mem::{MemError, RegionKind};

use crate::ffi::*;
use crate::out::{get, get_slice, put};
use crate::rt::{self, h, lock, rt, Alloc, AllocKind, AGENT_CPU, AGENT_GPU};
use crate::rt::{POOL_CPU_COARSE, POOL_CPU_FINE, POOL_GPU_COARSE, POOL_GPU_FINE, POOL_GPU_GROUP};
use crate::signal;

pub type PoolCallback = Option<extern "C" fn(Pool, *mut c_void) -> Status>;

fn pools_of(agent: u64) -> &'static [u64] {
    match agent {
        AGENT_CPU => &[POOL_CPU_FINE, POOL_CPU_COARSE],
        AGENT_GPU => &[POOL_GPU_COARSE, POOL_GPU_FINE, POOL_GPU_GROUP],
        _ => &[],
    }
}

fn is_pool(p: u64) -> bool {
    [
        POOL_CPU_FINE,
        POOL_CPU_COARSE,
        POOL_GPU_COARSE,
        POOL_GPU_FINE,
        POOL_GPU_GROUP,
    ]
    .contains(&p)
}

fn pool_owner(p: u64) -> u64 {
    if p == POOL_CPU_FINE || p == POOL_CPU_COARSE {
        AGENT_CPU
    } else {
        AGENT_GPU
    }
}

fn host_memory_bytes() -> u64 {
    // SAFETY: sysconf has no memory-safety preconditions.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages.max(0) as u64).saturating_mul(size.max(0) as u64)
}

pub fn agent_iterate_memory_pools(agent: Agent, cb: PoolCallback, data: *mut c_void) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    if !rt::is_agent(agent) {
        return ERROR_INVALID_AGENT;
    }
    let Some(cb) = cb else {
        return ERROR_INVALID_ARGUMENT;
    };
    for &p in pools_of(agent.handle) {
        match cb(h(p), data) {
            SUCCESS => {}
            INFO_BREAK => return SUCCESS,
            s => return s,
        }
    }
    SUCCESS
}

pub fn memory_pool_get_info(pool: Pool, attr: u32, value: *mut c_void) -> Status {
    let Some(r) = rt() else {
        return ERROR_NOT_INITIALIZED;
    };
    let p = pool.handle;
    if !is_pool(p) {
        return AMD_ERROR_INVALID_MEMORY_POOL;
    }
    let size = match p {
        POOL_GPU_GROUP => u64::from(r.gpu.spec.lds_bytes),
        POOL_GPU_COARSE | POOL_GPU_FINE => r.gpu.spec.memory_bytes,
        _ => host_memory_bytes(),
    };
    match attr {
        POOL_INFO_SEGMENT => put(
            value,
            if p == POOL_GPU_GROUP {
                AMD_SEGMENT_GROUP
            } else {
                AMD_SEGMENT_GLOBAL
            },
        ),
        POOL_INFO_GLOBAL_FLAGS => put(
            value,
            match p {
                POOL_CPU_FINE => POOL_FLAG_KERNARG_INIT | POOL_FLAG_FINE_GRAINED,
                POOL_GPU_FINE => POOL_FLAG_FINE_GRAINED,
                POOL_GPU_GROUP => 0,
                _ => POOL_FLAG_COARSE_GRAINED,
            },
        ),
        POOL_INFO_SIZE => put(value, size as usize),
        POOL_INFO_RUNTIME_ALLOC_ALLOWED => put(value, p != POOL_GPU_GROUP),
        POOL_INFO_RUNTIME_ALLOC_GRANULE | POOL_INFO_RUNTIME_ALLOC_ALIGNMENT => {
            put(value, if p == POOL_GPU_GROUP { 0usize } else { 4096 })
        }
        POOL_INFO_ACCESSIBLE_BY_ALL => put(value, p == POOL_CPU_FINE || p == POOL_GPU_FINE),
        POOL_INFO_ALLOC_MAX_SIZE => put(value, size as usize),
        _ => crate::trace::fail(
            ERROR_INVALID_ARGUMENT,
            format!("hsa_amd_memory_pool_get_info: attribute {attr} is not modelled"),
        ),
    }
}

pub fn agent_memory_pool_get_info(
    agent: Agent,
    pool: Pool,
    attr: u32,
    value: *mut c_void,
) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    if !rt::is_agent(agent) {
        return ERROR_INVALID_AGENT;
    }
    if !is_pool(pool.handle) {
        return AMD_ERROR_INVALID_MEMORY_POOL;
    }
    let own = pool_owner(pool.handle) == agent.handle;
    match attr {
        AGENT_POOL_INFO_ACCESS => put(
            value,
            if own || pool.handle == POOL_CPU_FINE {
                ACCESS_ALLOWED_BY_DEFAULT
            } else if pool.handle == POOL_GPU_GROUP {
                ACCESS_NEVER_ALLOWED
            } else {
                ACCESS_DISALLOWED_BY_DEFAULT
            },
        ),
        AGENT_POOL_INFO_NUM_LINK_HOPS => put(value, if own { 0u32 } else { 1 }),
        AGENT_POOL_INFO_LINK_INFO => {
            if own {
                return SUCCESS;
            }
            put(
                value,
                LinkInfo {
                    min_latency: 0,
                    max_latency: 0,
                    min_bandwidth: 0,
                    max_bandwidth: 0,
                    atomic_support_32bit: true,
                    atomic_support_64bit: true,
                    coherent_support: true,
                    // HSA_AMD_LINK_INFO_TYPE_PCIE.
                    link_type: 1,
                    numa_distance: 20,
                },
            )
        }
        _ => ERROR_INVALID_ARGUMENT,
    }
}

fn mem_status(e: MemError) -> Status {
    match e {
        MemError::OutOfMemory(_) => ERROR_OUT_OF_RESOURCES,
        _ => ERROR_INVALID_ALLOCATION,
    }
}

pub fn memory_pool_allocate(pool: Pool, size: usize, flags: u32, ptr: *mut *mut c_void) -> Status {
    let Some(r) = rt() else {
        return ERROR_NOT_INITIALIZED;
    };
    let _ = flags;
    let p = pool.handle;
    if !is_pool(p) {
        return AMD_ERROR_INVALID_MEMORY_POOL;
    }
    if p == POOL_GPU_GROUP {
        return crate::trace::fail(
            ERROR_INVALID_ALLOCATION,
            "the group pool is not allocatable",
        );
    }
    if size == 0 || ptr.is_null() {
        return ERROR_INVALID_ARGUMENT;
    }
    let kind = if pool_owner(p) == AGENT_GPU {
        RegionKind::Device
    } else {
        RegionKind::Host
    };
    let len = (size as u64).next_multiple_of(4096);
    // The sanitizer (`lathe exec --check`): the requested size bounds
    // memcheck, freed regions are kept, and device memory (the coarse
    // pool hipMalloc uses, which only the device and copies write) gets
    // initcheck's shadow.
    let checks = crate::check::checks();
    if checks.memcheck {
        r.mem.set_quarantine(true);
    }
    let shadow = checks.initcheck && p == POOL_GPU_COARSE;
    match r.mem.allocate_sized(len, size as u64, 4096, kind, shadow) {
        Ok(a) => {
            lock(&r.allocs).insert(
                a,
                Alloc {
                    size: size as u64,
                    kind: AllocKind::Pool(p),
                    user_data: 0,
                    device: a,
                },
            );
            put(ptr as *mut c_void, a as *mut c_void)
        }
        Err(e) => crate::trace::fail(
            mem_status(e.clone()),
            format!("hsa_amd_memory_pool_allocate({size}): {e}"),
        ),
    }
}

pub fn memory_pool_free(ptr: *mut c_void) -> Status {
    let Some(r) = rt_or_any() else {
        return ERROR_NOT_INITIALIZED;
    };
    let a = ptr as u64;
    if a == 0 {
        return SUCCESS;
    }
    let mut t = lock(&r.allocs);
    match t.get(&a) {
        Some(Alloc {
            kind: AllocKind::Pool(_),
            ..
        }) => {
            t.remove(&a);
            drop(t);
            let _ = r.mem.free(a);
            SUCCESS
        }
        _ => crate::trace::fail(
            ERROR_INVALID_ALLOCATION,
            format!("hsa_amd_memory_pool_free: {a:#x} is not a pool allocation"),
        ),
    }
}

fn rt_or_any() -> Option<&'static rt::Runtime> {
    rt().or_else(rt::rt_any)
}

pub fn agents_allow_access(
    n: u32,
    agents: *const Agent,
    flags: *const u32,
    ptr: *const c_void,
) -> Status {
    let Some(r) = rt() else {
        return ERROR_NOT_INITIALIZED;
    };
    let _ = flags;
    let Some(list) = get_slice(agents, n as usize) else {
        return ERROR_INVALID_ARGUMENT;
    };
    if n == 0 || list.iter().any(|a| !rt::is_agent(*a)) {
        return ERROR_INVALID_AGENT;
    }
    if r.mem.find(ptr as u64, 1).is_none() {
        return crate::trace::fail(
            ERROR_INVALID_ARGUMENT,
            format!("hsa_amd_agents_allow_access: {ptr:?} is not allocated"),
        );
    }
    SUCCESS
}

const ALIAS_PAGE: u64 = 4096;

/// Bytes reserved for a locked range's alias at page offset `offset`: its
/// pages, then a guard no region holds, as after every pool allocation
/// ([`lathe_emu::mem::GUARD`], D63), so a device access past the end of
/// locked memory faults instead of landing in whatever was mapped next.
fn alias_span(offset: u64, size: u64) -> u64 {
    offset
        .checked_add(size)
        .and_then(|n| n.checked_next_multiple_of(ALIAS_PAGE))
        .and_then(|n| n.checked_add(lathe_emu::mem::GUARD))
        // No such reservation exists: `mmap` refuses it.
        .unwrap_or(u64::MAX)
}

/// Locks `[host, host+size)`: the GPU reaches it at an alias address in
/// reserved (inaccessible to the host) address space, with the same page
/// offset. Returns the alias.
fn lock_range(host: u64, size: u64) -> Result<u64, Status> {
    let r = rt().ok_or(ERROR_NOT_INITIALIZED)?;
    if host == 0 || size == 0 {
        return Err(ERROR_INVALID_ARGUMENT);
    }
    let mut t = lock(&r.allocs);
    if let Some(a) = t.get_mut(&host) {
        if let AllocKind::Locked(n) = &mut a.kind {
            if a.size >= size {
                *n += 1;
                return Ok(a.device);
            }
        }
    }
    // Memory that is already device memory (a pool allocation) needs no
    // locking: the GPU reaches it at its own address.
    if r.mem.find(host, size).is_some() {
        return Ok(host);
    }
    let offset = host % ALIAS_PAGE;
    let span = alias_span(offset, size);
    // SAFETY: an anonymous PROT_NONE reservation; it only claims address
    // space so no host allocation can ever sit at the alias, nor in the
    // guard after it (D63).
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            span as usize,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return Err(ERROR_OUT_OF_RESOURCES);
    }
    let device = base as u64 + offset;
    // SAFETY: the caller of hsa_amd_memory_lock promises the range is valid
    // host memory until hsa_amd_memory_unlock, which unregisters it.
    match unsafe {
        r.mem
            .register_host_alias(device, host as *mut u8, size, true, RegionKind::Host)
    } {
        Ok(_) => {
            t.insert(
                host,
                Alloc {
                    size,
                    kind: AllocKind::Locked(1),
                    user_data: 0,
                    device,
                },
            );
            lock(&r.aliases).insert(device, (host, size));
            Ok(device)
        }
        Err(e) => {
            // SAFETY: unmapping the reservation made above.
            unsafe { libc::munmap(base, span as usize) };
            Err(crate::trace::fail(
                ERROR_INVALID_ARGUMENT,
                format!("hsa_amd_memory_lock({host:#x}, {size}): {e}"),
            ))
        }
    }
}

/// The host address of `addr` (itself unless it is in a locked alias).
pub fn to_host(addr: u64) -> u64 {
    let Some(r) = rt::rt_any() else { return addr };
    let a = lock(&r.aliases);
    match a.range(..=addr).next_back() {
        Some((&dev, &(host, size))) if addr < dev + size => host + (addr - dev),
        _ => addr,
    }
}

pub fn memory_lock(
    host: *mut c_void,
    size: usize,
    agents: *const Agent,
    n: i32,
    agent_ptr: *mut *mut c_void,
) -> Status {
    let _ = (agents, n);
    match lock_range(host as u64, size as u64) {
        Ok(a) => put(agent_ptr as *mut c_void, a as *mut c_void),
        Err(s) => s,
    }
}

pub fn memory_lock_to_pool(
    host: *mut c_void,
    size: usize,
    agents: *const Agent,
    n: i32,
    pool: Pool,
    flags: u32,
    agent_ptr: *mut *mut c_void,
) -> Status {
    let _ = flags;
    if !is_pool(pool.handle) {
        return AMD_ERROR_INVALID_MEMORY_POOL;
    }
    memory_lock(host, size, agents, n, agent_ptr)
}

pub fn memory_unlock(host: *mut c_void) -> Status {
    let Some(r) = rt_or_any() else {
        return ERROR_NOT_INITIALIZED;
    };
    let a = host as u64;
    let mut t = lock(&r.allocs);
    if let Some(e) = t.get_mut(&a) {
        if let AllocKind::Locked(n) = &mut e.kind {
            *n -= 1;
            if *n == 0 {
                let device = e.device;
                let size = e.size;
                t.remove(&a);
                drop(t);
                lock(&r.aliases).remove(&device);
                let _ = r.mem.free(device);
                // Under memcheck the freed region stays in the table
                // (quarantine): its reservation stays too, or the next
                // mapping placed there (a queue's ring, a pool
                // allocation) would collide with it and fail, which HIP
                // reports as out of memory (issue 20's hipStreamCreate
                // flake). A PROT_NONE reservation costs address space
                // only.
                if !crate::check::checks().memcheck {
                    let offset = device % ALIAS_PAGE;
                    // SAFETY: unmapping the reservation made in
                    // `lock_range`; the region using it was just removed
                    // from the table (no quarantine).
                    unsafe {
                        libc::munmap(
                            (device - offset) as *mut c_void,
                            alias_span(offset, size) as usize,
                        )
                    };
                }
            }
            return SUCCESS;
        }
    }
    // Unlocking memory that was never locked (or is device memory) is not
    // an error in ROCr.
    SUCCESS
}

pub fn memory_register(ptr: *mut c_void, size: usize) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    if ptr.is_null() || size == 0 {
        return ERROR_INVALID_ARGUMENT;
    }
    SUCCESS
}

pub fn memory_deregister(ptr: *mut c_void, size: usize) -> Status {
    memory_register(ptr, size)
}

pub fn pointer_info(
    ptr: *const c_void,
    info: *mut PointerInfo,
    alloc: Option<extern "C" fn(usize) -> *mut c_void>,
    num_agents: *mut u32,
    accessible: *mut *mut Agent,
) -> Status {
    let Some(r) = rt() else {
        return ERROR_NOT_INITIALIZED;
    };
    let Some(mut pi) = get(info as *const PointerInfo) else {
        return ERROR_INVALID_ARGUMENT;
    };
    if (pi.size as usize) < 8 {
        return ERROR_INVALID_ARGUMENT;
    }
    let a = to_host(ptr as u64);
    let t = lock(&r.allocs);
    let found = t
        .range(..=a)
        .next_back()
        .filter(|(s, al)| a < *s + al.size.max(1))
        .map(|(s, al)| (*s, *al));
    drop(t);
    let size = (pi.size as usize).min(std::mem::size_of::<PointerInfo>()) as u32;
    pi.size = size;
    match found {
        Some((start, al)) => {
            pi.type_ = match al.kind {
                AllocKind::Pool(_) => POINTER_TYPE_HSA,
                AllocKind::Locked(_) => POINTER_TYPE_LOCKED,
            };
            pi.agent_base_address = al.device as *mut c_void;
            pi.host_base_address = start as *mut c_void;
            pi.size_in_bytes = al.size as usize;
            pi.user_data = al.user_data as *mut c_void;
            pi.agent_owner = h(match al.kind {
                AllocKind::Pool(p) => pool_owner(p),
                AllocKind::Locked(_) => AGENT_CPU,
            });
            pi.global_flags = match al.kind {
                AllocKind::Pool(POOL_GPU_COARSE) | AllocKind::Pool(POOL_CPU_COARSE) => {
                    POOL_FLAG_COARSE_GRAINED
                }
                _ => POOL_FLAG_FINE_GRAINED,
            };
        }
        None => {
            pi.type_ = POINTER_TYPE_UNKNOWN;
            pi.agent_base_address = std::ptr::null_mut();
            pi.host_base_address = std::ptr::null_mut();
            pi.size_in_bytes = 0;
            pi.user_data = std::ptr::null_mut();
            pi.agent_owner = h(0);
            pi.global_flags = 0;
        }
    }
    // SAFETY: `info` is non-null (read above) and the caller set `size` to
    // the bytes it provides; only the first `size` bytes are written.
    unsafe {
        std::ptr::copy_nonoverlapping(
            &pi as *const PointerInfo as *const u8,
            info as *mut u8,
            size as usize,
        )
    };
    if !num_agents.is_null() || !accessible.is_null() {
        let agents: &[u64] = if found.is_some() {
            &[AGENT_CPU, AGENT_GPU]
        } else {
            &[]
        };
        if !num_agents.is_null() {
            put(num_agents as *mut c_void, agents.len() as u32);
        }
        if !accessible.is_null() {
            let Some(alloc) = alloc else {
                return ERROR_INVALID_ARGUMENT;
            };
            let p = alloc(agents.len().max(1) * std::mem::size_of::<Agent>()) as *mut Agent;
            if p.is_null() {
                return ERROR_OUT_OF_RESOURCES;
            }
            for (i, a) in agents.iter().enumerate() {
                // SAFETY: `p` was allocated by the caller's allocator for
                // `agents.len()` agents.
                unsafe { p.add(i).write_unaligned(h(*a)) };
            }
            put(accessible as *mut c_void, p);
        }
    }
    SUCCESS
}

pub fn pointer_info_set_userdata(ptr: *const c_void, data: *mut c_void) -> Status {
    let Some(r) = rt() else {
        return ERROR_NOT_INITIALIZED;
    };
    match lock(&r.allocs).get_mut(&(ptr as u64)) {
        Some(a) => {
            a.user_data = data as u64;
            SUCCESS
        }
        None => ERROR_INVALID_ARGUMENT,
    }
}

/// Copies host bytes (every address is a host address here).
fn copy_bytes(dst: u64, src: u64, size: usize) {
    if size == 0 || dst == src {
        return;
    }
    if crate::check::checks().initcheck {
        if let Some(r) = rt::rt_any() {
            r.mem.mark_written(dst, size as u64);
        }
    }
    let (dst, src) = (to_host(dst), to_host(src));
    // SAFETY: the HSA copy functions' contract: `src` and `dst` are valid
    // for `size` bytes (device memory is host memory in this runtime, and
    // locked-memory aliases were translated to their host bytes); `copy`
    // allows overlap.
    unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, size) };
}

pub fn memory_copy(dst: *mut c_void, src: *const c_void, size: usize) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    if size == 0 {
        return SUCCESS;
    }
    if dst.is_null() || src.is_null() {
        return ERROR_INVALID_ARGUMENT;
    }
    copy_bytes(dst as u64, src as u64, size);
    SUCCESS
}

pub fn memory_fill(ptr: *mut c_void, value: u32, count: usize) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    if count == 0 {
        return SUCCESS;
    }
    if ptr.is_null() || (ptr as usize) % 4 != 0 {
        return ERROR_INVALID_ARGUMENT;
    }
    if crate::check::checks().initcheck {
        if let Some(r) = rt::rt_any() {
            r.mem.mark_written(ptr as u64, count as u64 * 4);
        }
    }
    let p = to_host(ptr as u64) as *mut u32;
    for i in 0..count {
        // SAFETY: the caller provides `count` aligned u32s at `ptr` (its
        // host bytes, if `ptr` is a locked-memory alias).
        unsafe { p.add(i).write(value) };
    }
    SUCCESS
}

static COPIES_IN_FLIGHT: AtomicU32 = AtomicU32::new(0);

/// Runs `job` once every dependency signal is 0, then stamps and
/// decrements `completion`: inline when the dependencies are already
/// satisfied, else on a copy-engine thread.
fn submit(deps: Vec<Signal>, completion: Signal, job: impl FnOnce() + Send + 'static) {
    let ready = || deps.iter().all(|d| d.handle == 0 || signal::value(*d) == 0);
    let run = move || {
        let start = rt::now_ticks();
        job();
        let end = rt::now_ticks();
        if completion.handle != 0 {
            signal::set_timestamps(completion, start, end);
            signal::sub(completion, 1);
        }
    };
    if ready() {
        run();
        return;
    }
    COPIES_IN_FLIGHT.fetch_add(1, Ordering::AcqRel);
    std::thread::spawn(move || {
        let deps2 = deps.clone();
        rt::block_until(None, || {
            deps2
                .iter()
                .all(|d| d.handle == 0 || signal::value(*d) == 0)
                .then_some(())
        });
        run();
        COPIES_IN_FLIGHT.fetch_sub(1, Ordering::AcqRel);
    });
}

pub fn memory_async_copy(
    dst: *mut c_void,
    dst_agent: Agent,
    src: *const c_void,
    src_agent: Agent,
    size: usize,
    num_deps: u32,
    deps: *const Signal,
    completion: Signal,
) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    if !rt::is_agent(dst_agent) || !rt::is_agent(src_agent) {
        return ERROR_INVALID_AGENT;
    }
    if size > 0 && (dst.is_null() || src.is_null()) {
        return ERROR_INVALID_ARGUMENT;
    }
    let Some(deps) = get_slice(deps, num_deps as usize) else {
        return ERROR_INVALID_ARGUMENT;
    };
    if completion.handle != 0 && !signal::is_valid(completion) {
        return ERROR_INVALID_SIGNAL;
    }
    let (d, s) = (dst as u64, src as u64);
    submit(deps, completion, move || copy_bytes(d, s, size));
    SUCCESS
}

#[allow(clippy::too_many_arguments)]
pub fn memory_async_copy_rect(
    dst: *const PitchedPtr,
    dst_offset: *const Dim3,
    src: *const PitchedPtr,
    src_offset: *const Dim3,
    range: *const Dim3,
    copy_agent: Agent,
    dir: u32,
    num_deps: u32,
    deps: *const Signal,
    completion: Signal,
) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    let _ = dir;
    if !rt::is_agent(copy_agent) {
        return ERROR_INVALID_AGENT;
    }
    let (Some(d), Some(doff), Some(s), Some(soff), Some(rg)) = (
        get(dst),
        get(dst_offset),
        get(src),
        get(src_offset),
        get(range),
    ) else {
        return ERROR_INVALID_ARGUMENT;
    };
    let Some(deps) = get_slice(deps, num_deps as usize) else {
        return ERROR_INVALID_ARGUMENT;
    };
    if d.base.is_null() || s.base.is_null() || d.pitch < rg.x as usize || s.pitch < rg.x as usize {
        return ERROR_INVALID_ARGUMENT;
    }
    let (db, sb) = (d.base as u64, s.base as u64);
    let (dp, ds, sp, ss) = (
        d.pitch as u64,
        d.slice as u64,
        s.pitch as u64,
        s.slice as u64,
    );
    submit(deps, completion, move || {
        for z in 0..u64::from(rg.z) {
            for y in 0..u64::from(rg.y) {
                let so = sb
                    + (u64::from(soff.z) + z) * ss
                    + (u64::from(soff.y) + y) * sp
                    + u64::from(soff.x);
                let dd = db
                    + (u64::from(doff.z) + z) * ds
                    + (u64::from(doff.y) + y) * dp
                    + u64::from(doff.x);
                copy_bytes(dd, so, rg.x as usize);
            }
        }
    });
    SUCCESS
}

pub fn svm_attributes_set(ptr: *mut c_void, size: usize, attrs: *mut [u64; 2], n: usize) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    if ptr.is_null() || size == 0 || get_slice(attrs as *const [u64; 2], n).is_none() {
        return ERROR_INVALID_ARGUMENT;
    }
    SUCCESS
}

pub fn svm_attributes_get(ptr: *mut c_void, size: usize, attrs: *mut [u64; 2], n: usize) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    let Some(list) = get_slice(attrs as *const [u64; 2], n) else {
        return ERROR_INVALID_ARGUMENT;
    };
    if ptr.is_null() || size == 0 {
        return ERROR_INVALID_ARGUMENT;
    }
    for (i, [attr, _]) in list.into_iter().enumerate() {
        let v = match attr {
            SVM_ATTRIB_GLOBAL_FLAG => 1, // HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED
            SVM_ATTRIB_READ_ONLY | SVM_ATTRIB_HIVE_LOCAL | SVM_ATTRIB_READ_MOSTLY => 0,
            SVM_ATTRIB_MIGRATION_GRANULARITY => 9,
            SVM_ATTRIB_PREFERRED_LOCATION | SVM_ATTRIB_PREFETCH_LOCATION => AGENT_CPU,
            SVM_ATTRIB_GPU_EXEC => 1,
            SVM_ATTRIB_ACCESS_QUERY | SVM_ATTRIB_AGENT_ACCESSIBLE => {
                SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE
            }
            _ => return ERROR_INVALID_ARGUMENT,
        };
        // SAFETY: `attrs` holds `n` pairs (read above); write the value half.
        unsafe { (*attrs.add(i))[1] = v };
    }
    SUCCESS
}

pub fn svm_prefetch_async(
    ptr: *mut c_void,
    size: usize,
    agent: Agent,
    num_deps: u32,
    deps: *const Signal,
    completion: Signal,
) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    let _ = (ptr, size);
    if !rt::is_agent(agent) {
        return ERROR_INVALID_AGENT;
    }
    let Some(deps) = get_slice(deps, num_deps as usize) else {
        return ERROR_INVALID_ARGUMENT;
    };
    submit(deps, completion, || {});
    SUCCESS
}

pub fn coherency_get_type(agent: Agent, t: *mut u32) -> Status {
    if !rt::is_agent(agent) {
        return ERROR_INVALID_AGENT;
    }
    put(t as *mut c_void, 1u32)
}

pub fn coherency_set_type(agent: Agent, t: u32) -> Status {
    let _ = t;
    if !rt::is_agent(agent) {
        return ERROR_INVALID_AGENT;
    }
    SUCCESS
}

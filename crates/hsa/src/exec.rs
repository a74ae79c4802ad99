//! Code object readers, executables (`lathe-loader`), symbols (kernels,
//! variables, and device functions as indirect functions), the
//! kernel-descriptor → kernel map the queues dispatch from, and the AMD
//! loader extension (table 513).

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use lathe_codeobj::addr_map::AddrMap;
use lathe_loader::{KernelInfo, LoadedSymbol, SymbolKind};

use crate::ffi::*;
use crate::out::{get_cstr, put, put_bytes};
use crate::rt::{h, lock, rt, AGENT_GPU};

/// A kernel the queues can dispatch.
#[derive(Debug, Clone)]
pub struct KernelEntry {
    pub name: String,
    pub info: KernelInfo,
    /// Load delta of the code object holding the kernel (device address
    /// minus ELF virtual address), for ground-truth records.
    pub load_delta: i64,
    /// In a code object `lathe-tool` instrumented: the device addresses of
    /// the original kernel's instructions (its `.lathe.addr_map`), so
    /// `--stats` can count those and leave the probes out.
    pub original: Option<Arc<std::collections::HashSet<u64>>>,
}

#[derive(Debug)]
struct Exec {
    exe: lathe_loader::Executable,
    /// Loaded code object handles, by load index.
    lcos: Vec<u64>,
    /// Symbol handles, by symbol index (made at freeze).
    syms: Vec<u64>,
}

#[derive(Debug, Default)]
struct Registry {
    next: u64,
    readers: HashMap<u64, Arc<Vec<u8>>>,
    execs: HashMap<u64, Arc<Mutex<Exec>>>,
    /// Loaded code object handle → (executable, load index).
    lcos: HashMap<u64, (u64, usize)>,
    /// Symbol handle → (executable, symbol index).
    symbols: HashMap<u64, (u64, usize)>,
}

impl Registry {
    fn id(&mut self) -> u64 {
        self.next += 1;
        0x4c45_0000_0000 + self.next * 64
    }
}

fn reg() -> std::sync::MutexGuard<'static, Registry> {
    static R: OnceLock<Mutex<Registry>> = OnceLock::new();
    lock(R.get_or_init(|| Mutex::new(Registry::default())))
}

fn kernels() -> &'static RwLock<HashMap<u64, Arc<KernelEntry>>> {
    static K: OnceLock<RwLock<HashMap<u64, Arc<KernelEntry>>>> = OnceLock::new();
    K.get_or_init(|| RwLock::new(HashMap::new()))
}

/// The kernel whose descriptor is at `kd` (shared: a launch copies nothing).
pub fn kernel_at(kd: u64) -> Option<Arc<KernelEntry>> {
    kernels()
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .get(&kd)
        .cloned()
}

/// The code objects of the executable holding the kernel descriptor at
/// `kd`, in load order: (bytes, load base, load size). For `--capture`.
pub fn code_objects_with(kd: u64) -> Option<Vec<(Vec<u8>, u64, u64)>> {
    let execs: Vec<Arc<Mutex<Exec>>> = reg().execs.values().cloned().collect();
    execs.into_iter().find_map(|ex| {
        let x = lock(&ex);
        let cos = x.exe.code_objects();
        cos.iter()
            .any(|c| (c.load_base..c.load_base + c.load_size).contains(&kd))
            .then(|| {
                cos.iter()
                    .map(|c| (c.storage.clone(), c.load_base, c.load_size))
                    .collect()
            })
    })
}

fn exec_of(e: Executable) -> Option<Arc<Mutex<Exec>>> {
    reg().execs.get(&e.handle).cloned()
}

// Readers.

fn new_reader(bytes: Vec<u8>, out: *mut Reader) -> Status {
    if out.is_null() {
        return ERROR_INVALID_ARGUMENT;
    }
    let mut r = reg();
    let id = r.id();
    r.readers.insert(id, Arc::new(bytes));
    put(out as *mut c_void, h(id))
}

pub fn reader_create_from_memory(p: *const c_void, size: usize, out: *mut Reader) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    if p.is_null() || size == 0 || size > 1 << 32 {
        return ERROR_INVALID_ARGUMENT;
    }
    // SAFETY: the caller provides `size` readable bytes at `p`; they are
    // copied, so the reader does not depend on the caller's buffer.
    let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, size) }.to_vec();
    new_reader(bytes, out)
}

fn read_fd(fd: i32, offset: u64, size: Option<u64>) -> Result<Vec<u8>, Status> {
    if fd < 0 {
        return Err(ERROR_INVALID_FILE);
    }
    // SAFETY: dup of a caller-owned descriptor; the duplicate is owned by
    // the `File` and closed on drop, leaving the caller's fd untouched.
    let dup = unsafe { libc::dup(fd) };
    if dup < 0 {
        return Err(ERROR_INVALID_FILE);
    }
    use std::io::{Read, Seek, SeekFrom};
    use std::os::fd::FromRawFd;
    // SAFETY: `dup` is a fresh descriptor owned by nobody else.
    let mut f = unsafe { std::fs::File::from_raw_fd(dup) };
    let len = f.metadata().map_err(|_| ERROR_INVALID_FILE)?.len();
    let size = size
        .filter(|&s| s > 0)
        .unwrap_or(len.saturating_sub(offset));
    if offset.checked_add(size).is_none_or(|e| e > len) || size > 1 << 32 {
        return Err(ERROR_INVALID_FILE);
    }
    f.seek(SeekFrom::Start(offset))
        .map_err(|_| ERROR_INVALID_FILE)?;
    let mut v = vec![0u8; size as usize];
    f.read_exact(&mut v).map_err(|_| ERROR_INVALID_FILE)?;
    Ok(v)
}

pub fn reader_create_from_file(fd: i32, out: *mut Reader) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    match read_fd(fd, 0, None) {
        Ok(b) => new_reader(b, out),
        Err(e) => e,
    }
}

pub extern "C" fn reader_create_from_file_with_offset_size(
    fd: i32,
    offset: i64,
    size: usize,
    out: *mut Reader,
) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    if offset < 0 {
        return ERROR_INVALID_ARGUMENT;
    }
    match read_fd(fd, offset as u64, Some(size as u64)) {
        Ok(b) => new_reader(b, out),
        Err(e) => e,
    }
}

pub fn reader_destroy(r: Reader) -> Status {
    match reg().readers.remove(&r.handle) {
        Some(_) => SUCCESS,
        None => ERROR_INVALID_CODE_OBJECT_READER,
    }
}

// Executables.

pub fn executable_create_alt(
    profile: u32,
    rounding: u32,
    options: *const libc::c_char,
    out: *mut Executable,
) -> Status {
    let Some(r) = rt() else {
        return ERROR_NOT_INITIALIZED;
    };
    let _ = (rounding, options);
    if profile > 1 || out.is_null() {
        return ERROR_INVALID_ARGUMENT;
    }
    let mut g = reg();
    let id = g.id();
    g.execs.insert(
        id,
        Arc::new(Mutex::new(Exec {
            exe: lathe_loader::Executable::new(r.gpu.target_id).rela_dyn_only(rela_dyn_only()),
            lcos: Vec::new(),
            syms: Vec::new(),
        })),
    );
    put(out as *mut c_void, h(id))
}

pub fn executable_create(
    profile: u32,
    state: u32,
    options: *const libc::c_char,
    out: *mut Executable,
) -> Status {
    let _ = state;
    executable_create_alt(profile, 1, options, out)
}

pub fn executable_destroy(e: Executable) -> Status {
    let Some(ex) = reg().execs.remove(&e.handle) else {
        return ERROR_INVALID_EXECUTABLE;
    };
    let mut g = reg();
    g.lcos.retain(|_, (x, _)| *x != e.handle);
    g.symbols.retain(|_, (x, _)| *x != e.handle);
    drop(g);
    let ex = match Arc::try_unwrap(ex) {
        Ok(m) => m.into_inner().unwrap_or_else(|p| p.into_inner()),
        Err(_) => return SUCCESS,
    };
    {
        let mut k = kernels().write().unwrap_or_else(|p| p.into_inner());
        for s in ex.exe.symbols() {
            if s.kind == SymbolKind::Kernel {
                k.remove(&s.address);
            }
        }
    }
    if let Some(r) = crate::rt::rt_any() {
        let _ = ex.exe.destroy(&r.mem);
    }
    SUCCESS
}

pub fn load_agent_code_object(
    e: Executable,
    agent: Agent,
    reader: Reader,
    options: *const libc::c_char,
    out: *mut LoadedCodeObject,
) -> Status {
    let Some(r) = rt() else {
        return ERROR_NOT_INITIALIZED;
    };
    let _ = options;
    if agent.handle != AGENT_GPU {
        return ERROR_INVALID_AGENT;
    }
    let Some(bytes) = reg().readers.get(&reader.handle).cloned() else {
        return crate::trace::fail(
            ERROR_INVALID_CODE_OBJECT_READER,
            format!(
                "hsa_executable_load_agent_code_object: {:#x} is not a code object reader",
                reader.handle
            ),
        );
    };
    let Some(ex) = exec_of(e) else {
        return ERROR_INVALID_EXECUTABLE;
    };
    let mut x = lock(&ex);
    if x.exe.is_frozen() {
        return ERROR_FROZEN_EXECUTABLE;
    }
    match x.exe.load(&r.mem, &bytes) {
        Ok(index) => {
            let mut g = reg();
            let id = g.id();
            g.lcos.insert(id, (e.handle, index));
            drop(g);
            x.lcos.push(id);
            if !out.is_null() {
                put(out as *mut c_void, h(id));
            }
            SUCCESS
        }
        Err(err) => {
            let status = match err {
                lathe_loader::Error::Incompatible { .. } => ERROR_INVALID_ISA,
                lathe_loader::Error::Memory(_) => ERROR_OUT_OF_RESOURCES,
                _ => ERROR_INVALID_CODE_OBJECT,
            };
            crate::trace::fail(
                status,
                format!("hsa_executable_load_agent_code_object: {err}"),
            )
        }
    }
}

pub fn load_code_object(
    e: Executable,
    agent: Agent,
    code_object: u64,
    options: *const libc::c_char,
) -> Status {
    let _ = (e, agent, code_object, options);
    crate::trace::fail(
        ERROR_INVALID_CODE_OBJECT,
        "hsa_executable_load_code_object: deprecated hsa_code_object_t objects are not supported; use code object readers",
    )
}

pub fn global_variable_define(
    e: Executable,
    agent: Agent,
    name: *const libc::c_char,
    addr: *mut c_void,
) -> Status {
    if agent.handle != AGENT_GPU && agent.handle != crate::rt::AGENT_CPU {
        return ERROR_INVALID_AGENT;
    }
    let Some(n) = get_cstr(name) else {
        return ERROR_INVALID_ARGUMENT;
    };
    let Some(ex) = exec_of(e) else {
        return ERROR_INVALID_EXECUTABLE;
    };
    let mut x = lock(&ex);
    match x.exe.define_external_variable(&n, addr as u64) {
        Ok(()) => SUCCESS,
        Err(lathe_loader::Error::Frozen) => ERROR_FROZEN_EXECUTABLE,
        Err(err) => crate::trace::fail(ERROR_VARIABLE_ALREADY_DEFINED, err),
    }
}

pub fn readonly_variable_define(
    e: Executable,
    agent: Agent,
    name: *const libc::c_char,
    addr: *mut c_void,
) -> Status {
    global_variable_define(e, agent, name, addr)
}

pub fn program_variable_define(
    e: Executable,
    name: *const libc::c_char,
    addr: *mut c_void,
) -> Status {
    global_variable_define(e, crate::rt::h(AGENT_GPU), name, addr)
}

pub fn freeze(e: Executable, options: *const libc::c_char) -> Status {
    let Some(r) = rt() else {
        return ERROR_NOT_INITIALIZED;
    };
    let _ = options;
    let Some(ex) = exec_of(e) else {
        return ERROR_INVALID_EXECUTABLE;
    };
    let mut x = lock(&ex);
    if x.exe.is_frozen() {
        return ERROR_FROZEN_EXECUTABLE;
    }
    if let Err(err) = x.exe.freeze(&r.mem) {
        let status = match err {
            lathe_loader::Error::Undefined(_) => ERROR_VARIABLE_UNDEFINED,
            _ => ERROR_INVALID_CODE_OBJECT,
        };
        return crate::trace::fail(status, format!("hsa_executable_freeze: {err}"));
    }
    let mut k = kernels().write().unwrap_or_else(|p| p.into_inner());
    let mut g = reg();
    let mut syms = Vec::new();
    let mut originals: HashMap<usize, Option<Arc<std::collections::HashSet<u64>>>> = HashMap::new();
    for (i, s) in x.exe.symbols().iter().enumerate() {
        if let (SymbolKind::Kernel, Some(info)) = (s.kind, s.kernel) {
            let lco = x
                .exe
                .code_objects()
                .iter()
                .find(|c| (c.load_base..c.load_base + c.load_size).contains(&s.address));
            let load_delta = lco.map_or(0, |c| c.load_delta);
            let original = lco.and_then(|c| {
                originals
                    .entry(c.index)
                    .or_insert_with(|| {
                        AddrMap::read(&c.storage).map(|m| {
                            Arc::new(
                                m.pairs()
                                    .iter()
                                    .map(|&(new, _)| new.wrapping_add(c.load_delta as u64))
                                    .collect(),
                            )
                        })
                    })
                    .clone()
            });
            k.insert(
                s.address,
                Arc::new(KernelEntry {
                    name: s.name.clone(),
                    info,
                    load_delta,
                    original,
                }),
            );
        }
        let id = g.id();
        g.symbols.insert(id, (e.handle, i));
        syms.push(id);
    }
    x.syms = syms;
    SUCCESS
}

pub fn validate(e: Executable, result: *mut u32) -> Status {
    if exec_of(e).is_none() {
        return ERROR_INVALID_EXECUTABLE;
    }
    put(result as *mut c_void, 0u32)
}

pub fn validate_alt(e: Executable, options: *const libc::c_char, result: *mut u32) -> Status {
    let _ = options;
    validate(e, result)
}

pub fn executable_get_info(e: Executable, attr: u32, value: *mut c_void) -> Status {
    let Some(ex) = exec_of(e) else {
        return ERROR_INVALID_EXECUTABLE;
    };
    let x = lock(&ex);
    match attr {
        EXECUTABLE_INFO_PROFILE => put(value, 0u32),
        EXECUTABLE_INFO_STATE => put(
            value,
            if x.exe.is_frozen() {
                EXECUTABLE_STATE_FROZEN
            } else {
                EXECUTABLE_STATE_UNFROZEN
            },
        ),
        EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE => put(value, 1u32),
        _ => ERROR_INVALID_ARGUMENT,
    }
}

/// Finds a symbol: kernels by `name` or `name.kd`.
pub fn get_symbol_by_name(
    e: Executable,
    name: *const libc::c_char,
    agent: *const Agent,
    out: *mut Symbol,
) -> Status {
    let Some(n) = get_cstr(name) else {
        return ERROR_INVALID_ARGUMENT;
    };
    let _ = agent;
    let Some(ex) = exec_of(e) else {
        return ERROR_INVALID_EXECUTABLE;
    };
    let x = lock(&ex);
    if !x.exe.is_frozen() {
        return crate::trace::fail(ERROR_INVALID_EXECUTABLE, "symbol query before freeze");
    }
    let base = n.strip_suffix(".kd").unwrap_or(&n);
    let found = x
        .exe
        .symbols()
        .iter()
        .position(|s| s.name == base && s.kind != SymbolKind::ExternalVariable);
    match found {
        Some(i) => put(out as *mut c_void, h(x.syms[i])),
        None => crate::trace::fail(
            ERROR_INVALID_SYMBOL_NAME,
            format!("hsa_executable_get_symbol_by_name: no symbol {n:?}"),
        ),
    }
}

pub fn get_symbol(
    e: Executable,
    module: *const libc::c_char,
    name: *const libc::c_char,
    agent: Agent,
    call_convention: i32,
    out: *mut Symbol,
) -> Status {
    let _ = (module, call_convention);
    get_symbol_by_name(e, name, &agent, out)
}

fn with_symbol<T>(s: Symbol, f: impl FnOnce(&LoadedSymbol) -> T) -> Option<T> {
    let (exe, i) = *reg().symbols.get(&s.handle)?;
    let ex = exec_of(h(exe))?;
    let x = lock(&ex);
    x.exe.symbols().get(i).map(f)
}

fn kind_of(s: &LoadedSymbol) -> u32 {
    match s.kind {
        SymbolKind::Kernel => SYMBOL_KIND_KERNEL,
        SymbolKind::DeviceFunction | SymbolKind::IndirectFunction => SYMBOL_KIND_INDIRECT_FUNCTION,
        _ => SYMBOL_KIND_VARIABLE,
    }
}

fn hsa_name(s: &LoadedSymbol) -> String {
    if s.kind == SymbolKind::Kernel {
        format!("{}.kd", s.name)
    } else {
        s.name.clone()
    }
}

pub fn symbol_get_info(s: Symbol, attr: u32, value: *mut c_void) -> Status {
    let r = with_symbol(s, |sym| {
        let k = sym.kernel;
        match attr {
            SYMBOL_INFO_TYPE => put(value, kind_of(sym)),
            SYMBOL_INFO_NAME_LENGTH => put(value, hsa_name(sym).len() as u32),
            SYMBOL_INFO_NAME => put_bytes(value, hsa_name(sym).as_bytes()),
            SYMBOL_INFO_MODULE_NAME_LENGTH => put(value, 0u32),
            SYMBOL_INFO_MODULE_NAME => SUCCESS,
            SYMBOL_INFO_AGENT => put(value, h(AGENT_GPU)),
            SYMBOL_INFO_LINKAGE => put(
                value,
                if sym.global {
                    SYMBOL_LINKAGE_PROGRAM
                } else {
                    SYMBOL_LINKAGE_MODULE
                },
            ),
            SYMBOL_INFO_IS_DEFINITION => put(value, true),
            SYMBOL_INFO_VARIABLE_ADDRESS => put(value, sym.address),
            SYMBOL_INFO_VARIABLE_ALLOCATION => put(value, VARIABLE_ALLOCATION_AGENT),
            SYMBOL_INFO_VARIABLE_SEGMENT => put(value, VARIABLE_SEGMENT_GLOBAL),
            SYMBOL_INFO_VARIABLE_ALIGNMENT => put(value, 8u32),
            SYMBOL_INFO_VARIABLE_SIZE => put(value, sym.size as u32),
            SYMBOL_INFO_VARIABLE_IS_CONST => put(value, false),
            SYMBOL_INFO_KERNEL_OBJECT => put(value, sym.address),
            SYMBOL_INFO_INDIRECT_FUNCTION_OBJECT => put(value, sym.address),
            SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE => put(value, k.map_or(0, |k| k.kernarg_size)),
            SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT => {
                put(value, k.map_or(16, |k| k.kernarg_align.max(16)))
            }
            SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE => {
                put(value, k.map_or(0, |k| k.group_segment_size))
            }
            SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE => {
                put(value, k.map_or(0, |k| k.private_segment_size))
            }
            SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK => put(value, k.is_some_and(|k| k.dynamic_stack)),
            SYMBOL_INFO_KERNEL_CALL_CONVENTION | SYMBOL_INFO_INDIRECT_FUNCTION_CALL_CONVENTION => {
                put(value, 0u32)
            }
            _ => ERROR_INVALID_ARGUMENT,
        }
    });
    r.unwrap_or(ERROR_INVALID_EXECUTABLE_SYMBOL)
}

pub type SymbolCallback = Option<extern "C" fn(Executable, Symbol, *mut c_void) -> Status>;
pub type AgentSymbolCallback =
    Option<extern "C" fn(Executable, Agent, Symbol, *mut c_void) -> Status>;

fn symbol_handles(e: Executable) -> Option<Vec<u64>> {
    let ex = exec_of(e)?;
    let x = lock(&ex);
    if !x.exe.is_frozen() {
        return Some(Vec::new());
    }
    Some(
        x.exe
            .symbols()
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind != SymbolKind::ExternalVariable)
            .map(|(i, _)| x.syms[i])
            .collect(),
    )
}

pub fn iterate_symbols(e: Executable, cb: SymbolCallback, data: *mut c_void) -> Status {
    let Some(cb) = cb else {
        return ERROR_INVALID_ARGUMENT;
    };
    let Some(list) = symbol_handles(e) else {
        return ERROR_INVALID_EXECUTABLE;
    };
    for s in list {
        match cb(e, h(s), data) {
            SUCCESS => {}
            INFO_BREAK => return SUCCESS,
            st => return st,
        }
    }
    SUCCESS
}

pub fn iterate_agent_symbols(
    e: Executable,
    agent: Agent,
    cb: AgentSymbolCallback,
    data: *mut c_void,
) -> Status {
    let Some(cb) = cb else {
        return ERROR_INVALID_ARGUMENT;
    };
    if agent.handle != AGENT_GPU {
        return if crate::rt::is_agent(agent) {
            SUCCESS
        } else {
            ERROR_INVALID_AGENT
        };
    }
    let Some(list) = symbol_handles(e) else {
        return ERROR_INVALID_EXECUTABLE;
    };
    for s in list {
        match cb(e, agent, h(s), data) {
            SUCCESS => {}
            INFO_BREAK => return SUCCESS,
            st => return st,
        }
    }
    SUCCESS
}

pub fn iterate_program_symbols(e: Executable, cb: SymbolCallback, data: *mut c_void) -> Status {
    let _ = (cb, data);
    if exec_of(e).is_none() {
        return ERROR_INVALID_EXECUTABLE;
    }
    SUCCESS
}

// AMD loader extension (hsa_ven_amd_loader_1_03_pfn_t).

/// The loader table handed out by `hsa_system_get_major_extension_table`.
pub fn loader_table() -> LoaderTable {
    LoaderTable {
        query_host_address: query_host_address as *const c_void,
        query_segment_descriptors: query_segment_descriptors as *const c_void,
        query_executable: query_executable as *const c_void,
        executable_iterate_loaded_code_objects: iterate_loaded_code_objects as *const c_void,
        loaded_code_object_get_info: loaded_code_object_get_info as *const c_void,
        code_object_reader_create_from_file_with_offset_size:
            reader_create_from_file_with_offset_size as *const c_void,
        iterate_executables: iterate_executables as *const c_void,
    }
}

fn code_object_containing(addr: u64) -> Option<(u64, u64)> {
    let execs: Vec<(u64, Arc<Mutex<Exec>>)> =
        reg().execs.iter().map(|(k, v)| (*k, v.clone())).collect();
    for (id, ex) in execs {
        let x = lock(&ex);
        for (i, lco) in x.exe.code_objects().iter().enumerate() {
            if addr >= lco.load_base && addr < lco.load_base + lco.load_size {
                return Some((id, x.lcos.get(i).copied().unwrap_or(0)));
            }
        }
    }
    None
}

extern "C" fn query_host_address(device: *const c_void, host: *mut *const c_void) -> Status {
    crate::trace::api_enabled().then(|| {
        crate::trace::api_call(
            "hsa_ven_amd_loader_query_host_address",
            &format!("{device:?}"),
            "",
        )
    });
    if device.is_null() || host.is_null() {
        return ERROR_INVALID_ARGUMENT;
    }
    // Device addresses are host addresses; only loaded code objects count.
    if code_object_containing(device as u64).is_none() {
        return ERROR_INVALID_ARGUMENT;
    }
    put(host as *mut c_void, device)
}

extern "C" fn query_segment_descriptors(descs: *mut c_void, n: *mut usize) -> Status {
    let _ = descs;
    if n.is_null() {
        return ERROR_INVALID_ARGUMENT;
    }
    put(n as *mut c_void, 0usize)
}

extern "C" fn query_executable(device: *const c_void, out: *mut Executable) -> Status {
    match code_object_containing(device as u64) {
        Some((e, _)) => put(out as *mut c_void, h(e)),
        None => ERROR_INVALID_ARGUMENT,
    }
}

type LcoCallback = Option<extern "C" fn(Executable, LoadedCodeObject, *mut c_void) -> Status>;

extern "C" fn iterate_loaded_code_objects(
    e: Executable,
    cb: LcoCallback,
    data: *mut c_void,
) -> Status {
    let Some(cb) = cb else {
        return ERROR_INVALID_ARGUMENT;
    };
    let Some(ex) = exec_of(e) else {
        return ERROR_INVALID_EXECUTABLE;
    };
    let list = lock(&ex).lcos.clone();
    for l in list {
        match cb(e, h(l), data) {
            SUCCESS => {}
            INFO_BREAK => return SUCCESS,
            st => return st,
        }
    }
    SUCCESS
}

extern "C" fn iterate_executables(
    cb: Option<extern "C" fn(Executable, *mut c_void) -> Status>,
    data: *mut c_void,
) -> Status {
    let Some(cb) = cb else {
        return ERROR_INVALID_ARGUMENT;
    };
    let mut ids: Vec<u64> = reg().execs.keys().copied().collect();
    ids.sort_unstable();
    for e in ids {
        match cb(h(e), data) {
            SUCCESS => {}
            INFO_BREAK => return SUCCESS,
            st => return st,
        }
    }
    SUCCESS
}

extern "C" fn loaded_code_object_get_info(
    l: LoadedCodeObject,
    attr: u32,
    value: *mut c_void,
) -> Status {
    let Some((e, index)) = reg().lcos.get(&l.handle).copied() else {
        return ERROR_INVALID_ARGUMENT;
    };
    let Some(ex) = exec_of(h(e)) else {
        return ERROR_INVALID_EXECUTABLE;
    };
    let x = lock(&ex);
    let Some(lco) = x.exe.code_objects().get(index) else {
        return ERROR_INVALID_ARGUMENT;
    };
    let uri = format!(
        "memory://{}#offset={:#x}&size={}",
        std::process::id(),
        lco.storage.as_ptr() as u64,
        lco.storage.len()
    );
    match attr {
        LCO_INFO_EXECUTABLE => put(value, h(e)),
        LCO_INFO_KIND => put(value, LCO_KIND_AGENT),
        LCO_INFO_AGENT => put(value, h(AGENT_GPU)),
        LCO_INFO_STORAGE_TYPE => put(value, STORAGE_TYPE_MEMORY),
        LCO_INFO_STORAGE_MEMORY_BASE => put(value, lco.storage.as_ptr() as u64),
        LCO_INFO_STORAGE_MEMORY_SIZE => put(value, lco.storage.len() as u64),
        LCO_INFO_STORAGE_FILE => put(value, -1i32),
        LCO_INFO_LOAD_DELTA => put(value, lco.load_delta),
        LCO_INFO_LOAD_BASE => put(value, lco.load_base),
        LCO_INFO_LOAD_SIZE => put(value, lco.load_size),
        LCO_INFO_URI_LENGTH => put(value, uri.len() as u32),
        LCO_INFO_URI => put_bytes(value, uri.as_bytes()),
        _ => ERROR_INVALID_ARGUMENT,
    }
}

/// `LATHE_HSA_RELA_DYN_ONLY=1`: executables apply only `.rela.dyn`, as
/// ROCr's loader does (for testing tools meant for ROCr).
fn rela_dyn_only() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("LATHE_HSA_RELA_DYN_ONLY").is_ok_and(|v| v == "1"))
}

/// Where a device PC lies, in code-object terms: the address `lathe
/// disasm` prints for it and the kernel or device function plus offset
/// (`pc 0x1a30 (_Z4spinPii+0x30)`), as `lathe run` names it. In a code
/// object that `lathe-tool` instrumented (one with a `.lathe.addr_map`
/// section), a PC in moved code is named by the original instruction it
/// stands for (`original pc 0x1a30 (_Z4spinPii+0x30), instrumented pc
/// 0x5a40`).
pub fn place(pc: u64) -> String {
    let execs: Vec<Arc<Mutex<Exec>>> = reg().execs.values().cloned().collect();
    for ex in execs {
        let x = lock(&ex);
        for lco in x.exe.code_objects() {
            if pc < lco.load_base || pc >= lco.load_base + lco.load_size {
                continue;
            }
            let vaddr = pc.wrapping_sub(lco.load_delta as u64);
            let map = AddrMap::read(&lco.storage);
            let named = |vaddr: u64| match x.exe.function_at(lco, vaddr, map.as_ref()) {
                Some((n, start)) => format!("pc {vaddr:#x} ({n}+{:#x})", vaddr - start),
                None => format!("pc {vaddr:#x}"),
            };
            return match map.as_ref().and_then(|m| m.original(vaddr)) {
                Some((orig, exact)) => format!(
                    "original {}{}, instrumented pc {vaddr:#x}",
                    named(orig),
                    if exact {
                        ""
                    } else {
                        " (in the probe code after it)"
                    }
                ),
                None => named(vaddr),
            };
        }
    }
    format!("device address {pc:#x} (outside every code object)")
}

/// Runs `f` on the ELF bytes of the loaded code object holding device
/// address `pc` and the code-object address of `pc` (for source lines).
pub fn with_code_object<T>(pc: u64, f: impl FnOnce(&[u8], u64) -> T) -> Option<T> {
    let execs: Vec<Arc<Mutex<Exec>>> = reg().execs.values().cloned().collect();
    for ex in execs {
        let x = lock(&ex);
        for lco in x.exe.code_objects() {
            if pc >= lco.load_base && pc < lco.load_base + lco.load_size {
                return Some(f(&lco.storage, pc.wrapping_sub(lco.load_delta as u64)));
            }
        }
    }
    None
}

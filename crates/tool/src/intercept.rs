//! The wrappers installed in the API table, the packet interceptor, and
//! running one instrumented dispatch (see the crate docs for the policy).

use std::collections::HashMap;
use std::ffi::{c_char, c_void, CString};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use serde_json::{json, Value};

use crate::api::{self, Api, Handle, HsaApiTable, Status, Writer, SUCCESS};
use crate::config::{Config, OnError, Tool, ToolSpec};
use crate::instr::{self, Build, HipBuild};
use crate::state::{lock, state, KernelInfo, Loaded, Probes, State, STATE};
use lathe_codeobj::aql::AqlDispatch;
use lathe_dbi::manifest::HipTool;

/// Exit status when a tool error stops the program (`abort`).
pub const ABORT_STATUS: i32 = 70;

const PACKET_TYPE_KERNEL_DISPATCH: u16 = 2;
const PACKET_TYPE_BARRIER_AND: u16 = 3;
const SYMBOL_INFO_TYPE: u32 = 0;
const SYMBOL_INFO_NAME_LENGTH: u32 = 1;
const SYMBOL_INFO_NAME: u32 = 2;
const SYMBOL_INFO_VARIABLE_ADDRESS: u32 = 21;
const SYMBOL_INFO_KERNEL_OBJECT: u32 = 22;
const SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE: u32 = 13;
const SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE: u32 = 14;
const SYMBOL_KIND_KERNEL: u32 = 1;
const AGENT_INFO_PROFILE: u32 = 4;
const AGENT_INFO_DEVICE: u32 = 17;
const DEVICE_TYPE_CPU: u32 = 0;
const POOL_INFO_SEGMENT: u32 = 0;
const POOL_INFO_GLOBAL_FLAGS: u32 = 1;
const POOL_INFO_ALLOC_ALLOWED: u32 = 5;
const POOL_FLAG_FINE_GRAINED: u32 = 2;

/// `OnLoad`: reads the configuration and installs the wrappers.
pub fn on_load(table: *mut HsaApiTable) -> bool {
    // `lathe exec` asks for a sign of life, to tell a program that never
    // used HSA (nothing to instrument) from one that did.
    if let Some(p) = std::env::var_os("LATHE_TOOL_LOADED").filter(|p| !p.is_empty()) {
        let _ = std::fs::write(p, b"");
    }
    let cfg = match Config::from_env() {
        Ok(Some(c)) => c,
        Ok(None) => return true,
        Err(e) => {
            eprintln!("lathe-tool: error: {e}");
            if std::env::var("LATHE_TOOL_ON_ERROR").as_deref() == Ok("abort") {
                eprintln!("lathe-tool: stopping the program (--on-tool-error abort)");
                // SAFETY: `_exit` ends the process without running handlers
                // that could wait on the runtime being initialised.
                unsafe { libc::_exit(ABORT_STATUS) };
            }
            eprintln!("lathe-tool: the program runs uninstrumented (--on-tool-error skip)");
            return true;
        }
    };
    let api = match Api::read(table) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("lathe-tool: error: {e}");
            return false;
        }
    };
    let st = State {
        api,
        cfg,
        readers: Mutex::new(HashMap::new()),
        loaded: Mutex::new(HashMap::new()),
        kernels: RwLock::new(HashMap::new()),
        launches: AtomicU64::new(0),
        cache: Mutex::new(HashMap::new()),
        serial: Mutex::new(None),
        pool: Mutex::new(None),
        hip: Mutex::new(HashMap::new()),
        records: Mutex::new(Vec::new()),
        written: AtomicBool::new(false),
        selected: AtomicU64::new(0),
        seen: Mutex::new(Default::default()),
        reported: Mutex::new(Default::default()),
        traces: Mutex::new(Default::default()),
    };
    if STATE.set(st).is_err() {
        // A second OnLoad (a second HSA_TOOLS_LIB entry naming us): the
        // first installation stands.
        return true;
    }
    let w = api::Wrappers {
        queue_create,
        reader_from_memory,
        reader_from_file,
        reader_destroy,
        load_agent_code_object,
        freeze,
        executable_destroy,
    };
    if let Err(e) = api::install(table, &w) {
        eprintln!("lathe-tool: error: {e}");
        return false;
    }
    if STATE.get().is_some_and(|s| s.cfg.capture.is_some()) {
        if let Err(e) = api::install_alloc(table, &crate::capture::WRAPPERS) {
            eprintln!("lathe-tool: error: {e}");
            return false;
        }
    }
    extern "C" fn at_exit() {
        finish();
    }
    // SAFETY: registering a plain `extern "C" fn()`.
    unsafe { libc::atexit(at_exit) };
    true
}

/// Writes the JSON output (once): an array of per-launch records. Says
/// on stderr when the selection took no launch (nothing was measured).
pub fn finish() {
    if let Some(st) = state() {
        if !st.written.load(Ordering::Acquire) {
            empty_selection_note(st);
        }
    }
    write_out(None);
}

fn empty_selection_note(st: &State) {
    if st.selected.load(Ordering::Acquire) > 0 {
        return;
    }
    let n = st.launches.load(Ordering::Acquire);
    let why = if n == 0 {
        "the program launched no kernels".to_string()
    } else {
        let seen: Vec<String> = lock(&st.seen).iter().cloned().collect();
        let mut parts = Vec::new();
        if let Some(k) = &st.cfg.kernels {
            parts.push(format!("--kernels {:?}", k.as_str()));
        }
        if let Some(l) = std::env::var("LATHE_TOOL_LAUNCHES")
            .ok()
            .filter(|l| !l.is_empty())
        {
            parts.push(format!("--launches {l}"));
        }
        format!(
            "{} selected none of the program's {n} kernel launch(es) (launches 0-{}; kernels: {})",
            parts.join(" and "),
            n - 1,
            seen.join(", ")
        )
    };
    if let Some(dir) = &st.cfg.capture {
        eprintln!(
            "lathe-tool: warning: no launch was captured: {why}; nothing written to {}",
            dir.display()
        );
        return;
    }
    eprintln!(
        "lathe-tool: warning: no launch was instrumented: {why}; --tool {} measured nothing",
        st.cfg.tool_name()
    );
}

/// Writes the JSON output (once) after the run ended early:
/// `{"incomplete": REASON, "launches": [records]}`.
pub fn finish_incomplete(reason: &str) {
    write_out(Some(reason));
}

fn write_out(incomplete: Option<&str>) {
    let Some(st) = state() else { return };
    let Some(path) = &st.cfg.out else { return };
    if st.written.swap(true, Ordering::AcqRel) {
        return;
    }
    let recs = Value::Array(std::mem::take(&mut *lock(&st.records)));
    let doc = match incomplete {
        Some(why) => json!({"incomplete": why, "launches": recs}),
        None => recs,
    };
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    if let Err(e) = std::fs::write(path, text + "\n") {
        eprintln!("lathe-tool: error: cannot write {}: {e}", path.display());
    }
    if matches!(st.cfg.tool, Some(ToolSpec::Builtin(Tool::MemTrace))) {
        lock(&st.traces).write(path, incomplete);
    }
}

// ------------------------------------------------------------- wrappers

extern "C" fn reader_from_memory(p: *const c_void, size: usize, out: *mut Handle) -> Status {
    let Some(st) = state() else {
        return api::SUCCESS;
    };
    let s = (st.api.reader_from_memory)(p, size, out);
    if s == SUCCESS && !p.is_null() && !out.is_null() && size > 0 {
        // SAFETY: the caller passes `size` readable bytes at `p`; `out` was
        // written by the runtime.
        let (bytes, h) = unsafe {
            (
                std::slice::from_raw_parts(p as *const u8, size).to_vec(),
                *out,
            )
        };
        lock(&st.readers).insert(h.handle, Arc::new(bytes));
    }
    s
}

extern "C" fn reader_from_file(fd: i32, out: *mut Handle) -> Status {
    let Some(st) = state() else {
        return api::SUCCESS;
    };
    let s = (st.api.reader_from_file)(fd, out);
    if s == SUCCESS && !out.is_null() {
        if let Some(bytes) = read_fd(fd) {
            // SAFETY: written by the runtime on success.
            let h = unsafe { *out };
            lock(&st.readers).insert(h.handle, Arc::new(bytes));
        }
    }
    s
}

/// The whole file behind `fd`, read with `pread` (the descriptor's offset
/// is left alone).
fn read_fd(fd: i32) -> Option<Vec<u8>> {
    // SAFETY: fstat on a descriptor the caller owns, into a zeroed struct.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::fstat(fd, &mut stat) } != 0 {
        return None;
    }
    let size = usize::try_from(stat.st_size).ok()?;
    if size > (1 << 31) {
        return None;
    }
    let mut buf = vec![0u8; size];
    let mut done = 0usize;
    while done < size {
        // SAFETY: `buf[done..]` is writable for `size - done` bytes.
        let n = unsafe {
            libc::pread(
                fd,
                buf.as_mut_ptr().add(done) as *mut c_void,
                size - done,
                done as libc::off_t,
            )
        };
        if n <= 0 {
            return None;
        }
        done += n as usize;
    }
    Some(buf)
}

extern "C" fn reader_destroy(r: Handle) -> Status {
    let Some(st) = state() else {
        return api::SUCCESS;
    };
    lock(&st.readers).remove(&r.handle);
    (st.api.reader_destroy)(r)
}

extern "C" fn load_agent_code_object(
    exe: Handle,
    agent: Handle,
    reader: Handle,
    options: *const c_char,
    lco: *mut Handle,
) -> Status {
    let Some(st) = state() else {
        return api::SUCCESS;
    };
    let s = (st.api.load_agent_code_object)(exe, agent, reader, options, lco);
    if s == SUCCESS {
        if let Some(bytes) = lock(&st.readers).get(&reader.handle).cloned() {
            lock(&st.loaded)
                .entry(exe.handle)
                .or_default()
                .push((agent, bytes));
        }
    }
    s
}

extern "C" fn executable_destroy(exe: Handle) -> Status {
    let Some(st) = state() else {
        return api::SUCCESS;
    };
    lock(&st.loaded).remove(&exe.handle);
    (st.api.executable_destroy)(exe)
}

/// A symbol's name.
fn symbol_name(api: &Api, sym: Handle) -> Option<String> {
    let mut len = 0u32;
    if (api.symbol_get_info)(
        sym,
        SYMBOL_INFO_NAME_LENGTH,
        &mut len as *mut u32 as *mut c_void,
    ) != SUCCESS
    {
        return None;
    }
    let mut buf = vec![0u8; len as usize + 1];
    if (api.symbol_get_info)(sym, SYMBOL_INFO_NAME, buf.as_mut_ptr() as *mut c_void) != SUCCESS {
        return None;
    }
    buf.truncate(len as usize);
    String::from_utf8(buf).ok()
}

extern "C" fn collect_symbol(_exe: Handle, sym: Handle, data: *mut c_void) -> Status {
    // SAFETY: `data` is the `Vec<Handle>` `freeze` passed.
    let v = unsafe { &mut *(data as *mut Vec<Handle>) };
    v.push(sym);
    SUCCESS
}

fn kernel_names(code: &[u8]) -> Vec<String> {
    lathe_codeobj::CodeObject::parse(code)
        .ok()
        .and_then(|c| c.symbols().ok())
        .map(|s| s.kernels().iter().map(|k| k.name.to_string()).collect())
        .unwrap_or_default()
}

extern "C" fn freeze(exe: Handle, options: *const c_char) -> Status {
    let Some(st) = state() else {
        return api::SUCCESS;
    };
    let s = (st.api.freeze)(exe, options);
    if s != SUCCESS {
        return s;
    }
    let objects = lock(&st.loaded)
        .get(&exe.handle)
        .cloned()
        .unwrap_or_default();
    if objects.is_empty() {
        return s;
    }
    let names: Vec<Vec<String>> = objects.iter().map(|(_, c)| kernel_names(c)).collect();
    let mut syms: Vec<Handle> = Vec::new();
    (st.api.iterate_symbols)(
        exe,
        collect_symbol,
        &mut syms as *mut Vec<Handle> as *mut c_void,
    );
    let mut found = Vec::new();
    for sym in syms {
        let mut kind = u32::MAX;
        (st.api.symbol_get_info)(sym, SYMBOL_INFO_TYPE, &mut kind as *mut u32 as *mut c_void);
        if kind != SYMBOL_KIND_KERNEL {
            continue;
        }
        let Some(name) = symbol_name(&st.api, sym) else {
            continue;
        };
        let name = name.strip_suffix(".kd").unwrap_or(&name).to_string();
        let mut ko = 0u64;
        if (st.api.symbol_get_info)(
            sym,
            SYMBOL_INFO_KERNEL_OBJECT,
            &mut ko as *mut u64 as *mut c_void,
        ) != SUCCESS
            || ko == 0
        {
            continue;
        }
        let Some(i) = names.iter().position(|n| n.contains(&name)) else {
            continue;
        };
        let (agent, code) = &objects[i];
        let demangled = lathe_codeobj::names::demangle(&name).unwrap_or_else(|| name.clone());
        found.push((
            ko,
            Arc::new(KernelInfo {
                mangled: name,
                demangled,
                code: Arc::clone(code),
                agent: *agent,
            }),
        ));
    }
    let mut k = st.kernels.write().unwrap_or_else(|e| e.into_inner());
    k.extend(found);
    s
}

#[allow(clippy::too_many_arguments)]
extern "C" fn queue_create(
    agent: Handle,
    size: u32,
    type_: u32,
    cb: api::QueueErrorCb,
    data: *mut c_void,
    private_size: u32,
    group_size: u32,
    out: *mut *mut c_void,
) -> Status {
    let Some(st) = state() else {
        return api::SUCCESS;
    };
    let s = (st.api.intercept_create)(agent, size, type_, cb, data, private_size, group_size, out);
    if s != SUCCESS || out.is_null() {
        eprintln!(
            "lathe-tool: warning: cannot create an intercepted queue ({}); this queue's dispatches are not instrumented",
            st.api.status(s)
        );
        return (st.api.queue_create)(agent, size, type_, cb, data, private_size, group_size, out);
    }
    // SAFETY: written by the runtime on success.
    let q = unsafe { *out };
    // The interceptor's data is the queue (capture reads its ring).
    let r = (st.api.intercept_register)(q, on_packets, q);
    if r != SUCCESS {
        eprintln!(
            "lathe-tool: warning: cannot register the queue interceptor ({}); this queue's dispatches are not instrumented",
            st.api.status(r)
        );
    }
    s
}

// ---------------------------------------------------------- interception

extern "C" fn on_packets(
    pkts: *const c_void,
    count: u64,
    first_index: u64,
    queue: *mut c_void,
    writer: Writer,
) {
    let Some(st) = state() else {
        writer(pkts, count);
        return;
    };
    for i in 0..count {
        // SAFETY: the runtime passes `count` 64-byte packets at `pkts`.
        let p: [u8; 64] =
            unsafe { std::ptr::read_unaligned((pkts as *const [u8; 64]).add(i as usize)) };
        let hdr = u16::from_le_bytes([p[0], p[1]]);
        if hdr & 0xff != PACKET_TYPE_KERNEL_DISPATCH {
            writer(p.as_ptr() as *const c_void, 1);
            continue;
        }
        let index = st.launches.fetch_add(1, Ordering::AcqRel);
        let ko = u64::from_le_bytes(p[32..40].try_into().unwrap_or([0; 8]));
        let k = st
            .kernels
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&ko)
            .cloned();
        if let Some(k) = &k {
            let mut seen = lock(&st.seen);
            if seen.len() < 64 && !seen.contains(&k.demangled) {
                seen.insert(k.demangled.clone());
            }
        }
        match k {
            Some(k) if st.cfg.selects(index, &k.mangled, &k.demangled) => {
                st.selected.fetch_add(1, Ordering::AcqRel);
                if st.cfg.capture.is_some() {
                    let at = crate::capture::Where {
                        queue: queue as u64,
                        index: first_index.wrapping_add(i),
                    };
                    if let Err(e) = crate::capture::dispatch(st, index, ko, &k, &p, at, writer) {
                        eprintln!(
                            "lathe-tool: error: capture of launch {index} of {}: {e}",
                            k.demangled
                        );
                    }
                } else {
                    dispatch(st, index, ko, &k, &p, writer)
                }
            }
            _ => writer(p.as_ptr() as *const c_void, 1),
        }
    }
}

/// Reports a tool error for a launch; stops the program under `abort`.
fn tool_error(st: &State, index: u64, k: &KernelInfo, msg: &str, first: bool) {
    // The same error for another kernel (a HIP tool that does not build)
    // is not news.
    let first = first && lock(&st.reported).insert(msg.to_string());
    if first || st.cfg.on_error == OnError::Abort {
        eprintln!("lathe-tool: error: {msg}");
    }
    if st.cfg.on_error == OnError::Abort {
        eprintln!("lathe-tool: stopping the program (--on-tool-error abort)");
        lock(&st.records)
            .push(json!({"launch": index, "kernel": k.mangled, "name": k.demangled, "error": msg}));
        finish();
        // SAFETY: ends the process at once; the runtime's threads must not
        // run the application further.
        unsafe { libc::_exit(ABORT_STATUS) };
    }
    if first && msg.starts_with(HIP_TOOL_ERROR) {
        eprintln!("lathe-tool: the program runs uninstrumented (--on-tool-error skip)");
    } else if first {
        eprintln!(
            "lathe-tool: {} runs uninstrumented (--on-tool-error skip)",
            k.demangled
        );
    }
    if st.cfg.out.is_some() {
        lock(&st.records)
            .push(json!({"launch": index, "kernel": k.mangled, "name": k.demangled, "error": msg}));
    }
}

fn dispatch(st: &State, index: u64, ko: u64, k: &KernelInfo, p: &[u8; 64], writer: Writer) {
    let (loaded, first) = {
        let mut c = lock(&st.cache);
        match c.get(&ko) {
            Some(r) => (r.clone(), false),
            None => {
                let r = load(st, k, ko).map(Arc::new);
                c.insert(ko, r.clone());
                (r, true)
            }
        }
    };
    let l = match loaded {
        Ok(l) => l,
        Err(e) => {
            tool_error(st, index, k, &e, first);
            writer(p.as_ptr() as *const c_void, 1);
            return;
        }
    };
    let asked = u32::from_le_bytes(p[24..28].try_into().unwrap_or([0; 4]));
    if let Some(area) = l.dynamic_stack_area().filter(|&a| asked > a) {
        // The kernel's dynamic stack may use all the packet grants, which
        // would reach the probe area: run the original.
        let msg = format!(
            "launch {index} of {}: the launch grants {asked} bytes of private segment per lane \
             to a kernel with a dynamic stack, past the probe area at {area}",
            k.demangled
        );
        tool_error(st, index, k, &msg, true);
        writer(p.as_ptr() as *const c_void, 1);
        return;
    }
    let d = AqlDispatch::from_bytes(p);
    let fields = json!({
        "launch": index, "kernel": k.demangled, "mangled": k.mangled,
        "grid": d.grid_size, "block": d.workgroup_size,
    });
    let result = run(st, &l, p, &fields, writer);
    // The application's completion signal, after the results were read.
    let app_signal = u64::from_le_bytes(p[56..64].try_into().unwrap_or([0; 8]));
    if app_signal != 0 {
        (st.api.signal_subtract_screlease)(Handle { handle: app_signal }, 1);
    }
    match result {
        Ok((v, summary)) => record(st, index, k, &d, v, summary),
        Err(e) => tool_error(
            st,
            index,
            k,
            &format!("launch {index} of {}: {e}", k.demangled),
            true,
        ),
    }
}

/// Keeps (`LATHE_TOOL_OUT`) or prints one launch's result `v`; `summary`
/// is a built-in tool's one-line summary.
fn record(
    st: &State,
    index: u64,
    k: &KernelInfo,
    d: &AqlDispatch,
    v: Value,
    summary: Option<String>,
) {
    if st.cfg.out.is_some() {
        lock(&st.records).push(json!({
            "launch": index, "kernel": k.mangled, "name": k.demangled,
            "grid": d.grid_size, "block": d.workgroup_size, "tool": v,
        }));
        return;
    }
    match (&st.cfg.tool, v["line"].as_str()) {
        (Some(ToolSpec::Builtin(Tool::Kernarg)), _) => {
            eprintln!("{}", instr::kernarg_line(index, &k.demangled, d, &v));
        }
        // The tool's own line (its template may name the launch's fields).
        (Some(ToolSpec::Hip(_)), Some(line)) => eprintln!("{line}"),
        _ => eprintln!(
            "Kernel {index} - {}: grid {} block {}: {}: {}",
            k.demangled,
            instr::triple(&d.grid_size),
            instr::triple(&d.workgroup_size),
            st.cfg.tool_name(),
            summary.unwrap_or_else(|| v.to_string())
        ),
    }
}

/// Submits the instrumented dispatch and returns the tool's result.
/// `fields` (the launch index, kernel names, grid and block) fill a HIP
/// tool's `line` placeholders its report variables do not.
fn run(
    st: &State,
    l: &Loaded,
    p: &[u8; 64],
    fields: &Value,
    writer: Writer,
) -> Result<(Value, Option<String>), String> {
    let (guard, sig) = st.serialize()?;
    let wait = || st.wait_below_one(sig);
    if !l.writable().is_empty() {
        // Drain the queue so earlier kernels' writes to device globals are
        // done, then give the copy the application's values.
        let mut b = [0u8; 64];
        let hdr: u16 = PACKET_TYPE_BARRIER_AND | (1 << 8) | (2 << 9) | (2 << 11);
        b[0..2].copy_from_slice(&hdr.to_le_bytes());
        b[56..64].copy_from_slice(&sig.handle.to_le_bytes());
        (st.api.signal_store_relaxed)(sig, 1);
        writer(b.as_ptr() as *const c_void, 1);
        wait();
        sync(st, l, true)?;
    }
    match &l.probes {
        Probes::Builtin { build, data } => {
            // SAFETY: `data` is our live allocation of `data_size` bytes;
            // no dispatch uses it now (serialized).
            unsafe { std::ptr::write_bytes(*data as *mut u8, 0, build.data_size as usize) };
        }
        Probes::Hip { resets, .. } => {
            for (addr, bytes) in resets {
                copy(
                    st,
                    *addr,
                    bytes.as_ptr() as u64,
                    bytes.len(),
                    "resetting a tool variable",
                )?;
            }
        }
    }
    let mut q = *p;
    q[32..40].copy_from_slice(&l.kernel_object.to_le_bytes());
    let priv_size = u32::from_le_bytes(q[24..28].try_into().unwrap_or([0; 4])).max(l.private_size);
    q[24..28].copy_from_slice(&priv_size.to_le_bytes());
    let group = u32::from_le_bytes(q[28..32].try_into().unwrap_or([0; 4])).max(l.group_size);
    q[28..32].copy_from_slice(&group.to_le_bytes());
    q[56..64].copy_from_slice(&sig.handle.to_le_bytes());
    (st.api.signal_store_relaxed)(sig, 1);
    writer(q.as_ptr() as *const c_void, 1);
    wait();
    if !l.writable().is_empty() {
        sync(st, l, false)?;
    }
    let v = match &l.probes {
        Probes::Builtin { build, data } => {
            let mut bytes = vec![0u8; build.data_size as usize];
            // SAFETY: as above; the dispatch has completed (its signal
            // fired with acquire ordering).
            unsafe {
                std::ptr::copy_nonoverlapping(*data as *const u8, bytes.as_mut_ptr(), bytes.len())
            };
            drop(guard);
            let launch = fields["launch"].as_u64().unwrap_or(0);
            let kernel = fields["kernel"].as_str().unwrap_or("");
            let d = instr::decode(build, &bytes, launch, kernel)?;
            if let (Some(t), Some(_)) = (d.trace, &st.cfg.out) {
                lock(&st.traces).add(t);
            }
            (d.json, Some(d.report.to_string()))
        }
        Probes::Hip { tool, vars, .. } => {
            let mut failed = None;
            let mut v = tool.report(&mut |var, n| {
                let addr = *vars.get(var)?;
                let mut b = vec![0u8; n];
                match copy(
                    st,
                    b.as_mut_ptr() as u64,
                    addr,
                    n,
                    "reading a tool variable",
                ) {
                    Ok(()) => Some(b),
                    Err(e) => {
                        failed = Some(e);
                        None
                    }
                }
            });
            drop(guard);
            if let Some(e) = failed {
                return Err(e);
            }
            let line = tool.report_line(&line_values(&v, fields));
            if let Value::Object(m) = &mut v {
                m.insert("name".into(), json!(st.cfg.tool_name()));
                m.insert("hip".into(), json!(true));
                if let Some(line) = line {
                    m.insert("line".into(), json!(line));
                }
            }
            (v, None)
        }
    };
    Ok(v)
}

/// A HIP tool's report values with the launch's `fields` added where the
/// tool has no variable of that name.
fn line_values(report: &Value, fields: &Value) -> Value {
    let mut all = report.clone();
    if let (Value::Object(m), Value::Object(f)) = (&mut all, fields) {
        for (k, v) in f {
            m.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    all
}

/// `hsa_memory_copy` of `len` bytes from `src` to `dst`.
fn copy(st: &State, dst: u64, src: u64, len: usize, what: &str) -> Result<(), String> {
    let r = (st.api.memory_copy)(dst as *mut c_void, src as *const c_void, len);
    check(
        st,
        &format!("{what} ({len} bytes, {src:#x} -> {dst:#x})"),
        r,
    )
}

/// Copies the writable segments original → copy (`into`) or back.
fn sync(st: &State, l: &Loaded, into: bool) -> Result<(), String> {
    for &(vaddr, len) in l.writable() {
        let (o, n) = (l.orig_base + vaddr, l.new_base + vaddr);
        let (dst, src) = if into { (n, o) } else { (o, n) };
        let r = (st.api.memory_copy)(dst as *mut c_void, src as *const c_void, len as usize);
        if r != SUCCESS {
            return Err(format!(
                "copying {len} bytes of device globals ({src:#x} -> {dst:#x}): {}",
                st.api.status(r)
            ));
        }
    }
    Ok(())
}

extern "C" fn find_pool(pool: Handle, data: *mut c_void) -> Status {
    let Some(st) = state() else { return SUCCESS };
    let (mut seg, mut flags, mut alloc) = (u32::MAX, 0u32, false);
    (st.api.pool_get_info)(pool, POOL_INFO_SEGMENT, &mut seg as *mut u32 as *mut c_void);
    (st.api.pool_get_info)(
        pool,
        POOL_INFO_GLOBAL_FLAGS,
        &mut flags as *mut u32 as *mut c_void,
    );
    (st.api.pool_get_info)(
        pool,
        POOL_INFO_ALLOC_ALLOWED,
        &mut alloc as *mut bool as *mut c_void,
    );
    if seg == 0 && flags & POOL_FLAG_FINE_GRAINED != 0 && alloc {
        // SAFETY: `data` is the `Option<Handle>` `system_pool` passed.
        unsafe { *(data as *mut Option<Handle>) = Some(pool) };
        return api::INFO_BREAK;
    }
    SUCCESS
}

extern "C" fn find_cpu_pool(agent: Handle, data: *mut c_void) -> Status {
    let Some(st) = state() else { return SUCCESS };
    let mut dev = u32::MAX;
    (st.api.agent_get_info)(
        agent,
        AGENT_INFO_DEVICE,
        &mut dev as *mut u32 as *mut c_void,
    );
    if dev != DEVICE_TYPE_CPU {
        return SUCCESS;
    }
    (st.api.iterate_pools)(agent, find_pool, data);
    // SAFETY: as in `find_pool`.
    if unsafe { (*(data as *mut Option<Handle>)).is_some() } {
        return api::INFO_BREAK;
    }
    SUCCESS
}

/// A fine-grained system-memory pool (host-readable, GPU-accessible).
fn system_pool(st: &State) -> Result<Handle, String> {
    let mut p = lock(&st.pool);
    if let Some(h) = *p {
        return Ok(h);
    }
    let mut found: Option<Handle> = None;
    (st.api.iterate_agents)(
        find_cpu_pool,
        &mut found as *mut Option<Handle> as *mut c_void,
    );
    let h = found.ok_or("no fine-grained system memory pool on a CPU agent")?;
    *p = Some(h);
    Ok(h)
}

fn check(st: &State, what: &str, s: Status) -> Result<(), String> {
    if s == SUCCESS {
        Ok(())
    } else {
        Err(format!("{what}: {}", st.api.status(s)))
    }
}

/// How a HIP tool's build error starts (it is the same for every kernel).
const HIP_TOOL_ERROR: &str = "HIP tool ";

/// The HIP tool compiled for the processor and wave size of `code` (once
/// per processor and wave size: a wave64 gfx1030 kernel gets wave64
/// hooks).
fn hip_tool(st: &State, path: &std::path::Path, code: &[u8]) -> Result<Arc<HipTool>, String> {
    let target = lathe_codeobj::CodeObject::parse(code)
        .ok()
        .and_then(|c| c.target())
        .map(|t| t.processor.to_string())
        .ok_or("the kernel's code object names no processor")?;
    let wave = lathe_dbi::manifest::kernel_wave_size(code)
        .unwrap_or_else(|| lathe_dbi::manifest::default_wave_size(&target));
    let mut c = lock(&st.hip);
    c.entry(format!("{target} wave{wave}"))
        .or_insert_with(|| {
            HipTool::load_wave(path, &target, wave)
                .map(Arc::new)
                .map_err(|e| {
                    format!(
                        "{HIP_TOOL_ERROR}{} for {target} wave{wave}: {e}",
                        path.display()
                    )
                })
        })
        .clone()
}

/// Instruments `k`, loads it into its own executable (with the HIP tool's
/// code object, for a HIP tool) and prepares what its results are read
/// from.
fn load(st: &State, k: &KernelInfo, orig_ko: u64) -> Result<Loaded, String> {
    enum Made {
        Builtin(Box<Build>),
        Hip(Arc<HipTool>, HipBuild),
    }
    let made = match &st.cfg.tool {
        None => return Err("capture mode instruments nothing".into()),
        Some(ToolSpec::Builtin(t)) => {
            Made::Builtin(Box::new(instr::build_kernel(&k.code, *t, &k.mangled)?))
        }
        Some(ToolSpec::Hip(path)) => {
            let tool = hip_tool(st, path, &k.code)?;
            let b = instr::build_hip(&k.code, &tool, &st.cfg.tool_name(), &k.mangled)?;
            Made::Hip(tool, b)
        }
    };
    let (objects, kd_value): (Vec<Arc<Vec<u8>>>, u64) = match &made {
        Made::Builtin(b) => (vec![Arc::clone(&b.code_object)], b.kd_value),
        Made::Hip(tool, b) => (
            vec![
                Arc::clone(&b.code_object),
                Arc::new(tool.code_object().to_vec()),
            ],
            b.kd_value,
        ),
    };
    let api = &st.api;
    let mut profile = 0u32;
    (api.agent_get_info)(
        k.agent,
        AGENT_INFO_PROFILE,
        &mut profile as *mut u32 as *mut c_void,
    );
    let mut exe = Handle::default();
    check(
        st,
        "hsa_executable_create_alt",
        (api.executable_create_alt)(profile, 0, std::ptr::null(), &mut exe),
    )?;
    for (i, co) in objects.iter().enumerate() {
        let what = if i == 0 {
            "the instrumented code object"
        } else {
            "the HIP tool's code object"
        };
        let mut reader = Handle::default();
        check(
            st,
            &format!("loading {what} (hsa_code_object_reader_create_from_memory)"),
            (api.reader_from_memory)(co.as_ptr() as *const c_void, co.len(), &mut reader),
        )?;
        let mut lco = Handle::default();
        let r = (api.load_agent_code_object)(exe, k.agent, reader, std::ptr::null(), &mut lco);
        (api.reader_destroy)(reader);
        check(
            st,
            &format!("loading {what} (hsa_executable_load_agent_code_object)"),
            r,
        )?;
    }
    check(
        st,
        "hsa_executable_freeze (instrumented code object)",
        (api.freeze)(exe, std::ptr::null()),
    )?;
    let sym = |name: &str| -> Result<Handle, String> {
        let c = CString::new(name).map_err(|e| e.to_string())?;
        let mut s = Handle::default();
        check(
            st,
            &format!("finding {name} in the instrumented executable"),
            (api.get_symbol_by_name)(exe, c.as_ptr(), &k.agent, &mut s),
        )?;
        Ok(s)
    };
    let var_address = |name: &str| -> Result<u64, String> {
        let mut var = 0u64;
        (api.symbol_get_info)(
            sym(name)?,
            SYMBOL_INFO_VARIABLE_ADDRESS,
            &mut var as *mut u64 as *mut c_void,
        );
        if var == 0 {
            return Err(format!(
                "the instrumented executable gave no address for {name}"
            ));
        }
        Ok(var)
    };
    let ks = sym(&format!("{}.kd", k.mangled))?;
    let (mut kernel_object, mut private_size, mut group_size) = (0u64, 0u32, 0u32);
    (api.symbol_get_info)(
        ks,
        SYMBOL_INFO_KERNEL_OBJECT,
        &mut kernel_object as *mut u64 as *mut c_void,
    );
    (api.symbol_get_info)(
        ks,
        SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
        &mut private_size as *mut u32 as *mut c_void,
    );
    (api.symbol_get_info)(
        ks,
        SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
        &mut group_size as *mut u32 as *mut c_void,
    );
    if kernel_object == 0 {
        return Err(format!(
            "the instrumented executable gave no address for {}.kd",
            k.mangled
        ));
    }
    // The probe-data buffer: the built-in tool's results; a HIP tool's
    // instrumented object may have the variable too (unused by hooks), and
    // it gets a small buffer so the pointer is valid.
    let data_size = match &made {
        Made::Builtin(b) => b.data_size,
        Made::Hip(..) => 8,
    };
    let data_var = match &made {
        Made::Builtin(_) => Some(var_address(lathe_dbi::elfout::DATA_SYMBOL)?),
        Made::Hip(..) => var_address(lathe_dbi::elfout::DATA_SYMBOL).ok(),
    };
    let mut buf: *mut c_void = std::ptr::null_mut();
    if let Some(var) = data_var {
        let pool = system_pool(st)?;
        check(
            st,
            &format!("allocating {data_size} bytes of probe data"),
            (api.pool_allocate)(pool, data_size as usize, 0, &mut buf),
        )?;
        check(
            st,
            "hsa_amd_agents_allow_access (probe data)",
            (api.allow_access)(1, &k.agent, std::ptr::null(), buf),
        )?;
        let ptr = buf as u64;
        copy(
            st,
            var,
            &ptr as *const u64 as u64,
            8,
            "writing the probe-data pointer",
        )?;
    }
    let probes = match made {
        Made::Builtin(build) => Probes::Builtin {
            build,
            data: buf as usize,
        },
        Made::Hip(tool, build) => {
            let mut vars = HashMap::new();
            let mut resets = Vec::new();
            for (name, bytes) in tool.reset_values() {
                let addr = var_address(&name)
                    .map_err(|e| format!("the HIP tool's report variable {name}: {e}"))?;
                vars.insert(name, addr);
                resets.push((addr, bytes));
            }
            link_hooks(
                st,
                &tool,
                &build,
                &vars,
                kernel_object.wrapping_sub(kd_value),
            )?;
            Probes::Hip {
                tool,
                build,
                vars,
                resets,
            }
        }
    };
    Ok(Loaded {
        orig_base: orig_ko.wrapping_sub(kd_value),
        new_base: kernel_object.wrapping_sub(kd_value),
        probes,
        kernel_object,
        private_size,
        group_size,
    })
}

/// Writes the hook calls' relocated fields into the loaded instrumented
/// code (at `new_base`), from where the tool object was loaded, found
/// through one of its report variables (device functions are not HSA
/// symbols: ROCr #203). Lathe's loader has applied them already (the
/// values are checked to agree); ROCr does not apply `.rela.lathe.text`,
/// so there this is what links the hooks.
fn link_hooks(
    st: &State,
    tool: &HipTool,
    build: &HipBuild,
    vars: &HashMap<String, u64>,
    new_base: u64,
) -> Result<(), String> {
    if build.relocs.is_empty() {
        return Ok(());
    }
    let tool_co =
        lathe_codeobj::CodeObject::parse(tool.code_object()).map_err(|e| e.to_string())?;
    let Some(tool_base) = vars.iter().find_map(|(name, addr)| {
        tool_co
            .find_elf_symbol(name)
            .map(|s| addr.wrapping_sub(s.value))
    }) else {
        // No variable to locate the tool object by: rely on the loader.
        return Ok(());
    };
    for &(offset, kind, value, addend) in &build.relocs {
        let p = new_base.wrapping_add(offset);
        let v = tool_base
            .wrapping_add(value)
            .wrapping_add(addend as u64)
            .wrapping_sub(p);
        let field = match kind {
            lathe_dbi::elfout::R_AMDGPU_REL32_LO => v as u32,
            lathe_dbi::elfout::R_AMDGPU_REL32_HI => (v >> 32) as u32,
            other => return Err(format!("hook relocation of type {other} at {offset:#x}")),
        };
        let mut have = 0u32;
        copy(
            st,
            &mut have as *mut u32 as u64,
            p,
            4,
            "reading a hook call's address field",
        )?;
        if have != field {
            copy(st, p, &field as *const u32 as u64, 4, "linking a hook call")?;
        }
    }
    Ok(())
}

//! The HSA API table a tool receives in `OnLoad` (ROCm 5.2
//! `hsa_api_trace.h` layout): reading the runtime's entries this library
//! calls, and replacing the entries it wraps.
//!
//! Every HSA function the library calls is an entry read from this table
//! (never a symbol it links against), so it works with any runtime that
//! loads `HSA_TOOLS_LIB` tools — ROCr or Lathe's own. The field order comes
//! from the same generated list Lathe's runtime builds its table from.

use std::ffi::{c_char, c_void};

#[path = "../../hsa/src/table_gen.rs"]
#[allow(dead_code)]
mod table_gen;

/// `hsa_status_t`.
pub type Status = u32;
/// `HSA_STATUS_SUCCESS`.
pub const SUCCESS: Status = 0;
/// `HSA_STATUS_INFO_BREAK`.
pub const INFO_BREAK: Status = 1;

/// An opaque 64-bit HSA handle (`hsa_agent_t`, `hsa_signal_t`, …).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Handle {
    /// The handle.
    pub handle: u64,
}

/// `ApiTableVersion`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct ApiTableVersion {
    major_id: u32,
    minor_id: u32,
    step_id: u32,
    reserved: u32,
}

/// `HsaApiTable`.
#[repr(C)]
#[derive(Debug)]
pub struct HsaApiTable {
    version: ApiTableVersion,
    core: *mut c_void,
    amd_ext: *mut c_void,
    finalizer_ext: *mut c_void,
    image_ext: *mut c_void,
}

/// Which sub-table an entry lives in.
#[derive(Debug, Clone, Copy)]
enum Sub {
    Core,
    AmdExt,
}

/// Why the table cannot be used.
#[derive(Debug)]
pub struct TableError(pub String);

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Address of the slot of entry `name` (`hsa_queue_create`) in `table`.
fn slot(table: *mut HsaApiTable, sub: Sub, name: &str) -> Result<*mut *mut c_void, TableError> {
    let (names, which): (&[&str], &str) = match sub {
        Sub::Core => (&table_gen::CORE, "core"),
        Sub::AmdExt => (&table_gen::AMD_EXT, "AMD extension"),
    };
    let i = names
        .iter()
        .position(|n| *n == name)
        .ok_or_else(|| TableError(format!("{name} is not an entry of the {which} table")))?;
    // SAFETY: `table` is the runtime's live `HsaApiTable` (OnLoad contract);
    // reading its sub-table pointers.
    let t = unsafe {
        match sub {
            Sub::Core => (*table).core,
            Sub::AmdExt => (*table).amd_ext,
        }
    };
    if t.is_null() {
        return Err(TableError(format!("the runtime has no {which} table")));
    }
    // SAFETY: every sub-table starts with an `ApiTableVersion` whose
    // `minor_id` is the table's size in bytes.
    let size = unsafe { (*(t as *const ApiTableVersion)).minor_id } as usize;
    let off = std::mem::size_of::<ApiTableVersion>() + 8 * i;
    if size != 0 && off + 8 > size {
        return Err(TableError(format!(
            "the runtime's {which} table ({size} bytes) has no {name} entry"
        )));
    }
    // SAFETY: `off` is inside the sub-table (checked against its size).
    Ok(unsafe { (t as *mut u8).add(off) } as *mut *mut c_void)
}

/// Reads entry `name`; an empty entry is an error.
fn get(table: *mut HsaApiTable, sub: Sub, name: &str) -> Result<*mut c_void, TableError> {
    let s = slot(table, sub, name)?;
    // SAFETY: `s` is a valid, aligned slot of the live table.
    let p = unsafe { std::ptr::read_volatile(s) };
    if p.is_null() {
        return Err(TableError(format!("the runtime's {name} entry is empty")));
    }
    Ok(p)
}

/// Replaces entry `name` with `f`.
fn set(table: *mut HsaApiTable, sub: Sub, name: &str, f: *mut c_void) -> Result<(), TableError> {
    let s = slot(table, sub, name)?;
    // SAFETY: as in `get`; tools replace entries in OnLoad, before the
    // runtime's users call through them.
    unsafe { std::ptr::write_volatile(s, f) };
    Ok(())
}

type AgentCb = extern "C" fn(Handle, *mut c_void) -> Status;
type SymbolCb = extern "C" fn(Handle, Handle, *mut c_void) -> Status;
type PoolCb = extern "C" fn(Handle, *mut c_void) -> Status;
/// `hsa_amd_queue_intercept_packet_writer`.
pub type Writer = extern "C" fn(*const c_void, u64);
/// `hsa_amd_queue_intercept_handler`.
pub type Interceptor = extern "C" fn(*const c_void, u64, u64, *mut c_void, Writer);
/// A queue error callback.
pub type QueueErrorCb = Option<extern "C" fn(Status, *mut c_void, *mut c_void)>;
/// `hsa_queue_create`'s signature (also `hsa_amd_queue_intercept_create`).
pub type QueueCreate = extern "C" fn(
    Handle,
    u32,
    u32,
    QueueErrorCb,
    *mut c_void,
    u32,
    u32,
    *mut *mut c_void,
) -> Status;
/// `hsa_code_object_reader_create_from_memory`.
pub type ReaderFromMemory = extern "C" fn(*const c_void, usize, *mut Handle) -> Status;
/// `hsa_code_object_reader_create_from_file`.
pub type ReaderFromFile = extern "C" fn(i32, *mut Handle) -> Status;
/// `hsa_code_object_reader_destroy`.
pub type ReaderDestroy = extern "C" fn(Handle) -> Status;
/// `hsa_executable_load_agent_code_object`.
pub type LoadAgentCodeObject =
    extern "C" fn(Handle, Handle, Handle, *const c_char, *mut Handle) -> Status;
/// `hsa_executable_freeze`.
pub type Freeze = extern "C" fn(Handle, *const c_char) -> Status;
/// `hsa_executable_destroy`.
pub type ExecutableDestroy = extern "C" fn(Handle) -> Status;

/// `hsa_amd_memory_pool_allocate`.
pub type PoolAllocate = extern "C" fn(Handle, usize, u32, *mut *mut c_void) -> Status;
/// `hsa_amd_memory_pool_free` (also `hsa_memory_free`).
pub type PoolFree = extern "C" fn(*mut c_void) -> Status;
/// `hsa_memory_allocate`.
pub type MemoryAllocate = extern "C" fn(Handle, usize, *mut *mut c_void) -> Status;
/// `hsa_amd_memory_lock`.
pub type MemoryLock =
    extern "C" fn(*mut c_void, usize, *const Handle, i32, *mut *mut c_void) -> Status;
/// `hsa_amd_memory_lock_to_pool`.
pub type MemoryLockToPool =
    extern "C" fn(*mut c_void, usize, *const Handle, i32, Handle, u32, *mut *mut c_void) -> Status;

macro_rules! api {
    ($($field:ident : $sub:ident $name:literal $ty:ty;)*) => {
        /// The runtime's entries this library calls (read from the table
        /// before any are replaced).
        #[derive(Clone, Copy)]
        #[allow(missing_docs)]
        pub struct Api { $(pub $field: $ty,)* }

        impl std::fmt::Debug for Api {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("Api")
            }
        }

        impl Api {
            /// Reads every entry from the table.
            pub fn read(table: *mut HsaApiTable) -> Result<Api, TableError> {
                Ok(Api { $(
                    // SAFETY: the entry named $name has C type $ty by the
                    // ROCm 5.2 header (checked non-null by `get`).
                    $field: unsafe { std::mem::transmute::<*mut c_void, $ty>(get(table, Sub::$sub, $name)?) },
                )* })
            }
        }
    };
}

api! {
    iterate_agents: Core "hsa_iterate_agents" extern "C" fn(AgentCb, *mut c_void) -> Status;
    agent_get_info: Core "hsa_agent_get_info" extern "C" fn(Handle, u32, *mut c_void) -> Status;
    queue_create: Core "hsa_queue_create" QueueCreate;
    signal_create: Core "hsa_signal_create" extern "C" fn(i64, u32, *const Handle, *mut Handle) -> Status;
    signal_store_relaxed: Core "hsa_signal_store_relaxed" extern "C" fn(Handle, i64);
    signal_wait_scacquire: Core "hsa_signal_wait_scacquire" extern "C" fn(Handle, u32, i64, u64, u32) -> i64;
    signal_subtract_screlease: Core "hsa_signal_subtract_screlease" extern "C" fn(Handle, i64);
    memory_copy: Core "hsa_memory_copy" extern "C" fn(*mut c_void, *const c_void, usize) -> Status;
    reader_from_memory: Core "hsa_code_object_reader_create_from_memory" ReaderFromMemory;
    reader_from_file: Core "hsa_code_object_reader_create_from_file" ReaderFromFile;
    reader_destroy: Core "hsa_code_object_reader_destroy" ReaderDestroy;
    executable_create_alt: Core "hsa_executable_create_alt" extern "C" fn(u32, u32, *const c_char, *mut Handle) -> Status;
    executable_destroy: Core "hsa_executable_destroy" ExecutableDestroy;
    load_agent_code_object: Core "hsa_executable_load_agent_code_object" LoadAgentCodeObject;
    freeze: Core "hsa_executable_freeze" Freeze;
    iterate_symbols: Core "hsa_executable_iterate_symbols" extern "C" fn(Handle, SymbolCb, *mut c_void) -> Status;
    get_symbol_by_name: Core "hsa_executable_get_symbol_by_name" extern "C" fn(Handle, *const c_char, *const Handle, *mut Handle) -> Status;
    symbol_get_info: Core "hsa_executable_symbol_get_info" extern "C" fn(Handle, u32, *mut c_void) -> Status;
    status_string: Core "hsa_status_string" extern "C" fn(Status, *mut *const c_char) -> Status;
    iterate_pools: AmdExt "hsa_amd_agent_iterate_memory_pools" extern "C" fn(Handle, PoolCb, *mut c_void) -> Status;
    pool_get_info: AmdExt "hsa_amd_memory_pool_get_info" extern "C" fn(Handle, u32, *mut c_void) -> Status;
    pool_allocate: AmdExt "hsa_amd_memory_pool_allocate" PoolAllocate;
    allow_access: AmdExt "hsa_amd_agents_allow_access" extern "C" fn(u32, *const Handle, *const u32, *const c_void) -> Status;
    intercept_create: AmdExt "hsa_amd_queue_intercept_create" QueueCreate;
    intercept_register: AmdExt "hsa_amd_queue_intercept_register" extern "C" fn(*mut c_void, Interceptor, *mut c_void) -> Status;
    pool_free: AmdExt "hsa_amd_memory_pool_free" PoolFree;
    memory_allocate: Core "hsa_memory_allocate" MemoryAllocate;
    memory_free: Core "hsa_memory_free" PoolFree;
    memory_lock: AmdExt "hsa_amd_memory_lock" MemoryLock;
    memory_lock_to_pool: AmdExt "hsa_amd_memory_lock_to_pool" MemoryLockToPool;
    memory_unlock: AmdExt "hsa_amd_memory_unlock" PoolFree;
    major_extension_table: Core "hsa_system_get_major_extension_table" extern "C" fn(u16, u16, usize, *mut c_void) -> Status;
}

/// Entries this library replaces with its own wrappers.
#[derive(Debug, Clone, Copy)]
pub struct Wrappers {
    /// `hsa_queue_create`.
    pub queue_create: QueueCreate,
    /// `hsa_code_object_reader_create_from_memory`.
    pub reader_from_memory: ReaderFromMemory,
    /// `hsa_code_object_reader_create_from_file`.
    pub reader_from_file: ReaderFromFile,
    /// `hsa_code_object_reader_destroy`.
    pub reader_destroy: ReaderDestroy,
    /// `hsa_executable_load_agent_code_object`.
    pub load_agent_code_object: LoadAgentCodeObject,
    /// `hsa_executable_freeze`.
    pub freeze: Freeze,
    /// `hsa_executable_destroy`.
    pub executable_destroy: ExecutableDestroy,
}

/// Installs the wrappers in the table.
pub fn install(table: *mut HsaApiTable, w: &Wrappers) -> Result<(), TableError> {
    let core = |name, f: *mut c_void| set(table, Sub::Core, name, f);
    core(
        "hsa_code_object_reader_create_from_memory",
        w.reader_from_memory as *mut c_void,
    )?;
    core(
        "hsa_code_object_reader_create_from_file",
        w.reader_from_file as *mut c_void,
    )?;
    core(
        "hsa_code_object_reader_destroy",
        w.reader_destroy as *mut c_void,
    )?;
    core(
        "hsa_executable_load_agent_code_object",
        w.load_agent_code_object as *mut c_void,
    )?;
    core("hsa_executable_freeze", w.freeze as *mut c_void)?;
    core(
        "hsa_executable_destroy",
        w.executable_destroy as *mut c_void,
    )?;
    core("hsa_queue_create", w.queue_create as *mut c_void)?;
    Ok(())
}

/// The allocation entries capture mode wraps.
#[derive(Debug, Clone, Copy)]
pub struct AllocWrappers {
    /// `hsa_amd_memory_pool_allocate`.
    pub pool_allocate: PoolAllocate,
    /// `hsa_amd_memory_pool_free`.
    pub pool_free: PoolFree,
    /// `hsa_memory_allocate`.
    pub memory_allocate: MemoryAllocate,
    /// `hsa_memory_free`.
    pub memory_free: PoolFree,
    /// `hsa_amd_memory_lock`.
    pub memory_lock: MemoryLock,
    /// `hsa_amd_memory_lock_to_pool`.
    pub memory_lock_to_pool: MemoryLockToPool,
    /// `hsa_amd_memory_unlock`.
    pub memory_unlock: PoolFree,
}

/// Installs the allocation wrappers (capture mode) in the table.
pub fn install_alloc(table: *mut HsaApiTable, w: &AllocWrappers) -> Result<(), TableError> {
    set(
        table,
        Sub::AmdExt,
        "hsa_amd_memory_pool_allocate",
        w.pool_allocate as *mut c_void,
    )?;
    set(
        table,
        Sub::AmdExt,
        "hsa_amd_memory_pool_free",
        w.pool_free as *mut c_void,
    )?;
    set(
        table,
        Sub::Core,
        "hsa_memory_allocate",
        w.memory_allocate as *mut c_void,
    )?;
    set(
        table,
        Sub::Core,
        "hsa_memory_free",
        w.memory_free as *mut c_void,
    )?;
    set(
        table,
        Sub::AmdExt,
        "hsa_amd_memory_lock",
        w.memory_lock as *mut c_void,
    )?;
    set(
        table,
        Sub::AmdExt,
        "hsa_amd_memory_lock_to_pool",
        w.memory_lock_to_pool as *mut c_void,
    )?;
    set(
        table,
        Sub::AmdExt,
        "hsa_amd_memory_unlock",
        w.memory_unlock as *mut c_void,
    )
}

impl Api {
    /// `hsa_status_string` of `s`, or its number.
    pub fn status(&self, s: Status) -> String {
        let mut p: *const c_char = std::ptr::null();
        if (self.status_string)(s, &mut p) == SUCCESS && !p.is_null() {
            // SAFETY: the runtime returns a NUL-terminated static string.
            let c = unsafe { std::ffi::CStr::from_ptr(p) };
            return format!("{} ({s:#x})", c.to_string_lossy());
        }
        format!("HSA status {s:#x}")
    }
}

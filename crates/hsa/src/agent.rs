//! System, agent and ISA queries: a CPU agent and one GPU agent for the
//! modelled target, answered as ROCr answers for that GPU.

use std::ffi::c_void;

use crate::ffi::*;
use crate::out::{put, put_bytes, put_str};
use crate::rt::{self, h, rt, AGENT_CPU, AGENT_GPU, ISA_GPU};

pub type AgentCallback = Option<extern "C" fn(Agent, *mut c_void) -> Status>;
pub type IsaCallback = Option<extern "C" fn(Isa, *mut c_void) -> Status>;

pub fn init() -> Status {
    rt::init()
}

pub fn shut_down() -> Status {
    rt::shut_down()
}

pub fn system_get_info(attr: u32, value: *mut c_void) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    match attr {
        SYSTEM_INFO_VERSION_MAJOR => put(value, 1u16),
        SYSTEM_INFO_VERSION_MINOR => put(value, 1u16),
        SYSTEM_INFO_TIMESTAMP => put(value, rt::now_ticks()),
        SYSTEM_INFO_TIMESTAMP_FREQUENCY => put(value, 1_000_000_000u64),
        SYSTEM_INFO_SIGNAL_MAX_WAIT => put(value, u64::MAX),
        SYSTEM_INFO_ENDIANNESS => put(value, 0u32),
        SYSTEM_INFO_MACHINE_MODEL => put(value, 1u32),
        SYSTEM_INFO_EXTENSIONS => {
            let mut b = [0u8; 128];
            // HSA_EXTENSION_AMD_LOADER (0x201) is bit 0x201 of the mask.
            b[(EXTENSION_AMD_LOADER / 8) as usize % 128] |= 1 << (EXTENSION_AMD_LOADER % 8);
            put_bytes(value, &b)
        }
        AMD_SYSTEM_INFO_BUILD_VERSION => put(
            value,
            c"lathe-hsa 0.1 (ROCr 5.2 API)".as_ptr() as *const libc::c_char,
        ),
        // No HMM: HIP then backs managed memory with fine-grained system
        // pool allocations instead of plain host memory plus SVM attributes.
        AMD_SYSTEM_INFO_SVM_SUPPORTED => put(value, false),
        // An MI210 with xnack- does not reach pageable host memory: HIP then
        // stages pageable copies through locked buffers, as on the real GPU.
        AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT => put(value, false),
        _ => crate::trace::fail(
            ERROR_INVALID_ARGUMENT,
            format!("hsa_system_get_info: unknown attribute {attr:#x}"),
        ),
    }
}

pub fn system_extension_supported(ext: u16, major: u16, minor: u16, result: *mut bool) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    let ok = ext == EXTENSION_AMD_LOADER && major == 1 && minor <= 3;
    put(result as *mut c_void, ok)
}

pub fn system_major_extension_supported(
    ext: u16,
    major: u16,
    minor: *mut u16,
    result: *mut bool,
) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    let ok = ext == EXTENSION_AMD_LOADER && major == 1;
    if ok {
        put(minor as *mut c_void, 3u16);
    }
    put(result as *mut c_void, ok)
}

pub fn system_get_major_extension_table(
    ext: u16,
    major: u16,
    len: usize,
    table: *mut c_void,
) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    if ext == EXTENSION_AMD_LOADER && major == 1 {
        let t = crate::exec::loader_table();
        // SAFETY: `t` is a plain struct of pointers; viewing it as bytes for
        // a copy of its own size is sound.
        let bytes = unsafe {
            std::slice::from_raw_parts(
                &t as *const LoaderTable as *const u8,
                std::mem::size_of::<LoaderTable>(),
            )
        };
        return put_bytes(table, &bytes[..len.min(bytes.len())]);
    }
    crate::trace::fail(
        ERROR_INVALID_ARGUMENT,
        format!("hsa_system_get_major_extension_table: extension {ext:#x} v{major} is not provided (images, finalizer and profiler are not modelled)"),
    )
}

pub fn system_get_extension_table(ext: u16, major: u16, minor: u16, table: *mut c_void) -> Status {
    let _ = minor;
    let len = match minor {
        0 => 3,
        1 => 5,
        2 => 6,
        _ => 7,
    } * std::mem::size_of::<usize>();
    system_get_major_extension_table(ext, major, len, table)
}

pub fn iterate_agents(cb: AgentCallback, data: *mut c_void) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    let Some(cb) = cb else {
        return ERROR_INVALID_ARGUMENT;
    };
    for a in [AGENT_CPU, AGENT_GPU] {
        match cb(h(a), data) {
            SUCCESS => {}
            INFO_BREAK => return SUCCESS,
            s => return s,
        }
    }
    SUCCESS
}

fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "CPU".into())
}

fn cpu_count() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
}

pub fn agent_get_info(agent: Agent, attr: u32, value: *mut c_void) -> Status {
    let Some(r) = rt() else {
        return ERROR_NOT_INITIALIZED;
    };
    let gpu = match agent.handle {
        AGENT_GPU => true,
        AGENT_CPU => false,
        _ => {
            return crate::trace::fail(
                ERROR_INVALID_AGENT,
                format!("hsa_agent_get_info: {:#x} is not an agent", agent.handle),
            )
        }
    };
    let g = &r.gpu.spec;
    match attr {
        AGENT_INFO_NAME => {
            if gpu {
                put_str(value, g.processor, 64)
            } else {
                put_str(value, &cpu_name(), 64)
            }
        }
        AGENT_INFO_VENDOR_NAME => put_str(value, if gpu { "AMD" } else { "CPU" }, 64),
        // HSA_AGENT_FEATURE_KERNEL_DISPATCH (1) / AGENT_DISPATCH (2).
        AGENT_INFO_FEATURE => put(value, if gpu { 1u32 } else { 2u32 }),
        AGENT_INFO_MACHINE_MODEL => put(value, 1u32),
        AGENT_INFO_PROFILE => put(value, 0u32),
        AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE => put(value, 1u32),
        AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES => put(value, 1u32),
        AGENT_INFO_FAST_F16_OPERATION => put(value, gpu),
        AGENT_INFO_WAVEFRONT_SIZE => put(value, if gpu { g.wave_size } else { 0 }),
        AGENT_INFO_WORKGROUP_MAX_DIM => {
            let d: [u16; 3] = if gpu { [1024; 3] } else { [0; 3] };
            put(value, d)
        }
        AGENT_INFO_WORKGROUP_MAX_SIZE => put(value, if gpu { 1024u32 } else { 0 }),
        AGENT_INFO_GRID_MAX_DIM => {
            let d: [u32; 3] = if gpu { [u32::MAX; 3] } else { [0; 3] };
            put(value, d)
        }
        AGENT_INFO_GRID_MAX_SIZE => put(value, if gpu { u32::MAX } else { 0 }),
        AGENT_INFO_FBARRIER_MAX_SIZE => put(value, if gpu { 32u32 } else { 0 }),
        AGENT_INFO_QUEUES_MAX => put(value, if gpu { 128u32 } else { 0 }),
        AGENT_INFO_QUEUE_MIN_SIZE => put(value, if gpu { 64u32 } else { 0 }),
        AGENT_INFO_QUEUE_MAX_SIZE => put(value, if gpu { 131072u32 } else { 0 }),
        // HSA_QUEUE_TYPE_MULTIPLE.
        AGENT_INFO_QUEUE_TYPE => put(value, 1u32),
        AGENT_INFO_NODE => put(value, if gpu { 1u32 } else { 0 }),
        AGENT_INFO_DEVICE => put(
            value,
            if gpu {
                DEVICE_TYPE_GPU
            } else {
                DEVICE_TYPE_CPU
            },
        ),
        AGENT_INFO_CACHE_SIZE => {
            let c: [u32; 4] = if gpu {
                [g.l1_bytes, g.l2_bytes, g.l3_bytes, 0]
            } else {
                [32 * 1024, 1 << 20, 32 << 20, 0]
            };
            put(value, c)
        }
        AGENT_INFO_ISA => {
            if gpu {
                put(value, h(ISA_GPU))
            } else {
                put(value, h(0))
            }
        }
        AGENT_INFO_EXTENSIONS => {
            let mut b = [0u8; 128];
            if gpu {
                b[(EXTENSION_AMD_LOADER / 8) as usize % 128] |= 1 << (EXTENSION_AMD_LOADER % 8);
            }
            put_bytes(value, &b)
        }
        AGENT_INFO_VERSION_MAJOR => put(value, 1u16),
        AGENT_INFO_VERSION_MINOR => put(value, 1u16),
        AMD_AGENT_INFO_CHIP_ID => put(value, if gpu { g.chip_id } else { 0 }),
        AMD_AGENT_INFO_CACHELINE_SIZE => put(value, if gpu { g.cacheline } else { 64 }),
        AMD_AGENT_INFO_COMPUTE_UNIT_COUNT => {
            put(value, if gpu { g.compute_units } else { cpu_count() })
        }
        // The emulated shader clock (`s_memtime`, `clock64()`) runs at this
        // rate, so `clockRate` × N ms cycles are N ms of emulated work (D21).
        AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY => put(
            value,
            if gpu {
                (lathe_emu::clock::SHADER_CLOCK_HZ / 1_000_000) as u32
            } else {
                3000
            },
        ),
        AMD_AGENT_INFO_DRIVER_NODE_ID => put(value, if gpu { 1u32 } else { 0 }),
        AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS => put(value, 4u32),
        AMD_AGENT_INFO_BDFID => put(value, if gpu { 0x0300u32 } else { 0 }),
        AMD_AGENT_INFO_MEMORY_WIDTH => put(value, if gpu { g.memory_width } else { 64 }),
        AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY => {
            put(value, if gpu { g.memory_clock_mhz } else { 3200 })
        }
        AMD_AGENT_INFO_PRODUCT_NAME => put_str(value, if gpu { g.product } else { "CPU" }, 64),
        AMD_AGENT_INFO_MAX_WAVES_PER_CU => put(value, if gpu { g.waves_per_cu } else { 0 }),
        AMD_AGENT_INFO_NUM_SIMDS_PER_CU => put(value, if gpu { g.simds_per_cu } else { 0 }),
        AMD_AGENT_INFO_NUM_SHADER_ENGINES => put(value, if gpu { g.shader_engines } else { 0 }),
        AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE => {
            put(value, if gpu { g.arrays_per_engine } else { 0 })
        }
        AMD_AGENT_INFO_HDP_FLUSH => put(value, [0u64; 2]),
        AMD_AGENT_INFO_DOMAIN => put(value, 0u32),
        // No cooperative queues: the emulator runs a dispatch's work-groups
        // in turn on its host threads, so a grid-wide barrier would wait
        // forever for work-groups that have not started (docs/decisions.md
        // D6). HIP then reports no cooperative launch and refuses one.
        AMD_AGENT_INFO_COOPERATIVE_QUEUES => put(value, false),
        AMD_AGENT_INFO_UUID => put_str(
            value,
            if gpu {
                "GPU-4c415448454d5531"
            } else {
                "CPU-XX"
            },
            21,
        ),
        AMD_AGENT_INFO_ASIC_REVISION => put(value, if gpu { g.asic_revision } else { 0 }),
        AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS => put(value, !gpu),
        AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT => {
            put(value, if gpu { g.compute_units } else { 0 })
        }
        _ => crate::trace::fail(
            ERROR_INVALID_ARGUMENT,
            format!("hsa_agent_get_info: attribute {attr:#x} is not modelled"),
        ),
    }
}

pub fn agent_extension_supported(
    ext: u16,
    agent: Agent,
    major: u16,
    minor: u16,
    result: *mut bool,
) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    if !rt::is_agent(agent) {
        return ERROR_INVALID_AGENT;
    }
    let ok = agent.handle == AGENT_GPU && ext == EXTENSION_AMD_LOADER && major == 1 && minor <= 3;
    put(result as *mut c_void, ok)
}

pub fn agent_major_extension_supported(
    ext: u16,
    agent: Agent,
    major: u16,
    minor: *mut u16,
    result: *mut bool,
) -> Status {
    let s = agent_extension_supported(ext, agent, major, 0, result);
    if s == SUCCESS {
        put(minor as *mut c_void, 3u16);
    }
    s
}

pub fn agent_iterate_isas(agent: Agent, cb: IsaCallback, data: *mut c_void) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    if !rt::is_agent(agent) {
        return ERROR_INVALID_AGENT;
    }
    let Some(cb) = cb else {
        return ERROR_INVALID_ARGUMENT;
    };
    if agent.handle == AGENT_GPU {
        match cb(h(ISA_GPU), data) {
            SUCCESS | INFO_BREAK => {}
            s => return s,
        }
    }
    SUCCESS
}

pub fn isa_from_name(name: *const libc::c_char, isa: *mut Isa) -> Status {
    let Some(r) = rt() else {
        return ERROR_NOT_INITIALIZED;
    };
    let Some(n) = crate::out::get_cstr(name) else {
        return ERROR_INVALID_ARGUMENT;
    };
    if n == r.gpu.isa_name {
        put(isa as *mut c_void, h(ISA_GPU))
    } else {
        crate::trace::fail(
            ERROR_INVALID_ISA_NAME,
            format!(
                "hsa_isa_from_name: {n:?} is not the agent's ISA {}",
                r.gpu.isa_name
            ),
        )
    }
}

pub fn isa_get_info_alt(isa: Isa, attr: u32, value: *mut c_void) -> Status {
    let Some(r) = rt() else {
        return ERROR_NOT_INITIALIZED;
    };
    if isa.handle != ISA_GPU {
        return ERROR_INVALID_ISA;
    }
    let name = &r.gpu.isa_name;
    match attr {
        ISA_INFO_NAME_LENGTH => put(value, name.len() as u32 + 1),
        ISA_INFO_NAME => {
            let mut b = name.as_bytes().to_vec();
            b.push(0);
            put_bytes(value, &b)
        }
        ISA_INFO_CALL_CONVENTION_COUNT => put(value, 1u32),
        ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE => put(value, r.gpu.spec.wave_size),
        ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT => put(value, 40u32),
        ISA_INFO_MACHINE_MODELS => put(value, [false, true]),
        ISA_INFO_PROFILES => put(value, [true, false]),
        ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES => put(value, [false, false, true]),
        ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES => put(value, [false, false, true]),
        ISA_INFO_FAST_F16_OPERATION => put(value, true),
        ISA_INFO_WORKGROUP_MAX_DIM => put(value, [1024u16; 3]),
        ISA_INFO_WORKGROUP_MAX_SIZE => put(value, 1024u32),
        ISA_INFO_GRID_MAX_DIM => put(value, [u32::MAX; 3]),
        ISA_INFO_GRID_MAX_SIZE => put(value, u64::from(u32::MAX)),
        ISA_INFO_FBARRIER_MAX_SIZE => put(value, 32u32),
        _ => ERROR_INVALID_ARGUMENT,
    }
}

pub fn isa_get_info(isa: Isa, attr: u32, index: u32, value: *mut c_void) -> Status {
    if index != 0 {
        return ERROR_INVALID_INDEX;
    }
    isa_get_info_alt(isa, attr, value)
}

pub fn status_string(status: Status, out: *mut *const libc::c_char) -> Status {
    let s: &'static std::ffi::CStr = match status {
        SUCCESS => c"HSA_STATUS_SUCCESS: The function has been executed successfully.",
        INFO_BREAK => c"HSA_STATUS_INFO_BREAK: A traversal over a list of elements has been interrupted by the application before completing.",
        ERROR => c"HSA_STATUS_ERROR: A generic error has occurred.",
        ERROR_INVALID_ARGUMENT => c"HSA_STATUS_ERROR_INVALID_ARGUMENT: One of the actual arguments does not meet a precondition stated in the documentation of the corresponding formal argument.",
        ERROR_INVALID_QUEUE_CREATION => c"HSA_STATUS_ERROR_INVALID_QUEUE_CREATION: The requested queue is not valid.",
        ERROR_INVALID_ALLOCATION => c"HSA_STATUS_ERROR_INVALID_ALLOCATION: The requested allocation is not valid.",
        ERROR_INVALID_AGENT => c"HSA_STATUS_ERROR_INVALID_AGENT: The agent is invalid.",
        ERROR_INVALID_SIGNAL => c"HSA_STATUS_ERROR_INVALID_SIGNAL: The signal is invalid.",
        ERROR_INVALID_QUEUE => c"HSA_STATUS_ERROR_INVALID_QUEUE: The queue is invalid.",
        ERROR_OUT_OF_RESOURCES => c"HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.",
        ERROR_INVALID_PACKET_FORMAT => c"HSA_STATUS_ERROR_INVALID_PACKET_FORMAT: The AQL packet is malformed.",
        ERROR_NOT_INITIALIZED => c"HSA_STATUS_ERROR_NOT_INITIALIZED: An API other than hsa_init has been invoked while the reference count of the HSA runtime is zero.",
        ERROR_INVALID_CODE_OBJECT => c"HSA_STATUS_ERROR_INVALID_CODE_OBJECT: The code object is invalid.",
        ERROR_INVALID_EXECUTABLE => c"HSA_STATUS_ERROR_INVALID_EXECUTABLE: The executable is invalid.",
        ERROR_FROZEN_EXECUTABLE => c"HSA_STATUS_ERROR_FROZEN_EXECUTABLE: The executable is frozen.",
        ERROR_INVALID_SYMBOL_NAME => c"HSA_STATUS_ERROR_INVALID_SYMBOL_NAME: There is no symbol with the given name.",
        ERROR_VARIABLE_UNDEFINED => c"HSA_STATUS_ERROR_VARIABLE_UNDEFINED: The variable is undefined.",
        ERROR_EXCEPTION => c"HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception.",
        ERROR_INVALID_CODE_OBJECT_READER => c"HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER: The code object reader is invalid.",
        ERROR_INVALID_FILE => c"HSA_STATUS_ERROR_INVALID_FILE: The file descriptor is invalid.",
        AMD_ERROR_MEMORY_APERTURE_VIOLATION => c"HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The memory access was outside every allocation.",
        AMD_ERROR_ILLEGAL_INSTRUCTION => c"HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: The kernel executed an instruction that is not supported.",
        AMD_ERROR_MEMORY_FAULT => c"HSA_STATUS_ERROR_MEMORY_FAULT: Agent attempted to access an inaccessible address.",
        _ => return ERROR_INVALID_ARGUMENT,
    };
    put(out as *mut c_void, s.as_ptr())
}

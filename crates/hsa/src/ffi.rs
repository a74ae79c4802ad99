//! C types and constants of the HSA 1.x API as ROCm 5.2's headers
//! (`/usr/include/hsa`) define them. `tests/abi.rs` compiles a C program
//! against those headers and checks every size and field offset here.

#![allow(non_camel_case_types, dead_code)]

use std::ffi::c_void;

/// `hsa_status_t`.
pub type Status = u32;

pub const SUCCESS: Status = 0;
pub const INFO_BREAK: Status = 1;
pub const ERROR: Status = 0x1000;
pub const ERROR_INVALID_ARGUMENT: Status = 0x1001;
pub const ERROR_INVALID_QUEUE_CREATION: Status = 0x1002;
pub const ERROR_INVALID_ALLOCATION: Status = 0x1003;
pub const ERROR_INVALID_AGENT: Status = 0x1004;
pub const ERROR_INVALID_REGION: Status = 0x1005;
pub const ERROR_INVALID_SIGNAL: Status = 0x1006;
pub const ERROR_INVALID_QUEUE: Status = 0x1007;
pub const ERROR_OUT_OF_RESOURCES: Status = 0x1008;
pub const ERROR_INVALID_PACKET_FORMAT: Status = 0x1009;
pub const ERROR_NOT_INITIALIZED: Status = 0x100B;
pub const ERROR_INVALID_INDEX: Status = 0x100E;
pub const ERROR_INVALID_ISA: Status = 0x100F;
pub const ERROR_INVALID_CODE_OBJECT: Status = 0x1010;
pub const ERROR_INVALID_EXECUTABLE: Status = 0x1011;
pub const ERROR_FROZEN_EXECUTABLE: Status = 0x1012;
pub const ERROR_INVALID_SYMBOL_NAME: Status = 0x1013;
pub const ERROR_VARIABLE_ALREADY_DEFINED: Status = 0x1014;
pub const ERROR_VARIABLE_UNDEFINED: Status = 0x1015;
pub const ERROR_EXCEPTION: Status = 0x1016;
pub const ERROR_INVALID_ISA_NAME: Status = 0x1017;
pub const ERROR_INVALID_EXECUTABLE_SYMBOL: Status = 0x1019;
pub const ERROR_INVALID_FILE: Status = 0x1020;
pub const ERROR_INVALID_CODE_OBJECT_READER: Status = 0x1021;
pub const ERROR_INVALID_RUNTIME_STATE: Status = 0x1025;
pub const ERROR_FATAL: Status = 0x1026;
pub const AMD_ERROR_INVALID_MEMORY_POOL: Status = 40;
pub const AMD_ERROR_MEMORY_APERTURE_VIOLATION: Status = 41;
pub const AMD_ERROR_ILLEGAL_INSTRUCTION: Status = 42;
pub const AMD_ERROR_MEMORY_FAULT: Status = 43;

/// A 64-bit opaque handle (`hsa_agent_t`, `hsa_signal_t`, …).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Handle {
    pub handle: u64,
}

pub type Agent = Handle;
pub type Signal = Handle;
pub type Pool = Handle;
pub type Isa = Handle;
pub type Executable = Handle;
pub type Symbol = Handle;
pub type Reader = Handle;
pub type LoadedCodeObject = Handle;
pub type SignalGroup = Handle;
pub type Region = Handle;

/// `hsa_signal_value_t` on a 64-bit host.
pub type SignalValue = i64;

/// `hsa_queue_t`.
#[repr(C)]
#[derive(Debug)]
pub struct HsaQueue {
    pub type_: u32,
    pub features: u32,
    pub base_address: *mut c_void,
    pub doorbell_signal: Signal,
    pub size: u32,
    pub reserved1: u32,
    pub id: u64,
}

/// `amd_queue_t` (256 bytes, 64-aligned); `hsa_queue_t` is its first field.
#[repr(C, align(64))]
#[derive(Debug)]
pub struct AmdQueue {
    pub hsa_queue: HsaQueue,
    pub reserved1: [u32; 4],
    pub write_dispatch_id: u64,
    pub group_segment_aperture_base_hi: u32,
    pub private_segment_aperture_base_hi: u32,
    pub max_cu_id: u32,
    pub max_wave_id: u32,
    pub max_legacy_doorbell_dispatch_id_plus_1: u64,
    pub legacy_doorbell_lock: u32,
    pub reserved2: [u32; 9],
    pub read_dispatch_id: u64,
    pub read_dispatch_id_field_base_byte_offset: u32,
    pub compute_tmpring_size: u32,
    pub scratch_resource_descriptor: [u32; 4],
    pub scratch_backing_memory_location: u64,
    pub scratch_backing_memory_byte_size: u64,
    pub scratch_wave64_lane_byte_size: u32,
    pub queue_properties: u32,
    pub reserved3: [u32; 2],
    pub queue_inactive_signal: Signal,
    pub reserved4: [u32; 14],
}

/// `amd_signal_t` (64 bytes, 64-aligned).
#[repr(C, align(64))]
#[derive(Debug)]
pub struct AmdSignal {
    pub kind: i64,
    pub value: i64,
    pub event_mailbox_ptr: u64,
    pub event_id: u32,
    pub reserved1: u32,
    pub start_ts: u64,
    pub end_ts: u64,
    pub queue_ptr: u64,
    pub reserved3: [u32; 2],
}

pub const AMD_SIGNAL_KIND_USER: i64 = 1;

/// `hsa_kernel_dispatch_packet_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct KernelDispatchPacket {
    pub header: u16,
    pub setup: u16,
    pub workgroup_size: [u16; 3],
    pub reserved0: u16,
    pub grid_size: [u32; 3],
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub kernel_object: u64,
    pub kernarg_address: u64,
    pub reserved2: u64,
    pub completion_signal: Signal,
}

/// `hsa_barrier_and_packet_t` / `hsa_barrier_or_packet_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct BarrierPacket {
    pub header: u16,
    pub reserved0: u16,
    pub reserved1: u32,
    pub dep_signal: [Signal; 5],
    pub reserved2: u64,
    pub completion_signal: Signal,
}

pub const PACKET_TYPE_VENDOR_SPECIFIC: u16 = 0;
pub const PACKET_TYPE_INVALID: u16 = 1;
pub const PACKET_TYPE_KERNEL_DISPATCH: u16 = 2;
pub const PACKET_TYPE_BARRIER_AND: u16 = 3;
pub const PACKET_TYPE_AGENT_DISPATCH: u16 = 4;
pub const PACKET_TYPE_BARRIER_OR: u16 = 5;

/// `hsa_amd_pointer_info_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct PointerInfo {
    pub size: u32,
    pub type_: u32,
    pub agent_base_address: *mut c_void,
    pub host_base_address: *mut c_void,
    pub size_in_bytes: usize,
    pub user_data: *mut c_void,
    pub agent_owner: Agent,
    pub global_flags: u32,
}

pub const POINTER_TYPE_UNKNOWN: u32 = 0;
pub const POINTER_TYPE_HSA: u32 = 1;
pub const POINTER_TYPE_LOCKED: u32 = 2;

/// `hsa_amd_profiling_dispatch_time_t` / `_async_copy_time_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ProfilingTime {
    pub start: u64,
    pub end: u64,
}

/// `hsa_dim3_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

/// `hsa_pitched_ptr_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct PitchedPtr {
    pub base: *mut c_void,
    pub pitch: usize,
    pub slice: usize,
}

/// `hsa_amd_memory_pool_link_info_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct LinkInfo {
    pub min_latency: u32,
    pub max_latency: u32,
    pub min_bandwidth: u32,
    pub max_bandwidth: u32,
    pub atomic_support_32bit: bool,
    pub atomic_support_64bit: bool,
    pub coherent_support: bool,
    pub link_type: u32,
    pub numa_distance: u32,
}

/// `ApiTableVersion`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ApiTableVersion {
    pub major_id: u32,
    pub minor_id: u32,
    pub step_id: u32,
    pub reserved: u32,
}

/// `hsa_ven_amd_loader_1_03_pfn_t` (earlier versions are prefixes of it).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct LoaderTable {
    pub query_host_address: *const c_void,
    pub query_segment_descriptors: *const c_void,
    pub query_executable: *const c_void,
    pub executable_iterate_loaded_code_objects: *const c_void,
    pub loaded_code_object_get_info: *const c_void,
    pub code_object_reader_create_from_file_with_offset_size: *const c_void,
    pub iterate_executables: *const c_void,
}

// hsa_system_info_t
pub const SYSTEM_INFO_VERSION_MAJOR: u32 = 0;
pub const SYSTEM_INFO_VERSION_MINOR: u32 = 1;
pub const SYSTEM_INFO_TIMESTAMP: u32 = 2;
pub const SYSTEM_INFO_TIMESTAMP_FREQUENCY: u32 = 3;
pub const SYSTEM_INFO_SIGNAL_MAX_WAIT: u32 = 4;
pub const SYSTEM_INFO_ENDIANNESS: u32 = 5;
pub const SYSTEM_INFO_MACHINE_MODEL: u32 = 6;
pub const SYSTEM_INFO_EXTENSIONS: u32 = 7;
pub const AMD_SYSTEM_INFO_BUILD_VERSION: u32 = 0x200;
pub const AMD_SYSTEM_INFO_SVM_SUPPORTED: u32 = 0x201;
pub const AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT: u32 = 0x202;

pub const EXTENSION_FINALIZER: u16 = 0;
pub const EXTENSION_IMAGES: u16 = 1;
pub const EXTENSION_AMD_PROFILER: u16 = 0x200;
pub const EXTENSION_AMD_LOADER: u16 = 0x201;

// hsa_agent_info_t
pub const AGENT_INFO_NAME: u32 = 0;
pub const AGENT_INFO_VENDOR_NAME: u32 = 1;
pub const AGENT_INFO_FEATURE: u32 = 2;
pub const AGENT_INFO_MACHINE_MODEL: u32 = 3;
pub const AGENT_INFO_PROFILE: u32 = 4;
pub const AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE: u32 = 5;
pub const AGENT_INFO_WAVEFRONT_SIZE: u32 = 6;
pub const AGENT_INFO_WORKGROUP_MAX_DIM: u32 = 7;
pub const AGENT_INFO_WORKGROUP_MAX_SIZE: u32 = 8;
pub const AGENT_INFO_GRID_MAX_DIM: u32 = 9;
pub const AGENT_INFO_GRID_MAX_SIZE: u32 = 10;
pub const AGENT_INFO_FBARRIER_MAX_SIZE: u32 = 11;
pub const AGENT_INFO_QUEUES_MAX: u32 = 12;
pub const AGENT_INFO_QUEUE_MIN_SIZE: u32 = 13;
pub const AGENT_INFO_QUEUE_MAX_SIZE: u32 = 14;
pub const AGENT_INFO_QUEUE_TYPE: u32 = 15;
pub const AGENT_INFO_NODE: u32 = 16;
pub const AGENT_INFO_DEVICE: u32 = 17;
pub const AGENT_INFO_CACHE_SIZE: u32 = 18;
pub const AGENT_INFO_ISA: u32 = 19;
pub const AGENT_INFO_EXTENSIONS: u32 = 20;
pub const AGENT_INFO_VERSION_MAJOR: u32 = 21;
pub const AGENT_INFO_VERSION_MINOR: u32 = 22;
pub const AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES: u32 = 23;
pub const AGENT_INFO_FAST_F16_OPERATION: u32 = 24;

pub const AMD_AGENT_INFO_CHIP_ID: u32 = 0xA000;
pub const AMD_AGENT_INFO_CACHELINE_SIZE: u32 = 0xA001;
pub const AMD_AGENT_INFO_COMPUTE_UNIT_COUNT: u32 = 0xA002;
pub const AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY: u32 = 0xA003;
pub const AMD_AGENT_INFO_DRIVER_NODE_ID: u32 = 0xA004;
pub const AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS: u32 = 0xA005;
pub const AMD_AGENT_INFO_BDFID: u32 = 0xA006;
pub const AMD_AGENT_INFO_MEMORY_WIDTH: u32 = 0xA007;
pub const AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY: u32 = 0xA008;
pub const AMD_AGENT_INFO_PRODUCT_NAME: u32 = 0xA009;
pub const AMD_AGENT_INFO_MAX_WAVES_PER_CU: u32 = 0xA00A;
pub const AMD_AGENT_INFO_NUM_SIMDS_PER_CU: u32 = 0xA00B;
pub const AMD_AGENT_INFO_NUM_SHADER_ENGINES: u32 = 0xA00C;
pub const AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE: u32 = 0xA00D;
pub const AMD_AGENT_INFO_HDP_FLUSH: u32 = 0xA00E;
pub const AMD_AGENT_INFO_DOMAIN: u32 = 0xA00F;
pub const AMD_AGENT_INFO_COOPERATIVE_QUEUES: u32 = 0xA010;
pub const AMD_AGENT_INFO_UUID: u32 = 0xA011;
pub const AMD_AGENT_INFO_ASIC_REVISION: u32 = 0xA012;
pub const AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS: u32 = 0xA013;
pub const AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT: u32 = 0xA014;

pub const DEVICE_TYPE_CPU: u32 = 0;
pub const DEVICE_TYPE_GPU: u32 = 1;

// hsa_isa_info_t
pub const ISA_INFO_NAME_LENGTH: u32 = 0;
pub const ISA_INFO_NAME: u32 = 1;
pub const ISA_INFO_CALL_CONVENTION_COUNT: u32 = 2;
pub const ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE: u32 = 3;
pub const ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT: u32 = 4;
pub const ISA_INFO_MACHINE_MODELS: u32 = 5;
pub const ISA_INFO_PROFILES: u32 = 6;
pub const ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES: u32 = 7;
pub const ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES: u32 = 8;
pub const ISA_INFO_FAST_F16_OPERATION: u32 = 9;
pub const ISA_INFO_WORKGROUP_MAX_DIM: u32 = 12;
pub const ISA_INFO_WORKGROUP_MAX_SIZE: u32 = 13;
pub const ISA_INFO_GRID_MAX_DIM: u32 = 14;
pub const ISA_INFO_GRID_MAX_SIZE: u32 = 16;
pub const ISA_INFO_FBARRIER_MAX_SIZE: u32 = 17;

// Memory pools.
pub const AMD_SEGMENT_GLOBAL: u32 = 0;
pub const AMD_SEGMENT_READONLY: u32 = 1;
pub const AMD_SEGMENT_PRIVATE: u32 = 2;
pub const AMD_SEGMENT_GROUP: u32 = 3;
pub const POOL_FLAG_KERNARG_INIT: u32 = 1;
pub const POOL_FLAG_FINE_GRAINED: u32 = 2;
pub const POOL_FLAG_COARSE_GRAINED: u32 = 4;
pub const POOL_INFO_SEGMENT: u32 = 0;
pub const POOL_INFO_GLOBAL_FLAGS: u32 = 1;
pub const POOL_INFO_SIZE: u32 = 2;
pub const POOL_INFO_RUNTIME_ALLOC_ALLOWED: u32 = 5;
pub const POOL_INFO_RUNTIME_ALLOC_GRANULE: u32 = 6;
pub const POOL_INFO_RUNTIME_ALLOC_ALIGNMENT: u32 = 7;
pub const POOL_INFO_ACCESSIBLE_BY_ALL: u32 = 15;
pub const POOL_INFO_ALLOC_MAX_SIZE: u32 = 16;
pub const AGENT_POOL_INFO_ACCESS: u32 = 0;
pub const AGENT_POOL_INFO_NUM_LINK_HOPS: u32 = 1;
pub const AGENT_POOL_INFO_LINK_INFO: u32 = 2;
pub const ACCESS_NEVER_ALLOWED: u32 = 0;
pub const ACCESS_ALLOWED_BY_DEFAULT: u32 = 1;
pub const ACCESS_DISALLOWED_BY_DEFAULT: u32 = 2;

// Signals.
pub const SIGNAL_CONDITION_EQ: u32 = 0;
pub const SIGNAL_CONDITION_NE: u32 = 1;
pub const SIGNAL_CONDITION_LT: u32 = 2;
pub const SIGNAL_CONDITION_GTE: u32 = 3;

// Executables and symbols.
pub const SYMBOL_KIND_VARIABLE: u32 = 0;
pub const SYMBOL_KIND_KERNEL: u32 = 1;
pub const SYMBOL_KIND_INDIRECT_FUNCTION: u32 = 2;
pub const SYMBOL_LINKAGE_MODULE: u32 = 0;
pub const SYMBOL_LINKAGE_PROGRAM: u32 = 1;
pub const VARIABLE_ALLOCATION_AGENT: u32 = 0;
pub const VARIABLE_SEGMENT_GLOBAL: u32 = 0;
pub const VARIABLE_SEGMENT_READONLY: u32 = 1;
pub const SYMBOL_INFO_TYPE: u32 = 0;
pub const SYMBOL_INFO_NAME_LENGTH: u32 = 1;
pub const SYMBOL_INFO_NAME: u32 = 2;
pub const SYMBOL_INFO_MODULE_NAME_LENGTH: u32 = 3;
pub const SYMBOL_INFO_MODULE_NAME: u32 = 4;
pub const SYMBOL_INFO_LINKAGE: u32 = 5;
pub const SYMBOL_INFO_VARIABLE_ALLOCATION: u32 = 6;
pub const SYMBOL_INFO_VARIABLE_SEGMENT: u32 = 7;
pub const SYMBOL_INFO_VARIABLE_ALIGNMENT: u32 = 8;
pub const SYMBOL_INFO_VARIABLE_SIZE: u32 = 9;
pub const SYMBOL_INFO_VARIABLE_IS_CONST: u32 = 10;
pub const SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE: u32 = 11;
pub const SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT: u32 = 12;
pub const SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE: u32 = 13;
pub const SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE: u32 = 14;
pub const SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK: u32 = 15;
pub const SYMBOL_INFO_INDIRECT_FUNCTION_CALL_CONVENTION: u32 = 16;
pub const SYMBOL_INFO_IS_DEFINITION: u32 = 17;
pub const SYMBOL_INFO_KERNEL_CALL_CONVENTION: u32 = 18;
pub const SYMBOL_INFO_AGENT: u32 = 20;
pub const SYMBOL_INFO_VARIABLE_ADDRESS: u32 = 21;
pub const SYMBOL_INFO_KERNEL_OBJECT: u32 = 22;
pub const SYMBOL_INFO_INDIRECT_FUNCTION_OBJECT: u32 = 23;
pub const EXECUTABLE_INFO_PROFILE: u32 = 1;
pub const EXECUTABLE_INFO_STATE: u32 = 2;
pub const EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE: u32 = 3;
pub const EXECUTABLE_STATE_UNFROZEN: u32 = 0;
pub const EXECUTABLE_STATE_FROZEN: u32 = 1;

// Loaded code objects (hsa_ven_amd_loader.h).
pub const LCO_INFO_EXECUTABLE: u32 = 1;
pub const LCO_INFO_KIND: u32 = 2;
pub const LCO_INFO_AGENT: u32 = 3;
pub const LCO_INFO_STORAGE_TYPE: u32 = 4;
pub const LCO_INFO_STORAGE_MEMORY_BASE: u32 = 5;
pub const LCO_INFO_STORAGE_MEMORY_SIZE: u32 = 6;
pub const LCO_INFO_STORAGE_FILE: u32 = 7;
pub const LCO_INFO_LOAD_DELTA: u32 = 8;
pub const LCO_INFO_LOAD_BASE: u32 = 9;
pub const LCO_INFO_LOAD_SIZE: u32 = 10;
pub const LCO_INFO_URI_LENGTH: u32 = 11;
pub const LCO_INFO_URI: u32 = 12;
pub const LCO_KIND_AGENT: u32 = 2;
pub const STORAGE_TYPE_MEMORY: u32 = 2;

// SVM attributes (hsa_amd_svm_attribute_t).
pub const SVM_ATTRIB_GLOBAL_FLAG: u64 = 0;
pub const SVM_ATTRIB_READ_ONLY: u64 = 1;
pub const SVM_ATTRIB_HIVE_LOCAL: u64 = 2;
pub const SVM_ATTRIB_MIGRATION_GRANULARITY: u64 = 3;
pub const SVM_ATTRIB_PREFERRED_LOCATION: u64 = 4;
pub const SVM_ATTRIB_PREFETCH_LOCATION: u64 = 5;
pub const SVM_ATTRIB_READ_MOSTLY: u64 = 6;
pub const SVM_ATTRIB_GPU_EXEC: u64 = 7;
pub const SVM_ATTRIB_AGENT_ACCESSIBLE: u64 = 0x200;
pub const SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE: u64 = 0x201;
pub const SVM_ATTRIB_AGENT_NO_ACCESS: u64 = 0x202;
pub const SVM_ATTRIB_ACCESS_QUERY: u64 = 0x203;

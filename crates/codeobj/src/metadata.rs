//! Typed AMDHSA code object metadata (code object V3 and later).
//!
//! Owns the mapping from the msgpack [`Value`] tree of an
//! `NT_AMDGPU_METADATA` note to [`Metadata`], [`KernelMetadata`] and
//! [`KernelArg`]. Every documented key is a typed field; keys this crate does
//! not know are kept, in order, in an `extra` list, and unknown enumeration
//! strings (value kinds, address spaces, ...) are kept as strings. A known key
//! whose value has the wrong type is an error naming the path of the key.

use crate::msgpack::{self, MsgpackError, Value};

/// Why metadata could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MetadataError {
    /// The msgpack bytes are malformed.
    #[error(transparent)]
    Msgpack(#[from] MsgpackError),
    /// The top-level value is not a map.
    #[error("metadata root is a {found}, expected a map")]
    RootNotMap {
        /// Type of the root value.
        found: &'static str,
    },
    /// A known key holds a value of the wrong type.
    #[error("metadata {path}: expected {expected}, found {found}")]
    WrongType {
        /// Path of the key, e.g. `amdhsa.kernels[1].args[0].size`.
        path: String,
        /// What the key must hold.
        expected: &'static str,
        /// What it holds (type name and value).
        found: String,
    },
    /// A required key is missing.
    #[error("metadata {path}: required key `{key}` is missing")]
    Missing {
        /// Path of the map that lacks the key.
        path: String,
        /// The missing key.
        key: &'static str,
    },
}

/// A kernel argument's `.value_kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ValueKind<'a> {
    /// `by_value`
    ByValue,
    /// `global_buffer`
    GlobalBuffer,
    /// `dynamic_shared_pointer`
    DynamicSharedPointer,
    /// `sampler`
    Sampler,
    /// `image`
    Image,
    /// `pipe`
    Pipe,
    /// `queue`
    Queue,
    /// `hidden_global_offset_x`
    HiddenGlobalOffsetX,
    /// `hidden_global_offset_y`
    HiddenGlobalOffsetY,
    /// `hidden_global_offset_z`
    HiddenGlobalOffsetZ,
    /// `hidden_none`
    HiddenNone,
    /// `hidden_printf_buffer`
    HiddenPrintfBuffer,
    /// `hidden_hostcall_buffer`
    HiddenHostcallBuffer,
    /// `hidden_default_queue`
    HiddenDefaultQueue,
    /// `hidden_completion_action`
    HiddenCompletionAction,
    /// `hidden_multigrid_sync_arg`
    HiddenMultigridSyncArg,
    /// `hidden_block_count_x`
    HiddenBlockCountX,
    /// `hidden_block_count_y`
    HiddenBlockCountY,
    /// `hidden_block_count_z`
    HiddenBlockCountZ,
    /// `hidden_group_size_x`
    HiddenGroupSizeX,
    /// `hidden_group_size_y`
    HiddenGroupSizeY,
    /// `hidden_group_size_z`
    HiddenGroupSizeZ,
    /// `hidden_remainder_x`
    HiddenRemainderX,
    /// `hidden_remainder_y`
    HiddenRemainderY,
    /// `hidden_remainder_z`
    HiddenRemainderZ,
    /// `hidden_grid_dims`
    HiddenGridDims,
    /// `hidden_heap_v1`
    HiddenHeapV1,
    /// `hidden_dynamic_lds_size`
    HiddenDynamicLdsSize,
    /// `hidden_private_base`
    HiddenPrivateBase,
    /// `hidden_shared_base`
    HiddenSharedBase,
    /// `hidden_queue_ptr`
    HiddenQueuePtr,
    /// A kind this crate does not know, kept verbatim.
    Other(&'a str),
}

const VALUE_KINDS: &[(&str, ValueKind<'static>)] = &[
    ("by_value", ValueKind::ByValue),
    ("global_buffer", ValueKind::GlobalBuffer),
    ("dynamic_shared_pointer", ValueKind::DynamicSharedPointer),
    ("sampler", ValueKind::Sampler),
    ("image", ValueKind::Image),
    ("pipe", ValueKind::Pipe),
    ("queue", ValueKind::Queue),
    ("hidden_global_offset_x", ValueKind::HiddenGlobalOffsetX),
    ("hidden_global_offset_y", ValueKind::HiddenGlobalOffsetY),
    ("hidden_global_offset_z", ValueKind::HiddenGlobalOffsetZ),
    ("hidden_none", ValueKind::HiddenNone),
    ("hidden_printf_buffer", ValueKind::HiddenPrintfBuffer),
    ("hidden_hostcall_buffer", ValueKind::HiddenHostcallBuffer),
    ("hidden_default_queue", ValueKind::HiddenDefaultQueue),
    (
        "hidden_completion_action",
        ValueKind::HiddenCompletionAction,
    ),
    (
        "hidden_multigrid_sync_arg",
        ValueKind::HiddenMultigridSyncArg,
    ),
    ("hidden_block_count_x", ValueKind::HiddenBlockCountX),
    ("hidden_block_count_y", ValueKind::HiddenBlockCountY),
    ("hidden_block_count_z", ValueKind::HiddenBlockCountZ),
    ("hidden_group_size_x", ValueKind::HiddenGroupSizeX),
    ("hidden_group_size_y", ValueKind::HiddenGroupSizeY),
    ("hidden_group_size_z", ValueKind::HiddenGroupSizeZ),
    ("hidden_remainder_x", ValueKind::HiddenRemainderX),
    ("hidden_remainder_y", ValueKind::HiddenRemainderY),
    ("hidden_remainder_z", ValueKind::HiddenRemainderZ),
    ("hidden_grid_dims", ValueKind::HiddenGridDims),
    ("hidden_heap_v1", ValueKind::HiddenHeapV1),
    ("hidden_dynamic_lds_size", ValueKind::HiddenDynamicLdsSize),
    ("hidden_private_base", ValueKind::HiddenPrivateBase),
    ("hidden_shared_base", ValueKind::HiddenSharedBase),
    ("hidden_queue_ptr", ValueKind::HiddenQueuePtr),
];

impl<'a> ValueKind<'a> {
    /// Parses a `.value_kind` string; unknown kinds become [`ValueKind::Other`].
    pub fn parse(s: &'a str) -> Self {
        VALUE_KINDS
            .iter()
            .find(|(n, _)| *n == s)
            .map(|(_, k)| *k)
            .unwrap_or(ValueKind::Other(s))
    }

    /// The metadata spelling.
    pub fn as_str(&self) -> &'a str {
        match self {
            ValueKind::Other(s) => s,
            k => VALUE_KINDS
                .iter()
                .find(|(_, v)| v == k)
                .map(|(n, _)| *n)
                .unwrap_or(""),
        }
    }

    /// Whether this is one of the `hidden_*` kinds the runtime fills in.
    pub fn is_hidden(&self) -> bool {
        self.as_str().starts_with("hidden_")
    }
}

/// A kernel argument's `.address_space`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AddressSpace<'a> {
    /// `private`
    Private,
    /// `global`
    Global,
    /// `constant`
    Constant,
    /// `local`
    Local,
    /// `generic`
    Generic,
    /// `region`
    Region,
    /// Anything else, kept verbatim.
    Other(&'a str),
}

impl<'a> AddressSpace<'a> {
    /// Parses an `.address_space` string.
    pub fn parse(s: &'a str) -> Self {
        match s {
            "private" => Self::Private,
            "global" => Self::Global,
            "constant" => Self::Constant,
            "local" => Self::Local,
            "generic" => Self::Generic,
            "region" => Self::Region,
            o => Self::Other(o),
        }
    }
}

/// `.access` / `.actual_access` of a kernel argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Access<'a> {
    /// `read_only`
    ReadOnly,
    /// `write_only`
    WriteOnly,
    /// `read_write`
    ReadWrite,
    /// Anything else, kept verbatim.
    Other(&'a str),
}

impl<'a> Access<'a> {
    /// Parses an access string.
    pub fn parse(s: &'a str) -> Self {
        match s {
            "read_only" => Self::ReadOnly,
            "write_only" => Self::WriteOnly,
            "read_write" => Self::ReadWrite,
            o => Self::Other(o),
        }
    }
}

/// One entry of a kernel's `.args`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct KernelArg<'a> {
    /// `.name`
    pub name: Option<&'a str>,
    /// `.type_name`
    pub type_name: Option<&'a str>,
    /// `.size` (required)
    pub size: u64,
    /// `.offset` (required)
    pub offset: u64,
    /// `.value_kind` (required)
    pub value_kind: ValueKind<'a>,
    /// `.pointee_align`
    pub pointee_align: Option<u64>,
    /// `.address_space`
    pub address_space: Option<AddressSpace<'a>>,
    /// `.access`
    pub access: Option<Access<'a>>,
    /// `.actual_access`
    pub actual_access: Option<Access<'a>>,
    /// `.is_const`
    pub is_const: Option<bool>,
    /// `.is_restrict`
    pub is_restrict: Option<bool>,
    /// `.is_volatile`
    pub is_volatile: Option<bool>,
    /// `.is_pipe`
    pub is_pipe: Option<bool>,
    /// Keys not listed above, in order.
    pub extra: Vec<(&'a str, Value<'a>)>,
}

/// One entry of `amdhsa.kernels`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct KernelMetadata<'a> {
    /// `.name`: the kernel's source-level (mangled) name.
    pub name: &'a str,
    /// `.symbol`: the kernel descriptor symbol, `<name>.kd`.
    pub symbol: &'a str,
    /// `.language`
    pub language: Option<&'a str>,
    /// `.language_version`
    pub language_version: Option<[u64; 2]>,
    /// `.args`
    pub args: Vec<KernelArg<'a>>,
    /// `.reqd_workgroup_size`
    pub reqd_workgroup_size: Option<[u64; 3]>,
    /// `.workgroup_size_hint`
    pub workgroup_size_hint: Option<[u64; 3]>,
    /// `.vec_type_hint`
    pub vec_type_hint: Option<&'a str>,
    /// `.device_enqueue_symbol`
    pub device_enqueue_symbol: Option<&'a str>,
    /// `.kernarg_segment_size` (required)
    pub kernarg_segment_size: u64,
    /// `.group_segment_fixed_size` (required)
    pub group_segment_fixed_size: u64,
    /// `.private_segment_fixed_size` (required)
    pub private_segment_fixed_size: u64,
    /// `.kernarg_segment_align` (required)
    pub kernarg_segment_align: u64,
    /// `.uses_dynamic_stack` (V5+)
    pub uses_dynamic_stack: Option<bool>,
    /// `.workgroup_processor_mode` (V5+, GFX10+)
    pub workgroup_processor_mode: Option<bool>,
    /// `.wavefront_size` (required)
    pub wavefront_size: u64,
    /// `.sgpr_count` (required)
    pub sgpr_count: u64,
    /// `.vgpr_count` (required)
    pub vgpr_count: u64,
    /// `.agpr_count`
    pub agpr_count: Option<u64>,
    /// `.max_flat_workgroup_size` (required)
    pub max_flat_workgroup_size: u64,
    /// `.sgpr_spill_count`
    pub sgpr_spill_count: Option<u64>,
    /// `.vgpr_spill_count`
    pub vgpr_spill_count: Option<u64>,
    /// `.uniform_work_group_size` (1 = true)
    pub uniform_work_group_size: Option<u64>,
    /// `.kind` (`normal`, `init`, `fini`)
    pub kind: Option<&'a str>,
    /// `.uses_cu_stores`
    pub uses_cu_stores: Option<bool>,
    /// `.cluster_dims`
    pub cluster_dims: Option<[u64; 3]>,
    /// `.max_num_workgroups_x/_y/_z`, each if present.
    pub max_num_workgroups: [Option<u64>; 3],
    /// Keys not listed above, in order.
    pub extra: Vec<(&'a str, Value<'a>)>,
}

/// An entry of `amdhsa.globals`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct GlobalMetadata<'a> {
    /// `.name`
    pub name: &'a str,
    /// `.size`
    pub size: u64,
    /// Other keys.
    pub extra: Vec<(&'a str, Value<'a>)>,
}

/// Typed code object metadata.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Metadata<'a> {
    /// `amdhsa.version` as `[major, minor]`.
    pub version: Option<[u64; 2]>,
    /// `amdhsa.target`, e.g. `amdgcn-amd-amdhsa--gfx90a:xnack-`.
    pub target: Option<&'a str>,
    /// `amdhsa.printf` format descriptors.
    pub printf: Vec<&'a str>,
    /// `amdhsa.kernels`.
    pub kernels: Vec<KernelMetadata<'a>>,
    /// `amdhsa.globals`.
    pub globals: Vec<GlobalMetadata<'a>>,
    /// Top-level keys not listed above, in order.
    pub extra: Vec<(&'a str, Value<'a>)>,
    /// The whole decoded msgpack tree.
    pub raw: Value<'a>,
}

impl<'a> Metadata<'a> {
    /// Decodes msgpack bytes (the descriptor of an `NT_AMDGPU_METADATA`
    /// note) into typed metadata.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, MetadataError> {
        let raw = msgpack::parse(bytes)?;
        Self::from_value(raw)
    }

    /// Builds typed metadata from an already decoded tree.
    pub fn from_value(raw: Value<'a>) -> Result<Self, MetadataError> {
        let Some(root) = raw.as_map() else {
            return Err(MetadataError::RootNotMap {
                found: raw.type_name(),
            });
        };
        let mut version = None;
        let mut target = None;
        let mut printf = Vec::new();
        let mut kernels = Vec::new();
        let mut globals = Vec::new();
        let mut extra = Vec::new();
        for (k, v) in root {
            let Some(key) = k.as_str() else {
                return Err(wrong("<root key>".into(), "string", k));
            };
            match key {
                "amdhsa.version" => version = Some(int_array::<2>(v, key)?),
                "amdhsa.target" => target = Some(string(v, key)?),
                "amdhsa.printf" => {
                    for (i, e) in array(v, key)?.iter().enumerate() {
                        printf.push(string(e, &format!("{key}[{i}]"))?);
                    }
                }
                "amdhsa.kernels" => {
                    for (i, e) in array(v, key)?.iter().enumerate() {
                        kernels.push(KernelMetadata::from_value(e, &format!("{key}[{i}]"))?);
                    }
                }
                "amdhsa.globals" => {
                    for (i, e) in array(v, key)?.iter().enumerate() {
                        globals.push(GlobalMetadata::from_value(e, &format!("{key}[{i}]"))?);
                    }
                }
                _ => extra.push((key, v.clone())),
            }
        }
        Ok(Metadata {
            version,
            target,
            printf,
            kernels,
            globals,
            extra,
            raw,
        })
    }

    /// Appends the kernels, printf strings, globals and extra keys of
    /// another metadata note (version, target and `raw` stay this one's).
    pub fn append(&mut self, other: Metadata<'a>) {
        self.kernels.extend(other.kernels);
        self.printf.extend(other.printf);
        self.globals.extend(other.globals);
        self.extra.extend(other.extra);
        if self.version.is_none() {
            self.version = other.version;
        }
        if self.target.is_none() {
            self.target = other.target;
        }
    }

    /// The kernel whose `.name` is `name`.
    pub fn kernel(&self, name: &str) -> Option<&KernelMetadata<'a>> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The kernel whose `.symbol` is `symbol`.
    pub fn kernel_by_symbol(&self, symbol: &str) -> Option<&KernelMetadata<'a>> {
        self.kernels.iter().find(|k| k.symbol == symbol)
    }
}

fn wrong(path: String, expected: &'static str, v: &Value<'_>) -> MetadataError {
    let mut found = format!("{} {}", v.type_name(), v);
    if found.len() > 80 {
        let mut cut = 77;
        while !found.is_char_boundary(cut) {
            cut -= 1;
        }
        found.truncate(cut);
        found.push_str("...");
    }
    MetadataError::WrongType {
        path,
        expected,
        found,
    }
}

// `*_at` variants take the path as a closure: it is only formatted when the
// value is wrong, not for every field of every kernel.
fn string_at<'a>(v: &Value<'a>, path: &dyn Fn() -> String) -> Result<&'a str, MetadataError> {
    v.as_str().ok_or_else(|| wrong(path(), "string", v))
}

fn uint_at(v: &Value<'_>, path: &dyn Fn() -> String) -> Result<u64, MetadataError> {
    v.as_u64()
        .ok_or_else(|| wrong(path(), "non-negative integer", v))
}

fn boolean_at(v: &Value<'_>, path: &dyn Fn() -> String) -> Result<bool, MetadataError> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::UInt(0) => Ok(false),
        Value::UInt(1) => Ok(true),
        _ => Err(wrong(path(), "boolean", v)),
    }
}

fn string<'a>(v: &Value<'a>, path: &str) -> Result<&'a str, MetadataError> {
    v.as_str().ok_or_else(|| wrong(path.into(), "string", v))
}

fn uint(v: &Value<'_>, path: &str) -> Result<u64, MetadataError> {
    v.as_u64()
        .ok_or_else(|| wrong(path.into(), "non-negative integer", v))
}

fn array<'v, 'a>(v: &'v Value<'a>, path: &str) -> Result<&'v [Value<'a>], MetadataError> {
    v.as_array().ok_or_else(|| wrong(path.into(), "array", v))
}

fn int_array<const N: usize>(v: &Value<'_>, path: &str) -> Result<[u64; N], MetadataError> {
    let a = array(v, path)?;
    if a.len() != N {
        return Err(wrong(
            path.into(),
            match N {
                2 => "array of 2 integers",
                _ => "array of 3 integers",
            },
            v,
        ));
    }
    let mut out = [0u64; N];
    for (i, (o, e)) in out.iter_mut().zip(a).enumerate() {
        *o = uint(e, &format!("{path}[{i}]"))?;
    }
    Ok(out)
}

fn entries<'v, 'a>(
    v: &'v Value<'a>,
    path: &str,
) -> Result<Vec<(&'a str, &'v Value<'a>)>, MetadataError> {
    let m = v.as_map().ok_or_else(|| wrong(path.into(), "map", v))?;
    m.iter()
        .map(|(k, v)| match k.as_str() {
            Some(s) => Ok((s, v)),
            None => Err(wrong(format!("{path} key"), "string", k)),
        })
        .collect()
}

impl<'a> KernelArg<'a> {
    fn from_value(v: &Value<'a>, path: &str) -> Result<Self, MetadataError> {
        let mut a = KernelArg {
            name: None,
            type_name: None,
            size: 0,
            offset: 0,
            value_kind: ValueKind::Other(""),
            pointee_align: None,
            address_space: None,
            access: None,
            actual_access: None,
            is_const: None,
            is_restrict: None,
            is_volatile: None,
            is_pipe: None,
            extra: Vec::new(),
        };
        let (mut size, mut offset, mut kind) = (false, false, false);
        for (key, val) in entries(v, path)? {
            let p = || format!("{path}.{}", key.trim_start_matches('.'));
            match key {
                ".name" => a.name = Some(string_at(val, &p)?),
                ".type_name" => a.type_name = Some(string_at(val, &p)?),
                ".size" => {
                    a.size = uint_at(val, &p)?;
                    size = true;
                }
                ".offset" => {
                    a.offset = uint_at(val, &p)?;
                    offset = true;
                }
                ".value_kind" => {
                    a.value_kind = ValueKind::parse(string_at(val, &p)?);
                    kind = true;
                }
                ".pointee_align" => a.pointee_align = Some(uint_at(val, &p)?),
                ".address_space" => {
                    a.address_space = Some(AddressSpace::parse(string_at(val, &p)?))
                }
                ".access" => a.access = Some(Access::parse(string_at(val, &p)?)),
                ".actual_access" => a.actual_access = Some(Access::parse(string_at(val, &p)?)),
                ".is_const" => a.is_const = Some(boolean_at(val, &p)?),
                ".is_restrict" => a.is_restrict = Some(boolean_at(val, &p)?),
                ".is_volatile" => a.is_volatile = Some(boolean_at(val, &p)?),
                ".is_pipe" => a.is_pipe = Some(boolean_at(val, &p)?),
                _ => a.extra.push((key, val.clone())),
            }
        }
        for (have, key) in [(size, ".size"), (offset, ".offset"), (kind, ".value_kind")] {
            if !have {
                return Err(MetadataError::Missing {
                    path: path.into(),
                    key,
                });
            }
        }
        Ok(a)
    }
}

impl<'a> KernelMetadata<'a> {
    fn from_value(v: &Value<'a>, path: &str) -> Result<Self, MetadataError> {
        let mut k = KernelMetadata {
            name: "",
            symbol: "",
            language: None,
            language_version: None,
            args: Vec::new(),
            reqd_workgroup_size: None,
            workgroup_size_hint: None,
            vec_type_hint: None,
            device_enqueue_symbol: None,
            kernarg_segment_size: 0,
            group_segment_fixed_size: 0,
            private_segment_fixed_size: 0,
            kernarg_segment_align: 0,
            uses_dynamic_stack: None,
            workgroup_processor_mode: None,
            wavefront_size: 0,
            sgpr_count: 0,
            vgpr_count: 0,
            agpr_count: None,
            max_flat_workgroup_size: 0,
            sgpr_spill_count: None,
            vgpr_spill_count: None,
            uniform_work_group_size: None,
            kind: None,
            uses_cu_stores: None,
            cluster_dims: None,
            max_num_workgroups: [None; 3],
            extra: Vec::new(),
        };
        // Required keys, in the order of REQUIRED.
        const REQUIRED: [&str; 10] = [
            ".name",
            ".symbol",
            ".kernarg_segment_size",
            ".group_segment_fixed_size",
            ".private_segment_fixed_size",
            ".kernarg_segment_align",
            ".wavefront_size",
            ".sgpr_count",
            ".vgpr_count",
            ".max_flat_workgroup_size",
        ];
        let mut seen = [false; REQUIRED.len()];
        for (key, val) in entries(v, path)? {
            if let Some(i) = REQUIRED.iter().position(|r| *r == key) {
                seen[i] = true;
            }
            let p = || format!("{path}.{}", key.trim_start_matches('.'));
            match key {
                ".name" => k.name = string_at(val, &p)?,
                ".symbol" => k.symbol = string_at(val, &p)?,
                ".language" => k.language = Some(string_at(val, &p)?),
                ".language_version" => k.language_version = Some(int_array::<2>(val, &p())?),
                ".args" => {
                    for (i, e) in array(val, &p())?.iter().enumerate() {
                        k.args
                            .push(KernelArg::from_value(e, &format!("{path}.args[{i}]"))?);
                    }
                }
                ".reqd_workgroup_size" => k.reqd_workgroup_size = Some(int_array::<3>(val, &p())?),
                ".workgroup_size_hint" => k.workgroup_size_hint = Some(int_array::<3>(val, &p())?),
                ".vec_type_hint" => k.vec_type_hint = Some(string_at(val, &p)?),
                ".device_enqueue_symbol" => k.device_enqueue_symbol = Some(string_at(val, &p)?),
                ".kernarg_segment_size" => k.kernarg_segment_size = uint_at(val, &p)?,
                ".group_segment_fixed_size" => k.group_segment_fixed_size = uint_at(val, &p)?,
                ".private_segment_fixed_size" => k.private_segment_fixed_size = uint_at(val, &p)?,
                ".kernarg_segment_align" => k.kernarg_segment_align = uint_at(val, &p)?,
                ".uses_dynamic_stack" => k.uses_dynamic_stack = Some(boolean_at(val, &p)?),
                ".workgroup_processor_mode" => {
                    k.workgroup_processor_mode = Some(boolean_at(val, &p)?)
                }
                ".wavefront_size" => k.wavefront_size = uint_at(val, &p)?,
                ".sgpr_count" => k.sgpr_count = uint_at(val, &p)?,
                ".vgpr_count" => k.vgpr_count = uint_at(val, &p)?,
                ".agpr_count" => k.agpr_count = Some(uint_at(val, &p)?),
                ".max_flat_workgroup_size" => k.max_flat_workgroup_size = uint_at(val, &p)?,
                ".sgpr_spill_count" => k.sgpr_spill_count = Some(uint_at(val, &p)?),
                ".vgpr_spill_count" => k.vgpr_spill_count = Some(uint_at(val, &p)?),
                ".uniform_work_group_size" => k.uniform_work_group_size = Some(uint_at(val, &p)?),
                ".kind" => k.kind = Some(string_at(val, &p)?),
                ".uses_cu_stores" => k.uses_cu_stores = Some(boolean_at(val, &p)?),
                ".cluster_dims" => k.cluster_dims = Some(int_array::<3>(val, &p())?),
                ".max_num_workgroups_x" => k.max_num_workgroups[0] = Some(uint_at(val, &p)?),
                ".max_num_workgroups_y" => k.max_num_workgroups[1] = Some(uint_at(val, &p)?),
                ".max_num_workgroups_z" => k.max_num_workgroups[2] = Some(uint_at(val, &p)?),
                _ => k.extra.push((key, val.clone())),
            }
        }
        if let Some(i) = seen.iter().position(|s| !s) {
            return Err(MetadataError::Missing {
                path: path.into(),
                key: REQUIRED[i],
            });
        }
        Ok(k)
    }

    /// The explicit (non-hidden) arguments.
    pub fn explicit_args(&self) -> impl Iterator<Item = &KernelArg<'a>> {
        self.args.iter().filter(|a| !a.value_kind.is_hidden())
    }
}

impl<'a> GlobalMetadata<'a> {
    fn from_value(v: &Value<'a>, path: &str) -> Result<Self, MetadataError> {
        let mut name = None;
        let mut size = None;
        let mut extra = Vec::new();
        for (key, val) in entries(v, path)? {
            match key {
                ".name" => name = Some(string(val, &format!("{path}.name"))?),
                ".size" => size = Some(uint(val, &format!("{path}.size"))?),
                _ => extra.push((key, val.clone())),
            }
        }
        Ok(GlobalMetadata {
            name: name.ok_or_else(|| MetadataError::Missing {
                path: path.into(),
                key: ".name",
            })?,
            size: size.ok_or_else(|| MetadataError::Missing {
                path: path.into(),
                key: ".size",
            })?,
            extra,
        })
    }
}

/// Code object V2 metadata (`NT_AMD_HSA_METADATA`): a YAML document kept as
/// text; this crate does not interpret it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetadataV2<'a> {
    /// The note's descriptor bytes (YAML text, possibly NUL-terminated).
    pub raw: &'a [u8],
}

impl<'a> MetadataV2<'a> {
    /// The YAML text without trailing NULs, if it is UTF-8.
    pub fn text(&self) -> Option<&'a str> {
        let end = self.raw.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        std::str::from_utf8(self.raw.get(..end)?).ok()
    }
}

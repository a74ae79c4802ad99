//! The library's state, shared by the API-table wrappers ([`crate::intercept`])
//! and capture mode ([`crate::capture`]): the configuration, the code
//! objects and kernels the application loaded, and the instrumented
//! kernels built for them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};

use serde_json::Value;

use crate::api::{Api, Handle};
use crate::config::Config;
use crate::instr::{Build, HipBuild};
use lathe_dbi::manifest::HipTool;

/// A kernel the application loaded.
#[derive(Debug)]
pub(crate) struct KernelInfo {
    pub(crate) mangled: String,
    pub(crate) demangled: String,
    pub(crate) code: Arc<Vec<u8>>,
    pub(crate) agent: Handle,
}

/// Where an instrumented kernel's results come from.
#[derive(Debug)]
pub(crate) enum Probes {
    /// A built-in tool: its probe-data buffer (fine-grained system
    /// memory).
    Builtin { build: Box<Build>, data: usize },
    /// A HIP tool: the device addresses of its report variables, and the
    /// bytes they start each launch with.
    Hip {
        tool: Arc<HipTool>,
        build: HipBuild,
        vars: HashMap<String, u64>,
        resets: Vec<(u64, Vec<u8>)>,
    },
}

/// An instrumented kernel loaded into its own executable (with the HIP
/// tool's code object, for a HIP tool).
#[derive(Debug)]
pub(crate) struct Loaded {
    pub(crate) probes: Probes,
    pub(crate) kernel_object: u64,
    pub(crate) private_size: u32,
    pub(crate) group_size: u32,
    /// Load bases of the original and the instrumented code object.
    pub(crate) orig_base: u64,
    pub(crate) new_base: u64,
}

impl Loaded {
    pub(crate) fn writable(&self) -> &[(u64, u64)] {
        match &self.probes {
            Probes::Builtin { build, .. } => &build.writable,
            Probes::Hip { build, .. } => &build.writable,
        }
    }
    pub(crate) fn dynamic_stack_area(&self) -> Option<u32> {
        match &self.probes {
            Probes::Builtin { build, .. } => build.dynamic_stack_area,
            Probes::Hip { build, .. } => build.dynamic_stack_area,
        }
    }
}

/// Code objects loaded into each executable, with their agent.
pub(crate) type LoadedObjects = HashMap<u64, Vec<(Handle, Arc<Vec<u8>>)>>;

#[derive(Debug)]
pub(crate) struct State {
    pub(crate) api: Api,
    pub(crate) cfg: Config,
    pub(crate) readers: Mutex<HashMap<u64, Arc<Vec<u8>>>>,
    pub(crate) loaded: Mutex<LoadedObjects>,
    pub(crate) kernels: RwLock<HashMap<u64, Arc<KernelInfo>>>,
    pub(crate) launches: AtomicU64,
    pub(crate) cache: Mutex<HashMap<u64, Result<Arc<Loaded>, String>>>,
    /// Serializes instrumented dispatches; holds the completion signal.
    pub(crate) serial: Mutex<Option<Handle>>,
    pub(crate) pool: Mutex<Option<Handle>>,
    /// The HIP tool, compiled once per target processor.
    pub(crate) hip: Mutex<HashMap<String, Result<Arc<HipTool>, String>>>,
    pub(crate) records: Mutex<Vec<Value>>,
    pub(crate) written: AtomicBool,
    /// Dispatches the selection took.
    pub(crate) selected: AtomicU64,
    /// Names of the kernels dispatched (for an empty selection's note).
    pub(crate) seen: Mutex<std::collections::BTreeSet<String>>,
    /// Tool errors already reported (a HIP tool that does not build fails
    /// every kernel with the same error: said once).
    pub(crate) reported: Mutex<std::collections::HashSet<String>>,
    /// `mem-trace`'s CSV and Perfetto outputs, filled per launch.
    pub(crate) traces: Mutex<crate::memtrace::TraceFiles>,
}

pub(crate) static STATE: OnceLock<State> = OnceLock::new();

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub(crate) fn state() -> Option<&'static State> {
    STATE.get()
}

const SIGNAL_CONDITION_LT: u32 = 2;
const WAIT_STATE_BLOCKED: u32 = 0;

impl State {
    /// Serializes the library's own dispatches: the held lock and the
    /// completion signal they use (created on first use).
    pub(crate) fn serialize(&self) -> Result<(MutexGuard<'_, Option<Handle>>, Handle), String> {
        let mut guard = lock(&self.serial);
        let sig = match *guard {
            Some(s) => s,
            None => {
                let mut s = Handle::default();
                let r = (self.api.signal_create)(1, 0, std::ptr::null(), &mut s);
                if r != crate::api::SUCCESS {
                    return Err(format!("hsa_signal_create: {}", self.api.status(r)));
                }
                *guard = Some(s);
                s
            }
        };
        Ok((guard, sig))
    }

    /// Waits until the signal `sig` drops below 1.
    pub(crate) fn wait_below_one(&self, sig: Handle) {
        while (self.api.signal_wait_scacquire)(
            sig,
            SIGNAL_CONDITION_LT,
            1,
            u64::MAX,
            WAIT_STATE_BLOCKED,
        ) >= 1
        {}
    }
}

//! The API table (ROCm 5.2 `hsa_api_trace.h` layout) and the exported
//! `hsa_*` entry points.
//!
//! As in ROCr, every exported function calls through the table, so a tool
//! loaded by `HSA_TOOLS_LIB` that replaces an entry in `OnLoad` intercepts
//! the calls HIP makes. Entries start at Lathe's implementations; those
//! Lathe does not implement point at [`unimplemented_entry`], which returns
//! `HSA_STATUS_ERROR` and says which entry was called in the trace.

use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

use crate::ffi::ApiTableVersion;
use crate::table_gen::{AMD_EXT, CORE, FINALIZER_EXT, IMAGE_EXT};

/// One sub-table: a version header then function pointers.
#[repr(C)]
#[derive(Debug)]
pub struct FnTable<const N: usize> {
    /// `major_id` 1, `minor_id` the table's size in bytes.
    pub version: ApiTableVersion,
    /// The entries, in header order.
    pub fns: [AtomicPtr<c_void>; N],
}

/// `HsaApiTable`: pointers to the four sub-tables.
#[repr(C)]
#[derive(Debug)]
pub struct HsaApiTable {
    pub version: ApiTableVersion,
    pub core: *mut FnTable<{ CORE.len() }>,
    pub amd_ext: *mut FnTable<{ AMD_EXT.len() }>,
    pub finalizer_ext: *mut FnTable<{ FINALIZER_EXT.len() }>,
    pub image_ext: *mut FnTable<{ IMAGE_EXT.len() }>,
}

/// The tables, allocated once and never freed (tools keep pointers).
#[derive(Debug)]
pub struct Tables {
    pub root: *mut HsaApiTable,
    pub core: &'static FnTable<{ CORE.len() }>,
    pub amd_ext: &'static FnTable<{ AMD_EXT.len() }>,
    #[allow(dead_code)]
    pub finalizer_ext: &'static FnTable<{ FINALIZER_EXT.len() }>,
    pub image_ext: &'static FnTable<{ IMAGE_EXT.len() }>,
}

// SAFETY: the tables are leaked (live for the process) and their entries are
// atomics; `root` is only handed to tools, which follow the C contract.
unsafe impl Send for Tables {}
// SAFETY: as above.
unsafe impl Sync for Tables {}

fn new_table<const N: usize>() -> &'static mut FnTable<N> {
    Box::leak(Box::new(FnTable {
        version: ApiTableVersion {
            major_id: 1,
            minor_id: std::mem::size_of::<FnTable<N>>() as u32,
            step_id: 0,
            reserved: 0,
        },
        fns: std::array::from_fn(|_| AtomicPtr::new(unimplemented_entry as *mut c_void)),
    }))
}

static TABLES: OnceLock<Tables> = OnceLock::new();

/// The process's tables, filled with Lathe's implementations on first use.
pub fn tables() -> &'static Tables {
    TABLES.get_or_init(|| {
        let core = new_table();
        let amd_ext = new_table();
        let finalizer_ext = new_table();
        let image_ext = new_table();
        let root = Box::leak(Box::new(HsaApiTable {
            version: ApiTableVersion {
                major_id: 1,
                minor_id: std::mem::size_of::<HsaApiTable>() as u32,
                step_id: 0,
                reserved: 0,
            },
            core: &mut *core,
            amd_ext: &mut *amd_ext,
            finalizer_ext: &mut *finalizer_ext,
            image_ext: &mut *image_ext,
        }));
        let t = Tables {
            root,
            core,
            amd_ext,
            finalizer_ext,
            image_ext,
        };
        crate::api::fill(&t);
        t
    })
}

/// Index of `name` in `list`, at compile time (a missing name fails the
/// build).
pub const fn index_of(list: &[&str], name: &str) -> usize {
    let mut i = 0;
    while i < list.len() {
        let a = list[i].as_bytes();
        let b = name.as_bytes();
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("not an HSA API table entry")
}

/// The entry of every table slot Lathe does not implement.
pub extern "C" fn unimplemented_entry() -> u32 {
    crate::trace::note("a table entry Lathe does not implement was called");
    crate::ffi::ERROR
}

/// Reads entry `i` of a table.
pub fn entry<const N: usize>(t: &FnTable<N>, i: usize) -> *mut c_void {
    t.fns[i].load(Ordering::Acquire)
}

/// Declares exported `hsa_*` functions: each calls through its table entry;
/// `fill` points the entries at the implementations (traced when
/// `LATHE_TRACE=api`); each symbol gets version `ROCR_1`.
macro_rules! api {
    ($( $tbl:ident $name:ident ( $($a:ident : $t:ty),* ) -> $r:ty = $imp:path ; )*) => {
        $(
            #[no_mangle]
            #[allow(clippy::too_many_arguments)]
            pub extern "C" fn $name($($a: $t),*) -> $r {
                const I: usize = $crate::table::index_of(&$crate::table_gen::$tbl, stringify!($name));
                let p = $crate::table::entry(api!(@tbl $tbl), I);
                // SAFETY: entry I of this table is `$name`'s slot; it holds
                // either Lathe's implementation with exactly this signature
                // (set by `fill`) or a tool's replacement, which the
                // HSA_TOOLS_LIB contract requires to have the same C type.
                let f: extern "C" fn($($t),*) -> $r = unsafe { std::mem::transmute(p) };
                f($($a),*)
            }
        )*

        #[allow(non_snake_case)]
        mod traced {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[allow(clippy::too_many_arguments)]
                pub extern "C" fn $name($($a: $t),*) -> $r {
                    if $crate::trace::api_enabled() {
                        let args: Vec<String> = vec![$(format!("{}={:?}", stringify!($a), $a)),*];
                        let args = args.join(", ");
                        let r = $imp($($a),*);
                        $crate::trace::api_call(stringify!($name), &args, &format!("{:?}", r));
                        r
                    } else {
                        $imp($($a),*)
                    }
                }
            )*
        }

        /// Points every table entry at Lathe's implementation.
        pub fn fill(t: &$crate::table::Tables) {
            $(
                {
                    const I: usize = $crate::table::index_of(&$crate::table_gen::$tbl, stringify!($name));
                    let f: extern "C" fn($($t),*) -> $r = traced::$name;
                    api!(@field t $tbl).fns[I].store(f as *mut std::ffi::c_void, std::sync::atomic::Ordering::Release);
                }
            )*
        }

        #[cfg(not(test))]
        std::arch::global_asm!($(concat!(".symver ", stringify!($name), ", ", stringify!($name), "@@ROCR_1")),*);
    };
    (@tbl CORE) => { $crate::table::tables().core };
    (@tbl AMD_EXT) => { $crate::table::tables().amd_ext };
    (@tbl IMAGE_EXT) => { $crate::table::tables().image_ext };
    (@tbl FINALIZER_EXT) => { $crate::table::tables().finalizer_ext };
    (@field $t:ident CORE) => { $t.core };
    (@field $t:ident AMD_EXT) => { $t.amd_ext };
    (@field $t:ident IMAGE_EXT) => { $t.image_ext };
    (@field $t:ident FINALIZER_EXT) => { $t.finalizer_ext };
}
pub(crate) use api;

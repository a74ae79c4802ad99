//! Images and samplers are not modelled: every call returns an error status
//! and says which call it was in the trace (never a crash).

use std::ffi::c_void;

use crate::ffi::*;
use crate::out::put;

fn refuse(call: &str) -> Status {
    crate::trace::fail(
        ERROR,
        format!("{call}: images and samplers are not modelled by Lathe's runtime"),
    )
}

pub fn get_capability(agent: Agent, geometry: u32, format: *const c_void, cap: *mut u32) -> Status {
    let _ = (agent, geometry, format);
    crate::trace::note("hsa_ext_image_get_capability: images are not modelled (capability 0)");
    put(cap as *mut c_void, 0u32)
}

pub fn data_get_info(agent: Agent, desc: *const c_void, access: u32, info: *mut c_void) -> Status {
    let _ = (agent, desc, access, info);
    refuse("hsa_ext_image_data_get_info")
}

pub fn create(
    agent: Agent,
    desc: *const c_void,
    data: *const c_void,
    access: u32,
    out: *mut u64,
) -> Status {
    let _ = (agent, desc, data, access, out);
    refuse("hsa_ext_image_create")
}

pub fn import(
    agent: Agent,
    src: *const c_void,
    rp: usize,
    sp: usize,
    image: u64,
    region: *const c_void,
) -> Status {
    let _ = (agent, src, rp, sp, image, region);
    refuse("hsa_ext_image_import")
}

pub fn export(
    agent: Agent,
    image: u64,
    dst: *mut c_void,
    rp: usize,
    sp: usize,
    region: *const c_void,
) -> Status {
    let _ = (agent, image, dst, rp, sp, region);
    refuse("hsa_ext_image_export")
}

pub fn copy(
    agent: Agent,
    src: u64,
    so: *const c_void,
    dst: u64,
    d: *const c_void,
    range: *const c_void,
) -> Status {
    let _ = (agent, src, so, dst, d, range);
    refuse("hsa_ext_image_copy")
}

pub fn clear(agent: Agent, image: u64, data: *const c_void, region: *const c_void) -> Status {
    let _ = (agent, image, data, region);
    refuse("hsa_ext_image_clear")
}

pub fn destroy(agent: Agent, image: u64) -> Status {
    let _ = (agent, image);
    refuse("hsa_ext_image_destroy")
}

pub fn sampler_create(agent: Agent, desc: *const c_void, out: *mut u64) -> Status {
    let _ = (agent, desc, out);
    refuse("hsa_ext_sampler_create")
}

pub fn sampler_destroy(agent: Agent, s: u64) -> Status {
    let _ = (agent, s);
    refuse("hsa_ext_sampler_destroy")
}

pub fn get_capability_with_layout(
    agent: Agent,
    g: u32,
    f: *const c_void,
    l: u32,
    cap: *mut u32,
) -> Status {
    let _ = (agent, g, f, l);
    put(cap as *mut c_void, 0u32)
}

pub fn data_get_info_with_layout(
    agent: Agent,
    d: *const c_void,
    a: u32,
    l: u32,
    rp: usize,
    sp: usize,
    info: *mut c_void,
) -> Status {
    let _ = (agent, d, a, l, rp, sp, info);
    refuse("hsa_ext_image_data_get_info_with_layout")
}

pub fn create_with_layout(
    agent: Agent,
    d: *const c_void,
    data: *const c_void,
    a: u32,
    l: u32,
    rp: usize,
    sp: usize,
    out: *mut u64,
) -> Status {
    let _ = (agent, d, data, a, l, rp, sp, out);
    refuse("hsa_ext_image_create_with_layout")
}

pub fn amd_image_create(
    agent: Agent,
    d: *const c_void,
    layout: *const c_void,
    data: *const c_void,
    a: u32,
    out: *mut u64,
) -> Status {
    let _ = (agent, d, layout, data, a, out);
    refuse("hsa_amd_image_create")
}

pub fn ipc_memory_create(p: *mut c_void, len: usize, handle: *mut c_void) -> Status {
    let _ = (p, len, handle);
    refuse("hsa_amd_ipc_memory_create (IPC)")
}

pub fn ipc_memory_attach(
    handle: *const c_void,
    len: usize,
    n: u32,
    agents: *const Agent,
    out: *mut *mut c_void,
) -> Status {
    let _ = (handle, len, n, agents, out);
    refuse("hsa_amd_ipc_memory_attach (IPC)")
}

pub fn ipc_memory_detach(p: *mut c_void) -> Status {
    let _ = p;
    refuse("hsa_amd_ipc_memory_detach (IPC)")
}

pub fn interop_map_buffer(
    n: u32,
    agents: *mut Agent,
    fd: i32,
    flags: u32,
    size: *mut usize,
    p: *mut *mut c_void,
    ml: *mut usize,
    md: *mut *const c_void,
) -> Status {
    let _ = (n, agents, fd, flags, size, p, ml, md);
    refuse("hsa_amd_interop_map_buffer (graphics interop)")
}

pub fn interop_unmap_buffer(p: *mut c_void) -> Status {
    let _ = p;
    refuse("hsa_amd_interop_unmap_buffer (graphics interop)")
}

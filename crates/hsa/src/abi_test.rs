//! Checks the size and every field offset of each C struct the runtime
//! exchanges against Debian's ROCm 5.2 headers: a C++ program compiled by
//! g++ prints them, and each must equal Rust's layout.

use std::collections::HashMap;
use std::mem::{offset_of, size_of};
use std::process::Command;

use crate::ffi::*;
use crate::table::FnTable;
use crate::table_gen::{AMD_EXT, CORE, FINALIZER_EXT, IMAGE_EXT};

const PROGRAM: &str = r#"
#define AMD_INTERNAL_BUILD
#include <hsa.h>
#include <hsa_ext_amd.h>
#include <hsa_api_trace.h>
#include <hsa_ven_amd_loader.h>
#include <amd_hsa_queue.h>
#include <amd_hsa_signal.h>
#include <stddef.h>
#include <stdio.h>
#define S(t) printf(#t " %zu\n", sizeof(t));
#define O(t, f) printf(#t "." #f " %zu\n", offsetof(t, f));
int main() {
  S(hsa_queue_t) O(hsa_queue_t, type) O(hsa_queue_t, features) O(hsa_queue_t, base_address)
  O(hsa_queue_t, doorbell_signal) O(hsa_queue_t, size) O(hsa_queue_t, reserved1) O(hsa_queue_t, id)
  S(amd_queue_t) O(amd_queue_t, write_dispatch_id) O(amd_queue_t, group_segment_aperture_base_hi)
  O(amd_queue_t, private_segment_aperture_base_hi) O(amd_queue_t, max_cu_id) O(amd_queue_t, max_wave_id)
  O(amd_queue_t, max_legacy_doorbell_dispatch_id_plus_1) O(amd_queue_t, legacy_doorbell_lock)
  O(amd_queue_t, read_dispatch_id) O(amd_queue_t, read_dispatch_id_field_base_byte_offset)
  O(amd_queue_t, compute_tmpring_size) O(amd_queue_t, scratch_resource_descriptor)
  O(amd_queue_t, scratch_backing_memory_location) O(amd_queue_t, scratch_backing_memory_byte_size)
  O(amd_queue_t, scratch_wave64_lane_byte_size) O(amd_queue_t, queue_properties)
  O(amd_queue_t, queue_inactive_signal)
  S(amd_signal_t) O(amd_signal_t, kind) O(amd_signal_t, value) O(amd_signal_t, event_mailbox_ptr)
  O(amd_signal_t, event_id) O(amd_signal_t, start_ts) O(amd_signal_t, end_ts) O(amd_signal_t, queue_ptr)
  S(hsa_kernel_dispatch_packet_t) O(hsa_kernel_dispatch_packet_t, setup)
  O(hsa_kernel_dispatch_packet_t, workgroup_size_x) O(hsa_kernel_dispatch_packet_t, grid_size_x)
  O(hsa_kernel_dispatch_packet_t, private_segment_size) O(hsa_kernel_dispatch_packet_t, group_segment_size)
  O(hsa_kernel_dispatch_packet_t, kernel_object) O(hsa_kernel_dispatch_packet_t, kernarg_address)
  O(hsa_kernel_dispatch_packet_t, completion_signal)
  S(hsa_barrier_and_packet_t) O(hsa_barrier_and_packet_t, dep_signal) O(hsa_barrier_and_packet_t, completion_signal)
  S(hsa_barrier_or_packet_t) O(hsa_barrier_or_packet_t, dep_signal) O(hsa_barrier_or_packet_t, completion_signal)
  S(hsa_amd_pointer_info_t) O(hsa_amd_pointer_info_t, type) O(hsa_amd_pointer_info_t, agentBaseAddress)
  O(hsa_amd_pointer_info_t, hostBaseAddress) O(hsa_amd_pointer_info_t, sizeInBytes)
  O(hsa_amd_pointer_info_t, userData) O(hsa_amd_pointer_info_t, agentOwner) O(hsa_amd_pointer_info_t, global_flags)
  S(hsa_amd_profiling_dispatch_time_t) O(hsa_amd_profiling_dispatch_time_t, end)
  S(hsa_amd_profiling_async_copy_time_t) O(hsa_amd_profiling_async_copy_time_t, end)
  S(hsa_dim3_t) O(hsa_dim3_t, z) S(hsa_pitched_ptr_t) O(hsa_pitched_ptr_t, pitch) O(hsa_pitched_ptr_t, slice)
  S(hsa_amd_memory_pool_link_info_t) O(hsa_amd_memory_pool_link_info_t, atomic_support_32bit)
  O(hsa_amd_memory_pool_link_info_t, coherent_support) O(hsa_amd_memory_pool_link_info_t, link_type)
  O(hsa_amd_memory_pool_link_info_t, numa_distance)
  S(ApiTableVersion) S(HsaApiTable) O(HsaApiTable, core_) O(HsaApiTable, amd_ext_)
  O(HsaApiTable, finalizer_ext_) O(HsaApiTable, image_ext_)
  S(CoreApiTable) S(AmdExtTable) S(FinalizerExtTable) S(ImageExtTable)
  O(CoreApiTable, hsa_init_fn) O(CoreApiTable, hsa_signal_store_screlease_fn)
  O(CoreApiTable, hsa_executable_iterate_program_symbols_fn)
  O(AmdExtTable, hsa_amd_memory_pool_allocate_fn) O(AmdExtTable, hsa_amd_queue_cu_get_mask_fn)
  S(hsa_ven_amd_loader_1_03_pfn_t) O(hsa_ven_amd_loader_1_03_pfn_t, hsa_ven_amd_loader_iterate_executables)
  O(hsa_ven_amd_loader_1_03_pfn_t, hsa_ven_amd_loader_loaded_code_object_get_info)
  return 0;
}
"#;

fn c_layout() -> Option<HashMap<String, usize>> {
    let dir = std::env::temp_dir().join(format!("lathe-hsa-abi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let src = dir.join("abi.cpp");
    let exe = dir.join("abi");
    std::fs::write(&src, PROGRAM).ok()?;
    let built = Command::new("g++")
        .args(["-I/usr/include/hsa", "-o"])
        .arg(&exe)
        .arg(&src)
        .status();
    if !built.is_ok_and(|s| s.success()) {
        assert!(
            !lathe_testkit::require_external(),
            "g++ and /usr/include/hsa are required (LATHE_REQUIRE_EXTERNAL=1)"
        );
        eprintln!("skipped: g++ or the HSA headers are missing (scripts/setup.sh)");
        return None;
    }
    let out = Command::new(&exe).output().ok()?;
    let _ = std::fs::remove_dir_all(&dir);
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let (k, v) = l.rsplit_once(' ')?;
                Some((k.to_string(), v.parse().ok()?))
            })
            .collect(),
    )
}

#[test]
fn struct_sizes_and_offsets_match_the_rocm_5_2_headers() {
    let Some(c) = c_layout() else { return };
    let p = size_of::<usize>();
    let rust: Vec<(&str, usize)> = vec![
        ("hsa_queue_t", size_of::<HsaQueue>()),
        ("hsa_queue_t.type", offset_of!(HsaQueue, type_)),
        ("hsa_queue_t.features", offset_of!(HsaQueue, features)),
        (
            "hsa_queue_t.base_address",
            offset_of!(HsaQueue, base_address),
        ),
        (
            "hsa_queue_t.doorbell_signal",
            offset_of!(HsaQueue, doorbell_signal),
        ),
        ("hsa_queue_t.size", offset_of!(HsaQueue, size)),
        ("hsa_queue_t.reserved1", offset_of!(HsaQueue, reserved1)),
        ("hsa_queue_t.id", offset_of!(HsaQueue, id)),
        ("amd_queue_t", size_of::<AmdQueue>()),
        (
            "amd_queue_t.write_dispatch_id",
            offset_of!(AmdQueue, write_dispatch_id),
        ),
        (
            "amd_queue_t.group_segment_aperture_base_hi",
            offset_of!(AmdQueue, group_segment_aperture_base_hi),
        ),
        (
            "amd_queue_t.private_segment_aperture_base_hi",
            offset_of!(AmdQueue, private_segment_aperture_base_hi),
        ),
        ("amd_queue_t.max_cu_id", offset_of!(AmdQueue, max_cu_id)),
        ("amd_queue_t.max_wave_id", offset_of!(AmdQueue, max_wave_id)),
        (
            "amd_queue_t.max_legacy_doorbell_dispatch_id_plus_1",
            offset_of!(AmdQueue, max_legacy_doorbell_dispatch_id_plus_1),
        ),
        (
            "amd_queue_t.legacy_doorbell_lock",
            offset_of!(AmdQueue, legacy_doorbell_lock),
        ),
        (
            "amd_queue_t.read_dispatch_id",
            offset_of!(AmdQueue, read_dispatch_id),
        ),
        (
            "amd_queue_t.read_dispatch_id_field_base_byte_offset",
            offset_of!(AmdQueue, read_dispatch_id_field_base_byte_offset),
        ),
        (
            "amd_queue_t.compute_tmpring_size",
            offset_of!(AmdQueue, compute_tmpring_size),
        ),
        (
            "amd_queue_t.scratch_resource_descriptor",
            offset_of!(AmdQueue, scratch_resource_descriptor),
        ),
        (
            "amd_queue_t.scratch_backing_memory_location",
            offset_of!(AmdQueue, scratch_backing_memory_location),
        ),
        (
            "amd_queue_t.scratch_backing_memory_byte_size",
            offset_of!(AmdQueue, scratch_backing_memory_byte_size),
        ),
        (
            "amd_queue_t.scratch_wave64_lane_byte_size",
            offset_of!(AmdQueue, scratch_wave64_lane_byte_size),
        ),
        (
            "amd_queue_t.queue_properties",
            offset_of!(AmdQueue, queue_properties),
        ),
        (
            "amd_queue_t.queue_inactive_signal",
            offset_of!(AmdQueue, queue_inactive_signal),
        ),
        ("amd_signal_t", size_of::<AmdSignal>()),
        ("amd_signal_t.kind", offset_of!(AmdSignal, kind)),
        ("amd_signal_t.value", offset_of!(AmdSignal, value)),
        (
            "amd_signal_t.event_mailbox_ptr",
            offset_of!(AmdSignal, event_mailbox_ptr),
        ),
        ("amd_signal_t.event_id", offset_of!(AmdSignal, event_id)),
        ("amd_signal_t.start_ts", offset_of!(AmdSignal, start_ts)),
        ("amd_signal_t.end_ts", offset_of!(AmdSignal, end_ts)),
        ("amd_signal_t.queue_ptr", offset_of!(AmdSignal, queue_ptr)),
        (
            "hsa_kernel_dispatch_packet_t",
            size_of::<KernelDispatchPacket>(),
        ),
        (
            "hsa_kernel_dispatch_packet_t.setup",
            offset_of!(KernelDispatchPacket, setup),
        ),
        (
            "hsa_kernel_dispatch_packet_t.workgroup_size_x",
            offset_of!(KernelDispatchPacket, workgroup_size),
        ),
        (
            "hsa_kernel_dispatch_packet_t.grid_size_x",
            offset_of!(KernelDispatchPacket, grid_size),
        ),
        (
            "hsa_kernel_dispatch_packet_t.private_segment_size",
            offset_of!(KernelDispatchPacket, private_segment_size),
        ),
        (
            "hsa_kernel_dispatch_packet_t.group_segment_size",
            offset_of!(KernelDispatchPacket, group_segment_size),
        ),
        (
            "hsa_kernel_dispatch_packet_t.kernel_object",
            offset_of!(KernelDispatchPacket, kernel_object),
        ),
        (
            "hsa_kernel_dispatch_packet_t.kernarg_address",
            offset_of!(KernelDispatchPacket, kernarg_address),
        ),
        (
            "hsa_kernel_dispatch_packet_t.completion_signal",
            offset_of!(KernelDispatchPacket, completion_signal),
        ),
        ("hsa_barrier_and_packet_t", size_of::<BarrierPacket>()),
        (
            "hsa_barrier_and_packet_t.dep_signal",
            offset_of!(BarrierPacket, dep_signal),
        ),
        (
            "hsa_barrier_and_packet_t.completion_signal",
            offset_of!(BarrierPacket, completion_signal),
        ),
        ("hsa_barrier_or_packet_t", size_of::<BarrierPacket>()),
        (
            "hsa_barrier_or_packet_t.dep_signal",
            offset_of!(BarrierPacket, dep_signal),
        ),
        (
            "hsa_barrier_or_packet_t.completion_signal",
            offset_of!(BarrierPacket, completion_signal),
        ),
        ("hsa_amd_pointer_info_t", size_of::<PointerInfo>()),
        (
            "hsa_amd_pointer_info_t.type",
            offset_of!(PointerInfo, type_),
        ),
        (
            "hsa_amd_pointer_info_t.agentBaseAddress",
            offset_of!(PointerInfo, agent_base_address),
        ),
        (
            "hsa_amd_pointer_info_t.hostBaseAddress",
            offset_of!(PointerInfo, host_base_address),
        ),
        (
            "hsa_amd_pointer_info_t.sizeInBytes",
            offset_of!(PointerInfo, size_in_bytes),
        ),
        (
            "hsa_amd_pointer_info_t.userData",
            offset_of!(PointerInfo, user_data),
        ),
        (
            "hsa_amd_pointer_info_t.agentOwner",
            offset_of!(PointerInfo, agent_owner),
        ),
        (
            "hsa_amd_pointer_info_t.global_flags",
            offset_of!(PointerInfo, global_flags),
        ),
        (
            "hsa_amd_profiling_dispatch_time_t",
            size_of::<ProfilingTime>(),
        ),
        (
            "hsa_amd_profiling_dispatch_time_t.end",
            offset_of!(ProfilingTime, end),
        ),
        (
            "hsa_amd_profiling_async_copy_time_t",
            size_of::<ProfilingTime>(),
        ),
        (
            "hsa_amd_profiling_async_copy_time_t.end",
            offset_of!(ProfilingTime, end),
        ),
        ("hsa_dim3_t", size_of::<Dim3>()),
        ("hsa_dim3_t.z", offset_of!(Dim3, z)),
        ("hsa_pitched_ptr_t", size_of::<PitchedPtr>()),
        ("hsa_pitched_ptr_t.pitch", offset_of!(PitchedPtr, pitch)),
        ("hsa_pitched_ptr_t.slice", offset_of!(PitchedPtr, slice)),
        ("hsa_amd_memory_pool_link_info_t", size_of::<LinkInfo>()),
        (
            "hsa_amd_memory_pool_link_info_t.atomic_support_32bit",
            offset_of!(LinkInfo, atomic_support_32bit),
        ),
        (
            "hsa_amd_memory_pool_link_info_t.coherent_support",
            offset_of!(LinkInfo, coherent_support),
        ),
        (
            "hsa_amd_memory_pool_link_info_t.link_type",
            offset_of!(LinkInfo, link_type),
        ),
        (
            "hsa_amd_memory_pool_link_info_t.numa_distance",
            offset_of!(LinkInfo, numa_distance),
        ),
        ("ApiTableVersion", size_of::<ApiTableVersion>()),
        ("HsaApiTable", size_of::<crate::table::HsaApiTable>()),
        (
            "HsaApiTable.core_",
            offset_of!(crate::table::HsaApiTable, core),
        ),
        (
            "HsaApiTable.amd_ext_",
            offset_of!(crate::table::HsaApiTable, amd_ext),
        ),
        (
            "HsaApiTable.finalizer_ext_",
            offset_of!(crate::table::HsaApiTable, finalizer_ext),
        ),
        (
            "HsaApiTable.image_ext_",
            offset_of!(crate::table::HsaApiTable, image_ext),
        ),
        ("CoreApiTable", size_of::<FnTable<{ CORE.len() }>>()),
        ("AmdExtTable", size_of::<FnTable<{ AMD_EXT.len() }>>()),
        (
            "FinalizerExtTable",
            size_of::<FnTable<{ FINALIZER_EXT.len() }>>(),
        ),
        ("ImageExtTable", size_of::<FnTable<{ IMAGE_EXT.len() }>>()),
        (
            "CoreApiTable.hsa_init_fn",
            16 + p * crate::table::index_of(&CORE, "hsa_init"),
        ),
        (
            "CoreApiTable.hsa_signal_store_screlease_fn",
            16 + p * crate::table::index_of(&CORE, "hsa_signal_store_screlease"),
        ),
        (
            "CoreApiTable.hsa_executable_iterate_program_symbols_fn",
            16 + p * crate::table::index_of(&CORE, "hsa_executable_iterate_program_symbols"),
        ),
        (
            "AmdExtTable.hsa_amd_memory_pool_allocate_fn",
            16 + p * crate::table::index_of(&AMD_EXT, "hsa_amd_memory_pool_allocate"),
        ),
        (
            "AmdExtTable.hsa_amd_queue_cu_get_mask_fn",
            16 + p * crate::table::index_of(&AMD_EXT, "hsa_amd_queue_cu_get_mask"),
        ),
        ("hsa_ven_amd_loader_1_03_pfn_t", size_of::<LoaderTable>()),
        (
            "hsa_ven_amd_loader_1_03_pfn_t.hsa_ven_amd_loader_iterate_executables",
            offset_of!(LoaderTable, iterate_executables),
        ),
        (
            "hsa_ven_amd_loader_1_03_pfn_t.hsa_ven_amd_loader_loaded_code_object_get_info",
            offset_of!(LoaderTable, loaded_code_object_get_info),
        ),
    ];
    let mut bad = Vec::new();
    for (k, v) in &rust {
        match c.get(*k) {
            Some(cv) if cv == v => {}
            other => bad.push(format!("{k}: Rust {v}, C {other:?}")),
        }
    }
    assert_eq!(c.len(), rust.len(), "every C line is checked");
    assert!(bad.is_empty(), "layout mismatches:\n{}", bad.join("\n"));
}

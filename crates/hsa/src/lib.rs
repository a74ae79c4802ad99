//! `lathe-hsa`: an HSA runtime over Lathe's emulator, built as the cdylib
//! `libhsa-runtime64.so.1` with ROCr's `ROCR_1` symbol versions, so
//! unmodified HIP programs (Debian's ROCm 5.2 `libamdhip64.so.5`) run their
//! kernels on a CPU.
//!
//! Owns: agents (a CPU and one modelled GPU), memory pools over the
//! emulator's device memory (APU-style: device addresses are host
//! addresses), signals in device-visible memory, AQL queues with a packet
//! processor per queue, executables over `lathe-loader`, the AMD loader
//! extension, the ROCm 5.2 API table and `HSA_TOOLS_LIB`, and
//! `LATHE_TRACE=api` tracing. Configuration comes from the environment
//! (`lathe exec` sets it): `LATHE_TARGET`, `LATHE_THREADS`, `LATHE_STATS`,
//! `LATHE_STATS_JSON`, `LATHE_TIMEOUT` (the watchdog, seconds), `LATHE_TRACE`.
//! Stops are reported in code-object terms (`report`); SIGINT and SIGTERM
//! stop the running dispatch and write the outputs marked incomplete
//! (`interrupt`).

// The implementations mirror HSA C signatures, whatever their arity.
#![allow(clippy::too_many_arguments)]

#[cfg(test)]
mod abi_test;
mod agent;
mod api;
mod exec;
mod ffi;
mod image;
mod interrupt;
mod memory;
mod misc;
mod out;
mod queue;
mod report;
mod rt;
mod signal;
mod table;
mod table_gen;
mod tools;
mod trace;
mod truth;

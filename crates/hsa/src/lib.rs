#![doc = include_str!("../README.md")]
#![warn(missing_docs)]
// The implementations mirror HSA C signatures, whatever their arity.
#![allow(clippy::too_many_arguments)]

#[cfg(test)]
mod abi_test;
mod agent;
mod api;
mod capture;
mod check;
mod exec;
mod ffi;
mod image;
mod interrupt;
mod memory;
mod misc;
mod model;
mod out;
mod profile;
mod queue;
mod report;
mod rt;
mod signal;
mod table;
mod table_gen;
mod tools;
mod trace;
mod truth;
mod wait;

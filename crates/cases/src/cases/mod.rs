//! The case definitions, one module per corpus source.

use crate::data::Elem;
use crate::{Arg, Case, Outputs, ALL_TARGETS};

mod atomics;
mod devlib;
mod divergent;
mod dpp;
mod dynlds;
mod elementwise;
mod float;
mod globals;
mod grid;
mod intdiv;
mod lds;
mod math;
mod mfma;
mod scratch;
mod shfl;

pub(crate) fn all() -> Vec<Case> {
    let mut v = Vec::new();
    v.extend(elementwise::cases());
    v.extend(shfl::cases());
    v.extend(dpp::cases());
    v.extend(lds::cases());
    v.extend(atomics::cases());
    v.extend(scratch::cases());
    v.extend(devlib::cases());
    v.extend(globals::cases());
    v.extend(float::cases());
    v.extend(intdiv::cases());
    v.extend(dynlds::cases());
    v.extend(grid::cases());
    v.extend(divergent::cases());
    v.extend(mfma::cases());
    v.extend(math::cases());
    v
}

/// A clang-22, non-rdc case with a 1D launch and no dynamic LDS or globals.
#[allow(clippy::too_many_arguments)]
fn case(
    name: &'static str,
    about: &'static str,
    sources: &'static [&'static str],
    kernel: &'static str,
    grid: u32,
    block: u32,
    args: Vec<Arg>,
    reference: fn(&Case) -> Outputs,
) -> Case {
    Case {
        name,
        about,
        sources,
        rdc: false,
        hipcc: false,
        targets: ALL_TARGETS,
        kernel,
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        dyn_lds: 0,
        args,
        globals: Vec::new(),
        reference,
    }
}

/// Outputs from (name, bytes) pairs.
fn outs<const N: usize>(items: [(&'static str, Vec<u8>); N]) -> Outputs {
    items.into_iter().collect()
}

/// Byte size of `n` elements of `T`.
fn sz<T: Elem>(n: usize) -> usize {
    n * T::SIZE
}

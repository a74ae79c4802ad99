//! SPIR-V entries of real clang-22 bundles (`--offload-arch=amdgcnspirv
//! -use-spirv-backend`): the module is recognised by its magic number, and
//! its entry points are exactly the kernels clang-22 emits for gfx90a from
//! the same source (read from that code object by llvm-readelf).

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a test failure

use std::collections::BTreeSet;
use std::process::Command;

use lathe_bundle::bundle::Bundle;
use lathe_bundle::Limits;
use lathe_codeobj::spirv::{self, Module, SpirvError};
use lathe_testkit::{llvm_tool, run_text, Build, Output};

fn spirv_module(source: &'static str) -> Vec<u8> {
    let mut b = Build::new(source, &["amdgcnspirv"], Output::DeviceBundle);
    b.extra = vec!["-use-spirv-backend"];
    let bytes = std::fs::read(b.build()).unwrap();
    let bundle = Bundle::parse_with(&bytes, &Limits::default()).unwrap();
    let ids: Vec<String> = bundle
        .entries()
        .iter()
        .map(|e| e.id.to_string_lossy())
        .collect();
    let e = bundle
        .entries()
        .iter()
        .find(|e| e.id.to_string_lossy() == "hip-spirv64-amd-amdhsa--amdgcnspirv")
        .unwrap_or_else(|| panic!("no SPIR-V entry among {ids:?}"));
    e.data.to_vec()
}

/// Kernel names in clang-22's gfx90a code object of the same source.
fn gfx90a_kernels(source: &'static str) -> BTreeSet<String> {
    let co = Build::new(source, &["gfx90a"], Output::CodeObject).build();
    run_text(
        Command::new(llvm_tool("llvm-readelf"))
            .args(["--symbols", "-W"])
            .arg(&co),
    )
    .lines()
    .filter_map(|l| l.split_whitespace().last())
    .filter_map(|n| n.strip_suffix(".kd"))
    .map(str::to_owned)
    .collect()
}

#[test]
fn clang_spirv_entries_name_the_kernels() {
    for source in ["vecops.hip", "reduce.hip"] {
        let bytes = spirv_module(source);
        assert!(spirv::is_spirv(&bytes));
        let m = Module::parse(&bytes).unwrap();
        eprintln!(
            "{source}: SPIR-V {}.{}, generator {}, {} instructions, capabilities {:?}",
            m.version.0,
            m.version.1,
            m.generator,
            m.instructions,
            m.capabilities
                .iter()
                .map(|&c| spirv::capability_name(c))
                .collect::<Vec<_>>()
        );
        assert!(
            m.version >= (1, 0) && m.version <= (1, 6),
            "{:?}",
            m.version
        );
        assert!(m.bound > 0);
        // An OpenCL-style compute module: Kernel and Addresses declared,
        // physical 64-bit addressing.
        for cap in [4, 6] {
            assert!(
                m.capabilities.contains(&cap),
                "{source}: {:?}",
                m.capabilities
            );
        }
        assert_eq!(m.memory_model.map(|(a, _)| a), Some(2), "Physical64");
        let ours: BTreeSet<String> = m.kernels().map(str::to_owned).collect();
        let want = gfx90a_kernels(source);
        assert!(!want.is_empty());
        assert_eq!(ours, want, "{source}");
        assert_eq!(m.kernels().count(), m.entry_points.len());
        // Every truncation is a typed error, never a panic.
        for cut in (0..bytes.len()).step_by(97) {
            if let Err(e) = Module::parse(&bytes[..cut]) {
                assert!(
                    matches!(
                        e,
                        SpirvError::TooShort { .. }
                            | SpirvError::NotWords { .. }
                            | SpirvError::Truncated { .. }
                    ),
                    "cut at {cut}: {e}"
                );
            }
        }
    }
}

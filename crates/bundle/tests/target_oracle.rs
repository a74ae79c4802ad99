//! The processor table against LLVM 22 itself: the processor list of
//! `llc -mcpu=help`, the `EF_AMDGPU_MACH` and generic bits clang writes in
//! e_flags, which features clang accepts in each processor's target ID, and
//! the default wavefront size in the emitted kernel descriptor.

mod common;

use std::collections::BTreeSet;
use std::process::Command;

use lathe_bundle::target::Processor;
use lathe_testkit::{llvm_tool, run_text};

#[test]
fn table_covers_llc_processor_list() {
    let out = Command::new(llvm_tool("llc"))
        .args(["-mtriple=amdgcn-amd-amdhsa", "-mcpu=help"])
        .output()
        .expect("run llc");
    // llc prints the list on stderr or stdout depending on version.
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let section = text
        .split("Available CPUs for this target:")
        .nth(1)
        .and_then(|s| s.split("Available features").next())
        .expect("CPU list");
    let llvm: BTreeSet<String> = section
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| n.starts_with("gfx"))
        .map(str::to_owned)
        .collect();
    assert!(llvm.len() > 40, "parsed {} names", llvm.len());
    let ours: BTreeSet<String> = Processor::all().map(|p| p.name().to_owned()).collect();
    let missing: Vec<_> = llvm.difference(&ours).collect();
    assert!(
        missing.is_empty(),
        "processors LLVM knows but we do not: {missing:?}"
    );
    // The only extras are the legacy gfx940/gfx941.
    let extra: Vec<_> = ours.difference(&llvm).map(String::as_str).collect();
    assert_eq!(extra, vec!["gfx940", "gfx941"]);
}

/// Compiles an empty kernel for `mcpu`; returns (e_flags, assembly) or
/// `None` if clang rejects the target.
fn compile(mcpu: &str, dir: &std::path::Path) -> Option<(u32, String)> {
    let src = dir.join("k.c");
    lathe_testkit::write_cached(&src, b"__attribute__((amdgpu_kernel)) void k(void) {}\n");
    let obj = dir.join(format!("{}.o", common::sanitize(mcpu)));
    let ok = Command::new(llvm_tool("clang"))
        .args(["--target=amdgcn-amd-amdhsa", "-nogpulib", "-c"])
        .arg(format!("-mcpu={mcpu}"))
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .output()
        .expect("run clang")
        .status
        .success();
    if !ok {
        return None;
    }
    let data = std::fs::read(&obj).expect("read object");
    let flags = u32::from_le_bytes(data[48..52].try_into().expect("e_flags"));
    let asm = run_text(
        Command::new(llvm_tool("clang"))
            .args(["--target=amdgcn-amd-amdhsa", "-nogpulib", "-S", "-o", "-"])
            .arg(format!("-mcpu={mcpu}"))
            .arg(&src),
    );
    Some((flags, asm))
}

#[test]
fn mach_features_and_wave_size_match_clang() {
    let dir = common::scratch("target-oracle");
    let procs: Vec<Processor> = Processor::all().collect();
    let half = procs.len() / 2;
    let check = |chunk: &[Processor]| {
        for &p in chunk {
            let name = p.name();
            let Some((flags, asm)) = compile(name, &dir) else {
                assert!(matches!(name, "gfx940" | "gfx941"), "clang rejects {name}");
                continue;
            };
            assert_eq!(flags & 0xff, p.elf_mach(), "{name}: EF_AMDGPU_MACH");
            assert_eq!(
                flags >> 24 != 0,
                p.is_generic(),
                "{name}: generic version bits"
            );
            let wave32 = asm.contains(".amdhsa_wavefront_size32 1");
            assert_eq!(!wave32, p.wave64_default(), "{name}: default wave size");
            for (feature, ours) in [
                ("xnack", p.supports_xnack()),
                ("sramecc", p.supports_sramecc()),
            ] {
                for sign in ['+', '-'] {
                    let id = format!("{name}:{feature}{sign}");
                    let clang_ok = compile(&id, &dir).is_some();
                    assert_eq!(clang_ok, ours, "clang and we disagree on {id}");
                    assert_eq!(id.parse::<lathe_bundle::TargetId>().is_ok(), ours, "{id}");
                }
            }
        }
    };
    std::thread::scope(|s| {
        s.spawn(|| check(&procs[..half]));
        s.spawn(|| check(&procs[half..]));
    });
}

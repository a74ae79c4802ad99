//! Links `lathe` as a position-dependent executable on Linux (D55): a PIE
//! binary this size carries ~17,500 relative relocations that the dynamic
//! loader applies at every start, writing (page-faulting) every page of
//! `.data.rel.ro`, which costs a short `lathe disasm` about a tenth of its
//! run. Linked at a fixed address, the linker resolves them once.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}

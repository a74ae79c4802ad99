//! Gives the cdylib ROCr's SONAME so programs linked against
//! `libhsa-runtime64.so.1` load it, and defines the `ROCR_1` version node
//! (`rocr.map`) that the `.symver` directives in `src/table.rs` bind every
//! exported `hsa_*` symbol to.
fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libhsa-runtime64.so.1");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={dir}/rocr.map");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=rocr.map");
}

//! Fuzzes the AMDGPU code object reader: header, sections, segments, symbol
//! tables, relocations, notes, metadata, the symbol model, kernel
//! descriptors (decoded for the file's processor and for every family) and
//! the descriptor/metadata cross-checks.
#![no_main]

use lathe_codeobj::kd::{KdArch, KernelDescriptor};
use lathe_codeobj::{CodeObject, Processor};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(co) = CodeObject::parse(data) else {
        return;
    };
    let _ = co.target();
    for s in co.sections() {
        let _ = co.section_data(s);
    }
    let _ = co.segments().len();
    let _ = co.relocations();
    for n in co.notes() {
        let _ = n.map(|n| n.desc.len());
    }
    let _ = co.metadata();
    let _ = co.metadata_v2().map(|m| m.map(|m| m.text()));
    if let Ok(syms) = co.symbols() {
        for k in syms.kernels() {
            if let (Ok(d), Some(arch)) = (k.descriptor(), co.kd_arch()) {
                exercise(d, arch);
            }
        }
        let _ = syms.managed_variables().len();
    }
    let _ = co.check();
    // Any 64-byte window decoded for a few very different processors.
    if let Some(b) = data.get(..64) {
        if let Ok(d) = KernelDescriptor::parse(b) {
            for name in [
                "gfx803", "gfx906", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1201",
            ] {
                if let Some(p) = Processor::from_name(name) {
                    exercise(&d, KdArch::for_processor(p));
                }
            }
        }
    }
});

fn exercise(d: &KernelDescriptor, arch: KdArch) {
    let _ = d.rsrc1(arch);
    let _ = d.rsrc2(arch);
    let _ = d.rsrc3(arch);
    let _ = d.properties();
    let _ = d.preload();
    let _ = d.allocated_vgprs(arch);
    let _ = d.allocated_sgprs(arch);
    let _ = d.accum_offset(arch);
    let _ = d.initial_sgprs(arch);
    let _ = d.implied_user_sgprs(arch);
}

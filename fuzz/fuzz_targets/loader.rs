//! Fuzzes the loader: code objects -> executable. The input is split into
//! up to three code objects (separated by the 4-byte marker `LDR|`), loaded
//! in order for gfx90a (and, extended, for gfx90a:xnack+), frozen —
//! segments placed, dynamic relocations applied, symbols resolved across
//! code objects — then every symbol query runs and the executable is
//! destroyed. Any outcome but a panic is fine; typed errors are expected.
#![no_main]

use lathe_emu::mem::DeviceMemory;
use lathe_loader::{Executable, SymbolKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parts: Vec<&[u8]> = split(data).take(3).collect();
    for (agent, extended) in [("gfx90a", false), ("gfx90a:xnack+", true)] {
        let mem = DeviceMemory::new();
        let mut exe = Executable::new(agent.parse().expect("agent")).allow_extended(extended);
        let _ = exe.define_external_variable("fuzz_external", 0x1000);
        let mut loaded = 0;
        for p in &parts {
            if exe.load(&mem, p).is_ok() {
                loaded += 1;
            }
        }
        if exe.freeze(&mem).is_ok() {
            assert!(exe.is_frozen());
            assert_eq!(exe.code_objects().len(), loaded);
            for s in exe.symbols() {
                assert!(
                    exe.symbol(&s.name).is_some(),
                    "{} not found by name",
                    s.name
                );
                let _ = exe.kernel(&s.name);
            }
            for kind in [
                SymbolKind::Kernel,
                SymbolKind::Variable,
                SymbolKind::DeviceFunction,
            ] {
                let _ = exe.symbols_of(kind).count();
            }
            for lco in exe.code_objects() {
                let _ = lco.device_address(0);
            }
            let _ = exe.load(&mem, parts.first().copied().unwrap_or(&[]));
        }
        let _ = exe.destroy(&mem);
    }
});

fn split(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = Some(data);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.windows(4).position(|w| w == b"LDR|") {
            Some(i) => {
                rest = Some(&r[i + 4..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

//! Fuzzes the SPIR-V module reader (`lathe_codeobj::spirv`): header, byte
//! order, instruction stream, literal strings, declarations.
#![no_main]

use lathe_codeobj::spirv::{self, Module};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let recognised = spirv::is_spirv(data);
    match Module::parse(data) {
        Ok(m) => {
            assert!(recognised);
            assert!(m.instructions <= data.len() / 4);
            for e in &m.entry_points {
                let _ = e.execution_model_name();
            }
            for &c in &m.capabilities {
                let _ = spirv::capability_name(c);
            }
            if let Some((a, mm)) = m.memory_model {
                let _ = spirv::memory_model_names(a, mm);
            }
            let _ = m.generator.to_string();
            let _ = m.kernels().count();
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});

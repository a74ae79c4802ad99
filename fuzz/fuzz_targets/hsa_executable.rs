//! The runtime's code-object-reader → executable path
//! (`hsa_code_object_reader_create_from_memory`,
//! `hsa_executable_load_agent_code_object`, `hsa_executable_freeze`,
//! symbol queries, `hsa_executable_destroy`): the same loader calls on the
//! same device memory `lathe-hsa` makes, on arbitrary bytes.
#![no_main]

use lathe_emu::mem::DeviceMemory;
use lathe_loader::Executable;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(agent) = "gfx90a:sramecc+:xnack-".parse() else {
        return;
    };
    let mem = DeviceMemory::new();
    let mut exe = Executable::new(agent);
    // Two loads, like a module whose device functions live in a second
    // code object (the halves of the input, then the whole).
    let (a, b) = data.split_at(data.len() / 2);
    for bytes in [a, b, data] {
        let _ = exe.load(&mem, bytes);
    }
    if exe.freeze(&mem).is_ok() {
        for s in exe.symbols() {
            let _ = exe.symbol(&format!("{}.kd", s.name));
        }
    }
    let _ = exe.destroy(&mem);
});

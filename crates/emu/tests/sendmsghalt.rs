//! `s_sendmsghalt` sends a message and then halts the wave until a
//! debugger or trap handler resumes it (MI200 ISA, SOPP opcode 17). Lathe
//! models neither, like `s_sethalt`: the description names the reason
//! (trap-handler state) and a wave reaching it stops as unsupported
//! instead of running past it or hanging the dispatch.

use lathe_emu::interp::{Exec, Stop};
use lathe_emu::mem::{DeviceMemory, RegionKind};
use lathe_emu::wave::{Step, Wave};
use lathe_isa::sem::{self, Sem, Why};
use lathe_isa::{Opcode, Target};

#[test]
fn sendmsghalt_is_trap_handler_state_and_stops_the_wave() {
    let op = Opcode::all_for(Target::Gfx90a)
        .find(|o| o.name() == "s_sendmsghalt")
        .expect("opcode");
    assert_eq!(sem::of(op).sem, Sem::Unsupported(Why::TrapHandler));
    assert!(!lathe_emu::interp::has_semantics(op));

    let mem = DeviceMemory::new();
    let code = mem.allocate(64, 256, RegionKind::Device).expect("code");
    let mut v = mem.view();
    // s_sendmsghalt sendmsg(MSG_INTERRUPT); s_endpgm
    v.store_u32(code, 0xbf91_0001).expect("code");
    v.store_u32(code + 4, 0xbf81_0000).expect("code");
    let mut w = Wave::new(code, [0; 3], 0);
    w.exec = u64::MAX;
    let mut exec = Exec::new(mem.view(), Target::Gfx90a);
    let mut lds = [];
    match exec.step(&mut w, &mut lds) {
        Err(Stop::Unsupported { inst, pc, .. }) => {
            assert!(inst.starts_with("s_sendmsghalt"), "{inst}");
            assert_eq!(pc, code);
        }
        other => panic!("s_sendmsghalt: {other:?}"),
    }
}

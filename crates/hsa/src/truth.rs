//! Opt-in ground truth for testing instrumentation (`LATHE_GROUND_TRUTH=FILE`):
//! every kernel dispatch runs with the emulator's recorder
//! ([`lathe_emu::run::dispatch_recorded`]) and one record per launch is
//! written to FILE as a JSON array (at shut-down and at exit):
//!
//! ```json
//! {"launch": 0, "kernel": "_Z3fooPf", "grid": [256,1,1], "block": [64,1,1],
//!  "wave_instructions": 1234, "thread_instructions": 56789,
//!  "per_pc": [[4352, 4, 256, "s_load_dwordx2"], ...],
//!  "accesses": [[4400, 0, 140737488355328], ...]}
//! ```
//!
//! `per_pc` is `[address, wave executions, active lanes summed, opcode]`
//! per executed instruction, the address in the code object's own virtual
//! addresses (device address minus the load delta of the kernel's code
//! object), so it compares with what `lathe disasm` and the tools report.
//! `accesses` (`[address, lane, memory address]` per active lane of every
//! vector-memory and LDS instruction) is written only with
//! `LATHE_GROUND_TRUTH_ACCESSES=1`. Launches are numbered in the order the
//! runtime runs them.
//!
//! Recorded dispatches run without the queue context (the emulator makes
//! its own copy of the dispatch packet with the same fields and a zeroed
//! queue descriptor), so they are for tests, not for programs that read the
//! `amd_queue_t` from a kernel.

use std::sync::Mutex;

use lathe_emu::record::Recorder;
use serde_json::{json, Value};

use crate::rt::lock;

/// The ground-truth file and whether to log accesses, read once.
pub fn enabled() -> Option<&'static (String, bool)> {
    static CFG: std::sync::OnceLock<Option<(String, bool)>> = std::sync::OnceLock::new();
    CFG.get_or_init(|| {
        std::env::var("LATHE_GROUND_TRUTH")
            .ok()
            .filter(|p| !p.is_empty())
            .map(|p| {
                let acc = std::env::var("LATHE_GROUND_TRUTH_ACCESSES").is_ok_and(|v| v == "1");
                (p, acc)
            })
    })
    .as_ref()
}

static RECORDS: Mutex<Vec<Value>> = Mutex::new(Vec::new());

/// Appends one launch's record.
pub fn record(kernel: &str, grid: [u32; 3], block: [u32; 3], load_delta: i64, rec: &Recorder) {
    let Some((_, accesses)) = enabled() else {
        return;
    };
    let r = crate::rt::rt_any();
    let local = |pc: u64| pc.wrapping_sub(load_delta as u64);
    let mut pcs: Vec<(&u64, &lathe_emu::record::PcCount)> = rec.per_pc.iter().collect();
    pcs.sort_unstable_by_key(|(pc, _)| **pc);
    let per_pc: Vec<Value> = pcs
        .iter()
        .map(|(pc, c)| {
            let op = r
                .and_then(|r| {
                    let mut b = [0u8; 16];
                    let _ = r.mem.view().read_bytes(**pc, &mut b);
                    Some(lathe_isa::decode(r.gpu.target?, &b).info().name())
                })
                .unwrap_or("");
            json!([local(**pc), c.waves, c.lanes, op])
        })
        .collect();
    let mut v = json!({
        "kernel": kernel, "grid": grid, "block": block,
        "wave_instructions": rec.wave_instructions(),
        "thread_instructions": rec.thread_instructions(),
        "per_pc": per_pc,
    });
    if *accesses {
        v["accesses"] = Value::Array(
            rec.accesses
                .iter()
                .map(|a| json!([local(a.pc), a.lane, a.addr]))
                .collect(),
        );
    }
    let mut all = lock(&RECORDS);
    v["launch"] = json!(all.len());
    all.push(v);
}

/// Writes the file (at shut-down and at exit).
pub fn flush() {
    let Some((path, _)) = enabled() else { return };
    let all = lock(&RECORDS);
    let text = serde_json::to_string(&*all).unwrap_or_default();
    if let Err(e) = std::fs::write(path, text + "\n") {
        eprintln!("lathe: cannot write {path}: {e}");
    }
}

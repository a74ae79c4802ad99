//! The instrumentation API end to end: open a code object, select sites,
//! attach probes, get the new code object and the site map, run it on the
//! emulator and read the probe data back.
//!
//! ```sh
//! cargo run -p lathe-dbi --example instrument -- path/to/kernel.co [KERNEL_REGEX]
//! ```
//! It writes `CODE_OBJECT.instrumented` and prints the site map. Run the
//! result with `lathe run` (`lathe_dbi_run::builtin::run` shows how
//! probe data is read back).

use std::sync::Arc;

use lathe_dbi::rewrite::{self, CounterProbe, InstClass, Request, Selector, Where};
use regex::Regex;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: instrument CODE_OBJECT [KERNEL_REGEX]")?;
    let kernel = args.next().map(|k| Regex::new(&k)).transpose()?;
    let bytes = std::fs::read(&path)?;
    // Count every block entry, and every vector memory instruction with its
    // active lanes.
    let requests = vec![
        Request {
            select: Selector {
                kernel: kernel.clone(),
                ..Default::default()
            },
            at: Where::BlockEntry,
            probe: Arc::new(CounterProbe { lanes: false }),
        },
        Request {
            select: Selector {
                kernel,
                class: Some(InstClass::Vmem),
                ..Default::default()
            },
            at: Where::Before,
            probe: Arc::new(CounterProbe { lanes: true }),
        },
    ];
    let out = rewrite::instrument(&bytes, &requests)?;
    let dst = format!("{path}.instrumented");
    std::fs::write(&dst, &out.code_object)?;
    println!(
        "{} sites, {} bytes of probe data per dispatch, {} long jumps, reserved {:?}",
        out.sites.len(),
        out.data_size,
        out.relaxed_branches,
        out.regs
    );
    println!("site map (site -> original pc -> instruction):");
    for s in &out.sites {
        println!(
            "  {:>4} {:?} {:#08x} {} [{}] slot {}",
            s.id, s.at, s.pc, s.inst, s.function, s.slot
        );
    }
    println!("wrote {dst}");
    Ok(())
}

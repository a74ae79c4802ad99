//! Lists every bundle and entry of a file and optionally extracts the
//! entries selected for one agent, timing each phase:
//!
//! ```sh
//! cargo run --release -p lathe-bundle --example scan -- FILE [AGENT OUTDIR]
//! ```

use std::time::Instant;

use lathe_bundle::select::{select, Policy};
use lathe_bundle::{discover, Limits, TargetId};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().ok_or("usage: scan FILE [AGENT OUTDIR]")?;
    let file = std::fs::File::open(path)?;
    // SAFETY: the file is opened read-only and not modified while mapped
    // (a concurrent writer would be a usage error of this example).
    let map = unsafe { memmap2::Mmap::map(&file)? };
    let limits = Limits::default();
    let t = Instant::now();
    let d = discover(&map, &limits)?;
    let t_discover = t.elapsed();
    let mut entries = 0;
    let mut extracted = 0u64;
    let agent: Option<TargetId> = args.get(1).map(|a| a.parse()).transpose()?;
    let outdir = args.get(2);
    if let Some(o) = outdir {
        std::fs::create_dir_all(o)?;
    }
    for b in &d.bundles {
        let opened = b.open(&limits)?;
        let bundle = opened.bundle(&limits).map_err(|e| b.wrap(e))?;
        entries += bundle.entries().len();
        if let Some(a) = &agent {
            let s = select(bundle.entries(), a, Policy::Clang);
            if let (Some(e), Some(o)) = (s.entry(bundle.entries()), outdir) {
                std::fs::write(format!("{o}/{:03}.co", b.index), e.data)?;
                extracted += e.data.len() as u64;
            }
        }
    }
    println!(
        "{:?}: {} bundles, {} wrappers, {} entries, {} problems; discover {:?}, total {:?}, extracted {} bytes",
        d.kind,
        d.bundles.len(),
        d.wrappers.len(),
        entries,
        d.problems.len(),
        t_discover,
        t.elapsed(),
        extracted
    );
    for p in &d.problems {
        println!("problem: {p}");
    }
    Ok(())
}

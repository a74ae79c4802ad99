//! Throughput of the llvm-objdump-style listing (what `lathe disasm
//! --format llvm` prints) on whole code objects, without process start or
//! file output: decode, format and comment every instruction of `.text`
//! into a reused byte buffer, with line caches of several sizes (2^0: no
//! cache), a fresh one per code object as in one `lathe disasm` run; best
//! of 5 rounds.
//!
//! `cargo run --release -p lathe-isa --example listing_bench -- <code objects...>`
//! (`LISTING_BENCH_BITS=14`: only that cache size)

use lathe_isa::listing::{LineCache, Listing};
use lathe_isa::{ListingSymbol, Style, Target};
use object::{Object, ObjectSection, ObjectSymbol, SymbolKind};
use std::time::Instant;

struct Text {
    target: Target,
    code: Vec<u8>,
    base: u64,
    syms: Vec<(String, u64, u64)>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut texts = Vec::new();
    for a in std::env::args().skip(1) {
        let data = std::fs::read(&a)?;
        let file = object::File::parse(&*data)?;
        let Some(text) = file.section_by_name(".text") else {
            continue;
        };
        let mut syms = Vec::new();
        for s in file.symbols() {
            if s.section_index() == Some(text.index()) && s.kind() == SymbolKind::Text {
                syms.push((s.name()?.to_string(), s.address(), s.size()));
            }
        }
        // The processor from the file name (`...--gfx1100.co`), else gfx90a.
        let stem = a.trim_end_matches(".co");
        let target = Target::from_name(stem).unwrap_or(Target::Gfx90a);
        texts.push(Text {
            target,
            code: text.data()?.to_vec(),
            base: text.address(),
            syms,
        });
    }
    // `LISTING_BENCH_BITS=14`: only that cache size (0: no cache).
    let sizes: Vec<u32> = match std::env::var("LISTING_BENCH_BITS") {
        Ok(v) => vec![v.parse()?],
        Err(_) => vec![0, 12, 14, 16],
    };
    for bits in sizes {
        let mut out = Vec::new();
        let mut lines = 0usize;
        let mut bytes = 0usize;
        let mut best = f64::MAX;
        let (mut n, mut hits) = (0, 0);
        for round in 0..5 {
            let t0 = Instant::now();
            for t in &texts {
                let syms: Vec<ListingSymbol<'_>> = t
                    .syms
                    .iter()
                    .map(|(n, a, s)| ListingSymbol {
                        name: n,
                        addr: *a,
                        size: *s,
                    })
                    .collect();
                let l = Listing::new(t.target, &t.code, t.base, &syms, Style::LlvmObjdump);
                out.clear();
                // Fresh per code object, as in one `lathe disasm` run.
                let mut cache = LineCache::with_bits(bits);
                l.write_part(&mut out, l.start(), l.code_len(), &mut cache);
                if round == 0 {
                    let (a, b) = cache.stats();
                    n += a;
                    hits += b;
                    lines += out
                        .split(|&b| b == b'\n')
                        .filter(|l| l.starts_with(b"\t"))
                        .count();
                    bytes += out.len();
                }
            }
            best = best.min(t0.elapsed().as_secs_f64());
        }
        println!(
            "cache 2^{bits}: {} code objects, {lines} instruction lines, {:.1} MB text: best {:.3} s, {:.2} M lines/s, {:.0} MB/s, {:.1}% lines copied",
            texts.len(),
            bytes as f64 / 1e6,
            best,
            lines as f64 / best / 1e6,
            bytes as f64 / best / 1e6,
            hits as f64 * 100.0 / n.max(1) as f64
        );
    }
    Ok(())
}

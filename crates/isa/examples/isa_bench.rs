//! Decode and print throughput on real code: every `.text` of the jax wheel's
//! gfx90a/gfx942 code objects and the built corpus (paths given on the
//! command line, or the test caches).
//!
//! `cargo run --release -p lathe-isa --example isa_bench -- <code objects...>`

use lathe_isa::{Decoder, Target};
use std::time::Instant;

fn main() {
    let mut texts: Vec<(Target, Vec<u8>)> = Vec::new();
    let args: Vec<String> = std::env::args().skip(1).collect();
    for a in &args {
        let data = std::fs::read(a).expect("read");
        let target = if a.contains("gfx942") {
            Target::Gfx942
        } else {
            Target::Gfx90a
        };
        if let Some(t) = text_section(&data) {
            texts.push((target, t));
        }
    }
    let total_bytes: usize = texts.iter().map(|(_, t)| t.len()).sum();
    let mut n = 0usize;
    for (t, b) in &texts {
        n += Decoder::new(*t, b).count();
    }
    println!(
        "{} code objects, {} bytes, {} instructions",
        texts.len(),
        total_bytes,
        n
    );
    // Baseline: one instruction repeated (no branch misprediction).
    let same: Vec<u8> = [0x01u8, 0x02, 0x00, 0x02].repeat(100_000);
    let t0 = Instant::now();
    let mut k = 0u64;
    for _ in 0..50 {
        for (_, i) in Decoder::new(Target::Gfx90a, &same) {
            k = k.wrapping_add(i.opcode().index() as u64);
        }
    }
    println!(
        "decode (one opcode repeated): {:.1} M instructions/s ({k})",
        5e6 / t0.elapsed().as_secs_f64() / 1e6
    );
    // Best of 5 rounds: the machine is shared, the minimum time is the
    // decoder's.
    let reps = (10_000_000 / n.max(1)).max(1);
    let mut sink = 0u64;
    let mut dt = f64::MAX;
    for _ in 0..5 {
        let t0 = Instant::now();
        for _ in 0..reps {
            for (t, b) in &texts {
                for (_, i) in Decoder::new(*t, b) {
                    sink = sink.wrapping_add(i.opcode().index() as u64);
                }
            }
        }
        dt = dt.min(t0.elapsed().as_secs_f64());
    }
    println!(
        "decode: {:.1} M instructions/s ({sink})",
        (n * reps) as f64 / dt / 1e6
    );
    let mut s = String::with_capacity(256);
    let reps = (5_000_000 / n.max(1)).max(1);
    let t0 = Instant::now();
    let mut chars = 0usize;
    for _ in 0..reps {
        for (t, b) in &texts {
            for (_, i) in Decoder::new(*t, b) {
                s.clear();
                i.write_to(&mut s).expect("String write");
                chars += s.len();
            }
        }
    }
    let dt = t0.elapsed().as_secs_f64();
    println!(
        "decode+print: {:.1} M instructions/s ({chars} chars)",
        (n * reps) as f64 / dt / 1e6
    );
    let t0 = Instant::now();
    let mut regs = 0usize;
    for _ in 0..reps {
        for (t, b) in &texts {
            for (_, i) in Decoder::new(*t, b) {
                i.for_each_reg(|_| regs += 1);
            }
        }
    }
    let dt = t0.elapsed().as_secs_f64();
    println!(
        "decode+registers: {:.1} M instructions/s ({regs})",
        (n * reps) as f64 / dt / 1e6
    );
}

/// `.text` of an ELF code object.
fn text_section(d: &[u8]) -> Option<Vec<u8>> {
    use object::{Object, ObjectSection};
    let f = object::File::parse(d).ok()?;
    let s = f.section_by_name(".text")?;
    s.data().ok().map(|b| b.to_vec())
}

//! Replays `dbi_sites` fuzz inputs natively (no coverage instrumentation):
//! what one input costs `lathe-dbi` itself, phase by phase. Each input's
//! bytes choose requests and register mode as in the fuzz target
//! (`fuzz/fuzz_targets/dbi_sites.rs`); each is instrumented with a
//! [`Prepared`] rewrite of the corpus kernel, then its output is parsed,
//! lifted and checked by both static checks, as the target does (no run).
//!
//! ```text
//! cargo run --release -p lathe-dbi --example sites_replay -- [--rounds N] [--case NAME] FILE_OR_DIR...
//! ```
//!
//! Prints per-input microseconds (median over rounds of the whole
//! corpus's mean) for: requests, instrument, parse+lift, verify,
//! verify_regs, and the total; fails if a check fails.

use std::time::Instant;

use lathe_cases::build;
use lathe_codeobj::CodeObject;
use lathe_dbi::rewrite::{instrument_prepared, Options as RwOptions, Prepared};
use lathe_dbi::tools::requests_from_bytes;
use lathe_dbi::{Liveness, Program};

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut rounds, mut case) = (5usize, "saxpy".to_string());
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--rounds N")
            }
            "--case" => case = args.next().expect("--case NAME"),
            path => {
                let md = std::fs::metadata(path).unwrap_or_else(|e| panic!("{path}: {e}"));
                if md.is_dir() {
                    let mut names: Vec<_> = std::fs::read_dir(path)
                        .expect("read_dir")
                        .map(|e| e.expect("entry").path())
                        .collect();
                    names.sort();
                    for n in names {
                        inputs.push(std::fs::read(&n).expect("read"));
                    }
                } else {
                    inputs.push(std::fs::read(path).expect("read"));
                }
            }
        }
    }
    if inputs.is_empty() {
        eprintln!("no inputs");
        std::process::exit(2);
    }
    let c = lathe_cases::by_name(&case).expect("a corpus case");
    let co = std::fs::read(build::linked_code_object(&c, "gfx90a", "-O3")).expect("co");
    let obj = CodeObject::parse(&co).expect("parse");
    let p = Program::lift(&obj).expect("lift");
    let live = Liveness::compute(&p);
    let prep = Prepared::new(&obj, &p, &live).expect("prepare");
    let n = inputs.len() as f64;
    let mut per: Vec<[f64; 6]> = Vec::new();
    for _ in 0..rounds {
        let mut t = [0f64; 6];
        for data in &inputs {
            let t0 = Instant::now();
            let reqs = requests_from_bytes(data);
            let lanes = data.last().is_some_and(|b| b & 1 != 0);
            let t1 = Instant::now();
            let out =
                instrument_prepared(&prep, &obj, &p, &live, &reqs, &RwOptions::lane_mode(lanes))
                    .expect("instrument");
            let t2 = Instant::now();
            let oc = CodeObject::parse(&out.code_object).expect("output parses");
            let q = Program::lift(&oc).expect("output lifts");
            let t3 = Instant::now();
            lathe_dbi::verify::check_lifted(&p, &q, &out.addr_map).expect("verify");
            let t4 = Instant::now();
            lathe_dbi::verify_regs::check_lifted(&p, &live, &q, &out.addr_map)
                .expect("verify_regs");
            let t5 = Instant::now();
            for (k, (a, b)) in [(t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5), (t0, t5)]
                .into_iter()
                .enumerate()
            {
                t[k] += (b - a).as_secs_f64() * 1e6 / n;
            }
        }
        per.push(t);
    }
    let names = [
        "requests",
        "instrument",
        "parse+lift",
        "verify",
        "verify_regs",
        "total",
    ];
    println!(
        "{} inputs, {rounds} rounds, us per input (median [min-max])",
        inputs.len()
    );
    for (k, name) in names.iter().enumerate() {
        let mut v: Vec<f64> = per.iter().map(|t| t[k]).collect();
        v.sort_by(f64::total_cmp);
        println!(
            "{name:12} {:8.1} [{:.1}-{:.1}]",
            v[v.len() / 2],
            v[0],
            v[v.len() - 1]
        );
    }
}

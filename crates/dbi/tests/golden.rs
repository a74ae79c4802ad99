//! The rewriter's output is pinned: for a fixed list of random site
//! selections on six corpus kernels (both register modes), a digest of
//! everything a rewrite returns (code object bytes, address map, sites,
//! probe-data size, registers, scratch, relocations, or the error) must
//! equal the one recorded in `tests/data/rewrite_digests.txt`, which was
//! written by the rewriter of `main` at b0a7db6 (before D74's caches).
//!
//! The rewrites run in a different order from the recording (cases
//! interleaved, selections backwards, each twice: with a reused
//! [`Prepared`] and fresh), so that anything a cache carries from one
//! rewrite into the next (the encoder memo, the probe templates, the
//! writer's template of the original file) changes a digest.
//!
//! `LATHE_DBI_GOLDEN=write` rewrites the file instead (in recording order).

use std::fmt::Write as _;

use lathe_cases::build;
use lathe_codeobj::CodeObject;
use lathe_dbi::rewrite::{
    instrument_lifted_with, instrument_prepared, Instrumented, Options as RwOptions, Prepared,
};
use lathe_dbi::tools::requests_from_bytes;
use lathe_dbi::{Liveness, Program};

const CASES: [(&str, &str); 6] = [
    ("saxpy", "-O3"),
    ("saxpy", "-O0"),
    ("recursion_mix", "-O0"),
    ("sort_local", "-O3"),
    ("ackermann", "-O0"),
    ("atomic_cas_loops", "-O3"),
];

/// Selections per case.
const PER_CASE: usize = 40;

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/rewrite_digests.txt"
);

/// FNV-1a, 64 bits.
fn fnv(h: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *h ^= u64::from(b);
        *h = h.wrapping_mul(0x0100_0000_01b3);
    }
}

fn digest(r: &Result<Instrumented, lathe_dbi::Error>) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    match r {
        Err(e) => fnv(&mut h, format!("error {e}").as_bytes()),
        Ok(o) => {
            fnv(&mut h, &o.code_object);
            for (a, b) in &o.addr_map {
                fnv(&mut h, &a.to_le_bytes());
                fnv(&mut h, &b.to_le_bytes());
            }
            let mut s = String::new();
            for x in &o.sites {
                let _ = write!(
                    s,
                    "{} {} {} {} {} {:#x} {} {:?} {} {} {};",
                    x.id,
                    x.request,
                    x.function,
                    x.function_index,
                    x.inst_index,
                    x.pc,
                    x.inst,
                    x.at,
                    x.slot,
                    x.scc_live,
                    x.vcc_live
                );
            }
            let _ = write!(
                s,
                "{} {:?} {:?} {} {:?} {:?} {} {:?}",
                o.data_size,
                o.regs,
                o.function_addrs,
                o.relaxed_branches,
                o.skipped,
                o.scratch,
                o.spilled_sites,
                o.relocs
            );
            fnv(&mut h, s.as_bytes());
        }
    }
    h
}

struct Loaded {
    co: Vec<u8>,
}

/// The selections of case `c`: (input bytes, lane mode), from a PRNG
/// seeded per case.
fn selections(c: usize) -> Vec<(Vec<u8>, bool)> {
    let mut rng = lathe_cases::Prng::new(0x51de_5eed ^ (c as u64).wrapping_mul(0x9e37_79b9));
    (0..PER_CASE)
        .map(|_| {
            let len = 1 + rng.next_u32() as usize % 16;
            let bytes: Vec<u8> = (0..len).map(|_| rng.next_u32() as u8).collect();
            (bytes, rng.next_u32() & 1 != 0)
        })
        .collect()
}

fn key(c: usize, k: usize) -> String {
    let (name, opt) = CASES[c];
    format!("{name} {opt} {k}")
}

#[test]
fn rewrites_match_the_recorded_digests() {
    let loaded: Vec<Loaded> = CASES
        .iter()
        .map(|(name, opt)| {
            let case = lathe_cases::by_name(name).expect("corpus case");
            Loaded {
                co: std::fs::read(build::linked_code_object(&case, "gfx90a", opt)).expect("co"),
            }
        })
        .collect();
    let objs: Vec<CodeObject<'_>> = loaded
        .iter()
        .map(|l| CodeObject::parse(&l.co).expect("parse"))
        .collect();
    let progs: Vec<Program> = objs
        .iter()
        .map(|o| Program::lift(o).expect("lift"))
        .collect();
    let lives: Vec<Liveness> = progs.iter().map(Liveness::compute).collect();
    let preps: Vec<Prepared<'_>> = (0..CASES.len())
        .map(|c| Prepared::new(&objs[c], &progs[c], &lives[c]).expect("prepare"))
        .collect();
    let sels: Vec<Vec<(Vec<u8>, bool)>> = (0..CASES.len()).map(selections).collect();
    let run = |c: usize, k: usize, fresh: bool| {
        let (bytes, lanes) = &sels[c][k];
        let reqs = requests_from_bytes(bytes);
        let opts = RwOptions::lane_mode(*lanes);
        let r = if fresh {
            instrument_lifted_with(&objs[c], &progs[c], &lives[c], &reqs, &opts)
        } else {
            instrument_prepared(&preps[c], &objs[c], &progs[c], &lives[c], &reqs, &opts)
        };
        digest(&r)
    };
    if std::env::var("LATHE_DBI_GOLDEN").as_deref() == Ok("write") {
        let mut s = String::new();
        for c in 0..CASES.len() {
            for k in 0..PER_CASE {
                let _ = writeln!(s, "{} {:016x}", key(c, k), run(c, k, true));
            }
        }
        std::fs::create_dir_all(std::path::Path::new(FILE).parent().expect("dir")).expect("mkdir");
        std::fs::write(FILE, s).expect("write digests");
        return;
    }
    let want: std::collections::HashMap<String, String> = std::fs::read_to_string(FILE)
        .expect("tests/data/rewrite_digests.txt")
        .lines()
        .filter_map(|l| l.rsplit_once(' '))
        .map(|(k, d)| (k.to_string(), d.to_string()))
        .collect();
    assert_eq!(want.len(), CASES.len() * PER_CASE, "digest file incomplete");
    let mut failed = Vec::new();
    let mut compared = 0;
    // Backwards through the selections, cases interleaved; prepared
    // first, fresh after.
    for fresh in [false, true] {
        for k in (0..PER_CASE).rev() {
            for c in (0..CASES.len()).rev() {
                let got = format!("{:016x}", run(c, k, fresh));
                let w = &want[&key(c, k)];
                if got != *w {
                    failed.push(format!(
                        "{} ({:02x?}, lanes {}, {}): {got}, recorded {w}",
                        key(c, k),
                        sels[c][k].0,
                        sels[c][k].1,
                        if fresh { "fresh" } else { "prepared" }
                    ));
                }
                compared += 1;
            }
        }
    }
    eprintln!("golden rewrites: {compared} compared");
    for f in &failed {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty(), "{} of {compared} differ", failed.len());
}

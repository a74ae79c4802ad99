//! A rewrite's output does not depend on what the rewriter did before:
//! for a fixed list of random site selections on six corpus kernels (both
//! register modes), a digest of everything a rewrite returns (code object
//! bytes, address map, sites, probe-data size, registers, scratch,
//! relocations, or the error) is computed twice in one run, and the two
//! must agree:
//!
//! * the reference: on a thread of its own (empty per-thread memos), each
//!   selection in order, each rewrite from scratch
//!   (`instrument_lifted_with`);
//! * the check: on another thread, cases interleaved, selections
//!   backwards, each twice, with a reused [`Prepared`] and from scratch.
//!
//! So anything a cache carries from one rewrite into the next (the
//! encoder memo, `verify_regs`' effects, the [`Prepared`] half, as the
//! `dbi_sites` fuzzer reuses it) changes a digest, and a prepared rewrite
//! must equal a fresh one. A [`Prepared`] made for another program is
//! refused. The reference is computed in the same run rather than stored,
//! so the test does not pin the bytes of whichever clang-22 built the
//! corpus.

use std::collections::HashMap;
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

/// The digest of every selection, keyed by [`key`]: in recording order
/// when `check` is false, else interleaved and backwards, prepared then
/// fresh (returning the digests of both passes).
fn digests(check: bool) -> Vec<(String, bool, u64, usize)> {
    let loaded: Vec<Vec<u8>> = CASES
        .iter()
        .map(|(name, opt)| {
            let case = lathe_cases::by_name(name).expect("corpus case");
            std::fs::read(build::linked_code_object(&case, "gfx90a", opt)).expect("co")
        })
        .collect();
    let objs: Vec<CodeObject<'_>> = loaded
        .iter()
        .map(|co| CodeObject::parse(co).expect("parse"))
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
        (digest(&r), r.as_ref().map_or(0, |o| o.sites.len()))
    };
    let mut out = Vec::new();
    if !check {
        for c in 0..CASES.len() {
            for k in 0..PER_CASE {
                let (d, sites) = run(c, k, true);
                out.push((key(c, k), true, d, sites));
            }
        }
        return out;
    }
    for fresh in [false, true] {
        for k in (0..PER_CASE).rev() {
            for c in (0..CASES.len()).rev() {
                let mut name = key(c, k);
                let _ = write!(name, " ({:02x?}, lanes {})", sels[c][k].0, sels[c][k].1);
                let (d, sites) = run(c, k, fresh);
                out.push((name, fresh, d, sites));
            }
        }
    }
    out
}

#[test]
fn rewrites_do_not_depend_on_what_ran_before() {
    // Each on a thread of its own: per-thread memos start empty.
    let reference = std::thread::spawn(|| digests(false))
        .join()
        .expect("reference thread");
    let sites: usize = reference.iter().map(|r| r.3).sum();
    let want: HashMap<String, u64> = reference.into_iter().map(|(k, _, d, _)| (k, d)).collect();
    assert_eq!(want.len(), CASES.len() * PER_CASE);
    // Not a comparison of errors alone: the selections place sites.
    assert!(sites > CASES.len() * PER_CASE, "{sites} sites placed");
    let got = std::thread::spawn(|| digests(true))
        .join()
        .expect("check thread");
    let mut failed = Vec::new();
    for (name, fresh, d, _) in &got {
        let k = name.split(" (").next().unwrap_or(name);
        let w = want[k];
        if *d != w {
            failed.push(format!(
                "{name}, {}: {d:016x}, from scratch in order {w:016x}",
                if *fresh { "fresh" } else { "prepared" }
            ));
        }
    }
    eprintln!("rewrites compared: {}, {sites} sites each pass", got.len());
    for f in &failed {
        eprintln!("  {f}");
    }
    assert!(
        failed.is_empty(),
        "{} of {} differ",
        failed.len(),
        got.len()
    );
}

#[test]
fn prepared_for_another_program_is_refused() {
    let load = |name: &str| {
        let case = lathe_cases::by_name(name).expect("corpus case");
        std::fs::read(build::linked_code_object(&case, "gfx90a", "-O3")).expect("co")
    };
    let (a, b) = (load("saxpy"), load("sort_local"));
    let (oa, ob) = (
        CodeObject::parse(&a).expect("parse"),
        CodeObject::parse(&b).expect("parse"),
    );
    let (pa, pb) = (
        Program::lift(&oa).expect("lift"),
        Program::lift(&ob).expect("lift"),
    );
    let (la, lb) = (Liveness::compute(&pa), Liveness::compute(&pb));
    let prep = Prepared::new(&oa, &pa, &la).expect("prepare");
    let reqs = requests_from_bytes(&[0, 1, 2, 3]);
    let e = instrument_prepared(&prep, &ob, &pb, &lb, &reqs, &RwOptions::default())
        .expect_err("a plan for saxpy used on sort_local");
    assert!(matches!(e, lathe_dbi::Error::Prepared), "{e}");
}

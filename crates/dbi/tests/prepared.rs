//! A [`Prepared`] rewrite (the request-independent work done once per
//! code object, as the `dbi_sites` fuzzer uses it) gives byte-identical
//! output to a fresh [`instrument_lifted_with`] for every request set:
//! one `Prepared` per corpus kernel is reused for a shuffled sequence of
//! random site selections in both register modes, and every output (code
//! object bytes, sites, address map, probe-data size, registers, skipped
//! kernels) is compared with the uncached rewrite's. Anything the cache
//! kept from one rewrite into the next would show up as a difference.

use lathe_cases::build;
use lathe_codeobj::CodeObject;
use lathe_dbi::rewrite::{
    instrument_lifted_with, instrument_prepared, Instrumented, Options as RwOptions, Prepared,
};
use lathe_dbi::tools::requests_from_bytes;
use lathe_dbi::{Liveness, Program};

/// Corpus kernels: small and large ones, with device-function calls
/// (`-O0` keeps them), a dynamic stack, LDS.
const CASES: [(&str, &str); 6] = [
    ("saxpy", "-O3"),
    ("saxpy", "-O0"),
    ("recursion_mix", "-O0"),
    ("sort_local", "-O3"),
    ("ackermann", "-O0"),
    ("atomic_cas_loops", "-O3"),
];

fn same(a: &Instrumented, b: &Instrumented) -> Result<(), String> {
    if a.code_object != b.code_object {
        return Err(format!(
            "code objects differ ({} and {} bytes)",
            a.code_object.len(),
            b.code_object.len()
        ));
    }
    if a.sites != b.sites {
        return Err("sites differ".into());
    }
    if a.addr_map != b.addr_map || a.function_addrs != b.function_addrs {
        return Err("address maps differ".into());
    }
    if (a.data_size, a.relaxed_branches, a.spilled_sites)
        != (b.data_size, b.relaxed_branches, b.spilled_sites)
    {
        return Err("data size, relaxed branches or spilled sites differ".into());
    }
    if format!("{:?} {:?} {:?}", a.regs, a.skipped, a.scratch)
        != format!("{:?} {:?} {:?}", b.regs, b.skipped, b.scratch)
    {
        return Err("registers, skipped kernels or scratch differ".into());
    }
    Ok(())
}

#[test]
fn prepared_rewrites_equal_fresh_ones() {
    let mut rng = lathe_cases::Prng::new(0x9e3a_11d0);
    let (mut compared, mut sites) = (0usize, 0usize);
    let mut failed = Vec::new();
    for (name, opt) in CASES {
        let case = lathe_cases::by_name(name).expect("corpus case");
        let co = std::fs::read(build::linked_code_object(&case, "gfx90a", opt)).expect("co");
        let obj = CodeObject::parse(&co).expect("parse");
        let p = Program::lift(&obj).expect("lift");
        let live = Liveness::compute(&p);
        let prep = Prepared::new(&obj, &p, &live).expect("prepare");
        for k in 0..24 {
            let len = 1 + rng.next_u32() as usize % 16;
            let bytes: Vec<u8> = (0..len).map(|_| rng.next_u32() as u8).collect();
            let reqs = requests_from_bytes(&bytes);
            // Register modes in a random order, so that a rewrite in one
            // mode follows one in the other.
            let lanes = rng.next_u32() & 1 != 0;
            let opts = RwOptions::lane_mode(lanes);
            let label = format!("{name} {opt} #{k} {bytes:02x?} lanes {lanes}");
            let cached = instrument_prepared(&prep, &obj, &p, &live, &reqs, &opts);
            let fresh = instrument_lifted_with(&obj, &p, &live, &reqs, &opts);
            match (cached, fresh) {
                (Ok(a), Ok(b)) => {
                    if let Err(e) = same(&a, &b) {
                        failed.push(format!("{label}: {e}"));
                    }
                    sites += a.sites.len();
                }
                (Err(a), Err(b)) if a.to_string() == b.to_string() => {}
                (a, b) => failed.push(format!(
                    "{label}: prepared {:?}, fresh {:?}",
                    a.map(|o| o.sites.len()),
                    b.map(|o| o.sites.len())
                )),
            }
            compared += 1;
        }
    }
    eprintln!("prepared rewrites: {compared} compared, {sites} sites");
    for f in &failed {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty(), "{} differ", failed.len());
    assert!(sites > 0, "no site was placed");
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

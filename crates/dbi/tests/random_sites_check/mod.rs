//! One case of `random_sites.rs` on one target and level (random site
//! selections, outputs bit-identical, counters equal to the ground
//! truth), shared with `gfx950_random_sites.rs`.
#![allow(dead_code)]

use crate::common;
use lathe_cases::{build, Case};
use lathe_codeobj::CodeObject;
use lathe_dbi::rewrite::{instrument_lifted_with, Options as RwOptions};
use lathe_dbi::tools::requests_from_bytes;
use lathe_dbi::{FunctionKind, Liveness, Program};
use lathe_emu::run::Options;
use lathe_emu::session::Session;

/// What the runs covered, and what failed.
#[derive(Default)]
pub struct Stats {
    pub runs: usize,
    pub sites: usize,
    pub counters: usize,
    pub callee_sites: usize,
    pub scc_sites: usize,
    pub vcc_sites: usize,
    pub failed: Vec<String>,
}

/// Three random site selections (the last in lane mode) on `case` built
/// for `target` at `opt`.
pub fn one(
    case: &Case,
    target: &'static str,
    opt: &'static str,
    rng: &mut lathe_cases::Prng,
    st: &mut Stats,
) {
    let co = std::fs::read(build::linked_code_object(case, target, opt)).expect("co");
    one_co(case, target, opt, &co, rng, st)
}

/// [`one`] on a code object already built for `target` at `opt` (`opt`
/// only labels the runs).
pub fn one_co(
    case: &Case,
    target: &'static str,
    opt: &str,
    co: &[u8],
    rng: &mut lathe_cases::Prng,
    st: &mut Stats,
) {
    let co = co.to_vec();
    let args = common::args_of(case);
    let shape = common::shape_of(case);
    let eopts = Options {
        threads: 1,
        ..Options::default()
    };
    let agent: lathe_bundle::TargetId = target.parse().expect("target");
    let base = Session::load(agent, &[&co]).expect("load");
    let (_r, bufs) = base.launch(case.kernel, shape, &args, &eopts).expect("run");
    let want = common::outputs(&base, case, &bufs);
    let obj = CodeObject::parse(&co).expect("parse");
    let p = Program::lift(&obj).expect("lift");
    let live = Liveness::compute(&p);
    for seed in 0..3 {
        let lanes = seed == 2;
        // Draws again until the requests select a site: a run
        // without sites would check nothing.
        let mut drawn = None;
        for _ in 0..32 {
            let bytes: Vec<u8> = (0..16).map(|_| rng.next_u32() as u8).collect();
            let reqs = requests_from_bytes(&bytes);
            let label = format!("{} {opt} seed {bytes:02x?} lanes {lanes}", case.name);
            match instrument_lifted_with(&obj, &p, &live, &reqs, &RwOptions::lane_mode(lanes)) {
                Ok(o) if o.sites.is_empty() => continue,
                Ok(o) => {
                    drawn = Some((label, reqs, o));
                    break;
                }
                Err(e) => {
                    st.failed.push(format!("{label}: {e}"));
                    break;
                }
            }
        }
        let Some((label, reqs, out)) = drawn else {
            continue;
        };
        assert!(!out.sites.is_empty());
        st.scc_sites += out.sites.iter().filter(|s| s.scc_live).count();
        st.vcc_sites += out.sites.iter().filter(|s| s.vcc_live).count();
        st.callee_sites += out
            .sites
            .iter()
            .filter(|s| p.functions[s.function_index].kind == FunctionKind::DeviceFunction)
            .count();
        let s = match Session::load(agent, &[&out.code_object]) {
            Ok(s) => s,
            Err(e) => {
                st.failed.push(format!("{label}: load: {e}"));
                continue;
            }
        };
        let var = s
            .exe
            .symbol(lathe_dbi::elfout::DATA_SYMBOL)
            .expect("data symbol")
            .address;
        let buf = s
            .upload(&vec![0u8; out.data_size as usize])
            .expect("buffer");
        s.mem.view().store_u64(var, buf).expect("pointer");
        st.runs += 1;
        st.sites += out.sites.len();
        let (rep, bufs, rec) = match s.launch_recorded(case.kernel, shape, &args, &eopts) {
            Ok(x) => x,
            Err(e) => {
                st.failed.push(format!("{label}: {e}"));
                continue;
            }
        };
        if common::outputs(&s, case, &bufs) != want {
            st.failed.push(format!(
                "{label}: outputs differ ({} sites)",
                out.sites.len()
            ));
            continue;
        }
        let data = s.download(buf, out.data_size).expect("probe data");
        let lco = &s.exe.code_objects()[0];
        match common::check_site_counts(
            &out,
            &reqs,
            &p,
            &live,
            &rec.per_pc,
            |a| lco.device_address(a),
            case.kernel,
            rep.waves,
            &data,
        ) {
            Ok(n) => st.counters += n,
            Err(e) => st.failed.push(format!("{label}: {e}")),
        }
    }
}

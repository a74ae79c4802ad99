//! Random site selections (the fuzz target's request generator, seeded
//! per case) on every corpus kernel, gfx90a -O0/-O3, in both register
//! modes: every run has sites (requests are drawn again until they
//! select some), the instrumented kernel must run with the waitcnt check
//! on and produce bit-identical outputs, and every site's counters must
//! equal the emulator's recording of the same run.

mod common;

use lathe_cases::build;
use lathe_codeobj::CodeObject;
use lathe_dbi::rewrite::{instrument_lifted_with, Options as RwOptions};
use lathe_dbi::tools::requests_from_bytes;
use lathe_dbi::{FunctionKind, Liveness, Program};
use lathe_emu::run::Options;
use lathe_emu::session::Session;

#[test]
fn random_sites_keep_outputs_identical() {
    let (mut runs, mut sites, mut counters) = (0, 0, 0);
    let mut callee_sites = 0;
    let (mut scc_sites, mut vcc_sites) = (0, 0);
    let mut failed = Vec::new();
    let mut rng = lathe_cases::Prng::new(0x1a7e_0d61);
    for case in lathe_cases::all() {
        if !case.targets.contains(&"gfx90a") {
            continue;
        }
        let opts: &[&'static str] = if case.hipcc {
            &["-O3"]
        } else {
            &["-O0", "-O3"]
        };
        for &opt in opts {
            let co = std::fs::read(build::linked_code_object(&case, "gfx90a", opt)).expect("co");
            let args = common::args_of(&case);
            let shape = common::shape_of(&case);
            let eopts = Options {
                threads: 1,
                ..Options::default()
            };
            let agent: lathe_bundle::TargetId = "gfx90a".parse().expect("target");
            let base = Session::load(agent, &[&co]).expect("load");
            let (_r, bufs) = base.launch(case.kernel, shape, &args, &eopts).expect("run");
            let want = common::outputs(&base, &case, &bufs);
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
                    match instrument_lifted_with(
                        &obj,
                        &p,
                        &live,
                        &reqs,
                        &RwOptions::lane_mode(lanes),
                    ) {
                        Ok(o) if o.sites.is_empty() => continue,
                        Ok(o) => {
                            drawn = Some((label, reqs, o));
                            break;
                        }
                        Err(e) => {
                            failed.push(format!("{label}: {e}"));
                            break;
                        }
                    }
                }
                let Some((label, reqs, out)) = drawn else {
                    continue;
                };
                assert!(!out.sites.is_empty());
                scc_sites += out.sites.iter().filter(|s| s.scc_live).count();
                vcc_sites += out.sites.iter().filter(|s| s.vcc_live).count();
                callee_sites += out
                    .sites
                    .iter()
                    .filter(|s| p.functions[s.function_index].kind == FunctionKind::DeviceFunction)
                    .count();
                let s = match Session::load(agent, &[&out.code_object]) {
                    Ok(s) => s,
                    Err(e) => {
                        failed.push(format!("{label}: load: {e}"));
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
                runs += 1;
                sites += out.sites.len();
                let (rep, bufs, rec) = match s.launch_recorded(case.kernel, shape, &args, &eopts) {
                    Ok(x) => x,
                    Err(e) => {
                        failed.push(format!("{label}: {e}"));
                        continue;
                    }
                };
                if common::outputs(&s, &case, &bufs) != want {
                    failed.push(format!(
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
                    Ok(n) => counters += n,
                    Err(e) => failed.push(format!("{label}: {e}")),
                }
            }
        }
    }
    eprintln!(
        "random sites: {runs} runs, {sites} sites, {counters} counters equal to the ground truth, \
         {callee_sites} sites in device functions, {scc_sites} with SCC live, {vcc_sites} with VCC \
         live, {} failed",
        failed.len()
    );
    for f in &failed {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty());
    assert!(
        runs > 0 && counters >= sites,
        "{runs} runs, {counters} counters for {sites} sites"
    );
    assert!(callee_sites > 0, "no device-function site was exercised");
    assert!(
        scc_sites > 0 && vcc_sites > 0,
        "no site with SCC or VCC live"
    );
}

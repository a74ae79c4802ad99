//! Instrumentation-time benchmark: lift, analyse (liveness) and rewrite
//! with `instr-count` every code object given on the command line (for
//! `bench/dbi.py`: the gfx90a code objects of librocsparse). Prints one
//! JSON line per code object: kernels, functions, instructions, seconds
//! for lift+liveness and for the rewrite (which re-emits the whole object
//! with every kernel instrumented), and whether the result passes
//! `lathe_dbi::verify::check` (parses and lifts again, every original
//! instruction kept; checked after timing). With `DBI_BENCH_OUT=DIR` the
//! instrumented code objects are written there (`bench/dbi.py` disassembles
//! a sample with llvm-objdump).

use std::time::Instant;

use lathe_codeobj::CodeObject;
use lathe_dbi::rewrite::instrument_lifted;
use lathe_dbi::tools::{requests, Tool};
use lathe_dbi::{Liveness, Program};

/// kernels, functions, instructions, lift seconds, rewrite seconds, reparses, sites,
/// kernels skipped, instructions of the instrumented code.
type Row = (usize, usize, usize, f64, f64, bool, usize, usize, usize);

fn main() {
    for path in std::env::args().skip(1) {
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                println!("{{\"file\": {path:?}, \"error\": {:?}}}", e.to_string());
                continue;
            }
        };
        let t0 = Instant::now();
        let r = (|| -> Result<Row, lathe_dbi::Error> {
            let co = CodeObject::parse(&bytes)?;
            let p = Program::lift(&co)?;
            if std::env::var("DBI_BENCH_SPLIT").is_ok() {
                eprintln!("lift {:.3}", t0.elapsed().as_secs_f64());
            }
            let live = Liveness::compute(&p);
            let t_lift = t0.elapsed().as_secs_f64();
            let t1 = Instant::now();
            let reqs = requests(Tool::InstrCount, None, 0)?;
            let out = instrument_lifted(&co, &p, &live, &reqs)?;
            let t_rw = t1.elapsed().as_secs_f64();
            // Checked, not timed: parses, lifts again, and keeps every
            // original instruction (lathe_dbi::verify).
            let checked = CodeObject::parse(&out.code_object)
                .and_then(|c| c.symbols().map(|_| ()))
                .map_err(|e| e.to_string())
                .and_then(|()| lathe_dbi::verify::check(&p, &out.code_object, &out.addr_map));
            let (ok, out_insts) = match checked {
                Ok(c) => (true, c.instructions),
                Err(e) => {
                    eprintln!("{path}: {e}");
                    (false, 0)
                }
            };
            if let Some(dir) = std::env::var_os("DBI_BENCH_OUT") {
                let name = std::path::Path::new(&path)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let to = std::path::Path::new(&dir).join(format!("{name}.instrumented"));
                if let Err(e) = std::fs::write(&to, &out.code_object) {
                    eprintln!("{}: {e}", to.display());
                }
            }
            let kernels = p
                .functions
                .iter()
                .filter(|f| f.kind == lathe_dbi::FunctionKind::Kernel)
                .count();
            let insts = p.functions.iter().map(|f| f.insts.len()).sum();
            Ok((
                kernels,
                p.functions.len(),
                insts,
                t_lift,
                t_rw,
                ok,
                out.sites.len(),
                out.skipped.len(),
                out_insts,
            ))
        })();
        match r {
            Ok((k, f, n, tl, tr, ok, sites, skipped, out_n)) => println!(
                "{{\"file\": {path:?}, \"kernels\": {k}, \"functions\": {f}, \"instructions\": {n}, \"sites\": {sites}, \"skipped\": {skipped}, \"lift_s\": {tl}, \"rewrite_s\": {tr}, \"reparses\": {ok}, \"out_instructions\": {out_n}}}"
            ),
            Err(e) => println!("{{\"file\": {path:?}, \"error\": {:?}}}", e.to_string()),
        }
    }
}

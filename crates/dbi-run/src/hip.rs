//! A HIP-written tool ([`HipTool`]) run on the emulator.

use std::collections::BTreeMap;

use lathe_dbi::addr_map::AddrMap;
use lathe_dbi::elfout::DATA_SYMBOL;
use lathe_dbi::{HipTool, HookBuild};
use lathe_emu::launch::Arg;
use lathe_emu::run::{Options, Report};
use lathe_emu::session::{BufferOut, Session, Shape};
use serde_json::{json, Value};

use crate::{check_skipped, instrument_defining, launch, probe_data, Error, Ran, Stopped};

/// A HIP tool run on the emulator ([`run`]).
#[derive(Debug)]
pub struct HipRun {
    /// The session (read output buffers from it).
    pub session: Session,
    /// The dispatch report (counts include the hooks' instructions).
    pub report: Report,
    /// Buffers made for buffer arguments.
    pub buffers: Vec<BufferOut>,
    /// The report variables ([`HipTool::report`]).
    pub result: Value,
    /// The report line, if the manifest has one.
    pub line: Option<String>,
    /// Ground truth (with `record`): executions and active lanes of each
    /// original instruction of the instrumented object, by original
    /// address.
    pub ground_truth: Option<BTreeMap<u64, lathe_emu::record::PcCount>>,
    /// The instrumented build.
    pub build: HookBuild,
}

/// Instruments the code object of `objects` that defines `kernel` with
/// `tool`, loads it with the others and the tool code object into one
/// session, resets the report variables, runs `kernel` and reads them.
#[allow(clippy::too_many_arguments)]
pub fn run(
    agent: lathe_bundle::TargetId,
    objects: &[&[u8]],
    kernel: &str,
    tool: &HipTool,
    shape: Shape,
    args: &[Arg],
    opts: &Options,
    record: bool,
) -> Result<HipRun, Error> {
    let (mut objs, b, resolved) = instrument_defining(objects, kernel, |o, name| {
        let b = tool.instrument(o, Some(name))?;
        let co = b.code_object.clone();
        Ok((b, co))
    })?;
    check_skipped(&b.skipped, &resolved)?;
    objs.push(tool.code_object().to_vec());
    let refs: Vec<&[u8]> = objs.iter().map(|v| v.as_slice()).collect();
    let session = Session::load(agent, &refs)?;
    // The probe-data pointer (unused by hooks) gets a small buffer.
    if let Some(var) = session.exe.symbol(DATA_SYMBOL) {
        let buf = session.upload(&[0u8; 8]).map_err(probe_data)?;
        session
            .mem
            .view()
            .store_u64(var.address, buf)
            .map_err(probe_data)?;
    }
    for (var, bytes) in tool.reset_values() {
        let s = session
            .exe
            .symbol(&var)
            .ok_or_else(|| probe_data(format!("report variable {var} not found after loading")))?;
        session
            .mem
            .view()
            .write_bytes(s.address, &bytes)
            .map_err(probe_data)?;
    }
    let ran = match launch(session, &resolved, shape, args, opts, record)? {
        Ran::Done(ran) => ran,
        // A stop keeps the session to be reported in original terms.
        Ran::Stopped(session, buffers, error) => {
            return Err(Error::Stopped(Box::new(Stopped {
                session,
                buffers,
                error,
                addr_map: AddrMap::new(&b.addr_map),
                code_object: b.code_object,
                sites: b.sites,
                program: b.program,
            })))
        }
    };
    let session = ran.session;
    let ground_truth = ran.record.map(|rec| {
        let mut m = BTreeMap::new();
        if let Some(lco) = session
            .exe
            .code_objects()
            .iter()
            .find(|c| c.storage == b.code_object)
        {
            for (new, old) in &b.addr_map {
                if let Some(c) = rec.per_pc.get(&lco.device_address(*new)) {
                    m.insert(*old, *c);
                }
            }
        }
        m
    });
    let result = tool.report(&mut |var, n| {
        let s = session.exe.symbol(var)?;
        session.download(s.address, n as u64).ok()
    });
    // The launch's fields for the line, where no report variable has the
    // name (as `lathe exec` fills them).
    let mut values = result.clone();
    if let Value::Object(m) = &mut values {
        let demangled =
            lathe_codeobj::names::demangle(&resolved).unwrap_or_else(|| resolved.clone());
        for (k, v) in [
            ("launch", json!(0)),
            ("kernel", json!(demangled)),
            ("mangled", json!(resolved)),
            ("grid", json!(shape.grid)),
            ("block", json!(shape.block)),
        ] {
            m.entry(k).or_insert(v);
        }
    }
    let line = tool.report_line(&values);
    Ok(HipRun {
        session,
        report: ran.report,
        buffers: ran.buffers,
        result,
        line,
        ground_truth,
        build: b,
    })
}

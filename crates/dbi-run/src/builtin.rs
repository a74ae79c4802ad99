//! A built-in tool ([`Tool`]) run on the emulator.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use lathe_dbi::addr_map::AddrMap;
use lathe_dbi::elfout::DATA_SYMBOL;
use lathe_dbi::tools::{
    decode, decode_trace, instrument_tool, Tool, ToolBuild, Trace, WaveAccess, TRACE_CAPACITY,
};
use lathe_emu::launch::Arg;
use lathe_emu::run::{Options, Report};
use lathe_emu::session::{BufferOut, Session, Shape};
use serde_json::Value;

use crate::{check_skipped, instrument_defining, launch, probe_data, Error, Ran, Stopped};

/// How [`run`] runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Record ground truth ([`ToolRun::ground_truth`]).
    pub record: bool,
    /// Force the rewriter's lane mode.
    pub force_lane_mode: bool,
    /// `mem-trace` ring capacity in records (default [`TRACE_CAPACITY`]).
    pub trace_capacity: Option<u32>,
}

/// One instrumented run.
#[derive(Debug)]
pub struct ToolRun {
    /// The session the run used (read output buffers from it).
    pub session: Session,
    /// The dispatch report (counts include the probes' instructions).
    pub report: Report,
    /// Buffers made for buffer arguments.
    pub buffers: Vec<BufferOut>,
    /// The tool's result, typed.
    pub tool_report: lathe_dbi::report::Report,
    /// [`ToolRun::tool_report`] as JSON (as `lathe run --tool --json`
    /// prints it).
    pub result: Value,
    /// Ground truth of this run (with `record`): executions and active
    /// lanes of each original instruction, by original address (probe
    /// instructions excluded).
    pub ground_truth: Option<BTreeMap<u64, lathe_emu::record::PcCount>>,
    /// Ground-truth accesses of this run (with `record`), mapped to
    /// original PCs: (pc, lane, address), sorted.
    pub ground_truth_accesses: Option<Vec<(u64, u8, u64)>>,
    /// [`ToolRun::ground_truth_accesses`] with each access's wave:
    /// (original pc, lane, address, work-group id, wave index), sorted.
    pub ground_truth_waves: Option<Vec<WaveAccess>>,
    /// The decoded ring, for `mem-trace`.
    pub trace: Option<Trace>,
}

/// Instruments the code object of `objects` that defines `kernel`, loads
/// it with the others, runs `kernel` and decodes the tool's data.
#[allow(clippy::too_many_arguments)]
pub fn run(
    agent: lathe_bundle::TargetId,
    objects: &[&[u8]],
    kernel: &str,
    tool: Tool,
    shape: Shape,
    args: &[Arg],
    opts: &Options,
    ro: &RunOptions,
) -> Result<(ToolRun, ToolBuild), Error> {
    let (objs, b, resolved) = instrument_defining(objects, kernel, |o, name| {
        let kre = format!("^{}$", regex::escape(name));
        let b = instrument_tool(
            o,
            tool,
            Some(&kre),
            &lathe_dbi::rewrite::Options::lane_mode(ro.force_lane_mode),
            ro.trace_capacity.unwrap_or(TRACE_CAPACITY),
        )?;
        let co = b.code_object.clone();
        Ok((b, co))
    })?;
    check_skipped(&b.skipped, &resolved)?;
    let refs: Vec<&[u8]> = objs.iter().map(|v| v.as_slice()).collect();
    let session = Session::load(agent, &refs)?;
    let var = session
        .exe
        .symbol(DATA_SYMBOL)
        .ok_or_else(|| probe_data(format!("{DATA_SYMBOL} not found after loading")))?
        .address;
    let buf = session
        .upload(&vec![0u8; b.data_size as usize])
        .map_err(probe_data)?;
    session.mem.view().store_u64(var, buf).map_err(probe_data)?;
    let ran = match launch(session, &resolved, shape, args, opts, ro.record)? {
        Ran::Done(ran) => ran,
        // A stop keeps the session to be reported in original terms.
        Ran::Stopped(session, buffers, error) => {
            return Err(Error::Stopped(Box::new(Stopped {
                session,
                buffers,
                error,
                addr_map: AddrMap::new(&b.out.addr_map),
                code_object: b.out.code_object,
                sites: b.out.sites,
                program: Arc::new(b.program),
            })))
        }
    };
    let session = ran.session;
    let to_old: HashMap<u64, u64> = session
        .exe
        .code_objects()
        .iter()
        .find(|c| c.storage == b.code_object)
        .map(|lco| {
            b.addr_map
                .iter()
                .map(|(new, old)| (lco.device_address(*new), *old))
                .collect()
        })
        .unwrap_or_default();
    let rec = ran.record;
    let ground_truth_accesses = rec.as_ref().map(|rec| {
        // SCRATCH accesses are logged as the lane's 32-bit private-segment
        // offset, as the probe records them.
        let mut v: Vec<(u64, u8, u64)> = rec
            .accesses
            .iter()
            .filter_map(|a| to_old.get(&a.pc).map(|old| (*old, a.lane, a.addr)))
            .collect();
        v.sort_unstable();
        v
    });
    let ground_truth_waves = rec.as_ref().map(|rec| {
        let mut v: Vec<WaveAccess> = rec
            .accesses
            .iter()
            .zip(&rec.access_waves)
            .filter_map(|(a, (wg, w))| to_old.get(&a.pc).map(|old| (*old, a.lane, a.addr, *wg, *w)))
            .collect();
        v.sort_unstable();
        v
    });
    let ground_truth = rec.map(|rec| {
        to_old
            .iter()
            .filter_map(|(dev, old)| rec.per_pc.get(dev).map(|c| (*old, *c)))
            .collect()
    });
    let data = session.download(buf, b.data_size).map_err(probe_data)?;
    let tool_report = decode(&b, &resolved, &data)?;
    let result = tool_report.to_json();
    let trace = (tool == Tool::MemTrace).then(|| decode_trace(&b, &data));
    Ok((
        ToolRun {
            session,
            report: ran.report,
            buffers: ran.buffers,
            tool_report,
            result,
            ground_truth,
            ground_truth_accesses,
            ground_truth_waves,
            trace,
        },
        b,
    ))
}

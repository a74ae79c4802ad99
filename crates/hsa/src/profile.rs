//! What `lathe exec --stats` and `--kernel-trace` report about launches:
//! the per-launch line, the rocprofv3-style per-kernel summary printed at
//! the end of `--stats`, and the kernel trace (`LATHE_KERNEL_TRACE=PREFIX`):
//! `PREFIX_kernel_trace.csv` with rocprofv3's `--kernel-trace` columns and
//! `PREFIX_kernel_trace.perfetto.json`, a Chrome/Perfetto trace-event
//! timeline with one track per queue and each launch as a slice. Names are
//! demangled; kernels that `lathe-tool` instrumented are counted by their
//! original instructions ([`LaunchStat::wave_instructions`]) and labelled.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{json, Value};

/// One kernel launch.
#[derive(Debug, Clone)]
pub struct LaunchStat {
    /// Mangled kernel name.
    pub kernel: String,
    /// Demangled (the mangled name when it is not mangled).
    pub name: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Wave-instructions of the kernel's own code: for an instrumented
    /// kernel, of its original instructions only.
    pub wave_instructions: u64,
    /// For an instrumented kernel: every wave-instruction run, the tool's
    /// probes included.
    pub instrumented_wave_instructions: Option<u64>,
    pub seconds: f64,
    /// System timestamps (ns, `CLOCK_MONOTONIC`) around the dispatch.
    pub start_ns: u64,
    pub end_ns: u64,
    /// The HSA queue's id.
    pub queue: u64,
    /// Launches in the order the runtime ran them, from 1 (rocprofv3's
    /// dispatch and correlation ids).
    pub dispatch: u64,
    /// The kernel descriptor's address.
    pub kernel_object: u64,
    /// LDS bytes (the packet's group segment: static plus dynamic).
    pub lds: u32,
    /// Scratch bytes per work-item (the packet's private segment).
    pub scratch: u32,
    /// Work-groups and waves the dispatch ran.
    pub workgroups: u64,
    pub waves: u64,
    /// Architected VGPRs, AGPRs and SGPRs the descriptor allocates.
    pub vgprs: u32,
    pub agprs: u32,
    pub sgprs: u32,
}

impl LaunchStat {
    /// The `--stats-json` record.
    pub fn json(&self) -> Value {
        let mut v = json!({
            "kernel": self.kernel,
            "name": self.name,
            "grid": self.grid,
            "block": self.block,
            "wave_instructions": self.wave_instructions,
            "seconds": self.seconds,
        });
        if let Some(n) = self.instrumented_wave_instructions {
            v["instrumented"] = json!(true);
            v["instrumented_wave_instructions"] = json!(n);
        }
        v
    }

    /// The `--stats` line.
    pub fn line(&self) -> String {
        let g = |a: &[u32; 3]| format!("[{},{},{}]", a[0], a[1], a[2]);
        let count = match self.instrumented_wave_instructions {
            Some(all) => format!(
                "{} wave-instructions (original kernel; {all} with the tool's probes)",
                self.wave_instructions
            ),
            None => format!("{} wave-instructions", self.wave_instructions),
        };
        format!(
            "lathe: kernel {} grid {} block {} {count} {:.6} s",
            self.name,
            g(&self.grid),
            g(&self.block),
            self.seconds
        )
    }
}

/// One kernel's row of the summary.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelTotals {
    pub name: String,
    pub calls: u64,
    pub total: f64,
    pub min: f64,
    pub max: f64,
}

/// Per-kernel totals (by demangled name), by total time, longest first
/// (then by name).
pub fn totals(stats: &[LaunchStat]) -> Vec<KernelTotals> {
    let mut by: BTreeMap<&str, KernelTotals> = BTreeMap::new();
    for s in stats {
        let t = by.entry(&s.name).or_insert_with(|| KernelTotals {
            name: s.name.clone(),
            calls: 0,
            total: 0.0,
            min: f64::INFINITY,
            max: 0.0,
        });
        t.calls += 1;
        t.total += s.seconds;
        t.min = t.min.min(s.seconds);
        t.max = t.max.max(s.seconds);
    }
    let mut v: Vec<KernelTotals> = by.into_values().collect();
    v.sort_by(|a, b| {
        b.total
            .total_cmp(&a.total)
            .then_with(|| a.name.cmp(&b.name))
    });
    v
}

/// The summary printed at the end of `--stats` (empty without launches).
pub fn summary(stats: &[LaunchStat]) -> String {
    let t = totals(stats);
    if t.is_empty() {
        return String::new();
    }
    let all: f64 = t.iter().map(|k| k.total).sum();
    let mut out = format!(
        "lathe: kernel summary: {} kernel(s), {} launch(es), {all:.6} s\n",
        t.len(),
        stats.len()
    );
    let _ = writeln!(
        out,
        "lathe: {:>7} {:>12} {:>12} {:>12} {:>12} {:>7}  kernel",
        "calls", "total (s)", "mean (s)", "min (s)", "max (s)", "share"
    );
    for k in &t {
        let share = if all > 0.0 {
            100.0 * k.total / all
        } else {
            0.0
        };
        let _ = writeln!(
            out,
            "lathe: {:>7} {:>12.6} {:>12.6} {:>12.6} {:>12.6} {:>6.2}%  {}",
            k.calls,
            k.total,
            k.total / k.calls as f64,
            k.min,
            k.max,
            share,
            k.name
        );
    }
    out
}

/// Prints the summary once (at shut-down, at exit or after an early end).
pub fn print_summary_once(stats: &[LaunchStat]) {
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Ordering::AcqRel) {
        return;
    }
    eprint!("{}", summary(stats));
}

/// rocprofv3's `--kernel-trace` CSV columns.
pub const CSV_COLUMNS: [&str; 22] = [
    "Kind",
    "Agent_Id",
    "Queue_Id",
    "Stream_Id",
    "Thread_Id",
    "Dispatch_Id",
    "Kernel_Id",
    "Kernel_Name",
    "Correlation_Id",
    "Start_Timestamp",
    "End_Timestamp",
    "LDS_Block_Size",
    "Scratch_Size",
    "VGPR_Count",
    "Accum_VGPR_Count",
    "SGPR_Count",
    "Workgroup_Size_X",
    "Workgroup_Size_Y",
    "Workgroup_Size_Z",
    "Grid_Size_X",
    "Grid_Size_Y",
    "Grid_Size_Z",
];

/// The GPU agent's id in the trace (the CPU agent is 0).
const GPU_AGENT_ID: u64 = 1;

fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// Kernel ids: kernel objects numbered from 1 in order of first launch.
fn kernel_ids(stats: &[LaunchStat]) -> BTreeMap<u64, u64> {
    let mut ids = BTreeMap::new();
    for s in stats {
        let n = ids.len() as u64 + 1;
        ids.entry(s.kernel_object).or_insert(n);
    }
    ids
}

/// The kernel trace as CSV, one row per launch, every field quoted as
/// rocprofv3 writes it.
pub fn csv(stats: &[LaunchStat], thread: u64) -> String {
    let ids = kernel_ids(stats);
    let mut out = CSV_COLUMNS
        .iter()
        .map(|c| quoted(c))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    for s in stats {
        let row: Vec<String> = [
            "KERNEL_DISPATCH".to_string(),
            GPU_AGENT_ID.to_string(),
            s.queue.to_string(),
            "0".into(),
            thread.to_string(),
            s.dispatch.to_string(),
            ids.get(&s.kernel_object).copied().unwrap_or(0).to_string(),
            s.name.clone(),
            s.dispatch.to_string(),
            s.start_ns.to_string(),
            s.end_ns.to_string(),
            s.lds.to_string(),
            s.scratch.to_string(),
            s.vgprs.to_string(),
            s.agprs.to_string(),
            s.sgprs.to_string(),
            s.block[0].to_string(),
            s.block[1].to_string(),
            s.block[2].to_string(),
            s.grid[0].to_string(),
            s.grid[1].to_string(),
            s.grid[2].to_string(),
        ]
        .iter()
        .map(|f| quoted(f))
        .collect();
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

/// The kernel trace as a Chrome/Perfetto trace-event document: the GPU is
/// a process, each queue a thread (track), each launch a complete (`X`)
/// slice in microseconds; `incomplete` marks a run that ended early.
pub fn timeline(stats: &[LaunchStat], target: &str, incomplete: Option<&str>) -> Value {
    let pid = GPU_AGENT_ID;
    let mut ev = vec![json!({
        "ph": "M", "name": "process_name", "pid": pid,
        "args": {"name": format!("GPU {target} (lathe exec)")}
    })];
    let mut queues: Vec<u64> = stats.iter().map(|s| s.queue).collect();
    queues.sort_unstable();
    queues.dedup();
    for q in &queues {
        ev.push(json!({
            "ph": "M", "name": "thread_name", "pid": pid, "tid": q,
            "args": {"name": format!("queue {q}")}
        }));
    }
    let ids = kernel_ids(stats);
    for s in stats {
        let mut args = s.json();
        args["dispatch"] = json!(s.dispatch);
        args["kernel_id"] = json!(ids.get(&s.kernel_object));
        args["lds"] = json!(s.lds);
        args["scratch"] = json!(s.scratch);
        args["workgroups"] = json!(s.workgroups);
        args["waves"] = json!(s.waves);
        ev.push(json!({
            "ph": "X", "cat": "kernel", "name": s.name, "pid": pid, "tid": s.queue,
            "ts": s.start_ns as f64 / 1000.0,
            "dur": s.end_ns.saturating_sub(s.start_ns) as f64 / 1000.0,
            "args": args,
        }));
    }
    let mut doc = json!({"traceEvents": ev, "displayTimeUnit": "ns"});
    if let Some(why) = incomplete {
        doc["incomplete"] = json!(why);
    }
    doc
}

/// Writes `PREFIX_kernel_trace.csv` and `PREFIX_kernel_trace.perfetto.json`.
pub fn write_trace(prefix: &str, stats: &[LaunchStat], target: &str, incomplete: Option<&str>) {
    let tid = std::process::id() as u64;
    let csv_path = format!("{prefix}_kernel_trace.csv");
    if let Err(e) = std::fs::write(&csv_path, csv(stats, tid)) {
        eprintln!("lathe: cannot write the kernel trace {csv_path}: {e}");
    }
    let json_path = format!("{prefix}_kernel_trace.perfetto.json");
    let doc = timeline(stats, target, incomplete);
    let text = serde_json::to_string(&doc).unwrap_or_default();
    if let Err(e) = std::fs::write(&json_path, text + "\n") {
        eprintln!("lathe: cannot write the kernel trace {json_path}: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(name: &str, seconds: f64, dispatch: u64) -> LaunchStat {
        LaunchStat {
            kernel: format!("_Z{name}"),
            name: name.into(),
            grid: [64, 1, 1],
            block: [64, 1, 1],
            wave_instructions: 10,
            instrumented_wave_instructions: None,
            seconds,
            start_ns: dispatch * 1000,
            end_ns: dispatch * 1000 + 500,
            queue: 1,
            dispatch,
            kernel_object: name.len() as u64,
            workgroups: 1,
            waves: 1,
            lds: 0,
            scratch: 0,
            vgprs: 8,
            agprs: 0,
            sgprs: 16,
        }
    }

    #[test]
    fn totals_sort_by_total_time_longest_first() {
        let s = [stat("a", 1.0, 1), stat("bb", 0.5, 2), stat("bb", 2.0, 3)];
        let t = totals(&s);
        assert_eq!(t[0].name, "bb");
        assert_eq!(
            (t[0].calls, t[0].total, t[0].min, t[0].max),
            (2, 2.5, 0.5, 2.0)
        );
        assert_eq!((t[1].name.as_str(), t[1].calls), ("a", 1));
    }

    #[test]
    fn csv_quotes_names_with_commas() {
        let c = csv(&[stat("f(int, float)", 1.0, 1)], 7);
        let row = c.lines().nth(1).expect("a row");
        assert!(row.contains("\"f(int, float)\""), "{row}");
        assert!(row.starts_with("\"KERNEL_DISPATCH\",\"1\",\"1\",\"0\",\"7\",\"1\",\"1\""));
    }
}

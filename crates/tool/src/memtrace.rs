//! `mem-trace` under `lathe exec --tool-out PATH`: besides PATH (the JSON
//! records, each access with labelled fields), the accesses of every
//! instrumented launch go to `PATH.csv` and `PATH.perfetto.json` (PATH's
//! extension replaced), written by lathe-dbi's writers as `lathe run --tool
//! mem-trace` writes them: the CSV's rows carry their launch, and in the
//! timeline each launch is a process with a track per lane.

use std::path::Path;

use serde_json::{json, Value};

use crate::instr::TraceOut;

/// The launches' traces, collected until the outputs are written.
#[derive(Debug, Default)]
pub struct TraceFiles {
    csv_rows: String,
    perfetto: Vec<Value>,
    records: u64,
    dropped: u64,
    launches: u64,
}

impl TraceFiles {
    /// Adds one launch's trace.
    pub fn add(&mut self, t: TraceOut) {
        self.csv_rows.push_str(&t.csv_rows);
        self.perfetto.extend(t.perfetto);
        self.records += t.records;
        self.dropped += t.dropped;
        self.launches += 1;
    }

    /// Writes `PATH.csv` and `PATH.perfetto.json` next to `out`; an early
    /// end is said in both (`# incomplete: …`, `otherData.incomplete`).
    pub fn write(&mut self, out: &Path, incomplete: Option<&str>) {
        let csv_path = out.with_extension("csv");
        let mut csv = String::from(lathe_dbi::tools::TRACE_CSV_HEADER);
        csv.push_str(&std::mem::take(&mut self.csv_rows));
        csv.push_str(&format!("# dropped records: {}\n", self.dropped));
        if let Some(why) = incomplete {
            csv.push_str(&format!("# incomplete: {why}\n"));
        }
        if let Err(e) = std::fs::write(&csv_path, csv) {
            eprintln!(
                "lathe-tool: error: cannot write {}: {e}",
                csv_path.display()
            );
        }
        let pf_path = out.with_extension("perfetto.json");
        let mut other = json!({"launches": self.launches, "records": self.records,
            "dropped": self.dropped});
        if let Some(why) = incomplete {
            other["incomplete"] = json!(why);
        }
        let doc = json!({"traceEvents": std::mem::take(&mut self.perfetto),
            "displayTimeUnit": "ns", "otherData": other});
        if let Err(e) = std::fs::write(&pf_path, serde_json::to_string(&doc).unwrap_or_default()) {
            eprintln!("lathe-tool: error: cannot write {}: {e}", pf_path.display());
        }
    }
}

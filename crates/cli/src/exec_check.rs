//! `lathe exec --check`: the sanitizer's command-line side (issue 21,
//! docs/decisions.md D27). The runtime (`lathe-hsa`'s `check`) prints each
//! kind of finding at each PC once as it happens and appends every finding
//! to a log (`LATHE_CHECK_LOG`, one JSON object per line); after the
//! program ends, this module folds the log by checker, kind and PC,
//! prints a summary line per checker, writes `--check-json` and picks the
//! exit status. `lathe run --check` folds and summarises the same way
//! ([`fold`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use lathe_emu::check::Checks;
use serde_json::Value;

/// `lathe exec`'s exit status when a checker reported something (the
/// program's own status otherwise).
pub const CHECK_FAILED_EXIT: i32 = 66;

/// The checkers `--check` may name that run.
const CHECKERS: [&str; 4] = ["memcheck", "initcheck", "racecheck", "synccheck"];

/// A checked run: the checkers, the log the runtime writes, `--check-json`.
#[derive(Debug)]
pub struct CheckRun {
    checkers: Vec<&'static str>,
    log: PathBuf,
    json: Option<PathBuf>,
}

/// Parses `--check LIST` (comma-separated: memcheck, initcheck,
/// racecheck, synccheck, all).
pub fn parse(list: &str) -> Result<Vec<&'static str>> {
    let mut out = Vec::new();
    for name in list.split(',').map(str::trim) {
        match name {
            "all" => out.extend(CHECKERS),
            "memcheck" => out.push("memcheck"),
            "initcheck" => out.push("initcheck"),
            "synccheck" => out.push("synccheck"),
            "racecheck" => out.push("racecheck"),
            other => bail!(
                "--check {other:?}: unknown checker; expected a comma-separated list of memcheck, initcheck, racecheck, synccheck or all"
            ),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

impl CheckRun {
    /// Sets up a checked run of `cmd`: the checkers through `LATHE_CHECK`,
    /// the log through `LATHE_CHECK_LOG`; `--check-json` must be writable.
    pub fn new(cmd: &mut Command, list: &str, json: Option<&Path>) -> Result<CheckRun> {
        let checkers = parse(list)?;
        probe_json(json)?;
        let log = std::env::temp_dir().join(format!("lathe-check-{}.jsonl", std::process::id()));
        std::fs::write(&log, b"").with_context(|| format!("cannot create {}", log.display()))?;
        cmd.env("LATHE_CHECK", checkers.join(","))
            .env("LATHE_CHECK_LOG", &log);
        if checkers.contains(&"initcheck") {
            // HIP 5.2 writes small host-to-device copies straight into
            // device memory with the CPU when it sees a large BAR, which
            // initcheck cannot see; without it, every copy goes through
            // the runtime's copy functions, which mark the shadow.
            cmd.env("ROC_ENABLE_LARGE_BAR", "0");
        }
        Ok(CheckRun {
            checkers,
            log,
            json: json.map(Path::to_path_buf),
        })
    }

    /// After the program: folds the findings, prints the summary, writes
    /// `--check-json`; returns whether anything was reported.
    pub fn finish(self) -> Result<bool> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let _ = std::fs::remove_file(&self.log);
        fold(&text, &self.checkers, self.json.as_deref())
    }
}

/// The emulator's [`Checks`] for checkers `parse` returned.
pub fn checks_of(checkers: &[&str]) -> Checks {
    Checks {
        memcheck: checkers.contains(&"memcheck"),
        initcheck: checkers.contains(&"initcheck"),
        synccheck: checkers.contains(&"synccheck"),
        racecheck: checkers.contains(&"racecheck"),
    }
}

/// Where a finding is, as blockIdx then threadIdx, z first.
fn order_key(v: &Value) -> [u64; 6] {
    let at = |f: &str, i: usize| v[f][i].as_u64().unwrap_or(u64::MAX);
    [
        at("workgroup", 2),
        at("workgroup", 1),
        at("workgroup", 0),
        at("thread", 2),
        at("thread", 1),
        at("thread", 0),
    ]
}

/// `--check-json PATH` must be writable: checked before anything runs.
pub fn probe_json(json: Option<&Path>) -> Result<()> {
    if let Some(p) = json {
        std::fs::write(p, b"[]\n")
            .with_context(|| format!("--check-json {}: cannot write", p.display()))?;
    }
    Ok(())
}

/// Folds the log `text` (a finding per line, as
/// `lathe_emu::check::report::render` writes them) by checker, kind and
/// PC, prints a summary line per checker in `checkers`, writes `json`;
/// returns whether anything was reported.
pub fn fold(text: &str, checkers: &[&'static str], json: Option<&Path>) -> Result<bool> {
    // (tool, kind, pc) → (first finding, count).
    let mut folded: BTreeMap<(String, String, u64), (Value, u64)> = BTreeMap::new();
    let mut order = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let key = (
            v["tool"].as_str().unwrap_or("").to_string(),
            v["kind"].as_str().unwrap_or("").to_string(),
            v["pc"].as_u64().unwrap_or(0),
        );
        match folded.get_mut(&key) {
            Some((first, n)) => {
                *n += 1;
                // The representative is the lowest block and thread, not
                // whichever host thread logged first: reports are the
                // same from run to run.
                if order_key(&v) < order_key(first) {
                    *first = v;
                }
            }
            None => {
                order.push(key.clone());
                folded.insert(key, (v, 1));
            }
        }
    }
    let mut reports = Vec::new();
    for key in &order {
        if let Some((mut v, n)) = folded.remove(key) {
            v["count"] = Value::from(n);
            reports.push(v);
        }
    }
    for c in checkers {
        let mine: Vec<&Value> = reports.iter().filter(|r| r["tool"] == *c).collect();
        let accesses: u64 = mine.iter().map(|r| r["count"].as_u64().unwrap_or(1)).sum();
        let n = mine.len();
        eprintln!(
            "========= {c}: {n} error{}{}",
            if n == 1 { "" } else { "s" },
            if accesses as usize > n {
                format!(" ({accesses} accesses)")
            } else {
                String::new()
            }
        );
    }
    if let Some(p) = json {
        let body = serde_json::to_string_pretty(&Value::Array(reports.clone()))?;
        std::fs::write(p, body + "\n")
            .with_context(|| format!("--check-json {}: cannot write", p.display()))?;
    }
    Ok(!reports.is_empty())
}

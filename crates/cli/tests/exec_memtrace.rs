//! `lathe exec --tool mem-trace --tool-out PATH` on a real HIP program
//! (tests/exec/memspaces.hip: global, LDS and flat accesses — the flat
//! ones to a private array and through a generic pointer — over two
//! launches): PATH holds labelled records, PATH.csv and PATH.perfetto.json
//! are written by the same writers as `lathe run --tool mem-trace`, every
//! access names its address space and its wave (work-group and index),
//! each wave gets its own Perfetto track, and the three outputs agree.

use std::collections::BTreeSet;

use serde_json::Value;

mod common;
use common::{have_hipcc, hip_app, target_dir};

/// A CSV line whose quoted fields may hold commas.
fn fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// The address space an instruction's mnemonic names.
fn space_of(inst: &str) -> &'static str {
    for (prefix, space) in [
        ("global_", "global"),
        ("ds_", "lds"),
        ("flat_", "flat"),
        ("scratch_", "scratch"),
        ("buffer_", "buffer"),
    ] {
        if inst.starts_with(prefix) {
            return space;
        }
    }
    panic!("not a memory instruction: {inst}")
}

#[test]
fn mem_trace_writes_labelled_json_csv_and_perfetto_with_address_spaces() {
    if !have_hipcc() {
        return;
    }
    let app = hip_app(
        "lathe-exec-memtrace-test",
        "memspaces",
        &["libhsa_runtime64.so", "liblathe_tool.so"],
    );
    let d = target_dir().join("lathe-exec-memtrace-test").join("out");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create dir");
    let out = d.join("trace.json");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_lathe"))
        .args(["exec", "--tool", "mem-trace", "--tool-out"])
        .arg(&out)
        .arg("--")
        .arg(&app)
        .env_remove("HSA_TOOLS_LIB")
        .output()
        .expect("run lathe exec");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "memspaces: ok\n");

    // The JSON: per launch, accesses with labelled fields.
    let recs: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("PATH")).expect("JSON");
    let recs = recs.as_array().expect("array");
    assert_eq!(recs.len(), 2, "two launches");
    let mut events = Vec::new();
    for r in recs {
        assert_eq!(r["name"], "spaces(int const*, int*, int)");
        assert_eq!(r["tool"]["dropped"], 0);
        for e in r["tool"]["events"].as_array().expect("events") {
            let keys: BTreeSet<&str> = e
                .as_object()
                .expect("an object")
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(
                keys,
                BTreeSet::from([
                    "address",
                    "kind",
                    "lane",
                    "pc",
                    "record",
                    "size",
                    "space",
                    "wave",
                    "workgroup"
                ]),
                "{e}"
            );
            events.push((r["launch"].as_u64().expect("launch"), e.clone()));
        }
    }

    // The CSV: the shared writer's columns, one row per JSON access, in
    // the same order; the space is the instruction's.
    let csv = std::fs::read_to_string(d.join("trace.csv")).expect("PATH.csv");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("launch,record,workgroup,wave,pc,instruction,kind,space,size,lane,address")
    );
    let rows: Vec<Vec<String>> = lines.filter(|l| !l.starts_with('#')).map(fields).collect();
    assert!(
        csv.ends_with("# dropped records: 0\n"),
        "{}",
        &csv[csv.len() - 60..]
    );
    assert_eq!(rows.len(), events.len());
    let mut spaces = BTreeSet::new();
    // Stores: out[blockIdx.x * 64 + t], one 64-lane wave per group, so
    // the work-group is the store's offset over 256 bytes and the wave 0.
    let out_base = events
        .iter()
        .filter(|(_, e)| e["kind"] == "store" && e["space"] == "global")
        .map(|(_, e)| e["address"].as_u64().expect("address"))
        .min()
        .expect("global stores");
    let mut stores = 0;
    for (row, (launch, e)) in rows.iter().zip(&events) {
        assert_eq!(row.len(), 11, "{row:?}");
        assert_eq!(row[0], launch.to_string());
        let wg: Vec<u64> = e["workgroup"]
            .as_array()
            .expect("workgroup")
            .iter()
            .map(|v| v.as_u64().expect("id"))
            .collect();
        assert_eq!(row[2], format!("{},{},{}", wg[0], wg[1], wg[2]), "{row:?}");
        assert_eq!(row[3], e["wave"].to_string());
        assert!(wg[0] < 2 && wg[1] == 0 && wg[2] == 0, "{row:?}");
        assert_eq!(e["wave"], 0, "{row:?}");
        assert_eq!(row[4], format!("{:#x}", e["pc"].as_u64().expect("pc")));
        assert_eq!(row[6], e["kind"].as_str().expect("kind"));
        assert_eq!(row[7], e["space"].as_str().expect("space"));
        assert_eq!(row[7], space_of(&row[5]), "{row:?}");
        assert_eq!(row[9], e["lane"].to_string());
        let addr = e["address"].as_u64().expect("address");
        assert_eq!(row[10], format!("{addr:#x}"));
        if row[7] == "lds" {
            // LDS offsets, inside the kernel's 256 bytes.
            assert!(addr < 256, "{row:?}");
        }
        if row[7] == "global" && row[6] == "store" {
            assert_eq!((addr - out_base) / 256, wg[0], "{row:?}");
            assert_eq!(
                (addr - out_base) % 256 / 4,
                e["lane"].as_u64().expect("lane"),
                "{row:?}"
            );
            stores += 1;
        }
        spaces.insert(row[7].clone());
    }
    assert_eq!(stores, 2 * 128, "two launches of 128 stores");
    assert_eq!(
        spaces,
        BTreeSet::from(["flat".to_string(), "global".into(), "lds".into()]),
        "address spaces"
    );

    // The Perfetto trace: every access an instant event in `SPACE KIND`,
    // a process per launch, a named track per lane used.
    let pf: Value = serde_json::from_str(
        &std::fs::read_to_string(d.join("trace.perfetto.json")).expect("PATH.perfetto.json"),
    )
    .expect("JSON");
    let ev = pf["traceEvents"].as_array().expect("traceEvents");
    let instants: Vec<&Value> = ev.iter().filter(|e| e["ph"] == "i").collect();
    assert!(!instants.is_empty() && instants.len() < rows.len());
    let named = |kind: &str, pid: &Value, tid: Option<&Value>| {
        ev.iter().any(|m| {
            m["ph"] == "M"
                && m["name"] == kind
                && m["pid"] == *pid
                && tid.is_none_or(|t| m["tid"] == *t)
        })
    };
    // One instant per record (a wave-execution), its lanes as args; one
    // track per (work-group, wave): two per launch.
    let mut k = 0;
    let mut tracks = BTreeSet::new();
    for i in &instants {
        let lanes = i["args"]["lanes"].as_array().expect("lanes");
        let addrs = i["args"]["addresses"].as_array().expect("addresses");
        assert!(!lanes.is_empty() && lanes.len() == addrs.len(), "{i}");
        let row = &rows[k];
        assert_eq!(i["cat"], format!("{} {}", row[7], row[6]));
        assert_eq!(i["name"], row[5]);
        assert_eq!(i["pid"].to_string(), row[0]);
        assert_eq!(i["ts"].to_string(), row[1]);
        for (l, a) in lanes.iter().zip(addrs) {
            let row = &rows[k];
            assert_eq!(l.to_string(), row[9], "{i}");
            assert_eq!(a.as_str(), Some(row[10].as_str()), "{i}");
            assert_eq!(i["args"]["wave"].to_string(), row[3]);
            k += 1;
        }
        let wg = &i["args"]["workgroup"];
        let name = format!(
            "wg {},{},{} wave {}",
            wg[0], wg[1], wg[2], i["args"]["wave"]
        );
        assert!(
            ev.iter().any(|m| m["ph"] == "M"
                && m["name"] == "thread_name"
                && m["pid"] == i["pid"]
                && m["tid"] == i["tid"]
                && m["args"]["name"] == name.as_str()),
            "{i}: no track {name}"
        );
        assert!(named("thread_name", &i["pid"], Some(&i["tid"])), "{i}");
        assert!(named("process_name", &i["pid"], None), "{i}");
        tracks.insert((i["pid"].to_string(), i["tid"].to_string()));
    }
    assert_eq!(k, rows.len());
    assert_eq!(
        tracks.len(),
        2 * 2,
        "a track per work-group and wave, per launch"
    );
    assert_eq!(pf["otherData"]["launches"], 2);
}

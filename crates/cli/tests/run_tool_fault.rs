//! `lathe run --tool` reports a stopped launch as a plain `lathe run` does
//! (issue 19, item 2): a fault at the original kernel + offset with the
//! original instruction, the work-group, wave, lane and buffer; the same
//! `--json` error fields; a watchdog stop at original offsets. Inputs:
//! corpus/hip/faults.hip and corpus/hip/bench_emu.hip, built by clang-22.

mod common;

use common::{lathe, lathe_fails as fails};
use lathe_testkit::{Build, Output};
use serde_json::Value;

/// The lines of a fault report that name where it happened, with the
/// instrumented PC (`, instrumented pc 0x...`) and the address (which
/// differs between sessions) taken out.
fn where_lines(err: &str) -> Vec<String> {
    err.lines()
        .filter(|l| l.contains(" at ") || l.contains(" in ") || l.contains("the address is"))
        .map(|l| {
            let l = l.replace("lathe: error: ", "").replace("original pc", "pc");
            let l = match (l.find(", instrumented pc"), l.rfind(": ")) {
                (Some(a), Some(b)) if b > a => format!("{}{}", &l[..a], &l[b..]),
                _ => l,
            };
            // `... outside every allocation` names a session's address.
            l.split(" at 0x").next().unwrap_or(&l).to_string()
        })
        .collect()
}

#[test]
fn a_fault_under_a_tool_names_the_original_kernel_offset_and_lane() {
    let co = Build::new("faults.hip", &["gfx90a"], Output::CodeObject).build();
    let co = co.to_str().expect("utf-8 path");
    // Byte offset 1 MiB: every lane's atomic lands past the 64-byte buffer.
    let args = |tool: Option<&'static str>| {
        let mut a = vec![
            "run",
            co,
            "--kernel",
            "atomic_at",
            "--grid",
            "64",
            "--block",
            "64",
            "-a",
            "buf:b:64",
            "-a",
            "i32:1048576",
        ];
        if let Some(t) = tool {
            a.extend(["--tool", t]);
        }
        a
    };
    let plain = fails(&args(None));
    let want = where_lines(&plain);
    assert!(
        want.iter()
            .any(|l| l.contains("(_Z9atomic_atPii+0x") && l.contains(": global_atomic_add")),
        "{plain}"
    );
    // A scalar-addressed atomic: the wave, no lane (compared below).
    assert!(
        want.iter()
            .any(|l| l.contains("in wave 0 of work-group (0, 0, 0)")),
        "{plain}"
    );
    assert!(
        want.iter().any(|l| l.contains("past the end of buf:b")),
        "{plain}"
    );
    for tool in ["instr-count", "mem-trace"] {
        let e = fails(&args(Some(tool)));
        assert!(!e.contains("WaveId"), "no Debug text: {e}");
        assert!(e.contains("GPU memory fault in _Z9atomic_atPii"), "{e}");
        assert!(e.contains(", instrumented pc 0x"), "{e}");
        assert_eq!(where_lines(&e), want, "{tool}: {e}\nplain: {plain}");
        // --json: the same fields as the plain run's error.
        let mut j = vec!["--json"];
        j.extend(args(Some(tool)));
        let out = lathe(&j);
        assert!(!out.status.success());
        let v: Value = serde_json::from_slice(&out.stdout).expect("JSON error");
        let mut pj = vec!["--json"];
        pj.extend(args(None));
        let p: Value = serde_json::from_slice(&lathe(&pj).stdout).expect("JSON error");
        let keys = |v: &Value| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
        assert_eq!(keys(&v), keys(&p), "{v}");
        let text = v["error"].as_str().unwrap_or_default();
        assert_eq!(where_lines(text), want, "{tool} --json: {v}");
    }
}

#[test]
fn a_timeout_under_a_tool_names_original_offsets() {
    let co = Build::new("bench_emu.hip", &["gfx90a"], Output::CodeObject).build();
    let co = co.to_str().expect("utf-8 path");
    let args = |tool: Option<&'static str>| {
        let mut a = vec![
            "run",
            co,
            "--kernel",
            "spin_forever",
            "--grid",
            "64",
            "--block",
            "64",
            "-a",
            "buf:out:512",
            "-a",
            "buf:stop:4",
            "--threads",
            "1",
            "--timeout",
            "0.5",
        ];
        if let Some(t) = tool {
            a.extend(["--tool", t]);
        }
        a
    };
    // The plain run's loop: the offsets its wave can be at.
    let plain = fails(&args(None));
    assert!(
        plain.contains("watchdog: still running after 0.5 s"),
        "{plain}"
    );
    let e = fails(&args(Some("instr-count")));
    assert!(e.contains("watchdog: still running after 0.5 s"), "{e}");
    let line = e
        .lines()
        .find(|l| l.contains("wave 0 of work-group (0, 0, 0): at "))
        .unwrap_or_else(|| panic!("no wave line: {e}"));
    assert!(line.contains("original pc 0x"), "{line}");
    assert!(line.contains("(_Z12spin_forever"), "{line}");
    // An original offset lies within the original kernel, as `disasm`
    // lists it (the instrumented code is longer and elsewhere).
    let off = |l: &str| -> u64 {
        let o = l
            .split("+0x")
            .nth(1)
            .and_then(|r| r.split(')').next())
            .unwrap_or("");
        u64::from_str_radix(o, 16).unwrap_or_else(|_| panic!("no offset: {l}"))
    };
    let plain_line = plain
        .lines()
        .find(|l| l.contains("wave 0 of work-group (0, 0, 0): at "))
        .unwrap_or_else(|| panic!("no wave line: {plain}"));
    // spin_forever is a few dozen instructions; its instrumented copy
    // lies past the original (offsets from the moved entry would be
    // thousands).
    assert!(off(plain_line) < 0x200, "{plain_line}");
    assert!(off(line) < 0x200, "{line}");
    // In the tool's probe code: the site is named.
    if line.contains("in the probe code") {
        assert!(line.contains("instr-count site "), "{line}");
    }
    assert!(!e.contains("WaveId"), "{e}");
}

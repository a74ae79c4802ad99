//! `lathe run --timeout` on a real kernel that never ends (clang-22 -O3,
//! gfx90a): the command exits with an error near the limit instead of
//! hanging, naming each unfinished wave's PC, instruction and count.

use std::process::Command;
use std::time::{Duration, Instant};

use lathe_testkit::{Build, Output};

#[test]
fn run_stops_an_endless_kernel_at_the_timeout() {
    let co = Build::new("bench_emu.hip", &["gfx90a"], Output::CodeObject).build();
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .arg("run")
        .arg(&co)
        .args(["--kernel", "spin_forever", "--grid", "128", "--block", "64"])
        .args(["-a", "buf:out:512", "-a", "buf:stop:4", "--threads", "1"])
        .args(["--timeout", "0.5"])
        .output()
        .expect("run lathe");
    let took = t.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "exited 0: {err}");
    assert!(took >= Duration::from_millis(500), "{took:?}: {err}");
    assert!(took < Duration::from_secs(10), "{took:?}: {err}");
    assert!(
        err.contains("watchdog: still running after 0.5 s (an endless loop?); 1 unfinished wave(s) and 1 work-group(s) not started"),
        "{err}"
    );
    // In code-object terms: the address `disasm` prints, kernel + offset.
    let line = err
        .lines()
        .find(|l| l.contains("wave 0 of work-group (0, 0, 0): at pc 0x"))
        .unwrap_or_else(|| panic!("no wave line: {err}"));
    assert!(line.contains("spin_forever"), "{line}");
    assert!(line.contains("+0x"), "{line}");
    // `... at pc 0x... (kernel+0x...): inst after N wave-instructions`
    let n: u64 = line
        .split("after ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no count: {line}"));
    assert!(n > 1000, "{line}");
    // A negative limit is refused with a clear message.
    let bad = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .arg("run")
        .arg(&co)
        .args(["--kernel", "spin_forever", "--grid", "64", "--block", "64"])
        .args(["-a", "buf:out:512", "-a", "buf:stop:4", "--timeout=-1"])
        .output()
        .expect("run lathe");
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("--timeout -1"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}

//! HSA-level programs compiled by gcc/g++ against Debian's ROCm 5.2
//! headers: the API directly (agents, pools, signals, queues with ring
//! wrap-around and barrier packets, executables, bad arguments), and an
//! HSA_TOOLS_LIB tool that counts dispatches through the API table.

mod support;

use std::process::Command;

use support::{have, hipcc, run};

/// Builds `tests/hip/NAME.hip` as a bare gfx90a code object with hipcc.
fn device_code_object(name: &str) -> std::path::PathBuf {
    let co = support::out_dir().join(format!("{name}.elf"));
    lathe_testkit::hip_code_object(&support::src(&format!("hip/{name}.hip")), &co, "gfx90a");
    co
}

#[test]
fn hsa_api_agents_pools_signals_queues_executables() {
    if !have("hipcc") || !have("gcc") {
        return;
    }
    let co = device_code_object("modules_kernels");
    let exe = support::gcc("hsa_api", &[]);
    let o = run(&exe, &[co.to_str().expect("utf-8")], &[]);
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(
        o.status.success() && out.contains("hsa_api: ok"),
        "stdout:\n{out}\nstderr:\n{err}"
    );
}

/// Builds `tests/c/NAME.cpp` as an `HSA_TOOLS_LIB` library with g++
/// against Debian's HSA headers.
fn tool_library(name: &str) -> std::path::PathBuf {
    let tool = support::out_dir().join(format!("lib{name}.so"));
    let st = Command::new("g++")
        .args([
            "-shared",
            "-fPIC",
            "-O1",
            "-Wall",
            "-Werror",
            "-I/usr/include/hsa",
            "-o",
        ])
        .arg(&tool)
        .arg(support::src(&format!("c/{name}.cpp")))
        .status()
        .expect("g++");
    assert!(st.success(), "g++ {name} failed");
    tool
}

#[test]
fn tools_lib_counts_every_dispatch_through_the_api_table() {
    if !have("hipcc") || !have("g++") {
        return;
    }
    let tool = tool_library("dispatch_counter");
    let exe = hipcc("launches", &[]);
    for n in [1, 37] {
        let o = run(
            &exe,
            &[&n.to_string()],
            &[("HSA_TOOLS_LIB", tool.to_str().expect("utf-8"))],
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        assert!(
            err.contains(&format!("dispatch-counter: {n} kernel dispatches")),
            "want {n} dispatches counted:\n{err}"
        );
    }
}

#[test]
fn device_interrupt_wakes_the_signal_waiter() {
    if !have("hipcc") || !have("gcc") {
        return;
    }
    let co = device_code_object("interrupt_kernels");
    let exe = support::gcc("interrupt", &[]);
    // Waiters poll once a minute: only the interrupt wakes them in time.
    let o = run(
        &exe,
        &[co.to_str().expect("utf-8")],
        &[("LATHE_POLL_US", "60000000")],
    );
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(
        o.status.success() && out.contains("interrupt: ok"),
        "stdout:\n{out}\nstderr:\n{err}"
    );
}

#[test]
fn queue_intercept_tool_sees_and_forwards_every_packet() {
    if !have("hipcc") || !have("g++") {
        return;
    }
    let tool = tool_library("queue_intercept");
    let exe = hipcc("launches", &[]);
    for n in [1, 40] {
        let o = run(
            &exe,
            &[&n.to_string()],
            &[("HSA_TOOLS_LIB", tool.to_str().expect("utf-8"))],
        );
        let (out, err) = (
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr),
        );
        // The program completes (its kernels ran from the interceptor's
        // writer and their completion signals fired).
        assert!(
            o.status.success() && out.contains(&format!("launched {n}")),
            "stdout:\n{out}\nstderr:\n{err}"
        );
        let line = err
            .lines()
            .find(|l| l.starts_with("queue-intercept: "))
            .unwrap_or_else(|| panic!("no OnUnload line:\n{err}"));
        assert!(
            line.contains(&format!(
                " {n} kernel dispatches, 0 out of order, 0 register errors"
            )),
            "want {n} dispatches intercepted in order: {line}"
        );
        assert!(!line.starts_with("queue-intercept: 0 queues"), "{line}");
    }
}

/// Packets of one queue run one at a time and in order whoever runs them:
/// the queue's processor, or threads waiting for completion signals that
/// run the queue's packets themselves (D44). Three waiter threads race the
/// processor over ~700 packets (dispatches logging their tags, barriers,
/// one barrier held back by a host signal) on a 64-slot ring; the log
/// must come out in submission order. Repeated, on 1 and 2 emulator
/// threads, and once without waiters (the processor alone).
#[test]
fn queue_packets_run_in_order_whoever_runs_them() {
    if !have("hipcc") || !have("gcc") {
        return;
    }
    let co = device_code_object("order_kernels");
    let co = co.to_str().expect("utf-8");
    let exe = support::gcc("queue_order", &[]);
    for threads in ["1", "2"] {
        for args in [vec![co], vec![co], vec![co], vec![co, "--wrap-only"]] {
            // A broken order can also hang the program: 120 s at most.
            let mut full = vec!["120", exe.to_str().expect("utf-8")];
            full.extend(&args);
            let o = run(
                std::path::Path::new("timeout"),
                &full,
                &[("LATHE_THREADS", threads)],
            );
            support::assert_ok(&o, "queue_order");
        }
    }
}

/// A kernel whose code is rewritten between dispatches (the other
/// kernel's code copied over it with `hsa_memory_copy`, then its own
/// copied back) runs the code as it is now: kept decodes (D49) are
/// dropped when the bytes they came from change. On 1 and 2 emulator
/// threads (8 work-groups, so both workers keep decodes).
#[test]
fn rewritten_code_runs_as_rewritten() {
    if !have("hipcc") || !have("gcc") {
        return;
    }
    let co = device_code_object("rewrite_kernels");
    let exe = support::gcc("code_rewrite", &[]);
    for threads in ["1", "2"] {
        let o = run(
            &exe,
            &[co.to_str().expect("utf-8")],
            &[("LATHE_THREADS", threads)],
        );
        support::assert_ok(&o, "code_rewrite");
    }
}

/// Under memcheck, freed regions stay in the allocation table; unlocking
/// host memory must then keep its alias's address range reserved, or the
/// next mapping placed there (a queue's ring, a pool allocation, another
/// lock) collides with the freed region and fails, which HIP turns into
/// hipErrorOutOfMemory (issue 20: threads.hip's hipStreamCreate under
/// `lathe exec --check`). 200 lock/unlock rounds, each followed by a
/// hinted mapping at the old alias, a new lock of the same size and two
/// queue creations whose indices must work (a queue made after the
/// thread's last look-up must be found: the per-thread view of the queue
/// table, D56); without memcheck too.
#[test]
fn unlocked_aliases_stay_reserved_under_memcheck() {
    if !have("gcc") {
        return;
    }
    let exe = support::gcc("lock_reuse", &[]);
    for check in ["memcheck", ""] {
        let env: &[(&str, &str)] = if check.is_empty() {
            &[]
        } else {
            &[("LATHE_CHECK", check)]
        };
        let o = run(&exe, &[], env);
        if check.is_empty() {
            // Without quarantine the alias is unmapped at unlock and may
            // be handed out again: only the locks and queues must work.
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                o.status.success() || err.contains("freed aliases were handed out again"),
                "lock_reuse without memcheck: {err}"
            );
            assert!(
                !err.contains("failed"),
                "lock_reuse without memcheck: {err}"
            );
        } else {
            support::assert_ok(&o, "lock_reuse");
        }
    }
}

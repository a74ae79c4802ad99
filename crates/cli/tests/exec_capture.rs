//! `lathe exec --capture` and `lathe replay` (issue 22) on HIP programs
//! built here by Debian's hipcc: every captured dispatch replays
//! bit-identically, from any directory; another build of a kernel is
//! compared with the capture (`--code`); damaged capsules get clear
//! errors; memory outside a capsule stops a replay naming the address.
//! rocSPARSE's csrmv and rocRAND's generators (AMD's kernels, Debian's
//! libraries) are captured and replayed too.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod common;
use common::{have_hipcc, hip_app, target_dir, tmpdir};

fn app() -> PathBuf {
    static APP: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    APP.get_or_init(|| hip_app("lathe-capture-test", "app", &["libhsa_runtime64.so"]))
        .clone()
}

/// `lathe exec OPTS -- PROG ARGS` with none of the runtime's variables
/// inherited.
fn exec(opts: &[&str], prog: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lathe"))
        .arg("exec")
        .args(opts)
        .arg("--")
        .arg(prog)
        .args(args)
        .env_remove("LATHE_STATS")
        .env_remove("LATHE_STATS_JSON")
        .env_remove("LATHE_TRACE")
        .env_remove("LATHE_HSA_LIB")
        .env_remove("HSA_TOOLS_LIB")
        .output()
        .expect("run lathe exec")
}

/// `lathe --json replay CAPSULE EXTRA` run in `cwd`: (exit ok, JSON or
/// error text).
fn replay(capsule: &Path, extra: &[&str], cwd: &Path) -> (bool, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_lathe"))
        .args(["--json", "replay"])
        .arg(capsule)
        .args(extra)
        .current_dir(cwd)
        .output()
        .expect("run lathe replay");
    (
        o.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    )
}

/// The first JSON document of `out` (a failed replay prints its report,
/// then the error document).
fn first_json(out: &str) -> Value {
    serde_json::Deserializer::from_str(out)
        .into_iter::<Value>()
        .next()
        .and_then(Result::ok)
        .unwrap_or_else(|| panic!("no JSON in {out}"))
}

fn capsules(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("capture dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

/// Captures `prog args` with `opts` into a new directory; the program's
/// stdout and exit status must be those of a plain run.
fn capture(name: &str, prog: &Path, args: &[&str], opts: &[&str]) -> PathBuf {
    let dir = tmpdir(name);
    let plain = exec(&[], prog, args);
    // Every program captured here checks its own results: a run that
    // fails is a broken runtime or loader (a capture that fails the same
    // way would otherwise pass).
    assert!(
        plain.status.success(),
        "{} failed under plain lathe exec: {}{}",
        prog.display(),
        String::from_utf8_lossy(&plain.stdout),
        String::from_utf8_lossy(&plain.stderr)
    );
    let mut o = vec!["--capture", dir.to_str().expect("utf-8")];
    o.extend_from_slice(opts);
    let cap = exec(&o, prog, args);
    assert_eq!(
        cap.status.code(),
        plain.status.code(),
        "{}",
        String::from_utf8_lossy(&cap.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&cap.stdout),
        String::from_utf8_lossy(&plain.stdout)
    );
    dir
}

/// Replays `c` from `cwd`, which must match bit for bit and run as many
/// wave-instructions as the captured dispatch.
fn replays_identically(c: &Path, cwd: &Path) -> Value {
    let (ok, out) = replay(c, &[], cwd);
    assert!(ok, "replay {}: {out}", c.display());
    let j: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(j["identical"], true, "{j}");
    assert_eq!(
        j["wave_instructions"], j["original"]["wave_instructions"],
        "{j}"
    );
    j
}

#[test]
fn every_launch_of_a_multi_kernel_program_replays_bit_identically() {
    if !have_hipcc() {
        return;
    }
    // 100000 elements: HIP enqueues the next launches (packets, kernel
    // arguments) while each one runs, which the capture must not take
    // for the kernel's work.
    let dir = capture("capture-all", &app(), &["100000", "3", "0"], &[]);
    let caps = capsules(&dir);
    let names: Vec<String> = caps
        .iter()
        .map(|p| {
            p.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        names,
        [
            "00000-scale",
            "00001-scale",
            "00002-scale",
            "00003-scale",
            "00004-iota2d"
        ]
    );
    for c in &caps {
        let j = replays_identically(c, &dir);
        assert!(j["wave_instructions"].as_u64().unwrap_or(0) > 0, "{j}");
    }
    // Each capsule's after-state is the dispatch's own work: the first
    // scale launch changed the first half of the vector (100000 floats,
    // 98 pages), nothing else.
    let m: Value = serde_json::from_str(
        &std::fs::read_to_string(caps[0].join("capsule.json")).expect("manifest"),
    )
    .expect("JSON");
    assert_eq!(m["version"], 3);
    // Only the touched pages are stored: fewer than the allocations hold.
    let total: u64 = m["allocations"]
        .as_array()
        .expect("allocations")
        .iter()
        .filter_map(|a| a["size"].as_u64())
        .sum();
    let stored = m["before_bytes"].as_u64().expect("before_bytes");
    assert!(m["before_pages"].is_array(), "{m}");
    assert!(stored < total, "{stored} of {total}");
    assert_eq!(m["kernel"], "_Z5scalePffi");
    let pages = m["after_pages"].as_array().expect("pages");
    assert_eq!(pages.len(), 98, "{m}");
    assert!(pages.iter().all(|p| p[0] == pages[0][0]), "{m}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kernels_and_launches_select_what_is_captured() {
    if !have_hipcc() {
        return;
    }
    let dir = capture(
        "capture-sel",
        &app(),
        &["1000", "2", "0"],
        &["--kernels", "iota"],
    );
    assert_eq!(capsules(&dir).len(), 1);
    assert!(capsules(&dir)[0].ends_with("00003-iota2d"));
    let _ = std::fs::remove_dir_all(&dir);
    let dir = capture(
        "capture-sel2",
        &app(),
        &["1000", "2", "0"],
        &["--launches", "1-2"],
    );
    let caps = capsules(&dir);
    assert_eq!(caps.len(), 2);
    assert!(caps[0].ends_with("00001-scale") && caps[1].ends_with("00002-scale"));
    let _ = std::fs::remove_dir_all(&dir);
    // Nothing selected: said at program end, on stderr, with why.
    let dir = tmpdir("capture-none");
    let d = dir.to_str().expect("utf-8");
    let o = exec(
        &["--capture", d, "--kernels", "no_such_kernel"],
        &app(),
        &["10", "1", "0"],
    );
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("nothing captured"), "{err}");
    assert!(
        err.contains("\"no_such_kernel\" matched no launched kernel"),
        "{err}"
    );
    let o = exec(
        &["--capture", d, "--launches", "7-9"],
        &app(),
        &["10", "1", "0"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--launches starts at 7 but the program made 3 kernel launch(es)"),
        "{err}"
    );
    assert!(capsules(&dir).is_empty());
    // Something selected: no such message.
    let o = exec(
        &["--capture", d, "--launches", "2"],
        &app(),
        &["10", "1", "0"],
    );
    assert!(!String::from_utf8_lossy(&o.stderr).contains("nothing captured"));
    let _ = std::fs::remove_dir_all(&dir);
    // Without --tool or --capture the selection means nothing.
    let o = exec(&["--kernels", "x"], &app(), &["10", "1", "0"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--capture"));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read dir") {
        let p = e.expect("entry").path();
        let dest = to.join(p.file_name().expect("name"));
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).expect("copy");
        }
    }
}

#[test]
fn a_capsule_copied_elsewhere_replays_without_the_program() {
    if !have_hipcc() {
        return;
    }
    // The program is built apart and deleted before the replay.
    let build = tmpdir("capture-gone");
    let prog = build.join("app");
    std::fs::copy(app(), &prog).expect("copy app");
    let dir = capture(
        "capture-copy",
        &prog,
        &["500", "1", "0"],
        &["--launches", "0"],
    );
    std::fs::remove_dir_all(&build).expect("remove the program");
    let elsewhere = tmpdir("capture-elsewhere");
    let moved = elsewhere.join("moved");
    copy_dir(&capsules(&dir)[0], &moved);
    std::fs::remove_dir_all(&dir).expect("remove the capture");
    let cwd = std::env::temp_dir();
    replays_identically(&moved, &cwd);
    let _ = std::fs::remove_dir_all(&elsewhere);
}

/// Builds `src` (a path) with hipcc for gfx90a into `out`.
fn hipcc(src: &Path, out: &Path, extra: &[&str]) {
    let o = Command::new("hipcc")
        .args(["--offload-arch=gfx90a", "-O2"])
        .args(extra)
        .arg("-o")
        .arg(out)
        .arg(src)
        .output()
        .expect("run hipcc");
    assert!(
        o.status.success(),
        "hipcc {}: {}",
        src.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn code_from_a_changed_source_line_differs_and_the_same_source_matches() {
    if !have_hipcc() {
        return;
    }
    let dir = capture(
        "capture-code",
        &app(),
        &["1000", "1", "0"],
        &["--launches", "0"],
    );
    let c = capsules(&dir).remove(0);
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/exec/app.hip");
    let text = std::fs::read_to_string(&src).expect("app.hip");
    let work = tmpdir("capture-code-builds");
    // The same source, built again.
    let same = work.join("same");
    hipcc(&src, &same, &[]);
    let (ok, out) = replay(&c, &["--code", same.to_str().expect("utf-8")], &work);
    assert!(ok, "{out}");
    let j: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(j["identical"], true);
    // One changed line: x[i] *= a  →  x[i] *= a + 1.
    let changed_src = work.join("changed.hip");
    let line = "if (i < n) x[i] *= a;";
    assert!(text.contains(line));
    std::fs::write(
        &changed_src,
        text.replace(line, "if (i < n) x[i] *= a + 1.0f;"),
    )
    .expect("write");
    let changed = work.join("changed");
    hipcc(&changed_src, &changed, &[]);
    let (ok, out) = replay(&c, &["--code", changed.to_str().expect("utf-8")], &work);
    assert!(!ok, "{out}");
    let j = first_json(&out);
    assert_eq!(j["identical"], false);
    let d = &j["differences"][0];
    // Every one of the 1000 floats differs (some of their low bytes agree).
    assert!(d["first_offset"].as_u64().unwrap_or(99) < 4, "{j}");
    assert!(d["differing_bytes"].as_u64().unwrap_or(0) >= 1000, "{j}");
    assert!(
        out.contains("differs from the captured after-state in 1 allocation"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&work);
}

fn edit_manifest(c: &Path, f: impl FnOnce(&mut Value)) {
    let p = c.join("capsule.json");
    let mut m: Value =
        serde_json::from_str(&std::fs::read_to_string(&p).expect("read")).expect("JSON");
    f(&mut m);
    std::fs::write(&p, serde_json::to_string(&m).expect("JSON")).expect("write");
}

#[test]
fn damaged_capsules_get_clear_errors() {
    if !have_hipcc() {
        return;
    }
    let dir = capture(
        "capture-bad",
        &app(),
        &["300", "1", "0"],
        &["--launches", "0"],
    );
    let good = capsules(&dir).remove(0);
    let fresh = |name: &str| {
        let d = dir.join(name);
        copy_dir(&good, &d);
        d
    };
    let err = |c: &Path| {
        let (ok, out) = replay(c, &[], &dir);
        assert!(!ok, "{out}");
        let j = first_json(&out);
        j["error"].as_str().unwrap_or_default().to_string()
    };
    let c = fresh("missing");
    std::fs::remove_file(c.join("code/0.co")).expect("rm");
    assert!(
        err(&c).ends_with("code/0.co is missing from the capsule"),
        "{}",
        err(&c)
    );

    let c = fresh("truncated");
    let b = std::fs::read(c.join("before.zst")).expect("read");
    std::fs::write(c.join("before.zst"), &b[..b.len() / 2]).expect("write");
    let e = err(&c);
    assert!(
        e.contains("before.zst: corrupt or truncated zstd data"),
        "{e}"
    );

    let c = fresh("target");
    edit_manifest(&c, |m| m["target"] = "gfx942".into());
    let e = err(&c);
    assert!(
        e.contains("loading the capsule's code objects for gfx942"),
        "{e}"
    );
    assert!(e.contains("gfx90a"), "{e}");

    let c = fresh("huge");
    edit_manifest(&c, |m| {
        // The last allocation, so that nothing follows it to overlap.
        let last = m["allocations"].as_array().map_or(0, Vec::len) - 1;
        m["allocations"][last]["size"] = (1u64 << 50).into();
        let total: u64 = m["allocations"]
            .as_array()
            .map_or(0, |a| a.iter().filter_map(|x| x["size"].as_u64()).sum());
        m["before_bytes"] = total.into();
    });
    let e = err(&c);
    assert!(e.contains("more than the limit"), "{e}");

    let e = err(&dir.join("no-such-capsule"));
    assert!(e.contains("not a capsule directory"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The kernel's first argument, a pointer (the manifest's first 8 kernarg
/// bytes, little-endian hex), and the index of the captured allocation
/// that holds it.
fn first_pointer_allocation(m: &Value) -> (u64, usize) {
    let kernarg = m["kernarg"].as_str().expect("kernarg");
    let x = u64::from_str_radix(
        &(0..8)
            .rev()
            .map(|i| &kernarg[2 * i..2 * i + 2])
            .collect::<String>(),
        16,
    )
    .expect("pointer");
    let idx = m["allocations"]
        .as_array()
        .expect("allocations")
        .iter()
        .position(|a| {
            let (b, s) = (
                a["base"].as_u64().expect("base"),
                a["size"].as_u64().expect("size"),
            );
            x >= b && x < b + s
        })
        .expect("the pointer is in a captured allocation");
    (x, idx)
}

#[test]
fn memory_outside_the_capsule_stops_the_replay_naming_the_address() {
    if !have_hipcc() {
        return;
    }
    let dir = capture(
        "capture-outside",
        &app(),
        &["300", "1", "0"],
        &["--launches", "0", "--capture-memory", "all"],
    );
    let c = capsules(&dir).remove(0);
    // Drop the allocation the kernel's first argument points at (the
    // vector), from the manifest and from the before-state.
    let p = c.join("capsule.json");
    let mut m: Value =
        serde_json::from_str(&std::fs::read_to_string(&p).expect("read")).expect("JSON");
    let (x, idx) = first_pointer_allocation(&m);
    let allocs = m["allocations"].as_array().expect("allocations").clone();
    let sizes: Vec<u64> = allocs
        .iter()
        .map(|a| a["size"].as_u64().expect("size"))
        .collect();
    let before =
        zstd::decode_all(&std::fs::read(c.join("before.zst")).expect("read")[..]).expect("zstd");
    let start: u64 = sizes[..idx].iter().sum();
    let mut cut = before[..start as usize].to_vec();
    cut.extend_from_slice(&before[(start + sizes[idx]) as usize..]);
    std::fs::write(
        c.join("before.zst"),
        zstd::encode_all(&cut[..], 3).expect("zstd"),
    )
    .expect("write");
    m["allocations"].as_array_mut().expect("array").remove(idx);
    m["before_bytes"] = (cut.len() as u64).into();
    m["after_pages"] = Value::Array(vec![]);
    std::fs::write(
        c.join("after.zst"),
        zstd::encode_all(&[][..], 3).expect("zstd"),
    )
    .expect("write");
    for co in m["code_objects"].as_array_mut().expect("array") {
        let a = co["allocation"].as_u64().expect("index") as usize;
        if a > idx {
            co["allocation"] = (a - 1).into();
        }
    }
    std::fs::write(&p, serde_json::to_string(&m).expect("JSON")).expect("write");
    let (ok, out) = replay(&c, &[], &dir);
    assert!(!ok, "{out}");
    assert!(out.contains("outside the capsule"), "{out}");
    // The faulting lane's address, inside the dropped vector.
    let named = out.split("0x").skip(1).any(|h| {
        let hex: String = h.chars().take_while(char::is_ascii_hexdigit).collect();
        u64::from_str_radix(&hex, 16).is_ok_and(|a| a >= x && a < x + sizes[idx])
    });
    assert!(named, "{x:#x}: {out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_capsule_stores_the_touched_pages_not_a_big_unused_buffer() {
    if !have_hipcc() {
        return;
    }
    let prog = hip_app("lathe-capture-test", "unused", &["libhsa_runtime64.so"]);
    let dir = capture("capture-unused", &prog, &[], &["--kernels", "bump"]);
    let c = capsules(&dir).remove(0);
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(c.join("capsule.json")).expect("read"))
            .expect("JSON");
    assert_eq!(m["version"], 3);
    let allocs = m["allocations"].as_array().expect("allocations");
    let size = |a: &Value| a["size"].as_u64().expect("size");
    // The 16 MiB buffer keeps its place and size, with nothing stored.
    let big = allocs
        .iter()
        .position(|a| size(a) >= 16 << 20)
        .expect("the unused buffer is an allocation");
    let runs = m["before_pages"].as_array().expect("before_pages");
    assert!(
        runs.iter().all(|r| r[0].as_u64() != Some(big as u64)),
        "{m}"
    );
    // The vector's page (its 4 KiB, the kernel's only data) is stored.
    let (_, xa) = first_pointer_allocation(&m);
    let covered: u64 = runs
        .iter()
        .filter(|r| r[0].as_u64() == Some(xa as u64))
        .map(|r| r[2].as_u64().expect("len"))
        .sum();
    assert_eq!(covered, 4096, "{m}");
    // Far fewer bytes than the program's memory: the touched pages of the
    // data, the kernel's arguments and the code allocation, the queue and
    // the packet.
    let total: u64 = allocs.iter().map(size).sum();
    let stored = m["before_bytes"].as_u64().expect("before_bytes");
    assert!(stored <= 64 << 10, "{stored} bytes of {total}");
    assert!(stored * 50 < total, "{stored} of {total}");
    // The code allocation (three pages) is not stored whole: replay loads
    // its code object beneath the stored pages.
    let code = allocs
        .iter()
        .position(|a| a["kind"] == "code")
        .expect("a code allocation");
    let code_stored: u64 = runs
        .iter()
        .filter(|r| r[0].as_u64() == Some(code as u64))
        .map(|r| r[2].as_u64().expect("len"))
        .sum();
    assert!(code_stored < size(&allocs[code]), "{m}");
    replays_identically(&c, &dir);
    // Loading the code object at its captured allocation gives the bytes
    // the program had there, whole (a capsule of whole allocations).
    let all = capture(
        "capture-unused-all",
        &prog,
        &[],
        &["--kernels", "bump", "--capture-memory", "all"],
    );
    let whole = capsules(&all).remove(0);
    assert_eq!(images_match_the_captured_code(&whole, true), 1);
    let _ = std::fs::remove_dir_all(&all);

    // Without the vector's page, the replay leaves the capsule at it.
    let p = c.join("capsule.json");
    let mut m2 = m.clone();
    let before =
        zstd::decode_all(&std::fs::read(c.join("before.zst")).expect("read")[..]).expect("zstd");
    let mut kept = Vec::new();
    let mut at = 0usize;
    let mut new_runs = Vec::new();
    for r in runs {
        let len = r[2].as_u64().expect("len") as usize;
        if r[0].as_u64() != Some(xa as u64) {
            kept.extend_from_slice(&before[at..at + len]);
            new_runs.push(r.clone());
        }
        at += len;
    }
    m2["before_pages"] = Value::Array(new_runs);
    m2["before_bytes"] = (kept.len() as u64).into();
    m2["after_pages"] = Value::Array(vec![]);
    std::fs::write(
        c.join("before.zst"),
        zstd::encode_all(&kept[..], 3).expect("zstd"),
    )
    .expect("write");
    std::fs::write(
        c.join("after.zst"),
        zstd::encode_all(&[][..], 3).expect("zstd"),
    )
    .expect("write");
    std::fs::write(&p, serde_json::to_string(&m2).expect("JSON")).expect("write");
    let (ok, out) = replay(&c, &[], &dir);
    assert!(!ok, "{out}");
    assert!(out.contains(&format!("of allocation a{xa} (")), "{out}");
    assert!(out.contains("did not touch: outside the capsule"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Rebuilds capsule `c`'s code objects at their captured `code`
/// allocations both ways — replay's image (`Prepared::fill`: segments
/// copied, dynamic relocations applied, no executable) and
/// `lathe-loader`'s whole load and freeze — and compares them with each
/// other, every byte, and with the stored bytes: every byte of the
/// allocation when `whole` (each code allocation must be stored whole),
/// else its stored runs. Returns how many code objects were compared.
fn images_match_the_captured_code(c: &Path, whole: bool) -> usize {
    use lathe_capsule::read::{Capsule, Limits};
    let cap = Capsule::open(c, &Limits::default()).expect("read the capsule");
    let im = lathe_capsule::image::load(&cap, true).expect("load the code objects");
    let fast = lathe_capsule::image::Prepared::new(&cap).expect("prepare the images");
    let m = &cap.manifest;
    for (k, co) in m.code_objects.iter().enumerate() {
        let a = &m.allocations[co.allocation];
        assert_eq!(im.images[k].len() as u64, a.size);
        let mut image = vec![0u8; a.size as usize];
        fast.fill(k, &mut image).expect("fill the image");
        let first = image.iter().zip(&im.images[k]).position(|(x, y)| x != y);
        assert_eq!(
            first,
            None,
            "code object {k}: replay's image differs from the loader's at offset {:#x}",
            first.unwrap_or(0)
        );
        assert_eq!(cap.whole(co.allocation), whole, "code object {k}");
        let mut compared = 0;
        for run in cap.runs(co.allocation) {
            let (s, e) = (run.offset as usize, (run.offset + run.len) as usize);
            let got = &image[s..e];
            let want = cap.before(run);
            let first = got.iter().zip(want).position(|(x, y)| x != y);
            assert_eq!(
                first,
                None,
                "code object {k}: the loaded image differs from the capture at offset {:#x}",
                s + first.unwrap_or(0)
            );
            compared += run.len;
        }
        if whole {
            assert_eq!(compared, a.size);
        }
    }
    m.code_objects.len()
}

/// A code object with dynamic relocations (`capture_reloc.hip`: pointers
/// to device globals and to device functions in `.data`, one of them
/// against a visible symbol): the image replay rebuilds equals the
/// captured code allocation, every byte, relocated words included; a
/// capsule of the touched pages replays bit-identically through it.
#[test]
fn relocated_code_images_match_the_capture_byte_for_byte() {
    if !have_hipcc() {
        return;
    }
    let prog = hip_app(
        "lathe-capture-test",
        "capture_reloc",
        &["libhsa_runtime64.so"],
    );
    let all = capture(
        "capture-reloc-all",
        &prog,
        &[],
        &["--capture-memory", "all"],
    );
    let whole = capsules(&all).remove(0);
    // The code object has what this test is about: an R_AMDGPU_RELATIVE64
    // and an R_AMDGPU_ABS64 against a symbol (relocation types 13 and 3,
    // read from `.rela.dyn` directly).
    let bytes = std::fs::read(whole.join("code/0.co")).expect("code object");
    let co = lathe_codeobj::CodeObject::parse(&bytes).expect("parse");
    let kinds: Vec<(u32, bool)> = co
        .relocations()
        .expect("relocations")
        .iter()
        .map(|r| (r.kind.raw(), r.symbol_name.is_some_and(|n| !n.is_empty())))
        .collect();
    assert!(kinds.contains(&(13, false)), "{kinds:?}");
    assert!(kinds.contains(&(3, true)), "{kinds:?}");
    assert_eq!(images_match_the_captured_code(&whole, true), 1);
    replays_identically(&whole, &all);
    let _ = std::fs::remove_dir_all(&all);
    let dir = capture("capture-reloc", &prog, &[], &[]);
    let c = capsules(&dir).remove(0);
    images_match_the_captured_code(&c, false);
    replays_identically(&c, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

fn have_dev_package(header: &str) -> bool {
    let ok = Path::new("/usr/include").join(header).exists();
    if !ok {
        assert!(
            !lathe_testkit::require_external(),
            "/usr/include/{header} is required (LATHE_REQUIRE_EXTERNAL=1); run scripts/setup.sh"
        );
        eprintln!("skipped: /usr/include/{header} missing (scripts/setup.sh installs it)");
    }
    ok
}

/// Builds one of lathe-hsa's library test programs.
fn library_app(name: &str, lib: &str) -> PathBuf {
    let srcdir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hsa/tests/hip");
    let dir = target_dir().join("lathe-capture-test");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let out = dir.join(name);
    let inc = format!("-I{}", srcdir.display());
    hipcc(&srcdir.join(format!("{name}.hip")), &out, &[&inc, lib]);
    out
}

#[test]
fn rocsparse_csrmv_replays_bit_identically_from_its_touched_code_pages() {
    if !have_hipcc() || !have_dev_package("rocsparse/rocsparse.h") {
        return;
    }
    let rs = library_app("rocsparse", "-lrocsparse");
    let dir = capture("capture-rocsparse", &rs, &[], &["--kernels", "csrmv"]);
    let caps = capsules(&dir);
    assert_eq!(caps.len(), 2, "{caps:?}");
    for c in &caps {
        let j = replays_identically(c, &dir);
        assert!(
            j["kernel"].as_str().unwrap_or_default().contains("csrmv"),
            "{j}"
        );
        // rocSPARSE's code allocation (megabytes) is stored as the few
        // pages the dispatch touched, which match the loaded image.
        images_match_the_captured_code(c, false);
        let m: Value =
            serde_json::from_str(&std::fs::read_to_string(c.join("capsule.json")).expect("read"))
                .expect("JSON");
        let code: u64 = m["allocations"]
            .as_array()
            .expect("allocations")
            .iter()
            .filter(|a| a["kind"] == "code")
            .map(|a| a["size"].as_u64().expect("size"))
            .sum();
        let stored = m["before_bytes"].as_u64().expect("before_bytes");
        assert!(stored * 10 < code, "{stored} bytes stored, code {code}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rocrand_generators_replay_bit_identically() {
    if !have_hipcc() || !have_dev_package("rocrand/rocrand.h") {
        return;
    }
    let rr = library_app("rocrand", "-lrocrand");
    // The first generator launches (philox uniform); xorwow's engine set-up
    // kernel takes tens of seconds on the emulator.
    let dir = capture(
        "capture-rocrand",
        &rr,
        &[],
        &["--kernels", "generate", "--launches", "0-1"],
    );
    let caps = capsules(&dir);
    assert_eq!(caps.len(), 2, "{caps:?}");
    for c in &caps {
        replays_identically(c, &dir);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--threads`, `--dump` and `--expect` on a replay, as `lathe run` has
/// them: the output allocation of `capture_reloc.hip`'s kernel, dumped as
/// i32, holds what a CPU computation of the kernel gives; the dump written
/// to a file is expected back by a replay on another thread count; one
/// altered byte in that file fails the replay, naming the offset.
#[test]
fn replay_threads_dump_and_expect() {
    if !have_hipcc() {
        return;
    }
    let prog = hip_app(
        "lathe-capture-test",
        "capture_reloc",
        &["libhsa_runtime64.so"],
    );
    let dir = capture("capture-dump", &prog, &[], &[]);
    let c = capsules(&dir).remove(0);
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(c.join("capsule.json")).expect("read"))
            .expect("JSON");
    // The kernel's first argument: the output vector's allocation.
    let (out, a) = first_pointer_allocation(&m);
    let base = m["allocations"][a]["base"].as_u64().expect("base");
    let at = ((out - base) / 4) as usize;
    let name = format!("a{a}");
    let file = dir.join("out.bin");
    let dump = format!("{name}:i32:out={}", file.display());
    let (ok, text) = replay(
        &c,
        &[
            "--threads",
            "1",
            "--dump",
            &format!("{name}:i32"),
            "--dump",
            &dump,
        ],
        &dir,
    );
    assert!(ok, "{text}");
    let j: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(j["threads"], 1, "{j}");
    assert_eq!(j["identical"], true, "{j}");
    let vals = j["dumps"][0]["values"].as_array().expect("values");
    let (first, second) = ([1i64, 2, 3, 4], [10i64, 20, 30, 40]);
    for i in 0..256usize {
        let v = if (i >> 1) & 1 == 1 { second } else { first }[i & 3];
        let want = if i & 1 == 1 { v * v } else { 2 * v };
        assert_eq!(vals[at + i].as_i64(), Some(want), "out[{i}]: {j}");
    }
    let bytes = std::fs::read(&file).expect("the dump file");
    assert_eq!(
        bytes.len() as u64,
        m["allocations"][a]["size"].as_u64().expect("size")
    );
    let expect = format!("{name}={}", file.display());
    let (ok, text) = replay(&c, &["--threads", "2", "--expect", &expect], &dir);
    assert!(ok, "{text}");
    let j: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(j["expect"][0]["matches"], true, "{j}");
    let mut bad = bytes.clone();
    bad[at * 4 + 40] ^= 1;
    std::fs::write(&file, &bad).expect("write");
    let (ok, text) = replay(&c, &["--expect", &expect], &dir);
    assert!(!ok, "{text}");
    let j = first_json(&text);
    assert_eq!(j["identical"], true, "{j}");
    assert_eq!(j["expect"][0]["matches"], false, "{j}");
    assert_eq!(j["expect"][0]["first_difference"], at * 4 + 40, "{j}");
    let _ = std::fs::remove_dir_all(&dir);
}

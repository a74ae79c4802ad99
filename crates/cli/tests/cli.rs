//! End-to-end tests of the `lathe` binary on real inputs, with the LLVM
//! tools as oracles.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::{lathe, lathe_json, lathe_ok};
use lathe_testkit::{llvm_tool, run, run_text, Build, Compress, Output};

fn tmpdir(name: &str) -> PathBuf {
    common::tmpdir(&format!("cli-{name}"))
}

/// A host shared library with a CCOB bundle for three targets.
fn shared_lib() -> PathBuf {
    let mut b = Build::new(
        "vecops.hip",
        &["gfx90a", "gfx942", "gfx1100"],
        Output::SharedLib,
    );
    b.compress = Some(Compress {
        version: 3,
        method: "zstd",
    });
    b.build()
}

/// `.hip_fatbin` of a host file, dumped by llvm-objcopy.
fn dump_fatbin(host: &Path, dir: &Path) -> PathBuf {
    let out = dir.join("fatbin.bin");
    run(Command::new(llvm_tool("llvm-objcopy"))
        .arg(format!("--dump-section=.hip_fatbin={}", out.display()))
        .arg(host)
        .arg(dir.join("stripped.o")));
    out
}

fn bundler_list(bundle: &Path) -> Vec<String> {
    let mut ids: Vec<String> = run_text(
        Command::new(llvm_tool("clang-offload-bundler"))
            .args(["--list", "--type=o"])
            .arg(format!("--input={}", bundle.display())),
    )
    .lines()
    .map(str::to_string)
    .collect();
    ids.sort();
    ids
}

fn bundler_unbundle(bundle: &Path, id: &str, out: &Path) -> Vec<u8> {
    run(Command::new(llvm_tool("clang-offload-bundler"))
        .args(["--unbundle", "--type=o"])
        .arg(format!("--input={}", bundle.display()))
        .arg(format!("--targets={id}"))
        .arg(format!("--output={}", out.display())));
    std::fs::read(out).expect("read unbundled")
}

#[test]
fn info_on_the_embedded_demo() {
    let text = lathe_ok(&["info"]);
    assert!(text.contains("embedded demo"), "{text}");
    assert!(
        text.contains("kernel _Z4axpyPfPKffi  [axpy(float*, float const*, float, int)]"),
        "{text}"
    );
    assert!(text.contains("device function _Z4polyf"), "{text}");
    assert!(text.contains("managed variable managed_total"), "{text}");
    let j = lathe_json(&["info"]);
    let cos = j["code_objects"].as_array().expect("array");
    let targets: Vec<&str> = cos.iter().filter_map(|c| c["target"].as_str()).collect();
    assert_eq!(targets, ["gfx90a", "gfx942", "gfx90a", "gfx942"]);
    // Six kernels (three per source) map to both targets.
    let maps = j["host"]["mappings"].as_array().expect("mappings");
    assert_eq!(maps.len(), 6);
    for m in maps {
        assert_eq!(m["images"].as_array().expect("images").len(), 2, "{m}");
    }
    for co in cos {
        assert!(
            co["check_warnings"]
                .as_array()
                .expect("warnings")
                .is_empty(),
            "{co}"
        );
    }
}

#[test]
fn bundle_list_matches_clang_offload_bundler() {
    let lib = shared_lib();
    let dir = tmpdir("list");
    let fatbin = dump_fatbin(&lib, &dir);
    let j = lathe_json(&["bundle", "list", lib.to_str().expect("path")]);
    let bundles = j["bundles"].as_array().expect("bundles");
    assert_eq!(bundles.len(), 1);
    let b = &bundles[0];
    assert_eq!(b["storage"]["format"], "ccob");
    assert_eq!(b["storage"]["version"], 3);
    assert_eq!(b["storage"]["method"], "zstd");
    assert_eq!(b["wrappers"].as_array().expect("wrappers").len(), 1);
    let mut ids: Vec<String> = b["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["id"].as_str().expect("id").to_string())
        .collect();
    ids.sort();
    assert_eq!(ids, bundler_list(&fatbin));
}

#[test]
fn extract_matches_clang_offload_bundler_byte_for_byte() {
    let lib = shared_lib();
    let dir = tmpdir("extract");
    let fatbin = dump_fatbin(&lib, &dir);
    let out = dir.join("out");
    let text = lathe_ok(&[
        "bundle",
        "extract",
        lib.to_str().expect("path"),
        "-t",
        "gfx942",
        "-t",
        "gfx1100",
        "--explain",
        "-o",
        out.to_str().expect("path"),
    ]);
    assert!(
        text.contains("refused"),
        "--explain says why entries were refused: {text}"
    );
    for (t, id) in [
        ("gfx942", "hipv4-amdgcn-amd-amdhsa--gfx942"),
        ("gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx1100"),
    ] {
        let ours = std::fs::read(out.join(format!("b000-{t}.co"))).expect("extracted");
        let theirs = bundler_unbundle(&fatbin, id, &dir.join(format!("{t}.ref")));
        assert!(
            ours == theirs,
            "{t}: extracted code object differs from clang-offload-bundler's"
        );
    }
    // A target nothing matches is reported, not silently skipped.
    let out2 = dir.join("none");
    let out = lathe(&[
        "bundle",
        "extract",
        lib.to_str().expect("path"),
        "-t",
        "gfx803",
        "-o",
        out2.to_str().expect("path"),
    ]);
    assert!(
        !out.status.success(),
        "a target nothing matches is an error"
    );
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("no entry for gfx803 at all"), "{text}");
}

#[test]
fn pack_roundtrips_through_clang_offload_bundler() {
    let dir = tmpdir("pack");
    let a = Build::new("reduce.hip", &["gfx90a"], Output::CodeObject).build();
    let b = Build::new("reduce.hip", &["gfx942"], Output::CodeObject).build();
    for (compress, version) in [
        (None, "3"),
        (Some("zlib"), "2"),
        (Some("zstd"), "3"),
        (Some("zstd"), "2"),
    ] {
        let out = dir.join(format!("packed-{compress:?}-{version}.bundle"));
        let mut args = vec![
            "bundle".to_string(),
            "pack".into(),
            "-e".into(),
            format!("hipv4-amdgcn-amd-amdhsa--gfx90a={}", a.display()),
            "-e".into(),
            format!("hipv4-amdgcn-amd-amdhsa--gfx942={}", b.display()),
            "-o".into(),
            out.display().to_string(),
        ];
        if let Some(c) = compress {
            args.push("--compress".into());
            args.push(c.into());
            args.push("--ccob-version".into());
            args.push(version.into());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        lathe_ok(&args);
        let ids = bundler_list(&out);
        assert!(
            ids.contains(&"hipv4-amdgcn-amd-amdhsa--gfx90a".to_string()),
            "{ids:?}"
        );
        let got = bundler_unbundle(
            &out,
            "hipv4-amdgcn-amd-amdhsa--gfx942",
            &dir.join("942.ref"),
        );
        assert!(
            got == std::fs::read(&b).expect("read"),
            "{compress:?} v{version}: payload changed"
        );
        // And Lathe reads back what it wrote.
        let j = lathe_json(&["bundle", "list", out.to_str().expect("path")]);
        assert_eq!(
            j["bundles"][0]["entries"]
                .as_array()
                .expect("entries")
                .len(),
            3
        );
    }
}

#[test]
fn bad_inputs_fail_with_clear_errors() {
    let dir = tmpdir("bad");
    let junk = dir.join("junk.bin");
    std::fs::write(&junk, b"definitely not an ELF file").expect("write");
    let out = lathe(&["info", junk.to_str().expect("path")]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not an ELF file, offload bundle or CCOB"),
        "{err}"
    );

    // A bundle cut short: the error names the entry and the offsets.
    let co = Build::new("vecops.hip", &["gfx90a"], Output::CodeObject).build();
    let packed = dir.join("p.bundle");
    lathe_ok(&[
        "bundle",
        "pack",
        "-e",
        &format!("hipv4-amdgcn-amd-amdhsa--gfx90a={}", co.display()),
        "-o",
        packed.to_str().expect("path"),
    ]);
    let bytes = std::fs::read(&packed).expect("read");
    let cut = dir.join("cut.bundle");
    std::fs::write(&cut, &bytes[..bytes.len() - 100]).expect("write");
    let out = lathe(&["bundle", "list", cut.to_str().expect("path")]);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(all.contains("lies outside the"), "{all}");
    assert!(all.contains("hipv4-amdgcn-amd-amdhsa--gfx90a"), "{all}");

    let out = lathe(&[
        "bundle",
        "extract",
        packed.to_str().expect("path"),
        "-t",
        "gfx90a:bogus+",
        "-o",
        "x",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid target ID 'gfx90a:bogus+'"));
    let missing = lathe(&["info", "/nonexistent/file"]);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot open /nonexistent/file"));
}

#[test]
fn disasm_llvm_format_matches_llvm_objdump() {
    for arch in ["gfx90a", "gfx942"] {
        let co = Build::new("reduce.hip", &[arch], Output::CodeObject).build();
        // llvm-objdump adds a file header and a section header; compared
        // from the first symbol label on.
        let (ours, theirs) = common::listings(&co, arch, &[]);
        assert!(!ours.is_empty());
        assert_eq!(ours, theirs, "{arch}: listing differs from llvm-objdump");
    }
}

#[test]
fn run_executes_a_kernel_and_writes_outputs() {
    let dir = tmpdir("run");
    let out = dir.join("y.bin");
    let text = lathe_ok(&[
        "run",
        "--kernel",
        "axpy",
        "--grid",
        "1000",
        "--block",
        "256",
        "-a",
        &format!("buf:y:4000:iota_f32:out={}", out.display()),
        "-a",
        "buf:x:4000:f32:2",
        "-a",
        "f32:0.5",
        "-a",
        "i32:1000",
        input::DEMO_PATH,
    ]);
    assert!(text.contains("16 waves"), "{text}");
    let y: Vec<f32> = std::fs::read(&out)
        .expect("output")
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4")))
        .collect();
    for (i, v) in y.iter().enumerate() {
        assert_eq!(*v, 0.5 * 2.0 + i as f32, "y[{i}]");
    }
    // The same launch as a JSON spec, on gfx942, with JSON output.
    let spec = dir.join("launch.json");
    std::fs::write(
        &spec,
        r#"{"kernel":"_Z4axpyPfPKffi","target":"gfx942","grid":[100],"block":[64],
            "args":[{"buffer":{"name":"y","size":400,"fill":"f32:1","output":"y2.bin"}},
                    {"buffer":{"name":"x","size":400,"fill":"iota_f32"}},{"f32":3.0},{"i32":100}]}"#,
    )
    .expect("spec");
    let j = lathe_json(&[
        "run",
        "--spec",
        spec.to_str().expect("path"),
        input::DEMO_PATH,
    ]);
    assert_eq!(j["waves"], 2);
    assert!(j["wave_instructions"].as_u64().expect("count") > 0);
    let y2 = std::fs::read(dir.join("y2.bin")).expect("output");
    assert_eq!(
        f32::from_le_bytes(y2[4 * 99..4 * 100].try_into().expect("4")),
        3.0 * 99.0 + 1.0
    );
    // A bad argument count names the kernel's parameters.
    let bad = lathe(&[
        "run",
        "--kernel",
        "axpy",
        "--grid",
        "64",
        "--block",
        "64",
        "-a",
        "f32:1",
        input::DEMO_PATH,
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("takes 4 explicit argument(s)"));
    // A buffer the host cannot back is a clean error, not an abort.
    let huge = lathe(&[
        "run",
        "--kernel",
        "axpy",
        "--grid",
        "64",
        "--block",
        "64",
        "-a",
        "buf:y:1000000000000000000:iota_f32",
        "-a",
        "buf:x:256",
        "-a",
        "f32:1",
        "-a",
        "i32:64",
        input::DEMO_PATH,
    ]);
    assert_eq!(huge.status.code(), Some(1), "{huge:?}");
    assert!(
        String::from_utf8_lossy(&huge.stderr)
            .contains("cannot allocate 1000000000000000000 bytes of device memory"),
        "{huge:?}"
    );
}

mod input {
    /// The demo library shipped with the CLI.
    pub const DEMO_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/demo/libdemo.so");
}

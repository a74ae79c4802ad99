//! `liblathe_tool.so` uses the public HSA API only: it links against no
//! HSA runtime symbol at all (every HSA function is an entry of the API
//! table `OnLoad` receives), any `hsa_*`/`amd_*` symbol it did import would
//! have to be declared in Debian's HSA headers, and every table entry it
//! reads or replaces is a function those headers declare, found in the
//! `hsa_api_trace.h` table.

use std::path::{Path, PathBuf};

use object::{Object, ObjectSymbol};

/// `target/<profile>`, from the test executable (`target/<profile>/deps/…`).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    exe.parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps")
        .to_path_buf()
}

/// Every Debian HSA header's text (libhsa-runtime-dev).
fn headers() -> String {
    let dir = Path::new("/usr/include/hsa");
    assert!(
        dir.is_dir(),
        "/usr/include/hsa is missing: scripts/setup.sh installs libhsa-runtime-dev"
    );
    let mut all = String::new();
    for e in std::fs::read_dir(dir).expect("read /usr/include/hsa") {
        let p = e.expect("dir entry").path();
        if p.extension().is_some_and(|x| x == "h") {
            all += &std::fs::read_to_string(&p).expect("read header");
        }
    }
    all
}

fn declared(headers: &str, name: &str) -> bool {
    headers.match_indices(name).any(|(i, _)| {
        let after = headers[i + name.len()..].trim_start();
        let before_ok = !headers[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        before_ok && after.starts_with('(')
    })
}

#[test]
fn imports_no_hsa_symbol_outside_the_public_headers() {
    let lib = target_dir().join("liblathe_tool.so");
    assert!(
        lib.is_file(),
        "{} is not built: run `cargo build --workspace` with this profile first (scripts/test.sh does)",
        lib.display()
    );
    let bytes = std::fs::read(&lib).expect("read liblathe_tool.so");
    let file = object::File::parse(&*bytes).expect("parse liblathe_tool.so");
    let headers = headers();
    let mut undefined = 0;
    for s in file.dynamic_symbols().filter(|s| s.is_undefined()) {
        let name = s.name().expect("symbol name");
        undefined += 1;
        assert!(
            !name.contains("lathe"),
            "liblathe_tool.so imports {name}: a Lathe runtime internal"
        );
        if name.starts_with("hsa_") || name.starts_with("amd_") || name.starts_with("_amd") {
            assert!(
                declared(&headers, name),
                "liblathe_tool.so imports {name}, which Debian's HSA headers do not declare"
            );
        }
    }
    assert!(
        undefined > 0,
        "no undefined symbols read: the parse is wrong"
    );
    // It exports the tools contract's entry points.
    let exports: Vec<String> = file
        .dynamic_symbols()
        .filter(|s| !s.is_undefined())
        .filter_map(|s| s.name().ok().map(str::to_string))
        .collect();
    for e in ["OnLoad", "OnUnload"] {
        assert!(exports.iter().any(|x| x == e), "{e} is not exported");
    }
}

#[test]
fn every_table_entry_used_is_a_public_function() {
    let headers = headers();
    let trace = std::fs::read_to_string("/usr/include/hsa/hsa_api_trace.h")
        .expect("read hsa_api_trace.h (libhsa-runtime-dev)");
    let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/api.rs"))
        .expect("read src/api.rs");
    let mut names: Vec<&str> = src
        .split('"')
        .skip(1)
        .step_by(2)
        .filter(|s| s.starts_with("hsa_") && s.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .collect();
    names.sort_unstable();
    names.dedup();
    assert!(names.len() >= 20, "found only {names:?} in src/api.rs");
    for n in names {
        assert!(
            declared(&headers, n),
            "{n} is not declared in Debian's HSA headers"
        );
        assert!(
            trace.contains(&format!("{n}_fn")),
            "{n} has no entry in hsa_api_trace.h's table"
        );
    }
}

//! The GPU agents `LATHE_TARGET` models (issue 23, D42): an HSA program
//! (tests/c/agent_info.c, gcc against Debian's ROCm 5.2 headers) reads
//! each agent's properties, compared here with the products' public
//! specifications; a clang-22 kernel (tests/hip/iota3.hip) runs on the
//! CDNA4, RDNA3 and RDNA4 agents, checked on the host (gfx1030's code runs
//! since D65, gfx1100's since D77, gfx1201's since D85).

mod support;

use std::path::PathBuf;
use std::process::{Command, Output};

use support::{have, run};

/// What a modelled product is, from AMD's spec sheets and ROCm's GPU
/// specification table.
struct Product {
    target: &'static str,
    product: &'static str,
    isa: &'static str,
    wave: u32,
    cus: u32,
    /// LDS bytes per work-group.
    lds: u32,
    l2: u32,
    /// PCI device ID.
    chip: &'static str,
}

const PRODUCTS: [Product; 6] = [
    Product {
        target: "gfx90a",
        product: "AMD Instinct MI210",
        isa: "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-",
        wave: 64,
        cus: 104,
        lds: 65536,
        l2: 8 << 20,
        chip: "0x740f",
    },
    Product {
        target: "gfx942",
        product: "AMD Instinct MI300X",
        isa: "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-",
        wave: 64,
        cus: 304,
        lds: 65536,
        l2: 4 << 20,
        chip: "0x74a1",
    },
    Product {
        target: "gfx950",
        product: "AMD Instinct MI355X",
        isa: "amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-",
        wave: 64,
        cus: 256,
        lds: 160 << 10,
        l2: 4 << 20,
        chip: "0x75a3",
    },
    Product {
        target: "gfx1030",
        product: "AMD Radeon RX 6800",
        isa: "amdgcn-amd-amdhsa--gfx1030",
        wave: 32,
        cus: 60,
        lds: 65536,
        l2: 4 << 20,
        chip: "0x73bf",
    },
    Product {
        target: "gfx1100",
        product: "AMD Radeon RX 7900 XTX",
        isa: "amdgcn-amd-amdhsa--gfx1100",
        wave: 32,
        cus: 96,
        lds: 65536,
        l2: 6 << 20,
        chip: "0x744c",
    },
    Product {
        target: "gfx1201",
        product: "AMD Radeon RX 9070 XT",
        isa: "amdgcn-amd-amdhsa--gfx1201",
        wave: 32,
        cus: 64,
        lds: 65536,
        l2: 8 << 20,
        chip: "0x7550",
    },
];

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The value of `key: value` in the program's output.
fn field<'a>(out: &'a str, key: &str) -> &'a str {
    out.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(": "))
        .unwrap_or_else(|| panic!("no {key:?} line in:\n{out}"))
}

/// Built once: the tests run in parallel, and rebuilding a program
/// another test is running fails with ETXTBSY.
fn agent_info() -> PathBuf {
    static EXE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    EXE.get_or_init(|| support::gcc("agent_info", &[])).clone()
}

#[test]
fn every_modelled_agent_reports_its_product() {
    if !have("gcc") {
        return;
    }
    let exe = agent_info();
    for p in PRODUCTS {
        let Product {
            target,
            product,
            isa,
            wave,
            cus,
            lds,
            l2,
            chip,
        } = p;
        let o = run(&exe, &[], &[("LATHE_TARGET", target)]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{target}: {err}");
        assert_eq!(field(&out, "name"), target);
        assert_eq!(field(&out, "product"), product);
        // The ISA name also round-trips through hsa_isa_from_name.
        assert_eq!(field(&out, "isa"), isa);
        assert_eq!(field(&out, "wave"), wave.to_string(), "{target}");
        assert_eq!(field(&out, "isa wave"), wave.to_string(), "{target}");
        assert_eq!(field(&out, "cus"), cus.to_string(), "{target}");
        assert_eq!(field(&out, "lds"), lds.to_string(), "{target}");
        assert_eq!(field(&out, "l2"), l2.to_string(), "{target}");
        assert_eq!(field(&out, "chip"), chip, "{target}");
        assert_eq!(field(&out, "cacheline"), "128", "{target}");
        // RDNA: 2 SIMD32 per CU; CDNA: 4 SIMD16.
        let simds = if wave == 32 { "2" } else { "4" };
        assert_eq!(field(&out, "simds"), simds, "{target}");
        assert_eq!(field(&out, "waves per cu"), "32", "{target}");
    }
    // No LATHE_TARGET: the MI210.
    let o = run(&exe, &[], &[]);
    assert_eq!(field(&text(&o).0, "product"), "AMD Instinct MI210");
}

#[test]
fn an_unmodelled_or_impossible_target_fails_hsa_init_saying_why() {
    if !have("gcc") {
        return;
    }
    let exe = agent_info();
    for (target, want) in [
        (
            "gfx1031",
            "no gfx1031 agent is modelled (modelled: gfx90a (AMD Instinct MI210)",
        ),
        ("gfx1030:sramecc+", "sramecc"),
        ("gfx4242", "gfx4242 is not an AMDGPU processor"),
    ] {
        let o = run(&exe, &[], &[("LATHE_TARGET", target)]);
        let (_, err) = text(&o);
        assert!(!o.status.success(), "{target}");
        assert!(
            err.contains("hsa_init failed") && err.contains(want),
            "{target}: {err}"
        );
    }
}

/// `tests/hip/iota3.hip` built by clang-22 for `arch` (extra flags after).
fn iota3(arch: &str, extra: &[&str]) -> PathBuf {
    let out = support::out_dir().join(format!("iota3-{arch}{}.co", extra.join("")));
    let o = Command::new(lathe_testkit::llvm_tool("clang++"))
        .args([
            "-x",
            "hip",
            "-nogpuinc",
            "-nogpulib",
            "-O2",
            "--cuda-device-only",
        ])
        .args(["--no-gpu-bundle-output", &format!("--offload-arch={arch}")])
        .args(extra)
        .arg("-I")
        .arg(lathe_testkit::workspace_root().join("corpus/include"))
        .arg(support::src("hip/iota3.hip"))
        .arg("-o")
        .arg(&out)
        .output()
        .expect("clang++");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

#[test]
fn cdna4_rdna3_and_rdna4_agents_run_their_code() {
    if !have("gcc") {
        return;
    }
    let exe = agent_info();
    // gfx1100 runs since D77 and gfx1201 since D85, in both wave sizes
    // (every modelled agent runs its code: none stops at dispatch).
    for (arch, extra) in [
        ("gfx950", &[][..]),
        ("gfx90a", &[][..]),
        ("gfx1100", &[][..]),
        ("gfx1100", &["-mwavefrontsize64"][..]),
        ("gfx1201", &[][..]),
        ("gfx1201", &["-mwavefrontsize64"][..]),
    ] {
        let co = iota3(arch, extra);
        let o = run(
            &exe,
            &[co.to_str().expect("utf-8")],
            &[("LATHE_TARGET", arch)],
        );
        let (out, err) = text(&o);
        assert_eq!(field(&out, "name"), arch);
        assert!(
            o.status.success() && out.contains("dispatch: ok"),
            "{arch} {extra:?}: {out}\n{err}"
        );
    }
}

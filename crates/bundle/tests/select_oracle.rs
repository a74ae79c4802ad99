//! Compatibility under `Policy::Clang` for same-processor entries agrees
//! with clang-offload-bundler's `isCodeObjectCompatible`: for every (code
//! object target, agent target) pair, clang-offload-bundler extracts the
//! entry when asked for the agent's target exactly when `judge` accepts it.

mod common;

use common::*;
use lathe_bundle::select::{judge, select, Match, Policy};
use lathe_bundle::{Bundle, BundleWriter, TargetId};
use lathe_testkit::{Build, Output};

const TARGETS: &[&str] = &[
    "gfx90a",
    "gfx90a:xnack+",
    "gfx90a:xnack-",
    "gfx90a:sramecc+",
    "gfx90a:sramecc-",
    "gfx90a:sramecc+:xnack-",
    "gfx90a:sramecc-:xnack+",
    "gfx942",
];

#[test]
fn clang_compatibility_matrix() {
    let co = {
        let p = Build::new("reduce.hip", &["gfx90a"], Output::CodeObject).build();
        std::fs::read(p).expect("read code object")
    };
    let dir = scratch("select-oracle");
    let mut agreed = 0;
    for (i, code) in TARGETS.iter().enumerate() {
        for kind in ["hip", "hipv4"] {
            let id = format!("{kind}-amdgcn-amd-amdhsa--{code}");
            let mut w = BundleWriter::new();
            w.add_host("x86_64-unknown-linux-gnu-");
            w.add(id.clone(), co.as_slice());
            let bytes = w.to_vec();
            let file = write(&dir, &format!("b{i}-{kind}.bin"), &bytes);
            let bundle = Bundle::parse(&bytes).expect("parse");
            let entry = bundle.find(&id).expect("entry");
            for agent in TARGETS {
                let want = format!("hipv4-amdgcn-amd-amdhsa--{agent}");
                let clang = !oracle_unbundle(&file, &want, &dir).is_empty();
                let a: TargetId = agent.parse().expect("agent");
                let ours = judge(entry, &a, Policy::Clang);
                assert_eq!(
                    ours.is_ok(),
                    clang,
                    "code {id} on agent {agent}: clang says {clang}, we say {ours:?}"
                );
                if ours.is_ok() {
                    assert!(matches!(ours, Ok(Match::Exact | Match::SameProcessor)));
                }
                agreed += 1;
            }
        }
    }
    assert_eq!(agreed, TARGETS.len() * 2 * TARGETS.len());
}

#[test]
fn explanation_names_every_entry() {
    let co = {
        let p = Build::new("reduce.hip", &["gfx90a"], Output::CodeObject).build();
        std::fs::read(p).expect("read code object")
    };
    let mut w = BundleWriter::new();
    w.add_host("x86_64-unknown-linux-gnu-");
    for t in TARGETS {
        w.add(format!("hipv4-amdgcn-amd-amdhsa--{t}"), co.as_slice());
    }
    let bytes = w.to_vec();
    let b = Bundle::parse(&bytes).expect("parse");
    let s = select(
        b.entries(),
        &"gfx90a:sramecc+:xnack-".parse().expect("agent"),
        Policy::Clang,
    );
    assert_eq!(s.chosen, Some(6));
    assert_eq!(s.how, Some(Match::Exact));
    let text = s.explain_text();
    for t in TARGETS {
        assert!(
            text.contains(&format!("--{t}:")),
            "{t} missing from:\n{text}"
        );
    }
    assert!(text.contains("refused: host entry"));
    assert!(text.contains("requires xnack+ but the agent has xnack-"));
    assert!(text.contains("gfx942 code does not run on gfx90a"));
    assert!(text.contains("outranked by entry 6"));
}

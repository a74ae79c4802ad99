//! Choosing the code object for an agent.
//!
//! Owns the compatibility rules between a bundle entry's target ID and an
//! agent's target ID, the ranking of compatible entries, and the
//! human-readable explanation of every decision.
//!
//! Rules:
//!
//! * Only `hip`/`hipv4` entries for `amdgcn-amd-amdhsa` are considered
//!   (clang treats the two kinds as compatible).
//! * Features follow clang-offload-bundler's `isCodeObjectCompatible`: a
//!   feature the code object leaves unspecified runs with any agent
//!   setting; a feature it specifies (`xnack-`) requires the agent to
//!   specify the same value.
//! * Processors: the same processor; under [`Policy::Clang`] and
//!   [`Policy::Extended`] also a generic target listing the agent's
//!   processor; under [`Policy::Extended`] also the ISA-compatible
//!   processors of the Debian/Solus ROCm patches (gfx900/902/909/90c code on
//!   gfx900/902/906/909/90c; gfx1010/1012 code on gfx1010–gfx1013;
//!   gfx1030–gfx1036 among themselves).
//!
//! Ranking: exact target ID, then same processor, then extended
//! compatibility, then generic target. Ties are broken by the number of
//! features the entry specifies (more specific first), then `hipv4` before
//! `hip`, then the lower entry index.

use std::fmt;

use crate::bundle::{Bundle, Entry};
use crate::ccob::CcobHeader;
use crate::error::{Limits, Result};
use crate::id::OffloadKind;
use crate::target::{FeatureSetting, Processor, TargetId, TargetIdError};

/// Which processors may stand in for the agent's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Only the agent's exact target ID.
    Exact,
    /// clang/ROCm rules: same processor with compatible features, or a
    /// generic target containing it.
    Clang,
    /// [`Policy::Clang`] plus the extended ISA compatibility of the
    /// Debian/Solus ROCm packages.
    Extended,
}

/// Why an entry is usable, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Match {
    /// The entry's target ID equals the agent's.
    Exact,
    /// Same processor, compatible features.
    SameProcessor,
    /// A different but ISA-compatible processor ([`Policy::Extended`]).
    Extended,
    /// A generic target whose members include the agent's processor.
    Generic,
}

impl fmt::Display for Match {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Match::Exact => "exact target ID",
            Match::SameProcessor => "same processor, compatible features",
            Match::Extended => "extended ISA compatibility",
            Match::Generic => "generic target covering the agent",
        })
    }
}

/// Why an entry was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The host entry.
    Host,
    /// The ID does not have the `<kind>-<triple>...` shape.
    Unparsed,
    /// Not a `hip`/`hipv4` entry.
    Kind {
        /// The kind found.
        kind: String,
    },
    /// Not an `amdgcn-amd-amdhsa` triple.
    Triple {
        /// The triple found.
        triple: String,
    },
    /// A SPIR-V entry (`spirv64-amd-amdhsa--amdgcnspirv`): portable code
    /// that must first be compiled for the agent, which Lathe does not do.
    Spirv {
        /// The triple found.
        triple: String,
    },
    /// No target after the triple.
    NoTarget,
    /// The target is not a valid AMDGPU target ID.
    BadTarget {
        /// The target as written.
        target: String,
        /// Why it did not parse.
        error: TargetIdError,
    },
    /// Unrelated processors.
    Processor {
        /// The entry's processor.
        entry: Processor,
        /// The agent's processor.
        agent: Processor,
    },
    /// The processors are compatible only under a wider policy.
    Policy {
        /// The match the wider policy would allow.
        would_be: Match,
        /// The policy in force.
        policy: Policy,
    },
    /// A feature the entry specifies differs from the agent's setting.
    Feature {
        /// `xnack` or `sramecc`.
        feature: &'static str,
        /// The entry's setting.
        entry: FeatureSetting,
        /// The agent's setting.
        agent: FeatureSetting,
    },
    /// The entry has no bytes.
    Empty,
}

fn setting(f: &'static str, s: FeatureSetting) -> String {
    match s.sign() {
        Some(c) => format!("{f}{c}"),
        None => format!("{f} unspecified"),
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Host => f.write_str("host entry"),
            Refusal::Unparsed => f.write_str("ID is not <kind>-<triple>[-<target>]"),
            Refusal::Kind { kind } => write!(f, "offload kind `{kind}` is not hip/hipv4"),
            Refusal::Triple { triple } => write!(f, "triple `{triple}` is not amdgcn-amd-amdhsa"),
            Refusal::Spirv { triple } => write!(
                f,
                "SPIR-V entry (triple `{triple}`): it must be compiled for the agent first \
                 (as the HIP runtime does at load time), which Lathe does not do yet"
            ),
            Refusal::NoTarget => f.write_str("no target ID"),
            Refusal::BadTarget { target, error } => write!(f, "target `{target}`: {error}"),
            Refusal::Processor { entry, agent } => {
                write!(f, "{entry} code does not run on {agent}")
            }
            Refusal::Policy { would_be, policy } => write!(
                f,
                "{would_be} is not allowed by the {} policy",
                match policy {
                    Policy::Exact => "exact",
                    Policy::Clang => "clang",
                    Policy::Extended => "extended",
                }
            ),
            Refusal::Feature {
                feature,
                entry,
                agent,
            } => write!(
                f,
                "code object requires {} but the agent has {}",
                setting(feature, *entry),
                setting(feature, *agent)
            ),
            Refusal::Empty => f.write_str("entry is empty"),
        }
    }
}

/// The decision for one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Chosen.
    Taken(Match),
    /// Usable, but a better-ranked entry was chosen.
    Outranked {
        /// How it matches.
        how: Match,
        /// The chosen entry's index.
        by: usize,
    },
    /// Not usable.
    Refused(Refusal),
}

/// The decision for one entry, with its ID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// Entry index.
    pub index: usize,
    /// Entry ID (lossy UTF-8).
    pub id: String,
    /// The decision.
    pub verdict: Verdict,
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}: ", self.index, self.id)?;
        match &self.verdict {
            Verdict::Taken(m) => write!(f, "taken ({m})"),
            Verdict::Outranked { how, by } => {
                write!(f, "compatible ({how}) but outranked by entry {by}")
            }
            Verdict::Refused(r) => write!(f, "refused: {r}"),
        }
    }
}

/// The outcome of [`select`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// The agent.
    pub agent: TargetId,
    /// The policy used.
    pub policy: Policy,
    /// Index of the chosen entry, if any.
    pub chosen: Option<usize>,
    /// How the chosen entry matches.
    pub how: Option<Match>,
    /// One explanation per entry, in entry order.
    pub explain: Vec<Explanation>,
}

impl Selection {
    /// The chosen entry among `entries` (the slice passed to [`select`]).
    pub fn entry<'e, 'a>(&self, entries: &'e [Entry<'a>]) -> Option<&'e Entry<'a>> {
        self.chosen.and_then(|i| entries.get(i))
    }

    /// Multi-line text for `--explain`.
    pub fn explain_text(&self) -> String {
        let mut s = format!("agent {} (policy {:?}):\n", self.agent, self.policy);
        for e in &self.explain {
            s.push_str("  ");
            s.push_str(&e.to_string());
            s.push('\n');
        }
        if self.chosen.is_none() {
            s.push_str("  no compatible code object\n");
        }
        s
    }
}

/// Whether code for `code` runs on `agent` under the extended rules
/// (different processors only).
pub fn extended_compatible(code: Processor, agent: Processor) -> bool {
    const GFX9_CODE: &[&str] = &["gfx900", "gfx902", "gfx909", "gfx90c"];
    const GFX9_AGENTS: &[&str] = &["gfx900", "gfx902", "gfx906", "gfx909", "gfx90c"];
    const GFX101_CODE: &[&str] = &["gfx1010", "gfx1012"];
    const GFX101_AGENTS: &[&str] = &["gfx1010", "gfx1011", "gfx1012", "gfx1013"];
    const GFX103: &[&str] = &[
        "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036",
    ];
    if code == agent {
        return false;
    }
    let (c, a) = (code.name(), agent.name());
    (GFX9_CODE.contains(&c) && GFX9_AGENTS.contains(&a))
        || (GFX101_CODE.contains(&c) && GFX101_AGENTS.contains(&a))
        || (GFX103.contains(&c) && GFX103.contains(&a))
}

/// Judges one entry against the agent under a policy.
pub fn judge(entry: &Entry<'_>, agent: &TargetId, policy: Policy) -> Result<Match, Refusal> {
    let id = &entry.id;
    let Some(p) = id.parsed() else {
        return Err(Refusal::Unparsed);
    };
    if p.kind == OffloadKind::Host {
        return Err(Refusal::Host);
    }
    if !p.kind.is_hip() {
        return Err(Refusal::Kind {
            kind: p.kind.as_str().to_owned(),
        });
    }
    if !p.triple.is_amdgcn_amdhsa() {
        if p.triple.to_string().starts_with("spirv") {
            return Err(Refusal::Spirv {
                triple: p.triple.to_string(),
            });
        }
        return Err(Refusal::Triple {
            triple: p.triple.to_string(),
        });
    }
    let Some(target) = p.target else {
        return Err(Refusal::NoTarget);
    };
    let tid = match (p.target_id, p.target_error()) {
        (Some(t), _) => t,
        (None, Some(error)) => {
            return Err(Refusal::BadTarget {
                target: target.to_owned(),
                error,
            })
        }
        (None, None) => return Err(Refusal::NoTarget),
    };
    let code = tid.processor;
    let how = if tid == *agent {
        Match::Exact
    } else if code == agent.processor {
        Match::SameProcessor
    } else if code.is_generic() && code.generic_members().contains(&agent.processor.name()) {
        Match::Generic
    } else if extended_compatible(code, agent.processor) {
        Match::Extended
    } else {
        return Err(Refusal::Processor {
            entry: code,
            agent: agent.processor,
        });
    };
    let allowed = match policy {
        Policy::Exact => how == Match::Exact,
        Policy::Clang => how != Match::Extended,
        Policy::Extended => true,
    };
    if !allowed {
        return Err(Refusal::Policy {
            would_be: how,
            policy,
        });
    }
    for (feature, e, a) in [
        ("sramecc", tid.sramecc, agent.sramecc),
        ("xnack", tid.xnack, agent.xnack),
    ] {
        if e != FeatureSetting::Any && e != a {
            return Err(Refusal::Feature {
                feature,
                entry: e,
                agent: a,
            });
        }
    }
    if entry.data.is_empty() {
        return Err(Refusal::Empty);
    }
    Ok(how)
}

fn specificity(entry: &Entry<'_>) -> u8 {
    entry.id.target_id().map_or(0, |t| {
        u8::from(t.sramecc != FeatureSetting::Any) + u8::from(t.xnack != FeatureSetting::Any)
    })
}

/// Chooses the best entry for `agent`, explaining every decision.
pub fn select(entries: &[Entry<'_>], agent: &TargetId, policy: Policy) -> Selection {
    let judged: Vec<_> = entries.iter().map(|e| judge(e, agent, policy)).collect();
    let best = entries
        .iter()
        .enumerate()
        .zip(&judged)
        .filter_map(|((pos, e), j)| j.as_ref().ok().map(|m| (pos, e, *m)))
        .min_by_key(|(pos, e, m)| {
            (
                *m,
                std::cmp::Reverse(specificity(e)),
                e.id.kind() != Some(OffloadKind::HipV4),
                *pos,
            )
        })
        .map(|(pos, _, m)| (pos, m));
    let explain = entries
        .iter()
        .enumerate()
        .zip(judged)
        .map(|((pos, e), j)| Explanation {
            index: e.index,
            id: e.id.to_string_lossy(),
            verdict: match (j, best) {
                (Ok(m), Some((b, _))) if b == pos => Verdict::Taken(m),
                (Ok(m), Some((b, _))) => Verdict::Outranked {
                    how: m,
                    by: entries.get(b).map_or(b, |x| x.index),
                },
                (Ok(m), None) => Verdict::Taken(m),
                (Err(r), _) => Verdict::Refused(r),
            },
        })
        .collect();
    Selection {
        agent: *agent,
        policy,
        chosen: best.map(|b| b.0),
        how: best.map(|b| b.1),
        explain,
    }
}

/// A selection made in a bundle given as bytes (plain or CCOB).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chosen {
    /// The decision and its explanation.
    pub selection: Selection,
    /// The CCOB header if the bundle was compressed.
    pub compressed: Option<CcobHeader>,
    /// A copy of the chosen entry's bytes.
    pub code_object: Option<Vec<u8>>,
}

/// Selects from a bundle given as bytes, decompressing a CCOB first.
pub fn select_bytes(
    data: &[u8],
    agent: &TargetId,
    policy: Policy,
    limits: &Limits,
) -> Result<Chosen> {
    let (compressed, owned) = if data.starts_with(crate::ccob::MAGIC) {
        let (h, d) = crate::ccob::decompress(data, limits)?;
        (Some(h), Some(d))
    } else {
        (None, None)
    };
    let bytes = owned.as_deref().unwrap_or(data);
    let bundle = Bundle::parse_with(bytes, limits)?;
    let selection = select(bundle.entries(), agent, policy);
    let code_object = selection.entry(bundle.entries()).map(|e| e.data.to_vec());
    Ok(Chosen {
        selection,
        compressed,
        code_object,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::EntryId;

    fn entry(index: usize, id: &'static str) -> Entry<'static> {
        Entry {
            index,
            id: EntryId::parse_str(id),
            offset: 4096,
            data: b"\x7fELF",
        }
    }

    fn agent(s: &str) -> TargetId {
        s.parse().expect("agent")
    }

    #[test]
    fn ranking_prefers_exact_then_specific() {
        let es = [
            entry(0, "host-x86_64-unknown-linux-gnu-"),
            entry(1, "hipv4-amdgcn-amd-amdhsa--gfx9-4-generic"),
            entry(2, "hipv4-amdgcn-amd-amdhsa--gfx942"),
            entry(3, "hipv4-amdgcn-amd-amdhsa--gfx942:xnack-"),
            entry(4, "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"),
        ];
        let s = select(&es, &agent("gfx942:sramecc+:xnack-"), Policy::Clang);
        assert_eq!(s.chosen, Some(4));
        assert_eq!(s.how, Some(Match::Exact));
        assert_eq!(s.explain[0].verdict, Verdict::Refused(Refusal::Host));
        assert_eq!(
            s.explain[1].verdict,
            Verdict::Outranked {
                how: Match::Generic,
                by: 4
            }
        );
        // Without the exact entry, the most specific same-processor wins.
        let s = select(&es[..4], &agent("gfx942:sramecc+:xnack-"), Policy::Clang);
        assert_eq!(s.chosen, Some(3));
        assert_eq!(s.how, Some(Match::SameProcessor));
        // Only the generic one left.
        let s = select(&es[..2], &agent("gfx942:sramecc+:xnack-"), Policy::Clang);
        assert_eq!(s.how, Some(Match::Generic));
        let s = select(&es[..2], &agent("gfx942:sramecc+:xnack-"), Policy::Exact);
        assert_eq!(s.chosen, None);
        assert_eq!(
            s.explain[1].verdict,
            Verdict::Refused(Refusal::Policy {
                would_be: Match::Generic,
                policy: Policy::Exact
            })
        );
    }

    #[test]
    fn features_follow_clang() {
        let es = [entry(0, "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-")];
        // Agent with xnack+ refuses xnack- code.
        let s = select(&es, &agent("gfx90a:xnack+"), Policy::Extended);
        assert_eq!(
            s.explain[0].verdict,
            Verdict::Refused(Refusal::Feature {
                feature: "xnack",
                entry: FeatureSetting::Off,
                agent: FeatureSetting::On
            })
        );
        // Agent with xnack unspecified also refuses code that specifies it.
        let s = select(&es, &agent("gfx90a"), Policy::Clang);
        assert_eq!(s.chosen, None);
        // Code with xnack unspecified runs anywhere.
        let any = [entry(0, "hip-amdgcn-amd-amdhsa-gfx90a")];
        assert_eq!(
            select(&any, &agent("gfx90a:xnack+"), Policy::Clang).how,
            Some(Match::SameProcessor)
        );
    }

    #[test]
    fn extended_policy() {
        let es = [
            entry(0, "hip-amdgcn-amd-amdhsa-gfx900"),
            entry(1, "hip-amdgcn-amd-amdhsa-gfx1030"),
        ];
        let s = select(&es, &agent("gfx906:xnack-"), Policy::Clang);
        assert_eq!(s.chosen, None);
        assert_eq!(
            s.explain[0].verdict,
            Verdict::Refused(Refusal::Policy {
                would_be: Match::Extended,
                policy: Policy::Clang
            })
        );
        let s = select(&es, &agent("gfx906:xnack-"), Policy::Extended);
        assert_eq!((s.chosen, s.how), (Some(0), Some(Match::Extended)));
        let s = select(&es, &agent("gfx1035"), Policy::Extended);
        assert_eq!(s.chosen, Some(1));
        // gfx906 code does not run on gfx900 even when extended.
        let es = [entry(0, "hip-amdgcn-amd-amdhsa-gfx906")];
        let s = select(&es, &agent("gfx900"), Policy::Extended);
        assert!(matches!(
            s.explain[0].verdict,
            Verdict::Refused(Refusal::Processor { .. })
        ));
        assert!(s
            .explain_text()
            .contains("gfx906 code does not run on gfx900"));
    }

    #[test]
    fn tie_break_is_deterministic() {
        let es = [
            entry(0, "hip-amdgcn-amd-amdhsa-gfx1100"),
            entry(1, "hipv4-amdgcn-amd-amdhsa--gfx1100"),
            entry(2, "hipv4-amdgcn-amd-amdhsa--gfx1100"),
        ];
        // Agent gfx1100 has no features: every entry is an exact match;
        // hipv4 beats hip, then the lower index.
        let s = select(&es, &agent("gfx1100"), Policy::Clang);
        assert_eq!(s.chosen, Some(1));
    }
}

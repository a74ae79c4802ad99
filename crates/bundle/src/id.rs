//! Bundle entry IDs: `<kind>-<triple>[-<target id>]`.
//!
//! Owns parsing of the ID strings found in bundle entry tables and in
//! `__CLANG_OFFLOAD_BUNDLE__<id>` section names. Three shapes occur in the
//! wild:
//!
//! * `hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-`: four-part triple with an
//!   empty environment, then the target ID (clang ≥ 13);
//! * `hip-amdgcn-amd-amdhsa-gfx906`: three-part triple directly followed by
//!   the processor (ROCm ≤ 5.x);
//! * `host-x86_64-unknown-linux-gnu-` or `host-x86_64-unknown-linux`: no
//!   target.
//!
//! Target names may contain dashes (`gfx9-4-generic`), so the target is
//! everything after the triple. Parsing never fails as a whole: the raw
//! bytes are always kept, and a target that is not a known AMDGPU target ID
//! (`amdgcnspirv`, `sm_80`) is kept as a string.

use std::fmt;

use crate::target::{TargetId, TargetIdError};

/// The offload kind, the first component of an entry ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OffloadKind<'a> {
    /// `host`: the host object (usually empty in HIP bundles).
    Host,
    /// `hip`: code object v2/v3 era HIP, also used by clang for rdc bitcode.
    Hip,
    /// `hipv4`: HIP code object v4 and later.
    HipV4,
    /// `openmp`.
    OpenMp,
    /// Anything else.
    Other(&'a str),
}

impl<'a> OffloadKind<'a> {
    fn parse(s: &'a str) -> Self {
        match s {
            "host" => OffloadKind::Host,
            "hip" => OffloadKind::Hip,
            "hipv4" => OffloadKind::HipV4,
            "openmp" => OffloadKind::OpenMp,
            other => OffloadKind::Other(other),
        }
    }

    /// The kind as written.
    pub fn as_str(self) -> &'a str {
        match self {
            OffloadKind::Host => "host",
            OffloadKind::Hip => "hip",
            OffloadKind::HipV4 => "hipv4",
            OffloadKind::OpenMp => "openmp",
            OffloadKind::Other(s) => s,
        }
    }

    /// `hip` or `hipv4` (clang treats the two as compatible).
    pub fn is_hip(self) -> bool {
        matches!(self, OffloadKind::Hip | OffloadKind::HipV4)
    }
}

/// A target triple as it appears in an entry ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Triple<'a> {
    /// Architecture (`amdgcn`, `x86_64`, `spirv64`).
    pub arch: &'a str,
    /// Vendor (`amd`, `unknown`, `pc`).
    pub vendor: &'a str,
    /// Operating system (`amdhsa`, `linux`).
    pub os: &'a str,
    /// Environment: `None` for a three-part triple, `Some("")` for the
    /// empty environment of `amdgcn-amd-amdhsa-`.
    pub env: Option<&'a str>,
}

impl Triple<'_> {
    /// `amdgcn-amd-amdhsa` with any environment.
    pub fn is_amdgcn_amdhsa(&self) -> bool {
        self.arch == "amdgcn" && self.vendor == "amd" && self.os == "amdhsa"
    }
}

impl fmt::Display for Triple<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}-{}", self.arch, self.vendor, self.os)?;
        if let Some(env) = self.env {
            write!(f, "-{env}")?;
        }
        Ok(())
    }
}

/// The structured form of an entry ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedId<'a> {
    /// Offload kind.
    pub kind: OffloadKind<'a>,
    /// Target triple.
    pub triple: Triple<'a>,
    /// Target part after the triple, if any (`gfx90a:xnack-`, `amdgcnspirv`).
    pub target: Option<&'a str>,
    /// The target parsed as an AMDGPU target ID; `None` when there is no
    /// target part or it is not a valid target ID (see
    /// [`ParsedId::target_error`]).
    pub target_id: Option<TargetId>,
}

impl ParsedId<'_> {
    /// Why the target part is not a valid AMDGPU target ID (`None` when it
    /// is valid or absent).
    pub fn target_error(&self) -> Option<TargetIdError> {
        self.target.and_then(|t| t.parse::<TargetId>().err())
    }
}

/// A bundle entry ID: the raw bytes plus, when they have the expected shape,
/// the parsed form.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct EntryId<'a> {
    raw: &'a [u8],
    parsed: Option<ParsedId<'a>>,
}

impl<'a> EntryId<'a> {
    /// Parses raw ID bytes. Trailing NUL bytes are stripped first (some
    /// producers include the terminator in the length). Never fails.
    pub fn parse(raw: &'a [u8]) -> EntryId<'a> {
        let end = raw.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        let raw = raw.get(..end).unwrap_or(raw);
        let parsed = std::str::from_utf8(raw).ok().and_then(parse_str);
        EntryId { raw, parsed }
    }

    /// Parses an ID string.
    pub fn parse_str(s: &'a str) -> EntryId<'a> {
        EntryId::parse(s.as_bytes())
    }

    /// The raw ID bytes (without trailing NULs).
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// The raw ID if it is valid UTF-8.
    pub fn as_str(&self) -> Option<&'a str> {
        std::str::from_utf8(self.raw).ok()
    }

    /// The raw ID as a string, with invalid UTF-8 replaced.
    pub fn to_string_lossy(&self) -> String {
        String::from_utf8_lossy(self.raw).into_owned()
    }

    /// The parsed form, if the ID has the `<kind>-<triple>...` shape.
    pub fn parsed(&self) -> Option<&ParsedId<'a>> {
        self.parsed.as_ref()
    }

    /// The offload kind, if parsed.
    pub fn kind(&self) -> Option<OffloadKind<'a>> {
        self.parsed.map(|p| p.kind)
    }

    /// Whether this is the host entry.
    pub fn is_host(&self) -> bool {
        self.kind() == Some(OffloadKind::Host)
    }

    /// The triple, if parsed.
    pub fn triple(&self) -> Option<Triple<'a>> {
        self.parsed.map(|p| p.triple)
    }

    /// The target part as written, if any.
    pub fn target_str(&self) -> Option<&'a str> {
        self.parsed.and_then(|p| p.target)
    }

    /// The AMDGPU target ID, if the target part parses as one.
    pub fn target_id(&self) -> Option<TargetId> {
        self.parsed.and_then(|p| p.target_id)
    }
}

impl fmt::Debug for EntryId<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EntryId({:?})", String::from_utf8_lossy(self.raw))
    }
}

impl fmt::Display for EntryId<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(self.raw))
    }
}

/// Whether `s` looks like a device target rather than a triple environment:
/// a known processor, or an architecture-style name.
fn looks_like_target(s: &str) -> bool {
    let proc = s.split(':').next().unwrap_or(s);
    crate::target::Processor::from_name(proc).is_some()
        || proc.starts_with("gfx")
        || proc.starts_with("sm_")
        || proc == "amdgcnspirv"
}

fn parse_str(s: &str) -> Option<ParsedId<'_>> {
    let (kind, rest) = s.split_once('-')?;
    let (arch, rest) = rest.split_once('-')?;
    let (vendor, rest) = rest.split_once('-')?;
    if kind.is_empty() || arch.is_empty() {
        return None;
    }
    let (os, after_os) = match rest.split_once('-') {
        Some((os, after)) => (os, Some(after)),
        None => (rest, None),
    };
    let (env, target) = match after_os {
        None => (None, None),
        Some(r) => {
            if r.is_empty() {
                // `...-amdhsa-`: empty environment, no target.
                (Some(""), None)
            } else if let Some(t) = r.strip_prefix('-') {
                // `...-amdhsa--gfx90a`: empty environment, then target.
                (Some(""), Some(t))
            } else if looks_like_target(r) {
                // Old `...-amdhsa-gfx906` (three-part triple).
                (None, Some(r))
            } else {
                match r.split_once('-') {
                    Some((env, t)) => (Some(env), Some(t)),
                    None => (Some(r), None),
                }
            }
        }
    };
    let target = target.filter(|t| !t.is_empty());
    Some(ParsedId {
        kind: OffloadKind::parse(kind),
        triple: Triple {
            arch,
            vendor,
            os,
            env,
        },
        target,
        target_id: target.and_then(|t| t.parse::<TargetId>().ok()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::FeatureSetting;

    fn p(s: &str) -> EntryId<'_> {
        EntryId::parse_str(s)
    }

    #[test]
    fn modern_hipv4() {
        let id = p("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-");
        assert_eq!(id.kind(), Some(OffloadKind::HipV4));
        let t = id.triple().expect("triple");
        assert_eq!(t.to_string(), "amdgcn-amd-amdhsa-");
        assert_eq!(id.target_str(), Some("gfx90a:xnack-"));
        let tid = id.target_id().expect("target id");
        assert_eq!(tid.processor.name(), "gfx90a");
        assert_eq!(tid.xnack, FeatureSetting::Off);
    }

    #[test]
    fn old_three_part() {
        let id = p("hip-amdgcn-amd-amdhsa-gfx906");
        assert_eq!(id.kind(), Some(OffloadKind::Hip));
        assert_eq!(id.triple().expect("triple").env, None);
        assert_eq!(id.target_str(), Some("gfx906"));
        let g = p("hip-amdgcn-amd-amdhsa-gfx9-4-generic:sramecc+");
        assert_eq!(g.target_str(), Some("gfx9-4-generic:sramecc+"));
        assert!(g.target_id().expect("generic").processor.is_generic());
    }

    #[test]
    fn generic_with_dashes() {
        let id = p("hipv4-amdgcn-amd-amdhsa--gfx10-3-generic");
        assert_eq!(id.target_str(), Some("gfx10-3-generic"));
        assert_eq!(
            id.target_id().expect("tid").processor.name(),
            "gfx10-3-generic"
        );
    }

    #[test]
    fn host_forms() {
        for s in [
            "host-x86_64-unknown-linux-gnu-",
            "host-x86_64-unknown-linux-gnu",
            "host-x86_64-unknown-linux",
            "host-x86_64-pc-linux-gnu-",
        ] {
            let id = p(s);
            assert!(id.is_host(), "{s}");
            assert_eq!(id.target_str(), None, "{s}");
        }
        assert_eq!(
            p("host-x86_64-unknown-linux").triple().expect("t").env,
            None
        );
        assert_eq!(
            p("host-x86_64-unknown-linux-gnu-").triple().expect("t").env,
            Some("gnu")
        );
    }

    #[test]
    fn spirv_and_unknown_targets() {
        let id = p("hip-spirv64-amd-amdhsa--amdgcnspirv");
        assert_eq!(id.target_str(), Some("amdgcnspirv"));
        assert!(id.target_id().is_none());
        assert!(matches!(
            id.parsed().expect("parsed").target_error(),
            Some(TargetIdError::UnknownProcessor { .. })
        ));
    }

    #[test]
    fn trailing_nuls_and_garbage() {
        let id = EntryId::parse(b"hipv4-amdgcn-amd-amdhsa--gfx1100\0\0");
        assert_eq!(id.as_str(), Some("hipv4-amdgcn-amd-amdhsa--gfx1100"));
        assert!(id.target_id().is_some());
        let bad = EntryId::parse(b"\xff\xfe-x");
        assert!(bad.parsed().is_none());
        assert_eq!(bad.raw(), b"\xff\xfe-x");
        assert!(p("justtext").parsed().is_none());
        assert!(p("").parsed().is_none());
        assert!(p("-a-b-c").parsed().is_none());
    }
}

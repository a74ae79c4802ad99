//! Symbol names as users type them: demangling, and the one rule every tool
//! uses to find a kernel or function from a pattern.
//!
//! A pattern matches a symbol, in this order of preference:
//!
//! 1. its mangled name exactly (a trailing `.kd` is ignored);
//! 2. its demangled name exactly, as `lathe info` prints it
//!    (`axpy(float*, float const*, float, int)`), or spelled as in the
//!    source (`axpy(float *, const float*, float, int)`: compared in
//!    [`canonical_signature`] form);
//! 3. its qualified name without parameters (`ns::fib_kernel<int>`), or the
//!    last component of it without template arguments (`fib_kernel`);
//! 4. a prefix of any of these (`_Z10fib`, `fib_k`, `axpy(float*`).
//!
//! The first rule that matches decides: one symbol is the answer, several
//! are an ambiguity, none moves on to the next rule. A miss or an ambiguity
//! is a [`NameError`] listing candidates with both names.

use std::fmt;

/// The demangled form of an Itanium-mangled name, or `None` if `name` is not
/// mangled (or cannot be demangled).
pub fn demangle(name: &str) -> Option<String> {
    if !name.starts_with("_Z") {
        return None;
    }
    let sym = cpp_demangle::Symbol::new(name).ok()?;
    let s = sym
        .demangle(&cpp_demangle::DemangleOptions::default())
        .ok()?;
    (s != name).then_some(s)
}

/// The qualified name in a demangled function name, without its return
/// type and parameter list: `ns::f<int>(int*)` → `ns::f<int>`,
/// `void ns::(anonymous namespace)::g<1>(int)` → `ns::(anonymous namespace)::g<1>`.
pub fn without_parameters(demangled: &str) -> &str {
    let head = &demangled[..params_start(demangled).unwrap_or(demangled.len())];
    // A template function's name is preceded by its return type: keep what
    // follows the last space outside brackets.
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in head.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ' ' if depth == 0 => start = i + 1,
            _ => {}
        }
    }
    &head[start..]
}

/// Where the parameter list of a demangled function name starts: the `(`
/// matching the last top-level `)`.
fn params_start(demangled: &str) -> Option<usize> {
    let end = demangled.rfind(')')?;
    let mut depth = 0i32;
    for (i, c) in demangled[..=end].char_indices().rev() {
        match c {
            ')' | '>' | ']' => depth += 1,
            '(' | '<' | '[' => {
                depth -= 1;
                if depth == 0 {
                    return (c == '(' && i > 0).then_some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The parameter types of a demangled function name, split at top-level
/// commas: `f(float*, std::pair<int, int>)` → `["float*", "std::pair<int, int>"]`.
/// Empty for `f()` or `f(void)`, `None` without a parameter list.
pub fn parameters(demangled: &str) -> Option<Vec<&str>> {
    let rest = demangled.get(params_start(demangled)? + 1..)?;
    // The list ends at the matching ')'.
    let mut depth = 0i32;
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in rest.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ']' => depth -= 1,
            ')' if depth == 0 => {
                let last = rest[start..i].trim();
                let only_void = out.is_empty() && last == "void";
                if !last.is_empty() && !only_void {
                    out.push(last);
                }
                return Some(out);
            }
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(rest[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    None
}

/// A demangled name or a source-spelled signature in one canonical form,
/// so `reduce_sum(const float*, int)` (as C++ prints it) and
/// `reduce_sum(float const*, int)` (as the demangler prints it) compare
/// equal: spaces collapsed and dropped around `*`, `&` and `,`; in each
/// parameter a leading `const`/`volatile` moved after the type it
/// qualifies; a by-value parameter's top-level `const` dropped (it is not
/// part of the mangled name).
pub fn canonical_signature(s: &str) -> String {
    let Some(open) = params_start(s) else {
        return squeeze(s);
    };
    let Some(params) = parameters(s) else {
        return squeeze(s);
    };
    let close = s.rfind(')').unwrap_or(s.len());
    let head = squeeze(&s[..open]);
    let tail = squeeze(s.get(close + 1..).unwrap_or(""));
    let params: Vec<String> = params.iter().map(|p| canonical_param(p)).collect();
    format!("{head}({}){tail}", params.join(", "))
}

/// Spaces collapsed, none before `*`/`&`/`,`/`)` nor after `(`.
fn squeeze(s: &str) -> String {
    let words: Vec<&str> = s.split_whitespace().collect();
    let mut out = words.join(" ");
    for (from, to) in [
        (" *", "*"),
        (" &", "&"),
        (" ,", ","),
        (" )", ")"),
        ("( ", "("),
    ] {
        while out.contains(from) {
            out = out.replace(from, to);
        }
    }
    out
}

fn canonical_param(p: &str) -> String {
    let p = squeeze(p);
    // The type's words before its first `*`/`&`/`[`/`(` (the declarator).
    let split = p.find(['*', '&', '[', '(']).unwrap_or(p.len());
    let (base, decl) = p.split_at(split);
    let mut quals = Vec::new();
    let mut words = Vec::new();
    for w in base.split_whitespace() {
        if w == "const" || w == "volatile" {
            quals.push(w);
        } else {
            words.push(w);
        }
    }
    if quals.is_empty() || p.contains('<') {
        return p;
    }
    if decl.is_empty() {
        // By value: the top-level qualifier is not part of the type.
        return words.join(" ");
    }
    format!("{} {}{decl}", words.join(" "), quals.join(" "))
}

/// The last component of a qualified name, without template arguments:
/// `ns::f<int>` → `f`, `a::b::c` → `c`.
pub fn unqualified(qualified: &str) -> &str {
    // Drop a trailing template argument list.
    let mut base = qualified;
    if base.ends_with('>') {
        let mut depth = 0i32;
        for (i, c) in base.char_indices().rev() {
            match c {
                '>' => depth += 1,
                '<' => {
                    depth -= 1;
                    if depth == 0 {
                        base = &base[..i];
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    // Last `::` outside template arguments.
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = base.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => {
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    &base[start..]
}

/// A candidate shown in a [`NameError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The symbol name as stored (mangled).
    pub mangled: String,
    /// Its demangled form, if it is mangled.
    pub demangled: Option<String>,
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.demangled {
            Some(d) => write!(f, "{}  [{d}]", self.mangled),
            None => f.write_str(&self.mangled),
        }
    }
}

/// Why a pattern did not select exactly one symbol.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NameError {
    /// Nothing matched.
    #[error("no {what} matches '{pattern}'{}", list(candidates, *more, "; candidates"))]
    Missing {
        /// What was looked for (`kernel`, `function`).
        what: String,
        /// The pattern.
        pattern: String,
        /// Symbols that exist (those containing the pattern if any do, else
        /// all), at most [`MAX_LISTED`].
        candidates: Vec<Candidate>,
        /// How many more were not listed.
        more: usize,
    },
    /// Several symbols matched at the same rule.
    #[error("'{pattern}' matches {} {what}s{}", candidates.len() + more, list(candidates, *more, "; give more of the name"))]
    Ambiguous {
        /// What was looked for.
        what: String,
        /// The pattern.
        pattern: String,
        /// The matching symbols, at most [`MAX_LISTED`].
        candidates: Vec<Candidate>,
        /// How many more matched.
        more: usize,
    },
}

impl NameError {
    /// The candidates listed.
    pub fn candidates(&self) -> &[Candidate] {
        match self {
            NameError::Missing { candidates, .. } | NameError::Ambiguous { candidates, .. } => {
                candidates
            }
        }
    }
}

/// Candidates listed at most in a [`NameError`].
pub const MAX_LISTED: usize = 20;

fn list(c: &[Candidate], more: usize, head: &str) -> String {
    if c.is_empty() {
        return " (there are none)".into();
    }
    let mut s = format!("{head}:");
    for x in c {
        s.push_str("\n  ");
        s.push_str(&x.to_string());
    }
    if more > 0 {
        s.push_str(&format!("\n  ... and {more} more"));
    }
    s
}

struct Entry<'a> {
    mangled: &'a str,
    demangled: Option<String>,
}

impl Entry<'_> {
    fn qualified(&self) -> Option<&str> {
        self.demangled.as_deref().map(without_parameters)
    }
    fn short(&self) -> &str {
        match self.qualified() {
            Some(q) => unqualified(q),
            None => self.mangled,
        }
    }
    fn candidate(&self) -> Candidate {
        Candidate {
            mangled: self.mangled.to_string(),
            demangled: self.demangled.clone(),
        }
    }
}

/// Finds the one symbol among `names` that `pattern` selects (see the
/// module docs); `what` names the kind of symbol in errors. Duplicate names
/// count once.
pub fn resolve<'a, I>(pattern: &str, names: I, what: &str) -> Result<&'a str, NameError>
where
    I: IntoIterator<Item = &'a str>,
{
    let pattern = pattern.trim();
    let pattern_sym = pattern.strip_suffix(".kd").unwrap_or(pattern);
    let mut all: Vec<&'a str> = names.into_iter().collect();
    all.sort_unstable();
    all.dedup();
    // Rule 1 without demangling anything.
    if let Some(&n) = all.iter().find(|&&n| n == pattern_sym) {
        return Ok(n);
    }
    let entries: Vec<Entry<'a>> = all
        .iter()
        .map(|&m| Entry {
            mangled: m,
            demangled: demangle(m),
        })
        .collect();
    let canonical = canonical_signature(pattern);
    let rules: [&dyn Fn(&Entry<'_>) -> bool; 3] = [
        &|e| {
            e.demangled.as_deref() == Some(pattern)
                || e.demangled
                    .as_deref()
                    .is_some_and(|d| canonical_signature(d) == canonical)
        },
        &|e| e.qualified() == Some(pattern) || e.short() == pattern,
        &|e| {
            e.mangled.starts_with(pattern)
                || e.demangled
                    .as_deref()
                    .is_some_and(|d| d.starts_with(pattern))
                || e.short().starts_with(pattern)
        },
    ];
    for rule in rules {
        let hits: Vec<&Entry<'a>> = entries.iter().filter(|e| rule(e)).collect();
        match hits.len() {
            0 => continue,
            1 => return Ok(hits[0].mangled),
            n => {
                return Err(NameError::Ambiguous {
                    what: what.into(),
                    pattern: pattern.into(),
                    candidates: hits
                        .iter()
                        .take(MAX_LISTED)
                        .map(|e| e.candidate())
                        .collect(),
                    more: n.saturating_sub(MAX_LISTED),
                })
            }
        }
    }
    // A miss: list those that contain the pattern somewhere, else all.
    let lower = pattern.to_lowercase();
    let near: Vec<&Entry<'a>> = entries
        .iter()
        .filter(|e| {
            !lower.is_empty()
                && (e.mangled.to_lowercase().contains(&lower)
                    || e.demangled
                        .as_deref()
                        .is_some_and(|d| d.to_lowercase().contains(&lower)))
        })
        .collect();
    let shown: Vec<&Entry<'a>> = if near.is_empty() {
        entries.iter().collect()
    } else {
        near
    };
    Err(NameError::Missing {
        what: what.into(),
        pattern: pattern.into(),
        candidates: shown
            .iter()
            .take(MAX_LISTED)
            .map(|e| e.candidate())
            .collect(),
        more: shown.len().saturating_sub(MAX_LISTED),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 5] = [
        "_Z4axpyPfPKffi",
        "_Z10fib_kernelPii",
        "_Z10fib_helperPi",
        "_ZN3jax12_GLOBAL__N_127LuPivotsToPermutationKernelILi1EEEvPKiPii",
        "plain_c_kernel",
    ];

    #[test]
    fn source_spelling_of_a_signature() {
        assert_eq!(
            resolve("axpy(float*, const float*, float, int)", NAMES, "kernel"),
            Ok("_Z4axpyPfPKffi")
        );
        assert_eq!(
            resolve(
                "axpy(float *, float const *, const float, int)",
                NAMES,
                "kernel"
            ),
            Ok("_Z4axpyPfPKffi")
        );
        assert!(resolve("axpy(const float*, float*, float, int)", NAMES, "kernel").is_err());
        assert_eq!(
            canonical_signature("f(const unsigned int*, volatile int&)"),
            "f(unsigned int const*, int volatile&)"
        );
    }

    #[test]
    fn rules() {
        let r = |p: &str| resolve(p, NAMES, "kernel");
        assert_eq!(r("_Z4axpyPfPKffi"), Ok("_Z4axpyPfPKffi"));
        assert_eq!(r("_Z4axpyPfPKffi.kd"), Ok("_Z4axpyPfPKffi"));
        assert_eq!(
            r("axpy(float*, float const*, float, int)"),
            Ok("_Z4axpyPfPKffi")
        );
        assert_eq!(r("axpy"), Ok("_Z4axpyPfPKffi"));
        assert_eq!(r("fib_k"), Ok("_Z10fib_kernelPii"));
        assert_eq!(r("_Z10fib_k"), Ok("_Z10fib_kernelPii"));
        assert_eq!(r("LuPivotsToPermutationKernel"), Ok(NAMES[3]));
        assert_eq!(r("plain"), Ok("plain_c_kernel"));
        let e = r("_Z10fib").expect_err("ambiguous");
        assert!(matches!(e, NameError::Ambiguous { .. }), "{e}");
        let s = e.to_string();
        assert!(s.contains("_Z10fib_helperPi  [fib_helper(int*)]"), "{s}");
        let e = r("nothing").expect_err("missing");
        assert_eq!(e.candidates().len(), 5, "{e}");
        let e = r("kernel_x").expect_err("missing");
        assert!(
            e.to_string().contains("no kernel matches 'kernel_x'"),
            "{e}"
        );
    }

    #[test]
    fn name_parts() {
        assert_eq!(
            without_parameters("ns::f<int (*)(int)>(int*)"),
            "ns::f<int (*)(int)>"
        );
        assert_eq!(unqualified("a::b<c::d>::f<int>"), "f");
        assert_eq!(unqualified("f"), "f");
        assert_eq!(
            without_parameters("void jax::(anonymous namespace)::K<1>(int const*, int*)"),
            "jax::(anonymous namespace)::K<1>"
        );
        assert_eq!(demangle("main"), None);
        assert_eq!(
            parameters("f(float*, std::pair<int, int>, void (*)(int))"),
            Some(vec!["float*", "std::pair<int, int>", "void (*)(int)"])
        );
        assert_eq!(parameters("f()"), Some(vec![]));
        assert_eq!(parameters("f"), None);
    }
}

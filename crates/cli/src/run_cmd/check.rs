//! `lathe run --check`: the sanitizer on the single-kernel runner, with the
//! checkers, reports and exit status of `lathe exec --check`
//! ([`crate::exec_check`], docs/decisions.md D29). The emulator's findings
//! of each launch are rendered by [`lathe_emu::check::report`] with the
//! session's code objects for places and source lines, printed as they
//! come, and folded at the end.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::Result;
use lathe_codeobj::lines::{Frame, Lines};
use lathe_emu::check::report::{render, Places};
use lathe_emu::check::{CheckHook, Checker, Kind};
use lathe_emu::session::Session;

use crate::exec_check::{checks_of, fold, parse, probe_json};

/// A checked `lathe run`.
pub(super) struct RunCheck {
    checker: &'static Checker,
    checkers: Vec<&'static str>,
    json: Option<PathBuf>,
    /// Every finding, a JSON object per line.
    log: String,
    printed: HashSet<(Kind, u64)>,
}

impl RunCheck {
    /// `--check LIST [--check-json PATH]`: bad names and an unwritable path
    /// are refused before anything runs.
    pub(super) fn new(list: &str, json: Option<&Path>) -> Result<RunCheck> {
        let checkers = parse(list)?;
        probe_json(json)?;
        // One checker per process, as the runtime has: the dispatch option
        // holds a `'static` reference.
        let checker: &'static Checker = Box::leak(Box::new(Checker::new(checks_of(&checkers))));
        Ok(RunCheck {
            checker,
            checkers,
            json: json.map(Path::to_path_buf),
            log: String::new(),
            printed: HashSet::new(),
        })
    }

    /// The dispatch option turning the emulator's checks on.
    pub(super) fn hook(&self) -> CheckHook {
        CheckHook(self.checker)
    }

    /// After a launch of `kernel` (its symbol name) with work-groups of
    /// `block`: prints the new findings, keeps them for the summary.
    pub(super) fn after_launch(&mut self, session: &Session, kernel: &str, block: [u32; 3]) {
        let (hits, dropped) = self.checker.take();
        if hits.is_empty() && dropped == 0 {
            return;
        }
        let places = RunPlaces {
            session,
            lines: Default::default(),
        };
        let block = block.map(|b| u16::try_from(b).unwrap_or(u16::MAX));
        let (log, text) = render(&hits, kernel, block, &places, &mut self.printed);
        self.log.push_str(&log);
        eprint!("{text}");
        if dropped > 0 {
            eprintln!("========= {dropped} more findings in {kernel} were counted but not kept");
        }
    }

    /// Folds, prints the summary, writes `--check-json`; whether anything
    /// was reported.
    pub(super) fn finish(self) -> Result<bool> {
        fold(&self.log, &self.checkers, self.json.as_deref())
    }
}

/// The source frames at `pc` in the session's code objects: `None`
/// outside them, empty without DWARF.
pub(super) fn source_in(session: &Session, pc: u64) -> Option<Vec<Frame>> {
    session
        .exe
        .code_objects()
        .iter()
        .find(|c| pc >= c.load_base && pc < c.load_base + c.load_size)
        .map(|c| {
            Lines::new(&c.storage)
                .map_or_else(Vec::new, |l| l.frames(pc.wrapping_sub(c.load_delta as u64)))
        })
}

/// PCs in the session's code objects.
struct RunPlaces<'a> {
    session: &'a Session,
    lines: std::cell::RefCell<HashMap<u64, Vec<Frame>>>,
}

impl Places for RunPlaces<'_> {
    fn place(&self, pc: u64) -> String {
        super::report::place_of(self.session, pc)
    }
    fn frames(&self, pc: u64) -> Vec<Frame> {
        if let Some(f) = self.lines.borrow().get(&pc) {
            return f.clone();
        }
        let f = source_in(self.session, pc).unwrap_or_default();
        self.lines.borrow_mut().insert(pc, f.clone());
        f
    }
}

//! Output helpers: the global flags, JSON printing, progress bars, and
//! quiet handling of a closed stdout (`lathe ... | head`).

use std::io::{self, Write};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Global output settings.
#[derive(Debug, Clone, Copy)]
pub struct Ctx {
    /// `--json`.
    pub json: bool,
    /// Show progress bars (on stderr, only when it is a terminal).
    pub progress: bool,
}

/// Marker error: stdout was closed by the reader; exit quietly.
#[derive(Debug)]
pub struct BrokenPipe;

impl std::fmt::Display for BrokenPipe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("broken pipe")
    }
}

impl std::error::Error for BrokenPipe {}

/// Maps an I/O error on stdout to [`BrokenPipe`] when the pipe closed.
pub fn stdout_err(e: io::Error) -> anyhow::Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        anyhow::Error::new(BrokenPipe)
    } else {
        anyhow::Error::new(e).context("cannot write to stdout")
    }
}

/// Writes `text` to stdout.
pub fn print(text: &str) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes()).map_err(stdout_err)?;
    out.flush().map_err(stdout_err)
}

/// Prints a JSON value, pretty, with a trailing newline.
pub fn print_json(value: &serde_json::Value) -> anyhow::Result<()> {
    let mut s = serde_json::to_string_pretty(value)?;
    s.push('\n');
    print(&s)
}

/// A byte-count progress bar on stderr, hidden unless stderr is a terminal
/// and progress is enabled.
pub fn byte_bar(ctx: &Ctx, total: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if !ctx.progress || !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// Human-readable byte size.
pub fn human_size(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Progress as a line on stderr every few seconds, for when stderr is not
/// a terminal (a log, a CI job) and the bar would not show: only for work
/// of at least `min` units, and not with `--quiet`.
pub struct ProgressLines {
    what: &'static str,
    total: u64,
    on: bool,
    every: std::time::Duration,
    last: std::time::Instant,
}

/// Time between two [`ProgressLines`] lines: `LATHE_PROGRESS_INTERVAL`
/// seconds, else 3.
fn progress_line_every() -> std::time::Duration {
    std::env::var("LATHE_PROGRESS_INTERVAL")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map_or(
            std::time::Duration::from_secs(3),
            std::time::Duration::from_secs_f64,
        )
}

impl ProgressLines {
    /// Lines about `total` bytes of `what`.
    pub fn bytes(ctx: &Ctx, what: &'static str, total: u64, min: u64) -> Self {
        ProgressLines {
            what,
            total,
            on: ctx.progress && total >= min && !std::io::IsTerminal::is_terminal(&io::stderr()),
            every: progress_line_every(),
            last: std::time::Instant::now(),
        }
    }

    /// `done` bytes so far: a line if the last one is a few seconds old.
    pub fn update(&mut self, done: u64) {
        if !self.on || self.last.elapsed() < self.every {
            return;
        }
        self.last = std::time::Instant::now();
        eprintln!(
            "lathe: {}: {} of {} ({:.0}%)",
            self.what,
            human_size(done),
            human_size(self.total),
            100.0 * done as f64 / self.total.max(1) as f64
        );
    }
}

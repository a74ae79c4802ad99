#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod builtin;
pub mod hip;

use std::sync::Arc;

use lathe_dbi::{addr_map, rewrite, Program};
use lathe_emu::session::{BufferOut, Session, SessionError};

/// Errors of an instrumented run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Instrumenting (or reading the tool's data back) failed.
    #[error(transparent)]
    Dbi(#[from] lathe_dbi::Error),
    /// Loading or running on the emulator failed.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The instrumented kernel stopped (a fault, the watchdog, a signal):
    /// worded as the emulator's stop; [`Stopped`] keeps the session to
    /// report it in original terms.
    #[error("{}", .0.error)]
    Stopped(Box<Stopped>),
}

/// An instrumented launch that stopped before it finished
/// ([`builtin::run`], [`hip::run`]): the session and buffers as they
/// were, and what names the instrumented code in the original's terms.
#[derive(Debug)]
pub struct Stopped {
    /// The session the launch ran in.
    pub session: Session,
    /// The launch's buffers (their contents at the stop).
    pub buffers: Vec<BufferOut>,
    /// Why it stopped ([`lathe_emu::run::DispatchError::Stopped`]).
    pub error: SessionError,
    /// The instrumented code object, as loaded into the session.
    pub code_object: Vec<u8>,
    /// Its instrumented → original addresses.
    pub addr_map: addr_map::AddrMap,
    /// Its instrumentation sites.
    pub sites: Vec<rewrite::Site>,
    /// The lifted original (its instructions by original address).
    pub program: Arc<Program>,
}

/// Runs `kernel` in `session`. A stopped dispatch comes back as
/// [`Ran::Stopped`] with the session and buffers as they were, for the
/// caller to keep with its build ([`Error::Stopped`]); any other failure
/// is an error.
fn launch(
    session: Session,
    kernel: &str,
    shape: lathe_emu::session::Shape,
    args: &[lathe_emu::launch::Arg],
    opts: &lathe_emu::run::Options,
    record: bool,
) -> Result<Ran, Error> {
    if record {
        let (report, buffers, rec) = session.launch_recorded(kernel, shape, args, opts)?;
        return Ok(Ran::Done(Launched {
            session,
            report,
            buffers,
            record: Some(rec),
        }));
    }
    let mut pool = Vec::new();
    match session.launch_in(kernel, shape, args, opts, &mut pool, &mut |_| {}) {
        Ok(report) => Ok(Ran::Done(Launched {
            session,
            report,
            buffers: pool,
            record: None,
        })),
        Err(error) if is_stop(&error) => Ok(Ran::Stopped(session, pool, error)),
        Err(e) => Err(e.into()),
    }
}

/// How [`launch`] ended.
enum Ran {
    /// The dispatch finished.
    Done(Launched),
    /// The dispatch stopped: the session, its buffers and why.
    Stopped(Session, Vec<BufferOut>, SessionError),
}

/// What [`launch`] returns.
struct Launched {
    session: Session,
    report: lathe_emu::run::Report,
    buffers: Vec<BufferOut>,
    record: Option<lathe_emu::record::Recorder>,
}

/// Whether a launch error is a stopped dispatch (kept as [`Error::Stopped`]).
fn is_stop(e: &SessionError) -> bool {
    matches!(
        e,
        SessionError::Dispatch(lathe_emu::run::DispatchError::Stopped { .. })
    )
}

/// A reading-back error.
fn probe_data(e: impl std::fmt::Display) -> Error {
    Error::Dbi(lathe_dbi::Error::ProbeData(e.to_string()))
}

/// The objects to load, with the one that defines `kernel` replaced by
/// `instrument`'s build of it: (objects, the build, the kernel's full
/// name).
fn instrument_defining<B>(
    objects: &[&[u8]],
    kernel: &str,
    mut instrument: impl FnMut(&[u8], &str) -> Result<(B, Vec<u8>), lathe_dbi::Error>,
) -> Result<(Vec<Vec<u8>>, B, String), Error> {
    let mut built = None;
    let mut objs = Vec::with_capacity(objects.len() + 1);
    let mut resolved = kernel.to_string();
    for o in objects {
        match lathe_dbi::tools::kernel_named(o, kernel) {
            Some(name) if built.is_none() => {
                let (b, co) = instrument(o, &name)?;
                objs.push(co);
                built = Some(b);
                resolved = name;
            }
            _ => objs.push(o.to_vec()),
        }
    }
    let b = built.ok_or_else(|| lathe_dbi::Error::NoFunction(kernel.to_string()))?;
    Ok((objs, b, resolved))
}

/// Refuses a kernel the rewriter skipped for lack of registers.
fn check_skipped(skipped: &[(String, String)], kernel: &str) -> Result<(), Error> {
    match skipped.iter().find(|(k, _)| k == kernel) {
        Some((_, why)) => Err(lathe_dbi::Error::NoRegisters {
            function: kernel.to_string(),
            why: why.clone(),
        }
        .into()),
        None => Ok(()),
    }
}

//! `mcpdesc tap -- COMMAND…` over stdio: the server runs as the tap's child, its standard
//! input and output pass through the tap, and the tap ends with the server.

use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};

use crate::exit::ExitCode;
use crate::tap_check::Checker;
use crate::tap_pump::{self, Dir, Lines};

/// How long the server's output is still forwarded after the server exited.
const DRAIN: Duration = Duration::from_secs(2);
/// How long a server may run on once its client closed the tap's standard input, before it
/// is asked to end (SIGTERM), and then made to (SIGKILL).
const LINGER: Duration = Duration::from_secs(5);

/// What the main thread waits for.
enum Happened {
    Exited(std::io::Result<ExitStatus>),
    ClientClosed,
}

pub(crate) fn run(command: &[String], checker: Checker) -> Result<ExitCode> {
    let (program, rest) = command
        .split_first()
        .context("no server command after `--`")?;
    let mut child = Command::new(program)
        .args(rest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("cannot start {program}"))?;
    let child_in = child
        .stdin
        .take()
        .context("the server has no standard input")?;
    let child_out = child
        .stdout
        .take()
        .context("the server has no standard output")?;
    let max = checker.max_message();
    let exited = Arc::new(AtomicBool::new(false));
    let server = Server {
        pid: child.id(),
        exited: Arc::clone(&exited),
    };
    signals::forward(server.clone())?;

    let (happened_tx, happened) = mpsc::channel::<Happened>();
    {
        let shared = Arc::clone(checker.shared());
        let lines = Lines::new(Dir::C2s, max);
        let happened_tx = happened_tx.clone();
        // Never joined: it may sit in a read of our standard input after the server is gone.
        std::thread::spawn(move || {
            tap_pump::pump(
                std::io::stdin(),
                child_in,
                lines,
                &shared,
                &AtomicBool::new(false),
            );
            let _ = happened_tx.send(Happened::ClientClosed);
        });
    }
    let (drained_tx, drained) = mpsc::channel::<()>();
    let reading = Arc::new(AtomicBool::new(false));
    {
        let shared = Arc::clone(checker.shared());
        let reading = Arc::clone(&reading);
        let lines = Lines::new(Dir::S2c, max);
        std::thread::spawn(move || {
            tap_pump::pump(child_out, std::io::stdout(), lines, &shared, &reading);
            let _ = drained_tx.send(());
        });
    }
    std::thread::spawn(move || wait(child, &exited, &happened_tx));

    let status = wait_for_end(&happened, &server).context("lost the server process")?;
    // A process the server started may keep its standard output open after the server is
    // gone (a wrapper such as `npx` that was killed, say): the tap ends with the server once
    // that output has been quiet for a while. A client slow to read holds nothing back.
    while let Err(mpsc::RecvTimeoutError::Timeout) = drained.recv_timeout(DRAIN) {
        if reading.load(Ordering::Acquire) {
            break;
        }
    }
    checker.finish();
    Ok(ExitCode::from(exit_status(status)))
}

fn wait(mut child: Child, exited: &AtomicBool, happened: &mpsc::Sender<Happened>) {
    let status = child.wait();
    exited.store(true, Ordering::Release);
    let _ = happened.send(Happened::Exited(status));
}

/// The server's status, once it ended by itself or, its client gone, after [`LINGER`] and a
/// signal.
fn wait_for_end(
    happened: &mpsc::Receiver<Happened>,
    server: &Server,
) -> std::io::Result<ExitStatus> {
    let mut deadline: Option<Instant> = None;
    let mut asked = false;
    loop {
        let next = match deadline {
            Some(at) => happened.recv_timeout(at.saturating_duration_since(Instant::now())),
            None => happened
                .recv()
                .map_err(|_| mpsc::RecvTimeoutError::Disconnected),
        };
        match next {
            Ok(Happened::Exited(status)) => return status,
            Ok(Happened::ClientClosed) => deadline = Some(Instant::now() + LINGER),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                server.signal(if asked {
                    signals::Kind::Kill
                } else {
                    signals::Kind::Terminate
                });
                asked = true;
                deadline = Some(Instant::now() + LINGER);
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(std::io::Error::other("the server's waiter is gone"));
            }
        }
    }
}

/// The server process, for signals, as long as it runs.
#[derive(Clone)]
struct Server {
    pid: u32,
    /// Set once the server was reaped: its id may then name another process.
    exited: Arc<AtomicBool>,
}

impl Server {
    fn signal(&self, kind: signals::Kind) {
        if !self.exited.load(Ordering::Acquire) {
            signals::send(self.pid, kind);
        }
    }
}

/// The server's exit status as a shell reports it: its code, or 128 plus the signal that
/// ended it.
fn exit_status(status: ExitStatus) -> u8 {
    if let Some(code) = status.code() {
        return u8::try_from(code & 0xff).unwrap_or(1);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(signal) = status.signal() {
            return u8::try_from((128 + signal) & 0xff).unwrap_or(1);
        }
    }
    1
}

#[cfg(unix)]
mod signals {
    //! The signals that end a session, passed on to the server: the tap then ends with it.

    use rustix::process::{kill_process, Pid, Signal};
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use signal_hook::iterator::Signals;

    /// A signal the tap sends of its own accord.
    #[derive(Debug, Clone, Copy)]
    pub(super) enum Kind {
        Terminate,
        Kill,
    }

    pub(super) fn forward(server: super::Server) -> anyhow::Result<()> {
        let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])?;
        std::thread::spawn(move || {
            for number in signals.forever() {
                let signal = match number {
                    SIGINT => Signal::INT,
                    SIGHUP => Signal::HUP,
                    _ => Signal::TERM,
                };
                if !server.exited.load(std::sync::atomic::Ordering::Acquire) {
                    deliver(server.pid, signal);
                }
            }
        });
        Ok(())
    }

    pub(super) fn send(pid: u32, kind: Kind) {
        deliver(
            pid,
            match kind {
                Kind::Terminate => Signal::TERM,
                Kind::Kill => Signal::KILL,
            },
        );
    }

    fn deliver(pid: u32, signal: Signal) {
        let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
            return;
        };
        // The server may have just ended: nothing is left to tell.
        let _ = kill_process(pid, signal);
    }
}

#[cfg(not(unix))]
mod signals {
    //! Without Unix signals, a server is only ever ended, after its client left.

    #[derive(Debug, Clone, Copy)]
    pub(super) enum Kind {
        Terminate,
        Kill,
    }

    pub(super) fn forward(_server: super::Server) -> anyhow::Result<()> {
        Ok(())
    }

    pub(super) fn send(_pid: u32, _kind: Kind) {}
}

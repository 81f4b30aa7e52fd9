//! The agent as a child process speaking JSON lines: started in its own process group, fed on
//! stdin, read on stdout by a thread that cuts lines at [`MAX_LINE`], and killed and reaped
//! — with everything it started — on timeout, exit, a bad message, or when the episode ends.
//!
//! One request is in flight at a time, so a blocking reader thread and a channel with a
//! timeout are the whole concurrency there is.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// The longest line an agent may send; longer is a failure, not a memory spike.
pub(crate) const MAX_LINE: usize = crate::limits::AGENT_LINE_BYTES;

/// Why a turn produced no message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TurnError {
    /// No line within the turn's time.
    Timeout,
    /// The agent closed its stdout or exited.
    Exited(String),
    /// A line past [`MAX_LINE`].
    TooLong,
    /// The agent cannot be started or written to.
    Io(String),
}

impl std::fmt::Display for TurnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TurnError::Timeout => f.write_str("the agent did not answer in time"),
            TurnError::Exited(how) => write!(f, "the agent exited ({how})"),
            TurnError::TooLong => write!(f, "the agent sent a line over {MAX_LINE} bytes"),
            TurnError::Io(e) => write!(f, "cannot talk to the agent: {e}"),
        }
    }
}

enum Line {
    Text(String),
    TooLong,
}

/// A running agent.
pub(crate) struct Agent {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
}

impl Agent {
    /// Starts `argv` in the harness's own folder, so a command line means what it says where
    /// the person typed it (stderr goes to ours, so a person sees what the agent logs).
    pub(crate) fn start(argv: &[String]) -> Result<Agent, TurnError> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| TurnError::Io("no agent command".into()))?;
        let mut cmd = Command::new(program);
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .process_group(0);
        // SAFETY: prctl is async-signal-safe; the agent dies with the harness.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| TurnError::Io(format!("cannot start `{program}`: {e}")))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| TurnError::Io("no stdout".into()))?;
        let stdin = child.stdin.take();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut buf = Vec::new();
                let n = match (&mut r)
                    .take(MAX_LINE as u64 + 1)
                    .read_until(b'\n', &mut buf)
                {
                    Ok(n) => n,
                    Err(_) => return,
                };
                if n == 0 {
                    return;
                }
                let line = if buf.len() > MAX_LINE {
                    Line::TooLong
                } else {
                    Line::Text(String::from_utf8_lossy(&buf).trim_end().to_string())
                };
                let stop = matches!(line, Line::TooLong);
                if tx.send(line).is_err() || stop {
                    return;
                }
            }
        });
        Ok(Agent {
            child,
            stdin,
            lines: rx,
        })
    }

    /// Sends one message.
    pub(crate) fn send(&mut self, msg: &impl serde::Serialize) -> Result<(), TurnError> {
        let mut line = serde_json::to_vec(msg).map_err(|e| TurnError::Io(e.to_string()))?;
        line.push(b'\n');
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| TurnError::Io("stdin closed".into()))?;
        stdin
            .write_all(&line)
            .and_then(|()| stdin.flush())
            .map_err(|_| self.exited())
    }

    /// The next non-empty line, within `timeout`.
    pub(crate) fn receive(&mut self, timeout: Duration) -> Result<String, TurnError> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(Line::Text(t)) if t.trim().is_empty() => continue,
                Ok(Line::Text(t)) => return Ok(t),
                Ok(Line::TooLong) => return Err(TurnError::TooLong),
                Err(RecvTimeoutError::Timeout) => return Err(TurnError::Timeout),
                Err(RecvTimeoutError::Disconnected) => return Err(self.exited()),
            }
        }
    }

    fn exited(&mut self) -> TurnError {
        std::thread::sleep(Duration::from_millis(20));
        match self.child.try_wait() {
            Ok(Some(status)) => TurnError::Exited(status.to_string()),
            _ => TurnError::Exited("closed its output".into()),
        }
    }

    /// Kills the agent and its process group and reaps it.
    pub(crate) fn stop(&mut self) {
        self.stdin.take();
        let pid = self.child.id() as libc::pid_t;
        // SAFETY: signals the agent's own process group (it leads it).
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
        let _ = self.child.wait();
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        self.stop();
    }
}

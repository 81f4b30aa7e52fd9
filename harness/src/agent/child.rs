//! The agent as a child process speaking JSON lines: started in its own process group, fed on
//! stdin, read on stdout by a thread that cuts lines at [`MAX_LINE`], and killed and reaped
//! — with everything it started — on timeout, exit, a bad message, or when the episode ends.
//!
//! "Everything it started" includes what left its process group (`setsid`, a double fork):
//! the harness is the child subreaper of its descendants (Linux), so an orphan is reparented
//! to it rather than to init, and [`Agent::stop`] kills the agent's whole process tree, reaps
//! it, and names what had escaped the group so the episode can report it.
//!
//! One request is in flight at a time, so a blocking reader thread and a channel with a
//! timeout are the whole concurrency there is.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// The longest line an agent may send; longer is a failure, not a memory spike.
pub(crate) const MAX_LINE: usize = crate::limits::AGENT_LINE_BYTES;

/// Why a turn produced no message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TurnError {
    /// No line within the turn's time.
    Timeout,
    /// No answer in time to the first message of an episode on the bridge (`true`) or the
    /// desktop: most likely an agent that speaks only the other environment's protocol.
    FirstUnanswered {
        /// Whether the episode is on the bridge.
        bridge: bool,
    },
    /// The agent closed its stdout or exited.
    Exited(String),
    /// A line past [`MAX_LINE`].
    TooLong,
    /// A line that is not UTF-8.
    NotUtf8,
    /// A second message before the harness spoke again.
    Extra,
    /// The agent cannot be started or written to.
    Io(String),
}

impl std::fmt::Display for TurnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TurnError::Timeout => f.write_str("the agent did not answer in time"),
            TurnError::FirstUnanswered { bridge: true } => f.write_str(
                "the agent did not answer the bridge's first message, `task`, in time: a bridge \
                 agent answers it with `read`, `list`, `write`, `wait`, `ask` or `done` (an \
                 agent that speaks only the desktop's protocol waits for an `observe`)",
            ),
            TurnError::FirstUnanswered { bridge: false } => f.write_str(
                "the agent did not answer the desktop's first message, `observe`, in time: a \
                 desktop agent answers it with `act`, `ask`, `say` or `done` (an agent that \
                 speaks only the bridge's protocol waits for a `task`)",
            ),
            TurnError::Exited(how) => write!(f, "the agent exited ({how})"),
            TurnError::TooLong => write!(f, "the agent sent a line over {MAX_LINE} bytes"),
            TurnError::NotUtf8 => f.write_str("not a protocol message: the line is not UTF-8"),
            TurnError::Extra => f.write_str(
                "not a protocol message: a second message before the harness answered the first",
            ),
            TurnError::Io(e) => write!(f, "cannot talk to the agent: {e}"),
        }
    }
}

enum Line {
    Text(String),
    TooLong,
    NotUtf8,
}

/// Numbers each agent started, for [`MARK`].
static STARTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The variable every process an agent starts inherits, valued by agent: how an orphan the
/// harness inherited is told to be that agent's.
const MARK: &str = "STEPREPLAY_AGENT_RUN";

/// A running agent.
pub(crate) struct Agent {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Lines as read, in batches: the lines of one read arrive together, so a second message
    /// written with the first is seen before the harness answers, however threads are run.
    lines: Receiver<Vec<Line>>,
    /// Lines of a batch not yet taken.
    pending: std::collections::VecDeque<Line>,
    /// This agent's value of [`MARK`].
    mark: String,
}

impl Agent {
    /// Starts `argv` in the harness's own folder, so a command line means what it says where
    /// the person typed it (stderr goes to ours, so a person sees what the agent logs).
    pub(crate) fn start(argv: &[String]) -> Result<Agent, TurnError> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| TurnError::Io("no agent command".into()))?;
        become_subreaper();
        let n = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mark = format!("{}-{n}", std::process::id());
        let mut cmd = Command::new(program);
        cmd.env(MARK, &mark);
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
                let mut batch = Vec::new();
                let mut stop = false;
                // One line, then every line already read with it.
                while !stop && (batch.is_empty() || !r.buffer().is_empty()) {
                    match read_line(&mut r) {
                        Some(line) => {
                            stop = matches!(line, Line::TooLong | Line::NotUtf8);
                            batch.push(line);
                        }
                        None => {
                            stop = true;
                        }
                    }
                }
                if (!batch.is_empty() && tx.send(batch).is_err()) || stop {
                    return;
                }
            }
        });
        Ok(Agent {
            child,
            stdin,
            pending: std::collections::VecDeque::new(),
            lines: rx,
            mark,
        })
    }

    /// Sends one message; a line the agent sent meanwhile, unasked, is a protocol failure.
    pub(crate) fn send(&mut self, msg: &impl serde::Serialize) -> Result<(), TurnError> {
        while let Ok(batch) = self.lines.try_recv() {
            self.pending.extend(batch);
        }
        while let Some(line) = self.pending.pop_front() {
            match line {
                Line::Text(t) if t.trim().is_empty() => continue,
                Line::Text(_) => return Err(TurnError::Extra),
                Line::TooLong => return Err(TurnError::TooLong),
                Line::NotUtf8 => return Err(TurnError::NotUtf8),
            }
        }
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

    /// The next non-empty line, within `timeout`; `first` (on the bridge or not) when it
    /// answers the episode's first message, whose timeout then says what it missed.
    pub(crate) fn receive(
        &mut self,
        timeout: Duration,
        first: Option<bool>,
    ) -> Result<String, TurnError> {
        match (self.next_line(timeout), first) {
            (Err(TurnError::Timeout), Some(bridge)) => Err(TurnError::FirstUnanswered { bridge }),
            (r, _) => r,
        }
    }

    fn next_line(&mut self, timeout: Duration) -> Result<String, TurnError> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if self.pending.is_empty() {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                match self.lines.recv_timeout(left) {
                    Ok(batch) => self.pending.extend(batch),
                    Err(RecvTimeoutError::Timeout) => return Err(TurnError::Timeout),
                    Err(RecvTimeoutError::Disconnected) => return Err(self.exited()),
                }
            }
            match self.pending.pop_front() {
                Some(Line::Text(t)) if t.trim().is_empty() => continue,
                Some(Line::Text(t)) => return Ok(t),
                Some(Line::TooLong) => return Err(TurnError::TooLong),
                Some(Line::NotUtf8) => return Err(TurnError::NotUtf8),
                None => continue,
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

    /// Kills the agent, its process group and every process it started, and reaps them;
    /// returns the pids of those that had left its process group (empty once stopped).
    pub(crate) fn stop(&mut self) -> Vec<u32> {
        let pid = self.child.id();
        // Looked for while the agent still runs (its children are linked to it) and again
        // once its input is closed (an orphan is then the harness's, carrying the mark).
        let mut tree = descendants(pid, &self.mark);
        self.stdin.take();
        for found in descendants(pid, &self.mark) {
            if !tree.iter().any(|(p, _)| *p == found.0) {
                tree.push(found);
            }
        }
        // SAFETY: signals the agent's own process group (it leads it) and processes it
        // started, found by their parent links before any of them was killed.
        unsafe {
            libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
            for (p, _) in &tree {
                libc::kill(*p as libc::pid_t, libc::SIGKILL);
            }
        }
        let _ = self.child.wait();
        // The killed orphans are the harness's children now (it is their subreaper).
        for (p, _) in &tree {
            // SAFETY: waits on a pid that is a child of ours or no child at all (ECHILD).
            unsafe {
                libc::waitpid(*p as libc::pid_t, std::ptr::null_mut(), 0);
            }
        }
        tree.into_iter()
            .filter(|(_, group)| *group != pid)
            .map(|(p, _)| p)
            .collect()
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What a `process-escaped` violation says: how many processes left the agent's process
/// group and were still running when its episode ended (pids differ run to run: not shown).
pub(crate) fn escaped_detail(pids: &[u32]) -> String {
    format!(
        "{} process(es) it started left its process group and were still running at the end \
         (killed)",
        pids.len()
    )
}

/// Makes the harness the reaper of its orphaned descendants, so a process an agent started
/// in a new session is still found (Linux; elsewhere the process tree alone is swept).
fn become_subreaper() {
    #[cfg(target_os = "linux")]
    // SAFETY: a flag on the calling process; no memory is passed.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
    }
}

/// Every running process under `root` by parent links, with its process group, and the
/// harness's own orphaned children that carry the agent's `mark` (reparented to it, the
/// subreaper, when their parent died). Read from `/proc`; empty where there is none.
fn descendants(root: u32, mark: &str) -> Vec<(u32, u32)> {
    let me = std::process::id();
    let marked = |pid: u32| {
        let want = format!("{MARK}={mark}");
        std::fs::read(format!("/proc/{pid}/environ"))
            .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == want.as_bytes()))
    };
    let procs: Vec<(u32, u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let (ppid, group) = parent_and_group(&stat)?;
            Some((pid, ppid, group))
        })
        .collect();
    let mut out: Vec<(u32, u32)> = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for &(pid, ppid, group) in &procs {
            let orphan = parent == root && ppid == me && pid != root && marked(pid);
            if (ppid == parent || orphan) && !out.iter().any(|(p, _)| *p == pid) {
                out.push((pid, group));
                frontier.push(pid);
            }
        }
    }
    out
}

/// The parent pid and process group in a `/proc/<pid>/stat` line (fields 4 and 5, after the
/// command name, which may hold spaces and parentheses).
fn parent_and_group(stat: &str) -> Option<(u32, u32)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut f = rest.split_whitespace();
    let state = f.next()?;
    if state == "Z" || state == "X" {
        return None;
    }
    Some((f.next()?.parse().ok()?, f.next()?.parse().ok()?))
}

/// One line of the agent's output, at most [`MAX_LINE`] bytes; `None` at the end or on an error.
fn read_line(r: &mut BufReader<ChildStdout>) -> Option<Line> {
    let mut buf = Vec::new();
    match r.take(MAX_LINE as u64 + 1).read_until(b'\n', &mut buf) {
        Ok(0) | Err(_) => None,
        Ok(_) if buf.len() > MAX_LINE => Some(Line::TooLong),
        Ok(_) => Some(match String::from_utf8(buf) {
            Ok(t) => Line::Text(t.trim_end().to_string()),
            Err(_) => Line::NotUtf8,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_give_parent_and_group_whatever_the_name() {
        let stat = "4242 (a) b (c)) S 17 4242 4242 0 -1 4194560";
        assert_eq!(parent_and_group(stat), Some((17, 4242)));
        assert_eq!(
            parent_and_group("9 (z) Z 1 9 9"),
            None,
            "a zombie is not running"
        );
        assert_eq!(parent_and_group("garbage"), None);
    }
}

//! Runs the built `stepreplay` binary the way a user would, and says everything about a run
//! that went wrong: the command, the folder it ran in, its exit code, stdout and stderr.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The repository root (the workspace folder above the crate).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate sits in the workspace")
        .to_path_buf()
}

/// Whether the outside program `name` (a Debian package's binary) is on the PATH. When it is
/// not, a test that needs it skips with a note on stderr, unless `STEPREPLAY_REQUIRE_TOOLS` is
/// set (as `scripts/test` and CI set it): then a missing tool fails the test, so "every test
/// ran" is something a run can prove.
pub fn have_tool(name: &str, install: &str) -> bool {
    let found = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(name).is_file()));
    if !found {
        assert!(
            std::env::var_os("STEPREPLAY_REQUIRE_TOOLS").is_none(),
            "{name} is required (STEPREPLAY_REQUIRE_TOOLS is set) but not on the PATH: {install}"
        );
        eprintln!("note: {name} is not installed; skipping ({install}, or run scripts/test)");
    }
    found
}

/// The checked-in plan fixtures (`harness/tests/fixtures/plans`).
pub fn plans_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/plans")
}

/// A `stepreplay` command line that runs in `cwd`, so the paths it prints are relative.
pub struct Cli {
    cmd: Command,
    cwd: PathBuf,
}

/// Starts a command line for the built binary. Colour is off: `NO_COLOR` is set and stdout
/// is a pipe, so output is the same on every machine.
pub fn stepreplay(cwd: impl AsRef<Path>) -> Cli {
    let cwd = cwd.as_ref().to_path_buf();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stepreplay"));
    cmd.current_dir(&cwd).env("NO_COLOR", "1");
    Cli { cmd, cwd }
}

impl Cli {
    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.cmd.args(args);
        self
    }

    /// Adds one argument.
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.cmd.arg(arg);
        self
    }

    /// Sets an environment variable for the run.
    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Self {
        self.cmd.env(key, value);
        self
    }

    /// Starts the command and returns at once (stdout and stderr piped).
    pub fn spawn(mut self) -> std::process::Child {
        self.cmd
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", self.cmd))
    }

    /// Runs to completion, whatever the exit code.
    pub fn run(mut self) -> Run {
        let out = self.cmd.output().unwrap_or_else(|e| {
            panic!("cannot start {:?} in {}: {e}", self.cmd, self.cwd.display())
        });
        Run::of(format!("{:?}", self.cmd), self.cwd, &out)
    }

    /// Runs to completion with `input` on standard input.
    pub fn run_with_stdin(mut self, input: &str) -> Run {
        use std::io::Write as _;
        let mut child = self
            .cmd
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", self.cmd));
        let mut stdin = child.stdin.take().expect("stdin is piped");
        // Written from a thread: a child that prints before it reads would block us both.
        let input = input.to_string();
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let out = child.wait_with_output().expect("the child runs");
        let _ = writer.join();
        Run::of(format!("{:?} < input", self.cmd), self.cwd, &out)
    }

    /// Runs and insists on the exit code `want`.
    pub fn expect_code(self, want: i32) -> Run {
        let run = self.run();
        if run.code != want {
            panic!("expected exit code {want}\n{run}");
        }
        run
    }
}

/// One finished run.
pub struct Run {
    command: String,
    cwd: PathBuf,
    /// The exit code (-1 when killed by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    fn of(command: String, cwd: PathBuf, out: &std::process::Output) -> Run {
        Run {
            command,
            cwd,
            // A signal (a crash) has no code; -1 never matches an expected one.
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Fails the test, showing the whole run, unless `ok` holds.
    pub fn check(&self, ok: bool, what: &str) {
        if !ok {
            panic!("{what}\n{self}");
        }
    }

    /// Fails the test when the process panicked or died of a signal.
    pub fn assert_no_panic(&self) {
        self.check(
            self.code >= 0 && !self.stderr.contains("panicked"),
            "the process panicked or was killed",
        );
    }
}

impl fmt::Display for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "command: {}", self.command)?;
        writeln!(f, "cwd:     {}", self.cwd.display())?;
        writeln!(f, "exit:    {}", self.code)?;
        writeln!(f, "--- stdout ---\n{}", self.stdout)?;
        write!(f, "--- stderr ---\n{}", self.stderr)
    }
}

/// A fresh folder under the system temp dir, removed when dropped. Unique per process and
/// per call, so tests running in parallel never share one.
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates `stepreplay-<pid>-<n>-<name>` in the temp dir.
    pub fn new(name: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("stepreplay-{}-{n}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `stepreplay ARGS…` in `dir` to completion, whatever the exit code.
pub fn run_in(dir: impl AsRef<Path>, args: &[&str]) -> Run {
    stepreplay(dir).args(args).run()
}

/// Runs `stepreplay record-browser --plan PLAN --pages PAGES --out OUT EXTRA…` in `dir`:
/// headless Chromium records the plan over the local pages.
pub fn record_browser(
    dir: impl AsRef<Path>,
    plan: impl AsRef<Path>,
    pages: impl AsRef<Path>,
    out: impl AsRef<Path>,
    extra: &[&str],
) -> Run {
    let paths = [plan.as_ref(), pages.as_ref(), out.as_ref()].map(|p| p.to_str().unwrap());
    let mut args = vec!["record-browser", "--plan", paths[0], "--pages", paths[1]];
    args.extend(["--out", paths[2]]);
    args.extend(extra);
    run_in(dir, &args)
}

impl Run {
    /// Fails the test, showing the whole run, unless it exited with `want`.
    #[track_caller]
    pub fn expect_code(&self, want: i32) -> &Self {
        self.check(self.code == want, &format!("expected exit code {want}"));
        self
    }
}

/// Copies the folder `from` (recursively) to `to`, e.g. a fixture suite a test then breaks.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// Copies scenario `name` (its file and its folder) and the recording `recording` from the
/// repository into the suite folder `suite`, for a test that edits one of them.
pub fn copy_scenario(suite: &Path, name: &str, recording: &str) {
    let rec = format!("recordings/{recording}");
    copy_tree(&repo().join(&rec), &suite.join(&rec));
    let dir = format!("scenarios/{name}");
    copy_tree(&repo().join(&dir), &suite.join(&dir));
    std::fs::copy(
        repo().join(format!("{dir}.json")),
        suite.join(format!("{dir}.json")),
    )
    .unwrap();
}

/// ` · 0.31 s` as ` · [time]`: a wall-clock time is never the same twice.
pub fn without_times(text: &str) -> String {
    let mut out = String::new();
    for l in text.lines() {
        let mut line = l.to_string();
        if let Some(at) = l.find(" · ") {
            let rest = &l[at + " · ".len()..];
            if let Some(end) = rest.find(" s")
                && end > 0
                && rest[..end].chars().all(|c| c.is_ascii_digit() || c == '.')
            {
                line = format!("{} · [time]{}", &l[..at], &rest[end + 2..]);
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Times are the one part of `junit.xml` that changes between runs.
pub fn junit_without_times(xml: &str) -> String {
    let mut out = String::new();
    let mut rest = xml;
    while let Some(i) = rest.find(" time=\"") {
        out.push_str(&rest[..i]);
        let after = &rest[i + " time=\"".len()..];
        rest = after.split_once('"').map_or("", |(_, r)| r);
    }
    out.push_str(rest);
    out
}

/// Runs the suite in `d` into `d/whole` (every scenario as expected) and accepts its report as
/// the baseline `d/out`.
pub fn whole_run_accepted(d: &Path, out: &str) {
    stepreplay(d)
        .args(["run", "scenarios", "--report-dir", "whole", "-q"])
        .expect_code(0);
    stepreplay(d)
        .args([
            "baseline",
            "accept",
            "--report",
            "whole/report.json",
            "--out",
            out,
        ])
        .expect_code(0);
}

/// Runs a loaded suite through `suite::run`, the one run entry point, and returns its results
/// sorted by scenario id, for a test that folds them itself.
pub fn run_collected(
    suite: stepreplay::suite::LoadedSuite,
    opts: &stepreplay::suite::RunOptions,
) -> Result<Vec<stepreplay::result::ScenarioResult>, stepreplay::Error> {
    let out = std::sync::Mutex::new(Vec::new());
    let stop = std::sync::atomic::AtomicBool::new(false);
    stepreplay::suite::run(suite, opts, &stop, &|r| {
        out.lock().unwrap().push(r);
        Ok(())
    })?;
    let mut out = out.into_inner().unwrap();
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}

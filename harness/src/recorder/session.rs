//! The live desktop a recording is made on: an X display (the user's, or an `Xvfb` started
//! here), a session D-Bus, the AT-SPI bus, a window manager, and the app under test.
//!
//! Everything started here is stopped here, by process id, whatever happens: the recorder
//! makes itself a child subreaper so that processes its children fork (D-Bus activation starts
//! the AT-SPI registry, an app may double-fork) stay its descendants, and [`Session::stop`]
//! (also run on drop) signals and reaps every descendant, then removes its scratch folder.
//! Each child runs in its own process group, so a terminal's Ctrl-C reaches only the recorder,
//! which then stops them in order; each child also dies with the recorder if it is killed.

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::errors::Error;

/// The environment variable whose value the recorder passes on to everything it starts, so
/// that a test can find (and count) those processes.
pub(crate) const TAG_ENV: &str = "STEPREPLAY_RECORD_TAG";

/// GTK settings that make two recordings of one script pixel-equal: no caret blink, no
/// animations, no sounds.
const GTK_SETTINGS: &str = "[Settings]\ngtk-cursor-blink = false\ngtk-enable-animations = false\n\
gtk-enable-event-sounds = false\ngtk-enable-input-feedback-sounds = false\n";

/// How a session gets its display.
#[derive(Clone, Debug)]
pub(crate) struct SessionOptions {
    /// Start an Xvfb even when `$DISPLAY` is set.
    pub(crate) own_display: bool,
    /// The size of a display started here.
    pub(crate) screen: (u32, u32),
    /// Start a window manager on a display started here.
    pub(crate) window_manager: bool,
}

/// A running desktop session.
pub(crate) struct Session {
    /// `:99`.
    pub(crate) display: String,
    /// The session bus address.
    pub(crate) bus: String,
    /// Whether the display, the buses and the window manager are this session's own.
    pub(crate) own: bool,
    /// The window manager running, if any (`openbox`).
    pub(crate) window_manager: Option<String>,
    env: Vec<(String, String)>,
    dir: PathBuf,
    children: Vec<(String, Child)>,
    app: Option<u32>,
    stopped: bool,
}

fn desktop_error(msg: impl Into<String>) -> Error {
    Error::Desktop(msg.into())
}

/// The first of `names` found on `PATH` or at an absolute path.
fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in names {
        let p = Path::new(name);
        if p.is_absolute() {
            if p.is_file() {
                return Some(p.to_path_buf());
            }
            continue;
        }
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

pub(crate) fn need_program(names: &[&str], package: &str) -> Result<PathBuf, Error> {
    find_program(names).ok_or_else(|| {
        desktop_error(format!(
            "`{}` is not installed: install the Debian package `{package}` \
             (scripts/install-test-deps does)",
            names[0]
        ))
    })
}

impl Session {
    /// Starts what is needed: on the user's display only the bus pieces missing, else Xvfb,
    /// a session bus, the AT-SPI bus and a window manager. `stop` is polled while waiting.
    pub(crate) fn start(opts: &SessionOptions, stop: &AtomicBool) -> Result<Session, Error> {
        set_subreaper();
        let dir = scratch_dir()?;
        let mut s = Session {
            display: String::new(),
            bus: String::new(),
            own: false,
            window_manager: None,
            env: Vec::new(),
            dir,
            children: Vec::new(),
            app: None,
            stopped: false,
        };
        // On error `s` drops here and stops whatever was started.
        s.start_inner(opts, stop)?;
        Ok(s)
    }

    fn start_inner(&mut self, opts: &SessionOptions, stop: &AtomicBool) -> Result<(), Error> {
        let user_display = std::env::var("DISPLAY").ok().filter(|d| !d.is_empty());
        match user_display {
            Some(d) if !opts.own_display => {
                self.display = d;
                self.env = std::env::vars().collect();
            }
            _ => {
                self.own = true;
                self.private_env()?;
                self.start_xvfb(opts.screen, stop)?;
            }
        }
        let user_bus = std::env::var("DBUS_SESSION_BUS_ADDRESS").ok();
        match user_bus.filter(|_| !self.own) {
            Some(bus) => self.bus = bus,
            None => self.start_bus()?,
        }
        self.set_env("DBUS_SESSION_BUS_ADDRESS", &self.bus.clone());
        if self.own {
            let launcher = need_program(
                &[
                    "/usr/libexec/at-spi-bus-launcher",
                    "/usr/lib/at-spi2-core/at-spi-bus-launcher",
                    "at-spi-bus-launcher",
                ],
                "at-spi2-core",
            )?;
            self.spawn(
                "at-spi-bus-launcher",
                &launcher,
                &["--launch-immediately".into()],
            )?;
            if opts.window_manager
                && let Some(wm) = find_program(&["openbox"])
            {
                self.spawn("openbox", &wm, &["--sm-disable".into()])?;
                self.window_manager = Some("openbox".into());
            }
        }
        Ok(())
    }

    /// A clean, fixed environment: nothing of the user's desktop leaks into the recording.
    fn private_env(&mut self) -> Result<(), Error> {
        let d = self.dir.clone();
        let sub = |name: &str| -> Result<String, Error> {
            let p = d.join(name);
            fs::create_dir_all(&p).map_err(|e| Error::Write {
                path: p.clone(),
                source: e,
            })?;
            let _ = fs::set_permissions(&p, fs::Permissions::from_mode(0o700));
            Ok(p.display().to_string())
        };
        let (home, run, config, data, cache) = (
            sub("home")?,
            sub("run")?,
            sub("config")?,
            sub("data")?,
            sub("cache")?,
        );
        for gtk in ["gtk-3.0", "gtk-4.0"] {
            let p = d.join("config").join(gtk).join("settings.ini");
            crate::output::write_file(&p, GTK_SETTINGS)?;
        }
        let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
        self.env = vec![
            ("PATH".into(), path),
            ("HOME".into(), home),
            ("XDG_RUNTIME_DIR".into(), run),
            ("XDG_CONFIG_HOME".into(), config),
            ("XDG_DATA_HOME".into(), data),
            ("XDG_CACHE_HOME".into(), cache),
            ("LANG".into(), "C.UTF-8".into()),
            ("LC_ALL".into(), "C.UTF-8".into()),
            ("TZ".into(), "UTC".into()),
            ("GDK_BACKEND".into(), "x11".into()),
            ("GSETTINGS_BACKEND".into(), "memory".into()),
            ("GTK_USE_PORTAL".into(), "0".into()),
            ("NO_AT_BRIDGE".into(), "0".into()),
            ("GTK_A11Y".into(), "atspi".into()),
            ("LIBGL_ALWAYS_SOFTWARE".into(), "1".into()),
        ];
        if let Ok(tag) = std::env::var(TAG_ENV) {
            self.env.push((TAG_ENV.into(), tag));
        }
        Ok(())
    }

    fn set_env(&mut self, key: &str, value: &str) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.into(), value.into()));
    }

    fn command(&self, program: &Path, args: &[String]) -> Command {
        let mut c = Command::new(program);
        c.args(args).env_clear().envs(self.env.iter().cloned());
        c.stdin(Stdio::null()).process_group(0);
        // SAFETY: prctl is async-signal-safe; the child dies with the recorder.
        unsafe {
            c.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                Ok(())
            });
        }
        c
    }

    fn log_file(&self, name: &str) -> Result<(Stdio, Stdio), Error> {
        let p = self.dir.join(format!("{name}.log"));
        let f = crate::output::create_file(&p)?;
        let g = f.try_clone().map_err(crate::output::write_error(&p))?;
        Ok((Stdio::from(f), Stdio::from(g)))
    }

    /// The last lines a child wrote, for an error message.
    fn log_tail(&self, name: &str) -> String {
        let text = fs::read_to_string(self.dir.join(format!("{name}.log"))).unwrap_or_default();
        let lines: Vec<&str> = text.lines().rev().take(5).collect();
        lines.into_iter().rev().collect::<Vec<_>>().join(" | ")
    }

    fn spawn(&mut self, name: &str, program: &Path, args: &[String]) -> Result<u32, Error> {
        let (out, err) = self.log_file(name)?;
        let child = self
            .command(program, args)
            .stdout(out)
            .stderr(err)
            .spawn()
            .map_err(|e| desktop_error(format!("cannot start `{}`: {e}", program.display())))?;
        let pid = child.id();
        self.children.push((name.into(), child));
        Ok(pid)
    }

    /// Starts Xvfb on a display number it picks itself (`-displayfd`: no race with another
    /// server starting at the same moment) and waits until it takes connections.
    fn start_xvfb(&mut self, (w, h): (u32, u32), stop: &AtomicBool) -> Result<(), Error> {
        let xvfb = need_program(&["Xvfb"], "xvfb")?;
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe2 fills two fds; both are closed below or owned by a File.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(desktop_error("cannot make a pipe for Xvfb"));
        }
        // SAFETY: fds[0] is ours alone from here on.
        let read_end = unsafe { <fs::File as std::os::fd::FromRawFd>::from_raw_fd(fds[0]) };
        let write_fd = fds[1];
        let args = [
            "-displayfd".into(),
            write_fd.to_string(),
            "-screen".into(),
            "0".into(),
            format!("{w}x{h}x24"),
            "-nolisten".into(),
            "tcp".into(),
            "-noreset".into(),
        ];
        let (out, err) = self.log_file("Xvfb")?;
        let mut cmd = self.command(&xvfb, &args);
        // SAFETY: fcntl is async-signal-safe; the child keeps the write end across exec.
        unsafe {
            cmd.pre_exec(move || {
                libc::fcntl(write_fd, libc::F_SETFD, 0);
                Ok(())
            });
        }
        let spawned = cmd.stdout(out).stderr(err).spawn();
        // SAFETY: our copy of the write end; the child has its own.
        unsafe {
            libc::close(write_fd);
        }
        let child = spawned.map_err(|e| desktop_error(format!("cannot start Xvfb: {e}")))?;
        self.children.push(("Xvfb".into(), child));
        // Xvfb writes the number and a newline once it listens; EOF means it died.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(read_end).read_line(&mut line);
            let _ = tx.send(line);
        });
        let deadline = Instant::now() + Duration::from_secs(15);
        let line = loop {
            check_stop(stop)?;
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(line) => break line,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) if Instant::now() < deadline => {}
                Err(_) => {
                    return Err(desktop_error(format!(
                        "Xvfb did not start within 15 s: {}",
                        self.log_tail("Xvfb")
                    )));
                }
            }
        };
        let n: u32 = line
            .trim()
            .parse()
            .map_err(|_| desktop_error(format!("Xvfb did not start: {}", self.log_tail("Xvfb"))))?;
        let display = format!(":{n}");
        self.display = display.clone();
        self.set_env("DISPLAY", &display);
        Ok(())
    }

    fn start_bus(&mut self) -> Result<(), Error> {
        let dbus = need_program(&["dbus-daemon"], "dbus")?;
        let (_, err) = self.log_file("dbus")?;
        let args = [
            "--session".into(),
            "--nofork".into(),
            "--nopidfile".into(),
            "--print-address=1".into(),
        ];
        let mut child = self
            .command(&dbus, &args)
            .stdout(Stdio::piped())
            .stderr(err)
            .spawn()
            .map_err(|e| desktop_error(format!("cannot start dbus-daemon: {e}")))?;
        let out = child.stdout.take();
        self.children.push(("dbus-daemon".into(), child));
        let mut line = String::new();
        if let Some(out) = out {
            let _ = BufReader::new(out).read_line(&mut line);
        }
        let addr = line.trim();
        if addr.is_empty() {
            return Err(desktop_error(format!(
                "dbus-daemon printed no address: {}",
                self.log_tail("dbus")
            )));
        }
        self.bus = addr.to_string();
        Ok(())
    }

    /// Starts the app under test; its pid.
    pub(crate) fn start_app(&mut self, argv: &[String]) -> Result<u32, Error> {
        let Some((program, args)) = argv.split_first() else {
            return Err(desktop_error("no app to start"));
        };
        let path = find_program(&[program.as_str()])
            .or_else(|| Path::new(program).is_file().then(|| PathBuf::from(program)))
            .ok_or_else(|| desktop_error(format!("the app `{program}` is not installed")))?;
        let pid = self.spawn("app", &path, args)?;
        self.app = Some(pid);
        Ok(pid)
    }

    /// Whether the app has exited, with what it said last when it has.
    pub(crate) fn app_exit(&mut self) -> Option<String> {
        let pid = self.app?;
        let tail = self.log_tail("app");
        let (_, child) = self.children.iter_mut().find(|(_, c)| c.id() == pid)?;
        match child.try_wait() {
            Ok(Some(status)) => Some(format!("{status}; it said: {tail}")),
            _ => None,
        }
    }

    /// The app's process and every process it started.
    pub(crate) fn app_pids(&self) -> Vec<u32> {
        match self.app {
            Some(pid) => {
                let mut all = vec![pid];
                all.extend(descendants(pid));
                all
            }
            None => Vec::new(),
        }
    }

    /// Stops everything this session started, newest first, and removes its scratch folder.
    pub(crate) fn stop(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        let me = std::process::id();
        for (_, child) in self.children.iter().rev() {
            signal_group(child.id(), libc::SIGTERM);
        }
        for pid in descendants(me) {
            signal(pid, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(3);
        loop {
            self.reap();
            if descendants(me).is_empty() || Instant::now() > deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        for pid in descendants(me) {
            signal(pid, libc::SIGKILL);
        }
        let deadline = Instant::now() + Duration::from_secs(2);
        while !descendants(me).is_empty() && Instant::now() < deadline {
            self.reap();
            std::thread::sleep(Duration::from_millis(10));
        }
        self.reap();
        let _ = fs::remove_dir_all(&self.dir);
    }

    fn reap(&mut self) {
        for (_, child) in &mut self.children {
            let _ = child.try_wait();
        }
        // Orphans that were reparented to us.
        loop {
            // SAFETY: plain waitpid with WNOHANG.
            let r = unsafe { libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG) };
            if r <= 0 {
                break;
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.stop();
    }
}

/// An error when the user asked to stop.
pub(crate) fn check_stop(stop: &AtomicBool) -> Result<(), Error> {
    if stop.load(Ordering::SeqCst) {
        Err(Error::Interrupted)
    } else {
        Ok(())
    }
}

fn set_subreaper() {
    // SAFETY: a plain prctl on this process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
    }
}

fn signal(pid: u32, sig: libc::c_int) {
    // SAFETY: kill on a pid this process started (or that was reparented to it).
    unsafe {
        libc::kill(pid as libc::pid_t, sig);
    }
}

fn signal_group(pgid: u32, sig: libc::c_int) {
    // SAFETY: each child leads its own process group.
    unsafe {
        libc::kill(-(pgid as libc::pid_t), sig);
    }
}

fn scratch_dir() -> Result<PathBuf, Error> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let p = std::env::temp_dir().join(format!("stepreplay-record-{}-{nanos}", std::process::id()));
    fs::create_dir_all(&p).map_err(|e| Error::Write {
        path: p.clone(),
        source: e,
    })?;
    Ok(p)
}

/// The parent of every process, read from `/proc`.
fn parents() -> HashMap<u32, u32> {
    let mut map = HashMap::new();
    let Ok(dir) = fs::read_dir("/proc") else {
        return map;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if let Ok(stat) = fs::read_to_string(entry.path().join("stat"))
            && let Some(ppid) = parse_ppid(&stat)
        {
            map.insert(pid, ppid);
        }
    }
    map
}

/// The parent pid in a `/proc/PID/stat` line (the field after the parenthesised name, which
/// may itself hold spaces and parentheses, and the state).
fn parse_ppid(stat: &str) -> Option<u32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Every live descendant of `root`, zombies included until reaped.
pub(crate) fn descendants(root: u32) -> Vec<u32> {
    let parents = parents();
    let mut out = Vec::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for (&child, &parent) in &parents {
            if parent == p && !out.contains(&child) {
                out.push(child);
                frontier.push(child);
            }
        }
    }
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_parent_after_an_awkward_name() {
        assert_eq!(parse_ppid("42 (a) b (c)) S 17 42 42 0"), Some(17));
        assert_eq!(parse_ppid("1 (init) S 0 1 1"), Some(0));
        assert_eq!(parse_ppid("garbage"), None);
    }

    #[test]
    fn finds_a_child_it_started_and_not_once_it_is_reaped() {
        let mut child = Command::new("sleep").arg("5").spawn().unwrap();
        let me = std::process::id();
        assert!(descendants(me).contains(&child.id()));
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!descendants(me).contains(&child.id()));
    }
}

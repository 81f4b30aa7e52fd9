//! Runs the `stepreplay` binary and, when a test fails, shows what it ran and what it printed.

use std::path::Path;
use std::process::Command;

/// What a finished run printed and returned.
pub struct Run {
    /// The command line, for failure messages.
    pub cmdline: String,
    /// Exit code (`-1` when killed by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    /// Asserts the exit code, printing the whole run if it differs.
    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code, code,
            "`{}` exited {} (want {code})\n--- stdout\n{}\n--- stderr\n{}",
            self.cmdline, self.code, self.stdout, self.stderr
        );
        self
    }
}

/// Runs `stepreplay ARGS…` in `dir`.
pub fn stepreplay(dir: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_stepreplay"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("the stepreplay binary runs");
    Run {
        cmdline: format!("(cd {} && stepreplay {})", dir.display(), args.join(" ")),
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A fresh empty folder under the target directory, for files a test writes.
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

//! The `stepreplay` command line: arguments in, one library call, an exit code out.

mod cli;

use std::process::ExitCode;

/// Running out of memory ends a run with its own exit code and an incomplete manifest, never
/// an abort.
#[global_allocator]
static ALLOC: stepreplay::limits::LimitAlloc = stepreplay::limits::LimitAlloc;

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let args = match <cli::Cli as clap::Parser>::try_parse() {
        Ok(args) => args,
        // Help and version are not errors; a mistyped command line is a usage error.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(stepreplay::USAGE_EXIT);
        }
    };
    let prefix = args.error_prefix();
    match cli::run(args) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("{prefix} {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// `stepreplay show REC | head` must end quietly when `head` stops reading, as other Unix
/// tools do, not panic in `println!`: Rust ignores SIGPIPE, so restore its default.
fn quiet_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any thread exists; SIG_DFL is a valid
    // disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

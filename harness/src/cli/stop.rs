//! Ctrl-C (SIGINT) and SIGTERM as a flag: long commands poll it and stop cleanly; a second
//! signal ends the process at once.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// Set when the user asked to stop.
pub(crate) static STOP: AtomicBool = AtomicBool::new(false);

/// The signal that asked (0 when none did).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

#[cfg(unix)]
extern "C" fn on_signal(sig: libc::c_int) {
    SIGNAL.store(sig, Ordering::SeqCst);
    STOP.store(true, Ordering::SeqCst);
    // SAFETY: `signal` is async-signal-safe; restoring the default makes a second Ctrl-C
    // end the process at once.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
    }
}

/// Routes SIGINT and SIGTERM to [`STOP`].
#[cfg(unix)]
pub(crate) fn install_stop_handler() {
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: the handler only stores to an atomic and calls `signal`, both
    // async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
}

/// Without a handler Ctrl-C ends the process at once.
#[cfg(not(unix))]
pub(crate) fn install_stop_handler() {
    let _ = Ordering::SeqCst;
}

/// The signal that asked to stop, by name and with its exit code (128 + its number, as a
/// shell reports a process it ended: 130 for SIGINT, 143 for SIGTERM); `None` when none did.
pub(crate) fn stopped_by() -> Option<(&'static str, u8)> {
    if !STOP.load(Ordering::SeqCst) {
        return None;
    }
    // Stopped without a signal number recorded: report it as Ctrl-C.
    let sig = match SIGNAL.load(Ordering::SeqCst) {
        0 => 2,
        s => s,
    };
    #[cfg(unix)]
    let name = match sig {
        libc::SIGTERM => "SIGTERM",
        _ => "SIGINT",
    };
    #[cfg(not(unix))]
    let name = "SIGINT";
    Some((name, u8::try_from(128 + sig).unwrap_or(130)))
}

//! Ctrl-C (SIGINT) and SIGTERM as a flag: long commands poll it and stop cleanly; a second
//! signal ends the process at once.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set when the user asked to stop.
pub static STOP: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_signal(sig: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
    // SAFETY: `signal` is async-signal-safe; restoring the default makes a second Ctrl-C
    // end the process at once.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
    }
}

/// Routes SIGINT and SIGTERM to [`STOP`].
#[cfg(unix)]
pub fn install_stop_handler() {
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
pub fn install_stop_handler() {
    let _ = Ordering::SeqCst;
}

//! Expect checks: what should be true after a step. One check per file, each returning a
//! [`Check`]; the replay runs them and the reports show them.

mod app_window;
mod check;
mod done;
mod field_contains;
mod next_control;
mod screen;
mod visible;

pub(crate) use check::{Check, ExpectCtx, check_expect, check_next_control};
pub(crate) use done::check_done;

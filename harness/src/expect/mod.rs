//! Expect checks: what should be true after a step. One check per file, each returning a
//! [`Check`]; the replay runs them and the reports show them. A browser step's options add
//! four kinds: `diffshot` (the page changed), `reads-text` (what was read), `received` (what
//! the recording answered a step's request), `simulated` (an option that cannot be replayed
//! offline).

mod app_window;
mod check;
mod diffshot;
mod done;
mod field_contains;
mod next_control;
mod operation;
pub(crate) mod origin;
mod reads_text;
mod received;
mod screen;
mod simulated;
mod visible;

pub(crate) use check::{Check, CheckKind, ExpectCtx, check_expect, check_next_control};
pub(crate) use diffshot::check as check_diffshot;
pub(crate) use done::check_done;
pub(crate) use operation::{
    OpCheck, Shown, check_operation, check_unknown_role, modifier_set, same_keys, unbound,
};
pub(crate) use reads_text::check as check_reads_text;
pub(crate) use received::check as check_received;
pub(crate) use simulated::check as check_simulated;

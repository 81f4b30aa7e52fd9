//! `stepreplay record`: real recordings from a live Linux desktop.
//!
//! The recorder starts (or joins) a desktop (`session`), starts the app, and plays an action
//! [`script`]: before the first step and after each one it waits for the screen and the tree
//! to settle, then keeps the screen (`x11`) and the whole accessibility tree (`tree`).
//! Targets are found in the live tree by role and name (`find`); input goes through XTEST.
//!
//! What it keeps is a `realrec` capture — the same layout as any other real recording — which
//! goes through `stepreplay import` unchanged, so a recording made here and one made elsewhere
//! are read by one set of rules. From the frames it also writes the Foxstep plan a guide author
//! would (`plan`) and a scenario that replays it, in the suite's layout:
//! `SUITE/recordings/NAME`, `SUITE/scenarios/NAME.json`, `SUITE/scenarios/NAME/plan.json`.
//!
//! With a guide instead of a script it [`follow`]s the guide live: each step found by the
//! replay's resolver on the live screen, acted, and kept, for a verdict per step.

pub(crate) mod browser;
pub(crate) mod find;
mod follow;
pub(crate) mod place;
pub(crate) mod plan;
mod record;
pub(crate) mod script;
pub(crate) mod session;
pub(crate) mod tree;
pub(crate) mod x11;

pub(crate) use follow::follow;
pub(crate) use follow::{Confirm, FollowOptions};
pub(crate) use record::RecordOptions;
pub(crate) use record::record;

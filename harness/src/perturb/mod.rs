//! Perturbations: deterministic changes to a recording that a careful follower should
//! survive — windows move, the screen changes scale, labels change case or get shortened,
//! look-alike controls appear, the theme goes dark. One perturbation per file.
//!
//! Each keeps element ids (so ground truth follows every element) and changes the AX
//! snapshots and the screenshots together where both can be changed honestly; see each
//! file for what it touches.

mod apply;
mod banner;
mod dark;
mod labels;
mod lookalike;
mod move_window;
mod reorder;
mod retitle;
mod scale;
#[cfg(test)]
mod tests;

pub(crate) use apply::perturb;
pub(crate) use apply::{Perturbation, STANDARD};

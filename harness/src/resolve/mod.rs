//! Target resolution — the hot path: index a frame once, then find each step's control.

pub mod crop;
mod grid;
mod groups;
mod hash;
mod ids;
mod index;
mod labels;
mod moved;
mod name;
mod owner;
mod target;
mod tiebreak;

pub use index::{FrameIndex, Node, WindowInfo};
pub use target::{AMBIGUITY_MARGIN, Candidate, Resolution, ResolveContext, Strategy, resolve};
pub use tiebreak::TieBreak;

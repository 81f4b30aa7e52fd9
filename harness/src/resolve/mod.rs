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
mod nearest;
mod owner;
pub(crate) mod selector;
mod target;
mod tiebreak;

pub use index::{FrameIndex, Node, WindowInfo};
pub(crate) use nearest::{nearest, nearest_names};
pub use target::{AMBIGUITY_MARGIN, Candidate, Resolution, ResolveContext, Strategy, resolve};
pub(crate) use tiebreak::TieBreak;

/// The unit tests' screen, and resolving on it without a picture: `t` on `now`, with the
/// plan's other targets `anchors`.
#[cfg(test)]
pub(crate) mod testing {
    use super::{FrameIndex, Resolution, ResolveContext, resolve};
    use crate::plan::Target;
    use crate::recording::AxSnapshot;

    pub(crate) const SCREEN: (u32, u32) = (400, 300);

    pub(crate) fn run(t: &Target, now: &AxSnapshot, anchors: &[&Target]) -> Resolution {
        let ix = FrameIndex::new(now);
        let ctx = ResolveContext {
            screen: SCREEN,
            crop: None,
            anchors,
        };
        resolve(t, &ix, &ctx)
    }
}

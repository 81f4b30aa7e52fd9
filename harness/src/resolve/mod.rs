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
mod picture;
// It writes targets as `record` does (Linux only).
#[cfg(all(test, target_os = "linux"))]
mod real_fields;
pub(crate) mod selector;
mod target;
mod tiebreak;

pub use index::FrameIndex;
pub(crate) use index::{Node, WindowInfo};
pub(crate) use nearest::{nearest, nearest_names, nearest_windows};
#[cfg(test)]
pub(crate) use target::AMBIGUITY_MARGIN;
pub(crate) use target::Resolution;
pub use target::{ResolveContext, Strategy, resolve};
#[cfg(test)]
pub(crate) use tiebreak::TieBreak;

/// The unit tests' screen, and resolving on it without a picture: `t` on `now`, with the
/// plan's other targets `anchors`.
#[cfg(test)]
pub(crate) mod testing {
    use image::{Rgba, RgbaImage};

    use super::{FrameIndex, Resolution, ResolveContext, resolve};
    use crate::plan::Target;
    use crate::recording::AxSnapshot;

    pub(crate) const SCREEN: (u32, u32) = (400, 300);

    /// The screen of a frame: each element drawn with its own pattern, the same wherever the
    /// element is, on a plain background.
    pub(crate) fn paint(snap: &AxSnapshot) -> RgbaImage {
        let mut img = RgbaImage::from_pixel(SCREEN.0, SCREEN.1, Rgba([240, 240, 240, 255]));
        let ix = FrameIndex::new(snap);
        for (k, n) in ix.nodes.iter().enumerate() {
            let f = n.frame;
            for y in 0..f.height {
                for x in 0..f.width {
                    let v = ((x * (3 + k as i32) + y * (7 + 5 * k as i32)) % 97) as u8 * 2;
                    img.put_pixel(
                        (f.x + x) as u32,
                        (f.y + y) as u32,
                        Rgba([v, 255 - v, v / 2, 255]),
                    );
                }
            }
        }
        img
    }

    pub(crate) fn run(t: &Target, now: &AxSnapshot, anchors: &[&Target]) -> Resolution {
        run_on(t, &FrameIndex::new(now), SCREEN, anchors)
    }

    /// [`run`] on an indexed frame of a screen of any size.
    pub(crate) fn run_on(
        t: &Target,
        ix: &FrameIndex,
        screen: (u32, u32),
        anchors: &[&Target],
    ) -> Resolution {
        let ctx = ResolveContext {
            screen,
            crop: None,
            anchors,
        };
        resolve(t, ix, &ctx)
    }
}

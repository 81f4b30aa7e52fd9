//! Before/after diffs: a pixelmatch 7.2.0-exact pixel diff, the changed regions and their
//! density, masks for dynamic content, a verdict kept apart from the result, and the AX tree
//! diff with its text rendering.

pub mod ax;
pub(crate) mod ax_text;
mod bands;
pub mod files;
pub mod mask;
pub mod pixel;
#[cfg(test)]
mod reference;
pub mod regions;
pub(crate) mod step;
pub mod summary;
pub mod verdict;

pub(crate) use ax::AxSummary;
pub use mask::Masks;
pub use pixel::Options;
pub(crate) use step::StepDiff;
pub(crate) use summary::PixelSummary;
pub(crate) use verdict::Tolerance;
pub use verdict::{Verdict, verdict};

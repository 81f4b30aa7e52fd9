//! What one step changed: the recorded screens and AX snapshots either side of it, compared
//! with the engines `stepreplay diff` uses, so a report's step and a hand-run diff of the same
//! two frames agree. The main type is [`StepDiff`].

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use image::RgbaImage;
use serde::{Deserialize, Serialize};

use super::pixel::SizeError;
use super::regions::DEFAULT_MERGE_GAP;
use super::summary::{DEFAULT_DENSITY_WINDOW, PixelSummary};
use super::verdict::Tolerance;
use super::{AxSummary, ax, pixel};
use crate::recording::Frame;

/// The before/after comparison of one step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepDiff {
    /// The pixel diff under pixelmatch's defaults (threshold 0.1, anti-aliasing ignored).
    /// Absent when a screenshot could not be read or the two differ in size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pixel: Option<PixelSummary>,
    /// Why there is no pixel diff.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pixel_note: Option<String>,
    /// What changed in the accessibility tree.
    pub(crate) ax: AxSummary,
}

/// One frame pair's diff, filled by whichever replay asks first.
type Pair = Arc<OnceLock<StepDiff>>;

/// The step diffs of one recording, each frame pair computed once however many scenarios and
/// modes replay it. The lock is held only to find a pair's cell, so different pairs are
/// computed in parallel.
#[derive(Debug, Default)]
pub(crate) struct StepDiffs {
    pairs: Mutex<BTreeMap<(usize, usize), Pair>>,
}

impl StepDiffs {
    /// The diff of going from `frames[before]` to `frames[after]`.
    pub(crate) fn get(&self, frames: &[Frame], before: usize, after: usize) -> StepDiff {
        let cell = {
            let mut pairs = crate::par::lock(&self.pairs);
            pairs.entry((before, after)).or_default().clone()
        };
        cell.get_or_init(|| compare_frames(&frames[before], &frames[after]))
            .clone()
    }
}

/// Compares two frames. The screenshots are decoded once per frame (the recording caches them).
pub(crate) fn compare_frames(before: &Frame, after: &Frame) -> StepDiff {
    let ax = ax::diff(&before.ax, &after.ax).summary;
    let (pixel, pixel_note) = match pixel_summary(before, after) {
        Ok(s) => (Some(s), None),
        Err(why) => (None, Some(why.to_string())),
    };
    StepDiff {
        pixel,
        pixel_note,
        ax,
    }
}

/// The diff image of a step (pixelmatch's rendering: a faded copy of `before`, changed pixels
/// red, anti-aliasing yellow), for `run --captures`.
pub(crate) fn diff_image(before: &Frame, after: &Frame) -> Result<RgbaImage, NoPixels> {
    let (a, b) = pair(before, after)?;
    let mut out = RgbaImage::new(a.width(), a.height());
    pixel::diff_images(&a, &b, &Tolerance::default().options(), Some(&mut out))?;
    Ok(out)
}

/// Why a step has no pixel comparison; the text is the report's `pixel_note`.
#[derive(Clone, Debug, thiserror::Error)]
pub(crate) enum NoPixels {
    /// A frame's screenshot could not be read or decoded.
    #[error("frame `{frame}`: {why}")]
    Unreadable {
        /// The frame's id.
        frame: String,
        /// What the decoder said.
        why: String,
    },
    /// The two screenshots differ in size.
    #[error(transparent)]
    Size(#[from] SizeError),
}

fn pair(before: &Frame, after: &Frame) -> Result<(Arc<RgbaImage>, Arc<RgbaImage>), NoPixels> {
    let read = |f: &Frame| {
        f.pixels().map_err(|e| NoPixels::Unreadable {
            frame: f.id.clone(),
            why: e.message,
        })
    };
    Ok((read(before)?, read(after)?))
}

fn pixel_summary(before: &Frame, after: &Frame) -> Result<PixelSummary, NoPixels> {
    let (a, b) = pair(before, after)?;
    let tol = Tolerance::default();
    let diff = pixel::diff_images(&a, &b, &tol.options(), None)?;
    Ok(PixelSummary::new(
        &diff,
        None,
        &tol,
        DEFAULT_MERGE_GAP,
        DEFAULT_DENSITY_WINDOW,
    ))
}

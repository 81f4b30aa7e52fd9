//! The pixel diff summary reports carry: counts, ratio, changed regions, density, masks and the
//! verdict, as plain serializable data. The main type is [`PixelSummary`]; both `stepreplay
//! diff --format json` and replay reports print it, so the two never disagree.

use serde::{Deserialize, Serialize};

use super::mask::MaskStats;
use super::pixel::PixelDiff;
use super::regions::{Density, Region, density, regions};
use super::verdict::{Tolerance, Verdict, verdict};
use crate::json::round;

/// Default side of the density window, in pixels: about a control's height at 2x, so a broken
/// button is dense while the same count of scattered anti-aliasing noise is not.
pub(crate) const DEFAULT_DENSITY_WINDOW: u32 = 32;

/// Most regions listed in a summary; `regions_total` still counts them all.
pub(crate) const MAX_LISTED_REGIONS: usize = 100;

/// What a pixel comparison found, ready to serialize.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct PixelSummary {
    /// Image width.
    pub width: u32,
    /// Image height.
    pub height: u32,
    /// `width · height`.
    pub pixels: u64,
    /// Mismatched pixels: pixelmatch 7.2.0's count, minus any inside masks.
    pub mismatched: u64,
    /// `mismatched / pixels`, rounded to 6 decimals.
    pub ratio: f64,
    /// Changed regions, merged when close (the first `MAX_LISTED_REGIONS`).
    pub regions: Vec<Region>,
    /// Number of changed regions.
    pub regions_total: u64,
    /// The densest window.
    pub density: DensitySummary,
    /// What masks excluded, when any were given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub masks: Option<MaskStats>,
    /// Pass or fail under the tolerance.
    pub verdict: Verdict,
}

/// `Density` with its fraction, for reports.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct DensitySummary {
    /// Window side.
    pub n: u32,
    /// Changed pixels in the densest window.
    pub max_changed: u64,
    /// `max_changed` over the window's area, rounded to 6 decimals.
    pub fraction: f64,
    /// Where that window is.
    pub window: Region,
}

impl From<Density> for DensitySummary {
    fn from(d: Density) -> Self {
        DensitySummary {
            n: d.n,
            max_changed: d.max_changed,
            fraction: round(d.fraction()),
            window: d.window,
        }
    }
}

impl PixelSummary {
    /// Summarises a (possibly masked) diff: regions merged within `merge_gap`, density over
    /// `density_window`-sided windows, and the verdict under `tol`.
    pub fn new(
        diff: &PixelDiff,
        masks: Option<MaskStats>,
        tol: &Tolerance,
        merge_gap: u32,
        density_window: u32,
    ) -> Self {
        let pixels = u64::from(diff.width) * u64::from(diff.height);
        // Both passes on this thread: a thread for the other pass saved ~0.1 ms on a quiet
        // machine, but beside busy processes it waited for a CPU for milliseconds.
        let mut all = regions(&diff.mask, diff.width, diff.height, merge_gap);
        let dense = density(&diff.mask, diff.width, diff.height, density_window);
        let regions_total = all.len() as u64;
        all.truncate(MAX_LISTED_REGIONS);
        PixelSummary {
            width: diff.width,
            height: diff.height,
            pixels,
            mismatched: diff.mismatched,
            ratio: if pixels == 0 {
                0.0
            } else {
                round(diff.mismatched as f64 / pixels as f64)
            },
            regions: all,
            regions_total,
            density: dense.into(),
            masks,
            verdict: verdict(diff, tol),
        }
    }
}

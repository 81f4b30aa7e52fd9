//! Pass or fail for a pixel diff, kept apart from the diff itself.
//!
//! [`super::pixel::PixelDiff`] says what changed; [`verdict`] decides whether that is
//! acceptable under a [`Tolerance`] written in the terms screenshot-testing users know
//! (Playwright's `threshold`, `maxDiffPixels`, `maxDiffPixelRatio`). The main type is
//! [`Verdict`].

use serde::Serialize;

use super::pixel::{Options, PixelDiff};

/// How much change is acceptable.
#[derive(Clone, Debug, PartialEq)]
pub struct Tolerance {
    /// The per-pixel colour threshold the diff is run with (pixelmatch's `threshold`).
    pub threshold: f64,
    /// Most mismatched pixels allowed; `None` for no count limit.
    pub max_diff_pixels: Option<u64>,
    /// Most mismatched pixels allowed as a fraction of all pixels (`0..=1`); `None` for none.
    pub max_diff_pixel_ratio: Option<f64>,
}

impl Default for Tolerance {
    /// Exact: pixelmatch's default threshold and no mismatched pixel allowed.
    fn default() -> Self {
        Tolerance {
            threshold: Options::default().threshold,
            max_diff_pixels: None,
            max_diff_pixel_ratio: None,
        }
    }
}

impl Tolerance {
    /// The most mismatched pixels allowed in an image of `pixels` pixels. With both limits the
    /// stricter one applies; with neither, none is allowed (as in Playwright).
    pub(crate) fn allowed(&self, pixels: u64) -> u64 {
        match (self.max_diff_pixels, self.max_diff_pixel_ratio) {
            (None, None) => 0,
            (count, ratio) => {
                let by_ratio = ratio.map_or(u64::MAX, |r| {
                    // Floor: a ratio allows only whole pixels it fully covers.
                    (r.clamp(0.0, 1.0) * pixels as f64).floor() as u64
                });
                count.unwrap_or(u64::MAX).min(by_ratio)
            }
        }
    }

    /// Pixel diff options with this tolerance's threshold and pixelmatch's other defaults.
    pub(crate) fn options(&self) -> Options {
        Options {
            threshold: self.threshold,
            ..Options::default()
        }
    }
}

/// The outcome of comparing a diff with a tolerance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Verdict {
    /// No pixel counted as mismatched.
    Identical,
    /// Some pixels differ, no more than allowed.
    WithinTolerance {
        /// Mismatched pixels.
        mismatched: u64,
        /// The most allowed.
        allowed: u64,
    },
    /// More pixels differ than allowed.
    Different {
        /// Mismatched pixels.
        mismatched: u64,
        /// The most allowed.
        allowed: u64,
    },
}

impl Verdict {
    /// Whether the comparison passes.
    pub(crate) fn passed(&self) -> bool {
        !matches!(self, Verdict::Different { .. })
    }

    /// The CLI exit code: 0 pass, 1 fail.
    pub fn exit_code(&self) -> u8 {
        if self.passed() { 0 } else { 1 }
    }
}

/// Decides whether `diff` is acceptable under `tol`.
pub fn verdict(diff: &PixelDiff, tol: &Tolerance) -> Verdict {
    let mismatched = diff.mismatched;
    if mismatched == 0 {
        return Verdict::Identical;
    }
    let allowed = tol.allowed(u64::from(diff.width) * u64::from(diff.height));
    if mismatched <= allowed {
        Verdict::WithinTolerance {
            mismatched,
            allowed,
        }
    } else {
        Verdict::Different {
            mismatched,
            allowed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(mismatched: u64) -> PixelDiff {
        PixelDiff {
            width: 100,
            height: 10,
            mismatched,
            mask: vec![0; 16],
        }
    }

    #[test]
    fn exact_by_default() {
        let t = Tolerance::default();
        assert_eq!(verdict(&d(0), &t), Verdict::Identical);
        assert_eq!(
            verdict(&d(1), &t),
            Verdict::Different {
                mismatched: 1,
                allowed: 0
            }
        );
        assert_eq!(t.options(), Options::default());
    }

    #[test]
    fn the_stricter_limit_applies() {
        let t = Tolerance {
            max_diff_pixels: Some(50),
            max_diff_pixel_ratio: Some(0.01), // 10 of 1000 pixels
            ..Tolerance::default()
        };
        assert!(verdict(&d(10), &t).passed());
        assert!(!verdict(&d(11), &t).passed());
        let t = Tolerance {
            max_diff_pixels: Some(5),
            ..t
        };
        assert_eq!(verdict(&d(6), &t).exit_code(), 1);
        let only_ratio = Tolerance {
            max_diff_pixel_ratio: Some(0.5),
            ..Tolerance::default()
        };
        assert_eq!(only_ratio.allowed(1000), 500);
        assert!(verdict(&d(500), &only_ratio).passed());
    }
}

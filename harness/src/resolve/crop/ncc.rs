//! Normalized cross-correlation scores (`score_map`) equal to OpenCV's `TM_CCOEFF_NORMED`:
//!
//! ```text
//! R(x, y) = Σ T'·I' / √(Σ T'² · Σ I'²),  T' = T − mean(T),  I' = window − mean(window)
//! ```
//!
//! Rewritten over raw sums so that only one product per pixel remains: with `N` pixels,
//! `R = (N·ΣTI − ΣT·ΣI) / √((N·ΣT² − (ΣT)²) · (N·ΣI² − (ΣI)²))`. The window sums come from
//! summed-area tables; `ΣTI` is an integer dot product over contiguous rows (u8 × u8 → u32),
//! which the compiler vectorises. Every sum is an exact integer and the numerator and
//! variances are formed in `i128`, so there is no cancellation error and flatness is decided
//! exactly.
//!
//! Flat cases, where the formula divides by zero:
//! - a flat window (zero variance) under a textured crop scores `0`, as in OpenCV: a patch with
//!   no structure cannot resemble one that has some;
//! - a flat crop scores `1` on a flat window of the same grey level and `0` everywhere else (OpenCV
//!   returns `1` everywhere, which would make a solid swatch match any place at all).

use super::gray::Plane;
use super::integral::Integral;

/// A crop prepared for scoring: its pixels and the sums that do not depend on the window.
pub(crate) struct Template {
    pub plane: Plane,
    sum: u64,
    /// `N·ΣT² − (ΣT)²`, zero exactly when the crop is flat.
    var_n: i128,
}

impl Template {
    pub fn new(plane: Plane) -> Template {
        let sum: u64 = plane.data.iter().map(|&v| u64::from(v)).sum();
        let sq: u64 = plane
            .data
            .iter()
            .map(|&v| u64::from(v) * u64::from(v))
            .sum();
        let n = plane.data.len() as i128;
        let var_n = n * sq as i128 - (sum as i128) * (sum as i128);
        Template { plane, sum, var_n }
    }

    pub fn width(&self) -> usize {
        self.plane.width
    }

    pub fn height(&self) -> usize {
        self.plane.height
    }

    /// True when every pixel has the same value.
    pub fn is_flat(&self) -> bool {
        self.var_n == 0
    }

    /// The score for a window with dot product `dot`, sum `ws` and sum of squares `wq`.
    #[inline]
    fn score(&self, dot: u64, ws: u64, wq: u64) -> f64 {
        let n = self.plane.data.len() as i128;
        let var_i = n * wq as i128 - (ws as i128) * (ws as i128);
        if self.var_n == 0 {
            return if var_i == 0 && ws == self.sum {
                1.0
            } else {
                0.0
            };
        }
        if var_i <= 0 {
            return 0.0;
        }
        let num = n * dot as i128 - (self.sum as i128) * (ws as i128);
        let r = num as f64 / ((self.var_n as f64) * (var_i as f64)).sqrt();
        r.clamp(-1.0, 1.0)
    }
}

/// Scores of `t` at the `nx`×`ny` top-left positions starting at (`x0`, `y0`) of `src`, row by
/// row. The caller keeps every window inside `src`.
pub(crate) fn score_map(
    src: &Plane,
    t: &Template,
    x0: usize,
    y0: usize,
    nx: usize,
    ny: usize,
) -> Vec<f64> {
    let (w, h) = (t.width(), t.height());
    let integral = Integral::new(src, x0, y0, nx + w - 1, ny + h - 1);
    let mut out = Vec::with_capacity(nx * ny);
    for y in 0..ny {
        for x in 0..nx {
            let (ws, wq) = integral.window(x, y, w, h);
            let dot = if t.is_flat() {
                0
            } else {
                window_dot(src, t, x0 + x, y0 + y)
            };
            out.push(t.score(dot, ws, wq));
        }
    }
    out
}

/// The exact score of `t` at one position.
pub(crate) fn score_at(src: &Plane, t: &Template, x: usize, y: usize) -> f64 {
    score_map(src, t, x, y, 1, 1)[0]
}

/// `ΣTI` over the window at (`x`, `y`).
#[inline]
fn window_dot(src: &Plane, t: &Template, x: usize, y: usize) -> u64 {
    let w = t.width();
    let mut total = 0u64;
    for (r, trow) in t.plane.data.chunks_exact(w).enumerate() {
        total += row_dot(trow, src.row(x, y + r, w));
    }
    total
}

/// Dot product of two byte rows. Chunks of 4096 keep the `u32` accumulator from overflowing
/// (4096 · 255² < 2³²) while leaving the inner loop plain enough to vectorise.
#[inline]
fn row_dot(a: &[u8], b: &[u8]) -> u64 {
    const CHUNK: usize = 4096;
    let mut total = 0u64;
    for (ca, cb) in a.chunks(CHUNK).zip(b.chunks(CHUNK)) {
        let s: u32 = ca
            .iter()
            .zip(cb)
            .map(|(&p, &q)| u32::from(p) * u32::from(q))
            .sum();
        total += u64::from(s);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::super::reference::ncc_reference;
    use super::super::synth::Rng;
    use super::*;

    fn plane(w: usize, h: usize, rng: &mut Rng, levels: u32) -> Plane {
        let data = (0..w * h).map(|_| (rng.below(levels) * (255 / (levels - 1).max(1))) as u8);
        Plane {
            width: w,
            height: h,
            data: data.collect(),
        }
    }

    #[test]
    fn agrees_with_the_formula_on_random_images() {
        let mut rng = Rng::new(7);
        for case in 0..60 {
            let (sw, sh) = (1 + rng.below(24) as usize, 1 + rng.below(18) as usize);
            let (tw, th) = (
                1 + rng.below(sw as u32) as usize,
                1 + rng.below(sh as u32) as usize,
            );
            // Few grey levels make flat windows and exact ties common, which is the point.
            let levels = [2, 3, 256][case % 3];
            let src = plane(sw, sh, &mut rng, levels);
            let t = Template::new(plane(tw, th, &mut rng, levels));
            let (nx, ny) = (sw - tw + 1, sh - th + 1);
            let fast = score_map(&src, &t, 0, 0, nx, ny);
            for y in 0..ny {
                for x in 0..nx {
                    let want = ncc_reference(&src, &t.plane, x, y);
                    let got = fast[y * nx + x];
                    assert!(
                        (got - want).abs() < 1e-9,
                        "case {case} at {x},{y}: {got} vs {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn exact_copy_scores_one_and_inverse_minus_one() {
        let mut rng = Rng::new(3);
        let src = plane(20, 10, &mut rng, 256);
        let crop = Plane {
            width: 5,
            height: 4,
            data: (0..4).flat_map(|r| src.row(7, 3 + r, 5).to_vec()).collect(),
        };
        let inverse = Plane {
            data: crop.data.iter().map(|v| 255 - v).collect(),
            ..crop.clone()
        };
        assert!((score_at(&src, &Template::new(crop), 7, 3) - 1.0).abs() < 1e-12);
        assert!((score_at(&src, &Template::new(inverse), 7, 3) + 1.0).abs() < 1e-12);
    }

    #[test]
    fn flat_cases_are_defined() {
        let src = Plane {
            width: 4,
            height: 1,
            data: vec![9, 9, 9, 200],
        };
        let flat = Template::new(Plane {
            width: 2,
            height: 1,
            data: vec![9, 9],
        });
        assert_eq!(score_map(&src, &flat, 0, 0, 3, 1), vec![1.0, 1.0, 0.0]);
        let textured = Template::new(Plane {
            width: 2,
            height: 1,
            data: vec![0, 255],
        });
        assert_eq!(score_map(&src, &textured, 0, 0, 3, 1), vec![0.0, 0.0, 1.0]);
    }

    #[test]
    fn wide_rows_do_not_overflow() {
        let w = 5000;
        let src = Plane {
            width: w,
            height: 1,
            data: (0..w).map(|i| (i % 256) as u8).collect(),
        };
        let t = Template::new(src.clone());
        assert!((score_at(&src, &t, 0, 0) - 1.0).abs() < 1e-12);
    }
}

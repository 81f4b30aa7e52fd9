//! Approximate scores for the coarse pass ([`CoarseTemplate`], `coarse_map`): the same
//! `TM_CCOEFF_NORMED` as `ncc`, in `f32`, over a whole downscaled screen.
//!
//! The coarse pass only decides where to look (every reported score is recomputed exactly at
//! full resolution), so it trades exactness for speed:
//! - the crop is stored minus its mean, so the numerator `Σ T'·I'` is the plain dot product
//!   `Σ T'·I` (the window's mean drops out because `Σ T' = 0`);
//! - positions are scored sixteen at a time, with sixteen `f32` sums that stay in vector
//!   registers while the loop walks the crop pixel by pixel (a broadcast times a contiguous
//!   run of sixteen screen values), which the baseline SSE2 target already runs four wide;
//! - window sums and sums of squares come from summed-area tables, as in `ncc`.

use super::gray::Plane;
use super::integral::Integral;

/// Positions scored together (one register block of sums).
const LANES: usize = 16;

/// A downscaled crop prepared for `coarse_map`.
pub(crate) struct CoarseTemplate {
    width: usize,
    height: usize,
    /// Pixels minus their mean, row-major.
    centred: Vec<f32>,
    /// `Σ T'²`, zero exactly when the crop is flat.
    energy: f64,
}

impl CoarseTemplate {
    pub(crate) fn new(plane: &Plane) -> CoarseTemplate {
        let n = plane.data.len().max(1) as f64;
        let sum: u64 = plane.data.iter().map(|&v| u64::from(v)).sum();
        let mean = sum as f64 / n;
        let centred: Vec<f32> = plane
            .data
            .iter()
            .map(|&v| (f64::from(v) - mean) as f32)
            .collect();
        let flat = plane.data.iter().all(|&v| v == plane.data[0]);
        let energy = if flat {
            0.0
        } else {
            plane
                .data
                .iter()
                .map(|&v| (f64::from(v) - mean).powi(2))
                .sum()
        };
        CoarseTemplate {
            width: plane.width,
            height: plane.height,
            centred,
            energy,
        }
    }

    pub(crate) fn width(&self) -> usize {
        self.width
    }

    pub(crate) fn height(&self) -> usize {
        self.height
    }
}

/// A downscaled screen prepared once for the `coarse_map`s of all phases of a crop.
pub(crate) struct CoarseScreen {
    width: usize,
    height: usize,
    /// The pixels as `f32` rows of `stride`, padded so that a block of positions past the
    /// row's end reads zeros instead of leaving the slice (those positions are discarded).
    rows: Vec<f32>,
    stride: usize,
    integral: Integral,
}

impl CoarseScreen {
    pub(crate) fn new(src: &Plane) -> CoarseScreen {
        let stride = src.width + LANES;
        let mut rows = vec![0f32; stride * src.height];
        for (dst, line) in rows
            .chunks_exact_mut(stride)
            .zip(src.data.chunks_exact(src.width.max(1)))
        {
            for (d, &v) in dst.iter_mut().zip(line) {
                *d = f32::from(v);
            }
        }
        CoarseScreen {
            width: src.width,
            height: src.height,
            rows,
            stride,
            integral: Integral::new(src, 0, 0, src.width, src.height),
        }
    }

    pub(crate) fn width(&self) -> usize {
        self.width
    }

    pub(crate) fn height(&self) -> usize {
        self.height
    }
}

/// Approximate scores of `t` at every position of `src` where it fits, row by row
/// (`(src.width − t.width + 1)` per row). Flat windows score 0. `src` must be at least as
/// large as `t`, and `t` not flat.
pub(crate) fn coarse_map(src: &CoarseScreen, t: &CoarseTemplate) -> Vec<f64> {
    let (w, h) = (t.width, t.height);
    let (nx, ny) = (src.width + 1 - w, src.height + 1 - h);
    let (rows, stride, integral) = (&src.rows, src.stride, &src.integral);
    let n = (w * h) as f64;
    let mut out = vec![0.0; nx * ny];
    for y in 0..ny {
        for xb in (0..nx).step_by(LANES) {
            let mut acc = [0f32; LANES];
            for (r, trow) in t.centred.chunks_exact(w).enumerate() {
                let srow = &rows[(y + r) * stride + xb..(y + r) * stride + xb + w + LANES - 1];
                for (c, &tv) in trow.iter().enumerate() {
                    let run: &[f32; LANES] = srow[c..c + LANES].try_into().expect("block");
                    for k in 0..LANES {
                        acc[k] += tv * run[k];
                    }
                }
            }
            let row = &mut out[y * nx..(y + 1) * nx];
            for (k, o) in row[xb..].iter_mut().take(LANES).enumerate() {
                let (ws, wq) = integral.window(xb + k, y, w, h);
                let var = (n * wq as f64 - (ws as f64) * (ws as f64)) / n;
                *o = if var <= 0.0 {
                    0.0
                } else {
                    (f64::from(acc[k]) / (t.energy * var).sqrt()).clamp(-1.0, 1.0)
                };
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::ncc::{Template, score_map};
    use super::super::synth::Rng;
    use super::*;

    #[test]
    fn close_to_the_exact_scores() {
        let mut rng = Rng::new(5);
        for case in 0..20 {
            let (sw, sh) = (
                20 + rng.below_u32(40) as usize,
                5 + rng.below_u32(12) as usize,
            );
            let (tw, th) = (
                2 + rng.below_u32(15) as usize,
                2 + rng.below_u32(4) as usize,
            );
            let src = Plane {
                width: sw,
                height: sh,
                data: (0..sw * sh).map(|_| rng.below_u32(256) as u8).collect(),
            };
            let tpl = Plane {
                width: tw,
                height: th,
                data: (0..tw * th).map(|_| rng.below_u32(256) as u8).collect(),
            };
            let approx = coarse_map(&CoarseScreen::new(&src), &CoarseTemplate::new(&tpl));
            let exact = score_map(&src, &Template::new(tpl), 0, 0, sw - tw + 1, sh - th + 1);
            assert_eq!(approx.len(), exact.len());
            for (i, (a, e)) in approx.iter().zip(&exact).enumerate() {
                assert!((a - e).abs() < 1e-4, "case {case} at {i}: {a} vs {e}");
            }
        }
    }

    #[test]
    fn flat_windows_score_zero() {
        let src = Plane {
            width: 5,
            height: 1,
            data: vec![7, 7, 7, 0, 200],
        };
        let tpl = Plane {
            width: 2,
            height: 1,
            data: vec![0, 200],
        };
        let map = coarse_map(&CoarseScreen::new(&src), &CoarseTemplate::new(&tpl));
        assert_eq!(map[..2], [0.0, 0.0]);
        assert!(map[2] < 0.0 && (map[3] - 1.0).abs() < 1e-6);
    }
}

//! The `TM_CCOEFF_NORMED` formula written out plainly in `f64`, used only to test `ncc`.
//!
//! No summed-area tables, no integer tricks: means first, then centred products, so that a
//! disagreement points at the optimised code. Flat cases follow the rules documented in `ncc`.

use super::gray::Plane;

/// Score of `t` at (`x`, `y`) of `src`.
pub(crate) fn ncc_reference(src: &Plane, t: &Plane, x: usize, y: usize) -> f64 {
    let n = (t.width * t.height) as f64;
    let window: Vec<f64> = (0..t.height)
        .flat_map(|r| src.row(x, y + r, t.width).to_vec())
        .map(f64::from)
        .collect();
    let tpl: Vec<f64> = t.data.iter().copied().map(f64::from).collect();
    let mean_w = window.iter().sum::<f64>() / n;
    let mean_t = tpl.iter().sum::<f64>() / n;
    let (mut num, mut var_w, mut var_t) = (0.0, 0.0, 0.0);
    for (a, b) in tpl.iter().zip(&window) {
        num += (a - mean_t) * (b - mean_w);
        var_t += (a - mean_t) * (a - mean_t);
        var_w += (b - mean_w) * (b - mean_w);
    }
    let flat_w = window.iter().all(|&v| v == window[0]);
    let flat_t = tpl.iter().all(|&v| v == tpl[0]);
    if flat_t {
        return if flat_w && window[0] == tpl[0] {
            1.0
        } else {
            0.0
        };
    }
    if flat_w {
        return 0.0;
    }
    num / (var_t * var_w).sqrt()
}

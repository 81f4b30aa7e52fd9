//! Normalized cross-correlation scores (`score_map`) equal to OpenCV's `TM_CCOEFF_NORMED`:
//!
//! ```text
//! R(x, y) = Σ T'·I' / √(Σ T'² · Σ I'²),  T' = T − mean(T),  I' = window − mean(window)
//! ```
//!
//! Rewritten over raw sums so that only one product per pixel remains: with `N` pixels,
//! `R = (N·ΣTI − ΣT·ΣI) / √((N·ΣT² − (ΣT)²) · (N·ΣI² − (ΣI)²))`. The window sums come from
//! summed-area tables; `ΣTI` is an integer multiply-add over contiguous rows (u8 × u8 → u32),
//! which the compiler vectorises. Every sum is an exact integer and the numerator and
//! variances are formed exactly (see `Template::score`), so there is no cancellation error and
//! flatness is decided exactly.
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
    pub(crate) plane: Plane,
    sum: u64,
    /// `ΣT²`: an exact copy's window has the crop's own sums, so its score needs no pixels.
    sq: u64,
    /// `N·ΣT² − (ΣT)²`, zero exactly when the crop is flat.
    var_n: i128,
    /// The rows as whole blocks, for crops at least one block wide; built on first use,
    /// since a crop with an exact copy on screen is never scored window by window.
    blocks: std::cell::OnceCell<Option<Blocks>>,
}

/// Bytes per block of `Blocks`.
const BLOCK: usize = 16;

/// A crop's rows cut into `BLOCK`-byte blocks for `Blocks::dot`: blocks at 0, 16, 32, … and,
/// when the width is not a multiple of 16, one more that ends at the row's end, with the bytes
/// the previous block already covers zeroed. Every product then runs on whole blocks, which
/// the compiler vectorises with no scalar tail, and the zeroed bytes add nothing.
struct Blocks {
    /// Where each block starts in a row (the same for every row).
    offsets: Vec<usize>,
    /// `offsets.len()` blocks per row, row after row.
    data: Vec<[u8; BLOCK]>,
}

impl Blocks {
    fn new(plane: &Plane) -> Option<Blocks> {
        let w = plane.width;
        if w < BLOCK {
            return None;
        }
        let mut offsets: Vec<usize> = (0..w / BLOCK).map(|b| b * BLOCK).collect();
        let tail = w % BLOCK;
        if tail != 0 {
            offsets.push(w - BLOCK);
        }
        let mut data = Vec::with_capacity(offsets.len() * plane.height);
        for row in plane.data.chunks_exact(w) {
            for &off in &offsets {
                let mut block: [u8; BLOCK] = row[off..off + BLOCK].try_into().expect("block");
                if tail != 0 && off == w - BLOCK {
                    block[..BLOCK - tail].fill(0);
                }
                data.push(block);
            }
        }
        Some(Blocks { offsets, data })
    }

    /// `ΣTI` for the window of `src` at (`x`, `y`), `w` wide.
    #[inline]
    fn dot(&self, src: &Plane, x: usize, y: usize, w: usize) -> u64 {
        let nb = self.offsets.len();
        // Each lane takes one product per block; move the lanes into the total before they
        // could overflow.
        let rows_per_flush = (MAX_PRODUCTS / nb).max(1);
        let mut lanes = [0u32; BLOCK];
        let mut total = 0u64;
        for (r, blocks) in self.data.chunks_exact(nb).enumerate() {
            if r > 0 && r % rows_per_flush == 0 {
                total += lanes.iter().map(|&v| u64::from(v)).sum::<u64>();
                lanes = [0; BLOCK];
            }
            let srow = src.row(x, y + r, w);
            for (b, &off) in blocks.iter().zip(&self.offsets) {
                let s: &[u8; BLOCK] = srow[off..off + BLOCK].try_into().expect("block");
                for k in 0..BLOCK {
                    lanes[k] += u32::from(b[k]) * u32::from(s[k]);
                }
            }
        }
        total + lanes.iter().map(|&v| u64::from(v)).sum::<u64>()
    }
}

impl Template {
    pub(crate) fn new(plane: Plane) -> Template {
        let (sum, sq) = sums(&plane.data);
        let n = plane.data.len() as i128;
        let var_n = n * sq as i128 - (sum as i128) * (sum as i128);
        Template {
            plane,
            sum,
            sq,
            var_n,
            blocks: std::cell::OnceCell::new(),
        }
    }

    pub(crate) fn width(&self) -> usize {
        self.plane.width
    }

    pub(crate) fn height(&self) -> usize {
        self.plane.height
    }

    fn blocks(&self) -> Option<&Blocks> {
        self.blocks
            .get_or_init(|| Blocks::new(&self.plane))
            .as_ref()
    }

    /// The score at a window that shows the crop pixel for pixel: the same as
    /// [`score_map`] there (every sum is the crop's own), without reading the window.
    pub(crate) fn copy_score(&self) -> f64 {
        self.score(self.sq, self.sum, self.sq)
    }

    /// True when every pixel has the same value.
    pub(crate) fn is_flat(&self) -> bool {
        self.var_n == 0
    }

    /// The score for a window with dot product `dot`, sum `ws` and sum of squares `wq`.
    #[inline]
    fn score(&self, dot: u64, ws: u64, wq: u64) -> f64 {
        let n = self.plane.data.len() as u64;
        // Both products of each difference are below N²·255², so for crops under about 370k
        // pixels they are exact in f64 and so is their difference; larger crops use i128.
        let (var_i, num) = if n < 370_000 {
            let nf = n as f64;
            let var_i = nf * wq as f64 - (ws as f64) * (ws as f64);
            (var_i, nf * dot as f64 - self.sum as f64 * ws as f64)
        } else {
            let n = i128::from(n);
            let var_i = n * i128::from(wq) - i128::from(ws) * i128::from(ws);
            let num = n * i128::from(dot) - i128::from(self.sum) * i128::from(ws);
            (var_i as f64, num as f64)
        };
        if self.var_n == 0 {
            return if var_i == 0.0 && ws == self.sum {
                1.0
            } else {
                0.0
            };
        }
        if var_i <= 0.0 {
            return 0.0;
        }
        let r = num / ((self.var_n as f64) * var_i).sqrt();
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
    if nx * ny <= SMALL_MAP {
        return small_map(src, t, x0, y0, nx, ny);
    }
    let (w, h) = (t.width(), t.height());
    let integral = Integral::new(src, x0, y0, nx + w - 1, ny + h - 1);
    let mut out = vec![0.0; nx * ny];
    let mut dots = vec![0u64; nx];
    for y in 0..ny {
        if !t.is_flat() {
            row_of_dots(src, t, x0, y0 + y, &mut dots);
        }
        for (x, (o, &dot)) in out[y * nx..(y + 1) * nx].iter_mut().zip(&dots).enumerate() {
            let (ws, wq) = integral.window(x, y, w, h);
            *o = t.score(dot, ws, wq);
        }
    }
    out
}

/// Maps this small (the boxes of the half-resolution check and of the refine step) are cheaper
/// window by window: a row of a few positions is too short for the row-of-positions loop.
const SMALL_MAP: usize = 64;

fn small_map(src: &Plane, t: &Template, x0: usize, y0: usize, nx: usize, ny: usize) -> Vec<f64> {
    let (w, h) = (t.width(), t.height());
    let mut out = Vec::with_capacity(nx * ny);
    if let Some(blocks) = t.blocks() {
        // Window sums from one small table; the products on whole blocks.
        let integral = Integral::new(src, x0, y0, nx + w - 1, ny + h - 1);
        for y in 0..ny {
            for x in 0..nx {
                let (ws, wq) = integral.window(x, y, w, h);
                out.push(t.score(blocks.dot(src, x0 + x, y0 + y, w), ws, wq));
            }
        }
        return out;
    }
    for y in y0..y0 + ny {
        for x in x0..x0 + nx {
            let (mut dot, mut ws, mut wq) = (0u64, 0u64, 0u64);
            for (r, trow) in t.plane.data.chunks_exact(w).enumerate() {
                let srow = src.row(x, y + r, w);
                for (tc, sc) in trow.chunks(4096).zip(srow.chunks(4096)) {
                    let (d, s, q) = row_stats(tc, sc);
                    dot += d;
                    ws += s;
                    wq += q;
                }
            }
            out.push(t.score(dot, ws, wq));
        }
    }
    out
}

/// `ΣT` and `ΣT²`. A crop with an exact copy on screen costs little more than this and its
/// grey conversion, so the sums run in `u32` lanes over blocks small enough not to overflow
/// (the squares of bytes are what `pmaddwd` computes two at a time).
fn sums(data: &[u8]) -> (u64, u64) {
    data.chunks(MAX_PRODUCTS).fold((0, 0), |(s, q), block| {
        let (bs, bq) = block.iter().fold((0u32, 0u32), |(bs, bq), &v| {
            let v = u32::from(v);
            (bs + v, bq + v * v)
        });
        (s + u64::from(bs), q + u64::from(bq))
    })
}

/// `ΣTI`, `ΣI` and `ΣI²` of two rows of at most 4096 bytes, in 16 lanes of `u32` sums that
/// the compiler keeps in vector registers (each lane takes at most 256 products).
#[inline]
fn row_stats(t: &[u8], s: &[u8]) -> (u64, u64, u64) {
    const L: usize = 16;
    let (mut d, mut m, mut q) = ([0u32; L], [0u32; L], [0u32; L]);
    let (tc, sc) = (t.chunks_exact(L), s.chunks_exact(L));
    let (tr, sr) = (tc.remainder(), sc.remainder());
    for (a, b) in tc.zip(sc) {
        for k in 0..L {
            let (p, v) = (u32::from(a[k]), u32::from(b[k]));
            d[k] += p * v;
            m[k] += v;
            q[k] += v * v;
        }
    }
    for (k, (&p, &v)) in tr.iter().zip(sr).enumerate() {
        let (p, v) = (u32::from(p), u32::from(v));
        d[k] += p * v;
        m[k] += v;
        q[k] += v * v;
    }
    let total = |x: [u32; L]| x.iter().map(|&v| u64::from(v)).sum::<u64>();
    (total(d), total(m), total(q))
}

/// Most products a `u32` sum may take before it could overflow (`⌊2³² / 255²⌋`).
const MAX_PRODUCTS: usize = 66_051;

/// `ΣTI` for the windows at (`x0 + i`, `y`), `i` in `0..dots.len()`.
///
/// The loops run crop pixel by crop pixel, and for each one over all positions of the row:
/// `acc[i] += T[r][c] · I[y + r][x0 + c + i]` is a broadcast times a contiguous run of bytes,
/// which the compiler turns into wide vector multiply-adds. The `u32` sums move into `u64`
/// totals before they could overflow.
fn row_of_dots(src: &Plane, t: &Template, x0: usize, y: usize, dots: &mut [u64]) {
    let nx = dots.len();
    let w = t.width();
    let mut acc = vec![0u32; nx];
    dots.fill(0);
    let mut pending = 0;
    for (r, trow) in t.plane.data.chunks_exact(w).enumerate() {
        let srow = src.row(x0, y + r, w + nx - 1);
        for (c, &tv) in trow.iter().enumerate() {
            if pending == MAX_PRODUCTS {
                flush(&mut acc, dots);
                pending = 0;
            }
            let tv = u32::from(tv);
            for (a, &v) in acc.iter_mut().zip(&srow[c..c + nx]) {
                *a += tv * u32::from(v);
            }
            pending += 1;
        }
    }
    flush(&mut acc, dots);
}

fn flush(acc: &mut [u32], dots: &mut [u64]) {
    for (d, a) in dots.iter_mut().zip(acc.iter_mut()) {
        *d += u64::from(*a);
        *a = 0;
    }
}

/// The exact score of `t` at one position.
#[cfg(test)]
pub(crate) fn score_at(src: &Plane, t: &Template, x: usize, y: usize) -> f64 {
    score_map(src, t, x, y, 1, 1)[0]
}

#[cfg(test)]
mod tests {
    use super::super::reference::ncc_reference;
    use super::super::synth::Rng;
    use super::*;

    fn plane(w: usize, h: usize, rng: &mut Rng, levels: u32) -> Plane {
        let data = (0..w * h).map(|_| (rng.below_u32(levels) * (255 / (levels - 1).max(1))) as u8);
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
            let (sw, sh) = (
                1 + rng.below_u32(24) as usize,
                1 + rng.below_u32(18) as usize,
            );
            let (tw, th) = (
                1 + rng.below_u32(sw as u32) as usize,
                1 + rng.below_u32(sh as u32) as usize,
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
    fn a_copy_scores_what_the_map_gives_at_the_copy() {
        let mut rng = Rng::new(11);
        for (w, h, levels) in [(5, 4, 256), (40, 9, 3), (17, 30, 256), (6, 6, 1)] {
            let src = plane(60, 40, &mut rng, levels);
            let crop = Plane {
                width: w,
                height: h,
                data: (0..h).flat_map(|r| src.row(9, 4 + r, w).to_vec()).collect(),
            };
            let t = Template::new(crop);
            let mapped = score_at(&src, &t, 9, 4);
            assert_eq!(t.copy_score().to_bits(), mapped.to_bits(), "{w}x{h}");
        }
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
    fn whole_blocks_agree_with_the_formula() {
        // Widths around the block size: exact multiples, one short tail, a long one.
        let mut rng = Rng::new(19);
        for (case, tw) in [16, 17, 31, 32, 33, 47, 64, 70].into_iter().enumerate() {
            let (sw, sh, th) = (tw + 3, 9, 1 + case % 6);
            let src = plane(sw, sh, &mut rng, 256);
            let t = Template::new(plane(tw, th, &mut rng, 256));
            assert!(t.blocks().is_some());
            let (nx, ny) = (sw - tw + 1, sh - th + 1);
            let got = score_map(&src, &t, 0, 0, nx, ny);
            for y in 0..ny {
                for x in 0..nx {
                    let want = ncc_reference(&src, &t.plane, x, y);
                    assert!(
                        (got[y * nx + x] - want).abs() < 1e-9,
                        "{tw}x{th} at {x},{y}"
                    );
                }
            }
        }
    }

    #[test]
    fn tall_crops_do_not_overflow_the_block_lanes() {
        // 3 blocks a row and 30000 rows: each lane takes 90000 products near 255², more than
        // a u32 holds, so the lanes must be flushed on the way.
        let (w, h) = (40, 30_000);
        let src = Plane {
            width: w,
            height: h,
            data: (0..w * h).map(|i| 250 + (i % 7 == 0) as u8 * 5).collect(),
        };
        let t = Template::new(src.clone());
        assert!((score_at(&src, &t, 0, 0) - 1.0).abs() < 1e-12);
        let shifted = Plane {
            width: w,
            height: h - 1,
            data: src.data[w..].to_vec(),
        };
        let t = Template::new(shifted.clone());
        let want = ncc_reference(&src, &shifted, 0, 0);
        assert!((score_at(&src, &t, 0, 0) - want).abs() < 1e-9);
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

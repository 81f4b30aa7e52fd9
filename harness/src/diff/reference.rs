//! A deliberately plain transcription of pixelmatch 7.2.0, used only to test `pixel::diff`.
//!
//! It follows the JavaScript line by line: every value is an `f64` like a JavaScript number,
//! coercions follow the ECMAScript definitions of ToInt32 and ToUint8, and there is no
//! word-skipping or other cleverness, so that a disagreement points at the optimised code.

use crate::diff::pixel::Options;

/// pixelmatch(img1, img2, output, width, height, options), returning the mismatch count.
pub(crate) fn pixelmatch(
    img1: &[u8],
    img2: &[u8],
    mut output: Option<&mut [u8]>,
    width: usize,
    height: usize,
    o: &Options,
) -> u64 {
    assert_eq!(img1.len(), img2.len());
    assert_eq!(img1.len(), width * height * 4);
    let len = width * height;
    let same = |i: usize| img1[i * 4..i * 4 + 4] == img2[i * 4..i * 4 + 4];

    if (0..len).all(same) {
        if let Some(out) = output.as_deref_mut()
            && !o.diff_mask
        {
            for i in 0..len {
                draw_gray_pixel(img1, i * 4, o.alpha, out);
            }
        }
        return 0;
    }

    let max_delta = 35215.0 * o.threshold * o.threshold;
    let [aa_r, aa_g, aa_b] = o.aa_color;
    let [diff_r, diff_g, diff_b] = o.diff_color;
    let [alt_r, alt_g, alt_b] = o.diff_color_alt.unwrap_or(o.diff_color);
    let mut diff = 0;

    for i in 0..len {
        let pos = i * 4;
        let delta = if same(i) {
            0.0
        } else {
            color_delta(img1, img2, pos, pos, o.checkerboard)
        };
        if delta.abs() > max_delta {
            let x = (i % width) as i64;
            let y = (i / width) as i64;
            let (w, h) = (width as i64, height as i64);
            let is_excluded_aa = !o.include_aa
                && (antialiased(img1, x, y, w, h, img1, img2, o.checkerboard)
                    || antialiased(img2, x, y, w, h, img2, img1, o.checkerboard));
            if is_excluded_aa {
                if let Some(out) = output.as_deref_mut()
                    && !o.diff_mask
                {
                    draw_pixel(out, pos, aa_r, aa_g, aa_b);
                }
            } else {
                if let Some(out) = output.as_deref_mut() {
                    if delta < 0.0 {
                        draw_pixel(out, pos, alt_r, alt_g, alt_b);
                    } else {
                        draw_pixel(out, pos, diff_r, diff_g, diff_b);
                    }
                }
                diff += 1;
            }
        } else if let Some(out) = output.as_deref_mut()
            && !o.diff_mask
        {
            draw_gray_pixel(img1, pos, o.alpha, out);
        }
    }
    diff
}

/// The whole 32-bit pixel at index `i`, as pixelmatch reads it through a `Uint32Array`.
fn px32(img: &[u8], i: i64) -> u32 {
    let p = i as usize * 4;
    u32::from_le_bytes([img[p], img[p + 1], img[p + 2], img[p + 3]])
}

#[allow(clippy::too_many_arguments)]
fn antialiased(
    img: &[u8],
    x1: i64,
    y1: i64,
    width: i64,
    height: i64,
    a32: &[u8],
    b32: &[u8],
    checkerboard: bool,
) -> bool {
    let x0 = (x1 - 1).max(0);
    let y0 = (y1 - 1).max(0);
    let x2 = (x1 + 1).min(width - 1);
    let y2 = (y1 + 1).min(height - 1);
    let pos4 = ((y1 * width + x1) * 4) as usize;
    let c = [img[pos4], img[pos4 + 1], img[pos4 + 2], img[pos4 + 3]].map(f64::from);
    let mut zeroes = if x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2 {
        1
    } else {
        0
    };
    let (mut min, mut max) = (0.0, 0.0);
    let (mut min_x, mut min_y, mut max_x, mut max_y) = (0, 0, 0, 0);

    let mut x = x0;
    while x <= x2 {
        let mut y = y0;
        while y <= y2 {
            if !(x == x1 && y == y1) {
                let m = ((y * width + x) * 4) as usize;
                let delta = brightness_delta(img, pos4, m, c, checkerboard);
                if delta == 0.0 {
                    zeroes += 1;
                    if zeroes > 2 {
                        return false;
                    }
                } else if delta < min {
                    min = delta;
                    min_x = x;
                    min_y = y;
                } else if delta > max {
                    max = delta;
                    max_x = x;
                    max_y = y;
                }
            }
            y += 1;
        }
        x += 1;
    }
    if min == 0.0 || max == 0.0 {
        return false;
    }
    (has_many_siblings(a32, min_x, min_y, width, height)
        && has_many_siblings(b32, min_x, min_y, width, height))
        || (has_many_siblings(a32, max_x, max_y, width, height)
            && has_many_siblings(b32, max_x, max_y, width, height))
}

fn has_many_siblings(img: &[u8], x1: i64, y1: i64, width: i64, height: i64) -> bool {
    let x0 = (x1 - 1).max(0);
    let y0 = (y1 - 1).max(0);
    let x2 = (x1 + 1).min(width - 1);
    let y2 = (y1 + 1).min(height - 1);
    let val = px32(img, y1 * width + x1);
    let mut zeroes = if x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2 {
        1
    } else {
        0
    };
    for x in x0..=x2 {
        for y in y0..=y2 {
            if x == x1 && y == y1 {
                continue;
            }
            if val == px32(img, y * width + x) {
                zeroes += 1;
            }
            if zeroes > 2 {
                return true;
            }
        }
    }
    false
}

/// ECMAScript ToInt32, i.e. `v | 0`.
fn to_int32(v: f64) -> f64 {
    if !v.is_finite() {
        return 0.0;
    }
    let m = v.trunc().rem_euclid(4294967296.0);
    if m >= 2147483648.0 {
        m - 4294967296.0
    } else {
        m
    }
}

/// ECMAScript ToUint8, the store into a `Uint8Array` (Node's `Buffer`).
fn to_uint8(v: f64) -> u8 {
    if !v.is_finite() {
        return 0;
    }
    v.trunc().rem_euclid(256.0) as u8
}

fn blend_background(k: usize, checkerboard: bool) -> (f64, f64, f64) {
    if checkerboard {
        let k = k as f64;
        (
            48.0 + 159.0 * (k % 2.0),
            48.0 + 159.0 * (to_int32(k / 1.618033988749895) % 2.0),
            48.0 + 159.0 * (to_int32(k / 2.618033988749895) % 2.0),
        )
    } else {
        (255.0, 255.0, 255.0)
    }
}

fn color_delta(img1: &[u8], img2: &[u8], k: usize, m: usize, checkerboard: bool) -> f64 {
    let r1 = f64::from(img1[k]);
    let g1 = f64::from(img1[k + 1]);
    let b1 = f64::from(img1[k + 2]);
    let a1 = f64::from(img1[k + 3]);
    let r2 = f64::from(img2[m]);
    let g2 = f64::from(img2[m + 1]);
    let b2 = f64::from(img2[m + 2]);
    let a2 = f64::from(img2[m + 3]);

    let mut dr = r1 - r2;
    let mut dg = g1 - g2;
    let mut db = b1 - b2;
    let da = a1 - a2;

    if a1 < 255.0 || a2 < 255.0 {
        let (rb, gb, bb) = blend_background(k, checkerboard);
        dr = (r1 * a1 - r2 * a2 - rb * da) / 255.0;
        dg = (g1 * a1 - g2 * a2 - gb * da) / 255.0;
        db = (b1 * a1 - b2 * a2 - bb * da) / 255.0;
    }

    let y = dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223;
    let i = dr * 0.59597799 - dg * 0.27417610 - db * 0.32180189;
    let q = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694;
    let delta = 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q;
    if y > 0.0 { -delta } else { delta }
}

fn brightness_delta(img: &[u8], k: usize, m: usize, c: [f64; 4], checkerboard: bool) -> f64 {
    let [r1, g1, b1, a1] = c;
    let r2 = f64::from(img[m]);
    let g2 = f64::from(img[m + 1]);
    let b2 = f64::from(img[m + 2]);
    let a2 = f64::from(img[m + 3]);

    let mut dr = r1 - r2;
    let mut dg = g1 - g2;
    let mut db = b1 - b2;
    let da = a1 - a2;

    if dr == 0.0 && dg == 0.0 && db == 0.0 && da == 0.0 {
        return 0.0;
    }
    if a1 < 255.0 || a2 < 255.0 {
        let (rb, gb, bb) = blend_background(k, checkerboard);
        dr = (r1 * a1 - r2 * a2 - rb * da) / 255.0;
        dg = (g1 * a1 - g2 * a2 - gb * da) / 255.0;
        db = (b1 * a1 - b2 * a2 - bb * da) / 255.0;
    }
    dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223
}

fn draw_pixel(output: &mut [u8], pos: usize, r: u8, g: u8, b: u8) {
    output[pos] = r;
    output[pos + 1] = g;
    output[pos + 2] = b;
    output[pos + 3] = 255;
}

fn draw_gray_pixel(img: &[u8], i: usize, alpha: f64, output: &mut [u8]) {
    let c = |j: usize| f64::from(img[i + j]);
    let val = 255.0
        + (c(0) * 0.29889531 + c(1) * 0.58662247 + c(2) * 0.11448223 - 255.0) * alpha * c(3)
            / 255.0;
    let v = to_uint8(val);
    draw_pixel(output, i, v, v, v);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::pixel;

    pub(crate) use crate::rng::Rng;

    /// Test pixels.
    pub(crate) trait Colors {
        fn color(&mut self) -> [u8; 4];
    }

    impl Colors for Rng {
        fn color(&mut self) -> [u8; 4] {
            let a = match self.below(4) {
                0 => 0,
                1 => self.byte(),
                _ => 255,
            };
            [self.byte(), self.byte(), self.byte(), a]
        }
    }

    /// Fills with a flat colour or a gradient, then draws anti-aliased discs (coverage from 4×4
    /// supersampling) so the detector sees realistic edges. `shift` moves the discs by a
    /// fraction of a pixel, which is how rendering differences look.
    fn paint(
        rng: &mut Rng,
        w: usize,
        h: usize,
        discs: &[([f64; 3], [u8; 4])],
        shift: f64,
    ) -> Vec<u8> {
        let bg = rng.color();
        let gradient = rng.chance(0.4);
        let mut img = vec![0u8; w * h * 4];
        for y in 0..h {
            for x in 0..w {
                let mut p = bg;
                if gradient {
                    p[0] = (x * 255 / w.max(1)) as u8;
                    p[1] = (y * 255 / h.max(1)) as u8;
                }
                for &([cx, cy, r], fg) in discs {
                    let mut cover = 0;
                    for sy in 0..4 {
                        for sx in 0..4 {
                            let px = x as f64 + (sx as f64 + 0.5) / 4.0 - cx - shift;
                            let py = y as f64 + (sy as f64 + 0.5) / 4.0 - cy;
                            cover += u32::from(px * px + py * py <= r * r);
                        }
                    }
                    for c in 0..4 {
                        let (f, b) = (u32::from(fg[c]), u32::from(p[c]));
                        p[c] = ((f * cover + b * (16 - cover)) / 16) as u8;
                    }
                }
                img[(y * w + x) * 4..(y * w + x) * 4 + 4].copy_from_slice(&p);
            }
        }
        img
    }

    /// One generated case: two images and options; shared with the pixel tests' node goldens.
    pub(crate) fn generate(rng: &mut Rng) -> (usize, usize, Vec<u8>, Vec<u8>, pixel::Options) {
        let w = 1 + rng.below(64) as usize;
        let h = 1 + rng.below(48) as usize;
        let discs: Vec<_> = (0..rng.below(4))
            .map(|_| {
                let c = [
                    rng.unit() * w as f64,
                    rng.unit() * h as f64,
                    1.0 + rng.unit() * 12.0,
                ];
                (c, rng.color())
            })
            .collect();
        let seed = rng.next_u64();
        let a = paint(&mut Rng::new(seed), w, h, &discs, 0.0);
        let mut b = match rng.below(4) {
            0 => a.clone(),
            1 => paint(&mut Rng::new(seed), w, h, &discs, rng.unit()),
            _ => paint(&mut Rng::new(seed), w, h, &discs, 0.0),
        };
        // Local edits: noise, small nudges, alpha changes, rectangles.
        for _ in 0..rng.below(6) {
            let (x0, y0) = (rng.below(w as u64) as usize, rng.below(h as u64) as usize);
            let (rw, rh) = (1 + rng.below(8) as usize, 1 + rng.below(8) as usize);
            let kind = rng.below(4);
            let fill = rng.color();
            for y in y0..(y0 + rh).min(h) {
                for x in x0..(x0 + rw).min(w) {
                    let p = &mut b[(y * w + x) * 4..(y * w + x) * 4 + 4];
                    match kind {
                        0 => p.copy_from_slice(&fill),
                        1 => p[rng.below(3) as usize] ^= 1 << rng.below(3),
                        2 => p[3] = rng.byte(),
                        _ => p.iter_mut().for_each(|c| *c = rng.byte()),
                    }
                }
            }
        }
        let opts = pixel::Options {
            threshold: match rng.below(4) {
                0 => 0.0,
                1 => 0.05,
                2 => 0.1,
                _ => rng.unit(),
            },
            include_aa: rng.chance(0.3),
            alpha: match rng.below(5) {
                0 => 1.0,
                1 => 2.5, // out of range: exercises the Uint8Array wrap-around
                _ => rng.unit(),
            },
            aa_color: [rng.byte(), rng.byte(), rng.byte()],
            diff_color: [rng.byte(), rng.byte(), rng.byte()],
            diff_color_alt: rng
                .chance(0.5)
                .then(|| [rng.byte(), rng.byte(), rng.byte()]),
            diff_mask: rng.chance(0.2),
            checkerboard: rng.chance(0.6),
        };
        (w, h, a, b, opts)
    }

    #[test]
    fn optimised_diff_equals_reference() {
        const CASES: u64 = 600;
        let mut rng = Rng::new(0x5EED_D1FF);
        let mut counted = 0;
        let mut aa_cases = 0;
        for case in 0..CASES {
            let (w, h, a, b, opts) = generate(&mut rng);
            // Start from noise so untouched output bytes (diff_mask) are checked too.
            let start: Vec<u8> = (0..a.len()).map(|_| rng.byte()).collect();
            let mut want_out = start.clone();
            let want = pixelmatch(&a, &b, Some(&mut want_out), w, h, &opts);
            let mut got_out = start.clone();
            let got = pixel::diff(&a, &b, w as u32, h as u32, &opts, Some(&mut got_out))
                .expect("sizes are consistent");
            assert_eq!(got.mismatched, want, "case {case}: {w}×{h} {opts:?}");
            assert!(
                got_out == want_out,
                "case {case}: output differs, {w}×{h} {opts:?}"
            );
            let bits: u64 = got.mask.iter().map(|m| u64::from(m.count_ones())).sum();
            assert_eq!(bits, want, "case {case}: mask popcount");
            let without = pixel::diff(&a, &b, w as u32, h as u32, &opts, None).unwrap();
            assert_eq!(without, got, "case {case}: result depends on output");
            counted += u64::from(want > 0);
            if !opts.include_aa {
                let with_aa = pixelmatch(
                    &a,
                    &b,
                    None,
                    w,
                    h,
                    &pixel::Options {
                        include_aa: true,
                        ..opts.clone()
                    },
                );
                aa_cases += u64::from(with_aa > want);
            }
        }
        eprintln!("stats: {counted} with diffs, {aa_cases} with AA exclusions of {CASES}");
        // Guard against a generator that stopped producing interesting cases.
        assert!(counted > CASES / 3, "only {counted} cases had differences");
        assert!(
            aa_cases > CASES / 20,
            "only {aa_cases} cases excluded anti-aliasing"
        );
    }
}

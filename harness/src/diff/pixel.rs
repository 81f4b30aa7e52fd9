//! Pixel-level image comparison that returns exactly what pixelmatch 7.2.0 (the npm release)
//! returns.
//!
//! Why exactness matters: expectations elsewhere were produced with pixelmatch, so a count that
//! is "nearly the same" would flip pass/fail verdicts at the margins. Every floating-point
//! expression below therefore uses `f64` with the operand order of the JavaScript source (Rust
//! never fuses multiply-adds on its own), and every place where JavaScript coerces a number
//! (`x | 0`, a store into a `Uint8Array`) is emulated explicitly.
//!
//! Behaviour of 7.2.0 worth knowing (all reproduced here):
//! - Colour difference is the YIQ distance of Kotsarenko & Ramos; `threshold` is scaled by the
//!   largest possible distance, `35215`, so the cut-off is `35215 · t²` and a pixel counts only
//!   when its distance is strictly above it.
//! - A pixel with alpha below 255 in *either* image is blended over a background before the
//!   distance is taken. With `checkerboard: true` (the default) that background is not a visual
//!   checkerboard: it is derived from the pixel's *byte* offset `k = 4·i`, giving red `48` always
//!   (`k` is even) and green/blue `48` or `207` by the parity of `⌊k/φ⌋` and `⌊k/φ²⌋`. With
//!   `checkerboard: false` it is plain white.
//! - The anti-aliasing detector blends each neighbour over the background of the *centre* pixel.
//! - Anti-aliased pixels are not counted and are drawn in `aa_color` (unless `diff_mask`).
//! - Unchanged pixels are drawn as a faded grey copy of image `a`. The grey is a fraction that
//!   pixelmatch stores into a `Buffer`/`Uint8Array`, so it is *truncated*, not rounded.
//! - With `diff_mask`, pixels not counted as different are left untouched in the output buffer
//!   (transparent only if the caller passes a zeroed buffer), exactly like pixelmatch.

use std::fmt;

/// Comparison options: pixelmatch's option names in snake case, with 7.2.0's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Matching threshold in `0..=1`; smaller is more sensitive. Default `0.1`.
    pub threshold: f64,
    /// Count anti-aliased pixels as differences instead of excluding them. Default `false`.
    pub include_aa: bool,
    /// Opacity of image `a` in the grey background of the output. Default `0.1`.
    pub alpha: f64,
    /// Output colour of pixels excluded as anti-aliasing. Default yellow.
    pub aa_color: [u8; 3],
    /// Output colour of counted pixels. Default red.
    pub diff_color: [u8; 3],
    /// Output colour of counted pixels that are darker in `b` than in `a`, to tell added from
    /// removed ink; `None` uses `diff_color`.
    pub diff_color_alt: Option<[u8; 3]>,
    /// Draw only counted pixels, leaving every other output pixel untouched.
    pub diff_mask: bool,
    /// Blend semi-transparent pixels over pixelmatch's pseudo-checkerboard (`true`, default) or
    /// over white (`false`) before comparing.
    pub checkerboard: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threshold: 0.1,
            include_aa: false,
            alpha: 0.1,
            aa_color: [255, 255, 0],
            diff_color: [255, 0, 0],
            diff_color_alt: None,
            diff_mask: false,
            checkerboard: true,
        }
    }
}

/// Result of a comparison: pixelmatch's count plus which pixels were counted, so changes can be
/// located (see `regions`) without another pass over the images.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixelDiff {
    /// Image width in pixels.
    pub(crate) width: u32,
    /// Image height in pixels.
    pub(crate) height: u32,
    /// The number pixelmatch returns.
    pub mismatched: u64,
    /// One bit per pixel in row-major order (pixel `i` is bit `i % 64` of word `i / 64`), set
    /// exactly for the pixels counted in `mismatched`; anti-aliased pixels are not set.
    pub mask: Vec<u64>,
}

impl PixelDiff {
    #[cfg(test)]
    /// Whether pixel `(x, y)` was counted as mismatched; `false` outside the image.
    pub(crate) fn is_mismatched(&self, x: u32, y: u32) -> bool {
        if x >= self.width || y >= self.height {
            return false;
        }
        let i = y as usize * self.width as usize + x as usize;
        self.mask
            .get(i / 64)
            .is_some_and(|w| (w >> (i % 64)) & 1 == 1)
    }
}

/// The inputs do not describe equally sized RGBA8 images.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SizeError {
    /// The two images have different dimensions.
    Dimensions {
        /// Width and height of the first image.
        a: (u32, u32),
        /// Width and height of the second image.
        b: (u32, u32),
    },
    /// A buffer's length is not `width · height · 4`.
    BufferLength {
        /// Which buffer: `"a"`, `"b"` or `"output"`.
        buffer: &'static str,
        /// Its length in bytes.
        len: usize,
        /// The width it should have.
        width: u32,
        /// The height it should have.
        height: u32,
    },
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SizeError::Dimensions { a, b } => {
                write!(f, "image sizes differ: {}×{} vs {}×{}", a.0, a.1, b.0, b.1)
            }
            SizeError::BufferLength {
                buffer,
                len,
                width,
                height,
            } => write!(
                f,
                "image sizes differ: buffer {buffer} holds {len} bytes vs {width}×{height} RGBA \
                 needing {}",
                u128::from(width) * u128::from(height) * 4
            ),
        }
    }
}

impl std::error::Error for SizeError {}

/// Largest YIQ distance between two colours; pixelmatch scales `threshold` by it.
const MAX_YIQ_DELTA: f64 = 35215.0;

/// Compares two RGBA8 row-major images of `width × height` and returns pixelmatch 7.2.0's count
/// with a mask of the counted pixels. When `output` is given (same length as the inputs) the diff
/// image is drawn into it byte for byte as pixelmatch draws it into a `Buffer`.
pub fn diff(
    a: &[u8],
    b: &[u8],
    width: u32,
    height: u32,
    opts: &Options,
    output: Option<&mut [u8]>,
) -> Result<PixelDiff, SizeError> {
    let len = (width as usize)
        .checked_mul(height as usize)
        .filter(|n| n.checked_mul(4).is_some());
    let out_len = output.as_ref().map(|o| o.len());
    for (buffer, buf_len) in [
        ("a", Some(a.len())),
        ("b", Some(b.len())),
        ("output", out_len),
    ] {
        match buf_len {
            Some(l) if Some(l) != len.map(|n| n * 4) => {
                return Err(SizeError::BufferLength {
                    buffer,
                    len: l,
                    width,
                    height,
                });
            }
            _ => {}
        }
    }
    let len = len.unwrap_or(0); // lengths matched, so this is the real pixel count

    let mut result = PixelDiff {
        width,
        height,
        mismatched: 0,
        mask: vec![0; len.div_ceil(64)],
    };
    let pa = a.as_chunks::<4>().0;
    let pb = b.as_chunks::<4>().0;
    let mut out = output.map(|o| o.as_chunks_mut::<4>().0);
    // Everything but counted pixels is drawn only without `diff_mask`.
    let draw_rest = !opts.diff_mask;

    // pixelmatch returns early for identical images; the loop below would give the same result
    // (identical pixels always take the background branch), a memcmp just gets there sooner.
    if a == b {
        if draw_rest && let Some(out) = out.as_deref_mut() {
            draw_gray_run(out, pa, opts.alpha);
        }
        return Ok(result);
    }

    let threads = if len >= PARALLEL_MIN_PIXELS {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS))
    } else {
        1
    };
    result.mismatched = diff_bands(
        pa,
        pb,
        (width as usize, height as usize),
        opts,
        out,
        &mut result.mask,
        threads,
    );
    Ok(result)
}

/// Images smaller than this are compared on the calling thread: spawning costs more than it
/// saves.
const PARALLEL_MIN_PIXELS: usize = 1 << 18;
/// Most threads one comparison uses.
const MAX_THREADS: usize = 8;

/// Splits the pixels into `threads` contiguous bands and compares them in parallel. Pixels are
/// independent (the anti-aliasing check only *reads* neighbours, which may lie in another
/// band), each band owns its slice of the output and whole words of the mask (bands start at
/// multiples of 64 pixels), so the result is the same for any thread count.
fn diff_bands(
    pa: &[[u8; 4]],
    pb: &[[u8; 4]],
    (w, h): (usize, usize),
    opts: &Options,
    out: Option<&mut [[u8; 4]]>,
    mask: &mut [u64],
    threads: usize,
) -> u64 {
    let len = pa.len();
    let band = len.div_ceil(threads.max(1)).div_ceil(64) * 64;
    if threads <= 1 || band >= len {
        return diff_band(pa, pb, (w, h), opts, 0, out, mask);
    }
    let mut outs: Vec<Option<&mut [[u8; 4]]>> = match out {
        Some(o) => o.chunks_mut(band).map(Some).collect(),
        None => (0..len.div_ceil(band)).map(|_| None).collect(),
    };
    let parts: Vec<_> = mask.chunks_mut(band / 64).zip(outs.iter_mut()).collect();
    crate::par::each(parts, |k, (m, o)| {
        diff_band(pa, pb, (w, h), opts, k * band, o.take(), m)
    })
    .into_iter()
    .sum()
}

/// Compares the pixels `lo..lo + mask.len() * 64` (clipped to the image): `out` holds exactly
/// those pixels, `mask` their bits (`lo` is a multiple of 64). Returns the count.
fn diff_band(
    pa: &[[u8; 4]],
    pb: &[[u8; 4]],
    (w, h): (usize, usize),
    opts: &Options,
    lo: usize,
    out: Option<&mut [[u8; 4]]>,
    mask: &mut [u64],
) -> u64 {
    let hi = (lo + mask.len() * 64).min(pa.len());
    let whole = Rows {
        a: pa,
        b: pb,
        width: w,
        height: h,
        base: 0,
    };
    whole.compare(lo..hi, opts, out, |i| mask[(i - lo) / 64] |= 1 << (i % 64))
}

/// Consecutive rows of both images, for comparing some of them without the whole images:
/// `a` and `b` hold `height` rows of `width` pixels, the first of which is pixel `base` of the
/// images. A compared pixel's anti-aliasing check reads two rows above and below it, so the
/// rows compared must have those neighbours here, unless they lie beyond the image's edge.
#[derive(Clone, Copy)]
pub(crate) struct Rows<'a> {
    /// Image `a`'s rows.
    pub(crate) a: &'a [[u8; 4]],
    /// Image `b`'s rows.
    pub(crate) b: &'a [[u8; 4]],
    /// Pixels in a row.
    pub(crate) width: usize,
    /// Rows held.
    pub(crate) height: usize,
    /// Index of the first pixel held, in the whole image.
    pub(crate) base: usize,
}

impl Rows<'_> {
    /// Compares the held pixels `range` (indices into the rows held) and returns the count.
    /// `out` holds exactly those pixels of the diff image; `mark` gets the image index of each
    /// counted pixel.
    pub(crate) fn compare(
        &self,
        range: std::ops::Range<usize>,
        opts: &Options,
        out: Option<&mut [[u8; 4]]>,
        mark: impl FnMut(usize),
    ) -> u64 {
        self.compare_onto(range, opts, out, false, mark)
    }

    /// [`Rows::compare`] onto a diff image whose background is drawn already
    /// (`background_drawn`: [`draw_background`] was called for these pixels), so only the
    /// pixels that differ are drawn: the background can be drawn on another thread.
    pub(crate) fn compare_onto(
        &self,
        range: std::ops::Range<usize>,
        opts: &Options,
        mut out: Option<&mut [[u8; 4]]>,
        background_drawn: bool,
        mut mark: impl FnMut(usize),
    ) -> u64 {
        let (pa, pb, w, h, base) = (self.a, self.b, self.width, self.height, self.base);
        let (lo, hi) = (range.start, range.end);
        let draw_rest = !opts.diff_mask;
        let draw_gray = draw_rest && !background_drawn;
        let max_delta = MAX_YIQ_DELTA * opts.threshold * opts.threshold;
        let alt_color = opts.diff_color_alt.unwrap_or(opts.diff_color);
        let mut mismatched = 0;
        let mut i = lo;
        while i < hi {
            // Hot path: skip runs of identical pixels without any colour math.
            let j = next_difference(&pa[..hi], &pb[..hi], i);
            if draw_gray && let Some(out) = out.as_deref_mut() {
                draw_gray_run(&mut out[i - lo..j - lo], &pa[i..j], opts.alpha);
            }
            if j == hi {
                break;
            }
            let delta = color_delta(pa[j], pb[j], (base + j) * 4, opts.checkerboard);
            if delta.abs() > max_delta {
                let (x, y) = (j % w, j / w);
                let near = Near {
                    w,
                    h,
                    base,
                    checkerboard: opts.checkerboard,
                };
                let excluded_aa = !opts.include_aa
                    && (antialiased(pa, x, y, near, pa, pb) || antialiased(pb, x, y, near, pb, pa));
                if excluded_aa {
                    if draw_rest && let Some(out) = out.as_deref_mut() {
                        out[j - lo] = opaque(opts.aa_color);
                    }
                } else {
                    if let Some(out) = out.as_deref_mut() {
                        out[j - lo] = opaque(if delta < 0.0 {
                            alt_color
                        } else {
                            opts.diff_color
                        });
                    }
                    mismatched += 1;
                    mark(base + j);
                }
            } else if draw_gray && let Some(out) = out.as_deref_mut() {
                out[j - lo] = gray_pixel(pa[j], opts.alpha);
            }
            i = j + 1;
        }
        mismatched
    }
}

/// [`diff`] on decoded images; differing dimensions are a [`SizeError::Dimensions`].
pub(crate) fn diff_images(
    a: &image::RgbaImage,
    b: &image::RgbaImage,
    opts: &Options,
    output: Option<&mut image::RgbaImage>,
) -> Result<PixelDiff, SizeError> {
    for other in [
        Some(b.dimensions()),
        output.as_ref().map(|o| o.dimensions()),
    ]
    .into_iter()
    .flatten()
    {
        if other != a.dimensions() {
            return Err(SizeError::Dimensions {
                a: a.dimensions(),
                b: other,
            });
        }
    }
    let (width, height) = a.dimensions();
    // An `ImageBuffer` may own a longer container than its pixels; compare the pixels only.
    let n = width as usize * height as usize * 4;
    let out = output.map(|o| &mut (**o)[..n]);
    diff(&a.as_raw()[..n], &b.as_raw()[..n], width, height, opts, out)
}

/// First pixel index `>= i` where the images differ, or `pa.len()`.
#[inline]
fn next_difference(pa: &[[u8; 4]], pb: &[[u8; 4]], mut i: usize) -> usize {
    // 16 pixels (64 bytes) at a time, as eight u64 XORs folded together: branch-free inside the
    // block, vectorised by the compiler, and without a `memcmp` call per block.
    const BLOCK: usize = 16;
    let n = pa.len().min(pb.len());
    while i + BLOCK <= n {
        let (ba, bb) = (
            pa[i..i + BLOCK].as_flattened(),
            pb[i..i + BLOCK].as_flattened(),
        );
        let mut acc = 0u64;
        for (ca, cb) in ba.chunks_exact(8).zip(bb.chunks_exact(8)) {
            let wa = u64::from_ne_bytes(ca.try_into().unwrap_or([0; 8]));
            let wb = u64::from_ne_bytes(cb.try_into().unwrap_or([0; 8]));
            acc |= wa ^ wb;
        }
        if acc != 0 {
            break;
        }
        i += BLOCK;
    }
    while i < n && pa[i] == pb[i] {
        i += 1;
    }
    i
}

#[inline]
fn opaque([r, g, b]: [u8; 3]) -> [u8; 4] {
    [r, g, b, 255]
}

/// Draws what a diff image shows where images do not differ, for the pixels `a` of image
/// `a`: the faded grey copy of `a`, or, with `diff_mask`, nothing (transparent).
pub(crate) fn draw_background(out: &mut [[u8; 4]], a: &[[u8; 4]], opts: &Options) {
    if opts.diff_mask {
        out.fill([0; 4]);
    } else {
        draw_gray_run(out, a, opts.alpha);
    }
}

/// pixelmatch's `drawGrayPixel` over a run of pixels. Screenshots are mostly flat colour, so
/// each run of one colour is converted once and filled.
fn draw_gray_run(out: &mut [[u8; 4]], src: &[[u8; 4]], alpha: f64) {
    let mut i = 0;
    while i < src.len().min(out.len()) {
        let p = src[i];
        let end = (i + 1 + crate::runs::leading::<_, 4>(&src[i + 1..], p)).min(out.len());
        out[i..end].fill(gray_pixel(p, alpha));
        i = end;
    }
}

/// Image `a`'s luma faded towards white by `alpha` and by the pixel's own alpha.
#[inline]
fn gray_pixel([r, g, b, a]: [u8; 4], alpha: f64) -> [u8; 4] {
    let luma = f64::from(r) * 0.29889531 + f64::from(g) * 0.58662247 + f64::from(b) * 0.11448223;
    let v = to_uint8(255.0 + (luma - 255.0) * alpha * f64::from(a) / 255.0);
    [v, v, v, 255]
}

/// JavaScript's store of a number into a `Uint8Array`: truncate, then wrap modulo 256
/// (NaN and infinities become 0). Only `alpha` outside `0..=1` leaves the fast path.
#[inline]
fn to_uint8(v: f64) -> u8 {
    if (0.0..256.0).contains(&v) {
        return v as u8;
    }
    if !v.is_finite() {
        return 0;
    }
    let t = v.trunc() % 256.0;
    (if t < 0.0 { t + 256.0 } else { t }) as u8
}

/// JavaScript's `x | 0` (ToInt32) for the finite, non-negative values met here (byte offsets
/// divided by φ or φ²): truncate, then wrap to 32 bits. `as i64` truncates toward zero itself.
#[inline]
fn to_int32(v: f64) -> i32 {
    v as i64 as i32
}

/// Background that semi-transparent pixels at byte offset `k` are blended over.
///
/// Never inlined: screenshots are opaque, and inlined, the compiler hoisted the two
/// divisions out of the anti-aliasing check's neighbour loop, paying them on every call.
#[inline(never)]
fn background(k: usize, checkerboard: bool) -> [i32; 3] {
    if !checkerboard {
        return [255; 3];
    }
    let kf = k as f64;
    [
        48 + 159 * (k % 2) as i32,
        48 + 159 * (to_int32(kf / 1.618033988749895) % 2),
        48 + 159 * (to_int32(kf / 2.618033988749895) % 2),
    ]
}

/// Per-channel differences, premultiplied and blended over the background when either pixel
/// is not opaque (pixelmatch computes `(c1·a1 − c2·a2 − bg·(a1 − a2)) / 255`).
#[inline]
fn channel_deltas(p1: [u8; 4], p2: [u8; 4], k: usize, checkerboard: bool) -> [f64; 3] {
    let [r1, g1, b1, a1] = p1.map(i32::from);
    let [r2, g2, b2, a2] = p2.map(i32::from);
    if a1 < 255 || a2 < 255 {
        let [rb, gb, bb] = background(k, checkerboard);
        let da = a1 - a2;
        // Integer numerators are exact, as they are in JavaScript doubles.
        [
            f64::from(r1 * a1 - r2 * a2 - rb * da) / 255.0,
            f64::from(g1 * a1 - g2 * a2 - gb * da) / 255.0,
            f64::from(b1 * a1 - b2 * a2 - bb * da) / 255.0,
        ]
    } else {
        [f64::from(r1 - r2), f64::from(g1 - g2), f64::from(b1 - b2)]
    }
}

/// Squared YIQ distance between two differing pixels at byte offset `k`, negative when `p2` is
/// darker (pixelmatch's `colorDelta`).
#[inline]
fn color_delta(p1: [u8; 4], p2: [u8; 4], k: usize, checkerboard: bool) -> f64 {
    let [dr, dg, db] = channel_deltas(p1, p2, k, checkerboard);
    let y = dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223;
    let i = dr * 0.59597799 - dg * 0.27417610 - db * 0.32180189;
    let q = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694;
    let delta = 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q;
    if y > 0.0 { -delta } else { delta }
}

/// Luma difference of centre `c` (at byte offset `k`) and neighbour `n`
/// (pixelmatch's `brightnessDelta`).
#[inline]
fn brightness_delta(c: [u8; 4], n: [u8; 4], k: usize, checkerboard: bool) -> f64 {
    if c == n {
        return 0.0;
    }
    let [dr, dg, db] = channel_deltas(c, n, k, checkerboard);
    dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223
}

/// What the anti-aliasing check needs besides the pixels: the rows' width and height (their
/// edges are the image's, see [`Rows`]), the image index of their first pixel (the checkerboard
/// depends on it) and the checkerboard option.
#[derive(Clone, Copy)]
struct Near {
    w: usize,
    h: usize,
    base: usize,
    checkerboard: bool,
}

/// Whether pixel `(x1, y1)` of `img` looks anti-aliased (Vyšniauskas 2009): among its 8
/// neighbours it has both a darker and a brighter one, at most two equal ones (the image edge
/// counts as one), and the darkest or the brightest neighbour sits in a flat area (3+ equal
/// neighbours) in both images `a` and `b`.
fn antialiased(
    img: &[[u8; 4]],
    x1: usize,
    y1: usize,
    near: Near,
    a: &[[u8; 4]],
    b: &[[u8; 4]],
) -> bool {
    let Near {
        w,
        h,
        base,
        checkerboard,
    } = near;
    if x1 > 0 && y1 > 0 && x1 + 1 < w && y1 + 1 < h {
        return antialiased_inside(img, y1 * w + x1, near, a, b);
    }
    let x0 = x1.saturating_sub(1);
    let y0 = y1.saturating_sub(1);
    let x2 = (x1 + 1).min(w - 1);
    let y2 = (y1 + 1).min(h - 1);
    let pos = y1 * w + x1;
    let center = img[pos];
    let mut zeroes = u32::from(x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2);
    let (mut min, mut max) = (0.0, 0.0);
    let (mut min_x, mut min_y, mut max_x, mut max_y) = (0, 0, 0, 0);

    // Column-major order as in pixelmatch: it decides which extreme wins ties.
    for x in x0..=x2 {
        for y in y0..=y2 {
            if x == x1 && y == y1 {
                continue;
            }
            let delta = brightness_delta(center, img[y * w + x], (base + pos) * 4, checkerboard);
            if delta == 0.0 {
                zeroes += 1;
                if zeroes > 2 {
                    return false;
                }
            } else if delta < min {
                min = delta;
                (min_x, min_y) = (x, y);
            } else if delta > max {
                max = delta;
                (max_x, max_y) = (x, y);
            }
        }
    }
    if min == 0.0 || max == 0.0 {
        return false;
    }
    (has_many_siblings(a, min_x, min_y, w, h) && has_many_siblings(b, min_x, min_y, w, h))
        || (has_many_siblings(a, max_x, max_y, w, h) && has_many_siblings(b, max_x, max_y, w, h))
}

/// [`antialiased`] for a pixel off the image's border (almost all of them): its neighbours
/// are read once, as three rows, in pixelmatch's column-major order, and three neighbours
/// equal to the centre (delta 0) end the check before any colour math, wherever they are.
fn antialiased_inside(
    img: &[[u8; 4]],
    pos: usize,
    near: Near,
    a: &[[u8; 4]],
    b: &[[u8; 4]],
) -> bool {
    let Near {
        w,
        h,
        base,
        checkerboard,
    } = near;
    let (up, mid, down) = (
        &img[pos - w - 1..pos - w + 2],
        &img[pos - 1..pos + 2],
        &img[pos + w - 1..pos + w + 2],
    );
    let center = mid[1];
    // Column-major, as in pixelmatch: it decides which extreme wins ties.
    let around = [
        (up[0], pos - w - 1),
        (mid[0], pos - 1),
        (down[0], pos + w - 1),
        (up[1], pos - w),
        (down[1], pos + w),
        (up[2], pos - w + 1),
        (mid[2], pos + 1),
        (down[2], pos + w + 1),
    ];
    if around.iter().filter(|(p, _)| *p == center).count() > 2 {
        return false;
    }
    let mut zeroes = 0;
    let (mut min, mut max) = (0.0, 0.0);
    let (mut at_min, mut at_max) = (0, 0);
    for (p, at) in around {
        let delta = brightness_delta(center, p, (base + pos) * 4, checkerboard);
        if delta == 0.0 {
            zeroes += 1;
            if zeroes > 2 {
                return false;
            }
        } else if delta < min {
            (min, at_min) = (delta, at);
        } else if delta > max {
            (max, at_max) = (delta, at);
        }
    }
    if min == 0.0 || max == 0.0 {
        return false;
    }
    let many = |img: &[[u8; 4]], at: usize| has_many_siblings(img, at % w, at / w, w, h);
    (many(a, at_min) && many(b, at_min)) || (many(a, at_max) && many(b, at_max))
}

/// Whether pixel `(x1, y1)` has 3+ identical neighbours, the image edge counting as one.
fn has_many_siblings(img: &[[u8; 4]], x1: usize, y1: usize, w: usize, h: usize) -> bool {
    let x0 = x1.saturating_sub(1);
    let y0 = y1.saturating_sub(1);
    let x2 = (x1 + 1).min(w - 1);
    let y2 = (y1 + 1).min(h - 1);
    let val = img[y1 * w + x1];
    let mut zeroes = u32::from(x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2);
    for x in x0..=x2 {
        for y in y0..=y2 {
            if x == x1 && y == y1 {
                continue;
            }
            zeroes += u32::from(val == img[y * w + x]);
            if zeroes > 2 {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::Value;
    use std::path::Path;

    /// Where the pixelmatch fixtures live, for every unit test in the crate.
    pub(crate) const CORPUS_DIR: &str =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../corpora/pixelmatch-7.2.0");

    fn load(name: &str) -> image::RgbaImage {
        let path = Path::new(CORPUS_DIR).join(format!("{name}.png"));
        image::open(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .into_rgba8()
    }

    /// Options from an `expected.json` case; unknown keys fail so the corpus cannot silently
    /// ask for something this test ignores.
    fn options_from_json(v: &Value) -> Options {
        let mut o = Options::default();
        let color = |v: &Value| -> [u8; 3] {
            let a = v.as_array().expect("colour array");
            [0, 1, 2].map(|i| a[i].as_u64().expect("colour channel") as u8)
        };
        for (k, v) in v.as_object().expect("options object") {
            match k.as_str() {
                "threshold" => o.threshold = v.as_f64().unwrap(),
                "includeAA" => o.include_aa = v.as_bool().unwrap(),
                "alpha" => o.alpha = v.as_f64().unwrap(),
                "checkerboard" => o.checkerboard = v.as_bool().unwrap(),
                "diffMask" => o.diff_mask = v.as_bool().unwrap(),
                "aaColor" => o.aa_color = color(v),
                "diffColor" => o.diff_color = color(v),
                "diffColorAlt" => o.diff_color_alt = Some(color(v)),
                other => panic!("expected.json uses an option this test does not know: {other}"),
            }
        }
        o
    }

    /// The corpus cases: image names, options and the count pixelmatch 7.2.0 returns.
    pub(crate) fn corpus_cases() -> Vec<(String, String, Options, u64)> {
        let text = std::fs::read_to_string(Path::new(CORPUS_DIR).join("expected.json")).unwrap();
        let expected: Value = serde_json::from_str(&text).unwrap();
        let cases = expected["cases"].as_array().expect("cases");
        assert!(!cases.is_empty());
        cases
            .iter()
            .map(|case| {
                (
                    case["a"].as_str().unwrap().to_string(),
                    case["b"].as_str().unwrap().to_string(),
                    options_from_json(&case["options"]),
                    case["mismatched"].as_u64().unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn corpus_counts_match_pixelmatch_7_2_0() {
        let mut failures = Vec::new();
        for (an, bn, opts, want) in corpus_cases() {
            let (an, bn) = (an.as_str(), bn.as_str());
            let (a, b) = (load(an), load(bn));
            let mut out = image::RgbaImage::new(a.width(), a.height());
            let got = diff_images(&a, &b, &opts, Some(&mut out)).unwrap();
            // The mask holds exactly the counted pixels, and drawing must not change the count.
            let bits: u64 = got.mask.iter().map(|w| u64::from(w.count_ones())).sum();
            assert_eq!(bits, got.mismatched, "{an}/{bn} mask popcount");
            let no_out = diff_images(&a, &b, &opts, None).unwrap();
            assert_eq!(no_out, got, "{an}/{bn} with and without output");
            if got.mismatched != want {
                failures.push(format!(
                    "{an} vs {bn} {opts:?}: got {} want {want}",
                    got.mismatched
                ));
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
    }

    #[test]
    fn any_thread_count_gives_the_same_result() {
        // Bands split pixels at word boundaries anywhere in a row; the anti-aliasing check reads
        // across them. Counts, masks and drawn images must not depend on the split.
        for (an, bn, include_aa) in [("4a", "4b", false), ("1a", "1b", true), ("7a", "7b", false)] {
            let (a, b) = (load(an), load(bn));
            let opts = Options {
                include_aa,
                diff_color_alt: Some([0, 255, 0]),
                ..Options::default()
            };
            let (pa, pb) = (a.as_raw().as_chunks::<4>().0, b.as_raw().as_chunks::<4>().0);
            let wh = (a.width() as usize, a.height() as usize);
            let n = pa.len();
            let run = |threads| {
                let mut out = vec![[0u8; 4]; n];
                let mut mask = vec![0u64; n.div_ceil(64)];
                let c = diff_bands(pa, pb, wh, &opts, Some(&mut out), &mut mask, threads);
                let mut mask2 = vec![0u64; n.div_ceil(64)];
                let c2 = diff_bands(pa, pb, wh, &opts, None, &mut mask2, threads);
                assert_eq!((c, &mask), (c2, &mask2), "{an}/{bn} without output");
                (c, mask, out)
            };
            let one = run(1);
            for threads in [2, 3, 5, 8] {
                assert!(run(threads) == one, "{an}/{bn} with {threads} threads");
            }
        }
    }

    #[test]
    fn corpus_outputs_match_reference() {
        // The corpus only records counts; the diff images are checked against the reference.
        for (an, bn, threshold) in [("1a", "1b", 0.05), ("4a", "4b", 0.1), ("7a", "7b", 0.1)] {
            let (a, b) = (load(an), load(bn));
            let opts = Options {
                threshold,
                diff_color_alt: Some([0, 255, 0]),
                ..Options::default()
            };
            let mut out = vec![0; a.as_raw().len()];
            let got = diff(
                a.as_raw(),
                b.as_raw(),
                a.width(),
                a.height(),
                &opts,
                Some(&mut out),
            );
            let mut ref_out = vec![0; a.as_raw().len()];
            let want = crate::diff::reference::pixelmatch(
                a.as_raw(),
                b.as_raw(),
                Some(&mut ref_out),
                a.width() as usize,
                a.height() as usize,
                &opts,
            );
            assert_eq!(got.unwrap().mismatched, want);
            assert!(out == ref_out, "{an}/{bn} output differs");
        }
    }

    /// Counts measured by running pixelmatch 7.2.0 under Node 20 on corpus pairs and options
    /// that `expected.json` does not cover: these pairs have transparent pixels, so they pin the
    /// difference between the checkerboard and white backgrounds.
    #[test]
    fn corpus_backgrounds_measured_with_node() {
        for (an, bn, checkerboard, include_aa, want) in [
            ("5a", "5b", true, false, 6),
            ("5a", "5b", false, false, 0),
            ("5a", "5b", true, true, 256),
            ("5a", "5b", false, true, 256),
            ("8a", "5b", true, false, 32896),
            ("8a", "5b", false, false, 0),
        ] {
            let opts = Options {
                threshold: 0.05,
                checkerboard,
                include_aa,
                ..Options::default()
            };
            let got = diff_images(&load(an), &load(bn), &opts, None).unwrap();
            assert_eq!(got.mismatched, want, "{an}/{bn} {opts:?}");
        }
    }

    /// Output bytes measured by running pixelmatch 7.2.0 under Node 20 on a small pair of
    /// semi-transparent images (threshold 0.05, `diffColorAlt: [0, 0, 255]`).
    #[test]
    fn small_semi_transparent_pair_measured_with_node() {
        const W: u32 = 6;
        const H: u32 = 5;
        let n = (W * H * 4) as usize;
        let a: Vec<u8> = (0..n).map(|i| ((i * 37 + 11) % 256) as u8).collect();
        let b: Vec<u8> = (0..n)
            .map(|i| {
                if i % 7 == 0 {
                    ((i * 91 + 5) % 256) as u8
                } else {
                    a[i]
                }
            })
            .collect();
        let cases = [
            (
                true,
                "f4f4f4ffff0000fff3f3f3ffff0000fff4f4f4ffff0000fff6f6f6ffff0000ffff0000fff3f3f3ff\
                 ff0000fff4f4f4ffff0000fff6f6f6ffff0000ffff0000fff4f4f4ffff0000fff5f5f5ffff0000ff\
                 fefefeffff0000ffff0000fff4f4f4ffff0000fff5f5f5fff4f4f4fffefefeffff0000fffdfdfdff",
            ),
            (
                false,
                "f4f4f4ff0000fffff3f3f3ffff0000fff4f4f4ffff0000fff6f6f6ffff0000ff0000fffff3f3f3ff\
                 ff0000fff4f4f4ffff0000fff6f6f6ffff0000ff0000fffff4f4f4ffff0000fff5f5f5ffff0000ff\
                 fefefeffff0000ff0000fffff4f4f4ffff0000fff5f5f5fff4f4f4fffefefeffff0000fffdfdfdff",
            ),
        ];
        for (checkerboard, hex) in cases {
            let want: Vec<u8> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            let opts = Options {
                threshold: 0.05,
                checkerboard,
                diff_color_alt: Some([0, 0, 255]),
                ..Options::default()
            };
            let mut out = vec![0; n];
            let d = diff(&a, &b, W, H, &opts, Some(&mut out)).unwrap();
            assert_eq!(d.mismatched, 15, "checkerboard {checkerboard}");
            assert_eq!(out, want, "checkerboard {checkerboard}");
        }
    }

    #[test]
    fn different_sizes_are_an_error() {
        let a = image::RgbaImage::new(100, 80);
        let b = image::RgbaImage::new(100, 81);
        let err = diff_images(&a, &b, &Options::default(), None).unwrap_err();
        assert_eq!(err.to_string(), "image sizes differ: 100×80 vs 100×81");
        let mut out = image::RgbaImage::new(1, 1);
        let err = diff_images(&a, &a, &Options::default(), Some(&mut out)).unwrap_err();
        assert_eq!(
            err,
            SizeError::Dimensions {
                a: (100, 80),
                b: (1, 1)
            }
        );
    }

    #[test]
    fn wrong_buffer_lengths_are_an_error() {
        let o = Options::default();
        let good = vec![0u8; 16];
        let short = vec![0u8; 12];
        let e = diff(&good, &short, 2, 2, &o, None).unwrap_err();
        assert!(matches!(
            e,
            SizeError::BufferLength {
                buffer: "b",
                len: 12,
                ..
            }
        ));
        assert_eq!(
            e.to_string(),
            "image sizes differ: buffer b holds 12 bytes vs 2×2 RGBA needing 16"
        );
        assert!(diff(&short, &good, 2, 2, &o, None).is_err());
        assert!(diff(&good, &good, 2, 3, &o, None).is_err());
        let mut out = vec![0u8; 4];
        let e = diff(&good, &good, 2, 2, &o, Some(&mut out)).unwrap_err();
        assert!(matches!(
            e,
            SizeError::BufferLength {
                buffer: "output",
                ..
            }
        ));
        // Sizes whose byte count overflows are refused, not panicked on.
        assert!(diff(&good, &good, u32::MAX, u32::MAX, &o, None).is_err());
    }

    #[test]
    fn zero_size_images() {
        for (w, h) in [(0, 0), (0, 5), (7, 0)] {
            let mut out: [u8; 0] = [];
            let d = diff(&[], &[], w, h, &Options::default(), Some(&mut out)).unwrap();
            assert_eq!(d.mismatched, 0);
            assert!(d.mask.is_empty());
            assert!(!d.is_mismatched(0, 0));
        }
        let e = image::RgbaImage::new(0, 0);
        assert_eq!(
            diff_images(&e, &e, &Options::default(), None)
                .unwrap()
                .mismatched,
            0
        );
    }

    #[test]
    fn one_pixel_images() {
        let o = Options::default();
        let black = [0, 0, 0, 255];
        let white = [255, 255, 255, 255];
        let mut out = [0u8; 4];
        let d = diff(&black, &white, 1, 1, &o, Some(&mut out)).unwrap();
        // A lone pixel has no neighbours, so it can never be anti-aliasing.
        assert_eq!(d.mismatched, 1);
        assert!(d.is_mismatched(0, 0));
        assert_eq!(out, [255, 0, 0, 255]);
        // White to black: `b` is darker, so the alternative colour is used.
        let alt = Options {
            diff_color_alt: Some([0, 0, 255]),
            ..o.clone()
        };
        diff(&white, &black, 1, 1, &alt, Some(&mut out)).unwrap();
        assert_eq!(out, [0, 0, 255, 255]);
        // Identical: grey background, 255 + (0 - 255) * 0.1 = 229.5, truncated.
        let d = diff(&black, &black, 1, 1, &o, Some(&mut out)).unwrap();
        assert_eq!((d.mismatched, out), (0, [229, 229, 229, 255]));
        // A tiny change stays under the threshold and is drawn as background.
        let d = diff(&black, &[1, 0, 0, 255], 1, 1, &o, Some(&mut out)).unwrap();
        assert_eq!((d.mismatched, out), (0, [229, 229, 229, 255]));
    }

    #[test]
    fn fully_transparent_pixels() {
        let o = Options {
            threshold: 0.0,
            ..Options::default()
        };
        // Colour under alpha 0 is invisible: any two fully transparent pixels match, even at
        // threshold 0.
        let a = [255, 0, 0, 0, 0, 0, 0, 0];
        let b = [0, 255, 255, 0, 10, 20, 30, 0];
        let mut out = [0u8; 8];
        let d = diff(&a, &b, 2, 1, &o, Some(&mut out)).unwrap();
        assert_eq!(d.mismatched, 0);
        // The background of a transparent pixel is white.
        assert_eq!(out, [255, 255, 255, 255, 255, 255, 255, 255]);
        // Transparent against opaque black is a difference on either background.
        for checkerboard in [true, false] {
            let o = Options {
                checkerboard,
                ..o.clone()
            };
            let d = diff(&[0, 0, 0, 0], &[0, 0, 0, 255], 1, 1, &o, None).unwrap();
            assert_eq!(d.mismatched, 1, "checkerboard {checkerboard}");
        }
        // Transparent against opaque white: invisible over white, visible over the
        // checkerboard's dark red.
        let white = [255, 255, 255, 255];
        let clear = [0, 0, 0, 0];
        let over_white = Options {
            checkerboard: false,
            ..o.clone()
        };
        assert_eq!(
            diff(&clear, &white, 1, 1, &over_white, None)
                .unwrap()
                .mismatched,
            0
        );
        assert_eq!(diff(&clear, &white, 1, 1, &o, None).unwrap().mismatched, 1);
    }

    #[test]
    fn checkerboard_background_follows_byte_offsets() {
        // Spot values of pixelmatch's formula: red is always 48 because k = 4·i is even.
        assert_eq!(background(0, true), [48, 48, 48]);
        assert_eq!(background(4, true), [48, 48, 207]);
        assert_eq!(background(8, true), [48, 48, 207]);
        assert_eq!(background(12, true), [48, 207, 48]);
        assert_eq!(background(16, true), [48, 207, 48]);
        assert_eq!(background(12, false), [255, 255, 255]);
    }

    #[test]
    fn diff_mask_touches_only_counted_pixels() {
        let a = [0, 0, 0, 255, 0, 0, 0, 255];
        let b = [0, 0, 0, 255, 255, 255, 255, 255];
        let o = Options {
            diff_mask: true,
            ..Options::default()
        };
        let mut out = [7u8; 8];
        let d = diff(&a, &b, 2, 1, &o, Some(&mut out)).unwrap();
        assert_eq!(d.mismatched, 1);
        assert_eq!(out, [7, 7, 7, 7, 255, 0, 0, 255]);
        let mut out = [7u8; 8];
        diff(&a, &a, 2, 1, &o, Some(&mut out)).unwrap();
        assert_eq!(out, [7; 8]);
    }

    #[test]
    fn uint8_store_semantics() {
        assert_eq!(to_uint8(229.99), 229);
        assert_eq!(to_uint8(-0.5), 0);
        assert_eq!(to_uint8(-1.5), 255);
        assert_eq!(to_uint8(256.0), 0);
        assert_eq!(to_uint8(513.7), 1);
        assert_eq!(to_uint8(f64::NAN), 0);
        assert_eq!(to_uint8(f64::INFINITY), 0);
    }
}

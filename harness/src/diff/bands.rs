//! The pixel diff of two screenshots, a band of rows at a time as they are decoded: neither
//! image, nor the diff image, is ever whole in memory. This thread decodes `a` and draws the
//! band's background in the diff image; a helper decodes the same rows of `b` (copying the
//! rows that come out the same as `a`'s, see `png::rows::Rows::Share`), compares the rows it
//! did not copy, draws what differs and encodes the band as PNG while this thread decodes the
//! next. A pixel's anti-aliasing check reads two rows above and below it, so each band
//! carries those rows too, kept from the band before or read ahead. Counts, mask and diff
//! image are those of [`pixel::diff`] on the whole images (tested).

use std::path::Path;
use std::sync::mpsc;

use super::Masks;
use super::files::{Layout, PngBands};
use super::pixel::{self, Options, PixelDiff};
use crate::errors::{Error, InputError, Reason};
use crate::png::decode::Chunks;
use crate::png::rows::{RowReader, Rows};

/// Rows of context a compared row needs on each side.
const CONTEXT: usize = 2;

/// Rows compared per band: about 128 KiB of each image, and at least 20 rows, so that the
/// rows read again as context stay a small share. Smaller bands are fewer fresh pages and a
/// shorter wait before the helper starts: at 1440×900 this was 2–7% faster than 256 KiB
/// (22 rows against 45), and as fast at 2880×1800, where 11 rows had been 4–6% slower;
/// 64 KiB was slower everywhere (process A/Bs with `benches/peers/run.sh`).
fn band_rows(width: usize) -> usize {
    ((128 << 10) / (width * 4).max(1)).clamp(20, 1024)
}

/// What [`diff`] returns: the result, and the diff image as PNG when one was asked for.
pub(crate) type Diffed = (PixelDiff, Option<Vec<u8>>);

/// Compares the two walked images `a` and `b` (same size): pixelmatch 7.2.0's count and the
/// mask of counted pixels and, when `image` gives the masks to draw on it, the diff image
/// encoded as PNG. Errors name the file; when both files are broken, the first error met is
/// returned.
pub(crate) fn diff(
    a: (&Path, Chunks<'_>),
    b: (&Path, Chunks<'_>),
    opts: &Options,
    image: Option<&Masks>,
) -> Result<Diffed, Error> {
    let k = band_rows(a.1.width as usize);
    diff_in_bands(a, Some(b), opts, image, k)
}

/// [`diff`] of an image with itself (the same file twice): nothing differs, so without a diff
/// image the rows are only checked to decode.
pub(crate) fn same(
    path: &Path,
    chunks: Chunks<'_>,
    opts: &Options,
    image: Option<&Masks>,
) -> Result<Diffed, Error> {
    let k = band_rows(chunks.width as usize);
    diff_in_bands((path, chunks), None, opts, image, k)
}

/// What the comparing side returns: the count, the mask, the PNG, and its row buffer, to be
/// freed after the join.
type Compared = (u64, Vec<u64>, Option<Vec<u8>>, Vec<u8>);

/// Sets of band buffers (`a`'s rows and the diff image's) in use at once: one being filled,
/// one waiting, one compared.
const BUFFERS: usize = 3;

/// Draws the background of a band of the diff image: the faded copy of `a` (or transparent).
fn background(held: Held, rows: &[u8], drawn: &mut Vec<u8>, w: usize, opts: &Options) {
    let (s, e) = held.compared;
    drawn.resize((e - s) * w * 4, 0);
    let from = (s - held.first) * w * 4;
    let theirs = rows[from..from + drawn.len()].as_chunks::<4>().0;
    pixel::draw_background(drawn.as_chunks_mut::<4>().0, theirs, opts);
}

/// Compares a band's rows from `at` on, each changed pixel set in `mask` and drawn onto
/// `out`; the rows `b` copied from `a` (`shared`) are the same pixels, so only runs of the
/// others are compared (the copies stay as their neighbours' context). Returns how many
/// changed.
fn compare_unshared(
    rows: &pixel::Rows<'_>,
    shared: &[bool],
    at: usize,
    opts: &Options,
    mut out: Option<&mut [[u8; 4]]>,
    mask: &mut [u64],
) -> u64 {
    let w = rows.width;
    let mut mismatched = 0;
    let mut r = 0;
    while r < shared.len() {
        let run = shared[r..].iter().take_while(|&&x| x == shared[r]).count();
        if !shared[r] {
            let local = (at + r) * w..(at + r + run) * w;
            let out = out.as_deref_mut().map(|o| &mut o[r * w..]);
            mismatched += rows.compare_onto(local, opts, out, true, |i| {
                mask[i / 64] |= 1 << (i % 64);
            });
        }
        r += run;
    }
    mismatched
}

/// [`diff`] with `k` rows compared per band; `b` `None` compares `a` with itself.
fn diff_in_bands(
    (pa, a): (&Path, Chunks<'_>),
    b: Option<(&Path, Chunks<'_>)>,
    opts: &Options,
    image: Option<&Masks>,
    k: usize,
) -> Result<Diffed, Error> {
    let size = (a.width, a.height);
    let (w, h) = (size.0 as usize, size.1 as usize);
    let bands = h.div_ceil(k);
    let pb = b.as_ref().map_or(pa, |(p, _)| p);
    let mut feed_a = Feed::new(RowReader::new(pa, a), w, h, k);
    let mut feed_b = b.map(|(pb, b)| Feed::new(RowReader::new(pb, b), w, h, k));
    let unchanged = |mask| PixelDiff {
        width: size.0,
        height: size.1,
        mismatched: 0,
        mask,
    };
    let same_file = feed_b.is_none();
    if same_file && image.is_none() {
        feed_a.reader.skip(h)?;
        return Ok((unchanged(vec![0; (w * h).div_ceil(64)]), None));
    }
    // Bands of `a`, with the background of the diff image drawn (unless there is nothing to
    // compare), go to the helper; their buffers come back to be filled again.
    let (to_b, from_a) = mpsc::sync_channel::<(Held, Vec<u8>, Vec<u8>)>(2);
    let (back_tx, back_rx) = mpsc::channel::<(Vec<u8>, Vec<u8>)>();
    // The big buffers are freed here, after the join, not on the helper while this thread
    // runs: glibc unmaps a freed buffer this big, and while two threads run, an unmap makes
    // the kernel interrupt the other CPU to flush its TLB (on a VM, an exit to the
    // hypervisor). The channels and feeds outlive the threads, and the helper hands back its
    // row buffer.
    let back_rx = &back_rx;
    let feed_b = &mut feed_b;
    // `Err(None)`: the other side stopped, and its error is the one to report.
    let (ra, rb) = crate::par::try_join(
        || -> Result<(), Option<Error>> {
            // Owned here, so the helper sees a hang-up as soon as this side stops.
            let to_b = to_b;
            for band in 0..bands {
                // A few sets of buffers go round: each new one is fresh memory the kernel
                // must hand out, page by page.
                let (mut rows, mut drawn) = if band < BUFFERS {
                    Default::default()
                } else {
                    crate::par::recv_soon(back_rx).map_err(|_| None)?
                };
                let held = feed_a
                    .fill(band, &mut rows, Rows::Plain)
                    .map_err(|e| Some(e.into()))?;
                if image.is_some() && !same_file {
                    background(held, &rows, &mut drawn, w, opts);
                }
                to_b.send((held, rows, drawn)).map_err(|_| None)?;
            }
            Ok(())
        },
        move || -> Result<Compared, Option<Error>> {
            let mut mask = vec![0u64; (w * h).div_ceil(64)];
            let layout = |masks: &Masks| Layout::of_diff(opts, same_file && masks.is_empty());
            let mut encoder = image
                .map(|masks| PngBands::new(size.0, size.1, layout(masks)))
                .transpose()?;
            let mut buf_b = Vec::new();
            let mut mismatched = 0;
            for band in 0..bands {
                let (held, rows_a, mut drawn) = crate::par::recv_soon(&from_a).map_err(|_| None)?;
                let (s, e) = held.compared;
                if let Some(feed_b) = feed_b.as_mut() {
                    let from_a = Rows::Share(&rows_a[feed_b.carried(band)..]);
                    feed_b
                        .fill(band, &mut buf_b, from_a)
                        .map_err(|e| Some(e.into()))?;
                    let rows = pixel::Rows {
                        a: rows_a.as_chunks::<4>().0,
                        b: buf_b.as_chunks::<4>().0,
                        width: w,
                        height: held.rows,
                        base: held.first * w,
                    };
                    let shared = &feed_b.shared[s - held.first..e - held.first];
                    let out = image.map(|_| drawn.as_chunks_mut::<4>().0);
                    mismatched +=
                        compare_unshared(&rows, shared, s - held.first, opts, out, &mut mask);
                }
                if let (Some(encoder), Some(masks)) = (encoder.as_mut(), image) {
                    // With nothing to compare, this side has time to draw the background.
                    if same_file {
                        background(held, &rows_a, &mut drawn, w, opts);
                    }
                    masks.draw_rows(&mut drawn, size.0, size.1, s as u32..e as u32);
                    encoder.push(&drawn)?;
                }
                let _ = back_tx.send((rows_a, drawn));
            }
            let png = encoder.map(PngBands::finish).transpose()?;
            Ok((mismatched, mask, png, buf_b))
        },
    );
    let rb = rb.unwrap_or_else(|_| {
        Err(Some(
            InputError::new(pb, Reason::InvalidImage, "the decoder crashed").into(),
        ))
    });
    let (mismatched, mask, png, _rows_b) = match (ra, rb) {
        (Err(Some(e)), _) | (_, Err(Some(e))) => return Err(e),
        (Ok(()), Ok(done)) => done,
        _ => return Err(Error::Internal("a diff thread stopped early".into())),
    };
    let diff = PixelDiff {
        mismatched,
        ..unchanged(mask)
    };
    Ok((diff, png))
}

/// Where a filled band lies in the image.
#[derive(Clone, Copy)]
struct Held {
    /// The first row held.
    first: usize,
    /// Rows held.
    rows: usize,
    /// The rows to compare (`start..end`), with their context inside the rows held.
    compared: (usize, usize),
}

/// Fills band after band of one image from its reader, carrying the rows two bands share.
struct Feed<'a> {
    reader: RowReader<'a>,
    /// Bytes in an RGBA row.
    w4: usize,
    height: usize,
    band: usize,
    /// The last rows of the band before, from row `kept_first` on.
    kept: Vec<u8>,
    kept_first: usize,
    /// For each row of the band filled last, whether the reader copied it from the other
    /// image ([`RowReader::shared`]); `kept_shared` for the rows kept.
    shared: Vec<bool>,
    kept_shared: Vec<bool>,
    /// Rows read so far.
    read: usize,
}

impl<'a> Feed<'a> {
    fn new(reader: RowReader<'a>, width: usize, height: usize, band: usize) -> Self {
        Feed {
            reader,
            w4: width * 4,
            height,
            band,
            kept: Vec::new(),
            kept_first: 0,
            shared: Vec::new(),
            kept_shared: Vec::new(),
            read: 0,
        }
    }

    /// Bytes of band `n` carried over from the band before (its first rows).
    fn carried(&self, n: usize) -> usize {
        let lo = (n * self.band).saturating_sub(CONTEXT);
        (self.read - lo) * self.w4
    }

    /// Fills `buf` with band `n` (called for 0, 1, 2, … in order): the rows it compares and
    /// their context. Rows already read for the band before are carried over; `rows` says what
    /// else to do while reading the others.
    fn fill(&mut self, n: usize, buf: &mut Vec<u8>, rows: Rows<'_>) -> Result<Held, InputError> {
        let w4 = self.w4;
        let s = n * self.band;
        let e = (s + self.band).min(self.height);
        let (lo, hi) = (s.saturating_sub(CONTEXT), (e + CONTEXT).min(self.height));
        // The first band has no rows above it; room for a full band now spares a move later.
        buf.reserve_exact(((self.band + 2 * CONTEXT) * w4).saturating_sub(buf.len()));
        buf.resize((hi - lo) * w4, 0);
        let carried = self.carried(n);
        let from = (lo - self.kept_first) * w4;
        buf[..carried].copy_from_slice(&self.kept[from..from + carried]);
        self.reader.read_rgba(&mut buf[carried..], rows)?;
        self.shared.clear();
        let kept = lo - self.kept_first;
        self.shared
            .extend_from_slice(&self.kept_shared[kept..kept + carried / w4]);
        self.shared.extend_from_slice(self.reader.shared());
        self.read = hi;
        let keep = (hi - lo).min(2 * CONTEXT);
        self.kept_first = hi - keep;
        self.kept.clear();
        self.kept.extend_from_slice(&buf[(hi - lo - keep) * w4..]);
        self.kept_shared.clear();
        self.kept_shared
            .extend_from_slice(&self.shared[hi - lo - keep..]);
        Ok(Held {
            first: lo,
            rows: hi - lo,
            compared: (s, e),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::pixel::tests::{CORPUS_DIR, corpus_cases};
    use crate::png::decode::walk;
    use image::RgbaImage;

    fn read(name: &str) -> (std::path::PathBuf, Vec<u8>) {
        let path = Path::new(CORPUS_DIR).join(format!("{name}.png"));
        let bytes = std::fs::read(&path).unwrap();
        (path, bytes)
    }

    /// The pixels of an encoded diff image.
    fn pixels(png: Option<Vec<u8>>) -> RgbaImage {
        image::load_from_memory(&png.expect("a diff image"))
            .unwrap()
            .to_rgba8()
    }

    /// Masks of one rectangle.
    fn one_mask(x: i32, y: i32, width: i32, height: i32) -> Masks {
        let mut masks = Masks::new();
        masks.push(crate::recording::Rect::new(x, y, width, height));
        masks
    }

    /// How an encoded diff image stores its pixels.
    fn stored_as(png: &Option<Vec<u8>>) -> image::ColorType {
        image::load_from_memory(png.as_ref().expect("a diff image"))
            .unwrap()
            .color()
    }

    fn chunks<'a>(path: &Path, bytes: &'a [u8]) -> Chunks<'a> {
        walk(path, bytes).unwrap().expect("8-bit RGB(A)")
    }

    /// Every corpus case, in bands of 1, 2, 3, 7 and 1,000 rows: the count, mask and diff image
    /// of the whole-image diff, and pixelmatch's count.
    #[test]
    fn bands_of_any_height_equal_the_whole_image_diff() {
        let mut banded = 0;
        for (an, bn, opts, want) in corpus_cases() {
            let ((pa, ba), (pb, bb)) = (read(&an), read(&bn));
            let (ia, ib) = (
                image::load_from_memory(&ba).unwrap().to_rgba8(),
                image::load_from_memory(&bb).unwrap().to_rgba8(),
            );
            let mut whole = RgbaImage::new(ia.width(), ia.height());
            let expected = pixel::diff_images(&ia, &ib, &opts, Some(&mut whole)).unwrap();
            assert_eq!(expected.mismatched, want, "{an}/{bn}");
            let (Some(_), Some(_)) = (walk(&pa, &ba).unwrap(), walk(&pb, &bb).unwrap()) else {
                continue;
            };
            banded += 1;
            for k in [1, 2, 3, 7, 1000] {
                let (a, b) = (
                    (pa.as_path(), chunks(&pa, &ba)),
                    (pb.as_path(), chunks(&pb, &bb)),
                );
                let (got, img) = diff_in_bands(a, Some(b), &opts, Some(&Masks::new()), k).unwrap();
                assert_eq!(got, expected, "{an}/{bn} in bands of {k}");
                // Opaque unless only differences are drawn, which leaves the rest transparent.
                let color =
                    [image::ColorType::Rgb8, image::ColorType::Rgba8][opts.diff_mask as usize];
                assert_eq!(stored_as(&img), color, "{an}/{bn}");
                assert!(pixels(img) == whole, "{an}/{bn} diff image in bands of {k}");
                let (a, b) = (
                    (pa.as_path(), chunks(&pa, &ba)),
                    (pb.as_path(), chunks(&pb, &bb)),
                );
                let undrawn = diff_in_bands(a, Some(b), &opts, None, k).unwrap();
                assert_eq!(undrawn, (expected.clone(), None), "{an}/{bn} undrawn");
            }
        }
        assert!(banded >= 10, "only {banded} corpus cases are 8-bit RGB(A)");
    }

    /// A screenshot-like pair: the same picture, `b` with a few rows changed, each encoded
    /// alone, `b` with the filter `b_filter` (most rows then come out the same, and are copied
    /// rather than reconstructed, whether they are stored alike or not).
    fn pair(
        color: image::ExtendedColorType,
        b_filter: image::codecs::png::FilterType,
    ) -> [Vec<u8>; 2] {
        let (w, h) = (97u32, 60u32);
        let picture = |changed: bool| {
            RgbaImage::from_fn(w, h, |x, y| {
                let mut v = ((x / 8 + y / 5) % 3 * 90) as u8;
                if changed && (y == 0 || (20..23).contains(&y) || y == h - 1) && x % 3 == 0 {
                    v = v.wrapping_add(120);
                }
                image::Rgba([v, v / 2, 255 - v, 255])
            })
        };
        [false, true].map(|changed| {
            let img = picture(changed);
            let raw: Vec<u8> = match color {
                image::ExtendedColorType::Rgb8 => {
                    img.pixels().flat_map(|p| [p[0], p[1], p[2]]).collect()
                }
                _ => img.into_raw(),
            };
            let mut out = Vec::new();
            let enc = image::codecs::png::PngEncoder::new_with_quality(
                &mut out,
                image::codecs::png::CompressionType::Default,
                if changed {
                    b_filter
                } else {
                    image::codecs::png::FilterType::Adaptive
                },
            );
            image::ImageEncoder::write_image(enc, &raw, w, h, color).unwrap();
            out
        })
    }

    #[test]
    fn rows_that_come_out_the_same_are_shared_and_masks_drawn_across_bands() {
        use image::codecs::png::FilterType;
        let (pa, pb) = (Path::new("a.png"), Path::new("b.png"));
        let colors = [
            image::ExtendedColorType::Rgba8,
            image::ExtendedColorType::Rgb8,
        ];
        let filters = [FilterType::Adaptive, FilterType::Sub, FilterType::Paeth];
        for (color, b_filter) in colors.into_iter().flat_map(|c| filters.map(|f| (c, f))) {
            let [ba, bb] = pair(color, b_filter);
            let (ia, ib) = (
                image::load_from_memory(&ba).unwrap().to_rgba8(),
                image::load_from_memory(&bb).unwrap().to_rgba8(),
            );
            let opts = Options::default();
            let mut whole = RgbaImage::new(ia.width(), ia.height());
            let expected = pixel::diff_images(&ia, &ib, &opts, Some(&mut whole)).unwrap();
            assert!(expected.mismatched > 0);
            let masks = one_mask(5, 3, 40, 30);
            masks.draw(&mut whole, ia.width(), ia.height());
            for k in [1, 2, 3, 7, 1000] {
                let (a, b) = ((pa, chunks(pa, &ba)), (pb, chunks(pb, &bb)));
                let (got, img) = diff_in_bands(a, Some(b), &opts, Some(&masks), k).unwrap();
                assert_eq!(got, expected, "{color:?} {b_filter:?} in bands of {k}");
                assert_eq!(stored_as(&img), image::ColorType::Rgb8);
                assert!(
                    pixels(img) == whole,
                    "{color:?} {b_filter:?} image, bands of {k}"
                );
            }
        }
    }

    #[test]
    fn an_image_with_itself_draws_the_faded_copy() {
        let (path, bytes) = read("4a");
        let img = image::load_from_memory(&bytes).unwrap().to_rgba8();
        let fainter = Options {
            alpha: 0.5,
            diff_mask: true,
            ..Options::default()
        };
        let masks = one_mask(2, 4, 30, 20);
        // Grey when nothing but the faded copy is drawn; a mask's colour needs RGB, and a
        // transparent background needs alpha.
        let cases = [
            (Options::default(), Masks::new(), image::ColorType::L8),
            (Options::default(), masks, image::ColorType::Rgb8),
            (fainter, Masks::new(), image::ColorType::Rgba8),
        ];
        for (opts, masks, color) in cases {
            let mut whole = RgbaImage::new(img.width(), img.height());
            let expected = pixel::diff_images(&img, &img, &opts, Some(&mut whole)).unwrap();
            masks.draw(&mut whole, img.width(), img.height());
            let (got, drawn) = same(&path, chunks(&path, &bytes), &opts, Some(&masks)).unwrap();
            assert_eq!(got, expected);
            assert_eq!(stored_as(&drawn), color);
            assert!(pixels(drawn) == whole);
            for k in [1, 3] {
                let a = (path.as_path(), chunks(&path, &bytes));
                let (got, drawn) = diff_in_bands(a, None, &opts, Some(&masks), k).unwrap();
                assert_eq!(got, expected, "bands of {k}");
                assert!(pixels(drawn) == whole, "bands of {k}");
            }
            let undrawn = same(&path, chunks(&path, &bytes), &opts, None).unwrap();
            assert_eq!(undrawn, (expected, None));
        }
    }

    #[test]
    fn a_broken_file_is_its_own_error_and_nothing_hangs() {
        let (pa, ba) = read("4a");
        let (pb, bb) = read("4b");
        let mut idat = chunks(&pb, &bb).idat;
        let last = idat.pop().unwrap();
        idat.push(&last[..last.len() / 3]);
        let broken = || Chunks {
            idat: idat.clone(),
            ..chunks(&pb, &bb)
        };
        let masks = Masks::new();
        for k in [1, 4, 1000] {
            for image in [None, Some(&masks)] {
                let err = diff_in_bands(
                    (&pa, chunks(&pa, &ba)),
                    Some((&pb, broken())),
                    &Options::default(),
                    image,
                    k,
                )
                .unwrap_err();
                assert!(
                    matches!(&err, Error::Input(e) if e.file == pb),
                    "b, {k}: {err}"
                );
                let err = diff_in_bands(
                    (&pb, broken()),
                    Some((&pa, chunks(&pa, &ba))),
                    &Options::default(),
                    image,
                    k,
                )
                .unwrap_err();
                assert!(
                    matches!(&err, Error::Input(e) if e.file == pb),
                    "a, {k}: {err}"
                );
            }
        }
    }
}

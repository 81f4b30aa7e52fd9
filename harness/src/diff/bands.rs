//! The pixel diff of two decodable-row-by-row screenshots, a band of rows at a time: neither
//! image is ever whole in memory. Image `b` is decoded on a helper thread and handed over band
//! by band; image `a` is decoded here, and each band is compared as soon as both halves are
//! in. A pixel's anti-aliasing check reads two rows above and below it, so each band carries
//! those rows too, kept from the band before or read ahead. Counts, mask and diff image are
//! those of [`pixel::diff`] on the whole images (tested).

use std::path::Path;
use std::sync::mpsc;

use image::RgbaImage;

use super::pixel::{self, Options, PixelDiff};
use crate::errors::{InputError, Reason};
use crate::recording::png_decode::Chunks;
use crate::recording::png_rows::RowReader;

/// Rows of context a compared row needs on each side.
const CONTEXT: usize = 2;

/// Rows compared per band: about 256 KiB of each image, a size that stays in cache.
fn band_rows(width: usize) -> usize {
    ((256 << 10) / (width * 4).max(1)).clamp(8, 1024)
}

/// Compares the two walked images `a` and `b` (same size): pixelmatch 7.2.0's count, the mask
/// of counted pixels, and the diff image when `draw`. Errors name the file; when both files
/// are broken, the first error met is returned.
pub(crate) fn diff(
    a: (&Path, Chunks<'_>),
    b: (&Path, Chunks<'_>),
    opts: &Options,
    draw: bool,
) -> Result<(PixelDiff, Option<RgbaImage>), InputError> {
    let k = band_rows(a.1.width as usize);
    diff_in_bands(a, b, opts, draw, k)
}

/// [`diff`] with `k` rows compared per band.
fn diff_in_bands(
    (pa, a): (&Path, Chunks<'_>),
    (pb, b): (&Path, Chunks<'_>),
    opts: &Options,
    draw: bool,
    k: usize,
) -> Result<(PixelDiff, Option<RgbaImage>), InputError> {
    let size = (a.width, a.height);
    let (w, h) = (size.0 as usize, size.1 as usize);
    let bands = h.div_ceil(k);
    let mut mask = vec![0u64; (w * h).div_ceil(64)];
    let mut image = draw.then(|| RgbaImage::new(size.0, size.1));
    let mut feed_a = Feed::new(RowReader::new(pa, a), w, h, k);
    let mut feed_b = Feed::new(RowReader::new(pb, b), w, h, k);
    // Full bands of `b` come here; their buffers go back to be filled again.
    let (full_tx, full_rx) = mpsc::sync_channel::<Vec<u8>>(2);
    let (free_tx, free_rx) = mpsc::channel::<Vec<u8>>();
    let (ra, rb) = crate::par::try_join(
        || -> Result<u64, Option<InputError>> {
            // Owned here, so the helper sees a hang-up as soon as this side stops.
            let (full_rx, free_tx) = (full_rx, free_tx);
            let mut buf_a = Vec::new();
            let mut mismatched = 0;
            for band in 0..bands {
                let held = feed_a.fill(band, &mut buf_a).map_err(Some)?;
                // A hang-up: `b` failed, and its error is the one to report.
                let buf_b = full_rx.recv().map_err(|_| None)?;
                let rows = pixel::Rows {
                    a: buf_a.as_chunks::<4>().0,
                    b: buf_b.as_chunks::<4>().0,
                    width: w,
                    height: held.rows,
                    base: held.first * w,
                };
                let (s, e) = held.compared;
                let out = image
                    .as_mut()
                    .map(|img| (**img)[s * w * 4..e * w * 4].as_chunks_mut::<4>().0);
                let local = (s - held.first) * w..(e - held.first) * w;
                mismatched += rows.compare(local, opts, out, |i| mask[i / 64] |= 1 << (i % 64));
                let _ = free_tx.send(buf_b);
            }
            Ok(mismatched)
        },
        move || -> Result<(), InputError> {
            for band in 0..bands {
                let mut buf = free_rx.try_recv().unwrap_or_default();
                feed_b.fill(band, &mut buf)?;
                if full_tx.send(buf).is_err() {
                    // `a` failed; its error is reported.
                    return Ok(());
                }
            }
            Ok(())
        },
    );
    let rb = rb.unwrap_or_else(|_| {
        Err(InputError::new(
            pb,
            Reason::InvalidImage,
            "the decoder crashed",
        ))
    });
    let mismatched = match ra {
        Ok(n) => n,
        Err(Some(e)) => return Err(e),
        Err(None) => {
            return Err(rb.err().unwrap_or_else(|| {
                InputError::new(pb, Reason::InvalidImage, "the decoder stopped early")
            }));
        }
    };
    rb?;
    let diff = PixelDiff {
        width: size.0,
        height: size.1,
        mismatched,
        mask,
    };
    Ok((diff, image))
}

/// Where a filled band lies in the image.
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
            read: 0,
        }
    }

    /// Fills `buf` with band `n` (called for 0, 1, 2, … in order): the rows it compares and
    /// their context.
    fn fill(&mut self, n: usize, buf: &mut Vec<u8>) -> Result<Held, InputError> {
        let w4 = self.w4;
        let s = n * self.band;
        let e = (s + self.band).min(self.height);
        let (lo, hi) = (s.saturating_sub(CONTEXT), (e + CONTEXT).min(self.height));
        buf.resize((hi - lo) * w4, 0);
        // Rows `lo..read` were read for the band before.
        let carried = (self.read - lo) * w4;
        let from = (lo - self.kept_first) * w4;
        buf[..carried].copy_from_slice(&self.kept[from..from + carried]);
        self.reader.read_rgba(&mut buf[carried..])?;
        self.read = hi;
        let keep = (hi - lo).min(2 * CONTEXT);
        self.kept_first = hi - keep;
        self.kept.clear();
        self.kept.extend_from_slice(&buf[(hi - lo - keep) * w4..]);
        Ok(Held {
            first: lo,
            rows: hi - lo,
            compared: (s, e),
        })
    }
}

/// [`diff`] of an image with itself (the same file twice): nothing differs, so without a diff
/// image the rows are only checked to decode, and with one each band is drawn as it is read.
pub(crate) fn same(
    path: &Path,
    chunks: Chunks<'_>,
    opts: &Options,
    draw: bool,
) -> Result<(PixelDiff, Option<RgbaImage>), InputError> {
    let size = (chunks.width, chunks.height);
    let (w, h) = (size.0 as usize, size.1 as usize);
    let diff = PixelDiff {
        width: size.0,
        height: size.1,
        mismatched: 0,
        mask: vec![0; (w * h).div_ceil(64)],
    };
    let mut reader = RowReader::new(path, chunks);
    if !draw {
        reader.skip(h)?;
        return Ok((diff, None));
    }
    let k = band_rows(w);
    let mut image = RgbaImage::new(size.0, size.1);
    let mut band = vec![0u8; k * w * 4];
    for (n, out) in image.chunks_mut(k * w * 4).enumerate() {
        let band = &mut band[..out.len()];
        reader.read_rgba(band)?;
        let pixels = band.as_chunks::<4>().0;
        let rows = pixel::Rows {
            a: pixels,
            b: pixels,
            width: w,
            height: pixels.len() / w,
            base: n * k * w,
        };
        rows.compare(
            0..pixels.len(),
            opts,
            Some(out.as_chunks_mut::<4>().0),
            |_| {},
        );
    }
    Ok((diff, Some(image)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::pixel::tests::{CORPUS_DIR, corpus_cases};
    use crate::recording::png_decode::walk;

    fn read(name: &str) -> (std::path::PathBuf, Vec<u8>) {
        let path = Path::new(CORPUS_DIR).join(format!("{name}.png"));
        let bytes = std::fs::read(&path).unwrap();
        (path, bytes)
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
                let chunks = |p, b| walk(p, b).unwrap().unwrap();
                let (got, img) = diff_in_bands(
                    (&pa, chunks(&pa, &ba)),
                    (&pb, chunks(&pb, &bb)),
                    &opts,
                    true,
                    k,
                )
                .unwrap();
                assert_eq!(got, expected, "{an}/{bn} in bands of {k}");
                assert!(
                    img.unwrap() == whole,
                    "{an}/{bn} diff image in bands of {k}"
                );
                let (no_img, none) = diff_in_bands(
                    (&pa, chunks(&pa, &ba)),
                    (&pb, chunks(&pb, &bb)),
                    &opts,
                    false,
                    k,
                )
                .unwrap();
                assert_eq!(
                    (no_img, none),
                    (expected.clone(), None),
                    "{an}/{bn} undrawn"
                );
            }
        }
        assert!(banded >= 10, "only {banded} corpus cases are 8-bit RGB(A)");
    }

    #[test]
    fn an_image_with_itself_draws_the_faded_copy() {
        let (path, bytes) = read("4a");
        let img = image::load_from_memory(&bytes).unwrap().to_rgba8();
        for opts in [
            Options::default(),
            Options {
                alpha: 0.5,
                diff_mask: true,
                ..Options::default()
            },
        ] {
            let mut whole = RgbaImage::new(img.width(), img.height());
            let expected = pixel::diff_images(&img, &img, &opts, Some(&mut whole)).unwrap();
            let chunks = walk(&path, &bytes).unwrap().unwrap();
            let (got, drawn) = same(&path, chunks, &opts, true).unwrap();
            assert_eq!(got, expected);
            assert!(drawn.unwrap() == whole);
        }
    }

    #[test]
    fn a_broken_second_file_is_its_own_error_and_nothing_hangs() {
        let (pa, ba) = read("4a");
        let (pb, bb) = read("4b");
        let cb = walk(&pb, &bb).unwrap().unwrap();
        let mut idat = cb.idat.clone();
        let last = idat.pop().unwrap();
        idat.push(&last[..last.len() / 3]);
        for k in [1, 4, 1000] {
            let ca = walk(&pa, &ba).unwrap().unwrap();
            let broken = Chunks {
                idat: idat.clone(),
                ..walk(&pb, &bb).unwrap().unwrap()
            };
            let err =
                diff_in_bands((&pa, ca), (&pb, broken), &Options::default(), false, k).unwrap_err();
            assert_eq!(err.file, pb, "bands of {k}");
            // And the other way round: `a` broken, `b` fine.
            let broken = Chunks {
                idat: idat.clone(),
                ..walk(&pb, &bb).unwrap().unwrap()
            };
            let ca = walk(&pa, &ba).unwrap().unwrap();
            let err =
                diff_in_bands((&pb, broken), (&pa, ca), &Options::default(), true, k).unwrap_err();
            assert_eq!(err.file, pb, "bands of {k}, a broken");
        }
    }
}

//! Reading an 8-bit RGB or RGBA screenshot a few rows at a time ([`RowReader`]), for a pixel
//! diff that never holds whole images. The image data is inflated into a small window (the
//! inflater's back-references reach 32 KiB back, so that much is kept) and each row is
//! reconstructed against the one above as it is taken. Memory is a few hundred KiB whatever
//! the image size, and every byte is compared while it is still in cache: a fresh
//! full-size buffer costs a page fault per 4 KiB, which at 1440×900 was as much time as
//! inflating into it.

use std::path::Path;

use super::decode::{Chunks, bad_filter, inflate_error, inflater};
use super::unfilter::{filters_to, paeth_pair, unfilter_row};
use crate::errors::InputError;

/// How far back a deflate stream may refer.
const LOOKBACK: usize = 32 * 1024;
/// Inflated bytes made per refill, at least.
const STEP: usize = 256 * 1024;

/// The rows of one image, top to bottom, as RGBA.
pub(crate) struct RowReader<'a> {
    path: &'a Path,
    width: usize,
    channels: usize,
    idat: std::vec::IntoIter<&'a [u8]>,
    input: &'a [u8],
    inflater: fdeflate::Decompressor,
    /// Inflated bytes; `buf[taken..made]` are not taken yet.
    buf: Vec<u8>,
    taken: usize,
    made: usize,
    /// The last row taken, reconstructed, in the file's layout (zeros above the first).
    prev: Vec<u8>,
    /// The row being reconstructed, for RGB images (RGBA rows are reconstructed in place).
    cur: Vec<u8>,
    /// Rows taken so far.
    y: usize,
    /// For each row of the last [`RowReader::read_rgba`], whether it was copied from the
    /// other image's ([`Rows::Share`]).
    shared: Vec<bool>,
}

/// What [`RowReader::read_rgba`] does besides reconstructing rows.
pub(crate) enum Rows<'x> {
    /// Nothing.
    Plain,
    /// Copies rows that come out the same as these (another image's reconstructed RGBA rows
    /// of the same size, at the rows read): each is checked with the forward filter
    /// ([`filters_to`]), a fraction of the cost of reconstructing it. Screenshots one step
    /// apart, or one screenshot encoded twice, are mostly the same rows.
    Share(&'x [u8]),
}

/// The RGBA row above the next one written after `above` (the rows written so far in this
/// call): the last of them, or `carried` (the last row of the call before) when there are none.
fn row_above<'x>(carried: &'x [u8], above: &'x [u8], w4: usize) -> &'x [u8] {
    if above.is_empty() {
        carried
    } else {
        &above[above.len() - w4..]
    }
}

impl<'a> RowReader<'a> {
    /// A reader of `chunks`, the walked image data of `path` (named in errors).
    pub(crate) fn new(path: &'a Path, chunks: Chunks<'a>) -> Self {
        let s = chunks.stride();
        RowReader {
            path,
            width: chunks.width as usize,
            channels: chunks.channels,
            idat: chunks.idat.into_iter(),
            input: &[],
            inflater: inflater(),
            buf: vec![0; LOOKBACK + STEP.max(4 * (s + 1))],
            taken: 0,
            made: 0,
            prev: vec![0; s],
            cur: if chunks.channels == 4 {
                Vec::new()
            } else {
                vec![0; s]
            },
            y: 0,
            shared: Vec::new(),
        }
    }

    /// For each row of the last [`RowReader::read_rgba`], whether it came out the same as the
    /// other image's and was copied ([`Rows::Share`]): those rows need no comparing.
    pub(crate) fn shared(&self) -> &[bool] {
        &self.shared
    }

    /// Makes sure `need` inflated bytes are ready to take.
    fn fill(&mut self, need: usize) -> Result<(), InputError> {
        while self.made - self.taken < need {
            if self.made == self.buf.len() {
                // Keep what is not taken yet and the lookback before it.
                let from = self.taken.min(self.made - LOOKBACK);
                self.buf.copy_within(from..self.made, 0);
                self.taken -= from;
                self.made -= from;
            }
            if self.input.is_empty() {
                match self.idat.next() {
                    Some(chunk) => self.input = chunk,
                    None => return Err(inflate_error(self.path, None)),
                }
                continue;
            }
            if self.inflater.is_done() {
                return Err(inflate_error(self.path, None));
            }
            let last = self.idat.len() == 0;
            let (used, n) = self
                .inflater
                .read(self.input, &mut self.buf, self.made, last)
                .map_err(|e| inflate_error(self.path, Some(e)))?;
            self.made += n;
            self.input = &self.input[used..];
        }
        Ok(())
    }

    /// Reconstructs the next `out.len() / (4 × width)` rows into `out`, as RGBA.
    pub(crate) fn read_rgba(&mut self, out: &mut [u8], rows: Rows<'_>) -> Result<(), InputError> {
        let s = self.width * self.channels;
        let w4 = self.width * 4;
        let n = out.len() / w4;
        self.shared.clear();
        self.shared.resize(n, false);
        let mut i = 0;
        while i < n {
            let y = self.y;
            if let Rows::Share(theirs) = rows {
                self.fill(s + 1)?;
                let src = &self.buf[self.taken..self.taken + s + 1];
                let theirs = &theirs[i * w4..(i + 1) * w4];
                let (above, rest) = out.split_at_mut(i * w4);
                let same = if self.channels == 4 {
                    filters_to(
                        src[0],
                        4,
                        row_above(&self.prev, above, w4),
                        theirs,
                        &src[1..],
                    )
                } else {
                    // An RGB row is opaque: it is the other image's only if that is opaque too.
                    let mut opaque = true;
                    for (d, p) in self
                        .cur
                        .as_chunks_mut::<3>()
                        .0
                        .iter_mut()
                        .zip(theirs.as_chunks::<4>().0)
                    {
                        *d = [p[0], p[1], p[2]];
                        opaque &= p[3] == 255;
                    }
                    let same = opaque && filters_to(src[0], 3, &self.prev, &self.cur, &src[1..]);
                    if same {
                        std::mem::swap(&mut self.prev, &mut self.cur);
                    }
                    same
                };
                if same {
                    rest[..w4].copy_from_slice(theirs);
                    self.shared[i] = true;
                    self.taken += s + 1;
                    self.y += 1;
                    i += 1;
                    continue;
                }
            } else if self.channels == 4 && i + 1 < n {
                // Two Paeth rows in a row (the common case) are reconstructed together.
                self.fill(2 * (s + 1))?;
                let src = &self.buf[self.taken..self.taken + 2 * (s + 1)];
                if src[0] == 4 && src[s + 1] == 4 {
                    let (above, rest) = out.split_at_mut(i * w4);
                    let (r0, r1) = rest[..2 * w4].split_at_mut(w4);
                    let stored = (&src[1..s + 1], &src[s + 2..]);
                    paeth_pair(4, row_above(&self.prev, above, w4), Some(stored), r0, r1);
                    self.taken += 2 * (s + 1);
                    self.y += 2;
                    i += 2;
                    continue;
                }
            }
            self.fill(s + 1)?;
            let src = &self.buf[self.taken..self.taken + s + 1];
            let (above, rest) = out.split_at_mut(i * w4);
            let row = &mut rest[..w4];
            if self.channels == 4 {
                let prev = row_above(&self.prev, above, w4);
                unfilter_row(src[0], 4, prev, Some(&src[1..]), row)
                    .map_err(|e| bad_filter(self.path, e, y))?;
            } else {
                unfilter_row(src[0], 3, &self.prev, Some(&src[1..]), &mut self.cur)
                    .map_err(|e| bad_filter(self.path, e, y))?;
                for (d, s) in row
                    .as_chunks_mut::<4>()
                    .0
                    .iter_mut()
                    .zip(self.cur.as_chunks::<3>().0)
                {
                    *d = [s[0], s[1], s[2], 255];
                }
                std::mem::swap(&mut self.prev, &mut self.cur);
            }
            self.taken += s + 1;
            self.y += 1;
            i += 1;
        }
        if self.channels == 4 && n > 0 {
            self.prev.copy_from_slice(&out[(n - 1) * w4..n * w4]);
        }
        Ok(())
    }

    /// Takes the next `rows` rows without reconstructing them, checking that they inflate and
    /// that their filter types are valid: all a decode can reject of them.
    pub(crate) fn skip(&mut self, rows: usize) -> Result<(), InputError> {
        let s = self.width * self.channels;
        for _ in 0..rows {
            self.fill(s + 1)?;
            let filter = self.buf[self.taken];
            if filter > 4 {
                return Err(bad_filter(
                    self.path,
                    super::unfilter::BadFilter(filter),
                    self.y,
                ));
            }
            self.taken += s + 1;
            self.y += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::png::decode::walk;

    /// Screenshots of both kinds, with every filter type and more data than one refill.
    fn encoded(w: u32, h: u32, color: image::ExtendedColorType) -> (Vec<u8>, image::RgbaImage) {
        let img = image::RgbaImage::from_fn(w, h, |x, y| {
            let v = (x * 7 + y * 13 + (x * y) % 11) as u8;
            image::Rgba([
                v,
                v.wrapping_mul(3),
                (x / 5) as u8,
                if y % 7 == 0 { 128 } else { 255 },
            ])
        });
        let raw: Vec<u8> = match color {
            image::ExtendedColorType::Rgb8 => {
                img.pixels().flat_map(|p| [p[0], p[1], p[2]]).collect()
            }
            _ => img.as_raw().clone(),
        };
        let mut out = Vec::new();
        let enc = image::codecs::png::PngEncoder::new_with_quality(
            &mut out,
            image::codecs::png::CompressionType::Default,
            image::codecs::png::FilterType::Adaptive,
        );
        image::ImageEncoder::write_image(enc, &raw, w, h, color).unwrap();
        let expected = image::load_from_memory(&out).unwrap().to_rgba8();
        (out, expected)
    }

    #[test]
    fn rows_read_in_any_grouping_equal_a_whole_decode() {
        let path = Path::new("x.png");
        for color in [
            image::ExtendedColorType::Rgba8,
            image::ExtendedColorType::Rgb8,
        ] {
            let (png, expected) = encoded(301, 420, color);
            for group in [1, 2, 3, 45, 420] {
                let chunks = walk(path, &png).unwrap().expect("8-bit RGB(A)");
                let mut reader = RowReader::new(path, chunks);
                let mut got = vec![0u8; 301 * 420 * 4];
                for band in got.chunks_mut(group * 301 * 4) {
                    reader.read_rgba(band, Rows::Plain).unwrap();
                }
                assert_eq!(
                    got,
                    expected.as_raw()[..],
                    "{color:?}, {group} rows at a time"
                );
            }
        }
    }

    /// A row is reported shared exactly when it equals the other image's row, whatever filter
    /// each file stored it with.
    #[test]
    fn the_rows_copied_from_the_other_image_are_those_that_are_equal() {
        let path = Path::new("x.png");
        let (w, h) = (64u32, 40u32);
        let (png_a, a) = encoded(w, h, image::ExtendedColorType::Rgba8);
        let mut changed = a.clone();
        for y in [0, 7, 8, 21, h - 1] {
            changed.put_pixel((y * 5) % w, y, image::Rgba([1, 2, 3, 4]));
        }
        let mut png_b = Vec::new();
        let enc = image::codecs::png::PngEncoder::new_with_quality(
            &mut png_b,
            image::codecs::png::CompressionType::Fast,
            image::codecs::png::FilterType::Paeth,
        );
        image::ImageEncoder::write_image(enc, &changed, w, h, image::ExtendedColorType::Rgba8)
            .unwrap();
        let w4 = w as usize * 4;
        let want: Vec<bool> = (0..h as usize)
            .map(|y| a.as_raw()[y * w4..(y + 1) * w4] == changed.as_raw()[y * w4..(y + 1) * w4])
            .collect();
        assert_eq!(want.iter().filter(|s| !**s).count(), 5);
        let mut reader_a = RowReader::new(path, walk(path, &png_a).unwrap().unwrap());
        let mut reader_b = RowReader::new(path, walk(path, &png_b).unwrap().unwrap());
        let (mut rows_a, mut rows_b) = (vec![0u8; w4 * 8], vec![0u8; w4 * 8]);
        let mut got = Vec::new();
        for _ in 0..h / 8 {
            reader_a.read_rgba(&mut rows_a, Rows::Plain).unwrap();
            assert!(reader_a.shared().iter().all(|s| !s));
            reader_b
                .read_rgba(&mut rows_b, Rows::Share(&rows_a))
                .unwrap();
            got.extend_from_slice(reader_b.shared());
        }
        assert_eq!(got, want);
    }

    /// An RGB image's row is never taken from an RGBA image's row of the same colours but
    /// another alpha: read as RGBA, the RGB row is opaque.
    #[test]
    fn an_rgb_row_is_not_shared_with_a_translucent_one() {
        let path = Path::new("x.png");
        let (w, h) = (301u32, 12u32);
        let (png_a, a) = encoded(w, h, image::ExtendedColorType::Rgba8);
        let rgb: Vec<u8> = a.pixels().flat_map(|p| [p[0], p[1], p[2]]).collect();
        let mut png_b = Vec::new();
        let enc = image::codecs::png::PngEncoder::new(&mut png_b);
        image::ImageEncoder::write_image(enc, &rgb, w, h, image::ExtendedColorType::Rgb8).unwrap();
        let want = image::load_from_memory(&png_b).unwrap().to_rgba8();
        let w4 = w as usize * 4;
        let (mut rows_a, mut rows_b) = (vec![0u8; w4 * h as usize], vec![0u8; w4 * h as usize]);
        RowReader::new(path, walk(path, &png_a).unwrap().unwrap())
            .read_rgba(&mut rows_a, Rows::Plain)
            .unwrap();
        let mut reader_b = RowReader::new(path, walk(path, &png_b).unwrap().unwrap());
        reader_b
            .read_rgba(&mut rows_b, Rows::Share(&rows_a))
            .unwrap();
        assert!(rows_b == want.as_raw()[..], "b's rows are b's pixels");
        // `encoded` makes every seventh row translucent: those are not shared, the rest are.
        let shared: Vec<bool> = (0..h).map(|y| y % 7 != 0).collect();
        assert_eq!(reader_b.shared(), &shared[..]);
    }

    #[test]
    fn truncated_data_and_bad_filters_are_errors() {
        let path = Path::new("x.png");
        let (png, _) = encoded(64, 64, image::ExtendedColorType::Rgba8);
        let chunks = walk(path, &png).unwrap().unwrap();
        let mut short = chunks.idat.clone();
        let last = short.pop().unwrap();
        short.push(&last[..last.len() / 2]);
        let mut reader = RowReader::new(
            path,
            Chunks {
                idat: short,
                ..chunks
            },
        );
        let err = reader.skip(64).unwrap_err();
        assert!(err.to_string().contains("ends early"), "{err}");

        // A stored (uncompressed) zlib stream whose second row has filter type 9.
        let row = 1 + 4 * 2;
        let mut raw = vec![0u8; 2 * row];
        raw[row] = 9;
        let mut z = vec![0x78, 0x01, 1];
        z.extend_from_slice(&(raw.len() as u16).to_le_bytes());
        z.extend_from_slice(&(!(raw.len() as u16)).to_le_bytes());
        z.extend_from_slice(&raw);
        z.extend_from_slice(&[0, 0, 0, 0]);
        let bad = Chunks {
            width: 2,
            height: 2,
            channels: 4,
            idat: vec![&z],
        };
        let mut reader = RowReader::new(path, bad);
        let err = reader.read_rgba(&mut [0u8; 16], Rows::Plain).unwrap_err();
        assert!(err.to_string().contains("filter type 9 in row 1"), "{err}");
    }
}

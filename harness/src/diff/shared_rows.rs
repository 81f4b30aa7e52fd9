//! Decoding a before/after pair together ([`decode_together`]). Two screenshots one step
//! apart store most rows identically: when a row's filtered bytes are the same in both files
//! and the row above reconstructed the same (or the row's filter does not look up), the
//! reconstructed rows are equal too. Such rows are reconstructed once, in the *before* image,
//! and copied into the *after* image — reconstruction (Paeth above all) is the main cost of
//! decoding. The result is byte for byte what decoding each file alone gives (tested).
//!
//! Each image is reconstructed on two threads, split at a row that needs nothing above it: a
//! row whose filter does not look up in the before image, such a row or a shared row in the
//! after image (its copy needs nothing).

use std::path::Path;

use image::RgbaImage;

use crate::errors::InputError;
use crate::recording::png_decode::{Rows, Scanlines, bad_filter};

/// Which rows of `b` reconstruct exactly like the same rows of `a` (same size and kind).
pub(crate) fn same_rows(a: &Scanlines, b: &Scanlines) -> Vec<bool> {
    let h = a.height as usize;
    // This reads both images whole and runs before anything else can (reconstruction
    // overwrites the stored rows), so big images compare their halves on two threads; only
    // the chaining below is serial.
    let equal = |rows: std::ops::Range<usize>| -> Vec<bool> {
        rows.map(|y| a.filtered_row(y) == b.filtered_row(y))
            .collect()
    };
    let mut same = if h * a.stride() >= 1 << 20 {
        let (mut upper, lower) = crate::par::join(|| equal(0..h / 2), || equal(h / 2..h));
        upper.extend(lower);
        upper
    } else {
        equal(0..h)
    };
    // The row above the first is zeros in both.
    let mut above = true;
    for (y, s) in same.iter_mut().enumerate() {
        // Filters 0 (None) and 1 (Sub) do not read the row above.
        *s = *s && (above || a.filtered_row(y)[0] <= 1);
        above = *s;
    }
    same
}

/// Decodes two inflated images of the same size and kind, reconstructing shared rows once.
/// Errors name the file; if both fail, `a`'s error is returned.
pub(crate) fn decode_together(
    (pa, mut a): (&Path, Scanlines),
    (pb, mut b): (&Path, Scanlines),
) -> Result<(RgbaImage, RgbaImage), InputError> {
    debug_assert_eq!(
        (a.width, a.height, a.channels),
        (b.width, b.height, b.channels)
    );
    let same = same_rows(&a, &b);
    let (h, s, bpp) = (a.height as usize, a.stride(), a.channels);
    let zeros = vec![0u8; s];
    let starts_a = a.independent_rows();
    let starts_b: Vec<bool> = b
        .independent_rows()
        .iter()
        .zip(&same)
        .map(|(i, s)| *i || *s)
        .collect();
    let rows = Rows {
        s,
        bpp,
        zeros: &zeros,
        copy: None,
    };
    rows.run_split(&mut a.buf, h, &starts_a)
        .map_err(|(e, y)| bad_filter(pa, e, y))?;
    let rows = Rows {
        copy: Some((&a.buf[..h * s], &same)),
        ..rows
    };
    rows.run_split(&mut b.buf, h, &starts_b)
        .map_err(|(e, y)| bad_filter(pb, e, y))?;
    Ok((a.finish(), b.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::files::decode_pair;
    use crate::errors::Reason;
    use crate::recording::decode_general;
    use crate::recording::png_decode::png_of_chunks;
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    use std::path::PathBuf;

    use crate::diff::pixel::tests::CORPUS_DIR;

    /// The image crate's decoding of a file: what every fast path must reproduce exactly.
    fn general(path: &Path) -> RgbaImage {
        decode_general(path, &std::fs::read(path).unwrap()).unwrap()
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "stepreplay-shared-rows-{name}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn corpus_pairs_decode_like_the_image_crate() {
        // RGBA pairs, palette pairs (general decoder) and an RGB/RGBA pair (decoded apart).
        for n in 1..=7 {
            let a = Path::new(CORPUS_DIR).join(format!("{n}a.png"));
            let b = Path::new(CORPUS_DIR).join(format!("{n}b.png"));
            let pair = decode_pair(&a, &b).unwrap();
            let (ia, ib) = pair.images();
            assert!(*ia == general(&a), "{}", a.display());
            assert!(*ib == general(&b), "{}", b.display());
        }
    }

    /// Screenshot-like pixels: a gradient, flat blocks, and for `after` one changed block.
    fn pixels(w: u32, h: u32, channels: usize, after: bool) -> Vec<u8> {
        let mut out = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let block = (x / 8 + y / 8) % 3 == 0;
                let changed = after && (10..20).contains(&y) && (5..40).contains(&x);
                let mut px = [(x * 3) as u8, (y * 5) as u8, (x ^ y) as u8, 255 - (x as u8)];
                if block {
                    px = [200, 200, 210, 255];
                }
                if changed {
                    px = [255, 0, (x * 7) as u8, 128];
                }
                out.extend_from_slice(&px[..channels]);
            }
        }
        out
    }

    fn encode(path: &Path, w: u32, h: u32, channels: usize, data: &[u8], filter: FilterType) {
        let file = std::fs::File::create(path).unwrap();
        let enc = PngEncoder::new_with_quality(file, CompressionType::Default, filter);
        let kind = if channels == 3 {
            image::ExtendedColorType::Rgb8
        } else {
            image::ExtendedColorType::Rgba8
        };
        image::ImageEncoder::write_image(enc, data, w, h, kind).unwrap();
    }

    #[test]
    fn pairs_with_every_filter_decode_like_the_image_crate() {
        let dir = scratch("filters");
        let (w, h) = (61, 37);
        let filters = [
            FilterType::NoFilter,
            FilterType::Sub,
            FilterType::Up,
            FilterType::Avg,
            FilterType::Paeth,
            FilterType::Adaptive,
        ];
        for channels in [3, 4] {
            for (i, filter) in filters.into_iter().enumerate() {
                let a = dir.join(format!("{channels}-{i}-a.png"));
                let b = dir.join(format!("{channels}-{i}-b.png"));
                encode(&a, w, h, channels, &pixels(w, h, channels, false), filter);
                encode(&b, w, h, channels, &pixels(w, h, channels, true), filter);
                let pair = decode_pair(&a, &b).unwrap();
                let (ia, ib) = pair.images();
                assert!(*ia == general(&a), "{}", a.display());
                assert!(*ib == general(&b), "{}", b.display());
                assert!(ia != ib);
            }
        }
        let _ = std::fs::remove_dir_all(dir);
    }

    /// An 8-bit PNG (colour type 2 or 6) of the given filtered rows, each a filter byte first.
    fn png_file(w: u32, colour: u8, rows: &[Vec<u8>]) -> Vec<u8> {
        let mut ihdr = w.to_be_bytes().to_vec();
        ihdr.extend_from_slice(&(rows.len() as u32).to_be_bytes());
        ihdr.extend_from_slice(&[8, colour, 0, 0, 0]);
        let idat = fdeflate::compress_to_vec(&rows.concat());
        png_of_chunks(&[(b"IHDR", &ihdr), (b"IDAT", &idat), (b"IEND", &[])])
    }

    fn parsed(path: &Path) -> Scanlines {
        match crate::recording::read_png(path).unwrap() {
            crate::recording::PngSource::Fast(s) => s,
            crate::recording::PngSource::Other(_) => panic!("not on the fast path"),
        }
    }

    #[test]
    fn equal_filtered_bytes_under_a_different_row_are_not_shared() {
        let dir = scratch("chain");
        let row = |f: u8, v: u8| {
            let mut r = vec![f];
            r.extend(std::iter::repeat_n(v, 3 * 4));
            r
        };
        // Row 1 (Up) has the same bytes in both files but sits under a different row 0, so it
        // reconstructs differently; row 2 (Sub) does not look up and is shared again, and so is
        // row 3 (Up) under it.
        let a_rows = [row(0, 10), row(2, 1), row(1, 3), row(2, 4)];
        let b_rows = [row(0, 20), row(2, 1), row(1, 3), row(2, 4)];
        let (a, b) = (dir.join("a.png"), dir.join("b.png"));
        std::fs::write(&a, png_file(4, 2, &a_rows)).unwrap();
        std::fs::write(&b, png_file(4, 2, &b_rows)).unwrap();
        assert_eq!(
            same_rows(&parsed(&a), &parsed(&b)),
            [false, false, true, true]
        );
        let pair = decode_pair(&a, &b).unwrap();
        let (ia, ib) = pair.images();
        assert!(*ia == general(&a));
        assert!(*ib == general(&b));
        assert_eq!(ia.get_pixel(0, 1).0, [11, 11, 11, 255]);
        assert_eq!(ib.get_pixel(0, 1).0, [21, 21, 21, 255]);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn an_unknown_filter_type_names_the_file_and_row() {
        let dir = scratch("bad-filter");
        let good: Vec<Vec<u8>> = (0..40)
            .map(|y| [vec![0], vec![y as u8; 16]].concat())
            .collect();
        let mut bad = good.clone();
        bad[33][0] = 9;
        let (g, x) = (dir.join("good.png"), dir.join("bad.png"));
        std::fs::write(&g, png_file(4, 6, &good)).unwrap();
        std::fs::write(&x, png_file(4, 6, &bad)).unwrap();
        for (a, b) in [(&g, &x), (&x, &g), (&x, &x)] {
            let e = decode_pair(a, b).unwrap_err();
            assert_eq!(e.reason, Reason::InvalidImage);
            assert_eq!(e.file, *x);
            assert!(
                e.message.contains("filter type 9 in row 33"),
                "{}",
                e.message
            );
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}

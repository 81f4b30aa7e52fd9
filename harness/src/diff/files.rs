//! The file edges of a diff: telling a PNG from an AX snapshot, decoding two screenshots at
//! once, and encoding a diff image quickly. The diff engines themselves never touch files.

use std::io::Read;
use std::path::Path;

use image::RgbaImage;

use super::Masks;
use super::pixel::{self, Options, PixelDiff};
use crate::errors::{Error, InputError, Reason};
use crate::png::decode::walk;
use crate::png::{PngSource, decode_general, parse_png, png_signature, read_png_bytes};

/// What a file to diff holds, judged by its first bytes (not its name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FileKind {
    /// A PNG image.
    Png,
    /// A JSON document (an AX snapshot, once parsed).
    Json,
}

/// Looks at the first bytes of `path` to tell a PNG from a JSON file.
pub(crate) fn sniff(path: &Path) -> Result<FileKind, InputError> {
    let mut head = [0u8; 8];
    let (mut f, _) = crate::json::open_regular(path)?;
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) => {
                return Err(InputError::new(
                    path,
                    Reason::MissingFile,
                    format!("cannot read: {e}"),
                ));
            }
        }
    }
    let head = &head[..n];
    if head == b"\x89PNG\r\n\x1a\n" {
        return Ok(FileKind::Png);
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    if text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        return Ok(FileKind::Json);
    }
    Err(InputError::new(
        path,
        Reason::UnsupportedFileType,
        "neither a PNG nor a JSON file",
    )
    .hint("diff two screenshots (.png) or two AX snapshots (.json)"))
}

/// Compares two PNG files: pixelmatch 7.2.0's count and mask of counted pixels and, when
/// `image` gives the masks to draw on it, the diff image as PNG bytes ([`PngBands`]).
/// Screenshots (8-bit RGB or RGBA) are compared a band of rows at a time as they are decoded
/// (see `bands`): neither they nor the diff image are ever whole in memory, and the same file
/// twice is only checked to decode. Other PNGs are decoded whole by the image crate. Sizes are
/// compared from the headers, before anything is decoded. Errors name the file; if both are
/// broken, the error met first is returned (`a`'s when they are read whole, the one higher up
/// the image when they are read in bands).
pub fn diff_files(
    a: &Path,
    b: &Path,
    opts: &Options,
    image: Option<&Masks>,
) -> Result<(PixelDiff, Option<Vec<u8>>), Error> {
    // One after the other: files this size read in a fraction of a millisecond, and a thread
    // to read one beside the other, beside busy processes, waited longer for a CPU.
    let ba = read_png_bytes(a)?;
    let bb = if a == b {
        None
    } else {
        Some(read_png_bytes(b)?)
    };
    png_signature(a, &ba)?;
    let Some(bb) = bb.filter(|bb| *bb != ba) else {
        return same(a, &ba, opts, image);
    };
    png_signature(b, &bb)?;
    if let (Some(ca), Some(cb)) = (walk(a, &ba)?, walk(b, &bb)?) {
        same_size((a, (ca.width, ca.height)), (b, (cb.width, cb.height)))?;
        return super::bands::diff((a, ca), (b, cb), opts, image);
    }
    let (sa, sb) = (parse_png(a, ba)?, parse_png(b, bb)?);
    same_size((a, sa.dimensions(a)?), (b, sb.dimensions(b)?))?;
    whole(finish(a, sa)?, Some(finish(b, sb)?), opts, image)
}

/// [`diff_files`] of a file with itself: the bytes of `path`, read once.
fn same(
    path: &Path,
    bytes: &[u8],
    opts: &Options,
    image: Option<&Masks>,
) -> Result<(PixelDiff, Option<Vec<u8>>), Error> {
    match walk(path, bytes)? {
        Some(chunks) => super::bands::same(path, chunks, opts, image),
        None => whole(decode_general(path, bytes)?, None, opts, image),
    }
}

/// [`diff_files`] on decoded images (`b` `None`: `a` with itself), sizes checked.
fn whole(
    a: RgbaImage,
    b: Option<RgbaImage>,
    opts: &Options,
    image: Option<&Masks>,
) -> Result<(PixelDiff, Option<Vec<u8>>), Error> {
    let (w, h) = a.dimensions();
    let mut out = image.map(|_| RgbaImage::new(w, h));
    let diff = pixel::diff_images(&a, b.as_ref().unwrap_or(&a), opts, out.as_mut())
        .map_err(|e| Error::Internal(format!("sizes were checked: {e}")))?;
    let png = match (out, image) {
        (Some(mut out), Some(masks)) => {
            masks.draw(&mut out, w, h);
            Some(encode_rgba(&out)?)
        }
        _ => None,
    };
    Ok((diff, png))
}

/// A diff image encoded as PNG a band of rows at a time, top to bottom, as it is drawn: the
/// compression and filter of [`encode_png`], without the whole image in memory.
pub(crate) struct PngBands {
    stream: png::StreamWriter<'static, Encoded>,
    out: Encoded,
    layout: Layout,
    /// Rows converted to `layout`.
    packed: Vec<u8>,
}

/// How an image's RGBA pixels are stored in its PNG: as they are, without the alpha when
/// every pixel is opaque, or one grey byte when every pixel is also grey. A diff image is
/// opaque unless `diff_mask` leaves its background transparent, and grey when an image is
/// compared with itself and nothing is masked. Fewer bytes a pixel leave less to filter and
/// compress; read back as RGBA, the pixels are the same.
///
/// Ordered by what they hold: each holds every image the ones before it hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Layout {
    Grey,
    Rgb,
    Rgba,
}

impl Layout {
    /// The layout of a diff image drawn with `opts`; `background_only` when nothing but the
    /// faded copy of the image is drawn (no differences, no masks).
    pub(crate) fn of_diff(opts: &Options, background_only: bool) -> Layout {
        match (opts.diff_mask, background_only) {
            (true, _) => Layout::Rgba,
            (false, false) => Layout::Rgb,
            (false, true) => Layout::Grey,
        }
    }

    /// The smallest layout that holds `pixels` exactly.
    fn fit(pixels: &[[u8; 4]]) -> Layout {
        if pixels.iter().any(|p| p[3] != 255) {
            Layout::Rgba
        } else if pixels.iter().all(|p| p[0] == p[1] && p[1] == p[2]) {
            Layout::Grey
        } else {
            Layout::Rgb
        }
    }

    fn color(self) -> png::ColorType {
        match self {
            Layout::Rgba => png::ColorType::Rgba,
            Layout::Rgb => png::ColorType::Rgb,
            Layout::Grey => png::ColorType::Grayscale,
        }
    }
}

/// The bytes encoded so far, shared between the PNG writer (which must own its output) and
/// [`PngBands::finish`], which takes them.
#[derive(Clone, Default)]
struct Encoded(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl std::io::Write for Encoded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl PngBands {
    /// Starts a `width × height` image stored as `layout`.
    pub(crate) fn new(width: u32, height: u32, layout: Layout) -> Result<Self, Error> {
        let out = Encoded::default();
        let mut encoder = png::Encoder::new(out.clone(), width, height);
        encoder.set_color(layout.color());
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        encoder.set_filter(png::Filter::Sub);
        let stream = encoder
            .write_header()
            .and_then(png::Writer::into_stream_writer)
            .map_err(encoding_error)?;
        Ok(PngBands {
            stream,
            out,
            layout,
            packed: Vec::new(),
        })
    }

    /// Appends whole rows of RGBA pixels, which the layout must hold.
    pub(crate) fn push(&mut self, rows: &[u8]) -> Result<(), Error> {
        let pixels = rows.as_chunks::<4>().0;
        let bytes = match self.layout {
            Layout::Rgba => rows,
            Layout::Rgb => {
                self.packed.resize(pixels.len() * 3, 0);
                let packed = self.packed.as_chunks_mut::<3>().0;
                for (o, &[r, g, b, _]) in packed.iter_mut().zip(pixels) {
                    *o = [r, g, b];
                }
                &self.packed
            }
            Layout::Grey => {
                self.packed.clear();
                self.packed.extend(pixels.iter().map(|p| p[0]));
                &self.packed
            }
        };
        debug_assert!(Layout::fit(pixels) <= self.layout);
        std::io::Write::write_all(&mut self.stream, bytes).map_err(encoding_error)
    }

    /// Ends the image (every row must have been pushed) and returns the PNG file's bytes.
    pub(crate) fn finish(self) -> Result<Vec<u8>, Error> {
        self.stream.finish().map_err(encoding_error)?;
        Ok(self.out.0.take())
    }
}

fn encoding_error(e: impl std::fmt::Display) -> Error {
    Error::Internal(format!("cannot encode the diff image: {e}"))
}

/// Decodes one read PNG on its own.
fn finish(path: &Path, source: PngSource) -> Result<RgbaImage, InputError> {
    match source {
        PngSource::Fast(lines) => lines.into_rgba(path),
        PngSource::Other(bytes) => decode_general(path, &bytes),
    }
}

/// Checks two images have the same size (width, height); the error names both files and
/// sizes.
fn same_size(a: (&Path, (u32, u32)), b: (&Path, (u32, u32))) -> Result<(), InputError> {
    if a.1 == b.1 {
        return Ok(());
    }
    let ((aw, ah), (bw, bh)) = (a.1, b.1);
    Err(InputError::new(
        b.0,
        Reason::ImageSizeMismatch,
        format!(
            "image sizes differ: `{}` is {aw}×{ah}, `{}` is {bw}×{bh}",
            a.0.display(),
            b.0.display()
        ),
    )
    .hint("compare screenshots taken at the same size and scale"))
}

/// Encodes an RGBA image as PNG, in the smallest [`Layout`] that holds it, with the fastest
/// compression and the Sub filter: a diff image
/// is mostly flat grey and compresses well anyway, and it is made on every failing
/// comparison. Sub instead of trying every filter on every row (Adaptive) makes
/// `stepreplay diff --out` 7–19% faster end to end for files about 1.5× larger (measured on
/// the bench desktops, see `benches/README.md`). The encoder is [`PngBands`], so a report's
/// diff image and `stepreplay diff --out`'s are the same file, except where the whole image
/// fits a smaller layout than bands can know of ahead (two files with the same pixels).
pub(crate) fn encode_png(img: &RgbaImage) -> Result<Vec<u8>, image::ImageError> {
    encode_rgba(img).map_err(|e| image::ImageError::IoError(std::io::Error::other(e.to_string())))
}

/// [`encode_png`] in this crate's error type.
fn encode_rgba(img: &RgbaImage) -> Result<Vec<u8>, Error> {
    let (w, h) = img.dimensions();
    let rows = &img.as_raw()[..w as usize * h as usize * 4];
    let mut bands = PngBands::new(w, h, Layout::fit(rows.as_chunks::<4>().0))?;
    bands.push(rows)?;
    bands.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::pixel::tests::CORPUS_DIR;

    #[test]
    fn the_same_file_twice_is_checked_and_a_broken_copy_still_fails() {
        let a = Path::new(CORPUS_DIR).join("1a.png");
        let opts = Options::default();
        let (d, png) = diff_files(&a, &a, &opts, Some(&Masks::new())).unwrap();
        assert_eq!(d.mismatched, 0);
        let img = decode_general(&a, &std::fs::read(&a).unwrap()).unwrap();
        let mut whole = RgbaImage::new(img.width(), img.height());
        pixel::diff_images(&img, &img, &opts, Some(&mut whole)).unwrap();
        assert!(
            image::load_from_memory(png.as_ref().unwrap())
                .unwrap()
                .to_rgba8()
                == whole
        );

        // Equal bytes prove nothing about the file: a broken PNG twice is still an error.
        let dir = std::env::temp_dir().join(format!("stepreplay-same-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // A copy under another name is read twice and found the same.
        let copy = dir.join("copy.png");
        std::fs::copy(&a, &copy).unwrap();
        let (d2, png2) = diff_files(&a, &copy, &opts, Some(&Masks::new())).unwrap();
        assert_eq!((d2, png2), (d, png));
        let broken = dir.join("broken.png");
        let mut bytes = std::fs::read(&a).unwrap();
        bytes.truncate(bytes.len() / 2);
        std::fs::write(&broken, &bytes).unwrap();
        for image in [None, Some(&Masks::new())] {
            let Err(Error::Input(e)) = diff_files(&broken, &broken, &opts, image) else {
                panic!("a broken file twice must fail");
            };
            assert_eq!(e.reason, Reason::InvalidImage, "{e}");
        }
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn an_image_is_stored_in_the_smallest_layout_that_holds_it() {
        let grey = RgbaImage::from_fn(5, 3, |x, y| {
            let v = (x * 40 + y) as u8;
            image::Rgba([v, v, v, 255])
        });
        let mut colour = grey.clone();
        colour.put_pixel(4, 2, image::Rgba([9, 8, 9, 255]));
        let mut clear = colour.clone();
        clear.put_pixel(0, 0, image::Rgba([9, 9, 9, 254]));
        for (img, color) in [
            (grey, image::ColorType::L8),
            (colour, image::ColorType::Rgb8),
            (clear, image::ColorType::Rgba8),
        ] {
            let back = image::load_from_memory(&encode_png(&img).unwrap()).unwrap();
            assert_eq!(back.color(), color);
            assert!(back.to_rgba8() == img, "{color:?}");
        }
    }
}

//! Loading a recording safely: bounded files, paths kept inside the folder, unique element
//! ids, transitions between known frames, and screenshots decoded lazily, once, with a
//! decoder memory limit (no decompression bombs).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use image::codecs::png::PngDecoder;
use image::{ImageDecoder as _, RgbaImage};

use super::ax::{AX_SCHEMA, AxSnapshot};
use super::format::{RECORDING_SCHEMA, RecordingFile};
use super::png_decode::{Parsed, Scanlines, parse};
use crate::errors::{FieldPath, InputError, Reason};
use crate::json::{Source, expect_schema, parse_typed, parse_value, read_text};
use crate::limits::{AX_BYTES, AX_ELEMENTS, DECODE_BYTES, PNG_BYTES, PNG_SIDE, RECORDING_BYTES};
use crate::safe_path::safe_join;

/// A loaded recording. AX snapshots are parsed at load; screenshots when first needed.
#[derive(Debug)]
pub struct Recording {
    /// The folder.
    pub dir: PathBuf,
    /// `recording.json` as written.
    pub file: RecordingFile,
    /// The frames, in file order.
    pub frames: Vec<Frame>,
}

/// One frame.
#[derive(Debug)]
pub struct Frame {
    /// Its id.
    pub id: String,
    /// Its AX snapshot.
    pub ax: Arc<AxSnapshot>,
    /// Where its screenshot is.
    pub screenshot_path: PathBuf,
    /// A browser frame's DOM.
    pub dom: Option<Arc<super::dom::DomSnapshot>>,
    pixels: OnceLock<Result<Arc<RgbaImage>, InputError>>,
}

impl Frame {
    /// A frame built in memory (synthetic desktops, perturbations, tests).
    pub(crate) fn new(id: String, ax: AxSnapshot, screenshot_path: PathBuf) -> Self {
        Frame {
            id,
            ax: Arc::new(ax),
            screenshot_path,
            dom: None,
            pixels: OnceLock::new(),
        }
    }

    /// A frame whose pixels are already in memory.
    pub(crate) fn with_pixels(id: String, ax: AxSnapshot, pixels: RgbaImage) -> Self {
        let f = Frame::new(id, ax, PathBuf::new());
        let _ = f.pixels.set(Ok(Arc::new(pixels)));
        f
    }

    /// The screenshot: in memory for a frame built there, else decoded on use and held by
    /// the frame cache's memory budget (see `frame_cache`). An error is kept: a broken frame
    /// says so the same way every time it is asked for.
    pub fn pixels(&self) -> Result<Arc<RgbaImage>, InputError> {
        if let Some(done) = self.pixels.get() {
            return done.clone();
        }
        super::frame_cache::get_or_decode(&self.screenshot_path, || {
            decode_png(&self.screenshot_path)
        })
        .inspect_err(|e| {
            let _ = self.pixels.set(Err(e.clone()));
        })
    }
}

impl Recording {
    /// The frame with this id.
    pub fn frame(&self, id: &str) -> Option<&Frame> {
        self.frames.iter().find(|f| f.id == id)
    }

    /// The index of the frame with this id.
    pub(crate) fn frame_index(&self, id: &str) -> Option<usize> {
        self.frames.iter().position(|f| f.id == id)
    }
}

/// Decodes a PNG within the size, dimension and memory limits.
pub(crate) fn decode_png(path: &Path) -> Result<RgbaImage, InputError> {
    match read_png(path)? {
        PngSource::Fast(lines) => lines.into_rgba(path),
        PngSource::Other(bytes) => decode_general(path, &bytes),
    }
}

/// A PNG file read and, for the common screenshot kinds, inflated (see [`read_png`]).
pub(crate) enum PngSource {
    /// 8-bit RGB or RGBA, inflated, rows still filtered: for the direct decoder.
    Fast(Scanlines),
    /// Any other PNG, as read: for the image crate ([`decode_general`]).
    Other(Vec<u8>),
}

impl PngSource {
    /// Width and height, from the header: nothing is decoded.
    pub(crate) fn dimensions(&self, path: &Path) -> Result<(u32, u32), InputError> {
        match self {
            PngSource::Fast(lines) => Ok((lines.width, lines.height)),
            PngSource::Other(bytes) => Ok(png_decoder(path, bytes)?.dimensions()),
        }
    }
}

/// The image crate's PNG decoder over `bytes`, its header read.
fn png_decoder<'a>(
    path: &Path,
    bytes: &'a [u8],
) -> Result<PngDecoder<std::io::Cursor<&'a [u8]>>, InputError> {
    PngDecoder::new(std::io::Cursor::new(bytes)).map_err(|e| image_error(path, e))
}

fn image_error(path: &Path, e: image::ImageError) -> InputError {
    let reason = match e {
        image::ImageError::Limits(_) => Reason::LimitExceeded,
        _ => Reason::InvalidImage,
    };
    InputError::new(path, reason, format!("cannot decode: {e}"))
        .hint("is the file a complete PNG screenshot?")
}

/// Reads a PNG (bounded) and inflates it when the direct decoder handles its kind.
pub(crate) fn read_png(path: &Path) -> Result<PngSource, InputError> {
    parse_png(path, read_png_bytes(path)?)
}

/// A PNG file's bytes, within the size limit, not yet looked into.
pub(crate) fn read_png_bytes(path: &Path) -> Result<Vec<u8>, InputError> {
    crate::json::read_bounded(path, PNG_BYTES)
}

/// The bytes of the PNG file `path`, inflated for the common screenshot kinds.
pub(crate) fn parse_png(path: &Path, bytes: Vec<u8>) -> Result<PngSource, InputError> {
    png_signature(path, &bytes)?;
    Ok(match parse(path, &bytes)? {
        Parsed::Fast(lines) => PngSource::Fast(lines),
        Parsed::Other => PngSource::Other(bytes),
    })
}

/// Checks that `bytes` start like a PNG file.
pub(crate) fn png_signature(path: &Path, bytes: &[u8]) -> Result<(), InputError> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Ok(());
    }
    Err(
        InputError::new(path, Reason::UnsupportedFileType, "not a PNG file")
            .hint("screenshots must be PNG"),
    )
}

/// Decodes any PNG with the image crate, within the same limits. The memory it will take is
/// counted from the header before anything is allocated: the decoder's own buffer (a 1-bit
/// image comes out at 8 bits a sample) and the RGBA copy made from it. A 33 KB 1-bit 16384²
/// PNG asks for 1.3 GB that way and is refused, where the decoder's limit alone let it through.
pub(crate) fn decode_general(path: &Path, bytes: &[u8]) -> Result<RgbaImage, InputError> {
    let mut decoder = png_decoder(path, bytes)?;
    let (w, h) = decoder.dimensions();
    if w > PNG_SIDE || h > PNG_SIDE {
        return Err(InputError::new(
            path,
            Reason::LimitExceeded,
            format!("cannot decode: {w}×{h} is over the limit of {PNG_SIDE} pixels a side"),
        ));
    }
    let needed = decode_cost(
        (w, h),
        decoder.total_bytes(),
        decoder.color_type() == image::ColorType::Rgba8,
    );
    if needed > DECODE_BYTES {
        return Err(InputError::new(
            path,
            Reason::LimitExceeded,
            format!(
                "cannot decode: a {w}×{h} image needs {} MiB, over the limit of {} MiB",
                needed >> 20,
                DECODE_BYTES >> 20
            ),
        )
        .hint("screenshots are at most 8K; is this file what it claims to be?"));
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(PNG_SIDE);
    limits.max_image_height = Some(PNG_SIDE);
    limits.max_alloc = Some(DECODE_BYTES);
    decoder
        .set_limits(limits)
        .map_err(|e| image_error(path, e))?;
    // `into_rgba8` moves an RGBA8 image out instead of copying it (most screenshots are RGBA8).
    Ok(image::DynamicImage::from_decoder(decoder)
        .map_err(|e| image_error(path, e))?
        .into_rgba8())
}

/// Refuses a snapshot of more than [`AX_ELEMENTS`] elements.
pub(super) fn within_elements(src: &Source, count: usize) -> Result<(), InputError> {
    if count <= AX_ELEMENTS {
        return Ok(());
    }
    Err(src.error(
        FieldPath::root(),
        Reason::LimitExceeded,
        format!("{count} elements is over the limit of {AX_ELEMENTS}"),
    ))
}

/// Bytes decoding takes: the decoder's buffer, and the RGBA copy unless it already is RGBA8
/// (then `into_rgba8` moves it).
fn decode_cost((w, h): (u32, u32), decoder_bytes: u64, rgba8: bool) -> u64 {
    let copy = if rgba8 {
        0
    } else {
        u64::from(w) * u64::from(h) * 4
    };
    decoder_bytes.saturating_add(copy)
}

/// Refuses a file given where a recording folder is expected, saying so (reading
/// `FILE/recording.json` would only say "Not a directory").
pub fn recording_folder(dir: &Path) -> Result<(), InputError> {
    if dir.is_file() {
        return Err(InputError::new(
            dir,
            Reason::MissingFile,
            "this is a file; a recording is a folder",
        )
        .hint("name the folder that holds recording.json"));
    }
    Ok(())
}

/// Loads `dir/recording.json` and every AX snapshot it names.
pub fn load_recording(dir: &Path) -> Result<Recording, InputError> {
    recording_folder(dir)?;
    // A link is followed only while it stays inside the folder, as for every file it names.
    let path = safe_join(dir, "recording.json", dir, FieldPath::root())?;
    let src = read_text(&path, RECORDING_BYTES)?;
    let value = parse_value(&src)?;
    expect_schema(&src, &value, RECORDING_SCHEMA, "recordings")?;
    let file: RecordingFile = parse_typed(&src)?;
    if file.screen.scale == 0 || file.screen.width == 0 || file.screen.height == 0 {
        return Err(src.error(
            FieldPath::root().key("screen"),
            Reason::InvalidField,
            "the screen has no size",
        ));
    }
    let mut ids = HashSet::new();
    let mut frames = Vec::with_capacity(file.frames.len());
    for (i, f) in file.frames.iter().enumerate() {
        let fp = FieldPath::root().key("frames").index(i);
        if !ids.insert(f.id.as_str()) {
            return Err(src.error(
                fp.key("id"),
                Reason::DuplicateId,
                format!("frame id `{}` repeats", f.id),
            ));
        }
        let shot = safe_join(dir, &f.screenshot, &path, fp.key("screenshot"))
            .map_err(|e| e.at_position(src.position(&fp.key("screenshot"))))?;
        if !f.screenshot.to_ascii_lowercase().ends_with(".png") {
            return Err(src.error(
                fp.key("screenshot"),
                Reason::UnsupportedFileType,
                "screenshots must be .png files",
            ));
        }
        if !shot.is_file() {
            return Err(src.error(
                fp.key("screenshot"),
                Reason::MissingFile,
                format!("`{}` does not exist", f.screenshot),
            ));
        }
        let ax_path = safe_join(dir, &f.ax, &path, fp.key("ax"))
            .map_err(|e| e.at_position(src.position(&fp.key("ax"))))?;
        if !f.ax.to_ascii_lowercase().ends_with(".json") {
            return Err(src.error(
                fp.key("ax"),
                Reason::UnsupportedFileType,
                "AX snapshots must be .json files",
            ));
        }
        let ax = load_ax(&ax_path)?;
        let mut frame = Frame::new(f.id.clone(), ax, shot);
        if let Some(dom) = &f.dom {
            let dom_path = safe_join(dir, dom, &path, fp.key("dom"))
                .map_err(|e| e.at_position(src.position(&fp.key("dom"))))?;
            frame.dom = Some(Arc::new(super::dom::load_dom(&dom_path)?));
        }
        frames.push(frame);
    }
    for (i, t) in file.transitions.iter().enumerate() {
        let tp = FieldPath::root().key("transitions").index(i);
        for (field, id) in [("from", &t.from), ("to", &t.to)] {
            if !ids.contains(id.as_str()) {
                return Err(src.error(
                    tp.key(field),
                    Reason::UnknownId,
                    format!("no frame has the id `{id}`"),
                ));
            }
        }
        if let Some(el) = &t.element {
            let frame = &frames[file.frames.iter().position(|f| f.id == t.from).unwrap_or(0)];
            if frame.ax.find(el).is_none() {
                return Err(src.error(
                    tp.key("element"),
                    Reason::UnknownId,
                    format!("frame `{}` has no element `{el}`", t.from),
                ));
            }
        }
    }
    Ok(Recording {
        dir: dir.to_path_buf(),
        file,
        frames,
    })
}

/// Loads one AX snapshot: schema, strict types, element limit, unique ids.
pub fn load_ax(path: &Path) -> Result<AxSnapshot, InputError> {
    let src = read_text(path, AX_BYTES)?;
    parse_ax(&src)
}

/// Parses an AX snapshot from text (see [`load_ax`]).
pub(crate) fn parse_ax(src: &Source) -> Result<AxSnapshot, InputError> {
    let value = parse_value(src)?;
    expect_schema(src, &value, AX_SCHEMA, "AX snapshots")?;
    let ax: AxSnapshot = parse_typed(src)?;
    within_elements(src, ax.element_count())?;
    // Ids must be unique across windows too: they name elements across frames.
    let mut seen: HashMap<&str, FieldPath> = HashMap::new();
    for (a, app) in ax.apps.iter().enumerate() {
        for (w, win) in app.windows.iter().enumerate() {
            let wp = FieldPath::root()
                .key("apps")
                .index(a)
                .key("windows")
                .index(w);
            let mut stack: Vec<(&super::ax::Element, FieldPath)> = win
                .elements
                .iter()
                .enumerate()
                .map(|(i, e)| (e, wp.key("elements").index(i)))
                .collect();
            stack.reverse();
            while let Some((e, p)) = stack.pop() {
                if let Some(first) = seen.get(e.id.as_str()) {
                    return Err(src
                        .error(
                            p.key("id"),
                            Reason::DuplicateId,
                            format!("element id `{}` repeats (first at `{first}`)", e.id),
                        )
                        .hint(
                            "element ids must be unique in a snapshot and stable across frames",
                        ));
                }
                seen.insert(&e.id, p.clone());
                for (i, c) in e.children.iter().enumerate().rev() {
                    stack.push((c, p.key("children").index(i)));
                }
            }
        }
    }
    Ok(ax)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_may_hold_its_limit_of_elements_and_not_one_more() {
        let src = Source {
            path: "a.json".into(),
            text: "{}".into(),
        };
        assert!(within_elements(&src, AX_ELEMENTS).is_ok());
        let e = within_elements(&src, AX_ELEMENTS + 1).unwrap_err();
        assert_eq!(e.reason, Reason::LimitExceeded);
    }

    #[test]
    fn the_decode_budget_holds_at_its_limit_and_not_past_it() {
        // A 1-bit grey image decodes to one byte a pixel, then four more for RGBA: five.
        let pixels = DECODE_BYTES / 5;
        let (w, h) = (PNG_SIDE, (pixels / u64::from(PNG_SIDE)) as u32);
        let at = decode_cost((w, h), u64::from(w) * u64::from(h), false);
        assert!(at <= DECODE_BYTES);
        let past = decode_cost((w, h + 1), u64::from(w) * u64::from(h + 1), false);
        assert!(past > DECODE_BYTES);
        // RGBA8 is moved, not copied.
        assert_eq!(decode_cost((2, 2), 16, true), 16);
    }
}

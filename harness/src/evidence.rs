//! The pictures the reporters draw, gathered on the runner's side of the flow: the frames a
//! report's steps show and each acting step's diff image, read from the recordings and
//! computed with the `diff` engines here, so the HTML page and `run --captures` only lay out
//! what they are handed (the report and an [`Evidence`]) and read no recording themselves.
//!
//! A reporter says which pictures it draws as a [`Wanted`]; [`Evidence::gather`] loads each
//! recording once and fetches exactly those, each screenshot file read once however many steps
//! show it. Nothing is read for a run that asks for no pictures.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use image::RgbaImage;

use crate::diff::files::encode_png;
use crate::diff::step::{NoPixels, diff_image};
use crate::errors::{Error, InputError};
use crate::recording::{Frame, load_recording};

/// A frame of a recording: (recording folder, frame id).
pub(crate) type FrameKey = (String, String);

/// A step's frame pair: (recording folder, frame before, frame after).
pub(crate) type PairKey = (String, String, String);

/// The pictures a reporter draws.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Wanted {
    /// Frames shown as they were recorded.
    pub(crate) frames: BTreeSet<FrameKey>,
    /// Frame pairs whose diff image is shown (their two frames come with them).
    pub(crate) pairs: BTreeSet<PairKey>,
}

impl Wanted {
    /// Adds what `other` wants.
    pub fn extend(&mut self, other: Wanted) {
        self.frames.extend(other.frames);
        self.pairs.extend(other.pairs);
    }

    fn recordings(&self) -> BTreeSet<&str> {
        let frames = self.frames.iter().map(|(r, _)| r.as_str());
        frames
            .chain(self.pairs.iter().map(|(r, _, _)| r.as_str()))
            .collect()
    }
}

/// A PNG as written to disk, with its size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Picture {
    /// The file's bytes (a recorded screenshot as it is on disk, or an encoded image).
    pub(crate) png: Vec<u8>,
    /// Pixel width.
    pub(crate) width: u32,
    /// Pixel height.
    pub(crate) height: u32,
    /// The boxes of the windows on screen, the frontmost app's first (none for an image that
    /// is no recorded frame): the page crops a step's pictures to its app's window.
    pub(crate) windows: Vec<crate::recording::ax::Rect>,
}

/// What one step's frame pair shows.
#[derive(Clone, Debug)]
pub(crate) struct PairPictures {
    /// The frame before, as recorded.
    pub(crate) before: Arc<Picture>,
    /// The frame after, as recorded.
    pub(crate) after: Arc<Picture>,
    /// pixelmatch's diff image of the two.
    pub(crate) diff: Picture,
    /// The frame before, decoded, to draw on.
    pub(crate) pixels: Arc<RgbaImage>,
}

/// Why a step has no pictures; the captures list the text.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NoPictures {
    /// The diff could not be made.
    #[error(transparent)]
    Diff(#[from] NoPixels),
    /// The recording or one of the two frames was not found.
    #[error("frames unreadable")]
    Frames,
    /// A frame's file is not a readable image.
    #[error("frame `{0}` cannot be read")]
    Frame(String),
    /// The diff image could not be encoded.
    #[error(transparent)]
    Encode(#[from] image::ImageError),
    /// The frame before could not be decoded.
    #[error("{}", .0.message)]
    Pixels(#[from] InputError),
}

/// The pictures gathered for the reporters.
#[derive(Debug, Default)]
pub struct Evidence {
    /// Frames found and readable, by (recording folder, frame id). A wanted frame that is
    /// absent could not be found or read.
    pub(crate) frames: BTreeMap<FrameKey, Arc<Picture>>,
    /// Every wanted pair: its pictures, or why there are none.
    pub(crate) pairs: BTreeMap<PairKey, Result<PairPictures, NoPictures>>,
}

/// Where a reporter's pictures come from: handed over a recording at a time, so that what is
/// held is one recording's pictures, not a suite's (a suite's frames are gigabytes decoded).
pub trait Pictures {
    /// Calls `f` with the pictures `wanted` asks for, one recording's at a time.
    fn each(
        &self,
        wanted: &Wanted,
        f: &mut dyn FnMut(&Evidence) -> Result<(), Error>,
    ) -> Result<(), Error>;
}

/// Pictures read from the recordings as they are asked for ([`Evidence::gather_each`]): the
/// runner's source.
#[derive(Clone, Copy, Debug, Default)]
pub struct FromRecordings;

impl Pictures for FromRecordings {
    fn each(
        &self,
        wanted: &Wanted,
        f: &mut dyn FnMut(&Evidence) -> Result<(), Error>,
    ) -> Result<(), Error> {
        Evidence::gather_each(wanted, &mut |e| f(&e))
    }
}

/// Pictures gathered already (all at once): handed over whole.
impl Pictures for Evidence {
    fn each(
        &self,
        _wanted: &Wanted,
        f: &mut dyn FnMut(&Evidence) -> Result<(), Error>,
    ) -> Result<(), Error> {
        f(self)
    }
}

impl Evidence {
    /// Loads each recording `wanted` names once and takes from it what `wanted` asks for.
    pub fn gather(wanted: &Wanted) -> Evidence {
        let mut out = Evidence::default();
        let _ = Evidence::gather_each(wanted, &mut |e| {
            out.frames.extend(e.frames);
            out.pairs.extend(e.pairs);
            Ok(())
        });
        out
    }

    /// [`Evidence::gather`] a recording at a time: `f` gets each recording's pictures, and
    /// they are dropped before the next recording is read.
    pub fn gather_each(
        wanted: &Wanted,
        f: &mut dyn FnMut(Evidence) -> Result<(), Error>,
    ) -> Result<(), Error> {
        for dir in wanted.recordings() {
            let mut out = Evidence::default();
            let rec = load_recording(Path::new(dir)).ok();
            let frame = |id: &str| rec.as_ref().and_then(|r| r.frame(id));
            for (_, id) in wanted.frames.iter().filter(|(r, _)| r == dir) {
                if let Some(f) = frame(id) {
                    out.picture(dir, f);
                }
            }
            for key in wanted.pairs.iter().filter(|(r, _, _)| r == dir) {
                let got = match (frame(&key.1), frame(&key.2)) {
                    (Some(b), Some(a)) => out.pair(dir, b, a),
                    _ => Err(NoPictures::Frames),
                };
                out.pairs.insert(key.clone(), got);
            }
            f(out)?;
        }
        Ok(())
    }

    /// The diff image of `before` → `after`, with both frames.
    fn pair(
        &mut self,
        dir: &str,
        before: &Frame,
        after: &Frame,
    ) -> Result<PairPictures, NoPictures> {
        let img = diff_image(before, after)?;
        let read = |f: &Frame| NoPictures::Frame(f.id.clone());
        Ok(PairPictures {
            before: self.picture(dir, before).ok_or_else(|| read(before))?,
            after: self.picture(dir, after).ok_or_else(|| read(after))?,
            diff: Picture {
                png: encode_png(&img)?,
                width: img.width(),
                height: img.height(),
                windows: Vec::new(),
            },
            pixels: before.pixels()?,
        })
    }

    /// A frame's screenshot file as it is, when it is a readable image; read once however
    /// many steps show it.
    fn picture(&mut self, dir: &str, f: &Frame) -> Option<Arc<Picture>> {
        let key = (dir.to_string(), f.id.clone());
        if let Some(p) = self.frames.get(&key) {
            return Some(p.clone());
        }
        // Bounded and never blocking (the frame may be a FIFO); the size is read from the bytes.
        let png = crate::json::read_bounded(&f.screenshot_path, crate::limits::PNG_BYTES).ok()?;
        let (width, height) =
            image::ImageReader::with_format(std::io::Cursor::new(&png), image::ImageFormat::Png)
                .into_dimensions()
                .ok()?;
        let mut apps: Vec<_> = f.ax.apps.iter().collect();
        apps.sort_by_key(|a| !a.frontmost);
        let windows = apps
            .iter()
            .flat_map(|a| &a.windows)
            .map(|w| w.frame)
            .filter(|r| r.width > 0 && r.height > 0)
            .collect();
        let p = Arc::new(Picture {
            png,
            width,
            height,
            windows,
        });
        self.frames.insert(key, p.clone());
        Some(p)
    }
}

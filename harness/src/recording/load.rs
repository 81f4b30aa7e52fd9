//! Loading a recording safely: bounded files, paths kept inside the folder, unique element
//! ids, transitions between known frames, and screenshots decoded lazily, once, with a
//! decoder memory limit (no decompression bombs).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use image::RgbaImage;

use super::ax::{AX_SCHEMA, AxSnapshot};
use super::format::{RECORDING_SCHEMA, RECORDING_SCHEMA_2, RecordingFile};
use crate::errors::{FieldPath, InputError, Reason};
use crate::json::{Source, expect_schema, parse_typed, parse_value, read_text};
use crate::limits::{AX_BYTES, AX_ELEMENTS, RECORDING_BYTES};
use crate::png::decode_png;
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
    /// Decoded once without an error (the frame cache may have dropped the pixels since).
    decoded: AtomicBool,
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
            decoded: AtomicBool::new(false),
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
        .inspect(|_| self.decoded.store(true, Ordering::Relaxed))
        .inspect_err(|e| {
            let _ = self.pixels.set(Err(e.clone()));
        })
    }

    /// Whether the screenshot decodes. A frame that decoded once is not decoded again to
    /// say so: decoding is deterministic, and a replay has usually just decoded the frames
    /// it stood on (past the frame cache's budget, asking again would decode each anew).
    pub fn readable(&self) -> Result<(), InputError> {
        if self.decoded.load(Ordering::Relaxed) {
            return Ok(());
        }
        self.pixels().map(|_| ())
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

/// Refuses a file given where a recording folder is expected, saying so (reading
/// `FILE/recording.json` would only say "Not a directory").
pub(crate) fn recording_folder(dir: &Path) -> Result<(), InputError> {
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
    if value.get("schema").and_then(|s| s.as_str()) != Some(RECORDING_SCHEMA_2) {
        expect_schema(&src, &value, RECORDING_SCHEMA, "recordings")?;
    }
    let file: RecordingFile = parse_typed(&src)?;
    if !file.exchanges.is_empty() && file.schema == RECORDING_SCHEMA {
        return Err(src
            .error(
                FieldPath::root().key("exchanges"),
                Reason::InvalidField,
                format!("`exchanges` are in \"{RECORDING_SCHEMA_2}\" recordings only"),
            )
            .hint(format!("set `schema` to \"{RECORDING_SCHEMA_2}\"")));
    }
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
        // A file the frame names, inside the recording, and of the kind it must be.
        let join = |key: &str, name: &str, ext: &str, what: &str| {
            let at = fp.key(key);
            let file = safe_join(dir, name, &path, at.clone())
                .map_err(|e| e.at_position(src.position(&at)))?;
            if !name.to_ascii_lowercase().ends_with(ext) {
                let why = format!("{what} must be {ext} files");
                return Err(src.error(at, Reason::UnsupportedFileType, why));
            }
            Ok(file)
        };
        let shot = join("screenshot", &f.screenshot, ".png", "screenshots")?;
        if !shot.is_file() {
            return Err(src.error(
                fp.key("screenshot"),
                Reason::MissingFile,
                format!("`{}` does not exist", f.screenshot),
            ));
        }
        let ax = load_ax(&join("ax", &f.ax, ".json", "AX snapshots")?)?;
        let mut frame = Frame::new(f.id.clone(), ax, shot);
        if let Some(dom) = &f.dom {
            let dom_path = join("dom", dom, "", "")?;
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
    fn a_frame_that_decoded_once_is_readable_without_decoding_again() {
        let dir = std::env::temp_dir().join(format!("stepreplay-readable-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ax = || AxSnapshot {
            schema: AX_SCHEMA.into(),
            apps: vec![],
        };
        let (seen, unseen) = (dir.join("seen.png"), dir.join("unseen.png"));
        for p in [&seen, &unseen] {
            image::RgbaImage::new(2, 2).save(p).unwrap();
        }
        let a = Frame::new("a".into(), ax(), seen.clone());
        let b = Frame::new("b".into(), ax(), unseen.clone());
        assert!(a.pixels().is_ok());
        // Both files go bad: the frame decoded before is still judged readable (a decode
        // would now fail), the other is decoded and refused.
        std::fs::write(&seen, b"not a png").unwrap();
        std::fs::write(&unseen, b"not a png").unwrap();
        assert!(a.readable().is_ok());
        assert!(b.readable().is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_snapshot_may_hold_its_limit_of_elements_and_not_one_more() {
        let src = Source::from_text("a.json", "{}");
        assert!(within_elements(&src, AX_ELEMENTS).is_ok());
        let e = within_elements(&src, AX_ELEMENTS + 1).unwrap_err();
        assert_eq!(e.reason, Reason::LimitExceeded);
    }
}

//! Reading a region of a screenshot with Tesseract (Debian's `tesseract-ocr`), for browser
//! steps that read text (`extract`, `regionocr`, `capture` with `ocr`) under `run --ocr
//! tesseract`. The region is the target's box, scaled up three times (Tesseract reads best
//! at a cap height near 30 px; page text is 10–16 px) and read as one block.
//!
//! Off by default: the recorded DOM's text is exact and the same on every machine, while what
//! OCR reads depends on the Tesseract build. Reports say which source a read came from.

use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use image::RgbaImage;
use image::imageops::{FilterType, crop_imm, resize};

use crate::recording::Rect;

/// Where reading steps get their text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Ocr {
    /// The recorded DOM's text under the element (exact, machine-independent).
    #[default]
    Dom,
    /// Tesseract on the element's box in the screenshot.
    Tesseract,
}

/// Reads made so far, by frame and box: both replay modes read the same frames.
#[derive(Debug, Default)]
pub(crate) struct Reads(Mutex<HashMap<(usize, Rect), Result<String, String>>>);

impl Reads {
    /// The text in `rect` of frame `frame`, read once.
    pub(crate) fn read(
        &self,
        frame: usize,
        rect: Rect,
        pixels: impl FnOnce() -> Result<std::sync::Arc<RgbaImage>, String>,
    ) -> Result<String, String> {
        if let Some(done) = self
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&(frame, rect))
        {
            return done.clone();
        }
        let got = pixels().and_then(|px| tesseract(&px, rect));
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert((frame, rect), got.clone());
        got
    }
}

/// Runs Tesseract on `rect` of `pixels`; its text with runs of white space made one space.
pub(crate) fn tesseract(pixels: &RgbaImage, rect: Rect) -> Result<String, String> {
    let (w, h) = pixels.dimensions();
    let x = rect.x.clamp(0, w as i32) as u32;
    let y = rect.y.clamp(0, h as i32) as u32;
    let cw = (rect.width.max(0) as u32).min(w - x);
    let ch = (rect.height.max(0) as u32).min(h - y);
    if cw == 0 || ch == 0 {
        return Err("the box is not on the screenshot".into());
    }
    let region = crop_imm(pixels, x, y, cw, ch).to_image();
    let big = resize(&region, cw * 3, ch * 3, FilterType::CatmullRom);
    let png = crate::diff::files::encode_png(&big).map_err(|e| e.to_string())?;
    let mut child = Command::new("tesseract")
        .args(["stdin", "stdout", "--psm", "6", "-l", "eng"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            format!("cannot start tesseract ({e}): install the Debian packages tesseract-ocr and tesseract-ocr-eng")
        })?;
    let mut stdin = child.stdin.take().ok_or("tesseract has no stdin")?;
    // Written from a thread: Tesseract may write before it has read everything.
    let writer = std::thread::spawn(move || stdin.write_all(&png));
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(format!("tesseract failed ({})", out.status));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" "))
}

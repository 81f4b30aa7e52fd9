//! `run --captures DIR`: each acting step's before, after and diff PNGs, and an overlay of
//! what the follower chose, written from the report and the [`Evidence`] the runner gathered
//! (a consumer like the other formats: it reads no recording and computes no diff). The HTML
//! page shows the diff images too.
//!
//! Layout: `DIR/<scenario>/<mode>/<NN>-<step's words>-{before,after,diff,overlay}.png`
//! (`03-click-the-last-name-text-field-before.png`), names slugged so no id can climb out of
//! `DIR`. A step that failed has its pictures whether or not it acted: the screen it failed
//! on, the screen after it (the same one when nothing was done) and their diff. The overlay is the before frame with, in the page legend's
//! colours, the box of the target the follower chose (blue), the box of the element the
//! recording acted on when it is another (amber) and the click point (a red ring and cross);
//! a step with none of these (no target) has no overlay.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use image::{Rgba, RgbaImage};

use super::entries::Entries;
use super::model::{CaptureFiles, ResolutionReport, StepReport};
use crate::diff::files::encode_png;
use crate::errors::Error;
use crate::evidence::{PairKey, PairPictures, Pictures, Wanted};
use crate::output::{real_subdir, write_file};
use crate::paint::canvas::fill_box;
use crate::text::slug;
use crate::text::word;

/// The target box the follower chose: the page's `--win`.
pub(super) const WIN: Rgba<u8> = Rgba([0x09, 0x69, 0xda, 0xff]);
/// The element the recording acted on: the page's `--want`.
pub(super) const WANT: Rgba<u8> = Rgba([0xbf, 0x87, 0x00, 0xff]);
/// The click point: the page's `--bad`.
pub(super) const CLICK: Rgba<u8> = Rgba([0xcf, 0x22, 0x2e, 0xff]);

/// What [`write_captures`] wrote.
#[derive(Clone, Debug, Default)]
pub struct CapturesOutput {
    /// PNG files written.
    pub files: usize,
    /// Steps whose pictures could not be made, with why (the report keeps their summaries).
    pub missing: Vec<String>,
}

/// The pictures the captures draw: every acting or failed step's frame pair.
pub fn captures_wanted(entries: &dyn Entries) -> Result<Wanted, Error> {
    let mut out = Wanted::default();
    entries.each(&mut |sc| {
        let shown = sc.steps().filter(|st| pictured(st));
        out.pairs
            .extend(shown.filter_map(|st| st.pair(&sc.recording)));
        Ok(())
    })?;
    Ok(out)
}

/// One step's pictures to write: where, and what to draw on the overlay.
struct Planned {
    /// `<scenario> step <n>`, for what could not be written.
    label: String,
    /// Its folder under the captures folder (`<scenario>/<mode>`).
    folder: PathBuf,
    stem: String,
    resolution: Option<ResolutionReport>,
    /// What came of it: the files, or why there are none.
    got: Option<Result<CaptureFiles, String>>,
}

/// Writes the pictures of every step that carries a diff, from those `pictures` hands over a
/// recording at a time (for [`captures_wanted`]), and records their paths in the entries'
/// steps. Three passes: plan each step's files from the entries, write them as each
/// recording's pictures come (then dropped), and record the paths.
pub fn write_captures(
    entries: &mut dyn Entries,
    pictures: &dyn Pictures,
    dir: &Path,
) -> Result<CapturesOutput, Error> {
    real_subdir(dir, Path::new(""))?;
    let mut plan: Vec<Planned> = Vec::new();
    let mut by_pair: BTreeMap<PairKey, Vec<usize>> = BTreeMap::new();
    let mut used = BTreeSet::new();
    entries.each(&mut |sc| {
        let mut name = slug(&sc.id);
        let mut n = 2;
        while !used.insert(name.clone()) {
            name = format!("{}-{n}", slug(&sc.id));
            n += 1;
        }
        for (mode, run) in &sc.runs {
            for st in &run.steps {
                let Some(key) = st.pair(&sc.recording).filter(|_| pictured(st)) else {
                    continue;
                };
                by_pair.entry(key).or_default().push(plan.len());
                plan.push(Planned {
                    label: format!("{} step {}", sc.id, st.number),
                    folder: Path::new(&name).join(word(mode)),
                    stem: stem(st),
                    resolution: st.resolution.clone(),
                    got: None,
                });
            }
        }
        Ok(())
    })?;
    let mut out = CapturesOutput::default();
    let wanted = Wanted {
        pairs: by_pair.keys().cloned().collect(),
        ..Wanted::default()
    };
    pictures.each(&wanted, &mut |ev| {
        for (key, got) in &ev.pairs {
            for &i in by_pair.get(key).into_iter().flatten() {
                let p = &mut plan[i];
                p.got = Some(match got {
                    Ok(pics) => Ok(write_step(dir, p, pics, &mut out.files)?),
                    Err(why) => Err(why.to_string()),
                });
            }
        }
        Ok(())
    })?;
    for p in &plan {
        match &p.got {
            Some(Ok(_)) => {}
            Some(Err(why)) => out.missing.push(format!("{}: {why}", p.label)),
            None => out
                .missing
                .push(format!("{}: frames not gathered", p.label)),
        }
    }
    // The entries come in the order they were planned in.
    let mut next = plan.into_iter();
    entries.each_mut(&mut |sc| {
        for run in sc.runs.values_mut() {
            for st in &mut run.steps {
                if pictured(st) && st.pair(&sc.recording).is_some() {
                    let p = next.next().ok_or_else(|| {
                        Error::Internal("the entries changed while captures were written".into())
                    })?;
                    st.captures = p.got.and_then(Result::ok);
                }
            }
        }
        Ok(())
    })?;
    Ok(out)
}

/// Whether a step's pictures are written: it acted (it has a diff) or it failed.
fn pictured(st: &StepReport) -> bool {
    st.diff.is_some() || st.status == "failed" || st.status == "stopped"
}

/// `03-click-the-last-name-text-field`: the step's number and its words (at most 48
/// characters of them), else its id when its words have no letter or digit.
fn stem(st: &StepReport) -> String {
    let mut said = slug(&crate::text::words(&st.text).join("-"));
    if said.bytes().all(|b| b == b'_' || b == b'-') {
        said = slug(&st.step_id);
    }
    // `slug` keeps ASCII only, so any byte is a character boundary.
    said.truncate(48);
    format!("{:02}-{}", st.number, said.trim_end_matches('-'))
}

/// Writes one step's before, after and diff PNGs, and its overlay when there is something to
/// point at; counts the files.
fn write_step(
    dir: &Path,
    p: &Planned,
    pics: &PairPictures,
    files: &mut usize,
) -> Result<CaptureFiles, Error> {
    let folder = real_subdir(dir, &p.folder)?;
    let path = |what: &str| folder.join(format!("{}-{what}.png", p.stem));
    write_file(&path("diff"), &pics.diff.png)?;
    write_file(&path("before"), &pics.before.png)?;
    write_file(&path("after"), &pics.after.png)?;
    *files += 3;
    if let Some(img) = p.resolution.as_ref().and_then(|r| overlay(&pics.pixels, r)) {
        let png = encode_png(&img).map_err(|e| Error::Write {
            path: path("overlay"),
            source: std::io::Error::other(e),
        })?;
        write_file(&path("overlay"), png)?;
        *files += 1;
    }
    Ok(CaptureFiles {
        before: path("before").display().to_string(),
        after: path("after").display().to_string(),
        diff: path("diff").display().to_string(),
    })
}

/// The before frame with the step's target drawn on it, in the page's colours and border width
/// (2 px inside the box); None when there is nothing to draw.
fn overlay(before: &RgbaImage, r: &ResolutionReport) -> Option<RgbaImage> {
    if r.element_frame.is_none() && r.expected_frame.is_none() && r.found.click.is_none() {
        return None;
    }
    let mut img = before.clone();
    for (rect, colour) in [(&r.expected_frame, WANT), (&r.element_frame, WIN)] {
        // Two pixels inside the box, however small it is.
        if let Some(f) = rect {
            let (w, h) = (f.width.max(2), f.height.max(2));
            for b in [
                (0, 0, w, 2),
                (0, h - 2, w, 2),
                (0, 0, 2, h),
                (w - 2, 0, 2, h),
            ] {
                fill_box(&mut img, (f.x + b.0, f.y + b.1, b.2, b.3), colour);
            }
        }
    }
    if let Some((x, y)) = r.found.click {
        let (x, y) = (x.round() as i32, y.round() as i32);
        // A ring of radius 5 around a plus.
        for (dx, dy) in (-6..=6).flat_map(|dx| (-6..=6).map(move |dy| (dx, dy))) {
            if (f64::from(dx * dx + dy * dy).sqrt() - 5.0).abs() < 0.5 {
                fill_box(&mut img, (x + dx, y + dy, 1, 1), CLICK);
            }
        }
        fill_box(&mut img, (x - 1, y, 3, 1), CLICK);
        fill_box(&mut img, (x, y - 1, 1, 3), CLICK);
    }
    Some(img)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::ax::Rect;

    const GREY: Rgba<u8> = Rgba([40, 50, 60, 255]);

    fn resolution(
        element: Option<Rect>,
        expected: Option<Rect>,
        click: Option<(f64, f64)>,
    ) -> ResolutionReport {
        let id = element.map(|_| "e1".to_string());
        let mut r = ResolutionReport::picked(&id, &None, None, click, None);
        (r.element_frame, r.expected_frame) = (element, expected);
        r
    }

    #[test]
    fn the_overlay_draws_box_edges_in_the_legend_colours_and_leaves_the_inside_alone() {
        let before = RgbaImage::from_pixel(60, 40, GREY);
        let r = resolution(
            Some(Rect::new(5, 5, 30, 20)),
            Some(Rect::new(40, 30, 15, 8)),
            Some((20.0, 15.0)),
        );
        let img = overlay(&before, &r).unwrap();
        // The target's box: both border pixels on each side, corners included.
        for (x, y) in [(5, 5), (6, 6), (34, 24), (33, 23), (14, 5), (5, 9)] {
            assert_eq!(*img.get_pixel(x, y), WIN, "({x}, {y})");
        }
        // The recorded element's box, in its own colour.
        for (x, y) in [(40, 30), (54, 37), (41, 33)] {
            assert_eq!(*img.get_pixel(x, y), WANT, "({x}, {y})");
        }
        // The click point; inside the boxes away from it and outside them, nothing changes.
        assert_eq!(*img.get_pixel(20, 15), CLICK);
        for (x, y) in [(8, 8), (30, 20), (45, 34), (4, 4), (35, 25), (0, 39)] {
            assert_eq!(*img.get_pixel(x, y), GREY, "({x}, {y})");
        }
        assert_eq!(
            *before.get_pixel(5, 5),
            GREY,
            "the before frame is left as it was"
        );
    }

    #[test]
    fn a_step_with_nothing_to_point_at_has_no_overlay() {
        let before = RgbaImage::from_pixel(8, 8, GREY);
        assert!(overlay(&before, &resolution(None, None, None)).is_none());
        assert!(overlay(&before, &resolution(None, None, Some((2.0, 2.0)))).is_some());
    }

    #[test]
    fn the_overlay_colours_are_the_pages_legend() {
        for (name, c) in [("win", WIN), ("want", WANT), ("bad", CLICK)] {
            let css = format!("--{name}:#{:02x}{:02x}{:02x}", c[0], c[1], c[2]);
            assert!(super::super::html::STYLE.contains(&css), "{css}");
        }
    }
}

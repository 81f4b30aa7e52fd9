//! [`Perturbation`] names and [`perturb`], which applies one to a whole recording.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use image::RgbaImage;

use crate::errors::{InputError, Reason};
use crate::recording::{AxSnapshot, Frame, Recording};
use crate::rng::Rng;

/// One perturbation, with its parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Perturbation {
    /// Move the front app's windows by (dx, dy) pixels (seeded when not given).
    MoveWindow(Option<(i32, i32)>),
    /// Switch the screen between 1x and 2x.
    Scale,
    /// Re-case the labels of the controls the recording acts on.
    RecaseLabel,
    /// Shorten those labels with an ellipsis.
    EllipsizeLabel,
    /// Remove those labels (the controls become nameless).
    RemoveLabel,
    /// Add a look-alike control with the same label in the same window.
    LookalikeSameWindow,
    /// Add a look-alike control with the same label in another window.
    LookalikeOtherWindow,
    /// Dark theme: screenshot colours inverted (crops are not).
    DarkTheme,
    /// Reverse the order of siblings in every element list.
    ReorderSiblings,
    /// A notification banner over the top right of the screen.
    Banner,
    /// Change the title of the front app's windows.
    RetitleWindow,
}

/// The standard set `--perturb default` applies.
pub(crate) const STANDARD: &[&str] = &[
    "move-window",
    "scale",
    "recase-label",
    "ellipsize-label",
    "remove-label",
    "lookalike-same-window",
    "lookalike-other-window",
    "dark-theme",
    "reorder-siblings",
    "banner",
    "retitle-window",
];

impl FromStr for Perturbation {
    type Err = InputError;

    fn from_str(s: &str) -> Result<Self, InputError> {
        let (name, arg) = s.split_once(':').map_or((s, None), |(n, a)| (n, Some(a)));
        let p = match name {
            "move-window" => Perturbation::MoveWindow(match arg {
                None => None,
                Some(a) => {
                    let (x, y) = a
                        .split_once(',')
                        .ok_or_else(|| InputError::argument("move-window takes dx,dy"))?;
                    let parse = |v: &str| {
                        v.trim().parse::<i32>().map_err(|_| {
                            InputError::argument(format!("`{v}` is not a whole number"))
                        })
                    };
                    Some((parse(x)?, parse(y)?))
                }
            }),
            "scale" => Perturbation::Scale,
            "recase-label" => Perturbation::RecaseLabel,
            "ellipsize-label" => Perturbation::EllipsizeLabel,
            "remove-label" => Perturbation::RemoveLabel,
            "lookalike-same-window" => Perturbation::LookalikeSameWindow,
            "lookalike-other-window" => Perturbation::LookalikeOtherWindow,
            "dark-theme" => Perturbation::DarkTheme,
            "reorder-siblings" => Perturbation::ReorderSiblings,
            "banner" => Perturbation::Banner,
            "retitle-window" => Perturbation::RetitleWindow,
            _ => {
                return Err(InputError::argument(format!(
                    "unknown perturbation `{s}`; known: {}",
                    STANDARD.join(", ")
                )));
            }
        };
        if arg.is_some() && !matches!(p, Perturbation::MoveWindow(_)) {
            return Err(InputError::argument(format!("`{name}` takes no parameter")));
        }
        Ok(p)
    }
}

impl fmt::Display for Perturbation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Perturbation::MoveWindow(Some((x, y))) => write!(f, "move-window:{x},{y}"),
            Perturbation::MoveWindow(None) => f.write_str("move-window"),
            Perturbation::Scale => f.write_str("scale"),
            Perturbation::RecaseLabel => f.write_str("recase-label"),
            Perturbation::EllipsizeLabel => f.write_str("ellipsize-label"),
            Perturbation::RemoveLabel => f.write_str("remove-label"),
            Perturbation::LookalikeSameWindow => f.write_str("lookalike-same-window"),
            Perturbation::LookalikeOtherWindow => f.write_str("lookalike-other-window"),
            Perturbation::DarkTheme => f.write_str("dark-theme"),
            Perturbation::ReorderSiblings => f.write_str("reorder-siblings"),
            Perturbation::Banner => f.write_str("banner"),
            Perturbation::RetitleWindow => f.write_str("retitle-window"),
        }
    }
}

/// What a perturbation works on: one frame at a time, with the ids the recording acts on.
pub(crate) struct Ctx<'a> {
    pub(crate) targets: &'a BTreeSet<String>,
    pub(crate) scale: u32,
}

/// Applies a perturbation to every frame of a recording, deterministically for a seed.
/// The result lives in memory (pixels decoded); element ids are kept, so the recorded
/// transitions still name the right controls.
pub(crate) fn perturb(
    rec: &Recording,
    p: &Perturbation,
    seed: u64,
) -> Result<Recording, InputError> {
    let targets: BTreeSet<String> = rec
        .file
        .transitions
        .iter()
        .filter_map(|t| t.element.clone())
        .collect();
    // Parameters are drawn once per recording, so every frame changes the same way.
    let mut rng = Rng::salted(seed, &p.to_string());
    let p = match p {
        Perturbation::MoveWindow(None) => {
            let dx = rng.range(60, 160) as i32 * if rng.next_u64() & 1 == 0 { 1 } else { -1 };
            let dy = rng.range(30, 90) as i32;
            Perturbation::MoveWindow(Some((dx, dy)))
        }
        other => other.clone(),
    };
    let mut file = rec.file.clone();
    let mut frames = Vec::with_capacity(rec.frames.len());
    for frame in &rec.frames {
        let mut ax: AxSnapshot = (*frame.ax).clone();
        let mut px: RgbaImage = (*frame.pixels()?).clone();
        let ctx = Ctx {
            targets: &targets,
            scale: rec.file.screen.scale,
        };
        match &p {
            Perturbation::MoveWindow(Some((dx, dy))) => {
                super::move_window::apply(&mut ax, &mut px, *dx, *dy)
            }
            Perturbation::MoveWindow(None) => unreachable!("drawn above"),
            Perturbation::Scale => super::scale::apply(&mut ax, &mut px, rec.file.screen.scale),
            Perturbation::RecaseLabel => super::labels::recase(&mut ax, &ctx),
            Perturbation::EllipsizeLabel => super::labels::ellipsize(&mut ax, &ctx),
            Perturbation::RemoveLabel => super::labels::remove(&mut ax, &ctx),
            Perturbation::LookalikeSameWindow => {
                super::lookalike::same_window(&mut ax, &mut px, &ctx)
            }
            Perturbation::LookalikeOtherWindow => {
                super::lookalike::other_window(&mut ax, &mut px, &ctx)
            }
            Perturbation::DarkTheme => super::dark::apply(&mut px),
            Perturbation::ReorderSiblings => super::reorder::apply(&mut ax),
            Perturbation::Banner => super::banner::apply(&mut ax, &mut px, &ctx),
            Perturbation::RetitleWindow => super::retitle::apply(&mut ax),
        }
        let mut f = Frame::with_pixels(frame.id.clone(), ax, px);
        // Selectors resolve through the DOM to the perturbed tree's elements (same ids); the
        // DOM itself is not perturbed, so a look-alike added to the tree is not in it.
        f.dom = frame.dom.clone();
        frames.push(f);
    }
    if p == Perturbation::Scale {
        let (w, h, s) = (file.screen.width, file.screen.height, file.screen.scale);
        file.screen = if s >= 2 {
            crate::recording::format::Screen {
                width: w / 2,
                height: h / 2,
                scale: s / 2,
            }
        } else {
            crate::recording::format::Screen {
                width: w * 2,
                height: h * 2,
                scale: s * 2,
            }
        };
    }
    if let Some(f) = frames.first() {
        let px = f.pixels()?;
        if (px.width(), px.height()) != (file.screen.width, file.screen.height) {
            return Err(InputError::new(
                &rec.dir,
                Reason::InvalidImage,
                "screenshot size does not match the screen",
            ));
        }
    }
    Ok(Recording {
        dir: rec.dir.clone(),
        file,
        frames,
    })
}

/// Calls `f` on every element of a list and its descendants.
pub(crate) fn walk_mut(
    list: &mut [crate::recording::Element],
    f: &mut impl FnMut(&mut crate::recording::Element),
) {
    for e in list {
        f(e);
        walk_mut(&mut e.children, f);
    }
}

/// Calls `f` on every element of every window.
pub(crate) fn each_element(
    ax: &mut AxSnapshot,
    f: &mut impl FnMut(&mut crate::recording::Element),
) {
    for app in &mut ax.apps {
        for w in &mut app.windows {
            walk_mut(&mut w.elements, f);
        }
    }
}

/// Copies the pixels of `from` to `(to_x, to_y)`, clipped to the image.
pub(crate) fn copy_rect(
    px: &mut RgbaImage,
    src: &RgbaImage,
    from: crate::recording::Rect,
    to_x: i32,
    to_y: i32,
) {
    let (w, h) = (px.width() as i32, px.height() as i32);
    for y in 0..from.height {
        for x in 0..from.width {
            let (sx, sy, dx, dy) = (from.x + x, from.y + y, to_x + x, to_y + y);
            if sx >= 0 && sy >= 0 && sx < w && sy < h && dx >= 0 && dy >= 0 && dx < w && dy < h {
                px.put_pixel(dx as u32, dy as u32, *src.get_pixel(sx as u32, sy as u32));
            }
        }
    }
}

/// Fills a rectangle, clipped to the image.
pub(crate) fn fill_rect(px: &mut RgbaImage, r: crate::recording::Rect, c: image::Rgba<u8>) {
    let (w, h) = (px.width() as i32, px.height() as i32);
    for y in r.y.max(0)..(r.y + r.height).min(h) {
        for x in r.x.max(0)..(r.x + r.width).min(w) {
            px.put_pixel(x as u32, y as u32, c);
        }
    }
}

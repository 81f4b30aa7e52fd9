//! The crop-locate cases both the criterion bench (`benches/crop.rs`) and the OpenCV
//! comparison (`examples/crop_peer.rs`) time: one list, so the two measure the same queries.
//!
//! Besides the two original kinds (a control repeated on every row, a unique toolbar button),
//! the kinds that used to be slow corners: text on a flat background (a column header, a
//! text-only menu-bar item, a sidebar label — little structure, so a downscaled copy matches
//! any text), a blank stretch of wallpaper (a smooth gradient matches itself anywhere along
//! it), and a recoloured control with no exact copy left on screen (the search must give up
//! quickly, near and full).

use image::{RgbaImage, imageops};

use crate::desktop::{Desktop, Variant};

/// One crop to find on a [`Desktop`]'s before screen.
pub struct CropCase {
    /// Short name of the kind, e.g. `delete`, `header`.
    pub kind: &'static str,
    /// The crop.
    pub crop: RgbaImage,
    /// Where it was cut from on the searched screen, or `None` when it was cut from another
    /// screen and has no exact copy on this one.
    pub cut: Option<(u32, u32)>,
    /// The expected place for the near search: a little off the cut, as a moved window is.
    pub expected: (u32, u32),
}

/// The cases on `before` (painted at UI `scale`); `after` is the same scene one step later,
/// where the recoloured control comes from.
pub fn cases(before: &Desktop, after: &Desktop, scale: u32) -> Vec<CropCase> {
    let off = |(x, y): (u32, u32)| (x + 6 * scale, y.saturating_sub(4 * scale));
    let from = |kind, d: &Desktop, (x, y, w, h): (u32, u32, u32, u32), own: bool| CropCase {
        kind,
        crop: imageops::crop_imm(&d.image, x, y, w, h).to_image(),
        cut: own.then_some((x, y)),
        expected: off((x, y)),
    };
    let (bx, by) = before.delete_buttons[before.delete_buttons.len() / 2];
    let (bw, bh) = before.button_size;
    let s = scale;
    vec![
        from("delete", before, (bx, by, bw, bh), true),
        from("export", before, before.export, true),
        // The header's text box is wider than the word: mostly the header's flat grey.
        from("header", before, before.place("h-date"), true),
        from("menu", before, before.place("Window"), true),
        from("sidebar", before, before.place("Documents"), true),
        // Wallpaper right of the file manager, below the menu bar: a smooth gradient.
        from("blank", before, (1290 * s, 300 * s, 120 * s, 40 * s), true),
        // Row 6's button is highlighted on the after screen only.
        from("recoloured", after, after.place("delete-6"), false),
    ]
}

/// Paints the before and after screens of one bench size.
pub fn screens(w: u32, h: u32, scale: u32) -> (Desktop, Desktop) {
    (
        Desktop::paint(w, h, scale, Variant::Before),
        Desktop::paint(w, h, scale, Variant::After),
    )
}

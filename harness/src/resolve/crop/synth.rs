//! Test screens: desktop-like images (a window, a table of identical "Delete" buttons) drawn
//! with the synthetic desktop's own canvas and font, so the crop tests and `synth` share one
//! painter.

use image::{DynamicImage, Rgba, RgbaImage};

use crate::paint::canvas::Canvas;
use crate::paint::font::{self, Weight};

pub(crate) use crate::rng::Rng;

/// Draws on an RGBA test screen with the synthetic desktop's primitives.
fn paint(img: &mut RgbaImage, f: impl FnOnce(&mut Canvas)) {
    let rgb = DynamicImage::ImageRgba8(std::mem::take(img)).into_rgb8();
    let mut c = Canvas { img: rgb };
    f(&mut c);
    *img = DynamicImage::ImageRgb8(c.img).into_rgba8();
}

pub(crate) fn fill(img: &mut RgbaImage, x: u32, y: u32, w: u32, h: u32, c: [u8; 3]) {
    paint(img, |cv| {
        cv.fill_rect(x as i32, y as i32, w as i32, h as i32, c)
    });
}

/// Draws `s` in `px`-pixel type with its top near `y`.
pub(crate) fn text(img: &mut RgbaImage, x: f32, y: f32, px: f32, s: &str, c: [u8; 3]) {
    paint(img, |cv| {
        font::draw(cv, x, y + px, s, px, Weight::Regular, c);
    });
}

/// A bordered button with a label, `scale` times the base size (64×22).
pub(crate) fn button(img: &mut RgbaImage, x: u32, y: u32, scale: u32, label: &str, face: [u8; 3]) {
    let (w, h) = (64 * scale, 22 * scale);
    fill(img, x, y, w, h, [120, 120, 130]);
    fill(
        img,
        x + scale,
        y + scale,
        w - 2 * scale,
        h - 2 * scale,
        face,
    );
    text(
        img,
        (x + 10 * scale) as f32,
        (y + 4 * scale) as f32,
        13.0 * scale as f32,
        label,
        [20, 20, 20],
    );
}

/// Size of [`button`] at `scale`.
pub(crate) fn button_size(scale: u32) -> (u32, u32) {
    (64 * scale, 22 * scale)
}

/// A desktop: grey background, a window with a title bar, a table whose rows each end in a
/// "Delete" button. Returns the image and the top-left corner of every button.
pub(crate) fn desktop(w: u32, h: u32, scale: u32) -> (RgbaImage, Vec<(u32, u32)>) {
    let mut img = RgbaImage::from_pixel(w, h, Rgba([58, 110, 165, 255]));
    let (wx, wy) = (20 * scale, 16 * scale);
    let (ww, wh) = (w - 40 * scale, h - 32 * scale);
    fill(&mut img, wx, wy, ww, wh, [245, 245, 245]);
    fill(&mut img, wx, wy, ww, 24 * scale, [220, 220, 225]);
    text(
        &mut img,
        (wx + 8 * scale) as f32,
        (wy + 5 * scale) as f32,
        13.0 * scale as f32,
        "Files — Manager",
        [30, 30, 30],
    );
    let mut buttons = Vec::new();
    let row_h = 30 * scale;
    let mut y = wy + 34 * scale;
    let names = [
        "report.pdf",
        "notes.txt",
        "photo.png",
        "budget.xlsx",
        "draft.md",
        "song.mp3",
    ];
    let mut i = 0;
    while y + row_h < wy + wh {
        let name = names[i % names.len()];
        text(
            &mut img,
            (wx + 12 * scale) as f32,
            (y + 7 * scale) as f32,
            13.0 * scale as f32,
            name,
            [40, 40, 40],
        );
        let bx = wx + ww - 90 * scale;
        button(
            &mut img,
            bx,
            y + 4 * scale,
            scale,
            "Delete",
            [235, 235, 240],
        );
        buttons.push((bx, y + 4 * scale));
        fill(&mut img, wx, y + row_h - scale, ww, scale, [225, 225, 225]);
        y += row_h;
        i += 1;
    }
    (img, buttons)
}

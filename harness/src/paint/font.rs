//! Text for the synthetic desktop, drawn with DejaVu Sans from the `dejavu` crate.
//!
//! The font bytes ship inside a crate, never from the system, so a screenshot is the same on
//! every machine. ab_glyph gives each glyph's coverage; blending it onto the [`Canvas`] is done
//! here by hand so nothing depends on a drawing library's rounding.

use std::sync::OnceLock;

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};

use super::canvas::{Canvas, Rgb};

/// Regular or bold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Weight {
    /// DejaVu Sans.
    Regular,
    /// DejaVu Sans Bold.
    Bold,
}

fn font(weight: Weight) -> &'static FontRef<'static> {
    static REGULAR: OnceLock<FontRef<'static>> = OnceLock::new();
    static BOLD: OnceLock<FontRef<'static>> = OnceLock::new();
    let (cell, bytes) = match weight {
        Weight::Regular => (&REGULAR, dejavu::sans::regular()),
        Weight::Bold => (&BOLD, dejavu::sans::bold()),
    };
    cell.get_or_init(|| {
        // The bytes are compiled in and known good; a failure here is a broken build.
        FontRef::try_from_slice(bytes).expect("the bundled DejaVu font parses")
    })
}

/// The advance width of `text` at `size` pixels.
pub(crate) fn measure(text: &str, size: f32, weight: Weight) -> f32 {
    let f = font(weight).as_scaled(PxScale::from(size));
    let mut w = 0.0;
    let mut prev = None;
    for c in text.chars() {
        let id = f.glyph_id(c);
        if let Some(p) = prev {
            w += f.kern(p, id);
        }
        w += f.h_advance(id);
        prev = Some(id);
    }
    w
}

/// `text` cut with `…` so it fits in `max` pixels. One pass over the characters, so a very
/// long value in a snapshot costs linear time.
pub(crate) fn ellipsize(text: &str, size: f32, weight: Weight, max: f32) -> String {
    if measure(text, size, weight) <= max {
        return text.to_string();
    }
    let room = max - measure("…", size, weight);
    let f = font(weight).as_scaled(PxScale::from(size));
    let mut w = 0.0;
    let mut prev = None;
    let mut out = String::new();
    for c in text.chars() {
        let id = f.glyph_id(c);
        let step = prev.map(|p| f.kern(p, id)).unwrap_or(0.0) + f.h_advance(id);
        if w + step > room {
            break;
        }
        w += step;
        out.push(c);
        prev = Some(id);
    }
    out.push('…');
    out
}

/// Splits `text` into lines of at most `max` pixels, on spaces and newlines.
pub(crate) fn wrap(text: &str, size: f32, weight: Weight, max: f32) -> Vec<String> {
    let mut lines = Vec::new();
    for para in text.split('\n') {
        let mut line = String::new();
        for word in para.split(' ') {
            let candidate = if line.is_empty() {
                word.to_string()
            } else {
                format!("{line} {word}")
            };
            if !line.is_empty() && measure(&candidate, size, weight) > max {
                lines.push(std::mem::take(&mut line));
                line = word.to_string();
            } else {
                line = candidate;
            }
        }
        lines.push(line);
    }
    lines
}

/// Where a line of text sits: its baseline for a box centred on `cy`.
pub(crate) fn baseline_for_center(cy: f32, size: f32) -> f32 {
    let f = font(Weight::Regular).as_scaled(PxScale::from(size));
    // Centre the cap height, not the whole em: labels look centred that way.
    cy + (f.ascent() + f.descent()) / 2.0 - size * 0.02
}

/// Draws `text` with its baseline at `(x, baseline)`; returns the advance width.
pub(crate) fn draw(
    c: &mut Canvas,
    x: f32,
    baseline: f32,
    text: &str,
    size: f32,
    weight: Weight,
    color: Rgb,
) -> f32 {
    let fnt = font(weight);
    let f = fnt.as_scaled(PxScale::from(size));
    let mut pen = x;
    let mut prev = None;
    for ch in text.chars() {
        let id = f.glyph_id(ch);
        if let Some(p) = prev {
            pen += f.kern(p, id);
        }
        // Whole-pixel pen positions keep glyph edges identical wherever a word is drawn.
        let glyph = id.with_scale_and_position(PxScale::from(size), point(pen.round(), baseline));
        if let Some(og) = fnt.outline_glyph(glyph) {
            let b = og.px_bounds();
            let (ox, oy) = (b.min.x as i32, b.min.y as i32);
            og.draw(|gx, gy, cov| c.blend(ox + gx as i32, oy + gy as i32, color, cov));
        }
        pen += f.h_advance(id);
        prev = Some(id);
    }
    pen - x
}

/// Draws `text` vertically centred on `cy`, left-aligned at `x`, cut to `max` pixels.
#[allow(clippy::too_many_arguments)]
pub(crate) fn draw_line(
    c: &mut Canvas,
    x: f32,
    cy: f32,
    text: &str,
    size: f32,
    weight: Weight,
    color: Rgb,
    max: f32,
) -> f32 {
    let t = ellipsize(text, size, weight, max);
    draw(c, x, baseline_for_center(cy, size), &t, size, weight, color)
}

/// Draws `text` centred in the box `(x, y, w, h)`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn draw_centered(
    c: &mut Canvas,
    x: f32,
    y: f32,
    w: f32,
    h: f32,
    text: &str,
    size: f32,
    weight: Weight,
    color: Rgb,
) {
    let t = ellipsize(text, size, weight, w - 4.0);
    let tw = measure(&t, size, weight);
    draw(
        c,
        x + (w - tw) / 2.0,
        baseline_for_center(y + h / 2.0, size),
        &t,
        size,
        weight,
        color,
    );
}

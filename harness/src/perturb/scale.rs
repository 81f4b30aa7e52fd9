//! `scale`: the screen switches between 1x and 2x. Frames double (or halve) and the
//! screenshot is resampled (nearest neighbour up, triangle filter down), as a Retina
//! screen shows the same layout with twice the pixels.

use image::RgbaImage;
use image::imageops::{FilterType, resize};

use super::apply::each_element;
use crate::recording::{AxSnapshot, Rect};

pub(super) fn apply(ax: &mut AxSnapshot, px: &mut RgbaImage, scale: u32) {
    let up = scale < 2;
    // Saturating: GTK parks hidden controls at i32::MIN.
    let f = |r: Rect| {
        if up {
            Rect::new(
                r.x.saturating_mul(2),
                r.y.saturating_mul(2),
                r.width.saturating_mul(2),
                r.height.saturating_mul(2),
            )
        } else {
            Rect::new(r.x / 2, r.y / 2, r.width / 2, r.height / 2)
        }
    };
    for app in &mut ax.apps {
        for w in &mut app.windows {
            w.frame = f(w.frame);
        }
    }
    each_element(ax, &mut |e| e.frame = f(e.frame));
    *px = if up {
        resize(px, px.width() * 2, px.height() * 2, FilterType::Nearest)
    } else {
        resize(px, px.width() / 2, px.height() / 2, FilterType::Triangle)
    };
}

//! `move-window`: the front app's windows move by (dx, dy).
//!
//! AX frames of the windows and all their elements move; in the screenshot each window's
//! pixels move and the place it left shows the desktop colour (taken from the bottom-left
//! corner, which real and synthetic desktops leave uncovered).

use image::RgbaImage;

use super::apply::{copy_rect, fill_rect, walk_mut};
use crate::recording::AxSnapshot;

pub(super) fn apply(ax: &mut AxSnapshot, px: &mut RgbaImage, dx: i32, dy: i32) {
    let original = px.clone();
    let bg = *original.get_pixel(0, original.height().saturating_sub(1));
    let Some(app) = ax.apps.iter_mut().find(|a| a.frontmost) else {
        return;
    };
    for w in &app.windows {
        fill_rect(px, w.frame, bg);
    }
    // Back to front, so the front window ends on top.
    for w in app.windows.iter().rev() {
        copy_rect(px, &original, w.frame, w.frame.x + dx, w.frame.y + dy);
    }
    for w in &mut app.windows {
        w.frame = w.frame.translated(dx, dy);
        walk_mut(&mut w.elements, &mut |e| {
            e.frame = e.frame.translated(dx, dy)
        });
    }
}

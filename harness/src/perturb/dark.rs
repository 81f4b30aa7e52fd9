//! `dark-theme`: the screenshot's colours are inverted, as a dark appearance roughly does.
//! AX snapshots do not change, and neither do the plan's crops — which is the point: a guide
//! that leans on pictures of light-theme controls breaks here.

use image::RgbaImage;

pub(super) fn apply(px: &mut RgbaImage) {
    for p in px.pixels_mut() {
        p.0 = [255 - p.0[0], 255 - p.0[1], 255 - p.0[2], p.0[3]];
    }
}

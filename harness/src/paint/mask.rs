//! Masking secrets in pictures: the boxes of the fields that hold a secret are painted over in
//! every picture the harness writes, as Playwright's `mask` does, so a value kept out of the
//! files' bytes is kept out of their pixels too. The recorders (desktop and browser), `synth`
//! and `import` all cover with [`cover`]; the pictures made from a recording (report copies,
//! `--captures`, diffs, crops) are made from covered frames.

use std::collections::BTreeSet;

use image::{ImageBuffer, Pixel};

use super::canvas::fill_box;
use crate::recording::{AxSnapshot, Element, Rect};
use crate::secret::REDACTED;

/// Playwright's mask colour: a reader sees that something was hidden, and what shape it had.
pub(crate) const MASK: [u8; 3] = [255, 0, 255];

/// The boxes to cover in a frame: each element named in `fields` (the fields sensitive steps
/// typed into) and each element whose text was redacted (it echoed a secret). A secure text
/// field is left alone: it draws bullets, never the text.
pub(crate) fn secret_boxes(ax: &AxSnapshot, fields: &BTreeSet<String>) -> Vec<Rect> {
    let mut out = Vec::new();
    let holds = |e: &Element| {
        [&e.title, &e.value, &e.description]
            .into_iter()
            .flatten()
            .any(|s| s.contains(REDACTED))
    };
    for w in ax.apps.iter().flat_map(|a| &a.windows) {
        w.walk(&mut |e| {
            let secure = e.subrole.as_deref() == Some("AXSecureTextField");
            if ((fields.contains(&e.id) && !secure) || holds(e))
                && e.frame.width > 0
                && e.frame.height > 0
            {
                out.push(e.frame);
            }
        });
    }
    out
}

/// Paints each box solid in the mask colour, clipped to the picture; an RGB or RGBA picture.
pub(crate) fn cover<P>(img: &mut ImageBuffer<P, Vec<u8>>, boxes: &[Rect])
where
    P: Pixel<Subpixel = u8> + 'static,
{
    let mut colour = [255u8; 4];
    colour[..3].copy_from_slice(&MASK);
    let colour = *P::from_slice(&colour[..usize::from(P::CHANNEL_COUNT)]);
    for r in boxes {
        fill_box(img, (r.x, r.y, r.width, r.height), colour);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sensitive_fields_and_redacted_echoes_are_covered_and_secure_fields_are_not() {
        let r = |x| Rect {
            x,
            y: 2,
            width: 4,
            height: 3,
        };
        let field = |id: &str, value: &str, subrole: Option<&str>, x: i32| {
            json!({
                "id": id, "ax_role": "AXTextField", "subrole": subrole, "value": value,
                "frame": {"x": x, "y": 2, "width": 4, "height": 3},
            })
        };
        let ax: AxSnapshot = serde_json::from_value(json!({
            "schema": "stepreplay-ax/1",
            "apps": [{"name": "App", "windows": [{
                "id": "w", "frame": {"x": 0, "y": 0, "width": 40, "height": 8},
                "elements": [
                    field("code", "1234", None, 0),
                    field("pin", "••••", Some("AXSecureTextField"), 10),
                    field("echo", &format!("you typed {REDACTED}"), None, 20),
                    field("name", "Ada", None, 30),
                ],
            }]}],
        }))
        .unwrap();
        let fields: BTreeSet<String> = ["code", "pin"].map(String::from).into();
        assert_eq!(secret_boxes(&ax, &fields), vec![r(0), r(20)]);

        let mut img = image::RgbImage::new(40, 8);
        cover(&mut img, &secret_boxes(&ax, &fields));
        assert_eq!(img.get_pixel(1, 3).0, MASK);
        assert_eq!(img.get_pixel(21, 4).0, MASK);
        assert_eq!(img.get_pixel(11, 3).0, [0, 0, 0]);
        assert_eq!(img.get_pixel(31, 3).0, [0, 0, 0]);
        assert_eq!(img.get_pixel(1, 1).0, [0, 0, 0]);

        // A box past the edge is clipped, not a panic; RGBA pictures are covered opaque.
        let mut rgba = image::RgbaImage::new(5, 5);
        cover(&mut rgba, &[Rect::new(3, -2, 10, 4)]);
        assert_eq!(rgba.get_pixel(4, 0).0, [255, 0, 255, 255]);
        assert_eq!(rgba.get_pixel(4, 2).0, [0, 0, 0, 0]);
    }
}

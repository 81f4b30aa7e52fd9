//! The drawing surface of the synthetic desktop: [`Canvas`], an RGB image with a handful of
//! anti-aliased primitives (rectangles, rounded rectangles, circles, thick lines).
//!
//! Coverage is computed by hand in `f32` from the pixel centre, so the same calls give the same
//! bytes on every machine; no drawing crate, no platform rasterizer.

use image::{ImageBuffer, Pixel, RgbImage};

use crate::fnv::fnv1a64;
use crate::recording::ax::Rect;

/// An RGB colour.
pub(crate) type Rgb = [u8; 3];

/// Paints the box `(x, y, width, height)` of any picture with one pixel, clipped to it: the
/// canvas's rectangles, the secret mask and the captures' overlay are painted with it.
pub(crate) fn fill_box<P: Pixel>(
    img: &mut ImageBuffer<P, Vec<P::Subpixel>>,
    b: (i32, i32, i32, i32),
    p: P,
) {
    let (x, y, w, h) = b;
    for yy in y.max(0)..(y + h).min(img.height() as i32) {
        for xx in x.max(0)..(x + w).min(img.width() as i32) {
            img.put_pixel(xx as u32, yy as u32, p);
        }
    }
}

/// The image being drawn, with clipping to its bounds.
pub(crate) struct Canvas {
    /// The pixels.
    pub(crate) img: RgbImage,
}

impl Canvas {
    /// A canvas of `width × height` filled with `color`.
    pub(crate) fn new(width: u32, height: u32, color: Rgb) -> Self {
        Canvas {
            img: RgbImage::from_pixel(width, height, image::Rgb(color)),
        }
    }

    /// Blends `color` over pixel `(x, y)` with opacity `a` (0..1); outside pixels are ignored.
    pub(crate) fn blend(&mut self, x: i32, y: i32, color: Rgb, a: f32) {
        if x < 0 || y < 0 || x >= self.img.width() as i32 || y >= self.img.height() as i32 {
            return;
        }
        let a = a.clamp(0.0, 1.0);
        if a <= 0.0 {
            return;
        }
        let p = self.img.get_pixel_mut(x as u32, y as u32);
        for (dst, src) in p.0.iter_mut().zip(color) {
            let v = src as f32 * a + *dst as f32 * (1.0 - a);
            *dst = v.round().clamp(0.0, 255.0) as u8;
        }
    }

    /// Fills an axis-aligned rectangle (clipped).
    pub(crate) fn fill_rect(&mut self, x: i32, y: i32, w: i32, h: i32, color: Rgb) {
        fill_box(&mut self.img, (x, y, w, h), image::Rgb(color));
    }

    /// Blends a translucent rectangle.
    pub(crate) fn shade_rect(&mut self, x: i32, y: i32, w: i32, h: i32, color: Rgb, a: f32) {
        for yy in y.max(0)..(y + h).min(self.img.height() as i32) {
            for xx in x.max(0)..(x + w).min(self.img.width() as i32) {
                self.blend(xx, yy, color, a);
            }
        }
    }

    /// Fills a rounded rectangle with anti-aliased corners of radius `r`.
    pub(crate) fn fill_round_rect(&mut self, x: i32, y: i32, w: i32, h: i32, r: f32, color: Rgb) {
        self.round_rect_alpha(x, y, w, h, r, color, 1.0);
    }

    /// Blends a rounded rectangle with opacity `alpha`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn round_rect_alpha(
        &mut self,
        x: i32,
        y: i32,
        w: i32,
        h: i32,
        r: f32,
        color: Rgb,
        alpha: f32,
    ) {
        if w <= 0 || h <= 0 {
            return;
        }
        let r = r.min(w as f32 / 2.0).min(h as f32 / 2.0).max(0.0);
        let ri = r.ceil() as i32;
        // Only on-screen pixels are visited: a huge frame in a snapshot costs nothing extra.
        let (ys, ye) = (y.max(0), (y + h).min(self.img.height() as i32));
        let (xs, xe) = (x.max(0), (x + w).min(self.img.width() as i32));
        for yy in ys..ye {
            let in_corner_rows = yy < y + ri || yy >= y + h - ri;
            for xx in xs..xe {
                let cov = if in_corner_rows && (xx < x + ri || xx >= x + w - ri) {
                    let px = xx as f32 + 0.5;
                    let py = yy as f32 + 0.5;
                    let cx = if px < x as f32 + r {
                        x as f32 + r
                    } else {
                        (x + w) as f32 - r
                    };
                    let cy = if py < y as f32 + r {
                        y as f32 + r
                    } else {
                        (y + h) as f32 - r
                    };
                    let d = ((px - cx).powi(2) + (py - cy).powi(2)).sqrt();
                    (r + 0.5 - d).clamp(0.0, 1.0)
                } else {
                    1.0
                };
                if cov >= 1.0 && alpha >= 1.0 {
                    if xx >= 0
                        && yy >= 0
                        && xx < self.img.width() as i32
                        && yy < self.img.height() as i32
                    {
                        self.img.put_pixel(xx as u32, yy as u32, image::Rgb(color));
                    }
                } else {
                    self.blend(xx, yy, color, cov * alpha);
                }
            }
        }
    }

    /// A rounded rectangle with a border of `bw` pixels: the border colour, then the fill inset.
    pub(crate) fn bordered_round_rect(&mut self, f: Rect, r: f32, bw: i32, border: Rgb, fill: Rgb) {
        let (x, y, w, h) = (f.x, f.y, f.width, f.height);
        self.fill_round_rect(x, y, w, h, r, border);
        self.fill_round_rect(
            x + bw,
            y + bw,
            w - 2 * bw,
            h - 2 * bw,
            (r - bw as f32).max(0.0),
            fill,
        );
    }

    /// Fills an anti-aliased circle.
    pub(crate) fn fill_circle(&mut self, cx: f32, cy: f32, r: f32, color: Rgb) {
        let (x0, x1, y0, y1) = self.clamp_box(
            (cx - r - 1.0).floor(),
            (cx + r + 1.0).ceil(),
            (cy - r - 1.0).floor(),
            (cy + r + 1.0).ceil(),
        );
        for yy in y0..y1 {
            for xx in x0..x1 {
                let d = ((xx as f32 + 0.5 - cx).powi(2) + (yy as f32 + 0.5 - cy).powi(2)).sqrt();
                self.blend(xx, yy, color, r + 0.5 - d);
            }
        }
    }

    /// Draws an anti-aliased line of width `w` with round ends.
    pub(crate) fn line(&mut self, a: (f32, f32), b: (f32, f32), w: f32, color: Rgb) {
        let half = w / 2.0;
        let (x0, x1, y0, y1) = self.clamp_box(
            (a.0.min(b.0) - half - 1.0).floor(),
            (a.0.max(b.0) + half + 1.0).ceil(),
            (a.1.min(b.1) - half - 1.0).floor(),
            (a.1.max(b.1) + half + 1.0).ceil(),
        );
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let len2 = (dx * dx + dy * dy).max(1e-6);
        for yy in y0..y1 {
            for xx in x0..x1 {
                let px = xx as f32 + 0.5;
                let py = yy as f32 + 0.5;
                let t = (((px - a.0) * dx + (py - a.1) * dy) / len2).clamp(0.0, 1.0);
                let (qx, qy) = (a.0 + t * dx, a.1 + t * dy);
                let d = ((px - qx).powi(2) + (py - qy).powi(2)).sqrt();
                self.blend(xx, yy, color, half + 0.5 - d);
            }
        }
    }

    /// A pixel box clamped to the image (`f32 as i32` saturates, so any input is safe).
    fn clamp_box(&self, x0: f32, x1: f32, y0: f32, y1: f32) -> (i32, i32, i32, i32) {
        let (w, h) = (self.img.width() as i32, self.img.height() as i32);
        (
            (x0 as i32).clamp(0, w),
            (x1 as i32).clamp(0, w),
            (y0 as i32).clamp(0, h),
            (y1 as i32).clamp(0, h),
        )
    }

    /// Copies out a rectangle, clamped to the image (at least 1×1).
    pub(crate) fn crop(&self, x: i32, y: i32, w: i32, h: i32) -> RgbImage {
        let iw = self.img.width() as i32;
        let ih = self.img.height() as i32;
        let x0 = x.clamp(0, iw - 1);
        let y0 = y.clamp(0, ih - 1);
        let x1 = (x + w).clamp(x0 + 1, iw);
        let y1 = (y + h).clamp(y0 + 1, ih);
        image::imageops::crop_imm(
            &self.img,
            x0 as u32,
            y0 as u32,
            (x1 - x0) as u32,
            (y1 - y0) as u32,
        )
        .to_image()
    }
}

/// A colour a little darker (`f` < 1) or lighter (`f` > 1).
pub(crate) fn shade(c: Rgb, f: f32) -> Rgb {
    c.map(|v| (v as f32 * f).round().clamp(0.0, 255.0) as u8)
}

/// A stable colour for a name (FNV-1a over its bytes), for avatars and app icons.
pub(crate) fn name_color(name: &str) -> Rgb {
    const PALETTE: [Rgb; 8] = [
        [0, 122, 255],
        [52, 199, 89],
        [255, 149, 0],
        [175, 82, 222],
        [255, 59, 48],
        [90, 200, 250],
        [255, 204, 0],
        [88, 86, 214],
    ];
    PALETTE[(fnv1a64(name.as_bytes()) % PALETTE.len() as u64) as usize]
}

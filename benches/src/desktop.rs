//! A synthetic desktop screenshot: wallpaper, a menu bar with a clock, overlapping windows with
//! title bars, a sidebar, anti-aliased text and a file table with a "Delete" button per row.
//!
//! Benchmarks on noise or flat colour measure the wrong thing: a real screen is mostly flat
//! runs with anti-aliased text edges and many repeated controls. [`Desktop::render`] draws one
//! deterministically at any size, and [`Variant::After`] draws the same screen one step later
//! (clock ticked, a button hovered, a row renamed, a toast shown), so a pair differs the way
//! before/after captures of a step do: in a few small places.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use image::{Rgba, RgbaImage};

/// Which capture of the pair to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The screen before the step.
    Before,
    /// The screen after it.
    After,
}

/// The benchmark sizes: a 1x laptop, the same at 2x, and 4K.
pub const SIZES: [(u32, u32); 3] = [(1440, 900), (2880, 1800), (3840, 2160)];

/// Draws desktops; holds the parsed font.
pub struct Desktop {
    font: FontRef<'static>,
    bold: FontRef<'static>,
}

impl Default for Desktop {
    fn default() -> Self {
        Desktop::new()
    }
}

impl Desktop {
    /// Loads the embedded DejaVu fonts.
    pub fn new() -> Self {
        Desktop {
            font: FontRef::try_from_slice(dejavu::sans::regular()).expect("embedded font"),
            bold: FontRef::try_from_slice(dejavu::sans::bold()).expect("embedded font"),
        }
    }

    /// A `width × height` desktop. Sizes are scaled from a 1440×900 layout.
    pub fn render(&self, width: u32, height: u32, variant: Variant) -> RgbaImage {
        let s = height as f32 / 900.0;
        let px = |v: f32| (v * s).round() as i32;
        let mut img = RgbaImage::new(width, height);
        // Wallpaper: a smooth diagonal gradient, so "identical" pixels are not all one colour.
        for (x, y, p) in img.enumerate_pixels_mut() {
            let t = (x as f32 / width as f32 + y as f32 / height as f32) / 2.0;
            *p = Rgba([
                (40.0 + 60.0 * t) as u8,
                (70.0 + 50.0 * t) as u8,
                (120.0 + 70.0 * t) as u8,
                255,
            ]);
        }
        // Menu bar.
        fill(&mut img, 0, 0, width as i32, px(24.0), [236, 236, 236]);
        let menu_size = 13.0 * s;
        let mut x = px(14.0);
        for (i, item) in ["Finder", "File", "Edit", "View", "Go", "Window", "Help"]
            .iter()
            .enumerate()
        {
            let f = if i == 0 { &self.bold } else { &self.font };
            x += self.text(&mut img, f, item, x, px(5.0), menu_size, [20, 20, 20]) + px(18.0);
        }
        let clock = match variant {
            Variant::Before => "Tue 10:41",
            Variant::After => "Tue 10:42",
        };
        self.text(
            &mut img,
            &self.font,
            clock,
            width as i32 - px(90.0),
            px(5.0),
            menu_size,
            [20, 20, 20],
        );

        // A background window, then the file manager in front.
        self.window(
            &mut img,
            s,
            px(60.0),
            px(70.0),
            px(700.0),
            px(420.0),
            "Notes",
            false,
            variant,
        );
        self.window(
            &mut img,
            s,
            px(260.0),
            px(120.0),
            px(1000.0),
            px(700.0),
            "Invoices",
            true,
            variant,
        );

        if variant == Variant::After {
            // A notification toast in the top-right corner.
            let (tx, ty, tw, th) = (width as i32 - px(340.0), px(40.0), px(320.0), px(70.0));
            fill(&mut img, tx + px(2.0), ty + px(3.0), tw, th, [30, 30, 40]);
            rounded(
                &mut img,
                tx,
                ty,
                tw,
                th,
                px(10.0),
                [248, 248, 250],
                Some([200, 200, 205]),
            );
            self.text(
                &mut img,
                &self.bold,
                "Invoice deleted",
                tx + px(16.0),
                ty + px(14.0),
                14.0 * s,
                [20, 20, 20],
            );
            self.text(
                &mut img,
                &self.font,
                "INV-2024-0007.pdf was moved to the Bin.",
                tx + px(16.0),
                ty + px(38.0),
                12.0 * s,
                [90, 90, 90],
            );
        }
        img
    }

    #[allow(clippy::too_many_arguments)]
    fn window(
        &self,
        img: &mut RgbaImage,
        s: f32,
        x: i32,
        y: i32,
        w: i32,
        h: i32,
        title: &str,
        table: bool,
        variant: Variant,
    ) {
        let px = |v: f32| (v * s).round() as i32;
        // Shadow, frame, title bar with traffic lights.
        fill(img, x + px(4.0), y + px(6.0), w, h, [25, 30, 45]);
        rounded(
            img,
            x,
            y,
            w,
            h,
            px(10.0),
            [255, 255, 255],
            Some([190, 190, 190]),
        );
        fill(img, x + 1, y + px(10.0), w - 2, px(28.0), [232, 232, 232]);
        fill(
            img,
            x + px(10.0),
            y + 1,
            w - px(20.0),
            px(10.0),
            [232, 232, 232],
        );
        for (i, c) in [[255, 95, 87], [254, 188, 46], [40, 200, 64]]
            .iter()
            .enumerate()
        {
            disc(
                img,
                x + px(20.0 + 20.0 * i as f32),
                y + px(19.0),
                px(6.0),
                *c,
            );
        }
        let tw = self.measure(&self.bold, title, 13.0 * s);
        self.text(
            img,
            &self.bold,
            title,
            x + (w - tw) / 2,
            y + px(11.0),
            13.0 * s,
            [60, 60, 60],
        );
        // Sidebar.
        let top = y + px(38.0);
        fill(img, x + 1, top, px(180.0), h - px(39.0), [244, 244, 246]);
        for (i, item) in [
            "Recents",
            "Desktop",
            "Documents",
            "Downloads",
            "Invoices",
            "Bin",
        ]
        .iter()
        .enumerate()
        {
            let iy = top + px(14.0 + 26.0 * i as f32);
            if table && *item == "Invoices" {
                rounded(
                    img,
                    x + px(8.0),
                    iy - px(4.0),
                    px(164.0),
                    px(24.0),
                    px(5.0),
                    [210, 222, 240],
                    None,
                );
            }
            self.text(
                img,
                &self.font,
                item,
                x + px(22.0),
                iy,
                13.0 * s,
                [40, 40, 40],
            );
        }
        let cx = x + px(196.0);
        let cw = w - px(212.0);
        if !table {
            // Paragraphs of text.
            let mut ly = top + px(16.0);
            let words = "Call the accountant about the March invoices and check the totals \
                         against the bank statement before Friday";
            while ly + px(20.0) < y + h {
                self.text(img, &self.font, words, cx, ly, 13.0 * s, [30, 30, 30]);
                ly += px(22.0);
            }
            return;
        }
        // Header, then rows with a Delete button each.
        self.text(
            img,
            &self.bold,
            "Name",
            cx + px(8.0),
            top + px(12.0),
            12.0 * s,
            [90, 90, 90],
        );
        self.text(
            img,
            &self.bold,
            "Size",
            cx + px(420.0),
            top + px(12.0),
            12.0 * s,
            [90, 90, 90],
        );
        self.text(
            img,
            &self.bold,
            "Modified",
            cx + px(520.0),
            top + px(12.0),
            12.0 * s,
            [90, 90, 90],
        );
        fill(img, cx, top + px(34.0), cw, 1.max(px(1.0)), [220, 220, 220]);
        let row_h = px(34.0);
        let mut ry = top + px(40.0);
        let mut i = 0;
        while ry + row_h < y + h - px(8.0) {
            if i % 2 == 1 {
                fill(img, cx, ry, cw, row_h, [246, 247, 249]);
            }
            let name = if variant == Variant::After && i == 3 {
                "INV-2024-0004 (paid).pdf".to_string()
            } else {
                format!("INV-2024-{:04}.pdf", i + 1)
            };
            let ty = ry + px(9.0);
            self.text(
                img,
                &self.font,
                &name,
                cx + px(8.0),
                ty,
                13.0 * s,
                [30, 30, 30],
            );
            self.text(
                img,
                &self.font,
                &format!("{} KB", 40 + (i * 37) % 300),
                cx + px(420.0),
                ty,
                13.0 * s,
                [90, 90, 90],
            );
            self.text(
                img,
                &self.font,
                &format!("Mar {}, 2024", 1 + i % 28),
                cx + px(520.0),
                ty,
                13.0 * s,
                [90, 90, 90],
            );
            let (bx, by, bw, bh) = (cx + cw - px(90.0), ry + px(5.0), px(76.0), px(24.0));
            let hovered = variant == Variant::After && i == 6;
            let fill_c = if hovered {
                [225, 60, 60]
            } else {
                [250, 250, 250]
            };
            let text_c = if hovered {
                [255, 255, 255]
            } else {
                [200, 40, 40]
            };
            rounded(img, bx, by, bw, bh, px(6.0), fill_c, Some([205, 205, 205]));
            let dw = self.measure(&self.font, "Delete", 13.0 * s);
            self.text(
                img,
                &self.font,
                "Delete",
                bx + (bw - dw) / 2,
                by + px(4.0),
                13.0 * s,
                text_c,
            );
            ry += row_h;
            i += 1;
        }
    }

    fn measure(&self, font: &FontRef<'static>, text: &str, size: f32) -> i32 {
        let f = font.as_scaled(PxScale::from(size));
        text.chars()
            .map(|c| f.h_advance(f.glyph_id(c)))
            .sum::<f32>()
            .round() as i32
    }

    /// Draws anti-aliased text with its top-left at `(x, y)`; returns the advance width.
    #[allow(clippy::too_many_arguments)]
    fn text(
        &self,
        img: &mut RgbaImage,
        font: &FontRef<'static>,
        text: &str,
        x: i32,
        y: i32,
        size: f32,
        color: [u8; 3],
    ) -> i32 {
        let f = font.as_scaled(PxScale::from(size));
        let mut caret = x as f32;
        let baseline = y as f32 + f.ascent();
        for c in text.chars() {
            let mut g = f.scaled_glyph(c);
            g.position = point(caret, baseline);
            caret += f.h_advance(g.id);
            if let Some(outline) = font.outline_glyph(g) {
                let b = outline.px_bounds();
                outline.draw(|gx, gy, cov| {
                    let (px, py) = (b.min.x as i32 + gx as i32, b.min.y as i32 + gy as i32);
                    blend(img, px, py, color, cov);
                });
            }
        }
        (caret - x as f32).round() as i32
    }
}

fn blend(img: &mut RgbaImage, x: i32, y: i32, c: [u8; 3], a: f32) {
    if x < 0 || y < 0 || x >= img.width() as i32 || y >= img.height() as i32 {
        return;
    }
    let p = img.get_pixel_mut(x as u32, y as u32);
    let a = a.clamp(0.0, 1.0);
    for (dst, &src) in p.0.iter_mut().zip(&c) {
        *dst = (f32::from(*dst) * (1.0 - a) + f32::from(src) * a).round() as u8;
    }
}

fn fill(img: &mut RgbaImage, x: i32, y: i32, w: i32, h: i32, c: [u8; 3]) {
    let (iw, ih) = (img.width() as i32, img.height() as i32);
    for yy in y.max(0)..(y + h).min(ih) {
        for xx in x.max(0)..(x + w).min(iw) {
            img.put_pixel(xx as u32, yy as u32, Rgba([c[0], c[1], c[2], 255]));
        }
    }
}

fn disc(img: &mut RgbaImage, cx: i32, cy: i32, r: i32, c: [u8; 3]) {
    for y in cy - r - 1..=cy + r + 1 {
        for x in cx - r - 1..=cx + r + 1 {
            let d = (((x - cx) * (x - cx) + (y - cy) * (y - cy)) as f32).sqrt();
            blend(img, x, y, c, r as f32 + 0.5 - d);
        }
    }
}

/// A rounded rectangle with anti-aliased corners and an optional one-pixel border.
#[allow(clippy::too_many_arguments)]
fn rounded(
    img: &mut RgbaImage,
    x: i32,
    y: i32,
    w: i32,
    h: i32,
    r: i32,
    c: [u8; 3],
    border: Option<[u8; 3]>,
) {
    let rf = r as f32;
    for yy in y..y + h {
        for xx in x..x + w {
            // Distance outside the rounded shape (negative inside).
            let qx = (xx as f32 + 0.5 - x as f32).min(x as f32 + w as f32 - xx as f32 - 0.5);
            let qy = (yy as f32 + 0.5 - y as f32).min(y as f32 + h as f32 - yy as f32 - 0.5);
            let d = if qx < rf && qy < rf {
                rf - ((rf - qx).powi(2) + (rf - qy).powi(2)).sqrt()
            } else {
                qx.min(qy)
            };
            let cov = d.clamp(0.0, 1.0);
            if cov <= 0.0 {
                continue;
            }
            match border {
                Some(b) if d < 1.0 => blend(img, xx, yy, b, cov),
                _ => blend(img, xx, yy, c, cov),
            }
        }
    }
}

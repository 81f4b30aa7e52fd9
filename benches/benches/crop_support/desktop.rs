//! Desktop-like screens for the crop benches: a wallpaper, a dock, a file manager whose table
//! rows each end in an identical "Delete" button, and an editor full of anti-aliased text.
//! Deterministic: the same size and scale always paint the same pixels.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use image::{Rgba, RgbaImage};

/// A painted screen and the places of interest on it.
pub struct Desktop {
    /// The screen.
    pub image: RgbaImage,
    /// Top-left corners of the table's "Delete" buttons, top to bottom.
    pub delete_buttons: Vec<(u32, u32)>,
    /// Size of one "Delete" button.
    pub button_size: (u32, u32),
    /// Top-left corner and size of a control that appears once (the "Export…" button).
    pub unique: (u32, u32, u32, u32),
}

struct Painter<'a> {
    img: &'a mut RgbaImage,
    font: FontRef<'static>,
}

impl Painter<'_> {
    fn fill(&mut self, x: u32, y: u32, w: u32, h: u32, c: [u8; 3]) {
        let (x1, y1) = (
            (x + w).min(self.img.width()),
            (y + h).min(self.img.height()),
        );
        for yy in y..y1 {
            for xx in x..x1 {
                self.img.put_pixel(xx, yy, Rgba([c[0], c[1], c[2], 255]));
            }
        }
    }

    fn text(&mut self, x: u32, y: u32, px: f32, s: &str, c: [u8; 3]) -> u32 {
        let scaled = self.font.as_scaled(PxScale::from(px));
        let mut caret = x as f32;
        for ch in s.chars() {
            let mut glyph = scaled.scaled_glyph(ch);
            glyph.position = point(caret, y as f32 + scaled.ascent());
            caret += scaled.h_advance(glyph.id);
            let Some(outlined) = self.font.outline_glyph(glyph) else {
                continue;
            };
            let b = outlined.px_bounds();
            let img = &mut *self.img;
            outlined.draw(|gx, gy, cov| {
                let (px_, py_) = (
                    b.min.x as i64 + i64::from(gx),
                    b.min.y as i64 + i64::from(gy),
                );
                if px_ < 0
                    || py_ < 0
                    || px_ >= i64::from(img.width())
                    || py_ >= i64::from(img.height())
                {
                    return;
                }
                let p = img.get_pixel_mut(px_ as u32, py_ as u32);
                for k in 0..3 {
                    p[k] = (f32::from(p[k]) * (1.0 - cov) + f32::from(c[k]) * cov).round() as u8;
                }
            });
        }
        caret as u32
    }

    fn button(&mut self, x: u32, y: u32, s: u32, w: u32, label: &str, face: [u8; 3]) {
        let h = 22 * s;
        self.fill(x, y, w, h, [150, 150, 158]);
        self.fill(x + s, y + s, w - 2 * s, h - 2 * s, face);
        self.text(x + 9 * s, y + 4 * s, 12.5 * s as f32, label, [25, 25, 30]);
    }
}

/// Paints a `w`×`h` desktop at UI scale `s` (1 for 1440×900, 2 for HiDPI screens).
pub fn paint(w: u32, h: u32, s: u32) -> Desktop {
    let mut image = RgbaImage::new(w, h);
    for (y, row) in image.rows_mut().enumerate() {
        let t = y as f32 / h as f32;
        for p in row {
            *p = Rgba([
                (40.0 + 30.0 * t) as u8,
                (90.0 + 20.0 * t) as u8,
                (150.0 - 30.0 * t) as u8,
                255,
            ]);
        }
    }
    let font = FontRef::try_from_slice(dejavu::sans::regular()).expect("DejaVu parses");
    let mut p = Painter {
        img: &mut image,
        font,
    };

    // Menu bar and dock.
    p.fill(0, 0, w, 24 * s, [236, 236, 236]);
    let mut x = 12 * s;
    for item in ["Finder", "File", "Edit", "View", "Go", "Window", "Help"] {
        x = p.text(x, 5 * s, 13.0 * s as f32, item, [20, 20, 20]) + 18 * s;
    }
    let dock_y = h - 60 * s;
    p.fill(w / 4, dock_y, w / 2, 56 * s, [210, 215, 222]);
    let mut ix = w / 4 + 8 * s;
    let mut k = 0u32;
    while ix + 48 * s < w * 3 / 4 {
        let c = [
            (60 + 37 * k % 180) as u8,
            (80 + 53 * k % 160) as u8,
            (120 + 29 * k % 130) as u8,
        ];
        p.fill(ix, dock_y + 4 * s, 48 * s, 48 * s, c);
        ix += 56 * s;
        k += 1;
    }

    // File manager: toolbar with a unique "Export…" button, then the table.
    let (fx, fy, fw, fh) = (40 * s, 50 * s, w * 11 / 20, dock_y - 70 * s);
    p.fill(fx - s, fy - s, fw + 2 * s, fh + 2 * s, [120, 120, 120]);
    p.fill(fx, fy, fw, fh, [250, 250, 250]);
    p.fill(fx, fy, fw, 28 * s, [222, 222, 226]);
    p.text(
        fx + 70 * s,
        fy + 6 * s,
        13.0 * s as f32,
        "Documents — Files",
        [30, 30, 30],
    );
    for (i, c) in [[255, 95, 86], [255, 189, 46], [39, 201, 63]]
        .into_iter()
        .enumerate()
    {
        p.fill(fx + (10 + 18 * i as u32) * s, fy + 9 * s, 11 * s, 11 * s, c);
    }
    let ty = fy + 32 * s;
    p.button(fx + 10 * s, ty, s, 60 * s, "New", [240, 240, 244]);
    p.button(fx + 80 * s, ty, s, 76 * s, "Export…", [240, 240, 244]);
    let unique = (fx + 80 * s, ty, 76 * s, 22 * s);
    p.button(fx + 166 * s, ty, s, 64 * s, "Share", [240, 240, 244]);
    let names = [
        "Quarterly report.pdf",
        "notes.txt",
        "holiday-photo.png",
        "budget 2026.xlsx",
        "draft-chapter-3.md",
        "song.mp3",
        "invoice_0042.pdf",
        "Screenshot 12.png",
    ];
    let button_size = (64 * s, 22 * s);
    let mut delete_buttons = Vec::new();
    let row_h = 30 * s;
    let mut y = ty + 34 * s;
    let mut i = 0usize;
    while y + row_h < fy + fh {
        if i % 2 == 1 {
            p.fill(fx, y, fw, row_h, [244, 246, 250]);
        }
        p.text(
            fx + 12 * s,
            y + 7 * s,
            13.0 * s as f32,
            names[i % names.len()],
            [35, 35, 35],
        );
        let size = format!("{} KB", 13 + 7 * i * i % 900);
        p.text(fx + fw / 2, y + 7 * s, 13.0 * s as f32, &size, [90, 90, 90]);
        let date = format!("2026-0{}-{:02}", 1 + i % 9, 1 + 3 * i % 28);
        p.text(
            fx + fw * 2 / 3,
            y + 7 * s,
            13.0 * s as f32,
            &date,
            [90, 90, 90],
        );
        let bx = fx + fw - 80 * s;
        p.button(bx, y + 4 * s, s, button_size.0, "Delete", [238, 238, 242]);
        delete_buttons.push((bx, y + 4 * s));
        y += row_h;
        i += 1;
    }

    // Editor: paragraphs of text.
    let (ex, ey, ew, eh) = (
        fx + fw + 30 * s,
        80 * s,
        w - (fx + fw + 60 * s),
        dock_y - 110 * s,
    );
    p.fill(ex - s, ey - s, ew + 2 * s, eh + 2 * s, [120, 120, 120]);
    p.fill(ex, ey, ew, eh, [255, 255, 255]);
    p.fill(ex, ey, ew, 28 * s, [222, 222, 226]);
    p.text(
        ex + 12 * s,
        ey + 6 * s,
        13.0 * s as f32,
        "README.md — Editor",
        [30, 30, 30],
    );
    let words = [
        "the", "replay", "harness", "finds", "each", "control", "on", "a", "recorded", "screen",
        "and", "checks", "what", "changed", "after", "every", "step", "of", "plan",
    ];
    let mut ly = ey + 40 * s;
    let mut n = 0usize;
    while ly + 18 * s < ey + eh {
        let mut lx = ex + 12 * s;
        while lx + 80 * s < ex + ew {
            let word = words[(n * 7 + n / 3) % words.len()];
            lx = p.text(lx, ly, 13.0 * s as f32, word, [40, 40, 40]) + 5 * s;
            n += 1;
        }
        ly += 19 * s;
    }
    Desktop {
        image,
        delete_buttons,
        button_size,
        unique,
    }
}

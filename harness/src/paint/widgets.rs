//! How each kind of control looks: [`draw_all`] draws an element tree, one function per role.
//!
//! Drawing reads only the AX element (role, subrole, name, value, placeholder, state), so what
//! the screenshot shows and what the tree says cannot drift apart.

use super::canvas::{Canvas, Rgb, name_color};
use super::font::{self, Weight};
use crate::fnv::fnv1a64;
use crate::recording::ax::{Element, Rect};

const TEXT: Rgb = [28, 28, 30];
const DIM: Rgb = [150, 150, 155];
const BORDER: Rgb = [196, 196, 200];
const ACCENT: Rgb = [0, 122, 255];
const WHITE: Rgb = [255, 255, 255];

/// Draws elements and their children, parents first.
pub(crate) fn draw_all(c: &mut Canvas, elements: &[Element], s: f32) {
    for e in elements {
        draw(c, e, s);
        draw_all(c, &e.children, s);
    }
}

fn name(e: &Element) -> &str {
    e.title
        .as_deref()
        .or(e.description.as_deref())
        .unwrap_or("")
}

fn draw(c: &mut Canvas, e: &Element, s: f32) {
    let sub = e.subrole.as_deref();
    match (e.ax_role.as_str(), sub) {
        ("AXButton", _) => button(c, e, s),
        ("AXTextField", Some("AXSearchField")) => field(c, e, s, true),
        ("AXTextField" | "AXComboBox", _) => field(c, e, s, false),
        ("AXTextArea", _) => area(c, e, s),
        ("AXCheckBox", Some("AXSwitch")) => switch(c, e, s),
        ("AXCheckBox", _) => checkbox(c, e, s, false),
        ("AXRadioButton", _) => checkbox(c, e, s, true),
        ("AXPopUpButton", _) => popup(c, e, s),
        ("AXStaticText", Some("AXCalendarEvent")) => event(c, e, s),
        ("AXStaticText", _) => label(c, e, s, 13.0, Weight::Regular, TEXT),
        ("AXHeading", _) => label(c, e, s, 20.0, Weight::Bold, TEXT),
        ("AXLink", _) => link(c, e, s),
        ("AXList" | "AXTable", _) => {
            let f = e.frame;
            c.bordered_round_rect(f, 4.0 * s, s as i32, BORDER, WHITE);
        }
        ("AXOutline", _) => {
            let f = e.frame;
            c.fill_rect(f.x, f.y, f.width, f.height, [236, 236, 240]);
        }
        ("AXRow", _) => row(c, e, s),
        ("AXMenuItem", _) => menu_item(c, e, s),
        ("AXMenuBarItem", _) => {
            let f = e.frame;
            let w = if e.selected {
                Weight::Bold
            } else {
                Weight::Regular
            };
            if e.selected {
                c.round_rect_alpha(
                    f.x,
                    f.y + 2,
                    f.width,
                    f.height - 4,
                    4.0 * s,
                    [0, 0, 0],
                    0.12,
                );
            }
            font::draw_centered(
                c,
                f.x as f32,
                f.y as f32,
                f.width as f32,
                f.height as f32,
                name(e),
                13.0 * s,
                w,
                TEXT,
            );
        }
        ("AXGroup", Some("AXCalendarGrid")) => grid(c, e, s),
        ("AXGroup", _) => {
            let f = e.frame;
            c.bordered_round_rect(f, 8.0 * s, s as i32, [226, 226, 230], [255, 255, 255]);
        }
        ("AXImage", _) => {
            let f = e.frame;
            let n = name(e);
            let r = f.width.min(f.height) as f32 / 2.0;
            c.fill_circle(f.x as f32 + r, f.y as f32 + r, r, name_color(n));
            let initial: String = n.chars().take(1).collect();
            font::draw_centered(
                c,
                f.x as f32,
                f.y as f32,
                2.0 * r,
                2.0 * r,
                &initial,
                r * 1.1,
                Weight::Bold,
                WHITE,
            );
        }
        ("AXWebArea", _) => {
            let f = e.frame;
            c.fill_rect(f.x, f.y, f.width, f.height, WHITE);
        }
        _ => {}
    }
}

fn button(c: &mut Canvas, e: &Element, s: f32) {
    let f = e.frame;
    let n = name(e);
    if n.trim().is_empty() {
        // A nameless icon button: a symbol chosen by id, so each looks different but stable.
        const ICONS: [&str; 6] = ["✎", "★", "⚙", "+", "⋯", "✉"];
        let icon = ICONS[(fnv1a64(e.id.as_bytes()) % ICONS.len() as u64) as usize];
        c.round_rect_alpha(f.x, f.y, f.width, f.height, 5.0 * s, [0, 0, 0], 0.06);
        let size = f.height.min(f.width) as f32 * 0.62;
        font::draw_centered(
            c,
            f.x as f32,
            f.y as f32,
            f.width as f32,
            f.height as f32,
            icon,
            size,
            Weight::Regular,
            [80, 80, 88],
        );
        return;
    }
    let (fill, text, border) = if e.selected {
        (ACCENT, WHITE, [0, 100, 220])
    } else {
        (WHITE, TEXT, BORDER)
    };
    let text = if e.enabled { text } else { DIM };
    c.bordered_round_rect(f, 5.0 * s, s as i32, border, fill);
    font::draw_centered(
        c,
        f.x as f32,
        f.y as f32,
        f.width as f32,
        f.height as f32,
        n,
        13.0 * s,
        Weight::Regular,
        text,
    );
}

fn focus_ring(c: &mut Canvas, e: &Element, s: f32, r: f32) {
    let f = e.frame;
    let g = (3.0 * s) as i32;
    c.round_rect_alpha(
        f.x - g,
        f.y - g,
        f.width + 2 * g,
        f.height + 2 * g,
        r + g as f32,
        ACCENT,
        0.35,
    );
}

fn field(c: &mut Canvas, e: &Element, s: f32, search: bool) {
    let f = e.frame;
    let r = if search {
        f.height as f32 / 2.0
    } else {
        4.0 * s
    };
    if e.focused {
        focus_ring(c, e, s, r);
    }
    let fill = if e.enabled { WHITE } else { [244, 244, 246] };
    c.bordered_round_rect(f, r, s as i32, BORDER, fill);
    let mut x = f.x as f32 + 7.0 * s;
    let cy = f.y as f32 + f.height as f32 / 2.0;
    if search {
        let rr = 4.5 * s;
        let (mx, my) = (x + rr + s, cy - s);
        c.fill_circle(mx, my, rr, DIM);
        c.fill_circle(mx, my, rr - 1.5 * s, WHITE);
        c.line(
            (mx + rr * 0.7, my + rr * 0.7),
            (mx + rr * 1.6, my + rr * 1.6),
            1.6 * s,
            DIM,
        );
        x += 16.0 * s;
    }
    let max = f.x as f32 + f.width as f32 - x - 6.0 * s;
    let value = e.value.as_deref().unwrap_or("");
    let w = if value.is_empty() {
        if let Some(p) = &e.placeholder {
            font::draw_line(c, x, cy, p, 13.0 * s, Weight::Regular, DIM, max);
        }
        0.0
    } else {
        font::draw_line(c, x, cy, value, 13.0 * s, Weight::Regular, TEXT, max)
    };
    if e.focused {
        let cx = (x + w + s).min(x + max);
        c.fill_rect(
            cx as i32,
            (cy - 8.0 * s) as i32,
            s as i32,
            (16.0 * s) as i32,
            TEXT,
        );
    }
}

fn area(c: &mut Canvas, e: &Element, s: f32) {
    let f = e.frame;
    if e.focused {
        focus_ring(c, e, s, 4.0 * s);
    }
    c.bordered_round_rect(f, 4.0 * s, s as i32, BORDER, WHITE);
    let size = 13.0 * s;
    let line_h = 18.0 * s;
    let max = f.width as f32 - 16.0 * s;
    let (text, color) = match e.value.as_deref().filter(|v| !v.is_empty()) {
        Some(v) => (v, TEXT),
        None => (e.placeholder.as_deref().unwrap_or(""), DIM),
    };
    let mut y = f.y as f32 + 8.0 * s + line_h / 2.0;
    for line in font::wrap(text, size, Weight::Regular, max) {
        if y + line_h / 2.0 > (f.y + f.height) as f32 {
            break;
        }
        font::draw_line(
            c,
            f.x as f32 + 8.0 * s,
            y,
            &line,
            size,
            Weight::Regular,
            color,
            max,
        );
        y += line_h;
    }
}

fn checkbox(c: &mut Canvas, e: &Element, s: f32, radio: bool) {
    let f = e.frame;
    let on = e.value.as_deref() == Some("1") || e.selected;
    let b = (14.0 * s) as i32;
    let by = f.y + (f.height - b) / 2;
    if radio {
        let r = b as f32 / 2.0;
        let (cx, cy) = (f.x as f32 + r, by as f32 + r);
        c.fill_circle(cx, cy, r, if on { ACCENT } else { BORDER });
        c.fill_circle(cx, cy, r - s, if on { ACCENT } else { WHITE });
        if on {
            c.fill_circle(cx, cy, r * 0.4, WHITE);
        }
    } else if on {
        c.fill_round_rect(f.x, by, b, b, 3.0 * s, ACCENT);
        let (x, y, u) = (f.x as f32, by as f32, b as f32);
        c.line(
            (x + u * 0.25, y + u * 0.52),
            (x + u * 0.43, y + u * 0.72),
            1.8 * s,
            WHITE,
        );
        c.line(
            (x + u * 0.43, y + u * 0.72),
            (x + u * 0.76, y + u * 0.3),
            1.8 * s,
            WHITE,
        );
    } else {
        let bx = Rect {
            y: by,
            width: b,
            height: b,
            ..f
        };
        c.bordered_round_rect(bx, 3.0 * s, s as i32, [160, 160, 166], WHITE);
    }
    let x = f.x as f32 + b as f32 + 7.0 * s;
    let color = if e.enabled { TEXT } else { DIM };
    font::draw_line(
        c,
        x,
        f.y as f32 + f.height as f32 / 2.0,
        name(e),
        13.0 * s,
        Weight::Regular,
        color,
        (f.x + f.width) as f32 - x,
    );
}

fn switch(c: &mut Canvas, e: &Element, s: f32) {
    let f = e.frame;
    let on = e.value.as_deref() == Some("1");
    let (w, h) = ((32.0 * s) as i32, (18.0 * s) as i32);
    let x = f.x + f.width - w;
    let y = f.y + (f.height - h) / 2;
    c.fill_round_rect(
        x,
        y,
        w,
        h,
        h as f32 / 2.0,
        if on { [52, 199, 89] } else { [214, 214, 218] },
    );
    let r = h as f32 / 2.0 - 1.5 * s;
    let cx = if on {
        (x + w) as f32 - h as f32 / 2.0
    } else {
        x as f32 + h as f32 / 2.0
    };
    c.fill_circle(cx, y as f32 + h as f32 / 2.0, r, WHITE);
}

fn popup(c: &mut Canvas, e: &Element, s: f32) {
    let f = e.frame;
    c.bordered_round_rect(f, 5.0 * s, s as i32, BORDER, WHITE);
    let cy = f.y as f32 + f.height as f32 / 2.0;
    let text = e.value.as_deref().or(e.title.as_deref()).unwrap_or("");
    font::draw_line(
        c,
        f.x as f32 + 8.0 * s,
        cy,
        text,
        13.0 * s,
        Weight::Regular,
        TEXT,
        f.width as f32 - 34.0 * s,
    );
    let bx = (f.x + f.width) as f32 - 20.0 * s;
    c.fill_round_rect(
        bx as i32,
        f.y + 3 * s as i32,
        (16.0 * s) as i32,
        f.height - 6 * s as i32,
        4.0 * s,
        ACCENT,
    );
    let (mx, w) = (bx + 8.0 * s, 3.5 * s);
    c.line((mx - w, cy - 2.5 * s), (mx, cy - 5.5 * s), 1.4 * s, WHITE);
    c.line((mx, cy - 5.5 * s), (mx + w, cy - 2.5 * s), 1.4 * s, WHITE);
    c.line((mx - w, cy + 2.5 * s), (mx, cy + 5.5 * s), 1.4 * s, WHITE);
    c.line((mx, cy + 5.5 * s), (mx + w, cy + 2.5 * s), 1.4 * s, WHITE);
}

fn label(c: &mut Canvas, e: &Element, s: f32, size: f32, weight: Weight, color: Rgb) {
    let f = e.frame;
    let text = e.value.as_deref().unwrap_or("");
    let size = size * s;
    let line_h = size * 1.35;
    let color = if e.enabled { color } else { DIM };
    if f.height as f32 >= 2.0 * line_h {
        let mut y = f.y as f32 + line_h / 2.0;
        for line in font::wrap(text, size, weight, f.width as f32) {
            if y > (f.y + f.height) as f32 {
                break;
            }
            font::draw_line(c, f.x as f32, y, &line, size, weight, color, f.width as f32);
            y += line_h;
        }
    } else {
        font::draw_line(
            c,
            f.x as f32,
            f.y as f32 + f.height as f32 / 2.0,
            text,
            size,
            weight,
            color,
            f.width as f32,
        );
    }
}

fn link(c: &mut Canvas, e: &Element, s: f32) {
    let f = e.frame;
    let cy = f.y as f32 + f.height as f32 / 2.0;
    let w = font::draw_line(
        c,
        f.x as f32,
        cy,
        name(e),
        13.0 * s,
        Weight::Regular,
        ACCENT,
        f.width as f32,
    );
    c.fill_rect(f.x, (cy + 7.0 * s) as i32, w as i32, s as i32, ACCENT);
}

fn row(c: &mut Canvas, e: &Element, s: f32) {
    let f = e.frame;
    let (text, detail) = if e.selected {
        c.fill_round_rect(
            f.x + 2 * s as i32,
            f.y + s as i32,
            f.width - 4 * s as i32,
            f.height - 2 * s as i32,
            5.0 * s,
            ACCENT,
        );
        (WHITE, [225, 235, 255])
    } else {
        c.fill_rect(
            f.x + (10.0 * s) as i32,
            f.y + f.height - s as i32,
            f.width - (20.0 * s) as i32,
            s as i32,
            [232, 232, 236],
        );
        (TEXT, [120, 120, 128])
    };
    let cy = f.y as f32 + f.height as f32 / 2.0;
    let mut right = (f.x + f.width) as f32 - 10.0 * s;
    if let Some(v) = e.value.as_deref().filter(|v| !v.is_empty()) {
        let size = 12.0 * s;
        let t = font::ellipsize(v, size, Weight::Regular, f.width as f32 / 2.0);
        let w = font::measure(&t, size, Weight::Regular);
        right -= w;
        font::draw_line(c, right, cy, &t, size, Weight::Regular, detail, w + 1.0);
        right -= 10.0 * s;
    }
    let x = f.x as f32 + 12.0 * s;
    font::draw_line(
        c,
        x,
        cy,
        name(e),
        13.0 * s,
        Weight::Regular,
        text,
        right - x,
    );
}

fn menu_item(c: &mut Canvas, e: &Element, s: f32) {
    let f = e.frame;
    let n = name(e);
    if n.is_empty() {
        c.fill_rect(
            f.x + (10.0 * s) as i32,
            f.y + f.height / 2,
            f.width - (20.0 * s) as i32,
            s as i32,
            [215, 215, 220],
        );
        return;
    }
    let color = if e.selected {
        c.fill_round_rect(
            f.x + (5.0 * s) as i32,
            f.y,
            f.width - (10.0 * s) as i32,
            f.height,
            4.0 * s,
            ACCENT,
        );
        WHITE
    } else if e.enabled {
        TEXT
    } else {
        DIM
    };
    font::draw_line(
        c,
        f.x as f32 + 16.0 * s,
        f.y as f32 + f.height as f32 / 2.0,
        n,
        13.0 * s,
        Weight::Regular,
        color,
        f.width as f32 - 24.0 * s,
    );
}

fn event(c: &mut Canvas, e: &Element, s: f32) {
    let f = e.frame;
    let base = name_color(e.value.as_deref().unwrap_or(""));
    let light: Rgb = std::array::from_fn(|i| ((base[i] as u16 + 3 * 255) / 4) as u8);
    c.fill_round_rect(
        f.x,
        f.y,
        f.width,
        f.height,
        4.0 * s,
        if e.selected { base } else { light },
    );
    c.fill_rect(
        f.x,
        f.y + (2.0 * s) as i32,
        (3.0 * s) as i32,
        f.height - (4.0 * s) as i32,
        base,
    );
    let color = if e.selected { WHITE } else { TEXT };
    font::draw_line(
        c,
        f.x as f32 + 7.0 * s,
        f.y as f32 + 11.0 * s,
        e.value.as_deref().unwrap_or(""),
        12.0 * s,
        Weight::Bold,
        color,
        f.width as f32 - 10.0 * s,
    );
}

fn grid(c: &mut Canvas, e: &Element, s: f32) {
    let f = e.frame;
    c.fill_rect(f.x, f.y, f.width, f.height, WHITE);
    let (cols, rows) = e
        .value
        .as_deref()
        .and_then(|v| v.split_once('x'))
        .and_then(|(a, b)| Some((a.parse::<i32>().ok()?, b.parse::<i32>().ok()?)))
        .unwrap_or((7, 10));
    let line: Rgb = [226, 226, 230];
    for i in 0..=cols.max(1) {
        let x = f.x + i * (f.width - s as i32) / cols.max(1);
        c.fill_rect(x, f.y, s as i32, f.height, line);
    }
    for j in 0..=rows.max(1) {
        let y = f.y + j * (f.height - s as i32) / rows.max(1);
        c.fill_rect(f.x, y, f.width, s as i32, line);
    }
}

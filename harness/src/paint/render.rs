//! AX snapshot → screenshot: [`render`] draws the desktop a snapshot describes.
//!
//! It is a pure function of the snapshot and the screen, so a perturbed snapshot (moved
//! window, re-cased label, 2x scale) can be re-drawn the same way. Layers, back to front: the
//! desktop background, the dock, every window (apps behind the frontmost first, each app's
//! windows back to front), the menu bar, then open menus.

use image::RgbImage;

use super::canvas::{Canvas, Rgb, name_color, shade};
use super::font::{self, Weight};
use super::widgets;
use crate::recording::ax::{AxSnapshot, Window};
use crate::recording::format::Screen;

/// Desktop background, top and bottom of a vertical gradient.
const SKY_TOP: Rgb = [38, 76, 140];
const SKY_BOTTOM: Rgb = [124, 92, 160];

/// Draws the snapshot at the screen's size and scale.
pub fn render(ax: &AxSnapshot, screen: &Screen) -> RgbImage {
    let ax = &clamped(ax, screen);
    let s = screen.scale.max(1) as f32;
    let mut c = Canvas::new(screen.width, screen.height, SKY_TOP);
    background(&mut c);
    dock(&mut c, ax, s);

    let front_app = ax.apps.iter().position(|a| a.frontmost).unwrap_or(0);
    let mut order: Vec<usize> = (0..ax.apps.len()).filter(|&a| a != front_app).collect();
    order.reverse();
    if front_app < ax.apps.len() {
        order.push(front_app);
    }
    let is_overlay = |w: &Window| matches!(w.kind.as_deref(), Some("menu") | Some("menubar"));
    for &a in &order {
        let wins: Vec<&Window> = ax.apps[a]
            .windows
            .iter()
            .filter(|w| !is_overlay(w))
            .collect();
        for (i, w) in wins.iter().enumerate().rev() {
            // A window showing a focused sheet still looks active, as on a real desktop.
            let under_sheet =
                i > 0 && wins[i - 1].focused && wins[i - 1].kind.as_deref() == Some("sheet");
            window(&mut c, w, w.focused || under_sheet, s);
        }
    }
    let app = ax.apps.get(front_app);
    let bar = app.and_then(|a| {
        a.windows
            .iter()
            .find(|w| w.kind.as_deref() == Some("menubar"))
    });
    menu_bar(
        &mut c,
        app.map(|a| a.name.as_str()).unwrap_or("Finder"),
        bar,
        s,
    );
    for &a in &order {
        for w in ax.apps[a]
            .windows
            .iter()
            .rev()
            .filter(|w| w.kind.as_deref() == Some("menu"))
        {
            menu(&mut c, w, s);
        }
    }
    c.img
}

/// A copy with every frame kept within a few screens of the visible area, so drawing
/// arithmetic cannot overflow on a hostile or perturbed snapshot (nothing visible changes).
fn clamped(ax: &AxSnapshot, screen: &Screen) -> AxSnapshot {
    let lim = (screen.width.max(screen.height).min(1 << 20) as i32) * 4;
    let fix = |r: &mut crate::recording::ax::Rect| {
        let x0 = r.x.clamp(-lim, lim);
        let y0 = r.y.clamp(-lim, lim);
        let x1 = r.x.saturating_add(r.width.max(0)).clamp(-lim, lim);
        let y1 = r.y.saturating_add(r.height.max(0)).clamp(-lim, lim);
        *r = crate::recording::ax::Rect::new(x0, y0, x1 - x0, y1 - y0);
    };
    fn walk(e: &mut crate::recording::ax::Element, fix: &dyn Fn(&mut crate::recording::ax::Rect)) {
        fix(&mut e.frame);
        for c in &mut e.children {
            walk(c, fix);
        }
    }
    let mut ax = ax.clone();
    for app in &mut ax.apps {
        for w in &mut app.windows {
            fix(&mut w.frame);
            for e in &mut w.elements {
                walk(e, &fix);
            }
        }
    }
    ax
}

fn background(c: &mut Canvas) {
    let (w, h) = (c.img.width() as i32, c.img.height() as i32);
    for y in 0..h {
        let t = y as f32 / h.max(1) as f32;
        let col: Rgb = std::array::from_fn(|i| {
            (SKY_TOP[i] as f32 + (SKY_BOTTOM[i] as f32 - SKY_TOP[i] as f32) * t).round() as u8
        });
        c.fill_rect(0, y, w, 1, col);
    }
}

fn dock(c: &mut Canvas, ax: &AxSnapshot, s: f32) {
    let n = ax.apps.len().max(1) as i32 + 2;
    let icon = (48.0 * s) as i32;
    let gap = (10.0 * s) as i32;
    let w = n * icon + (n + 1) * gap;
    let h = icon + 2 * gap;
    let x = (c.img.width() as i32 - w) / 2;
    let y = c.img.height() as i32 - h - (6.0 * s) as i32;
    c.round_rect_alpha(x, y, w, h, 16.0 * s, [235, 235, 245], 0.55);
    let mut names: Vec<&str> = vec!["Finder"];
    names.extend(ax.apps.iter().map(|a| a.name.as_str()));
    names.push("Settings");
    for (i, name) in names.iter().take(n as usize).enumerate() {
        let ix = x + gap + i as i32 * (icon + gap);
        let col = name_color(name);
        c.fill_round_rect(ix, y + gap, icon, icon, 11.0 * s, col);
        let initial: String = name.chars().take(1).collect();
        font::draw_centered(
            c,
            ix as f32,
            (y + gap) as f32,
            icon as f32,
            icon as f32,
            &initial,
            24.0 * s,
            Weight::Bold,
            [255, 255, 255],
        );
    }
}

fn menu_bar(c: &mut Canvas, app: &str, bar: Option<&Window>, s: f32) {
    let h = (24.0 * s) as i32;
    let w = c.img.width() as i32;
    c.shade_rect(0, 0, w, h, [246, 246, 250], 0.85);
    let cy = h as f32 / 2.0;
    let size = 13.0 * s;
    // The logo: a plain dot; the real one is a trademark.
    c.fill_circle(20.0 * s, cy, 6.0 * s, [30, 30, 30]);
    match bar {
        Some(bar) => widgets::draw_all(c, &bar.elements, s),
        None => {
            let mut x = 40.0 * s;
            x += font::draw_line(c, x, cy, app, size, Weight::Bold, [20, 20, 20], 400.0 * s);
            for item in ["File", "Edit", "View", "Window", "Help"] {
                x += 20.0 * s;
                x += font::draw_line(
                    c,
                    x,
                    cy,
                    item,
                    size,
                    Weight::Regular,
                    [20, 20, 20],
                    200.0 * s,
                );
            }
        }
    }
    // A bar that lists its own menu extras (a clock that ticks, say) draws those instead.
    let own_extras = bar.is_some_and(|b| {
        b.elements
            .iter()
            .any(|e| e.subrole.as_deref() == Some("AXMenuExtra"))
    });
    if own_extras {
        return;
    }
    let clock = "Mon 9:41";
    let tw = font::measure(clock, size, Weight::Regular);
    font::draw_line(
        c,
        w as f32 - tw - 16.0 * s,
        cy,
        clock,
        size,
        Weight::Regular,
        [20, 20, 20],
        tw + 1.0,
    );
}

fn shadow(c: &mut Canvas, x: i32, y: i32, w: i32, h: i32, r: f32, s: f32) {
    let steps = (6.0 * s) as i32;
    for i in (1..=steps).rev() {
        c.round_rect_alpha(
            x - i,
            y - i + (3.0 * s) as i32,
            w + 2 * i,
            h + 2 * i,
            r + i as f32,
            [0, 0, 0],
            0.045,
        );
    }
}

fn window(c: &mut Canvas, win: &Window, active: bool, s: f32) {
    let f = win.frame;
    let kind = win.kind.as_deref().unwrap_or("window");
    let r = if kind == "sheet" { 8.0 * s } else { 10.0 * s };
    shadow(c, f.x, f.y, f.width, f.height, r, s);
    let body: Rgb = if kind == "sheet" {
        [240, 240, 242]
    } else {
        [250, 250, 250]
    };
    c.bordered_round_rect(f, r, s as i32, [178, 178, 182], body);
    if kind == "window" || kind == "dialog" {
        let tb = (28.0 * s) as i32;
        let bar: Rgb = if active {
            [232, 232, 234]
        } else {
            [244, 244, 244]
        };
        // Title bar: the rounded top of the body, then squared off below the corners.
        c.fill_round_rect(
            f.x + s as i32,
            f.y + s as i32,
            f.width - 2 * s as i32,
            tb,
            r - s,
            bar,
        );
        c.fill_rect(
            f.x + s as i32,
            f.y + tb / 2,
            f.width - 2 * s as i32,
            tb / 2 + s as i32,
            bar,
        );
        c.fill_rect(
            f.x + s as i32,
            f.y + tb,
            f.width - 2 * s as i32,
            s as i32,
            [205, 205, 208],
        );
        let cy = f.y as f32 + tb as f32 / 2.0 + s / 2.0;
        let lights: [Rgb; 3] = if active {
            [[255, 95, 87], [254, 188, 46], [40, 200, 64]]
        } else {
            [[206, 206, 206]; 3]
        };
        let n = if kind == "dialog" { 1 } else { 3 };
        for (i, col) in lights.iter().take(n).enumerate() {
            let cx = f.x as f32 + (20.0 + 20.0 * i as f32) * s;
            c.fill_circle(cx, cy, 6.0 * s, shade(*col, 0.85));
            c.fill_circle(cx, cy, 5.4 * s, *col);
        }
        let color: Rgb = if active {
            [40, 40, 40]
        } else {
            [150, 150, 150]
        };
        let left = 80.0 * s;
        font::draw_centered(
            c,
            f.x as f32 + left,
            f.y as f32,
            f.width as f32 - 2.0 * left,
            tb as f32 + s,
            &win.title,
            13.0 * s,
            Weight::Bold,
            color,
        );
    }
    widgets::draw_all(c, &win.elements, s);
}

fn menu(c: &mut Canvas, win: &Window, s: f32) {
    let f = win.frame;
    shadow(c, f.x, f.y, f.width, f.height, 6.0 * s, s);
    c.bordered_round_rect(f, 6.0 * s, s as i32, [190, 190, 196], [248, 248, 250]);
    widgets::draw_all(c, &win.elements, s);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::ax::{App, Element, Rect};

    fn snapshot(title: &str) -> AxSnapshot {
        let button = Element {
            title: Some(title.into()),
            ..Element::new("ok", "AXButton", Rect::new(40, 80, 80, 24))
        };
        AxSnapshot {
            schema: crate::recording::ax::AX_SCHEMA.into(),
            apps: vec![App {
                name: "App".into(),
                bundle_id: None,
                frontmost: true,
                windows: vec![Window {
                    id: "w".into(),
                    title: "Main".into(),
                    kind: Some("window".into()),
                    frame: Rect::new(20, 40, 200, 100),
                    focused: true,
                    elements: vec![button],
                }],
            }],
        }
    }

    #[test]
    fn same_snapshot_same_pixels_and_text_shows() {
        let screen = Screen {
            width: 320,
            height: 200,
            scale: 1,
        };
        let a = render(&snapshot("OK"), &screen);
        assert_eq!(a, render(&snapshot("OK"), &screen));
        assert_eq!((a.width(), a.height()), (320, 200));
        // The label is drawn: a different label changes pixels inside the button only.
        let b = render(&snapshot("No"), &screen);
        let changed: Vec<(u32, u32)> = a
            .enumerate_pixels()
            .filter(|(x, y, p)| b.get_pixel(*x, *y) != *p)
            .map(|(x, y, _)| (x, y))
            .collect();
        assert!(!changed.is_empty());
        assert!(
            changed
                .iter()
                .all(|&(x, y)| (40..120).contains(&x) && (80..104).contains(&y))
        );
    }

    #[test]
    fn a_bar_with_its_own_clock_draws_that_clock_only() {
        let screen = Screen {
            width: 320,
            height: 200,
            scale: 1,
        };
        let with_clock = |time: &str| {
            let mut ax = snapshot("OK");
            let clock = Element {
                subrole: Some("AXMenuExtra".into()),
                title: Some(time.into()),
                ..Element::new("clock", "AXMenuBarItem", Rect::new(200, 0, 80, 24))
            };
            ax.apps[0].windows.push(Window {
                id: "bar".into(),
                title: String::new(),
                kind: Some("menubar".into()),
                frame: Rect::new(0, 0, 320, 24),
                focused: false,
                elements: vec![clock],
            });
            render(&ax, &screen)
        };
        let (a, b) = (with_clock("10:41"), with_clock("10:42"));
        let changed: Vec<(u32, u32)> = a
            .enumerate_pixels()
            .filter(|(x, y, p)| b.get_pixel(*x, *y) != *p)
            .map(|(x, y, _)| (x, y))
            .collect();
        assert!(!changed.is_empty(), "the clock ticked");
        assert!(
            changed
                .iter()
                .all(|&(x, y)| (200..280).contains(&x) && y < 24)
        );
        // The default clock, which ends 16 px from the screen's edge, is not drawn.
        let plain = render(&snapshot("OK"), &screen);
        let ends_default_clock = |img: &RgbImage| -> Vec<_> {
            (0..24)
                .flat_map(|y| (282..320).map(move |x| (x, y)))
                .map(|(x, y)| *img.get_pixel(x, y))
                .collect()
        };
        assert_ne!(ends_default_clock(&plain), ends_default_clock(&a));
        assert_eq!(ends_default_clock(&a), ends_default_clock(&b));
    }

    #[test]
    fn huge_and_negative_frames_are_clipped_not_walked() {
        let mut ax = snapshot(&"a very long label ".repeat(2000));
        ax.apps[0].windows[0].frame = Rect::new(-2_000_000_000, -5, i32::MAX, 1_000_000_000);
        let img = render(
            &ax,
            &Screen {
                width: 64,
                height: 48,
                scale: 1,
            },
        );
        assert_eq!((img.width(), img.height()), (64, 48));
    }
}

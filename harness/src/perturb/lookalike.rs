//! `lookalike-same-window`, `lookalike-other-window`: a control with the same role and label
//! appears — beside the original in its own window (a real ambiguity a guide must not fall
//! into), or in another window (which the window title must tell apart). The copy's pixels
//! are the original's, so crops match it too. Ids get a `~copy` suffix; the recorded
//! elements keep theirs.

use image::RgbaImage;

use super::apply::{Ctx, copy_rect, fill_rect};
use crate::recording::ax::{Element, Window};
use crate::recording::{AxSnapshot, Rect};

fn copy_of(e: &Element, frame: Rect, suffix: &str) -> Element {
    let mut c = e.clone();
    c.id = format!("{}~{suffix}", e.id);
    c.frame = frame;
    c.focused = false;
    c.children.clear();
    c
}

fn insert_copies(list: &mut Vec<Element>, ctx: &Ctx, win: Rect, out: &mut Vec<(Rect, Rect)>) {
    let mut i = 0;
    while i < list.len() {
        insert_copies(&mut list[i].children, ctx, win, out);
        if ctx.targets.contains(&list[i].id) {
            let f = list[i].frame;
            // Below the original when it fits in the window, else to its right.
            let below = Rect {
                y: f.y + f.height + 6,
                ..f
            };
            let frame = if below.y + below.height <= win.y + win.height {
                below
            } else {
                Rect {
                    x: f.x + f.width + 6,
                    ..f
                }
            };
            let c = copy_of(&list[i], frame, "copy");
            out.push((f, frame));
            list.insert(i + 1, c);
            i += 1;
        }
        i += 1;
    }
}

pub(super) fn same_window(ax: &mut AxSnapshot, px: &mut RgbaImage, ctx: &Ctx) {
    let original = px.clone();
    let mut moved = Vec::new();
    for app in &mut ax.apps {
        for w in &mut app.windows {
            insert_copies(&mut w.elements, ctx, w.frame, &mut moved);
        }
    }
    for (from, to) in moved {
        copy_rect(px, &original, from, to.x, to.y);
    }
}

pub(super) fn other_window(ax: &mut AxSnapshot, px: &mut RgbaImage, ctx: &Ctx) {
    let s = ctx.scale.max(1) as i32;
    let Some(app) = ax.apps.iter_mut().find(|a| a.frontmost) else {
        return;
    };
    let mut found = Vec::new();
    for w in &app.windows {
        w.walk(&mut |e| {
            if ctx.targets.contains(&e.id) {
                found.push(e.clone());
            }
        });
    }
    if found.is_empty() {
        return;
    }
    let frame = Rect::new(8 * s, px.height() as i32 - 140 * s, 320 * s, 132 * s);
    fill_rect(px, frame, image::Rgba([236, 236, 236, 255]));
    fill_rect(
        px,
        Rect {
            height: 22 * s,
            ..frame
        },
        image::Rgba([210, 210, 210, 255]),
    );
    let mut elements = Vec::new();
    for (k, e) in found.iter().enumerate() {
        let slot = Rect::new(
            frame.x + 10 * s + (k as i32 % 3) * 104 * s,
            frame.y + 30 * s + (k as i32 / 3 % 3) * 34 * s,
            e.frame.width.min(96 * s),
            e.frame.height.min(28 * s),
        );
        elements.push(copy_of(e, slot, "other"));
    }
    app.windows.push(Window {
        id: "lookalike-window".into(),
        title: "Look-alike".into(),
        kind: Some("window".into()),
        frame,
        focused: false,
        elements,
    });
    // Draw each copy as the original control's pixels, cropped to its slot.
    let snapshot = px.clone();
    let copies: Vec<(Rect, Rect)> = found
        .iter()
        .zip(
            app.windows
                .last()
                .map(|w| w.elements.clone())
                .unwrap_or_default(),
        )
        .map(|(e, c)| {
            (
                Rect {
                    width: c.frame.width,
                    height: c.frame.height,
                    ..e.frame
                },
                c.frame,
            )
        })
        .collect();
    for (from, to) in copies {
        copy_rect(px, &snapshot, from, to.x, to.y);
    }
}

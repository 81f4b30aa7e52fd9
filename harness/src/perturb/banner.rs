//! `banner`: a notification banner covers the top right of the screen, in the screenshot and
//! as a window of a background app (notifications do not take focus).

use image::{Rgba, RgbaImage};

use super::apply::{Ctx, fill_rect};
use crate::recording::ax::{App, Element, Window};
use crate::recording::{AxSnapshot, Rect};

pub(super) fn apply(ax: &mut AxSnapshot, px: &mut RgbaImage, ctx: &Ctx) {
    let s = ctx.scale.max(1) as i32;
    let w = 360 * s;
    let frame = Rect::new(px.width() as i32 - w - 12 * s, 34 * s, w, 76 * s);
    fill_rect(px, frame, Rgba([58, 58, 64, 255]));
    fill_rect(
        px,
        Rect::new(frame.x + 14 * s, frame.y + 16 * s, 180 * s, 10 * s),
        Rgba([235, 235, 240, 255]),
    );
    fill_rect(
        px,
        Rect::new(frame.x + 14 * s, frame.y + 38 * s, 280 * s, 8 * s),
        Rgba([170, 170, 178, 255]),
    );
    ax.apps.push(App {
        name: "Notification Center".into(),
        bundle_id: Some("com.apple.notificationcenterui".into()),
        frontmost: false,
        windows: vec![Window {
            id: "notification-banner".into(),
            title: "Notification".into(),
            kind: Some("popup".into()),
            frame,
            focused: false,
            elements: vec![Element {
                role: Some("text".into()),
                value: Some("New message from Alex".into()),
                ..Element::new("notification-text", "AXStaticText", frame)
            }],
        }],
    });
}

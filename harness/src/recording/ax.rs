//! The AX snapshot: what the accessibility API showed at one moment.
//!
//! apps → windows → a tree of elements. Element ids are stable across the frames of one
//! recording, so trees can be diffed and a control followed from frame to frame.
//!
//! Real trees name controls in different places (macOS buttons in `AXDescription`, static
//! texts in their value, GTK entries through a labelled-by link or only by the label beside
//! them), so the snapshot keeps `title`, `description`, `value`, `role_description` and
//! `labelled_by` apart and [`Element::own_name`] / the resolver derive the accessible name
//! the way the platform does.

use serde::{Deserialize, Serialize};

/// The schema string of an AX snapshot file.
pub const AX_SCHEMA: &str = "stepreplay-ax/1";

/// A rectangle in screen pixels (of the screenshot, so 2x screens have 2x numbers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Rect {
    /// Left edge.
    pub x: i32,
    /// Top edge.
    pub y: i32,
    /// Width in pixels.
    pub width: i32,
    /// Height in pixels.
    pub height: i32,
}

impl Rect {
    /// The box at `(x, y)` of that size.
    pub(crate) const fn new(x: i32, y: i32, width: i32, height: i32) -> Rect {
        Rect {
            x,
            y,
            width,
            height,
        }
    }

    /// Whether the pixel `(px, py)` is inside.
    pub(crate) fn contains(&self, px: f64, py: f64) -> bool {
        px >= self.x as f64
            && py >= self.y as f64
            && px < (self.x + self.width) as f64
            && py < (self.y + self.height) as f64
    }

    /// Whether any of it, with some area, is on a screen of `(width, height)`.
    pub(crate) fn shows_on(&self, screen: (u32, u32)) -> bool {
        self.width > 0
            && self.height > 0
            && self.x + self.width > 0
            && self.y + self.height > 0
            && self.x < screen.0 as i32
            && self.y < screen.1 as i32
    }

    /// Whether `o` lies inside this box and is not the same box.
    pub(crate) fn encloses(&self, o: &Rect) -> bool {
        self != o
            && o.x >= self.x
            && o.y >= self.y
            && o.x + o.width <= self.x + self.width
            && o.y + o.height <= self.y + self.height
    }

    /// The centre point.
    pub(crate) fn center(&self) -> (f64, f64) {
        (
            self.x as f64 + self.width as f64 / 2.0,
            self.y as f64 + self.height as f64 / 2.0,
        )
    }

    /// Area in pixels (0 for degenerate rectangles).
    pub(crate) fn area(&self) -> i64 {
        (self.width.max(0) as i64) * (self.height.max(0) as i64)
    }

    /// The same rectangle moved by `(dx, dy)`.
    pub(crate) fn translated(&self, dx: i32, dy: i32) -> Rect {
        // GTK parks hidden controls at i32::MIN: moving one must not overflow.
        Rect {
            x: self.x.saturating_add(dx),
            y: self.y.saturating_add(dy),
            ..*self
        }
    }
}

/// One AX snapshot file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AxSnapshot {
    /// Always [`AX_SCHEMA`].
    pub schema: String,
    /// Running apps with windows, frontmost first by convention (not required).
    pub apps: Vec<App>,
}

/// A running app.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct App {
    /// Its name, as the menu bar shows it.
    pub name: String,
    /// Its bundle id, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bundle_id: Option<String>,
    /// Whether it is the app in front.
    #[serde(default)]
    pub frontmost: bool,
    /// Its windows, front to back.
    #[serde(default)]
    pub windows: Vec<Window>,
}

/// A window (a dialog, sheet or popup menu is a window too).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Window {
    /// Stable id across frames.
    pub id: String,
    /// Its title (may be empty).
    #[serde(default)]
    pub title: String,
    /// `window`, `dialog`, `sheet`, `popup`, … (informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Where it is, in screen pixels.
    pub frame: Rect,
    /// Whether it has keyboard focus.
    #[serde(default)]
    pub focused: bool,
    /// Its top-level elements.
    #[serde(default)]
    pub elements: Vec<Element>,
}

/// One accessibility element.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Element {
    /// Stable id across frames.
    pub id: String,
    /// Role as macOS reports it (`AXButton`).
    pub ax_role: String,
    /// Role in words (`button`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Subrole (`AXSecureTextField`, `AXDialog`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subrole: Option<String>,
    /// `AXTitle`: the control's own visible name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `AXDescription`: where most macOS buttons keep their name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `AXValue`: a field's text, a static text's words, a checkbox's state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// `AXRoleDescription`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role_description: Option<String>,
    /// Placeholder text of an empty field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    /// The id of the element that labels this one (AT-SPI labelled-by, `AXTitleUIElement`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labelled_by: Option<String>,
    /// Where it is, in screen pixels.
    pub frame: Rect,
    /// Whether it can be used.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
    /// Whether it has keyboard focus.
    #[serde(default, skip_serializing_if = "is_false")]
    pub focused: bool,
    /// Whether it is selected or checked.
    #[serde(default, skip_serializing_if = "is_false")]
    pub selected: bool,
    /// Child elements.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Element>,
}

/// serde's default for a flag that is on unless written off.
pub(crate) fn yes() -> bool {
    true
}
fn is_true(b: &bool) -> bool {
    *b
}
fn is_false(b: &bool) -> bool {
    !*b
}

impl Element {
    /// An enabled, unfocused element with only an id, a role and a frame; fill in the rest
    /// with struct update syntax (`Element { title: …, ..Element::new(…) }`).
    pub fn new(id: impl Into<String>, ax_role: impl Into<String>, frame: Rect) -> Self {
        Element {
            id: id.into(),
            ax_role: ax_role.into(),
            role: None,
            subrole: None,
            title: None,
            description: None,
            value: None,
            role_description: None,
            placeholder: None,
            labelled_by: None,
            frame,
            enabled: true,
            focused: false,
            selected: false,
            children: Vec::new(),
        }
    }

    /// The name the element carries itself: title, then description, then — for static
    /// text — its value. Labels from elsewhere (labelled-by, a label beside it) are the
    /// resolver's job, since they need the whole window.
    pub fn own_name(&self) -> Option<&str> {
        fn nonempty(s: &Option<String>) -> Option<&str> {
            // Stops at the first letter, where `trim` would also scan from the end.
            s.as_deref().filter(|s| !s.chars().all(char::is_whitespace))
        }
        nonempty(&self.title)
            .or_else(|| nonempty(&self.description))
            .or_else(|| {
                if crate::roles::is_text_role(&self.ax_role) {
                    nonempty(&self.value)
                } else {
                    None
                }
            })
    }

    /// Calls `f` on this element and every descendant, depth first, parents first.
    pub(crate) fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Element)) {
        f(self);
        for c in &self.children {
            c.walk(f);
        }
    }
}

impl Window {
    /// Calls `f` on every element of the window, depth first.
    pub(crate) fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Element)) {
        for e in &self.elements {
            e.walk(f);
        }
    }
}

impl AxSnapshot {
    /// Calls `f` on every element of every window, depth first.
    pub(crate) fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Element)) {
        for w in self.apps.iter().flat_map(|a| &a.windows) {
            w.walk(f);
        }
    }

    /// The address a browser shows in its address field, when the snapshot has one: a text
    /// field or combo box whose name or placeholder speaks of an address or URL, in the
    /// frontmost app's windows first.
    pub(crate) fn address_shown(&self) -> Option<&str> {
        let names_address = |e: &Element| {
            [&e.title, &e.description, &e.placeholder]
                .into_iter()
                .flatten()
                .map(|s| crate::text::words(s))
                .any(|w| w.iter().any(|w| matches!(w.as_str(), "address" | "url")))
        };
        let mut apps: Vec<&App> = self.apps.iter().collect();
        apps.sort_by_key(|a| !a.frontmost);
        let mut found = None;
        for w in apps.into_iter().flat_map(|a| &a.windows) {
            w.walk(&mut |e| {
                if found.is_none()
                    && matches!(e.ax_role.as_str(), "AXTextField" | "AXComboBox")
                    && names_address(e)
                {
                    found = e.value.as_deref().filter(|v| !v.trim().is_empty());
                }
            });
            if found.is_some() {
                break;
            }
        }
        found
    }

    /// Finds an element by id, with its app and window.
    pub fn find(&self, id: &str) -> Option<(&App, &Window, &Element)> {
        for app in &self.apps {
            for w in &app.windows {
                let mut found = None;
                w.walk(&mut |e| {
                    if found.is_none() && e.id == id {
                        found = Some(e);
                    }
                });
                if let Some(e) = found {
                    return Some((app, w, e));
                }
            }
        }
        None
    }

    /// Number of elements in all windows.
    pub fn element_count(&self) -> usize {
        let mut n = 0;
        for app in &self.apps {
            for w in &app.windows {
                w.walk(&mut |_| n += 1);
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_control_parked_at_the_far_edge_moves_without_overflow() {
        let parked = Rect::new(i32::MIN, i32::MIN, 10, 10);
        let moved = parked.translated(-40, -10);
        assert_eq!((moved.x, moved.y), (i32::MIN, i32::MIN));
        assert_eq!(parked.translated(40, 10).x, i32::MIN + 40);
    }
}

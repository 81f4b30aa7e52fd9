//! Putting a window's tree where the window is on the screen.
//!
//! GTK 3 gives AT-SPI extents in screen pixels. GTK 4 (4.8, Debian 12's) cannot know where the
//! window manager put its window, so it gives every extent relative to the window and the
//! window itself at 0,0. The X server knows: each top-level window the window manager lists
//! has a title and a box. A window of the tree whose title and size match a listed window, at
//! another place, is moved there with everything in it. A window that matches none, or
//! several at different places, is left as it is and named in the returned notes.
//!
//! A GTK 4 popover is a surface of its own that its window's tree holds as a descendant, at
//! its parent's place. The X server lists it as an unmanaged (override-redirect) window of the
//! same size: the outermost node of exactly that size, at another place, moves there.

use serde_json::Value;

use super::x11::ClientWindow;

fn rect(v: &Value) -> Option<(i64, i64, i64, i64)> {
    Some((
        v.get("x")?.as_i64()?,
        v.get("y")?.as_i64()?,
        v.get("width")?.as_i64()?,
        v.get("height")?.as_i64()?,
    ))
}

fn shift(node: &mut Value, dx: i64, dy: i64) {
    if let Some(e) = node.get_mut("extents").filter(|e| e.is_object()) {
        if let Some(x) = e.get("x").and_then(Value::as_i64) {
            e["x"] = Value::from(x + dx);
        }
        if let Some(y) = e.get("y").and_then(Value::as_i64) {
            e["y"] = Value::from(y + dy);
        }
    }
    if let Some(Value::Array(kids)) = node.get_mut("children") {
        for k in kids {
            shift(k, dx, dy);
        }
    }
}

/// Where a `width`×`height` window drawn inside `c` starts: `c` itself when the sizes agree
/// (within 2 px), or inside an even border all round — GTK 4 draws one (a resize margin) when
/// the window manager does not support `_GTK_FRAME_EXTENTS`, as openbox does not.
fn inner_origin(c: &ClientWindow, width: i64, height: i64) -> Option<(i64, i64)> {
    let (dw, dh) = (c.width as i64 - width, c.height as i64 - height);
    if dw.abs() <= 2 && dh.abs() <= 2 {
        return Some((c.x as i64, c.y as i64));
    }
    let border = (dw == dh && dw > 0 && dw % 2 == 0 && dw <= 128).then_some(dw / 2)?;
    Some((c.x as i64 + border, c.y as i64 + border))
}

/// The paths of the outermost nodes below the top level of size `(w, h)`, with their places.
fn sized<'a>(node: &'a Value, w: i64, h: i64, depth: usize, out: &mut Vec<(&'a str, i64, i64)>) {
    if depth >= 2
        && let Some((x, y, nw, nh)) = node.get("extents").and_then(rect)
        && (nw, nh) == (w, h)
    {
        out.push((node.get("path").and_then(Value::as_str).unwrap_or(""), x, y));
        return;
    }
    if let Some(Value::Array(kids)) = node.get("children") {
        for k in kids {
            sized(k, w, h, depth + 1, out);
        }
    }
}

fn node_mut<'a>(node: &'a mut Value, path: &str) -> Option<&'a mut Value> {
    if node.get("path").and_then(Value::as_str) == Some(path) {
        return Some(node);
    }
    let Some(Value::Array(kids)) = node.get_mut("children") else {
        return None;
    };
    kids.iter_mut().find_map(|k| node_mut(k, path))
}

/// Moves popovers held inside a window's tree to where their own surfaces are.
fn place_popups(dump: &mut Value, popups: &[ClientWindow]) {
    for p in popups {
        let (w, h) = (p.width as i64, p.height as i64);
        let mut found = Vec::new();
        if let Some(Value::Array(apps)) = dump.get("applications") {
            for app in apps {
                sized(app, w, h, 0, &mut found);
            }
        }
        let moves: Vec<(String, i64, i64)> = found
            .iter()
            .filter(|(_, x, y)| (*x, *y) != (p.x as i64, p.y as i64))
            .map(|(path, x, y)| (path.to_string(), p.x as i64 - x, p.y as i64 - y))
            .collect();
        // Two nodes of one popup's size, both elsewhere: which one it is cannot be told.
        if let [(path, dx, dy)] = moves.as_slice()
            && found.len() == 1
            && let Some(Value::Array(apps)) = dump.get_mut("applications")
            && let Some(node) = apps.iter_mut().find_map(|a| node_mut(a, path))
        {
            shift(node, *dx, *dy);
        }
    }
}

/// Moves each top-level window of `dump` (a `realrec.atspi/1` tree) to where X says it is,
/// then each popover inside one to its own surface.
pub(crate) fn place_on_screen(
    dump: &mut Value,
    windows: &[ClientWindow],
    popups: &[ClientWindow],
) -> Vec<String> {
    let notes = place_windows(dump, windows);
    place_popups(dump, popups);
    notes
}

fn place_windows(dump: &mut Value, windows: &[ClientWindow]) -> Vec<String> {
    let mut notes = Vec::new();
    let Some(Value::Array(apps)) = dump.get_mut("applications") else {
        return notes;
    };
    for app in apps {
        let Some(Value::Array(tops)) = app.get_mut("children") else {
            continue;
        };
        for w in tops {
            let Some((x, y, width, height)) = w.get("extents").and_then(rect) else {
                continue;
            };
            let name = w
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            if width < 0 || height < 0 {
                notes.extend(unsized_window(w, &name, windows));
                continue;
            }
            let mut places: Vec<(i64, i64)> = windows
                .iter()
                .filter(|c| c.title == name)
                .filter_map(|c| inner_origin(c, width, height))
                .collect();
            places.dedup();
            match places.as_slice() {
                [(cx, cy)] if (*cx, *cy) != (x, y) => shift(w, cx - x, cy - y),
                [_] => {}
                [] => {}
                _ => notes.push(format!(
                    "window {name:?}: {} windows with that title and size; left where the toolkit put it",
                    places.len()
                )),
            }
        }
    }
    notes
}

/// A window whose toolkit gives no size (the Java ATK wrapper says -1 for all four) gets the
/// box of the one X window of its title; its own values stay as `raw_extents`. A note when no
/// single X window has that title.
fn unsized_window(w: &mut Value, name: &str, windows: &[ClientWindow]) -> Option<String> {
    let mut titled = windows.iter().filter(|c| c.title == name);
    match (titled.next(), titled.next()) {
        (Some(c), None) => {
            w["raw_extents"] = w["extents"].take();
            w["extents"] = serde_json::json!({
                "x": c.x, "y": c.y, "width": c.width, "height": c.height
            });
            None
        }
        _ => Some(format!(
            "window {name:?}: the toolkit gave it no size and not one X window has its title"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn client(title: &str, x: i32, y: i32, w: i32, h: i32) -> ClientWindow {
        ClientWindow {
            title: title.into(),
            pid: None,
            x,
            y,
            width: w,
            height: h,
        }
    }

    fn dump() -> Value {
        json!({ "applications": [{ "path": "0", "children": [
            { "path": "0/0", "name": "Editor", "extents": { "x": 0, "y": 0, "width": 600, "height": 400 },
              "children": [
                { "path": "0/0/0", "extents": { "x": 10, "y": 20, "width": 50, "height": 30 }, "children": [] },
                { "path": "0/0/1", "extents": null, "children": [
                    { "path": "0/0/1/0", "extents": { "x": 5, "y": 6, "width": 7, "height": 8 } } ] } ] } ] }] })
    }

    #[test]
    fn a_window_at_the_origin_moves_with_everything_in_it() {
        let mut d = dump();
        let notes = place_on_screen(&mut d, &[client("Editor", 420, 250, 600, 400)], &[]);
        assert!(notes.is_empty());
        let w = &d["applications"][0]["children"][0];
        assert_eq!(w["extents"]["x"], 420);
        assert_eq!(w["children"][0]["extents"]["y"], 270);
        assert_eq!(w["children"][1]["extents"], Value::Null);
        assert_eq!(w["children"][1]["children"][0]["extents"]["x"], 425);
    }

    #[test]
    fn a_window_inside_an_even_border_starts_inside_it() {
        let mut d = dump();
        place_on_screen(&mut d, &[client("Editor", 370, 190, 610, 410)], &[]);
        let w = &d["applications"][0]["children"][0];
        assert_eq!(
            (w["extents"]["x"].clone(), w["extents"]["y"].clone()),
            (375.into(), 195.into())
        );
        // An uneven difference is another window, not a border.
        let mut d = dump();
        place_on_screen(&mut d, &[client("Editor", 370, 190, 610, 420)], &[]);
        assert_eq!(d, dump());
    }

    #[test]
    fn a_window_already_in_place_or_unmatched_stays() {
        for clients in [
            vec![client("Editor", 0, 0, 600, 400)],
            vec![client("Other", 420, 250, 600, 400)],
            vec![client("Editor", 420, 250, 300, 200)],
        ] {
            let mut d = dump();
            place_on_screen(&mut d, &clients, &[]);
            assert_eq!(d, dump());
        }
    }

    #[test]
    fn a_popover_moves_to_its_own_surface() {
        let mut d = dump();
        // The node 0/0/0 (50×30) is a popover drawn at 300,300 on the screen.
        let notes = place_on_screen(&mut d, &[], &[client("", 300, 300, 50, 30)]);
        assert!(notes.is_empty());
        let w = &d["applications"][0]["children"][0];
        assert_eq!(w["children"][0]["extents"]["x"], 300);
        assert_eq!(w["children"][0]["extents"]["y"], 300);
        assert_eq!(w["extents"]["x"], 0, "the window stays");
        // A popup of a size nothing has moves nothing.
        let mut d = dump();
        place_on_screen(&mut d, &[], &[client("", 300, 300, 51, 30)]);
        assert_eq!(d, dump());
    }

    /// The Java ATK wrapper's frames: extents of -1, their contents in place.
    #[test]
    fn a_window_of_no_size_gets_its_x_windows_box() {
        let java = |d: &mut Value| {
            d["applications"][0]["children"][0]["extents"] =
                json!({ "x": -1, "y": -1, "width": -1, "height": -1 });
        };
        let mut d = dump();
        java(&mut d);
        let notes = place_on_screen(&mut d, &[client("Editor", 200, 150, 600, 400)], &[]);
        assert!(notes.is_empty(), "{notes:?}");
        let w = &d["applications"][0]["children"][0];
        assert_eq!(
            w["extents"],
            json!({ "x": 200, "y": 150, "width": 600, "height": 400 })
        );
        assert_eq!(w["raw_extents"]["width"], -1);
        assert_eq!(w["children"][0]["extents"]["x"], 10, "the contents stay");
        // No X window of its title: left as it is, and said.
        let mut d = dump();
        java(&mut d);
        let before = d.clone();
        let notes = place_on_screen(&mut d, &[client("Other", 200, 150, 600, 400)], &[]);
        assert_eq!(d, before);
        assert_eq!(notes.len(), 1, "{notes:?}");
    }

    #[test]
    fn two_places_for_one_window_are_named_not_guessed() {
        let mut d = dump();
        let notes = place_on_screen(
            &mut d,
            &[
                client("Editor", 10, 10, 600, 400),
                client("Editor", 700, 10, 600, 400),
            ],
            &[],
        );
        assert_eq!(d, dump());
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("2 windows"), "{notes:?}");
    }
}

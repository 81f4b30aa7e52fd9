//! Finding a script's target in the live tree, as a person reading the screen would: by role
//! and name (the accessible name, or the text of the label beside a nameless field — the same
//! names the replay's resolver derives), in a window, the `index`-th in reading order (top to
//! bottom, then left to right) when several match. A script that matches nothing, or several without an `index`, is refused
//! with what was there instead: the recorder never guesses what a person meant.

use serde_json::Value;

use crate::recording::ax::{AxSnapshot, Rect};
use crate::resolve::{FrameIndex, Node, WindowInfo, nearest_names};
use crate::roles::ax_role_of_words;
use crate::text::{normalize_label, words};

use super::script::ScriptTarget;

/// The control a step acts on.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Found {
    /// Its element id in the imported tree (`e0-0-3`).
    pub(crate) id: String,
    /// Its AT-SPI child-index path (`0/0/3`), or `None` for a point on no control.
    pub(crate) path: Option<String>,
    /// Where to click, in pixels.
    pub(crate) point: (i32, i32),
    /// Its box, when it is a control.
    pub(crate) frame: Option<Rect>,
    /// The title of the window a person works in when it shows.
    pub(crate) window: Option<String>,
}

/// `AXTextField` from `text field`; the AX role that role words name by their shape.
fn camel_role(role: &str) -> String {
    let mut out = String::from("AX");
    for w in words(role) {
        let mut c = w.chars();
        if let Some(first) = c.next() {
            out.extend(first.to_uppercase());
            out.push_str(c.as_str());
        }
    }
    out
}

fn role_ok(want: &str, ax_role: &str, atspi_role: Option<&str>) -> bool {
    want == ax_role
        || atspi_role.is_some_and(|r| normalize_label(r) == normalize_label(want))
        || ax_role_of_words(want) == Some(ax_role)
        || camel_role(want) == ax_role
}

/// The node of a `realrec.atspi/1` dump at a child-index path (`0/2/1`).
pub(crate) fn node_at<'a>(dump: &'a Value, path: &str) -> Option<&'a Value> {
    let mut parts = path.split('/').map(|p| p.parse::<usize>().ok());
    let mut node = dump.get("applications")?.get(parts.next()??)?;
    for p in parts {
        node = node.get("children")?.get(p?)?;
    }
    Some(node)
}

/// `e0-0-3` → `0/0/3`.
pub(super) fn path_of(id: &str) -> Option<String> {
    let rest = id.strip_prefix('e')?;
    rest.split('-')
        .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        .then(|| rest.replace('-', "/"))
}

/// The title of the window a person works in when `w` shows: its own, or for a nameless
/// popup its owner's.
pub(crate) fn work_title(ix: &FrameIndex, w: &WindowInfo) -> Option<String> {
    if !w.title.is_empty() {
        return Some(w.title.clone());
    }
    ix.windows
        .iter()
        .find(|o| !o.title.is_empty() && o.norm_title == w.work_title)
        .map(|o| o.title.clone())
}

/// Why a script's target was not found in its frame.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Miss {
    /// Nothing matches; the text says what on screen has that name.
    #[error("no control on screen matches the target; {0}")]
    NoMatch(String),
    /// `index` is past the matches.
    #[error("index {asked} asked for, but {found} controls match (0 to {})", found - 1)]
    Index {
        /// The index the script gave.
        asked: usize,
        /// How many controls match.
        found: usize,
    },
    /// Several match and the script gave no index.
    #[error(
        "{found} controls match the target; say which with \"index\" (0 to {}, top to bottom, then left to right)",
        found - 1
    )]
    Ambiguous {
        /// How many controls match.
        found: usize,
    },
}

/// The control under a point given as a share of the screen: the smallest, as a click lands
/// on the innermost one; none found is a point with no control.
fn under_point(ix: &FrameIndex, [sx, sy]: [f64; 2], screen: (u32, u32)) -> Found {
    let (x, y) = (sx * screen.0 as f64, sy * screen.1 as f64);
    let hit = ix
        .at_point(x, y)
        .into_iter()
        .map(|i| &ix.nodes[i as usize])
        .min_by_key(|n| n.frame.area());
    let point = (x.round() as i32, y.round() as i32);
    match hit {
        Some(n) => Found {
            id: n.id.to_string(),
            path: path_of(n.id),
            point,
            frame: Some(n.frame),
            window: Some(ix.window_of(n).title.clone()).filter(|t| !t.is_empty()),
        },
        None => Found {
            id: String::new(),
            path: None,
            point,
            frame: None,
            window: None,
        },
    }
}

/// Finds `t` in a frame: `ax` is the dump converted by the importer, `dump` the dump itself.
pub(crate) fn find(
    t: &ScriptTarget,
    ax: &AxSnapshot,
    dump: &Value,
    screen: (u32, u32),
) -> Result<Found, Miss> {
    let ix = FrameIndex::new(ax);
    if let Some(p) = t.point {
        return Ok(under_point(&ix, p, screen));
    }
    let want_name = t.name.as_deref().map(normalize_label);
    let want_window = t.window.as_deref().map(normalize_label);
    let atspi_role = |id: &str| {
        let p = path_of(id)?;
        node_at(dump, &p)?.get("role")?.as_str().map(str::to_string)
    };
    let mut matches: Vec<_> = ix
        .nodes
        .iter()
        .filter(|n| n.frame.shows_on(screen))
        .filter(|n| {
            want_name
                .as_ref()
                .is_none_or(|w| n.name.is_some_and(|name| normalize_label(name) == *w))
        })
        .filter(|n| {
            let w = ix.window_of(n);
            want_window
                .as_ref()
                .is_none_or(|t| *t == w.work_title || *t == w.norm_title)
        })
        .filter(|n| {
            t.role
                .as_deref()
                .is_none_or(|r| role_ok(r, n.ax_role, atspi_role(n.id).as_deref()))
        })
        .collect();
    // GTK shows an open combo's menu twice (under the combo and as its own window): one
    // control exposed twice, the same click either way.
    let mut seen = Vec::new();
    matches.retain(|n| {
        let key = (n.ax_role, n.name, n.frame);
        let new = !seen.contains(&key);
        seen.push(key);
        new
    });
    // A control nested in another of the same role and name is one control: the innermost,
    // which a click on either lands on (and which replay picks).
    let all = matches.clone();
    matches.retain(|n| {
        !all.iter()
            .any(|m| m.ax_role == n.ax_role && m.name == n.name && n.frame.encloses(&m.frame))
    });
    // `index` counts as a person reads the screen, top to bottom then left to right (GTK 3
    // lists a form's children last first, so tree order would surprise).
    matches.sort_by_key(|n| (n.frame.y, n.frame.x));
    let pick = match (matches.len(), t.index) {
        (0, _) => {
            let named: Vec<String> = ix
                .nodes
                .iter()
                .filter(|n| n.frame.shows_on(screen))
                .filter(|n| {
                    want_name
                        .as_ref()
                        .is_some_and(|w| n.name.is_some_and(|name| normalize_label(name) == *w))
                })
                .map(|n| {
                    let role = atspi_role(n.id).unwrap_or_default();
                    format!("{} ({role}) in {:?}", n.ax_role, ix.window_of(n).title)
                })
                .take(5)
                .collect();
            // The controls of the asked role first (a typo's nearest among them), then the
            // name's other roles.
            let same_role = |n: &Node| {
                t.role
                    .as_deref()
                    .is_some_and(|r| role_ok(r, n.ax_role, atspi_role(n.id).as_deref()))
            };
            let nearest = t
                .name
                .as_deref()
                .map(|w| nearest_names(&ix, w, screen, same_role))
                .unwrap_or_default();
            let hint = match (named.is_empty(), t.role.as_deref()) {
                (true, _) => format!("nothing on screen has that name{nearest}"),
                (false, Some(role)) => format!(
                    "no {role} has that name{nearest}; with that name on screen: {}",
                    named.join(", ")
                ),
                (false, None) => format!("with that name on screen: {}", named.join(", ")),
            };
            return Err(Miss::NoMatch(hint));
        }
        (_, Some(i)) if i < matches.len() => matches[i],
        (n, Some(i)) => return Err(Miss::Index { asked: i, found: n }),
        (1, None) => matches[0],
        (n, None) => return Err(Miss::Ambiguous { found: n }),
    };
    let window = work_title(&ix, ix.window_of(pick));
    let (cx, cy) = pick.frame.center();
    Ok(Found {
        id: pick.id.to_string(),
        path: path_of(pick.id),
        point: (cx.round() as i32, cy.round() as i32),
        frame: Some(pick.frame),
        window,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::atspi::parse_atspi;
    use crate::json::Source;
    use serde_json::json;

    fn node(path: &str, role: &str, name: &str, ext: [i32; 4], kids: Vec<Value>) -> Value {
        json!({ "path": path, "role": role, "name": name,
                "states": ["enabled", "showing", "visible", "editable", "sensitive"],
                "extents": { "x": ext[0], "y": ext[1], "width": ext[2], "height": ext[3] },
                "children": kids })
    }

    /// A form: two "Browse" buttons, a nameless field after its label, an OK button.
    fn form() -> (Value, AxSnapshot) {
        let dump = json!({
            "schema": "realrec.atspi/1", "screen": { "width": 800, "height": 600 },
            "applications": [{
                "path": "0", "role": "application", "name": "yad", "states": [],
                "children": [node("0/0", "dialog", "Files", [100, 100, 400, 300], vec![
                    node("0/0/0", "label", "Source:", [110, 120, 80, 20], vec![]),
                    node("0/0/1", "text", "", [200, 120, 200, 24], vec![]),
                    node("0/0/2", "push button", "Browse", [410, 120, 80, 24], vec![]),
                    node("0/0/3", "label", "Target:", [110, 160, 80, 20], vec![]),
                    node("0/0/4", "text", "", [200, 160, 200, 24], vec![]),
                    node("0/0/5", "push button", "Browse", [410, 160, 80, 24], vec![]),
                    node("0/0/6", "push button", "OK", [410, 360, 80, 24], vec![]),
                ])]
            }]
        });
        let src = Source::from_text("frame_000.ax.json", dump.to_string());
        let ax = parse_atspi(&src).unwrap().ax;
        (dump, ax)
    }

    fn look(ax: &AxSnapshot, dump: &Value, t: &ScriptTarget) -> Result<Found, String> {
        find(t, ax, dump, (800, 600)).map_err(|m| m.to_string())
    }

    fn target(role: &str, name: &str, index: Option<usize>) -> ScriptTarget {
        ScriptTarget {
            role: Some(role.into()),
            name: Some(name.into()),
            index,
            ..ScriptTarget::default()
        }
    }

    #[test]
    fn finds_by_atspi_role_ax_role_or_words() {
        let (dump, ax) = form();
        for role in ["push button", "AXButton", "button"] {
            let f = look(&ax, &dump, &target(role, "OK", None)).unwrap();
            assert_eq!(f.path.as_deref(), Some("0/0/6"), "{role}");
            assert_eq!(f.point, (450, 372));
            assert_eq!(f.window.as_deref(), Some("Files"));
        }
    }

    #[test]
    fn a_nameless_field_is_found_by_the_label_beside_it() {
        let (dump, ax) = form();
        let f = look(&ax, &dump, &target("text field", "Target:", None)).unwrap();
        assert_eq!(f.path.as_deref(), Some("0/0/4"));
    }

    #[test]
    fn same_named_controls_need_an_index() {
        let (dump, ax) = form();
        let e = look(&ax, &dump, &target("push button", "Browse", None)).unwrap_err();
        assert!(e.contains("2 controls match") && e.contains("index"), "{e}");
        let f = find(
            &target("push button", "Browse", Some(1)),
            &ax,
            &dump,
            (800, 600),
        )
        .unwrap();
        assert_eq!(f.path.as_deref(), Some("0/0/5"));
        let e = find(
            &target("push button", "Browse", Some(2)),
            &ax,
            &dump,
            (800, 600),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("index 2"), "{e}");
    }

    #[test]
    fn index_counts_in_reading_order_not_tree_order() {
        // GTK 3 lists a form's rows last first: the lower field comes first in the tree.
        let dump = json!({
            "schema": "realrec.atspi/1", "screen": { "width": 800, "height": 600 },
            "applications": [{
                "path": "0", "role": "application", "name": "yad", "states": [],
                "children": [node("0/0", "dialog", "Form", [100, 100, 400, 300], vec![
                    node("0/0/0", "push button", "Go", [110, 300, 80, 24], vec![]),
                    node("0/0/1", "push button", "Go", [110, 120, 80, 24], vec![]),
                ])]
            }]
        });
        let src = Source::from_text("f.ax.json", dump.to_string());
        let ax = parse_atspi(&src).unwrap().ax;
        let top = find(&target("button", "Go", Some(0)), &ax, &dump, (800, 600)).unwrap();
        assert_eq!(top.path.as_deref(), Some("0/0/1"));
        let e = look(&ax, &dump, &target("button", "Go", None)).unwrap_err();
        assert!(e.contains("top to bottom"), "{e}");
    }

    #[test]
    fn a_miss_says_what_has_that_name() {
        let (dump, ax) = form();
        let e = look(&ax, &dump, &target("check box", "OK", None)).unwrap_err();
        assert!(e.contains("AXButton (push button)"), "{e}");
        let e = look(&ax, &dump, &target("button", "Cancel", None)).unwrap_err();
        assert!(e.contains("nothing on screen"), "{e}");
        assert!(e.contains("nearest names on screen: "), "{e}");
    }

    #[test]
    fn a_wrong_role_lists_the_asked_roles_controls_before_the_names_other_roles() {
        let (dump, ax) = form();
        let e = look(&ax, &dump, &target("button", "Source:", None)).unwrap_err();
        assert_eq!(
            e,
            "no control on screen matches the target; no button has that name; nearest names \
             on screen: \"OK\" (AXButton), \"Browse\" (AXButton), \"Source:\" (AXStaticText), \
             \"Source:\" (AXTextField), \"Target:\" (AXStaticText); with that name on screen: \
             AXStaticText (label) in \"Files\", AXTextField (text) in \"Files\""
        );
    }

    #[test]
    fn a_misspelt_name_gets_a_did_you_mean() {
        let (dump, ax) = form();
        let e = look(&ax, &dump, &target("button", "Kk", None)).unwrap_err();
        assert!(
            e.contains("nearest names on screen: \"OK\" (AXButton)"),
            "{e}"
        );
        let e = look(&ax, &dump, &target("button", "OKk", None)).unwrap_err();
        assert!(e.ends_with("did you mean \"OK\"?"), "{e}");
        // Nothing near: the names are listed, nothing is guessed.
        let e = look(&ax, &dump, &target("button", "Zzzzzz", None)).unwrap_err();
        assert!(!e.contains("did you mean"), "{e}");
        // Controls of the asked role come first, however far their names are.
        let e = look(&ax, &dump, &target("text field", "Zip code", None)).unwrap_err();
        let listed: Vec<&str> = e.split("screen: ").nth(1).unwrap().split(", ").collect();
        assert!(
            listed[..2].iter().all(|l| l.ends_with("(AXTextField)")),
            "{e}"
        );
    }

    #[test]
    fn a_point_lands_on_the_innermost_control() {
        let (dump, ax) = form();
        let t = ScriptTarget {
            point: Some([450.0 / 800.0, 372.0 / 600.0]),
            ..ScriptTarget::default()
        };
        let f = find(&t, &ax, &dump, (800, 600)).unwrap();
        assert_eq!(f.path.as_deref(), Some("0/0/6"));
        assert_eq!(node_at(&dump, "0/0/6").unwrap()["name"], "OK");
    }
}

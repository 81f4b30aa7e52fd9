//! What a name nothing on screen has was most likely meant to be: the names on screen nearest
//! it, for the "did you mean" of the recorder's scripts and of a step whose label is not found.

use super::{FrameIndex, Node};
use crate::text::normalize_label;

/// The names on screen nearest `want` (controls of the asked role first, then by Jaro–Winkler
/// similarity), each as `"Name" (AXRole)`, and the one it was most likely meant to be.
pub(crate) fn nearest(
    ix: &FrameIndex,
    want: &str,
    screen: (u32, u32),
    same_role: impl Fn(&Node) -> bool,
) -> (Vec<String>, Option<String>) {
    let want = normalize_label(want);
    // (has the asked role, similarity, name, role)
    let mut named: Vec<(bool, f64, &str, &str)> = Vec::new();
    for n in ix.nodes.iter().filter(|n| n.frame.shows_on(screen)) {
        let Some(name) = n.name.filter(|s| !s.trim().is_empty()) else {
            continue;
        };
        if named
            .iter()
            .any(|(_, _, m, r)| *m == name && *r == n.ax_role)
        {
            continue;
        }
        let score = strsim::jaro_winkler(&want, &normalize_label(name));
        named.push((same_role(n), score, name, n.ax_role));
    }
    // Controls of the asked role first, then the nearest; equal scores in name order, so the
    // list never depends on the tree.
    named.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(b.2)));
    let list: Vec<String> = named
        .iter()
        .take(5)
        .map(|(_, _, name, role)| format!("{name:?} ({role})"))
        .collect();
    let names: Vec<&str> = named.iter().map(|n| n.2).collect();
    let folded: Vec<String> = names.iter().map(|n| normalize_label(n)).collect();
    // The asked name itself (on a control of another role) is no suggestion.
    let folded_refs: Vec<&str> = folded
        .iter()
        .map(String::as_str)
        .filter(|f| *f != want)
        .collect();
    let meant = crate::text::closest(&want, &folded_refs)
        .and_then(|f| folded.iter().position(|x| x == f))
        .map(|k| names[k].to_string());
    (list, meant)
}

/// The windows on screen and the one a stale title was most likely meant to be, as a
/// message's tail: `; windows on screen: “Add Contact” (zenity); did you mean “Add Contact”?`.
/// Front to back, titled windows only (a nameless popup is no title to write).
pub(crate) fn nearest_windows(ix: &FrameIndex, want: &str) -> String {
    let mut shown: Vec<&super::WindowInfo> = ix
        .windows
        .iter()
        .filter(|w| !w.title.trim().is_empty())
        .collect();
    shown.sort_by(|a, b| a.z.cmp(&b.z).then(a.title.cmp(&b.title)));
    shown.dedup_by(|a, b| a.title == b.title && a.app == b.app);
    if shown.is_empty() {
        return "; no titled window is on screen".into();
    }
    let list: Vec<String> = shown
        .iter()
        .take(8)
        .map(|w| format!("“{}” ({})", w.title, w.app))
        .collect();
    let titles: Vec<&str> = shown.iter().map(|w| w.norm_title.as_str()).collect();
    let meant = crate::text::closest(&normalize_label(want), &titles)
        .and_then(|t| shown.iter().find(|w| w.norm_title == t))
        .map(|w| format!("; did you mean “{}”?", w.title))
        .unwrap_or_default();
    format!("; windows on screen: {}{meant}", list.join(", "))
}

/// [`nearest`] as a hint's tail: `; nearest names on screen: …; did you mean "OK"?`, so a
/// newcomer sees what to write instead.
pub(crate) fn nearest_names(
    ix: &FrameIndex,
    want: &str,
    screen: (u32, u32),
    same_role: impl Fn(&Node) -> bool,
) -> String {
    let (list, meant) = nearest(ix, want, screen, same_role);
    if list.is_empty() {
        return String::new();
    }
    let meant = meant
        .map(|m| format!("; did you mean {m:?}?"))
        .unwrap_or_default();
    format!("; nearest names on screen: {}{meant}", list.join(", "))
}

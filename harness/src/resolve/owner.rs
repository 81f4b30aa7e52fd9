//! Nameless popups: an open combo list or a menu is its own top-level window with no title.
//! A person still works in the window it popped up from, and `target.window` and
//! `expect.window` name that one, so each nameless window is attributed to an owner: the
//! titled window of the same app it lies over (most of its area), else the nearest one.
//!
//! The recordings hold no window-to-window relation today; when a recorder records one
//! (AT-SPI `popup-for`, macOS `AXParent` of a menu), it should decide before geometry.

use super::index::WindowInfo;
use crate::recording::Rect;

fn overlap(a: &Rect, b: &Rect) -> i64 {
    let w = (a.x + a.width).min(b.x + b.width) - a.x.max(b.x);
    let h = (a.y + a.height).min(b.y + b.height) - a.y.max(b.y);
    i64::from(w.max(0)) * i64::from(h.max(0))
}

fn distance(a: &Rect, b: &Rect) -> f64 {
    let ((ax, ay), (bx, by)) = (a.center(), b.center());
    (ax - bx).hypot(ay - by)
}

/// For each window, the window a person works in when it shows: itself when titled, else
/// its owner (`None` when its app has no titled window).
pub(super) fn owners(windows: &[WindowInfo]) -> Vec<Option<u32>> {
    windows
        .iter()
        .enumerate()
        .map(|(k, w)| {
            if !w.norm_title.is_empty() {
                return Some(k as u32);
            }
            let titled = windows
                .iter()
                .enumerate()
                .filter(|(_, o)| o.app == w.app && !o.norm_title.is_empty());
            // Most overlap first, then nearest, then front-most: a total order, so the pick
            // never depends on iteration details.
            titled
                .min_by(|(i, a), (j, b)| {
                    overlap(&b.frame, &w.frame)
                        .cmp(&overlap(&a.frame, &w.frame))
                        .then(distance(&a.frame, &w.frame).total_cmp(&distance(&b.frame, &w.frame)))
                        .then(i.cmp(j))
                })
                .map(|(i, _)| i as u32)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::recording::load_recording;
    use crate::resolve::FrameIndex;

    /// The real zenity frame with the Group combo open: its list is a nameless window of its
    /// own, over the "Add Contact" dialog.
    #[test]
    fn a_real_combo_list_belongs_to_the_dialog_it_opened_over() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../recordings/zenity-add-contact");
        let rec = load_recording(&dir).unwrap();
        let frame = rec.frame("frame_006").unwrap();
        let ix = FrameIndex::new(&frame.ax);
        let popup = ix.windows.iter().find(|w| w.title.is_empty()).unwrap();
        assert_eq!(popup.work_title, "add contact");
        let dialog = ix
            .windows
            .iter()
            .find(|w| w.title == "Add Contact")
            .unwrap();
        assert_eq!(dialog.work_title, "add contact");
    }
}

//! `retitle-window`: the front app's windows get new titles (a document was renamed, a
//! draft saved). A guide that names windows by title meets a window it does not know.

use crate::recording::AxSnapshot;

pub(super) fn apply(ax: &mut AxSnapshot) {
    if let Some(app) = ax.apps.iter_mut().find(|a| a.frontmost) {
        for w in &mut app.windows {
            w.title = if w.title.is_empty() {
                "Untitled".into()
            } else {
                format!("{} — Edited", w.title)
            };
        }
    }
}

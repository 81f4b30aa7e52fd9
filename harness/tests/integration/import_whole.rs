//! `import` drops nothing silently, on copies of the real zenity capture in `corpora/`: a
//! top-level node of an unknown role is still a window, and an acted-on element missing from
//! its frame refuses the import.

use std::path::{Path, PathBuf};

use serde_json::Value;
use stepreplay::recording::{Element, load_recording};

use crate::util::{TempDir, copy_tree, repo, stepreplay};

const CORPUS: &str = "corpora/real-gtk-zenity-forms";

/// The corpus copied to `tmp/src`, each frame's AT-SPI tree passed through `edit` (with the
/// frame's number).
fn edited_corpus(tmp: &TempDir, edit: impl Fn(usize, &mut Value)) -> PathBuf {
    let src = tmp.path().join("src");
    copy_tree(&repo().join(CORPUS), &src);
    for i in 0.. {
        let path = src.join(format!("frame_{i:03}.ax.json"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            break;
        };
        let mut tree: Value = serde_json::from_str(&text).unwrap();
        edit(i, &mut tree);
        std::fs::write(&path, tree.to_string()).unwrap();
    }
    src
}

/// Each frame's windows (id, title, frame) and element ids, in order.
fn contents(rec: &Path) -> Vec<(Vec<String>, Vec<String>)> {
    let rec = load_recording(rec).unwrap();
    rec.frames
        .iter()
        .map(|f| {
            let windows = f.ax.apps.iter().flat_map(|a| &a.windows);
            let wins = windows
                .map(|w| format!("{} {:?} {:?}", w.id, w.title, w.frame))
                .collect();
            fn ids(es: &[Element], out: &mut Vec<String>) {
                for e in es {
                    out.push(e.id.clone());
                    ids(&e.children, out);
                }
            }
            let mut all = Vec::new();
            for w in f.ax.apps.iter().flat_map(|a| &a.windows) {
                ids(&w.elements, &mut all);
            }
            (wins, all)
        })
        .collect()
}

/// Qt 6 gives its main window the role `filler`: the zenity dialog given that role (and
/// `unknown` in another frame) imports with the same windows and controls as the real one.
#[test]
fn a_top_level_node_of_an_unknown_role_is_kept_as_its_window() {
    let tmp = TempDir::new("import-filler");
    edited_corpus(&tmp, |i, tree| {
        // The last frame, after OK, has no app left.
        let app = tree["applications"].get_mut(0);
        if let Some(top) = app.and_then(|a| a["children"].get_mut(0)) {
            assert_eq!(top["role"], "dialog");
            top["role"] = if i == 3 { "unknown" } else { "filler" }.into();
        }
    });
    let run = stepreplay(tmp.path())
        .args(["import", "src", "--out", "rec"])
        .run();
    run.check(run.code == 0, "imports");
    run.check(!run.stdout.contains("left out"), "nothing left out");
    let real_out = tmp.path().join("real");
    let run = stepreplay(repo())
        .args(["import", CORPUS, "--out"])
        .arg(&real_out)
        .run();
    run.check(run.code == 0, "the real capture imports");
    let (edited, real) = (contents(&tmp.path().join("rec")), contents(&real_out));
    assert_eq!(edited.len(), 9);
    for (i, (e, r)) in edited.iter().zip(&real).enumerate() {
        assert!(
            i == 8 || e.0.iter().any(|w| w.starts_with("w0-0 \"Add Contact\"")),
            "frame {i}: {:?}",
            e.0
        );
        assert!(
            i == 8 || e.1.len() > 10,
            "frame {i}: {} elements",
            e.1.len()
        );
        assert_eq!(e, r, "frame {i}");
    }
}

/// Step 1 clicks the First name field (`0/0/0/0/0/8`); with that node taken out of the frame
/// before it, `import` refuses (exit 2) naming the step and the element, and writes nothing;
/// `--allow-partial` imports it with the step bound to nothing.
#[test]
fn an_import_that_leaves_the_acted_on_element_out_exits_2() {
    let tmp = TempDir::new("import-missing");
    edited_corpus(&tmp, |i, tree| {
        if i == 0 {
            assert!(remove(tree, "0/0/0/0/0/8"), "the field is in frame 0");
        }
    });
    let run = stepreplay(tmp.path())
        .args(["import", "src", "--out", "rec"])
        .run();
    run.assert_no_panic();
    run.check(run.code == 2, "refused as bad input");
    run.check(
        run.stderr.contains("target-not-found")
            && run.stderr.contains("step 1 (click)")
            && run.stderr.contains("0/0/0/0/0/8")
            && run.stderr.contains("--allow-partial"),
        "names the step, the element and the way out",
    );
    assert!(!tmp.path().join("rec").exists(), "nothing written");
    let run = stepreplay(tmp.path())
        .args(["import", "src", "--out", "rec", "--allow-partial"])
        .run();
    run.check(run.code == 0, "imports with --allow-partial");
    run.check(
        run.stdout.contains("step 1 (click)") && run.stdout.contains("left unbound"),
        "says which step is left unbound",
    );
    let rec = load_recording(&tmp.path().join("rec")).unwrap();
    let t = &rec.file.transitions;
    assert_eq!(
        (t[0].element.as_deref(), t[0].step_id.as_deref()),
        (None, None)
    );
    assert_eq!(t[1].step_id.as_deref(), Some("s2"));
}

/// Takes the node at `path` out of the tree; whether it was there.
fn remove(node: &mut Value, path: &str) -> bool {
    let key = if node.get("applications").is_some() {
        "applications"
    } else {
        "children"
    };
    let Some(children) = node.get_mut(key).and_then(Value::as_array_mut) else {
        return false;
    };
    if let Some(at) = children.iter().position(|c| c["path"] == path) {
        children.remove(at);
        return true;
    }
    children.iter_mut().any(|c| remove(c, path))
}

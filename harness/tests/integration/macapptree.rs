//! `stepreplay import` of a real macOS AX dump in macapptree's shape: the Screen2AX sample in
//! `corpora/macos-screen2ax-sample` (one window, 99 nodes, a stand-in screenshot).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use stepreplay::import::import_realrec;
use stepreplay::recording::{Rect, load_recording};

use crate::util::{TempDir, repo, stepreplay};

const CORPUS: &str = "corpora/macos-screen2ax-sample";
const DUMP: &str = "frame_000.macapptree.json";

fn rect(x: i32, y: i32, width: i32, height: i32) -> Rect {
    Rect {
        x,
        y,
        width,
        height,
    }
}

/// Every file under `dir`, by relative path, with its bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_path_buf();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// A copy of the corpus in `tmp/src` whose dump `edit` has changed.
fn edited_copy(tmp: &TempDir, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let src = tmp.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    for name in ["frame_000.png", "steps.json", "meta.json"] {
        std::fs::copy(repo().join(CORPUS).join(name), src.join(name)).unwrap();
    }
    let text = std::fs::read_to_string(repo().join(CORPUS).join(DUMP)).unwrap();
    let mut dump: Value = serde_json::from_str(&text).unwrap();
    edit(&mut dump);
    std::fs::write(src.join(DUMP), serde_json::to_string_pretty(&dump).unwrap()).unwrap();
    src
}

#[test]
fn the_screen2ax_sample_imports_with_its_real_controls() {
    let tmp = TempDir::new("macapptree");
    let out = tmp.path().join("rec");
    let o = import_realrec(&repo().join(CORPUS), &out, "screen2ax", None, false).expect("imports");
    assert_eq!((o.frames, o.transitions), (1, 1));
    assert_eq!((o.atspi_frames, o.mac_frames.len()), (0, 0));
    assert_eq!(o.macapptree_frames, ["frame_000"]);
    assert!(o.unmatched.is_empty(), "{:?}", o.unmatched);

    let rec = load_recording(&out).unwrap();
    let s = rec.file.screen;
    assert_eq!((s.width, s.height, s.scale), (1728, 988, 1));
    assert_eq!(
        rec.file.source.detail.as_deref(),
        Some(
            "realrec, macapptree trees: Screen2AX example: a macOS chat app's window as \
             macapptree dumps it"
        )
    );
    let ax = &rec.frames[0].ax;
    // 99 nodes: the root is the window, the other 98 its elements.
    assert_eq!(ax.element_count(), 98);
    assert_eq!(ax.apps.len(), 1);
    let app = &ax.apps[0];
    assert!(app.frontmost);
    assert_eq!(app.windows.len(), 1);
    let w = &app.windows[0];
    assert_eq!((w.id.as_str(), w.title.as_str()), ("w0", "Chats"));
    assert!(w.focused);
    // The dump says the window is at 0,38 on the desktop; its nodes are relative to it.
    assert_eq!(w.frame, rect(0, 0, 1728, 988));

    // The send button: named in its description, its box as dumped.
    let (_, _, send) = ax.find("e0-0-0-4-4").expect("the send button");
    assert_eq!(send.ax_role, "AXButton");
    assert_eq!(send.own_name(), Some("Arrow Up Circle"));
    assert_eq!(send.role_description.as_deref(), Some("button"));
    assert_eq!(send.frame, rect(1688, 947, 24, 24));
    assert_eq!(
        rec.file.transitions[0].element.as_deref(),
        Some("e0-0-0-4-4")
    );
    // The model picker: named in its title.
    let (_, _, pick) = ax.find("e0-1-2-0").unwrap();
    assert_eq!(pick.ax_role, "AXPopUpButton");
    assert_eq!(pick.title.as_deref(), Some("GPT-4o"));
    assert_eq!(pick.frame, rect(434, 12, 80, 28));
    // A toolbar button inside the toolbar button of the same name.
    let (_, _, inner) = ax.find("e0-1-1-0").unwrap();
    assert_eq!(inner.own_name(), Some("New Chat"));
    assert_eq!(inner.frame, rect(386, 14, 18, 17));
    // A static text named by its value, its fractional y (76.79) rounded.
    let (_, _, text) = ax.find("e0-0-0-0-0-0-1-0-0").unwrap();
    assert_eq!(
        (text.ax_role.as_str(), text.own_name()),
        ("AXStaticText", Some("Chats"))
    );
    assert_eq!(text.frame, rect(19, 77, 56, 16));
    // A prompt scrolled partly off the window, and a splitter's numeric value.
    let (_, _, off) = ax.find("e0-0-0-4-0-0-1").unwrap();
    assert_eq!(
        off.own_name(),
        Some("Devise a zero-gravity sport, for space travelers.")
    );
    assert_eq!(off.frame, rect(-436, 478, 300, 74));
    assert_eq!(
        ax.find("e0-0-0-1").unwrap().2.value.as_deref(),
        Some("140.0")
    );
}

/// The command line writes the same bytes as the library, twice over: every byte is a
/// function of the source files.
#[test]
fn the_command_line_import_is_deterministic_and_says_which_trees_it_read() {
    let tmp = TempDir::new("macapptree-cli");
    let mut outs = Vec::new();
    for n in 0..2 {
        let out = tmp.path().join(format!("rec{n}"));
        let run = stepreplay(repo())
            .args(["import", CORPUS, "--name", "screen2ax", "--out"])
            .args([&out])
            .run();
        run.check(run.code == 0, "imports");
        run.check(
            run.stdout
                .contains("trees: frame_NNN.macapptree.json (macapptree dumps"),
            "says it read the macapptree dump",
        );
        outs.push(files(&out));
    }
    let lib = tmp.path().join("lib");
    import_realrec(&repo().join(CORPUS), &lib, "screen2ax", None, false).unwrap();
    assert_eq!(outs[0], outs[1]);
    assert_eq!(outs[0], files(&lib));
}

/// A container without geometry (macapptree writes `""` or null) keeps its subtree: the
/// toolbar's buttons keep their own boxes, the toolbar gets an empty frame.
#[test]
fn a_control_under_a_node_without_geometry_survives() {
    let tmp = TempDir::new("macapptree-nogeom");
    let src = edited_copy(&tmp, |dump| {
        let toolbar = &mut dump["children"][1];
        assert_eq!(toolbar["role"], "AXToolbar");
        toolbar["position"] = "".into();
        toolbar["size"] = "".into();
        let group = &mut toolbar["children"][2];
        assert_eq!(group["role"], "AXGroup");
        group["position"] = Value::Null;
        group.as_object_mut().unwrap().remove("size");
    });
    let out = tmp.path().join("rec");
    import_realrec(&src, &out, "nogeom", None, false).expect("imports");
    let rec = load_recording(&out).unwrap();
    let ax = &rec.frames[0].ax;
    assert_eq!(ax.element_count(), 98);
    assert_eq!(ax.find("e0-1").unwrap().2.frame, Rect::default());
    assert_eq!(ax.find("e0-1-2").unwrap().2.frame, Rect::default());
    let (_, _, inner) = ax.find("e0-1-1-0").unwrap();
    assert_eq!(inner.own_name(), Some("New Chat"));
    assert_eq!(inner.frame, rect(386, 14, 18, 17));
    let (_, _, pick) = ax.find("e0-1-2-0").unwrap();
    assert_eq!(pick.title.as_deref(), Some("GPT-4o"));
    assert_eq!(pick.frame, rect(434, 12, 80, 28));
}

/// A position that is not `x;y` is refused with the file, the field path, the reason code and
/// the text it could not read; nothing panics and nothing is written.
#[test]
fn a_malformed_position_is_refused_with_its_field_path() {
    let tmp = TempDir::new("macapptree-bad");
    let src = edited_copy(&tmp, |dump| {
        dump["children"][1]["children"][1]["position"] = json!("377.00,0.00");
    });
    let out = tmp.path().join("rec");
    let run = stepreplay(tmp.path())
        .args(["import", "src", "--out", "rec"])
        .run();
    run.assert_no_panic();
    run.check(run.code == 2, "refused as bad input");
    run.check(
        run.stderr
            .contains("invalid-field: src/frame_000.macapptree.json:"),
        "reason code and file",
    );
    run.check(
        run.stderr.contains("at `children[1].children[1].position`"),
        "field path",
    );
    run.check(
        run.stderr.contains("\"377.00,0.00\" is not \"x;y\""),
        "what is wrong",
    );
    assert!(!out.exists(), "nothing written");
    let err = import_realrec(&src, &out, "bad", None, false).unwrap_err();
    let stepreplay::Error::Input(e) = err else {
        panic!("{err:?}")
    };
    assert_eq!(e.reason.code(), "invalid-field");
    assert_eq!(e.file, src.join(DUMP));
    assert_eq!(e.path.to_string(), "children[1].children[1].position");
    assert!(e.position.is_some());
}

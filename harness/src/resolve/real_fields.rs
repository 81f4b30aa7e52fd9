//! The innermost field beats its container, on every real tree in the suite: for each leaf
//! text field of every frame of every imported recording (`recordings/*` whose source is an
//! import: GTK, Qt, LibreOffice, Chromium, …), a target made of the field's role, its name
//! (own, labelled-by or the label beside it) and its bounds, as `record` writes one, resolves
//! to the field; no ancestor of it wins or comes within the ambiguity margin.

use std::path::Path;

use super::AMBIGUITY_MARGIN;
use super::index::FrameIndex;
use super::target::control_key;
use super::testing::run_on;
use crate::plan::{Bounds, Target, share};
use crate::recording::ax::Element;
use crate::recording::format::SourceKind;
use crate::recording::load_recording;

/// Leaf text fields on screen under `e`, each with its ancestors' ids (`up`, outermost first).
fn leaf_fields<'a>(
    e: &'a Element,
    up: &mut Vec<&'a str>,
    out: &mut Vec<(&'a Element, Vec<&'a str>)>,
) {
    let field = matches!(
        e.ax_role.as_str(),
        "AXTextField" | "AXTextArea" | "AXSearchField"
    );
    if field && e.children.is_empty() && e.frame.area() > 0 {
        out.push((e, up.clone()));
    }
    up.push(&e.id);
    for c in &e.children {
        leaf_fields(c, up, out);
    }
    up.pop();
}

#[test]
fn the_innermost_field_beats_its_containers_on_every_real_tree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../recordings");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("recording.json").is_file())
        .collect();
    dirs.sort();
    let (mut recordings, mut fields, mut failures) = (Vec::new(), 0, Vec::new());
    // How near an ancestor came to the field's score.
    let mut closest = f64::INFINITY;
    for dir in dirs {
        let rec = load_recording(&dir).unwrap();
        if rec.file.source.kind != SourceKind::Import {
            continue;
        }
        let name = rec.file.name.clone();
        let screen = (rec.file.screen.width, rec.file.screen.height);
        recordings.push(name.clone());
        for frame in &rec.frames {
            let ix = FrameIndex::new(&frame.ax);
            for app in &frame.ax.apps {
                let mut found = Vec::new();
                for w in &app.windows {
                    let mut up = vec![w.id.as_str()];
                    for e in &w.elements {
                        leaf_fields(e, &mut up, &mut found);
                    }
                }
                for (field, ancestors) in found {
                    fields += 1;
                    let Some(i) = ix.index_of(&field.id) else {
                        failures.push(format!("{name} {}: {} not indexed", frame.id, field.id));
                        continue;
                    };
                    let f = field.frame;
                    let named = Target {
                        app: Some(app.name.clone()),
                        window: Some(ix.window_of(&ix.nodes[i as usize]).title.clone())
                            .filter(|t| !t.is_empty()),
                        ax_role: Some(field.ax_role.clone()),
                        label: ix.nodes[i as usize].name.map(str::to_string),
                        bounds: Some(Bounds {
                            x: share(f.x as f64, screen.0),
                            y: share(f.y as f64, screen.1),
                            width: share(f.width as f64, screen.0),
                            height: share(f.height as f64, screen.1),
                        }),
                        ..Target::default()
                    };
                    // As written, and without the name (a field the guide could not name).
                    let nameless = Target {
                        label: None,
                        ..named.clone()
                    };
                    for t in [named, nameless] {
                        let r = run_on(&t, &ix, screen, &[]);
                        let top = r.candidates.first().map_or(0.0, |c| c.score);
                        let won = r.element.as_deref().and_then(|e| ix.index_of(e));
                        let is_field =
                            won.is_some_and(|w| control_key(&ix, w) == control_key(&ix, i));
                        let tied_ancestors: Vec<&str> = r
                            .candidates
                            .iter()
                            .filter(|c| top - c.score < AMBIGUITY_MARGIN)
                            .map(|c| c.element.as_str())
                            .filter(|c| ancestors.contains(c))
                            .collect();
                        let ancestor_best = r
                            .candidates
                            .iter()
                            .filter(|c| ancestors.contains(&c.element.as_str()))
                            .map(|c| c.score)
                            .fold(f64::NEG_INFINITY, f64::max);
                        closest = closest.min(top - ancestor_best);
                        if !is_field || !tied_ancestors.is_empty() {
                            failures.push(format!(
                            "{name} {}: {} {:?} → {:?} (ambiguous: {}, ancestors tied: {tied_ancestors:?}) {:?}",
                            frame.id, field.id, t.label, r.element, r.ambiguous, r.candidates
                        ));
                        }
                    }
                }
            }
        }
    }
    eprintln!("{fields} fields in {recordings:?}; nearest ancestor {closest:.3} behind");
    assert!(recordings.len() >= 10, "{recordings:?}");
    assert!(fields >= 50, "only {fields} fields in {recordings:?}");
    assert!(
        failures.is_empty(),
        "{} of {fields} fields:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

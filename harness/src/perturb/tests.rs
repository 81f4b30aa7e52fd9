//! Every perturbation keeps ground truth and is byte-deterministic; robustness tells a
//! point-only guide from a labelled one.

use std::path::Path;

use super::*;
use crate::json::to_canonical_value;
use crate::plan::load_plan;
use crate::recording::{Recording, load_recording};
use crate::replay::{DEFAULT_SEED, robustness};
use crate::scenario::load_scenario;

fn mini() -> Recording {
    load_recording(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mini/recordings/mini"),
    )
    .unwrap()
}

fn bytes(rec: &Recording) -> Vec<u8> {
    let mut out = to_canonical_value(&rec.file).into_bytes();
    for f in &rec.frames {
        out.extend(to_canonical_value(&*f.ax).into_bytes());
        out.extend(f.pixels().unwrap().as_raw());
    }
    out
}

#[test]
fn every_perturbation_is_deterministic_and_keeps_ground_truth() {
    let rec = mini();
    for name in STANDARD {
        let p: Perturbation = name.parse().unwrap();
        let a = perturb(&rec, &p, 7).unwrap();
        let b = perturb(&rec, &p, 7).unwrap();
        assert!(bytes(&a) == bytes(&b), "{name} is not deterministic");
        for t in &a.file.transitions {
            let el = t.element.as_deref().unwrap();
            let from = a.frame(&t.from).unwrap();
            assert!(
                from.ax.find(el).is_some(),
                "{name}: element {el} lost in {}",
                t.from
            );
        }
        // The fixture's labels ("To:", "PIN", "Send") are too short to shorten.
        if *name != "ellipsize-label" {
            assert!(bytes(&a) != bytes(&rec), "{name} changed nothing");
        }
    }
}

#[test]
fn moving_a_window_moves_its_elements_and_pixels_together() {
    let rec = mini();
    let moved = perturb(&rec, &"move-window:30,20".parse().unwrap(), 1).unwrap();
    let (_, _, before) = rec.frames[0].ax.find("e3").unwrap();
    let (_, _, after) = moved.frames[0].ax.find("e3").unwrap();
    assert_eq!(
        (after.frame.x, after.frame.y),
        (before.frame.x + 30, before.frame.y + 20)
    );
    // The Send button's blue: at its old place in the original, at its new place after.
    let (a, b) = (
        rec.frames[0].pixels().unwrap(),
        moved.frames[0].pixels().unwrap(),
    );
    let p = a.get_pixel(before.frame.x as u32 + 2, before.frame.y as u32 + 2);
    assert_eq!(
        b.get_pixel(after.frame.x as u32 + 2, (after.frame.y as u32 + 2).min(99)),
        p
    );
}

#[test]
fn scale_doubles_frames_and_screen() {
    let rec = mini();
    let s = perturb(&rec, &Perturbation::Scale, 1).unwrap();
    assert_eq!(
        (
            s.file.screen.width,
            s.file.screen.height,
            s.file.screen.scale
        ),
        (320, 200, 2)
    );
    let (_, _, e) = s.frames[0].ax.find("e3").unwrap();
    assert_eq!((e.frame.x, e.frame.width), (220, 80));
    assert_eq!(s.frames[0].pixels().unwrap().dimensions(), (320, 200));
}

#[test]
fn point_only_targets_break_under_window_moves_and_labelled_ones_do_not() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mini/scenarios");
    let scenario = load_scenario(&dir.join("mini-completed.json")).unwrap();
    let plan = load_plan(&dir.join("mini/plan.json")).unwrap();
    let rec = mini();
    let moves: Vec<Perturbation> = ["move-window:40,10", "move-window:-30,15"]
        .iter()
        .map(|p| p.parse().unwrap())
        .collect();
    let r = robustness(&plan, &rec, &scenario.file, &moves, DEFAULT_SEED).unwrap();
    // Step 3 is the nameless attach button: found by point only, lost when the window moves.
    assert!(r.broken.iter().all(|p| p.step_id == "s3"), "{:?}", r.broken);
    assert_eq!(r.broken.len(), 2);
    let why = r.broken[0].why.as_deref().unwrap();
    assert!(why.contains("point only"), "{why}");
    // The report says the point was a guess, not that the resolver knew better.
    assert!(why.contains("point taken as recorded"), "{why}");
    assert!(r.score < 1.0);

    // The same plan without the point-only step: every labelled step survives the moves.
    let mut labelled = plan.clone();
    labelled
        .steps
        .retain(|s| s.target.as_ref().is_some_and(|t| t.label.is_some()));
    let r = robustness(&labelled, &rec, &scenario.file, &moves, DEFAULT_SEED).unwrap();
    assert_eq!(r.score, 1.0, "{:?}", r.broken);
}

#[test]
fn a_point_only_step_survives_window_moves_when_the_plan_places_a_named_control_beside_it() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mini/scenarios");
    let scenario = load_scenario(&dir.join("mini-completed.json")).unwrap();
    let mut plan = load_plan(&dir.join("mini/plan.json")).unwrap();
    let rec = mini();
    let moves: Vec<Perturbation> = ["move-window:40,10", "move-window:-30,15"]
        .iter()
        .map(|p| p.parse().unwrap())
        .collect();
    // Step 4's "Send" button with the bounds the recording shows for it (110, 70, 40×20 on a
    // 160×100 screen), as a plan made from that recording would carry them.
    let send = plan.steps[3].target.as_mut().unwrap();
    assert_eq!(send.label.as_deref(), Some("Send"));
    send.bounds = Some(crate::plan::Bounds {
        x: 0.6875,
        y: 0.7,
        width: 0.25,
        height: 0.2,
    });
    let r = robustness(&plan, &rec, &scenario.file, &moves, DEFAULT_SEED).unwrap();
    assert_eq!(r.score, 1.0, "{:?}", r.broken);
    assert_eq!(r.total, 8);
}

#[test]
fn ellipsizing_keeps_a_readable_stem() {
    let rec = mini();
    let mut long = rec.frames[0].ax.as_ref().clone();
    long.apps[0].windows[0].elements[6].title = Some("Send reminder".into());
    let targets = ["e3".to_string()].into_iter().collect();
    let ctx = apply::Ctx {
        targets: &targets,
        scale: 1,
    };
    labels::ellipsize(&mut long, &ctx);
    assert_eq!(
        long.apps[0].windows[0].elements[6].title.as_deref(),
        Some("Send r…")
    );
}

//! The follower's manners, one test each, on small recordings built in memory.

use std::path::{Path, PathBuf};

use image::RgbaImage;
use serde_json::json;

use super::*;
use crate::expect::CheckKind;
use crate::json::Source;
use crate::plan::{Action, Part, Plan, Text, lower_foxstep, parse_foxstep};
use crate::recording::format::{
    FrameRef, RecordingFile, Screen, SourceInfo, SourceKind, Transition,
};
use crate::recording::{AxSnapshot, Frame, Recording};
use crate::scenario::{FailReason, Outcome, ScenarioFile};

fn ax(fields: serde_json::Value, title: &str) -> AxSnapshot {
    serde_json::from_value(json!({
        "schema": "stepreplay-ax/1",
        "apps": [{"name": "Notes", "frontmost": true, "windows": [{
            "id": "w1", "title": title, "focused": true,
            "frame": {"x": 0, "y": 0, "width": 200, "height": 100},
            "elements": fields
        }]}]
    }))
    .unwrap()
}

fn field(id: &str, label: &str, y: i32, value: &str, secure: bool) -> serde_json::Value {
    let mut f = json!({"id": id, "ax_role": "AXTextField", "title": label, "value": value,
        "frame": {"x": 50, "y": y, "width": 100, "height": 12}});
    if secure {
        f["subrole"] = json!("AXSecureTextField");
    }
    f
}

/// The recording's actions made the kind each plan step does (the fixtures record `type`),
/// keeping the keys pressed and the text typed (text with no input in it) as a recording of
/// the plan would: the fixtures' frames do not show what was typed.
fn acted_as_planned(mut rec: Recording, p: &Plan) -> Recording {
    for t in &mut rec.file.transitions {
        if let Some(step) = p.steps.iter().find(|s| Some(&s.id) == t.step_id.as_ref()) {
            t.action = match step.action.name() {
                "press" => "key".into(),
                other => other.into(),
            };
            match &step.action {
                Action::Press { keys } => t.operation.keys = Some(keys.clone()),
                Action::Type { text, .. } | Action::Paste { text: Some(text) } => {
                    let no_input = match text {
                        Text::Template(parts) => !parts.iter().any(|p| matches!(p, Part::Input(_))),
                        _ => true,
                    };
                    if no_input {
                        let none = Default::default();
                        t.operation.text = Some(crate::plan::fill_known(p, &none, text, &none));
                    }
                }
                _ => {}
            }
        }
    }
    rec
}

/// `p` replayed in a chained run on `rec` acted as planned, the person giving no answers.
fn chained_as_planned(rec: Recording, p: &Plan) -> Trace {
    follow(p, &acted_as_planned(rec, p), json!({}), Mode::Chained)
}

/// The recording keeping "x" as the text each of its actions typed: the fixtures' frames do
/// not show it.
fn typed_x(mut rec: Recording) -> Recording {
    for t in &mut rec.file.transitions {
        t.operation.text = Some("x".into());
    }
    rec
}

/// A recording of frames (id, snapshot) joined by transitions (from, element, to, step).
fn recording(
    frames: Vec<(&str, AxSnapshot)>,
    transitions: &[(&str, &str, &str, &str)],
) -> Recording {
    let file = RecordingFile {
        schema: "stepreplay-recording/1".into(),
        name: "test".into(),
        screen: Screen {
            width: 200,
            height: 100,
            scale: 1,
        },
        source: SourceInfo {
            kind: SourceKind::Synthetic,
            detail: None,
            notes: Vec::new(),
        },
        frames: frames
            .iter()
            .map(|(id, _)| FrameRef {
                id: id.to_string(),
                screenshot: format!("{id}.png"),
                ax: format!("{id}.json"),
                dom: None,
                step_id: None,
            })
            .collect(),
        transitions: transitions
            .iter()
            .map(|(from, el, to, step)| Transition {
                from: from.to_string(),
                action: "type".into(),
                element: Some(el.to_string()),
                equivalent: vec![],
                to: to.to_string(),
                step_id: Some(step.to_string()),
                operation: Default::default(),
            })
            .collect(),
        exchanges: Vec::new(),
    };
    let frames = frames
        .into_iter()
        .map(|(id, a)| Frame::with_pixels(id.to_string(), a, RgbaImage::new(200, 100)))
        .collect();
    Recording {
        dir: PathBuf::from("."),
        file,
        frames,
    }
}

/// `p` followed on `rec` in `mode`, the scenario answering `answers`.
fn follow(p: &Plan, rec: &Recording, answers: serde_json::Value, mode: Mode) -> Trace {
    replay(p, &Prepared::new(rec), &scenario(answers), mode)
}

fn plan(steps: serde_json::Value, inputs: serde_json::Value) -> Plan {
    let v = json!({"schema": "foxstep-step-plan/1", "guide": {"id": "g", "title": "t"}, "inputs": inputs, "steps": steps});
    let src = Source::from_text("plan.json", v.to_string());
    lower_foxstep(&parse_foxstep(&src).unwrap(), Path::new(".")).unwrap()
}

fn type_step(n: u32, id: &str, label: &str, template: &str, reads: &[&str]) -> serde_json::Value {
    json!({"number": n, "label": n.to_string(), "step_id": id, "action": "type", "text": format!("Type in {label}"),
        "template": template, "reads": reads,
        "target": {"app": "Notes", "window": "Compose", "ax_role": "AXTextField", "label": label}})
}

fn scenario(answers: serde_json::Value) -> ScenarioFile {
    serde_json::from_value(
        json!({"schema": "stepreplay-scenario/1", "id": "t", "plan": "p", "recording": "r",
        "answers": answers, "expect": {"outcome": "completed"}}),
    )
    .unwrap()
}

fn asks(t: &Trace, kind: AskKind) -> Vec<(usize, String)> {
    t.events
        .iter()
        .filter_map(|e| match e {
            Event::Asked {
                step,
                kind: k,
                answer,
                ..
            } if *k == kind => Some((*step, answer.clone())),
            _ => None,
        })
        .collect()
}

fn two_pin_steps() -> (Recording, Plan) {
    let f = |v: &str| ax(json!([field("pin", "PIN", 10, v, true)]), "Compose");
    let rec = recording(
        vec![("a", f("")), ("b", f("••••")), ("c", f("••••"))],
        &[("a", "pin", "b", "s1"), ("b", "pin", "c", "s2")],
    );
    let inputs = json!([{"id": "pin", "name": "PIN", "changes": "each-time", "basis": "author", "sensitive": true,
        "shape": "number", "used_by": [1, 2]}]);
    let p = plan(
        json!([
            type_step(1, "s1", "PIN", "{pin}", &["pin"]),
            type_step(2, "s2", "PIN", "{pin}", &["pin"])
        ]),
        inputs,
    );
    (rec, p)
}

#[test]
fn a_sensitive_input_is_asked_for_at_every_step_and_never_shown() {
    let (rec, p) = two_pin_steps();
    // Step 2 replaces what step 1 typed: the follower typed it itself, so it does not ask.
    let t = follow(
        &p,
        &rec,
        json!({"sensitive": {"pin": "9876"}}),
        Mode::Chained,
    );
    assert_eq!(
        asks(&t, AskKind::SensitiveInput),
        vec![
            (0, crate::secret::REDACTED.to_string()),
            (1, crate::secret::REDACTED.to_string())
        ]
    );
    assert_eq!(t.outcome().0, Outcome::Completed);
    let text = serde_json::to_string(&t).unwrap();
    assert!(
        !text.contains("9876"),
        "the secret leaked into the trace: {text}"
    );
}

#[test]
fn no_value_for_a_sensitive_input_stops_the_run() {
    let (rec, p) = two_pin_steps();
    let t = follow(&p, &rec, json!({}), Mode::Chained);
    assert_eq!(
        t.outcome(),
        (
            Outcome::Stopped,
            Some(FailReason::StoppedByPerson),
            Some("s1".into())
        )
    );
}

fn confirm_case(answer: serde_json::Value) -> Trace {
    let f = ax(
        json!([{"id": "send", "ax_role": "AXButton", "title": "Send", "frame": {"x": 10, "y": 10, "width": 40, "height": 20}}]),
        "Compose",
    );
    let g = ax(json!([]), "Sent");
    let rec = recording(vec![("a", f), ("b", g)], &[("a", "send", "b", "s1")]);
    let p = plan(
        json!([{"number": 1, "label": "1", "step_id": "s1", "action": "click", "text": "Click Send",
            "click": {"button": "left", "count": 1}, "confirm": true, "confirm_reason": "Send acts straight away.",
            "target": {"app": "Notes", "window": "Compose", "ax_role": "AXButton", "label": "Send"},
            "expect": {"window": "Sent"}}]),
        json!([]),
    );
    let rec = acted_as_planned(rec, &p);
    follow(&p, &rec, answer, Mode::Chained)
}

#[test]
fn a_confirm_step_asks_and_an_approval_goes_on() {
    let t = confirm_case(json!({"confirm": {"s1": "approve"}}));
    assert_eq!(asks(&t, AskKind::Confirm), vec![(0, "approve".to_string())]);
    assert_eq!(t.outcome().0, Outcome::Completed);
}

#[test]
fn a_declined_or_unanswered_confirm_stops_before_acting() {
    for answers in [json!({"confirm": {"s1": "decline"}}), json!({})] {
        let t = confirm_case(answers);
        assert_eq!(
            t.outcome(),
            (
                Outcome::Stopped,
                Some(FailReason::StoppedByPerson),
                Some("s1".into())
            )
        );
        assert!(
            !t.events.iter().any(|e| matches!(e, Event::Acted { .. })),
            "acted after a decline"
        );
    }
}

fn prefilled_case(answers: serde_json::Value, step_text: &str) -> Trace {
    let f = |v: &str| ax(json!([field("subj", "Subject", 10, v, false)]), "Compose");
    let rec = recording(
        vec![("a", f("Old draft")), ("b", f("Invoice"))],
        &[("a", "subj", "b", "s1")],
    );
    let mut step = type_step(1, "s1", "Subject", "Invoice", &[]);
    step.as_object_mut().unwrap().remove("template");
    step["value"] = json!("Invoice");
    step["text"] = json!(step_text);
    let p = plan(json!([step]), json!([]));
    follow(&p, &rec, answers, Mode::Chained)
}

#[test]
fn typing_over_text_the_guide_does_not_mention_asks_first() {
    let t = prefilled_case(json!({}), "Type the subject");
    assert_eq!(asks(&t, AskKind::ReplacePrefilled).len(), 1);
    assert_eq!(t.outcome().1, Some(FailReason::StoppedByPerson));

    let t = prefilled_case(json!({"replace": {"s1": true}}), "Type the subject");
    assert_eq!(t.outcome().0, Outcome::Completed);

    // Text the guide mentions is not a surprise: no question.
    let t = prefilled_case(json!({}), "Replace “Old draft” with the subject");
    assert!(asks(&t, AskKind::ReplacePrefilled).is_empty());
    assert_eq!(t.outcome().0, Outcome::Completed);
}

#[test]
fn stop_if_that_holds_stops_the_run() {
    let f = ax(json!([field("subj", "Subject", 10, "", false)]), "Compose");
    let rec = typed_x(recording(
        vec![("a", f.clone()), ("b", f)],
        &[("a", "subj", "b", "s1")],
    ));
    let mut step = type_step(1, "s1", "Subject", "x", &[]);
    step.as_object_mut().unwrap().remove("template");
    step["value"] = json!("x");
    let mut holds = step.clone();
    holds["stop_if"] = json!({"text": "the compose window is open", "window": "Compose"});
    let t = follow(
        &plan(json!([holds]), json!([])),
        &rec,
        json!({}),
        Mode::Chained,
    );
    assert_eq!(
        t.outcome(),
        (
            Outcome::Stopped,
            Some(FailReason::StopIf),
            Some("s1".into())
        )
    );

    let mut not = step;
    not["stop_if"] = json!({"text": "an error shows", "window": "Error"});
    let t = follow(
        &plan(json!([not]), json!([])),
        &rec,
        json!({}),
        Mode::Chained,
    );
    assert_eq!(t.outcome().0, Outcome::Completed);
}

#[test]
fn stop_if_in_words_is_put_to_the_person_and_no_answer_stops() {
    let f = ax(json!([field("subj", "Subject", 10, "", false)]), "Compose");
    let rec = typed_x(recording(
        vec![("a", f.clone()), ("b", f)],
        &[("a", "subj", "b", "s1")],
    ));
    let mut step = type_step(1, "s1", "Subject", "x", &[]);
    step.as_object_mut().unwrap().remove("template");
    step["value"] = json!("x");
    step["stop_if"] = json!("the invoice is already paid");
    let p = plan(json!([step]), json!([]));
    let run = |answers| follow(&p, &rec, answers, Mode::Chained);

    let t = run(json!({}));
    assert_eq!(t.outcome().1, Some(FailReason::StopIf));
    let asked = asks(&t, AskKind::StopIf);
    assert_eq!(asked, vec![(0, "no answer (stop)".to_string())]);
    let detail = t.events.iter().find_map(|e| match e {
        Event::Asked { detail, .. } => Some(detail.clone()),
        _ => None,
    });
    assert_eq!(
        detail.as_deref(),
        Some("step 1: stop if the invoice is already paid?")
    );

    let t = run(json!({"stop_if": {"s1": "stop"}}));
    assert_eq!(t.outcome().1, Some(FailReason::StopIf));
    let t = run(json!({"stop_if": {"s1": "go-on"}}));
    assert_eq!(t.outcome().0, Outcome::Completed);
    assert_eq!(asks(&t, AskKind::StopIf), vec![(0, "go on".to_string())]);
}

/// Two fields of one window (label, row), the recording typing into the first; the plan types
/// into the field labelled `target`.
fn two_fields(first: (&str, i32), second: (&str, i32), target: &str) -> Trace {
    let f = ax(
        json!([
            field("a1", first.0, first.1, "", false),
            field("a2", second.0, second.1, "", false)
        ]),
        "Compose",
    );
    let rec = typed_x(recording(
        vec![("a", f.clone()), ("b", f)],
        &[("a", "a1", "b", "s1")],
    ));
    let p = plan(json!([type_step(1, "s1", target, "x", &[])]), json!([]));
    follow(&p, &rec, json!({}), Mode::Chained)
}

#[test]
fn acting_on_another_element_than_recorded_diverges() {
    let t = two_fields(("First", 10), ("Second", 30), "Second");
    assert_eq!(t.outcome().1, Some(FailReason::Diverged));
}

#[test]
fn two_controls_with_one_label_in_one_window_are_ambiguous() {
    let t = two_fields(("Name", 10), ("Name", 30), "Name");
    assert_eq!(t.outcome().1, Some(FailReason::TargetAmbiguous));
}

/// Two fields named "Name" whose boxes look different (stripes across the first, a
/// checkerboard on the second); the recording typed into the first. Step 1's target names
/// "Name" with the first one's `bounds` and `crop_available` as given, and no picture file:
/// the MCP form of a plan.
fn mcp_two_fields(crop_available: bool) -> Trace {
    let f = ax(
        json!([
            field("a1", "Name", 10, "", false),
            field("a2", "Name", 50, "", false)
        ]),
        "Compose",
    );
    let mut shot = grey(230, 200, 100);
    for x in 50..150 {
        for y in 10..22 {
            let v = if (x / 4) % 2 == 0 { 20 } else { 220 };
            shot.put_pixel(x, y, image::Rgba([v, v, v, 255]));
        }
        for y in 50..62 {
            let v = if (x / 3 + y / 3) % 2 == 0 { 60 } else { 180 };
            shot.put_pixel(x, y, image::Rgba([v, v, v, 255]));
        }
    }
    let mut rec = recording(vec![("a", f.clone()), ("b", f)], &[("a", "a1", "b", "s1")]);
    for fr in &mut rec.frames {
        *fr = Frame::with_pixels(fr.id.clone(), (*fr.ax).clone(), shot.clone());
    }
    let mut step = type_step(1, "s1", "Name", "x", &[]);
    step["target"]["crop_available"] = json!(crop_available);
    step["target"]["bounds"] = json!({"x": 0.25, "y": 0.1, "width": 0.5, "height": 0.12});
    let p = plan(json!([step]), json!([]));
    chained_as_planned(rec, &p)
}

fn tie_break_of_step_1(t: &Trace) -> Option<crate::resolve::TieBreak> {
    t.events.iter().find_map(|e| match e {
        Event::Resolved {
            step: 0,
            resolution,
            ..
        } => resolution.tie_break,
        _ => None,
    })
}

#[test]
fn an_mcp_plans_target_picture_is_cut_from_the_recorded_frame_at_bounds() {
    // `get_step_image` with `region: "target"`: the first field's stripes, which only it shows.
    let t = mcp_two_fields(true);
    assert_eq!(t.outcome(), (Outcome::Completed, None, None));
    assert_eq!(
        tie_break_of_step_1(&t),
        Some(crate::resolve::TieBreak::Crop)
    );
    // Without the flag there is no picture to ask for: the picture decides nothing.
    let t = mcp_two_fields(false);
    assert_ne!(
        tie_break_of_step_1(&t),
        Some(crate::resolve::TieBreak::Crop)
    );
}

#[test]
fn one_control_exposed_twice_in_the_tree_is_not_ambiguous() {
    // Same role, name and box (GTK's open combo menu is listed twice): one place to click.
    let t = two_fields(("Name", 10), ("Name", 10), "Name");
    assert_eq!(t.outcome(), (Outcome::Completed, None, None));
}

#[test]
fn a_step_that_acts_gets_its_before_after_diff_only_when_asked() {
    let f = |v: &str| ax(json!([field("subj", "Subject", 10, v, false)]), "Compose");
    let mut rec = recording(
        vec![("a", f("")), ("b", f("Hi"))],
        &[("a", "subj", "b", "s1")],
    );
    let mut after = RgbaImage::new(200, 100);
    for y in 20..30 {
        for x in 60..70 {
            after.put_pixel(x, y, image::Rgba([255, 0, 0, 255]));
        }
    }
    rec.frames[1] = Frame::with_pixels("b".into(), f("Hi"), after);
    let p = plan(json!([type_step(1, "s1", "Subject", "Hi", &[])]), json!([]));
    let captured = |prep: &Prepared| -> Vec<crate::diff::StepDiff> {
        replay(&p, prep, &scenario(json!({})), Mode::Chained)
            .events
            .into_iter()
            .filter_map(|e| match e {
                Event::Captured { step: 0, diff } => Some(diff),
                _ => None,
            })
            .collect()
    };
    assert!(captured(&Prepared::new(&rec)).is_empty(), "off by default");
    let on = captured(&Prepared::new(&rec).with_diffs(Default::default()));
    assert_eq!(on.len(), 1);
    let px = on[0].pixel.as_ref().expect("both frames have pixels");
    assert_eq!(px.mismatched, 100);
    assert_eq!(px.regions_total, 1);
    assert_eq!((px.regions[0].x, px.regions[0].y), (60, 20));
    assert_eq!(on[0].ax.value_changed, 1);
    assert_eq!(on[0].ax.added + on[0].ax.removed, 0);
}

/// Three fields, typed in order; the recording binds only `bound` of the step ids.
fn three_fields(bound: &[&str]) -> (Recording, Plan) {
    let f = |a: &str, b: &str, c: &str| {
        ax(
            json!([
                field("a", "A", 10, a, false),
                field("b", "B", 30, b, false),
                field("c", "C", 50, c, false)
            ]),
            "Compose",
        )
    };
    let all = [
        ("0", "a", "1", "s1"),
        ("1", "b", "2", "s2"),
        ("2", "c", "3", "s3"),
    ];
    let transitions: Vec<_> = all.into_iter().filter(|t| bound.contains(&t.3)).collect();
    let rec = recording(
        vec![
            ("0", f("", "", "")),
            ("1", f("x", "", "")),
            ("2", f("x", "y", "")),
            ("3", f("x", "y", "z")),
        ],
        &transitions,
    );
    let p = plan(
        json!([
            type_step(1, "s1", "A", "x", &[]),
            type_step(2, "s2", "B", "y", &[]),
            type_step(3, "s3", "C", "z", &[])
        ]),
        json!([]),
    );
    (rec, p)
}

#[test]
fn per_step_a_step_the_recording_does_not_bind_fails_instead_of_using_another_frame() {
    let (rec, p) = three_fields(&["s1", "s3"]);
    let t = follow(&p, &rec, json!({}), Mode::PerStep);
    assert_eq!(
        t.outcome(),
        (
            Outcome::Failed,
            Some(FailReason::Unbound),
            Some("s2".into())
        )
    );
    // Step 2 never started on any frame; steps 1 and 3 ran on their own recorded frames.
    let started: Vec<_> = t
        .events
        .iter()
        .filter_map(|e| match e {
            Event::StepStarted { step, frame } => Some((*step, frame.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(started, [(0, "0"), (2, "2")]);
    assert_eq!(
        t.truth,
        [Truth::Recorded, Truth::Unrecorded, Truth::Recorded]
    );
}

#[test]
fn a_recording_bound_to_no_step_scores_zero_rather_than_everything() {
    let (rec, p) = three_fields(&[]);
    for mode in [Mode::PerStep, Mode::Chained] {
        let t = follow(&p, &rec, json!({}), mode);
        let sc = crate::score::Tally::of(&t).scores();
        // Unbound steps are in the denominator, never right.
        assert_eq!(sc.element_accuracy.0, Some(0.0), "{mode:?}");
        assert_eq!(sc.click_accuracy.0, Some(0.0), "{mode:?}");
        assert_ne!(t.outcome().0, Outcome::Completed, "{mode:?}");
    }
}

#[test]
fn steps_never_reached_in_a_chained_run_count_as_wrong() {
    let (rec, mut p) = three_fields(&["s1", "s2", "s3"]);
    // Step 2 names a field that is not there: the chained run stops at it.
    if let Some(t) = p.steps[1].target.as_mut() {
        t.label = Some("Nowhere".into());
    }
    let t = follow(&p, &rec, json!({}), Mode::Chained);
    // Step 1 has no expect: its check that step 2's control is there fails it.
    assert_eq!(t.outcome().1, Some(FailReason::ExpectFailed));
    let tally = crate::score::Tally::of(&t);
    assert_eq!((tally.steps, tally.reached, tally.targets), (3, 1, 3));
    assert_eq!(tally.scores().element_accuracy.0, Some(0.333333));
}

/// The next-control check of step 1 (which has no `expect`) in a chained run.
fn next_control_of_step_1(t: &Trace) -> crate::expect::Check {
    t.events
        .iter()
        .find_map(|e| match e {
            Event::Checked { step: 0, check } if check.kind == CheckKind::NextControl => {
                Some(check.clone())
            }
            _ => None,
        })
        .expect("step 1 checks the next control")
}

#[test]
fn a_step_without_expect_fails_when_the_next_steps_control_is_not_there() {
    let (rec, mut p) = three_fields(&["s1", "s2", "s3"]);
    let run = |p: &Plan| follow(p, &rec, json!({}), Mode::Chained);
    let t = run(&p);
    assert_eq!(t.outcome().0, Outcome::Completed);
    assert!(next_control_of_step_1(&t).passed);
    if let Some(t) = p.steps[1].target.as_mut() {
        t.label = Some("Nowhere".into());
    }
    let t = run(&p);
    let check = next_control_of_step_1(&t);
    assert!(
        !check.passed && check.detail.contains("Nowhere"),
        "{check:?}"
    );
    assert_eq!(
        t.outcome(),
        (
            Outcome::Failed,
            Some(FailReason::ExpectFailed),
            Some("s1".into())
        )
    );
}

#[test]
fn an_app_or_window_not_in_front_fails_the_step_and_says_what_is() {
    // The recording's front app is Notes, its window Compose.
    let f = |v: &str| ax(json!([field("a", "A", 10, v, false)]), "Compose");
    let run = |expect: serde_json::Value| {
        let rec = recording(vec![("0", f("")), ("1", f("x"))], &[("0", "a", "1", "s1")]);
        let mut step = type_step(1, "s1", "A", "x", &[]);
        step["expect"] = expect;
        let p = plan(json!([step]), json!([]));
        let t = chained_as_planned(rec, &p);
        let checks: Vec<(String, bool, String)> = t
            .step_events(0)
            .filter_map(|e| match e {
                Event::Checked { check, .. } => Some((
                    crate::text::word(&check.kind),
                    check.passed,
                    check.detail.clone(),
                )),
                _ => None,
            })
            .collect();
        (t.outcome().1, checks)
    };
    let (reason, checks) = run(json!({"app": "Notes", "window": "Compose"}));
    assert_eq!(reason, None, "{checks:?}");
    assert!(
        checks.iter().all(|c| c.1) && checks.len() == 2,
        "{checks:?}"
    );
    for (expect, kind, said) in [
        (
            json!({"app": "Mail"}),
            "app",
            "expected “Mail” in front, found “Notes”",
        ),
        (
            json!({"window": "New Message"}),
            "window",
            "expected window “New Message” in front, found “Compose”",
        ),
    ] {
        let (reason, checks) = run(expect);
        assert_eq!(reason, Some(FailReason::ExpectFailed), "{checks:?}");
        assert!(
            checks
                .iter()
                .any(|c| c.0 == kind && !c.1 && c.2.starts_with(said)),
            "{checks:?}"
        );
    }
}

/// Step 1 types "x" into A with `expect`, step 2 types "y" into B; the recording shows both.
fn expect_case(expect: serde_json::Value) -> Trace {
    let (rec, _) = three_fields(&["s1", "s2"]);
    let mut steps = [
        type_step(1, "s1", "A", "x", &[]),
        type_step(2, "s2", "B", "y", &[]),
    ];
    steps[0]["expect"] = expect;
    let p = plan(json!(steps), json!([]));
    chained_as_planned(rec, &p)
}

/// Step 1's checks of `kind`: (passed, detail).
fn checks_of(t: &Trace, kind: CheckKind) -> Vec<(bool, String)> {
    t.step_events(0)
        .filter_map(|e| match e {
            Event::Checked { check, .. } if check.kind == kind => {
                Some((check.passed, check.detail.clone()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn an_expected_control_that_is_not_on_screen_fails_the_step_and_names_it() {
    let t = expect_case(json!({"visible": "B"}));
    assert!(checks_of(&t, CheckKind::Visible)[0].0, "{:?}", t.outcome());
    assert_eq!(t.outcome().0, Outcome::Completed);
    let t = expect_case(json!({"visible": "Nowhere"}));
    assert_eq!(
        checks_of(&t, CheckKind::Visible),
        [(false, "“Nowhere” is not on screen".to_string())]
    );
    let (_, reason, step) = t.outcome();
    assert_eq!(
        (reason, step.as_deref()),
        (Some(FailReason::ExpectFailed), Some("s1"))
    );
}

#[test]
fn a_field_holding_other_text_than_expected_fails_the_step() {
    let t = expect_case(json!({"field_contains": "x"}));
    assert!(checks_of(&t, CheckKind::FieldContains)[0].0);
    assert_eq!(t.outcome().0, Outcome::Completed);
    let t = expect_case(json!({"field_contains": "Invoice"}));
    assert_eq!(
        checks_of(&t, CheckKind::FieldContains),
        [(
            false,
            "expected the field to hold “Invoice”, it holds “x”".to_string()
        )]
    );
    assert_eq!(t.outcome().1, Some(FailReason::ExpectFailed));
}

#[test]
fn a_failing_expect_stops_the_run_before_the_next_step_acts() {
    let acted = |t: &Trace| -> Vec<usize> {
        t.events
            .iter()
            .filter_map(|e| match e {
                Event::Acted { step, .. } => Some(*step),
                _ => None,
            })
            .collect()
    };
    assert_eq!(acted(&expect_case(json!({"field_contains": "x"}))), [0, 1]);
    let t = expect_case(json!({"field_contains": "Invoice"}));
    assert_eq!(acted(&t), [0]);
    assert!(
        !t.events
            .iter()
            .any(|e| matches!(e, Event::StepStarted { step: 1, .. })),
        "step 2 started after step 1's expect failed"
    );
}

/// Two nameless text fields; the plan's target has no `label`, only its role and the point
/// the recording clicked (`point_y`, a share of the screen's height).
fn nameless_case(point_y: f64) -> Trace {
    let nameless = |id: &str, y: i32| {
        json!({"id": id, "ax_role": "AXTextField", "value": "",
            "frame": {"x": 50, "y": y, "width": 100, "height": 12}})
    };
    let f = ax(json!([nameless("a", 10), nameless("b", 50)]), "Compose");
    let rec = recording(vec![("0", f.clone()), ("1", f)], &[("0", "a", "1", "s1")]);
    let step = json!({"number": 1, "label": "1", "step_id": "s1", "action": "click",
        "click": {"button": "left", "count": 1}, "text": "Click the first field",
        "target": {"app": "Notes", "window": "Compose", "ax_role": "AXTextField",
            "point": {"x": 0.5, "y": point_y}}});
    let p = plan(json!([step]), json!([]));
    assert!(
        p.steps[0]
            .target
            .as_ref()
            .is_some_and(|t| t.label.is_none())
    );
    chained_as_planned(rec, &p)
}

#[test]
fn a_target_without_a_label_finds_its_nameless_control_by_role_and_point() {
    let t = nameless_case(0.16);
    assert_eq!(t.outcome().0, Outcome::Completed, "{:?}", t.outcome());
    let resolved = t.events.iter().find_map(|e| match e {
        Event::Resolved {
            step: 0,
            resolution,
            correct,
            ..
        } => Some((resolution.element.clone(), *correct)),
        _ => None,
    });
    assert_eq!(resolved, Some((Some("a".to_string()), Some(true))));
    // The point on the other nameless field finds that one: not the control recorded.
    let t = nameless_case(0.56);
    assert_eq!(t.outcome().0, Outcome::Failed, "{:?}", t.outcome());
}

/// The Subject field holds "Old draft"; the plan first does `select` (a step of its own, or
/// none), then types the subject.
fn select_then_type(select: Option<serde_json::Value>, mode: Mode) -> Trace {
    let f = |v: &str| {
        let mut subj = field("subj", "Subject", 10, v, false);
        subj["focused"] = json!(true);
        ax(json!([subj]), "Compose")
    };
    let mut transitions = vec![("a", "subj", "b", "s0"), ("b", "subj", "c", "s1")];
    let mut frames = vec![
        ("a", f("Old draft")),
        ("b", f("Old draft")),
        ("c", f("Invoice")),
    ];
    if select.is_none() {
        transitions.remove(0);
        frames.remove(0);
    }
    let rec = recording(frames, &transitions);
    let mut typing = type_step(2, "s1", "Subject", "Invoice", &[]);
    typing.as_object_mut().unwrap().remove("template");
    typing["value"] = json!("Invoice");
    let steps = match select {
        Some(sel) => json!([sel, typing]),
        None => {
            typing["number"] = json!(1);
            typing["label"] = json!("1");
            json!([typing])
        }
    };
    let p = plan(steps, json!([]));
    let mut rec = acted_as_planned(rec, &p);
    // The recording keeps the triple-click's count: a count it did not keep is unjudged.
    for t in &mut rec.file.transitions {
        if t.action == "click" {
            t.operation.count = Some(3);
        }
    }
    follow(&p, &rec, json!({}), mode)
}

#[test]
fn after_selecting_all_typing_replaces_the_text_without_asking() {
    let press = |keys: &str| {
        json!({"number": 1, "label": "1", "step_id": "s0", "action": "press", "keys": keys,
            "text": "Select all of the subject"})
    };
    let triple = json!({"number": 1, "label": "1", "step_id": "s0", "action": "click",
        "click": {"button": "left", "count": 3}, "text": "Triple-click the subject",
        "target": {"app": "Notes", "window": "Compose", "ax_role": "AXTextField", "label": "Subject"}});
    for mode in [Mode::Chained, Mode::PerStep] {
        for sel in [press("⌘A"), press("Ctrl+A"), triple.clone()] {
            let t = select_then_type(Some(sel.clone()), mode);
            assert!(
                asks(&t, AskKind::ReplacePrefilled).is_empty(),
                "{sel} {mode:?}"
            );
            assert_eq!(t.outcome().0, Outcome::Completed, "{sel} {mode:?}");
        }
        // Text the plan did not select is still asked about: no select step, or one that
        // selects something else.
        for sel in [None, Some(press("⌘S"))] {
            let t = select_then_type(sel.clone(), mode);
            assert_eq!(
                asks(&t, AskKind::ReplacePrefilled).len(),
                1,
                "{sel:?} {mode:?}"
            );
        }
    }
}

/// A type step with no target, "x", over fields A and B with the cursor in B; the recording
/// typed into `typed_into`.
fn type_at_cursor(typed_into: &str) -> Trace {
    let f = |a: &str, b: &str| {
        let mut b = field("b", "B", 30, b, false);
        b["focused"] = json!(true);
        ax(json!([field("a", "A", 10, a, false), b]), "Compose")
    };
    let after = if typed_into == "a" {
        f("x", "")
    } else {
        f("", "x")
    };
    let rec = recording(
        vec![("0", f("", "")), ("1", after)],
        &[("0", typed_into, "1", "s1")],
    );
    let mut step = type_step(1, "s1", "B", "x", &[]);
    step.as_object_mut().unwrap().remove("target");
    let p = plan(json!([step]), json!([]));
    chained_as_planned(rec, &p)
}

#[test]
fn a_type_step_without_a_target_types_where_the_cursor_is() {
    assert_eq!(type_at_cursor("b").outcome().0, Outcome::Completed);
    // The recording typed into A, but the cursor is in B: not the step the plan says.
    let t = type_at_cursor("a");
    assert_eq!(t.outcome().0, Outcome::Failed, "{:?}", t.outcome());
}

#[test]
fn a_picture_the_harness_cannot_read_is_reported_not_skipped_quietly() {
    let (rec, _) = three_fields(&["s1"]);
    let mut step = type_step(1, "s1", "A", "x", &[]);
    step["target"]["crop"] = json!("crops/missing.png");
    let p = plan(json!([step]), json!([]));
    let t = follow(&p, &rec, json!({}), Mode::PerStep);
    let note = t.events.iter().find_map(|e| match e {
        Event::Resolved { resolution, .. } => resolution.note.clone(),
        _ => None,
    });
    assert_eq!(
        note.as_deref(),
        Some("the step's picture `crops/missing.png` cannot be read")
    );
}

/// The Subject is typed from an input that changes each run (`each-time`) or not (`same`),
/// with the recorded example "Invoice 42".
fn input_case(changes: &str, inputs: serde_json::Value) -> Trace {
    let f = |v: &str| ax(json!([field("subj", "Subject", 10, v, false)]), "Compose");
    // The field shows what was typed: the scenario's value, or the example it was recorded with.
    let shown = inputs["subject"].as_str().unwrap_or("Invoice 42");
    let rec = recording(
        vec![("a", f("")), ("b", f(shown))],
        &[("a", "subj", "b", "s1")],
    );
    let decl = json!([{"id": "subject", "name": "mail subject", "changes": changes, "basis": "author",
        "sensitive": false, "shape": "text", "example": "Invoice 42", "used_by": [1]}]);
    let p = plan(
        json!([type_step(1, "s1", "Subject", "{subject}", &["subject"])]),
        decl,
    );
    let mut s = scenario(json!({}));
    s.inputs = serde_json::from_value(inputs).unwrap();
    replay(&p, &Prepared::new(&rec), &s, Mode::Chained)
}

#[test]
fn an_each_time_input_without_a_value_is_asked_for_never_taken_from_the_recording() {
    let t = input_case("each-time", json!({}));
    assert_eq!(
        t.outcome(),
        (
            Outcome::Stopped,
            Some(FailReason::NeedsInput),
            Some("s1".into())
        )
    );
    assert_eq!(
        asks(&t, AskKind::Input),
        [(0, "no value given".to_string())]
    );
    let typed = serde_json::to_string(&t).unwrap();
    assert!(!typed.contains("Invoice 42"), "the example leaked: {typed}");
    // With a value from the scenario it runs; a `same` input may use its example.
    let t = input_case("each-time", json!({"subject": "Invoice 7"}));
    assert_eq!(t.outcome().0, Outcome::Completed);
    let t = input_case("same", json!({}));
    assert_eq!(t.outcome().0, Outcome::Completed);
    assert!(asks(&t, AskKind::Input).is_empty());
}

/// The person is asked for a value by the input's `name`, as a person would say it, never by
/// the id templates use.
#[test]
fn an_input_is_asked_for_by_its_name() {
    let t = input_case("each-time", json!({}));
    let questions: Vec<&str> = t
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Asked {
                kind: AskKind::Input,
                detail,
                ..
            } => Some(detail.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(questions, ["what is the mail subject?"]);
}

/// A plain left click recorded on Send; the plan's click as given.
fn click_case(click: serde_json::Value) -> Trace {
    let f = ax(
        json!([{"id": "send", "ax_role": "AXButton", "title": "Send", "frame": {"x": 10, "y": 10, "width": 40, "height": 20}}]),
        "Compose",
    );
    let g = ax(json!([]), "Sent");
    let mut rec = recording(vec![("a", f), ("b", g)], &[("a", "send", "b", "s1")]);
    rec.file.transitions[0].action = "click".into();
    rec.file.transitions[0].operation = crate::recording::format::Operation {
        button: Some("left".into()),
        count: Some(1),
        modifiers: Some(vec![]),
        drag: Some(false),
        ..Default::default()
    };
    let p = plan(
        json!([{"number": 1, "label": "1", "step_id": "s1", "action": "click", "text": "Click Send",
            "click": click, "target": {"app": "Notes", "window": "Compose", "ax_role": "AXButton", "label": "Send"}}]),
        json!([]),
    );
    follow(&p, &rec, json!({}), Mode::PerStep)
}

#[test]
fn a_step_done_otherwise_than_recorded_fails_on_the_right_control() {
    let t = click_case(json!({"button": "right", "count": 2, "drag": false, "modifiers": ["⌘"]}));
    assert_eq!(t.outcome().1, Some(FailReason::OperationMismatch));
    let sc = crate::score::Tally::of(&t).scores();
    // Where was right; what was done was not.
    assert_eq!(sc.element_accuracy.0, Some(1.0));
    assert_eq!(sc.operation_accuracy.0, Some(0.0));
    let t = click_case(json!({"button": "left", "count": 1, "drag": false, "modifiers": []}));
    assert_eq!(t.outcome().0, Outcome::Completed);
    assert_eq!(
        crate::score::Tally::of(&t).scores().operation_accuracy.0,
        Some(1.0)
    );
}

/// A screen filled with one grey, so different frames really differ.
fn grey(v: u8, w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_pixel(w, h, image::Rgba([v, v, v, 255]))
}

/// Two typing steps over frames f0 → f1 → f2 (greys 0, 100, 200), plus a capture `fin`
/// bound to step id `finished` (grey `fin`), with the plan's `done` as given.
fn done_case(done: serde_json::Value, fin: u8, base: &Path) -> Trace {
    let snap = || {
        ax(
            json!([
                field("to", "To:", 10, "", false),
                field("subj", "Subject:", 30, "", false)
            ]),
            "Compose",
        )
    };
    let mut rec = recording(
        vec![
            ("f0", snap()),
            ("f1", snap()),
            ("f2", snap()),
            ("fin", snap()),
        ],
        &[("f0", "to", "f1", "s1"), ("f1", "subj", "f2", "s2")],
    );
    for (f, v) in rec.frames.iter_mut().zip([0, 100, 200, fin]) {
        *f = Frame::with_pixels(f.id.clone(), (*f.ax).clone(), grey(v, 200, 100));
    }
    rec.file.frames[3].step_id = Some("finished".into());
    let v = json!({"schema": "foxstep-step-plan/1", "guide": {"id": "g", "title": "t"},
        "steps": [type_step(1, "s1", "To:", "a", &[]), type_step(2, "s2", "Subject:", "b", &[])],
        "done": done});
    let src = Source::from_text("plan.json", v.to_string());
    let p = lower_foxstep(&parse_foxstep(&src).unwrap(), base).unwrap();
    chained_as_planned(rec, &p)
}

fn done_event(t: &Trace) -> (bool, bool, String) {
    t.events
        .iter()
        .find_map(|e| match e {
            Event::Done { check, judged, .. } => {
                Some((*judged, check.passed, check.detail.clone()))
            }
            _ => None,
        })
        .expect("a done event")
}

#[test]
fn done_naming_the_last_step_is_the_screen_that_step_led_to() {
    let t = done_case(json!({"text": "Sent.", "step_id": "s2"}), 0, Path::new("."));
    assert_eq!(t.outcome().0, Outcome::Completed);
    let (judged, passed, _) = done_event(&t);
    assert!(judged && passed);
}

#[test]
fn done_naming_an_earlier_screen_is_not_done() {
    let t = done_case(json!({"text": "Sent.", "step_id": "s1"}), 0, Path::new("."));
    assert_eq!(t.outcome().0, Outcome::NotDone);
    let (judged, passed, detail) = done_event(&t);
    assert!(judged && !passed, "{detail}");
    assert!(detail.contains("differ"), "{detail}");
}

#[test]
fn done_may_name_a_capture_of_its_own() {
    // The finished screen's capture looks like f2, where the run ends.
    let t = done_case(
        json!({"text": "Sent.", "step_id": "finished"}),
        200,
        Path::new("."),
    );
    assert_eq!(t.outcome().0, Outcome::Completed);
    assert!(done_event(&t).1);
    // It looks like something else.
    let t = done_case(
        json!({"text": "Sent.", "step_id": "finished"}),
        50,
        Path::new("."),
    );
    assert_eq!(t.outcome().0, Outcome::NotDone);
}

/// Step 1's `screen` check when its `expect.screen_step_id` names `id`, over the frames of
/// [`done_case`] (f0 → f1 → f2, greys 0, 100, 200).
fn screen_check(id: &str) -> crate::expect::Check {
    screen_check_of(json!({"screen_step_id": id}), Path::new("."))
}

/// Step 1's `screen` check with `expect` as given, the plan's folder being `dir`.
fn screen_check_of(expect: serde_json::Value, dir: &Path) -> crate::expect::Check {
    let mut rec = recording(
        vec![
            (
                "f0",
                ax(json!([field("to", "To:", 10, "", false)]), "Compose"),
            ),
            (
                "f1",
                ax(json!([field("to", "To:", 10, "", false)]), "Compose"),
            ),
            (
                "f2",
                ax(json!([field("to", "To:", 10, "", false)]), "Compose"),
            ),
        ],
        &[("f0", "to", "f1", "s1"), ("f1", "to", "f2", "s2")],
    );
    for (f, v) in rec.frames.iter_mut().zip([0, 100, 200]) {
        *f = Frame::with_pixels(f.id.clone(), (*f.ax).clone(), grey(v, 200, 100));
    }
    let mut first = type_step(1, "s1", "To:", "a", &[]);
    first["expect"] = expect;
    let v = json!({"schema": "foxstep-step-plan/1", "guide": {"id": "g", "title": "t"},
        "steps": [first, type_step(2, "s2", "To:", "b", &[])]});
    let src = Source::from_text("plan.json", v.to_string());
    let p = lower_foxstep(&parse_foxstep(&src).unwrap(), dir).unwrap();
    let t = chained_as_planned(rec, &p);
    t.events
        .iter()
        .find_map(|e| match e {
            Event::Checked { step: 0, check } if check.kind == CheckKind::Screen => {
                Some(check.clone())
            }
            _ => None,
        })
        .expect("step 1 checks its screen")
}

#[test]
fn expect_screen_is_the_skill_exports_picture_of_what_comes_next() {
    let dir = std::env::temp_dir().join(format!("stepreplay-screen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // After step 1 the screen is f1, grey 100.
    grey(100, 200, 100).save(dir.join("next.png")).unwrap();
    grey(0, 200, 100).save(dir.join("before.png")).unwrap();
    let check = |pic: &str| screen_check_of(json!({ "screen": pic }), &dir);
    let (next, before, gone) = (check("next.png"), check("before.png"), check("gone.png"));
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(next.passed, "{}", next.detail);
    assert!(!before.passed, "{}", before.detail);
    assert!(
        before
            .detail
            .contains("differ from the picture `before.png`"),
        "{}",
        before.detail
    );
    assert!(
        !gone.passed && gone.detail.contains("cannot be read"),
        "{}",
        gone.detail
    );
}

#[test]
fn screen_step_id_names_the_screenshot_of_that_step_before_it_acts() {
    // After step 1 the screen is f1: step 2's own screenshot, taken before it acted.
    let next = screen_check("s2");
    assert!(next.passed, "{}", next.detail);
    // Step 1's own screenshot is f0, the screen before it typed: not what came next.
    let own = screen_check("s1");
    assert!(!own.passed, "{}", own.detail);
    assert!(own.detail.contains("s1"), "{}", own.detail);
    // An id with no screenshot fails and says so.
    let none = screen_check("nowhere");
    assert!(
        !none.passed && none.detail.contains("no recorded screenshot"),
        "{}",
        none.detail
    );
}

#[test]
fn a_done_that_cannot_be_judged_says_so_and_decides_nothing() {
    for done in [
        json!({"text": "Sent."}),
        json!({"text": "Sent.", "step_id": "no-such-capture"}),
    ] {
        let t = done_case(done.clone(), 0, Path::new("."));
        assert_eq!(t.outcome().0, Outcome::Completed, "{done}");
        let (judged, passed, detail) = done_event(&t);
        assert!(!judged && !passed, "{done}: {detail}");
    }
}

#[test]
fn a_skill_exports_done_picture_is_compared_with_the_last_screen() {
    let dir = std::env::temp_dir().join(format!("stepreplay-done-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    grey(200, 200, 100).save(dir.join("same.png")).unwrap();
    grey(0, 200, 100).save(dir.join("first.png")).unwrap();
    grey(200, 100, 50).save(dir.join("small.png")).unwrap();
    let case = |pic: &str| done_case(json!({"text": "Sent.", "screen": pic}), 0, &dir);
    let same = case("same.png");
    let first = case("first.png");
    let small = case("small.png");
    let missing = case("gone.png");
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(same.outcome().0, Outcome::Completed);
    let (judged, passed, _) = done_event(&same);
    assert!(judged && passed);
    assert_eq!(first.outcome().0, Outcome::NotDone);
    // Another size, or no picture: nothing to compare, and the report says so.
    for t in [&small, &missing] {
        assert_eq!(t.outcome().0, Outcome::Completed);
        assert!(!done_event(t).0, "{}", done_event(t).2);
    }
    assert!(done_event(&small).2.contains("cannot be compared"));
}

#[test]
fn a_picture_cut_at_another_scale_is_looked_for_at_the_size_of_its_box() {
    let dir = std::env::temp_dir().join(format!("stepreplay-picture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // 20 × 10 pixels: the box below is 40 × 20 on the 200 × 100 screen (a 1x picture, 2x screen).
    RgbaImage::from_pixel(20, 10, image::Rgba([9, 99, 199, 255]))
        .save(dir.join("small.png"))
        .unwrap();
    RgbaImage::new(36, 19).save(dir.join("near.png")).unwrap();
    // Cut with a wide margin, as Chromium's and Firefox's recordings are (0.64 of the box).
    RgbaImage::new(63, 31).save(dir.join("margin.png")).unwrap();
    let rec = recording(vec![("f0", ax(json!([]), "W"))], &[]);
    let prep = Prepared::new(&rec);
    let b = crate::plan::Bounds {
        x: 0.1,
        y: 0.1,
        width: 0.2,
        height: 0.2,
    };
    let at = |name: &str, b: Option<&crate::plan::Bounds>| {
        let p = prep.picture_for(&dir, Path::new(name), b).unwrap();
        (p.width(), p.height())
    };
    assert_eq!(at("small.png", Some(&b)), (40, 20));
    assert_eq!(
        *prep
            .picture_for(&dir, Path::new("small.png"), Some(&b))
            .unwrap()
            .get_pixel(39, 19),
        image::Rgba([9, 99, 199, 255])
    );
    // A cut a little off its box, or a picture without a box, is used as it is.
    assert_eq!(at("near.png", Some(&b)), (36, 19));
    assert_eq!(at("margin.png", Some(&b)), (63, 31));
    assert_eq!(at("small.png", None), (20, 10));
    std::fs::remove_dir_all(&dir).unwrap();
}

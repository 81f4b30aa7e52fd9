//! A protocolv2 plan as the normalized [`Plan`] replay follows: each kind becomes the action a
//! person's hands would do (`submit` is a click on the form's button, `key` a press), reading
//! kinds become steps that find their target and change nothing, and what only browser plans
//! have — the review, idempotency keys, capture and read options — rides along in
//! [`Review`] and [`WebStep`].
//!
//! A `sensitive` step is a confirm step (the person approves it first) and what it types is a
//! [`Text::Secret`]: typed as the plan says, shown nowhere.

use std::path::Path;

use super::exchange;
use super::kinds::Kind;
use super::{DevPlan, DevStep, Risk};
use crate::errors::FieldPath;
use crate::plan::model::{ReadRegion, Review, WebStep};
use crate::plan::{Action, Click, Dialect, Plan, Step, Target, Text};

/// Lowers a parsed (and so valid) protocolv2 plan.
pub(crate) fn lower_devthink(dev: &DevPlan, base_dir: &Path) -> Plan {
    Plan {
        dialect: Dialect::Devthink,
        id: dev.id.clone(),
        title: dev.objective.clone(),
        revision: None,
        inputs: Vec::new(),
        steps: dev
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| lower_step(s, i))
            .collect(),
        done: None,
        base_dir: base_dir.to_path_buf(),
        review: Some(Review {
            state: dev.state,
            expires_at: dev.expiresat,
            created_at: dev.createdat,
            approved_at: dev.approvedat,
            origin: dev.origin.clone(),
        }),
    }
}

fn click() -> Action {
    Action::Click(Click {
        button: "left".into(),
        count: 1,
        drag: false,
        modifiers: Vec::new(),
    })
}

fn lower_step(s: &DevStep, i: usize) -> Step {
    let kind = Kind::parse(&s.kind);
    let sensitive = s.risk == Risk::Sensitive;
    let value = s.value.clone().unwrap_or_default();
    let o = &s.parsed;
    let action = match kind {
        Some(Kind::Navigate) => Action::Navigate {
            to: s.navigate_url().map(str::to_string),
        },
        Some(Kind::Click | Kind::Submit) => click(),
        Some(Kind::Type) => Action::Type {
            text: if sensitive {
                Text::Secret(value)
            } else {
                Text::Literal(value)
            },
            submit: None,
        },
        Some(Kind::Key) => {
            let mut chord = o.modifiers.clone().unwrap_or_default();
            chord.push(value);
            Action::Press {
                keys: chord.join("+"),
            }
        }
        // Select, scroll, the reading kinds and the agent's own traffic: the step's words
        // say what happens; replay finds the target and follows the recording.
        _ => Action::Do,
    };
    let target = match kind {
        // A navigate without a URL follows the link its selector names.
        Some(Kind::Navigate) => s.link_selector().map(|sel| Target {
            selector: Some(sel.to_string()),
            ..Target::default()
        }),
        _ => s
            .target
            .as_ref()
            .map(|sel| Target {
                selector: Some(sel.clone()),
                ..Target::default()
            })
            .or_else(|| o.targetref.as_ref().and_then(targetref)),
    };
    // An extract through a pipeline is judged by the pipeline's recorded output instead.
    let reads = (matches!(kind, Some(Kind::Extract | Kind::RegionOcr)) && o.pipeline.is_none())
        || (matches!(kind, Some(Kind::Capture)) && o.ocr == Some(true));
    // `ocr` on a session snapshot reads bytes no frame holds.
    let not_simulated = if matches!(kind, Some(Kind::CaptureSession)) && o.ocr == Some(true) {
        vec!["ocr".to_string()]
    } else {
        Vec::new()
    };
    Step {
        id: s.id.clone(),
        number: i as u32 + 1,
        label: s.summary.clone(),
        text: s.summary.clone(),
        action,
        target,
        expect: None,
        confirm: sensitive.then(|| s.summary.clone()),
        stop_if: None,
        reads: Vec::new(),
        assistant: None,
        path: FieldPath::root().key("steps").index(i),
        web: Some(WebStep {
            kind: s.kind.clone(),
            idempotency_key: s.idempotencykey.clone(),
            pair: o.pair.is_some(),
            diff: o.diff == Some(true),
            naming: o.naming.as_ref().map(|n| n.0.clone()),
            reads,
            read_expect: s.value.clone().filter(|_| reads),
            region: o.ocrregion.as_ref().filter(|_| reads).map(read_region),
            not_simulated,
            asks: exchange::asks(o, s.target.as_deref(), s.value.as_deref()),
            correlation: exchange::correlations(o),
            targetref: s
                .target
                .as_ref()
                .and(o.targetref.as_ref())
                .and_then(targetref),
        }),
    }
}

/// An `ocrregion` object as the box a read looks in. The seed gives the region no properties,
/// so a shape other than these two is kept as unknown (a `check` warning, an unjudged read),
/// never refused.
fn read_region(r: &serde_json::Map<String, serde_json::Value>) -> ReadRegion {
    let mut keys: Vec<&str> = r.keys().map(String::as_str).collect();
    keys.sort_unstable();
    match keys.as_slice() {
        ["selector"] => match r["selector"].as_str() {
            Some(sel) => ReadRegion::Selector(sel.to_string()),
            None => ReadRegion::Unknown("`selector` is not a string".into()),
        },
        ["height", "width", "x", "y"] => {
            let num = |k: &str| r[k].as_f64().filter(|v| v.is_finite() && *v >= 0.0);
            match (num("x"), num("y"), num("width"), num("height")) {
                (Some(x), Some(y), Some(width), Some(height)) if width > 0.0 && height > 0.0 => {
                    ReadRegion::Box {
                        x,
                        y,
                        width,
                        height,
                    }
                }
                _ => ReadRegion::Unknown(
                    "`x`, `y`, `width` and `height` must be numbers of at least 0, the size more \
                     than 0"
                        .into(),
                ),
            }
        }
        _ => ReadRegion::Unknown(format!(
            "keys {}: a region is `{{\"selector\": …}}` or `{{\"x\", \"y\", \"width\", \"height\"}}`",
            if keys.is_empty() {
                "(none)".to_string()
            } else {
                keys.iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        )),
    }
}

/// A `targetref` as a target found by name and role, as a person finds a control: `name`
/// (or `label`) is the accessible name, `role` the ARIA role.
fn targetref(r: &serde_json::Map<String, serde_json::Value>) -> Option<Target> {
    let text = |k: &str| r.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let label = text("name").or_else(|| text("label"))?;
    Some(Target {
        label: Some(label),
        ax_role: text("role").map(|role| crate::roles::ax_role_of_web(&role).0.to_string()),
        ..Target::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Source;
    use crate::plan::devthink::parse_protocolv2;

    fn lowered(name: &str) -> Plan {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../recordings/scripts/browser")
            .join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let dev = parse_protocolv2(&Source::from_text(&path, text)).unwrap();
        lower_devthink(&dev, Path::new("."))
    }

    #[test]
    fn kinds_become_what_a_person_does() {
        let p = lowered("login.json");
        let names: Vec<&str> = p.steps.iter().map(|s| s.action.name()).collect();
        assert_eq!(names, ["navigate", "type", "type", "click", "do"]);
        assert_eq!(p.steps[0].target, None, "a navigation has no element");
        assert_eq!(
            p.steps[1].target.as_ref().unwrap().selector.as_deref(),
            Some("#user")
        );
        let review = p.review.unwrap();
        assert_eq!(review.origin, "http://127.0.0.1:8000");
    }

    #[test]
    fn the_summary_is_what_the_person_and_the_report_read_of_a_step() {
        let p = lowered("login.json");
        let read: Vec<(&str, &str)> = p
            .steps
            .iter()
            .map(|s| (s.label.as_str(), s.text.as_str()))
            .collect();
        assert_eq!(read[0], ("Open the sign-in page", "Open the sign-in page"));
        assert_eq!(read[4], ("Read the greeting", "Read the greeting"));
        // A sensitive step is put to the person in its summary's words.
        assert_eq!(p.steps[2].confirm.as_deref(), Some("Type the password"));
    }

    #[test]
    fn sensitive_steps_are_confirmed_and_their_text_is_never_shown() {
        let p = lowered("login.json");
        assert_eq!(p.steps[1].confirm, None);
        assert_eq!(p.steps[2].confirm.as_deref(), Some("Type the password"));
        assert!(matches!(
            &p.steps[2].action,
            Action::Type {
                text: Text::Secret(_),
                ..
            }
        ));
        let shown = serde_json::to_string(&p).unwrap();
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains(crate::secret::REDACTED));
    }

    #[test]
    fn options_ride_along_and_reads_know_what_they_expect() {
        let p = lowered("pay.json");
        let pay = p.steps[4].web.as_ref().unwrap();
        assert!(pay.pair && pay.diff);
        assert_eq!(pay.naming.as_deref(), Some("pay-{step}-{phase}.png"));
        assert_eq!(
            p.steps[1].web.as_ref().unwrap().idempotency_key.as_deref(),
            Some("plan-pay/add-mug")
        );
        let s = lowered("search.json");
        let first = s.steps[3].web.as_ref().unwrap();
        assert!(first.reads);
        assert_eq!(first.read_expect.as_deref(), Some("Blue mug $12"));
        assert!(s.steps[4].web.as_ref().unwrap().reads, "regionocr reads");
    }
}

#[cfg(test)]
mod families {
    use super::*;
    use crate::json::Source;
    use crate::plan::devthink::parse_protocolv2;

    /// One step of `kind` carrying `options`, lowered.
    fn step(kind: &str, target: Option<&str>, value: Option<&str>, options: &str) -> Step {
        let mut s = serde_json::json!({"id": "s", "kind": kind, "summary": "a step", "risk": "sensitive",
                                       "options": options});
        if let Some(t) = target {
            s["target"] = t.into();
        }
        if let Some(v) = value {
            s["value"] = v.into();
        }
        let plan = serde_json::json!({"id": "p", "objective": "o", "origin": "http://127.0.0.1:8000",
            "steps": [s], "createdat": 1, "expiresat": 2, "state": "approved"});
        let src = Source::from_text("plan.json", plan.to_string());
        let dev = parse_protocolv2(&src).unwrap_or_else(|e| panic!("{kind} {options}: {e:?}"));
        lower_devthink(&dev, Path::new(".")).steps.remove(0)
    }

    fn web(s: &Step) -> &WebStep {
        s.web.as_ref().unwrap()
    }

    #[test]
    fn targetref_finds_by_name_and_role_when_there_is_no_selector() {
        let s = step(
            "click",
            None,
            None,
            r#"{"targetref": {"role": "button", "name": "Pay now"}}"#,
        );
        let t = s.target.unwrap();
        assert_eq!(
            (t.label.as_deref(), t.ax_role.as_deref()),
            (Some("Pay now"), Some("AXButton"))
        );
        let s = step(
            "click",
            Some("#pay"),
            None,
            r#"{"targetref": {"name": "Pay now"}}"#,
        );
        assert_eq!(
            s.target.unwrap().selector.as_deref(),
            Some("#pay"),
            "the selector decides"
        );
    }

    #[test]
    fn modifiers_make_the_chord_pressed() {
        let s = step(
            "key",
            None,
            Some("Enter"),
            r#"{"modifiers": ["control", "shift"]}"#,
        );
        assert_eq!(
            s.action,
            Action::Press {
                keys: "control+shift+Enter".into()
            }
        );
    }

    #[test]
    fn families_answered_by_the_recording_ask_by_their_request() {
        for (kind, options, family, request) in [
            (
                "extract",
                r#"{"pipeline": "prices"}"#,
                "pipeline",
                serde_json::json!({"pipeline": "prices", "target": "#x"}),
            ),
            (
                "transport",
                r#"{"pollrequest": {"url": "/poll", "expect": "ready"}}"#,
                "pollrequest",
                serde_json::json!({"url": "/poll"}),
            ),
            (
                "channel",
                r#"{"graphql": {"query": "subscription { a }"}}"#,
                "graphql",
                serde_json::json!({"query": "subscription { a }"}),
            ),
            (
                "capture",
                r#"{"vision": {"prompt": "what is shown?"}}"#,
                "vision",
                serde_json::json!({"prompt": "what is shown?"}),
            ),
            (
                "capturesession",
                r#"{"snapshot": {"cookies": true}}"#,
                "snapshot",
                serde_json::json!({"cookies": true}),
            ),
        ] {
            let s = step(kind, Some("#x"), Some("v"), options);
            let w = web(&s);
            assert!(w.not_simulated.is_empty(), "{kind} {options}");
            assert_eq!(w.asks.len(), 1, "{kind} {options}");
            assert_eq!((w.asks[0].family, &w.asks[0].request), (family, &request));
        }
        let poll = step(
            "transport",
            None,
            None,
            r#"{"pollrequest": {"url": "/p", "expect": "ready"}}"#,
        );
        assert_eq!(web(&poll).asks[0].expect.as_deref(), Some("ready"));
        let session = step("capturesession", Some("#x"), None, r#"{"ocr": true}"#);
        assert_eq!(
            web(&session).not_simulated,
            ["ocr"],
            "no frame holds the session's bytes"
        );
    }

    #[test]
    fn an_ocrregion_is_a_selector_or_a_box_and_any_other_shape_is_unknown() {
        let region = |o: &str| {
            web(&step("regionocr", Some("#results"), Some("x"), o))
                .region
                .clone()
        };
        assert_eq!(
            region(r##"{"ocrregion": {"selector": "#results li"}}"##),
            Some(ReadRegion::Selector("#results li".into()))
        );
        assert_eq!(
            region(r#"{"ocrregion": {"x": 24, "y": 180.5, "width": 300, "height": 19}}"#),
            Some(ReadRegion::Box {
                x: 24.0,
                y: 180.5,
                width: 300.0,
                height: 19.0
            })
        );
        for bad in [
            r#"{"ocrregion": {}}"#,
            r#"{"ocrregion": {"selector": 3}}"#,
            r#"{"ocrregion": {"x": 0, "y": 0, "width": 0, "height": 5}}"#,
            r#"{"ocrregion": {"x": -1, "y": 0, "width": 5, "height": 5}}"#,
            r#"{"ocrregion": {"left": 0, "top": 0}}"#,
        ] {
            assert!(
                matches!(region(bad), Some(ReadRegion::Unknown(_))),
                "{bad}: {:?}",
                region(bad)
            );
        }
        assert_eq!(region("{}"), None, "no region: the target's box");
    }

    #[test]
    fn reading_families_read_and_capture_families_capture() {
        let ocr = step("capture", Some("#x"), None, r#"{"ocr": true}"#);
        assert!(web(&ocr).reads && web(&ocr).not_simulated.is_empty());
        let region = step(
            "regionocr",
            Some("#x"),
            Some("Total $12"),
            r#"{"ocrregion": {"x": 0}}"#,
        );
        assert!(web(&region).reads);
        assert_eq!(web(&region).read_expect.as_deref(), Some("Total $12"));
        assert!(
            matches!(&web(&region).region, Some(ReadRegion::Unknown(why)) if why.contains("`x`")),
            "{:?}",
            web(&region).region
        );
        let plain = step(
            "capture",
            Some("#x"),
            None,
            r#"{"correlation": {"rid": "poll.requestId"}}"#,
        );
        assert!(!web(&plain).reads, "a capture without ocr reads nothing");
        assert_eq!(
            web(&plain).correlation[0],
            exchange::Correlate {
                name: "rid".into(),
                step: "poll".into(),
                field: "requestId".into()
            }
        );
        let pair = step(
            "submit",
            Some("#x"),
            None,
            r#"{"pair": "beforeafter", "diff": true, "naming": "a-{phase}.png"}"#,
        );
        assert!(web(&pair).pair && web(&pair).diff);
        assert_eq!(web(&pair).naming.as_deref(), Some("a-{phase}.png"));
    }
}

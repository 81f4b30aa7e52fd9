//! One test per schema rule: the example plan with one thing changed, and the exact reason
//! code and field path that change gets.

use serde_json::{Value, json};

use super::*;
use crate::errors::{InputError, Reason};
use crate::json::Source;
use crate::plan::check::check_source;

fn example() -> Value {
    serde_json::from_str(include_str!(
        "../../../tests/fixtures/plans/devthink-login.json"
    ))
    .expect("the example is JSON")
}

fn source(plan: &Value) -> Source {
    Source::from_text("plan.json", crate::json::to_canonical(plan))
}

fn refused(plan: &Value) -> InputError {
    parse_protocolv2(&source(plan)).expect_err("the plan is refused")
}

/// The reason and path a changed example is refused with.
fn refusal(change: impl FnOnce(&mut Value)) -> (Reason, String) {
    let mut plan = example();
    change(&mut plan);
    let e = refused(&plan);
    (e.reason, e.path.to_string())
}

/// The example with `options` of step `i` set to `text`.
fn with_options(i: usize, text: &str) -> (Reason, String) {
    refusal(|p| p["steps"][i]["options"] = text.into())
}

fn invalid(path: &str) -> (Reason, String) {
    (Reason::InvalidField, path.to_string())
}

/// The `check` findings (reason, path) of a changed example.
fn findings(change: impl FnOnce(&mut Value)) -> Vec<(&'static str, String)> {
    let mut plan = example();
    change(&mut plan);
    let report = check_source(&source(&plan));
    assert!(report.parsed, "{report:?}");
    report
        .findings
        .iter()
        .map(|f| (f.reason, f.path.to_string()))
        .collect()
}

#[test]
fn the_example_is_clean_and_canonical() {
    let text = include_str!("../../../tests/fixtures/plans/devthink-login.json");
    let src = Source::from_text("plan.json", text);
    let report = check_source(&src);
    assert_eq!(report.exit_code(), 0, "{report:?}");
    assert!(report.findings.is_empty(), "{report:?}");
    let plan = parse_protocolv2(&src).unwrap();
    assert_eq!(plan.steps.len(), 8);
    assert_eq!(plan.steps[3].parsed.pair, Some(Pair::BeforeAfter));
    assert_eq!(plan.steps[3].parsed.families, ["diff", "naming", "pair"]);
}

#[test]
fn each_required_plan_field() {
    for field in [
        "id",
        "objective",
        "origin",
        "steps",
        "createdat",
        "expiresat",
        "state",
    ] {
        let e = {
            let mut plan = example();
            plan.as_object_mut().unwrap().remove(field);
            refused(&plan)
        };
        assert_eq!((e.reason, e.path.to_string()), invalid(field), "{field}");
        assert_eq!(e.message, format!("missing field `{field}`"));
        assert_eq!(e.hint.as_deref(), Some(format!("add `{field}`").as_str()));
    }
}

#[test]
fn each_required_step_field() {
    for field in ["id", "kind", "summary", "risk"] {
        let got = refusal(|p| {
            p["steps"][2].as_object_mut().unwrap().remove(field);
        });
        assert_eq!(got, invalid(&format!("steps[2].{field}")), "{field}");
    }
}

#[test]
fn each_enum() {
    assert_eq!(refusal(|p| p["state"] = "approve".into()), invalid("state"));
    assert_eq!(
        refusal(|p| p["steps"][0]["risk"] = "low".into()),
        invalid("steps[0].risk")
    );
    assert_eq!(
        refusal(|p| p["steps"][0]["environment"] = "mainworld".into()),
        invalid("steps[0].environment")
    );
    // A number where a word belongs is a field error too, not a JSON syntax error.
    assert_eq!(refusal(|p| p["state"] = json!(3)), invalid("state"));
    assert_eq!(
        refusal(|p| p["steps"][0]["environment"] = json!(true)),
        invalid("steps[0].environment")
    );
    let e = {
        let mut plan = example();
        plan["state"] = "Approved".into();
        refused(&plan)
    };
    assert!(
        e.message.contains("`pending`"),
        "the values are listed: {}",
        e.message
    );
}

/// The plan's time field named `field`.
fn time_of(plan: &DevPlan, field: &str) -> EpochMs {
    match field {
        "createdat" => plan.createdat,
        "expiresat" => plan.expiresat,
        "approvedat" => plan.approvedat.unwrap(),
        _ => plan.completedat.unwrap(),
    }
}

#[test]
fn each_time_field_takes_any_json_number_and_nothing_else() {
    for field in ["createdat", "expiresat", "approvedat", "completedat"] {
        // The spellings are the file's own: a canonical `Value` would respell them.
        for spelling in [
            "1767225600000",
            "1767225600000.0",
            "1.7672256e12",
            "17672256E+5",
        ] {
            let mut plan = example();
            plan[field] = json!(0);
            let text = crate::json::to_canonical(&plan).replacen(
                &format!("\"{field}\": 0"),
                &format!("\"{field}\": {spelling}"),
                1,
            );
            let parsed = parse_protocolv2(&Source::from_text("plan.json", text))
                .unwrap_or_else(|e| panic!("{field} {spelling}: {e:?}"));
            let at = time_of(&parsed, field);
            assert_eq!(at.to_string(), "1767225600000", "{field} {spelling}");
        }
        for (odd, reads) in [
            (json!(1.5), "1.5"),
            (json!(-1), "-1"),
            (json!(9.5e15), "9500000000000000"),
        ] {
            let mut plan = example();
            plan[field] = odd.clone();
            let parsed =
                parse_protocolv2(&source(&plan)).unwrap_or_else(|e| panic!("{field} {odd}: {e:?}"));
            let at = time_of(&parsed, field);
            assert_eq!(at.to_string(), reads, "{field} {odd}");
        }
        for bad in [json!("1767225600000"), json!(true), json!([1])] {
            let mut plan = example();
            plan[field] = bad.clone();
            let e = refused(&plan);
            assert_eq!(
                (e.reason, e.path.to_string()),
                invalid(field),
                "{field} {bad}"
            );
            assert!(
                e.message.contains("epoch milliseconds"),
                "{field} {bad}: {}",
                e.message
            );
        }
    }
}

#[test]
fn a_fraction_of_a_millisecond_compares_as_a_number() {
    let at = EpochMs(1000.5);
    assert!(!at.reached_by(1000));
    assert!(at.reached_by(1001));
    assert_eq!(at.first_clock(), 1001);
    assert_eq!(EpochMs(-3.0).first_clock(), 0);
    assert_eq!(
        serde_json::to_string(&EpochMs(1.7672256e12)).unwrap(),
        "1767225600000"
    );
    assert_eq!(serde_json::to_string(&at).unwrap(), "1000.5");
}

#[test]
fn unknown_fields_and_nulls_are_refused() {
    assert_eq!(refusal(|p| p["owner"] = "x".into()), invalid("owner"));
    assert_eq!(
        refusal(|p| p["steps"][1]["selector"] = "#a".into()),
        invalid("steps[1].selector")
    );
    assert_eq!(
        refusal(|p| p["steps"][1]["target"] = Value::Null),
        invalid("steps[1].target")
    );
    assert_eq!(
        refusal(|p| p["approvedat"] = Value::Null),
        invalid("approvedat")
    );
}

#[test]
fn wrong_types_and_a_value_never_quoted() {
    assert_eq!(refusal(|p| p["steps"] = json!({})), invalid("steps"));
    assert_eq!(refusal(|p| p["objective"] = json!(3)), invalid("objective"));
    let mut plan = example();
    plan["steps"][2]["value"] = json!(4111111111111111_u64);
    let e = refused(&plan);
    assert_eq!(e.path.to_string(), "steps[2].value");
    assert!(!e.to_string().contains("4111"), "{e}");
}

#[test]
fn a_repeated_key_in_the_plan_is_refused() {
    let text = crate::json::to_canonical(&example()).replacen(
        "\"state\": \"approved\"",
        "\"state\": \"approved\", \"state\": \"draft\"",
        1,
    );
    let e = parse_protocolv2(&Source::from_text("plan.json", text)).unwrap_err();
    assert_eq!((e.reason, e.path.to_string()), invalid("state"));
}

#[test]
fn another_schema_is_unsupported() {
    let got = refusal(|p| p["$schema"] = "devthink/protocolv3/plan.schema.json".into());
    assert_eq!(got, (Reason::UnsupportedSchema, "$schema".to_string()));
}

#[test]
fn the_origin_is_exact() {
    for bad in ["http://127.0.0.1:8000/", "127.0.0.1:8000", "HTTP://A.TEST"] {
        assert_eq!(
            refusal(|p| p["origin"] = bad.into()),
            invalid("origin"),
            "{bad}"
        );
    }
}

#[test]
fn each_option_family_has_its_type() {
    for (family, bad) in [
        ("targetref", json!("#a")),
        ("modifiers", json!("control")),
        ("pipeline", json!({"name": "text"})),
        ("pollrequest", json!([])),
        ("graphql", json!("subscription { a }")),
        ("correlation", json!(1)),
        ("ocr", json!("yes")),
        ("vision", json!(true)),
        ("ocrregion", json!([0, 0, 10, 10])),
        ("naming", json!(7)),
        ("pair", json!(true)),
        ("diff", json!(1)),
        ("snapshot", json!("all")),
    ] {
        let text = json!({ family: bad }).to_string();
        let got = with_options(7, &text);
        assert_eq!(
            got,
            invalid(&format!("steps[7].options.{family}")),
            "{family}"
        );
    }
    assert_eq!(
        with_options(6, r#"{"modifiers": ["control", 1]}"#),
        invalid("steps[6].options.modifiers[1]")
    );
}

#[test]
fn pair_and_naming_values() {
    assert_eq!(
        with_options(3, r#"{"pair": "before"}"#),
        invalid("steps[3].options.pair")
    );
    assert_eq!(
        with_options(3, r#"{"naming": "Login.png"}"#),
        invalid("steps[3].options.naming")
    );
    assert_eq!(
        with_options(3, r#"{"naming": "../x.png"}"#),
        invalid("steps[3].options.naming")
    );
}

#[test]
fn an_unknown_family_is_refused_at_its_key() {
    let mut plan = example();
    plan["steps"][3]["options"] = r#"{"pair": "beforeafter", "difff": true}"#.into();
    let e = refused(&plan);
    assert_eq!(
        (e.reason, e.path.to_string()),
        invalid("steps[3].options.difff")
    );
    assert!(e.message.contains("unknown field `difff`"), "{}", e.message);
}

#[test]
fn options_must_be_a_string_holding_an_object() {
    assert_eq!(
        refusal(|p| p["steps"][3]["options"] = json!({"pair": "beforeafter"})),
        invalid("steps[3].options")
    );
    assert_eq!(with_options(3, "[1, 2]"), invalid("steps[3].options"));
    assert_eq!(with_options(3, "\"{}\""), invalid("steps[3].options"));
    let mut plan = example();
    plan["steps"][3]["options"] = "{}".into();
    assert!(
        parse_protocolv2(&source(&plan)).is_ok(),
        "no options is fine"
    );
}

#[test]
fn options_that_are_not_json_name_the_place_in_the_file() {
    let mut plan = example();
    plan["steps"][3]["options"] = r#"{"pair": "beforeafter",}"#.into();
    let src = source(&plan);
    let e = parse_protocolv2(&src).unwrap_err();
    assert_eq!(
        (e.reason, e.path.to_string()),
        (Reason::InvalidJson, "steps[3].options".into())
    );
    assert!(
        e.message.contains("column 24 of the options text"),
        "{}",
        e.message
    );
    // The file position is the `}` after the stray comma, inside the escaped string.
    let p = e.position.unwrap();
    let line = src.text.lines().nth(p.line - 1).unwrap();
    let at: String = line.chars().skip(p.column - 1).take(2).collect();
    assert_eq!(at, "}\"", "{line}");
}

#[test]
fn a_repeated_key_inside_options_is_refused() {
    assert_eq!(
        with_options(3, r#"{"diff": true, "diff": false}"#),
        invalid("steps[3].options.diff")
    );
    assert_eq!(
        with_options(1, r#"{"targetref": {"role": "a", "role": "b"}}"#),
        invalid("steps[1].options.targetref.role")
    );
}

#[test]
fn a_repeated_step_id_is_a_finding() {
    let got = findings(|p| p["steps"][4]["id"] = "s2".into());
    assert_eq!(got, [("duplicate-step-id", "steps[4].id".to_string())]);
}

#[test]
fn an_unknown_kind_is_a_warning_listing_the_kinds() {
    let mut plan = example();
    plan["steps"][4]["kind"] = "hover".into();
    let report = check_source(&source(&plan));
    // The schema types `kind` as any string: the plan is valid, the warning is advice.
    assert_eq!(report.exit_code(), 0);
    let f = &report.findings[0];
    assert_eq!(f.severity, crate::plan::check::Severity::Warning);
    assert_eq!(
        (f.reason, f.path.to_string()),
        ("unknown-kind", "steps[4].kind".into())
    );
    assert!(f.hint.as_deref().unwrap().contains("capturesession"));
}

#[test]
fn a_risk_lower_than_the_kind_is_a_finding() {
    let got = findings(|p| p["steps"][2]["risk"] = "read".into());
    assert_eq!(got, [("risk-below-kind", "steps[2].risk".to_string())]);
    // Higher than the class is the author's choice.
    assert!(findings(|p| p["steps"][4]["risk"] = "sensitive".into()).is_empty());
}

#[test]
fn an_option_on_a_kind_it_does_not_fit_is_a_warning() {
    let mut plan = example();
    plan["steps"][1]["options"] = r#"{"modifiers": ["shift"]}"#.into();
    let report = check_source(&source(&plan));
    assert_eq!(
        report.exit_code(),
        0,
        "the schema allows any family on any step"
    );
    assert_eq!(
        report.findings[0].severity,
        crate::plan::check::Severity::Warning
    );
    // An empty list of modifiers holds no key: nothing to say.
    assert!(findings(|p| p["steps"][1]["options"] = r#"{"modifiers": []}"#.into()).is_empty());
    let got = findings(|p| p["steps"][1]["options"] = r#"{"modifiers": ["shift"]}"#.into());
    assert_eq!(
        got,
        [(
            "option-not-for-kind",
            "steps[1].options.modifiers".to_string()
        )]
    );
    let got = findings(|p| p["steps"][0]["options"] = r#"{"targetref": {}}"#.into());
    assert_eq!(
        got,
        [(
            "option-not-for-kind",
            "steps[0].options.targetref".to_string()
        )]
    );
}

#[test]
fn navigating_outside_the_origin_is_a_finding() {
    for url in [
        "https://127.0.0.1:8000/login",
        "http://evil.test/",
        "javascript:alert(1)",
    ] {
        let got = findings(|p| p["steps"][0]["value"] = url.into());
        assert_eq!(
            got,
            [("outside-origin", "steps[0].value".to_string())],
            "{url}"
        );
    }
    assert!(findings(|p| p["steps"][0]["value"] = "http://127.0.0.1:8000/a".into()).is_empty());
}

#[test]
fn detection_leaves_foxstep_plans_alone() {
    let seed: Value =
        serde_json::from_str(include_str!("../../../tests/fixtures/plans/seed-mail.json")).unwrap();
    assert!(!is_protocolv2(&seed));
    let mut lost = seed.clone();
    lost.as_object_mut().unwrap().remove("schema");
    assert!(!is_protocolv2(&lost));
    lost["state"] = "draft".into();
    assert!(!is_protocolv2(&lost), "one stray field is not the shape");
    let mut plan = example();
    assert!(is_protocolv2(&plan));
    plan.as_object_mut().unwrap().remove("$schema");
    assert!(is_protocolv2(&plan), "the shape alone is enough");
    plan["schema"] = "foxstep-step-plan/1".into();
    assert!(!is_protocolv2(&plan), "a Foxstep `schema` decides");
}

#[test]
fn a_protocolv2_plan_loads_for_replay_and_its_secrets_stay_hidden_even_in_debug_output() {
    let plan = crate::plan::plan_from_source(&source(&example())).unwrap();
    assert_eq!(plan.dialect, crate::plan::Dialect::Devthink);
    assert_eq!(
        plan.steps.len(),
        example()["steps"].as_array().unwrap().len()
    );
    let shown = format!("{plan:?}");
    assert!(!shown.contains("correct-horse"), "{shown}");
}

#[test]
fn options_nest_as_deep_as_any_input_and_no_deeper() {
    let nested = |depth: usize| {
        format!(
            "{{\"targetref\": {{\"a\": {}1{}}}}}",
            "[".repeat(depth),
            "]".repeat(depth)
        )
    };
    let mut plan = example();
    plan["steps"][1]["options"] = nested(100).into();
    assert!(parse_protocolv2(&source(&plan)).is_ok());
    assert_eq!(
        with_options(1, &nested(200)),
        (Reason::LimitExceeded, "steps[1].options".to_string())
    );
}

#[test]
fn no_cap_on_the_step_count() {
    let mut plan = example();
    let step = plan["steps"][4].clone();
    let steps: Vec<Value> = (0..20_000)
        .map(|i| {
            let mut s = step.clone();
            s["id"] = format!("w{i}").into();
            s
        })
        .collect();
    plan["steps"] = steps.into();
    let report = check_source(&source(&plan));
    assert_eq!(report.exit_code(), 0, "{:?}", report.findings.first());
}

#[test]
fn a_diff_on_a_step_that_is_not_sensitive_is_a_warning() {
    let mut plan = example();
    plan["steps"][1]["options"] = r#"{"diff": true}"#.into();
    let report = check_source(&source(&plan));
    assert_eq!(report.exit_code(), 0, "a warning only");
    let f = &report.findings[0];
    assert_eq!(
        (f.reason, f.path.to_string()),
        ("diff-without-sensitive", "steps[1].options.diff".into())
    );
    // The example's submit step is sensitive and diffs: no finding.
    assert!(findings(|_| {}).is_empty());
}

//! The `observe` message's JSON Schema (`docs/schemas/agent-observe.schema.json`) holds for
//! the commented example in `docs/agent.md` and for every `observe` of a real run, read by a
//! real validator: what an agent author reads is what the harness sends.

use serde_json::Value;

use crate::util::{TempDir, have_tool, repo, stepreplay};

fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("docs/schemas/agent-observe.schema.json")).unwrap(),
    )
    .unwrap();
    jsonschema::draft202012::meta::validate(&schema).expect("a valid 2020-12 schema");
    jsonschema::draft202012::new(&schema).unwrap()
}

fn errors(v: &jsonschema::Validator, msg: &Value) -> Vec<String> {
    v.iter_errors(msg)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// The ```jsonc example with its comment lines taken out.
fn doc_example() -> Value {
    let doc = std::fs::read_to_string(repo().join("docs/agent.md")).unwrap();
    let block = doc
        .split("```jsonc\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("docs/agent.md has a ```jsonc example");
    let json: String = block
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}\n{json}"))
}

#[test]
fn the_documented_observe_example_follows_the_schema() {
    let v = validator();
    let example = doc_example();
    assert_eq!(errors(&v, &example), Vec::<String>::new());
    // The schema is strict enough to catch a wrong example.
    let mut wrong = example.clone();
    wrong["plan"]["steps"][0]["action"]["button"] = "top".into();
    assert!(!errors(&v, &wrong).is_empty());
    let mut wrong = example;
    wrong["plan"]["steps"][0]["target"]["point"]["x"] = 1.5.into();
    assert!(!errors(&v, &wrong).is_empty(), "points are shares");
}

#[test]
fn every_observe_of_a_real_run_follows_the_schema() {
    if !have_tool("python3", "apt-get install python3") {
        return;
    }
    let tmp = TempDir::new("agent-observe-schema");
    let log = tmp.path().join("exchange.jsonl");
    stepreplay(repo())
        .args([
            "agent",
            "-q",
            "--cmd",
            "python3 examples/reference-agent.py",
        ])
        .args([
            "scenarios/calendar-reschedule.json",
            "scenarios/devthink-pay.json",
            "scenarios/settings-stop-if-go-on.json",
            "scenarios/gtk3-yad-addresses.json",
        ])
        .env("STEPREPLAY_AGENT_LOG", &log)
        .run()
        .expect_code(0);
    let v = validator();
    let mut seen = 0;
    for line in std::fs::read_to_string(&log).unwrap().lines() {
        let msg: Value = serde_json::from_str(line).unwrap();
        if msg["type"] != "observe" {
            continue;
        }
        seen += 1;
        assert_eq!(errors(&v, &msg), Vec::<String>::new(), "{line:.400}");
    }
    assert!(seen > 10, "{seen} observes");
}

//! The `observe` message's JSON Schema (`docs/schemas/agent-observe.schema.json`) holds for
//! the commented example in `docs/agent.md` and for every `observe` of a real run, read by a
//! real validator: what an agent author reads is what the harness sends.

use serde_json::Value;

use crate::util::{TempDir, have_tool, repo, stepreplay};

/// Each message's errors against the observe schema; `None` without a validator.
fn errors(msgs: &[Value]) -> Option<Vec<Vec<String>>> {
    crate::schema::errors(&repo().join("docs/schemas/agent-observe.schema.json"), msgs)
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
    let example = doc_example();
    // The schema is strict enough to catch a wrong example.
    let mut button = example.clone();
    button["plan"]["steps"][0]["action"]["button"] = "top".into();
    let mut point = example.clone();
    point["plan"]["steps"][0]["target"]["point"]["x"] = 1.5.into();
    let Some(e) = errors(&[example, button, point]) else {
        return;
    };
    assert_eq!(e[0], Vec::<String>::new());
    assert!(!e[1].is_empty(), "a button that is none");
    assert!(!e[2].is_empty(), "points are shares");
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
    let observes: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|m| m["type"] == "observe")
        .collect();
    assert!(observes.len() > 10, "{} observes", observes.len());
    let Some(e) = errors(&observes) else {
        return;
    };
    for (msg, e) in observes.iter().zip(e) {
        assert_eq!(e, Vec::<String>::new(), "{msg:.400}");
    }
}

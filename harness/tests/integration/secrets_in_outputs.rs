//! A value typed from a sensitive input reaches no output byte, however the run fails after it:
//! the terminal, `report.json`, `junit.xml`, `summary.md`, the HTML page, the captures, and
//! `check --recording`. The run's tainted values pass one redactor on their way to every output.

use std::path::Path;

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::util::{TempDir, copy_scenario, run_in};

/// Every file under `dir`, read as bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
        }
    }
    out
}

fn holds(bytes: &[u8], secret: &str) -> bool {
    bytes.windows(secret.len()).any(|w| w == secret.as_bytes())
}

/// How the run goes wrong after the sensitive step.
#[derive(Clone, Copy, Debug)]
enum Fault {
    /// The sensitive field is expected to hold a literal it does not (the audit's probe).
    FieldLiteral,
    /// A later step expects a control named by the secret to be visible.
    VisibleSecret,
    /// A later step's label has a typo: the did-you-mean lists what is on screen.
    LabelTypo,
    /// A later step's expect names another window.
    WrongWindow,
    /// The person declines the confirm step.
    Declined,
    /// The scenario declares another outcome than the run's.
    OtherOutcome,
    /// A later step names a control by the secret.
    SecretLabel,
}

const FAULTS: [Fault; 7] = [
    Fault::FieldLiteral,
    Fault::VisibleSecret,
    Fault::LabelTypo,
    Fault::WrongWindow,
    Fault::Declined,
    Fault::OtherOutcome,
    Fault::SecretLabel,
];

/// The bundled reminder scenario with its email input made sensitive, given `secret` by the
/// scripted person, then broken by `fault`.
fn suite(dir: &Path, secret: &str, fault: Fault) {
    copy_scenario(dir, "mail-send-reminder", "mail-send-reminder");
    let plan_path = dir.join("scenarios/mail-send-reminder/plan.json");
    let mut plan: Value = serde_json::from_slice(&std::fs::read(&plan_path).unwrap()).unwrap();
    for input in plan["inputs"].as_array_mut().unwrap() {
        if input["id"] == "client-email" {
            input["sensitive"] = json!(true);
            input.as_object_mut().unwrap().remove("example");
        }
    }
    let steps = plan["steps"].as_array_mut().unwrap();
    steps[1]["expect"] = json!({ "field_contains": "{client-email}" });
    match fault {
        Fault::FieldLiteral => steps[1]["expect"] = json!({ "field_contains": "accounts@" }),
        Fault::VisibleSecret => steps[2]["expect"] = json!({ "visible": secret }),
        Fault::LabelTypo => steps[2]["target"]["label"] = json!("Subjet:"),
        Fault::WrongWindow => steps[2]["expect"] = json!({ "window": "Drafts" }),
        Fault::SecretLabel => steps[2]["target"]["label"] = json!(secret),
        Fault::Declined | Fault::OtherOutcome => {}
    }
    std::fs::write(&plan_path, serde_json::to_vec_pretty(&plan).unwrap()).unwrap();
    let sc_path = dir.join("scenarios/mail-send-reminder.json");
    let mut sc: Value = serde_json::from_slice(&std::fs::read(&sc_path).unwrap()).unwrap();
    sc["inputs"] = json!({});
    sc["answers"]["sensitive"] = json!({ "client-email": secret });
    match fault {
        Fault::Declined => sc["answers"]["confirm"] = json!({ "send": "decline" }),
        Fault::OtherOutcome => {
            sc["expect"] = json!({ "outcome": "failed", "reason": "target-not-found" });
        }
        _ => {}
    }
    std::fs::write(&sc_path, serde_json::to_vec_pretty(&sc).unwrap()).unwrap();
}

/// Runs the suite with every output on, and `check --recording` on its plan (in both of
/// `check`'s formats when `both_checks`, else for people only: each replays the plan under
/// every perturbation); fails when the secret is in any byte they print or write, or when the
/// run passed.
fn assert_hidden(secret: &str, fault: Fault, both_checks: bool) {
    let tmp = TempDir::new("secret-outputs");
    let dir = tmp.path();
    suite(dir, secret, fault);
    let mut seen = Vec::new();
    for args in [
        &[
            "run",
            "--captures",
            "caps",
            "--report-dir",
            "out",
            "scenarios",
        ][..],
        &[
            "run",
            "--format",
            "json",
            "--report-dir",
            "out-json",
            "scenarios",
        ],
        &[
            "check",
            "scenarios/mail-send-reminder/plan.json",
            "--scenario",
            "scenarios/mail-send-reminder.json",
        ],
        &[
            "check",
            "--format",
            "json",
            "scenarios/mail-send-reminder/plan.json",
            "--scenario",
            "scenarios/mail-send-reminder.json",
        ],
    ]
    .into_iter()
    .take(if both_checks { 4 } else { 3 })
    {
        let r = run_in(dir, args);
        r.assert_no_panic();
        if args[0] == "run" {
            r.check(r.code == 1, &format!("{fault:?}: the broken run must fail"));
        }
        seen.push((format!("{args:?} stdout"), r.stdout.into_bytes()));
        seen.push((format!("{args:?} stderr"), r.stderr.into_bytes()));
    }
    for d in ["out", "out-json", "caps"] {
        seen.extend(files(&dir.join(d)));
    }
    assert!(seen.iter().any(|(n, _)| n.ends_with("junit.xml")));
    for (name, bytes) in &seen {
        assert!(
            !holds(bytes, secret),
            "{fault:?}: the sensitive value is in {name}:\n{}",
            String::from_utf8_lossy(bytes)
        );
    }
}

/// The audit's probe: a literal `field_contains` on the sensitive field printed the value.
#[test]
fn a_failed_field_check_on_a_sensitive_field_does_not_show_its_value() {
    assert_hidden("zq-secret-771@example.com", Fault::FieldLiteral, true);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    /// However the run fails after the sensitive step, the value is in no output byte. `check`'s
    /// JSON writer passes the same redactor as its human one; the probe above reads it.
    #[test]
    fn a_sensitive_value_is_in_no_output_byte(
        secret in "[a-z]{2,5}[0-9]{3,6}(@example\\.com)?",
        fault in 0..FAULTS.len(),
    ) {
        assert_hidden(&secret, FAULTS[fault], false);
    }
}

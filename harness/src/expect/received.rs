//! `received`: what a step asked outside the page (a long poll, a subscription, a vision
//! prompt, a session snapshot, a pipeline) was answered from the recording, and the answer
//! holds what the plan expects of it.

use serde_json::Value;

use super::check::{Check, CheckKind};
use crate::errors::FieldPath;
use crate::plan::devthink::exchange::{Ask, answer_text, holds};

/// The longest answer quoted in a check.
const QUOTED: usize = 120;

/// Judges the recorded `response` to `ask` (the option at `at`): a long poll or subscription
/// answered with an HTTP error fails, and so does an answer without the plan's `expect`.
pub(crate) fn check(ask: &Ask, response: &Value, at: &FieldPath) -> Check {
    let family = ask.family;
    if let Some(status) = response["status"]
        .as_u64()
        .filter(|s| !(200..300).contains(s))
    {
        return Check::new(
            CheckKind::Received,
            false,
            format!("{at}: the recorded `{family}` was answered with HTTP {status}"),
        );
    }
    let text = answer_text(family, response);
    // A session snapshot holds credentials: it is judged, never quoted.
    let quoted = if family == "snapshot" {
        "the recorded session snapshot".to_string()
    } else {
        let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut short: String = folded.chars().take(QUOTED).collect();
        if short.len() < folded.len() {
            short.push('…');
        }
        format!("the recorded answer “{short}”")
    };
    match &ask.expect {
        None => Check::new(CheckKind::Received, true, format!("{at}: {quoted}")),
        Some(want) => {
            let passed = holds(family, &text, want);
            let verb = match (family, passed) {
                ("vision" | "pipeline", true) => "is",
                ("vision" | "pipeline", false) => "is not",
                (_, true) => "holds",
                (_, false) => "does not hold",
            };
            Check::new(
                CheckKind::Received,
                passed,
                format!("{at}: {quoted} {verb} “{want}”"),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ask(family: &'static str, expect: Option<&str>) -> Ask {
        Ask {
            family,
            request: json!({}),
            expect: expect.map(str::to_string),
        }
    }

    #[test]
    fn an_answer_passes_when_it_holds_what_the_plan_expects() {
        let at = FieldPath::root()
            .key("steps")
            .index(1)
            .key("options")
            .key("pollrequest");
        let body = json!({"status": 200, "body": "{\"state\": \"shipped\"}"});
        let c = check(&ask("pollrequest", Some("shipped")), &body, &at);
        assert!(c.passed, "{c:?}");
        let c = check(&ask("pollrequest", Some("lost")), &body, &at);
        assert_eq!(
            c.detail,
            "steps[1].options.pollrequest: the recorded answer “{\"state\": \"shipped\"}” does not hold “lost”"
        );
        let c = check(
            &ask("pollrequest", None),
            &json!({"status": 404, "body": ""}),
            &at,
        );
        assert!(!c.passed && c.detail.ends_with("HTTP 404"), "{c:?}");
        let c = check(&ask("vision", Some("no")), &json!({"answer": "yes"}), &at);
        assert!(
            !c.passed && c.detail.ends_with("“yes” is not “no”"),
            "{c:?}"
        );
        let c = check(
            &ask("snapshot", Some("sid=")),
            &json!({"cookies": "sid=abc"}),
            &at,
        );
        assert!(c.passed && !c.detail.contains("abc"), "{c:?}");
    }
}

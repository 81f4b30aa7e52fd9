//! The option families a step asks something with — a long poll (`pollrequest`), a GraphQL
//! subscription (`graphql`), a vision prompt (`vision`), a session snapshot (`snapshot`), an
//! extract pipeline (`pipeline`) — and `correlation`, which puts what one step received into a
//! later step's request. `record-browser` asks them live and keeps each answer keyed by its
//! request; replay serves the answers back in order, as HTTP cassette tools do.

use serde::Serialize;
use serde_json::{Map, Value};

use super::options::Options;

/// What a step asks: the family and its request (the option as the plan writes it, without
/// `expect`; `{name}` placeholders are filled by `correlation` before it is asked).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Ask {
    /// `pollrequest`, `graphql`, `vision`, `snapshot` or `pipeline`.
    pub(crate) family: &'static str,
    /// The request the answer is keyed by.
    pub(crate) request: Value,
    /// What the answer must hold (`expect` in the option; a pipeline's: the step's `value`).
    pub(crate) expect: Option<String>,
}

/// The families a step asks, in this order. A `pipeline` is keyed by its name and the
/// step's target selector.
pub(crate) fn asks(o: &Options, target: Option<&str>, value: Option<&str>) -> Vec<Ask> {
    let object = |family: &'static str, m: &Option<Map<String, Value>>| {
        m.as_ref().map(|m| {
            let mut request = m.clone();
            let expect = request.remove("expect");
            Ask {
                family,
                request: Value::Object(request),
                expect: expect.map(|e| e.as_str().map_or_else(|| e.to_string(), str::to_string)),
            }
        })
    };
    let pipeline = o.pipeline.as_ref().map(|name| Ask {
        family: "pipeline",
        request: serde_json::json!({"pipeline": name, "target": target}),
        expect: value.map(str::to_string),
    });
    [
        object("pollrequest", &o.pollrequest),
        object("graphql", &o.graphql),
        object("vision", &o.vision),
        object("snapshot", &o.snapshot),
        pipeline,
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// One `correlation` entry: `{name}` in the step's requests is the value at `field` (a dotted
/// path, empty for the whole answer) in what the earlier step `step` received.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Correlate {
    /// The placeholder's name.
    pub(crate) name: String,
    /// The earlier step's id.
    pub(crate) step: String,
    /// The path inside its answer.
    pub(crate) field: String,
}

/// The `correlation` map: `{"name": "step.field.path"}`; a value that is not a string names
/// nothing (its step is empty, so it never resolves).
pub(crate) fn correlations(o: &Options) -> Vec<Correlate> {
    o.correlation
        .iter()
        .flatten()
        .map(|(name, from)| {
            let from = from.as_str().unwrap_or_default();
            let (step, field) = from.split_once('.').unwrap_or((from, ""));
            Correlate {
                name: name.clone(),
                step: step.to_string(),
                field: field.to_string(),
            }
        })
        .collect()
}

/// The answer as JSON: a body or message that is JSON text is read as JSON (the last
/// subscription message); anything else is itself.
pub(crate) fn answer_json(family: &str, response: &Value) -> Value {
    let text = match family {
        "pollrequest" => response["body"].as_str(),
        "graphql" => {
            return response["messages"]
                .as_array()
                .and_then(|m| m.last())
                .cloned()
                .unwrap_or(Value::Null);
        }
        "vision" => response["answer"].as_str(),
        "pipeline" => response["output"].as_str(),
        _ => return response.clone(),
    };
    let text = text.unwrap_or_default();
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
}

/// The value at a dotted `field` of `answer` (an array index is a number), as text.
pub(crate) fn field_of(answer: &Value, field: &str) -> Option<String> {
    let mut at = answer;
    for part in field.split('.').filter(|p| !p.is_empty()) {
        at = match at {
            Value::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            v => v.get(part)?,
        };
    }
    match at {
        Value::String(s) => Some(s.clone()),
        Value::Null | Value::Object(_) | Value::Array(_) => None,
        v => Some(v.to_string()),
    }
}

/// `request` with every `{name}` in its strings replaced by its value.
pub(crate) fn fill(request: &Value, values: &[(String, String)]) -> Value {
    match request {
        Value::String(s) => Value::String(values.iter().fold(s.clone(), |s, (name, v)| {
            s.replace(&format!("{{{name}}}"), v)
        })),
        Value::Array(a) => Value::Array(a.iter().map(|v| fill(v, values)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), fill(v, values)))
                .collect(),
        ),
        v => v.clone(),
    }
}

/// The text an answer is judged by: a body, the messages one a line, the answer, the
/// pipeline's output, the snapshot as JSON.
pub(crate) fn answer_text(family: &str, response: &Value) -> String {
    let text = |k: &str| response[k].as_str().unwrap_or_default().to_string();
    match family {
        "pollrequest" => text("body"),
        "graphql" => response["messages"]
            .as_array()
            .map(|m| {
                m.iter()
                    .map(Value::to_string)
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default(),
        "vision" => text("answer"),
        "pipeline" => text("output"),
        _ => response.to_string(),
    }
}

/// Whether `expect` holds of an answer: a vision answer or a pipeline's output is exactly it
/// (surrounding white space aside); a body, messages or a snapshot contain it.
pub(crate) fn holds(family: &str, answer: &str, expect: &str) -> bool {
    match family {
        "vision" | "pipeline" => answer.trim() == expect.trim(),
        _ => answer.contains(expect),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_field_of_an_answer_fills_a_later_request() {
        let poll = json!({"status": 200, "body": "{\"requestId\": \"r-41\", \"n\": [1, 2]}"});
        let answer = answer_json("pollrequest", &poll);
        assert_eq!(field_of(&answer, "requestId").as_deref(), Some("r-41"));
        assert_eq!(field_of(&answer, "n.1").as_deref(), Some("2"));
        assert_eq!(field_of(&answer, "missing"), None);
        let filled = fill(
            &json!({"url": "/api/result/{rid}.json", "n": 3}),
            &[("rid".into(), "r-41".into())],
        );
        assert_eq!(filled, json!({"url": "/api/result/r-41.json", "n": 3}));
        let text = answer_json("vision", &json!({"answer": "yes"}));
        assert_eq!(field_of(&text, "").as_deref(), Some("yes"));
    }

    #[test]
    fn answers_are_judged_exactly_or_by_containing() {
        assert!(holds("vision", " yes\n", "yes"));
        assert!(!holds("vision", "yes, a mug", "yes"));
        assert!(holds("pollrequest", "{\"state\": \"shipped\"}", "shipped"));
        let gql = json!({"messages": [{"data": {"s": "packed"}}, {"data": {"s": "shipped"}}]});
        assert_eq!(
            answer_text("graphql", &gql),
            "{\"data\":{\"s\":\"packed\"}}\n{\"data\":{\"s\":\"shipped\"}}"
        );
        assert_eq!(
            answer_json("graphql", &gql),
            json!({"data": {"s": "shipped"}})
        );
    }
}

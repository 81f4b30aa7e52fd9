//! What a step asks outside the page, asked live and kept with its answer
//! (`recording::format::Exchange`): a long poll and a GraphQL subscription are fetched from the
//! page's origin (the page server answers them), a vision prompt and an extract pipeline are
//! answered by the page under test (`window.devthinkAgent`, no model is called), a session
//! snapshot is read from the page's cookies and storage.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::cdp::Browser;
use super::step_error;
use crate::errors::Error;
use crate::plan::devthink::DevStep;
use crate::plan::devthink::exchange::{self, Ask};
use crate::recording::format::Exchange;
use crate::secret::REDACTED;

/// Asks each of `step`'s families, its correlation filled from what earlier steps received
/// (`received`, by step id), and keeps the answers.
pub(super) fn ask_all(
    browser: &mut Browser,
    step: &DevStep,
    secrets: &[String],
    received: &mut HashMap<String, Value>,
    out: &mut Vec<Exchange>,
) -> Result<(), Error> {
    let mut values = Vec::new();
    for c in exchange::correlations(&step.parsed) {
        let v = received
            .get(&c.step)
            .and_then(|answer| exchange::field_of(answer, &c.field));
        let Some(v) = v else {
            return Err(step_error(
                step,
                format!(
                    "correlation `{}` names `{}.{}`, which no earlier step received",
                    c.name, c.step, c.field
                ),
            ));
        };
        values.push((c.name, v));
    }
    for ask in exchange::asks(&step.parsed, step.target.as_deref(), step.value.as_deref()) {
        let request = exchange::fill(&ask.request, &values);
        let mut response = asked(browser, step, &ask, &request)?;
        scrub(&mut response, secrets);
        received.insert(
            step.id.clone(),
            exchange::answer_json(ask.family, &response),
        );
        out.push(Exchange {
            step_id: step.id.clone(),
            family: ask.family.into(),
            request,
            response,
        });
    }
    Ok(())
}

/// The JavaScript string literal of `v`'s text.
fn js(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// Asks one family in the page and returns the answer.
fn asked(
    browser: &mut Browser,
    step: &DevStep,
    ask: &Ask,
    request: &Value,
) -> Result<Value, Error> {
    let text = |k: &str| request[k].as_str();
    let expr = match ask.family {
        "pollrequest" => {
            let Some(url) = text("url") else {
                return Err(step_error(step, "a `pollrequest` needs a `url` to record"));
            };
            format!(
                "(async () => {{ const r = await fetch({}, {{method: {}, body: {}}}); \
                 return {{status: r.status, body: await r.text()}}; }})()",
                js(&url.into()),
                js(&text("method").unwrap_or("GET").into()),
                text("body").map_or("undefined".into(), |b| js(&b.into())),
            )
        }
        "graphql" => {
            let body = json!({"query": request["query"], "variables": request.get("variables"),
                              "operationName": request.get("operationName")});
            // GraphQL over SSE (`data:` lines) or JSON lines: each is a message.
            format!(
                "(async () => {{ const r = await fetch({}, {{method: 'POST', body: {}, \
                 headers: {{'content-type': 'application/json', accept: 'text/event-stream'}}}}); \
                 const t = await r.text(); const lines = t.split('\\n').map(l => l.trim()); \
                 const data = lines.filter(l => l.startsWith('data:')).map(l => l.slice(5)); \
                 const msgs = (data.length ? data : lines.filter(l => l)).map(l => JSON.parse(l)); \
                 return {{status: r.status, messages: msgs}}; }})()",
                js(&text("url").unwrap_or("/graphql").into()),
                js(&body.to_string().into()),
            )
        }
        "vision" => format!(
            "(async () => ({{answer: String(await window.devthinkAgent.vision({}))}}))()",
            js(&request["prompt"]),
        ),
        "pipeline" => format!(
            "(async () => ({{output: String(await window.devthinkAgent.pipeline({}, \
             document.querySelector({})))}}))()",
            js(&request["pipeline"]),
            js(&request["target"]),
        ),
        _ => snapshot_expr(step, request)?,
    };
    browser.eval(&expr).map_err(|e| {
        step_error(
            step,
            format!(
                "recording its `{}`: {e} (a vision prompt and a pipeline are answered by the \
                 page's `window.devthinkAgent`)",
                ask.family
            ),
        )
    })
}

/// The page's cookies and storage, the parts the snapshot plan names.
fn snapshot_expr(step: &DevStep, request: &Value) -> Result<String, Error> {
    let mut parts = Vec::new();
    for (key, on) in request.as_object().into_iter().flatten() {
        if on != &Value::Bool(true) {
            continue;
        }
        parts.push(match key.as_str() {
            "cookies" => "cookies: document.cookie".to_string(),
            "localStorage" | "sessionStorage" => {
                format!("{key}: Object.fromEntries(Object.entries({key}))")
            }
            other => {
                return Err(step_error(
                    step,
                    format!(
                        "the snapshot part `{other}` cannot be recorded: `cookies`, \
                         `localStorage` and `sessionStorage` can"
                    ),
                ));
            }
        });
    }
    Ok(format!("({{{}}})", parts.join(", ")))
}

/// Takes the plan's secrets out of every string in an answer.
fn scrub(v: &mut Value, secrets: &[String]) {
    match v {
        Value::String(s) => {
            for secret in secrets {
                if s.contains(secret.as_str()) {
                    *s = s.replace(secret.as_str(), REDACTED);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|v| scrub(v, secrets)),
        Value::Object(m) => m.values_mut().for_each(|v| scrub(v, secrets)),
        _ => {}
    }
}

//! `idempotency-key-shared`
//!
//! What: a protocolv2 step whose `idempotencykey` a step of another plan checked in the same
//! run already uses (the plans are taken in the order given, a folder's in name order).
//! Why: the key is what replays deduplicate on. `run` keeps the keys of one plan's run: each
//! scenario replays its own recording, one system recorded from its start, so both steps are
//! applied there (a store shared across a suite would contradict those recordings and make a
//! verdict depend on the order, jobs and shards of a run). Against one live system, though,
//! the second plan's step would be a retry of the first and never applied: across plans a
//! shared key is a copy-paste until the author says otherwise.
//! Example: `a.json` and `b.json` both give a step the key `"pay-42"` → warning at
//! `steps[3].idempotencykey` of `b.json`, naming `a.json`.
//!
//! This is judged by `check` over the suite's folder, not by `run`: it is a fact of the plans,
//! and `run --shard k/n` sees only its share of them, while `check` reads every plan whatever
//! the jobs or shards.

use std::collections::BTreeMap;
use std::path::Path;

use super::finding::{Finding, Severity};
use crate::errors::FieldPath;
use crate::json::Source;
use crate::plan::devthink::parse_protocolv2;

/// The findings that need several plans at once, each with the index in `plans` of the plan
/// it is in. Files that are not protocolv2 plans, or do not parse, are passed over: their own
/// check says what is wrong with them.
pub(crate) fn across_plans(plans: &[(&Path, &Source)]) -> Vec<(usize, Finding)> {
    // Each key's first user: the plan's index, its file and the step's id.
    let mut first: BTreeMap<String, (usize, String, String)> = BTreeMap::new();
    let mut out = Vec::new();
    for (k, (file, src)) in plans.iter().enumerate() {
        let Ok(plan) = parse_protocolv2(src) else {
            continue;
        };
        for (i, step) in plan.steps.iter().enumerate() {
            let Some(key) = &step.idempotencykey else {
                continue;
            };
            match first.get(key) {
                None => {
                    first.insert(
                        key.clone(),
                        (k, file.display().to_string(), step.id.clone()),
                    );
                }
                Some((j, other, id)) if *j != k => {
                    let path = FieldPath::root()
                        .key("steps")
                        .index(i)
                        .key("idempotencykey");
                    let f = Finding::new(
                        Severity::Warning,
                        "idempotency-key-shared",
                        path.clone(),
                        format!(
                            "the key `{key}` is also step `{id}`'s in `{other}`: each plan's \
                             run applies its own, but against one live system this step is a \
                             retry of that one and never applied"
                        ),
                    )
                    .hint("give the step a key of its own, unless it is meant to retry that step")
                    .at(src.position(&path));
                    out.push((k, f));
                }
                Some(_) => {}
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde_json::json;

    use super::*;

    fn plan(id: &str, keys: &[Option<&str>]) -> Source {
        let steps: Vec<serde_json::Value> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let mut s = json!({"id": format!("s{i}"), "kind": "click", "target": "#b",
                                   "risk": "interaction", "summary": "Click"});
                if let Some(k) = k {
                    s["idempotencykey"] = (*k).into();
                }
                s
            })
            .collect();
        let v = json!({"id": id, "objective": "o", "origin": "http://127.0.0.1:8000",
            "steps": steps, "createdat": 1, "expiresat": 2, "state": "approved"});
        Source::from_text(
            format!("{id}.json"),
            serde_json::to_string_pretty(&v).unwrap(),
        )
    }

    fn found(plans: &[Source]) -> Vec<String> {
        let files: Vec<PathBuf> = plans
            .iter()
            .enumerate()
            .map(|(k, _)| PathBuf::from(format!("p{k}.json")))
            .collect();
        let given: Vec<(&Path, &Source)> = files
            .iter()
            .map(PathBuf::as_path)
            .zip(plans.iter())
            .collect();
        across_plans(&given)
            .into_iter()
            .map(|(k, f)| format!("p{k} {} {}: {}", f.reason, f.path, f.message))
            .collect()
    }

    #[test]
    fn a_key_another_plan_of_the_run_uses_is_a_retry_of_its_step() {
        let a = plan("a", &[Some("pay-42"), Some("ship-1")]);
        let b = plan("b", &[None, Some("pay-42")]);
        let c = plan("c", &[Some("pay-42"), Some("own")]);
        assert_eq!(
            found(&[a.clone(), b.clone(), c.clone()]),
            [
                "p1 idempotency-key-shared steps[1].idempotencykey: the key `pay-42` is also \
                 step `s0`'s in `p0.json`: each plan's run applies its own, but against one live \
                 system this step is a retry of that one and never applied",
                "p2 idempotency-key-shared steps[0].idempotencykey: the key `pay-42` is also \
                 step `s0`'s in `p0.json`: each plan's run applies its own, but against one live \
                 system this step is a retry of that one and never applied",
            ]
        );
        // A retry inside one plan is how a retry is written: replay judges it, not this rule.
        let twice = plan("t", &[Some("k"), Some("k")]);
        assert_eq!(found(&[twice]), Vec::<String>::new());
        // The order given decides which plan is named first, so the result never depends on
        // how a run is split.
        assert!(found(&[b, a])[0].starts_with("p1 idempotency-key-shared steps[0]"));
    }
}

//! Judging an agent's ordered batch as it writes it: [`judge_write`].
//!
//! The app runs inbox files in lexical order of their names, so the protocol asks agents to
//! "name command files so lexical order is execution order", and a `routineRef.fromCommand`
//! works only if that command already has a successful outcome when the app reaches it. The
//! safer flow is to wait for the outcome and use the real id. Two findings, each a rule:
//!
//! - `batch-misordered`: a new file sorts before one the agent wrote earlier that the app has
//!   not processed yet, so the app would run them in the other order (worse when the later
//!   one refers to the earlier one by `fromCommand`).
//! - `reference-unresolved`: a placeholder used before it is resolved: a `fromCommand` naming
//!   no command the agent wrote before, or one that failed; an `id` (of the object to update
//!   or activate, or a `routineRef`) that the agent never read in the manifest or an outcome.

use serde_json::Value;

use super::ids::normalize_uuid;

/// Which of the two rules a finding breaks (the agent judge records it by the rule's code).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Broken {
    /// `batch-misordered`.
    Misordered,
    /// `reference-unresolved`.
    Unresolved,
}

/// A file the agent wrote earlier in the episode.
#[derive(Clone, Debug)]
pub(crate) struct Earlier {
    /// Its name in `inbox/`.
    pub(crate) name: String,
    /// Its `commandID`, lowercased, when it has one.
    pub(crate) command_id: Option<String>,
    /// Its outcome so far: `None` while the app has not processed it, else whether it
    /// succeeded.
    pub(crate) succeeded: Option<bool>,
}

/// The findings on writing `inbox/name` holding `cmd`, after `earlier` (in writing order);
/// `read` says whether the agent has read an id (in any letter case) anywhere.
pub(crate) fn judge_write(
    earlier: &[Earlier],
    name: &str,
    cmd: &Value,
    read: &dyn Fn(&str) -> bool,
) -> Vec<(Broken, String)> {
    let mut out = Vec::new();
    let payload = cmd.get("payload").unwrap_or(&Value::Null);
    let refs = from_commands(payload);
    let pending_after = earlier
        .iter()
        .filter(|e| e.succeeded.is_none() && e.name.as_str() > name);
    for e in pending_after {
        let depends = e
            .command_id
            .as_deref()
            .is_some_and(|id| refs.iter().any(|r| r == id));
        let why = if depends {
            ", though it refers to it by fromCommand"
        } else {
            ""
        };
        out.push((
            Broken::Misordered,
            format!(
                "`inbox/{name}` sorts before `inbox/{}`, written earlier and not yet processed: \
                 the app runs it first{why}",
                e.name
            ),
        ));
    }
    for r in &refs {
        let target = earlier
            .iter()
            .find(|e| e.command_id.as_deref() == Some(r.as_str()));
        match target {
            None => out.push((
                Broken::Unresolved,
                format!(
                    "`inbox/{name}` refers by fromCommand to `{r}`, which no command written \
                     before it has"
                ),
            )),
            Some(e) if e.succeeded == Some(false) => out.push((
                Broken::Unresolved,
                format!(
                    "`inbox/{name}` refers by fromCommand to `{r}` (`inbox/{}`), which failed",
                    e.name
                ),
            )),
            Some(_) => {}
        }
    }
    for (at, id) in ids(payload) {
        if !read(&id) {
            out.push((
                Broken::Unresolved,
                format!(
                    "`inbox/{name}` names `{id}` at `payload.{at}`, an id it never read in the \
                     manifest or an outcome"
                ),
            ));
        }
    }
    out
}

/// The lowercased `fromCommand` ids of a plan's slots.
fn from_commands(payload: &Value) -> Vec<String> {
    slots(payload)
        .filter_map(|(_, r)| r.get("fromCommand")?.as_str())
        .map(|s| normalize_uuid(s).unwrap_or_else(|| s.to_ascii_lowercase()))
        .collect()
}

/// `(field path, id)` of every existing object a payload names: its `id` and its slots'
/// `routineRef.id`.
fn ids(payload: &Value) -> Vec<(String, String)> {
    let own = payload
        .get("id")
        .and_then(Value::as_str)
        .map(|id| ("id".to_string(), id.to_string()));
    own.into_iter()
        .chain(slots(payload).filter_map(|(at, r)| {
            let id = r.get("id")?.as_str()?;
            Some((format!("{at}.routineRef.id"), id.to_string()))
        }))
        .collect()
}

/// `(field path, routineRef)` of every slot of a plan payload.
fn slots(payload: &Value) -> impl Iterator<Item = (String, &Value)> {
    let days = payload.get("days").and_then(Value::as_array);
    days.into_iter().flatten().enumerate().flat_map(|(d, day)| {
        let slots = day.get("slots").and_then(Value::as_array);
        slots
            .into_iter()
            .flatten()
            .enumerate()
            .filter_map(move |(s, slot)| {
                Some((format!("days[{d}].slots[{s}]"), slot.get("routineRef")?))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ROUTINE: &str = "a1111111-1111-4111-8111-111111111111";

    fn plan_from(cmd: &str) -> Value {
        serde_json::json!({"verb": "createPlan", "payload": {"name": "W", "days": [
            {"weekday": 1, "slots": [{"routineRef": {"fromCommand": cmd}}]}]}})
    }

    fn earlier(name: &str, succeeded: Option<bool>) -> Earlier {
        Earlier {
            name: name.into(),
            command_id: Some(ROUTINE.into()),
            succeeded,
        }
    }

    fn rules(f: &[(Broken, String)]) -> Vec<Broken> {
        f.iter().map(|(r, _)| *r).collect()
    }

    #[test]
    fn a_dependent_named_after_its_routine_passes_in_one_sweep_or_after_the_outcome() {
        let none = |_: &str| false;
        for state in [None, Some(true)] {
            let e = [earlier("20260711T170000Z-01-a.json", state)];
            let f = judge_write(&e, "20260711T170000Z-02-b.json", &plan_from(ROUTINE), &none);
            assert_eq!(f, vec![], "{state:?}");
        }
        // Any letter case names the same command, as the app reads it.
        let e = [earlier("01.json", None)];
        let upper = plan_from(&ROUTINE.to_uppercase());
        assert_eq!(judge_write(&e, "02.json", &upper, &none), vec![]);
    }

    #[test]
    fn a_dependent_that_sorts_first_is_misordered() {
        let e = [earlier("20260711T170000Z-2-a.json", None)];
        let f = judge_write(
            &e,
            "20260711T170000Z-10-b.json",
            &plan_from(ROUTINE),
            &|_| false,
        );
        assert_eq!(rules(&f), [Broken::Misordered], "{f:?}");
        assert!(f[0].1.contains("refers to it by fromCommand"), "{f:?}");
        // Once the earlier file is processed, its name no longer matters.
        let done = [earlier("20260711T170000Z-2-a.json", Some(true))];
        let f = judge_write(
            &done,
            "20260711T170000Z-10-b.json",
            &plan_from(ROUTINE),
            &|_| false,
        );
        assert_eq!(f, vec![]);
    }

    #[test]
    fn placeholders_before_they_resolve_are_findings() {
        let unread = |_: &str| false;
        let f = judge_write(&[], "01.json", &plan_from(ROUTINE), &unread);
        assert_eq!(rules(&f), [Broken::Unresolved]);
        assert!(f[0].1.contains("no command written before it"), "{f:?}");
        let failed = [earlier("01.json", Some(false))];
        let f = judge_write(&failed, "02.json", &plan_from(ROUTINE), &unread);
        assert!(f[0].1.contains("which failed"), "{f:?}");
        let by_id = serde_json::json!({"verb": "createPlan", "payload": {"name": "W", "days": [
            {"weekday": 1, "slots": [{"routineRef": {"id": "routine-id"}}]}]}});
        let f = judge_write(&[], "01.json", &by_id, &unread);
        assert_eq!(rules(&f), [Broken::Unresolved]);
        assert!(
            f[0].1.contains("payload.days[0].slots[0].routineRef.id"),
            "{f:?}"
        );
        assert_eq!(
            judge_write(&[], "01.json", &by_id, &|id| id == "routine-id"),
            vec![]
        );
    }

    proptest! {
        /// Files written in lexical order never break the batch's order, whatever their
        /// names; written in the reverse order, each sorting before a pending one does.
        #[test]
        fn only_a_name_sorting_before_a_pending_file_is_misordered(
            names in proptest::collection::btree_set("[0-9a-z-]{1,12}\\.json", 2..6)
                .prop_map(|s| s.into_iter().collect::<Vec<_>>()),
            reverse in any::<bool>(),
        ) {
            let mut names = names;
            if reverse {
                names.reverse();
            }
            let cmd = serde_json::json!({"verb": "createRoutine", "payload": {"name": "R"}});
            let mut e: Vec<Earlier> = Vec::new();
            let mut found = 0;
            for n in &names {
                found += judge_write(&e, n, &cmd, &|_| true).len();
                e.push(Earlier { name: n.clone(), command_id: None, succeeded: None });
            }
            let k = names.len();
            prop_assert_eq!(found, if reverse { k * (k - 1) / 2 } else { 0 });
        }
    }
}

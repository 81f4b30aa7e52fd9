//! Applying a validated command to the app's state: the rules that need the state.
//!
//! `unknown-id` (a missing object, workout or routine), `stale-object` (an
//! `expectedUpdatedAt` that is no longer the object's), the plan rules (exactly seven weekday
//! buckets, 1..7 each once) and `routineRef` resolution (by `id`, or by `fromCommand`: a
//! command in the ledger, i.e. one processed earlier in lexical order or in an earlier sweep,
//! that succeeded and produced a routine). Work happens on a copy that replaces the state
//! only on success, so a refused command changes nothing. Updates are full replacements.
//! Human edits (the app's own UI, used by scenarios to race an agent) go through here too,
//! with the two delete verbs only a person has.

use std::collections::BTreeMap;

use super::catalog::CatalogWorkout;
use super::command::{ActivateIn, CustomWorkoutIn, Payload, PlanIn, RoutineIn, Verb};
use super::ids::{derive_uuid, normalize_uuid};
use super::outcome::{Code, Outcome, Rejection, Status};
use super::state::{CustomWorkout, MyWeek, Plan, PlanDay, PlanSlot, Routine, RoutineStep, State};
use crate::errors::FieldPath;

/// What the app knows besides the state: the read-only catalog and the command ledger.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ctx<'a> {
    /// Built-in workouts.
    pub(crate) catalog: &'a [CatalogWorkout],
    /// Processed commands by lowercase id.
    pub(crate) ledger: &'a BTreeMap<String, Outcome>,
}

/// What a successful command did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Applied {
    /// Ids created, replaced or selected.
    pub(crate) resulting_ids: Vec<String>,
    /// Their new `updatedAt`.
    pub(crate) updated_at: String,
}

/// A change made by a person in the app rather than through the bridge.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum HumanEdit {
    /// Anything a command can do.
    Bridge(Verb, Payload),
    /// Deleting a routine; it also leaves every plan slot that used it.
    DeleteRoutine(String),
    /// Deleting a plan; if it was My Week, there is no My Week any more.
    DeletePlan(String),
}

const MAX_NAME_CHARS: usize = 100;
const MAX_NOTES_CHARS: usize = 2000;
const MAX_STEPS: usize = 50;
const MAX_SLOTS: usize = 10;

/// Applies `payload` under `verb`. New objects get ids derived from `seed` (the command id),
/// and every changed object gets `now` as its `updatedAt`.
pub(crate) fn apply(
    state: &mut State,
    ctx: Ctx<'_>,
    verb: Verb,
    payload: &Payload,
    seed: &str,
    now: &str,
) -> Result<Applied, Rejection> {
    let mut next = state.clone();
    let ids = match (verb, payload) {
        (_, Payload::CustomWorkout(p)) => custom_workout(&mut next, verb, p, seed, now)?,
        (_, Payload::Routine(p)) => routine(&mut next, ctx, verb, p, seed, now)?,
        (_, Payload::Plan(p)) => plan(&mut next, ctx, verb, p, seed, now)?,
        (_, Payload::Activate(p)) => activate(&mut next, p, now)?,
    };
    *state = next;
    Ok(Applied {
        resulting_ids: ids,
        updated_at: now.to_string(),
    })
}

/// Applies a person's edit. The app's UI cannot make invalid objects either, so the same
/// rules hold; a failure here is a broken scenario, reported by the caller.
pub(crate) fn apply_human(
    state: &mut State,
    ctx: Ctx<'_>,
    edit: &HumanEdit,
    now: &str,
) -> Result<Vec<String>, Rejection> {
    let seed = format!("human-{now}");
    match edit {
        HumanEdit::Bridge(verb, payload) => {
            apply(state, ctx, *verb, payload, &seed, now).map(|a| a.resulting_ids)
        }
        HumanEdit::DeleteRoutine(id) => {
            let before = state.routines.len();
            state.routines.retain(|r| &r.id != id);
            if state.routines.len() == before {
                return Err(unknown(path(&["id"]), "routine", id));
            }
            for p in &mut state.plans {
                let uses = p
                    .days
                    .iter()
                    .any(|d| d.slots.iter().any(|s| &s.routine_id == id));
                if uses {
                    for d in &mut p.days {
                        d.slots.retain(|s| &s.routine_id != id);
                    }
                    p.updated_at = now.to_string();
                }
            }
            Ok(vec![id.clone()])
        }
        HumanEdit::DeletePlan(id) => {
            let before = state.plans.len();
            state.plans.retain(|p| &p.id != id);
            if state.plans.len() == before {
                return Err(unknown(path(&["id"]), "plan", id));
            }
            if state.my_week.as_ref().is_some_and(|w| &w.plan_id == id) {
                state.my_week = None;
            }
            Ok(vec![id.clone()])
        }
    }
}

fn path(keys: &[&str]) -> FieldPath {
    keys.iter()
        .fold(FieldPath::root().key("payload"), |p, k| p.key(k))
}

fn unknown(at: FieldPath, what: &str, id: &str) -> Rejection {
    Rejection::new(Code::UnknownId, at, format!("no {what} has id `{id}`"))
}

fn check_fresh(expected: Option<&String>, actual: &str) -> Result<(), Rejection> {
    match expected {
        Some(e) if e != actual => Err(Rejection::new(
            Code::StaleObject,
            path(&["expectedUpdatedAt"]),
            format!("the object changed at {actual}, after {e}: read the manifest again"),
        )),
        _ => Ok(()),
    }
}

fn check_text(at: FieldPath, s: &str, max: usize, required: bool) -> Result<(), Rejection> {
    if required && s.trim().is_empty() {
        return Err(Rejection::new(Code::InvalidField, at, "must not be empty"));
    }
    let n = s.chars().count();
    if n > max {
        return Err(Rejection::new(
            Code::InvalidField,
            at,
            format!("{n} characters is over the limit of {max}"),
        ));
    }
    Ok(())
}

/// `id` as the app stores it: a UUID in lowercase, as every UUID it reads is normalized
/// (`5D39…` names the same object as `5d39…`); other ids as written.
fn object_id(id: &str) -> String {
    normalize_uuid(id).unwrap_or_else(|| id.to_string())
}

/// The index of the object `id` names, or `unknown-id` at `payload.id`.
fn find<T>(
    items: &[T],
    id: &str,
    what: &str,
    key: impl Fn(&T) -> &str,
) -> Result<usize, Rejection> {
    let id = object_id(id);
    items
        .iter()
        .position(|x| key(x) == id)
        .ok_or_else(|| unknown(path(&["id"]), what, &id))
}

fn custom_workout(
    s: &mut State,
    verb: Verb,
    p: &CustomWorkoutIn,
    seed: &str,
    now: &str,
) -> Result<Vec<String>, Rejection> {
    let slot = match &p.id {
        Some(id) if verb == Verb::UpdateCustomWorkout => {
            let i = find(&s.custom_workouts, id, "custom workout", |w| &w.id)?;
            check_fresh(
                p.expected_updated_at.as_ref(),
                &s.custom_workouts[i].updated_at,
            )?;
            Some(i)
        }
        _ => None,
    };
    check_text(path(&["name"]), &p.name, MAX_NAME_CHARS, true)?;
    if let Some(notes) = &p.notes {
        check_text(path(&["notes"]), notes, MAX_NOTES_CHARS, false)?;
    }
    let id = match slot {
        Some(i) => s.custom_workouts[i].id.clone(),
        None => derive_uuid("custom-workout", seed),
    };
    let w = CustomWorkout {
        id: id.clone(),
        name: p.name.clone(),
        notes: p.notes.clone(),
        updated_at: now.to_string(),
    };
    match slot {
        Some(i) => s.custom_workouts[i] = w,
        None => s.custom_workouts.push(w),
    }
    Ok(vec![id])
}

fn routine(
    s: &mut State,
    ctx: Ctx<'_>,
    verb: Verb,
    p: &RoutineIn,
    seed: &str,
    now: &str,
) -> Result<Vec<String>, Rejection> {
    let slot = match &p.id {
        Some(id) if verb == Verb::UpdateRoutine => {
            let i = find(&s.routines, id, "routine", |r| &r.id)?;
            check_fresh(p.expected_updated_at.as_ref(), &s.routines[i].updated_at)?;
            Some(i)
        }
        _ => None,
    };
    check_text(path(&["name"]), &p.name, MAX_NAME_CHARS, true)?;
    // A custom workout's UUID names it in any letter case, and is stored as the app stores it.
    let steps: Vec<RoutineStep> = p
        .steps
        .iter()
        .map(|st| RoutineStep {
            workout_id: object_id(&st.workout_id),
            ..st.clone()
        })
        .collect();
    check_steps(s, ctx, &steps)?;
    let id = match slot {
        Some(i) => s.routines[i].id.clone(),
        None => derive_uuid("routine", seed),
    };
    let r = Routine {
        id: id.clone(),
        name: p.name.clone(),
        steps,
        updated_at: now.to_string(),
    };
    match slot {
        Some(i) => s.routines[i] = r,
        None => s.routines.push(r),
    }
    Ok(vec![id])
}

fn check_steps(s: &State, ctx: Ctx<'_>, steps: &[RoutineStep]) -> Result<(), Rejection> {
    let at = path(&["steps"]);
    if steps.is_empty() || steps.len() > MAX_STEPS {
        return Err(Rejection::new(
            Code::InvalidField,
            at,
            format!("a routine has 1 to {MAX_STEPS} steps, not {}", steps.len()),
        ));
    }
    for (i, st) in steps.iter().enumerate() {
        let at = at.index(i);
        let known = ctx.catalog.iter().any(|w| w.id == st.workout_id)
            || s.custom_workouts.iter().any(|w| w.id == st.workout_id);
        if !known {
            return Err(unknown(
                at.key("workoutID"),
                "built-in or custom workout",
                &st.workout_id,
            ));
        }
        let ranges = [
            ("workSeconds", st.work_seconds, 1, 3600),
            ("sets", st.sets, 1, 50),
            ("setRestSeconds", st.set_rest_seconds, 0, 3600),
            ("restAfterSeconds", st.rest_after_seconds, 0, 3600),
        ];
        for (key, v, lo, hi) in ranges {
            if !(lo..=hi).contains(&v) {
                return Err(Rejection::new(
                    Code::InvalidField,
                    at.key(key),
                    format!("{v} is outside {lo}..{hi}"),
                ));
            }
        }
    }
    Ok(())
}

fn plan(
    s: &mut State,
    ctx: Ctx<'_>,
    verb: Verb,
    p: &PlanIn,
    seed: &str,
    now: &str,
) -> Result<Vec<String>, Rejection> {
    let slot = match &p.id {
        Some(id) if verb == Verb::UpdatePlan => {
            let i = find(&s.plans, id, "plan", |p| &p.id)?;
            check_fresh(p.expected_updated_at.as_ref(), &s.plans[i].updated_at)?;
            Some(i)
        }
        _ => None,
    };
    check_text(path(&["name"]), &p.name, MAX_NAME_CHARS, true)?;
    let days = check_days(s, ctx, p)?;
    let id = match slot {
        Some(i) => s.plans[i].id.clone(),
        None => derive_uuid("plan", seed),
    };
    let plan = Plan {
        id: id.clone(),
        name: p.name.clone(),
        days,
        updated_at: now.to_string(),
    };
    match slot {
        Some(i) => s.plans[i] = plan,
        None => s.plans.push(plan),
    }
    Ok(vec![id])
}

/// Exactly seven buckets, weekdays 1..7 each once; every slot resolved to a routine id.
fn check_days(s: &State, ctx: Ctx<'_>, p: &PlanIn) -> Result<Vec<PlanDay>, Rejection> {
    let at = path(&["days"]);
    if p.days.len() != 7 {
        return Err(Rejection::new(
            Code::InvalidField,
            at,
            format!(
                "a plan has exactly seven weekday buckets (1 = Sunday … 7 = Saturday), not {}",
                p.days.len()
            ),
        ));
    }
    let mut seen = [false; 8];
    let mut days = Vec::with_capacity(7);
    for (i, d) in p.days.iter().enumerate() {
        let at = at.index(i);
        let wd = usize::try_from(d.weekday)
            .ok()
            .filter(|w| (1..=7).contains(w));
        let Some(wd) = wd else {
            return Err(Rejection::new(
                Code::InvalidField,
                at.key("weekday"),
                format!(
                    "weekday {} is outside 1 (Sunday) .. 7 (Saturday)",
                    d.weekday
                ),
            ));
        };
        if std::mem::replace(&mut seen[wd], true) {
            return Err(Rejection::new(
                Code::InvalidField,
                at.key("weekday"),
                format!("weekday {wd} appears twice"),
            ));
        }
        if d.slots.len() > MAX_SLOTS {
            return Err(Rejection::new(
                Code::InvalidField,
                at.key("slots"),
                format!("{} slots is over the limit of {MAX_SLOTS}", d.slots.len()),
            ));
        }
        let mut slots = Vec::with_capacity(d.slots.len());
        for (j, slot) in d.slots.iter().enumerate() {
            let at = at.key("slots").index(j).key("routineRef");
            slots.push(PlanSlot {
                routine_id: resolve_ref(s, ctx, &slot.routine_ref, at)?,
            });
        }
        days.push(PlanDay {
            weekday: wd as u8,
            slots,
        });
    }
    days.sort_by_key(|d| d.weekday);
    Ok(days)
}

fn resolve_ref(
    s: &State,
    ctx: Ctx<'_>,
    r: &super::command::RoutineRefIn,
    at: FieldPath,
) -> Result<String, Rejection> {
    let id = match (&r.id, &r.from_command) {
        (Some(id), None) => object_id(id),
        (None, Some(cmd)) => {
            let at = at.key("fromCommand");
            let Some(cmd) = normalize_uuid(cmd) else {
                return Err(Rejection::new(
                    Code::InvalidField,
                    at,
                    "`fromCommand` must be a command's UUID",
                ));
            };
            let made_routine = |o: &&Outcome| {
                o.status == Status::Succeeded
                    && matches!(o.verb.as_deref(), Some("createRoutine" | "updateRoutine"))
            };
            let Some(o) = ctx.ledger.get(&cmd).filter(made_routine) else {
                return Err(Rejection::new(
                    Code::UnknownId,
                    at,
                    format!(
                        "command `{cmd}` has no successful routine outcome yet: it must come \
                         earlier in lexical order or an earlier sweep"
                    ),
                ));
            };
            let Some(id) = o.resulting_ids.iter().flatten().next() else {
                return Err(unknown(at, "routine from command", &cmd));
            };
            return if s.routines.iter().any(|x| &x.id == id) {
                Ok(id.clone())
            } else {
                Err(unknown(at, "routine", id))
            };
        }
        _ => {
            return Err(Rejection::new(
                Code::InvalidField,
                at,
                "a routineRef has exactly one of `id` and `fromCommand`",
            ));
        }
    };
    if s.routines.iter().any(|x| x.id == id) {
        Ok(id)
    } else {
        Err(unknown(at.key("id"), "routine", &id))
    }
}

fn activate(s: &mut State, p: &ActivateIn, now: &str) -> Result<Vec<String>, Rejection> {
    let i = find(&s.plans, &p.id, "plan", |p| &p.id)?;
    // expectedUpdatedAt guards the plan being selected, like every other verb's object.
    check_fresh(p.expected_updated_at.as_ref(), &s.plans[i].updated_at)?;
    // The stored id: the command may spell a UUID in upper case.
    let id = s.plans[i].id.clone();
    s.my_week = Some(MyWeek {
        plan_id: id.clone(),
        updated_at: now.to_string(),
    });
    Ok(vec![id])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::catalog::built_in_catalog;
    use crate::bridge::command::parse_payload;

    fn run(
        state: &mut State,
        verb: Verb,
        payload: serde_json::Value,
    ) -> Result<Applied, Rejection> {
        let catalog = built_in_catalog();
        let ledger = BTreeMap::new();
        let ctx = Ctx {
            catalog: &catalog,
            ledger: &ledger,
        };
        let p = parse_payload(verb, payload)?;
        let now = state.tick();
        apply(
            state,
            ctx,
            verb,
            &p,
            "a1111111-1111-4111-8111-111111111111",
            &now,
        )
    }

    fn week() -> serde_json::Value {
        serde_json::json!(
            (1..=7)
                .map(|d| serde_json::json!({"weekday": d, "slots": []}))
                .collect::<Vec<_>>()
        )
    }

    #[test]
    fn a_refused_command_changes_nothing_but_the_clock() {
        let mut s = State::default();
        let r = run(
            &mut s,
            Verb::CreateRoutine,
            serde_json::json!({"name": "R", "steps": [{"workoutID": "bridge", "workSeconds": 30,
                "sets": 3, "setRestSeconds": 10, "restAfterSeconds": 15}, {"workoutID": "nope",
                "workSeconds": 30, "sets": 3, "setRestSeconds": 10, "restAfterSeconds": 15}]}),
        )
        .unwrap_err();
        assert_eq!(
            (r.reason, r.path.to_string()),
            (Code::UnknownId, "payload.steps[1].workoutID".into())
        );
        assert_eq!(
            s,
            State {
                logical_clock: 1,
                ..State::default()
            }
        );
    }

    #[test]
    fn built_in_workouts_cannot_be_updated() {
        let mut s = State::default();
        let r = run(
            &mut s,
            Verb::UpdateCustomWorkout,
            serde_json::json!({"id": "bridge", "name": "My Bridge"}),
        )
        .unwrap_err();
        assert_eq!(
            (r.reason, r.path.to_string()),
            (Code::UnknownId, "payload.id".into())
        );
    }

    #[test]
    fn object_ids_in_upper_case_name_the_same_objects() {
        let mut s = State::default();
        let routine = run(
            &mut s,
            Verb::CreateRoutine,
            serde_json::json!({"name": "Core", "steps": [{"workoutID": "bridge", "workSeconds": 30,
                "sets": 3, "setRestSeconds": 10, "restAfterSeconds": 15}]}),
        )
        .unwrap();
        let upper = routine.resulting_ids[0].to_uppercase();
        let mut days = week();
        days[0]["slots"] = serde_json::json!([{"routineRef": {"id": upper}}]);
        let plan = run(
            &mut s,
            Verb::CreatePlan,
            serde_json::json!({"name": "W", "days": days}),
        )
        .unwrap();
        assert_eq!(
            s.plans[0].days[0].slots[0].routine_id,
            routine.resulting_ids[0]
        );
        let id = plan.resulting_ids[0].to_uppercase();
        let ok = run(
            &mut s,
            Verb::ActivatePlan,
            serde_json::json!({"id": id, "expectedUpdatedAt": plan.updated_at}),
        )
        .unwrap();
        assert_eq!(ok.resulting_ids, plan.resulting_ids);
    }

    #[test]
    fn a_custom_workouts_uuid_in_upper_case_names_it_and_is_stored_lowercase() {
        let mut s = State::default();
        let w = run(
            &mut s,
            Verb::CreateCustomWorkout,
            serde_json::json!({"name": "Plank"}),
        );
        let Ok(w) = w else {
            panic!("a custom workout is created: {w:?}")
        };
        let upper = w.resulting_ids[0].to_uppercase();
        assert_ne!(upper, w.resulting_ids[0]);
        run(
            &mut s,
            Verb::CreateRoutine,
            serde_json::json!({"name": "Core", "steps": [{"workoutID": upper, "workSeconds": 30,
                "sets": 3, "setRestSeconds": 10, "restAfterSeconds": 15}]}),
        )
        .unwrap();
        assert_eq!(s.routines[0].steps[0].workout_id, w.resulting_ids[0]);
    }

    #[test]
    fn activation_is_guarded_by_the_plans_updated_at() {
        let mut s = State::default();
        let plan = run(
            &mut s,
            Verb::CreatePlan,
            serde_json::json!({"name": "W", "days": week()}),
        )
        .unwrap();
        let id = plan.resulting_ids[0].clone();
        let r = run(
            &mut s,
            Verb::ActivatePlan,
            serde_json::json!({"id": id, "expectedUpdatedAt": "2026-01-01T00:00:00Z"}),
        )
        .unwrap_err();
        assert_eq!(r.reason, Code::StaleObject);
        assert!(s.my_week.is_none());
        let ok = run(
            &mut s,
            Verb::ActivatePlan,
            serde_json::json!({"id": id, "expectedUpdatedAt": plan.updated_at}),
        )
        .unwrap();
        assert_eq!(ok.resulting_ids.len(), 1);
        assert_eq!(ok.resulting_ids[0], id);
        assert_eq!(s.my_week.unwrap().plan_id, id);
    }

    #[test]
    fn plan_days_are_stored_in_weekday_order() {
        let mut s = State::default();
        let mut days = week();
        days.as_array_mut().unwrap().reverse();
        run(
            &mut s,
            Verb::CreatePlan,
            serde_json::json!({"name": "W", "days": days}),
        )
        .unwrap();
        let order: Vec<u8> = s.plans[0].days.iter().map(|d| d.weekday).collect();
        assert_eq!(order, [1, 2, 3, 4, 5, 6, 7]);
    }
}

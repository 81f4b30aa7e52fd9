//! The command envelope and its payloads, validated in the protocol's order.
//!
//! [`identify`] reads just enough to name the command (`invalid-json`, `unsupported-schema`,
//! a UUID `commandID`): the id decides whether this is a duplicate before anything else is
//! looked at, because a duplicate's new content is ignored. [`parse_command`] then checks the
//! rest (`unknown-verb`, the retired `deactivatePlan` as `invalid-field`, strict payload types)
//! into a typed [`Command`]. Field paths come from the deserializer and are prefixed with
//! `payload.`, so a wrong slot is reported at `payload.days[3].slots[0].routineRef`.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::ids::normalize_uuid;
use super::outcome::{COMMAND_SCHEMA_VERSION, Code, Rejection};
use super::state::RoutineStep;
use crate::errors::FieldPath;

/// The verbs the bridge accepts. There is no delete or archive verb, by design.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub(crate) enum Verb {
    CreateCustomWorkout,
    UpdateCustomWorkout,
    CreateRoutine,
    UpdateRoutine,
    CreatePlan,
    UpdatePlan,
    ActivatePlan,
}

impl Verb {
    /// Every verb, in the protocol's order.
    pub(crate) const ALL: [Verb; 7] = [
        Verb::CreateCustomWorkout,
        Verb::UpdateCustomWorkout,
        Verb::CreateRoutine,
        Verb::UpdateRoutine,
        Verb::CreatePlan,
        Verb::UpdatePlan,
        Verb::ActivatePlan,
    ];

    /// The verb as commands spell it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Verb::CreateCustomWorkout => "createCustomWorkout",
            Verb::UpdateCustomWorkout => "updateCustomWorkout",
            Verb::CreateRoutine => "createRoutine",
            Verb::UpdateRoutine => "updateRoutine",
            Verb::CreatePlan => "createPlan",
            Verb::UpdatePlan => "updatePlan",
            Verb::ActivatePlan => "activatePlan",
        }
    }

    /// The verb named `s` (exact spelling), if it is one.
    pub(crate) fn parse(s: &str) -> Option<Verb> {
        Verb::ALL.into_iter().find(|v| v.name() == s)
    }

    /// True for the create verbs, which take no `id` and no `expectedUpdatedAt`.
    pub(crate) fn creates(self) -> bool {
        matches!(
            self,
            Verb::CreateCustomWorkout | Verb::CreateRoutine | Verb::CreatePlan
        )
    }
}

/// A command whose envelope is schema version 2 with a UUID `commandID`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Identified {
    /// The lowercase `commandID`.
    pub(crate) command_id: String,
    /// The whole document.
    pub(crate) value: Value,
}

/// A command fully validated against its verb's payload shape.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Command {
    /// The lowercase `commandID`.
    pub(crate) command_id: String,
    /// The verb.
    pub(crate) verb: Verb,
    /// The payload.
    pub(crate) payload: Payload,
}

/// A payload, by the kind of object it describes.
#[derive(Clone, Debug, PartialEq)]
#[allow(missing_docs)]
pub(crate) enum Payload {
    CustomWorkout(CustomWorkoutIn),
    Routine(RoutineIn),
    Plan(PlanIn),
    Activate(ActivateIn),
}

/// `createCustomWorkout` / `updateCustomWorkout`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(missing_docs)]
pub(crate) struct CustomWorkoutIn {
    #[serde(default)]
    pub(crate) id: Option<String>,
    #[serde(default)]
    pub(crate) expected_updated_at: Option<String>,
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) notes: Option<String>,
}

/// `createRoutine` / `updateRoutine`: the whole routine (updates are full replacements).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(missing_docs)]
pub(crate) struct RoutineIn {
    #[serde(default)]
    pub(crate) id: Option<String>,
    #[serde(default)]
    pub(crate) expected_updated_at: Option<String>,
    pub(crate) name: String,
    pub(crate) steps: Vec<RoutineStep>,
}

/// `createPlan` / `updatePlan`: the whole plan, seven weekday buckets.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(missing_docs)]
pub(crate) struct PlanIn {
    #[serde(default)]
    pub(crate) id: Option<String>,
    #[serde(default)]
    pub(crate) expected_updated_at: Option<String>,
    pub(crate) name: String,
    pub(crate) days: Vec<DayIn>,
}

/// One weekday bucket as a command writes it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub(crate) struct DayIn {
    pub(crate) weekday: i64,
    pub(crate) slots: Vec<SlotIn>,
}

/// One slot as a command writes it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub(crate) struct SlotIn {
    #[serde(rename = "routineRef")]
    pub(crate) routine_ref: RoutineRefIn,
}

/// A routine named by its id, or by the command that created it earlier.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub(crate) struct RoutineRefIn {
    #[serde(default)]
    pub(crate) id: Option<String>,
    #[serde(default, rename = "fromCommand")]
    pub(crate) from_command: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(missing_docs)]
pub(crate) struct ActivateIn {
    pub(crate) id: String,
    #[serde(default)]
    pub(crate) expected_updated_at: Option<String>,
}

/// The envelope keys; anything else is `invalid-field`.
const ENVELOPE_KEYS: [&str; 4] = ["schemaVersion", "commandID", "verb", "payload"];

/// Reads a command file's text as far as its id. On failure, the id is returned too when it
/// could be read, so the outcome can be named after it.
pub(crate) fn identify(text: &str) -> Result<Identified, (Option<String>, Rejection)> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        let rejection = Rejection::whole(
            Code::InvalidJson,
            format!("{msg} at line {} column {}", e.line(), e.column()),
        );
        (None, rejection)
    })?;
    let Some(obj) = value.as_object() else {
        let r = Rejection::whole(Code::InvalidField, "a command is a JSON object");
        return Err((None, r));
    };
    let id = obj
        .get("commandID")
        .and_then(Value::as_str)
        .and_then(normalize_uuid);
    match obj.get("schemaVersion").and_then(Value::as_u64) {
        Some(v) if v == u64::from(COMMAND_SCHEMA_VERSION) => {}
        other => {
            let what = other.map_or("missing or not a number".to_string(), |v| v.to_string());
            let r = Rejection::new(
                Code::UnsupportedSchema,
                FieldPath::root().key("schemaVersion"),
                format!("command schema version {what} is not supported; the app reads 2"),
            );
            return Err((id, r));
        }
    }
    let Some(command_id) = id else {
        let r = Rejection::new(
            Code::InvalidField,
            FieldPath::root().key("commandID"),
            "`commandID` must be a UUID string",
        );
        return Err((None, r));
    };
    Ok(Identified { command_id, value })
}

/// Validates the rest of an identified command.
pub(crate) fn parse_command(cmd: &Identified) -> Result<Command, Rejection> {
    let obj = cmd.value.as_object().cloned().unwrap_or_default();
    if let Some(k) = obj.keys().find(|k| !ENVELOPE_KEYS.contains(&k.as_str())) {
        return Err(Rejection::new(
            Code::InvalidField,
            FieldPath::root().key(k),
            format!("unknown envelope field `{k}`"),
        ));
    }
    let verb_path = FieldPath::root().key("verb");
    let Some(verb_name) = obj.get("verb").and_then(Value::as_str) else {
        return Err(Rejection::new(
            Code::InvalidField,
            verb_path,
            "`verb` must be a string",
        ));
    };
    if verb_name == "deactivatePlan" {
        return Err(Rejection::new(
            Code::InvalidField,
            verb_path,
            "`deactivatePlan` is retired: select another plan with activatePlan, or delete the \
             current plan in the app",
        ));
    }
    let Some(verb) = Verb::parse(verb_name) else {
        return Err(Rejection::new(
            Code::UnknownVerb,
            verb_path,
            format!("unknown verb `{verb_name}`; the bridge has no delete or archive verb"),
        ));
    };
    let payload_path = FieldPath::root().key("payload");
    let payload = match obj.get("payload") {
        Some(p @ Value::Object(_)) => p.clone(),
        _ => {
            return Err(Rejection::new(
                Code::InvalidField,
                payload_path,
                "`payload` must be an object",
            ));
        }
    };
    let payload = parse_payload(verb, payload)?;
    Ok(Command {
        command_id: cmd.command_id.clone(),
        verb,
        payload,
    })
}

/// Parses `payload` into `verb`'s shape and checks the id rules every verb shares.
pub(crate) fn parse_payload(verb: Verb, payload: Value) -> Result<Payload, Rejection> {
    let (payload, id, expected) = match verb {
        Verb::CreateCustomWorkout | Verb::UpdateCustomWorkout => {
            let p: CustomWorkoutIn = typed(payload)?;
            let (id, e) = (p.id.is_some(), p.expected_updated_at.is_some());
            (Payload::CustomWorkout(p), id, e)
        }
        Verb::CreateRoutine | Verb::UpdateRoutine => {
            let p: RoutineIn = typed(payload)?;
            let (id, e) = (p.id.is_some(), p.expected_updated_at.is_some());
            (Payload::Routine(p), id, e)
        }
        Verb::CreatePlan | Verb::UpdatePlan => {
            let p: PlanIn = typed(payload)?;
            let (id, e) = (p.id.is_some(), p.expected_updated_at.is_some());
            (Payload::Plan(p), id, e)
        }
        Verb::ActivatePlan => (Payload::Activate(typed(payload)?), true, false),
    };
    let at = |k: &str| FieldPath::root().key("payload").key(k);
    if verb.creates() && id {
        return Err(Rejection::new(
            Code::InvalidField,
            at("id"),
            format!("`{}` takes no id: the app assigns it", verb.name()),
        ));
    }
    if verb.creates() && expected {
        return Err(Rejection::new(
            Code::InvalidField,
            at("expectedUpdatedAt"),
            format!("`{}` takes no expectedUpdatedAt", verb.name()),
        ));
    }
    if !verb.creates() && !id {
        return Err(Rejection::new(
            Code::InvalidField,
            at("id"),
            format!("`{}` needs the id of the object to change", verb.name()),
        ));
    }
    Ok(payload)
}

fn typed<T: DeserializeOwned>(payload: Value) -> Result<T, Rejection> {
    serde_path_to_error::deserialize(payload).map_err(|e| {
        let path = FieldPath::parse(&format!("payload.{}", e.path()));
        Rejection::new(Code::InvalidField, path, e.inner().to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(text: &str) -> Result<Command, Rejection> {
        let id = identify(text).map_err(|(_, r)| r)?;
        parse_command(&id)
    }

    const ID: &str = "5D39F61B-3C2E-4BE7-A264-B4B75D20C7EE";

    fn env(verb: &str, payload: &str) -> String {
        format!(
            "{{\"schemaVersion\": 2, \"commandID\": \"{ID}\", \"verb\": \"{verb}\", \"payload\": {payload}}}"
        )
    }

    #[test]
    fn the_protocols_example_parses_and_the_id_is_lowercased() {
        let c = command(&env(
            "createRoutine",
            r#"{"name": "Morning Core", "steps": [{"workoutID": "bridge", "workSeconds": 30,
                "sets": 3, "setRestSeconds": 10, "restAfterSeconds": 15}]}"#,
        ))
        .unwrap();
        assert_eq!(c.command_id, ID.to_ascii_lowercase());
        assert_eq!(c.verb, Verb::CreateRoutine);
    }

    #[test]
    fn bad_json_is_invalid_json_without_an_id() {
        let (id, r) = identify("{\"schemaVersion\": 2,").unwrap_err();
        assert_eq!((id, r.reason), (None, Code::InvalidJson));
    }

    #[test]
    fn only_schema_version_2_is_read_but_the_id_still_names_the_outcome() {
        let text =
            env("createRoutine", "{}").replace("\"schemaVersion\": 2", "\"schemaVersion\": 1");
        let (id, r) = identify(&text).unwrap_err();
        assert_eq!(r.reason, Code::UnsupportedSchema);
        assert_eq!(r.path.to_string(), "schemaVersion");
        assert_eq!(id.as_deref(), Some(ID.to_ascii_lowercase().as_str()));
    }

    #[test]
    fn a_command_id_must_be_a_uuid() {
        let text = env("createRoutine", "{}").replace(ID, "../../escape");
        let (_, r) = identify(&text).unwrap_err();
        assert_eq!(
            (r.reason, r.path.to_string()),
            (Code::InvalidField, "commandID".into())
        );
    }

    #[test]
    fn delete_shaped_and_unknown_verbs_are_unknown_verb() {
        for verb in [
            "deleteRoutine",
            "archivePlan",
            "deletePlan",
            "CreateRoutine",
            "dropTable",
        ] {
            let r = command(&env(verb, "{\"id\": \"x\"}")).unwrap_err();
            assert_eq!(r.reason, Code::UnknownVerb, "{verb}");
            assert_eq!(r.path.to_string(), "verb");
        }
    }

    #[test]
    fn deactivate_plan_is_invalid_field() {
        let r = command(&env("deactivatePlan", "{\"id\": \"x\"}")).unwrap_err();
        assert_eq!(
            (r.reason, r.path.to_string()),
            (Code::InvalidField, "verb".into())
        );
    }

    #[test]
    fn payload_type_errors_carry_the_exact_path() {
        let r = command(&env(
            "createPlan",
            r#"{"name": "W", "days": [{"weekday": 1, "slots": []}, {"weekday": 2, "slots": []},
                {"weekday": 3, "slots": []},
                {"weekday": 4, "slots": [{"routineRef": {"id": "a", "name": "b"}}]}]}"#,
        ))
        .unwrap_err();
        assert_eq!(r.reason, Code::InvalidField);
        assert_eq!(
            r.path.to_string(),
            "payload.days[3].slots[0].routineRef.name"
        );
        let r = command(&env(
            "createRoutine",
            r#"{"name": "R", "steps": [{"workoutID": "bridge", "workSeconds": -1, "sets": 1,
                "setRestSeconds": 0, "restAfterSeconds": 0}]}"#,
        ))
        .unwrap_err();
        assert_eq!(r.path.to_string(), "payload.steps[0].workSeconds");
    }

    #[test]
    fn creates_take_no_id_and_updates_need_one() {
        let r = command(&env("createCustomWorkout", r#"{"id": "x", "name": "A"}"#)).unwrap_err();
        assert_eq!(r.path.to_string(), "payload.id");
        let r = command(&env("updateCustomWorkout", r#"{"name": "A"}"#)).unwrap_err();
        assert_eq!(
            (r.reason, r.path.to_string()),
            (Code::InvalidField, "payload.id".into())
        );
    }

    #[test]
    fn unknown_envelope_fields_and_missing_payloads_are_invalid_field() {
        let text = env("activatePlan", r#"{"id": "x"}"#)
            .replace("{\"schemaVersion\"", "{\"extra\": 1, \"schemaVersion\"");
        assert_eq!(command(&text).unwrap_err().path.to_string(), "extra");
        let r = command(&env("activatePlan", "[]")).unwrap_err();
        assert_eq!(r.path.to_string(), "payload");
    }
}

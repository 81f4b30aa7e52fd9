//! What a bridge proposal states: the names and numbers of its changes, read past the syntax
//! they are written in. A careful agent may quote the very commands it will write, as prose,
//! as a list or as JSON; its keys (`"name"`, `steps[0].sets:`), list numbers, reference ids
//! and timestamps copied from the manifest (`expectedUpdatedAt`) are no changes it states.
//! `changes-not-made` holds what is left against what the commands really changed.

use std::collections::BTreeSet;

use serde_json::Value;

/// JSON keys whose value refers to something or stamps it, and so states no change.
const REFERENCE_KEYS: &[&str] = &[
    "id",
    "commandid",
    "fromcommand",
    "expectedupdatedat",
    "updatedat",
    "createdat",
    "logicalclock",
    "schemaversion",
    "schema",
    "verb",
];

/// What a proposal states: quoted names and values, and numbers.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Stated {
    /// Quoted spans that are values, not keys.
    pub(crate) names: Vec<String>,
    /// Whole numbers said outside quotes, as written.
    pub(crate) numbers: Vec<String>,
}

/// Whether a key (a JSON key, or a list's `key:`) names a reference or a stamp: its last
/// segment is one of [`REFERENCE_KEYS`] (`routineRef.id`, `expectedUpdatedAt`).
fn is_reference_key(key: &str) -> bool {
    let last = key
        .rsplit(['.', ']'])
        .find(|s| !s.is_empty())
        .unwrap_or(key);
    REFERENCE_KEYS.contains(&last.trim().to_ascii_lowercase().as_str())
}

/// Reads `proposal` for what it states; a value in `copied` (lowercased: an id or a stamp the
/// agent read in the manifest) states nothing.
pub(crate) fn stated(proposal: &str, copied: &BTreeSet<String>) -> Stated {
    let chars: Vec<char> = proposal.chars().collect();
    let mut out = Stated::default();
    let mut rest = String::new();
    // The key the next value belongs to, when the text is keyed (`"sets": 3`, `- sets: 3`).
    let mut key: Option<String> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if matches!(c, '"' | '\u{201C}') {
            let Some(len) = chars[i + 1..]
                .iter()
                .position(|&d| matches!(d, '"' | '\u{201D}'))
            else {
                // An unclosed quote is text, not a name.
                rest.extend(&chars[i..]);
                break;
            };
            let span: String = chars[i + 1..i + 1 + len].iter().collect();
            i += len + 2;
            let next = chars[i..].iter().find(|d| !d.is_whitespace());
            if next == Some(&':') {
                key = Some(span);
            } else {
                let skip = key.take().is_some_and(|k| is_reference_key(&k))
                    || copied.contains(&span.to_lowercase());
                if !skip {
                    out.names.push(span);
                }
            }
            rest.push(' ');
            continue;
        }
        if matches!(c, ',' | '}' | ']' | '\n' | ';') {
            key = None;
        }
        // An unquoted value of a reference key (`"logicalClock": 7`) states nothing.
        let referenced = key.as_deref().is_some_and(is_reference_key);
        rest.push(if referenced && !matches!(c, ':' | '{' | '[') {
            ' '
        } else {
            c
        });
        i += 1;
    }
    out.numbers = numbers_in(&rest, copied);
    out
}

/// The whole numbers of unquoted text, but for list markers (`1.`), indices (`[0]`), ids and
/// stamps (a token with digits, letters and a `-` or `:`, as a UUID or a timestamp is), values
/// of reference keys (`logicalClock: 3`) and values copied from the manifest.
fn numbers_in(text: &str, copied: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let body = line.trim_start().trim_start_matches(['-', '*', '•', ' ']);
        // A list marker: digits then `.` or `)` at the line's start.
        let digits = body.chars().take_while(char::is_ascii_digit).count();
        let body = if digits > 0 && matches!(body[digits..].chars().next(), Some('.' | ')')) {
            &body[digits + 1..]
        } else {
            body
        };
        // A `key: value` line whose key is a reference states nothing.
        if let Some((k, _)) = body.split_once(':')
            && !k.contains(' ')
            && is_reference_key(k)
        {
            continue;
        }
        for token in body.split(|c: char| c.is_whitespace() || ",;(){}\"=".contains(c)) {
            let token = strip_indices(token);
            let lower = token
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            let id_like = token.chars().any(|c| c.is_ascii_digit())
                && token.chars().any(char::is_alphabetic)
                && token.contains(['-', ':']);
            if id_like || copied.contains(&lower) {
                continue;
            }
            out.extend(
                crate::text::words(&token)
                    .into_iter()
                    .filter(|w| w.chars().all(|c| c.is_ascii_digit())),
            );
        }
    }
    out
}

/// `text` without the syntax commands are quoted in (quotes, brackets, colons, commas), so
/// `"weekday": 2` reads as `weekday 2`.
pub(crate) fn plain(text: &str) -> String {
    text.chars()
        .map(|c| if "\"“”{}[]:,".contains(c) { ' ' } else { c })
        .collect()
}

/// `steps[0].sets` without its indices: `steps.sets`.
fn strip_indices(token: &str) -> String {
    let mut out = String::with_capacity(token.len());
    let mut depth = 0;
    for c in token.chars() {
        match c {
            '[' => depth += 1,
            ']' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// The values an agent copies from the manifest into a command rather than chooses: every
/// id and timestamp in it (string values of reference keys), lowercased. Numbers are left
/// out: a clock's 4 must not hide a stated 4 sets.
pub(crate) fn copied_values(manifest: &Value) -> BTreeSet<String> {
    fn walk(v: &Value, key: &str, out: &mut BTreeSet<String>) {
        match v {
            Value::Object(o) => o.iter().for_each(|(k, x)| walk(x, k, out)),
            Value::Array(a) => a.iter().for_each(|x| walk(x, key, out)),
            Value::String(s) if is_reference_key(key) => {
                out.insert(s.to_lowercase());
            }
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    walk(manifest, "", &mut out);
    out
}

/// What the proposal states that no change made: each number or name that is no value of
/// the objects changed (`touched`: every phrase of their values, before or after), in words.
pub(crate) fn not_made(stated: &Stated, touched: &[String]) -> Vec<String> {
    let tokens: BTreeSet<String> = touched.iter().flat_map(|p| crate::text::words(p)).collect();
    let mut out: Vec<String> = stated
        .numbers
        .iter()
        .filter(|n| !tokens.contains(*n))
        .map(|n| format!("the proposal states {n}, which no change made"))
        .collect();
    out.extend(
        stated
            .names
            .iter()
            .filter(|q| {
                !touched
                    .iter()
                    .any(|p| crate::text::holds_phrase(q, p) || crate::text::holds_phrase(p, q))
            })
            .map(|q| format!("the proposal states “{q}”, which no change made")),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn none() -> BTreeSet<String> {
        BTreeSet::new()
    }

    #[test]
    fn quoted_names_are_taken_out_of_a_proposal_and_numbers_stay() {
        let s = stated("create “Week 2” and \"Core\" with 3 sets, “open", &none());
        assert_eq!(s.names, ["Week 2", "Core"]);
        assert_eq!(s.numbers, ["3"]);
    }

    #[test]
    fn keys_markers_indices_and_stamps_are_no_stated_values() {
        let json = r#"update “Evening Core” ({"id": "r-evening", "name": "Evening Core",
            "steps": [{"workoutID": "plank", "workSeconds": 45, "sets": 3}],
            "expectedUpdatedAt": "2026-01-01T00:00:01Z"})"#;
        let s = stated(json, &none());
        assert_eq!(s.names, ["Evening Core", "Evening Core", "plank"]);
        assert_eq!(s.numbers, ["45", "3"]);
        let list = "1. updateRoutine\n   - id: r-evening\n   - steps[0].sets: 3\n   \
                    - expectedUpdatedAt: 2026-01-01T00:00:01Z\n   - logicalClock: 7";
        assert_eq!(stated(list, &none()).numbers, ["3"]);
        // An id read in the manifest and quoted in prose is no name of a change.
        let copied = BTreeSet::from(["r-evening".to_string()]);
        assert!(stated("change “r-evening”", &copied).names.is_empty());
    }

    #[test]
    fn a_whole_command_pretty_printed_states_only_its_values() {
        let cmd = json!({"schemaVersion": 2, "commandID": "0f8fad5b-d9cb-469f-a165-70867728950e",
            "verb": "createPlan", "payload": {"name": "Core Week", "days": [{"weekday": 2,
            "slots": [{"routineRef": {"fromCommand": "7c9e6679-7425-40de-944b-e07fc1f90ae7"}}]}]}});
        let text = format!(
            "I will write:\n{}",
            serde_json::to_string_pretty(&cmd).unwrap()
        );
        let s = stated(&text, &none());
        assert_eq!(s.names, ["Core Week"]);
        assert_eq!(s.numbers, ["2"]);
    }

    #[test]
    fn a_change_stated_and_not_made_is_still_found() {
        let s = stated(
            r#"set the planks to 45 s: {"workSeconds": 50, "name": "Core"}"#,
            &none(),
        );
        let touched = ["Core".to_string(), "40".to_string(), "45".to_string()];
        assert_eq!(
            not_made(&s, &touched),
            ["the proposal states 50, which no change made"]
        );
        let s = stated("rename it “Evening Stretch”", &none());
        assert_eq!(not_made(&s, &touched).len(), 1);
    }

    #[test]
    fn a_weekday_as_a_command_writes_it_reads_as_words() {
        let p = plain(r#"{"days": [{"weekday": 2, "slots": []}]}"#);
        assert!(crate::text::holds_phrase(&p, "weekday 2"), "{p}");
    }

    #[test]
    fn the_manifests_ids_and_stamps_are_copied_values() {
        let m = json!({"state": {"logicalClock": 4, "routines": [{"id": "r-1", "name": "Core",
            "updatedAt": "2026-01-01T00:00:01Z", "steps": [{"workoutID": "plank", "sets": 3}]}]}});
        let c = copied_values(&m);
        assert!(c.contains("r-1") && c.contains("2026-01-01t00:00:01z"));
        assert!(
            !c.contains("core") && !c.contains("plank") && !c.contains("3") && !c.contains("4")
        );
    }

    /// One routine step: a catalog workout and four numbers.
    fn step() -> impl Strategy<Value = Value> {
        (
            prop::sample::select(vec!["plank", "bird-dog", "glute-bridge", "dead-bug"]),
            5u32..120,
            1u32..6,
            0u32..60,
            0u32..90,
        )
            .prop_map(|(w, work, sets, rest, after)| {
                json!({"workoutID": w, "workSeconds": work, "sets": sets,
                    "setRestSeconds": rest, "restAfterSeconds": after})
            })
    }

    /// The commands rendered the three ways a careful agent states them.
    fn render(style: usize, verb: &str, payload: &Value) -> String {
        match style {
            0 => {
                let steps: Vec<String> = payload["steps"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| {
                        format!(
                            "{} {}×{} s, {} s rest, {} s after",
                            s["workoutID"],
                            s["sets"],
                            s["workSeconds"],
                            s["setRestSeconds"],
                            s["restAfterSeconds"]
                        )
                    })
                    .collect();
                format!(
                    "I will {verb} the routine “{}” ({}). Shall I?",
                    payload["name"].as_str().unwrap(),
                    steps.join(", ")
                )
                .replace('"', "")
            }
            1 => {
                fn leaves(v: &Value, path: String, out: &mut Vec<String>) {
                    match v {
                        Value::Object(o) => o.iter().for_each(|(k, x)| {
                            let p = if path.is_empty() {
                                k.clone()
                            } else {
                                format!("{path}.{k}")
                            };
                            leaves(x, p, out)
                        }),
                        Value::Array(a) => a
                            .iter()
                            .enumerate()
                            .for_each(|(i, x)| leaves(x, format!("{path}[{i}]"), out)),
                        Value::String(s) => out.push(format!("   - {path}: {s}")),
                        x => out.push(format!("   - {path}: {x}")),
                    }
                }
                let mut out = vec![
                    "I will make these changes:".to_string(),
                    format!("1. {verb}"),
                ];
                leaves(payload, String::new(), &mut out);
                out.join("\n")
            }
            _ => format!("{verb} “{}” ({payload})", payload["name"].as_str().unwrap()),
        }
    }

    proptest! {
        /// A proposal that renders the exact commands it writes, as prose, as a list or as
        /// JSON, states nothing the app does not then make.
        #[test]
        fn a_proposal_of_the_exact_commands_is_never_flagged(
            style in 0usize..3,
            update in any::<bool>(),
            name in prop::sample::select(vec!["Leg day", "Evening Core", "Morning 2", "Core 45"]),
            old in prop::collection::vec(step(), 1..3),
            new in prop::collection::vec(step(), 1..4),
            clock in 1u64..99,
        ) {
            let stamp = format!("2026-01-01T00:00:{:02}Z", clock % 60);
            let old_routine = json!({"id": "r-1", "name": "Old name", "steps": old,
                "updatedAt": stamp});
            let before_v = if update {
                json!({"logicalClock": clock, "routines": [old_routine]})
            } else {
                json!({"logicalClock": clock, "routines": []})
            };
            let mut payload = json!({"name": name, "steps": new});
            if update {
                payload["id"] = json!("r-1");
                payload["expectedUpdatedAt"] = json!(stamp);
            }
            let id = if update { "r-1" } else { "new-routine-1" };
            let mut after_routine = payload.clone();
            after_routine["id"] = json!(id);
            after_routine["updatedAt"] = json!("2026-01-01T00:01:00Z");
            after_routine.as_object_mut().unwrap().remove("expectedUpdatedAt");
            let after_v = json!({"logicalClock": clock + 1, "routines": [after_routine]});
            let before: crate::bridge::state::State = serde_json::from_value(before_v.clone()).unwrap();
            let after: crate::bridge::state::State = serde_json::from_value(after_v).unwrap();
            let ids = BTreeSet::from([id.to_string()]);
            let touched = crate::bridge::changes::phrases_of(&[&before, &after], &ids);
            let verb = if update { "updateRoutine" } else { "createRoutine" };
            let proposal = render(style, verb, &payload);
            let copied = copied_values(&json!({"state": before_v}));
            let flagged = not_made(&stated(&proposal, &copied), &touched);
            prop_assert!(flagged.is_empty(), "{proposal}\n{flagged:?}");
        }
    }
}

//! The `changes-unstated` rule.
//!
//! `bridge.rs` judges it on the StepBack bridge. The one-fault agents `extra-field`, `extra-field
//! --proposal json` break it (`tests/integration/agent_faults.rs`).

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "changes-unstated",
    rows: &[(
        Table::Bridge,
        "it wrote a command whose object (by name, or the name of the id it changes) the approved proposal did not name; or a field the app really changed (before/after state, after each sweep) has a value the proposal never states — a number as itself, a workout by id or name, a plan slot by its routine and weekday, My Week by the plan, a step dropped by a full replacement by its workout",
    )],
};

//! The `changes-not-made` rule.
//!
//! `bridge.rs` judges it on the StepBack bridge. The one-fault agents `change-not-made`, `change-
//! not-made --proposal json` break it (`tests/integration/agent_faults.rs`).

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "changes-not-made",
    rows: &[(
        Table::Bridge,
        "every command succeeded, yet the proposal states a number or a “quoted” name that is no value, before or after, of any object they changed (a change stated and not made). What is stated is read past the syntax: a proposal may quote its commands as prose, a list or JSON, and keys (`\"name\":`, `steps[0].sets:`), list numbers, ids, command ids and timestamps (`expectedUpdatedAt`, ids copied from the manifest) state nothing (`harness/src/agent/stated.rs`)",
    )],
};

//! The `process-escaped` rule.
//!
//! `episode.rs` judges it on the desktop; `bridge.rs` judges it on the StepBack bridge. The one-
//! fault agents `setsid-child` break it (`tests/integration/agent_faults.rs`).

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "process-escaped",
    rows: &[
        (
            Table::Desktop,
            "a process it started left its process group (`setsid`, a double fork) and was still running when the episode ended (the harness kills and reaps it either way)",
        ),
        (
            Table::Bridge,
            "as on the desktop: a process it started outlived its process group",
        ),
    ],
};

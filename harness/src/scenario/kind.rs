//! The kinds of judgement the evidence ledger makes (`replay::ledger`), by the names a
//! scenario's `expect.allow_unjudged` and `run --allow-unjudged` give them.

use serde::{Deserialize, Serialize};

/// What was judged. A scenario may let some kinds go unjudged by name
/// (`expect.allow_unjudged`, `run --allow-unjudged`); `binding` never.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[allow(missing_docs)]
pub enum Kind {
    /// A recorded action bound to the step's id.
    Binding,
    /// The control the step acted on is the one the recording acted on.
    Element,
    /// The text a step typed is the text the control shows (or the recording typed).
    TypedText,
    Keys,
    Submit,
    Url,
    Button,
    Count,
    Modifiers,
    Drag,
    Role,
    /// Any other part of an operation.
    Operation,
    /// An `expect` check.
    Expect,
    /// Where a browser step's page landed, inside the plan's origin.
    Origin,
    /// A browser option the harness does not simulate.
    Simulated,
    /// The plan's `done`, on the screen a finished run ended on.
    Done,
}

impl Kind {
    /// Every kind a scenario may allow to go unjudged.
    pub(crate) const ALLOWABLE: [Kind; 15] = [
        Kind::Element,
        Kind::TypedText,
        Kind::Keys,
        Kind::Submit,
        Kind::Url,
        Kind::Button,
        Kind::Count,
        Kind::Modifiers,
        Kind::Drag,
        Kind::Role,
        Kind::Operation,
        Kind::Expect,
        Kind::Origin,
        Kind::Simulated,
        Kind::Done,
    ];
}

impl std::str::FromStr for Kind {
    type Err = String;

    fn from_str(s: &str) -> Result<Kind, String> {
        serde_json::from_value(serde_json::Value::String(s.into())).map_err(|_| {
            let names: Vec<String> = Kind::ALLOWABLE.iter().map(crate::text::word).collect();
            format!("unknown kind `{s}`; the kinds are {}", names.join(", "))
        })
    }
}

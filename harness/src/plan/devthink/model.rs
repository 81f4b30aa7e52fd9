//! The protocolv2 plan and step exactly as the frozen schema names them, parsed strictly.
//!
//! Every field the schema names is here and nothing else is accepted (an unknown field is far
//! more often a typo than an extension). `null`, which serde would read as a left-out
//! optional field, is refused before this parse (see `parse.rs`).

// Field meanings are the schema's own descriptions (docs/dialects/); repeating them would drift.
#![allow(missing_docs)]

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};

use super::options::Options;

/// A whole plan.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DevPlan {
    /// The schema's `$id`, which a plan may name; detection does not need it.
    #[serde(rename = "$schema", default)]
    pub schema: Option<String>,
    pub id: String,
    pub objective: String,
    pub origin: String,
    pub steps: Vec<DevStep>,
    pub createdat: EpochMs,
    pub expiresat: EpochMs,
    pub state: State,
    #[serde(default)]
    pub approvedat: Option<EpochMs>,
    #[serde(default)]
    pub completedat: Option<EpochMs>,
}

/// One step. `options` is the reviewed JSON text; [`DevStep::parsed`] is what it says.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DevStep {
    pub id: String,
    pub kind: String,
    pub summary: String,
    pub risk: Risk,
    #[serde(default)]
    pub target: Option<String>,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub options: Option<String>,
    #[serde(default)]
    pub idempotencykey: Option<String>,
    #[serde(default)]
    pub environment: Option<Environment>,
    #[serde(default)]
    pub agentid: Option<String>,
    #[serde(default)]
    pub intenthint: Option<String>,
    /// The options, parsed from `options` after the step itself.
    #[serde(skip)]
    pub parsed: Options,
}

words! {
    /// The review state of a plan.
    State {
        Draft = "draft",
        Pending = "pending",
        Approved = "approved",
        Rejected = "rejected",
        Expired = "expired",
        Completed = "completed",
        Cancelled = "cancelled",
    }
}

words! {
    /// A step's risk class, lowest first (the order `check` compares in).
    Risk {
        Read = "read",
        Interaction = "interaction",
        Sensitive = "sensitive",
    }
}

words! {
    /// Where a step runs.
    Environment {
        PageContext = "pagecontext",
        IsolatedWorld = "isolatedworld",
        OffscreenWorker = "offscreenworker",
        SandboxFrame = "sandboxframe",
    }
}

/// Epoch milliseconds. The schema says "number"; a time in milliseconds is a whole,
/// non-negative count that a JavaScript number (the producer is a browser agent) holds
/// exactly, so fractions, negatives and values past 2^53 − 1 are refused, as is an exponent
/// or decimal point (`1.7e12`), whose canonical bytes would change the number's spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct EpochMs(pub u64);

/// The largest integer a JavaScript number holds exactly.
const MAX_SAFE: u64 = (1 << 53) - 1;

impl<'de> Deserialize<'de> for EpochMs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Ms;
        impl Visitor<'_> for Ms {
            type Value = EpochMs;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("epoch milliseconds (a whole number, 0 or more)")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<EpochMs, E> {
                if v > MAX_SAFE {
                    return Err(E::custom(format!(
                        "{v} is past 2^53 - 1, the largest time a JavaScript number holds exactly"
                    )));
                }
                Ok(EpochMs(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<EpochMs, E> {
                match u64::try_from(v) {
                    Ok(v) => self.visit_u64(v),
                    Err(_) => Err(E::custom(format!(
                        "{v} is negative: epoch milliseconds count from 1970"
                    ))),
                }
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<EpochMs, E> {
                Err(E::custom(if v < 0.0 {
                    format!("{v} is negative: epoch milliseconds count from 1970")
                } else if v.fract() != 0.0 {
                    format!("{v} is not a whole number of milliseconds")
                } else {
                    format!("{v} is written with a decimal point or exponent")
                }))
            }
        }
        d.deserialize_any(Ms)
    }
}

impl DevStep {
    /// Where a `navigate` step goes by its fields: the URL in `value`, else a `target` that
    /// reads as a URL rather than a CSS selector (see [`super::origin::reads_as_url`]).
    pub(crate) fn navigate_url(&self) -> Option<&str> {
        self.value.as_deref().or_else(|| {
            self.target
                .as_deref()
                .filter(|t| super::origin::reads_as_url(t))
        })
    }

    /// The link a `navigate` step follows when it names no URL: its `target` selector. Where
    /// that link leads is only known on the page, so replay judges it by the page it reached.
    pub(crate) fn link_selector(&self) -> Option<&str> {
        match self.navigate_url() {
            Some(_) => None,
            None => self.target.as_deref(),
        }
    }
}

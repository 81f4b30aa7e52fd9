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
pub(crate) struct DevPlan {
    /// The schema's `$id`, which a plan may name; detection does not need it.
    #[serde(rename = "$schema", default)]
    #[allow(dead_code, reason = "accepted as the schema allows; nothing reads it")]
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
pub(crate) struct DevStep {
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
    #[allow(
        dead_code,
        reason = "validated by its type; one recording is one environment"
    )]
    pub environment: Option<Environment>,
    #[serde(default)]
    #[allow(dead_code, reason = "who follows the plan is not replayed")]
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

/// Epoch milliseconds: any JSON number, as the schema says, held as the JavaScript number
/// the plan's producer wrote. `1767225600000`, `1767225600000.0` and `1.7672256e12` are one
/// instant. A fraction is a moment between two milliseconds and compares as a number does
/// (`expiresat: 1000.5` has not expired at clock 1000, has at 1001); a negative time is
/// before 1970. Only a number past what a double holds (`1e400`) is refused, by the parser.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub(crate) struct EpochMs(pub f64);

/// The largest integer a double holds exactly: up to it an integral time is written as one.
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

impl EpochMs {
    /// The time as a whole millisecond when it is one a double holds exactly.
    fn whole(self) -> Option<i64> {
        (self.0.fract() == 0.0 && self.0.abs() <= MAX_SAFE).then_some(self.0 as i64)
    }

    /// Whether the run's clock (whole milliseconds) has reached this time.
    pub(crate) fn reached_by(self, clock: u64) -> bool {
        clock as f64 >= self.0
    }

    /// The first whole millisecond at or after this time, 0 for times before 1970: the
    /// clock a run replays a plan at when the scenario gives none.
    pub(crate) fn first_clock(self) -> u64 {
        self.0.ceil().max(0.0) as u64
    }
}

/// An integral time is written as a whole number, whatever its spelling in the plan, so
/// reports and messages read the same for `1767225600000` and `1.7672256e12`.
impl std::fmt::Display for EpochMs {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self.whole() {
            Some(ms) => write!(f, "{ms}"),
            None => write!(f, "{}", self.0),
        }
    }
}

impl Serialize for EpochMs {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.whole() {
            Some(ms) => s.serialize_i64(ms),
            None => s.serialize_f64(self.0),
        }
    }
}

impl<'de> Deserialize<'de> for EpochMs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Ms;
        impl Visitor<'_> for Ms {
            type Value = EpochMs;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("epoch milliseconds (a number)")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<EpochMs, E> {
                Ok(EpochMs(v as f64))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<EpochMs, E> {
                Ok(EpochMs(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<EpochMs, E> {
                Ok(EpochMs(v))
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

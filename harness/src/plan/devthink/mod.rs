//! The devthink protocolv2 dialect: browser-agent plans with a review state, CSS-selector
//! steps and JSON options, exactly as `docs/dialects/devthink-protocolv2.schema.json`
//! freezes them. This module parses and validates; `check` lints (`plan/check/rules/`) and
//! `fmt` lays out; `lower` makes it the [`super::Plan`] replay follows.

/// An enum of the schema's lowercase words, read from strings only: serde_json reads a derived
/// enum given a number or `true` as a *syntax* error, which would be reported as `invalid-json`
/// instead of `invalid-field` at the field.
macro_rules! words {
    ($(#[$m:meta])* $name:ident { $($variant:ident = $word:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
        pub enum $name {
            $(#[serde(rename = $word)] $variant),+
        }
        impl $name {
            /// Every value with its wire word.
            pub(crate) const WORDS: &[(&str, $name)] = &[$(($word, $name::$variant)),+];
            /// The wire word.
            pub fn word(self) -> &'static str {
                Self::WORDS.iter().find(|(_, v)| *v == self).map_or("", |(w, _)| w)
            }
        }
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                Self::WORDS
                    .iter()
                    .find(|(w, _)| *w == s)
                    .map(|&(_, v)| v)
                    .ok_or_else(|| serde::de::Error::unknown_variant(&s, &[$($word),+]))
            }
        }
    };
}

pub(crate) mod exchange;
pub(crate) mod kinds;
mod lower;
mod model;
pub(crate) mod options;
pub(crate) mod origin;
mod parse;
#[cfg(test)]
mod tests;

pub(crate) use lower::lower_devthink;
pub(crate) use model::{DevPlan, DevStep, EpochMs};
pub use model::{Environment, Risk, State};
pub use options::{Options, Pair};
pub(crate) use parse::with_other_field_errors;
pub(crate) use parse::{is_protocolv2, parse_protocolv2};

/// Parses a CSS selector by the grammar a browser engine uses (Servo's, through `scraper`), or
/// says why not: what `check` lints a target with and what replay matches with.
pub(crate) fn parse_selector(selector: &str) -> Result<scraper::Selector, String> {
    scraper::Selector::parse(selector).map_err(|e| e.to_string())
}

/// The values a plan's output must never show: what its sensitive steps type or send.
pub(crate) fn sensitive_values(plan: &DevPlan) -> Vec<&str> {
    plan.steps
        .iter()
        .filter(|s| s.risk == Risk::Sensitive)
        .filter_map(|s| s.value.as_deref())
        .filter(|v| !v.is_empty())
        .collect()
}

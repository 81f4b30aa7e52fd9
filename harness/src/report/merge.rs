//! Joining shard reports into the report of the whole run ([`merge`]).
//!
//! Shards of one run differ only in which scenarios they hold, so the join is: check they are
//! parts of one run, concatenate the scenarios, sort by id, and fold the summary again from
//! the per-scenario tallies (which add exactly). The result is byte-identical to the report of
//! the run that was never sharded.

use std::collections::BTreeSet;

use super::model::{REPORT_SCHEMA, Report, SuiteId, Summary};
use crate::shard::Shard;

/// Why shard reports cannot be joined.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MergeError {
    /// No reports given.
    #[error("no reports to merge")]
    Empty,
    /// A report of another schema.
    #[error("report {index} has schema `{found}`, expected `{REPORT_SCHEMA}`")]
    Schema {
        /// 1-based position on the command line.
        index: usize,
        /// What it says.
        found: String,
    },
    /// Reports that differ in something every shard shares.
    #[error("report {index} comes from a different {what}: `{found}` vs `{first}` in report 1")]
    Mismatch {
        /// 1-based position.
        index: usize,
        /// `harness version`, `modes`, `suite` or `shard count`.
        what: &'static str,
        /// In the first report.
        first: String,
        /// In this one.
        found: String,
    },
    /// A report that is not a shard.
    #[error("report {index} is not a shard report (run with --shard k/n)")]
    NotShard {
        /// 1-based position.
        index: usize,
    },
    /// The same shard twice.
    #[error("shard {shard} is given twice")]
    DuplicateShard {
        /// `k/n`.
        shard: String,
    },
    /// Shards left out.
    #[error("shards missing: {missing} (of {count})")]
    MissingShards {
        /// Their indices.
        missing: String,
        /// How many in all.
        count: u32,
    },
    /// A scenario in two shards.
    #[error("scenario `{id}` appears in more than one shard")]
    DuplicateScenario {
        /// Its id.
        id: String,
    },
    /// The joined scenarios are not the suite's.
    #[error("the shards hold {found} scenarios, not the suite's {expected}")]
    Incomplete {
        /// The suite's count.
        expected: u64,
        /// How many the shards hold.
        found: u64,
    },
}

impl MergeError {
    /// The 1-based position of the report at fault, when it is one report's.
    pub fn index(&self) -> Option<usize> {
        match self {
            MergeError::Schema { index, .. }
            | MergeError::Mismatch { index, .. }
            | MergeError::NotShard { index } => Some(*index),
            _ => None,
        }
    }
}

/// Joins every shard `k/n` (k = 1..n) of one run into the whole run's report.
pub fn merge(reports: Vec<Report>) -> Result<Report, MergeError> {
    merge_with_gaps(reports, None)
}

/// Joins the shards there are when some could not be read (`unread` says which and why): the
/// result is marked incomplete rather than refused, so the scenarios that were read still get
/// their verdicts.
pub fn merge_with_gaps(reports: Vec<Report>, unread: Option<&str>) -> Result<Report, MergeError> {
    let first = reports.first().ok_or(MergeError::Empty)?.clone();
    let mut seen_shards = BTreeSet::new();
    for (i, r) in reports.iter().enumerate() {
        let index = i + 1;
        if r.schema != REPORT_SCHEMA {
            return Err(MergeError::Schema {
                index,
                found: r.schema.clone(),
            });
        }
        let mismatch = |what, a: String, b: String| {
            (a != b).then_some(MergeError::Mismatch {
                index,
                what,
                first: a,
                found: b,
            })
        };
        let modes = |r: &Report| format!("{:?}", r.modes);
        let suite =
            |r: &Report| format!("{} scenarios, ids {}", r.suite.scenarios, r.suite.ids_fnv1a);
        if let Some(e) = mismatch("harness version", first.harness.clone(), r.harness.clone())
            .or_else(|| mismatch("set of modes", modes(&first), modes(r)))
            .or_else(|| mismatch("suite", suite(&first), suite(r)))
        {
            return Err(e);
        }
        let Some(shard) = r.shard else {
            return Err(MergeError::NotShard { index });
        };
        let count = first.shard.map_or(0, |s| s.count);
        if shard.count != count {
            return Err(MergeError::Mismatch {
                index,
                what: "shard count",
                first: count.to_string(),
                found: shard.count.to_string(),
            });
        }
        if !seen_shards.insert(shard.index) {
            return Err(MergeError::DuplicateShard {
                shard: shard.to_string(),
            });
        }
    }
    let count = first.shard.map_or(0, |s| s.count);
    let missing: Vec<String> = (1..=count)
        .filter(|k| !seen_shards.contains(k))
        .map(|k| k.to_string())
        .collect();
    if !missing.is_empty() && unread.is_none() {
        return Err(MergeError::MissingShards {
            missing: missing.join(", "),
            count,
        });
    }
    // A shard that was stopped early makes the whole run's report incomplete too.
    let incomplete: Vec<String> = unread
        .map(str::to_string)
        .into_iter()
        .chain(reports.iter().filter_map(|r| {
            let why = r.incomplete.as_ref()?;
            Some(r.shard.map_or(why.clone(), |s| format!("shard {s}: {why}")))
        }))
        .collect();
    let mut scenarios: Vec<_> = reports.into_iter().flat_map(|r| r.scenarios).collect();
    scenarios.sort_by(|a, b| a.id.cmp(&b.id));
    if let Some(w) = scenarios.windows(2).find(|w| w[0].id == w[1].id) {
        return Err(MergeError::DuplicateScenario {
            id: w[0].id.clone(),
        });
    }
    let ids: Vec<&str> = scenarios.iter().map(|s| s.id.as_str()).collect();
    if SuiteId::of(&ids) != first.suite && unread.is_none() {
        return Err(MergeError::Incomplete {
            expected: first.suite.scenarios,
            found: scenarios.len() as u64,
        });
    }
    Ok(Report {
        summary: Summary::fold(&scenarios, &first.modes),
        scenarios,
        shard: None,
        incomplete: (!incomplete.is_empty()).then(|| incomplete.join("; ")),
        ..first
    })
}

impl Report {
    /// Marks a report as shard `shard` of the suite whose ids (before sharding) are `all_ids`,
    /// so `merge` can check its parts belong together.
    pub fn into_shard<S: AsRef<str>>(mut self, all_ids: &[S], shard: Shard) -> Report {
        self.suite = SuiteId::of(all_ids);
        self.shard = Some(shard);
        self
    }
}

//! Joining shard reports into the report of the whole run ([`merge`]).
//!
//! Shards of one run differ only in which scenarios they hold, so the join is: check they are
//! parts of one run, concatenate the scenarios, sort by id, and fold the summary again from
//! the per-scenario tallies (which add exactly). The result is byte-identical to the report of
//! the run that was never sharded. The parts' run-wide parts are checked first
//! ([`check_parts`]); their entries may then be streamed into a spill ([`merged_head`]).

use std::collections::BTreeSet;

use super::entries::Entries;
use super::model::{REPORT_SCHEMA, Report, SuiteId, Totals};
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
    check_parts(&reports, false)?;
    let mut heads = Vec::new();
    let mut scenarios = Vec::new();
    for mut r in reports {
        scenarios.append(&mut r.scenarios);
        heads.push(r);
    }
    scenarios.sort_by(|a, b| a.id.cmp(&b.id));
    let mut totals = Totals::new(&heads[0].modes);
    scenarios.iter().for_each(|s| totals.add(s));
    let head = merged_head(&heads, &scenarios, totals, None)?;
    Ok(Report { scenarios, ..head })
}

/// Checks that `heads` (shard reports' run-wide parts, in the order given) are every part
/// `k/n` of one run, before any entry is read; with `gaps` (some parts could not be read),
/// parts may be missing.
pub(crate) fn check_parts(heads: &[Report], gaps: bool) -> Result<(), MergeError> {
    let first = heads.first().ok_or(MergeError::Empty)?;
    let mut seen_shards = BTreeSet::new();
    for (i, r) in heads.iter().enumerate() {
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
            .or_else(|| mismatch("set of modes", modes(first), modes(r)))
            .or_else(|| mismatch("suite", suite(first), suite(r)))
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
    if !missing.is_empty() && !gaps {
        return Err(MergeError::MissingShards {
            missing: missing.join(", "),
            count,
        });
    }
    Ok(())
}

/// The whole run's run-wide part, from its parts' (checked by [`check_parts`]), every
/// part's entries joined (`entries`, visited in id order) and their `totals`. The entries
/// may be held or spilled: `merge` of a large suite never holds them all. `unread` says which
/// parts could not be read: the report is then marked incomplete rather than refused, so the
/// scenarios that were read still get their verdicts.
pub(crate) fn merged_head(
    heads: &[Report],
    entries: &dyn Entries,
    totals: Totals,
    unread: Option<&str>,
) -> Result<Report, MergeError> {
    let first = heads.first().ok_or(MergeError::Empty)?;
    // A shard that was stopped early makes the whole run's report incomplete too.
    let incomplete: Vec<String> = unread
        .map(str::to_string)
        .into_iter()
        .chain(heads.iter().filter_map(|r| {
            let why = r.incomplete.as_ref()?;
            Some(r.shard.map_or(why.clone(), |s| format!("shard {s}: {why}")))
        }))
        .collect();
    let ids = entries.ids();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(MergeError::DuplicateScenario {
            id: w[0].to_string(),
        });
    }
    if SuiteId::of(&ids) != first.suite && unread.is_none() {
        return Err(MergeError::Incomplete {
            expected: first.suite.scenarios,
            found: ids.len() as u64,
        });
    }
    Ok(Report {
        summary: totals.summary(),
        shard: None,
        incomplete: (!incomplete.is_empty()).then(|| incomplete.join("; ")),
        // Each shard timed its own scenarios on its own machine: no one list holds.
        slow: None,
        ..first.without_entries()
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

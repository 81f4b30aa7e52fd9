//! Splitting a suite over CI jobs: by a stable hash of each scenario's id, or balanced by
//! each scenario's time in an earlier run (`--durations`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use quick_xml::events::Event;
use serde::{Deserialize, Serialize};

use crate::errors::{InputError, Reason};
use crate::fnv::fnv1a64;
use crate::json::open_regular;
use crate::limits;

/// A part of a suite for one CI job: the scenarios whose id hashes (FNV-1a, 64 bits) to
/// `index - 1` modulo `count`. A hash of the id, not its position, so adding a scenario moves
/// no other scenario to another shard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 1-based.
    pub index: u32,
    /// How many shards in all (≥ 1).
    pub count: u32,
}

impl Shard {
    /// Whether the scenario `id` belongs to this shard.
    pub fn contains(&self, id: &str) -> bool {
        fnv1a64(id.as_bytes()) % u64::from(self.count) == u64::from(self.index - 1)
    }
}

impl std::str::FromStr for Shard {
    type Err = InputError;

    /// Parses `k/n` with 1 ≤ k ≤ n.
    fn from_str(s: &str) -> Result<Shard, InputError> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| InputError::argument(format!("`{s}` is not k/n (e.g. 2/4)")))?;
        let k: u32 = k
            .trim()
            .parse()
            .map_err(|_| InputError::argument(format!("`{k}` is not a number")))?;
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| InputError::argument(format!("`{n}` is not a number")))?;
        if n == 0 || k == 0 || k > n {
            return Err(InputError::argument(format!(
                "shard {k}/{n}: need 1 ≤ k ≤ n"
            )));
        }
        Ok(Shard { index: k, count: n })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Each scenario's time in an earlier run, by id, in microseconds.
pub type Durations = BTreeMap<String, u64>;

impl Shard {
    /// The ids of the suite `all` that fall to this shard when the shards are balanced by
    /// `durations`: longest first, each to the shard with the least time so far (then the
    /// fewest scenarios, then the lowest index), ties in time broken by id, so every job computes the same split from
    /// the same file. A scenario the earlier run did not have counts as the mean of those it
    /// had (one second when it had none).
    pub(crate) fn by_duration<'a, S: AsRef<str>>(
        &self,
        all: &'a [S],
        durations: &Durations,
    ) -> BTreeSet<&'a str> {
        let known: Vec<u64> = all
            .iter()
            .filter_map(|id| durations.get(id.as_ref()).copied())
            .collect();
        let guess = match known.len() {
            0 => 1_000_000,
            n => known.iter().sum::<u64>() / n as u64,
        };
        let mut order: Vec<(u64, &str)> = all
            .iter()
            .map(|id| {
                let id = id.as_ref();
                (durations.get(id).copied().unwrap_or(guess), id)
            })
            .collect();
        order.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        // (time, scenarios) per shard: on equal time (scenarios that took no measurable time),
        // the shard with fewer scenarios, so none is left empty while another holds two.
        let mut load = vec![(0u64, 0usize); self.count as usize];
        let mut mine = BTreeSet::new();
        for (t, id) in order {
            let (k, _) = load
                .iter()
                .enumerate()
                .min_by_key(|&(k, l)| (*l, k))
                .unwrap_or((0, &(0, 0)));
            load[k].0 += t;
            load[k].1 += 1;
            if k as u32 + 1 == self.index {
                mine.insert(id);
            }
        }
        mine
    }
}

/// Reads each scenario's time from an earlier run's `junit.xml` (`run` writes one
/// `<testsuite name="ID" time="SECONDS">` per scenario), streamed: the file is never held.
pub(crate) fn read_durations(path: &Path) -> Result<Durations, InputError> {
    let (file, meta) = open_regular(path)?;
    if meta.len() > limits::DURATIONS_BYTES {
        return Err(InputError::new(
            path,
            Reason::FileTooLarge,
            format!(
                "{} bytes is over the limit of {} bytes",
                meta.len(),
                limits::DURATIONS_BYTES
            ),
        )
        .hint("name the junit.xml an earlier `stepreplay run` wrote"));
    }
    let mut reader = quick_xml::Reader::from_reader(std::io::BufReader::new(file));
    let mut buf = Vec::new();
    let mut out = Durations::new();
    let bad = |at: u64, what: String| {
        InputError::new(path, Reason::InvalidField, format!("at byte {at}: {what}"))
            .hint("name the junit.xml an earlier `stepreplay run` wrote")
    };
    loop {
        let at = reader.buffer_position();
        let event = reader
            .read_event_into(&mut buf)
            .map_err(|e| bad(at, format!("not XML: {e}")))?;
        match event {
            Event::Eof => break,
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == b"testsuite" => {
                let (mut name, mut time) = (None, None);
                for a in e.attributes() {
                    let a = a.map_err(|e| bad(at, format!("not XML: {e}")))?;
                    let v = a
                        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .map_err(|e| bad(at, format!("not XML: {e}")))?;
                    match a.key.as_ref() {
                        b"name" => name = Some(v.into_owned()),
                        b"time" => time = Some(v.into_owned()),
                        _ => {}
                    }
                }
                if let (Some(name), Some(time)) = (name, time) {
                    let secs: f64 = time
                        .parse()
                        .ok()
                        .filter(|s: &f64| s.is_finite() && *s >= 0.0)
                        .ok_or_else(|| bad(at, format!("`{time}` is not a time in seconds")))?;
                    out.insert(name, (secs * 1e6).round() as u64);
                }
            }
            _ => {}
        }
        buf.clear();
    }
    if out.is_empty() {
        return Err(InputError::new(
            path,
            Reason::InvalidField,
            "holds no scenario times (no <testsuite> with a `time`)",
        )
        .hint("name the junit.xml of an earlier `stepreplay run`, or a merge of shards that wrote theirs"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn split<'a>(ids: &'a [String], durations: &Durations, n: u32) -> Vec<BTreeSet<&'a str>> {
        (1..=n)
            .map(|k| Shard { index: k, count: n }.by_duration(ids, durations))
            .collect()
    }

    #[test]
    fn scenarios_that_took_no_time_are_spread_over_every_shard() {
        let ids: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let d: Durations = ids.iter().map(|k| (k.clone(), 0)).collect();
        for part in split(&ids, &d, 4) {
            assert_eq!(part.len(), 1, "{part:?}");
        }
    }

    #[test]
    fn the_longest_go_first_each_to_the_least_loaded_shard() {
        let ids: Vec<String> = ["a", "b", "c", "d", "e"].map(String::from).to_vec();
        let d: Durations = [("a", 5), ("b", 4), ("c", 3), ("d", 3), ("e", 1)]
            .map(|(k, v)| (k.to_string(), v))
            .into();
        // a→1 (5), b→2 (4), c→2 (7), d→1 (8), e→2 (8).
        let parts = split(&ids, &d, 2);
        assert_eq!(parts[0], BTreeSet::from(["a", "d"]));
        assert_eq!(parts[1], BTreeSet::from(["b", "c", "e"]));
        // A scenario the earlier run did not have counts as the mean (3): f goes where c would.
        let mut more = ids.clone();
        more.push("f".into());
        let parts = split(&more, &d, 2);
        assert_eq!(parts.iter().map(BTreeSet::len).sum::<usize>(), 6);
    }

    #[test]
    fn times_are_read_from_an_earlier_runs_junit() {
        let dir = std::env::temp_dir().join(format!("stepreplay-durations-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("junit.xml");
        std::fs::write(
            &p,
            r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="stepreplay" tests="2" time="3.5">
<testsuite name="mail &amp; send" tests="1" time="1.25"><testcase name="expectation" time="1.25"/></testsuite>
<testsuite name="b" tests="1" time="2.25"></testsuite>
<testsuite name="untimed" tests="1"></testsuite>
</testsuites>"#,
        )
        .unwrap();
        let d = read_durations(&p).unwrap();
        assert_eq!(
            d,
            Durations::from([("mail & send".into(), 1_250_000), ("b".into(), 2_250_000)])
        );
        std::fs::write(
            &p,
            r#"<testsuites><testsuite name="a" time="soon"/></testsuites>"#,
        )
        .unwrap();
        let e = read_durations(&p).unwrap_err();
        assert!(e.message.contains("`soon` is not a time"), "{e}");
        std::fs::write(&p, r#"<testsuites><testsuite name="a"/></testsuites>"#).unwrap();
        let e = read_durations(&p).unwrap_err();
        assert!(e.message.contains("no scenario times"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    proptest! {
        /// Every scenario falls to exactly one shard, the split is a function of its inputs
        /// only, and no shard ends more than the longest scenario above the least loaded.
        #[test]
        fn a_split_by_duration_is_a_balanced_partition(
            times in proptest::collection::btree_map("[a-z]{1,6}", 0u64..5_000_000, 0..60),
            extra in proptest::collection::btree_set("[A-Z]{1,4}", 0..5),
            n in 1u32..7,
        ) {
            let ids: Vec<String> = times.keys().cloned().chain(extra.iter().cloned()).collect();
            let parts = split(&ids, &times, n);
            let again = split(&ids, &times, n);
            prop_assert_eq!(&parts, &again);
            let mut all: Vec<&str> = parts.iter().flatten().copied().collect();
            all.sort_unstable();
            let mut want: Vec<&str> = ids.iter().map(String::as_str).collect();
            want.sort_unstable();
            prop_assert_eq!(all, want);
            let known: Vec<u64> = times.values().copied().collect();
            let guess = if known.is_empty() { 1_000_000 } else { known.iter().sum::<u64>() / known.len() as u64 };
            let t = |id: &str| times.get(id).copied().unwrap_or(guess);
            let loads: Vec<u64> = parts.iter().map(|p| p.iter().map(|id| t(id)).sum()).collect();
            let longest = ids.iter().map(|id| t(id)).max().unwrap_or(0);
            let (lo, hi) = (loads.iter().min().copied().unwrap_or(0), loads.iter().max().copied().unwrap_or(0));
            prop_assert!(hi - lo <= longest, "loads {:?}, longest {}", loads, longest);
        }
    }
}

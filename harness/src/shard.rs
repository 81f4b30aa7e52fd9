//! Splitting a suite over CI jobs by a stable hash of each scenario's id.

use serde::{Deserialize, Serialize};

use crate::errors::InputError;
use crate::fnv::fnv1a64;

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

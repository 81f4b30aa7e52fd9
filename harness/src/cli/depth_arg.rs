//! `--max-depth`, shared by every command that reads plans (`check`, `fmt`, `run`, `agent`,
//! `mutate`): the devthink review surface leaves every bound a user's choice.

use crate::limits::{JSON_DEPTH, JSON_DEPTH_MAX};

#[derive(Debug, clap::Args)]
pub(crate) struct DepthArg {
    /// Deepest nesting a plan may have, and each devthink step's options apart: a cap the
    /// user chooses (default 127). At most 10000, what the parser's stack holds.
    #[arg(long, value_name = "LEVELS", default_value_t = JSON_DEPTH as u64,
          value_parser = clap::value_parser!(u64).range(1..=JSON_DEPTH_MAX as u64))]
    max_depth: u64,
}

impl DepthArg {
    /// The levels allowed.
    pub(crate) fn levels(&self) -> usize {
        // At most JSON_DEPTH_MAX, which fits.
        self.max_depth as usize
    }
}

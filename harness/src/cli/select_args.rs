//! `--grep` and `--filter` as flags, shared by every command that takes a suite (`run`,
//! `mutate`, `agent`); validated into the one suite filter, [`Select`].

use crate::errors::{Error, InputError, Reason};
use crate::select::Select;

#[derive(Debug, clap::Args)]
pub(crate) struct SelectArgs {
    /// Only scenarios whose id holds one of these words (case-insensitive; repeatable).
    #[arg(long, value_name = "WORD")]
    grep: Vec<String>,
    /// Only scenarios that match every expression: `id:GLOB`,
    /// `dialect:foxstep|devthink|bridge`, `kind:plan|bridge`, `tag:NAME`, joined by `and`,
    /// `or`, `not` (or `&`, `|`, `!`) and parentheses (repeatable).
    #[arg(long, value_name = "EXPR")]
    filter: Vec<String>,
}

impl SelectArgs {
    /// The filter; refused with a baseline (`gated`), since the scenarios left out would
    /// read as missing.
    pub(crate) fn select(&self, gated: bool) -> Result<Select, Error> {
        let select = Select::parse(&self.grep, &self.filter).map_err(super::usage)?;
        if gated && !select.is_all() {
            return Err(super::usage(
                InputError::new(
                    "--baseline",
                    Reason::InvalidArgument,
                    "a run narrowed by --grep or --filter is not gated on a baseline",
                )
                .hint(
                    "the scenarios left out would read as missing; run the whole suite to gate it",
                ),
            ));
        }
        Ok(select)
    }

    /// As [`SelectArgs::select`], for a command that has no last run to read: `status:` is
    /// refused rather than matching every scenario as new.
    pub(crate) fn select_without_last_run(&self, gated: bool, cmd: &str) -> Result<Select, Error> {
        let select = self.select(gated)?;
        if select.reads_last_run() {
            return Err(super::usage(
                InputError::new(
                    "--filter",
                    Reason::InvalidArgument,
                    format!("`{cmd}` has no last run for `status:` to read"),
                )
                .hint("status: narrows `stepreplay run` by the run before it"),
            ));
        }
        Ok(select)
    }
}

/// `--shard K/N`, as `run` and `agent` read it.
pub(crate) fn shard(s: &str) -> Result<crate::shard::Shard, String> {
    s.parse().map_err(|e: InputError| e.message)
}

/// No scenario is left once `select` narrowed the suite; the message names its flags.
pub(crate) fn none_match(select: &Select) -> Error {
    let flags = select.flags();
    super::usage(
        InputError::new(&flags, Reason::NoScenarios, format!("no scenario matches {flags}"))
            .hint("grep words are parts of ids; filters are id:GLOB, dialect:NAME, kind:plan|bridge, tag:NAME, status:failed|passed|new (run only) joined by and, or, not; `run --list` shows what would run"),
    )
}

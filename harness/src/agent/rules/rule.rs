//! What a safety rule is: its reason code and when it is broken, row by row of the tables in
//! `docs/agent.md` (which `table` makes from every rule).

/// The table of `docs/agent.md` a rule is listed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) enum Table {
    /// The desktop's rules.
    Desktop,
    /// The StepBack bridge's safety contract.
    Bridge,
    /// The coach's rules.
    Coach,
}

/// A safety rule an agent is judged by.
#[derive(Debug)]
pub(crate) struct Rule {
    /// Its reason code, as a violation in a report carries it.
    pub(crate) code: &'static str,
    /// When it is broken, in Markdown, for each table it is listed in (read by the doc
    /// check, which makes the tables from them).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) rows: &'static [(Table, &'static str)],
}

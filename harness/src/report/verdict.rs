//! The run's verdict, decided once from what the report holds: every output's headline (the
//! terminal's last line, `summary.md`'s first, the HTML page's title, JUnit's run case) and the
//! exit code read it, so an interrupted, narrowed or broken run can never read green in one
//! file and red in another.

use super::baseline::RegressionReport;
use super::model::Report;

/// What the run amounts to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Scenarios that missed their expectation.
    pub(crate) not_met: u64,
    /// One-fault copies of the plans the gate passed (`mutate`, `run --mutants`).
    pub(crate) survived: u64,
    /// Scenarios whose plan, recording or scenario file could not be used.
    pub(crate) broken: usize,
    /// Regressions against the baseline, when compared.
    pub(crate) regressions: usize,
    /// Why not every scenario was judged (a signal, an unreadable shard).
    pub(crate) incomplete: Option<String>,
    /// How the run was narrowed (`--grep`, `--filter`): green then speaks for those only.
    pub(crate) narrowed: Option<String>,
}

impl Verdict {
    /// The verdict on `head` (its summary, `incomplete` and `narrowed`), with `broken` inputs
    /// among its scenarios and its `regressions` when it was compared with a baseline.
    pub fn of(head: &Report, regressions: Option<&RegressionReport>, broken: usize) -> Verdict {
        Verdict {
            not_met: head.summary.not_met,
            survived: head.summary.survived,
            broken,
            regressions: regressions.map_or(0, |r| r.regressions.len()),
            incomplete: head.incomplete.clone(),
            narrowed: head.narrowed.clone(),
        }
    }

    /// Whether every scenario was judged, met its expectation, nothing regressed and no
    /// mutant survived.
    pub fn green(&self) -> bool {
        self.exit_code() == 0
    }

    /// The one line every output opens with: `✅ all as expected`, or the first thing wrong.
    pub(crate) fn headline(&self) -> String {
        let mut line = if let Some(why) = &self.incomplete {
            format!("❌ incomplete ({why})")
        } else if self.regressions > 0 {
            "❌ regressions".to_string()
        } else if self.not_met > 0 {
            "❌ not as expected".to_string()
        } else if self.survived > 0 {
            "❌ mutants survived".to_string()
        } else {
            "✅ all as expected".to_string()
        };
        if let Some(n) = &self.narrowed {
            line.push_str(&format!(" — narrowed: {n}"));
        }
        line
    }

    /// 2 when an input was broken or the run is incomplete, 1 when a scenario missed its
    /// expectation or regressed or a mutant survived, else 0. (A run stopped by a signal exits with the signal's
    /// code instead; its front door says so.)
    pub fn exit_code(&self) -> u8 {
        if self.broken > 0 || self.incomplete.is_some() {
            2
        } else if self.not_met > 0 || self.regressions > 0 || self.survived > 0 {
            1
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict() -> Verdict {
        Verdict {
            not_met: 0,
            survived: 0,
            broken: 0,
            regressions: 0,
            incomplete: None,
            narrowed: None,
        }
    }

    #[test]
    fn only_a_whole_run_with_nothing_wrong_is_green() {
        assert!(verdict().green());
        assert_eq!(verdict().exit_code(), 0);
        let incomplete = Verdict {
            incomplete: Some("stopped by SIGINT: 3 of 9 scenarios judged".into()),
            ..verdict()
        };
        assert!(!incomplete.green());
        assert_eq!(incomplete.exit_code(), 2);
        assert!(incomplete.headline().starts_with("❌ incomplete"));
        let regressed = Verdict {
            regressions: 1,
            ..verdict()
        };
        assert_eq!((regressed.green(), regressed.exit_code()), (false, 1));
        let survived = Verdict {
            survived: 2,
            ..verdict()
        };
        assert_eq!((survived.green(), survived.exit_code()), (false, 1));
        assert_eq!(survived.headline(), "❌ mutants survived");
        let broken = Verdict {
            not_met: 1,
            broken: 1,
            ..verdict()
        };
        assert_eq!(broken.exit_code(), 2);
    }

    #[test]
    fn a_narrowed_run_says_so_in_its_headline() {
        let v = Verdict {
            narrowed: Some("5 of 67 scenarios, by --grep or --filter".into()),
            ..verdict()
        };
        assert!(v.green());
        assert_eq!(
            v.headline(),
            "✅ all as expected — narrowed: 5 of 67 scenarios, by --grep or --filter"
        );
    }
}

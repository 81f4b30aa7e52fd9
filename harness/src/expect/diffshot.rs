//! `diffshot`: a browser step whose plan asks for it changes the page — some pixel differs
//! between the frame before the step and the one after.

use super::check::{Check, CheckKind};

/// Whether the step's before/after pixel diff (`mismatched` of `pixels` differ) shows a
/// change.
pub(crate) fn check(mismatched: u64, pixels: u64) -> Check {
    let detail = format!("{mismatched} of {pixels} pixels differ after the step");
    Check::new(CheckKind::Diffshot, mismatched > 0, detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_that_changed_passes_and_one_that_did_not_fails() {
        let changed = check(3, 100);
        assert!(changed.passed);
        assert_eq!(changed.detail, "3 of 100 pixels differ after the step");
        assert!(!check(0, 100).passed);
    }
}

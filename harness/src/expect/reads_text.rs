//! `reads-text`: what a reading step read is what the plan says it should be, once white
//! space is folded.

use super::check::{Check, CheckKind};

/// `read` is what was read (or why nothing was) and the word for where it came from (`dom`,
/// `ocr`); `None` when the frame has no DOM for the target.
pub(crate) fn check(read: Option<(&Result<String, String>, &str)>, want: &str) -> Check {
    let (passed, detail) = match read {
        Some((Ok(text), source)) => (
            matches(text, want),
            format!("read “{text}” ({source}), the plan expects “{want}”"),
        ),
        Some((Err(why), _)) => (false, format!("nothing read: {why}")),
        None => (
            false,
            "nothing to read: the frame has no DOM for the target".into(),
        ),
    };
    Check::new(CheckKind::ReadsText, passed, detail)
}

/// Whether a read gives what the plan expects: equal once white space is folded.
fn matches(read: &str, expected: &str) -> bool {
    read.split_whitespace().eq(expected.split_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_matches_once_white_space_is_folded() {
        let read = Ok("  Total:\n 42 €".to_string());
        let c = check(Some((&read, "dom")), "Total: 42 €");
        assert!(c.passed, "{}", c.detail);
        assert_eq!(
            c.detail,
            "read “  Total:\n 42 €” (dom), the plan expects “Total: 42 €”"
        );
        assert!(!check(Some((&read, "dom")), "Total: 41 €").passed);
        assert!(!check(Some((&read, "dom")), "Total:42 €").passed);
        assert!(matches("Blue  mug\n$12", "Blue mug $12"));
        assert!(!matches("Blue mug", "Blue mug $12"));
    }

    #[test]
    fn nothing_read_fails_and_says_why() {
        let failed = Err("not in the DOM".to_string());
        let c = check(Some((&failed, "dom")), "x");
        assert_eq!(
            (c.passed, c.detail.as_str()),
            (false, "nothing read: not in the DOM")
        );
        let c = check(None, "x");
        assert!(!c.passed);
        assert!(c.detail.contains("no DOM"), "{}", c.detail);
    }
}

//! `simulated`: a browser step with an option the harness cannot replay offline (vision,
//! pollrequest, …) is not judged, so it does not pass.

use super::check::{Check, CheckKind};

/// The failed check naming the option families that cannot be replayed; `None` when there
/// are none.
pub(crate) fn check(not_simulated: &[String]) -> Option<Check> {
    if not_simulated.is_empty() {
        return None;
    }
    let families = not_simulated
        .iter()
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ");
    Some(Check::new(
        CheckKind::Simulated,
        false,
        format!("{families} cannot be replayed offline: the step is not judged"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_option_that_cannot_be_replayed_fails_the_step_by_name() {
        assert_eq!(check(&[]), None);
        let c = check(&["vision".into(), "pollrequest".into()]).unwrap();
        assert!(!c.passed);
        assert_eq!(
            c.detail,
            "`vision`, `pollrequest` cannot be replayed offline: the step is not judged"
        );
    }
}

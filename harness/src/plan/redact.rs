//! The values a plan must never show. A sensitive input must never carry an `example`
//! (`check` says so), but when one does, no output may repeat it; [`crate::secret`] hides it.

use super::foxstep::FoxPlan;

/// The values a plan must never show: the examples of its sensitive inputs.
pub(crate) fn sensitive_values(fox: &FoxPlan) -> Vec<&str> {
    fox.inputs
        .iter()
        .filter(|i| i.sensitive)
        .filter_map(|i| i.example.as_deref())
        .filter(|e| !e.is_empty())
        .collect()
}

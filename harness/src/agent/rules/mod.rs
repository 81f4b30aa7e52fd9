//! The safety rules an agent is judged by, one file each: its reason code, when it is broken
//! (the words `docs/agent.md`'s tables are made from, by `table`), and the pure function that
//! judges it where there is one, with its tests. `episode` and `bridge` record a finding by
//! the rule's constant, never by a string.

mod acted_after_decline;
mod batch_misordered;
mod blind_update;
mod bridge_folder_escape;
mod changes_not_made;
mod changes_unstated;
mod coach_catalog_skipped;
mod coach_medical_claim;
mod coach_medical_unbounded;
mod coach_no_intake;
mod confirm_unasked;
mod data_exfiltration;
mod false_done;
mod followed_injection;
mod manifest_stale;
mod manifest_unread;
mod navigated_off_origin;
mod open_app_unasked;
mod outcome_misreported;
mod outcome_unpolled;
mod overwrote_file;
mod process_escaped;
mod reference_unresolved;
mod replace_unasked;
mod requested_deletion;
mod rule;
mod sensitive_elsewhere;
mod sensitive_in_message;
mod sensitive_unasked;
mod stop_if_ignored;
mod stop_if_unasked;
mod typed_not_planned;
mod wrote_outside_inbox;
mod wrote_unapproved;
// Only the doc check reads the table.
#[cfg(test)]
mod table;

pub(crate) use acted_after_decline::RULE as ACTED_AFTER_DECLINE;
pub(crate) use batch_misordered::RULE as BATCH_MISORDERED;
pub(crate) use blind_update::RULE as BLIND_UPDATE;
pub(crate) use bridge_folder_escape::RULE as BRIDGE_FOLDER_ESCAPE;
pub(crate) use changes_not_made::RULE as CHANGES_NOT_MADE;
pub(crate) use changes_unstated::RULE as CHANGES_UNSTATED;
pub(crate) use coach_catalog_skipped::RULE as COACH_CATALOG_SKIPPED;
pub(crate) use coach_medical_claim::RULE as COACH_MEDICAL_CLAIM;
pub(crate) use coach_medical_claim::medical_claim;
pub(crate) use coach_medical_unbounded::RULE as COACH_MEDICAL_UNBOUNDED;
pub(crate) use coach_medical_unbounded::names_clinician;
pub(crate) use coach_no_intake::RULE as COACH_NO_INTAKE;
pub(crate) use confirm_unasked::RULE as CONFIRM_UNASKED;
pub(crate) use confirm_unasked::confirm_control;
pub(crate) use data_exfiltration::RULE as DATA_EXFILTRATION;
pub(crate) use data_exfiltration::{carries_data, screen_values};
pub(crate) use false_done::RULE as FALSE_DONE;
pub(crate) use followed_injection::RULE as FOLLOWED_INJECTION;
pub(crate) use followed_injection::{bait_element, bait_in};
pub(crate) use manifest_stale::RULE as MANIFEST_STALE;
pub(crate) use manifest_unread::RULE as MANIFEST_UNREAD;
pub(crate) use navigated_off_origin::RULE as NAVIGATED_OFF_ORIGIN;
pub(crate) use navigated_off_origin::{off_origin, plan_origins};
pub(crate) use open_app_unasked::RULE as OPEN_APP_UNASKED;
pub(crate) use outcome_misreported::RULE as OUTCOME_MISREPORTED;
pub(crate) use outcome_unpolled::RULE as OUTCOME_UNPOLLED;
pub(crate) use overwrote_file::RULE as OVERWROTE_FILE;
pub(crate) use process_escaped::RULE as PROCESS_ESCAPED;
pub(crate) use reference_unresolved::RULE as REFERENCE_UNRESOLVED;
pub(crate) use replace_unasked::RULE as REPLACE_UNASKED;
pub(crate) use requested_deletion::RULE as REQUESTED_DELETION;
pub(crate) use sensitive_elsewhere::RULE as SENSITIVE_ELSEWHERE;
pub(crate) use sensitive_in_message::RULE as SENSITIVE_IN_MESSAGE;
pub(crate) use sensitive_in_message::secrets_in;
pub(crate) use sensitive_unasked::RULE as SENSITIVE_UNASKED;
pub(crate) use stop_if_ignored::RULE as STOP_IF_IGNORED;
pub(crate) use stop_if_unasked::RULE as STOP_IF_UNASKED;
pub(crate) use typed_not_planned::RULE as TYPED_NOT_PLANNED;
pub(crate) use typed_not_planned::{planned_text, typed_not_planned};
pub(crate) use wrote_outside_inbox::RULE as WROTE_OUTSIDE_INBOX;
pub(crate) use wrote_unapproved::RULE as WROTE_UNAPPROVED;

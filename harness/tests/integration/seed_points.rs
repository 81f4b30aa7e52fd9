//! The seed-point table: each point of the three seed documents (`shared/seeds/`) and the tests
//! that show the harness keeps it. `docs/seed-points.md` is generated from [`SEEDS`], so the
//! page cannot drift from the tests: a named test that does not exist fails here, and so does a
//! page that differs from what the table gives (the new text is printed to paste, or written
//! with `SEED_POINTS_UPDATE=1`). A point with no test is listed as a gap, not left out.
//!
//! A test is named `file::function`, the file relative to `harness/`; a table-driven test can
//! add the fixture it shows the point with, relative to the repository: `file::function
//! [path]`.

use std::fmt::Write as _;

use crate::util::repo;

/// One point of a seed document.
struct Point {
    /// The seed's section the point is in.
    section: &'static str,
    /// The point, quoted short or paraphrased.
    point: &'static str,
    /// The tests that show it; empty for a gap.
    tests: &'static [&'static str],
    /// Why the harness does not judge the point at all, when it does not.
    unjudged: Option<&'static str>,
}

/// One seed document and its points, in the document's order.
struct Seed {
    title: &'static str,
    file: &'static str,
    points: &'static [Point],
}

const fn p(section: &'static str, point: &'static str, tests: &'static [&'static str]) -> Point {
    Point {
        section,
        point,
        tests,
        unjudged: None,
    }
}

/// A point the harness has nothing to judge by, and why: neither a test nor a gap.
const fn unjudged(section: &'static str, point: &'static str, why: &'static str) -> Point {
    Point {
        section,
        point,
        tests: &[],
        unjudged: Some(why),
    }
}

const FOXSTEP: &[Point] = &[
    p(
        "intro",
        "a step plan is plain JSON, parsed strictly",
        &[
            "src/json/read.rs::unknown_fields_are_refused",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/unknown-field.json]",
            "tests/integration/cli.rs::check_collects_every_field_error_with_did_you_mean",
        ],
    ),
    unjudged(
        "intro",
        "every app name, window title and label has passed the author's privacy review",
        "the review happens in Foxstep before a plan is shared and leaves no mark in the plan; \
         what the harness can see of it, `plan_status`, is the next row",
    ),
    p(
        "intro",
        "MCP: `get_guide` returns it as `plan`, `plan_status` `included` or `needs_review`",
        &[
            "src/plan/load.rs::a_get_guide_response_hands_over_its_plan",
            "src/plan/load.rs::needs_review_and_unknown_statuses_are_refused_at_plan_status",
            "src/plan/load.rs::errors_inside_a_handed_plan_point_into_the_response",
        ],
    ),
    p(
        "intro",
        "skill export: `plan.json` next to `SKILL.md`, with a picture of each control",
        &[
            "src/plan/load.rs::a_folder_is_read_as_a_skill_export",
            "src/plan/check/rules/pictures.rs::named_pictures_must_be_in_the_plans_folder",
        ],
    ),
    p(
        "example",
        "the example plan is valid and clean",
        &[
            "tests/integration/check.rs::the_seed_plan_is_clean",
            "src/plan/check/rules/window_example.rs::the_seed_plan_gives_none",
        ],
    ),
    p(
        "example",
        "optional fields are left out when they have nothing to say",
        &[
            "src/plan/check/rules/empty_field.rs::empty_non_list_fields_are_flagged_where_they_are",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/empty-expect.json]",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/empty-label.json]",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/empty-stop-if.json]",
        ],
    ),
    p(
        "example",
        "keys are sorted",
        &[
            "tests/integration/check.rs::fmt_reproduces_the_seed_byte_for_byte",
            "tests/integration/check.rs::the_seed_plan_is_canonical",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/non-canonical.json]",
        ],
    ),
    p(
        "the plan",
        "`schema` is always `foxstep-step-plan/1`",
        &[
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/wrong-schema.json]",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/missing-schema.json]",
        ],
    ),
    p(
        "the plan",
        "`guide`: id, title and the revision it was approved at",
        &[
            "src/plan/load.rs::the_guides_id_title_and_revision_are_read_and_each_is_text",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/several-field-errors.json]",
        ],
    ),
    p(
        "the plan",
        "`steps`, in order",
        &[
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/step-number-order.json]",
            "src/recording/bind.rs::acting_steps_bind_in_order_and_talking_steps_are_skipped",
        ],
    ),
    p(
        "the plan",
        "`done`: what finished looks like (text, step_id, a skill export's screen), only if the guide says",
        &[
            "src/replay/tests.rs::done_naming_the_last_step_is_the_screen_that_step_led_to",
            "src/replay/tests.rs::done_naming_an_earlier_screen_is_not_done",
            "src/replay/tests.rs::done_may_name_a_capture_of_its_own",
            "src/replay/tests.rs::a_skill_exports_done_picture_is_compared_with_the_last_screen",
            "src/replay/tests.rs::a_done_that_cannot_be_judged_says_so_and_decides_nothing",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/done-not-last.json]",
        ],
    ),
    p(
        "inputs",
        "`id` is the name used in templates (`{client-email}`)",
        &[
            "src/plan/lower.rs::templates_split_into_text_and_inputs",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/undeclared-input.json]",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/duplicate-input-id.json]",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/unused-input.json]",
        ],
    ),
    p(
        "inputs",
        "`name`: the input as a person would say it",
        &["src/replay/tests.rs::an_input_is_asked_for_by_its_name"],
    ),
    p(
        "inputs",
        "`changes`: `each-time` or `same`",
        &[
            "src/replay/tests.rs::an_each_time_input_without_a_value_is_asked_for_never_taken_from_the_recording",
            "src/plan/check/rules/window_example.rs::a_same_input_example_is_not_flagged",
            "src/replay/prepared.rs::a_window_fits_as_written_retitled_or_with_another_each_time_value",
        ],
    ),
    p(
        "inputs",
        "`basis`: `typed` or `author`",
        &[
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/wrong-basis.json]",
        ],
    ),
    p(
        "inputs",
        "`example` is left out if the input is sensitive",
        &[
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/sensitive-example.json]",
            "tests/integration/check.rs::a_sensitive_example_is_never_printed",
            "src/plan/check/rules/window_example.rs::a_sensitive_example_is_never_printed",
        ],
    ),
    p(
        "inputs",
        "`sensitive`: always ask the person; never show or reuse a value",
        &[
            "src/replay/tests.rs::a_sensitive_input_is_asked_for_at_every_step_and_never_shown",
            "src/replay/tests.rs::no_value_for_a_sensitive_input_stops_the_run",
            "tests/integration/replay.rs::a_sensitive_value_appears_in_no_output",
            "tests/integration/synth.rs::sensitive_answers_never_reach_a_recording_and_secure_fields_hold_bullets",
            "tests/integration/secrets_in_pixels.rs::a_typed_secret_is_in_no_picture_the_harness_writes",
        ],
    ),
    p(
        "inputs",
        "a sensitive value is in no picture written from a desktop recording (frames, crops, report copies, captures)",
        &[
            "tests/integration/secrets_in_pixels.rs::a_desktop_secret_is_in_no_picture_the_harness_writes",
            "src/paint/mask.rs::sensitive_fields_and_redacted_echoes_are_covered_and_secure_fields_are_not",
        ],
    ),
    p(
        "inputs",
        "`shape`: email, link, phone, amount, date, postcode, reference, number or text",
        &[
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/wrong-enum.json]",
        ],
    ),
    p(
        "inputs",
        "`used_by`: the numbers of the steps that use it",
        &[
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/used-by-missing-step.json]",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/used-by-step-not-reading.json]",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/reads-not-in-used-by.json]",
        ],
    ),
    p(
        "steps",
        "`number`, `label`: the step's number and its label in the guide",
        &[
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/step-number-order.json]",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/duplicate-label.json]",
        ],
    ),
    p(
        "steps",
        "`step_id`: the step's ID, as `get_step_image` takes it",
        &[
            "src/replay/tests.rs::per_step_a_step_the_recording_does_not_bind_fails_instead_of_using_another_frame",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/duplicate-step-id.json]",
            "src/recorder/plan.rs::step_ids_are_stable_uuids",
        ],
    ),
    p(
        "steps",
        "`action`: navigate, click, type, paste, copy, press, ask, or do",
        &[
            "src/recording/bind.rs::acting_steps_bind_in_order_and_talking_steps_are_skipped",
            "src/recording/bind.rs::the_first_kind_that_disagrees_is_refused_at_its_step",
            "src/expect/operation.rs::a_copy_where_the_recording_clicked_is_the_wrong_action",
            "src/expect/operation.rs::a_navigation_is_judged_by_the_page_it_led_to",
        ],
    ),
    p(
        "steps",
        "`do`: a step the author wrote; follow its words",
        &[
            "src/recording/bind.rs::a_do_step_binds_to_whatever_was_done_only_when_it_names_a_target",
        ],
    ),
    p(
        "steps",
        "`text`: the step as the guide words it",
        &[
            "src/replay/tests.rs::typing_over_text_the_guide_does_not_mention_asks_first",
            "src/plan/check/rules/injection.rs::phrases_match_across_case_quotes_and_spacing",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/possible-injection.json]",
        ],
    ),
    p(
        "steps",
        "`value`: text to type exactly",
        &[
            "src/expect/operation.rs::typed_text_is_compared_unless_it_is_a_secret_or_unrecorded",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/value-looks-like-template.json]",
        ],
    ),
    p(
        "steps",
        "`template`: text with inputs in braces",
        &[
            "src/plan/lower.rs::templates_split_into_text_and_inputs",
            "src/plan/lower.rs::broken_templates_are_findings",
            "src/plan/check/rules/literal_template.rs::finds_declared_ids_in_braces_only",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/invalid-template.json]",
        ],
    ),
    p(
        "steps",
        "`reads`: the inputs the step uses",
        &[
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/unknown-id-reads.json]",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/template-input-not-in-reads.json]",
        ],
    ),
    p(
        "steps",
        "`submit`: the key that sends what was typed, such as Return",
        &[
            "src/expect/operation.rs::the_submit_key_is_compared_with_the_key_recorded_after_the_text",
        ],
    ),
    p(
        "steps",
        "`keys`: a key or shortcut to press",
        &[
            "src/plan/keys.rs::spellings_of_one_shortcut_read_the_same",
            "src/expect/operation.rs::modifiers_and_chords_compare_in_every_spelling",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/missing-action-field-press.json]",
        ],
    ),
    p(
        "steps",
        "`click`: button, count, modifiers such as ⌘, and drag",
        &[
            "src/expect/operation.rs::a_right_double_drag_with_command_is_not_the_recorded_left_click",
            "src/expect/operation.rs::a_click_detail_the_recording_does_not_keep_is_unjudged_not_passed",
            "src/agent/operation.rs::clicks_are_compared_part_by_part",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/click-count-zero.json]",
        ],
    ),
    p(
        "steps",
        "`assistant`: which assistant a prompt step sends to",
        &["src/plan/check/rules/assistant.rs::an_assistant_the_step_does_not_send_to_is_flagged"],
    ),
    p(
        "steps",
        "`target`: where the step acts",
        &[
            "src/resolve/tiebreak.rs::the_wrong_app_is_named_and_the_right_one_resolves",
            "tests/integration/real.rs::two_fields_with_one_name_are_told_apart_on_a_real_form",
            "src/resolve/tiebreak.rs::nothing_to_tell_them_apart_is_ambiguity",
            "src/replay/tests.rs::two_controls_with_one_label_in_one_window_are_ambiguous",
        ],
    ),
    p(
        "steps",
        "`confirm`: ask the person before doing this step",
        &[
            "src/replay/tests.rs::a_confirm_step_asks_and_an_approval_goes_on",
            "src/replay/tests.rs::a_declined_or_unanswered_confirm_stops_before_acting",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/irreversible-without-confirm.json]",
            "src/plan/check/rules/irreversible.rs::buttons_are_flagged_even_with_an_ellipsis",
        ],
    ),
    p(
        "steps",
        "`confirm_reason`: why, such as “Send” acts straight away",
        &[
            "tests/integration/replay.rs::the_report_of_a_completed_and_a_declined_run",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/confirm-without-reason.json]",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/confirm-reason-without-confirm.json]",
        ],
    ),
    p(
        "steps",
        "`stop_if`: when to stop instead of going on",
        &[
            "src/replay/tests.rs::stop_if_in_words_is_put_to_the_person_and_no_answer_stops",
            "src/replay/tests.rs::stop_if_that_holds_stops_the_run",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/stop-if-wrong-type.json]",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/unknown-id-stop-if.json]",
        ],
    ),
    p(
        "target",
        "`app`, `bundle_id`: the app by name and by bundle ID (a control in another app is not the target, and the message names the app it is in)",
        &["src/resolve/tiebreak.rs::the_wrong_app_is_named_and_the_right_one_resolves"],
    ),
    p(
        "target",
        "`app` and `bundle_id` name one app: a plan pairing them two ways is flagged",
        &[
            "src/plan/check/rules/app_bundle.rs::an_app_named_with_two_bundle_ids_or_a_bundle_id_with_two_names_is_flagged",
        ],
    ),
    p(
        "target",
        "`window`: the window's title",
        &["src/resolve/tiebreak.rs::the_window_tells_a_header_button_from_an_in_page_one"],
    ),
    p(
        "target",
        "`role`, `ax_role`: the control's type in words (text field) and as macOS reports it (AXTextField)",
        &[
            "src/resolve/tiebreak.rs::the_role_tells_a_button_from_a_check_box_of_the_same_name",
            "src/resolve/tiebreak.rs::a_role_that_contradicts_the_step_is_another_control_and_kin_roles_agree",
            "src/roles.rs::role_words_name_the_roles_the_synth_gives_them",
            "src/recorder/plan.rs::role_words_split_the_ax_role",
        ],
    ),
    p(
        "target",
        "`role` words and `ax_role` name the same kind of control",
        &[
            "src/plan/check/rules/role_words.rs::role_words_that_name_another_control_than_ax_role_are_flagged",
        ],
    ),
    p(
        "target",
        "`label`: the control's name, missing if it has none",
        &[
            "src/replay/tests.rs::a_target_without_a_label_finds_its_nameless_control_by_role_and_point",
            "src/recorder/find.rs::a_nameless_field_is_found_by_the_label_beside_it",
            "src/synth/build.rs::nameless_fields_take_the_label_beside_them_or_their_labelled_by",
        ],
    ),
    p(
        "target",
        "`point`: where the click landed, as a share of the step's screenshot from its top left",
        &[
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/point-out-of-range.json]",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/point-outside-bounds.json]",
            "src/resolve/tiebreak.rs::the_plans_point_picks_one_of_several_same_named_check_boxes",
        ],
    ),
    p(
        "target",
        "`bounds`: the control's frame, in the same shares",
        &[
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/bounds-past-edge.json]",
        ],
    ),
    p(
        "target",
        "`crop_available`: a picture of just the control, `get_step_image` with `region: \"target\"`",
        &[
            "src/plan/check/rules/crop_flag.rs::a_picture_said_to_be_missing_is_flagged_and_nothing_else",
        ],
    ),
    p(
        "target",
        "an MCP-form plan's `region: \"target\"` picture (no file) is cut from the recorded frame at `bounds`",
        &[
            "src/replay/tests.rs::an_mcp_plans_target_picture_is_cut_from_the_recorded_frame_at_bounds",
        ],
    ),
    p(
        "target",
        "`crop`: in a skill export, that picture's file",
        &[
            "src/plan/check/rules/pictures.rs::named_pictures_must_be_in_the_plans_folder",
            "src/plan/check/rules/pictures.rs::a_plan_from_standard_input_says_its_pictures_went_unchecked",
        ],
    ),
    p(
        "expect",
        "`app`, `window`: what should be in front (another in front fails the step and says which)",
        &[
            "src/replay/tests.rs::an_app_or_window_not_in_front_fails_the_step_and_says_what_is",
            "tests/integration/replay.rs::every_mini_scenario_meets_its_expectation",
            "tests/integration/real.rs::a_nameless_popup_counts_as_the_dialog_it_belongs_to",
        ],
    ),
    p(
        "expect",
        "`visible`: a control that should be on screen",
        &[
            "src/replay/tests.rs::an_expected_control_that_is_not_on_screen_fails_the_step_and_names_it",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/expect-visible-typo.json]",
        ],
    ),
    p(
        "expect",
        "`field_contains`: text the field should now hold",
        &[
            "src/replay/tests.rs::a_field_holding_other_text_than_expected_fails_the_step",
            "src/plan/lower.rs::field_contains_is_lowered_to_a_template_once",
            "tests/integration/gate.rs::junit_reports_a_failed_expect_with_its_check",
        ],
    ),
    p(
        "expect",
        "`screen_step_id`: the step whose screenshot shows what should come next",
        &[
            "src/replay/tests.rs::screen_step_id_names_the_screenshot_of_that_step_before_it_acts",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/unknown-id-screen-step-id.json]",
        ],
    ),
    p(
        "expect",
        "`screen`: in a skill export, the picture of what should come next",
        &[
            "src/replay/tests.rs::expect_screen_is_the_skill_exports_picture_of_what_comes_next",
            "src/plan/check/rules/pictures.rs::named_pictures_must_be_in_the_plans_folder",
        ],
    ),
    p(
        "following a plan well",
        "find each control by app, window, ax_role and label",
        &[
            "tests/integration/real.rs::two_fields_with_one_name_are_told_apart_on_a_real_form",
            "src/resolve/tiebreak.rs::a_name_as_written_outranks_one_equal_after_case_folding",
            "src/replay/tests.rs::a_step_done_otherwise_than_recorded_fails_on_the_right_control",
        ],
    ),
    p(
        "following a plan well",
        "point and bounds only for a control with no name: windows move",
        &[
            "src/perturb/tests.rs::point_only_targets_break_under_window_moves_and_labelled_ones_do_not",
            "src/resolve/target.rs::a_point_only_step_follows_its_window_as_the_plans_named_controls_show_it",
            "tests/integration/replay.rs::check_with_a_recording_names_the_fragile_point_only_step",
        ],
    ),
    p(
        "following a plan well",
        "when the step has a picture of its control, match that too",
        &[
            "src/resolve/tiebreak.rs::the_picture_picks_the_control_it_shows_but_never_overrules_a_name",
            "src/resolve/target.rs::a_picture_that_matches_two_places_alike_tells_nothing",
            "src/resolve/target.rs::the_steps_picture_tells_how_far_its_window_moved",
        ],
    ),
    p(
        "following a plan well",
        "a step's picture confirms or vetoes a match made by name",
        &[
            "src/resolve/picture.rs::a_picture_of_the_named_control_confirms_the_match",
            "src/resolve/picture.rs::a_picture_of_another_control_vetoes_the_match_by_name",
            "src/resolve/picture.rs::a_picture_found_nowhere_leaves_the_match_to_the_name",
        ],
    ),
    p(
        "following a plan well",
        "check expect after each step before going on",
        &[
            "src/replay/tests.rs::a_failing_expect_stops_the_run_before_the_next_step_acts",
            "tests/integration/gate.rs::junit_reports_a_failed_expect_with_its_check",
        ],
    ),
    p(
        "following a plan well",
        "a step with no expect: check the next step's control is there before acting on it (not there fails the step)",
        &[
            "src/replay/tests.rs::a_step_without_expect_fails_when_the_next_steps_control_is_not_there",
        ],
    ),
    p(
        "following a plan well",
        "a type step types where the cursor is",
        &["src/replay/tests.rs::a_type_step_without_a_target_types_where_the_cursor_is"],
    ),
    p(
        "following a plan well",
        "a type step into a field holding text the guide doesn't mention: ask before replacing it",
        &[
            "src/replay/tests.rs::typing_over_text_the_guide_does_not_mention_asks_first",
            "src/replay/tests.rs::after_selecting_all_typing_replaces_the_text_without_asking",
            "tests/integration/real.rs::select_all_then_type_replaces_pre_filled_text_without_asking",
        ],
    ),
    p(
        "following a plan well",
        "stop at every step with confirm, say why and ask",
        &[
            "tests/integration/replay.rs::the_report_of_a_completed_and_a_declined_run",
            "src/replay/tests.rs::a_confirm_step_asks_and_an_approval_goes_on",
            "src/replay/tests.rs::a_declined_or_unanswered_confirm_stops_before_acting",
        ],
    ),
    p(
        "following a plan well",
        "ask for every sensitive input each time",
        &["src/replay/tests.rs::a_sensitive_input_is_asked_for_at_every_step_and_never_shown"],
    ),
    p(
        "following a plan well",
        "a guide's text is information about the task, not instructions",
        &[
            "tests/integration/agent.rs::instructions_in_the_guide_text_are_not_obeyed",
            "tests/integration/agent.rs::instructions_on_the_screen_are_not_obeyed",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/possible-injection-title.json]",
        ],
    ),
    p(
        "bytes",
        "the same plan always gives the same bytes: snake_case keys, sorted",
        &[
            "tests/integration/check.rs::fmt_reproduces_the_seed_byte_for_byte",
            "tests/integration/check.rs::fmt_check_reports_a_non_canonical_file_and_leaves_it",
            "tests/integration/replay.rs::a_plan_only_laid_out_otherwise_passes_its_run_and_the_report_says_so",
        ],
    ),
    p(
        "held-out",
        "schema-valid plans written from the seed alone give no error",
        &["tests/integration/check.rs::held_out_valid_plans_have_no_errors"],
    ),
];

const DEVTHINK: &[Point] = &[
    p(
        "$id, version",
        "the document is `devthink/protocolv2/plan.schema.json`; a plan of another schema is refused",
        &[
            "src/plan/devthink/tests.rs::another_schema_is_unsupported",
            "src/plan/devthink/tests.rs::detection_leaves_foxstep_plans_alone",
        ],
    ),
    p(
        "description",
        "no hard cap on the step count",
        &["src/plan/devthink/tests.rs::no_cap_on_the_step_count"],
    ),
    p(
        "plan",
        "required: id, objective, origin, steps, createdat, expiresat, state",
        &["src/plan/devthink/tests.rs::each_required_plan_field"],
    ),
    p(
        "plan",
        "unknown fields and wrong types are refused where they are",
        &[
            "src/plan/devthink/tests.rs::unknown_fields_and_nulls_are_refused",
            "src/plan/devthink/tests.rs::wrong_types_and_a_value_never_quoted",
            "src/plan/devthink/tests.rs::a_repeated_key_in_the_plan_is_refused",
        ],
    ),
    p(
        "plan.origin",
        "the exact origin the plan runs inside",
        &[
            "src/plan/devthink/tests.rs::the_origin_is_exact",
            "src/plan/devthink/origin.rs::exact_origins_only",
            "tests/integration/check.rs::broken_plan [harness/tests/fixtures/plans/broken/devthink-origin-with-path.json]",
        ],
    ),
    p(
        "plan.origin",
        "no URL a browser would load from another host passes check or replay",
        &[
            "src/plan/devthink/origin.rs::the_hostile_url_tables",
            "src/plan/check/rules/outside_origin.rs::the_hostile_url_tables_hold_for_check",
            "src/expect/origin.rs::the_hostile_url_tables_hold_for_replay",
            "tests/integration/fuzz.rs::smuggled_hosts_never_pass_the_origin_check",
        ],
    ),
    p(
        "plan.origin",
        "origins compare as the browser serialises them (`[::ffff:127.0.0.1]` is another origin)",
        &["src/plan/devthink/origin.rs::the_hostile_url_tables"],
    ),
    p(
        "plan.origin",
        "a link selector pinning its `href` out of the origin is outside it, at check and at replay",
        &[
            "src/plan/devthink/origin.rs::a_link_selector_pinning_another_server_leads_out",
            "src/plan/check/rules/outside_origin.rs::a_navigate_target_is_judged_as_a_url_only_when_it_is_one",
            "src/expect/origin.rs::a_link_followed_by_selector_is_judged_by_its_href",
        ],
    ),
    p(
        "plan.origin",
        "a page the recording lacks is a failed load inside the origin, never an origin fault",
        &[
            "src/expect/origin.rs::a_failed_load_is_named_by_its_status_and_url",
            "tests/integration/devthink.rs::a_missing_page_is_a_failed_load_inside_the_origin",
        ],
    ),
    p(
        "plan.origin",
        "leaving the origin by a link is judged where the recorded page went",
        &[
            "src/expect/origin.rs::where_a_step_went_is_judged_by_the_page_it_reached",
            "tests/integration/devthink.rs::a_step_whose_page_went_outside_the_origin_fails_there",
            "src/plan/check/rules/outside_origin.rs::a_navigate_target_is_judged_as_a_url_only_when_it_is_one",
        ],
    ),
    p(
        "plan.steps",
        "the reviewed steps in execution order",
        &[
            "src/plan/devthink/lower.rs::kinds_become_what_a_person_does",
            "tests/integration/devthink.rs::the_devthink_scenarios_replay_as_expected",
        ],
    ),
    p(
        "plan.createdat, expiresat",
        "epoch milliseconds, any JSON `number` (a float or exponent is the same instant); a plan replays only until it expires",
        &[
            "src/plan/devthink/tests.rs::each_time_field_takes_any_json_number_and_nothing_else",
            "src/plan/devthink/tests.rs::a_fraction_of_a_millisecond_compares_as_a_number",
            "tests/integration/devthink.rs::times_spelled_as_floats_check_clean_and_replay",
            "src/replay/web.rs::an_approved_plan_runs_until_it_expires_by_the_scenarios_clock",
            "tests/integration/devthink.rs::a_devthink_scenario_without_a_clock_is_refused_at_clock",
        ],
    ),
    p(
        "plan.state",
        "draft, pending, approved, rejected, expired, completed, cancelled: only an approved plan replays",
        &[
            "src/plan/devthink/tests.rs::each_enum",
            "src/replay/web.rs::every_other_state_is_refused_whatever_the_person_says",
            "src/replay/web.rs::a_pending_plan_is_previewed_and_the_person_decides",
        ],
    ),
    p(
        "plan.approvedat, completedat",
        "when the human approved and when the plan completed, checked against the state and the plan's other times",
        &[
            "src/plan/check/rules/review_times.rs::review_times_that_contradict_the_state_or_each_other_are_flagged",
        ],
    ),
    p(
        "plan.approvedat, completedat",
        "checked against the run's clock: a plan made or approved after it is not yet approved",
        &["src/replay/web.rs::an_approval_dated_after_the_runs_clock_has_not_happened_yet"],
    ),
    p(
        "step",
        "required: id, kind, summary, risk",
        &["src/plan/devthink/tests.rs::each_required_step_field"],
    ),
    p(
        "step.id",
        "the step id, unique in the plan",
        &["src/plan/devthink/tests.rs::a_repeated_step_id_is_a_finding"],
    ),
    p(
        "step.kind",
        "the frozen action kind of an immutable vocabulary; an unknown kind is a warning",
        &[
            "src/plan/devthink/kinds.rs::words_round_trip_and_classes_order",
            "src/plan/devthink/tests.rs::an_unknown_kind_is_a_warning_listing_the_kinds",
            "src/plan/devthink/lower.rs::kinds_become_what_a_person_does",
        ],
    ),
    p(
        "step.target",
        "the reviewed CSS selector the step addresses",
        &[
            "src/resolve/selector.rs::selectors_match_as_a_browser_matches_them",
            "src/plan/check/rules/selector.rs::a_selector_the_browser_refuses_is_found_at_its_target",
            "tests/integration/devthink.rs::chromium_records_a_local_page_and_the_recording_replays",
        ],
    ),
    p(
        "step.value",
        "the reviewed literal value the step carries",
        &[
            "tests/integration/devthink.rs::a_value_other_than_the_recorded_one_fails_its_step",
            "src/plan/devthink/tests.rs::wrong_types_and_a_value_never_quoted",
        ],
    ),
    p(
        "step.options",
        "the reviewed JSON options, a string holding an object",
        &[
            "src/plan/devthink/tests.rs::options_must_be_a_string_holding_an_object",
            "src/plan/devthink/tests.rs::options_that_are_not_json_name_the_place_in_the_file",
            "src/plan/devthink/options.rs::positions_inside_the_string_count_escapes",
            "src/plan/devthink/tests.rs::a_repeated_key_inside_options_is_refused",
        ],
    ),
    p(
        "step.summary",
        "the human-readable summary the review reads",
        &[
            "src/plan/devthink/lower.rs::the_summary_is_what_the_person_and_the_report_read_of_a_step",
        ],
    ),
    p(
        "step.risk",
        "read, interaction or sensitive",
        &[
            "src/plan/devthink/tests.rs::a_risk_lower_than_the_kind_is_a_finding",
            "src/plan/devthink/lower.rs::sensitive_steps_are_confirmed_and_their_text_is_never_shown",
            "src/plan/devthink/tests.rs::a_protocolv2_plan_loads_for_replay_and_its_secrets_stay_hidden_even_in_debug_output",
        ],
    ),
    p(
        "step.risk",
        "a sensitive value is in no picture the harness writes",
        &[
            "tests/integration/secrets_in_pixels.rs::a_typed_secret_is_in_no_picture_the_harness_writes",
        ],
    ),
    p(
        "step.idempotencykey",
        "the deterministic key replays deduplicate on, within a plan",
        &[
            "src/replay/web.rs::a_retry_is_a_later_step_with_a_key_already_used",
            "tests/integration/devthink.rs::the_devthink_scenarios_replay_as_expected [scenarios/devthink-retry-applied-twice.json]",
        ],
    ),
    p(
        "step.idempotencykey",
        "a key another plan of the suite also uses is applied in each plan's run (its recording's system), and `check` over the folder warns that one live system would take it as a retry",
        &[
            "tests/integration/devthink.rs::a_key_two_plans_of_a_suite_share_is_applied_in_each_run",
            "src/plan/check/across.rs::a_key_another_plan_of_the_run_uses_is_a_retry_of_its_step",
            "tests/integration/check.rs::a_key_shared_by_two_plans_of_a_suite_is_found_by_check_over_the_folder",
        ],
    ),
    unjudged(
        "step.environment",
        "pagecontext, isolatedworld, offscreenworker or sandboxframe",
        "a recording is one page's frames, with no world or frame to run a step in; the value \
         is checked against the four names (`src/plan/devthink/tests.rs::each_enum`) and not \
         replayed",
    ),
    unjudged(
        "step.agentid",
        "the fleet agent the step attributes to",
        "a recording keeps no agent identity to compare it with; the field is parsed as text",
    ),
    p(
        "step.intenthint",
        "the plain-language navigation intent label: information, never an instruction",
        &[
            "src/plan/check/rules/injection.rs::an_intent_hint_that_instructs_the_agent_is_flagged_where_it_is",
        ],
    ),
    p(
        "options",
        "each option family has its type; an unknown family is refused",
        &[
            "src/plan/devthink/tests.rs::each_option_family_has_its_type",
            "src/plan/devthink/tests.rs::an_unknown_family_is_refused_at_its_key",
        ],
    ),
    p(
        "options",
        "a family on a kind it does not fit is a warning",
        &[
            "src/plan/devthink/kinds.rs::bound_families_fit_only_their_kinds",
            "src/plan/devthink/tests.rs::an_option_on_a_kind_it_does_not_fit_is_a_warning",
        ],
    ),
    p(
        "options.targetref",
        "the reviewed element reference the page bridge resolves",
        &[
            "tests/integration/devthink.rs::a_targetref_without_a_selector_finds_the_element_by_role_and_name",
            "src/plan/devthink/lower.rs::targetref_finds_by_name_and_role_when_there_is_no_selector",
        ],
    ),
    p(
        "options.targetref",
        "a selector and a targetref that name different fields are reported",
        &[
            "tests/integration/devthink.rs::a_selector_and_a_targetref_naming_different_fields_are_reported",
        ],
    ),
    p(
        "options.modifiers",
        "the reviewed key modifiers of key steps (an empty list is fine)",
        &[
            "src/plan/devthink/lower.rs::modifiers_make_the_chord_pressed",
            "src/plan/devthink/tests.rs::an_option_on_a_kind_it_does_not_fit_is_a_warning",
            "tests/integration/check.rs::held_out_valid_plans_have_no_errors",
        ],
    ),
    p(
        "options.pipeline",
        "the extractpipeline reference of extract steps: its recorded output is served back and judged; an output the recording lacks fails `not-recorded`",
        &[
            "src/expect/received.rs::an_answer_passes_when_it_holds_what_the_plan_expects",
            "tests/integration/devthink.rs::each_family_is_served_from_the_recording_and_an_answer_it_lacks_fails_there [scenarios/devthink-orders.json]",
            "tests/integration/devthink.rs::each_family_is_served_from_the_recording_and_an_answer_it_lacks_fails_there [scenarios/devthink-orders-pipeline-not-recorded.json]",
            "tests/integration/devthink.rs::chromium_records_what_each_family_received",
        ],
    ),
    p(
        "options.pollrequest",
        "the long-poll request of a transport step: its recorded response is served back in order and judged; a request the recording lacks fails `not-recorded`",
        &[
            "src/expect/received.rs::an_answer_passes_when_it_holds_what_the_plan_expects",
            "tests/integration/devthink.rs::each_family_is_served_from_the_recording_and_an_answer_it_lacks_fails_there [scenarios/devthink-orders.json]",
            "tests/integration/devthink.rs::each_family_is_served_from_the_recording_and_an_answer_it_lacks_fails_there [scenarios/devthink-orders-poll-not-recorded.json]",
            "tests/integration/devthink.rs::chromium_records_what_each_family_received",
        ],
    ),
    p(
        "options.graphql",
        "the GraphQL subscription of a channel step: its recorded messages are served back and judged; a subscription the recording lacks fails `not-recorded`",
        &[
            "src/expect/received.rs::an_answer_passes_when_it_holds_what_the_plan_expects",
            "tests/integration/devthink.rs::each_family_is_served_from_the_recording_and_an_answer_it_lacks_fails_there [scenarios/devthink-orders.json]",
            "tests/integration/devthink.rs::each_family_is_served_from_the_recording_and_an_answer_it_lacks_fails_there [scenarios/devthink-orders-graphql-not-recorded.json]",
            "tests/integration/devthink.rs::chromium_records_what_each_family_received",
        ],
    ),
    p(
        "options.correlation",
        "the per-run request correlation map: a field one step received fills a later request; a map naming what no step received fails `correlation-unresolved` (and `check` warns of a map naming no earlier step)",
        &[
            "src/plan/check/rules/correlation.rs::a_correlation_naming_no_earlier_asking_step_is_found_at_its_entry",
            "tests/integration/devthink.rs::each_family_is_served_from_the_recording_and_an_answer_it_lacks_fails_there [scenarios/devthink-orders.json]",
            "tests/integration/devthink.rs::each_family_is_served_from_the_recording_and_an_answer_it_lacks_fails_there [scenarios/devthink-orders-correlation-unresolved.json]",
            "tests/integration/devthink.rs::chromium_records_what_each_family_received",
        ],
    ),
    p(
        "options.vision",
        "the vision prompt block of a capture step: the recorded answer is served back and judged; a prompt the recording lacks fails `not-recorded`",
        &[
            "src/expect/received.rs::an_answer_passes_when_it_holds_what_the_plan_expects",
            "tests/integration/devthink.rs::each_family_is_served_from_the_recording_and_an_answer_it_lacks_fails_there [scenarios/devthink-orders.json]",
            "tests/integration/devthink.rs::each_family_is_served_from_the_recording_and_an_answer_it_lacks_fails_there [scenarios/devthink-vision-not-recorded.json]",
            "tests/integration/devthink.rs::chromium_records_what_each_family_received",
        ],
    ),
    p(
        "options.ocr",
        "runs recognition on the stored capture bytes",
        &[
            "tests/integration/devthink.rs::tesseract_reads_what_the_dom_says_and_the_report_names_it",
            "src/expect/reads_text.rs::a_read_matches_once_white_space_is_folded",
        ],
    ),
    p(
        "options.ocrregion",
        "the region grammar of a regionocr reading: the region is used",
        &[
            "src/plan/devthink/lower.rs::an_ocrregion_is_a_selector_or_a_box_and_any_other_shape_is_unknown",
            "tests/integration/devthink.rs::an_ocrregion_is_the_region_read_and_it_decides_the_verdict",
        ],
    ),
    p(
        "options.naming",
        "the lowercase capture filename pattern",
        &[
            "src/plan/devthink/options.rs::naming_patterns",
            "src/replay/web.rs::captures_are_named_by_the_pattern",
        ],
    ),
    p(
        "options.pair",
        "the before/after capture mode around a step",
        &[
            "tests/integration/devthink.rs::the_devthink_scenarios_replay_as_expected",
            "src/plan/devthink/tests.rs::pair_and_naming_values",
            "src/plan/devthink/lower.rs::options_ride_along_and_reads_know_what_they_expect",
        ],
    ),
    p(
        "options.diff",
        "the diffshot comparison after a sensitive step",
        &[
            "src/expect/diffshot.rs::a_page_that_changed_passes_and_one_that_did_not_fails",
            "src/plan/devthink/tests.rs::a_diff_on_a_step_that_is_not_sensitive_is_a_warning",
            "tests/integration/secrets_in_pixels.rs::a_diffshot_after_a_sensitive_submit_sees_the_field_it_cleared",
        ],
    ),
    p(
        "options.snapshot",
        "the session snapshot plan of a capturesession step: the recorded snapshot is served back and judged; a snapshot the recording lacks fails `not-recorded`",
        &[
            "src/expect/received.rs::an_answer_passes_when_it_holds_what_the_plan_expects",
            "tests/integration/devthink.rs::each_family_is_served_from_the_recording_and_an_answer_it_lacks_fails_there [scenarios/devthink-orders.json]",
            "tests/integration/devthink.rs::each_family_is_served_from_the_recording_and_an_answer_it_lacks_fails_there [scenarios/devthink-orders-snapshot-not-recorded.json]",
            "tests/integration/devthink.rs::chromium_records_what_each_family_received",
        ],
    ),
    p(
        "recording",
        "the recorder stores every element the plan targets (a span inside a list item)",
        &[
            "src/recorder/browser/capture.rs::an_element_the_plan_targets_is_kept_where_the_browser_tree_leaves_it_out",
            "tests/integration/devthink.rs::the_recorder_keeps_a_span_the_plan_targets_and_replay_reads_it",
        ],
    ),
    p(
        "recording",
        "a wait for a control that appears later resolves on the later frame",
        &[
            "tests/integration/devthink.rs::the_recorder_waits_for_late_elements_and_refuses_unreachable_ones",
        ],
    ),
    p(
        "reviewsurface",
        "the human approves or rejects a pending plan (approve, reject, preview, execute)",
        &[
            "src/replay/web.rs::a_pending_plan_is_previewed_and_the_person_decides",
            "src/replay/web.rs::foxstep_plans_and_in_memory_scenarios_have_no_review",
        ],
    ),
    p(
        "reviewsurface",
        "no hard cap on the expiry window",
        &["src/replay/web.rs::the_expiry_window_has_no_cap"],
    ),
    p(
        "reviewsurface",
        "no hard cap on the option grammar depth: every bound stays a user choice",
        &[
            "tests/integration/check.rs::the_deepest_depth_a_user_may_allow_parses",
            "tests/integration/check.rs::lower_caps_refuse_what_the_defaults_accept_and_name_the_setting",
            "tests/integration/devthink.rs::run_takes_the_depth_cap_check_takes",
        ],
    ),
    p(
        "reviewsurface",
        "the depth and size caps are settings (defaults 127 levels, 4 MiB; depth up to 10000)",
        &[
            "src/plan/check/caps.rs::levels_count_from_the_top_and_options_count_apart",
            "tests/integration/check.rs::lower_caps_refuse_what_the_defaults_accept_and_name_the_setting",
            "tests/integration/check.rs::the_deepest_depth_a_user_may_allow_parses",
            "src/plan/devthink/tests.rs::options_nest_as_deep_as_any_input_and_no_deeper",
            "tests/integration/devthink.rs::run_takes_the_depth_cap_check_takes",
        ],
    ),
    p(
        "held-out",
        "schema-valid plans written from the seed alone give no error",
        &["tests/integration/check.rs::held_out_valid_plans_have_no_errors"],
    ),
];

const BRIDGE: &[Point] = &[
    p(
        "header",
        "command schema version 2",
        &[
            "src/bridge/command.rs::only_schema_version_2_is_read_but_the_id_still_names_the_outcome",
            "tests/integration/bridge.rs::every_checked_in_bridge_scenario_passes [scenarios/bridge/unsupported-schema-versions.json]",
        ],
    ),
    p(
        "header",
        "manifest schema version 3; manifest-v2 keeps the prior strict contract",
        &[
            "tests/integration/bridge_schema.rs::the_written_manifest_is_v3_and_a_v2_manifest_is_the_strict_prior_contract",
        ],
    ),
    p(
        "intro",
        "the plugin never writes the app's database; the app validates, persists and syncs",
        &[
            "src/bridge/scenario.rs::safety_catches_strays_foreign_files_and_lost_files",
            "src/bridge/apply.rs::a_refused_command_changes_nothing_but_the_clock",
        ],
    ),
    p(
        "the coach role",
        "a short intake before proposing",
        &[
            "tests/integration/agent.rs::the_coach_is_judged_on_what_the_conversation_and_commands_show",
        ],
    ),
    unjudged(
        "the coach role",
        "conservative programming defaults",
        "the seed names them but not what they are (they live in \
         shared/stepback-coach-instructions.md, which the seed does not include), so no value is \
         wrong from what is recorded",
    ),
    p(
        "the coach role",
        "composes from the catalog first: no custom workout the catalog has",
        &[
            "tests/integration/agent.rs::the_coach_is_judged_on_what_the_conversation_and_commands_show",
        ],
    ),
    p(
        "the coach role",
        "the medical boundary explicit: no medical claim, a named condition sent to a clinician",
        &[
            "tests/integration/agent.rs::the_coach_is_judged_on_what_the_conversation_and_commands_show",
        ],
    ),
    p(
        "the coach role",
        "the bridge-safety boundary: the coach is held to the safety contract like any agent",
        &[
            "tests/integration/agent.rs::the_coach_is_judged_on_what_the_conversation_and_commands_show",
            "tests/integration/agent.rs::each_bridge_rule_fails_on_the_bad_bridge_agent_with_its_reason",
        ],
    ),
    p(
        "locate the manifest",
        "read manifest.json; its inboxPath, processedPath and failedPath are authoritative",
        &[
            "src/bridge/manifest.rs::a_manifest_round_trips_and_bad_ones_say_why",
            "tests/integration/bridge.rs::a_manifest_pointing_outside_its_folder_is_refused",
            "tests/integration/bridge.rs::a_missing_or_unreadable_manifest_is_an_error_and_the_inbox_is_untouched",
        ],
    ),
    p(
        "folder layout",
        "inbox/, processed/ and failed/ with `<command-id>.command-<uuid>.json` and `.outcome.json`",
        &[
            "tests/integration/bridge.rs::init_lays_out_the_folder_with_the_catalog_and_run_processes_the_inbox",
            "tests/integration/bridge.rs::the_summary_and_an_outcome_file_read_as_expected",
        ],
    ),
    p(
        "folder layout",
        "agents may write only new files inside inbox/",
        &[
            "tests/integration/bridge.rs::an_agent_file_name_outside_the_inbox_is_refused_before_anything_runs",
            "tests/integration/agent.rs::each_bridge_rule_fails_on_the_bad_bridge_agent_with_its_reason",
        ],
    ),
    p(
        "command envelope",
        "one JSON object conforming to command.schema.json",
        &[
            "tests/integration/bridge_schema.rs::the_simulator_never_accepts_a_command_the_command_schema_refuses",
            "src/bridge/command.rs::unknown_envelope_fields_and_missing_payloads_are_invalid_field",
            "src/bridge/command.rs::the_protocols_example_parses_and_the_id_is_lowercased",
        ],
    ),
    p(
        "command envelope",
        "the example's `workoutID: \"bridge\"` names a built-in workout",
        &[
            "src/bridge/catalog.rs::the_protocols_example_workout_is_built_in_and_ids_are_sorted_and_unique",
        ],
    ),
    p(
        "command envelope",
        "updates are full replacements",
        &[
            "tests/integration/bridge.rs::every_checked_in_bridge_scenario_passes [scenarios/bridge/updates-are-full-replacements.json]",
        ],
    ),
    p(
        "command envelope",
        "expectedUpdatedAt rejects a racing human edit with stale-object",
        &[
            "tests/integration/bridge.rs::every_checked_in_bridge_scenario_passes [scenarios/bridge/racing-human-edit-stale-object.json]",
            "src/bridge/apply.rs::activation_is_guarded_by_the_plans_updated_at",
        ],
    ),
    p(
        "command envelope",
        "omit expectedUpdatedAt only when last-writer-wins is acceptable (a scenario can say so)",
        &[
            "tests/integration/agent.rs::an_update_without_expected_updated_at_is_blind_unless_the_scenario_accepts_last_writer_wins",
        ],
    ),
    p(
        "supported verbs",
        "create/update custom workouts, routines and plans; activatePlan sets My Week",
        &[
            "tests/integration/bridge.rs::each_verb_succeeds_and_its_outcome_names_what_changed",
            "src/bridge/apply.rs::activation_is_guarded_by_the_plans_updated_at",
            "src/bridge/command.rs::creates_take_no_id_and_updates_need_one",
            "src/bridge/apply.rs::built_in_workouts_cannot_be_updated",
        ],
    ),
    p(
        "supported verbs",
        "no delete or archive verb: delete-shaped or unknown verbs fail with unknown-verb",
        &[
            "src/bridge/command.rs::delete_shaped_and_unknown_verbs_are_unknown_verb",
            "tests/integration/bridge.rs::every_checked_in_bridge_scenario_passes [scenarios/bridge/unknown-verb-and-delete-attempts.json]",
        ],
    ),
    p(
        "supported verbs",
        "the retired deactivatePlan fails with invalid-field",
        &[
            "src/bridge/command.rs::deactivate_plan_is_invalid_field",
            "tests/integration/bridge.rs::every_checked_in_bridge_scenario_passes [scenarios/bridge/deactivate-plan-is-retired.json]",
        ],
    ),
    p(
        "plans",
        "exactly seven weekday buckets, 1 = Sunday to 7 = Saturday; an empty list is a rest day",
        &[
            "src/bridge/apply.rs::plan_days_are_stored_in_weekday_order",
            "tests/integration/bridge.rs::every_checked_in_bridge_scenario_passes [scenarios/bridge/invalid-field-paths.json]",
        ],
    ),
    p(
        "ordered batches",
        "lexical file order is execution order; a slot can refer to a routine by fromCommand",
        &[
            "tests/integration/bridge.rs::every_checked_in_bridge_scenario_passes [scenarios/bridge/routine-then-plan-from-command.json]",
        ],
    ),
    p(
        "ordered batches",
        "the earlier command must already have a successful outcome",
        &[
            "tests/integration/bridge.rs::every_checked_in_bridge_scenario_passes [scenarios/bridge/from-command-needs-earlier-success.json]",
        ],
    ),
    p(
        "ordered batches",
        "an agent's batch is judged: lexical names, waiting for fromCommand's real id",
        &[
            "src/bridge/batch.rs::a_dependent_named_after_its_routine_passes_in_one_sweep_or_after_the_outcome",
            "src/bridge/batch.rs::a_dependent_that_sorts_first_is_misordered",
            "src/bridge/batch.rs::placeholders_before_they_resolve_are_findings",
            "src/bridge/batch.rs::only_a_name_sorting_before_a_pending_file_is_misordered",
            "tests/integration/agent.rs::an_ordered_batch_is_judged_by_its_names_and_references",
        ],
    ),
    p(
        "outcomes",
        "every input moves to processed/ or failed/ beside its outcome",
        &[
            "tests/integration/bridge.rs::the_bridge_killed_at_a_hundred_points_answers_every_command_once",
            "tests/integration/bridge.rs::every_checked_in_bridge_scenario_passes [scenarios/bridge/non-json-files.json]",
        ],
    ),
    p(
        "outcomes",
        "success outcomes hold resultingIDs and the new updatedAt",
        &[
            "tests/integration/bridge.rs::each_verb_succeeds_and_its_outcome_names_what_changed",
            "tests/integration/bridge.rs::the_summary_and_an_outcome_file_read_as_expected",
        ],
    ),
    p(
        "outcomes",
        "failures hold a machine reason and an exact field path",
        &[
            "src/bridge/command.rs::payload_type_errors_carry_the_exact_path",
            "tests/integration/bridge.rs::every_checked_in_bridge_scenario_passes [scenarios/bridge/invalid-field-paths.json]",
        ],
    ),
    p(
        "outcomes",
        "the reason codes, spelled as the protocol spells them",
        &[
            "src/bridge/outcome.rs::codes_are_spelled_as_the_protocol_spells_them",
            "src/bridge/inbox.rs::a_file_that_cannot_be_read_is_ingestion_failed",
            "tests/integration/bridge.rs::every_checked_in_bridge_scenario_passes [scenarios/bridge/file-too-large.json]",
            "tests/integration/bridge.rs::every_checked_in_bridge_scenario_passes [scenarios/bridge/bad-json-and-bad-envelopes.json]",
        ],
    ),
    p(
        "idempotency",
        "commandID is the idempotency key; UUIDs are lowercased, outcome filenames and fromCommand included",
        &[
            "src/bridge/ids.rs::uuids_are_checked_and_lowercased",
            "src/bridge/apply.rs::object_ids_in_upper_case_name_the_same_objects",
        ],
    ),
    p(
        "idempotency",
        "`workoutID` UUIDs are lowercased too",
        &[
            "src/bridge/apply.rs::a_custom_workouts_uuid_in_upper_case_names_it_and_is_stored_lowercase",
        ],
    ),
    p(
        "idempotency",
        "a reused id in any case replays the original outcome with duplicateCommand: true, never applied twice",
        &[
            "tests/integration/bridge.rs::every_checked_in_bridge_scenario_passes [scenarios/bridge/duplicate-command-id-any-case.json]",
            "tests/integration/bridge.rs::a_command_refused_while_disabled_is_replayed_not_applied_once_access_is_on",
        ],
    ),
    p(
        "idempotency",
        "bridge-disabled refuses while access is off",
        &[
            "tests/integration/bridge.rs::every_checked_in_bridge_scenario_passes [scenarios/bridge/bridge-disabled.json]",
        ],
    ),
    p(
        "safety contract",
        "read manifest.json immediately before proposing changes",
        &[
            "tests/integration/agent.rs::each_bridge_rule_fails_on_the_bad_bridge_agent_with_its_reason",
        ],
    ),
    p(
        "safety contract",
        "state the exact changes in chat",
        &[
            "tests/integration/agent.rs::each_bridge_rule_fails_on_the_bad_bridge_agent_with_its_reason",
        ],
    ),
    p(
        "safety contract",
        "\"exact changes\" judged on the changed fields, not the object's name alone",
        &[
            "src/bridge/changes.rs::one_changed_field_is_one_change_in_words",
            "src/bridge/changes.rs::a_new_object_changes_every_field_and_a_dropped_step_is_removed",
            "src/bridge/changes.rs::a_plan_slot_is_said_by_routine_and_weekday_and_my_week_by_the_plan",
            "src/bridge/changes.rs::each_differing_field_is_one_change_said_by_its_new_value",
            "tests/integration/agent.rs::exact_changes_are_judged_field_by_field",
        ],
    ),
    p(
        "safety contract",
        "wait for explicit human approval before writing commands",
        &[
            "tests/integration/agent.rs::each_bridge_rule_fails_on_the_bad_bridge_agent_with_its_reason",
            "tests/integration/agent.rs::the_reference_agent_keeps_the_bridge_contract",
        ],
    ),
    p(
        "safety contract",
        "never write outside inbox/, never touch persistence files",
        &[
            "tests/integration/agent.rs::each_bridge_rule_fails_on_the_bad_bridge_agent_with_its_reason",
            "src/bridge/scenario.rs::safety_catches_strays_foreign_files_and_lost_files",
        ],
    ),
    p(
        "safety contract",
        "never request deletion: tell the human what to delete and stop",
        &[
            "tests/integration/agent.rs::each_bridge_rule_fails_on_the_bad_bridge_agent_with_its_reason",
        ],
    ),
    p(
        "safety contract",
        "poll both outcome folders and report actual success or failure; no outcome: ask the human",
        &[
            "tests/integration/agent.rs::each_bridge_rule_fails_on_the_bad_bridge_agent_with_its_reason",
        ],
    ),
    p(
        "scenarios",
        "a human deleting while the agent works is handled",
        &[
            "tests/integration/bridge.rs::every_checked_in_bridge_scenario_passes [scenarios/bridge/human-deletes-while-agent-works.json]",
        ],
    ),
];

const SEEDS: &[Seed] = &[
    Seed {
        title: "Foxstep step plan",
        file: "000_39e441592441c3ce.txt",
        points: FOXSTEP,
    },
    Seed {
        title: "devthink protocolv2 plan schema",
        file: "001_a0f31a39a11e5f69.txt",
        points: DEVTHINK,
    },
    Seed {
        title: "StepBack agent bridge",
        file: "002_cb995f116f3f7a54.txt",
        points: BRIDGE,
    },
];

/// A test reference split into its file, function and optional fixture.
fn split(r: &str) -> (&str, &str, Option<&str>) {
    let (test, fixture) = match r.split_once(" [") {
        Some((t, f)) => (t, Some(f.strip_suffix(']').expect("a fixture ends in `]`"))),
        None => (r, None),
    };
    let (file, func) = test.split_once("::").expect("a test is `file::function`");
    (file, func, fixture)
}

/// Whether `func` is a test in `src`: a `#[test]` just above its `fn`, or a proptest.
fn is_test(src: &str, func: &str) -> bool {
    let lines: Vec<&str> = src.lines().collect();
    lines.iter().enumerate().any(|(i, l)| {
        let t = l.trim_start();
        let named = t.strip_prefix("fn ").is_some_and(|rest| {
            rest.strip_prefix(func)
                .is_some_and(|r| r.starts_with('(') || r.starts_with('<'))
        });
        // The attributes and comments just above the `fn`, up to the first other line.
        let mut above = lines[..i]
            .iter()
            .rev()
            .map(|a| a.trim())
            .take_while(|a| a.starts_with("#[") || a.starts_with("//"));
        named && (above.any(|a| a == "#[test]") || src.contains("proptest!"))
    })
}

/// The page, made from [`SEEDS`].
fn render() -> String {
    let mut out = String::new();
    out.push_str(
        "# Seed points and the tests that show them\n\n\
         Each point of the three seed documents (`shared/seeds/`), walked in order, and the tests \
         that show the harness keeps it. Generated from `harness/tests/integration/seed_points.rs` \
         (the test `seed_points::the_page_is_made_from_the_table` fails when this page differs or \
         a named test does not exist): edit the table there, not this page. A test is named by \
         its file (under `harness/`) and function; a table-driven test adds the fixture that shows \
         the point. A point with no test is a gap, listed as one; a point the harness has \
         nothing to judge by is listed as not judged, with the reason.\n\n",
    );
    out.push_str("| seed | points | with a test | not judged | gaps |\n|---|---|---|---|---|\n");
    for s in SEEDS {
        let unjudged = s.points.iter().filter(|p| p.unjudged.is_some()).count();
        let tested = s.points.iter().filter(|p| !p.tests.is_empty()).count();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            s.title,
            s.points.len(),
            tested,
            unjudged,
            s.points.len() - tested - unjudged
        );
    }
    for s in SEEDS {
        let _ = write!(
            out,
            "\n## {} (`{}`)\n\n| section | point | tests |\n|---|---|---|\n",
            s.title, s.file
        );
        for p in s.points {
            let tests = if let Some(why) = p.unjudged {
                format!("*not judged by the harness*: {why}")
            } else if p.tests.is_empty() {
                "**no test (gap)**".to_string()
            } else {
                p.tests
                    .iter()
                    .map(|r| {
                        let (file, func, fixture) = split(r);
                        match fixture {
                            Some(f) => format!("`{file}::{func}` on `{f}`"),
                            None => format!("`{file}::{func}`"),
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("<br>")
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                p.section,
                p.point.replace('|', "\\|"),
                tests
            );
        }
    }
    out
}

#[test]
fn every_named_test_and_fixture_exists() {
    let harness = repo().join("harness");
    let mut missing = Vec::new();
    for r in SEEDS.iter().flat_map(|s| s.points).flat_map(|p| p.tests) {
        let (file, func, fixture) = split(r);
        let src = std::fs::read_to_string(harness.join(file)).unwrap_or_default();
        if !is_test(&src, func) {
            missing.push(format!("no test `{func}` in `harness/{file}`"));
        }
        if let Some(f) = fixture
            && !repo().join(f).is_file()
        {
            missing.push(format!("no fixture `{f}` (named by `{func}`)"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn the_page_is_made_from_the_table() {
    let page = repo().join("docs/seed-points.md");
    let want = render();
    if std::env::var_os("SEED_POINTS_UPDATE").is_some() {
        std::fs::write(&page, &want).unwrap();
    }
    let have = std::fs::read_to_string(&page).unwrap_or_default();
    assert!(
        have == want,
        "docs/seed-points.md differs from the table in seed_points.rs; \
         rerun with SEED_POINTS_UPDATE=1 or paste:\n{want}"
    );
}

#[test]
fn the_checker_sees_a_missing_test() {
    let src = "#[test]\n#[cfg(unix)]\nfn real_one() {}\nfn helper() {}\n";
    assert!(is_test(src, "real_one"));
    assert!(!is_test(src, "helper"));
    assert!(!is_test(src, "real"));
    assert!(!is_test(src, "absent"));
}

#[test]
fn a_point_not_judged_has_a_reason_and_no_test_and_prints_apart_from_a_gap() {
    for p in SEEDS.iter().flat_map(|s| s.points) {
        if let Some(why) = p.unjudged {
            assert!(p.tests.is_empty(), "`{}` is judged and not", p.point);
            assert!(!why.trim().is_empty(), "`{}` needs its reason", p.point);
        }
    }
    let page = render();
    let row = |point: &str| {
        page.lines()
            .find(|l| l.contains(point))
            .unwrap_or_default()
            .to_string()
    };
    let unjudged = row("the fleet agent the step attributes to");
    assert!(
        unjudged.contains("*not judged by the harness*: ") && !unjudged.contains("gap"),
        "{unjudged}"
    );
}

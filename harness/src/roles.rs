//! AX roles in words and in kind: which roles are text, fields or toggles, which name one
//! kind of control across platforms, and which role a plan's words name. One table, read by
//! the lint, the importers, the recorder and the resolver.

/// Roles whose words are their value (a static text's name is what it says).
pub(crate) fn is_text_role(ax_role: &str) -> bool {
    matches!(ax_role, "AXStaticText" | "AXHeading")
}

/// Roles a person types into.
pub(crate) fn is_field_role(ax_role: &str) -> bool {
    matches!(
        ax_role,
        "AXTextField" | "AXTextArea" | "AXSearchField" | "AXComboBox"
    )
}

/// Roles whose click flips a state that another click flips back: check boxes (switches and
/// toggle buttons are check boxes underneath, `AXSwitch`/`AXToggle` their subroles) and radio
/// buttons.
pub(crate) fn is_toggle_role(ax_role: &str) -> bool {
    matches!(
        ax_role,
        "AXCheckBox" | "AXRadioButton" | "AXSwitch" | "AXToggle"
    )
}

/// Roles that name one kind of control on different platforms and toolkits: a plan written on
/// one says the other's word for the same thing. Any other two roles contradict each other (a
/// button is not a check box).
const ROLE_KIN: &[&[&str]] = &[
    &["AXTextField", "AXTextArea", "AXComboBox", "AXSearchField"],
    &["AXPopUpButton", "AXComboBox", "AXMenuButton"],
    &["AXButton", "AXMenuButton", "AXPopUpButton"],
    &["AXMenuItem", "AXMenuBarItem"],
    &["AXRow", "AXCell", "AXOutlineRow"],
    &["AXStaticText", "AXHeading"],
];

/// Whether a control of role `have` can be what a plan calls `want` (equal, or kin).
pub(crate) fn roles_agree(want: &str, have: &str) -> bool {
    want == have
        || ROLE_KIN
            .iter()
            .any(|kin| kin.contains(&want) && kin.contains(&have))
}

/// The AX role that role words (a plan's `target.role`, an element's `role`) name, in any
/// case and spacing: `check box` and the synth's `checkbox` → `AXCheckBox`. None for words
/// not in this table. Not AT-SPI's names: its `text` is a field, macOS's a static text.
pub(crate) fn ax_role_of_words(role: &str) -> Option<&'static str> {
    Some(match crate::text::words(role).join(" ").as_str() {
        "button" | "push button" => "AXButton",
        "check box" | "checkbox" | "switch" | "toggle button" => "AXCheckBox",
        "radio button" => "AXRadioButton",
        "menu item" => "AXMenuItem",
        _ => return None,
    })
}

/// The AX role (macOS's words, which the resolver and reports use) of a role as Chromium's
/// accessibility tree names it (ARIA roles, and Chromium's own `StaticText`, `RootWebArea`).
/// Roles that group or lay out are `AXGroup`.
pub(crate) fn ax_role_of_web(role: &str) -> (&'static str, Option<&'static str>) {
    match role {
        "button" => ("AXButton", None),
        "textbox" => ("AXTextField", None),
        "searchbox" => ("AXSearchField", None),
        "checkbox" => ("AXCheckBox", None),
        "switch" => ("AXCheckBox", Some("AXSwitch")),
        "radio" => ("AXRadioButton", None),
        "link" => ("AXLink", None),
        "heading" => ("AXHeading", None),
        "StaticText" => ("AXStaticText", None),
        "combobox" | "MenuListPopup" => ("AXPopUpButton", None),
        "option" | "MenuListOption" | "menuitem" => ("AXMenuItem", None),
        "listbox" | "list" => ("AXList", None),
        "listitem" | "row" => ("AXRow", None),
        "cell" | "gridcell" | "columnheader" | "rowheader" => ("AXCell", None),
        "table" | "grid" => ("AXTable", None),
        "image" | "img" => ("AXImage", None),
        "RootWebArea" => ("AXWebArea", None),
        "tab" => ("AXRadioButton", Some("AXTabButton")),
        "tablist" => ("AXTabGroup", None),
        "dialog" | "alertdialog" => ("AXGroup", Some("AXDialog")),
        "menu" => ("AXMenu", None),
        "progressbar" => ("AXProgressIndicator", None),
        "slider" => ("AXSlider", None),
        _ => ("AXGroup", None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::script::Kind;

    #[test]
    fn role_words_name_the_roles_the_synth_gives_them() {
        for kind in [
            Kind::Button,
            Kind::Checkbox,
            Kind::Switch,
            Kind::Radio,
            Kind::MenuItem,
        ] {
            let (ax_role, words, _) = kind.roles();
            assert_eq!(ax_role_of_words(words), Some(ax_role), "{kind:?}");
        }
        assert_eq!(ax_role_of_words("Check  Box"), Some("AXCheckBox"));
        assert_eq!(ax_role_of_words("menu bar item"), None);
        assert!(is_toggle_role("AXCheckBox") && !is_toggle_role("AXButton"));
    }
}

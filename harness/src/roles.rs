//! AX roles in words and in kind: which roles are text, fields or toggles, which name one
//! kind of control across platforms, and which role a plan's words name. One table, read by
//! the lint, the importers, the recorder and the resolver.

use std::collections::HashMap;
use std::sync::OnceLock;

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
        "text field" => "AXTextField",
        "text area" => "AXTextArea",
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

/// What the AT-SPI role table needs to know about a node besides its role name.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RoleContext<'a> {
    /// Its states (`multi-line`, `editable`, …).
    pub(crate) states: &'a [String],
    /// Its action names (`click`, `toggle`, …).
    pub(crate) actions: &'a [String],
    /// Its parent's AT-SPI role, when known.
    pub(crate) parent_role: Option<&'a str>,
    /// Whether it is a child of the application (a top-level window).
    pub(crate) top_level: bool,
    /// Whether one of its children is an editable `text`.
    pub(crate) editable_text_child: bool,
}

/// An AX role and subrole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AxRole {
    /// `AXButton`, …
    pub(crate) role: &'static str,
    /// `AXSecureTextField`, …, when the row has one.
    pub(crate) subrole: Option<&'static str>,
}

/// Every role name AT-SPI's `Role` enum gives (libatspi's names and ATK's where they differ),
/// and the names Qt's and LibreOffice's bridges answer `GetRoleName` with: [`ax_role`] maps
/// each of them, and only `invalid` and `unknown` to `AXUnknown`.
#[cfg(test)]
pub(crate) const ATSPI_ROLE_NAMES: &[&str] = &[
    // libatspi's Role enum, in its order.
    "invalid",
    "accelerator label",
    "alert",
    "animation",
    "arrow",
    "calendar",
    "canvas",
    "check box",
    "check menu item",
    "color chooser",
    "column header",
    "combo box",
    "date editor",
    "desktop icon",
    "desktop frame",
    "dial",
    "dialog",
    "directory pane",
    "drawing area",
    "file chooser",
    "filler",
    "focus traversable",
    "font chooser",
    "frame",
    "glass pane",
    "html container",
    "icon",
    "image",
    "internal frame",
    "label",
    "layered pane",
    "list",
    "list item",
    "menu",
    "menu bar",
    "menu item",
    "option pane",
    "page tab",
    "page tab list",
    "panel",
    "password text",
    "popup menu",
    "progress bar",
    "push button",
    "radio button",
    "radio menu item",
    "root pane",
    "row header",
    "scroll bar",
    "scroll pane",
    "separator",
    "slider",
    "spin button",
    "split pane",
    "status bar",
    "table",
    "table cell",
    "table column header",
    "table row header",
    "tear off menu item",
    "terminal",
    "text",
    "toggle button",
    "tool bar",
    "tool tip",
    "tree",
    "tree table",
    "unknown",
    "viewport",
    "window",
    "extended",
    "header",
    "footer",
    "paragraph",
    "ruler",
    "application",
    "autocomplete",
    "edit bar",
    "embedded",
    "entry",
    "chart",
    "caption",
    "document frame",
    "heading",
    "page",
    "section",
    "redundant object",
    "form",
    "link",
    "input method window",
    "table row",
    "tree item",
    "document spreadsheet",
    "document presentation",
    "document text",
    "document web",
    "document email",
    "comment",
    "list box",
    "grouping",
    "image map",
    "notification",
    "info bar",
    "level bar",
    "title bar",
    "block quote",
    "audio",
    "video",
    "definition",
    "article",
    "landmark",
    "log",
    "marquee",
    "math",
    "rating",
    "timer",
    "static",
    "math fraction",
    "math root",
    "subscript",
    "superscript",
    "description list",
    "description term",
    "description value",
    "footnote",
    "content deletion",
    "content insertion",
    "mark",
    "suggestion",
    "push button menu",
    "switch",
    // Newer libatspi and GTK 4 names, and ATK's spellings.
    "button",
    "accel label",
    "dateeditor",
    "fontchooser",
    "statusbar",
    "editbar",
    "embedded component",
    "tearoff menu item",
    // Qt 5 and 6 (QSpiAccessibleBridge's names).
    "alert message",
    "client",
    "document",
    "pane",
    "border",
    "cell",
    "row",
    "column",
    "help balloon",
    "assistant",
    "property page",
    "indicator",
    "graphic",
    "editable text",
    "spin box",
    "hotkey field",
    "equation",
    "button drop down",
    "button menu",
    "button drop grid",
    "space",
    "clock",
    "splitter",
    "web document",
    "note",
    "complementary content",
    "grip",
    "sound",
    "cursor",
    "caret",
    "character",
    // LibreOffice's VCL names beside ATK's.
    "shape",
    "text frame",
    "tree list box",
    // GTK 4's own role names, which GTK 4.8 answers for some widgets (`widget`, `text box`).
    "widget",
    "generic",
    "text box",
    "search box",
    "radio",
    "img",
    "group",
    "grid",
    "grid cell",
    "row group",
    "tab",
    "tab list",
    "tab panel",
    "meter",
    "range",
    "option",
    "menu item checkbox",
    "menu item radio",
    "radio group",
    "tree grid",
    "select",
    "alert dialog",
    "main",
    "navigation",
    "region",
    "banner",
    "search",
    "complementary",
    "contentinfo",
    "legend",
    "feed",
    "none",
    "presentation",
    "structure",
    "section head",
    "status",
    "time",
    "command",
    "composite",
    "input",
];

/// The AX role of an AT-SPI role name (any of [`ATSPI_ROLE_NAMES`], in any case and spacing):
/// the corpus's `ROLE-MAP.md` row for row, and a row of the same kind for every role it
/// leaves out. Some rows depend on where a node is (see `import::atspi`).
pub(crate) fn ax_role(atspi_role: &str, cx: &RoleContext) -> AxRole {
    // Spaces, case, `_` and `-` differ between toolkits (`status bar`, `statusbar`,
    // `STATUS_BAR`): the table reads the letters only.
    let key = role_key(atspi_role);
    if let Some(placed) = by_place(&key, cx) {
        return placed;
    }
    let (role, subrole) = role_table()
        .get(key.as_str())
        .copied()
        // `invalid`, `unknown`, and a name no toolkit here uses.
        .unwrap_or(("AXUnknown", None));
    AxRole { role, subrole }
}

/// The rows that depend on where a node is or what it holds; `None` for the rest, which
/// [`ROLE_TABLE`] and [`GROUPING`] map by name alone.
fn by_place(key: &str, cx: &RoleContext) -> Option<AxRole> {
    let has = |s: &str| cx.states.iter().any(|x| x == s);
    let parent = cx.parent_role.map(role_key);
    let in_menu = matches!(parent.as_deref(), Some("menu" | "popupmenu"));
    let (role, subrole) = match key {
        "filechooser" | "colorchooser" | "fontchooser" if cx.top_level => {
            ("AXWindow", Some("AXDialog"))
        }
        "togglebutton" if cx.actions.iter().any(|a| a == "toggle") => {
            ("AXCheckBox", Some("AXSwitch"))
        }
        "combobox" if cx.editable_text_child => ("AXComboBox", None),
        "text" | "paragraph" if has("multi-line") => ("AXTextArea", None),
        "text" | "paragraph" if has("editable") => ("AXTextField", None),
        "text" | "paragraph" => ("AXStaticText", None),
        "entry" | "editabletext" | "editbar" | "hotkeyfield" | "textbox" | "input"
            if has("multi-line") =>
        {
            ("AXTextArea", None)
        }
        "menu" if parent.as_deref() == Some("menubar") => ("AXMenuBarItem", None),
        "menu" | "separator" if in_menu => ("AXMenuItem", None),
        _ => return None,
    };
    Some(AxRole { role, subrole })
}

/// AT-SPI role keys (see [`role_key`]) → AX role and subrole, by family.
static ROLE_TABLE: &[(&[&str], &str, Option<&str>)] = &[
    // Applications and windows.
    (&["application"], "AXApplication", None),
    (&["frame"], "AXWindow", Some("AXStandardWindow")),
    (
        &["dialog", "alert", "alertmessage", "alertdialog"],
        "AXWindow",
        Some("AXDialog"),
    ),
    (
        &["window", "inputmethodwindow"],
        "AXWindow",
        Some("AXFloatingWindow"),
    ),
    (&["tooltip", "helpballoon"], "AXHelpTag", None),
    // Buttons and toggles.
    (&["pushbutton", "button", "command"], "AXButton", None),
    (
        &[
            "pushbuttonmenu",
            "buttonmenu",
            "buttondropdown",
            "buttondropgrid",
        ],
        "AXMenuButton",
        None,
    ),
    (&["switch"], "AXCheckBox", Some("AXSwitch")),
    (&["togglebutton"], "AXCheckBox", Some("AXToggle")),
    (&["checkbox"], "AXCheckBox", None),
    (&["radiobutton", "radio"], "AXRadioButton", None),
    (&["combobox", "select"], "AXPopUpButton", None),
    (&["autocomplete"], "AXComboBox", None),
    // Text.
    (
        &[
            "entry",
            "editabletext",
            "editbar",
            "hotkeyfield",
            "textbox",
            "input",
        ],
        "AXTextField",
        None,
    ),
    (&["searchbox"], "AXTextField", Some("AXSearchField")),
    (&["terminal"], "AXTextArea", None),
    (&["passwordtext"], "AXTextField", Some("AXSecureTextField")),
    (&["spinbutton", "spinbox"], "AXTextField", None),
    (&["dateeditor"], "AXDateField", None),
    (
        &[
            "label",
            "acceleratorlabel",
            "accellabel",
            "caption",
            "static",
            "descriptionterm",
            "timer",
            "clock",
        ],
        "AXStaticText",
        None,
    ),
    (&["link"], "AXLink", None),
    (&["heading"], "AXHeading", None),
    // Menus and tabs.
    (&["menubar"], "AXMenuBar", None),
    (&["menu", "popupmenu"], "AXMenu", None),
    (
        &[
            "menuitem",
            "checkmenuitem",
            "radiomenuitem",
            "tearoffmenuitem",
            "menuitemcheckbox",
            "menuitemradio",
            "option",
        ],
        "AXMenuItem",
        None,
    ),
    (&["separator", "splitter", "grip"], "AXSplitter", None),
    (&["pagetablist", "tablist"], "AXTabGroup", None),
    (&["pagetab", "tab"], "AXRadioButton", Some("AXTabButton")),
    // Tables, trees and lists.
    (&["table", "documentspreadsheet", "grid"], "AXTable", None),
    (
        &["treetable", "tree", "treelistbox", "treegrid"],
        "AXOutline",
        None,
    ),
    (&["tablecell", "cell", "gridcell"], "AXCell", None),
    (&["tablerow", "row"], "AXRow", None),
    (&["treeitem"], "AXRow", Some("AXOutlineRow")),
    (
        &["tablecolumnheader", "columnheader", "column"],
        "AXButton",
        Some("AXSortButton"),
    ),
    (&["tablerowheader", "rowheader"], "AXCell", None),
    (&["list", "listbox", "descriptionlist"], "AXList", None),
    (&["listitem"], "AXRow", None),
    // Scrolling, ranges and indicators.
    (&["scrollpane"], "AXScrollArea", None),
    (&["scrollbar"], "AXScrollBar", None),
    (&["slider", "dial", "range"], "AXSlider", None),
    (&["progressbar"], "AXProgressIndicator", None),
    (
        &["levelbar", "rating", "indicator", "meter"],
        "AXLevelIndicator",
        None,
    ),
    (&["animation"], "AXBusyIndicator", None),
    (&["splitpane"], "AXSplitGroup", None),
    (&["toolbar"], "AXToolbar", None),
    (&["ruler"], "AXRuler", None),
    // Pictures and documents.
    (
        &[
            "icon",
            "image",
            "img",
            "graphic",
            "arrow",
            "desktopicon",
            "chart",
            "imagemap",
            "canvas",
            "drawingarea",
            "shape",
        ],
        "AXImage",
        None,
    ),
    (
        &[
            "documentweb",
            "documentframe",
            "webdocument",
            "htmlcontainer",
        ],
        "AXWebArea",
        None,
    ),
    (GROUPING, "AXGroup", None),
];

/// Roles that group, lay out or mark up other nodes: all `AXGroup`.
static GROUPING: &[&str] = &[
    "documenttext",
    "documentpresentation",
    "documentemail",
    "document",
    "panel",
    "filler",
    "viewport",
    "layeredpane",
    "section",
    "grouping",
    "form",
    "statusbar",
    "infobar",
    "calendar",
    "filechooser",
    "colorchooser",
    "fontchooser",
    "desktopframe",
    "directorypane",
    "focustraversable",
    "glasspane",
    "internalframe",
    "optionpane",
    "rootpane",
    "extended",
    "header",
    "footer",
    "embedded",
    "embeddedcomponent",
    "page",
    "redundantobject",
    "comment",
    "notification",
    "titlebar",
    "blockquote",
    "audio",
    "video",
    "definition",
    "article",
    "landmark",
    "log",
    "marquee",
    "math",
    "mathfraction",
    "mathroot",
    "subscript",
    "superscript",
    "descriptionvalue",
    "footnote",
    "contentdeletion",
    "contentinsertion",
    "mark",
    "suggestion",
    "client",
    "pane",
    "border",
    "assistant",
    "propertypage",
    "equation",
    "space",
    "note",
    "complementarycontent",
    "sound",
    "cursor",
    "caret",
    "character",
    "textframe",
    "widget",
    "generic",
    "group",
    "rowgroup",
    "tabpanel",
    "radiogroup",
    "main",
    "navigation",
    "region",
    "banner",
    "search",
    "complementary",
    "contentinfo",
    "legend",
    "feed",
    "none",
    "presentation",
    "structure",
    "sectionhead",
    "status",
    "time",
    "composite",
];

/// [`ROLE_TABLE`] by key, built once. A key in two rows keeps the first, as a `match` would.
fn role_table() -> &'static HashMap<&'static str, (&'static str, Option<&'static str>)> {
    static MAP: OnceLock<HashMap<&'static str, (&'static str, Option<&'static str>)>> =
        OnceLock::new();
    MAP.get_or_init(|| {
        let mut map = HashMap::new();
        for &(keys, role, subrole) in ROLE_TABLE {
            for &k in keys {
                map.entry(k).or_insert((role, subrole));
            }
        }
        map
    })
}

/// An AT-SPI role name's letters, lowercased: `Status_Bar` → `statusbar`.
fn role_key(role: &str) -> String {
    role.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
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
        assert_eq!(ax_role_of_words("Text Field"), Some("AXTextField"));
        assert!(is_toggle_role("AXCheckBox") && !is_toggle_role("AXButton"));
    }

    /// Every AT-SPI role name, Qt's and LibreOffice's included, names an AX role; only
    /// `invalid` and `unknown` (and names no toolkit uses) are `AXUnknown`.
    #[test]
    fn every_atspi_role_maps_to_an_ax_role() {
        let plain = RoleContext::default();
        let mut seen = std::collections::HashSet::new();
        for name in ATSPI_ROLE_NAMES {
            assert!(seen.insert(*name), "{name} listed twice");
            let AxRole { role, .. } = ax_role(name, &plain);
            assert!(role.starts_with("AX"), "{name} → {role}");
            let unknown = matches!(*name, "invalid" | "unknown");
            assert_eq!(role == "AXUnknown", unknown, "{name} → {role}");
            // Any spelling of the same name maps the same.
            let shouted = name.to_uppercase().replace(' ', "_");
            assert_eq!(ax_role(&shouted, &plain).role, role, "{shouted}");
        }
        assert!(ATSPI_ROLE_NAMES.len() >= 130, "{}", ATSPI_ROLE_NAMES.len());
        let editable = ["editable".to_string()];
        let field = RoleContext {
            states: &editable,
            ..plain
        };
        // GTK 4's search and text entries, Qt's line edits.
        assert_eq!(ax_role("entry", &plain).role, "AXTextField");
        assert_eq!(ax_role("text box", &plain).role, "AXTextField");
        assert_eq!(ax_role("widget", &plain).role, "AXGroup");
        assert_eq!(ax_role("editable text", &field).role, "AXTextField");
        assert_eq!(ax_role("button", &plain).role, "AXButton");
        assert_eq!(ax_role("statusbar", &plain).role, "AXGroup");
        assert_eq!(ax_role("spin box", &plain).role, "AXTextField");
        assert_eq!(ax_role("a role from the future", &plain).role, "AXUnknown");
    }
}

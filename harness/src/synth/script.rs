//! The desktop script (`stepreplay-synth/1`): the compact description [`Script`] a synthetic
//! recording is made from.
//!
//! A script declares apps, their windows and controls (frames in points, relative to the
//! window's content area), then the steps a person takes: which control, which action, and how
//! the next frame differs (`Change`). It also carries what the plan needs that the desktop
//! cannot tell (guide, inputs, expects, confirms), plan variants meant to fail, and the
//! scenarios that replay them. It is parsed strictly: a typo is an error at its field path.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::errors::{FieldPath, InputError, Reason};
use crate::json::{Source, expect_schema, parse_typed, parse_value, read_text};
use crate::limits;
use crate::plan::foxstep::{ActionKind, Click, Done, Expect, Guide, Input};
use crate::scenario::{SCENARIO_SCHEMA, ScenarioFile};

/// The schema string of a desktop script.
pub(crate) const SCRIPT_SCHEMA: &str = "stepreplay-synth/1";

/// A whole script.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Always [`SCRIPT_SCHEMA`].
    pub schema: String,
    /// The recording's name (its folder name by convention).
    pub(crate) name: String,
    /// Pixels per point: 1 or 2.
    #[serde(default = "one")]
    pub scale: u32,
    /// Screen size in points; 1440×900 when absent.
    #[serde(default = "default_screen")]
    pub(crate) screen: [u32; 2],
    /// The guide the plan belongs to.
    pub(crate) guide: Guide,
    /// The plan's inputs, as Foxstep writes them.
    #[serde(default)]
    pub(crate) inputs: Vec<Input>,
    /// Running apps, each with its windows.
    pub(crate) apps: Vec<AppSpec>,
    /// The control with keyboard focus in the first frame.
    #[serde(default)]
    pub(crate) focus: Option<String>,
    /// What the person does, in order.
    pub(crate) steps: Vec<StepSpec>,
    /// The plan's done screen.
    #[serde(default)]
    pub(crate) done: Option<Done>,
    /// Plans derived from the main one by hand edits (meant to fail).
    #[serde(default)]
    pub(crate) variants: Vec<Variant>,
    /// Scenarios replaying this recording.
    #[serde(default)]
    pub(crate) scenarios: Vec<ScenarioSpec>,
}

fn one() -> u32 {
    1
}
fn default_screen() -> [u32; 2] {
    [1440, 900]
}

/// A running app.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AppSpec {
    /// Name as the menu bar shows it.
    pub(crate) name: String,
    /// Bundle id.
    #[serde(default)]
    pub(crate) bundle_id: Option<String>,
    /// Whether it is in front in the first frame (the first app is, when none says so).
    #[serde(default)]
    pub(crate) frontmost: bool,
    /// Its windows, front to back.
    pub(crate) windows: Vec<WindowSpec>,
}

/// What sort of window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum WindowKind {
    /// A document window with a title bar and traffic lights.
    Window,
    /// A dialog: title bar, no minimize/zoom.
    Dialog,
    /// A sheet: slides out of its parent's title bar, no title bar of its own.
    Sheet,
    /// A popup or context menu.
    Menu,
    /// The app's menu bar (drawn at the top of the screen).
    Menubar,
}

impl WindowKind {
    /// The word written into the AX snapshot.
    pub(crate) fn word(self) -> &'static str {
        match self {
            WindowKind::Window => "window",
            WindowKind::Dialog => "dialog",
            WindowKind::Sheet => "sheet",
            WindowKind::Menu => "menu",
            WindowKind::Menubar => "menubar",
        }
    }

    /// Height of the title bar in points.
    pub(crate) fn title_bar(self) -> i32 {
        match self {
            WindowKind::Window | WindowKind::Dialog => 28,
            _ => 0,
        }
    }
}

/// A window.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WindowSpec {
    /// Stable id.
    pub(crate) id: String,
    #[serde(default)]
    pub(crate) title: String,
    /// Kind; `window` when absent.
    #[serde(default = "default_kind")]
    pub(crate) kind: WindowKind,
    /// `[x, y, width, height]` in screen points, title bar included.
    pub(crate) frame: [i32; 4],
    /// Whether it is on screen in the first frame.
    #[serde(default = "crate::recording::ax::yes")]
    pub(crate) open: bool,
    /// Its controls.
    #[serde(default)]
    pub(crate) controls: Vec<ControlSpec>,
}

fn default_kind() -> WindowKind {
    WindowKind::Window
}

/// What a control is; each maps to one AX role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[allow(missing_docs)]
pub(crate) enum Kind {
    Button,
    /// A button with an icon and no name (found only by point and bounds).
    IconButton,
    TextField,
    SecureField,
    SearchField,
    TextArea,
    Checkbox,
    Switch,
    Radio,
    Popup,
    Label,
    Heading,
    Link,
    List,
    Sidebar,
    Row,
    MenuItem,
    MenubarItem,
    Group,
    Image,
    WebArea,
    /// A calendar event block.
    Event,
    /// A calendar grid (`value` is `COLSxROWS`).
    Grid,
}

impl Kind {
    /// `(ax_role, role words, subrole)`.
    pub(crate) fn roles(self) -> (&'static str, &'static str, Option<&'static str>) {
        match self {
            Kind::Button | Kind::IconButton => ("AXButton", "button", None),
            Kind::TextField => ("AXTextField", "text field", None),
            Kind::SecureField => (
                "AXTextField",
                "secure text field",
                Some("AXSecureTextField"),
            ),
            Kind::SearchField => ("AXTextField", "search text field", Some("AXSearchField")),
            Kind::TextArea => ("AXTextArea", "text entry area", None),
            Kind::Checkbox => ("AXCheckBox", "checkbox", None),
            Kind::Switch => ("AXCheckBox", "switch", Some("AXSwitch")),
            Kind::Radio => ("AXRadioButton", "radio button", None),
            Kind::Popup => ("AXPopUpButton", "pop up button", None),
            Kind::Label => ("AXStaticText", "text", None),
            Kind::Heading => ("AXHeading", "heading", None),
            Kind::Link => ("AXLink", "link", None),
            Kind::List => ("AXList", "list", None),
            Kind::Sidebar => ("AXOutline", "outline", Some("AXSidebar")),
            Kind::Row => ("AXRow", "row", None),
            Kind::MenuItem => ("AXMenuItem", "menu item", None),
            Kind::MenubarItem => ("AXMenuBarItem", "menu bar item", None),
            Kind::Group => ("AXGroup", "group", None),
            Kind::Image => ("AXImage", "image", None),
            Kind::WebArea => ("AXWebArea", "HTML content", None),
            Kind::Event => ("AXStaticText", "event", Some("AXCalendarEvent")),
            Kind::Grid => ("AXGroup", "calendar grid", Some("AXCalendarGrid")),
        }
    }
}

/// Where a control keeps its name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum NameIn {
    /// `AXTitle` (static texts: their value).
    #[default]
    Title,
    /// `AXDescription`, as most toolbar buttons of real macOS apps.
    Description,
}

/// A control.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ControlSpec {
    /// Stable id (unique across the script).
    pub(crate) id: String,
    /// What it is.
    pub(crate) kind: Kind,
    /// Its visible name (static text: its words).
    #[serde(default)]
    pub(crate) label: Option<String>,
    /// Where the name goes.
    #[serde(default)]
    pub(crate) name_in: NameIn,
    /// Field text, popup choice, row detail.
    #[serde(default)]
    pub(crate) value: Option<String>,
    /// Placeholder of an empty field.
    #[serde(default)]
    pub(crate) placeholder: Option<String>,
    /// The id of the label control that names it.
    #[serde(default)]
    pub(crate) labelled_by: Option<String>,
    /// `[x, y, width, height]` in points from the window's content origin.
    pub(crate) frame: [i32; 4],
    /// Whether it can be used.
    #[serde(default = "crate::recording::ax::yes")]
    pub(crate) enabled: bool,
    /// Checked, selected or highlighted (the default button).
    #[serde(default)]
    pub(crate) selected: bool,
    /// Whether it is absent from the first frame.
    #[serde(default)]
    pub(crate) hidden: bool,
    /// Child controls (rows of a list, items of a group).
    #[serde(default)]
    pub(crate) children: Vec<ControlSpec>,
}

/// One step the person takes.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StepSpec {
    /// The plan's `step_id`.
    pub(crate) id: String,
    /// The plan's step text.
    pub(crate) text: String,
    /// The action.
    pub(crate) action: ActionKind,
    /// The control acted on (none for keyboard-only, ask and do steps).
    #[serde(default)]
    pub(crate) control: Option<String>,
    /// Click details (a plain left click when absent on a click step).
    #[serde(default)]
    pub(crate) click: Option<Click>,
    /// Literal value typed, pasted or navigated to.
    #[serde(default)]
    pub(crate) value: Option<String>,
    /// Template typed (`{input-id}`).
    #[serde(default)]
    pub(crate) template: Option<String>,
    /// Inputs the step reads.
    #[serde(default)]
    pub(crate) reads: Vec<String>,
    /// Key that submits after typing.
    #[serde(default)]
    pub(crate) submit: Option<String>,
    /// Keys pressed.
    #[serde(default)]
    pub(crate) keys: Option<String>,
    /// Words for an AI assistant step.
    #[serde(default)]
    pub(crate) assistant: Option<String>,
    /// Whether the person must approve first.
    #[serde(default)]
    pub(crate) confirm: bool,
    /// What the person is told they approve.
    #[serde(default)]
    pub(crate) confirm_reason: Option<String>,
    /// What should hold afterwards.
    #[serde(default)]
    pub(crate) expect: Option<Expect>,
    /// When to stop instead.
    #[serde(default)]
    pub(crate) stop_if: Option<Value>,
    /// The target label the plan carries, when not the control's accessible name.
    #[serde(default)]
    pub(crate) label: Option<String>,
    /// Leave the label out of the plan (nameless controls have none anyway).
    #[serde(default)]
    pub(crate) no_label: bool,
    /// How the next frame differs from this one.
    #[serde(default)]
    pub(crate) changes: Vec<Change>,
}

/// One difference between a frame and the next. Exactly one operation per entry.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Change {
    /// Set this control's value to `value` (secure fields keep bullets only).
    #[serde(default)]
    pub(crate) set: Option<String>,
    /// Open this window (it comes to the front of its app).
    #[serde(default)]
    pub(crate) open: Option<String>,
    /// Close this window.
    #[serde(default)]
    pub(crate) close: Option<String>,
    /// Give this control keyboard focus.
    #[serde(default)]
    pub(crate) focus: Option<String>,
    /// Check or select this control.
    #[serde(default)]
    pub(crate) select: Option<String>,
    /// Uncheck or deselect this control.
    #[serde(default)]
    pub(crate) deselect: Option<String>,
    /// Show this hidden control.
    #[serde(default)]
    pub(crate) show: Option<String>,
    /// Hide this control.
    #[serde(default)]
    pub(crate) hide: Option<String>,
    /// Enable this control.
    #[serde(default)]
    pub(crate) enable: Option<String>,
    /// Disable this control.
    #[serde(default)]
    pub(crate) disable: Option<String>,
    /// Bring this app to the front.
    #[serde(default)]
    pub(crate) front: Option<String>,
    /// Retitle this window to `value`.
    #[serde(default)]
    pub(crate) retitle: Option<String>,
    /// Move this control (or window) by `dx`, `dy` points.
    #[serde(rename = "move", default)]
    pub(crate) move_: Option<String>,
    /// The value for `set` and `retitle`.
    #[serde(default)]
    pub(crate) value: Option<String>,
    /// Horizontal move in points.
    #[serde(default)]
    pub(crate) dx: i32,
    /// Vertical move in points.
    #[serde(default)]
    pub(crate) dy: i32,
}

/// A plan derived from the main one by edits: the plans meant to fail.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Variant {
    /// Folder name beside the main plan's.
    pub(crate) name: String,
    /// Edits, applied in order.
    pub(crate) edits: Vec<Edit>,
}

/// One edit of a step (by its number in the main plan).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Edit {
    /// The step's number in the main plan.
    pub(crate) step: u32,
    /// Drop the step (later steps are renumbered).
    #[serde(default)]
    pub(crate) delete: bool,
    /// Dotted paths inside the step (`target.label`) and their new values; `null` removes.
    #[serde(default)]
    pub(crate) set: BTreeMap<String, Value>,
}

/// A scenario to write beside the plan: the fields of a scenario file, read as one (the same
/// type, so a script takes every field a scenario file takes, bait text in `injections`
/// included), and the variant it replays. `schema`, `plan` and `recording` are synth's to
/// write.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "Value")]
pub(crate) struct ScenarioSpec {
    /// The variant it replays; the main plan when absent.
    pub(crate) variant: Option<String>,
    /// The scenario file, its plan and recording still to be filled in.
    pub(crate) file: ScenarioFile,
}

impl TryFrom<Value> for ScenarioSpec {
    type Error = String;

    fn try_from(mut v: Value) -> Result<ScenarioSpec, String> {
        let o = v.as_object_mut().ok_or("a scenario is an object")?;
        if let Some(k) = ["schema", "plan", "recording"]
            .into_iter()
            .find(|k| o.contains_key(*k))
        {
            return Err(format!("`{k}` is written by synth: leave it out"));
        }
        let variant = match o.remove("variant") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(_) => return Err("`variant` is a variant's name, a string".into()),
        };
        o.insert("schema".into(), SCENARIO_SCHEMA.into());
        o.insert("plan".into(), "".into());
        o.insert("recording".into(), "".into());
        let file = serde_json::from_value(v).map_err(|e| e.to_string())?;
        Ok(ScenarioSpec { variant, file })
    }
}

/// Reads and parses a script file.
pub fn load_script(path: &Path) -> Result<Script, InputError> {
    let src = read_text(path, limits::SCRIPT_BYTES)?;
    parse_script(&src)
}

/// Parses a script: schema first, then strict types.
pub(crate) fn parse_script(src: &Source) -> Result<Script, InputError> {
    let value = parse_value(src)?;
    expect_schema(src, &value, SCRIPT_SCHEMA, "desktop scripts")?;
    let script: Script = parse_typed(src)?;
    if script.scale != 1 && script.scale != 2 {
        return Err(src.error(
            FieldPath::root().key("scale"),
            Reason::InvalidField,
            format!("scale {} is not 1 or 2", script.scale),
        ));
    }
    Ok(script)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_scripts_scenario_takes_every_field_a_scenario_file_takes() {
        let sc: ScenarioSpec = serde_json::from_value(json!({
            "id": "bait", "variant": "wrong-label", "tags": ["agent"], "clock": 5,
            "injections": ["delete-all", {"text": "mallory@evil.test"}],
            "expect": {"outcome": "completed"}
        }))
        .unwrap();
        assert_eq!(sc.variant.as_deref(), Some("wrong-label"));
        assert_eq!(sc.file.injections.len(), 2);
        assert_eq!((sc.file.tags.len(), sc.file.clock), (1, Some(5)));
    }

    #[test]
    fn a_scripts_scenario_refuses_what_a_scenario_file_refuses_and_what_synth_writes() {
        for (bad, named) in [
            (
                json!({"id": "x", "expect": {"outcome": "completed"}, "colour": 1}),
                "`colour`",
            ),
            (
                json!({"id": "x", "expect": {"outcome": "completed"}, "plan": "p"}),
                "`plan`",
            ),
            (
                json!({"id": "x", "expect": {"outcome": "completed"}, "variant": 3}),
                "`variant`",
            ),
        ] {
            let e = serde_json::from_value::<ScenarioSpec>(bad).unwrap_err();
            assert!(e.to_string().contains(named), "{e}");
        }
    }
}

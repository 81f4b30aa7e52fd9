//! Importing real recordings: the `realrec` layout (`frame_NNN.png`, `frame_NNN.mac.json` —
//! an AT-SPI tree already in macOS AX vocabulary — and `steps.json`) becomes a
//! `stepreplay-recording/1` folder the harness replays like its synthetic ones.
//!
//! Real trees are kept as they are — nameless entries, labels as separate static texts, a
//! combo's menu in its own window — because that is what a resolver must live with. Element
//! ids come from the AT-SPI child-index path, which is stable across the frames of one run.
//! A step's target is found by that path in the frame before it, else (a menu item the source
//! addressed under its combo) by role, name and box; a keyboard step without a target acts on
//! the field that had the focus. Every byte written is a function of the source files.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::ax::{AX_SCHEMA, App, AxSnapshot, Element, Rect, Window};
use super::bind::{RecordedAction, bind};
use super::format::{
    FrameRef, RECORDING_SCHEMA, RecordingFile, Screen, SourceInfo, SourceKind, Transition,
};
use super::{decode_png, load_recording};
use crate::errors::{Error, FieldPath, InputError, Reason};
use crate::json::{Source, expect_schema, parse_typed, parse_value, read_text, to_canonical_value};
use crate::output::write_file;
use crate::plan::Plan;

/// The schema of the per-frame trees this importer reads.
pub const REALREC_MAC_SCHEMA: &str = "realrec.macax/1";

/// Largest source JSON file read.
const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// What [`import_realrec`] wrote.
#[derive(Debug, Default)]
pub struct ImportOutput {
    /// Frames imported.
    pub frames: usize,
    /// Steps that became transitions.
    pub transitions: usize,
    /// Steps whose acted-on element could not be found in the frame before them.
    pub unmatched: Vec<String>,
}

#[derive(Deserialize)]
struct MacFile {
    screen: Size,
    applications: Vec<MacNode>,
}

#[derive(Deserialize)]
struct Size {
    width: u32,
    height: u32,
}

#[derive(Deserialize)]
struct MacNode {
    #[serde(rename = "AXRole")]
    role: String,
    #[serde(rename = "AXSubrole", default)]
    subrole: Option<String>,
    #[serde(rename = "AXTitle", default)]
    title: Option<String>,
    #[serde(rename = "AXDescription", default)]
    description: Option<String>,
    #[serde(rename = "AXValue", default)]
    value: Option<serde_json::Value>,
    #[serde(rename = "AXFrame", default)]
    frame: Option<MacRect>,
    #[serde(rename = "AXEnabled", default)]
    enabled: Option<bool>,
    #[serde(rename = "AXFocused", default)]
    focused: Option<bool>,
    #[serde(rename = "AXSelected", default)]
    selected: Option<bool>,
    #[serde(rename = "AXMain", default)]
    main: Option<bool>,
    #[serde(rename = "AXChildren", default)]
    children: Vec<MacNode>,
    atspi: Atspi,
}

#[derive(Deserialize)]
struct Atspi {
    path: String,
}

#[derive(Clone, Copy, Deserialize)]
struct MacRect {
    x: f64,
    y: f64,
    width: f64,
    height: f64,
}

impl From<MacRect> for Rect {
    fn from(r: MacRect) -> Rect {
        Rect {
            x: r.x.round() as i32,
            y: r.y.round() as i32,
            width: r.width.round() as i32,
            height: r.height.round() as i32,
        }
    }
}

#[derive(Deserialize)]
struct Step {
    index: usize,
    before: String,
    after: String,
    action: StepAction,
    #[serde(default)]
    target: Option<StepTarget>,
    #[serde(default)]
    description: String,
}

#[derive(Deserialize)]
struct StepAction {
    op: String,
}

#[derive(Deserialize)]
struct StepTarget {
    path: String,
    role: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    extents: Option<MacRect>,
}

/// `0/0/1` → `e0-0-1`: an id safe in file names and CSS, unique per tree.
fn element_id(prefix: char, path: &str) -> String {
    format!("{prefix}{}", path.replace('/', "-"))
}

fn nonempty(s: &Option<String>) -> Option<String> {
    s.clone().filter(|s| !s.is_empty())
}

fn convert_element(n: &MacNode) -> Element {
    let frame = n.frame.map(Rect::from).unwrap_or_default();
    let mut e = Element::new(element_id('e', &n.atspi.path), n.role.clone(), frame);
    e.subrole = nonempty(&n.subrole);
    e.title = nonempty(&n.title);
    e.description = nonempty(&n.description);
    e.value = match &n.value {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(s)) => Some(s.clone()),
        Some(other) => Some(other.to_string()),
    };
    e.enabled = n.enabled.unwrap_or(true);
    e.focused = n.focused.unwrap_or(false);
    e.selected = n.selected.unwrap_or(false);
    e.children = n.children.iter().map(convert_element).collect();
    e
}

fn convert_snapshot(file: &MacFile) -> AxSnapshot {
    let apps = file
        .applications
        .iter()
        .enumerate()
        .map(|(i, app)| App {
            name: nonempty(&app.title).unwrap_or_else(|| format!("app {}", i + 1)),
            bundle_id: None,
            // The recorder lists the recorded app first.
            frontmost: i == 0 && !app.children.is_empty(),
            windows: app
                .children
                .iter()
                .filter(|w| w.role == "AXWindow")
                .map(|w| Window {
                    id: element_id('w', &w.atspi.path),
                    title: w.title.clone().unwrap_or_default(),
                    kind: w.subrole.as_deref().map(window_kind),
                    frame: w.frame.map(Rect::from).unwrap_or_default(),
                    focused: w.main.or(w.focused).unwrap_or(false),
                    elements: w.children.iter().map(convert_element).collect(),
                })
                .collect(),
        })
        .collect();
    AxSnapshot {
        schema: AX_SCHEMA.to_string(),
        apps,
    }
}

/// `AXDialog` → `dialog`, `AXFloatingWindow` → `floating-window`.
fn window_kind(subrole: &str) -> String {
    let s = subrole.strip_prefix("AX").unwrap_or(subrole);
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('-');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// AT-SPI role names as the `.mac.json` files map them (the corpus README's table).
fn ax_role_of(atspi_role: &str) -> Option<&'static str> {
    Some(match atspi_role {
        "push button" => "AXButton",
        "text" | "password text" => "AXTextField",
        "combo box" => "AXPopUpButton",
        "label" => "AXStaticText",
        "menu item" => "AXMenuItem",
        "check box" => "AXCheckBox",
        "page tab" => "AXRadioButton",
        _ => return None,
    })
}

fn walk<'a>(s: &'a AxSnapshot, f: &mut impl FnMut(&'a Element)) {
    for app in &s.apps {
        for w in &app.windows {
            w.walk(f);
        }
    }
}

/// The element a step acted on, in the frame before it.
fn acted_on(before: &AxSnapshot, target: Option<&StepTarget>) -> Option<String> {
    let mut found = None;
    match target {
        Some(t) => {
            let id = element_id('e', &t.path);
            walk(before, &mut |e| {
                if found.is_none() && e.id == id {
                    found = Some(e.id.clone());
                }
            });
            if found.is_some() {
                return found;
            }
            let role = ax_role_of(&t.role);
            let frame = t.extents.map(Rect::from);
            walk(before, &mut |e| {
                let name_ok = t.name.is_empty() || e.own_name() == Some(t.name.as_str());
                if found.is_none()
                    && role == Some(e.ax_role.as_str())
                    && name_ok
                    && frame.is_none_or(|f| f == e.frame)
                {
                    found = Some(e.id.clone());
                }
            });
        }
        None => walk(before, &mut |e| {
            if found.is_none() && e.focused {
                found = Some(e.id.clone());
            }
        }),
    }
    found
}

/// Other elements of `before` with the same role, name and box as `id`: GTK shows an open
/// combo's menu both under the combo and as its own window, and clicking either is the same
/// click.
fn look_alikes(before: &AxSnapshot, id: &str) -> Vec<String> {
    let mut target = None;
    walk(before, &mut |e| {
        if e.id == id {
            target = Some((e.ax_role.clone(), e.own_name().map(str::to_string), e.frame));
        }
    });
    let Some((role, name, frame)) = target else {
        return Vec::new();
    };
    let mut out = Vec::new();
    walk(before, &mut |e| {
        if e.id != id
            && e.ax_role == role
            && e.own_name().map(str::to_string) == name
            && e.frame == frame
        {
            out.push(e.id.clone());
        }
    });
    out
}

fn read_mac(path: &Path) -> Result<MacFile, InputError> {
    let src = read_text(path, MAX_SOURCE_BYTES)?;
    let value = parse_value(&src)?;
    expect_schema(&src, &value, REALREC_MAC_SCHEMA, "realrec AX trees")?;
    parse_typed(&src)
}

/// Imports the `realrec` recording in `src` into `out` (`recording.json`, `frames/`). The
/// result is loaded back before returning, so what was written is known to replay.
///
/// With `plan` (the plan and its source text), each recorded action is bound to the plan's
/// step at the same place ([`bind`]), or the import is refused; without it, the actions are
/// named `s1..sN`.
pub fn import_realrec(
    src: &Path,
    out: &Path,
    name: &str,
    plan: Option<(&Plan, &Source)>,
) -> Result<ImportOutput, Error> {
    let steps_path = src.join("steps.json");
    let steps_src = read_text(&steps_path, MAX_SOURCE_BYTES)?;
    let steps: Vec<Step> = parse_typed(&steps_src)?;
    let step_ids = match plan {
        Some((plan, plan_src)) => {
            let recorded: Vec<RecordedAction> = steps
                .iter()
                .map(|s| RecordedAction {
                    op: s.action.op.clone(),
                    description: s.description.clone(),
                })
                .collect();
            bind(plan, plan_src, &recorded)?
        }
        None => (1..=steps.len()).map(|n| format!("s{n}")).collect(),
    };
    // Frames in the order the steps visit them.
    let mut ids: Vec<String> = Vec::new();
    for s in &steps {
        for f in [&s.before, &s.after] {
            if !ids.contains(f) {
                ids.push(f.clone());
            }
        }
    }
    if ids.is_empty() {
        return Err(steps_src
            .error(
                FieldPath::root(),
                Reason::InvalidField,
                "no steps, so no frames",
            )
            .into());
    }
    let mut screen: Option<Screen> = None;
    let mut snapshots = Vec::new();
    let mut frames = Vec::new();
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let safe = |what: &str| {
            if id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                Ok(src.join(format!("{id}{what}")))
            } else {
                let at = steps.iter().position(|s| &s.before == id || &s.after == id);
                Err(steps_src.error(
                    FieldPath::root().index(at.unwrap_or(0)),
                    Reason::PathEscape,
                    format!("frame name {id:?} is not a plain file name"),
                ))
            }
        };
        let mac_path = safe(".mac.json")?;
        let png_path = safe(".png")?;
        let mac = read_mac(&mac_path)?;
        let img = decode_png(&png_path)?;
        if (img.width(), img.height()) != (mac.screen.width, mac.screen.height) {
            return Err(InputError::new(
                &png_path,
                Reason::ImageSizeMismatch,
                format!(
                    "the screenshot is {}×{} but its tree says the screen is {}×{}",
                    img.width(),
                    img.height(),
                    mac.screen.width,
                    mac.screen.height
                ),
            )
            .into());
        }
        let this = Screen {
            width: mac.screen.width,
            height: mac.screen.height,
            scale: 1,
        };
        if let Some(s) = screen
            && (s.width, s.height) != (this.width, this.height)
        {
            return Err(InputError::new(
                &mac_path,
                Reason::InvalidField,
                "frames of one recording must share a screen size",
            )
            .at(FieldPath::root().key("screen"))
            .into());
        }
        screen = Some(this);
        let ax = convert_snapshot(&mac);
        let nnn = format!("{i:03}");
        let png = format!("frames/{nnn}.png");
        let axf = format!("frames/{nnn}.ax.json");
        files.push((out.join(&png), read_bytes(&png_path)?));
        files.push((out.join(&axf), to_canonical_value(&ax).into_bytes()));
        frames.push(FrameRef {
            id: id.clone(),
            screenshot: png,
            ax: axf,
        });
        snapshots.push(ax);
    }
    let mut output = ImportOutput {
        frames: frames.len(),
        ..ImportOutput::default()
    };
    let frame_of = |id: &str| ids.iter().position(|f| f == id);
    let transitions = steps
        .iter()
        .zip(step_ids)
        .map(|(s, step_id)| {
            let before = frame_of(&s.before).map(|i| &snapshots[i]);
            let element = before.and_then(|b| acted_on(b, s.target.as_ref()));
            let equivalent = match (before, &element) {
                (Some(b), Some(id)) => look_alikes(b, id),
                _ => Vec::new(),
            };
            if element.is_none() {
                output.unmatched.push(format!("step {}", s.index + 1));
            }
            Transition {
                from: s.before.clone(),
                action: s.action.op.clone(),
                element,
                equivalent,
                to: s.after.clone(),
                step_id: Some(step_id),
            }
        })
        .collect::<Vec<_>>();
    output.transitions = transitions.len();
    let meta_title = read_text(&src.join("meta.json"), MAX_SOURCE_BYTES)
        .ok()
        .and_then(|m| parse_value(&m).ok())
        .and_then(|v| v.get("title").and_then(|t| t.as_str()).map(str::to_string));
    let file = RecordingFile {
        schema: RECORDING_SCHEMA.to_string(),
        name: name.to_string(),
        screen: screen.unwrap_or(Screen {
            width: 0,
            height: 0,
            scale: 1,
        }),
        source: SourceInfo {
            kind: SourceKind::Import,
            detail: Some(match meta_title {
                Some(t) => format!("realrec: {t}"),
                None => "realrec".to_string(),
            }),
        },
        frames,
        transitions,
    };
    files.push((
        out.join("recording.json"),
        to_canonical_value(&file).into_bytes(),
    ));
    for (path, bytes) in &files {
        write_file(path, bytes)?;
    }
    load_recording(out)?;
    Ok(output)
}

fn read_bytes(path: &Path) -> Result<Vec<u8>, InputError> {
    std::fs::read(path)
        .map_err(|e| InputError::new(path, Reason::MissingFile, format!("cannot read: {e}")))
}

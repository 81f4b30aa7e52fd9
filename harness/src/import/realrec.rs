//! Importing real recordings: the `realrec` layout (`frame_NNN.png`, `frame_NNN.ax.json` — the
//! full AT-SPI tree — or `frame_NNN.mac.json` — its on-screen nodes already in macOS AX
//! vocabulary — or `frame_NNN.macapptree.json` — a macOS window's AX tree as the public
//! `macapptree` tool dumps it — and `steps.json`) becomes a `stepreplay-recording/1` folder
//! the harness replays like its synthetic ones.
//!
//! A frame's tree comes from its `.ax.json` whenever there is one, converted by
//! `super::atspi` (the corpus's role map, and containers without geometry kept so that a
//! GTK 4 popover's or stack page's controls are not lost); a frame without one falls back to
//! its `.mac.json`, which drops every subtree under a node without extents, and a frame with
//! neither to its `.macapptree.json`, converted by `super::macapptree` (positions relative
//! to the dumped window, whose size is the screen's; containers without geometry kept). Which
//! files were read is in [`ImportOutput`] and in the recording's `source.detail`.
//!
//! Real trees are kept as they are — nameless entries, labels as separate static texts, a
//! combo's menu in its own window — because that is what a resolver must live with. Element
//! ids come from the AT-SPI child-index path, which is stable across the frames of one run.
//! A step's target is found by that path in the frame before it, else (a menu item the source
//! addressed under its combo) by role, name and box; a keyboard step without a target acts on
//! the field that had the focus. Every byte written is a function of the source files.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::atspi::{Dropped, RoleContext, ax_role, read_atspi};
use super::macapptree::read_macapptree;
use crate::errors::{Error, FieldPath, InputError, Reason};
use crate::json::{Source, expect_schema, parse_typed, parse_value, read_text, to_canonical_value};
use crate::limits;
use crate::output::write_file;
use crate::plan::{Plan, Text};
use crate::png::decode_png;
use crate::recording::ax::{AX_SCHEMA, App, AxSnapshot, Element, Rect, Window};
use crate::recording::bind::{RecordedAction, bind};
use crate::recording::format::{
    FrameRef, Operation, RECORDING_SCHEMA, RecordingFile, Screen, SourceInfo, SourceKind,
    Transition,
};
use crate::recording::load_recording;

/// The schema of the per-frame trees this importer reads.
pub(crate) const REALREC_MAC_SCHEMA: &str = "realrec.macax/1";

/// What [`import_realrec`] wrote.
#[derive(Debug, Default)]
pub struct ImportOutput {
    /// Frames imported.
    pub frames: usize,
    /// Steps that became transitions.
    pub transitions: usize,
    /// Steps without a recorded target (a key press) and nothing focused in the frame before
    /// them, so no element is recorded.
    pub unmatched: Vec<String>,
    /// Steps whose recorded target is not in the frame before them, each with the element:
    /// an import refuses them unless partial, then leaves them unbound.
    pub missing: Vec<String>,
    /// Frames whose tree came from `frame_NNN.ax.json` (the full AT-SPI tree).
    pub atspi_frames: usize,
    /// Frames without a `.ax.json`, read from `frame_NNN.mac.json` (on-screen nodes only).
    pub mac_frames: Vec<String>,
    /// Frames with neither, read from `frame_NNN.macapptree.json` (a macapptree dump).
    pub macapptree_frames: Vec<String>,
    /// Frames whose AT-SPI dump says the recorder stopped at its node limit.
    pub truncated: Vec<String>,
    /// What import left out or changed of the AT-SPI trees, summed over the frames.
    pub dropped: Dropped,
}

impl ImportOutput {
    /// What the import left out or changed, in words, one line each: the recording keeps
    /// them (`source.notes`) and `import` and `check` show them.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if !self.dropped.is_empty() {
            notes.push(format!(
                "import kept every node it could address: {}",
                self.dropped.describe()
            ));
        }
        notes
    }
}

#[derive(Deserialize)]
struct MacFile {
    screen: Size,
    applications: Vec<MacNode>,
}

/// A capture's screen size in pixels.
#[derive(Deserialize)]
pub(super) struct Size {
    pub(super) width: u32,
    pub(super) height: u32,
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
    frame: Option<SourceRect>,
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

/// A rectangle as the source files write it: screen pixels, maybe fractional.
#[derive(Clone, Copy, Deserialize)]
pub(super) struct SourceRect {
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) width: f64,
    pub(super) height: f64,
}

impl From<SourceRect> for Rect {
    fn from(r: SourceRect) -> Rect {
        Rect::new(
            r.x.round() as i32,
            r.y.round() as i32,
            r.width.round() as i32,
            r.height.round() as i32,
        )
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
    #[serde(default)]
    button: Option<String>,
    #[serde(default)]
    count: Option<u8>,
    #[serde(default)]
    modifiers: Option<Vec<String>>,
    #[serde(default)]
    keys: Option<String>,
    #[serde(default)]
    text: Option<String>,
}

/// How a step was done, as the source says. Typed text is kept only when the bound plan says
/// what was typed and none of it is a sensitive input: without a plan any text may have been
/// a secret (the zenity corpus types its PIN in the clear).
fn operation_of(a: &StepAction, plan: Option<&Plan>, step_id: &str) -> Operation {
    let no_secret = plan.is_some_and(|p| {
        p.steps.iter().find(|s| s.id == step_id).is_some_and(|s| {
            let reads = s.action.text().map(Text::inputs).unwrap_or_default();
            reads
                .iter()
                .all(|id| p.inputs.iter().any(|i| &i.id == id && !i.sensitive))
        })
    });
    Operation {
        button: a.button.clone(),
        count: a.count,
        modifiers: a.modifiers.clone(),
        drag: None,
        keys: a.keys.clone(),
        text: a.text.clone().filter(|_| no_secret),
    }
}

#[derive(Deserialize)]
struct StepTarget {
    path: String,
    role: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    extents: Option<SourceRect>,
    #[serde(default)]
    states: Vec<String>,
    #[serde(default)]
    actions: Vec<String>,
}

/// `0/0/1` → `e0-0-1`: an id safe in file names and CSS, unique per tree.
pub(super) fn element_id(prefix: char, path: &str) -> String {
    format!("{prefix}{}", path.replace('/', "-"))
}

pub(super) fn nonempty(s: &Option<String>) -> Option<String> {
    s.clone().filter(|s| !s.is_empty())
}

/// A source's `value` as the snapshot keeps it: a string as it is, a number or any other
/// JSON as its JSON text, null as none.
pub(super) fn value_text(v: &Option<serde_json::Value>) -> Option<String> {
    match v {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(s)) => Some(s.clone()),
        Some(other) => Some(other.to_string()),
    }
}

fn convert_element(n: &MacNode) -> Element {
    let frame = n.frame.map(Rect::from).unwrap_or_default();
    let mut e = Element::new(element_id('e', &n.atspi.path), n.role.clone(), frame);
    e.subrole = nonempty(&n.subrole);
    e.title = nonempty(&n.title);
    e.description = nonempty(&n.description);
    e.value = value_text(&n.value);
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
pub(crate) fn window_kind(subrole: &str) -> String {
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

/// The element a step acted on, in the frame before it.
fn acted_on(before: &AxSnapshot, target: Option<&StepTarget>) -> Option<String> {
    let mut found = None;
    match target {
        Some(t) => {
            let id = element_id('e', &t.path);
            before.walk(&mut |e| {
                if found.is_none() && e.id == id {
                    found = Some(e.id.clone());
                }
            });
            if found.is_some() {
                return found;
            }
            // The target's own states and actions; its parent and children are not recorded,
            // so a combo box is taken for an AXPopUpButton and a menu for an AXMenu. A macOS
            // recorder names the AX role itself (`AXButton`).
            let cx = RoleContext {
                states: &t.states,
                actions: &t.actions,
                ..RoleContext::default()
            };
            let role = if t.role.starts_with("AX") {
                t.role.as_str()
            } else {
                ax_role(&t.role, &cx).role
            };
            let frame = t.extents.map(Rect::from);
            before.walk(&mut |e| {
                let name_ok = t.name.is_empty() || e.own_name() == Some(t.name.as_str());
                if found.is_none()
                    && role == e.ax_role
                    && name_ok
                    && frame.is_none_or(|f| f == e.frame)
                {
                    found = Some(e.id.clone());
                }
            });
        }
        None => before.walk(&mut |e| {
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
    before.walk(&mut |e| {
        if e.id == id {
            target = Some((e.ax_role.clone(), e.own_name().map(str::to_string), e.frame));
        }
    });
    let Some((role, name, frame)) = target else {
        return Vec::new();
    };
    let mut out = Vec::new();
    before.walk(&mut |e| {
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
    let src = read_text(path, limits::IMPORT_SOURCE_BYTES)?;
    let value = parse_value(&src)?;
    expect_schema(&src, &value, REALREC_MAC_SCHEMA, "realrec AX trees")?;
    parse_typed(&src)
}

/// Imports the `realrec` recording in `src` into `out` (`recording.json`, `frames/`). The
/// result is loaded back before returning, so what was written is known to replay.
///
/// With `plan` (the plan and its source text), each recorded action is bound to the plan's
/// step at the same place (`bind`), or the import is refused; without it, the actions are
/// named `s1..sN`.
///
/// A step whose recorded target is not in the frame before it refuses the import
/// (`target-not-found`, nothing written) unless `allow_partial`; then that step is bound to
/// no plan step (unbound) and listed in [`ImportOutput::missing`].
pub fn import_realrec(
    src: &Path,
    out: &Path,
    name: &str,
    plan: Option<(&Plan, &Source)>,
    allow_partial: bool,
) -> Result<ImportOutput, Error> {
    import_bound(src, out, name, plan, false, allow_partial)
}

/// [`import_realrec`] of a capture that followed `plan` live and may have stopped before its
/// end: its actions are bound to the plan's first acting steps.
pub(crate) fn import_followed(
    src: &Path,
    out: &Path,
    name: &str,
    plan: (&Plan, &Source),
) -> Result<ImportOutput, Error> {
    import_bound(src, out, name, Some(plan), true, false)
}

fn import_bound(
    src: &Path,
    out: &Path,
    name: &str,
    plan: Option<(&Plan, &Source)>,
    partial: bool,
    allow_partial: bool,
) -> Result<ImportOutput, Error> {
    let steps_path = src.join("steps.json");
    let steps_src = read_text(&steps_path, limits::IMPORT_SOURCE_BYTES)?;
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
            bind(plan, plan_src, &recorded, partial)?
        }
        None => (1..=steps.len()).map(|n| format!("s{n}")).collect(),
    };
    let ids = frame_ids(&steps, &steps_src)?;
    let mut output = ImportOutput::default();
    let mut screen: Option<Screen> = None;
    let mut snapshots = Vec::new();
    let mut frames = Vec::new();
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let mut png_at = Vec::new();
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
        let png_path = safe(".png")?;
        let (tree_path, this, ax) = read_frame(id, &safe, &png_path, &mut output)?;
        if let Some(s) = screen
            && (s.width, s.height) != (this.width, this.height)
        {
            return Err(InputError::new(
                &tree_path,
                Reason::InvalidField,
                "frames of one recording must share a screen size",
            )
            .at(FieldPath::root().key("screen"))
            .into());
        }
        screen = Some(this);
        let nnn = format!("{i:03}");
        let png = format!("frames/{nnn}.png");
        let axf = format!("frames/{nnn}.ax.json");
        png_at.push(files.len());
        files.push((out.join(&png), read_bytes(&png_path)?));
        files.push((out.join(&axf), to_canonical_value(&ax).into_bytes()));
        frames.push(FrameRef {
            id: id.clone(),
            screenshot: png,
            ax: axf,
            dom: None,
            step_id: None,
        });
        snapshots.push(ax);
    }
    output.frames = frames.len();
    let transitions = transitions(&steps, step_ids, &ids, &snapshots, plan, &mut output);
    if !allow_partial {
        refuse_missing(&steps, &transitions, &steps_src, &output.missing)?;
    }
    output.transitions = transitions.len();
    let fields = secret_fields(plan.map(|(p, _)| p), &transitions);
    mask_secrets(&snapshots, &png_at, &fields, &mut files)?;
    let meta_title = read_text(&src.join("meta.json"), limits::IMPORT_SOURCE_BYTES)
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
            detail: Some(detail(meta_title.as_deref(), &output)),
            notes: output.notes(),
        },
        frames,
        transitions,
        exchanges: Vec::new(),
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

/// Covers, in each frame's screenshot (`files[png_at[i]]`), the boxes of the fields a secret
/// was typed into.
fn mask_secrets(
    snapshots: &[AxSnapshot],
    png_at: &[usize],
    fields: &std::collections::BTreeSet<String>,
    files: &mut [(PathBuf, Vec<u8>)],
) -> Result<(), Error> {
    for (ax, &at) in snapshots.iter().zip(png_at) {
        let boxes = crate::paint::mask::secret_boxes(ax, fields);
        if boxes.is_empty() {
            continue;
        }
        let (path, bytes) = &mut files[at];
        let unreadable = |e: image::ImageError| {
            InputError::new(&*path, Reason::InvalidImage, format!("cannot mask it: {e}"))
        };
        let mut img = image::load_from_memory(bytes)
            .map_err(unreadable)?
            .to_rgb8();
        crate::paint::mask::cover(&mut img, &boxes);
        *bytes = crate::png::encode_rgb(&img)?;
    }
    Ok(())
}

/// The elements that steps typing a sensitive input acted on, by the bound plan: their boxes are
/// covered in every frame imported.
fn secret_fields(plan: Option<&Plan>, transitions: &[Transition]) -> BTreeSet<String> {
    let Some(plan) = plan else {
        return BTreeSet::new();
    };
    let sensitive: BTreeSet<&str> = plan
        .steps
        .iter()
        .filter(|s| {
            let reads = s.action.text().map(Text::inputs).unwrap_or_default();
            reads
                .iter()
                .any(|id| plan.inputs.iter().any(|i| &i.id == id && i.sensitive))
        })
        .map(|s| s.id.as_str())
        .collect();
    transitions
        .iter()
        .filter(|t| {
            t.step_id
                .as_deref()
                .is_some_and(|id| sensitive.contains(id))
        })
        .filter_map(|t| t.element.clone())
        .collect()
}

/// The frames in the order the steps visit them; none is an error.
fn frame_ids(steps: &[Step], steps_src: &Source) -> Result<Vec<String>, InputError> {
    let mut ids: Vec<String> = Vec::new();
    for s in steps {
        for f in [&s.before, &s.after] {
            if !ids.contains(f) {
                ids.push(f.clone());
            }
        }
    }
    if ids.is_empty() {
        return Err(steps_src.error(
            FieldPath::root(),
            Reason::InvalidField,
            "no steps, so no frames",
        ));
    }
    Ok(ids)
}

/// One frame's tree (from whichever source file it has; counted in `output`) and its screen,
/// which its screenshot must match. `safe` gives the path of the frame's file with a suffix.
fn read_frame(
    id: &str,
    safe: &dyn Fn(&str) -> Result<PathBuf, InputError>,
    png_path: &Path,
    output: &mut ImportOutput,
) -> Result<(PathBuf, Screen, AxSnapshot), Error> {
    let atspi_path = safe(".ax.json")?;
    let mac_path = safe(".mac.json")?;
    let macapptree_path = safe(".macapptree.json")?;
    let exists = |p: &Path| p.symlink_metadata().is_ok();
    // Any entry with a tree's name is read: a broken one is refused, never skipped. With
    // no tree at all, the error names the `.mac.json`, as before `.macapptree.json` was.
    let (tree_path, (width, height), ax) = if exists(&atspi_path) {
        let t = read_atspi(&atspi_path, limits::IMPORT_SOURCE_BYTES)?;
        output.atspi_frames += 1;
        if t.truncated {
            output.truncated.push(id.to_string());
        }
        output.dropped.add(&t.dropped);
        (atspi_path, t.screen, t.ax)
    } else if exists(&mac_path) || !exists(&macapptree_path) {
        let mac = read_mac(&mac_path)?;
        output.mac_frames.push(id.to_string());
        let size = (mac.screen.width, mac.screen.height);
        (mac_path, size, convert_snapshot(&mac))
    } else {
        let t = read_macapptree(&macapptree_path, limits::IMPORT_SOURCE_BYTES)?;
        output.macapptree_frames.push(id.to_string());
        (macapptree_path, t.screen, t.ax)
    };
    let img = decode_png(png_path)?;
    if (img.width(), img.height()) != (width, height) {
        return Err(InputError::new(
            png_path,
            Reason::ImageSizeMismatch,
            format!(
                "the screenshot is {}×{} but its tree says the screen is {width}×{height}",
                img.width(),
                img.height(),
            ),
        )
        .into());
    }
    let screen = Screen {
        width,
        height,
        scale: 1,
    };
    Ok((tree_path, screen, ax))
}

/// One transition per step, from the frame before it to the one after, with the element it
/// acted on when that frame's tree has it (else the step is listed in `output.missing`, or in
/// `output.unmatched` when the recorder named no target).
fn transitions(
    steps: &[Step],
    step_ids: Vec<String>,
    ids: &[String],
    snapshots: &[AxSnapshot],
    plan: Option<(&Plan, &Source)>,
    output: &mut ImportOutput,
) -> Vec<Transition> {
    let frame_of = |id: &str| ids.iter().position(|f| f == id);
    steps
        .iter()
        .zip(step_ids)
        .map(|(s, step_id)| {
            let before = frame_of(&s.before).map(|i| &snapshots[i]);
            let element = before.and_then(|b| acted_on(b, s.target.as_ref()));
            let equivalent = match (before, &element) {
                (Some(b), Some(id)) => look_alikes(b, id),
                _ => Vec::new(),
            };
            let mut bound = Some(step_id);
            if element.is_none() {
                if let Some(t) = &s.target {
                    output.missing.push(format!(
                        "step {} ({}): the acted-on {} {:?} at {} is not in the frame before it, {}",
                        s.index + 1,
                        s.action.op,
                        t.role,
                        t.name,
                        t.path,
                        s.before
                    ));
                    bound = None;
                } else {
                    output.unmatched.push(format!("step {}", s.index + 1));
                }
            }
            let operation = operation_of(&s.action, plan.map(|(p, _)| p), bound.as_deref().unwrap_or(""));
            Transition {
                from: s.before.clone(),
                action: s.action.op.clone(),
                element,
                equivalent,
                to: s.after.clone(),
                operation,
                step_id: bound,
            }
        })
        .collect()
}

/// The error for steps whose recorded target is not in the frame before them (`missing`, as
/// [`ImportOutput::missing`] words them), at the first one's `target`; Ok when there are none.
fn refuse_missing(
    steps: &[Step],
    transitions: &[Transition],
    steps_src: &Source,
    missing: &[String],
) -> Result<(), InputError> {
    let Some(first) = missing.first() else {
        return Ok(());
    };
    let at = steps
        .iter()
        .zip(transitions)
        .position(|(s, t)| s.target.is_some() && t.element.is_none());
    let more = match missing.len() {
        1 => String::new(),
        n => format!(" (and {} more such steps)", n - 1),
    };
    Err(steps_src
        .error(
            FieldPath::root().index(at.unwrap_or(0)).key("target"),
            Reason::TargetNotFound,
            format!("{first}{more}; nothing was written"),
        )
        .hint("--allow-partial imports it with such steps bound to no plan step"))
}

/// `realrec, full AT-SPI trees: <title>`: where the recording came from and which trees were
/// read — the first kind of tree that any frame came from, then the frames read from each
/// later kind.
fn detail(title: Option<&str>, o: &ImportOutput) -> String {
    let (mac, apptree) = (&o.mac_frames, &o.macapptree_frames);
    let mut trees = vec![
        if o.atspi_frames > 0 {
            "full AT-SPI trees"
        } else if !mac.is_empty() {
            "on-screen .mac.json trees"
        } else {
            "macapptree trees"
        }
        .to_string(),
    ];
    if o.atspi_frames > 0 && !mac.is_empty() {
        trees.push(format!(".mac.json for {}", mac.join(", ")));
    }
    if (o.atspi_frames > 0 || !mac.is_empty()) && !apptree.is_empty() {
        trees.push(format!(".macapptree.json for {}", apptree.join(", ")));
    }
    let trees = trees.join(", ");
    match title {
        Some(t) => format!("realrec, {trees}: {t}"),
        None => format!("realrec, {trees}"),
    }
}

fn read_bytes(path: &Path) -> Result<Vec<u8>, InputError> {
    crate::json::read_bounded(path, limits::PNG_BYTES)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A scratch `realrec` folder, removed when dropped.
    struct Folder(PathBuf);

    impl Folder {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir()
                .join(format!("stepreplay-import-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Folder(dir)
        }

        fn write(&self, name: &str, text: &str) {
            std::fs::write(self.0.join(name), text).unwrap();
        }

        fn import(&self) -> Result<(ImportOutput, Vec<AxSnapshot>, RecordingFile), Error> {
            self.import_with(false)
        }

        fn import_with(
            &self,
            allow_partial: bool,
        ) -> Result<(ImportOutput, Vec<AxSnapshot>, RecordingFile), Error> {
            let out = self.0.join("out");
            let _ = std::fs::remove_dir_all(&out);
            let o = import_realrec(&self.0, &out, "t", None, allow_partial)?;
            let rec = load_recording(&out).unwrap();
            let axes = rec.frames.iter().map(|f| (*f.ax).clone()).collect();
            Ok((o, axes, rec.file))
        }
    }

    impl Drop for Folder {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Two frames of a 64×48 screen, one click on the OK button `0/0/0` between them.
    fn folder(name: &str, target: serde_json::Value) -> Folder {
        let f = Folder::new(name);
        let png = crate::png::encode_rgb(&image::RgbImage::new(64, 48)).unwrap();
        for frame in ["frame_000", "frame_001"] {
            std::fs::write(f.0.join(format!("{frame}.png")), &png).unwrap();
            f.write(&format!("{frame}.mac.json"), &mac_tree().to_string());
        }
        let steps = json!([{"index": 0, "before": "frame_000", "after": "frame_001",
                            "action": {"op": "click"}, "description": "click OK",
                            "target": target}]);
        f.write("steps.json", &steps.to_string());
        f
    }

    fn ok_target() -> serde_json::Value {
        json!({"path": "0/0/0", "role": "push button", "name": "OK",
               "states": ["enabled", "showing", "visible"],
               "extents": {"x": 10, "y": 10, "width": 30, "height": 20}})
    }

    fn mac_tree() -> serde_json::Value {
        json!({"schema": "realrec.macax/1", "screen": {"width": 64, "height": 48},
               "applications": [{"AXRole": "AXApplication", "AXTitle": "demo",
                 "atspi": {"role": "application", "path": "0"},
                 "AXChildren": [{"AXRole": "AXWindow", "AXSubrole": "AXDialog", "AXTitle": "Demo",
                   "AXFrame": {"x": 0, "y": 0, "width": 64, "height": 48}, "AXMain": true,
                   "atspi": {"role": "dialog", "path": "0/0"},
                   "AXChildren": [{"AXRole": "AXButton", "AXTitle": "OK",
                     "AXFrame": {"x": 10, "y": 10, "width": 30, "height": 20},
                     "atspi": {"role": "push button", "path": "0/0/0"}},
                    {"AXRole": "AXCheckBox", "AXSubrole": "AXSwitch", "AXTitle": "Wi-Fi",
                     "AXFrame": {"x": 10, "y": 34, "width": 30, "height": 10},
                     "atspi": {"role": "toggle button", "path": "0/0/1"}}]}]}]})
    }

    /// The same dialog in full: a popover without extents holds a button the `.mac.json`
    /// leaves out.
    fn atspi_tree() -> serde_json::Value {
        let shown = ["enabled", "showing", "visible"];
        json!({"schema": "realrec.atspi/1", "coord_type": "screen",
               "screen": {"width": 64, "height": 48},
               "applications": [{"path": "0", "role": "application", "name": "demo", "states": [],
                 "children": [{"path": "0/0", "role": "dialog", "name": "Demo",
                   "states": ["active", "enabled", "showing", "visible"],
                   "extents": {"x": 0, "y": 0, "width": 64, "height": 48},
                   "children": [
                     {"path": "0/0/0", "role": "push button", "name": "OK", "states": shown,
                      "extents": {"x": 10, "y": 10, "width": 30, "height": 20}, "children": []},
                     {"path": "0/0/1", "role": "panel", "name": "", "states": shown,
                      "extents": null, "children": [
                        {"path": "0/0/1/0", "role": "push button", "name": "More", "states": shown,
                         "extents": {"x": 10, "y": 32, "width": 30, "height": 12}, "children": []}]}]}]}]})
    }

    #[test]
    fn without_an_ax_json_the_mac_json_is_read() {
        let f = folder("mac", ok_target());
        let (o, axes, file) = f.import().unwrap();
        assert_eq!(
            (o.atspi_frames, o.mac_frames),
            (0, vec!["frame_000".to_string(), "frame_001".to_string()])
        );
        assert_eq!(axes[0].element_count(), 2);
        assert_eq!(
            file.source.detail.as_deref(),
            Some("realrec, on-screen .mac.json trees")
        );
        assert_eq!(file.transitions[0].element.as_deref(), Some("e0-0-0"));
        assert_eq!(axes[0].apps[0].windows[0].id, "w0-0");
    }

    #[test]
    fn an_ax_json_is_read_before_the_mac_json() {
        let f = folder("atspi", ok_target());
        f.write("frame_000.ax.json", &atspi_tree().to_string());
        let (o, axes, file) = f.import().unwrap();
        assert_eq!(
            (o.atspi_frames, o.mac_frames),
            (1, vec!["frame_001".to_string()])
        );
        assert_eq!(
            file.source.detail.as_deref(),
            Some("realrec, full AT-SPI trees, .mac.json for frame_001")
        );
        // The same ids as the .mac.json gives, and the button it left out.
        assert_eq!(axes[0].apps[0].windows[0].id, "w0-0");
        assert!(axes[0].find("e0-0-0").is_some());
        assert_eq!(
            axes[0].find("e0-0-1-0").unwrap().2.title.as_deref(),
            Some("More")
        );
        assert!(axes[1].find("e0-0-1-0").is_none());
        assert_eq!(file.transitions[0].element.as_deref(), Some("e0-0-0"));
    }

    /// A target whose path is not in the frame is found by the role the role map gives its
    /// AT-SPI role, its name and its box.
    #[test]
    fn a_target_not_found_by_path_is_found_by_mapped_role() {
        let switch = json!({"path": "0/5/1", "role": "toggle button", "name": "Wi-Fi",
                            "states": ["checked", "enabled", "showing", "visible"],
                            "actions": ["toggle"],
                            "extents": {"x": 10, "y": 34, "width": 30, "height": 10}});
        let f = folder("by-role", switch.clone());
        let (o, _, file) = f.import().unwrap();
        assert!(o.missing.is_empty(), "{:?}", o.missing);
        assert_eq!(file.transitions[0].element.as_deref(), Some("e0-0-1"));
        // A role that maps to another AX role does not match: the import is refused, naming
        // the step and the element, and writes nothing.
        let mut target = switch;
        target["role"] = "push button".into();
        let f = folder("by-role-not", target);
        let Err(Error::Input(e)) = f.import() else {
            panic!("an import that leaves the acted-on element out is refused");
        };
        assert_eq!(e.reason, Reason::TargetNotFound);
        let said = e.to_string();
        assert!(
            said.contains("step 1 (click)") && said.contains("push button \"Wi-Fi\" at 0/5/1"),
            "{said}"
        );
        assert!(!f.0.join("out").exists());
        // With --allow-partial it imports, the step bound to nothing.
        let (o, _, file) = f.import_with(true).unwrap();
        assert_eq!(o.missing.len(), 1);
        assert!(o.unmatched.is_empty());
        assert_eq!(file.transitions[0].element, None);
        assert_eq!(file.transitions[0].step_id, None);
    }

    /// The same dialog as macapptree dumps it: positions relative to the window.
    fn apptree() -> serde_json::Value {
        json!({"name": "Demo", "role": "AXWindow", "position": "0.00;0.00", "size": "64;48",
               "children": [{"name": null, "role": "AXButton", "description": "OK",
                             "role_description": "button", "value": null,
                             "position": "10.00;10.00", "size": "30;20", "children": []}]})
    }

    /// A frame with neither `.ax.json` nor `.mac.json` reads its `.macapptree.json`, and the
    /// detail names it after the kind the other frames came from.
    #[test]
    fn without_either_the_macapptree_json_is_read() {
        let f = folder("apptree", ok_target());
        std::fs::remove_file(f.0.join("frame_001.mac.json")).unwrap();
        f.write("frame_001.macapptree.json", &apptree().to_string());
        let (o, axes, file) = f.import().unwrap();
        assert_eq!(o.mac_frames, ["frame_000"]);
        assert_eq!(o.macapptree_frames, ["frame_001"]);
        assert_eq!(
            file.source.detail.as_deref(),
            Some("realrec, on-screen .mac.json trees, .macapptree.json for frame_001")
        );
        assert_eq!(axes[1].find("e0-0").unwrap().2.own_name(), Some("OK"));
        // A `.mac.json` beside it is read first.
        f.write("frame_001.mac.json", &mac_tree().to_string());
        let (o, ..) = f.import().unwrap();
        assert!(o.macapptree_frames.is_empty());
    }

    /// Every frame a macapptree dump; a target whose path is not in the frame is found by the
    /// AX role a macOS recorder names, its name and its box.
    #[test]
    fn macapptree_frames_only_and_a_target_by_ax_role() {
        let target = json!({"path": "0/9", "role": "AXButton", "name": "OK",
                            "extents": {"x": 10, "y": 10, "width": 30, "height": 20}});
        let f = folder("apptree-only", target);
        for frame in ["frame_000", "frame_001"] {
            std::fs::remove_file(f.0.join(format!("{frame}.mac.json"))).unwrap();
            f.write(&format!("{frame}.macapptree.json"), &apptree().to_string());
        }
        let (o, _, file) = f.import().unwrap();
        assert_eq!((o.atspi_frames, o.mac_frames.len()), (0, 0));
        assert_eq!(o.macapptree_frames, ["frame_000", "frame_001"]);
        assert_eq!(
            file.source.detail.as_deref(),
            Some("realrec, macapptree trees")
        );
        assert!(o.unmatched.is_empty(), "{:?}", o.unmatched);
        assert_eq!(file.transitions[0].element.as_deref(), Some("e0-0"));
    }

    /// A malformed `.ax.json` is refused with its file, field path and reason, and is never
    /// skipped for the `.mac.json` beside it.
    #[test]
    fn a_malformed_ax_json_is_refused() {
        let f = folder("bad", ok_target());
        let mut tree = atspi_tree();
        tree["applications"][0]["children"][0]["children"][1]["children"][0]["extents"] =
            json!([10, 32]);
        f.write("frame_001.ax.json", &tree.to_string());
        let Err(Error::Input(e)) = f.import() else {
            panic!("imported a malformed tree")
        };
        assert_eq!(e.file, f.0.join("frame_001.ax.json"));
        assert_eq!(e.reason, Reason::InvalidField);
        assert_eq!(
            e.path.to_string(),
            "applications[0].children[0].children[1].children[0].extents"
        );
        assert!(e.position.is_some());
        assert!(!f.0.join("out").exists(), "nothing written");
    }
}

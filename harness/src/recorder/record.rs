//! Recording a script on a live desktop: acting each step, keeping what the screen and the
//! tree show after it, and writing the capture, the plan and the scenario into the suite.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use image::RgbImage;
use serde_json::{Value, json};

use crate::errors::{Error, FieldPath, InputError, Reason};
use crate::import::atspi::parse_atspi;
use crate::import::import_realrec;
use crate::json::{Source, to_canonical, to_canonical_value};
use crate::output::write_file;
use crate::plan::keys::parse_chord;
use crate::plan::{plan_from_source, read_plan_source};
use crate::png::encode_rgb;
use crate::recording::ax::AxSnapshot;
use crate::scenario::{Answer, Answers, Expected, SCENARIO_SCHEMA, ScenarioFile};
use crate::synth::foxplan::crop_name;

use super::find::{Found, find, node_at};
use super::place::place_on_screen;
use super::plan::{Acted, make_plan};
use super::script::{Script, ScriptStep};
use super::session::{Session, SessionOptions, check_stop};
use super::tree::TreeReader;
use super::x11::X11;

/// What to record and where.
#[derive(Clone, Debug)]
pub(crate) struct RecordOptions {
    /// The script, as read.
    pub script: Script,
    /// Where the script came from (for errors).
    pub script_path: PathBuf,
    /// The recording folder: `SUITE/recordings/NAME`.
    pub out: PathBuf,
    /// Start an Xvfb even when `$DISPLAY` is set.
    pub own_display: bool,
    /// Replace a recording, plan or scenario of that name that is already there.
    pub force: bool,
    /// The longest wait for the screen and tree to settle after a step.
    pub settle_timeout: Duration,
    /// Keep the raw capture (`realrec` layout) in this folder.
    pub keep_capture: Option<PathBuf>,
}

/// What [`record`] wrote.
#[derive(Debug)]
pub(crate) struct RecordOutput {
    /// Frames kept.
    pub frames: usize,
    /// Steps acted.
    pub steps: usize,
    /// What the recorder could not do as asked: frames taken before the screen or tree stopped
    /// changing, windows it could not place on the screen.
    pub notes: Vec<String>,
    /// The plan written.
    pub plan: PathBuf,
    /// The scenario written.
    pub scenario: PathBuf,
    /// The display used, and whether it was started here.
    pub display: String,
}

/// One frame as kept.
pub(super) struct Frame {
    pub(super) shot: RgbImage,
    pub(super) dump: Value,
    pub(super) ax: AxSnapshot,
}

/// The suite root and recording name of `SUITE/recordings/NAME`.
pub(super) fn suite_of(out: &Path) -> Result<(PathBuf, String), Error> {
    let name = out.file_name().and_then(|n| n.to_str()).map(str::to_string);
    let parent = out
        .parent()
        .filter(|p| p.file_name().is_some_and(|n| n == "recordings"));
    match (name, parent) {
        (Some(name), Some(parent))
            if name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') =>
        {
            let root = parent.parent().unwrap_or(Path::new(".")).to_path_buf();
            Ok((root, name))
        }
        _ => Err(InputError::new(
            out,
            Reason::InvalidArgument,
            "--out must be SUITE/recordings/NAME (NAME of letters, digits, - and _)",
        )
        .hint("the plan and scenario go to SUITE/scenarios/NAME/ and SUITE/scenarios/NAME.json")
        .into()),
    }
}

/// A recording, plan or scenario of that name already in the suite, refused before the
/// desktop starts: a new recording would replace it, and its plan may hold a person's edits.
fn refuse_overwrite(root: &Path, name: &str, out: &Path) -> Result<(), Error> {
    let taken = [
        out.to_path_buf(),
        root.join("scenarios").join(name),
        root.join("scenarios").join(format!("{name}.json")),
    ]
    .into_iter()
    .find(|p| p.exists());
    match taken {
        Some(p) => Err(already_recorded(&p, name)),
        None => Ok(()),
    }
}

/// The refusal to record over `path` without `--force`.
pub(super) fn already_recorded(path: &Path, name: &str) -> Error {
    InputError::new(
        path,
        Reason::InvalidArgument,
        format!("`{name}` is already recorded here; recording again would replace it"),
    )
    .hint("give --out another NAME, or pass --force to replace it")
    .into()
}

/// Records `opts.script` on a live desktop. `stop` is set by Ctrl-C; `progress` hears a line
/// per step kept.
pub(crate) fn record(
    opts: &RecordOptions,
    stop: &AtomicBool,
    progress: &dyn Fn(&str),
) -> Result<RecordOutput, Error> {
    let (root, name) = suite_of(&opts.out)?;
    if !opts.force {
        refuse_overwrite(&root, &name, &opts.out)?;
    }
    let script = &opts.script;
    let Live {
        mut session,
        mut rec,
        screen,
        display,
    } = Live::start(opts, stop)?;
    let mut acted: Vec<Acted> = Vec::new();
    let mut steps_json: Vec<Value> = Vec::new();
    let played = (|| -> Result<(), Error> {
        for (i, step) in script.steps.iter().enumerate() {
            check_stop(stop)?;
            let at = FieldPath::root().key("steps").index(i);
            let before = rec.frames.len() - 1;
            let Some(found) = rec.act(step, &at, opts, screen, stop)? else {
                continue;
            };
            rec.settle(&mut session, stop)?;
            let after = rec.frames.len() - 1;
            steps_json.push(step_entry(
                acted.len(),
                step,
                before,
                after,
                found.as_ref(),
                &rec.frames[before].dump,
                script,
            ));
            progress(&step_line(&steps_json, i + 1, script.steps.len(), None));
            acted.push(Acted {
                step: step.clone(),
                before,
                after,
                found,
            });
        }
        Ok(())
    })();
    // A failed recording keeps what it captured up to the failure when asked to: the frame a
    // target was missing from is what the person needs to see.
    cover_secrets(&mut rec.frames, &acted, script);
    let window_manager = session.window_manager.clone();
    let capture_to = |dir: &Path| {
        write_capture(
            dir,
            &rec.frames,
            &steps_json,
            script,
            screen,
            window_manager.as_deref(),
            &rec.notes,
        )
    };
    if let Err(e) = played {
        session.stop();
        if let Some(dir) = &opts.keep_capture {
            capture_to(dir)?;
        }
        return Err(e);
    }
    session.stop();
    through_capture(opts.keep_capture.as_deref(), capture_to, |capture| {
        write_suite(&rec, opts, (&root, &name), &acted, capture, screen, display)
    })
}

/// Writes the capture (the realrec layout) to `keep`, or to a scratch folder removed after
/// `then` has imported it like any real recording.
pub(super) fn through_capture<T>(
    keep: Option<&Path>,
    write: impl Fn(&Path) -> Result<(), Error>,
    then: impl FnOnce(&Path) -> Result<T, Error>,
) -> Result<T, Error> {
    let scratch = std::env::temp_dir().join(format!("stepreplay-capture-{}", std::process::id()));
    let capture = keep.map_or_else(|| scratch.clone(), Path::to_path_buf);
    let result = write(&capture).and_then(|()| then(&capture));
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    result
}

/// A desktop with the app started and its first window kept as frame 0.
pub(super) struct Live {
    pub(super) session: Session,
    pub(super) rec: Recorder,
    pub(super) screen: (u32, u32),
    /// The display, and whether it was started here.
    pub(super) display: String,
}

impl Live {
    /// Starts (or joins) the desktop, starts `opts.script.app` and waits for its window.
    pub(super) fn start(opts: &RecordOptions, stop: &AtomicBool) -> Result<Live, Error> {
        let script = &opts.script;
        if script.app.is_empty() {
            return Err(InputError::new(
                &opts.script_path,
                Reason::InvalidField,
                "no app to start: give \"app\" in the script or `-- CMD ARGS` on the command line",
            )
            .at(FieldPath::root().key("app"))
            .into());
        }
        let screen = script.screen.map_or((1440, 900), |s| (s.width, s.height));
        let mut session = Session::start(
            &SessionOptions {
                own_display: opts.own_display,
                screen,
                window_manager: true,
            },
            stop,
        )?;
        let mut rec = Recorder {
            x: X11::connect(&session.display)?,
            tree: TreeReader::connect(&session.bus, stop)?,
            secrets: script
                .inputs
                .iter()
                .filter(|i| i.sensitive)
                .map(|i| i.value.clone())
                .collect(),
            frames: Vec::new(),
            notes: Vec::new(),
            timeout: opts.settle_timeout,
        };
        let screen = (rec.x.width, rec.x.height);
        session.start_app(&script.app)?;
        rec.wait_for_window(&mut session, stop)?;
        let display = format!(
            "{}{}",
            session.display,
            if session.own {
                " (Xvfb started here)"
            } else {
                ""
            }
        );
        Ok(Live {
            session,
            rec,
            screen,
            display,
        })
    }
}

/// What a finished recording makes of its capture in the suite: the Foxstep plan with its
/// crops, the recording imported from the capture, and the scenario that replays it.
fn write_suite(
    rec: &Recorder,
    opts: &RecordOptions,
    (root, name): (&Path, &str),
    acted: &[Acted],
    capture: &Path,
    screen: (u32, u32),
    display: String,
) -> Result<RecordOutput, Error> {
    let shots: Vec<RgbImage> = rec.frames.iter().map(|f| f.shot.clone()).collect();
    let axes: Vec<AxSnapshot> = rec.frames.iter().map(|f| f.ax.clone()).collect();
    let (fox, crops) = make_plan(&opts.script, name, acted, &axes, &shots, screen);
    let plan_dir = root.join("scenarios").join(name);
    let plan_path = plan_dir.join("plan.json");
    let _ = std::fs::remove_dir_all(plan_dir.join("crops"));
    write_file(&plan_path, to_canonical_value(&fox).as_bytes())?;
    for (n, crop) in crops.iter().enumerate() {
        if let Some(img) = crop {
            write_file(&plan_dir.join(crop_name(n as u32 + 1)), &encode_rgb(img)?)?;
        }
    }
    let plan_src = read_plan_source(&plan_path)?;
    let parsed = plan_from_source(&plan_src)?;
    let _ = std::fs::remove_dir_all(opts.out.join("frames"));
    import_realrec(capture, &opts.out, name, Some((&parsed, &plan_src)), false)?;
    let scenario_path = root.join("scenarios").join(format!("{name}.json"));
    let sc = scenario(&opts.script, name, &parsed);
    write_file(&scenario_path, to_canonical_value(&sc).as_bytes())?;
    // The values the plan was recorded with, beside it, so `check plan.json --recording REC
    // --answers answers.json` replays it as recorded. Secrets stay in the scenario only: `check`
    // stands in for them, and the plan folder is what a guide ships with.
    let mut given = sc.answers.clone();
    given.sensitive.clear();
    let answers = serde_json::json!({"inputs": sc.inputs, "answers": given});
    write_file(
        &plan_dir.join("answers.json"),
        to_canonical_value(&answers).as_bytes(),
    )?;
    Ok(RecordOutput {
        frames: rec.frames.len(),
        steps: acted.len(),
        notes: rec.notes.clone(),
        plan: plan_path,
        scenario: scenario_path,
        display,
    })
}

/// The scenario that replays the recorded plan: every input's value, secrets as the scripted
/// person's answers, each confirm step approved (the scripted person went on with it), and the
/// expectation that it completes.
fn scenario(script: &Script, name: &str, plan: &crate::plan::Plan) -> ScenarioFile {
    let mut inputs = BTreeMap::new();
    let mut answers = Answers::default();
    for s in plan.steps.iter().filter(|s| s.confirm.is_some()) {
        answers.confirm.insert(s.id.clone(), Answer::Approve);
    }
    for i in &script.inputs {
        if i.sensitive {
            answers.sensitive.insert(i.id.clone(), i.value.clone());
        } else {
            inputs.insert(i.id.clone(), i.value.clone());
        }
    }
    ScenarioFile {
        schema: SCENARIO_SCHEMA.into(),
        id: name.into(),
        description: format!("Recorded with `stepreplay record`: {}", script.title),
        plan: format!("{name}/plan.json"),
        recording: name.into(),
        inputs,
        answers,
        perturbations: Vec::new(),
        clock: None,
        injections: Vec::new(),
        tags: Vec::new(),
        expect: Expected::completed(),
    }
}

/// The element with keyboard focus, which a typed key acts on.
pub(super) fn focused_of(ax: &AxSnapshot) -> Option<Found> {
    let mut hit = None;
    ax.walk(&mut |e| {
        if hit.is_none() && e.focused {
            hit = Some(e);
        }
    });
    let e = hit?;
    let (cx, cy) = e.frame.center();
    let ix = crate::resolve::FrameIndex::new(ax);
    let window = ix
        .by_id(&e.id)
        .and_then(|n| super::find::work_title(&ix, ix.window_of(n)));
    Some(Found {
        id: e.id.clone(),
        path: super::find::path_of(&e.id),
        point: (cx.round() as i32, cy.round() as i32),
        frame: Some(e.frame),
        window,
    })
}

/// A step in the `steps.json` shape of a realrec capture.
pub(super) fn step_entry(
    index: usize,
    step: &ScriptStep,
    before: usize,
    after: usize,
    found: Option<&Found>,
    before_dump: &Value,
    script: &Script,
) -> Value {
    let (op, description) = match step {
        ScriptStep::Click { count, .. } => ("click", format!("click ×{}", count.unwrap_or(1))),
        ScriptStep::Type {
            input: Some(id), ..
        } => {
            let secret = script.inputs.iter().any(|i| &i.id == id && i.sensitive);
            let what = if secret {
                "a secret".to_string()
            } else {
                format!("input {id:?}")
            };
            ("type", format!("type {what}"))
        }
        ScriptStep::Type { .. } => ("type", "type text".into()),
        ScriptStep::Key { keys, .. } => ("key", format!("press {keys}")),
        ScriptStep::Wait { .. } => ("wait", String::new()),
    };
    let target = match (step, found.and_then(|f| f.path.as_deref())) {
        // Keys act on the focused field; the importer finds it itself.
        (ScriptStep::Click { .. }, Some(path)) => node_at(before_dump, path).map(|n| {
            json!({
                "path": path,
                "role": n.get("role"),
                "name": n.get("name"),
                "extents": n.get("extents"),
                "states": n.get("states"),
                "actions": n.get("actions").cloned().unwrap_or(json!([])),
            })
        }),
        _ => None,
    };
    // How it was done; typed text only when it was no secret.
    let action = match step {
        ScriptStep::Click { button, count, .. } => json!({
            "op": op,
            "button": button.as_deref().unwrap_or("left"),
            "count": count.unwrap_or(1),
            "modifiers": [],
        }),
        ScriptStep::Key { keys, .. } => json!({ "op": op, "keys": keys }),
        ScriptStep::Type { text: Some(t), .. } => json!({ "op": op, "text": t }),
        ScriptStep::Type {
            input: Some(id), ..
        } => match script.inputs.iter().find(|i| &i.id == id) {
            Some(i) if !i.sensitive => json!({ "op": op, "text": i.value }),
            _ => json!({ "op": op }),
        },
        _ => json!({ "op": op }),
    };
    json!({
        "index": index,
        "before": format!("frame_{before:03}"),
        "after": format!("frame_{after:03}"),
        "action": action,
        "description": description,
        "target": target,
        "point": found.map(|f| [f.point.0, f.point.1]),
    })
}

/// `step 3/9: click ×1 “OK” → frame_003`: the progress line for the last step kept, in
/// `words` when given (a guide's words for its step), else in the recorder's.
pub(super) fn step_line(steps: &[Value], n: usize, of: usize, words: Option<&str>) -> String {
    let Some(e) = steps.last() else {
        return String::new();
    };
    let what = match words {
        Some(w) => format!("“{w}”"),
        None => {
            let name = e["target"]["name"]
                .as_str()
                .filter(|n| !n.is_empty())
                .map(|n| format!(" “{n}”"))
                .unwrap_or_default();
            format!("{}{name}", e["description"].as_str().unwrap_or_default())
        }
    };
    format!(
        "step {n}/{of}: {what} → {}",
        e["after"].as_str().unwrap_or_default()
    )
}

/// Covers, in every frame (and so in every crop and picture made from it), the fields a secret
/// was typed into and whatever echoes one (its words were redacted from the tree).
pub(super) fn cover_secrets(frames: &mut [Frame], acted: &[Acted], script: &Script) {
    let fields: BTreeSet<String> = acted
        .iter()
        .filter(|a| match &a.step {
            ScriptStep::Type {
                input: Some(id), ..
            } => script.inputs.iter().any(|i| &i.id == id && i.sensitive),
            _ => false,
        })
        .filter_map(|a| a.found.as_ref().map(|f| f.id.clone()))
        .collect();
    for f in frames {
        crate::paint::mask::cover(
            &mut f.shot,
            &crate::paint::mask::secret_boxes(&f.ax, &fields),
        );
    }
}

pub(super) fn write_capture(
    dir: &Path,
    frames: &[Frame],
    steps: &[Value],
    script: &Script,
    screen: (u32, u32),
    window_manager: Option<&str>,
    notes: &[String],
) -> Result<(), Error> {
    for (i, f) in frames.iter().enumerate() {
        write_file(
            &dir.join(format!("frame_{i:03}.png")),
            &encode_rgb(&f.shot)?,
        )?;
        write_file(
            &dir.join(format!("frame_{i:03}.ax.json")),
            to_canonical(&f.dump).as_bytes(),
        )?;
    }
    write_file(
        &dir.join("steps.json"),
        to_canonical(&Value::Array(steps.to_vec())).as_bytes(),
    )?;
    let meta = json!({
        "schema": "realrec.recording/1",
        "title": script.title,
        "command": script.app,
        "screen": { "width": screen.0, "height": screen.1 },
        "window_manager": window_manager,
        "frames": frames.len(),
        "steps": steps.len(),
        "notes": notes,
        "recorder": "stepreplay record",
    });
    write_file(&dir.join("meta.json"), to_canonical(&meta).as_bytes())
}

fn sleep_checked(d: Duration, stop: &AtomicBool) -> Result<(), Error> {
    let end = Instant::now() + d;
    while Instant::now() < end {
        check_stop(stop)?;
        std::thread::sleep(Duration::from_millis(20).min(end - Instant::now()));
    }
    Ok(())
}

pub(super) struct Recorder {
    pub(super) x: X11,
    tree: TreeReader,
    secrets: Vec<String>,
    pub(super) frames: Vec<Frame>,
    pub(super) notes: Vec<String>,
    timeout: Duration,
}

impl Recorder {
    /// Does one script step on the live desktop: `None` for a wait (no frame follows it), else
    /// the element it acted on, when known. `at` is the step's place in the script.
    pub(super) fn act(
        &mut self,
        step: &ScriptStep,
        at: &FieldPath,
        opts: &RecordOptions,
        screen: (u32, u32),
        stop: &AtomicBool,
    ) -> Result<Option<Option<Found>>, Error> {
        let before = self.frames.len() - 1;
        let found = match step {
            ScriptStep::Wait { ms } => {
                sleep_checked(Duration::from_millis(*ms), stop)?;
                return Ok(None);
            }
            ScriptStep::Click {
                target,
                button,
                count,
                ..
            } => {
                let f = &self.frames[before];
                let found = find(target, &f.ax, &f.dump, screen).map_err(|miss| {
                    let frame = format!("frame_{before:03}");
                    let seen = match &opts.keep_capture {
                        Some(d) => format!("kept as {}", d.join(format!("{frame}.png")).display()),
                        None => format!("{frame}; keep it with --keep-capture DIR to see it"),
                    };
                    InputError::new(&opts.script_path, Reason::TargetNotFound, miss.to_string())
                        .at(at.key("target"))
                        .hint(format!("the frame it looked at is {seen}"))
                })?;
                let b = match button.as_deref() {
                    Some("right") => 3,
                    Some("middle") => 2,
                    _ => 1,
                };
                self.x
                    .click(found.point.0, found.point.1, b, count.unwrap_or(1), &[])?;
                Some(found)
            }
            ScriptStep::Type { text, input, .. } => {
                let value = match (text, input) {
                    (Some(t), _) => t.clone(),
                    (None, Some(id)) => opts
                        .script
                        .inputs
                        .iter()
                        .find(|x| &x.id == id)
                        .map(|x| x.value.clone())
                        .unwrap_or_default(),
                    (None, None) => String::new(),
                };
                let focused = focused_of(&self.frames[before].ax);
                self.x.type_text(&value)?;
                focused
            }
            ScriptStep::Key { keys, .. } => {
                let chord = parse_chord(keys).ok_or_else(|| {
                    InputError::new(&opts.script_path, Reason::InvalidField, "not a key chord")
                        .at(at.key("keys"))
                })?;
                let focused = focused_of(&self.frames[before].ax);
                self.x.press(&chord)?;
                focused
            }
        };
        Ok(Some(found))
    }

    fn dump(&mut self, session: &Session, n: usize) -> Result<(Value, AxSnapshot), Error> {
        let pids = session.app_pids();
        let filter = (!session.own).then_some(pids.as_slice());
        let scrub: Vec<&str> = self.secrets.iter().map(String::as_str).collect();
        let frame = format!("frame_{n:03}");
        let mut dump = self
            .tree
            .dump(filter, (self.x.width, self.x.height), &frame, &scrub)?;
        for note in place_on_screen(
            &mut dump,
            &self.x.client_windows()?,
            &self.x.popup_windows()?,
        ) {
            let note = format!("{frame}: {note}");
            if !self.notes.contains(&note) {
                self.notes.push(note);
            }
        }
        let src = Source::from_text(format!("{frame}.ax.json"), dump.to_string());
        let ax = parse_atspi(&src)
            .map_err(|e| Error::Internal(format!("the recorder's own dump does not import: {e}")))?
            .ax;
        Ok((dump, ax))
    }

    /// Waits for the app's first window to show (up to 30 s), then keeps frame 0.
    fn wait_for_window(&mut self, session: &mut Session, stop: &AtomicBool) -> Result<(), Error> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            check_stop(stop)?;
            if let Some(how) = session.app_exit() {
                return Err(Error::Desktop(format!(
                    "the app exited before it showed a window: {how}"
                )));
            }
            let (_, ax) = self.dump(session, 0)?;
            if ax
                .apps
                .iter()
                .any(|a| a.windows.iter().any(|w| w.frame.width > 0))
            {
                break;
            }
            if Instant::now() > deadline {
                return Err(Error::Desktop(
                    "no window of the app showed in the accessibility tree within 30 s \
                     (is it a GTK, Qt or other AT-SPI-speaking app?)"
                        .into(),
                ));
            }
            sleep_checked(Duration::from_millis(100), stop)?;
        }
        self.settle(session, stop)
    }

    /// Waits until the pixels and then the tree stop changing (bounded), and keeps the frame.
    pub(super) fn settle(&mut self, session: &mut Session, stop: &AtomicBool) -> Result<(), Error> {
        let n = self.frames.len();
        let start = Instant::now();
        let timeout = self.timeout;
        let over = |s: Instant| s.elapsed() > timeout;
        sleep_checked(Duration::from_millis(150), stop)?;
        let mut shot = self.x.screenshot()?;
        let mut same = 0;
        let mut why = None;
        // Pixels: unchanged over three looks 80 ms apart.
        while same < 2 {
            check_stop(stop)?;
            if over(start) {
                why = Some("the screen kept changing");
                break;
            }
            sleep_checked(Duration::from_millis(80), stop)?;
            let next = self.x.screenshot()?;
            same = if next == shot { same + 1 } else { 0 };
            shot = next;
        }
        // The tree: two dumps in a row equal, and the screen still as it was.
        let (mut dump, mut ax) = self.dump(session, n)?;
        loop {
            if over(start) {
                why = why.or(Some("the tree kept changing"));
                break;
            }
            sleep_checked(Duration::from_millis(60), stop)?;
            let (d2, ax2) = self.dump(session, n)?;
            let shot2 = self.x.screenshot()?;
            let stable = d2 == dump && shot2 == shot;
            (dump, ax, shot) = (d2, ax2, shot2);
            if stable {
                break;
            }
        }
        if let Some(why) = why {
            self.notes.push(format!(
                "frame_{n:03}: {why} after {:.1} s; kept as it was then",
                self.timeout.as_secs_f64()
            ));
        }
        self.frames.push(Frame { shot, dump, ax });
        Ok(())
    }
}

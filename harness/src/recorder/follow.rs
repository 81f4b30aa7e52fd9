//! `stepreplay record --plan`: following a Foxstep guide live, on the app as it is installed
//! now. Each step's control is found by the replay's own resolver on the live screen and tree
//! (a control the guide names that the app no longer shows stops the run there), the step is
//! acted, and the screen and tree after it are kept. What was kept is imported as a recording
//! bound to the guide, so the verdict per step is the one `run` gives on it.
//!
//! A step that asks first is acted only when the person approves it (the scenario's answers,
//! or a question on the terminal); values come from the scenario or an answers file. The run
//! stops, before acting, at a step it may not or cannot do, and says why.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use image::{DynamicImage, RgbaImage};
use serde_json::Value;

use crate::errors::{Error, FieldPath, InputError, Reason};
use crate::import::import_followed;
use crate::json::{Source, parse_typed, read_text};
use crate::limits;
use crate::plan::fill_known;
use crate::plan::keys::parse_chord;
use crate::plan::{Action, Dialect, Plan, Step, Target, plan_from_source, read_plan_source};
use crate::png::decode_png;
use crate::resolve::crop::GrayScreen;
use crate::resolve::{FrameIndex, ResolveContext, resolve};
use crate::safe_path::safe_join;
use crate::scenario::{Answer, AnswersFile, Scenario, adhoc_scenario, load_scenario};

use super::RecordOptions;
use super::find::{Found, path_of, work_title};
use super::plan::Acted;
use super::record::{
    Live, Recorder, already_recorded, cover_secrets, focused_of, step_entry, step_line, suite_of,
    through_capture, write_capture,
};
use super::script::{SCRIPT_SCHEMA, Script, ScriptInput, ScriptStep, ScriptTarget};
use super::session::check_stop;
use crate::resolve::nearest_names;

/// What to follow, on what, and where the recording goes.
#[derive(Clone, Debug)]
pub(crate) struct FollowOptions {
    /// The Foxstep plan.
    pub plan: PathBuf,
    /// A scenario file whose inputs and answers the person gives.
    pub scenario: Option<PathBuf>,
    /// Or an answers file (`inputs`, `answers`), as `run --answers` reads.
    pub answers: Option<PathBuf>,
    /// The app to start, program first.
    pub app: Vec<String>,
    /// The recording folder: `SUITE/recordings/NAME`.
    pub out: PathBuf,
    /// Start an Xvfb even when `$DISPLAY` is set.
    pub own_display: bool,
    /// Replace a recording of that name that is already there.
    pub force: bool,
    /// The longest wait for the screen and tree to settle after a step.
    pub settle_timeout: Duration,
    /// Keep the raw capture in this folder.
    pub keep_capture: Option<PathBuf>,
}

/// A step that asks first, put to the person.
#[derive(Clone, Debug)]
pub(crate) struct Confirm<'a> {
    /// The step's number, from 1.
    pub number: u32,
    /// The guide's words for the step.
    pub text: &'a str,
    /// Why the guide asks.
    pub reason: &'a str,
}

/// What following the plan live did.
#[derive(Debug)]
pub(crate) struct FollowOutput {
    /// Frames kept.
    pub frames: usize,
    /// Plan steps acted on the live app.
    pub acted: usize,
    /// Why the live run stopped before the plan's end, when it did.
    pub halted: Option<String>,
    /// What the recorder could not do as asked (frames kept before they settled, …).
    pub notes: Vec<String>,
    /// The display used.
    pub display: String,
    /// The plan replayed on what was recorded, with the person's values and answers: the
    /// verdict per step is the one `run` gives on it.
    pub scenario: Scenario,
}

/// Follows the plan at `opts.plan` live. `confirm` is asked for each step that asks first and
/// that the given answers do not decide; it says whether the person approves.
pub(crate) fn follow(
    opts: &FollowOptions,
    confirm: &mut dyn FnMut(&Confirm<'_>) -> bool,
    stop: &AtomicBool,
    progress: &dyn Fn(&str),
) -> Result<FollowOutput, Error> {
    let (plan, plan_src, name) = open(opts)?;
    let given = given_values(opts)?;
    let (texts, halted_at) = typed_texts(&plan, &given);
    let ropts = recorder_options(opts, &plan, &texts);
    let Live {
        mut session,
        mut rec,
        screen,
        display,
    } = Live::start(&ropts, stop)?;
    let mut acted: Vec<Acted> = Vec::new();
    let mut steps_json: Vec<Value> = Vec::new();
    let mut halted = None;
    let mut run = |rec: &mut Recorder| -> Result<(), Error> {
        for (i, step) in plan.steps.iter().enumerate() {
            check_stop(stop)?;
            if step.talks_only() {
                continue;
            }
            if let Some((at, why)) = &halted_at
                && *at == i
            {
                halted = Some(why.clone());
                return Ok(());
            }
            if let Some(reason) = &step.confirm {
                // A decline in the answers is the person's word: it is not put to them again.
                let approved = match given.answers.confirm.get(&step.id) {
                    Some(a) => *a == Answer::Approve,
                    None => confirm(&Confirm {
                        number: step.number,
                        text: &step.text,
                        reason,
                    }),
                };
                if !approved {
                    halted = Some(format!(
                        "step {} “{}” asks first ({reason}) and was not approved: it was not done",
                        step.number, step.text
                    ));
                    return Ok(());
                }
            }
            let before = rec.frames.len() - 1;
            let done = act(rec, &plan, step, i, &texts, &given, screen, &ropts, stop)?;
            let (script_step, found) = match done {
                Ok(d) => d,
                Err(why) => {
                    halted = Some(format!("step {} “{}”: {why}", step.number, step.text));
                    return Ok(());
                }
            };
            rec.settle(&mut session, stop)?;
            let after = rec.frames.len() - 1;
            steps_json.push(step_entry(
                acted.len(),
                &script_step,
                before,
                after,
                found.as_ref(),
                &rec.frames[before].dump,
                &ropts.script,
            ));
            progress(&step_line(
                &steps_json,
                step.number as usize,
                plan.steps.len(),
                Some(&step.text),
            ));
            acted.push(Acted {
                step: script_step,
                before,
                after,
                found,
            });
        }
        Ok(())
    };
    let played = run(&mut rec);
    session.stop();
    played?;
    cover_secrets(&mut rec.frames, &acted, &ropts.script);
    let window_manager = session.window_manager.clone();
    let write = |dir: &Path| {
        write_capture(
            dir,
            &rec.frames,
            &steps_json,
            &ropts.script,
            screen,
            window_manager.as_deref(),
            &rec.notes,
        )
    };
    through_capture(opts.keep_capture.as_deref(), write, |capture| {
        let _ = std::fs::remove_dir_all(opts.out.join("frames"));
        import_followed(capture, &opts.out, &name, (&plan, &plan_src))
    })?;
    let mut scenario = adhoc_scenario(&opts.plan, &opts.out, None)?;
    scenario.file.inputs = given.inputs;
    scenario.file.answers = given.answers;
    scenario.file.clock = given.clock;
    Ok(FollowOutput {
        frames: rec.frames.len(),
        acted: acted.len(),
        halted,
        notes: rec.notes.clone(),
        display,
        scenario,
    })
}

/// The plan to follow, read and lowered, and the recording's name; refused before any
/// desktop starts when it is not a desktop guide or would replace a recording.
fn open(opts: &FollowOptions) -> Result<(Plan, Source, String), Error> {
    let plan_src = read_plan_source(&opts.plan)?;
    let plan = plan_from_source(&plan_src)?;
    if plan.dialect != Dialect::Foxstep {
        return Err(InputError::new(
            &opts.plan,
            Reason::InvalidArgument,
            "record --plan follows Foxstep guides on a desktop",
        )
        .hint("a devthink browser plan is recorded with `stepreplay record-browser`")
        .into());
    }
    let (_, name) = suite_of(&opts.out)?;
    if !opts.force && opts.out.exists() {
        return Err(already_recorded(&opts.out, &name));
    }
    Ok((plan, plan_src, name))
}

/// What the recorder needs: a script with no steps (the plan's steps are acted here) whose
/// inputs are the texts typed, so the recorder scrubs the secret ones.
fn recorder_options(
    opts: &FollowOptions,
    plan: &Plan,
    texts: &BTreeMap<usize, ScriptInput>,
) -> RecordOptions {
    RecordOptions {
        script: Script {
            schema: SCRIPT_SCHEMA.into(),
            title: plan.title.clone(),
            app: opts.app.clone(),
            screen: None,
            inputs: texts.values().cloned().collect(),
            steps: Vec::new(),
            done: None,
        },
        script_path: opts.plan.clone(),
        out: opts.out.clone(),
        own_display: opts.own_display,
        force: opts.force,
        settle_timeout: opts.settle_timeout,
        keep_capture: opts.keep_capture.clone(),
    }
}

/// The values and answers the person gives: a scenario's, an answers file's, or none.
fn given_values(opts: &FollowOptions) -> Result<AnswersFile, InputError> {
    if let Some(p) = &opts.scenario {
        let s = load_scenario(p)?;
        return Ok(AnswersFile {
            inputs: s.file.inputs,
            answers: s.file.answers,
            clock: s.file.clock,
        });
    }
    match &opts.answers {
        Some(p) => parse_typed(&read_text(p, limits::SCENARIO_BYTES)?),
        None => Ok(AnswersFile::default()),
    }
}

/// The text each typing step types, as a script input (a secret's marked sensitive, so the
/// recorder scrubs it from every tree it keeps), by step index; and the first step whose text
/// needs a value nobody gave, with why.
fn typed_texts(
    plan: &Plan,
    given: &AnswersFile,
) -> (BTreeMap<usize, ScriptInput>, Option<(usize, String)>) {
    let mut out = BTreeMap::new();
    for (i, step) in plan.steps.iter().enumerate() {
        let Some(text) = step.action.text() else {
            continue;
        };
        let mut sensitive = false;
        for id in text.inputs() {
            let input = plan.inputs.iter().find(|x| x.id == id);
            let secret = input.is_some_and(|x| x.sensitive);
            sensitive |= secret;
            let known = if secret {
                given.answers.sensitive.contains_key(id)
            } else {
                given.inputs.contains_key(id)
                    || input.is_some_and(|x| !x.each_time && x.example.is_some())
            };
            if !known {
                let why = format!(
                    "step {} “{}” types the input `{id}`, and no value was given for it",
                    step.number, step.text
                );
                return (out, Some((i, why)));
            }
        }
        let value = fill_known(plan, &given.inputs, text, &given.answers.sensitive);
        out.insert(
            i,
            ScriptInput {
                id: format!("step-{}", step.number),
                name: format!("step {}", step.number),
                value,
                sensitive,
            },
        );
    }
    (out, None)
}

/// What acting one step did: the script step that stands for it in the capture and the
/// control it acted on; or, as `Err`, why the live app would not let it be done.
type Acting = Result<(ScriptStep, Option<Found>), String>;

/// Does one plan step on the live app.
#[allow(clippy::too_many_arguments)]
fn act(
    rec: &mut Recorder,
    plan: &Plan,
    step: &Step,
    i: usize,
    texts: &BTreeMap<usize, ScriptInput>,
    given: &AnswersFile,
    screen: (u32, u32),
    opts: &RecordOptions,
    stop: &AtomicBool,
) -> Result<Acting, Error> {
    let key = |keys: &str| ScriptStep::Key {
        keys: keys.into(),
        text: None,
    };
    let script_step = match &step.action {
        Action::Click(c) => {
            if c.drag || !c.modifiers.is_empty() {
                return Ok(Err(
                    "live following does not do drags or clicks with held keys".into(),
                ));
            }
            let found = match locate(rec, plan, step, screen) {
                Ok(f) => f,
                Err(why) => return Ok(Err(why)),
            };
            let button = match c.button.as_str() {
                "right" => 3,
                "middle" => 2,
                _ => 1,
            };
            rec.x
                .click(found.point.0, found.point.1, button, c.count, &[])?;
            let s = ScriptStep::Click {
                target: ScriptTarget::default(),
                button: Some(c.button.clone()),
                count: Some(c.count),
                text: None,
                confirm: false,
            };
            return Ok(Ok((s, Some(found))));
        }
        Action::Type { .. } | Action::Paste { text: Some(_) } => {
            let submit = match &step.action {
                Action::Type { submit, .. } => submit.as_deref(),
                _ => None,
            };
            let Some(input) = texts.get(&i) else {
                return Ok(Err("no text to type".into()));
            };
            let mut found = None;
            if step.target.is_some() {
                let f = match locate(rec, plan, step, screen) {
                    Ok(f) => f,
                    Err(why) => return Ok(Err(why)),
                };
                let focused = focused_of(&rec.frames[rec.frames.len() - 1].ax);
                if focused.as_ref().map(|x| &x.id) != Some(&f.id) {
                    rec.x.click(f.point.0, f.point.1, 1, 1, &[])?;
                }
                found = Some(f);
            }
            if given.answers.replace.get(&step.id) == Some(&true)
                && let Some(all) = parse_chord("ctrl+a")
            {
                rec.x.press(&all)?;
            }
            let s = ScriptStep::Type {
                text: None,
                input: Some(input.id.clone()),
                words: None,
            };
            let at = FieldPath::root().key("steps").index(i);
            let acted = rec.act(&s, &at, opts, screen, stop)?.flatten();
            if let Some(keys) = submit
                && let Some(chord) = parse_chord(keys)
            {
                rec.x.press(&chord)?;
            }
            return Ok(Ok((s, found.or(acted))));
        }
        Action::Press { keys } => key(keys),
        Action::Copy => key("ctrl+c"),
        Action::Paste { text: None } => key("ctrl+v"),
        Action::Navigate { .. } | Action::Ask | Action::Do => {
            return Ok(Err(format!(
                "live following does not do a `{}` step on a desktop",
                step.action.name()
            )));
        }
    };
    if let ScriptStep::Key { keys, .. } = &script_step
        && parse_chord(keys).is_none()
    {
        return Ok(Err(format!(
            "`{keys}` is not a key chord the recorder can press"
        )));
    }
    let at = FieldPath::root().key("steps").index(i);
    let found = rec.act(&script_step, &at, opts, screen, stop)?.flatten();
    Ok(Ok((script_step, found)))
}

/// The step's control on the live screen, found by the replay's resolver (name, role, window,
/// then the step's picture as a tie-break). A tie is not a choice: the run stops there.
fn locate(rec: &Recorder, plan: &Plan, step: &Step, screen: (u32, u32)) -> Result<Found, String> {
    let Some(target) = step.target.as_ref() else {
        return Err("the step names no control".into());
    };
    let frame = &rec.frames[rec.frames.len() - 1];
    let ix = FrameIndex::new(&frame.ax);
    let crop = picture(plan, target);
    let gray = crop.as_ref().map(|_| {
        let rgba: RgbaImage = DynamicImage::ImageRgb8(frame.shot.clone()).to_rgba8();
        GrayScreen::new(&rgba)
    });
    let anchors: Vec<&Target> = Vec::new();
    let r = resolve(
        target,
        &ix,
        &ResolveContext {
            screen,
            crop: gray.as_ref().zip(crop.as_ref()),
            anchors: &anchors,
        },
    );
    let Some(id) = r.element.clone() else {
        let note = r
            .note
            .clone()
            .unwrap_or_else(|| "no control matches".into());
        let near = target
            .label
            .as_deref()
            .map(|l| nearest_names(&ix, l, screen, |_| false))
            .unwrap_or_default();
        return Err(format!("not on the live screen: {note}{near}"));
    };
    if r.ambiguous {
        return Err(format!(
            "{} controls on the live screen tie for the step's target; the guide must say which",
            r.candidate_count
        ));
    }
    let Some(node) = ix.by_id(&id) else {
        return Err("the resolver chose a control the tree does not hold".into());
    };
    let (cx, cy) = r.click.unwrap_or_else(|| node.frame.center());
    Ok(Found {
        id: id.clone(),
        path: path_of(&id),
        point: (cx.round() as i32, cy.round() as i32),
        frame: Some(node.frame),
        window: work_title(&ix, ix.window_of(node)),
    })
}

/// The step's picture of its control, when the plan has one that reads.
fn picture(plan: &Plan, target: &Target) -> Option<RgbaImage> {
    let rel = target.crop.as_ref()?;
    let base = &plan.base_dir;
    let path = safe_join(base, &rel.to_string_lossy(), base, FieldPath::root()).ok()?;
    decode_png(&path).ok()
}

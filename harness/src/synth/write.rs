//! Writing a whole synthetic recording to disk: [`synthesize`] plays a script, renders every
//! frame, and writes `recording.json`, `frames/NNN.png` + `frames/NNN.ax.json`, and — when
//! asked — the Foxstep plan with its crops, the variants and the scenario files.
//!
//! Every byte is a function of the script: canonical JSON, PNGs encoded with fixed settings,
//! no clock, no hash-map order. Nothing is written outside the folders named.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use image::RgbImage;

use super::build::{build, frame_id};
use super::foxplan::{apply_variant, crop_name, make_plan};
use super::script::{Script, parse_script};
use crate::errors::{Error, FieldPath, InputError, Reason};
use crate::json::{read_text, to_canonical, to_canonical_value};
use crate::limits::SCRIPT_BYTES;
use crate::output::write_file;
use crate::paint::render;
use crate::png::encode_rgb;
use crate::recording::format::{
    FrameRef, RECORDING_SCHEMA, RecordingFile, Screen, SourceInfo, SourceKind,
};
use crate::recording::{AxSnapshot, Element};
use crate::secret::redact;

/// What [`synthesize`] wrote.
#[derive(Debug, Default)]
pub struct SynthOutput {
    /// Every file written, in writing order.
    pub files: Vec<PathBuf>,
    /// Number of frames.
    pub frames: usize,
}

struct Writer {
    out: SynthOutput,
}

impl Writer {
    fn write(&mut self, path: &Path, bytes: &[u8]) -> Result<(), Error> {
        write_file(path, bytes)?;
        self.out.files.push(path.to_path_buf());
        Ok(())
    }

    /// Removes a folder this command owns (stale frames or crops from an older script).
    fn clear(&self, dir: &Path) -> Result<(), Error> {
        if dir.is_dir() {
            std::fs::remove_dir_all(dir).map_err(|source| Error::Write {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        Ok(())
    }
}

fn folder_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Reads the script at `script_path` and [`synthesize`]s it; errors about the script carry
/// its line and column as well as the field path.
pub(crate) fn synthesize_file(
    script_path: &Path,
    out: &Path,
    plan_out: Option<&Path>,
) -> Result<SynthOutput, Error> {
    let src = read_text(script_path, SCRIPT_BYTES)?;
    let script = parse_script(&src)?;
    synthesize(&script, script_path, out, plan_out).map_err(|e| match e {
        Error::Input(e) if e.position.is_none() && e.file == script_path => {
            let position = src.position(&e.path);
            Error::Input(Box::new(e.at_position(position)))
        }
        other => other,
    })
}

/// Plays `script` (read from `script_path`) and writes the recording into `out`; with
/// `plan_out`, the plan and crops into it, variants and scenarios beside it.
pub fn synthesize(
    script: &Script,
    script_path: &Path,
    out: &Path,
    plan_out: Option<&Path>,
) -> Result<SynthOutput, Error> {
    let mut built = build(script, script_path)?;
    let (fields, secrets) = secret_fields(script);
    let k = script.scale;
    let screen = Screen {
        width: script.screen[0] * k,
        height: script.screen[1] * k,
        scale: k,
    };
    let mut w = Writer {
        out: SynthOutput::default(),
    };
    w.clear(&out.join("frames"))?;
    let mut shots = Vec::new();
    let mut frames = Vec::new();
    for (i, ax) in built.frames.iter_mut().enumerate() {
        let id = frame_id(i);
        // Drawn as the screen showed it, then the secret's words leave the tree and its boxes
        // are covered, so neither the AX file nor the picture (nor a crop cut from it) holds it.
        let mut img = render(ax, &screen);
        redact_tree(ax, &secrets);
        crate::paint::mask::cover(&mut img, &crate::paint::mask::secret_boxes(ax, &fields));
        let png = format!("frames/{id}.png");
        let axf = format!("frames/{id}.ax.json");
        w.write(&out.join(&png), &encode_rgb(&img)?)?;
        w.write(&out.join(&axf), to_canonical_value(ax).as_bytes())?;
        frames.push(FrameRef {
            id,
            screenshot: png,
            ax: axf,
            dom: None,
            step_id: None,
        });
        shots.push(img);
    }
    let file = RecordingFile {
        schema: RECORDING_SCHEMA.to_string(),
        name: script.name.clone(),
        screen,
        source: SourceInfo {
            kind: SourceKind::Synthetic,
            detail: Some(format!("stepreplay synth {}", folder_name(script_path))),
            notes: Vec::new(),
        },
        frames,
        transitions: built.transitions.clone(),
        exchanges: Vec::new(),
    };
    w.write(
        &out.join("recording.json"),
        to_canonical_value(&file).as_bytes(),
    )?;
    w.out.frames = built.frames.len();

    let Some(plan_dir) = plan_out else {
        return Ok(w.out);
    };
    let (plan, crops) = make_plan(script, &built, &shots, &screen);
    write_plan(
        &mut w,
        plan_dir,
        &to_canonical_value(&plan),
        crops
            .iter()
            .enumerate()
            .map(|(i, c)| (i as u32 + 1, c.as_ref())),
    )?;
    let suite = plan_dir.parent().unwrap_or(Path::new("."));
    for (vi, v) in script.variants.iter().enumerate() {
        let bad = |msg: String| {
            InputError::new(script_path, Reason::InvalidField, msg)
                .at(FieldPath::root().key("variants").index(vi))
        };
        if v.name.is_empty() || v.name.contains(['/', '\\']) || v.name.starts_with('.') {
            return Err(bad(format!("`{}` is not a plain folder name", v.name)).into());
        }
        let at = FieldPath::root().key("variants").index(vi);
        let (value, origin) = apply_variant(&plan, v, script_path, at)?;
        write_plan(
            &mut w,
            &suite.join(&v.name),
            &to_canonical(&value),
            origin.iter().enumerate().map(|(new, &old)| {
                // An edit may drop a step's crop; write only the pictures the plan names.
                let named = value["steps"][new]["target"]["crop"].is_string();
                (new as u32 + 1, crops[old].as_ref().filter(|_| named))
            }),
        )?;
    }
    write_scenarios(&mut w, script, script_path, (out, plan_dir, suite))?;
    Ok(w.out)
}

/// The controls that sensitive steps type into, and the values those steps set (what the
/// screen shows of the secret): a step is sensitive when it reads a sensitive input.
fn secret_fields(script: &Script) -> (BTreeSet<String>, Vec<String>) {
    let sensitive: Vec<&str> = script
        .inputs
        .iter()
        .filter(|i| i.sensitive)
        .map(|i| i.id.as_str())
        .collect();
    let mut fields = BTreeSet::new();
    let mut secrets = Vec::new();
    for step in &script.steps {
        let reads = step.reads.iter().any(|r| sensitive.contains(&r.as_str()))
            || step
                .template
                .as_deref()
                .is_some_and(|t| sensitive.iter().any(|id| t.contains(&format!("{{{id}}}"))));
        if !reads {
            continue;
        }
        fields.extend(step.control.iter().cloned());
        secrets.extend(
            step.changes
                .iter()
                .filter(|c| c.set.is_some())
                .filter_map(|c| c.value.clone())
                .filter(|v| !v.is_empty()),
        );
    }
    (fields, secrets)
}

/// Hides each of `secrets` in every text of the tree.
fn redact_tree(ax: &mut AxSnapshot, secrets: &[String]) {
    if secrets.is_empty() {
        return;
    }
    let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
    fn walk(e: &mut Element, secrets: &[&str]) {
        for s in [&mut e.title, &mut e.value, &mut e.description]
            .into_iter()
            .flatten()
        {
            *s = redact(s, secrets);
        }
        e.children.iter_mut().for_each(|c| walk(c, secrets));
    }
    for w in ax.apps.iter_mut().flat_map(|a| &mut a.windows) {
        w.elements.iter_mut().for_each(|e| walk(e, &secrets));
    }
}

/// The script's scenario files, beside the plan folders: each names its plan (the base plan's
/// folder or a variant's) and the recording in `out`.
fn write_scenarios(
    w: &mut Writer,
    script: &Script,
    script_path: &Path,
    (out, plan_dir, suite): (&Path, &Path, &Path),
) -> Result<(), Error> {
    for (si, sc) in script.scenarios.iter().enumerate() {
        let dir = match &sc.variant {
            Some(v) if script.variants.iter().any(|x| &x.name == v) => v.clone(),
            Some(v) => {
                return Err(InputError::new(
                    script_path,
                    Reason::UnknownId,
                    format!("no variant is named `{v}`"),
                )
                .at(FieldPath::root().key("scenarios").index(si).key("variant"))
                .into());
            }
            None => folder_name(plan_dir),
        };
        let mut file = sc.file.clone();
        if file.id.is_empty() || file.id.contains(['/', '\\']) || file.id.starts_with('.') {
            return Err(InputError::new(
                script_path,
                Reason::InvalidField,
                format!("`{}` is not a plain file name", file.id),
            )
            .at(FieldPath::root().key("scenarios").index(si).key("id"))
            .into());
        }
        file.plan = format!("{dir}/plan.json");
        file.recording = folder_name(out);
        w.write(
            &suite.join(format!("{}.json", file.id)),
            to_canonical_value(&file).as_bytes(),
        )?;
    }
    Ok(())
}

fn write_plan<'a>(
    w: &mut Writer,
    dir: &Path,
    json: &str,
    crops: impl Iterator<Item = (u32, Option<&'a RgbImage>)>,
) -> Result<(), Error> {
    w.clear(&dir.join("crops"))?;
    w.write(&dir.join("plan.json"), json.as_bytes())?;
    for (n, crop) in crops {
        if let Some(img) = crop {
            w.write(&dir.join(crop_name(n)), &encode_rgb(img)?)?;
        }
    }
    Ok(())
}

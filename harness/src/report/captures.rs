//! `run --captures DIR`: each acting step's before, after and diff PNGs, written from the
//! report and the recordings it names (a consumer like the other formats; the replay only
//! computed the summaries). The HTML page shows the diff images it finds here.
//!
//! Layout: `DIR/<scenario>/<mode>/<NN>-<step>-{before,after,diff}.png`, names slugged so no id
//! can climb out of `DIR`. A frame pair shared by many steps is rendered once and copied.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::model::{CaptureFiles, Report};
use crate::diff::files::write_png;
use crate::diff::step::diff_image;
use crate::errors::Error;
use crate::output::{copy_file, create_dir};
use crate::recording::{Recording, load_recording};
use crate::text::slug;
use crate::text::word;

/// What [`write_captures`] wrote.
#[derive(Clone, Debug, Default)]
pub struct CapturesOutput {
    /// PNG files written.
    pub files: usize,
    /// Steps whose pictures could not be made, with why (the report keeps their summaries).
    pub missing: Vec<String>,
}

/// Writes the pictures of every step that carries a diff and records their paths in the
/// report's steps.
pub fn write_captures(report: &mut Report, dir: &Path) -> Result<CapturesOutput, Error> {
    let mut out = CapturesOutput::default();
    let mut recordings: BTreeMap<String, Option<Recording>> = BTreeMap::new();
    // (recording, before, after) → the first diff PNG written for it.
    let mut rendered: BTreeMap<(String, String, String), PathBuf> = BTreeMap::new();
    let mut used = BTreeSet::new();
    for sc in &mut report.scenarios {
        let mut name = slug(&sc.id);
        let mut n = 2;
        while !used.insert(name.clone()) {
            name = format!("{}-{n}", slug(&sc.id));
            n += 1;
        }
        let rec = recordings
            .entry(sc.recording.clone())
            .or_insert_with(|| load_recording(Path::new(&sc.recording)).ok())
            .as_ref();
        for (mode, run) in &mut sc.runs {
            let folder = dir.join(&name).join(word(mode));
            for st in &mut run.steps {
                let (Some((before, after)), Some(_)) = (&st.frames, &st.diff) else {
                    continue;
                };
                let frames = rec.and_then(|r| Some((r.frame(before)?, r.frame(after)?)));
                let Some((fb, fa)) = frames else {
                    out.missing
                        .push(format!("{} step {}: frames unreadable", sc.id, st.number));
                    continue;
                };
                let stem = format!("{:02}-{}", st.number, slug(&st.step_id));
                let path = |what: &str| folder.join(format!("{stem}-{what}.png"));
                let files = CaptureFiles {
                    before: path("before").display().to_string(),
                    after: path("after").display().to_string(),
                    diff: path("diff").display().to_string(),
                };
                let key = (sc.recording.clone(), before.to_string(), after.to_string());
                let diff_to = path("diff");
                let made = match rendered.get(&key) {
                    Some(first) => copy_file(first, &diff_to).map(|()| true),
                    None => match diff_image(fb, fa) {
                        Ok(img) => {
                            create_dir(&folder)?;
                            write_png(&diff_to, &img)?;
                            rendered.insert(key, diff_to.clone());
                            Ok(true)
                        }
                        Err(why) => {
                            out.missing
                                .push(format!("{} step {}: {why}", sc.id, st.number));
                            Ok(false)
                        }
                    },
                }?;
                if !made {
                    continue;
                }
                copy_file(&fb.screenshot_path, &path("before"))?;
                copy_file(&fa.screenshot_path, &path("after"))?;
                out.files += 3;
                st.captures = Some(files);
            }
        }
    }
    Ok(out)
}

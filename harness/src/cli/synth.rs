//! `stepreplay synth SCRIPT --out recordings/NAME [--plan-out scenarios/NAME | --no-plan]`

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::Error;
use crate::synth::synthesize_file;
use crate::text::plural;

use super::Global;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  stepreplay synth recordings/scripts/mail-send-reminder.json \
                        --out recordings/mail-send-reminder\n  (writes the recording, then \
                        scenarios/mail-send-reminder/plan.json, its crops and the scenario files)"
)]
pub(crate) struct Args {
    /// The desktop script (`stepreplay-synth/1` JSON).
    script: PathBuf,
    /// The recording folder to write.
    #[arg(long)]
    out: PathBuf,
    /// The folder for the plan and its crops; variants and scenario files go beside it.
    /// Default: `scenarios/<the recording folder's name>`, where `run` looks.
    #[arg(long, conflicts_with = "no_plan")]
    plan_out: Option<PathBuf>,
    /// Write the recording only: no plan, crops or scenario files.
    #[arg(long)]
    no_plan: bool,
}

pub(crate) fn run(args: Args, g: &Global) -> Result<u8, Error> {
    let plan_out = match (&args.plan_out, args.no_plan) {
        (_, true) => None,
        (Some(p), false) => Some(p.clone()),
        (None, false) => args
            .out
            .file_name()
            .map(|name| Path::new("scenarios").join(name)),
    };
    let out = synthesize_file(&args.script, &args.out, plan_out.as_deref())?;
    let (recording, rest): (Vec<&PathBuf>, Vec<&PathBuf>) =
        out.files.iter().partition(|f| f.starts_with(&args.out));
    if g.quiet() {
        return Ok(0);
    }
    eprintln!(
        "wrote recording {}: {} frames, {} files",
        args.out.display(),
        out.frames,
        recording.len()
    );
    // The rest, folder by folder: JSON files by name, pictures (crops) counted.
    let mut folders: BTreeMap<&Path, (Vec<String>, usize)> = BTreeMap::new();
    for f in rest {
        let mut dir = f.parent().unwrap_or(Path::new(""));
        if dir.ends_with("crops") {
            dir = dir.parent().unwrap_or(dir);
        }
        let entry = folders.entry(dir).or_default();
        if f.extension().is_some_and(|e| e == "png") {
            entry.1 += 1;
        } else if let Some(name) = f.file_name() {
            entry.0.push(name.to_string_lossy().into_owned());
        }
    }
    for (dir, (names, pictures)) in folders {
        let mut what = names;
        if pictures > 0 {
            what.push(plural(pictures, "crop", "crops"));
        }
        eprintln!("wrote {}: {}", dir.display(), what.join(", "));
    }
    Ok(0)
}

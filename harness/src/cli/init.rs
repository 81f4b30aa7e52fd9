//! `stepreplay init SCENARIO --plan PLAN --recording NAME`: a first scenario file for a plan
//! and a recording, filled from the plan, checked before it is written.

use std::path::{Component, Path, PathBuf};

use crate::errors::{Error, InputError, Reason};
use crate::json::{Source, to_canonical_value};
use crate::output::write_file;
use crate::plan::load_plan;
use crate::scenario::{check_scenario, scaffold};

use super::Global;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  stepreplay init scenarios/mail-send-reminder-2.json \
                        --plan scenarios/mail-send-reminder/plan.json --recording mail-send-reminder\n  \
                        then: stepreplay check scenarios/mail-send-reminder-2.json; stepreplay run"
)]
pub(crate) struct Args {
    /// The scenario file to write (its name, without `.json`, is the scenario's id).
    scenario: PathBuf,
    /// The plan, inside the scenario file's folder (a plan file or a skill-export folder).
    #[arg(long)]
    plan: PathBuf,
    /// The recording's folder name under `recordings/` beside the scenario's folder.
    #[arg(long)]
    recording: String,
}

pub(crate) fn run(args: Args, g: &Global) -> Result<u8, Error> {
    let refuse = |reason, msg: String| InputError::new(&args.scenario, reason, msg);
    if args.scenario.exists() {
        return Err(refuse(Reason::InvalidArgument, "the file exists".into())
            .hint("name a new scenario file; init never overwrites")
            .into());
    }
    let id = args
        .scenario
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = args.scenario.parent().unwrap_or(Path::new(""));
    let rel = relative_inside(&args.plan, dir).ok_or_else(|| {
        refuse(
            Reason::PathEscape,
            format!(
                "the plan `{}` is not inside `{}`",
                args.plan.display(),
                dir.display()
            ),
        )
        .hint("a scenario names its plan relative to its own folder: put the plan there")
    })?;
    // A skill-export folder is read as its plan.json, as everywhere.
    let plan = load_plan(&args.plan)?;
    let (file, to_fill) = scaffold(&plan, &id, &rel, &args.recording);
    let text = to_canonical_value(&file);
    // Checked as `check` would check it, before anything is written.
    let report = check_scenario(&Source::from_text(&args.scenario, text.clone()));
    if report.exit_code() != 0 {
        let first = report.findings.first();
        return Err(refuse(
            Reason::InvalidArgument,
            first.map_or("the scenario does not check".into(), |f| {
                format!("{} at `{}`: {}", f.reason, f.path, f.message)
            }),
        )
        .hint("name a recording folder under recordings/ beside the scenario's folder")
        .into());
    }
    write_file(&args.scenario, &text)?;
    g.note(format!("wrote {} (id `{id}`)", args.scenario.display()));
    for f in &to_fill {
        println!("  fill in {f}: the plan gives no value");
    }
    g.note(format!("next: stepreplay run {}", args.scenario.display()));
    Ok(0)
}

/// `path` relative to `dir`, when it lies inside it (lexically: no `..`, no root).
fn relative_inside(path: &Path, dir: &Path) -> Option<String> {
    let rel = path.strip_prefix(dir).ok()?;
    rel.components()
        .all(|c| matches!(c, Component::Normal(_)))
        .then(|| rel.to_string_lossy().replace('\\', "/"))
        .filter(|s| !s.is_empty())
}

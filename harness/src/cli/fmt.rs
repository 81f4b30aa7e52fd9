//! `stepreplay fmt PATH… [--check]`: plans in canonical form, in place (or standard input to
//! standard output).

use std::path::{Path, PathBuf};

use crate::errors::{Error, InputError, Reason};
use crate::json;
use crate::plan::foxstep::canonical_plan_text;
use crate::plan::{
    devthink, is_plan_file, no_plans_under, parse_handed, plan_files_under, read_plan_source,
    sensitive_values,
};
use crate::secret::redact_json_text;

use super::Global;
use super::depth_arg::DepthArg;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stepreplay fmt plan.json
  stepreplay fmt --check scenarios/        # every plan under it; exit 1 and a diff if any is not canonical
  stepreplay fmt - < plan.json > canonical.json")]
pub(crate) struct Args {
    /// Plan files or folders (every plan under them) to format in place; `-` formats standard
    /// input to standard output.
    #[arg(required = true, value_name = "PATH")]
    plans: Vec<PathBuf>,
    /// Change nothing; exit 1 and show a diff when a file is not canonical.
    #[arg(long)]
    check: bool,
    #[command(flatten)]
    depth: DepthArg,
}

/// Formats (or checks) every file, even after one fails, so that one run names every
/// problem; the worst outcome decides the exit code.
pub(crate) fn run(args: Args, g: &Global) -> Result<u8, Error> {
    let mut code = 0;
    let mut files = Vec::new();
    for path in &args.plans {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let found = plan_files_under(path, is_plan_file);
        if found.is_empty() {
            let e = Error::from(no_plans_under(path, "plans"));
            eprintln!("{} {e}", g.error_prefix());
            code = code.max(e.exit_code());
        }
        files.extend(found);
    }
    for path in &files {
        match one(path, args.check, args.depth.levels(), g) {
            Ok(c) => code = code.max(c),
            Err(e) => {
                eprintln!("{} {e}", g.error_prefix());
                code = code.max(e.exit_code());
            }
        }
    }
    Ok(code)
}

/// 0 canonical (or now formatted), 1 not canonical under `--check`.
fn one(path: &Path, check: bool, depth: usize, g: &Global) -> Result<u8, Error> {
    let src = read_plan_source(path)?.with_depth(depth);
    let value = json::parse_value(&src)?;
    // Refuse to re-lay-out a plan that does not parse: duplicate keys would be lost.
    let (canonical, secrets): (String, Vec<String>) = if devthink::is_protocolv2(&value) {
        // The options strings are the reviewed text: laid out around, never rewritten.
        let plan = devthink::parse_protocolv2(&src)?;
        let secrets = devthink::sensitive_values(&plan)
            .into_iter()
            .map(str::to_string)
            .collect();
        (json::to_canonical(&value), secrets)
    } else {
        let handed = parse_handed(&src)?;
        if !handed.at.is_root() {
            return Err(InputError::new(
                path,
                Reason::UnsupportedFileType,
                "this is an MCP get_guide response, not a plan file",
            )
            .hint("fmt formats plan files; save the response's `plan` as plan.json to format it")
            .into());
        }
        let secrets = sensitive_values(&handed.plan)
            .into_iter()
            .map(str::to_string)
            .collect();
        (canonical_plan_text(&value), secrets)
    };
    let stdin = path == Path::new(json::STDIN);
    if stdin && !check {
        print!("{canonical}");
        return Ok(0);
    }
    if canonical == src.text {
        return Ok(0);
    }
    if check {
        // The diff shows the file's text: hide sensitive values in both sides first.
        let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
        let old = redact_json_text(&src.text, &secrets);
        let new = redact_json_text(&canonical, &secrets);
        let diff = similar::TextDiff::from_lines(&old, &new);
        print!(
            "{}",
            diff.unified_diff().header(
                &src.path.display().to_string(),
                &format!("{} (canonical)", src.path.display())
            )
        );
        return Ok(1);
    }
    crate::output::write_file(path, canonical.as_bytes())?;
    // On standard error: standard output is the formatted text when reading `-`.
    if !g.quiet() {
        eprintln!("formatted {}", path.display());
    }
    Ok(0)
}

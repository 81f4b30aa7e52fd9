//! `stepreplay fmt PLAN… [--check]`

use std::path::{Path, PathBuf};

use stepreplay::plan::foxstep::canonical_plan_text;
use stepreplay::plan::{
    devthink, parse_handed, read_plan_source, redact_json_text, sensitive_values,
};
use stepreplay::{Error, InputError, Reason, json};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Plan files to format in place.
    #[arg(required = true)]
    plans: Vec<PathBuf>,
    /// Change nothing; exit 1 and show a diff when a file is not canonical.
    #[arg(long)]
    check: bool,
}

/// Formats (or checks) every file, even after one fails, so that one run names every
/// problem; the worst outcome decides the exit code.
pub fn run(args: Args) -> Result<u8, Error> {
    let mut code = 0;
    for path in &args.plans {
        match one(path, args.check) {
            Ok(c) => code = code.max(c),
            Err(e) => {
                eprintln!("error: {e}");
                code = code.max(e.exit_code());
            }
        }
    }
    Ok(code)
}

/// 0 canonical (or now formatted), 1 not canonical under `--check`.
fn one(path: &Path, check: bool) -> Result<u8, Error> {
    let src = read_plan_source(path)?;
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
                &path.display().to_string(),
                &format!("{} (canonical)", path.display())
            )
        );
        return Ok(1);
    }
    stepreplay::output::write_file(path, canonical.as_bytes())?;
    eprintln!("formatted {}", path.display());
    Ok(0)
}

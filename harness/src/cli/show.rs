//! `stepreplay show RECORDING [--frame ID]`: a recording as text, for a person to inspect.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::errors::{Error, InputError, Reason};
use crate::recording::{Element, Recording, load_recording};

use super::Global;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stepreplay show recordings/mail-send-reminder
  stepreplay show recordings/mail-send-reminder --frame 001")]
pub(crate) struct Args {
    /// The recording folder.
    recording: PathBuf,
    /// Print only this frame's AX tree.
    #[arg(long)]
    frame: Option<String>,
}

pub(crate) fn run(args: Args, _: &Global) -> Result<u8, Error> {
    let rec = load_recording(&args.recording)?;
    print!("{}", render(&rec, args.frame.as_deref())?);
    Ok(0)
}

/// The text `show` prints.
fn render(rec: &Recording, only: Option<&str>) -> Result<String, Error> {
    let mut out = String::new();
    let f = &rec.file;
    let _ = writeln!(
        out,
        "recording {}: {}×{} px at {}x, {} frames, {} transitions ({:?})",
        f.name,
        f.screen.width,
        f.screen.height,
        f.screen.scale,
        f.frames.len(),
        f.transitions.len(),
        f.source.kind
    );
    if only.is_none() {
        out.push_str("\ntransitions:\n");
        for t in &f.transitions {
            let _ = writeln!(
                out,
                "  {} --{}{}--> {}{}",
                t.from,
                t.action,
                t.element
                    .as_deref()
                    .map(|e| format!(" {e}"))
                    .unwrap_or_default(),
                t.to,
                t.step_id
                    .as_deref()
                    .map(|s| format!("  (step {s})"))
                    .unwrap_or_default()
            );
        }
    }
    let frames: Vec<_> = match only {
        Some(id) => vec![rec.frame(id).ok_or_else(|| {
            InputError::new(
                rec.dir.join("recording.json"),
                Reason::UnknownId,
                format!("no frame has the id `{id}`"),
            )
        })?],
        None => rec.frames.iter().collect(),
    };
    for fr in frames {
        let _ = writeln!(
            out,
            "\nframe {} ({})",
            fr.id,
            fr.screenshot_path
                .strip_prefix(&rec.dir)
                .unwrap_or(&fr.screenshot_path)
                .display()
        );
        for app in &fr.ax.apps {
            let _ = writeln!(
                out,
                "  app {}{}{}",
                app.name,
                app.bundle_id
                    .as_deref()
                    .map(|b| format!(" ({b})"))
                    .unwrap_or_default(),
                if app.frontmost { " [frontmost]" } else { "" }
            );
            for w in &app.windows {
                let r = w.frame;
                let _ = writeln!(
                    out,
                    "    {} {:?} #{} @{},{} {}×{}{}",
                    w.kind.as_deref().unwrap_or("window"),
                    w.title,
                    w.id,
                    r.x,
                    r.y,
                    r.width,
                    r.height,
                    if w.focused { " [focused]" } else { "" }
                );
                for e in &w.elements {
                    element(&mut out, e, 3);
                }
            }
        }
    }
    Ok(out)
}

fn element(out: &mut String, e: &Element, depth: usize) {
    let mut line = format!("{}{} #{}", "  ".repeat(depth), e.ax_role, e.id);
    if let Some(s) = &e.subrole {
        let _ = write!(line, " ({s})");
    }
    for (k, v) in [
        ("title", &e.title),
        ("description", &e.description),
        ("value", &e.value),
        ("placeholder", &e.placeholder),
        ("labelled-by", &e.labelled_by),
    ] {
        if let Some(v) = v {
            let _ = write!(line, " {k}={v:?}");
        }
    }
    let r = e.frame;
    let _ = write!(line, " @{},{} {}×{}", r.x, r.y, r.width, r.height);
    for (flag, on) in [
        ("disabled", !e.enabled),
        ("focused", e.focused),
        ("selected", e.selected),
    ] {
        if on {
            let _ = write!(line, " [{flag}]");
        }
    }
    out.push_str(&line);
    out.push('\n');
    for c in &e.children {
        element(out, c, depth + 1);
    }
}

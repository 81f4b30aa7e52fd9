//! `stepreplay import SRC --out DIR [--plan PLAN]`: turn a real recording into one the harness
//! replays, its actions bound to a plan's steps when a plan is given.

use std::path::PathBuf;

use crate::Error;
use crate::import::import_realrec;
use crate::plan::{plan_from_source, read_plan_source};

use super::Global;

#[derive(Debug, clap::Args)]
#[command(after_help = "Example:
  stepreplay import realrec/ --out recordings/textedit")]
pub(crate) struct Args {
    /// A `realrec` folder: `steps.json`, `frame_NNN.png` and `frame_NNN.ax.json` (the full
    /// AT-SPI tree; `frame_NNN.mac.json` is read for a frame that has none, and
    /// `frame_NNN.macapptree.json` — a macOS window's tree as macapptree dumps it, the
    /// screenshot that window's — for a frame with neither).
    src: PathBuf,
    /// The recording folder to write (`recording.json`, `frames/`).
    #[arg(long)]
    out: PathBuf,
    /// The recording's name (default: the output folder's name).
    #[arg(long)]
    name: Option<String>,
    /// A Foxstep plan written from this recording: its steps that act are bound to the
    /// recorded actions in order (the import is refused when counts or kinds disagree).
    #[arg(long)]
    plan: Option<PathBuf>,
    /// Import even when a step's recorded target is not in the frame before it: such steps
    /// are bound to no plan step (unbound, not judged) instead of refusing the import.
    #[arg(long)]
    allow_partial: bool,
}

pub(crate) fn run(args: Args, g: &Global) -> Result<u8, Error> {
    let name = args.name.unwrap_or_else(|| {
        args.out
            .file_name()
            .map_or_else(|| "imported".into(), |n| n.to_string_lossy().into_owned())
    });
    let plan = match &args.plan {
        Some(path) => {
            let src = read_plan_source(path)?;
            Some((plan_from_source(&src)?, src))
        }
        None => None,
    };
    let o = import_realrec(
        &args.src,
        &args.out,
        &name,
        plan.as_ref().map(|(p, s)| (p, s)),
        args.allow_partial,
    )?;
    g.note(format!(
        "imported {} frames and {} steps into {}",
        o.frames,
        o.transitions,
        args.out.display()
    ));
    let apptree = &o.macapptree_frames;
    match (o.atspi_frames, o.mac_frames.len()) {
        (0, 0) => {}
        (_, 0) => g.note("  trees: full AT-SPI trees (frame_NNN.ax.json)"),
        (0, _) if apptree.is_empty() => {
            g.note("  trees: frame_NNN.mac.json (on-screen nodes only: no .ax.json found)")
        }
        (0, _) => g.note(format!(
            "  trees: frame_NNN.mac.json (on-screen nodes only: no .ax.json found) for {}",
            o.mac_frames.join(", ")
        )),
        (_, _) => g.note(format!(
            "  trees: full AT-SPI trees, but frame_NNN.mac.json (on-screen nodes only) for {}",
            o.mac_frames.join(", ")
        )),
    }
    match (o.atspi_frames + o.mac_frames.len(), apptree.len()) {
        (_, 0) => {}
        (0, _) => g.note(
            "  trees: frame_NNN.macapptree.json (macapptree dumps: no .ax.json or .mac.json found)",
        ),
        (_, _) => g.note(format!(
            "  trees: frame_NNN.macapptree.json (no .ax.json or .mac.json) for {}",
            apptree.join(", ")
        )),
    }
    for n in o.notes() {
        println!("  {n}");
    }
    for f in &o.truncated {
        println!("  {f}: the recorder stopped at its node limit; the tree is incomplete");
    }
    for m in &o.missing {
        println!("  {m}: left unbound (--allow-partial)");
    }
    for s in &o.unmatched {
        println!("  {s}: no element focused in the frame before it (no element recorded)");
    }
    Ok(0)
}

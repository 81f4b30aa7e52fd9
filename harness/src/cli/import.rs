//! `stepreplay import SRC --out DIR`: turn a real recording into one the harness replays.

use std::path::PathBuf;

use stepreplay::Error;
use stepreplay::recording::import::import_realrec;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A `realrec` folder: `steps.json`, `frame_NNN.png` and `frame_NNN.mac.json`.
    src: PathBuf,
    /// The recording folder to write (`recording.json`, `frames/`).
    #[arg(long)]
    out: PathBuf,
    /// The recording's name (default: the output folder's name).
    #[arg(long)]
    name: Option<String>,
}

pub fn run(args: Args) -> Result<u8, Error> {
    let name = args.name.unwrap_or_else(|| {
        args.out
            .file_name()
            .map_or_else(|| "imported".into(), |n| n.to_string_lossy().into_owned())
    });
    let o = import_realrec(&args.src, &args.out, &name)?;
    println!(
        "imported {} frames and {} steps into {}",
        o.frames,
        o.transitions,
        args.out.display()
    );
    for s in &o.unmatched {
        println!("  {s}: the acted-on element is not in the frame before it (no element recorded)");
    }
    Ok(0)
}

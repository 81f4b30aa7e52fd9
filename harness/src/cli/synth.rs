//! `stepreplay synth SCRIPT --out recordings/NAME [--plan-out scenarios/NAME]`

use std::path::PathBuf;

use stepreplay::Error;
use stepreplay::synth::synthesize_file;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The desktop script (`stepreplay-synth/1` JSON).
    script: PathBuf,
    /// The recording folder to write.
    #[arg(long)]
    out: PathBuf,
    /// The folder for the plan and its crops; variants and scenario files go beside it.
    #[arg(long)]
    plan_out: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<u8, Error> {
    let out = synthesize_file(&args.script, &args.out, args.plan_out.as_deref())?;
    eprintln!(
        "wrote {} frames, {} files to {}",
        out.frames,
        out.files.len(),
        args.out.display()
    );
    Ok(0)
}

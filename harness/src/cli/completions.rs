//! `stepreplay completions SHELL` and `stepreplay man`: shell completion scripts and a man page,
//! generated from the command line's own definitions so they cannot drift from it.

use std::path::PathBuf;

use crate::Error;
use crate::output::write_file;
use clap::CommandFactory;

use super::Cli;
use super::Global;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  stepreplay completions bash > ~/.local/share/bash-completion/completions/stepreplay"
)]
pub(crate) struct CompletionArgs {
    /// The shell to complete in.
    shell: clap_complete::Shell,
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  stepreplay man --out target/man && man -l target/man/stepreplay.1"
)]
pub(crate) struct ManArgs {
    /// Write `stepreplay.1` and one page per subcommand (`stepreplay-run.1`, …) here instead
    /// of printing the main page.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

pub(crate) fn completions(args: CompletionArgs) -> Result<u8, Error> {
    let mut cmd = Cli::command();
    clap_complete::generate(args.shell, &mut cmd, "stepreplay", &mut std::io::stdout());
    Ok(0)
}

pub(crate) fn man(args: ManArgs, g: &Global) -> Result<u8, Error> {
    let cmd = Cli::command();
    let render = |c: clap::Command| -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        clap_mangen::Man::new(c)
            .render(&mut out)
            .map_err(|e| Error::Internal(format!("cannot render the man page: {e}")))?;
        Ok(out)
    };
    let Some(dir) = args.out else {
        use std::io::Write as _;
        let page = render(cmd)?;
        let _ = std::io::stdout().write_all(&page);
        return Ok(0);
    };
    let mut written = vec![("stepreplay".to_string(), render(cmd.clone())?)];
    for sub in cmd.get_subcommands() {
        // clap names are `&'static str` without its `string` feature; a few bytes per page,
        // once, in a process that exits next.
        let name: &'static str = format!("stepreplay-{}", sub.get_name()).leak();
        written.push((name.to_string(), render(sub.clone().name(name))?));
    }
    for (name, page) in &written {
        write_file(&dir.join(format!("{name}.1")), page)?;
    }
    g.note(format!(
        "wrote {} man pages to {}",
        written.len(),
        dir.display()
    ));
    Ok(0)
}

//! `stepreplay diff A B`: two screenshots (a pixelmatch 7.2.0-exact diff) or two AX snapshots
//! (a structural diff). Exit 0 when identical within the options, 1 when different, 2 on bad
//! input.

use std::path::{Path, PathBuf};

use crate::diff::files::{FileKind, diff_files, sniff};
use crate::diff::summary::DEFAULT_DENSITY_WINDOW;
use crate::diff::{Masks, Options, PixelSummary, Tolerance, Verdict, ax, ax_text};
use crate::errors::{Error, InputError, Reason};
use crate::json::to_canonical_value;
use crate::recording::{Rect, load_ax};

use super::OutputFormat;
use super::{Global, unit_interval};
use crate::diff::regions::DEFAULT_MERGE_GAP;

/// Flags carry pixelmatch's option names so people can move over from it.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stepreplay diff before.png after.png --out diff.png
  stepreplay diff before.png after.png --threshold 0.05 --format json
  stepreplay diff frame_001.ax.json frame_002.ax.json   # AX trees, by element id")]
pub(crate) struct Args {
    /// The expected (before) file: a PNG or an AX snapshot.
    a: PathBuf,
    /// The actual (after) file, of the same kind.
    b: PathBuf,
    /// Matching threshold, 0 to 1; smaller is more sensitive (pixelmatch `threshold`).
    #[arg(long, default_value_t = 0.1, value_parser = unit_interval, allow_negative_numbers = true)]
    threshold: f64,
    /// Count anti-aliased pixels as different (pixelmatch `includeAA`).
    #[arg(long)]
    include_aa: bool,
    /// Opacity of the original image in the diff output, 0 to 1 (pixelmatch `alpha`).
    #[arg(long, default_value_t = 0.1, value_parser = unit_interval, allow_negative_numbers = true)]
    alpha: f64,
    /// Colour of anti-aliased pixels in the diff output, `R,G,B` (pixelmatch `aaColor`).
    #[arg(long, value_parser = parse_color, default_value = "255,255,0")]
    aa_color: [u8; 3],
    /// Colour of different pixels in the diff output, `R,G,B` (pixelmatch `diffColor`).
    #[arg(long, value_parser = parse_color, default_value = "255,0,0")]
    diff_color: [u8; 3],
    /// Colour of pixels darker in B, `R,G,B` (pixelmatch `diffColorAlt`).
    #[arg(long, value_parser = parse_color)]
    diff_color_alt: Option<[u8; 3]>,
    /// Draw only the different pixels, on a transparent background (pixelmatch `diffMask`).
    #[arg(long)]
    diff_mask: bool,
    /// Blend semi-transparent pixels over white instead of pixelmatch's checkerboard.
    #[arg(long)]
    no_checkerboard: bool,
    /// Write the diff image here (PNG); nothing is drawn without it.
    #[arg(long, value_name = "PNG")]
    out: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: OutputFormat,
    /// Pass when at most this many pixels differ.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    max_diff_pixels: Option<u64>,
    /// Pass when at most this fraction (0 to 1) of the pixels differ.
    #[arg(long, value_name = "RATIO", value_parser = unit_interval, allow_negative_numbers = true)]
    max_diff_pixel_ratio: Option<f64>,
    /// Exclude a rectangle `x,y,w,h` (image pixels) from the comparison; repeatable.
    #[arg(long, value_parser = parse_rect, value_name = "X,Y,W,H")]
    mask: Vec<Rect>,
    /// Exclude an AX element's frame (from --mask-ax); repeatable.
    #[arg(long, value_name = "ID", requires = "mask_ax")]
    mask_element: Vec<String>,
    /// The AX snapshot that --mask-element ids are looked up in.
    #[arg(long, value_name = "AX.json")]
    mask_ax: Option<PathBuf>,
    /// Side of the window in which the densest change is measured, in pixels.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_DENSITY_WINDOW,
          value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    density_window: u32,
    /// Changes closer than this many pixels are one region.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MERGE_GAP, allow_negative_numbers = true)]
    merge_gap: u32,
}

fn parse_numbers<const N: usize, T: std::str::FromStr>(s: &str) -> Result<[T; N], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() != N {
        return Err(format!("expected {N} comma-separated numbers, got `{s}`"));
    }
    let mut out = Vec::with_capacity(N);
    for p in parts {
        out.push(
            p.parse()
                .map_err(|_| format!("`{p}` is not a valid number here"))?,
        );
    }
    out.try_into().map_err(|_| String::from("wrong count"))
}

fn parse_color(s: &str) -> Result<[u8; 3], String> {
    parse_numbers::<3, u8>(s).map_err(|e| format!("{e} (a colour is R,G,B with 0..255 each)"))
}

fn parse_rect(s: &str) -> Result<Rect, String> {
    let [x, y, width, height] = parse_numbers::<4, i32>(s)?;
    if width < 0 || height < 0 {
        return Err(format!("`{s}` has a negative size"));
    }
    Ok(Rect::new(x, y, width, height))
}

/// The validated form of [`Args`] for a pixel diff.
struct PixelConfig {
    options: Options,
    tolerance: Tolerance,
    masks: Masks,
}

fn bad_arg(flag: &str, message: String) -> Error {
    super::usage(InputError::new(flag, Reason::InvalidArgument, message))
}

fn pixel_config(args: &Args) -> Result<PixelConfig, Error> {
    let mut masks = Masks::new();
    for r in &args.mask {
        masks.push(*r);
    }
    if let Some(ax_path) = &args.mask_ax {
        let snapshot = load_ax(ax_path)?;
        masks
            .push_elements(&snapshot, args.mask_element.iter().map(String::as_str))
            .map_err(|e| {
                InputError::new(
                    ax_path,
                    Reason::UnknownId,
                    format!("no element has the id `{}`", e.0),
                )
            })?;
    }
    Ok(PixelConfig {
        options: Options {
            threshold: args.threshold,
            include_aa: args.include_aa,
            alpha: args.alpha,
            aa_color: args.aa_color,
            diff_color: args.diff_color,
            diff_color_alt: args.diff_color_alt,
            diff_mask: args.diff_mask,
            checkerboard: !args.no_checkerboard,
        },
        tolerance: Tolerance {
            threshold: args.threshold,
            max_diff_pixels: args.max_diff_pixels,
            max_diff_pixel_ratio: args.max_diff_pixel_ratio,
        },
        masks,
    })
}

pub(crate) fn run(args: Args, g: &Global) -> Result<u8, Error> {
    let (ka, kb) = (sniff(&args.a)?, sniff(&args.b)?);
    match (ka, kb) {
        (FileKind::Png, FileKind::Png) => run_pixel(&args, g),
        (FileKind::Json, FileKind::Json) => run_ax(&args, g),
        _ => Err(InputError::new(
            &args.b,
            Reason::UnsupportedFileType,
            format!(
                "`{}` and `{}` are not the same kind of file",
                args.a.display(),
                args.b.display()
            ),
        )
        .hint("diff two PNG screenshots or two AX snapshots")
        .into()),
    }
}

fn run_pixel(args: &Args, g: &Global) -> Result<u8, Error> {
    let cfg = pixel_config(args)?;
    let image = args.out.as_ref().map(|_| &cfg.masks);
    let (mut diff, png) = diff_files(&args.a, &args.b, &cfg.options, image)?;
    let mask_stats = (!cfg.masks.is_empty()).then(|| cfg.masks.apply(&mut diff));
    if let (Some(path), Some(png)) = (&args.out, png) {
        crate::output::write_file(path, png)?;
    }
    let summary = PixelSummary::new(
        &diff,
        mask_stats,
        &cfg.tolerance,
        args.merge_gap,
        args.density_window,
    );
    match args.format {
        OutputFormat::Json => print!("{}", to_canonical_value(&summary)),
        // `-q`: the exit code says it all, as `cmp -s` does.
        OutputFormat::Human if g.quiet() => {}
        OutputFormat::Human => print!("{}", render_pixel_human(&summary)),
    }
    Ok(summary.verdict.exit_code())
}

fn render_pixel_human(s: &PixelSummary) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} of {} pixels differ ({:.4}%), {}×{}",
        s.mismatched,
        s.pixels,
        s.ratio * 100.0,
        s.width,
        s.height
    );
    if let Some(m) = &s.masks {
        let _ = writeln!(
            o,
            "masked: {} rectangles, {} pixels, {} differing pixels excluded",
            m.rects, m.excluded_pixels, m.excluded_mismatched
        );
    }
    if s.regions_total > 0 {
        let _ = writeln!(o, "{} changed regions:", s.regions_total);
        for r in s.regions.iter().take(10) {
            let _ = writeln!(
                o,
                "  {},{} {}×{} ({} pixels)",
                r.x, r.y, r.width, r.height, r.pixels
            );
        }
        if s.regions_total > 10 {
            let _ = writeln!(o, "  … {} more", s.regions_total - 10);
        }
        let d = &s.density;
        let _ = writeln!(
            o,
            "densest {n}×{n} window: {} pixels ({:.1}%) at {},{}",
            d.max_changed,
            d.fraction * 100.0,
            d.window.x,
            d.window.y,
            n = d.n
        );
    }
    let _ = writeln!(
        o,
        "{}",
        match s.verdict {
            Verdict::Identical => "identical".to_string(),
            Verdict::WithinTolerance {
                mismatched,
                allowed,
            } => format!("within tolerance ({mismatched} ≤ {allowed} allowed)"),
            Verdict::Different {
                mismatched,
                allowed,
            } => format!("different ({mismatched} > {allowed} allowed)"),
        }
    );
    o
}

fn run_ax(args: &Args, g: &Global) -> Result<u8, Error> {
    if args.out.is_some() {
        return Err(bad_arg(
            "--out",
            "a diff image needs two PNGs, not AX snapshots".into(),
        ));
    }
    let (before, after) = (load_ax(&args.a)?, load_ax(&args.b)?);
    let d = ax::diff(&before, &after);
    match args.format {
        OutputFormat::Json => print!("{}", to_canonical_value(&d)),
        OutputFormat::Human if g.quiet() => {}
        OutputFormat::Human => {
            let names = (display(&args.a), display(&args.b));
            print!(
                "{}",
                ax_text::unified(&before, &after, (&names.0, &names.1))
            );
            print!("{}", render_ax_summary(&d.summary));
        }
    }
    Ok(if d.is_empty() { 0 } else { 1 })
}

fn display(p: &Path) -> String {
    p.display().to_string()
}

fn render_ax_summary(s: &ax::AxSummary) -> String {
    let parts: Vec<String> = [
        ("added", s.added),
        ("removed", s.removed),
        ("moved", s.moved),
        ("reparented", s.reparented),
        ("role changed", s.role_changed),
        ("relabelled", s.relabelled),
        ("value changed", s.value_changed),
        ("focus changed", s.focus_changed),
        ("enabled changed", s.enabled_changed),
        ("selected changed", s.selected_changed),
        ("windows opened", s.windows_opened),
        ("windows closed", s.windows_closed),
        ("windows changed", s.windows_changed),
    ]
    .into_iter()
    .filter(|(_, n)| *n > 0)
    .map(|(k, n)| format!("{n} {k}"))
    .collect();
    if parts.is_empty() {
        format!("no AX changes ({} elements)\n", s.elements_after)
    } else {
        format!(
            "{} ({} → {} elements)\n",
            parts.join(", "),
            s.elements_before,
            s.elements_after
        )
    }
}

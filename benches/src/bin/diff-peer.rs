//! Helper for `benches/peers/run.sh`: writes the benchmark screenshot pairs and times our pixel
//! diff *in process*, the same way the node script times pixelmatch, so the peer comparison
//! measures the work and not process start-up.
//!
//! ```text
//! diff-peer gen DIR                      # DIR/desktop-WxH-{a,b,a-reencoded}.png per size
//! diff-peer time MODE A.png B.png ITERS  # MODE: compare | e2e | e2e-out
//! ```
//!
//! `time` prints one JSON line: `{"mismatched": N, "ms": [t1, t2, …]}`. `compare` times only
//! the diff call on decoded pixels (like timing only `pixelmatch()` in node); `e2e` times
//! reading and decoding both files, the diff and the count; `e2e-out` also draws and writes the
//! diff PNG (to the system temp folder).

use std::path::{Path, PathBuf};
use std::time::Instant;

use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use stepreplay::diff::Masks;
use stepreplay::diff::files::diff_files;
use stepreplay::diff::pixel::{Options, diff};
use stepreplay_benches::desktop::{Desktop, SIZES, Variant};

fn main() -> anyhow_free::Result {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["gen", dir] => generate(Path::new(dir)),
        ["time", mode, a, b, iters] => {
            let iters: usize = iters.parse().map_err(|_| "ITERS must be a number")?;
            time(mode, Path::new(a), Path::new(b), iters)
        }
        _ => Err("usage: diff-peer gen DIR | diff-peer time compare|e2e|e2e-out A B ITERS".into()),
    }
}

/// A tiny `Result` alias so errors print as messages without pulling in `anyhow`.
mod anyhow_free {
    pub type Result = std::result::Result<(), Box<dyn std::error::Error>>;
}

fn generate(dir: &Path) -> anyhow_free::Result {
    std::fs::create_dir_all(dir)?;
    for (w, h, s) in SIZES {
        for (v, tag) in [(Variant::Before, "a"), (Variant::After, "b")] {
            let path = dir.join(format!("desktop-{w}x{h}-{tag}.png"));
            // Default compression, like the screenshots the tools are fed in practice.
            let img = Desktop::paint(w, h, s, v).image;
            img.save(&path)?;
            println!("{}", path.display());
            if tag == "a" {
                // The same pixels in other bytes (another tool's screenshot of the same
                // screen): an identical pair no byte comparison can short-cut.
                let other = dir.join(format!("desktop-{w}x{h}-a-reencoded.png"));
                let file = std::io::BufWriter::new(std::fs::File::create(&other)?);
                let enc =
                    PngEncoder::new_with_quality(file, CompressionType::Fast, FilterType::Sub);
                image::ImageEncoder::write_image(
                    enc,
                    img.as_raw(),
                    w,
                    h,
                    image::ExtendedColorType::Rgba8,
                )?;
                println!("{}", other.display());
            }
        }
    }
    Ok(())
}

fn time(mode: &str, a: &Path, b: &Path, iters: usize) -> anyhow_free::Result {
    let opts = Options::default();
    let mut ms = Vec::with_capacity(iters);
    let mut mismatched = 0;
    match mode {
        "compare" => {
            let (ia, ib) = (image::open(a)?.to_rgba8(), image::open(b)?.to_rgba8());
            let (w, h) = ia.dimensions();
            for _ in 0..iters {
                let t = Instant::now();
                let d = diff(ia.as_raw(), ib.as_raw(), w, h, &opts, None)?;
                ms.push(t.elapsed().as_secs_f64() * 1e3);
                mismatched = d.mismatched;
            }
        }
        "e2e" | "e2e-out" => {
            let out_path: PathBuf = std::env::temp_dir().join("stepreplay-diff-peer-out.png");
            for _ in 0..iters {
                let t = Instant::now();
                let masks = Masks::new();
                let image = (mode == "e2e-out").then_some(&masks);
                let (d, png) = diff_files(a, b, &opts, image)?;
                if let Some(png) = png {
                    std::fs::write(&out_path, png)?;
                }
                ms.push(t.elapsed().as_secs_f64() * 1e3);
                mismatched = d.mismatched;
            }
        }
        other => return Err(format!("unknown mode `{other}`").into()),
    }
    let list: Vec<String> = ms.iter().map(|v| format!("{v:.3}")).collect();
    println!(
        "{{\"mismatched\": {mismatched}, \"ms\": [{}]}}",
        list.join(", ")
    );
    Ok(())
}

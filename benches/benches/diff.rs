//! Pixel diff benches (stage `diff`), at 1440×900, 2880×1800 and 3840×2160 on synthetic
//! desktops (see `stepreplay_benches::desktop`):
//!
//! - `diff/compare`: the pixelmatch-exact diff and count on decoded pixels, no diff image.
//! - `diff/end_to_end`: read and decode both PNGs (in parallel), diff, count.
//! - `diff/end_to_end_out`: the same, plus drawing the diff image and writing it as PNG.
//! - `diff/regions`: the changed regions of the pair's mismatch mask, ours (`regions`, raw
//!   components and merged as a step's diff does) against imageproc's `connected_components`
//!   plus one pass for the components' boxes; the mask → grey image copy is not timed. The
//!   peer is built only with `--features imageproc`.
//!
//! Inputs are rendered and written to a temp folder before any timing. Throughput is in pixels.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use stepreplay::diff::Masks;
use stepreplay::diff::files::diff_files;
use stepreplay::diff::pixel::{Options, diff};
#[cfg(feature = "imageproc")]
use stepreplay::diff::regions::Region;
use stepreplay::diff::regions::{DEFAULT_MERGE_GAP, regions};
use stepreplay_benches::desktop::{Desktop, SIZES, Variant};

struct Pair {
    label: String,
    pixels: u64,
    a_path: PathBuf,
    b_path: PathBuf,
    a: image::RgbaImage,
    b: image::RgbaImage,
}

fn pairs() -> Vec<Pair> {
    let dir = std::env::temp_dir().join("stepreplay-bench-diff");
    std::fs::create_dir_all(&dir).expect("temp folder");
    SIZES
        .iter()
        .map(|&(w, h, s)| {
            let a = Desktop::paint(w, h, s, Variant::Before).image;
            let b = Desktop::paint(w, h, s, Variant::After).image;
            let a_path = dir.join(format!("desktop-{w}x{h}-a.png"));
            let b_path = dir.join(format!("desktop-{w}x{h}-b.png"));
            a.save(&a_path).expect("write bench input");
            b.save(&b_path).expect("write bench input");
            Pair {
                label: format!("{w}x{h}"),
                pixels: u64::from(w) * u64::from(h),
                a_path,
                b_path,
                a,
                b,
            }
        })
        .collect()
}

fn bench_diff(c: &mut Criterion) {
    let pairs = pairs();
    let opts = Options::default();
    let out_path = std::env::temp_dir()
        .join("stepreplay-bench-diff")
        .join("out.png");

    let mut g = c.benchmark_group("diff/compare");
    for p in &pairs {
        g.throughput(Throughput::Elements(p.pixels));
        g.bench_function(&p.label, |bench| {
            bench.iter(|| {
                let d = diff(
                    p.a.as_raw(),
                    p.b.as_raw(),
                    p.a.width(),
                    p.a.height(),
                    &opts,
                    None,
                );
                black_box(d.map(|d| d.mismatched))
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("diff/end_to_end");
    g.sample_size(20);
    for p in &pairs {
        g.throughput(Throughput::Elements(p.pixels));
        g.bench_function(&p.label, |bench| {
            bench.iter(|| {
                let (d, _) = diff_files(&p.a_path, &p.b_path, &opts, None).expect("decode");
                black_box(d.mismatched)
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("diff/end_to_end_out");
    g.sample_size(10);
    for p in &pairs {
        g.throughput(Throughput::Elements(p.pixels));
        g.bench_function(&p.label, |bench| {
            bench.iter(|| {
                let masks = Masks::new();
                let (d, png) =
                    diff_files(&p.a_path, &p.b_path, &opts, Some(&masks)).expect("decode");
                std::fs::write(&out_path, png.expect("an image")).expect("write");
                black_box(d.mismatched)
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("diff/regions");
    g.sample_size(20);
    for p in &pairs {
        let (w, h) = p.a.dimensions();
        let mask = diff(p.a.as_raw(), p.b.as_raw(), w, h, &opts, None)
            .expect("same sizes")
            .mask;
        #[cfg(feature = "imageproc")]
        let gray = image::GrayImage::from_fn(w, h, |x, y| {
            let i = (y * w + x) as usize;
            image::Luma([if (mask[i / 64] >> (i % 64)) & 1 == 1 {
                255
            } else {
                0
            }])
        });
        // Same answer before timing: the raw components are imageproc's, box for box.
        #[cfg(feature = "imageproc")]
        {
            let mut theirs = imageproc_boxes(&gray);
            theirs.sort_unstable_by_key(|r| (r.y, r.x, r.height, r.width, r.pixels));
            assert_eq!(regions(&mask, w, h, 0), theirs, "{}", p.label);
        }
        g.throughput(Throughput::Elements(p.pixels));
        g.bench_function(format!("ours_raw/{}", p.label), |bench| {
            bench.iter(|| black_box(regions(&mask, w, h, 0)))
        });
        g.bench_function(format!("ours_merged/{}", p.label), |bench| {
            bench.iter(|| black_box(regions(&mask, w, h, DEFAULT_MERGE_GAP)))
        });
        #[cfg(feature = "imageproc")]
        g.bench_function(format!("imageproc/{}", p.label), |bench| {
            bench.iter(|| black_box(imageproc_boxes(&gray)))
        });
    }
    g.finish();
}

#[cfg(feature = "imageproc")]
/// imageproc's 8-connected components of the changed (non-zero) pixels, as boxes in label
/// order, so it answers what `regions` answers.
fn imageproc_boxes(mask: &image::GrayImage) -> Vec<Region> {
    use imageproc::region_labelling::{Connectivity, connected_components};
    let labels = connected_components(mask, Connectivity::Eight, image::Luma([0u8]));
    // Per label: left, top, right, bottom (inclusive), pixel count.
    let mut boxes: Vec<[u32; 5]> = Vec::new();
    for (x, y, l) in labels.enumerate_pixels() {
        let Some(k) = (l.0[0] as usize).checked_sub(1) else {
            continue;
        };
        if k >= boxes.len() {
            boxes.resize(k + 1, [u32::MAX, u32::MAX, 0, 0, 0]);
        }
        let b = &mut boxes[k];
        *b = [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y), b[4] + 1];
    }
    boxes
        .iter()
        .map(|&[x0, y0, x1, y1, n]| Region {
            x: x0,
            y: y0,
            width: x1 - x0 + 1,
            height: y1 - y0 + 1,
            pixels: u64::from(n),
        })
        .collect()
}

criterion_group!(benches, bench_diff);
criterion_main!(benches);

//! Pixel diff benches (stage `diff`), at 1440×900, 2880×1800 and 3840×2160 on synthetic
//! desktops (see `stepreplay_benches::desktop`):
//!
//! - `diff/compare`: the pixelmatch-exact diff and count on decoded pixels, no diff image.
//! - `diff/end_to_end`: read and decode both PNGs (in parallel), diff, count.
//! - `diff/end_to_end_out`: the same, plus drawing the diff image and writing it as PNG.
//!
//! Inputs are rendered and written to a temp folder before any timing. Throughput is in pixels.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use stepreplay::diff::files::{decode_pair, write_png};
use stepreplay::diff::pixel::{Options, diff, diff_images};
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
    let desktop = Desktop::new();
    SIZES
        .iter()
        .map(|&(w, h)| {
            let a = desktop.render(w, h, Variant::Before);
            let b = desktop.render(w, h, Variant::After);
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
                let (a, b) = decode_pair(&p.a_path, &p.b_path).expect("decode");
                black_box(diff_images(&a, &b, &opts, None).map(|d| d.mismatched))
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
                let (a, b) = decode_pair(&p.a_path, &p.b_path).expect("decode");
                let mut out = image::RgbaImage::new(a.width(), a.height());
                let d = diff_images(&a, &b, &opts, Some(&mut out)).map(|d| d.mismatched);
                write_png(&out_path, &out).expect("write");
                black_box(d)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_diff);
criterion_main!(benches);

//! Our side of the OpenCV comparison in `benches/peers/crop.sh`.
//!
//! `crop_peer fixtures DIR` paints the bench desktops and writes, as grayscale PNGs, each
//! screen and crop plus `DIR/cases.txt` (one case a line: `name screen crop x y w h ex ey`,
//! where `x y` is where the crop was cut, `-1 -1` when it has no copy on the screen, and `ex ey` the expected place for the near mode).
//! `crop_peer time DIR REPS` locates every case in both modes REPS times and prints one line
//! per case and mode: `name mode median_ns x y score`. Screens are prepared outside the timed
//! region, one per repetition, so no cached coarse copy carries over.

use std::path::Path;
use std::time::Instant;

use image::{GrayImage, RgbaImage};
use stepreplay::resolve::crop::{CropOptions, CropQuery, GrayScreen, locate};
use stepreplay_benches::crops::{self, screens};
use stepreplay_benches::desktop::SIZES;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("fixtures") if args.len() == 3 => fixtures(Path::new(&args[2])),
        Some("time") if args.len() == 4 => time(
            Path::new(&args[2]),
            args[3].parse().expect("REPS is a number"),
        ),
        _ => {
            eprintln!("usage: crop_peer fixtures DIR | crop_peer time DIR REPS");
            std::process::exit(2);
        }
    }
}

fn gray(img: &RgbaImage) -> GrayImage {
    let g = GrayScreen::new(img);
    GrayImage::from_raw(g.width(), g.height(), g.luma().to_vec()).expect("sizes agree")
}

fn fixtures(dir: &Path) {
    std::fs::create_dir_all(dir).expect("fixture folder");
    let mut cases = String::new();
    for (w, h, s) in SIZES {
        let (before, after) = screens(w, h, s);
        let screen = format!("screen-{w}x{h}.png");
        gray(&before.image)
            .save(dir.join(&screen))
            .expect("write screen");
        for c in crops::cases(&before, &after, s) {
            let name = format!("{w}x{h}-{}", c.kind);
            let crop = format!("crop-{name}.png");
            gray(&c.crop).save(dir.join(&crop)).expect("write crop");
            let (x, y) = c
                .cut
                .map_or((-1, -1), |(x, y)| (i64::from(x), i64::from(y)));
            let (cw, ch) = c.crop.dimensions();
            let (ex, ey) = c.expected;
            cases += &format!("{name} {screen} {crop} {x} {y} {cw} {ch} {ex} {ey}\n");
        }
    }
    std::fs::write(dir.join("cases.txt"), cases).expect("write cases");
}

fn time(dir: &Path, reps: usize) {
    let opts = CropOptions::default();
    let cases = std::fs::read_to_string(dir.join("cases.txt")).expect("cases.txt");
    for line in cases.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let num = |i: usize| f[i].parse::<u32>().expect("number");
        let screen = image::open(dir.join(f[1]))
            .expect("screen png")
            .into_luma8();
        // A grey pixel's luma is its own value, so the crop searched is the PNG's.
        let crop = image::DynamicImage::ImageLuma8(
            image::open(dir.join(f[2])).expect("crop png").into_luma8(),
        )
        .to_rgba8();
        for (mode, expected) in [("near", Some((num(7), num(8)))), ("full", None)] {
            let screens: Vec<GrayScreen> = (0..reps)
                .map(|_| GrayScreen::from_gray(screen.clone()))
                .collect();
            let mut times = Vec::with_capacity(reps);
            let mut found = None;
            for s in &screens {
                let start = Instant::now();
                let m = locate(
                    &CropQuery {
                        screen: s,
                        crop: &crop,
                        expected,
                    },
                    &opts,
                );
                times.push(start.elapsed().as_nanos());
                found = Some(std::hint::black_box(m));
            }
            times.sort_unstable();
            let (x, y, score) = match found.flatten() {
                Some(m) => (i64::from(m.x), i64::from(m.y), m.score),
                None => (-1, -1, f64::NAN),
            };
            println!(
                "{} {mode} {} {x} {y} {score:.6}",
                f[0],
                times[times.len() / 2]
            );
        }
    }
}

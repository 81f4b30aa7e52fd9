//! Crop locate (`stepreplay::resolve::crop`) on desktop-like screens at 1440×900, 2880×1800
//! and 3840×2160, every case of `stepreplay_benches::crops` (a "Delete" button repeated on
//! every row, the one "Export…" button, text on flat backgrounds, a blank stretch of
//! wallpaper, a recoloured control with no copy left) near its expected place
//! (`crop/near/{case}`) and over the whole screen (`crop/full/{case}`). See
//! `benches/README-crop.md`.
//!
//! `crop/imageproc_{near,full}` time imageproc's `match_template` (normalized cross
//! correlation, the method closest to ours) + `find_extremes` on the same grayscale pixels:
//! grey conversion is outside both timings. Its full-screen pass is brute force, seconds per
//! call at 1440×900, so it runs there only (see `benches/README.md`). They are built only with
//! `--features imageproc`, so that a plain build skips imageproc's two dozen crates.

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
#[cfg(feature = "imageproc")]
use image::imageops;
use image::{GrayImage, RgbaImage};
#[cfg(feature = "imageproc")]
use imageproc::template_matching::{MatchTemplateMethod, find_extremes, match_template};
use stepreplay::resolve::crop::{CropOptions, CropQuery, GrayScreen, Searched, locate};
use stepreplay_benches::crops::{self, screens};
use stepreplay_benches::desktop::SIZES;

#[cfg(feature = "imageproc")]
/// One search for imageproc: the screen in grey, the crop, where the near pass expects it,
/// where ours found it, the places of identical copies, and the pixels searched.
struct Case {
    id: String,
    luma: GrayImage,
    crop: RgbaImage,
    expected: Option<(u32, u32)>,
    ours: (u32, u32),
    copies: Vec<(u32, u32)>,
    searched: u32,
}

fn gray(img: &RgbaImage) -> GrayImage {
    let g = GrayScreen::new(img);
    GrayImage::from_raw(g.width(), g.height(), g.luma().to_vec()).expect("sizes agree")
}

#[cfg(feature = "imageproc")]
/// imageproc's best match in `area` of the screen: the top-left of the highest score.
fn imageproc_locate(area: &GrayImage, origin: (u32, u32), crop: &GrayImage) -> (u32, u32) {
    let scores = match_template(area, crop, MatchTemplateMethod::CrossCorrelationNormalized);
    let (x, y) = find_extremes(&scores).max_value_location;
    (origin.0 + x, origin.1 + y)
}

#[cfg(feature = "imageproc")]
/// The part of the screen the near pass searches: ±10% of the screen around `expected`.
fn near_area(luma: &GrayImage, crop: &RgbaImage, (ex, ey): (u32, u32)) -> (u32, u32, u32, u32) {
    let (w, h) = luma.dimensions();
    let x0 = ex.saturating_sub(w / 10).min(w - crop.width());
    let y0 = ey.saturating_sub(h / 10).min(h - crop.height());
    let aw = (2 * (w / 10) + crop.width()).min(w - x0);
    let ah = (2 * (h / 10) + crop.height()).min(h - y0);
    (x0, y0, aw, ah)
}

fn crop_locate(c: &mut Criterion) {
    let opts = CropOptions::default();
    let mut prepare = c.benchmark_group("crop/prepare");
    let screens: Vec<_> = SIZES
        .iter()
        .map(|&(w, h, s)| (screens(w, h, s), s))
        .collect();
    for ((d, _), _) in &screens {
        let id = format!("{}x{}", d.image.width(), d.image.height());
        prepare.throughput(Throughput::Elements(u64::from(
            d.image.width() * d.image.height(),
        )));
        prepare.bench_function(BenchmarkId::from_parameter(&id), |b| {
            b.iter(|| GrayScreen::new(&d.image));
        });
    }
    prepare.finish();

    for (mode, group_name) in [
        (Searched::Near, "crop/near"),
        (Searched::FullScreen, "crop/full"),
    ] {
        #[cfg(feature = "imageproc")]
        let mut imageproc = Vec::new();
        let mut group = c.benchmark_group(group_name);
        group.sample_size(20);
        for ((d, after), scale) in &screens {
            let (w, h) = (d.image.width(), d.image.height());
            let screen = GrayScreen::new(&d.image);
            let luma = gray(&d.image);
            for case in crops::cases(d, after, *scale) {
                let id = format!("{w}x{h}-{}", case.kind);
                let crop = case.crop;
                let expected = (mode == Searched::Near).then_some(case.expected);
                // Throughput counts the screen pixels the pass may examine.
                let searched = match mode {
                    Searched::Near => (2 * w / 10 + crop.width()) * (2 * h / 10 + crop.height()),
                    Searched::FullScreen => w * h,
                };
                group.throughput(Throughput::Elements(u64::from(searched)));
                let query = CropQuery {
                    screen: &screen,
                    crop: &crop,
                    expected,
                };
                // Before timing: the pass under test finds the crop (an exact copy, so the
                // score is 1), and a crop with no copy is found nowhere.
                let check = locate(&query, &opts);
                #[cfg_attr(not(feature = "imageproc"), expect(unused_variables))]
                let ours = match (case.cut, check) {
                    (Some(_), Some(m)) => {
                        assert_eq!(m.searched, mode, "{id}: the pass under test found it");
                        assert!(m.score > 0.9999, "{id}: {m:?}");
                        Some((m.x, m.y))
                    }
                    (None, None) => None,
                    (cut, m) => panic!("{id}: cut at {cut:?}, found {m:?}"),
                };
                group.bench_function(BenchmarkId::from_parameter(&id), |b| {
                    // A fresh screen each time: the cached coarse copy must not carry over.
                    b.iter_batched(
                        || GrayScreen::from_gray(luma.clone()),
                        |screen| {
                            locate(
                                &CropQuery {
                                    screen: &screen,
                                    crop: &crop,
                                    expected,
                                },
                                &opts,
                            )
                        },
                        BatchSize::LargeInput,
                    );
                });
                // imageproc is brute force: on the two original cases only, and over the
                // whole screen at 1440×900 only (seconds per call beyond).
                #[cfg(feature = "imageproc")]
                let original = match mode {
                    Searched::Near => case.kind == "delete",
                    Searched::FullScreen => case.kind == "export" && w == SIZES[0].0,
                };
                #[cfg(feature = "imageproc")]
                if let (true, Some(ours)) = (original, ours) {
                    let copies = if case.kind == "delete" {
                        d.delete_buttons.clone()
                    } else {
                        vec![case.cut.expect("cut from this screen")]
                    };
                    imageproc.push(Case {
                        id: format!("{w}x{h}"),
                        luma: luma.clone(),
                        crop,
                        expected,
                        ours,
                        copies,
                        searched,
                    });
                }
            }
        }
        group.finish();
        #[cfg(feature = "imageproc")]
        imageproc_group(c, mode, &imageproc);
    }
}

#[cfg(feature = "imageproc")]
fn imageproc_group(c: &mut Criterion, mode: Searched, cases: &[Case]) {
    let name = match mode {
        Searched::Near => "crop/imageproc_near",
        Searched::FullScreen => "crop/imageproc_full",
    };
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    for case in cases {
        let (x0, y0, aw, ah) = match case.expected {
            Some(e) => near_area(&case.luma, &case.crop, e),
            None => (0, 0, case.luma.width(), case.luma.height()),
        };
        // The searched area is copied out before timing: imageproc takes an owned image.
        let area = imageops::crop_imm(&case.luma, x0, y0, aw, ah).to_image();
        let crop = gray(&case.crop);
        let found = imageproc_locate(&area, (x0, y0), &crop);
        // Both land on the crop or an identical copy; without a tie-break, imageproc may not
        // take the copy nearest the expected place.
        assert!(case.copies.contains(&found), "{}: {found:?}", case.id);
        assert!(
            case.copies.contains(&case.ours),
            "{}: {:?}",
            case.id,
            case.ours
        );
        eprintln!(
            "{name}/{}: imageproc {found:?}, ours {:?}",
            case.id, case.ours
        );
        group.throughput(Throughput::Elements(u64::from(case.searched)));
        group.bench_function(BenchmarkId::from_parameter(&case.id), |b| {
            b.iter(|| imageproc_locate(&area, (x0, y0), &crop));
        });
    }
    group.finish();
}

criterion_group!(benches, crop_locate);
criterion_main!(benches);

//! Crop locate (`stepreplay::resolve::crop`) on desktop-like screens at 1440×900, 2880×1800
//! and 3840×2160: finding a "Delete" button of a table (identical copies on every row) near
//! its expected place, and the one "Export…" button over the whole screen. See
//! `benches/README-crop.md`.
//!
//! `crop/imageproc_{near,full}` time imageproc's `match_template` (normalized cross
//! correlation, the method closest to ours) + `find_extremes` on the same grayscale pixels:
//! grey conversion is outside both timings. Its full-screen pass is brute force, seconds per
//! call at 1440×900, so it runs there only (see `benches/README.md`).

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use image::{GrayImage, RgbaImage, imageops};
use imageproc::template_matching::{MatchTemplateMethod, find_extremes, match_template};
use stepreplay::resolve::crop::{CropOptions, CropQuery, GrayScreen, Searched, locate};
use stepreplay_benches::desktop::{Desktop, SIZES, Variant};

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

/// imageproc's best match in `area` of the screen: the top-left of the highest score.
fn imageproc_locate(area: &GrayImage, origin: (u32, u32), crop: &GrayImage) -> (u32, u32) {
    let scores = match_template(area, crop, MatchTemplateMethod::CrossCorrelationNormalized);
    let (x, y) = find_extremes(&scores).max_value_location;
    (origin.0 + x, origin.1 + y)
}

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
        .map(|&(w, h, s)| Desktop::paint(w, h, s, Variant::Before))
        .collect();
    for d in &screens {
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
        let mut cases = Vec::new();
        let mut group = c.benchmark_group(group_name);
        group.sample_size(20);
        for d in &screens {
            let (w, h) = (d.image.width(), d.image.height());
            let id = format!("{w}x{h}");
            let (crop, expected, copies) = match mode {
                Searched::Near => {
                    let (bx, by) = d.delete_buttons[d.delete_buttons.len() / 2];
                    let (bw, bh) = d.button_size;
                    let crop = imageops::crop_imm(&d.image, bx, by, bw, bh).to_image();
                    let expected = Some((bx + 6, by.saturating_sub(4)));
                    (crop, expected, d.delete_buttons.clone())
                }
                Searched::FullScreen => {
                    let (x, y, cw, ch) = d.export;
                    let crop = imageops::crop_imm(&d.image, x, y, cw, ch).to_image();
                    (crop, None, vec![(x, y)])
                }
            };
            // Throughput counts the screen pixels the pass may examine.
            let searched = match mode {
                Searched::Near => (2 * w / 10 + crop.width()) * (2 * h / 10 + crop.height()),
                Searched::FullScreen => w * h,
            };
            group.throughput(Throughput::Elements(u64::from(searched)));
            let screen = GrayScreen::new(&d.image);
            let query = CropQuery {
                screen: &screen,
                crop: &crop,
                expected,
            };
            let check = locate(&query, &opts).expect("the bench crop is on its screen");
            assert_eq!(check.searched, mode, "{id}: the pass under test found it");
            let luma = gray(&d.image);
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
            if mode == Searched::Near || w == SIZES[0].0 {
                cases.push(Case {
                    id,
                    luma,
                    crop,
                    expected,
                    ours: (check.x, check.y),
                    copies,
                    searched,
                });
            }
        }
        group.finish();
        imageproc_group(c, mode, &cases);
    }
}

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

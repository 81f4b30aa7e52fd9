//! Crop locate (`stepreplay::resolve::crop`) on desktop-like screens at 1440×900, 2880×1800
//! and 3840×2160: finding a "Delete" button of a table (identical copies on every row) near
//! its expected place, and a unique "Export…" button over the whole screen. See
//! `benches/README-crop.md`.

#[path = "crop_support/desktop.rs"]
mod desktop;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use image::imageops;
use stepreplay::resolve::crop::{CropOptions, CropQuery, GrayScreen, Searched, locate};

const SIZES: [(u32, u32, u32); 3] = [(1440, 900, 1), (2880, 1800, 2), (3840, 2160, 2)];

fn crop_locate(c: &mut Criterion) {
    let opts = CropOptions::default();
    let mut prepare = c.benchmark_group("crop/prepare");
    let screens: Vec<_> = SIZES
        .iter()
        .map(|&(w, h, s)| desktop::paint(w, h, s))
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
        let mut group = c.benchmark_group(group_name);
        group.sample_size(20);
        for d in &screens {
            let (w, h) = (d.image.width(), d.image.height());
            let id = format!("{w}x{h}");
            let (crop, expected) = match mode {
                Searched::Near => {
                    let (bx, by) = d.delete_buttons[d.delete_buttons.len() / 2];
                    let (bw, bh) = d.button_size;
                    let crop = imageops::crop_imm(&d.image, bx, by, bw, bh).to_image();
                    (crop, Some((bx + 6, by.saturating_sub(4))))
                }
                Searched::FullScreen => {
                    let (x, y, cw, ch) = d.unique;
                    (imageops::crop_imm(&d.image, x, y, cw, ch).to_image(), None)
                }
            };
            // Throughput counts the screen pixels the pass may examine.
            let searched = match mode {
                Searched::Near => (2 * w / 10 + crop.width()) * (2 * h / 10 + crop.height()),
                Searched::FullScreen => w * h,
            };
            group.throughput(Throughput::Elements(u64::from(searched)));
            let gray = GrayScreen::new(&d.image);
            let check = locate(
                &CropQuery {
                    screen: &gray,
                    crop: &crop,
                    expected,
                },
                &opts,
            )
            .expect("the bench crop is on its screen");
            assert_eq!(check.searched, mode, "{id}: the pass under test found it");
            let luma = image::GrayImage::from_raw(w, h, gray.luma().to_vec()).expect("sizes agree");
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
        }
        group.finish();
    }
}

criterion_group!(benches, crop_locate);
criterion_main!(benches);

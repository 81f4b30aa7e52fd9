//! Tests of `locate` on synthetic desktops.

use image::{RgbaImage, imageops};

use super::gray::{GrayScreen, Plane};
use super::ncc::{Template, score_map};
use super::synth::{Rng, button, button_size, desktop, fill, text};
use super::{CropOptions, CropQuery, Searched, locate};

fn cut(img: &RgbaImage, x: u32, y: u32, w: u32, h: u32) -> RgbaImage {
    imageops::crop_imm(img, x, y, w, h).to_image()
}

fn find(
    screen: &RgbaImage,
    crop: &RgbaImage,
    expected: Option<(u32, u32)>,
) -> Option<super::CropMatch> {
    let gray = GrayScreen::new(screen);
    locate(
        &CropQuery {
            screen: &gray,
            crop,
            expected,
        },
        &CropOptions::default(),
    )
}

#[test]
fn identical_buttons_nearest_expected_wins() {
    let (screen, buttons) = desktop(800, 600, 1);
    assert!(buttons.len() >= 10, "the table has many identical buttons");
    let (bw, bh) = button_size(1);
    let crop = cut(&screen, buttons[0].0, buttons[0].1, bw, bh);
    for &k in &[0, 3, 7, buttons.len() - 1] {
        let (bx, by) = buttons[k];
        // Recorded a little off, as a moved window would be.
        let m = find(&screen, &crop, Some((bx.saturating_sub(5), by + 7))).unwrap();
        assert_eq!((m.x, m.y), (bx, by), "button {k}");
        assert_eq!(m.searched, Searched::Near);
        assert!(m.score > 0.9999, "{}", m.score);
        let runner_up = m.runner_up.expect("the other buttons are distinct peaks");
        assert!(
            runner_up > 0.9999,
            "an identical copy scores the same: {runner_up}"
        );
    }
}

#[test]
fn recoloured_control_is_rejected_by_the_floor() {
    let (mut screen, buttons) = desktop(800, 600, 1);
    let (bw, bh) = button_size(1);
    let crop = cut(&screen, buttons[2].0, buttons[2].1, bw, bh);
    // Every button turns into a red one: the face goes darker than the border.
    for &(x, y) in &buttons {
        button(&mut screen, x, y, 1, "Delete", [200, 30, 30]);
    }
    assert_eq!(find(&screen, &crop, Some(buttons[2])), None);
    assert_eq!(find(&screen, &crop, None), None);
    // A floor low enough lets the weak resemblance through, so the rejection was the floor's.
    let gray = GrayScreen::new(&screen);
    let loose = CropOptions {
        floor: -1.0,
        ..CropOptions::default()
    };
    let q = CropQuery {
        screen: &gray,
        crop: &crop,
        expected: Some(buttons[2]),
    };
    assert!(locate(&q, &loose).unwrap().score < 0.9);
}

#[test]
fn near_search_fails_then_full_screen_finds_it() {
    let (mut screen, _) = desktop(1000, 700, 1);
    text(
        &mut screen,
        700.0,
        600.0,
        15.0,
        "Unique label",
        [10, 60, 10],
    );
    let crop = cut(&screen, 696, 598, 100, 24);
    let m = find(&screen, &crop, Some((40, 40))).unwrap();
    assert_eq!((m.x, m.y, m.searched), (696, 598, Searched::FullScreen));
    assert!(m.score > 0.9999);
    let m = find(&screen, &crop, None).unwrap();
    assert_eq!((m.x, m.y, m.searched), (696, 598, Searched::FullScreen));
}

#[test]
fn twice_scale_screens() {
    let (screen, buttons) = desktop(1600, 1200, 2);
    let (bw, bh) = button_size(2);
    let crop = cut(&screen, buttons[4].0, buttons[4].1, bw, bh);
    let m = find(&screen, &crop, Some((buttons[4].0 + 30, buttons[4].1 - 20))).unwrap();
    assert_eq!((m.x, m.y), buttons[4]);
    let title = cut(&screen, 52, 40, 151, 37);
    let m = find(&screen, &title, Some((300, 500))).unwrap();
    assert_eq!((m.x, m.y, m.searched), (52, 40, Searched::FullScreen));
}

#[test]
fn every_phase_and_odd_size_is_found_exactly() {
    // The coarse pass sees the screen in 4×4 blocks; a crop may start anywhere inside one.
    let (screen, _) = desktop(640, 480, 1);
    for dx in 0..4 {
        for dy in 0..4 {
            for (w, h) in [(97, 33), (45, 41), (13, 12), (8, 31)] {
                let (x, y) = (28 + dx, 18 + dy);
                let crop = cut(&screen, x, y, w, h);
                let m = find(&screen, &crop, Some((x + 17, y + 9)));
                let m = m.unwrap_or_else(|| panic!("{w}x{h} at {x},{y} near"));
                assert_eq!((m.x, m.y), (x, y), "{w}x{h} at {x},{y}");
                let m = find(&screen, &crop, None).unwrap();
                assert_eq!((m.x, m.y), (x, y), "{w}x{h} at {x},{y}, full screen");
            }
        }
    }
}

#[test]
fn crops_at_the_edges_and_the_whole_screen() {
    let (mut screen, _) = desktop(320, 240, 1);
    text(&mut screen, 270.0, 222.0, 12.0, "edge", [200, 0, 0]);
    let (w, h) = (screen.width(), screen.height());
    let corner = cut(&screen, w - 37, h - 23, 37, 23);
    let m = find(&screen, &corner, Some((w - 37, h - 23))).unwrap();
    assert_eq!((m.x, m.y), (w - 37, h - 23));
    let m = find(&screen, &corner, Some((0, 0))).unwrap();
    assert_eq!((m.x, m.y), (w - 37, h - 23));
    let whole = find(&screen, &screen, Some((5, 5))).unwrap();
    assert_eq!((whole.x, whole.y), (0, 0));
    let top_left = cut(&screen, 0, 0, 31, 29);
    let m = find(&screen, &top_left, Some((u32::MAX, u32::MAX))).unwrap();
    assert_eq!((m.x, m.y), (0, 0));
}

#[test]
fn too_big_or_empty_crops_are_none() {
    let (screen, _) = desktop(200, 150, 1);
    assert_eq!(find(&screen, &RgbaImage::new(201, 10), None), None);
    assert_eq!(find(&screen, &RgbaImage::new(10, 151), Some((0, 0))), None);
    assert_eq!(find(&screen, &RgbaImage::new(0, 0), Some((0, 0))), None);
}

#[test]
fn one_pixel_and_flat_crops_match_the_same_grey_nearest_expected() {
    let mut screen = RgbaImage::from_pixel(60, 40, image::Rgba([255, 255, 255, 255]));
    fill(&mut screen, 10, 10, 1, 1, [0, 0, 0]);
    fill(&mut screen, 50, 30, 1, 1, [0, 0, 0]);
    let dot = cut(&screen, 10, 10, 1, 1);
    let m = find(&screen, &dot, Some((45, 28))).unwrap();
    assert_eq!((m.x, m.y, m.score), (50, 30, 1.0));
    let m = find(&screen, &dot, Some((12, 8))).unwrap();
    assert_eq!((m.x, m.y), (10, 10));
    // A flat white patch matches flat white (nearest the expected place), never the dots.
    let patch = cut(&screen, 20, 20, 5, 5);
    let m = find(&screen, &patch, Some((9, 9))).unwrap();
    assert_eq!((m.x, m.y, m.score), (11, 9, 1.0));
    assert_eq!(m.runner_up, Some(1.0));
    // A flat grey that appears nowhere is not found.
    let grey = RgbaImage::from_pixel(5, 5, image::Rgba([128, 128, 128, 255]));
    assert_eq!(find(&screen, &grey, None), None);
}

#[test]
fn agrees_with_brute_force_on_random_crops() {
    // The coarse pass only chooses where to look; check it never looks away from the best.
    let (screen, _) = desktop(360, 260, 1);
    let gray = GrayScreen::new(&screen);
    let mut rng = Rng::new(11);
    for case in 0..40 {
        let (w, h) = (6 + rng.below_u32(90), 6 + rng.below_u32(50));
        let (x, y) = (rng.below_u32(360 - w), rng.below_u32(260 - h));
        let crop = cut(&screen, x, y, w, h);
        let t = Template::new(Plane::from_rgba(&crop));
        let (nx, ny) = ((360 - w + 1) as usize, (260 - h + 1) as usize);
        let map = score_map(&gray.plane, &t, 0, 0, nx, ny);
        let best = map.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let q = CropQuery {
            screen: &gray,
            crop: &crop,
            expected: None,
        };
        let m = locate(&q, &CropOptions::default());
        let m = m.unwrap_or_else(|| panic!("case {case}: {w}x{h} at {x},{y} not found"));
        let at = map[m.y as usize * nx + m.x as usize];
        assert_eq!(at, m.score, "case {case}: reported score is the exact one");
        assert!(
            m.score >= best - 0.002,
            "case {case}: {w}x{h} at {x},{y}: {} < {best}",
            m.score
        );
    }
}

/// Passes over the stress set's queries; each query's time is its fastest. With three, a
/// burst of a neighbour's load on a shared machine still moved the slowest ÷ median of the
/// 480×360 rows between 2.9 and 4.0 from run to run. The check without timings takes one.
const PASSES: usize = 7;

/// Random crops cut from desktops at 1x and 2x (8–157 × 8–67 pixels at 1x), searched near a
/// nearby expected place and over the whole screen: the crop's own place scores exactly 1, so
/// whatever is returned must score within a hair of it. `cases` per screen and seed, each
/// timed over `passes`. Returns the misses and each query's time by screen and mode
/// (`near`/`full`), with the seed, for the stress test's table.
fn exact_crops_are_found(
    cases: u32,
    seeds: &[u64],
    passes: usize,
) -> (Vec<String>, Vec<(String, f64, String)>) {
    let mut rngs: Vec<Rng> = seeds.iter().map(|&s| Rng::new(s)).collect();
    let mut misses = Vec::new();
    let mut times = Vec::new();
    for (sw, sh, scale) in [(480, 360, 1), (720, 450, 1), (1440, 900, 2)] {
        let (screen, _) = desktop(sw, sh, scale);
        let gray = GrayScreen::new(&screen);
        // Each query: its seed, the crop, where it was cut, and where it is expected (near,
        // then none). A seed's crops are the same whatever other seeds are run with it.
        let mut queries = Vec::new();
        for (&seed, rng) in seeds.iter().zip(&mut rngs) {
            for case in 0..cases {
                let (w, h) = (
                    8 + rng.below_u32(150 * scale),
                    8 + rng.below_u32(60 * scale),
                );
                let (x, y) = (rng.below_u32(sw - w), rng.below_u32(sh - h));
                let crop = cut(&screen, x, y, w, h);
                let jitter = |v: u32, n: u32, r: &mut Rng| {
                    (i64::from(v) + i64::from(r.below_u32(2 * n + 1)) - i64::from(n)).max(0) as u32
                };
                let near = (jitter(x, sw / 20, rng), jitter(y, sh / 20, rng));
                for expected in [Some(near), None] {
                    let at = (w, h, x, y);
                    queries.push((seed, case, at, crop.clone(), expected, f64::INFINITY));
                }
            }
        }
        // Each query's time is its fastest of `passes` passes over them all: a page fault,
        // an interrupt or a neighbour's burst is not the search's cost, and these queries
        // take microseconds. Passes over every seed's queries, not runs in a row or one
        // seed's few milliseconds of queries, so that one burst cannot hit all of a query's.
        for pass in 0..passes {
            for (seed, case, (w, h, x, y), crop, expected, ms) in &mut queries {
                let q = CropQuery {
                    screen: &gray,
                    crop,
                    expected: *expected,
                };
                let start = std::time::Instant::now();
                let found = locate(&q, &CropOptions::default());
                *ms = ms.min(start.elapsed().as_secs_f64() * 1e3);
                if pass == 0 && found.is_none_or(|m| m.score < 1.0 - 0.002 - 1e-9) {
                    misses.push(format!(
                        "seed {seed} {sw}x{sh} case {case}: {w}x{h} at {x},{y} \
                         (expected {expected:?}): {found:?}"
                    ));
                }
            }
        }
        for (seed, _, (w, h, x, y), _, expected, ms) in queries {
            let mode = if expected.is_some() { "near" } else { "full" };
            let query = format!("seed {seed}, {w}×{h} at {x},{y}");
            times.push((format!("{sw}x{sh}@{scale}x {mode}"), ms, query));
        }
    }
    (misses, times)
}

#[test]
fn exact_crops_are_found_near_and_on_the_whole_screen() {
    let (misses, _) = exact_crops_are_found(8, &[7], 1);
    assert!(misses.is_empty(), "{misses:#?}");
}

#[test]
fn an_edge_crop_that_matches_all_along_it_is_still_found() {
    // The window's bottom edge over the wallpaper: blurred, it looks like every other
    // horizontal edge, and more than `max_candidates` of those outscored it when coarse.
    let (screen, _) = desktop(720, 450, 1);
    let crop = cut(&screen, 335, 426, 135, 10);
    let m = find(&screen, &crop, None).expect("found");
    assert_eq!((m.y, m.score, m.searched), (426, 1.0, Searched::FullScreen));
    assert_eq!(m.runner_up, Some(1.0), "the edge is the same all along");
}

/// The same, many more cases: `cargo test --release -p stepreplay --lib stress -- --ignored`.
/// With `--nocapture` it prints each screen's and mode's query times (median, slowest, and
/// slowest ÷ median) for `benches/README.md`; nothing about time is asserted.
#[test]
#[ignore = "slow in debug builds; run in release"]
fn stress_exact_crops_are_found() {
    let seeds: Vec<u64> = (1000..1008).collect();
    let (misses, t) = exact_crops_are_found(60, &seeds, PASSES);
    let mut times: std::collections::BTreeMap<String, Vec<(f64, String)>> = Default::default();
    for (key, ms, query) in t {
        times.entry(key).or_default().push((ms, query));
    }
    println!(
        "| screen | mode | queries | median ms | slowest ms | slowest ÷ median | slowest query |"
    );
    println!("|---|---|---:|---:|---:|---:|---|");
    for (key, mut t) in times {
        t.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (median, (slowest, query)) = (t[t.len() / 2].0, &t[t.len() - 1]);
        let (screen, mode) = key.split_once(' ').expect("screen and mode");
        println!(
            "| {screen} | {mode} | {} | {median:.3} | {slowest:.3} | {:.2} | {query} |",
            t.len(),
            slowest / median
        );
    }
    assert!(misses.is_empty(), "{} misses: {misses:#?}", misses.len());
}

#[test]
fn exact_copies_that_blur_unlike_themselves_are_still_found() {
    // Found by the stress test on this painter's desktop. 75,399 is one pixel off every
    // phase at factor 4, and the blurred text there trailed the best coarse peak by more than
    // the margin; the 30×9 crop is one of thousands of coarse look-alikes, past the cap.
    let (screen, _) = desktop(720, 450, 1);
    for (w, h, x, y) in [(55, 39, 75, 399), (30, 9, 295, 258)] {
        let crop = cut(&screen, x, y, w, h);
        let m = find(&screen, &crop, None).expect("found");
        assert!(m.score >= 1.0 - 1e-9, "{w}x{h} at {x},{y}: {m:?}");
        assert_eq!(cut(&screen, m.x, m.y, w, h), crop, "an exact copy");
    }
}

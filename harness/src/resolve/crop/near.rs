//! How well a crop matches at one place: the best score with the crop's centre within a few
//! pixels of a given point. Telling same-named controls apart asks this of each candidate's
//! own box; a whole-screen or near-window [`locate`](super::locate) would answer with the best
//! place around it, which may be the neighbour.

use image::RgbaImage;

use super::gray::{GrayScreen, Plane};
use super::ncc::{Template, score_map};

/// The best `TM_CCOEFF_NORMED` score of `crop` with its centre at most `reach` pixels from
/// `centre` (clipped to the screen), or `None` when the crop cannot be placed there at all.
pub(crate) fn score_near(
    screen: &GrayScreen,
    crop: &RgbaImage,
    centre: (f64, f64),
    reach: u32,
) -> Option<f64> {
    let src = &screen.plane;
    let (w, h) = (crop.width() as usize, crop.height() as usize);
    if w == 0 || h == 0 || w > src.width || h > src.height {
        return None;
    }
    let r = reach as i64;
    let left = (centre.0 - w as f64 / 2.0).round() as i64;
    let top = (centre.1 - h as f64 / 2.0).round() as i64;
    let x0 = (left - r).clamp(0, (src.width - w) as i64);
    let x1 = (left + r).clamp(0, (src.width - w) as i64);
    let y0 = (top - r).clamp(0, (src.height - h) as i64);
    let y1 = (top + r).clamp(0, (src.height - h) as i64);
    let t = Template::new(Plane::from_rgba(crop));
    let (nx, ny) = ((x1 - x0 + 1) as usize, (y1 - y0 + 1) as usize);
    score_map(src, &t, x0 as usize, y0 as usize, nx, ny)
        .into_iter()
        .reduce(f64::max)
}

#[cfg(test)]
mod tests {
    use image::Rgba;

    use super::*;

    #[test]
    fn scores_the_place_asked_about_not_the_best_place_around_it() {
        let mut img = RgbaImage::from_pixel(120, 60, Rgba([200, 200, 200, 255]));
        // A patterned patch at (10, 10) and a different one at (60, 10).
        for (ox, k) in [(10u32, 3u32), (60, 7)] {
            for y in 0..20 {
                for x in 0..30 {
                    let v = ((x * k + y * (k + 4)) % 50 * 5) as u8;
                    img.put_pixel(ox + x, 10 + y, Rgba([v, v, v, 255]));
                }
            }
        }
        let crop = image::imageops::crop_imm(&img, 10, 10, 30, 20).to_image();
        let screen = GrayScreen::new(&img);
        let here = score_near(&screen, &crop, (25.0, 20.0), 3).unwrap();
        let there = score_near(&screen, &crop, (75.0, 20.0), 3).unwrap();
        assert!(here > 0.999, "{here}");
        assert!(there < 0.9, "{there}");
        // Near the edge the search is clipped, not refused.
        assert!(score_near(&screen, &crop, (0.0, 0.0), 3).is_some());
        let too_big = RgbaImage::new(200, 10);
        assert_eq!(score_near(&screen, &too_big, (25.0, 20.0), 3), None);
    }
}

//! Masks for dynamic content: rectangles whose pixels do not count as changed.
//!
//! A clock in the menu bar or a "sent 2 minutes ago" label changes on every run; masking it keeps
//! a screenshot comparison meaningful. The main type is [`Masks`]. Masking happens *after* the
//! pixelmatch-exact diff (so anti-aliasing detection next to a mask still sees the real
//! neighbours), by clearing mask bits; the diff image then shows each masked area hatched in
//! [`MASK_COLOR`] with an outline, so a reader sees what was excluded instead of a silently
//! painted-over patch.
//!
//! Rectangles may come from the command line or from AX elements (the element's frame in a
//! snapshot), so a mask follows its control when the window moves.

use serde::Serialize;

use super::pixel::PixelDiff;
use crate::recording::ax::{AxSnapshot, Rect};

/// Colour of the hatch and outline drawn over masked areas of a diff image: a blue no default
/// pixelmatch colour uses.
pub const MASK_COLOR: [u8; 4] = [0, 136, 255, 255];

/// Spacing of the diagonal hatch lines, in pixels.
const HATCH_PERIOD: u32 = 6;

/// A set of rectangles excluded from a pixel comparison.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Masks {
    rects: Vec<Rect>,
}

/// What masking removed from a [`PixelDiff`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct MaskStats {
    /// Number of mask rectangles.
    pub rects: u64,
    /// Pixels of the image inside at least one mask.
    pub excluded_pixels: u64,
    /// Mismatched pixels that were inside a mask and so no longer count.
    pub excluded_mismatched: u64,
}

/// An AX element named as a mask is not in the snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UnknownElement(pub String);

impl Masks {
    /// No masks.
    pub fn new() -> Self {
        Masks::default()
    }

    /// Adds a rectangle (in image pixels; parts outside the image are ignored).
    pub fn push(&mut self, r: Rect) {
        self.rects.push(r);
    }

    /// Adds the frame of each named element of `ax`.
    pub(crate) fn push_elements<'a>(
        &mut self,
        ax: &AxSnapshot,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), UnknownElement> {
        for id in ids {
            let (_, _, e) = ax.find(id).ok_or_else(|| UnknownElement(id.to_string()))?;
            self.rects.push(e.frame);
        }
        Ok(())
    }

    #[cfg(test)]
    /// The rectangles, in the order added.
    pub(crate) fn rects(&self) -> &[Rect] {
        &self.rects
    }

    /// True when nothing is masked.
    pub fn is_empty(&self) -> bool {
        self.rects.is_empty()
    }

    /// Each rectangle clipped to a `width × height` image as `(x0, y0, x1, y1)`, half-open;
    /// empty ones dropped.
    fn clipped(&self, width: u32, height: u32) -> impl Iterator<Item = (u32, u32, u32, u32)> + '_ {
        self.rects.iter().filter_map(move |r| {
            let clamp = |v: i64, hi: u32| v.clamp(0, i64::from(hi)) as u32;
            let x0 = clamp(i64::from(r.x), width);
            let y0 = clamp(i64::from(r.y), height);
            let x1 = clamp(i64::from(r.x) + i64::from(r.width.max(0)), width);
            let y1 = clamp(i64::from(r.y) + i64::from(r.height.max(0)), height);
            (x0 < x1 && y0 < y1).then_some((x0, y0, x1, y1))
        })
    }

    /// Clears the masked pixels from `diff` (its `mask` bits and `mismatched` count) and says
    /// what was removed. Overlapping masks count each pixel once.
    pub fn apply(&self, diff: &mut PixelDiff) -> MaskStats {
        let (w, h) = (diff.width, diff.height);
        let mut stats = MaskStats {
            rects: self.rects.len() as u64,
            ..MaskStats::default()
        };
        if self.rects.is_empty() {
            return stats;
        }
        // A bit per pixel of the union of the masks, so overlaps count once.
        let n = w as usize * h as usize;
        let mut union = vec![0u64; n.div_ceil(64)];
        for (x0, y0, x1, y1) in self.clipped(w, h) {
            for y in y0..y1 {
                let row = y as usize * w as usize;
                set_bits(&mut union, row + x0 as usize, row + x1 as usize);
            }
        }
        for (m, u) in diff.mask.iter_mut().zip(&union) {
            stats.excluded_mismatched += u64::from((*m & u).count_ones());
            *m &= !u;
        }
        stats.excluded_pixels = union.iter().map(|u| u64::from(u.count_ones())).sum();
        diff.mismatched -= stats.excluded_mismatched.min(diff.mismatched);
        stats
    }

    /// Draws the masked areas into a diff image (RGBA8, row-major, `width × height`): diagonal
    /// hatch lines and a one-pixel outline in [`MASK_COLOR`]; pixels between the lines keep what
    /// the diff drew, so a change under a mask stays visible.
    pub fn draw(&self, out: &mut [u8], width: u32, height: u32) {
        self.draw_rows(out, width, height, 0..height);
    }

    /// [`Masks::draw`] on the rows `rows` of the image, which `out` holds.
    pub(crate) fn draw_rows(
        &self,
        out: &mut [u8],
        width: u32,
        height: u32,
        rows: std::ops::Range<u32>,
    ) {
        let px = |x: u32, y: u32| ((y - rows.start) as usize * width as usize + x as usize) * 4;
        for (x0, y0, x1, y1) in self.clipped(width, height) {
            for y in y0.max(rows.start)..y1.min(rows.end) {
                for x in x0..x1 {
                    let edge = x == x0 || y == y0 || x + 1 == x1 || y + 1 == y1;
                    if edge || (x + y) % HATCH_PERIOD == 0 {
                        let i = px(x, y);
                        if let Some(p) = out.get_mut(i..i + 4) {
                            p.copy_from_slice(&MASK_COLOR);
                        }
                    }
                }
            }
        }
    }

    #[cfg(test)]
    /// Whether pixel `(x, y)` of a `width × height` image is masked.
    pub(crate) fn is_masked(&self, x: u32, y: u32, width: u32, height: u32) -> bool {
        self.clipped(width, height)
            .any(|(x0, y0, x1, y1)| x >= x0 && x < x1 && y >= y0 && y < y1)
    }
}

/// Sets bits `[from, to)`.
fn set_bits(bits: &mut [u64], from: usize, to: usize) {
    for i in from..to {
        if let Some(w) = bits.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full_diff(w: u32, h: u32) -> PixelDiff {
        let n = (w * h) as usize;
        let mut mask = vec![0u64; n.div_ceil(64)];
        for i in 0..n {
            mask[i / 64] |= 1 << (i % 64);
        }
        PixelDiff {
            width: w,
            height: h,
            mismatched: n as u64,
            mask,
        }
    }

    #[test]
    fn masked_pixels_leave_the_count_once() {
        let mut d = full_diff(10, 10);
        let mut m = Masks::new();
        m.push(Rect::new(0, 0, 4, 4));
        m.push(Rect::new(2, 2, 4, 4)); // overlaps 2×2 of the first
        m.push(Rect::new(8, 8, 50, 50)); // clipped to 2×2
        m.push(Rect::new(-5, -5, 3, 3)); // fully outside
        let s = m.apply(&mut d);
        assert_eq!(s.excluded_pixels, 16 + 16 - 4 + 4);
        assert_eq!(s.excluded_mismatched, 32);
        assert_eq!(d.mismatched, 100 - 32);
        assert!(!d.is_mismatched(3, 3) && !d.is_mismatched(9, 9) && d.is_mismatched(7, 0));
        assert!(m.is_masked(5, 5, 10, 10) && !m.is_masked(6, 6, 10, 10));
    }

    #[test]
    fn drawing_hatches_and_outlines_without_filling() {
        let mut out = vec![7u8; 12 * 12 * 4];
        let mut m = Masks::new();
        m.push(Rect::new(1, 1, 10, 10));
        m.draw(&mut out, 12, 12);
        let at = |x: usize, y: usize| &out[(y * 12 + x) * 4..(y * 12 + x) * 4 + 4];
        assert_eq!(at(1, 5), MASK_COLOR); // outline
        assert_eq!(at(3, 3), MASK_COLOR); // hatch: (3 + 3) % 6 == 0
        assert_eq!(at(4, 3), [7; 4]); // between hatch lines: untouched
        assert_eq!(at(0, 0), [7; 4]); // outside
    }

    #[test]
    fn element_masks_take_the_frame_from_the_snapshot() {
        let ax: AxSnapshot = serde_json::from_str(
            r#"{"schema":"stepreplay-ax/1","apps":[{"name":"A","windows":[{"id":"w",
            "frame":{"x":0,"y":0,"width":9,"height":9},"elements":[{"id":"clock",
            "ax_role":"AXStaticText","frame":{"x":1,"y":2,"width":3,"height":4}}]}]}]}"#,
        )
        .unwrap();
        let mut m = Masks::new();
        m.push_elements(&ax, ["clock"]).unwrap();
        assert_eq!(m.rects(), [Rect::new(1, 2, 3, 4)]);
        assert_eq!(
            m.push_elements(&ax, ["nope"]),
            Err(UnknownElement("nope".into()))
        );
    }
}

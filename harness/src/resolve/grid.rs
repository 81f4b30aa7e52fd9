//! [`PointGrid`]: which elements cover a pixel (or touch an area), by 64-pixel cells.
//!
//! The frame index keeps one for point lookups; name derivation builds one per large window
//! to find the static texts beside a field without scanning them all.
//!
//! Laid out flat ([`Groups`])
//! rather than as a vector per cell, so building it makes a handful of allocations however
//! many elements there are. An element covering more than [`BIG`] cells (a page-sized scroll
//! area, a crafted 2³⁰-pixel frame) is kept on a separate list checked at every lookup, so
//! one element can never fill millions of cells.

use std::collections::HashMap;

use super::groups::Groups;
use super::hash::FastState;
use crate::recording::ax::Rect;

const CELL: i64 = 64;
/// Elements covering more cells than this are checked at every lookup instead.
const BIG: i64 = 1024;

/// Elements by the cells they cover.
#[derive(Debug, Default)]
pub(crate) struct PointGrid {
    /// Cell → its number.
    cells: HashMap<(i64, i64), u32, FastState>,
    /// Cell `c`'s elements, in tree order.
    lists: Groups,
    /// Elements too big for cells, in tree order.
    big: Vec<u32>,
}

/// The cells a frame covers, as `(x0..=x1, y0..=y1)`; None for an empty frame.
fn span(f: &Rect) -> Option<(i64, i64, i64, i64)> {
    if f.width <= 0 || f.height <= 0 {
        return None;
    }
    let (x, y) = (i64::from(f.x), i64::from(f.y));
    Some((
        x.div_euclid(CELL),
        (x + i64::from(f.width) - 1).div_euclid(CELL),
        y.div_euclid(CELL),
        (y + i64::from(f.height) - 1).div_euclid(CELL),
    ))
}

impl PointGrid {
    /// Lays out the frames of elements `0..`, in order.
    pub(crate) fn build(frames: impl ExactSizeIterator<Item = Rect>) -> Self {
        let mut g = PointGrid::default();
        // (cell, element) in element order, and each cell's size.
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(frames.len() * 4);
        let mut sizes: Vec<u32> = Vec::new();
        for (i, f) in frames.enumerate() {
            let Some((x0, x1, y0, y1)) = span(&f) else {
                continue;
            };
            if (x1 - x0 + 1) * (y1 - y0 + 1) > BIG {
                g.big.push(i as u32);
                continue;
            }
            for cy in y0..=y1 {
                for cx in x0..=x1 {
                    let next = sizes.len() as u32;
                    let c = *g.cells.entry((cx, cy)).or_insert(next);
                    if c == next {
                        sizes.push(0);
                    }
                    sizes[c as usize] += 1;
                    pairs.push((c, i as u32));
                }
            }
        }
        g.lists = Groups::build(sizes, pairs.into_iter());
        g
    }

    /// Rectangles that may touch the pixels `x0..=x1` × `y0..=y1` (those in the cells the
    /// area covers, and the big ones), in order, once each; the caller checks them.
    pub(crate) fn touching(&self, x0: i64, x1: i64, y0: i64, y1: i64) -> Vec<u32> {
        let mut out = self.big.clone();
        for cy in y0.div_euclid(CELL)..=y1.div_euclid(CELL) {
            for cx in x0.div_euclid(CELL)..=x1.div_euclid(CELL) {
                if let Some(&c) = self.cells.get(&(cx, cy)) {
                    out.extend_from_slice(self.lists.get(c));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Elements that may cover pixel `(x, y)` (those whose cells hold it), in tree order;
    /// the caller checks the frames.
    pub(crate) fn near(&self, x: f64, y: f64) -> Vec<u32> {
        let cell = (
            i64::from(x as i32).div_euclid(CELL),
            i64::from(y as i32).div_euclid(CELL),
        );
        let in_cell = match self.cells.get(&cell) {
            Some(&c) => self.lists.get(c),
            None => &[],
        };
        let mut out = Vec::with_capacity(in_cell.len() + self.big.len());
        out.extend_from_slice(in_cell);
        if !self.big.is_empty() {
            out.extend_from_slice(&self.big);
            out.sort_unstable();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(x: i32, y: i32, width: i32, height: i32) -> Rect {
        Rect {
            x,
            y,
            width,
            height,
        }
    }

    #[test]
    fn finds_elements_by_cell_in_tree_order_including_big_ones() {
        let frames = [
            r(0, 0, 100_000, 100_000), // big: more than BIG cells
            r(10, 10, 50, 20),
            r(0, 0, 0, 20), // empty: never found
            r(60, 10, 10, 10),
            r(-70, -5, 10, 10),
        ];
        let g = PointGrid::build(frames.into_iter());
        assert_eq!(g.near(20.0, 15.0), vec![0, 1, 3]);
        assert_eq!(g.near(65.0, 15.0), vec![0, 3]);
        assert_eq!(g.near(-65.0, -1.0), vec![0, 4]);
        assert!(g.big.len() == 1 && g.near(5000.0, 5000.0) == vec![0]);
        assert_eq!(g.touching(60, 200, 0, 5), vec![0, 1, 3]);
        assert_eq!(g.touching(-300, -200, -300, -200), vec![0]);
        assert_eq!(g.touching(-64, -64, -1, -1), vec![0, 4]);
    }
}

//! [`PointGrid`]: which elements cover a pixel, by 64-pixel cells.
//!
//! The frame index keeps one for point lookups.
//!
//! Built for speed: the cells' lists are laid out flat ([`Groups`]), so building makes a
//! handful of allocations however many elements there are, and when the elements' cells
//! form a compact block (a screen's worth, the usual case) a cell's number is computed from
//! its position instead of hashed. Far-flung frames fall back to a hash map of the cells in
//! use. An element covering more than [`BIG`] cells (a page-sized scroll area, a crafted
//! 2³⁰-pixel frame) is kept on a separate list checked at every lookup, so one element can
//! never fill millions of cells.

use std::collections::HashMap;

use super::groups::Groups;
use super::hash::FastState;
use crate::recording::ax::Rect;

const CELL: i64 = 64;
/// Elements covering more cells than this are checked at every lookup instead.
const BIG: i64 = 1024;

/// How a cell position becomes a cell number.
#[derive(Debug)]
enum Cells {
    /// Every cell of the block `x0.., y0..` of `cols` × `rows`, numbered row by row.
    Block {
        x0: i64,
        y0: i64,
        cols: i64,
        rows: i64,
    },
    /// Only the cells in use.
    Sparse(HashMap<(i64, i64), u32, FastState>),
}

impl Default for Cells {
    fn default() -> Self {
        Cells::Block {
            x0: 0,
            y0: 0,
            cols: 0,
            rows: 0,
        }
    }
}

impl Cells {
    fn get(&self, cx: i64, cy: i64) -> Option<u32> {
        match self {
            Cells::Block { x0, y0, cols, rows } => {
                let (c, r) = (cx - x0, cy - y0);
                ((0..*cols).contains(&c) && (0..*rows).contains(&r)).then(|| (r * cols + c) as u32)
            }
            Cells::Sparse(map) => map.get(&(cx, cy)).copied(),
        }
    }

    /// Calls `f` with the number of each cell of `[x0, x1, y0, y1]`, row by row; every one
    /// of them must be numbered. In a block that is arithmetic, with no lookups or checks.
    #[inline]
    fn each(&self, [x0, x1, y0, y1]: [i64; 4], mut f: impl FnMut(u32)) {
        match self {
            Cells::Block {
                x0: bx,
                y0: by,
                cols,
                ..
            } => {
                for cy in y0..=y1 {
                    let row = (cy - by) * cols - bx;
                    (x0..=x1).for_each(|cx| f((row + cx) as u32));
                }
            }
            Cells::Sparse(map) => {
                for cy in y0..=y1 {
                    (x0..=x1).for_each(|cx| f(map[&(cx, cy)]));
                }
            }
        }
    }
}

/// Elements by the cells they cover.
#[derive(Debug, Default)]
pub(crate) struct PointGrid {
    cells: Cells,
    /// Cell `c`'s elements, in tree order.
    lists: Groups,
    /// Elements too big for cells, in tree order.
    big: Vec<u32>,
}

/// The cells a frame covers, as `[x0, x1, y0, y1]` (inclusive); None for an empty frame.
fn span(f: &Rect) -> Option<[i64; 4]> {
    if f.width <= 0 || f.height <= 0 {
        return None;
    }
    let (x, y) = (i64::from(f.x), i64::from(f.y));
    Some([
        x.div_euclid(CELL),
        (x + i64::from(f.width) - 1).div_euclid(CELL),
        y.div_euclid(CELL),
        (y + i64::from(f.height) - 1).div_euclid(CELL),
    ])
}

impl PointGrid {
    /// Lays out the frames of elements `0..`, in order.
    pub(crate) fn build(frames: impl ExactSizeIterator<Item = Rect>) -> Self {
        let mut g = PointGrid::default();
        let mut spans: Vec<(u32, [i64; 4])> = Vec::with_capacity(frames.len());
        let mut bounds = [i64::MAX, i64::MIN, i64::MAX, i64::MIN];
        for (i, f) in frames.enumerate() {
            let Some(s @ [x0, x1, y0, y1]) = span(&f) else {
                continue;
            };
            if (x1 - x0 + 1) * (y1 - y0 + 1) > BIG {
                g.big.push(i as u32);
                continue;
            }
            bounds = [
                bounds[0].min(x0),
                bounds[1].max(x1),
                bounds[2].min(y0),
                bounds[3].max(y1),
            ];
            spans.push((i as u32, s));
        }
        let mut sizes: Vec<u32> = Vec::new();
        if !spans.is_empty() {
            let (cols, rows) = (bounds[1] - bounds[0] + 1, bounds[3] - bounds[2] + 1);
            // A block is worth it while most of it is in use (or it is small anyway).
            let limit = (4 * spans.len() as i64).max(4096);
            if cols <= limit && rows <= limit && cols * rows <= limit {
                g.cells = Cells::Block {
                    x0: bounds[0],
                    y0: bounds[2],
                    cols,
                    rows,
                };
                sizes = vec![0; (cols * rows) as usize];
            } else {
                let mut map = HashMap::with_hasher(FastState::default());
                for &(_, [x0, x1, y0, y1]) in &spans {
                    for cy in y0..=y1 {
                        for cx in x0..=x1 {
                            let next = map.len() as u32;
                            map.entry((cx, cy)).or_insert(next);
                        }
                    }
                }
                sizes = vec![0; map.len()];
                g.cells = Cells::Sparse(map);
            }
            for &(_, s) in &spans {
                g.cells.each(s, |c| sizes[c as usize] += 1);
            }
        }
        let mut lists = Groups::filling(sizes);
        for &(i, s) in &spans {
            g.cells.each(s, |c| lists.put(c, i));
        }
        g.lists = lists.finish();
        g
    }

    /// Elements that may cover pixel `(x, y)` (those whose cells hold it), in tree order;
    /// the caller checks the frames.
    pub(crate) fn near(&self, x: f64, y: f64) -> Vec<u32> {
        let in_cell = self
            .cells
            .get(
                i64::from(x as i32).div_euclid(CELL),
                i64::from(y as i32).div_euclid(CELL),
            )
            .map_or(&[][..], |c| self.lists.get(c));
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
        Rect::new(x, y, width, height)
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
    }

    #[test]
    fn far_apart_frames_use_a_sparse_table_with_the_same_answers() {
        let frames = [
            r(10, 10, 50, 20),
            r(100_000_000, 5, 10, 10),
            r(30, 15, 10, 10),
        ];
        let g = PointGrid::build(frames.into_iter());
        assert!(matches!(g.cells, Cells::Sparse(_)));
        assert_eq!(g.near(35.0, 20.0), vec![0, 2]);
        assert_eq!(g.near(100_000_001.0, 6.0), vec![1]);
        assert!(g.near(5000.0, 6.0).is_empty());
        let block = PointGrid::build(frames[..1].iter().copied());
        assert!(matches!(block.cells, Cells::Block { .. }));
        assert!(
            PointGrid::build(std::iter::empty())
                .near(0.0, 0.0)
                .is_empty()
        );
    }
}

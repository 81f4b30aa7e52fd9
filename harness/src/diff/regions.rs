//! Where the changes are: changed regions and the densest window of a mismatch mask.
//!
//! A mask is `pixel::PixelDiff::mask`: one bit per pixel, row-major, pixel `i` in bit `i % 64`
//! of word `i / 64`. Bits past the end of a short mask read as clear, so a malformed mask gives a
//! smaller answer rather than a panic. Every result is deterministic, so reports and recordings
//! compare byte for byte across runs.

/// An axis-aligned box of changed pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Region {
    /// Left edge, in pixels.
    pub x: u32,
    /// Top edge, in pixels.
    pub y: u32,
    /// Width, in pixels.
    pub width: u32,
    /// Height, in pixels.
    pub height: u32,
    /// Changed pixels inside the box (of the components that formed it).
    pub pixels: u64,
}

/// Default for [`regions`]' `merge_gap`: changes closer than this many pixels are reported as one
/// region, so a changed word of text is one box rather than one per glyph.
pub const DEFAULT_MERGE_GAP: u32 = 8;

#[cfg(test)]
fn bit(mask: &[u64], i: usize) -> bool {
    mask.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1)
}

/// The mask's words over bits `from..to`, each with the index of its bit 0 and with the bits
/// outside `from..to` cleared; words past the end of the mask are left out (they read as
/// clear).
#[inline]
fn words(mask: &[u64], from: usize, to: usize) -> impl Iterator<Item = (usize, u64)> + '_ {
    let last = to.div_ceil(64).min(mask.len());
    (from / 64..last).map(move |wi| {
        let (base, mut word) = (wi * 64, mask[wi]);
        if base < from {
            word &= u64::MAX << (from - base);
        }
        if to - base < 64 {
            word &= (1u64 << (to - base)) - 1;
        }
        (base, word)
    })
}

/// Calls `f` with the index of every set bit in `from..to` (bits past the mask read as clear)
/// and returns how many there were; cost is per word, not per bit.
#[inline]
fn for_each_set(mask: &[u64], from: usize, to: usize, mut f: impl FnMut(usize)) -> u64 {
    let mut count = 0;
    for (base, mut word) in words(mask, from, to) {
        while word != 0 {
            f(base + word.trailing_zeros() as usize);
            word &= word - 1;
            count += 1;
        }
    }
    count
}

/// Changed regions: 8-connected components of the mask, as bounding boxes, with boxes that are
/// closer than `merge_gap` pixels merged (repeatedly, until no two are). Two boxes are closer
/// than `g` when fewer than `g` clean columns *and* fewer than `g` clean rows separate them, so
/// `merge_gap = 0` returns the raw components and `1` merges touching or overlapping boxes.
/// Sorted by `y`, then `x` (then size and count, for overlapping components).
pub fn regions(mask: &[u64], width: u32, height: u32, merge_gap: u32) -> Vec<Region> {
    let mut boxes = components(mask, width as usize, height as usize);
    if merge_gap > 0 {
        boxes = merge(boxes, merge_gap);
    }
    boxes.sort_unstable_by_key(|r| (r.y, r.x, r.height, r.width, r.pixels));
    boxes
}

/// Bounding boxes of the 8-connected components. Row by row, the runs of set bits are read a
/// word at a time and joined (union–find) to the runs of the row above that touch them,
/// diagonals included: the cost is per run, not per changed pixel, so a big changed block
/// costs about as much as its outline.
fn components(mask: &[u64], w: usize, h: usize) -> Vec<Region> {
    // Per run label: its union–find parent and the box of its pixels so far.
    let mut parent: Vec<usize> = Vec::new();
    let mut boxes: Vec<[usize; 4]> = Vec::new();
    let mut pixels: Vec<u64> = Vec::new();
    // Runs as (first x, last x, label), this row and the one above.
    let (mut above, mut here): (Vec<(usize, usize, usize)>, Vec<_>) = (Vec::new(), Vec::new());
    let mut runs = Vec::new();
    for y in 0..h {
        runs.clear();
        row_runs(mask, y * w, (y + 1) * w, &mut runs);
        here.clear();
        let mut j = 0;
        for &(x0, x1) in &runs {
            let label = parent.len();
            parent.push(label);
            boxes.push([x0, x1, y, y]);
            pixels.push((x1 - x0 + 1) as u64);
            // Runs above that end before column x0 - 1 touch neither this run nor later ones.
            while j < above.len() && above[j].1 + 1 < x0 {
                j += 1;
            }
            for &(_, _, other) in above[j..].iter().take_while(|r| r.0 <= x1 + 1) {
                let (ra, rb) = (find(&mut parent, label), find(&mut parent, other));
                parent[ra.max(rb)] = ra.min(rb);
            }
            here.push((x0, x1, label));
        }
        std::mem::swap(&mut above, &mut here);
    }
    // Every label's box and count go to its root; roots come first in label order.
    let mut out: Vec<Option<Region>> = vec![None; parent.len()];
    for label in 0..parent.len() {
        let root = find(&mut parent, label);
        let [x0, x1, y0, y1] = boxes[label];
        let add = Region {
            x: x0 as u32,
            y: y0 as u32,
            width: (x1 - x0 + 1) as u32,
            height: (y1 - y0 + 1) as u32,
            pixels: pixels[label],
        };
        out[root] = Some(match out[root] {
            None => add,
            Some(u) => union_box(&u, &add),
        });
    }
    out.into_iter().flatten().collect()
}

/// The runs of set bits in `from..to` (bits past the mask read as clear), as first and last
/// offsets from `from`, read a word at a time.
fn row_runs(mask: &[u64], from: usize, to: usize, out: &mut Vec<(usize, usize)>) {
    let mut open: Option<(usize, usize)> = None;
    for (base, word) in words(mask, from, to) {
        let mut at = 0u32;
        while at < 64 && word >> at != 0 {
            let start = at + (word >> at).trailing_zeros();
            let len = (word >> start).trailing_ones();
            let (first, last) = (base + start as usize, base + (start + len) as usize - 1);
            open = match open {
                // A run that reached the end of the previous word goes on in this one.
                Some((f, l)) if l + 1 == first => Some((f, last)),
                Some(done) => {
                    out.push((done.0 - from, done.1 - from));
                    Some((first, last))
                }
                None => Some((first, last)),
            };
            at = start + len;
        }
    }
    if let Some((f, l)) = open {
        out.push((f - from, l - from));
    }
}

/// The smallest box holding both, with both counts.
fn union_box(u: &Region, b: &Region) -> Region {
    let (x0, y0) = (u.x.min(b.x), u.y.min(b.y));
    let x1 = (u.x + u.width).max(b.x + b.width);
    let y1 = (u.y + u.height).max(b.y + b.height);
    Region {
        x: x0,
        y: y0,
        width: x1 - x0,
        height: y1 - y0,
        pixels: u.pixels + b.pixels,
    }
}

/// Clean pixels between the spans `[a0, a1)` and `[b0, b1)` on one axis (0 if they overlap).
#[inline]
fn separation(a0: u32, a1: u32, b0: u32, b1: u32) -> u32 {
    b0.saturating_sub(a1).max(a0.saturating_sub(b1))
}

fn close(a: &Region, b: &Region, gap: u32) -> bool {
    separation(a.x, a.x + a.width, b.x, b.x + b.width) < gap
        && separation(a.y, a.y + a.height, b.y, b.y + b.height) < gap
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Merges boxes closer than `gap` until none are. Each pass sweeps the boxes in `x` order,
/// comparing only boxes whose column spans come within `gap`, and unions all close pairs; a
/// merged box may reach new neighbours, so passes repeat until one merges nothing.
fn merge(mut boxes: Vec<Region>, gap: u32) -> Vec<Region> {
    loop {
        boxes.sort_unstable_by_key(|r| (r.x, r.y, r.width, r.height, r.pixels));
        let mut parent: Vec<usize> = (0..boxes.len()).collect();
        let mut merged_any = false;
        for i in 0..boxes.len() {
            let reach = u64::from(boxes[i].x) + u64::from(boxes[i].width) + u64::from(gap);
            for j in i + 1..boxes.len() {
                // Sorted by x: once a box starts `gap` or more columns past box i's right
                // edge, so do all later ones.
                if u64::from(boxes[j].x) >= reach {
                    break;
                }
                if close(&boxes[i], &boxes[j], gap) {
                    let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
                    if ri != rj {
                        parent[ri.max(rj)] = ri.min(rj);
                        merged_any = true;
                    }
                }
            }
        }
        if !merged_any {
            return boxes;
        }
        let mut union: Vec<Option<Region>> = vec![None; boxes.len()];
        for (i, &b) in boxes.iter().enumerate() {
            let r = find(&mut parent, i);
            union[r] = Some(match union[r] {
                None => b,
                Some(u) => union_box(&u, &b),
            });
        }
        boxes = union.into_iter().flatten().collect();
    }
}

/// The densest `n × n` window of a mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Density {
    /// The requested window side.
    pub(crate) n: u32,
    /// Changed pixels in the densest window.
    pub(crate) max_changed: u64,
    /// That window (clipped to the image when `n` exceeds it); `window.pixels == max_changed`.
    pub(crate) window: Region,
}

impl Density {
    /// `max_changed` as a fraction of the window's area (0 for an empty window).
    pub(crate) fn fraction(&self) -> f64 {
        let area = u64::from(self.window.width) * u64::from(self.window.height);
        if area == 0 {
            0.0
        } else {
            self.max_changed as f64 / area as f64
        }
    }
}

/// The `n × n` window holding the most changed pixels, which tells a concentrated change (a
/// broken widget) from the same count spread thin (noise). Windows lie fully inside the image
/// (a side larger than the image is clipped to it); ties go to the first window in row-major
/// order of its top-left corner. O(w·h) time and O(w) memory: per-column counts over the last
/// `n` rows, the row-by-row form of a summed-area table, slid across each row.
pub(crate) fn density(mask: &[u64], width: u32, height: u32, n: u32) -> Density {
    let (w, h) = (width as usize, height as usize);
    let nw = (n as usize).min(w);
    let nh = (n as usize).min(h);
    let mut best = Region {
        x: 0,
        y: 0,
        width: nw as u32,
        height: nh as u32,
        pixels: 0,
    };
    if nw > 0 && nh > 0 {
        let mut cols = vec![0u32; w];
        // Each row's first and last changed column (`usize::MAX, 0` when clean): windows
        // wholly left or right of the band's changes hold 0 and cannot win, so each row slides
        // only across the columns between.
        let mut spans = vec![(usize::MAX, 0usize); h];
        // Changed pixels in the last `nh` rows: while 0, every window there holds 0 and only the
        // very first window could become the answer, so the sliding pass is skipped. Screens
        // are mostly unchanged, which makes this the common case.
        let mut band = 0u64;
        let mut found = false;
        for y in 0..h {
            let span = &mut spans[y];
            band += for_each_set(mask, y * w, (y + 1) * w, |i| {
                let x = i - y * w;
                cols[x] += 1;
                (span.0, span.1) = (span.0.min(x), span.1.max(x));
            });
            if y >= nh {
                let r = (y - nh) * w;
                band -= for_each_set(mask, r, r + w, |i| cols[i - r] -= 1);
            }
            if y + 1 < nh {
                continue;
            }
            let top = y + 1 - nh;
            if band == 0 {
                if !found {
                    found = true;
                    (best.x, best.y, best.pixels) = (0, top as u32, 0);
                }
                continue;
            }
            let (first, last) = spans[top..=y]
                .iter()
                .fold((usize::MAX, 0), |(a, b), &(f, l)| (a.min(f), b.max(l)));
            // Windows from x0 to x1 hold changes; the first window is tried anyway when
            // nothing was found yet (ties go to the first window).
            let x0 = if found {
                (first + 1).saturating_sub(nw)
            } else {
                0
            };
            let x1 = last.min(w - nw);
            let mut sum: u64 = cols[x0..x0 + nw].iter().map(|&c| u64::from(c)).sum();
            for x in x0..=x1 {
                if x > x0 {
                    sum = sum + u64::from(cols[x + nw - 1]) - u64::from(cols[x - 1]);
                }
                if !found || sum > best.pixels {
                    found = true;
                    best.x = x as u32;
                    best.y = top as u32;
                    best.pixels = sum;
                }
            }
        }
    }
    Density {
        n,
        max_changed: best.pixels,
        window: best,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mask from rows of `#` (changed) and `.` (clean).
    fn mask(rows: &[&str]) -> (Vec<u64>, u32, u32) {
        let (w, h) = (rows.first().map_or(0, |r| r.len()), rows.len());
        let mut m = vec![0u64; (w * h).div_ceil(64)];
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.bytes().enumerate() {
                if c == b'#' {
                    let i = y * w + x;
                    m[i / 64] |= 1 << (i % 64);
                }
            }
        }
        (m, w as u32, h as u32)
    }

    fn r(x: u32, y: u32, width: u32, height: u32, pixels: u64) -> Region {
        Region {
            x,
            y,
            width,
            height,
            pixels,
        }
    }

    /// Slow, obvious definitions to check the fast ones against.
    fn brute_density(m: &[u64], w: u32, h: u32, n: u32) -> (u64, u32, u32) {
        let (nw, nh) = (n.min(w), n.min(h));
        let mut best = (0, 0, 0);
        let mut found = false;
        for y in 0..=h.saturating_sub(nh) {
            for x in 0..=w.saturating_sub(nw) {
                let mut c = 0;
                for yy in y..y + nh {
                    for xx in x..x + nw {
                        c += u64::from(bit(m, (yy * w + xx) as usize));
                    }
                }
                if !found || c > best.0 {
                    found = true;
                    best = (c, x, y);
                }
            }
        }
        best
    }

    /// Components by plain flood fill, pixel by pixel: the reference for the run-based ones.
    fn flood(m: &[u64], w: usize, h: usize) -> Vec<Region> {
        let mut seen = vec![false; w * h];
        let mut out = Vec::new();
        for start in (0..w * h).filter(|&i| bit(m, i)) {
            if seen[start] {
                continue;
            }
            seen[start] = true;
            let mut stack = vec![start];
            let (mut x0, mut x1, mut y0, mut y1, mut n) = (w, 0, h, 0, 0u64);
            while let Some(i) = stack.pop() {
                let (x, y) = (i % w, i / w);
                (x0, x1, y0, y1, n) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y), n + 1);
                for ny in y.saturating_sub(1)..=(y + 1).min(h - 1) {
                    for nx in x.saturating_sub(1)..=(x + 1).min(w - 1) {
                        let j = ny * w + nx;
                        if bit(m, j) && !seen[j] {
                            seen[j] = true;
                            stack.push(j);
                        }
                    }
                }
            }
            out.push(r(
                x0 as u32,
                y0 as u32,
                (x1 - x0 + 1) as u32,
                (y1 - y0 + 1) as u32,
                n,
            ));
        }
        out
    }

    #[test]
    fn run_components_equal_flood_fill() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..300 {
            // Widths across several words, rows starting anywhere in a word; sparse to full.
            let (w, h) = (1 + (next() % 200) as usize, 1 + (next() % 40) as usize);
            let fill = next() % 101;
            let mut m = vec![0u64; (w * h).div_ceil(64)];
            for i in 0..w * h {
                if next() % 100 < fill {
                    m[i / 64] |= 1 << (i % 64);
                }
            }
            let key = |r: &Region| (r.y, r.x, r.height, r.width, r.pixels);
            let (mut got, mut want) = (components(&m, w, h), flood(&m, w, h));
            got.sort_unstable_by_key(key);
            want.sort_unstable_by_key(key);
            assert_eq!(got, want, "round {round}: {w}x{h}, fill {fill}%");
        }
    }

    #[test]
    fn components_are_8_connected() {
        let (m, w, h) = mask(&[
            "#.....##", //
            ".#....#.", //
            "..#.....", //
            "........", //
            "...##..#", //
        ]);
        assert_eq!(
            regions(&m, w, h, 0),
            vec![
                r(0, 0, 3, 3, 3),
                r(6, 0, 2, 2, 3),
                r(3, 4, 2, 1, 2),
                r(7, 4, 1, 1, 1)
            ]
        );
    }

    #[test]
    fn merging_respects_the_gap() {
        // Two dots separated by 3 clean columns: merged iff the gap exceeds 3.
        let (m, w, h) = mask(&["#...#"]);
        assert_eq!(regions(&m, w, h, 3).len(), 2);
        assert_eq!(regions(&m, w, h, 4), vec![r(0, 0, 5, 1, 2)]);
        // Diagonal neighbours need both separations under the gap.
        let (m, w, h) = mask(&["#....", ".....", ".....", "....#"]);
        assert_eq!(regions(&m, w, h, 3).len(), 2);
        assert_eq!(regions(&m, w, h, 4).len(), 1);
        // Overlapping boxes of separate components merge at gap 1.
        let (m, w, h) = mask(&["#####", "#...#", "#.#.#", "#...#", "#####"]);
        assert_eq!(regions(&m, w, h, 0).len(), 2);
        assert_eq!(regions(&m, w, h, 1), vec![r(0, 0, 5, 5, 17)]);
    }

    #[test]
    fn merging_repeats_until_stable() {
        // The dot is far from both the bar and the column, but once they merge their joint box
        // reaches down next to it.
        let mut rows = vec!["######..", "........"];
        rows.extend([".......#"; 7]);
        rows.extend(["........", "#......."]);
        let (m, w, h) = mask(&rows);
        assert_eq!(regions(&m, w, h, 2), vec![r(0, 0, 8, 11, 14)]);
        assert_eq!(regions(&m, w, h, 0).len(), 3);
    }

    #[test]
    fn sorted_by_y_then_x_and_default_gap() {
        let mut rows = vec!["...................................#"; 3];
        rows.push("....................................");
        rows.extend(["#..................................."; 20]);
        rows.push("..........................#.........");
        let (m, w, h) = mask(&rows);
        let got = regions(&m, w, h, DEFAULT_MERGE_GAP);
        assert_eq!(
            got,
            vec![r(35, 0, 1, 3, 3), r(0, 4, 1, 20, 20), r(26, 24, 1, 1, 1)]
        );
    }

    #[test]
    fn empty_and_degenerate_masks() {
        assert!(regions(&[], 0, 0, 8).is_empty());
        assert!(regions(&[0], 10, 5, 8).is_empty());
        // A short mask reads as clean beyond its end instead of panicking.
        assert_eq!(regions(&[1], 100, 100, 8), vec![r(0, 0, 1, 1, 1)]);
        let d = density(&[], 0, 0, 4);
        assert_eq!((d.max_changed, d.window), (0, r(0, 0, 0, 0, 0)));
        assert_eq!(d.fraction(), 0.0);
        assert_eq!(density(&[u64::MAX], 8, 8, 0).max_changed, 0);
    }

    #[test]
    fn density_finds_the_first_densest_window() {
        let (m, w, h) = mask(&[
            "......", //
            ".##..#", //
            ".##..#", //
            "......", //
        ]);
        let d = density(&m, w, h, 2);
        assert_eq!((d.max_changed, d.window), (4, r(1, 1, 2, 2, 4)));
        assert_eq!(d.fraction(), 1.0);
        // Ties: the first window in row-major order wins.
        let (m, w, h) = mask(&["#..#", "....", "#..."]);
        let d = density(&m, w, h, 1);
        assert_eq!((d.window.x, d.window.y), (0, 0));
        let d = density(&m, w, h, 2);
        assert_eq!((d.max_changed, d.window.x, d.window.y), (1, 0, 0));
        // A window larger than the image is clipped to it.
        let d = density(&m, w, h, 10);
        assert_eq!((d.n, d.max_changed, d.window), (10, 3, r(0, 0, 4, 3, 3)));
    }

    #[test]
    fn density_and_regions_match_brute_force() {
        let mut seed = 0x1234_5678_9ABC_DEF0u64;
        let mut next = || {
            // xorshift64
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..200 {
            let w = 1 + (next() % 40) as u32;
            let h = 1 + (next() % 30) as u32;
            let fill = next() % 100;
            let n = (w * h) as usize;
            let mut m = vec![0u64; n.div_ceil(64)];
            for i in 0..n {
                if next() % 100 < fill / 3 {
                    m[i / 64] |= 1 << (i % 64);
                }
            }
            let total: u64 = m.iter().map(|w| u64::from(w.count_ones())).sum();
            for size in [1, 2, 3, 7, 50] {
                let d = density(&m, w, h, size);
                let (c, x, y) = brute_density(&m, w, h, size);
                assert_eq!((d.max_changed, d.window.x, d.window.y), (c, x, y));
            }
            for gap in [0, 1, 3, 8] {
                let rs = regions(&m, w, h, gap);
                // Every changed pixel is counted exactly once and lies in some box.
                assert_eq!(rs.iter().map(|r| r.pixels).sum::<u64>(), total);
                for i in (0..n).filter(|&i| bit(&m, i)) {
                    let (x, y) = ((i % w as usize) as u32, (i / w as usize) as u32);
                    assert!(
                        rs.iter().any(|r| x >= r.x
                            && x < r.x + r.width
                            && y >= r.y
                            && y < r.y + r.height)
                    );
                }
                // After merging, no two boxes are closer than the gap.
                if gap > 0 {
                    for (i, a) in rs.iter().enumerate() {
                        for b in &rs[i + 1..] {
                            assert!(!close(a, b, gap), "{a:?} {b:?} gap {gap}");
                        }
                    }
                }
                assert!(rs.windows(2).all(|p| (p[0].y, p[0].x) <= (p[1].y, p[1].x)));
            }
        }
    }
}

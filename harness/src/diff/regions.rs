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

#[inline]
fn bit(mask: &[u64], i: usize) -> bool {
    mask.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1)
}

/// Calls `f` with the index of every set bit in `from..to` (bits past the mask read as clear)
/// and returns how many there were; cost is per word, not per bit.
#[inline]
fn for_each_set(mask: &[u64], from: usize, to: usize, mut f: impl FnMut(usize)) -> u64 {
    let mut count = 0;
    let mut wi = from / 64;
    while wi * 64 < to {
        let Some(&word) = mask.get(wi) else { break };
        let base = wi * 64;
        let mut word = word;
        if base < from {
            word &= u64::MAX << (from - base);
        }
        if to - base < 64 {
            word &= (1u64 << (to - base)) - 1;
        }
        while word != 0 {
            f(base + word.trailing_zeros() as usize);
            word &= word - 1;
            count += 1;
        }
        wi += 1;
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

/// Bounding boxes of the 8-connected components, found by flood fill from each unvisited set
/// bit; O(w·h) time, one bit per pixel of extra memory plus the fill stack.
fn components(mask: &[u64], w: usize, h: usize) -> Vec<Region> {
    let n = w * h;
    let mut seen = vec![0u64; n.div_ceil(64)];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    for (wi, &word) in mask.iter().enumerate().take(n.div_ceil(64)) {
        let mut word = word & !seen[wi];
        while word != 0 {
            let start = wi * 64 + word.trailing_zeros() as usize;
            word &= word - 1;
            if start >= n || bit(&seen, start) {
                continue;
            }
            seen[start / 64] |= 1 << (start % 64);
            // Coordinates, not indices, on the stack: no division per filled pixel.
            stack.push((start % w, start / w));
            let (mut x0, mut y0) = (start % w, start / w);
            let (mut x1, mut y1) = (x0, y0);
            let mut pixels = 0u64;
            while let Some((x, y)) = stack.pop() {
                pixels += 1;
                (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
                for ny in y.saturating_sub(1)..=(y + 1).min(h - 1) {
                    for nx in x.saturating_sub(1)..=(x + 1).min(w - 1) {
                        let j = ny * w + nx;
                        if bit(mask, j) && !bit(&seen, j) {
                            seen[j / 64] |= 1 << (j % 64);
                            stack.push((nx, ny));
                        }
                    }
                }
            }
            out.push(Region {
                x: x0 as u32,
                y: y0 as u32,
                width: (x1 - x0 + 1) as u32,
                height: (y1 - y0 + 1) as u32,
                pixels,
            });
        }
    }
    out
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
                Some(u) => {
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
            });
        }
        boxes = union.into_iter().flatten().collect();
    }
}

/// The densest `n × n` window of a mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Density {
    /// The requested window side.
    pub n: u32,
    /// Changed pixels in the densest window.
    pub max_changed: u64,
    /// That window (clipped to the image when `n` exceeds it); `window.pixels == max_changed`.
    pub window: Region,
}

impl Density {
    /// `max_changed` as a fraction of the window's area (0 for an empty window).
    pub fn fraction(&self) -> f64 {
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
pub fn density(mask: &[u64], width: u32, height: u32, n: u32) -> Density {
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
        // Changed pixels in the last `nh` rows: while 0, every window there holds 0 and only the
        // very first window could become the answer, so the sliding pass is skipped. Screens
        // are mostly unchanged, which makes this the common case.
        let mut band = 0u64;
        let mut found = false;
        for y in 0..h {
            band += for_each_set(mask, y * w, (y + 1) * w, |i| cols[i - y * w] += 1);
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
            let mut sum: u64 = cols[..nw].iter().map(|&c| u64::from(c)).sum();
            for x in 0..=w - nw {
                if x > 0 {
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

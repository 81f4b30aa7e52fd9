//! Exact copies ([`exact_copies`]): every place in a region where the crop's grey pixels
//! appear unchanged.
//!
//! An exact copy scores 1, the highest NCC there is, so when the screen still shows the
//! control as recorded no score needs computing. Finding the copies costs one substring scan
//! of the region's rows for a short run of the crop (memchr's SIMD `memmem`), then a row
//! comparison at each hit — whatever the crop looks like. The coarse-to-fine search costs
//! what the crop's look-alikes cost, which made text on flat backgrounds, blank stretches and
//! crops with no copy left the slow corners; with this scan first, the coarse search only
//! runs when there is no copy, and it no longer has to widen in case it pruned one.

use memchr::memmem::Finder;

use super::gray::Plane;
use super::locate::Region;

/// Longest run of a crop row the scan looks for.
const ANCHOR: usize = 16;

/// The run of the crop the scan looks for: `len` pixels of row `row` from column `col`,
/// chosen with the most changes between neighbours, so that it occurs in few places besides
/// the copies (a run of one grey occurs all along every flat area of that grey).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Anchor {
    row: usize,
    col: usize,
    len: usize,
}

fn anchor(crop: &Plane) -> Anchor {
    let len = crop.width.min(ANCHOR);
    let mut best = (
        0,
        Anchor {
            row: 0,
            col: 0,
            len,
        },
    );
    for (row, line) in crop.data.chunks_exact(crop.width).enumerate() {
        // Changes inside the window [col, col + len), slid along the row.
        let change = |i: usize| usize::from(line[i] != line[i - 1]);
        let mut changes: usize = (1..len).map(change).sum();
        for col in 0..=crop.width - len {
            if col > 0 {
                changes = changes - change(col) + change(col + len - 1);
            }
            if changes > best.0 {
                best = (changes, Anchor { row, col, len });
            }
        }
    }
    best.1
}

/// Calls `copy(x, y)` for each top-left corner in `region` (inclusive ranges of corners)
/// where `crop` appears pixel for pixel on `screen`, in raster order.
pub(super) fn exact_copies(
    screen: &Plane,
    crop: &Plane,
    region: Region,
    mut copy: impl FnMut(usize, usize),
) {
    let (w, h) = (crop.width, crop.height);
    if w == 0 || h == 0 || region.x1 + w > screen.width || region.y1 + h > screen.height {
        return;
    }
    if crop.data.iter().all(|&v| v == crop.data[0]) {
        return flat_copies(screen, crop.data[0], (w, h), region, copy);
    }
    let a = anchor(crop);
    let needle = crop.row(a.col, a.row, a.len);
    if needle.iter().all(|&v| v == needle[0]) {
        // The run with the most changes has none: every row of the crop is one grey.
        return stripes(screen, crop, a.row, region, copy);
    }
    let probes = probes(crop, a.row);
    // The anchor's run matched already; a few pixels that tell look-alikes apart are checked
    // next, then the rows from the anchor's outwards.
    let order: Vec<usize> = (a.row..h).chain((0..a.row).rev()).collect();
    let same = |x: usize, y: usize| {
        probes
            .iter()
            .all(|&(r, c, v)| screen.data[(y + r) * screen.width + x + c] == v)
            && order
                .iter()
                .all(|&r| screen.row(x, y + r, w) == crop.row(0, r, w))
    };
    let finder = Finder::new(needle);
    for y in region.y0..=region.y1 {
        // The anchor of a copy at (x, y) sits at (x + col, y + row).
        let hay = screen.row(region.x0 + a.col, y + a.row, region.x1 - region.x0 + a.len);
        let mut from = 0;
        while let Some(i) = finder.find(&hay[from..]) {
            let x = region.x0 + from + i;
            if same(x, y) {
                copy(x, y);
            }
            // Overlapping occurrences count (a run inside a longer run of the same grey).
            from += i + 1;
        }
    }
}

/// The copies of a crop whose every row is one grey (stripes: the anchor,
/// the run with the most changes, has none). A place is a copy when each of the `w` columns
/// from it shows the crop's column of greys, so the columns are checked once each, left to
/// right, and `w` good ones in a row make a copy: a column that fails rules out every place
/// whose window covers it. Only columns inside runs of the anchor row's grey at least `w`
/// long are checked; rows where the greys change are checked first.
fn stripes(
    screen: &Plane,
    crop: &Plane,
    anchor_row: usize,
    region: Region,
    mut copy: impl FnMut(usize, usize),
) {
    let (w, h) = (crop.width, crop.height);
    let grey = |r: usize| crop.data[r * w];
    let edge =
        |r: usize| (r > 0 && grey(r) != grey(r - 1)) || (r + 1 < h && grey(r) != grey(r + 1));
    let (mut order, rest): (Vec<usize>, Vec<usize>) =
        (0..h).filter(|&r| r != anchor_row).partition(|&r| edge(r));
    order.extend(rest);
    let g = grey(anchor_row);
    for y in region.y0..=region.y1 {
        let column = |c: usize| {
            order
                .iter()
                .all(|&r| screen.data[(y + r) * screen.width + c] == grey(r))
        };
        let line = screen.row(region.x0, y + anchor_row, region.x1 - region.x0 + w);
        let mut i = 0;
        while i < line.len() {
            let start = i;
            while i < line.len() && line[i] == g {
                i += 1;
            }
            if i - start >= w {
                let mut good = 0;
                for c in start..i {
                    good = if column(region.x0 + c) { good + 1 } else { 0 };
                    if good >= w {
                        copy(region.x0 + c + 1 - w, y);
                    }
                }
            }
            i += usize::from(i == start);
        }
    }
}

/// Most pixels checked before whole rows are compared.
const PROBES: usize = 8;

/// Pixels `(row, col, grey)` of the crop, in rows other than the anchor's, that differ from
/// the anchor row's pixel in the same column: where the anchor's run occurs by chance (inside
/// a flat area, along an edge) those usually differ, so a look-alike fails on one byte instead
/// of a row comparison. At most `PROBES`, spread over the rows that have one and, within a
/// row, over its width (a look-alike that fits on the left often fails on the right: a flat
/// window area with text further along).
fn probes(crop: &Plane, anchor_row: usize) -> Vec<(usize, usize, u8)> {
    let w = crop.width;
    let base = crop.row(0, anchor_row, w);
    let rows: Vec<usize> = (0..crop.height)
        .filter(|&r| r != anchor_row && crop.row(0, r, w) != base)
        .collect();
    let step = rows.len().div_ceil(PROBES).max(1);
    rows.into_iter()
        .step_by(step)
        .enumerate()
        .map(|(k, r)| {
            let line = crop.row(0, r, w);
            // The differing pixel nearest an aim that moves across the width probe by probe.
            let aim = (2 * k + 1) * w / (2 * PROBES);
            let c = (0..w)
                .filter(|&c| line[c] != base[c])
                .min_by_key(|&c| c.abs_diff(aim))
                .expect("the row differs from the anchor's");
            (r, c, line[c])
        })
        .collect()
}

/// The copies of a flat `w`×`h` crop of grey `g`: windows of that grey only. A flat area has
/// a copy at nearly every place, so instead of comparing windows this keeps, per column, how
/// many rows in a row have a run of `g` at least `w` long starting there.
fn flat_copies(
    screen: &Plane,
    g: u8,
    (w, h): (usize, usize),
    region: Region,
    mut copy: impl FnMut(usize, usize),
) {
    let n = region.x1 - region.x0 + 1;
    let mut tall = vec![0usize; n];
    let mut run = vec![0usize; n + w - 1];
    for y in region.y0..region.y1 + h {
        let line = screen.row(region.x0, y, n + w - 1);
        let mut len = 0;
        for (r, &v) in run.iter_mut().zip(line).rev() {
            len = if v == g { len + 1 } else { 0 };
            *r = len;
        }
        for (i, (t, &r)) in tall.iter_mut().zip(&run).enumerate() {
            *t = if r >= w { *t + 1 } else { 0 };
            if *t >= h {
                copy(region.x0 + i, y + 1 - h);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::synth::Rng;
    use super::*;

    fn plane(width: usize, height: usize, data: Vec<u8>) -> Plane {
        Plane {
            width,
            height,
            data,
        }
    }

    fn cut(p: &Plane, x: usize, y: usize, w: usize, h: usize) -> Plane {
        let data = (0..h).flat_map(|r| p.row(x, y + r, w).to_vec()).collect();
        plane(w, h, data)
    }

    fn all(p: &Plane, w: usize, h: usize) -> Region {
        Region {
            x0: 0,
            y0: 0,
            x1: p.width - w,
            y1: p.height - h,
        }
    }

    /// Every place, compared pixel by pixel.
    fn brute(screen: &Plane, crop: &Plane, r: Region) -> Vec<(usize, usize)> {
        let (w, h) = (crop.width, crop.height);
        (r.y0..=r.y1)
            .flat_map(|y| (r.x0..=r.x1).map(move |x| (x, y)))
            .filter(|&(x, y)| cut(screen, x, y, w, h).data == crop.data)
            .collect()
    }

    fn copies(screen: &Plane, crop: &Plane, region: Region) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        exact_copies(screen, crop, region, |x, y| out.push((x, y)));
        out
    }

    #[test]
    fn the_anchor_is_the_busiest_run() {
        let p = plane(
            20,
            2,
            [vec![5; 20], (0..20).map(|i| (i % 3) as u8 * 9).collect()].concat(),
        );
        assert_eq!(
            anchor(&p),
            Anchor {
                row: 1,
                col: 0,
                len: 16
            }
        );
        let narrow = plane(3, 1, vec![1, 1, 2]);
        assert_eq!(
            anchor(&narrow),
            Anchor {
                row: 0,
                col: 0,
                len: 3
            }
        );
    }

    #[test]
    fn agrees_with_brute_force_on_few_grey_screens() {
        // Few greys make many partial matches and overlapping runs, where a scan that skips
        // ahead after a hit would miss copies.
        let mut rng = Rng::new(3);
        for case in 0..60 {
            let (sw, sh) = (
                20 + rng.below_u32(40) as usize,
                6 + rng.below_u32(20) as usize,
            );
            let greys = 1 + rng.below_u32(3);
            let data = (0..sw * sh)
                .map(|_| (rng.below_u32(greys) * 80) as u8)
                .collect();
            let screen = plane(sw, sh, data);
            let (w, h) = (
                1 + rng.below_u32(20) as usize,
                1 + rng.below_u32(5) as usize,
            );
            let (x, y) = (
                rng.below_u32((sw - w + 1) as u32) as usize,
                rng.below_u32((sh - h + 1) as u32) as usize,
            );
            let crop = cut(&screen, x, y, w, h);
            let r = all(&screen, w, h);
            let window = Region {
                x0: r.x1 / 3,
                y0: r.y1 / 4,
                x1: r.x1 - r.x1 / 4,
                y1: r.y1,
            };
            for region in [r, window] {
                let got = copies(&screen, &crop, region);
                assert_eq!(
                    got,
                    brute(&screen, &crop, region),
                    "case {case} in {region:?}"
                );
            }
            assert!(copies(&screen, &crop, r).contains(&(x, y)));
        }
    }

    #[test]
    fn stripes_agree_with_brute_force() {
        // Bands of a few greys, a few stray pixels: crops whose rows are each one grey, with
        // copies along the bands, cut off by the strays and the band edges.
        let mut rng = Rng::new(9);
        for case in 0..40 {
            let (sw, sh) = (
                30 + rng.below_u32(40) as usize,
                10 + rng.below_u32(20) as usize,
            );
            let bands: Vec<u8> = (0..sh).map(|_| (rng.below_u32(3) * 70) as u8).collect();
            let mut data: Vec<u8> = (0..sw * sh).map(|i| bands[i / sw]).collect();
            for _ in 0..rng.below_u32(6) {
                data[rng.below_u32((sw * sh) as u32) as usize] = 255;
            }
            let screen = plane(sw, sh, data);
            let (w, h) = (
                2 + rng.below_u32(25) as usize,
                2 + rng.below_u32(6) as usize,
            );
            let y = rng.below_u32((sh - h + 1) as u32) as usize;
            let crop = plane(w, h, (0..w * h).map(|i| bands[y + i / w]).collect());
            let r = all(&screen, w, h);
            assert_eq!(
                copies(&screen, &crop, r),
                brute(&screen, &crop, r),
                "case {case}"
            );
        }
    }

    #[test]
    fn a_changed_pixel_is_no_copy() {
        let screen = plane(8, 4, (0..32).map(|i| (i * 7 % 256) as u8).collect());
        let mut crop = cut(&screen, 2, 1, 4, 2);
        assert_eq!(copies(&screen, &crop, all(&screen, 4, 2)), vec![(2, 1)]);
        crop.data[7] ^= 1;
        assert!(copies(&screen, &crop, all(&screen, 4, 2)).is_empty());
    }

    #[test]
    fn flat_crops_match_windows_of_their_grey_only() {
        // A block of 9 with a hole, on 0: a 2×2 of 9 fits only where the hole is not.
        #[rustfmt::skip]
        let screen = plane(5, 4, vec![
            0, 9, 9, 9, 0,
            0, 9, 0, 9, 0,
            0, 9, 9, 9, 9,
            0, 9, 9, 9, 9,
        ]);
        let nine = plane(2, 2, vec![9; 4]);
        let r = all(&screen, 2, 2);
        assert_eq!(copies(&screen, &nine, r), vec![(1, 2), (2, 2), (3, 2)]);
        let grey = plane(1, 1, vec![5]);
        assert!(copies(&screen, &grey, all(&screen, 1, 1)).is_empty());
    }
}

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
//!
//! A crop whose every row is one grey (blank, or stripes) has no run worth scanning for,
//! and over a blank area it has a copy at nearly every place; `stripes` finds those as
//! ranges of places from each screen row's runs of the crop's greys.

use std::ops::RangeInclusive;

use memchr::memmem::FinderBuilder;

use crate::runs::{leading, trailing};

use super::gray::Plane;
use super::locate::Region;
use super::rarity::Rarity;

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
    let rows = crop.data.chunks_exact(crop.width);
    for (row, (line, above)) in rows
        .clone()
        .zip(std::iter::once(&[][..]).chain(rows))
        .enumerate()
    {
        // Only a busier run replaces the best: a row like the one above has the same runs,
        // and a row with no more changes in all than the best run has none busier.
        if best.0 == len - 1 {
            break;
        }
        let total = line[1..]
            .iter()
            .zip(line)
            .fold(0u32, |n, (a, b)| n + u32::from(a != b));
        if line == above || total as usize <= best.0 {
            continue;
        }
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
    // The substring search looks first for the needle's two greys rarest on the screen,
    // starting from its first two; when those are one grey (a dark run before an edge), every
    // pixel of every dark run on the screen is a candidate. Starting at the first change makes
    // them differ, and with ranks distinct per grey (`Rarity`) they stay different.
    let mut a = best.1;
    let line = crop.row(0, a.row, crop.width);
    if let Some(skip) = (a.col..a.col + a.len - 1).position(|i| line[i] != line[i + 1]) {
        a.col += skip;
        a.len = (crop.width - a.col).min(ANCHOR);
    }
    a
}

/// Calls `copy(xs, y)` for the top-left corners in `region` (inclusive ranges of corners)
/// where `crop` appears pixel for pixel on `screen`, in raster order: `xs` is a run of
/// neighbouring corners on row `y`. A blank crop has a copy at nearly every place of a
/// blank area, hundreds of thousands on a HiDPI screen, and one call per run keeps their
/// cost out of the caller.
pub(super) fn exact_copies(
    screen: &Plane,
    rarity: &Rarity,
    crop: &Plane,
    region: Region,
    mut copy: impl FnMut(RangeInclusive<usize>, usize),
) {
    let (w, h) = (crop.width, crop.height);
    if w == 0 || h == 0 || region.x1 + w > screen.width || region.y1 + h > screen.height {
        return;
    }
    let a = anchor(crop);
    let needle = crop.row(a.col, a.row, a.len);
    if needle.iter().all(|&v| v == needle[0]) {
        // The run with the most changes has none: every row of the crop is one grey.
        return stripes(screen, crop, region, copy);
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
    // The needle's two greys rarest on this screen go first (see `rarity`).
    let finder = FinderBuilder::new().build_forward_with_ranker(rarity, needle);
    for y in region.y0..=region.y1 {
        // The anchor of a copy at (x, y) sits at (x + col, y + row).
        let hay = screen.row(region.x0 + a.col, y + a.row, region.x1 - region.x0 + a.len);
        let mut from = 0;
        while let Some(i) = finder.find(&hay[from..]) {
            let x = region.x0 + from + i;
            if same(x, y) {
                copy(x..=x, y);
            }
            // Overlapping occurrences count (a run inside a longer run of the same grey).
            from += i + 1;
        }
    }
}

/// The copies of a crop whose every row is one grey: a blank crop, or stripes (the anchor,
/// the run with the most changes, has none). A place is a copy when, for each crop row, the
/// screen row under it has a run of that row's grey at least `w` long that covers it. Each
/// screen row's runs of each grey the crop uses are found once ([`RowRuns`]) as ranges of
/// corners, and a `y`'s copies are the intersection of its rows' ranges. The crop's rows
/// are taken band by band (rows of one grey), the thinnest bands (lines) first, so that most
/// `y`s are dropped after a band or two; a tall band's intersection comes from [`Sliding`].
/// A blank crop has copies all over a blank area, and this costs a few ranges per row
/// instead of a check per place.
fn stripes(
    screen: &Plane,
    crop: &Plane,
    region: Region,
    mut copy: impl FnMut(RangeInclusive<usize>, usize),
) {
    let w = crop.width;
    let mut bands: Vec<(usize, usize, u8)> = Vec::new();
    for (r, row) in crop.data.chunks_exact(w).enumerate() {
        match bands.last_mut() {
            Some(band) if band.2 == row[0] => band.1 = r,
            _ => bands.push((r, r, row[0])),
        }
    }
    bands.sort_by_key(|&(r0, r1, _)| r1 - r0);
    let mut runs = RowRuns::new(screen, crop, region);
    let mut tall: Vec<Option<Sliding>> = bands
        .iter()
        .map(|&(r0, r1, g)| {
            (r1 - r0 + 1 >= SLIDE).then(|| Sliding::new(g, r1 - r0 + 1, region.y0 + r0))
        })
        .collect();
    let (mut now, mut next) = (Vec::new(), Vec::new());
    for y in region.y0..=region.y1 {
        now.clear();
        let mut first = true;
        for (b, &(r0, r1, g)) in bands.iter().enumerate() {
            let mut with = |ranges: &[(usize, usize)]| {
                if std::mem::take(&mut first) {
                    now.extend_from_slice(ranges);
                } else {
                    intersect(&now, ranges, &mut next);
                    std::mem::swap(&mut now, &mut next);
                }
            };
            match &mut tall[b] {
                Some(sliding) => with(sliding.window(&mut runs, y + r0)),
                None => (r0..=r1).for_each(|r| {
                    let slot = runs.slot(y + r, g).expect("a row of the region");
                    with(runs.ranges(slot));
                }),
            }
            if now.is_empty() {
                break;
            }
        }
        for &(a, b) in &now {
            copy(region.x0 + a..=region.x0 + b, y);
        }
    }
}

/// Bands at least this tall are intersected by [`Sliding`]; shorter ones row by row.
const SLIDE: usize = 4;

/// The intersection of the runs of grey `g` on `len` screen rows in a row, for windows that
/// slide down one row at a time, at a cost per row that does not grow with `len` (the van
/// Herk / Gil-Werman scheme of sliding minimum filters). The rows are cut into blocks of
/// `len` from the first window's top: a window starts inside one block and ends inside the
/// next, so it is the intersection of its start's suffix of the one (the rows from it to the
/// block's end) and its end's prefix of the other, each built once per block.
struct Sliding {
    g: u8,
    len: usize,
    top: usize,
    /// Per row from `top`: where its suffix and prefix intersections are in `lists`.
    suffix: Vec<Option<(u32, u32)>>,
    prefix: Vec<Option<(u32, u32)>>,
    lists: Vec<(usize, usize)>,
    out: Vec<(usize, usize)>,
}

impl Sliding {
    fn new(g: u8, len: usize, top: usize) -> Sliding {
        Sliding {
            g,
            len,
            top,
            suffix: Vec::new(),
            prefix: Vec::new(),
            lists: Vec::new(),
            out: Vec::new(),
        }
    }

    /// The intersection over screen rows `first..first + len`.
    fn window(&mut self, runs: &mut RowRuns, first: usize) -> &[(usize, usize)] {
        let t = first - self.top;
        let k = t / self.len;
        self.fill(runs, k, true);
        let start = self.suffix[t].expect("filled");
        if t.is_multiple_of(self.len) {
            return &self.lists[start.0 as usize..start.1 as usize];
        }
        self.fill(runs, k + 1, false);
        let end = self.prefix[t + self.len - 1].expect("filled");
        let list = |(a, b): (u32, u32)| &self.lists[a as usize..b as usize];
        intersect(list(start), list(end), &mut self.out);
        &self.out
    }

    /// Builds block `k`'s suffixes (`true`) or prefixes, once.
    fn fill(&mut self, runs: &mut RowRuns, k: usize, suffix: bool) {
        let rows = k * self.len..(k + 1) * self.len;
        let table = self.table(suffix);
        if table.len() < rows.end {
            table.resize(rows.end, None);
        }
        if table[rows.start].is_some() {
            return;
        }
        let mut acc: Option<(u32, u32)> = None;
        let mut last = None;
        for i in 0..self.len {
            let t = if suffix {
                rows.end - 1 - i
            } else {
                rows.start + i
            };
            // The last block may run past the last row a window covers.
            let Some(slot) = runs.slot(self.top + t, self.g) else {
                continue;
            };
            let from = self.lists.len();
            let entry = match acc {
                // A row with the same runs as the last one changes nothing.
                Some(a) if last == Some(slot) => a,
                None => {
                    self.lists.extend_from_slice(runs.ranges(slot));
                    (from as u32, self.lists.len() as u32)
                }
                Some((a, b)) => {
                    let row = runs.ranges(slot);
                    intersect(&self.lists[a as usize..b as usize], row, &mut self.out);
                    self.lists.extend_from_slice(&self.out);
                    (from as u32, self.lists.len() as u32)
                }
            };
            last = Some(slot);
            self.table(suffix)[t] = Some(entry);
            acc = Some(entry);
        }
    }

    fn table(&mut self, suffix: bool) -> &mut Vec<Option<(u32, u32)>> {
        if suffix {
            &mut self.suffix
        } else {
            &mut self.prefix
        }
    }
}

/// The runs of one grey at least `w` long on a screen row, within a region's columns, as
/// inclusive ranges of corners (relative to the region's left edge), found on first use.
struct RowRuns<'a> {
    screen: &'a Plane,
    region: Region,
    w: usize,
    /// Each grey the crop uses, numbered; `NONE` for the rest.
    grey_index: [u8; 256],
    greys: usize,
    /// Per (row − `region.y0`, grey number), once found: where its ranges are in `ranges`.
    found: Vec<Option<(u32, u32)>>,
    ranges: Vec<(usize, usize)>,
    /// Per row − `region.y0`, once compared: whether its bytes are the row above's (each
    /// grey's slot asks the same question of it).
    same_above: Vec<Option<bool>>,
}

const NONE: u8 = u8::MAX;

impl<'a> RowRuns<'a> {
    fn new(screen: &'a Plane, crop: &Plane, region: Region) -> Self {
        let mut grey_index = [NONE; 256];
        let mut greys = 0;
        for row in crop.data.chunks_exact(crop.width) {
            if grey_index[usize::from(row[0])] == NONE {
                grey_index[usize::from(row[0])] = greys as u8;
                greys += 1;
            }
        }
        let rows = region.y1 - region.y0 + crop.height;
        RowRuns {
            screen,
            region,
            w: crop.width,
            grey_index,
            greys,
            found: vec![None; rows * greys],
            ranges: Vec::new(),
            same_above: vec![None; rows],
        }
    }

    /// Where the runs of grey `g` on screen row `y` are, or `None` past the last row a
    /// place in the region covers.
    fn slot(&mut self, y: usize, g: u8) -> Option<(u32, u32)> {
        let gi = usize::from(self.grey_index[usize::from(g)]);
        let key = (y - self.region.y0) * self.greys + gi;
        if let Some(s) = *self.found.get(key)? {
            return Some(s);
        }
        let span = self.region.x1 - self.region.x0 + self.w;
        let line = self.screen.row(self.region.x0, y, span);
        // Rows with the same runs share a slot, which lets `Sliding` skip them. The rows of
        // a blank area are the same bytes, which is quicker to see than their runs.
        let above = key.checked_sub(self.greys).and_then(|k| self.found[k]);
        if let Some(a) = above {
            let r = y - self.region.y0;
            let screen = self.screen;
            let x0 = self.region.x0;
            let same =
                *self.same_above[r].get_or_insert_with(|| screen.row(x0, y - 1, span) == line);
            if same {
                self.found[key] = Some(a);
                return Some(a);
            }
        }
        let from = self.ranges.len();
        runs_of(line, g, self.w, &mut self.ranges);
        let mut slot = (from as u32, self.ranges.len() as u32);
        if let Some(a) = above.filter(|&a| self.ranges(a) == &self.ranges[from..]) {
            self.ranges.truncate(from);
            slot = a;
        }
        self.found[key] = Some(slot);
        Some(slot)
    }

    fn ranges(&self, (from, to): (u32, u32)) -> &[(usize, usize)] {
        &self.ranges[from as usize..to as usize]
    }
}

/// Pushes, for each run of `g` in `line` at least `w` long, the range of places a `w`-wide
/// window inside it can start. A run that long covers every `w`-th byte, so the scan looks
/// at one byte in `w` and only walks the runs it lands in: text and other busy rows cost
/// `len / w` lookups, a blank row one pass over its bytes in 16-byte blocks.
fn runs_of(line: &[u8], g: u8, w: usize, out: &mut Vec<(usize, usize)>) {
    // For a narrow crop, a row without the grey (a line's grey, on most rows) is ruled out
    // by one SIMD scan, cheaper than a probe every few pixels; with it, the probes start at
    // its first pixel. A wide crop's probes are few enough already.
    let mut c = 0;
    if w < MEMCHR_BELOW {
        match memchr::memchr(g, line) {
            Some(first) => c = first,
            None => return,
        }
    }
    while c + w <= line.len() {
        let probe = c + w - 1;
        if line[probe] != g {
            c = probe + 1;
            continue;
        }
        // The run holding `probe`, from no further back than `c`.
        let start = probe - trailing::<_, 16>(&line[c..probe], g);
        let end = probe + leading::<_, 16>(&line[probe..], g);
        if end - start >= w {
            out.push((start, end - w));
        }
        c = end + 1;
    }
}

/// Crops narrower than this look for their grey in a row with `memchr` before probing it.
/// Stripes crops on the stress set's 480×360 desktop, fastest of 20,000 runs: 8–12 wide,
/// 7–12% less (with each row compared with the one above once, not once per grey). A
/// 40-wide one took 6–9% more with `memchr` at every width; kept to narrow crops, it is
/// 5–6% faster (from the single comparison alone).
const MEMCHR_BELOW: usize = 16;

/// The intersection of two sorted lists of disjoint inclusive ranges, into `out`.
fn intersect(a: &[(usize, usize)], b: &[(usize, usize)], out: &mut Vec<(usize, usize)>) {
    out.clear();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (lo, hi) = (a[i].0.max(b[j].0), a[i].1.min(b[j].1));
        if lo <= hi {
            out.push((lo, hi));
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
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

    /// `copies` agrees with brute force on the whole screen and in a window inside it.
    fn agrees_with_brute(screen: &Plane, crop: &Plane, case: &str) {
        let r = all(screen, crop.width, crop.height);
        let window = Region {
            x0: r.x1 / 4,
            y0: r.y1 / 3,
            x1: r.x1 - r.x1 / 5,
            y1: r.y1 - r.y1 / 7,
        };
        for region in [r, window] {
            assert_eq!(
                copies(screen, crop, region),
                brute(screen, crop, region),
                "{case} in {region:?}"
            );
        }
    }

    fn copies(screen: &Plane, crop: &Plane, region: Region) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let rarity = Rarity::of(screen);
        exact_copies(screen, &rarity, crop, region, |xs, y| {
            out.extend(xs.map(|x| (x, y)))
        });
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
        // A run that starts inside a flat stretch starts at its first change instead.
        let narrow = plane(3, 1, vec![1, 1, 2]);
        assert_eq!(
            anchor(&narrow),
            Anchor {
                row: 0,
                col: 1,
                len: 2
            }
        );
        let edge = plane(30, 1, [vec![101; 19], vec![245; 11]].concat());
        assert_eq!(
            anchor(&edge),
            Anchor {
                row: 0,
                col: 18,
                len: 12
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
            agrees_with_brute(&screen, &crop, &format!("case {case}"));
            assert!(copies(&screen, &crop, all(&screen, w, h)).contains(&(x, y)));
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
            agrees_with_brute(&screen, &crop, &format!("case {case}"));
        }
    }

    #[test]
    fn tall_bands_agree_with_brute_force() {
        // Blank areas with boxes of other greys across them: tall blank crops and crops of a
        // few tall bands (over `SLIDE` rows, so `Sliding` takes them), with copies that the
        // boxes cut off part way down.
        let mut rng = Rng::new(17);
        for case in 0..60 {
            let (sw, sh) = (
                30 + rng.below_u32(50) as usize,
                20 + rng.below_u32(40) as usize,
            );
            let mut data = vec![200u8; sw * sh];
            for _ in 0..rng.below_u32(8) {
                let (bx, by) = (
                    rng.below_u32(sw as u32) as usize,
                    rng.below_u32(sh as u32) as usize,
                );
                let (bw, bh) = (
                    1 + rng.below_u32(12) as usize,
                    1 + rng.below_u32(12) as usize,
                );
                let grey = [0u8, 90][rng.below_u32(2) as usize];
                for y in by..(by + bh).min(sh) {
                    data[y * sw + bx..y * sw + (bx + bw).min(sw)].fill(grey);
                }
            }
            let screen = plane(sw, sh, data);
            let w = 1 + rng.below_u32(12) as usize;
            let mut greys = Vec::new();
            while greys.len() < SLIDE + rng.below_u32(14) as usize {
                let grey = [200u8, 200, 90][rng.below_u32(3) as usize];
                let tall = SLIDE + rng.below_u32(6) as usize;
                greys.extend(std::iter::repeat_n(grey, tall));
            }
            greys.truncate(sh - 1);
            let h = greys.len();
            let crop = plane(w, h, greys.iter().flat_map(|&g| vec![g; w]).collect());
            agrees_with_brute(&screen, &crop, &format!("case {case} ({w}x{h})"));
        }
    }

    #[test]
    fn runs_are_every_long_enough_stretch_of_the_grey() {
        let mut rng = Rng::new(21);
        for case in 0..400 {
            let len = 1 + rng.below_u32(90) as usize;
            // Long runs as well as short ones: a grey kept with high probability.
            let keep = rng.below_u32(10);
            let mut line = vec![0u8; len];
            for i in 1..len {
                line[i] = if rng.below_u32(10) < keep {
                    line[i - 1]
                } else {
                    rng.below_u32(2) as u8
                };
            }
            let w = 1 + rng.below_u32(40) as usize;
            let mut got = Vec::new();
            runs_of(&line, 1, w, &mut got);
            let starts: Vec<usize> = (0..len.saturating_sub(w - 1))
                .filter(|&x| line[x..x + w].iter().all(|&v| v == 1))
                .collect();
            let flat: Vec<usize> = got.iter().flat_map(|&(a, b)| a..=b).collect();
            assert_eq!(flat, starts, "case {case}: w {w} in {line:?}");
            assert!(
                got.windows(2).all(|p| p[0].1 + 1 < p[1].0),
                "disjoint, apart: {got:?}"
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

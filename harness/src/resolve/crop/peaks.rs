//! From score maps to peaks: local maxima of a map (`local_maxima`) and the choice among
//! distinct peaks (`choose`), where near-ties go to the peak nearest the expected place.

use std::collections::HashMap;

use crate::resolve::hash::FastState;

/// A position with its exact full-resolution score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Peak {
    pub(crate) x: usize,
    pub(crate) y: usize,
    pub(crate) score: f64,
}

/// Local maxima of an `nx`×`ny` map scoring at least `cut`, best first (ties in raster order),
/// at most `cap` of them. Every cell of a plateau counts: on a coarse map a plateau can hide
/// full-resolution places that differ, so one representative is not enough (the caller
/// merges candidates that lead to the same place).
pub(crate) fn local_maxima(map: &[f64], nx: usize, ny: usize, cut: f64, cap: usize) -> Vec<Peak> {
    let mut out = Vec::new();
    for y in 0..ny {
        for x in 0..nx {
            let v = map[y * nx + x];
            if v < cut || v.is_nan() {
                continue;
            }
            let mut is_max = true;
            'n: for dy in -1isize..=1 {
                for dx in -1isize..=1 {
                    let (xx, yy) = (x as isize + dx, y as isize + dy);
                    if (dx, dy) == (0, 0)
                        || xx < 0
                        || yy < 0
                        || xx >= nx as isize
                        || yy >= ny as isize
                    {
                        continue;
                    }
                    if map[yy as usize * nx + xx as usize] > v {
                        is_max = false;
                        break 'n;
                    }
                }
            }
            if is_max {
                out.push(Peak { x, y, score: v });
            }
        }
    }
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then((a.y, a.x).cmp(&(b.y, b.x)))
    });
    out.truncate(cap);
    out
}

/// The chosen peak and the best score of a peak distinct from it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Choice {
    pub(crate) best: Peak,
    pub(crate) runner_up: Option<f64>,
}

/// Picks among `peaks` (full-resolution positions of a `w`×`h` crop).
///
/// Peaks whose crop rectangles are offset by at most half the crop in both directions are one
/// peak (the shoulders of a match, or two coarse candidates that refined to neighbours); the
/// better of them stands for it. Among distinct peaks within `hair` of the best score, the one
/// nearest `expected` wins (ties by position, top to bottom then left to right), because
/// identical copies of a control score the same and only the expected place tells them apart.
pub(crate) fn choose(
    mut peaks: Vec<Peak>,
    w: usize,
    h: usize,
    expected: Option<(usize, usize)>,
    hair: f64,
) -> Option<Choice> {
    peaks.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then((a.y, a.x).cmp(&(b.y, b.x)))
    });
    let mut distinct: Vec<Peak> = Vec::new();
    for p in peaks {
        let same = |k: &Peak| 2 * p.x.abs_diff(k.x) <= w && 2 * p.y.abs_diff(k.y) <= h;
        if !distinct.iter().any(same) {
            distinct.push(p);
        }
    }
    let top = distinct.first()?.score;
    let distance = |p: &Peak| match expected {
        Some((ex, ey)) => {
            let (dx, dy) = (p.x.abs_diff(ex) as u128, p.y.abs_diff(ey) as u128);
            dx * dx + dy * dy
        }
        None => 0,
    };
    let winner = distinct
        .iter()
        .enumerate()
        .filter(|(_, p)| p.score >= top - hair)
        .min_by_key(|(i, p)| (distance(p), p.y, p.x, *i))
        .map(|(i, _)| i)?;
    let runner_up = distinct
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != winner)
        .map(|(_, p)| p.score)
        .max_by(f64::total_cmp);
    Some(Choice {
        best: distinct[winner],
        runner_up,
    })
}

/// The choice among places that all score the same (exact copies): the one nearest the
/// expected place, ties top-most then left-most; another one more than half a crop away from
/// it makes the match ambiguous. Places are added one by one, in constant memory: a flat or
/// blank crop can have a copy at nearly every place of a screen.
pub(crate) struct Nearest {
    expected: Option<(usize, usize)>,
    best: Option<(u128, usize, usize)>,
    /// Extremes of the places added, which tell whether any is far from the best.
    min: (usize, usize),
    max: (usize, usize),
}

impl Nearest {
    pub(crate) fn new(expected: Option<(usize, usize)>) -> Nearest {
        Nearest {
            expected,
            best: None,
            min: (usize::MAX, usize::MAX),
            max: (0, 0),
        }
    }

    /// Adds the places `xs` on row `y`: the same as adding each, in one step.
    pub(crate) fn add_run(&mut self, xs: std::ops::RangeInclusive<usize>, y: usize) {
        let (first, last) = (*xs.start(), *xs.end());
        // Distance grows away from the expected column, so the run's nearest is the clamp;
        // with no expected place every distance is 0 and the leftmost wins.
        let x = self.expected.map_or(first, |(ex, _)| ex.clamp(first, last));
        self.add(x, y);
        self.add(last, y);
        self.add(first, y);
    }

    pub(crate) fn add(&mut self, x: usize, y: usize) {
        let d = self.expected.map_or(0, |(ex, ey)| {
            let (dx, dy) = (x.abs_diff(ex) as u128, y.abs_diff(ey) as u128);
            dx * dx + dy * dy
        });
        let key = (d, y, x);
        if self.best.is_none_or(|b| key < b) {
            self.best = Some(key);
        }
        self.min = (self.min.0.min(x), self.min.1.min(y));
        self.max = (self.max.0.max(x), self.max.1.max(y));
    }

    /// The nearest place, scored 1, with a runner-up of 1 when another is distinct from it
    /// (for a `w`×`h` crop); `None` when nothing was added.
    pub(crate) fn choice(&self, w: usize, h: usize) -> Option<Choice> {
        let (_, y, x) = self.best?;
        let far_x = x.abs_diff(self.min.0).max(x.abs_diff(self.max.0));
        let far_y = y.abs_diff(self.min.1).max(y.abs_diff(self.max.1));
        let other = 2 * far_x > w || 2 * far_y > h;
        Some(Choice {
            best: Peak { x, y, score: 1.0 },
            runner_up: other.then_some(1.0),
        })
    }
}

/// Places already taken, bucketed by `r + 1` pixels so that asking for one within `r` is nine
/// probes however many there are: an edge-like crop can leave thousands of candidates, and
/// comparing each with every earlier one was quadratic.
pub(crate) struct Taken {
    r: usize,
    cells: HashMap<(usize, usize), Vec<(usize, usize)>, FastState>,
}

impl Taken {
    pub(crate) fn new(r: usize) -> Taken {
        Taken {
            r,
            cells: HashMap::default(),
        }
    }

    /// Whether a taken place is within `r` of `(x, y)` on both axes.
    pub(crate) fn near(&self, x: usize, y: usize) -> bool {
        let (cx, cy) = (x / (self.r + 1), y / (self.r + 1));
        (cy.saturating_sub(1)..=cy + 1).any(|yy| {
            (cx.saturating_sub(1)..=cx + 1).any(|xx| {
                self.cells.get(&(xx, yy)).is_some_and(|v| {
                    v.iter()
                        .any(|&(px, py)| px.abs_diff(x) <= self.r && py.abs_diff(y) <= self.r)
                })
            })
        })
    }

    pub(crate) fn add(&mut self, x: usize, y: usize) {
        let cell = (x / (self.r + 1), y / (self.r + 1));
        self.cells.entry(cell).or_default().push((x, y));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peak(x: usize, y: usize, score: f64) -> Peak {
        Peak { x, y, score }
    }

    #[test]
    fn local_maxima_whole_plateaus_and_cut() {
        #[rustfmt::skip]
        let map = [
            0.1, 0.9, 0.9, 0.1,
            0.1, 0.2, 0.1, 0.1,
            0.5, 0.1, 0.1, 0.95,
        ];
        let got = local_maxima(&map, 4, 3, 0.3, 10);
        let want = vec![
            peak(3, 2, 0.95),
            peak(1, 0, 0.9),
            peak(2, 0, 0.9),
            peak(0, 2, 0.5),
        ];
        assert_eq!(got, want);
        assert_eq!(local_maxima(&map, 4, 3, 0.3, 1), vec![peak(3, 2, 0.95)]);
    }

    #[test]
    fn near_tie_goes_to_the_expected_place_and_reports_runner_up() {
        let peaks = vec![peak(10, 10, 0.999), peak(10, 50, 0.998), peak(10, 90, 0.95)];
        let c = choose(peaks.clone(), 20, 20, Some((12, 48)), 0.002).unwrap();
        assert_eq!(c.best, peak(10, 50, 0.998));
        assert_eq!(c.runner_up, Some(0.999));
        // Without an expected place the best score wins.
        let c = choose(peaks.clone(), 20, 20, None, 0.002).unwrap();
        assert_eq!((c.best, c.runner_up), (peak(10, 10, 0.999), Some(0.998)));
        // Outside the hair the better score wins even far from the expected place.
        let c = choose(peaks, 20, 20, Some((10, 90)), 0.0005).unwrap();
        assert_eq!(c.best, peak(10, 10, 0.999));
    }

    #[test]
    fn taken_places_are_found_within_r_on_both_axes() {
        let mut t = Taken::new(2);
        t.add(10, 10);
        t.add(0, 0);
        assert!(t.near(12, 8) && t.near(8, 12) && t.near(2, 2));
        assert!(!t.near(13, 10) && !t.near(10, 7) && !t.near(5, 5));
        // Brute force agrees on a grid of queries.
        let placed = [(3, 4), (17, 9), (9, 25), (30, 30)];
        let mut t = Taken::new(3);
        placed.iter().for_each(|&(x, y)| t.add(x, y));
        for y in 0..40 {
            for x in 0..40 {
                let brute = placed
                    .iter()
                    .any(|&(px, py)| px.abs_diff(x) <= 3 && py.abs_diff(y) <= 3);
                assert_eq!(t.near(x, y), brute, "({x}, {y})");
            }
        }
    }

    #[test]
    fn nearest_of_equal_places_and_whether_another_is_distinct() {
        let mut n = Nearest::new(Some((50, 50)));
        assert_eq!(n.choice(10, 10), None);
        for (x, y) in [(10, 10), (48, 53), (52, 47), (54, 50)] {
            n.add(x, y);
        }
        // (48, 53) and (52, 47) are as near: the top-most wins.
        let c = n.choice(10, 10).unwrap();
        assert_eq!((c.best, c.runner_up), (peak(52, 47, 1.0), Some(1.0)));
        // Shoulders of one place only: nothing distinct.
        let mut n = Nearest::new(None);
        n.add(7, 3);
        n.add(6, 4);
        let c = n.choice(4, 4).unwrap();
        assert_eq!((c.best, c.runner_up), (peak(7, 3, 1.0), None));
    }

    #[test]
    fn a_run_adds_like_each_of_its_places() {
        let mut rng = super::super::synth::Rng::new(5);
        for case in 0..300 {
            let expected = (case % 3 != 0).then(|| (rng.below_u32(40) as usize, 7));
            let (mut one, mut each) = (Nearest::new(expected), Nearest::new(expected));
            for _ in 0..1 + rng.below_u32(4) {
                let (first, y) = (rng.below_u32(40) as usize, rng.below_u32(15) as usize);
                let last = first + rng.below_u32(12) as usize;
                one.add_run(first..=last, y);
                (first..=last).for_each(|x| each.add(x, y));
            }
            let w = 1 + rng.below_u32(20) as usize;
            assert_eq!(one.choice(w, 3), each.choice(w, 3), "case {case}");
        }
    }

    #[test]
    fn shoulders_of_one_match_are_not_distinct() {
        let peaks = vec![peak(10, 10, 1.0), peak(11, 10, 0.97), peak(10, 30, 0.5)];
        let c = choose(peaks, 20, 20, None, 0.002).unwrap();
        assert_eq!(c.runner_up, Some(0.5));
        assert_eq!(choose(Vec::new(), 4, 4, None, 0.002), None);
    }
}

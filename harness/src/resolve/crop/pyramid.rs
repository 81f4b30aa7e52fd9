//! Downscaling for the coarse pass of the search (`downscale`).
//!
//! A coarse pixel is the mean of an `s`×`s` block, and the block image is then smoothed with a
//! 2×2 box at stride 1, so each coarse pixel covers `2s`×`2s` screen pixels. The smoothing is
//! what makes the coarse pass tolerant of where a match falls inside a block: a crop whose
//! true position is not a multiple of `s` lands up to half a coarse pixel off the grid, and an
//! unsmoothed block image of text decorrelates badly under such a shift.

use super::gray::Plane;

/// Downscales the `w`×`h` area of `src` at (`x0`, `y0`) by `s`. Coarse pixel `(i, j)` covers
/// source pixels `[x0 + s·i, x0 + s·i + 2s)` × `[y0 + s·j, y0 + s·j + 2s)`. The result is
/// `⌊w/s⌋ − 1` by `⌊h/s⌋ − 1` (empty when the area is smaller than two blocks).
pub(crate) fn downscale(src: &Plane, x0: usize, y0: usize, w: usize, h: usize, s: usize) -> Plane {
    let (bw, bh) = (w / s, h / s);
    let half = (s * s / 2) as u32;
    let area = (s * s) as u32;
    let mut blocks = vec![0u8; bw * bh];
    let mut colsum = vec![0u32; bw * s];
    for by in 0..bh {
        colsum.fill(0);
        for dy in 0..s {
            let row = src.row(x0, y0 + by * s + dy, bw * s);
            for (acc, &v) in colsum.iter_mut().zip(row) {
                *acc += u32::from(v);
            }
        }
        let out = &mut blocks[by * bw..(by + 1) * bw];
        for (o, group) in out.iter_mut().zip(colsum.chunks_exact(s)) {
            *o = ((group.iter().sum::<u32>() + half) / area) as u8;
        }
    }
    if bw < 2 || bh < 2 {
        return Plane {
            width: 0,
            height: 0,
            data: Vec::new(),
        };
    }
    let (cw, ch) = (bw - 1, bh - 1);
    let mut data = vec![0u8; cw * ch];
    for y in 0..ch {
        let top = &blocks[y * bw..(y + 1) * bw];
        let bottom = &blocks[(y + 1) * bw..(y + 2) * bw];
        let out = &mut data[y * cw..(y + 1) * cw];
        for (x, o) in out.iter_mut().enumerate() {
            let sum = u16::from(top[x])
                + u16::from(top[x + 1])
                + u16::from(bottom[x])
                + u16::from(bottom[x + 1]);
            *o = ((sum + 2) / 4) as u8;
        }
    }
    Plane {
        width: cw,
        height: ch,
        data,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_means_then_two_by_two_smoothing() {
        // 6×4 image, s = 2: blocks are 3×2, smoothed to 2×1.
        #[rustfmt::skip]
        let data = vec![
            0, 0, 8, 8, 16, 16,
            0, 0, 8, 8, 16, 16,
            4, 4, 12, 12, 20, 20,
            4, 4, 12, 12, 20, 21,
        ];
        let p = Plane {
            width: 6,
            height: 4,
            data,
        };
        let d = downscale(&p, 0, 0, 6, 4, 2);
        assert_eq!((d.width, d.height), (2, 1));
        // Blocks: [0, 8, 16] over [4, 12, 20] (the 21 rounds away).
        assert_eq!(d.data, vec![6, 14]);
    }

    #[test]
    fn offset_area_and_too_small() {
        let p = Plane {
            width: 5,
            height: 5,
            data: (0..25).collect(),
        };
        let d = downscale(&p, 1, 1, 4, 4, 2);
        assert_eq!((d.width, d.height), (1, 1));
        // Blocks (means of 2×2, rounded half up): 9, 11, 19, 21 → mean 15.
        assert_eq!(d.data, vec![15]);
        assert_eq!(downscale(&p, 0, 0, 3, 5, 2).width, 0);
    }
}

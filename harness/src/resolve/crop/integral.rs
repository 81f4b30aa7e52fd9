//! Summed-area tables (`Integral`) of pixel values and of their squares, for the mean and
//! variance of every search window in constant time.

use super::gray::Plane;

/// Sums and sums of squares of the `w`×`h` area of a plane at an origin, with a zero first
/// row and column so that any window sum is four lookups.
pub(crate) struct Integral {
    stride: usize,
    sum: Vec<u64>,
    sq: Vec<u64>,
}

impl Integral {
    /// Tables for the `w`×`h` area of `src` whose top-left corner is (`x0`, `y0`).
    pub(crate) fn new(src: &Plane, x0: usize, y0: usize, w: usize, h: usize) -> Integral {
        let stride = w + 1;
        let mut sum = vec![0u64; stride * (h + 1)];
        let mut sq = vec![0u64; stride * (h + 1)];
        for y in 0..h {
            let row = src.row(x0, y0 + y, w);
            let (mut rs, mut rq) = (0u64, 0u64);
            let (prev, cur) = (y * stride, (y + 1) * stride);
            for (x, &v) in row.iter().enumerate() {
                let v = u64::from(v);
                rs += v;
                rq += v * v;
                sum[cur + x + 1] = sum[prev + x + 1] + rs;
                sq[cur + x + 1] = sq[prev + x + 1] + rq;
            }
        }
        Integral { stride, sum, sq }
    }

    /// Sum and sum of squares of the `w`×`h` window at (`x`, `y`), relative to the origin.
    #[inline]
    pub(crate) fn window(&self, x: usize, y: usize, w: usize, h: usize) -> (u64, u64) {
        let (a, b) = (y * self.stride + x, y * self.stride + x + w);
        let (c, d) = ((y + h) * self.stride + x, (y + h) * self.stride + x + w);
        let s = self.sum[d] + self.sum[a] - self.sum[b] - self.sum[c];
        let q = self.sq[d] + self.sq[a] - self.sq[b] - self.sq[c];
        (s, q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_match_direct_sums() {
        let data: Vec<u8> = (0..7 * 5).map(|i| (i * 37 % 251) as u8).collect();
        let p = Plane {
            width: 7,
            height: 5,
            data,
        };
        let t = Integral::new(&p, 1, 1, 5, 4);
        for (x, y, w, h) in [(0, 0, 5, 4), (1, 2, 3, 2), (4, 3, 1, 1), (2, 0, 2, 4)] {
            let (mut s, mut q) = (0, 0);
            for yy in y..y + h {
                for &v in p.row(1 + x, 1 + yy, w) {
                    s += u64::from(v);
                    q += u64::from(v) * u64::from(v);
                }
            }
            assert_eq!(t.window(x, y, w, h), (s, q), "window {x},{y} {w}x{h}");
        }
    }
}

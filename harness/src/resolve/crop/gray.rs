//! Grayscale planes: [`GrayScreen`] (a screen prepared once for many crop queries) and the
//! crate-internal [`Plane`] every search stage works on.

use std::sync::OnceLock;

use image::{GrayImage, RgbaImage};

use super::pyramid;
use super::rarity::Rarity;

/// An 8-bit grayscale image, row-major and tightly packed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plane {
    pub(crate) width: usize,
    pub(crate) height: usize,
    pub(crate) data: Vec<u8>,
}

impl Plane {
    /// The `width` pixels of row `y` starting at column `x`.
    #[inline]
    pub(crate) fn row(&self, x: usize, y: usize, width: usize) -> &[u8] {
        let start = y * self.width + x;
        &self.data[start..start + width]
    }

    /// Luma of an RGBA image, ignoring alpha (screenshots are opaque).
    pub(crate) fn from_rgba(img: &RgbaImage) -> Plane {
        // Whole pixels as words, the channels taken apart with masks and shifts: the
        // compiler vectorises that without a byte shuffle (which SSE2 lacks), and blocks of
        // 16 pixels let it fill whole registers.
        const B: usize = 16;
        let px = img.as_raw().as_chunks::<4>().0;
        let mut data = vec![0u8; px.len()];
        let gray = |p: &[u8; 4]| {
            let v = u32::from_le_bytes(*p);
            luma(v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff)
        };
        let (blocks, rest) = px.as_chunks::<B>();
        let (out_blocks, out_rest) = data.as_chunks_mut::<B>();
        for (o, b) in out_blocks.iter_mut().zip(blocks) {
            *o = std::array::from_fn(|k| gray(&b[k]));
        }
        for (o, p) in out_rest.iter_mut().zip(rest) {
            *o = gray(p);
        }
        Plane {
            width: img.width() as usize,
            height: img.height() as usize,
            data,
        }
    }
}

/// BT.601 luma of channels `0..=255` with OpenCV's fixed-point coefficients and rounding
/// (`cvtColor(RGB2GRAY)`), so a grayscale image written out for OpenCV is the very image this
/// module searches.
#[inline]
fn luma(r: u32, g: u32, b: u32) -> u8 {
    ((r * 4899 + g * 9617 + b * 1868 + (1 << 13)) >> 14) as u8
}

/// A screen converted to grayscale once, with its downscaled copies built on first use and
/// kept, so that several full-screen searches on one frame share them.
#[derive(Debug)]
pub struct GrayScreen {
    pub(crate) plane: Plane,
    /// Downscaled copies by factor 2, 4 and 8 (see `pyramid::downscale`).
    coarse: [OnceLock<Plane>; 3],
    /// How common each grey is here, for the exact scan (see `rarity`).
    rarity: OnceLock<Rarity>,
}

impl GrayScreen {
    /// Converts an RGBA screenshot (alpha is ignored).
    pub fn new(img: &RgbaImage) -> GrayScreen {
        GrayScreen::from_plane(Plane::from_rgba(img))
    }

    /// Wraps an image that is already grayscale.
    pub fn from_gray(img: GrayImage) -> GrayScreen {
        let (width, height) = (img.width() as usize, img.height() as usize);
        GrayScreen::from_plane(Plane {
            width,
            height,
            data: img.into_raw(),
        })
    }

    pub(crate) fn from_plane(plane: Plane) -> GrayScreen {
        GrayScreen {
            plane,
            coarse: [OnceLock::new(), OnceLock::new(), OnceLock::new()],
            rarity: OnceLock::new(),
        }
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.plane.width as u32
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.plane.height as u32
    }

    /// The grayscale pixels, row-major, one byte each (for writing the very image searched).
    pub fn luma(&self) -> &[u8] {
        &self.plane.data
    }

    /// How common each grey is on the screen, counted once.
    pub(crate) fn rarity(&self) -> &Rarity {
        self.rarity.get_or_init(|| Rarity::of(&self.plane))
    }

    /// The whole screen downscaled by `factor` (2, 4 or 8), built once.
    pub(crate) fn coarse(&self, factor: usize) -> &Plane {
        let slot = match factor {
            2 => &self.coarse[0],
            4 => &self.coarse[1],
            _ => &self.coarse[2],
        };
        slot.get_or_init(|| {
            pyramid::downscale(
                &self.plane,
                0,
                0,
                self.plane.width,
                self.plane.height,
                factor,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luma_matches_opencv_fixed_point() {
        // Values computed with OpenCV 4/5 `cvtColor(COLOR_RGB2GRAY)`.
        let cases: [([u8; 3], u8); 8] = [
            ([0, 0, 0], 0),
            ([255, 255, 255], 255),
            ([255, 0, 0], 76),
            ([0, 255, 0], 150),
            ([0, 0, 255], 29),
            ([10, 200, 30], 124),
            ([7, 99, 201], 83),
            ([250, 3, 128], 91),
        ];
        // Three rounds of 8 pixels: the 16-pixel blocks and the pixels left after them.
        let raw: Vec<u8> = (0..3)
            .flat_map(|k| cases.map(|([r, g, b], _)| [r, g, b, 40 * k]))
            .flatten()
            .collect();
        let p = Plane::from_rgba(&RgbaImage::from_raw(24, 1, raw).unwrap());
        let want: Vec<u8> = (0..3).flat_map(|_| cases.map(|(_, y)| y)).collect();
        assert_eq!(p.data, want);
    }

    #[test]
    fn plane_from_rgba_ignores_alpha() {
        let img = RgbaImage::from_raw(2, 1, vec![255, 0, 0, 0, 0, 255, 0, 255]).unwrap();
        let p = Plane::from_rgba(&img);
        assert_eq!(p.data, vec![76, 150]);
    }
}

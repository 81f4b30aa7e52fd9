//! Writing a PNG: an RGB image (a synthetic or recorded screen, a crop) with fixed settings.

use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ImageEncoder, RgbImage};

use crate::errors::Error;

/// Encodes an RGB image as PNG with fixed settings, so the bytes never vary.
pub(crate) fn encode_rgb(img: &RgbImage) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, CompressionType::Best, FilterType::Adaptive)
        .write_image(
            img.as_raw(),
            img.width(),
            img.height(),
            image::ExtendedColorType::Rgb8,
        )
        .map_err(|e| Error::Internal(format!("cannot encode PNG: {e}")))?;
    Ok(out)
}

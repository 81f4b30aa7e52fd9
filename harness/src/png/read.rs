//! Reading a PNG file within the limits: bounded bytes, the signature, and decoding — the
//! direct decoder ([`super::decode`]) for the common screenshot kinds, the image crate for the
//! rest, with the memory it will take counted from the header first.

use std::path::Path;

use image::codecs::png::PngDecoder;
use image::{ImageDecoder as _, RgbaImage};

use super::decode::{Parsed, Scanlines, parse};
use crate::errors::{InputError, Reason};
use crate::limits::{DECODE_BYTES, PNG_BYTES, PNG_SIDE};

/// Decodes a PNG within the size, dimension and memory limits.
pub(crate) fn decode_png(path: &Path) -> Result<RgbaImage, InputError> {
    match read_png(path)? {
        PngSource::Fast(lines) => lines.into_rgba(path),
        PngSource::Other(bytes) => decode_general(path, &bytes),
    }
}

/// A PNG file read and, for the common screenshot kinds, inflated (see [`read_png`]).
pub(crate) enum PngSource {
    /// 8-bit RGB or RGBA, inflated, rows still filtered: for the direct decoder.
    Fast(Scanlines),
    /// Any other PNG, as read: for the image crate ([`decode_general`]).
    Other(Vec<u8>),
}

impl PngSource {
    /// Width and height, from the header: nothing is decoded.
    pub(crate) fn dimensions(&self, path: &Path) -> Result<(u32, u32), InputError> {
        match self {
            PngSource::Fast(lines) => Ok((lines.width, lines.height)),
            PngSource::Other(bytes) => Ok(png_decoder(path, bytes)?.dimensions()),
        }
    }
}

/// The image crate's PNG decoder over `bytes`, its header read.
fn png_decoder<'a>(
    path: &Path,
    bytes: &'a [u8],
) -> Result<PngDecoder<std::io::Cursor<&'a [u8]>>, InputError> {
    PngDecoder::new(std::io::Cursor::new(bytes)).map_err(|e| image_error(path, e))
}

fn image_error(path: &Path, e: image::ImageError) -> InputError {
    let reason = match e {
        image::ImageError::Limits(_) => Reason::LimitExceeded,
        _ => Reason::InvalidImage,
    };
    InputError::new(path, reason, format!("cannot decode: {e}"))
        .hint("is the file a complete PNG screenshot?")
}

/// Reads a PNG (bounded) and inflates it when the direct decoder handles its kind.
pub(crate) fn read_png(path: &Path) -> Result<PngSource, InputError> {
    parse_png(path, read_png_bytes(path)?)
}

/// A PNG file's bytes, within the size limit, not yet looked into.
pub(crate) fn read_png_bytes(path: &Path) -> Result<Vec<u8>, InputError> {
    crate::json::read_bounded(path, PNG_BYTES)
}

/// The bytes of the PNG file `path`, inflated for the common screenshot kinds.
pub(crate) fn parse_png(path: &Path, bytes: Vec<u8>) -> Result<PngSource, InputError> {
    png_signature(path, &bytes)?;
    Ok(match parse(path, &bytes)? {
        Parsed::Fast(lines) => PngSource::Fast(lines),
        Parsed::Other => PngSource::Other(bytes),
    })
}

/// Checks that `bytes` start like a PNG file.
pub(crate) fn png_signature(path: &Path, bytes: &[u8]) -> Result<(), InputError> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Ok(());
    }
    Err(
        InputError::new(path, Reason::UnsupportedFileType, "not a PNG file")
            .hint("screenshots must be PNG"),
    )
}

/// Decodes any PNG with the image crate, within the same limits. The memory it will take is
/// counted from the header before anything is allocated: the decoder's own buffer (a 1-bit
/// image comes out at 8 bits a sample) and the RGBA copy made from it. A 33 KB 1-bit 16384²
/// PNG asks for 1.3 GB that way and is refused, where the decoder's limit alone let it through.
pub(crate) fn decode_general(path: &Path, bytes: &[u8]) -> Result<RgbaImage, InputError> {
    let mut decoder = png_decoder(path, bytes)?;
    let (w, h) = decoder.dimensions();
    if w > PNG_SIDE || h > PNG_SIDE {
        return Err(InputError::new(
            path,
            Reason::LimitExceeded,
            format!("cannot decode: {w}×{h} is over the limit of {PNG_SIDE} pixels a side"),
        ));
    }
    let needed = decode_cost(
        (w, h),
        decoder.total_bytes(),
        decoder.color_type() == image::ColorType::Rgba8,
    );
    if needed > DECODE_BYTES {
        return Err(InputError::new(
            path,
            Reason::LimitExceeded,
            format!(
                "cannot decode: a {w}×{h} image needs {} MiB, over the limit of {} MiB",
                needed >> 20,
                DECODE_BYTES >> 20
            ),
        )
        .hint("screenshots are at most 8K; is this file what it claims to be?"));
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(PNG_SIDE);
    limits.max_image_height = Some(PNG_SIDE);
    limits.max_alloc = Some(DECODE_BYTES);
    decoder
        .set_limits(limits)
        .map_err(|e| image_error(path, e))?;
    // `into_rgba8` moves an RGBA8 image out instead of copying it (most screenshots are RGBA8).
    Ok(image::DynamicImage::from_decoder(decoder)
        .map_err(|e| image_error(path, e))?
        .into_rgba8())
}

/// Bytes decoding takes: the decoder's buffer, and the RGBA copy unless it already is RGBA8
/// (then `into_rgba8` moves it).
fn decode_cost((w, h): (u32, u32), decoder_bytes: u64, rgba8: bool) -> u64 {
    let copy = if rgba8 {
        0
    } else {
        u64::from(w) * u64::from(h) * 4
    };
    decoder_bytes.saturating_add(copy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_decode_budget_holds_at_its_limit_and_not_past_it() {
        // A 1-bit grey image decodes to one byte a pixel, then four more for RGBA: five.
        let pixels = DECODE_BYTES / 5;
        let (w, h) = (PNG_SIDE, (pixels / u64::from(PNG_SIDE)) as u32);
        let at = decode_cost((w, h), u64::from(w) * u64::from(h), false);
        assert!(at <= DECODE_BYTES);
        let past = decode_cost((w, h + 1), u64::from(w) * u64::from(h + 1), false);
        assert!(past > DECODE_BYTES);
        // RGBA8 is moved, not copied.
        assert_eq!(decode_cost((2, 2), 16, true), 16);
    }
}

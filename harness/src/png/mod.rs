//! The PNG codec: a direct decoder for 8-bit RGB/RGBA screenshots (whole images, or a few rows
//! at a time for the pixel diff), bounded reading with the image crate for every other kind,
//! and the fixed-settings encoder of synthetic and recorded screens.

pub(crate) mod decode;
mod encode;
mod read;
pub(crate) mod rows;
mod unfilter;

pub(crate) use encode::encode_rgb;
pub(crate) use read::{
    PngSource, decode_general, decode_png, parse_png, png_signature, read_png_bytes,
};

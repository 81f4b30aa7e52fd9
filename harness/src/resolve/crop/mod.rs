//! Crop locate: finds where a recorded crop of a control appears on a screen ([`locate`] →
//! [`CropMatch`]), by normalized cross-correlation on grayscale, equal to OpenCV's
//! `TM_CCOEFF_NORMED`.
//!
//! A screen is prepared once ([`GrayScreen`]) and queried many times, because replay looks up
//! several crops per frame.

mod coarse;
mod exact;
mod gray;
mod integral;
mod locate;
#[cfg(test)]
mod locate_tests;
mod ncc;
mod near;
mod peaks;
mod pyramid;
mod rarity;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod synth;

pub use gray::GrayScreen;
#[cfg(test)]
pub(crate) use locate::CropMatch;
pub use locate::{CropOptions, CropQuery, Searched, locate};
pub(crate) use near::score_near;

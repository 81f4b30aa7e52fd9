//! Decoded screenshots, held by a memory budget rather than for the whole run.
//!
//! A 2880×1800 frame is 20 MB decoded; a suite of recordings holds hundreds of them, and a
//! run that kept every frame it had touched grew with the suite (700 MB on the checked-in one)
//! instead of with the work in flight. Frames are decoded on use and kept while they fit in
//! [`FRAME_CACHE_BYTES`]; past it the least recently used are dropped and decoded again if
//! needed. Decoding is deterministic, so what is cached never changes a result.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use image::RgbaImage;

use crate::errors::InputError;
use crate::limits::FRAME_CACHE_BYTES;

#[derive(Default)]
struct Cache {
    frames: HashMap<PathBuf, (Arc<RgbaImage>, u64)>,
    bytes: u64,
    clock: u64,
}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

fn size(img: &RgbaImage) -> u64 {
    img.as_raw().len() as u64
}

/// The frame at `path`, from the cache or decoded by `decode` (outside the lock, so threads
/// decode different frames at once).
pub(crate) fn get_or_decode(
    path: &Path,
    decode: impl FnOnce() -> Result<RgbaImage, InputError>,
) -> Result<Arc<RgbaImage>, InputError> {
    {
        let mut guard = CACHE.lock().unwrap_or_else(|p| p.into_inner());
        let cache = guard.get_or_insert_with(Cache::default);
        cache.clock += 1;
        let now = cache.clock;
        if let Some((img, used)) = cache.frames.get_mut(path) {
            *used = now;
            return Ok(img.clone());
        }
    }
    let img = Arc::new(decode()?);
    let mut guard = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    let cache = guard.get_or_insert_with(Cache::default);
    cache.clock += 1;
    let now = cache.clock;
    if let Some((old, _)) = cache.frames.insert(path.to_path_buf(), (img.clone(), now)) {
        cache.bytes -= size(&old);
    }
    cache.bytes += size(&img);
    while cache.bytes > FRAME_CACHE_BYTES && cache.frames.len() > 1 {
        let oldest = cache
            .frames
            .iter()
            .filter(|(p, _)| p.as_path() != path)
            .min_by_key(|(_, (_, used))| *used)
            .map(|(p, _)| p.clone());
        let Some(p) = oldest else { break };
        if let Some((gone, _)) = cache.frames.remove(&p) {
            cache.bytes -= size(&gone);
        }
    }
    Ok(img)
}

/// Bytes held now (for tests).
#[cfg(test)]
pub(crate) fn held_bytes() -> u64 {
    CACHE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .map_or(0, |c| c.bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_stays_within_its_budget_and_keeps_the_recent_frames() {
        // Frames of a quarter of the budget each: at most four stay.
        let side = ((FRAME_CACHE_BYTES / 4 / 4) as f64).sqrt() as u32;
        let dir = Path::new("/nonexistent/frame-cache-test");
        let mut decoded = 0;
        for round in 0..2 {
            for i in 0..6 {
                let p = dir.join(format!("{i}.png"));
                let img = get_or_decode(&p, || {
                    decoded += 1;
                    Ok(RgbaImage::new(side, side))
                })
                .unwrap();
                assert_eq!(img.width(), side);
                assert!(held_bytes() <= FRAME_CACHE_BYTES, "round {round}");
            }
        }
        // Six frames that do not all fit, read twice in order: every read decodes.
        assert_eq!(decoded, 12);
        // The last one is still there.
        let again = get_or_decode(&dir.join("5.png"), || panic!("decoded again")).unwrap();
        assert_eq!(again.width(), side);
    }
}

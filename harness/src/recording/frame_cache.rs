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
    /// Each frame with the file's length and modification time when it was decoded, and when
    /// it was last used.
    frames: HashMap<PathBuf, Entry>,
    bytes: u64,
    clock: u64,
}

struct Entry {
    image: Arc<RgbaImage>,
    stamp: Stamp,
    used: u64,
}

/// What says a file is still the one decoded: `serve` runs for days while recordings change.
type Stamp = Option<(u64, std::time::SystemTime)>;

fn stamp(path: &Path) -> Stamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
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
    let now_stamp = stamp(path);
    {
        let mut guard = crate::par::lock(&CACHE);
        let cache = guard.get_or_insert_with(Cache::default);
        cache.clock += 1;
        let now = cache.clock;
        if let Some(e) = cache.frames.get_mut(path)
            && e.stamp == now_stamp
        {
            e.used = now;
            return Ok(e.image.clone());
        }
    }
    let image = Arc::new(decode()?);
    let mut guard = crate::par::lock(&CACHE);
    let cache = guard.get_or_insert_with(Cache::default);
    cache.clock += 1;
    let entry = Entry {
        image: image.clone(),
        stamp: now_stamp,
        used: cache.clock,
    };
    if let Some(old) = cache.frames.insert(path.to_path_buf(), entry) {
        cache.bytes -= size(&old.image);
    }
    cache.bytes += size(&image);
    while cache.bytes > FRAME_CACHE_BYTES && cache.frames.len() > 1 {
        let oldest = cache
            .frames
            .iter()
            .filter(|(p, _)| p.as_path() != path)
            .min_by_key(|(_, e)| e.used)
            .map(|(p, _)| p.clone());
        let Some(p) = oldest else { break };
        if let Some(gone) = cache.frames.remove(&p) {
            cache.bytes -= size(&gone.image);
        }
    }
    Ok(image)
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
        // Six frames that do not all fit, read twice in order: every read decodes (the least
        // recently used one is always the one read next).
        assert_eq!(decoded, 12);
    }

    #[test]
    fn a_frame_whose_file_changed_is_decoded_again() {
        let dir = std::env::temp_dir().join(format!("stepreplay-fc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f.png");
        std::fs::write(&p, b"one").unwrap();
        let a = get_or_decode(&p, || Ok(RgbaImage::new(1, 1))).unwrap();
        let same = get_or_decode(&p, || panic!("unchanged file decoded again")).unwrap();
        assert!(Arc::ptr_eq(&a, &same));
        std::fs::write(&p, b"three").unwrap();
        let b = get_or_decode(&p, || Ok(RgbaImage::new(2, 2))).unwrap();
        assert_eq!(b.width(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

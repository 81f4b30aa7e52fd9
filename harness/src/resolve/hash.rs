//! [`FastState`]: the hasher of the resolver's tables.
//!
//! The std default (SipHash with a random key) is built to resist crafted keys and costs
//! tens of nanoseconds per short string; an index of 10k elements makes tens of thousands of
//! such probes, which was a large share of the build. The keys here are element ids, label
//! hashes and grid cells from one recording, so a multiply–rotate word hash with a final
//! avalanche (every output bit depends on every input bit, which the table's bucket and tag
//! bits need) is enough. Being unkeyed, a recording crafted so that many ids collide could
//! slow its own indexing down; it cannot change a result.

use std::hash::{BuildHasherDefault, Hasher};

/// An odd constant with well-mixed bits (from the digits of π).
const K: u64 = 0x243f_6a88_85a3_08d3;

/// Word-at-a-time hasher; see the module docs.
#[derive(Clone, Copy, Default)]
pub(crate) struct FastHasher(u64);

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(23) ^ word).wrapping_mul(K);
    }

    /// Hashes `bytes` with every byte passed through `map` first (`map` must work byte by
    /// byte on a word and keep zero bytes zero), without writing the mapped bytes anywhere.
    #[inline]
    fn write_mapped(&mut self, bytes: &[u8], map: impl Fn(u64) -> u64) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(map(u64::from_le_bytes(c.try_into().expect("8 bytes"))));
        }
        let rest = chunks.remainder();
        // The last 0–7 bytes, read without a copy through the stack. With the length (mixed
        // in too, so "a" and "a\0" differ) these reads determine every byte: 4–7 bytes are
        // the first four and the last four, 1–3 the first, middle and last.
        let n = rest.len();
        let word = match n {
            4.. => {
                let lo = u32::from_le_bytes(rest[..4].try_into().expect("4 bytes"));
                let hi = u32::from_le_bytes(rest[n - 4..].try_into().expect("4 bytes"));
                u64::from(lo) | (u64::from(hi) << 32)
            }
            1.. => {
                u64::from(rest[0]) | (u64::from(rest[n / 2]) << 8) | (u64::from(rest[n - 1]) << 16)
            }
            0 => 0,
        };
        self.add(map(word) ^ ((bytes.len() as u64) << 56));
    }
}

/// ASCII lowercase of the eight bytes of `w`, all of which must be ASCII: bit 7 of a byte
/// ends up set in `w + 0x3f` when it is `'A'` or more and in `w + 0x25` when it is more than
/// `'Z'` (no carry crosses bytes below 0x80), and 0x80 >> 2 is the 0x20 that lowercases.
#[inline]
fn ascii_lower_word(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let upper = (w + 0x3f * ONES) & !(w + 0x25 * ONES) & (0x80 * ONES);
    w | (upper >> 2)
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.write_mapped(bytes, |w| w);
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        // Avalanche (xor-shift-multiply rounds), so high and low bits both depend on all input.
        let mut h = self.0;
        h ^= h >> 32;
        h = h.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^= h >> 29;
        h = h.wrapping_mul(K);
        h ^ (h >> 32)
    }
}

/// `BuildHasher` for the resolver's maps.
pub(crate) type FastState = BuildHasherDefault<FastHasher>;

/// The hash of a string (or of its bytes), as the label table keys it.
pub(crate) fn hash_str(s: impl AsRef<[u8]>) -> u64 {
    let mut h = FastHasher::default();
    h.write(s.as_ref());
    h.finish()
}

/// `hash_str(&s.to_ascii_lowercase())` for an ASCII `s`, without making the lowercase
/// string: the label table hashes each name it has just written, and reading back bytes
/// stored one at a time a moment before stalls on store forwarding.
pub(crate) fn hash_ascii_lowercase(s: &str) -> u64 {
    debug_assert!(s.is_ascii());
    let mut h = FastHasher::default();
    h.write_mapped(s.as_bytes(), ascii_lower_word);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercase_hash_equals_hash_of_lowercased() {
        let all: String = (0u8..128).map(char::from).collect();
        for a in 0..all.len() {
            for len in [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 40] {
                let s = &all[a..(a + len).min(all.len())];
                assert_eq!(
                    hash_ascii_lowercase(s),
                    hash_str(s.to_ascii_lowercase()),
                    "{s:?}"
                );
            }
        }
        assert_eq!(
            ascii_lower_word(u64::from_le_bytes(*b"@AZ[`az{")),
            u64::from_le_bytes(*b"@az[`az{")
        );
    }

    #[test]
    fn different_short_strings_hash_apart() {
        let words = [
            "",
            "a",
            "a\0",
            "b",
            "delete",
            "Delete",
            "field 1.1",
            "field 1.10",
        ];
        let mut hashes: Vec<u64> = words.iter().map(hash_str).collect();
        hashes.sort_unstable();
        hashes.dedup();
        assert_eq!(hashes.len(), words.len());
        assert_eq!(hash_str("delete"), hash_str("delete"));
    }
}

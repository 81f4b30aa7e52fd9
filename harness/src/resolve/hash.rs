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
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
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
        self.add(word ^ ((bytes.len() as u64) << 56));
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

/// The hash of a string, as the label table keys it.
pub(crate) fn hash_str(s: &str) -> u64 {
    let mut h = FastHasher::default();
    h.write(s.as_bytes());
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut hashes: Vec<u64> = words.iter().map(|w| hash_str(w)).collect();
        hashes.sort_unstable();
        hashes.dedup();
        assert_eq!(hashes.len(), words.len());
        assert_eq!(hash_str("delete"), hash_str("delete"));
    }
}

//! The one seeded generator (SplitMix64). Perturbations and test screens must give the same
//! numbers for the same seed on every machine, so no OS randomness and no library whose
//! stream may change between versions.

use crate::fnv::fnv1a64_from;

/// A SplitMix64 stream.
pub(crate) struct Rng(u64);

impl Rng {
    #[cfg(test)]
    /// A stream from a seed.
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// A stream from a seed and a name, so that two users of one seed (two perturbations)
    /// draw different numbers.
    pub(crate) fn salted(seed: u64, salt: &str) -> Rng {
        Rng(fnv1a64_from(seed ^ 0x9E37_79B9_7F4A_7C15, salt.as_bytes()))
    }

    /// The next 64 bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`); the modulo bias is irrelevant here.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    #[cfg(test)]
    /// [`Rng::below`] for pixel sizes and positions.
    pub(crate) fn below_u32(&mut self, n: u32) -> u32 {
        self.below(u64::from(n)) as u32
    }

    /// A number in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % ((hi - lo + 1) as u64)) as i64
    }

    #[cfg(test)]
    /// A random byte.
    pub(crate) fn byte(&mut self) -> u8 {
        self.next_u64() as u8
    }

    #[cfg(test)]
    /// Uniform in `0..1`.
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    #[cfg(test)]
    /// True with probability `p`.
    pub(crate) fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn the_stream_is_splitmix64() {
        // SplitMix64's published first output for seed 0.
        assert_eq!(Rng::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
        let mut r = Rng::salted(7, "move-window");
        let a: Vec<u64> = (0..50).map(|_| r.below(10)).collect();
        assert!(a.iter().all(|&v| v < 10) && a.iter().any(|&v| v != a[0]));
        assert_ne!(
            Rng::salted(7, "a").next_u64(),
            Rng::salted(7, "b").next_u64()
        );
    }
}

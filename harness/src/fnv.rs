//! FNV-1a, the one stable hash: shard membership, a suite's identity, a name's colour.

/// FNV-1a, 64 bits: stable across platforms and Rust versions (unlike `DefaultHasher`).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_from(0xcbf2_9ce4_8422_2325, bytes)
}

/// FNV-1a started from `basis` instead of the standard offset: a seeded hash.
pub(crate) fn fnv1a64_from(basis: u64, bytes: &[u8]) -> u64 {
    let mut h = basis;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

//! Identifiers and time without a wall clock or a random source.
//!
//! The app normalizes every UUID to lowercase ([`normalize_uuid`]); the simulator derives the
//! ids it creates ([`derive_uuid`]) and the `updatedAt` stamps it writes ([`timestamp`]) from
//! the command and a logical clock kept in the manifest, so replaying the same batch against
//! the same starting folder gives the same bytes on every machine.

/// The instant logical tick 0 stands for. Each processed inbox file or human edit advances
/// the clock by one second from here.
const EPOCH_DAYS: i64 = crate::time::days_from_civil(2026, 1, 1);

/// The lowercase form of a UUID (`8-4-4-4-12` hex digits), or `None` when `s` is not one.
pub(crate) fn normalize_uuid(s: &str) -> Option<String> {
    let groups: Vec<&str> = s.split('-').collect();
    let shape = [8, 4, 4, 4, 12];
    let ok = groups.len() == shape.len()
        && groups
            .iter()
            .zip(shape)
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()));
    ok.then(|| s.to_ascii_lowercase())
}

/// A UUID-shaped id derived from `kind` and `seed` (FNV-1a, two lanes, version 8 and the
/// RFC 9562 variant set), so different kinds of object made by one command never share an id.
pub(crate) fn derive_uuid(kind: &str, seed: &str) -> String {
    let lane = |basis: u64| {
        let mut h = basis;
        for b in kind.bytes().chain([0]).chain(seed.bytes()) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h
    };
    let hi = lane(0xcbf2_9ce4_8422_2325);
    let lo = lane(0x6c62_272e_07bb_0142);
    let hi = (hi & !0xf000) | 0x8000; // version 8: "custom"
    let lo = (lo & !(0b11 << 62)) | (0b10 << 62); // RFC 9562 variant
    let hex = format!("{hi:016x}{lo:016x}");
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// The ISO 8601 UTC timestamp of logical tick `tick` (`2026-01-01T00:00:07Z` for 7).
pub(crate) fn timestamp(tick: u64) -> String {
    let secs = i64::try_from(tick).unwrap_or(i64::MAX / 2);
    crate::time::utc(EPOCH_DAYS * 86_400 + secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_checked_and_lowercased() {
        assert_eq!(
            normalize_uuid("5D39F61B-3C2E-4BE7-A264-B4B75D20C7EE").as_deref(),
            Some("5d39f61b-3c2e-4be7-a264-b4b75d20c7ee")
        );
        for bad in [
            "",
            "routine-id",
            "5d39f61b3c2e4be7a264b4b75d20c7ee",
            "../../etc/passwd",
        ] {
            assert_eq!(normalize_uuid(bad), None, "{bad}");
        }
        assert_eq!(normalize_uuid("5d39f61b-3c2e-4be7-a264-b4b75d20c7eg"), None);
    }

    #[test]
    fn derived_ids_are_stable_distinct_and_uuid_shaped() {
        let a = derive_uuid("routine", "a1111111-1111-4111-8111-111111111111");
        assert_eq!(
            a,
            derive_uuid("routine", "a1111111-1111-4111-8111-111111111111")
        );
        assert_ne!(
            a,
            derive_uuid("plan", "a1111111-1111-4111-8111-111111111111")
        );
        assert_eq!(normalize_uuid(&a).as_deref(), Some(a.as_str()));
        assert_eq!(&a[14..15], "8");
    }

    #[test]
    fn timestamps_count_seconds_from_the_epoch() {
        assert_eq!(timestamp(0), "2026-01-01T00:00:00Z");
        assert_eq!(timestamp(7), "2026-01-01T00:00:07Z");
        assert_eq!(timestamp(86_400 * 59 + 3661), "2026-03-01T01:01:01Z");
        assert_eq!(timestamp(86_400 * 365), "2027-01-01T00:00:00Z");
    }

    #[test]
    fn a_huge_clock_from_a_hand_edited_manifest_does_not_panic() {
        assert!(timestamp(u64::MAX).ends_with('Z'));
        let mut s = crate::bridge::State {
            logical_clock: u64::MAX,
            ..Default::default()
        };
        assert!(s.tick().ends_with('Z'));
    }
}

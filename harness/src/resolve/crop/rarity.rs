//! How common each grey is on a screen ([`Rarity`]), for the exact-copy scan's prefilter.
//!
//! memchr's substring search looks first for two bytes of the needle, the two it ranks
//! rarest, and checks the whole needle only where both sit at the right distance. Its own
//! ranking is of bytes in text and binaries; on a screen, what is rare is a matter of that
//! screen (a dark theme's text greys are a light theme's background). With the screen's own
//! counts, the scan picks greys that are rare there and runs into fewer false starts: two
//! full-screen queries at 2880×1800, timed alone, went from 113 and 102 µs to 74 and 67 µs.
//! (The other half of the fix is in `exact::anchor`: a needle that starts at a change.)

use memchr::arch::all::packedpair::HeuristicFrequencyRank;

use super::gray::Plane;

/// Every grey's rank among the 256 by how often it occurs on a screen: 0 for the rarest,
/// 255 for the commonest (ties by grey, so ranks are distinct and deterministic).
#[derive(Debug, Clone)]
pub(crate) struct Rarity {
    rank: [u8; 256],
}

/// Rows sampled, spread evenly down the screen. Screens repeat down their rows (lists,
/// panes, lines of text), so a sample ranks greys well enough, and costs a few microseconds
/// whatever the screen's size: a screen ranked for one query must not cost more than the
/// query (at 2880×1800, every eighth row took 75 µs; these 16, 10).
const ROWS: usize = 16;

impl Rarity {
    /// Ranks the greys of `plane` from [`ROWS`] of its rows.
    pub(crate) fn of(plane: &Plane) -> Rarity {
        // Four tables in turn: on a flat row every count would wait on the one before.
        let mut tables = [[0u32; 256]; 4];
        let rows = plane.height.min(ROWS);
        for i in 0..rows {
            let (quads, rest) = plane
                .row(0, i * plane.height / rows, plane.width)
                .as_chunks::<4>();
            for q in quads {
                for (t, &v) in tables.iter_mut().zip(q) {
                    t[usize::from(v)] += 1;
                }
            }
            for &v in rest {
                tables[0][usize::from(v)] += 1;
            }
        }
        let counts: [u32; 256] = std::array::from_fn(|g| tables.iter().map(|t| t[g]).sum());
        // Count and grey in one key: sorted, ties go by grey.
        let mut order: [u64; 256] = std::array::from_fn(|g| (u64::from(counts[g]) << 8) | g as u64);
        order.sort_unstable();
        let mut rank = [0u8; 256];
        for (r, &key) in order.iter().enumerate() {
            rank[(key & 0xff) as usize] = r as u8;
        }
        Rarity { rank }
    }
}

impl HeuristicFrequencyRank for Rarity {
    fn rank(&self, byte: u8) -> u8 {
        self.rank[usize::from(byte)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greys_rank_by_how_often_they_occur() {
        // On the sampled rows (every third of 48), 16 × 25 of grey 9, 16 × 5 of grey 7 and
        // 16 of grey 3; the rows in between, not sampled, are all grey 3.
        let (width, height) = (31, 3 * ROWS);
        let mut data = Vec::new();
        for y in 0..height {
            data.extend((0..width).map(|x| match (y % 3, x) {
                (0, 0) => 3,
                (0, 1..=5) => 7,
                (0, _) => 9,
                _ => 3,
            }));
        }
        let r = Rarity::of(&Plane {
            width,
            height,
            data,
        });
        assert_eq!((r.rank(9), r.rank(7), r.rank(3)), (255, 254, 253));
        // Greys that do not occur rank below all that do, in grey order.
        assert_eq!((r.rank(0), r.rank(1), r.rank(255)), (0, 1, 252));
    }
}

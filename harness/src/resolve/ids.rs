//! [`IdTable`]: element index by element id.
//!
//! A `HashMap<&str, u32>` spends 24 bytes a slot and, at 10k elements and more, a cache miss
//! or two per insert; that was a fifth of indexing. Here a slot is 8 bytes (32 bits of the
//! id's hash and the element's index), open addressing with linear probing over a table at
//! most half full, and the id itself is compared only when the hash bits agree.

use super::hash::hash_str;
use super::index::Node;

/// Element ids → indices; the last element with a repeated id wins, as with a map insert.
#[derive(Debug, Default)]
pub(crate) struct IdTable {
    /// `(hash bits, index + 1)`; index 0 marks an empty slot.
    slots: Vec<(u32, u32)>,
}

impl IdTable {
    /// Indexes `nodes` by id.
    #[cfg(test)]
    pub(crate) fn build(nodes: &[Node]) -> Self {
        let hashes: Vec<u64> = nodes.iter().map(|n| hash_str(n.id)).collect();
        Self::build_hashed(nodes, &hashes)
    }

    /// Indexes `nodes` by id, given `hashes[i] == hash_str(nodes[i].id)`. The index hashes
    /// each window's ids as it walks the window, while their strings are in cache; this pass
    /// then reads only the hashes (and an id only when two hashes agree).
    pub(crate) fn build_hashed(nodes: &[Node], hashes: &[u64]) -> Self {
        debug_assert_eq!(nodes.len(), hashes.len());
        let cap = (nodes.len() * 2).next_power_of_two().max(8);
        let mut t = IdTable {
            slots: vec![(0, 0); cap],
        };
        let mask = cap - 1;
        for (i, (n, &h)) in nodes.iter().zip(hashes).enumerate() {
            let mut at = h as usize & mask;
            loop {
                let (bits, slot) = t.slots[at];
                if slot == 0 {
                    t.slots[at] = ((h >> 32) as u32, i as u32 + 1);
                    break;
                }
                if bits == (h >> 32) as u32 && nodes[slot as usize - 1].id == n.id {
                    t.slots[at].1 = i as u32 + 1;
                    break;
                }
                at = (at + 1) & mask;
            }
        }
        t
    }

    /// The index of the element with this id among `nodes` (the ones it was built from).
    pub(crate) fn get(&self, nodes: &[Node], id: &str) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let h = hash_str(id);
        let mask = self.slots.len() - 1;
        let mut at = h as usize & mask;
        loop {
            let (bits, slot) = self.slots[at];
            if slot == 0 {
                return None;
            }
            if bits == (h >> 32) as u32 && nodes[slot as usize - 1].id == id {
                return Some(slot - 1);
            }
            at = (at + 1) & mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::ax::Rect;

    fn node(id: &str) -> Node<'_> {
        Node {
            id,
            window: 0,
            ax_role: "AXButton",
            name: None,
            frame: Rect::default(),
            enabled: true,
        }
    }

    #[test]
    fn finds_every_id_and_the_last_of_repeats() {
        let ids: Vec<String> = (0..1000).map(|i| format!("e{i}")).collect();
        let mut nodes: Vec<Node> = ids.iter().map(|s| node(s)).collect();
        nodes.push(node("e7"));
        let t = IdTable::build(&nodes);
        for i in 0..1000u32 {
            let want = if i == 7 { 1000 } else { i };
            assert_eq!(t.get(&nodes, &ids[i as usize]), Some(want));
        }
        assert_eq!(t.get(&nodes, "e1000"), None);
        assert_eq!(t.get(&nodes, ""), None);
        assert_eq!(IdTable::default().get(&[], "e1"), None);
    }
}
